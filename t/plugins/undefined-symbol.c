/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "undefined-symbol": validate calls a function that no
 * respol has.  Bound lazily, it would load and then kill the process at
 * the first call; the loader must refuse it at load. */
#include <respol/plugin.h>

extern int rp_no_such_function (void);

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    return rp_no_such_function ();
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "undefined-symbol",
    .description = "calls a missing function (test fixture)",
    .version = "1.0",
    .ops = &ops,
};
