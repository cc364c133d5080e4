/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The planner: a pool of identical units over time.
 *
 * RFC 4 lets a resource pool carry "scheduling state data such as job
 * allocations and reservations".  A planner is that state for one pool
 * of `total` units (the cores of a node, the nodes of a cluster, the GiB
 * of a memory pool): a set of spans, each holding `amount` units from its
 * start (included) to its end (excluded), and the questions a scheduler
 * asks of them:
 *   - how many units are free at t, or during all of [t, t+d)?
 *   - is [t, t+d) free for n units?
 *   - what is the earliest time, not before t, at which n units are free
 *     for d seconds?
 * and the changes a scheduler makes: add a span (a job starts, a
 * reservation is made), remove it (the job ends, the reservation is
 * cancelled), move its end earlier (the job ends early) or later (it runs
 * past its duration).
 *
 * Times are integers (seconds, from any origin the caller picks) from 0
 * to RP_PLANNER_FOREVER, which means "no end": a span that never ends, a
 * question about all time to come.  A span's units are the same for its
 * whole life; the planner counts units, it does not name them (which
 * core a job holds is the matcher's business).
 *
 * Costs, in the number s of spans: every change and every question about
 * one time or one interval is O(log s) (expected: the points where use
 * changes are kept in a treap with deterministic priorities, each node
 * carrying the sums and the highest and lowest use of its subtree).  The
 * earliest-time question is O(log s) per window of d seconds that it has
 * to look past (one when there is room near the time asked; more behind
 * a long backlog).  Memory: at most 136 bytes per span (two points of 56
 * bytes and a record of 24; fewer when spans share points), and the
 * arrays grow by doubling (doc/performance.md has measured figures).
 *
 * Ownership: rp_planner_create returns a planner the caller must destroy.
 * Failing functions fill error, set errno and change nothing.
 *
 * Threads: one thread at a time per planner; questions do not modify it,
 * so several threads may ask at once when none changes it.
 */
#ifndef RESPOL_PLANNER_H
#define RESPOL_PLANNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <respol/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A time with no end after it; also the largest time. */
#define RP_PLANNER_FOREVER INT64_MAX
/* The most units a pool may have. */
#define RP_PLANNER_TOTAL_MAX ((uint64_t)1 << 62)

struct rp_planner;

/* A pool of total units (1..RP_PLANNER_TOTAL_MAX), all free at every time.
 * NULL with EINVAL for a bad total, ENOMEM. */
struct rp_planner *rp_planner_create (uint64_t total, rp_error_t *error);
/* Accepts NULL, keeps errno. */
void rp_planner_destroy (struct rp_planner *p);

uint64_t rp_planner_total (const struct rp_planner *p);
/* The spans the planner holds. */
size_t rp_planner_span_count (const struct rp_planner *p);

/* --- changes -------------------------------------------------------------- */

/* Hold amount units (1..total) from start (>= 0) for duration seconds
 * (>= 1; RP_PLANNER_FOREVER: no end; start + duration must be below
 * RP_PLANNER_FOREVER otherwise).  On success *span is the span's id, valid
 * until it is removed (ids of removed spans are used again).  Fails with
 *   EINVAL  a bad argument ("duration must be >= 1")
 *   EBUSY   fewer than amount units are free somewhere in the interval:
 *           "needs 4 units from 10 to 20, only 2 are free at 15"
 * and then holds nothing. */
int rp_planner_add (struct rp_planner *p, int64_t start, int64_t duration,
                    uint64_t amount, uint64_t *span, rp_error_t *error);

/* Give back what span holds (ENOENT for an unknown span). */
int rp_planner_remove (struct rp_planner *p, uint64_t span, rp_error_t *error);

/* Move the end of span to end (> its start; RP_PLANNER_FOREVER: no end).
 * Earlier frees the rest of the span (a job that ends early); later needs
 * the units free from the old end to the new one (a job that runs past
 * its duration), else EBUSY as for rp_planner_add and the span keeps its
 * end.  ENOENT for an unknown span, EINVAL for an end not after the
 * start. */
int rp_planner_set_end (struct rp_planner *p, uint64_t span, int64_t end,
                        rp_error_t *error);

/* What span holds: its start, end (RP_PLANNER_FOREVER: none) and amount.
 * false (ENOENT) for an unknown span; the outputs are then untouched.
 * Any output may be NULL. */
bool rp_planner_span (const struct rp_planner *p, uint64_t span, int64_t *start,
                      int64_t *end, uint64_t *amount);

/* --- questions ------------------------------------------------------------ */

/* Units free at time t (0 for t < 0). */
uint64_t rp_planner_free_at (const struct rp_planner *p, int64_t t);

/* Units free during the whole of [start, start + duration): the least
 * free at any time of it.  duration < 1 is taken as 1, an interval past
 * RP_PLANNER_FOREVER as one up to it; 0 for start < 0. */
uint64_t rp_planner_free_during (const struct rp_planner *p, int64_t start,
                                 int64_t duration);

/* Are amount units free during the whole of [start, start + duration)? */
bool rp_planner_is_free (const struct rp_planner *p, int64_t start,
                         int64_t duration, uint64_t amount);

/* The earliest time t >= after (>= 0) at which amount units are free for
 * the whole of [t, t + duration) (duration >= 1, or RP_PLANNER_FOREVER:
 * free from t on).  Returns 0 and sets *at, or -1 with
 *   ENODEV  amount is more than the pool has ("needs 5 units, the pool
 *           has 4")
 *   EBUSY   spans without end hold too much for ever ("needs 3 units for
 *           ever from 10, spans without end hold 2 of 4 from 40")
 *   EINVAL  a bad argument. */
int rp_planner_earliest (const struct rp_planner *p, int64_t after,
                         int64_t duration, uint64_t amount, int64_t *at,
                         rp_error_t *error);

/* The times at which use changes, in order: the first after t (use t < 0
 * for the first of all), in *next.  false when there is none. */
bool rp_planner_next_change (const struct rp_planner *p, int64_t t,
                             int64_t *next);

#ifdef __cplusplus
}
#endif
#endif
