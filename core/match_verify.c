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

/* The holds of a subtree held whole, its root log[i] and the parts after
 * it (WHOLE_PART): each part logged as one (HOLD_FILL, exclusive), and
 * all held whole in the state, each in the root's subtree, nothing of it
 * left free (gstate_whole_check: a few loads a vertex, where the holds
 * one by one cost an accessor each).  0 with *end the end of its parts,
 * or -1. */
static int verify_whole (struct rp_match *x, size_t i, size_t *end)
{
    const struct hold *h = &x->log[i];
    size_t n = 1, k = SIZE_MAX;

    for (; i + n < x->nlog && h[n].whole == WHOLE_PART; n++)
        if ((h[n].kind != HOLD_FILL || !h[n].exclusive) && k == SIZE_MAX)
            k = n;
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

/* Every hold checked and numbered in where[] (index + 1); the pool
 * amounts of unit u (< n) summed in pool[u]. */
static int verify_holds (struct rp_match *x, uint64_t *pool, size_t n)
{
    for (size_t i = 0; i < x->nlog; i++) {
        const struct hold *h = &x->log[i];
        if (h->whole == WHOLE_ROOT && i + 1 < x->nlog
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
            && (!h->exclusive || h->amount != graph_size (x->g, h->v)))
            return refuse (x, "%s is not taken whole",
                           rp_graph_vertex_name (x->g, h->v));
        if (!x->sat && graph_state_of (x->g, h->v) != RP_VERTEX_UP)
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

/* The target of the last slot unit asked for (a slot's units come
 * together: its target found once, not once per unit below it). */
struct slot_target {
    size_t s;
    rp_vertex_t tv;
};

static rp_vertex_t slot_target (const struct rp_match *x, struct slot_target *c,
                                size_t s)
{
    if (c->s != s) {
        c->s = s;
        c->tv = graph_target (x->g, x->units[s].v);
    }
    return c->tv;
}

static int verify_unit (struct rp_match *x, size_t i, const uint64_t *pool,
                        struct slot_target *st)
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
        if (!q->inherited && pool[i] != match_to_pool (q, u->value))
            return refuse (x, "%s: %ju units held for %ju", q->type,
                           (uintmax_t)pool[i], (uintmax_t)u->value);
        return 0;
    }
    if (q->slot) {
        if (q->at_level ? u->v != pv
                        : (graph_target (x->g, u->v) == RP_VERTEX_NONE
                           || (u->v != pv && !below (x->g, u->v, pv))))
            return refuse (x, "slot at %s: misplaced",
                           unit_name (x, u, name, sizeof (name)));
        return 0;
    }
    if (graph_type_index (x->g, u->v) != q->t)
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
        && graph_target (x->g, u->v) != slot_target (x, st, s))
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
                    match_type_word (c->type, n, word, sizeof (word)),
                    match_count_fixed (c) ? "" : "at least ",
                    (uintmax_t)c->min);
        }
    }
    return 0;
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
    size_t k = 1, n = x->nunits;
    uint64_t *counts = NULL, *pool = NULL;
    struct slot_target st = { .s = NO_UNIT };
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
        size_t p = x->units[i].parent == NO_UNIT ? 0 : x->units[i].parent + 1;
        counts[p * k + x->units[i].req->index]++;
        if (verify_unit (x, i, pool, &st) < 0)
            goto done;
    }
    rc = verify_counts (x, counts, k);
done:
    for (size_t i = 0; i < x->nlog; i++)
        x->m->where[x->log[i].v] = 0;
    return rc;
}
