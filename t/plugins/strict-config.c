/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "strict-config": checks its configuration block in init
 * as a real plugin should.  The block must be {limit: N}, N an integer
 * > 0, and nothing else; validate rejects a jobspec with more than N
 * tasks. */
#include <stdlib.h>
#include <string.h>

#include <respol/plugin.h>

static const struct rp_host_services *svc;

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    const json_t *cfg = s->config (p);
    json_t *limit = json_object_get (cfg, "limit");
    const char *key;
    json_t *value;
    json_int_t *data;

    svc = s;
    json_object_foreach ((json_t *)cfg, key, value) {
        if (strcmp (key, "limit") != 0)
            return svc->error (p, "unknown key '%s'", key);
    }
    if (!limit)
        return svc->error (p, "'limit' is required");
    if (!json_is_integer (limit) || json_integer_value (limit) <= 0)
        return svc->error (p, "'limit' must be an integer > 0");
    if (!(data = malloc (sizeof (*data))))
        return svc->error (p, "out of memory");
    *data = json_integer_value (limit);
    svc->set_data (p, data);
    return 0;
}

static void fini (struct rp_plugin *p)
{
    free (svc->get_data (p));
}

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    json_int_t limit = *(json_int_t *)svc->get_data (p);
    unsigned long long ntasks = rp_jobspec_facts (js)->ntasks;

    if (ntasks > (unsigned long long)limit)
        return rp_validation_reject (v,
                                     "%llu tasks, more than the limit of "
                                     "%lld",
                                     ntasks, (long long)limit);
    return RP_ACCEPT;
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "strict-config",
    .description = "rejects jobs with more than 'limit' tasks (test fixture)",
    .version = "2.1",
    .init = init,
    .fini = fini,
    .ops = &ops,
};
