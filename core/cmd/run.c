/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol run: the embedded default.  One machine, no daemons: build the
 * jobspec from the command line (the options of respol jobspec create,
 * RFC 25), judge it with the configuration's validators, match it to this
 * machine (its hwloc topology as a resource graph, RFC 4) with the match
 * policy, and run the job shell on the R it gets (RFC 20): the shell
 * plugins bind each task, then the tasks run (core/cmd/launch.c), with a
 * PMI-1 server (RFC 13) for MPI programs.
 *
 *   respol run [OPTIONS] [--] COMMAND [ARGS...]
 *
 * --dry-run stops before anything starts and prints the binding map
 * (core/cmd/bindmap.h) as a table, or as JSON with --format=json;
 * --svg=FILE draws it.  --xml=FILE plans on another machine's topology
 * (an hwloc XML file): a dry run only.
 *
 * Exit status: the job's (launch.h); 1 when the job is refused (invalid,
 * rejected or held by a validator, not satisfiable on this machine, a
 * binding decision refused), 2 on bad usage, 3 when a plugin failed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <respol/config.h>
#include <respol/context.h>
#include <respol/graph.h>
#include <respol/jobspec.h>
#include <respol/layout.h>
#include <respol/match.h>
#include <respol/rset.h>
#include <respol/shell.h>

#include "bindmap.h"
#include "cmd.h"
#include "job.h"
#include "launch.h"

#define SUB "run"

enum {
    OPT_CONFIG = 0x1200,
    OPT_POLICY,
    OPT_VERBOSE,
};

static const struct option run_opts[] = {
    CMD_JOB_LONGOPTS,
    { "config", required_argument, NULL, OPT_CONFIG },
    { "policy", required_argument, NULL, OPT_POLICY },
    { "verbose", no_argument, NULL, OPT_VERBOSE },
    { NULL, 0, NULL, 0 },
};

struct run_options {
    struct cmd_job job;
    const char *config;
    const char *policy;
    struct rp_config *cfg;
};

/* Before the jobspec is built: the configuration, whose plugins may add
 * constraint operators. */
static void load_config (void *ctx)
{
    struct run_options *o = ctx;

    if (!(o->cfg = cmd_load_config (SUB, o->config)))
        exit (EXIT_INPUT);
}

static void usage (FILE *f)
{
    fprintf (
        f,
        "Usage: respol run [OPTIONS] [--] COMMAND [ARGS...]\n\n"
        "Run COMMAND as a job on this machine: match it to the machine's "
        "resources,\nbind each task with the shell plugins, and wait for the "
        "tasks.\n\n"
        "Job options (those of respol jobspec create):\n"
        "  -n, --ntasks=N            number of tasks (default 1)\n"
        "  -c, --cores-per-task=N    cores per task (default 1)\n"
        "  -g, --gpus-per-task=N     GPUs per task (default 0)\n"
        "  -N, --nodes=N             number of nodes (1 here)\n"
        "      --tasks-per-node=N    tasks per node (needs -N, not -n)\n"
        "  -x, --exclusive           the whole machine (needs -N)\n"
        "  -t, --time-limit=FSD      kill the tasks after 30s, 5m, 2h, 1d; a "
        "bare\n"
        "                            number is minutes; 0 is unlimited\n"
        "  -q, --queue=NAME          queue\n"
        "      --requires=QUERY      constraint (RFC 35), may repeat\n"
        "      --env=RULE            -PATTERN drops, NAME=VAL sets, PATTERN "
        "copies\n"
        "  -o, --setopt=KEY[=VAL]    shell option: cpu-affinity=per-task,\n"
        "                            gpu-affinity=off, ...; may repeat\n"
        "  -S, --setattr=KEY[=VAL]   attribute (system. assumed), may "
        "repeat\n"
        "      --cwd=DIR             working directory (default: current)\n\n"
        "Run options:\n" CMD_JOB_HELP
        "      --policy=NAME         the match policy (default: the first of "
        "the\n"
        "                            match stack, else first fit)\n"
        "  -v, --verbose             print plugin messages up to info (-vv: "
        "debug)\n"
        "  -h, --help                print this message\n");
}

static void run_option (int c, const char *arg, void *ctx)
{
    struct run_options *o = ctx;

    if (cmd_job_option (&o->job, c, arg))
        return;
    if (c == OPT_CONFIG)
        o->config = arg;
    else if (c == OPT_POLICY)
        o->policy = arg;
    else /* -v, --verbose */
        cmd_verbose ();
}

/* Validators: 0 to go on, else the exit status. */
static int validate (const struct rp_config *cfg, struct rp_jobspec **js,
                     const struct rp_context *ctx)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *amended = NULL;
    char *reason = NULL;
    int verdict, saved_errno;

    if (!d)
        cmd_die (SUB, "out of memory");
    verdict = rp_config_validate_job (cfg, *js, ctx, NULL, &amended, &reason,
                                      d);
    saved_errno = errno;
    cmd_print_diags (SUB, d);
    rp_diags_destroy (d);
    if (verdict < 0) {
        if (saved_errno == EPROTO)
            return EXIT_PLUGIN;
        cmd_die (SUB, "validating the job: %s", strerror (saved_errno));
    }
    if (verdict == RP_HOLD) {
        cmd_warn (SUB, "held: %s: a job cannot wait here", reason);
        free (reason);
        rp_jobspec_destroy (amended);
        return EXIT_INPUT;
    }
    free (reason);
    if (verdict == RP_REJECT) {
        rp_jobspec_destroy (amended);
        return EXIT_INPUT;
    }
    if (amended) {
        rp_jobspec_destroy (*js);
        *js = amended;
    }
    return 0;
}

/* Match js to g with the policy: R, or NULL after printing why (*status
 * set). */
static struct rp_rset *allocate (struct rp_graph *g, struct rp_config *cfg,
                                 const char *policy,
                                 const struct rp_jobspec *js,
                                 struct rp_context *ctx, int *status)
{
    struct rp_matcher *m = cmd_matcher_create (SUB, g, cfg, policy);
    double now = (double)time (NULL);
    rp_error_t error;
    char buf[sizeof (error.text) + 32];
    struct rp_rset *R;

    rp_context_set_jobid (ctx, 1);
    rp_context_set_submit_time (ctx, now);
    rp_matcher_set_context (m, ctx);
    if (!(R = rp_matcher_allocate (m, 1, js, now, &error))) {
        *status = cmd_match_status (errno);
        cmd_warn (SUB, "%s", cmd_match_error (&error, errno, buf, sizeof (buf)));
    }
    rp_matcher_destroy (m);
    return R;
}

static int run (int argc, char **argv)
{
    struct run_options o = { .job.sub = SUB };
    const struct cmd_create_extra extra = { run_opts, "lv",       run_option,
                                            &o,       usage,      load_config };
    json_t *root = cmd_jobspec_from_args (SUB, argc, argv, &extra);
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js;
    struct rp_config *cfg;
    struct rp_context *ctx;
    struct rp_graph *g;
    struct rp_rset *R = NULL;
    hwloc_topology_t topo = NULL;
    rp_error_t error;
    int status;

    cmd_job_check_options (&o.job);
    if (!d)
        cmd_die (SUB, "out of memory");
    js = rp_jobspec_from_json (root, "command line", RP_JOBSPEC_V1, d);
    json_decref (root);
    if (cmd_print_diags (SUB, d) > 0 || !js)
        exit (EXIT_INPUT);
    rp_diags_destroy (d);
    cmd_memory_limit (SUB, NULL);
    cfg = o.cfg;
    if (!(ctx = cmd_context (&(struct cmd_who){ 0 }, js, &error)))
        cmd_die (SUB, "%s", error.text);
    if ((status = validate (cfg, &js, ctx)) != 0)
        goto done;
    if (o.job.xml)
        g = rp_graph_from_hwloc (o.job.xml, 0, NULL, &error);
    else {
        cmd_hwloc_quick_begin ();
        g = rp_topology_load_local (&topo, &error) == 0
                ? rp_graph_from_topology (topo, 0, NULL, &error)
                : NULL;
        cmd_hwloc_quick_end ();
    }
    if (!g)
        cmd_die (SUB, "%s", error.text);
    if (!(R = allocate (g, cfg, o.policy, js, ctx, &status)))
        goto done;
    o.job.R = R;
    o.job.js = js;
    o.job.rank = 0;
    o.job.topo = topo;
    o.job.cfg = cfg;
    o.job.pmi = true;
    status = cmd_job_run (&o.job);
done:
    if (topo)
        hwloc_topology_destroy (topo);
    rp_rset_destroy (R);
    rp_context_destroy (ctx);
    rp_config_destroy (cfg);
    rp_jobspec_destroy (js);
    return status;
}

int cmd_run (int argc, char **argv)
{
    cmd_launch_block_signals (); /* before any thread starts (launch.h) */
    return run (argc, argv);
}
