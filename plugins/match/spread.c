/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Match policy "spread": worst fit.  Among the candidates, and among the
 * children the host descends through, prefer the one with the most free
 * of what the unit being placed needs: the least loaded node (socket,
 * rack) first, so that jobs spread over the machine.
 *
 * The score of a vertex v, from rp_match_unit_need and
 * rp_match_subtree_free over the types the unit needs:
 *   fit    how many units v's subtree could still hold (the minimum over
 *          those types of free / need);
 *   spare  the free units beyond one unit's need, summed over them.
 * The larger fit wins, then the larger spare; a vertex that holds no unit
 * scores 0 (lowest); equal scores keep the walk order (lowest ids first).
 * A unit that needs nothing countable (a shared request with nothing
 * below it) scores 0 everywhere: first fit.  stop_after 0: every
 * candidate is looked at.
 *
 * Configuration block: none (the plugin has no init, so the host refuses
 * any key).
 *
 * Built as a site builds its own plugin: respol/plugin.h and measure.h
 * only, no library linked, one exported symbol; everything else is
 * static.
 */
#include <stdbool.h>
#include <stdint.h>

#include <respol/plugin.h>

#include "measure.h"

static int score (struct rp_plugin *p, const struct rp_match *m, rp_vertex_t v,
                  int64_t *score)
{
    uint64_t fit, spare;

    (void)p;
    if (!measure (m, v, &fit, &spare) || fit == 0)
        *score = 0;
    else
        *score = measure_score (fit, spare);
    return 0;
}

static const struct rp_match_ops ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_LOW,
    .stop_after = 0,
    .score = score,
    .hints = RP_MATCH_SCORE_BY_FREE,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_MATCH,
    .name = "spread",
    .description = "worst fit: the least loaded resources first",
    .version = "0.1.0",
    .ops = &ops,
};
