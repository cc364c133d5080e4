/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* A job's holds as R (RFC 20): R_lite with the cores and GPUs of each
 * target, and the scheduling key, the allocated subgraph as JGF (what
 * R_lite cannot say: sockets, memory, other types).
 *
 * The scheduling key is written as text (rp_graph_subgraph_encode), not
 * built as a jansson tree: building, dumping and freeing the tree of a
 * whole node's subgraph was most of the cost of an allocation.
 *
 * Job records keep R without the scheduling key: the allocated subgraph
 * of a whole node is about a hundred JSON objects; kept for every job it
 * made memory, and the allocator's work, grow with the number of jobs.
 *
 * A caller that reads only counts and a nodelist (rp_matcher_allocate_held,
 * rp_matcher_job_count, rp_matcher_job_nodelist) gets them from the holds
 * as R would show them (ids deduplicated per target, host names checked
 * as R checks them), without building R: building R and its idsets for
 * every job started was a quarter of a whole trace's replay.
 *
 * A subtree held whole (an exclusive node: its root's hold, then its
 * parts in pre-order) gives its target once, from its root, and its
 * cores and GPUs as ranges of consecutive ids read straight from the
 * graph (graph_id_runs): a whole node of 64 cores and 4 GPUs is two
 * items, not 73 each with a climb to its target (an exclusive node
 * 49,987 -> 43,310 instructions per command).  A subtree with targets
 * below its root (an exclusive rack) is taken hold by hold as before.
 *
 * R is written straight from the holds (rset_targets_stream) while each
 * target's holds come together, as the walk gives them: each target
 * started once, its rank and name from one look-up of its side entry,
 * its ids added as runs, no items kept; targets in ascending rank are
 * appended, others (a policy's order) too, R's targets then sorted once.
 * A target's holds apart or a refused host name start again through the
 * items sorted by rank, as R was built before, so that R and the error
 * are the same
 * (under high, a job of 2 nodes of 4 cores 32,365 -> 28,905 instructions
 * per command, of 128 nodes 1,092,430 -> 949,333).  A hold's target is
 * itself or its parent's, the last parent's remembered (a slot's cores
 * climb once), and the first range of a target's idset is written in
 * place (rset_ids_add_range): a slot of 4 cores, match_rset_build 1,721
 * -> 1,565 instructions, then 1,391 -> 990 (R's children in its block
 * between, see core/rset.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph_impl.h" /* the accessors inlined */
#include "core/match_private.h"
#include "core/rset_private.h"

/* --- R -------------------------------------------------------------------- */

struct ritem {
    int64_t rank;
    rp_vertex_t tv; /* the target of that rank */
    int kind;       /* 0 core, 1 gpu, 2 other */
    int64_t id, hi; /* ids id .. hi: one, but for a subtree held whole */
};

/* A job of one slot, or of a whole node (its ids as ranges), holds a few
 * items: on the stack. */
#define RITEM_BUF 32

/* Items being made: in the caller's buffer (RITEM_BUF entries) until
 * they outgrow it. */
struct ritems {
    struct ritem *it, *buf;
    size_t k, cap;
};

static inline struct ritem *ritem_push (struct ritems *r)
{
    if (r->k == r->cap) {
        size_t cap = r->cap * 2;
        struct ritem *it = r->it == r->buf
                               ? malloc (cap * sizeof (*it))
                               : realloc (r->it, cap * sizeof (*it));
        if (!it)
            return NULL;
        if (r->it == r->buf)
            memcpy (it, r->buf, r->k * sizeof (*it));
        r->it = it;
        r->cap = cap;
    }
    return &r->it[r->k++];
}

static void ritems_free (struct ritem *it, const struct ritem *buf)
{
    if (it != buf)
        free (it);
}

static int ritem_cmp (const void *a, const void *b)
{
    const struct ritem *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return 0;
}

/* The host name of target vertex tv, name (NULL: looked up here),
 * checked as rp_rset_add_target checks it the first time the matcher
 * writes it (m->hostok: the names of a finalized graph do not change);
 * NULL with the error set. */
static const char *target_host_named (const struct rp_matcher *m,
                                      rp_vertex_t tv, const char *name,
                                      rp_error_t *error)
{
    if (!name && tv != RP_VERTEX_NONE)
        name = rp_graph_vertex_name (m->g, tv);
    if (tv != RP_VERTEX_NONE && tv < m->nvertices
        && (m->hostok[tv / 8] & (1u << (tv % 8))))
        return name;
    if (rset_host_check (name, error) < 0)
        return NULL;
    if (tv < m->nvertices)
        m->hostok[tv / 8] |= (uint8_t)(1u << (tv % 8));
    return name;
}

static const char *target_host (const struct rp_matcher *m, rp_vertex_t tv,
                                rp_error_t *error)
{
    return target_host_named (m, tv, NULL, error);
}

/* The rank of target tv (-1: none) and its name when its side entry has
 * one (else NULL: rp_graph_vertex_name makes it), from one look-up of
 * that entry: what rp_graph_vertex_rank and rp_graph_vertex_name find
 * there each. */
static int64_t target_rank_name (const struct rp_graph *g, rp_vertex_t tv,
                                 const char **name)
{
    const struct side *s = graph_side_get (g, tv);

    *name = s ? s->name : NULL;
    return s ? s->rank : -1;
}

/* The core and GPU ids of one rank's n items into ids[kind], a run of
 * consecutive ids (a slot's cores, in either order; a whole node's
 * ranges) as one range. */
static int add_ids (struct rp_idset *ids[2], const struct ritem *it, size_t n)
{
    int64_t lo = -1, hi = -1;
    int kind = -1;

    for (size_t i = 0; i <= n; i++) {
        bool in =
            i < n && it[i].kind < 2 && it[i].id >= 0 && it[i].hi <= UINT32_MAX;
        if (in && it[i].kind == kind && it[i].id == hi + 1)
            hi = it[i].hi;
        else if (in && it[i].kind == kind && it[i].hi == lo - 1)
            lo = it[i].id;
        else if (i == n || in) {
            if (kind >= 0
                && rp_idset_add_range (ids[kind], (unsigned int)lo,
                                       (unsigned int)hi)
                       < 0)
                return -1;
            kind = in ? it[i].kind : -1;
            lo = in ? it[i].id : -1;
            hi = in ? it[i].hi : -1;
        }
    }
    return 0;
}

static int rset_add_rank (struct rp_rset *R, const struct rp_matcher *m,
                          const struct ritem *it, size_t n, rp_error_t *error)
{
    struct rp_idset *ids[2];
    const char *host;

    if (!(host = target_host (m, it[0].tv, error))
        || rset_add_target_empty (R, (unsigned int)it[0].rank, host, &ids[0],
                                  &ids[1], error)
               < 0)
        return -1;
    if (add_ids (ids, it, n) < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    return 0;
}

/* The item of hold h at target tv of that rank, into it. */
static inline void hold_item (const struct rp_matcher *m, struct ritem *it,
                              const struct hold *h, rp_vertex_t tv,
                              int64_t rank)
{
    const struct rp_graph *g = m->g;
    int t = graph_type_index (g, h->v);

    it->rank = rank;
    it->tv = tv;
    it->kind = h->kind == HOLD_ANCESTOR ? 2
               : t == m->type_core      ? 0
               : t == m->type_gpu       ? 1
                                        : 2;
    it->id = it->hi = graph_id (g, h->v);
}

/* The items of a subtree held whole, its root h[0] and its n parts after
 * it, into w (RITEM_BUF + 1 entries): the root's, then its parts' cores
 * and GPUs as ranges of ids, the target looked up once for all.  Their
 * number (0: none in R), or SIZE_MAX when its parts do not all have the
 * root's target or make more ranges than w holds (the caller takes them
 * one by one). */
static size_t whole_items (const struct rp_matcher *m, const struct hold *h,
                           size_t n, struct ritem *w)
{
    const struct rp_graph *g = m->g;
    const int t[2] = { m->type_core, m->type_gpu };
    struct graph_idrun run[RITEM_BUF];
    size_t nrun = graph_id_runs (g, &h[1].v, sizeof (*h), n, t, run, RITEM_BUF);
    rp_vertex_t tv = graph_target (g, h[0].v);
    int64_t rank = tv != RP_VERTEX_NONE ? rp_graph_vertex_rank (g, tv) : -1;

    if (nrun == SIZE_MAX)
        return SIZE_MAX;
    if (rank < 0 || rank > UINT32_MAX)
        return 0;
    hold_item (m, &w[0], &h[0], tv, rank);
    for (size_t i = 0; i < nrun; i++)
        w[i + 1] = (struct ritem){ .rank = rank,
                                   .tv = tv,
                                   .kind = run[i].type == m->type_core ? 0 : 1,
                                   .id = run[i].lo,
                                   .hi = run[i].hi };
    return nrun + 1;
}

/* The holds at or below execution targets as R items, sorted by rank
 * (*k of them), or NULL (ENOMEM): in buf (RITEM_BUF entries, the
 * caller's) when they fit, else allocated (ritems_free).  ranges: a
 * subtree held whole gives its ids as ranges (one item may then stand
 * for several ids), else one item per hold. */
static struct ritem *rank_items (const struct rp_matcher *m,
                                 const struct hold *holds, size_t n, size_t *k,
                                 struct ritem *buf, bool ranges)
{
    const struct rp_graph *g = m->g;
    struct ritems r = { .it = buf, .buf = buf, .cap = RITEM_BUF };
    struct ritem w[RITEM_BUF + 1], *it;
    rp_vertex_t last = RP_VERTEX_NONE;
    int64_t rank = -1;
    size_t e, nw;

    for (size_t i = 0; i < n; i++) {
        if (holds[i].whole == WHOLE_ROOT && ranges
            && (e = match_whole_end (holds, i, n)) > i + 1
            && (nw = whole_items (m, &holds[i], e - i - 1, w)) != SIZE_MAX) {
            for (size_t j = 0; j < nw; j++) {
                if (!(it = ritem_push (&r)))
                    goto nomem;
                *it = w[j];
            }
            i = e - 1;
            continue;
        }
        rp_vertex_t tv = graph_target (g, holds[i].v);
        /* a target's holds come together: its rank looked up once (the
         * holds above targets, between them, do not forget it) */
        if (tv == RP_VERTEX_NONE)
            continue;
        if (tv != last) {
            rank = rp_graph_vertex_rank (g, tv);
            last = tv;
        }
        if (rank < 0 || rank > UINT32_MAX)
            continue;
        if (!(it = ritem_push (&r)))
            goto nomem;
        hold_item (m, it, &holds[i], tv, rank);
    }
    /* holds come in walk order, a target's together: sorted by rank
     * already, but for a policy's order or a release */
    for (size_t i = 1; i < r.k; i++)
        if (r.it[i].rank < r.it[i - 1].rank) {
            qsort (r.it, r.k, sizeof (*r.it), ritem_cmp);
            break;
        }
    *k = r.k;
    return r.it;
nomem:
    ritems_free (r.it, buf);
    return NULL;
}

/* The end of the rank of it[i] among k items. */
static size_t rank_end (const struct ritem *it, size_t i, size_t k)
{
    size_t j = i;

    while (j < k && it[j].rank == it[i].rank)
        j++;
    return j;
}

/* R's targets from the items of rank_items: sorted, a rank's together. */
static int rset_targets_sorted (struct rp_rset *R, const struct rp_matcher *m,
                                const struct hold *holds, size_t n,
                                rp_error_t *error)
{
    size_t k;
    struct ritem buf[RITEM_BUF];
    struct ritem *it = rank_items (m, holds, n, &k, buf, true);
    int rc = 0;

    if (!it)
        return rp_error_set (error, ENOMEM, "out of memory");
    for (size_t i = 0, j; i < k && rc == 0; i = j) {
        j = rank_end (it, i, k);
        rc = rset_add_rank (R, m, &it[i], j - i, error);
    }
    ritems_free (it, buf);
    return rc;
}

/* R written straight from the holds while each target's holds come
 * together: the target being written, its idsets, and the run of ids not
 * yet added (add_ids's runs).  Targets come in ascending rank in walk
 * order; in another order (a policy's) they are appended all the same
 * (rset_push_target_empty) and sorted once at the end. */
struct rstream {
    struct rp_rset *R;
    const struct rp_matcher *m;
    rp_error_t *error;
    rp_vertex_t tv; /* the target being written, or NONE */
    int64_t max;    /* the highest rank written */
    bool unsorted;  /* a target was written below it */
    rp_vertex_t p;  /* the parent last climbed from (a slot's cores share
                     * it), and its target */
    rp_vertex_t ptv;
    struct rp_idset *ids[2];
    int kind; /* the run's, -1: none */
    int64_t lo, hi;
};

enum { RS_OK = 0, RS_FAIL = -1, RS_SORT = 1, RS_SKIP = 2 };

static int rs_flush (struct rstream *s)
{
    if (s->kind >= 0
        && rset_ids_add_range (s->ids[s->kind], (unsigned int)s->lo,
                               (unsigned int)s->hi)
               < 0)
        return rp_error_set (s->error, ENOMEM, "out of memory");
    s->kind = -1;
    return RS_OK;
}

/* Start target tv: its rank and name from its side entry.  RS_SKIP when
 * its rank is not in 0 .. UINT32_MAX (not in R), RS_SORT when it is in R
 * already (its holds apart) or its host name is refused (the sorted path
 * reports the lowest rank's, as before). */
static int rs_target (struct rstream *s, rp_vertex_t tv)
{
    const char *name, *host;
    int64_t rank = target_rank_name (s->m->g, tv, &name);

    if (rank < 0 || rank > UINT32_MAX)
        return RS_SKIP;
    if (rs_flush (s) < 0)
        return RS_FAIL;
    if (s->tv != RP_VERTEX_NONE && rank <= s->max) {
        if (rp_idset_test (rp_rset_ranks (s->R), (unsigned int)rank))
            return RS_SORT;
        s->unsorted = true;
    }
    if (!(host = target_host_named (s->m, tv, name, NULL)))
        return RS_SORT;
    if (rset_push_target_empty (s->R, (unsigned int)rank, host, &s->ids[0],
                                &s->ids[1], s->error)
        < 0)
        return RS_FAIL;
    s->tv = tv;
    if (rank > s->max)
        s->max = rank;
    return RS_OK;
}

/* Ids lo .. hi of kind (0 core, 1 gpu, 2 not in R) of the target being
 * written. */
static inline int rs_ids (struct rstream *s, int kind, int64_t lo, int64_t hi)
{
    if (kind >= 2 || lo < 0 || hi > UINT32_MAX)
        return RS_OK;
    if (kind == s->kind && lo == s->hi + 1)
        s->hi = hi;
    else if (kind == s->kind && hi == s->lo - 1)
        s->lo = lo;
    else {
        if (rs_flush (s) < 0)
            return RS_FAIL;
        s->kind = kind;
        s->lo = lo;
        s->hi = hi;
    }
    return RS_OK;
}

/* graph_target (g, v): v, or its parent's target, the last parent's
 * remembered. */
static inline rp_vertex_t rs_target_of (struct rstream *s,
                                        const struct rp_graph *g,
                                        rp_vertex_t v)
{
    if (v >= g->n)
        return RP_VERTEX_NONE;
    if (g->v[v].flags & F_TARGET)
        return v;
    if (g->v[v].parent != s->p) {
        s->p = g->v[v].parent;
        s->ptv = graph_target (g, s->p);
    }
    return s->ptv;
}

/* Hold h, as hold_item makes its item: RS_OK, or what rs_target
 * answers.  Called once (inlined in the loop of the holds). */
static inline int rs_hold (struct rstream *s, const struct hold *h)
{
    const struct rp_matcher *m = s->m;
    const struct rp_graph *g = m->g;
    rp_vertex_t tv = rs_target_of (s, g, h->v);
    int rc, t;

    if (tv == RP_VERTEX_NONE)
        return RS_OK;
    if (tv != s->tv && (rc = rs_target (s, tv)) != RS_OK)
        return rc == RS_SKIP ? RS_OK : rc;
    if (h->kind == HOLD_ANCESTOR)
        return RS_OK;
    t = g->v[h->v].type;
    return rs_ids (s,
                   t == m->type_core  ? 0
                   : t == m->type_gpu ? 1
                                      : 2,
                   g->v[h->v].id, g->v[h->v].id);
}

/* The nw items of whole_items for a subtree held whole, all of the
 * root's target (w[0].tv). */
static int rs_whole (struct rstream *s, const struct ritem *w, size_t nw)
{
    int rc = nw > 0 && w[0].tv != s->tv ? rs_target (s, w[0].tv) : RS_OK;

    if (rc != RS_OK)
        return rc == RS_SKIP ? RS_OK : rc;
    for (size_t j = 0; j < nw && rc == RS_OK; j++)
        rc = rs_ids (s, w[j].kind, w[j].id, w[j].hi);
    return rc;
}

/* R's targets straight from the holds (rs_*): RS_OK, RS_FAIL (error
 * set), or RS_SORT (rs_target: R then has some of them, the caller starts
 * again, sorted). */
static int rset_targets_stream (struct rp_rset *R, const struct rp_matcher *m,
                                const struct hold *holds, size_t n,
                                rp_error_t *error)
{
    struct rstream s = { .R = R,
                         .m = m,
                         .error = error,
                         .tv = RP_VERTEX_NONE,
                         .max = -1,
                         .p = RP_VERTEX_NONE,
                         .ptv = RP_VERTEX_NONE,
                         .kind = -1 };
    struct ritem w[RITEM_BUF + 1];
    size_t e, nw;
    int rc = RS_OK;

    for (size_t i = 0; i < n && rc == RS_OK; i++)
        if (holds[i].whole == WHOLE_ROOT
            && (e = match_whole_end (holds, i, n)) > i + 1
            && (nw = whole_items (m, &holds[i], e - i - 1, w)) != SIZE_MAX) {
            rc = rs_whole (&s, w, nw);
            i = e - 1;
        } else
            rc = rs_hold (&s, &holds[i]);
    if (rc == RS_OK && (rc = rs_flush (&s)) == RS_OK && s.unsorted)
        rset_sort_targets (R);
    return rc;
}

/* --- what a job holds, without R ------------------------------------------ */

/* The targets R would have (a rank in 0 .. UINT32_MAX): a target checked
 * before costs a bit test, its rank looked up only the first time. */
int match_job_hosts_check (const struct rp_matcher *m, const struct job *j,
                           rp_error_t *error)
{
    rp_vertex_t last = RP_VERTEX_NONE;

    for (size_t i = 0; i < j->nholds; i++) {
        rp_vertex_t tv = graph_target (m->g, j->holds[i].v);
        int64_t rank;
        if (tv == last || tv == RP_VERTEX_NONE
            || (tv < m->nvertices && (m->hostok[tv / 8] & (1u << (tv % 8)))))
            continue;
        last = tv;
        rank = rp_graph_vertex_rank (m->g, tv);
        if (rank >= 0 && rank <= UINT32_MAX && !target_host (m, tv, error))
            return -1;
    }
    return 0;
}

static int ritem_kind_id_cmp (const void *a, const void *b)
{
    const struct ritem *x = a, *y = b;

    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

static bool in_r (const struct ritem *it, int kind)
{
    return it->kind == kind && it->id >= 0 && it->id <= UINT32_MAX;
}

/* The distinct ids of kind among the n items of one rank, as R's idset
 * of that rank counts them (ids outside 0 .. UINT32_MAX are not in R).
 * Walk order gives them ascending; otherwise they are sorted first. */
static size_t rank_count (struct ritem *it, size_t n, int kind)
{
    size_t c = 0;
    int64_t last = -1;

    for (size_t i = 0; i < n; i++)
        if (in_r (&it[i], kind) && it[i].id <= last) {
            qsort (it, n, sizeof (*it), ritem_kind_id_cmp);
            break;
        } else if (in_r (&it[i], kind))
            last = it[i].id;
    last = -1;
    for (size_t i = 0; i < n; i++)
        if (in_r (&it[i], kind) && it[i].id != last) {
            c++;
            last = it[i].id;
        }
    return c;
}

/* The targets R would have, counted straight from the holds when they
 * come in ascending rank (walk order), each rank looked up once per
 * target; -1 when they do not (then rank_items sorts them).  The count
 * of nodes of every job the simulator starts: the items, their ids and
 * their sort were most of it. */
static ssize_t target_count (const struct rp_matcher *m, const struct job *j)
{
    rp_vertex_t last = RP_VERTEX_NONE;
    int64_t prev = -1;
    ssize_t c = 0;

    for (size_t i = 0; i < j->nholds; i++) {
        rp_vertex_t tv = graph_target (m->g, j->holds[i].v);
        int64_t rank;
        if (tv == last || tv == RP_VERTEX_NONE)
            continue;
        last = tv;
        rank = rp_graph_vertex_rank (m->g, tv);
        if (rank < 0 || rank > UINT32_MAX)
            continue;
        if (rank <= prev)
            return -1;
        prev = rank;
        c++;
    }
    return c;
}

ssize_t rp_matcher_job_count (const struct rp_matcher *m, uint64_t jobid,
                              const char *type)
{
    const struct job *j = m ? match_job_find (m, jobid) : NULL;
    int kind;
    size_t k, c = 0;
    struct ritem buf[RITEM_BUF], *it;

    if (!m || !type) {
        errno = EINVAL;
        return -1;
    }
    kind = strcmp (type, "core") == 0  ? 0
           : strcmp (type, "gpu") == 0 ? 1
           : strcmp (type, "node") == 0 ? 2
                                        : -1;
    if (kind < 0 || !j) {
        errno = kind < 0 ? EINVAL : ENOENT;
        return -1;
    }
    if (kind == 2 && (c = (size_t)target_count (m, j)) != SIZE_MAX)
        return (ssize_t)c;
    c = 0;
    /* one item per id: rank_count counts them */
    if (!(it = rank_items (m, j->holds, j->nholds, &k, buf, false))) {
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0, e; i < k; i = e) {
        e = rank_end (it, i, k);
        c += kind == 2 ? 1 : rank_count (&it[i], e - i, kind);
    }
    ritems_free (it, buf);
    return (ssize_t)c;
}

struct rp_hostlist *rp_matcher_job_nodelist (const struct rp_matcher *m,
                                             uint64_t jobid)
{
    const struct job *j = m ? match_job_find (m, jobid) : NULL;
    struct rp_hostlist *hl = NULL;
    struct ritem buf[RITEM_BUF], *it = NULL;
    size_t k;

    if (!j) {
        errno = m ? ENOENT : EINVAL;
        return NULL;
    }
    if (!(it = rank_items (m, j->holds, j->nholds, &k, buf, true))
        || !(hl = rp_hostlist_create ()))
        goto nomem;
    /* R's nodelist: its targets' host names in rank order (every one was
     * checked when the job was allocated) */
    for (size_t i = 0; i < k; i = rank_end (it, i, k)) {
        const char *h = target_host (m, it[i].tv, NULL);
        if (rp_hostlist_append (hl, h ? h : "", NULL) < 0)
            goto nomem;
    }
    ritems_free (it, buf);
    return hl;
nomem:
    ritems_free (it, buf);
    rp_hostlist_destroy (hl);
    errno = ENOMEM;
    return NULL;
}

static int hold_vcmp (const void *a, const void *b)
{
    const struct hold *x = a, *y = b;

    return x->v < y->v ? -1 : x->v > y->v;
}

/* The holds other than ancestors, one per vertex (pool amounts summed),
 * as the JGF subgraph. */
static char *scheduling (const struct rp_graph *g, const struct hold *holds,
                         size_t n)
{
    struct hold *h = calloc (n + 1, sizeof (*h));
    rp_vertex_t *v = calloc (n + 1, sizeof (*v));
    uint64_t *amount = calloc (n + 1, sizeof (*amount));
    bool *excl = calloc (n + 1, sizeof (*excl));
    char *o = NULL;
    size_t m = 0, k = 0;

    if (!h || !v || !amount || !excl)
        goto done;
    for (size_t i = 0; i < n; i++)
        if (holds[i].kind != HOLD_ANCESTOR)
            h[m++] = holds[i];
    qsort (h, m, sizeof (*h), hold_vcmp);
    for (size_t i = 0; i < m; i++) {
        if (k > 0 && v[k - 1] == h[i].v) {
            amount[k - 1] += h[i].amount;
            excl[k - 1] |= h[i].exclusive;
            continue;
        }
        v[k] = h[i].v;
        amount[k] = h[i].exclusive ? h[i].amount : graph_size (g, h[i].v);
        excl[k++] = h[i].exclusive;
    }
    o = rp_graph_subgraph_encode (g, v, amount, excl, k);
done:
    free (h);
    free (v);
    free (amount);
    free (excl);
    return o;
}

/* The R of holds, without the scheduling key: what a job record keeps
 * (the allocated subgraph of a whole node is about a hundred JSON objects;
 * kept for every job it made memory, and the allocator's work, grow with
 * the number of jobs). */
static struct rp_rset *rset_build (struct rp_rset *R,
                                   const struct rp_matcher *m,
                                   const struct hold *holds, size_t n,
                                   double start, double expiration,
                                   rp_error_t *error)
{
    int rc = R ? rset_targets_stream (R, m, holds, n, error) : RS_FAIL;

    if (rc == RS_SORT) {
        rp_rset_destroy (R);
        if ((R = rp_rset_create ()))
            rc = rset_targets_sorted (R, m, holds, n, error);
    }
    if (!R) {
        rp_error_set (error, ENOMEM, "out of memory");
        return NULL;
    }
    if (rc < 0 || rp_rset_set_times (R, start, expiration, error) < 0) {
        rp_rset_destroy (R);
        return NULL;
    }
    return R;
}

struct rp_rset *match_rset_build (const struct rp_matcher *m,
                                  const struct hold *holds, size_t n,
                                  double start, double expiration,
                                  rp_error_t *error)
{
    return rset_build (rset_create_one (NULL, NULL), m, holds, n, start,
                       expiration, error);
}

struct rp_rset *match_job_rset (const struct rp_matcher *m, struct job *j,
                                rp_error_t *error)
{
    atomic_size_t *block;
    void *room = match_job_room (j, &block);

    return rset_build (rset_create_one (room, block), m, j->holds,
                       j->nholds, j->starttime, j->expiration, error);
}

/* A copy of the job's R with the allocated subgraph as its scheduling
 * key.  NULL on ENOMEM. */
const struct rp_rset *match_job_R (const struct rp_matcher *m, struct job *j)
{
    if (!j->R)
        j->R = match_rset_build (m, j->holds, j->nholds, j->starttime,
                                 j->expiration, NULL);
    return j->R;
}

struct rp_rset *match_rset_with_scheduling (const struct rp_matcher *m,
                                            struct job *j)
{
    const struct rp_graph *g = m->g;
    const struct rp_rset *bare = match_job_R (m, j);
    struct rp_rset *R = bare ? rp_rset_copy (bare) : NULL;

    if (!R
        || rset_set_scheduling_text (R, scheduling (g, j->holds, j->nholds))
               < 0) {
        rp_rset_destroy (R);
        errno = ENOMEM;
        return NULL;
    }
    return R;
}
