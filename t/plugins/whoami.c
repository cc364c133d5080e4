/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "whoami" (validate): warns with the submission context
 * it sees ("user=alice uid=1000 groups=2 account=- queue=batch jobid=3
 * origin=command instance=yes") and logs every job event at warning level
 * ("event started: job 3 running"), so that tests read both on stderr. */
#include <inttypes.h>
#include <stdio.h>

#include <respol/context.h>
#include <respol/instance.h>
#include <respol/plugin.h>

static const struct rp_host_services *svc;

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    (void)p;
    svc = s;
    return 0;
}

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    const struct rp_context *c = rp_validation_context (v);
    char uid[16] = "-", jobid[24] = "-";
    uint32_t u;
    uint64_t id;

    (void)p;
    (void)js;
    if (rp_context_uid (c, &u))
        snprintf (uid, sizeof (uid), "%" PRIu32, u);
    if (rp_context_jobid (c, &id))
        snprintf (jobid, sizeof (jobid), "%" PRIu64, id);
    return rp_validation_warn (
        v, "user=%s uid=%s groups=%zu account=%s queue=%s jobid=%s origin=%s "
           "instance=%s",
        rp_context_user (c) ? rp_context_user (c) : "-", uid,
        rp_context_ngroups (c),
        rp_context_account (c) ? rp_context_account (c) : "-",
        rp_context_queue (c) ? rp_context_queue (c) : "-", jobid,
        rp_context_origin_name (rp_context_origin (c)),
        rp_validation_instance (v) ? "yes" : "no");
}

static int job_event (struct rp_plugin *p, int event, const struct rp_job *j)
{
    svc->log (p, RP_LOG_WARNING, "event %s: job %" PRIu64 " %s",
              rp_job_event_name (event), rp_job_id (j),
              rp_job_state_name (rp_job_state (j)));
    return 0;
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
    .job_event = job_event,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "whoami",
    .description = "warns with the submission context, logs job events "
                   "(test fixture)",
    .version = "1.0",
    .init = init,
    .ops = &ops,
};
