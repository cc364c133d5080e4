/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "no-ops": a validator whose ops pointer is NULL. */
#include <respol/plugin.h>

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "no-ops",
    .description = "has no operations (test fixture)",
    .version = "1.0",
    .ops = NULL,
};
