/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Queue policy "fcfs": strict order.  Each pass starts jobs from the head
 * of the queue while the matcher finds them room now, and stops at the
 * first that does not fit: the head blocks everything behind it.  It
 * declares RP_QUEUE_IN_ORDER, so the host refuses any start that would
 * pass a pending job.  It reserves nothing and needs no configuration.
 *
 * Built as a site builds its own plugin: respol/queue.h only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <respol/queue.h>

#include "in-order.h"

static int fcfs_pass (struct rp_plugin *p, struct rp_queue *q)
{
    (void)p;
    return start_in_order (q) < 0 ? -1 : 0;
}

static const struct rp_queue_ops ops = {
    .size = sizeof (struct rp_queue_ops),
    .flags = RP_QUEUE_IN_ORDER,
    .pass = fcfs_pass,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_QUEUE,
    .name = "fcfs",
    .description = "first come, first served: the head blocks the queue",
    .version = "1.0",
    .ops = &ops,
};
