/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* An index of the children of a parent by what they show
 * (core/graph_private.h, "classes"): children of one type, state, size,
 * used units, sharing and free aggregates of every type are in one class,
 * so a match policy whose score depends on nothing else (best fit, worst
 * fit) scores one child per class, not every child, and the matcher
 * takes the members of the best classes in handle order.  A cluster of
 * 16,384 nodes filled by a stream of jobs shows a few tens of classes.
 *
 * The indexes of a state are kept in ascending parents (found by binary
 * search: one per node where nodes have many cores).
 *
 * Per indexed parent: each child's class and its place in the class's
 * min-heap of child positions (lowest handle on top), a hash table of
 * the classes by key, and the children whose key may have changed since
 * the index was last brought up to date.  The allocation state marks a
 * child dirty whenever its counters, state or aggregates change
 * (gindex_touch, O(1) when the parent has no index); gstate_classes
 * re-files the dirty children first, O(log n) each, so the cost of a
 * match follows what changed, not the number of children.
 *
 * Members are taken off their heaps by gstate_class_pop (the matcher
 * merges the classes it wants in handle order) and put back by
 * gstate_class_restore; the index is not brought up to date in between.
 * A class left empty keeps its slot until the number of classes passes
 * twice the children, when the index is rebuilt without them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph_impl.h"

#define NOPOS UINT32_MAX

struct gclass {
    uint64_t *key; /* keylen words */
    uint32_t hash;
    uint32_t n;     /* members */
    uint32_t cap;   /* of heap */
    uint32_t *heap; /* child positions */
};

struct gindex {
    rp_vertex_t p;
    uint32_t nkids;
    size_t keylen;
    uint32_t *cls;   /* per child: class */
    uint32_t *hpos;  /* per child: place in its class's heap, NOPOS popped */
    uint8_t *dirty;  /* per child */
    uint32_t *dlist; /* dirty children */
    uint32_t ndirty;
    uint32_t *popped; /* taken off by gstate_class_pop */
    uint32_t npopped;
    struct gclass *c;
    uint32_t nc, capc;
    uint32_t *slot; /* hash table of classes: id + 1, 0 empty */
    uint32_t nslot;
    uint64_t *scratch; /* a key */
    bool broken;       /* out of memory while filing: no longer used */
};

/* --- keys ------------------------------------------------------------- */

static uint32_t hash_words (const uint64_t *w, size_t n)
{
    uint64_t h = 1469598103934665603ULL;

    for (size_t i = 0; i < n; i++) {
        h ^= w[i];
        h *= 1099511628211ULL;
        h ^= h >> 29;
    }
    return (uint32_t)(h ^ (h >> 32));
}

/* What child c shows: type, state and flags, used, size, then its free
 * aggregate of every type. */
static void key_of (const struct rp_gstate *s, rp_vertex_t c, uint64_t *key)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g);

    key[0] = (uint64_t)g->v[c].type | (uint64_t)s->state[c] << 16
             | (uint64_t)(s->shared[c] > 0) << 24
             | (uint64_t)gstate_idle (s, c) << 25;
    key[1] = s->used[c];
    key[2] = g->v[c].size;
    for (size_t t = 0; t < T; t++)
        key[3 + t] = st_agg (s, c, t);
}

bool gstate_shows_same (const struct rp_gstate *s, rp_vertex_t a,
                        rp_vertex_t b)
{
    const struct rp_graph *g = s->g;

    if (g->v[a].type != g->v[b].type || s->state[a] != s->state[b]
        || (s->shared[a] > 0) != (s->shared[b] > 0)
        || s->used[a] != s->used[b] || g->v[a].size != g->v[b].size)
        return false;
    /* a leaf's aggregates (st_agg) and idleness follow from the above */
    if (g->iidx[a] == NONE && g->iidx[b] == NONE)
        return true;
    if (gstate_idle (s, a) != gstate_idle (s, b))
        return false;
    for (size_t t = 0; t < ntypes (g); t++)
        if (st_agg (s, a, t) != st_agg (s, b, t))
            return false;
    return true;
}

/* --- heaps of child positions ------------------------------------------ */

static void heap_set (struct gindex *x, struct gclass *k, uint32_t i,
                      uint32_t pos)
{
    k->heap[i] = pos;
    x->hpos[pos] = i;
}

static void heap_up (struct gindex *x, struct gclass *k, uint32_t i)
{
    uint32_t pos = k->heap[i];

    while (i > 0 && k->heap[(i - 1) / 2] > pos) {
        heap_set (x, k, i, k->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set (x, k, i, pos);
}

static void heap_down (struct gindex *x, struct gclass *k, uint32_t i)
{
    uint32_t pos = k->heap[i];

    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= k->n)
            break;
        if (c + 1 < k->n && k->heap[c + 1] < k->heap[c])
            c++;
        if (k->heap[c] >= pos)
            break;
        heap_set (x, k, i, k->heap[c]);
        i = c;
    }
    heap_set (x, k, i, pos);
}

static int heap_add (struct gindex *x, uint32_t id, uint32_t pos)
{
    struct gclass *k = &x->c[id];

    if (k->n == k->cap) {
        uint32_t cap = k->cap ? k->cap * 2 : 4;
        uint32_t *h = realloc (k->heap, cap * sizeof (*h));
        if (!h)
            return -1;
        k->heap = h;
        k->cap = cap;
    }
    k->heap[k->n++] = pos;
    heap_up (x, k, k->n - 1);
    x->cls[pos] = id;
    return 0;
}

static void heap_remove (struct gindex *x, uint32_t pos)
{
    struct gclass *k = &x->c[x->cls[pos]];
    uint32_t i = x->hpos[pos];
    uint32_t moved;

    if (i == NOPOS)
        return;
    x->hpos[pos] = NOPOS;
    if (i == --k->n)
        return;
    moved = k->heap[k->n];
    heap_set (x, k, i, moved);
    heap_down (x, k, i);
    if (x->hpos[moved] == i)
        heap_up (x, k, i);
}

/* --- classes ------------------------------------------------------------ */

static void index_free (struct gindex *x)
{
    for (uint32_t i = 0; i < x->nc; i++) {
        free (x->c[i].key);
        free (x->c[i].heap);
    }
    free (x->c);
    free (x->slot);
    free (x->cls);
    free (x->hpos);
    free (x->dirty);
    free (x->dlist);
    free (x->popped);
    free (x->scratch);
}

static int table_grow (struct gindex *x)
{
    uint32_t n = x->nslot ? x->nslot * 2 : 64;
    uint32_t *slot = calloc (n, sizeof (*slot));

    if (!slot)
        return -1;
    for (uint32_t id = 0; id < x->nc; id++) {
        uint32_t i = x->c[id].hash & (n - 1);
        while (slot[i])
            i = (i + 1) & (n - 1);
        slot[i] = id + 1;
    }
    free (x->slot);
    x->slot = slot;
    x->nslot = n;
    return 0;
}

/* The class of key (hash h), made if new: its id, or NOPOS (ENOMEM). */
static uint32_t class_of (struct gindex *x, const uint64_t *key, uint32_t h)
{
    size_t bytes = x->keylen * sizeof (*key);
    struct gclass *k;
    uint32_t i;

    for (i = h & (x->nslot - 1); x->slot[i]; i = (i + 1) & (x->nslot - 1)) {
        k = &x->c[x->slot[i] - 1];
        if (k->hash == h && !memcmp (k->key, key, bytes))
            return x->slot[i] - 1;
    }
    if (x->nc == x->capc) {
        uint32_t cap = x->capc ? x->capc * 2 : 16;
        struct gclass *c = realloc (x->c, cap * sizeof (*c));
        if (!c)
            return NOPOS;
        x->c = c;
        x->capc = cap;
    }
    k = &x->c[x->nc];
    *k = (struct gclass){ .hash = h, .key = malloc (bytes) };
    if (!k->key)
        return NOPOS;
    memcpy (k->key, key, bytes);
    x->slot[i] = ++x->nc;
    if (x->nc * 2 > x->nslot && table_grow (x) < 0)
        return NOPOS;
    return x->nc - 1;
}

/* File child pos under its key as it is now. */
static int file (const struct rp_gstate *s, struct gindex *x, uint32_t pos)
{
    rp_vertex_t c = s->g->child[s->g->child_off[x->p] + pos];
    uint32_t id;

    key_of (s, c, x->scratch);
    id = class_of (x, x->scratch, hash_words (x->scratch, x->keylen));
    return id == NOPOS ? -1 : heap_add (x, id, pos);
}

/* Build x's classes from nothing. */
static int index_build (const struct rp_gstate *s, struct gindex *x)
{
    for (uint32_t id = 0; id < x->nc; id++) {
        free (x->c[id].key);
        free (x->c[id].heap);
    }
    x->nc = 0;
    memset (x->slot, 0, x->nslot * sizeof (*x->slot));
    for (uint32_t pos = 0; pos < x->nkids; pos++) {
        x->dirty[pos] = 0;
        if (file (s, x, pos) < 0)
            return -1;
    }
    x->ndirty = 0;
    return 0;
}

/* Where p's index is or goes in s->ix (ascending parents). */
static size_t index_slot (const struct rp_gstate *s, rp_vertex_t p)
{
    size_t lo = 0, hi = s->nix;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->ix[mid]->p < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether p is outside the range of the indexed parents (the cores of a
 * node, where only the cluster's nodes are indexed): told at once, as an
 * exclusive node's 69 vertices taken whole touch their parents one by
 * one. */
static inline bool unindexed (const struct rp_gstate *s, rp_vertex_t p)
{
    return s->nix == 0 || p < s->ix[0]->p || p > s->ix[s->nix - 1]->p;
}

struct gindex *gstate_index_of (const struct rp_gstate *s, rp_vertex_t p)
{
    if (unindexed (s, p))
        return NULL;
    size_t i = index_slot (s, p);

    return i < s->nix && s->ix[i]->p == p ? s->ix[i] : NULL;
}

int gstate_index (struct rp_gstate *s, rp_vertex_t p)
{
    const struct rp_graph *g = s->g;
    struct gindex *x, **ix;
    uint32_t n;
    size_t i;

    if (gstate_index_of (s, p))
        return 0;
    n = nkids (g, p);
    if (s->nix == s->ixcap) {
        size_t cap = s->ixcap ? 2 * s->ixcap : 4;
        if (!(ix = realloc (s->ix, cap * sizeof (*ix)))) {
            errno = ENOMEM;
            return -1;
        }
        s->ix = ix;
        s->ixcap = cap;
    }
    if (!(x = calloc (1, sizeof (*x))))
        goto nomem;
    x->p = p;
    x->nkids = n;
    x->keylen = 3 + ntypes (g);
    x->cls = calloc (n + 1, sizeof (*x->cls));
    x->hpos = calloc (n + 1, sizeof (*x->hpos));
    x->dirty = calloc (n + 1, 1);
    x->dlist = calloc (n + 1, sizeof (*x->dlist));
    x->popped = calloc (n + 1, sizeof (*x->popped));
    x->scratch = calloc (x->keylen, sizeof (*x->scratch));
    if (!x->cls || !x->hpos || !x->dirty || !x->dlist || !x->popped
        || !x->scratch || table_grow (x) < 0 || index_build (s, x) < 0) {
        index_free (x);
        free (x);
        goto nomem;
    }
    i = index_slot (s, p);
    memmove (&s->ix[i + 1], &s->ix[i], (s->nix - i) * sizeof (*s->ix));
    s->ix[i] = x;
    s->nix++;
    return 0;
nomem:
    errno = ENOMEM;
    return -1;
}

void gindex_destroy_all (struct rp_gstate *s)
{
    for (size_t i = 0; i < s->nix; i++) {
        index_free (s->ix[i]);
        free (s->ix[i]);
    }
    free (s->ix);
    s->ix = NULL;
    s->nix = s->ixcap = 0;
}

void gindex_touch (struct rp_gstate *s, rp_vertex_t v)
{
    rp_vertex_t p = parent_of (s->g, v);
    struct gindex *x;
    uint32_t pos;

    if (p == NONE || unindexed (s, p) || !(x = gstate_index_of (s, p)))
        return;
    pos = (uint32_t)graph_child_pos (s->g, v);
    if (!x->dirty[pos]) {
        x->dirty[pos] = 1;
        x->dlist[x->ndirty++] = pos;
    }
}

/* Re-file the dirty children; rebuild when empty classes pile up. */
static int index_update (const struct rp_gstate *s, struct gindex *x)
{
    uint32_t live = 0;

    if (x->broken)
        return -1;
    for (uint32_t i = 0; i < x->ndirty; i++) {
        uint32_t pos = x->dlist[i];
        x->dirty[pos] = 0;
        heap_remove (x, pos);
        if (file (s, x, pos) < 0) {
            x->broken = true;
            return -1;
        }
    }
    x->ndirty = 0;
    if (x->nc <= 2 * x->nkids + 16)
        return 0;
    for (uint32_t id = 0; id < x->nc; id++)
        live += x->c[id].n > 0;
    if (live * 2 < x->nc && index_build (s, x) < 0) {
        x->broken = true;
        return -1;
    }
    return 0;
}

size_t gstate_classes (struct rp_gstate *s, rp_vertex_t p)
{
    struct gindex *x = gstate_index_of (s, p);

    if (!x || x->npopped > 0 || index_update (s, x) < 0)
        return 0;
    return x->nc;
}

rp_vertex_t gstate_class_first (const struct rp_gstate *s, rp_vertex_t p,
                                size_t k)
{
    struct gindex *x = gstate_index_of (s, p);

    if (!x || k >= x->nc || x->c[k].n == 0)
        return NONE;
    return s->g->child[s->g->child_off[p] + x->c[k].heap[0]];
}

size_t gstate_class_tops (const struct rp_gstate *s, rp_vertex_t p,
                          rp_vertex_t *top, size_t n)
{
    struct gindex *x = gstate_index_of (s, p);
    const rp_vertex_t *kids = &s->g->child[s->g->child_off[p]];
    size_t k;

    for (k = 0; x && k < n && k < x->nc; k++)
        top[k] = x->c[k].n == 0 ? NONE : kids[x->c[k].heap[0]];
    return k;
}

rp_vertex_t gstate_class_pop (struct rp_gstate *s, rp_vertex_t p, size_t k)
{
    struct gindex *x = gstate_index_of (s, p);
    uint32_t pos;

    if (!x || k >= x->nc || x->c[k].n == 0)
        return NONE;
    pos = x->c[k].heap[0];
    heap_remove (x, pos);
    x->popped[x->npopped++] = pos;
    return s->g->child[s->g->child_off[p] + pos];
}

void gstate_class_restore (struct rp_gstate *s, rp_vertex_t p)
{
    struct gindex *x = gstate_index_of (s, p);

    while (x && x->npopped > 0) {
        uint32_t pos = x->popped[--x->npopped];
        (void)heap_add (x, x->cls[pos], pos); /* the room is there */
    }
}

/* Every child in the class of its key (those marked dirty aside), at its
 * place in the class's heap, the heaps ordered. */
static int index_check (const struct rp_gstate *s, const struct gindex *x,
                        rp_error_t *error)
{
    uint64_t *key = calloc (x->keylen, sizeof (*key));
    char buf[WORD_MAX + 32];
    int rc = 0;

    if (!key)
        return rp_error_set (error, ENOMEM, "out of memory");
    for (uint32_t pos = 0; pos < x->nkids && rc == 0 && !x->broken; pos++) {
        rp_vertex_t c = s->g->child[s->g->child_off[x->p] + pos];
        const struct gclass *k = &x->c[x->cls[pos]];
        uint32_t i = x->hpos[pos];
        key_of (s, c, key);
        if (i == NOPOS || i >= k->n || k->heap[i] != pos
            || (i > 0 && k->heap[(i - 1) / 2] > pos))
            rc = rp_error_set (error, EPROTO, "%s: misplaced in its class",
                               graph_name_of (s->g, c, buf, sizeof (buf)));
        else if (!x->dirty[pos]
                 && memcmp (key, k->key, x->keylen * sizeof (*key)))
            rc = rp_error_set (error, EPROTO, "%s: in the class of another key",
                               graph_name_of (s->g, c, buf, sizeof (buf)));
    }
    free (key);
    return rc;
}

int gindex_check (const struct rp_gstate *s, rp_error_t *error)
{
    for (size_t i = 0; i < s->nix; i++)
        if (s->ix[i]->npopped == 0 && index_check (s, s->ix[i], error) < 0)
            return -1;
    return 0;
}
