/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The holds of a match in progress (core/match_private.h): each hold
 * applied to the allocation state at once (gstate_take, which refuses an
 * overlap or a vertex that is not up) and logged, so that a candidate
 * that does not fit is undone to its mark and a failed match to the
 * start; the unit records (which candidate a request got, under which
 * unit of its parent); and the per-subtree rows of rp_match_held.
 *
 * An exclusive subtree that is free is taken in one step of the state
 * (gstate_take_whole) and logged vertex by vertex as before, so that
 * what reads the holds (the pre-commit check, R, the subgraph,
 * rp_matcher_check) is unchanged; its root's hold puts it back in one
 * step (enum hold_whole).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph_impl.h" /* the accessors inlined */
#include "core/match_private.h"

int match_nomem (struct rp_match *x)
{
    return rp_error_set (x->error, ENOMEM, "out of memory");
}

int match_grow (void **p, size_t *cap, size_t size)
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
 * once, so the climb stops at the first vertex that has one.  The rows
 * follow the log lazily: the first question after holds were logged adds
 * the amounts of the holds logged since the last one (match_held_sync:
 * O(depth) per hold), and an undo takes away only what was added, so a
 * policy that never asks (every one but locality) pays nothing per hold.
 * O(1) per question once in step, memory in proportion to the vertices
 * this match touched. */
uint64_t *match_held_row (const struct rp_match *x, rp_vertex_t v)
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
    return graph_type_index (x->g, v);
}

/* Rows for v and its ancestors: 0, or -1 out of memory. */
static int held_rows (const struct rp_match *x, rp_vertex_t v)
{
    struct rp_matcher *m = x->m;
    size_t rowsize = m->ntypes * sizeof (*m->hrows);

    for (; v != RP_VERTEX_NONE && m->hepoch[v] != m->epoch;
         v = graph_parent (x->g, v)) {
        if (m->nhrows == m->hrowcap
            && match_grow ((void **)&m->hrows, &m->hrowcap, rowsize) < 0)
            return -1;
        memset (m->hrows + m->nhrows * m->ntypes, 0, rowsize);
        m->hrow[v] = (uint32_t)m->nhrows++;
        m->hepoch[v] = m->epoch;
    }
    return 0;
}

static void held_add (const struct rp_match *x, rp_vertex_t v, int t,
                      uint64_t amount, bool add)
{
    for (; v != RP_VERTEX_NONE; v = graph_parent (x->g, v)) {
        uint64_t *row = match_held_row (x, v);
        row[t] = add ? row[t] + amount : row[t] - amount; /* <= totals */
    }
}

/* How many of the log's holds the rows count (none in a new epoch). */
static size_t held_synced (const struct rp_match *x)
{
    return x->m->hsepoch == x->m->epoch ? x->m->hsync : 0;
}

int match_held_sync (const struct rp_match *x)
{
    struct rp_matcher *m = x->m;

    for (size_t i = held_synced (x); i < x->nlog; i++) {
        const struct hold *h = &x->log[i];
        int t = held_type (x, h->v, h->kind);
        if (t < 0)
            continue;
        if (held_rows (x, h->v) < 0) {
            m->hsync = i;
            m->hsepoch = m->epoch;
            return -1;
        }
        held_add (x, h->v, t, h->amount, true);
    }
    m->hsync = x->nlog;
    m->hsepoch = m->epoch;
    return 0;
}

void match_holds_rollback (struct rp_match *x, size_t nlog)
{
    size_t synced = held_synced (x);

    while (x->nlog > nlog) {
        struct hold *h = &x->log[--x->nlog];
        int t = x->nlog < synced ? held_type (x, h->v, h->kind) : -1;
        if (t >= 0)
            held_add (x, h->v, t, h->amount, false);
        if (h->whole == WHOLE_ROOT)
            (void)gstate_put_whole (x->s, h->v);
        else if (h->whole == WHOLE_NONE)
            (void)gstate_put (x->s, h->v, h->amount, h->exclusive);
        if (h->marked)
            x->m->mark[h->v] = 0;
    }
    if (synced > x->nlog)
        x->m->hsync = x->nlog;
}

void match_rollback (struct rp_match *x, struct mark mk)
{
    match_holds_rollback (x, mk.nlog);
    x->nunits = mk.nunits;
}

/* Hold v, logged as part of a whole subtree (whole: enum hold_whole;
 * WHOLE_PART: the state already holds it): 1 done, 0 refused by the
 * state, -1 out of memory. */
static int take (struct rp_match *x, rp_vertex_t v, uint64_t amount,
                 bool exclusive, int kind, size_t unit, uint8_t whole)
{
    if (x->nlog == x->logcap
        && match_grow ((void **)&x->log, &x->logcap, sizeof (*x->log)) < 0)
        return match_nomem (x);
    if (whole == WHOLE_NONE && gstate_take (x->s, v, amount, exclusive) < 0)
        return 0;
    match_log_hold (x, v, amount, exclusive, kind, unit, whole);
    return 1;
}

int match_take (struct rp_match *x, rp_vertex_t v, uint64_t amount,
                bool exclusive, int kind, size_t unit)
{
    return take (x, v, amount, exclusive, kind, unit, WHOLE_NONE);
}

/* Hold v's ancestors shared, up to one this match already holds. */
int match_hold_ancestors (struct rp_match *x, rp_vertex_t v, size_t unit)
{
    rp_vertex_t a = graph_parent (x->g, v);

    for (; a != RP_VERTEX_NONE && !held (x, a); a = graph_parent (x->g, a)) {
        int rc = take (x, a, 1, false, HOLD_ANCESTOR, unit, WHOLE_NONE);
        if (rc <= 0)
            return rc;
    }
    return 1;
}

/* Pre-order successor of v within the subtree of root, past v's
 * subtree. */
rp_vertex_t match_subtree_skip (const struct rp_graph *g, rp_vertex_t root,
                                rp_vertex_t v)
{
    rp_vertex_t n;

    for (; v != root; v = graph_parent (g, v))
        if ((n = rp_graph_child_next (g, v)) != RP_VERTEX_NONE)
            return n;
    return RP_VERTEX_NONE;
}

/* Pre-order successor of v within the subtree of root. */
rp_vertex_t match_subtree_next (const struct rp_graph *g, rp_vertex_t root,
                                rp_vertex_t v)
{
    rp_vertex_t n = rp_graph_child_first (g, v);

    return n != RP_VERTEX_NONE ? n : match_subtree_skip (g, root, v);
}

/* c's subtree in pre-order, in the matcher's scratch: its length, or
 * SIZE_MAX out of memory. */
static size_t subtree_list (struct rp_match *x, rp_vertex_t c)
{
    struct rp_matcher *m = x->m;
    size_t n;

    while ((n = graph_subtree (x->g, c, m->sub, m->subcap)) > m->subcap) {
        rp_vertex_t *sub = realloc (m->sub, n * sizeof (*sub));
        if (!sub)
            return SIZE_MAX;
        m->sub = sub;
        m->subcap = n;
    }
    return n;
}

/* The n vertices of sub (a subtree the state took whole, its root
 * first) logged as take () would log them, the log grown once: 0, or -1
 * out of memory (nothing logged). */
static int log_whole (struct rp_match *x, const rp_vertex_t *sub, size_t n,
                      size_t unit)
{
    uint32_t *mark = x->m->mark, epoch = x->m->epoch;

    while (x->logcap - x->nlog < n)
        if (match_grow ((void **)&x->log, &x->logcap, sizeof (*x->log)) < 0)
            return -1;
    struct hold *h = &x->log[x->nlog];
    for (size_t i = 0; i < n; i++) {
        rp_vertex_t v = sub[i];
        h[i] = (struct hold){ .v = v,
                              .kind = HOLD_FILL,
                              .exclusive = true,
                              .marked = mark[v] != epoch,
                              .whole = WHOLE_PART,
                              .unit = unit };
        mark[v] = epoch;
    }
    h[0].kind = HOLD_UNIT;
    h[0].whole = WHOLE_ROOT;
    /* the amounts: the vertices' sizes (the list's are vertices) */
    (void)graph_sizes (x->g, sub, n, &h[0].amount, sizeof (*h));
    x->nlog += n;
    return 0;
}

/* Hold c and everything below it exclusively, whole: in one step of the
 * state when the whole subtree is free (its aggregates set at once, its
 * ancestors' once per type), logged at once; otherwise vertex by vertex,
 * up to the one the state refuses. */
int match_take_whole (struct rp_match *x, rp_vertex_t c, size_t unit)
{
    struct rp_matcher *m = x->m;
    size_t n;

    /* a leaf (a core of a slot) is one take: no bulk step to gain */
    if (rp_graph_child_first (x->g, c) == RP_VERTEX_NONE)
        return take (x, c, graph_size (x->g, c), true, HOLD_UNIT, unit,
                     WHOLE_NONE);
    /* listed by the walk that checks and takes it */
    while ((n = gstate_take_whole_into (x->s, c, m->sub, m->subcap))
           > m->subcap) {
        rp_vertex_t *sub = realloc (m->sub, n * sizeof (*sub));
        if (!sub)
            return match_nomem (x);
        m->sub = sub;
        m->subcap = n;
    }
    if (n > 0) {
        if (log_whole (x, m->sub, n, unit) == 0)
            return 1;
        (void)gstate_put_whole (x->s, c);
        return match_nomem (x);
    }
    /* refused: vertex by vertex, up to the one the state refuses */
    if ((n = subtree_list (x, c)) == SIZE_MAX)
        return match_nomem (x);
    for (size_t i = 0; i < n; i++) {
        rp_vertex_t v = x->m->sub[i];
        int rc = take (x, v, graph_size (x->g, v), true,
                       i == 0 ? HOLD_UNIT : HOLD_FILL, unit, WHOLE_NONE);
        if (rc <= 0)
            return rc;
    }
    return 1;
}

size_t match_whole_end (const struct hold *h, size_t i, size_t n)
{
    while (++i < n && h[i].whole == WHOLE_PART)
        ;
    return i;
}

int match_take_logged (struct rp_match *x, rp_vertex_t c, size_t unit)
{
    return take (x, c, graph_size (x->g, c), true, HOLD_UNIT, unit, WHOLE_PART);
}

size_t match_unit_push (struct rp_match *x, struct req *q, rp_vertex_t v,
                        size_t parent, uint64_t value)
{
    if (x->nunits == x->unitcap
        && match_grow ((void **)&x->units, &x->unitcap, sizeof (*x->units))
               < 0) {
        match_nomem (x);
        return NO_UNIT;
    }
    x->units[x->nunits] =
        (struct unit){ .req = q, .parent = parent, .v = v, .value = value };
    return x->nunits++;
}
