/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Queue policy "easy": EASY backfilling.  Each pass starts jobs from the
 * head while they fit now; the first that does not (the head, then) gets
 * the one reservation, at the earliest time its units are free for its
 * duration; every later job that fits now without delaying it starts
 * (rp_queue_fits: its units free for its whole duration around the
 * reservation).  The reservation is cancelled at the end of the pass and
 * made again by the next (never later: the host checks).  No
 * configuration.
 *
 * Built as a site builds its own plugin: respol/queue.h only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <respol/queue.h>

#include "in-order.h"

static int easy_pass (struct rp_plugin *p, struct rp_queue *q)
{
    long head = start_in_order (q);

    (void)p;
    if (head < 0)
        return -1;
    if ((size_t)head == rp_queue_count (q))
        return 0;
    if (rp_queue_reserve (q, (size_t)head, NULL) < 0)
        return -1;
    for (size_t k = (size_t)head + 1; k < rp_queue_count (q); k++)
        if (rp_queue_job_pending (q, k) && rp_queue_fits (q, k)
            && rp_queue_start (q, k) < 0)
            return -1;
    return rp_queue_cancel (q, (size_t)head);
}

static const struct rp_queue_ops ops = {
    .size = sizeof (struct rp_queue_ops),
    .pass = easy_pass,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_QUEUE,
    .name = "easy",
    .description = "EASY backfilling: one reservation, for the head",
    .version = "1.0",
    .ops = &ops,
};
