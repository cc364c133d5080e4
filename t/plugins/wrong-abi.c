/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "wrong-abi": built for ABI version 7, and, as a plugin
 * of another ABI naturally does, calling a function this respol does not
 * have.  The loader must refuse it by its version (not by the undefined
 * symbol) before calling anything. */
#include <respol/plugin.h>

extern int rp_abi7_only_function (const struct rp_jobspec *js);

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    return rp_abi7_only_function (js);
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = 7,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "wrong-abi",
    .description = "built for another ABI (test fixture)",
    .version = "1.0",
    .ops = &ops,
};
