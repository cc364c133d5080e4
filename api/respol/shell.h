/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The job shell: one execution target's part of a job, and the stack of
 * shell plugins (kind RP_PLUGIN_SHELL) that decide, for each task that
 * runs there, its CPUs, GPUs, memory policy and environment.
 *
 * A shell is made from R (RFC 20), the jobspec (RFC 14 / RFC 25) and the
 * target's rank; its tasks come from the task layout (respol/layout.h:
 * their ids and their share of the target's cores and GPUs), unless the
 * host that starts the tasks gives them itself (a resource manager's
 * step: rp_shell_add_task).  Its topology is this machine's (hwloc), or an
 * hwloc XML file's for a dry run on another machine's layout, restricted
 * to the PUs of the job's cores on this target.
 *
 * The host (respol run, respol shell, the Slurm and Flux adapters) calls:
 *   rp_shell_create, the setters, rp_shell_init (layout, topology, the
 *   stack's shell_init, then task_init for every task: the decisions,
 *   checked), then for each task it starts, in the child, rp_task_exec
 *   (the stack's task_exec, then the decision applied to the process:
 *   CPU binding, memory policy, environment), rp_task_exited with its
 *   wait status (task_exit), and at the end rp_shell_exit (shell_exit).
 *
 * The decision.  A task starts undecided: no CPU binding, every GPU of the
 * job on this target visible (no variable set), no memory policy, the
 * job's environment.  Plugins run in stack order; each may read what the
 * earlier ones decided and replace it (a later plugin refines an earlier
 * one).  The host checks the final decision before any task starts, as the
 * matcher checks a match policy's proposal: CPUs must be PUs of the job's
 * cores on this target, GPUs among the job's GPUs here, NUMA nodes those
 * of the job's cores; a decision outside them is refused with the name of
 * the plugin that made it and the task does not start:
 *   shell plugin 'cpu-affinity': task 3: CPUs 0-7 are not all the job's
 *   on this target (16-31)
 * A plugin that fails (returns -1) stops the job with its message.  No
 * task ever runs on resources another job holds.
 *
 * Ids.  CPUs are PUs by their OS index (what sched_setaffinity and
 * taskset take); cores and GPUs by R's ids (hwloc logical core indices,
 * GPUs numbered as R numbers them: respol R encode --local); NUMA nodes
 * by their OS index (what numactl takes).
 *
 * Options.  rp_shell_option (sh, "cpu-affinity") is the value a user gave
 * for that key: -o cpu-affinity=per-task of respol run, else the
 * jobspec's attributes.system.shell.options.cpu-affinity (as Flux users
 * write them); a shell plugin's configuration block (svc->config) holds
 * the site's defaults.
 *
 * Ownership: rp_shell_create returns a shell the caller must destroy;
 * everything an accessor returns is borrowed from the shell (tasks and
 * their sets live as long as it does; a decision's sets until it is
 * replaced).  Setters copy what they are given.  One thread at a time.
 */
#ifndef RESPOL_SHELL_H
#define RESPOL_SHELL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>
#include <jansson.h>

#include <respol/config.h>
#include <respol/error.h>
#include <respol/idset.h>
#include <respol/jobspec.h>
#include <respol/layout.h>
#include <respol/rset.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rp_shell;
struct rp_task;

/* --- kind RP_PLUGIN_SHELL -----------------------------------------------
 *
 * Every operation is optional; each returns 0, or -1 after svc->error ()
 * to stop the job with that message ("shell plugin 'NAME': task_init:
 * message").
 */
struct rp_shell_ops {
    uint32_t size; /* sizeof (struct rp_shell_ops) as built */

    /* Once, after the layout and before any task_init. */
    int (*shell_init) (struct rp_plugin *p, struct rp_shell *sh);
    /* For each local task, in the shell, before any task starts: decide
     * its binding and environment. */
    int (*task_init) (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t);
    /* In the task's own process, just before it executes its command
     * (after the decision is applied).  Only async-signal-safe work if
     * the host is threaded; the environment may still be changed. */
    int (*task_exec) (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t);
    /* In the shell, once the task ended: status as waitpid gives it. */
    int (*task_exit) (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t, int status);
    /* Once, after every task ended (or the job stopped). */
    int (*shell_exit) (struct rp_plugin *p, struct rp_shell *sh);

    /* New operations are added here, at the end. */
};

/* --- the host side -------------------------------------------------------- */

/* A shell for the target rank of R, running js (both borrowed: they must
 * outlive the shell).  Nothing is computed yet. */
struct rp_shell *rp_shell_create (const struct rp_rset *R,
                                  const struct rp_jobspec *js,
                                  unsigned int rank, rp_error_t *error);
/* Accepts NULL, keeps errno. */
void rp_shell_destroy (struct rp_shell *sh);

/* Before rp_shell_init: */
/* The topology of an hwloc XML file instead of this machine's. */
int rp_shell_set_xml (struct rp_shell *sh, const char *xmlfile,
                      rp_error_t *error);
/* Or this machine's topology, which the host loaded itself
 * (rp_topology_load_local) to build its graph too: the shell takes its own
 * copy (hwloc_topology_dup) instead of discovering the machine again. */
int rp_shell_set_topology (struct rp_shell *sh, hwloc_topology_t topo,
                           rp_error_t *error);
/* A shell option (value taken, also on failure), over the jobspec's. */
int rp_shell_set_option (struct rp_shell *sh, const char *key, json_t *value,
                         rp_error_t *error);
/* The task distribution of the layout ("block", "cyclic", "cyclic:N"). */
int rp_shell_set_distribution (struct rp_shell *sh, const char *dist,
                               rp_error_t *error);
/* A task the host lays out itself (then the layout is not computed):
 * its global id and its share (R's core and GPU ids on this target;
 * copied).  Tasks are local ids 0, 1, ... in the order added. */
int rp_shell_add_task (struct rp_shell *sh, unsigned long global_id,
                       const struct rp_idset *cores,
                       const struct rp_idset *gpus, rp_error_t *error);
/* The job's task count over every target, for a host that adds this
 * target's tasks itself (a resource manager's step on several nodes):
 * RESPOL_JOB_SIZE and rp_shell_ntasks_total.  Unset: the tasks added
 * here.  rp_shell_init fails when fewer than the tasks added. */
int rp_shell_set_ntasks_total (struct rp_shell *sh, size_t ntasks,
                               rp_error_t *error);

/* Lay out the tasks, load the topology, run the stack of cfg (its shell
 * stack; NULL or empty: no plugin, every task undecided) through
 * shell_init and task_init, and check every decision.  -1 with error:
 * EINVAL (the layout, a decision refused, a bad option), EPROTO (a plugin
 * failed), or what loading the topology says. */
int rp_shell_init (struct rp_shell *sh, const struct rp_config *cfg,
                   rp_error_t *error);

/* In the task's process: the stack's task_exec, then apply the decision
 * to this process (CPU binding, memory policy, environment: the
 * process's environment becomes the task's, its strings borrowed from
 * the shell, which must then outlive the process's use of it: the host
 * execs).  -1 with error when a plugin fails or the system refuses. */
int rp_task_exec (struct rp_task *t, rp_error_t *error);
/* rp_task_exec with flags:
 *   RP_TASK_EXEC_KEEP_ENVIRON  leave the process's environment as it is,
 *     for a host that executes the task with an environment it keeps
 *     itself (slurmstepd gives execve the job's, which a SPANK plugin
 *     changes with spank_setenv): the host brings that one to
 *     rp_task_envp's.
 * Other bits: -1 with EINVAL. */
enum rp_task_exec_flags {
    RP_TASK_EXEC_KEEP_ENVIRON = 1,
};
int rp_task_exec_flags (struct rp_task *t, int flags, rp_error_t *error);
/* The environment of the task as a NULL-terminated "NAME=VALUE" vector,
 * for execve.  Borrowed until the next change of the environment. */
char *const *rp_task_envp (struct rp_task *t);
/* The task ended with status (waitpid's): the stack's task_exit.  -1 with
 * error when a plugin fails (the others still run). */
int rp_task_exited (struct rp_task *t, int status, rp_error_t *error);
/* The stack's shell_exit. */
int rp_shell_exit (struct rp_shell *sh, rp_error_t *error);

/* --- reading (plugins and hosts) ------------------------------------------ */

const struct rp_rset *rp_shell_R (const struct rp_shell *sh);
const struct rp_jobspec *rp_shell_jobspec (const struct rp_shell *sh);
unsigned int rp_shell_rank (const struct rp_shell *sh);
/* The layout, or NULL when the host added the tasks. */
const struct rp_layout *rp_shell_layout (const struct rp_shell *sh);
/* The job's tasks over every target, and this target's. */
size_t rp_shell_ntasks_total (const struct rp_shell *sh);
size_t rp_shell_ntasks (const struct rp_shell *sh);
struct rp_task *rp_shell_task (const struct rp_shell *sh, size_t local);
/* The value of a shell option, or NULL. */
const json_t *rp_shell_option (const struct rp_shell *sh, const char *key);

/* The topology (after rp_shell_init): this machine's or the XML file's,
 * restricted to the PUs of the job's cores on this target.  Read-only;
 * a plugin calls hwloc's functions on it (they are resolved from the host
 * process, as respol's are). */
hwloc_topology_t rp_shell_topology (const struct rp_shell *sh);
/* What the job holds on this target: PUs (OS indices) of its cores, its
 * cores and GPUs (R's ids), and the NUMA nodes (OS indices) of its
 * cores. */
const struct rp_idset *rp_shell_cpus (const struct rp_shell *sh);
const struct rp_idset *rp_shell_cores (const struct rp_shell *sh);
const struct rp_idset *rp_shell_gpus (const struct rp_shell *sh);
const struct rp_idset *rp_shell_numas (const struct rp_shell *sh);

/* A core (R id) of the job here: its PUs (OS indices), its NUMA node and
 * package (OS indices; -1 when the topology has none).  NULL / -1 for a
 * core that is not the job's. */
const struct rp_idset *rp_shell_core_cpus (const struct rp_shell *sh,
                                           unsigned int core);
int rp_shell_core_numa (const struct rp_shell *sh, unsigned int core);
int rp_shell_core_package (const struct rp_shell *sh, unsigned int core);

/* A GPU (R id) of the job here. */
enum rp_gpu_vendor {
    RP_GPU_UNKNOWN = 0,
    RP_GPU_NVIDIA = 1,
    RP_GPU_AMD = 2,
    RP_GPU_INTEL = 3,
};
int rp_shell_gpu_vendor (const struct rp_shell *sh, unsigned int gpu);
/* Its PCI bus id ("0000:3b:00.0"), or NULL when hwloc shows none. */
const char *rp_shell_gpu_busid (const struct rp_shell *sh, unsigned int gpu);
/* The name of its OS device ("cuda0", "rsmi1", "ze0"), or NULL when the
 * topology shows it by its PCI device only. */
const char *rp_shell_gpu_name (const struct rp_shell *sh, unsigned int gpu);
/* The NUMA node (OS index) nearest it: the one of the smallest topology
 * object that holds its locality; -1 when that is the whole machine. */
int rp_shell_gpu_numa (const struct rp_shell *sh, unsigned int gpu);
/* The cores (R ids) nearest it: those under that same object, among the
 * job's cores here (all of them when its locality is the machine). */
const struct rp_idset *rp_shell_gpu_cores (const struct rp_shell *sh,
                                           unsigned int gpu);
/* The index the vendor's runtime gives it in its visible-devices variable
 * (CUDA_VISIBLE_DEVICES with CUDA_DEVICE_ORDER=PCI_BUS_ID,
 * ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK): its position, in PCI bus order,
 * among the machine's devices of that vendor; R's id when the bus ids are
 * unknown. */
int rp_shell_gpu_index (const struct rp_shell *sh, unsigned int gpu);

/* The task. */
unsigned long rp_task_global_id (const struct rp_task *t);
unsigned int rp_task_local_id (const struct rp_task *t);
struct rp_shell *rp_task_shell (const struct rp_task *t);
/* Its share from the layout (or the host): R's core and GPU ids. */
const struct rp_idset *rp_task_share_cores (const struct rp_task *t);
const struct rp_idset *rp_task_share_gpus (const struct rp_task *t);

/* --- the decision (plugins, in task_init) ---------------------------------
 * Each setter copies its set and records the plugin that called it, for
 * the host's check.  NULL: undecided (unbound CPUs, every GPU, no policy).
 * -1 with errno EINVAL outside task_init, ENOMEM. */
const struct rp_idset *rp_task_cpus (const struct rp_task *t);
int rp_task_set_cpus (struct rp_task *t, const struct rp_idset *cpus);
const struct rp_idset *rp_task_gpus (const struct rp_task *t);
int rp_task_set_gpus (struct rp_task *t, const struct rp_idset *gpus);

enum rp_mem_policy {
    RP_MEM_DEFAULT = 0,   /* the system's (first touch) */
    RP_MEM_BIND = 1,      /* only these NUMA nodes */
    RP_MEM_PREFERRED = 2, /* these first, others when they are full */
};
int rp_task_mem_policy (const struct rp_task *t);
const struct rp_idset *rp_task_mems (const struct rp_task *t);
int rp_task_set_mem (struct rp_task *t, int policy,
                     const struct rp_idset *numas);

/* The task's environment: the job's (attributes.system.environment,
 * else none), then the shell's RESPOL_* variables, then what plugins set.
 * getenv returns NULL for an unset name. */
const char *rp_task_getenv (const struct rp_task *t, const char *name);
int rp_task_setenv (struct rp_task *t, const char *name, const char *value);
int rp_task_unsetenv (struct rp_task *t, const char *name);
/* The shell plugin (instance name) that last set or unset name in
 * task_init, or NULL when none did (the job's or the shell's). */
const char *rp_task_env_by (const struct rp_task *t, const char *name);

#ifdef __cplusplus
}
#endif
#endif
