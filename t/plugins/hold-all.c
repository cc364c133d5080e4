/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "hold-all" (validate): holds every job ("held by hold-all
 * (queue Q)") and amends its system.held to true, so a test can see that a
 * hold keeps the amendments. */
#include <respol/plugin.h>

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    (void)p;
    if (rp_validation_amend (v, "system.held", json_true ()) < 0)
        return -1;
    return rp_validation_hold (v, "held by hold-all (queue %s)",
                               rp_jobspec_queue (js) ? rp_jobspec_queue (js)
                                                     : "-");
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "hold-all",
    .description = "holds every job (test fixture)",
    .version = "1.0",
    .ops = &ops,
};
