/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Match policy "high": first fit from the other end.  Children are
 * visited and candidates taken in descending handle order (highest ids
 * first, as Fluxion's "high" policy), and a request's search ends at the
 * first fit (stop_after 1).  No score: the host's fast path.
 *
 * Configuration block: none (the plugin has no init, so the host refuses
 * any key).
 *
 * Built as a site builds its own plugin: respol/plugin.h only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <respol/plugin.h>

static const struct rp_match_ops ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_HIGH,
    .stop_after = 1,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_MATCH,
    .name = "high",
    .description = "highest ids first, stop at the first fit",
    .version = "0.1.0",
    .ops = &ops,
};
