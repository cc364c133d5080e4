/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol graph: look at a resource graph (RFC 4) built from R, hwloc XML,
 * a graph file or a generator spec (the resource options, resources.c).
 *
 *   respol graph show RESOURCE-OPTION
 *   respol graph export [--format=json|jgf|dot] RESOURCE-OPTION
 *
 * export prints rp_graph_encode (default json), after
 * rp_graph_encode_check has said why not when the document would pass the
 * memory limit.  show prints the
 * containment tree, one line per vertex, indented two spaces per level:
 *   NAME [rank=N] [size=S[UNIT]] [state=down] [properties=a,b=v] [tags=...]
 * rank only on an execution target (the vertex that carries it), size
 * only on a pool (size > 1 or a unit), state only when not up.  A run of
 * sibling leaves of one type and basename that say nothing but their id
 * (default name, size 1, no unit, up, no properties or tags, not a
 * target) is one line, "core[0-31]", the ids as an RFC 22 idset.
 *
 * The tree is walked without recursion (parent and sibling links), so a
 * deep graph file cannot overflow the stack, and indentation stops
 * growing at MAX_INDENT levels (deeper lines start with "+DEPTH "), so
 * the output of a deep chain grows with its length, not its square.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/graph.h>
#include <respol/idset.h>

#include "cmd.h"

#define SUB "graph"
#define MAX_INDENT 32

enum { OPT_HELP = 256, OPT_FORMAT };

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "format", required_argument, NULL, OPT_FORMAT },
    CMD_RESOURCE_LONGOPTS,
    { NULL, 0, NULL, 0 },
};
#define SHORTOPTS "h" CMD_RESOURCE_SHORTOPTS

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: respol graph show RESOURCE-OPTION\n"
             "       respol graph export [--format=json|jgf|dot] "
             "RESOURCE-OPTION\n\n"
             "Subcommands:\n"
             "  show       print the containment tree, one line per vertex\n"
             "  export     print the graph as respol JSON, JGF or Graphviz "
             "dot\n\n"
             "Options:\n"
             "      --format=NAME   export format: json (default), jgf, "
             "dot\n"
             "  -h, --help          print this message\n\n%s",
             cmd_resources_help);
}

/* --- show --------------------------------------------------------------- */

/* Indentation for depth. */
static void indent (int depth)
{
    if (depth <= MAX_INDENT)
        printf ("%*s", 2 * depth, "");
    else
        printf ("%*s+%d ", 2 * MAX_INDENT, "", depth);
}

/* Does v say nothing but its type, basename and id? */
static bool plain_leaf (const struct rp_graph *g, rp_vertex_t v)
{
    const char *unit = rp_graph_vertex_unit (g, v);
    char name[160];
    json_t *props, *tags;
    bool plain;

    if (rp_graph_nchildren (g, v) != 0 || rp_graph_vertex_id (g, v) < 0
        || rp_graph_vertex_id (g, v) > RP_IDSET_MAX_ID
        || rp_graph_vertex_size (g, v) != 1 || (unit && *unit)
        || rp_graph_vertex_state (g, v) != RP_VERTEX_UP
        || rp_graph_target (g, v) == v)
        return false;
    snprintf (name, sizeof (name), "%s%" PRId64,
              rp_graph_vertex_basename (g, v), rp_graph_vertex_id (g, v));
    if (strcmp (name, rp_graph_vertex_name (g, v)) != 0)
        return false;
    props = rp_graph_vertex_properties (g, v);
    tags = rp_graph_vertex_tags (g, v);
    plain = json_object_size (props) == 0 && json_object_size (tags) == 0;
    json_decref (props);
    json_decref (tags);
    return plain;
}

/* Can w join a run of plain leaves that started with v? */
static bool same_run (const struct rp_graph *g, rp_vertex_t v, rp_vertex_t w)
{
    return rp_graph_vertex_type_index (g, v)
               == rp_graph_vertex_type_index (g, w)
           && !strcmp (rp_graph_vertex_basename (g, v),
                       rp_graph_vertex_basename (g, w))
           && plain_leaf (g, w);
}

/* Print the run of plain leaves starting at v; return its last vertex. */
static rp_vertex_t print_run (const struct rp_graph *g, rp_vertex_t v,
                              int depth)
{
    struct rp_idset *ids = rp_idset_create ();
    rp_vertex_t last = v, w;
    char *s;

    if (!ids)
        cmd_die (SUB, "out of memory");
    for (w = v; w != RP_VERTEX_NONE && same_run (g, v, w);
         w = rp_graph_child_next (g, w)) {
        if (rp_idset_add (ids, (unsigned int)rp_graph_vertex_id (g, w)) < 0)
            cmd_die (SUB, "out of memory");
        last = w;
    }
    if (!(s = rp_idset_encode (ids, RP_IDSET_RANGES | RP_IDSET_BRACKETS)))
        cmd_die (SUB, "out of memory");
    indent (depth);
    printf ("%s%s\n", rp_graph_vertex_basename (g, v), s);
    free (s);
    rp_idset_destroy (ids);
    return last;
}

static int cmp_str (const void *a, const void *b)
{
    return strcmp (*(const char *const *)a, *(const char *const *)b);
}

/* " key=a,b=v" for an object of name -> value or null (a new reference,
 * released here), names sorted; nothing if it is empty. */
static void print_pairs (const char *key, json_t *o)
{
    size_t n = json_object_size (o), i = 0;
    const char **names;
    const char *name;
    json_t *value;

    if (n == 0)
        goto out;
    if (!(names = calloc (n, sizeof (names[0]))))
        cmd_die (SUB, "out of memory");
    json_object_foreach (o, name, value)
        names[i++] = name;
    qsort (names, n, sizeof (names[0]), cmp_str);
    printf (" %s", key);
    for (i = 0; i < n; i++) {
        value = json_object_get (o, names[i]);
        printf ("%c%s", i ? ',' : '=', names[i]);
        if (json_is_string (value))
            printf ("=%s", json_string_value (value));
    }
    free (names);
out:
    json_decref (o);
}

static void print_vertex (const struct rp_graph *g, rp_vertex_t v, int depth)
{
    const char *unit = rp_graph_vertex_unit (g, v);
    uint64_t size = rp_graph_vertex_size (g, v);
    enum rp_vertex_state state = rp_graph_vertex_state (g, v);

    indent (depth);
    printf ("%s", rp_graph_vertex_name (g, v));
    if (rp_graph_target (g, v) == v)
        printf (" rank=%" PRId64, rp_graph_vertex_rank (g, v));
    if (size > 1 || (unit && *unit))
        printf (" size=%" PRIu64 "%s", size, unit ? unit : "");
    if (state != RP_VERTEX_UP)
        printf (" state=%s", rp_graph_state_name (state));
    print_pairs ("properties", rp_graph_vertex_properties (g, v));
    print_pairs ("tags", rp_graph_vertex_tags (g, v));
    putchar ('\n');
}

/* Pre-order, iteratively: print v (or the run it starts), then go to its
 * first child, else to the next sibling of it or of its nearest
 * ancestor that has one. */
static void show (const struct rp_graph *g)
{
    rp_vertex_t root = rp_graph_root (g);
    rp_vertex_t v = root;
    int depth = 0;

    while (v != RP_VERTEX_NONE) {
        rp_vertex_t c;
        if (v != root && plain_leaf (g, v))
            v = print_run (g, v, depth);
        else
            print_vertex (g, v, depth);
        if ((c = rp_graph_child_first (g, v)) != RP_VERTEX_NONE) {
            v = c;
            depth++;
            continue;
        }
        while (v != root && rp_graph_child_next (g, v) == RP_VERTEX_NONE) {
            v = rp_graph_parent (g, v);
            depth--;
        }
        v = v == root ? RP_VERTEX_NONE : rp_graph_child_next (g, v);
    }
}

/* --- export ------------------------------------------------------------- */

static void export(const struct rp_graph *g, enum rp_graph_format fmt)
{
    rp_error_t error;
    char *s;
    size_t len;

    if (rp_graph_encode_check (g, fmt, &error) < 0)
        cmd_die (SUB, "export: %s", error.text);
    if (!(s = rp_graph_encode (g, fmt)))
        cmd_die (SUB, "export: %s", strerror (errno));
    len = strlen (s);
    fputs (s, stdout);
    if (len == 0 || s[len - 1] != '\n')
        putchar ('\n');
    free (s);
}

/* --- options ------------------------------------------------------------ */

int cmd_graph (int argc, char **argv)
{
    static const struct cmd_getopt getopts = { SUB, SHORTOPTS, opts, OPT_HELP,
                                               usage };
    struct cmd_resources res = { 0 };
    const char *format = NULL;
    enum rp_graph_format fmt = RP_GRAPH_JSON;
    struct rp_graph *g;
    const char *op;
    rp_error_t error;

    optind = 0;
    while (cmd_resources_getopt (&getopts, &res, argc, argv) == OPT_FORMAT)
        format = optarg;
    if (optind == argc)
        cmd_usage_error (SUB, "missing subcommand (show or export)");
    op = argv[optind];
    if (strcmp (op, "show") != 0 && strcmp (op, "export") != 0)
        cmd_usage_error (SUB, "unknown subcommand '%s'", op);
    if (optind + 1 < argc)
        cmd_usage_error (SUB, "%s: unexpected argument '%s'", op,
                         argv[optind + 1]);
    if (format && !strcmp (op, "show"))
        cmd_usage_error (SUB, "show: --format applies to export only");
    if (format && rp_graph_format_parse (format, &fmt, &error) < 0)
        cmd_usage_error (SUB, "export: unknown format '%s'", format);
    g = cmd_resources_load (SUB, &res);
    if (!strcmp (op, "show"))
        show (g);
    else
        export(g, fmt);
    rp_graph_destroy (g);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return 0;
}
