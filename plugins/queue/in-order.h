/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* What fcfs does, and easy before it reserves: start jobs from the head
 * while the matcher finds them room now.  Included by one plugin each:
 * everything here is static.
 */
#ifndef RESPOL_PLUGINS_QUEUE_IN_ORDER_H
#define RESPOL_PLUGINS_QUEUE_IN_ORDER_H

#include <respol/queue.h>

/* The position of the first job that does not fit (the count when none
 * is left), or -1 when the host refused a start. */
static long start_in_order (struct rp_queue *q)
{
    size_t k = 0;

    for (; k < rp_queue_count (q); k++) {
        int rc;
        if (!rp_queue_job_pending (q, k))
            continue;
        rc = rp_queue_start (q, k);
        if (rc < 0)
            return -1;
        if (rc == RP_QUEUE_NO_ROOM)
            break;
    }
    return (long)k;
}

#endif
