/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Match policy "locality": keep a job's resources close together.
 *
 * Above the execution targets (racks, switches: any vertex above the
 * targets), prefer the group that can hold all the units the request
 * still needs (rp_match_count_need: nodes, or slots), the fullest such
 * group first (leaving emptier groups whole for larger jobs); when no
 * group can hold them all, the group with the most free first.  So a
 * job's nodes span as few groups as the graph shows.
 *
 * Below an execution target, prefer the socket or NUMA domain (any vertex
 * below a target) that can hold everything the unit still needs: what is
 * left of the request being placed (rp_match_count_need units of
 * rp_match_unit_need each) and all of the requests after it in the same
 * "with" list (e.g. a slot's GPUs while its cores are placed, counted
 * from the jobspec); among those the fullest first, counting the free
 * units of every type below it, so that a slot's GPUs follow its cores
 * into the socket the cores just filled; and among those that can, one
 * where this match already holds units of a type the unit asks for
 * (rp_match_held: its earlier requests, or an earlier unit of the same
 * job) before the others, so that a slot's GPUs follow its cores even
 * when other jobs left that socket fuller or emptier than another; when
 * none can, the one with the most free of what the unit needs first.
 *
 * Execution targets themselves score alike, so they are taken in walk
 * order: lowest ids of the preferred group first.  Below a target, a leaf
 * this match does not hold shows nothing of rp_match_held (none below it)
 * and the rest of its score reads the free amounts it shows and what the
 * request still needs, the same for every leaf of one walk: leaves that
 * show the same score the same (RP_MATCH_SCORE_LEAVES_BY_FREE), so the
 * host takes a node's cores in walk order without scoring them.
 *
 * "Can hold" and "free" above the targets are measured as in the pack
 * policy: for the types the unit needs (rp_match_unit_need), the units the
 * subtree could still hold (fit: the minimum over those types of free /
 * need; rp_match_subtree_free), then the free units beyond one unit's
 * need, summed (spare).  Fullest: the smallest fit, then spare; most free:
 * the largest.  stop_after 1: the search stops once the walk, which
 * visits the preferred groups first, has found the count needed.
 *
 * Decisions: the requests placed before the current one in its "with"
 * list are not counted in what the unit still needs (they are already
 * placed); what they took is seen with rp_match_held, which cannot tell
 * the unit being filled from the job's earlier units, so both steer the
 * rest next to them.  Counts from the jobspec are minimum counts (RFC 14
 * ranges), as the host places them; they are a heuristic only: the host
 * checks the real fit.
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

/* Scores: a vertex that holds it all ranks above every one that does not,
 * fullest first; the others, most free first. */
#define HOLDS_ALL ((int64_t)1 << 62)
/* Below a target, one that also holds part of the unit ranks above. */
#define HOLDS_PART ((int64_t)1 << 61)

static int64_t fullest (uint64_t fit, uint64_t spare)
{
    return HOLDS_ALL - measure_score (fit, spare);
}

static uint64_t sat_add (uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul (uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

/* Add to need[] the instances of r and everything below it in one
 * instance of its parent (whose total is per). */
static void add_need (const struct rp_graph *g,
                      const struct rp_jobspec_resource *r, uint64_t per,
                      uint64_t *need, int ntypes)
{
    int t = rp_graph_type_index (g, rp_jobspec_resource_type (r));

    if (t >= 0 && t < ntypes)
        need[t] = sat_add (need[t], rp_jobspec_resource_total (r) / per);
    for (r = rp_jobspec_resource_with_first (r); r;
         r = rp_jobspec_resource_next (r))
        add_need (g, r, per, need, ntypes);
}

/* Types past the first MAX_TYPES of the graph are not looked at (no
 * graph respol builds has that many). */
#define MAX_TYPES MEASURE_TYPES

/* What the unit still needs below a target, per type: the rest of the
 * current request r and the requests after it in its list (need[]), and
 * what one unit of the request needs (unit[], rp_match_unit_needs).
 * Returns the number of types filled in (at most MAX_TYPES). */
static int unit_rest (const struct rp_match *m,
                      const struct rp_jobspec_resource *r, uint64_t *need,
                      uint64_t *unit)
{
    const struct rp_jobspec_resource *parent;
    size_t ntypes = rp_match_unit_needs (m, unit, MAX_TYPES);
    uint64_t count = rp_match_count_need (m);
    uint64_t per = 1;

    if (ntypes > MAX_TYPES)
        ntypes = MAX_TYPES;
    for (size_t t = 0; t < ntypes; t++)
        need[t] = sat_mul (unit[t], count);
    if (!r || !(parent = rp_jobspec_resource_parent (r)))
        return (int)ntypes;
    if (rp_jobspec_resource_total (parent) > 0)
        per = rp_jobspec_resource_total (parent);
    for (r = rp_jobspec_resource_next (r); r; r = rp_jobspec_resource_next (r))
        add_need (rp_match_graph (m), r, per, need, (int)ntypes);
    return (int)ntypes;
}

/* Mark in mask the types of r, its siblings after it and everything
 * below them. */
static void mark_types (const struct rp_graph *g,
                        const struct rp_jobspec_resource *r, bool *mask,
                        int ntypes)
{
    for (; r; r = rp_jobspec_resource_next (r)) {
        int t = rp_graph_type_index (g, rp_jobspec_resource_type (r));
        if (t >= 0 && t < ntypes)
            mask[t] = true;
        mark_types (g, rp_jobspec_resource_with_first (r), mask, ntypes);
    }
}

/* Whether this match holds, below v, units of a type that the unit being
 * filled asks for (the types of the current request's "with" list and
 * below): its earlier requests, or an earlier unit of the same job. */
static bool holds_part (const struct rp_match *m, rp_vertex_t v, int ntypes)
{
    const struct rp_graph *g = rp_match_graph (m);
    const struct rp_jobspec_resource *r = rp_match_request (m);
    const struct rp_jobspec_resource *parent;
    bool mask[MAX_TYPES] = { false };

    if (!r)
        return false;
    if ((parent = rp_jobspec_resource_parent (r)))
        r = rp_jobspec_resource_with_first (parent);
    mark_types (g, r, mask, ntypes);
    for (int t = 0; t < ntypes; t++)
        if (mask[t] && rp_match_held (m, v, t) > 0)
            return true;
    return false;
}

/* Below a target: HOLDS_ALL - spare (free of every type beyond what the
 * unit still needs) when v holds all of it, plus HOLDS_PART when it also
 * holds part of the unit already; else the pack-style measure of what
 * one unit needs (measure.h's fit and spare, from the same free amounts:
 * each type's is read once). */
static int64_t score_below (const struct rp_match *m, rp_vertex_t v)
{
    const struct rp_jobspec_resource *r = rp_match_request (m);
    int own = rp_match_request_type (m);
    bool shared = !r || !rp_jobspec_resource_exclusive (r);
    uint64_t need[MAX_TYPES], unit[MAX_TYPES], frees[MAX_TYPES], spare = 0;
    int ntypes = unit_rest (m, r, need, unit);
    struct measure ms = MEASURE_INIT;
    bool holds = true;

    rp_match_subtree_frees (m, v, frees, (size_t)ntypes);
    for (int t = 0; t < ntypes; t++) {
        uint64_t free = frees[t];
        if (t == own && shared)
            continue;
        if (free < need[t])
            holds = false;
        else
            spare = sat_add (spare, free - need[t]);
        measure_add (&ms, free, unit[t]);
    }
    if (holds)
        return HOLDS_ALL - (int64_t)(spare < SPARE_MAX ? spare : SPARE_MAX)
               + (holds_part (m, v, ntypes) ? HOLDS_PART : 0);
    if (!ms.counted)
        return 0;
    return measure_score (ms.fit, measure_spare (&ms));
}

static int score (struct rp_plugin *p, const struct rp_match *m, rp_vertex_t v,
                  int64_t *score)
{
    rp_vertex_t target = rp_graph_target (rp_match_graph (m), v);
    uint64_t fit, spare, all;

    (void)p;
    *score = 0;
    if (target == v)
        return 0;
    if (target != RP_VERTEX_NONE) {
        *score = score_below (m, v);
        return 0;
    }
    if (!measure (m, v, &fit, &spare))
        return 0;
    all = rp_match_count_need (m);
    if (all == 0)
        all = 1;
    if (fit >= all)
        *score = fullest (fit, spare);
    else
        *score = measure_score (fit, spare);
    return 0;
}

static const struct rp_match_ops ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_LOW,
    .stop_after = 1,
    .score = score,
    .hints = RP_MATCH_SCORE_TARGETS_ZERO | RP_MATCH_SCORE_LEAVES_BY_FREE,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_MATCH,
    .name = "locality",
    .description = "keep a job within as few racks and sockets as it can",
    .version = "0.1.0",
    .ops = &ops,
};
