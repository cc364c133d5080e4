/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* One target's part of a job (job.h): the job shell (RFC 14 tasks laid
 * out as an RFC 34 task map, the shell plugins' binding), then the
 * binding map or the tasks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/layout.h>
#include <respol/shell.h>

#include "bindmap.h"
#include "cmd.h"
#include "job.h"
#include "launch.h"

int cmd_job_option (struct cmd_job *j, int c, const char *arg)
{
    switch (c) {
    case CMD_JOB_OPT_DRY_RUN:
        j->dry_run = true;
        return 1;
    case CMD_JOB_OPT_FORMAT:
        if (!strcmp (arg, "json"))
            j->json = true;
        else if (!strcmp (arg, "table"))
            j->json = false;
        else
            cmd_usage_error (j->sub, "--format: '%s' is not table or json",
                             arg);
        return 1;
    case CMD_JOB_OPT_SVG:
        j->svg = arg;
        return 1;
    case CMD_JOB_OPT_XML:
        j->xml = arg;
        return 1;
    case 'l':
    case CMD_JOB_OPT_LABEL_IO:
        j->label_io = true;
        return 1;
    case CMD_JOB_OPT_TASKMAP:
        j->taskmap = arg;
        return 1;
    default:
        return 0;
    }
}

void cmd_job_check_options (const struct cmd_job *j)
{
    if (j->xml && !j->dry_run)
        cmd_usage_error (j->sub, "--xml plans on another machine: it needs "
                                 "--dry-run");
    if (j->json && !j->dry_run)
        cmd_usage_error (j->sub, "--format applies to --dry-run");
}

/* The command of the jobspec's first task, NULL-terminated (caller
 * frees the vector, not the strings). */
static char **command_of (const struct cmd_job *j)
{
    json_t *root = rp_jobspec_json (j->js);
    json_t *cmd = json_object_get (json_array_get (json_object_get (root,
                                                                    "tasks"),
                                                   0),
                                   "command");
    size_t n = json_array_size (cmd), i;
    char **argv = calloc (n + 1, sizeof (char *));
    json_t *v;

    if (!argv)
        cmd_die (j->sub, "out of memory");
    json_array_foreach (cmd, i, v)
        argv[i] = (char *)json_string_value (v);
    if (n == 0 || !argv[0])
        cmd_die (j->sub, "the jobspec has no command");
    return argv;
}

static const char *cwd_of (const struct cmd_job *j)
{
    json_t *root = rp_jobspec_json (j->js);
    return json_string_value (json_object_get (
        json_object_get (json_object_get (root, "attributes"), "system"),
        "cwd"));
}

/* The whole machine of an XML file (which rp_shell_init has read in a
 * child already, so it is safe to read here), for the drawing. */
static hwloc_topology_t load_xml (const char *sub, const char *xml)
{
    hwloc_topology_t topo;

    if (hwloc_topology_init (&topo) < 0)
        cmd_die (sub, "hwloc: %s", strerror (errno));
    if (hwloc_topology_set_xml (topo, xml) < 0
        || hwloc_topology_set_io_types_filter (topo,
                                               HWLOC_TYPE_FILTER_KEEP_ALL)
               < 0
        || hwloc_topology_load (topo) < 0) {
        int e = errno;
        hwloc_topology_destroy (topo);
        cmd_die (sub, "--svg: %s: %s", xml, strerror (e));
    }
    return topo;
}

static int show (const struct cmd_job *j, struct rp_shell *sh)
{
    json_t *map = bindmap_json (sh);
    int status = 0;

    if (j->svg) {
        hwloc_topology_t topo = j->topo ? j->topo : load_xml (j->sub, j->xml);
        if (bindmap_svg (j->sub, map, topo, j->svg) < 0)
            status = EXIT_INPUT;
        if (topo != j->topo)
            hwloc_topology_destroy (topo);
    }
    if (j->dry_run) {
        if (j->json)
            cmd_print_json (map);
        else
            bindmap_print_table (stdout, map);
    }
    json_decref (map);
    return status;
}

int cmd_job_run (const struct cmd_job *j)
{
    struct rp_shell *sh;
    rp_error_t error;
    int status;

    if (!(sh = rp_shell_create (j->R, j->js, j->rank, &error))
        || (j->topo && rp_shell_set_topology (sh, j->topo, &error) < 0)
        || (j->xml && rp_shell_set_xml (sh, j->xml, &error) < 0)
        || (j->taskmap
            && rp_shell_set_distribution (sh, j->taskmap, &error) < 0)) {
        rp_shell_destroy (sh);
        cmd_die (j->sub, "%s", error.text);
    }
    if (rp_shell_init (sh, j->cfg, &error) < 0) {
        status = errno == EPROTO ? EXIT_PLUGIN : EXIT_INPUT;
        cmd_warn (j->sub, "%s", error.text);
        rp_shell_destroy (sh);
        return status;
    }
    if ((j->dry_run || j->svg) && (status = show (j, sh)) != 0) {
        rp_shell_destroy (sh);
        return status;
    }
    if (j->dry_run) {
        cmd_launch_unblock_signals ();
        status = 0;
        if (rp_shell_exit (sh, &error) < 0) {
            cmd_warn (j->sub, "%s", error.text);
            status = EXIT_PLUGIN;
        }
    } else {
        const struct rp_layout *layout = rp_shell_layout (sh);
        char **argv = command_of (j);
        struct cmd_launch l = {
            .sub = j->sub,
            .argv = argv,
            .cwd = cwd_of (j),
            .label_io = j->label_io,
            .time_limit = rp_jobspec_duration (j->js),
            .kill_timeout = CMD_KILL_TIMEOUT,
            .pmi = j->pmi && rp_shell_ntasks (sh) == rp_shell_ntasks_total (sh),
            .map = layout ? rp_layout_taskmap (layout) : NULL,
        };
        status = cmd_launch (sh, &l);
        free (argv);
    }
    rp_shell_destroy (sh);
    return status;
}
