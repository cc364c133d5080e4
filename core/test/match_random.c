/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Randomized invariants of the matcher (core/match.c, RFC 4 graph, RFC 14
 * jobspec, RFC 20 R, RFC 27 partial release).
 *
 * Many small generated clusters (rp_graph_generate), each driven through
 * random allocate / free / partial-release steps with random canonical
 * jobspecs (built as YAML text).  After every step the state is checked
 * against a model this file keeps on its own (the jobs' R as returned, the
 * memory each job holds per rank), never against the matcher's records:
 *
 * - rp_matcher_check passes; the matcher's jobs and their R are the model's;
 * - no core or GPU of a rank is in two jobs' R (rp_rset_append refuses);
 * - every core and GPU vertex is free exactly when no job's R holds it,
 *   every node's subtree aggregate of cores, GPUs and memory equals its
 *   total less what the model says its jobs hold;
 * - every R round-trips through rp_rset_encode / rp_rset_decode, carries
 *   starttime = now and expiration = now + duration;
 * - every R matches its request, and the outcome of every allocate is the
 *   one an independent capacity count predicts: success with the largest
 *   acceptable count that fits now, EBUSY when the count fits the empty
 *   cluster only, ENODEV when not even that (and rp_matcher_satisfiability
 *   agrees);
 * - a failed allocate, free or release changes nothing;
 * - nodes taken down or drained (and brought back) keep their jobs'
 *   holdings, count as not free, and turn ENODEV into EBUSY only.
 *
 * The shapes are the ones whose placement RFC 14 and respol/match.h fix:
 *   A  slot[S] > core[k] (+ gpu[g]) (+ memory[m GB])
 *   B  node[N] > slot[S] > core[k] (+ gpu[g]); the node shared, or
 *      "exclusive: true" (taken whole)
 *   C  slot[S] > node[1]: nodes taken whole (exclusive inside a slot)
 * with the outermost count in every RFC 14 form (integer, range, "N+",
 * stepped range, idset, dictionary); inner counts are integers.  A slot's
 * cores, GPUs and memory may come from any socket of its node (levels the
 * jobspec omits are walked through), so a node fits min (free cores / k,
 * free GPUs / g, free memory / m) slots.
 *
 * Seed: a fixed default (printed), RESPOL_TEST_SEED overrides.  A failing
 * step prints the seed, cluster, step and jobspec.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "respol/diag.h"
#include "respol/graph.h"
#include "respol/idset.h"
#include "respol/jobspec.h"
#include "respol/match.h"
#include "respol/rset.h"
#include "bench/rng.h"
#include "t/tap/tap.h"

#define DEFAULT_SEED 20261122u
#define NCLUSTERS 40
#define NSTEPS 120
#define MAXNODES 8
#define MAXJOBS 256

/* --- the model -------------------------------------------------------- */

enum shape { SHAPE_SLOT = 0, SHAPE_NODE = 1, SHAPE_WHOLE = 2 };

struct req {
    enum shape shape;
    bool node_excl; /* B: exclusive: true on the node */
    int k, g, m;    /* per slot: cores, GPUs, memory GB */
    int S;          /* B: slots per node */
    double duration;
    char *yaml;
    struct rp_jobspec *js;
    const struct rp_jobspec_resource *top; /* the outermost count */
};

struct job {
    uint64_t id;
    struct rp_rset *R;
    uint64_t mem[MAXNODES]; /* GB held per rank */
};

struct cluster {
    char spec[128];
    const char *prefix;
    int nodes, sockets, cores, gpus, mem; /* cores, gpus, mem: per node */
    struct rp_matcher *m;
    struct rp_graph *g;
    bool down[MAXNODES]; /* node not up (down or drained) */
    struct job jobs[MAXJOBS];
    int njobs;
    uint64_t next_id;
    int step;
    const char *what; /* the step, for failure messages */
    const char *yaml; /* the jobspec of the step, or NULL */
};

/* Counts over the whole run, so the test proves it exercised each path. */
static struct {
    int alloc_ok, ebusy, enodev, frees, releases, whole, ranged, downs;
} seen;

static unsigned int seed;

static bool failf (struct cluster *c, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Report a broken invariant with everything needed to replay it. */
static bool failf (struct cluster *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    diag ("seed %u (RESPOL_TEST_SEED=%u), cluster %s, step %d (%s): %s", seed,
          seed, c->spec, c->step, c->what, buf);
    if (c->yaml)
        diag ("jobspec:\n%s", c->yaml);
    return false;
}

/* --- per-rank free amounts, from the model alone ----------------------- */

struct avail {
    int cores[MAXNODES], gpus[MAXNODES], mem[MAXNODES];
    bool idle[MAXNODES];
};

static void model_avail (const struct cluster *c, bool pristine,
                         struct avail *a)
{
    for (int r = 0; r < c->nodes; r++) {
        a->cores[r] = c->cores;
        a->gpus[r] = c->gpus;
        a->mem[r] = c->mem;
        a->idle[r] = true;
    }
    for (int j = 0; j < c->njobs && !pristine; j++) {
        const struct rp_rset *R = c->jobs[j].R;
        for (int r = 0; r < c->nodes; r++) {
            const struct rp_idset *ids = rp_rset_cores (R, r);
            if (!ids)
                continue;
            a->cores[r] -= (int)rp_idset_count (ids);
            if ((ids = rp_rset_gpus (R, r)))
                a->gpus[r] -= (int)rp_idset_count (ids);
            a->mem[r] -= (int)c->jobs[j].mem[r];
            a->idle[r] = false;
        }
    }
    for (int r = 0; r < c->nodes && !pristine; r++) {
        if (c->down[r]) {
            a->cores[r] = a->gpus[r] = a->mem[r] = 0;
            a->idle[r] = false;
        }
    }
}

/* Slots of q that fit on rank r. */
static int slots_fit (const struct req *q, const struct avail *a, int r)
{
    int n = a->cores[r] / q->k;

    if (q->g > 0 && a->gpus[r] / q->g < n)
        n = a->gpus[r] / q->g;
    if (q->m > 0 && a->mem[r] / q->m < n)
        n = a->mem[r] / q->m;
    return n;
}

/* How many of q's outermost unit fit: slots (A) or nodes (B, C). */
static int capacity (const struct cluster *c, const struct req *q,
                     bool pristine)
{
    struct avail a;
    int n = 0;

    model_avail (c, pristine, &a);
    for (int r = 0; r < c->nodes; r++) {
        if (q->shape == SHAPE_SLOT)
            n += slots_fit (q, &a, r);
        else if (q->shape == SHAPE_WHOLE)
            n += a.idle[r];
        else if (q->node_excl)
            n += a.idle[r] && slots_fit (q, &a, r) >= q->S;
        else
            n += slots_fit (q, &a, r) >= q->S;
    }
    return n;
}

/* The largest acceptable value of the outermost count <= cap, or 0. */
static int largest_fit (const struct req *q, int cap)
{
    for (int v = cap; v >= 1; v--)
        if (rp_jobspec_resource_count_contains (q->top, (uint64_t)v))
            return v;
    return 0;
}

/* --- random jobspecs ---------------------------------------------------- */

/* An outermost count in a random RFC 14 form, its smallest value n. */
static void put_count (FILE *f, int n, int indent)
{
    int lo = n, hi = n + pick (0, 3);

    fprintf (f, "%*scount: ", indent, "");
    switch (pick (0, 6)) {
    case 0:
    case 1:
        fprintf (f, "%d\n", n);
        break;
    case 2:
        fprintf (f, "\"%d-%d\"\n", lo, hi);
        break;
    case 3:
        fprintf (f, "\"%d+\"\n", lo);
        break;
    case 4:
        fprintf (f, "\"%d-%d:2\"\n", lo, hi + 2);
        break;
    case 5:
        fprintf (f, "\"%d,%d\"\n", lo, hi + 1);
        break;
    default:
        fprintf (f, "{min: %d, max: %d, operator: \"+\", operand: 1}\n", lo,
                 hi);
        break;
    }
}

static void put_slot_body (FILE *f, const struct req *q, int in)
{
    fprintf (f, "%*swith:\n", in, "");
    fprintf (f, "%*s- type: core\n%*s  count: %d\n", in + 2, "", in + 2, "",
             q->k);
    if (q->g > 0)
        fprintf (f, "%*s- type: gpu\n%*s  count: %d\n", in + 2, "", in + 2, "",
                 q->g);
    if (q->m > 0)
        fprintf (f, "%*s- type: memory\n%*s  count: %d\n%*s  unit: GB\n",
                 in + 2, "", in + 2, "", q->m, in + 2, "");
}

static void put_resources (FILE *f, const struct cluster *c, struct req *q)
{
    int top = pick (1, c->nodes + (chance (20) ? 2 : 0));

    fprintf (f, "version: 1\nresources:\n");
    if (q->shape == SHAPE_SLOT) {
        fprintf (f, "  - type: slot\n    label: s\n");
        put_count (f, pick (1, c->nodes * 2), 4);
        put_slot_body (f, q, 4);
    } else if (q->shape == SHAPE_NODE) {
        fprintf (f, "  - type: node\n%s",
                 q->node_excl ? "    exclusive: true\n" : "");
        put_count (f, top, 4);
        fprintf (f,
                 "    with:\n      - type: slot\n        label: s\n"
                 "        count: %d\n",
                 q->S);
        put_slot_body (f, q, 8);
    } else {
        fprintf (f, "  - type: slot\n    label: s\n");
        put_count (f, top, 4);
        fprintf (f, "    with:\n      - type: node\n        count: 1\n");
    }
}

/* A random request for cluster c; sometimes beyond what c has. */
static bool gen_req (const struct cluster *c, struct req *q)
{
    struct rp_diags *diags = rp_diags_create ();
    size_t len = 0;
    FILE *f;

    memset (q, 0, sizeof (*q));
    q->shape = (enum shape)pick (0, 2);
    q->node_excl = q->shape == SHAPE_NODE && chance (30);
    q->k = chance (70) ? pick (1, (c->cores + 1) / 2)
                       : pick (1, c->cores + (chance (10) ? 2 : 0));
    q->g = c->gpus && chance (40) ? pick (1, c->gpus + (chance (10) ? 1 : 0))
                                  : (chance (3) ? 1 : 0);
    q->m = c->mem && q->shape == SHAPE_SLOT && chance (40)
               ? pick (1, c->mem / 2 + (chance (10) ? c->mem : 0))
               : 0;
    q->S = pick (1, 2);
    if (q->shape == SHAPE_WHOLE) {
        q->k = 1;
        q->g = 0;
        q->m = 0;
    }
    q->duration = chance (50) ? 0 : pick (1, 7200);
    if (!(f = open_memstream (&q->yaml, &len)))
        BAIL_OUT ("open_memstream: %s", strerror (errno));
    put_resources (f, c, q);
    fprintf (f, "tasks:\n  - command: [app]\n    slot: s\n"
                "    count: {per_slot: 1}\n");
    fprintf (f, "attributes:\n  system:\n");
    if (q->duration > 0)
        fprintf (f, "    duration: %.1f\n", q->duration);
    else
        fprintf (f, "    cwd: /tmp\n");
    fclose (f);
    q->js = rp_jobspec_load (q->yaml, len, "random.yaml", RP_JOBSPEC_CANONICAL,
                             diags);
    if (!q->js) {
        diag ("generated jobspec does not load: %s\n%s",
              diags && rp_diags_count (diags) ? rp_diags_text (diags, 0) : "?",
              q->yaml);
        rp_diags_destroy (diags);
        return false;
    }
    rp_diags_destroy (diags);
    q->top = rp_jobspec_resource_first (q->js);
    return true;
}

static void req_clear (struct req *q)
{
    rp_jobspec_destroy (q->js);
    free (q->yaml);
}

/* --- checking a state ----------------------------------------------------- */

static bool same_targets (const struct rp_rset *a, const struct rp_rset *b)
{
    const struct rp_idset *ra = rp_rset_ranks (a);

    if (!rp_idset_equal (ra, rp_rset_ranks (b)))
        return false;
    for (unsigned int r = rp_idset_first (ra); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ra, r)) {
        const struct rp_idset *ga = rp_rset_gpus (a, r);
        const struct rp_idset *gb = rp_rset_gpus (b, r);
        size_t na = ga ? rp_idset_count (ga) : 0;
        size_t nb = gb ? rp_idset_count (gb) : 0;
        if (!rp_idset_equal (rp_rset_cores (a, r), rp_rset_cores (b, r))
            || na != nb || (na && !rp_idset_equal (ga, gb))
            || strcmp (rp_rset_hostname (a, r), rp_rset_hostname (b, r)))
            return false;
    }
    return true;
}

static bool check_roundtrip (struct cluster *c, const struct rp_rset *R,
                             uint64_t id)
{
    char *s = rp_rset_encode (R, 0);
    rp_error_t e;
    struct rp_rset *back = s ? rp_rset_decode (s, &e) : NULL;
    bool good = back && rp_rset_equal (R, back);

    if (!good)
        failf (c, "job %" PRIu64 ": R %s does not round-trip: %s", id,
               s ? s : "(encode failed)", back ? "differs" : e.text);
    rp_rset_destroy (back);
    free (s);
    return good;
}

/* The matcher's jobs are the model's, with the same R. */
static bool check_jobs (struct cluster *c)
{
    uint64_t id;
    int n = 0;
    bool more;

    if (rp_matcher_njobs (c->m) != (size_t)c->njobs)
        return failf (c, "matcher has %zu jobs, model %d",
                      rp_matcher_njobs (c->m), c->njobs);
    for (more = rp_matcher_job_first (c->m, &id); more;
         more = rp_matcher_job_next (c->m, &id), n++) {
        const struct rp_rset *R = rp_matcher_job_rset (c->m, id);
        int j = 0;
        while (j < c->njobs && c->jobs[j].id != id)
            j++;
        if (j == c->njobs || !R)
            return failf (c, "matcher lists job %" PRIu64 " (%s)", id,
                          R ? "not in the model" : "without R");
        if (!same_targets (R, c->jobs[j].R))
            return failf (c, "job %" PRIu64 ": R differs from the model", id);
        if (!check_roundtrip (c, R, id))
            return false;
    }
    if (n != c->njobs)
        return failf (c, "job_first/next listed %d jobs, model has %d", n,
                      c->njobs);
    return true;
}

/* The union of the jobs' R; fails on a core or GPU in two of them. */
static struct rp_rset *jobs_union (struct cluster *c)
{
    struct rp_rset *u = rp_rset_create ();
    rp_error_t e;

    for (int j = 0; j < c->njobs && u; j++) {
        if (rp_rset_append (u, c->jobs[j].R, &e) < 0) {
            failf (c, "job %" PRIu64 " overlaps another job: %s", c->jobs[j].id,
                   e.text);
            rp_rset_destroy (u);
            return NULL;
        }
    }
    return u;
}

/* Vertex v (core or GPU) is free exactly when u does not hold it and its
 * node is up. */
static bool check_leaf (struct cluster *c, const struct rp_rset *u,
                        rp_vertex_t v, bool gpu)
{
    int64_t rank = rp_graph_vertex_rank (c->g, v);
    int64_t id = rp_graph_vertex_id (c->g, v);
    const struct rp_idset *held = gpu ? rp_rset_gpus (u, (unsigned)rank)
                                      : rp_rset_cores (u, (unsigned)rank);
    bool in_r = held && rp_idset_test (held, (unsigned)id);
    uint64_t free = rp_graph_vertex_free (c->g, v);

    if (free != (in_r || c->down[rank] ? 0 : 1))
        return failf (c,
                      "rank %" PRId64 " %s %" PRId64 ": free %" PRIu64
                      " but %s in the jobs' R, node %s",
                      rank, gpu ? "gpu" : "core", id, free,
                      in_r ? "held" : "not held",
                      c->down[rank] ? "down" : "up");
    return true;
}

/* The root's aggregates count the free units of the up nodes. */
static bool check_root_aggregates (struct cluster *c, const struct avail *a)
{
    static const char *types[] = { "core", "gpu", "memory" };
    rp_vertex_t root = rp_graph_root (c->g);

    for (int i = 0; i < 3; i++) {
        int t = rp_graph_type_index (c->g, types[i]);
        uint64_t want = 0;
        for (int r = 0; r < c->nodes; r++)
            want += (uint64_t)(i == 0   ? a->cores[r]
                               : i == 1 ? a->gpus[r]
                                        : a->mem[r]);
        if (t >= 0 && rp_graph_subtree_free (c->g, root, t) != want)
            return failf (c, "root: free %s %" PRIu64 ", model %" PRIu64,
                          types[i], rp_graph_subtree_free (c->g, root, t),
                          want);
    }
    return true;
}

/* Every up node's aggregates equal its totals less what the model holds,
 * and the root's their sum. */
static bool check_node_aggregates (struct cluster *c)
{
    static const char *types[] = { "core", "gpu", "memory" };
    struct avail a;

    model_avail (c, false, &a);
    for (int r = 0; r < c->nodes; r++) {
        rp_vertex_t nv = rp_graph_rank_vertex (c->g, r);
        int want[3] = { a.cores[r], a.gpus[r], a.mem[r] };
        int total[3] = { c->cores, c->gpus, c->mem };
        if (c->down[r])
            continue;
        for (int i = 0; i < 3; i++) {
            int t = rp_graph_type_index (c->g, types[i]);
            if (t < 0 && total[i] == 0)
                continue;
            if (t < 0
                || rp_graph_subtree_total (c->g, nv, t) != (uint64_t)total[i])
                return failf (c, "rank %d: total %s is not %d", r, types[i],
                              total[i]);
            if (rp_graph_subtree_free (c->g, nv, t) != (uint64_t)want[i])
                return failf (c, "rank %d: free %s %" PRIu64 ", model %d", r,
                              types[i], rp_graph_subtree_free (c->g, nv, t),
                              want[i]);
        }
    }
    return check_root_aggregates (c, &a);
}

static bool check_state (struct cluster *c)
{
    rp_error_t e;
    struct rp_rset *u;
    bool good = true;
    int tc = rp_graph_type_index (c->g, "core");
    int tg = rp_graph_type_index (c->g, "gpu");

    if (rp_matcher_check (c->m, &e) < 0)
        return failf (c, "rp_matcher_check: %s", e.text);
    if (!check_jobs (c) || !(u = jobs_union (c)))
        return false;
    for (rp_vertex_t v = 0; v < rp_graph_nvertices (c->g) && good; v++) {
        int t = rp_graph_vertex_type_index (c->g, v);
        if (t == tc || (tg >= 0 && t == tg))
            good = check_leaf (c, u, v, t == tg);
    }
    rp_rset_destroy (u);
    return good && check_node_aggregates (c);
}

/* --- snapshots: a failed operation changes nothing ---------------------- */

static char *snapshot (const struct cluster *c)
{
    json_t *o = rp_matcher_stat (c->m);
    json_t *v = json_array ();
    char *s;

    for (rp_vertex_t i = 0; i < rp_graph_nvertices (c->g); i++)
        json_array_append_new (
            v, json_pack ("[I,I,I]", (json_int_t)rp_graph_vertex_used (c->g, i),
                          (json_int_t)rp_graph_vertex_shared (c->g, i),
                          (json_int_t)rp_graph_vertex_free (c->g, i)));
    json_object_set_new (o, "vertex-state", v);
    s = json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT);
    json_decref (o);
    return s;
}

static bool unchanged (struct cluster *c, const char *before)
{
    char *after = snapshot (c);
    bool same = after && before && !strcmp (before, after);

    if (!same)
        failf (c, "a failed operation changed the state:\nbefore %s\nafter  %s",
               before, after);
    free (after);
    return same;
}

/* --- checking one R against its request -------------------------------- */

/* Slots q placed on rank r of R, or -1 when the rank is not a whole
 * number of slots. */
static int rank_slots (const struct req *q, const struct rp_rset *R,
                       unsigned int r)
{
    size_t nc = rp_idset_count (rp_rset_cores (R, r));
    size_t ng = rp_rset_gpus (R, r) ? rp_idset_count (rp_rset_gpus (R, r)) : 0;

    if (nc % (size_t)q->k || ng != nc / (size_t)q->k * (size_t)q->g)
        return -1;
    return (int)(nc / (size_t)q->k);
}

/* Whole node r: all its cores and GPUs. */
static bool whole_node (const struct cluster *c, const struct rp_rset *R,
                        unsigned int r)
{
    const struct rp_idset *gpus = rp_rset_gpus (R, r);

    return rp_idset_count (rp_rset_cores (R, r)) == (size_t)c->cores
           && (gpus ? rp_idset_count (gpus) : 0) == (size_t)c->gpus;
}

static bool check_rank (struct cluster *c, const struct req *q,
                        const struct rp_rset *R, unsigned int r, int *slots)
{
    char host[64];
    int s;

    snprintf (host, sizeof (host), "%s%u", c->prefix, r);
    if ((int)r >= c->nodes || strcmp (rp_rset_hostname (R, r), host))
        return failf (c, "R has rank %u host %s", r, rp_rset_hostname (R, r));
    if (q->shape == SHAPE_WHOLE || q->node_excl) {
        if (!whole_node (c, R, r))
            return failf (c, "rank %u is exclusive but not whole", r);
        return true;
    }
    s = rank_slots (q, R, r);
    if (s < 1 || (q->shape == SHAPE_NODE && s != q->S))
        return failf (c, "rank %u holds %zu cores, %zd GPUs: not %s", r,
                      rp_idset_count (rp_rset_cores (R, r)),
                      rp_rset_gpus (R, r)
                          ? (ssize_t)rp_idset_count (rp_rset_gpus (R, r))
                          : 0,
                      q->shape == SHAPE_NODE ? "S slots" : "whole slots");
    *slots += s;
    return true;
}

/* R is what q asks with outermost count want. */
static bool check_r (struct cluster *c, const struct req *q,
                     const struct rp_rset *R, int want, double now)
{
    const struct rp_idset *ranks = rp_rset_ranks (R);
    double exp = q->duration > 0 ? now + q->duration : 0;
    int slots = 0;
    int got;

    if (rp_rset_starttime (R) != now || rp_rset_expiration (R) != exp)
        return failf (c, "R times %.1f-%.1f, expected %.1f-%.1f",
                      rp_rset_starttime (R), rp_rset_expiration (R), now, exp);
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r))
        if (!check_rank (c, q, R, r, &slots))
            return false;
    got = q->shape == SHAPE_SLOT ? slots : (int)rp_idset_count (ranks);
    if (got != want)
        return failf (c, "R holds %d %s, expected %d", got,
                      q->shape == SHAPE_SLOT ? "slots" : "nodes", want);
    return true;
}

/* The memory q holds on each rank of R (model bookkeeping). */
static void record_mem (const struct cluster *c, const struct req *q,
                        const struct rp_rset *R, struct job *job)
{
    const struct rp_idset *ranks = rp_rset_ranks (R);

    memset (job->mem, 0, sizeof (job->mem));
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r)) {
        if (q->shape == SHAPE_WHOLE || q->node_excl)
            job->mem[r] = (uint64_t)c->mem;
        else if (q->m > 0)
            job->mem[r] = (uint64_t)(rank_slots (q, R, r) * q->m);
    }
}

/* --- steps ---------------------------------------------------------------- */

static bool check_satisfiability (struct cluster *c, const struct req *q,
                                  bool sat)
{
    rp_error_t e;
    int rc = rp_matcher_satisfiability (c->m, q->js, &e);

    if (sat && rc != 0)
        return failf (c, "satisfiability: %s (errno %d), expected satisfiable",
                      e.text, errno);
    if (!sat && (rc == 0 || errno != ENODEV))
        return failf (c, "satisfiability: rc %d errno %d, expected ENODEV", rc,
                      rc ? errno : 0);
    return true;
}

static bool alloc_failed (struct cluster *c, const struct req *q, int err,
                          int sat, int want, const char *before,
                          const rp_error_t *e)
{
    int expect = sat < 1 ? ENODEV : EBUSY;

    if (want > 0)
        return failf (c, "allocate failed (%s, errno %d), expected %d %s",
                      e->text, err, want,
                      q->shape == SHAPE_SLOT ? "slots" : "nodes");
    if (err != expect)
        return failf (c, "allocate errno %d (%s), expected %s", err, e->text,
                      expect == ENODEV ? "ENODEV" : "EBUSY");
    if (err == EBUSY)
        seen.ebusy++;
    else
        seen.enodev++;
    return unchanged (c, before);
}

static bool step_alloc (struct cluster *c)
{
    struct req q;
    rp_error_t e;
    struct rp_rset *R;
    double now = 1e6 + c->step;
    int sat, want, err;
    char *before;
    bool good;

    if (!gen_req (c, &q))
        return failf (c, "bad generated jobspec");
    c->yaml = q.yaml;
    sat = largest_fit (&q, capacity (c, &q, true)) > 0;
    want = largest_fit (&q, capacity (c, &q, false));
    if (!check_satisfiability (c, &q, sat)) {
        req_clear (&q);
        return false;
    }
    before = snapshot (c);
    R = rp_matcher_allocate (c->m, c->next_id, q.js, now, &e);
    err = errno;
    if (!R)
        good = alloc_failed (c, &q, err, sat, want, before, &e);
    else if (!(good = check_r (c, &q, R, want, now)))
        rp_rset_destroy (R);
    else {
        struct job *job = &c->jobs[c->njobs++];
        job->id = c->next_id++;
        job->R = R;
        record_mem (c, &q, R, job);
        seen.alloc_ok++;
        seen.whole += q.shape == SHAPE_WHOLE || q.node_excl;
        seen.ranged +=
            rp_jobspec_resource_count_form (q.top) != RP_JOBSPEC_COUNT_INTEGER;
    }
    free (before);
    req_clear (&q);
    c->yaml = NULL;
    return good;
}

static void drop_job (struct cluster *c, int j)
{
    rp_rset_destroy (c->jobs[j].R);
    c->jobs[j] = c->jobs[--c->njobs];
}

/* Free a random job, or an unknown one (ENOENT, nothing changes). */
static bool step_free (struct cluster *c)
{
    rp_error_t e;
    int j;

    if (c->njobs == 0 || chance (5)) {
        char *before = snapshot (c);
        bool good =
            rp_matcher_free (c->m, c->next_id + 7, &e) < 0 && errno == ENOENT;
        if (!good)
            failf (c, "free of an unknown job did not fail with ENOENT");
        good = good && unchanged (c, before);
        free (before);
        return good;
    }
    j = pick (0, c->njobs - 1);
    if (rp_matcher_free (c->m, c->jobs[j].id, &e) < 0)
        return failf (c, "free job %" PRIu64 ": %s", c->jobs[j].id, e.text);
    drop_job (c, j);
    seen.frees++;
    return true;
}

/* Release a rank job j does not hold: EINVAL, nothing changes. */
static bool release_foreign (struct cluster *c, int j)
{
    const struct rp_idset *held = rp_rset_ranks (c->jobs[j].R);
    struct rp_idset *ids = rp_idset_create ();
    rp_error_t e;
    char *before;
    bool good;
    int r = 0;

    while (r < c->nodes && rp_idset_test (held, (unsigned)r))
        r++;
    rp_idset_add (ids, (unsigned)(r < c->nodes ? r : c->nodes + 3));
    rp_idset_add (ids, rp_idset_first (held));
    before = snapshot (c);
    good = rp_matcher_release (c->m, c->jobs[j].id, ids, &e) < 0
           && errno == EINVAL;
    if (!good)
        failf (c, "release of a rank job %" PRIu64 " does not hold: not EINVAL",
               c->jobs[j].id);
    good = good && unchanged (c, before);
    free (before);
    rp_idset_destroy (ids);
    return good;
}

/* Release a random nonempty subset of job j's ranks. */
static bool release_some (struct cluster *c, int j)
{
    struct job *job = &c->jobs[j];
    struct rp_idset *ids = rp_idset_create ();
    struct rp_idset *keep = rp_idset_copy (rp_rset_ranks (job->R));
    rp_error_t e;
    unsigned int r;

    for (r = rp_idset_first (keep); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (keep, r))
        if (chance (50))
            rp_idset_add (ids, r);
    if (rp_idset_empty (ids))
        rp_idset_add (ids, rp_idset_first (keep));
    rp_idset_subtract (keep, ids);
    if (rp_matcher_release (c->m, job->id, ids, &e) < 0) {
        rp_idset_destroy (ids);
        rp_idset_destroy (keep);
        return failf (c, "release from job %" PRIu64 ": %s", job->id, e.text);
    }
    for (r = rp_idset_first (ids); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ids, r))
        job->mem[r] = 0;
    if (rp_idset_empty (keep))
        drop_job (c, j);
    else {
        struct rp_rset *rest = rp_rset_copy_ranks (job->R, keep);
        rp_rset_destroy (job->R);
        job->R = rest;
    }
    seen.releases++;
    rp_idset_destroy (ids);
    rp_idset_destroy (keep);
    return true;
}

static bool step_release (struct cluster *c)
{
    int j;

    if (c->njobs == 0)
        return true;
    j = pick (0, c->njobs - 1);
    if (chance (10))
        return release_foreign (c, j);
    return release_some (c, j);
}

/* Take a node down or drain it, or bring it back up.  Its jobs keep what
 * they hold; nothing on it is free until it is up. */
static bool step_state (struct cluster *c)
{
    int r = pick (0, c->nodes - 1);
    enum rp_vertex_state st = c->down[r]    ? RP_VERTEX_UP
                              : chance (50) ? RP_VERTEX_DOWN
                                            : RP_VERTEX_DRAINED;
    rp_error_t e;

    if (rp_graph_set_state (c->g, rp_graph_rank_vertex (c->g, r), st, &e) < 0)
        return failf (c, "set rank %d %s: %s", r, rp_graph_state_name (st),
                      e.text);
    c->down[r] = st != RP_VERTEX_UP;
    seen.downs += c->down[r];
    return true;
}

/* Allocating an existing job id: EEXIST, nothing changes. */
static bool step_duplicate (struct cluster *c)
{
    struct req q;
    rp_error_t e;
    char *before;
    bool good;

    if (c->njobs == 0)
        return true;
    if (!gen_req (c, &q))
        return failf (c, "bad generated jobspec");
    before = snapshot (c);
    good = !rp_matcher_allocate (c->m, c->jobs[0].id, q.js, 1.0, &e)
           && errno == EEXIST;
    if (!good)
        failf (c, "allocate of existing job %" PRIu64 " did not fail EEXIST",
               c->jobs[0].id);
    good = good && unchanged (c, before);
    free (before);
    req_clear (&q);
    return good;
}

static bool step (struct cluster *c)
{
    int op = pick (1, 100);

    if (op <= 55) {
        c->what = "allocate";
        return step_alloc (c);
    }
    if (op <= 75) {
        c->what = "free";
        return step_free (c);
    }
    if (op <= 93) {
        c->what = "release";
        return step_release (c);
    }
    if (op <= 97) {
        c->what = "set state";
        return step_state (c);
    }
    c->what = "allocate existing id";
    return step_duplicate (c);
}

/* --- clusters ------------------------------------------------------------- */

static bool cluster_setup (struct cluster *c)
{
    int racks = 0;
    rp_error_t e;
    int n;

    memset (c, 0, sizeof (*c));
    c->nodes = pick (1, MAXNODES);
    if (c->nodes % 2 == 0 && chance (50))
        racks = chance (50) || c->nodes % 4 ? 2 : 4;
    c->sockets = pick (1, 2);
    c->cores = c->sockets * pick (1, 4);
    c->gpus = chance (60) ? c->sockets * pick (1, 2) : 0;
    c->mem = chance (50) ? c->sockets * pick (2, 8) : 0;
    c->prefix = chance (50) ? "node" : "n";
    n = snprintf (c->spec, sizeof (c->spec),
                  "nodes=%d,sockets=%d,cores=%d,prefix=%s", c->nodes,
                  c->sockets, c->cores / c->sockets, c->prefix);
    if (racks)
        n += snprintf (c->spec + n, sizeof (c->spec) - n, ",racks=%d", racks);
    if (c->gpus)
        n += snprintf (c->spec + n, sizeof (c->spec) - n, ",gpus=%d", c->gpus);
    if (c->mem)
        snprintf (c->spec + n, sizeof (c->spec) - n, ",memory=%dGB", c->mem);
    if (!(c->g = rp_graph_generate (c->spec, &e)))
        return failf (c, "rp_graph_generate: %s", e.text);
    if (!(c->m = rp_matcher_create (c->g, &e)))
        return failf (c, "rp_matcher_create: %s", e.text);
    c->g = rp_matcher_graph (c->m);
    c->next_id = 1;
    c->what = "setup";
    return check_state (c);
}

/* Free every job; then everything must be free again. */
static bool cluster_drain (struct cluster *c)
{
    rp_error_t e;

    c->what = "drain";
    for (int r = 0; r < c->nodes; r++) {
        if (c->down[r]
            && rp_graph_set_state (c->g, rp_graph_rank_vertex (c->g, r),
                                   RP_VERTEX_UP, &e)
                   < 0)
            return failf (c, "set rank %d up: %s", r, e.text);
        c->down[r] = false;
    }
    while (c->njobs > 0) {
        if (rp_matcher_free (c->m, c->jobs[0].id, &e) < 0)
            return failf (c, "free job %" PRIu64 ": %s", c->jobs[0].id, e.text);
        drop_job (c, 0);
    }
    if (!check_state (c))
        return false;
    for (size_t t = 0; t < rp_graph_ntypes (c->g); t++) {
        rp_vertex_t root = rp_graph_root (c->g);
        if (rp_graph_subtree_free (c->g, root, (int)t)
            != rp_graph_subtree_total (c->g, root, (int)t))
            return failf (c, "after freeing every job, %s is not all free",
                          rp_graph_type_name (c->g, (int)t));
    }
    return true;
}

static void cluster_clear (struct cluster *c)
{
    while (c->njobs > 0)
        drop_job (c, 0);
    rp_matcher_destroy (c->m);
}

static bool run_cluster (struct cluster *c)
{
    bool good = cluster_setup (c);

    for (c->step = 1; good && c->step <= NSTEPS; c->step++)
        good = step (c) && check_state (c);
    if (good)
        good = cluster_drain (c);
    return good;
}

int main (void)
{
    const char *s = getenv ("RESPOL_TEST_SEED");
    int failed = 0;

    seed = s && *s ? (unsigned int)strtoul (s, NULL, 0) : DEFAULT_SEED;
    rng_state = (uint64_t)seed * UINT64_C (0x9E3779B97F4A7C15) + 1;
    diag ("seed %u (set RESPOL_TEST_SEED to replay another)", seed);
    for (int i = 0; i < NCLUSTERS; i++) {
        struct cluster *c = calloc (1, sizeof (*c));
        bool good;
        if (!c)
            BAIL_OUT ("out of memory");
        good = run_cluster (c);
        ok (good, "cluster %d (%s): %d random steps keep every invariant", i,
            c->spec, NSTEPS);
        failed += !good;
        cluster_clear (c);
        free (c);
    }
    diag ("allocated %d (%d whole nodes, %d ranged counts), EBUSY %d, "
          "ENODEV %d, freed %d, released %d, nodes taken down %d",
          seen.alloc_ok, seen.whole, seen.ranged, seen.ebusy, seen.enodev,
          seen.frees, seen.releases, seen.downs);
    ok (seen.alloc_ok > 100 && seen.whole > 10 && seen.ranged > 20,
        "the run allocated slots, whole nodes and ranged counts");
    ok (seen.ebusy > 20 && seen.enodev > 20,
        "the run saw EBUSY and ENODEV failures");
    ok (seen.frees > 50 && seen.releases > 50,
        "the run freed jobs and released parts of jobs");
    ok (seen.downs > 20, "the run took nodes down and drained them");
    return done_testing ();
}
