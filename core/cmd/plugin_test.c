/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol plugin test: a bench to try one plugin before enabling it.
 *
 *   respol plugin test [--config=FILE] [--set KEY=VALUE]... [--repeat=N]
 *       [--profile=NAME] [WHO] [RESOURCE-OPTION] PLUGIN JOBSPEC...
 *
 * PLUGIN is a name (searched as a configuration entry's would be, in
 * FILE's plugin-path first) or an absolute path.  Its configuration block
 * is the block of FILE's entry for it (an entry whose instance name or
 * plugin value is PLUGIN), else empty; --set KEY=VALUE sets a key of it
 * (VALUE read as YAML: 4, 1h, [a, b], {max-nodes: 2}).  The plugin is
 * loaded alone, as the only entry of its kind's stack, with FILE's
 * plugin-path and allow-insecure-path, and checked as every load is.
 *
 * A validator runs over each JOBSPEC in turn, for who submits (WHO:
 * --user, --account, --queue), without an instance (as respol jobspec
 * validate); for each, one line with the verdict and the mean time of a
 * call over --repeat calls (default 1):
 *   job.yaml: reject: requests 4 nodes, limit is 2 (3.2 us per call)
 * then, indented, its warnings, its amendments (each changed value under
 * attributes) and every line the plugin logged during the calls, at every
 * level.  A match policy needs a RESOURCE-OPTION: the jobs are allocated
 * in turn on one graph, each kept (a stream, as respol query runs one),
 * and each line gives the allocation in short form or why it failed.
 *
 * Exit status: 0 when every call ran, whatever the verdicts; 1 for bad
 * input (a jobspec, the block, a plugin that does not load); 3 when the
 * plugin failed in a call (as every command says it).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <respol/config.h>
#include <respol/context.h>
#include <respol/document.h>
#include <respol/graph.h>
#include <respol/idset.h>
#include <respol/jobspec.h>
#include <respol/match.h>
#include <respol/rset.h>

#include "cmd.h"

#define SUB "plugin"
#define MAX_REPEAT 1000000

enum {
    OPT_HELP = 256,
    OPT_CONFIG,
    OPT_SET,
    OPT_REPEAT,
    OPT_PROFILE,
};

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "config", required_argument, NULL, OPT_CONFIG },
    { "set", required_argument, NULL, OPT_SET },
    { "repeat", required_argument, NULL, OPT_REPEAT },
    { "profile", required_argument, NULL, OPT_PROFILE },
    CMD_WHO_LONGOPTS,
    CMD_RESOURCE_LONGOPTS,
    { NULL, 0, NULL, 0 },
};
#define SHORTOPTS "h" CMD_RESOURCE_SHORTOPTS

struct bench {
    const char *config;
    json_t *sets; /* {key: value} from --set */
    unsigned long repeat;
    enum rp_jobspec_profile profile;
    bool profile_given;
    struct cmd_who who;
    struct cmd_resources res;
    /* What the plugin logged during the calls of one job. */
    char *log;
    size_t loglen;
    bool failed;
};

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: respol plugin test [OPTIONS] [RESOURCE-OPTION] PLUGIN "
             "JOBSPEC...\n\n"
             "Run one plugin alone over jobspecs: a validator's verdicts, a "
             "match policy's\n"
             "allocations (with a RESOURCE-OPTION), what it logs, and the "
             "time per call.\n\n"
             "Options:\n"
             "      --config=FILE   take PLUGIN's block and plugin-path from "
             "this configuration\n"
             "      --set KEY=VALUE set a key of the block (VALUE is YAML); "
             "repeatable\n"
             "      --repeat=N      call N times per jobspec, report the "
             "mean (default 1)\n"
             "      --profile=NAME  jobspec profile (default: v1 for a "
             "validator,\n"
             "                      canonical for a match policy)\n" CMD_WHO_HELP
             "  -h, --help          print this message\n\n%s",
             cmd_resources_help);
}

/* --- the plugin's log ---------------------------------------------------- */

static const char *level_name (int level)
{
    static const char *const names[] = { "err", "warning", "notice", "info",
                                          "debug" };
    return level >= RP_LOG_ERR && level <= RP_LOG_DEBUG
               ? names[level - RP_LOG_ERR]
               : "log";
}

/* Keep every line the plugin logs, to print under the job's line. */
static void capture (const char *instance, int level, const char *msg,
                     void *arg)
{
    struct bench *b = arg;
    char *line;
    int n = asprintf (&line, "    log %s: %s\n", level_name (level), msg);
    char *nlog;

    (void)instance;
    if (n < 0)
        cmd_die (SUB, "out of memory");
    if (!(nlog = realloc (b->log, b->loglen + (size_t)n + 1)))
        cmd_die (SUB, "out of memory");
    memcpy (nlog + b->loglen, line, (size_t)n + 1);
    b->log = nlog;
    b->loglen += (size_t)n;
    free (line);
}

static void log_flush (struct bench *b)
{
    if (b->loglen)
        fputs (b->log, stdout);
    b->loglen = 0;
    if (b->log)
        b->log[0] = '\0';
}

/* --- the configuration --------------------------------------------------- */

/* KEY=VALUE into b->sets, VALUE read as YAML. */
static void add_set (struct bench *b, const char *arg)
{
    const char *eq = strchr (arg, '=');
    struct rp_doc *doc;
    rp_error_t error;
    char key[256];

    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof (key))
        cmd_usage_error (SUB, "test: --set: '%s' is not KEY=VALUE", arg);
    snprintf (key, sizeof (key), "%.*s", (int)(eq - arg), arg);
    if (!(doc = rp_doc_load (eq + 1, strlen (eq + 1), "--set", RP_DOC_YAML,
                             &error)))
        cmd_usage_error (SUB, "test: --set %s: %s", key, error.text);
    if (!b->sets && !(b->sets = json_object ()))
        cmd_die (SUB, "out of memory");
    if (json_object_set (b->sets, key,
                         rp_doc_root (doc) ? rp_doc_root (doc) : json_null ())
        < 0)
        cmd_die (SUB, "out of memory");
    rp_doc_destroy (doc);
}

/* The entry of FILE (a document's root) for plugin: one whose instance
 * name, else whose plugin value, is plugin; NULL when none. */
static const json_t *file_entry (const json_t *root, const char *plugin)
{
    static const char *const stacks[] = { "validate", "match" };
    static const char *const keys[] = { "name", "plugin" };

    for (size_t n = 0; n < 2; n++)
        for (size_t k = 0; k < 2; k++) {
            size_t i;
            json_t *e;
            json_array_foreach (json_object_get (root, stacks[k]), i, e) {
                const char *v =
                    json_string_value (json_object_get (e, keys[n]));
                if (v && !strcmp (v, plugin))
                    return e;
            }
        }
    return NULL;
}

/* Does a plugin of kind take the resources b has (or lacks)? */
static void check_resources (const struct bench *b, const char *plugin,
                             uint32_t kind)
{
    if (kind == RP_PLUGIN_VALIDATE && b->res.kind)
        cmd_usage_error (SUB, "test: %s is a validator: it takes no "
                              "resources",
                         plugin);
    if (kind == RP_PLUGIN_MATCH && !b->res.kind)
        cmd_usage_error (SUB, "test: %s is a match policy: give the "
                              "resources (-R, --xml, --graph or --generate)",
                         plugin);
}

/* The configuration with plugin alone in its kind's stack. */
static struct rp_config *bench_config (struct bench *b, const char *plugin,
                                       uint32_t *kind)
{
    struct rp_config *base = NULL, *cfg;
    struct rp_plugin *p;
    struct rp_diags *d;
    struct rp_doc *doc = NULL;
    json_t *root, *block, *fileroot = NULL;
    const json_t *entry = NULL, *given;
    const char *file = plugin;
    rp_error_t error;

    if (b->config) {
        /* Checked and read as every configuration is; nothing loaded. */
        if (!(base = cmd_load_config_flags (SUB, b->config, RP_CONFIG_NOLOAD)))
            exit (EXIT_INPUT);
        if (!(doc = rp_doc_load_file (b->config, RP_DOC_AUTO, &error)))
            cmd_die (SUB, "%s", error.text);
        fileroot = rp_doc_root (doc);
        if ((entry = file_entry (fileroot, plugin)))
            file = json_string_value (json_object_get (entry, "plugin"));
    }
    if (!(p = rp_config_plugin_inspect (base, file, &error)))
        cmd_die (SUB, "%s", error.text);
    *kind = rp_plugin_kind (p);
    if (*kind != RP_PLUGIN_VALIDATE && *kind != RP_PLUGIN_MATCH)
        cmd_die (SUB, "%s: a %s plugin: test runs validators and match "
                      "policies",
                 plugin, rp_plugin_kind_name (*kind));
    check_resources (b, plugin, *kind);
    given = json_object_get (entry, "config");
    block = json_is_object (given) ? json_deep_copy (given) : json_object ();
    if (b->sets && json_object_update (block, b->sets) < 0)
        cmd_die (SUB, "out of memory");
    root = json_pack ("{s:[{s:s s:s s:o}]}", rp_plugin_kind_name (*kind),
                      "plugin", rp_plugin_file (p), "name",
                      rp_plugin_name (p), "config", block);
    if (!root
        || (fileroot && json_object_get (fileroot, "allow-insecure-path")
            && json_object_set (root, "allow-insecure-path",
                                json_object_get (fileroot,
                                                 "allow-insecure-path"))
                   < 0))
        cmd_die (SUB, "out of memory");
    rp_plugin_destroy (p);
    rp_doc_destroy (doc);
    rp_config_destroy (base);
    /* Every line the plugin logs, whatever the level asked. */
    rp_plugin_set_log (capture, b);
    rp_plugin_set_log_level (RP_LOG_DEBUG);
    if (!(d = rp_diags_create ()))
        cmd_die (SUB, "out of memory");
    cfg = rp_config_load_json (root, "test", 0, d);
    json_decref (root);
    cmd_print_diags (SUB, d);
    rp_diags_destroy (d);
    log_flush (b); /* what init logged */
    if (!cfg)
        exit (EXIT_INPUT);
    return cfg;
}

/* --- timing -------------------------------------------------------------- */

static double now_us (void)
{
    struct timespec t;

    clock_gettime (CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

/* --- validators ---------------------------------------------------------- */

/* Print each value that differs between a and b (JSON objects) under
 * path. */
static void print_amended (const char *path, const json_t *a, const json_t *b)
{
    const char *key;
    json_t *v;

    json_object_foreach ((json_t *)b, key, v) {
        json_t *old = json_object_get (a, key);
        char sub[512];
        char *text;
        snprintf (sub, sizeof (sub), "%s.%s", path, key);
        if (json_is_object (v) && json_is_object (old)) {
            print_amended (sub, old, v);
            continue;
        }
        if (old && json_equal (old, v))
            continue;
        if (!(text = json_dumps (v, JSON_COMPACT | JSON_SORT_KEYS
                                        | JSON_ENCODE_ANY)))
            cmd_die (SUB, "out of memory");
        printf ("    amended: %s = %s\n", sub + 1, text);
        free (text);
    }
}

static const char *verdict_name (int verdict)
{
    switch (verdict) {
    case RP_ACCEPT:
        return "accept";
    case RP_WARN:
        return "warn";
    case RP_HOLD:
        return "hold";
    default:
        return "reject";
    }
}

static void test_validator (struct bench *b, const struct rp_config *cfg,
                            const char *path)
{
    struct rp_jobspec *js = cmd_load_jobspec (SUB, path, b->profile);
    struct rp_context *ctx;
    struct rp_diags *d;
    rp_error_t error;
    double t0, per;
    int verdict = RP_ACCEPT;

    if (!(ctx = cmd_context (&b->who, js, &error)))
        cmd_die (SUB, "%s", error.text);
    if (!(d = rp_diags_create ()))
        cmd_die (SUB, "out of memory");
    t0 = now_us ();
    for (unsigned long i = 0; i < b->repeat; i++) {
        struct rp_jobspec *amended = NULL;
        char *reason = NULL;
        bool last = i + 1 == b->repeat;
        rp_diags_clear (d);
        verdict = rp_config_validate_job (cfg, js, ctx, NULL, &amended,
                                          &reason, d);
        if (verdict < 0 && errno != EPROTO)
            cmd_die (SUB, "%s: %s", path, strerror (errno));
        if (last && verdict < 0) {
            per = (now_us () - t0) / (double)b->repeat;
            printf ("%s: failed (%.1f us per call)\n", path, per);
            for (size_t k = 0; k < rp_diags_count (d); k++)
                printf ("    %s\n", rp_diags_text (d, k));
            b->failed = true;
        } else if (last) {
            per = (now_us () - t0) / (double)b->repeat;
            printf ("%s: %s%s%s (%.1f us per call)\n", path,
                    verdict_name (verdict), reason ? ": " : "",
                    reason ? reason : "", per);
            for (size_t k = 0; k < rp_diags_count (d); k++)
                if (rp_diags_severity (d, k) == RP_DIAG_WARNING)
                    printf ("    warning: %s\n", rp_diags_text (d, k));
            if (amended)
                print_amended ("", json_object_get (rp_jobspec_json (js),
                                                    "attributes"),
                               json_object_get (rp_jobspec_json (amended),
                                                "attributes"));
        }
        free (reason);
        rp_jobspec_destroy (amended);
    }
    log_flush (b);
    rp_diags_destroy (d);
    rp_context_destroy (ctx);
    rp_jobspec_destroy (js);
}

/* --- match policies ------------------------------------------------------ */

static void print_short (const struct rp_rset *R)
{
    const struct rp_idset *ranks = rp_rset_ranks (R);
    const char *sep = "";

    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r)) {
        char *cores = rp_idset_encode (rp_rset_cores (R, r), RP_IDSET_RANGES);
        char *gpus = rp_idset_encode (rp_rset_gpus (R, r), RP_IDSET_RANGES);
        printf ("%s%s: core[%s]%s%s%s", sep, rp_rset_hostname (R, r),
                cores ? cores : "", gpus && *gpus ? " gpu[" : "",
                gpus && *gpus ? gpus : "", gpus && *gpus ? "]" : "");
        free (cores);
        free (gpus);
        sep = "; ";
    }
}

static void test_policy (struct bench *b, struct rp_matcher *m,
                         uint64_t jobid, const char *path)
{
    struct rp_jobspec *js = cmd_load_jobspec (SUB, path, b->profile);
    char buf[sizeof (((rp_error_t *)0)->text) + 32];
    struct rp_rset *R = NULL;
    struct rp_context *ctx;
    rp_error_t error;
    double t0;

    if (!(ctx = cmd_context (&b->who, js, &error)))
        cmd_die (SUB, "%s", error.text);
    rp_context_set_jobid (ctx, jobid);
    rp_matcher_set_context (m, ctx);
    t0 = now_us ();
    /* Every call but the last is undone: the stream keeps one job. */
    for (unsigned long i = 0; i < b->repeat; i++) {
        rp_rset_destroy (R);
        R = rp_matcher_allocate (m, jobid, js, 0, &error);
        if (!R || i + 1 == b->repeat)
            break;
        rp_matcher_free (m, jobid, NULL);
    }
    printf ("%s: ", path);
    if (R)
        print_short (R);
    else {
        if (errno == EPROTO)
            b->failed = true;
        printf ("%s", cmd_match_error (&error, errno, buf, sizeof (buf)));
    }
    printf (" (%.1f us per call)\n", (now_us () - t0) / (double)b->repeat);
    log_flush (b);
    rp_matcher_set_context (m, NULL);
    rp_rset_destroy (R);
    rp_context_destroy (ctx);
    rp_jobspec_destroy (js);
}

/* --- options ------------------------------------------------------------- */

static void set_option (struct bench *b, int c)
{
    char *end;

    if (cmd_who_option (&b->who, c, optarg))
        return;
    if (c == OPT_CONFIG)
        b->config = optarg;
    else if (c == OPT_SET)
        add_set (b, optarg);
    else if (c == OPT_PROFILE) {
        if (rp_jobspec_profile_parse (optarg, &b->profile) < 0)
            cmd_usage_error (SUB, "test: unknown profile '%s'", optarg);
        b->profile_given = true;
    } else {
        errno = 0;
        b->repeat = strtoul (optarg, &end, 10);
        if (errno || end == optarg || *end || b->repeat < 1
            || b->repeat > MAX_REPEAT || optarg[0] == '-')
            cmd_usage_error (SUB, "test: --repeat: '%s' is not a count from "
                                  "1 to %d",
                             optarg, MAX_REPEAT);
    }
}

int cmd_plugin_test (int argc, char **argv)
{
    static const struct cmd_getopt getopts = { SUB, SHORTOPTS, opts, OPT_HELP,
                                               usage };
    struct bench b = { .repeat = 1 };
    struct rp_config *cfg;
    uint32_t kind;
    int c;

    optind = 0;
    while ((c = cmd_resources_getopt (&getopts, &b.res, argc, argv)) != -1)
        set_option (&b, c);
    if (argc - optind < 2)
        cmd_usage_error (SUB, "test: %s", argc - optind == 0
                                              ? "missing PLUGIN argument"
                                              : "missing JOBSPEC argument");
    for (int i = optind + 1; i < argc; i++)
        if (!strcmp (argv[i], "-"))
            cmd_usage_error (SUB, "test: a jobspec file is needed, not "
                                  "stdin");
    cfg = bench_config (&b, argv[optind], &kind);
    if (kind == RP_PLUGIN_VALIDATE) {
        if (!b.profile_given)
            b.profile = RP_JOBSPEC_V1;
        for (int i = optind + 1; i < argc; i++)
            test_validator (&b, cfg, argv[i]);
    } else {
        struct rp_matcher *m;
        if (!b.profile_given)
            b.profile = RP_JOBSPEC_CANONICAL;
        m = cmd_matcher_create (SUB, cmd_resources_load (SUB, &b.res), cfg,
                                NULL);
        for (int i = optind + 1; i < argc; i++)
            test_policy (&b, m, (uint64_t)(i - optind), argv[i]);
        rp_matcher_destroy (m);
    }
    rp_config_destroy (cfg);
    rp_plugin_set_log (NULL, NULL);
    json_decref (b.sets);
    free (b.log);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return b.failed ? EXIT_PLUGIN : 0;
}
