/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The resource options of respol graph, match and query: where the
 * resource graph (RFC 4) comes from.  See cmd.h.
 *
 *   -R FILE, --R=FILE    R version 1 (RFC 20); "-" is stdin
 *   --xml=FILE           an hwloc XML topology: one node, rank 0, named
 *                        --hostname=NAME, else as the topology says
 *   --graph=FILE         respol graph JSON or JGF (JSON or YAML); "-" is
 *                        stdin
 *   --generate=SPEC      a generated cluster (rp_graph_generate)
 *   --max-memory=SIZE    the memory limit (cmd_memory_limit): builders
 *                        refuse a graph whose estimate passes it
 *
 * Exactly one of the first four is required.  Giving none, two (the
 * same one twice included: the second would silently win otherwise), or
 * --hostname without --xml is a usage error (exit 2).  A builder's error is bad
 * input (exit 1) and is printed with what was read: "FILE: message" for
 * -R (the file name is not in the R decoder's message), the library's
 * own message for --xml and --graph (which name the file), and
 * "--generate: message" for a generated graph; a leading "graph: " of a
 * library message is dropped, as the subcommand is named already.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/graph.h>
#include <respol/rset.h>

#include "cmd.h"

const char cmd_resources_help[] =
    "Resources (exactly one):\n"
    "  -R, --R=FILE        R (RFC 20), '-' for stdin\n"
    "      --xml=FILE      an hwloc XML topology (one node, rank 0)\n"
    "      --hostname=NAME the node's host name with --xml\n"
    "      --graph=FILE    a resource graph (respol JSON or JGF), '-' for "
    "stdin\n"
    "      --generate=SPEC a generated cluster, e.g. "
    "nodes=4,sockets=2,cores=8,gpus=2\n"
    "                      (keys: nodes, racks, sockets, cores, gpus, "
    "memory, prefix)\n"
    "      --max-memory=SIZE refuse resources whose graph needs more, "
    "e.g. 4GB\n"
    "                      (default: $RESPOL_MAX_MEMORY, else 1536MB)\n";

static const char *option_name (int kind)
{
    switch (kind) {
    case CMD_OPT_R:
        return "-R";
    case CMD_OPT_XML:
        return "--xml";
    case CMD_OPT_GRAPH:
        return "--graph";
    default:
        return "--generate";
    }
}

/* If c (what getopt_long returned, with optarg) is a resource option,
 * record it in r and return true; else return false. */
static bool resources_option (struct cmd_resources *r, int c, const char *arg)
{
    switch (c) {
    case CMD_OPT_HOSTNAME:
        r->hostname = arg;
        return true;
    case CMD_OPT_MAX_MEMORY:
        r->max_memory = arg;
        return true;
    case CMD_OPT_R:
    case CMD_OPT_XML:
    case CMD_OPT_GRAPH:
    case CMD_OPT_GENERATE:
        break;
    default:
        return false;
    }
    if (r->kind != 0) {
        if (!r->twice)
            r->twice = c;
        return true;
    }
    r->kind = c;
    r->arg = arg;
    return true;
}

int cmd_resources_getopt (const struct cmd_getopt *g, struct cmd_resources *r,
                          int argc, char **argv)
{
    int c;

    opterr = 0;
    while ((c = getopt_long (argc, argv, g->shortopts, g->opts, NULL)) != -1) {
        if (resources_option (r, c, optarg))
            continue;
        if (c == 'h' || c == g->help) {
            g->usage (stdout);
            exit (0);
        }
        if (c == '?' || c == ':')
            cmd_bad_option (g->sub, "", c, argv, g->shortopts, g->opts);
        return c;
    }
    return -1;
}

bool cmd_resources_stdin (const struct cmd_resources *r)
{
    return (r->kind == CMD_OPT_R || r->kind == CMD_OPT_GRAPH)
           && !strcmp (r->arg, "-");
}

static void check_usage (const char *sub, const struct cmd_resources *r)
{
    if (r->kind == 0)
        cmd_usage_error (sub, "no resources: give one of -R FILE, "
                              "--xml=FILE, --graph=FILE, --generate=SPEC");
    if (r->twice == r->kind)
        cmd_usage_error (sub, "%s given twice", option_name (r->kind));
    if (r->twice)
        cmd_usage_error (sub, "%s and %s exclude each other",
                         option_name (r->kind), option_name (r->twice));
    if (r->hostname && r->kind != CMD_OPT_XML)
        cmd_usage_error (sub, "--hostname applies to --xml only");
}

/* A library message without its leading "graph: " (the subcommand is
 * already named). */
static const char *lib_text (const rp_error_t *error)
{
    if (!strncmp (error->text, "graph: ", 7))
        return error->text + 7;
    return error->text;
}

/* R is sized from R_lite before it is decoded (rp_graph_decode_rset): a
 * few bytes that name millions of vertices are refused at once. */
static struct rp_graph *from_rset (const char *sub, const char *path)
{
    FILE *f = strcmp (path, "-") ? fopen (path, "r") : stdin;
    const char *name = f == stdin ? "stdin" : path;
    struct rp_graph *g;
    rp_error_t error;
    char *buf;

    if (!f)
        cmd_die (sub, "%s: %s", path, strerror (errno));
    buf = cmd_read_rset (sub, f, name, NULL);
    if (f != stdin)
        fclose (f);
    g = rp_graph_decode_rset (buf, &error);
    free (buf);
    if (!g)
        cmd_die (sub, "%s: %s", name, lib_text (&error));
    return g;
}

struct rp_graph *cmd_resources_load (const char *sub,
                                     const struct cmd_resources *r)
{
    struct rp_graph *g = NULL;
    rp_error_t error;

    check_usage (sub, r);
    cmd_memory_limit (sub, r->max_memory);
    switch (r->kind) {
    case CMD_OPT_R:
        return from_rset (sub, r->arg);
    case CMD_OPT_XML:
        g = rp_graph_from_hwloc (r->arg, 0, r->hostname, &error);
        break;
    case CMD_OPT_GRAPH:
        g = rp_graph_load (r->arg, &error);
        break;
    case CMD_OPT_GENERATE:
        if (!(g = rp_graph_generate (r->arg, &error)))
            cmd_die (sub, "--generate: %s", lib_text (&error));
        break;
    }
    if (!g)
        cmd_die (sub, "%s", lib_text (&error));
    return g;
}
