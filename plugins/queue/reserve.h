/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The pass conservative and hybrid share: reservations for the first
 * depth jobs that do not start, in queue order; each is taken out and
 * put back at its earliest time (compression: never later, its old place
 * being still free), and a job whose earliest time is now starts.  Past
 * the depth, a job starts when it fits now without delaying any
 * reservation.  Reservations stay from one pass to the next.  Included
 * by one plugin each: everything here is static.
 */
#ifndef RESPOL_PLUGINS_QUEUE_RESERVE_H
#define RESPOL_PLUGINS_QUEUE_RESERVE_H

#include <respol/queue.h>

static int reserve_pass (struct rp_queue *q, size_t depth)
{
    size_t reserved = 0;

    for (size_t k = 0; k < rp_queue_count (q); k++) {
        int64_t at;
        if (!rp_queue_job_pending (q, k))
            continue;
        if (reserved == depth) {
            if (rp_queue_fits (q, k) && rp_queue_start (q, k) < 0)
                return -1;
            continue;
        }
        if (rp_queue_reserve (q, k, &at) < 0)
            return -1;
        if (at != rp_queue_now (q))
            reserved++;
        else if (rp_queue_start (q, k) < 0)
            return -1;
    }
    return 0;
}

#endif
