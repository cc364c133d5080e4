/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "init-fails": init reports an error and fails.  fini
 * aborts, because the host must not call fini after a failed init. */
#include <stdlib.h>

#include <respol/plugin.h>

static int init (struct rp_plugin *p, const struct rp_host_services *svc)
{
    return svc->error (p, "init failed on purpose");
}

static void fini (struct rp_plugin *p)
{
    abort ();
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
    .name = "init-fails",
    .description = "init fails (test fixture)",
    .version = "1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
};
