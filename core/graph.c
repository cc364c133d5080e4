/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The resource graph (RFC 4 "Resource Pool Data Model", "Graph Data Model",
 * "Abstract Interfaces"): building the model (vertices, their side data,
 * edges in subsystems), reading it, and its extended data (state, tags).
 * core/graph_impl.h has the structures and says what each of the graph's
 * other files holds; builders and serializers (graph_build.c, graph_io.c)
 * use the public API.
 *
 * Decisions.  The public free amounts are 0 below a vertex that is not
 * up.  Containment "in" edges are checked and dropped, whether or not a
 * "contains" edge matches them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph_impl.h"
#include "core/jtext.h"

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

int graph_strtab_find (const struct strtab *t, const char *s)
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
int graph_strtab_intern (struct strtab *t, const char *s, uint32_t max)
{
    int i = graph_strtab_find (t, s);
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

/* --- building -------------------------------------------------------- */

static void side_free (struct side *s)
{
    free (s->name);
    free (s->uuid);
    json_decref (s->props);
    json_decref (s->tags);
}

void graph_build_free (struct rp_graph *g)
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
    graph_build_free (g);
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
    if (graph_strtab_intern (&g->strs, "", UINT32_MAX) != 0
        || graph_strtab_intern (&g->subs, RP_GRAPH_CONTAINMENT, 1) != 0
        || graph_strtab_intern (&g->etypes, "contains", 2) != 0
        || graph_strtab_intern (&g->etypes, "in", 2) != 1)
        goto nomem;
    return g;
nomem:
    rp_graph_destroy (g);
    errno = ENOMEM;
    return NULL;
}

/* letters, digits and the characters of extra; 1 .. WORD_MAX bytes */
bool graph_word_ok (const char *s, const char *extra)
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

int graph_check_building (struct rp_graph *g, rp_error_t *error)
{
    if (!g)
        return rp_error_set (error, EINVAL, "no graph");
    if (g->finalized)
        return rp_error_set (error, EBUSY, "graph is finalized");
    return 0;
}

int graph_check_vertex (const struct rp_graph *g, rp_vertex_t v,
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
rp_vertex_t graph_vertex_add (struct rp_graph *g, int type, int base,
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
    if (!graph_word_ok (type, "-_"))
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
    if (unit && *unit
        && (!graph_word_ok (unit, "") || strlen (unit) > UNIT_MAX))
        return rp_error_set (error, EINVAL,
                             "bad unit '%s': letters and digits, 1-16", unit);
    return 0;
}

rp_vertex_t rp_graph_add_vertex (struct rp_graph *g, const char *type,
                                 const char *basename, int64_t id,
                                 uint64_t size, const char *unit,
                                 rp_error_t *error)
{
    if (graph_check_building (g, error) < 0
        || check_vertex_args (type, basename, id, size, unit, error) < 0)
        return NONE;
    if (g->n >= RP_GRAPH_MAX_VERTICES) {
        rp_error_set (error, E2BIG, "more than %u vertices",
                      RP_GRAPH_MAX_VERTICES);
        return NONE;
    }
    int t = graph_strtab_intern (&g->types, type, UINT16_MAX);
    int b = t < 0 ? -1
                  : graph_strtab_intern (&g->strs, basename ? basename : type,
                                         UINT32_MAX);
    int u = b < 0
                ? -1
                : graph_strtab_intern (&g->strs, unit ? unit : "", UINT32_MAX);
    if (t < 0 && g->types.n >= UINT16_MAX) {
        rp_error_set (error, E2BIG, "more than %u types", UINT16_MAX);
        return NONE;
    }
    rp_vertex_t v = u < 0 ? NONE : graph_vertex_add (g, t, b, id, size, u);
    if (v == NONE)
        rp_error_set (error, ENOMEM, "out of memory");
    return v;
}

/* The side entry of v, or NULL. */
struct side *graph_side_get (const struct rp_graph *g, rp_vertex_t v)
{
    uint32_t i;
    if (!(g->v[v].flags & F_SIDE) || !u32map_get (&g->sidemap, v, &i))
        return NULL;
    return &g->side[i];
}

/* The side entry of v, created if need be (NULL on ENOMEM). */
struct side *graph_side_make (struct rp_graph *g, rp_vertex_t v)
{
    struct side *s = graph_side_get (g, v);
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
    if (graph_check_building (g, error) < 0
        || graph_check_vertex (g, v, error) < 0)
        return -1;
    if (!text_ok (value, 1024))
        return rp_error_set (error, EINVAL,
                             "bad %s '%s': printable, 1-1024"
                             " bytes",
                             what, value ? value : "(null)");
    char *copy = strdup (value);
    struct side *s = copy ? graph_side_make (g, v) : NULL;
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
    if (graph_check_building (g, error) < 0
        || graph_check_vertex (g, v, error) < 0)
        return -1;
    if (rank < 0)
        return rp_error_set (error, EINVAL, "bad rank %" PRId64, rank);
    struct side *s = graph_side_make (g, v);
    if (!s)
        return rp_error_set (error, ENOMEM, "out of memory");
    s->rank = rank;
    g->v[v].flags |= F_TARGET;
    return 0;
}

int rp_graph_add_property (struct rp_graph *g, rp_vertex_t v, const char *name,
                           const char *value, rp_error_t *error)
{
    if (graph_check_building (g, error) < 0
        || graph_check_vertex (g, v, error) < 0
        || rp_rset_property_check (name, error) < 0)
        return -1;
    json_t *o = value ? json_string (value) : json_null ();
    if (!o && value)
        return rp_error_set (error, EINVAL,
                             "value of property '%s' is not"
                             " UTF-8",
                             name);
    struct side *s = o ? graph_side_make (g, v) : NULL;
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

int graph_erec_push (struct rp_graph *g, const struct edge_rec *e)
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
    if (graph_erec_push (g, e) < 0)
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
    if (graph_erec_push (g, e) < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    g->eslot[i] = (uint32_t)g->nerec;
    g->neset++;
    return 0;
}

int rp_graph_add_edge (struct rp_graph *g, rp_vertex_t src, rp_vertex_t dst,
                       const char *subsystem, const char *type,
                       rp_error_t *error)
{
    if (graph_check_building (g, error) < 0
        || graph_check_vertex (g, src, error) < 0
        || graph_check_vertex (g, dst, error) < 0)
        return -1;
    if (!graph_word_ok (subsystem, "-_. "))
        return rp_error_set (error, EINVAL,
                             "bad subsystem '%s': letters,"
                             " digits, '-', '_', '.', ' ' (1-64)",
                             subsystem ? subsystem : "(null)");
    if (!graph_word_ok (type, "-_. "))
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
    int sub = graph_strtab_find (&g->subs, subsystem);
    int et = graph_strtab_find (&g->etypes, type);
    if ((sub < 0 && g->subs.n >= UINT16_MAX)
        || (et < 0 && g->etypes.n >= UINT16_MAX))
        return rp_error_set (error, E2BIG, "too many subsystems or edge types");
    struct edge_rec e = { .src = src, .dst = dst };
    if (contain)
        return add_contains (g, &(struct edge_rec){ src, dst, 0, 0 }, error);
    if (sub < 0)
        sub = graph_strtab_intern (&g->subs, subsystem, UINT16_MAX);
    if (et < 0)
        et = graph_strtab_intern (&g->etypes, type, UINT16_MAX);
    if (sub < 0 || et < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    e.sub = (uint16_t)sub;
    e.type = (uint16_t)et;
    return add_other (g, &e, error);
}

/* --- names ----------------------------------------------------------- */

const char *graph_name_of (const struct rp_graph *g, rp_vertex_t v, char *buf,
                           size_t len)
{
    struct side *s = graph_side_get (g, v);
    if (s && s->name)
        return s->name;
    const struct vertex *x = &g->v[v];
    const char *base = g->strs.str[x->basename];
    if (x->id < 0)
        return base;
    /* the digits by hand: snprintf was most of writing a subgraph */
    char digits[24], *d = jt_digits (digits + sizeof (digits), x->id);
    size_t nb = strlen (base), nd = (size_t)(digits + sizeof (digits) - d);
    if (nb + nd >= len) {
        snprintf (buf, len, "%s%" PRId64, base, x->id);
        return buf;
    }
    memcpy (buf, base, nb);
    memcpy (buf + nb, d, nd);
    buf[nb + nd] = '\0';
    return buf;
}

/* Position of child c among its parent's children (handle order).  The
 * children of a generated or regular parent (the nodes of a cluster) have
 * subtrees of one size, so their handles are evenly spaced and
 * interpolating finds c at once; otherwise a binary search.  (Taking and
 * freeing whole nodes asks for a node's place on every step: the binary
 * search among 1,024 nodes was 7% of a LANL replay.) */
size_t graph_child_pos (const struct rp_graph *g, rp_vertex_t c)
{
    const uint32_t *a = g->child + g->child_off[parent_of (g, c)];
    size_t lo = 0, hi = nkids (g, parent_of (g, c));
    uint64_t span = hi > 1 ? a[hi - 1] - a[0] : 0;
    if (span > 0 && c >= a[0] && c <= a[hi - 1]) {
        size_t guess = (size_t)((uint64_t)(c - a[0]) * (hi - 1) / span);
        if (a[guess] == c)
            return guess;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
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
    return g && type ? graph_strtab_find (&g->types, type) : -1;
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
    return graph_type_index (g, v);
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
    return graph_name_of (g, v, mut->namebuf, sizeof (mut->namebuf));
}

int64_t rp_graph_vertex_id (const struct rp_graph *g, rp_vertex_t v)
{
    return graph_id (g, v);
}

const char *rp_graph_vertex_uuid (const struct rp_graph *g, rp_vertex_t v)
{
    struct side *s = valid (g, v) ? graph_side_get (g, v) : NULL;
    return s ? s->uuid : NULL;
}

uint64_t rp_graph_vertex_size (const struct rp_graph *g, rp_vertex_t v)
{
    return graph_size (g, v);
}

const char *rp_graph_vertex_unit (const struct rp_graph *g, rp_vertex_t v)
{
    return valid (g, v) ? g->strs.str[g->v[v].unit] : NULL;
}

rp_vertex_t rp_graph_target (const struct rp_graph *g, rp_vertex_t v)
{
    return graph_target (g, v);
}

int graph_sizes (const struct rp_graph *g, const rp_vertex_t *v, size_t n,
                 uint64_t *out, size_t stride)
{
    const struct vertex *vx = g ? g->v : NULL;
    const uint32_t nv = g ? g->n : 0;
    char *p = (char *)out;

    for (size_t i = 0; i < n; i++, p += stride) {
        if (v[i] >= nv)
            return -1;
        *(uint64_t *)p = vx[v[i]].size;
    }
    return 0;
}

size_t graph_id_runs (const struct rp_graph *g, const rp_vertex_t *v,
                      size_t stride, size_t n, const int t[2],
                      struct graph_idrun *run, size_t cap)
{
    const char *p = (const char *)v;
    const struct vertex *vx = g ? g->v : NULL;
    const uint32_t nv = g ? g->n : 0;
    const int t0 = t[0], t1 = t[1];
    int type = -1; /* of the run open, run[k - 1] */
    int64_t hi = -2;
    size_t k = 0;

    for (size_t i = 0; i < n; i++, p += stride) {
        rp_vertex_t d = *(const rp_vertex_t *)p;
        if (d >= nv || (vx[d].flags & F_TARGET))
            return SIZE_MAX;
        int dt = vx[d].type;
        int64_t id = vx[d].id;
        if ((dt != t0 && dt != t1) || id < 0 || id > UINT32_MAX)
            continue;
        if (dt == type && id == hi + 1) {
            hi = run[k - 1].hi = id;
            continue;
        }
        if (k == cap)
            return SIZE_MAX;
        run[k++] = (struct graph_idrun){ .type = dt, .lo = id, .hi = id };
        type = dt;
        hi = id;
    }
    return k;
}

int64_t rp_graph_vertex_rank (const struct rp_graph *g, rp_vertex_t v)
{
    v = rp_graph_target (g, v);
    return v == NONE ? -1 : graph_side_get (g, v)->rank;
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
    return graph_state_of (g, v);
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
    struct side *s = valid (g, v) && name ? graph_side_get (g, v) : NULL;
    return s && prop_has (s->props, name);
}

const char *rp_graph_vertex_property (const struct rp_graph *g, rp_vertex_t v,
                                      const char *name)
{
    struct side *s = valid (g, v) ? graph_side_get (g, v) : NULL;
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
    struct side *s = valid (g, v) && key && *key ? graph_side_get (g, v) : NULL;
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
    struct side *s = graph_side_get (g, v);
    return obj_copy (s ? s->props : NULL);
}

bool graph_vertex_annotated (const struct rp_graph *g, rp_vertex_t v,
                             bool tags)
{
    struct side *s = valid (g, v) ? graph_side_get (g, v) : NULL;
    json_t *o = s ? (tags ? s->tags : s->props) : NULL;
    return o && json_object_size (o) > 0;
}

bool rp_graph_vertex_has_tag (const struct rp_graph *g, rp_vertex_t v,
                              const char *key)
{
    struct side *s = valid (g, v) && key ? graph_side_get (g, v) : NULL;
    return s && s->tags && json_object_get (s->tags, key);
}

const char *rp_graph_vertex_tag (const struct rp_graph *g, rp_vertex_t v,
                                 const char *key)
{
    struct side *s = valid (g, v) ? graph_side_get (g, v) : NULL;
    return s ? obj_value (s->tags, key) : NULL;
}

json_t *rp_graph_vertex_tags (const struct rp_graph *g, rp_vertex_t v)
{
    if (!valid (g, v))
        return NULL;
    struct side *s = graph_side_get (g, v);
    return obj_copy (s ? s->tags : NULL);
}

/* v or an ancestor not up in the live state */
static bool live_below_down (const struct rp_graph *g, rp_vertex_t v)
{
    return !gstate_path_up (g->live, v);
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
    return graph_parent (g, v);
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
    size_t i = graph_child_pos (g, c) + 1;
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
    if (graph_check_vertex (g, v, error) < 0)
        return -1;
    if ((unsigned)state > RP_VERTEX_DRAINED)
        return rp_error_set (error, EINVAL, "bad state %d", (int)state);
    gstate_set_state (g->live, v, (uint8_t)state);
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
    if (graph_check_vertex (g, v, error) < 0)
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
    struct side *s = o ? graph_side_make (g, v) : NULL;
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
    if (graph_check_vertex (g, v, error) < 0)
        return -1;
    struct side *s = key ? graph_side_get (g, v) : NULL;
    if (!s || !s->tags || json_object_del (s->tags, key) < 0)
        return rp_error_set (error, ENOENT, "%s has no tag '%s'",
                             graph_name_of (g, v, buf, sizeof (buf)),
                             key ? key : "(null)");
    return 0;
}
