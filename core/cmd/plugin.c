/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol plugin: show the configured plugin stacks, describe a plugin
 * file (see api/respol/config.h), and write a new plugin (new, in
 * core/cmd/scaffold.c, with options of its own).
 *
 *   respol plugin list [--config=FILE] [--json]
 *   respol plugin info [--json] FILE
 *   respol plugin new --kind=validate|match|shell|property|queue [--dir=DIR] NAME
 *
 * list loads the configuration as every command does (--config, else
 * $RESPOL_CONFIG, else the installed default), so it also inits every
 * plugin: what it lists is exactly what would run.  It prints one line per
 * instance, in stack order (stacks in kind order), under a header:
 *   KIND  NAME  VERSION  ABI  FILE  DESCRIPTION
 * with "-" for a version or description the plugin does not give.
 * info loads a file without calling anything in it (rp_plugin_inspect); a
 * relative FILE is relative to the current directory (never searched for)
 * and is shown as an absolute path.  --json prints JSON with sorted keys:
 * an array of instances for list, one object for info.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/config.h>

#include "cmd.h"

#define SUB "plugin"

enum { OPT_HELP = 256, OPT_CONFIG, OPT_JSON };

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "config", required_argument, NULL, OPT_CONFIG },
    { "json", no_argument, NULL, OPT_JSON },
    { "verbose", no_argument, NULL, 'v' },
    { NULL, 0, NULL, 0 },
};

struct options {
    const char *config;
    bool json;
    int verbose; /* -v given after the subcommand */
};

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: respol plugin list [--config=FILE] [--json] [-v]\n"
             "       respol plugin info [--json] FILE\n"
             "       respol plugin new --kind=validate|match|shell|property|queue "
             "[--dir=DIR] NAME\n"
             "       respol plugin test [OPTIONS] [RESOURCE-OPTION] PLUGIN "
             "JOBSPEC...\n\n"
             "Subcommands:\n"
             "  list       list the configured plugin instances, in stack "
             "order\n"
             "  info       print the descriptor of a plugin file without "
             "running it\n"
             "  new        write NAME.c, a commented plugin that builds as "
             "it is,\n"
             "             and print how to build and enable it\n\n"
             "Options:\n"
             "      --config=FILE   the configuration (list; default "
             "$RESPOL_CONFIG,\n"
             "                      else %s)\n"
             "      --json          print JSON\n"
             "      --kind=KIND     new: validate (a jobspec validator), "
             "match (a match\n"
             "                      policy), shell (a job-shell plugin) or "
             "property\n"
             "                      (a property plugin)\n"
             "      --dir=DIR       new: write DIR/NAME.c (default: the "
             "current\n"
             "                      directory); never overwrites a file\n"
             "  -v, --verbose       print plugin messages up to info "
             "(-vv: debug)\n"
             "  -h, --help          print this message\n\n"
             "A plugin named without '/' in the configuration is searched "
             "in its\n"
             "plugin-path, then $RESPOL_PLUGIN_PATH, then %s.\n",
             rp_config_default_path (), rp_config_plugin_dir ());
}

/* --- helpers ------------------------------------------------------------ */

static struct rp_config *load_config (const char *path)
{
    struct rp_config *cfg = cmd_load_config (SUB, path);

    if (!cfg)
        exit (EXIT_INPUT);
    return cfg;
}

static const char *or_dash (const char *s)
{
    return s ? s : "-";
}

static json_t *plugin_json (const struct rp_plugin *p, bool instance)
{
    json_t *o = json_pack (
        "{s:s s:s s:I s:s? s:s? s:s}", "name", rp_plugin_name (p), "kind",
        rp_plugin_kind_name (rp_plugin_kind (p)), "abi",
        (json_int_t)rp_plugin_abi_version (p), "version", rp_plugin_version (p),
        "description", rp_plugin_description (p), "file", rp_plugin_file (p));

    if (!o)
        cmd_die (SUB, "out of memory");
    if (instance
        && json_object_set_new (o, "instance",
                                json_string (rp_plugin_instance (p)))
               < 0)
        cmd_die (SUB, "out of memory");
    return o;
}

/* --- list --------------------------------------------------------------- */

enum { COL_KIND, COL_NAME, COL_VERSION, COL_ABI, COL_FILE, COL_DESC, NCOLS };

static void row (const char *const cell[NCOLS], const int width[NCOLS])
{
    for (int c = 0; c < NCOLS - 1; c++)
        printf ("%-*s  ", width[c], cell[c]);
    printf ("%s\n", cell[NCOLS - 1]);
}

/* Fill the cells of instance p (abi is a buffer for the number). */
static void cells (const struct rp_plugin *p, char abi[16],
                   const char *cell[NCOLS])
{
    snprintf (abi, 16, "%u", (unsigned)rp_plugin_abi_version (p));
    cell[COL_KIND] = rp_plugin_kind_name (rp_plugin_kind (p));
    cell[COL_NAME] = rp_plugin_instance (p);
    cell[COL_VERSION] = or_dash (rp_plugin_version (p));
    cell[COL_ABI] = abi;
    cell[COL_FILE] = rp_plugin_file (p);
    cell[COL_DESC] = or_dash (rp_plugin_description (p));
}

static void list_table (const struct rp_config *cfg)
{
    static const char *const header[NCOLS] = {
        "KIND", "NAME", "VERSION", "ABI", "FILE", "DESCRIPTION",
    };
    int width[NCOLS];
    const char *cell[NCOLS];
    char abi[16];

    for (int c = 0; c < NCOLS; c++)
        width[c] = strlen (header[c]);
    for (uint32_t k = RP_PLUGIN_VALIDATE; k <= RP_PLUGIN_QUEUE; k++) {
        const struct rp_stack *s = rp_config_stack (cfg, k);
        for (size_t i = 0; i < rp_stack_count (s); i++) {
            cells (rp_stack_plugin (s, i), abi, cell);
            for (int c = 0; c < NCOLS; c++)
                if ((int)strlen (cell[c]) > width[c])
                    width[c] = strlen (cell[c]);
        }
    }
    row (header, width);
    for (uint32_t k = RP_PLUGIN_VALIDATE; k <= RP_PLUGIN_QUEUE; k++) {
        const struct rp_stack *s = rp_config_stack (cfg, k);
        for (size_t i = 0; i < rp_stack_count (s); i++) {
            cells (rp_stack_plugin (s, i), abi, cell);
            row (cell, width);
        }
    }
}

static void list_json (const struct rp_config *cfg)
{
    json_t *a = json_array ();

    if (!a)
        cmd_die (SUB, "out of memory");
    for (uint32_t k = RP_PLUGIN_VALIDATE; k <= RP_PLUGIN_QUEUE; k++) {
        const struct rp_stack *s = rp_config_stack (cfg, k);
        for (size_t i = 0; i < rp_stack_count (s); i++)
            if (json_array_append_new (
                    a, plugin_json (rp_stack_plugin (s, i), true))
                < 0)
                cmd_die (SUB, "out of memory");
    }
    cmd_print_json (a);
    json_decref (a);
}

static int run_list (const struct options *o, int argc, char **argv)
{
    struct rp_config *cfg;

    if (argc > 0)
        cmd_usage_error (SUB, "list: unexpected argument '%s'", argv[0]);
    cfg = load_config (o->config);
    if (o->json)
        list_json (cfg);
    else
        list_table (cfg);
    rp_config_destroy (cfg);
    return 0;
}

/* --- info --------------------------------------------------------------- */

static int run_info (const struct options *o, int argc, char **argv)
{
    rp_error_t error;
    struct rp_plugin *p;

    if (o->config)
        cmd_usage_error (SUB, "info: unknown option '--config'");
    if (argc == 0)
        cmd_usage_error (SUB, "info: missing FILE argument");
    if (argc > 1)
        cmd_usage_error (SUB, "info: unexpected argument '%s'", argv[1]);
    if (!(p = rp_plugin_inspect (argv[0], &error)))
        cmd_die (SUB, "%s", error.text);
    if (o->json) {
        json_t *obj = plugin_json (p, false);
        cmd_print_json (obj);
        json_decref (obj);
    } else
        printf ("name: %s\nkind: %s\nversion: %s\nabi: %u\n"
                "description: %s\nfile: %s\n",
                rp_plugin_name (p), rp_plugin_kind_name (rp_plugin_kind (p)),
                or_dash (rp_plugin_version (p)),
                (unsigned)rp_plugin_abi_version (p),
                or_dash (rp_plugin_description (p)), rp_plugin_file (p));
    rp_plugin_destroy (p);
    return 0;
}

/* --- options and dispatch ----------------------------------------------- */

#define SHORTOPTS "hv"

/* Report the option getopt_long just rejected (it returned c). */
static void bad_option (const char *prefix, int c, char **argv)
{
    cmd_bad_option (SUB, prefix, c, argv, SHORTOPTS, opts);
}

/* optstring: "+" SHORTOPTS before the subcommand name (stop at it),
 * SHORTOPTS after it (options anywhere among the arguments). */
static void parse_options (const char *prefix, const char *optstring,
                           struct options *o, int argc, char **argv)
{
    int c;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, optstring, opts, NULL)) != -1) {
        if (c == 'h' || c == OPT_HELP) {
            usage (stdout);
            exit (0);
        }
        if (c == '?')
            bad_option (prefix, c, argv);
        if (c == OPT_CONFIG)
            o->config = optarg;
        else if (c == 'v')
            o->verbose++;
        else
            o->json = true;
    }
}

int cmd_plugin (int argc, char **argv)
{
    struct options o = { NULL, false, 0 };
    int (*run) (const struct options *, int, char **);
    int status;

    parse_options ("", "+" SHORTOPTS, &o, argc, argv);
    if (o.config || o.json || o.verbose)
        cmd_usage_error (SUB, "options come after the subcommand");
    if (optind == argc)
        cmd_usage_error (SUB, "missing subcommand");
    if (!strcmp (argv[optind], "new"))
        return cmd_plugin_new (argc - optind, argv + optind, usage);
    if (!strcmp (argv[optind], "test"))
        return cmd_plugin_test (argc - optind, argv + optind);
    if (!strcmp (argv[optind], "list"))
        run = run_list;
    else if (!strcmp (argv[optind], "info"))
        run = run_info;
    else
        cmd_usage_error (SUB, "unknown subcommand '%s'", argv[optind]);
    argc -= optind;
    argv += optind;
    parse_options (run == run_list ? "list: " : "info: ", SHORTOPTS, &o, argc,
                   argv);
    for (int i = 0; i < o.verbose; i++)
        cmd_verbose ();
    status = run (&o, argc - optind, argv + optind);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return status;
}
