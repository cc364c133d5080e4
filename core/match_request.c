/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* A jobspec's resources (RFC 14, RFC 25) as the matcher's requests: one
 * struct req per resource vertex, each with the units of every graph type
 * one unit of it needs below (children at their minimum counts, pools
 * converted), its count, ids, exclusivity and whether the aggregates
 * alone decide its fit.
 *
 * Decisions:
 * - A resource whose count is 0 (a V1 gpu count may be) is no request.
 * - Pool units convert with units_bytes ("GB" = "GiB" = 2^30),
 *   rounding the request up to whole pool units; a unit on one side only
 *   (memory: none means GB on both sides), or one that does not convert,
 *   makes the request unsatisfiable (ENODEV).  A type's pools are taken to
 *   share the unit of the first pool of that type.
 * - The requests are built once per jobspec: the matcher keeps the last
 *   built ones, with a reference to their jobspec (so that its address
 *   names no other while they are kept), and the next match of the same
 *   jobspec takes them whole; another jobspec, or a prune hook that came or
 *   went with the policy, builds them again (the graph and its types are
 *   the matcher's own for its life).  A jobspec is read-only once loaded.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/match_private.h"

#include "core/units.h"

/* --- requests ------------------------------------------------------------- */

/* Pool amounts: v request units in pool units, rounded up / a pool amount
 * in request units, rounded down. */
uint64_t match_to_pool (const struct req *q, uint64_t v)
{
    unsigned __int128 x;

    if (q->rbytes == 0 || q->pbytes == 0)
        return v;
    x = ((unsigned __int128)v * q->rbytes + q->pbytes - 1) / q->pbytes;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

uint64_t match_to_request (const struct req *q, uint64_t a)
{
    unsigned __int128 x;

    if (q->rbytes == 0 || q->pbytes == 0)
        return a;
    x = (unsigned __int128)a * q->pbytes / q->rbytes;
    return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

/* match_count_largest of a count that is not fixed: the jobspec's range
 * or idset read. */
bool match_count_range (const struct req *q, uint64_t limit, uint64_t *v)
{
    const struct rp_idset *ids;

    ids = rp_jobspec_resource_count_idset (q->r);
    if (!ids)
        return rp_range_largest (rp_jobspec_resource_count (q->r), limit, v);
    for (size_t i = rp_idset_range_count (ids); i > 0; i--) {
        unsigned int lo, hi;
        if (rp_idset_range (ids, i - 1, &lo, &hi) && lo <= limit) {
            *v = hi < limit ? hi : limit;
            return true;
        }
    }
    return false;
}

/* A count of 0 (a V1 gpu count may be 0) asks for nothing: no request. */
static bool asks_nothing (const struct rp_jobspec_resource *r)
{
    return rp_jobspec_resource_count (r)->max == 0;
}

static size_t count_requests (const struct rp_jobspec_resource *r)
{
    size_t n = 0;

    for (; r; r = rp_jobspec_resource_next (r))
        if (!asks_nothing (r))
            n += 1 + count_requests (rp_jobspec_resource_with_first (r));
    return n;
}

static bool holds_target (const struct rp_matcher *m, const struct req *q)
{
    for (const struct req *c = q->child; c; c = c->next)
        if ((c->t >= 0 && m->type_target[c->t]) || holds_target (m, c))
            return true;
    return false;
}

static int req_pool_init (struct rp_match *x, struct req *q)
{
    const char *ru, *pu;

    ru = match_unit_or_default (q->type, rp_jobspec_resource_unit (q->r));
    pu = x->m->type_unit[q->t];
    q->unit = ru;
    if (strcmp (ru, pu) == 0)
        return 0;
    q->rbytes = *ru ? units_bytes (ru) : 0;
    q->pbytes = *pu ? units_bytes (pu) : 0;
    if (q->rbytes && q->pbytes)
        return 0;
    return rp_error_set (x->error, ENODEV,
                         "needs %s in unit '%s', which does not convert to "
                         "the resource set's '%s'",
                         q->type, *ru ? ru : "(none)", *pu ? pu : "(none)");
}

static int req_count_init (struct req *q)
{
    const struct rp_range *rg = rp_jobspec_resource_count (q->r);
    const struct rp_idset *ids = rp_jobspec_resource_count_idset (q->r);

    if (!rg)
        return -1;
    q->min = rg->min;
    q->max = rg->max >= RP_RANGE_UNBOUNDED ? UINT64_MAX : rg->max;
    if (ids && !rp_idset_empty (ids)) {
        q->min = rp_idset_min (ids);
        q->max = rp_idset_max (ids);
    }
    /* an empty idset accepts no count: not fixed */
    q->fixed = q->min == q->max && !(ids && rp_idset_empty (ids));
    return q->min >= 1 ? 0 : -1;
}

static int req_id_init (struct rp_match *x, struct req *q)
{
    const char *id = rp_jobspec_resource_id (q->r);
    rp_error_t e;

    if (!id)
        return 0;
    if (!(q->ids = rp_idset_decode (id, &e)))
        return rp_error_set (x->error, errno == ENOMEM ? ENOMEM : EINVAL,
                             "%s: id: %s", q->type, e.text);
    return 0;
}

/* Add what one unit of child c needs to need (its parent's unit). */
static void need_add (size_t ntypes, uint64_t *need, const struct req *c)
{
    uint64_t k = c->pool ? 1 : c->min;

    for (size_t t = 0; t < ntypes; t++)
        need[t] = sat_add (need[t], sat_mul (k, c->need[t]));
}

static int req_build (struct rp_match *x, const struct rp_jobspec_resource *r,
                      struct req *parent, struct req **list, size_t *next);

/* Whether one unit of q fits can be told from the aggregates of its
 * vertex: below it only fixed counts of slots and of leaf types (a leaf
 * vertex is free iff idle: exclusive or pool requests only), no id. */
static void agg_init (const struct rp_matcher *m, struct req *q)
{
    q->agg_ok = true;
    for (const struct req *c = q->child; c; c = c->next) {
        bool leaf =
            c->t >= 0 && !m->type_inner[c->t] && (c->pool || c->exclusive);
        if (!c->agg_ok || c->min != c->max || c->ids || !(c->slot || leaf))
            q->agg_ok = false;
        if (c->slot || c->agg_slot)
            q->agg_slot = true;
    }
}

static int req_init (struct rp_match *x, struct req *q)
{
    q->type = rp_jobspec_resource_type (q->r);
    q->slot = strcmp (q->type, "slot") == 0;
    q->t = q->slot ? -1 : rp_graph_type_index (x->g, q->type);
    q->pool = q->t >= 0 && x->m->type_pool[q->t];
    if (q->parent)
        q->inherited =
            q->parent->slot ? q->parent->inherited : q->parent->exclusive;
    q->exclusive = rp_jobspec_resource_exclusive (q->r) || q->inherited;
    q->unit = "";
    if (req_count_init (q) < 0)
        return rp_error_set (x->error, EINVAL, "%s: bad count", q->type);
    if (req_id_init (x, q) < 0)
        return -1;
    if (!q->slot && q->t < 0)
        return rp_error_set (x->error, ENODEV, "no resource of type '%s'",
                             q->type);
    if (q->pool && rp_jobspec_resource_with_first (q->r))
        return rp_error_set (x->error, EINVAL,
                             "%s: a pool cannot hold other resources", q->type);
    if (q->slot && !rp_jobspec_resource_with_first (q->r))
        return rp_error_set (x->error, EINVAL, "slot: holds nothing");
    if (q->pool && req_pool_init (x, q) < 0)
        return -1;
    return 0;
}

/* Fill *q for r, then its children; compute the need vector. */
static int req_fill (struct rp_match *x, struct req *q,
                     const struct rp_jobspec_resource *r, struct req *parent,
                     size_t *next)
{
    size_t nt = x->m->ntypes;

    q->r = r;
    q->parent = parent;
    if (req_init (x, q) < 0)
        return -1;
    if (req_build (x, rp_jobspec_resource_with_first (r), q, &q->child, next)
        < 0)
        return -1;
    if (q->pool) {
        q->need[q->t] = match_to_pool (q, q->min);
        q->walk[q->t] = 1;
    } else {
        q->walk = q->need;
        if (q->exclusive && !q->slot)
            q->need[q->t] = 1;
    }
    for (struct req *c = q->child; c; c = c->next)
        need_add (nt, q->need, c);
    agg_init (x->m, q);
    q->at_level = q->slot && holds_target (x->m, q);
    /* match_walk.c's pend_ok: leaves with nothing below them, not undone
     * by an exclusive request above, no prune hook between them */
    q->leaves = !q->child && q->exclusive && !q->inherited && !q->slot
                && !q->pool && q->t >= 0 && !x->m->type_inner[q->t]
                && !x->ops.prune;
    if (!(q->acc = match_acc_get (x->m)))
        return rp_error_set (x->error, ENOMEM, "out of memory");
    return 0;
}

static int req_build (struct rp_match *x, const struct rp_jobspec_resource *r,
                      struct req *parent, struct req **list, size_t *next)
{
    struct req **tail = list;
    size_t index = 0;

    for (; r; r = rp_jobspec_resource_next (r)) {
        struct req *q;
        if (asks_nothing (r))
            continue;
        q = &x->all[(*next)++];
        q->index = index++;
        *tail = q;
        tail = &q->next;
        if (req_fill (x, q, r, parent, next) < 0)
            return -1;
        if (parent)
            parent->nchildren++;
    }
    return 0;
}

/* Free the requests a (cap entries) and their marks. */
static void reqs_free (struct req *a, size_t cap)
{
    for (size_t i = 0; a && i < cap; i++)
        free (a[i].marks);
    free (a);
}

/* What n built requests of a hold apart from the arrays: their ids and
 * accumulators (given back to m, or destroyed when m is going). */
static void reqs_release (struct rp_matcher *m, struct req *a, size_t n,
                          bool going)
{
    for (size_t i = 0; a && i < n; i++) {
        rp_idset_destroy (a[i].ids);
        if (going)
            rp_accum_destroy (a[i].acc);
        else
            match_acc_put (m, a[i].acc);
    }
}

/* The requests kept for m->rqjs are forgotten (their arrays stay). */
static void reqs_forget (struct rp_matcher *m, bool going)
{
    if (!m->rqjs)
        return;
    reqs_release (m, m->rq, m->rqn, going);
    rp_jobspec_destroy ((struct rp_jobspec *)m->rqjs);
    m->rqjs = NULL;
    m->rqn = 0;
}

void match_reqs_free (struct rp_matcher *m)
{
    reqs_forget (m, true);
    reqs_free (m->rq, m->rqcap);
    free (m->rqneed);
}

/* The requests and need vectors go back to the matcher for the next match
 * (unless a match made meanwhile gave its own back), each request's marks
 * with them; built ones are kept whole, for the next match of the same
 * jobspec.  What a match changes in a request (its marks, accumulator,
 * limit, stats) match_walk.c resets before it reads it. */
void match_reqs_destroy (struct rp_match *x)
{
    struct rp_matcher *m = x->m;

    if (!x->all && !x->needbuf)
        return;
    if (m->rq || m->rqneed) {
        reqs_release (m, x->all, x->nreqs, false);
        reqs_free (x->all, x->allcap);
        free (x->needbuf);
    } else {
        for (size_t i = 0; i < x->nreqs; i++)
            rp_accum_clear (x->all[i].acc);
        m->rq = x->all;
        m->rqcap = x->allcap;
        m->rqneed = x->needbuf;
        m->rqneedcap = x->needcap;
        if (x->nreqs > 0 && (m->rqjs = rp_jobspec_copy (x->js))) {
            m->rqn = x->nreqs;
            m->rqprune = x->ops.prune != NULL;
        } else
            reqs_release (m, x->all, x->nreqs, false);
    }
    x->all = NULL;
    x->needbuf = NULL;
}

/* n requests and nneed need entries, zeroed, from the matcher's (taken
 * from it until match_reqs_destroy) when they are large enough. */
static int reqs_alloc (struct rp_match *x, size_t n, size_t nneed)
{
    struct rp_matcher *m = x->m;

    reqs_forget (m, false);
    x->all = m->rq;
    x->allcap = m->rqcap;
    x->needbuf = m->rqneed;
    x->needcap = m->rqneedcap;
    m->rq = NULL;
    m->rqneed = NULL;
    m->rqcap = m->rqneedcap = 0;
    if (n > x->allcap) {
        struct req *a = realloc (x->all, n * sizeof (*a));
        if (!a)
            return -1;
        for (size_t i = x->allcap; i < n; i++)
            a[i].marks = NULL, a[i].markcap = 0;
        x->all = a;
        x->allcap = n;
    }
    if (nneed > x->needcap) {
        free (x->needbuf);
        if (!(x->needbuf = malloc (nneed * sizeof (*x->needbuf))))
            return x->needcap = 0, -1;
        x->needcap = nneed;
    }
    for (size_t i = 0; i < n; i++) {
        struct mark *marks = x->all[i].marks;
        size_t cap = x->all[i].markcap;
        memset (&x->all[i], 0, sizeof (x->all[i]));
        x->all[i].marks = marks;
        x->all[i].markcap = cap;
    }
    memset (x->needbuf, 0, nneed * sizeof (*x->needbuf));
    return 0;
}

/* The matcher's requests when they were built for this jobspec, graph
 * (the matcher's own) and prune hook: taken whole, nothing rebuilt. */
static bool reqs_take_kept (struct rp_match *x)
{
    struct rp_matcher *m = x->m;

    if (!m->rqjs || m->rqjs != x->js || m->rqprune != (x->ops.prune != NULL))
        return false;
    x->all = m->rq;
    x->allcap = m->rqcap;
    x->needbuf = m->rqneed;
    x->needcap = m->rqneedcap;
    x->nreqs = m->rqn;
    x->reqs = &x->all[0];
    rp_jobspec_destroy ((struct rp_jobspec *)m->rqjs); /* x->js's owner has it */
    m->rqjs = NULL;
    m->rqn = 0;
    m->rq = NULL;
    m->rqneed = NULL;
    m->rqcap = m->rqneedcap = 0;
    return true;
}

int match_reqs_create (struct rp_match *x)
{
    const struct rp_jobspec_resource *top = rp_jobspec_resource_first (x->js);
    size_t nt = x->m->ntypes ? x->m->ntypes : 1;
    size_t next = 0;

    if (reqs_take_kept (x))
        return 0;
    x->nreqs = count_requests (top);
    if (x->nreqs == 0)
        return rp_error_set (x->error, EINVAL, "the jobspec asks nothing");
    if (reqs_alloc (x, x->nreqs, 2 * x->nreqs * nt) < 0) {
        x->nreqs = 0; /* none built: nothing to put back */
        return rp_error_set (x->error, ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < x->nreqs; i++) {
        x->all[i].need = &x->needbuf[i * nt];
        x->all[i].walk = &x->needbuf[(x->nreqs + i) * nt];
    }
    if (req_build (x, top, NULL, &x->reqs, &next) < 0) {
        reqs_release (x->m, x->all, x->nreqs, false); /* not kept */
        x->nreqs = 0;
        return -1;
    }
    return 0;
}
