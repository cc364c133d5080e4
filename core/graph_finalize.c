/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Finalizing a resource graph (RFC 4): the containment tree checked (one
 * root, no cycle, no target below a target, no rank twice) and fixed as
 * arrays (children in handle order, out-edges where they are not plain
 * "contains" runs, targets by rank, interior indexes, per-type totals and
 * the place of each parent's block summaries), then the live allocation
 * state made.  The memory estimate is checked again with the exact counts
 * before the aggregates are allocated (graph_bounds.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph_impl.h"

/* --- finalize -------------------------------------------------------- */

static int cycle_error (const struct rp_graph *g, rp_vertex_t v,
                        rp_error_t *error)
{
    char buf[WORD_MAX + 32];
    for (uint32_t i = 0; i < g->n; i++)
        v = g->v[v].parent;
    rp_vertex_t min = v;
    for (rp_vertex_t u = g->v[v].parent; u != v; u = g->v[u].parent) {
        if (u < min)
            min = u;
    }
    return rp_error_set (error, EINVAL, "containment cycle through %s",
                         graph_name_of (g, min, buf, sizeof (buf)));
}

static int find_root (struct rp_graph *g, rp_vertex_t *rootp, rp_error_t *error)
{
    rp_vertex_t root = NONE;
    struct names nm;
    for (rp_vertex_t v = 0; v < g->n; v++) {
        if (g->v[v].parent != NONE)
            continue;
        if (root != NONE)
            return rp_error_set (error, EINVAL, "two roots: %s and %s",
                                 graph_name_of (g, root, nm.a, sizeof (nm.a)),
                                 graph_name_of (g, v, nm.b, sizeof (nm.b)));
        root = v;
    }
    if (root == NONE)
        return cycle_error (g, 0, error);
    *rootp = root;
    return 0;
}

struct fin {
    rp_vertex_t root;
    uint32_t *child_off, *child, *order, *iidx, *edge_off;
    struct edge *edge;
    uint64_t *total, *blk_off;
    struct target *by_rank;
    size_t ntargets, nblk;
    size_t nexplicit; /* edges stored explicitly (mark_explicit) */
    uint32_t ninterior;
};

static void fin_free (struct fin *f)
{
    free (f->child_off);
    free (f->child);
    free (f->order);
    free (f->iidx);
    free (f->edge_off);
    free (f->edge);
    free (f->total);
    free (f->blk_off);
    free (f->by_rank);
}

static int build_children (struct rp_graph *g, struct fin *f)
{
    f->child_off = calloc ((size_t)g->n + 1, sizeof (uint32_t));
    f->child = malloc (((size_t)g->n ? g->n : 1) * sizeof (uint32_t));
    if (!f->child_off || !f->child)
        return -1;
    for (rp_vertex_t v = 0; v < g->n; v++) {
        if (g->v[v].parent != NONE)
            f->child_off[g->v[v].parent + 1]++;
    }
    for (uint32_t v = 0; v < g->n; v++)
        f->child_off[v + 1] += f->child_off[v];
    uint32_t *fill = f->order; /* scratch: next free slot per parent */
    memcpy (fill, f->child_off, (size_t)g->n * sizeof (uint32_t));
    for (rp_vertex_t v = 0; v < g->n; v++) {
        if (g->v[v].parent != NONE)
            f->child[fill[g->v[v].parent]++] = v;
    }
    return 0;
}

/* Pre-order of the tree into f->order (uses iidx as the stack); returns
 * the number of vertices reached from the root. */
static uint32_t build_order (struct fin *f)
{
    uint32_t *stack = f->iidx;
    uint32_t sp = 0, n = 0;
    stack[sp++] = f->root;
    while (sp > 0) {
        rp_vertex_t v = stack[--sp];
        f->order[n++] = v;
        for (uint32_t i = f->child_off[v + 1]; i > f->child_off[v]; i--)
            stack[sp++] = f->child[i - 1];
    }
    return n;
}

static int rank_cmp (const void *a, const void *b)
{
    const struct target *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

/* Targets below targets (iidx as scratch: the target at or above v). */
static int check_ranks (struct rp_graph *g, struct fin *f, rp_error_t *error)
{
    uint32_t *above = f->iidx;
    struct names nm;
    for (uint32_t i = 0; i < g->n; i++) {
        rp_vertex_t v = f->order[i];
        rp_vertex_t p = g->v[v].parent;
        rp_vertex_t up = p == NONE ? NONE : above[p];
        above[v] = (g->v[v].flags & F_TARGET) ? v : up;
        if (!(g->v[v].flags & F_TARGET) || up == NONE)
            continue;
        return rp_error_set (error, EINVAL,
                             "%s (rank %" PRId64 ") is below"
                             " %s (rank %" PRId64 ")",
                             graph_name_of (g, v, nm.a, sizeof (nm.a)),
                             graph_side_get (g, v)->rank,
                             graph_name_of (g, up, nm.b, sizeof (nm.b)),
                             graph_side_get (g, up)->rank);
    }
    return 0;
}

static int build_targets (struct rp_graph *g, struct fin *f, rp_error_t *error)
{
    struct names nm;
    for (uint32_t i = 0; i < g->nside; i++) {
        if (g->side[i].rank >= 0)
            f->ntargets++;
    }
    f->by_rank =
        malloc ((f->ntargets ? f->ntargets : 1) * sizeof (struct target));
    if (!f->by_rank)
        return rp_error_set (error, ENOMEM, "out of memory");
    size_t k = 0;
    for (rp_vertex_t v = 0; v < g->n; v++) {
        if (g->v[v].flags & F_TARGET)
            f->by_rank[k++] = (struct target){ graph_side_get (g, v)->rank, v };
    }
    qsort (f->by_rank, k, sizeof (struct target), rank_cmp);
    for (size_t i = 1; i < k; i++) {
        if (f->by_rank[i].rank != f->by_rank[i - 1].rank)
            continue;
        return rp_error_set (
            error, EINVAL, "rank %" PRId64 " is on %s and %s",
            f->by_rank[i].rank,
            graph_name_of (g, f->by_rank[i - 1].v, nm.a, sizeof (nm.a)),
            graph_name_of (g, f->by_rank[i].v, nm.b, sizeof (nm.b)));
    }
    return 0;
}

/* The estimate with the exact counts, before the aggregates (interior
 * vertices x types, the part that no builder can know before the graph
 * exists) are allocated. */
static int check_memory (const struct rp_graph *g, const struct fin *f,
                         rp_error_t *error)
{
    struct graph_size z = {
        .vertices = g->n,
        .edges = g->nerec,
        .explicit_edges = f->nexplicit,
        .named = g->nside,
        .targets = f->ntargets,
        .interior = f->ninterior,
        .types = g->types.n,
    };
    uint64_t need = graph_add_sat (graph_memory (&z), g->reserved);
    uint64_t limit = rp_graph_memory_limit ();

    if (need <= limit)
        return 0;
    return graph_memory_error (error, need, limit,
                               "%" PRIu32 " vertices of %" PRIu32 " types need",
                               g->n, g->types.n);
}

static int build_totals (struct rp_graph *g, struct fin *f, rp_error_t *error)
{
    size_t T = g->types.n;
    for (rp_vertex_t v = 0; v < g->n; v++) {
        bool interior = f->child_off[v + 1] > f->child_off[v];
        f->iidx[v] = interior ? f->ninterior++ : NONE;
    }
    if (check_memory (g, f, error) < 0)
        return -1;
    f->total = calloc ((size_t)f->ninterior * T + 1, sizeof (uint64_t));
    f->blk_off = malloc (((size_t)f->ninterior + 1) * sizeof (uint64_t));
    if (!f->total || !f->blk_off)
        return rp_error_set (error, ENOMEM, "out of memory");
    for (rp_vertex_t v = 0; v < g->n; v++) {
        if (f->iidx[v] != NONE)
            f->total[f->iidx[v] * T + g->v[v].type] = g->v[v].size;
    }
    for (uint32_t i = g->n; i-- > 1;) {
        rp_vertex_t v = f->order[i];
        uint64_t *dst = &f->total[f->iidx[g->v[v].parent] * T];
        for (size_t t = 0; t < T; t++) {
            uint64_t add = f->iidx[v] != NONE  ? f->total[f->iidx[v] * T + t]
                           : t == g->v[v].type ? g->v[v].size
                                               : 0;
            if (__builtin_add_overflow (dst[t], add, &dst[t]))
                return rp_error_set (error, EOVERFLOW,
                                     "total size of %s"
                                     " overflows",
                                     g->types.str[t]);
        }
    }
    for (rp_vertex_t v = 0; v < g->n; v++) {
        uint32_t k = f->child_off[v + 1] - f->child_off[v];
        if (f->iidx[v] == NONE)
            continue;
        f->blk_off[f->iidx[v]] = k > BLOCK_MIN ? f->nblk : UINT64_MAX;
        if (k > BLOCK_MIN)
            f->nblk += graph_blk_entries (k) * T;
    }
    return 0;
}

/* F_EXPLICIT on the vertices whose out-edges are not exactly their
 * children in ascending order (a record that is not containment, or out
 * of order); a vertex without records (a builder's, "Containment by
 * parent" in core/graph_impl.h) is plain.  F_EXPLICIT is set here only
 * and cleared when finalize fails (clear_explicit), so no vertex has it
 * before.  Returns the number of edges stored explicitly (last: n
 * entries of scratch). */
static size_t mark_explicit (struct rp_graph *g, uint32_t *last)
{
    size_t m = 0;
    for (uint32_t v = 0; v < g->n; v++)
        last[v] = NONE;
    for (size_t i = 0; i < g->nerec; i++) {
        const struct edge_rec *e = &g->erec[i];
        struct vertex *s = &g->v[e->src];
        bool plain = e->sub == 0 && !(s->flags & F_EXPLICIT)
                     && (last[e->src] == NONE || e->dst > last[e->src]);
        if (plain)
            last[e->src] = e->dst;
        else
            s->flags |= F_EXPLICIT;
    }
    for (size_t i = 0; i < g->nerec; i++)
        m += (g->v[g->erec[i].src].flags & F_EXPLICIT) != 0;
    return m;
}

/* Undo mark_explicit: the graph as it was before finalize. */
static void clear_explicit (struct rp_graph *g)
{
    for (uint32_t v = 0; v < g->n; v++)
        g->v[v].flags &= (uint8_t)~F_EXPLICIT;
}

/* The out-edge lists of the F_EXPLICIT vertices; none (no edge_off
 * either) when there are none: every reader tests F_EXPLICIT first. */
static int build_edges (struct rp_graph *g, struct fin *f)
{
    uint32_t *next = f->order; /* scratch: next free slot per vertex */
    if (f->nexplicit == 0)
        return 0;
    f->edge_off = calloc ((size_t)g->n + 1, sizeof (uint32_t));
    f->edge = malloc (f->nexplicit * sizeof (struct edge));
    if (!f->edge_off || !f->edge)
        return -1;
    for (size_t i = 0; i < g->nerec; i++) {
        if (g->v[g->erec[i].src].flags & F_EXPLICIT)
            f->edge_off[g->erec[i].src + 1]++;
    }
    for (uint32_t v = 0; v < g->n; v++)
        f->edge_off[v + 1] += f->edge_off[v];
    memcpy (next, f->edge_off, (size_t)g->n * sizeof (uint32_t));
    for (size_t i = 0; i < g->nerec; i++) {
        const struct edge_rec *e = &g->erec[i];
        if (g->v[e->src].flags & F_EXPLICIT)
            f->edge[next[e->src]++] = (struct edge){ e->dst, e->sub, e->type };
    }
    return 0;
}

static void fin_commit (struct rp_graph *g, struct fin *f)
{
    g->root = f->root;
    g->child_off = f->child_off;
    g->child = f->child;
    g->iidx = f->iidx;
    g->ninterior = f->ninterior;
    g->edge_off = f->edge_off;
    g->edge = f->edge;
    g->total = f->total;
    g->blk_off = f->blk_off;
    g->nblk = f->nblk;
    g->by_rank = f->by_rank;
    g->ntargets = f->ntargets;
    g->finalized = true;
}

static void fin_uncommit (struct rp_graph *g)
{
    g->root = NONE;
    g->child_off = g->child = g->iidx = g->edge_off = NULL;
    g->edge = NULL;
    g->total = g->blk_off = NULL;
    g->by_rank = NULL;
    g->ninterior = 0;
    g->nblk = g->ntargets = 0;
    g->finalized = false;
}

static int fin_structure (struct rp_graph *g, struct fin *f, rp_error_t *error)
{
    if (find_root (g, &f->root, error) < 0)
        return -1;
    f->order = malloc ((size_t)g->n * sizeof (uint32_t));
    f->iidx = malloc ((size_t)g->n * sizeof (uint32_t));
    if (!f->order || !f->iidx || build_children (g, f) < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    uint32_t reached = build_order (f);
    if (reached < g->n) {
        memset (f->iidx, 0, (size_t)g->n * sizeof (uint32_t));
        for (uint32_t i = 0; i < reached; i++)
            f->iidx[f->order[i]] = 1;
        rp_vertex_t v = 0;
        while (f->iidx[v])
            v++;
        return cycle_error (g, v, error);
    }
    if (check_ranks (g, f, error) < 0 || build_targets (g, f, error) < 0)
        return -1;
    f->nexplicit = mark_explicit (g, f->iidx); /* before build_totals */
    return build_totals (g, f, error);
}

int rp_graph_finalize (struct rp_graph *g, rp_error_t *error)
{
    struct fin f = { 0 };
    if (graph_check_building (g, error) < 0)
        return -1;
    if (g->n == 0)
        return rp_error_set (error, EINVAL, "graph has no vertices");
    if (fin_structure (g, &f, error) < 0)
        goto error;
    if (build_edges (g, &f) < 0)
        goto nomem;
    free (f.order); /* scratch, given back before the live state is made */
    f.order = NULL;
    fin_commit (g, &f);
    if (!(g->live = gstate_create (g))) {
        fin_uncommit (g);
        goto nomem;
    }
    graph_build_free (g);
    return 0;
nomem:
    rp_error_set (error, ENOMEM, "out of memory");
error:
    clear_explicit (g);
    fin_free (&f);
    return -1;
}

bool rp_graph_is_finalized (const struct rp_graph *g)
{
    return g && g->finalized;
}
