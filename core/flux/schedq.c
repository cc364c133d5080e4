/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* sched-respol's queue of pending alloc requests: see schedq.h. */
#include <errno.h>
#include <stdlib.h>

#include "schedq.h"

struct schedq {
    struct schedq_job *head, *tail;
    size_t count;
};

struct schedq *schedq_create (void)
{
    return calloc (1, sizeof (struct schedq));
}

static void job_free (struct schedq_job *j)
{
    flux_msg_decref (j->msg);
    free (j->hold);
    free (j);
}

void schedq_destroy (struct schedq *q)
{
    struct schedq_job *j, *next;

    if (!q)
        return;
    for (j = q->head; j; j = next) {
        next = j->next;
        job_free (j);
    }
    free (q);
}

/* Does a come before b? */
static bool before (const struct schedq_job *a, const struct schedq_job *b)
{
    if (a->priority != b->priority)
        return a->priority > b->priority;
    if (a->t_submit != b->t_submit)
        return a->t_submit < b->t_submit;
    return a->id < b->id;
}

static void unlink_job (struct schedq *q, struct schedq_job *j)
{
    if (j->prev)
        j->prev->next = j->next;
    else
        q->head = j->next;
    if (j->next)
        j->next->prev = j->prev;
    else
        q->tail = j->prev;
    j->prev = j->next = NULL;
}

/* Put j in its place, walking from the tail. */
static void insert (struct schedq *q, struct schedq_job *j)
{
    struct schedq_job *after = q->tail;

    while (after && before (j, after))
        after = after->prev;
    j->prev = after;
    j->next = after ? after->next : q->head;
    if (j->next)
        j->next->prev = j;
    else
        q->tail = j;
    if (after)
        after->next = j;
    else
        q->head = j;
}

struct schedq_job *schedq_add (struct schedq *q, flux_jobid_t id,
                               unsigned int priority, uint32_t userid,
                               double t_submit, const flux_msg_t *msg)
{
    struct schedq_job *j = calloc (1, sizeof (*j));

    if (!j) {
        errno = ENOMEM;
        return NULL;
    }
    j->id = id;
    j->priority = priority;
    j->userid = userid;
    j->t_submit = t_submit;
    j->msg = flux_msg_incref (msg);
    insert (q, j);
    q->count++;
    return j;
}

void schedq_remove (struct schedq *q, struct schedq_job *j)
{
    unlink_job (q, j);
    q->count--;
    job_free (j);
}

struct schedq_job *schedq_find (const struct schedq *q, flux_jobid_t id)
{
    for (struct schedq_job *j = q->head; j; j = j->next)
        if (j->id == id)
            return j;
    return NULL;
}

struct schedq_job *schedq_first (const struct schedq *q)
{
    return q->head;
}

size_t schedq_count (const struct schedq *q)
{
    return q->count;
}

void schedq_set_priority (struct schedq_job *j, unsigned int priority)
{
    j->priority = priority;
}

/* Insertion sort of the whole list: it holds a queue depth of jobs. */
void schedq_sort (struct schedq *q)
{
    struct schedq_job *j = q->head, *next;

    q->head = q->tail = NULL;
    for (; j; j = next) {
        next = j->next;
        j->prev = j->next = NULL;
        insert (q, j);
    }
}
