/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: the job shell's structures, shared by
 * shell/shell.c (the shell and its stack), shell/task.c (tasks, their
 * decisions and environment) and shell/topo.c (what the topology says of
 * the job's cores and GPUs).  See api/respol/shell.h.
 */
#ifndef RESPOL_SHELL_PRIVATE_H
#define RESPOL_SHELL_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <hwloc.h>
#include <jansson.h>

#include "respol/shell.h"

struct rp_plugin;

/* One set of a task's decision, with the plugin that set it. */
struct decision {
    struct rp_idset *set; /* NULL: undecided */
    const char *by;       /* the instance that set it (borrowed), or NULL */
};

struct rp_task {
    struct rp_shell *sh;
    unsigned long global_id;
    unsigned int local_id;
    struct rp_idset *share_cores;
    struct rp_idset *share_gpus;
    struct decision cpus, gpus, mems;
    int mem_policy;
    json_t *env;  /* name -> value, in the order set */
    json_t *env_by; /* name -> the instance that set it last (plugins) */
    char **envp;  /* built by rp_task_envp */
};

/* What the topology says of one GPU of the job (R id). */
struct gpu_info {
    int vendor;
    char busid[16]; /* "" when unknown */
    char name[32];  /* its OS device's name ("cuda0"), "" when none */
    int numa;
    struct rp_idset *cores; /* the job's cores nearest it */
    int index;              /* in its vendor's visible-devices variable */
};

struct rp_shell {
    const struct rp_rset *R;
    const struct rp_jobspec *js;
    unsigned int rank;
    char *xmlfile;
    json_t *options; /* -o KEY=VALUE */
    char *distribution;
    struct rp_layout *layout;
    struct rp_task **tasks;
    size_t ntasks;
    size_t ntasks_total;
    bool host_tasks; /* rp_shell_add_task laid them out */
    bool initialized;

    hwloc_topology_t topo;
    struct rp_idset *cpus, *cores, *gpus, *numas;
    /* Per core id up to max_core: its PUs (NULL: not the job's), NUMA
     * node and package. */
    unsigned int ncore_slots;
    struct rp_idset **core_cpus;
    int *core_numa;
    int *core_pkg;
    /* Per GPU id up to ngpu_slots: NULL-vendor when not the job's. */
    unsigned int ngpu_slots;
    struct gpu_info *gpu;

    const struct rp_stack *stack;  /* cfg's shell stack, or NULL */
    struct rp_plugin *current;     /* the plugin in task_init, or NULL */
};

/* shell/topo.c: load the topology (this machine's, or sh->xmlfile's after
 * a check in a child process), work out what it says of the job's cores
 * and GPUs on this target, then restrict it to the job's PUs. */
int shell_topo_load (struct rp_shell *sh, rp_error_t *error);
void shell_topo_free (struct rp_shell *sh);

/* shell/task.c */
struct rp_task *task_create (struct rp_shell *sh, unsigned long global_id,
                             unsigned int local_id,
                             const struct rp_idset *cores,
                             const struct rp_idset *gpus);
void task_destroy (struct rp_task *t);
/* The job's environment and the shell's variables. */
int task_env_init (struct rp_task *t);
/* Check the task's decision against what the job holds here. */
int task_check (const struct rp_task *t, rp_error_t *error);

#endif
