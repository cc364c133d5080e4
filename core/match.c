/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The matcher (api/respol/match.h): its life, its policy, and the entry
 * points that place a jobspec (allocate, satisfiability), with the
 * services a match policy reads during a match (the RP_PLUGIN_MATCH
 * section of api/respol/plugin.h).  How a match is placed is
 * match_walk.c's; core/match_private.h says what the other files hold.
 *
 * A match that fails on the live state runs again on the pristine state
 * (graph_pristine): failing there too makes it ENODEV, else EBUSY; the
 * reason is written for the top-level request that failed.
 *
 * Per match, memory grows with the request and the candidates found,
 * never with the graph: the only per-vertex arrays (marks of what this
 * match holds, hold lookups for verify, rows of rp_match_held) are
 * allocated once with the matcher and reset by an epoch counter.  The undo and
 * unit logs and the candidate accumulators are kept by the matcher between
 * matches (reset, not freed): freeing them every match made the allocator
 * consolidate its free chunks on each one.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/match_private.h"
#include "core/context_private.h"
#include "core/graph_impl.h" /* st_agg: rp_match_subtree_free */

/* --- the matcher ---------------------------------------------------------- */

const char *match_unit_or_default (const char *type, const char *unit)
{
    if (unit && *unit)
        return unit;
    return strcmp (type, "memory") == 0 ? "GB" : "";
}

static int types_init (struct rp_matcher *m)
{
    m->ntypes = rp_graph_ntypes (m->g);
    m->type_core = rp_graph_type_index (m->g, "core");
    m->type_gpu = rp_graph_type_index (m->g, "gpu");
    m->type_pool = calloc (m->ntypes + 1, sizeof (*m->type_pool));
    m->type_unit = calloc (m->ntypes + 1, sizeof (*m->type_unit));
    m->type_target = calloc (m->ntypes + 1, sizeof (*m->type_target));
    m->type_inner = calloc (m->ntypes + 1, sizeof (*m->type_inner));
    if (!m->type_pool || !m->type_unit || !m->type_target || !m->type_inner)
        return -1;
    for (size_t t = 0; t < m->ntypes; t++)
        m->type_unit[t] = "";
    for (rp_vertex_t v = 0; v < m->nvertices; v++) {
        int t = rp_graph_vertex_type_index (m->g, v);
        const char *unit = rp_graph_vertex_unit (m->g, v);
        if (t < 0)
            continue;
        if (rp_graph_vertex_size (m->g, v) > 1 || (unit && *unit))
            m->type_pool[t] = true;
        if (unit && *unit && !*m->type_unit[t])
            m->type_unit[t] = unit;
        if (is_target (m->g, v))
            m->type_target[t] = true;
        if (rp_graph_child_first (m->g, v) != RP_VERTEX_NONE)
            m->type_inner[t] = true;
    }
    for (size_t t = 0; t < m->ntypes; t++)
        if (m->type_pool[t])
            m->type_unit[t] = match_unit_or_default (
                rp_graph_type_name (m->g, (int)t), m->type_unit[t]);
    return 0;
}

/* What the fast paths need to know of a parent with many children. */
static void big_parent_init (const struct rp_graph *g, rp_vertex_t v,
                             struct bigp *b)
{
    rp_vertex_t c = rp_graph_child_first (g, v);
    int64_t last = -1;

    *b = (struct bigp){ .v = v,
                        .type = rp_graph_vertex_type_index (g, c),
                        .targets = true,
                        .ids_up = true };
    for (; c != RP_VERTEX_NONE; c = rp_graph_child_next (g, c)) {
        int64_t id = rp_graph_vertex_id (g, c);
        if (rp_graph_vertex_type_index (g, c) != b->type)
            b->type = -1;
        if (!is_target (g, c))
            b->targets = false;
        if (id <= last)
            b->ids_up = false;
        last = id;
    }
}

static int big_parents_init (struct rp_matcher *m)
{
    size_t n = 0;

    for (rp_vertex_t v = 0; v < m->nvertices; v++)
        n += rp_graph_nchildren (m->g, v) > BIG_PARENT;
    if (n == 0)
        return 0;
    if (!(m->big = calloc (n, sizeof (*m->big))))
        return -1;
    for (rp_vertex_t v = 0; v < m->nvertices; v++)
        if (rp_graph_nchildren (m->g, v) > BIG_PARENT)
            big_parent_init (m->g, v, &m->big[m->nbig++]);
    return 0;
}

/* Big parents are as many as the nodes where nodes have many cores, and
 * evenly spaced in handles when the nodes are alike: the place v would
 * have at an even spacing is looked at first, then the binary search
 * (a match asks two to three times: 435 -> 209 instructions per match on
 * 1,024 nodes of 64 cores and 4 GPUs). */
struct bigp *match_big_parent (const struct rp_matcher *m, rp_vertex_t v)
{
    size_t lo = 0, hi = m->nbig;

    if (hi > 1 && v >= m->big[0].v && v <= m->big[hi - 1].v) {
        size_t guess = (size_t)((uint64_t)(v - m->big[0].v) * (hi - 1)
                                / (m->big[hi - 1].v - m->big[0].v));
        if (m->big[guess].v == v)
            return &m->big[guess];
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->big[mid].v < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nbig && m->big[lo].v == v ? &m->big[lo] : NULL;
}

struct rp_matcher *rp_matcher_create (struct rp_graph *g, rp_error_t *error)
{
    struct rp_matcher *m;

    if (!g || !rp_graph_is_finalized (g)) {
        rp_graph_destroy (g);
        rp_error_set (error, EINVAL, "matcher: the graph is not finalized");
        return NULL;
    }
    if (!(m = calloc (1, sizeof (*m))))
        goto nomem;
    m->g = g;
    m->nvertices = rp_graph_nvertices (g);
    m->mark = calloc (m->nvertices + 1, sizeof (*m->mark));
    m->where = calloc (m->nvertices + 1, sizeof (*m->where));
    m->hepoch = calloc (m->nvertices + 1, sizeof (*m->hepoch));
    m->hrow = calloc (m->nvertices + 1, sizeof (*m->hrow));
    m->hostok = calloc (m->nvertices / 8 + 1, 1);
    if (!m->mark || !m->where || !m->hepoch || !m->hrow || !m->hostok
        || types_init (m) < 0
        || big_parents_init (m) < 0 || !graph_live (g))
        goto nomem;
    return m;
nomem:
    rp_matcher_destroy (m);
    if (!m)
        rp_graph_destroy (g);
    rp_error_set (error, ENOMEM, "matcher: out of memory");
    return NULL;
}

void match_job_destroy (struct job *j)
{
    if (j) {
        free (j->rspan); /* the holds are in j's block */
        rp_rset_destroy (j->R);
        rp_rset_destroy (j->Rjgf);
        match_job_free (j); /* the R allocate made in its block may live on */
    }
}

void rp_matcher_destroy (struct rp_matcher *m)
{
    int saved = errno;

    if (m) {
        match_time_destroy (m);
        for (size_t i = 0; i < m->njobs; i++)
            match_job_destroy (m->jobs[i]);
        free (m->jobs);
        free (m->log);
        free (m->units);
        for (size_t i = 0; i < m->naccs; i++)
            rp_accum_destroy (m->accs[i]);
        free (m->accs);
        free (m->perm);
        free (m->sub);
        free (m->pend);
        free (m->pruned);
        match_reqs_free (m);
        free (m->mark);
        free (m->where);
        free (m->hepoch);
        free (m->hrow);
        free (m->hostok);
        free (m->vbuf);
        free (m->hrows);
        free (m->type_pool);
        free (m->type_unit);
        free (m->type_target);
        free (m->type_inner);
        free (m->big);
        json_decref (m->explanation);
        rp_idset_destroy (m->removed);
        rp_graph_destroy (m->g);
        free (m);
    }
    errno = saved;
}

struct rp_graph *rp_matcher_graph (struct rp_matcher *m)
{
    return m ? m->g : NULL;
}

int rp_matcher_set_policy (struct rp_matcher *m, const struct rp_plugin *p,
                           rp_error_t *error)
{
    if (!m)
        return rp_error_set (error, EINVAL, "matcher: no matcher");
    if (p && p->kind != RP_PLUGIN_MATCH)
        return rp_error_set (error, EINVAL,
                             "matcher: plugin '%s' is not a match policy",
                             p->instance ? p->instance : "?");
    m->policy = p;
    return 0;
}

void rp_matcher_set_scheduling (struct rp_matcher *m, bool on)
{
    if (m)
        m->nosched = !on;
}

void rp_matcher_set_hints (struct rp_matcher *m, bool on)
{
    if (m)
        m->nohints = !on;
}

const char *rp_matcher_policy_name (const struct rp_matcher *m)
{
    if (m && m->policy && m->policy->instance)
        return m->policy->instance;
    return "first";
}

/* A new epoch for the per-vertex marks; they are cleared when it wraps. */
uint32_t match_new_epoch (struct rp_matcher *m)
{
    if (++m->epoch == 0) {
        memset (m->mark, 0, m->nvertices * sizeof (*m->mark));
        memset (m->hepoch, 0, m->nvertices * sizeof (*m->hepoch));
        m->epoch = 1;
    }
    return m->epoch;
}

/* An empty accumulator: a spare one, or a new one (NULL: no memory). */
struct rp_accum *match_acc_get (struct rp_matcher *m)
{
    if (m->naccs > 0)
        return m->accs[--m->naccs];
    return rp_accum_create (0);
}

/* Keep a for the next match_acc_get (destroyed when there is no room). */
void match_acc_put (struct rp_matcher *m, struct rp_accum *a)
{
    if (!a)
        return;
    rp_accum_clear (a);
    if (m->naccs == m->acccap) {
        size_t cap = m->acccap ? m->acccap * 2 : 16;
        struct rp_accum **accs = realloc (m->accs, cap * sizeof (*accs));
        if (!accs) {
            rp_accum_destroy (a);
            return;
        }
        m->accs = accs;
        m->acccap = cap;
    }
    m->accs[m->naccs++] = a;
}

/* --- matching ------------------------------------------------------------- */

void match_cleanup (struct rp_match *x)
{
    int saved = errno;

    match_reqs_destroy (x);
    rp_constraint_destroy (x->constraint);
    if (!x->m->pruned)
        x->m->pruned = x->pruned;
    else
        free (x->pruned);
    if (!x->m->log && !x->m->units) { /* kept for the next match */
        x->m->log = x->log;
        x->m->logcap = x->logcap;
        x->m->units = x->units;
        x->m->unitcap = x->unitcap;
    } else {
        free (x->log);
        free (x->units);
    }
    errno = saved;
}

int match_setup (struct rp_matcher *m, const struct rp_jobspec *js,
                 struct rp_match *x, rp_error_t *error)
{
    json_t *c = rp_jobspec_constraints (js);
    rp_error_t e;

    x->m = m;
    x->g = m->g;
    x->js = js;
    x->log = m->log; /* the matcher's scratch, given back by cleanup */
    x->logcap = m->logcap;
    x->units = m->units;
    x->unitcap = m->unitcap;
    m->log = NULL;
    m->logcap = 0;
    m->units = NULL;
    m->unitcap = 0;
    x->error = error;
    x->ops.stop_after = 1;
    if ((x->pruned = m->pruned)) /* the matcher's, given back by cleanup */
        memset (x->pruned, 0, (m->ntypes + 1) * sizeof (*x->pruned));
    else if (!(x->pruned = calloc (m->ntypes + 1, sizeof (*x->pruned))))
        return rp_error_set (error, ENOMEM, "out of memory");
    m->pruned = NULL;
    if (m->policy) {
        x->p = (struct rp_plugin *)m->policy; /* the host's instance */
        x->track = true;
        x->ops = m->policy->match;
        if (x->ops.order != RP_MATCH_LOW && x->ops.order != RP_MATCH_HIGH)
            return rp_error_set (error, EPROTO, "policy '%s': unknown order %u",
                                 x->p->instance, x->ops.order);
    }
    if (c && !(x->constraint = rp_constraint_compile (c, &e)))
        return rp_error_set (error, errno == ENOMEM ? ENOMEM : EINVAL, "%s",
                             e.text);
    return match_reqs_create (x);
}

/* Find js on the live state (0: it holds the match), else say why: EBUSY
 * when the pristine state would hold it, ENODEV when not. */
int match_find (struct rp_match *x)
{
    char busy[RP_ERROR_TEXT_SIZE];
    json_t *live = NULL;
    int rc;

    x->s = graph_live (x->m->g);
    x->sat = false;
    match_explain_keep (x->m, NULL);
    if ((rc = match_run (x)) != 0) {
        if (rc > 0)
            match_explain_run (x, "allocated", NULL);
        return rc > 0 ? 0 : -1;
    }
    match_reason (x, true, busy, sizeof (busy));
    if (x->m->explain)
        live = match_explain_json (x, "not now", busy);
    if (!(x->s = graph_pristine (x->m->g))) {
        json_decref (live);
        return match_nomem (x);
    }
    x->sat = true;
    rc = match_run (x);
    match_rollback (x, (struct mark){ 0, 0 });
    if (rc != 0) {
        match_explain_keep (x->m, rc > 0 ? live : NULL);
        return rc > 0 ? rp_error_set (x->error, EBUSY, "%s", busy) : -1;
    }
    json_decref (live);
    match_reason (x, false, busy, sizeof (busy));
    match_explain_run (x, "never", busy);
    return rp_error_set (x->error, ENODEV, "%s", busy);
}

struct rp_rset *match_job_result (struct rp_matcher *m, struct job *j,
                                  rp_error_t *error)
{
    struct rp_rset *R;

    if (!(R = match_job_rset (m, j, error)))
        return NULL;
    /* without the scheduling key, R goes to the caller and the job record
     * builds its own when it needs one (release, rp_matcher_job_rset):
     * none is copied for every job */
    if (!m->nosched) {
        j->R = R;
        if (!(R = match_rset_with_scheduling (m, j)))
            rp_error_set (error, ENOMEM, "out of memory");
    }
    return R;
}

int match_admit (struct rp_matcher *m, uint64_t jobid,
                 const struct rp_jobspec *js, double now, rp_error_t *error)
{
    if (!m || !js)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (match_job_find (m, jobid))
        return rp_error_set (error, EEXIST, "job %ju already holds resources",
                             (uintmax_t)jobid);
    if (now > m->now)
        m->now = now;
    return 0;
}

/* Match js on the live state (a matcher without reservations: the caller
 * has admitted the job and checked m->time), check the proposal and make
 * job jobid's record of it (not yet among the matcher's jobs): the job,
 * or NULL with error set and x's holds undone.  The caller cleans x up. */
static struct job *allocate_job (struct rp_matcher *m, struct rp_match *x,
                                 uint64_t jobid, const struct rp_jobspec *js,
                                 double now, bool with_R, rp_error_t *error)
{
    double duration = rp_jobspec_duration (js);
    double end = duration > 0 ? now + duration : 0;
    struct job *j;

    if (match_setup (m, js, x, error) < 0 || match_find (x) < 0)
        return NULL;
    if (match_verify (x) < 0)
        goto undo;
    if (!(j = with_R ? match_job_create_with_R (jobid, x->log, x->nlog, now,
                                                end)
                     : match_job_create (jobid, x->log, x->nlog, now, end))) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto undo;
    }
    return j;
undo:
    match_rollback (x, (struct mark){ 0, 0 });
    return NULL;
}

struct rp_rset *rp_matcher_allocate (struct rp_matcher *m, uint64_t jobid,
                                     const struct rp_jobspec *js, double now,
                                     rp_error_t *error)
{
    struct rp_match x = { 0 };
    struct rp_rset *R = NULL;
    struct job *j = NULL;

    if (match_admit (m, jobid, js, now, error) < 0)
        return NULL;
    if (m->time)
        return match_time_allocate (m, jobid, js, now, false, NULL, error);
    if (!(j = allocate_job (m, &x, jobid, js, now, true, error)))
        goto error;
    if (!(R = match_job_result (m, j, error)))
        goto undo;
    if (match_job_insert (m, j) < 0)
        goto nomem;
    match_cleanup (&x);
    return R;
nomem:
    rp_error_set (error, ENOMEM, "out of memory");
undo:
    match_rollback (&x, (struct mark){ 0, 0 });
error:
    rp_rset_destroy (R);
    match_job_destroy (j);
    if (x.m)
        match_cleanup (&x);
    return NULL;
}

int match_pristine (struct rp_match *x)
{
    char buf[RP_ERROR_TEXT_SIZE];
    int rc;

    if (!(x->s = graph_pristine (x->m->g)))
        return match_nomem (x);
    x->sat = true;
    rc = match_run (x);
    match_rollback (x, (struct mark){ 0, 0 });
    if (rc == 0) {
        match_reason (x, false, buf, sizeof (buf));
        match_explain_run (x, "never", buf);
        return rp_error_set (x->error, ENODEV, "%s", buf);
    }
    return rc > 0 ? 0 : -1;
}

int rp_matcher_allocate_held (struct rp_matcher *m, uint64_t jobid,
                              const struct rp_jobspec *js, double now,
                              rp_error_t *error)
{
    struct rp_match x = { 0 };
    struct job *j;

    if (match_admit (m, jobid, js, now, error) < 0)
        return -1;
    if (m->time) {
        /* in time, the allocation of rp_matcher_allocate, its R dropped */
        struct rp_rset *R =
            match_time_allocate (m, jobid, js, now, false, NULL, error);
        rp_rset_destroy (R);
        return R ? 0 : -1;
    }
    if (!(j = allocate_job (m, &x, jobid, js, now, false, error)))
        goto error;
    /* the host names R would be refused for: refused here too */
    if (match_job_hosts_check (m, j, error) < 0)
        goto undo;
    if (match_job_insert (m, j) < 0) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto undo;
    }
    match_cleanup (&x);
    return 0;
undo:
    match_rollback (&x, (struct mark){ 0, 0 });
    match_job_destroy (j);
error:
    if (x.m)
        match_cleanup (&x);
    return -1;
}

int rp_matcher_satisfiability (struct rp_matcher *m,
                               const struct rp_jobspec *js, rp_error_t *error)
{
    struct rp_match x = { 0 };
    int rc = -1;

    if (!m || !js)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (match_setup (m, js, &x, error) < 0)
        goto done;
    match_explain_keep (m, NULL);
    if ((rc = match_pristine (&x)) == 0)
        match_explain_run (&x, "satisfiable", NULL);
done:
    match_cleanup (&x);
    return rc;
}

/* --- services for match policies ------------------------------------------ */

const struct rp_graph *rp_match_graph (const struct rp_match *m)
{
    return m ? m->g : NULL;
}

const struct rp_context *rp_match_context (const struct rp_match *m)
{
    return m && m->m->ctx ? m->m->ctx : context_empty ();
}

const struct rp_instance *rp_match_instance (const struct rp_match *m)
{
    return m ? m->m->inst : NULL;
}

void rp_matcher_set_context (struct rp_matcher *m, const struct rp_context *ctx)
{
    if (m)
        m->ctx = ctx;
}

void rp_matcher_set_instance (struct rp_matcher *m,
                              const struct rp_instance *inst)
{
    if (m)
        m->inst = inst;
}

const struct rp_jobspec *rp_match_jobspec (const struct rp_match *m)
{
    return m ? m->js : NULL;
}

const struct rp_jobspec_resource *rp_match_request (const struct rp_match *m)
{
    return m && m->cur ? m->cur->r : NULL;
}

int rp_match_request_type (const struct rp_match *m)
{
    return m && m->cur ? m->cur->t : -1;
}

uint64_t rp_match_count_need (const struct rp_match *m)
{
    if (!m || !m->cur)
        return 0;
    if (m->cur->pool) {
        uint64_t want = match_to_pool (m->cur, m->cur->min);
        return m->cur->avail >= want ? 0 : want - m->cur->avail;
    }
    return m->found >= m->cur->min ? 0 : m->cur->min - m->found;
}

uint64_t rp_match_unit_need (const struct rp_match *m, int t)
{
    if (!m || !m->cur || t < 0 || (size_t)t >= m->m->ntypes)
        return 0;
    return m->cur->need[t];
}

bool rp_match_is_satisfiability (const struct rp_match *m)
{
    return m && m->sat;
}

uint64_t rp_match_vertex_free (const struct rp_match *m, rp_vertex_t v)
{
    if (!m || v >= m->m->nvertices)
        return 0;
    return gstate_free (m->s, v);
}

uint64_t rp_match_subtree_free (const struct rp_match *m, rp_vertex_t v, int t)
{
    /* the state's own inline read: a scoring policy asks once per type
     * for every vertex it scores */
    if (!m || v >= m->m->nvertices || t < 0 || (size_t)t >= m->m->ntypes)
        return 0;
    return st_agg (m->s, v, (size_t)t);
}

/* How many entries of an array of n the *_needs / *_frees accessors
 * write. */
static size_t row_len (const struct rp_match *m, const uint64_t *a, size_t n)
{
    if (!a)
        return 0;
    return n < m->m->ntypes ? n : m->m->ntypes;
}

size_t rp_match_unit_needs (const struct rp_match *m, uint64_t *need,
                            size_t n)
{
    size_t k;

    if (!m)
        return 0;
    if ((k = row_len (m, need, n)) == 0)
        return m->m->ntypes;
    if (m->cur)
        memcpy (need, m->cur->need, k * sizeof (*need));
    else
        memset (need, 0, k * sizeof (*need));
    return m->m->ntypes;
}

size_t rp_match_subtree_frees (const struct rp_match *m, rp_vertex_t v,
                               uint64_t *free, size_t n)
{
    size_t k;

    if (!m)
        return 0;
    if ((k = row_len (m, free, n)) == 0)
        return m->m->ntypes;
    if (v < m->m->nvertices)
        gstate_agg_row (m->s, v, free, k);
    else
        memset (free, 0, k * sizeof (*free));
    return m->m->ntypes;
}

uint64_t rp_match_held (const struct rp_match *m, rp_vertex_t v, int t)
{
    const uint64_t *row;

    if (!m || !m->track || v >= m->m->nvertices || t < 0
        || (size_t)t >= m->m->ntypes)
        return 0;
    if (match_held_sync (m) < 0) { /* the hook's caller fails the match */
        m->m->hnomem = true;
        return 0;
    }
    if (!(row = match_held_row (m, v)))
        return 0;
    return row[t];
}
