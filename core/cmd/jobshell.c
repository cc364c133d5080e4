/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol shell: one execution target's part of a job, for a launcher that
 * starts it on each node (pdsh, an MPI launcher, a resource manager):
 * the tasks of R (RFC 20) and the jobspec (RFC 25) laid out on this
 * target's rank (RFC 34 task map: every rank computes the same), bound
 * by the shell plugins, run and waited for.
 *
 *   respol shell [OPTIONS] -R FILE JOBSPEC
 *
 * --rank=N says which target of R this machine is; by default, the rank
 * whose host name (R's nodelist) is this machine's.  The PMI-1 server
 * (RFC 13) serves the tasks only when every task of the job runs here:
 * across nodes, MPI programs wire up through their own launcher.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <respol/jobspec.h>
#include <respol/rset.h>

#include "cmd.h"
#include "job.h"
#include "launch.h"

#define SUB "shell"

enum {
    OPT_HELP = 0x1300,
    OPT_RANK,
    OPT_CONFIG,
};

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "R", required_argument, NULL, 'R' },
    { "rank", required_argument, NULL, OPT_RANK },
    CMD_JOB_LONGOPTS,
    { "config", required_argument, NULL, OPT_CONFIG },
    { "verbose", no_argument, NULL, 'v' },
    { NULL, 0, NULL, 0 },
};
#define SHORTOPTS "+hvlR:"

static void usage (FILE *f)
{
    fprintf (
        f,
        "Usage: respol shell [OPTIONS] -R FILE JOBSPEC\n\n"
        "Run this machine's tasks of a job whose resources are R and whose\n"
        "jobspec (V1, RFC 25) is JOBSPEC ('-' is stdin).\n\n"
        "Options:\n"
        "  -R, --R=FILE              the job's R (RFC 20)\n"
        "      --rank=N              this machine's rank in R (default: the "
        "rank of\n"
        "                            this host name in R's nodelist)\n"
        CMD_JOB_HELP
        "  -v, --verbose             print plugin messages up to info (-vv: "
        "debug)\n"
        "  -h, --help                print this message\n");
}

struct options {
    struct cmd_job job;
    const char *R;
    const char *rank;
    const char *config;
};

static void parse (struct options *o, int argc, char **argv)
{
    int c;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, SHORTOPTS, opts, NULL)) != -1) {
        switch (c) {
        case 'h':
        case OPT_HELP:
            usage (stdout);
            exit (0);
        case 'v':
            cmd_verbose ();
            break;
        case 'R':
            o->R = optarg;
            break;
        case OPT_RANK:
            o->rank = optarg;
            break;
        case OPT_CONFIG:
            o->config = optarg;
            break;
        default:
            if (cmd_job_option (&o->job, c, optarg))
                break;
            cmd_bad_option (SUB, "", c, argv, SHORTOPTS, opts);
        }
    }
    if (!o->R)
        cmd_usage_error (SUB, "missing -R FILE (the job's R)");
    if (optind == argc)
        cmd_usage_error (SUB, "missing JOBSPEC argument");
    if (optind + 1 < argc)
        cmd_usage_error (SUB, "unexpected argument '%s'", argv[optind + 1]);
    if (!strcmp (o->R, "-") && !strcmp (argv[optind], "-"))
        cmd_usage_error (SUB, "R and the jobspec cannot both be stdin");
    cmd_job_check_options (&o->job);
}

static struct rp_rset *load_R (const char *path)
{
    FILE *f = strcmp (path, "-") ? fopen (path, "r") : stdin;
    struct rp_rset *R;
    rp_error_t error;
    char *text;

    if (!f)
        cmd_die (SUB, "%s: %s", path, strerror (errno));
    text = cmd_read_rset (SUB, f, strcmp (path, "-") ? path : "stdin", NULL);
    if (f != stdin)
        fclose (f);
    if (!(R = rp_rset_decode (text, &error)))
        cmd_die (SUB, "%s: %s", strcmp (path, "-") ? path : "stdin",
                 error.text);
    free (text);
    return R;
}

/* --rank, else the rank of this host name in R. */
static unsigned int rank_of (const char *arg, const struct rp_rset *R)
{
    char host[HOST_NAME_MAX + 1];
    char *end;
    unsigned long v;
    long rank;

    if (arg) {
        errno = 0;
        v = strtoul (arg, &end, 10);
        if (errno || end == arg || *end || *arg == '-' || v > UINT_MAX)
            cmd_usage_error (SUB, "--rank: '%s' is not a rank", arg);
        if (!rp_idset_test (rp_rset_ranks (R), (unsigned int)v))
            cmd_die (SUB, "rank %lu is not in R", v);
        return (unsigned int)v;
    }
    if (gethostname (host, sizeof (host)) < 0)
        cmd_die (SUB, "gethostname: %s", strerror (errno));
    host[sizeof (host) - 1] = '\0';
    if ((rank = rp_rset_rank_of (R, host)) < 0)
        cmd_die (SUB, "this host, %s, is not in R's nodelist: give --rank",
                 host);
    return (unsigned int)rank;
}

int cmd_shell (int argc, char **argv)
{
    struct options o = { .job.sub = SUB };
    struct rp_rset *R;
    struct rp_jobspec *js;
    struct rp_config *cfg;
    hwloc_topology_t topo = NULL;
    rp_error_t error;
    int status;

    cmd_launch_block_signals (); /* before any thread starts (launch.h) */
    parse (&o, argc, argv);
    cmd_memory_limit (SUB, NULL);
    R = load_R (o.R);
    /* The configuration first: its plugins may add constraint operators
     * the jobspec uses. */
    if (!(cfg = cmd_load_config (SUB, o.config)))
        exit (EXIT_INPUT);
    js = cmd_load_jobspec (SUB, argv[optind], RP_JOBSPEC_V1);
    if (!o.job.xml) {
        cmd_hwloc_quick_begin ();
        if (rp_topology_load_local (&topo, &error) < 0)
            cmd_die (SUB, "%s", error.text);
        cmd_hwloc_quick_end ();
    }
    o.job.R = R;
    o.job.js = js;
    o.job.rank = rank_of (o.rank, R);
    o.job.topo = topo;
    o.job.cfg = cfg;
    o.job.pmi = true;
    status = cmd_job_run (&o.job);
    if (topo)
        hwloc_topology_destroy (topo);
    rp_config_destroy (cfg);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
    return status;
}
