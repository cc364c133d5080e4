/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target for the resource graph readers: rp_graph_from_json ()
 * on any JSON or YAML document (respol's graph JSON or JGF), read with
 * the document reader.
 *
 * Every input must read or fail with an error text.  When it reads: the
 * graph is finalized; its JSON encoding reads back into a graph whose
 * encoding is the same text; its JGF reads back, and the JGF of that
 * graph reads back into the same JGF text (the first JGF read may reorder
 * vertices into containment pre-order, after which JGF is stable); DOT
 * encoding succeeds; the JGF subgraph of the leaves reads back.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/document.h>
#include <respol/graph.h>

static void check (bool cond, const char *what)
{
    if (!cond) {
        fprintf (stderr, "fuzz-graph: %s\n", what);
        abort ();
    }
}

/* Decode text as JSON and read it as a graph (must succeed). */
static struct rp_graph *reread (const char *s, const char *what)
{
    json_t *o = s ? json_loads (s, 0, NULL) : NULL;
    rp_error_t e = { .text = "" };
    struct rp_graph *g;

    check (o != NULL, what);
    g = rp_graph_from_json (o, &e);
    if (!g)
        fprintf (stderr, "fuzz-graph: %s: %s\n", what, e.text);
    check (g != NULL, what);
    json_decref (o);
    return g;
}

static void check_json (const struct rp_graph *g)
{
    char *s = rp_graph_encode (g, RP_GRAPH_JSON);
    struct rp_graph *g2 = reread (s, "JSON encoding does not read back");
    char *s2 = rp_graph_encode (g2, RP_GRAPH_JSON);

    check (s2 && !strcmp (s, s2), "JSON encoding is not stable");
    free (s);
    free (s2);
    rp_graph_destroy (g2);
}

static void check_jgf (const struct rp_graph *g)
{
    char *s = rp_graph_encode (g, RP_GRAPH_JGF);
    struct rp_graph *g2 = reread (s, "JGF encoding does not read back");
    char *s2 = rp_graph_encode (g2, RP_GRAPH_JGF);
    struct rp_graph *g3 = reread (s2, "JGF of a JGF graph does not read back");
    char *s3 = rp_graph_encode (g3, RP_GRAPH_JGF);

    check (rp_graph_nvertices (g2) == rp_graph_nvertices (g),
           "JGF changes the vertex count");
    check (s3 && !strcmp (s2, s3), "JGF encoding is not stable");
    free (s);
    free (s2);
    free (s3);
    rp_graph_destroy (g2);
    rp_graph_destroy (g3);
}

static void check_subgraph (const struct rp_graph *g)
{
    size_t n = rp_graph_nvertices (g), k = 0;
    rp_vertex_t *leaves = calloc (n, sizeof (*leaves));
    json_t *o;
    char *s;

    check (leaves != NULL, "out of memory");
    for (rp_vertex_t v = 0; v < n; v++)
        if (rp_graph_nchildren (g, v) == 0)
            leaves[k++] = v;
    o = rp_graph_subgraph_jgf (g, leaves, NULL, NULL, k);
    check (o != NULL, "subgraph_jgf failed");
    s = json_dumps (o, JSON_COMPACT);
    rp_graph_destroy (reread (s, "subgraph JGF does not read back"));
    free (s);
    json_decref (o);
    free (leaves);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    rp_error_t e = { .text = "" };
    struct rp_doc *doc;
    struct rp_graph *g;
    char *dot;

    if (!(doc =
              rp_doc_load ((const char *)data, size, "fuzz", RP_DOC_AUTO, &e)))
        return 0;
    g = rp_graph_from_json (rp_doc_root (doc), &e);
    rp_doc_destroy (doc);
    if (!g) {
        check (e.text[0] != '\0', "failure without an error text");
        return 0;
    }
    check (rp_graph_is_finalized (g), "graph not finalized");
    check_json (g);
    check_jgf (g);
    check_subgraph (g);
    dot = rp_graph_encode (g, RP_GRAPH_DOT);
    check (dot != NULL, "DOT encoding failed");
    free (dot);
    rp_graph_destroy (g);
    return 0;
}
