/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "warn-all": warns twice about every jobspec and amends
 * its queue to "amended".  No init: it takes no configuration block. */
#include <respol/plugin.h>

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    rp_validation_warn (v, "first warning");
    rp_validation_warn (v, "second warning (queue %s)",
                        rp_jobspec_queue (js) ? rp_jobspec_queue (js) : "-");
    if (rp_validation_amend (v, "system.queue", json_string ("amended")) < 0)
        return -1;
    return RP_WARN;
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "warn-all",
    .description = "warns twice and sets the queue (test fixture)",
    .version = "1.0",
    .ops = &ops,
};
