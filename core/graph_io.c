/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Resource graph serializers (RFC 4 "Serializer"): respol's own graph
 * JSON, JGF as Fluxion reads and writes it, and DOT to look at.  See
 * api/respol/graph.h for the contract and doc/formats.md for the formats.
 *
 * respol's JSON carries everything of the model but allocations, with
 * defaults omitted, vertices in handle order and edges grouped by source
 * in the order added, so that encode -> read -> encode gives the same
 * bytes.  Reading it is strict (unknown keys are errors) and stops at the
 * first problem, which it reports with its path and, when the tree comes
 * from the document reader, its file:line:col.
 *
 * Messages are "file:line:col: path: what" for a file, "graph: path:
 * what" for a tree given as such (it has no positions).
 *
 * JGF is written as Fluxion writes it (rank -1 above the execution
 * targets, every vertex below one carrying its rank, properties without a
 * value as ""), plus three keys of respol's own in a node's metadata when
 * they apply: uuid, tags and state.  The JGF node ids are vertex handles.
 *
 * JGF is read leniently, as Fluxion's own files vary: node ids may be
 * strings or integers, edges may carry {"name": {subsystem: type}} or
 * {"subsystem": s, "type": t} (type "contains" by default) or nothing
 * (containment "contains"), properties may be an object or a list of
 * names, "status" may be 0 (up) or 1 (down), and keys respol does not
 * use (uniq_id, exclusive, paths, and anything else) are ignored.
 * Vertices are added in containment pre-order with siblings in node-list
 * order, so that walks over a Fluxion file whose nodes are not in tree
 * order still go "lowest id first" where the file lists siblings by id.
 * A vertex is an execution target when its rank differs from its
 * parent's (rank -1, or no rank, inherits).  The properties of a JGF file
 * map "" to "no value".  A containment cycle is found here, before the
 * model sees the tree, since the vertex order depends on it.
 *
 * DOT is written only.  Writing needs a finalized graph (the containment
 * tree is known only then); rp_graph_to_json of DOT fails with EINVAL.
 *
 * Reading never allocates in proportion to a number inside the document:
 * numbers are only stored, and the vertex count (the length of a list) is
 * checked against RP_GRAPH_MAX_VERTICES before anything is built.  A
 * file is read within the memory limit (rp_doc_load_file_within), not
 * within the 16 MiB of other documents, and the graph's estimate from the
 * lengths of its lists, with the document's, must fit the limit too.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/document.h>
#include <respol/graph.h>

#include "core/docpath.h"
#include "core/graph_private.h"
#include "core/jtext.h"

#define PATH_MAX_LEN 160
#define VERSION 1

/* === format names ====================================================== */

int rp_graph_format_parse (const char *name, enum rp_graph_format *fmt,
                           rp_error_t *error)
{
    static const char *const names[] = { "json", "jgf", "dot" };

    for (int i = 0; name && i < 3; i++) {
        if (!strcmp (name, names[i])) {
            if (fmt)
                *fmt = (enum rp_graph_format)i;
            return 0;
        }
    }
    return rp_error_set (error, EINVAL,
                         "graph format \"%s\": must be json, jgf or dot",
                         name ? name : "(null)");
}

/* === writing =========================================================== */

static bool has_unit (const char *unit)
{
    return unit && *unit;
}

/* Does the vertex's name differ from the default (basename + id)? */
static bool own_name (const struct rp_graph *g, rp_vertex_t v)
{
    const char *base = rp_graph_vertex_basename (g, v);
    const char *name = rp_graph_vertex_name (g, v);
    int64_t id = rp_graph_vertex_id (g, v);
    size_t len = strlen (base);
    char idbuf[32];

    if (strncmp (name, base, len) != 0)
        return true;
    if (id < 0)
        return name[len] != '\0';
    snprintf (idbuf, sizeof (idbuf), "%" PRId64, id);
    return strcmp (name + len, idbuf) != 0;
}

/* Set key to o (stolen) unless o is an empty object. */
static int set_nonempty (json_t *obj, const char *key, json_t *o)
{
    if (!o)
        return -1;
    if (json_object_size (o) == 0) {
        json_decref (o);
        return 0;
    }
    return json_object_set_new (obj, key, o);
}

/* The keys of respol's own that both formats write, when they apply:
 * tags, uuid (when with_uuid) and state, in that order. */
static int set_own_keys (json_t *o, const struct rp_graph *g, rp_vertex_t v,
                         bool with_uuid)
{
    const char *uuid = with_uuid ? rp_graph_vertex_uuid (g, v) : NULL;
    enum rp_vertex_state state = rp_graph_vertex_state (g, v);

    if (set_nonempty (o, "tags", rp_graph_vertex_tags (g, v))
        || (uuid && json_object_set_new (o, "uuid", json_string (uuid)))
        || (state != RP_VERTEX_UP
            && json_object_set_new (o, "state",
                                    json_string (rp_graph_state_name (state)))))
        return -1;
    return 0;
}

static json_t *own_vertex (const struct rp_graph *g, rp_vertex_t v)
{
    const char *type = rp_graph_vertex_type (g, v);
    const char *base = rp_graph_vertex_basename (g, v);
    const char *uuid = rp_graph_vertex_uuid (g, v);
    const char *unit = rp_graph_vertex_unit (g, v);
    uint64_t size = rp_graph_vertex_size (g, v);
    json_t *o = json_pack ("{s:s}", "type", type);

    if (!o
        || (strcmp (base, type)
            && json_object_set_new (o, "basename", json_string (base)))
        || (rp_graph_vertex_id (g, v) >= 0
            && json_object_set_new (o, "id",
                                    json_integer (rp_graph_vertex_id (g, v))))
        || (own_name (g, v)
            && json_object_set_new (o, "name",
                                    json_string (rp_graph_vertex_name (g, v))))
        || (uuid && json_object_set_new (o, "uuid", json_string (uuid)))
        || (size != 1
            && json_object_set_new (o, "size", json_integer ((json_int_t)size)))
        || (has_unit (unit)
            && json_object_set_new (o, "unit", json_string (unit))))
        goto error;
    if ((rp_graph_target (g, v) == v
         && json_object_set_new (o, "rank",
                                 json_integer (rp_graph_vertex_rank (g, v))))
        || set_nonempty (o, "properties", rp_graph_vertex_properties (g, v))
        || set_own_keys (o, g, v, false) < 0)
        goto error;
    return o;
error:
    json_decref (o);
    return NULL;
}

static json_t *own_edge (const struct rp_graph *g, rp_vertex_t v, size_t i)
{
    const char *sub = rp_graph_edge_subsystem (g, v, i);
    const char *type = rp_graph_edge_type (g, v, i);
    json_int_t dst = rp_graph_edge_target (g, v, i);

    if (!strcmp (sub, RP_GRAPH_CONTAINMENT) && !strcmp (type, "contains"))
        return json_pack ("[I,I]", (json_int_t)v, dst);
    return json_pack ("[I,I,s,s]", (json_int_t)v, dst, sub, type);
}

static json_t *own_json (const struct rp_graph *g)
{
    size_t n = rp_graph_nvertices (g);
    json_t *vertices = json_array ();
    json_t *edges = json_array ();

    if (!vertices || !edges)
        goto error;
    for (rp_vertex_t v = 0; v < n; v++) {
        if (json_array_append_new (vertices, own_vertex (g, v)) < 0)
            goto error;
        for (size_t i = 0; i < rp_graph_nedges (g, v); i++)
            if (json_array_append_new (edges, own_edge (g, v, i)) < 0)
                goto error;
    }
    return json_pack ("{s:i s:o s:o}", "respol-graph", VERSION, "vertices",
                      vertices, "edges", edges);
error:
    json_decref (vertices);
    json_decref (edges);
    return NULL;
}

/* --- JGF ----------------------------------------------------------------- */

/* What of each selected vertex a JGF document holds (rp_graph_subgraph_jgf;
 * a whole graph has no selection). */
struct jgf_sel {
    rp_vertex_t v;
    size_t seq; /* order of appearance, so that duplicates merge in order */
    bool exclusive;
    bool has_amount;
    uint64_t amount;
};

/* A whole graph, or a selection: its entries sorted by handle, found by
 * binary search, so that writing the subgraph of a job costs in
 * proportion to the job, not to the graph. */
struct jgf_writer {
    const struct rp_graph *g;
    const struct jgf_sel *sel; /* NULL: every vertex, as it is */
    size_t n;                  /* entries: selected, or every vertex */
    char **paths;              /* containment path of each entry, memoized */
    rp_vertex_t *chain;
};

static int sel_cmp (const void *a, const void *b)
{
    const struct jgf_sel *x = a, *y = b;

    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The entry of v, or SIZE_MAX when v is not written. */
static size_t jgf_pos (const struct jgf_writer *w, rp_vertex_t v)
{
    size_t lo = 0, hi = w->n;

    if (v == RP_VERTEX_NONE)
        return SIZE_MAX;
    if (!w->sel)
        return v < w->n ? v : SIZE_MAX;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->sel[mid].v == v)
            return mid;
        if (w->sel[mid].v < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return SIZE_MAX;
}

static char *path_join (const char *up, const char *name)
{
    size_t a = strlen (up), b = strlen (name);
    char *s = malloc (a + b + 2);

    if (s) {
        memcpy (s, up, a);
        s[a] = '/';
        memcpy (s + a + 1, name, b + 1);
    }
    return s;
}

/* "/cluster0/node3/core7": the names from the root down (every ancestor
 * of a written vertex is written). */
static const char *jgf_path (struct jgf_writer *w, size_t pos)
{
    size_t depth = 0, i;

    for (i = pos; i != SIZE_MAX && !w->paths[i];
         i = jgf_pos (w, rp_graph_parent (w->g, w->sel ? w->sel[i].v : i)))
        w->chain[depth++] = i;
    while (depth-- > 0) {
        size_t e = w->chain[depth];
        rp_vertex_t v = w->sel ? w->sel[e].v : e;
        size_t up = jgf_pos (w, rp_graph_parent (w->g, v));
        const char *prefix = up == SIZE_MAX ? "" : w->paths[up];
        if (!(w->paths[e] = path_join (prefix, rp_graph_vertex_name (w->g, v))))
            return NULL;
    }
    return w->paths[pos];
}

/* Properties as Fluxion writes them: name -> value, "" for none. */
static json_t *jgf_properties (const struct rp_graph *g, rp_vertex_t v)
{
    json_t *o = rp_graph_vertex_properties (g, v);

    for (void *it = json_object_iter (o); it;
         it = json_object_iter_next (o, it)) {
        if (json_is_null (json_object_iter_value (it))
            && json_object_iter_set_new (o, it, json_string ("")) < 0) {
            json_decref (o);
            return NULL;
        }
    }
    return o;
}

static json_t *jgf_metadata (struct jgf_writer *w, size_t pos)
{
    const struct rp_graph *g = w->g;
    const struct jgf_sel *sel = w->sel ? &w->sel[pos] : NULL;
    rp_vertex_t v = sel ? sel->v : pos;
    const char *unit = rp_graph_vertex_unit (g, v);
    const char *path = jgf_path (w, pos);
    uint64_t size =
        sel && sel->has_amount ? sel->amount : rp_graph_vertex_size (g, v);
    json_t *o;

    if (!path)
        return NULL;
    o = json_pack (
        "{s:s s:s s:s s:I s:I s:I s:b s:s s:I s:{s:s}}", "type",
        rp_graph_vertex_type (g, v), "basename",
        rp_graph_vertex_basename (g, v), "name", rp_graph_vertex_name (g, v),
        "id", (json_int_t)rp_graph_vertex_id (g, v), "uniq_id", (json_int_t)v,
        "rank", (json_int_t)rp_graph_vertex_rank (g, v), "exclusive",
        sel ? sel->exclusive : false, "unit", has_unit (unit) ? unit : "",
        "size", (json_int_t)size, "paths", RP_GRAPH_CONTAINMENT, path);
    if (!o || set_nonempty (o, "properties", jgf_properties (g, v))
        || set_own_keys (o, g, v, true) < 0)
        goto error;
    return o;
error:
    json_decref (o);
    return NULL;
}

static json_t *jgf_node (struct jgf_writer *w, size_t pos)
{
    char id[16];

    snprintf (id, sizeof (id), "%" PRIu32,
              w->sel ? w->sel[pos].v : (rp_vertex_t)pos);
    return json_pack ("{s:s s:o}", "id", id, "metadata", jgf_metadata (w, pos));
}

static json_t *jgf_edge (rp_vertex_t src, rp_vertex_t dst, const char *sub,
                         const char *type)
{
    char s[16], d[16];

    snprintf (s, sizeof (s), "%" PRIu32, src);
    snprintf (d, sizeof (d), "%" PRIu32, dst);
    return json_pack ("{s:s s:s s:{s:{s:s}}}", "source", s, "target", d,
                      "metadata", "name", sub, type);
}

/* The edges out of v: all of them for a whole graph, else the containment
 * edge from v's parent when both are selected. */
static int jgf_edges (struct jgf_writer *w, rp_vertex_t v, json_t *edges)
{
    const struct rp_graph *g = w->g;
    rp_vertex_t p = rp_graph_parent (g, v);

    if (w->sel) {
        if (jgf_pos (w, p) == SIZE_MAX)
            return 0;
        return json_array_append_new (
            edges, jgf_edge (p, v, RP_GRAPH_CONTAINMENT, "contains"));
    }
    for (size_t i = 0; i < rp_graph_nedges (g, v); i++) {
        json_t *e = jgf_edge (v, rp_graph_edge_target (g, v, i),
                              rp_graph_edge_subsystem (g, v, i),
                              rp_graph_edge_type (g, v, i));
        if (json_array_append_new (edges, e) < 0)
            return -1;
    }
    return 0;
}

/* sel: n entries sorted by handle, each once; NULL for the whole graph. */
static json_t *jgf_write (const struct rp_graph *g, const struct jgf_sel *sel,
                          size_t n)
{
    struct jgf_writer w = { g, sel, sel ? n : rp_graph_nvertices (g) };
    json_t *nodes = json_array ();
    json_t *edges = json_array ();
    json_t *o = NULL;

    w.paths = calloc (w.n + 1, sizeof (char *));
    w.chain = calloc (w.n + 1, sizeof (rp_vertex_t));
    if (!w.paths || !w.chain || !nodes || !edges)
        goto done;
    for (size_t i = 0; i < w.n; i++) {
        if (json_array_append_new (nodes, jgf_node (&w, i)) < 0
            || jgf_edges (&w, sel ? sel[i].v : (rp_vertex_t)i, edges) < 0)
            goto done;
    }
    o = json_pack ("{s:{s:O s:O}}", "graph", "nodes", nodes, "edges", edges);
done:
    json_decref (nodes);
    json_decref (edges);
    for (size_t i = 0; w.paths && i < w.n; i++)
        free (w.paths[i]);
    free (w.paths);
    free (w.chain);
    if (!o)
        errno = ENOMEM;
    return o;
}

/* The vertices added to a selection, as a set (open addressing on handle
 * + 1, 0 empty, at most half full): an ancestor is added once, not once
 * for every vertex below it (the cores of a whole node put it, its
 * socket and the cluster in 4 entries each, sorted, for nothing). */
struct vset {
    uint32_t *slot;
    size_t mask;
    size_t n;
};

static bool vset_has (const struct vset *s, rp_vertex_t v)
{
    if (!s->slot)
        return false;
    for (size_t i = (v * 2654435761u) & s->mask; s->slot[i];
         i = (i + 1) & s->mask)
        if (s->slot[i] == v + 1)
            return true;
    return false;
}

/* Add v (not in the set): 0, or -1 (ENOMEM). */
static int vset_add (struct vset *s, rp_vertex_t v)
{
    if (2 * (s->n + 1) > s->mask + 1) {
        struct vset b = { .mask = s->mask ? 2 * s->mask + 1 : 63 };
        if (!(b.slot = calloc (b.mask + 1, sizeof (*b.slot))))
            return -1;
        for (size_t i = 0; s->slot && i <= s->mask; i++)
            if (s->slot[i])
                (void)vset_add (&b, s->slot[i] - 1);
        free (s->slot);
        *s = b;
    }
    size_t i = (v * 2654435761u) & s->mask;
    while (s->slot[i])
        i = (i + 1) & s->mask;
    s->slot[i] = v + 1;
    s->n++;
    return 0;
}

/* Room for one more entry in *sel: 0, or -1 (ENOMEM). */
static int sel_room (struct jgf_sel **sel, size_t len, size_t *cap)
{
    struct jgf_sel *bigger;

    if (len < *cap)
        return 0;
    if (!(bigger = realloc (*sel, 2 * *cap * sizeof (**sel))))
        return -1;
    *sel = bigger;
    *cap *= 2;
    return 0;
}

/* The selection: the given vertices and their ancestors, sorted, each
 * once (a vertex listed twice: exclusive flags OR-ed, the last amount
 * wins).  Returns the number of entries, or -1 (ENOMEM). */
static ssize_t select_vertices (const struct rp_graph *g,
                                const rp_vertex_t *vertices,
                                const uint64_t *amount, const bool *exclusive,
                                size_t n, struct jgf_sel **selp)
{
    size_t cap = n + 16, len = 0, out = 0;
    struct jgf_sel *sel = malloc (cap * sizeof (*sel));
    struct vset seen = { 0 };

    if (!sel)
        return -1;
    for (size_t i = 0; i < n; i++) {
        /* the vertex itself, always (it carries its amount); then its
         * ancestors up to one already added (and all above it with it) */
        for (rp_vertex_t u = vertices[i]; u != RP_VERTEX_NONE;
             u = rp_graph_parent (g, u)) {
            bool listed = u == vertices[i], had = vset_has (&seen, u);
            if (!listed && had)
                break;
            if (sel_room (&sel, len, &cap) < 0
                || (!had && vset_add (&seen, u) < 0))
                goto nomem;
            sel[len] = (struct jgf_sel){ .v = u, .seq = len };
            len++;
            if (!listed)
                continue;
            sel[len - 1].exclusive = exclusive && exclusive[i];
            sel[len - 1].has_amount = amount != NULL;
            sel[len - 1].amount = amount ? amount[i] : 0;
        }
    }
    free (seen.slot);
    /* Stable merge of duplicates: a plain entry (an ancestor) adds
     * nothing; a listed one ORs exclusive and replaces the amount. */
    qsort (sel, len, sizeof (*sel), sel_cmp);
    for (size_t i = 0; i < len; i++) {
        if (out > 0 && sel[out - 1].v == sel[i].v) {
            sel[out - 1].exclusive |= sel[i].exclusive;
            if (sel[i].has_amount) {
                sel[out - 1].has_amount = true;
                sel[out - 1].amount = sel[i].amount;
            }
            continue;
        }
        sel[out++] = sel[i];
    }
    *selp = sel;
    return (ssize_t)out;
nomem:
    free (seen.slot);
    free (sel);
    return -1;
}

static ssize_t subgraph_select (const struct rp_graph *g,
                                const rp_vertex_t *vertices,
                                const uint64_t *amount, const bool *exclusive,
                                size_t n, struct jgf_sel **selp);

json_t *rp_graph_subgraph_jgf (const struct rp_graph *g,
                               const rp_vertex_t *vertices,
                               const uint64_t *amount, const bool *exclusive,
                               size_t n)
{
    struct jgf_sel *sel = NULL;
    ssize_t len;
    json_t *o;

    if ((len = subgraph_select (g, vertices, amount, exclusive, n, &sel)) < 0)
        return NULL;
    o = jgf_write (g, sel, (size_t)len);
    free (sel);
    return o;
}

/* --- JGF as text --------------------------------------------------------- */

/* rp_graph_subgraph_encode writes what jgf_write builds, with its keys in
 * the order JSON_SORT_KEYS sorts them and its values as jansson writes
 * them (core/jtext.h).  What is rare and free-form (properties, tags)
 * still goes through jansson.  Building the tree, dumping it and freeing
 * it was most of the cost of an allocation's R. */
/* ,"key": */
static void jt_key (struct jtext *t, const char *key)
{
    jt_puts (t, ",\"");
    jt_puts (t, key);
    jt_puts (t, "\":");
}

/* ,"key":o unless o is empty (o taken). */
static void jt_nonempty (struct jtext *t, const char *key, json_t *o)
{
    if (!o)
        t->failed = true;
    else if (json_object_size (o) > 0) {
        jt_key (t, key);
        jt_json (t, o);
    }
    json_decref (o);
}

/* jgf_metadata's object, keys sorted. */
static void jgf_metadata_text (struct jgf_writer *w, size_t pos,
                               struct jtext *t)
{
    const struct rp_graph *g = w->g;
    const struct jgf_sel *sel = &w->sel[pos];
    rp_vertex_t v = sel->v;
    const char *unit = rp_graph_vertex_unit (g, v);
    const char *path = jgf_path (w, pos);
    const char *uuid = rp_graph_vertex_uuid (g, v);
    enum rp_vertex_state state = rp_graph_vertex_state (g, v);

    if (!path) {
        t->failed = true;
        return;
    }
    jt_puts (t, "{\"basename\":");
    jt_string (t, rp_graph_vertex_basename (g, v));
    jt_puts (t, sel->exclusive ? ",\"exclusive\":true,\"id\":"
                               : ",\"exclusive\":false,\"id\":");
    jt_int (t, rp_graph_vertex_id (g, v));
    jt_key (t, "name");
    jt_string (t, rp_graph_vertex_name (g, v));
    jt_puts (t, ",\"paths\":{\"containment\":");
    jt_string (t, path);
    jt_puts (t, "}");
    if (graph_vertex_annotated (g, v, false))
        jt_nonempty (t, "properties", jgf_properties (g, v));
    jt_key (t, "rank");
    jt_int (t, rp_graph_vertex_rank (g, v));
    jt_key (t, "size");
    jt_int (t, (int64_t)(sel->has_amount ? sel->amount
                                         : rp_graph_vertex_size (g, v)));
    if (state != RP_VERTEX_UP) {
        jt_key (t, "state");
        jt_string (t, rp_graph_state_name (state));
    }
    if (graph_vertex_annotated (g, v, true))
        jt_nonempty (t, "tags", rp_graph_vertex_tags (g, v));
    jt_key (t, "type");
    jt_string (t, rp_graph_vertex_type (g, v));
    jt_key (t, "uniq_id");
    jt_int (t, v);
    jt_key (t, "unit");
    jt_string (t, has_unit (unit) ? unit : "");
    if (uuid) {
        jt_key (t, "uuid");
        jt_string (t, uuid);
    }
    jt_puts (t, "}");
}

static char *jgf_text (const struct rp_graph *g, const struct jgf_sel *sel,
                       size_t n)
{
    struct jgf_writer w = { .g = g, .sel = sel, .n = n };
    struct jtext t = { 0 };
    const char *sep = "";

    w.paths = calloc (n + 1, sizeof (char *));
    w.chain = calloc (n + 1, sizeof (rp_vertex_t));
    if (!w.paths || !w.chain)
        t.failed = true;
    jt_puts (&t, "{\"graph\":{\"edges\":[");
    for (size_t i = 0; i < n && !t.failed; i++) {
        rp_vertex_t p = rp_graph_parent (g, sel[i].v);
        if (jgf_pos (&w, p) == SIZE_MAX)
            continue;
        jt_puts (&t, sep);
        jt_puts (&t, "{\"metadata\":{\"name\":{\"containment\":\"contains\"}},"
                     "\"source\":\"");
        jt_int (&t, p);
        jt_puts (&t, "\",\"target\":\"");
        jt_int (&t, sel[i].v);
        jt_puts (&t, "\"}");
        sep = ",";
    }
    jt_puts (&t, "],\"nodes\":[");
    for (size_t i = 0; i < n && !t.failed; i++) {
        jt_puts (&t, i ? ",{\"id\":\"" : "{\"id\":\"");
        jt_int (&t, sel[i].v);
        jt_puts (&t, "\",\"metadata\":");
        jgf_metadata_text (&w, i, &t);
        jt_puts (&t, "}");
    }
    jt_puts (&t, "]}}");
    for (size_t i = 0; w.paths && i < n; i++)
        free (w.paths[i]);
    free (w.paths);
    free (w.chain);
    return jt_finish (&t);
}

/* The selection of rp_graph_subgraph_jgf and _encode (EINVAL for bad
 * arguments, ENOMEM): its length, or -1. */
static ssize_t subgraph_select (const struct rp_graph *g,
                                const rp_vertex_t *vertices,
                                const uint64_t *amount, const bool *exclusive,
                                size_t n, struct jgf_sel **selp)
{
    if (!g || !rp_graph_is_finalized (g) || (n > 0 && !vertices)) {
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (vertices[i] >= rp_graph_nvertices (g)) {
            errno = EINVAL;
            return -1;
        }
    }
    return select_vertices (g, vertices, amount, exclusive, n, selp);
}

char *rp_graph_subgraph_encode (const struct rp_graph *g,
                                const rp_vertex_t *vertices,
                                const uint64_t *amount, const bool *exclusive,
                                size_t n)
{
    struct jgf_sel *sel = NULL;
    ssize_t len;
    char *s;

    if ((len = subgraph_select (g, vertices, amount, exclusive, n, &sel)) < 0)
        return NULL;
    s = jgf_text (g, sel, (size_t)len);
    free (sel);
    return s;
}

/* --- DOT ----------------------------------------------------------------- */

/* A DOT string body: quotes and backslashes escaped, control characters
 * shown as '?'. */
static void dot_string (FILE *f, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf (f, "\\%c", c);
        else
            fputc (c < 0x20 || c == 0x7f ? '?' : c, f);
    }
}

static void dot_vertex (FILE *f, const struct rp_graph *g, rp_vertex_t v)
{
    const char *unit = rp_graph_vertex_unit (g, v);
    uint64_t size = rp_graph_vertex_size (g, v);
    enum rp_vertex_state state = rp_graph_vertex_state (g, v);

    fprintf (f, "  v%" PRIu32 " [label=\"", v);
    dot_string (f, rp_graph_vertex_name (g, v));
    if (size != 1 || has_unit (unit)) {
        fprintf (f, "\\n%" PRIu64 "%s", size, has_unit (unit) ? " " : "");
        dot_string (f, has_unit (unit) ? unit : "");
    }
    if (state != RP_VERTEX_UP)
        fprintf (f, "\\n%s", rp_graph_state_name (state));
    fprintf (f, "\"];\n");
}

static void dot_edges (FILE *f, const struct rp_graph *g, rp_vertex_t v)
{
    for (size_t i = 0; i < rp_graph_nedges (g, v); i++) {
        const char *sub = rp_graph_edge_subsystem (g, v, i);
        const char *type = rp_graph_edge_type (g, v, i);
        fprintf (f, "  v%" PRIu32 " -> v%" PRIu32, v,
                 rp_graph_edge_target (g, v, i));
        if (!strcmp (sub, RP_GRAPH_CONTAINMENT) && !strcmp (type, "contains")) {
            fprintf (f, ";\n");
            continue;
        }
        fprintf (f, " [style=dashed, label=\"");
        dot_string (f, sub);
        fprintf (f, ": ");
        dot_string (f, type);
        fprintf (f, "\"];\n");
    }
}

static char *dot_encode (const struct rp_graph *g)
{
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream (&buf, &len);

    if (!f)
        return NULL;
    fprintf (f, "digraph respol {\n");
    for (rp_vertex_t v = 0; v < rp_graph_nvertices (g); v++)
        dot_vertex (f, g, v);
    for (rp_vertex_t v = 0; v < rp_graph_nvertices (g); v++)
        dot_edges (f, g, v);
    fprintf (f, "}\n");
    if (ferror (f)) {
        fclose (f);
        free (buf);
        errno = ENOMEM;
        return NULL;
    }
    if (fclose (f) != 0) {
        free (buf);
        return NULL;
    }
    return buf;
}

/* Writing builds the document in memory: jansson's tree and its text for
 * JSON and JGF, the text (grown by doubling) for DOT.  Bytes per vertex
 * and per edge, measured on generated clusters (one edge a vertex: 770,
 * 4100 and 60 bytes in all; doc/formats.md), with room for properties. */
static const struct {
    const char *name;
    uint64_t vertex, edge;
} write_cost[] = {
    [RP_GRAPH_JSON] = { "respol JSON", 600, 300 },
    [RP_GRAPH_JGF] = { "JGF", 3000, 1500 },
    [RP_GRAPH_DOT] = { "DOT", 50, 30 },
};

int rp_graph_encode_check (const struct rp_graph *g, enum rp_graph_format fmt,
                           rp_error_t *error)
{
    uint64_t n, m = 0, need, limit = rp_graph_memory_limit ();

    if (!g || !rp_graph_is_finalized (g) || fmt < RP_GRAPH_JSON
        || fmt > RP_GRAPH_DOT)
        return rp_error_set (error, EINVAL, "invalid argument");
    n = rp_graph_nvertices (g);
    for (rp_vertex_t v = 0; v < n; v++)
        m += rp_graph_nedges (g, v);
    need = graph_memory_of (g) + n * write_cost[fmt].vertex
           + m * write_cost[fmt].edge;
    if (need <= limit)
        return 0;
    return graph_memory_error (error, need, limit,
                               "writing %" PRIu64 " vertices as %s needs", n,
                               write_cost[fmt].name);
}

json_t *rp_graph_to_json (const struct rp_graph *g, enum rp_graph_format fmt)
{
    json_t *o;

    if (!g || !rp_graph_is_finalized (g)
        || (fmt != RP_GRAPH_JSON && fmt != RP_GRAPH_JGF)) {
        errno = EINVAL;
        return NULL;
    }
    if (rp_graph_encode_check (g, fmt, NULL) < 0)
        return NULL;
    o = fmt == RP_GRAPH_JSON ? own_json (g) : jgf_write (g, NULL, 0);
    if (!o)
        errno = ENOMEM;
    return o;
}

char *rp_graph_encode (const struct rp_graph *g, enum rp_graph_format fmt)
{
    json_t *o;
    char *s;

    if (g && rp_graph_is_finalized (g) && fmt == RP_GRAPH_DOT)
        return rp_graph_encode_check (g, fmt, NULL) < 0 ? NULL : dot_encode (g);
    if (!(o = rp_graph_to_json (g, fmt)))
        return NULL;
    if (!(s = json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS)))
        errno = ENOMEM;
    json_decref (o);
    return s;
}

/* === reading =========================================================== */

struct reader {
    const struct rp_doc *doc; /* NULL: no positions */
    const char *name;         /* prefix of messages */
    rp_error_t *error;
    struct rp_graph *g;
};

static int fail (struct reader *r, const struct loc *l, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* "name:line:col: path: message" (EINVAL).  Returns -1. */
static int fail (struct reader *r, const struct loc *l, const char *fmt, ...)
{
    char path[PATH_MAX_LEN];
    char where[DOCPATH_WHERE_SIZE];
    char msg[RP_ERROR_TEXT_SIZE];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    docpath_describe (r->doc, l, path, sizeof (path), where);
    return rp_error_set (r->error, EINVAL, "%s%s: %s%s%s", r->name, where, path,
                         *path ? ": " : "", msg);
}

/* A failure of the graph model at l: its message, with our errno. */
static int fail_model (struct reader *r, const struct loc *l,
                       const rp_error_t *e)
{
    int errnum = errno;
    fail (r, l, "%s", e->text);
    errno = errnum ? errnum : EINVAL;
    return -1;
}

static int check_keys (struct reader *r, const struct loc *l,
                       const char *const *allowed)
{
    for (void *it = json_object_iter (l->v); it;
         it = json_object_iter_next (l->v, it)) {
        struct loc k = at_iter (l, it);
        k.at_key = true;
        if (!in_list (k.key, allowed))
            return fail (r, &k, "unknown key");
    }
    return 0;
}

static int want_object (struct reader *r, const struct loc *l)
{
    return json_is_object (l->v) ? 0 : fail (r, l, "must be a dictionary");
}

static int want_array (struct reader *r, const struct loc *l)
{
    return json_is_array (l->v) ? 0 : fail (r, l, "must be a list");
}

/* An optional string member: *s stays NULL when absent. */
static int opt_string (struct reader *r, const struct loc *up, const char *key,
                       const char **s)
{
    struct loc l = at_key (up, key);

    if (!l.v)
        return 0;
    if (!json_is_string (l.v))
        return fail (r, &l, "must be a string");
    *s = json_string_value (l.v);
    return 0;
}

/* An optional integer member >= min; *n stays as it is when absent. */
static int opt_integer (struct reader *r, const struct loc *up, const char *key,
                        json_int_t min, int64_t *n)
{
    struct loc l = at_key (up, key);

    if (!l.v)
        return 0;
    if (!json_is_integer (l.v) || json_integer_value (l.v) < min)
        return fail (r, &l, "must be an integer >= %lld", (long long)min);
    *n = json_integer_value (l.v);
    return 0;
}

/* --- one vertex (both formats) ----------------------------------------- */

struct vdata {
    const char *type;
    const char *basename;
    const char *name;
    const char *uuid;
    const char *unit;
    int64_t id;
    int64_t size;
    int64_t rank;
    enum rp_vertex_state state;
};

static int read_state (struct reader *r, const struct loc *up, bool jgf,
                       struct vdata *d)
{
    struct loc l = at_key (up, "state");
    rp_error_t e;

    if (jgf && !l.v && (l = at_key (up, "status")).v && json_is_integer (l.v)) {
        json_int_t i = json_integer_value (l.v);
        if (i != 0 && i != 1)
            return fail (r, &l, "must be 0 (up) or 1 (down)");
        d->state = i ? RP_VERTEX_DOWN : RP_VERTEX_UP;
        return 0;
    }
    if (!l.v)
        return 0;
    if (!json_is_string (l.v)
        || rp_graph_state_parse (json_string_value (l.v), &d->state, &e) < 0)
        return fail (r, &l, "must be \"up\", \"down\" or \"drained\"");
    return 0;
}

/* Base data, checked for type. */
static int read_vdata (struct reader *r, const struct loc *l, bool jgf,
                       struct vdata *d)
{
    struct loc t = at_key (l, "type");

    *d = (struct vdata){ .id = -1, .size = 1, .rank = -1 };
    if (!t.v)
        return fail (r, l, "missing key \"type\"");
    if (opt_string (r, l, "type", &d->type) < 0
        || opt_string (r, l, "basename", &d->basename) < 0
        || opt_string (r, l, "name", &d->name) < 0
        || opt_string (r, l, "uuid", &d->uuid) < 0
        || opt_string (r, l, "unit", &d->unit) < 0
        || opt_integer (r, l, "id", jgf ? -1 : 0, &d->id) < 0
        || opt_integer (r, l, "size", 1, &d->size) < 0
        || opt_integer (r, l, "rank", jgf ? -1 : 0, &d->rank) < 0)
        return -1;
    return read_state (r, l, jgf, d);
}

static rp_vertex_t add_vdata (struct reader *r, const struct loc *l,
                              const struct vdata *d)
{
    struct loc k;
    rp_error_t e;
    rp_vertex_t v;

    v = rp_graph_add_vertex (r->g, d->type, d->basename, d->id,
                             (uint64_t)d->size, d->unit, &e);
    if (v == RP_VERTEX_NONE)
        return fail_model (r, l, &e), RP_VERTEX_NONE;
    k = at_key (l, "name");
    if (d->name && rp_graph_set_name (r->g, v, d->name, &e) < 0)
        return fail_model (r, &k, &e), RP_VERTEX_NONE;
    k = at_key (l, "uuid");
    if (d->uuid && rp_graph_set_uuid (r->g, v, d->uuid, &e) < 0)
        return fail_model (r, &k, &e), RP_VERTEX_NONE;
    return v;
}

static int set_rank (struct reader *r, const struct loc *l, rp_vertex_t v,
                     int64_t rank)
{
    struct loc k = at_key (l, "rank");
    rp_error_t e;

    if (rp_graph_set_rank (r->g, v, rank, &e) < 0)
        return fail_model (r, &k, &e);
    return 0;
}

/* How a dictionary of name: value is kept (rp_graph_add_property,
 * rp_graph_tag). */
typedef int (*set_f) (struct rp_graph *g, rp_vertex_t v, const char *name,
                      const char *value, rp_error_t *error);

/* The dictionary at l, {name: string or null}, set on v with set (a
 * value "" is none when empty_none). */
static int read_dict (struct reader *r, const struct loc *l, rp_vertex_t v,
                      bool empty_none, set_f set)
{
    rp_error_t e;

    if (want_object (r, l) < 0)
        return -1;
    for (void *it = json_object_iter (l->v); it;
         it = json_object_iter_next (l->v, it)) {
        struct loc p = at_iter (l, it);
        const char *value = json_string_value (p.v);
        if (!json_is_string (p.v) && !json_is_null (p.v))
            return fail (r, &p, "must be a string or null");
        if (empty_none && value && !*value)
            value = NULL;
        if (set (r->g, v, p.key, value, &e) < 0)
            return fail_model (r, &p, &e);
    }
    return 0;
}

/* properties: {name: value or null} (JGF: value "" is none), or in JGF a
 * list of names. */
static int read_properties (struct reader *r, const struct loc *up,
                            rp_vertex_t v, bool jgf)
{
    struct loc l = at_key (up, "properties");
    rp_error_t e;

    if (!l.v)
        return 0;
    if (jgf && json_is_array (l.v)) {
        for (size_t i = 0; i < json_array_size (l.v); i++) {
            struct loc p = at_index (&l, i);
            if (!json_is_string (p.v))
                return fail (r, &p, "must be a string");
            if (rp_graph_add_property (r->g, v, json_string_value (p.v), NULL,
                                       &e)
                < 0)
                return fail_model (r, &p, &e);
        }
        return 0;
    }
    return read_dict (r, &l, v, jgf, rp_graph_add_property);
}

/* Extended data, after finalize: state and tags. */
static int read_extended (struct reader *r, const struct loc *l, rp_vertex_t v,
                          bool jgf)
{
    struct loc tags = at_key (l, "tags");
    struct vdata d = { .state = RP_VERTEX_UP };
    rp_error_t e;

    if (read_state (r, l, jgf, &d) < 0)
        return -1;
    if (d.state != RP_VERTEX_UP && rp_graph_set_state (r->g, v, d.state, &e))
        return fail_model (r, l, &e);
    if (!tags.v)
        return 0;
    return read_dict (r, &tags, v, false, rp_graph_tag);
}

static int finalize (struct reader *r, const struct loc *l)
{
    rp_error_t e;

    if (rp_graph_finalize (r->g, &e) < 0)
        return fail_model (r, l, &e);
    return 0;
}

/* --- respol's JSON ------------------------------------------------------- */

static int own_vertex_read (struct reader *r, const struct loc *l)
{
    static const char *const keys[] = { "type", "basename",   "id",    "name",
                                        "uuid", "size",       "unit",  "rank",
                                        "tags", "properties", "state", NULL };
    struct vdata d;
    rp_vertex_t v;

    if (want_object (r, l) < 0 || check_keys (r, l, keys) < 0
        || read_vdata (r, l, false, &d) < 0
        || (v = add_vdata (r, l, &d)) == RP_VERTEX_NONE)
        return -1;
    if (d.rank >= 0 && set_rank (r, l, v, d.rank) < 0)
        return -1;
    return read_properties (r, l, v, false);
}

/* An edge [src, dst] or [src, dst, subsystem, type]. */
static int own_edge_read (struct reader *r, const struct loc *l, size_t n)
{
    const char *sub = RP_GRAPH_CONTAINMENT, *type = "contains";
    size_t size = json_array_size (l->v);
    json_int_t end[2];
    rp_error_t e;

    if (!json_is_array (l->v) || (size != 2 && size != 4))
        return fail (r, l,
                     "must be a list [source, target] or [source, "
                     "target, subsystem, type]");
    for (size_t i = 0; i < 2; i++) {
        struct loc k = at_index (l, i);
        end[i] = json_integer_value (k.v);
        if (!json_is_integer (k.v) || end[i] < 0 || (size_t)end[i] >= n)
            return fail (r, &k, "must be a vertex index (0 .. %zu)", n - 1);
    }
    for (size_t i = 2; i < size; i++) {
        struct loc k = at_index (l, i);
        if (!json_is_string (k.v))
            return fail (r, &k, "must be a string");
    }
    if (size == 4) {
        sub = json_string_value (json_array_get (l->v, 2));
        type = json_string_value (json_array_get (l->v, 3));
    }
    if (rp_graph_add_edge (r->g, (rp_vertex_t)end[0], (rp_vertex_t)end[1], sub,
                           type, &e)
        < 0)
        return fail_model (r, l, &e);
    return 0;
}

static int check_count (struct reader *r, const struct loc *l)
{
    if (json_array_size (l->v) > RP_GRAPH_MAX_VERTICES)
        return fail (r, l, "more than %u vertices", RP_GRAPH_MAX_VERTICES);
    if (json_array_size (l->v) == 0)
        return fail (r, l, "must not be empty");
    return 0;
}

static int own_read (struct reader *r, const struct loc *top)
{
    static const char *const keys[] = { "respol-graph", "vertices", "edges",
                                        NULL };
    struct loc ver = at_key (top, "respol-graph");
    struct loc vs = at_key (top, "vertices");
    struct loc es = at_key (top, "edges");

    if (check_keys (r, top, keys) < 0)
        return -1;
    if (!json_is_integer (ver.v))
        return fail (r, &ver, "must be an integer");
    if (json_integer_value (ver.v) != VERSION)
        return fail (r, &ver, "version %lld is not supported (only %d)",
                     (long long)json_integer_value (ver.v), VERSION);
    if (!vs.v)
        return fail (r, top, "missing key \"vertices\"");
    if (want_array (r, &vs) < 0 || check_count (r, &vs) < 0)
        return -1;
    for (size_t i = 0; i < json_array_size (vs.v); i++) {
        struct loc l = at_index (&vs, i);
        if (own_vertex_read (r, &l) < 0)
            return -1;
    }
    if (es.v && want_array (r, &es) < 0)
        return -1;
    for (size_t i = 0; i < json_array_size (es.v); i++) {
        struct loc l = at_index (&es, i);
        if (own_edge_read (r, &l, json_array_size (vs.v)) < 0)
            return -1;
    }
    if (finalize (r, top) < 0)
        return -1;
    for (size_t i = 0; i < json_array_size (vs.v); i++) {
        struct loc l = at_index (&vs, i);
        if (read_extended (r, &l, (rp_vertex_t)i, false) < 0)
            return -1;
    }
    return 0;
}

/* --- JGF ----------------------------------------------------------------- */

struct jnode {
    size_t parent; /* node index, or SIZE_MAX */
    size_t child;  /* first child, or SIZE_MAX */
    size_t next;   /* next sibling, or SIZE_MAX */
    size_t last;   /* last child, or SIZE_MAX */
    rp_vertex_t v;
};

struct jedge {
    size_t index; /* in graph.edges */
    size_t src, dst;
    const char *sub, *type;
};

struct jgf {
    struct loc graph, nodes, edges;
    json_t *ids; /* node id -> node index */
    struct jnode *node;
    size_t nnodes;
    struct jedge *edge;
    size_t nedges;
    size_t *order; /* node indexes in containment pre-order */
};

/* The key of a node id (a string, or an integer as its decimal text, so
 * that 5 and "5" name the same node), or NULL with an error. */
static const char *jgf_id (struct reader *r, const struct loc *up,
                           const char *key, char buf[32])
{
    struct loc k = at_key (up, key);

    if (json_is_string (k.v))
        return json_string_value (k.v);
    if (json_is_integer (k.v)) {
        snprintf (buf, 32, "%lld", (long long)json_integer_value (k.v));
        return buf;
    }
    if (!k.v)
        fail (r, up, "missing key \"%s\"", key);
    else
        fail (r, &k, "must be a string or an integer");
    return NULL;
}

static int jgf_index_node (struct reader *r, struct jgf *j, size_t i)
{
    struct loc l = at_index (&j->nodes, i);
    struct loc m = at_key (&l, "metadata");
    struct loc k = at_key (&l, "id");
    char buf[32], shown[DOCPATH_SHOW_MAX + 4];
    const char *id;

    j->node[i] = (struct jnode){ SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX,
                                 RP_VERTEX_NONE };
    if (want_object (r, &l) < 0 || !(id = jgf_id (r, &l, "id", buf)))
        return -1;
    if (json_object_get (j->ids, id))
        return fail (r, &k, "duplicate node id \"%s\"",
                     docpath_show (id, shown));
    if (json_object_set_new (j->ids, id, json_integer ((json_int_t)i)) < 0)
        return rp_error_set (r->error, ENOMEM, "%s: out of memory", r->name);
    if (!m.v)
        return fail (r, &l, "missing key \"metadata\"");
    return want_object (r, &m);
}

static int jgf_index_nodes (struct reader *r, struct jgf *j)
{
    j->nnodes = json_array_size (j->nodes.v);
    if (!(j->ids = json_object ())
        || !(j->node = calloc (j->nnodes, sizeof (*j->node)))
        || !(j->order = calloc (j->nnodes, sizeof (*j->order))))
        return rp_error_set (r->error, ENOMEM, "%s: out of memory", r->name);
    for (size_t i = 0; i < j->nnodes; i++)
        if (jgf_index_node (r, j, i) < 0)
            return -1;
    return 0;
}

/* The node an edge's source or target names. */
static int jgf_endpoint (struct reader *r, struct jgf *j, const struct loc *e,
                         const char *key, size_t *node)
{
    struct loc k = at_key (e, key);
    char buf[32], shown[DOCPATH_SHOW_MAX + 4];
    const char *id;
    json_t *o;

    if (!(id = jgf_id (r, e, key, buf)))
        return -1;
    if (!(o = json_object_get (j->ids, id)))
        return fail (r, &k, "no node has id \"%s\"", docpath_show (id, shown));
    *node = (size_t)json_integer_value (o);
    return 0;
}

/* Keep an edge; the first containment parent of a node is its parent in
 * the tree (a second one is left to rp_graph_add_edge to refuse). */
static int jgf_push_edge (struct jgf *j, const struct jedge *e)
{
    if (!strcmp (e->sub, RP_GRAPH_CONTAINMENT) && !strcmp (e->type, "contains")
        && j->node[e->dst].parent == SIZE_MAX)
        j->node[e->dst].parent = e->src;
    j->edge[j->nedges++] = *e;
    return 0;
}

/* metadata.name: {subsystem: type, ...} */
static int jgf_edge_names (struct reader *r, struct jgf *j,
                           const struct loc *name, struct jedge *e)
{
    if (want_object (r, name) < 0)
        return -1;
    for (void *it = json_object_iter (name->v); it;
         it = json_object_iter_next (name->v, it)) {
        struct loc t = at_iter (name, it);
        if (!json_is_string (t.v))
            return fail (r, &t, "must be a string");
        e->sub = t.key;
        e->type = json_string_value (t.v);
        jgf_push_edge (j, e);
    }
    return 0;
}

static int jgf_edge_read (struct reader *r, struct jgf *j, const struct loc *l,
                          size_t index)
{
    struct loc m = at_key (l, "metadata");
    struct jedge e = { .index = index,
                       .sub = RP_GRAPH_CONTAINMENT,
                       .type = "contains" };
    struct loc name;

    if (want_object (r, l) < 0 || jgf_endpoint (r, j, l, "source", &e.src) < 0
        || jgf_endpoint (r, j, l, "target", &e.dst) < 0)
        return -1;
    if (!m.v)
        return jgf_push_edge (j, &e);
    if (want_object (r, &m) < 0)
        return -1;
    name = at_key (&m, "name");
    if (name.v)
        return jgf_edge_names (r, j, &name, &e);
    if (opt_string (r, &m, "subsystem", &e.sub) < 0
        || opt_string (r, &m, "type", &e.type) < 0)
        return -1;
    return jgf_push_edge (j, &e);
}

/* Count the (subsystem, type) pairs of all edges, to size j->edge. */
static size_t jgf_count_edges (const json_t *edges)
{
    size_t n = 0;

    for (size_t i = 0; i < json_array_size (edges); i++) {
        json_t *m = json_object_get (json_array_get (edges, i), "metadata");
        json_t *name = json_object_get (m, "name");
        n += json_is_object (name) ? json_object_size (name) : 1;
    }
    return n;
}

static int jgf_read_edges (struct reader *r, struct jgf *j)
{
    size_t n = jgf_count_edges (j->edges.v);

    if (!(j->edge = calloc (n + 1, sizeof (*j->edge))))
        return rp_error_set (r->error, ENOMEM, "%s: out of memory", r->name);
    for (size_t i = 0; i < json_array_size (j->edges.v); i++) {
        struct loc l = at_index (&j->edges, i);
        if (jgf_edge_read (r, j, &l, i) < 0)
            return -1;
    }
    return 0;
}

/* Children lists in node-list order, and the root. */
static int jgf_link (struct reader *r, struct jgf *j, size_t *rootp)
{
    size_t root = SIZE_MAX;

    for (size_t i = 0; i < j->nnodes; i++) {
        struct jnode *c = &j->node[i];
        struct jnode *p;
        if (c->parent == SIZE_MAX) {
            struct loc l = at_index (&j->nodes, i);
            if (root != SIZE_MAX)
                return fail (r, &l,
                             "a second containment root (the first is "
                             "graph.nodes[%zu])",
                             root);
            root = i;
            continue;
        }
        p = &j->node[c->parent];
        if (p->last == SIZE_MAX)
            p->child = i;
        else
            j->node[p->last].next = i;
        p->last = i;
    }
    if (root == SIZE_MAX)
        return fail (r, &j->nodes, "no containment root (a containment cycle)");
    *rootp = root;
    return 0;
}

static int jgf_tree (struct reader *r, struct jgf *j)
{
    size_t root = SIZE_MAX, n = 0, top = 0;
    size_t *stack = j->order; /* shared: the stack fills it from the end */

    if (jgf_link (r, j, &root) < 0)
        return -1;
    /* Iterative pre-order: the stack grows down from the end of order[]
     * while the visit order grows up from its start; they never meet. */
    stack[j->nnodes - 1 - top++] = root;
    while (top > 0) {
        size_t u = stack[j->nnodes - top--];
        size_t kids = 0;
        j->order[n++] = u;
        for (size_t c = j->node[u].child; c != SIZE_MAX; c = j->node[c].next)
            kids++;
        for (size_t c = j->node[u].child, k = 0; c != SIZE_MAX;
             c = j->node[c].next, k++)
            stack[j->nnodes - top - kids + k] = c;
        top += kids;
    }
    if (n < j->nnodes)
        return fail (r, &j->nodes,
                     "%zu nodes are not reachable from the containment root "
                     "(a containment cycle)",
                     j->nnodes - n);
    return 0;
}

static struct loc jgf_meta_loc (const struct jgf *j, size_t i, struct loc *node)
{
    *node = at_index (&j->nodes, i);
    return at_key (node, "metadata");
}

/* Add the vertices in pre-order; a vertex whose rank differs from its
 * parent's is an execution target. */
static int jgf_add_vertices (struct reader *r, struct jgf *j)
{
    int64_t *rank = calloc (j->nnodes, sizeof (*rank));
    int rc = -1;

    if (!rank)
        return rp_error_set (r->error, ENOMEM, "%s: out of memory", r->name);
    for (size_t k = 0; k < j->nnodes; k++) {
        size_t i = j->order[k], p = j->node[i].parent;
        int64_t up = p == SIZE_MAX ? -1 : rank[p];
        struct loc node, m = jgf_meta_loc (j, i, &node);
        struct vdata d;
        rp_vertex_t v;
        if (read_vdata (r, &m, true, &d) < 0
            || (v = add_vdata (r, &m, &d)) == RP_VERTEX_NONE)
            goto done;
        j->node[i].v = v;
        rank[i] = d.rank == -1 ? up : d.rank;
        if (rank[i] != up && set_rank (r, &m, v, d.rank) < 0)
            goto done;
        if (read_properties (r, &m, v, true) < 0)
            goto done;
    }
    rc = 0;
done:
    free (rank);
    return rc;
}

static int jgf_add_edges (struct reader *r, struct jgf *j)
{
    for (size_t k = 0; k < j->nedges; k++) {
        const struct jedge *e = &j->edge[k];
        struct loc l = at_index (&j->edges, e->index);
        rp_error_t err;
        if (rp_graph_add_edge (r->g, j->node[e->src].v, j->node[e->dst].v,
                               e->sub, e->type, &err)
            < 0)
            return fail_model (r, &l, &err);
    }
    return 0;
}

static int jgf_extended (struct reader *r, struct jgf *j)
{
    for (size_t i = 0; i < j->nnodes; i++) {
        struct loc node, m = jgf_meta_loc (j, i, &node);
        if (read_extended (r, &m, j->node[i].v, true) < 0)
            return -1;
    }
    return 0;
}

static int jgf_read (struct reader *r, const struct loc *top)
{
    struct jgf j = { 0 };
    int rc = -1;

    j.graph = at_key (top, "graph");
    if (want_object (r, &j.graph) < 0)
        return -1;
    j.nodes = at_key (&j.graph, "nodes");
    j.edges = at_key (&j.graph, "edges");
    if (!j.nodes.v)
        return fail (r, &j.graph, "missing key \"nodes\"");
    if (want_array (r, &j.nodes) < 0 || check_count (r, &j.nodes) < 0
        || (j.edges.v && want_array (r, &j.edges) < 0))
        return -1;
    if (jgf_index_nodes (r, &j) == 0 && jgf_read_edges (r, &j) == 0
        && jgf_tree (r, &j) == 0 && jgf_add_vertices (r, &j) == 0
        && jgf_add_edges (r, &j) == 0 && finalize (r, &j.graph) == 0
        && jgf_extended (r, &j) == 0)
        rc = 0;
    json_decref (j.ids);
    free (j.node);
    free (j.edge);
    free (j.order);
    return rc;
}

/* --- entry points ----------------------------------------------------------
 */

/* The estimate from the lengths of the vertex (node) and edge lists,
 * before anything is built: every vertex named, a target, and a source of
 * explicit edges, as far as the file can tell; interior vertices and
 * types are left to finalize, which checks the exact counts, the document
 * (doc_memory) included.  Room for the vertices and edges is reserved. */
static int check_memory (struct reader *r, const struct loc *top,
                         uint64_t doc_memory)
{
    bool own = json_object_get (top->v, "respol-graph") != NULL;
    const json_t *graph = own ? top->v : json_object_get (top->v, "graph");
    const json_t *vs = json_object_get (graph, own ? "vertices" : "nodes");
    const json_t *es = json_object_get (graph, "edges");
    size_t nv = json_array_size (vs);
    size_t ne = own ? json_array_size (es) : jgf_count_edges (es);
    uint64_t limit = rp_graph_memory_limit (), need;
    struct graph_size z = { nv, ne, ne, nv, nv, 0, 0 };
    rp_error_t e;

    need = graph_memory (&z) + doc_memory;
    if (need > limit) {
        graph_memory_error (&e, need, limit, "%zu vertices and %zu edges need",
                            nv, ne);
        return fail_model (r, top, &e);
    }
    graph_set_reserved (r->g, doc_memory);
    if (nv <= RP_GRAPH_MAX_VERTICES && graph_reserve (r->g, nv, ne, 0) < 0)
        return rp_error_set (r->error, ENOMEM, "%s: out of memory", r->name);
    return 0;
}

static struct rp_graph *read_tree (const struct rp_doc *doc, const char *name,
                                   const json_t *o, rp_error_t *error)
{
    struct reader r = { doc, name, error, NULL };
    struct loc top = { NULL, NULL, NULL, 0, (json_t *)o, false };
    int rc;

    if (want_object (&r, &top) < 0)
        return NULL;
    if (!json_object_get (o, "respol-graph") && !json_object_get (o, "graph")) {
        fail (&r, &top,
              "neither respol graph JSON nor JGF: no 'respol-graph' "
              "or 'graph' key");
        return NULL;
    }
    if (!(r.g = rp_graph_create ())) {
        rp_error_set (error, errno, "%s: %s", name, strerror (errno));
        return NULL;
    }
    rc = check_memory (&r, &top, rp_doc_memory (doc));
    if (rc == 0 && json_object_get (o, "respol-graph"))
        rc = own_read (&r, &top);
    else if (rc == 0)
        rc = jgf_read (&r, &top);
    if (rc < 0) {
        int saved_errno = errno;
        rp_graph_destroy (r.g);
        errno = saved_errno;
        return NULL;
    }
    return r.g;
}

struct rp_graph *rp_graph_from_json (const json_t *o, rp_error_t *error)
{
    if (!o) {
        rp_error_set (error, EINVAL, "graph: invalid argument");
        return NULL;
    }
    return read_tree (NULL, "graph", o, error);
}

struct rp_graph *rp_graph_load (const char *path, rp_error_t *error)
{
    struct rp_doc *doc;
    struct rp_graph *g;

    if (!path) {
        rp_error_set (error, EINVAL, "graph: invalid argument");
        return NULL;
    }
    if (!(doc = rp_doc_load_file_within (path, RP_DOC_AUTO,
                                         rp_graph_memory_limit (), error)))
        return NULL;
    g = read_tree (doc, rp_doc_name (doc), rp_doc_root (doc), error);
    if (!g) {
        int saved_errno = errno;
        rp_doc_destroy (doc);
        errno = saved_errno;
        return NULL;
    }
    rp_doc_destroy (doc);
    return g;
}
