/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol jobspec: validate, convert and summarise RFC 14 / RFC 25 jobspec
 * (see api/respol/jobspec.h), and dispatch `create` to jobspec_create.c.
 *
 *   respol jobspec validate [--profile=v1|canonical] [--config=FILE]
 *                           [--print] FILE...
 *   respol jobspec convert [--json|--yaml] FILE
 *   respol jobspec summary [--profile=v1|canonical] [--json] FILE
 *   respol jobspec create ...
 *
 * FILE "-" is stdin.  Every error and warning of every file is printed, one
 * per line, as "respol: jobspec: job.yaml:7:14: path: message" (warnings
 * with "warning: " before the file name); validate exits 1 when any file
 * has an error, and warnings never change the exit code.  convert does not
 * validate: it is a lossless change of notation of any document (JSON is
 * printed compact with sorted keys, YAML block style with sorted keys), by
 * default from YAML to JSON and from JSON to YAML, the input format being
 * chosen as document.h does (extension, then first non-blank byte).
 *
 * validate then runs the configured validator stack (api/respol/config.h:
 * --config, else $RESPOL_CONFIG, else the installed configuration) on each
 * valid jobspec: its warnings and its rejection are printed as
 * "respol: jobspec: [warning: ]job.yaml: <instance>: <message>" (a
 * rejection exits 1, a validator that fails exits 3, whatever the other
 * files gave), and --print prints the final, amended jobspec as YAML.
 * -v / --verbose (validate only) shows what plugins log at info, -vv at
 * debug.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <respol/config.h>
#include <respol/context.h>
#include <respol/diag.h>
#include <respol/document.h>
#include <respol/jobspec.h>

#include "cmd.h"

#define SUB "jobspec"

struct options {
    enum rp_jobspec_profile profile;
    int format; /* RP_DOC_JSON or RP_DOC_YAML output, or RP_DOC_AUTO */
    bool json;
    const char *config; /* validate: the plugin configuration */
    bool print;         /* validate: print the final jobspec */
    struct cmd_who who; /* validate: who submits */
};

struct jobspec_cmd {
    const char *name;
    const char *args;
    const char *summary;
    const char *options; /* help text of the options, or "" */
    bool many;           /* FILE... rather than one FILE */
    int (*run) (const struct options *o, int argc, char **argv);
};

static int run_validate (const struct options *o, int argc, char **argv);
static int run_convert (const struct options *o, int argc, char **argv);
static int run_summary (const struct options *o, int argc, char **argv);
static void print_yaml (const json_t *root);

static const struct jobspec_cmd commands[] = {
    { "validate", "[--profile=v1|canonical] FILE...",
      "check each jobspec and print every error and warning",
      "      --profile=NAME  v1 (RFC 25, the default) or canonical (RFC 14)\n"
      "      --config=FILE   the plugin configuration whose validator stack "
      "runs\n"
      "                      (default $RESPOL_CONFIG, else the installed "
      "one)\n"
      "      --print         print the jobspec as amended by the stack, as "
      "YAML\n"
      "  -v, --verbose       print plugin messages up to info (-vv: debug)\n"
      CMD_WHO_HELP,
      true, run_validate },
    { "convert", "[--json|--yaml] FILE",
      "print a document as JSON (from YAML) or YAML (from JSON)",
      "      --json          print JSON whatever the input\n"
      "      --yaml          print YAML whatever the input\n",
      false, run_convert },
    { "summary", "[--profile=v1|canonical] [--json] FILE",
      "print the derived facts of a valid jobspec on one line",
      "      --profile=NAME  v1 (RFC 25, the default) or canonical (RFC 14)\n"
      "      --json          print a JSON object\n",
      false, run_summary },
    { NULL, NULL, NULL, NULL, false, NULL },
};

static void usage (FILE *f)
{
    fprintf (f, "Usage: respol jobspec SUBCOMMAND [OPTIONS] ARGS...\n\n");
    fprintf (f, "Subcommands:\n");
    fprintf (f, "  %-10s %s\n", "create",
             "create a V1 jobspec from a command and options");
    for (const struct jobspec_cmd *c = commands; c->name; c++)
        fprintf (f, "  %-10s %s\n", c->name, c->summary);
    fprintf (f, "\nFILE '-' is stdin.  Run 'respol jobspec SUBCOMMAND --help' "
                "for its options.\n");
}

static void usage_cmd (FILE *f, const struct jobspec_cmd *c)
{
    fprintf (f, "Usage: respol jobspec %s %s\n\n%c%s.\n", c->name, c->args,
             toupper ((unsigned char)c->summary[0]), c->summary + 1);
    fprintf (f, "\nOptions:\n%s", c->options);
    fprintf (f, "  -h, --help          print this message\n");
}

/* --- diagnostics -------------------------------------------------------- */

/* Print every message of d; return the number of errors. */
static struct rp_diags *diags_create (void)
{
    struct rp_diags *d = rp_diags_create ();
    if (!d)
        cmd_die (SUB, "out of memory");
    return d;
}

/* Load and validate path, printing its messages.  NULL when invalid. */
static struct rp_jobspec *load (const char *path,
                                enum rp_jobspec_profile profile)
{
    struct rp_diags *d = diags_create ();
    struct rp_jobspec *js = rp_jobspec_load_file (path, profile, d);
    int saved_errno = errno;

    cmd_print_diags (SUB, d);
    if (!js && saved_errno == ENOMEM)
        cmd_die (SUB, "%s: out of memory", path);
    if (!js && rp_diags_errors (d) == 0)
        cmd_die (SUB, "%s: %s", path, strerror (saved_errno));
    rp_diags_destroy (d);
    return js;
}

/* --- validate ----------------------------------------------------------- */

/* The plugin configuration (path, else $RESPOL_CONFIG, else installed). */
static struct rp_config *load_config (const char *path)
{
    struct rp_config *cfg = cmd_load_config (SUB, path);

    if (!cfg)
        exit (EXIT_INPUT);
    return cfg;
}

/* Run the validator stack on js for who submits it, print its messages
 * (and, if print and it accepts, the final jobspec).  There is no
 * instance: a validator that holds the job is reported ("held: ..."), the
 * jobspec is valid.  EXIT_INPUT when rejected, EXIT_PLUGIN when a
 * validator failed. */
static int run_stack (const struct rp_config *cfg, struct rp_jobspec *js,
                      const struct options *o)
{
    struct rp_diags *d = diags_create ();
    struct rp_jobspec *amended = NULL;
    const char *name = rp_doc_name (rp_jobspec_doc (js));
    char *reason = NULL;
    struct rp_context *ctx;
    rp_error_t error;
    int verdict, saved_errno;

    if (!(ctx = cmd_context (&o->who, js, &error)))
        cmd_die (SUB, "%s", error.text);
    verdict = rp_config_validate_job (cfg, js, ctx, NULL, &amended, &reason, d);
    saved_errno = errno; /* stderr's writes may change errno */
    rp_context_destroy (ctx);

    for (size_t i = 0; i < rp_diags_count (d); i++) {
        bool warning = rp_diags_severity (d, i) == RP_DIAG_WARNING;
        fprintf (stderr, "respol: %s: %s%s: %s\n", SUB,
                 warning ? "warning: " : "", name, rp_diags_text (d, i));
    }
    rp_diags_destroy (d);
    if (verdict < 0 && saved_errno == EPROTO)
        return EXIT_PLUGIN;
    if (verdict < 0)
        cmd_die (SUB, "%s: %s", name, strerror (saved_errno));
    if (verdict == RP_HOLD)
        fprintf (stderr, "respol: %s: %s: held: %s\n", SUB, name, reason);
    free (reason);
    if (verdict != RP_REJECT && o->print)
        print_yaml (rp_jobspec_json (amended ? amended : js));
    rp_jobspec_destroy (amended);
    return verdict == RP_REJECT ? EXIT_INPUT : 0;
}

static int run_validate (const struct options *o, int argc, char **argv)
{
    struct rp_config *cfg;
    int status = 0;

    if (o->print && argc > 1)
        cmd_usage_error (SUB, "validate: --print takes one FILE");
    cfg = load_config (o->config);
    for (int i = 0; i < argc; i++) {
        struct rp_jobspec *js = load (argv[i], o->profile);
        int rc = js ? run_stack (cfg, js, o) : EXIT_INPUT;
        if (rc != 0 && status != EXIT_PLUGIN)
            status = rc;
        rp_jobspec_destroy (js);
    }
    rp_config_destroy (cfg);
    return status;
}

/* --- convert ------------------------------------------------------------ */

/* The input format, as rp_doc_load_file chooses it for RP_DOC_AUTO: the
 * extension of a file (any case), else the first non-blank byte. */
static int input_format (const char *path, const char *buf)
{
    const char *dot = strrchr (path, '.');

    if (strcmp (path, "-") && dot && !strchr (dot, '/')) {
        if (!strcasecmp (dot, ".json"))
            return RP_DOC_JSON;
        if (!strcasecmp (dot, ".yaml") || !strcasecmp (dot, ".yml"))
            return RP_DOC_YAML;
    }
    buf += strspn (buf, " \t\r\n");
    return *buf == '{' || *buf == '[' ? RP_DOC_JSON : RP_DOC_YAML;
}

static char *read_input (const char *path, size_t *len)
{
    FILE *f = strcmp (path, "-") ? fopen (path, "r") : stdin;
    char *buf;

    if (!f)
        cmd_die (SUB, "%s: %s", path, strerror (errno));
    buf = cmd_read_all (SUB, f, len);
    if (f != stdin)
        fclose (f);
    return buf;
}

static void print_yaml (const json_t *root)
{
    char *s = rp_doc_dump_yaml (root);

    if (!s)
        cmd_die (SUB, "convert: %s", strerror (errno));
    fputs (s, stdout);
    free (s);
}

static int run_convert (const struct options *o, int argc, char **argv)
{
    size_t len;
    char *buf = read_input (argv[0], &len);
    int format = input_format (argv[0], buf);
    rp_error_t error;
    struct rp_doc *doc = rp_doc_load (buf, len, argv[0], format, &error);
    int out = o->format;

    if (!doc)
        cmd_die (SUB, "%s", error.text);
    if (out == RP_DOC_AUTO)
        out = format == RP_DOC_JSON ? RP_DOC_YAML : RP_DOC_JSON;
    if (out == RP_DOC_JSON)
        cmd_print_json (rp_doc_root (doc));
    else
        print_yaml (rp_doc_root (doc));
    rp_doc_destroy (doc);
    free (buf);
    return 0;
}

/* --- summary ------------------------------------------------------------ */

static const char *boolstr (bool b)
{
    return b ? "true" : "false";
}

/* The facts are uint64_t and saturate at UINT64_MAX; a JSON integer is
 * signed 64-bit, so a value above INT64_MAX is written as INT64_MAX rather
 * than wrapping to a negative number. */
static json_int_t json_count (uint64_t v)
{
    return v > (uint64_t)INT64_MAX ? (json_int_t)INT64_MAX : (json_int_t)v;
}

static void summary_json (const struct rp_jobspec_facts *f)
{
    json_t *o = json_pack (
        "{s:I s:I s:I s:I s:I s:b s:f s:I s:b s:b}", "nnodes",
        json_count (f->nnodes), "nslots", json_count (f->nslots),
        "cores_per_slot", json_count (f->cores_per_slot), "gpus_per_slot",
        json_count (f->gpus_per_slot), "memory_per_slot",
        json_count (f->memory_per_slot), "exclusive", f->exclusive, "duration",
        f->duration, "ntasks", json_count (f->ntasks), "exact", f->exact,
        "uniform", f->uniform);

    if (!o)
        cmd_die (SUB, "summary: out of memory");
    cmd_print_json (o);
    json_decref (o);
}

static void summary_line (const struct rp_jobspec_facts *f)
{
    printf ("nnodes=%llu nslots=%llu cores_per_slot=%llu gpus_per_slot=%llu "
            "memory_per_slot=%llu exclusive=%s duration=%.15g ntasks=%llu "
            "exact=%s uniform=%s\n",
            (unsigned long long)f->nnodes, (unsigned long long)f->nslots,
            (unsigned long long)f->cores_per_slot,
            (unsigned long long)f->gpus_per_slot,
            (unsigned long long)f->memory_per_slot, boolstr (f->exclusive),
            f->duration, (unsigned long long)f->ntasks, boolstr (f->exact),
            boolstr (f->uniform));
}

static int run_summary (const struct options *o, int argc, char **argv)
{
    struct rp_jobspec *js = load (argv[0], o->profile);

    if (!js)
        return EXIT_INPUT;
    if (o->json)
        summary_json (rp_jobspec_facts (js));
    else
        summary_line (rp_jobspec_facts (js));
    rp_jobspec_destroy (js);
    return 0;
}

/* --- options and dispatch ----------------------------------------------- */

/* Long-only options have values >= 256, so a rejected option whose optopt
 * is above OPT_HELP was one of the long options that not every subcommand
 * takes. */
enum {
    OPT_HELP = 256,
    OPT_PROFILE,
    OPT_JSON,
    OPT_YAML,
    OPT_CONFIG,
    OPT_PRINT,
    OPT_VERBOSE,
};

static const struct option all_opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "profile", required_argument, NULL, OPT_PROFILE },
    { "json", no_argument, NULL, OPT_JSON },
    { "yaml", no_argument, NULL, OPT_YAML },
    { "config", required_argument, NULL, OPT_CONFIG },
    { "print", no_argument, NULL, OPT_PRINT },
    { "verbose", no_argument, NULL, OPT_VERBOSE },
    CMD_WHO_LONGOPTS,
    { NULL, 0, NULL, 0 },
};

static const char *option_name (int opt)
{
    for (const struct option *p = all_opts; p->name; p++)
        if (p->val == opt)
            return p->name;
    return "?";
}

/* Is option opt one that cmd takes? */
static bool takes (const struct jobspec_cmd *cmd, int opt)
{
    if (opt == OPT_CONFIG || opt == OPT_PRINT || opt == OPT_VERBOSE
        || opt == CMD_OPT_USER || opt == CMD_OPT_ACCOUNT
        || opt == CMD_OPT_QUEUE)
        return cmd->run == run_validate;
    if (opt == OPT_PROFILE)
        return cmd->run != run_convert;
    if (opt == OPT_JSON)
        return cmd->run != run_validate;
    return cmd->run == run_convert;
}

/* Subcommand options may come anywhere among the arguments (a file named
 * like an option needs "--" or "./"); the dispatch level stops at the
 * subcommand name. */
#define SHORTOPTS "h"

/* Report the option getopt_long just rejected (it returned c).  An option
 * of all_opts that cmd (NULL: none) does not take is unknown, whatever
 * else was wrong with it. */
static void bad_option (const struct jobspec_cmd *cmd, const char *prefix,
                        int c, char **argv, const struct option *opts)
{
    if (cmd && optopt > OPT_HELP && !takes (cmd, optopt))
        cmd_usage_error (SUB, "%sunknown option '--%s'", prefix,
                         option_name (optopt));
    cmd_bad_option (SUB, prefix, c, argv, SHORTOPTS, opts);
}

static void set_option (const struct jobspec_cmd *cmd, struct options *o,
                        int opt, const char *prefix)
{
    if (opt == OPT_PROFILE) {
        if (rp_jobspec_profile_parse (optarg, &o->profile) < 0)
            cmd_usage_error (SUB, "%sunknown profile '%s'", prefix, optarg);
    } else if (cmd_who_option (&o->who, opt, optarg))
        ;
    else if (opt == OPT_CONFIG)
        o->config = optarg;
    else if (opt == OPT_VERBOSE)
        cmd_verbose ();
    else if (opt == OPT_PRINT)
        o->print = true;
    else if (cmd->run == run_convert)
        o->format = opt == OPT_JSON ? RP_DOC_JSON : RP_DOC_YAML;
    else
        o->json = true;
}

static void parse_options (const struct jobspec_cmd *cmd, struct options *o,
                           int argc, char **argv)
{
    char prefix[32];
    int c;

    snprintf (prefix, sizeof (prefix), "%s: ", cmd->name);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, SHORTOPTS "v", all_opts, NULL))
           != -1) {
        if (c == 'h' || c == OPT_HELP) {
            usage_cmd (stdout, cmd);
            exit (0);
        }
        if (c == '?')
            bad_option (cmd, prefix, c, argv, all_opts);
        if (c == 'v' && !takes (cmd, OPT_VERBOSE))
            cmd_usage_error (SUB, "%sunknown option '-v'", prefix);
        if (c == 'v')
            c = OPT_VERBOSE;
        if (!takes (cmd, c))
            cmd_usage_error (SUB, "%sunknown option '--%s'", prefix,
                             option_name (c));
        set_option (cmd, o, c, prefix);
    }
}

static const struct jobspec_cmd *find_command (const char *name)
{
    for (const struct jobspec_cmd *c = commands; c->name; c++)
        if (!strcmp (c->name, name))
            return c;
    cmd_usage_error (SUB, "unknown subcommand '%s'", name);
}

static void check_nargs (const struct jobspec_cmd *cmd, int nargs, char **args)
{
    if (nargs == 0)
        cmd_usage_error (SUB, "%s: missing FILE argument", cmd->name);
    if (!cmd->many && nargs > 1)
        cmd_usage_error (SUB, "%s: unexpected argument '%s'", cmd->name,
                         args[1]);
}

int cmd_jobspec (int argc, char **argv)
{
    static const struct option help_opts[] = {
        { "help", no_argument, NULL, OPT_HELP },
        { NULL, 0, NULL, 0 },
    };
    const struct jobspec_cmd *cmd;
    struct options o = { RP_JOBSPEC_V1, RP_DOC_AUTO, false };
    int c, status;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, "+" SHORTOPTS, help_opts, NULL))
           != -1) {
        if (c != 'h' && c != OPT_HELP)
            bad_option (NULL, "", c, argv, help_opts);
        usage (stdout);
        return 0;
    }
    if (optind == argc)
        cmd_usage_error (SUB, "missing subcommand");
    if (!strcmp (argv[optind], "create"))
        return cmd_jobspec_create (argc - optind, argv + optind);
    cmd = find_command (argv[optind]);
    argc -= optind;
    argv += optind;
    parse_options (cmd, &o, argc, argv);
    check_nargs (cmd, argc - optind, argv + optind);
    status = cmd->run (&o, argc - optind, argv + optind);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return status;
}
