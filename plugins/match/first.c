/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Match policy "first": first fit.  Candidates are taken in walk order,
 * lowest vertex handles (builders make them lowest ids) first, and a
 * request's search ends at the first fit (stop_after 1).  No score, no
 * prune: this is the host's fast path, which may skip full parts of the
 * graph without looking at them (RFC 4 "Walker" without an evaluating
 * filter).  It behaves as the matcher's built-in policy, and is the
 * default when the configuration's match stack is empty.
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
    .order = RP_MATCH_LOW,
    .stop_after = 1,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_MATCH,
    .name = "first",
    .description = "first fit: lowest ids first, stop at the first fit",
    .version = "0.1.0",
    .ops = &ops,
};
