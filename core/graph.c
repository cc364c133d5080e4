/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The resource graph (RFC 4 "Resource Pool Data Model", "Graph Data Model",
 * "Abstract Interfaces"): building, finalizing, reading, extended data
 * (state, tags), the allocation states of core/graph_private.h, the walker
 * and the accumulator, and the memory estimate (graph_private.h) that
 * every builder checks before it builds.  Builders and serializers
 * (graph_build.c, graph_io.c) use the public API and that estimate.
 *
 * Memory (RFC 4 recommends minimal vertices with the pool data kept
 * aside).  A vertex is a 32 byte struct: id, size, interned basename and
 * unit, parent, interned type, flags.  Names, uuids, ranks, properties and
 * tags live in a side table, only for vertices that have one.  After
 * finalize the containment children are a CSR array in handle order; a
 * vertex's out-edge list is stored only when it is not simply "contains"
 * edges to its children in ascending order (a non-containment edge, or
 * children added out of order): everything the builders make needs no
 * edge storage at all.  Per state, a vertex has used (8), shared (4) and
 * state (1) bytes; totals and free aggregates exist only for interior
 * vertices.  A generated cluster of 16,384 nodes (2 sockets x 32 cores, 4
 * GPUs, memory: 1.2 million vertices) takes 61 bytes a vertex plus 5 for
 * aggregates and block summaries (66 in all, 79 MB).
 *
 * Bounds.  graph_memory () counts what the code below allocates per
 * vertex, edge record, side entry, target, interior vertex and (interior
 * vertex, type) pair, at the larger of finalize's peak and the peak of a
 * graph in use (a pristine state and a matcher).  The builders check it
 * against the process-wide limit from what they are asked for before
 * they allocate in proportion to it; finalize checks it again with exact
 * counts before the aggregates (interior x types, which no builder sees
 * coming) are allocated, so a graph built by hand is bounded too.
 *
 * Aggregates.  agg(v, t) (graph_private.h) of an interior vertex is kept
 * in an array interior index x ntypes; a leaf's is computed from its
 * counters.  A child contributes agg(child) to its parent when it is up,
 * nothing otherwise, so a change at v travels up the parent chain and
 * stops after the first ancestor that is not up.  Parents with more than
 * BLOCK_MIN children also keep block summaries: level 1 keeps, per type,
 * the largest contribution among BLOCK consecutive children, level 2 the
 * largest of BLOCK level 1 entries, and so on until a level has at most
 * BLOCK entries.  gstate_child_fit searches them like a B-ary segment
 * tree: a block whose maximum of some needed type is below the need holds
 * no child that could take it, so "4 GPUs on one node" among 16,384 nodes
 * with 3 free each fails after 46 looks, not 16,384.  Maxima, not sums: a
 * sum below the need implies a maximum below it, so sums would skip
 * nothing more.  An increase updates a maximum in O(1) per level; a
 * decrease of an entry's maximum rescans the entry from the next member
 * on, up to the first that still has the old maximum (at most BLOCK).
 * BLOCK_MIN is 64: below it a plain scan costs about what the summaries
 * save and updates are cheaper (with 32, sockets of 35 children had
 * summaries: whole-node matches were 10% slower and the state 4.7 MB
 * larger at 16,384 nodes).
 *
 * Walks never recurse: an explicit stack of frames, one per vertex on the
 * current path (containment) or per vertex entered (other subsystems,
 * with a visited bitmap, so cycles are harmless).
 *
 * Decisions.  The public free amounts are 0 below a vertex that is not
 * up; the state counts such vertices, so the ancestor check costs nothing
 * while all are up and O(depth) otherwise.  A vertex's rank is found by
 * climbing to its target (O(depth)) instead of being stored per vertex;
 * two targets may not share a rank.  Containment "in" edges are checked
 * and dropped, whether or not a "contains" edge matches them.  In other
 * subsystems LOW walks a vertex's targets in ascending handle order,
 * HIGH descending, and needs are refused there.  With needs, a walk
 * enters only children that are up; without, every child.  The vertex
 * unit is "" when there is none.  The generator takes racks=0 and gpus=0
 * as "none", names nodes with the prefix as basename (so name = prefix +
 * rank with no side entry), and refuses empty items (",,").
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/graph.h"
#include "core/graph_private.h"

#define BLOCK 16     /* children (or blocks) per block summary entry */
#define BLOCK_MIN 64 /* parents with more children get block summaries */
#define MAX_LEVELS 10
#define POS_CACHE 8 /* child positions cached per state */
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
};

struct rp_graph {
    struct vertex *v;
    uint32_t n, cap;
    struct strtab types, subs, etypes, strs;
    struct side *side;
    uint32_t nside, capside;
    struct u32map sidemap;

    /* before finalize */
    struct edge_rec *erec;
    size_t nerec, caperec;
    uint32_t *eslot; /* hash set of non-containment edges: erec index + 1 */
    uint32_t neslot, neset;

    /* after finalize */
    bool finalized;
    uint32_t root;
    uint32_t *child_off; /* n + 1 */
    uint32_t *child;
    uint32_t *edge_off; /* n + 1 */
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

/* --- small containers ------------------------------------------------ */

static uint32_t hash_str (const char *s)
{
    uint32_t h = 2166136261u;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 16777619u;
    return h;
}

static uint32_t hash_u32 (uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static void strtab_free (struct strtab *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free (t->str[i]);
    free (t->str);
    free (t->slot);
    memset (t, 0, sizeof (*t));
}

static int strtab_find (const struct strtab *t, const char *s)
{
    if (t->nslot == 0)
        return -1;
    uint32_t mask = t->nslot - 1;
    for (uint32_t i = hash_str (s) & mask; t->slot[i]; i = (i + 1) & mask) {
        if (!strcmp (t->str[t->slot[i] - 1], s))
            return (int)(t->slot[i] - 1);
    }
    return -1;
}

static int strtab_rehash (struct strtab *t, uint32_t nslot)
{
    uint32_t *slot = calloc (nslot, sizeof (*slot));
    if (!slot)
        return -1;
    for (uint32_t k = 0; k < t->n; k++) {
        uint32_t i = hash_str (t->str[k]) & (nslot - 1);
        while (slot[i])
            i = (i + 1) & (nslot - 1);
        slot[i] = k + 1;
    }
    free (t->slot);
    t->slot = slot;
    t->nslot = nslot;
    return 0;
}

/* Index of s, added if new; -1 on ENOMEM or when the table has max. */
static int strtab_intern (struct strtab *t, const char *s, uint32_t max)
{
    int i = strtab_find (t, s);
    if (i >= 0)
        return i;
    if (t->n >= max)
        return -1;
    if ((t->n + 1) * 2 > t->nslot
        && strtab_rehash (t, t->nslot ? t->nslot * 2 : 16) < 0)
        return -1;
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 8;
        char **str = realloc (t->str, cap * sizeof (*str));
        if (!str)
            return -1;
        t->str = str;
        t->cap = cap;
    }
    char *copy = strdup (s);
    if (!copy)
        return -1;
    uint32_t mask = t->nslot - 1;
    uint32_t k = hash_str (s) & mask;
    while (t->slot[k])
        k = (k + 1) & mask;
    t->str[t->n++] = copy;
    t->slot[k] = t->n;
    return (int)(t->n - 1);
}

static void u32map_free (struct u32map *m)
{
    free (m->key);
    free (m->val);
    memset (m, 0, sizeof (*m));
}

static uint32_t u32map_slot (const struct u32map *m, uint32_t key)
{
    uint32_t mask = m->nslot - 1;
    uint32_t i = hash_u32 (key) & mask;
    while (m->key[i] && m->key[i] != key + 1)
        i = (i + 1) & mask;
    return i;
}

static bool u32map_get (const struct u32map *m, uint32_t key, uint32_t *val)
{
    if (m->nslot == 0)
        return false;
    uint32_t i = u32map_slot (m, key);
    if (!m->key[i])
        return false;
    *val = m->val[i];
    return true;
}

static int u32map_grow (struct u32map *m)
{
    struct u32map new = { .nslot = m->nslot ? m->nslot * 2 : 64 };
    new.key = calloc (new.nslot, sizeof (uint32_t));
    new.val = calloc (new.nslot, sizeof (uint32_t));
    if (!new.key || !new.val) {
        u32map_free (&new);
        return -1;
    }
    for (uint32_t i = 0; i < m->nslot; i++) {
        if (!m->key[i])
            continue;
        uint32_t j = u32map_slot (&new, m->key[i] - 1);
        new.key[j] = m->key[i];
        new.val[j] = m->val[i];
    }
    new.n = m->n;
    u32map_free (m);
    *m = new;
    return 0;
}

/* Insert a key that is not in the map. */
static int u32map_put (struct u32map *m, uint32_t key, uint32_t val)
{
    if ((m->n + 1) * 2 > m->nslot && u32map_grow (m) < 0)
        return -1;
    uint32_t i = u32map_slot (m, key);
    m->key[i] = key + 1;
    m->val[i] = val;
    m->n++;
    return 0;
}

/* --- bounds ---------------------------------------------------------- */

/* The estimate counts what the code below allocates, per vertex, edge
 * record, side entry, target, interior vertex and (interior vertex, type)
 * pair, at the two peaks of a graph's life: while finalize builds the
 * structure (the edge records, the pre-order and the saved flags are still
 * there) and once the graph is used (a pristine state and a matcher
 * exist).  doc/formats.md compares it with the peak RSS measured. */
enum {
    COST_VERTEX = 32 + 4 * 4, /* struct vertex; child_off, child, iidx,
                               * edge_off */
    COST_FINALIZING = 4 + 1,  /* order, saved flags */
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

static uint64_t add_sat (uint64_t a, uint64_t b)
{
    uint64_t r;
    return __builtin_add_overflow (a, b, &r) ? UINT64_MAX : r;
}

/* Block summaries: at most one entry per 15 children and type, per
 * gstate (blk_entries). */
static uint64_t blk_cost (const struct graph_size *z)
{
    return mul_sat (mul_sat (z->vertices / 15 + 1, z->types), 8);
}

uint64_t graph_memory (const struct graph_size *z)
{
    uint64_t common = 0, build, kept, agg, v;

    common = add_sat (common, mul_sat (z->explicit_edges, COST_EDGE));
    common = add_sat (common, mul_sat (z->named, COST_SIDE));
    common = add_sat (common, mul_sat (z->targets, COST_TARGET));
    common = add_sat (common, mul_sat (z->interior, COST_INTERIOR));
    agg = mul_sat (mul_sat (z->interior, z->types), COST_AGG);
    /* finalize: total, one gstate; then pristine and matcher too */
    v = mul_sat (z->vertices, COST_VERTEX + COST_FINALIZING + COST_STATE);
    build = add_sat (add_sat (v, mul_sat (z->edges, COST_EDGE_RECORD)),
                     add_sat (mul_sat (agg, 2), blk_cost (z)));
    v = mul_sat (z->vertices, COST_VERTEX + 2 * COST_STATE + COST_MATCHER);
    kept = add_sat (v, add_sat (mul_sat (agg, 3), mul_sat (blk_cost (z), 2)));
    return add_sat (common, build > kept ? build : kept);
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

/* --- building -------------------------------------------------------- */

static void side_free (struct side *s)
{
    free (s->name);
    free (s->uuid);
    json_decref (s->props);
    json_decref (s->tags);
}

static void gstate_destroy (struct rp_gstate *s)
{
    if (!s)
        return;
    free (s->used);
    free (s->shared);
    free (s->state);
    free (s->agg);
    free (s->blk);
    free (s);
}

static void build_free (struct rp_graph *g)
{
    free (g->erec);
    free (g->eslot);
    g->erec = NULL;
    g->eslot = NULL;
    g->nerec = g->caperec = 0;
    g->neslot = g->neset = 0;
}

void rp_graph_destroy (struct rp_graph *g)
{
    if (!g)
        return;
    int saved_errno = errno;
    for (uint32_t i = 0; i < g->nside; i++)
        side_free (&g->side[i]);
    free (g->side);
    u32map_free (&g->sidemap);
    strtab_free (&g->types);
    strtab_free (&g->subs);
    strtab_free (&g->etypes);
    strtab_free (&g->strs);
    build_free (g);
    free (g->v);
    free (g->child_off);
    free (g->child);
    free (g->edge_off);
    free (g->edge);
    free (g->iidx);
    free (g->total);
    free (g->blk_off);
    free (g->by_rank);
    gstate_destroy (g->live);
    gstate_destroy (g->pristine);
    free (g);
    errno = saved_errno;
}

struct rp_graph *rp_graph_create (void)
{
    struct rp_graph *g = calloc (1, sizeof (*g));
    if (!g)
        return NULL;
    g->root = NONE;
    if (strtab_intern (&g->strs, "", UINT32_MAX) != 0
        || strtab_intern (&g->subs, RP_GRAPH_CONTAINMENT, 1) != 0
        || strtab_intern (&g->etypes, "contains", 2) != 0
        || strtab_intern (&g->etypes, "in", 2) != 1)
        goto nomem;
    return g;
nomem:
    rp_graph_destroy (g);
    errno = ENOMEM;
    return NULL;
}

/* letters, digits and the characters of extra; 1 .. WORD_MAX bytes */
static bool word_ok (const char *s, const char *extra)
{
    size_t len = s ? strlen (s) : 0;
    if (len == 0 || len > WORD_MAX)
        return false;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
                     || (c >= '0' && c <= '9');
        if (!alnum && !strchr (extra, c))
            return false;
    }
    return true;
}

/* printable ASCII, 1 .. max bytes */
static bool text_ok (const char *s, size_t max)
{
    size_t len = s ? strlen (s) : 0;
    if (len == 0 || len > max)
        return false;
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
            return false;
    }
    return true;
}

static int check_building (struct rp_graph *g, rp_error_t *error)
{
    if (!g)
        return rp_error_set (error, EINVAL, "no graph");
    if (g->finalized)
        return rp_error_set (error, EBUSY, "graph is finalized");
    return 0;
}

static int check_vertex (const struct rp_graph *g, rp_vertex_t v,
                         rp_error_t *error)
{
    if (v >= g->n)
        return rp_error_set (error, EINVAL, "no vertex %" PRIu32, v);
    return 0;
}

static int vertex_reserve (struct rp_graph *g, size_t n)
{
    if (n <= g->cap)
        return 0;
    struct vertex *v = realloc (g->v, n * sizeof (*v));
    if (!v)
        return -1;
    g->v = v;
    g->cap = (uint32_t)n;
    return 0;
}

int graph_reserve (struct rp_graph *g, size_t vertices, size_t edges,
                   size_t side)
{
    if (vertices > RP_GRAPH_MAX_VERTICES)
        vertices = RP_GRAPH_MAX_VERTICES;
    if (vertex_reserve (g, vertices) < 0)
        return -1;
    if (edges > g->caperec) {
        struct edge_rec *e = realloc (g->erec, edges * sizeof (*e));
        if (!e)
            return -1;
        g->erec = e;
        g->caperec = edges;
    }
    if (side > g->capside && side <= UINT32_MAX) {
        struct side *n = realloc (g->side, side * sizeof (*n));
        if (!n)
            return -1;
        g->side = n;
        g->capside = (uint32_t)side;
    }
    return 0;
}

/* Add a vertex from interned indexes (types, strs). */
static rp_vertex_t vertex_add (struct rp_graph *g, int type, int base,
                               int64_t id, uint64_t size, int unit)
{
    if (g->n == g->cap) {
        size_t cap = g->cap ? (size_t)g->cap * 2 : 64;
        if (cap > RP_GRAPH_MAX_VERTICES)
            cap = RP_GRAPH_MAX_VERTICES;
        if (vertex_reserve (g, cap) < 0)
            return NONE;
    }
    struct vertex *x = &g->v[g->n];
    x->id = id;
    x->size = size;
    x->basename = (uint32_t)base;
    x->unit = (uint32_t)unit;
    x->parent = NONE;
    x->type = (uint16_t)type;
    x->flags = 0;
    return g->n++;
}

static int check_vertex_args (const char *type, const char *basename,
                              int64_t id, uint64_t size, const char *unit,
                              rp_error_t *error)
{
    if (!word_ok (type, "-_"))
        return rp_error_set (error, EINVAL,
                             "bad type '%s': letters, digits, '-', '_'"
                             " (1-64)",
                             type ? type : "(null)");
    if (basename && !text_ok (basename, WORD_MAX))
        return rp_error_set (error, EINVAL,
                             "bad basename '%s': printable, 1-64 bytes",
                             basename);
    if (id < -1)
        return rp_error_set (error, EINVAL,
                             "bad id %" PRId64 ": must be >= 0, or -1 for none",
                             id);
    if (size == 0)
        return rp_error_set (error, EINVAL, "%s: size must be >= 1", type);
    if (unit && *unit && (!word_ok (unit, "") || strlen (unit) > UNIT_MAX))
        return rp_error_set (error, EINVAL,
                             "bad unit '%s': letters and digits, 1-16", unit);
    return 0;
}

rp_vertex_t rp_graph_add_vertex (struct rp_graph *g, const char *type,
                                 const char *basename, int64_t id,
                                 uint64_t size, const char *unit,
                                 rp_error_t *error)
{
    if (check_building (g, error) < 0
        || check_vertex_args (type, basename, id, size, unit, error) < 0)
        return NONE;
    if (g->n >= RP_GRAPH_MAX_VERTICES) {
        rp_error_set (error, E2BIG, "more than %u vertices",
                      RP_GRAPH_MAX_VERTICES);
        return NONE;
    }
    int t = strtab_intern (&g->types, type, UINT16_MAX);
    int b = t < 0 ? -1
                  : strtab_intern (&g->strs, basename ? basename : type,
                                   UINT32_MAX);
    int u = b < 0 ? -1 : strtab_intern (&g->strs, unit ? unit : "", UINT32_MAX);
    if (t < 0 && g->types.n >= UINT16_MAX) {
        rp_error_set (error, E2BIG, "more than %u types", UINT16_MAX);
        return NONE;
    }
    rp_vertex_t v = u < 0 ? NONE : vertex_add (g, t, b, id, size, u);
    if (v == NONE)
        rp_error_set (error, ENOMEM, "out of memory");
    return v;
}

/* The side entry of v, or NULL. */
static struct side *side_get (const struct rp_graph *g, rp_vertex_t v)
{
    uint32_t i;
    if (!(g->v[v].flags & F_SIDE) || !u32map_get (&g->sidemap, v, &i))
        return NULL;
    return &g->side[i];
}

/* The side entry of v, created if need be (NULL on ENOMEM). */
static struct side *side_make (struct rp_graph *g, rp_vertex_t v)
{
    struct side *s = side_get (g, v);
    if (s)
        return s;
    if (g->nside == g->capside) {
        uint32_t cap = g->capside ? g->capside * 2 : 16;
        struct side *n = realloc (g->side, cap * sizeof (*n));
        if (!n)
            return NULL;
        g->side = n;
        g->capside = cap;
    }
    if (u32map_put (&g->sidemap, v, g->nside) < 0)
        return NULL;
    s = &g->side[g->nside++];
    memset (s, 0, sizeof (*s));
    s->rank = -1;
    g->v[v].flags |= F_SIDE;
    return s;
}

static int set_string (struct rp_graph *g, rp_vertex_t v, const char *what,
                       const char *value, size_t offset, rp_error_t *error)
{
    if (check_building (g, error) < 0 || check_vertex (g, v, error) < 0)
        return -1;
    if (!text_ok (value, 1024))
        return rp_error_set (error, EINVAL,
                             "bad %s '%s': printable, 1-1024"
                             " bytes",
                             what, value ? value : "(null)");
    char *copy = strdup (value);
    struct side *s = copy ? side_make (g, v) : NULL;
    if (!s) {
        free (copy);
        return rp_error_set (error, ENOMEM, "out of memory");
    }
    char **field = (char **)((char *)s + offset);
    free (*field);
    *field = copy;
    return 0;
}

int rp_graph_set_name (struct rp_graph *g, rp_vertex_t v, const char *name,
                       rp_error_t *error)
{
    return set_string (g, v, "name", name, offsetof (struct side, name), error);
}

int rp_graph_set_uuid (struct rp_graph *g, rp_vertex_t v, const char *uuid,
                       rp_error_t *error)
{
    return set_string (g, v, "uuid", uuid, offsetof (struct side, uuid), error);
}

int rp_graph_set_rank (struct rp_graph *g, rp_vertex_t v, int64_t rank,
                       rp_error_t *error)
{
    if (check_building (g, error) < 0 || check_vertex (g, v, error) < 0)
        return -1;
    if (rank < 0)
        return rp_error_set (error, EINVAL, "bad rank %" PRId64, rank);
    struct side *s = side_make (g, v);
    if (!s)
        return rp_error_set (error, ENOMEM, "out of memory");
    s->rank = rank;
    g->v[v].flags |= F_TARGET;
    return 0;
}

int rp_graph_add_property (struct rp_graph *g, rp_vertex_t v, const char *name,
                           const char *value, rp_error_t *error)
{
    if (check_building (g, error) < 0 || check_vertex (g, v, error) < 0
        || rp_rset_property_check (name, error) < 0)
        return -1;
    json_t *o = value ? json_string (value) : json_null ();
    if (!o && value)
        return rp_error_set (error, EINVAL,
                             "value of property '%s' is not"
                             " UTF-8",
                             name);
    struct side *s = o ? side_make (g, v) : NULL;
    if (s && !s->props)
        s->props = json_object ();
    if (!s || !s->props || json_object_set_new (s->props, name, o) < 0) {
        json_decref (o);
        return rp_error_set (error, ENOMEM, "out of memory");
    }
    return 0;
}

static uint32_t hash_edge (const struct edge_rec *e)
{
    return hash_u32 (
        e->src
        ^ hash_u32 (e->dst ^ hash_u32 (((uint32_t)e->sub << 16) | e->type)));
}

static bool edge_eq (const struct edge_rec *a, const struct edge_rec *b)
{
    return a->src == b->src && a->dst == b->dst && a->sub == b->sub
           && a->type == b->type;
}

/* Slot of e in the edge set: its own, or the empty one where it goes. */
static uint32_t eset_slot (const struct rp_graph *g, const struct edge_rec *e)
{
    uint32_t mask = g->neslot - 1;
    uint32_t i = hash_edge (e) & mask;
    while (g->eslot[i] && !edge_eq (&g->erec[g->eslot[i] - 1], e))
        i = (i + 1) & mask;
    return i;
}

static int eset_grow (struct rp_graph *g)
{
    uint32_t n = g->neslot ? g->neslot * 2 : 64;
    uint32_t *slot = calloc (n, sizeof (*slot));
    if (!slot)
        return -1;
    uint32_t *old = g->eslot;
    uint32_t nold = g->neslot;
    g->eslot = slot;
    g->neslot = n;
    for (uint32_t i = 0; i < nold; i++) {
        if (old[i])
            slot[eset_slot (g, &g->erec[old[i] - 1])] = old[i];
    }
    free (old);
    return 0;
}

static int erec_push (struct rp_graph *g, const struct edge_rec *e)
{
    if (g->nerec == g->caperec) {
        size_t cap = g->caperec ? g->caperec * 2 : 64;
        struct edge_rec *n = realloc (g->erec, cap * sizeof (*n));
        if (!n)
            return -1;
        g->erec = n;
        g->caperec = cap;
    }
    g->erec[g->nerec++] = *e;
    return 0;
}

static int add_contains (struct rp_graph *g, const struct edge_rec *e,
                         rp_error_t *error)
{
    struct vertex *d = &g->v[e->dst];
    if (d->parent == e->src)
        return rp_error_set (error, EEXIST,
                             "duplicate edge %" PRIu32 " -> %" PRIu32
                             " (containment contains)",
                             e->src, e->dst);
    if (d->parent != NONE)
        return rp_error_set (error, EINVAL,
                             "vertex %" PRIu32 " has a parent"
                             " (%" PRIu32 "): a second one (%" PRIu32 ")"
                             " is refused",
                             e->dst, d->parent, e->src);
    if (erec_push (g, e) < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    d->parent = e->src;
    return 0;
}

static int add_other (struct rp_graph *g, const struct edge_rec *e,
                      rp_error_t *error)
{
    if ((g->neset + 1) * 2 > g->neslot && eset_grow (g) < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    uint32_t i = eset_slot (g, e);
    if (g->eslot[i])
        return rp_error_set (
            error, EEXIST, "duplicate edge %" PRIu32 " -> %" PRIu32 " (%s %s)",
            e->src, e->dst, g->subs.str[e->sub], g->etypes.str[e->type]);
    if (erec_push (g, e) < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    g->eslot[i] = (uint32_t)g->nerec;
    g->neset++;
    return 0;
}

int rp_graph_add_edge (struct rp_graph *g, rp_vertex_t src, rp_vertex_t dst,
                       const char *subsystem, const char *type,
                       rp_error_t *error)
{
    if (check_building (g, error) < 0 || check_vertex (g, src, error) < 0
        || check_vertex (g, dst, error) < 0)
        return -1;
    if (!word_ok (subsystem, "-_. "))
        return rp_error_set (error, EINVAL,
                             "bad subsystem '%s': letters,"
                             " digits, '-', '_', '.', ' ' (1-64)",
                             subsystem ? subsystem : "(null)");
    if (!word_ok (type, "-_. "))
        return rp_error_set (error, EINVAL,
                             "bad edge type '%s': letters,"
                             " digits, '-', '_', '.', ' ' (1-64)",
                             type ? type : "(null)");
    bool contain = !strcmp (subsystem, RP_GRAPH_CONTAINMENT);
    if (contain && strcmp (type, "contains") && strcmp (type, "in"))
        return rp_error_set (error, EINVAL,
                             "containment edges are 'contains'"
                             " or 'in', not '%s'",
                             type);
    if (contain && !strcmp (type, "in"))
        return 0; /* implied by the "contains" edge */
    int sub = strtab_find (&g->subs, subsystem);
    int et = strtab_find (&g->etypes, type);
    if ((sub < 0 && g->subs.n >= UINT16_MAX)
        || (et < 0 && g->etypes.n >= UINT16_MAX))
        return rp_error_set (error, E2BIG, "too many subsystems or edge types");
    struct edge_rec e = { .src = src, .dst = dst };
    if (contain)
        return add_contains (g, &(struct edge_rec){ src, dst, 0, 0 }, error);
    if (sub < 0)
        sub = strtab_intern (&g->subs, subsystem, UINT16_MAX);
    if (et < 0)
        et = strtab_intern (&g->etypes, type, UINT16_MAX);
    if (sub < 0 || et < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    e.sub = (uint16_t)sub;
    e.type = (uint16_t)et;
    return add_other (g, &e, error);
}

/* --- names ----------------------------------------------------------- */

static const char *name_of (const struct rp_graph *g, rp_vertex_t v, char *buf,
                            size_t len)
{
    struct side *s = side_get (g, v);
    if (s && s->name)
        return s->name;
    const struct vertex *x = &g->v[v];
    const char *base = g->strs.str[x->basename];
    if (x->id < 0)
        return base;
    snprintf (buf, len, "%s%" PRId64, base, x->id);
    return buf;
}

/* Two names for one message. */
struct names {
    char a[WORD_MAX + 32];
    char b[WORD_MAX + 32];
};

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
                         name_of (g, min, buf, sizeof (buf)));
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
                                 name_of (g, root, nm.a, sizeof (nm.a)),
                                 name_of (g, v, nm.b, sizeof (nm.b)));
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
        return rp_error_set (
            error, EINVAL,
            "%s (rank %" PRId64 ") is below"
            " %s (rank %" PRId64 ")",
            name_of (g, v, nm.a, sizeof (nm.a)), side_get (g, v)->rank,
            name_of (g, up, nm.b, sizeof (nm.b)), side_get (g, up)->rank);
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
            f->by_rank[k++] = (struct target){ side_get (g, v)->rank, v };
    }
    qsort (f->by_rank, k, sizeof (struct target), rank_cmp);
    for (size_t i = 1; i < k; i++) {
        if (f->by_rank[i].rank != f->by_rank[i - 1].rank)
            continue;
        return rp_error_set (
            error, EINVAL, "rank %" PRId64 " is on %s and %s",
            f->by_rank[i].rank,
            name_of (g, f->by_rank[i - 1].v, nm.a, sizeof (nm.a)),
            name_of (g, f->by_rank[i].v, nm.b, sizeof (nm.b)));
    }
    return 0;
}

static size_t level_next (size_t n)
{
    return (n + BLOCK - 1) / BLOCK;
}

/* Entries of all summary levels of a parent with k children. */
static size_t blk_entries (size_t k)
{
    size_t total = 0, n = k;
    do {
        n = level_next (n);
        total += n;
    } while (n > BLOCK);
    return total;
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
        .explicit_edges = g->neset ? g->nerec : 0,
        .named = g->nside,
        .targets = f->ntargets,
        .interior = f->ninterior,
        .types = g->types.n,
    };
    uint64_t need = add_sat (graph_memory (&z), g->reserved);
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
            f->nblk += blk_entries (k) * T;
    }
    return 0;
}

/* Out-edge lists, for the vertices whose out-edges are not exactly their
 * children in ascending order. */
static int build_edges (struct rp_graph *g, struct fin *f)
{
    uint32_t *last = f->order; /* scratch: last child seen per vertex */
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
    f->edge_off = calloc ((size_t)g->n + 1, sizeof (uint32_t));
    if (!f->edge_off)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < g->nerec; i++) {
        if (g->v[g->erec[i].src].flags & F_EXPLICIT) {
            f->edge_off[g->erec[i].src + 1]++;
            m++;
        }
    }
    for (uint32_t v = 0; v < g->n; v++)
        f->edge_off[v + 1] += f->edge_off[v];
    f->edge = malloc ((m ? m : 1) * sizeof (struct edge));
    if (!f->edge)
        return -1;
    memcpy (last, f->edge_off, (size_t)g->n * sizeof (uint32_t));
    for (size_t i = 0; i < g->nerec; i++) {
        const struct edge_rec *e = &g->erec[i];
        if (g->v[e->src].flags & F_EXPLICIT)
            f->edge[last[e->src]++] = (struct edge){ e->dst, e->sub, e->type };
    }
    return 0;
}

static struct rp_gstate *gstate_create (struct rp_graph *g);

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
    if (check_ranks (g, f, error) < 0 || build_targets (g, f, error) < 0
        || build_totals (g, f, error) < 0)
        return -1;
    return 0;
}

int rp_graph_finalize (struct rp_graph *g, rp_error_t *error)
{
    struct fin f = { 0 };
    uint8_t *flags = NULL;
    if (check_building (g, error) < 0)
        return -1;
    if (g->n == 0)
        return rp_error_set (error, EINVAL, "graph has no vertices");
    if (fin_structure (g, &f, error) < 0)
        goto error;
    if (!(flags = malloc (g->n)))
        goto nomem;
    for (uint32_t v = 0; v < g->n; v++)
        flags[v] = g->v[v].flags;
    if (build_edges (g, &f) < 0)
        goto nomem_flags;
    fin_commit (g, &f);
    if (!(g->live = gstate_create (g))) {
        fin_uncommit (g);
        goto nomem_flags;
    }
    free (flags);
    free (f.order);
    build_free (g);
    return 0;
nomem_flags:
    for (uint32_t v = 0; v < g->n; v++)
        g->v[v].flags = flags[v];
    free (flags);
nomem:
    rp_error_set (error, ENOMEM, "out of memory");
error:
    fin_free (&f);
    return -1;
}

bool rp_graph_is_finalized (const struct rp_graph *g)
{
    return g && g->finalized;
}

/* --- allocation states ----------------------------------------------- */

static size_t ntypes (const struct rp_graph *g)
{
    return g->types.n;
}

static rp_vertex_t parent_of (const struct rp_graph *g, rp_vertex_t v)
{
    return g->v[v].parent;
}

static uint32_t nkids (const struct rp_graph *g, rp_vertex_t v)
{
    return g->child_off[v + 1] - g->child_off[v];
}

static bool st_up (const struct rp_gstate *s, rp_vertex_t v)
{
    return s->state[v] == RP_VERTEX_UP;
}

static uint64_t st_free (const struct rp_gstate *s, rp_vertex_t v)
{
    if (!st_up (s, v) || s->shared[v] > 0)
        return 0;
    return s->g->v[v].size - s->used[v];
}

static uint64_t st_agg (const struct rp_gstate *s, rp_vertex_t v, size_t t)
{
    const struct rp_graph *g = s->g;
    if (g->iidx[v] != NONE)
        return s->agg[(size_t)g->iidx[v] * ntypes (g) + t];
    return g->v[v].type == t ? st_free (s, v) : 0;
}

/* What v adds to its parent's aggregate. */
static uint64_t st_contrib (const struct rp_gstate *s, rp_vertex_t v, size_t t)
{
    return st_up (s, v) ? st_agg (s, v, t) : 0;
}

static uint64_t total_of (const struct rp_graph *g, rp_vertex_t v, size_t t)
{
    if (g->iidx[v] != NONE)
        return g->total[(size_t)g->iidx[v] * ntypes (g) + t];
    return g->v[v].type == t ? g->v[v].size : 0;
}

/* Summary levels of parent p: counts n[0] (children) .. n[L], offsets
 * off[1] .. off[L] into s->blk.  Returns L (0: no summaries). */
static int levels (const struct rp_graph *g, rp_vertex_t p, size_t *n,
                   uint64_t *off)
{
    uint64_t o = g->blk_off[g->iidx[p]];
    int L = 0;
    if (o == UINT64_MAX)
        return 0;
    n[0] = nkids (g, p);
    do {
        L++;
        n[L] = level_next (n[L - 1]);
        off[L] = o;
        o += n[L] * ntypes (g);
    } while (n[L] > BLOCK);
    return L;
}

/* Position of child c among its parent's children (handle order). */
static size_t child_pos (const struct rp_graph *g, rp_vertex_t c)
{
    const uint32_t *a = g->child + g->child_off[parent_of (g, c)];
    size_t lo = 0, hi = nkids (g, parent_of (g, c));
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* child_pos through the state's cache: positions never change after
 * finalize, and one binary search among 16,384 children was a fifth of
 * a whole-node match. */
static size_t child_pos_cached (struct rp_gstate *s, rp_vertex_t c)
{
    size_t k = c % POS_CACHE;
    if (s->pos_v[k] != c + 1) {
        s->pos[k] = (uint32_t)child_pos (s->g, c);
        s->pos_v[k] = c + 1;
    }
    return s->pos[k];
}

/* Member i of level l - 1 of parent p's summaries, type t: the child's
 * contribution (l == 1) or a level l - 1 maximum. */
static uint64_t blk_member (const struct rp_gstate *s, rp_vertex_t p,
                            const uint64_t *off, int l, size_t i, size_t t)
{
    const struct rp_graph *g = s->g;
    if (l == 1)
        return st_contrib (s, g->child[g->child_off[p] + i], t);
    return s->blk[off[l - 1] + i * ntypes (g) + t];
}

/* The maximum over the members of entry j of level l >= 1 of parent p,
 * scanning from member `from` on (the first member when `from` is not in
 * the entry), wrapping around, and stopping at the first that reaches
 * cap. */
static uint64_t blk_recount (const struct rp_gstate *s, rp_vertex_t p,
                             const size_t *n, const uint64_t *off, int l,
                             size_t j, size_t t, size_t from, uint64_t cap)
{
    size_t lo = j * BLOCK;
    size_t hi = lo + BLOCK < n[l - 1] ? lo + BLOCK : n[l - 1];
    uint64_t max = 0;
    if (from < lo || from >= hi)
        from = lo;
    for (size_t k = 0; k < hi - lo && max < cap; k++) {
        size_t i = from + k < hi ? from + k : from + k - (hi - lo);
        uint64_t v = blk_member (s, p, off, l, i, t);
        max = v > max ? v : max;
    }
    return max;
}

/* Child c's contribution of type t to p changed by d (c already counts
 * the new value): update the maxima above c, level by level, while they
 * change.  Only a decrease of an entry's maximum rescans the entry, from
 * the member after c's on: when several members share the maximum (idle
 * nodes), the scan stops at the next one. */
static void blk_update (struct rp_gstate *s, rp_vertex_t p, rp_vertex_t c,
                        size_t t, int64_t d)
{
    size_t n[MAX_LEVELS];
    uint64_t off[MAX_LEVELS];
    int L = levels (s->g, p, n, off);
    size_t pos = L > 0 ? child_pos_cached (s, c) : 0; /* at level l - 1 */
    uint64_t now = st_contrib (s, c, t), before = now - (uint64_t)d;
    for (int l = 1; l <= L && now != before; l++) {
        size_t j = pos / BLOCK;
        uint64_t *max = &s->blk[off[l] + j * ntypes (s->g) + t];
        uint64_t old = *max;
        if (now >= old)
            *max = now;
        else if (before == old)
            *max = blk_recount (s, p, n, off, l, j, t, pos + 1, old);
        before = old;
        now = *max;
        pos = j;
    }
}

static void blk_fill (struct rp_gstate *s, rp_vertex_t p)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g), n[MAX_LEVELS];
    uint64_t off[MAX_LEVELS];
    int L = levels (g, p, n, off);
    for (int l = 1; l <= L; l++) {
        for (size_t j = 0; j < n[l]; j++) {
            for (size_t t = 0; t < T; t++)
                s->blk[off[l] + j * T + t] =
                    blk_recount (s, p, n, off, l, j, t, j * BLOCK, UINT64_MAX);
        }
    }
}

static struct rp_gstate *gstate_create (struct rp_graph *g)
{
    size_t nagg = (size_t)g->ninterior * ntypes (g);
    struct rp_gstate *s = calloc (1, sizeof (*s));
    if (!s)
        return NULL;
    s->g = g;
    s->used = calloc (g->n, sizeof (uint64_t));
    s->shared = calloc (g->n, sizeof (uint32_t));
    s->state = calloc (g->n, sizeof (uint8_t));
    s->agg = malloc ((nagg ? nagg : 1) * sizeof (uint64_t));
    s->blk = calloc (g->nblk ? g->nblk : 1, sizeof (uint64_t));
    if (!s->used || !s->shared || !s->state || !s->agg || !s->blk) {
        gstate_destroy (s);
        return NULL;
    }
    memcpy (s->agg, g->total, nagg * sizeof (uint64_t));
    for (rp_vertex_t v = 0; v < g->n; v++) {
        if (g->iidx[v] != NONE)
            blk_fill (s, v);
    }
    return s;
}

struct rp_gstate *graph_live (struct rp_graph *g)
{
    return g && g->finalized ? g->live : NULL;
}

const struct rp_gstate *graph_live_const (const struct rp_graph *g)
{
    return g && g->finalized ? g->live : NULL;
}

struct rp_gstate *graph_pristine (struct rp_graph *g)
{
    if (!g || !g->finalized) {
        errno = EINVAL;
        return NULL;
    }
    if (!g->pristine && !(g->pristine = gstate_create (g)))
        errno = ENOMEM;
    return g->pristine;
}

bool gstate_up (const struct rp_gstate *s, rp_vertex_t v)
{
    return v < s->g->n && st_up (s, v);
}

uint64_t gstate_used (const struct rp_gstate *s, rp_vertex_t v)
{
    return v < s->g->n ? s->used[v] : 0;
}

uint32_t gstate_shared (const struct rp_gstate *s, rp_vertex_t v)
{
    return v < s->g->n ? s->shared[v] : 0;
}

uint64_t gstate_free (const struct rp_gstate *s, rp_vertex_t v)
{
    return v < s->g->n ? st_free (s, v) : 0;
}

uint64_t gstate_agg (const struct rp_gstate *s, rp_vertex_t v, int t)
{
    if (v >= s->g->n || t < 0 || (size_t)t >= ntypes (s->g))
        return 0;
    return st_agg (s, v, (size_t)t);
}

bool gstate_idle (const struct rp_gstate *s, rp_vertex_t v)
{
    if (v >= s->g->n)
        return false;
    for (size_t t = 0; t < ntypes (s->g); t++) {
        if (st_agg (s, v, t) != total_of (s->g, v, t))
            return false;
    }
    return true;
}

/* v and all its ancestors up */
static bool path_up (const struct rp_gstate *s, rp_vertex_t v)
{
    if (s->nnotup == 0)
        return true;
    for (; v != NONE; v = parent_of (s->g, v)) {
        if (!st_up (s, v))
            return false;
    }
    return true;
}

/* v's contribution to its parent changed by d units of type t. */
static void add_up (struct rp_gstate *s, rp_vertex_t v, size_t t, int64_t d)
{
    const struct rp_graph *g = s->g;
    for (rp_vertex_t p = parent_of (g, v); d != 0 && p != NONE;
         p = parent_of (g, p)) {
        s->agg[(size_t)g->iidx[p] * ntypes (g) + t] += (uint64_t)d;
        blk_update (s, p, v, t, d);
        if (!st_up (s, p))
            break;
        v = p;
    }
}

/* v's own free units changed from f0 */
static void self_changed (struct rp_gstate *s, rp_vertex_t v, uint64_t f0)
{
    const struct rp_graph *g = s->g;
    size_t t = g->v[v].type;
    int64_t d = (int64_t)(st_free (s, v) - f0);
    if (d == 0)
        return;
    if (g->iidx[v] != NONE)
        s->agg[(size_t)g->iidx[v] * ntypes (g) + t] += (uint64_t)d;
    if (st_up (s, v))
        add_up (s, v, t, d);
}

int gstate_take (struct rp_gstate *s, rp_vertex_t v, uint64_t amount,
                 bool exclusive)
{
    if (!s || v >= s->g->n || !path_up (s, v))
        return -1;
    uint64_t f0 = st_free (s, v);
    if (exclusive) {
        if (amount == 0 || s->shared[v] > 0
            || amount > s->g->v[v].size - s->used[v])
            return -1;
        s->used[v] += amount;
    } else {
        if (s->used[v] > 0 || s->shared[v] == UINT32_MAX)
            return -1;
        s->shared[v]++;
    }
    self_changed (s, v, f0);
    return 0;
}

int gstate_put (struct rp_gstate *s, rp_vertex_t v, uint64_t amount,
                bool exclusive)
{
    if (!s || v >= s->g->n)
        return -1;
    uint64_t f0 = st_free (s, v);
    if (exclusive) {
        if (amount == 0 || amount > s->used[v])
            return -1;
        s->used[v] -= amount;
    } else {
        if (s->shared[v] == 0)
            return -1;
        s->shared[v]--;
    }
    self_changed (s, v, f0);
    return 0;
}

static void set_vstate (struct rp_gstate *s, rp_vertex_t v, uint8_t state)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g);
    bool was_up = st_up (s, v);
    uint64_t f0 = st_free (s, v);
    if (was_up == (state == RP_VERTEX_UP)) {
        s->state[v] = state;
        return;
    }
    s->state[v] = state;
    if (state == RP_VERTEX_UP)
        s->nnotup--;
    else
        s->nnotup++;
    uint64_t f1 = st_free (s, v);
    if (g->iidx[v] != NONE)
        s->agg[(size_t)g->iidx[v] * T + g->v[v].type] += f1 - f0;
    for (size_t t = 0; t < T; t++) {
        uint64_t now = st_agg (s, v, t);
        uint64_t before = t == g->v[v].type ? now - f1 + f0 : now;
        add_up (s, v, t, was_up ? -(int64_t)before : (int64_t)now);
    }
}

/* Counts the entries gstate_child_fit examines: core/test/graph.c
 * defines it before including this file, to see blocks skipped. */
#ifndef FIT_PROBE
#define FIT_PROBE() ((void)0)
#endif

/* Search context of gstate_child_fit. */
struct fit {
    const struct rp_gstate *s;
    rp_vertex_t p;
    const uint64_t *need;
    size_t nt;      /* types with a need */
    uint32_t t[64]; /* their indexes (the first 64 such types) */
    bool high;
    size_t n[MAX_LEVELS]; /* entries per level; n[0]: children */
    uint64_t off[MAX_LEVELS];
};

static bool fits (const struct fit *x, int l, size_t j)
{
    const struct rp_graph *g = x->s->g;
    FIT_PROBE ();
    if (l == 0) {
        rp_vertex_t c = g->child[g->child_off[x->p] + j];
        if (!st_up (x->s, c))
            return false;
        for (size_t i = 0; i < x->nt; i++) {
            if (st_agg (x->s, c, x->t[i]) < x->need[x->t[i]])
                return false;
        }
        return true;
    }
    const uint64_t *max = &x->s->blk[x->off[l] + j * ntypes (g)];
    for (size_t i = 0; i < x->nt; i++) {
        if (max[x->t[i]] < x->need[x->t[i]])
            return false;
    }
    return true;
}

/* First entry of level l in [lo, hi) (in search order) holding a child
 * that fits; returns its child position or SIZE_MAX. */
static size_t fit_scan (const struct fit *x, int l, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        size_t j = x->high ? hi - 1 - (i - lo) : i;
        if (!fits (x, l, j))
            continue;
        if (l == 0)
            return j;
        size_t end = (j + 1) * BLOCK;
        size_t r = fit_scan (x, l - 1, j * BLOCK,
                             end < x->n[l - 1] ? end : x->n[l - 1]);
        if (r != SIZE_MAX)
            return r;
    }
    return SIZE_MAX;
}

/* From child position start (included) on, climbing a level whenever
 * the rest of a group is exhausted.  start is in search order: for HIGH
 * the entries start, start - 1, ... 0 are searched. */
static size_t fit_from (const struct fit *x, int L, size_t start)
{
    size_t j = start; /* index at level l; for HIGH, one past it */
    for (int l = 0; l <= L; l++) {
        size_t lo, hi, r;
        if (!x->high) {
            hi = l == L ? x->n[l] : (j / BLOCK + 1) * BLOCK;
            lo = j;
            hi = hi < x->n[l] ? hi : x->n[l];
            j = j / BLOCK + 1;
        } else {
            hi = j; /* searches hi - 1 down to lo */
            lo = l == L || hi == 0 ? 0 : ((hi - 1) / BLOCK) * BLOCK;
            j = lo / BLOCK;
        }
        if (lo < hi && (r = fit_scan (x, l, lo, hi)) != SIZE_MAX)
            return r;
    }
    return SIZE_MAX;
}

rp_vertex_t gstate_child_fit (const struct rp_gstate *s, rp_vertex_t parent,
                              rp_vertex_t after, const uint64_t *need,
                              int order)
{
    if (!s || parent >= s->g->n || nkids (s->g, parent) == 0)
        return NONE;
    const struct rp_graph *g = s->g;
    struct fit x = {
        .s = s, .p = parent, .need = need, .high = order == RP_WALK_HIGH
    };
    for (size_t t = 0; need && t < ntypes (g) && x.nt < 64; t++) {
        if (need[t] > 0)
            x.t[x.nt++] = (uint32_t)t;
    }
    int L = x.nt > 0 ? levels (g, parent, x.n, x.off) : 0;
    x.n[0] = nkids (g, parent);
    size_t start;
    if (after == NONE)
        start = x.high ? x.n[0] : 0;
    else if (after >= g->n || parent_of (g, after) != parent)
        return NONE;
    else
        start = child_pos (g, after) + (x.high ? 0 : 1);
    size_t r = fit_from (&x, L, start);
    return r == SIZE_MAX ? NONE : g->child[g->child_off[parent] + r];
}

static int check_counters (const struct rp_gstate *s, rp_error_t *error)
{
    const struct rp_graph *g = s->g;
    char buf[WORD_MAX + 32];
    size_t notup = 0;
    for (rp_vertex_t v = 0; v < g->n; v++) {
        const char *name = name_of (g, v, buf, sizeof (buf));
        if (s->state[v] > RP_VERTEX_DRAINED)
            return rp_error_set (error, EPROTO, "%s: bad state %u", name,
                                 s->state[v]);
        notup += !st_up (s, v);
        if (s->used[v] > g->v[v].size)
            return rp_error_set (error, EPROTO,
                                 "%s: %" PRIu64 " used of %" PRIu64, name,
                                 s->used[v], g->v[v].size);
        if (s->used[v] > 0 && s->shared[v] > 0)
            return rp_error_set (error, EPROTO,
                                 "%s: held both exclusively"
                                 " and shared",
                                 name);
    }
    if (notup != s->nnotup)
        return rp_error_set (error, EPROTO, "%zu vertices not up, counted %zu",
                             notup, s->nnotup);
    return 0;
}

/* Recount the aggregates of every interior vertex into agg from the
 * vertex counters, children before parents (reverse pre-order). */
static int recount (const struct rp_gstate *s, uint64_t *agg)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g);
    uint32_t *stack = malloc ((size_t)g->n * sizeof (uint32_t));
    uint32_t *order = malloc ((size_t)g->n * sizeof (uint32_t));
    uint32_t sp = 0, n = 0;
    if (!stack || !order)
        goto nomem;
    stack[sp++] = g->root;
    while (sp > 0) {
        rp_vertex_t v = stack[--sp];
        order[n++] = v;
        for (uint32_t i = g->child_off[v]; i < g->child_off[v + 1]; i++)
            stack[sp++] = g->child[i];
    }
    for (rp_vertex_t v = 0; v < g->n; v++) {
        if (g->iidx[v] != NONE)
            agg[(size_t)g->iidx[v] * T + g->v[v].type] = st_free (s, v);
    }
    for (uint32_t i = n; i-- > 1;) {
        rp_vertex_t v = order[i];
        if (!st_up (s, v))
            continue;
        uint64_t *dst = &agg[(size_t)g->iidx[parent_of (g, v)] * T];
        for (size_t t = 0; t < T; t++) {
            dst[t] += g->iidx[v] != NONE  ? agg[(size_t)g->iidx[v] * T + t]
                      : t == g->v[v].type ? st_free (s, v)
                                          : 0;
        }
    }
    free (stack);
    free (order);
    return 0;
nomem:
    free (stack);
    free (order);
    return -1;
}

static int check_blocks (const struct rp_gstate *s, struct rp_gstate *r,
                         rp_error_t *error)
{
    const struct rp_graph *g = s->g;
    char buf[WORD_MAX + 32];
    size_t n[MAX_LEVELS];
    uint64_t off[MAX_LEVELS];
    for (rp_vertex_t p = 0; p < g->n; p++) {
        if (g->iidx[p] == NONE || levels (g, p, n, off) == 0)
            continue;
        blk_fill (r, p);
        size_t len = blk_entries (n[0]) * ntypes (g);
        for (size_t i = 0; i < len; i++) {
            if (s->blk[off[1] + i] == r->blk[off[1] + i])
                continue;
            return rp_error_set (error, EPROTO,
                                 "%s: block summary %zu of"
                                 " type %s is %" PRIu64 ", recount %" PRIu64,
                                 name_of (g, p, buf, sizeof (buf)),
                                 i / ntypes (g), g->types.str[i % ntypes (g)],
                                 s->blk[off[1] + i], r->blk[off[1] + i]);
        }
    }
    return 0;
}

int gstate_check (const struct rp_gstate *s, rp_error_t *error)
{
    if (!s)
        return rp_error_set (error, EINVAL, "no state");
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g), nagg = (size_t)g->ninterior * T;
    char buf[WORD_MAX + 32];
    if (check_counters (s, error) < 0)
        return -1;
    /* r: a copy of s with recounted aggregates, to recount blocks with */
    struct rp_gstate r = *s;
    r.agg = calloc (nagg ? nagg : 1, sizeof (uint64_t));
    r.blk = calloc (g->nblk ? g->nblk : 1, sizeof (uint64_t));
    int rc = -1;
    if (!r.agg || !r.blk || recount (s, r.agg) < 0) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto done;
    }
    for (rp_vertex_t v = 0; v < g->n; v++) {
        for (size_t t = 0; g->iidx[v] != NONE && t < T; t++) {
            size_t i = (size_t)g->iidx[v] * T + t;
            if (s->agg[i] == r.agg[i])
                continue;
            rp_error_set (error, EPROTO,
                          "%s: free %s is %" PRIu64 ", recount %" PRIu64,
                          name_of (g, v, buf, sizeof (buf)), g->types.str[t],
                          s->agg[i], r.agg[i]);
            goto done;
        }
    }
    rc = check_blocks (s, &r, error);
done:
    free (r.agg);
    free (r.blk);
    return rc;
}


/* --- reading --------------------------------------------------------- */

static bool valid (const struct rp_graph *g, rp_vertex_t v)
{
    return g && v < g->n;
}

static bool valid_fin (const struct rp_graph *g, rp_vertex_t v)
{
    return g && g->finalized && v < g->n;
}

size_t rp_graph_nvertices (const struct rp_graph *g)
{
    return g ? g->n : 0;
}

rp_vertex_t rp_graph_root (const struct rp_graph *g)
{
    return g && g->finalized ? g->root : NONE;
}

size_t rp_graph_ntypes (const struct rp_graph *g)
{
    return g ? g->types.n : 0;
}

int rp_graph_type_index (const struct rp_graph *g, const char *type)
{
    return g && type ? strtab_find (&g->types, type) : -1;
}

const char *rp_graph_type_name (const struct rp_graph *g, int index)
{
    if (!g || index < 0 || (uint32_t)index >= g->types.n)
        return NULL;
    return g->types.str[index];
}

const char *rp_graph_vertex_type (const struct rp_graph *g, rp_vertex_t v)
{
    return valid (g, v) ? g->types.str[g->v[v].type] : NULL;
}

int rp_graph_vertex_type_index (const struct rp_graph *g, rp_vertex_t v)
{
    return valid (g, v) ? g->v[v].type : -1;
}

const char *rp_graph_vertex_basename (const struct rp_graph *g, rp_vertex_t v)
{
    return valid (g, v) ? g->strs.str[g->v[v].basename] : NULL;
}

const char *rp_graph_vertex_name (const struct rp_graph *g, rp_vertex_t v)
{
    if (!valid (g, v))
        return NULL;
    struct rp_graph *mut = (struct rp_graph *)g; /* the documented buffer */
    return name_of (g, v, mut->namebuf, sizeof (mut->namebuf));
}

int64_t rp_graph_vertex_id (const struct rp_graph *g, rp_vertex_t v)
{
    return valid (g, v) ? g->v[v].id : -1;
}

const char *rp_graph_vertex_uuid (const struct rp_graph *g, rp_vertex_t v)
{
    struct side *s = valid (g, v) ? side_get (g, v) : NULL;
    return s ? s->uuid : NULL;
}

uint64_t rp_graph_vertex_size (const struct rp_graph *g, rp_vertex_t v)
{
    return valid (g, v) ? g->v[v].size : 0;
}

const char *rp_graph_vertex_unit (const struct rp_graph *g, rp_vertex_t v)
{
    return valid (g, v) ? g->strs.str[g->v[v].unit] : NULL;
}

rp_vertex_t rp_graph_target (const struct rp_graph *g, rp_vertex_t v)
{
    if (!valid (g, v))
        return NONE;
    for (; v != NONE; v = g->v[v].parent) {
        if (g->v[v].flags & F_TARGET)
            return v;
    }
    return NONE;
}

int64_t rp_graph_vertex_rank (const struct rp_graph *g, rp_vertex_t v)
{
    v = rp_graph_target (g, v);
    return v == NONE ? -1 : side_get (g, v)->rank;
}

rp_vertex_t rp_graph_rank_vertex (const struct rp_graph *g, int64_t rank)
{
    if (!g || !g->finalized)
        return NONE;
    size_t lo = 0, hi = g->ntargets;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->by_rank[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < g->ntargets && g->by_rank[lo].rank == rank)
        return g->by_rank[lo].v;
    return NONE;
}

enum rp_vertex_state rp_graph_vertex_state (const struct rp_graph *g,
                                            rp_vertex_t v)
{
    if (!valid_fin (g, v))
        return RP_VERTEX_UP;
    return (enum rp_vertex_state)g->live->state[v];
}

static bool prop_has (const json_t *o, const char *name)
{
    const char *key;
    json_t *val;
    size_t len = strlen (name);
    if (!o || json_object_get (o, name))
        return o != NULL;
    json_object_foreach ((json_t *)o, key, val) {
        if (!strncmp (key, name, len) && key[len] == '@')
            return true;
    }
    return false;
}

static const char *obj_value (const json_t *o, const char *key)
{
    return o && key ? json_string_value (json_object_get (o, key)) : NULL;
}

static json_t *obj_copy (const json_t *o)
{
    return o ? json_deep_copy (o) : json_object ();
}

bool rp_graph_vertex_has_property (const struct rp_graph *g, rp_vertex_t v,
                                   const char *name)
{
    struct side *s = valid (g, v) && name ? side_get (g, v) : NULL;
    return s && prop_has (s->props, name);
}

const char *rp_graph_vertex_property (const struct rp_graph *g, rp_vertex_t v,
                                      const char *name)
{
    struct side *s = valid (g, v) ? side_get (g, v) : NULL;
    return s ? obj_value (s->props, name) : NULL;
}

/* The first name "KEY=VALUE" of o, in byte order: its VALUE. */
static const char *keyed_value (const json_t *o, const char *key)
{
    size_t len = strlen (key);
    const char *best = NULL;
    const char *name;
    json_t *val;

    json_object_foreach ((json_t *)o, name, val) {
        if (!strncmp (name, key, len) && name[len] == '='
            && (!best || strcmp (name, best) < 0))
            best = name;
    }
    return best ? best + len + 1 : NULL;
}

const char *rp_graph_vertex_property_value (const struct rp_graph *g,
                                            rp_vertex_t v, const char *key)
{
    struct side *s = valid (g, v) && key && *key ? side_get (g, v) : NULL;
    const char *value;

    if (!s || !s->props)
        return NULL;
    if ((value = obj_value (s->props, key)))
        return value;
    return keyed_value (s->props, key);
}

json_t *rp_graph_vertex_properties (const struct rp_graph *g, rp_vertex_t v)
{
    if (!valid (g, v))
        return NULL;
    struct side *s = side_get (g, v);
    return obj_copy (s ? s->props : NULL);
}

bool rp_graph_vertex_has_tag (const struct rp_graph *g, rp_vertex_t v,
                              const char *key)
{
    struct side *s = valid (g, v) && key ? side_get (g, v) : NULL;
    return s && s->tags && json_object_get (s->tags, key);
}

const char *rp_graph_vertex_tag (const struct rp_graph *g, rp_vertex_t v,
                                 const char *key)
{
    struct side *s = valid (g, v) ? side_get (g, v) : NULL;
    return s ? obj_value (s->tags, key) : NULL;
}

json_t *rp_graph_vertex_tags (const struct rp_graph *g, rp_vertex_t v)
{
    if (!valid (g, v))
        return NULL;
    struct side *s = side_get (g, v);
    return obj_copy (s ? s->tags : NULL);
}

/* v or an ancestor not up in the live state */
static bool live_below_down (const struct rp_graph *g, rp_vertex_t v)
{
    return !path_up (g->live, v);
}

uint64_t rp_graph_vertex_used (const struct rp_graph *g, rp_vertex_t v)
{
    return valid_fin (g, v) ? g->live->used[v] : 0;
}

uint32_t rp_graph_vertex_shared (const struct rp_graph *g, rp_vertex_t v)
{
    return valid_fin (g, v) ? g->live->shared[v] : 0;
}

uint64_t rp_graph_vertex_free (const struct rp_graph *g, rp_vertex_t v)
{
    if (!valid_fin (g, v) || live_below_down (g, v))
        return 0;
    return st_free (g->live, v);
}

uint64_t rp_graph_subtree_total (const struct rp_graph *g, rp_vertex_t v, int t)
{
    if (!valid_fin (g, v) || t < 0 || (size_t)t >= ntypes (g))
        return 0;
    return total_of (g, v, (size_t)t);
}

uint64_t rp_graph_subtree_free (const struct rp_graph *g, rp_vertex_t v, int t)
{
    if (!valid_fin (g, v) || t < 0 || (size_t)t >= ntypes (g)
        || live_below_down (g, v))
        return 0;
    return st_agg (g->live, v, (size_t)t);
}

bool rp_graph_subtree_idle (const struct rp_graph *g, rp_vertex_t v)
{
    return valid_fin (g, v) && gstate_idle (g->live, v);
}

rp_vertex_t rp_graph_parent (const struct rp_graph *g, rp_vertex_t v)
{
    return valid (g, v) ? g->v[v].parent : NONE;
}

rp_vertex_t rp_graph_child_first (const struct rp_graph *g, rp_vertex_t v)
{
    if (!valid_fin (g, v) || nkids (g, v) == 0)
        return NONE;
    return g->child[g->child_off[v]];
}

rp_vertex_t rp_graph_child_next (const struct rp_graph *g, rp_vertex_t c)
{
    if (!valid_fin (g, c) || parent_of (g, c) == NONE)
        return NONE;
    rp_vertex_t p = parent_of (g, c);
    size_t i = child_pos (g, c) + 1;
    return i < nkids (g, p) ? g->child[g->child_off[p] + i] : NONE;
}

size_t rp_graph_nchildren (const struct rp_graph *g, rp_vertex_t v)
{
    return valid_fin (g, v) ? nkids (g, v) : 0;
}

size_t rp_graph_nedges (const struct rp_graph *g, rp_vertex_t v)
{
    if (!valid_fin (g, v))
        return 0;
    if (g->v[v].flags & F_EXPLICIT)
        return g->edge_off[v + 1] - g->edge_off[v];
    return nkids (g, v);
}

/* Edge i of v as a struct edge (false when there is none). */
static bool edge_get (const struct rp_graph *g, rp_vertex_t v, size_t i,
                      struct edge *e)
{
    if (i >= rp_graph_nedges (g, v))
        return false;
    if (g->v[v].flags & F_EXPLICIT)
        *e = g->edge[g->edge_off[v] + i];
    else
        *e = (struct edge){ g->child[g->child_off[v] + i], 0, 0 };
    return true;
}

rp_vertex_t rp_graph_edge_target (const struct rp_graph *g, rp_vertex_t v,
                                  size_t i)
{
    struct edge e;
    return edge_get (g, v, i, &e) ? e.dst : NONE;
}

const char *rp_graph_edge_type (const struct rp_graph *g, rp_vertex_t v,
                                size_t i)
{
    struct edge e;
    return edge_get (g, v, i, &e) ? g->etypes.str[e.type] : NULL;
}

const char *rp_graph_edge_subsystem (const struct rp_graph *g, rp_vertex_t v,
                                     size_t i)
{
    struct edge e;
    return edge_get (g, v, i, &e) ? g->subs.str[e.sub] : NULL;
}

size_t rp_graph_nsubsystems (const struct rp_graph *g)
{
    return g ? g->subs.n : 0;
}

const char *rp_graph_subsystem_name (const struct rp_graph *g, size_t i)
{
    return g && i < g->subs.n ? g->subs.str[i] : NULL;
}

/* --- extended data --------------------------------------------------- */

static const char *state_names[] = { "up", "down", "drained" };

int rp_graph_set_state (struct rp_graph *g, rp_vertex_t v,
                        enum rp_vertex_state state, rp_error_t *error)
{
    if (!g || !g->finalized)
        return rp_error_set (error, EINVAL, "graph is not finalized");
    if (check_vertex (g, v, error) < 0)
        return -1;
    if ((unsigned)state > RP_VERTEX_DRAINED)
        return rp_error_set (error, EINVAL, "bad state %d", (int)state);
    set_vstate (g->live, v, (uint8_t)state);
    return 0;
}

int rp_graph_state_parse (const char *name, enum rp_vertex_state *state,
                          rp_error_t *error)
{
    for (int i = 0; name && i < 3; i++) {
        if (!strcmp (name, state_names[i])) {
            *state = (enum rp_vertex_state)i;
            return 0;
        }
    }
    return rp_error_set (error, EINVAL,
                         "unknown state '%s': up, down or"
                         " drained",
                         name ? name : "(null)");
}

const char *rp_graph_state_name (enum rp_vertex_state state)
{
    return (unsigned)state <= RP_VERTEX_DRAINED ? state_names[state] : NULL;
}

int rp_graph_tag (struct rp_graph *g, rp_vertex_t v, const char *key,
                  const char *value, rp_error_t *error)
{
    if (!g)
        return rp_error_set (error, EINVAL, "no graph");
    if (check_vertex (g, v, error) < 0)
        return -1;
    if (!text_ok (key, 1024))
        return rp_error_set (error, EINVAL,
                             "bad tag '%s': printable, 1-1024"
                             " bytes",
                             key ? key : "(null)");
    json_t *o = value ? json_string (value) : json_null ();
    if (!o && value)
        return rp_error_set (error, EINVAL, "value of tag '%s' is not UTF-8",
                             key);
    struct side *s = o ? side_make (g, v) : NULL;
    if (s && !s->tags)
        s->tags = json_object ();
    if (!s || !s->tags || json_object_set_new (s->tags, key, o) < 0) {
        json_decref (o);
        return rp_error_set (error, ENOMEM, "out of memory");
    }
    return 0;
}

int rp_graph_untag (struct rp_graph *g, rp_vertex_t v, const char *key,
                    rp_error_t *error)
{
    char buf[WORD_MAX + 32];
    if (!g)
        return rp_error_set (error, EINVAL, "no graph");
    if (check_vertex (g, v, error) < 0)
        return -1;
    struct side *s = key ? side_get (g, v) : NULL;
    if (!s || !s->tags || json_object_del (s->tags, key) < 0)
        return rp_error_set (error, ENOENT, "%s has no tag '%s'",
                             name_of (g, v, buf, sizeof (buf)),
                             key ? key : "(null)");
    return 0;
}

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
    int sub = subsystem ? strtab_find (&g->subs, subsystem) : -1;
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
    int t = strtab_find (&w->g->types, type);
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
                         which, a, name_of (w->g, v, buf, sizeof (buf)));
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
    if (check_vertex (g, start, error) < 0)
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

int rp_accum_push (struct rp_accum *a, rp_vertex_t v, int64_t score)
{
    if (!a) {
        errno = EINVAL;
        return -1;
    }
    /* after every item with a score >= score: ties keep push order */
    size_t lo = 0, hi = a->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->item[mid].score >= score)
            lo = mid + 1;
        else
            hi = mid;
    }
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

/* --- generator ------------------------------------------------------- */

enum {
    K_NODES,
    K_RACKS,
    K_SOCKETS,
    K_CORES,
    K_GPUS,
    K_MEMORY,
    K_PREFIX,
    K_COUNT
};

static const char *gen_keys[K_COUNT] = {
    "nodes", "racks", "sockets", "cores", "gpus", "memory", "prefix",
};

struct gen {
    uint64_t val[K_COUNT];
    bool set[K_COUNT];
    char unit[8];
    char prefix[WORD_MAX + 1];
};

/* digits only, no sign; *len set to the number of digits.  -1 when there
 * are none or the value overflows. */
static int parse_u64 (const char *s, uint64_t *out, size_t *len)
{
    uint64_t v = 0;
    bool over = false;
    size_t i = 0;
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        over = over || __builtin_mul_overflow (v, 10, &v)
               || __builtin_add_overflow (v, (uint64_t)(s[i] - '0'), &v);
    }
    *out = v;
    *len = i;
    return i > 0 && !over ? 0 : -1;
}

static int gen_value (struct gen *x, int k, const char *val, rp_error_t *error)
{
    size_t len = 0;
    bool zero_ok = k == K_RACKS || k == K_GPUS;
    if (k == K_PREFIX) {
        if (!word_ok (val, "-_."))
            return rp_error_set (error, EINVAL,
                                 "prefix=%s: letters, digits,"
                                 " '-', '_', '.' (1-64)",
                                 val);
        strcpy (x->prefix, val);
        return 0;
    }
    if (parse_u64 (val, &x->val[k], &len) < 0 && len > 0)
        return rp_error_set (error, EINVAL, "%s=%s: too large", gen_keys[k],
                             val);
    const char *unit = val + len;
    bool unit_ok = k == K_MEMORY && units_bytes (unit) > 0;
    if (len == 0 || (*unit && !unit_ok) || (x->val[k] == 0 && !zero_ok))
        return rp_error_set (error, EINVAL, "%s=%s: not a %s integer%s",
                             gen_keys[k], val,
                             zero_ok ? "non-negative" : "positive",
                             k == K_MEMORY ? " with an optional unit" : "");
    if (k == K_MEMORY)
        snprintf (x->unit, sizeof (x->unit), "%s", *unit ? unit : "GB");
    return 0;
}

static int gen_item (struct gen *x, const char *item, rp_error_t *error)
{
    const char *eq = strchr (item, '=');
    if (!eq)
        return rp_error_set (error, EINVAL, "'%s': expected key=value", item);
    size_t klen = (size_t)(eq - item);
    for (int k = 0; k < K_COUNT; k++) {
        if (strlen (gen_keys[k]) != klen || strncmp (gen_keys[k], item, klen))
            continue;
        if (x->set[k])
            return rp_error_set (error, EINVAL, "%s given twice", gen_keys[k]);
        x->set[k] = true;
        return gen_value (x, k, eq + 1, error);
    }
    return rp_error_set (error, EINVAL, "unknown key '%.*s'", (int)klen, item);
}

static int gen_divides (const struct gen *x, int k, uint64_t by,
                        const char *what, rp_error_t *error)
{
    if (x->val[k] % by == 0)
        return 0;
    return rp_error_set (error, EINVAL,
                         "%s=%" PRIu64 "%s does not divide"
                         " evenly among %" PRIu64 " %s",
                         gen_keys[k], x->val[k], k == K_MEMORY ? x->unit : "",
                         by, what);
}

/* Vertex count, with overflow checks. */
static int gen_count (const struct gen *x, uint64_t *count, rp_error_t *error)
{
    uint64_t so = x->val[K_SOCKETS], per, n;
    uint64_t pools = x->set[K_MEMORY] ? so : 0;
    bool over = __builtin_add_overflow (x->val[K_CORES], 1, &per)
                || __builtin_mul_overflow (per, so, &per)
                || __builtin_add_overflow (per, 1 + x->val[K_GPUS], &per)
                || __builtin_add_overflow (per, pools, &per)
                || __builtin_mul_overflow (per, x->val[K_NODES], &n)
                || __builtin_add_overflow (n, 1 + x->val[K_RACKS], &n);
    if (over || n > RP_GRAPH_MAX_VERTICES)
        return rp_error_set (error, E2BIG,
                             "spec makes %s%" PRIu64 " vertices,"
                             " more than the maximum %u",
                             over ? "over " : "", over ? UINT64_MAX : n,
                             RP_GRAPH_MAX_VERTICES);
    *count = n;
    return 0;
}

/* The memory estimate of the spec's graph against the limit. */
static int gen_memory (const struct gen *x, uint64_t count, rp_error_t *error)
{
    uint64_t nodes = x->val[K_NODES], limit = rp_graph_memory_limit ();
    struct graph_size z = {
        .vertices = count,
        .edges = count - 1,
        .named = nodes,
        .targets = nodes,
        .interior = 1 + x->val[K_RACKS] + nodes * (1 + x->val[K_SOCKETS]),
        .types =
            4 + (x->val[K_RACKS] > 0) + (x->val[K_GPUS] > 0) + x->set[K_MEMORY],
    };
    uint64_t need = graph_memory (&z);

    if (need <= limit)
        return 0;
    return graph_memory_error (error, need, limit,
                               "spec makes %" PRIu64 " vertices, which need",
                               count);
}

static int gen_parse (struct gen *x, const char *spec, rp_error_t *error)
{
    memset (x, 0, sizeof (*x));
    x->val[K_SOCKETS] = x->val[K_CORES] = 1;
    strcpy (x->prefix, "node");
    char item[256];
    for (const char *p = spec; *spec;) {
        size_t len = strcspn (p, ",");
        if (len == 0 || len >= sizeof (item))
            return rp_error_set (error, EINVAL, "%s item at offset %zu",
                                 len ? "overlong" : "empty",
                                 (size_t)(p - spec));
        memcpy (item, p, len);
        item[len] = '\0';
        if (gen_item (x, item, error) < 0)
            return -1;
        p += len;
        if (*p++ == '\0')
            break;
    }
    if (!x->set[K_NODES])
        return rp_error_set (error, EINVAL, "nodes= is required");
    if ((x->val[K_RACKS]
         && gen_divides (x, K_NODES, x->val[K_RACKS], "racks", error) < 0)
        || gen_divides (x, K_GPUS, x->val[K_SOCKETS], "sockets", error) < 0
        || gen_divides (x, K_MEMORY, x->val[K_SOCKETS], "sockets", error) < 0)
        return -1;
    return 0;
}

struct gen_ids {
    int cluster, rack, node, socket, core, gpu, memory;        /* types */
    int bcluster, brack, bnode, bsocket, bcore, bgpu, bmemory; /* strs */
    int unit, none;
};

static int gen_intern (struct rp_graph *g, const struct gen *x,
                       struct gen_ids *id)
{
    const char *t[] = { "cluster", "rack", "node",  "socket",
                        "core",    "gpu",  "memory" };
    int *ti[] = { &id->cluster, &id->rack, &id->node,  &id->socket,
                  &id->core,    &id->gpu,  &id->memory };
    int *bi[] = { &id->bcluster, &id->brack, &id->bnode,  &id->bsocket,
                  &id->bcore,    &id->bgpu,  &id->bmemory };
    bool want[] = { true,
                    x->val[K_RACKS] > 0,
                    true,
                    true,
                    true,
                    x->val[K_GPUS] > 0,
                    x->set[K_MEMORY] };
    for (int i = 0; i < 7; i++) {
        const char *base = i == 2 ? x->prefix : t[i];
        if (want[i]
            && ((*ti[i] = strtab_intern (&g->types, t[i], 16)) < 0
                || (*bi[i] = strtab_intern (&g->strs, base, UINT32_MAX)) < 0))
            return -1;
    }
    id->none = 0;
    id->unit =
        x->set[K_MEMORY] ? strtab_intern (&g->strs, x->unit, UINT32_MAX) : 0;
    return id->unit < 0 ? -1 : 0;
}

/* Parent p contains c (builder order: no checks needed). */
static int gen_edge (struct rp_graph *g, rp_vertex_t p, rp_vertex_t c)
{
    g->v[c].parent = p;
    return erec_push (g, &(struct edge_rec){ p, c, 0, 0 });
}

static int gen_socket (struct rp_graph *g, const struct gen *x,
                       const struct gen_ids *id, rp_vertex_t node, uint64_t s)
{
    uint64_t nc = x->val[K_CORES], ng = x->val[K_GPUS] / x->val[K_SOCKETS];
    rp_vertex_t so = vertex_add (g, id->socket, id->bsocket, (int64_t)s, 1, 0);
    int rc = gen_edge (g, node, so);
    for (uint64_t i = 0; i < nc && rc == 0; i++)
        rc = gen_edge (
            g, so,
            vertex_add (g, id->core, id->bcore, (int64_t)(s * nc + i), 1, 0));
    for (uint64_t i = 0; i < ng && rc == 0; i++)
        rc = gen_edge (
            g, so,
            vertex_add (g, id->gpu, id->bgpu, (int64_t)(s * ng + i), 1, 0));
    if (x->set[K_MEMORY] && rc == 0) {
        uint64_t size = x->val[K_MEMORY] / x->val[K_SOCKETS];
        rc = gen_edge (g, so,
                       vertex_add (g, id->memory, id->bmemory, (int64_t)s, size,
                                   id->unit));
    }
    return rc;
}

static int gen_build (struct rp_graph *g, const struct gen *x,
                      const struct gen_ids *id)
{
    uint64_t racks = x->val[K_RACKS], nodes = x->val[K_NODES];
    uint64_t per_rack = racks ? nodes / racks : nodes;
    rp_vertex_t top = vertex_add (g, id->cluster, id->bcluster, 0, 1, 0);
    int rc = 0;
    for (uint64_t r = 0; r < nodes && rc == 0; r++) {
        if (racks && r % per_rack == 0) {
            rp_vertex_t rack = vertex_add (g, id->rack, id->brack,
                                           (int64_t)(r / per_rack), 1, 0);
            if ((rc = gen_edge (g, 0, rack)) < 0)
                break;
            top = rack;
        }
        rp_vertex_t node =
            vertex_add (g, id->node, id->bnode, (int64_t)r, 1, 0);
        struct side *s = side_make (g, node);
        if (!s || gen_edge (g, top, node) < 0)
            return -1;
        s->rank = (int64_t)r;
        g->v[node].flags |= F_TARGET;
        for (uint64_t so = 0; so < x->val[K_SOCKETS] && rc == 0; so++)
            rc = gen_socket (g, x, id, node, so);
    }
    return rc;
}

struct rp_graph *rp_graph_generate (const char *spec, rp_error_t *error)
{
    struct gen x;
    struct gen_ids id;
    uint64_t count = 0;
    struct rp_graph *g = NULL;
    if (!spec) {
        rp_error_set (error, EINVAL, "no spec");
        return NULL;
    }
    if (gen_parse (&x, spec, error) < 0 || gen_count (&x, &count, error) < 0
        || gen_memory (&x, count, error) < 0)
        return NULL;
    if (!(g = rp_graph_create ())
        || graph_reserve (g, count, count, x.val[K_NODES]) < 0)
        goto nomem;
    if (gen_intern (g, &x, &id) < 0 || gen_build (g, &x, &id) < 0)
        goto nomem;
    if (rp_graph_finalize (g, error) < 0)
        goto error;
    return g;
nomem:
    rp_error_set (error, ENOMEM, "out of memory");
error:
    rp_graph_destroy (g);
    return NULL;
}
