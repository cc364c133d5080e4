/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for the queue-policy host (core/queue.c) and
 * rp_config_queue_policy (core/config.c): what they do with bad
 * arguments, and a host's start that leaves a job reserved later than
 * promised (a host of this test, with the fixture policy).  A pass of
 * every shipped policy, and every other refusal of the host, is tested
 * through respol simulate (t/t0053-queue-plugins.t, t/t0052-simulate.t),
 * with the fixture policy t/plugins/queue-fixture.c
 * ($RESPOL_FIXTURE_PLUGINDIR).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/config.h"
#include "respol/queue.h"
#include "t/tap/tap.h"

static void test_services_without_a_pass (void)
{
    int64_t at = 7;

    ok (rp_queue_count (NULL) == 0 && rp_queue_now (NULL) == 0,
        "count and now of no pass: 0");
    ok (!rp_queue_job_pending (NULL, 0) && rp_queue_job_id (NULL, 0) == 0
            && rp_queue_job_size (NULL, 0) == 0
            && rp_queue_job_duration (NULL, 0) == 0
            && rp_queue_job_reserved (NULL, 0) == -1,
        "the job accessors of no pass: nothing");
    ok (!rp_queue_fits (NULL, 0), "fits of no pass: false");
    errno = 0;
    ok (rp_queue_start (NULL, 0) == -1 && errno == EINVAL,
        "start of no pass: EINVAL");
    errno = 0;
    ok (rp_queue_reserve (NULL, 0, &at) == -1 && errno == EINVAL && at == 7,
        "reserve of no pass: EINVAL, *at untouched");
    errno = 0;
    ok (rp_queue_cancel (NULL, 0) == -1 && errno == EINVAL,
        "cancel of no pass: EINVAL");
}

static void test_host_bad_arguments (void)
{
    struct rp_queue_host h = { 0 };
    rp_error_t error = { "" };
    int64_t prio = 5;

    errno = 0;
    ok (rp_queue_run (NULL, &h, &error) == -1 && errno == EINVAL,
        "run without a policy: EINVAL");
    is (error.text, "rp_queue_run: bad argument", "run: the message");
    errno = 0;
    ok (rp_queue_priority (NULL, NULL, &prio, &error) == -1 && errno == EINVAL,
        "priority without a policy: EINVAL");
    is (error.text, "rp_queue_priority: bad argument", "priority: the message");
    ok (!rp_queue_has_pass (NULL) && !rp_queue_has_priority (NULL)
            && rp_queue_flags (NULL) == 0,
        "no policy has no operation and no flag");
}

static void test_config_queue_policy (void)
{
    json_t *root = json_object ();
    json_t *notobj = json_integer (3);
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg =
        rp_config_load_json (root, "test", RP_CONFIG_NOLOAD, d);
    rp_error_t error = { "" };

    errno = 0;
    ok (rp_config_queue_policy (NULL, "fcfs", NULL, &error) == NULL
            && errno == EINVAL,
        "rp_config_queue_policy (NULL): EINVAL");
    ok (cfg != NULL, "an empty configuration, read without loading");
    errno = 0;
    ok (rp_config_queue_policy (cfg, "hybrid", notobj, &error) == NULL
            && errno == EINVAL,
        "a block that is not an object: EINVAL");
    errno = 0;
    ok (rp_config_queue_policy (cfg, NULL, NULL, &error) == NULL
            && errno == EINVAL,
        "no stack, no name: fcfs, which cannot load here");
    is (error.text,
        "queue policy 'fcfs': the configuration was read without loading "
        "plugins",
        "the message names fcfs");
    rp_config_destroy (cfg);
    rp_diags_destroy (d);
    json_decref (notobj);
    json_decref (root);
}

/* A host without a planner whose start finds no room and moves the
 * job's own reservation by shift seconds (a matcher's re-reservation). */
struct fake_host {
    int64_t shift;
    int starts, cancels;
};

static int fake_start (void *arg, size_t k, rp_error_t *error)
{
    struct fake_host *f = arg;

    (void)k;
    (void)error;
    f->starts++;
    return RP_QUEUE_NO_ROOM;
}

static int fake_cancel (void *arg, size_t k, rp_error_t *error)
{
    (void)k;
    (void)error;
    ((struct fake_host *)arg)->cancels++;
    return 0;
}

static struct rp_queue_job job1 = { .id = 1, .size = 1, .duration = 10 };
static struct fake_host *fake;

static int moving_start (void *arg, size_t k, rp_error_t *error)
{
    job1.reserved += fake->shift;
    return fake_start (arg, k, error);
}

/* The fixture policy in mode (it starts the head twice: "twice"; does
 * nothing: "idle") over one job reserved at initial by the host, whose
 * start moves it by shift; the pass at 10. */
static int pass_mode (const char *mode, int64_t initial, int64_t shift,
                      struct fake_host *f, rp_error_t *error)
{
    char path[4096];
    const char *dir = getenv ("RESPOL_FIXTURE_PLUGINDIR");
    json_t *root;
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    const struct rp_plugin *p;
    struct rp_queue_job *jobs[] = { &job1 };
    struct rp_queue_host h = { .jobs = jobs,
                               .count = 1,
                               .now = 10,
                               .start = moving_start,
                               .cancel = fake_cancel,
                               .arg = f };
    int rc = -2;

    snprintf (path, sizeof (path), "%s/queue-fixture.so", dir ? dir : ".");
    root = json_pack ("{s:[{s:s s:{s:s}}]}", "queue", "plugin", path, "config",
                      "mode", mode);
    cfg = rp_config_load_json (root, "test", 0, d);
    p = cfg ? rp_config_queue_policy (cfg, NULL, NULL, error) : NULL;
    *f = (struct fake_host){ .shift = shift };
    fake = f;
    job1.reserved = initial;
    job1.has_span = true;
    job1.pending = true;
    if (p)
        rc = rp_queue_run (p, &h, error);
    else if (!cfg)
        snprintf (error->text, sizeof (error->text), "%s",
                  rp_diags_count (d) ? "configuration refused" : "no config");
    rp_config_destroy (cfg);
    rp_diags_destroy (d);
    json_decref (root);
    return rc;
}

static void test_host_start_moves_reservation (void)
{
    struct fake_host f;
    rp_error_t error = { "" };

    if (!ok (pass_mode ("twice", 100, 0, &f, &error) == 0,
             "a start without room that keeps the reservation: the pass ends"))
        diag ("%s", error.text);
    ok (f.starts == 2 && f.cancels == 0 && job1.reserved == 100,
        "both starts asked, nothing cancelled");
    ok (pass_mode ("twice", 100, -40, &f, &error) == 0 && job1.reserved == 20,
        "one that moves it earlier: the pass ends, the job reserved at 20");
    error.text[0] = '\0';
    ok (pass_mode ("twice", 100, 50, &f, &error) == -1 && errno == EPERM,
        "one that moves it later than promised: refused (EPERM)");
    is (error.text,
        "queue policy 'queue-fixture': job 1's reservation delayed from 100 "
        "to 150",
        "the message names the policy, the job and both times");
    ok (f.starts == 1 && f.cancels == 1 && job1.reserved == -1,
        "the pass stops there, the late reservation cancelled");
}

static void test_pass_leaves_a_passed_reservation (void)
{
    struct fake_host f;
    rp_error_t error = { "" };

    ok (pass_mode ("idle", 100, 0, &f, &error) == 0,
        "a job reserved at 100, the pass at 10: it may wait");
    ok (pass_mode ("idle", 5, 0, &f, &error) == -1 && errno == EPERM,
        "a pass that leaves a job reserved before its time: refused");
    is (error.text,
        "queue policy 'queue-fixture': job 1 is reserved at 5, before the "
        "pass (at 10), and was not started",
        "the message gives the reservation's time and the pass's");
    ok (pass_mode ("idle", 10, 0, &f, &error) == -1,
        "one reserved at the pass's own time and not started: refused");
    is (error.text,
        "queue policy 'queue-fixture': job 1 is reserved at 10, the time of "
        "the pass, and was not started",
        "the message says so");
}

int main (void)
{
    plan (NO_PLAN);
    test_services_without_a_pass ();
    test_host_bad_arguments ();
    test_config_queue_policy ();
    test_host_start_moves_reservation ();
    test_pass_leaves_a_passed_reservation ();
    return done_testing ();
}
