/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The submission context of a Flux job: see jobcontext.h. */
#include <stdio.h>

#include <jansson.h>

#include "jobcontext.h"

struct rp_context *flux_job_context (const struct rp_jobspec *js,
                                     uint32_t userid, uint64_t id,
                                     double t_submit)
{
    json_t *sys = rp_jobspec_system (js);
    const char *bank = json_string_value (json_object_get (sys, "bank"));
    const char *queue = json_string_value (json_object_get (sys, "queue"));
    struct rp_context *ctx = rp_context_create (RP_ORIGIN_FLUX);
    char uid[32];
    rp_error_t error;

    if (!ctx)
        return NULL;
    snprintf (uid, sizeof (uid), "%u", (unsigned int)userid);
    rp_context_set_jobid (ctx, id);
    if (rp_context_set_user (ctx, uid, &error) < 0
        || (bank && *bank && rp_context_set_account (ctx, bank) < 0)
        || (queue && *queue && rp_context_set_queue (ctx, queue) < 0)
        || (t_submit >= 0 && rp_context_set_submit_time (ctx, t_submit) < 0)) {
        rp_context_destroy (ctx);
        return NULL;
    }
    return ctx;
}
