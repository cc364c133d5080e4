/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The jobs of a respol instance and what each user and account runs.
 *
 * Where respol holds instance state (respol query, respol simulate, the
 * Flux scheduler module), the host records every job's life here: a job
 * is submitted (pending, or held by a validator with a reason), started
 * with its R (running), and finished (freed, or cancelled before it ran;
 * then it is forgotten).  For every user (by uid) and every account the
 * instance keeps, as jobs change state, the running jobs, the pending
 * jobs (held ones included), and the nodes (execution targets), cores and
 * GPUs their running jobs hold: a plugin reads any of them in constant
 * time (rp_instance_user_usage, rp_instance_account_usage), e.g. to hold
 * a job while its user runs too much (the shipped user-limits validator).
 * A job whose context has no uid counts for no user, one without an
 * account for no account.
 *
 * Events: an instance made with a configuration calls the job_event
 * operation of every validator and match policy of that configuration
 * (respol/plugin.h), in configuration order (validate stack, then match
 * stack), on each change, after the instance has applied it (so usage
 * already counts it): RP_EVENT_ACCEPTED (submitted; pending or, followed by
 * RP_EVENT_HELD, held), RP_EVENT_HELD, RP_EVENT_RELEASED (held -> pending),
 * RP_EVENT_STARTED (running: rp_job_R is its R), RP_EVENT_FINISHED (the job
 * is still readable during the call, forgotten after it).  An event
 * operation that fails is reported through the plugin log and changes
 * nothing.
 *
 * Standalone validation (respol jobspec validate) has no instance:
 * rp_validation_instance returns NULL there, and a validator that limits
 * what users run at once has nothing to count.
 *
 * Ownership: rp_instance_create returns an instance the caller must
 * destroy (the configuration is borrowed and must outlive it).
 * rp_instance_submit takes ownership of the jobspec, also on failure,
 * and copies the context.  Jobs, their contexts, jobspecs and R are
 * borrowed from the instance until the job is finished.  Failing
 * functions fill error, set errno and change nothing.
 *
 * Threads: one thread at a time per instance.
 */
#ifndef RESPOL_INSTANCE_H
#define RESPOL_INSTANCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <respol/config.h>
#include <respol/context.h>
#include <respol/error.h>
#include <respol/jobspec.h>
#include <respol/rset.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rp_job_state {
    RP_JOB_PENDING = 1,
    RP_JOB_HELD = 2,
    RP_JOB_RUNNING = 3,
};

enum rp_job_event {
    RP_EVENT_ACCEPTED = 1,
    RP_EVENT_HELD = 2,
    RP_EVENT_RELEASED = 3,
    RP_EVENT_STARTED = 4,
    RP_EVENT_FINISHED = 5,
};

enum rp_usage_item {
    RP_USAGE_RUNNING_JOBS = 0,
    RP_USAGE_PENDING_JOBS = 1, /* held ones included */
    RP_USAGE_NODES = 2,        /* execution targets of running jobs */
    RP_USAGE_CORES = 3,
    RP_USAGE_GPUS = 4,
};

struct rp_instance;
struct rp_job;

/* --- the host side ------------------------------------------------------ */

/* cfg (may be NULL: no events) is borrowed. */
struct rp_instance *rp_instance_create (const struct rp_config *cfg);
/* Forgets every job without events.  Accepts NULL, keeps errno. */
void rp_instance_destroy (struct rp_instance *in);

/* A new pending job: its id (EEXIST when taken), its submission context
 * (copied; may be NULL: nothing known) and its jobspec (ownership taken;
 * may be NULL for a job known only by its R, such as one a scheduler
 * learns of in an RFC 27 hello, which it then starts at once).  Event
 * RP_EVENT_ACCEPTED. */
int rp_instance_submit (struct rp_instance *in, uint64_t id,
                        const struct rp_context *ctx, struct rp_jobspec *js,
                        rp_error_t *error);
/* Hold a pending job (or give a held one a new reason): event
 * RP_EVENT_HELD.  Release a held job: event RP_EVENT_RELEASED.  ENOENT
 * for an unknown job, EINVAL for a job in another state or an empty
 * reason. */
int rp_instance_hold (struct rp_instance *in, uint64_t id, const char *reason,
                      rp_error_t *error);
int rp_instance_release (struct rp_instance *in, uint64_t id,
                         rp_error_t *error);
/* A pending job starts with R (copied): event RP_EVENT_STARTED. */
int rp_instance_start (struct rp_instance *in, uint64_t id,
                       const struct rp_rset *R, rp_error_t *error);
/* The same with R taken, also on failure (rp_job_R reads it back): a
 * host that made R for the job (rp_matcher_allocate) pays no copy. */
int rp_instance_start_take (struct rp_instance *in, uint64_t id,
                            struct rp_rset *R, rp_error_t *error);
/* A running job now holds R (copied) after an RFC 27 partial release: its
 * usage follows.  No event. */
int rp_instance_update (struct rp_instance *in, uint64_t id,
                        const struct rp_rset *R, rp_error_t *error);
/* A job ends, running or not: event RP_EVENT_FINISHED, then it is
 * forgotten. */
int rp_instance_finish (struct rp_instance *in, uint64_t id,
                        rp_error_t *error);

/* --- reading (hosts and plugins) ----------------------------------------- */

/* The job, or NULL (errno ENOENT) when the instance does not know it. */
const struct rp_job *rp_instance_job (const struct rp_instance *in,
                                      uint64_t id);
/* Jobs in submission order. */
size_t rp_instance_njobs (const struct rp_instance *in);
const struct rp_job *rp_instance_first (const struct rp_instance *in);
const struct rp_job *rp_instance_next (const struct rp_job *j);

/* What a user (uid) or an account runs now: an enum rp_usage_item; 0 for
 * one with no job, or a bad argument.  O(1). */
uint64_t rp_instance_user_usage (const struct rp_instance *in, uint32_t uid,
                                 int item);
uint64_t rp_instance_account_usage (const struct rp_instance *in,
                                    const char *account, int item);

uint64_t rp_job_id (const struct rp_job *j);
int rp_job_state (const struct rp_job *j); /* enum rp_job_state */
const struct rp_context *rp_job_context (const struct rp_job *j);
/* NULL for a job submitted without one (rp_instance_submit). */
const struct rp_jobspec *rp_job_jobspec (const struct rp_job *j);
/* Running jobs only; NULL otherwise. */
const struct rp_rset *rp_job_R (const struct rp_job *j);
/* Held jobs only; NULL otherwise. */
const char *rp_job_hold_reason (const struct rp_job *j);
/* "pending", "held", "running"; NULL for another value. */
const char *rp_job_state_name (int state);
/* "accepted", "held", "released", "started", "finished"; NULL for
 * another value. */
const char *rp_job_event_name (int event);

#ifdef __cplusplus
}
#endif
#endif
