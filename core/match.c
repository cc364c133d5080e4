/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The matcher: jobspec requests (RFC 14, RFC 25, RFC 31) placed on a
 * resource graph (RFC 4), job records, R (RFC 20) and partial release
 * (RFC 27 "Free"); see api/respol/match.h and the RP_PLUGIN_MATCH section
 * of api/respol/plugin.h.
 *
 * Algorithm.  The requests are the jobspec's resource vertices, turned
 * once per match into a tree of struct req, each with the units of every
 * graph type one unit of it needs below (children at their minimum
 * counts, pools converted).  place() puts one request, with its count, at
 * a graph vertex `at`: it walks below `at` (gstate_child_fit with that
 * need vector, so full subtrees are skipped a block at a time), never
 * through vertices of the request's type, and each vertex of that type
 * (for a slot: each execution target, or `at` itself when `at` is within
 * one) is a candidate.  A candidate is tried with unit_place(): it must
 * be available (exclusive: its whole subtree idle; shared: not held
 * exclusively), pass the id filter and the constraint (checked at every
 * execution target the walk enters, and at every target below an
 * exclusive candidate above the targets), and its child requests must be
 * placed below it, recursively.  Every hold is applied to the state at
 * once and logged, so a candidate that does not fit is undone to its mark
 * and a failed match to the start.  A slot target is tried again after
 * each success (a target holds several slots).
 *
 * The count: the walk stops once stop_after x the largest acceptable
 * count have been found (first fit: stop_after 1, so a fixed count stops
 * at exactly that count and the cost follows the request, not the
 * cluster); then the largest acceptable value not above the number found
 * is kept and the extra units are undone.  With a policy that scores or
 * orders candidates, the first pass only finds them: everything is undone,
 * the candidates are sorted (rp_accum: descending score, ties in walk
 * order) and given to order_candidates, and taken again in that order.
 *
 * Exclusivity: a request is exclusive when the jobspec says so
 * (rp_jobspec_resource_exclusive) or when a request above it is: an
 * exclusive vertex is taken whole with everything below it, so its
 * children are placed only to check that they fit, then undone, and the
 * subtree is taken whole.  Every held vertex's ancestors are held shared,
 * once per job (a vertex already held by the match stops the climb), so
 * an exclusive request never takes a vertex another job holds anything
 * below.  Pool amounts (memory) are always taken as exclusive units of
 * the pool, from one or more pools below `at`.
 *
 * Before a match is committed, verify() recounts the unit records
 * (which candidate a request got, under which unit of its parent) and
 * the holds, independently of the selection code: types, containment,
 * counts acceptable, exclusivity as asked, pool amounts, one target per
 * slot.  gstate_take refuses overlaps and down vertices.
 *
 * A match that fails on the live state runs again on the pristine state
 * (graph_pristine): failing there too makes it ENODEV, else EBUSY; the
 * reason is written for the top-level request that failed.
 *
 * Decisions a reader would otherwise rediscover:
 * - A top-level request for the type of the graph's root has the root as
 *   its only candidate (RFC 14 "type: cluster" on a one-cluster graph);
 *   any other request is looked for below `at`, never at it.
 * - A resource whose count is 0 (a V1 gpu count may be) is no request.
 * - A vertex this match already holds (even as an ancestor) is not a
 *   candidate again, except a pool, which may give to several units.
 * - A slot inside a slot is placed as any slot, under its parent's unit:
 *   an outer slot that holds a node spans targets (each of its units is
 *   placed at `at`), the inner one lies within its node's target, and
 *   verify checks each unit against the nearest slot above it that lies
 *   within one target.
 * - An exclusive candidate above the targets (a rack) takes every target
 *   below it, so it fits only if each satisfies the constraint (RFC 31:
 *   constraints select the targets a job may be given); the check walks
 *   the candidate's subtree down to the targets, before its availability,
 *   as at a target.  A shared one is only held as the ancestor of what is
 *   placed below it: only those targets are checked.
 * - Pool units convert with units_bytes ("GB" = "GiB" = 2^30),
 *   rounding the request up to whole pool units; a unit on one side only
 *   (memory: none means GB on both sides), or one that does not convert,
 *   makes the request unsatisfiable (ENODEV).  A type's pools are taken to
 *   share the unit of the first pool of that type.
 * - Partial release drops the holds on the released ranks, and a hold
 *   above the targets (a rack) once nothing the job holds is below it; an
 *   exclusive rack keeps its other nodes out of reach until then.
 * - Reasons name the top-level request, with counts of the minimum ("at
 *   least N" for a range) and what was found: "the resource set has N" /
 *   "N are free" for vertices, "N fit" / "N fit now" for slots.  Types
 *   without a word of their own get a generic English plural ("2
 *   clusters", "3 switches", "2 batteries").
 *
 * Per match, memory grows with the request and the candidates found,
 * never with the graph: the only per-vertex arrays (marks of what this
 * match holds, hold lookups for verify, rows of rp_match_held) are
 * allocated once with the matcher and reset by an epoch counter.  The undo and
 * unit logs and the candidate accumulators are kept by the matcher between
 * matches (reset, not freed): freeing them every match made the allocator
 * consolidate its free chunks on each one.
 *
 * Scoring policies: their first pass only finds the candidates and is
 * undone, so a candidate whose fit the aggregates decide (below it only
 * fixed counts of slots and leaf types, exclusive or pools, no id; no
 * constraint left to check below it; no prune) is counted from its
 * subtree's free units instead of being placed and undone (agg_fit).
 * Later candidates are disjoint from it and the walk scores a vertex
 * before it enters it, so no score or fit changes.  A slot target is
 * found at most as many times as the slot's largest count (no more of
 * its finds could be taken); it is decided from the aggregates too when
 * that count is 1, and otherwise placed, since its second find is scored
 * after its first was taken.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/constraint.h"
#include "respol/match.h"

#include "core/context_private.h"
#include "core/graph_private.h"
#include "core/plugin_private.h"

#define NO_UNIT SIZE_MAX

enum hold_kind {
    HOLD_UNIT = 0,     /* the vertex a request unit got */
    HOLD_FILL = 1,     /* below an exclusive unit, taken whole */
    HOLD_POOL = 2,     /* part of a pool amount */
    HOLD_ANCESTOR = 3, /* shared hold of an ancestor */
};

struct hold {
    rp_vertex_t v;
    uint8_t kind;
    bool exclusive;
    bool marked; /* this hold set the match mark of v (log only) */
    uint64_t amount;
    size_t unit; /* index in the unit log (log only) */
};

struct job {
    uint64_t id;
    struct hold *holds;
    size_t nholds;
    struct rp_rset *R;    /* without the scheduling key */
    struct rp_rset *Rjgf; /* with it: built when asked, until the job changes */
    double starttime;
    double expiration;
};

struct rp_matcher {
    struct rp_graph *g;
    const struct rp_plugin *policy;
    const struct rp_context *ctx;   /* borrowed: rp_matcher_set_context */
    const struct rp_instance *inst; /* borrowed: rp_matcher_set_instance */
    bool explain;                   /* rp_matcher_set_explain */
    json_t *explanation;            /* the last match's, or NULL */
    size_t nvertices;
    size_t ntypes;
    bool *type_pool;        /* per type: its vertices are pools */
    bool *type_target;      /* per type: some vertex is a target */
    bool *type_inner;       /* per type: some vertex has children */
    const char **type_unit; /* per type: the unit of its pools, or "" */
    uint32_t *mark;         /* per vertex: epoch of the match holding it */
    uint32_t *where;        /* per vertex: hold index (verify, check) */
    uint32_t *hepoch;       /* per vertex: epoch of its held row */
    uint32_t *hrow;         /* per vertex: its row in hrows */
    uint32_t epoch;
    struct job **jobs; /* ascending ids */
    size_t njobs;
    size_t jobcap;
    /* Scratch kept between matches (reset, not freed). */
    struct hold *log;
    size_t logcap;
    struct unit *units;
    size_t unitcap;
    struct rp_accum **accs; /* spare accumulators */
    size_t naccs;
    size_t acccap;
    rp_vertex_t *perm; /* order_candidates: before and after, 2 x permcap */
    size_t permcap;
    uint64_t *hrows; /* rp_match_held: rows of ntypes counts */
    size_t nhrows;
    size_t hrowcap;
    /* Acquisition (RFC 28): properties that change, removed targets. */
    rp_matcher_property_f propfn;
    void *proparg;
    rp_matcher_value_f valfn;
    void *valarg;
    struct rp_idset *removed;
};

/* One request of the jobspec. */
#define EXPLAIN_TOP 5

/* What became of one request's candidates in a run (rp_matcher_explain). */
struct req_stats {
    uint64_t considered; /* candidates looked at */
    uint64_t taken;      /* units placed */
    uint64_t busy;       /* held by other jobs, down or drained */
    uint64_t constraint; /* refused by the job's constraints */
    uint64_t id;         /* not among the ids asked */
    uint64_t nofit;      /* what it needs below did not fit */
    uint64_t pruned;     /* subtrees the policy skipped */
    /* The highest scores of the candidates found (explain only). */
    struct {
        rp_vertex_t v;
        int64_t score;
    } top[EXPLAIN_TOP];
    size_t ntop;
};

struct req {
    const struct rp_jobspec_resource *r;
    struct req *parent;
    struct req *child; /* first child */
    struct req *next;  /* next sibling */
    size_t index;      /* among its siblings */
    size_t nchildren;
    const char *type;
    int t; /* graph type index; -1 for a slot or an unknown type */
    bool slot;
    bool at_level; /* a slot holding execution targets: placed at `at` */
    bool pool;
    bool exclusive;
    bool inherited; /* a request above is exclusive: so is this one */
    bool agg_ok;    /* what is below a unit fits iff the aggregates do */
    bool agg_slot;  /* ... and a slot is below a unit */
    uint64_t min;
    uint64_t max;     /* UINT64_MAX: unbounded */
    const char *unit; /* pool request unit ("" none) */
    uint64_t rbytes;  /* pool conversion: request unit, pool unit bytes; */
    uint64_t pbytes;  /* both 0: 1:1 */
    struct rp_idset *ids;
    uint64_t *need; /* ntypes: below one unit (pool: the whole amount) */
    uint64_t *walk; /* the need a subtree must show to be walked into */
    struct rp_accum *acc;
    uint64_t limit;     /* stop the search at this many found */
    uint64_t avail;     /* pools: free units found */
    struct mark *marks; /* after each unit found */
    size_t nmarks;
    size_t markcap;
    struct req_stats st; /* this run's, for the explanation */
};

struct mark {
    size_t nlog;
    size_t nunits;
};

struct unit {
    struct req *req;
    size_t parent; /* unit index, NO_UNIT at the top */
    rp_vertex_t v;
    uint64_t value; /* pools: the amount in request units */
};

/* One match in progress (the policy's struct rp_match). */
struct rp_match {
    struct rp_matcher *m;
    const struct rp_graph *g;
    struct rp_gstate *s;
    const struct rp_jobspec *js;
    bool sat;
    bool track; /* keep the held rows (a policy may ask rp_match_held) */
    struct rp_plugin *p;
    struct rp_match_ops ops; /* zeroes for the built-in */
    struct rp_constraint *constraint;
    struct req *reqs; /* the top-level list */
    struct req *all;  /* all requests, one array */
    size_t nreqs;
    uint64_t *needbuf;
    /* What the policy sees. */
    struct req *cur;
    uint64_t found;
    /* Logs. */
    struct hold *log;
    size_t nlog;
    size_t logcap;
    struct unit *units;
    size_t nunits;
    size_t unitcap;
    /* What the policy pruned this run, per type (for reasons). */
    uint64_t *pruned;
    /* Failure. */
    size_t filtered; /* targets the constraint refused */
    struct req *failed;
    uint64_t failed_found;
    bool failed_filtered;
    rp_error_t *error;
};

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

/* --- the matcher ---------------------------------------------------------- */

static bool is_target (const struct rp_graph *g, rp_vertex_t v)
{
    return rp_graph_target (g, v) == v;
}

static const char *unit_or_default (const char *type, const char *unit)
{
    if (unit && *unit)
        return unit;
    return strcmp (type, "memory") == 0 ? "GB" : "";
}

static int types_init (struct rp_matcher *m)
{
    m->ntypes = rp_graph_ntypes (m->g);
    m->type_pool = calloc (m->ntypes + 1, sizeof (*m->type_pool));
    m->type_unit = calloc (m->ntypes + 1, sizeof (*m->type_unit));
    m->type_target = calloc (m->ntypes + 1, sizeof (*m->type_target));
    m->type_inner = calloc (m->ntypes + 1, sizeof (*m->type_inner));
    if (!m->type_pool || !m->type_unit || !m->type_target || !m->type_inner)
        return -1;
    for (size_t t = 0; t < m->ntypes; t++)
        m->type_unit[t] = "";
    for (rp_vertex_t v = 0; v < m->nvertices; v++) {
        int t = rp_graph_vertex_type_index (m->g, v);
        const char *unit = rp_graph_vertex_unit (m->g, v);
        if (t < 0)
            continue;
        if (rp_graph_vertex_size (m->g, v) > 1 || (unit && *unit))
            m->type_pool[t] = true;
        if (unit && *unit && !*m->type_unit[t])
            m->type_unit[t] = unit;
        if (is_target (m->g, v))
            m->type_target[t] = true;
        if (rp_graph_child_first (m->g, v) != RP_VERTEX_NONE)
            m->type_inner[t] = true;
    }
    for (size_t t = 0; t < m->ntypes; t++)
        if (m->type_pool[t])
            m->type_unit[t] = unit_or_default (
                rp_graph_type_name (m->g, (int)t), m->type_unit[t]);
    return 0;
}

struct rp_matcher *rp_matcher_create (struct rp_graph *g, rp_error_t *error)
{
    struct rp_matcher *m;

    if (!g || !rp_graph_is_finalized (g)) {
        rp_graph_destroy (g);
        rp_error_set (error, EINVAL, "matcher: the graph is not finalized");
        return NULL;
    }
    if (!(m = calloc (1, sizeof (*m))))
        goto nomem;
    m->g = g;
    m->nvertices = rp_graph_nvertices (g);
    m->mark = calloc (m->nvertices + 1, sizeof (*m->mark));
    m->where = calloc (m->nvertices + 1, sizeof (*m->where));
    m->hepoch = calloc (m->nvertices + 1, sizeof (*m->hepoch));
    m->hrow = calloc (m->nvertices + 1, sizeof (*m->hrow));
    if (!m->mark || !m->where || !m->hepoch || !m->hrow || types_init (m) < 0
        || !graph_live (g))
        goto nomem;
    return m;
nomem:
    rp_matcher_destroy (m);
    if (!m)
        rp_graph_destroy (g);
    rp_error_set (error, ENOMEM, "matcher: out of memory");
    return NULL;
}

static void job_destroy (struct job *j)
{
    if (j) {
        free (j->holds);
        rp_rset_destroy (j->R);
        rp_rset_destroy (j->Rjgf);
        free (j);
    }
}

void rp_matcher_destroy (struct rp_matcher *m)
{
    int saved = errno;

    if (m) {
        for (size_t i = 0; i < m->njobs; i++)
            job_destroy (m->jobs[i]);
        free (m->jobs);
        free (m->log);
        free (m->units);
        for (size_t i = 0; i < m->naccs; i++)
            rp_accum_destroy (m->accs[i]);
        free (m->accs);
        free (m->perm);
        free (m->mark);
        free (m->where);
        free (m->hepoch);
        free (m->hrow);
        free (m->hrows);
        free (m->type_pool);
        free (m->type_unit);
        free (m->type_target);
        free (m->type_inner);
        json_decref (m->explanation);
        rp_idset_destroy (m->removed);
        rp_graph_destroy (m->g);
        free (m);
    }
    errno = saved;
}

struct rp_graph *rp_matcher_graph (struct rp_matcher *m)
{
    return m ? m->g : NULL;
}

int rp_matcher_set_policy (struct rp_matcher *m, const struct rp_plugin *p,
                           rp_error_t *error)
{
    if (!m)
        return rp_error_set (error, EINVAL, "matcher: no matcher");
    if (p && p->kind != RP_PLUGIN_MATCH)
        return rp_error_set (error, EINVAL,
                             "matcher: plugin '%s' is not a match policy",
                             p->instance ? p->instance : "?");
    m->policy = p;
    return 0;
}

const char *rp_matcher_policy_name (const struct rp_matcher *m)
{
    if (m && m->policy && m->policy->instance)
        return m->policy->instance;
    return "first";
}

/* A new epoch for the per-vertex marks; they are cleared when it wraps. */
static uint32_t new_epoch (struct rp_matcher *m)
{
    if (++m->epoch == 0) {
        memset (m->mark, 0, m->nvertices * sizeof (*m->mark));
        memset (m->hepoch, 0, m->nvertices * sizeof (*m->hepoch));
        m->epoch = 1;
    }
    return m->epoch;
}

/* An empty accumulator: a spare one, or a new one (NULL: no memory). */
static struct rp_accum *acc_get (struct rp_matcher *m)
{
    if (m->naccs > 0)
        return m->accs[--m->naccs];
    return rp_accum_create (0);
}

/* Keep a for the next acc_get (destroyed when there is no room). */
static void acc_put (struct rp_matcher *m, struct rp_accum *a)
{
    if (!a)
        return;
    rp_accum_clear (a);
    if (m->naccs == m->acccap) {
        size_t cap = m->acccap ? m->acccap * 2 : 16;
        struct rp_accum **accs = realloc (m->accs, cap * sizeof (*accs));
        if (!accs) {
            rp_accum_destroy (a);
            return;
        }
        m->accs = accs;
        m->acccap = cap;
    }
    m->accs[m->naccs++] = a;
}

/* --- jobs ----------------------------------------------------------------- */

/* Index of the first job with id >= jobid.  New ids usually come after
 * every other: that case costs no search. */
static size_t job_search (const struct rp_matcher *m, uint64_t jobid)
{
    size_t lo = 0, hi = m->njobs;

    if (hi == 0 || m->jobs[hi - 1]->id < jobid)
        return hi;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->jobs[mid]->id < jobid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static struct job *job_find (const struct rp_matcher *m, uint64_t jobid)
{
    size_t i = job_search (m, jobid);

    return i < m->njobs && m->jobs[i]->id == jobid ? m->jobs[i] : NULL;
}

static int job_insert (struct rp_matcher *m, struct job *j)
{
    size_t i = job_search (m, j->id);

    if (m->njobs == m->jobcap) {
        size_t cap = m->jobcap ? m->jobcap * 2 : 16;
        struct job **jobs = realloc (m->jobs, cap * sizeof (*jobs));
        if (!jobs)
            return -1;
        m->jobs = jobs;
        m->jobcap = cap;
    }
    memmove (&m->jobs[i + 1], &m->jobs[i], (m->njobs - i) * sizeof (*m->jobs));
    m->jobs[i] = j;
    m->njobs++;
    return 0;
}

static void job_remove (struct rp_matcher *m, uint64_t jobid)
{
    size_t i = job_search (m, jobid);

    if (i < m->njobs && m->jobs[i]->id == jobid) {
        job_destroy (m->jobs[i]);
        memmove (&m->jobs[i], &m->jobs[i + 1],
                 (m->njobs - i - 1) * sizeof (*m->jobs));
        m->njobs--;
    }
}

static struct rp_rset *rset_with_scheduling (const struct rp_graph *g,
                                             const struct job *j);

const struct rp_rset *rp_matcher_job_rset (const struct rp_matcher *m,
                                           uint64_t jobid)
{
    struct job *j = m ? job_find (m, jobid) : NULL;

    if (!j) {
        errno = ENOENT;
        return NULL;
    }
    if (!j->Rjgf)
        j->Rjgf = rset_with_scheduling (m->g, j);
    return j->Rjgf;
}

size_t rp_matcher_njobs (const struct rp_matcher *m)
{
    return m ? m->njobs : 0;
}

bool rp_matcher_job_first (const struct rp_matcher *m, uint64_t *jobid)
{
    if (!m || m->njobs == 0)
        return false;
    if (jobid)
        *jobid = m->jobs[0]->id;
    return true;
}

bool rp_matcher_job_next (const struct rp_matcher *m, uint64_t *jobid)
{
    size_t i;

    if (!m || !jobid || *jobid == UINT64_MAX)
        return false;
    i = job_search (m, *jobid + 1);
    if (i >= m->njobs)
        return false;
    *jobid = m->jobs[i]->id;
    return true;
}

/* --- requests ------------------------------------------------------------- */

/* Pool amounts: v request units in pool units, rounded up / a pool amount
 * in request units, rounded down. */
static uint64_t to_pool (const struct req *q, uint64_t v)
{
    unsigned __int128 x;

    if (q->rbytes == 0 || q->pbytes == 0)
        return v;
    x = ((unsigned __int128)v * q->rbytes + q->pbytes - 1) / q->pbytes;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

static uint64_t to_request (const struct req *q, uint64_t a)
{
    unsigned __int128 x;

    if (q->rbytes == 0 || q->pbytes == 0)
        return a;
    x = (unsigned __int128)a * q->pbytes / q->rbytes;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

/* The largest acceptable count not above limit. */
static bool count_largest (const struct req *q, uint64_t limit, uint64_t *v)
{
    const struct rp_idset *ids = rp_jobspec_resource_count_idset (q->r);

    if (!ids)
        return rp_range_largest (rp_jobspec_resource_count (q->r), limit, v);
    for (size_t i = rp_idset_range_count (ids); i > 0; i--) {
        unsigned int lo, hi;
        if (rp_idset_range (ids, i - 1, &lo, &hi) && lo <= limit) {
            *v = hi < limit ? hi : limit;
            return true;
        }
    }
    return false;
}

/* A count of 0 (a V1 gpu count may be 0) asks for nothing: no request. */
static bool asks_nothing (const struct rp_jobspec_resource *r)
{
    return rp_jobspec_resource_count (r)->max == 0;
}

static size_t count_requests (const struct rp_jobspec_resource *r)
{
    size_t n = 0;

    for (; r; r = rp_jobspec_resource_next (r))
        if (!asks_nothing (r))
            n += 1 + count_requests (rp_jobspec_resource_with_first (r));
    return n;
}

static bool holds_target (const struct rp_matcher *m, const struct req *q)
{
    for (const struct req *c = q->child; c; c = c->next)
        if ((c->t >= 0 && m->type_target[c->t]) || holds_target (m, c))
            return true;
    return false;
}

static int req_pool_init (struct rp_match *x, struct req *q)
{
    const char *ru, *pu;

    ru = unit_or_default (q->type, rp_jobspec_resource_unit (q->r));
    pu = x->m->type_unit[q->t];
    q->unit = ru;
    if (strcmp (ru, pu) == 0)
        return 0;
    q->rbytes = *ru ? units_bytes (ru) : 0;
    q->pbytes = *pu ? units_bytes (pu) : 0;
    if (q->rbytes && q->pbytes)
        return 0;
    return rp_error_set (x->error, ENODEV,
                         "needs %s in unit '%s', which does not convert to "
                         "the resource set's '%s'",
                         q->type, *ru ? ru : "(none)", *pu ? pu : "(none)");
}

static int req_count_init (struct req *q)
{
    const struct rp_range *rg = rp_jobspec_resource_count (q->r);
    const struct rp_idset *ids = rp_jobspec_resource_count_idset (q->r);

    if (!rg)
        return -1;
    q->min = rg->min;
    q->max = rg->max >= RP_RANGE_UNBOUNDED ? UINT64_MAX : rg->max;
    if (ids && !rp_idset_empty (ids)) {
        q->min = rp_idset_min (ids);
        q->max = rp_idset_max (ids);
    }
    return q->min >= 1 ? 0 : -1;
}

static int req_id_init (struct rp_match *x, struct req *q)
{
    const char *id = rp_jobspec_resource_id (q->r);
    rp_error_t e;

    if (!id)
        return 0;
    if (!(q->ids = rp_idset_decode (id, &e)))
        return rp_error_set (x->error, errno == ENOMEM ? ENOMEM : EINVAL,
                             "%s: id: %s", q->type, e.text);
    return 0;
}

/* Add what one unit of child c needs to need (its parent's unit). */
static void need_add (size_t ntypes, uint64_t *need, const struct req *c)
{
    uint64_t k = c->pool ? 1 : c->min;

    for (size_t t = 0; t < ntypes; t++)
        need[t] = sat_add (need[t], sat_mul (k, c->need[t]));
}

static int req_build (struct rp_match *x, const struct rp_jobspec_resource *r,
                      struct req *parent, struct req **list, size_t *next);

/* Whether one unit of q fits can be told from the aggregates of its
 * vertex: below it only fixed counts of slots and of leaf types (a leaf
 * vertex is free iff idle: exclusive or pool requests only), no id. */
static void agg_init (const struct rp_matcher *m, struct req *q)
{
    q->agg_ok = true;
    for (const struct req *c = q->child; c; c = c->next) {
        bool leaf =
            c->t >= 0 && !m->type_inner[c->t] && (c->pool || c->exclusive);
        if (!c->agg_ok || c->min != c->max || c->ids || !(c->slot || leaf))
            q->agg_ok = false;
        if (c->slot || c->agg_slot)
            q->agg_slot = true;
    }
}

static int req_init (struct rp_match *x, struct req *q)
{
    q->type = rp_jobspec_resource_type (q->r);
    q->slot = strcmp (q->type, "slot") == 0;
    q->t = q->slot ? -1 : rp_graph_type_index (x->g, q->type);
    q->pool = q->t >= 0 && x->m->type_pool[q->t];
    if (q->parent)
        q->inherited =
            q->parent->slot ? q->parent->inherited : q->parent->exclusive;
    q->exclusive = rp_jobspec_resource_exclusive (q->r) || q->inherited;
    q->unit = "";
    if (req_count_init (q) < 0)
        return rp_error_set (x->error, EINVAL, "%s: bad count", q->type);
    if (req_id_init (x, q) < 0)
        return -1;
    if (!q->slot && q->t < 0)
        return rp_error_set (x->error, ENODEV, "no resource of type '%s'",
                             q->type);
    if (q->pool && rp_jobspec_resource_with_first (q->r))
        return rp_error_set (x->error, EINVAL,
                             "%s: a pool cannot hold other resources", q->type);
    if (q->slot && !rp_jobspec_resource_with_first (q->r))
        return rp_error_set (x->error, EINVAL, "slot: holds nothing");
    if (q->pool && req_pool_init (x, q) < 0)
        return -1;
    return 0;
}

/* Fill *q for r, then its children; compute the need vector. */
static int req_fill (struct rp_match *x, struct req *q,
                     const struct rp_jobspec_resource *r, struct req *parent,
                     size_t *next)
{
    size_t nt = x->m->ntypes;

    q->r = r;
    q->parent = parent;
    if (req_init (x, q) < 0)
        return -1;
    if (req_build (x, rp_jobspec_resource_with_first (r), q, &q->child, next)
        < 0)
        return -1;
    if (q->pool) {
        q->need[q->t] = to_pool (q, q->min);
        q->walk[q->t] = 1;
    } else {
        q->walk = q->need;
        if (q->exclusive && !q->slot)
            q->need[q->t] = 1;
    }
    for (struct req *c = q->child; c; c = c->next)
        need_add (nt, q->need, c);
    agg_init (x->m, q);
    q->at_level = q->slot && holds_target (x->m, q);
    if (!(q->acc = acc_get (x->m)))
        return rp_error_set (x->error, ENOMEM, "out of memory");
    return 0;
}

static int req_build (struct rp_match *x, const struct rp_jobspec_resource *r,
                      struct req *parent, struct req **list, size_t *next)
{
    struct req **tail = list;
    size_t index = 0;

    for (; r; r = rp_jobspec_resource_next (r)) {
        struct req *q;
        if (asks_nothing (r))
            continue;
        q = &x->all[(*next)++];
        q->index = index++;
        *tail = q;
        tail = &q->next;
        if (req_fill (x, q, r, parent, next) < 0)
            return -1;
        if (parent)
            parent->nchildren++;
    }
    return 0;
}

static void reqs_destroy (struct rp_match *x)
{
    for (size_t i = 0; x->all && i < x->nreqs; i++) {
        rp_idset_destroy (x->all[i].ids);
        acc_put (x->m, x->all[i].acc);
        free (x->all[i].marks);
    }
    free (x->all);
    free (x->needbuf);
    x->all = NULL;
    x->needbuf = NULL;
}

static int reqs_create (struct rp_match *x)
{
    const struct rp_jobspec_resource *top = rp_jobspec_resource_first (x->js);
    size_t nt = x->m->ntypes ? x->m->ntypes : 1;
    size_t next = 0;

    x->nreqs = count_requests (top);
    if (x->nreqs == 0)
        return rp_error_set (x->error, EINVAL, "the jobspec asks nothing");
    x->all = calloc (x->nreqs, sizeof (*x->all));
    x->needbuf = calloc (2 * x->nreqs * nt, sizeof (*x->needbuf));
    if (!x->all || !x->needbuf)
        return rp_error_set (x->error, ENOMEM, "out of memory");
    for (size_t i = 0; i < x->nreqs; i++) {
        x->all[i].need = &x->needbuf[i * nt];
        x->all[i].walk = &x->needbuf[(x->nreqs + i) * nt];
    }
    return req_build (x, top, NULL, &x->reqs, &next);
}

/* --- holds and the undo log ----------------------------------------------- */

static struct mark mark_get (const struct rp_match *x)
{
    return (struct mark){ .nlog = x->nlog, .nunits = x->nunits };
}

static bool held (const struct rp_match *x, rp_vertex_t v)
{
    return x->m->mark[v] == x->m->epoch;
}

static int nomem (struct rp_match *x)
{
    return rp_error_set (x->error, ENOMEM, "out of memory");
}

static int grow (void **p, size_t *cap, size_t size)
{
    size_t n = *cap ? *cap * 2 : 64;
    void *q = realloc (*p, n * size);

    if (!q)
        return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* What this match holds per subtree and type, for rp_match_held: one
 * row of ntypes counts for each vertex that a counted hold (any but the
 * shared holds of ancestors) is at or below, valid while hepoch[v] is the
 * match's epoch.  A row is made for a vertex and all its ancestors at
 * once, so the climb stops at the first vertex that has one; a hold adds
 * its amount to the rows of its vertex and ancestors and its undo takes
 * it away: O(depth) per hold, O(1) per question, memory in proportion to
 * the vertices this match touched. */
static uint64_t *held_row (const struct rp_match *x, rp_vertex_t v)
{
    const struct rp_matcher *m = x->m;

    if (m->hepoch[v] != m->epoch)
        return NULL;
    return m->hrows + (size_t)m->hrow[v] * m->ntypes;
}

/* The type whose count hold kind/v changes, or -1 (none kept). */
static int held_type (const struct rp_match *x, rp_vertex_t v, int kind)
{
    if (!x->track || kind == HOLD_ANCESTOR || x->m->ntypes == 0)
        return -1;
    return rp_graph_vertex_type_index (x->g, v);
}

/* Rows for v and its ancestors: 0, or -1 out of memory. */
static int held_rows (struct rp_match *x, rp_vertex_t v)
{
    struct rp_matcher *m = x->m;
    size_t rowsize = m->ntypes * sizeof (*m->hrows);

    for (; v != RP_VERTEX_NONE && m->hepoch[v] != m->epoch;
         v = rp_graph_parent (x->g, v)) {
        if (m->nhrows == m->hrowcap
            && grow ((void **)&m->hrows, &m->hrowcap, rowsize) < 0)
            return -1;
        memset (m->hrows + m->nhrows * m->ntypes, 0, rowsize);
        m->hrow[v] = (uint32_t)m->nhrows++;
        m->hepoch[v] = m->epoch;
    }
    return 0;
}

static void held_add (struct rp_match *x, rp_vertex_t v, int t, uint64_t amount,
                      bool add)
{
    for (; v != RP_VERTEX_NONE; v = rp_graph_parent (x->g, v)) {
        uint64_t *row = held_row (x, v);
        row[t] = add ? row[t] + amount : row[t] - amount; /* <= totals */
    }
}

static void holds_rollback (struct rp_match *x, size_t nlog)
{
    while (x->nlog > nlog) {
        struct hold *h = &x->log[--x->nlog];
        int t = held_type (x, h->v, h->kind);
        if (t >= 0)
            held_add (x, h->v, t, h->amount, false);
        (void)gstate_put (x->s, h->v, h->amount, h->exclusive);
        if (h->marked)
            x->m->mark[h->v] = 0;
    }
}

static void rollback (struct rp_match *x, struct mark mk)
{
    holds_rollback (x, mk.nlog);
    x->nunits = mk.nunits;
}

/* Hold v: 1 done, 0 refused by the state, -1 out of memory. */
static int take (struct rp_match *x, rp_vertex_t v, uint64_t amount,
                 bool exclusive, int kind, size_t unit)
{
    int t = held_type (x, v, kind);
    struct hold *h;

    if ((x->nlog == x->logcap
         && grow ((void **)&x->log, &x->logcap, sizeof (*x->log)) < 0)
        || (t >= 0 && held_rows (x, v) < 0))
        return nomem (x);
    if (gstate_take (x->s, v, amount, exclusive) < 0)
        return 0;
    if (t >= 0)
        held_add (x, v, t, amount, true);
    h = &x->log[x->nlog++];
    *h = (struct hold){ .v = v,
                        .kind = (uint8_t)kind,
                        .exclusive = exclusive,
                        .amount = amount,
                        .unit = unit };
    if (!held (x, v)) {
        x->m->mark[v] = x->m->epoch;
        h->marked = true;
    }
    return 1;
}

/* Hold v's ancestors shared, up to one this match already holds. */
static int hold_ancestors (struct rp_match *x, rp_vertex_t v, size_t unit)
{
    rp_vertex_t a = rp_graph_parent (x->g, v);

    for (; a != RP_VERTEX_NONE && !held (x, a); a = rp_graph_parent (x->g, a)) {
        int rc = take (x, a, 1, false, HOLD_ANCESTOR, unit);
        if (rc <= 0)
            return rc;
    }
    return 1;
}

/* Pre-order successor of v within the subtree of root, past v's
 * subtree. */
static rp_vertex_t subtree_skip (const struct rp_graph *g, rp_vertex_t root,
                                 rp_vertex_t v)
{
    rp_vertex_t n;

    for (; v != root; v = rp_graph_parent (g, v))
        if ((n = rp_graph_child_next (g, v)) != RP_VERTEX_NONE)
            return n;
    return RP_VERTEX_NONE;
}

/* Pre-order successor of v within the subtree of root. */
static rp_vertex_t subtree_next (const struct rp_graph *g, rp_vertex_t root,
                                 rp_vertex_t v)
{
    rp_vertex_t n = rp_graph_child_first (g, v);

    return n != RP_VERTEX_NONE ? n : subtree_skip (g, root, v);
}

/* Hold c and everything below it exclusively, whole. */
static int take_whole (struct rp_match *x, rp_vertex_t c, size_t unit)
{
    for (rp_vertex_t v = c; v != RP_VERTEX_NONE;
         v = subtree_next (x->g, c, v)) {
        int rc = take (x, v, rp_graph_vertex_size (x->g, v), true,
                       v == c ? HOLD_UNIT : HOLD_FILL, unit);
        if (rc <= 0)
            return rc;
    }
    return 1;
}

static size_t unit_push (struct rp_match *x, struct req *q, rp_vertex_t v,
                         size_t parent, uint64_t value)
{
    if (x->nunits == x->unitcap
        && grow ((void **)&x->units, &x->unitcap, sizeof (*x->units)) < 0) {
        nomem (x);
        return NO_UNIT;
    }
    x->units[x->nunits] =
        (struct unit){ .req = q, .parent = parent, .v = v, .value = value };
    return x->nunits++;
}

/* --- policy hooks --------------------------------------------------------- */

/* op returned rc (not 0). */
static int policy_fail (struct rp_match *x, const char *op, int rc)
{
    if (x->p->error[0])
        return rp_error_set (x->error, EPROTO, "policy '%s': %s failed: %s",
                             x->p->instance, op, x->p->error);
    return rp_error_set (x->error, EPROTO,
                         "policy '%s': %s returned %d (no message)",
                         x->p->instance, op, rc);
}

static int score (struct rp_match *x, rp_vertex_t v, int64_t *sc)
{
    struct plugin_call call;
    int rc;

    *sc = 0;
    if (!x->ops.score)
        return 0;
    x->p->error[0] = '\0';
    plugin_enter (&call, x->p, "score");
    rc = x->ops.score (x->p, x, v, sc);
    plugin_leave (&call);
    if (rc != 0)
        return policy_fail (x, "score", rc);
    return 0;
}

/* 1: descend, 0: skip, -1: policy error. */
static int prune (struct rp_match *x, rp_vertex_t v)
{
    int rc;

    struct plugin_call call;

    if (!x->ops.prune)
        return 1;
    x->p->error[0] = '\0';
    plugin_enter (&call, x->p, "prune");
    rc = x->ops.prune (x->p, x, v);
    plugin_leave (&call);
    if (rc == RP_WALK_CONTINUE)
        return 1;
    if (rc == RP_WALK_SKIP)
        return 0;
    return rp_error_set (x->error, EPROTO,
                         "policy '%s': prune returned %d (not CONTINUE or "
                         "SKIP)",
                         x->p->instance, rc);
}

static int vertex_cmp (const void *a, const void *b)
{
    rp_vertex_t x = *(const rp_vertex_t *)a, y = *(const rp_vertex_t *)b;

    return x < y ? -1 : x > y;
}

/* The matcher's scratch for two arrays of n vertices (kept between
 * matches; the policy's order_candidates cannot start another match). */
static rp_vertex_t *perm_scratch (struct rp_matcher *m, size_t n)
{
    rp_vertex_t *p;

    if (n <= m->permcap)
        return m->perm;
    if (n > SIZE_MAX / (2 * sizeof (*p)) || !(p = malloc (2 * n * sizeof (*p))))
        return NULL;
    free (m->perm);
    m->perm = p;
    m->permcap = n;
    return p;
}

/* Let the policy reorder v[n]; refuse anything but a permutation. */
static int order_candidates (struct rp_match *x, rp_vertex_t *v, size_t n)
{
    rp_vertex_t *before, *after;
    struct plugin_call call;
    bool same;
    int rc;

    if (!x->ops.order_candidates || n == 0)
        return 0;
    if (!(before = perm_scratch (x->m, n)))
        return nomem (x);
    after = before + n;
    memcpy (before, v, n * sizeof (*v));
    x->p->error[0] = '\0';
    plugin_enter (&call, x->p, "order_candidates");
    rc = x->ops.order_candidates (x->p, x, v, n);
    plugin_leave (&call);
    if (rc != 0)
        return policy_fail (x, "order_candidates", rc);
    memcpy (after, v, n * sizeof (*v));
    qsort (before, n, sizeof (*v), vertex_cmp);
    qsort (after, n, sizeof (*v), vertex_cmp);
    same = memcmp (before, after, n * sizeof (*v)) == 0;
    if (!same)
        return rp_error_set (x->error, EPROTO,
                             "policy '%s': order_candidates did not return a "
                             "permutation of the candidates",
                             x->p->instance);
    return 0;
}

static bool reordering (const struct rp_match *x)
{
    return x->ops.score || x->ops.order_candidates;
}

/* The candidates pushed into q->acc, in order, after order_candidates.
 * Caller frees *v. */
static int candidates_ordered (struct rp_match *x, struct req *q,
                               rp_vertex_t **v, size_t *n)
{
    size_t count = rp_accum_count (q->acc);

    if (!(*v = malloc ((count ? count : 1) * sizeof (**v))))
        return nomem (x);
    for (size_t i = 0; i < count; i++)
        (*v)[i] = rp_accum_vertex (q->acc, i);
    *n = count;
    if (order_candidates (x, *v, count) < 0) {
        free (*v);
        return -1;
    }
    return 0;
}

/* --- candidates ----------------------------------------------------------- */

struct propctx {
    const struct rp_matcher *m;
    rp_vertex_t v;
    unsigned int rank;
};

static bool has_property (const char *name, void *arg)
{
    struct propctx *pc = arg;

    if (pc->m->propfn)
        return pc->m->propfn (pc->rank, name, pc->m->proparg);
    return rp_graph_vertex_has_property (pc->m->g, pc->v, name);
}

static const char *value_of (const char *key, void *arg)
{
    struct propctx *pc = arg;

    if (pc->m->valfn)
        return pc->m->valfn (pc->rank, key, pc->m->valarg);
    return rp_graph_vertex_property_value (pc->m->g, pc->v, key);
}

/* The constraint at target v. */
static bool constraint_ok (struct rp_match *x, rp_vertex_t v)
{
    int64_t rank = rp_graph_vertex_rank (x->g, v);
    struct propctx pc = { .m = x->m, .v = v, .rank = (unsigned int)rank };

    if (!x->constraint)
        return true;
    if (rank >= 0 && rank <= UINT32_MAX
        && rp_constraint_match_values (x->constraint, (unsigned int)rank,
                                       rp_graph_vertex_name (x->g, v),
                                       has_property, value_of, &pc))
        return true;
    x->filtered++;
    return false;
}

/* The constraint at every target below c, a vertex above the targets
 * that an exclusive request would take whole: the walk goes down to the
 * targets, not below them. */
static bool constraint_below (struct rp_match *x, rp_vertex_t c)
{
    rp_vertex_t v = rp_graph_child_first (x->g, c);

    if (!x->constraint || rp_graph_target (x->g, c) != RP_VERTEX_NONE)
        return true;
    while (v != RP_VERTEX_NONE) {
        if (!is_target (x->g, v)) {
            v = subtree_next (x->g, c, v);
            continue;
        }
        if (!constraint_ok (x, v))
            return false;
        v = subtree_skip (x->g, c, v);
    }
    return true;
}

static bool id_ok (const struct req *q, const struct rp_graph *g, rp_vertex_t v)
{
    int64_t id;

    if (!q->ids)
        return true;
    id = rp_graph_vertex_id (g, v);
    return id >= 0 && id <= UINT32_MAX
           && rp_idset_test (q->ids, (unsigned int)id);
}

static bool available (const struct rp_match *x, const struct req *q,
                       rp_vertex_t c)
{
    if (held (x, c) || !gstate_up (x->s, c))
        return false;
    if (q->exclusive)
        return gstate_idle (x->s, c);
    return gstate_used (x->s, c) == 0;
}

static int place (struct rp_match *x, struct req *q, rp_vertex_t at, size_t pu);

/* One unit of q at c (a vertex of q's type; for a slot, the target or
 * `at`): 1 placed, 0 does not fit (nothing of it left held), -1 error. */
static int unit_place (struct rp_match *x, struct req *q, rp_vertex_t c,
                       size_t pu)
{
    struct mark mk = mark_get (x);
    size_t u;
    int rc = 1;

    if (!q->slot && !available (x, q, c))
        return 0;
    if ((u = unit_push (x, q, c, pu, 0)) == NO_UNIT)
        return -1;
    for (struct req *ch = q->child; ch && rc > 0; ch = ch->next)
        rc = place (x, ch, c, u);
    if (rc <= 0 || q->slot)
        goto done;
    if (q->exclusive) {
        holds_rollback (x, mk.nlog); /* the unit records stay */
        rc = take_whole (x, c, u);
    } else
        rc = take (x, c, 1, false, HOLD_UNIT, u);
    if (rc > 0)
        rc = hold_ancestors (x, c, u);
done:
    if (rc <= 0)
        rollback (x, mk);
    return rc;
}

/* Keep sc among q's highest scores this run (explain only); equal
 * scores keep the order they were found in. */
static void top_push (struct rp_match *x, struct req *q, rp_vertex_t c,
                      int64_t sc)
{
    struct req_stats *st = &q->st;
    size_t i;

    if (!x->m->explain || !x->ops.score)
        return;
    for (i = st->ntop; i > 0 && st->top[i - 1].score < sc; i--)
        if (i < EXPLAIN_TOP)
            st->top[i] = st->top[i - 1];
    if (i < EXPLAIN_TOP) {
        st->top[i].v = c;
        st->top[i].score = sc;
        if (st->ntop < EXPLAIN_TOP)
            st->ntop++;
    }
}

static int found_push (struct rp_match *x, struct req *q, rp_vertex_t c,
                       int64_t sc)
{
    if (q->nmarks == q->markcap
        && grow ((void **)&q->marks, &q->markcap, sizeof (*q->marks)) < 0)
        return nomem (x);
    q->marks[q->nmarks++] = mark_get (x);
    x->found++;
    top_push (x, q, c, sc);
    if (rp_accum_push (q->acc, c, sc) < 0)
        return nomem (x);
    return 0;
}

enum { W_GO = 0, W_STOP = 1 };

static int pool_candidate (struct rp_match *x, struct req *q, rp_vertex_t c)
{
    uint64_t fr;
    int64_t sc;

    q->st.considered++;
    if (!id_ok (q, x->g, c)) {
        q->st.id++;
        return W_GO;
    }
    if (!gstate_up (x->s, c) || (fr = gstate_free (x->s, c)) == 0) {
        q->st.busy++;
        return W_GO;
    }
    if (score (x, c, &sc) < 0)
        return -1;
    top_push (x, q, c, sc);
    if (rp_accum_push (q->acc, c, sc) < 0)
        return nomem (x);
    q->avail = sat_add (q->avail, fr);
    return q->avail >= q->limit ? W_STOP : W_GO;
}

/* The first pass of a policy that reorders, for a vertex candidate (or a
 * slot's target, for one slot) whose fit the aggregates decide (agg_ok;
 * slots below only within a target, so
 * they all land at c; the constraint checked by the caller or absent
 * below c; no prune to consult): 1 fits, 0 not, -1 not decidable.  The
 * pass is undone anyway and later candidates are disjoint from c, so
 * leaving c untaken changes neither their fit nor their scores. */
static int agg_fit (struct rp_match *x, const struct req *q, rp_vertex_t c)
{
    bool in_target = rp_graph_target (x->g, c) != RP_VERTEX_NONE;

    /* A slot target qualifies only where it gives at most one find (the
     * request's largest count is 1): a second find would be scored after
     * the first was taken, which the aggregates cannot show. */
    if (!reordering (x) || (q->slot && (q->max != 1 || q->at_level))
        || !q->agg_ok || x->ops.prune)
        return -1;
    if ((q->agg_slot && !in_target)
        || (x->constraint && !q->exclusive && !in_target))
        return -1;
    if (!q->slot && !available (x, q, c))
        return 0;
    for (size_t t = 0; t < x->m->ntypes; t++)
        if (gstate_agg (x->s, c, (int)t) < q->need[t])
            return 0;
    return 1;
}

/* A candidate the aggregates decide: found, not taken. */
static int agg_candidate (struct rp_match *x, struct req *q, rp_vertex_t c,
                          int fit)
{
    int64_t sc;

    if (fit == 0) {
        if (!q->slot && !available (x, q, c))
            q->st.busy++;
        else
            q->st.nofit++;
        return W_GO;
    }
    if (score (x, c, &sc) < 0 || found_push (x, q, c, sc) < 0)
        return -1;
    return x->found >= q->limit ? W_STOP : W_GO;
}

/* A candidate c of q: W_GO, W_STOP (enough found) or -1. */
static int candidate (struct rp_match *x, struct req *q, rp_vertex_t c,
                      size_t pu)
{
    int fit;

    if (q->pool)
        return pool_candidate (x, q, c);
    q->st.considered++;
    if (!q->slot && !id_ok (q, x->g, c)) {
        q->st.id++;
        return W_GO;
    }
    if ((is_target (x->g, c) && !constraint_ok (x, c))
        || (q->exclusive && !q->slot && !constraint_below (x, c))) {
        q->st.constraint++;
        return W_GO;
    }
    if ((fit = agg_fit (x, q, c)) >= 0)
        return agg_candidate (x, q, c, fit);
    /* A slot target is found again after each slot it holds, but never
     * more often than the request's largest count: no more of its finds
     * could be taken, and a policy that scores every candidate would
     * otherwise place every slot the whole cluster can hold. */
    for (uint64_t here = 0; !q->slot ? here < 1 : here < q->max; here++) {
        int64_t sc;
        int rc;
        if (score (x, c, &sc) < 0 || (rc = unit_place (x, q, c, pu)) < 0)
            return -1;
        if (rc == 0 && here == 0) {
            if (!q->slot && !available (x, q, c))
                q->st.busy++;
            else
                q->st.nofit++;
        }
        if (rc == 0)
            break;
        if (found_push (x, q, c, sc) < 0)
            return -1;
        if (x->found >= q->limit)
            return W_STOP;
    }
    return W_GO;
}

static int walk (struct rp_match *x, struct req *q, rp_vertex_t v, size_t pu);

static void count_pruned (struct rp_match *x, struct req *q, rp_vertex_t c)
{
    int t = rp_graph_vertex_type_index (x->g, c);

    q->st.pruned++;
    if (t >= 0 && (size_t)t < x->m->ntypes)
        x->pruned[t]++;
}

static int visit (struct rp_match *x, struct req *q, rp_vertex_t c, size_t pu)
{
    bool cand = q->slot ? is_target (x->g, c)
                        : rp_graph_vertex_type_index (x->g, c) == q->t;
    int rc;

    if (!cand && is_target (x->g, c) && !constraint_ok (x, c))
        return W_GO;
    if ((rc = prune (x, c)) <= 0) {
        if (rc == 0)
            count_pruned (x, q, c);
        return rc < 0 ? -1 : W_GO;
    }
    if (cand)
        return candidate (x, q, c, pu);
    return walk (x, q, c, pu);
}

static int walk_order (const struct rp_match *x)
{
    return x->ops.order == RP_MATCH_HIGH ? RP_WALK_HIGH : RP_WALK_LOW;
}

/* Children of v in descending score, ties in walk order. */
static int walk_scored (struct rp_match *x, struct req *q, rp_vertex_t v,
                        size_t pu)
{
    struct rp_accum *acc = acc_get (x->m);
    int order = walk_order (x);
    int rc = W_GO;

    if (!acc)
        return nomem (x);
    for (rp_vertex_t c =
             gstate_child_fit (x->s, v, RP_VERTEX_NONE, q->walk, order);
         c != RP_VERTEX_NONE;
         c = gstate_child_fit (x->s, v, c, q->walk, order)) {
        int64_t sc;
        if (score (x, c, &sc) < 0 || rp_accum_push (acc, c, sc) < 0) {
            rc = errno == ENOMEM ? nomem (x) : -1;
            goto done;
        }
    }
    for (size_t i = 0; i < rp_accum_count (acc) && rc == W_GO; i++)
        rc = visit (x, q, rp_accum_vertex (acc, i), pu);
done:
    acc_put (x->m, acc);
    return rc;
}

/* Visit the children of v that may hold one unit of q. */
static int walk (struct rp_match *x, struct req *q, rp_vertex_t v, size_t pu)
{
    int order = walk_order (x);

    if (x->ops.score)
        return walk_scored (x, q, v, pu);
    for (rp_vertex_t c =
             gstate_child_fit (x->s, v, RP_VERTEX_NONE, q->walk, order);
         c != RP_VERTEX_NONE;
         c = gstate_child_fit (x->s, v, c, q->walk, order)) {
        int rc = visit (x, q, c, pu);
        if (rc != W_GO)
            return rc;
    }
    return W_GO;
}

/* --- placing a request ---------------------------------------------------- */

static uint64_t search_limit (const struct rp_match *x, uint64_t max)
{
    if (x->ops.stop_after == 0 || max == UINT64_MAX)
        return UINT64_MAX;
    return sat_mul (x->ops.stop_after, max);
}

/* Take the candidates again in the policy's order, up to the count the
 * first pass allows. */
static int retake (struct rp_match *x, struct req *q, size_t pu)
{
    rp_vertex_t *v;
    uint64_t target;
    size_t n;

    if (!count_largest (q, x->found, &target))
        return 0;
    if (candidates_ordered (x, q, &v, &n) < 0)
        return -1;
    q->nmarks = 0;
    x->found = 0;
    for (size_t i = 0; i < n && x->found < target; i++) {
        int rc = unit_place (x, q, v[i], pu);
        if (rc < 0)
            goto error;
        if (rc == 0)
            continue;
        q->marks[q->nmarks++] = mark_get (x); /* fewer than the first pass */
        x->found++;
    }
    free (v);
    return 0;
error:
    free (v);
    return -1;
}

/* A top-level request for the type of the root: the root is its only
 * candidate (the walk below it never reaches it). */
static bool root_request (const struct rp_match *x, const struct req *q,
                          rp_vertex_t at)
{
    return !q->parent && !q->slot && q->t >= 0
           && rp_graph_vertex_type_index (x->g, at) == q->t;
}

/* Vertices and slots: 1 placed, 0 not, -1 error. */
static int units_place (struct rp_match *x, struct req *q, rp_vertex_t at,
                        size_t pu)
{
    struct mark mk = mark_get (x);
    bool here = q->at_level
                || (q->slot && rp_graph_target (x->g, at) != RP_VERTEX_NONE)
                || root_request (x, q, at);
    uint64_t n;
    int rc;

    q->limit = search_limit (x, q->max);
    rc = here ? candidate (x, q, at, pu) : walk (x, q, at, pu);
    if (rc < 0)
        return -1;
    if (reordering (x)) {
        rollback (x, mk);
        if (retake (x, q, pu) < 0)
            return -1;
    }
    if (!count_largest (q, x->found, &n))
        return 0;
    if (n < x->found) {
        rollback (x, q->marks[n - 1]);
        x->found = n;
    }
    return 1;
}

/* Pools: an amount from one or more pools below at. */
static int pool_place (struct rp_match *x, struct req *q, rp_vertex_t at,
                       size_t pu)
{
    uint64_t v, amount;
    rp_vertex_t *cand;
    size_t n, u;
    int rc = 0;

    q->avail = 0;
    q->limit = search_limit (x, to_pool (q, q->max));
    if (walk (x, q, at, pu) < 0)
        return -1;
    x->found = to_request (q, q->avail);
    if (!count_largest (q, x->found, &v))
        return 0;
    if (candidates_ordered (x, q, &cand, &n) < 0)
        return -1;
    amount = to_pool (q, v);
    if ((u = unit_push (x, q, at, pu, v)) == NO_UNIT)
        goto error;
    for (size_t i = 0; i < n && amount > 0; i++) {
        uint64_t k = gstate_free (x->s, cand[i]);
        k = k < amount ? k : amount;
        if (k == 0)
            continue;
        if ((rc = take (x, cand[i], k, true, HOLD_POOL, u)) < 0
            || (rc > 0 && (rc = hold_ancestors (x, cand[i], u)) < 0))
            goto error;
        if (rc > 0)
            amount -= k;
    }
    free (cand);
    if (amount > 0) { /* the state refused a take */
        x->found = to_request (q, to_pool (q, v) - amount);
        return 0;
    }
    x->found = v;
    return 1;
error:
    free (cand);
    return -1;
}

static void fail_record (struct rp_match *x, struct req *q, size_t filtered)
{
    if (q->parent || x->failed)
        return;
    x->failed = q;
    x->failed_found = x->found;
    x->failed_filtered = x->filtered > filtered;
}

/* Place request q with its count at `at`, under unit pu: 1 placed, 0 does
 * not fit (nothing of it left held), -1 error. */
static int place (struct rp_match *x, struct req *q, rp_vertex_t at, size_t pu)
{
    struct req *saved = x->cur;
    uint64_t saved_found = x->found;
    size_t filtered = x->filtered;
    struct mark mk = mark_get (x);
    int rc;

    x->cur = q;
    x->found = 0;
    q->nmarks = 0;
    rp_accum_clear (q->acc);
    rc = q->pool ? pool_place (x, q, at, pu) : units_place (x, q, at, pu);
    if (rc > 0)
        q->st.taken += x->found;
    if (rc == 0)
        fail_record (x, q, filtered);
    if (rc <= 0)
        rollback (x, mk);
    x->cur = saved;
    x->found = saved_found;
    return rc;
}

/* Place every top-level request at the root: 1, 0 or -1. */
static int match_run (struct rp_match *x)
{
    rp_vertex_t root = rp_graph_root (x->g);

    new_epoch (x->m);
    x->m->nhrows = 0;
    x->nlog = 0;
    x->nunits = 0;
    x->filtered = 0;
    x->failed = NULL;
    memset (x->pruned, 0, x->m->ntypes * sizeof (*x->pruned));
    for (size_t i = 0; i < x->nreqs; i++)
        memset (&x->all[i].st, 0, sizeof (x->all[i].st));
    for (struct req *q = x->reqs; q; q = q->next) {
        int rc = place (x, q, root, NO_UNIT);
        if (rc <= 0) {
            rollback (x, (struct mark){ 0, 0 });
            return rc;
        }
    }
    return 1;
}

/* --- reasons -------------------------------------------------------------- */

struct text {
    char *buf;
    size_t size;
    size_t len;
};

static void text_add (struct text *t, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void text_add (struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (t->len >= t->size)
        return;
    va_start (ap, fmt);
    n = vsnprintf (t->buf + t->len, t->size - t->len, fmt, ap);
    va_end (ap);
    if (n > 0)
        t->len += (size_t)n;
}

/* A generic English plural of word in buf: +es after s, x, z, ch and sh,
 * consonant + y -> ies, else +s. */
static const char *plural (const char *word, char *buf, size_t size)
{
    size_t n = strlen (word);
    const char *end = n ? word + n - 1 : word;
    const char *suffix = "s";

    if (n && strchr ("sxz", *end))
        suffix = "es";
    else if (n >= 2 && (*end == 'h') && strchr ("cs", end[-1]))
        suffix = "es";
    else if (n >= 2 && *end == 'y' && !strchr ("aeiou", end[-1])) {
        snprintf (buf, size, "%.*sies", (int)(n - 1), word);
        return buf;
    }
    snprintf (buf, size, "%s%s", word, suffix);
    return buf;
}

/* The word for n vertices of type; buf holds a generic plural. */
static const char *type_word (const char *type, uint64_t n, char *buf,
                              size_t size)
{
    static const struct {
        const char *type, *one, *many;
    } words[] = {
        { "node", "node", "nodes" }, { "core", "core", "cores" },
        { "gpu", "GPU", "GPUs" },    { "socket", "socket", "sockets" },
        { "slot", "slot", "slots" }, { "rack", "rack", "racks" },
    };

    for (size_t i = 0; i < sizeof (words) / sizeof (words[0]); i++)
        if (strcmp (type, words[i].type) == 0)
            return n == 1 ? words[i].one : words[i].many;
    return n == 1 ? type : plural (type, buf, size);
}

static bool count_fixed (const struct req *q)
{
    return q->min == q->max;
}

static void describe (struct text *t, const struct req *q)
{
    const char *sep = q->slot ? " of " : " with ";
    char word[RP_ERROR_TEXT_SIZE];

    text_add (t, "%s%ju", count_fixed (q) ? "" : "at least ",
              (uintmax_t)q->min);
    if (q->pool && *q->unit)
        text_add (t, " %s of %s", q->unit, q->type);
    else
        text_add (t, " %s", type_word (q->type, q->min, word, sizeof (word)));
    for (const struct req *c = q->child; c; c = c->next) {
        text_add (t, "%s", sep);
        describe (t, c);
        sep = " and ";
    }
}

/* "; policy 'P' pruned N of M TYPEs" for each type the policy pruned
 * in this run: it may be why the match failed. */
static void pruned_add (const struct rp_match *x, struct text *t)
{
    for (size_t k = 0; x->p && k < x->m->ntypes; k++) {
        char word[RP_ERROR_TEXT_SIZE];
        uint64_t all;
        if (x->pruned[k] == 0)
            continue;
        all = rp_graph_subtree_total (x->g, rp_graph_root (x->g), (int)k);
        text_add (t, "; policy '%s' pruned %ju of %ju %s", x->p->instance,
                  (uintmax_t)x->pruned[k], (uintmax_t)all,
                  type_word (rp_graph_type_name (x->g, (int)k), all, word,
                             sizeof (word)));
    }
}

/* Why x->failed did not fit, busy: on the live state. */
static void reason (const struct rp_match *x, bool busy, char *buf, size_t size)
{
    struct text t = { .buf = buf, .size = size };
    const struct req *q = x->failed;
    uint64_t n = x->failed_found;
    const char *cons = x->failed_filtered ? " matching the constraints" : "";
    const char *unit = q->pool && *q->unit ? q->unit : NULL;

    buf[0] = '\0';
    text_add (&t, "needs ");
    describe (&t, q);
    if (q->child && (q->min != 1 || !count_fixed (q)))
        text_add (&t, " each");
    if (q->slot)
        text_add (&t, ", %ju %s%s%s", (uintmax_t)n, n == 1 ? "fits" : "fit",
                  cons, busy ? " now" : "");
    else if (!busy)
        text_add (&t, ", the resource set has %ju%s%s%s", (uintmax_t)n,
                  unit ? " " : "", unit ? unit : "", cons);
    else
        text_add (&t, ", %ju%s%s%s %s free", (uintmax_t)n, unit ? " " : "",
                  unit ? unit : "", cons, n == 1 ? "is" : "are");
    pruned_add (x, &t);
}

/* --- verification before commit ------------------------------------------- */

static bool below (const struct rp_graph *g, rp_vertex_t v, rp_vertex_t a)
{
    for (v = rp_graph_parent (g, v); v != RP_VERTEX_NONE;
         v = rp_graph_parent (g, v))
        if (v == a)
            return true;
    return false;
}

static int refuse (struct rp_match *x, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static int refuse (struct rp_match *x, const char *fmt, ...)
{
    char msg[RP_ERROR_TEXT_SIZE];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    return rp_error_set (x->error, EPROTO, "%s '%s': proposal refused: %s",
                         x->p ? "policy" : "matcher",
                         rp_matcher_policy_name (x->m), msg);
}

static int verify_holds (struct rp_match *x)
{
    for (size_t i = 0; i < x->nlog; i++) {
        const struct hold *h = &x->log[i];
        if (h->kind == HOLD_FILL
            && (!h->exclusive
                || h->amount != rp_graph_vertex_size (x->g, h->v)))
            return refuse (x, "%s is not taken whole",
                           rp_graph_vertex_name (x->g, h->v));
        if (!x->sat && rp_graph_vertex_state (x->g, h->v) != RP_VERTEX_UP)
            return refuse (x, "%s is not up",
                           rp_graph_vertex_name (x->g, h->v));
        x->m->where[h->v] = (uint32_t)i + 1;
    }
    return 0;
}

/* The nearest slot unit above unit u that is placed in one target. */
static size_t slot_above (const struct rp_match *x, size_t u)
{
    for (u = x->units[u].parent; u != NO_UNIT; u = x->units[u].parent)
        if (x->units[u].req->slot && !x->units[u].req->at_level)
            return u;
    return NO_UNIT;
}

/* The name of u's vertex, copied to buf (a default name lives in a
 * buffer the next call overwrites); only for messages: formatting it for
 * every unit made a slot match 15% slower. */
static const char *unit_name (const struct rp_match *x, const struct unit *u,
                              char *buf, size_t size)
{
    snprintf (buf, size, "%s", rp_graph_vertex_name (x->g, u->v));
    return buf;
}

static int verify_unit (struct rp_match *x, size_t i, const uint64_t *pool)
{
    const struct unit *u = &x->units[i];
    const struct req *q = u->req;
    rp_vertex_t pv =
        u->parent == NO_UNIT ? rp_graph_root (x->g) : x->units[u->parent].v;
    char name[128];
    size_t s;

    if (q->pool) {
        if (u->v != pv || !rp_jobspec_resource_count_contains (q->r, u->value))
            return refuse (x, "%s: bad amount %ju", q->type,
                           (uintmax_t)u->value);
        if (!q->inherited && pool[i] != to_pool (q, u->value))
            return refuse (x, "%s: %ju units held for %ju", q->type,
                           (uintmax_t)pool[i], (uintmax_t)u->value);
        return 0;
    }
    if (q->slot) {
        if (q->at_level ? u->v != pv
                        : (rp_graph_target (x->g, u->v) == RP_VERTEX_NONE
                           || (u->v != pv && !below (x->g, u->v, pv))))
            return refuse (x, "slot at %s: misplaced",
                           unit_name (x, u, name, sizeof (name)));
        return 0;
    }
    if (rp_graph_vertex_type_index (x->g, u->v) != q->t)
        return refuse (x, "%s is not a %s",
                       unit_name (x, u, name, sizeof (name)), q->type);
    if (!below (x->g, u->v, pv) && !(u->parent == NO_UNIT && u->v == pv)) {
        unit_name (x, u, name, sizeof (name));
        return refuse (x, "%s is not below %s", name,
                       rp_graph_vertex_name (x->g, pv));
    }
    if (x->m->where[u->v] == 0
        || x->log[x->m->where[u->v] - 1].kind == HOLD_ANCESTOR
        || x->log[x->m->where[u->v] - 1].exclusive != q->exclusive)
        return refuse (x, "%s is not held %s",
                       unit_name (x, u, name, sizeof (name)),
                       q->exclusive ? "exclusively" : "shared");
    if ((s = slot_above (x, i)) != NO_UNIT
        && rp_graph_target (x->g, u->v)
               != rp_graph_target (x->g, x->units[s].v))
        return refuse (x, "%s is outside its slot's target",
                       unit_name (x, u, name, sizeof (name)));
    return 0;
}

/* counts[(parent unit + 1) * k + child index]: units of each child
 * request under each parent unit (0: the top level). */
static int verify_counts (struct rp_match *x, const uint64_t *counts, size_t k)
{
    char word[RP_ERROR_TEXT_SIZE];

    for (size_t p = 0; p <= x->nunits; p++) {
        const struct req *first = p == 0 ? x->reqs : x->units[p - 1].req->child;
        for (const struct req *c = first; c; c = c->next) {
            uint64_t n = counts[p * k + c->index];
            if (c->pool ? n != 1
                        : !rp_jobspec_resource_count_contains (c->r, n))
                return refuse (
                    x, "%ju %s where the jobspec asks %s%ju", (uintmax_t)n,
                    type_word (c->type, n, word, sizeof (word)),
                    count_fixed (c) ? "" : "at least ", (uintmax_t)c->min);
        }
    }
    return 0;
}

static int verify (struct rp_match *x)
{
    size_t k = 1, n = x->nunits;
    uint64_t *counts = NULL, *pool = NULL;
    int rc = -1;

    for (size_t i = 0; i < x->nreqs; i++)
        if (x->all[i].nchildren > k)
            k = x->all[i].nchildren;
    for (const struct req *q = x->reqs; q; q = q->next)
        k = q->index + 1 > k ? q->index + 1 : k;
    if (!(counts = calloc ((n + 1) * k, sizeof (*counts)))
        || !(pool = calloc (n + 1, sizeof (*pool)))) {
        nomem (x);
        goto done;
    }
    if (verify_holds (x) < 0)
        goto done;
    for (size_t i = 0; i < x->nlog; i++)
        if (x->log[i].kind == HOLD_POOL && x->log[i].unit < n)
            pool[x->log[i].unit] += x->log[i].amount;
    for (size_t i = 0; i < n; i++) {
        size_t p = x->units[i].parent == NO_UNIT ? 0 : x->units[i].parent + 1;
        counts[p * k + x->units[i].req->index]++;
        if (verify_unit (x, i, pool) < 0)
            goto done;
    }
    rc = verify_counts (x, counts, k);
done:
    for (size_t i = 0; i < x->nlog; i++)
        x->m->where[x->log[i].v] = 0;
    free (counts);
    free (pool);
    return rc;
}

/* --- R -------------------------------------------------------------------- */

struct ritem {
    int64_t rank;
    int kind; /* 0 core, 1 gpu, 2 other */
    int64_t id;
};

static int ritem_cmp (const void *a, const void *b)
{
    const struct ritem *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return 0;
}

static int rset_add_rank (struct rp_rset *R, const struct rp_graph *g,
                          const struct ritem *it, size_t n, rp_error_t *error)
{
    struct rp_idset *ids[2] = { rp_idset_create (), rp_idset_create () };
    rp_vertex_t tv = rp_graph_rank_vertex (g, it[0].rank);
    int rc = -1;

    if (!ids[0] || !ids[1]) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < n; i++)
        if (it[i].kind < 2 && it[i].id >= 0 && it[i].id <= UINT32_MAX
            && rp_idset_add (ids[it[i].kind], (unsigned int)it[i].id) < 0) {
            rp_error_set (error, ENOMEM, "out of memory");
            goto done;
        }
    rc = rp_rset_add_target (R, (unsigned int)it[0].rank,
                             tv != RP_VERTEX_NONE ? rp_graph_vertex_name (g, tv)
                                                  : NULL,
                             ids[0], ids[1], error);
done:
    rp_idset_destroy (ids[0]);
    rp_idset_destroy (ids[1]);
    return rc;
}

static int rset_targets (struct rp_rset *R, const struct rp_graph *g,
                         const struct hold *holds, size_t n, rp_error_t *error)
{
    int core = rp_graph_type_index (g, "core");
    int gpu = rp_graph_type_index (g, "gpu");
    struct ritem *it = calloc (n + 1, sizeof (*it));
    size_t m = 0;
    int rc = 0;

    if (!it)
        return rp_error_set (error, ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int64_t rank = rp_graph_vertex_rank (g, holds[i].v);
        int t = rp_graph_vertex_type_index (g, holds[i].v);
        if (rank < 0 || rank > UINT32_MAX)
            continue;
        it[m++] = (struct ritem){
            .rank = rank,
            .kind = holds[i].kind == HOLD_ANCESTOR ? 2
                    : t == core                    ? 0
                    : t == gpu                     ? 1
                                                   : 2,
            .id = rp_graph_vertex_id (g, holds[i].v),
        };
    }
    qsort (it, m, sizeof (*it), ritem_cmp);
    for (size_t i = 0, j; i < m && rc == 0; i = j) {
        for (j = i; j < m && it[j].rank == it[i].rank; j++)
            ;
        rc = rset_add_rank (R, g, &it[i], j - i, error);
    }
    free (it);
    return rc;
}

static int hold_vcmp (const void *a, const void *b)
{
    const struct hold *x = a, *y = b;

    return x->v < y->v ? -1 : x->v > y->v;
}

/* The holds other than ancestors, one per vertex (pool amounts summed),
 * as the JGF subgraph. */
static json_t *scheduling (const struct rp_graph *g, const struct hold *holds,
                           size_t n)
{
    struct hold *h = calloc (n + 1, sizeof (*h));
    rp_vertex_t *v = calloc (n + 1, sizeof (*v));
    uint64_t *amount = calloc (n + 1, sizeof (*amount));
    bool *excl = calloc (n + 1, sizeof (*excl));
    json_t *o = NULL;
    size_t m = 0, k = 0;

    if (!h || !v || !amount || !excl)
        goto done;
    for (size_t i = 0; i < n; i++)
        if (holds[i].kind != HOLD_ANCESTOR)
            h[m++] = holds[i];
    qsort (h, m, sizeof (*h), hold_vcmp);
    for (size_t i = 0; i < m; i++) {
        if (k > 0 && v[k - 1] == h[i].v) {
            amount[k - 1] += h[i].amount;
            excl[k - 1] |= h[i].exclusive;
            continue;
        }
        v[k] = h[i].v;
        amount[k] =
            h[i].exclusive ? h[i].amount : rp_graph_vertex_size (g, h[i].v);
        excl[k++] = h[i].exclusive;
    }
    o = rp_graph_subgraph_jgf (g, v, amount, excl, k);
done:
    free (h);
    free (v);
    free (amount);
    free (excl);
    return o;
}

/* The R of holds, without the scheduling key: what a job record keeps
 * (the allocated subgraph of a whole node is about a hundred JSON objects;
 * kept for every job it made memory, and the allocator's work, grow with
 * the number of jobs). */
static struct rp_rset *rset_build (const struct rp_graph *g,
                                   const struct hold *holds, size_t n,
                                   double start, double expiration,
                                   rp_error_t *error)
{
    struct rp_rset *R = rp_rset_create ();

    if (!R) {
        rp_error_set (error, ENOMEM, "out of memory");
        return NULL;
    }
    if (rset_targets (R, g, holds, n, error) < 0
        || rp_rset_set_times (R, start, expiration, error) < 0) {
        rp_rset_destroy (R);
        return NULL;
    }
    return R;
}

/* A copy of the job's R with the allocated subgraph as its scheduling
 * key.  NULL on ENOMEM. */
static struct rp_rset *rset_with_scheduling (const struct rp_graph *g,
                                             const struct job *j)
{
    struct rp_rset *R = rp_rset_copy (j->R);
    json_t *o = NULL;

    if (!R || !(o = scheduling (g, j->holds, j->nholds))
        || rp_rset_set_scheduling (R, o) < 0) {
        json_decref (o);
        rp_rset_destroy (R);
        errno = ENOMEM;
        return NULL;
    }
    json_decref (o);
    return R;
}

/* --- matching ------------------------------------------------------------- */

static void match_cleanup (struct rp_match *x)
{
    int saved = errno;

    reqs_destroy (x);
    rp_constraint_destroy (x->constraint);
    free (x->pruned);
    if (!x->m->log && !x->m->units) { /* kept for the next match */
        x->m->log = x->log;
        x->m->logcap = x->logcap;
        x->m->units = x->units;
        x->m->unitcap = x->unitcap;
    } else {
        free (x->log);
        free (x->units);
    }
    errno = saved;
}

static int match_setup (struct rp_matcher *m, const struct rp_jobspec *js,
                        struct rp_match *x, rp_error_t *error)
{
    json_t *c = rp_jobspec_constraints (js);
    rp_error_t e;

    x->m = m;
    x->g = m->g;
    x->js = js;
    x->log = m->log; /* the matcher's scratch, given back by cleanup */
    x->logcap = m->logcap;
    x->units = m->units;
    x->unitcap = m->unitcap;
    m->log = NULL;
    m->logcap = 0;
    m->units = NULL;
    m->unitcap = 0;
    x->error = error;
    x->ops.stop_after = 1;
    if (!(x->pruned = calloc (m->ntypes + 1, sizeof (*x->pruned))))
        return rp_error_set (error, ENOMEM, "out of memory");
    if (m->policy) {
        x->p = (struct rp_plugin *)m->policy; /* the host's instance */
        x->track = true;
        x->ops = m->policy->match;
        if (x->ops.order != RP_MATCH_LOW && x->ops.order != RP_MATCH_HIGH)
            return rp_error_set (error, EPROTO, "policy '%s': unknown order %u",
                                 x->p->instance, x->ops.order);
    }
    if (c && !(x->constraint = rp_constraint_compile (c, &e)))
        return rp_error_set (error, errno == ENOMEM ? ENOMEM : EINVAL, "%s",
                             e.text);
    return reqs_create (x);
}

/* --- the explanation (rp_matcher_set_explain) ------------------------------ */

/* q's type after those of the requests above it: "node/slot/core". */
static void req_label (const struct req *q, char *buf, size_t size)
{
    char rest[RP_ERROR_TEXT_SIZE];

    if (!q->parent) {
        snprintf (buf, size, "%s", q->type);
        return;
    }
    req_label (q->parent, rest, sizeof (rest));
    snprintf (buf, size, "%s/%s", rest, q->type);
}

static json_t *top_json (const struct rp_match *x, const struct req *q)
{
    json_t *a = json_array ();

    for (size_t i = 0; a && i < q->st.ntop; i++)
        if (json_array_append_new (
                a, json_pack ("{s:s s:I}", "vertex",
                              rp_graph_vertex_name (x->g, q->st.top[i].v),
                              "score", (json_int_t)q->st.top[i].score))
            < 0) {
            json_decref (a);
            return NULL;
        }
    return a;
}

static json_t *req_json (const struct rp_match *x, const struct req *q)
{
    char label[RP_ERROR_TEXT_SIZE], count[64];
    const struct req_stats *st = &q->st;

    req_label (q, label, sizeof (label));
    if (count_fixed (q))
        snprintf (count, sizeof (count), "%ju", (uintmax_t)q->min);
    else if (q->max == UINT64_MAX)
        snprintf (count, sizeof (count), "%ju+", (uintmax_t)q->min);
    else
        snprintf (count, sizeof (count), "%ju-%ju", (uintmax_t)q->min,
                  (uintmax_t)q->max);
    json_t *o;

    o = json_pack ("{s:s s:s s:I s:I s:I s:I s:I s:I s:I s:o}", "request",
                      label, "count", count, "considered",
                      (json_int_t)st->considered, "taken",
                      (json_int_t)st->taken, "busy", (json_int_t)st->busy,
                      "constraint", (json_int_t)st->constraint, "id",
                      (json_int_t)st->id, "no_fit", (json_int_t)st->nofit,
                   "pruned", (json_int_t)st->pruned, "top", top_json (x, q));
    if (o && !q->slot && q->t >= 0
        && json_object_set_new (
               o, "in_graph",
               json_integer ((json_int_t)rp_graph_subtree_total (
                   x->g, rp_graph_root (x->g), q->t)))
               < 0) {
        json_decref (o);
        return NULL;
    }
    return o;
}

/* The explanation of this run, outcome (and reason) as the caller says;
 * NULL for lack of memory. */
static json_t *explain_json (const struct rp_match *x, const char *outcome,
                             const char *why)
{
    json_t *o = json_pack ("{s:s s:s s:[] s:{}}", "policy",
                           rp_matcher_policy_name (x->m), "outcome", outcome,
                           "requests", "pruned");

    if (!o || (why && json_object_set_new (o, "reason", json_string (why)) < 0))
        goto nomem;
    for (size_t i = 0; i < x->nreqs; i++)
        if (json_array_append_new (json_object_get (o, "requests"),
                                   req_json (x, &x->all[i]))
            < 0)
            goto nomem;
    for (size_t k = 0; k < x->m->ntypes; k++)
        if (x->pruned[k]
            && json_object_set_new (json_object_get (o, "pruned"),
                                    rp_graph_type_name (x->g, (int)k),
                                    json_integer ((json_int_t)x->pruned[k]))
                   < 0)
            goto nomem;
    return o;
nomem:
    json_decref (o);
    return NULL;
}

/* Keep o (taken) as the matcher's explanation. */
static void explain_keep (struct rp_matcher *m, json_t *o)
{
    json_decref (m->explanation);
    m->explanation = o;
}

static void explain_run (struct rp_match *x, const char *outcome,
                         const char *why)
{
    if (x->m->explain)
        explain_keep (x->m, explain_json (x, outcome, why));
}

void rp_matcher_set_explain (struct rp_matcher *m, bool on)
{
    if (m) {
        m->explain = on;
        if (!on)
            explain_keep (m, NULL);
    }
}

json_t *rp_matcher_explanation (const struct rp_matcher *m)
{
    return m ? json_incref (m->explanation) : NULL;
}

/* Find js on the live state (0: it holds the match), else say why: EBUSY
 * when the pristine state would hold it, ENODEV when not. */
static int match_find (struct rp_match *x)
{
    char busy[RP_ERROR_TEXT_SIZE];
    json_t *live = NULL;
    int rc;

    x->s = graph_live (x->m->g);
    x->sat = false;
    explain_keep (x->m, NULL);
    if ((rc = match_run (x)) != 0) {
        if (rc > 0)
            explain_run (x, "allocated", NULL);
        return rc > 0 ? 0 : -1;
    }
    reason (x, true, busy, sizeof (busy));
    if (x->m->explain)
        live = explain_json (x, "not now", busy);
    if (!(x->s = graph_pristine (x->m->g))) {
        json_decref (live);
        return nomem (x);
    }
    x->sat = true;
    rc = match_run (x);
    rollback (x, (struct mark){ 0, 0 });
    if (rc != 0) {
        explain_keep (x->m, rc > 0 ? live : NULL);
        return rc > 0 ? rp_error_set (x->error, EBUSY, "%s", busy) : -1;
    }
    json_decref (live);
    reason (x, false, busy, sizeof (busy));
    explain_run (x, "never", busy);
    return rp_error_set (x->error, ENODEV, "%s", busy);
}

static struct job *job_create (uint64_t jobid, const struct hold *log, size_t n,
                               double start, double expiration)
{
    struct job *j = calloc (1, sizeof (*j));

    if (!j || !(j->holds = calloc (n + 1, sizeof (*j->holds)))) {
        free (j);
        return NULL;
    }
    j->id = jobid;
    j->nholds = n;
    j->starttime = start;
    j->expiration = expiration;
    for (size_t i = 0; i < n; i++)
        j->holds[i] = (struct hold){ .v = log[i].v,
                                     .kind = log[i].kind,
                                     .exclusive = log[i].exclusive,
                                     .amount = log[i].amount,
                                     .unit = NO_UNIT };
    return j;
}

struct rp_rset *rp_matcher_allocate (struct rp_matcher *m, uint64_t jobid,
                                     const struct rp_jobspec *js, double now,
                                     rp_error_t *error)
{
    struct rp_match x = { 0 };
    struct rp_rset *R = NULL;
    struct job *j = NULL;
    double duration;

    if (!m || !js) {
        rp_error_set (error, EINVAL, "matcher: bad arguments");
        return NULL;
    }
    if (job_find (m, jobid)) {
        rp_error_set (error, EEXIST, "job %ju already holds resources",
                      (uintmax_t)jobid);
        return NULL;
    }
    duration = rp_jobspec_duration (js);
    if (match_setup (m, js, &x, error) < 0 || match_find (&x) < 0)
        goto error;
    if (verify (&x) < 0)
        goto undo;
    if (!(j = job_create (jobid, x.log, x.nlog, now,
                          duration > 0 ? now + duration : 0)))
        goto nomem;
    if (!(j->R = rset_build (m->g, j->holds, j->nholds, j->starttime,
                             j->expiration, error)))
        goto undo;
    if (!(R = rset_with_scheduling (m->g, j)) || job_insert (m, j) < 0)
        goto nomem;
    match_cleanup (&x);
    return R;
nomem:
    rp_error_set (error, ENOMEM, "out of memory");
undo:
    rollback (&x, (struct mark){ 0, 0 });
error:
    rp_rset_destroy (R);
    job_destroy (j);
    match_cleanup (&x);
    return NULL;
}

int rp_matcher_satisfiability (struct rp_matcher *m,
                               const struct rp_jobspec *js, rp_error_t *error)
{
    struct rp_match x = { 0 };
    char buf[RP_ERROR_TEXT_SIZE];
    int rc = -1;

    if (!m || !js)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (match_setup (m, js, &x, error) < 0)
        goto done;
    if (!(x.s = graph_pristine (m->g))) {
        nomem (&x);
        goto done;
    }
    x.sat = true;
    explain_keep (m, NULL);
    rc = match_run (&x);
    rollback (&x, (struct mark){ 0, 0 });
    if (rc == 0) {
        reason (&x, false, buf, sizeof (buf));
        explain_run (&x, "never", buf);
        rc = rp_error_set (error, ENODEV, "%s", buf);
    } else if (rc > 0) {
        explain_run (&x, "satisfiable", NULL);
        rc = 0;
    }
done:
    match_cleanup (&x);
    return rc;
}

/* --- freeing -------------------------------------------------------------- */

static int holds_put (struct rp_matcher *m, const struct hold *h, size_t n)
{
    struct rp_gstate *s = graph_live (m->g);
    int rc = 0;

    for (size_t i = n; i > 0; i--)
        if (gstate_put (s, h[i - 1].v, h[i - 1].amount, h[i - 1].exclusive) < 0)
            rc = -1;
    return rc;
}

int rp_matcher_free (struct rp_matcher *m, uint64_t jobid, rp_error_t *error)
{
    struct job *j;
    int rc;

    if (!m)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (!(j = job_find (m, jobid)))
        return rp_error_set (error, ENOENT, "job %ju holds no resources",
                             (uintmax_t)jobid);
    rc = holds_put (m, j->holds, j->nholds);
    job_remove (m, jobid);
    if (rc < 0)
        return rp_error_set (error, EPROTO,
                             "job %ju: the state did not hold all of it",
                             (uintmax_t)jobid);
    return 0;
}

static bool hold_released (const struct rp_graph *g, const struct hold *h,
                           const struct rp_idset *ranks)
{
    int64_t rank = rp_graph_vertex_rank (g, h->v);

    return rank >= 0 && rank <= UINT32_MAX
           && rp_idset_test (ranks, (unsigned int)rank);
}

/* Split j's holds into kept (what stays: below other ranks, and above the
 * targets what still has something held below it) and dropped. */
static void release_split (struct rp_matcher *m, const struct job *j,
                           const struct rp_idset *ranks, struct hold *kept,
                           size_t *nkept, struct hold *dropped,
                           size_t *ndropped)
{
    uint32_t epoch = new_epoch (m);

    for (size_t i = 0; i < j->nholds; i++) {
        rp_vertex_t v = j->holds[i].v;
        if (rp_graph_vertex_rank (m->g, v) < 0
            || hold_released (m->g, &j->holds[i], ranks))
            continue;
        for (; v != RP_VERTEX_NONE && m->mark[v] != epoch;
             v = rp_graph_parent (m->g, v))
            m->mark[v] = epoch;
    }
    *nkept = *ndropped = 0;
    for (size_t i = 0; i < j->nholds; i++) {
        const struct hold *h = &j->holds[i];
        bool keep = rp_graph_vertex_rank (m->g, h->v) < 0
                        ? m->mark[h->v] == epoch
                        : !hold_released (m->g, h, ranks);
        if (keep)
            kept[(*nkept)++] = *h;
        else
            dropped[(*ndropped)++] = *h;
    }
}

static int release_check (const struct job *j, const struct rp_idset *ranks,
                          rp_error_t *error)
{
    const struct rp_idset *held = rp_rset_ranks (j->R);
    struct rp_idset *extra;
    unsigned int r;

    if (held && rp_idset_is_subset (ranks, held))
        return 0;
    if (!held)
        r = rp_idset_first (ranks);
    else if ((extra = rp_idset_difference (ranks, held))) {
        r = rp_idset_first (extra);
        rp_idset_destroy (extra);
    } else
        return rp_error_set (error, ENOMEM, "out of memory");
    return rp_error_set (error, EINVAL, "job %ju does not hold rank %u",
                         (uintmax_t)j->id, r);
}

int rp_matcher_release (struct rp_matcher *m, uint64_t jobid,
                        const struct rp_idset *ranks, rp_error_t *error)
{
    struct hold *kept = NULL, *dropped = NULL;
    size_t nkept, ndropped;
    struct rp_rset *R = NULL;
    struct job *j;

    if (!m || !ranks)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (!(j = job_find (m, jobid)))
        return rp_error_set (error, ENOENT, "job %ju holds no resources",
                             (uintmax_t)jobid);
    if (release_check (j, ranks, error) < 0)
        return -1;
    if (rp_idset_empty (ranks))
        return 0;
    if (!(kept = calloc (j->nholds + 1, sizeof (*kept)))
        || !(dropped = calloc (j->nholds + 1, sizeof (*dropped))))
        goto nomem;
    release_split (m, j, ranks, kept, &nkept, dropped, &ndropped);
    if (rp_idset_count (ranks) == rp_rset_ntargets (j->R)) {
        free (kept);
        free (dropped);
        return rp_matcher_free (m, jobid, error);
    }
    if (!(R = rset_build (m->g, kept, nkept, j->starttime, j->expiration,
                          error)))
        goto error;
    (void)holds_put (m, dropped, ndropped);
    free (j->holds);
    rp_rset_destroy (j->R);
    rp_rset_destroy (j->Rjgf);
    j->Rjgf = NULL;
    j->holds = kept;
    j->nholds = nkept;
    j->R = R;
    free (dropped);
    return 0;
nomem:
    rp_error_set (error, ENOMEM, "out of memory");
error:
    free (kept);
    free (dropped);
    return -1;
}

/* --- state ---------------------------------------------------------------- */

static int check_vertex (const struct rp_matcher *m, const struct rp_gstate *s,
                         rp_vertex_t v, uint64_t used, uint32_t shared,
                         rp_error_t *error)
{
    const char *name = rp_graph_vertex_name (m->g, v);

    if (used > rp_graph_vertex_size (m->g, v))
        return rp_error_set (error, EPROTO, "%s: %ju units held of %ju", name,
                             (uintmax_t)used,
                             (uintmax_t)rp_graph_vertex_size (m->g, v));
    if (used && shared)
        return rp_error_set (error, EPROTO, "%s: held exclusively and shared",
                             name);
    if (gstate_used (s, v) != used)
        return rp_error_set (error, EPROTO,
                             "%s: %ju units used, the jobs hold %ju", name,
                             (uintmax_t)gstate_used (s, v), (uintmax_t)used);
    if (gstate_shared (s, v) != shared)
        return rp_error_set (error, EPROTO, "%s: %u sharers, the jobs hold %u",
                             name, gstate_shared (s, v), shared);
    return 0;
}

int rp_matcher_check (const struct rp_matcher *m, rp_error_t *error)
{
    const struct rp_gstate *s;
    uint64_t *used;
    uint32_t *shared;
    int rc = 0;

    if (!m)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    s = graph_live_const (m->g);
    used = calloc (m->nvertices + 1, sizeof (*used));
    shared = calloc (m->nvertices + 1, sizeof (*shared));
    if (!used || !shared) {
        rc = rp_error_set (error, ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < m->njobs; i++)
        for (size_t k = 0; k < m->jobs[i]->nholds; k++) {
            const struct hold *h = &m->jobs[i]->holds[k];
            if (h->exclusive)
                used[h->v] = sat_add (used[h->v], h->amount);
            else
                shared[h->v]++;
        }
    for (rp_vertex_t v = 0; v < m->nvertices && rc == 0; v++)
        rc = check_vertex (m, s, v, used[v], shared[v], error);
    if (rc == 0)
        rc = gstate_check (s, error);
done:
    free (used);
    free (shared);
    return rc;
}

/* Units per type in vertices that are down or drained, or below one. */
static void count_down (const struct rp_matcher *m, uint64_t *down)
{
    rp_vertex_t root = rp_graph_root (m->g);
    rp_vertex_t v = root;

    while (v != RP_VERTEX_NONE) {
        rp_vertex_t next;
        if (rp_graph_vertex_state (m->g, v) == RP_VERTEX_UP) {
            v = subtree_next (m->g, root, v);
            continue;
        }
        for (rp_vertex_t d = v; d != RP_VERTEX_NONE;
             d = subtree_next (m->g, v, d)) {
            int t = rp_graph_vertex_type_index (m->g, d);
            if (t >= 0)
                down[t] += rp_graph_vertex_size (m->g, d);
        }
        /* The next vertex after v's subtree. */
        for (next = RP_VERTEX_NONE; v != root && next == RP_VERTEX_NONE;
             v = rp_graph_parent (m->g, v))
            next = rp_graph_child_next (m->g, v);
        v = next;
    }
}

json_t *rp_matcher_stat (const struct rp_matcher *m)
{
    rp_vertex_t root;
    uint64_t *down;
    json_t *o, *types;

    if (!m) {
        errno = EINVAL;
        return NULL;
    }
    root = rp_graph_root (m->g);
    if (!(down = calloc (m->ntypes + 1, sizeof (*down))))
        return NULL;
    count_down (m, down);
    o = json_pack ("{s:I s:I s:{}}", "jobs", (json_int_t)m->njobs, "vertices",
                   (json_int_t)m->nvertices, "types");
    types = o ? json_object_get (o, "types") : NULL;
    for (size_t t = 0; types && t < m->ntypes; t++) {
        json_t *e = json_pack (
            "{s:I s:I s:I}", "total",
            (json_int_t)rp_graph_subtree_total (m->g, root, (int)t), "free",
            (json_int_t)rp_graph_subtree_free (m->g, root, (int)t), "down",
            (json_int_t)down[t]);
        if (!e
            || json_object_set_new (types, rp_graph_type_name (m->g, (int)t), e)
                   < 0) {
            json_decref (o);
            o = types = NULL;
        }
    }
    free (down);
    if (!o)
        errno = ENOMEM;
    return o;
}

/* --- services for match policies ------------------------------------------ */

const struct rp_graph *rp_match_graph (const struct rp_match *m)
{
    return m ? m->g : NULL;
}

const struct rp_context *rp_match_context (const struct rp_match *m)
{
    return m && m->m->ctx ? m->m->ctx : context_empty ();
}

const struct rp_instance *rp_match_instance (const struct rp_match *m)
{
    return m ? m->m->inst : NULL;
}

void rp_matcher_set_context (struct rp_matcher *m, const struct rp_context *ctx)
{
    if (m)
        m->ctx = ctx;
}

void rp_matcher_set_instance (struct rp_matcher *m,
                              const struct rp_instance *inst)
{
    if (m)
        m->inst = inst;
}

const struct rp_jobspec *rp_match_jobspec (const struct rp_match *m)
{
    return m ? m->js : NULL;
}

const struct rp_jobspec_resource *rp_match_request (const struct rp_match *m)
{
    return m && m->cur ? m->cur->r : NULL;
}

int rp_match_request_type (const struct rp_match *m)
{
    return m && m->cur ? m->cur->t : -1;
}

uint64_t rp_match_count_need (const struct rp_match *m)
{
    if (!m || !m->cur)
        return 0;
    if (m->cur->pool) {
        uint64_t want = to_pool (m->cur, m->cur->min);
        return m->cur->avail >= want ? 0 : want - m->cur->avail;
    }
    return m->found >= m->cur->min ? 0 : m->cur->min - m->found;
}

uint64_t rp_match_unit_need (const struct rp_match *m, int t)
{
    if (!m || !m->cur || t < 0 || (size_t)t >= m->m->ntypes)
        return 0;
    return m->cur->need[t];
}

bool rp_match_is_satisfiability (const struct rp_match *m)
{
    return m && m->sat;
}

uint64_t rp_match_vertex_free (const struct rp_match *m, rp_vertex_t v)
{
    if (!m || v >= m->m->nvertices)
        return 0;
    return gstate_free (m->s, v);
}

uint64_t rp_match_subtree_free (const struct rp_match *m, rp_vertex_t v, int t)
{
    if (!m || v >= m->m->nvertices || t < 0 || (size_t)t >= m->m->ntypes)
        return 0;
    return gstate_agg (m->s, v, t);
}

uint64_t rp_match_held (const struct rp_match *m, rp_vertex_t v, int t)
{
    const uint64_t *row;

    if (!m || !m->track || v >= m->m->nvertices || t < 0
        || (size_t)t >= m->m->ntypes || !(row = held_row (m, v)))
        return 0;
    return row[t];
}

/* --- acquisition (RFC 28) and scheduler restart (RFC 27 hello) ------------
 *
 * What a scheduler fed by the resource acquisition protocol needs beyond
 * allocate and free (core/acquire.c drives these):
 * - rp_matcher_hello makes a job hold exactly the cores and GPUs its R
 *   names, as the job manager's hello replays running jobs.  The holds
 *   are those an allocation of the same cores and GPUs would make
 *   (exclusive units, ancestors shared), applied with the matcher's own
 *   take / rollback, so a failure changes nothing.  A target that is
 *   down or drained now is brought up for the holds and put back: the
 *   state refuses holds below a vertex that is not up, which is right
 *   for new allocations and wrong for jobs that were running before.
 * - rp_matcher_remove_targets takes a target out for good (shrink): down
 *   in the live state, and held whole in the pristine state, so that
 *   satisfiability (decided on the pristine state) no longer counts it.
 * - rp_matcher_set_properties and rp_matcher_set_values let constraints
 *   read properties (and valued ones) that change while the matcher runs.
 */

void rp_matcher_set_properties (struct rp_matcher *m, rp_matcher_property_f fn,
                                void *arg)
{
    if (m) {
        m->propfn = fn;
        m->proparg = fn ? arg : NULL;
    }
}

void rp_matcher_set_values (struct rp_matcher *m, rp_matcher_value_f fn,
                            void *arg)
{
    if (m) {
        m->valfn = fn;
        m->valarg = fn ? arg : NULL;
    }
}

const struct rp_idset *rp_matcher_removed (const struct rp_matcher *m)
{
    return m ? m->removed : NULL;
}

/* The target vertex of rank in R, checked against R's host name. */
static rp_vertex_t hello_target (const struct rp_matcher *m,
                                 const struct rp_rset *R, unsigned int rank,
                                 rp_error_t *error)
{
    rp_vertex_t v = rp_graph_rank_vertex (m->g, rank);
    const char *host = rp_rset_hostname (R, rank);

    if (v == RP_VERTEX_NONE) {
        rp_error_set (error, ENOENT, "rank %u: no such execution target", rank);
        return RP_VERTEX_NONE;
    }
    if (host && strcmp (host, rp_graph_vertex_name (m->g, v)) != 0) {
        rp_error_set (error, ENOENT, "rank %u: host %s, not %s", rank, host,
                      rp_graph_vertex_name (m->g, v));
        return RP_VERTEX_NONE;
    }
    return v;
}

struct saved_state {
    rp_vertex_t v;
    enum rp_vertex_state state;
};

struct hello {
    struct rp_match x;
    struct saved_state *saved; /* vertices brought up for the holds */
    size_t nsaved;
    size_t savedcap;
};

/* Bring v and its ancestors up, remembering what they were. */
static int hello_up (struct hello *h, rp_vertex_t v)
{
    for (; v != RP_VERTEX_NONE; v = rp_graph_parent (h->x.g, v)) {
        enum rp_vertex_state st = rp_graph_vertex_state (h->x.g, v);
        if (st == RP_VERTEX_UP)
            continue;
        if (h->nsaved == h->savedcap
            && grow ((void **)&h->saved, &h->savedcap, sizeof (*h->saved)) < 0)
            return -1;
        h->saved[h->nsaved++] = (struct saved_state){ v, st };
        (void)rp_graph_set_state (h->x.m->g, v, RP_VERTEX_UP, NULL);
    }
    return 0;
}

static void hello_restore (struct hello *h)
{
    while (h->nsaved > 0) {
        struct saved_state *s = &h->saved[--h->nsaved];
        (void)rp_graph_set_state (h->x.m->g, s->v, s->state, NULL);
    }
}

/* Hold v (a core or GPU of rank), exclusive, and its ancestors shared. */
static int hello_take (struct hello *h, rp_vertex_t v, unsigned int rank)
{
    int rc;

    if (hello_up (h, v) < 0)
        return nomem (&h->x);
    rc = take (&h->x, v, rp_graph_vertex_size (h->x.g, v), true, HOLD_UNIT,
               NO_UNIT);
    if (rc > 0)
        rc = hold_ancestors (&h->x, v, NO_UNIT);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return rp_error_set (
            h->x.error, EBUSY, "rank %u (%s): %s%jd is held by another job",
            rank, rp_graph_vertex_name (h->x.g, rp_graph_target (h->x.g, v)),
            rp_graph_vertex_type (h->x.g, v),
            (intmax_t)rp_graph_vertex_id (h->x.g, v));
    return 0;
}

/* The cores (kind 0) or GPUs (kind 1) of ids below target t. */
static int hello_kind (struct hello *h, rp_vertex_t t, unsigned int rank,
                       const char *type, const struct rp_idset *ids)
{
    int ti = rp_graph_type_index (h->x.g, type);
    size_t found = 0, want = rp_idset_count (ids);
    struct rp_idset *seen = rp_idset_create ();
    struct rp_idset *missing;
    int rc = 0;

    if (!seen)
        return nomem (&h->x);
    for (rp_vertex_t v = t; want > 0 && v != RP_VERTEX_NONE && rc == 0;
         v = subtree_next (h->x.g, t, v)) {
        int64_t id = rp_graph_vertex_id (h->x.g, v);
        if (rp_graph_vertex_type_index (h->x.g, v) != ti || id < 0
            || id > UINT32_MAX || !rp_idset_test (ids, (unsigned int)id)
            || rp_idset_test (seen, (unsigned int)id))
            continue;
        if (rp_idset_add (seen, (unsigned int)id) < 0)
            rc = nomem (&h->x);
        else if ((rc = hello_take (h, v, rank)) == 0)
            found++;
    }
    if (rc == 0 && found < want
        && (missing = rp_idset_difference (ids, seen))) {
        rc = rp_error_set (h->x.error, ENOENT, "rank %u (%s): no %s %u", rank,
                           rp_graph_vertex_name (h->x.g, t), type,
                           rp_idset_first (missing));
        rp_idset_destroy (missing);
    } else if (rc == 0 && found < want)
        rc = nomem (&h->x);
    rp_idset_destroy (seen);
    return rc;
}

static int hello_holds (struct hello *h, const struct rp_rset *R)
{
    const struct rp_idset *ranks = rp_rset_ranks (R);

    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r)) {
        rp_vertex_t t = hello_target (h->x.m, R, r, h->x.error);
        if (t == RP_VERTEX_NONE
            || hello_kind (h, t, r, "core", rp_rset_cores (R, r)) < 0
            || hello_kind (h, t, r, "gpu", rp_rset_gpus (R, r)) < 0)
            return -1;
    }
    return 0;
}

int rp_matcher_hello (struct rp_matcher *m, uint64_t jobid,
                      const struct rp_rset *R, rp_error_t *error)
{
    struct hello h = { 0 };
    struct job *j = NULL;

    if (!m || !R)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (job_find (m, jobid))
        return rp_error_set (error, EEXIST, "job %ju already holds resources",
                             (uintmax_t)jobid);
    if (rp_rset_ntargets (R) == 0)
        return rp_error_set (error, EINVAL, "job %ju: R has no targets",
                             (uintmax_t)jobid);
    h.x = (struct rp_match){
        .m = m, .g = m->g, .s = graph_live (m->g), .error = error
    };
    (void)new_epoch (m);
    if (hello_holds (&h, R) < 0)
        goto undo;
    if (!(j = job_create (jobid, h.x.log, h.x.nlog, rp_rset_starttime (R),
                          rp_rset_expiration (R))))
        goto nomem;
    if (!(j->R = rset_build (m->g, j->holds, j->nholds, j->starttime,
                             j->expiration, error)))
        goto undo;
    if (job_insert (m, j) < 0)
        goto nomem;
    hello_restore (&h);
    free (h.x.log);
    free (h.saved);
    return 0;
nomem:
    nomem (&h.x);
undo:
    rollback (&h.x, (struct mark){ 0, 0 });
    hello_restore (&h);
    job_destroy (j);
    free (h.x.log);
    free (h.saved);
    return -1;
}

/* Hold the subtree of v whole in the pristine state. */
static int pristine_take_whole (struct rp_gstate *s, const struct rp_graph *g,
                                rp_vertex_t t)
{
    for (rp_vertex_t v = t; v != RP_VERTEX_NONE; v = subtree_next (g, t, v))
        if (gstate_take (s, v, rp_graph_vertex_size (g, v), true) < 0)
            return -1;
    return 0;
}

int rp_matcher_remove_targets (struct rp_matcher *m,
                               const struct rp_idset *ranks, rp_error_t *error)
{
    struct rp_gstate *s;

    if (!m || !ranks)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r))
        if (rp_graph_rank_vertex (m->g, r) == RP_VERTEX_NONE)
            return rp_error_set (error, ENOENT,
                                 "rank %u: no such execution target", r);
    if ((!m->removed && !(m->removed = rp_idset_create ()))
        || !(s = graph_pristine (m->g)))
        return rp_error_set (error, ENOMEM, "out of memory");
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r)) {
        rp_vertex_t v = rp_graph_rank_vertex (m->g, r);
        if (rp_idset_test (m->removed, r))
            continue;
        if (rp_idset_add (m->removed, r) < 0)
            return rp_error_set (error, ENOMEM, "out of memory");
        (void)rp_graph_set_state (m->g, v, RP_VERTEX_DOWN, NULL);
        if (pristine_take_whole (s, m->g, v) < 0)
            return rp_error_set (error, EPROTO,
                                 "rank %u: the pristine state is in use", r);
    }
    return 0;
}
