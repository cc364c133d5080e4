/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "ctor-undefined": a constructor calls a function that no
 * respol has.  Its descriptor is fine.  The loader's RTLD_NOW open refuses
 * it; the lazy open that looks at the descriptor then runs the
 * constructor, which dies ("symbol lookup error"): the loader must do that
 * in a child process, and report the undefined symbol. */
#include <respol/plugin.h>

extern int rp_ctor_no_such_function (void);

__attribute__ ((constructor)) static void ctor (void)
{
    rp_ctor_no_such_function ();
}

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
    .kind = RP_PLUGIN_VALIDATE,
    .name = "ctor-undefined",
    .description = "a constructor calls a missing function (test fixture)",
    .version = "1.0",
    .ops = &ops,
};
