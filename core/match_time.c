/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The matcher in time: pools that know their future (RFC 4: a pool's
 * "scheduling state data such as job allocations and reservations"), job
 * records with a span (RFC 14 attributes.system.duration), reservations.
 *
 * Every vertex a job record holds gets, once the matcher is in time (its
 * first reservation), two planners (respol/planner.h), created when a
 * record first holds the vertex: the units held exclusively over time
 * (total: the vertex's size) and the holds that share it (total 2^32).
 * Each hold of a record is one span in one of them, [tstart, tend) in
 * whole seconds, no end for a job without duration.  "Are n units of v
 * free on [t, t+d)" is then a question to v's planners, O(log spans).
 * Memory: 16 bytes a vertex for the two planner pointers once in time,
 * a planner's header per vertex held, and at most 136 bytes per hold
 * (core/planner.c); a matcher never given a reservation has none of it.
 *
 * The walk (match_walk.c) reads the live state, its aggregates, block
 * summaries and class indexes, and is left as it is: a match in the
 * window [t, t+d) runs on the live state set, for the vertices whose
 * holds differ between now and the window, to what the planners say of
 * the window (window_apply): the most units held exclusively at any time
 * of it, shared when some hold shares it, taken whole when both happen
 * at different times.  The aggregates and summaries follow
 * (gstate_set_counts), so pruning and the policies see candidates free
 * for the whole window, and a scoring policy keeps its ABI.  The
 * vertices that differ are those of the reservations that overlap the
 * window and of the running jobs that end before it; after the match the
 * state is set back.
 *
 * Decisions (doc/conformance.md, "Time"):
 * - The live state holds the running jobs; a reservation is a job record
 *   whose holds are in the planners only.  It does not start by itself:
 *   when its time comes the caller frees it and allocates the job (a
 *   scheduling pass rebuilds its reservations, as Fluxion's queue does).
 * - The earliest start is now or the end of some span: the union of what
 *   is held over a window only shrinks when a span ends, so those are the
 *   only times to try.
 * - A running job past its end keeps its resources: rp_matcher_set_time
 *   takes it to end one second after now, rp_matcher_run_late to the end
 *   given.  A reservation in its way is pushed: it keeps its resources
 *   and moves to the earliest time they are all free again; the
 *   reservations that start after it are placed again after it, in their
 *   order, so that a pushed one does not fall behind those that came
 *   after it; one that no time can hold (a job without end in its way)
 *   is cancelled.
 * - Freeing a running job drops its spans whole: no question is ever
 *   asked about a time before now.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "respol/planner.h"

#include "core/match_private.h"

#define FOREVER RP_PLANNER_FOREVER
#define SHARERS ((uint64_t)1 << 32)

struct wsave {
    rp_vertex_t v;
    uint64_t used;
    uint32_t shared;
};

struct mtime {
    struct rp_planner **xp;   /* per vertex: units held exclusively */
    struct rp_planner **sp;   /* per vertex: holds sharing it */
    struct rp_planner **root; /* per type: units held exclusively */
    struct rp_planner *all;   /* every record, one unit each */
    uint64_t *amount;         /* per type: scratch */
    uint32_t *mark;           /* per vertex: window_apply's epoch */
    uint32_t epoch;
    struct wsave *saved; /* what window_apply changed, to set back */
    size_t nsaved;
    size_t savedcap;
};

/* --- seconds ---------------------------------------------------------- */

static int64_t to_sec (double x, bool up)
{
    if (!(x > 0))
        return 0;
    if (x >= 9.0e18)
        return FOREVER - 1;
    return (int64_t)(up ? ceil (x) : floor (x));
}

static int64_t span_len (int64_t start, int64_t end)
{
    return end == FOREVER ? FOREVER : end - start;
}

static int64_t window_end (int64_t t, int64_t d)
{
    return d >= FOREVER - t ? FOREVER : t + d;
}

static int64_t tnow (const struct rp_matcher *m)
{
    return to_sec (m->now, false);
}

void match_time_span (struct job *j)
{
    j->tstart = to_sec (j->starttime, false);
    j->tend = j->expiration > 0 ? to_sec (j->expiration, true) : FOREVER;
    if (j->tend <= j->tstart)
        j->tend = j->tstart + 1;
}

/* --- the pools' planners ---------------------------------------------- */

static struct rp_planner **pool_slot (const struct rp_matcher *m,
                                      const struct hold *h)
{
    return h->exclusive ? &m->time->xp[h->v] : &m->time->sp[h->v];
}

/* Units of v held exclusively / holds sharing v, the most at any time
 * of [t, e). */
static uint64_t x_during (const struct rp_matcher *m, rp_vertex_t v, int64_t t,
                          int64_t e)
{
    const struct rp_planner *p = m->time->xp[v];
    return p ? rp_planner_total (p)
                   - rp_planner_free_during (p, t, span_len (t, e))
             : 0;
}

static uint64_t s_during (const struct rp_matcher *m, rp_vertex_t v, int64_t t,
                          int64_t e)
{
    const struct rp_planner *p = m->time->sp[v];
    return p ? SHARERS - rp_planner_free_during (p, t, span_len (t, e)) : 0;
}

static void vspans_remove (struct rp_matcher *m, const struct hold *h, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct rp_planner *p = *pool_slot (m, &h[i]);
        if (p)
            (void)rp_planner_remove (p, h[i].span, NULL);
    }
}

/* Hold j's spans in its vertices' planners: 0, or -1 (nothing held) with
 * errno EBUSY or ENOMEM. */
static int vspans_add (struct rp_matcher *m, struct job *j)
{
    int64_t len = span_len (j->tstart, j->tend);

    for (size_t i = 0; i < j->nholds; i++) {
        struct hold *h = &j->holds[i];
        struct rp_planner **pp = pool_slot (m, h);
        uint64_t total =
            h->exclusive ? rp_graph_vertex_size (m->g, h->v) : SHARERS;
        if (!*pp && !(*pp = rp_planner_create (total, NULL)))
            goto undo;
        if (rp_planner_add (*pp, j->tstart, len, h->exclusive ? h->amount : 1,
                            &h->span, NULL)
            < 0)
            goto undo;
        continue;
    undo:
        vspans_remove (m, j->holds, i);
        return -1;
    }
    return 0;
}

/* j's spans in the planners of the whole graph: per type, the units it
 * holds exclusively (a bound for pruning the times to try), and one in
 * the planner of all records (the times at which something changes). */
static void jspans_remove (struct rp_matcher *m, struct job *j)
{
    struct mtime *T = m->time;

    for (size_t t = 0; j->rspan && t < m->ntypes; t++)
        if (j->rspan[t])
            (void)rp_planner_remove (T->root[t], j->rspan[t] - 1, NULL);
    if (j->rspan)
        memset (j->rspan, 0, m->ntypes * sizeof (*j->rspan));
    if (j->tspan)
        (void)rp_planner_remove (T->all, j->tspan - 1, NULL);
    j->tspan = 0;
}

static int jspans_add (struct rp_matcher *m, struct job *j)
{
    struct mtime *T = m->time;
    int64_t len = span_len (j->tstart, j->tend);
    uint64_t id;

    if (!j->rspan && !(j->rspan = calloc (m->ntypes + 1, sizeof (*j->rspan))))
        return -1;
    memset (T->amount, 0, m->ntypes * sizeof (*T->amount));
    for (size_t i = 0; i < j->nholds; i++) {
        int t = rp_graph_vertex_type_index (m->g, j->holds[i].v);
        if (j->holds[i].exclusive && t >= 0)
            T->amount[t] += j->holds[i].amount;
    }
    for (size_t t = 0; t < m->ntypes; t++) {
        if (!T->amount[t] || !T->root[t])
            continue;
        if (rp_planner_add (T->root[t], j->tstart, len, T->amount[t], &id, NULL)
            < 0)
            goto undo;
        j->rspan[t] = id + 1;
    }
    if (rp_planner_add (T->all, j->tstart, len, 1, &id, NULL) < 0)
        goto undo;
    j->tspan = id + 1;
    return 0;
undo:
    jspans_remove (m, j);
    return -1;
}

static int spans_add (struct rp_matcher *m, struct job *j)
{
    if (vspans_add (m, j) < 0)
        return -1;
    if (jspans_add (m, j) == 0)
        return 0;
    vspans_remove (m, j->holds, j->nholds);
    return -1;
}

static void spans_remove (struct rp_matcher *m, struct job *j)
{
    vspans_remove (m, j->holds, j->nholds);
    jspans_remove (m, j);
}

void match_time_job_gone (struct rp_matcher *m, struct job *j)
{
    if (m->time)
        spans_remove (m, j);
}

void match_time_released (struct rp_matcher *m, struct job *j,
                          const struct hold *dropped, size_t n)
{
    if (!m->time)
        return;
    vspans_remove (m, dropped, n);
    jspans_remove (m, j);
    (void)jspans_add (m, j);
}

/* The earliest time >= t at which hold h fits for d seconds, in *at. */
static int hold_earliest (const struct rp_matcher *m, const struct hold *h,
                          int64_t t, int64_t d, int64_t *at)
{
    const struct rp_planner *xp = m->time->xp[h->v], *sp = m->time->sp[h->v];
    uint64_t size = rp_graph_vertex_size (m->g, h->v);
    int64_t a = t, b = t;

    if (xp
        && rp_planner_earliest (xp, t, d, h->exclusive ? h->amount : size, &a,
                                NULL)
               < 0)
        return -1;
    if (h->exclusive && sp
        && rp_planner_earliest (sp, t, d, SHARERS, &b, NULL) < 0)
        return -1;
    *at = a > b ? a : b;
    return 0;
}

/* The first time after t at which the use of a vertex j holds changes. */
static int64_t next_change (const struct rp_matcher *m, const struct job *j,
                            int64_t t)
{
    int64_t best = FOREVER, n;

    for (size_t i = 0; i < j->nholds; i++) {
        const struct rp_planner *p = *pool_slot (m, &j->holds[i]);
        if (p && rp_planner_next_change (p, t, &n) && n < best)
            best = n;
    }
    return best;
}

/* Place reservation j (its spans not held) at the earliest time >= t at
 * which all its holds fit; its R follows.  -1 when no time can hold it. */
static int push_place (struct rp_matcher *m, struct job *j, int64_t t)
{
    int64_t d = span_len (j->tstart, j->tend), at, e;

    for (;;) {
        at = t;
        for (size_t i = 0; i < j->nholds; i++) {
            if (hold_earliest (m, &j->holds[i], t, d, &e) < 0)
                return -1;
            at = e > at ? e : at;
        }
        if (at == t) {
            j->tstart = t;
            j->tend = window_end (t, d);
            if (spans_add (m, j) == 0)
                break;
            if (errno != EBUSY || (at = next_change (m, j, t)) == FOREVER)
                return -1;
        }
        t = at;
    }
    j->starttime = (double)j->tstart;
    if (j->expiration > 0)
        j->expiration = (double)j->tend;
    rp_rset_destroy (j->R);
    rp_rset_destroy (j->Rjgf);
    j->R = j->Rjgf = NULL;
    return 0;
}

static int by_start (const void *a, const void *b)
{
    const struct job *x = *(struct job *const *)a, *y = *(struct job *const *)b;
    if (x->tstart != y->tstart)
        return x->tstart < y->tstart ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Does reservation r hold a vertex marked in this epoch? */
static bool shares_marked (const struct rp_matcher *m, const struct job *r)
{
    for (size_t k = 0; k < r->nholds; k++)
        if (m->time->mark[r->holds[k].v] == m->time->epoch)
            return true;
    return false;
}

/* The earliest start of the reservations in the way of running job j
 * (holding one of its vertices during its span); FOREVER: none. */
static int64_t first_in_way (struct rp_matcher *m, const struct job *j)
{
    struct mtime *T = m->time;
    int64_t first = FOREVER;

    if (++T->epoch == 0)
        memset (T->mark, 0, m->nvertices * sizeof (*T->mark)), T->epoch = 1;
    for (size_t i = 0; i < j->nholds; i++)
        T->mark[j->holds[i].v] = T->epoch;
    for (size_t i = 0; i < m->njobs; i++) {
        const struct job *r = m->jobs[i];
        if (r->reserved && r->tstart < j->tend && r->tend > j->tstart
            && r->tstart < first && shares_marked (m, r))
            first = r->tstart;
    }
    return first;
}

/* Running job j's spans (not held) go in.  The reservations in their way
 * and all that start after the first of those are lifted and placed
 * again in the order of their starts, each at the earliest time from its
 * own: a pushed reservation stays ahead of those that came after it. */
static int job_force (struct rp_matcher *m, struct job *j)
{
    struct job **lifted = calloc (m->njobs + 1, sizeof (*lifted));
    int64_t first = first_in_way (m, j);
    size_t n = 0;
    int rc = -1;

    if (!lifted)
        return -1;
    for (size_t i = 0; i < m->njobs && first < FOREVER; i++) {
        struct job *r = m->jobs[i];
        if (r->reserved && r->tstart >= first) {
            spans_remove (m, r);
            lifted[n++] = r;
        }
    }
    if (spans_add (m, j) < 0) {
        for (size_t i = 0; i < n; i++)
            (void)spans_add (m, lifted[i]);
        goto done;
    }
    qsort (lifted, n, sizeof (*lifted), by_start);
    for (size_t i = 0; i < n; i++)
        if (push_place (m, lifted[i], lifted[i]->tstart) < 0)
            match_job_remove (m, lifted[i]->id);
    rc = 0;
done:
    free (lifted);
    return rc;
}

int match_time_job_added (struct rp_matcher *m, struct job *j,
                          rp_error_t *error)
{
    if (!m->time || j->reserved)
        return 0;
    if (j->tend <= tnow (m))
        j->tend = tnow (m) + 1;
    if (job_force (m, j) < 0)
        return rp_error_set (error, errno == ENOMEM ? ENOMEM : EPROTO,
                             "job %ju: its spans do not fit the planners",
                             (uintmax_t)j->id);
    return 0;
}

/* Running job j now ends at e (> its end): its spans move, reservations
 * in the way are pushed. */
static int job_extend (struct rp_matcher *m, struct job *j, int64_t e)
{
    int64_t old = j->tend;

    spans_remove (m, j);
    j->tend = e;
    if (job_force (m, j) == 0)
        return 0;
    j->tend = old;
    (void)spans_add (m, j);
    return -1;
}

/* Running jobs past their end at now keep their resources a second
 * more. */
static int time_advance (struct rp_matcher *m, rp_error_t *error)
{
    int64_t t = tnow (m);
    size_t n = 0;
    uint64_t *late;
    int rc = 0;

    if (!m->time)
        return 0;
    if (!(late = calloc (m->njobs + 1, sizeof (*late))))
        return rp_error_set (error, ENOMEM, "out of memory");
    for (size_t i = 0; i < m->njobs; i++)
        if (!m->jobs[i]->reserved && m->jobs[i]->tend <= t)
            late[n++] = m->jobs[i]->id;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct job *j = match_job_find (m, late[i]);
        if (j && job_extend (m, j, t + 1) < 0)
            rc = rp_error_set (error, ENOMEM, "out of memory");
    }
    free (late);
    return rc;
}

void match_time_destroy (struct rp_matcher *m)
{
    struct mtime *T = m->time;

    if (!T)
        return;
    for (size_t v = 0; v < m->nvertices && T->xp && T->sp; v++) {
        rp_planner_destroy (T->xp[v]);
        rp_planner_destroy (T->sp[v]);
    }
    for (size_t t = 0; t < m->ntypes && T->root; t++)
        rp_planner_destroy (T->root[t]);
    for (size_t i = 0; i < m->njobs; i++) {
        free (m->jobs[i]->rspan);
        m->jobs[i]->rspan = NULL;
        m->jobs[i]->tspan = 0;
    }
    rp_planner_destroy (T->all);
    free (T->root);
    free (T->amount);
    free (T->xp);
    free (T->sp);
    free (T->mark);
    free (T->saved);
    free (T);
    m->time = NULL;
}

/* The planners of the whole graph: per type, its units. */
static int roots_create (struct rp_matcher *m)
{
    struct mtime *T = m->time;

    if (!(T->root = calloc (m->ntypes + 1, sizeof (*T->root)))
        || !(T->amount = calloc (m->ntypes + 1, sizeof (*T->amount)))
        || !(T->all = rp_planner_create (RP_PLANNER_TOTAL_MAX, NULL)))
        return -1;
    for (rp_vertex_t v = 0; v < m->nvertices; v++) {
        int t = rp_graph_vertex_type_index (m->g, v);
        if (t >= 0)
            T->amount[t] =
                sat_add (T->amount[t], rp_graph_vertex_size (m->g, v));
    }
    for (size_t t = 0; t < m->ntypes; t++) {
        uint64_t total = T->amount[t] < RP_PLANNER_TOTAL_MAX
                             ? T->amount[t]
                             : RP_PLANNER_TOTAL_MAX;
        if (total && !(T->root[t] = rp_planner_create (total, NULL)))
            return -1;
    }
    return 0;
}

/* Into time: the planners, with the spans of the running jobs. */
static int time_start (struct rp_matcher *m, rp_error_t *error)
{
    int64_t t = tnow (m);
    struct mtime *T;

    if (m->time)
        return 0;
    if (!(m->time = T = calloc (1, sizeof (*T))))
        return rp_error_set (error, ENOMEM, "out of memory");
    if (!(T->xp = calloc (m->nvertices + 1, sizeof (*T->xp)))
        || !(T->sp = calloc (m->nvertices + 1, sizeof (*T->sp)))
        || !(T->mark = calloc (m->nvertices + 1, sizeof (*T->mark)))
        || roots_create (m) < 0)
        goto nomem;
    for (size_t i = 0; i < m->njobs; i++) {
        struct job *j = m->jobs[i];
        if (j->tend <= t)
            j->tend = t + 1;
        if (spans_add (m, j) < 0)
            goto nomem;
    }
    return 0;
nomem:
    match_time_destroy (m);
    return rp_error_set (error, ENOMEM, "out of memory");
}

/* --- a window of time on the live state --------------------------------- */

/* Vertex v's state in the window [t, e) from its planners, where the
 * hold h of job j that led to v does not answer without asking.  When j
 * is a reservation that overlaps the window: held whole by it, v is held
 * whole; shared, v is shared (how many share does not matter).  When j
 * is a running job that ends before the window and held v whole, v is
 * free: no running job can take it before j ends, and no reservation in
 * the window holds it (window_apply walks those first). */
static int window_vertex (struct rp_matcher *m, rp_vertex_t v, int64_t t,
                          int64_t e, const struct job *j, const struct hold *h)
{
    struct mtime *T = m->time;
    struct rp_gstate *s = graph_live (m->g);
    uint64_t size = rp_graph_vertex_size (m->g, v), ex, sh;

    if (h->exclusive && h->amount >= size)
        ex = j->reserved ? size : 0, sh = 0;
    else {
        ex = x_during (m, v, t, e);
        sh = j->reserved && !h->exclusive ? 1 : s_during (m, v, t, e);
    }
    uint64_t used0 = gstate_used (s, v), used = ex;
    uint32_t sh0 = gstate_shared (s, v), shared = 0;

    if (ex && sh)
        used = size;
    else if (sh)
        shared = sh0 ? sh0 : 1;
    if (used == used0 && shared == sh0)
        return 0;
    if (T->nsaved == T->savedcap
        && match_grow ((void **)&T->saved, &T->savedcap, sizeof (*T->saved))
               < 0)
        return -1;
    T->saved[T->nsaved++] = (struct wsave){ v, used0, sh0 };
    gstate_set_counts (s, v, used, shared);
    return 0;
}

static void window_revert (struct rp_matcher *m)
{
    struct mtime *T = m->time;
    struct rp_gstate *s = graph_live (m->g);

    while (T->nsaved > 0) {
        struct wsave *w = &T->saved[--T->nsaved];
        gstate_set_counts (s, w->v, w->used, w->shared);
    }
}

/* The vertices job j holds, not yet marked, to the window [t, e): -1
 * ENOMEM. */
static int window_job (struct rp_matcher *m, const struct job *j, int64_t t,
                       int64_t e)
{
    struct mtime *T = m->time;

    for (size_t k = 0; k < j->nholds; k++) {
        rp_vertex_t v = j->holds[k].v;
        if (T->mark[v] == T->epoch)
            continue;
        T->mark[v] = T->epoch;
        if (window_vertex (m, v, t, e, j, &j->holds[k]) < 0)
            return -1;
    }
    return 0;
}

/* Set the live state to what [t, e) holds: the vertices of reservations
 * that overlap it (first: their holds answer for most without asking
 * the planners) and of running jobs that end before it.  -1: ENOMEM
 * (set back). */
static int window_apply (struct rp_matcher *m, int64_t t, int64_t e)
{
    struct mtime *T = m->time;

    if (++T->epoch == 0)
        memset (T->mark, 0, m->nvertices * sizeof (*T->mark)), T->epoch = 1;
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < m->njobs; i++) {
            const struct job *j = m->jobs[i];
            bool in = pass == 0 ? j->reserved && j->tstart < e && j->tend > t
                                : !j->reserved && j->tend <= t;
            if (in && window_job (m, j, t, e) < 0) {
                window_revert (m);
                return -1;
            }
        }
    return 0;
}

/* --- allocate, or else reserve ---------------------------------------- */

/* What the top-level requests need in all, per type, in T->amount. */
static void need_total (const struct rp_match *x)
{
    uint64_t *need = x->m->time->amount;

    memset (need, 0, x->m->ntypes * sizeof (*need));
    for (const struct req *q = x->reqs; q; q = q->next)
        for (size_t t = 0; t < x->m->ntypes; t++)
            need[t] =
                sat_add (need[t], sat_mul (q->pool ? 1 : q->min, q->need[t]));
}

/* The earliest time >= c at which the graph holds the units need_total
 * says free for d seconds: no match starts before (a bound: the graph's
 * planners count exclusive holds only).  -1: no time. */
static int lower_bound (const struct rp_matcher *m, int64_t c, int64_t d,
                        int64_t *lb)
{
    const struct mtime *T = m->time;
    int64_t e;

    *lb = c;
    for (size_t t = 0; t < m->ntypes; t++) {
        if (!T->amount[t] || !T->root[t])
            continue;
        if (rp_planner_earliest (T->root[t], c, d, T->amount[t], &e, NULL) < 0)
            return -1;
        *lb = e > *lb ? e : *lb;
    }
    return 0;
}

/* Whether x could ever fit, unless *known: 0, or -1 with ENODEV (never)
 * or the policy's failure. */
static int ever_fits (struct rp_match *x, bool *known)
{
    if (*known)
        return 0;
    *known = true;
    return match_pristine (x);
}

/* Try the windows that start when something changes after t (the ends
 * of spans among them), each time from the bound on: the first that
 * holds the match leaves it held and the window applied, in *at.
 * Unless known, whether the job could ever fit is asked (a walk of the
 * pristine graph) only when the first window does not hold it: the
 * bound makes that rare, and a job that never fits is told apart
 * (ENODEV) before the other windows are walked. */
static int reserve_search (struct rp_match *x, int64_t t, int64_t d,
                           const char *why, bool known, int64_t *at)
{
    struct rp_matcher *m = x->m;
    int64_t c = t;
    int rc = 0;

    need_total (x);
    while (rc == 0 && rp_planner_next_change (m->time->all, c, &c)) {
        int64_t lb;
        if (lower_bound (m, c, d, &lb) < 0)
            break;
        c = lb;
        if (window_apply (m, c, window_end (c, d)) < 0)
            return match_nomem (x);
        x->s = graph_live (m->g);
        x->sat = false;
        if ((rc = match_run (x)) > 0)
            *at = c;
        else
            window_revert (m);
        if (rc == 0 && ever_fits (x, &known) < 0)
            return -1;
    }
    if (rc == 0 && ever_fits (x, &known) < 0)
        return -1;
    if (rc == 0)
        return rp_error_set (x->error, EBUSY,
                             "%s; no later time either: what holds it has no "
                             "end",
                             why);
    return rc > 0 ? 0 : -1;
}

/* Hold j's holds in the live state (they fit: the window was a superset
 * of now). */
static int live_take (struct rp_matcher *m, const struct job *j)
{
    struct rp_gstate *s = graph_live (m->g);

    for (size_t i = 0; i < j->nholds; i++)
        if (gstate_take (s, j->holds[i].v, j->holds[i].amount,
                         j->holds[i].exclusive)
            < 0) {
            while (i-- > 0)
                (void)gstate_put (s, j->holds[i].v, j->holds[i].amount,
                                  j->holds[i].exclusive);
            return -1;
        }
    return 0;
}

/* The match is held in the window [t, ...): j's record, the window set
 * back, j in the live state (running) or the planners only (reserved). */
static void live_put (struct rp_matcher *m, const struct job *j)
{
    for (size_t i = j->nholds; i > 0; i--)
        (void)gstate_put (graph_live (m->g), j->holds[i - 1].v,
                          j->holds[i - 1].amount, j->holds[i - 1].exclusive);
}

/* The match is held in the window [t, ...): j's record, the window set
 * back, j in the live state (running) or the planners only (reserved).
 * A match at now in a window that changed nothing keeps its holds. */
static struct job *commit (struct rp_match *x, uint64_t jobid, int64_t t,
                           double start, double duration)
{
    struct rp_matcher *m = x->m;
    bool keep = t <= tnow (m) && m->time->nsaved == 0;
    struct job *j;

    j = match_job_create (jobid, x->log, x->nlog, start,
                          duration > 0 ? start + duration : 0);
    if (!keep || !j) {
        match_rollback (x, (struct mark){ 0, 0 });
        window_revert (m);
    }
    if (!j) {
        match_nomem (x);
        return NULL;
    }
    j->reserved = t > tnow (m);
    if (!j->reserved && j->tend <= tnow (m))
        j->tend = tnow (m) + 1; /* given a now before the matcher's: late */
    if (j->reserved) {
        j->tstart = t;
        j->tend =
            duration > 0 ? window_end (t, to_sec (duration, true)) : FOREVER;
    }
    if (!j->reserved && !keep && live_take (m, j) < 0)
        goto refused;
    if (spans_add (m, j) < 0) {
        if (!j->reserved)
            live_put (m, j);
        goto refused;
    }
    return j;
refused:
    rp_error_set (x->error, errno == ENOMEM ? ENOMEM : EPROTO,
                  "job %ju: the state refused the window's match",
                  (uintmax_t)jobid);
    match_job_destroy (j);
    return NULL;
}

/* Now, in the window [t, t+d) (the job's span), else (reserve) the
 * earliest time later: the match held in its window, the start in
 * *start.  Where the graph's planners show that the job cannot start
 * now, no walk at now: the later windows are tried. */
static int find_start (struct rp_match *x, bool reserve, int64_t t, int64_t d,
                       double duration, int64_t *start)
{
    struct rp_matcher *m = x->m;
    char why[RP_ERROR_TEXT_SIZE] = "not satisfiable now";
    int64_t dr = duration > 0 ? to_sec (duration, true) : FOREVER, lb = t;

    if (reserve) {
        need_total (x);
        if (lower_bound (m, t, d, &lb) < 0)
            lb = t;
    }
    if (lb > t)
        return reserve_search (x, t, dr, why, false, start);
    if (window_apply (m, t, window_end (t, d)) < 0)
        return match_nomem (x);
    if (match_find (x) == 0)
        return 0;
    window_revert (m);
    if (!reserve || errno != EBUSY)
        return -1;
    if (x->error)
        snprintf (why, sizeof (why), "%s", x->error->text);
    return reserve_search (x, t, dr, why, true, start);
}

/* The length of the window a job of duration allocated at now gets:
 * [floor (now), ceil (now + duration)), at least a second. */
static int64_t window_len (const struct rp_matcher *m, double now,
                           double duration)
{
    int64_t d =
        duration > 0 ? to_sec (now + duration, true) - tnow (m) : FOREVER;

    return d < 1 ? 1 : d;
}

/* Allocate at now, or else (reserve) at the earliest time: 0 with job
 * jobid's record in, its R in *R; R NULL: none built (the host names
 * checked instead, as rp_matcher_allocate_held does).  -1 with error. */
static int time_allocate (struct rp_matcher *m, uint64_t jobid,
                          const struct rp_jobspec *js, double now, bool reserve,
                          double *at, struct rp_rset **R, rp_error_t *error)
{
    struct rp_match x = { 0 };
    double duration = rp_jobspec_duration (js);
    int64_t t = tnow (m), d = window_len (m, now, duration), start = t;
    struct job *j = NULL;
    int rc = -1;

    if (time_advance (m, error) < 0 || match_setup (m, js, &x, error) < 0
        || find_start (&x, reserve, t, d, duration, &start) < 0)
        goto done;
    if (match_verify (&x) < 0) {
        match_rollback (&x, (struct mark){ 0, 0 });
        window_revert (m);
        goto done;
    }
    if (!(j = commit (&x, jobid, start, start > t ? (double)start : now,
                      duration)))
        goto done;
    if (R ? !(*R = match_job_result (m, j, error))
          : match_job_hosts_check (m, j, error) < 0)
        goto undo;
    if (match_job_insert (m, j) < 0) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto undo;
    }
    if (at)
        *at = j->starttime;
    rc = 0;
    goto done;
undo:
    spans_remove (m, j);
    if (!j->reserved)
        live_put (m, j);
    if (R) {
        rp_rset_destroy (*R);
        *R = NULL;
    }
    match_job_destroy (j);
done:
    match_cleanup (&x);
    return rc;
}

struct rp_rset *match_time_allocate (struct rp_matcher *m, uint64_t jobid,
                                     const struct rp_jobspec *js, double now,
                                     bool reserve, double *at,
                                     rp_error_t *error)
{
    struct rp_rset *R = NULL;

    if (time_allocate (m, jobid, js, now, reserve, at, &R, error) < 0)
        return NULL;
    return R;
}

/* --- whether a job fits now, allocating nothing -------------------------- */

/* The match on the live state as it is, its proposal checked, then
 * undone: 1 it holds, 0 not, -1 the policy's failure or ENOMEM. */
static int fits_walk (struct rp_match *x)
{
    int rc;

    x->s = graph_live (x->m->g);
    x->sat = false;
    if ((rc = match_run (x)) <= 0)
        return rc; /* undone by the walk */
    if (match_verify (x) < 0)
        rc = -1;
    match_rollback (x, (struct mark){ 0, 0 });
    return rc;
}

/* In time: no walk where the graph's planners show too few units free
 * for the whole window (the bound find_start trusts), else the walk in
 * the window [t, t + d). */
static int fits_in_time (struct rp_match *x, int64_t t, int64_t d)
{
    struct rp_matcher *m = x->m;
    int64_t lb;
    int rc;

    need_total (x);
    if (lower_bound (m, t, d, &lb) < 0 || lb > t)
        return 0;
    if (window_apply (m, t, window_end (t, d)) < 0)
        return match_nomem (x);
    rc = fits_walk (x);
    window_revert (m);
    return rc;
}

int rp_matcher_fits (struct rp_matcher *m, const struct rp_jobspec *js,
                     double now, rp_error_t *error)
{
    struct rp_match x = { 0 };
    int64_t d;
    int rc = -1;

    if (!m || !js || !(now >= 0))
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (now > m->now)
        m->now = now;
    d = window_len (m, now, rp_jobspec_duration (js));
    if (time_advance (m, error) < 0 || match_setup (m, js, &x, error) < 0)
        goto done;
    rc = m->time ? fits_in_time (&x, tnow (m), d) : fits_walk (&x);
done:
    match_cleanup (&x);
    return rc;
}

/* --- the API ------------------------------------------------------------ */

/* Allocate-orelse-reserve: 0 with job jobid's R in *R (R NULL: held
 * only, no R built), or -1 with error. */
static int orelse_reserve (struct rp_matcher *m, uint64_t jobid,
                           const struct rp_jobspec *js, double now, double *at,
                           struct rp_rset **R, rp_error_t *error)
{
    rp_error_t e;
    int rc;

    if (match_admit (m, jobid, js, now, error) < 0)
        return -1;
    if (!m->time) {
        if (R)
            rc = (*R = rp_matcher_allocate (m, jobid, js, now, &e)) ? 0 : -1;
        else
            rc = rp_matcher_allocate_held (m, jobid, js, now, &e);
        if (rc == 0 && at)
            *at = now;
        if (rc == 0)
            return 0;
        if (errno != EBUSY) {
            if (error)
                *error = e;
            return -1;
        }
        if (time_start (m, error) < 0)
            return -1;
    }
    return time_allocate (m, jobid, js, now, true, at, R, error);
}

struct rp_rset *rp_matcher_allocate_orelse_reserve (struct rp_matcher *m,
                                                    uint64_t jobid,
                                                    const struct rp_jobspec *js,
                                                    double now, double *at,
                                                    rp_error_t *error)
{
    struct rp_rset *R = NULL;

    return orelse_reserve (m, jobid, js, now, at, &R, error) == 0 ? R : NULL;
}

int rp_matcher_allocate_orelse_reserve_held (struct rp_matcher *m,
                                             uint64_t jobid,
                                             const struct rp_jobspec *js,
                                             double now, double *at,
                                             rp_error_t *error)
{
    return orelse_reserve (m, jobid, js, now, at, NULL, error);
}

int rp_matcher_set_time (struct rp_matcher *m, double now, rp_error_t *error)
{
    if (!m || !(now >= 0))
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (now < m->now)
        return rp_error_set (error, EINVAL,
                             "time goes back: %.17g is before %.17g", now,
                             m->now);
    m->now = now;
    return time_advance (m, error);
}

double rp_matcher_time (const struct rp_matcher *m)
{
    return m ? m->now : 0;
}

int rp_matcher_run_late (struct rp_matcher *m, uint64_t jobid, double end,
                         rp_error_t *error)
{
    struct job *j;
    int64_t e;

    if (!m || !(end >= 0))
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (!(j = match_job_get (m, jobid, error)))
        return -1;
    if (j->reserved)
        return rp_error_set (error, EINVAL,
                             "job %ju is a reservation, not running",
                             (uintmax_t)jobid);
    e = end > 0 ? to_sec (end, true) : FOREVER;
    if (j->expiration <= 0)
        return rp_error_set (error, EINVAL, "job %ju has no end to pass",
                             (uintmax_t)jobid);
    if (end > 0 && end <= j->expiration)
        return rp_error_set (error, EINVAL,
                             "job %ju: %.17g is not after its end, %.17g",
                             (uintmax_t)jobid, end, j->expiration);
    if (m->time && e > j->tend && job_extend (m, j, e) < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    if (!m->time)
        j->tend = e;
    j->expiration = end;
    rp_rset_destroy (j->R);
    rp_rset_destroy (j->Rjgf);
    j->R = j->Rjgf = NULL;
    return 0;
}

bool rp_matcher_job_time (const struct rp_matcher *m, uint64_t jobid,
                          double *start, double *end, bool *reserved)
{
    const struct job *j = m ? match_job_find (m, jobid) : NULL;

    if (!j) {
        errno = ENOENT;
        return false;
    }
    if (start)
        *start = j->starttime;
    if (end)
        *end = j->expiration;
    if (reserved)
        *reserved = j->reserved;
    return true;
}

/* --- the check ---------------------------------------------------------- */

struct tev {
    rp_vertex_t v;
    int64_t t;
    int64_t x; /* exclusive units: + at the start, - at the end */
    int64_t s; /* sharers */
};

static int tev_cmp (const void *a, const void *b)
{
    const struct tev *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    /* ends before starts at one time */
    return (x->x + x->s > 0) - (y->x + y->s > 0);
}

/* Each hold's span is where the records say. */
static int check_spans (const struct rp_matcher *m, rp_error_t *error)
{
    for (size_t i = 0; i < m->njobs; i++) {
        const struct job *j = m->jobs[i];
        for (size_t k = 0; k < j->nholds; k++) {
            const struct hold *h = &j->holds[k];
            const struct rp_planner *p = *pool_slot (m, h);
            int64_t s, e;
            uint64_t a;
            if (!p || !rp_planner_span (p, h->span, &s, &e, &a)
                || s != j->tstart || e != j->tend
                || a != (h->exclusive ? h->amount : 1))
                return rp_error_set (error, EPROTO,
                                     "%s: job %ju: its span is not in the "
                                     "planner",
                                     rp_graph_vertex_name (m->g, h->v),
                                     (uintmax_t)j->id);
        }
        if (!j->reserved && j->tend <= tnow (m))
            return rp_error_set (error, EPROTO,
                                 "job %ju: running, its span ended at %jd",
                                 (uintmax_t)j->id, (intmax_t)j->tend);
    }
    return 0;
}

/* Sweep v's events from *i: never more units than its size, never held
 * exclusively and shared at one time. */
static int check_sweep (const struct rp_matcher *m, const struct tev *ev,
                        size_t n, size_t *i, rp_error_t *error)
{
    rp_vertex_t v = ev[*i].v;
    int64_t x = 0, s = 0;
    uint64_t size = rp_graph_vertex_size (m->g, v);

    for (; *i < n && ev[*i].v == v; (*i)++) {
        x += ev[*i].x;
        s += ev[*i].s;
        if ((uint64_t)x > size || (x > 0 && s > 0))
            return rp_error_set (error, EPROTO,
                                 "%s: held twice at %jd (%jd units, %jd "
                                 "sharing)",
                                 rp_graph_vertex_name (m->g, v),
                                 (intmax_t)ev[*i].t, (intmax_t)x, (intmax_t)s);
    }
    return 0;
}

int match_time_check (const struct rp_matcher *m, rp_error_t *error)
{
    struct tev *ev;
    size_t n = 0, nh = 0, i = 0;
    int rc = 0;

    if (!m->time)
        return 0;
    if (check_spans (m, error) < 0)
        return -1;
    for (size_t k = 0; k < m->njobs; k++)
        nh += m->jobs[k]->nholds;
    if (!(ev = calloc (2 * nh + 1, sizeof (*ev))))
        return rp_error_set (error, ENOMEM, "out of memory");
    for (size_t k = 0; k < m->njobs; k++) {
        const struct job *j = m->jobs[k];
        for (size_t l = 0; l < j->nholds; l++) {
            const struct hold *h = &j->holds[l];
            int64_t x = h->exclusive ? (int64_t)h->amount : 0;
            int64_t s = h->exclusive ? 0 : 1;
            ev[n++] = (struct tev){ h->v, j->tstart, x, s };
            ev[n++] = (struct tev){ h->v, j->tend, -x, -s };
        }
    }
    qsort (ev, n, sizeof (*ev), tev_cmp);
    while (i < n && rc == 0)
        rc = check_sweep (m, ev, n, &i, error);
    free (ev);
    return rc;
}
