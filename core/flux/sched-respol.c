/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* sched-respol: a Flux scheduler module (RFC 27) whose matcher is
 * respol's (api/respol/match.h), with any match policy plugin, in place
 * of sched-simple or Fluxion.
 *
 *   flux module remove sched-simple
 *   flux module load LIBDIR/respol/flux/sched-respol.so [config=FILE]
 *       [policy=NAME] [queue-depth=N|unlimited]
 *
 * config: respol's configuration (default $RESPOL_CONFIG, else respol's
 * default): its match stack and its validate stack.  policy: a match
 * policy, the match stack's instance of that name or the plugin of that
 * name; without one, the match stack's first entry, else respol's
 * built-in first fit.  queue-depth: how many pending alloc requests the
 * job manager sends at a time, the jobs a pass considers (sched-simple's
 * 8 by default, as its limited mode).
 *
 * The protocol, through flux-core's schedutil library, in the order of
 * flux-core's own schedulers: register the sched service (schedutil does)
 * and the feasibility one, report the module running, acquire the resources
 * (RFC 28, resource.acquire: the first response builds the matcher with
 * rp_acquire_consumer_create, later ones apply up, down, shrink, property
 * changes and expiration), hello (RFC 27: every running job's R, less the
 * ranks already freed, held again: rp_acquire_consumer_hello; a job
 * whose R cannot be held gets a fatal exception from schedutil), then
 * ready.  After that:
 *   alloc       the job joins the queue (and respol's instance, with its
 *               submission context: uid, bank, queue, id, submit time)
 *   free        what R names is released (a partial release frees those
 *               ranks, RFC 27); the final one frees the rest
 *   cancel      a queued job leaves the queue, answered canceled
 *   prioritize  the queue is sorted again
 *   expiration  accepted (the matcher does not plan ahead)
 *   feasibility.check  respol's satisfiability on the whole set
 *   sched-respol.stats-get  the matcher's stat (rp_matcher_stat), which
 *               flux module stats sched-respol prints
 *
 * The pass, in the manner of sched-simple: jobs in priority order (then
 * submit time, then id), each validated again when the configuration has
 * validators (with the instance's jobs, so a user-limits hold holds: a
 * held job is passed over and annotated "held: ..."; a rejection denies
 * it), then matched.  A job placed is answered with its R; one that can
 * never run (ENODEV) is denied with the matcher's reason; the first one
 * that cannot run now (EBUSY) ends the pass, the jobs behind it wait (no
 * backfill, as sched-simple).  A policy that fails denies the job with
 * its message.  Passes run once the reactor has handled what is ready
 * (a prepare/check pair), so a burst of requests makes one pass.
 *
 * R as Flux receives it: respol's R without its "scheduling" key (what
 * R_lite cannot say stays in the matcher), so any scheduler that reloads
 * later reads it; a job without a duration expires with the resources
 * (sched-simple does the same).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flux/core.h>
#include <flux/schedutil.h>
#include <jansson.h>

#include <respol/acquire.h>
#include <respol/config.h>
#include <respol/context.h>
#include <respol/diag.h>
#include <respol/instance.h>
#include <respol/jobspec.h>
#include <respol/match.h>
#include <respol/rset.h>

#include "jobcontext.h"
#include "schedq.h"

struct sched {
    flux_t *h;
    schedutil_t *util;
    flux_msg_handler_t **handlers;
    flux_future_t *acquire;
    struct rp_config *cfg;
    const struct rp_plugin *policy; /* NULL: the built-in first fit */
    bool validate;                  /* the configuration has validators */
    struct rp_acquire_consumer *consumer;
    struct rp_matcher *m; /* the consumer's */
    struct rp_instance *inst;
    struct schedq *queue;
    char depth[32]; /* "limited=N" or "unlimited" */
    flux_watcher_t *prep, *check, *idle;
    bool pass_wanted;
};

/* --- module arguments ------------------------------------------------------
 */

struct args {
    const char *config;
    const char *policy;
    const char *depth;
};

static int parse_args (flux_t *h, int argc, char **argv, struct args *a)
{
    for (int i = 0; i < argc; i++) {
        if (!strncmp (argv[i], "config=", 7))
            a->config = argv[i] + 7;
        else if (!strncmp (argv[i], "policy=", 7))
            a->policy = argv[i] + 7;
        else if (!strncmp (argv[i], "queue-depth=", 12))
            a->depth = argv[i] + 12;
        else {
            flux_log (h, LOG_ERR,
                      "unknown argument '%s': the arguments are config=FILE, "
                      "policy=NAME, queue-depth=N|unlimited",
                      argv[i]);
            errno = EINVAL;
            return -1;
        }
    }
    return 0;
}

static int set_depth (struct sched *s, const char *arg)
{
    char *end;
    long n;

    if (!arg)
        arg = "8";
    if (!strcmp (arg, "unlimited")) {
        snprintf (s->depth, sizeof (s->depth), "unlimited");
        return 0;
    }
    errno = 0;
    n = strtol (arg, &end, 10);
    if (errno || end == arg || *end || n < 1 || n > 2147483647) {
        flux_log (s->h, LOG_ERR,
                  "queue-depth=%s: must be a number >= 1 or unlimited", arg);
        errno = EINVAL;
        return -1;
    }
    snprintf (s->depth, sizeof (s->depth), "limited=%ld", n);
    return 0;
}

/* The configuration, its policy, whether it validates. */
static int load_config (struct sched *s, const struct args *a)
{
    struct rp_diags *d = rp_diags_create ();
    const struct rp_stack *match;
    rp_error_t error;

    if (!d)
        return -1;
    if (!(s->cfg = rp_config_load (a->config, 0, d))) {
        /* The diagnostics name the file; without any, errno says why. */
        if (rp_diags_count (d) == 0)
            flux_log (s->h, LOG_ERR, "configuration %s: %s",
                      a->config ? a->config : rp_config_default_path (),
                      strerror (errno));
        for (size_t i = 0; i < rp_diags_count (d); i++)
            flux_log (s->h, LOG_ERR, "%s", rp_diags_text (d, i));
        rp_diags_destroy (d);
        errno = EINVAL;
        return -1;
    }
    rp_diags_destroy (d);
    match = rp_config_stack (s->cfg, RP_PLUGIN_MATCH);
    if ((a->policy || rp_stack_count (match) > 0)
        && !(s->policy = rp_config_policy (s->cfg, a->policy, &error))) {
        flux_log (s->h, LOG_ERR, "policy=%s: %s", a->policy, error.text);
        errno = EINVAL;
        return -1;
    }
    s->validate =
        rp_stack_count (rp_config_stack (s->cfg, RP_PLUGIN_VALIDATE)) > 0;
    return 0;
}

/* --- the pass --------------------------------------------------------------
 */

/* R for Flux: without the scheduling key, expiring with the resources
 * when the job has no duration.  Caller frees. */
static char *flux_R (struct sched *s, struct rp_rset *R)
{
    double res_exp =
        rp_rset_expiration (rp_acquire_consumer_resources (s->consumer));
    rp_error_t error;

    if (rp_rset_set_scheduling (R, NULL) < 0)
        return NULL;
    if (rp_rset_expiration (R) == 0 && res_exp > rp_rset_starttime (R)
        && rp_rset_set_times (R, rp_rset_starttime (R), res_exp, &error) < 0)
        return NULL;
    return rp_rset_encode (R, 0);
}

static void finish (struct sched *s, struct schedq_job *j)
{
    rp_instance_finish (s->inst, j->id, NULL);
    schedq_remove (s->queue, j);
}

static void deny (struct sched *s, struct schedq_job *j, const char *note)
{
    if (schedutil_alloc_respond_deny (s->util, j->msg, note) < 0)
        flux_log_error (s->h, "alloc deny %ju", (uintmax_t)j->id);
    finish (s, j);
}

/* Answer j with R: the instance hears of it. */
static void grant (struct sched *s, struct schedq_job *j, struct rp_rset *R)
{
    char *text = flux_R (s, R);
    rp_error_t error;

    if (!text || rp_instance_start (s->inst, j->id, R, &error) < 0
        || schedutil_alloc_respond_success_pack (s->util, j->msg, text, NULL)
               < 0)
        flux_log_error (s->h, "alloc %ju: cannot answer", (uintmax_t)j->id);
    free (text);
    schedq_remove (s->queue, j);
}

/* Validate j again: 0 to go on, 1 when it was held or denied here. */
static int revalidate (struct sched *s, struct schedq_job *j,
                       const struct rp_job *rj)
{
    struct rp_jobspec *amended = NULL;
    struct rp_diags *d = rp_diags_create ();
    char *reason = NULL;
    int verdict;

    verdict = rp_config_validate_job (s->cfg, rp_job_jobspec (rj),
                                      rp_job_context (rj), s->inst, &amended,
                                      &reason, d);
    rp_jobspec_destroy (amended); /* the job manager's plugin amends */
    if (verdict < 0) {
        char note[1024] = "respol: a validator failed";
        for (size_t i = rp_diags_count (d); i-- > 0;)
            if (rp_diags_severity (d, i) == RP_DIAG_ERROR)
                snprintf (note, sizeof (note), "respol: %s",
                          rp_diags_text (d, i));
        deny (s, j, note);
    } else if (verdict == RP_REJECT)
        deny (s, j, reason);
    rp_diags_destroy (d);
    if (verdict < 0 || verdict == RP_REJECT) {
        free (reason);
        return 1;
    }
    if (verdict == RP_HOLD) {
        if (!j->hold || strcmp (j->hold, reason) != 0) {
            free (j->hold);
            j->hold = reason;
            reason = NULL;
            rp_instance_hold (s->inst, j->id, j->hold, NULL);
            schedutil_alloc_respond_annotate_pack (
                s->util, j->msg, "{s:{s:s+}}", "sched", "reason_pending",
                "held: ", j->hold);
        }
        free (reason);
        return 1;
    }
    if (j->hold) {
        rp_instance_release (s->inst, j->id, NULL);
        free (j->hold);
        j->hold = NULL;
    }
    return 0;
}

/* Place j: false when the pass stops here. */
static bool place (struct sched *s, struct schedq_job *j)
{
    const struct rp_job *rj = rp_instance_job (s->inst, j->id);
    struct rp_rset *R;
    rp_error_t error;

    if (!rj) {
        deny (s, j, "respol: the job is not in the instance");
        return true;
    }
    if (s->validate && revalidate (s, j, rj))
        return true;
    rp_matcher_set_context (s->m, rp_job_context (rj));
    R = rp_matcher_allocate (s->m, j->id, rp_job_jobspec (rj),
                             flux_reactor_now (flux_get_reactor (s->h)),
                             &error);
    rp_matcher_set_context (s->m, NULL);
    if (R) {
        grant (s, j, R);
        rp_rset_destroy (R);
        return true;
    }
    if (errno == EBUSY)
        return false;
    deny (s, j, error.text);
    return true;
}

static void pass (struct sched *s)
{
    struct schedq_job *j = schedq_first (s->queue), *next;

    for (; j; j = next) {
        next = j->next;
        if (!place (s, j))
            break;
    }
}

/* Once the reactor has handled what is ready. */
static void want_pass (struct sched *s)
{
    if (s->pass_wanted || schedq_count (s->queue) == 0)
        return;
    s->pass_wanted = true;
    flux_watcher_start (s->prep);
    flux_watcher_start (s->check);
}

static void prep_cb (flux_reactor_t *r, flux_watcher_t *w, int revents,
                     void *arg)
{
    struct sched *s = arg;

    if (s->pass_wanted)
        flux_watcher_start (s->idle); /* the reactor must not block */
}

static void check_cb (flux_reactor_t *r, flux_watcher_t *w, int revents,
                      void *arg)
{
    struct sched *s = arg;

    flux_watcher_stop (s->idle);
    flux_watcher_stop (s->prep);
    flux_watcher_stop (s->check);
    if (s->pass_wanted) {
        s->pass_wanted = false;
        pass (s);
    }
}

/* --- RFC 27 requests -------------------------------------------------------
 */

/* The jobspec of a request, as the matcher reads it (RFC 14). */
static struct rp_jobspec *jobspec_of (json_t *o, char *why, size_t size)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js;

    if (!d) {
        snprintf (why, size, "respol: out of memory");
        return NULL;
    }
    if (!(js = rp_jobspec_from_json (o, "jobspec", RP_JOBSPEC_CANONICAL, d)))
        snprintf (why, size, "respol: %s",
                  rp_diags_count (d) ? rp_diags_text (d, 0) : "bad jobspec");
    rp_diags_destroy (d);
    return js;
}

static void alloc_cb (flux_t *h, const flux_msg_t *msg, void *arg)
{
    struct sched *s = arg;
    flux_jobid_t id;
    int priority, userid;
    double t_submit;
    json_t *o;
    struct rp_jobspec *js;
    struct rp_context *ctx = NULL;
    struct schedq_job *j;
    char why[512];
    rp_error_t error;

    if (flux_request_unpack (msg, NULL, "{s:I s:i s:i s:f s:o}", "id", &id,
                             "priority", &priority, "userid", &userid,
                             "t_submit", &t_submit, "jobspec", &o)
        < 0) {
        flux_log_error (h, "alloc: bad request");
        return;
    }
    if (!(js = jobspec_of (o, why, sizeof (why)))
        || !(ctx = flux_job_context (js, (uint32_t)userid, id, t_submit))) {
        if (js)
            snprintf (why, sizeof (why), "respol: no context for user %d",
                      userid);
        rp_jobspec_destroy (js);
        schedutil_alloc_respond_deny (s->util, msg, why);
        return;
    }
    if (rp_instance_submit (s->inst, id, ctx, js, &error) < 0) {
        snprintf (why, sizeof (why), "respol: %s", error.text);
        schedutil_alloc_respond_deny (s->util, msg, why);
    } else if (!(j = schedq_add (s->queue, id, (unsigned int)priority,
                                 (uint32_t)userid, t_submit, msg))) {
        rp_instance_finish (s->inst, id, NULL);
        schedutil_alloc_respond_deny (s->util, msg, "respol: out of memory");
    }
    rp_context_destroy (ctx);
    want_pass (s);
}

/* The ranks of R that job id holds, released; all of it when final. */
static void free_cb (flux_t *h, const flux_msg_t *msg, const char *Rstr,
                     void *arg)
{
    struct sched *s = arg;
    flux_jobid_t id;
    json_t *o;
    int final = 0;
    struct rp_rset *R = NULL;
    const struct rp_rset *held;
    rp_error_t error;

    (void)Rstr;
    if (flux_request_unpack (msg, NULL, "{s:I s:o s?b}", "id", &id, "R", &o,
                             "final", &final)
            < 0
        || !(R = rp_rset_from_json (o, &error))) {
        flux_log_error (h, "free: bad request");
        return;
    }
    if (!final && rp_matcher_release (s->m, id, rp_rset_ranks (R), &error) < 0)
        flux_log (h, LOG_ERR, "free %ju: %s", (uintmax_t)id, error.text);
    else if (final && rp_matcher_job_rset (s->m, id)
             && rp_matcher_free (s->m, id, &error) < 0)
        flux_log (h, LOG_ERR, "free %ju: %s", (uintmax_t)id, error.text);
    if (!(held = rp_matcher_job_rset (s->m, id)))
        rp_instance_finish (s->inst, id, NULL);
    else
        rp_instance_update (s->inst, id, held, NULL);
    rp_rset_destroy (R);
    want_pass (s);
}

static void cancel_cb (flux_t *h, const flux_msg_t *msg, void *arg)
{
    struct sched *s = arg;
    struct schedq_job *j;
    flux_jobid_t id;

    if (flux_request_unpack (msg, NULL, "{s:I}", "id", &id) < 0) {
        flux_log_error (h, "cancel: bad request");
        return;
    }
    if (!(j = schedq_find (s->queue, id)))
        return;
    if (schedutil_alloc_respond_cancel (s->util, j->msg) < 0)
        flux_log_error (h, "cancel %ju", (uintmax_t)id);
    finish (s, j);
    want_pass (s);
}

static void prioritize_cb (flux_t *h, const flux_msg_t *msg, void *arg)
{
    struct sched *s = arg;
    json_t *jobs, *entry;
    size_t i;

    if (flux_request_unpack (msg, NULL, "{s:o}", "jobs", &jobs) < 0) {
        flux_log_error (h, "prioritize: bad request");
        return;
    }
    json_array_foreach (jobs, i, entry) {
        flux_jobid_t id;
        int priority;
        struct schedq_job *j;
        if (json_unpack (entry, "[I i]", &id, &priority) == 0
            && (j = schedq_find (s->queue, id)))
            schedq_set_priority (j, (unsigned int)priority);
    }
    schedq_sort (s->queue);
    want_pass (s);
}

/* Hello: a running job's R (less what is freed) held again. */
static int hello_cb (flux_t *h, const flux_msg_t *msg, const char *Rstr,
                     void *arg)
{
    struct sched *s = arg;
    flux_jobid_t id;
    struct rp_rset *R;
    rp_error_t error;
    int rc = -1;

    if (flux_msg_unpack (msg, "{s:I}", "id", &id) < 0)
        return -1;
    if (!(R = rp_rset_decode (Rstr, &error))
        || rp_acquire_consumer_hello (s->consumer, id, R, NULL, &error) < 0)
        flux_log (h, LOG_ERR, "hello %ju: %s", (uintmax_t)id, error.text);
    else if (rp_instance_submit (s->inst, id, NULL, NULL, &error) < 0
             || rp_instance_start (s->inst, id, rp_matcher_job_rset (s->m, id),
                                   &error)
                    < 0)
        flux_log (h, LOG_ERR, "hello %ju: %s", (uintmax_t)id, error.text);
    else
        rc = 0;
    rp_rset_destroy (R);
    return rc;
}

static const struct schedutil_ops ops = {
    .hello = hello_cb,
    .alloc = alloc_cb,
    .free = free_cb,
    .cancel = cancel_cb,
    .prioritize = prioritize_cb,
};

/* --- other services --------------------------------------------------------
 */

static void expiration_cb (flux_t *h, flux_msg_handler_t *mh,
                           const flux_msg_t *msg, void *arg)
{
    flux_jobid_t id;
    double expiration;

    if (flux_request_unpack (msg, NULL, "{s:I s:f}", "id", &id, "expiration",
                             &expiration)
            < 0
        || expiration < 0) {
        if (flux_respond_error (h, msg, EPROTO, "bad expiration request") < 0)
            flux_log_error (h, "sched.expiration");
        return;
    }
    if (flux_respond (h, msg, NULL) < 0)
        flux_log_error (h, "sched.expiration");
}

static void feasibility_cb (flux_t *h, flux_msg_handler_t *mh,
                            const flux_msg_t *msg, void *arg)
{
    struct sched *s = arg;
    json_t *o;
    struct rp_jobspec *js = NULL;
    char why[512];
    rp_error_t error;
    int rc;

    if (flux_request_unpack (msg, NULL, "{s:o}", "jobspec", &o) < 0)
        rc = flux_respond_error (h, msg, EPROTO, "no jobspec");
    else if (!(js = jobspec_of (o, why, sizeof (why))))
        rc = flux_respond_error (h, msg, EINVAL, why);
    else if (rp_matcher_satisfiability (s->m, js, &error) < 0)
        rc = flux_respond_error (h, msg, EOVERFLOW, error.text);
    else
        rc = flux_respond (h, msg, NULL);
    if (rc < 0)
        flux_log_error (h, "feasibility.check");
    rp_jobspec_destroy (js);
}

static void stat_cb (flux_t *h, flux_msg_handler_t *mh, const flux_msg_t *msg,
                     void *arg)
{
    struct sched *s = arg;
    json_t *o = rp_matcher_stat (s->m);

    if (!o || flux_respond_pack (h, msg, "O", o) < 0)
        flux_log_error (h, "sched-respol.stats-get");
    json_decref (o);
}

static const struct flux_msg_handler_spec htab[] = {
    { FLUX_MSGTYPE_REQUEST, "sched.expiration", expiration_cb, 0 },
    { FLUX_MSGTYPE_REQUEST, "feasibility.check", feasibility_cb, 0 },
    { FLUX_MSGTYPE_REQUEST, "sched-respol.stats-get", stat_cb, 0 },
    FLUX_MSGHANDLER_TABLE_END,
};

/* --- RFC 28 acquisition ----------------------------------------------------
 */

static json_t *response_of (flux_future_t *f)
{
    const char *s;

    if (flux_rpc_get (f, &s) < 0 || !s)
        return NULL;
    return json_loads (s, 0, NULL);
}

static void acquire_cb (flux_future_t *f, void *arg)
{
    struct sched *s = arg;
    json_t *o = response_of (f);
    rp_error_t error;

    if (!o) {
        /* The resource module is going away (ECANCELED at shutdown): the
         * scheduler ends too, as flux-core's do. */
        flux_log (s->h, errno == ECANCELED ? LOG_DEBUG : LOG_ERR,
                  "resource.acquire: %s: exiting", future_strerror (f, errno));
        flux_reactor_stop (flux_get_reactor (s->h));
        return;
    }
    if (rp_acquire_consumer_apply (s->consumer, o, &error) < 0)
        flux_log (s->h, LOG_ERR, "resource.acquire: %s", error.text);
    json_decref (o);
    flux_future_reset (f);
    want_pass (s);
}

static int acquire (struct sched *s)
{
    json_t *o;
    rp_error_t error;

    if (!(s->acquire = flux_rpc (s->h, "resource.acquire", NULL,
                                 FLUX_NODEID_ANY, FLUX_RPC_STREAMING))
        || !(o = response_of (s->acquire))) {
        flux_log_error (s->h, "resource.acquire");
        return -1;
    }
    s->consumer = rp_acquire_consumer_create (o, &error);
    json_decref (o);
    if (!s->consumer) {
        flux_log (s->h, LOG_ERR, "resource.acquire: %s", error.text);
        errno = EINVAL;
        return -1;
    }
    s->m = rp_acquire_consumer_matcher (s->consumer);
    rp_matcher_set_instance (s->m, s->inst);
    if (rp_matcher_set_policy (s->m, s->policy, &error) < 0) {
        flux_log (s->h, LOG_ERR, "policy: %s", error.text);
        errno = EINVAL;
        return -1;
    }
    flux_future_reset (s->acquire);
    return flux_future_then (s->acquire, -1., acquire_cb, s);
}

/* --- the module ------------------------------------------------------------
 */

static void sched_destroy (struct sched *s)
{
    int saved_errno = errno;

    flux_watcher_destroy (s->prep);
    flux_watcher_destroy (s->check);
    flux_watcher_destroy (s->idle);
    flux_msg_handler_delvec (s->handlers);
    schedutil_destroy (s->util);
    flux_future_destroy (s->acquire);
    schedq_destroy (s->queue);
    rp_acquire_consumer_destroy (s->consumer);
    rp_instance_destroy (s->inst);
    rp_config_destroy (s->cfg);
    errno = saved_errno;
}

static int service_register (flux_t *h, const char *name)
{
    flux_future_t *f = flux_service_register (h, name);
    int rc = f ? flux_future_get (f, NULL) : -1;

    if (rc < 0)
        flux_log_error (h, "service %s", name);
    flux_future_destroy (f);
    return rc;
}

static int sched_init (struct sched *s, int argc, char **argv)
{
    flux_reactor_t *r = flux_get_reactor (s->h);
    struct args a = { 0 };

    if (parse_args (s->h, argc, argv, &a) < 0 || set_depth (s, a.depth) < 0
        || load_config (s, &a) < 0)
        return -1;
    if (!(s->inst = rp_instance_create (s->cfg))
        || !(s->queue = schedq_create ())
        || !(s->prep = flux_prepare_watcher_create (r, prep_cb, s))
        || !(s->check = flux_check_watcher_create (r, check_cb, s))
        || !(s->idle = flux_idle_watcher_create (r, NULL, NULL))
        || !(s->util =
                 schedutil_create (s->h, SCHEDUTIL_HELLO_PARTIAL_OK, &ops, s))
        || flux_msg_handler_addvec (s->h, htab, s, &s->handlers) < 0)
        return -1;
    /* schedutil_create registered the sched service. */
    if (service_register (s->h, "feasibility") < 0
        || flux_module_set_running (s->h) < 0 || acquire (s) < 0
        || schedutil_hello (s->util) < 0
        || schedutil_ready (s->util, s->depth, NULL) < 0)
        return -1;
    flux_log (s->h, LOG_DEBUG, "ready: policy %s, queue-depth %s",
              rp_matcher_policy_name (s->m), s->depth);
    return 0;
}

int mod_main (flux_t *h, int argc, char **argv)
{
    struct sched s = { .h = h };
    int rc = -1;

    if (sched_init (&s, argc, argv) == 0) {
        if ((rc = flux_reactor_run (flux_get_reactor (h), 0)) < 0)
            flux_log_error (h, "flux_reactor_run");
        else
            rc = 0;
    }
    sched_destroy (&s);
    return rc;
}
