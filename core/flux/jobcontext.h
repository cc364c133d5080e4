/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The submission context (respol/context.h) of a Flux job, as the jobtap
 * plugin and sched-respol both build it: origin flux, the user by uid
 * (the password database gives the name and groups), the account from
 * attributes.system.bank (flux-accounting's name for it), the queue from
 * attributes.system.queue, the job id and the submit time (when >= 0).
 */
#ifndef RESPOL_FLUX_JOBCONTEXT_H
#define RESPOL_FLUX_JOBCONTEXT_H

#include <stdint.h>

#include <respol/context.h>
#include <respol/jobspec.h>

/* NULL when the user or a name is refused (EINVAL, ENOENT) or ENOMEM.
 * Caller must destroy. */
struct rp_context *flux_job_context (const struct rp_jobspec *js,
                                     uint32_t userid, uint64_t id,
                                     double t_submit);

#endif
