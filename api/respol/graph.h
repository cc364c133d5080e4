/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The resource graph (RFC 4, "The Flux Resource Model").
 *
 * Vertices are resource pools.  Base data: type, basename (default: the
 * type), id (optional, -1 when unset), name (default: basename followed by
 * the id, or the basename alone), uuid (optional), size (units in the pool,
 * >= 1; a degenerate pool has size 1) and unit (optional, e.g. "GB"), and
 * properties (name -> optional value).  Extended data: state (up, down,
 * drained), tags (key -> optional value) and the allocations of jobs, kept
 * by the matcher (respol/match.h).  A vertex also carries the rank of the
 * execution target it belongs to (-1 above the targets), which is how
 * matching results become R (RFC 20).
 *
 * Edges are directed, typed ("contains", its inverse "in", "conduit-of",
 * or any other word) and belong to a named subsystem.  The containment
 * subsystem, RP_GRAPH_CONTAINMENT ("containment"), is special: its
 * "contains" edges form one tree (one root, each vertex at most one
 * parent, RFC 4 "composite resource pool"); every vertex belongs to it.
 * Other subsystems (a network, an I/O bandwidth hierarchy) may be added
 * with any edges between existing vertices.
 *
 * Life cycle: create, add vertices and edges, then rp_graph_finalize ();
 * after that the structure is fixed and only extended data (state, tags,
 * allocations) changes.  Finalize checks the containment tree, lets every
 * vertex inherit its target's rank, and computes per-subtree aggregates:
 * for each vertex and each type, the total and the free units below it
 * (free: in up vertices, not allocated).  The aggregates are what lets a
 * walk skip subtrees that cannot fit a request, so that a match costs in
 * proportion to the request, not to the cluster.
 *
 * Vertex handles (rp_vertex_t) are indexes, 0 .. nvertices - 1, in the
 * order vertices were added; they are valid for the life of the graph.
 * Builders add vertices in pre-order of the containment tree with siblings
 * in ascending id order, so handle order is "lowest id first" order.
 *
 * Ownership: functions returning struct rp_graph *, char * or json_t *
 * return new objects the caller must destroy / free / json_decref.
 * Accessors returning const char * return strings owned by the graph,
 * valid for its life (rp_graph_vertex_name: see there).  Failing functions
 * fill error, set errno and leave the graph unchanged.
 *
 * Threads: a graph may be read from several threads when nothing modifies
 * it; it must not be modified while it is read.
 */
#ifndef RESPOL_GRAPH_H
#define RESPOL_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include <respol/error.h>
#include <respol/rset.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RP_GRAPH_CONTAINMENT "containment"

typedef uint32_t rp_vertex_t;
#define RP_VERTEX_NONE ((rp_vertex_t)UINT32_MAX)

/* At most this many vertices in one graph (builders refuse more). */
#define RP_GRAPH_MAX_VERTICES (64u * 1024 * 1024)

enum rp_vertex_state {
    RP_VERTEX_UP = 0,
    RP_VERTEX_DOWN = 1,    /* never allocated; nor is anything below it */
    RP_VERTEX_DRAINED = 2, /* never allocated; nor is anything below it */
};

struct rp_graph;

/* --- building -------------------------------------------------------- */

struct rp_graph *rp_graph_create (void);
void rp_graph_destroy (struct rp_graph *g);

/* Add a vertex.  type: letters, digits, '-', '_' (1-64 bytes); basename:
 * NULL for the type; id: >= 0, or -1 for none; size >= 1; unit: NULL or
 * "" for none.  Returns the new handle, or RP_VERTEX_NONE (EINVAL, or
 * EBUSY after finalize, or E2BIG past RP_GRAPH_MAX_VERTICES). */
rp_vertex_t rp_graph_add_vertex (struct rp_graph *g, const char *type,
                                 const char *basename, int64_t id,
                                 uint64_t size, const char *unit,
                                 rp_error_t *error);

/* Set base data of a vertex before finalize.  name replaces the default
 * name; rank marks the vertex as an execution target (its descendants
 * inherit the rank at finalize); properties are RFC 20 names with an
 * optional value (NULL). */
int rp_graph_set_name (struct rp_graph *g, rp_vertex_t v, const char *name,
                       rp_error_t *error);
int rp_graph_set_uuid (struct rp_graph *g, rp_vertex_t v, const char *uuid,
                       rp_error_t *error);
int rp_graph_set_rank (struct rp_graph *g, rp_vertex_t v, int64_t rank,
                       rp_error_t *error);
int rp_graph_add_property (struct rp_graph *g, rp_vertex_t v,
                           const char *name, const char *value,
                           rp_error_t *error);

/* Add a directed edge of the given type in the given subsystem (both:
 * letters, digits, '-', '_', '.', ' '; 1-64 bytes).  In the containment
 * subsystem only "contains" and "in" are allowed; a "contains" edge makes
 * dst a child of src (a second parent is refused), and the matching "in"
 * edge is implied (adding it explicitly is accepted and ignored).
 * Duplicate edges are refused.  Before finalize only. */
int rp_graph_add_edge (struct rp_graph *g, rp_vertex_t src, rp_vertex_t dst,
                       const char *subsystem, const char *type,
                       rp_error_t *error);

/* Fix the structure: the containment tree must have exactly one root and
 * no cycle; ranks are inherited; aggregates are computed.  Required once
 * before any query, walk or match (EINVAL otherwise). */
int rp_graph_finalize (struct rp_graph *g, rp_error_t *error);
bool rp_graph_is_finalized (const struct rp_graph *g);

/* --- builders (return finalized graphs) ------------------------------ */

/* From R (RFC 20): a "cluster" root, one "node" per execution target
 * (name: the host name, id and rank: the rank), "core" and "gpu" vertices
 * by their ids, R properties as node properties. */
struct rp_graph *rp_graph_from_rset (const struct rp_rset *R,
                                     rp_error_t *error);

/* From an hwloc XML file (path), or from this machine when path is NULL:
 * cluster > node (rank, hostname; NULL: the machine's) > socket > numanode
 * (when hwloc shows NUMA nodes inside the package) > core, with "gpu"
 * vertices under the socket (or NUMA node) they attach to, numbered as
 * rp_rset_from_hwloc numbers them, and one "memory" pool (unit "GB",
 * rounded down, at least 1) per NUMA node. */
struct rp_graph *rp_graph_from_hwloc (const char *path, unsigned int rank,
                                      const char *hostname,
                                      rp_error_t *error);
/* From a topology this process loaded (rp_topology_load_local; borrowed,
 * not changed), as rp_graph_from_hwloc builds this machine's: for a host
 * that also gives the topology to a job shell (rp_shell_set_topology), so
 * that the machine is discovered once. */
struct hwloc_topology;
struct rp_graph *rp_graph_from_topology (struct hwloc_topology *topo,
                                         unsigned int rank,
                                         const char *hostname,
                                         rp_error_t *error);

/* A generated cluster for tests and benchmarks.  spec is a comma separated
 * list of key=value:
 *   nodes=N      execution targets (required, >= 1)
 *   racks=N      racks between cluster and nodes (default 0: none);
 *                nodes must divide evenly among them
 *   sockets=N    per node (default 1)
 *   cores=N      per socket (default 1)
 *   gpus=N       per node, spread evenly over the sockets (default 0)
 *   memory=SIZE  per node, e.g. 256GB, spread evenly over the sockets as
 *                one pool per socket (default: none)
 *   prefix=NAME  host name prefix (default "node"): node0, node1, ...
 * Ranks are 0 .. nodes-1. */
struct rp_graph *rp_graph_generate (const char *spec, rp_error_t *error);

/* --- serializing ----------------------------------------------------- */

enum rp_graph_format {
    RP_GRAPH_JSON = 0, /* respol's own (doc/formats.md) */
    RP_GRAPH_JGF = 1,  /* JSON Graph Format as Fluxion reads and writes it */
    RP_GRAPH_DOT = 2,  /* Graphviz, to look at (write only) */
};

/* Parse a format name: "json", "jgf" or "dot".  Returns 0 or -1. */
int rp_graph_format_parse (const char *name, enum rp_graph_format *fmt,
                           rp_error_t *error);

/* Write the whole graph (structure, base data, state and tags; not
 * allocations).  Output is deterministic: vertices in handle order, keys
 * sorted.  JSON and JGF read back into an equal graph. */
char *rp_graph_encode (const struct rp_graph *g, enum rp_graph_format fmt);
json_t *rp_graph_to_json (const struct rp_graph *g, enum rp_graph_format fmt);

/* Read respol's JSON or JGF (told apart by their top level keys) from a
 * JSON tree / a file (JSON or YAML, read with the document reader, so
 * errors carry file:line:col). */
struct rp_graph *rp_graph_from_json (const json_t *o, rp_error_t *error);
struct rp_graph *rp_graph_load (const char *path, rp_error_t *error);

/* The subgraph made of the given vertices and their containment
 * ancestors, as JGF (the "scheduling" key of an R).  exclusive[i], when
 * not NULL, marks vertices[i] as held exclusively; amount[i], when not
 * NULL, is the allocated part of a pool (written as its size). */
json_t *rp_graph_subgraph_jgf (const struct rp_graph *g,
                               const rp_vertex_t *vertices,
                               const uint64_t *amount, const bool *exclusive,
                               size_t n);

/* --- reading --------------------------------------------------------- */

size_t rp_graph_nvertices (const struct rp_graph *g);
rp_vertex_t rp_graph_root (const struct rp_graph *g);

/* Types are interned: a small index (0 .. ntypes-1) per type name, in the
 * order first seen.  rp_graph_type_index returns -1 for a type the graph
 * does not have. */
size_t rp_graph_ntypes (const struct rp_graph *g);
int rp_graph_type_index (const struct rp_graph *g, const char *type);
const char *rp_graph_type_name (const struct rp_graph *g, int index);

const char *rp_graph_vertex_type (const struct rp_graph *g, rp_vertex_t v);
int rp_graph_vertex_type_index (const struct rp_graph *g, rp_vertex_t v);
const char *rp_graph_vertex_basename (const struct rp_graph *g,
                                      rp_vertex_t v);
/* The name: borrowed; a computed default name (basename + id) lives in a
 * buffer of the graph that the next call for a vertex without its own name
 * overwrites.  Copy it to keep it. */
const char *rp_graph_vertex_name (const struct rp_graph *g, rp_vertex_t v);
int64_t rp_graph_vertex_id (const struct rp_graph *g, rp_vertex_t v);
const char *rp_graph_vertex_uuid (const struct rp_graph *g, rp_vertex_t v);
uint64_t rp_graph_vertex_size (const struct rp_graph *g, rp_vertex_t v);
const char *rp_graph_vertex_unit (const struct rp_graph *g, rp_vertex_t v);
int64_t rp_graph_vertex_rank (const struct rp_graph *g, rp_vertex_t v);
enum rp_vertex_state rp_graph_vertex_state (const struct rp_graph *g,
                                            rp_vertex_t v);
/* Properties: has (true also for "base" of a "base@suffix" name, as RFC
 * 20), value (NULL when none or no value), and all of them as an object
 * name -> value or null (new reference). */
bool rp_graph_vertex_has_property (const struct rp_graph *g, rp_vertex_t v,
                                   const char *name);
const char *rp_graph_vertex_property (const struct rp_graph *g,
                                      rp_vertex_t v, const char *name);
json_t *rp_graph_vertex_properties (const struct rp_graph *g, rp_vertex_t v);
/* The vertex's value for key, as constraint operators read it
 * (respol/property.h): the value of its property key when that has one,
 * else the VALUE of its first property (in byte order) named
 * "KEY=VALUE"; NULL when none.  Borrowed until the properties change. */
const char *rp_graph_vertex_property_value (const struct rp_graph *g,
                                            rp_vertex_t v, const char *key);
/* Tags, likewise. */
bool rp_graph_vertex_has_tag (const struct rp_graph *g, rp_vertex_t v,
                              const char *key);
const char *rp_graph_vertex_tag (const struct rp_graph *g, rp_vertex_t v,
                                 const char *key);
json_t *rp_graph_vertex_tags (const struct rp_graph *g, rp_vertex_t v);

/* Allocation state of one vertex: units allocated exclusively, number of
 * jobs holding it shared, free units (0 when not up, or held shared, or
 * below a vertex that is not up). */
uint64_t rp_graph_vertex_used (const struct rp_graph *g, rp_vertex_t v);
uint32_t rp_graph_vertex_shared (const struct rp_graph *g, rp_vertex_t v);
uint64_t rp_graph_vertex_free (const struct rp_graph *g, rp_vertex_t v);

/* Aggregates: units of type index t in the subtree of v, v included
 * (total: all of them; free: as rp_graph_vertex_free, summed).  O(1).
 * idle: nothing in the subtree is allocated, down or drained. */
uint64_t rp_graph_subtree_total (const struct rp_graph *g, rp_vertex_t v,
                                 int t);
uint64_t rp_graph_subtree_free (const struct rp_graph *g, rp_vertex_t v,
                                int t);
bool rp_graph_subtree_idle (const struct rp_graph *g, rp_vertex_t v);

/* Containment tree navigation (children in handle order). */
rp_vertex_t rp_graph_parent (const struct rp_graph *g, rp_vertex_t v);
rp_vertex_t rp_graph_child_first (const struct rp_graph *g, rp_vertex_t v);
rp_vertex_t rp_graph_child_next (const struct rp_graph *g, rp_vertex_t c);
size_t rp_graph_nchildren (const struct rp_graph *g, rp_vertex_t v);
/* The execution target (vertex carrying the rank itself) at or above v,
 * RP_VERTEX_NONE above targets. */
rp_vertex_t rp_graph_target (const struct rp_graph *g, rp_vertex_t v);
/* The target vertex of a rank, RP_VERTEX_NONE if none. */
rp_vertex_t rp_graph_rank_vertex (const struct rp_graph *g, int64_t rank);

/* Edges out of v, in the order added, all subsystems; containment
 * "contains" edges included (the implied "in" edges are not listed). */
size_t rp_graph_nedges (const struct rp_graph *g, rp_vertex_t v);
rp_vertex_t rp_graph_edge_target (const struct rp_graph *g, rp_vertex_t v,
                                  size_t i);
const char *rp_graph_edge_type (const struct rp_graph *g, rp_vertex_t v,
                                size_t i);
const char *rp_graph_edge_subsystem (const struct rp_graph *g, rp_vertex_t v,
                                     size_t i);
/* Subsystem names, in the order first seen; containment first. */
size_t rp_graph_nsubsystems (const struct rp_graph *g);
const char *rp_graph_subsystem_name (const struct rp_graph *g, size_t i);

/* --- extended data ----------------------------------------------------- */

/* Set the state of v.  A vertex that is not up takes its subtree out of
 * every aggregate; allocations already made stay until freed. */
int rp_graph_set_state (struct rp_graph *g, rp_vertex_t v,
                        enum rp_vertex_state state, rp_error_t *error);
int rp_graph_state_parse (const char *name, enum rp_vertex_state *state,
                          rp_error_t *error);
const char *rp_graph_state_name (enum rp_vertex_state state);
/* Tag v with key and optional value (NULL), replacing a previous value /
 * remove the tag (ENOENT if absent). */
int rp_graph_tag (struct rp_graph *g, rp_vertex_t v, const char *key,
                  const char *value, rp_error_t *error);
int rp_graph_untag (struct rp_graph *g, rp_vertex_t v, const char *key,
                    rp_error_t *error);

/* --- walking (RFC 4 "Walker", "Pruning Filter", "Evaluating Filter") --- */

enum rp_walk_action {
    RP_WALK_CONTINUE = 0, /* pre: descend; post: go on */
    RP_WALK_LEAF = 1,     /* pre: do not descend, but call post for v */
    RP_WALK_SKIP = 2,     /* pre: neither descend nor call post for v */
    RP_WALK_STOP = 3,     /* pre or post: end the walk now */
};

enum rp_walk_order {
    RP_WALK_LOW = 0,  /* children in ascending handle order */
    RP_WALK_HIGH = 1, /* children in descending handle order */
};

/* Filters return an enum rp_walk_action; any other value ends the walk
 * with an error (the walk returns -1, EINVAL). */
typedef int (*rp_walk_filter_f) (const struct rp_graph *g, rp_vertex_t v,
                                 void *arg);

struct rp_walk;

/* A walker over one subsystem of g (borrowed; must outlive the walker and
 * be finalized).  In the containment subsystem the walk follows the tree;
 * in another one it follows that subsystem's out-edges except "in" edges,
 * visiting each vertex once. */
struct rp_walk *rp_walk_create (const struct rp_graph *g,
                                const char *subsystem, rp_error_t *error);
void rp_walk_destroy (struct rp_walk *w);

void rp_walk_set_order (struct rp_walk *w, enum rp_walk_order order);
/* Pruning filter (pre-order) and evaluating filter (post-order); either
 * may be NULL. */
void rp_walk_set_filters (struct rp_walk *w, rp_walk_filter_f pre,
                          rp_walk_filter_f post, void *arg);
/* Skip, before the pruning filter sees them, subtrees with fewer than
 * amount free units of type (containment only; needs add up: asking twice
 * for one type keeps the larger).  Clear with rp_walk_clear_needs. */
int rp_walk_need (struct rp_walk *w, const char *type, uint64_t amount,
                  rp_error_t *error);
void rp_walk_clear_needs (struct rp_walk *w);

/* Walk from start (included).  Returns the number of vertices visited
 * (pre-order calls), or -1 when a filter returned a bad value. */
ssize_t rp_walk_run (struct rp_walk *w, rp_vertex_t start,
                     rp_error_t *error);

/* --- accumulator (RFC 4 "Accumulator") -------------------------------- */

struct rp_accum;

/* Keeps vertices in descending score order; equal scores keep the order in
 * which they were pushed.  capacity 0: keep all; otherwise keep the best
 * capacity (a push that does not make it is dropped). */
struct rp_accum *rp_accum_create (size_t capacity);
void rp_accum_destroy (struct rp_accum *a);
int rp_accum_push (struct rp_accum *a, rp_vertex_t v, int64_t score);
size_t rp_accum_count (const struct rp_accum *a);
rp_vertex_t rp_accum_vertex (const struct rp_accum *a, size_t i);
int64_t rp_accum_score (const struct rp_accum *a, size_t i);
void rp_accum_clear (struct rp_accum *a);

/* --- bounds ------------------------------------------------------------ */

/* Every builder estimates the memory the graph will take from what it is
 * asked for (R's targets and children, a generator spec, a graph file's
 * size, vertices and edges), before it allocates in proportion to it, and
 * refuses with E2BIG when that is more than the memory limit, e.g.
 *   graph: R: 17825793 vertices need about 2064 MiB, more than the memory
 *   limit of 1024 MiB
 * The estimate counts the graph as it is used (a pristine allocation state
 * and a matcher included) and what the builder reads: the document of a
 * graph file, the R of rp_graph_from_rset_json.  Finalize checks it again
 * with the exact counts, so a graph built vertex by vertex is bounded too.
 * doc/formats.md has the costs and the measures behind them.
 *
 * The limit is process wide: set it before building. */
#define RP_GRAPH_MEMORY_DEFAULT ((uint64_t)3 << 29) /* 1.5 GiB */
#define RP_GRAPH_MEMORY_MIN ((uint64_t)1 << 20)     /* 1 MiB */

/* Set the memory limit (bytes >= RP_GRAPH_MEMORY_MIN, else EINVAL).
 * Returns 0 or -1. */
int rp_graph_set_memory_limit (uint64_t bytes);
uint64_t rp_graph_memory_limit (void);
/* Parse a memory size: a whole number of bytes, alone or followed by a
 * unit of respol's pools (B, KB, MB, GB, TB, PB, KiB ... PiB: powers of
 * 1024), at least RP_GRAPH_MEMORY_MIN.  Returns 0, or -1 with the reason,
 * e.g. memory limit "2X": a whole number of bytes, or with a unit: KB,
 * MB, GB, TB. */
int rp_graph_memory_parse (const char *text, uint64_t *bytes,
                           rp_error_t *error);

/* Writing a graph (rp_graph_to_json, rp_graph_encode) builds the whole
 * document in memory: about 900 bytes a vertex and its edge as respol
 * JSON, 4.5 KB as JGF, 80 as DOT, besides the graph; past the memory limit
 * they fail with E2BIG.  rp_graph_encode_check says so, and why: 0, or -1
 * with e.g. "writing 10500001 vertices as JGF needs about 45111 MiB, more
 * than the memory limit of 1536 MiB". */
int rp_graph_encode_check (const struct rp_graph *g, enum rp_graph_format fmt,
                           rp_error_t *error);

/* rp_graph_from_rset of R text (as rp_rset_decode reads it), with the
 * estimate made from R_lite (rp_rset_size_json) before R is expanded: a
 * few bytes of R that name millions of vertices are refused in the time
 * it takes to read them.  Errors of R read "R: ...", those of the graph
 * "graph: R: ...". */
struct rp_graph *rp_graph_decode_rset (const char *s, rp_error_t *error);

#ifdef __cplusplus
}
#endif
#endif
