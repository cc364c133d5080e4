/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "reserved-kind": declares a reserved kind (property).  The
 * loader must refuse it before calling anything. */
#include <respol/plugin.h>

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    return RP_ACCEPT;
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_PROPERTY,
    .name = "reserved-kind",
    .description = "declares a reserved kind (property) (test fixture)",
    .version = "1.0",
    .ops = &ops,
};
