/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Matching jobspec (RFC 14, RFC 25, RFC 31) to a resource graph (RFC 4),
 * and the allocation state of the jobs that hold resources.
 *
 * A matcher owns a finalized graph and the record of every job allocated
 * on it.  rp_matcher_allocate answers "which free resources does this
 * jobspec get?": the host walks the graph, a match policy (a plugin of kind
 * RP_PLUGIN_MATCH, respol/plugin.h) scores and orders the candidates, the
 * host checks the proposal (within the free set, no overlap with another
 * job, nothing down or drained, counts and exclusivity as asked), commits
 * it, and returns it as R (RFC 20).
 *
 * What a jobspec asks, as the matcher reads it:
 * - Resource types are the graph's; levels the jobspec omits are walked
 *   through (a node with cores under it matches nodes whose cores sit
 *   under sockets).
 * - A slot is placed within one execution target (a task runs on one
 *   target), unless the slot itself holds execution targets (a slot of
 *   nodes).
 * - exclusive: everything in a slot is exclusive unless it says otherwise;
 *   outside slots resources are shared unless "exclusive: true" (RFC 14).
 *   An exclusive vertex is taken whole, with everything below it: an
 *   exclusive node puts all its cores and GPUs in R.
 * - count: a fixed count takes exactly that many; a range (RFC 45, or
 *   {min, max, operator, operand}) takes the largest acceptable value that
 *   fits, up to what is free; "N+" takes as many as are free.  For a type
 *   whose vertices are pools (size > 1, or a unit), the count is in units
 *   of size, converted between the request's unit and the pool's (B, KB,
 *   MB, GB, TB, PB and KiB ... PiB, all powers of 1024 as in jobspec; a
 *   memory request without unit is GB), rounded up to whole pool units,
 *   and may be taken from several pools below the same vertex.
 * - id (RFC 14): only vertices whose id is in the idset.
 * - attributes.system.constraints (RFC 31) are evaluated at every
 *   execution target (rank, host name, properties of the target vertex).
 *
 * The result R has one R_lite entry per target with its cores and GPUs,
 * the nodelist, starttime = now and expiration = now + duration (0 when
 * the jobspec has none), and in "scheduling" the allocated subgraph as JGF
 * (vertices with the ancestors that hold them; what R_lite cannot say:
 * sockets, memory, other types).
 *
 * Determinism: for the same graph, allocation history, policy and
 * jobspec, the result is the same; ties go to walk order.
 *
 * Ownership: rp_matcher_create takes ownership of the graph.  Functions
 * returning struct rp_rset * or json_t * return new objects the caller
 * must destroy / json_decref.  Failing functions fill error, set errno and
 * leave the matcher as it was.
 *
 * Threads: one thread at a time per matcher.
 */
#ifndef RESPOL_MATCH_H
#define RESPOL_MATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <respol/config.h>
#include <respol/error.h>
#include <respol/graph.h>
#include <respol/hostlist.h>
#include <respol/idset.h>
#include <respol/jobspec.h>
#include <respol/plugin.h>
#include <respol/rset.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rp_matcher;

/* Create a matcher over g (finalized; ownership taken, also on failure).
 * The policy is the built-in first fit (lowest ids first, stop at the
 * first fit) until rp_matcher_set_policy. */
struct rp_matcher *rp_matcher_create (struct rp_graph *g, rp_error_t *error);
void rp_matcher_destroy (struct rp_matcher *m);

/* The graph, borrowed.  Callers may change states and tags
 * (rp_graph_set_state, rp_graph_tag); allocations change only through the
 * matcher. */
struct rp_graph *rp_matcher_graph (struct rp_matcher *m);

/* Use the policy instance p (kind RP_PLUGIN_MATCH; borrowed, must outlive
 * the matcher or the next call), or NULL for the built-in first fit.
 * EINVAL for another kind. */
int rp_matcher_set_policy (struct rp_matcher *m, const struct rp_plugin *p,
                           rp_error_t *error);
/* The policy's instance name, or "first" for the built-in. */
const char *rp_matcher_policy_name (const struct rp_matcher *m);

/* Explain matches: when on, every allocate and satisfiability call
 * records why it came out as it did, kept until the next call (off drops
 * it).  rp_matcher_explanation returns it (a new reference: caller must
 * json_decref), or NULL when off or before any call:
 *   {"policy": "pack", "outcome": "allocated" | "not now" | "never" |
 *    "satisfiable", "reason": "needs ..." (when not placed),
 *    "requests": [{"request": "node/slot/core", "count": "2" | "1-4" |
 *      "2+", "considered": N, "taken": N, "busy": N, "constraint": N,
 *      "id": N, "no_fit": N, "pruned": N, "in_graph": N (not for slots),
 *      "top": [{"vertex": NAME, "score": S}, ...]}, ...],
 *    "pruned": {"node": N, ...}}
 * per request, over the run that decided (the live state's for
 * "allocated" and "not now", the pristine one's for "never"): the
 * candidates looked at, the units placed, and those refused because
 * other jobs hold them or they are down or drained (busy), by the job's
 * constraints, by its ids, because what the request needs below them did
 * not fit (no_fit), and the subtrees the policy pruned below the request;
 * "top" has the five highest scores the policy gave the request's
 * candidates found (none without score); "pruned" counts the policy's
 * prunes per type; "in_graph" is how many vertices of the request's type
 * the graph has.  Counts follow the matcher's walk, which skips subtrees
 * whose free aggregates show no room for one unit without looking at
 * their vertices: "considered" is what it looked at, not the size of the
 * graph.  Whether on or not, a failed match's reason
 * ends with "; policy 'P' pruned N of M TYPEs" when the policy pruned
 * something in the run that failed. */
void rp_matcher_set_explain (struct rp_matcher *m, bool on);
json_t *rp_matcher_explanation (const struct rp_matcher *m);

/* What a policy reads with rp_match_context and rp_match_instance during
 * the next allocate and satisfiability calls: who submits the job (NULL:
 * nothing known) and the instance's jobs and usage (NULL: none).  Both
 * borrowed: they must outlive those calls or be replaced. */
struct rp_context;
struct rp_instance;
void rp_matcher_set_context (struct rp_matcher *m,
                             const struct rp_context *ctx);
void rp_matcher_set_instance (struct rp_matcher *m,
                              const struct rp_instance *inst);

/* Allocate resources to job jobid for js (borrowed).  now: the start time,
 * seconds since the epoch.  Returns the job's R (a copy: caller destroys).
 * On failure returns NULL, allocates nothing, and sets errno:
 *   ENODEV  never satisfiable by this resource set; error says why, e.g.
 *           "needs 5 nodes with 2 GPUs each, the resource set has 4"
 *   EBUSY   not satisfiable now (allocated, down or drained resources);
 *           error says what is short, e.g.
 *           "needs 5 nodes with 2 GPUs each, 3 are free"
 *   EEXIST  jobid already holds resources
 *   EPROTO  the policy failed or proposed something the host refused;
 *           error names the policy instance
 *   EINVAL  bad arguments, or a request the matcher cannot place */
struct rp_rset *rp_matcher_allocate (struct rp_matcher *m, uint64_t jobid,
                                     const struct rp_jobspec *js, double now,
                                     rp_error_t *error);

/* Could js ever be allocated on this resource set (every vertex up and
 * free)?  Returns 0, or -1 with ENODEV and the reason (as above), EPROTO
 * or EINVAL. */
int rp_matcher_satisfiability (struct rp_matcher *m,
                               const struct rp_jobspec *js, rp_error_t *error);

/* Whether the R rp_matcher_allocate returns carries the scheduling key
 * (on by default).  Off, it holds R_lite, the nodelist and the times
 * only, for a caller that prints R without the key (writing the allocated
 * subgraph is most of an allocation's cost); rp_matcher_job_rset still
 * builds the key when asked. */
void rp_matcher_set_scheduling (struct rp_matcher *m, bool on);

/* Whether the matcher uses the policy's hints (rp_match_ops.hints,
 * respol/plugin.h) to order candidates from its indexes (on by default).
 * Off, it scores every candidate as the policy's operations say: the
 * same result, at a cost that grows with the cluster; for checking that
 * a policy's hints say what its operations do. */
void rp_matcher_set_hints (struct rp_matcher *m, bool on);

/* Free everything job jobid holds.  ENOENT for an unknown job. */
int rp_matcher_free (struct rp_matcher *m, uint64_t jobid, rp_error_t *error);

/* RFC 27 partial release: free what job jobid holds on the given ranks
 * (execution targets are never split across releases).  The job's R
 * shrinks to the other ranks; when none is left, the job is gone.  ENOENT
 * for an unknown job, EINVAL for a rank the job does not hold (nothing is
 * freed then). */
int rp_matcher_release (struct rp_matcher *m, uint64_t jobid,
                        const struct rp_idset *ranks, rp_error_t *error);

/* A job's current R with its scheduling key, borrowed until the job
 * changes; NULL with ENOENT for an unknown job (ENOMEM: out of memory).
 * The matcher builds the scheduling key when it is first asked for. */
const struct rp_rset *rp_matcher_job_rset (const struct rp_matcher *m,
                                           uint64_t jobid);
/* Jobs holding resources, and their ids in ascending order: the first, and
 * the next after jobid.  Return false when there is none. */
size_t rp_matcher_njobs (const struct rp_matcher *m);
bool rp_matcher_job_first (const struct rp_matcher *m, uint64_t *jobid);
bool rp_matcher_job_next (const struct rp_matcher *m, uint64_t *jobid);

/* What the graph holds and what is free, per type, and the number of
 * jobs: {"jobs": N, "vertices": N, "types": {"core": {"total": N,
 * "free": N, "down": N}, ...}} (new reference). */
json_t *rp_matcher_stat (const struct rp_matcher *m);

/* Check the allocation state against the graph: every vertex's counters
 * equal the sum of the job records that hold it, none exceeds its size,
 * no exclusive holding is shared, and every aggregate equals a recount.
 * For tests and after a crash of a policy; O(vertices).  Returns 0, or -1
 * with EPROTO and the first inconsistency. */
int rp_matcher_check (const struct rp_matcher *m, rp_error_t *error);

/* --- resource acquisition (RFC 28) and scheduler restart (RFC 27) ---- */

/* Does the execution target of rank have property name (RFC 20: "a" also
 * when it has "a@gpu")?  arg: as given to rp_matcher_set_properties. */
typedef bool (*rp_matcher_property_f) (unsigned int rank, const char *name,
                                       void *arg);

/* Properties that change while the matcher runs (RFC 28 property-add and
 * property-remove): with fn set, the "properties" operator of a jobspec's
 * constraints (RFC 31) asks fn, not the graph's vertex properties, so a
 * change is seen by the next match.  fn NULL: the graph's again.  Match
 * policies that read vertex properties still see the graph's. */
void rp_matcher_set_properties (struct rp_matcher *m, rp_matcher_property_f fn,
                                void *arg);

/* The value for key of the execution target of rank (a property
 * "KEY=VALUE", respol/property.h), or NULL; borrowed until the next
 * change of properties.  arg: as given to rp_matcher_set_values. */
typedef const char *(*rp_matcher_value_f) (unsigned int rank, const char *key,
                                           void *arg);
/* Likewise for the values that operators added by property plugins read:
 * with fn set, they ask fn; fn NULL: the graph's vertex properties
 * (rp_graph_vertex_property_value). */
void rp_matcher_set_values (struct rp_matcher *m, rp_matcher_value_f fn,
                            void *arg);

/* RFC 27 hello: make job jobid hold exactly the cores and GPUs that R
 * (borrowed) gives it, rank by rank, as an allocation of those would
 * (cores and GPUs exclusive, the vertices above them shared), also on
 * targets that are down or drained now.  R's host names must be the
 * targets' names.  The job's R is then R's targets, cores, GPUs and
 * times (what R_lite cannot say, sockets or memory, is not held).
 * Returns 0, or -1 with nothing changed:
 *   EEXIST  jobid already holds resources
 *   ENOENT  "rank 7: no such execution target", "rank 3: host n3, not
 *           node3", "rank 3 (node3): no core 48"
 *   EBUSY   "rank 3 (node3): core4 is held by another job"
 *   EINVAL  R has no targets, bad arguments */
int rp_matcher_hello (struct rp_matcher *m, uint64_t jobid,
                      const struct rp_rset *R, rp_error_t *error);

/* RFC 28 shrink: remove the targets of ranks for good.  They are set down
 * (never allocated again; jobs that hold them keep them until freed) and
 * no longer count for satisfiability.  Removing a removed target again
 * does nothing.  ENOENT for a rank with no target (nothing removed). */
int rp_matcher_remove_targets (struct rp_matcher *m,
                               const struct rp_idset *ranks, rp_error_t *error);
/* The removed ranks: borrowed, NULL when none was ever removed. */
const struct rp_idset *rp_matcher_removed (const struct rp_matcher *m);

/* --- policies from the configuration --------------------------------- */

/* The match policy called name: the instance of that name in cfg's
 * "match" stack, else the plugin of that name loaded (as a stack entry
 * with an empty configuration block would be) and kept by cfg.  With name
 * NULL: the first entry of the match stack, else the plugin "first".
 * Borrowed from cfg.  NULL with errno and error on failure (the loader's
 * message). */
const struct rp_plugin *rp_config_policy (struct rp_config *cfg,
                                          const char *name, rp_error_t *error);

/* --- time: spans and reservations ------------------------------------ */

/* Every job record has a span: from its start to its start plus its
 * duration (RFC 14 attributes.system.duration; none: no end), in whole
 * seconds (the start rounded down, the end up).  Once the matcher has
 * made a reservation, every vertex a record holds answers "are n units
 * free on [t, t+d)" from the spans of its pool (respol/planner.h) in
 * O(log spans), and every match looks at the window it asks for:
 * rp_matcher_allocate at now places a job only on what no reservation
 * needs before the job's end (backfilling), and a policy that scores
 * candidates sees only candidates free for the whole span.  Until then
 * nothing of it exists and allocate costs what it did.
 *
 * The matcher's time is the latest now given (rp_matcher_allocate,
 * rp_matcher_allocate_orelse_reserve, rp_matcher_set_time); it never
 * goes back.  A running job past its end keeps its resources: at each
 * new time it is taken to end a second after now, or at the end
 * rp_matcher_run_late gives; a reservation in its way is pushed (it keeps
 * its resources and moves to the earliest time they are all free, or is
 * cancelled when no time is: rp_matcher_job_time then says ENOENT).  A
 * job that rp_matcher_hello adds pushes the reservations in its way the
 * same way; rp_matcher_release gives the released ranks back to every
 * time after now, and refuses a reservation (EINVAL "job 3 is a
 * reservation: free it whole").  No unit is ever held by two records at
 * one time (rp_matcher_check). */

/* Allocate js to job jobid at now as rp_matcher_allocate does, else
 * reserve it at the earliest time its request fits for its duration (one
 * decision: nothing else changes in between).  Returns the job's R (a
 * copy: caller destroys), whose starttime is the start, also in *at (may
 * be NULL): now when allocated, later for a reservation.  A reservation
 * is a job record whose resources are held from its start: it is listed
 * with the jobs, rp_matcher_job_rset gives its R, rp_matcher_free cancels
 * it; it does not start by itself (when its time comes, free it and
 * allocate the job).  Fails as rp_matcher_allocate does, and with EBUSY
 * when no time can hold it ("...; no later time either: what holds it
 * has no end"). */
struct rp_rset *rp_matcher_allocate_orelse_reserve (
    struct rp_matcher *m, uint64_t jobid, const struct rp_jobspec *js,
    double now, double *at, rp_error_t *error);

/* Time is now (seconds, >= the matcher's time, else EINVAL "time goes
 * back: 5 is before 10"): running jobs past their end keep their
 * resources and push reservations in their way. */
int rp_matcher_set_time (struct rp_matcher *m, double now, rp_error_t *error);
/* The matcher's time: the latest now given, 0 before any. */
double rp_matcher_time (const struct rp_matcher *m);

/* Running job jobid runs past its end, until end (seconds after its
 * expiration; 0: no end): it keeps its resources, its R's expiration
 * follows, and the reservations in its way are pushed.  ENOENT for an
 * unknown job; EINVAL for a reservation ("job 3 is a reservation, not
 * running"), a job without end ("job 3 has no end to pass") or an end not
 * after its expiration. */
int rp_matcher_run_late (struct rp_matcher *m, uint64_t jobid, double end,
                         rp_error_t *error);

/* Job jobid's start and expiration (0: none), and whether it is a
 * reservation; any output may be NULL.  false with ENOENT for an unknown
 * job. */
bool rp_matcher_job_time (const struct rp_matcher *m, uint64_t jobid,
                          double *start, double *end, bool *reserved);
/* --- allocations without R ------------------------------------------- */

/* Allocate as rp_matcher_allocate does (the same placement, checks and
 * errors), without building R: for a caller that reads only what the job
 * holds, counted (a simulator, a scheduler's accounting).  The job record
 * keeps its holds; rp_matcher_job_rset builds R when asked.  Returns 0,
 * or -1 with errno set as rp_matcher_allocate sets it and nothing
 * allocated. */
int rp_matcher_allocate_held (struct rp_matcher *m, uint64_t jobid,
                              const struct rp_jobspec *js, double now,
                              rp_error_t *error);

/* What job jobid's R holds, counted without building R: type "node" its
 * execution targets, "core" or "gpu" the ids of that type in R_lite,
 * summed over the targets (as rp_rset_count of rp_matcher_job_rset).
 * -1 with errno: ENOENT an unknown job, EINVAL another type or bad
 * arguments, ENOMEM. */
ssize_t rp_matcher_job_count (const struct rp_matcher *m, uint64_t jobid,
                              const char *type);

/* The host names of job jobid's targets in rank order, as
 * rp_rset_nodelist of its R would give them, without building R.  A new
 * list (caller destroys), or NULL with errno: ENOENT an unknown job,
 * EINVAL bad arguments, ENOMEM. */
struct rp_hostlist *rp_matcher_job_nodelist (const struct rp_matcher *m,
                                             uint64_t jobid);

/* --- whether a job fits now ------------------------------------------- */

/* Whether rp_matcher_allocate of js at now would place it now (around
 * the reservations, as it does), without allocating: 1 yes, 0 not now,
 * -1 with errno for what would fail the allocation whatever the state
 * (the match policy's failure, EPROTO; ENOMEM; EINVAL bad arguments).
 * A cheap answer for a queue policy that asks of many jobs whether they
 * could backfill.  0 does not say whether js could ever be placed
 * (rp_matcher_satisfiability does), and the host names of R are not
 * checked (rp_matcher_allocate refuses those it could not write).  As
 * rp_matcher_allocate, it moves the matcher's time to now and keeps a
 * running job past its end. */
int rp_matcher_fits (struct rp_matcher *m, const struct rp_jobspec *js,
                     double now, rp_error_t *error);

/* rp_matcher_allocate_orelse_reserve (the same placement, start, checks
 * and errors) without building R, as rp_matcher_allocate_held is
 * rp_matcher_allocate: 0 with the start in *at, or -1 with errno set and
 * nothing held.  For a scheduler that reserves a queue at every pass
 * and reads only when and how much (a simulator). */
int rp_matcher_allocate_orelse_reserve_held (struct rp_matcher *m,
                                             uint64_t jobid,
                                             const struct rp_jobspec *js,
                                             double now, double *at,
                                             rp_error_t *error);

#ifdef __cplusplus
}
#endif
#endif
