/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of the graph builders and serializers (core/graph_build.c,
 * core/graph_io.c): round trips of respol's graph JSON and of JGF, a JGF
 * file in Fluxion's style, graphs from R and from the four real hwloc
 * topologies, the errors of malformed documents and files (each message
 * pinned), DOT output and rp_graph_subgraph_jgf.
 *
 * Graphs are compared through outline (): the containment tree in handle
 * order, one word per vertex (name, @rank on targets, {properties},
 * <size unit>, !state, #tags).  Test data is found through RESPOL_SRCDIR,
 * which `make check` exports.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <respol/graph.h>

#include "core/test/privs.h"
#include "t/tap/tap.h"

static const char *srcdir (void)
{
    const char *s = getenv ("RESPOL_SRCDIR");
    return s ? s : ".";
}

static const char *data_path (const char *name)
{
    static char path[4096];
    snprintf (path, sizeof (path), "%s/t/data/%s", srcdir (), name);
    return path;
}

/* --- outline ------------------------------------------------------------ */

struct buf {
    char s[16384];
    size_t len;
};

static void put (struct buf *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static void put (struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    if (b->len < sizeof (b->s))
        b->len +=
            (size_t)vsnprintf (b->s + b->len, sizeof (b->s) - b->len, fmt, ap);
    va_end (ap);
}

static int cmp_str (const void *a, const void *b)
{
    return strcmp (*(const char *const *)a, *(const char *const *)b);
}

/* The keys of o sorted, "{a,b=value}" (open "[" for tags).  Takes o. */
static void put_keys (struct buf *b, const char *open, json_t *o)
{
    const char *keys[64];
    size_t n = 0;

    for (void *it = json_object_iter (o); it && n < 64;
         it = json_object_iter_next (o, it))
        keys[n++] = json_object_iter_key (it);
    qsort (keys, n, sizeof (keys[0]), cmp_str);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_object_get (o, keys[i]);
        put (b, "%s%s%s%s", i ? "," : open, keys[i],
             json_is_string (v) ? "=" : "",
             json_is_string (v) ? json_string_value (v) : "");
    }
    if (n)
        put (b, "%c", open[0] == '{' ? '}' : ']');
    json_decref (o);
}

static void outline_vertex (struct buf *b, const struct rp_graph *g,
                            rp_vertex_t v)
{
    const char *unit = rp_graph_vertex_unit (g, v);

    put (b, "%s", rp_graph_vertex_name (g, v));
    if (rp_graph_target (g, v) == v)
        put (b, "@%lld", (long long)rp_graph_vertex_rank (g, v));
    put_keys (b, "{", rp_graph_vertex_properties (g, v));
    if (rp_graph_vertex_size (g, v) != 1 || (unit && *unit))
        put (b, "<%llu%s%s>", (unsigned long long)rp_graph_vertex_size (g, v),
             unit && *unit ? " " : "", unit ? unit : "");
    if (rp_graph_vertex_state (g, v) != RP_VERTEX_UP)
        put (b, "!%s", rp_graph_state_name (rp_graph_vertex_state (g, v)));
    put_keys (b, "[", rp_graph_vertex_tags (g, v));
    if (rp_graph_nchildren (g, v) == 0)
        return;
    put (b, "(");
    for (rp_vertex_t c = rp_graph_child_first (g, v); c != RP_VERTEX_NONE;
         c = rp_graph_child_next (g, c)) {
        outline_vertex (b, g, c);
        if (rp_graph_child_next (g, c) != RP_VERTEX_NONE)
            put (b, " ");
    }
    put (b, ")");
}

/* The tree, or "(null)".  Returns a static buffer. */
static const char *outline (const struct rp_graph *g)
{
    static struct buf b;
    b.len = 0;
    b.s[0] = '\0';
    if (!g)
        return "(null)";
    outline_vertex (&b, g, rp_graph_root (g));
    return b.s;
}

/* Handle order as names, "a b c". */
static const char *handle_order (const struct rp_graph *g)
{
    static struct buf b;
    b.len = 0;
    b.s[0] = '\0';
    for (rp_vertex_t v = 0; g && v < rp_graph_nvertices (g); v++)
        put (&b, "%s%s", v ? " " : "", rp_graph_vertex_name (g, v));
    return b.s;
}

static struct rp_graph *from_text (const char *s, rp_error_t *error)
{
    json_error_t jerr;
    json_t *o = json_loads (s, 0, &jerr);
    struct rp_graph *g;

    if (!o)
        BAIL_OUT ("bad test JSON: %s: %s", jerr.text, s);
    g = rp_graph_from_json (o, error);
    json_decref (o);
    return g;
}

/* --- format names ------------------------------------------------------- */

static void test_format_parse (void)
{
    enum rp_graph_format fmt = 99;
    rp_error_t error = { { 0 } };

    ok (rp_graph_format_parse ("json", &fmt, &error) == 0
            && fmt == RP_GRAPH_JSON,
        "format json");
    ok (rp_graph_format_parse ("jgf", &fmt, &error) == 0 && fmt == RP_GRAPH_JGF,
        "format jgf");
    ok (rp_graph_format_parse ("dot", &fmt, &error) == 0 && fmt == RP_GRAPH_DOT,
        "format dot");
    errno = 0;
    fmt = 99;
    ok (rp_graph_format_parse ("JSON", &fmt, &error) < 0 && errno == EINVAL
            && fmt == 99,
        "format JSON fails with EINVAL, output untouched");
    is (error.text, "graph format \"JSON\": must be json, jgf or dot",
        "bad format: message");
}

/* --- respol's JSON -------------------------------------------------------- */

/* A generated cluster with racks and memory, plus what a generator does
 * not make: a network subsystem with conduit-of edges, a basename, a
 * uuid, an own name, properties, tags and states. */
static struct rp_graph *rich_graph (void)
{
    rp_error_t error;
    struct rp_graph *g =
        rp_graph_generate ("nodes=4,racks=2,sockets=2,cores=2,gpus=2,"
                           "memory=64GB",
                           &error);
    json_t *o = g ? rp_graph_to_json (g, RP_GRAPH_JSON) : NULL;
    json_t *vs = json_object_get (o, "vertices");
    json_t *es = json_object_get (o, "edges");
    size_t n = json_array_size (vs);

    rp_graph_destroy (g);
    if (!o)
        BAIL_OUT ("generate: %s", error.text);
    /* vertices n, n+1: two switches under the cluster (vertex 0), and in
     * the "net" subsystem n+1 is a conduit of n, which is "in" the
     * cluster */
    json_array_append_new (vs, json_pack ("{s:s s:s s:i s:s}", "type", "switch",
                                          "basename", "sw", "id", 0, "uuid",
                                          "c0ffee"));
    json_array_append_new (
        vs, json_pack ("{s:s s:i s:s s:I s:s}", "type", "switch", "id", 1,
                       "name", "edge-1", "size",
                       (json_int_t)1000000000000000000LL, "unit", "Gbps"));
    json_array_append_new (es, json_pack ("[i,i]", 0, (int)n));
    json_array_append_new (es, json_pack ("[i,i]", (int)n, (int)n + 1));
    json_array_append_new (
        es, json_pack ("[i,i,s,s]", (int)n + 1, (int)n, "net", "conduit-of"));
    json_array_append_new (es, json_pack ("[i,i,s,s]", (int)n, 0, "net", "in"));
    /* vertex 2 is the first node (cluster, rack, node) */
    json_object_set_new (json_array_get (vs, 2), "properties",
                         json_pack ("{s:n s:s}", "debug", "amd@gpu", "x"));
    json_object_set_new (json_array_get (vs, 2), "tags",
                         json_pack ("{s:s s:n}", "owner", "ops", "hot"));
    json_object_set_new (json_array_get (vs, 3), "state",
                         json_string ("drained"));
    json_object_set_new (json_array_get (vs, n - 1), "state",
                         json_string ("down"));
    g = rp_graph_from_json (o, &error);
    if (!g)
        BAIL_OUT ("rich graph: %s", error.text);
    json_decref (o);
    return g;
}

static void test_json_round_trip (void)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g = rich_graph ();
    char *s = rp_graph_encode (g, RP_GRAPH_JSON);
    struct rp_graph *g2 = s ? from_text (s, &error) : NULL;
    char *s2 = g2 ? rp_graph_encode (g2, RP_GRAPH_JSON) : NULL;
    char want[512];

    ok (g2 != NULL, "JSON: encoded graph reads back");
    if (!g2)
        diag ("%s", error.text);
    is (s2, s, "JSON: encode -> read -> encode is byte-identical");
    is (outline (g2), outline (g), "JSON: same tree, data, state and tags");
    is (handle_order (g2), handle_order (g), "JSON: same handle order");
    ok (rp_graph_nsubsystems (g2) == 2
            && !strcmp (rp_graph_subsystem_name (g2, 1), "net"),
        "JSON: the net subsystem is kept");
    snprintf (want, sizeof (want), "%s", outline (g));
    like (want, "node0@0{amd@gpu=x,debug}[hot,owner=ops](socket0!drained",
          "JSON: properties, tags and states are carried");
    like (s,
          "{\"basename\":\"sw\",\"id\":0,\"type\":\"switch\","
          "\"uuid\":\"c0ffee\"}",
          "JSON: basename and uuid written, defaults omitted");
    like (s, "\"name\":\"edge-1\",\"size\":1000000000000000000,",
          "JSON: own name and a size of 10^18");
    like (s, ",\"net\",\"conduit-of\"]", "JSON: conduit-of edge written");
    like (s, "{\"id\":1,\"rank\":1,\"type\":\"node\"}",
          "JSON: rank on targets");
    ok (strstr (s, "\"rank\":0,\"type\":\"socket\"") == NULL,
        "JSON: rank not written below the target");
    free (s);
    free (s2);
    rp_graph_destroy (g);
    rp_graph_destroy (g2);
}

static void test_json_minimal (void)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g = from_text (
        "{\"respol-graph\":1,\"vertices\":[{\"type\":\"x\"}]}", &error);
    char *s = g ? rp_graph_encode (g, RP_GRAPH_JSON) : NULL;

    is (s, "{\"edges\":[],\"respol-graph\":1,\"vertices\":[{\"type\":\"x\"}]}",
        "JSON: one vertex, no edges key: reads and encodes");
    free (s);
    rp_graph_destroy (g);
}

/* --- JGF ------------------------------------------------------------------ */

static void test_jgf_round_trip (void)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g = rich_graph ();
    char *jgf = rp_graph_encode (g, RP_GRAPH_JGF);
    struct rp_graph *g2 = jgf ? from_text (jgf, &error) : NULL;
    char *jgf2 = g2 ? rp_graph_encode (g2, RP_GRAPH_JGF) : NULL;
    char *s = rp_graph_encode (g, RP_GRAPH_JSON);
    char *s2 = g2 ? rp_graph_encode (g2, RP_GRAPH_JSON) : NULL;

    ok (g2 != NULL, "JGF: encoded graph reads back");
    if (!g2)
        diag ("%s", error.text);
    is (jgf2, jgf, "JGF: encode -> read -> encode is byte-identical");
    is (s2, s, "JGF: reads back into an equal graph");
    like (jgf,
          "{\"id\":\"2\",\"metadata\":{\"basename\":\"node\",\"exclusive\":"
          "false,\"id\":0,\"name\":\"node0\",\"paths\":{\"containment\":"
          "\"/cluster0/rack0/node0\"},\"properties\":{\"amd@gpu\":\"x\","
          "\"debug\":\"\"},\"rank\":0,\"size\":1,\"tags\":{\"hot\":null,"
          "\"owner\":\"ops\"},\"type\":\"node\",\"uniq_id\":2,\"unit\":\"\"}}",
          "JGF: a node as Fluxion writes it, plus tags");
    like (jgf, "\"rank\":-1,\"size\":1,\"type\":\"rack\"",
          "JGF: rank -1 above the targets");
    like (jgf,
          "\"rank\":0,\"size\":1,\"state\":\"drained\",\"type\":\"socket\"",
          "JGF: rank below the target; state");
    like (jgf,
          "{\"metadata\":{\"name\":{\"containment\":\"contains\"}},"
          "\"source\":\"0\",\"target\":\"1\"}",
          "JGF: containment edge");
    like (jgf, "{\"metadata\":{\"name\":{\"net\":\"conduit-of\"}},",
          "JGF: conduit-of edge");
    free (jgf);
    free (jgf2);
    free (s);
    free (s2);
    rp_graph_destroy (g);
    rp_graph_destroy (g2);
}

/* Fluxion style: string ids that are not handle numbers, nodes out of tree
 * order (core before its socket, socket1 before socket0 in the list but
 * listed by id among siblings where it matters), the old edge metadata,
 * an edge without metadata, properties as a list, status, unknown keys. */
static const char *fluxion_jgf =
    "{\"graph\": {\"directed\": true, \"nodes\": ["
    " {\"id\": \"12\", \"metadata\": {\"type\": \"core\", \"basename\": "
    "\"core\", \"name\": \"core1\", \"id\": 1, \"uniq_id\": 12, \"rank\": 3, "
    "\"exclusive\": false, \"unit\": \"\", \"size\": 1, \"paths\": "
    "{\"containment\": \"/tiny0/n3/socket0/core1\"}}},"
    " {\"id\": \"10\", \"metadata\": {\"type\": \"socket\", \"basename\": "
    "\"socket\", \"name\": \"socket0\", \"id\": 0, \"rank\": 3, \"size\": 1}},"
    " {\"id\": \"11\", \"metadata\": {\"type\": \"core\", \"name\": "
    "\"core0\", \"id\": 0, \"rank\": 3, \"status\": 1}},"
    " {\"id\": 1, \"metadata\": {\"type\": \"cluster\", \"name\": \"tiny0\", "
    "\"id\": 0, \"rank\": -1, \"extra\": {\"a\": 1}}},"
    " {\"id\": \"2\", \"metadata\": {\"type\": \"node\", \"basename\": "
    "\"n\", \"name\": \"n3\", \"id\": 3, \"rank\": 3, \"properties\": "
    "[\"batch\", \"big\"]}},"
    " {\"id\": \"13\", \"metadata\": {\"type\": \"memory\", \"name\": "
    "\"memory0\", \"id\": 0, \"rank\": 3, \"size\": 16, \"unit\": \"GB\", "
    "\"properties\": {\"fast\": \"\", \"kind\": \"hbm\"}}}],"
    " \"edges\": ["
    " {\"source\": \"10\", \"target\": \"12\", \"metadata\": "
    "{\"subsystem\": \"containment\"}},"
    " {\"source\": \"12\", \"target\": \"10\", \"metadata\": "
    "{\"subsystem\": \"containment\", \"type\": \"in\"}},"
    " {\"source\": 1, \"target\": \"2\"},"
    " {\"source\": \"2\", \"target\": \"10\", \"metadata\": {\"name\": "
    "{\"containment\": \"contains\"}}},"
    " {\"source\": \"10\", \"target\": \"11\", \"metadata\": {\"name\": "
    "{\"containment\": \"contains\"}}},"
    " {\"source\": \"10\", \"target\": \"13\", \"metadata\": {\"name\": "
    "{\"containment\": \"contains\"}}}]}}";

static void test_jgf_fluxion (void)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g = from_text (fluxion_jgf, &error);
    rp_vertex_t n3 = g ? rp_graph_rank_vertex (g, 3) : RP_VERTEX_NONE;

    ok (g != NULL, "Fluxion JGF: reads");
    if (!g) {
        diag ("%s", error.text);
        return;
    }
    is (outline (g),
        "tiny0(n3@3{batch,big}(socket0(core1 core0!down "
        "memory0{fast,kind=hbm}<16 GB>)))",
        "Fluxion JGF: tree, ranks, properties, status, pool");
    is (handle_order (g), "tiny0 n3 socket0 core1 core0 memory0",
        "Fluxion JGF: containment pre-order, siblings in node-list order");
    ok (n3 == 1 && rp_graph_target (g, 4) == n3
            && rp_graph_vertex_rank (g, 4) == 3,
        "Fluxion JGF: only the node is a target; cores inherit its rank");
    is (rp_graph_vertex_basename (g, 1), "n", "Fluxion JGF: basename kept");
    ok (rp_graph_vertex_id (g, 1) == 3, "Fluxion JGF: id kept");
    rp_graph_destroy (g);
}

/* Ids longer than any buffer, an integer naming a string id, one edge
 * in two subsystems, rank -1 below a target. */
static void test_jgf_details (void)
{
    char a[300], b[300], doc[2400];
    rp_error_t error = { { 0 } };
    struct rp_graph *g;

    memset (a, 'x', 250);
    a[250] = '\0';
    snprintf (b, sizeof (b), "%sb", a);
    strcat (a, "a");
    snprintf (doc, sizeof (doc),
              "{\"graph\": {\"nodes\": ["
              "{\"id\": \"%s\", \"metadata\": {\"type\": \"cluster\"}},"
              "{\"id\": \"%s\", \"metadata\": {\"type\": \"node\", "
              "\"rank\": 4}},"
              "{\"id\": \"7\", \"metadata\": {\"type\": \"core\", "
              "\"rank\": -1}},"
              "{\"id\": \"8\", \"metadata\": {\"type\": \"pdu\"}}],"
              "\"edges\": [{\"source\": \"%s\", \"target\": \"%s\"},"
              "{\"source\": \"%s\", \"target\": 7},"
              "{\"source\": \"%s\", \"target\": 8, \"metadata\": {\"name\": "
              "{\"containment\": \"contains\", \"power\": \"draws-from\"}}}"
              "]}}",
              a, b, a, b, b, a);
    g = from_text (doc, &error);
    is (g ? outline (g) : error.text, "cluster(node@4(core) pdu)",
        "JGF: ids of 251 bytes that differ at the end; integer id 7 names "
        "\"7\"; rank -1 inherits");
    ok (g && rp_graph_vertex_rank (g, 2) == 4 && rp_graph_target (g, 2) == 1,
        "JGF: the core inherits rank 4");
    ok (g && rp_graph_nedges (g, 0) == 3
            && !strcmp (rp_graph_edge_subsystem (g, 0, 2), "power")
            && !strcmp (rp_graph_edge_type (g, 0, 2), "draws-from"),
        "JGF: an edge named in two subsystems is two edges");
    rp_graph_destroy (g);
}

/* --- errors of documents -------------------------------------------------- */

static const struct {
    const char *doc;
    const char *error;
} bad_docs[] = {
    { "[]", "g.json:1:1: must be a dictionary" },
    { "{\"x\": 1}", "g.json:1:1: neither respol graph JSON nor JGF: no "
                    "'respol-graph' or 'graph' key" },
    { "{\"respol-graph\": 2, \"vertices\": []}",
      "g.json:1:18: respol-graph: version 2 is not supported (only 1)" },
    { "{\"respol-graph\": \"1\", \"vertices\": []}",
      "g.json:1:18: respol-graph: must be an integer" },
    { "{\"respol-graph\": 1}", "g.json:1:1: missing key \"vertices\"" },
    { "{\"respol-graph\": 1, \"vertices\": [], \"extra\": 0}",
      "g.json:1:37: extra: unknown key" },
    { "{\"respol-graph\": 1, \"vertices\": {}}",
      "g.json:1:33: vertices: must be a list" },
    { "{\"respol-graph\": 1, \"vertices\": []}",
      "g.json:1:33: vertices: must not be empty" },
    { "{\"respol-graph\": 1, \"vertices\": [1]}",
      "g.json:1:34: vertices[0]: must be a dictionary" },
    { "{\"respol-graph\": 1, \"vertices\": [{}]}",
      "g.json:1:34: vertices[0]: missing key \"type\"" },
    { "{\"respol-graph\": 1,\n \"vertices\": [{\"type\": \"a\", \"colour\": "
      "1}]}",
      "g.json:2:29: vertices[0].colour: unknown key" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": 7}]}",
      "g.json:1:43: vertices[0].type: must be a string" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a b\"}]}",
      "g.json:1:34: vertices[0]: bad type 'a b': letters, digits, '-', '_' "
      "(1-64)" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\", \"size\": 0}]}",
      "g.json:1:56: vertices[0].size: must be an integer >= 1" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\", \"size\": 1.5}]}",
      "g.json:1:56: vertices[0].size: must be an integer >= 1" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\", \"id\": -1}]}",
      "g.json:1:54: vertices[0].id: must be an integer >= 0" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\", \"rank\": -2}]}",
      "g.json:1:56: vertices[0].rank: must be an integer >= 0" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\", \"name\": "
      "\"\"}]}",
      "g.json:1:56: vertices[0].name: bad name '': printable, 1-1024 bytes" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\", \"state\": "
      "\"gone\"}]}",
      "g.json:1:57: vertices[0].state: must be \"up\", \"down\" or "
      "\"drained\"" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\", \"properties\": "
      "[]}]}",
      "g.json:1:62: vertices[0].properties: must be a dictionary" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\", \"properties\": "
      "{\"x\": 1}}]}",
      "g.json:1:68: vertices[0].properties.x: must be a string or null" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\", \"tags\": "
      "{\"x\": true}}]}",
      "g.json:1:62: vertices[0].tags.x: must be a string or null" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\"}], \"edges\": "
      "[[0]]}",
      "g.json:1:60: edges[0]: must be a list [source, target] or [source, "
      "target, subsystem, type]" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\"}], \"edges\": "
      "[[0, 1]]}",
      "g.json:1:64: edges[0][1]: must be a vertex index (0 .. 0)" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\"}, {\"type\": "
      "\"b\"}],\n \"edges\": [[0, 1, \"net\", 5]]}",
      "g.json:2:26: edges[0][3]: must be a string" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\"}, {\"type\": "
      "\"b\"}],\n \"edges\": [[0, 1], [0, 1]]}",
      "g.json:2:20: edges[1]: duplicate edge 0 -> 1 (containment contains)" },
    { "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\"}, {\"type\": "
      "\"b\"}]}",
      "g.json:1:1: two roots: a and b" },
    { "{\"graph\": []}", "g.json:1:11: graph: must be a dictionary" },
    { "{\"graph\": {}}", "g.json:1:11: graph: missing key \"nodes\"" },
    { "{\"graph\": {\"nodes\": [{\"metadata\": {}}]}}",
      "g.json:1:22: graph.nodes[0]: missing key \"id\"" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1.5}]}}",
      "g.json:1:29: graph.nodes[0].id: must be a string or an integer" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1}]}}",
      "g.json:1:22: graph.nodes[0]: missing key \"metadata\"" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1, \"metadata\": {}},\n"
      " {\"id\": \"1\", \"metadata\": {}}]}}",
      "g.json:2:9: graph.nodes[1].id: duplicate node id \"1\"" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1, \"metadata\": {\"type\": \"a\"}}],"
      "\n \"edges\": [{\"source\": 1, \"target\": 2}]}}",
      "g.json:2:36: graph.edges[0].target: no node has id \"2\"" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1, \"metadata\": {\"type\": \"a\"}}],"
      "\n \"edges\": [{\"source\": 1}]}}",
      "g.json:2:12: graph.edges[0]: missing key \"target\"" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1, \"metadata\": {\"type\": \"a\"}},"
      "\n {\"id\": 2, \"metadata\": {\"type\": \"b\"}}]}}",
      "g.json:2:2: graph.nodes[1]: a second containment root (the first is "
      "graph.nodes[0])" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1, \"metadata\": {\"type\": \"a\"}}],"
      "\n \"edges\": [{\"source\": 1, \"target\": 1}]}}",
      "g.json:1:21: graph.nodes: no containment root (a containment cycle)" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1, \"metadata\": {\"type\": \"a\"}},"
      "\n {\"id\": 2, \"metadata\": {\"type\": \"b\"}},"
      "\n {\"id\": 3, \"metadata\": {\"type\": \"c\"}}],"
      "\n \"edges\": [{\"source\": 2, \"target\": 3}, {\"source\": 3, "
      "\"target\": 2}]}}",
      "g.json:1:21: graph.nodes: 2 nodes are not reachable from the "
      "containment root (a containment cycle)" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1, \"metadata\": {\"type\": \"a\", "
      "\"status\": 2}}]}}",
      "g.json:1:68: graph.nodes[0].metadata.status: must be 0 (up) or 1 "
      "(down)" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1, \"metadata\": {\"type\": \"a\", "
      "\"properties\": [1]}}]}}",
      "g.json:1:73: graph.nodes[0].metadata.properties[0]: must be a string" },
    { "{\"graph\": {\"nodes\": [{\"id\": 1, \"metadata\": {\"type\": \"a\"}}],"
      "\n \"edges\": [{\"source\": 1, \"target\": 1, \"metadata\": {\"name\": "
      "{\"x\": 1}}}]}}",
      "g.json:2:66: graph.edges[0].metadata.name.x: must be a string" },
    { "vertices: [1", "g.json:1:8: JSON: invalid token near 'vertices'" },
};

static void test_bad_docs (const char *dir)
{
    for (size_t i = 0; i < sizeof (bad_docs) / sizeof (bad_docs[0]); i++) {
        rp_error_t error = { { 0 } };
        struct rp_graph *g;
        FILE *f = fopen ("g.json", "w");
        if (!f || fputs (bad_docs[i].doc, f) < 0 || fclose (f) != 0)
            BAIL_OUT ("cannot write %s/g.json", dir);
        errno = 0;
        g = rp_graph_load ("g.json", &error);
        ok (g == NULL && errno != 0, "bad document %zu fails: %s", i,
            tap_escape (bad_docs[i].doc));
        is (error.text, bad_docs[i].error, "bad document %zu: message", i);
        rp_graph_destroy (g);
    }
}

/* A containment cycle beside the tree: the model's finalize refuses it.
 * Run last: it guards rp_graph_finalize as much as the reader. */
static void test_cycles (void)
{
    static const char *docs[] = {
        "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\"}, "
        "{\"type\": \"b\"}], \"edges\": [[1, 1]]}",
        "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\"}, "
        "{\"type\": \"b\"}, {\"type\": \"c\"}], \"edges\": [[1, 2], [2, 1]]}",
    };

    for (size_t i = 0; i < sizeof (docs) / sizeof (docs[0]); i++) {
        rp_error_t error = { { 0 } };
        errno = 0;
        ok (from_text (docs[i], &error) == NULL && errno == EINVAL,
            "containment cycle %zu fails with EINVAL", i);
        is (error.text, "graph: containment cycle through b",
            "containment cycle %zu: message", i);
    }
}

static void test_from_json_errors (void)
{
    rp_error_t error = { { 0 } };

    errno = 0;
    ok (rp_graph_from_json (NULL, &error) == NULL && errno == EINVAL,
        "from_json (NULL) fails with EINVAL");
    errno = 0;
    ok (from_text ("{\"respol-graph\": 1, \"vertices\": [{\"type\": \"a\", "
                   "\"size\": -3}]}",
                   &error)
                == NULL
            && errno == EINVAL,
        "from_json: bad size fails with EINVAL");
    is (error.text, "graph: vertices[0].size: must be an integer >= 1",
        "from_json: no positions, the path and \"graph:\"");
    errno = 0;
    ok (rp_graph_load (NULL, &error) == NULL && errno == EINVAL,
        "load (NULL) fails with EINVAL");
}

static void test_load_files (const char *dir)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g;
    FILE *f;
    int fd;

    errno = 0;
    ok (rp_graph_load ("missing.json", &error) == NULL && errno == ENOENT,
        "load: missing file fails with ENOENT");
    is (error.text, "missing.json: No such file or directory",
        "load: missing file: message");
    mkdir ("adir", 0700);
    errno = 0;
    ok (rp_graph_load ("adir", &error) == NULL && errno == EISDIR,
        "load: a directory fails with EISDIR");
    is (error.text, "adir: Is a directory", "load: directory: message");
    f = fopen ("secret.json", "w");
    if (!f || fputs ("{}", f) < 0 || fclose (f) != 0)
        BAIL_OUT ("cannot write %s/secret.json", dir);
    chmod ("secret.json", 0);
    privs_dac (false); /* root too: permission bits count */
    if ((fd = open ("secret.json", O_RDONLY)) >= 0) {
        close (fd); /* not access (): it grants root its permitted caps */
        skip (2, "running with privileges: the file stays readable");
    }
    else {
        errno = 0;
        ok (rp_graph_load ("secret.json", &error) == NULL && errno == EACCES,
            "load: unreadable file fails with EACCES");
        is (error.text, "secret.json: Permission denied",
            "load: unreadable file: message");
    }
    privs_dac (true);
    f = fopen ("g.yaml", "w");
    if (!f
        || fputs ("respol-graph: 1\nvertices:\n  - type: cluster\n"
                  "  - {type: node, rank: 0, name: n0}\n"
                  "  - {type: memory, size: 64, unit: GB, state: down}\n"
                  "edges:\n  - [0, 1]\n  - [1, 2]\n",
                  f)
               < 0
        || fclose (f) != 0)
        BAIL_OUT ("cannot write %s/g.yaml", dir);
    g = rp_graph_load ("g.yaml", &error);
    is (outline (g), "cluster(n0@0(memory<64 GB>!down))",
        "load: YAML graph reads");
    rp_graph_destroy (g);
    f = fopen ("g.yaml", "w");
    if (!f
        || fputs ("respol-graph: 1\nvertices:\n  - type: cluster\n"
                  "    size: big\n",
                  f)
               < 0
        || fclose (f) != 0)
        BAIL_OUT ("cannot write %s/g.yaml", dir);
    ok (rp_graph_load ("g.yaml", &error) == NULL, "load: bad YAML graph fails");
    is (error.text, "g.yaml:4:11: vertices[0].size: must be an integer >= 1",
        "load: YAML errors carry file:line:col");
}

/* --- DOT ------------------------------------------------------------------ */

static void test_dot (void)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g = from_text (
        "{\"respol-graph\": 1, \"vertices\": [{\"type\": \"cluster\"},"
        " {\"type\": \"node\", \"id\": 0, \"name\": \"n\\\"0\", \"rank\": 0,"
        " \"state\": \"down\"},"
        " {\"type\": \"memory\", \"size\": 8, \"unit\": \"GB\"},"
        " {\"type\": \"bb\", \"size\": 3}],"
        " \"edges\": [[0, 1], [1, 2], [0, 3], [3, 1, \"io\", \"conduit-of\"]]}",
        &error);
    char *s = g ? rp_graph_encode (g, RP_GRAPH_DOT) : NULL;

    is (s,
        "digraph respol {\n"
        "  v0 [label=\"cluster\"];\n"
        "  v1 [label=\"n\\\"0\\ndown\"];\n"
        "  v2 [label=\"memory\\n8 GB\"];\n"
        "  v3 [label=\"bb\\n3\"];\n"
        "  v0 -> v1;\n"
        "  v0 -> v3;\n"
        "  v1 -> v2;\n"
        "  v3 -> v1 [style=dashed, label=\"io: conduit-of\"];\n"
        "}\n",
        "DOT: names, pools, state, dashed labelled edges");
    errno = 0;
    ok (g && rp_graph_to_json (g, RP_GRAPH_DOT) == NULL && errno == EINVAL,
        "to_json (DOT) fails with EINVAL");
    free (s);
    rp_graph_destroy (g);
}

/* --- subgraph_jgf --------------------------------------------------------- */

/* Every vertex of a node of 130 listed, leaves first, so that each
 * inner vertex is an ancestor before it is listed: each written once,
 * with its own flag and amount; the cluster above once. */
static void test_subgraph_ancestors (void)
{
    rp_error_t error;
    struct rp_graph *g =
        rp_graph_generate ("nodes=1,sockets=2,cores=64", &error);
    size_t n = rp_graph_nvertices (g), k = 0;
    rp_vertex_t *vs = calloc (n, sizeof (*vs));
    uint64_t *amount = calloc (n, sizeof (*amount));
    bool *excl = calloc (n, sizeof (*excl));
    json_t *o;
    char *s;

    if (!g || !vs || !amount || !excl)
        BAIL_OUT ("test_subgraph_ancestors: setup");
    for (rp_vertex_t v = (rp_vertex_t)n; v-- > 0;)
        if (v != rp_graph_root (g)) {
            vs[k] = v;
            amount[k] = 1;
            excl[k++] = true;
        }
    o = rp_graph_subgraph_jgf (g, vs, amount, excl, k);
    s = o ? json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    ok (json_array_size (
            json_object_get (json_object_get (o, "graph"), "nodes"))
            == n,
        "subgraph_jgf: %zu vertices listed below their ancestors, the"
        " cluster above: %zu written, each once", k, n);
    like (s, "\"exclusive\":true,\"id\":0,\"name\":\"node0\"",
          "subgraph_jgf: a listed vertex added first as an ancestor keeps"
          " its flag");
    like (s, "\"exclusive\":false,\"id\":0,\"name\":\"cluster0\"",
          "subgraph_jgf: the ancestor not listed: shared");
    free (s);
    json_decref (o);
    s = rp_graph_subgraph_encode (g, vs, amount, excl, k);
    o = rp_graph_subgraph_jgf (g, vs, amount, excl, k);
    {
        char *t = o ? json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
        ok (s && t && strcmp (s, t) == 0,
            "subgraph_encode: the same text as the tree");
        free (t);
    }
    free (s);
    json_decref (o);
    free (vs);
    free (amount);
    free (excl);
    rp_graph_destroy (g);
}

static void test_subgraph (void)
{
    rp_error_t error;
    struct rp_graph *g =
        rp_graph_generate ("nodes=2,sockets=2,cores=2,memory=64GB", &error);
    rp_vertex_t vs[3] = { RP_VERTEX_NONE, RP_VERTEX_NONE, RP_VERTEX_NONE };
    uint64_t amount[3] = { 1, 1, 10 };
    bool excl[3] = { true, true, false };
    json_t *o;
    char *s;

    if (!g)
        BAIL_OUT ("generate: %s", error.text);
    /* node1's socket0 cores and its memory pool */
    for (rp_vertex_t v = 0; v < rp_graph_nvertices (g); v++) {
        const char *path = NULL;
        if (rp_graph_target (g, v) != rp_graph_rank_vertex (g, 1))
            continue;
        path = rp_graph_vertex_type (g, v);
        if (!strcmp (path, "core") && rp_graph_vertex_id (g, v) == 0)
            vs[0] = v;
        if (!strcmp (path, "core") && rp_graph_vertex_id (g, v) == 1)
            vs[1] = v;
        if (!strcmp (path, "memory") && vs[2] == RP_VERTEX_NONE)
            vs[2] = v;
    }
    o = rp_graph_subgraph_jgf (g, vs, amount, excl, 3);
    s = o ? json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    ok (o != NULL, "subgraph_jgf: made");
    ok (json_array_size (
            json_object_get (json_object_get (o, "graph"), "nodes"))
            == 6,
        "subgraph_jgf: cluster, node1, socket0, 2 cores, memory");
    ok (json_array_size (
            json_object_get (json_object_get (o, "graph"), "edges"))
            == 5,
        "subgraph_jgf: 5 containment edges");
    like (s,
          "\"name\":\"node1\",\"paths\":{\"containment\":\"/cluster0/node1\"},"
          "\"rank\":1,",
          "subgraph_jgf: the target with its rank");
    like (s, "\"exclusive\":true,\"id\":0,\"name\":\"core0\"",
          "subgraph_jgf: exclusive from the array");
    like (s,
          "\"exclusive\":false,\"id\":0,\"name\":\"memory0\",\"paths\":"
          "{\"containment\":\"/cluster0/node1/socket0/memory0\"},\"rank\":1,"
          "\"size\":10,",
          "subgraph_jgf: pool size is the amount");
    ok (strstr (s ? s : "", "\"name\":\"node0\"") == NULL,
        "subgraph_jgf: nothing else");
    json_decref (o);
    free (s);
    o = rp_graph_subgraph_jgf (g, vs, NULL, NULL, 3);
    s = o ? json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    like (s,
          "\"exclusive\":false,\"id\":0,\"name\":\"memory0\",\"paths\":"
          "{\"containment\":\"/cluster0/node1/socket0/memory0\"},\"rank\":1,"
          "\"size\":32,",
          "subgraph_jgf: without amounts, the pool's size");
    json_decref (o);
    free (s);
    vs[0] = 100000;
    errno = 0;
    ok (rp_graph_subgraph_jgf (g, vs, NULL, NULL, 1) == NULL && errno == EINVAL,
        "subgraph_jgf: bad vertex fails with EINVAL");
    rp_graph_destroy (g);
    test_subgraph_ancestors ();
}

/* rp_graph_subgraph_encode writes what jansson writes of
 * rp_graph_subgraph_jgf's tree, byte for byte, also for what needs
 * escaping or is rare: quotes, backslashes and control characters in
 * names, tags and properties (with values past ASCII), a uuid, a vertex
 * that is down, amounts, and vertices given twice. */
static void test_subgraph_encode (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_create ();
    rp_vertex_t c, n, k, m, vs[5];
    uint64_t amount[5] = { 1, 4, 1, 2, 1 };
    bool excl[5] = { true, false, true, true, false };
    json_t *o;
    char *want, *got;

    if (!g || (c = rp_graph_add_vertex (g, "cluster", NULL, 0, 1, NULL, &e))
                  == RP_VERTEX_NONE
        || (n = rp_graph_add_vertex (g, "node", "n\"q", 3, 1, NULL, &e))
               == RP_VERTEX_NONE
        || (k = rp_graph_add_vertex (g, "core", "co\\re", -1, 1, NULL, &e))
               == RP_VERTEX_NONE
        || (m = rp_graph_add_vertex (g, "memory", NULL, 0, 8, "GB", &e))
               == RP_VERTEX_NONE
        || rp_graph_add_edge (g, c, n, "containment", "contains", &e) < 0
        || rp_graph_add_edge (g, n, k, "containment", "contains", &e) < 0
        || rp_graph_add_edge (g, n, m, "containment", "contains", &e) < 0
        || rp_graph_set_rank (g, n, 7, &e) < 0
        || rp_graph_set_name (g, n, "host \"7\"\\x", &e) < 0
        || rp_graph_set_uuid (g, k, "0f-\"-uuid", &e) < 0
        || rp_graph_add_property (g, n, "zeta", "caf\xc3\xa9", &e) < 0
        || rp_graph_add_property (g, n, "alpha", NULL, &e) < 0
        || rp_graph_finalize (g, &e) < 0
        || rp_graph_tag (g, k, "t\"ag", "v\n", &e) < 0
        || rp_graph_tag (g, m, "summer", "\xc3\xa9t\xc3\xa9", &e) < 0
        || rp_graph_set_state (g, m, RP_VERTEX_DRAINED, &e) < 0)
        BAIL_OUT ("graph: %s", e.text);
    vs[0] = k;
    vs[1] = m;
    vs[2] = n;
    vs[3] = m;
    vs[4] = k;
    for (size_t len = 0; len <= 5; len++) {
        o = rp_graph_subgraph_jgf (g, vs, len % 2 ? amount : NULL,
                                   len % 3 ? excl : NULL, len);
        want = o ? json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        got = rp_graph_subgraph_encode (g, vs, len % 2 ? amount : NULL,
                                        len % 3 ? excl : NULL, len);
        ok (want && got && !strcmp (want, got),
            "subgraph_encode of %zu vertices is what jansson writes", len);
        if (!want || !got || strcmp (want, got))
            diag ("want %s\ngot  %s", want, got);
        json_decref (o);
        free (want);
        free (got);
    }
    vs[0] = 100000;
    errno = 0;
    ok (rp_graph_subgraph_encode (g, vs, NULL, NULL, 1) == NULL
            && errno == EINVAL,
        "subgraph_encode: bad vertex fails with EINVAL");
    errno = 0;
    ok (rp_graph_subgraph_encode (NULL, vs, NULL, NULL, 0) == NULL
            && errno == EINVAL,
        "subgraph_encode: no graph fails with EINVAL");
    rp_graph_destroy (g);
}

/* --- from R -----------------------------------------------------------------
 */

static void test_from_rset (void)
{
    static const struct {
        const char *file;
        const char *outline;
    } files[] = {
        { "R/set-property.expected",
          "cluster0(fluke0@0{all,gpu,pbatch}(core0 core1 core2 core3 gpu0) "
          "fluke1@1{all,gpu,pbatch}(core0 core1 core2 core3 gpu0) "
          "fluke2@2{all,debug}(core0 core1 core2 core3) "
          "fluke3@3{all,debug,x:y}(core0 core1 core2 core3))" },
        { "R/encode-properties.expected",
          "cluster0(fluke0@0{all,pbatch}(core0 core1 core2 core3) "
          "fluke1@1{all,pbatch}(core0 core1 core2 core3) "
          "fluke2@2{all,debug}(core0 core1 core2 core3) "
          "fluke3@3{+queue@x,all,debug}(core0 core1 core2 core3))" },
        { "R/hwloc-lassen-ranks.expected",
          "cluster0(lassen4@4{gpu}(core0 core1 core2 core3 core4 core5 core6 "
          "core7 core8 core9 core10 core11 core12 core13 core14 core15 core16 "
          "core17 core18 core19 core20 core21 core22 core23 core24 core25 "
          "core26 core27 core28 core29 core30 core31 core32 core33 core34 "
          "core35 core36 core37 core38 core39 gpu0 gpu1 gpu2 gpu3) lassen5@5" },
    };

    for (size_t i = 0; i < sizeof (files) / sizeof (files[0]); i++) {
        rp_error_t error = { { 0 } };
        FILE *f = fopen (data_path (files[i].file), "r");
        char text[8192];
        size_t n = f ? fread (text, 1, sizeof (text) - 1, f) : 0;
        struct rp_rset *R;
        struct rp_graph *g;
        rp_vertex_t v;
        if (f)
            fclose (f);
        text[n] = '\0';
        if (!(R = rp_rset_decode (text, &error)))
            BAIL_OUT ("%s: %s", files[i].file, error.text);
        g = rp_graph_from_rset (R, &error);
        ok (g && rp_graph_is_finalized (g), "from_rset %s: finalized graph",
            files[i].file);
        like (outline (g), files[i].outline, "from_rset %s: tree",
              files[i].file);
        v = g ? rp_graph_child_first (g, rp_graph_root (g)) : RP_VERTEX_NONE;
        ok (g && rp_graph_vertex_id (g, v) == rp_graph_vertex_rank (g, v)
                && rp_graph_vertex_rank (g, v)
                       == rp_idset_first (rp_rset_ranks (R)),
            "from_rset %s: node id is the rank", files[i].file);
        rp_graph_destroy (g);
        g = rp_graph_decode_rset (text, &error);
        like (outline (g), files[i].outline, "decode_rset %s: the same tree",
              files[i].file);
        rp_graph_destroy (g);
        rp_rset_destroy (R);
    }
}

static void test_from_rset_errors (void)
{
    rp_error_t error = { { 0 } };
    struct rp_rset *R = rp_rset_create ();
    struct rp_rset *big;

    errno = 0;
    ok (rp_graph_from_rset (R, &error) == NULL && errno == EINVAL,
        "from_rset: empty R fails with EINVAL");
    is (error.text, "graph: R: no execution targets",
        "from_rset: empty R: message");
    errno = 0;
    ok (rp_graph_from_rset (NULL, &error) == NULL && errno == EINVAL,
        "from_rset (NULL) fails with EINVAL");
    big = rp_rset_decode (
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\","
        "\"children\":{\"core\":\"0-4294967294\"}}],\"nodelist\":[\"n0\"]}}",
        &error);
    errno = 0;
    ok (big && rp_graph_from_rset (big, &error) == NULL && errno == E2BIG,
        "from_rset: 2^32-1 cores fail with E2BIG before building");
    is (error.text, "graph: R: more than 67108864 vertices",
        "from_rset: too many vertices: message");
    rp_rset_destroy (big);
    rp_rset_destroy (R);
}

/* --- from hwloc ------------------------------------------------------------
 */

/* Per socket (and NUMA node): "socket0[c20 g2 m137]" = 20 cores, 2 GPUs,
 * a 137 GB pool. */
static void summary_vertex (struct buf *b, const struct rp_graph *g,
                            rp_vertex_t v)
{
    unsigned int cores = 0, gpus = 0;

    put (b, "%s[", rp_graph_vertex_name (g, v));
    for (rp_vertex_t c = rp_graph_child_first (g, v); c != RP_VERTEX_NONE;
         c = rp_graph_child_next (g, c)) {
        const char *t = rp_graph_vertex_type (g, c);
        cores += !strcmp (t, "core");
        gpus += !strcmp (t, "gpu");
    }
    put (b, "c%u g%u", cores, gpus);
    for (rp_vertex_t c = rp_graph_child_first (g, v); c != RP_VERTEX_NONE;
         c = rp_graph_child_next (g, c)) {
        const char *t = rp_graph_vertex_type (g, c);
        if (!strcmp (t, "memory"))
            put (b, " m%llu%s", (unsigned long long)rp_graph_vertex_size (g, c),
                 rp_graph_vertex_unit (g, c));
        else if (!strcmp (t, "numanode"))
            put (b, " "), summary_vertex (b, g, c);
    }
    put (b, "]");
}

static const char *summary (const struct rp_graph *g)
{
    static struct buf b;
    rp_vertex_t node;

    b.len = 0;
    b.s[0] = '\0';
    if (!g)
        return "(null)";
    node = rp_graph_child_first (g, rp_graph_root (g));
    put (&b, "%s@%lld:", rp_graph_vertex_name (g, node),
         (long long)rp_graph_vertex_rank (g, node));
    for (rp_vertex_t c = rp_graph_child_first (g, node); c != RP_VERTEX_NONE;
         c = rp_graph_child_next (g, c))
        put (&b, " "), summary_vertex (&b, g, c);
    return b.s;
}

/* Cores and GPUs of the whole graph must be those of the R that
 * rp_rset_from_hwloc makes of the same file (t/data/R/hwloc-*.expected). */
static void check_counts_match_R (const struct rp_graph *g, const char *name)
{
    char file[256], text[4096];
    rp_error_t error;
    struct rp_rset *R;
    FILE *f;
    size_t n;
    int t;

    snprintf (file, sizeof (file), "R/hwloc-%s.expected", name);
    if (!(f = fopen (data_path (file), "r")))
        BAIL_OUT ("cannot read %s", file);
    n = fread (text, 1, sizeof (text) - 1, f);
    fclose (f);
    text[n] = '\0';
    if (!(R = rp_rset_decode (text, &error)))
        BAIL_OUT ("%s: %s", file, error.text);
    t = rp_graph_type_index (g, "core");
    cmp_ok ((long long)rp_graph_subtree_total (g, rp_graph_root (g), t), ==,
            (long long)rp_rset_count (R, "core"), "%s: cores as in R", name);
    t = rp_graph_type_index (g, "gpu");
    cmp_ok (t < 0 ? 0
                  : (long long)rp_graph_subtree_total (g, rp_graph_root (g), t),
            ==, (long long)rp_rset_count (R, "gpu"), "%s: GPUs as in R", name);
    rp_rset_destroy (R);
}

static void test_from_hwloc (void)
{
    static const struct {
        const char *name;
        const char *summary;
    } topo[] = {
        { "coral-lassen", "lassen28@0: socket0[c20 g2 m137GB] "
                          "socket1[c20 g2 m137GB]" },
        { "cts1-quartz-smt1", "quartz386@0: socket0[c18 g0 m67GB] "
                              "socket1[c18 g0 m67GB]" },
        { "eas-tioga",
          "tioga29@0: socket0[c0 g0 numanode0[c16 g2 m134GB] numanode1[c16 g2 "
          "m135GB] numanode2[c16 g2 m135GB] numanode3[c16 g2 m135GB]]" },
        { "epyc-corona",
          "corona145@0: socket0[c0 g0 numanode0[c6 g0 m34GB] numanode1[c6 g1 "
          "m34GB] numanode2[c6 g1 m34GB] numanode3[c6 g0 m34GB]] "
          "socket1[c0 g0 numanode4[c6 g0 m34GB] numanode5[c6 g1 m34GB] "
          "numanode6[c6 g0 m34GB] numanode7[c6 g1 m34GB]]" },
        /* The GPU hangs off the machine: the VM shows no PCI locality. */
        { "h200-vm", "vm@0: socket0[c16 g0 m4GB] gpu0[c0 g0]" },
    };

    for (size_t i = 0; i < sizeof (topo) / sizeof (topo[0]); i++) {
        rp_error_t error = { { 0 } };
        char file[256];
        struct rp_graph *g;
        snprintf (file, sizeof (file), "topologies/%s.xml", topo[i].name);
        g = rp_graph_from_hwloc (data_path (file), 0, NULL, &error);
        ok (g != NULL, "from_hwloc %s: loads", topo[i].name);
        if (!g) {
            diag ("%s", error.text);
            continue;
        }
        is (summary (g), topo[i].summary,
            "from_hwloc %s: sockets, cores, GPUs, memory", topo[i].name);
        check_counts_match_R (g, topo[i].name);
        rp_graph_destroy (g);
    }
}

static void test_from_hwloc_args (void)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g;
    rp_vertex_t v;
    char want[32];

    g = rp_graph_from_hwloc (data_path ("topologies/coral-lassen.xml"), 7,
                             "node7", &error);
    is (g ? summary (g) : error.text,
        "node7@7: socket0[c20 g2 m137GB] socket1[c20 g2 m137GB]",
        "from_hwloc: rank and host name arguments");
    v = g ? rp_graph_child_first (g, rp_graph_child_first (g, 1)) : 0;
    is (g ? rp_graph_vertex_name (g, v) : NULL, "core0",
        "from_hwloc: first core under socket0 is core0");
    /* cores are numbered across the node: socket1 starts at 20 */
    v = g ? rp_graph_child_next (g, rp_graph_child_first (g, 1)) : 0;
    v = g ? rp_graph_child_first (g, v) : 0;
    snprintf (want, sizeof (want), "core20");
    is (g ? rp_graph_vertex_name (g, v) : NULL, want,
        "from_hwloc: socket1's first core is core20");
    rp_graph_destroy (g);

    errno = 0;
    g = rp_graph_from_hwloc (data_path ("hwloc-bad/no-complete-nodeset.xml"), 0,
                             NULL, &error);
    ok (g == NULL && errno == EINVAL, "from_hwloc: XML that crashes hwloc "
                                      "fails with EINVAL");
    like (error.text,
          "no-complete-nodeset.xml: cannot load topology: not a valid hwloc "
          "XML topology (hwloc died reading it: ",
          "from_hwloc: crash of the reader: message");
    like (error.text, "graph: hwloc: ", "from_hwloc: crash: prefix");
    errno = 0;
    g = rp_graph_from_hwloc ("/nonexistent/x.xml", 0, NULL, &error);
    ok (g == NULL && errno == ENOENT,
        "from_hwloc: missing file fails with ENOENT");
    is (error.text,
        "graph: hwloc: /nonexistent/x.xml: cannot load topology: No such file "
        "or directory",
        "from_hwloc: missing file: message");
}

/* This machine: whatever it has, the graph has the cores and GPUs of the
 * R that rp_rset_from_hwloc makes of it. */
static void test_from_hwloc_machine (void)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g = rp_graph_from_hwloc (NULL, 3, "here", &error);
    struct rp_rset *R = rp_rset_from_hwloc (3, "here", NULL, &error);
    int core = g ? rp_graph_type_index (g, "core") : -1;
    int gpu = g ? rp_graph_type_index (g, "gpu") : -1;

    ok (g != NULL && R != NULL, "from_hwloc: this machine");
    if (!g || !R) {
        diag ("%s", error.text);
        skip (2, "no topology");
    } else {
        ok (rp_graph_vertex_rank (g, 1) == 3
                && !strcmp (rp_graph_vertex_name (g, 1), "here"),
            "from_hwloc: this machine: rank and host name");
        ok ((ssize_t)rp_graph_subtree_total (g, 0, core)
                    == rp_rset_count (R, "core")
                && (gpu < 0 ? 0 : (ssize_t)rp_graph_subtree_total (g, 0, gpu))
                       == rp_rset_count (R, "gpu"),
            "from_hwloc: this machine: cores and GPUs as in R");
    }
    rp_graph_destroy (g);
    rp_rset_destroy (R);
}

/* A topology without Package objects: PUs as cores, under the node. */
static void test_from_hwloc_flat (const char *dir)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g;
    FILE *f = fopen ("flat.xml", "w");

    if (!f
        || fputs ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                  "<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
                  "<topology version=\"2.0\">\n"
                  "<object type=\"Machine\" os_index=\"0\" cpuset=\"0x3\""
                  " complete_cpuset=\"0x3\" allowed_cpuset=\"0x3\""
                  " nodeset=\"0x1\" complete_nodeset=\"0x1\""
                  " allowed_nodeset=\"0x1\" gp_index=\"1\">\n"
                  "<info name=\"HostName\" value=\"flat1\"/>\n"
                  "<object type=\"NUMANode\" os_index=\"0\" cpuset=\"0x3\""
                  " complete_cpuset=\"0x3\" nodeset=\"0x1\""
                  " complete_nodeset=\"0x1\" gp_index=\"2\""
                  " local_memory=\"1000000\"/>\n"
                  "<object type=\"PU\" os_index=\"0\" cpuset=\"0x1\""
                  " complete_cpuset=\"0x1\" nodeset=\"0x1\""
                  " complete_nodeset=\"0x1\" gp_index=\"3\"/>\n"
                  "<object type=\"PU\" os_index=\"1\" cpuset=\"0x2\""
                  " complete_cpuset=\"0x2\" nodeset=\"0x1\""
                  " complete_nodeset=\"0x1\" gp_index=\"4\"/>\n"
                  "<object type=\"OSDev\" gp_index=\"10\" name=\"cuda0\""
                  " osdev_type=\"5\" subtype=\"CUDA\"></object>\n"
                  "</object>\n"
                  "</topology>\n",
                  f)
               < 0
        || fclose (f) != 0)
        BAIL_OUT ("cannot write %s/flat.xml", dir);
    g = rp_graph_from_hwloc ("flat.xml", 2, NULL, &error);
    is (g ? outline (g) : error.text,
        "cluster0(flat1@2(core0 core1 gpu0 memory0<1 GB>))",
        "from_hwloc: no package: PUs, GPU and memory (at least 1 GB) under "
        "the node");
    rp_graph_destroy (g);
}

/* --- bounds -------------------------------------------------------------- */

/* 1,048,576 ranks of 16 cores in 161 bytes */
#define HOSTILE_R                                                              \
    "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-1048575\","       \
    "\"children\":{\"core\":\"0-15\"}}],\"nodelist\":[\"n[0-1048575]\"],"      \
    "\"starttime\":0.0,\"expiration\":0.0}}"

static void test_rset_memory (void)
{
    rp_error_t error = { { 0 } };
    struct rp_rset *R;
    struct rp_graph *g;

    errno = 0;
    ok (rp_graph_decode_rset (HOSTILE_R, &error) == NULL && errno == E2BIG,
        "decode_rset: 2^20 targets of 16 cores fail with E2BIG");
    is (error.text,
        "graph: R: 17825793 vertices need about 2037 MiB, more than the "
        "memory limit of 1536 MiB",
        "... before R is expanded, naming the estimate and the limit");
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN);
    R = rp_rset_decode ("{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
                        "\"0-999\",\"children\":{\"core\":\"0-63\",\"gpu\":"
                        "\"0-3\"}}],\"nodelist\":[\"n[0-999]\"]}}",
                        &error);
    errno = 0;
    ok (R && rp_graph_from_rset (R, &error) == NULL && errno == E2BIG,
        "from_rset: a decoded R past the limit fails with E2BIG");
    is (error.text,
        "graph: R: 69001 vertices need about 7 MiB, more than the memory "
        "limit of 1 MiB",
        "... with the same message");
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_DEFAULT);
    g = rp_graph_from_rset (R, &error);
    ok (g && rp_graph_nvertices (g) == 69001, "... and builds within it");
    rp_graph_destroy (g);
    rp_rset_destroy (R);

    errno = 0;
    ok (rp_graph_decode_rset (NULL, &error) == NULL && errno == EINVAL,
        "decode_rset (NULL) fails with EINVAL");
    ok (rp_graph_decode_rset ("{", &error) == NULL && errno == EINVAL,
        "decode_rset: not JSON fails with EINVAL");
    is (error.text,
        "R: line 1 column 1: string or '}' expected near end of file",
        "... worded as rp_rset_decode words it");
    ok (rp_graph_decode_rset ("{\"version\":1,\"execution\":{\"R_lite\":[{"
                              "\"rank\":\"0-3\",\"children\":{\"core\":\"0\"}},"
                              "{\"rank\":\"3\",\"children\":{\"core\":\"1\"}}"
                              "],\"nodelist\":[\"n[0-3]\"]}}",
                              &error)
            == NULL,
        "decode_rset: a bad R fails");
    is (error.text, "R: execution.R_lite[1].rank: rank 3 appears twice",
        "... with the decoder's message");
}

static void write_text (const char *path, const char *text)
{
    FILE *f = fopen (path, "w");

    if (!f || fputs (text, f) < 0 || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", path);
}

/* respol graph JSON of n vertices: a chain of n distinct types, or a
 * root holding the others, all of one type. */
static void write_graph (const char *path, int n, bool chain)
{
    FILE *f = fopen (path, "w");

    if (!f)
        BAIL_OUT ("cannot write %s", path);
    fputs ("{\"respol-graph\":1,\"vertices\":[", f);
    for (int i = 0; i < n; i++) {
        if (chain)
            fprintf (f, "%s{\"type\":\"t%d\"}", i ? "," : "", i);
        else
            fprintf (f, "%s{\"type\":\"a\"}", i ? "," : "");
    }
    fputs ("],\"edges\":[", f);
    for (int i = 0; i + 1 < n; i++)
        fprintf (f, "%s[%d,%d]", i ? "," : "", chain ? i : 0, i + 1);
    if (fputs ("]}", f) < 0 || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", path);
}

/* Refused where each bound is reached: finalize (interior vertices x
 * types), the document's count before parsing, the lengths of the lists
 * after it. */
static const struct {
    int n;
    bool chain;
    uint64_t limit;
    int errnum;
    const char *text;
} loads[] = {
    { 20000, true, RP_GRAPH_MEMORY_DEFAULT, E2BIG,
      "g.json:1:1: 20000 vertices of 20000 types need about 9599 MiB, more "
      "than the memory limit of 1536 MiB" },
    { 2000, true, RP_GRAPH_MEMORY_MIN, EFBIG,
      "g.json: document needs about 4 MiB to read, more than the memory "
      "limit of 1 MiB" },
    { 9000, false, 16 << 20, E2BIG,
      "g.json:1:1: 9000 vertices and 8999 edges need about 18 MiB, more than "
      "the memory limit of 16 MiB" },
};

static void test_load_memory (void)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g;
    FILE *f;

    for (size_t i = 0; i < sizeof (loads) / sizeof (loads[0]); i++) {
        write_graph ("g.json", loads[i].n, loads[i].chain);
        rp_graph_set_memory_limit (loads[i].limit);
        errno = 0;
        g = rp_graph_load ("g.json", &error);
        ok (!g && errno == loads[i].errnum, "load: %d vertices %s fail",
            loads[i].n, loads[i].chain ? "of as many types" : "of one type");
        is (error.text, loads[i].text, "... %s", loads[i].text);
        rp_graph_destroy (g);
    }
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN);
    f = fopen ("g.json", "w");
    if (!f || ftruncate (fileno (f), (off_t)1 << 30) < 0 || fclose (f) != 0)
        BAIL_OUT ("cannot make a sparse file");
    errno = 0;
    ok (rp_graph_load ("g.json", &error) == NULL && errno == EFBIG,
        "load: a file of 1 GiB fails with EFBIG");
    is (error.text,
        "g.json: document is larger than 262144 bytes, the most that the "
        "memory limit of 1 MiB allows",
        "... before it is read");
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_DEFAULT);

    write_text ("g.json", "{\"respol-graph\":1,\"vertices\":[{\"type\":\"a\"},"
                          "{\"type\":\"b\"}],\"edges\":[[0,1]]}");
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN);
    g = rp_graph_load ("g.json", &error);
    is (outline (g), "a(b)", "load: a small graph loads under 1 MiB");
    rp_graph_destroy (g);
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_DEFAULT);
}

static void test_encode_memory (void)
{
    rp_error_t error = { { 0 } };
    struct rp_graph *g = rp_graph_generate ("nodes=1000", &error);
    char *s;

    if (!g)
        BAIL_OUT ("generate: %s", error.text);
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN);
    errno = 0;
    ok (rp_graph_encode_check (g, RP_GRAPH_JGF, &error) < 0 && errno == E2BIG,
        "encode_check: JGF of 3001 vertices passes 1 MiB (E2BIG)");
    is (error.text,
        "writing 3001 vertices as JGF needs about 14 MiB, more than the "
        "memory limit of 1 MiB",
        "... naming the estimate and the limit");
    ok (rp_graph_encode_check (g, RP_GRAPH_JSON, &error) < 0,
        "... respol JSON too");
    is (error.text,
        "writing 3001 vertices as respol JSON needs about 4 MiB, more than the "
        "memory limit of 1 MiB",
        "... and says so");
    errno = 0;
    ok (rp_graph_encode (g, RP_GRAPH_JGF) == NULL && errno == E2BIG
            && rp_graph_to_json (g, RP_GRAPH_JSON) == NULL && errno == E2BIG,
        "encode and to_json refuse it before writing");
    ok (rp_graph_encode_check (g, RP_GRAPH_DOT, &error) == 0
            && (s = rp_graph_encode (g, RP_GRAPH_DOT)) != NULL,
        "DOT of it fits and is written");
    free (s);
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_DEFAULT);
    s = rp_graph_encode (g, RP_GRAPH_JGF);
    ok (s != NULL, "within the default limit JGF is written");
    free (s);
    errno = 0;
    ok (rp_graph_encode_check (NULL, RP_GRAPH_JSON, &error) < 0
            && errno == EINVAL,
        "encode_check (NULL) fails with EINVAL");
    ok (rp_graph_encode_check (g, (enum rp_graph_format)3, &error) < 0
            && errno == EINVAL,
        "encode_check of an unknown format fails with EINVAL");
    rp_graph_destroy (g);
}

int main (void)
{
    const char *tmp = getenv ("TMPDIR");
    char dir[4096];
    char cwd[4096];

    snprintf (dir, sizeof (dir), "%s/graph_io-XXXXXX", tmp ? tmp : "/tmp");
    if (!getcwd (cwd, sizeof (cwd)) || !mkdtemp (dir) || chdir (dir) < 0)
        BAIL_OUT ("cannot make a scratch directory");
    test_format_parse ();
    test_json_round_trip ();
    test_json_minimal ();
    test_jgf_round_trip ();
    test_jgf_fluxion ();
    test_jgf_details ();
    test_bad_docs (dir);
    test_from_json_errors ();
    test_load_files (dir);
    test_dot ();
    test_subgraph ();
    test_subgraph_encode ();
    test_from_rset ();
    test_from_rset_errors ();
    test_from_hwloc ();
    test_from_hwloc_args ();
    test_from_hwloc_machine ();
    test_from_hwloc_flat (dir);
    test_cycles ();
    test_rset_memory ();
    test_load_memory ();
    test_encode_memory ();
    chmod ("secret.json", 0600);
    unlink ("secret.json");
    unlink ("g.json");
    unlink ("g.yaml");
    unlink ("flat.xml");
    rmdir ("adir");
    if (chdir (cwd) < 0 || rmdir (dir) < 0)
        diag ("cannot remove %s", dir);
    return done_testing ();
}
