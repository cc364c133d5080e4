/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* One node's part of a Slurm job step, run by respol's job shell: what
 * the SPANK plugin (shell/slurm/spank.c) reads from Slurm, made into R
 * (RFC 20), a jobspec (RFC 25) and a shell (respol/shell.h) holding the
 * step's tasks on this node; then the task's environment brought back to
 * the one Slurm executes it with.  Nothing here needs Slurm's headers, so
 * the unit tests (shell/slurm/test/step.c) build without Slurm.
 *
 * Internal to the SPANK plugin, not part of librespol: names carry no
 * rp_ prefix.
 *
 * The option.  --respol=KEY[=VALUE],... (or $RESPOL_SLURM_OPTIONS) holds
 * the shell options respol run's -o gives, one entry each: a VALUE is
 * JSON when it parses as JSON, else a string; KEY alone means 1; a dotted
 * KEY sets a key inside an object (a.b=1 is {"a": {"b": 1}}).  A key is a
 * letter, then letters, digits, '-', '_' or '.'.  A comma ends an entry
 * only when what follows it is a key (then '=', ',' or the end), as
 * Slurm's own lists run on after a comma (--cpu-bind=map_cpu:0,1):
 * cpu-affinity=map:0,1,verbose is {"cpu-affinity": "map:0,1", "verbose":
 * 1}; a value that starts with '[', '{' or '"' runs to its closing bracket
 * or quote first.  "verbose" (1, or 2 for debug) is also read by the
 * plugin: the binding map and the plugins' messages.
 *
 * R.  One execution target: rank = the node's index in the step
 * (S_JOB_NODEID), host = this node, cores = the step's cores here
 * (S_STEP_ALLOC_CORES, else S_JOB_ALLOC_CORES in a batch step), GPUs =
 * the step's (SLURM_STEP_GPUS, else SLURM_JOB_GPUS).  Slurm numbers a
 * node's cores abstractly, socket-major: core k is the k-th core met
 * walking the packages in order and the cores of each in order (its
 * task/affinity plugin maps them so, src/slurmd/common/xcpuinfo.c), which
 * is hwloc's logical core index, R's id (slurm_cores computes the walk).
 * Slurm's GPU i is R's GPU i: the i-th GPU of the machine in the order
 * respol numbers them (hwloc's topology order, PCI bus order on common
 * machines), which is Slurm's when gres.conf lists the devices in it.
 *
 * Tasks.  Every task's process builds the whole node's shell (the same
 * inputs give every task the same decisions) and applies its own: a
 * plugin sees all the node's tasks, their local ids and counts, as under
 * respol run.  Local task i of n gets its share of the step's cores here
 * as the layout shares a target's resources (respol/layout.h):
 * contiguous, in id order, as even as possible, earlier tasks one more;
 * with fewer cores than tasks each task gets one core, consecutive tasks
 * sharing it.  GPUs are shared the same way (none when the step has
 * none).  The jobspec is one slot per local task, of the step's cores
 * and GPUs divided by the tasks (at least one core), the task's command
 * and the job's environment.
 *
 * The environment.  The jobspec's environment is the job's (every
 * variable whose name and value are UTF-8), so plugins read and change
 * the environment the task will have; slurm_env_apply then sets in
 * Slurm's what the task's has that differs, and unsets what the task no
 * longer has.  A variable the jobspec could not hold is never touched.
 *
 * Ownership: every create returns what the caller must destroy; the
 * shell of a node is borrowed from it.
 */
#ifndef RESPOL_SLURM_STEP_H
#define RESPOL_SLURM_STEP_H

#include <stddef.h>

#include <hwloc.h>
#include <jansson.h>

#include <respol/config.h>
#include <respol/error.h>
#include <respol/idset.h>
#include <respol/shell.h>

/* The environment variable of the option's environment form. */
#define SLURM_OPTIONS_ENV "RESPOL_SLURM_OPTIONS"
/* The longest value of the option accepted. */
#define SLURM_OPTIONS_MAX 65536

/* The options in arg as a JSON object (caller must json_decref); NULL
 * with error, named by what ("--respol" or "RESPOL_SLURM_OPTIONS"):
 *   --respol: an empty entry (two commas, or one at either end) */
json_t *slurm_options_parse (const char *what, const char *arg,
                             rp_error_t *error);
/* The verbosity options ask for: 0, 1 (verbose) or 2 (verbose=2). */
int slurm_options_verbose (const json_t *options);

/* Slurm's core ids on this node (its idset text) as R's core ids on
 * topo; NULL with error, e.g. a core the machine lacks. */
struct rp_idset *slurm_cores (const char *ids, hwloc_topology_t topo,
                              rp_error_t *error);
/* Task i of n's share of ids (see above); NULL with errno ENOMEM. */
struct rp_idset *slurm_share (const struct rp_idset *ids, unsigned int n,
                              unsigned int i);

/* What the plugin read from Slurm (borrowed for the call). */
struct slurm_step {
    const char *hostname;
    unsigned int nodeid;
    const char *cores;        /* Slurm's core ids on this node */
    const char *gpus;         /* Slurm's GPU ids on this node, or NULL */
    unsigned int ntasks;      /* the step's tasks on this node */
    size_t ntasks_total;      /* the step's tasks */
    const unsigned long *ids; /* the global id of each local task */
    char *const *argv;        /* the command (NULL-terminated), or NULL */
    char *const *env;         /* the job's environment (NULL-terminated) */
    const json_t *options;    /* slurm_options_parse's */
};

struct slurm_node;

/* The node's shell on topo (this machine's, or an XML file's in tests;
 * copied), initialized with cfg's shell stack: every task's decision
 * made and checked.  NULL with error (errno EPROTO when a plugin
 * failed, EINVAL for the rest). */
struct slurm_node *slurm_node_create (const struct slurm_step *step,
                                      hwloc_topology_t topo,
                                      const struct rp_config *cfg,
                                      rp_error_t *error);
void slurm_node_destroy (struct slurm_node *node);
struct rp_shell *slurm_node_shell (const struct slurm_node *node);

/* Bring Slurm's environment of local task t to the task's: set() what
 * the task's environment has that the job's had not (or not with that
 * value), unset() what the task's no longer has.  0, or -1 with error
 * naming the variable when set or unset returned -1. */
typedef int (*slurm_setenv_f) (const char *name, const char *value, void *arg);
typedef int (*slurm_unsetenv_f) (const char *name, void *arg);
int slurm_env_apply (const struct slurm_node *node, struct rp_task *t,
                     slurm_setenv_f set, slurm_unsetenv_f unset, void *arg,
                     rp_error_t *error);

#endif
