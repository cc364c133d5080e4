/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol match: match one jobspec (RFC 14, RFC 25) to a resource graph
 * (RFC 4) with a match policy, and print the allocation as R (RFC 20).
 *
 *   respol match allocate|satisfiability [--config=FILE] [--policy=NAME]
 *       [--profile=canonical|v1] [--now=SECONDS] [--jobid=N]
 *       RESOURCE-OPTION JOBSPEC
 *
 * allocate prints R on one line (compact, sorted keys, as `respol R`
 * prints it); satisfiability prints "satisfiable".  A jobspec that does
 * not fit exits 1 with
 *   respol: match: never satisfiable: needs ...     (ENODEV)
 *   respol: match: not satisfiable now: needs ...   (EBUSY: down,
 *                                                    drained or held)
 * The jobspec is read as `respol jobspec validate` reads it, its errors
 * printed the same way, but with the canonical profile (RFC 14) by
 * default: the requests a matcher is for (a slot of nodes, range counts,
 * sockets, several top-level resources, a slot inside a slot) are RFC 14,
 * and Fluxion's resource-query takes them; --profile=v1 restricts it to
 * RFC 25, what a Flux instance accepts at submission.
 *
 * The policy: --policy=NAME is rp_config_policy (the configuration's
 * "match" stack entry of that instance name, else the plugin of that
 * name).  Without --policy, the first entry of the match stack; when
 * the configuration has none, the matcher's built-in first fit, which is
 * what the shipped plugin "first" does, so that matching works without
 * loading a plugin (from a build tree, or below a directory the plugin
 * loader refuses).  The validator stack is not run: `respol jobspec
 * validate --config` does that.
 *
 * --now sets R's starttime (and expiration = now + duration), so that
 * output can be compared byte for byte; the default is the current time
 * in whole seconds.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <respol/config.h>
#include <respol/context.h>
#include <respol/graph.h>
#include <respol/jobspec.h>
#include <respol/match.h>
#include <respol/rset.h>

#include "cmd.h"

#define SUB "match"

enum {
    OPT_HELP = 256,
    OPT_CONFIG,
    OPT_POLICY,
    OPT_PROFILE,
    OPT_NOW,
    OPT_JOBID,
    OPT_EXPLAIN,
};

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "config", required_argument, NULL, OPT_CONFIG },
    { "policy", required_argument, NULL, OPT_POLICY },
    { "profile", required_argument, NULL, OPT_PROFILE },
    { "now", required_argument, NULL, OPT_NOW },
    { "jobid", required_argument, NULL, OPT_JOBID },
    { "explain", no_argument, NULL, OPT_EXPLAIN },
    CMD_WHO_LONGOPTS,
    { "verbose", no_argument, NULL, 'v' },
    CMD_RESOURCE_LONGOPTS,
    { NULL, 0, NULL, 0 },
};
#define SHORTOPTS "hv" CMD_RESOURCE_SHORTOPTS

struct options {
    const char *config;
    const char *policy;
    enum rp_jobspec_profile profile;
    double now;
    uint64_t jobid;
    bool explain;
    struct cmd_who who;
    struct cmd_resources res;
};

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: respol match allocate|satisfiability [OPTIONS] "
             "RESOURCE-OPTION JOBSPEC\n\n"
             "Subcommands:\n"
             "  allocate        allocate resources to JOBSPEC, print them "
             "as R\n"
             "  satisfiability  say whether JOBSPEC could ever be "
             "allocated\n\n"
             "JOBSPEC '-' is stdin.\n\n"
             "Options:\n"
             "      --config=FILE   the plugin configuration (default "
             "$RESPOL_CONFIG,\n"
             "                      else the installed one)\n"
             "      --policy=NAME   the match policy (default: the first "
             "of the match\n"
             "                      stack, else first fit)\n"
             "      --profile=NAME  jobspec profile: canonical (RFC 14, the "
             "default)\n"
             "                      or v1 (RFC 25)\n"
             "      --now=SECONDS   the start time written in R (default: "
             "now)\n"
             "      --jobid=N       the job's id (default 1)\n"
             "      --explain       say why the allocation is what it is, "
             "on stderr\n"
             "  -v, --verbose       print plugin messages up to info "
             "(-vv: debug)\n" CMD_WHO_HELP
             "  -h, --help          print this message\n\n%s",
             cmd_resources_help);
}

/* --- shared with respol query (cmd.h) ------------------------------------ */

struct rp_config *cmd_match_config (const char *sub, const char *path)
{
    struct rp_config *cfg = cmd_load_config (sub, path);

    if (!cfg)
        exit (EXIT_INPUT);
    return cfg;
}

struct rp_matcher *cmd_matcher_create (const char *sub, struct rp_graph *g,
                                       struct rp_config *cfg,
                                       const char *policy)
{
    const struct rp_stack *stack = rp_config_stack (cfg, RP_PLUGIN_MATCH);
    const struct rp_plugin *p = NULL;
    struct rp_matcher *m;
    rp_error_t error;

    if (policy || rp_stack_count (stack) > 0) {
        if (!(p = rp_config_policy (cfg, policy, &error))) {
            rp_graph_destroy (g);
            cmd_die (sub, "%s", error.text);
        }
    }
    if (!(m = rp_matcher_create (g, &error)))
        cmd_die (sub, "%s", error.text);
    if (p && rp_matcher_set_policy (m, p, &error) < 0) {
        rp_matcher_destroy (m);
        cmd_die (sub, "%s", error.text);
    }
    return m;
}

const char *cmd_match_error (const rp_error_t *error, int errnum, char *buf,
                             size_t size)
{
    const char *what = "";

    if (errnum == ENODEV)
        what = "never satisfiable: ";
    else if (errnum == EBUSY)
        what = "not satisfiable now: ";
    snprintf (buf, size, "%s%s", what, error->text);
    return buf;
}

static json_int_t jint (const json_t *o, const char *key)
{
    return json_integer_value (json_object_get (o, key));
}

/* "; 1 busy, 2 pruned by the policy" for the request's refusals. */
static void refusals (const json_t *r, char *buf, size_t size)
{
    static const struct {
        const char *key, *words;
    } kinds[] = {
        { "busy", "busy (held, down or drained)" },
        { "constraint", "refused by the constraints" },
        { "id", "not among the ids asked" },
        { "no_fit", "without room for what it needs below" },
        { "pruned", "pruned by the policy" },
    };
    size_t n = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < sizeof (kinds) / sizeof (kinds[0]); i++) {
        json_int_t v = jint (r, kinds[i].key);
        if (v > 0 && n < size)
            n += (size_t)snprintf (buf + n, size - n, "%s%lld %s",
                                   n ? ", " : "; ", (long long)v,
                                   kinds[i].words);
    }
}

void cmd_explain_print (const char *sub, const struct rp_matcher *m)
{
    json_t *o = rp_matcher_explanation (m);
    const char *key;
    json_t *v;
    size_t i;
    char buf[1024];
    size_t n = 0;

    if (!o)
        return;
    fprintf (stderr, "respol: %s: explain: policy %s: %s%s%s\n", sub,
             json_string_value (json_object_get (o, "policy")),
             json_string_value (json_object_get (o, "outcome")),
             json_object_get (o, "reason") ? ": " : "",
             json_object_get (o, "reason")
                 ? json_string_value (json_object_get (o, "reason"))
                 : "");
    json_array_foreach (json_object_get (o, "requests"), i, v) {
        size_t k;
        json_t *t;
        char in_graph[64] = "";
        refusals (v, buf, sizeof (buf));
        if (json_object_get (v, "in_graph"))
            snprintf (in_graph, sizeof (in_graph), "%lld in the graph, ",
                      (long long)jint (v, "in_graph"));
        fprintf (stderr,
                 "respol: %s: explain: %s (count %s): %sconsidered %lld, "
                 "taken %lld%s\n",
                 sub, json_string_value (json_object_get (v, "request")),
                 json_string_value (json_object_get (v, "count")), in_graph,
                 (long long)jint (v, "considered"), (long long)jint (v, "taken"),
                 buf);
        n = 0;
        buf[0] = '\0';
        json_array_foreach (json_object_get (v, "top"), k, t)
            if (n < sizeof (buf))
                n += (size_t)snprintf (
                    buf + n, sizeof (buf) - n, "%s%s %lld", n ? ", " : "",
                    json_string_value (json_object_get (t, "vertex")),
                    (long long)jint (t, "score"));
        if (n)
            fprintf (stderr, "respol: %s: explain:   top scores: %s\n", sub,
                     buf);
    }
    n = 0;
    buf[0] = '\0';
    json_object_foreach (json_object_get (o, "pruned"), key, v)
        if (n < sizeof (buf))
            n += (size_t)snprintf (buf + n, sizeof (buf) - n, "%s%lld %s",
                                   n ? ", " : "",
                                   (long long)json_integer_value (v), key);
    if (n)
        fprintf (stderr, "respol: %s: explain: pruned by the policy: %s\n",
                 sub, buf);
    json_decref (o);
}

int cmd_match_status (int errnum)
{
    return errnum == EPROTO ? EXIT_PLUGIN : EXIT_INPUT;
}

int cmd_parse_now (const char *s, double *now)
{
    char *end;
    double d;

    errno = 0;
    d = strtod (s, &end);
    if (errno != 0 || end == s || *end != '\0' || !isfinite (d) || d < 0)
        return -1;
    *now = d;
    return 0;
}

int cmd_parse_jobid (const char *s, uint64_t *jobid)
{
    unsigned long long v;
    char *end;

    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull (s, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *jobid = v;
    return 0;
}

/* --- match -------------------------------------------------------------- */

static int allocate (struct rp_matcher *m, const struct rp_jobspec *js,
                     const struct options *o, rp_error_t *error)
{
    struct rp_rset *R = rp_matcher_allocate (m, o->jobid, js, o->now, error);
    char *s;

    if (!R)
        return -1;
    if (!(s = rp_rset_encode (R, 0)))
        cmd_die (SUB, "out of memory");
    printf ("%s\n", s);
    free (s);
    rp_rset_destroy (R);
    return 0;
}

static int satisfiability (struct rp_matcher *m, const struct rp_jobspec *js,
                           rp_error_t *error)
{
    if (rp_matcher_satisfiability (m, js, error) < 0)
        return -1;
    printf ("satisfiable\n");
    return 0;
}

static int run (const char *op, const char *path, struct options *o)
{
    struct rp_graph *g = cmd_resources_load (SUB, &o->res);
    /* The configuration first: its property plugins' operators must be
     * known when the jobspec's constraints are read. */
    struct rp_config *cfg = cmd_match_config (SUB, o->config);
    struct rp_jobspec *js = cmd_load_jobspec (SUB, path, o->profile);
    struct rp_matcher *m = cmd_matcher_create (SUB, g, cfg, o->policy);
    rp_error_t error;
    char buf[sizeof (error.text) + 32];
    struct rp_context *ctx;
    int rc, status = 0;

    /* The policy reads who submits: the job's id and time are ours. */
    if (!(ctx = cmd_context (&o->who, js, &error)))
        cmd_die (SUB, "%s", error.text);
    rp_context_set_jobid (ctx, o->jobid);
    rp_context_set_submit_time (ctx, o->now);
    rp_matcher_set_context (m, ctx);
    rp_matcher_set_explain (m, o->explain);
    if (!strcmp (op, "allocate"))
        rc = allocate (m, js, o, &error);
    else
        rc = satisfiability (m, js, &error);
    if (rc < 0) {
        status = cmd_match_status (errno);
        cmd_warn (SUB, "%s",
                  cmd_match_error (&error, errno, buf, sizeof (buf)));
    }
    if (o->explain)
        cmd_explain_print (SUB, m);
    rp_matcher_destroy (m);
    rp_context_destroy (ctx);
    rp_config_destroy (cfg);
    rp_jobspec_destroy (js);
    return status;
}

static void set_option (struct options *o, int c)
{
    if (cmd_who_option (&o->who, c, optarg))
        return;
    if (c == 'v')
        cmd_verbose ();
    else if (c == OPT_EXPLAIN)
        o->explain = true;
    else if (c == OPT_CONFIG)
        o->config = optarg;
    else if (c == OPT_POLICY)
        o->policy = optarg;
    else if (c == OPT_PROFILE) {
        if (rp_jobspec_profile_parse (optarg, &o->profile) < 0)
            cmd_usage_error (SUB, "unknown profile '%s'", optarg);
    } else if (c == OPT_NOW) {
        if (cmd_parse_now (optarg, &o->now) < 0)
            cmd_usage_error (SUB, "--now: '%s' is not a number of seconds",
                             optarg);
    } else if (cmd_parse_jobid (optarg, &o->jobid) < 0)
        cmd_usage_error (SUB, "--jobid: '%s' is not a job id", optarg);
}

static void parse_options (struct options *o, int argc, char **argv)
{
    static const struct cmd_getopt getopts = { SUB, SHORTOPTS, opts, OPT_HELP,
                                               usage };
    int c;

    optind = 0;
    while ((c = cmd_resources_getopt (&getopts, &o->res, argc, argv)) != -1)
        set_option (o, c);
}

int cmd_match (int argc, char **argv)
{
    struct options o = { .profile = RP_JOBSPEC_CANONICAL,
                         .now = -1,
                         .jobid = 1 };
    const char *op;
    int status;

    parse_options (&o, argc, argv);
    if (optind == argc)
        cmd_usage_error (SUB, "missing subcommand (allocate or "
                              "satisfiability)");
    op = argv[optind];
    if (strcmp (op, "allocate") != 0 && strcmp (op, "satisfiability") != 0)
        cmd_usage_error (SUB, "unknown subcommand '%s'", op);
    if (optind + 1 == argc)
        cmd_usage_error (SUB, "%s: missing JOBSPEC argument", op);
    if (optind + 2 < argc)
        cmd_usage_error (SUB, "%s: unexpected argument '%s'", op,
                         argv[optind + 2]);
    if (!strcmp (argv[optind + 1], "-") && cmd_resources_stdin (&o.res))
        cmd_usage_error (SUB,
                         "%s: the jobspec and the resources cannot "
                         "both be stdin",
                         op);
    if (o.now < 0)
        o.now = (double)time (NULL);
    status = run (op, argv[optind + 1], &o);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return status;
}
