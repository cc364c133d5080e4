/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol config: check a configuration file (see api/respol/config.h).
 *
 *   respol config check [-v|--verbose]... [FILE]
 *
 * Checking is loading: the file is read, every plugin is found, loaded,
 * checked and initialised with its configuration block, exactly as any
 * command would, and then everything is unloaded.  Every error is
 * printed ("respol: config: respol.yaml:7:13: validate[1]: ..."), and the
 * exit status is 1 if there was any.  On success it says what was done,
 * and that no jobspec went through the plugins (a validate or match
 * operation that would fail or crash is not found by a check), on one
 * line:
 *   FILE: ok: 2 plugins loaded, checked and initialised with their
 *   configuration blocks (validate: limits, queues); no jobspec was run
 *   through them
 * Without FILE, the file every command would read is checked
 * ($RESPOL_CONFIG, else the installed default; a missing installed default
 * is reported as the empty configuration it stands for).  Messages that
 * plugins log at level warning or worse are printed, the others with -v
 * (info) or -vv (debug), as in every command.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/config.h>

#include "cmd.h"

#define SUB "config"

enum { OPT_HELP = 256, OPT_VERBOSE };

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "verbose", no_argument, NULL, OPT_VERBOSE },
    { NULL, 0, NULL, 0 },
};

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: respol config check [-v|--verbose]... [FILE]\n\n"
             "Subcommands:\n"
             "  check      load a configuration, its plugins and their "
             "blocks, and\n"
             "             report every error (FILE: default "
             "$RESPOL_CONFIG, else\n"
             "             %s)\n\n"
             "Options:\n"
             "  -v, --verbose       print plugin messages up to info "
             "(-vv: debug)\n"
             "  -h, --help          print this message\n",
             rp_config_default_path ());
}

/* Append to buf (size bytes, holding *len), truncating. */
static void append (char *buf, size_t size, size_t *len, const char *a,
                    const char *b)
{
    if (*len < size)
        *len += snprintf (buf + *len, size - *len, "%s%s", a, b);
}

/* "validate: a, b" for the stacks that have instances, into buf. */
static void describe_stacks (const struct rp_config *cfg, char *buf,
                             size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (uint32_t k = RP_PLUGIN_VALIDATE; k <= RP_PLUGIN_QUEUE; k++) {
        const struct rp_stack *s = rp_config_stack (cfg, k);
        if (rp_stack_count (s) == 0)
            continue;
        append (buf, size, &len, len ? "; " : "", rp_plugin_kind_name (k));
        for (size_t i = 0; i < rp_stack_count (s); i++)
            append (buf, size, &len, i ? ", " : ": ",
                    rp_plugin_instance (rp_stack_plugin (s, i)));
    }
}

static size_t count_plugins (const struct rp_config *cfg)
{
    size_t n = 0;

    for (uint32_t k = RP_PLUGIN_VALIDATE; k <= RP_PLUGIN_QUEUE; k++)
        n += rp_stack_count (rp_config_stack (cfg, k));
    return n;
}

static void print_ok (const struct rp_config *cfg)
{
    size_t n = count_plugins (cfg);
    char list[4096];

    if (!rp_config_path (cfg)) {
        printf ("%s: not found: the configuration is empty\n",
                rp_config_default_path ());
        return;
    }
    if (n == 0) {
        printf ("%s: ok: no plugins configured\n", rp_config_path (cfg));
        return;
    }
    describe_stacks (cfg, list, sizeof (list));
    printf ("%s: ok: %zu plugin%s loaded, checked and initialised with %s "
            "configuration block%s (%s); no jobspec was run through %s\n",
            rp_config_path (cfg), n, n == 1 ? "" : "s",
            n == 1 ? "its" : "their", n == 1 ? "" : "s", list,
            n == 1 ? "it" : "them");
}

static int run_check (const char *path)
{
    struct rp_config *cfg = cmd_load_config (SUB, path);

    if (!cfg)
        return EXIT_INPUT;
    print_ok (cfg);
    rp_config_destroy (cfg);
    rp_plugin_set_log (NULL, NULL);
    return 0;
}

#define SHORTOPTS "hv"

/* Report the option getopt_long just rejected. */
static void bad_option (const char *prefix, int c, char **argv)
{
    cmd_bad_option (SUB, prefix, c, argv, SHORTOPTS, opts);
}

/* Parse options of argv; returns how many -v were given. */
/* optstring: "+" SHORTOPTS before the subcommand name (stop at it),
 * SHORTOPTS after it (options anywhere among the arguments). */
static int parse_options (const char *prefix, const char *optstring, int argc,
                          char **argv)
{
    int verbose = 0;
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
        verbose++;
    }
    return verbose;
}

int cmd_config (int argc, char **argv)
{
    int verbose = parse_options ("", "+" SHORTOPTS, argc, argv);
    int status;

    if (verbose)
        cmd_usage_error (SUB, "options come after the subcommand");
    if (optind == argc)
        cmd_usage_error (SUB, "missing subcommand");
    if (strcmp (argv[optind], "check") != 0)
        cmd_usage_error (SUB, "unknown subcommand '%s'", argv[optind]);
    argc -= optind;
    argv += optind;
    verbose = parse_options ("check: ", SHORTOPTS, argc, argv);
    if (argc - optind > 1)
        cmd_usage_error (SUB, "check: unexpected argument '%s'",
                         argv[optind + 1]);
    for (int i = 0; i < verbose; i++)
        cmd_verbose ();
    status = run_check (optind < argc ? argv[optind] : NULL);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return status;
}
