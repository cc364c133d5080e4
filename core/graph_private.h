/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: the allocation state of a resource graph, as the
 * matcher (core/match.c) and white-box tests use it, and the memory
 * estimate the builders (graph_build.c, graph_io.c) check before building.
 *
 * A graph has one live state (what rp_graph_vertex_free and friends show)
 * and, created on first use, a pristine one: every vertex up and nothing
 * allocated, for satisfiability checks.  The matcher changes a state with
 * gstate_take / gstate_put (and gstate_take_whole / gstate_put_whole for
 * a whole subtree at once) only; they keep the per-subtree aggregates and
 * the child block summaries exact, in O(depth x types) per call (plus the
 * subtree's size for the whole ones).
 *
 * Definitions (one vertex v of type t, size S):
 *   used(v)    units held exclusively (0 .. S)
 *   shared(v)  number of holds that share v (exclusive and shared holds
 *              never mix on one vertex)
 *   free(v)    S - used(v) when v is up and shared(v) == 0, else 0
 *   agg(v, t') free units of type t' in v's subtree, v included, counting
 *              nothing below a child that is not up
 *   idle(v)    agg(v, t') == total(v, t') for every t'
 */
#ifndef RESPOL_GRAPH_PRIVATE_H
#define RESPOL_GRAPH_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <respol/graph.h>

#include "core/units.h"

struct rp_gstate;

/* The live state (never NULL for a finalized graph) / the pristine state
 * (created on first call; NULL on ENOMEM). */
struct rp_gstate *graph_live (struct rp_graph *g);
struct rp_gstate *graph_pristine (struct rp_graph *g);
const struct rp_gstate *graph_live_const (const struct rp_graph *g);

/* The state's own vertex state (ancestors not considered). */
bool gstate_up (const struct rp_gstate *s, rp_vertex_t v);
uint64_t gstate_used (const struct rp_gstate *s, rp_vertex_t v);
uint32_t gstate_shared (const struct rp_gstate *s, rp_vertex_t v);
uint64_t gstate_free (const struct rp_gstate *s, rp_vertex_t v);
uint64_t gstate_agg (const struct rp_gstate *s, rp_vertex_t v, int t);
/* gstate_agg of the first n types at once into out[n] (v valid, n at
 * most the type count). */
void gstate_agg_row (const struct rp_gstate *s, rp_vertex_t v, uint64_t *out,
                     size_t n);
bool gstate_idle (const struct rp_gstate *s, rp_vertex_t v);
/* v is up and its aggregate of every type t is at least need[t] (need
 * holds rp_graph_ntypes entries). */
bool gstate_has (const struct rp_gstate *s, rp_vertex_t v,
                 const uint64_t *need);

/* Hold v: exclusive takes amount units (needs shared(v) == 0 and
 * used(v) + amount <= size, amount >= 1); shared adds one sharer (needs
 * used(v) == 0; amount ignored).  Either needs v and its ancestors up.
 * Returns 0, or -1 (nothing changed) when the hold is not possible: the
 * last line of defence against double allocation. */
int gstate_take (struct rp_gstate *s, rp_vertex_t v, uint64_t amount,
                 bool exclusive);
/* Undo one gstate_take with the same arguments.  Returns 0, or -1
 * (nothing changed) when there is no such hold. */
int gstate_put (struct rp_gstate *s, rp_vertex_t v, uint64_t amount,
                bool exclusive);

/* Whether gstate_take (v, size(v), true) would take v, a leaf. */
bool gstate_leaf_takes (const struct rp_gstate *s, rp_vertex_t v);
/* gstate_take (v[i], size(v[i]), true) of every leaf v[i] in one step:
 * the counters set, each parent's aggregates changed once per leaf and
 * its ancestors once for all of its leaves listed together (a slot's
 * cores), where a take per leaf climbs to the root from each.  Each is
 * undone by gstate_put.  Returns 0, or -1 (nothing changed) when
 * gstate_leaf_takes refuses one, or one is listed twice. */
int gstate_take_leaves (struct rp_gstate *s, const rp_vertex_t *v, size_t n);

/* Set v's counters (used <= size, not both used and shared), keeping
 * the aggregates exact: for a view of the state other than the holds
 * (the matcher's window of time, core/match_time.c), undone by setting
 * them back. */
void gstate_set_counts (struct rp_gstate *s, rp_vertex_t v, uint64_t used,
                        uint32_t shared);
/* Whether v has properties (tags: tags), without copying them: writers
 * of many vertices ask before they copy. */
bool graph_vertex_annotated (const struct rp_graph *g, rp_vertex_t v,
                             bool tags);

/* The vertices of v's subtree in pre-order (v first, children in handle
 * order): the first cap of them in out; returns how many there are. */
size_t graph_subtree (const struct rp_graph *g, rp_vertex_t v, rp_vertex_t *out,
                      size_t cap);

/* The sizes of the n vertices v[i] into out, stride bytes apart (a field
 * of records, for a writer of many holds): 0, or -1 when one is not a
 * vertex (those before it written). */
int graph_sizes (const struct rp_graph *g, const rp_vertex_t *v, size_t n,
                 uint64_t *out, size_t stride);
/* For a writer of R: the ids of the n vertices at v, stride bytes apart
 * (records that begin with their vertex), of type index t[0] or t[1]
 * (other types, and ids outside 0 .. UINT32_MAX, left out), as runs of
 * consecutive ascending ids of one type in the order given, at most cap
 * of them in run.  Their number, or SIZE_MAX when one vertex is a target
 * or not a vertex (the vertices of a subtree below its target all have
 * that target: the caller looked it up once), or more than cap runs. */
struct graph_idrun {
    int type;
    int64_t lo, hi;
};
size_t graph_id_runs (const struct rp_graph *g, const rp_vertex_t *v,
                      size_t stride, size_t n, const int t[2],
                      struct graph_idrun *run, size_t cap);

/* Hold v and everything below it exclusively and whole, as gstate_take
 * (d, size(d), true) of every vertex d of the subtree would, in one step:
 * the subtree's aggregates and block summaries set at once, v's ancestors
 * updated once per type.  Needs v's ancestors and every vertex of the
 * subtree up, none held, and none of size 0 (which gstate_take refuses).
 * Returns 0, or -1 (nothing changed): a caller that must know which
 * vertex refuses takes them one by one. */
int gstate_take_whole (struct rp_gstate *s, rp_vertex_t v);
/* gstate_take_whole with v's subtree as graph_subtree lists it (sub[0] is
 * v, n entries), for a caller that has the list: the subtree is not
 * walked again.  -1 also when sub[0] is not v. */
int gstate_take_whole_list (struct rp_gstate *s, rp_vertex_t v,
                            const rp_vertex_t *sub, size_t n);
/* gstate_take_whole of v, its subtree listed into sub (cap entries, as
 * graph_subtree lists it) by the walk that checks it, for a caller that
 * logs it: the number of its vertices, taken and listed when at most
 * cap, else nothing changed (make room for them and call again); 0 when
 * refused (nothing changed; sub is not a full list). */
size_t gstate_take_whole_into (struct rp_gstate *s, rp_vertex_t v,
                               rp_vertex_t *sub, size_t cap);
/* Undo gstate_take_whole (v), or the takes of every vertex of v's subtree
 * whole: 0, or -1 (nothing changed) when some vertex is not held whole.
 * While everything is up, in one step; otherwise vertex by vertex. */
int gstate_put_whole (struct rp_gstate *s, rp_vertex_t v);
/* The pre-commit check of a subtree held whole (core/match_verify.c),
 * as its holds were logged: the n records at v, stride bytes apart, each
 * beginning with its vertex, the root first, then the others.  Record k
 * gets where[its vertex] = first + k.  Returns n when every record's
 * vertex is held whole exclusively (used == size, not shared), up (up:
 * true), and, but for the root's, below a vertex of an earlier record
 * (every one is in the root's subtree), and nothing of the root's subtree
 * is free (its aggregates are 0: none of it left out); else the first
 * record that is not (0 also when something of the subtree is free).
 * O(n + types): a vertex costs a few loads, no walk. */
size_t gstate_whole_check (const struct rp_gstate *s, const rp_vertex_t *v,
                           size_t stride, size_t n, bool up, uint32_t *where,
                           uint32_t first);
/* gstate_put_whole of the roots of disjoint subtrees in turn, the
 * subtrees listed in sub one after another, each as graph_subtree lists
 * it (its root first) and followed by RP_VERTEX_NONE, n entries in all
 * (the lists are not walked again: a caller that logged them passes
 * them).  The state is the same as one put at a time, but a run of roots
 * with one parent (a job's whole nodes) tells the parent and its
 * ancestors once, not once per root.  0, or -1 when some root was not
 * held whole or its list is empty (the others are put back), or sub does
 * not end with RP_VERTEX_NONE (nothing is). */
int gstate_put_whole_many (struct rp_gstate *s, const rp_vertex_t *sub,
                           size_t n);

/* The next child of parent, after child `after` (RP_VERTEX_NONE: the
 * first) in the given order (RP_WALK_LOW / RP_WALK_HIGH), that is up and
 * whose subtree may hold need: need[t] free units of each type index t
 * (need has rp_graph_ntypes entries; NULL: no need).  Blocks of siblings
 * keep, per type, the largest free amount of any child below them, so a
 * block where no child holds need is skipped at once and finding the few
 * free children among many full ones costs about the log of their
 * number.  A returned child has the free units of every needed type but
 * may still not fit the request's shape; one that is not returned
 * cannot.  The state keeps its last search from the first child: the
 * same search again starts at the child it found, while no child before
 * it gained (hence s is not const; what it returns is the same). */
rp_vertex_t gstate_child_fit (struct rp_gstate *s, rp_vertex_t parent,
                              rp_vertex_t after, const uint64_t *need,
                              int order);

/* The same search kept by the caller between finds: gstate_fit_first
 * finds the first child (as gstate_child_fit with after RP_VERTEX_NONE,
 * the state's kept search included), gstate_fit_next the next after the
 * last found, as gstate_child_fit from it would, without setting the
 * search up again or looking the last child's place up (a node's cores:
 * the set up was most of each find).  The state may change between
 * finds; the parent, need and order may not.  After RP_VERTEX_NONE,
 * gstate_fit_next returns RP_VERTEX_NONE. */
#define GFIT_LEVELS 10
struct gfit {
    struct rp_gstate *s;
    const rp_vertex_t *kids; /* the parent's children, by position */
    size_t T;                /* ntypes */
    size_t nt;               /* types with a need */
    uint32_t t[64];          /* their indexes (the first 64 such types) */
    uint64_t need[64];       /* and the need of each */
    bool high;
    int L;                     /* summary levels */
    size_t n[GFIT_LEVELS];     /* entries per level; n[0]: children */
    uint64_t off[GFIT_LEVELS]; /* of each level in s->blk */
    size_t pos;                /* of the last child found; SIZE_MAX: none */
};
rp_vertex_t gstate_fit_first (struct gfit *x, struct rp_gstate *s,
                              rp_vertex_t parent, const uint64_t *need,
                              int order);
rp_vertex_t gstate_fit_next (struct gfit *x);

/* Whether every child of p is a leaf; if so, *ids_up: the ids of its
 * children of type t ascend with their handles, from 0 up; *one_size:
 * those children have one size.  Of the graph alone: the last answer is
 * kept in the state (the graph does not change while it lives). */
bool gstate_leaf_kids (struct rp_gstate *s, rp_vertex_t p, int t,
                       bool *ids_up, bool *one_size);

/* Classes of the children of a parent (graph_index.c): children that
 * show the same type, state, size, used units, sharing and free
 * aggregates of every type are in one class, so that whatever depends
 * only on those is the same for every member.  gstate_index makes the
 * index of p's children (kept up to date from then on, O(log children)
 * per change, paid when the index is next read); 0 or -1 (ENOMEM).
 * gstate_classes brings it up to date and returns the number of classes
 * (some may be empty; 0 when p has no usable index, or members are off
 * their classes).  Classes are numbered 0 .. n-1 until the next
 * gstate_classes.  gstate_class_first is the lowest member (handle) of
 * class k, RP_VERTEX_NONE when empty; gstate_class_pop takes it off (the
 * next call gives the next lowest), and gstate_class_restore puts back
 * every member taken off.  Between a pop and the restore, the members
 * are read as they were filed (the state may change meanwhile). */
int gstate_index (struct rp_gstate *s, rp_vertex_t p);
/* Whether a and b show the same: they would be in one class. */
bool gstate_shows_same (const struct rp_gstate *s, rp_vertex_t a,
                        rp_vertex_t b);
size_t gstate_classes (struct rp_gstate *s, rp_vertex_t p);
rp_vertex_t gstate_class_first (const struct rp_gstate *s, rp_vertex_t p,
                                size_t k);
/* gstate_class_first of classes 0 .. n-1 at once, in top[] (one look
 * for the index): how many were written (fewer when p has fewer). */
size_t gstate_class_tops (const struct rp_gstate *s, rp_vertex_t p,
                          rp_vertex_t *top, size_t n);
rp_vertex_t gstate_class_pop (struct rp_gstate *s, rp_vertex_t p, size_t k);
void gstate_class_restore (struct rp_gstate *s, rp_vertex_t p);

/* Recount every aggregate and block summary from the vertices and
 * compare (for rp_matcher_check and tests).  0, or -1 with the first
 * difference in error. */
int gstate_check (const struct rp_gstate *s, rp_error_t *error);

/* --- bounds: the memory estimate (graph.c) ----------------------------- */

/* What a graph is made of, as far as its memory goes. */
struct graph_size {
    uint64_t vertices;
    uint64_t edges;          /* rp_graph_add_edge's edge records,
                              * containment included (a builder's
                              * containment has none) */
    uint64_t explicit_edges; /* edges stored after finalize (not the plain
                              * "contains" runs) */
    uint64_t named;          /* vertices with a side entry (a name, rank,
                              * uuid, properties or tags) */
    uint64_t targets;
    uint64_t interior; /* vertices with children */
    uint64_t types;
};

/* Bytes the graph takes at its peak, a pristine state and a matcher
 * included (saturates at UINT64_MAX). */
uint64_t graph_memory (const struct graph_size *z);

/* The estimate of g as it is (exact counts; a finalized graph has no
 * edge records left). */
uint64_t graph_memory_of (const struct rp_graph *g);

/* E2BIG with "WHAT about N MiB, more than the memory limit of M MiB",
 * WHAT formatted from fmt.  Returns -1. */
int graph_memory_error (rp_error_t *error, uint64_t need, uint64_t limit,
                        const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

/* Room for vertices, edge records and side entries, for a builder that
 * knows its counts (no doubling of large arrays).  0, or -1 (ENOMEM). */
int graph_reserve (struct rp_graph *g, size_t vertices, size_t edges,
                   size_t side);

/* Memory the builder of g holds besides the graph (a reader: its
 * document), added to the estimate finalize checks with the exact counts
 * against the memory limit.  Default 0. */
void graph_set_reserved (struct rp_graph *g, uint64_t bytes);

#endif
