// SPDX-License-Identifier: LGPL-3.0-or-later
// Fluxion's planner (flux-sched, resource/planner/c/planner.h) behind
// bench-planner's view (bench/planner-ops.h), for scripts/compare-planner.
// Not part of the build: the script compiles it against a flux-sched
// build tree.  The pool's horizon is the largest Fluxion takes, so that no
// span falls outside it.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "resource/planner/c/planner.h"

#include "planner-ops.h"

static void fx_die (const char *what)
{
    fprintf (stderr, "bench-planner: fluxion: %s: %s\n", what,
             strerror (errno));
    exit (1);
}

static void *fx_create (uint64_t total)
{
    planner_t *p = planner_new (0, (uint64_t)INT64_MAX / 2, total, "node");
    if (!p)
        fx_die ("planner_new");
    return p;
}

static void fx_destroy (void *p)
{
    planner_t *ctx = (planner_t *)p;
    planner_destroy (&ctx);
}

static uint64_t fx_add (void *p, int64_t start, int64_t duration, uint64_t n)
{
    int64_t id = planner_add_span ((planner_t *)p, start, (uint64_t)duration,
                                   n);
    if (id < 0)
        fx_die ("planner_add_span");
    return (uint64_t)id;
}

static void fx_remove (void *p, uint64_t span)
{
    if (planner_rem_span ((planner_t *)p, (int64_t)span) < 0)
        fx_die ("planner_rem_span");
}

static int64_t fx_earliest (void *p, int64_t after, int64_t duration,
                            uint64_t n)
{
    return planner_avail_time_first ((planner_t *)p, after,
                                     (uint64_t)duration, n);
}

static uint64_t fx_free_during (void *p, int64_t start, int64_t duration)
{
    int64_t n = planner_avail_resources_during ((planner_t *)p, start,
                                                (uint64_t)duration);
    if (n < 0)
        fx_die ("planner_avail_resources_during");
    return (uint64_t)n;
}

static const struct bench_planner_ops fluxion_ops = {
    "fluxion",  fx_create,   fx_destroy,     fx_add,
    fx_remove,  fx_earliest, fx_free_during, NULL,
};

extern "C" const struct bench_planner_ops *bench_fluxion_planner (void)
{
    return &fluxion_ops;
}
