/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "reject-all": rejects every jobspec.  It has no init, so
 * it takes no configuration block. */
#include <respol/plugin.h>

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    return rp_validation_reject (v, "rejected on purpose");
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "reject-all",
    .description = "rejects every jobspec (test fixture)",
    .version = "1.0",
    .ops = &ops,
};
