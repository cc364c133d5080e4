/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside the matcher only (core/match*.c): the structures of a matcher,
 * of its job records and of one match in progress, and what the matcher's
 * files share.  match.c is the matcher and its entry points,
 * match_request.c turns a jobspec into requests, match_walk.c walks the
 * graph and selects candidates, match_holds.c applies and undoes what a
 * match holds, match_verify.c checks a proposal before
 * it is committed, match_output.c writes R and its scheduling key (and
 * counts what a job holds as R would show it), match_jobs.c keeps the job records (free, release, hello, check,
 * stat), match_reason.c says why a match came out as it did.
 */
#ifndef RESPOL_MATCH_PRIVATE_H
#define RESPOL_MATCH_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "respol/constraint.h"
#include "respol/match.h"

#include "core/graph_private.h"
#include "core/plugin_private.h"

#define NO_UNIT SIZE_MAX

enum hold_kind {
    HOLD_UNIT = 0,     /* the vertex a request unit got */
    HOLD_FILL = 1,     /* below an exclusive unit, taken whole */
    HOLD_POOL = 2,     /* part of a pool amount */
    HOLD_ANCESTOR = 3, /* shared hold of an ancestor */
};

/* Holds of a subtree taken whole in one step (gstate_take_whole): the
 * first, at the subtree's root, is WHOLE_ROOT, the others of the subtree
 * (after it, in pre-order) WHOLE_PART; the root's undo puts them all
 * back (gstate_put_whole), theirs change nothing in the state.  A leaf
 * that the walk takes is logged WHOLE_PART too until the state takes it
 * with the other leaves of its request (match_walk.c, gstate_take_leaves),
 * then WHOLE_NONE. */
enum hold_whole {
    WHOLE_NONE = 0,
    WHOLE_ROOT = 1,
    WHOLE_PART = 2,
};

struct hold {
    rp_vertex_t v;
    uint8_t kind;
    bool exclusive;
    bool marked;   /* this hold set the match mark of v (log only) */
    uint8_t whole; /* enum hold_whole */
    uint64_t amount;
    union {
        size_t unit;   /* index in the unit log (log only) */
        uint64_t span; /* job records in time (match_time.c): its span in
                        * the vertex's planner */
    };
};

struct job {
    uint64_t id;
    struct hold *holds;
    size_t nholds;
    struct rp_rset *R;    /* without the scheduling key: built when first
                           * needed (match_job_R), as allocate returns one */
    struct rp_rset *Rjgf; /* with it: built when asked, until the job changes */
    double starttime;
    double expiration;
    /* In time (match_time.c): the span [tstart, tend) in whole seconds
     * (tend RP_PLANNER_FOREVER: no end), and whether the job is a
     * reservation (its holds are in the planners, not the live state). */
    int64_t tstart;
    int64_t tend;
    bool reserved;
    uint64_t *rspan; /* per type: its span in the graph's planner + 1 */
    uint64_t tspan;  /* its span in the planner of all records + 1 */
};

/* A vertex with more than BIG_PARENT children, and what the fast paths
 * of match_walk.c need to know of them (match.c finds them). */
#define BIG_PARENT 64

struct bigp {
    rp_vertex_t v;
    int type;     /* of every child, -1 when they differ */
    bool targets; /* every child is an execution target */
    bool ids_up;  /* the children's ids (none -1) ascend with their handles */
    bool indexed[2]; /* gstate_index made in the live / pristine state */
};

struct rp_matcher {
    struct rp_graph *g;
    const struct rp_plugin *policy;
    const struct rp_context *ctx;   /* borrowed: rp_matcher_set_context */
    const struct rp_instance *inst; /* borrowed: rp_matcher_set_instance */
    bool explain;                   /* rp_matcher_set_explain */
    bool nosched;                   /* rp_matcher_set_scheduling off */
    bool nohints;                   /* rp_matcher_set_hints off */
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
    uint8_t *hostok; /* per vertex, a bit: its host name was checked */
    uint64_t *vbuf;  /* match_verify's counts, kept between matches */
    size_t vcap;
    int type_core;   /* the type indexes R_lite names (-1: none) */
    int type_gpu;
    uint32_t *hrow;         /* per vertex: its row in hrows */
    uint32_t epoch;
    struct bigp *big; /* ascending vertices */
    size_t nbig;
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
    rp_vertex_t *sub; /* match_take_whole: a subtree in pre-order */
    size_t subcap;
    struct req *rq; /* match_request.c: the requests of the last match */
    size_t rqcap;   /* with each entry's marks kept */
    uint64_t *rqneed;
    size_t rqneedcap;
    const struct rp_jobspec *rqjs; /* the jobspec rq's rqn requests were
                                    * built for (a reference held), NULL: none */
    size_t rqn;
    bool rqprune; /* ... and whether the policy had a prune hook */
    uint64_t *pruned; /* ntypes + 1: a match's, kept for the next */
    size_t *pend; /* match_walk.c: log indexes of leaves not in the state */
    size_t npend;
    size_t pendcap;
    uint64_t *hrows; /* rp_match_held: rows of ntypes counts */
    size_t nhrows;
    size_t hrowcap;
    size_t hsync; /* the log's holds the rows count, in epoch hsepoch */
    uint32_t hsepoch;
    bool hnomem; /* a row could not be made for rp_match_held */
    /* Acquisition (RFC 28): properties that change, removed targets. */
    rp_matcher_property_f propfn;
    void *proparg;
    rp_matcher_value_f valfn;
    void *valarg;
    struct rp_idset *removed;
    /* Time (match_time.c): the latest time given, and the pools' spans
     * (NULL until the first reservation). */
    double now;
    struct mtime *time;
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
    bool leaves;    /* its units are leaves taken together (match_walk.c) */
    bool agg_ok;    /* what is below a unit fits iff the aggregates do */
    bool agg_slot;  /* ... and a slot is below a unit */
    uint64_t min;
    uint64_t max;     /* UINT64_MAX: unbounded */
    bool fixed;       /* min (== max) is the one count acceptable */
    const char *unit; /* pool request unit ("" none) */
    uint64_t rbytes;  /* pool conversion: request unit, pool unit bytes; */
    uint64_t pbytes;  /* both 0: 1:1 */
    struct rp_idset *ids;
    uint64_t *need; /* ntypes: below one unit (pool: the whole amount) */
    uint64_t *walk; /* the need a subtree must show to be walked into */
    struct rp_accum *acc;
    uint64_t limit;     /* stop the search at this many found */
    uint64_t avail;     /* pools: free units found */
    bool in_order;      /* taken in walk order: the policy's order is it */
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
    size_t allcap;    /* entries of all (their marks kept past nreqs) */
    uint64_t *needbuf;
    size_t needcap;
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

static inline uint64_t sat_add (uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t sat_mul (uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

static inline bool is_target (const struct rp_graph *g, rp_vertex_t v)
{
    return rp_graph_target (g, v) == v;
}

static inline struct mark mark_get (const struct rp_match *x)
{
    return (struct mark){ .nlog = x->nlog, .nunits = x->nunits };
}

/* v is held by the match in progress (even as an ancestor). */
static inline bool held (const struct rp_match *x, rp_vertex_t v)
{
    return x->m->mark[v] == x->m->epoch;
}

/* --- what the matcher's files share ----------------------------------- */

/* match.c */
uint32_t match_new_epoch (struct rp_matcher *m);
/* v's entry when it has more than BIG_PARENT children, else NULL. */
struct bigp *match_big_parent (const struct rp_matcher *m, rp_vertex_t v);
struct rp_accum *match_acc_get (struct rp_matcher *m);
void match_acc_put (struct rp_matcher *m, struct rp_accum *a);
const char *match_unit_or_default (const char *type, const char *unit);

/* match_request.c */
int match_reqs_create (struct rp_match *x);
void match_reqs_destroy (struct rp_match *x);
/* Free the requests the matcher keeps between matches. */
void match_reqs_free (struct rp_matcher *m);
uint64_t match_to_pool (const struct req *q, uint64_t v);
uint64_t match_to_request (const struct req *q, uint64_t a);
/* The largest acceptable count of q not above limit (false: none): a
 * fixed count (a slot of 4 cores) inline, without reading the jobspec's
 * range or idset (126 instructions a match); the others through
 * match_count_range. */
bool match_count_range (const struct req *q, uint64_t limit, uint64_t *v);
static inline bool match_count_largest (const struct req *q, uint64_t limit,
                                        uint64_t *v)
{
    if (!q->fixed)
        return match_count_range (q, limit, v);
    if (q->min > limit)
        return false;
    *v = q->min;
    return true;
}

/* match.c: one match's life (setup, find on the live state else say why,
 * cleanup); match_time.c runs them in a window of time. */
/* Arguments, jobid not held, the matcher's time to now: 0, or -1 with
 * EINVAL or EEXIST. */
int match_admit (struct rp_matcher *m, uint64_t jobid,
                 const struct rp_jobspec *js, double now, rp_error_t *error);
int match_setup (struct rp_matcher *m, const struct rp_jobspec *js,
                 struct rp_match *x, rp_error_t *error);
int match_find (struct rp_match *x);
/* Could x's jobspec ever fit (the pristine state)?  0, or -1 with ENODEV
 * and why not (explained), ENOMEM or the policy's failure. */
int match_pristine (struct rp_match *x);
void match_cleanup (struct rp_match *x);
/* The R the caller gets for job j (with the scheduling key unless off);
 * NULL with error set. */
struct rp_rset *match_job_result (struct rp_matcher *m, struct job *j,
                                  rp_error_t *error);

/* match_time.c */
struct mtime;
void match_time_destroy (struct rp_matcher *m);
/* j's span from its start time and expiration. */
void match_time_span (struct job *j);
/* In time: hold job j's spans (a running job pushes reservations in its
 * way); drop them when it is freed; drop those of the holds a release
 * dropped (j->holds: those it keeps). */
int match_time_job_added (struct rp_matcher *m, struct job *j,
                          rp_error_t *error);
void match_time_job_gone (struct rp_matcher *m, struct job *j);
void match_time_released (struct rp_matcher *m, struct job *j,
                          const struct hold *dropped, size_t n);
/* allocate in time: the match at now with reservations in view. */
struct rp_rset *match_time_allocate (struct rp_matcher *m, uint64_t jobid,
                                     const struct rp_jobspec *js, double now,
                                     bool reserve, double *at,
                                     rp_error_t *error);
/* The planners agree with the records and no unit is held twice at any
 * time. */
int match_time_check (const struct rp_matcher *m, rp_error_t *error);

/* match_walk.c */
/* Place every top-level request at the root: 1, 0 or -1. */
int match_run (struct rp_match *x);

/* match_holds.c */
/* ENOMEM with "out of memory" in x->error: -1. */
int match_nomem (struct rp_match *x);
/* Double *cap (64 the first time), growing *p of elements of size. */
int match_grow (void **p, size_t *cap, size_t size);
/* Hold v: 1 done, 0 refused by the state, -1 out of memory. */
int match_take (struct rp_match *x, rp_vertex_t v, uint64_t amount,
                bool exclusive, int kind, size_t unit);
/* Hold v's ancestors shared, up to one this match already holds. */
int match_hold_ancestors (struct rp_match *x, rp_vertex_t v, size_t unit);
/* Hold c and everything below it exclusively, whole. */
int match_take_whole (struct rp_match *x, rp_vertex_t c, size_t unit);
/* The end of the subtree held whole whose root is h[i] (WHOLE_ROOT): the
 * index after the parts logged after it (WHOLE_PART), h of n holds. */
size_t match_whole_end (const struct hold *h, size_t i, size_t n);
/* Log leaf c held exclusively, whole, as match_take_whole would, without
 * the state (the caller takes it, gstate_take_leaves, and marks its hold
 * WHOLE_NONE): 1, or -1 out of memory. */
int match_take_logged (struct rp_match *x, rp_vertex_t c, size_t unit);
/* Undo holds down to nlog / holds and units down to mk. */
void match_holds_rollback (struct rp_match *x, size_t nlog);
void match_rollback (struct rp_match *x, struct mark mk);
/* A unit record: its index, NO_UNIT out of memory. */
size_t match_unit_push (struct rp_match *x, struct req *q, rp_vertex_t v,
                        size_t parent, uint64_t value);
/* The rp_match_held row of v, NULL when none this match. */
uint64_t *match_held_row (const struct rp_match *x, rp_vertex_t v);
/* Bring the rows up to the log (they follow it only when asked): 0, or
 * -1 out of memory (the rows count the holds before the one that
 * failed). */
int match_held_sync (const struct rp_match *x);
/* Pre-order successor of v within the subtree of root (past v's subtree:
 * skip). */
rp_vertex_t match_subtree_next (const struct rp_graph *g, rp_vertex_t root,
                                rp_vertex_t v);
rp_vertex_t match_subtree_skip (const struct rp_graph *g, rp_vertex_t root,
                                rp_vertex_t v);

/* match_verify.c */
int match_verify (struct rp_match *x);

/* match_output.c */
struct rp_rset *match_rset_build (const struct rp_matcher *m,
                                  const struct hold *holds, size_t n,
                                  double start, double expiration,
                                  rp_error_t *error);
struct rp_rset *match_rset_with_scheduling (const struct rp_matcher *m,
                                            struct job *j);
/* The job's R without the scheduling key, built on first use; NULL on
 * ENOMEM. */
const struct rp_rset *match_job_R (const struct rp_matcher *m, struct job *j);
/* Check the host names of j's targets as R would (cached per vertex):
 * 0, or -1 with error set. */
int match_job_hosts_check (const struct rp_matcher *m, const struct job *j,
                           rp_error_t *error);

/* match_jobs.c */
struct job *match_job_find (const struct rp_matcher *m, uint64_t jobid);
/* The job, else NULL with ENOENT "job 3 holds no resources". */
struct job *match_job_get (const struct rp_matcher *m, uint64_t jobid,
                           rp_error_t *error);
struct job *match_job_create (uint64_t jobid, const struct hold *log, size_t n,
                              double start, double expiration);
int match_job_insert (struct rp_matcher *m, struct job *j);
void match_job_remove (struct rp_matcher *m, uint64_t jobid);
void match_job_destroy (struct job *j);

/* match_reason.c */
/* Why x->failed did not fit, busy: on the live state. */
void match_reason (const struct rp_match *x, bool busy, char *buf, size_t size);
const char *match_type_word (const char *type, uint64_t n, char *buf,
                             size_t size);
bool match_count_fixed (const struct req *q);
json_t *match_explain_json (const struct rp_match *x, const char *outcome,
                            const char *why);
void match_explain_keep (struct rp_matcher *m, json_t *o);
void match_explain_run (struct rp_match *x, const char *outcome,
                        const char *why);

/* --- the holds logged in place (match_holds.c, match_walk.c) ---------- */

/* Log v held as take () logs it, x->log having room for it: the walk's
 * run of leaves writes its holds here without a call per leaf. */
static inline void match_log_hold (struct rp_match *x, rp_vertex_t v,
                                   uint64_t amount, bool exclusive, int kind,
                                   size_t unit, uint8_t whole)
{
    struct hold *h = &x->log[x->nlog++];

    *h = (struct hold){ .v = v,
                        .kind = (uint8_t)kind,
                        .exclusive = exclusive,
                        .whole = whole,
                        .amount = amount,
                        .unit = unit };
    if (!held (x, v)) {
        x->m->mark[v] = x->m->epoch;
        h->marked = true;
    }
}

/* --- a job record and the R allocate returns, one block ----------------- */

#include <stdatomic.h>

/* match_jobs.c */
/* match_job_create, with room in the job's block for the R that
 * rp_matcher_allocate returns (match_job_rset). */
struct job *match_job_create_with_R (uint64_t jobid, const struct hold *log,
                                     size_t n, double start,
                                     double expiration);
/* Where j's R may be made (rset_create_one's mem and block: j's block,
 * which begins with its count of references), taken once; NULL: j has
 * none (left). */
void *match_job_room (struct job *j, atomic_size_t **block);
/* Free j's record (match_job_destroy's last step): its block, once the R
 * made in it is destroyed too. */
void match_job_free (struct job *j);

/* match_output.c */
/* match_rset_build of j's holds and times, in j's room when it has one. */
struct rp_rset *match_job_rset (const struct rp_matcher *m, struct job *j,
                                rp_error_t *error);

#endif
