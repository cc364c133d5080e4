/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Randomized test of the matcher in time (core/match_time.c) against a
 * brute-force model: per-unit timelines over the graph.
 *
 * Small generated clusters (1-6 nodes of 1-4 cores) are driven through
 * random operations: allocate at now, allocate-orelse-reserve, free a
 * running job early, release a rank of a running job (RFC 27), run a job
 * late, cancel a reservation, advance the
 * time, and a pass that gives each due reservation its resources (free
 * it, allocate-orelse-reserve it again).  Jobs ask for k slots of one
 * core (nodes shared) or of one whole node, for 1-60 s or without end.
 *
 * The model keeps nothing of the matcher's but what the API says of each
 * job (its R's cores per rank, its start and expiration) and derives,
 * per unit (rank, core), the intervals during which each job holds it:
 * a running job from its start to its end or, when past it, a second
 * after now; a reservation from its start to its end.  After every
 * operation:
 * - no unit is held by two jobs at one time, and rp_matcher_check (which
 *   sweeps the matcher's own spans) passes;
 * - a reservation that moved kept its cores and only moved later, never
 *   before now;
 * and before each allocate the model predicts the outcome by brute
 * force: allocate at now succeeds iff the request fits the units free
 * for its whole span; allocate-orelse-reserve starts at the earliest of
 * now and the ends of the model's intervals at which it fits (ENODEV
 * beyond the cluster, EBUSY when no time fits).
 *
 * Seed: a fixed default (printed), RESPOL_TEST_SEED overrides.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/graph.h"
#include "respol/idset.h"
#include "respol/jobspec.h"
#include "respol/match.h"
#include "respol/rset.h"
#include "bench/rng.h"
#include "core/test/slots.h"
#include "t/tap/tap.h"

#define DEFAULT_SEED 20261126u
#define NCLUSTERS 30
#define NSTEPS 200
#define MAXNODES 6
#define MAXCORES 4
#define MAXJOBS 512
#define NOEND INT64_MAX

static uint64_t seed0;

struct mjob {
    uint64_t id;
    bool live;
    bool whole; /* slots of a node, else of a core */
    int k;
    int64_t duration; /* 0: none */
    bool held[MAXNODES][MAXCORES];
    int64_t start, end; /* as the matcher says; end NOEND: none */
    bool reserved;
};

struct sim {
    int nodes, cores;
    struct rp_matcher *m;
    struct mjob jobs[MAXJOBS];
    int njobs;
    int64_t now;
    uint64_t next_id;
    int failures;
};

static int bad (struct sim *s, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static int bad (struct sim *s, const char *fmt, ...)
{
    va_list ap;
    char buf[512];

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    diag ("seed %" PRIu64 ", cluster nodes=%d,cores=%d, now %" PRId64 ": %s",
          seed0, s->nodes, s->cores, s->now, buf);
    s->failures++;
    return -1;
}

/* --- the model ------------------------------------------------------- */

/* The interval during which j holds its units. */
static void interval (const struct sim *s, const struct mjob *j, int64_t *a,
                      int64_t *b)
{
    *a = j->start;
    *b = j->end;
    if (!j->reserved && *b <= s->now)
        *b = s->now + 1;
}

/* Is unit (r, c) free during [t, e) (e NOEND: for ever)? */
static bool unit_free (const struct sim *s, int r, int c, int64_t t, int64_t e)
{
    for (int i = 0; i < s->njobs; i++) {
        const struct mjob *j = &s->jobs[i];
        int64_t a, b;
        if (!j->live || !j->held[r][c])
            continue;
        interval (s, j, &a, &b);
        if (a < e && b > t)
            return false;
    }
    return true;
}

static bool fits (const struct sim *s, bool whole, int k, int64_t t, int64_t d)
{
    int64_t e = d > 0 ? t + d : NOEND;
    int n = 0;

    for (int r = 0; r < s->nodes; r++) {
        int f = 0;
        for (int c = 0; c < s->cores; c++)
            f += unit_free (s, r, c, t, e);
        n += whole ? f == s->cores : f;
    }
    return n >= k;
}

/* The earliest start the model allows: now or an interval's end; -1:
 * none. */
static int64_t earliest (const struct sim *s, bool whole, int k, int64_t d)
{
    int64_t best = -1;

    if (fits (s, whole, k, s->now, d))
        return s->now;
    for (int i = 0; i < s->njobs; i++) {
        int64_t a, b;
        if (!s->jobs[i].live)
            continue;
        interval (s, &s->jobs[i], &a, &b);
        if (b != NOEND && b > s->now && (best < 0 || b < best)
            && fits (s, whole, k, b, d))
            best = b;
    }
    return best;
}

/* --- reading the matcher --------------------------------------------- */

static int read_job (struct sim *s, struct mjob *j)
{
    const struct rp_rset *R = rp_matcher_job_rset (s->m, j->id);
    const struct rp_idset *ranks;
    double start = 0, end = 0;
    bool reserved = false;
    bool held[MAXNODES][MAXCORES] = { { false } };

    if (!R || !rp_matcher_job_time (s->m, j->id, &start, &end, &reserved))
        return bad (s, "job %" PRIu64 ": the matcher lost it", j->id);
    ranks = rp_rset_ranks (R);
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r)) {
        const struct rp_idset *cores = rp_rset_cores (R, r);
        for (unsigned int c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
             c = rp_idset_next (cores, c))
            if (r < MAXNODES && c < MAXCORES)
                held[r][c] = true;
    }
    if (j->start >= 0 && (int64_t)start < j->start)
        return bad (s, "job %" PRIu64 ": moved earlier, %g < %" PRId64, j->id,
                    start, j->start);
    if (j->start >= 0 && memcmp (held, j->held, sizeof (held)) != 0)
        return bad (s, "job %" PRIu64 ": its cores changed", j->id);
    if (reserved && (int64_t)start <= s->now - 1 && j->start < 0)
        return bad (s, "job %" PRIu64 ": reserved in the past", j->id);
    memcpy (j->held, held, sizeof (held));
    j->start = (int64_t)start;
    j->end = end > 0 ? (int64_t)end : NOEND;
    j->reserved = reserved;
    return 0;
}

/* The model's jobs are the matcher's (pushed, cancelled) and no unit is
 * held twice at one time. */
static int check_all (struct sim *s)
{
    rp_error_t e;

    for (int i = 0; i < s->njobs; i++) {
        struct mjob *j = &s->jobs[i];
        if (!j->live)
            continue;
        if (!rp_matcher_job_time (s->m, j->id, NULL, NULL, NULL)) {
            if (!j->reserved)
                return bad (s, "running job %" PRIu64 " vanished", j->id);
            j->live = false; /* a reservation no time could hold */
            continue;
        }
        if (read_job (s, j) < 0)
            return -1;
    }
    for (int i = 0; i < s->njobs; i++)
        for (int k = i + 1; k < s->njobs; k++) {
            const struct mjob *a = &s->jobs[i], *b = &s->jobs[k];
            int64_t a0, a1, b0, b1;
            if (!a->live || !b->live)
                continue;
            interval (s, a, &a0, &a1);
            interval (s, b, &b0, &b1);
            if (a0 >= b1 || b0 >= a1)
                continue;
            for (int r = 0; r < s->nodes; r++)
                for (int c = 0; c < s->cores; c++)
                    if (a->held[r][c] && b->held[r][c])
                        return bad (s,
                                    "core %d of rank %d held by jobs %" PRIu64
                                    " and %" PRIu64 " at once",
                                    c, r, a->id, b->id);
        }
    if (rp_matcher_check (s->m, &e) < 0)
        return bad (s, "rp_matcher_check: %s", e.text);
    return 0;
}

/* --- operations ------------------------------------------------------ */

/* Allocate (or else reserve) job j, as the model predicts. */
static int place (struct sim *s, struct mjob *j, bool reserve)
{
    int limit = j->whole ? s->nodes : s->nodes * s->cores;
    int64_t want = j->k > limit ? -2
                   : reserve    ? earliest (s, j->whole, j->k, j->duration)
                   : fits (s, j->whole, j->k, s->now, j->duration) ? s->now
                                                                   : -1;
    struct rp_jobspec *js =
        js_slots (j->whole ? "node" : "core", j->k, j->duration);
    const char *what = reserve ? "reserve" : "allocate";
    struct rp_rset *R;
    rp_error_t e;
    double at = (double)s->now;
    int f = rp_matcher_fits (s->m, js, (double)s->now, &e);

    if (f != (j->k <= limit && fits (s, j->whole, j->k, s->now, j->duration)))
        return bad (s, "fits %d %s for %" PRId64 " s: %d, the model: %s", j->k,
                    j->whole ? "nodes" : "cores", j->duration, f,
                    f ? "no" : "yes");
    errno = 0;
    if (reserve)
        R = rp_matcher_allocate_orelse_reserve (s->m, j->id, js, (double)s->now,
                                                &at, &e);
    else
        R = rp_matcher_allocate (s->m, j->id, js, (double)s->now, &e);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
    if (!R && (want >= 0 || errno != (want == -2 ? ENODEV : EBUSY)))
        return bad (s,
                    "%s %d %s for %" PRId64 " s: %s (errno %d), the "
                    "model says %" PRId64,
                    what, j->k, j->whole ? "nodes" : "cores", j->duration,
                    e.text, errno, want);
    if (R && (int64_t)at != want)
        return bad (s,
                    "%s %d %s for %" PRId64 " s: at %g, the model says "
                    "%" PRId64,
                    what, j->k, j->whole ? "nodes" : "cores", j->duration, at,
                    want);
    j->live = R != NULL;
    j->start = -1;
    return R ? read_job (s, j) : 0;
}

static int op_allocate (struct sim *s, bool reserve)
{
    struct mjob *j;

    if (s->njobs == MAXJOBS)
        return 0;
    j = &s->jobs[s->njobs++];
    *j = (struct mjob){ .id = s->next_id++, .whole = chance (40) };
    j->k = pick (1, (j->whole ? s->nodes : s->nodes * s->cores) + chance (5));
    if (chance (60))
        j->k = pick (1, j->whole ? 2 : 3);
    j->duration = chance (8) ? 0 : pick (1, 60);
    return place (s, j, reserve);
}

static struct mjob *pick_job (struct sim *s, bool reserved)
{
    int n = 0, w;

    for (int i = 0; i < s->njobs; i++)
        n += s->jobs[i].live && s->jobs[i].reserved == reserved;
    if (n == 0)
        return NULL;
    w = pick (0, n - 1);
    for (int i = 0; i < s->njobs; i++)
        if (s->jobs[i].live && s->jobs[i].reserved == reserved && w-- == 0)
            return &s->jobs[i];
    return NULL;
}

static int op_free (struct sim *s, bool reserved)
{
    struct mjob *j = pick_job (s, reserved);
    rp_error_t e;

    if (!j)
        return 0;
    if (rp_matcher_free (s->m, j->id, &e) < 0)
        return bad (s, "free %" PRIu64 ": %s", j->id, e.text);
    j->live = false;
    return 0;
}

/* RFC 27 partial release of a running job's lowest rank. */
static int op_release (struct sim *s)
{
    struct mjob *j = pick_job (s, false);
    struct rp_idset *ranks;
    rp_error_t e;
    int r = 0, n = 0;

    if (!j)
        return 0;
    for (int k = s->nodes - 1; k >= 0; k--)
        for (int c = 0; c < s->cores; c++)
            if (j->held[k][c]) {
                r = k;
                n++;
                break;
            }
    if (n < 2)
        return 0;
    if (!(ranks = rp_idset_create ()))
        BAIL_OUT ("out of memory");
    if (rp_idset_add (ranks, (unsigned int)r) < 0
        || rp_matcher_release (s->m, j->id, ranks, &e) < 0) {
        rp_idset_destroy (ranks);
        return bad (s, "release %" PRIu64 " rank %d: %s", j->id, r, e.text);
    }
    rp_idset_destroy (ranks);
    memset (j->held[r], 0, sizeof (j->held[r]));
    return 0;
}

static int op_late (struct sim *s)
{
    struct mjob *j = pick_job (s, false);
    rp_error_t e;
    int64_t end;

    if (!j || j->end == NOEND)
        return 0;
    end = (j->end > s->now ? j->end : s->now) + pick (1, 40);
    if (rp_matcher_run_late (s->m, j->id, (double)end, &e) < 0)
        return bad (s, "run_late %" PRIu64 " to %" PRId64 ": %s", j->id, end,
                    e.text);
    return 0;
}

static int op_time (struct sim *s)
{
    rp_error_t e;

    s->now += pick (0, 25);
    if (rp_matcher_set_time (s->m, (double)s->now, &e) < 0)
        return bad (s, "set_time %" PRId64 ": %s", s->now, e.text);
    return 0;
}

/* Each due reservation is freed and placed again (now, or later). */
static int op_pass (struct sim *s)
{
    for (int i = 0; i < s->njobs; i++) {
        struct mjob *j = &s->jobs[i];
        rp_error_t e;
        if (!j->live || !j->reserved || j->start > s->now)
            continue;
        if (rp_matcher_free (s->m, j->id, &e) < 0)
            return bad (s, "free due %" PRIu64 ": %s", j->id, e.text);
        j->live = false;
        if (place (s, j, true) < 0)
            return -1;
    }
    return 0;
}

static int step (struct sim *s)
{
    int r = pick (0, 99);

    if (r < 25)
        return op_allocate (s, true);
    if (r < 35)
        return op_allocate (s, false);
    if (r < 50)
        return op_free (s, false);
    if (r < 57)
        return op_free (s, true);
    if (r < 62)
        return op_late (s);
    if (r < 67)
        return op_release (s);
    if (r < 87)
        return op_time (s);
    return op_pass (s);
}

static void run_cluster (struct sim *s, int *ops)
{
    char spec[64];
    rp_error_t e;
    struct rp_graph *g;

    s->nodes = pick (1, MAXNODES);
    s->cores = pick (1, MAXCORES);
    s->njobs = 0;
    s->now = pick (0, 1000);
    s->next_id = 1;
    snprintf (spec, sizeof (spec), "nodes=%d,cores=%d", s->nodes, s->cores);
    if (!(g = rp_graph_generate (spec, &e))
        || !(s->m = rp_matcher_create (g, &e)))
        BAIL_OUT ("%s: %s", spec, e.text);
    for (int i = 0; i < NSTEPS && s->failures == 0; i++, (*ops)++)
        if (step (s) == 0)
            (void)check_all (s);
    rp_matcher_destroy (s->m);
}

int main (void)
{
    const char *env = getenv ("RESPOL_TEST_SEED");
    uint64_t seed = env ? strtoull (env, NULL, 10) : DEFAULT_SEED;
    static struct sim s;
    int ops = 0;

    plan (NO_PLAN);
    diag ("seed %" PRIu64 " (RESPOL_TEST_SEED overrides)", seed);
    rng_state = seed0 = seed ? seed : 1;
    for (int c = 0; c < NCLUSTERS && s.failures == 0; c++) {
        run_cluster (&s, &ops);
        ok (s.failures == 0,
            "cluster %d (nodes=%d,cores=%d): %d operations "
            "agree with the model",
            c, s.nodes, s.cores, NSTEPS);
    }
    diag ("%d operations", ops);
    done_testing ();
}
