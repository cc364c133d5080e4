/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Match policy "low": lowest ids first, looking at every candidate (as
 * Fluxion's "low" policy).  Every candidate, and every child the host
 * descends through, scores -(its id), so the host visits and takes them
 * in ascending id order whatever order the graph holds them in; equal
 * scores keep the walk order (ascending handles), which breaks ties by
 * handle.  A vertex without an id scores lowest of all (taken last).
 * stop_after 0: the search sees every candidate before choosing, so the
 * result does not depend on handle order, only on ids.
 *
 * Compared with "first": the same choice on a graph built by respol's
 * builders (handles ascend with ids), at the cost of scoring every
 * candidate; it differs on a graph read from a file whose vertices are
 * not in id order.
 *
 * Configuration block: none (the plugin has no init, so the host refuses
 * any key).
 *
 * Built as a site builds its own plugin: respol/plugin.h only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <stdint.h>

#include <respol/plugin.h>

static int score (struct rp_plugin *p, const struct rp_match *m, rp_vertex_t v,
                  int64_t *score)
{
    int64_t id = rp_graph_vertex_id (rp_match_graph (m), v);

    (void)p;
    *score = id >= 0 ? -id : INT64_MIN;
    return 0;
}

static const struct rp_match_ops ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_LOW,
    .stop_after = 0,
    .score = score,
    .hints = RP_MATCH_SCORE_BY_ID,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_MATCH,
    .name = "low",
    .description = "lowest ids first, looking at every candidate",
    .version = "0.1.0",
    .ops = &ops,
};
