/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Match policy "pack": best fit.  Among the candidates, and among the
 * children the host descends through, prefer the one with the least free
 * of what the unit being placed needs that still fits: partly used nodes
 * (and sockets, racks) are filled before idle ones, so a job touches as
 * few of them as it can and whole nodes stay free for whole-node jobs.
 *
 * The score of a vertex v, from rp_match_unit_need and
 * rp_match_subtree_free over the types the unit needs:
 *   fit    how many units v's subtree could still hold (the minimum over
 *          those types of free / need);
 *   spare  the free units beyond one unit's need, summed over them.
 * A vertex that holds no unit scores lowest; otherwise the smaller fit
 * wins, then the smaller spare; equal scores keep the walk order (lowest
 * ids first).  A unit that needs nothing countable (a shared request with
 * nothing below it) scores 0 everywhere: first fit.  stop_after 0: every
 * candidate is looked at.
 *
 * Sums over types mix units (cores, GB): spare only breaks ties between
 * equal fits, where it still prefers the fuller vertex.
 *
 * A target holds several slots: the host finds it once per slot it could
 * hold, scoring each find after the slots found before it on that target
 * were tentatively placed, so a target's later finds score as fuller, and
 * sort before, its first.  Sorted by score alone, two slots would then go
 * to two idle nodes (each one's second find first) instead of one.
 * order_candidates therefore puts a target's finds together, at the place
 * of its last one in the sorted order, which is its first find, scored on
 * the state at the start of the request: targets are ranked by best fit
 * as the request found them, and a job's slots fill one target before
 * the next.  (When the memory for that is short, the scored order is
 * kept: a worse choice, not a failure.)
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
#include <stdlib.h>

#include <respol/plugin.h>

#include "measure.h"

static int score (struct rp_plugin *p, const struct rp_match *m, rp_vertex_t v,
                  int64_t *score)
{
    uint64_t fit, spare;

    (void)p;
    if (!measure (m, v, &fit, &spare))
        *score = 0;
    else if (fit == 0)
        *score = INT64_MIN;
    else
        *score = -measure_score (fit, spare);
    return 0;
}

/* A candidate, its place in the scored order, and the place of the last
 * find of the same vertex there. */
struct find {
    rp_vertex_t v;
    size_t at;
    size_t last;
};

static int by_vertex (const void *a, const void *b)
{
    const struct find *x = a, *y = b;

    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static int by_last (const void *a, const void *b)
{
    const struct find *x = a, *y = b;

    if (x->last != y->last)
        return x->last < y->last ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Group the finds of each vertex at its last find, keeping the order
 * otherwise. */
static int order_candidates (struct rp_plugin *p, const struct rp_match *m,
                             rp_vertex_t *v, size_t n)
{
    struct find *f;

    (void)p;
    (void)m;
    if (n < 2 || !(f = malloc (n * sizeof (*f))))
        return 0;
    for (size_t i = 0; i < n; i++)
        f[i] = (struct find){ .v = v[i], .at = i };
    qsort (f, n, sizeof (*f), by_vertex);
    for (size_t i = n; i-- > 0;)
        f[i].last = i + 1 < n && f[i].v == f[i + 1].v ? f[i + 1].last : f[i].at;
    qsort (f, n, sizeof (*f), by_last);
    for (size_t i = 0; i < n; i++)
        v[i] = f[i].v;
    free (f);
    return 0;
}

static const struct rp_match_ops ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_LOW,
    .stop_after = 0,
    .score = score,
    .order_candidates = order_candidates,
    .hints = RP_MATCH_SCORE_BY_FREE | RP_MATCH_ORDER_GROUPS,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_MATCH,
    .name = "pack",
    .description = "best fit: fill partly used resources first",
    .version = "0.1.0",
    .ops = &ops,
};
