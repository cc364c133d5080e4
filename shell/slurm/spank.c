/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol inside Slurm: a SPANK plugin that runs respol's shell-plugin
 * stack for every task of a step, as respol run does for its own tasks
 * (respol-spank(8)).  One line of plugstack.conf enables it:
 *   required /usr/local/lib/respol/slurm/respol.so [config=FILE]
 *
 * By context (spank.h):
 *  - all: slurm_spank_init reads the plugstack arguments and registers
 *    --respol with spank_option_register (Slurm 22.05 offers the options
 *    of the static spank_options table to srun only, not sbatch/salloc).
 *  - srun, sbatch, salloc (local, allocator): the option's callback checks
 *    its syntax; slurm_spank_init_post_opt takes the environment form
 *    ($RESPOL_SLURM_OPTIONS) when the option is not given, and loads the
 *    configuration (every plugin's init runs), so that a mistake stops the
 *    command, which exits non-zero.  Slurm itself passes the option of
 *    sbatch and salloc on to the batch step and to the job's steps (srun
 *    in the script reads it from SLURM_SPANK__SLURM_SPANK_OPTION_respol_
 *    respol, Slurm's environment form), where it wins over ours.
 *  - slurmstepd (remote), in each task's process, after Slurm's own
 *    binding (task/affinity's pre-launch) and its GRES variables:
 *    slurm_spank_task_init builds the node's shell (shell/slurm/step.h),
 *    makes and checks every task's decision, applies this task's (CPU
 *    binding, memory policy) and gives its environment to Slurm with
 *    spank_setenv / spank_unsetenv, since slurmstepd executes the task
 *    with the job's environment array, not the process's environ
 *    (RP_TASK_EXEC_KEEP_ENVIRON).  task_exit and shell_exit never run:
 *    the task's process executes the command, and slurmstepd, which waits
 *    for it, holds no shell.
 * Without the option and the environment form, nothing runs.
 *
 * The decision never widens what Slurm gave the step: the shell's check
 * refuses CPUs outside the step's cores here, which on a machine without
 * cgroups nothing else would.  hwloc is told to see the whole machine
 * (HWLOC_ALLOW=all, in the task's process only), as Slurm's own hwloc
 * does, so that Slurm's core ids name the same cores inside task/cgroup's
 * cpusets, and to skip the plugins respol run skips too.
 *
 * The configuration is the plugstack line's config=, else the installed
 * one; $RESPOL_CONFIG is not read, so that srun checks the file the
 * tasks will use.  Messages go through slurm_error: "srun: error: respol:
 * ..." at srun time, "slurmstepd-NODE: error: respol: ..." in the task's
 * stderr; plugins' logs go to the task's stderr.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <slurm/spank.h>

#include <respol/config.h>
#include <respol/diag.h>
#include <respol/rset.h>
#include <respol/shell.h>

#include "core/cmd/bindmap.h"
#include "core/cmd/cmd.h"
#include "shell/slurm/step.h"

SPANK_PLUGIN (respol, 1);

static char *config_path;  /* config= of the plugstack line, or NULL */
static char *option_value; /* --respol's value, or NULL */

static int option_cb (int val, const char *arg, int remote);

static struct spank_option respol_option = {
    "respol",
    "KEY[=VALUE],...",
    "bind each task with respol's shell plugins: cpu-affinity=per-task,"
    "gpu-affinity=per-task,verbose (the options of respol run -o; "
    "respol-spank(8))",
    1,
    0,
    option_cb,
};

/* At srun time the value is checked at once (Slurm then says "Invalid
 * --respol argument" and exits); in slurmstepd it is only kept. */
static int option_cb (int val, const char *arg, int remote)
{
    rp_error_t e;
    json_t *o;

    (void)val;
    if (!remote) {
        if (!(o = slurm_options_parse ("--respol", arg, &e))) {
            slurm_error ("respol: %s", e.text);
            return -1;
        }
        json_decref (o);
    }
    free (option_value);
    option_value = arg ? strdup (arg) : NULL;
    return 0;
}

/* bindmap.c (respol run's binding map, which verbose prints) dies on out
 * of memory as the command does; here it fails the task. */
void cmd_die (const char *sub, const char *fmt, ...)
{
    char buf[512];
    va_list ap;

    (void)sub;
    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    slurm_error ("respol: %s", buf);
    _exit (1);
}

static int parse_args (int ac, char **av)
{
    for (int i = 0; i < ac; i++) {
        if (strncmp (av[i], "config=", 7) != 0 || av[i][7] != '/') {
            slurm_error ("respol: plugstack.conf: unknown argument '%s' "
                         "(respol takes config=/absolute/file)",
                         av[i]);
            return -1;
        }
        free (config_path);
        if (!(config_path = strdup (av[i] + 7)))
            return -1;
    }
    return 0;
}

int slurm_spank_init (spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context ();

    if (parse_args (ac, av) < 0)
        return -1;
    if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR && ctx != S_CTX_REMOTE)
        return 0;
    if (spank_option_register (sp, &respol_option) != ESPANK_SUCCESS) {
        slurm_error ("respol: cannot register the option --respol");
        return -1;
    }
    return 0;
}

/* The configuration, every plugin loaded and initialised; NULL after
 * printing why.  Without config=, a missing installed default is an
 * empty configuration. */
static struct rp_config *load_config (void)
{
    const char *path = config_path ? config_path : rp_config_default_path ();
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg = NULL;

    if (!config_path && access (path, F_OK) < 0 && errno == ENOENT)
        path = "/dev/null";
    if (d)
        cfg = rp_config_load (path, 0, d);
    for (size_t i = 0; d && i < rp_diags_count (d); i++) {
        if (rp_diags_severity (d, i) == RP_DIAG_WARNING)
            slurm_spank_log ("respol: warning: %s", rp_diags_text (d, i));
        else
            slurm_error ("respol: %s", rp_diags_text (d, i));
    }
    if (!cfg && (!d || rp_diags_count (d) == 0))
        slurm_error ("respol: configuration %s: %s", path, strerror (errno));
    rp_diags_destroy (d);
    return cfg;
}

/* srun, sbatch, salloc: the option or its environment form, and the
 * configuration, checked before anything is submitted. */
int slurm_spank_init_post_opt (spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context ();
    const char *value = option_value, *what = "--respol";
    struct rp_config *cfg;
    rp_error_t e;
    json_t *o;

    (void)sp, (void)ac, (void)av;
    if (ctx != S_CTX_LOCAL && ctx != S_CTX_ALLOCATOR)
        return 0;
    if (!value && (value = getenv (SLURM_OPTIONS_ENV)))
        what = SLURM_OPTIONS_ENV;
    if (!value || !*value)
        return 0; /* an empty environment form is none */
    if (!(o = slurm_options_parse (what, value, &e))) {
        slurm_error ("respol: %s", e.text);
        return -1;
    }
    json_decref (o);
    if (!(cfg = load_config ()))
        return -1;
    rp_config_destroy (cfg);
    return 0;
}

/* --- in the task ---------------------------------------------------------- */

/* What the task's process reads from Slurm. */
struct task_info {
    struct slurm_step st;
    int task;           /* the local id of this task */
    unsigned long *ids; /* st.ids */
    char host[256];
    char gpus[4096];
};

static int item_error (const char *item, spank_err_t rc, rp_error_t *error)
{
    return rp_error_set (error, EINVAL, "Slurm: %s: %s", item,
                         spank_strerror (rc));
}

/* A variable of the job's environment into buf: 1, 0 when unset, or -1
 * with error. */
static int job_getenv (spank_t sp, const char *name, char *buf, int size,
                       rp_error_t *error)
{
    spank_err_t rc = spank_getenv (sp, name, buf, size);

    if (rc == ESPANK_SUCCESS)
        return 1;
    if (rc == ESPANK_ENV_NOEXIST)
        return 0;
    return rp_error_set (error, EINVAL, "Slurm: %s: %s", name,
                         spank_strerror (rc));
}

/* The node's tasks and their global ids. */
static int gather_tasks (spank_t sp, struct task_info *ti, rp_error_t *error)
{
    uint32_t n, total, gid;
    spank_err_t rc;

    if ((rc = spank_get_item (sp, S_TASK_ID, &ti->task)) != ESPANK_SUCCESS)
        return item_error ("S_TASK_ID", rc, error);
    if ((rc = spank_get_item (sp, S_JOB_LOCAL_TASK_COUNT, &n))
        != ESPANK_SUCCESS)
        return item_error ("S_JOB_LOCAL_TASK_COUNT", rc, error);
    if ((rc = spank_get_item (sp, S_JOB_TOTAL_TASK_COUNT, &total))
        != ESPANK_SUCCESS)
        return item_error ("S_JOB_TOTAL_TASK_COUNT", rc, error);
    if (!(ti->ids = calloc ((size_t)n + 1, sizeof (*ti->ids))))
        return rp_error_set (error, ENOMEM, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        if ((rc = spank_get_item (sp, S_JOB_LOCAL_TO_GLOBAL_ID, i, &gid))
            != ESPANK_SUCCESS)
            return item_error ("S_JOB_LOCAL_TO_GLOBAL_ID", rc, error);
        ti->ids[i] = gid;
    }
    ti->st.ntasks = n;
    /* A batch step may say its job has 0 tasks: the script is one. */
    ti->st.ntasks_total = total < n ? n : total;
    ti->st.ids = ti->ids;
    return 0;
}

/* The node: its id and name, the step's cores and GPUs, the command and
 * the job's environment. */
static int gather_node (spank_t sp, struct task_info *ti, rp_error_t *error)
{
    char *cores = NULL, **env = NULL, **argv = NULL;
    spank_err_t rc;
    int argc, got;

    if ((rc = spank_get_item (sp, S_JOB_NODEID, &ti->st.nodeid))
        != ESPANK_SUCCESS)
        return item_error ("S_JOB_NODEID", rc, error);
    if (spank_get_item (sp, S_STEP_ALLOC_CORES, &cores) != ESPANK_SUCCESS
        || !cores || !*cores)
        if ((rc = spank_get_item (sp, S_JOB_ALLOC_CORES, &cores))
            != ESPANK_SUCCESS)
            return item_error ("S_JOB_ALLOC_CORES", rc, error);
    if ((rc = spank_get_item (sp, S_JOB_ENV, &env)) != ESPANK_SUCCESS)
        return item_error ("S_JOB_ENV", rc, error);
    if ((rc = spank_get_item (sp, S_JOB_ARGV, &argc, &argv)) != ESPANK_SUCCESS)
        return item_error ("S_JOB_ARGV", rc, error);
    if ((got = job_getenv (sp, "SLURMD_NODENAME", ti->host, sizeof (ti->host),
                           error))
            < 0
        || (!got && gethostname (ti->host, sizeof (ti->host)) < 0))
        return got < 0 ? -1
                       : rp_error_set (error, errno, "gethostname: %s",
                                       strerror (errno));
    if ((got = job_getenv (sp, "SLURM_STEP_GPUS", ti->gpus, sizeof (ti->gpus),
                           error))
        == 0)
        got = job_getenv (sp, "SLURM_JOB_GPUS", ti->gpus, sizeof (ti->gpus),
                          error);
    if (got < 0)
        return -1;
    ti->st.hostname = ti->host;
    ti->st.cores = cores;
    ti->st.gpus = got ? ti->gpus : NULL;
    ti->st.env = env;
    ti->st.argv = argv;
    return 0;
}

/* The option, else the environment form (unless empty): a copy (caller
 * frees), NULL when neither is given, or -1 with error. */
static int task_value (spank_t sp, char **value, const char **what,
                       rp_error_t *error)
{
    spank_err_t rc;
    char *buf;

    *value = NULL;
    *what = "--respol";
    if (option_value)
        return (*value = strdup (option_value))
                   ? 0
                   : rp_error_set (error, ENOMEM, "out of memory");
    *what = SLURM_OPTIONS_ENV;
    if (!(buf = malloc (SLURM_OPTIONS_MAX + 1)))
        return rp_error_set (error, ENOMEM, "out of memory");
    rc = spank_getenv (sp, SLURM_OPTIONS_ENV, buf, SLURM_OPTIONS_MAX + 1);
    if (rc == ESPANK_SUCCESS && *buf) {
        *value = buf;
        return 0;
    }
    free (buf);
    if (rc == ESPANK_SUCCESS || rc == ESPANK_ENV_NOEXIST)
        return 0;
    if (rc == ESPANK_NOSPACE)
        return rp_error_set (error, EINVAL, "%s: longer than %d bytes",
                             SLURM_OPTIONS_ENV, SLURM_OPTIONS_MAX);
    return rp_error_set (error, EINVAL, "Slurm: %s: %s", SLURM_OPTIONS_ENV,
                         spank_strerror (rc));
}

static void log_to_stderr (const char *instance, int level, const char *message,
                           void *arg)
{
    (void)arg;
    fprintf (stderr, "respol: %s: %s: %s\n", instance,
             rp_log_level_name (level), message);
}

static int task_setenv (const char *name, const char *value, void *arg)
{
    return spank_setenv ((spank_t)arg, name, value, 1) == ESPANK_SUCCESS ? 0
                                                                         : -1;
}

static int task_unsetenv (const char *name, void *arg)
{
    return spank_unsetenv ((spank_t)arg, name) == ESPANK_SUCCESS ? 0 : -1;
}

static void print_map (struct rp_shell *sh)
{
    json_t *map = bindmap_json (sh);

    bindmap_print_table (stderr, map);
    fflush (stderr);
    json_decref (map);
}

/* This task's decision, made with the node's, applied. */
static int apply (spank_t sp, struct task_info *ti, int verbose,
                  rp_error_t *error)
{
    hwloc_topology_t topo = NULL;
    struct rp_config *cfg = NULL;
    struct slurm_node *node = NULL;
    struct rp_task *t;
    int rc = -1;

    setenv ("HWLOC_ALLOW", "all", 1);
    /* As respol run does: hwloc's X displays (gl) and libxml2 reader are
     * not needed here, and cost most of its discovery. */
    setenv ("HWLOC_PLUGINS_BLACKLIST", "hwloc_gl,hwloc_xml_libxml", 0);
    if (rp_topology_load_local (&topo, error) < 0)
        return -1;
    if (!(cfg = load_config ())) {
        rp_error_set (error, EINVAL, "the configuration was refused");
        goto done;
    }
    if (!(node = slurm_node_create (&ti->st, topo, cfg, error)))
        goto done;
    t = rp_shell_task (slurm_node_shell (node), (size_t)ti->task);
    if (verbose && ti->task == 0)
        print_map (slurm_node_shell (node));
    if (rp_task_exec_flags (t, RP_TASK_EXEC_KEEP_ENVIRON, error) == 0
        && slurm_env_apply (node, t, task_setenv, task_unsetenv, sp, error)
               == 0)
        rc = 0;
done:
    slurm_node_destroy (node);
    rp_config_destroy (cfg);
    hwloc_topology_destroy (topo);
    return rc;
}

int slurm_spank_task_init (spank_t sp, int ac, char **av)
{
    struct task_info ti = { .task = -1 };
    const char *what;
    char *value = NULL;
    json_t *options = NULL;
    rp_error_t e = { "" };
    int rc = -1, verbose;

    (void)ac, (void)av;
    if (spank_remote (sp) != 1)
        return 0;
    if (task_value (sp, &value, &what, &e) < 0)
        goto done;
    if (!value) { /* no --respol: nothing to do */
        rc = 0;
        goto done;
    }
    if (!(options = slurm_options_parse (what, value, &e))
        || gather_tasks (sp, &ti, &e) < 0 || gather_node (sp, &ti, &e) < 0)
        goto done;
    ti.st.options = options;
    verbose = slurm_options_verbose (options);
    rp_plugin_set_log (log_to_stderr, NULL);
    if (verbose)
        rp_plugin_set_log_level (verbose > 1 ? RP_LOG_DEBUG : RP_LOG_INFO);
    rc = apply (sp, &ti, verbose, &e);
done:
    if (rc < 0)
        slurm_error ("respol: %s", e.text);
    json_decref (options);
    free (ti.ids);
    free (value);
    return rc;
}

int slurm_spank_exit (spank_t sp, int ac, char **av)
{
    (void)sp, (void)ac, (void)av;
    free (option_value);
    free (config_path);
    option_value = config_path = NULL;
    return 0;
}
