/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for the queue-policy host (core/queue.c) and
 * rp_config_queue_policy (core/config.c): what they do with bad
 * arguments.  A pass of every shipped policy, and every refusal of the
 * host, is tested through respol simulate (t/t0053-queue-plugins.t,
 * t/t0052-simulate.t), with the fixture policy t/plugins/queue-fixture.c.
 */
#include <errno.h>
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

int main (void)
{
    plan (NO_PLAN);
    test_services_without_a_pass ();
    test_host_bad_arguments ();
    test_config_queue_policy ();
    return done_testing ();
}
