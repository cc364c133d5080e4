/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol R filter: the execution targets of R that satisfy a constraint.
 *
 *   respol R filter [--config=FILE] CONSTRAINT  < R
 *
 * stdin holds one or more concatenated R objects (RFC 20); their union
 * (rp_rset_add) is filtered.  They are read as the other `respol R`
 * subcommands read them (cmd_read_fold: each object's text decoded
 * without a JSON tree where it can be, the same messages either way).
 * CONSTRAINT is an RFC 31 JSON object when its first non-blank character
 * is '{', else an RFC 35 query (api/respol/constraint.h).  The matching
 * subset is printed as compact R with sorted keys.  With --config, the
 * configuration is loaded first, so the operators its property plugins
 * add (respol/property.h) are known; without it none is loaded.
 *
 * Errors follow the other `respol R` subcommands (core/cmd/R.c):
 * "respol: R: filter: message", exit 1 for a bad constraint or bad R,
 * 2 for bad usage; empty input is "no R on stdin"; the "R: " that
 * library messages start with is dropped, and an error in the n-th object
 * of stdin reads "stdin: object n: ..." ("stdin: ..." when there is one).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/constraint.h>
#include <respol/rset.h>

#include "cmd.h"

#define SUB "R"

static void usage (FILE *f)
{
    fprintf (f, "Usage: respol R filter [--config=FILE] CONSTRAINT < R\n\n"
                "Print the execution targets of R (the union of the R objects "
                "on stdin)\n"
                "that satisfy CONSTRAINT: RFC 31 JSON ({\"properties\": "
                "[\"ssd\"]}) or an\n"
                "RFC 35 query (ssd, ^slowgpu, host:node[1-4], rank:0-3, and, "
                "or, not, -term,\n"
                "parentheses).  A query that starts with '-' needs '--' "
                "before it.\n\n"
                "Options:\n"
                "      --config=FILE  a configuration whose property plugins "
                "add operators\n"
                "  -h, --help         print this message\n");
}

#define die(...) cmd_die (SUB, "filter: " __VA_ARGS__)
#define usage_error(...) cmd_usage_error (SUB, "filter: " __VA_ARGS__)

static struct rp_constraint *compile_arg (const char *arg)
{
    const char *s = arg + strspn (arg, " \t\r\n");
    rp_error_t error;
    json_error_t jerr;
    json_t *o;
    struct rp_constraint *c;

    if (*s == '{') {
        if (!(o = json_loads (s, 0, &jerr)))
            die ("constraint: JSON: %s at offset %d", jerr.text,
                 jerr.position + (int)(s - arg));
    } else if (!(o = rp_constraint_query_parse (arg, &error))) {
        die ("%s", error.text);
    }
    if (!(c = rp_constraint_compile (o, &error)))
        die ("%s", error.text);
    json_decref (o);
    return c;
}

enum { OPT_CONFIG = 256 };

static const struct option longopts[] = {
    { "help", no_argument, NULL, 'h' },
    { "config", required_argument, NULL, OPT_CONFIG },
    { NULL, 0, NULL, 0 },
};

/* The options; *config: --config's value, else NULL. */
static void parse_options (int argc, char **argv, const char **config)
{
    char buf[CMD_OPTION_ERROR_SIZE];
    int c;

    optind = 0;
    opterr = 0;
    while ((c = getopt_long (argc, argv, "h", longopts, NULL)) != -1) {
        if (c == OPT_CONFIG) {
            *config = optarg;
            continue;
        }
        if (c != 'h')
            usage_error ("%s", cmd_option_error (buf, sizeof (buf), c, argv,
                                                 "h", longopts));
        usage (stdout);
        exit (0);
    }
}

int cmd_R_filter (int argc, char **argv)
{
    struct rp_config *cfg = NULL;
    const char *config = NULL;
    struct rp_constraint *c;
    struct rp_rset *r;
    struct rp_rset *result;
    rp_error_t error;
    char *s;

    parse_options (argc, argv, &config);
    if (optind == argc)
        usage_error ("missing CONSTRAINT argument");
    if (argc - optind > 1)
        usage_error ("unexpected argument '%s'", argv[optind + 1]);
    if (config && !(cfg = cmd_load_config (SUB, config)))
        exit (EXIT_INPUT);
    c = compile_arg (argv[optind]);
    r = cmd_read_fold (SUB, "filter", cmd_fold_add);
    if (!(result = rp_constraint_filter_rset (c, r, &error)))
        die ("%s", error.text);
    if (!(s = rp_rset_encode (result, 0)))
        die ("encode: %s", strerror (errno));
    printf ("%s\n", s);
    if (fflush (stdout) != 0 || ferror (stdout))
        die ("write error: %s", strerror (errno));
    free (s);
    rp_rset_destroy (result);
    rp_rset_destroy (r);
    rp_constraint_destroy (c);
    rp_config_destroy (cfg);
    return 0;
}
