/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* sched-respol's queue of pending alloc requests (RFC 27), in the order
 * the job manager's priority gives them: higher priority first, then
 * earlier submission, then lower job id (sched-simple's order).
 *
 * A doubly linked list, kept sorted: insertion walks from the tail (a new
 * job of an unchanged priority goes last, in O(1)); a reprioritize
 * re-sorts.  The queue holds at most the job manager's queue depth of
 * requests (sched-simple's 8 by default), so walks stay short.
 *
 * Ownership: a job takes a reference on its request message and frees it
 * with the job; schedq_destroy frees the jobs left.
 */
#ifndef RESPOL_FLUX_SCHEDQ_H
#define RESPOL_FLUX_SCHEDQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <flux/core.h>

struct schedq_job {
    flux_jobid_t id;
    unsigned int priority;
    uint32_t userid;
    double t_submit;
    const flux_msg_t *msg; /* the alloc request (a reference) */
    char *hold;            /* the last hold reason annotated, or NULL */
    struct schedq_job *prev, *next;
};

struct schedq;

struct schedq *schedq_create (void);
void schedq_destroy (struct schedq *q);

/* A new job for request msg (a reference is taken), in its place.  NULL
 * with ENOMEM. */
struct schedq_job *schedq_add (struct schedq *q, flux_jobid_t id,
                               unsigned int priority, uint32_t userid,
                               double t_submit, const flux_msg_t *msg);
/* Take j out of the queue and free it. */
void schedq_remove (struct schedq *q, struct schedq_job *j);
struct schedq_job *schedq_find (const struct schedq *q, flux_jobid_t id);
/* The first job, in order; j->next follows. */
struct schedq_job *schedq_first (const struct schedq *q);
size_t schedq_count (const struct schedq *q);
/* j's new priority; the queue is sorted again by schedq_sort. */
void schedq_set_priority (struct schedq_job *j, unsigned int priority);
void schedq_sort (struct schedq *q);

#endif
