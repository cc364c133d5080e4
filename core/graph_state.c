/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The allocation states of a resource graph (core/graph_private.h): per
 * vertex used, shared and state, the free aggregates of every interior
 * vertex, and the block summaries that let gstate_child_fit skip full
 * siblings.
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
 * Whole subtrees.  An exclusive node is taken whole: gstate_take_whole
 * sets its subtree's counters, zeroes its aggregates and summaries, and
 * climbs from it once for all types, where a take per vertex climbed to
 * the root from each of its 75 vertices (an exclusive node of 64 cores
 * and 4 GPUs: 78,600 -> 52,100 instructions per allocation, its free
 * 31,100 -> 11,900).  Its climb updates the block summaries of all the
 * types it changes at once: an entry whose maximum fell is rescanned once
 * for all of them, each member's state and aggregates read once.  A
 * caller that listed the subtree already (the matcher, to log its holds)
 * passes the list (gstate_take_whole_list): the check and the set read it
 * instead of walking the subtree twice more; the matcher has the state
 * list it (gstate_take_whole_into), the walk that lists it checking it
 * too, so an exclusive node is walked once, and the list serves the
 * set, the log, the pre-commit check (gstate_whole_check) and R.
 * Freeing a job puts its whole nodes back together
 * (gstate_put_whole_many), from the lists of
 * their subtrees the job's holds keep (not walked again): a run of roots
 * under one parent adds to the parent's aggregates and climbs above it
 * once, and raises the parent's block maxima (increases only: nothing
 * is rescanned); 1,093 -> 838 instructions per node freed on the LANL
 * replay, where nodes of one core are taken and freed by the hundred,
 * and 603 with the lists.
 *
 * Searches again.  The matcher places a job's nodes one at a time, each
 * with a search of the cluster's children from the first (a fresh walk
 * per unit), so every search skipped the same full prefix again.  The
 * state keeps its last search from a first child (parent, order, needs,
 * and where in its order the child found is: s->memo); the same search
 * again starts at that child, included, as long as no child before it
 * may have come to fit.  Only a gain can make a child fit: every change
 * that raises a child's contribution to its parent, or brings it up,
 * tells the memo (memo_gain), and setting a whole subtree's counters
 * drops a memo of a parent inside it.  Decreases change nothing before
 * the child found, and the child itself is searched again.  On the LANL
 * replay, gstate_child_fit 790 -> 422 instructions per node placed.
 * Two searches are kept (FIT_MEMOS), a new one replacing the one not
 * used last: a command searches the cluster's nodes, then the node's
 * cores, and with one entry the second overwrote the first, so every
 * command searched the nodes from the first again (a slot of 4 cores on
 * 1,024 nodes under "first": 18,424 -> 18,018 instructions per command).
 *
 * Searches kept.  The walk asks for the next child after the last one
 * found, child after child (the cores of a node); each gstate_child_fit
 * set the search up again (the needed types, the summary levels) and
 * looked the last child's place up, most of a find's cost.  The caller
 * keeps the search instead (struct gfit: gstate_fit_first, then
 * gstate_fit_next from the place it found), the state read live at each
 * find: one slot of 4 cores on 1,024 nodes of 64 cores under "pack",
 * 51,600 -> 44,500 instructions per command.  Whether a parent's children
 * are all leaves, in ascending ids and of one size (gstate_leaf_kids,
 * what tells the matcher a node's cores are in its policy's order) is
 * of the graph alone: the last answer is kept (s->kids), and a node
 * filled by 16 jobs is read once, not 16 times.  A find looks at the
 * first child it would search before anything else (fit_at): when that
 * child fits, the entries above it do too, and the cores of a slot are
 * found one look each, not a look at the entry above and a scan set up;
 * and leaves taken whole move a kept search with a need past them
 * (memo_taken), so the next slot's search of the node begins at its
 * first free core.  With the place of each taken leaf read from the last
 * one's (a slot's cores are neighbours): "first", a slot of 4 cores on
 * 1,024 nodes, 18,201 -> 17,706 instructions per command.
 *
 * A slot's leaves taken (gstate_take_leaves).  The leaves of one parent
 * change its aggregates once per group (one summary entry, one type),
 * not per leaf; its ancestors' aggregates and summaries only for the
 * types that changed; a rescan of a summary entry's children reads their
 * arrays from locals in two straight passes, not through blk_member (the
 * state's summaries built at load with it too); a child's place is read
 * at c - first child when the handles are consecutive there (a node's
 * cores), before the binary search; a rescan passes a leaf taken whole
 * at two loads, and the search kept past a run reads the run's leaves as
 * taken; an ancestor whose children changed in one type updates its
 * summaries as blk_update does.  "first", a slot of 4 cores on 1,024
 * nodes: gstate_take_leaves 1,562 -> 1,075 instructions per command;
 * building the state of 1,024 nodes 11.8 -> 8.9 million.  A run's summed
 * changes are zeroed per type as the run first marks it, not all types
 * (a memset call): 1,052 -> 1,045.
 *
 * A find's set up.  Most finds take the first child they look at (the
 * kept search's child, a slot's next core), so the summary levels are
 * read at the first find that scans past it (fit_scan_from), not at set
 * up; a kept search found again changes its place only (its parent,
 * order and needs are those compared); the find's first look, the
 * compare with the kept searches and the levels are inlined, the scan
 * past the first look is not.  "first", a slot of 4 cores on 1,024
 * nodes: the two searches of a command (set up, kept search, first
 * look; gstate_fit_first inclusive) 693 -> 403 instructions per
 * command, rp_matcher_allocate 5,949 -> 5,635.
 *
 * Decisions.  The state counts the vertices that are not up, so the
 * ancestor check costs nothing while all are up and O(depth) otherwise.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph_impl.h"

static size_t level_next (size_t n)
{
    return (n + BLOCK - 1) / BLOCK;
}

/* Entries of all summary levels of a parent with k children. */
size_t graph_blk_entries (size_t k)
{
    size_t total = 0, n = k;
    do {
        n = level_next (n);
        total += n;
    } while (n > BLOCK);
    return total;
}

void gstate_destroy (struct rp_gstate *s)
{
    if (!s)
        return;
    free (s->used);
    free (s->shared);
    free (s->state);
    free (s->agg);
    free (s->blk);
    gindex_destroy_all (s);
    free (s);
}

/* --- allocation states ----------------------------------------------- */

/* What v adds to its parent's aggregate. */
static uint64_t st_contrib (const struct rp_gstate *s, rp_vertex_t v, size_t t)
{
    return st_up (s, v) ? st_agg (s, v, t) : 0;
}

/* Summary levels of parent p: counts n[0] (children) .. n[L], offsets
 * off[1] .. off[L] into s->blk.  Returns L (0: no summaries). */
static inline __attribute__ ((always_inline)) int
levels (const struct rp_graph *g, rp_vertex_t p, size_t *n, uint64_t *off)
{
    uint64_t o = g->blk_off[g->iidx[p]];
    size_t T = ntypes (g), k = nkids (g, p);
    int L = 0;
    if (o == UINT64_MAX)
        return 0;
    n[0] = k;
    do { /* from locals: a store to off[] may change n[] */
        k = level_next (k);
        n[++L] = k;
        off[L] = o;
        o += k * T;
    } while (k > BLOCK);
    return L;
}

/* graph_child_pos (c), read at c's place among its parent's children
 * when the children's handles are consecutive there (a node's cores: a
 * load, where the search took 35 instructions). */
static size_t __attribute__ ((noinline))
child_pos_near (const struct rp_graph *g, rp_vertex_t c)
{
    rp_vertex_t p = parent_of (g, c);
    if (p != NONE) {
        const rp_vertex_t *kids = &g->child[g->child_off[p]];
        uint32_t at = c - kids[0];
        if (at < nkids (g, p) && kids[at] == c)
            return at;
    }
    return graph_child_pos (g, c);
}

/* child_pos through the state's cache: positions never change after
 * finalize, and one binary search among 16,384 children was a fifth of
 * a whole-node match. */
static inline size_t child_pos_cached (struct rp_gstate *s, rp_vertex_t c)
{
    size_t k = c % POS_CACHE;
    if (s->pos_v[k] != c + 1) {
        s->pos[k] = (uint32_t)child_pos_near (s->g, c);
        s->pos_v[k] = c + 1;
    }
    return s->pos[k];
}

/* The kept search (s->memo) of parent p, order high, for need; NULL:
 * none. */
static inline __attribute__ ((always_inline)) struct fit_memo *
memo_find (const struct rp_gstate *s, rp_vertex_t p, const uint64_t *need,
           bool high)
{
    for (size_t i = 0; i < FIT_MEMOS; i++) {
        struct fit_memo *m = (struct fit_memo *)&s->memo[i];
        if (m->p != p || m->high != high || m->noneed != !need)
            continue;
        size_t t = 0;
        for (; need && t < ntypes (s->g) && m->need[t] == need[t]; t++)
            ;
        if (need && t < ntypes (s->g))
            continue;
        return m;
    }
    return NULL;
}

/* Keep a search from p's first child: it found the child at idx in its
 * order (nkids: none).  In m, the entry that kept this search before;
 * NULL: the entry not used last (a command's search of the cluster's
 * nodes and of a node's cores both kept). */
static void memo_keep (struct rp_gstate *s, struct fit_memo *m, rp_vertex_t p,
                       const uint64_t *need, bool high, size_t idx)
{
    size_t T = ntypes (s->g);
    if (m) { /* found by memo_find: p, order and needs are kept */
        m->idx = (uint32_t)idx;
        s->memo_last = (uint32_t)(m - s->memo);
        return;
    }
    m = &s->memo[FIT_MEMOS - 1 - s->memo_last];
    m->p = NONE;
    if (T > 64)
        return;
    m->needs = false;
    for (size_t t = 0; need && t < T; t++) {
        m->need[t] = need[t];
        m->needs |= need[t] > 0;
    }
    m->noneed = !need;
    m->high = high;
    m->idx = (uint32_t)idx;
    m->p = p;
    s->memo_last = (uint32_t)(m - s->memo);
}

/* Child c of p may fit now where it did not: a kept search of p that
 * found its child past c's place (in its order) may not find it first. */
static void memo_gain (struct rp_gstate *s, rp_vertex_t p, rp_vertex_t c)
{
    for (size_t i = 0; i < FIT_MEMOS; i++) {
        struct fit_memo *m = &s->memo[i];
        if (m->p != p)
            continue;
        size_t pos = child_pos_cached (s, c);
        if ((m->high ? nkids (s->g, p) - 1 - pos : pos) < m->idx)
            m->p = NONE;
    }
}

/* A kept search of d's children is dropped: they change, not told one
 * by one. */
static void memo_drop (struct rp_gstate *s, rp_vertex_t d)
{
    for (size_t i = 0; i < FIT_MEMOS; i++)
        if (s->memo[i].p == d)
            s->memo[i].p = NONE;
}

/* Leaves run[0..n) of p were taken whole: a kept search of p with a
 * need whose child found is among them begins after them next time (a
 * taken leaf has nothing free, so it fits no need).  first: a slot's 4
 * cores found again from the next core, not the taken ones.  A child
 * that is the run's leaf of the same rank is known taken, its state not
 * read. */
static void memo_taken (struct rp_gstate *s, rp_vertex_t p,
                        const rp_vertex_t *run, size_t n)
{
    const struct rp_graph *g = s->g;

    for (size_t i = 0; i < FIT_MEMOS; i++) {
        struct fit_memo *m = &s->memo[i];
        if (m->p != p || !m->needs)
            continue;
        size_t k = nkids (g, p), idx = m->idx, a = 0;
        const rp_vertex_t *kids = &g->child[g->child_off[p]];
        if (!m->high) /* the run's leaves found in order: a compare each */
            for (; a < n && idx < k && kids[idx] == run[a]; a++)
                idx++;
        for (; a < n && idx < k; a++, idx++) {
            rp_vertex_t c = kids[m->high ? k - 1 - idx : idx];
            if (c != run[a] && (g->iidx[c] != NONE || st_free (s, c) > 0))
                break;
        }
        m->idx = (uint32_t)idx;
    }
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

/* The largest contribution of type t among children kids[lo..hi) of a
 * parent, from kids[from] on, wrapping around, stopping at the first
 * that reaches cap: blk_member's answer with the arrays read from
 * locals, in two straight passes (from..hi, then lo..from). */
static uint64_t blk_recount_kids (const struct rp_gstate *s,
                                  const rp_vertex_t *kids, size_t lo, size_t hi,
                                  size_t from, size_t t, uint64_t cap)
{
    const struct rp_graph *g = s->g;
    const struct vertex *vx = g->v;
    const uint32_t *iidx = g->iidx;
    const uint8_t *state = s->state;
    const uint64_t *used = s->used, *agg = s->agg;
    const uint32_t *shared = s->shared;
    size_t T = ntypes (g), i = from, end = hi;
    uint64_t max = 0;

    for (int pass = 0; pass < 2; pass++, i = lo, end = from) {
        for (; i < end && max < cap; i++) {
            rp_vertex_t c = kids[i];
            uint64_t v;
            if (iidx[c] != NONE)
                v = state[c] == RP_VERTEX_UP ? agg[(size_t)iidx[c] * T + t] : 0;
            else if (used[c] == vx[c].size)
                continue; /* a leaf taken whole: 0, read at two loads */
            else
                v = state[c] == RP_VERTEX_UP && vx[c].type == t
                            && shared[c] == 0
                        ? vx[c].size - used[c]
                        : 0;
            max = v > max ? v : max;
        }
    }
    return max;
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
    if (l == 1)
        return blk_recount_kids (s, &s->g->child[s->g->child_off[p]], lo, hi,
                                 from, t, cap);
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
static inline void blk_update_at (struct rp_gstate *s, rp_vertex_t p,
                                  rp_vertex_t c, const size_t *n,
                                  const uint64_t *off, int L, size_t pos,
                                  size_t t, int64_t d)
{
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

/* blk_recount of the types marked in want (at most 64) at once, into
 * max[t]: one scan of the members reads each child's state and aggregates
 * once for all of them, and stops when every type reached its cap. */
static void blk_recount_all (const struct rp_gstate *s, rp_vertex_t p,
                             const size_t *n, const uint64_t *off, int l,
                             size_t j, size_t from, const uint64_t *cap,
                             uint64_t want, uint64_t *max)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g), lo = j * BLOCK;
    size_t hi = lo + BLOCK < n[l - 1] ? lo + BLOCK : n[l - 1];
    if (from < lo || from >= hi)
        from = lo;
    for (size_t t = 0; t < T; t++)
        max[t] = 0;
    for (size_t k = 0; k < hi - lo && want; k++) {
        size_t i = from + k < hi ? from + k : from + k - (hi - lo);
        const uint64_t *row = NULL; /* the member's values, by type */
        if (l > 1)
            row = &s->blk[off[l - 1] + i * T];
        else {
            rp_vertex_t c = g->child[g->child_off[p] + i];
            if (!st_up (s, c))
                continue; /* contributes 0: below every cap */
            if (g->iidx[c] != NONE)
                row = &s->agg[(size_t)g->iidx[c] * T];
        }
        for (uint64_t w = want; w; w &= w - 1) {
            size_t t = (size_t)__builtin_ctzll (w);
            uint64_t v = row ? row[t] : blk_member (s, p, off, l, i, t);
            max[t] = v > max[t] ? v : max[t];
            if (max[t] >= cap[t])
                want &= ~(1ull << t);
        }
    }
}

/* blk_update_at for every type t with d[t] != 0, marked in live (at
 * most 64 types): the entries above c level by level, the members of an
 * entry whose maximum fell rescanned once for all the types that need it
 * (a whole node changes its node, socket and core counts at once), one
 * type's alone (a slot's cores: the scan of one type is the cheaper). */
static void blk_update_all (struct rp_gstate *s, rp_vertex_t p, rp_vertex_t c,
                            const size_t *n, const uint64_t *off, int L,
                            size_t pos, const int64_t *d, uint64_t live)
{
    size_t T = ntypes (s->g);
    uint64_t now[64], before[64], cap[64], max[64];
    for (uint64_t w = live; w; w &= w - 1) {
        size_t t = (size_t)__builtin_ctzll (w);
        now[t] = st_contrib (s, c, t);
        before[t] = now[t] - (uint64_t)d[t];
    }
    for (int l = 1; l <= L && live; l++) {
        size_t j = pos / BLOCK;
        uint64_t *row = &s->blk[off[l] + j * T], recount = 0;
        for (uint64_t w = live; w; w &= w - 1) {
            size_t t = (size_t)__builtin_ctzll (w);
            uint64_t old = row[t];
            if (now[t] >= old)
                row[t] = now[t];
            else if (before[t] == old)
                recount |= 1ull << t;
            cap[t] = before[t] = old;
        }
        if (recount && !(recount & (recount - 1))) {
            size_t t = (size_t)__builtin_ctzll (recount);
            max[t] = blk_recount (s, p, n, off, l, j, t, pos + 1, cap[t]);
        } else if (recount)
            blk_recount_all (s, p, n, off, l, j, pos + 1, cap, recount, max);
        for (uint64_t w = recount; w; w &= w - 1)
            row[__builtin_ctzll (w)] = max[__builtin_ctzll (w)];
        for (uint64_t w = live; w; w &= w - 1) {
            size_t t = (size_t)__builtin_ctzll (w);
            now[t] = row[t];
            if (now[t] == before[t])
                live &= ~(1ull << t);
        }
        pos = j;
    }
}

static void blk_update (struct rp_gstate *s, rp_vertex_t p, rp_vertex_t c,
                        size_t t, int64_t d)
{
    size_t n[MAX_LEVELS];
    uint64_t off[MAX_LEVELS];
    int L = levels (s->g, p, n, off);

    if (L > 0)
        blk_update_at (s, p, c, n, off, L, child_pos_cached (s, c), t, d);
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

/* blk_fill of a parent whose children are all held whole (whole: every
 * member contributes nothing, so every entry is 0) or all up and free
 * (each entry the maximum of its members' totals, one scan of the members
 * for every type at once): a whole subtree set in one step. */
static void blk_fill_uniform (struct rp_gstate *s, rp_vertex_t p, bool whole)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g), n[MAX_LEVELS];
    uint64_t off[MAX_LEVELS], cap[64], all = 0;
    int L = levels (g, p, n, off);

    if (!whole && T > 64) {
        blk_fill (s, p);
        return;
    }
    for (size_t t = 0; t < T && !whole; t++) {
        cap[t] = UINT64_MAX;
        all |= 1ull << t;
    }
    for (int l = 1; l <= L; l++) {
        if (whole) {
            memset (&s->blk[off[l]], 0, n[l] * T * sizeof (*s->blk));
            continue;
        }
        for (size_t j = 0; j < n[l]; j++)
            blk_recount_all (s, p, n, off, l, j, j * BLOCK, cap, all,
                             &s->blk[off[l] + j * T]);
    }
}

struct rp_gstate *gstate_create (struct rp_graph *g)
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
    for (size_t i = 0; i < FIT_MEMOS; i++)
        s->memo[i].p = NONE;
    s->kids.p = NONE;
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

void gstate_agg_row (const struct rp_gstate *s, rp_vertex_t v, uint64_t *out,
                     size_t n)
{
    const struct rp_graph *g = s->g;

    if (g->iidx[v] != NONE) {
        memcpy (out, &s->agg[(size_t)g->iidx[v] * ntypes (g)],
                n * sizeof (*out));
        return;
    }
    memset (out, 0, n * sizeof (*out));
    if (g->v[v].type < n)
        out[g->v[v].type] = st_free (s, v);
}

bool gstate_has (const struct rp_gstate *s, rp_vertex_t v,
                 const uint64_t *need)
{
    const struct rp_graph *g = s->g;
    size_t n = ntypes (g);

    if (v >= g->n || !st_up (s, v))
        return false;
    if (g->iidx[v] == NONE) { /* a leaf has units of its own type only */
        for (size_t t = 0; t < n; t++)
            if (need[t] > (g->v[v].type == t ? st_free (s, v) : 0))
                return false;
        return true;
    }
    const uint64_t *agg = &s->agg[(size_t)g->iidx[v] * n];
    for (size_t t = 0; t < n; t++)
        if (agg[t] < need[t])
            return false;
    return true;
}

/* A leaf is idle when all its units are free (its aggregates of other
 * types are 0 in both); an interior vertex when its row of aggregates is
 * its row of totals. */
bool gstate_idle (const struct rp_gstate *s, rp_vertex_t v)
{
    const struct rp_graph *g = s->g;

    if (v >= g->n)
        return false;
    if (g->iidx[v] == NONE)
        return st_free (s, v) == g->v[v].size;
    size_t T = ntypes (g);
    const uint64_t *agg = &s->agg[(size_t)g->iidx[v] * T];
    const uint64_t *total = &g->total[(size_t)g->iidx[v] * T];
    for (size_t t = 0; t < T; t++) {
        if (agg[t] != total[t])
            return false;
    }
    return true;
}

/* gstate_path_up past its test of nnotup */
bool gstate_path_climb (const struct rp_gstate *s, rp_vertex_t v)
{
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
        if (d > 0)
            memo_gain (s, p, v);
        blk_update (s, p, v, t, d);
        if (s->nix)
            gindex_touch (s, p);
        if (!st_up (s, p))
            break;
        v = p;
    }
}

/* v's contribution to its parent changed by d[t] units of every type t
 * marked in live (the others by none; gain: some d[t] > 0): add_up of
 * each, the summary levels and v's place found once per ancestor (a
 * whole subtree changes several types at once), an ancestor's
 * aggregates added to for the types that changed only; one type changed
 * (a slot's cores) is add_up's. */
static void add_up_live (struct rp_gstate *s, rp_vertex_t v, const int64_t *d,
                         uint64_t live, bool gain)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g), n[MAX_LEVELS];
    uint64_t off[MAX_LEVELS];
    if (live && !(live & (live - 1))) {
        size_t t = (size_t)__builtin_ctzll (live);
        add_up (s, v, t, d[t]);
        return;
    }
    for (rp_vertex_t p = parent_of (g, v); p != NONE; p = parent_of (g, p)) {
        int L = levels (g, p, n, off);
        uint64_t *row = &s->agg[(size_t)g->iidx[p] * T];
        if (gain)
            memo_gain (s, p, v);
        for (uint64_t w = live; w; w &= w - 1)
            row[__builtin_ctzll (w)] += (uint64_t)d[__builtin_ctzll (w)];
        if (L > 0)
            blk_update_all (s, p, v, n, off, L, child_pos_cached (s, v), d,
                            live);
        if (s->nix)
            gindex_touch (s, p);
        if (!st_up (s, p))
            break;
        v = p;
    }
}

/* add_up_live of every type t with d[t] != 0 (at most 64 types). */
static void add_up_all (struct rp_gstate *s, rp_vertex_t v, const int64_t *d)
{
    uint64_t live = 0;
    bool gain = false;
    for (size_t t = 0; t < ntypes (s->g); t++) {
        live |= (uint64_t)(d[t] != 0) << t;
        gain |= d[t] > 0;
    }
    add_up_live (s, v, d, live, gain);
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
    if (!s || v >= s->g->n || !gstate_path_up (s, v))
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
    if (s->nix)
        gindex_touch (s, v);
    self_changed (s, v, f0);
    return 0;
}

/* gstate_take (v, size(v), true) would take leaf v (s not NULL). */
static inline bool leaf_takes (const struct rp_gstate *s, rp_vertex_t v)
{
    const struct rp_graph *g = s->g;

    return g && v < g->n && g->iidx[v] == NONE && g->v[v].size > 0
           && (s->shared[v] | s->used[v]) == 0
           && gstate_path_up (s, v);
}

bool gstate_leaf_takes (const struct rp_gstate *s, rp_vertex_t v)
{
    return s && leaf_takes (s, v);
}

/* A group of leaves of one run: one level 1 entry (0 without summaries)
 * and one type; their sizes summed, the largest, and the last leaf and
 * its place. */
struct leaf_group {
    size_t entry, t, pos;
    rp_vertex_t last;
    uint64_t sum, before;
};

/* Group g done: p's aggregate row and d of its type, its entry's
 * summaries from its last leaf. */
static inline void leaf_group_done (struct rp_gstate *s, rp_vertex_t p,
                                    uint64_t *row, int64_t *d, const size_t *nl,
                                    const uint64_t *off, int L,
                                    struct leaf_group g)
{
    row[g.t] -= g.sum;
    d[g.t] -= (int64_t)g.sum;
    if (L > 0) /* the last leaf's contribution, before: the largest */
        blk_update_at (s, p, g.last, nl, off, L, g.pos, g.t,
                       (int64_t)(st_contrib (s, g.last, g.t) - g.before));
}

/* The leaves v[i..n) that share v[i]'s parent p, their counters already
 * set: p's aggregates, its summaries, then p's ancestors once with the
 * summed change (T <= 64).  The summaries change once per level 1 entry
 * and type, from the last leaf of the entry with the largest contribution
 * any had (before): one rescan finds the other members' maximum, where a
 * rescan per leaf passed the leaves taken with it.  p's aggregates change
 * once per such group too, and its ancestors' for the types changed
 * only.  Returns the end of the run. */
static size_t leaf_run_changed (struct rp_gstate *s, const rp_vertex_t *v,
                                size_t i, size_t n)
{
    const struct rp_graph *g = s->g;
    const struct vertex *vx = g->v;
    rp_vertex_t p = vx[v[i]].parent;
    const rp_vertex_t *kids = &g->child[g->child_off[p]];
    size_t T = ntypes (g), nl[MAX_LEVELS], j, pos = SIZE_MAX - 1;
    uint64_t off[MAX_LEVELS], *row = &s->agg[(size_t)g->iidx[p] * T], live = 0;
    int L = levels (g, p, nl, off);
    bool touch = s->nix > 0;
    struct leaf_group grp = { .entry = SIZE_MAX };
    int64_t d[64]; /* d[t] set when t is first marked in live: only those
                    * are read */

    for (j = i; j < n && vx[v[j]].parent == p; j++) {
        rp_vertex_t c = v[j];
        size_t t = vx[c].type, e = 0;
        uint64_t size = vx[c].size;
        /* a slot's cores are often the next children: no search */
        if (L > 0) {
            pos = pos + 1 < nl[0] && kids[pos + 1] == c
                      ? pos + 1
                      : child_pos_cached (s, c);
            e = pos / BLOCK;
        }
        if (e != grp.entry || t != grp.t) {
            if (grp.entry != SIZE_MAX)
                leaf_group_done (s, p, row, d, nl, off, L, grp);
            grp = (struct leaf_group){ .entry = e, .t = t };
            if (!(live & 1ull << t))
                d[t] = 0;
            live |= 1ull << t;
        }
        grp.sum += size;
        grp.before = size > grp.before ? size : grp.before;
        grp.last = c;
        grp.pos = pos;
    }
    leaf_group_done (s, p, row, d, nl, off, L, grp);
    memo_taken (s, p, &v[i], j - i);
    for (size_t a = i; touch && a < j; a++) /* marks: after the loop */
        gindex_touch (s, v[a]);
    if (touch)
        gindex_touch (s, p);
    if (st_up (s, p)) /* every d[t] marked is below 0: a leaf taken has
                       * a size; nothing gained */
        add_up_live (s, p, d, live, false);
    return j;
}

int gstate_take_leaves (struct rp_gstate *s, const rp_vertex_t *v, size_t n)
{
    size_t i;

    if (!s)
        return n > 0 ? -1 : 0;
    /* every counter set first, so that a leaf listed twice is refused */
    for (i = 0; i < n && leaf_takes (s, v[i]); i++)
        s->used[v[i]] = s->g->v[v[i]].size;
    if (i < n) {
        while (i > 0)
            s->used[v[--i]] = 0;
        return -1;
    }
    for (i = 0; i < n && ntypes (s->g) <= 64;)
        i = leaf_run_changed (s, v, i, n);
    for (; i < n; i++) { /* more types than a summed change holds */
        if (s->nix)
            gindex_touch (s, v[i]);
        self_changed (s, v[i], s->g->v[v[i]].size);
    }
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
    if (s->nix)
        gindex_touch (s, v);
    self_changed (s, v, f0);
    return 0;
}

void gstate_set_counts (struct rp_gstate *s, rp_vertex_t v, uint64_t used,
                        uint32_t shared)
{
    uint64_t f0 = st_free (s, v);

    s->used[v] = used;
    s->shared[v] = shared;
    if (s->nix)
        gindex_touch (s, v);
    self_changed (s, v, f0);
}

/* --- whole subtrees in one step ---------------------------------------- */

/* A pre-order walk of v's subtree that keeps, for the first SUB_DEPTH
 * levels below v, each vertex's place among its siblings (g->child
 * index), so that moving to the next sibling costs no search; deeper
 * levels search it (graph_child_pos). */
#define SUB_DEPTH 32

struct sub_it {
    const struct rp_graph *g;
    rp_vertex_t root;
    size_t depth;            /* of the vertex last returned, below root */
    uint32_t at[SUB_DEPTH]; /* its and its ancestors' g->child indexes */
};

static rp_vertex_t sub_first (struct sub_it *it, const struct rp_graph *g,
                              rp_vertex_t v)
{
    it->g = g;
    it->root = v;
    it->depth = 0;
    return v;
}

static rp_vertex_t sub_next (struct sub_it *it, rp_vertex_t d)
{
    const struct rp_graph *g = it->g;

    if (nkids (g, d) > 0) {
        if (it->depth < SUB_DEPTH)
            it->at[it->depth] = g->child_off[d];
        it->depth++;
        return g->child[g->child_off[d]];
    }
    for (; d != it->root; d = parent_of (g, d), it->depth--) {
        rp_vertex_t p = parent_of (g, d);
        size_t l = it->depth - 1;
        uint32_t i = l < SUB_DEPTH ? it->at[l]
                                   : g->child_off[p]
                                         + (uint32_t)graph_child_pos (g, d);
        if (i + 1 < g->child_off[p + 1]) {
            if (l < SUB_DEPTH)
                it->at[l] = i + 1;
            return g->child[i + 1];
        }
    }
    return NONE;
}

#define SUB_DEEP SIZE_MAX          /* subtree_stack: deeper than SUB_DEPTH */
#define SUB_REFUSED (SIZE_MAX - 1) /* a vertex is not free (s given) */

/* The arrays free_whole reads, in locals: the walk's stores would have
 * them read again through s. */
struct free_of {
    const uint8_t *state;
    const uint32_t *shared;
    const uint64_t *used;
    const struct vertex *vx;
};

/* v free to be taken whole: up, of size 1 or more, none of it held. */
static inline bool free_whole (const struct free_of *f, rp_vertex_t v)
{
    return f->state[v] == RP_VERTEX_UP && f->shared[v] == 0 && f->used[v] == 0
           && f->vx[v].size > 0;
}

/* graph_subtree within SUB_DEPTH levels below v: each open vertex's
 * children as a cursor into g->child, so a leaf costs a store and a
 * look at its child range (sub_next climbs back from every leaf: 42
 * instructions a vertex of a whole node, this about 10); the cursor in
 * a register while the children are leaves (pack, an exclusive node:
 * 37,813 -> 37,573 instructions per command).  SUB_DEEP when
 * the subtree is deeper; with s, SUB_REFUSED at the first vertex that
 * is not free_whole (the check of a whole take in the same walk). */
static size_t subtree_stack (const struct rp_graph *g, rp_vertex_t v,
                             rp_vertex_t *out, size_t cap,
                             const struct rp_gstate *s)
{
    uint32_t at[SUB_DEPTH], end[SUB_DEPTH];
    size_t n = 1;
    int d = 0;
    const struct free_of f = {
        .state = s ? s->state : NULL,
        .shared = s ? s->shared : NULL,
        .used = s ? s->used : NULL,
        .vx = g->v,
    };
    const bool check = s != NULL;
    const uint32_t *off = g->child_off, *child = g->child;

    if (check && !free_whole (&f, v))
        return SUB_REFUSED;
    if (cap > 0)
        out[0] = v;
    at[0] = g->child_off[v];
    end[0] = g->child_off[v + 1];
    while (d >= 0) {
        /* the open vertex's children, in registers, down to the first
         * with children of its own */
        uint32_t i = at[d], e = end[d];
        rp_vertex_t c = NONE;
        for (; i < e; i++) {
            c = child[i];
            if (check && !free_whole (&f, c))
                return SUB_REFUSED;
            if (n < cap)
                out[n] = c;
            n++;
            if (off[c] != off[c + 1])
                break;
        }
        if (i == e) {
            d--;
            continue;
        }
        at[d] = i + 1;
        if (++d == SUB_DEPTH)
            return SUB_DEEP;
        at[d] = off[c];
        end[d] = off[c + 1];
    }
    return n;
}

size_t graph_subtree (const struct rp_graph *g, rp_vertex_t v, rp_vertex_t *out,
                      size_t cap)
{
    struct sub_it it;
    size_t n = subtree_stack (g, v, out, cap, NULL);

    if (n != SUB_DEEP)
        return n;
    n = 0;
    for (rp_vertex_t d = sub_first (&it, g, v); d != NONE;
         d = sub_next (&it, d), n++)
        if (n < cap)
            out[n] = d;
    return n;
}

/* The vertices of v's subtree in pre-order: from a list graph_subtree
 * made (list != NULL), else walked. */
struct vset {
    const rp_vertex_t *list;
    size_t n, i;
    struct sub_it it;
};

static rp_vertex_t vs_first (struct vset *w, const struct rp_graph *g,
                             rp_vertex_t v)
{
    w->i = 0;
    if (w->list)
        return w->n > 0 ? w->list[0] : NONE;
    return sub_first (&w->it, g, v);
}

static rp_vertex_t vs_next (struct vset *w, rp_vertex_t d)
{
    if (w->list)
        return ++w->i < w->n ? w->list[w->i] : NONE;
    return sub_next (&w->it, d);
}

/* subtree_is of the n vertices listed: the arrays read from locals, no
 * iterator (28 -> 13 instructions a vertex of a whole node). */
static bool list_is (const struct rp_gstate *s, const rp_vertex_t *list,
                     size_t n, bool whole)
{
    const struct vertex *vx = s->g->v;
    const uint8_t *state = s->state;
    const uint32_t *shared = s->shared;
    const uint64_t *used = s->used;

    for (size_t i = 0; i < n; i++) {
        rp_vertex_t d = list[i];
        uint64_t size = vx[d].size;
        if (state[d] != RP_VERTEX_UP || shared[d] > 0 || size == 0
            || used[d] != (whole ? size : 0))
            return false;
    }
    return true;
}

/* Every vertex of v's subtree up and of size 1 or more, and none held
 * (whole: false) / every one held whole, exclusively (whole: true). */
static bool subtree_is (const struct rp_gstate *s, rp_vertex_t v, bool whole,
                        struct vset *w)
{
    const struct rp_graph *g = s->g;
    if (w->list)
        return list_is (s, w->list, w->n, whole);
    for (rp_vertex_t d = vs_first (w, g, v); d != NONE; d = vs_next (w, d)) {
        if (!st_up (s, d) || s->shared[d] > 0 || g->v[d].size == 0
            || s->used[d] != (whole ? g->v[d].size : 0))
            return false;
    }
    return true;
}

/* An interior vertex d of a subtree being filled: its aggregates, and
 * whether it keeps block summaries. */
static bool inner_fill (struct rp_gstate *s, rp_vertex_t d, bool whole)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g);
    uint64_t *agg = &s->agg[(size_t)g->iidx[d] * T];

    if (whole)
        memset (agg, 0, T * sizeof (*agg));
    else
        memcpy (agg, &g->total[(size_t)g->iidx[d] * T], T * sizeof (*agg));
    return g->blk_off[g->iidx[d]] != UINT64_MAX;
}

#define LIST_INNER 16 /* interior vertices of a list kept for a second look */

/* Whether a vertex of a list below its root may be filed in an index:
 * its parent is one of the list's interior vertices (inner[], all of
 * them unless more than LIST_INNER), so when none has an index, the 68
 * vertices below an exclusive node are not told one by one (pack, an
 * exclusive node: 40,000 -> 37,884 instructions per command, the memos
 * looked at for the interior vertices only). */
static bool list_indexed (const struct rp_gstate *s, const rp_vertex_t *inner,
                          size_t ni, size_t nin)
{
    if (nin > LIST_INNER)
        return true;
    for (size_t i = 0; i < ni; i++)
        if (gstate_index_of (s, inner[i]))
            return true;
    return false;
}

/* subtree_fill of the n vertices listed: the counters set from locals in
 * one pass, the interior vertices (a node's few) kept for their
 * aggregates and summaries, not found again by a second pass over the
 * list (45 -> about 15 instructions a vertex of a whole node). */
static void list_fill (struct rp_gstate *s, const rp_vertex_t *list, size_t n,
                       bool whole)
{
    const struct rp_graph *g = s->g;
    const struct vertex *vx = g->v;
    const uint32_t *iidx = g->iidx;
    uint64_t *used = s->used;
    rp_vertex_t inner[LIST_INNER];
    size_t ni = 0, nin = 0;

    for (size_t i = 0; i < n; i++) {
        rp_vertex_t d = list[i];
        used[d] = whole ? vx[d].size : 0;
        if (iidx[d] != NONE && nin++ < LIST_INNER)
            inner[ni++] = d;
    }
    /* a kept search of an interior vertex's children: they change */
    for (size_t i = 0; i < (nin > LIST_INNER ? n : ni); i++)
        memo_drop (s, nin > LIST_INNER ? list[i] : inner[i]);
    if (s->nix && n > 0)
        gindex_touch (s, list[0]);
    if (s->nix && list_indexed (s, inner, ni, nin))
        for (size_t i = 1; i < n; i++)
            gindex_touch (s, list[i]);
    bool blocks = false;
    for (size_t i = 0; i < (nin > LIST_INNER ? n : ni); i++) {
        rp_vertex_t d = nin > LIST_INNER ? list[i] : inner[i];
        if (iidx[d] != NONE)
            blocks |= inner_fill (s, d, whole);
    }
    /* the summaries below the root, from the children's new contributions */
    for (size_t i = 0; blocks && i < (nin > LIST_INNER ? n : ni); i++) {
        rp_vertex_t d = nin > LIST_INNER ? list[i] : inner[i];
        if (iidx[d] != NONE && g->blk_off[iidx[d]] != UINT64_MAX)
            blk_fill_uniform (s, d, whole);
    }
}

/* Set the counters of v's subtree (whole or free, every vertex up), its
 * aggregates and the block summaries below v to match; v's ancestors are
 * the caller's. */
static void subtree_fill (struct rp_gstate *s, rp_vertex_t v, bool whole,
                          struct vset *w)
{
    const struct rp_graph *g = s->g;
    bool blocks = false;
    if (w->list) {
        list_fill (s, w->list, w->n, whole);
        return;
    }
    for (rp_vertex_t d = vs_first (w, g, v); d != NONE; d = vs_next (w, d)) {
        s->used[d] = whole ? g->v[d].size : 0;
        memo_drop (s, d);
        if (s->nix)
            gindex_touch (s, d);
        if (g->iidx[d] != NONE)
            blocks |= inner_fill (s, d, whole);
    }
    /* the summaries below v, from the children's new contributions */
    for (rp_vertex_t d = vs_first (w, g, v); blocks && d != NONE;
         d = vs_next (w, d))
        if (g->iidx[d] != NONE && g->blk_off[g->iidx[d]] != UINT64_MAX)
            blk_fill_uniform (s, d, whole);
}

/* subtree_fill, then v's ancestors once per type. */
static void subtree_set (struct rp_gstate *s, rp_vertex_t v, bool whole,
                         struct vset *w)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g);
    subtree_fill (s, v, whole, w);
    /* v is up: its contribution was, and now is, its total or nothing */
    int64_t d[64];
    for (size_t t = 0; t < T && T <= 64; t++)
        d[t] = (whole ? -1 : 1) * (int64_t)total_of (g, v, t);
    if (T <= 64)
        add_up_all (s, v, d);
    for (size_t t = 0; t < T && T > 64; t++) {
        int64_t dt = (int64_t)total_of (g, v, t);
        if (dt != 0)
            add_up (s, v, t, whole ? -dt : dt);
    }
}

int gstate_take_whole_list (struct rp_gstate *s, rp_vertex_t v,
                            const rp_vertex_t *sub, size_t n)
{
    struct vset w = { .list = sub, .n = n };

    if (!s || v >= s->g->n || (sub && (n == 0 || sub[0] != v))
        || !gstate_path_up (s, v) || !subtree_is (s, v, false, &w))
        return -1;
    subtree_set (s, v, true, &w);
    return 0;
}

size_t gstate_take_whole_into (struct rp_gstate *s, rp_vertex_t v,
                               rp_vertex_t *sub, size_t cap)
{
    if (!s || v >= s->g->n || !gstate_path_up (s, v))
        return 0;
    size_t n = subtree_stack (s->g, v, sub, cap, s);
    if (n == SUB_DEEP) {
        n = graph_subtree (s->g, v, sub, cap);
        if (n <= cap && gstate_take_whole_list (s, v, sub, n) < 0)
            return 0;
        return n;
    }
    if (n == SUB_REFUSED)
        return 0;
    if (n <= cap) {
        struct vset w = { .list = sub, .n = n };
        subtree_set (s, v, true, &w);
    }
    return n;
}

int gstate_take_whole (struct rp_gstate *s, rp_vertex_t v)
{
    return gstate_take_whole_list (s, v, NULL, 0);
}

int gstate_put_whole (struct rp_gstate *s, rp_vertex_t v)
{
    const struct rp_graph *g = s ? s->g : NULL;

    if (!s || v >= g->n)
        return -1;
    struct vset w = { .list = NULL };
    if (subtree_is (s, v, true, &w)) {
        subtree_set (s, v, false, &w);
        return 0;
    }
    /* something below v is not up now: vertex by vertex,
     * each put changing the aggregates as far as the states let it */
    struct sub_it it;
    for (rp_vertex_t d = sub_first (&it, g, v); d != NONE;
         d = sub_next (&it, d))
        if (s->shared[d] > 0 || g->v[d].size == 0
            || s->used[d] != g->v[d].size)
            return -1;
    for (rp_vertex_t d = sub_first (&it, g, v); d != NONE;
         d = sub_next (&it, d))
        (void)gstate_put (s, d, g->v[d].size, true);
    return 0;
}

size_t gstate_whole_check (const struct rp_gstate *s, const rp_vertex_t *v,
                           size_t stride, size_t n, bool up, uint32_t *where,
                           uint32_t first)
{
    const struct rp_graph *g = s->g;
    const char *p = (const char *)v;
    size_t T = ntypes (g);
    /* in locals: the stores to where[] would have them read again */
    const struct vertex *vx = g->v;
    const uint8_t *state = s->state;
    const uint32_t *shared = s->shared;
    const uint64_t *used = s->used;
    const uint32_t nv = g->n;

    for (size_t k = 0; k < n; k++, p += stride) {
        rp_vertex_t d = *(const rp_vertex_t *)p, a;
        if (d >= nv
            || (k > 0
                && ((a = vx[d].parent) == NONE
                    || where[a] - first >= (uint32_t)k)) /* below first too */
            || (up && state[d] != RP_VERTEX_UP) || shared[d] > 0
            || used[d] != vx[d].size)
            return k;
        where[d] = first + (uint32_t)k;
    }
    rp_vertex_t root = n > 0 ? *v : NONE;
    for (size_t t = 0; root != NONE && g->iidx[root] != NONE && t < T; t++)
        if (s->agg[(size_t)g->iidx[root] * T + t] != 0)
            return 0;
    return n;
}

/* Roots of one parent put back by gstate_put_whole_many whose parent and
 * ancestors are still to be told (p: NONE when none), with p's summary
 * levels. */
struct put_run {
    rp_vertex_t p;
    int L;
    size_t n[MAX_LEVELS];
    uint64_t off[MAX_LEVELS];
    int64_t d[64]; /* the roots' contributions to p, by type */
};

/* Child c of r->p contributes more of every type than before, and what it
 * contributes now: raise the maxima above it.  Increases only, so no
 * entry is rescanned. */
static void blk_raise (struct rp_gstate *s, const struct put_run *r,
                       rp_vertex_t c)
{
    size_t T = ntypes (s->g), pos = child_pos_cached (s, c);
    for (size_t t = 0; t < T; t++) {
        uint64_t now = st_contrib (s, c, t);
        size_t j = pos;
        for (int l = 1; l <= r->L; l++) {
            j /= BLOCK;
            uint64_t *max = &s->blk[r->off[l] + j * T + t];
            if (*max >= now)
                break;
            *max = now;
        }
    }
}

/* Tell r->p and its ancestors what the run's roots gave back. */
static void run_climb (struct rp_gstate *s, struct put_run *r)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g);
    if (r->p == NONE)
        return;
    for (size_t t = 0; t < T; t++)
        s->agg[(size_t)g->iidx[r->p] * T + t] += (uint64_t)r->d[t];
    if (s->nix)
        gindex_touch (s, r->p);
    if (st_up (s, r->p))
        add_up_all (s, r->p, r->d);
    r->p = NONE;
}

int gstate_put_whole_many (struct rp_gstate *s, const rp_vertex_t *sub,
                           size_t n)
{
    if (!s || (n > 0 && !sub) || (n > 0 && sub[n - 1] != NONE))
        return -1;
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g), len;
    struct put_run r = { .p = NONE };
    int rc = 0;
    for (size_t i = 0; i < n; i += len + 1) {
        const rp_vertex_t *v = &sub[i];
        for (len = 0; v[len] != NONE; len++)
            ;
        rp_vertex_t p = len > 0 && v[0] < g->n ? parent_of (g, v[0]) : NONE;
        struct vset w = { .list = v, .n = len };
        if (p == NONE || T > 64 || !subtree_is (s, v[0], true, &w)) {
            run_climb (s, &r); /* the one-by-one path reads p's aggregates */
            rc |= len > 0 ? gstate_put_whole (s, v[0]) : -1;
            continue;
        }
        if (p != r.p) {
            run_climb (s, &r);
            r.p = p;
            r.L = levels (g, p, r.n, r.off);
            memset (r.d, 0, sizeof (r.d));
        }
        subtree_fill (s, v[0], false, &w);
        memo_gain (s, p, v[0]);
        for (size_t t = 0; t < T; t++)
            r.d[t] += (int64_t)total_of (g, v[0], t);
        if (r.L > 0)
            blk_raise (s, &r, v[0]);
    }
    run_climb (s, &r);
    return rc;
}

void gstate_set_state (struct rp_gstate *s, rp_vertex_t v, uint8_t state)
{
    const struct rp_graph *g = s->g;
    size_t T = ntypes (g);
    bool was_up = st_up (s, v);
    uint64_t f0 = st_free (s, v);
    if (s->nix)
        gindex_touch (s, v);
    if (was_up == (state == RP_VERTEX_UP)) {
        s->state[v] = state;
        return;
    }
    s->state[v] = state;
    /* up: it may fit, even with nothing free (a search without needs) */
    if (state == RP_VERTEX_UP && parent_of (g, v) != NONE)
        memo_gain (s, parent_of (g, v), v);
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

/* The search context is struct gfit (graph_private.h): kept by the
 * caller between finds (gstate_fit_first, gstate_fit_next), or made for
 * one find by gstate_child_fit. */
_Static_assert (GFIT_LEVELS == MAX_LEVELS, "struct gfit's levels");

/* row[t] (a child's aggregates or an entry's maxima, by type) holds the
 * need of every needed type. */
static inline bool row_fits (const struct gfit *x, const uint64_t *row)
{
    for (size_t i = 0; i < x->nt; i++) {
        if (row[x->t[i]] < x->need[i])
            return false;
    }
    return true;
}

/* Entry j of level l, or child j (l == 0), may hold a child that fits.
 * Inline: it is most of the search, and a call cost as much as the
 * test (a third of the search's instructions on the LANL replay). */
static inline __attribute__ ((always_inline)) bool
fits (const struct gfit *x, int l, size_t j)
{
    const struct rp_gstate *s = x->s;
    FIT_PROBE ();
    if (l > 0)
        return row_fits (x, &s->blk[x->off[l] + j * x->T]);
    rp_vertex_t c = x->kids[j];
    if (!st_up (s, c))
        return false;
    if (s->g->iidx[c] != NONE)
        return row_fits (x, &s->agg[(size_t)s->g->iidx[c] * x->T]);
    for (size_t i = 0; i < x->nt; i++) { /* a leaf: its own type only */
        if (st_agg (s, c, x->t[i]) < x->need[i])
            return false;
    }
    return true;
}

/* First entry of level l in [lo, hi) (in search order) holding a child
 * that fits; returns its child position or SIZE_MAX. */
static size_t fit_scan (const struct gfit *x, int l, size_t lo, size_t hi)
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
 * the entries start, start - 1, ... 0 are searched.  Below the top, the
 * rest of a group is scanned only when the group's entry one level up
 * fits: after a node is taken the rest of its block is often full, and
 * one look at the block's maxima replaces up to BLOCK - 1. */
static size_t fit_from (const struct gfit *x, int L, size_t start)
{
    size_t j = start; /* index at level l; for HIGH, one past it */
    for (int l = 0; l <= L; l++) {
        size_t lo, hi, r, group;
        if (!x->high) {
            hi = l == L ? x->n[l] : (j / BLOCK + 1) * BLOCK;
            lo = j;
            hi = hi < x->n[l] ? hi : x->n[l];
            group = j / BLOCK;
            j = j / BLOCK + 1;
        } else {
            hi = j; /* searches hi - 1 down to lo */
            lo = l == L || hi == 0 ? 0 : ((hi - 1) / BLOCK) * BLOCK;
            group = lo / BLOCK;
            j = lo / BLOCK;
        }
        if (lo < hi && (l == L || fits (x, l + 1, group))
            && (r = fit_scan (x, l, lo, hi)) != SIZE_MAX)
            return r;
    }
    return SIZE_MAX;
}

/* Set up x for parent's children in order for need: false when parent
 * has none (not read then). */
static inline __attribute__ ((always_inline)) bool
fit_init (struct gfit *x, struct rp_gstate *s, rp_vertex_t parent,
          const uint64_t *need, int order)
{
    if (!s || parent >= s->g->n || nkids (s->g, parent) == 0)
        return false;
    const struct rp_graph *g = s->g;
    x->s = s;
    x->kids = &g->child[g->child_off[parent]];
    x->T = ntypes (g);
    x->high = order == RP_WALK_HIGH;
    x->nt = 0;
    for (size_t t = 0; need && t < x->T && x->nt < 64; t++) {
        if (need[t] > 0) {
            x->t[x->nt] = (uint32_t)t;
            x->need[x->nt++] = need[t];
        }
    }
    x->L = x->nt > 0 ? -1 : 0; /* -1: levels read at the first scan */
    x->n[0] = nkids (g, parent);
    return true;
}

/* The child x finds from search position start past the first child
 * searched, which did not fit: the summary levels read on the first
 * such find (most finds take the first child searched). */
static size_t __attribute__ ((noinline))
fit_scan_from (struct gfit *x, size_t start)
{
    if (x->L < 0)
        x->L = levels (x->s->g, parent_of (x->s->g, x->kids[0]), x->n,
                       x->off);
    return fit_from (x, x->L, start);
}

/* The child x finds from search position start: its position kept in
 * x->pos (SIZE_MAX: none, and none after it). */
static inline __attribute__ ((always_inline)) rp_vertex_t
fit_at (struct gfit *x, size_t start)
{
    size_t c = x->high ? start - 1 : start; /* the first child searched */
    if (c < x->n[0] && fits (x, 0, c)) { /* the entries above it fit too */
        x->pos = c;
        return x->kids[c];
    }
    x->pos = fit_scan_from (x, start);
    return x->pos == SIZE_MAX ? NONE : x->kids[x->pos];
}

/* The first find of x, through the state's kept search (s->memo). */
static rp_vertex_t fit_first (struct gfit *x, rp_vertex_t parent,
                              const uint64_t *need)
{
    struct rp_gstate *s = x->s;
    size_t k = x->n[0], r;
    struct fit_memo *m = memo_find (s, parent, need, x->high);

    if (m) {
        if (m->idx == k) { /* nothing fitted, and no child gained */
            x->pos = SIZE_MAX;
            return NONE;
        }
        /* from the child found last time, included */
        (void)fit_at (x, x->high ? k - m->idx : m->idx);
    } else
        (void)fit_at (x, x->high ? k : 0);
    r = x->pos;
    memo_keep (s, m, parent, need, x->high,
               r == SIZE_MAX ? k : x->high ? k - 1 - r : r);
    return r == SIZE_MAX ? NONE : x->kids[r];
}

rp_vertex_t gstate_fit_first (struct gfit *x, struct rp_gstate *s,
                              rp_vertex_t parent, const uint64_t *need,
                              int order)
{
    if (!fit_init (x, s, parent, need, order)) {
        x->pos = SIZE_MAX;
        return NONE;
    }
    return fit_first (x, parent, need);
}

rp_vertex_t gstate_fit_next (struct gfit *x)
{
    if (x->pos == SIZE_MAX)
        return NONE;
    return fit_at (x, x->pos + (x->high ? 0 : 1));
}

rp_vertex_t gstate_child_fit (struct rp_gstate *s, rp_vertex_t parent,
                              rp_vertex_t after, const uint64_t *need,
                              int order)
{
    struct gfit x; /* not zeroed (1 KB): what is read is set */

    if (!fit_init (&x, s, parent, need, order))
        return NONE;
    if (after == NONE)
        return fit_first (&x, parent, need);
    if (after >= s->g->n || parent_of (s->g, after) != parent)
        return NONE;
    return fit_at (&x, graph_child_pos (s->g, after) + (x.high ? 0 : 1));
}

/* The loop reads the arrays from locals and folds its answers with
 * bitwise or, no branch but the type's and the leaf's: an exclusive node
 * is a fresh parent each time, its 68 children read once per command
 * (pack: 37,573 -> 37,257 instructions per command). */
static bool leaf_kids (const struct rp_graph *g, rp_vertex_t p, int t,
                       bool *ids_up, bool *one_size)
{
    const rp_vertex_t *kid = &g->child[g->child_off[p]];
    const struct vertex *vx = g->v;
    const uint32_t *iidx = g->iidx;
    uint32_t k = nkids (g, p), i = 0;
    int64_t last = -1;
    uint64_t size = 0;
    bool down = false, other = false;

    for (; i < k && iidx[kid[i]] == NONE; i++) /* the first of type t */
        if ((int)vx[kid[i]].type == t) {
            size = vx[kid[i]].size;
            break;
        }
    for (; i < k; i++) {
        const struct vertex *v = &vx[kid[i]];
        if (iidx[kid[i]] != NONE)
            break;
        if ((int)v->type != t)
            continue;
        down |= v->id <= last;
        other |= v->size != size;
        last = v->id;
    }
    *ids_up = !down;
    *one_size = !other;
    return i == k;
}

bool gstate_leaf_kids (struct rp_gstate *s, rp_vertex_t p, int t,
                       bool *ids_up, bool *one_size)
{
    struct kids_memo *m = &s->kids;

    if (m->p != p || m->t != t) {
        m->p = NONE;
        m->leaves = leaf_kids (s->g, p, t, &m->ids_up, &m->one_size);
        m->p = p;
        m->t = t;
    }
    *ids_up = m->ids_up;
    *one_size = m->one_size;
    return m->leaves;
}

static int check_counters (const struct rp_gstate *s, rp_error_t *error)
{
    const struct rp_graph *g = s->g;
    char buf[WORD_MAX + 32];
    size_t notup = 0;
    for (rp_vertex_t v = 0; v < g->n; v++) {
        const char *name = graph_name_of (g, v, buf, sizeof (buf));
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
        size_t len = graph_blk_entries (n[0]) * ntypes (g);
        for (size_t i = 0; i < len; i++) {
            if (s->blk[off[1] + i] == r->blk[off[1] + i])
                continue;
            return rp_error_set (error, EPROTO,
                                 "%s: block summary %zu of"
                                 " type %s is %" PRIu64 ", recount %" PRIu64,
                                 graph_name_of (g, p, buf, sizeof (buf)),
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
                          graph_name_of (g, v, buf, sizeof (buf)),
                          g->types.str[t], s->agg[i], r.agg[i]);
            goto done;
        }
    }
    rc = check_blocks (s, &r, error);
    if (rc == 0)
        rc = gindex_check (s, error);
done:
    free (r.agg);
    free (r.blk);
    return rc;
}
