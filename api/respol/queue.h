/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Queue policies (kind RP_PLUGIN_QUEUE): which pending job to try, which
 * to reserve, and in what order.
 *
 * A queue policy does either or both of:
 *
 * (a) Order.  priority gives each pending job a number when it is
 *     queued; the queue runs from the highest to the lowest, equal
 *     numbers in submission order.  Without it, submission order.
 *
 * (b) Decide, once per scheduling pass.  pass reads the pending jobs in
 *     queue order (rp_queue_count, rp_queue_job_*) and acts on them
 *     through the host: rp_queue_start (start now, where the matcher
 *     finds room), rp_queue_fits (would it start now without delaying a
 *     reservation?), rp_queue_reserve (hold the earliest time at which it
 *     fits) and rp_queue_cancel.  A reservation is a span of the job's
 *     duration in the planner (respol/planner.h) of the cluster's units,
 *     beside the spans of the running jobs; it stays until the policy
 *     cancels it, reserves the job again or starts it.
 *
 * The host checks every decision, as it does a match policy's, and
 * refuses the pass with the instance name ("queue policy 'NAME': ...",
 * the scheduler stops) when a policy
 *   - starts a job that, holding its units for its duration, would delay
 *     a reservation (the job's own reservation does not count);
 *   - reserves a job later than the reservation it held when the pass
 *     began, or than the last one the pass gave it, cancelled or not (a
 *     reservation is a promise: it may move earlier, never later; one
 *     cancelled by an earlier pass promises nothing);
 *   - starts a job before an earlier one while it declares
 *     RP_QUEUE_IN_ORDER;
 *   - ends a pass with a job reserved at the time of the pass (it could
 *     start: start it, or cancel the reservation);
 *   - names a job that is not pending, or fails (returns -1, with
 *     svc->error for the text).
 * Double booking cannot pass: a start is an allocation the matcher checks
 * against what is free now, and a reservation goes where the planner has
 * room.  A host without a planner may reserve through the matcher
 * instead (struct rp_queue_host, reserve): the checks map as said
 * there.
 *
 * Shipped (plugins/queue/): fcfs, easy, conservative, hybrid (config
 * depth: N) and priority (the order of an attribute of the jobspec).
 */
#ifndef RESPOL_QUEUE_H
#define RESPOL_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <respol/error.h>
#include <respol/jobspec.h>
#include <respol/plugin.h>
#include <respol/planner.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- kind RP_PLUGIN_QUEUE ------------------------------------------------ */

/* One scheduling pass over the pending jobs.  Opaque; borrowed for the
 * duration of the pass call. */
struct rp_queue;

enum rp_queue_flag {
    /* The policy starts jobs in queue order only (fcfs): the host refuses
     * a start while an earlier job is still pending. */
    RP_QUEUE_IN_ORDER = 1,
};

struct rp_queue_ops {
    uint32_t size;  /* sizeof (struct rp_queue_ops) as built */
    uint32_t flags; /* bits of enum rp_queue_flag */

    /* The priority of a job being queued (js borrowed for the call):
     * set *priority, return 0; or -1 after svc->error () to stop the
     * scheduler.  Optional. */
    int (*priority) (struct rp_plugin *p, const struct rp_jobspec *js,
                     int64_t *priority);

    /* One scheduling pass: return 0, or -1 after svc->error ().
     * Optional, but a policy has priority or pass or both. */
    int (*pass) (struct rp_plugin *p, struct rp_queue *q);

    /* New operations are added here, at the end. */
};

/* Services for pass (exported by librespol), valid during the call.  k
 * is a position in the queue, 0 (the head) to rp_queue_count () - 1; a
 * job that starts or is rejected stays at its position until the pass
 * ends, no longer pending. */

size_t rp_queue_count (const struct rp_queue *q);
/* The time of the pass (seconds). */
int64_t rp_queue_now (const struct rp_queue *q);
/* false once job k started or was rejected in this pass. */
bool rp_queue_job_pending (const struct rp_queue *q, size_t k);
uint64_t rp_queue_job_id (const struct rp_queue *q, size_t k);
/* The units it asks for (slots of one core, or whole nodes). */
uint64_t rp_queue_job_size (const struct rp_queue *q, size_t k);
/* Its duration (RFC 14), RP_PLANNER_FOREVER when it has none. */
int64_t rp_queue_job_duration (const struct rp_queue *q, size_t k);
/* The start of its reservation, -1 when it holds none (never reserved,
 * or cancelled). */
int64_t rp_queue_job_reserved (const struct rp_queue *q, size_t k);

/* Could job k start now, holding its units for its duration, without
 * delaying any reservation but its own? */
bool rp_queue_fits (const struct rp_queue *q, size_t k);

enum rp_queue_start {
    RP_QUEUE_NO_ROOM = 0,  /* not enough free now: still pending */
    RP_QUEUE_STARTED = 1,  /* it runs */
    RP_QUEUE_REJECTED = 2, /* it can never run: the host rejected it */
};
/* Start job k now: an enum rp_queue_start, or -1 when the host refuses
 * it (see above; the pass must then return -1). */
int rp_queue_start (struct rp_queue *q, size_t k);
/* Reserve job k at the earliest time, from now, at which its units are
 * free for its duration, its own reservation taken out first; *at is
 * that time (RP_PLANNER_FOREVER: never, nothing is held).  A time of now
 * is held too: start the job.  0, or -1 when the host refuses it. */
int rp_queue_reserve (struct rp_queue *q, size_t k, int64_t *at);
/* Cancel job k's reservation, if any.  0, or -1 for a job not pending. */
int rp_queue_cancel (struct rp_queue *q, size_t k);

/* --- the host's side ------------------------------------------------------
 *
 * A host (respol simulate, a scheduler) keeps the pending jobs, each in
 * a struct rp_queue_job it owns, and the planner of the cluster's units
 * (running jobs hold spans of their durations); it runs a pass with
 * rp_queue_run, which calls the policy and checks what it does.  */

struct rp_queue_job {
    uint64_t id, size;
    int64_t duration; /* RP_PLANNER_FOREVER: none */
    int64_t reserved; /* -1: none (set by the host's services) */
    uint64_t span;    /* the reservation's planner span, when has_span */
    bool has_span;    /* without a planner: the host holds a reservation */
    bool pending; /* the host clears it when the job starts or is rejected */
};

struct rp_queue_host {
    /* The pending jobs in queue order (borrowed for the pass). */
    struct rp_queue_job **jobs;
    size_t count;
    int64_t now;
    /* The cluster's units over time; NULL: the host plans nothing (then,
     * without the callbacks below, rp_queue_fits is false and
     * rp_queue_reserve never holds). */
    struct rp_planner *planner;
    /* Start job k now through the matcher: an enum rp_queue_start,
     * adding the job's running span to the planner (without one: taking
     * the job's own reservation, if any, out first, the host's); -1 with
     * error for a failure that stops the scheduler. */
    int (*start) (void *arg, size_t k, rp_error_t *error);
    void *arg;

    /* Added after the first release: a host zero-fills the structure (C
     * designated initializers do); a NULL callback means the host has
     * none.
     *
     * The host's own reservations, for a host without a planner whose
     * jobs are not of interchangeable units (a matcher's reservations,
     * rp_matcher_allocate_orelse_reserve).  Used only when planner is
     * NULL; without reserve, nothing is reserved (as above).
     *
     * reserve: replace job k's reservation, if any, by one at the
     * earliest time from now at which its request fits for its duration;
     * *at that time (RP_PLANNER_FOREVER: never, nothing held).  At now,
     * the host holds the job's resources from now, for the start.  It
     * sets the job's has_span when it holds something.  0, or -1 with
     * error (the scheduler stops).
     * cancel: drop job k's reservation (has_span false).  0, or -1.
     * fits: could job k start now without delaying a reservation but its
     * own?  (The matcher places a job now only where no reservation
     * needs the resources before its end.)  It may test with the job's
     * own reservation held: a job that would fit only on the resources
     * of its own is then not said to fit (reserve it again: at now,
     * start it).
     *
     * The checks above, in this mode: a start is the host's (the
     * matcher's), which places nothing where a reservation needs it
     * before the job's end, so a start that would delay a reservation
     * finds no room (RP_QUEUE_NO_ROOM) rather than a refusal; the
     * promise rules are checked on the times reserve gives, and on the
     * reservation a start that finds no room leaves the job (one later
     * than the promise is refused, with the policy's name, and
     * cancelled); the order and the pass's end are checked as with a
     * planner. */
    int (*reserve) (void *arg, size_t k, int64_t *at, rp_error_t *error);
    int (*cancel) (void *arg, size_t k, rp_error_t *error);
    bool (*fits) (void *arg, size_t k);
};

/* Run instance p's pass (kind RP_PLUGIN_QUEUE) over the host's queue: 0,
 * or -1 with error ("queue policy 'NAME': ...").  A policy without pass
 * does nothing. */
int rp_queue_run (const struct rp_plugin *p, struct rp_queue_host *h,
                  rp_error_t *error);
/* Instance p's priority of js into *priority (0 without a priority
 * operation): 0, or -1 with error. */
int rp_queue_priority (const struct rp_plugin *p, const struct rp_jobspec *js,
                       int64_t *priority, rp_error_t *error);
/* Whether p has the operation. */
bool rp_queue_has_pass (const struct rp_plugin *p);
bool rp_queue_has_priority (const struct rp_plugin *p);
/* Its flags (enum rp_queue_flag); 0 for another kind. */
uint32_t rp_queue_flags (const struct rp_plugin *p);

#ifdef __cplusplus
}
#endif
#endif
