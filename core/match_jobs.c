/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The matcher's job records (api/respol/match.h): what each job holds,
 * its R, and the operations on them: free, RFC 27 partial release and
 * hello, RFC 28 shrink, rp_matcher_check and rp_matcher_stat.
 *
 * Decisions:
 * - Partial release drops the holds on the released ranks, and a hold
 *   above the targets (a rack) once nothing the job holds is below it; an
 *   exclusive rack keeps its other nodes out of reach until then.
 * - A job that rp_matcher_allocate makes has room in its block, after its
 *   holds, for the R it returns (and that R's children record): a match
 *   makes one allocation, where it made three (job record, R, R's
 *   children).  The block is freed by the last of the job record and that
 *   R (or a copy sharing its record): a caller that drops R at once keeps
 *   the room (about 300 bytes) until the job is freed, one that keeps R
 *   (a simulator's job) saves a block.  A slot of 4 cores: 1,271 -> 1,184
 *   instructions per command for R and the record, one free less later.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/match_private.h"
#include "core/rset_private.h"

/* --- jobs ----------------------------------------------------------------- */

/* Index of the first job with id >= jobid.  New ids usually come after
 * every other, and the job just made is the one asked about next: those
 * cases cost no search (a search reads a record per step, each its own
 * block: about 14 cache misses among 16,000 jobs). */
static size_t job_search (const struct rp_matcher *m, uint64_t jobid)
{
    size_t lo = 0, hi = m->njobs;

    if (hi == 0 || m->jobs[hi - 1]->id < jobid)
        return hi;
    if (m->jobs[hi - 1]->id == jobid)
        return hi - 1;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->jobs[mid]->id < jobid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

struct job *match_job_find (const struct rp_matcher *m, uint64_t jobid)
{
    size_t i = job_search (m, jobid);

    return i < m->njobs && m->jobs[i]->id == jobid ? m->jobs[i] : NULL;
}

struct job *match_job_get (const struct rp_matcher *m, uint64_t jobid,
                           rp_error_t *error)
{
    struct job *j = match_job_find (m, jobid);

    if (!j)
        rp_error_set (error, ENOENT, "job %ju holds no resources",
                      (uintmax_t)jobid);
    return j;
}

int match_job_insert (struct rp_matcher *m, struct job *j)
{
    size_t i = job_search (m, j->id);

    if (m->njobs == m->jobcap) {
        size_t cap = m->jobcap ? m->jobcap * 2 : 16;
        struct job **jobs = realloc (m->jobs, cap * sizeof (*jobs));
        if (!jobs)
            return -1;
        m->jobs = jobs;
        m->jobcap = cap;
    }
    memmove (&m->jobs[i + 1], &m->jobs[i], (m->njobs - i) * sizeof (*m->jobs));
    m->jobs[i] = j;
    m->njobs++;
    return 0;
}

void match_job_remove (struct rp_matcher *m, uint64_t jobid)
{
    size_t i = job_search (m, jobid);

    if (i < m->njobs && m->jobs[i]->id == jobid) {
        match_job_destroy (m->jobs[i]);
        memmove (&m->jobs[i], &m->jobs[i + 1],
                 (m->njobs - i - 1) * sizeof (*m->jobs));
        m->njobs--;
    }
}

const struct rp_rset *rp_matcher_job_rset (const struct rp_matcher *m,
                                           uint64_t jobid)
{
    struct job *j = m ? match_job_find (m, jobid) : NULL;

    if (!j) {
        errno = ENOENT;
        return NULL;
    }
    if (!j->Rjgf)
        j->Rjgf = match_rset_with_scheduling (m, j);
    return j->Rjgf;
}

size_t rp_matcher_njobs (const struct rp_matcher *m)
{
    return m ? m->njobs : 0;
}

bool rp_matcher_job_first (const struct rp_matcher *m, uint64_t *jobid)
{
    if (!m || m->njobs == 0)
        return false;
    if (jobid)
        *jobid = m->jobs[0]->id;
    return true;
}

bool rp_matcher_job_next (const struct rp_matcher *m, uint64_t *jobid)
{
    size_t i;

    if (!m || !jobid || *jobid == UINT64_MAX)
        return false;
    i = job_search (m, *jobid + 1);
    if (i >= m->njobs)
        return false;
    *jobid = m->jobs[i]->id;
    return true;
}

/* A job's block: this, the record, its holds, and room for the R that
 * allocate returns (match_job_create_with_R), which holds a reference to
 * the block while it lives. */
struct job_block {
    atomic_size_t refs; /* the record's, and the R's made in the room */
    size_t room;        /* the room's offset in the block; 0: none (left) */
};

_Static_assert (offsetof (struct job_block, refs) == 0,
                "a job's block begins with its count (rset_create_one)");
_Static_assert (sizeof (struct job) % _Alignof (struct hold) == 0,
                "a job's holds follow it in its block");
_Static_assert (sizeof (struct job_block) % _Alignof (struct job) == 0,
                "a job follows its block's header");

/* The record and its holds are one allocation (holds follow the struct):
 * one malloc and one free a job where there were two of each.  The holds
 * never grow (a partial release keeps fewer, in place).  room: bytes for
 * an R after them (rset_one_size), 0 none. */
static struct job *job_create (uint64_t jobid, const struct hold *log,
                               size_t n, double start, double expiration,
                               size_t room)
{
    const size_t align = _Alignof (max_align_t);
    struct job_block *b;
    struct job *j;
    size_t at;

    /* not zeroed: every hold is written below (zeroing them was 1.3% of
     * the LANL replay's instructions) */
    if (n >= (SIZE_MAX / 2 - sizeof (*b) - sizeof (*j) - room)
                 / sizeof (*j->holds)) {
        errno = ENOMEM;
        return NULL;
    }
    at = sizeof (*b) + sizeof (*j) + (n + 1) * sizeof (*j->holds);
    at = (at + align - 1) / align * align;
    if (!(b = malloc (room ? at + room : at))) {
        errno = ENOMEM;
        return NULL;
    }
    atomic_init (&b->refs, 1);
    b->room = room ? at : 0;
    j = (struct job *)(b + 1);
    *j = (struct job){ .holds = (struct hold *)(j + 1) };
    j->id = jobid;
    j->nholds = n;
    j->starttime = start;
    j->expiration = expiration;
    match_time_span (j);
    /* copied whole, then what only the log has cleared: fewer stores */
    for (size_t i = 0; i < n; i++) {
        j->holds[i] = log[i];
        j->holds[i].marked = false;
        j->holds[i].unit = NO_UNIT;
    }
    return j;
}

struct job *match_job_create (uint64_t jobid, const struct hold *log, size_t n,
                              double start, double expiration)
{
    return job_create (jobid, log, n, start, expiration, 0);
}

struct job *match_job_create_with_R (uint64_t jobid, const struct hold *log,
                                     size_t n, double start,
                                     double expiration)
{
    return job_create (jobid, log, n, start, expiration, rset_one_size ());
}

void *match_job_room (struct job *j, atomic_size_t **block)
{
    struct job_block *b = (struct job_block *)j - 1;
    size_t at = b->room;

    *block = &b->refs;
    b->room = 0;
    return at ? (char *)b + at : NULL;
}

void match_job_free (struct job *j)
{
    struct job_block *b = j ? (struct job_block *)j - 1 : NULL;

    if (b
        && atomic_fetch_sub_explicit (&b->refs, 1, memory_order_acq_rel) == 1)
        free (b);
}

/* --- freeing -------------------------------------------------------------- */

static int sub_push (struct rp_matcher *m, size_t *k, rp_vertex_t v)
{
    if (*k == m->subcap
        && match_grow ((void **)&m->sub, &m->subcap, sizeof (*m->sub)) < 0)
        return -1;
    m->sub[(*k)++] = v;
    return 0;
}

/* The subtrees held whole among h[0..n-1], last first, in the matcher's
 * scratch as gstate_put_whole_many reads them: each root and the parts
 * logged after it (its subtree in pre-order, as match_take_whole logged
 * it), then RP_VERTEX_NONE.  The entries, or SIZE_MAX out of memory. */
static size_t whole_lists (struct rp_matcher *m, const struct hold *h, size_t n)
{
    size_t k = 0;

    for (size_t i = n; i > 0; i--) {
        size_t j = i - 1;
        if (h[j].whole != WHOLE_ROOT)
            continue;
        do {
            if (sub_push (m, &k, h[j].v) < 0)
                return SIZE_MAX;
        } while (++j < n && h[j].whole == WHOLE_PART);
        if (sub_push (m, &k, RP_VERTEX_NONE) < 0)
            return SIZE_MAX;
    }
    return k;
}

/* Put back what h holds, last first.  The subtrees held whole go back
 * together (gstate_put_whole_many), from the lists of their holds: a
 * job's whole nodes tell their parent and its ancestors once, not once
 * per node, and are not walked.  The order does not matter to the
 * state: it is a function of the counters. */
static int holds_put (struct rp_matcher *m, const struct hold *h, size_t n)
{
    struct rp_gstate *s = graph_live (m->g);
    size_t k = whole_lists (m, h, n);
    int rc = 0;

    for (size_t i = n; i > 0; i--) {
        const struct hold *x = &h[i - 1];
        if (x->whole == WHOLE_PART || (x->whole == WHOLE_ROOT && k != SIZE_MAX))
            continue; /* put back with its root, or with the roots */
        if (x->whole == WHOLE_ROOT ? gstate_put_whole (s, x->v) < 0
                                   : gstate_put (s, x->v, x->amount,
                                                 x->exclusive)
                                         < 0)
            rc = -1;
    }
    if (k != SIZE_MAX && k > 0 && gstate_put_whole_many (s, m->sub, k) < 0)
        rc = -1;
    return rc;
}

int rp_matcher_free (struct rp_matcher *m, uint64_t jobid, rp_error_t *error)
{
    struct job *j;
    int rc;

    if (!m)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (!(j = match_job_get (m, jobid, error)))
        return -1;
    rc = j->reserved ? 0 : holds_put (m, j->holds, j->nholds);
    match_time_job_gone (m, j);
    match_job_remove (m, jobid);
    if (rc < 0)
        return rp_error_set (error, EPROTO,
                             "job %ju: the state did not hold all of it",
                             (uintmax_t)jobid);
    return 0;
}

static bool hold_released (const struct rp_graph *g, const struct hold *h,
                           const struct rp_idset *ranks)
{
    int64_t rank = rp_graph_vertex_rank (g, h->v);

    return rank >= 0 && rank <= UINT32_MAX
           && rp_idset_test (ranks, (unsigned int)rank);
}

/* Split j's holds into kept (what stays: below other ranks, and above the
 * targets what still has something held below it) and dropped. */
static void release_split (struct rp_matcher *m, const struct job *j,
                           const struct rp_idset *ranks, struct hold *kept,
                           size_t *nkept, struct hold *dropped,
                           size_t *ndropped)
{
    uint32_t epoch = match_new_epoch (m);

    for (size_t i = 0; i < j->nholds; i++) {
        rp_vertex_t v = j->holds[i].v;
        if (rp_graph_vertex_rank (m->g, v) < 0
            || hold_released (m->g, &j->holds[i], ranks))
            continue;
        for (; v != RP_VERTEX_NONE && m->mark[v] != epoch;
             v = rp_graph_parent (m->g, v))
            m->mark[v] = epoch;
    }
    *nkept = *ndropped = 0;
    for (size_t i = 0; i < j->nholds; i++) {
        const struct hold *h = &j->holds[i];
        bool keep = rp_graph_vertex_rank (m->g, h->v) < 0
                        ? m->mark[h->v] == epoch
                        : !hold_released (m->g, h, ranks);
        if (keep)
            kept[(*nkept)++] = *h;
        else
            dropped[(*ndropped)++] = *h;
    }
    /* a subtree taken whole may be split: each put back on its own */
    for (size_t i = 0; i < *nkept; i++)
        kept[i].whole = WHOLE_NONE;
    for (size_t i = 0; i < *ndropped; i++)
        dropped[i].whole = WHOLE_NONE;
}

static int release_check (const struct rp_matcher *m, struct job *j,
                          const struct rp_idset *ranks, rp_error_t *error)
{
    const struct rp_rset *R = match_job_R (m, j);
    const struct rp_idset *held = rp_rset_ranks (R);
    struct rp_idset *extra;
    unsigned int r;

    if (!R)
        return rp_error_set (error, ENOMEM, "out of memory");
    if (held && rp_idset_is_subset (ranks, held))
        return 0;
    if (!held)
        r = rp_idset_first (ranks);
    else if ((extra = rp_idset_difference (ranks, held))) {
        r = rp_idset_first (extra);
        rp_idset_destroy (extra);
    } else
        return rp_error_set (error, ENOMEM, "out of memory");
    return rp_error_set (error, EINVAL, "job %ju does not hold rank %u",
                         (uintmax_t)j->id, r);
}

int rp_matcher_release (struct rp_matcher *m, uint64_t jobid,
                        const struct rp_idset *ranks, rp_error_t *error)
{
    struct hold *kept = NULL, *dropped = NULL;
    size_t nkept, ndropped;
    struct rp_rset *R = NULL;
    struct job *j;

    if (!m || !ranks)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (!(j = match_job_get (m, jobid, error)))
        return -1;
    if (j->reserved)
        return rp_error_set (error, EINVAL,
                             "job %ju is a reservation: free it whole",
                             (uintmax_t)jobid);
    if (release_check (m, j, ranks, error) < 0)
        return -1;
    if (rp_idset_empty (ranks))
        return 0;
    if (!(kept = calloc (j->nholds + 1, sizeof (*kept)))
        || !(dropped = calloc (j->nholds + 1, sizeof (*dropped))))
        goto nomem;
    release_split (m, j, ranks, kept, &nkept, dropped, &ndropped);
    if (rp_idset_count (ranks) == rp_rset_ntargets (j->R)) {
        free (kept);
        free (dropped);
        return rp_matcher_free (m, jobid, error);
    }
    if (!(R = match_rset_build (m, kept, nkept, j->starttime, j->expiration,
                                error)))
        goto error;
    (void)holds_put (m, dropped, ndropped);
    rp_rset_destroy (j->R);
    rp_rset_destroy (j->Rjgf);
    j->Rjgf = NULL;
    memcpy (j->holds, kept, nkept * sizeof (*kept)); /* nkept <= nholds */
    j->nholds = nkept;
    j->R = R;
    match_time_released (m, j, dropped, ndropped);
    free (kept);
    free (dropped);
    return 0;
nomem:
    rp_error_set (error, ENOMEM, "out of memory");
error:
    free (kept);
    free (dropped);
    return -1;
}

/* --- state ---------------------------------------------------------------- */

static int check_vertex (const struct rp_matcher *m, const struct rp_gstate *s,
                         rp_vertex_t v, uint64_t used, uint32_t shared,
                         rp_error_t *error)
{
    const char *name = rp_graph_vertex_name (m->g, v);

    if (used > rp_graph_vertex_size (m->g, v))
        return rp_error_set (error, EPROTO, "%s: %ju units held of %ju", name,
                             (uintmax_t)used,
                             (uintmax_t)rp_graph_vertex_size (m->g, v));
    if (used && shared)
        return rp_error_set (error, EPROTO, "%s: held exclusively and shared",
                             name);
    if (gstate_used (s, v) != used)
        return rp_error_set (error, EPROTO,
                             "%s: %ju units used, the jobs hold %ju", name,
                             (uintmax_t)gstate_used (s, v), (uintmax_t)used);
    if (gstate_shared (s, v) != shared)
        return rp_error_set (error, EPROTO, "%s: %u sharers, the jobs hold %u",
                             name, gstate_shared (s, v), shared);
    return 0;
}

int rp_matcher_check (const struct rp_matcher *m, rp_error_t *error)
{
    const struct rp_gstate *s;
    uint64_t *used;
    uint32_t *shared;
    int rc = 0;

    if (!m)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    s = graph_live_const (m->g);
    used = calloc (m->nvertices + 1, sizeof (*used));
    shared = calloc (m->nvertices + 1, sizeof (*shared));
    if (!used || !shared) {
        rc = rp_error_set (error, ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < m->njobs; i++)
        for (size_t k = 0; k < m->jobs[i]->nholds && !m->jobs[i]->reserved;
             k++) {
            const struct hold *h = &m->jobs[i]->holds[k];
            if (h->exclusive)
                used[h->v] = sat_add (used[h->v], h->amount);
            else
                shared[h->v]++;
        }
    for (rp_vertex_t v = 0; v < m->nvertices && rc == 0; v++)
        rc = check_vertex (m, s, v, used[v], shared[v], error);
    if (rc == 0)
        rc = gstate_check (s, error);
    if (rc == 0)
        rc = match_time_check (m, error);
done:
    free (used);
    free (shared);
    return rc;
}

/* Units per type in vertices that are down or drained, or below one. */
static void count_down (const struct rp_matcher *m, uint64_t *down)
{
    rp_vertex_t root = rp_graph_root (m->g);
    rp_vertex_t v = root;

    while (v != RP_VERTEX_NONE) {
        rp_vertex_t next;
        if (rp_graph_vertex_state (m->g, v) == RP_VERTEX_UP) {
            v = match_subtree_next (m->g, root, v);
            continue;
        }
        for (rp_vertex_t d = v; d != RP_VERTEX_NONE;
             d = match_subtree_next (m->g, v, d)) {
            int t = rp_graph_vertex_type_index (m->g, d);
            if (t >= 0)
                down[t] += rp_graph_vertex_size (m->g, d);
        }
        /* The next vertex after v's subtree. */
        for (next = RP_VERTEX_NONE; v != root && next == RP_VERTEX_NONE;
             v = rp_graph_parent (m->g, v))
            next = rp_graph_child_next (m->g, v);
        v = next;
    }
}

json_t *rp_matcher_stat (const struct rp_matcher *m)
{
    rp_vertex_t root;
    uint64_t *down;
    json_t *o, *types;

    if (!m) {
        errno = EINVAL;
        return NULL;
    }
    root = rp_graph_root (m->g);
    if (!(down = calloc (m->ntypes + 1, sizeof (*down))))
        return NULL;
    count_down (m, down);
    o = json_pack ("{s:I s:I s:{}}", "jobs", (json_int_t)m->njobs, "vertices",
                   (json_int_t)m->nvertices, "types");
    types = o ? json_object_get (o, "types") : NULL;
    for (size_t t = 0; types && t < m->ntypes; t++) {
        json_t *e = json_pack (
            "{s:I s:I s:I}", "total",
            (json_int_t)rp_graph_subtree_total (m->g, root, (int)t), "free",
            (json_int_t)rp_graph_subtree_free (m->g, root, (int)t), "down",
            (json_int_t)down[t]);
        if (!e
            || json_object_set_new (types, rp_graph_type_name (m->g, (int)t), e)
                   < 0) {
            json_decref (o);
            o = types = NULL;
        }
    }
    free (down);
    if (!o)
        errno = ENOMEM;
    return o;
}

/* --- acquisition (RFC 28) and scheduler restart (RFC 27 hello) ------------
 *
 * What a scheduler fed by the resource acquisition protocol needs beyond
 * allocate and free (core/acquire.c drives these):
 * - rp_matcher_hello makes a job hold exactly the cores and GPUs its R
 *   names, as the job manager's hello replays running jobs.  The holds
 *   are those an allocation of the same cores and GPUs would make
 *   (exclusive units, ancestors shared), applied with the matcher's own
 *   take / rollback, so a failure changes nothing.  A target that is
 *   down or drained now is brought up for the holds and put back: the
 *   state refuses holds below a vertex that is not up, which is right
 *   for new allocations and wrong for jobs that were running before.
 * - rp_matcher_remove_targets takes a target out for good (shrink): down
 *   in the live state, and held whole in the pristine state, so that
 *   satisfiability (decided on the pristine state) no longer counts it.
 * - rp_matcher_set_properties and rp_matcher_set_values let constraints
 *   read properties (and valued ones) that change while the matcher runs.
 */

void rp_matcher_set_properties (struct rp_matcher *m, rp_matcher_property_f fn,
                                void *arg)
{
    if (m) {
        m->propfn = fn;
        m->proparg = fn ? arg : NULL;
    }
}

void rp_matcher_set_values (struct rp_matcher *m, rp_matcher_value_f fn,
                            void *arg)
{
    if (m) {
        m->valfn = fn;
        m->valarg = fn ? arg : NULL;
    }
}

const struct rp_idset *rp_matcher_removed (const struct rp_matcher *m)
{
    return m ? m->removed : NULL;
}

/* The target vertex of rank in R, checked against R's host name. */
static rp_vertex_t hello_target (const struct rp_matcher *m,
                                 const struct rp_rset *R, unsigned int rank,
                                 rp_error_t *error)
{
    rp_vertex_t v = rp_graph_rank_vertex (m->g, rank);
    const char *host = rp_rset_hostname (R, rank);

    if (v == RP_VERTEX_NONE) {
        rp_error_set (error, ENOENT, "rank %u: no such execution target", rank);
        return RP_VERTEX_NONE;
    }
    if (host && strcmp (host, rp_graph_vertex_name (m->g, v)) != 0) {
        rp_error_set (error, ENOENT, "rank %u: host %s, not %s", rank, host,
                      rp_graph_vertex_name (m->g, v));
        return RP_VERTEX_NONE;
    }
    return v;
}

struct saved_state {
    rp_vertex_t v;
    enum rp_vertex_state state;
};

struct hello {
    struct rp_match x;
    struct saved_state *saved; /* vertices brought up for the holds */
    size_t nsaved;
    size_t savedcap;
};

/* Bring v and its ancestors up, remembering what they were. */
static int hello_up (struct hello *h, rp_vertex_t v)
{
    for (; v != RP_VERTEX_NONE; v = rp_graph_parent (h->x.g, v)) {
        enum rp_vertex_state st = rp_graph_vertex_state (h->x.g, v);
        if (st == RP_VERTEX_UP)
            continue;
        if (h->nsaved == h->savedcap
            && match_grow ((void **)&h->saved, &h->savedcap, sizeof (*h->saved))
                   < 0)
            return -1;
        h->saved[h->nsaved++] = (struct saved_state){ v, st };
        (void)rp_graph_set_state (h->x.m->g, v, RP_VERTEX_UP, NULL);
    }
    return 0;
}

static void hello_restore (struct hello *h)
{
    while (h->nsaved > 0) {
        struct saved_state *s = &h->saved[--h->nsaved];
        (void)rp_graph_set_state (h->x.m->g, s->v, s->state, NULL);
    }
}

/* Hold v (a core or GPU of rank), exclusive, and its ancestors shared. */
static int hello_take (struct hello *h, rp_vertex_t v, unsigned int rank)
{
    int rc;

    if (hello_up (h, v) < 0)
        return match_nomem (&h->x);
    rc = match_take (&h->x, v, rp_graph_vertex_size (h->x.g, v), true,
                     HOLD_UNIT, NO_UNIT);
    if (rc > 0)
        rc = match_hold_ancestors (&h->x, v, NO_UNIT);
    if (rc < 0)
        return -1;
    if (rc == 0)
        return rp_error_set (
            h->x.error, EBUSY, "rank %u (%s): %s%jd is held by another job",
            rank, rp_graph_vertex_name (h->x.g, rp_graph_target (h->x.g, v)),
            rp_graph_vertex_type (h->x.g, v),
            (intmax_t)rp_graph_vertex_id (h->x.g, v));
    return 0;
}

/* The cores (kind 0) or GPUs (kind 1) of ids below target t. */
static int hello_kind (struct hello *h, rp_vertex_t t, unsigned int rank,
                       const char *type, const struct rp_idset *ids)
{
    int ti = rp_graph_type_index (h->x.g, type);
    size_t found = 0, want = rp_idset_count (ids);
    struct rp_idset *seen = rp_idset_create ();
    struct rp_idset *missing;
    int rc = 0;

    if (!seen)
        return match_nomem (&h->x);
    for (rp_vertex_t v = t; want > 0 && v != RP_VERTEX_NONE && rc == 0;
         v = match_subtree_next (h->x.g, t, v)) {
        int64_t id = rp_graph_vertex_id (h->x.g, v);
        if (rp_graph_vertex_type_index (h->x.g, v) != ti || id < 0
            || id > UINT32_MAX || !rp_idset_test (ids, (unsigned int)id)
            || rp_idset_test (seen, (unsigned int)id))
            continue;
        if (rp_idset_add (seen, (unsigned int)id) < 0)
            rc = match_nomem (&h->x);
        else if ((rc = hello_take (h, v, rank)) == 0)
            found++;
    }
    if (rc == 0 && found < want
        && (missing = rp_idset_difference (ids, seen))) {
        rc = rp_error_set (h->x.error, ENOENT, "rank %u (%s): no %s %u", rank,
                           rp_graph_vertex_name (h->x.g, t), type,
                           rp_idset_first (missing));
        rp_idset_destroy (missing);
    } else if (rc == 0 && found < want)
        rc = match_nomem (&h->x);
    rp_idset_destroy (seen);
    return rc;
}

static int hello_holds (struct hello *h, const struct rp_rset *R)
{
    const struct rp_idset *ranks = rp_rset_ranks (R);

    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r)) {
        rp_vertex_t t = hello_target (h->x.m, R, r, h->x.error);
        if (t == RP_VERTEX_NONE
            || hello_kind (h, t, r, "core", rp_rset_cores (R, r)) < 0
            || hello_kind (h, t, r, "gpu", rp_rset_gpus (R, r)) < 0)
            return -1;
    }
    return 0;
}

int rp_matcher_hello (struct rp_matcher *m, uint64_t jobid,
                      const struct rp_rset *R, rp_error_t *error)
{
    struct hello h = { 0 };
    struct job *j = NULL;

    if (!m || !R)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    if (match_job_find (m, jobid))
        return rp_error_set (error, EEXIST, "job %ju already holds resources",
                             (uintmax_t)jobid);
    if (rp_rset_ntargets (R) == 0)
        return rp_error_set (error, EINVAL, "job %ju: R has no targets",
                             (uintmax_t)jobid);
    h.x = (struct rp_match){
        .m = m, .g = m->g, .s = graph_live (m->g), .error = error
    };
    (void)match_new_epoch (m);
    if (hello_holds (&h, R) < 0)
        goto undo;
    if (!(j = match_job_create (jobid, h.x.log, h.x.nlog, rp_rset_starttime (R),
                                rp_rset_expiration (R))))
        goto nomem;
    if (match_job_insert (m, j) < 0)
        goto nomem;
    if (match_time_job_added (m, j, error) < 0) {
        match_job_remove (m, jobid);
        j = NULL;
        goto undo;
    }
    hello_restore (&h);
    free (h.x.log);
    free (h.saved);
    return 0;
nomem:
    match_nomem (&h.x);
undo:
    match_rollback (&h.x, (struct mark){ 0, 0 });
    hello_restore (&h);
    match_job_destroy (j);
    free (h.x.log);
    free (h.saved);
    return -1;
}

/* Hold the subtree of v whole in the pristine state. */
static int pristine_take_whole (struct rp_gstate *s, const struct rp_graph *g,
                                rp_vertex_t t)
{
    for (rp_vertex_t v = t; v != RP_VERTEX_NONE;
         v = match_subtree_next (g, t, v))
        if (gstate_take (s, v, rp_graph_vertex_size (g, v), true) < 0)
            return -1;
    return 0;
}

int rp_matcher_remove_targets (struct rp_matcher *m,
                               const struct rp_idset *ranks, rp_error_t *error)
{
    struct rp_gstate *s;

    if (!m || !ranks)
        return rp_error_set (error, EINVAL, "matcher: bad arguments");
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r))
        if (rp_graph_rank_vertex (m->g, r) == RP_VERTEX_NONE)
            return rp_error_set (error, ENOENT,
                                 "rank %u: no such execution target", r);
    if ((!m->removed && !(m->removed = rp_idset_create ()))
        || !(s = graph_pristine (m->g)))
        return rp_error_set (error, ENOMEM, "out of memory");
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r)) {
        rp_vertex_t v = rp_graph_rank_vertex (m->g, r);
        if (rp_idset_test (m->removed, r))
            continue;
        if (rp_idset_add (m->removed, r) < 0)
            return rp_error_set (error, ENOMEM, "out of memory");
        (void)rp_graph_set_state (m->g, v, RP_VERTEX_DOWN, NULL);
        if (pristine_take_whole (s, m->g, v) < 0)
            return rp_error_set (error, EPROTO,
                                 "rank %u: the pristine state is in use", r);
    }
    return 0;
}
