/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "property-fixture" (property): does what its
 * configuration block says, for the property kind's tests.
 *   add: {NAME: IDSET}     annotate: rp_annotation_add (IDSET "all":
 *                          every target, with NULL)
 *   remove: {NAME: IDSET}  annotate: rp_annotation_remove, after the adds
 *                          (IDSET "all": NULL)
 *   hardware: NAME         annotate: NAME=CORES on every target whose
 *                          hardware facts say how many cores it has
 *   fail: TEXT             annotate fails with TEXT; "!" without a message
 *   operator: NAME         init adds operator NAME: ["KEY"] matches a
 *                          target with property KEY, ["KEY", "VALUE"] one
 *                          whose value for KEY is VALUE; other values do
 *                          not compile ("wants [KEY] or [KEY, VALUE]")
 *   no-match: NAME         init adds operator NAME with no match
 *   late: NAME             annotate adds operator NAME (too late)
 * Keys are declared, values checked by the host's rules, not here: a bad
 * name or idset reaches the host as the plugin gave it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/idset.h>
#include <respol/property.h>

static const struct rp_host_services *svc;

struct compiled {
    char *key;
    char *value; /* NULL: has KEY */
};

static int compile (struct rp_plugin *p, void *arg, const json_t *values,
                    void **data)
{
    const char *key = json_string_value (json_array_get (values, 0));
    const char *value = json_string_value (json_array_get (values, 1));
    size_t n = json_array_size (values);
    struct compiled *c;

    if (!key || n > 2 || (n == 2 && !value))
        return svc->error (p, "wants [KEY] or [KEY, VALUE]");
    if (!(c = calloc (1, sizeof (*c))) || !(c->key = strdup (key))
        || (value && !(c->value = strdup (value)))) {
        if (c)
            free (c->key);
        free (c);
        return svc->error (p, "out of memory");
    }
    *data = c;
    return 0;
}

static bool match (const void *data, const struct rp_constraint_target *t)
{
    const struct compiled *c = data;
    const char *v;

    if (!c->value)
        return rp_constraint_target_has_property (t, c->key);
    v = rp_constraint_target_value (t, c->key);
    return v && !strcmp (v, c->value);
}

static void destroy (void *data)
{
    struct compiled *c = data;

    free (c->key);
    free (c->value);
    free (c);
}

static const struct rp_constraint_operator op = {
    .size = sizeof (struct rp_constraint_operator),
    .compile = compile,
    .match = match,
    .destroy = destroy,
};

static const struct rp_constraint_operator op_no_match = {
    .size = sizeof (struct rp_constraint_operator),
    .compile = compile,
};

static const char *conf (struct rp_plugin *p, const char *key)
{
    return json_string_value (json_object_get (svc->config (p), key));
}

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    svc = s;
    if (conf (p, "no-match"))
        return rp_property_add_operator (p, conf (p, "no-match"), &op_no_match,
                                         NULL);
    if (conf (p, "operator"))
        return rp_property_add_operator (p, conf (p, "operator"), &op, NULL);
    return 0;
}

/* Call fn for each NAME: IDSET of the block's key. */
static int each (struct rp_plugin *p, struct rp_annotation *a, const char *key,
                 int (*fn) (struct rp_annotation *, const char *,
                            const struct rp_idset *))
{
    const json_t *o = json_object_get (svc->config (p), key);
    const char *name;
    json_t *v;

    json_object_foreach ((json_t *)o, name, v) {
        const char *s = json_string_value (v);
        struct rp_idset *ids = NULL;
        rp_error_t e;
        if (!s)
            return svc->error (p, "%s.%s: must be a string", key, name);
        if (strcmp (s, "all") != 0 && !(ids = rp_idset_decode (s, &e)))
            return svc->error (p, "%s.%s: %s", key, name, e.text);
        fn (a, name, ids);
        rp_idset_destroy (ids);
    }
    return 0;
}

static int hardware (struct rp_plugin *p, struct rp_annotation *a)
{
    const char *key =
        json_string_value (json_object_get (svc->config (p), "hardware"));
    const struct rp_idset *ranks = rp_rset_ranks (rp_annotation_R (a));
    char name[128];

    if (!key)
        return 0;
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r)) {
        const json_t *cores =
            json_object_get (rp_annotation_hardware (a, r), "cores");
        struct rp_idset *one = rp_idset_create ();
        if (!cores || !one || rp_idset_add (one, r) < 0) {
            rp_idset_destroy (one);
            continue;
        }
        snprintf (name, sizeof (name), "%s=%lld", key,
                  (long long)json_integer_value (cores));
        rp_annotation_add (a, name, one);
        rp_idset_destroy (one);
    }
    return 0;
}

static int annotate (struct rp_plugin *p, struct rp_annotation *a)
{
    const char *fail = conf (p, "fail");

    if (fail && !strcmp (fail, "!"))
        return -1;
    if (fail)
        return svc->error (p, "%s", fail);
    if (conf (p, "late"))
        return rp_property_add_operator (p, conf (p, "late"), &op, NULL);
    if (each (p, a, "add", rp_annotation_add) < 0
        || each (p, a, "remove", rp_annotation_remove) < 0)
        return -1;
    return hardware (p, a);
}

static const struct rp_property_ops ops = {
    .size = sizeof (struct rp_property_ops),
    .annotate = annotate,
};

static const char *const keys[] = { "add",      "remove",   "hardware", "fail",
                                    "operator", "no-match", "late",     NULL };

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_PROPERTY,
    .name = "property-fixture",
    .description = "does what its configuration says (test fixture)",
    .version = "1.0",
    .init = init,
    .ops = &ops,
    .config_keys = keys,
};
