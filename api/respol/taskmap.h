/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Task maps (RFC 34): which of a job's tasks run on which of its nodes.
 *
 * A task map is a list of blocks [nodeid, nnodes, ppn, repeat]: nnodes
 * consecutive nodes from nodeid, each with ppn consecutive task ids, the
 * whole block repeated repeat times.  Task ids are handed out in block
 * order from 0, so the map of 4 nodes with 4 tasks each is [[0,4,4,1]]
 * (block) or [[0,4,1,4]] (cyclic).  A node id is the position of an
 * execution target in R's rank order (node 0 is the lowest rank), not its
 * rank.  A map with no blocks means "mapping unknown" (RFC 34).
 *
 * Blocks may visit a node again (that is what cyclic maps do), so blocks
 * never overlap in task ids, only in nodes.  A node that no block names
 * has no tasks: rp_taskmap_nnodes counts up to the highest node named.
 *
 * Text forms, told apart by rp_taskmap_decode as flux-core's taskmap
 * reader tells them apart (doc/formats.md):
 *   [[0,2,2,1]]                       RFC 34 JSON array (what
 *                                     `flux job taskmap` prints)
 *   {"version":1,"map":[[0,2,2,1]]}   RFC 34 wrapped object
 *   (vector,(0,2,2))                  RFC 13 PMI_process_mapping
 *   0-1;2-3                           raw: one RFC 22 idset per node,
 *                                     in node order, ';' between nodes
 *
 * Bounds, checked before anything is expanded: node ids below
 * RP_TASKMAP_MAX_NODES, at most RP_TASKMAP_MAX_TASKS tasks, and at most
 * RP_TASKMAP_MAX_REPEATS blocks counting each repeat (the length of the
 * PMI form), so no lookup or encoding costs more than that.  Errors
 * say what and where, e.g.
 *   taskmap: map[1]: ppn must be >= 1
 *   taskmap: raw: task 3 is on node 0 and node 1
 *
 * Ownership: functions returning struct rp_taskmap *, struct rp_idset *,
 * char * or json_t * return new objects the caller must destroy / free /
 * json_decref.  Failing functions leave their arguments unchanged and fill
 * error.
 */
#ifndef RESPOL_TASKMAP_H
#define RESPOL_TASKMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include <respol/error.h>
#include <respol/idset.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Node ids are below 2^20, the largest R (RP_RSET_MAX_TARGETS). */
#define RP_TASKMAP_MAX_NODES 1048576U
/* 2^31 - 1 tasks: task ids are C ints in PMI and in flux-core. */
#define RP_TASKMAP_MAX_TASKS 2147483647U
/* Blocks, each repeat counted: 2^20. */
#define RP_TASKMAP_MAX_REPEATS 1048576U

/* Encoding flags: at most one. */
enum {
    RP_TASKMAP_WRAPPED = 1, /* {"version":1,"map":[...]} */
    RP_TASKMAP_PMI = 2,     /* (vector,(0,2,2)); "" when unknown */
    RP_TASKMAP_RAW = 4,     /* 0-1;2-3 */
};

struct rp_taskmap;

/* An empty map (mapping unknown).  Caller must destroy. */
struct rp_taskmap *rp_taskmap_create (void);
/* Accepts NULL, keeps errno. */
void rp_taskmap_destroy (struct rp_taskmap *map);
struct rp_taskmap *rp_taskmap_copy (const struct rp_taskmap *map);

/* Give the next ppn task ids to each of nnodes nodes from nodeid (the
 * next nnodes * ppn ids).  Merges with the last block as flux-core's
 * taskmap_append does, so appending node by node gives the RFC's compact
 * forms: (0,1,2) then (1,1,2) is [[0,2,2,1]]; (0,2,1) twice is
 * [[0,2,1,2]]; (0,1,1) twice is [[0,1,2,1]].  Fails with EINVAL for a
 * count of 0, EOVERFLOW past a bound. */
int rp_taskmap_append (struct rp_taskmap *map, unsigned int nodeid,
                       unsigned int nnodes, unsigned int ppn,
                       rp_error_t *error);

/* Read any of the four text forms.  Caller must destroy. */
struct rp_taskmap *rp_taskmap_decode (const char *s, rp_error_t *error);
/* Read the JSON array or wrapped object.  Does not steal o. */
struct rp_taskmap *rp_taskmap_from_json (const json_t *o, rp_error_t *error);

/* Encode with at most one RP_TASKMAP_* flag (EINVAL otherwise); 0 is the
 * JSON array.  JSON is compact, as flux-core writes it.  Raw shows a node
 * without tasks as an empty element ("0;;1").  Caller must free. */
char *rp_taskmap_encode (const struct rp_taskmap *map, int flags);
/* The JSON array, or the wrapped object with RP_TASKMAP_WRAPPED.  Caller
 * must json_decref. */
json_t *rp_taskmap_to_json (const struct rp_taskmap *map, int flags);

/* True when the map has no blocks (RFC 34: mapping unknown). */
bool rp_taskmap_unknown (const struct rp_taskmap *map);
/* Tasks in all; nodes up to the highest one named (0 when unknown). */
size_t rp_taskmap_ntasks (const struct rp_taskmap *map);
size_t rp_taskmap_nnodes (const struct rp_taskmap *map);

/* Blocks as stored: rp_taskmap_block() fills block i and returns true, or
 * returns false when i is out of range.  Any pointer may be NULL. */
size_t rp_taskmap_nblocks (const struct rp_taskmap *map);
bool rp_taskmap_block (const struct rp_taskmap *map, size_t i,
                       unsigned int *nodeid, unsigned int *nnodes,
                       unsigned int *ppn, unsigned int *repeat);

/* Lookups.  rp_taskmap_node_ntasks: tasks of nodeid (0 for a node with
 * none).  rp_taskmap_task_node: the node of taskid, or -1 with errno
 * ENOENT (no such task).  rp_taskmap_tasks_of: the task ids of nodeid,
 * empty for a node with none; caller must destroy.  Costs: task_node
 * O(log blocks); node_ntasks O(blocks); tasks_of O(blocks + repeats of
 * the blocks that hold the node). */
size_t rp_taskmap_node_ntasks (const struct rp_taskmap *map,
                               unsigned int nodeid);
long rp_taskmap_task_node (const struct rp_taskmap *map, size_t taskid);
struct rp_idset *rp_taskmap_tasks_of (const struct rp_taskmap *map,
                                      unsigned int nodeid);

#ifdef __cplusplus
}
#endif
#endif
