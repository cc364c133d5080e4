/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol jobspec create: V1 jobspec (RFC 25) from a command line, like
 * `flux run --dry-run`.
 *
 *   respol jobspec create [OPTIONS] [--] COMMAND [ARGS...]
 *
 * The shape follows flux-core's JobspecV1.from_command: ntasks slots
 * labelled "task", each of -c cores (default 1) and -g GPUs (default
 * none).  ntasks is -n when given, else one per node with -N (and -x is
 * then implied, as `flux run -N` does), else 1; --tasks-per-node=T with
 * -N makes it N * T.  With -N the slots sit under a node vertex of count N
 * (exclusive with -x) holding ceil(ntasks / N) slots, and the task count is
 * {per_slot: 1} when N divides ntasks, else {total: ntasks}.
 *
 * attributes.system gets duration (always, seconds as a real; -t takes a
 * Flux Standard Duration, a bare number meaning minutes as with `flux run
 * -t`), cwd (--cwd or the current directory), environment (the whole
 * environment, then each --env rule in order), queue (-q), constraints
 * (each --requires parsed as an RFC 35 query; several are and-ed, an
 * "and" of one spliced into the outer "and", properties not merged across
 * them), and shell.options (-o).  --setattr is applied last, in order,
 * so it may override any of them; the keys respol knows (duration, cwd,
 * queue, environment, constraints) are type-checked afterwards.
 *
 * Values of -o and --setattr are JSON when they parse as JSON, else
 * strings; a bare KEY means 1.  Dotted keys nest; a dotted key through an
 * existing non-object is an error (flux-core replaces it silently).
 *
 * Errors read "respol: jobspec: create: message", like the other jobspec
 * subcommands' (core/cmd/jobspec.c): bad option values exit 1; bad usage
 * (unknown option, no command, options that exclude each other) exits 2.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <respol/constraint.h>
#include <respol/diag.h>
#include <respol/document.h>
#include <respol/jobspec.h>

#include "cmd.h"

#define SUB "jobspec"
#define COUNT_MAX INT_MAX

extern char **environ;

/* The environment being built, and the names of the variables whose value
 * could not be copied (not UTF-8): they are reported at the end, unless a
 * later rule removed or replaced them. */
struct env {
    json_t *vars;
    json_t *skipped;
};

struct create {
    long nodes;          /* 0: no -N */
    long ntasks;         /* 0: no -n */
    long cores;          /* per task */
    long gpus;           /* per task, 0: none */
    long tasks_per_node; /* 0: not given */
    bool exclusive;
    bool json;
    double duration;
    const char *queue;
    const char *cwd;
    struct env env;
    json_t *constraints; /* array of parsed --requires */
    json_t *options;     /* shell options */
    char **setattrs;     /* --setattr arguments, in order */
    int nsetattrs;
};

static void usage (FILE *f)
{
    fprintf (
        f, "Usage: respol jobspec create [OPTIONS] [--] COMMAND [ARGS...]\n\n"
           "Print V1 jobspec (RFC 25) for running COMMAND, like flux run "
           "--dry-run.\n\n"
           "Options:\n"
           "  -N, --nodes=N             number of nodes\n"
           "  -n, --ntasks=N            number of tasks (default 1, or N "
           "with -N)\n"
           "  -c, --cores-per-task=N    cores per task (default 1)\n"
           "  -g, --gpus-per-task=N     GPUs per task (default 0)\n"
           "      --tasks-per-node=N    tasks per node (needs -N, not -n)\n"
           "  -x, --exclusive           allocate whole nodes (needs -N)\n"
           "  -t, --time-limit=FSD      duration: 30s, 5m, 2h, 1d; a bare "
           "number\n"
           "                            is minutes; 0 is unlimited\n"
           "  -q, --queue=NAME          queue\n"
           "      --requires=QUERY      constraint (RFC 35), may repeat "
           "(and-ed)\n"
           "      --env=RULE            -PATTERN drops, NAME=VAL sets, "
           "PATTERN copies\n"
           "                            from the environment; may repeat\n"
           "  -o, --setopt=KEY[=VAL]    shell option, may repeat\n"
           "  -S, --setattr=KEY[=VAL]   attribute (system. assumed), may "
           "repeat\n"
           "      --cwd=DIR             working directory (default: current)\n"
           "      --json                print JSON instead of YAML\n"
           "  -h, --help                print this message\n");
}

/* Messages name the command that parses these options: "jobspec" with
 * "create: " before the message, or the caller of cmd_jobspec_from_args
 * ("run", and no prefix). */
static const char *msg_sub = SUB;
static const char *msg_prefix = "create: ";

static void die (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2), noreturn));
static void die (const char *fmt, ...)
{
    char msg[2048];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    cmd_die (msg_sub, "%s%s", msg_prefix, msg);
}

static void usage_error (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2), noreturn));
static void usage_error (const char *fmt, ...)
{
    char msg[2048];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    cmd_usage_error (msg_sub, "%s%s", msg_prefix, msg);
}

static void nomem (void)
{
    die ("out of memory");
}

/* --- values ------------------------------------------------------------- */

static long parse_count (const char *opt, const char *s, long min)
{
    char *end;
    long v;

    errno = 0;
    v = isdigit ((unsigned char)s[0]) ? strtol (s, &end, 10) : -1;
    if (v < 0 || *end != '\0')
        die ("%s: '%s' is not a%s integer", opt, s,
             min > 0 ? " positive" : " non-negative");
    if (errno == ERANGE || v > COUNT_MAX)
        die ("%s: '%s' is too large", opt, s);
    if (v < min)
        die ("%s: '%s' is not a positive integer", opt, s);
    return v;
}

/* Flux Standard Duration: a non-negative decimal number and an optional
 * unit s, m, h or d; a bare number is minutes, as `flux run -t` reads it. */
static double parse_duration (const char *s)
{
    static const struct {
        char unit;
        double seconds;
    } units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
    size_t n = strspn (s, "0123456789.");
    double mult = 60;
    double v;

    if (n == 0 || strchr (s, '.') != strrchr (s, '.') || !strcmp (s, ".")
        || (s[0] == '.' && !isdigit ((unsigned char)s[1])))
        goto error;
    if (s[n] != '\0') {
        if (s[n + 1] != '\0')
            goto error;
        mult = 0;
        for (size_t i = 0; i < sizeof (units) / sizeof (units[0]); i++)
            if (s[n] == units[i].unit)
                mult = units[i].seconds;
        if (mult == 0)
            goto error;
    }
    v = strtod (s, NULL) * mult;
    if (!isfinite (v))
        goto error;
    return v;
error:
    die ("--time-limit: invalid duration '%s'", s);
}

static json_t *string_value (const char *what, const char *s)
{
    json_t *o = json_string (s);

    if (!o)
        die ("%s: not valid UTF-8", what);
    return o;
}

/* VAL as JSON if it parses, else as a string; NULL means 1. */
static json_t *parse_value (const char *what, const char *val)
{
    json_t *o;

    if (!val)
        return json_integer (1);
    if ((o = json_loads (val, JSON_DECODE_ANY, NULL)))
        return o;
    return string_value (what, val);
}

/* Set the dotted path key below root to value (stolen).  An invalid key is
 * shown as the user wrote it (shown may lack the prefix of key); a
 * non-object in the way is shown with its full path. */
static void set_path (const char *what, json_t *root, const char *key,
                      const char *shown, json_t *value)
{
    char *copy = strdup (key);
    char *name = copy;
    char *dot;

    if (!copy)
        nomem ();
    while ((dot = strchr (name, '.'))) {
        json_t *child;

        *dot = '\0';
        if (*name == '\0')
            die ("%s: invalid key '%s'", what, shown);
        if (!(child = json_object_get (root, name))) {
            child = json_object ();
            if (!child || json_object_set_new (root, name, child) < 0)
                die ("%s: invalid key '%s'", what, shown);
        }
        if (!json_is_object (child))
            die ("%s: '%.*s' is not an object", what, (int)(dot - copy), key);
        root = child;
        name = dot + 1;
    }
    if (*name == '\0')
        die ("%s: invalid key '%s'", what, shown);
    if (json_object_set_new (root, name, value) < 0)
        die ("%s: invalid key '%s'", what, shown);
    free (copy);
}

/* Split "KEY=VAL" into a key (caller frees) and *val (NULL without '='). */
static char *split_key (const char *arg, const char **val)
{
    const char *eq = strchr (arg, '=');
    char *key = eq ? strndup (arg, eq - arg) : strdup (arg);

    if (!key)
        nomem ();
    *val = eq ? eq + 1 : NULL;
    return key;
}

/* --- environment -------------------------------------------------------- */

/* Copy the variables of environ whose names match pattern (all: NULL). */
static void env_copy (struct env *env, const char *pattern)
{
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr (*e, '=');
        char *name;
        json_t *value;

        if (!eq || eq == *e || !(name = strndup (*e, eq - *e)))
            continue;
        if (!pattern || fnmatch (pattern, name, 0) == 0) {
            if ((value = json_string (eq + 1)))
                json_object_set_new (env->vars, name, value);
            else
                json_object_set_new (env->skipped, name, json_null ());
        }
        free (name);
    }
}

static void env_remove (json_t *vars, const char *pattern)
{
    const char *key;
    json_t *value;
    void *tmp;

    json_object_foreach_safe (vars, tmp, key, value) {
        if (fnmatch (pattern, key, 0) == 0)
            json_object_del (vars, key);
    }
}

static void env_rule (struct env *env, const char *rule)
{
    const char *eq = strchr (rule, '=');
    char *name;
    json_t *value;

    if (rule[0] == '\0' || !strcmp (rule, "-") || eq == rule)
        die ("--env: invalid rule '%s'", rule);
    if (rule[0] == '^')
        die ("--env: reading rules from a file ('%s') is not supported", rule);
    if (rule[0] == '-') {
        env_remove (env->vars, rule + 1);
        env_remove (env->skipped, rule + 1);
    } else if (eq) {
        if (!(name = strndup (rule, eq - rule))
            || !(value = json_string (eq + 1))
            || json_object_set_new (env->vars, name, value) < 0)
            die ("--env: '%s': not valid UTF-8", rule);
        json_object_del (env->skipped, name);
        free (name);
    } else {
        env_copy (env, rule);
    }
}

static void env_warn_skipped (const struct env *env)
{
    const char *key;
    json_t *value;

    json_object_foreach (env->skipped, key, value) {
        cmd_warn (SUB,
                  "create: environment: %s: value is not valid UTF-8, "
                  "not copied",
                  key);
    }
}

/* --- options ------------------------------------------------------------ */

enum {
    OPT_TASKS_PER_NODE = 256,
    OPT_REQUIRES,
    OPT_ENV,
    OPT_CWD,
    OPT_JSON,
};

static const struct option longopts[] = {
    { "nodes", required_argument, NULL, 'N' },
    { "ntasks", required_argument, NULL, 'n' },
    { "cores-per-task", required_argument, NULL, 'c' },
    { "gpus-per-task", required_argument, NULL, 'g' },
    { "tasks-per-node", required_argument, NULL, OPT_TASKS_PER_NODE },
    { "exclusive", no_argument, NULL, 'x' },
    { "time-limit", required_argument, NULL, 't' },
    { "queue", required_argument, NULL, 'q' },
    { "requires", required_argument, NULL, OPT_REQUIRES },
    { "env", required_argument, NULL, OPT_ENV },
    { "setopt", required_argument, NULL, 'o' },
    { "setattr", required_argument, NULL, 'S' },
    { "cwd", required_argument, NULL, OPT_CWD },
    { "json", no_argument, NULL, OPT_JSON },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

#define SHORTOPTS "+:N:n:c:g:xt:q:o:S:h"

/* Report the option getopt_long just rejected (it returned c). */
static void bad_option (int c, char **argv)
{
    char buf[CMD_OPTION_ERROR_SIZE];

    usage_error ("%s", cmd_option_error (buf, sizeof (buf), c, argv, SHORTOPTS,
                                         longopts));
}

/* Kept as text until every option is read: the configuration that a
 * command loads before it builds the jobspec may add operators. */
static void add_requires (struct create *cr, const char *query)
{
    if (json_array_append_new (cr->constraints, json_string (query)) < 0)
        nomem ();
}

static void parse_requires (struct create *cr)
{
    size_t i;
    json_t *q;

    json_array_foreach (cr->constraints, i, q) {
        rp_error_t error;
        json_t *o = rp_constraint_query_parse (json_string_value (q), &error);
        if (!o)
            die ("--requires: %s", error.text);
        if (json_array_set_new (cr->constraints, i, o) < 0)
            nomem ();
    }
}

static void add_setopt (struct create *cr, const char *arg)
{
    const char *val;
    char *key = split_key (arg, &val);

    set_path ("--setopt", cr->options, key, key, parse_value ("--setopt", val));
    free (key);
}

static void parse_option (struct create *cr, int c, char **argv)
{
    switch (c) {
    case 'N':
        cr->nodes = parse_count ("--nodes", optarg, 1);
        break;
    case 'n':
        cr->ntasks = parse_count ("--ntasks", optarg, 1);
        break;
    case 'c':
        cr->cores = parse_count ("--cores-per-task", optarg, 1);
        break;
    case 'g':
        cr->gpus = parse_count ("--gpus-per-task", optarg, 0);
        break;
    case OPT_TASKS_PER_NODE:
        cr->tasks_per_node = parse_count ("--tasks-per-node", optarg, 1);
        break;
    case 'x':
        cr->exclusive = true;
        break;
    case 't':
        cr->duration = parse_duration (optarg);
        break;
    case 'q':
        cr->queue = optarg;
        break;
    case OPT_REQUIRES:
        add_requires (cr, optarg);
        break;
    case OPT_ENV:
        env_rule (&cr->env, optarg);
        break;
    case 'o':
        add_setopt (cr, optarg);
        break;
    case 'S':
        cr->setattrs[cr->nsetattrs++] = optarg;
        break;
    case OPT_CWD:
        cr->cwd = optarg;
        break;
    case OPT_JSON:
        cr->json = true;
        break;
    default:
        bad_option (c, argv);
    }
}

/* Check the counts against each other; settle ntasks. */
static void check_counts (struct create *cr)
{
    if (cr->tasks_per_node && !cr->nodes)
        usage_error ("--tasks-per-node needs --nodes");
    if (cr->tasks_per_node && cr->ntasks)
        usage_error ("--tasks-per-node and --ntasks cannot be used "
                     "together");
    if (cr->exclusive && !cr->nodes)
        usage_error ("--exclusive needs --nodes");
    /* like flux run: -N without -n implies -x and one task per node */
    if (cr->nodes && !cr->ntasks)
        cr->exclusive = true;
    if (cr->tasks_per_node) {
        if (cr->tasks_per_node > COUNT_MAX / cr->nodes)
            die ("--tasks-per-node: %ld nodes * %ld tasks is too many tasks",
                 cr->nodes, cr->tasks_per_node);
        cr->ntasks = cr->nodes * cr->tasks_per_node;
    }
    if (!cr->ntasks)
        cr->ntasks = cr->nodes ? cr->nodes : 1;
    if (cr->nodes > cr->ntasks)
        die ("node count (%ld) is greater than task count (%ld)", cr->nodes,
             cr->ntasks);
}

/* --- the jobspec -------------------------------------------------------- */

static json_t *make_resources (const struct create *cr)
{
    json_t *with = json_pack ("[{s:s s:I}]", "type", "core", "count",
                              (json_int_t)cr->cores);
    long nslots =
        cr->nodes ? (cr->ntasks + cr->nodes - 1) / cr->nodes : cr->ntasks;
    json_t *slot;
    json_t *node;

    if (cr->gpus > 0)
        json_array_append_new (with, json_pack ("{s:s s:I}", "type", "gpu",
                                                "count", (json_int_t)cr->gpus));
    slot = json_pack ("{s:s s:I s:s s:o}", "type", "slot", "count",
                      (json_int_t)nslots, "label", "task", "with", with);
    if (!slot)
        nomem ();
    if (!cr->nodes)
        return json_pack ("[o]", slot);
    node = json_pack ("{s:s s:I s:[o]}", "type", "node", "count",
                      (json_int_t)cr->nodes, "with", slot);
    if (node && cr->exclusive)
        json_object_set_new (node, "exclusive", json_true ());
    return json_pack ("[o]", node);
}

static json_t *make_tasks (const struct create *cr, int argc, char **argv)
{
    json_t *command = json_array ();
    json_t *count;
    char what[64];

    if (!command)
        nomem ();
    for (int i = 0; i < argc; i++) {
        snprintf (what, sizeof (what), "command argument %d", i);
        json_array_append_new (command, string_value (what, argv[i]));
    }
    if (cr->nodes && cr->ntasks % cr->nodes != 0)
        count = json_pack ("{s:I}", "total", (json_int_t)cr->ntasks);
    else
        count = json_pack ("{s:i}", "per_slot", 1);
    return json_pack ("[{s:o s:s s:o}]", "command", command, "slot", "task",
                      "count", count);
}

/* The --requires constraints and-ed: one alone, else {"and": [...]} with
 * the values of an "and" spliced in.  NULL when there is none. */
static json_t *make_constraints (const json_t *list)
{
    json_t *values;
    const json_t *c;
    size_t i;

    if (json_array_size (list) <= 1)
        return json_incref (json_array_get (list, 0));
    if (!(values = json_array ()))
        nomem ();
    json_array_foreach (list, i, c) {
        const json_t *and = json_object_get (c, "and");
        int rc = json_object_size (c) == 1 && and
                     ? json_array_extend (values, (json_t *)and)
                     : json_array_append (values, (json_t *)c);
        if (rc < 0)
            nomem ();
    }
    return json_pack ("{s:o}", "and", values);
}

static json_t *make_system (struct create *cr)
{
    json_t *constraints;
    json_t *system;
    char *cwd = NULL;

    if (!cr->cwd && !(cwd = getcwd (NULL, 0)))
        die ("cannot get the current directory: %s", strerror (errno));
    system = json_pack ("{s:f s:o s:o}", "duration", cr->duration, "cwd",
                        string_value ("--cwd", cr->cwd ? cr->cwd : cwd),
                        "environment", json_incref (cr->env.vars));
    free (cwd);
    if (!system)
        nomem ();
    if (cr->queue)
        json_object_set_new (system, "queue",
                             string_value ("--queue", cr->queue));
    if ((constraints = make_constraints (cr->constraints)))
        json_object_set_new (system, "constraints", constraints);
    if (json_object_size (cr->options) > 0)
        json_object_set_new (system, "shell",
                             json_pack ("{s:O}", "options", cr->options));
    return system;
}

static void apply_setattr (json_t *attributes, const char *arg)
{
    const char *val;
    char *key = split_key (arg, &val);
    char *full = key;

    if (strncmp (key, "system.", 7) && strncmp (key, "user.", 5)) {
        if (asprintf (&full, "system.%s", key) < 0)
            nomem ();
    }
    set_path ("--setattr", attributes, full, key,
              parse_value ("--setattr", val));
    if (full != key)
        free (full);
    free (key);
}

/* The system attributes respol knows must keep their RFC 14 types. */
static void check_system (const json_t *system)
{
    const json_t *o;
    rp_error_t error;
    struct rp_constraint *c;

    o = json_object_get (system, "duration");
    if (!json_is_number (o) || json_number_value (o) < 0
        || !isfinite (json_number_value (o)))
        die ("--setattr: system.duration must be a number >= 0");
    if (!json_is_string (json_object_get (system, "cwd")))
        die ("--setattr: system.cwd must be a string");
    o = json_object_get (system, "queue");
    if (o && !json_is_string (o))
        die ("--setattr: system.queue must be a string");
    if (!json_is_object (json_object_get (system, "environment")))
        die ("--setattr: system.environment must be an object");
    if ((o = json_object_get (system, "constraints"))) {
        if (!(c = rp_constraint_compile (o, &error)))
            die ("system.constraints: %s", error.text);
        rp_constraint_destroy (c);
    }
}

static json_t *make_jobspec (struct create *cr, int argc, char **argv)
{
    json_t *attributes;
    json_t *jobspec;

    attributes = json_pack ("{s:o}", "system", make_system (cr));
    if (!attributes)
        nomem ();
    for (int i = 0; i < cr->nsetattrs; i++)
        apply_setattr (attributes, cr->setattrs[i]);
    check_system (json_object_get (attributes, "system"));
    jobspec = json_pack ("{s:i s:o s:o s:o}", "version", 1, "resources",
                         make_resources (cr), "tasks",
                         make_tasks (cr, argc, argv), "attributes", attributes);
    if (!jobspec)
        nomem ();
    return jobspec;
}

/* What create prints must be V1 jobspec: check it with the validator
 * `respol jobspec validate` uses, and refuse to print it otherwise (a
 * --setattr or --cwd can make it invalid: "cwd: must be an absolute
 * path", "job.name: must be a string", ...).  Returns 0, or -1 after
 * printing every error. */
static int check_jobspec (const json_t *jobspec)
{
    struct rp_diags *diags = rp_diags_create ();
    struct rp_jobspec *js;

    if (!diags)
        nomem ();
    js = rp_jobspec_from_json (jobspec, "jobspec", RP_JOBSPEC_V1, diags);
    for (size_t i = 0; !js && i < rp_diags_count (diags); i++) {
        if (rp_diags_severity (diags, i) == RP_DIAG_ERROR)
            cmd_warn (msg_sub, "%s%s", msg_prefix, rp_diags_text (diags, i));
    }
    rp_diags_destroy (diags);
    if (!js)
        return -1;
    rp_jobspec_destroy (js);
    return 0;
}

static void print_jobspec (const json_t *jobspec, bool json)
{
    char *s;

    if (json) {
        cmd_print_json (jobspec);
        return;
    }
    if (!(s = rp_doc_dump_yaml (jobspec)))
        die ("YAML: %s", strerror (errno));
    fputs (s, stdout);
    free (s);
}

/* Merge the caller's options into the option tables (caller frees). */
static struct option *merged_options (const struct cmd_create_extra *x,
                                      char **shortopts)
{
    size_t n = 0, m = 0;
    struct option *o;

    while (x && x->opts[m].name)
        m++;
    while (longopts[n].name)
        n++;
    if (!(o = calloc (n + m + 1, sizeof (*o)))
        || asprintf (shortopts, "%s%s", SHORTOPTS,
                     x && x->shortopts ? x->shortopts : "")
               < 0)
        nomem ();
    memcpy (o, longopts, n * sizeof (*o));
    if (m)
        memcpy (o + n, x->opts, m * sizeof (*o));
    return o;
}

static bool is_extra (const struct cmd_create_extra *x, int c)
{
    for (size_t i = 0; x && x->opts[i].name; i++)
        if (x->opts[i].val == c)
            return true;
    return x && x->shortopts && c > 0 && c < 256 && c != ':'
           && strchr (x->shortopts, c);
}

/* Parse the options and build the jobspec (checked as V1); NULL after
 * printing why.  *cmdind: the index of COMMAND in argv. */
static json_t *create (struct create *cr, int argc, char **argv,
                       const struct cmd_create_extra *x, int *cmdind)
{
    char *shortopts = NULL;
    struct option *opts = merged_options (x, &shortopts);
    json_t *jobspec;
    int c;

    env_copy (&cr->env, NULL);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, shortopts, opts, NULL)) != -1) {
        if (c == 'h' && x && x->usage) {
            x->usage (stdout);
            exit (0);
        }
        if (c == 'h') {
            usage (stdout);
            exit (0);
        }
        if (is_extra (x, c))
            x->fn (c, optarg, x->ctx);
        else if (x && c == OPT_JSON)
            usage_error ("--json prints jobspec in respol jobspec create; "
                         "here --dry-run --format=json prints the job");
        else if (c == '?' || c == ':') {
            char buf[CMD_OPTION_ERROR_SIZE];
            usage_error ("%s", cmd_option_error (buf, sizeof (buf), c, argv,
                                                 shortopts, opts));
        } else
            parse_option (cr, c, argv);
    }
    free (shortopts);
    free (opts);
    if (optind == argc)
        usage_error ("missing command");
    *cmdind = optind;
    check_counts (cr);
    env_warn_skipped (&cr->env);
    if (x && x->prepare)
        x->prepare (x->ctx);
    parse_requires (cr);
    jobspec = make_jobspec (cr, argc - optind, argv + optind);
    if (check_jobspec (jobspec) < 0) {
        json_decref (jobspec);
        return NULL;
    }
    return jobspec;
}

static void create_init (struct create *cr, int argc)
{
    *cr = (struct create){ .cores = 1 };
    cr->env.vars = json_object ();
    cr->env.skipped = json_object ();
    cr->constraints = json_array ();
    cr->options = json_object ();
    cr->setattrs = calloc ((size_t)argc + 1, sizeof (cr->setattrs[0]));
    if (!cr->env.vars || !cr->env.skipped || !cr->constraints || !cr->options
        || !cr->setattrs)
        nomem ();
}

static void create_free (struct create *cr)
{
    json_decref (cr->env.vars);
    json_decref (cr->env.skipped);
    json_decref (cr->constraints);
    json_decref (cr->options);
    free (cr->setattrs);
}

json_t *cmd_jobspec_from_args (const char *sub, int argc, char **argv,
                               const struct cmd_create_extra *x)
{
    struct create cr;
    json_t *jobspec;
    int cmdind;

    msg_sub = sub;
    msg_prefix = "";
    create_init (&cr, argc);
    jobspec = create (&cr, argc, argv, x, &cmdind);
    create_free (&cr);
    if (!jobspec)
        cmd_die (sub, "the options make an invalid V1 jobspec");
    return jobspec;
}

int cmd_jobspec_create (int argc, char **argv)
{
    struct create cr;
    json_t *jobspec;
    int cmdind;

    create_init (&cr, argc);
    jobspec = create (&cr, argc, argv, NULL, &cmdind);
    if (jobspec) {
        print_jobspec (jobspec, cr.json);
        if (fflush (stdout) != 0 || ferror (stdout))
            die ("write error: %s", strerror (errno));
    }
    json_decref (jobspec);
    create_free (&cr);
    if (!jobspec) {
        cmd_warn (SUB, "create: the options make an invalid V1 jobspec");
        return EXIT_INPUT;
    }
    return 0;
}
