/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Property plugin "hwloc-properties": properties from a target's hardware,
 * as the host read it through hwloc (rp_annotation_hardware: this machine
 * with --local, an XML topology with --xml), named as the site says.
 * Configuration block, every key optional:
 *
 *   - plugin: hwloc-properties
 *     config:
 *       cpu-vendor: {GenuineIntel: intel, AuthenticAMD: amd}
 *       cpu-model: {"*E5-2695 v4*": broadwell, "*EPYC 7*": zen}
 *       gpu-vendor: {nvidia: nvidia, amd: amd}
 *       gpu-model: {"*V100*": v100, "*MI200*": mi200}
 *       memory: {0: mem-small, 256G: mem-256g, 1T: mem-1t}
 *       numa: {1: numa1, 2: numa2, 4: numa4}
 *       values: [memory, numa, cores, gpus]
 *
 * cpu-vendor, cpu-model, gpu-vendor and gpu-model map hwloc's text (for
 * GPUs: each GPU of the target; vendors as "nvidia", "amd", "intel") to a
 * property name: each key is an fnmatch(3) pattern, tried in the block's
 * order, the first that matches wins.  memory and numa are classes: each
 * key a threshold (a size, 256G, or a count), and the target gets the name
 * of the largest threshold at or below its memory (NUMA node count); none
 * when it is below them all.  values lists the facts (memory, numa, cores,
 * pus, packages, gpus) also given as valued properties KEY=VALUE:
 * "memory=512G", "numa=2", "gpus=4", which the property-compare plugin's
 * operators compare (memory as a size, see size.h).
 *
 * A target without hardware facts (the resources came from R or a
 * resources block) gets nothing.  Everything is checked in init: unknown
 * keys (declared), property names (rp_rset_property_check), patterns and
 * thresholds, the facts of values.
 *
 * Built as a site builds its own plugin: respol headers only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <respol/property.h>

#include "plugins/property/size.h"

static const struct rp_host_services *svc;

static const char *const cpu_keys[] = { "cpu-vendor", "cpu-model", NULL };
static const char *const class_keys[] = { "memory", "numa", NULL };
static const char *const facts[] = { "memory",   "numa", "cores", "pus",
                                     "packages", "gpus", NULL };

/* --- configuration ------------------------------------------------------ */

static int check_names (struct rp_plugin *p, const char *key, const json_t *map,
                        bool sizes)
{
    const char *k;
    json_t *v;
    rp_error_t e;
    double d;

    if (!json_is_object (map))
        return svc->error (p, "%s: must be a mapping of %s to property names",
                           key, sizes ? "thresholds" : "patterns");
    json_object_foreach ((json_t *)map, k, v) {
        const char *name = json_string_value (v);
        if (sizes && !size_parse (k, &d))
            return svc->error (p, "%s: \"%s\" is not a %s", key, k,
                               strcmp (key, "memory") ? "count" : "size");
        if (!name)
            return svc->error (p, "%s: %s: must be a property name", key, k);
        if (rp_rset_property_check (name, &e) < 0)
            return svc->error (p, "%s: %s: %s", key, k, e.text);
    }
    return 0;
}

static bool in (const char *const *list, const char *s)
{
    for (size_t i = 0; list[i]; i++)
        if (!strcmp (list[i], s))
            return true;
    return false;
}

static int check_values (struct rp_plugin *p, const json_t *a)
{
    size_t i;
    json_t *v;

    if (!json_is_array (a))
        return svc->error (p, "values: must be a list of facts (memory, "
                              "numa, cores, pus, packages, gpus)");
    json_array_foreach (a, i, v) {
        if (!json_is_string (v) || !in (facts, json_string_value (v)))
            return svc->error (p,
                               "values[%zu]: must be one of memory, numa, "
                               "cores, pus, packages, gpus",
                               i);
    }
    return 0;
}

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    const json_t *block = s->config (p);
    const char *key;
    json_t *v;

    svc = s;
    json_object_foreach ((json_t *)block, key, v) {
        int rc = !strcmp (key, "values")
                     ? check_values (p, v)
                     : check_names (p, key, v, in (class_keys, key));
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* --- annotate ----------------------------------------------------------- */

/* Say name for rank. */
static void say (struct rp_annotation *a, const char *name, unsigned int rank)
{
    struct rp_idset *one = rp_idset_create ();

    if (one && rp_idset_add (one, rank) == 0)
        rp_annotation_add (a, name, one);
    rp_idset_destroy (one);
}

/* The name of the first pattern of map that text matches, or NULL. */
static const char *first_match (const json_t *map, const char *text)
{
    const char *k;
    json_t *v;

    json_object_foreach ((json_t *)map, k, v) {
        if (fnmatch (k, text, 0) == 0)
            return json_string_value (v);
    }
    return NULL;
}

static void text_fact (struct rp_annotation *a, const json_t *map,
                       const char *text, unsigned int rank)
{
    const char *name = map && text ? first_match (map, text) : NULL;

    if (name)
        say (a, name, rank);
}

static void gpu_facts (struct rp_annotation *a, const json_t *block,
                       const json_t *hw, unsigned int rank)
{
    size_t i;
    json_t *g;

    json_array_foreach (json_object_get (hw, "gpus"), i, g) {
        text_fact (a, json_object_get (block, "gpu-vendor"),
                   json_string_value (json_object_get (g, "vendor")), rank);
        text_fact (a, json_object_get (block, "gpu-model"),
                   json_string_value (json_object_get (g, "model")), rank);
    }
}

/* The class of value: the name of the largest threshold <= value. */
static void class_fact (struct rp_annotation *a, const json_t *map,
                        const json_t *fact, unsigned int rank)
{
    const char *best = NULL, *k;
    double top = -1, t;
    json_t *v;

    if (!map || !json_is_number (fact))
        return;
    json_object_foreach ((json_t *)map, k, v) {
        if (size_parse (k, &t) && t <= json_number_value (fact) && t > top) {
            top = t;
            best = json_string_value (v);
        }
    }
    if (best)
        say (a, best, rank);
}

/* KEY=VALUE for each fact of values. */
static void value_facts (struct rp_annotation *a, const json_t *values,
                         const json_t *hw, unsigned int rank)
{
    char name[128], text[SIZE_TEXT];
    size_t i;
    json_t *v;

    json_array_foreach (values, i, v) {
        const char *fact = json_string_value (v);
        const json_t *f = json_object_get (hw, fact);
        json_int_t n = json_is_array (f) ? (json_int_t)json_array_size (f)
                                         : json_integer_value (f);
        if (!f)
            continue;
        if (!strcmp (fact, "memory"))
            snprintf (name, sizeof (name), "memory=%s",
                      size_text ((uint64_t)n, text, sizeof (text)));
        else
            snprintf (name, sizeof (name), "%s=%lld", fact, (long long)n);
        say (a, name, rank);
    }
}

static int annotate (struct rp_plugin *p, struct rp_annotation *a)
{
    const json_t *block = svc->config (p);
    const struct rp_idset *ranks = rp_rset_ranks (rp_annotation_R (a));

    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r)) {
        const json_t *hw = rp_annotation_hardware (a, r);
        if (!hw)
            continue;
        for (size_t i = 0; cpu_keys[i]; i++)
            text_fact (a, json_object_get (block, cpu_keys[i]),
                       json_string_value (json_object_get (hw, cpu_keys[i])),
                       r);
        gpu_facts (a, block, hw, r);
        for (size_t i = 0; class_keys[i]; i++)
            class_fact (a, json_object_get (block, class_keys[i]),
                        json_object_get (hw, class_keys[i]), r);
        value_facts (a, json_object_get (block, "values"), hw, r);
    }
    return 0;
}

static const struct rp_property_ops ops = {
    .size = sizeof (struct rp_property_ops),
    .annotate = annotate,
};

static const char *const keys[] = { "cpu-vendor", "cpu-model", "gpu-vendor",
                                    "gpu-model",  "memory",    "numa",
                                    "values",     NULL };

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_PROPERTY,
    .name = "hwloc-properties",
    .description = "properties from the hardware hwloc shows, named by the "
                   "site",
    .version = "1.0",
    .init = init,
    .ops = &ops,
    .config_keys = keys,
};
