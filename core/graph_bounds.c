/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The memory a resource graph will take (core/graph_private.h "bounds"),
 * and the process-wide limit every builder checks it against.
 *
 * graph_memory () counts what the graph's files allocate per vertex, edge
 * record, side entry, target, interior vertex and (interior vertex, type)
 * pair, at the larger of finalize's peak and the peak of a graph in use
 * (a pristine state and a matcher).  The builders check it against the
 * process-wide limit from what they are asked for before they allocate in
 * proportion to it; finalize checks it again with exact counts before the
 * aggregates (interior x types, which no builder sees coming) are
 * allocated, so a graph built by hand is bounded too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>

#include "core/graph_impl.h"

/* --- bounds ---------------------------------------------------------- */

/* The estimate counts what the code below allocates, per vertex, edge
 * record, side entry, target, interior vertex and (interior vertex, type)
 * pair, at the two peaks of a graph's life: while finalize builds the
 * structure (rp_graph_add_edge's edge records and the pre-order are still
 * there; the builders' containment has no records) and once the graph is
 * used (a pristine state and a matcher exist).  The out-edge offsets
 * exist only when some edges are stored explicitly.  doc/formats.md
 * compares it with the peak RSS measured. */
enum {
    COST_VERTEX = 32 + 3 * 4, /* struct vertex; child_off, child, iidx */
    COST_EDGE_OFF = 4,        /* edge_off, when some edge is explicit */
    COST_FINALIZING = 4,      /* order */
    COST_STATE = 8 + 4 + 1,   /* used, shared, state: per gstate */
    COST_MATCHER = 4 * 4,     /* mark, where, hepoch, hrow (match.c) */
    COST_EDGE_RECORD = 12,    /* struct edge_rec, until finalized */
    COST_EDGE = 8,            /* struct edge, when stored explicitly */
    COST_SIDE = 40 + 32 + 32, /* struct side, its map slots, a name */
    COST_TARGET = 16,         /* struct target */
    COST_INTERIOR = 8,        /* blk_off */
    COST_AGG = 8,             /* total, and agg per gstate */
};

static _Atomic uint64_t memory_limit = RP_GRAPH_MEMORY_DEFAULT;

int rp_graph_set_memory_limit (uint64_t bytes)
{
    if (bytes < RP_GRAPH_MEMORY_MIN) {
        errno = EINVAL;
        return -1;
    }
    atomic_store_explicit (&memory_limit, bytes, memory_order_relaxed);
    return 0;
}

uint64_t rp_graph_memory_limit (void)
{
    return atomic_load_explicit (&memory_limit, memory_order_relaxed);
}

int rp_graph_memory_parse (const char *text, uint64_t *bytes, rp_error_t *error)
{
    uint64_t v = 0, unit = 1;
    size_t i = 0;
    bool over = false;

    for (; text && text[i] >= '0' && text[i] <= '9'; i++)
        over = over || __builtin_mul_overflow (v, 10, &v)
               || __builtin_add_overflow (v, (uint64_t)(text[i] - '0'), &v);
    if (i > 0 && text[i])
        unit = units_bytes (text + i);
    if (i == 0 || unit == 0)
        return rp_error_set (error, EINVAL,
                             "memory limit \"%s\": a whole number of bytes,"
                             " or with a unit: KB, MB, GB, TB",
                             text ? text : "(null)");
    if (over || __builtin_mul_overflow (v, unit, &v))
        return rp_error_set (error, EINVAL, "memory limit \"%s\": too large",
                             text);
    if (v < RP_GRAPH_MEMORY_MIN)
        return rp_error_set (error, EINVAL,
                             "memory limit \"%s\": less than 1MB", text);
    if (bytes)
        *bytes = v;
    return 0;
}

static uint64_t mul_sat (uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_mul_overflow (a, b, &r) ? UINT64_MAX : r;
}

uint64_t graph_add_sat (uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow (a, b, &r) ? UINT64_MAX : r;
}

/* Block summaries: at most one entry per 15 children and type, per
 * gstate (graph_blk_entries). */
static uint64_t blk_cost (const struct graph_size *z)
{
    return mul_sat (mul_sat (z->vertices / 15 + 1, z->types), 8);
}

uint64_t graph_memory (const struct graph_size *z)
{
    uint64_t common = 0, build, kept, agg, v;

    common = graph_add_sat (common, mul_sat (z->explicit_edges, COST_EDGE));
    if (z->explicit_edges > 0)
        common =
            graph_add_sat (common, mul_sat (z->vertices + 1, COST_EDGE_OFF));
    common = graph_add_sat (common, mul_sat (z->named, COST_SIDE));
    common = graph_add_sat (common, mul_sat (z->targets, COST_TARGET));
    common = graph_add_sat (common, mul_sat (z->interior, COST_INTERIOR));
    agg = mul_sat (mul_sat (z->interior, z->types), COST_AGG);
    /* finalize: total, one gstate; then pristine and matcher too */
    v = mul_sat (z->vertices, COST_VERTEX + COST_FINALIZING + COST_STATE);
    build =
        graph_add_sat (graph_add_sat (v, mul_sat (z->edges, COST_EDGE_RECORD)),
                       graph_add_sat (mul_sat (agg, 2), blk_cost (z)));
    v = mul_sat (z->vertices, COST_VERTEX + 2 * COST_STATE + COST_MATCHER);
    kept = graph_add_sat (
        v, graph_add_sat (mul_sat (agg, 3), mul_sat (blk_cost (z), 2)));
    return graph_add_sat (common, build > kept ? build : kept);
}

/* Whole MiB: rounded up for an estimate, down for the limit, so that the
 * two never print equal when one is more than the other. */
static uint64_t mib_up (uint64_t bytes)
{
    return bytes / (1 << 20) + (bytes % (1 << 20) != 0);
}

int graph_memory_error (rp_error_t *error, uint64_t need, uint64_t limit,
                        const char *fmt, ...)
{
    char what[RP_ERROR_TEXT_SIZE];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (what, sizeof (what), fmt, ap);
    va_end (ap);
    return rp_error_set (error, E2BIG,
                         "%s about %" PRIu64 " MiB, more than the memory"
                         " limit of %" PRIu64 " MiB",
                         what, mib_up (need), limit >> 20);
}

uint64_t graph_memory_of (const struct rp_graph *g)
{
    struct graph_size z = {
        .vertices = g->n,
        .edges = g->nerec,
        .explicit_edges = g->edge_off ? g->edge_off[g->n] : 0,
        .named = g->nside,
        .targets = g->ntargets,
        .interior = g->ninterior,
        .types = g->types.n,
    };
    return graph_memory (&z);
}

void graph_set_reserved (struct rp_graph *g, uint64_t bytes)
{
    if (g)
        g->reserved = bytes;
}
