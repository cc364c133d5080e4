/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside the resource graph's own files only: the structures of a graph
 * (RFC 4) and of its allocation states, and what those files share.
 * graph.c builds and reads the model, graph_finalize.c fixes its
 * structure, graph_state.c keeps the allocation states and their
 * aggregates, graph_walk.c walks and accumulates, graph_generate.c
 * generates clusters, graph_bounds.c estimates memory.  Everything else
 * (the builders, the serializers, the matcher) sees the public API and
 * core/graph_private.h.
 *
 * Memory (RFC 4 recommends minimal vertices with the pool data kept
 * aside).  A vertex is a 32 byte struct: id, size, interned basename and
 * unit, parent, interned type, flags.  Names, uuids, ranks, properties and
 * tags live in a side table, only for vertices that have one.  After
 * finalize the containment children are a CSR array in handle order; a
 * vertex's out-edge list is stored only when it is not simply "contains"
 * edges to its children in ascending order (a non-containment edge, or
 * children added out of order): everything the builders make needs no
 * edge storage at all, not even the lists' offsets (edge_off exists only
 * when some vertex is F_EXPLICIT).  Per state, a vertex has used (8),
 * shared (4) and state (1) bytes; totals and free aggregates exist only
 * for interior vertices.  A generated cluster of 16,384 nodes (2 sockets
 * x 32 cores, 4 GPUs, memory: 1.2 million vertices) takes 57 bytes a
 * vertex plus 5 for aggregates and block summaries (62 in all, 74 MB).
 *
 * Containment by parent.  rp_graph_add_edge keeps an edge record per
 * edge (12 bytes), since its edges come in any order.  The builders that
 * own a graph from rp_graph_create to rp_graph_finalize (R in
 * graph_build.c, graph_generate.c) add each vertex under a parent that
 * exists, after the parent's other children: the edge is plain
 * (containment, "contains", ascending), so they set the parent alone and
 * keep no record, and finalize lists a vertex without records by its
 * children (as it lists any vertex whose records are plain).  They never
 * call rp_graph_add_edge, so no vertex has both kinds of edges: that
 * would lose the order between them.
 *
 * Decisions.  A vertex's rank is found by climbing to its target
 * (O(depth)) instead of being stored per vertex; two targets may not
 * share a rank.  The vertex unit is "" when there is none.
 */
#ifndef RESPOL_GRAPH_IMPL_H
#define RESPOL_GRAPH_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "respol/graph.h"
#include "core/graph_private.h"

#define BLOCK 16     /* children (or blocks) per block summary entry */
#define BLOCK_MIN 64 /* parents with more children get block summaries */
#define MAX_LEVELS 10
#define POS_CACHE 8 /* child positions cached per state */
#define FIT_MEMOS 2 /* searches kept per state (graph_state.c) */
#define WORD_MAX 64 /* type, basename, subsystem and edge type names */
#define UNIT_MAX 16
#define NONE RP_VERTEX_NONE

enum {
    F_SIDE = 1,     /* has a side table entry */
    F_TARGET = 2,   /* carries a rank */
    F_EXPLICIT = 4, /* out-edges stored explicitly */
};

struct strtab {
    char **str;
    uint32_t n, cap;
    uint32_t *slot; /* open addressing: string index + 1, 0 when empty */
    uint32_t nslot; /* power of two */
};

struct u32map {
    uint32_t *key; /* key + 1, 0 when empty */
    uint32_t *val;
    uint32_t n, nslot;
};

struct vertex {
    int64_t id;
    uint64_t size;
    uint32_t basename; /* g->strs */
    uint32_t unit;     /* g->strs; 0 is "" (none) */
    uint32_t parent;
    uint16_t type;
    uint8_t flags;
};

struct side {
    char *name;
    char *uuid;
    int64_t rank;
    json_t *props;
    json_t *tags;
};

struct edge_rec {
    uint32_t src, dst;
    uint16_t sub, type;
};

struct edge {
    uint32_t dst;
    uint16_t sub, type;
};

struct target {
    int64_t rank;
    uint32_t v;
};

/* gstate_child_fit's last search from a parent's first child in its
 * order (graph_state.c, "Searches again"). */
struct fit_memo {
    rp_vertex_t p; /* NONE: none kept */
    bool high, noneed;
    bool needs;        /* some need[t] > 0: a child with nothing free
                        * does not fit */
    uint32_t idx;      /* the child found, in search order; nkids: none */
    uint64_t need[64]; /* by type (at most 64 types kept) */
};

/* gstate_leaf_kids's last answer (graph_state.c, "Searches kept"): of
 * the graph alone, which does not change while a state lives. */
struct kids_memo {
    rp_vertex_t p; /* NONE: none kept */
    int t;
    bool leaves, ids_up, one_size;
};

struct rp_gstate {
    struct rp_graph *g;
    uint64_t *used;
    uint32_t *shared;
    uint8_t *state;
    uint64_t *agg; /* ninterior x ntypes */
    uint64_t *blk; /* block summaries, g->nblk */
    size_t nnotup; /* vertices not up: when 0, no ancestor check needed */
    /* child_pos of the last children whose summaries changed, by handle
     * modulo POS_CACHE: taking a node's vertices one by one climbs
     * through the same node each time */
    uint32_t pos_v[POS_CACHE]; /* child + 1, 0: empty */
    uint32_t pos[POS_CACHE];
    struct fit_memo memo[FIT_MEMOS];
    uint32_t memo_last; /* the entry of memo last kept or found */
    struct kids_memo kids;
    struct gindex **ix; /* classes of the children of some parents,
                         * ascending parents */
    size_t nix, ixcap;
};

struct rp_graph {
    struct vertex *v;
    uint32_t n, cap;
    struct strtab types, subs, etypes, strs;
    struct side *side;
    uint32_t nside, capside;
    struct u32map sidemap;

    /* before finalize: rp_graph_add_edge's records (a builder's
     * containment has none, "Containment by parent") */
    struct edge_rec *erec;
    size_t nerec, caperec;
    uint32_t *eslot; /* hash set of non-containment edges: erec index + 1 */
    uint32_t neslot, neset;

    /* after finalize */
    bool finalized;
    uint32_t root;
    uint32_t *child_off; /* n + 1 */
    uint32_t *child;
    uint32_t *edge_off; /* n + 1; NULL when no vertex is F_EXPLICIT */
    struct edge *edge;
    uint32_t *iidx; /* interior index or NONE */
    uint32_t ninterior;
    uint64_t *total;   /* ninterior x ntypes */
    uint64_t *blk_off; /* per interior vertex; UINT64_MAX: no summaries */
    size_t nblk;
    struct target *by_rank;
    size_t ntargets;
    struct rp_gstate *live;
    struct rp_gstate *pristine;

    uint64_t reserved; /* memory the builder holds besides (its document) */
    char namebuf[WORD_MAX + 32];
};

/* --- what the graph's files share ------------------------------------ */

static inline size_t ntypes (const struct rp_graph *g)
{
    return g->types.n;
}

static inline rp_vertex_t parent_of (const struct rp_graph *g, rp_vertex_t v)
{
    return g->v[v].parent;
}

/* The accessors of respol/graph.h that the matcher calls per unit and per
 * hold, inlined for the library's own files (a call through the library's
 * exported entry cost 10 to 23 instructions; the same answers, v out of
 * range included). */
static inline rp_vertex_t graph_parent (const struct rp_graph *g, rp_vertex_t v)
{
    return g && v < g->n ? g->v[v].parent : NONE;
}

static inline int graph_type_index (const struct rp_graph *g, rp_vertex_t v)
{
    return g && v < g->n ? (int)g->v[v].type : -1;
}

static inline int64_t graph_id (const struct rp_graph *g, rp_vertex_t v)
{
    return g && v < g->n ? g->v[v].id : -1;
}

static inline uint64_t graph_size (const struct rp_graph *g, rp_vertex_t v)
{
    return g && v < g->n ? g->v[v].size : 0;
}

static inline rp_vertex_t graph_target (const struct rp_graph *g, rp_vertex_t v)
{
    if (!g || v >= g->n)
        return NONE;
    for (; v != NONE; v = g->v[v].parent)
        if (g->v[v].flags & F_TARGET)
            return v;
    return NONE;
}

static inline enum rp_vertex_state graph_state_of (const struct rp_graph *g,
                                                   rp_vertex_t v)
{
    if (!g || !g->finalized || v >= g->n)
        return RP_VERTEX_UP;
    return (enum rp_vertex_state)g->live->state[v];
}

static inline uint32_t nkids (const struct rp_graph *g, rp_vertex_t v)
{
    return g->child_off[v + 1] - g->child_off[v];
}

static inline bool st_up (const struct rp_gstate *s, rp_vertex_t v)
{
    return s->state[v] == RP_VERTEX_UP;
}

static inline uint64_t st_free (const struct rp_gstate *s, rp_vertex_t v)
{
    if (!st_up (s, v) || s->shared[v] > 0)
        return 0;
    return s->g->v[v].size - s->used[v];
}

static inline uint64_t st_agg (const struct rp_gstate *s, rp_vertex_t v,
                               size_t t)
{
    const struct rp_graph *g = s->g;
    if (g->iidx[v] != NONE)
        return s->agg[(size_t)g->iidx[v] * ntypes (g) + t];
    return g->v[v].type == t ? st_free (s, v) : 0;
}

static inline uint64_t total_of (const struct rp_graph *g, rp_vertex_t v,
                                 size_t t)
{
    if (g->iidx[v] != NONE)
        return g->total[(size_t)g->iidx[v] * ntypes (g) + t];
    return g->v[v].type == t ? g->v[v].size : 0;
}

/* Two names for one message. */
struct names {
    char a[WORD_MAX + 32];
    char b[WORD_MAX + 32];
};

/* graph.c */
int graph_strtab_find (const struct strtab *t, const char *s);
int graph_strtab_intern (struct strtab *t, const char *s, uint32_t max);
bool graph_word_ok (const char *s, const char *extra);
int graph_check_building (struct rp_graph *g, rp_error_t *error);
/* Position of child c among its parent's children (handle order). */
size_t graph_child_pos (const struct rp_graph *g, rp_vertex_t c);
int graph_check_vertex (const struct rp_graph *g, rp_vertex_t v,
                        rp_error_t *error);
rp_vertex_t graph_vertex_add (struct rp_graph *g, int type, int base,
                              int64_t id, uint64_t size, int unit);
struct side *graph_side_get (const struct rp_graph *g, rp_vertex_t v);
struct side *graph_side_make (struct rp_graph *g, rp_vertex_t v);
int graph_erec_push (struct rp_graph *g, const struct edge_rec *e);
void graph_build_free (struct rp_graph *g);
/* v's name: its own, or basename + id written in buf. */
const char *graph_name_of (const struct rp_graph *g, rp_vertex_t v, char *buf,
                           size_t len);

/* graph_bounds.c */
uint64_t graph_add_sat (uint64_t a, uint64_t b);

/* graph_state.c */
/* Summary entries, all levels, of a parent with k children. */
size_t graph_blk_entries (size_t k);
/* A state of g: everything up and free (NULL: out of memory). */
struct rp_gstate *gstate_create (struct rp_graph *g);
void gstate_destroy (struct rp_gstate *s);
/* v and all its ancestors up: when some vertex is down, the climb (out of
 * line); else true at once (inline: a slot's leaves ask it each). */
bool gstate_path_climb (const struct rp_gstate *s, rp_vertex_t v);
static inline bool gstate_path_up (const struct rp_gstate *s, rp_vertex_t v)
{
    return s->nnotup == 0 || gstate_path_climb (s, v);
}
void gstate_set_state (struct rp_gstate *s, rp_vertex_t v, uint8_t state);

/* graph_index.c */
struct gindex;
/* The index of p's children, NULL when p has none. */
struct gindex *gstate_index_of (const struct rp_gstate *s, rp_vertex_t p);
/* v's counters, state or aggregates changed: its parent's index (if
 * any) files it again before it is next read. */
void gindex_touch (struct rp_gstate *s, rp_vertex_t v);
void gindex_destroy_all (struct rp_gstate *s);
/* The indexes agree with the state (gstate_check).  0, or -1 with the
 * first child filed under the wrong class. */
int gindex_check (const struct rp_gstate *s, rp_error_t *error);

#endif
