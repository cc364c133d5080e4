/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Queue policies (api/respol/queue.h): one scheduling pass of a plugin of
 * kind RP_PLUGIN_QUEUE over a host's pending jobs, every decision
 * checked before it takes effect.
 *
 * The checks are the promises a scheduler makes (issue: "a policy that
 * starts a job that would delay an existing reservation, or that
 * double-books, is refused with its name"):
 * - a start must leave every other reservation whole: the job's units for
 *   its duration from now must be free in the planner once its own
 *   reservation is taken out (rp_queue_fits).  When fewer units are free
 *   now than it asks, it is simply no room (the head under fcfs);
 * - a reservation never moves later than the one the job held when the
 *   pass began, nor, within the pass, than the last one the pass gave it
 *   (cancelled or not: a policy may not cancel a reservation to give its
 *   place to another job and take a later one).  A reservation cancelled
 *   by an earlier pass is no promise: a job queued ahead of it since (a
 *   higher priority) may take its place;
 * - a policy that says RP_QUEUE_IN_ORDER never starts a job while an
 *   earlier one is pending;
 * - a pass leaves no job reserved at its own time without starting it.
 * A refusal stops the pass: the policy's call returns -1 and the message
 * kept here, with the instance name, is the pass's error.  Without a
 * planner (a host whose jobs have no sizes of interchangeable units) the
 * host may reserve through its callbacks (a matcher's reservations): the
 * matcher places a job now only where no reservation needs the resources
 * before its end, so a start that would delay one finds no room, and
 * the promises are checked on the times the host gives: those reserve
 * gives, and the one a start that found no room leaves the job (the
 * host's start re-reserves a job whose reservation is its own place).
 * Without them
 * only the order is checked, and nothing is reserved.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "respol/queue.h"

#include "core/plugin_private.h"

struct rp_queue {
    const struct rp_plugin *p;
    struct rp_queue_host *h;
    bool refused;
    rp_error_t why; /* the refusal, with the instance name */
    /* Per job, the start its reservation may not pass in this pass (-1:
     * none): the reservation it held when the pass began, then the last
     * one the pass gave it, cancelled or not. */
    int64_t *promise;
};

static int refuse (struct rp_queue *q, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static int refuse (struct rp_queue *q, const char *fmt, ...)
{
    char text[sizeof (q->why.text)];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (text, sizeof (text), fmt, ap);
    va_end (ap);
    if (!q->refused)
        rp_error_set (&q->why, EPERM, "queue policy '%s': %s", q->p->instance,
                      text);
    q->refused = true;
    return -1;
}

static struct rp_queue_job *job (const struct rp_queue *q, size_t k)
{
    return q && k < q->h->count ? q->h->jobs[k] : NULL;
}

size_t rp_queue_count (const struct rp_queue *q)
{
    return q ? q->h->count : 0;
}

int64_t rp_queue_now (const struct rp_queue *q)
{
    return q ? q->h->now : 0;
}

bool rp_queue_job_pending (const struct rp_queue *q, size_t k)
{
    const struct rp_queue_job *j = job (q, k);

    return j && j->pending;
}

uint64_t rp_queue_job_id (const struct rp_queue *q, size_t k)
{
    const struct rp_queue_job *j = job (q, k);

    return j ? j->id : 0;
}

uint64_t rp_queue_job_size (const struct rp_queue *q, size_t k)
{
    const struct rp_queue_job *j = job (q, k);

    return j ? j->size : 0;
}

int64_t rp_queue_job_duration (const struct rp_queue *q, size_t k)
{
    const struct rp_queue_job *j = job (q, k);

    return j ? j->duration : 0;
}

int64_t rp_queue_job_reserved (const struct rp_queue *q, size_t k)
{
    const struct rp_queue_job *j = job (q, k);

    return j ? j->reserved : -1;
}

/* Take j's reservation out of the planner for a moment (its start stays
 * in j->reserved); whether it held one. */
static bool unreserve (struct rp_queue_host *h, struct rp_queue_job *j)
{
    bool held = j->has_span && h->planner;

    if (!h->planner)
        return false;
    if (held)
        rp_planner_remove (h->planner, j->span, NULL);
    j->has_span = false;
    return held;
}

/* Put j's reservation back at j->reserved (it was free a moment ago). */
static void rereserve (struct rp_queue_host *h, struct rp_queue_job *j)
{
    if (h->planner && j->reserved >= 0 && j->reserved != RP_PLANNER_FOREVER)
        j->has_span = rp_planner_add (h->planner, j->reserved, j->duration,
                                      j->size, &j->span, NULL)
                      == 0;
}

static bool fits_without_own (struct rp_queue_host *h, struct rp_queue_job *j)
{
    bool had = unreserve (h, j), fits;

    fits = rp_planner_is_free (h->planner, h->now, j->duration, j->size);
    if (had)
        rereserve (h, j);
    return fits;
}

bool rp_queue_fits (const struct rp_queue *q, size_t k)
{
    struct rp_queue_job *j = job (q, k);

    if (!j || !j->pending)
        return false;
    if (!q->h->planner)
        return q->h->fits && q->h->fits (q->h->arg, k);
    return fits_without_own (q->h, j);
}

static int check_pending (struct rp_queue *q, size_t k, const char *what)
{
    struct rp_queue_job *j = job (q, k);

    if (!q) {
        errno = EINVAL;
        return -1;
    }
    if (!j)
        return refuse (q, "%s: no job at queue position %zu (%zu pending)",
                       what, k, q ? q->h->count : 0);
    if (!j->pending)
        return refuse (q, "%s: job %" PRIu64 " is not pending", what, j->id);
    return 0;
}

/* The host's failure, as the pass's error. */
static int host_failed (struct rp_queue *q, const rp_error_t *error)
{
    q->refused = true;
    q->why = *error;
    return -1;
}

static bool later_than_promised (struct rp_queue *q, size_t k, int64_t t);

/* A host without a planner found no room for job k and kept (or made) a
 * reservation of its own for it (a matcher's: its place is its own): the
 * promise holds on that time as on one reserve gives.  -1: refused, and
 * the reservation cancelled. */
static int held_later (struct rp_queue *q, size_t k)
{
    struct rp_queue_host *h = q->h;
    struct rp_queue_job *j = h->jobs[k];
    rp_error_t error;

    if (j->reserved < 0 || j->reserved == RP_PLANNER_FOREVER)
        return 0;
    if (later_than_promised (q, k, j->reserved)) {
        if (h->cancel && h->cancel (h->arg, k, &error) < 0)
            return host_failed (q, &error);
        j->reserved = -1;
        return -1;
    }
    q->promise[k] = j->reserved;
    return 0;
}

/* The checks of a start that has room now. */
static int check_start (struct rp_queue *q, size_t k)
{
    struct rp_queue_host *h = q->h;
    struct rp_queue_job *j = h->jobs[k];

    if (q->p->queue.flags & RP_QUEUE_IN_ORDER)
        for (size_t e = 0; e < k; e++)
            if (h->jobs[e]->pending)
                return refuse (q,
                               "started job %" PRIu64 " before job %" PRIu64
                               " (it starts jobs in order)",
                               j->id, h->jobs[e]->id);
    if (h->planner && !fits_without_own (h, j))
        return refuse (q,
                       "job %" PRIu64 " started at %" PRId64
                       " would delay a reservation",
                       j->id, h->now);
    return 0;
}

int rp_queue_start (struct rp_queue *q, size_t k)
{
    struct rp_queue_host *h;
    struct rp_queue_job *j;
    rp_error_t error;
    bool held;
    int rc;

    if (check_pending (q, k, "start") < 0)
        return -1;
    h = q->h;
    j = h->jobs[k];
    /* Its own reservation is its own room. */
    held = unreserve (h, j);
    if (h->planner && rp_planner_free_at (h->planner, h->now) < j->size) {
        if (held)
            rereserve (h, j);
        return RP_QUEUE_NO_ROOM;
    }
    if (check_start (q, k) < 0) {
        if (held)
            rereserve (h, j);
        return -1;
    }
    rc = h->start (h->arg, k, &error);
    if (rc < 0)
        return host_failed (q, &error);
    if (rc == RP_QUEUE_NO_ROOM) {
        if (held)
            rereserve (h, j);
        else if (!h->planner && j->has_span && held_later (q, k) < 0)
            return -1;
    } else
        j->pending = false;
    return rc;
}

/* Whether a reservation of job k at t breaks its promise (refused). */
static bool later_than_promised (struct rp_queue *q, size_t k, int64_t t)
{
    if (q->promise[k] < 0 || t <= q->promise[k])
        return false;
    refuse (q,
            "job %" PRIu64 "'s reservation delayed from %" PRId64
            " to %" PRId64,
            q->h->jobs[k]->id, q->promise[k], t);
    return true;
}

/* Job k is reserved at t: its start, its promise and *at. */
static void reserved_at (struct rp_queue *q, size_t k, int64_t t, int64_t *at)
{
    q->h->jobs[k]->reserved = t;
    if (t != RP_PLANNER_FOREVER)
        q->promise[k] = t;
    if (at)
        *at = t;
}

/* Reserve through the host's callbacks (no planner): the promise is
 * checked on the time it gives, and a broken one cancelled. */
static int host_reserve (struct rp_queue *q, size_t k, int64_t *at)
{
    struct rp_queue_host *h = q->h;
    struct rp_queue_job *j = h->jobs[k];
    int64_t t = RP_PLANNER_FOREVER;
    rp_error_t error;

    if (h->reserve (h->arg, k, &t, &error) < 0)
        return host_failed (q, &error);
    if (later_than_promised (q, k, t)) {
        if (h->cancel && h->cancel (h->arg, k, &error) < 0)
            return host_failed (q, &error);
        j->reserved = -1;
        return -1;
    }
    reserved_at (q, k, t, at);
    return 0;
}

int rp_queue_reserve (struct rp_queue *q, size_t k, int64_t *at)
{
    struct rp_queue_host *h;
    struct rp_queue_job *j;
    int64_t t = RP_PLANNER_FOREVER;
    bool held;

    if (check_pending (q, k, "reserve") < 0)
        return -1;
    h = q->h;
    j = h->jobs[k];
    if (!h->planner && h->reserve)
        return host_reserve (q, k, at);
    held = unreserve (h, j);
    if (h->planner
        && rp_planner_earliest (h->planner, h->now, j->duration, j->size, &t,
                                NULL)
               < 0)
        t = RP_PLANNER_FOREVER;
    if (later_than_promised (q, k, t)) {
        if (held)
            rereserve (h, j);
        return -1;
    }
    reserved_at (q, k, t, at);
    rereserve (h, j);
    return 0;
}

int rp_queue_cancel (struct rp_queue *q, size_t k)
{
    rp_error_t error;

    if (check_pending (q, k, "cancel") < 0)
        return -1;
    if (q->h->planner)
        unreserve (q->h, q->h->jobs[k]);
    else if (q->h->cancel && q->h->jobs[k]->has_span
             && q->h->cancel (q->h->arg, k, &error) < 0)
        return host_failed (q, &error);
    q->h->jobs[k]->reserved = -1;
    return 0;
}

/* The plugin's failure, or the host's refusal, as the pass's error. */
static int failed (struct rp_queue *q, const char *op, int rc,
                   rp_error_t *error)
{
    const struct rp_plugin *p = q->p;

    if (q->refused)
        return rp_error_set (error, q->why.text[0] ? EPERM : EPROTO, "%s",
                             q->why.text);
    if (p->error[0])
        return rp_error_set (error, EPROTO, "queue policy '%s': %s failed: %s",
                             p->instance, op, p->error);
    return rp_error_set (error, EPROTO,
                         "queue policy '%s': %s returned %d (no message)",
                         p->instance, op, rc);
}

/* A pass leaves no job reserved at now: it starts, or its reservation is
 * cancelled (held units nothing runs on are a lie the next pass would
 * believe). */
static void check_left (struct rp_queue *q)
{
    for (size_t k = 0; k < q->h->count; k++) {
        const struct rp_queue_job *j = q->h->jobs[k];
        if (!j->pending || !j->has_span || j->reserved > q->h->now)
            continue;
        if (j->reserved == q->h->now)
            refuse (q,
                    "job %" PRIu64 " is reserved at %" PRId64
                    ", the time of the pass, and was not started",
                    j->id, q->h->now);
        else
            refuse (q,
                    "job %" PRIu64 " is reserved at %" PRId64
                    ", before the pass (at %" PRId64 "), and was not started",
                    j->id, j->reserved, q->h->now);
        return;
    }
}

int rp_queue_run (const struct rp_plugin *p, struct rp_queue_host *h,
                  rp_error_t *error)
{
    struct rp_plugin *mp = (struct rp_plugin *)p;
    struct rp_queue q = { .p = p, .h = h };
    struct plugin_call call;
    int rc;

    if (!p || !h || p->kind != RP_PLUGIN_QUEUE || !h->start)
        return rp_error_set (error, EINVAL, "rp_queue_run: bad argument");
    if (!p->queue.pass)
        return 0;
    if (!(q.promise = malloc ((h->count ? h->count : 1) * sizeof (int64_t))))
        return rp_error_set (error, ENOMEM, "out of memory");
    for (size_t k = 0; k < h->count; k++)
        q.promise[k] = h->jobs[k]->has_span ? h->jobs[k]->reserved : -1;
    mp->error[0] = '\0';
    plugin_enter (&call, p, "pass");
    rc = p->queue.pass (mp, &q);
    plugin_leave (&call);
    if (rc == 0 && !q.refused)
        check_left (&q);
    free (q.promise);
    if (rc != 0 || q.refused)
        return failed (&q, "pass", rc, error);
    return 0;
}

int rp_queue_priority (const struct rp_plugin *p, const struct rp_jobspec *js,
                       int64_t *priority, rp_error_t *error)
{
    struct rp_plugin *mp = (struct rp_plugin *)p;
    struct rp_queue q = { .p = p };
    struct plugin_call call;
    int rc;

    if (!p || !js || !priority || p->kind != RP_PLUGIN_QUEUE)
        return rp_error_set (error, EINVAL, "rp_queue_priority: bad argument");
    *priority = 0;
    if (!p->queue.priority)
        return 0;
    mp->error[0] = '\0';
    plugin_enter (&call, p, "priority");
    rc = p->queue.priority (mp, js, priority);
    plugin_leave (&call);
    if (rc != 0)
        return failed (&q, "priority", rc, error);
    return 0;
}

bool rp_queue_has_pass (const struct rp_plugin *p)
{
    return p && p->kind == RP_PLUGIN_QUEUE && p->queue.pass;
}

bool rp_queue_has_priority (const struct rp_plugin *p)
{
    return p && p->kind == RP_PLUGIN_QUEUE && p->queue.priority;
}

uint32_t rp_queue_flags (const struct rp_plugin *p)
{
    return p && p->kind == RP_PLUGIN_QUEUE ? p->queue.flags : 0;
}
