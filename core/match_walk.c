/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Placing a match (RFC 4 walk, RFC 14 counts and exclusivity, RFC 31
 * constraints): the walk of the graph for each request, the candidates
 * and their selection with the policy's hooks, and the holds with their
 * undo log.
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
 * and a failed match to the start; the leaves of a request with nothing
 * below it (a slot's cores) are logged as found and given to the state
 * together when the request is placed (pend_ok: one climb to the root,
 * not one per core); where no policy hook, first pass or constraint
 * applies to them, they are tried in one short step each (leaf_take),
 * deciding what candidate() and unit_place() would, and the children
 * that follow a leaf the search found are looked at in walk order while
 * they are free leaves of the request's type, one comparison each, the
 * search taking over past them (leaf_run_take).  A slot target is tried
 * again after each success (a target holds several slots).
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
 *
 * Decisions a reader would otherwise rediscover:
 * - A top-level request for the type of the graph's root has the root as
 *   its only candidate (RFC 14 "type: cluster" on a one-cluster graph);
 *   any other request is looked for below `at`, never at it.
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
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph_impl.h" /* the accessors inlined */
#include "core/match_private.h"

#include "respol/constraint.h"

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

/* Whether rp_match_held ran out of memory in the hook just called (it
 * answered 0): the match fails with ENOMEM. */
static bool held_nomem (struct rp_match *x)
{
    if (!x->m->hnomem)
        return false;
    x->m->hnomem = false;
    match_nomem (x);
    return true;
}

static int score_hook (struct rp_match *x, rp_vertex_t v, int64_t *sc)
{
    struct plugin_call call;
    int rc;

    x->p->error[0] = '\0';
    plugin_enter (&call, x->p, "score");
    rc = x->ops.score (x->p, x, v, sc);
    plugin_leave (&call);
    if (held_nomem (x))
        return -1;
    if (rc != 0)
        return policy_fail (x, "score", rc);
    return 0;
}

/* v's score, 0 without a score hook (the test inline: the walk asks it
 * of every candidate): 0, or -1 policy error. */
static inline int score (struct rp_match *x, rp_vertex_t v, int64_t *sc)
{
    *sc = 0;
    return x->ops.score ? score_hook (x, v, sc) : 0;
}

static int prune_hook (struct rp_match *x, rp_vertex_t v)
{
    struct plugin_call call;
    int rc;

    x->p->error[0] = '\0';
    plugin_enter (&call, x->p, "prune");
    rc = x->ops.prune (x->p, x, v);
    plugin_leave (&call);
    if (held_nomem (x))
        return -1;
    if (rc == RP_WALK_CONTINUE)
        return 1;
    if (rc == RP_WALK_SKIP)
        return 0;
    return rp_error_set (x->error, EPROTO,
                         "policy '%s': prune returned %d (not CONTINUE or "
                         "SKIP)",
                         x->p->instance, rc);
}

/* 1: descend, 0: skip, -1: policy error; 1 without a prune hook, the
 * test inline. */
static inline int prune (struct rp_match *x, rp_vertex_t v)
{
    return x->ops.prune ? prune_hook (x, v) : 1;
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
        return match_nomem (x);
    after = before + n;
    memcpy (before, v, n * sizeof (*v));
    x->p->error[0] = '\0';
    plugin_enter (&call, x->p, "order_candidates");
    rc = x->ops.order_candidates (x->p, x, v, n);
    plugin_leave (&call);
    if (held_nomem (x))
        return -1;
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

/* Whether q's candidates are found in a first pass, then sorted and taken
 * again: not when they are taken in walk order (q->in_order). */
static bool reorders (const struct rp_match *x, const struct req *q)
{
    return reordering (x) && !q->in_order;
}

/* The candidates pushed into q->acc, in order, after order_candidates.
 * Caller frees *v. */
static int candidates_ordered (struct rp_match *x, struct req *q,
                               rp_vertex_t **v, size_t *n)
{
    size_t count = rp_accum_count (q->acc);

    if (!(*v = malloc ((count ? count : 1) * sizeof (**v))))
        return match_nomem (x);
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
    rp_vertex_t v;

    if (!x->constraint || graph_target (x->g, c) != RP_VERTEX_NONE)
        return true;
    v = rp_graph_child_first (x->g, c);
    while (v != RP_VERTEX_NONE) {
        if (!is_target (x->g, v)) {
            v = match_subtree_next (x->g, c, v);
            continue;
        }
        if (!constraint_ok (x, v))
            return false;
        v = match_subtree_skip (x->g, c, v);
    }
    return true;
}

static bool id_ok (const struct req *q, const struct rp_graph *g, rp_vertex_t v)
{
    int64_t id;

    if (!q->ids)
        return true;
    id = graph_id (g, v);
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

/* --- leaves taken together ------------------------------------------------ */

/* Whether leaf c, a unit of q, is logged now and taken by the state with
 * q's other leaves when q is placed (pend_apply): q has nothing below
 * it, and no hook of the policy runs between its units (score is not
 * asked per candidate, no prune) that could see the state before they
 * are all taken.  The walk for q reads only the leaves ahead of it, which
 * these takes do not change.  Not below an exclusive request, which
 * places q only to check that it fits, undoes it and takes its own
 * subtree whole. */
static bool pend_ok (const struct rp_match *x, const struct req *q,
                     rp_vertex_t c)
{
    return q->leaves && (!x->ops.score || q->in_order)
           && gstate_leaf_takes (x->s, c);
}

/* Leaf c held for unit u, the state's take left to pend_apply: 1, -1. */
static int pend_take (struct rp_match *x, rp_vertex_t c, size_t u)
{
    struct rp_matcher *m = x->m;

    if (m->npend == m->pendcap
        && match_grow ((void **)&m->pend, &m->pendcap, sizeof (*m->pend)) < 0)
        return match_nomem (x);
    if (match_take_logged (x, c, u) < 0)
        return -1;
    m->pend[m->npend++] = x->nlog - 1;
    return 1;
}

/* Undo the holds to nlog; the leaves logged past it were never in the
 * state. */
static void rollback_holds (struct rp_match *x, size_t nlog)
{
    struct rp_matcher *m = x->m;

    match_holds_rollback (x, nlog);
    while (m->npend > 0 && m->pend[m->npend - 1] >= nlog)
        m->npend--;
}

static void rollback (struct rp_match *x, struct mark mk)
{
    rollback_holds (x, mk.nlog);
    x->nunits = mk.nunits;
}

/* The state takes the leaves logged since q's place began, in one step
 * per parent: 0, or -1 when it refuses (pend_ok said it would not). */
static int pend_apply (struct rp_match *x)
{
    struct rp_matcher *m = x->m;
    size_t n = m->npend;

    if (n == 0)
        return 0;
    if (n > m->subcap) {
        rp_vertex_t *sub = realloc (m->sub, n * sizeof (*sub));
        if (!sub)
            return match_nomem (x);
        m->sub = sub;
        m->subcap = n;
    }
    for (size_t i = 0; i < n; i++)
        m->sub[i] = x->log[m->pend[i]].v;
    if (gstate_take_leaves (x->s, m->sub, n) < 0)
        return rp_error_set (x->error, EPROTO,
                             "the state refused %zu leaves the match took", n);
    for (size_t i = 0; i < n; i++)
        x->log[m->pend[i]].whole = WHOLE_NONE;
    m->npend = 0;
    return 0;
}

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
    if ((u = match_unit_push (x, q, c, pu, 0)) == NO_UNIT)
        return -1;
    for (struct req *ch = q->child; ch && rc > 0; ch = ch->next)
        rc = place (x, ch, c, u);
    if (rc <= 0 || q->slot)
        goto done;
    if (q->exclusive) {
        rollback_holds (x, mk.nlog); /* the unit records stay */
        rc = pend_ok (x, q, c) ? pend_take (x, c, u)
                               : match_take_whole (x, c, u);
    } else
        rc = match_take (x, c, 1, false, HOLD_UNIT, u);
    if (rc > 0)
        rc = match_hold_ancestors (x, c, u);
done:
    if (rc <= 0)
        rollback (x, mk);
    return rc;
}

/* Keep sc among q's highest scores this run; equal scores keep the
 * order they were found in. */
static void top_keep (struct rp_match *x, struct req *q, rp_vertex_t c,
                      int64_t sc)
{
    struct req_stats *st = &q->st;
    size_t i;

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

/* top_keep with an explanation asked of a policy that scores: the test
 * inline, as a found leaf asks it. */
static inline void top_push (struct rp_match *x, struct req *q, rp_vertex_t c,
                             int64_t sc)
{
    if (x->m->explain && x->ops.score)
        top_keep (x, q, c, sc);
}

static inline int found_push (struct rp_match *x, struct req *q, rp_vertex_t c,
                              int64_t sc)
{
    if (q->nmarks == q->markcap
        && match_grow ((void **)&q->marks, &q->markcap, sizeof (*q->marks)) < 0)
        return match_nomem (x);
    q->marks[q->nmarks++] = mark_get (x);
    x->found++;
    top_push (x, q, c, sc);
    /* read only by retake, for a request taken again in the policy's
     * order */
    if (reorders (x, q) && rp_accum_push (q->acc, c, sc) < 0)
        return match_nomem (x);
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
        return match_nomem (x);
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
    bool in_target;

    /* A slot target qualifies only where it gives at most one find (the
     * request's largest count is 1): a second find would be scored after
     * the first was taken, which the aggregates cannot show. */
    if (!reorders (x, q) || (q->slot && (q->max != 1 || q->at_level))
        || !q->agg_ok || x->ops.prune)
        return -1;
    in_target = graph_target (x->g, c) != RP_VERTEX_NONE;
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
    if ((x->constraint && is_target (x->g, c) && !constraint_ok (x, c))
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
        int64_t sc = 0;
        int rc;
        if ((!q->in_order && score (x, c, &sc) < 0)
            || (rc = unit_place (x, q, c, pu)) < 0)
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
    int t = graph_type_index (x->g, c);

    q->st.pruned++;
    if (t >= 0 && (size_t)t < x->m->ntypes)
        x->pruned[t]++;
}

static int visit (struct rp_match *x, struct req *q, rp_vertex_t c, size_t pu)
{
    bool cand =
        q->slot ? is_target (x->g, c) : graph_type_index (x->g, c) == q->t;
    int rc;

    if (!cand && x->constraint && is_target (x->g, c) && !constraint_ok (x, c))
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
    struct rp_accum *acc = match_acc_get (x->m);
    int order = walk_order (x);
    struct gfit f;
    int rc = W_GO;

    if (!acc)
        return match_nomem (x);
    for (rp_vertex_t c = gstate_fit_first (&f, x->s, v, q->walk, order);
         c != RP_VERTEX_NONE; c = gstate_fit_next (&f)) {
        int64_t sc;
        if (score (x, c, &sc) < 0 || rp_accum_push (acc, c, sc) < 0) {
            rc = errno == ENOMEM ? match_nomem (x) : -1;
            goto done;
        }
    }
    for (size_t i = 0; i < rp_accum_count (acc) && rc == W_GO; i++)
        rc = visit (x, q, rp_accum_vertex (acc, i), pu);
done:
    match_acc_put (x->m, acc);
    return rc;
}

/* Whether q's candidates may be taken by leaf_run_take: leaves taken
 * together (q->leaves: no prune, nothing below, every vertex of q's type
 * a leaf), found in walk order with no first pass (no score asked per
 * candidate, no order_candidates), and no constraint to check at them. */
static bool leaf_run (const struct rp_match *x, const struct req *q)
{
    return q->leaves && !reorders (x, q) && !x->constraint;
}

/* Room for n more elements of size in *p, used of *cap in use. */
static int room (void **p, size_t *cap, size_t used, size_t size, size_t n)
{
    while (*cap - used < n)
        if (match_grow (p, cap, size) < 0)
            return -1;
    return 0;
}

/* leaf_room when some log has to grow. */
static int leaf_grow (struct rp_match *x, struct req *q, size_t n)
{
    struct rp_matcher *m = x->m;

    if (room ((void **)&x->units, &x->unitcap, x->nunits, sizeof (*x->units), n)
        || room ((void **)&x->log, &x->logcap, x->nlog, sizeof (*x->log), n)
        || room ((void **)&m->pend, &m->pendcap, m->npend, sizeof (*m->pend), n)
        || room ((void **)&q->marks, &q->markcap, q->nmarks, sizeof (*q->marks),
                 n))
        return match_nomem (x);
    return 0;
}

/* Room in the logs for n more leaves of q: their units, holds, places
 * among the pending leaves and marks (the test inline, as it is asked per
 * run): 0, or -1 out of memory. */
static inline int leaf_room (struct rp_match *x, struct req *q, size_t n)
{
    if (x->unitcap - x->nunits >= n && x->logcap - x->nlog >= n
        && x->m->pendcap - x->m->npend >= n && q->markcap - q->nmarks >= n)
        return 0;
    return leaf_grow (x, q, n);
}

/* Leaf c of q, a child of v that the state would take (gstate_leaf_takes),
 * as candidate () and unit_place () decide it where leaf_run holds
 * (nothing to score, prune, pass first, constrain or place below): one
 * unit of q under pu, its hold logged for pend_apply (match_take_logged),
 * v's ancestors held from the first leaf on (match_hold_ancestors), and
 * found (found_push), all written in place: W_GO, W_STOP or -1. */
static int leaf_take (struct rp_match *x, struct req *q, rp_vertex_t v,
                      rp_vertex_t c, size_t pu)
{
    struct mark mk = mark_get (x);
    size_t u;
    int rc;

    q->st.considered++;
    if (!id_ok (q, x->g, c)) {
        q->st.id++;
        return W_GO;
    }
    /* available (): a leaf the state would take (up on its path, not
     * used, not shared) is idle, and only this match's holds not yet in
     * the state are left to refuse (none reach here today: each place
     * gives its leaves to the state before the next request walks) */
    if (held (x, c)) {
        q->st.busy++;
        return W_GO;
    }
    if (leaf_room (x, q, 1) < 0)
        return -1;
    u = x->nunits++;
    x->units[u] = (struct unit){ .req = q, .parent = pu, .v = c };
    match_log_hold (x, c, graph_size (x->g, c), true, HOLD_UNIT, u, WHOLE_PART);
    x->m->pend[x->m->npend++] = x->nlog - 1;
    if (!held (x, v) && (rc = match_hold_ancestors (x, c, u)) <= 0) {
        rollback (x, mk);
        if (rc < 0)
            return -1;
        q->st.nofit++;
        return W_GO;
    }
    q->marks[q->nmarks++] = mark_get (x);
    x->found++;
    top_push (x, q, c, 0);
    return x->found >= q->limit ? W_STOP : W_GO;
}

/* Whether c, a leaf of q's type beside one that gstate_leaf_takes
 * accepted (their parent up on its path), would be taken too: the same
 * answer from the state's counters inline (graph_impl.h's st_free: up,
 * not shared, nothing used), a call less per leaf of a run. */
static inline bool sibling_takes (const struct rp_match *x, rp_vertex_t c)
{
    uint64_t size = graph_size (x->g, c);

    return size > 0 && st_free (x->s, c) == size;
}

/* The child after f->kids[f->pos] in walk order, into *c, when it is a
 * leaf of q's type that the state would take beside it (sibling_takes),
 * f->pos moved to it: what the fit search would find next, one
 * comparison instead of a search.  False: the run ends there (nothing
 * moved), the search takes over. */
static inline bool next_sibling (const struct rp_match *x, const struct req *q,
                                 struct gfit *f, rp_vertex_t *c)
{
    size_t i = f->pos;

    if (f->high ? i == 0 : i + 1 >= f->n[0])
        return false;
    i = f->high ? i - 1 : i + 1;
    *c = f->kids[i];
    if (graph_type_index (x->g, *c) != q->t || !sibling_takes (x, *c))
        return false;
    f->pos = i;
    return true;
}

/* The rest of a run, v (the leaves' parent) held: each leaf next_sibling
 * gives one unit of q under pu, as leaf_take would make it with no
 * ancestor left to hold, up to q's limit; room made once for as many as
 * could be taken, the logs' ends kept in locals, written back at the end.
 * W_GO or W_STOP (-1: out of memory). */
static int leaf_run_rest (struct rp_match *x, struct req *q, size_t pu,
                          struct gfit *f)
{
    struct rp_matcher *m = x->m;
    size_t left = f->high ? f->pos : f->n[0] - 1 - f->pos;
    uint64_t want = q->limit - x->found, found = x->found;
    size_t nu, nl, np, nm;
    rp_vertex_t c;
    int rc = W_GO;

    if (leaf_room (x, q, want < left ? (size_t)want : left) < 0)
        return -1;
    nu = x->nunits, nl = x->nlog, np = m->npend, nm = q->nmarks;
    while (next_sibling (x, q, f, &c)) {
        q->st.considered++;
        if (!id_ok (q, x->g, c)) {
            q->st.id++;
            continue;
        }
        if (held (x, c)) {
            q->st.busy++;
            continue;
        }
        x->units[nu] = (struct unit){ .req = q, .parent = pu, .v = c };
        /* match_log_hold's hold of a vertex not held yet */
        x->log[nl] = (struct hold){ .v = c,
                                    .kind = HOLD_UNIT,
                                    .exclusive = true,
                                    .marked = true,
                                    .whole = WHOLE_PART,
                                    .amount = graph_size (x->g, c),
                                    .unit = nu++ };
        m->mark[c] = m->epoch;
        m->pend[np++] = nl++;
        q->marks[nm++] = (struct mark){ .nlog = nl, .nunits = nu };
        top_push (x, q, c, 0);
        if (++found >= q->limit) {
            rc = W_STOP;
            break;
        }
    }
    x->nunits = nu, x->nlog = nl, m->npend = np, q->nmarks = nm;
    x->found = found;
    return rc;
}

/* The leaves of q from f->kids[f->pos], which the fit search found below
 * v, where leaf_run holds: each taken (leaf_take) while the children that
 * follow it in walk order are of q's type and the state would take them
 * (next_sibling), f->pos moved to the last one looked at, so that the
 * search goes on past them (the leaves' takes wait for pend_apply: the
 * state the search reads has not changed).  Once a leaf held v's
 * ancestors, the rest of the run is leaf_run_rest.  A leaf the state
 * would not take is a candidate ().  W_GO, W_STOP or -1. */
static int leaf_run_take (struct rp_match *x, struct req *q, rp_vertex_t v,
                          size_t pu, struct gfit *f)
{
    rp_vertex_t c = f->kids[f->pos];
    int rc;

    if (!gstate_leaf_takes (x->s, c))
        return candidate (x, q, c, pu);
    do {
        if ((rc = leaf_take (x, q, v, c, pu)) != W_GO)
            return rc;
        if (held (x, v))
            return leaf_run_rest (x, q, pu, f);
    } while (next_sibling (x, q, f, &c));
    return W_GO;
}

/* Visit the children of v that may hold one unit of q. */
static int walk (struct rp_match *x, struct req *q, rp_vertex_t v, size_t pu)
{
    int order = walk_order (x);
    struct gfit f;
    bool leaves;

    if (x->ops.score && !q->in_order)
        return walk_scored (x, q, v, pu);
    leaves = leaf_run (x, q);
    for (rp_vertex_t c = gstate_fit_first (&f, x->s, v, q->walk, order);
         c != RP_VERTEX_NONE; c = gstate_fit_next (&f)) {
        int rc = leaves && graph_type_index (x->g, c) == q->t
                     ? leaf_run_take (x, q, v, pu, &f)
                     : visit (x, q, c, pu);
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

    if (!match_count_largest (q, x->found, &target))
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
           && graph_type_index (x->g, at) == q->t;
}

/* --- the policy's order from the hints -------------------------------------
 *
 * Where the vertex `at` a request is placed in has more than BIG_PARENT
 * children, all candidates of the request (the nodes of a cluster), a
 * scoring policy would score every child.  The hints of rp_match_ops say
 * what the scores are, so the order they give is known without them:
 * - in walk order (RP_MATCH_SCORE_TARGETS_ZERO with target children,
 *   RP_MATCH_SCORE_BY_ID with children whose ids ascend with their
 *   handles): the first pass would find the candidates in the order it
 *   then takes them, so they are taken as found, as first fit takes them,
 *   and the search stops at the request's largest count;
 * - by class (RP_MATCH_SCORE_BY_FREE): children that show the same free
 *   amounts score the same, so one child per class of the index
 *   (gstate_classes) is scored, and the members of the classes are taken
 *   in descending score, lowest handle first among equal scores, which is
 *   the order the first pass would sort them in.
 * Below any vertex, when the children the walk visits are all candidates
 * (the cores of a node) and the hints say they score in walk order (ids
 * ascending, or all that may hold a unit showing the same), they are
 * taken in walk order too (children_in_order: one pass over them, or
 * none where the graph alone tells, leaves_in_order: all children leaves
 * and the walk needing the request's type only).
 * Either way a candidate's score does not depend on the candidates taken
 * before it (their subtrees are disjoint, and the walk scores children
 * before it enters any), and a candidate that does not fit is passed
 * over, as the first pass passes it over; so the result is the one the
 * first pass and its sort would give, at the cost of the candidates
 * taken.  Not with an explanation asked (it counts every candidate),
 * prune, pools, a slot found more than once per target (its later finds
 * are scored after the earlier were taken) under a policy that orders by
 * class, nor an order_candidates that may reorder. */

enum { FAST_NONE = 0, FAST_IN_ORDER, FAST_BY_CLASS };

static bool found_fits (const struct rp_match *x, const struct req *q,
                        rp_vertex_t c);

/* Whether q's walk needs units of q's own type only (some). */
static bool walk_needs_own (const struct rp_match *x, const struct req *q)
{
    if (q->t < 0 || q->walk[q->t] == 0)
        return false;
    for (size_t t = 0; t < x->m->ntypes; t++)
        if ((int)t != q->t && q->walk[t] > 0)
            return false;
    return true;
}

/* children_in_order from the graph alone, without a walk over the
 * children: when all are leaves and q's walk needs q's type only, the
 * walk visits leaves of q's type only; ids ascending among all of them
 * ascend among those visited, and leaves of one size that are idle (an
 * exclusive q passes over the others) show the same.  False: not
 * decided, the walk tells. */
static bool leaves_in_order (const struct rp_match *x, const struct req *q,
                             rp_vertex_t at, bool by_id, bool by_free)
{
    bool ids_up, one_size;

    if (!walk_needs_own (x, q)
        || !gstate_leaf_kids (x->s, at, q->t, &ids_up, &one_size))
        return false;
    return (by_id && ids_up) || (by_free && q->exclusive && one_size);
}

/* Whether the hints say that the leaves below at score the same where
 * they show the same (RP_MATCH_SCORE_BY_FREE for the children of at only
 * when they are leaves): at within an execution target.  The leaves the
 * walk visits are not held by this match (unit_free: a leaf it holds is
 * used in the state, or, when its take waits for pend_apply, past the
 * walk). */
static bool leaves_by_free (const struct rp_match *x, rp_vertex_t at)
{
    return (x->ops.hints & RP_MATCH_SCORE_LEAVES_BY_FREE)
           && graph_target (x->g, at) != RP_VERTEX_NONE;
}

/* Whether every child of at the walk visits for q (not a slot) is a
 * candidate, with no level between, in the order the hints give: ids
 * ascending (RP_MATCH_SCORE_BY_ID), or every one that may hold a unit
 * showing the same as the others (RP_MATCH_SCORE_BY_FREE: the same
 * score, so walk order).  The cores of a node: O(children), no score. */
static bool children_in_order (struct rp_match *x, const struct req *q,
                               rp_vertex_t at)
{
    int order = walk_order (x);
    bool by_id = x->ops.hints & RP_MATCH_SCORE_BY_ID;
    bool leaves_only = leaves_by_free (x, at);
    bool by_free = (x->ops.hints & RP_MATCH_SCORE_BY_FREE) || leaves_only;
    rp_vertex_t first = RP_VERTEX_NONE;
    int64_t last = -1;
    struct gfit f;

    if (q->slot || x->ops.order != RP_MATCH_LOW)
        return false;
    if (leaves_in_order (x, q, at, by_id, by_free))
        return true;
    for (rp_vertex_t c = gstate_fit_first (&f, x->s, at, q->walk, order);
         c != RP_VERTEX_NONE && (by_id || by_free); c = gstate_fit_next (&f)) {
        if (graph_type_index (x->g, c) != q->t)
            return false;
        if (leaves_only && rp_graph_child_first (x->g, c) != RP_VERTEX_NONE)
            by_free = false;
        if (by_id) {
            int64_t id = graph_id (x->g, c);
            by_id = id > last;
            last = id;
        }
        if (!by_free || !found_fits (x, q, c))
            continue;
        if (first == RP_VERTEX_NONE)
            first = c;
        else
            by_free = gstate_shows_same (x->s, first, c);
    }
    return by_id || by_free;
}

static int fast_kind (struct rp_match *x, const struct req *q, rp_vertex_t at)
{
    uint32_t hints = x->ops.hints;
    const struct bigp *b;

    if (!x->ops.score || x->m->explain || x->m->nohints || x->ops.prune
        || q->pool
        || (x->ops.order_candidates && !(hints & RP_MATCH_ORDER_GROUPS)))
        return FAST_NONE;
    if (!(b = match_big_parent (x->m, at))
        || (q->slot ? !b->targets : b->type != q->t))
        return children_in_order (x, q, at) ? FAST_IN_ORDER : FAST_NONE;
    if ((hints & RP_MATCH_SCORE_TARGETS_ZERO) && b->targets)
        return FAST_IN_ORDER;
    if ((hints & RP_MATCH_SCORE_BY_ID) && b->ids_up
        && x->ops.order == RP_MATCH_LOW)
        return FAST_IN_ORDER;
    if ((hints & RP_MATCH_SCORE_BY_FREE) && x->ops.order == RP_MATCH_LOW
        && !(q->slot && q->max != 1))
        return FAST_BY_CLASS;
    return FAST_NONE;
}

/* Whether c, which has what q needs, is free for a unit of q. */
static bool unit_free (const struct rp_match *x, const struct req *q,
                       rp_vertex_t c)
{
    if (q->slot)
        return true;
    return q->exclusive ? gstate_idle (x->s, c) : gstate_used (x->s, c) == 0;
}

/* Whether class representative c is a candidate of q that may fit: what
 * the walk (child up, free aggregates) and availability test, all the
 * same for every member of its class. */
static bool class_fits (const struct rp_match *x, const struct req *q,
                        rp_vertex_t c)
{
    return gstate_has (x->s, c, q->need) && unit_free (x, q, c);
}

/* class_fits for c found by the fit search with q->walk: when that is
 * q->need (not a pool) and the search tested every type (at most 64 with
 * a need), c has it already, and only its availability is left. */
static bool found_fits (const struct rp_match *x, const struct req *q,
                        rp_vertex_t c)
{
    if (q->walk != q->need || x->m->ntypes > 64)
        return class_fits (x, q, c);
    return unit_free (x, q, c);
}

/* A member c of a class that fits, as candidate () tells it: passing
 * the constraint, and unless q is a slot, of the ids asked and not held
 * by this match (a slot is placed in a target this match may hold). */
static bool member_ok (struct rp_match *x, const struct req *q, rp_vertex_t c)
{
    if (!q->slot && (held (x, c) || !id_ok (q, x->g, c)))
        return false;
    return constraint_ok (x, c)
           && !(q->exclusive && !q->slot && !constraint_below (x, c));
}

struct scored {
    size_t k; /* class */
    int64_t sc;
    rp_vertex_t top; /* its lowest member not yet taken off */
};

static int scored_cmp (const void *a, const void *b)
{
    const struct scored *x = a, *y = b;

    if (x->sc != y->sc)
        return x->sc > y->sc ? -1 : 1;
    return (x->top > y->top) - (x->top < y->top);
}

/* The classes of at's children that fit q, scored (one score each),
 * sorted: their number, or -1 (policy error, ENOMEM). */
static ssize_t classes_scored (struct rp_match *x, struct req *q,
                               rp_vertex_t at, struct scored **out)
{
    size_t n = gstate_classes (x->s, at), m = 0;
    struct scored *a = calloc (n + 1, sizeof (*a));
    rp_vertex_t *top = perm_scratch (x->m, n + 1); /* no match inside */

    if (!a || !top) {
        free (a);
        return match_nomem (x);
    }
    n = gstate_class_tops (x->s, at, top, n);
    for (size_t k = 0; k < n; k++) {
        rp_vertex_t c = top[k];
        if (c == RP_VERTEX_NONE || !class_fits (x, q, c))
            continue;
        a[m] = (struct scored){ .k = k, .top = c };
        if (score (x, c, &a[m].sc) < 0) {
            free (a);
            return -1;
        }
        m++;
    }
    qsort (a, m, sizeof (*a), scored_cmp);
    *out = a;
    return (ssize_t)m;
}

/* The next candidate in the policy's order: the lowest member among the
 * classes of the best score left, taken off its class. */
static rp_vertex_t next_by_class (struct rp_match *x, rp_vertex_t at,
                                  struct scored *a, size_t n, size_t *first)
{
    size_t best = SIZE_MAX;
    rp_vertex_t c;

    while (*first < n && a[*first].top == RP_VERTEX_NONE)
        (*first)++;
    for (size_t i = *first; i < n && a[i].sc == a[*first].sc; i++)
        if (a[i].top != RP_VERTEX_NONE
            && (best == SIZE_MAX || a[i].top < a[best].top))
            best = i;
    if (best == SIZE_MAX)
        return RP_VERTEX_NONE;
    c = gstate_class_pop (x->s, at, a[best].k);
    a[best].top = gstate_class_first (x->s, at, a[best].k);
    return c;
}

/* The index of at's children in the state of this run (made the first
 * time): false when there is none to use. */
static bool class_index (struct rp_match *x, rp_vertex_t at)
{
    struct bigp *b = match_big_parent (x->m, at);
    int which = x->sat ? 1 : 0;

    if (!b->indexed[which] && gstate_index (x->s, at) == 0)
        b->indexed[which] = true;
    return b->indexed[which];
}

/* FAST_BY_CLASS: q's candidates below at taken in the policy's order
 * until its largest count is found: 0, -1 error, -2 no index to use. */
static int place_by_class (struct rp_match *x, struct req *q, rp_vertex_t at,
                           size_t pu)
{
    struct scored *a = NULL;
    size_t first = 0;
    ssize_t n;
    rp_vertex_t c;
    int rc = 0;

    if (!class_index (x, at) || gstate_classes (x->s, at) == 0)
        return -2;
    if ((n = classes_scored (x, q, at, &a)) < 0)
        return -1;
    while (x->found < q->max
           && (c = next_by_class (x, at, a, (size_t)n, &first))
                  != RP_VERTEX_NONE) {
        if (!member_ok (x, q, c))
            continue;
        if ((rc = unit_place (x, q, c, pu)) < 0)
            break;
        if (rc == 0)
            continue;
        if (q->nmarks == q->markcap
            && match_grow ((void **)&q->marks, &q->markcap, sizeof (*q->marks))
                   < 0) {
            rc = match_nomem (x);
            break;
        }
        q->marks[q->nmarks++] = mark_get (x);
        x->found++;
    }
    gstate_class_restore (x->s, at);
    free (a);
    return rc < 0 ? -1 : 0;
}

/* Find q's candidates below at (or at it), from mark mk: W_GO / W_STOP,
 * or -1.  true in *taken when they were taken in the policy's order (no
 * first pass). */
static int find_units (struct rp_match *x, struct req *q, rp_vertex_t at,
                       size_t pu, bool here, struct mark mk, bool *taken)
{
    int kind = here ? FAST_NONE : fast_kind (x, q, at);
    size_t filtered = x->filtered;
    int rc;

    *taken = false;
    if (kind == FAST_BY_CLASS && (rc = place_by_class (x, q, at, pu)) != -2) {
        /* A failure's reason says whether the constraint refused any
         * candidate the walk looked at: only the walk knows. */
        if (rc < 0 || x->found >= q->min || !x->constraint) {
            *taken = true;
            return rc;
        }
        rollback (x, mk);
        x->found = 0;
        q->nmarks = 0;
    }
    x->filtered = filtered;
    if (kind == FAST_IN_ORDER) {
        q->in_order = true;
        q->limit = q->max;
        rc = walk (x, q, at, pu);
        q->in_order = false;
        *taken = true;
        return rc;
    }
    return here ? candidate (x, q, at, pu) : walk (x, q, at, pu);
}

/* Vertices and slots: 1 placed, 0 not, -1 error. */
static int units_place (struct rp_match *x, struct req *q, rp_vertex_t at,
                        size_t pu)
{
    struct mark mk = mark_get (x);
    bool here = q->at_level
                || (q->slot && graph_target (x->g, at) != RP_VERTEX_NONE)
                || root_request (x, q, at);
    bool taken;
    uint64_t n;
    int rc;

    q->limit = search_limit (x, q->max);
    if ((rc = find_units (x, q, at, pu, here, mk, &taken)) < 0)
        return -1;
    if (reordering (x) && !taken) {
        rollback (x, mk);
        if (retake (x, q, pu) < 0)
            return -1;
    }
    if (!match_count_largest (q, x->found, &n))
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
    q->limit = search_limit (x, match_to_pool (q, q->max));
    if (walk (x, q, at, pu) < 0)
        return -1;
    x->found = match_to_request (q, q->avail);
    if (!match_count_largest (q, x->found, &v))
        return 0;
    if (candidates_ordered (x, q, &cand, &n) < 0)
        return -1;
    amount = match_to_pool (q, v);
    if ((u = match_unit_push (x, q, at, pu, v)) == NO_UNIT)
        goto error;
    for (size_t i = 0; i < n && amount > 0; i++) {
        uint64_t k = gstate_free (x->s, cand[i]);
        k = k < amount ? k : amount;
        if (k == 0)
            continue;
        if ((rc = match_take (x, cand[i], k, true, HOLD_POOL, u)) < 0
            || (rc > 0 && (rc = match_hold_ancestors (x, cand[i], u)) < 0))
            goto error;
        if (rc > 0)
            amount -= k;
    }
    free (cand);
    if (amount > 0) { /* the state refused a take */
        x->found = match_to_request (q, match_to_pool (q, v) - amount);
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
    if (reordering (x) || q->pool) /* no other place pushes to it */
        rp_accum_clear (q->acc);
    rc = q->pool ? pool_place (x, q, at, pu) : units_place (x, q, at, pu);
    if (rc > 0 && pend_apply (x) < 0)
        rc = -1;
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
int match_run (struct rp_match *x)
{
    rp_vertex_t root = rp_graph_root (x->g);

    match_new_epoch (x->m);
    x->m->nhrows = 0;
    x->m->hnomem = false;
    x->nlog = 0;
    x->nunits = 0;
    x->filtered = 0;
    x->failed = NULL;
    x->m->npend = 0;
    if (x->ops.prune) /* only prune counts; setup zeroed them */
        memset (x->pruned, 0, x->m->ntypes * sizeof (*x->pruned));
    for (size_t i = 0; i < x->nreqs; i++) { /* top[] is read to ntop */
        memset (&x->all[i].st, 0, offsetof (struct req_stats, top));
        x->all[i].st.ntop = 0;
    }
    for (struct req *q = x->reqs; q; q = q->next) {
        int rc = place (x, q, root, NO_UNIT);
        if (rc <= 0) {
            rollback (x, (struct mark){ 0, 0 });
            return rc;
        }
    }
    return 1;
}
