/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Shell plugin "mem-affinity": where a task's memory comes from.  The
 * option mem-affinity (respol-plugin(7), respol.yaml(5); read as
 * affinity.h says):
 *
 *   local      (the default) only the NUMA nodes of the task's cores
 *              (RP_MEM_BIND: Slurm's --mem-bind=local, what mpibind
 *              maps)
 *   preferred  those NUMA nodes first, others when they are full
 *              (RP_MEM_PREFERRED)
 *   off        the system's policy (first touch)
 *   verbose    flag: log each task's policy (notice)
 *
 * The task's cores are those of its CPUs, so this plugin runs after the
 * CPU plugin; with no CPU decision, those of its share.  Nothing is
 * decided where there is nothing to gain: the job's cores here are on a
 * single NUMA node and the machine has one.
 *
 * The default is local because a site puts this plugin in its stack to
 * bind memory; without it (the shipped stack) a task bound to its cores
 * already gets local memory from first touch, and spills to other nodes
 * when its own are full instead of failing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/idset.h>
#include <respol/plugin.h>
#include <respol/shell.h>

#include "affinity.h"

static const char *const modes[] = { "local", "preferred", "off", NULL };
static const struct aff_syntax syntax = {
    .key = "mem-affinity",
    .modes = modes,
    .map = false,
    .flags = AFF_VERBOSE,
};

struct mem {
    struct aff_base b;
    bool skip; /* one NUMA node, on the job's cores and on the machine */
};

static const struct rp_host_services *svc;

AFF_DEFINE_INIT (struct mem, NULL)

static int shell_init (struct rp_plugin *p, struct rp_shell *sh)
{
    struct mem *st = svc->get_data (p);
    hwloc_topology_t topo = rp_shell_topology (sh);

    if (aff_shell_init (p, svc, sh, &st->b) < 0)
        return -1;
    /* The shell's topology is restricted to the job's PUs, and keeps the
     * NUMA nodes without them. */
    st->skip =
        rp_idset_count (rp_shell_numas (sh)) <= 1
        && (!topo || hwloc_get_nbobjs_by_type (topo, HWLOC_OBJ_NUMANODE) <= 1);
    return 0;
}

static int task_init (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t)
{
    struct mem *st = svc->get_data (p);
    bool local = aff_is (&syntax, &st->b.opts, "local");
    struct rp_idset *cores, *numas = NULL;
    char buf[128];
    int rc = 0;

    if (aff_is (&syntax, &st->b.opts, "off") || st->skip)
        return 0;
    if (!(cores = aff_task_cores (sh, &st->b.pus, t))
        || !(numas = aff_numas_of (sh, cores)))
        rc = svc->error (p, "out of memory");
    else if (!rp_idset_empty (numas)
             && rp_task_set_mem (t, local ? RP_MEM_BIND : RP_MEM_PREFERRED,
                                 numas)
                    < 0)
        rc = svc->error (p, "task %lu: cannot set its memory policy: %s",
                         rp_task_global_id (t), strerror (errno));
    else if (!rp_idset_empty (numas) && (st->b.opts.flags & AFF_VERBOSE))
        svc->log (p, RP_LOG_NOTICE, "task %lu: memory %s NUMA nodes %s",
                  rp_task_global_id (t), local ? "bound to" : "preferred on",
                  aff_text (numas, buf, sizeof (buf)));
    rp_idset_destroy (cores);
    rp_idset_destroy (numas);
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
    .name = "mem-affinity",
    .description = "bind each task's memory to the NUMA nodes of its cores "
                   "(local, preferred, off)",
    .version = "0.1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
    .config_keys = config_keys,
};
