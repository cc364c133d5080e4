/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture: a queue policy that breaks one of the host's rules, chosen by
 * its configuration block {mode: M}:
 *   greedy     reserves every job that does not start, and starts every
 *              job that the matcher has room for (refused: a start that
 *              delays a reservation);
 *   reserve    reserves every pending job, starting none (refused: one
 *              is reserved now and not started);
 *   unordered  says RP_QUEUE_IN_ORDER and starts the last job first;
 *   later      reserves the head, then fills the cluster before it and
 *              reserves it again (refused: later than its last);
 *   fail       returns -1 with a message;
 *   silent     returns 7 without one;
 *   bad-index  starts the job past the end of the queue;
 *   twice      starts the head twice;
 *   idle       does nothing (the jobs wait for ever);
 *   fits       starts every job rp_queue_fits says fits, asking before
 *              any start (what the host does when the match policy
 *              fails in the question);
 *   cancelled  starts jobs in order; the first that does not start is
 *              reserved, then cancelled, and the pass fails with what
 *              rp_queue_job_reserved said after each.
 * Built twice: queue-fixture, and queue-in-order (-DFIXTURE_IN_ORDER),
 * which declares RP_QUEUE_IN_ORDER.
 */
#include <inttypes.h>
#include <string.h>

#include <respol/queue.h>

static const struct rp_host_services *svc;
static const char *const keys[] = { "mode", NULL };

static int fixture_init (struct rp_plugin *p,
                         const struct rp_host_services *services)
{
    const json_t *m = json_object_get (services->config (p), "mode");

    svc = services;
    if (!json_is_string (m))
        return svc->error (p, "mode: a string");
    svc->set_data (p, (void *)json_string_value (m));
    return 0;
}

static int greedy (struct rp_queue *q)
{
    for (size_t k = 0; k < rp_queue_count (q); k++) {
        int rc = rp_queue_start (q, k);
        if (rc < 0)
            return -1;
        if (rc == RP_QUEUE_NO_ROOM && rp_queue_reserve (q, k, NULL) < 0)
            return -1;
    }
    return 0;
}

static int later (struct rp_queue *q)
{
    size_t n = rp_queue_count (q);

    if (n < 2 || rp_queue_reserve (q, 0, NULL) < 0)
        return 0;
    /* Jobs behind the head reserved before it: they take its place. */
    rp_queue_cancel (q, 0);
    for (size_t k = 1; k < n; k++)
        if (rp_queue_reserve (q, k, NULL) < 0)
            return -1;
    return rp_queue_reserve (q, 0, NULL);
}

static int cancelled (struct rp_plugin *p, struct rp_queue *q)
{
    for (size_t k = 0; k < rp_queue_count (q); k++) {
        int64_t at, after;
        int rc = rp_queue_start (q, k);

        if (rc < 0)
            return -1;
        if (rc != RP_QUEUE_NO_ROOM)
            continue;
        if (rp_queue_reserve (q, k, &at) < 0 || rp_queue_cancel (q, k) < 0)
            return -1;
        after = rp_queue_job_reserved (q, k);
        return svc->error (p, "job %" PRIu64 " reserved at %" PRId64
                           ", then %" PRId64 " once cancelled",
                           rp_queue_job_id (q, k), at, after);
    }
    return 0;
}

static int fixture_pass (struct rp_plugin *p, struct rp_queue *q)
{
    const char *mode = svc->get_data (p);
    size_t n = rp_queue_count (q);

    if (!strcmp (mode, "greedy"))
        return greedy (q);
    if (!strcmp (mode, "reserve")) {
        for (size_t k = 0; k < n; k++)
            if (rp_queue_reserve (q, k, NULL) < 0)
                return -1;
        return 0;
    }
    if (!strcmp (mode, "unordered"))
        return rp_queue_start (q, n - 1) < 0 ? -1 : 0;
    if (!strcmp (mode, "later"))
        return later (q);
    if (!strcmp (mode, "cancelled"))
        return cancelled (p, q);
    if (!strcmp (mode, "fail"))
        return svc->error (p, "the fixture fails");
    if (!strcmp (mode, "idle"))
        return 0;
    if (!strcmp (mode, "fits")) {
        for (size_t k = 0; k < n; k++)
            if (rp_queue_fits (q, k) && rp_queue_start (q, k) < 0)
                return -1;
        return 0;
    }
    if (!strcmp (mode, "twice"))
        return rp_queue_start (q, 0) < 0 || rp_queue_start (q, 0) < 0 ? -1 : 0;
    if (!strcmp (mode, "bad-index"))
        return rp_queue_start (q, n) < 0 ? -1 : 0;
    return 7;
}

#ifdef FIXTURE_IN_ORDER
#define FLAGS RP_QUEUE_IN_ORDER
#define NAME "queue-in-order"
#else
#define FLAGS 0
#define NAME "queue-fixture"
#endif

static const struct rp_queue_ops ops = {
    .size = sizeof (struct rp_queue_ops),
    .flags = FLAGS,
    .pass = fixture_pass,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_QUEUE,
    .name = NAME,
    .init = fixture_init,
    .ops = &ops,
    .config_keys = keys,
};
