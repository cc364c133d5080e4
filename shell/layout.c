/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Task layout from R, jobspec and rank.  See api/respol/layout.h for the
 * rules and doc/formats.md for worked examples.
 *
 * The computation has four passes, each over the plan of the whole job:
 *   1. the task entry: which slot, its kind (holds a node, inside a node,
 *      floating), its shape (cores, GPUs, nodes), and the task count;
 *   2. R's targets in rank order, their core and GPU counts;
 *   3. slots per target, then tasks per target, both in closed form from
 *      the counts, so a 1,024-node R costs a pass over 1,024 numbers and
 *      every target checks every target's numbers (all agree on errors);
 *   4. the task map from the tasks per target, then this target's slots
 *      ("units"), its tasks' global ids (from the map) and their shares.
 *
 * Dealing: "deal x over the targets" gives one to each target with
 * capacity left, in rank order, round after round.  It is how an exact
 * count of floating slots is spread over R's targets and how the
 * remainder of total tasks is spread over the slots.  The round where x
 * runs out is found by a binary search on the rounds (each step sums
 * min(capacity, round) over the targets), so the cost does not grow with
 * the counts.
 *
 * Shares are slices of the target's core and GPU idsets by position in id
 * order; a walker goes through each idset's ranges once, so slicing costs
 * the ranges plus the ids taken, whatever R's ids look like.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/idset.h"
#include "respol/jobspec.h"
#include "respol/layout.h"
#include "respol/rset.h"
#include "respol/taskmap.h"

enum kind {
    SLOT_NODES,    /* the slot holds nodes: it spans whole targets */
    SLOT_IN_NODE,  /* the slot is inside a node */
    SLOT_FLOATING, /* neither: R says where its slots are */
};

enum form { PER_SLOT, PER_NODE, PER_CORE, PER_GPU, TOTAL };

struct count {
    uint64_t n; /* product of minimum counts */
    bool exact; /* every count on the way is a single value */
};

struct target {
    unsigned int rank;
    uint64_t ncores, ngpus;
    uint64_t cap;   /* what can be dealt to it */
    uint64_t dealt; /* what was */
    uint64_t slots;
    uint64_t extra; /* total: units with one task more than the base */
    uint64_t tasks;
};

struct plan {
    const struct rp_rset *R;
    const struct rp_jobspec *js;
    const struct rp_jobspec_task *task;
    const struct rp_jobspec_resource *slot;
    const char *label;
    enum kind kind;
    uint64_t c, g;  /* cores and GPUs per slot */
    struct count k; /* SLOT_NODES: nodes per slot */
    struct count m; /* SLOT_IN_NODE: slots per node */
    struct count S; /* slots in the whole request */
    enum form form;
    uint64_t count;   /* per slot / node / core / GPU, or total */
    const char *type; /* per_resource type, for messages */
    struct target *t;
    size_t n;     /* targets */
    size_t local; /* index of this target */
    uint64_t nslots;
    uint64_t ntasks;
    uint64_t base; /* total: tasks every slot gets */
    rp_error_t *error;
};

struct share {
    struct rp_idset *cores;
    struct rp_idset *gpus;
};

struct ltask {
    unsigned int global;
    size_t share;
};

struct rp_layout {
    unsigned int rank, nodeid;
    size_t nnodes, nslots, nslots_local, ntasks;
    char distribution[32];
    struct rp_taskmap *map;
    struct share *shares;
    size_t nshares;
    struct ltask *tasks;
    size_t nlocal;
};

#define PER_RESOURCE_OPTION "attributes.system.shell.options.per-resource"

static uint64_t sat_add (uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t sat_mul (uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t min64 (uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

/* Share i of x split over k, earlier shares one more. */
static uint64_t spread (uint64_t x, uint64_t k, uint64_t i)
{
    return x / k + (i < x % k);
}

static int fail (struct plan *p, int errnum, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static int fail (struct plan *p, int errnum, const char *fmt, ...)
{
    char text[RP_ERROR_TEXT_SIZE];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (text, sizeof (text), fmt, ap);
    va_end (ap);
    return rp_error_set (p->error, errnum, "layout: %s", text);
}

/* "rank 3 (node3)" */
static const char *target_name (const struct plan *p, size_t i, char *buf,
                                size_t size)
{
    const char *host = rp_rset_hostname (p->R, p->t[i].rank);

    snprintf (buf, size, "rank %u (%.64s)", p->t[i].rank, host ? host : "?");
    return buf;
}

/* "2 cores and 1 GPU", "1 core", "slot \"task\"" */
static const char *shape_text (const struct plan *p, char *buf, size_t size)
{
    char cores[48] = "", gpus[48] = "";

    if (p->c)
        snprintf (cores, sizeof (cores), "%llu core%s",
                  (unsigned long long)p->c, p->c == 1 ? "" : "s");
    if (p->g)
        snprintf (gpus, sizeof (gpus), "%llu GPU%s", (unsigned long long)p->g,
                  p->g == 1 ? "" : "s");
    if (p->c || p->g)
        snprintf (buf, size, "%s%s%s", cores, p->c && p->g ? " and " : "",
                  gpus);
    else
        snprintf (buf, size, "slot \"%.64s\"", p->label);
    return buf;
}

/* --- pass 1: the task entry ---------------------------------------------- */

static bool count_exact (const struct rp_jobspec_resource *r)
{
    const struct rp_range *c = rp_jobspec_resource_count (r);

    return c->min == c->max;
}

/* Product of the counts from r up to, not including, stop (NULL: all). */
static struct count path_count (const struct rp_jobspec_resource *r,
                                const struct rp_jobspec_resource *stop)
{
    struct count c = { 1, true };

    for (; r && r != stop; r = rp_jobspec_resource_parent (r)) {
        c.n = sat_mul (c.n, rp_jobspec_resource_count (r)->min);
        c.exact = c.exact && count_exact (r);
    }
    return c;
}

static bool is_type (const struct rp_jobspec_resource *r, const char *type)
{
    const char *t = rp_jobspec_resource_type (r);

    return t && !strcmp (t, type);
}

/* Nodes in one slot: every node vertex below the slot (not below another
 * node), with the counts on its way up to the slot. */
static void count_nodes (const struct rp_jobspec_resource *r,
                         const struct rp_jobspec_resource *slot,
                         struct count *k)
{
    for (; r; r = rp_jobspec_resource_next (r)) {
        if (is_type (r, "node")) {
            struct count c = path_count (r, slot);
            k->n = sat_add (k->n, c.n);
            k->exact = k->exact && c.exact;
        } else
            count_nodes (rp_jobspec_resource_with_first (r), slot, k);
    }
}

static const struct rp_jobspec_resource *
node_above (const struct rp_jobspec_resource *r)
{
    while ((r = rp_jobspec_resource_parent (r)))
        if (is_type (r, "node"))
            return r;
    return NULL;
}

static bool is_below (const struct rp_jobspec_resource *r,
                      const struct rp_jobspec_resource *above)
{
    while ((r = rp_jobspec_resource_parent (r)))
        if (r == above)
            return true;
    return false;
}

/* Every slot vertex is the task's slot, around it or inside it: R cannot
 * say which resources another slot would have. */
static int other_slots (struct plan *p, const struct rp_jobspec_resource *r)
{
    for (; r; r = rp_jobspec_resource_next (r)) {
        if (is_type (r, "slot") && r != p->slot && !is_below (p->slot, r)
            && !is_below (r, p->slot)) {
            const char *label = rp_jobspec_resource_label (r);
            return fail (p, EINVAL,
                         "slot \"%.64s\" is not the task's slot \"%.64s\", nor "
                         "around it or inside it",
                         label ? label : "", p->label);
        }
        if (other_slots (p, rp_jobspec_resource_with_first (r)) < 0)
            return -1;
    }
    return 0;
}

static int plan_kind (struct plan *p)
{
    const struct rp_jobspec_resource *node = node_above (p->slot);

    p->k = (struct count){ 0, true };
    count_nodes (rp_jobspec_resource_with_first (p->slot), p->slot, &p->k);
    if (p->k.n && node)
        return fail (p, EINVAL, "slot \"%.64s\" holds a node and is inside one",
                     p->label);
    p->kind = p->k.n ? SLOT_NODES : node ? SLOT_IN_NODE : SLOT_FLOATING;
    p->m = path_count (p->slot, node);
    p->S = path_count (p->slot, NULL);
    p->c = rp_jobspec_slot_count_type (p->slot, "core");
    p->g = rp_jobspec_slot_count_type (p->slot, "gpu");
    if (p->kind != SLOT_NODES && !p->c && !p->g
        && !(p->kind == SLOT_IN_NODE && p->m.exact))
        return fail (p, EINVAL,
                     "slot \"%.64s\" holds no node, core or GPU: R cannot say "
                     "where its slots are",
                     p->label);
    return 0;
}

/* per_resource of type: node, core and GPU from R, any other type per
 * slot from the jobspec's counts. */
static int plan_per_resource (struct plan *p, const char *type, uint64_t n)
{
    uint64_t per_slot;

    p->type = type;
    p->count = n;
    if (!strcmp (type, "node"))
        p->form = PER_NODE;
    else if (!strcmp (type, "core"))
        p->form = PER_CORE;
    else if (!strcmp (type, "gpu"))
        p->form = PER_GPU;
    else if ((per_slot = rp_jobspec_slot_count_type (p->slot, type))) {
        p->form = PER_SLOT;
        p->count = sat_mul (n, per_slot);
    } else
        return fail (p, EINVAL, "per_resource: no %.64s in slot \"%.64s\"",
                     type, p->label);
    return 0;
}

/* flux-core's shell option per-resource: {type: node|core, count: N}. */
static int plan_option (struct plan *p, const json_t *o)
{
    json_t *type = json_object_get (o, "type");
    json_t *count = json_object_get (o, "count");
    json_int_t n = count ? json_integer_value (count) : 1;
    const char *s = json_string_value (type);

    if (!json_is_object (o))
        return fail (p, EINVAL, "%s: must be an object {type, count}",
                     PER_RESOURCE_OPTION);
    if (!s || (strcmp (s, "node") && strcmp (s, "core") && strcmp (s, "gpu")))
        return fail (p, EINVAL, "%s: type must be node, core or gpu",
                     PER_RESOURCE_OPTION);
    if ((count && !json_is_integer (count)) || n < 1
        || n > RP_JOBSPEC_MAX_COUNT)
        return fail (p, EINVAL, "%s: count must be an integer from 1 to %lld",
                     PER_RESOURCE_OPTION, (long long)RP_JOBSPEC_MAX_COUNT);
    return plan_per_resource (p, s, n);
}

static int plan_form (struct plan *p)
{
    json_t *opt = json_object_get (
        json_object_get (json_object_get (rp_jobspec_system (p->js), "shell"),
                         "options"),
        "per-resource");
    uint64_t n = rp_jobspec_task_count_value (p->task);

    if (opt)
        return plan_option (p, opt);
    switch (rp_jobspec_task_count_kind (p->task)) {
    case RP_JOBSPEC_PER_RESOURCE:
        return plan_per_resource (p, rp_jobspec_task_count_type (p->task), n);
    case RP_JOBSPEC_TOTAL:
        p->form = TOTAL;
        break;
    default:
        p->form = PER_SLOT;
        break;
    }
    p->count = n;
    return 0;
}

static int plan_task (struct plan *p)
{
    const struct rp_jobspec_task *t = rp_jobspec_task_first (p->js);
    size_t n = 0;

    for (const struct rp_jobspec_task *u = t; u; u = rp_jobspec_task_next (u))
        n++;
    if (n != 1)
        return fail (p, EINVAL,
                     "the jobspec has %zu task entries; a layout "
                     "runs one",
                     n);
    p->task = t;
    p->slot = rp_jobspec_task_slot_resource (t);
    p->label = rp_jobspec_task_slot (t);
    if (!p->slot)
        return fail (p, EINVAL, "the task names no slot");
    if (other_slots (p, rp_jobspec_resource_first (p->js)) < 0
        || plan_kind (p) < 0)
        return -1;
    return plan_form (p);
}

/* --- pass 2: R's targets ------------------------------------------------- */

static int plan_targets (struct plan *p, unsigned int rank)
{
    const struct rp_idset *ranks = rp_rset_ranks (p->R);
    size_t i = 0;

    if (!rp_rset_cores (p->R, rank)) {
        char *s = rp_idset_encode (ranks, RP_IDSET_RANGES);
        fail (p, ENOENT, "rank %u is not in R (ranks %.64s)", rank,
              s ? s : "?");
        free (s);
        return -1;
    }
    p->n = rp_rset_ntargets (p->R);
    if (!(p->t = calloc (p->n, sizeof (*p->t))))
        return fail (p, ENOMEM, "out of memory");
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r), i++) {
        p->t[i].rank = r;
        p->t[i].ncores = rp_idset_count (rp_rset_cores (p->R, r));
        p->t[i].ngpus = rp_idset_count (rp_rset_gpus (p->R, r));
        if (r == rank)
            p->local = i;
    }
    return 0;
}

/* --- pass 3: slots and tasks per target ---------------------------------- */

/* Items dealt in the rounds before round u. */
static uint64_t dealt_before (const struct plan *p, uint64_t u)
{
    uint64_t sum = 0;

    for (size_t i = 0; i < p->n; i++)
        sum = sat_add (sum, min64 (p->t[i].cap, u));
    return sum;
}

/* Deal x (at most the sum of the capacities) over the targets: t[i].dealt
 * is how many target i gets. */
static void deal (struct plan *p, uint64_t x)
{
    uint64_t lo = 0, hi = 0, left;

    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].cap > hi)
            hi = p->t[i].cap;
    while (lo < hi) { /* the last round that starts with items left */
        uint64_t mid = lo + (hi - lo + 1) / 2;
        if (dealt_before (p, mid) <= x)
            lo = mid;
        else
            hi = mid - 1;
    }
    left = x - dealt_before (p, lo);
    for (size_t i = 0; i < p->n; i++) {
        struct target *t = &p->t[i];
        t->dealt = min64 (t->cap, lo);
        if (t->cap > lo && left > 0) {
            t->dealt++;
            left--;
        }
    }
}

/* Slots the target's cores and GPUs make at the slot's shape. */
static uint64_t capacity (const struct plan *p, const struct target *t)
{
    uint64_t cap = UINT64_MAX;

    if (p->c)
        cap = t->ncores / p->c;
    if (p->g)
        cap = min64 (cap, t->ngpus / p->g);
    return cap;
}

static int slots_in_node (struct plan *p)
{
    char name[96], shape[128];

    for (size_t i = 0; i < p->n; i++) {
        struct target *t = &p->t[i];
        uint64_t cap = capacity (p, t);
        if (cap < p->m.n)
            return fail (p, EINVAL,
                         "%s: %llu core%s and %llu GPU%s cannot hold %llu "
                         "slots of %s",
                         target_name (p, i, name, sizeof (name)),
                         (unsigned long long)t->ncores,
                         t->ncores == 1 ? "" : "s",
                         (unsigned long long)t->ngpus, t->ngpus == 1 ? "" : "s",
                         (unsigned long long)p->m.n,
                         shape_text (p, shape, sizeof (shape)));
        t->slots = p->m.exact ? p->m.n : cap;
    }
    return 0;
}

/* Floating slots: what each target's resources make, or, when the
 * jobspec's count is exact (and R holds that many), that many dealt. */
static int slots_floating (struct plan *p)
{
    uint64_t sum = 0;
    bool dealt;

    for (size_t i = 0; i < p->n; i++) {
        p->t[i].cap = capacity (p, &p->t[i]);
        sum = sat_add (sum, p->t[i].cap);
    }
    if ((dealt = p->S.exact && sum >= p->S.n))
        deal (p, p->S.n);
    for (size_t i = 0; i < p->n; i++)
        p->t[i].slots = dealt ? p->t[i].dealt : p->t[i].cap;
    return 0;
}

/* A slot of nodes: R's targets split evenly over the slots. */
static int slots_of_nodes (struct plan *p)
{
    uint64_t S = p->S.exact ? p->S.n : p->n / p->k.n;

    if (S == 0 || S < p->S.n || sat_mul (S, p->k.n) > p->n)
        return fail (p, EINVAL,
                     "R holds %zu execution targets, fewer than the %llu "
                     "nodes of %llu slots \"%.64s\"",
                     p->n, (unsigned long long)sat_mul (p->S.n, p->k.n),
                     (unsigned long long)p->S.n, p->label);
    for (size_t i = 0; i < p->n; i++)
        p->t[i].slots = 1; /* one unit: the whole target */
    p->nslots = S;
    return 0;
}

static int plan_slots (struct plan *p)
{
    char name[96], shape[128];
    int rc = p->kind == SLOT_NODES     ? slots_of_nodes (p)
             : p->kind == SLOT_IN_NODE ? slots_in_node (p)
                                       : slots_floating (p);

    if (rc < 0 || p->kind == SLOT_NODES)
        return rc;
    p->nslots = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (p->t[i].slots > RP_LAYOUT_MAX_PER_TARGET)
            return fail (p, EOVERFLOW, "%s: more than %u slots on one target",
                         target_name (p, i, name, sizeof (name)),
                         RP_LAYOUT_MAX_PER_TARGET);
        p->nslots += p->t[i].slots;
    }
    if (p->nslots < p->S.n)
        return fail (p, EINVAL,
                     "R holds %llu slots of %s, the jobspec asks "
                     "for %llu",
                     (unsigned long long)p->nslots,
                     shape_text (p, shape, sizeof (shape)),
                     (unsigned long long)p->S.n);
    return 0;
}

/* SLOT_NODES: the slot of target i, its index in the slot and the slot's
 * number of targets. */
static void node_slot (const struct plan *p, size_t i, uint64_t *j,
                       uint64_t *idx, uint64_t *size)
{
    uint64_t q = p->n / p->nslots, r = p->n % p->nslots;

    if (i < r * (q + 1)) {
        *j = i / (q + 1);
        *idx = i % (q + 1);
        *size = q + 1;
    } else {
        *j = r + (i - r * (q + 1)) / q;
        *idx = (i - r * (q + 1)) % q;
        *size = q;
    }
}

static uint64_t tasks_of_nodes (const struct plan *p, size_t i)
{
    const struct target *t = &p->t[i];
    uint64_t j, idx, size, in_slot;

    switch (p->form) {
    case PER_NODE:
        return p->count;
    case PER_CORE:
        return sat_mul (p->count, t->ncores);
    case PER_GPU:
        return sat_mul (p->count, t->ngpus);
    default:
        break;
    }
    node_slot (p, i, &j, &idx, &size);
    in_slot = p->form == TOTAL ? spread (p->count, p->nslots, j) : p->count;
    return spread (in_slot, size, idx);
}

static uint64_t tasks_of_target (const struct plan *p, size_t i)
{
    const struct target *t = &p->t[i];

    if (p->kind == SLOT_NODES)
        return tasks_of_nodes (p, i);
    switch (p->form) {
    case PER_SLOT:
        return sat_mul (p->count, t->slots);
    case PER_NODE:
        return t->slots ? p->count : 0;
    case PER_CORE:
        return t->slots ? sat_mul (p->count, t->ncores) : 0;
    case PER_GPU:
        return t->slots ? sat_mul (p->count, t->ngpus) : 0;
    default: /* TOTAL */
        return sat_add (sat_mul (p->base, t->slots), t->extra);
    }
}

static const char *form_text (const struct plan *p)
{
    return p->form == PER_NODE   ? "node"
           : p->form == PER_CORE ? "core"
           : p->form == PER_GPU  ? "gpu"
                                 : "slot";
}

static int plan_tasks (struct plan *p)
{
    char name[96];

    if (p->form == TOTAL && p->kind != SLOT_NODES) {
        p->base = p->count / p->nslots;
        for (size_t i = 0; i < p->n; i++)
            p->t[i].cap = p->t[i].slots;
        deal (p, p->count % p->nslots);
        for (size_t i = 0; i < p->n; i++)
            p->t[i].extra = p->t[i].dealt;
    }
    p->ntasks = 0;
    for (size_t i = 0; i < p->n; i++) {
        struct target *t = &p->t[i];
        t->tasks = tasks_of_target (p, i);
        if (t->tasks > RP_LAYOUT_MAX_PER_TARGET)
            return fail (p, EOVERFLOW, "%s: more than %u tasks on one target",
                         target_name (p, i, name, sizeof (name)),
                         RP_LAYOUT_MAX_PER_TARGET);
        p->ntasks += t->tasks;
        if (p->ntasks > RP_LAYOUT_MAX_TASKS)
            return fail (p, EOVERFLOW, "more than %u tasks",
                         RP_LAYOUT_MAX_TASKS);
    }
    if (p->ntasks == 0)
        return fail (p, EINVAL,
                     "per_resource: no %s in the slots R holds, so "
                     "no task to run",
                     form_text (p));
    return 0;
}

/* --- pass 4: the task map ------------------------------------------------ */

static int parse_distribution (const char *s, unsigned int *stride, char *name,
                               size_t size, rp_error_t *error)
{
    char *end;
    unsigned long n;

    if (!strcmp (s, "block"))
        n = 0;
    else if (!strcmp (s, "cyclic"))
        n = 1;
    else if (strncmp (s, "cyclic:", 7) != 0)
        return rp_error_set (error, EINVAL,
                             "layout: distribution \"%.64s\": not block, "
                             "cyclic or cyclic:N",
                             s);
    else {
        errno = 0;
        n = strtoul (s + 7, &end, 10);
        if (s[7] < '1' || s[7] > '9' || *end || errno
            || n > RP_TASKMAP_MAX_TASKS)
            return rp_error_set (error, EINVAL,
                                 "layout: distribution \"%.64s\": N must be "
                                 "an integer from 1 to %u",
                                 s, RP_TASKMAP_MAX_TASKS);
    }
    *stride = n;
    if (n)
        snprintf (name, size, "cyclic:%lu", n);
    else
        snprintf (name, size, "block");
    return 0;
}

/* Cyclic: stride tasks per node per round, nodes in order, until every
 * node has its count.  Nodes that are done leave the round list. */
static int map_cyclic (struct rp_taskmap *map, const struct plan *p,
                       unsigned int stride, rp_error_t *error)
{
    size_t *todo = malloc (p->n * sizeof (*todo));
    uint64_t *left = malloc (p->n * sizeof (*left));
    size_t n = 0;
    int rc = -1;

    if (!todo || !left)
        goto done;
    for (size_t i = 0; i < p->n; i++)
        if ((left[i] = p->t[i].tasks))
            todo[n++] = i;
    while (n > 0) {
        size_t kept = 0;
        for (size_t j = 0; j < n; j++) {
            size_t i = todo[j];
            uint64_t k = min64 (stride, left[i]);
            if (rp_taskmap_append (map, i, 1, k, error) < 0)
                goto done;
            if ((left[i] -= k))
                todo[kept++] = i;
        }
        n = kept;
    }
    rc = 0;
done:
    if (rc < 0 && (!todo || !left))
        rp_error_set (error, ENOMEM, "layout: out of memory");
    free (todo);
    free (left);
    return rc;
}

static struct rp_taskmap *build_map (const struct plan *p, unsigned int stride,
                                     rp_error_t *error)
{
    struct rp_taskmap *map = rp_taskmap_create ();

    if (!map) {
        rp_error_set (error, ENOMEM, "layout: out of memory");
        return NULL;
    }
    if (stride) {
        if (map_cyclic (map, p, stride, error) < 0)
            goto error;
        return map;
    }
    for (size_t i = 0; i < p->n; i++)
        if (p->t[i].tasks
            && rp_taskmap_append (map, i, 1, p->t[i].tasks, error) < 0)
            goto error;
    return map;
error:
    rp_taskmap_destroy (map);
    return NULL;
}

/* --- pass 4: this target's shares ---------------------------------------- */

/* Position of the first id of unit u, and its number of ids, when n ids
 * are split over s units (see layout.h). */
static void part (uint64_t n, uint64_t s, uint64_t u, uint64_t *first,
                  uint64_t *len)
{
    if (n == 0) {
        *first = 0;
        *len = 0;
    } else if (n >= s) {
        *first = u * (n / s) + min64 (u, n % s);
        *len = spread (n, s, u);
    } else {
        *first = u * n / s;
        *len = 1;
    }
}

struct walker {
    const struct rp_idset *set;
    size_t range; /* the range holding position pos's id, or past them */
    uint64_t pos; /* position of the range's first id */
};

/* The ids at positions [first, first + len) of the set; first never goes
 * back from one call to the next.  NULL on ENOMEM. */
static struct rp_idset *take (struct walker *w, uint64_t first, uint64_t len)
{
    struct rp_idset *out = rp_idset_create ();
    unsigned int lo, hi;
    size_t r;
    uint64_t pos;

    while (rp_idset_range (w->set, w->range, &lo, &hi)
           && w->pos + (hi - lo + 1) <= first) {
        w->pos += hi - lo + 1;
        w->range++;
    }
    for (r = w->range, pos = w->pos;
         out && len > 0 && rp_idset_range (w->set, r, &lo, &hi); r++) {
        uint64_t skip = first - pos;
        uint64_t n = min64 (hi - lo + 1 - skip, len);
        if (rp_idset_add_range (out, lo + skip, lo + skip + n - 1) < 0) {
            rp_idset_destroy (out);
            return NULL;
        }
        len -= n;
        first += n;
        pos += hi - lo + 1;
    }
    return out;
}

/* Share of units [u0, u1) of this target. */
static int add_share (struct rp_layout *l, struct walker *wc, struct walker *wg,
                      const struct target *t, uint64_t u0, uint64_t u1)
{
    struct share *s = &l->shares[l->nshares];
    uint64_t f0, n0, f1, n1;

    part (t->ncores, t->slots, u0, &f0, &n0);
    part (t->ncores, t->slots, u1 - 1, &f1, &n1);
    s->cores = take (wc, f0, f1 + n1 - f0);
    part (t->ngpus, t->slots, u0, &f0, &n0);
    part (t->ngpus, t->slots, u1 - 1, &f1, &n1);
    s->gpus = take (wg, f0, f1 + n1 - f0);
    if (!s->cores || !s->gpus) {
        rp_idset_destroy (s->cores);
        rp_idset_destroy (s->gpus);
        return -1;
    }
    l->nshares++;
    return 0;
}

/* Tasks of unit u when the target has at least as many tasks as units. */
static uint64_t unit_tasks (const struct plan *p, const struct target *t,
                            uint64_t u)
{
    uint64_t f, n;

    if (p->kind == SLOT_NODES)
        return t->tasks;
    if (p->form == PER_SLOT)
        return p->count;
    if (p->form == TOTAL)
        return p->base + (u < t->extra);
    if (p->form == PER_CORE && t->ncores >= t->slots) {
        part (t->ncores, t->slots, u, &f, &n);
        return p->count * n;
    }
    if (p->form == PER_GPU && t->ngpus >= t->slots) {
        part (t->ngpus, t->slots, u, &f, &n);
        return p->count * n;
    }
    return spread (t->tasks, t->slots, u);
}

/* Units and their tasks; each local task i gets share task_share[i]. */
static int local_shares (struct rp_layout *l, const struct plan *p,
                         size_t *task_share, rp_error_t *error)
{
    const struct target *t = &p->t[p->local];
    const struct rp_rset *R = p->R;
    struct walker wc = { rp_rset_cores (R, t->rank), 0, 0 };
    struct walker wg = { rp_rset_gpus (R, t->rank), 0, 0 };
    uint64_t ntasks = t->tasks, nunits = t->slots, next = 0;

    if (!(l->shares = calloc (min64 (ntasks, nunits) + 1, sizeof (*l->shares))))
        return rp_error_set (error, ENOMEM, "layout: out of memory");
    if (ntasks < nunits) { /* each task a run of units */
        for (uint64_t i = 0, u = 0; i < ntasks; i++) {
            uint64_t n = spread (nunits, ntasks, i);
            if (add_share (l, &wc, &wg, t, u, u + n) < 0)
                return rp_error_set (error, ENOMEM, "layout: out of memory");
            task_share[i] = i;
            u += n;
        }
        return 0;
    }
    for (uint64_t u = 0; u < nunits; u++) { /* units shared by their tasks */
        uint64_t n = unit_tasks (p, t, u);
        if (add_share (l, &wc, &wg, t, u, u + 1) < 0)
            return rp_error_set (error, ENOMEM, "layout: out of memory");
        for (uint64_t i = 0; i < n && next < ntasks; i++)
            task_share[next++] = l->nshares - 1;
    }
    if (next != ntasks) /* the closed forms disagree: a bug */
        return rp_error_set (
            error, EPROTO, "layout: %llu tasks on %llu slots, %llu placed",
            (unsigned long long)ntasks, (unsigned long long)nunits,
            (unsigned long long)next);
    return 0;
}

static int local_tasks (struct rp_layout *l, const struct plan *p,
                        rp_error_t *error)
{
    struct rp_idset *ids = rp_taskmap_tasks_of (l->map, p->local);
    size_t *task_share = calloc (p->t[p->local].tasks + 1, sizeof (size_t));
    size_t i = 0;
    int rc = -1;

    l->nlocal = p->t[p->local].tasks;
    if (!ids || !task_share
        || !(l->tasks = calloc (l->nlocal + 1, sizeof (*l->tasks)))) {
        rp_error_set (error, ENOMEM, "layout: out of memory");
        goto done;
    }
    if (local_shares (l, p, task_share, error) < 0)
        goto done;
    for (unsigned int id = rp_idset_first (ids); id != RP_IDSET_INVALID_ID;
         id = rp_idset_next (ids, id), i++)
        l->tasks[i] = (struct ltask){ id, task_share[i] };
    rc = 0;
done:
    rp_idset_destroy (ids);
    free (task_share);
    return rc;
}

/* --- the API ------------------------------------------------------------- */

static const char *default_distribution (const struct plan *p)
{
    const char *d = rp_jobspec_task_distribution (p->task);

    return d ? d : "block";
}

static struct rp_layout *layout_from_plan (const struct plan *p,
                                           const char *distribution,
                                           rp_error_t *error)
{
    struct rp_layout *l = calloc (1, sizeof (*l));
    unsigned int stride = 0;

    if (!l) {
        rp_error_set (error, ENOMEM, "layout: out of memory");
        return NULL;
    }
    if (parse_distribution (
            distribution ? distribution : default_distribution (p), &stride,
            l->distribution, sizeof (l->distribution), error)
            < 0
        || !(l->map = build_map (p, stride, error)))
        goto error;
    l->rank = p->t[p->local].rank;
    l->nodeid = p->local;
    l->nnodes = p->n;
    l->nslots = p->nslots;
    l->nslots_local = p->kind == SLOT_NODES ? 1 : p->t[p->local].slots;
    l->ntasks = p->ntasks;
    if (local_tasks (l, p, error) < 0)
        goto error;
    return l;
error:
    rp_layout_destroy (l);
    return NULL;
}

struct rp_layout *rp_layout_create (const struct rp_rset *R,
                                    const struct rp_jobspec *js,
                                    unsigned int rank, const char *distribution,
                                    rp_error_t *error)
{
    struct plan p = { .R = R, .js = js, .error = error };
    struct rp_layout *l = NULL;

    if (!R || !js) {
        rp_error_set (error, EINVAL, "layout: no R or no jobspec");
        return NULL;
    }
    if (plan_task (&p) == 0 && plan_targets (&p, rank) == 0
        && plan_slots (&p) == 0 && plan_tasks (&p) == 0)
        l = layout_from_plan (&p, distribution, error);
    free (p.t);
    return l;
}

void rp_layout_destroy (struct rp_layout *l)
{
    if (l) {
        int saved_errno = errno;
        for (size_t i = 0; i < l->nshares; i++) {
            rp_idset_destroy (l->shares[i].cores);
            rp_idset_destroy (l->shares[i].gpus);
        }
        free (l->shares);
        free (l->tasks);
        rp_taskmap_destroy (l->map);
        free (l);
        errno = saved_errno;
    }
}

size_t rp_layout_ntasks (const struct rp_layout *l)
{
    return l ? l->ntasks : 0;
}

size_t rp_layout_nslots (const struct rp_layout *l)
{
    return l ? l->nslots : 0;
}

size_t rp_layout_nnodes (const struct rp_layout *l)
{
    return l ? l->nnodes : 0;
}

const struct rp_taskmap *rp_layout_taskmap (const struct rp_layout *l)
{
    return l ? l->map : NULL;
}

const char *rp_layout_distribution (const struct rp_layout *l)
{
    return l ? l->distribution : NULL;
}

unsigned int rp_layout_rank (const struct rp_layout *l)
{
    return l ? l->rank : RP_IDSET_INVALID_ID;
}

unsigned int rp_layout_nodeid (const struct rp_layout *l)
{
    return l ? l->nodeid : RP_IDSET_INVALID_ID;
}

size_t rp_layout_nslots_local (const struct rp_layout *l)
{
    return l ? l->nslots_local : 0;
}

size_t rp_layout_ntasks_local (const struct rp_layout *l)
{
    return l ? l->nlocal : 0;
}

static const struct ltask *get_task (const struct rp_layout *l, size_t local)
{
    if (!l || local >= l->nlocal) {
        errno = ENOENT;
        return NULL;
    }
    return &l->tasks[local];
}

long rp_layout_task_global_id (const struct rp_layout *l, size_t local)
{
    const struct ltask *t = get_task (l, local);

    return t ? (long)t->global : -1;
}

long rp_layout_task_local_id (const struct rp_layout *l, size_t global)
{
    size_t lo = 0, hi = l ? l->nlocal : 0;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->tasks[mid].global == global)
            return (long)mid;
        if (l->tasks[mid].global < global)
            lo = mid + 1;
        else
            hi = mid;
    }
    errno = ENOENT;
    return -1;
}

const struct rp_idset *rp_layout_task_cores (const struct rp_layout *l,
                                             size_t local)
{
    const struct ltask *t = get_task (l, local);

    return t ? l->shares[t->share].cores : NULL;
}

const struct rp_idset *rp_layout_task_gpus (const struct rp_layout *l,
                                            size_t local)
{
    const struct ltask *t = get_task (l, local);

    return t ? l->shares[t->share].gpus : NULL;
}
