/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Shell plugin "gpu-affinity": the GPUs each task sees.  The option
 * gpu-affinity (respol-plugin(7), respol.yaml(5); read as affinity.h
 * says):
 *
 *   per-task   (the default) each task the GPUs of its share nearest its
 *              cores, every GPU of the share given out
 *   on         every task all the job's GPUs here
 *   off        no decision, no variable
 *   map:LIST   explicit GPUs per local task, by R's ids (respol R encode
 *              --local numbers them), ';' between tasks, reused
 *              cyclically: map:0;1;2,3
 *   verbose    flag: log each task's GPUs and variables (notice)
 *
 * The decision is recorded with rp_task_set_gpus (R's ids), and each
 * vendor's runtime is told with its variable, by the index that runtime
 * gives the GPU (rp_shell_gpu_index: PCI bus order):
 * CUDA_VISIBLE_DEVICES (and CUDA_DEVICE_ORDER=PCI_BUS_ID unless the task's
 * environment sets it), ROCR_VISIBLE_DEVICES for AMD, ZE_AFFINITY_MASK for
 * Intel.  A vendor whose GPUs the machine has but the task gets none of
 * gets its variable set empty, which CUDA and ROCr read as "no device"
 * (ROCr filters whenever the variable is set): a task does not see GPUs
 * that are not its own.  Level Zero drivers read an empty
 * ZE_AFFINITY_MASK as no mask, so Intel GPUs cannot be hidden this way:
 * the variable is set only for a task with Intel GPUs.
 *
 * per-task, planned in shell_init for each group of tasks that share a
 * slot (affinity.h): k tasks, g GPUs in the share.
 * - k <= g: a task gets floor (g / k) GPUs, g mod k of them one more,
 *   each GPU to one task;
 * - k > g: each task one GPU, each GPU shared by floor (k / g) tasks,
 *   k mod g of them by one more, so every GPU is used and no task gets an
 *   empty list.
 * Which task gets which GPU: every (task, GPU) pair is ranked by how near
 * the GPU is to the task's cores (most of them among the GPU's nearest
 * cores, rp_shell_gpu_cores; then a GPU on a NUMA node of theirs; then in
 * their package; then task order, the GPU's topology order, R's id), and
 * pairs are taken nearest first while both sides have room (with more
 * tasks than GPUs, the consecutive tasks on the same cores are one row,
 * so the pairs number at most cores x GPUs).  The task's cores are those
 * cpu-affinity per-task gives it (affinity.h's aff_split, the same
 * split), which is where the default stack binds it; with another CPU
 * mode, use gpu-affinity on or map.  With no
 * GPU in the share (the job has none here), a task gets none, and the
 * machine's GPUs are hidden.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/idset.h>
#include <respol/plugin.h>
#include <respol/shell.h>

#include "affinity.h"

static const char *const modes[] = { "per-task", "on", "off", NULL };
static const struct aff_syntax syntax = {
    .key = "gpu-affinity",
    .modes = modes,
    .map = true,
    .hex = false,
    .flags = AFF_VERBOSE,
};

/* Each vendor's PCI vendor id and visible-devices variable. */
static const struct {
    int vendor;
    unsigned int pci;
    const char *var;
    bool hide; /* an empty value hides the vendor's devices */
} vendors[] = {
    { RP_GPU_NVIDIA, 0x10de, "CUDA_VISIBLE_DEVICES", true },
    { RP_GPU_AMD, 0x1002, "ROCR_VISIBLE_DEVICES", true },
    { RP_GPU_INTEL, 0x8086, "ZE_AFFINITY_MASK", false },
};
#define NVENDORS (sizeof (vendors) / sizeof (vendors[0]))

struct gpu {
    struct aff_base b;
    struct rp_idset **map;
    size_t nmap;
    struct rp_idset **plan; /* per-task: each local task's GPUs */
    size_t nplan;
    bool present[NVENDORS]; /* the machine has GPUs of that vendor */
};

static const struct rp_host_services *svc;

/* --- per-task ------------------------------------------------------------ */

/* A row of the group (one task, or with more tasks than GPUs, the
 * consecutive tasks that share the same cores) and a GPU x of the share,
 * and how near they are. */
struct pair {
    size_t overlap; /* the row's cores among the GPU's nearest */
    bool numa, pkg; /* the GPU on a NUMA node / package of the row's */
    size_t r, x;
    unsigned int first_core; /* the GPU's first near core */
};

static int nearer (const void *a, const void *b)
{
    const struct pair *p = a, *q = b;

    if (p->overlap != q->overlap)
        return p->overlap > q->overlap ? -1 : 1;
    if (p->numa != q->numa)
        return p->numa ? -1 : 1;
    if (p->pkg != q->pkg)
        return p->pkg ? -1 : 1;
    if (p->r != q->r)
        return p->r < q->r ? -1 : 1;
    if (p->first_core != q->first_core)
        return p->first_core < q->first_core ? -1 : 1;
    return p->x < q->x ? -1 : p->x > q->x;
}

static int pair_of (struct rp_shell *sh, const struct rp_idset *cores, size_t r,
                    unsigned int id, size_t x, struct pair *pr)
{
    const struct rp_idset *gc = rp_shell_gpu_cores (sh, id);
    struct rp_idset *both = rp_idset_intersect (cores, gc);
    int numa = rp_shell_gpu_numa (sh, id);
    unsigned int first = rp_idset_empty (gc) ? 0 : rp_idset_first (gc);
    int pkg = numa < 0 ? -1 : rp_shell_core_package (sh, first);

    if (!both)
        return -1;
    pr->overlap = rp_idset_count (both);
    pr->numa = false;
    pr->pkg = false;
    for (unsigned int c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (cores, c)) {
        pr->numa |= numa >= 0 && rp_shell_core_numa (sh, c) == numa;
        pr->pkg |= pkg >= 0 && rp_shell_core_package (sh, c) == pkg;
    }
    pr->r = r;
    pr->x = x;
    pr->first_core = rp_idset_empty (gc) ? UINT32_MAX : first;
    rp_idset_destroy (both);
    return 0;
}

/* A group of k tasks and g GPUs being dealt: its rows (first task, count,
 * tasks of the row given a GPU, GPUs given to the row's task) and how
 * many tasks each GPU has. */
struct deal {
    size_t k, g;
    size_t nrows;
    size_t *first, *count, *filled, *got;
    size_t *used;
    size_t extra; /* how many more may take one above the floor */
};

/* Give GPU x to the next task of row r if both have room: k <= g, a task
 * gets floor (g / k) GPUs and g mod k tasks one more, a GPU goes to one
 * task; k > g, a task gets one GPU, a GPU goes to floor (k / g) tasks
 * and k mod g GPUs to one more.  true when given. */
static bool give (struct deal *d, size_t r, size_t x)
{
    bool few = d->k <= d->g;
    size_t tq = few ? d->g / d->k : 1, gq = few ? 1 : d->k / d->g;
    bool plus = few ? d->got[r] == tq : d->used[x] == gq;

    if (few ? d->got[r] > tq || d->used[x] > 0
            : d->filled[r] == d->count[r] || d->used[x] > gq)
        return false;
    if (plus && !d->extra)
        return false;
    if (plus)
        d->extra--;
    d->used[x]++;
    if (few)
        d->got[r]++;
    else
        d->filled[r]++;
    return true;
}

/* The nearest pairs first, each as far as both sides have room.  Every
 * task and GPU ends full: a pair with room on both sides at the end had
 * it when its turn came. */
static int deal (struct deal *d, const struct pair *v, size_t np,
                 const unsigned int *ids, struct rp_idset **out)
{
    for (size_t i = 0; i < np; i++) {
        size_t r = v[i].r;
        while (give (d, r, v[i].x)) {
            size_t j = d->first[r] + (d->k <= d->g ? 0 : d->filled[r] - 1);
            if (rp_idset_add (out[j], ids[v[i].x]) < 0)
                return -1;
            if (d->k <= d->g)
                break;
        }
    }
    return 0;
}

static void deal_free (struct deal *d)
{
    free (d->first);
    free (d->count);
    free (d->filled);
    free (d->got);
    free (d->used);
}

/* The rows of the k tasks on cores split[]: with more tasks than GPUs,
 * consecutive tasks on the same cores make one row (so the pairs are
 * rows x GPUs, at most cores x GPUs). */
static int rows_of (struct deal *d, struct rp_idset **split)
{
    size_t k = d->k;

    if (!(d->first = calloc (k + 1, sizeof (size_t)))
        || !(d->count = calloc (k + 1, sizeof (size_t)))
        || !(d->filled = calloc (k + 1, sizeof (size_t)))
        || !(d->got = calloc (k + 1, sizeof (size_t)))
        || !(d->used = calloc (d->g + 1, sizeof (size_t))))
        return -1;
    for (size_t j = 0; j < k; j++) {
        if (j == 0 || d->k <= d->g || !rp_idset_equal (split[j], split[j - 1]))
            d->first[d->nrows++] = j;
        d->count[d->nrows - 1]++;
    }
    d->extra = d->k <= d->g ? d->g % d->k : d->k % d->g;
    return 0;
}

/* The GPUs of the k tasks of the group of task first, near the cores
 * cpu-affinity per-task gives them (aff_split). */
static int plan_group (struct rp_shell *sh, struct aff_base *b, size_t first,
                       size_t k, struct rp_idset **out)
{
    struct rp_task *t = rp_shell_task (sh, first);
    struct rp_idset *gpus =
        rp_idset_intersect (rp_task_share_gpus (t), rp_shell_gpus (sh));
    struct rp_idset *cores = aff_share_cores (sh, t);
    struct rp_idset **split = calloc (k + 1, sizeof (*split));
    struct deal d = { .k = k, .g = gpus ? rp_idset_count (gpus) : 0 };
    unsigned int *ids = calloc (d.g + 1, sizeof (*ids));
    struct pair *v = NULL;
    size_t np = 0, x = 0;
    int rc = -1;

    for (size_t j = 0; j < k; j++)
        if (!(out[j] = rp_idset_create ()))
            goto done;
    if (!gpus || !cores || !split || !ids
        || aff_split (sh, cores, k, split) < 0)
        goto done;
    if (d.g == 0 || !split[0]) {
        rc = 0; /* no GPU, or no core: none given */
        goto done;
    }
    if (rows_of (&d, split) < 0
        || !(v = calloc (d.nrows * d.g + 1, sizeof (*v))))
        goto done;
    for (unsigned int id = rp_idset_first (gpus); id != RP_IDSET_INVALID_ID;
         id = rp_idset_next (gpus, id), x++)
        ids[x] = id;
    for (size_t r = 0; r < d.nrows; r++)
        for (x = 0; x < d.g; x++)
            if (pair_of (sh, split[d.first[r]], r, ids[x], x, &v[np++]) < 0)
                goto done;
    qsort (v, np, sizeof (*v), nearer);
    rc = deal (&d, v, np, ids, out);
done:
    deal_free (&d);
    free (v);
    free (ids);
    aff_map_free (split, k);
    rp_idset_destroy (cores);
    rp_idset_destroy (gpus);
    return rc;
}

/* --- the variables ------------------------------------------------------- */

/* The vendors whose GPUs the machine has: the job's here, and every PCI
 * display or processing-accelerator device of the topology (the
 * topology keeps other jobs' devices). */
static void find_vendors (struct rp_shell *sh, struct gpu *st)
{
    const struct rp_idset *gpus = rp_shell_gpus (sh);
    hwloc_topology_t topo = rp_shell_topology (sh);
    hwloc_obj_t o = NULL;

    for (size_t v = 0; v < NVENDORS; v++)
        st->present[v] = false;
    for (unsigned int g = rp_idset_first (gpus); g != RP_IDSET_INVALID_ID;
         g = rp_idset_next (gpus, g))
        for (size_t v = 0; v < NVENDORS; v++)
            if (rp_shell_gpu_vendor (sh, g) == vendors[v].vendor)
                st->present[v] = true;
    while (topo && (o = hwloc_get_next_pcidev (topo, o))) {
        unsigned int class = o->attr->pcidev.class_id >> 8;
        for (size_t v = 0; v < NVENDORS; v++)
            if ((class == 0x03 || class == 0x12)
                && o->attr->pcidev.vendor_id == vendors[v].pci)
                st->present[v] = true;
    }
}

/* "4,5": the vendor's indices of the GPUs of set that are its; NULL with
 * none. */
static char *indices (struct rp_shell *sh, const struct rp_idset *set,
                      int vendor, bool *none)
{
    struct rp_idset *ix = rp_idset_create ();
    char *s;

    *none = true;
    for (unsigned int g = rp_idset_first (set); ix && g != RP_IDSET_INVALID_ID;
         g = rp_idset_next (set, g)) {
        int i = rp_shell_gpu_index (sh, g);
        if (rp_shell_gpu_vendor (sh, g) != vendor || i < 0)
            continue;
        *none = false;
        if (rp_idset_add (ix, (unsigned int)i) < 0) {
            rp_idset_destroy (ix);
            return NULL;
        }
    }
    s = ix ? rp_idset_encode (ix, 0) : NULL; /* "0,1,2": no ranges */
    rp_idset_destroy (ix);
    return s;
}

static int set_vars (struct rp_plugin *p, struct rp_shell *sh,
                     const struct gpu *st, struct rp_task *t,
                     const struct rp_idset *set)
{
    for (size_t v = 0; v < NVENDORS; v++) {
        bool none;
        char *s = indices (sh, set, vendors[v].vendor, &none);
        int rc = 0;
        if (!s)
            return svc->error (p, "out of memory");
        if (!none || (st->present[v] && vendors[v].hide))
            rc = rp_task_setenv (t, vendors[v].var, s);
        if (rc == 0 && vendors[v].vendor == RP_GPU_NVIDIA
            && (!none || st->present[v])
            && !rp_task_getenv (t, "CUDA_DEVICE_ORDER"))
            rc = rp_task_setenv (t, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
        free (s);
        if (rc < 0)
            return svc->error (p, "task %lu: cannot set %s: %s",
                               rp_task_global_id (t), vendors[v].var,
                               strerror (errno));
    }
    return 0;
}

static void log_gpus (struct rp_plugin *p, struct rp_task *t,
                      const struct rp_idset *set)
{
    char a[128], vars[256] = "";
    size_t n = 0;

    for (size_t v = 0; v < NVENDORS && n < sizeof (vars); v++) {
        const char *s = rp_task_getenv (t, vendors[v].var);
        if (s)
            n += (size_t)snprintf (vars + n, sizeof (vars) - n, " %s=%s",
                                   vendors[v].var, s);
    }
    svc->log (p, RP_LOG_NOTICE, "task %lu: GPUs %s:%s", rp_task_global_id (t),
              rp_idset_empty (set) ? "none" : aff_text (set, a, sizeof (a)),
              n ? vars : " no variable");
}

/* --- the plugin ------------------------------------------------------------
 */

static void reset (struct aff_base *b)
{
    struct gpu *st = (struct gpu *)b;

    aff_map_free (st->map, st->nmap);
    aff_map_free (st->plan, st->nplan);
    st->map = st->plan = NULL;
    st->nmap = st->nplan = 0;
}

AFF_DEFINE_INIT (struct gpu, reset)

static int shell_init (struct rp_plugin *p, struct rp_shell *sh)
{
    struct gpu *st = svc->get_data (p);

    if (aff_shell_init (p, svc, sh, &st->b) < 0)
        return -1;
    find_vendors (sh, st);
    if (st->b.opts.mode == AFF_MAP)
        return (st->map = aff_map_parse (p, svc, syntax.key, st->b.opts.map,
                                         syntax.hex, &st->nmap))
                   ? 0
                   : -1;
    if (aff_is (&syntax, &st->b.opts, "per-task")
        && aff_per_group (sh, &st->b, &st->plan, &st->nplan, plan_group) < 0)
        return svc->error (p, "out of memory");
    return 0;
}

static int task_init (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t)
{
    struct gpu *st = svc->get_data (p);
    struct rp_idset *set = NULL;
    int rc;

    if (aff_is (&syntax, &st->b.opts, "off"))
        return 0;
    if (aff_is (&syntax, &st->b.opts, "on"))
        set = rp_idset_copy (rp_shell_gpus (sh));
    else if (st->b.opts.mode == AFF_MAP)
        set = rp_idset_copy (st->map[rp_task_local_id (t) % st->nmap]);
    else if (rp_task_local_id (t) < st->nplan && st->plan[rp_task_local_id (t)])
        set = rp_idset_copy (st->plan[rp_task_local_id (t)]);
    else
        set = rp_idset_create (); /* no GPU here */
    if (!set)
        return svc->error (p, "out of memory");
    if (rp_task_set_gpus (t, set) < 0)
        rc = svc->error (p, "task %lu: cannot set its GPUs: %s",
                         rp_task_global_id (t), strerror (errno));
    else
        rc = set_vars (p, sh, st, t, set);
    if (rc == 0 && (st->b.opts.flags & AFF_VERBOSE))
        log_gpus (p, t, set);
    rp_idset_destroy (set);
    return rc;
}

static const struct rp_shell_ops ops = {
    .size = sizeof (struct rp_shell_ops),
    .shell_init = shell_init,
    .task_init = task_init,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_SHELL,
    .name = "gpu-affinity",
    .description = "give each task the GPUs nearest its cores and set "
                   "CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES or "
                   "ZE_AFFINITY_MASK",
    .version = "0.1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
    .config_keys = config_keys,
};
