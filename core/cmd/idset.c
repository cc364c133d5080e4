/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol idset: encode, expand and combine RFC 22 idsets from the command
 * line (see api/respol/idset.h for the string form).
 *
 *   respol idset encode [--no-ranges] [--brackets] IDSET...
 *   respol idset expand|count|min|max IDSET
 *   respol idset union|intersect|diff A B
 *
 * Each subcommand is a row of a table with its argument count and its
 * action, so argument checking is written once.  A bad IDSET argument is an
 * input error (exit 1) printed as "respol: idset: <library error text>"
 * without the library's own "idset: " prefix;
 * a wrong number of arguments, an unknown option or subcommand is a usage
 * error (exit 2).  A subcommand's options may come before or after its
 * arguments; an argument that starts with '-' needs "--" before it.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/idset.h>

#include "cmd.h"

#define SUB "idset"

struct idset_cmd {
    const char *name;
    int nargs; /* exact count, or -1 for one or more */
    const char *args;
    const char *summary;
    void (*run) (const struct idset_cmd *cmd, int flags, int argc, char **argv);
};

static struct rp_idset *decode_arg (const char *s)
{
    rp_error_t error;
    struct rp_idset *set = rp_idset_decode (s, &error);

    /* The library's text starts with "idset: "; the command's prefix already
     * says that, so print the rest: respol: idset: "3,2": ... */
    if (!set) {
        const char *text = error.text;
        if (!strncmp (text, "idset: ", 7))
            text += 7;
        cmd_die (SUB, "%s", text);
    }
    return set;
}

static void print_set (const struct rp_idset *set, int flags)
{
    char *s = rp_idset_encode (set, flags);

    if (!s)
        cmd_die (SUB, "encode: %s", strerror (errno));
    printf ("%s\n", s);
    free (s);
}

static void run_encode (const struct idset_cmd *cmd, int flags, int argc,
                        char **argv)
{
    for (int i = 0; i < argc; i++) {
        struct rp_idset *set = decode_arg (argv[i]);
        print_set (set, flags);
        rp_idset_destroy (set);
    }
}

/* Print every member, one per line, range by range (no allocation). */
static void run_expand (const struct idset_cmd *cmd, int flags, int argc,
                        char **argv)
{
    struct rp_idset *set = decode_arg (argv[0]);
    unsigned int lo, hi;

    for (size_t i = 0; rp_idset_range (set, i, &lo, &hi); i++) {
        for (unsigned int id = lo;; id++) {
            printf ("%u\n", id);
            if (id == hi)
                break;
        }
    }
    rp_idset_destroy (set);
}

static void run_count (const struct idset_cmd *cmd, int flags, int argc,
                       char **argv)
{
    struct rp_idset *set = decode_arg (argv[0]);

    printf ("%zu\n", rp_idset_count (set));
    rp_idset_destroy (set);
}

static void run_minmax (const struct idset_cmd *cmd, int flags, int argc,
                        char **argv)
{
    struct rp_idset *set = decode_arg (argv[0]);

    if (rp_idset_empty (set))
        cmd_die (SUB, "%s: set is empty", cmd->name);
    if (!strcmp (cmd->name, "min"))
        printf ("%u\n", rp_idset_min (set));
    else
        printf ("%u\n", rp_idset_max (set));
    rp_idset_destroy (set);
}

static void run_algebra (const struct idset_cmd *cmd, int flags, int argc,
                         char **argv)
{
    struct rp_idset *a = decode_arg (argv[0]);
    struct rp_idset *b = decode_arg (argv[1]);
    struct rp_idset *result;

    if (!strcmp (cmd->name, "union"))
        result = rp_idset_union (a, b);
    else if (!strcmp (cmd->name, "intersect"))
        result = rp_idset_intersect (a, b);
    else
        result = rp_idset_difference (a, b);
    if (!result)
        cmd_die (SUB, "%s: %s", cmd->name, strerror (errno));
    print_set (result, RP_IDSET_RANGES);
    rp_idset_destroy (result);
    rp_idset_destroy (a);
    rp_idset_destroy (b);
}

static const struct idset_cmd commands[] = {
    { "encode", -1, "[--no-ranges] [--brackets] IDSET...",
      "print each idset normalised, one per line", run_encode },
    { "expand", 1, "IDSET", "print every id, one per line", run_expand },
    { "count", 1, "IDSET", "print the number of ids", run_count },
    { "min", 1, "IDSET", "print the smallest id", run_minmax },
    { "max", 1, "IDSET", "print the largest id", run_minmax },
    { "union", 2, "A B", "print the ids in A or B", run_algebra },
    { "intersect", 2, "A B", "print the ids in both A and B", run_algebra },
    { "diff", 2, "A B", "print the ids in A and not in B", run_algebra },
    { NULL, 0, NULL, NULL, NULL },
};

static void usage (FILE *f)
{
    fprintf (f, "Usage: respol idset SUBCOMMAND [OPTIONS] ARGS...\n\n");
    fprintf (f, "Subcommands:\n");
    for (const struct idset_cmd *c = commands; c->name; c++)
        fprintf (f, "  %-10s %s\n", c->name, c->summary);
    fprintf (f, "\nRun 'respol idset SUBCOMMAND --help' for its options.\n");
}

static void usage_cmd (FILE *f, const struct idset_cmd *c)
{
    fprintf (f, "Usage: respol idset %s %s\n\n%c%s.\n", c->name, c->args,
             toupper ((unsigned char)c->summary[0]), c->summary + 1);
    fprintf (f, "\nOptions:\n");
    if (!strcmp (c->name, "encode")) {
        fprintf (f, "      --no-ranges  list every id (\"1,2,3\" not "
                    "\"1-3\")\n");
        fprintf (f, "      --brackets   add [] when there is more than one "
                    "id\n");
    }
    fprintf (f, "  -h, --help       print this message\n");
}

/* Long-only options have values >= 256, so a rejected option whose optopt
 * is below 256 was a short one. */
enum { OPT_HELP = 256, OPT_NO_RANGES, OPT_BRACKETS };

static const struct option encode_opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "no-ranges", no_argument, NULL, OPT_NO_RANGES },
    { "brackets", no_argument, NULL, OPT_BRACKETS },
    { NULL, 0, NULL, 0 },
};

static const struct option help_opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { NULL, 0, NULL, 0 },
};

/* Subcommand options may come anywhere among the arguments (ids cannot
 * start with '-'); the dispatch level stops at the subcommand name. */
#define SHORTOPTS "h"

/* Report the option getopt_long just rejected (it returned c). */
static void bad_option (const char *prefix, int c, char **argv,
                        const struct option *opts)
{
    cmd_bad_option (SUB, prefix, c, argv, SHORTOPTS, opts);
}

/* Parse the options of cmd; return the encoding flags. */
static int parse_options (const struct idset_cmd *cmd, int argc, char **argv)
{
    const struct option *opts =
        cmd->run == run_encode ? encode_opts : help_opts;
    char prefix[32];
    int flags = RP_IDSET_RANGES;
    int c;

    snprintf (prefix, sizeof (prefix), "%s: ", cmd->name);
    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, SHORTOPTS, opts, NULL)) != -1) {
        if (c == 'h' || c == OPT_HELP) {
            usage_cmd (stdout, cmd);
            exit (0);
        } else if (c == OPT_NO_RANGES) {
            flags &= ~RP_IDSET_RANGES;
        } else if (c == OPT_BRACKETS) {
            flags |= RP_IDSET_BRACKETS;
        } else {
            bad_option (prefix, c, argv, opts);
        }
    }
    return flags;
}

static void check_nargs (const struct idset_cmd *cmd, int nargs, char **args)
{
    if (nargs == 0 || (cmd->nargs == 2 && nargs == 1))
        cmd_usage_error (SUB, "%s: missing IDSET argument", cmd->name);
    if (cmd->nargs > 0 && nargs > cmd->nargs)
        cmd_usage_error (SUB, "%s: unexpected argument '%s'", cmd->name,
                         args[cmd->nargs]);
}

static const struct idset_cmd *find_command (const char *name)
{
    for (const struct idset_cmd *c = commands; c->name; c++)
        if (!strcmp (c->name, name))
            return c;
    cmd_usage_error (SUB, "unknown subcommand '%s'", name);
}

int cmd_idset (int argc, char **argv)
{
    const struct idset_cmd *cmd;
    int flags;
    int c;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, "+" SHORTOPTS, help_opts, NULL))
           != -1) {
        if (c != 'h' && c != OPT_HELP)
            bad_option ("", c, argv, help_opts);
        usage (stdout);
        return 0;
    }
    if (optind == argc)
        cmd_usage_error (SUB, "missing subcommand");
    cmd = find_command (argv[optind]);
    argc -= optind;
    argv += optind;
    flags = parse_options (cmd, argc, argv);
    check_nargs (cmd, argc - optind, argv + optind);
    cmd->run (cmd, flags, argc - optind, argv + optind);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return 0;
}
