/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Queue policy "conservative": conservative backfilling.  Every pending
 * job holds a reservation, in queue order; each pass takes them out one
 * by one and puts each back at its earliest time (never later: the host
 * checks), starting those whose earliest time is now.  A job thus starts
 * before an earlier one only when it delays no reservation.  No
 * configuration.
 *
 * Built as a site builds its own plugin: respol/queue.h only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <stdint.h>

#include <respol/queue.h>

#include "reserve.h"

static int conservative_pass (struct rp_plugin *p, struct rp_queue *q)
{
    (void)p;
    return reserve_pass (q, SIZE_MAX);
}

static const struct rp_queue_ops ops = {
    .size = sizeof (struct rp_queue_ops),
    .pass = conservative_pass,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_QUEUE,
    .name = "conservative",
    .description = "conservative backfilling: a reservation for every job",
    .version = "1.0",
    .ops = &ops,
};
