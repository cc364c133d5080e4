/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol's job shell inside Flux: a flux-shell plugin that runs the
 * configuration's stack of shell plugins (api/respol/shell.h) for every
 * task of a Flux job, as respol run does, and applies each task's
 * decision (CPUs, memory policy, environment) to the task Flux starts.
 *
 * Enabled by one line in the shell's initrc (or a file given with
 * -o userrc=FILE):
 *   plugin.load { file = "LIBDIR/respol/flux/respol-shell.so" }
 * optionally with conf = { config = "/etc/respol/flux.yaml" }; without it
 * the configuration is $RESPOL_CONFIG (the job's environment, which the
 * shell runs with), else respol's default.  -o respol=off turns it off
 * for one job.
 *
 * Where things come from: R, the jobspec and this shell's broker rank
 * (R's rank) from the shell's info, the topology from the shell's copy
 * of its broker's (the one R was made from: FLUX_HWLOC_XMLFILE reaches
 * both), the task ids from Flux's task map.  When respol's layout of R
 * and the jobspec gives this rank exactly Flux's task ids (the default
 * block map, or -o taskmap=cyclic[:N], which respol lays out the same),
 * the shell lays the tasks out itself, shares included; otherwise (a
 * manual or hostfile task map) the tasks are Flux's, each sharing all the
 * job's cores and GPUs on this rank, which per-task plugins split evenly.
 *
 * Options.  -o respol.KEY=VALUE gives respol's plugins the shell option
 * KEY.  Keys Flux's own plugins own, cpu-affinity and gpu-affinity, are
 * hidden from respol's plugins: -o cpu-affinity=... is Flux's, and
 * -o respol.cpu-affinity=... is respol's.  Other keys reach respol's
 * plugins directly too (-o mem-affinity=...), respol.KEY winning.
 *
 * Which decision wins.  Flux's built-in cpu-affinity and gpu-affinity run
 * first (they are loaded before initrc's plugins), respol after: its
 * CPU binding replaces Flux's in the task's process (task.exec), its
 * variables replace Flux's in the task's command (task.init).  Where
 * respol's stack leaves a task undecided (respol.cpu-affinity=off), Flux's
 * binding stays.
 *
 * Environment.  Flux gives the task the environment of its command after
 * task.exec, so a decision's variables are applied in task.init: each
 * variable a plugin set, and each one it unset that the job's environment
 * has.  Variables changed in task_exec do not reach the task under Flux.
 * The RESPOL_* variables of respol run are not set: Flux's FLUX_TASK_RANK,
 * FLUX_TASK_LOCAL_ID and FLUX_JOB_SIZE say the same.
 *
 * Failures.  A decision the shell refuses, a plugin that fails, a
 * configuration that does not load: the job stops before any task starts,
 * with respol's message as the shell's fatal error.  A task whose binding
 * the system refuses exits 1 with the message on its stderr, before it
 * executes its command.
 */
#define FLUX_SHELL_PLUGIN_NAME "respol"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <flux/core.h>
#include <flux/shell.h>
#include <hwloc.h>
#include <jansson.h>

#include <respol/config.h>
#include <respol/idset.h>
#include <respol/jobspec.h>
#include <respol/layout.h>
#include <respol/rset.h>
#include <respol/shell.h>

#define AUX_KEY "respol::shell"

struct rshell {
    struct rp_config *cfg;
    struct rp_rset *R;
    struct rp_jobspec *js;
    struct rp_shell *sh;
    json_t *environ; /* the job's environment: names a plugin may unset */
};

static void rshell_destroy (struct rshell *rs)
{
    if (!rs)
        return;
    rp_shell_destroy (rs->sh);
    rp_jobspec_destroy (rs->js);
    rp_rset_destroy (rs->R);
    rp_config_destroy (rs->cfg);
    json_decref (rs->environ);
    free (rs);
}

/* --- plugin logs ---------------------------------------------------------- */

static void log_to_shell (const char *instance, int level, const char *msg,
                          void *arg)
{
    int l = level <= RP_LOG_ERR       ? FLUX_SHELL_ERROR
            : level == RP_LOG_WARNING ? FLUX_SHELL_WARN
            : level == RP_LOG_NOTICE  ? FLUX_SHELL_NOTICE
            : level == RP_LOG_INFO    ? FLUX_SHELL_DEBUG
                                      : FLUX_SHELL_TRACE;
    (void)arg;
    flux_shell_log (FLUX_SHELL_PLUGIN_NAME, l, __FILE__, __LINE__, "%s: %s",
                    instance, msg);
}

/* --- the option -o respol ------------------------------------------------- */

/* The respol option: 1 (on, *opts the object of KEY=VALUE or NULL), 0
 * (off), -1 with error. */
static int read_option (flux_shell_t *shell, json_t **opts, rp_error_t *error)
{
    json_t *o = NULL;
    int rc = flux_shell_getopt_unpack (shell, "respol", "o", &o);

    *opts = NULL;
    if (rc < 0)
        return rp_error_set (error, EINVAL, "option respol: cannot read it");
    if (rc == 0)
        return 1;
    if (json_is_object (o)) {
        *opts = o;
        return 1;
    }
    if (json_is_false (o)
        || (json_is_integer (o) && json_integer_value (o) == 0)
        || (json_is_string (o) && !strcmp (json_string_value (o), "off")))
        return 0;
    if (json_is_true (o) || (json_is_integer (o) && json_integer_value (o) == 1)
        || (json_is_string (o) && !strcmp (json_string_value (o), "on")))
        return 1;
    return rp_error_set (error, EINVAL,
                         "option respol: must be on, off, or respol.KEY=VALUE "
                         "options for respol's shell plugins");
}

static int set_options (struct rp_shell *sh, json_t *opts, rp_error_t *error)
{
    const char *key;
    json_t *v;

    json_object_foreach (opts, key, v) {
        if (rp_shell_set_option (sh, key, json_incref (v), error) < 0)
            return -1;
    }
    return 0;
}

/* --- what the shell knows ------------------------------------------------- */

/* The jobspec for respol's plugins: Flux's, less the shell options Flux's
 * own plugins own (and respol's, which the shell passes as its own). */
static struct rp_jobspec *jobspec_of (json_t *jobspec, rp_error_t *error)
{
    static const char *const hidden[] = { "cpu-affinity", "gpu-affinity",
                                          "respol", NULL };
    json_t *copy = json_deep_copy (jobspec);
    json_t *opts;
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js = NULL;

    if (!copy || !d) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto out;
    }
    opts = json_object_get (
        json_object_get (
            json_object_get (json_object_get (copy, "attributes"), "system"),
            "shell"),
        "options");
    for (size_t i = 0; hidden[i]; i++)
        json_object_del (opts, hidden[i]);
    if (!(js = rp_jobspec_from_json (copy, "jobspec", RP_JOBSPEC_V1, d)))
        rp_error_set (error, EINVAL, "%s",
                      rp_diags_count (d) > 0 ? rp_diags_text (d, 0)
                                             : "jobspec: not valid");
out:
    json_decref (copy);
    rp_diags_destroy (d);
    return js;
}

static struct rp_config *config_of (flux_plugin_t *p, rp_error_t *error)
{
    const char *path = NULL;
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;

    if (!d) {
        rp_error_set (error, ENOMEM, "out of memory");
        return NULL;
    }
    if (flux_plugin_get_conf (p)
        && flux_plugin_conf_unpack (p, "{s?s}", "config", &path) < 0) {
        rp_diags_destroy (d);
        rp_error_set (error, EINVAL, "plugin conf: config must be a path");
        return NULL;
    }
    if (!(cfg = rp_config_load (path, 0, d)))
        rp_error_set (error, errno, "%s",
                      rp_diags_count (d) > 0 ? rp_diags_text (d, 0)
                                             : strerror (errno));
    rp_diags_destroy (d);
    return cfg;
}

/* The topology R was made from: the shell's copy of its broker's.  None
 * (the shell could not fetch it): respol discovers this machine. */
static int set_topology (flux_shell_t *shell, struct rp_shell *sh,
                         rp_error_t *error)
{
    const char *xml = NULL;
    hwloc_topology_t topo;
    int rc;

    if (flux_shell_get_hwloc_xml (shell, &xml) < 0 || !xml)
        return 0;
    if (hwloc_topology_init (&topo) < 0)
        return rp_error_set (error, ENOMEM, "hwloc: out of memory");
    if (hwloc_topology_set_io_types_filter (topo, HWLOC_TYPE_FILTER_KEEP_ALL)
            < 0
        || hwloc_topology_set_xmlbuffer (topo, xml, (int)strlen (xml) + 1) < 0
        || hwloc_topology_load (topo) < 0) {
        hwloc_topology_destroy (topo);
        return rp_error_set (error, EINVAL,
                             "hwloc: cannot read the shell's topology");
    }
    rc = rp_shell_set_topology (sh, topo, error);
    hwloc_topology_destroy (topo);
    return rc;
}

/* --- tasks ---------------------------------------------------------------- */

/* The distribution respol lays out as Flux's -o taskmap does, or NULL
 * (block, or a map respol does not make). */
static const char *distribution_of (flux_shell_t *shell, char *buf, size_t size)
{
    const char *scheme = NULL, *value = NULL;
    json_t *o = NULL;

    if (flux_shell_getopt_unpack (shell, "taskmap", "o", &o) <= 0)
        return NULL;
    if (json_is_string (o))
        return json_string_value (o);
    if (json_unpack (o, "{s:s s?s}", "scheme", &scheme, "value", &value) < 0
        || strcmp (scheme, "cyclic") != 0)
        return NULL;
    if (!value || !*value)
        return "cyclic";
    snprintf (buf, size, "cyclic:%s", value);
    return buf;
}

/* Does layout give this rank exactly the tasks Flux runs here? */
static bool layout_agrees (const struct rp_layout *layout,
                           const struct rp_idset *ids, int ntotal)
{
    unsigned int id = rp_idset_first (ids);

    if (rp_layout_ntasks (layout) != (size_t)ntotal
        || rp_layout_ntasks_local (layout) != rp_idset_count (ids))
        return false;
    for (size_t i = 0; id != RP_IDSET_INVALID_ID;
         i++, id = rp_idset_next (ids, id))
        if (rp_layout_task_global_id (layout, i) != (long)id)
            return false;
    return true;
}

/* Flux's tasks on this rank, added to the shell, with the layout's shares
 * when its count here is Flux's (layout may be NULL). */
static int add_flux_tasks (struct rshell *rs, unsigned int rank,
                           const struct rp_idset *ids,
                           const struct rp_layout *layout, rp_error_t *error)
{
    bool shares =
        layout && rp_layout_ntasks_local (layout) == rp_idset_count (ids);
    size_t i = 0;

    for (unsigned int id = rp_idset_first (ids); id != RP_IDSET_INVALID_ID;
         id = rp_idset_next (ids, id), i++) {
        const struct rp_idset *cores = shares ? rp_layout_task_cores (layout, i)
                                              : rp_rset_cores (rs->R, rank);
        const struct rp_idset *gpus = shares ? rp_layout_task_gpus (layout, i)
                                             : rp_rset_gpus (rs->R, rank);
        if (rp_shell_add_task (rs->sh, id, cores, gpus, error) < 0)
            return -1;
    }
    return 0;
}

static int set_tasks (flux_shell_t *shell, struct rshell *rs, unsigned int rank,
                      rp_error_t *error)
{
    char buf[64];
    const char *dist = distribution_of (shell, buf, sizeof (buf));
    const char *taskids = NULL;
    struct rp_layout *layout;
    struct rp_idset *ids;
    rp_error_t e;
    int ntotal = 0, rc;

    if (flux_shell_rank_info_unpack (shell, -1, "{s:s}", "taskids", &taskids)
            < 0
        || flux_shell_info_unpack (shell, "{s:i}", "ntasks", &ntotal) < 0)
        return rp_error_set (error, EPROTO, "cannot read the shell's tasks");
    if (!(ids = rp_idset_decode (taskids, &e)))
        return rp_error_set (error, EPROTO, "task ids '%s': %s", taskids,
                             e.text);
    layout = rp_layout_create (rs->R, rs->js, rank, dist, &e);
    if (layout && layout_agrees (layout, ids, ntotal))
        rc = dist ? rp_shell_set_distribution (rs->sh, dist, error) : 0;
    else {
        shell_debug ("tasks %s: Flux's task map, not respol's layout (%s)",
                     taskids, layout ? "other ids" : e.text);
        rc = add_flux_tasks (rs, rank, ids, layout, error);
    }
    rp_layout_destroy (layout);
    rp_idset_destroy (ids);
    return rc;
}

/* --- shell.init ----------------------------------------------------------- */

static int rshell_setup (flux_plugin_t *p, flux_shell_t *shell,
                         struct rshell *rs, json_t *opts, rp_error_t *error)
{
    json_t *R = NULL, *jobspec = NULL;
    char *env = NULL;
    int rank = -1;

    if (flux_shell_info_unpack (shell, "{s:o s:o}", "R", &R, "jobspec",
                                &jobspec)
            < 0
        || flux_shell_rank_info_unpack (shell, -1, "{s:i}", "broker_rank",
                                        &rank)
               < 0
        || flux_shell_get_environ (shell, &env) < 0)
        return rp_error_set (error, EPROTO, "cannot read the shell's info");
    rs->environ = json_loads (env, 0, NULL);
    free (env);
    if (!(rs->R = rp_rset_from_json (R, error))
        || !(rs->js = jobspec_of (jobspec, error))
        || !(rs->cfg = config_of (p, error))
        || !(rs->sh =
                 rp_shell_create (rs->R, rs->js, (unsigned int)rank, error))
        || set_options (rs->sh, opts, error) < 0
        || set_topology (shell, rs->sh, error) < 0
        || set_tasks (shell, rs, (unsigned int)rank, error) < 0)
        return -1;
    return rp_shell_init (rs->sh, rs->cfg, error);
}

static int shell_init (flux_plugin_t *p, const char *topic,
                       flux_plugin_arg_t *args, void *data)
{
    flux_shell_t *shell = flux_plugin_get_shell (p);
    struct rshell *rs;
    json_t *opts;
    rp_error_t error;
    int on;

    (void)topic;
    (void)args;
    (void)data;
    if (!shell)
        return -1;
    if ((on = read_option (shell, &opts, &error)) < 0)
        shell_die (1, "%s", error.text);
    if (on == 0) {
        shell_debug ("off for this job (-o respol=off)");
        return 0;
    }
    rp_plugin_set_log (log_to_shell, NULL);
    rp_plugin_set_log_level (RP_LOG_DEBUG); /* the shell's verbosity filters */
    if (!(rs = calloc (1, sizeof (*rs))))
        shell_die (1, "out of memory");
    if (flux_plugin_aux_set (p, AUX_KEY, rs, (flux_free_f)rshell_destroy) < 0) {
        rshell_destroy (rs);
        shell_die (1, "out of memory");
    }
    if (rshell_setup (p, shell, rs, opts, &error) < 0)
        shell_die (1, "%s", error.text);
    return 0;
}

/* --- tasks, in the shell and in their processes --------------------------- */

static struct rp_task *current_task (flux_plugin_t *p, struct rshell **rsp,
                                     flux_shell_task_t **taskp)
{
    struct rshell *rs = flux_plugin_aux_get (p, AUX_KEY);
    flux_shell_task_t *task;
    int local = -1;

    if (!rs || !rs->sh
        || !(task = flux_shell_current_task (flux_plugin_get_shell (p)))
        || flux_shell_task_info_unpack (task, "{s:i}", "localid", &local) < 0)
        return NULL;
    *rsp = rs;
    if (taskp)
        *taskp = task;
    return rp_shell_task (rs->sh, (size_t)local);
}

/* The variables a plugin set, and those it unset that the job has. */
static int apply_env (struct rshell *rs, struct rp_task *t, flux_cmd_t *cmd)
{
    char *const *envp = rp_task_envp (t);
    const char *name;
    json_t *v;

    if (!envp)
        return -1;
    for (size_t i = 0; envp[i]; i++) {
        const char *eq = strchr (envp[i], '=');
        char *n = strndup (envp[i], (size_t)(eq - envp[i]));
        int rc = 0;
        if (!n)
            return -1;
        if (rp_task_env_by (t, n))
            rc = flux_cmd_setenvf (cmd, 1, n, "%s", eq + 1);
        free (n);
        if (rc < 0)
            return -1;
    }
    json_object_foreach (rs->environ, name, v) {
        if (rp_task_env_by (t, name) && !rp_task_getenv (t, name))
            flux_cmd_unsetenv (cmd, name);
    }
    return 0;
}

static int task_init (flux_plugin_t *p, const char *topic,
                      flux_plugin_arg_t *args, void *data)
{
    flux_shell_task_t *task = NULL;
    struct rshell *rs = NULL;
    struct rp_task *t = current_task (p, &rs, &task);

    (void)topic;
    (void)args;
    (void)data;
    if (!rs)
        return 0; /* off for this job */
    if (!t)
        shell_die (1, "task.init: a task the shell did not lay out");
    if (apply_env (rs, t, flux_shell_task_cmd (task)) < 0)
        shell_die (1, "task %lu: cannot set its environment",
                   rp_task_global_id (t));
    return 0;
}

/* In the task's process, before it executes its command. */
static int task_exec (flux_plugin_t *p, const char *topic,
                      flux_plugin_arg_t *args, void *data)
{
    struct rshell *rs = NULL;
    struct rp_task *t = current_task (p, &rs, NULL);
    rp_error_t error;

    (void)topic;
    (void)args;
    (void)data;
    if (!t)
        return 0;
    if (rp_task_exec (t, &error) < 0) {
        dprintf (STDERR_FILENO, "respol: task %lu: %s\n", rp_task_global_id (t),
                 error.text);
        _exit (1);
    }
    return 0;
}

static int task_exit (flux_plugin_t *p, const char *topic,
                      flux_plugin_arg_t *args, void *data)
{
    flux_shell_task_t *task = NULL;
    struct rshell *rs = NULL;
    struct rp_task *t = current_task (p, &rs, &task);
    rp_error_t error;
    int status = 0;

    (void)topic;
    (void)args;
    (void)data;
    if (!t)
        return 0;
    if (flux_shell_task_info_unpack (task, "{s:i}", "wait_status", &status) < 0)
        shell_log_error ("task %lu: no wait status", rp_task_global_id (t));
    else if (rp_task_exited (t, status, &error) < 0)
        shell_log_error ("task %lu: %s", rp_task_global_id (t), error.text);
    return 0;
}

static int shell_exit (flux_plugin_t *p, const char *topic,
                       flux_plugin_arg_t *args, void *data)
{
    struct rshell *rs = flux_plugin_aux_get (p, AUX_KEY);
    rp_error_t error;

    (void)topic;
    (void)args;
    (void)data;
    if (rs && rs->sh && rp_shell_exit (rs->sh, &error) < 0)
        shell_log_error ("%s", error.text);
    return 0;
}

int flux_plugin_init (flux_plugin_t *p)
{
    if (flux_plugin_set_name (p, FLUX_SHELL_PLUGIN_NAME) < 0
        || flux_plugin_add_handler (p, "shell.init", shell_init, NULL) < 0
        || flux_plugin_add_handler (p, "task.init", task_init, NULL) < 0
        || flux_plugin_add_handler (p, "task.exec", task_exec, NULL) < 0
        || flux_plugin_add_handler (p, "task.exit", task_exit, NULL) < 0
        || flux_plugin_add_handler (p, "shell.exit", shell_exit, NULL) < 0)
        return -1;
    return 0;
}
