/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The submission context: who submits a job, to which account and queue,
 * when, and through what.  Every validator and match-policy callback can
 * read it (rp_validation_context, rp_match_context in respol/plugin.h),
 * as Slurm's job_submit plugins read the submitting user and Flux's jobtap
 * plugins the job's userid.
 *
 * The host builds a context (rp_context_create and the setters) and hands
 * the stacks a const pointer: a plugin reads it and cannot change it.
 *
 * Fields and where the respol command takes them from:
 *   user     --user=NAME|UID, else the caller (effective uid): the uid,
 *            the name (from the password database; absent for a uid it
 *            does not know) and the group ids (primary first, then the
 *            supplementary groups the database lists for the user)
 *   account  --account=NAME, else the jobspec's attributes.system.bank
 *            (the name flux-accounting uses)
 *   queue    --queue=NAME, else the jobspec's attributes.system.queue, as
 *            submitted (a validator that amends the queue changes the
 *            jobspec, not the context)
 *   jobid, submit time   given by the host that numbers and queues jobs
 *   origin   what submitted: the command line, Flux, Slurm, the simulator
 * A field that was not given is absent: a string accessor returns NULL, a
 * number accessor returns false and leaves its output alone.
 *
 * Ownership: rp_context_create and rp_context_copy return a context the
 * caller must destroy; strings returned by accessors are borrowed from the
 * context.  Setters copy their arguments.  A context is not shared between
 * threads while it is being set.
 */
#ifndef RESPOL_CONTEXT_H
#define RESPOL_CONTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <respol/error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rp_origin {
    RP_ORIGIN_UNKNOWN = 0,
    RP_ORIGIN_COMMAND = 1,   /* a respol command */
    RP_ORIGIN_FLUX = 2,      /* a Flux instance (jobtap, scheduler module) */
    RP_ORIGIN_SLURM = 3,     /* Slurm */
    RP_ORIGIN_SIMULATOR = 4, /* respol simulate */
};

struct rp_context;

/* A context with every field absent and the given origin (an enum
 * rp_origin; EINVAL for another value).  Caller must destroy. */
struct rp_context *rp_context_create (int origin);
struct rp_context *rp_context_copy (const struct rp_context *c);
/* Accepts NULL, keeps errno. */
void rp_context_destroy (struct rp_context *c);

/* The user: a name, or a uid written in decimal digits.  The other half
 * and the groups come from the password and group databases; a uid they
 * do not know is allowed (name absent, no groups), a name they do not know
 * is not: -1 with ENOENT, "unknown user 'NAME'".  EINVAL for an empty
 * value, a signed number or one out of range ("-1", "4294967295"). */
int rp_context_set_user (struct rp_context *c, const char *user,
                         rp_error_t *error);
/* The user this process runs as (geteuid), as above. */
int rp_context_set_caller (struct rp_context *c, rp_error_t *error);
/* Account and queue: NULL makes the field absent again; an empty string
 * or one longer than RP_CONTEXT_NAME_MAX bytes is EINVAL.  -1 with ENOMEM
 * when the copy fails, the field unchanged. */
#define RP_CONTEXT_NAME_MAX 255
int rp_context_set_account (struct rp_context *c, const char *account);
int rp_context_set_queue (struct rp_context *c, const char *queue);
void rp_context_set_jobid (struct rp_context *c, uint64_t jobid);
/* Seconds since the epoch; EINVAL unless finite and >= 0. */
int rp_context_set_submit_time (struct rp_context *c, double t);

/* --- reading (plugins) ---------------------------------------------------
 * c may be NULL in every accessor: everything is then absent. */

bool rp_context_uid (const struct rp_context *c, uint32_t *uid);
const char *rp_context_user (const struct rp_context *c);
/* The group ids, primary first; 0 when the user is absent or unknown. */
size_t rp_context_ngroups (const struct rp_context *c);
bool rp_context_group (const struct rp_context *c, size_t i, uint32_t *gid);
/* Is gid among the user's groups? */
bool rp_context_in_group (const struct rp_context *c, uint32_t gid);
const char *rp_context_account (const struct rp_context *c);
const char *rp_context_queue (const struct rp_context *c);
bool rp_context_jobid (const struct rp_context *c, uint64_t *jobid);
bool rp_context_submit_time (const struct rp_context *c, double *t);
/* An enum rp_origin; RP_ORIGIN_UNKNOWN for NULL. */
int rp_context_origin (const struct rp_context *c);
/* "unknown", "command", "flux", "slurm", "simulator"; NULL for another
 * value. */
const char *rp_context_origin_name (int origin);

#ifdef __cplusplus
}
#endif
#endif
