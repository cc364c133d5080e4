/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for core/flux/schedq.c, sched-respol's queue: the order
 * (priority, then submit time, then id) on insertion, after a new
 * priority and a sort, removal and lookup. */
#include <stdio.h>
#include <string.h>

#include "core/flux/schedq.h"
#include "t/tap/tap.h"

/* The queue's ids in order, as "1 2 3". */
static const char *order (const struct schedq *q)
{
    static char buf[256];
    size_t n = 0;

    buf[0] = '\0';
    for (struct schedq_job *j = schedq_first (q); j; j = j->next)
        n += (size_t)snprintf (buf + n, sizeof (buf) - n, "%s%ju", n ? " " : "",
                               (uintmax_t)j->id);
    return buf;
}

static struct schedq_job *add (struct schedq *q, flux_msg_t *msg,
                               flux_jobid_t id, unsigned int prio, double t)
{
    return schedq_add (q, id, prio, 1000, t, msg);
}

int main (void)
{
    flux_msg_t *msg = flux_msg_create (FLUX_MSGTYPE_REQUEST);
    struct schedq *q = schedq_create ();
    struct schedq_job *j3, *j5;

    plan (NO_PLAN);
    ok (msg && q, "a queue and a message");
    add (q, msg, 1, 16, 10.0);
    add (q, msg, 2, 16, 11.0);
    j3 = add (q, msg, 3, 20, 12.0);
    add (q, msg, 4, 16, 9.0);
    j5 = add (q, msg, 5, 16, 9.0);
    is (order (q), "3 4 5 1 2", "priority first, then submit time, then id");
    ok (schedq_count (q) == 5, "five jobs");
    ok (schedq_find (q, 5) == j5 && schedq_find (q, 6) == NULL,
        "find a job by id, and not one that is not queued");
    schedq_set_priority (schedq_find (q, 2), 30);
    schedq_set_priority (j3, 1);
    is (order (q), "3 4 5 1 2", "a new priority waits for the sort");
    schedq_sort (q);
    is (order (q), "2 4 5 1 3", "sorted again by the new priorities");
    schedq_remove (q, schedq_find (q, 4));
    schedq_remove (q, schedq_find (q, 3));
    is (order (q), "2 5 1", "the head and the tail removed");
    ok (schedq_count (q) == 3, "three jobs left");
    add (q, msg, 6, 16, 10.0);
    is (order (q), "2 5 1 6", "a later job of the same priority goes last");
    schedq_destroy (q);
    flux_msg_decref (msg);
    return done_testing ();
}
