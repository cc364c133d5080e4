/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Property plugin "property-compare": constraint operators that compare a
 * target's valued property (KEY=VALUE, respol/property.h) with a number.
 * Configuration block:
 *
 *   - plugin: property-compare
 *     config:
 *       keys: [memory, numa, gpus]
 *
 * Each key K adds five RFC 31 operators, K-ge, K-gt, K-le, K-lt and K-eq:
 *
 *   {"memory-ge": ["256G"]}     memory of at least 256 GiB
 *   {"and": [{"memory-ge": ["256G"]}, {"memory-lt": ["1T"]}]}
 *   {"numa-eq": [2]}            exactly two NUMA nodes
 *   --requires='memory-ge:256G gpus-ge:4'    (RFC 35 query syntax)
 *
 * A target matches when it has a value for K (a property "K=VALUE", or a
 * graph vertex's property K with a value) that reads as a size (size.h:
 * 512G, 1.5T, 64) and compares as the operator says with every value of
 * the operator (several values must all hold).  A target without a value,
 * or with one that is not a size, matches none of them, not even K-lt.
 * Values are sizes as strings ("256G") or JSON numbers >= 0; an empty
 * list, or a value that is not a size, is an error of the constraint:
 *   constraint: memory-ge: "lots" is not a size (e.g. 256G, 1.5T, 64)
 *   constraint: memory-ge: needs a value
 *
 * Decisions: K-eq compares numbers ("memory=512G" equals 524288M), which
 * {"properties": ["memory=512G"]} cannot; sizes use powers of 1024, as
 * memory is counted by hwloc and flux; a key must be a valid operator name
 * once "-ge" is added (letters, digits, '-' and '_').  The compiled data
 * is the smallest and largest bound, so a match is one lookup and two
 * comparisons.
 *
 * Built as a site builds its own plugin: respol headers only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <stdlib.h>
#include <string.h>

#include <respol/property.h>

#include "plugins/property/size.h"

static const struct rp_host_services *svc;

enum cmp { GE, GT, LE, LT, EQ, NCMP };

static const char *const suffixes[NCMP] = { "ge", "gt", "le", "lt", "eq" };

/* One operator: the key it reads and its comparison (its compile's arg). */
struct op {
    const char *key; /* borrowed from the configuration block */
    enum cmp cmp;
};

/* What one use of an operator compiles to: its values are bounds (they
 * must all hold, so the smallest and the largest suffice). */
struct compiled {
    const struct op *op;
    double lo, hi;
};

static bool holds (enum cmp cmp, double have, double lo, double hi)
{
    switch (cmp) {
    case GE:
        return have >= hi;
    case GT:
        return have > hi;
    case LE:
        return have <= lo;
    case LT:
        return have < lo;
    default:
        return have == lo && have == hi;
    }
}

/* --- the operators ------------------------------------------------------- */

static int not_a_size (struct rp_plugin *p, const json_t *v)
{
    char *text = json_dumps (v, JSON_ENCODE_ANY | JSON_COMPACT);

    svc->error (p, "%s is not a size (e.g. 256G, 1.5T, 64)",
                text ? text : "value");
    free (text);
    return -1;
}

static int compile (struct rp_plugin *p, void *arg, const json_t *values,
                    void **data)
{
    struct compiled *c;
    size_t i;
    json_t *v;
    double d;

    if (json_array_size (values) == 0)
        return svc->error (p, "needs a value");
    json_array_foreach (values, i, v) {
        if (!size_json (v, &d))
            return not_a_size (p, v);
    }
    if (!(c = malloc (sizeof (*c))))
        return svc->error (p, "out of memory");
    *c = (struct compiled){ .op = arg, .lo = INFINITY, .hi = -INFINITY };
    json_array_foreach (values, i, v) {
        size_json (v, &d);
        c->lo = d < c->lo ? d : c->lo;
        c->hi = d > c->hi ? d : c->hi;
    }
    *data = c;
    return 0;
}

static bool match (const void *data, const struct rp_constraint_target *t)
{
    const struct compiled *c = data;
    const char *value = rp_constraint_target_value (t, c->op->key);
    double have;

    return value && size_parse (value, &have)
           && holds (c->op->cmp, have, c->lo, c->hi);
}

static void destroy (void *data)
{
    free (data);
}

static const struct rp_constraint_operator table = {
    .size = sizeof (struct rp_constraint_operator),
    .compile = compile,
    .match = match,
    .destroy = destroy,
};

/* --- configuration ------------------------------------------------------ */

/* Add the five operators of each key; ops has room for them. */
static int add_operators (struct rp_plugin *p, const json_t *keys,
                          struct op *ops)
{
    char name[128];
    size_t i, n = 0;
    json_t *k;

    json_array_foreach (keys, i, k) {
        const char *key = json_string_value (k);
        if (!key || !*key || strlen (key) > 60)
            return svc->error (p, "keys[%zu]: must be a key of 1-60 bytes", i);
        for (int c = 0; c < NCMP; c++, n++) {
            ops[n] = (struct op){ .key = key, .cmp = (enum cmp)c };
            snprintf (name, sizeof (name), "%s-%s", key, suffixes[c]);
            if (rp_property_add_operator (p, name, &table, &ops[n]) < 0)
                return -1; /* its message is the instance's error */
        }
    }
    return 0;
}

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    const json_t *keys = json_object_get (s->config (p), "keys");
    struct op *ops;

    svc = s;
    if (!json_is_array (keys) || json_array_size (keys) == 0)
        return svc->error (p, "keys: must be a list of one key or more "
                              "(e.g. [memory, numa])");
    if (!(ops = calloc (json_array_size (keys) * NCMP, sizeof (*ops))))
        return svc->error (p, "out of memory");
    svc->set_data (p, ops);
    if (add_operators (p, keys, ops) < 0) {
        free (ops);
        svc->set_data (p, NULL);
        return -1;
    }
    return 0;
}

static void fini (struct rp_plugin *p)
{
    free (svc->get_data (p));
}

static const struct rp_property_ops ops = {
    .size = sizeof (struct rp_property_ops),
};

static const char *const config_keys[] = { "keys", NULL };

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_PROPERTY,
    .name = "property-compare",
    .description = "operators that compare a valued property: memory-ge, "
                   "...",
    .version = "1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
    .config_keys = config_keys,
};
