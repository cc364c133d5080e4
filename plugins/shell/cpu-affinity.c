/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Shell plugin "cpu-affinity": the PUs each task runs on.  The option
 * cpu-affinity (respol-plugin(7), respol.yaml(5); read as affinity.h
 * says):
 *
 *   per-task   (the default) each task its own cores, from its share
 *   on         every task all the job's PUs here (flux-core's default)
 *   off        no binding
 *   map:LIST   explicit PUs (OS indices, as taskset takes them) per local
 *              task, ';' between tasks, reused cyclically: map:0-3;4-7
 *              (an entry may also be a taskset mask, 0xf0)
 *   threads    flag: every hardware thread of a core (per-task), not one
 *   verbose    flag: log each task's PUs, cores and NUMA nodes (notice)
 *
 * per-task, computed once in shell_init, group by group (tasks sharing a
 * slot, affinity.h): the group's cores (its share) are split between its
 * k tasks as affinity.h's aff_split says: in topology order, contiguous
 * balanced runs (so every core is used and tasks follow one another over
 * packages and NUMA nodes), a run kept in one NUMA node when its size
 * allows; with more tasks than cores, each core shared by floor or ceil
 * (k / cores) consecutive tasks.  A task gets the first PU of each of its
 * cores, or all of them with threads; tasks that share a core take its
 * PUs in turn (two tasks on a 2-way SMT core get one hardware thread
 * each), or each all of them with threads.  Never an empty binding: a
 * core has at least one PU.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/idset.h>
#include <respol/plugin.h>
#include <respol/shell.h>

#include "affinity.h"

static const char *const modes[] = { "per-task", "on", "off", NULL };
static const struct aff_syntax syntax = {
    .key = "cpu-affinity",
    .modes = modes,
    .map = true,
    .hex = true,
    .flags = AFF_THREADS | AFF_VERBOSE,
};

struct cpu {
    struct aff_base b;
    struct rp_idset **sets; /* per local task (per-task), or map entries */
    size_t nsets;
};

static const struct rp_host_services *svc;

/* --- per-task ------------------------------------------------------------ */

/* The PUs of task j of a group, on cores: the first PU of each core (all
 * with threads); a task sharing its core with the p tasks before it takes
 * the core's PU p (cyclic). */
static int pus_of (struct rp_shell *sh, const struct rp_idset *cores, size_t p,
                   bool threads, struct rp_idset **out)
{
    if (!(*out = rp_idset_create ()))
        return -1;
    for (unsigned int c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (cores, c)) {
        const struct rp_idset *pus = rp_shell_core_cpus (sh, c);
        if (threads ? rp_idset_add_set (*out, pus) < 0
                    : rp_idset_add (
                          *out, rp_idset_nth (pus, p % rp_idset_count (pus)))
                          < 0)
            return -1;
    }
    return 0;
}

/* The k tasks of the group of task first (affinity.h's split). */
static int split_group (struct rp_shell *sh, struct aff_base *b, size_t first,
                        size_t k, struct rp_idset **out)
{
    struct rp_idset *cores = aff_share_cores (sh, rp_shell_task (sh, first));
    struct rp_idset **split = calloc (k + 1, sizeof (*split));
    bool threads = b->opts.flags & AFF_THREADS;
    size_t p = 0;
    int rc = -1;

    if (!cores || !split || aff_split (sh, cores, k, split) < 0)
        goto done;
    for (size_t j = 0; split[0] && j < k; j++) {
        p = j > 0 && rp_idset_equal (split[j], split[j - 1]) ? p + 1 : 0;
        if (pus_of (sh, split[j], p, threads, &out[j]) < 0)
            goto done;
    }
    rc = 0;
done:
    aff_map_free (split, k);
    rp_idset_destroy (cores);
    return rc;
}

/* --- the plugin ------------------------------------------------------------
 */

static void reset (struct aff_base *b)
{
    struct cpu *st = (struct cpu *)b;

    aff_map_free (st->sets, st->nsets);
    st->sets = NULL;
    st->nsets = 0;
}

AFF_DEFINE_INIT (struct cpu, reset)

static int shell_init (struct rp_plugin *p, struct rp_shell *sh)
{
    struct cpu *st = svc->get_data (p);

    if (aff_shell_init (p, svc, sh, &st->b) < 0)
        return -1;
    if (st->b.opts.mode == AFF_MAP) {
        st->sets = aff_map_parse (p, svc, syntax.key, st->b.opts.map,
                                  syntax.hex, &st->nsets);
        return st->sets ? 0 : -1;
    }
    if (aff_is (&syntax, &st->b.opts, "per-task")
        && aff_per_group (sh, &st->b, &st->sets, &st->nsets, split_group) < 0)
        return svc->error (p, "out of memory");
    return 0;
}

static void log_binding (struct rp_plugin *p, struct rp_shell *sh,
                         const struct cpu *st, struct rp_task *t,
                         const struct rp_idset *set)
{
    struct rp_idset *cores = aff_cores_of (&st->b.pus, set);
    struct rp_idset *numas = cores ? aff_numas_of (sh, cores) : NULL;
    char a[128], b[128], c[64];

    svc->log (p, RP_LOG_NOTICE, "task %lu: CPUs %s: cores %s, NUMA nodes %s",
              rp_task_global_id (t), aff_text (set, a, sizeof (a)),
              aff_text (cores, b, sizeof (b)),
              numas && !rp_idset_empty (numas) ? aff_text (numas, c, sizeof (c))
                                               : "none");
    rp_idset_destroy (numas);
    rp_idset_destroy (cores);
}

static int task_init (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t)
{
    struct cpu *st = svc->get_data (p);
    unsigned int i = rp_task_local_id (t);
    const struct rp_idset *set = NULL;

    if (aff_is (&syntax, &st->b.opts, "on"))
        set = rp_shell_cpus (sh);
    else if (st->b.opts.mode == AFF_MAP && st->nsets)
        set = st->sets[i % st->nsets];
    else if (aff_is (&syntax, &st->b.opts, "per-task") && i < st->nsets)
        set = st->sets[i];
    if (!set || rp_idset_empty (set))
        return 0;
    if (rp_task_set_cpus (t, set) < 0)
        return svc->error (p, "task %lu: cannot set its CPUs: %s",
                           rp_task_global_id (t), strerror (errno));
    if (st->b.opts.flags & AFF_VERBOSE)
        log_binding (p, sh, st, t, set);
    return 0;
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
    .name = "cpu-affinity",
    .description = "bind each task to its own cores (per-task, on, off, "
                   "map:LIST)",
    .version = "0.1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
    .config_keys = config_keys,
};
