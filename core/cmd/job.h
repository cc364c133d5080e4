/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* One target's part of a job, from R and the jobspec to the tasks' end:
 * what respol run and respol shell share (core/cmd/job.c).  The job shell
 * (respol/shell.h) lays out the tasks and runs the shell plugins; a dry
 * run prints the binding map (bindmap.h); otherwise the tasks run
 * (launch.h) in the jobspec's working directory, with its time limit. */
#ifndef RESPOL_CMD_JOB_H
#define RESPOL_CMD_JOB_H

#include <stdbool.h>

#include <hwloc.h>

#include <respol/config.h>
#include <respol/jobspec.h>
#include <respol/rset.h>

struct cmd_job {
    const char *sub;
    const struct rp_rset *R;
    const struct rp_jobspec *js;
    unsigned int rank;
    hwloc_topology_t topo; /* this machine's, or NULL: the shell loads it */
    const char *xml;       /* or another machine's (dry runs) */
    const struct rp_config *cfg;
    const char *taskmap;   /* distribution, or NULL: block */
    bool dry_run;
    bool json;             /* the map as JSON (dry run) */
    const char *svg;       /* draw the map here, or NULL */
    bool label_io;
    bool pmi;              /* serve PMI when every task is local */
};

/* The options both take: --dry-run, --format, --svg, --xml, -l and
 * --label-io, --taskmap.  Add CMD_JOB_LONGOPTS to the long options, "l" to
 * the short ones, and CMD_JOB_HELP to the usage. */
enum {
    CMD_JOB_OPT_DRY_RUN = 0x1400,
    CMD_JOB_OPT_FORMAT,
    CMD_JOB_OPT_SVG,
    CMD_JOB_OPT_XML,
    CMD_JOB_OPT_LABEL_IO,
    CMD_JOB_OPT_TASKMAP,
};
#define CMD_JOB_LONGOPTS                                                       \
    { "dry-run", no_argument, NULL, CMD_JOB_OPT_DRY_RUN },                     \
        { "format", required_argument, NULL, CMD_JOB_OPT_FORMAT },             \
        { "svg", required_argument, NULL, CMD_JOB_OPT_SVG },                   \
        { "xml", required_argument, NULL, CMD_JOB_OPT_XML },                   \
        { "label-io", no_argument, NULL, CMD_JOB_OPT_LABEL_IO },               \
    {                                                                          \
        "taskmap", required_argument, NULL, CMD_JOB_OPT_TASKMAP                \
    }
#define CMD_JOB_HELP                                                           \
    "      --dry-run             print the binding map, start nothing\n"      \
    "      --format=table|json   the map's form (default table)\n"            \
    "      --svg=FILE            draw the map (hwloc's lstopo) into FILE\n"   \
    "      --xml=FILE            plan on this hwloc XML topology (with "       \
    "--dry-run)\n"                                                            \
    "  -l, --label-io            prefix each output line with the task id\n"  \
    "      --taskmap=block|cyclic[:N]  how tasks are numbered (default "       \
    "block)\n"                                                                \
    "      --config=FILE         the plugin configuration (default "           \
    "$RESPOL_CONFIG,\n"                                                       \
    "                            else the installed one)\n"

/* Record option c (with its argument) in j: 1 when it was one of these,
 * else 0.  A bad --format is a usage error. */
int cmd_job_option (struct cmd_job *j, int c, const char *arg);
/* The usage errors of their combinations (--xml and --format without
 * --dry-run). */
void cmd_job_check_options (const struct cmd_job *j);

/* The exit status: the job's (launch.h), else 1 when the shell refuses
 * (a bad layout, a decision refused, a bad option), 3 when a plugin
 * failed; messages on stderr as "respol: SUB: ...". */
int cmd_job_run (const struct cmd_job *j);

#endif
