/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Task layout: which of a job's tasks run on one execution target, their
 * ids, and the cores and GPUs of that target each task may use (its
 * share).  Computed from R (RFC 20), the jobspec (RFC 14 / RFC 25) and the
 * target's rank, identically on every target: the same inputs give every
 * target the same task counts, the same RFC 34 task map and the same
 * errors.
 *
 * The rules, in full in doc/formats.md ("Task layout"):
 *
 * Slots.  The jobspec has one task entry; its slot is one of three kinds.
 *  - A slot that holds a node spans whole execution targets: R's targets,
 *    in rank order, are split into the slots as evenly as possible (the
 *    jobspec's slot count when it is exact, else as many slots as R's
 *    targets make at the slot's node count).
 *  - A slot inside a node: each target holds the jobspec's number of slots
 *    per node when every count between the node and the slot is exact,
 *    else as many as its cores and GPUs make at the slot's shape.
 *  - Any other slot floats: each target holds as many slots as its cores
 *    and GPUs make at the slot's shape; when the jobspec's slot count is
 *    exact, only that many are used, dealt one per target per round in
 *    rank order.
 *  A target's cores, and its GPUs, are split over its slots in id order,
 *  contiguous and as even as possible (earlier slots get one more); when
 *  there are fewer than slots, each slot gets one and consecutive slots
 *  share it.  So every core and GPU R gives a target is in some slot.
 *
 * Tasks.  per_slot N: N per slot.  total N: dealt over the slots one per
 * slot per round (slot 0 of each target in rank order, then slot 1, ...),
 * so targets differ by at most a slot's worth.  per_resource: N per node
 * (per target), per core or per GPU of the slot (from R), or per resource
 * of another type in the slot (from the jobspec's counts, so N per_slot
 * times that count).  flux-core's shell option per-resource ({type: node
 * or core, count}) replaces the task count as in flux-core.  A slot of
 * several nodes spreads its tasks over them, earlier nodes first.
 *
 * Shares.  Local task ids follow the global ids in ascending order.  When
 * a target has at least as many tasks as slots, each slot's tasks are
 * consecutive and share the slot's cores and GPUs.  When it has fewer,
 * each task gets a run of consecutive slots (as even as possible, earlier
 * tasks get one more), so no resource of the target is left out and no
 * task's share is trimmed.
 *
 * Distribution: "block" (the default: node 0's tasks first), "cyclic"
 * or "cyclic:N" (N tasks per node per round, RFC 34's cyclic:N), given
 * to rp_layout_create, else the task entry's "distribution", else block.
 * It changes which ids a target's tasks have, never how many.
 *
 * Bounds: at most RP_LAYOUT_MAX_TASKS tasks in the job and
 * RP_LAYOUT_MAX_PER_TARGET tasks or slots on one target, checked on the
 * counts of every target before anything is allocated.  Errors say what
 * is wrong, e.g.
 *   layout: rank 7 is not in R (ranks 0-3)
 *   layout: rank 1 (node1): 3 cores and 0 GPUs cannot hold 2 slots of
 *   2 cores and 1 GPU
 *
 * Ownership: rp_layout_create returns a layout the caller must destroy.
 * Every pointer an accessor returns is borrowed from the layout and lives
 * as long as it does.  A layout never changes, so threads may share it.
 */
#ifndef RESPOL_LAYOUT_H
#define RESPOL_LAYOUT_H

#include <stddef.h>

#include <respol/error.h>
#include <respol/idset.h>
#include <respol/jobspec.h>
#include <respol/rset.h>
#include <respol/taskmap.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 2^24 tasks in a job (16 per core of the largest machines); a cyclic
 * task map costs work per task. */
#define RP_LAYOUT_MAX_TASKS 16777216U
/* 2^16 tasks, or slots, on one execution target. */
#define RP_LAYOUT_MAX_PER_TARGET 65536U

struct rp_layout;

/* Lay out js on R for the target rank.  distribution may be NULL (see
 * above).  Caller must destroy. */
struct rp_layout *rp_layout_create (const struct rp_rset *R,
                                    const struct rp_jobspec *js,
                                    unsigned int rank, const char *distribution,
                                    rp_error_t *error);
/* Accepts NULL, keeps errno. */
void rp_layout_destroy (struct rp_layout *layout);

/* --- the job ------------------------------------------------------------ */

/* Tasks, slots and execution targets (R's, with or without tasks). */
size_t rp_layout_ntasks (const struct rp_layout *layout);
size_t rp_layout_nslots (const struct rp_layout *layout);
size_t rp_layout_nnodes (const struct rp_layout *layout);
/* The RFC 34 task map of the whole job.  Borrowed. */
const struct rp_taskmap *rp_layout_taskmap (const struct rp_layout *layout);
/* "block", "cyclic:1", "cyclic:4": the distribution used.  Borrowed. */
const char *rp_layout_distribution (const struct rp_layout *layout);

/* --- this target -------------------------------------------------------- */

unsigned int rp_layout_rank (const struct rp_layout *layout);
/* Position of the rank in R's rank order: its RFC 34 node id. */
unsigned int rp_layout_nodeid (const struct rp_layout *layout);
size_t rp_layout_nslots_local (const struct rp_layout *layout);
size_t rp_layout_ntasks_local (const struct rp_layout *layout);

/* Global id of local task local, or -1 with errno ENOENT. */
long rp_layout_task_global_id (const struct rp_layout *layout, size_t local);
/* Local id of global task id, or -1 with errno ENOENT when it runs
 * elsewhere.  O(log local tasks). */
long rp_layout_task_local_id (const struct rp_layout *layout, size_t global);
/* The task's share: R's core ids and GPU ids on this target (empty when
 * the target has none).  Tasks of one slot share the same sets.  NULL
 * with errno ENOENT for a bad local id.  Borrowed. */
const struct rp_idset *rp_layout_task_cores (const struct rp_layout *layout,
                                             size_t local);
const struct rp_idset *rp_layout_task_gpus (const struct rp_layout *layout,
                                            size_t local);

#ifdef __cplusplus
}
#endif
#endif
