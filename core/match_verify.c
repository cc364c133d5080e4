/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The check of a proposal before the matcher commits it: the guarantee
 * that no policy, however buggy, double-allocates or misplaces.
 *
 * Before a match is committed, verify() recounts the unit records
 * (which candidate a request got, under which unit of its parent) and
 * the holds, independently of the selection code: types, containment,
 * counts acceptable, exclusivity as asked, pool amounts, one target per
 * slot.  gstate_take refuses overlaps and down vertices.
 *
 * A subtree held whole (an exclusive node: 73 holds) is checked against
 * the state in one pass (gstate_whole_check): every part logged as one,
 * held whole in the state and up, inside the root's subtree (its parent
 * numbered before it), and nothing of the subtree left free.  A vertex
 * of another job's subtree, one not held, or one left out is refused as
 * before, at a few loads a vertex where an accessor call per check cost
 * 66 instructions a hold (an exclusive node 43,310 -> 42,273 per
 * command).
 *
 * A slot's units share their parent unit and their vertices' parent:
 * the slot above a unit and the target it must be in are found once for
 * the run, not climbed to per unit; a hold reads the states only when
 * some vertex is not up (the state counts them); the counts of child
 * requests are read for the units whose requests have children only;
 * the refusals are formatted out of line.  A slot of 4 cores on 1,024
 * nodes under "first": 1,035 -> 788 instructions per command, the same
 * refusals (test_match spoils a proposal after the walk placed it and
 * pins each message).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph_impl.h" /* the accessors inlined */
#include "core/match_private.h"

/* --- verification before commit ------------------------------------------- */

static bool below (const struct rp_graph *g, rp_vertex_t v, rp_vertex_t a)
{
    for (v = graph_parent (g, v); v != RP_VERTEX_NONE; v = graph_parent (g, v))
        if (v == a)
            return true;
    return false;
}

static int refuse (struct rp_match *x, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3), cold));

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

/* The holds of a subtree held whole, its root log[i] and the parts after
 * it (WHOLE_PART): each part logged as one (HOLD_FILL, exclusive), and
 * all held whole in the state, each in the root's subtree, nothing of it
 * left free (gstate_whole_check: a few loads a vertex, where the holds
 * one by one cost an accessor each).  0 with *end the end of its parts,
 * or -1. */
static int verify_whole (struct rp_match *x, size_t i, size_t *end)
{
    const struct hold *h = &x->log[i];
    size_t n = 1, k = SIZE_MAX, nlog = x->nlog;
    bool fill = true;

    for (; i + n < nlog && h[n].whole == WHOLE_PART; n++)
        fill &= h[n].kind == HOLD_FILL && h[n].exclusive;
    for (size_t j = 1; !fill && j < n && k == SIZE_MAX; j++) /* the first not */
        if (h[j].kind != HOLD_FILL || !h[j].exclusive)
            k = j;
    if (k == SIZE_MAX)
        k = gstate_whole_check (x->s, &h->v, sizeof (*h), n, !x->sat,
                                x->m->where, (uint32_t)i + 1);
    *end = i + n;
    if (k == n)
        return 0;
    if (!x->sat && graph_state_of (x->g, h[k].v) != RP_VERTEX_UP)
        return refuse (x, "%s is not up", rp_graph_vertex_name (x->g, h[k].v));
    return refuse (x, "%s is not taken whole",
                   rp_graph_vertex_name (x->g, h[k].v));
}

/* The states a hold's vertex is checked against (graph_state_of): the
 * live state's, NULL when every vertex reads as up (the state counts
 * those that are not: none, nothing to look up per hold). */
static const uint8_t *live_states (const struct rp_graph *g)
{
    if (!g || !g->finalized || g->live->nnotup == 0)
        return NULL;
    return g->live->state;
}

/* Every hold checked and numbered in where[] (index + 1); the pool
 * amounts of unit u (< n) summed in pool[u].  The graph, the states and
 * where[] read once, not through an accessor per hold. */
static int verify_holds (struct rp_match *x, uint64_t *pool, size_t n)
{
    const struct rp_graph *g = x->g;
    const uint8_t *state = x->sat ? NULL : live_states (g);
    uint32_t *where = x->m->where;
    const struct hold *log = x->log;
    size_t nlog = x->nlog;

    for (size_t i = 0; i < nlog; i++) {
        const struct hold *h = &log[i];
        if (h->whole == WHOLE_ROOT && i + 1 < nlog
            && h[1].whole == WHOLE_PART) {
            size_t e;
            if (verify_whole (x, i, &e) < 0)
                return -1;
            i = e - 1;
            continue;
        }
        if (h->kind == HOLD_POOL && h->unit < n)
            pool[h->unit] += h->amount;
        if (h->kind == HOLD_FILL
            && (!h->exclusive || h->amount != graph_size (g, h->v)))
            return refuse (x, "%s is not taken whole",
                           rp_graph_vertex_name (g, h->v));
        if (state && h->v < g->n && state[h->v] != RP_VERTEX_UP)
            return refuse (x, "%s is not up", rp_graph_vertex_name (g, h->v));
        where[h->v] = (uint32_t)i + 1;
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

/* Why a unit is refused (refuse_unit). */
enum unit_fault {
    MISPLACED, /* a slot outside its parent */
    NOT_A,     /* of another type */
    NOT_BELOW, /* outside its parent unit's vertex */
    NOT_HELD,  /* not held, or not as asked */
    OUTSIDE,   /* outside its slot's target */
};

/* Refuse unit u, its vertex named (copied first: a default name lives in
 * a buffer the next call overwrites; its parent's vertex pv named after
 * it).  Out of line and only on a refusal: formatting names for every
 * unit made a slot match 15% slower, and a name's buffer in the check's
 * own frame cost a stack guard per unit. */
static int __attribute__ ((cold, noinline))
refuse_unit (struct rp_match *x, const struct unit *u, enum unit_fault f,
             rp_vertex_t pv)
{
    const struct req *q = u->req;
    char name[128];

    snprintf (name, sizeof (name), "%s", rp_graph_vertex_name (x->g, u->v));
    switch (f) {
    case MISPLACED:
        return refuse (x, "slot at %s: misplaced", name);
    case NOT_A:
        return refuse (x, "%s is not a %s", name, q->type);
    case NOT_BELOW:
        return refuse (x, "%s is not below %s", name,
                       rp_graph_vertex_name (x->g, pv));
    case NOT_HELD:
        return refuse (x, "%s is not held %s", name,
                       q->exclusive ? "exclusively" : "shared");
    case OUTSIDE:
    default:
        return refuse (x, "%s is outside its slot's target", name);
    }
}

/* What the units of a run share, found once for the run (a slot's
 * cores: one parent unit, one parent vertex): the slot above the last
 * parent unit looked at, its target, and the target of the last parent
 * vertex climbed from. */
struct vcache {
    size_t pu;       /* the parent unit slot_above was asked for last */
    size_t s;        /* its answer (NO_UNIT for the top level's) */
    rp_vertex_t stv; /* the target of slot unit s */
    rp_vertex_t tp;  /* the vertex whose target is tt */
    rp_vertex_t tt;
};

/* The nearest slot unit above unit i (slot_above), kept for i's parent. */
static size_t slot_of (const struct rp_match *x, struct vcache *c, size_t i)
{
    size_t p = x->units[i].parent;
    if (c->pu != p) {
        c->pu = p;
        c->s = slot_above (x, i);
        c->stv = c->s == NO_UNIT ? NONE : graph_target (x->g, x->units[c->s].v);
    }
    return c->s;
}

/* graph_target (v): v itself when it is a target, else its parent's, kept
 * for the last parent (a slot's cores share theirs). */
static rp_vertex_t target_of (const struct rp_graph *g, struct vcache *c,
                              rp_vertex_t v)
{
    if (v >= g->n || (g->v[v].flags & F_TARGET))
        return graph_target (g, v);
    rp_vertex_t p = g->v[v].parent;
    if (p != c->tp) {
        c->tp = p;
        c->tt = graph_target (g, p);
    }
    return c->tt;
}

/* below (v, a), its parent looked at without a call (a slot's cores are
 * its vertex's children). */
static inline bool under (const struct rp_graph *g, rp_vertex_t v,
                          rp_vertex_t a)
{
    return graph_parent (g, v) == a || below (g, v, a);
}

static int verify_unit (struct rp_match *x, size_t i, const uint64_t *pool,
                        struct vcache *vc)
{
    const struct rp_graph *g = x->g;
    const struct unit *u = &x->units[i];
    const struct req *q = u->req;
    rp_vertex_t pv =
        u->parent == NO_UNIT ? rp_graph_root (g) : x->units[u->parent].v;
    const uint32_t *where = x->m->where;

    if (q->pool) {
        if (u->v != pv || !rp_jobspec_resource_count_contains (q->r, u->value))
            return refuse (x, "%s: bad amount %ju", q->type,
                           (uintmax_t)u->value);
        if (!q->inherited && pool[i] != match_to_pool (q, u->value))
            return refuse (x, "%s: %ju units held for %ju", q->type,
                           (uintmax_t)pool[i], (uintmax_t)u->value);
        return 0;
    }
    if (q->slot) {
        if (q->at_level ? u->v != pv
                        : (graph_target (g, u->v) == RP_VERTEX_NONE
                           || (u->v != pv && !under (g, u->v, pv))))
            return refuse_unit (x, u, MISPLACED, pv);
        return 0;
    }
    if (graph_type_index (g, u->v) != q->t)
        return refuse_unit (x, u, NOT_A, pv);
    if (!under (g, u->v, pv) && !(u->parent == NO_UNIT && u->v == pv))
        return refuse_unit (x, u, NOT_BELOW, pv);
    if (where[u->v] == 0 || x->log[where[u->v] - 1].kind == HOLD_ANCESTOR
        || x->log[where[u->v] - 1].exclusive != q->exclusive)
        return refuse_unit (x, u, NOT_HELD, pv);
    if (slot_of (x, vc, i) != NO_UNIT && target_of (g, vc, u->v) != vc->stv)
        return refuse_unit (x, u, OUTSIDE, pv);
    return 0;
}

/* Refuse n units of request c (out of line: a word's buffer in the
 * check's frame cost a stack guard per call). */
static int __attribute__ ((cold, noinline))
refuse_count (struct rp_match *x, const struct req *c, uint64_t n)
{
    char word[RP_ERROR_TEXT_SIZE];

    return refuse (x, "%ju %s where the jobspec asks %s%ju", (uintmax_t)n,
                   match_type_word (c->type, n, word, sizeof (word)),
                   match_count_fixed (c) ? "" : "at least ", (uintmax_t)c->min);
}

/* The counts of the child requests from first on under one parent unit,
 * counts[c->index] of each. */
static inline int verify_children (struct rp_match *x, const struct req *first,
                                   const uint64_t *counts)
{
    for (const struct req *c = first; c; c = c->next) {
        uint64_t n = counts[c->index];
        if (c->pool ? n != 1 : !rp_jobspec_resource_count_contains (c->r, n))
            return refuse_count (x, c, n);
    }
    return 0;
}

/* counts[(parent unit + 1) * k + child index]: units of each child
 * request under each parent unit (0: the top level); the units whose
 * requests have children are among units[lo..hi) (a slot's cores are
 * not looked at again). */
static int verify_counts (struct rp_match *x, const uint64_t *counts, size_t k,
                          size_t lo, size_t hi)
{
    const struct unit *u = x->units;

    if (verify_children (x, x->reqs, counts) < 0)
        return -1;
    for (size_t p = lo; p < hi; p++)
        if (u[p].req->child
            && verify_children (x, u[p].req->child, &counts[(p + 1) * k]) < 0)
            return -1;
    return 0;
}

/* where[] of the n holds of log back to 0 (from locals: the stores
 * kept x's fields from staying in registers). */
static void verify_forget (uint32_t *where, const struct hold *log, size_t n)
{
    for (size_t i = 0; i < n; i++)
        where[log[i].v] = 0;
}

/* The matcher's scratch of size zeroed entries, or NULL (ENOMEM). */
static uint64_t *verify_scratch (struct rp_matcher *m, size_t size)
{
    if (size > m->vcap) {
        uint64_t *b = size <= SIZE_MAX / sizeof (*b)
                          ? realloc (m->vbuf, size * sizeof (*b))
                          : NULL;
        if (!b)
            return NULL;
        m->vbuf = b;
        m->vcap = size;
    }
    memset (m->vbuf, 0, size * sizeof (*m->vbuf));
    return m->vbuf;
}

int match_verify (struct rp_match *x)
{
    size_t k = 1, n = x->nunits, lo = n, hi = 0;
    uint64_t *counts = NULL, *pool = NULL;
    struct vcache vc = { .pu = NO_UNIT, .s = NO_UNIT, .tp = NONE, .tt = NONE };
    int rc = -1;

    for (size_t i = 0; i < x->nreqs; i++)
        if (x->all[i].nchildren > k)
            k = x->all[i].nchildren;
    for (const struct req *q = x->reqs; q; q = q->next)
        k = q->index + 1 > k ? q->index + 1 : k;
    /* counts, then pool: (n + 1) * k + n + 1 entries, no overflow for
     * the units a match can make */
    if (!(counts = verify_scratch (x->m, (n + 1) * (k + 1)))) {
        match_nomem (x);
        goto done;
    }
    pool = counts + (n + 1) * k;
    if (verify_holds (x, pool, n) < 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        const struct unit *u = &x->units[i];
        counts[(u->parent == NO_UNIT ? 0 : u->parent + 1) * k
               + u->req->index]++;
        if (u->req->child) {
            lo = lo < i ? lo : i;
            hi = i + 1;
        }
        if (verify_unit (x, i, pool, &vc) < 0)
            goto done;
    }
    rc = verify_counts (x, counts, k, lo, hi);
done:
    verify_forget (x->m->where, x->log, x->nlog);
    return rc;
}
