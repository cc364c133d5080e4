/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of the instance (api/respol/instance.h): job states, usage
 * per user and account (tables, then a randomized run against a plain
 * model), events delivered to plugins, and the validator stack's holds
 * (rp_config_validate_job) with the context and instance it passes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/config.h>
#include <respol/context.h>
#include <respol/instance.h>
#include <respol/rset.h>

#include "core/test/allocs.h"
#include "core/test/fixtures.h"
#include "t/tap/tap.h"

static char cfgpath[PATH_MAX];

static struct rp_jobspec *job (void)
{
    static const char text[] =
        "version: 1\n"
        "resources:\n"
        "  - {type: slot, count: 1, label: task,\n"
        "     with: [{type: core, count: 1}]}\n"
        "tasks: [{command: [app], slot: task, count: {per_slot: 1}}]\n"
        "attributes: {system: {duration: 60, queue: batch}}\n";
    struct rp_jobspec *js =
        rp_jobspec_load (text, sizeof (text) - 1, "job.yaml", 0, NULL);
    if (!js)
        BAIL_OUT ("cannot load the test jobspec");
    return js;
}

/* R of ntargets targets with ncores cores and ngpus GPUs each. */
static struct rp_rset *R_of (unsigned ntargets, unsigned ncores,
                             unsigned ngpus)
{
    char text[512], gpus[32] = "";
    struct rp_rset *R;

    if (ngpus)
        snprintf (gpus, sizeof (gpus), ",\"gpu\":\"0-%u\"", ngpus - 1);
    snprintf (text, sizeof (text),
              "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-%u\","
              "\"children\":{\"core\":\"0-%u\"%s}}],\"nodelist\":"
              "[\"n[0-%u]\"],\"starttime\":0,\"expiration\":0}}",
              ntargets - 1, ncores - 1, gpus, ntargets - 1);
    if (!(R = rp_rset_decode (text, NULL)))
        BAIL_OUT ("bad test R %s", text);
    return R;
}

static struct rp_context *ctx_of (const char *user, const char *account)
{
    struct rp_context *c = rp_context_create (RP_ORIGIN_COMMAND);
    if (!c || (user && rp_context_set_user (c, user, NULL) < 0)
        || rp_context_set_account (c, account) < 0)
        BAIL_OUT ("cannot make a context");
    return c;
}

static uint64_t uu (const struct rp_instance *in, uint32_t uid, int item)
{
    return rp_instance_user_usage (in, uid, item);
}

/* --- states ------------------------------------------------------------- */

static void test_states (void)
{
    struct rp_instance *in = rp_instance_create (NULL);
    struct rp_context *c = ctx_of ("daemon", "physics");
    struct rp_rset *R = R_of (2, 4, 1);
    rp_error_t error;
    const struct rp_job *j;

    ok (in && rp_instance_njobs (in) == 0 && !rp_instance_first (in),
        "a new instance has no job");
    ok (rp_instance_submit (in, 5, c, job (), &error) == 0, "submit job 5");
    j = rp_instance_job (in, 5);
    ok (j && rp_job_id (j) == 5 && rp_job_state (j) == RP_JOB_PENDING,
        "job 5 is pending");
    ok (rp_job_R (j) == NULL && rp_job_hold_reason (j) == NULL,
        "a pending job has no R and no hold reason");
    is (rp_context_user (rp_job_context (j)), "daemon",
        "the job keeps a copy of its context");
    ok (rp_job_jobspec (j) != NULL, "and its jobspec");
    cmp_ok (uu (in, 1, RP_USAGE_PENDING_JOBS), ==, 1, "daemon: 1 pending");
    cmp_ok (rp_instance_account_usage (in, "physics", RP_USAGE_PENDING_JOBS),
            ==, 1, "physics: 1 pending");

    errno = 0;
    ok (rp_instance_submit (in, 5, c, job (), &error) < 0 && errno == EEXIST,
        "submit: a taken id fails with EEXIST");
    is (error.text, "job 5 exists", "message");
    errno = 0;
    ok (rp_instance_hold (in, 5, "", &error) < 0 && errno == EINVAL,
        "hold: an empty reason fails with EINVAL");
    is (error.text, "a hold needs a reason", "message");
    ok (rp_instance_hold (in, 5, "wait", &error) == 0
            && rp_job_state (j) == RP_JOB_HELD
            && !strcmp (rp_job_hold_reason (j), "wait"),
        "hold: held with its reason");
    ok (rp_instance_hold (in, 5, "wait more", &error) == 0
            && !strcmp (rp_job_hold_reason (j), "wait more"),
        "hold again: the reason changes");
    cmp_ok (uu (in, 1, RP_USAGE_PENDING_JOBS), ==, 1,
            "a held job counts as pending");
    errno = 0;
    ok (rp_instance_start (in, 5, R, &error) < 0 && errno == EINVAL,
        "start: a held job fails with EINVAL");
    is (error.text, "job 5 is held", "message");
    ok (rp_instance_release (in, 5, &error) == 0
            && rp_job_state (j) == RP_JOB_PENDING,
        "release: pending again");
    errno = 0;
    ok (rp_instance_release (in, 5, &error) < 0 && errno == EINVAL,
        "release: a pending job fails with EINVAL");
    ok (rp_instance_start (in, 5, R, &error) == 0
            && rp_job_state (j) == RP_JOB_RUNNING && rp_job_R (j)
            && rp_rset_equal (rp_job_R (j), R),
        "start: running with a copy of R");
    cmp_ok (uu (in, 1, RP_USAGE_PENDING_JOBS), ==, 0, "daemon: 0 pending");
    cmp_ok (uu (in, 1, RP_USAGE_RUNNING_JOBS), ==, 1, "daemon: 1 running");
    cmp_ok (uu (in, 1, RP_USAGE_NODES), ==, 2, "daemon: 2 nodes");
    cmp_ok (uu (in, 1, RP_USAGE_CORES), ==, 8, "daemon: 8 cores");
    cmp_ok (uu (in, 1, RP_USAGE_GPUS), ==, 2, "daemon: 2 GPUs");
    cmp_ok (rp_instance_account_usage (in, "physics", RP_USAGE_CORES), ==, 8,
            "physics: 8 cores");
    rp_rset_destroy (R);
    R = R_of (1, 2, 0);
    ok (rp_instance_update (in, 5, R, &error) == 0
            && uu (in, 1, RP_USAGE_NODES) == 1
            && uu (in, 1, RP_USAGE_CORES) == 2
            && uu (in, 1, RP_USAGE_GPUS) == 0,
        "update (partial release): usage follows R");
    errno = 0;
    ok (rp_instance_hold (in, 5, "no", &error) < 0 && errno == EINVAL,
        "hold: a running job fails with EINVAL");
    errno = 0;
    ok (rp_instance_finish (in, 6, &error) < 0 && errno == ENOENT,
        "finish: an unknown job fails with ENOENT");
    is (error.text, "job 6: no such job", "message");
    errno = 0;
    ok (rp_instance_job (in, 6) == NULL && errno == ENOENT,
        "job: an unknown id gives NULL, ENOENT");
    ok (rp_instance_finish (in, 5, &error) == 0 && !rp_instance_job (in, 5)
            && rp_instance_njobs (in) == 0,
        "finish: the job is forgotten");
    for (int i = 0; i < 5; i++)
        cmp_ok (uu (in, 1, i), ==, 0, "daemon: usage item %d back to 0", i);
    cmp_ok (uu (in, 1, 5), ==, 0, "an unknown usage item is 0");
    cmp_ok (rp_instance_account_usage (in, NULL, 0), ==, 0,
            "account NULL is 0");

    /* Submission order, and a job with no uid nor account. */
    for (uint64_t id = 10; id > 7; id--)
        rp_instance_submit (in, id, NULL, job (), NULL);
    j = rp_instance_first (in);
    ok (j && rp_job_id (j) == 10 && rp_job_id (rp_instance_next (j)) == 9
            && rp_job_id (rp_instance_next (rp_instance_next (j))) == 8
            && !rp_instance_next (rp_instance_next (rp_instance_next (j))),
        "jobs are listed in submission order");
    rp_instance_finish (in, 9, NULL);
    j = rp_instance_first (in);
    ok (rp_job_id (j) == 10 && rp_job_id (rp_instance_next (j)) == 8,
        "finishing one in the middle keeps the order");
    ok (rp_context_origin (rp_job_context (j)) == RP_ORIGIN_UNKNOWN
            && !rp_context_uid (rp_job_context (j), NULL),
        "a job submitted without context has an empty one");
    ok (rp_instance_submit (in, 1, NULL, NULL, &error) == 0
            && rp_job_jobspec (rp_instance_job (in, 1)) == NULL,
        "submit: a job without jobspec (known by its R alone)");
    errno = 0;
    ok (rp_instance_submit (NULL, 2, NULL, job (), &error) < 0
            && errno == EINVAL,
        "submit: no instance fails with EINVAL");
    is (rp_job_state_name (RP_JOB_HELD), "held", "state name held");
    ok (rp_job_state_name (0) == NULL, "state 0 has no name");
    is (rp_job_event_name (RP_EVENT_FINISHED), "finished",
        "event name finished");
    ok (rp_job_event_name (6) == NULL, "event 6 has no name");
    rp_rset_destroy (R);
    rp_context_destroy (c);
    rp_instance_destroy (in);
}

/* --- usage against a model ---------------------------------------------- */

#define RJOBS 64
#define RUSERS 4
#define RSTEPS 20000

struct mjob {
    int state; /* 0: none */
    int user;  /* -1: no uid */
    int account; /* -1: none */
    unsigned nodes, cores, gpus;
};

static void test_random_usage (void)
{
    static const char *const accounts[] = { "a0", "a1" };
    struct rp_instance *in = rp_instance_create (NULL);
    struct mjob m[RJOBS] = { { 0 } };
    struct rp_context *ctx[RUSERS + 1][3];
    unsigned long seed = 12345;
    size_t mismatches = 0;
    char uid[16];

    for (int u = 0; u <= RUSERS; u++)
        for (int a = 0; a < 3; a++) {
            ctx[u][a] = rp_context_create (RP_ORIGIN_SIMULATOR);
            snprintf (uid, sizeof (uid), "%d", 3000000 + u);
            if (u < RUSERS)
                rp_context_set_user (ctx[u][a], uid, NULL);
            if (a < 2)
                rp_context_set_account (ctx[u][a], accounts[a]);
        }
    for (int step = 0; step < RSTEPS; step++) {
        int id, op;
        struct mjob *j;
        seed = seed * 6364136223846793005UL + 1442695040888963407UL;
        id = (int)((seed >> 33) % RJOBS);
        op = (int)((seed >> 20) % 5);
        j = &m[id];
        if (!j->state) {
            int u = (int)((seed >> 40) % (RUSERS + 1));
            int a = (int)((seed >> 45) % 3);
            if (rp_instance_submit (in, (uint64_t)id, ctx[u][a], job (), NULL)
                < 0)
                BAIL_OUT ("submit failed");
            *j = (struct mjob){ RP_JOB_PENDING, u < RUSERS ? u : -1,
                                a < 2 ? a : -1, 0, 0, 0 };
        } else if (op == 0 && j->state != RP_JOB_RUNNING) {
            rp_instance_hold (in, (uint64_t)id, "r", NULL);
            j->state = RP_JOB_HELD;
        } else if (op == 1 && j->state == RP_JOB_HELD) {
            rp_instance_release (in, (uint64_t)id, NULL);
            j->state = RP_JOB_PENDING;
        } else if (op == 2 && j->state != RP_JOB_HELD) {
            unsigned n = 1 + (unsigned)((seed >> 50) % 3);
            unsigned c = 1 + (unsigned)((seed >> 52) % 8);
            unsigned g = (unsigned)((seed >> 56) % 3);
            struct rp_rset *R = R_of (n, c, g);
            if ((j->state == RP_JOB_PENDING
                     ? rp_instance_start (in, (uint64_t)id, R, NULL)
                     : rp_instance_update (in, (uint64_t)id, R, NULL))
                < 0)
                BAIL_OUT ("start/update failed");
            rp_rset_destroy (R);
            *j = (struct mjob){ RP_JOB_RUNNING, j->user, j->account, n,
                                n * c, n * g };
        } else if (op >= 3) {
            rp_instance_finish (in, (uint64_t)id, NULL);
            j->state = 0;
        }
        /* Compare every user's and account's usage with the model. */
        for (int k = 0; k < RUSERS + 2; k++) {
            uint64_t want[5] = { 0 };
            for (int i = 0; i < RJOBS; i++) {
                const struct mjob *x = &m[i];
                bool mine = k < RUSERS ? x->user == k : x->account == k - RUSERS;
                if (!x->state || !mine)
                    continue;
                if (x->state == RP_JOB_RUNNING) {
                    want[RP_USAGE_RUNNING_JOBS]++;
                    want[RP_USAGE_NODES] += x->nodes;
                    want[RP_USAGE_CORES] += x->cores;
                    want[RP_USAGE_GPUS] += x->gpus;
                } else
                    want[RP_USAGE_PENDING_JOBS]++;
            }
            for (int item = 0; item < 5; item++) {
                uint64_t got = k < RUSERS
                                   ? uu (in, 3000000 + (uint32_t)k, item)
                                   : rp_instance_account_usage (
                                       in, accounts[k - RUSERS], item);
                if (got != want[item] && mismatches++ < 5)
                    diag ("step %d, %s %d, item %d: %" PRIu64 " != %" PRIu64,
                          step, k < RUSERS ? "user" : "account", k, item, got,
                          want[item]);
            }
        }
    }
    cmp_ok (mismatches, ==, 0,
            "%d random steps: every user's and account's usage equals the "
            "model's",
            RSTEPS);
    for (int u = 0; u <= RUSERS; u++)
        for (int a = 0; a < 3; a++)
            rp_context_destroy (ctx[u][a]);
    rp_instance_destroy (in);
}

/* --- events and holds through a configuration ---------------------------- */

static char logbuf[8192];

static void capture (const char *instance, int level, const char *msg,
                     void *arg)
{
    size_t n = strlen (logbuf);
    (void)level;
    (void)arg;
    snprintf (logbuf + n, sizeof (logbuf) - n, "%s: %s\n", instance, msg);
}

static struct rp_config *load (const char *text)
{
    FILE *f = fopen (cfgpath, "w");
    struct rp_config *cfg;

    if (!f || fprintf (f, "allow-insecure-path: true\n%s", text) < 0
        || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", cfgpath);
    if (!(cfg = rp_config_load (cfgpath, 0, NULL)))
        BAIL_OUT ("cannot load %s", cfgpath);
    return cfg;
}

static void test_events (void)
{
    char text[2 * PATH_MAX];
    struct rp_config *cfg;
    struct rp_instance *in;
    struct rp_context *c = ctx_of ("daemon", NULL);
    struct rp_rset *R = R_of (1, 2, 0);

    snprintf (text, sizeof (text),
              "validate: [{plugin: %s/whoami.so}]\n"
              "match: [{plugin: %s/who-policy.so}]\n",
              fixdir, fixdir);
    cfg = load (text);
    rp_plugin_set_log (capture, NULL);
    in = rp_instance_create (cfg);
    logbuf[0] = '\0';
    rp_instance_submit (in, 1, c, job (), NULL);
    rp_instance_hold (in, 1, "wait", NULL);
    rp_instance_release (in, 1, NULL);
    rp_instance_start (in, 1, R, NULL);
    rp_instance_update (in, 1, R, NULL);
    rp_instance_finish (in, 1, NULL);
    is (logbuf,
        "whoami: event accepted: job 1 pending\n"
        "who-policy: event accepted: job 1\n"
        "whoami: event held: job 1 held\n"
        "who-policy: event held: job 1\n"
        "whoami: event released: job 1 pending\n"
        "who-policy: event released: job 1\n"
        "whoami: event started: job 1 running\n"
        "who-policy: event started: job 1\n"
        "whoami: event finished: job 1 running\n"
        "who-policy: event finished: job 1\n",
        "every change reaches every plugin with job_event, in stack order, "
        "after it is applied; update has none");
    logbuf[0] = '\0';
    rp_instance_destroy (in);
    is (logbuf, "", "destroying an instance sends no event");
    rp_plugin_set_log (NULL, NULL);
    rp_config_destroy (cfg);
    rp_context_destroy (c);
    rp_rset_destroy (R);
}

static void test_holds (void)
{
    char text[2 * PATH_MAX];
    struct rp_config *cfg;
    struct rp_instance *in = rp_instance_create (NULL);
    struct rp_context *c = ctx_of ("daemon", "physics");
    struct rp_jobspec *js = job (), *amended = NULL;
    struct rp_diags *d = rp_diags_create ();
    char *reason = NULL;
    int verdict;

    snprintf (text, sizeof (text),
              "validate:\n  - plugin: %s/whoami.so\n"
              "  - plugin: %s/hold-all.so\n"
              "  - plugin: %s/warn-all.so\n",
              fixdir, fixdir, fixdir);
    cfg = load (text);
    rp_context_set_jobid (c, 7);
    verdict = rp_config_validate_job (cfg, js, c, in, &amended, &reason, d);
    ok (verdict == RP_HOLD, "a hold is the stack's verdict");
    is (reason, "hold-all: held by hold-all (queue batch)",
        "with the instance and the reason");
    ok (amended && json_is_true (json_object_get (
                       rp_jobspec_system (amended), "held"))
            && !strcmp (rp_jobspec_queue (amended), "amended"),
        "the stack went on after the hold, and kept every amendment");
    ok (rp_diags_count (d) == 3
            && !strcmp (rp_diags_text (d, 0),
                        "whoami: user=daemon uid=1 groups=1 account=physics "
                        "queue=- jobid=7 origin=command instance=yes"),
        "the validators read the context and see the instance");
    free (reason);
    rp_jobspec_destroy (amended);
    rp_diags_clear (d);

    verdict = rp_config_validate_job (cfg, js, NULL, NULL, NULL, &reason, d);
    ok (verdict == RP_HOLD && rp_diags_count (d) == 3
            && !strcmp (rp_diags_text (d, 0),
                        "whoami: user=- uid=- groups=0 account=- queue=- "
                        "jobid=- origin=unknown instance=no"),
        "no context, no instance: all absent, and the plugin is told");
    free (reason);
    rp_diags_clear (d);

    verdict = rp_config_validate (cfg, js, NULL, d);
    ok (verdict == RP_WARN, "rp_config_validate reports a hold as RP_WARN");
    is (rp_diags_text (d, rp_diags_count (d) - 1),
        "held: hold-all: held by hold-all (queue batch)", "as a warning");
    rp_config_destroy (cfg);
    rp_diags_clear (d);

    snprintf (text, sizeof (text),
              "validate:\n  - plugin: %s/hold-all.so\n"
              "  - plugin: %s/reject-all.so\n",
              fixdir, fixdir);
    cfg = load (text);
    reason = NULL;
    amended = js;
    verdict = rp_config_validate_job (cfg, js, c, in, &amended, &reason, d);
    ok (verdict == RP_REJECT && amended == NULL,
        "a later rejection wins over a hold, and nothing is amended");
    ok (reason && !strncmp (reason, "reject-all: ", 12),
        "the reason is the rejection's: %s", reason ? reason : "(null)");
    free (reason);
    rp_config_destroy (cfg);
    rp_diags_destroy (d);
    rp_jobspec_destroy (js);
    rp_context_destroy (c);
    rp_instance_destroy (in);
}

/* rp_instance_start_take: R taken, on success and on failure (the leak
 * checks of the sanitizer builds see any R not freed). */
static void test_start_take (void)
{
    struct rp_instance *in = rp_instance_create (NULL);
    struct rp_context *c = ctx_of ("daemon", "physics");
    struct rp_rset *R = R_of (2, 4, 1);
    rp_error_t error;
    const struct rp_job *j;

    errno = 0;
    ok (rp_instance_start_take (in, 7, R_of (1, 1, 0), &error) < 0
            && errno == ENOENT,
        "start_take: an unknown job fails with ENOENT, R freed");
    ok (rp_instance_submit (in, 7, c, job (), &error) == 0
            && rp_instance_hold (in, 7, "wait", &error) == 0,
        "submit and hold job 7");
    errno = 0;
    ok (rp_instance_start_take (in, 7, R_of (1, 1, 0), &error) < 0
            && errno == EINVAL,
        "start_take: a held job fails with EINVAL, R freed");
    is (error.text, "job 7 is held", "message");
    ok (rp_instance_release (in, 7, &error) == 0, "release job 7");
    errno = 0;
    ok (rp_instance_start_take (in, 7, NULL, &error) < 0 && errno == EINVAL,
        "start_take: no R fails with EINVAL");
    j = rp_instance_job (in, 7);
    ok (rp_instance_start_take (in, 7, R, &error) == 0
            && rp_job_state (j) == RP_JOB_RUNNING && rp_job_R (j) == R,
        "start_take: running with R itself");
    cmp_ok (uu (in, 1, RP_USAGE_CORES), ==, 8, "daemon: 8 cores");
    rp_context_destroy (c);
    rp_instance_destroy (in);
}

/* Jobs by id: ids that share a home slot and runs that wrap around the
 * table, removed in an order that moves entries back over the holes;
 * every job is found after every removal, none removed is. */
static bool all_found (const struct rp_instance *in, const bool *live,
                       const uint64_t *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((rp_instance_job (in, ids[i]) != NULL) != live[i])
            return false;
    return rp_instance_job (in, 0) == NULL;
}

static void test_jobs_by_id (void)
{
    enum { N = 300 };
    struct rp_instance *in = rp_instance_create (NULL);
    struct rp_context *c = ctx_of ("daemon", NULL);
    uint64_t ids[N];
    bool live[N];
    bool ok_all = true;
    rp_error_t error;
    size_t n0;

    for (size_t i = 0; i < N; i++) {
        /* consecutive ids, multiples of 2^k, and ids near UINT64_MAX */
        ids[i] = i < 100   ? i + 1
                 : i < 200 ? (uint64_t)(i - 99) << 40
                           : UINT64_MAX - (i - 200);
        live[i] = rp_instance_submit (in, ids[i], c, job (), &error) == 0;
        ok_all &= live[i];
    }
    ok (ok_all && rp_instance_njobs (in) == N && all_found (in, live, ids, N),
        "test_jobs_by_id: %d jobs submitted, each found", N);
    ok_all = true;
    for (size_t k = 0; k < N; k++) {
        size_t i = (k * 7) % N; /* 7 is prime to 300: each once */
        ok_all &= rp_instance_finish (in, ids[i], &error) == 0;
        live[i] = false;
        ok_all &= all_found (in, live, ids, N)
                  && rp_instance_njobs (in) == N - k - 1;
    }
    ok (ok_all, "test_jobs_by_id: after each finish the others are found");
    ok (rp_instance_submit (in, 5, c, job (), &error) == 0
            && rp_instance_job (in, 5)
            && !rp_instance_next (rp_instance_first (in)),
        "test_jobs_by_id: an emptied instance takes a job again");
    if (!allocs_counted ())
        skip (1, "allocations are not counted here (sanitizer, valgrind)");
    else {
        struct rp_jobspec *js = job ();
        n0 = allocs ();
        ok (rp_instance_submit (in, 6, c, js, &error) == 0
                && allocs () - n0 == 1,
            "test_jobs_by_id: a submission allocates one block, its record "
            "with its context, nothing for its id");
    }
    rp_context_destroy (c);
    rp_instance_destroy (in);
}

/* A job finds its usage records when it is submitted and keeps them: a
 * transition allocates nothing, even for the only job of its user and
 * account, whose records its old state alone held up. */
static void test_usage_kept (void)
{
    struct rp_instance *in = rp_instance_create (NULL);
    struct rp_context *c = ctx_of ("daemon", "physics");
    struct rp_rset *R = R_of (1, 4, 0);
    rp_error_t error;
    bool counted = allocs_counted ();
    size_t n0;

    ok (rp_instance_submit (in, 1, c, job (), &error) == 0,
        "test_usage_kept: submit the only job of daemon and physics");
    n0 = allocs ();
    ok (rp_instance_start_take (in, 1, R, &error) == 0
            && (!counted || allocs () == n0),
        "test_usage_kept: started, nothing allocated");
    cmp_ok (uu (in, 1, RP_USAGE_PENDING_JOBS), ==, 0, "daemon: 0 pending");
    cmp_ok (uu (in, 1, RP_USAGE_CORES), ==, 4, "daemon: 4 cores");
    cmp_ok (rp_instance_account_usage (in, "physics", RP_USAGE_RUNNING_JOBS),
            ==, 1, "physics: 1 running");
    ok (rp_instance_finish (in, 1, &error) == 0
            && uu (in, 1, RP_USAGE_RUNNING_JOBS) == 0
            && rp_instance_account_usage (in, "physics", RP_USAGE_NODES) == 0,
        "test_usage_kept: finished, its usage gone");
    ok (rp_instance_submit (in, 2, c, job (), &error) == 0
            && uu (in, 1, RP_USAGE_PENDING_JOBS) == 1,
        "test_usage_kept: the next job of daemon counts from zero");
    rp_context_destroy (c);
    rp_instance_destroy (in);
}

int main (void)
{
    plan (NO_PLAN);
    fixtures_setup ("respol-test-instance");
    snprintf (cfgpath, sizeof (cfgpath), "%s/respol.yaml", tmpdir);
    test_states ();
    test_random_usage ();
    test_events ();
    test_holds ();
    test_start_take ();
    test_jobs_by_id ();
    test_usage_kept ();
    fixtures_cleanup ();
    return done_testing ();
}
