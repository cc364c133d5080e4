/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "who-policy" (match): first fit, except that a job of the
 * user "daemon" is kept off rank 0 (a policy about who submits), and it
 * logs each job event at warning level ("event finished: job 2") and,
 * once per match, the context it reads ("match for user=daemon
 * account=- instance=yes"). */
#include <inttypes.h>
#include <string.h>

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

static int prune (struct rp_plugin *p, const struct rp_match *m,
                  rp_vertex_t v)
{
    const struct rp_context *c = rp_match_context (m);
    const struct rp_graph *g = rp_match_graph (m);
    const char *user = rp_context_user (c);

    if (rp_graph_vertex_rank (g, v) == 0
        && !strcmp (rp_graph_vertex_type (g, v), "node"))
        svc->log (p, RP_LOG_WARNING, "match for user=%s account=%s instance=%s",
                  user ? user : "-",
                  rp_context_account (c) ? rp_context_account (c) : "-",
                  rp_match_instance (m) ? "yes" : "no");
    if (user && !strcmp (user, "daemon") && rp_graph_vertex_rank (g, v) == 0)
        return RP_WALK_SKIP;
    return RP_WALK_CONTINUE;
}

static int job_event (struct rp_plugin *p, int event, const struct rp_job *j)
{
    svc->log (p, RP_LOG_WARNING, "event %s: job %" PRIu64,
              rp_job_event_name (event), rp_job_id (j));
    return 0;
}

static const struct rp_match_ops ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_LOW,
    .stop_after = 1,
    .prune = prune,
    .job_event = job_event,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_MATCH,
    .name = "who-policy",
    .description = "keeps user daemon off rank 0, logs events (test "
                   "fixture)",
    .version = "1.0",
    .init = init,
    .ops = &ops,
};
