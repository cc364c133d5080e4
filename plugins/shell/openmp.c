/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Shell plugin "openmp": OpenMP's variables from the task's binding.  The
 * option openmp (respol-plugin(7), respol.yaml(5); read as affinity.h
 * says):
 *
 *   on        (the default) one thread per core
 *   off       no variable
 *   threads   flag: one thread per PU (hardware thread)
 *   verbose   flag: log the variables set (notice)
 *
 * It reads the CPU plugin's decision, so it comes after it in the stack
 * (a plugin sees only what the plugins before it decided).  For a task:
 * - OMP_NUM_THREADS: the cores (PUs with threads) of its CPUs, at most
 *   its fair part of its share: ceil (the share's cores / the tasks of
 *   its group), so tasks that are all bound to the job's cores (cpu
 *   affinity "on") do not each start a thread per core.  Without a CPU
 *   decision (cpu-affinity off, or no CPU plugin), that fair part.
 * - OMP_PLACES: the task's PUs, one place per core ("{0,64},{1,65}") or
 *   per PU with threads ("{0},{64}"), in core order; and
 *   OMP_PROC_BIND=close.  Only when the task's CPUs are its own: decided,
 *   and no wider than its fair part (tasks bound to the same wide set
 *   would otherwise pin their threads to the same places).
 * A variable the task's environment already has (the user's) is kept.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/idset.h>
#include <respol/plugin.h>
#include <respol/shell.h>

#include "affinity.h"

static const char *const modes[] = { "on", "off", NULL };
static const struct aff_syntax syntax = {
    .key = "openmp",
    .modes = modes,
    .map = false,
    .flags = AFF_THREADS | AFF_VERBOSE,
};

struct omp {
    struct aff_base b;
};

static const struct rp_host_services *svc;

/* PUs of cores (threads) or the cores themselves. */
static size_t units (struct rp_shell *sh, const struct rp_idset *cores,
                     bool threads)
{
    size_t n = 0;

    if (!threads)
        return rp_idset_count (cores);
    for (unsigned int c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (cores, c))
        n += rp_idset_count (rp_shell_core_cpus (sh, c));
    return n;
}

/* Append id in decimal at *n in buf. */
static void digits (char *buf, size_t *n, unsigned int id)
{
    char d[16];
    size_t k = 0;

    do
        d[k++] = (char)('0' + id % 10);
    while ((id /= 10) > 0);
    while (k > 0)
        buf[(*n)++] = d[--k];
}

/* "{0,64},{1,65}": the PUs of cpus by core, or one place per PU
 * ("{0},{64},{1},{65}").  Written by hand: this runs for every task. */
static char *places (struct rp_shell *sh, const struct rp_idset *cores,
                     const struct rp_idset *cpus, bool threads)
{
    char *buf = malloc (rp_idset_count (cpus) * 14 + 1);
    size_t n = 0;

    if (!buf)
        return NULL;
    for (unsigned int c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (cores, c)) {
        const struct rp_idset *pus = rp_shell_core_cpus (sh, c);
        size_t k = 0, x = 0;
        for (unsigned int i = rp_idset_first (pus); i != RP_IDSET_INVALID_ID;
             i = rp_idset_next (pus, i))
            k += rp_idset_test (cpus, i);
        for (unsigned int i = rp_idset_first (pus); i != RP_IDSET_INVALID_ID;
             i = rp_idset_next (pus, i)) {
            if (!rp_idset_test (cpus, i))
                continue;
            if (n > 0)
                buf[n++] = ',';
            if (threads || x == 0)
                buf[n++] = '{';
            digits (buf, &n, i);
            if (threads || ++x == k)
                buf[n++] = '}';
        }
    }
    buf[n] = '\0';
    return buf;
}

static int set_unless (struct rp_task *t, const char *name, const char *value)
{
    return rp_task_getenv (t, name) ? 0 : rp_task_setenv (t, name, value);
}

/* What the task gets: *n threads, and *own when its CPUs are its own. */
static int count (struct rp_shell *sh, const struct omp *st, struct rp_task *t,
                  struct rp_idset **cores, size_t *n, bool *own)
{
    bool threads = st->b.opts.flags & AFF_THREADS;
    size_t k = st->b.size[rp_task_local_id (t)];
    struct rp_idset *share = aff_share_cores (sh, t);
    size_t fair, have;

    if (!share)
        return -1;
    fair = (units (sh, share, threads) + k - 1) / k;
    rp_idset_destroy (share);
    *own = false;
    *n = fair ? fair : 1;
    if (!rp_task_cpus (t))
        return 0;
    if (!(*cores = aff_cores_of (&st->b.pus, rp_task_cpus (t))))
        return -1;
    have =
        threads ? rp_idset_count (rp_task_cpus (t)) : rp_idset_count (*cores);
    *own = have <= *n;
    if (have < *n)
        *n = have ? have : 1;
    return 0;
}

static int set_vars (struct rp_plugin *p, struct rp_shell *sh,
                     const struct omp *st, struct rp_task *t)
{
    struct rp_idset *cores = NULL;
    char *list = NULL, num[32];
    size_t n;
    bool own;
    int rc = -1;

    if (count (sh, st, t, &cores, &n, &own) < 0)
        goto done;
    snprintf (num, sizeof (num), "%zu", n);
    if (set_unless (t, "OMP_NUM_THREADS", num) < 0)
        goto done;
    if (own
        && (!(list = places (sh, cores, rp_task_cpus (t),
                             st->b.opts.flags & AFF_THREADS))
            || set_unless (t, "OMP_PLACES", list) < 0
            || set_unless (t, "OMP_PROC_BIND", "close") < 0))
        goto done;
    rc = 0;
done:
    free (list);
    rp_idset_destroy (cores);
    if (rc < 0)
        return svc->error (p, "task %lu: cannot set OpenMP's variables: %s",
                           rp_task_global_id (t), strerror (errno));
    return 0;
}

/* --- the plugin ------------------------------------------------------------
 */

AFF_DEFINE_INIT (struct omp, NULL)

static int shell_init (struct rp_plugin *p, struct rp_shell *sh)
{
    struct omp *st = svc->get_data (p);

    return aff_shell_init (p, svc, sh, &st->b);
}

static int task_init (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t)
{
    struct omp *st = svc->get_data (p);

    if (aff_is (&syntax, &st->b.opts, "off"))
        return 0;
    if (set_vars (p, sh, st, t) < 0)
        return -1;
    if (st->b.opts.flags & AFF_VERBOSE)
        svc->log (p, RP_LOG_NOTICE,
                  "task %lu: OMP_NUM_THREADS=%s OMP_PLACES=%s "
                  "OMP_PROC_BIND=%s",
                  rp_task_global_id (t), rp_task_getenv (t, "OMP_NUM_THREADS"),
                  rp_task_getenv (t, "OMP_PLACES")
                      ? rp_task_getenv (t, "OMP_PLACES")
                      : "(unset)",
                  rp_task_getenv (t, "OMP_PROC_BIND")
                      ? rp_task_getenv (t, "OMP_PROC_BIND")
                      : "(unset)");
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
    .name = "openmp",
    .description = "set OMP_NUM_THREADS, OMP_PLACES and OMP_PROC_BIND from "
                   "each task's binding",
    .version = "0.1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
    .config_keys = config_keys,
};
