/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Resource sets: R version 1 (RFC 20), see api/respol/rset.h.
 *
 * Model.  Targets live in an array sorted by rank (lookups are binary
 * searches).  A target points to a reference counted "children" record
 * holding its core and GPU idsets; the ranks of one R_lite entry share one
 * record, a target added beside one with equal children shares its record
 * (rp_rset_add_target: a node's cores on every rank cost one record) and
 * a copy of a set copies no idset.  A record is never modified
 * (operations build new ones) and its count is atomic, so two sets that
 * share records may be used by different threads.  A set the matcher
 * makes (rset_create_one) has room in its own block for its first
 * target's record: a job's R on one node is one allocation, not two (a
 * slot of 4 cores, match_rset_build 1,565 -> 1,391 instructions); the
 * record is shared as any other, and the block is freed by the last of
 * the set and the record's references.  Such a set may itself live in
 * another's block (the R that rp_matcher_allocate returns, in its job
 * record's): it holds a reference to that block, dropped when the set
 * and its record are done with, the last reference freeing the block.  Properties are an array
 * sorted by name, each an idset of ranks.  rp_rset_rank_of() uses an index of
 * the targets sorted by host name, built on first use and dropped when the
 * targets change.
 *
 * Cost.  Decode reads R_lite and the nodelist from the text in place
 * (core/jscan.h), every other key (small: version, properties, times,
 * scheduling, unknown keys) as a jansson value of its own.  Text that
 * reader does not take (not plain, see jscan.h) or that is not valid R is
 * read again through jansson's tree of the whole document, the decode R
 * always had, which words the error: the messages are that decode's, and
 * what the text reader accepts it accepts (core/test/rset_text.c compares
 * the two on random R and mutations of it).  Decode then sorts the rank
 * ranges of all R_lite entries to find a rank named twice without
 * expanding a range, and expands them in rank order: O(E log E + n).
 * Encode groups targets whose children are equal in two steps: runs of
 * targets next to each other in rank order with equal children, then the
 * runs sorted on the encoded strings of their children (encoded once per
 * run): O(n + k log k) for k runs, only neighbours compared; targets
 * with the same children throughout are one run, no sort.  The ranks of
 * an entry are written range by range from the targets, no idset built.
 * add, append, union, diff, intersect, subset, equal and verify walk both
 * target arrays together: O(n + m) idset operations.  A function that
 * changes a set in place builds the result aside and swaps it in, so on
 * failure the set is unchanged.
 *
 * Memory, not instructions, sets the time of large R.  Decode and encode
 * take about the same number of instructions per target from 1k to 64k
 * targets (callgrind), but R whose targets all differ is a jansson tree of
 * about 1 KB per target in a dozen or so small allocations, 20 times the
 * text, and that tree outgrows the CPU caches from a few thousand targets
 * on.  So the compact encoding writes R_lite as text itself rather than
 * build, dump and free that tree (85% of its time at 16k targets, see
 * "encode: compact text" below).  Decode for the same reason reads the
 * text itself: json_loads and json_delete were most of its time.
 *
 * Decisions (see doc/conformance.md):
 * - Strict decode.  Duplicate JSON keys, unknown keys of an R_lite entry
 *   and unknown children types (anything but "core" and "gpu") are errors:
 *   flux-core ignores the former and keeps other children types, but respol
 *   models only cores and GPUs and would otherwise drop resources silently.
 * - "nodelist" is REQUIRED as in the RFC: R written by flux-core releases
 *   older than the nodelist key is rejected.
 * - An empty R_lite array is the empty set.  An entry with an empty "rank"
 *   idset is an error; "core": "" is a target without cores.
 * - A rank named by two R_lite entries is an error, reported for the
 *   lowest such rank at the second entry (document order) that names it.
 * - At most RP_RSET_MAX_TARGETS targets, so that a few bytes of input
 *   ("rank": "0-4294967294") cannot expand into gigabytes.  And
 *   rp_rset_size_json counts what R_lite names without expanding it, so
 *   that a caller (a graph builder) can refuse 2^20 targets of 16 cores
 *   each before R takes 56 MB and half a second to decode.
 * - Property names: RFC 20 characters, plus white space and control
 *   characters, are illegal; at most one '@', with text on both sides;
 *   a leading '+' (instance-local) must be followed by a name.  A property
 *   whose idset is empty is accepted and dropped; its ranks must be targets.
 * - "nslots" must be an integer > 0 and "scheduling" an object; both are
 *   kept verbatim, with every other unknown key.
 * - Targets are matched by rank and host name: diff subtracts only where
 *   both agree (so a - b = a - (a & b)), intersect keeps only those.  A
 *   target that had resources and is left with none is dropped; a target
 *   without resources survives intersect when it has none in both sets, so
 *   a & a = a and a - a is empty.
 * - rp_rset_is_subset() needs every target of a (even one without
 *   resources) in b; rp_rset_verify() reports extra targets of actual.
 * - The empty set encodes "nodelist": [].
 */
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/rset.h"

#include "core/idset_private.h"
#include "core/jscan.h"
#include "core/jtext.h"
#include "core/rset_private.h"

/* refs counts by REF (atomic: copies share records across threads); its
 * bit IN_SET marks a record in a set's own block (rset_create_one), that
 * set's last reference freeing the block. */
#define REF 2
#define IN_SET 1

struct children {
    atomic_size_t refs;
    struct rp_idset *cores;
    struct rp_idset *gpus;
    struct rp_idset in[]; /* cores and gpus in the record's own block when
                           * it was made empty (children_create_empty) */
};

struct target {
    unsigned int rank;
    char *host;
    struct children *ch;
};

struct prop {
    char *name;
    struct rp_idset *ranks; /* never empty, always targets */
};

/* Room in the set itself for one target and its host name: a job's R
 * on one node costs no array and no copy of the name. */
#define HOST1_SIZE 32

struct rp_rset {
    struct target *t; /* sorted by rank: &one while alloc is 1 */
    size_t n;
    size_t alloc;
    struct rp_idset *ranks; /* the ranks of t: &ranks_in */
    struct prop *p;         /* sorted by name */
    size_t np;
    size_t palloc;
    double starttime;
    double expiration;
    json_t *top;  /* opaque top level keys, incl. scheduling, or NULL */
    char *sched;  /* or the scheduling key as text (rset_set_scheduling_text) */
    json_t *exec; /* opaque execution keys, incl. nslots, or NULL */
    const struct target **byhost; /* lazy: sorted by host name, rank */
    struct rp_idset ranks_in; /* in the set's block: one allocation less */
    struct target one;
    bool host1_used;        /* host1 is the host of a target */
    char host1[HOST1_SIZE]; /* the first target's host, when it fits */
    /* Of the block, not the set (rset_swap leaves them): a block of
     * rset_create_one has room after the set for a children record with
     * its two idsets (set_room), given to its first target made empty;
     * once given, the set holds a reference to it, and the record's last
     * reference frees the block. */
    bool room;
    bool room_used;
    /* A set in another's block (a job record's, rset_create_one): that
     * block, which begins with its count of references, the set holding
     * one; NULL: the set's block is its own. */
    atomic_size_t *block;
};

/* Free r's block: its own, or the block it shares (the last reference). */
static void set_block_free (struct rp_rset *r)
{
    if (!r->block)
        free (r);
    else if (atomic_fetch_sub_explicit (r->block, 1, memory_order_acq_rel) == 1)
        free (r->block);
}

/* The record in r's block (rset_create_one). */
static struct children *set_room (struct rp_rset *r)
{
    return (struct children *)(r + 1);
}

_Static_assert (sizeof (struct rp_rset) % _Alignof (struct children) == 0,
                "a set's record follows it in its block");

static int fail_errno (rp_error_t *error)
{
    if (errno == EOVERFLOW)
        return rp_error_set (error, EOVERFLOW, "more than %u execution targets",
                             RP_RSET_MAX_TARGETS);
    if (errno == 0)
        errno = ENOMEM;
    return rp_error_set (error, errno, "%s", strerror (errno));
}

static int invalid (rp_error_t *error)
{
    return rp_error_set (error, EINVAL, "invalid argument");
}

/* --- children ------------------------------------------------------------ */

/* Takes ownership of cores and gpus, also on failure. */
static struct children *children_create (struct rp_idset *cores,
                                         struct rp_idset *gpus)
{
    struct children *ch = NULL;

    if (!cores || !gpus || !(ch = malloc (sizeof (*ch)))) {
        rp_idset_destroy (cores);
        rp_idset_destroy (gpus);
        return NULL;
    }
    atomic_init (&ch->refs, REF);
    ch->cores = cores;
    ch->gpus = gpus;
    return ch;
}

/* ch (room for its two idsets after it) made empty, with refs. */
static struct children *children_init_empty (struct children *ch, size_t refs)
{
    atomic_init (&ch->refs, refs);
    idset_init (&ch->in[0]);
    idset_init (&ch->in[1]);
    ch->cores = &ch->in[0];
    ch->gpus = &ch->in[1];
    return ch;
}

/* A record with its two empty idsets in its own block: one allocation,
 * not three, for a target whose ids are added in place. */
static struct children *children_create_empty (void)
{
    struct children *ch = malloc (sizeof (*ch) + 2 * sizeof (ch->in[0]));

    return ch ? children_init_empty (ch, REF) : NULL;
}

/* An idset of ch: its own (in its block) or allocated. */
static void children_idset_free (struct children *ch, struct rp_idset *ids)
{
    if (ids == &ch->in[0] || ids == &ch->in[1])
        idset_fini (ids);
    else
        rp_idset_destroy (ids);
}

static struct rp_idset *idset_copy_or_empty (const struct rp_idset *ids)
{
    return ids ? rp_idset_copy (ids) : rp_idset_create ();
}

static struct children *children_copy (const struct rp_idset *cores,
                                       const struct rp_idset *gpus)
{
    return children_create (idset_copy_or_empty (cores),
                            idset_copy_or_empty (gpus));
}

static struct children *children_ref (struct children *ch)
{
    if (ch)
        atomic_fetch_add_explicit (&ch->refs, REF, memory_order_relaxed);
    return ch;
}

static void children_unref (struct children *ch)
{
    int saved_errno = errno;
    size_t was;

    if (ch
        && (was = atomic_fetch_sub_explicit (&ch->refs, REF,
                                             memory_order_acq_rel))
               < 2 * REF) {
        children_idset_free (ch, ch->cores);
        children_idset_free (ch, ch->gpus);
        /* in a set's block: the set's reference was the last */
        if (was & IN_SET)
            set_block_free ((struct rp_rset *)ch - 1);
        else
            free (ch);
    }
    errno = saved_errno;
}

static bool children_empty (const struct children *ch)
{
    return rp_idset_empty (ch->cores) && rp_idset_empty (ch->gpus);
}

static bool children_equal (const struct children *a, const struct children *b)
{
    return a == b
           || (rp_idset_equal (a->cores, b->cores)
               && rp_idset_equal (a->gpus, b->gpus));
}

static bool children_within (const struct children *a, const struct children *b)
{
    return a == b
           || (rp_idset_is_subset (a->cores, b->cores)
               && rp_idset_is_subset (a->gpus, b->gpus));
}

static struct children *children_union (struct children *a, struct children *b)
{
    if (children_within (b, a))
        return children_ref (a);
    return children_create (rp_idset_union (a->cores, b->cores),
                            rp_idset_union (a->gpus, b->gpus));
}

static struct children *children_diff (struct children *a, struct children *b)
{
    if (!rp_idset_intersects (a->cores, b->cores)
        && !rp_idset_intersects (a->gpus, b->gpus))
        return children_ref (a);
    return children_create (rp_idset_difference (a->cores, b->cores),
                            rp_idset_difference (a->gpus, b->gpus));
}

static struct children *children_and (struct children *a, struct children *b)
{
    if (children_within (a, b))
        return children_ref (a);
    return children_create (rp_idset_intersect (a->cores, b->cores),
                            rp_idset_intersect (a->gpus, b->gpus));
}

/* --- targets ------------------------------------------------------------- */

static void drop_host_index (struct rp_rset *r)
{
    if (r->byhost) { /* most sets never build it */
        free (r->byhost);
        r->byhost = NULL;
    }
}

static int grow_targets (struct rp_rset *r, size_t want)
{
    size_t alloc = r->alloc > 1 ? r->alloc : 16;
    struct target *t;

    if (want <= r->alloc)
        return 0;
    if (want > RP_RSET_MAX_TARGETS) {
        errno = EOVERFLOW;
        return -1;
    }
    while (alloc < want)
        alloc *= 2;
    if (alloc > RP_RSET_MAX_TARGETS)
        alloc = RP_RSET_MAX_TARGETS;
    if (r->t == &r->one) {
        if (!(t = malloc (alloc * sizeof (*t))))
            return -1;
        t[0] = r->one;
    } else if (!(t = realloc (r->t, alloc * sizeof (*t))))
        return -1;
    r->t = t;
    r->alloc = alloc;
    drop_host_index (r); /* it pointed into the old array */
    return 0;
}

/* A copy of host for a new target of r: in r's own room when it is free
 * and the name fits, else allocated.  NULL: out of memory. */
static char *host_copy (struct rp_rset *r, const char *host)
{
    size_t len = strlen (host);

    if (r->host1_used || len >= sizeof (r->host1))
        return strdup (host);
    r->host1_used = true;
    return memcpy (r->host1, host, len + 1);
}

static void host_free (struct rp_rset *r, char *host)
{
    if (host == r->host1)
        r->host1_used = false;
    else
        free (host);
}

/* Append a target whose rank is above all others.  Steals ch, also on
 * failure (a NULL ch is a failed allocation). */
static int push_target (struct rp_rset *r, unsigned int rank, const char *host,
                        struct children *ch)
{
    char *copy = NULL;

    if (!ch || grow_targets (r, r->n + 1) < 0 || !(copy = host_copy (r, host))
        || rset_ids_add_range (r->ranks, rank, rank) < 0) {
        if (copy)
            host_free (r, copy);
        children_unref (ch);
        return -1;
    }
    r->t[r->n].rank = rank;
    r->t[r->n].host = copy;
    r->t[r->n].ch = ch;
    r->n++;
    return 0;
}

/* Index of rank, or where it would be inserted. */
static bool find_rank (const struct rp_rset *r, unsigned int rank, size_t *pos)
{
    size_t lo = 0;
    size_t hi = r->n;

    if (hi == 0 || r->t[hi - 1].rank < rank) { /* appended in rank order */
        *pos = hi;
        return false;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->t[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    *pos = lo;
    return lo < r->n && r->t[lo].rank == rank;
}

static const struct target *get_target (const struct rp_rset *r,
                                        unsigned int rank)
{
    size_t pos;

    if (!r) {
        errno = EINVAL;
        return NULL;
    }
    if (!find_rank (r, rank, &pos)) {
        errno = ENOENT;
        return NULL;
    }
    return &r->t[pos];
}

static int host_cmp (const void *a, const void *b)
{
    const struct target *x = *(const struct target *const *)a;
    const struct target *y = *(const struct target *const *)b;
    int c = strcmp (x->host, y->host);

    if (c == 0)
        c = (x->rank > y->rank) - (x->rank < y->rank);
    return c;
}

/* The host index is a cache: building it does not change the set, so it
 * is built on a const set (not thread safe against concurrent first use).
 */
static const struct target **host_index (const struct rp_rset *r)
{
    struct rp_rset *cache = (struct rp_rset *)r;
    const struct target **idx;

    if (r->byhost)
        return r->byhost;
    if (!(idx = malloc ((r->n + 1) * sizeof (*idx))))
        return NULL;
    for (size_t i = 0; i < r->n; i++)
        idx[i] = &r->t[i];
    qsort (idx, r->n, sizeof (*idx), host_cmp);
    cache->byhost = idx;
    return idx;
}

/* Index in r->t of the lowest ranked target on host, or -1. */
static ssize_t host_lookup (const struct rp_rset *r, const char *host)
{
    const struct target **idx = host_index (r);
    size_t lo = 0;
    size_t hi = r->n;

    if (!idx)
        return -1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp (idx[mid]->host, host) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == r->n || strcmp (idx[lo]->host, host) != 0) {
        errno = ENOENT;
        return -1;
    }
    return idx[lo] - r->t;
}

/* --- create, destroy, copy ------------------------------------------------ */

/* *o, made empty when it is NULL (then NULL only for lack of memory). */
static json_t *keys (json_t **o)
{
    if (!*o)
        *o = json_object ();
    return *o;
}

/* An empty set in a block of size bytes (calloc costs more), or at mem
 * (not NULL). */
static struct rp_rset *rset_create_in (size_t size, void *mem)
{
    struct rp_rset *r = mem ? mem : malloc (size);

    if (!r)
        return NULL;
    /* top and exec are made with their first key: most sets have none */
    *r = (struct rp_rset){ .alloc = 1 };
    r->t = &r->one;
    idset_init (&r->ranks_in);
    r->ranks = &r->ranks_in;
    return r;
}

struct rp_rset *rp_rset_create (void)
{
    return rset_create_in (sizeof (struct rp_rset), NULL);
}

size_t rset_one_size (void)
{
    return sizeof (struct rp_rset) + sizeof (struct children)
           + 2 * sizeof (struct rp_idset);
}

struct rp_rset *rset_create_one (void *mem, atomic_size_t *block)
{
    struct rp_rset *r = rset_create_in (rset_one_size (), mem);

    if (r)
        r->room = true;
    if (r && mem) {
        atomic_fetch_add_explicit (block, 1, memory_order_relaxed);
        r->block = block;
    }
    return r;
}

void rp_rset_destroy (struct rp_rset *r)
{
    int saved_errno = errno;

    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        host_free (r, r->t[i].host);
        children_unref (r->t[i].ch);
    }
    for (size_t i = 0; i < r->np; i++) {
        free (r->p[i].name);
        rp_idset_destroy (r->p[i].ranks);
    }
    if (r->t != &r->one)
        free (r->t);
    free (r->p);
    free (r->byhost);
    idset_fini (&r->ranks_in);
    json_decref (r->top);
    json_decref (r->exec);
    free (r->sched);
    if (r->room_used)
        children_unref (set_room (r)); /* the last reference frees r */
    else
        set_block_free (r);
    errno = saved_errno;
}

/* r's fields were moved from the struct at was: point them at r's own
 * room again. */
static void moved_from (struct rp_rset *r, const struct rp_rset *was)
{
    if (r->t == &was->one)
        r->t = &r->one;
    r->ranks = &r->ranks_in;
    idset_moved (&r->ranks_in, &was->ranks_in);
    for (size_t i = 0; i < r->n; i++)
        if (r->t[i].host == was->host1)
            r->t[i].host = r->host1;
    drop_host_index (r);
}

/* Swap the sets of blocks a and b; each block keeps its room. */
static void rset_swap (struct rp_rset *a, struct rp_rset *b)
{
    struct rp_rset tmp = *a;

    *a = *b;
    *b = tmp;
    moved_from (a, b);
    moved_from (b, a);
    b->room = a->room;
    b->room_used = a->room_used;
    b->block = a->block;
    a->room = tmp.room;
    a->room_used = tmp.room_used;
    a->block = tmp.block;
}

/* A new set without targets, with r's times and opaque keys. */
static struct rp_rset *empty_like (const struct rp_rset *r)
{
    struct rp_rset *out = rp_rset_create ();

    if (!out)
        return NULL;
    out->starttime = r->starttime;
    out->expiration = r->expiration;
    if ((r->top && !(out->top = json_copy (r->top)))
        || (r->exec && !(out->exec = json_copy (r->exec)))
        || (r->sched && !(out->sched = strdup (r->sched)))) {
        rp_rset_destroy (out);
        errno = ENOMEM;
        return NULL;
    }
    return out;
}

/* --- properties: storage -------------------------------------------------- */

/* Index of name, or where it would be inserted. */
static bool prop_find (const struct rp_rset *r, const char *name, size_t *pos)
{
    size_t lo = 0;
    size_t hi = r->np;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp (r->p[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *pos = lo;
    return lo < r->np && strcmp (r->p[lo].name, name) == 0;
}

/* The properties "name@...", as the index range [*lo, *hi). */
static int suffixed_range (const struct rp_rset *r, const char *name,
                           size_t *lo, size_t *hi)
{
    size_t len = strlen (name);
    char *prefix = malloc (len + 2);

    if (!prefix)
        return -1;
    memcpy (prefix, name, len);
    prefix[len] = '@';
    prefix[len + 1] = '\0';
    prop_find (r, prefix, lo);
    for (*hi = *lo; *hi < r->np; (*hi)++) {
        if (strncmp (r->p[*hi].name, prefix, len + 1) != 0)
            break;
    }
    free (prefix);
    return 0;
}

/* Insert at pos.  Takes ownership of ranks, also on failure. */
static int prop_insert (struct rp_rset *r, size_t pos, const char *name,
                        struct rp_idset *ranks)
{
    char *copy = NULL;

    if (ranks && r->np == r->palloc) {
        size_t alloc = r->palloc ? r->palloc * 2 : 8;
        struct prop *p = realloc (r->p, alloc * sizeof (*p));
        if (p) {
            r->p = p;
            r->palloc = alloc;
        }
    }
    if (!ranks || r->np == r->palloc || !(copy = strdup (name))) {
        rp_idset_destroy (ranks);
        errno = ENOMEM;
        return -1;
    }
    memmove (&r->p[pos + 1], &r->p[pos], (r->np - pos) * sizeof (*r->p));
    r->p[pos].name = copy;
    r->p[pos].ranks = ranks;
    r->np++;
    return 0;
}

static void prop_delete (struct rp_rset *r, size_t pos)
{
    free (r->p[pos].name);
    rp_idset_destroy (r->p[pos].ranks);
    r->np--;
    memmove (&r->p[pos], &r->p[pos + 1], (r->np - pos) * sizeof (*r->p));
}

/* Give property name to ranks (not empty).  No change on failure. */
static int prop_give (struct rp_rset *r, const char *name,
                      const struct rp_idset *ranks)
{
    size_t pos;
    struct rp_idset *u;

    if (!prop_find (r, name, &pos))
        return prop_insert (r, pos, name, rp_idset_copy (ranks));
    if (!(u = rp_idset_union (r->p[pos].ranks, ranks)))
        return -1;
    rp_idset_destroy (r->p[pos].ranks);
    r->p[pos].ranks = u;
    return 0;
}

static int props_add_all (struct rp_rset *dst, const struct rp_rset *src)
{
    for (size_t i = 0; i < src->np; i++) {
        if (prop_give (dst, src->p[i].name, src->p[i].ranks) < 0)
            return -1;
    }
    return 0;
}

/* Keep properties on r's targets only. */
static int props_restrict (struct rp_rset *r)
{
    for (size_t i = r->np; i-- > 0;) {
        struct rp_idset *ids = rp_idset_intersect (r->p[i].ranks, r->ranks);
        if (!ids)
            return -1;
        rp_idset_destroy (r->p[i].ranks);
        r->p[i].ranks = ids;
        if (rp_idset_empty (ids))
            prop_delete (r, i);
    }
    return 0;
}

static int prop_cmp (const void *a, const void *b)
{
    return strcmp (((const struct prop *)a)->name,
                   ((const struct prop *)b)->name);
}

/* --- properties: names ---------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_len (const unsigned char *s)
{
    unsigned char lo = 0x80;
    unsigned char hi = 0xbf;
    size_t len;

    if (s[0] < 0x80)
        return 1;
    if (s[0] >= 0xc2 && s[0] <= 0xdf)
        len = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef)
        len = 3;
    else if (s[0] >= 0xf0 && s[0] <= 0xf4)
        len = 4;
    else
        return 0;
    if (s[0] == 0xe0)
        lo = 0xa0; /* overlong */
    else if (s[0] == 0xed)
        hi = 0x9f; /* surrogates */
    else if (s[0] == 0xf0)
        lo = 0x90; /* overlong */
    else if (s[0] == 0xf4)
        hi = 0x8f; /* above U+10FFFF */
    if (s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < len; i++) {
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    }
    return len;
}

static int check_char (const char *name, size_t i, rp_error_t *error)
{
    unsigned char c = name[i];

    if (strchr ("!&'\"^`|()", c) || c == ' ')
        return rp_error_set (error, EINVAL,
                             "property name \"%s\": illegal character '%c' "
                             "at offset %zu",
                             name, c, i);
    if (c < 0x20 || c == 0x7f)
        return rp_error_set (error, EINVAL,
                             "property name: illegal character 0x%02x at "
                             "offset %zu",
                             c, i);
    return 0;
}

static int check_at (const char *name, rp_error_t *error)
{
    const char *base = name[0] == '+' ? name + 1 : name;
    const char *at = strchr (base, '@');

    if (!*base)
        return rp_error_set (error, EINVAL,
                             "property name \"%s\": nothing after '+'", name);
    if (!at)
        return 0;
    if (strchr (at + 1, '@'))
        return rp_error_set (error, EINVAL,
                             "property name \"%s\": more than one '@'", name);
    if (at == base)
        return rp_error_set (error, EINVAL,
                             "property name \"%s\": nothing before '@'", name);
    if (!at[1])
        return rp_error_set (error, EINVAL,
                             "property name \"%s\": nothing after '@'", name);
    return 0;
}

int rp_rset_property_check (const char *name, rp_error_t *error)
{
    size_t i = 0;

    if (!name)
        return invalid (error);
    if (!*name)
        return rp_error_set (error, EINVAL, "property name is empty");
    while (name[i]) {
        size_t len = utf8_len ((const unsigned char *)name + i);
        if (len == 0)
            return rp_error_set (
                error, EINVAL, "property name: invalid UTF-8 at offset %zu", i);
        if (len == 1 && check_char (name, i, error) < 0)
            return -1;
        i += len;
    }
    return check_at (name, error);
}

/* --- properties: public --------------------------------------------------- */

/* 0 when every id of ranks (NULL: all) is a target of r. */
static int check_targets (const struct rp_rset *r, const struct rp_idset *ranks,
                          rp_error_t *error)
{
    struct rp_idset *extra;
    unsigned int id;

    if (!ranks || rp_idset_is_subset (ranks, r->ranks))
        return 0;
    if (!(extra = rp_idset_difference (ranks, r->ranks)))
        return fail_errno (error);
    id = rp_idset_first (extra);
    rp_idset_destroy (extra);
    return rp_error_set (error, ENOENT, "rank %u is not an execution target",
                         id);
}

int rp_rset_property_add (struct rp_rset *r, const char *name,
                          const struct rp_idset *ranks, rp_error_t *error)
{
    if (!r)
        return invalid (error);
    if (rp_rset_property_check (name, error) < 0
        || check_targets (r, ranks, error) < 0)
        return -1;
    if (!ranks)
        ranks = r->ranks;
    if (!rp_idset_empty (ranks) && prop_give (r, name, ranks) < 0)
        return fail_errno (error);
    return 0;
}

/* Indices of name and, if name has no '@', of "name@...", ascending. */
static size_t *affected_props (const struct rp_rset *r, const char *name,
                               size_t *count)
{
    size_t pos;
    size_t lo = 0;
    size_t hi = 0;
    size_t *idx;
    size_t n = 0;
    bool exact = prop_find (r, name, &pos);

    if (!strchr (name, '@') && suffixed_range (r, name, &lo, &hi) < 0)
        return NULL;
    if (!(idx = malloc ((1 + hi - lo) * sizeof (*idx))))
        return NULL;
    if (exact)
        idx[n++] = pos;
    while (lo < hi)
        idx[n++] = lo++;
    *count = n;
    return idx;
}

int rp_rset_property_remove (struct rp_rset *r, const char *name,
                             const struct rp_idset *ranks, rp_error_t *error)
{
    size_t *idx = NULL;
    struct rp_idset **left = NULL;
    size_t n = 0;

    if (!r)
        return invalid (error);
    if (rp_rset_property_check (name, error) < 0
        || check_targets (r, ranks, error) < 0)
        return -1;
    if (!(idx = affected_props (r, name, &n))
        || !(left = calloc (n + 1, sizeof (*left))))
        goto nomem;
    for (size_t k = 0; k < n; k++) {
        struct rp_idset *have = r->p[idx[k]].ranks;
        left[k] =
            ranks ? rp_idset_difference (have, ranks) : rp_idset_create ();
        if (!left[k])
            goto nomem;
    }
    for (size_t k = n; k-- > 0;) {
        rp_idset_destroy (r->p[idx[k]].ranks);
        r->p[idx[k]].ranks = left[k];
        if (rp_idset_empty (left[k]))
            prop_delete (r, idx[k]);
    }
    free (left);
    free (idx);
    return 0;
nomem:
    for (size_t k = 0; left && k < n; k++)
        rp_idset_destroy (left[k]);
    free (left);
    free (idx);
    return fail_errno (error);
}

bool rp_rset_has_property (const struct rp_rset *r, unsigned int rank,
                           const char *name)
{
    size_t pos;
    size_t lo;
    size_t hi;

    if (!r || !name)
        return false;
    if (prop_find (r, name, &pos) && rp_idset_test (r->p[pos].ranks, rank))
        return true;
    if (strchr (name, '@') || suffixed_range (r, name, &lo, &hi) < 0)
        return false;
    for (; lo < hi; lo++) {
        if (rp_idset_test (r->p[lo].ranks, rank))
            return true;
    }
    return false;
}

const char *rp_rset_property_value (const struct rp_rset *r, unsigned int rank,
                                    const char *key)
{
    size_t len = key ? strlen (key) : 0;
    char *prefix;
    size_t pos;

    if (!r || len == 0 || !(prefix = malloc (len + 2)))
        return NULL;
    memcpy (prefix, key, len);
    memcpy (prefix + len, "=", 2);
    prop_find (r, prefix, &pos);
    free (prefix);
    for (; pos < r->np; pos++) {
        const char *name = r->p[pos].name;
        if (strncmp (name, key, len) != 0 || name[len] != '=')
            break;
        if (rp_idset_test (r->p[pos].ranks, rank))
            return name + len + 1;
    }
    return NULL;
}

json_t *rp_rset_properties (const struct rp_rset *r)
{
    json_t *o;

    if (!r) {
        errno = EINVAL;
        return NULL;
    }
    if (!(o = json_object ()))
        goto nomem;
    for (size_t i = 0; i < r->np; i++) {
        char *s = rp_idset_encode (r->p[i].ranks, RP_IDSET_RANGES);
        int rc = json_object_set_new (o, r->p[i].name, json_string (s));
        free (s);
        if (rc < 0)
            goto nomem;
    }
    return o;
nomem:
    json_decref (o);
    errno = ENOMEM;
    return NULL;
}

void rp_rset_strip_local_properties (struct rp_rset *r)
{
    if (!r)
        return;
    for (size_t i = r->np; i-- > 0;) {
        if (r->p[i].name[0] == '+')
            prop_delete (r, i);
    }
}

/* --- accessors ------------------------------------------------------------ */

const struct rp_idset *rp_rset_ranks (const struct rp_rset *r)
{
    if (!r) {
        errno = EINVAL;
        return NULL;
    }
    return r->ranks;
}

size_t rp_rset_ntargets (const struct rp_rset *r)
{
    return r ? r->n : 0;
}

const char *rp_rset_hostname (const struct rp_rset *r, unsigned int rank)
{
    const struct target *t = get_target (r, rank);

    return t ? t->host : NULL;
}

const struct rp_idset *rp_rset_cores (const struct rp_rset *r,
                                      unsigned int rank)
{
    const struct target *t = get_target (r, rank);

    return t ? t->ch->cores : NULL;
}

const struct rp_idset *rp_rset_gpus (const struct rp_rset *r, unsigned int rank)
{
    const struct target *t = get_target (r, rank);

    return t ? t->ch->gpus : NULL;
}

bool rset_target_at (const struct rp_rset *r, size_t i, unsigned int *rank,
                     const char **host, const struct rp_idset **cores,
                     const struct rp_idset **gpus)
{
    if (!r || i >= r->n)
        return false;
    *rank = r->t[i].rank;
    *host = r->t[i].host;
    *cores = r->t[i].ch->cores;
    *gpus = r->t[i].ch->gpus;
    return true;
}

long rp_rset_rank_of (const struct rp_rset *r, const char *hostname)
{
    ssize_t i;

    if (!r || !hostname) {
        errno = EINVAL;
        return -1;
    }
    if ((i = host_lookup (r, hostname)) < 0)
        return -1;
    return r->t[i].rank;
}

/* Host names joined by commas: an RFC 29 string of single hosts. */
static char *join_hosts (const struct rp_rset *r)
{
    size_t len = 1;
    char *s;
    char *p;

    for (size_t i = 0; i < r->n; i++)
        len += strlen (r->t[i].host) + 1;
    if (!(s = malloc (len)))
        return NULL;
    p = s;
    for (size_t i = 0; i < r->n; i++) {
        if (i > 0)
            *p++ = ',';
        p = stpcpy (p, r->t[i].host);
    }
    *p = '\0';
    return s;
}

struct rp_hostlist *rp_rset_nodelist (const struct rp_rset *r)
{
    struct rp_hostlist *hl;
    char *s;

    if (!r) {
        errno = EINVAL;
        return NULL;
    }
    if (!(s = join_hosts (r)))
        return NULL;
    hl = rp_hostlist_decode (s, NULL);
    free (s);
    return hl;
}

ssize_t rp_rset_count (const struct rp_rset *r, const char *type)
{
    bool cores;
    size_t sum = 0;

    if (!r || !type) {
        errno = EINVAL;
        return -1;
    }
    /* each name compared once: the instance counts a job's cores and
     * GPUs on every start */
    if (!(cores = strcmp (type, "core") == 0) && strcmp (type, "gpu") != 0) {
        if (strcmp (type, "node") == 0)
            return r->n;
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < r->n; i++)
        sum += rp_idset_count (cores ? r->t[i].ch->cores : r->t[i].ch->gpus);
    return sum;
}

double rp_rset_starttime (const struct rp_rset *r)
{
    return r ? r->starttime : 0.;
}

double rp_rset_expiration (const struct rp_rset *r)
{
    return r ? r->expiration : 0.;
}

static bool time_ok (double t)
{
    return isfinite (t) && t >= 0.;
}

int rp_rset_set_times (struct rp_rset *r, double starttime, double expiration,
                       rp_error_t *error)
{
    if (!r)
        return invalid (error);
    if (!time_ok (starttime))
        return rp_error_set (error, EINVAL, "starttime: must be a number >= 0");
    if (!time_ok (expiration))
        return rp_error_set (error, EINVAL,
                             "expiration: must be a number >= 0");
    if (starttime > 0. && expiration > 0. && expiration <= starttime)
        return rp_error_set (error, EINVAL,
                             "expiration: must be greater than starttime");
    r->starttime = starttime + 0.; /* no -0 */
    r->expiration = expiration + 0.;
    return 0;
}

/* The scheduling key as a tree: parsed from its text the first time it
 * is asked for (the text was written by the matcher, so it parses; NULL
 * for lack of memory). */
const json_t *rp_rset_scheduling (const struct rp_rset *r)
{
    struct rp_rset *mut = (struct rp_rset *)r; /* a cache, not a change */
    json_t *o;

    if (r && r->sched) {
        if (!(o = json_loads (r->sched, 0, NULL))
            || json_object_set_new (keys (&mut->top), "scheduling", o) < 0)
            return NULL;
        free (mut->sched);
        mut->sched = NULL;
    }
    return r ? json_object_get (r->top, "scheduling") : NULL;
}

int rset_set_scheduling_text (struct rp_rset *r, char *text)
{
    if (!r || !text) {
        free (text);
        errno = EINVAL;
        return -1;
    }
    json_object_del (r->top, "scheduling");
    free (r->sched);
    r->sched = text;
    return 0;
}

int rp_rset_set_scheduling (struct rp_rset *r, json_t *o)
{
    if (!r || (o && !json_is_object (o))) {
        errno = EINVAL;
        return -1;
    }
    free (r->sched);
    r->sched = NULL;
    if (!o) {
        json_object_del (r->top, "scheduling");
        return 0;
    }
    if (json_object_set (keys (&r->top), "scheduling", o) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* --- add_target ----------------------------------------------------------- */

/* Letters, digits, '.', '-' and '_', with no run of more than 18
 * digits, 1 to RP_HOSTLIST_MAX_NAME bytes: no bracket, comma or space to
 * make it more than one host, and a number the reader takes whole, so
 * RFC 29 reads it back as itself without parsing it.  (What the names of
 * a graph's nodes are: the matcher adds one per target of every job it
 * allocates.  A randomized test compares this with the parse.) */
static bool hostname_plain (const char *name)
{
    size_t n = 0, digits = 0;

    for (; name[n]; n++) {
        char c = name[n];
        if (c >= '0' && c <= '9') {
            if (++digits > 18)
                return false;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '.'
                   || c == '-' || c == '_')
            digits = 0;
        else
            return false;
    }
    return n <= RP_HOSTLIST_MAX_NAME;
}

/* A host name must be one host that RFC 29 reads back as itself. */
static int check_hostname (const char *name, rp_error_t *error)
{
    struct rp_hostlist *hl;
    char buf[RP_HOSTLIST_MAX_NAME + 1];
    bool single;

    if (!name || !*name)
        return rp_error_set (error, EINVAL, "host name is empty");
    if (hostname_plain (name))
        return 0;
    if (!(hl = rp_hostlist_decode (name, error)))
        return rp_error_prefix (error, "invalid host name");
    single = rp_hostlist_count (hl) == 1
             && rp_hostlist_nth_buf (hl, 0, buf, sizeof (buf)) == 0
             && strcmp (buf, name) == 0;
    rp_hostlist_destroy (hl);
    if (!single)
        return rp_error_set (error, EINVAL,
                             "host name \"%s\" is not a single host", name);
    return 0;
}

int rset_host_check (const char *name, rp_error_t *error)
{
    return check_hostname (name, error);
}

static bool idset_is (const struct rp_idset *have, const struct rp_idset *want)
{
    return want ? rp_idset_equal (have, want) : rp_idset_empty (have);
}

static bool children_are (const struct children *ch,
                          const struct rp_idset *cores,
                          const struct rp_idset *gpus)
{
    return idset_is (ch->cores, cores) && idset_is (ch->gpus, gpus);
}

/* The children of the targets beside where rank goes, shared when they
 * hold cores and gpus (NULL is empty), else a copy: targets added in rank
 * order with the same children (a node's cores on every rank) share one
 * record, so adding, grouping and freeing them costs no idset each. */
static struct children *children_near (const struct rp_rset *r,
                                       unsigned int rank,
                                       const struct rp_idset *cores,
                                       const struct rp_idset *gpus)
{
    size_t pos;

    find_rank (r, rank, &pos);
    if (pos > 0 && children_are (r->t[pos - 1].ch, cores, gpus))
        return children_ref (r->t[pos - 1].ch);
    if (pos < r->n && children_are (r->t[pos].ch, cores, gpus))
        return children_ref (r->t[pos].ch);
    return children_copy (cores, gpus);
}

int rset_ids_add_range (struct rp_idset *ids, unsigned int lo, unsigned int hi)
{
    if (ids->n > 0 || lo > hi || hi > RP_IDSET_MAX_ID)
        return rp_idset_add_range (ids, lo, hi);
    ids->r[0] = (struct range){ lo, hi };
    ids->n = 1;
    ids->count = (size_t)(hi - lo) + 1;
    return 0;
}

/* Add target rank of hostname (checked) with children ch (taken, also on
 * failure: NULL is ENOMEM). */
static int add_target (struct rp_rset *r, unsigned int rank,
                       const char *hostname, struct children *ch,
                       rp_error_t *error)
{
    size_t pos;
    char *host = NULL;

    if (!r) {
        children_unref (ch);
        return invalid (error);
    }
    if (find_rank (r, rank, &pos)) {
        children_unref (ch);
        return rp_error_set (error, EEXIST,
                             "rank %u is already an execution target", rank);
    }
    if (!ch || (r->n == r->alloc && grow_targets (r, r->n + 1) < 0)
        || !(host = host_copy (r, hostname))
        || rset_ids_add_range (r->ranks, rank, rank) < 0) {
        if (host)
            host_free (r, host);
        children_unref (ch);
        return fail_errno (error);
    }
    if (pos < r->n) /* not appended */
        memmove (&r->t[pos + 1], &r->t[pos], (r->n - pos) * sizeof (*r->t));
    r->t[pos].rank = rank;
    r->t[pos].host = host;
    r->t[pos].ch = ch;
    r->n++;
    drop_host_index (r);
    return 0;
}

int rp_rset_add_target (struct rp_rset *r, unsigned int rank,
                        const char *hostname, const struct rp_idset *cores,
                        const struct rp_idset *gpus, rp_error_t *error)
{
    if (!r)
        return invalid (error);
    if (rank > RP_IDSET_MAX_ID)
        return rp_error_set (error, EINVAL, "rank %u is out of range", rank);
    if (check_hostname (hostname, error) < 0)
        return -1;
    return add_target (r, rank, hostname, children_near (r, rank, cores, gpus),
                       error);
}

/* The record of a target made empty: r's room while it is free (the
 * target's reference and r's), else one of its own.  NULL: ENOMEM. */
static struct children *children_for_empty (struct rp_rset *r)
{
    if (r->room && !r->room_used) {
        r->room_used = true;
        return children_init_empty (set_room (r), 2 * REF | IN_SET);
    }
    return children_create_empty ();
}

/* The empty children of a new target of rank, its idsets in *cores and
 * *gpus; NULL with the error set. */
static struct children *target_empty (struct rp_rset *r, unsigned int rank,
                                      struct rp_idset **cores,
                                      struct rp_idset **gpus,
                                      rp_error_t *error)
{
    struct children *ch = NULL;

    if (rank > RP_IDSET_MAX_ID)
        rp_error_set (error, EINVAL, "rank %u is out of range", rank);
    else if (!(ch = children_for_empty (r)))
        fail_errno (error);
    else {
        *cores = ch->cores;
        *gpus = ch->gpus;
    }
    return ch;
}

int rset_add_target_empty (struct rp_rset *r, unsigned int rank,
                           const char *hostname, struct rp_idset **cores,
                           struct rp_idset **gpus, rp_error_t *error)
{
    struct children *ch = target_empty (r, rank, cores, gpus, error);

    return ch ? add_target (r, rank, hostname, ch, error) : -1;
}

int rset_push_target_empty (struct rp_rset *r, unsigned int rank,
                            const char *hostname, struct rp_idset **cores,
                            struct rp_idset **gpus, rp_error_t *error)
{
    struct children *ch = target_empty (r, rank, cores, gpus, error);

    if (!ch)
        return -1;
    if (push_target (r, rank, hostname, ch) < 0)
        return fail_errno (error);
    drop_host_index (r);
    return 0;
}

static int target_rank_cmp (const void *a, const void *b)
{
    const struct target *x = a, *y = b;

    return (x->rank > y->rank) - (x->rank < y->rank);
}

void rset_sort_targets (struct rp_rset *r)
{
    qsort (r->t, r->n, sizeof (*r->t), target_rank_cmp);
    drop_host_index (r);
}

/* --- decode --------------------------------------------------------------- */

/* R_lite while it is decoded: per entry its ranks and children, and the
 * rank ranges of all entries sorted by lowest rank. */
struct span {
    unsigned int lo;
    unsigned int hi;
    size_t entry;
};

struct rlite {
    size_t nentries;
    struct rp_idset **ranks;
    struct children **ch;
    struct span *spans;
    size_t nspans;
    size_t ntargets;
};

static void rlite_free (struct rlite *rl)
{
    for (size_t i = 0; i < rl->nentries; i++) {
        rp_idset_destroy (rl->ranks ? rl->ranks[i] : NULL);
        children_unref (rl->ch ? rl->ch[i] : NULL);
    }
    free (rl->ranks);
    free (rl->ch);
    free (rl->spans);
}

static int nomem (rp_error_t *error)
{
    return rp_error_set (error, ENOMEM, "out of memory");
}

/* The idset at obj.key.  An absent optional key is the empty set. */
static struct rp_idset *idset_member (const json_t *obj, const char *key,
                                      const char *path, bool required,
                                      rp_error_t *error)
{
    const json_t *v = json_object_get (obj, key);
    struct rp_idset *ids;

    if (!v && !required)
        return rp_idset_create ();
    if (!v) {
        rp_error_set (error, EINVAL, "%s.%s: missing", path, key);
        return NULL;
    }
    if (!json_is_string (v)) {
        rp_error_set (error, EINVAL, "%s.%s: must be a string", path, key);
        return NULL;
    }
    if (!(ids = rp_idset_decode (json_string_value (v), error)))
        rp_error_prefix (error, "%s.%s", path, key);
    return ids;
}

static bool is_one_of (const char *key, const char *const *keys)
{
    for (size_t i = 0; keys[i]; i++) {
        if (strcmp (key, keys[i]) == 0)
            return true;
    }
    return false;
}

/* Every key of obj must be one of keys (NULL terminated). */
static int check_keys (const json_t *obj, const char *path,
                       const char *const *keys, const char *what,
                       rp_error_t *error)
{
    json_t *o = (json_t *)obj; /* jansson's iterators take no const */

    for (void *it = json_object_iter (o); it;
         it = json_object_iter_next (o, it)) {
        const char *key = json_object_iter_key (it);
        if (!is_one_of (key, keys))
            return rp_error_set (error, EINVAL, "%s.%s: %s", path, key, what);
    }
    return 0;
}

static int decode_children (const json_t *entry, const char *path,
                            struct children **chp, rp_error_t *error)
{
    static const char *const types[] = { "core", "gpu", NULL };
    const json_t *o = json_object_get (entry, "children");
    struct rp_idset *cores;
    struct rp_idset *gpus;
    char cpath[64];

    if (!o)
        return rp_error_set (error, EINVAL, "%s.children: missing", path);
    if (!json_is_object (o))
        return rp_error_set (error, EINVAL, "%s.children: must be an object",
                             path);
    snprintf (cpath, sizeof (cpath), "%s.children", path);
    if (!(cores = idset_member (o, "core", cpath, true, error)))
        return -1;
    if (!(gpus = idset_member (o, "gpu", cpath, false, error))
        || check_keys (o, cpath, types, "unknown resource type", error) < 0) {
        rp_idset_destroy (cores);
        rp_idset_destroy (gpus);
        return -1;
    }
    if (!(*chp = children_create (cores, gpus)))
        return nomem (error);
    return 0;
}

static int decode_entry (struct rlite *rl, size_t i, const json_t *entry,
                         rp_error_t *error)
{
    static const char *const keys[] = { "rank", "children", NULL };
    char path[48];

    snprintf (path, sizeof (path), "execution.R_lite[%zu]", i);
    if (!json_is_object (entry))
        return rp_error_set (error, EINVAL, "%s: must be an object", path);
    if (!(rl->ranks[i] = idset_member (entry, "rank", path, true, error)))
        return -1;
    if (rp_idset_empty (rl->ranks[i]))
        return rp_error_set (error, EINVAL, "%s.rank: must not be empty", path);
    if (decode_children (entry, path, &rl->ch[i], error) < 0)
        return -1;
    return check_keys (entry, path, keys, "unknown key", error);
}

static int span_cmp (const void *a, const void *b)
{
    const struct span *x = a;
    const struct span *y = b;

    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return (x->entry > y->entry) - (x->entry < y->entry);
}

static int make_spans (struct rlite *rl, rp_error_t *error)
{
    size_t n = 0;

    for (size_t i = 0; i < rl->nentries; i++)
        n += rp_idset_range_count (rl->ranks[i]);
    if (!(rl->spans = malloc ((n + 1) * sizeof (*rl->spans))))
        return nomem (error);
    for (size_t i = 0; i < rl->nentries; i++) {
        struct span s = { .entry = i };
        for (size_t k = 0; rp_idset_range (rl->ranks[i], k, &s.lo, &s.hi); k++)
            rl->spans[rl->nspans++] = s;
    }
    qsort (rl->spans, rl->nspans, sizeof (*rl->spans), span_cmp);
    return 0;
}

static int decode_rlite (const json_t *exec, struct rlite *rl,
                         rp_error_t *error)
{
    const json_t *a = json_object_get (exec, "R_lite");
    size_t n;

    if (!a)
        return rp_error_set (error, EINVAL, "execution.R_lite: missing");
    if (!json_is_array (a))
        return rp_error_set (error, EINVAL,
                             "execution.R_lite: must be an array");
    n = json_array_size (a);
    if (!(rl->ranks = calloc (n + 1, sizeof (*rl->ranks)))
        || !(rl->ch = calloc (n + 1, sizeof (*rl->ch))))
        return nomem (error);
    rl->nentries = n;
    for (size_t i = 0; i < n; i++) {
        if (decode_entry (rl, i, json_array_get (a, i), error) < 0)
            return -1;
    }
    return make_spans (rl, error);
}

/* rank is named by two entries: report the second one. */
static int duplicate_error (const struct rlite *rl, unsigned int rank,
                            rp_error_t *error)
{
    size_t seen = 0;
    size_t i;

    for (i = 0; i < rl->nentries; i++) {
        if (rp_idset_test (rl->ranks[i], rank) && seen++ == 1)
            break;
    }
    return rp_error_set (error, EINVAL,
                         "execution.R_lite[%zu].rank: rank %u appears twice", i,
                         rank);
}

/* Spans are sorted by lowest rank, so the first span that starts at or
 * below the highest rank seen so far starts at the lowest duplicate.  Then
 * the count: only once ranks are known to be distinct. */
static int check_spans (struct rlite *rl, rp_error_t *error)
{
    unsigned int maxhi = 0;

    for (size_t k = 0; k < rl->nspans; k++) {
        const struct span *s = &rl->spans[k];
        if (k > 0 && s->lo <= maxhi)
            return duplicate_error (rl, s->lo, error);
        if (k == 0 || s->hi > maxhi)
            maxhi = s->hi;
    }
    for (size_t k = 0; k < rl->nspans; k++) {
        rl->ntargets += (size_t)(rl->spans[k].hi - rl->spans[k].lo) + 1;
        if (rl->ntargets > RP_RSET_MAX_TARGETS)
            return rp_error_set (error, EOVERFLOW,
                                 "execution.R_lite: more than %u execution "
                                 "targets",
                                 RP_RSET_MAX_TARGETS);
    }
    return 0;
}

static struct rp_hostlist *decode_nodelist (const json_t *exec, size_t n,
                                            rp_error_t *error)
{
    const json_t *a = json_object_get (exec, "nodelist");
    struct rp_hostlist *hl;
    size_t count;

    if (!a || !json_is_array (a)) {
        rp_error_set (error, EINVAL, "execution.nodelist: %s",
                      a ? "must be an array" : "missing");
        return NULL;
    }
    if (!(hl = rp_hostlist_create ())) {
        nomem (error);
        return NULL;
    }
    for (size_t i = 0; i < json_array_size (a); i++) {
        const json_t *v = json_array_get (a, i);
        if (!json_is_string (v)) {
            rp_error_set (error, EINVAL,
                          "execution.nodelist[%zu]: must be a string", i);
            goto error;
        }
        if (rp_hostlist_append (hl, json_string_value (v), error) < 0) {
            rp_error_prefix (error, "execution.nodelist[%zu]", i);
            goto error;
        }
    }
    if ((count = rp_hostlist_count (hl)) != n) {
        rp_error_set (error, EINVAL,
                      "execution.nodelist: %zu host%s for %zu execution "
                      "target%s",
                      count, count == 1 ? "" : "s", n, n == 1 ? "" : "s");
        goto error;
    }
    return hl;
error:
    rp_hostlist_destroy (hl);
    return NULL;
}

/* Targets in rank order, hosts in nodelist order. */
static int expand_targets (struct rp_rset *r, const struct rlite *rl,
                           const struct rp_hostlist *hl, rp_error_t *error)
{
    char host[RP_HOSTLIST_MAX_NAME + 1];
    size_t idx = 0;

    if (grow_targets (r, rl->ntargets) < 0)
        return fail_errno (error);
    for (size_t k = 0; k < rl->nspans; k++) {
        const struct span *s = &rl->spans[k];
        struct children *ch = rl->ch[s->entry];
        for (unsigned int rank = s->lo; rank - s->lo <= s->hi - s->lo; rank++) {
            if (rp_hostlist_nth_buf (hl, idx++, host, sizeof (host)) < 0
                || push_target (r, rank, host, children_ref (ch)) < 0)
                return fail_errno (error);
        }
    }
    return 0;
}

static int decode_targets (struct rp_rset *r, const json_t *exec,
                           rp_error_t *error)
{
    struct rlite rl = { 0 };
    struct rp_hostlist *hl = NULL;
    int rc = -1;

    if (decode_rlite (exec, &rl, error) < 0 || check_spans (&rl, error) < 0
        || !(hl = decode_nodelist (exec, rl.ntargets, error))
        || expand_targets (r, &rl, hl, error) < 0)
        goto done;
    rc = 0;
done:
    rp_hostlist_destroy (hl);
    rlite_free (&rl);
    return rc;
}

static int decode_property (struct rp_rset *r, const char *name,
                            const json_t *v, rp_error_t *error)
{
    struct rp_idset *ids;

    if (rp_rset_property_check (name, error) < 0)
        return rp_error_prefix (error, "execution.properties");
    if (!json_is_string (v))
        return rp_error_set (error, EINVAL,
                             "execution.properties.%s: must be a string", name);
    if (!(ids = rp_idset_decode (json_string_value (v), error)))
        return rp_error_prefix (error, "execution.properties.%s", name);
    if (check_targets (r, ids, error) < 0) {
        rp_idset_destroy (ids);
        errno = EINVAL;
        return rp_error_prefix (error, "execution.properties.%s", name);
    }
    if (rp_idset_empty (ids)) {
        rp_idset_destroy (ids);
        return 0;
    }
    if (prop_insert (r, r->np, name, ids) < 0)
        return nomem (error);
    return 0;
}

static int decode_properties (struct rp_rset *r, const json_t *exec,
                              rp_error_t *error)
{
    const json_t *o = json_object_get (exec, "properties");

    if (!o)
        return 0;
    if (!json_is_object (o))
        return rp_error_set (error, EINVAL,
                             "execution.properties: must be an object");
    for (void *it = json_object_iter ((json_t *)o); it;
         it = json_object_iter_next ((json_t *)o, it)) {
        if (decode_property (r, json_object_iter_key (it),
                             json_object_iter_value (it), error)
            < 0)
            return -1;
    }
    if (r->np > 1)
        qsort (r->p, r->np, sizeof (*r->p), prop_cmp);
    return 0;
}

static int decode_time (const json_t *exec, const char *key, double *t,
                        rp_error_t *error)
{
    const json_t *v = json_object_get (exec, key);

    *t = 0.;
    if (!v)
        return 0;
    if (!json_is_number (v) || !time_ok (json_number_value (v)))
        return rp_error_set (error, EINVAL,
                             "execution.%s: must be a number >= 0", key);
    *t = json_number_value (v) + 0.; /* no -0 */
    return 0;
}

static int decode_times (struct rp_rset *r, const json_t *exec,
                         rp_error_t *error)
{
    if (decode_time (exec, "starttime", &r->starttime, error) < 0
        || decode_time (exec, "expiration", &r->expiration, error) < 0)
        return -1;
    if (r->starttime > 0. && r->expiration > 0.
        && r->expiration <= r->starttime)
        return rp_error_set (error, EINVAL,
                             "execution.expiration: must be greater than "
                             "starttime");
    return 0;
}

/* nslots and scheduling are kept verbatim, but checked. */
static int check_opaque (const json_t *o, const json_t *exec, rp_error_t *error)
{
    const json_t *nslots = json_object_get (exec, "nslots");
    const json_t *sched = json_object_get (o, "scheduling");

    if (nslots
        && (!json_is_integer (nslots) || json_integer_value (nslots) < 1))
        return rp_error_set (error, EINVAL,
                             "execution.nslots: must be an integer > 0");
    if (sched && !json_is_object (sched))
        return rp_error_set (error, EINVAL, "scheduling: must be an object");
    return 0;
}

/* Copy the keys of src that are not in known into dst.  deep: the caller
 * keeps src and may change it, so take copies, not references. */
static int keep_unknown (json_t **dst, const json_t *src,
                         const char *const *known, bool deep)
{
    json_t *o = (json_t *)src; /* jansson's iterators take no const */

    for (void *it = json_object_iter (o); it;
         it = json_object_iter_next (o, it)) {
        const char *key = json_object_iter_key (it);
        json_t *v = json_object_iter_value (it);
        if (is_one_of (key, known))
            continue;
        if (json_object_set_new (keys (dst), key,
                                 deep ? json_deep_copy (v) : json_incref (v))
            < 0)
            return -1;
    }
    return 0;
}

static int keep_opaque (struct rp_rset *r, const json_t *o, const json_t *exec,
                        bool deep, rp_error_t *error)
{
    static const char *const top[] = { "version", "execution", NULL };
    static const char *const ex[] = { "R_lite",    "nodelist",   "properties",
                                      "starttime", "expiration", NULL };

    if (keep_unknown (&r->top, o, top, deep) < 0
        || keep_unknown (&r->exec, exec, ex, deep) < 0)
        return nomem (error);
    return 0;
}

static int decode_version (const json_t *o, rp_error_t *error)
{
    const json_t *v = json_object_get (o, "version");

    if (!v)
        return rp_error_set (error, EINVAL, "version: missing");
    if (!json_is_integer (v))
        return rp_error_set (error, EINVAL, "version: must be an integer");
    if (json_integer_value (v) != 1)
        return rp_error_set (
            error, EINVAL, "version: unsupported version %" JSON_INTEGER_FORMAT,
            json_integer_value (v));
    return 0;
}

static const json_t *decode_execution (const json_t *o, rp_error_t *error)
{
    const json_t *exec = json_object_get (o, "execution");

    if (!exec || !json_is_object (exec)) {
        rp_error_set (error, EINVAL, "execution: %s",
                      exec ? "must be an object" : "missing");
        return NULL;
    }
    return exec;
}

static struct rp_rset *rset_from_json (const json_t *o, bool deep,
                                       rp_error_t *error)
{
    struct rp_rset *r = NULL;
    const json_t *exec;

    if (!json_is_object (o)) {
        rp_error_set (error, EINVAL, "must be a JSON object");
        goto error;
    }
    if (!(r = rp_rset_create ())) {
        nomem (error);
        goto error;
    }
    if (decode_version (o, error) < 0 || !(exec = decode_execution (o, error))
        || decode_targets (r, exec, error) < 0
        || decode_properties (r, exec, error) < 0
        || decode_times (r, exec, error) < 0
        || check_opaque (o, exec, error) < 0
        || keep_opaque (r, o, exec, deep, error) < 0)
        goto error;
    return r;
error:
    rp_error_prefix (error, "R");
    rp_rset_destroy (r);
    return NULL;
}

struct rp_rset *rp_rset_from_json (const json_t *o, rp_error_t *error)
{
    return rset_from_json (o, true, error);
}

/* The decode R had before it was read as text: jansson's tree of the
 * whole document, sized and checked first when asked. */
struct rp_rset *rset_decode_tree (const char *s, rset_size_check_f check,
                                  void *arg, rp_error_t *error)
{
    json_error_t jerr;
    json_t *o;
    struct rp_rset *r = NULL;
    size_t targets;
    uint64_t cores, gpus;
    int saved_errno;

    if (!s) {
        rp_error_set (error, EINVAL, "R: input is NULL");
        return NULL;
    }
    if (!(o = json_loads (s, JSON_REJECT_DUPLICATES, &jerr))) {
        rp_error_set (error, EINVAL, "R: line %d column %d: %s", jerr.line,
                      jerr.column, jerr.text);
        return NULL;
    }
    if (!check
        || (rp_rset_size_json (o, &targets, &cores, &gpus, error) == 0
            && check (targets, cores, gpus, arg, error) == 0))
        r = rset_from_json (o, false, error);
    saved_errno = errno;
    json_decref (o);
    errno = saved_errno;
    return r;
}

/* --- decode: R read as text ---------------------------------------------- */

/* R as the text reader finds it: R_lite's entries and the nodelist read
 * in place, every other key a jansson value of its own (small, and kept
 * verbatim or checked as rset_from_json checks it). */
struct rtext {
    json_t *top;  /* top level keys but execution */
    json_t *exec; /* execution keys but R_lite and nodelist */
    bool has_exec;
    bool has_rlite;
    struct rlite rl;
    size_t alloc; /* of rl.ranks and rl.ch */
    struct rp_hostlist *hl;
};

static void rtext_free (struct rtext *rt)
{
    json_decref (rt->top);
    json_decref (rt->exec);
    rlite_free (&rt->rl);
    rp_hostlist_destroy (rt->hl);
}

/* A value that is not read here: jansson's, under its key, once. */
static bool scan_other (struct jscan *s, json_t *dst, const char *key,
                        size_t klen)
{
    const char *v;
    size_t vlen;
    json_t *o;

    if (!jscan_value (s, &v, &vlen) || json_object_getn (dst, key, klen))
        return false;
    if (!(o = json_loadb (v, vlen, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES,
                          NULL)))
        return false;
    return json_object_setn_new (dst, key, klen, o) == 0;
}

/* An idset string, once: *ids still NULL. */
static bool scan_idset (struct jscan *s, struct rp_idset **ids)
{
    rp_error_t e;
    const char *str;
    size_t len;

    return !*ids && jscan_string (s, &str, &len)
           && (*ids = rp_idset_ndecode (str, len, &e));
}

static bool scan_children (struct jscan *s, struct rp_idset **cores,
                           struct rp_idset **gpus)
{
    const char *key;
    size_t klen;
    bool first = true;

    if (*cores || !jscan_expect (s, '{'))
        return false;
    while (jscan_next (s, '}', &first)) {
        if (!jscan_key (s, &key, &klen))
            return false;
        if (jscan_is (key, klen, "core")  ? !scan_idset (s, cores)
            : jscan_is (key, klen, "gpu") ? !scan_idset (s, gpus)
                                          : true)
            return false;
    }
    return !s->bad && *cores;
}

static bool scan_entry (struct jscan *s, struct rp_idset **ranks,
                        struct children **chp)
{
    struct rp_idset *cores = NULL, *gpus = NULL;
    const char *key;
    size_t klen;
    bool first = true;

    if (!jscan_expect (s, '{'))
        return false;
    while (jscan_next (s, '}', &first)) {
        if (!jscan_key (s, &key, &klen))
            goto done;
        if (jscan_is (key, klen, "rank") ? !scan_idset (s, ranks)
            : jscan_is (key, klen, "children")
                ? !scan_children (s, &cores, &gpus)
                : true)
            goto done;
    }
    if (!s->bad && *ranks && !rp_idset_empty (*ranks) && cores) {
        /* children_create takes both, also on failure */
        *chp = children_create (cores, gpus ? gpus : rp_idset_create ());
        return *chp != NULL;
    }
done:
    rp_idset_destroy (cores);
    rp_idset_destroy (gpus);
    return false;
}

static bool grow_rlite (struct rtext *rt)
{
    size_t n = rt->alloc ? rt->alloc * 2 : 16;
    struct rp_idset **ranks;
    struct children **ch;

    if (!(ranks = realloc (rt->rl.ranks, n * sizeof (*ranks))))
        return false;
    rt->rl.ranks = ranks;
    if (!(ch = realloc (rt->rl.ch, n * sizeof (*ch))))
        return false;
    rt->rl.ch = ch;
    rt->alloc = n;
    return true;
}

static bool scan_rlite (struct jscan *s, struct rtext *rt)
{
    struct rlite *rl = &rt->rl;
    bool first = true;

    if (rt->has_rlite || !jscan_expect (s, '['))
        return false;
    rt->has_rlite = true;
    while (jscan_next (s, ']', &first)) {
        size_t i = rl->nentries;
        if (i == rt->alloc && !grow_rlite (rt))
            return false;
        rl->ranks[i] = NULL;
        rl->ch[i] = NULL;
        if (!scan_entry (s, &rl->ranks[i], &rl->ch[i])) {
            rp_idset_destroy (rl->ranks[i]);
            return false;
        }
        rl->nentries++;
    }
    return !s->bad;
}

/* A host name (or hostlist) of len bytes at str: rp_hostlist_append
 * reads a NUL-terminated copy. */
static bool append_host (struct rp_hostlist *hl, const char *str, size_t len)
{
    char buf[256], *name = len < sizeof (buf) ? buf : malloc (len + 1);
    rp_error_t e;
    bool ok;

    if (!name)
        return false;
    memcpy (name, str, len);
    name[len] = '\0';
    ok = rp_hostlist_append (hl, name, &e) >= 0;
    if (name != buf)
        free (name);
    return ok;
}

static bool scan_nodelist (struct jscan *s, struct rtext *rt)
{
    const char *str;
    size_t len;
    bool first = true;

    if (rt->hl || !jscan_expect (s, '[') || !(rt->hl = rp_hostlist_create ()))
        return false;
    while (jscan_next (s, ']', &first)) {
        if (!jscan_string (s, &str, &len) || !append_host (rt->hl, str, len))
            return false;
    }
    return !s->bad;
}

static bool scan_execution (struct jscan *s, struct rtext *rt)
{
    const char *key;
    size_t klen;
    bool first = true;

    if (rt->has_exec || !jscan_expect (s, '{'))
        return false;
    rt->has_exec = true;
    while (jscan_next (s, '}', &first)) {
        if (!jscan_key (s, &key, &klen))
            return false;
        if (jscan_is (key, klen, "R_lite") ? !scan_rlite (s, rt)
            : jscan_is (key, klen, "nodelist")
                ? !scan_nodelist (s, rt)
                : !scan_other (s, rt->exec, key, klen))
            return false;
    }
    return !s->bad;
}

static bool scan_r (const char *text, struct rtext *rt)
{
    struct jscan s = { .p = text };
    const char *key;
    size_t klen;
    bool first = true;

    if (!(rt->top = json_object ()) || !(rt->exec = json_object ())
        || !jscan_expect (&s, '{'))
        return false;
    while (jscan_next (&s, '}', &first)) {
        if (!jscan_key (&s, &key, &klen))
            return false;
        if (jscan_is (key, klen, "execution")
                ? !scan_execution (&s, rt)
                : !scan_other (&s, rt->top, key, klen))
            return false;
    }
    return jscan_end (&s) && rt->has_exec && rt->has_rlite && rt->hl;
}

static int rlite_counts (const struct rlite *rl, uint64_t *cores,
                         uint64_t *gpus)
{
    *cores = *gpus = 0;
    for (size_t i = 0; i < rl->nentries; i++) {
        uint64_t n = rp_idset_count (rl->ranks[i]);
        *cores += n * rp_idset_count (rl->ch[i]->cores);
        *gpus += n * rp_idset_count (rl->ch[i]->gpus);
    }
    return 0;
}

/* R from what scan_r read, checked as rset_from_json checks it. */
static struct rp_rset *rset_from_text (struct rtext *rt,
                                       rset_size_check_f check, void *arg,
                                       rp_error_t *error)
{
    struct rp_rset *r = NULL;
    uint64_t cores, gpus;

    if (decode_version (rt->top, error) < 0 || make_spans (&rt->rl, error) < 0
        || check_spans (&rt->rl, error) < 0
        || rp_hostlist_count (rt->hl) != rt->rl.ntargets
        || (check && rlite_counts (&rt->rl, &cores, &gpus) == 0
            && check (rt->rl.ntargets, cores, gpus, arg, error) < 0)
        || !(r = rp_rset_create ())
        || expand_targets (r, &rt->rl, rt->hl, error) < 0
        || decode_properties (r, rt->exec, error) < 0
        || decode_times (r, rt->exec, error) < 0
        || check_opaque (rt->top, rt->exec, error) < 0
        || keep_opaque (r, rt->top, rt->exec, false, error) < 0) {
        rp_rset_destroy (r);
        return NULL;
    }
    return r;
}

struct rp_rset *rset_decode_text (const char *s, rset_size_check_f check,
                                  void *arg, rp_error_t *error)
{
    struct rtext rt = { 0 };
    struct rp_rset *r = NULL;

    if (s && scan_r (s, &rt))
        r = rset_from_text (&rt, check, arg, error);
    rtext_free (&rt);
    return r;
}

/* Text that is not read here, or not valid R, is read again by
 * rset_decode_tree, which words the error as it always has. */
struct rp_rset *rset_decode_checked (const char *s, rset_size_check_f check,
                                     void *arg, rp_error_t *error)
{
    struct rp_rset *r = rset_decode_text (s, check, arg, error);

    return r ? r : rset_decode_tree (s, check, arg, error);
}

struct rp_rset *rp_rset_decode (const char *s, rp_error_t *error)
{
    return rset_decode_checked (s, NULL, NULL, error);
}

/* --- bounds --------------------------------------------------------------- */

/* jansson's tree of the worst JSON text ("[[],[],..." or "[{},{},...")
 * takes 44 bytes a byte of text, the text itself one more, and a buffer
 * read by doubling up to one more again (doc/formats.md). */
#define TEXT_COST 48

size_t rp_rset_text_max (uint64_t memory)
{
    uint64_t n = memory / TEXT_COST;
    return n > SIZE_MAX - 1 ? SIZE_MAX - 1 : (size_t)n;
}

/* R_lite is read and checked as decode_targets reads it, and counted, but
 * not expanded: the cost is in entries and rank ranges. */
int rp_rset_size_json (const json_t *o, size_t *ntargets, uint64_t *ncores,
                       uint64_t *ngpus, rp_error_t *error)
{
    struct rlite rl = { 0 };
    const json_t *exec;
    uint64_t cores = 0, gpus = 0;
    int rc = -1;

    if (!json_is_object (o))
        rp_error_set (error, EINVAL, "must be a JSON object");
    else if (decode_version (o, error) == 0
             && (exec = decode_execution (o, error))
             && decode_rlite (exec, &rl, error) == 0
             && check_spans (&rl, error) == 0)
        rc = 0;
    for (size_t i = 0; rc == 0 && i < rl.nentries; i++) {
        uint64_t n = rp_idset_count (rl.ranks[i]);
        cores += n * rp_idset_count (rl.ch[i]->cores);
        gpus += n * rp_idset_count (rl.ch[i]->gpus);
    }
    if (rc == 0 && ntargets)
        *ntargets = rl.ntargets;
    if (rc == 0 && ncores)
        *ncores = cores;
    if (rc == 0 && ngpus)
        *ngpus = gpus;
    if (rc < 0)
        rp_error_prefix (error, "R");
    rlite_free (&rl);
    return rc;
}

/* --- encode --------------------------------------------------------------- */

/* A run of targets next to each other in rank order with equal children,
 * the unit that is grouped, and its children as strings to group equal
 * runs.  Targets added in rank order with the same children (what
 * `respol R encode` and a node's cores make) are one run: one key, no
 * sort of the targets. */
struct ckey {
    char *core;
    char *gpu;
    size_t i; /* first target */
    size_t n; /* targets */
};

static void ckeys_destroy (struct ckey *k, size_t n)
{
    for (size_t i = 0; k && i < n; i++) {
        free (k[i].core);
        free (k[i].gpu);
    }
    free (k);
}

/* The end of the run of equal children that starts at target i. */
static size_t run_end (const struct rp_rset *r, size_t i)
{
    size_t j = i + 1;

    while (j < r->n && children_equal (r->t[j].ch, r->t[i].ch))
        j++;
    return j;
}

static struct ckey *ckeys_create (const struct rp_rset *r, size_t *nk)
{
    struct ckey *k;
    size_t n = 0;

    for (size_t i = 0; i < r->n; i = run_end (r, i))
        n++;
    if (!(k = calloc (n + 1, sizeof (*k))))
        return NULL;
    n = 0;
    for (size_t i = 0; i < r->n; i += k[n++].n) {
        const struct children *ch = r->t[i].ch;
        k[n].i = i;
        k[n].n = run_end (r, i) - i;
        if (!(k[n].core = rp_idset_encode (ch->cores, RP_IDSET_RANGES))
            || !(k[n].gpu = rp_idset_encode (ch->gpus, RP_IDSET_RANGES))) {
            ckeys_destroy (k, n + 1);
            return NULL;
        }
    }
    *nk = n;
    return k;
}

static int ckey_cmp_children (const struct ckey *x, const struct ckey *y)
{
    int c = strcmp (x->core, y->core);

    return c ? c : strcmp (x->gpu, y->gpu);
}

static int ckey_cmp (const void *a, const void *b)
{
    const struct ckey *x = a;
    const struct ckey *y = b;
    int c = ckey_cmp_children (x, y);

    return c ? c : (x->i > y->i) - (x->i < y->i);
}

/* One R_lite entry: the runs k[start..start+count-1] of sorted keys
 * (equal children, ranks ascending). */
struct group {
    unsigned int first; /* lowest rank */
    size_t start;
    size_t count;
};

struct groups {
    struct ckey *k;
    struct group *g; /* ordered by lowest rank */
    size_t n;        /* keys */
    size_t ng;       /* groups */
};

static int group_cmp (const void *a, const void *b)
{
    const struct group *x = a;
    const struct group *y = b;

    return (x->first > y->first) - (x->first < y->first);
}

static void groups_free (struct groups *gs)
{
    ckeys_destroy (gs->k, gs->n);
    free (gs->g);
}

static int groups_make (const struct rp_rset *r, struct groups *gs)
{
    if (!(gs->k = ckeys_create (r, &gs->n))
        || !(gs->g = calloc (gs->n + 1, sizeof (*gs->g))))
        return -1;
    if (gs->n > 1)
        qsort (gs->k, gs->n, sizeof (*gs->k), ckey_cmp);
    for (size_t i = 0, j; i < gs->n; i = j) {
        for (j = i + 1;
             j < gs->n && ckey_cmp_children (&gs->k[i], &gs->k[j]) == 0; j++)
            ;
        gs->g[gs->ng++] = (struct group){ r->t[gs->k[i].i].rank, i, j - i };
    }
    if (gs->ng > 1)
        qsort (gs->g, gs->ng, sizeof (*gs->g), group_cmp);
    return 0;
}

/* The range lo-hi as rp_idset_encode (set, RP_IDSET_RANGES) writes it,
 * after a comma unless first. */
static void put_range (struct jtext *b, unsigned int lo, unsigned int hi,
                       bool first)
{
    char d[24], *p;

    if (!first)
        jt_put (b, ",", 1);
    p = jt_digits (d + sizeof (d), lo);
    jt_put (b, p, (size_t)(d + sizeof (d) - p));
    if (hi > lo) {
        jt_put (b, "-", 1);
        p = jt_digits (d + sizeof (d), hi);
        jt_put (b, p, (size_t)(d + sizeof (d) - p));
    }
}

/* The ranks of group g as their idset encodes them, written range by
 * range: the runs of a group, in target order, hold ascending ranks. */
static int put_group_ranks (struct jtext *b, const struct rp_rset *r,
                            const struct groups *gs, const struct group *g)
{
    const struct ckey *k = &gs->k[g->start];
    unsigned int lo = r->t[k->i].rank, hi = lo;
    bool first = true;

    for (size_t x = 0; x < g->count; x++) {
        for (size_t i = k[x].i + (x == 0); i < k[x].i + k[x].n; i++) {
            unsigned int rank = r->t[i].rank;
            if (rank != hi + 1) {
                put_range (b, lo, hi, first);
                first = false;
                lo = rank;
            }
            hi = rank;
        }
    }
    put_range (b, lo, hi, first);
    return b->failed ? -1 : 0;
}

/* The ranks of group g, encoded.  Caller must free. */
static char *group_ranks (const struct rp_rset *r, const struct groups *gs,
                          const struct group *g)
{
    struct jtext b = { 0 };

    put_group_ranks (&b, r, gs, g);
    return jt_finish (&b);
}

static json_t *entry_json (const struct rp_rset *r, const struct groups *gs,
                           const struct group *g)
{
    const struct ckey *k = &gs->k[g->start];
    json_t *children = json_object ();
    json_t *entry = json_object ();
    char *s = group_ranks (r, gs, g);

    if (!children || !entry || !s
        || json_object_set_new (entry, "rank", json_string (s)) < 0
        || json_object_set_new (children, "core", json_string (k->core)) < 0
        || (*k->gpu
            && json_object_set_new (children, "gpu", json_string (k->gpu)) < 0)
        || json_object_set (entry, "children", children) < 0) {
        json_decref (entry);
        entry = NULL;
    }
    json_decref (children);
    free (s);
    return entry;
}

static json_t *rlite_json (const struct rp_rset *r)
{
    struct groups gs = { 0 };
    json_t *a = json_array ();

    if (!a || groups_make (r, &gs) < 0)
        goto error;
    for (size_t i = 0; i < gs.ng; i++) {
        if (json_array_append_new (a, entry_json (r, &gs, &gs.g[i])) < 0)
            goto error;
    }
    groups_free (&gs);
    return a;
error:
    groups_free (&gs);
    json_decref (a);
    errno = ENOMEM;
    return NULL;
}

static json_t *nodelist_json (const struct rp_rset *r)
{
    struct rp_hostlist *hl = NULL;
    char *s = NULL;
    json_t *a = json_array ();

    if (!a || r->n == 0)
        return a;
    if (!(hl = rp_rset_nodelist (r)) || !(s = rp_hostlist_encode (hl))
        || json_array_append_new (a, json_string (s)) < 0) {
        json_decref (a);
        a = NULL;
    }
    free (s);
    rp_hostlist_destroy (hl);
    return a;
}

static int copy_keys (json_t *dst, const json_t *src, bool deep)
{
    static const char *const none[] = { NULL };

    return keep_unknown (&dst, src, none, deep);
}

/* The execution object, with R_lite only when rlite is true. */
static json_t *exec_json (const struct rp_rset *r, bool deep, bool rlite)
{
    json_t *exec = json_object ();

    if (!exec
        || (rlite && json_object_set_new (exec, "R_lite", rlite_json (r)) < 0)
        || json_object_set_new (exec, "nodelist", nodelist_json (r)) < 0
        || json_object_set_new (exec, "starttime", json_real (r->starttime)) < 0
        || json_object_set_new (exec, "expiration", json_real (r->expiration))
               < 0
        || (r->np > 0
            && json_object_set_new (exec, "properties", rp_rset_properties (r))
                   < 0)
        || copy_keys (exec, r->exec, deep) < 0) {
        json_decref (exec);
        errno = ENOMEM;
        return NULL;
    }
    return exec;
}

/* The top level object without "execution"; with the scheduling key
 * kept as text only when sched (else parsed into the object). */
static json_t *top_json (const struct rp_rset *r, bool deep, bool sched)
{
    json_t *R = json_object ();

    if (!R || json_object_set_new (R, "version", json_integer (1)) < 0
        || copy_keys (R, r->top, deep) < 0
        || (r->sched && !sched
            && json_object_set_new (R, "scheduling",
                                    json_loads (r->sched, 0, NULL))
                   < 0)) {
        json_decref (R);
        errno = ENOMEM;
        return NULL;
    }
    return R;
}

static json_t *rset_json (const struct rp_rset *r, bool deep)
{
    json_t *R = top_json (r, deep, false);

    if (!R
        || json_object_set_new (R, "execution", exec_json (r, deep, true))
               < 0) {
        json_decref (R);
        errno = ENOMEM;
        return NULL;
    }
    return R;
}

json_t *rp_rset_to_json (const struct rp_rset *r)
{
    if (!r) {
        errno = EINVAL;
        return NULL;
    }
    return rset_json (r, true);
}

/* --- encode: compact text ------------------------------------------------- */

/* The compact text is byte for byte what json_dumps (rset_json (r),
 * JSON_COMPACT | JSON_SORT_KEYS) prints, but R_lite is written here
 * without building its tree (see "Memory" at the top).  The two objects
 * that hold R_lite, the top level and "execution", are written by
 * put_object with their keys in byte order, as JSON_SORT_KEYS sorts them;
 * every other value (nodelist, times, properties, opaque keys) and every key
 * still goes through jansson, so escaping and number formatting stay
 * jansson's.  RP_RSET_PRETTY is for people and small R: it dumps the tree.
 */

/* The encoder writes into a struct jtext (core/jtext.h); these keep the
 * "0 or -1" style of the code below. */
static int buf_put (struct jtext *b, const char *s, size_t n)
{
    jt_put (b, s, n);
    return b->failed ? -1 : 0;
}

static int buf_puts (struct jtext *b, const char *s)
{
    return buf_put (b, s, strlen (s));
}

static int buf_json (struct jtext *b, const json_t *v)
{
    jt_json (b, v);
    return b->failed ? -1 : 0;
}

/* s as a JSON string, escaped as jansson escapes it. */
static int buf_string (struct jtext *b, const char *s)
{
    jt_string (b, s);
    return b->failed ? -1 : 0;
}

/* Idset strings hold only digits, ',' and '-': no escaping needed. */
/* The pieces of an R_lite entry around its core ids, GPU ids and ranks. */
#define ENTRY_CORE "{\"children\":{\"core\":\""
#define ENTRY_GPU "\",\"gpu\":\""
#define ENTRY_RANK "\"},\"rank\":\""
#define ENTRY_END "\"}"

/* An R_lite entry up to its ranks. */
static int put_entry (struct jtext *b, const struct ckey *k)
{
    if (buf_puts (b, ENTRY_CORE) < 0 || buf_puts (b, k->core) < 0
        || (*k->gpu
            && (buf_puts (b, ENTRY_GPU) < 0 || buf_puts (b, k->gpu) < 0))
        || buf_puts (b, ENTRY_RANK) < 0)
        return -1;
    return 0;
}

static int put_uint (struct jtext *b, unsigned int v)
{
    char d[24], *p = jt_digits (d + sizeof (d), v);

    return buf_put (b, p, (size_t)(d + sizeof (d) - p));
}

/* set as rp_idset_encode (set, RP_IDSET_RANGES) writes it, range by range
 * into b, with no string allocated. */
static int put_id_ranges (struct jtext *b, const struct rp_idset *set)
{
    unsigned int lo, hi;

    for (size_t i = 0; rp_idset_range (set, i, &lo, &hi); i++)
        put_range (b, lo, hi, i == 0);
    return b->failed ? -1 : 0;
}

/* One target (a job's usual R): its entry written from the target, with
 * no keys made, sorted and grouped, its rank not encoded as an idset and
 * its ids not encoded as strings (3,100 -> 1,300 -> 900 instructions for
 * a slot of 4 cores); the same text. */
static int put_rlite_one (struct jtext *b, const struct target *t)
{
    if (buf_puts (b, "[" ENTRY_CORE) < 0 || put_id_ranges (b, t->ch->cores) < 0
        || (!rp_idset_empty (t->ch->gpus)
            && (buf_puts (b, ENTRY_GPU) < 0
                || put_id_ranges (b, t->ch->gpus) < 0))
        || buf_puts (b, ENTRY_RANK) < 0 || put_uint (b, t->rank) < 0
        || buf_puts (b, ENTRY_END "]") < 0)
        return -1;
    return 0;
}

static int put_rlite (struct jtext *b, const struct rp_rset *r)
{
    struct groups gs = { 0 };
    int rc = -1;

    if (r->n == 1)
        return put_rlite_one (b, &r->t[0]);
    if (groups_make (r, &gs) < 0 || buf_puts (b, "[") < 0)
        goto done;
    for (size_t i = 0; i < gs.ng; i++) {
        if ((i > 0 && buf_puts (b, ",") < 0)
            || put_entry (b, &gs.k[gs.g[i].start]) < 0
            || put_group_ranks (b, r, &gs, &gs.g[i]) < 0
            || buf_puts (b, ENTRY_END) < 0)
            goto done;
    }
    rc = buf_puts (b, "]");
done:
    groups_free (&gs);
    return rc;
}

typedef int (*put_fn) (struct jtext *b, const struct rp_rset *r);

/* A member written by its own function, not taken from the object. */
struct member {
    const char *key;
    put_fn put;
};

static int key_cmp (const void *a, const void *b)
{
    return strcmp (*(const char *const *)a, *(const char *const *)b);
}

/* o's keys and the n members' keys, sorted as JSON_SORT_KEYS sorts them.
 * The caller tells a member's key from o's keys by its address. */
static const char **sorted_keys (const json_t *o, const struct member *mb,
                                 size_t nmb)
{
    json_t *obj = (json_t *)o; /* jansson's iterators take no const */
    size_t n = 0;
    const char **keys = malloc ((json_object_size (o) + nmb) * sizeof (*keys));

    if (!keys)
        return NULL;
    for (size_t i = 0; i < nmb; i++)
        keys[n++] = mb[i].key;
    for (void *it = json_object_iter (obj); it;
         it = json_object_iter_next (obj, it))
        keys[n++] = json_object_iter_key (it);
    qsort (keys, n, sizeof (*keys), key_cmp);
    return keys;
}

/* The member of key (by address), or NULL for one of o's. */
static const struct member *member_of (const char *key, const struct member *mb,
                                       size_t nmb)
{
    for (size_t i = 0; i < nmb; i++)
        if (mb[i].key == key)
            return &mb[i];
    return NULL;
}

/* The object o with nmb more members, written by their functions.  o must
 * not have their keys. */
static int put_object (struct jtext *b, const json_t *o, const struct member *mb,
                       size_t nmb, const struct rp_rset *r)
{
    const char **keys = sorted_keys (o, mb, nmb);
    size_t n = json_object_size (o) + nmb;
    int rc = -1;

    if (!keys || buf_puts (b, "{") < 0)
        goto done;
    for (size_t i = 0; i < n; i++) {
        const struct member *m = member_of (keys[i], mb, nmb);
        if ((i > 0 && buf_puts (b, ",") < 0) || buf_string (b, keys[i]) < 0
            || buf_puts (b, ":") < 0)
            goto done;
        if ((m ? m->put (b, r) : buf_json (b, json_object_get (o, keys[i])))
            < 0)
            goto done;
    }
    rc = buf_puts (b, "}");
done:
    free (keys);
    return rc;
}

static int put_execution (struct jtext *b, const struct rp_rset *r)
{
    static const struct member rlite = { "R_lite", put_rlite };
    json_t *exec = exec_json (r, false, false);
    int rc = exec ? put_object (b, exec, &rlite, 1, r) : -1;

    json_decref (exec);
    return rc;
}

/* The scheduling key's text: written by the matcher as jansson would
 * write it (rset_set_scheduling_text). */
static int put_scheduling (struct jtext *b, const struct rp_rset *r)
{
    return buf_puts (b, r->sched);
}

/* R with only what respol writes itself (no opaque key but a scheduling
 * key given as text, no property), written whole here: the keys in
 * sorted order, the times and the nodelist as jansson writes them.  The
 * objects, the sort of their keys and jansson's dump of each small value
 * were most of the cost of printing a job's R. */
static bool plain (const struct rp_rset *r)
{
    return json_object_size (r->top) == 0 && json_object_size (r->exec) == 0
           && r->np == 0;
}

static int put_plain (struct jtext *b, const struct rp_rset *r)
{
    struct rp_hostlist *hl = NULL;
    char *nodes = NULL;

    buf_puts (b, "{\"execution\":{\"R_lite\":");
    if (put_rlite (b, r) < 0)
        return -1;
    jt_puts (b, ",\"expiration\":");
    jt_real (b, r->expiration);
    jt_puts (b, ",\"nodelist\":[");
    if (r->n == 1) {
        jt_string (b, r->t[0].host); /* one host reads back as itself */
    } else if (r->n > 0) {
        if (!(hl = rp_rset_nodelist (r)) || !(nodes = rp_hostlist_encode (hl)))
            b->failed = true;
        else
            jt_string (b, nodes);
        free (nodes);
        rp_hostlist_destroy (hl);
    }
    jt_puts (b, "],\"starttime\":");
    jt_real (b, r->starttime);
    jt_puts (b, r->sched ? "},\"scheduling\":" : "}");
    if (r->sched)
        jt_puts (b, r->sched);
    return buf_puts (b, ",\"version\":1}");
}

static char *encode_compact (const struct rp_rset *r)
{
    static const struct member mb[] = { { "execution", put_execution },
                                        { "scheduling", put_scheduling } };
    struct jtext b = { 0 };
    json_t *top;

    if (plain (r)) {
        put_plain (&b, r);
        return jt_finish (&b);
    }
    if (!(top = top_json (r, false, true))
        || put_object (&b, top, mb, r->sched ? 2 : 1, r) < 0)
        b.failed = true;
    json_decref (top);
    return jt_finish (&b);
}

char *rp_rset_encode (const struct rp_rset *r, int flags)
{
    json_t *o;
    char *s;

    if (!r || (flags & ~RP_RSET_PRETTY)) {
        errno = EINVAL;
        return NULL;
    }
    if (!(flags & RP_RSET_PRETTY))
        return encode_compact (r);
    if (!(o = rset_json (r, false)))
        return NULL;
    s = json_dumps (o, JSON_SORT_KEYS | JSON_INDENT (2));
    json_decref (o);
    if (!s)
        errno = ENOMEM;
    return s;
}

/* The text of s (from rp_rset_encode, freed) into the caller's buffer. */
static ssize_t encode_copy (char *s, char **buf, size_t *size)
{
    size_t len;

    if (!s)
        return -1;
    len = strlen (s);
    if (len + 1 > *size) {
        char *p = realloc (*buf, len + 1);
        if (!p) {
            free (s);
            errno = ENOMEM;
            return -1;
        }
        *buf = p;
        *size = len + 1;
    }
    memcpy (*buf, s, len + 1);
    free (s);
    return (ssize_t)len;
}

ssize_t rp_rset_encode_buf (const struct rp_rset *r, int flags, char **buf,
                            size_t *size)
{
    struct jtext b;

    if (!r || !buf || !size || (flags & ~RP_RSET_PRETTY)
        || (!*buf && *size)) {
        errno = EINVAL;
        return -1;
    }
    if (flags || !plain (r))
        return encode_copy (rp_rset_encode (r, flags), buf, size);
    b = (struct jtext){ .s = *buf, .cap = *size };
    put_plain (&b, r);
    *buf = b.s;
    *size = b.cap;
    if (b.failed) {
        errno = ENOMEM;
        return -1;
    }
    return (ssize_t)b.len;
}

/* --- set operations ------------------------------------------------------- */

/* Walk two sets in rank order.  At each step x (from a) and y (from b) are
 * the targets of the next rank; one of them is NULL when only the other
 * set has that rank. */
struct walk {
    const struct rp_rset *a;
    const struct rp_rset *b;
    size_t i;
    size_t j;
    const struct target *x;
    const struct target *y;
};

static bool walk_next (struct walk *w)
{
    const struct target *x = w->i < w->a->n ? &w->a->t[w->i] : NULL;
    const struct target *y = w->j < w->b->n ? &w->b->t[w->j] : NULL;

    if (x && y && x->rank < y->rank)
        y = NULL;
    else if (x && y && y->rank < x->rank)
        x = NULL;
    w->x = x;
    w->y = y;
    w->i += x != NULL;
    w->j += y != NULL;
    return x || y;
}

static bool same_host (const struct target *x, const struct target *y)
{
    return strcmp (x->host, y->host) == 0;
}

static int push_copy (struct rp_rset *out, const struct target *t)
{
    return push_target (out, t->rank, t->host, children_ref (t->ch));
}

/* "rank R (host): missing TYPE IDS" or "...: TYPE IDS already present". */
static int ids_error (rp_error_t *error, int errnum, const struct target *t,
                      const char *type, const struct rp_idset *ids,
                      bool missing)
{
    char *s = rp_idset_encode (ids, RP_IDSET_RANGES);
    const char *str = s ? s : "?";

    if (missing)
        rp_error_set (error, errnum, "rank %u (%s): missing %s %s", t->rank,
                      t->host, type, str);
    else
        rp_error_set (error, errnum, "rank %u (%s): %s %s already present",
                      t->rank, t->host, type, str);
    free (s);
    errno = errnum;
    return -1;
}

/* EEXIST when b has a core or GPU of a. */
static int overlap_error (const struct target *t, const char *type,
                          const struct rp_idset *a, const struct rp_idset *b,
                          rp_error_t *error)
{
    struct rp_idset *both;
    int rc;

    if (!rp_idset_intersects (a, b))
        return 0;
    if (!(both = rp_idset_intersect (a, b)))
        return fail_errno (error);
    rc = ids_error (error, EEXIST, t, type, both, false);
    rp_idset_destroy (both);
    return rc;
}

static int merge_step (struct rp_rset *out, const struct target *x,
                       const struct target *y, bool append, rp_error_t *error)
{
    if (!x || !y)
        return push_copy (out, x ? x : y) < 0 ? fail_errno (error) : 0;
    if (!same_host (x, y))
        return rp_error_set (error, EINVAL,
                             "rank %u: host %s does not match %s", x->rank,
                             y->host, x->host);
    if (append
        && (overlap_error (x, "core", x->ch->cores, y->ch->cores, error) < 0
            || overlap_error (x, "gpu", x->ch->gpus, y->ch->gpus, error) < 0))
        return -1;
    if (push_target (out, x->rank, x->host, children_union (x->ch, y->ch)) < 0)
        return fail_errno (error);
    return 0;
}

/* a | b with a's times and opaque keys. */
static struct rp_rset *merged (const struct rp_rset *a, const struct rp_rset *b,
                               bool append, rp_error_t *error)
{
    struct walk w = { .a = a, .b = b };
    struct rp_rset *out;

    if (!a || !b) {
        invalid (error);
        return NULL;
    }
    if (!(out = empty_like (a))) {
        fail_errno (error);
        return NULL;
    }
    while (walk_next (&w)) {
        if (merge_step (out, w.x, w.y, append, error) < 0)
            goto error;
    }
    if (props_add_all (out, a) < 0 || props_add_all (out, b) < 0) {
        fail_errno (error);
        goto error;
    }
    return out;
error:
    rp_rset_destroy (out);
    return NULL;
}

static int merge_into (struct rp_rset *dst, const struct rp_rset *src,
                       bool append, rp_error_t *error)
{
    struct rp_rset *out = merged (dst, src, append, error);

    if (!out)
        return -1;
    rset_swap (dst, out);
    rp_rset_destroy (out);
    return 0;
}

int rp_rset_add (struct rp_rset *dst, const struct rp_rset *src,
                 rp_error_t *error)
{
    return merge_into (dst, src, false, error);
}

int rp_rset_append (struct rp_rset *dst, const struct rp_rset *src,
                    rp_error_t *error)
{
    return merge_into (dst, src, true, error);
}

struct rp_rset *rp_rset_union (const struct rp_rset *a, const struct rp_rset *b,
                               rp_error_t *error)
{
    return merged (a, b, false, error);
}

/* x - y: y subtracts only when rank and host agree.  A target left with
 * nothing is dropped. */
static int diff_step (struct rp_rset *out, const struct target *x,
                      const struct target *y)
{
    struct children *ch;

    if (!y || !same_host (x, y))
        return push_copy (out, x);
    if (!(ch = children_diff (x->ch, y->ch)))
        return -1;
    if (children_empty (ch)) {
        children_unref (ch);
        return 0;
    }
    return push_target (out, x->rank, x->host, ch);
}

/* x & y: kept when rank and host agree and something is left, or when
 * neither had anything to lose. */
static int intersect_step (struct rp_rset *out, const struct target *x,
                           const struct target *y)
{
    struct children *ch;

    if (!x || !y || !same_host (x, y))
        return 0;
    if (!(ch = children_and (x->ch, y->ch)))
        return -1;
    if (children_empty (ch)
        && !(children_empty (x->ch) && children_empty (y->ch))) {
        children_unref (ch);
        return 0;
    }
    return push_target (out, x->rank, x->host, ch);
}

typedef int (*step_fn) (struct rp_rset *out, const struct target *x,
                        const struct target *y);

/* A new set from a's and b's targets by step, with the properties of props
 * (a, or a and b) on the surviving targets. */
static struct rp_rset *combined (const struct rp_rset *a,
                                 const struct rp_rset *b, step_fn step,
                                 bool b_props, rp_error_t *error)
{
    struct walk w = { .a = a, .b = b };
    struct rp_rset *out;

    if (!a || !b) {
        invalid (error);
        return NULL;
    }
    if (!(out = empty_like (a)))
        goto error;
    while (walk_next (&w)) {
        if (w.x && step (out, w.x, w.y) < 0)
            goto error;
    }
    if (props_add_all (out, a) < 0 || (b_props && props_add_all (out, b) < 0)
        || props_restrict (out) < 0)
        goto error;
    return out;
error:
    fail_errno (error);
    rp_rset_destroy (out);
    return NULL;
}

struct rp_rset *rp_rset_diff (const struct rp_rset *a, const struct rp_rset *b,
                              rp_error_t *error)
{
    return combined (a, b, diff_step, false, error);
}

struct rp_rset *rp_rset_intersect (const struct rp_rset *a,
                                   const struct rp_rset *b, rp_error_t *error)
{
    return combined (a, b, intersect_step, true, error);
}

/* The targets of r whose ranks are in ranks (NULL: all). */
static struct rp_rset *selected (const struct rp_rset *r,
                                 const struct rp_idset *ranks)
{
    struct rp_rset *out;

    if (!r) {
        errno = EINVAL;
        return NULL;
    }
    if (!(out = empty_like (r)))
        return NULL;
    for (size_t i = 0; i < r->n; i++) {
        if (ranks && !rp_idset_test (ranks, r->t[i].rank))
            continue;
        if (push_copy (out, &r->t[i]) < 0)
            goto error;
    }
    if (props_add_all (out, r) < 0 || (ranks && props_restrict (out) < 0))
        goto error;
    return out;
error:
    rp_rset_destroy (out);
    return NULL;
}

struct rp_rset *rp_rset_copy (const struct rp_rset *r)
{
    return selected (r, NULL);
}

struct rp_rset *rp_rset_copy_ranks (const struct rp_rset *r,
                                    const struct rp_idset *ranks)
{
    if (!ranks) {
        errno = EINVAL;
        return NULL;
    }
    return selected (r, ranks);
}

/* --- renumbering ---------------------------------------------------------- */

static int uint_cmp (const void *a, const void *b)
{
    unsigned int x = *(const unsigned int *)a;
    unsigned int y = *(const unsigned int *)b;

    return (x > y) - (x < y);
}

/* ranks (targets of r) with each rank replaced by newrank[target index]. */
static struct rp_idset *map_ranks (const struct rp_rset *r,
                                   const struct rp_idset *ranks,
                                   const unsigned int *newrank)
{
    size_t n = 0;
    unsigned int *v = malloc ((rp_idset_count (ranks) + 1) * sizeof (*v));
    struct rp_idset *ids = rp_idset_create ();

    if (!v || !ids)
        goto error;
    for (unsigned int id = rp_idset_first (ranks); id != RP_IDSET_INVALID_ID;
         id = rp_idset_next (ranks, id)) {
        size_t pos;
        find_rank (r, id, &pos);
        v[n++] = newrank[pos];
    }
    qsort (v, n, sizeof (*v), uint_cmp);
    for (size_t i = 0; i < n; i++) {
        if (rp_idset_add (ids, v[i]) < 0)
            goto error;
    }
    free (v);
    return ids;
error:
    free (v);
    rp_idset_destroy (ids);
    errno = ENOMEM;
    return NULL;
}

/* A copy of r where target order[k] gets rank k, and children newch[k]
 * when newch is given. */
static struct rp_rset *renumbered (const struct rp_rset *r, const size_t *order,
                                   struct children **newch)
{
    unsigned int *newrank = malloc ((r->n + 1) * sizeof (*newrank));
    struct rp_rset *out = empty_like (r);

    if (!newrank || !out)
        goto error;
    for (size_t k = 0; k < r->n; k++) {
        const struct target *t = &r->t[order[k]];
        struct children *ch = newch ? newch[k] : t->ch;
        newrank[order[k]] = k;
        if (push_target (out, k, t->host, children_ref (ch)) < 0)
            goto error;
    }
    for (size_t i = 0; i < r->np; i++) {
        struct rp_idset *ids = map_ranks (r, r->p[i].ranks, newrank);
        if (prop_insert (out, out->np, r->p[i].name, ids) < 0)
            goto error;
    }
    free (newrank);
    return out;
error:
    free (newrank);
    rp_rset_destroy (out);
    errno = ENOMEM;
    return NULL;
}

/* Rerank by host: every target needs its own host. */
static int shared_host_error (const struct rp_rset *r, rp_error_t *error)
{
    const struct target **idx = host_index (r);

    if (!idx)
        return fail_errno (error);
    for (size_t i = 1; i < r->n; i++) {
        if (strcmp (idx[i - 1]->host, idx[i]->host) == 0)
            return rp_error_set (error, EINVAL,
                                 "ranks %u and %u have the same host %s",
                                 idx[i - 1]->rank, idx[i]->rank, idx[i]->host);
    }
    return 0;
}

static int missing_host_error (const struct rp_rset *r,
                               const struct rp_hostlist *hl, rp_error_t *error)
{
    for (size_t i = 0; i < r->n; i++) {
        if (rp_hostlist_find (hl, r->t[i].host) < 0)
            return rp_error_set (error, EINVAL,
                                 "rank %u (%s): host not in the hostlist",
                                 r->t[i].rank, r->t[i].host);
    }
    return rp_error_set (error, EINVAL,
                         "hostlist has %zu hosts for %zu execution targets",
                         rp_hostlist_count (hl), r->n);
}

/* order[k]: the index of the target on host k of hl. */
static size_t *rerank_order (const struct rp_rset *r,
                             const struct rp_hostlist *hl, rp_error_t *error)
{
    char host[RP_HOSTLIST_MAX_NAME + 1] = "";
    size_t *order = malloc ((r->n + 1) * sizeof (*order));
    bool *used = calloc (r->n + 1, sizeof (*used));
    ssize_t i;

    if (!order || !used) {
        fail_errno (error);
        goto error;
    }
    for (size_t k = 0; k < r->n; k++) {
        if (rp_hostlist_nth_buf (hl, k, host, sizeof (host)) < 0
            || (i = host_lookup (r, host)) < 0) {
            rp_error_set (error, EINVAL,
                          "host %s is not the host of an execution target",
                          host);
            goto error;
        }
        if (used[i]) {
            rp_error_set (error, EINVAL,
                          "host %s appears twice in the hostlist", host);
            goto error;
        }
        used[i] = true;
        order[k] = i;
    }
    free (used);
    return order;
error:
    free (order);
    free (used);
    return NULL;
}

int rp_rset_rerank (struct rp_rset *r, const char *hosts, rp_error_t *error)
{
    struct rp_hostlist *hl = NULL;
    size_t *order = NULL;
    struct rp_rset *out = NULL;
    size_t count;
    int rc = -1;

    if (!r || !hosts)
        return invalid (error);
    if (!(hl = rp_hostlist_decode (hosts, error))
        || shared_host_error (r, error) < 0)
        goto done;
    if ((count = rp_hostlist_count (hl)) < r->n) {
        missing_host_error (r, hl, error);
        goto done;
    }
    if (count > r->n) {
        rp_error_set (error, EINVAL,
                      "hostlist has %zu hosts for %zu execution targets", count,
                      r->n);
        goto done;
    }
    if (!(order = rerank_order (r, hl, error)))
        goto done;
    if (!(out = renumbered (r, order, NULL))) {
        fail_errno (error);
        goto done;
    }
    rset_swap (r, out);
    rc = 0;
done:
    rp_rset_destroy (out);
    free (order);
    rp_hostlist_destroy (hl);
    return rc;
}

/* cores 0..k-1 for k cores, the same GPUs. */
static struct children *remapped (const struct children *ch)
{
    size_t k = rp_idset_count (ch->cores);
    struct rp_idset *cores = rp_idset_create ();

    if (cores && k > 0 && rp_idset_add_range (cores, 0, k - 1) < 0) {
        rp_idset_destroy (cores);
        return NULL;
    }
    return children_create (cores, rp_idset_copy (ch->gpus));
}

int rp_rset_remap (struct rp_rset *r, rp_error_t *error)
{
    size_t *order;
    struct children **newch;
    struct rp_rset *out = NULL;

    if (!r)
        return invalid (error);
    order = malloc ((r->n + 1) * sizeof (*order));
    newch = calloc (r->n + 1, sizeof (*newch));
    for (size_t i = 0; order && newch && i < r->n; i++) {
        order[i] = i;
        if (i > 0 && r->t[i].ch == r->t[i - 1].ch)
            newch[i] = children_ref (newch[i - 1]);
        else if (!(newch[i] = remapped (r->t[i].ch)))
            break;
    }
    if (order && newch && (r->n == 0 || newch[r->n - 1]))
        out = renumbered (r, order, newch);
    for (size_t i = 0; newch && i < r->n; i++)
        children_unref (newch[i]);
    free (newch);
    free (order);
    if (!out)
        return fail_errno (error);
    rset_swap (r, out);
    rp_rset_destroy (out);
    return 0;
}

/* --- comparisons ---------------------------------------------------------- */

bool rp_rset_is_subset (const struct rp_rset *a, const struct rp_rset *b)
{
    struct walk w = { .a = a, .b = b };

    if (!a || !b)
        return false;
    while (walk_next (&w)) {
        if (w.x
            && (!w.y || !same_host (w.x, w.y)
                || !children_within (w.x->ch, w.y->ch)))
            return false;
    }
    return true;
}

static bool target_equal (const struct target *x, const struct target *y)
{
    return x->rank == y->rank && same_host (x, y)
           && children_equal (x->ch, y->ch);
}

bool rp_rset_equal (const struct rp_rset *a, const struct rp_rset *b)
{
    if (!a || !b)
        return false;
    if (a->n != b->n || a->np != b->np || a->starttime != b->starttime
        || a->expiration != b->expiration)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (!target_equal (&a->t[i], &b->t[i]))
            return false;
    }
    for (size_t i = 0; i < a->np; i++) {
        if (strcmp (a->p[i].name, b->p[i].name) != 0
            || !rp_idset_equal (a->p[i].ranks, b->p[i].ranks))
            return false;
    }
    return true;
}

/* Error when expected ids a are not all in b. */
static int missing_error (const struct target *t, const char *type,
                          const struct rp_idset *a, const struct rp_idset *b,
                          rp_error_t *error)
{
    struct rp_idset *missing;
    int rc;

    if (rp_idset_is_subset (a, b))
        return 0;
    if (!(missing = rp_idset_difference (a, b)))
        return fail_errno (error);
    rc = ids_error (error, EINVAL, t, type, missing, true);
    rp_idset_destroy (missing);
    return rc;
}

static int verify_step (const struct target *x, const struct target *y,
                        rp_error_t *error)
{
    if (!y)
        return rp_error_set (error, EINVAL, "rank %u (%s): missing", x->rank,
                             x->host);
    if (!x)
        return rp_error_set (error, EINVAL, "rank %u (%s): unexpected", y->rank,
                             y->host);
    if (!same_host (x, y))
        return rp_error_set (error, EINVAL, "rank %u: expected host %s, got %s",
                             x->rank, x->host, y->host);
    if (missing_error (x, "core", x->ch->cores, y->ch->cores, error) < 0
        || missing_error (x, "gpu", x->ch->gpus, y->ch->gpus, error) < 0)
        return -1;
    return 0;
}

int rp_rset_verify (const struct rp_rset *expected,
                    const struct rp_rset *actual, rp_error_t *error)
{
    struct walk w = { .a = expected, .b = actual };

    if (!expected || !actual)
        return invalid (error);
    while (walk_next (&w)) {
        if (verify_step (w.x, w.y, error) < 0)
            return -1;
    }
    return 0;
}
