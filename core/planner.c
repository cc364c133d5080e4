/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The planner: a pool of units over time (api/respol/planner.h), the
 * "scheduling state data such as job allocations and reservations" RFC 4
 * lets a resource pool carry.
 *
 * The algorithm.  A span of a units from s to e adds +a to the use at s
 * and -a at e; the use at time t is the sum of the changes at times <= t.
 * The times where use changes (the points) are the keys of a treap whose
 * nodes also carry, for their subtree in time order: the sum of the
 * changes, and the highest and lowest running sum (the use relative to
 * the use before the subtree).  With these, one descent answers:
 *   - the use at t (sum of the changes at or before t);
 *   - the first point after t whose use is above a limit (or at most a
 *     limit): go down the path of t; on the way, a subtree entirely after
 *     t whose highest (lowest) running sum does not cross the limit is
 *     skipped whole, and the first one that crosses it holds the answer;
 *   - the highest use over an interval (the subtrees entirely inside it
 *     give their highest running sum).
 * "Is [t, t+d) free for n units" is "use(t) <= total - n, and no point
 * in (t, t+d) has a use above it".  The earliest start at or after t:
 * when the use at t is low enough, find the last point in (t, t+d) where
 * it is too high; none: t is the answer; else every start up to that
 * point would contain it, so jump to the first later point where the use
 * is low enough, and go again.  Each round costs O(log s) and moves past
 * at least one window of d that does not fit, so a question costs
 * O(log s) times the windows it has to look past: about one when the
 * pool has room near t, more behind a long backlog of reservations.
 *
 * Fluxion's planner keeps its points in a red-black tree by time and a
 * second tree by free amount, and walks points one by one to check a
 * duration; the running sums make both of its trees one, and the check
 * of an interval one descent.  The treap's priorities come from a
 * xorshift generator with a fixed seed, so a planner's shape, and its
 * speed, are the same from run to run; answers never depend on the
 * shape.
 *
 * Nodes and spans live in arrays and refer to each other by index (half
 * the size of pointers, and one allocation that grows by doubling); freed
 * slots are chained and used again.  A point is removed when no span
 * starts or ends there any more; while one does, it stays even when its
 * change is 0 (one span ends where another starts).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/planner.h"

struct node {
    int64_t t;     /* the time */
    int64_t delta; /* change of use at t */
    int64_t sum;   /* of delta over the subtree */
    int64_t maxp;  /* highest running sum over the subtree, in time order */
    int64_t minp;  /* lowest */
    uint32_t left, right; /* 0: none (node 0 is never used) */
    uint32_t prio;
    uint32_t refs; /* span starts and ends at t; 0: a free slot */
};

struct span {
    int64_t start, end; /* end RP_PLANNER_FOREVER: none */
    uint64_t amount;    /* 0: a free slot, start then chains the free list */
};

struct rp_planner {
    uint64_t total;
    struct node *nodes;
    uint32_t nnodes, node_cap; /* slots used so far (node 0 included) */
    uint32_t free_nodes;       /* free list through left; 0: empty */
    uint32_t root;
    struct span *spans;
    size_t nspans, span_cap, count;
    size_t free_spans; /* index + 1; 0: empty */
    uint32_t seed;
};

#define NODE_MAX UINT32_MAX

/* --- nodes and the treap ------------------------------------------------- */

static uint32_t next_prio (struct rp_planner *p)
{
    uint32_t x = p->seed;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return p->seed = x;
}

static uint32_t node_new (struct rp_planner *p, int64_t t)
{
    uint32_t x;
    struct node *n;

    if (p->free_nodes) {
        x = p->free_nodes;
        p->free_nodes = p->nodes[x].left;
    } else {
        if (p->nnodes == p->node_cap) {
            uint32_t cap =
                p->node_cap < NODE_MAX / 2 ? p->node_cap * 2 : NODE_MAX;
            struct node *v;
            if (cap == p->node_cap
                || !(v = realloc (p->nodes, (size_t)cap * sizeof (*v))))
                return 0;
            p->nodes = v;
            p->node_cap = cap;
        }
        x = p->nnodes++;
    }
    n = &p->nodes[x];
    memset (n, 0, sizeof (*n));
    n->t = t;
    n->prio = next_prio (p);
    return x;
}

static void node_free (struct rp_planner *p, uint32_t x)
{
    p->nodes[x].refs = 0;
    p->nodes[x].left = p->free_nodes;
    p->free_nodes = x;
}

static int64_t max64 (int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t min64 (int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t sum_of (const struct rp_planner *p, uint32_t x)
{
    return x ? p->nodes[x].sum : 0;
}

/* Recompute x's subtree figures from its children. */
static void pull (struct rp_planner *p, uint32_t x)
{
    struct node *n = &p->nodes[x];
    int64_t s = 0, mx = INT64_MIN, mn = INT64_MAX;

    if (n->left) {
        s = p->nodes[n->left].sum;
        mx = p->nodes[n->left].maxp;
        mn = p->nodes[n->left].minp;
    }
    s += n->delta;
    mx = max64 (mx, s);
    mn = min64 (mn, s);
    if (n->right) {
        const struct node *r = &p->nodes[n->right];
        mx = max64 (mx, s + r->maxp);
        mn = min64 (mn, s + r->minp);
        s += r->sum;
    }
    n->sum = s;
    n->maxp = mx;
    n->minp = mn;
}

/* Split x into the keys < t (*l) and >= t (*r). */
static void split (struct rp_planner *p, uint32_t x, int64_t t, uint32_t *l,
                   uint32_t *r)
{
    if (!x) {
        *l = *r = 0;
        return;
    }
    if (p->nodes[x].t < t) {
        split (p, p->nodes[x].right, t, &p->nodes[x].right, r);
        *l = x;
    } else {
        split (p, p->nodes[x].left, t, l, &p->nodes[x].left);
        *r = x;
    }
    pull (p, x);
}

/* Join l and r (every key of l before every key of r). */
static uint32_t merge (struct rp_planner *p, uint32_t l, uint32_t r)
{
    if (!l || !r)
        return l ? l : r;
    if (p->nodes[l].prio > p->nodes[r].prio) {
        p->nodes[l].right = merge (p, p->nodes[l].right, r);
        pull (p, l);
        return l;
    }
    p->nodes[r].left = merge (p, l, p->nodes[r].left);
    pull (p, r);
    return r;
}

/* Add delta and refs to the point t below x, if there is one; true if
 * found (the figures on its path are recomputed). */
static bool point_update (struct rp_planner *p, uint32_t x, int64_t t,
                          int64_t delta, int refs)
{
    bool found;

    if (!x)
        return false;
    if (t < p->nodes[x].t)
        found = point_update (p, p->nodes[x].left, t, delta, refs);
    else if (t > p->nodes[x].t)
        found = point_update (p, p->nodes[x].right, t, delta, refs);
    else {
        p->nodes[x].delta += delta;
        p->nodes[x].refs += refs;
        found = true;
    }
    if (found)
        pull (p, x);
    return found;
}

static uint32_t find (const struct rp_planner *p, int64_t t)
{
    uint32_t x = p->root;

    while (x && p->nodes[x].t != t)
        x = t < p->nodes[x].t ? p->nodes[x].left : p->nodes[x].right;
    return x;
}

static void point_erase (struct rp_planner *p, int64_t t)
{
    uint32_t l, mid, r, one;

    split (p, p->root, t, &l, &mid);
    split (p, mid, t == INT64_MAX ? t : t + 1, &one, &r);
    if (one)
        node_free (p, one);
    p->root = merge (p, l, r);
}

/* Change the use from t on by delta, as one more span start or end
 * (refs +1) or one less (refs -1).  -1 (ENOMEM) only when a new point is
 * needed and cannot be had. */
static int point_add (struct rp_planner *p, int64_t t, int64_t delta, int refs)
{
    uint32_t x, l, r;

    if (point_update (p, p->root, t, delta, refs)) {
        if (p->nodes[find (p, t)].refs == 0)
            point_erase (p, t);
        return 0;
    }
    if (!(x = node_new (p, t))) {
        errno = ENOMEM;
        return -1;
    }
    p->nodes[x].delta = delta;
    p->nodes[x].refs = (uint32_t)refs;
    pull (p, x);
    split (p, p->root, t, &l, &r);
    p->root = merge (p, merge (p, l, x), r);
    return 0;
}

/* --- questions on the points --------------------------------------------- */

/* The use at t: the sum of the changes at times <= t. */
static int64_t use_at (const struct rp_planner *p, int64_t t)
{
    uint32_t x = p->root;
    int64_t acc = 0;

    while (x) {
        const struct node *n = &p->nodes[x];
        if (n->t <= t) {
            acc += sum_of (p, n->left) + n->delta;
            x = n->right;
        } else
            x = n->left;
    }
    return acc;
}

/* In the subtree x (use base before it), the first point whose use is
 * above limit (above: true) or at most limit (above: false); 0 if none. */
static uint32_t first_in (const struct rp_planner *p, uint32_t x, int64_t base,
                          int64_t limit, bool above, int64_t *use)
{
    while (x) {
        const struct node *n = &p->nodes[x];
        if (n->left) {
            const struct node *l = &p->nodes[n->left];
            if (above ? base + l->maxp > limit : base + l->minp <= limit) {
                x = n->left;
                continue;
            }
            base += l->sum;
        }
        base += n->delta;
        if (above ? base > limit : base <= limit) {
            *use = base;
            return x;
        }
        x = n->right;
    }
    return 0;
}

/* Could the subtree x, with use base before it, hold a point past the
 * limit? */
static bool may_cross (const struct rp_planner *p, uint32_t x, int64_t base,
                       int64_t limit, bool above)
{
    if (!x)
        return false;
    return above ? base + p->nodes[x].maxp > limit
                 : base + p->nodes[x].minp <= limit;
}

/* The first point after t, in the subtree x with use base before it,
 * whose use is above limit (above) or at most limit (!above); 0 if
 * none. */
static uint32_t first_after (const struct rp_planner *p, uint32_t x, int64_t t,
                             int64_t base, int64_t limit, bool above,
                             int64_t *use)
{
    while (x) {
        const struct node *n = &p->nodes[x];
        int64_t u;
        uint32_t found;
        if (n->t <= t) {
            base += sum_of (p, n->left) + n->delta;
            x = n->right;
            continue;
        }
        /* n is after t: so is its right subtree; part of its left may
         * be. */
        if ((found = first_after (p, n->left, t, base, limit, above, use)))
            return found;
        u = base + sum_of (p, n->left) + n->delta;
        if (above ? u > limit : u <= limit) {
            *use = u;
            return x;
        }
        if (may_cross (p, n->right, u, limit, above))
            return first_in (p, n->right, u, limit, above, use);
        return 0;
    }
    return 0;
}

/* In the subtree x (use base before it), which holds a point whose use
 * is above limit, the last such point. */
static uint32_t last_in (const struct rp_planner *p, uint32_t x, int64_t base,
                         int64_t limit)
{
    while (x) {
        const struct node *n = &p->nodes[x];
        int64_t here = base + sum_of (p, n->left) + n->delta;
        if (n->right && here + p->nodes[n->right].maxp > limit) {
            base = here;
            x = n->right;
            continue;
        }
        if (here > limit)
            return x;
        x = n->left;
    }
    return 0;
}

/* The last point strictly between lo and hi whose use is above limit, in
 * the subtree x with use base before it; 0 if none.  lo_in (hi_in):
 * every key of x is known to be after lo (before hi). */
static uint32_t last_over (const struct rp_planner *p, uint32_t x, int64_t base,
                           int64_t lo, int64_t hi, bool lo_in, bool hi_in,
                           int64_t limit)
{
    const struct node *n;
    int64_t here;
    uint32_t found;

    if (!x)
        return 0;
    n = &p->nodes[x];
    if (lo_in && hi_in)
        return base + n->maxp > limit ? last_in (p, x, base, limit) : 0;
    here = base + sum_of (p, n->left) + n->delta;
    if (n->t < hi
        && (found = last_over (p, n->right, here, lo, hi, lo_in || n->t >= lo,
                               hi_in, limit)))
        return found;
    if (n->t > lo && n->t < hi && here > limit)
        return x;
    if (n->t > lo)
        return last_over (p, n->left, base, lo, hi, lo_in, hi_in || n->t <= hi,
                          limit);
    return 0;
}

/* The highest use at the points strictly between lo and hi, in the
 * subtree x with use base before it; INT64_MIN if there is none.  lo_in
 * (hi_in): every key of x is known to be after lo (before hi). */
static int64_t max_between (const struct rp_planner *p, uint32_t x,
                            int64_t base, int64_t lo, int64_t hi, bool lo_in,
                            bool hi_in)
{
    int64_t best = INT64_MIN, here;
    const struct node *n;

    if (!x)
        return best;
    n = &p->nodes[x];
    if (lo_in && hi_in)
        return base + n->maxp;
    here = base + sum_of (p, n->left) + n->delta;
    if (n->t > lo)
        best =
            max_between (p, n->left, base, lo, hi, lo_in, hi_in || n->t <= hi);
    if (n->t > lo && n->t < hi)
        best = max64 (best, here);
    if (n->t < hi)
        best = max64 (best, max_between (p, n->right, here, lo, hi,
                                         lo_in || n->t >= lo, hi_in));
    return best;
}

/* The highest use during [start, end). */
static int64_t max_use (const struct rp_planner *p, int64_t start, int64_t end)
{
    int64_t at = use_at (p, start);
    int64_t later = max_between (p, p->root, 0, start, end, false, false);

    return max64 (at, later);
}

/* The first time in [start, end) at which the use is above limit, or
 * end if there is none. */
static int64_t first_over (const struct rp_planner *p, int64_t start,
                           int64_t end, int64_t limit, int64_t *use)
{
    uint32_t x;

    if ((*use = use_at (p, start)) > limit)
        return start;
    x = first_after (p, p->root, start, 0, limit, true, use);
    if (x && p->nodes[x].t < end)
        return p->nodes[x].t;
    return end;
}

/* --- the interface ------------------------------------------------------- */

struct rp_planner *rp_planner_create (uint64_t total, rp_error_t *error)
{
    struct rp_planner *p;

    if (total < 1 || total > RP_PLANNER_TOTAL_MAX) {
        rp_error_set (error, EINVAL, "planner: total must be 1..%" PRIu64,
                      RP_PLANNER_TOTAL_MAX);
        return NULL;
    }
    if (!(p = calloc (1, sizeof (*p)))
        || !(p->nodes = malloc (4 * sizeof (*p->nodes)))) {
        free (p);
        rp_error_set (error, ENOMEM, "planner: out of memory");
        return NULL;
    }
    p->total = total;
    p->node_cap = 4;
    p->nnodes = 1; /* node 0 means "none" */
    p->seed = 2463534242u;
    return p;
}

void rp_planner_destroy (struct rp_planner *p)
{
    int saved_errno = errno;

    if (p) {
        free (p->nodes);
        free (p->spans);
        free (p);
    }
    errno = saved_errno;
}

uint64_t rp_planner_total (const struct rp_planner *p)
{
    return p ? p->total : 0;
}

size_t rp_planner_span_count (const struct rp_planner *p)
{
    return p ? p->count : 0;
}

static const struct span *span_get (const struct rp_planner *p, uint64_t id)
{
    if (!p || id < 1 || id > p->nspans || p->spans[id - 1].amount == 0)
        return NULL;
    return &p->spans[id - 1];
}

/* The end of an interval, RP_PLANNER_FOREVER when there is none. */
static int64_t end_of (int64_t start, int64_t duration)
{
    if (duration >= RP_PLANNER_FOREVER - start)
        return RP_PLANNER_FOREVER;
    return start + duration;
}

static int check_interval (int64_t start, int64_t duration, rp_error_t *error)
{
    if (start < 0 || start >= RP_PLANNER_FOREVER)
        return rp_error_set (error, EINVAL,
                             "planner: start must be 0..%" PRId64,
                             RP_PLANNER_FOREVER - 1);
    if (duration < 1)
        return rp_error_set (error, EINVAL, "planner: duration must be >= 1");
    if (duration != RP_PLANNER_FOREVER
        && duration >= RP_PLANNER_FOREVER - start)
        return rp_error_set (error, EINVAL,
                             "planner: %" PRId64 " + %" PRId64
                             " is past the largest time",
                             start, duration);
    return 0;
}

/* Are amount units free during [start, end)?  Else EBUSY, saying when
 * they are not. */
static int check_free (const struct rp_planner *p, int64_t start, int64_t end,
                       uint64_t amount, rp_error_t *error)
{
    int64_t use, limit = (int64_t)(p->total - amount);
    int64_t t = first_over (p, start, end, limit, &use);
    char to[32] = "on";

    if (t == end)
        return 0;
    if (end != RP_PLANNER_FOREVER)
        snprintf (to, sizeof (to), "to %" PRId64, end);
    return rp_error_set (error, EBUSY,
                         "planner: needs %" PRIu64 " units from %" PRId64
                         " %s, only %" PRIu64 " are free at %" PRId64,
                         amount, start, to, p->total - (uint64_t)use, t);
}

static int span_slot (struct rp_planner *p, size_t *slot)
{
    if (p->free_spans) {
        *slot = p->free_spans - 1;
        p->free_spans = (size_t)p->spans[*slot].start;
        return 0;
    }
    if (p->nspans == p->span_cap) {
        size_t cap = p->span_cap ? p->span_cap * 2 : 4;
        struct span *v = realloc (p->spans, cap * sizeof (*v));
        if (!v)
            return -1;
        p->spans = v;
        p->span_cap = cap;
    }
    *slot = p->nspans++;
    return 0;
}

static void span_release (struct rp_planner *p, size_t slot)
{
    p->spans[slot].amount = 0;
    p->spans[slot].start = (int64_t)p->free_spans;
    p->free_spans = slot + 1;
    p->count--;
}

/* Make sure the two points a span needs can be had, so that adding it
 * cannot fail half way. */
static int reserve_nodes (struct rp_planner *p)
{
    uint32_t x, y;

    if (!(x = node_new (p, 0)))
        return -1;
    if (!(y = node_new (p, 0))) {
        node_free (p, x);
        return -1;
    }
    node_free (p, y);
    node_free (p, x);
    return 0;
}

int rp_planner_add (struct rp_planner *p, int64_t start, int64_t duration,
                    uint64_t amount, uint64_t *span, rp_error_t *error)
{
    int64_t end;
    size_t slot;

    if (!p || !span)
        return rp_error_set (error, EINVAL, "planner: invalid argument");
    if (check_interval (start, duration, error) < 0)
        return -1;
    if (amount < 1 || amount > p->total)
        return rp_error_set (error, EINVAL,
                             "planner: amount must be 1..%" PRIu64, p->total);
    end = end_of (start, duration);
    if (check_free (p, start, end, amount, error) < 0)
        return -1;
    if (reserve_nodes (p) < 0 || span_slot (p, &slot) < 0)
        return rp_error_set (error, ENOMEM, "planner: out of memory");
    (void)point_add (p, start, (int64_t)amount, 1);
    if (end != RP_PLANNER_FOREVER)
        (void)point_add (p, end, -(int64_t)amount, 1);
    p->spans[slot] = (struct span){ start, end, amount };
    p->count++;
    *span = slot + 1;
    return 0;
}

int rp_planner_remove (struct rp_planner *p, uint64_t span, rp_error_t *error)
{
    const struct span *s = span_get (p, span);

    if (!s)
        return rp_error_set (error, ENOENT, "planner: no span %" PRIu64, span);
    (void)point_add (p, s->start, -(int64_t)s->amount, -1);
    if (s->end != RP_PLANNER_FOREVER)
        (void)point_add (p, s->end, (int64_t)s->amount, -1);
    span_release (p, span - 1);
    return 0;
}

int rp_planner_set_end (struct rp_planner *p, uint64_t span, int64_t end,
                        rp_error_t *error)
{
    const struct span *c = span_get (p, span);
    struct span *s;
    int64_t a;

    if (!c)
        return rp_error_set (error, ENOENT, "planner: no span %" PRIu64, span);
    s = &p->spans[span - 1];
    a = (int64_t)s->amount;
    if (end <= s->start)
        return rp_error_set (error, EINVAL,
                             "planner: end %" PRId64
                             " is not after the span's start %" PRId64,
                             end, s->start);
    if (end == s->end)
        return 0;
    if (end > s->end && check_free (p, s->end, end, s->amount, error) < 0)
        return -1;
    if (end != RP_PLANNER_FOREVER && reserve_nodes (p) < 0)
        return rp_error_set (error, ENOMEM, "planner: out of memory");
    if (s->end != RP_PLANNER_FOREVER)
        (void)point_add (p, s->end, a, -1);
    if (end != RP_PLANNER_FOREVER)
        (void)point_add (p, end, -a, 1);
    s->end = end;
    return 0;
}

bool rp_planner_span (const struct rp_planner *p, uint64_t span, int64_t *start,
                      int64_t *end, uint64_t *amount)
{
    const struct span *s = span_get (p, span);

    if (!s) {
        errno = ENOENT;
        return false;
    }
    if (start)
        *start = s->start;
    if (end)
        *end = s->end;
    if (amount)
        *amount = s->amount;
    return true;
}

uint64_t rp_planner_free_at (const struct rp_planner *p, int64_t t)
{
    if (!p || t < 0)
        return 0;
    return p->total - (uint64_t)use_at (p, t);
}

uint64_t rp_planner_free_during (const struct rp_planner *p, int64_t start,
                                 int64_t duration)
{
    if (!p || start < 0)
        return 0;
    if (duration < 1)
        duration = 1;
    return p->total - (uint64_t)max_use (p, start, end_of (start, duration));
}

bool rp_planner_is_free (const struct rp_planner *p, int64_t start,
                         int64_t duration, uint64_t amount)
{
    if (!p || amount > p->total)
        return false;
    return rp_planner_free_during (p, start, duration) >= amount;
}

int rp_planner_earliest (const struct rp_planner *p, int64_t after,
                         int64_t duration, uint64_t amount, int64_t *at,
                         rp_error_t *error)
{
    int64_t limit, t = after, use;

    if (!p || !at)
        return rp_error_set (error, EINVAL, "planner: invalid argument");
    if (check_interval (after, duration, error) < 0)
        return -1;
    if (amount > p->total)
        return rp_error_set (error, ENODEV,
                             "planner: needs %" PRIu64
                             " units, the pool has %" PRIu64,
                             amount, p->total);
    limit = (int64_t)(p->total - amount);
    for (;;) {
        uint32_t x;
        if (use_at (p, t) <= limit) {
            /* A start before the last point in [t, t+d) that is too
             * full would have that point in its interval too. */
            x = last_over (p, p->root, 0, t, end_of (t, duration), false, false,
                           limit);
            if (!x) {
                *at = t;
                return 0;
            }
            t = p->nodes[x].t;
        }
        if (!(x = first_after (p, p->root, t, 0, limit, false, &use)))
            return rp_error_set (
                error, EBUSY,
                "planner: needs %" PRIu64 " units from %" PRId64
                " on, spans without end leave %" PRIu64 " of %" PRIu64 " free",
                amount, after, p->total - (uint64_t)use_at (p, INT64_MAX),
                p->total);
        t = p->nodes[x].t;
    }
}

bool rp_planner_next_change (const struct rp_planner *p, int64_t t,
                             int64_t *next)
{
    uint32_t x = p ? p->root : 0, best = 0;

    while (x) {
        if (p->nodes[x].t > t) {
            best = x;
            x = p->nodes[x].left;
        } else
            x = p->nodes[x].right;
    }
    if (!best)
        return false;
    *next = p->nodes[best].t;
    return true;
}
