/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Walking a resource graph and accumulating candidates (RFC 4
 * "Walker", "Pruning Filter", "Evaluating Filter", "Accumulator"); see
 * the walking section of api/respol/graph.h.
 *
 * Walks never recurse: an explicit stack of frames, one per vertex on the
 * current path (containment) or per vertex entered (other subsystems,
 * with a visited bitmap, so cycles are harmless).
 *
 * Decisions.  In other subsystems LOW walks a vertex's targets in
 * ascending handle order, HIGH descending, and needs are refused there.
 * With needs, a walk enters only children that are up; without, every
 * child.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph_impl.h"

/* --- walking --------------------------------------------------------- */

struct frame {
    rp_vertex_t v;
    rp_vertex_t last; /* containment: last child visited */
    size_t pos;       /* next child (containment) / target (others) */
    size_t end;       /* others: end of this frame's targets in w->tgt */
};

struct rp_walk {
    const struct rp_graph *g;
    int sub;
    int order;
    rp_walk_filter_f pre, post;
    void *arg;
    uint64_t *need; /* ntypes */
    bool has_need;
    bool impossible; /* a need of a type the graph lacks */
    struct frame *stack;
    size_t sp, cap;
    rp_vertex_t *tgt; /* others: targets of the frames on the stack */
    size_t ntgt, captgt;
    uint8_t *seen; /* others: visited bitmap */
};

struct rp_walk *rp_walk_create (const struct rp_graph *g, const char *subsystem,
                                rp_error_t *error)
{
    if (!g || !g->finalized) {
        rp_error_set (error, EINVAL, "graph is not finalized");
        return NULL;
    }
    int sub = subsystem ? graph_strtab_find (&g->subs, subsystem) : -1;
    if (sub < 0) {
        rp_error_set (error, EINVAL, "no subsystem '%s'",
                      subsystem ? subsystem : "(null)");
        return NULL;
    }
    struct rp_walk *w = calloc (1, sizeof (*w));
    if (!w || !(w->need = calloc (ntypes (g) + 1, sizeof (uint64_t)))) {
        free (w);
        rp_error_set (error, ENOMEM, "out of memory");
        return NULL;
    }
    w->g = g;
    w->sub = sub;
    return w;
}

void rp_walk_destroy (struct rp_walk *w)
{
    if (!w)
        return;
    int saved_errno = errno;
    free (w->need);
    free (w->stack);
    free (w->tgt);
    free (w->seen);
    free (w);
    errno = saved_errno;
}

void rp_walk_set_order (struct rp_walk *w, enum rp_walk_order order)
{
    if (w)
        w->order = order == RP_WALK_HIGH ? RP_WALK_HIGH : RP_WALK_LOW;
}

void rp_walk_set_filters (struct rp_walk *w, rp_walk_filter_f pre,
                          rp_walk_filter_f post, void *arg)
{
    if (!w)
        return;
    w->pre = pre;
    w->post = post;
    w->arg = arg;
}

int rp_walk_need (struct rp_walk *w, const char *type, uint64_t amount,
                  rp_error_t *error)
{
    if (!w || !type)
        return rp_error_set (error, EINVAL, "no walker or type");
    if (w->sub != 0)
        return rp_error_set (error, EINVAL,
                             "needs apply to the containment"
                             " subsystem only");
    if (amount == 0)
        return 0;
    int t = graph_strtab_find (&w->g->types, type);
    if (t < 0)
        w->impossible = true;
    else if (amount > w->need[t])
        w->need[t] = amount;
    w->has_need = true;
    return 0;
}

void rp_walk_clear_needs (struct rp_walk *w)
{
    if (!w)
        return;
    memset (w->need, 0, ntypes (w->g) * sizeof (uint64_t));
    w->has_need = false;
    w->impossible = false;
}

static int walk_push (struct rp_walk *w, rp_vertex_t v, size_t end)
{
    if (w->sp == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 32;
        struct frame *n = realloc (w->stack, cap * sizeof (*n));
        if (!n)
            return -1;
        w->stack = n;
        w->cap = cap;
    }
    w->stack[w->sp++] = (struct frame){ v, NONE, 0, end };
    return 0;
}

/* Call a filter: RP_WALK_* or -1 with error. */
static int walk_call (struct rp_walk *w, rp_walk_filter_f f, rp_vertex_t v,
                      const char *which, rp_error_t *error)
{
    char buf[WORD_MAX + 32];
    if (!f)
        return RP_WALK_CONTINUE;
    int a = f (w->g, v, w->arg);
    if (a >= RP_WALK_CONTINUE && a <= RP_WALK_STOP)
        return a;
    return rp_error_set (error, EINVAL,
                         "%s filter returned %d at %s: not a"
                         " walk action",
                         which, a, graph_name_of (w->g, v, buf, sizeof (buf)));
}

/* The start vertex can hold the needs. */
static bool start_fits (const struct rp_walk *w, rp_vertex_t v)
{
    if (w->impossible)
        return false;
    for (size_t t = 0; w->has_need && t < ntypes (w->g); t++) {
        if (w->need[t] > rp_graph_subtree_free (w->g, v, (int)t))
            return false;
    }
    return true;
}

static rp_vertex_t next_child (struct rp_walk *w, struct frame *f)
{
    const struct rp_graph *g = w->g;
    if (w->has_need)
        return gstate_child_fit (g->live, f->v, f->last, w->need, w->order);
    size_t k = nkids (g, f->v);
    if (f->pos >= k)
        return NONE;
    size_t i = w->order == RP_WALK_HIGH ? k - 1 - f->pos : f->pos;
    f->pos++;
    return g->child[g->child_off[f->v] + i];
}

static int tgt_cmp (const void *a, const void *b)
{
    rp_vertex_t x = *(const rp_vertex_t *)a, y = *(const rp_vertex_t *)b;
    return x < y ? -1 : x > y;
}

/* Others: append v's targets in the walked subsystem to w->tgt, sorted. */
static int push_targets (struct rp_walk *w, rp_vertex_t v)
{
    const struct rp_graph *g = w->g;
    size_t begin = w->ntgt;
    if (!(g->v[v].flags & F_EXPLICIT))
        return 0; /* only containment edges */
    for (uint32_t i = g->edge_off[v]; i < g->edge_off[v + 1]; i++) {
        const struct edge *e = &g->edge[i];
        if (e->sub != w->sub || e->type == 1) /* "in" */
            continue;
        if (w->ntgt == w->captgt) {
            size_t cap = w->captgt ? w->captgt * 2 : 64;
            rp_vertex_t *n = realloc (w->tgt, cap * sizeof (*n));
            if (!n)
                return -1;
            w->tgt = n;
            w->captgt = cap;
        }
        w->tgt[w->ntgt++] = e->dst;
    }
    qsort (w->tgt + begin, w->ntgt - begin, sizeof (rp_vertex_t), tgt_cmp);
    return 0;
}

static rp_vertex_t next_target (struct rp_walk *w, struct frame *f)
{
    size_t begin = w->sp > 1 ? w->stack[w->sp - 2].end : 0;
    while (begin + f->pos < f->end) {
        size_t i =
            w->order == RP_WALK_HIGH ? f->end - 1 - f->pos : begin + f->pos;
        f->pos++;
        rp_vertex_t v = w->tgt[i];
        if (!(w->seen[v / 8] & (1u << (v % 8))))
            return v;
    }
    return NONE;
}

/* Pre-order visit of v: filter, then push a frame, call post or nothing.
 * Returns the action taken, or -1. */
static int visit (struct rp_walk *w, rp_vertex_t v, rp_error_t *error)
{
    if (w->sub != 0)
        w->seen[v / 8] |= (uint8_t)(1u << (v % 8));
    int a = walk_call (w, w->pre, v, "pre-order", error);
    if (a == RP_WALK_CONTINUE) {
        if (w->sub != 0 && push_targets (w, v) < 0)
            goto nomem;
        if (walk_push (w, v, w->ntgt) < 0)
            goto nomem;
    }
    if (a == RP_WALK_LEAF)
        a = walk_call (w, w->post, v, "post-order", error);
    if (a == RP_WALK_LEAF)
        a = RP_WALK_CONTINUE;
    return a;
nomem:
    return rp_error_set (error, ENOMEM, "out of memory");
}

static int walk_loop (struct rp_walk *w, ssize_t *count, rp_error_t *error)
{
    while (w->sp > 0) {
        struct frame *f = &w->stack[w->sp - 1];
        rp_vertex_t c = w->sub == 0 ? next_child (w, f) : next_target (w, f);
        int a;
        if (c != NONE) {
            f->last = c;
            (*count)++;
            a = visit (w, c, error);
        } else {
            rp_vertex_t v = f->v;
            w->sp--;
            w->ntgt = w->sp > 0 ? w->stack[w->sp - 1].end : 0;
            a = walk_call (w, w->post, v, "post-order", error);
        }
        if (a < 0 || a == RP_WALK_STOP)
            return a;
    }
    return 0;
}

ssize_t rp_walk_run (struct rp_walk *w, rp_vertex_t start, rp_error_t *error)
{
    if (!w)
        return rp_error_set (error, EINVAL, "no walker");
    const struct rp_graph *g = w->g;
    if (graph_check_vertex (g, start, error) < 0)
        return -1;
    w->sp = w->ntgt = 0;
    if (w->sub != 0) {
        free (w->seen);
        if (!(w->seen = calloc ((size_t)g->n / 8 + 1, 1)))
            return rp_error_set (error, ENOMEM, "out of memory");
    }
    if (w->sub == 0 && !start_fits (w, start))
        return 0;
    ssize_t count = 1;
    int a = visit (w, start, error);
    if (a >= 0 && a != RP_WALK_STOP)
        a = walk_loop (w, &count, error);
    w->sp = w->ntgt = 0;
    return a < 0 ? -1 : count;
}

/* --- accumulator ----------------------------------------------------- */

struct accum_item {
    rp_vertex_t v;
    int64_t score;
};

struct rp_accum {
    struct accum_item *item;
    size_t n, cap, capacity;
};

struct rp_accum *rp_accum_create (size_t capacity)
{
    struct rp_accum *a = calloc (1, sizeof (*a));
    if (!a)
        return NULL;
    a->capacity = capacity;
    return a;
}

void rp_accum_destroy (struct rp_accum *a)
{
    if (!a)
        return;
    int saved_errno = errno;
    free (a->item);
    free (a);
    errno = saved_errno;
}

/* Where an item of this score goes: after every item with a score >=
 * score (ties keep push order).  A score no higher than the last one's
 * goes at the end without a search: candidates that score alike (the
 * cores of a node) come in that way. */
static size_t accum_pos (const struct rp_accum *a, int64_t score)
{
    size_t lo = 0, hi = a->n;

    if (hi == 0 || a->item[hi - 1].score >= score)
        return hi;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->item[mid].score >= score)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int rp_accum_push (struct rp_accum *a, rp_vertex_t v, int64_t score)
{
    if (!a) {
        errno = EINVAL;
        return -1;
    }
    size_t lo = accum_pos (a, score);
    if (a->capacity && lo >= a->capacity)
        return 0; /* does not make it */
    if (a->n == a->cap && (!a->capacity || a->n < a->capacity)) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        struct accum_item *n = realloc (a->item, cap * sizeof (*n));
        if (!n)
            return -1;
        a->item = n;
        a->cap = cap;
    }
    size_t n = a->capacity && a->n == a->capacity ? a->n - 1 : a->n;
    memmove (&a->item[lo + 1], &a->item[lo], (n - lo) * sizeof (*a->item));
    a->item[lo] = (struct accum_item){ v, score };
    a->n = n + 1;
    return 0;
}

size_t rp_accum_count (const struct rp_accum *a)
{
    return a ? a->n : 0;
}

rp_vertex_t rp_accum_vertex (const struct rp_accum *a, size_t i)
{
    return a && i < a->n ? a->item[i].v : NONE;
}

int64_t rp_accum_score (const struct rp_accum *a, size_t i)
{
    return a && i < a->n ? a->item[i].score : 0;
}

void rp_accum_clear (struct rp_accum *a)
{
    if (a)
        a->n = 0;
}
