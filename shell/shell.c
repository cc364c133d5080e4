/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The job shell of one execution target and its stack of shell plugins;
 * see api/respol/shell.h for the contract.
 *
 * rp_shell_init: the tasks (the layout, respol/layout.h, unless the host
 * added them), the topology (shell/topo.c), each task's environment,
 * then the stack: every plugin's shell_init in order, then for each task
 * every plugin's task_init in order (so a later plugin sees and may
 * refine an earlier one's decision), then the host's check of every
 * task's decision (shell/task.c).  Nothing has started yet, so a refusal
 * stops the job before any task runs.
 *
 * rp_task_exec runs in the task's process: task_exec of every plugin,
 * then the decision applied: sched_setaffinity for the CPUs (the kernel's
 * call: it works the same whatever hwloc saw), set_mempolicy for the
 * memory policy (MPOL_BIND, or MPOL_PREFERRED_MANY on the NUMA nodes), the
 * environment: the process's own is replaced by the task's, which execve
 * receives from rp_task_envp (unless the host keeps the environment it
 * executes the task with itself: RP_TASK_EXEC_KEEP_ENVIRON).  GPUs are
 * not a process setting: the GPU plugin sets its vendor's variables in
 * the environment.
 *
 * Every call into a plugin is announced to the crash handler
 * (plugin_enter): a plugin that crashes is named before the shell dies.
 * A plugin that fails names itself and the operation:
 *   shell plugin 'cpu-affinity': task_init: map:1,2 has 2 entries for 4 tasks
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "respol/config.h"
#include "respol/idset.h"
#include "respol/jobspec.h"
#include "respol/layout.h"
#include "respol/rset.h"

#include "core/plugin_private.h"
#include "shell/shell_private.h"

struct rp_shell *rp_shell_create (const struct rp_rset *R,
                                  const struct rp_jobspec *js,
                                  unsigned int rank, rp_error_t *error)
{
    struct rp_shell *sh;

    if (!R || !js) {
        rp_error_set (error, EINVAL, "shell: invalid argument");
        return NULL;
    }
    if (!rp_idset_test (rp_rset_ranks (R), rank)) {
        rp_error_set (error, EINVAL, "shell: rank %u is not in R", rank);
        return NULL;
    }
    if (!(sh = calloc (1, sizeof (*sh))) || !(sh->options = json_object ())) {
        free (sh);
        rp_error_set (error, ENOMEM, "shell: out of memory");
        return NULL;
    }
    sh->R = R;
    sh->js = js;
    sh->rank = rank;
    return sh;
}

void rp_shell_destroy (struct rp_shell *sh)
{
    int saved_errno = errno;

    if (!sh)
        return;
    for (size_t i = 0; i < sh->ntasks; i++)
        task_destroy (sh->tasks[i]);
    free (sh->tasks);
    rp_layout_destroy (sh->layout);
    shell_topo_free (sh);
    json_decref (sh->options);
    free (sh->xmlfile);
    free (sh->distribution);
    free (sh);
    errno = saved_errno;
}

static int before_init (const struct rp_shell *sh, rp_error_t *error)
{
    if (!sh)
        return rp_error_set (error, EINVAL, "shell: invalid argument");
    if (sh->initialized)
        return rp_error_set (error, EINVAL, "shell: already initialized");
    return 0;
}

static int set_string (char **field, const char *value, rp_error_t *error)
{
    char *copy = strdup (value);

    if (!copy)
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    free (*field);
    *field = copy;
    return 0;
}

int rp_shell_set_xml (struct rp_shell *sh, const char *xmlfile,
                      rp_error_t *error)
{
    if (before_init (sh, error) < 0)
        return -1;
    if (!xmlfile || !*xmlfile)
        return rp_error_set (error, EINVAL, "shell: invalid argument");
    if (sh->topo)
        return rp_error_set (error, EINVAL,
                             "shell: a topology is already set");
    return set_string (&sh->xmlfile, xmlfile, error);
}

int rp_shell_set_topology (struct rp_shell *sh, hwloc_topology_t topo,
                           rp_error_t *error)
{
    if (before_init (sh, error) < 0)
        return -1;
    if (!topo)
        return rp_error_set (error, EINVAL, "shell: invalid argument");
    if (sh->xmlfile || sh->topo)
        return rp_error_set (error, EINVAL,
                             "shell: a topology is already set");
    if (hwloc_topology_dup (&sh->topo, topo) < 0) {
        sh->topo = NULL;
        return rp_error_set (error, errno ? errno : ENOMEM,
                             "shell: cannot copy the topology: %s",
                             strerror (errno ? errno : ENOMEM));
    }
    return 0;
}

int rp_shell_set_distribution (struct rp_shell *sh, const char *dist,
                               rp_error_t *error)
{
    if (before_init (sh, error) < 0)
        return -1;
    if (!dist || !*dist)
        return rp_error_set (error, EINVAL, "shell: invalid argument");
    return set_string (&sh->distribution, dist, error);
}

int rp_shell_set_option (struct rp_shell *sh, const char *key, json_t *value,
                         rp_error_t *error)
{
    if (before_init (sh, error) < 0) {
        json_decref (value);
        return -1;
    }
    if (!key || !*key || !value) {
        json_decref (value);
        return rp_error_set (error, EINVAL, "shell: invalid option");
    }
    if (json_object_set_new (sh->options, key, value) < 0)
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    return 0;
}

static int tasks_grow (struct rp_shell *sh)
{
    struct rp_task **v = realloc (sh->tasks, (sh->ntasks + 1) * sizeof (*v));

    if (!v)
        return -1;
    sh->tasks = v;
    return 0;
}

int rp_shell_add_task (struct rp_shell *sh, unsigned long global_id,
                       const struct rp_idset *cores,
                       const struct rp_idset *gpus, rp_error_t *error)
{
    struct rp_task *t;

    if (before_init (sh, error) < 0)
        return -1;
    if (sh->ntasks >= RP_LAYOUT_MAX_PER_TARGET)
        return rp_error_set (error, EINVAL, "shell: more than %u tasks",
                             RP_LAYOUT_MAX_PER_TARGET);
    if (tasks_grow (sh) < 0
        || !(t = task_create (sh, global_id, (unsigned int)sh->ntasks, cores,
                              gpus)))
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    sh->tasks[sh->ntasks++] = t;
    sh->host_tasks = true;
    return 0;
}

int rp_shell_set_ntasks_total (struct rp_shell *sh, size_t ntasks,
                               rp_error_t *error)
{
    if (before_init (sh, error) < 0)
        return -1;
    if (ntasks == 0 || ntasks > RP_LAYOUT_MAX_TASKS)
        return rp_error_set (error, EINVAL,
                             "shell: a job of %zu tasks (1 to %u)", ntasks,
                             RP_LAYOUT_MAX_TASKS);
    sh->ntasks_total = ntasks;
    return 0;
}

/* --- init ------------------------------------------------------------------ */

/* The tasks of the layout: its distribution is ours, else the option
 * "distribution" (a string), else the jobspec's. */
static int lay_out (struct rp_shell *sh, rp_error_t *error)
{
    const char *dist = sh->distribution;
    const json_t *opt = rp_shell_option (sh, "distribution");
    size_t n;

    if (!dist && opt) {
        if (!json_is_string (opt))
            return rp_error_set (error, EINVAL,
                                 "shell: option distribution: must be block, "
                                 "cyclic or cyclic:N");
        dist = json_string_value (opt);
    }
    if (!(sh->layout = rp_layout_create (sh->R, sh->js, sh->rank, dist, error)))
        return -1;
    sh->ntasks_total = rp_layout_ntasks (sh->layout);
    n = rp_layout_ntasks_local (sh->layout);
    if (!(sh->tasks = calloc (n + 1, sizeof (*sh->tasks))))
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    for (size_t i = 0; i < n; i++) {
        long id = rp_layout_task_global_id (sh->layout, i);
        if (!(sh->tasks[i] = task_create (
                  sh, (unsigned long)id, (unsigned int)i,
                  rp_layout_task_cores (sh->layout, i),
                  rp_layout_task_gpus (sh->layout, i))))
            return rp_error_set (error, ENOMEM, "shell: out of memory");
        sh->ntasks = i + 1;
    }
    return 0;
}

/* "shell plugin 'NAME': OP: message" for a plugin that failed. */
static int plugin_failed (struct rp_plugin *p, const char *op, int rc,
                          rp_error_t *error)
{
    if (p->error[0])
        return rp_error_set (error, EPROTO, "shell plugin '%s': %s: %s",
                             p->instance, op, p->error);
    return rp_error_set (error, EPROTO,
                         "shell plugin '%s': %s returned %d (no message)",
                         p->instance, op, rc);
}

enum op { OP_SHELL_INIT, OP_TASK_INIT, OP_TASK_EXEC, OP_TASK_EXIT,
          OP_SHELL_EXIT };
static const char *const op_names[] = { "shell_init", "task_init",
                                        "task_exec", "task_exit",
                                        "shell_exit" };

/* Call op of plugin p for t (may be NULL) with status: 0, 1 when p has
 * no such operation, or -1 with error. */
static int call (struct rp_shell *sh, struct rp_plugin *p, enum op op,
                 struct rp_task *t, int status, rp_error_t *error)
{
    const struct rp_shell_ops *o = &p->shell;
    struct plugin_call c;
    int rc;

    if ((op == OP_SHELL_INIT && !o->shell_init)
        || (op == OP_TASK_INIT && !o->task_init)
        || (op == OP_TASK_EXEC && !o->task_exec)
        || (op == OP_TASK_EXIT && !o->task_exit)
        || (op == OP_SHELL_EXIT && !o->shell_exit))
        return 1;
    p->error[0] = '\0';
    sh->current = op == OP_TASK_INIT ? p : NULL;
    plugin_enter (&c, p, op_names[op]);
    switch (op) {
    case OP_SHELL_INIT:
        rc = o->shell_init (p, sh);
        break;
    case OP_TASK_INIT:
        rc = o->task_init (p, sh, t);
        break;
    case OP_TASK_EXEC:
        rc = o->task_exec (p, sh, t);
        break;
    case OP_TASK_EXIT:
        rc = o->task_exit (p, sh, t, status);
        break;
    default:
        rc = o->shell_exit (p, sh);
        break;
    }
    plugin_leave (&c);
    sh->current = NULL;
    return rc == 0 ? 0 : plugin_failed (p, op_names[op], rc, error);
}

/* Call op of every plugin of the stack in order; the first failure
 * stops it, unless all (every plugin is called, the first error kept). */
static int call_all (struct rp_shell *sh, enum op op, struct rp_task *t,
                     int status, bool all, rp_error_t *error)
{
    int rc = 0;

    for (size_t i = 0; i < rp_stack_count (sh->stack); i++) {
        struct rp_plugin *p = (struct rp_plugin *)rp_stack_plugin (sh->stack, i);
        rp_error_t e;
        if (call (sh, p, op, t, status, rc < 0 ? &e : error) < 0) {
            rc = -1;
            if (!all)
                return -1;
        }
    }
    return rc;
}

int rp_shell_init (struct rp_shell *sh, const struct rp_config *cfg,
                   rp_error_t *error)
{
    if (before_init (sh, error) < 0)
        return -1;
    sh->initialized = true;
    sh->stack = cfg ? rp_config_stack (cfg, RP_PLUGIN_SHELL) : NULL;
    if (sh->host_tasks) {
        if (sh->ntasks_total == 0)
            sh->ntasks_total = sh->ntasks;
        else if (sh->ntasks_total < sh->ntasks)
            return rp_error_set (error, EINVAL,
                                 "shell: %zu tasks here, but the job has %zu",
                                 sh->ntasks, sh->ntasks_total);
    } else if (lay_out (sh, error) < 0)
        return -1;
    if (shell_topo_load (sh, error) < 0)
        return -1;
    for (size_t i = 0; i < sh->ntasks; i++)
        if (task_env_init (sh->tasks[i]) < 0)
            return rp_error_set (error, errno ? errno : ENOMEM,
                                 "shell: task environment: %s",
                                 strerror (errno ? errno : ENOMEM));
    if (call_all (sh, OP_SHELL_INIT, NULL, 0, false, error) < 0)
        return -1;
    for (size_t i = 0; i < sh->ntasks; i++)
        if (call_all (sh, OP_TASK_INIT, sh->tasks[i], 0, false, error) < 0)
            return -1;
    for (size_t i = 0; i < sh->ntasks; i++)
        if (task_check (sh->tasks[i], error) < 0)
            return -1;
    return 0;
}

/* --- in the task's process -------------------------------------------------- */

static int bind_cpus (const struct rp_idset *cpus, rp_error_t *error)
{
    unsigned int max = rp_idset_max (cpus);
    cpu_set_t *mask = CPU_ALLOC (max + 1);
    size_t size = CPU_ALLOC_SIZE (max + 1);
    int rc = 0;

    if (!mask)
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    CPU_ZERO_S (size, mask);
    for (unsigned int i = rp_idset_first (cpus); i != RP_IDSET_INVALID_ID;
         i = rp_idset_next (cpus, i))
        CPU_SET_S (i, size, mask);
    if (sched_setaffinity (0, size, mask) < 0) {
        char *s = rp_idset_encode (cpus, RP_IDSET_RANGES);
        rc = rp_error_set (error, errno, "shell: binding to CPUs %s: %s",
                           s ? s : "?", strerror (errno));
        free (s);
    }
    CPU_FREE (mask);
    return rc;
}

/* Linux's memory policies (linux/mempolicy.h), with MPOL_PREFERRED_MANY
 * (Linux 5.15) for older headers. */
#define RP_MPOL_PREFERRED 1
#define RP_MPOL_BIND 2
#define RP_MPOL_PREFERRED_MANY 5

static int set_mempolicy_mask (int mode, const unsigned long *mask,
                               unsigned long maxnode)
{
    return (int)syscall (SYS_set_mempolicy, mode, mask, maxnode);
}

/* MPOL_BIND on the NUMA nodes, or MPOL_PREFERRED_MANY (MPOL_PREFERRED on
 * the first node where the kernel lacks it). */
static int bind_mems (struct rp_task *t, rp_error_t *error)
{
    unsigned int max = rp_idset_max (t->mems.set);
    size_t words = max / (8 * sizeof (unsigned long)) + 1;
    unsigned long *mask = calloc (words, sizeof (unsigned long));
    unsigned long maxnode = words * 8 * sizeof (unsigned long);
    int rc;

    if (!mask)
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    for (unsigned int i = rp_idset_first (t->mems.set);
         i != RP_IDSET_INVALID_ID; i = rp_idset_next (t->mems.set, i))
        mask[i / (8 * sizeof (unsigned long))] |=
            1UL << (i % (8 * sizeof (unsigned long)));
    if (t->mem_policy == RP_MEM_BIND)
        rc = set_mempolicy_mask (RP_MPOL_BIND, mask, maxnode);
    else if ((rc = set_mempolicy_mask (RP_MPOL_PREFERRED_MANY, mask, maxnode))
                 < 0
             && errno == EINVAL) {
        unsigned int first = rp_idset_first (t->mems.set);
        memset (mask, 0, words * sizeof (unsigned long));
        mask[first / (8 * sizeof (unsigned long))] =
            1UL << (first % (8 * sizeof (unsigned long)));
        rc = set_mempolicy_mask (RP_MPOL_PREFERRED, mask, maxnode);
    }
    free (mask);
    if (rc < 0) {
        char *s = rp_idset_encode (t->mems.set, RP_IDSET_RANGES);
        rc = rp_error_set (error, errno,
                           "shell: binding memory to NUMA nodes %s: %s",
                           s ? s : "?", strerror (errno));
        free (s);
    }
    return rc;
}

int rp_task_exec (struct rp_task *t, rp_error_t *error)
{
    return rp_task_exec_flags (t, 0, error);
}

int rp_task_exec_flags (struct rp_task *t, int flags, rp_error_t *error)
{
    char *const *envp;

    if (!t || !t->sh->initialized || (flags & ~RP_TASK_EXEC_KEEP_ENVIRON))
        return rp_error_set (error, EINVAL, "shell: invalid argument");
    if (call_all (t->sh, OP_TASK_EXEC, t, 0, false, error) < 0)
        return -1;
    if (t->cpus.set && bind_cpus (t->cpus.set, error) < 0)
        return -1;
    if (t->mems.set && bind_mems (t, error) < 0)
        return -1;
    if (flags & RP_TASK_EXEC_KEEP_ENVIRON)
        return 0;
    if (!(envp = rp_task_envp (t)))
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    if (clearenv () != 0)
        return rp_error_set (error, ENOMEM, "shell: clearenv failed");
    for (size_t i = 0; envp[i]; i++)
        if (putenv (envp[i]) != 0)
            return rp_error_set (error, errno, "shell: putenv: %s",
                                 strerror (errno));
    return 0;
}

int rp_task_exited (struct rp_task *t, int status, rp_error_t *error)
{
    if (!t || !t->sh->initialized)
        return rp_error_set (error, EINVAL, "shell: invalid argument");
    return call_all (t->sh, OP_TASK_EXIT, t, status, true, error);
}

int rp_shell_exit (struct rp_shell *sh, rp_error_t *error)
{
    if (!sh || !sh->initialized)
        return rp_error_set (error, EINVAL, "shell: invalid argument");
    return call_all (sh, OP_SHELL_EXIT, NULL, 0, true, error);
}

/* --- reading ---------------------------------------------------------------- */

const struct rp_rset *rp_shell_R (const struct rp_shell *sh)
{
    return sh ? sh->R : NULL;
}

const struct rp_jobspec *rp_shell_jobspec (const struct rp_shell *sh)
{
    return sh ? sh->js : NULL;
}

unsigned int rp_shell_rank (const struct rp_shell *sh)
{
    return sh ? sh->rank : 0;
}

const struct rp_layout *rp_shell_layout (const struct rp_shell *sh)
{
    return sh ? sh->layout : NULL;
}

size_t rp_shell_ntasks_total (const struct rp_shell *sh)
{
    return sh ? sh->ntasks_total : 0;
}

size_t rp_shell_ntasks (const struct rp_shell *sh)
{
    return sh ? sh->ntasks : 0;
}

struct rp_task *rp_shell_task (const struct rp_shell *sh, size_t local)
{
    return sh && local < sh->ntasks ? sh->tasks[local] : NULL;
}

const json_t *rp_shell_option (const struct rp_shell *sh, const char *key)
{
    json_t *v;

    if (!sh || !key)
        return NULL;
    if ((v = json_object_get (sh->options, key)))
        return v;
    return json_object_get (
        json_object_get (json_object_get (rp_jobspec_system (sh->js), "shell"),
                         "options"),
        key);
}
