/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The "fit / spare" measure of a vertex for the shipped match policies
 * that score by how full a part of the graph is (pack, spread, locality;
 * see the match-policy section of api/respol/plugin.h).
 *
 * A header of static functions rather than a library: a plugin is built
 * from its own sources and respol's headers only, as a site builds its own
 * (cc -shared -fPIC), so shared helpers are compiled into each plugin (as
 * plugins/validate/duration.h is for the validators).
 *
 * fit is capped at FIT_MAX (2^28) and spare at SPARE_MAX (2^32 - 1) so
 * that measure_score packs both into one int64_t (fit above spare) that
 * compares as the pair does, and whose negation does too.
 */
#ifndef RESPOL_MATCH_MEASURE_H
#define RESPOL_MATCH_MEASURE_H

#include <stdbool.h>
#include <stdint.h>

#include <respol/plugin.h>

#define FIT_MAX ((uint64_t)1 << 28)
/* Types read in one call (rp_match_unit_needs, rp_match_subtree_frees);
 * those past it, one by one (no graph respol builds has that many). */
#define MEASURE_TYPES 64
#define SPARE_MAX (((uint64_t)1 << 32) - 1)

/* A measure being summed type by type: measure_add each type's free
 * units and one unit's need of it, then read fit and measure_spare. */
struct measure {
    uint64_t fit;
    uint64_t spare;
    bool counted; /* some type was needed */
};

#define MEASURE_INIT { .fit = FIT_MAX, .spare = 0, .counted = false }

static inline void measure_add (struct measure *ms, uint64_t free,
                                uint64_t need)
{
    if (need == 0)
        return;
    if (free / need < ms->fit)
        ms->fit = free / need;
    if (free > need)
        ms->spare += free - need < SPARE_MAX ? free - need : SPARE_MAX;
    ms->counted = true;
}

static inline uint64_t measure_spare (const struct measure *ms)
{
    return ms->spare > SPARE_MAX ? SPARE_MAX : ms->spare;
}

/* How many more units of the request v's subtree could hold, as its free
 * amounts show (*fit, capped at FIT_MAX; an upper bound: the host checks
 * the real fit), and the free units of what a unit needs beyond that need,
 * summed over those types (*spare, capped at SPARE_MAX).  Types the unit
 * does not need are not counted, nor the request's own type when the
 * request is shared (a vertex held by another job shows no free units but
 * may still be shared).  Returns false when the unit needs nothing this
 * can count.  The needs and free amounts of the first MEASURE_TYPES
 * types are read in one call each. */
static bool measure (const struct rp_match *m, rp_vertex_t v, uint64_t *fit,
                     uint64_t *spare)
{
    const struct rp_jobspec_resource *r = rp_match_request (m);
    int own = rp_match_request_type (m);
    bool shared = !r || !rp_jobspec_resource_exclusive (r);
    uint64_t needs[MEASURE_TYPES], frees[MEASURE_TYPES];
    size_t ntypes = rp_match_unit_needs (m, needs, MEASURE_TYPES);
    struct measure ms = MEASURE_INIT;

    rp_match_subtree_frees (m, v, frees, MEASURE_TYPES);
    for (size_t t = 0; t < ntypes; t++) {
        bool one = t < MEASURE_TYPES;
        uint64_t need = one ? needs[t] : rp_match_unit_need (m, (int)t);
        if (need == 0 || ((int)t == own && shared))
            continue;
        measure_add (&ms, one ? frees[t] : rp_match_subtree_free (m, v, (int)t),
                     need);
    }
    *fit = ms.fit;
    *spare = measure_spare (&ms);
    return ms.counted;
}

/* fit and spare (as measure leaves them) as one score: the larger fit
 * wins, then the larger spare. */
static int64_t measure_score (uint64_t fit, uint64_t spare)
{
    return (int64_t)((fit << 32) | spare);
}

#endif
