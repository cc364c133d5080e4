/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol: the command.  `respol [-v]... SUBCOMMAND [OPTIONS] [ARGS]`.
 *
 * This file only dispatches; each subcommand lives in its own file and
 * prints errors as "respol: SUBCOMMAND: message", exiting 1 on bad input,
 * 2 on bad usage and 3 when a plugin failed (see cmd.h).  -v / --verbose
 * before the subcommand is taken by every subcommand (those that run no
 * plugin have no plugin messages to show); the subcommands that run
 * plugins also take it after their name.
 *
 * Run uninstalled, from the build tree that built it (the binary libtool
 * leaves in core/.libs), the command uses that tree's shipped plugins and
 * its conf/respol.yaml instead of the installed ones, as flux-core's
 * commands do; an installed respol is never that binary, so it never looks
 * in a build tree.
 *
 * Built with AddressSanitizer (configure --enable-sanitizers), leaks are
 * checked when a subcommand returns, not at exit(): a subcommand that
 * stops on an error exits from deep inside, its allocations held by
 * frames whose pointers the compiler need not keep, and LeakSanitizer
 * would report them or not depending on what the stack happens to hold.
 * An exit on error hands everything back to the system; a subcommand that
 * finishes must have freed what it took.
 */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <respol/config.h>

#include "config.h"
#include "core/paths.h"
#include "cmd.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
const char *__lsan_default_options (void);
const char *__lsan_default_options (void)
{
    return "leak_check_at_exit=0";
}
#define LEAK_CHECK() __lsan_do_leak_check ()
#else
#define LEAK_CHECK() ((void)0)
#endif

struct subcommand {
    const char *name;
    int (*fn) (int argc, char **argv);
    const char *summary;
};

static const struct subcommand subcommands[] = {
    { "idset", cmd_idset, "encode, expand and combine RFC 22 idsets" },
    { "hostlist", cmd_hostlist, "manipulate RFC 29 hostlists" },
    { "R", cmd_R, "encode, decode and combine RFC 20 resource sets" },
    { "jobspec", cmd_jobspec, "create, validate and convert RFC 14 jobspec" },
    { "plugin", cmd_plugin, "list configured plugins, describe a plugin file" },
    { "config", cmd_config, "check a configuration file" },
    { "graph", cmd_graph, "show or export a resource graph (RFC 4)" },
    { "match", cmd_match, "match a jobspec to resources, print R" },
    { "query", cmd_query, "run allocate, free, info... commands on a graph" },
    { "resource", cmd_resource,
      "the resource inventory: drain, status, RFC 28 acquire" },
    { "run", cmd_run, "run a command as a job on this machine, tasks bound" },
    { "shell", cmd_shell, "run this machine's tasks of a job (R, jobspec)" },
};

static void usage (FILE *f)
{
    fprintf (f, "Usage: respol [-v|--verbose]... [--help] [--version] "
                "SUBCOMMAND [ARGS...]\n\n");
    fprintf (f, "Subcommands:\n");
    for (size_t i = 0; i < sizeof (subcommands) / sizeof (subcommands[0]); i++)
        fprintf (f, "  %-10s %s\n", subcommands[i].name,
                 subcommands[i].summary);
    fprintf (f,
             "\n  -v, --verbose   print plugin messages up to info "
             "(-vv: debug; also\n"
             "                  RESPOL_LOG=err|warning|notice|info|debug)\n");
    fprintf (f, "\nRun 'respol SUBCOMMAND --help' for the options of one.\n");
    fprintf (f, "Exit status: 0 ok, 1 bad input or a rejected job, 2 usage "
                "error,\n3 a plugin failed.\n");
}

static void use_build_tree_when_uninstalled (void)
{
    char exe[PATH_MAX];
    char *built;
    ssize_t n = readlink ("/proc/self/exe", exe, sizeof (exe) - 1);

    if (n <= 0)
        return;
    exe[n] = '\0';
    if (!(built = realpath (RP_BUILD_EXEDIR, NULL)))
        return;
    if (!strcmp (dirname (exe), built))
        (void)rp_config_set_defaults (RP_BUILD_CONFIG, RP_BUILD_PLUGINDIRS);
    free (built);
}

/* Is arg -v, -vv... or --verbose?  Then count it. */
static bool verbose_option (const char *arg)
{
    size_t n = strspn (arg + (arg[0] == '-'), "v");

    if (!strcmp (arg, "--verbose")) {
        cmd_verbose ();
        return true;
    }
    if (arg[0] != '-' || n == 0 || arg[1 + n] != '\0')
        return false;
    while (n-- > 0)
        cmd_verbose ();
    return true;
}

int main (int argc, char **argv)
{
    int first = 1;

    use_build_tree_when_uninstalled ();
    while (first < argc && verbose_option (argv[first]))
        first++;
    if (first == argc) {
        usage (stderr);
        return EXIT_USAGE;
    }
    if (!strcmp (argv[first], "--help") || !strcmp (argv[first], "-h")
        || !strcmp (argv[first], "help")) {
        usage (stdout);
        return 0;
    }
    if (!strcmp (argv[first], "--version")) {
        printf ("respol %s (plugin ABI %d)\n", PACKAGE_VERSION,
                RP_PLUGIN_ABI_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof (subcommands) / sizeof (subcommands[0]);
         i++) {
        if (!strcmp (argv[first], subcommands[i].name)) {
            int rc = subcommands[i].fn (argc - first, argv + first);
            LEAK_CHECK ();
            return rc;
        }
    }
    if (argv[first][0] == '-') {
        fprintf (stderr, "respol: unknown option '%s'\n", argv[first]);
        fprintf (stderr, "Try 'respol --help' for more information.\n");
        return EXIT_USAGE;
    }
    fprintf (stderr, "respol: unknown subcommand '%s'\n", argv[first]);
    fprintf (stderr, "Try 'respol --help' for the list.\n");
    return EXIT_USAGE;
}
