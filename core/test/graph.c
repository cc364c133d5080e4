/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of the resource graph core (core/graph.c, RFC 4): build
 * errors, accessors, the generator, allocation states against a brute
 * force recount, gstate_child_fit, the walker and the accumulator.
 *
 * The file includes the graph's own files (core/graph.c and the
 * graph_*.c files of core/graph_impl.h): the allocation state functions
 * (core/graph_private.h) and the block summaries are white-box tested,
 * and the library's export list keeps them out of librespol.so.  The
 * copy here interposes the library's, so the whole test runs one copy.
 * FIT_PROBE, defined before the include, counts the entries (children or
 * blocks) gstate_child_fit examines: how a test sees blocks skipped
 * without timing anything.
 */
#include <stddef.h>

static size_t fit_probes; /* entries gstate_child_fit examined */
#define FIT_PROBE() (fit_probes++)
#include "core/graph.c"
#include "core/graph_bounds.c"
#include "core/graph_finalize.c"
#include "core/graph_generate.c"
#include "core/graph_index.c"
#include "core/graph_state.c"
#include "core/graph_walk.c"

#include <malloc.h>
#include <stdarg.h>

#include "respol/match.h"
#include "t/tap/tap.h"

static rp_vertex_t add (struct rp_graph *g, const char *type, int64_t id)
{
    rp_error_t error;
    rp_vertex_t v = rp_graph_add_vertex (g, type, NULL, id, 1, NULL, &error);
    if (v == RP_VERTEX_NONE)
        BAIL_OUT ("add %s%lld: %s", type, (long long)id, error.text);
    return v;
}

static void contain (struct rp_graph *g, rp_vertex_t p, rp_vertex_t c)
{
    rp_error_t error;
    if (rp_graph_add_edge (g, p, c, "containment", "contains", &error) < 0)
        BAIL_OUT ("edge %u -> %u: %s", p, c, error.text);
}

/* --- build errors ---------------------------------------------------- */

/* Each builds a graph and returns the result of the step under test. */
typedef int (*build_f) (struct rp_graph *g, rp_error_t *error);

static int b_empty (struct rp_graph *g, rp_error_t *error)
{
    return rp_graph_finalize (g, error);
}

static int b_two_roots (struct rp_graph *g, rp_error_t *error)
{
    rp_vertex_t c = add (g, "cluster", 0);
    contain (g, c, add (g, "node", 0));
    add (g, "node", 1);
    return rp_graph_finalize (g, error);
}

static int b_cycle (struct rp_graph *g, rp_error_t *error)
{
    rp_vertex_t c = add (g, "cluster", 0);
    rp_vertex_t a = add (g, "x", 1);
    rp_vertex_t b = add (g, "x", 2);
    rp_vertex_t d = add (g, "x", 3);
    contain (g, c, add (g, "node", 0));
    contain (g, b, a);
    contain (g, a, d);
    contain (g, d, b);
    return rp_graph_finalize (g, error);
}

static int b_cycle_no_root (struct rp_graph *g, rp_error_t *error)
{
    rp_vertex_t a = add (g, "x", 5);
    rp_vertex_t b = add (g, "x", 4);
    contain (g, a, b);
    contain (g, b, a);
    return rp_graph_finalize (g, error);
}

static int b_self_parent (struct rp_graph *g, rp_error_t *error)
{
    rp_vertex_t c = add (g, "cluster", 0);
    rp_vertex_t a = add (g, "x", 1);
    contain (g, c, add (g, "node", 0));
    contain (g, a, a);
    return rp_graph_finalize (g, error);
}

static int b_second_parent (struct rp_graph *g, rp_error_t *error)
{
    rp_vertex_t c = add (g, "cluster", 0);
    rp_vertex_t n = add (g, "node", 0);
    rp_vertex_t s = add (g, "socket", 0);
    contain (g, c, n);
    contain (g, n, s);
    return rp_graph_add_edge (g, c, s, "containment", "contains", error);
}

static int b_dup_contains (struct rp_graph *g, rp_error_t *error)
{
    rp_vertex_t c = add (g, "cluster", 0);
    rp_vertex_t n = add (g, "node", 0);
    contain (g, c, n);
    return rp_graph_add_edge (g, c, n, "containment", "contains", error);
}

static int b_dup_other (struct rp_graph *g, rp_error_t *error)
{
    rp_vertex_t c = add (g, "cluster", 0);
    rp_vertex_t n = add (g, "node", 0);
    if (rp_graph_add_edge (g, c, n, "net", "conduit-of", error) < 0)
        return 0;
    return rp_graph_add_edge (g, c, n, "net", "conduit-of", error);
}

static int b_unknown_src (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_add_edge (g, 9, 0, "containment", "contains", error);
}

static int b_unknown_dst (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_add_edge (g, 0, RP_VERTEX_NONE, "net", "x", error);
}

static int b_bad_edge_type (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    add (g, "node", 0);
    return rp_graph_add_edge (g, 0, 1, "net", "a/b", error);
}

static int b_empty_edge_type (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    add (g, "node", 0);
    return rp_graph_add_edge (g, 0, 1, "net", "", error);
}

static int b_bad_subsystem (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    add (g, "node", 0);
    return rp_graph_add_edge (g, 0, 1, "net\n", "x", error);
}

static int b_null_subsystem (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    add (g, "node", 0);
    return rp_graph_add_edge (g, 0, 1, NULL, "x", error);
}

static int b_containment_type (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    add (g, "node", 0);
    return rp_graph_add_edge (g, 0, 1, "containment", "conduit-of", error);
}

static int b_after_finalize_vertex (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    if (rp_graph_finalize (g, error) < 0)
        return 0;
    return rp_graph_add_vertex (g, "node", NULL, 0, 1, NULL, error)
                   == RP_VERTEX_NONE
               ? -1
               : 0;
}

static int b_after_finalize_edge (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    if (rp_graph_finalize (g, error) < 0)
        return 0;
    return rp_graph_add_edge (g, 0, 0, "net", "x", error);
}

static int b_after_finalize_name (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    if (rp_graph_finalize (g, error) < 0)
        return 0;
    return rp_graph_set_name (g, 0, "x", error);
}

static int b_finalize_twice (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    if (rp_graph_finalize (g, error) < 0)
        return 0;
    return rp_graph_finalize (g, error);
}

static int vertex_result (rp_vertex_t v)
{
    return v == RP_VERTEX_NONE ? -1 : 0;
}

static int b_size0 (struct rp_graph *g, rp_error_t *error)
{
    return vertex_result (
        rp_graph_add_vertex (g, "core", NULL, 0, 0, NULL, error));
}

static int b_bad_id (struct rp_graph *g, rp_error_t *error)
{
    return vertex_result (
        rp_graph_add_vertex (g, "core", NULL, -2, 1, NULL, error));
}

static int b_bad_type (struct rp_graph *g, rp_error_t *error)
{
    return vertex_result (
        rp_graph_add_vertex (g, "co re", NULL, 0, 1, NULL, error));
}

static int b_empty_type (struct rp_graph *g, rp_error_t *error)
{
    return vertex_result (rp_graph_add_vertex (g, "", NULL, 0, 1, NULL, error));
}

static int b_long_type (struct rp_graph *g, rp_error_t *error)
{
    char t[66];
    memset (t, 'a', 65);
    t[65] = '\0';
    return vertex_result (rp_graph_add_vertex (g, t, NULL, 0, 1, NULL, error));
}

static int b_bad_basename (struct rp_graph *g, rp_error_t *error)
{
    return vertex_result (
        rp_graph_add_vertex (g, "core", "a\tb", 0, 1, NULL, error));
}

static int b_bad_unit (struct rp_graph *g, rp_error_t *error)
{
    return vertex_result (
        rp_graph_add_vertex (g, "memory", NULL, 0, 8, "G B", error));
}

static int b_rank_below (struct rp_graph *g, rp_error_t *error)
{
    rp_vertex_t c = add (g, "cluster", 0);
    rp_vertex_t n0 = add (g, "node", 0);
    rp_vertex_t n1 = add (g, "node", 1);
    contain (g, c, n0);
    contain (g, n0, n1);
    if (rp_graph_set_rank (g, n0, 2, error) < 0
        || rp_graph_set_rank (g, n1, 3, error) < 0)
        return 0;
    return rp_graph_finalize (g, error);
}

static int b_rank_twice (struct rp_graph *g, rp_error_t *error)
{
    rp_vertex_t c = add (g, "cluster", 0);
    rp_vertex_t n0 = add (g, "node", 0);
    rp_vertex_t n1 = add (g, "node", 1);
    contain (g, c, n0);
    contain (g, c, n1);
    if (rp_graph_set_rank (g, n1, 3, error) < 0
        || rp_graph_set_rank (g, n0, 3, error) < 0)
        return 0;
    return rp_graph_finalize (g, error);
}

static int b_bad_rank (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_set_rank (g, 0, -1, error);
}

static int b_rank_no_vertex (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_set_rank (g, 1, 0, error);
}

static int b_bad_property (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_add_property (g, 0, "", NULL, error);
}

static int b_bad_name (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_set_name (g, 0, "", error);
}

static int b_bad_uuid (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_set_uuid (g, 0, NULL, error);
}

static int b_state_unfinalized (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_set_state (g, 0, RP_VERTEX_DOWN, error);
}

static int b_bad_state (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    if (rp_graph_finalize (g, error) < 0)
        return 0;
    return rp_graph_set_state (g, 0, (enum rp_vertex_state)7, error);
}

static int b_bad_tag (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_tag (g, 0, "", NULL, error);
}

static int b_untag_absent (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_untag (g, 0, "foo", error);
}

static int b_tag_no_vertex (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_tag (g, 3, "foo", NULL, error);
}

static int b_tag_bad_value (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_tag (g, 0, "foo", "\xff", error);
}

static int b_property_bad_value (struct rp_graph *g, rp_error_t *error)
{
    add (g, "cluster", 0);
    return rp_graph_add_property (g, 0, "foo", "\xc3", error);
}

#define A65 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

static const struct {
    const char *name;
    build_f f;
    int errnum;
    const char *text;
} build_tests[] = {
    { "no vertex", b_empty, EINVAL, "graph has no vertices" },
    { "two roots", b_two_roots, EINVAL, "two roots: cluster0 and node1" },
    { "cycle", b_cycle, EINVAL, "containment cycle through x1" },
    { "cycle, no root", b_cycle_no_root, EINVAL,
      "containment cycle through x5" },
    { "own parent", b_self_parent, EINVAL, "containment cycle through x1" },
    { "second parent", b_second_parent, EINVAL,
      "vertex 2 has a parent (1): a second one (0) is refused" },
    { "duplicate contains", b_dup_contains, EEXIST,
      "duplicate edge 0 -> 1 (containment contains)" },
    { "duplicate edge", b_dup_other, EEXIST,
      "duplicate edge 0 -> 1 (net conduit-of)" },
    { "unknown source", b_unknown_src, EINVAL, "no vertex 9" },
    { "unknown target", b_unknown_dst, EINVAL, "no vertex 4294967295" },
    { "bad edge type", b_bad_edge_type, EINVAL,
      "bad edge type 'a/b': letters, digits, '-', '_', '.', ' ' (1-64)" },
    { "empty edge type", b_empty_edge_type, EINVAL,
      "bad edge type '': letters, digits, '-', '_', '.', ' ' (1-64)" },
    { "bad subsystem", b_bad_subsystem, EINVAL,
      "bad subsystem 'net\n': letters, digits, '-', '_', '.', ' ' (1-64)" },
    { "no subsystem", b_null_subsystem, EINVAL,
      "bad subsystem '(null)': letters, digits, '-', '_', '.', ' ' (1-64)" },
    { "containment edge type", b_containment_type, EINVAL,
      "containment edges are 'contains' or 'in', not 'conduit-of'" },
    { "vertex after finalize", b_after_finalize_vertex, EBUSY,
      "graph is finalized" },
    { "edge after finalize", b_after_finalize_edge, EBUSY,
      "graph is finalized" },
    { "name after finalize", b_after_finalize_name, EBUSY,
      "graph is finalized" },
    { "finalize twice", b_finalize_twice, EBUSY, "graph is finalized" },
    { "size 0", b_size0, EINVAL, "core: size must be >= 1" },
    { "id -2", b_bad_id, EINVAL, "bad id -2: must be >= 0, or -1 for none" },
    { "bad type", b_bad_type, EINVAL,
      "bad type 'co re': letters, digits, '-', '_' (1-64)" },
    { "empty type", b_empty_type, EINVAL,
      "bad type '': letters, digits, '-', '_' (1-64)" },
    { "long type", b_long_type, EINVAL,
      "bad type '" A65 "': letters, digits, '-', '_' (1-64)" },
    { "bad basename", b_bad_basename, EINVAL,
      "bad basename 'a\tb': printable, 1-64 bytes" },
    { "bad unit", b_bad_unit, EINVAL,
      "bad unit 'G B': letters and digits, 1-16" },
    { "rank below rank", b_rank_below, EINVAL,
      "node1 (rank 3) is below node0 (rank 2)" },
    { "rank twice", b_rank_twice, EINVAL, "rank 3 is on node0 and node1" },
    { "negative rank", b_bad_rank, EINVAL, "bad rank -1" },
    { "rank of no vertex", b_rank_no_vertex, EINVAL, "no vertex 1" },
    { "empty property", b_bad_property, EINVAL, "property name is empty" },
    { "empty name", b_bad_name, EINVAL,
      "bad name '': printable, 1-1024 bytes" },
    { "no uuid", b_bad_uuid, EINVAL,
      "bad uuid '(null)': printable, 1-1024 bytes" },
    { "state before finalize", b_state_unfinalized, EINVAL,
      "graph is not finalized" },
    { "bad state", b_bad_state, EINVAL, "bad state 7" },
    { "empty tag", b_bad_tag, EINVAL, "bad tag '': printable, 1-1024 bytes" },
    { "untag absent", b_untag_absent, ENOENT, "cluster0 has no tag 'foo'" },
    { "tag no vertex", b_tag_no_vertex, EINVAL, "no vertex 3" },
    { "tag value not UTF-8", b_tag_bad_value, EINVAL,
      "value of tag 'foo' is not UTF-8" },
    { "property value not UTF-8", b_property_bad_value, EINVAL,
      "value of property 'foo' is not UTF-8" },
};

static void test_build_errors (void)
{
    for (size_t i = 0; i < sizeof (build_tests) / sizeof (build_tests[0]);
         i++) {
        struct rp_graph *g = rp_graph_create ();
        rp_error_t error = { .text = "" };
        errno = 0;
        int rc = build_tests[i].f (g, &error);
        ok (rc < 0 && errno == build_tests[i].errnum, "%s fails (errno %d)",
            build_tests[i].name, errno);
        is (error.text, build_tests[i].text, "%s: %s", build_tests[i].name,
            tap_escape (error.text));
        rp_graph_destroy (g);
    }
}

/* The graph is unchanged by a failed finalize: fix it and finalize. */
static void test_finalize_retry (void)
{
    rp_error_t error;
    struct rp_graph *g = rp_graph_create ();
    rp_vertex_t c = add (g, "cluster", 0);
    rp_vertex_t n = add (g, "node", 0);
    ok (rp_graph_finalize (g, &error) < 0 && !rp_graph_is_finalized (g),
        "two roots: not finalized");
    contain (g, c, n);
    ok (rp_graph_finalize (g, &error) == 0 && rp_graph_is_finalized (g),
        "after adding the edge, finalize works");
    ok (rp_graph_root (g) == c && rp_graph_parent (g, n) == c,
        "root and parent");
    rp_graph_destroy (g);
}

static void test_max_vertices (void)
{
    rp_error_t error;
    struct rp_graph *g = rp_graph_create ();
    g->n = RP_GRAPH_MAX_VERTICES; /* pretend; nothing is read */
    errno = 0;
    ok (rp_graph_add_vertex (g, "core", NULL, 0, 1, NULL, &error)
                == RP_VERTEX_NONE
            && errno == E2BIG,
        "add_vertex past the maximum fails with E2BIG");
    is (error.text, "more than 67108864 vertices", "... and says so");
    g->n = 0;
    rp_graph_destroy (g);
}

/* --- accessors ------------------------------------------------------ */

struct small {
    struct rp_graph *g;
    rp_vertex_t cluster, node, socket, core0, core1, mem, gpu, sw;
};

static void small_build (struct small *x)
{
    rp_error_t e;
    struct rp_graph *g = x->g = rp_graph_create ();
    x->cluster = add (g, "cluster", 0);
    x->node = rp_graph_add_vertex (g, "node", "fluke", 3, 1, "", &e);
    x->socket = add (g, "socket", 0);
    x->core0 = add (g, "core", 0);
    x->core1 = add (g, "core", 1);
    x->mem = rp_graph_add_vertex (g, "memory", NULL, 0, 64, "GB", &e);
    x->gpu = add (g, "gpu", -1);
    x->sw = add (g, "switch", 0);
    contain (g, x->cluster, x->node);
    contain (g, x->node, x->socket);
    /* children added out of handle order */
    contain (g, x->socket, x->mem);
    contain (g, x->socket, x->core1);
    contain (g, x->socket, x->core0);
    contain (g, x->node, x->gpu);
    contain (g, x->cluster, x->sw);
    if (rp_graph_add_edge (g, x->sw, x->node, "network", "conduit-of", &e) < 0
        || rp_graph_add_edge (g, x->node, x->cluster, "containment", "in", &e)
               < 0
        || rp_graph_set_name (g, x->node, "host-a", &e) < 0
        || rp_graph_set_uuid (g, x->cluster, "1234-abcd", &e) < 0
        || rp_graph_set_rank (g, x->node, 9, &e) < 0
        || rp_graph_set_rank (g, x->node, 5, &e) < 0
        || rp_graph_add_property (g, x->node, "amd@gen3", NULL, &e) < 0
        || rp_graph_add_property (g, x->node, "x", "1", &e) < 0
        || rp_graph_add_property (g, x->node, "x", "2", &e) < 0
        || rp_graph_finalize (g, &e) < 0)
        BAIL_OUT ("small graph: %s", e.text);
}

static char *dump (json_t *o)
{
    static char buf[256];
    char *s = json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT);
    snprintf (buf, sizeof (buf), "%s", s ? s : "(null)");
    free (s);
    json_decref (o);
    return buf;
}

static void test_accessors (void)
{
    struct small x;
    small_build (&x);
    struct rp_graph *g = x.g;
    ok (rp_graph_nvertices (g) == 8 && rp_graph_root (g) == x.cluster,
        "8 vertices, cluster is the root");
    ok (rp_graph_ntypes (g) == 7, "7 types");
    is (rp_graph_type_name (g, 4), "memory", "type 4 is memory (first seen)");
    ok (rp_graph_type_index (g, "gpu") == 5, "gpu is type 5");
    ok (rp_graph_type_index (g, "nic") == -1, "nic is no type");
    ok (rp_graph_type_name (g, 7) == NULL && rp_graph_type_name (g, -1) == NULL,
        "type names out of range are NULL");
    is (rp_graph_vertex_type (g, x.mem), "memory", "vertex type");
    ok (rp_graph_vertex_type_index (g, x.core1) == 3, "vertex type index");
    is (rp_graph_vertex_basename (g, x.node), "fluke", "basename given");
    is (rp_graph_vertex_basename (g, x.core1), "core", "basename = type");
    is (rp_graph_vertex_name (g, x.node), "host-a", "name given");
    is (rp_graph_vertex_name (g, x.core1), "core1", "name = basename + id");
    is (rp_graph_vertex_name (g, x.gpu), "gpu", "name without id = basename");
    ok (rp_graph_vertex_id (g, x.node) == 3
            && rp_graph_vertex_id (g, x.gpu) == -1,
        "ids");
    is (rp_graph_vertex_uuid (g, x.cluster), "1234-abcd", "uuid");
    ok (rp_graph_vertex_uuid (g, x.node) == NULL, "no uuid: NULL");
    ok (rp_graph_vertex_size (g, x.mem) == 64, "size");
    is (rp_graph_vertex_unit (g, x.mem), "GB", "unit");
    is (rp_graph_vertex_unit (g, x.node), "", "no unit: \"\"");
    ok (rp_graph_vertex_rank (g, x.node) == 5, "rank (the last one set)");
    ok (rp_graph_vertex_rank (g, x.core0) == 5, "rank inherited");
    ok (rp_graph_vertex_rank (g, x.cluster) == -1
            && rp_graph_vertex_rank (g, x.sw) == -1,
        "no rank above or beside targets");
    ok (rp_graph_target (g, x.core0) == x.node
            && rp_graph_target (g, x.cluster) == RP_VERTEX_NONE,
        "target");
    ok (rp_graph_rank_vertex (g, 5) == x.node
            && rp_graph_rank_vertex (g, 9) == RP_VERTEX_NONE
            && rp_graph_rank_vertex (g, 0) == RP_VERTEX_NONE,
        "rank_vertex");
    ok (rp_graph_vertex_has_property (g, x.node, "amd"),
        "has amd (from amd@gen3)");
    ok (rp_graph_vertex_has_property (g, x.node, "amd@gen3"), "has amd@gen3");
    ok (!rp_graph_vertex_has_property (g, x.node, "am")
            && !rp_graph_vertex_has_property (g, x.node, "gen3")
            && !rp_graph_vertex_has_property (g, x.cluster, "amd"),
        "has no am, gen3; cluster has no amd");
    is (rp_graph_vertex_property (g, x.node, "x"), "2", "property value");
    ok (rp_graph_vertex_property (g, x.node, "amd@gen3") == NULL,
        "property without value: NULL");
    is (dump (rp_graph_vertex_properties (g, x.node)),
        "{\"amd@gen3\":null,\"x\":\"2\"}", "properties");
    is (dump (rp_graph_vertex_properties (g, x.core0)), "{}",
        "no properties: {}");
    rp_graph_destroy (g);
}

static void test_tags (void)
{
    struct small x;
    rp_error_t e;
    small_build (&x);
    struct rp_graph *g = x.g;

    ok (rp_graph_tag (g, x.core0, "color", "red", &e) == 0
            && rp_graph_tag (g, x.core0, "color", "blue", &e) == 0
            && rp_graph_tag (g, x.core0, "hot", NULL, &e) == 0,
        "tag after finalize");
    ok (rp_graph_vertex_has_tag (g, x.core0, "hot")
            && !rp_graph_vertex_has_tag (g, x.core1, "hot"),
        "has_tag");
    is (rp_graph_vertex_tag (g, x.core0, "color"), "blue", "tag replaced");
    is (dump (rp_graph_vertex_tags (g, x.core0)),
        "{\"color\":\"blue\",\"hot\":null}", "tags");
    ok (rp_graph_untag (g, x.core0, "hot", &e) == 0
            && !rp_graph_vertex_has_tag (g, x.core0, "hot"),
        "untag");
    is (rp_graph_vertex_name (g, x.core0), "core0", "tags keep the name");
    rp_graph_destroy (g);
}

static void test_navigation (void)
{
    struct small x;
    small_build (&x);
    struct rp_graph *g = x.g;

    ok (rp_graph_nchildren (g, x.socket) == 3, "socket has 3 children");
    ok (rp_graph_child_first (g, x.socket) == x.core0
            && rp_graph_child_next (g, x.core0) == x.core1
            && rp_graph_child_next (g, x.core1) == x.mem
            && rp_graph_child_next (g, x.mem) == RP_VERTEX_NONE,
        "children in handle order");
    ok (rp_graph_child_first (g, x.core0) == RP_VERTEX_NONE
            && rp_graph_child_next (g, x.cluster) == RP_VERTEX_NONE,
        "no children / root has no next");
    ok (rp_graph_parent (g, x.mem) == x.socket
            && rp_graph_parent (g, x.cluster) == RP_VERTEX_NONE,
        "parents");
    ok (rp_graph_nedges (g, x.socket) == 3
            && rp_graph_edge_target (g, x.socket, 0) == x.mem
            && rp_graph_edge_target (g, x.socket, 2) == x.core0,
        "edges in the order added");
    ok (rp_graph_nedges (g, x.node) == 2
            && rp_graph_edge_target (g, x.node, 1) == x.gpu,
        "the explicit 'in' edge is not listed");
    is (rp_graph_edge_type (g, x.sw, 0), "conduit-of", "edge type");
    is (rp_graph_edge_subsystem (g, x.sw, 0), "network", "edge subsystem");
    is (rp_graph_edge_type (g, x.cluster, 1), "contains", "contains edge");
    is (rp_graph_edge_subsystem (g, x.cluster, 1), "containment",
        "containment edge");
    ok (rp_graph_edge_target (g, x.cluster, 2) == RP_VERTEX_NONE
            && rp_graph_edge_type (g, x.cluster, 2) == NULL,
        "edge out of range");
    ok (rp_graph_nsubsystems (g) == 2, "2 subsystems");
    is (rp_graph_subsystem_name (g, 0), "containment", "containment first");
    is (rp_graph_subsystem_name (g, 1), "network", "then network");
    rp_graph_destroy (g);
}

static void test_aggregates (void)
{
    struct small x;
    rp_error_t e;
    small_build (&x);
    struct rp_graph *g = x.g;

    int tc = rp_graph_type_index (g, "core");
    int tm = rp_graph_type_index (g, "memory");
    ok (rp_graph_subtree_total (g, x.cluster, tc) == 2
            && rp_graph_subtree_total (g, x.cluster, tm) == 64
            && rp_graph_subtree_total (g, x.core0, tc) == 1
            && rp_graph_subtree_total (g, x.core0, tm) == 0,
        "totals");
    ok (rp_graph_subtree_free (g, x.node, tm) == 64
            && rp_graph_subtree_idle (g, x.cluster),
        "all free, idle");
    ok (rp_graph_set_state (g, x.socket, RP_VERTEX_DRAINED, &e) == 0,
        "drain socket0");
    ok (rp_graph_vertex_state (g, x.socket) == RP_VERTEX_DRAINED
            && rp_graph_vertex_state (g, x.core0) == RP_VERTEX_UP,
        "states are per vertex");
    ok (rp_graph_vertex_free (g, x.core0) == 0
            && rp_graph_subtree_free (g, x.core0, tc) == 0
            && rp_graph_subtree_free (g, x.cluster, tc) == 0
            && rp_graph_subtree_free (g, x.cluster, tm) == 0
            && !rp_graph_subtree_idle (g, x.cluster),
        "nothing free below a drained vertex");
    ok (rp_graph_subtree_total (g, x.cluster, tc) == 2, "totals stay");
    ok (rp_graph_set_state (g, x.socket, RP_VERTEX_UP, &e) == 0
            && rp_graph_subtree_free (g, x.cluster, tc) == 2
            && rp_graph_subtree_idle (g, x.cluster),
        "up again: all free");
    ok (gstate_check (graph_live (g), &e) == 0, "state checks");
    ok (rp_graph_vertex_name (g, 99) == NULL
            && rp_graph_vertex_size (g, 99) == 0
            && rp_graph_vertex_type_index (g, 99) == -1,
        "out of range vertices");
    rp_graph_destroy (g);
}

static void test_states (void)
{
    rp_error_t e = { .text = "" };
    enum rp_vertex_state st = RP_VERTEX_UP;
    ok (rp_graph_state_parse ("drained", &st, &e) == 0
            && st == RP_VERTEX_DRAINED,
        "parse drained");
    ok (rp_graph_state_parse ("down", &st, &e) == 0 && st == RP_VERTEX_DOWN,
        "parse down");
    ok (rp_graph_state_parse ("up", &st, &e) == 0 && st == RP_VERTEX_UP,
        "parse up");
    errno = 0;
    ok (rp_graph_state_parse ("Up", &st, &e) < 0 && errno == EINVAL,
        "parse Up fails");
    is (e.text, "unknown state 'Up': up, down or drained",
        "... with a message");
    is (rp_graph_state_name (RP_VERTEX_DRAINED), "drained", "name drained");
    ok (rp_graph_state_name ((enum rp_vertex_state)3) == NULL, "name 3: NULL");
}

static void test_unit_bytes (void)
{
    static const struct {
        const char *unit;
        uint64_t bytes;
    } t[] = {
        { "B", 1 },
        { "KB", 1024 },
        { "MB", 1048576 },
        { "GB", 1073741824 },
        { "TB", 1099511627776ull },
        { "PB", 1125899906842624ull },
        { "KiB", 1024 },
        { "MiB", 1048576 },
        { "GiB", 1073741824 },
        { "TiB", 1099511627776ull },
        { "PiB", 1125899906842624ull },
        { "gb", 0 },
        { "Gb", 0 },
        { "", 0 },
        { "EB", 0 },
        { NULL, 0 },
    };
    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++)
        ok (units_bytes (t[i].unit) == t[i].bytes, "unit %s: %llu",
            t[i].unit ? t[i].unit : "NULL", (unsigned long long)t[i].bytes);
}

/* --- generator ------------------------------------------------------ */

/* Names of all vertices in handle order, space separated. */
static const char *all_names (const struct rp_graph *g)
{
    static char buf[2048];
    size_t len = 0;
    buf[0] = '\0';
    for (rp_vertex_t v = 0; v < rp_graph_nvertices (g); v++)
        len += (size_t)snprintf (buf + len, sizeof (buf) - len, "%s%s",
                                 v ? " " : "", rp_graph_vertex_name (g, v));
    return buf;
}

static void test_generate (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=3", &e);
    ok (g != NULL, "nodes=3");
    ok (rp_graph_nvertices (g) == 10, "10 vertices");
    is (all_names (g),
        "cluster0 node0 socket0 core0 node1 socket0 core0 node2 socket0 core0",
        "defaults: one socket, one core");
    rp_graph_destroy (g);

    g = rp_graph_generate ("prefix=fluke,memory=8GB,gpus=2,cores=2,sockets=2,"
                           "racks=2,nodes=2",
                           &e);
    ok (g != NULL, "full spec, keys in any order");
    is (all_names (g),
        "cluster0 rack0 fluke0 socket0 core0 core1 gpu0 memory0 socket1 core2 "
        "core3 gpu1 memory1 rack1 fluke1 socket0 core0 core1 gpu0 memory0 "
        "socket1 core2 core3 gpu1 memory1",
        "pre-order, ids per node");
    is (rp_graph_vertex_basename (g, 2), "fluke", "node basename = prefix");
    ok (rp_graph_vertex_id (g, 14) == 1 && rp_graph_vertex_rank (g, 14) == 1
            && rp_graph_vertex_rank (g, 20) == 1
            && rp_graph_vertex_rank (g, 1) == -1,
        "node id = rank, inherited below");
    ok (rp_graph_rank_vertex (g, 1) == 14, "rank 1 is vertex 14");
    ok (rp_graph_vertex_size (g, 7) == 4, "memory pool: 4 of 8");
    is (rp_graph_vertex_unit (g, 7), "GB", "unit GB");
    ok (rp_graph_ntypes (g) == 7, "7 types");
    const char *types[] = { "cluster", "rack", "node",  "socket",
                            "core",    "gpu",  "memory" };
    bool order = true;
    for (int t = 0; t < 7; t++)
        order = order && !strcmp (rp_graph_type_name (g, t), types[t]);
    ok (order, "types in order first seen");
    ok (rp_graph_nchildren (g, 0) == 2 && rp_graph_nchildren (g, 1) == 1
            && rp_graph_nchildren (g, 3) == 4,
        "children counts");
    ok (rp_graph_subtree_total (g, 0, rp_graph_type_index (g, "memory")) == 16,
        "16 GB in all");
    rp_graph_destroy (g);

    g = rp_graph_generate ("nodes=1,memory=3,sockets=1", &e);
    ok (g && rp_graph_vertex_size (g, 4) == 3
            && !strcmp (rp_graph_vertex_unit (g, 4), "GB"),
        "plain memory number is GB");
    rp_graph_destroy (g);
    g = rp_graph_generate ("nodes=1,memory=512KiB,racks=0,gpus=0", &e);
    ok (g && rp_graph_vertex_size (g, 4) == 512
            && !strcmp (rp_graph_vertex_unit (g, 4), "KiB")
            && rp_graph_nvertices (g) == 5 && rp_graph_ntypes (g) == 5,
        "memory=512KiB, racks=0 and gpus=0 mean none");
    rp_graph_destroy (g);
}

#define A30 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define A300 A30 A30 A30 A30 A30 A30 A30 A30 A30 A30

static const struct {
    const char *spec;
    int errnum;
    const char *text;
} gen_errors[] = {
    { "", EINVAL, "nodes= is required" },
    { "cores=2", EINVAL, "nodes= is required" },
    { "nodes=2,", EINVAL, "empty item at offset 8" },
    { ",nodes=2", EINVAL, "empty item at offset 0" },
    { "nodes=2,,cores=2", EINVAL, "empty item at offset 8" },
    { "nodes=2,prefix=" A300, EINVAL, "overlong item at offset 8" },
    { "nodes=2,foo=1", EINVAL, "unknown key 'foo'" },
    { "nodes=2,=1", EINVAL, "unknown key ''" },
    { "nodes=2,cores", EINVAL, "'cores': expected key=value" },
    { "nodes=2,nodes=3", EINVAL, "nodes given twice" },
    { "nodes=0", EINVAL, "nodes=0: not a positive integer" },
    { "nodes=", EINVAL, "nodes=: not a positive integer" },
    { "nodes=-1", EINVAL, "nodes=-1: not a positive integer" },
    { "nodes=+1", EINVAL, "nodes=+1: not a positive integer" },
    { "nodes=1x", EINVAL, "nodes=1x: not a positive integer" },
    { "nodes=1,cores=0", EINVAL, "cores=0: not a positive integer" },
    { "nodes=1,sockets=abc", EINVAL, "sockets=abc: not a positive integer" },
    { "nodes=1,gpus=-2", EINVAL, "gpus=-2: not a non-negative integer" },
    { "nodes=1,racks=1.5", EINVAL, "racks=1.5: not a non-negative integer" },
    { "nodes=1,memory=0", EINVAL,
      "memory=0: not a positive integer with an optional unit" },
    { "nodes=1,memory=8gb", EINVAL,
      "memory=8gb: not a positive integer with an optional unit" },
    { "nodes=1,memory=GB", EINVAL,
      "memory=GB: not a positive integer with an optional unit" },
    { "nodes=1,cores=2GB", EINVAL, "cores=2GB: not a positive integer" },
    { "nodes=99999999999999999999", EINVAL,
      "nodes=99999999999999999999: too large" },
    { "nodes=5,racks=2", EINVAL,
      "nodes=5 does not divide evenly among 2 racks" },
    { "nodes=2,sockets=2,gpus=3", EINVAL,
      "gpus=3 does not divide evenly among 2 sockets" },
    { "nodes=2,sockets=2,memory=3TB", EINVAL,
      "memory=3TB does not divide evenly among 2 sockets" },
    { "nodes=1,prefix=a/b", EINVAL,
      "prefix=a/b: letters, digits, '-', '_', '.' (1-64)" },
    { "nodes=1,prefix=", EINVAL,
      "prefix=: letters, digits, '-', '_', '.' (1-64)" },
    { "nodes=1000000,cores=100", E2BIG,
      "spec makes 102000001 vertices, more than the maximum 67108864" },
    { "nodes=18446744073709551615,cores=18446744073709551615", E2BIG,
      "spec makes over 18446744073709551615 vertices, more than the maximum "
      "67108864" },
    { "nodes=4294967296,sockets=4294967296,cores=4294967296", E2BIG,
      "spec makes over 18446744073709551615 vertices, more than the maximum "
      "67108864" },
};

static void test_generate_errors (void)
{
    for (size_t i = 0; i < sizeof (gen_errors) / sizeof (gen_errors[0]); i++) {
        rp_error_t e = { .text = "" };
        errno = 0;
        struct rp_graph *g = rp_graph_generate (gen_errors[i].spec, &e);
        ok (g == NULL && errno == gen_errors[i].errnum, "generate '%s' fails",
            gen_errors[i].spec);
        is (e.text, gen_errors[i].text, "... %s", e.text);
        rp_graph_destroy (g);
    }
}

/* --- allocation states against a brute force recount ----------------- */

/* free units of each type in each vertex's subtree, the slow way: every
 * vertex u adds free(u) to itself and to each ancestor a as long as the
 * vertices from u up to a's child are up. */
static uint64_t *brute_agg (const struct rp_gstate *s)
{
    const struct rp_graph *g = s->g;
    size_t T = rp_graph_ntypes (g), n = rp_graph_nvertices (g);
    uint64_t *b = calloc (n * T, sizeof (uint64_t));
    for (rp_vertex_t u = 0; u < n; u++) {
        uint64_t f = 0;
        if (gstate_up (s, u) && gstate_shared (s, u) == 0)
            f = rp_graph_vertex_size (g, u) - gstate_used (s, u);
        size_t t = (size_t)rp_graph_vertex_type_index (g, u);
        for (rp_vertex_t a = u; a != RP_VERTEX_NONE;
             a = rp_graph_parent (g, a)) {
            b[a * T + t] += f;
            if (!gstate_up (s, a))
                break;
        }
    }
    return b;
}

/* Block summary j of level l of parent p against the brute force b: the
 * largest contribution of each type among the children it covers. */
static bool brute_block (const struct rp_gstate *s, const uint64_t *b,
                         rp_vertex_t p, int l, size_t j, char *why, size_t len)
{
    const struct rp_graph *g = s->g;
    size_t T = rp_graph_ntypes (g), lv[MAX_LEVELS], span = 1;
    uint64_t off[MAX_LEVELS];
    levels (g, p, lv, off);
    for (int i = 0; i < l; i++)
        span *= BLOCK;
    for (size_t t = 0; t < T; t++) {
        uint64_t max = 0;
        for (size_t c = j * span; c < (j + 1) * span && c < lv[0]; c++) {
            rp_vertex_t cv = g->child[g->child_off[p] + c];
            uint64_t v = gstate_up (s, cv) ? b[cv * T + t] : 0;
            max = v > max ? v : max;
        }
        if (s->blk[off[l] + j * T + t] == max)
            continue;
        snprintf (why, len, "block %d/%zu of %u type %zu: %llu, brute %llu", l,
                  j, p, t, (unsigned long long)s->blk[off[l] + j * T + t],
                  (unsigned long long)max);
        return false;
    }
    return true;
}

/* Compare every aggregate and block summary with the brute force. */
static bool brute_check (const struct rp_gstate *s, char *why, size_t len)
{
    const struct rp_graph *g = s->g;
    size_t T = rp_graph_ntypes (g), n = rp_graph_nvertices (g);
    uint64_t *b = brute_agg (s);
    bool good = true;
    for (size_t i = 0; i < n * T && good; i++) {
        rp_vertex_t v = (rp_vertex_t)(i / T);
        if (gstate_agg (s, v, (int)(i % T)) == b[i])
            continue;
        snprintf (why, len, "agg of %u type %zu: %llu, brute %llu", v, i % T,
                  (unsigned long long)gstate_agg (s, v, (int)(i % T)),
                  (unsigned long long)b[i]);
        good = false;
    }
    for (rp_vertex_t p = 0; p < n && good; p++) {
        size_t lv[MAX_LEVELS];
        uint64_t off[MAX_LEVELS];
        int L = g->iidx[p] == NONE ? 0 : levels (g, p, lv, off);
        for (int l = 1; l <= L && good; l++) {
            for (size_t j = 0; j < lv[l] && good; j++)
                good = brute_block (s, b, p, l, j, why, len);
        }
    }
    free (b);
    return good;
}

struct hold {
    rp_vertex_t v;
    uint64_t amount;
    bool exclusive;
    bool whole; /* gstate_take_whole of v's subtree */
};

static bool model_path_up (const struct rp_gstate *s, rp_vertex_t v)
{
    for (; v != RP_VERTEX_NONE; v = rp_graph_parent (s->g, v)) {
        if (!gstate_up (s, v))
            return false;
    }
    return true;
}

/* Would gstate_take succeed, by the definitions? */
static bool model_take_ok (const struct rp_gstate *s, rp_vertex_t v,
                           uint64_t amount, bool exclusive)
{
    if (!model_path_up (s, v))
        return false;
    if (!exclusive)
        return gstate_used (s, v) == 0;
    return amount >= 1 && gstate_shared (s, v) == 0
           && gstate_used (s, v) + amount <= rp_graph_vertex_size (s->g, v);
}

/* The classes of every index of s, read as the matcher reads them:
 * the lowest members of all at once as each one's, each child in
 * exactly one class, members popped in ascending handles,
 * every member of a class showing the same key, then all put back. */
static bool classes_ok (struct rp_gstate *s, char *why, size_t size)
{
    for (size_t i = 0; i < s->nix; i++) {
        struct gindex *x = s->ix[i];
        size_t n = gstate_classes (s, x->p), total = 0;
        uint64_t *a = calloc (x->keylen, sizeof (*a));
        uint64_t *b = calloc (x->keylen, sizeof (*b));
        rp_vertex_t *top = calloc (n + 1, sizeof (*top));
        bool good = n > 0 && a && b && top
                    && gstate_class_tops (s, x->p, top, n + 1) == n
                    && gstate_class_tops (s, x->p, top, n - 1) == n - 1;
        for (size_t k = 0; k < n && good; k++) {
            rp_vertex_t first = gstate_class_first (s, x->p, k), c, last = NONE;
            good = top[k] == first;
            if (first != NONE)
                key_of (s, first, a);
            while (good && (c = gstate_class_pop (s, x->p, k)) != NONE) {
                key_of (s, c, b);
                good = (last == NONE || c > last)
                       && !memcmp (a, b, x->keylen * sizeof (*a));
                last = c;
                total++;
            }
        }
        gstate_class_restore (s, x->p);
        free (a);
        free (b);
        free (top);
        if (!good || total != x->nkids) {
            snprintf (why, size, "index of %u: %zu of %u children, %s", x->p,
                      total, x->nkids, good ? "ordered" : "out of order");
            return false;
        }
    }
    return true;
}

/* gstate_take_whole (v) is possible: every vertex of the subtree could be
 * taken whole on its own (they are independent), and none is of size 0. */
static bool model_whole_ok (const struct rp_gstate *s, rp_vertex_t v)
{
    rp_vertex_t sub[4096];
    size_t n = graph_subtree (s->g, v, sub, 4096);

    for (size_t i = 0; i < n && i < 4096; i++)
        if (!model_take_ok (s, sub[i], rp_graph_vertex_size (s->g, sub[i]),
                            true))
            return false;
    return n <= 4096;
}

/* The lists gstate_put_whole_many reads for roots v[0..n-1]: each one's
 * subtree, then RP_VERTEX_NONE (out has room).  Returns the entries. */
static size_t whole_lists (const struct rp_graph *g, const rp_vertex_t *v,
                           size_t n, rp_vertex_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        k += graph_subtree (g, v[i], out + k, rp_graph_nvertices (g));
        out[k++] = RP_VERTEX_NONE;
    }
    return k;
}

/* Random takes and puts, and with whole, takes and puts of whole
 * subtrees (gstate_take_whole / gstate_put_whole), their states changed
 * between the take and the put. */
static void test_random_states (const char *spec, bool whole)
{
    size_t nwhole = 0, many = 0;
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate (spec, &e);
    struct rp_gstate *s = graph_live (g);
    size_t indexes = 0;
    size_t n = rp_graph_nvertices (g), nholds = 0, bad = 0, refused = 0;
    struct hold *holds = calloc (4000, sizeof (*holds));
    rp_vertex_t *lists = calloc (8 * (n + 1), sizeof (*lists));
    rp_vertex_t *sub = calloc (n, sizeof (*sub));
    char why[300] = "";
    /* every parent with more than 64 children indexed by class */
    for (rp_vertex_t v = 0; v < rp_graph_nvertices (g); v++)
        if (rp_graph_nchildren (g, v) > 64 && gstate_index (s, v) == 0)
            indexes++;
    srand (42);
    for (int step = 0; step < 3000 && bad == 0; step++) {
        int op = rand () % 10;
        rp_vertex_t v = (rp_vertex_t)(rand () % (int)n);
        if (op < 5 && whole && rand () % 3 == 0) {
            bool expect = model_whole_ok (s, v);
            /* every other one listed as the matcher lists it */
            int rc = step % 2 ? gstate_take_whole (s, v)
                     : gstate_take_whole_into (s, v, sub, n) > 0 ? 0
                                                                 : -1;
            if ((rc == 0) != expect) {
                snprintf (why, sizeof (why), "take whole %u: rc %d", v, rc);
                bad++;
            }
            if (rc == 0) {
                holds[nholds++] = (struct hold){ .v = v, .whole = true };
                nwhole++;
            } else
                refused++;
        } else if (op < 5) {
            bool excl = rand () % 4 != 0;
            uint64_t amount = rand () % 8 ? 1 : (uint64_t)(rand () % 10);
            bool expect = model_take_ok (s, v, amount, excl);
            int rc = gstate_take (s, v, amount, excl);
            if ((rc == 0) != expect) {
                snprintf (why, sizeof (why), "take %u %llu %d: rc %d", v,
                          (unsigned long long)amount, excl, rc);
                bad++;
            }
            if (rc == 0)
                holds[nholds++] = (struct hold){ v, amount, excl, false };
            else
                refused++;
        } else if (op < 8 && nwhole > 0 && rand () % 4 == 0) {
            /* the whole holds among up to 8 picked, in one call */
            rp_vertex_t roots[8];
            size_t k = 0, len;
            for (int tries = 0; tries < 8 && nholds > 0; tries++) {
                size_t i = (size_t)rand () % nholds;
                if (holds[i].whole) {
                    roots[k++] = holds[i].v;
                    holds[i] = holds[--nholds];
                }
            }
            many += k > 1;
            len = whole_lists (g, roots, k, lists);
            if (gstate_put_whole_many (s, lists, len) < 0) {
                snprintf (why, sizeof (why), "put %zu whole from %u failed", k,
                          k ? roots[0] : 0);
                bad++;
            }
        } else if (op < 8 && nholds > 0) {
            size_t i = (size_t)rand () % nholds;
            if ((holds[i].whole ? gstate_put_whole (s, holds[i].v)
                                : gstate_put (s, holds[i].v, holds[i].amount,
                                              holds[i].exclusive))
                < 0) {
                snprintf (why, sizeof (why), "put %u failed", holds[i].v);
                bad++;
            }
            holds[i] = holds[--nholds];
        } else {
            /* states: mostly up, so takes keep succeeding */
            int st = rand () % 6;
            rp_graph_set_state (g, v,
                                st == 3   ? RP_VERTEX_DRAINED
                                : st == 2 ? RP_VERTEX_DOWN
                                          : RP_VERTEX_UP,
                                &e);
        }
        if (bad == 0 && !brute_check (s, why, sizeof (why)))
            bad++;
        if (bad == 0 && gstate_check (s, &e) < 0) {
            snprintf (why, sizeof (why), "gstate_check: %s", e.text);
            bad++;
        }
        if (bad == 0 && step % 7 == 0 && !classes_ok (s, why, sizeof (why)))
            bad++;
    }
    ok (bad == 0,
        "%s: 3000 random take/put/set_state: aggregates, blocks and the"
        " %zu indexes by class match a brute force recount",
        spec, indexes);
    if (bad)
        diag ("%s", why);
    ok (nholds > 100 && refused > 100 && (!whole || (nwhole > 20 && many > 5)),
        "both taken (%zu held, %zu subtrees whole, %zu puts of several whole)"
        " and refused (%zu)",
        nholds, nwhole, many, refused);
    while (nholds > 0) {
        nholds--;
        if (holds[nholds].whole)
            gstate_put_whole (s, holds[nholds].v);
        else
            gstate_put (s, holds[nholds].v, holds[nholds].amount,
                        holds[nholds].exclusive);
    }
    for (rp_vertex_t v = 0; v < n; v++)
        rp_graph_set_state (g, v, RP_VERTEX_UP, &e);
    ok (rp_graph_subtree_idle (g, 0) && gstate_check (s, &e) == 0,
        "all released and up: idle again");
    free (holds);
    free (sub);
    free (lists);
    rp_graph_destroy (g);
}

/* The pre-order of v's subtree by the public accessors: the reference
 * graph_subtree is held to. */
static size_t preorder (const struct rp_graph *g, rp_vertex_t v,
                        rp_vertex_t *out)
{
    size_t n = 0;
    rp_vertex_t d = v;

    while (d != RP_VERTEX_NONE) {
        out[n++] = d;
        if (rp_graph_child_first (g, d) != RP_VERTEX_NONE) {
            d = rp_graph_child_first (g, d);
            continue;
        }
        while (d != v && rp_graph_child_next (g, d) == RP_VERTEX_NONE)
            d = rp_graph_parent (g, d);
        d = d == v ? RP_VERTEX_NONE : rp_graph_child_next (g, d);
    }
    return n;
}

/* graph_subtree in pre-order at every depth: a chain of 40 levels (deeper
 * than the listing's stack of cursors), a leaf and the next level under
 * each, listed from the root and from a vertex 10 levels down. */
static void test_subtree_deep (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_create ();
    rp_vertex_t top = add (g, "cluster", 0), p = top, mid = RP_VERTEX_NONE;
    rp_vertex_t sub[128], ref[128];

    for (int i = 0; i < 40; i++) {
        rp_vertex_t leaf = add (g, "core", i);
        rp_vertex_t next = add (g, "socket", i);
        contain (g, p, leaf);
        contain (g, p, next);
        if (i == 10)
            mid = next;
        p = next;
    }
    if (rp_graph_finalize (g, &e) < 0)
        BAIL_OUT ("finalize: %s", e.text);
    size_t n = preorder (g, top, ref);
    ok (n == 81 && graph_subtree (g, top, sub, 128) == n
            && memcmp (sub, ref, n * sizeof (*sub)) == 0,
        "graph_subtree: 40 levels deep, the pre-order of the accessors");
    n = preorder (g, mid, ref);
    ok (n == 59 && graph_subtree (g, mid, sub, 128) == n
            && memcmp (sub, ref, n * sizeof (*sub)) == 0,
        "graph_subtree: from a vertex inside, 29 levels deep: the same");
    ok (graph_subtree (g, top, sub, 3) == 81
            && sub[2] == rp_graph_child_next (g, sub[1]),
        "graph_subtree: deep, the count past cap, the first cap filled");
    struct rp_gstate *s = graph_live (g);
    n = preorder (g, top, ref);
    ok (gstate_take_whole_into (s, top, sub, 3) == n && gstate_idle (s, top),
        "take whole into: deep, cap too small: the count, nothing taken");
    ok (gstate_take_whole_into (s, top, sub, 128) == n
            && memcmp (sub, ref, n * sizeof (*sub)) == 0
            && gstate_used (s, ref[n - 1]) == 1 && gstate_check (s, &e) == 0,
        "take whole into: deep, listed and taken");
    ok (gstate_take_whole_into (s, mid, sub, 128) == 0,
        "take whole into: deep, held: refused");
    ok (gstate_put_whole (s, top) == 0 && gstate_idle (s, top),
        "... put back whole");
    rp_graph_destroy (g);
}

/* gstate_take_whole and gstate_put_whole: the same state as vertex by
 * vertex, refusals that change nothing, a put after a state change
 * below. */
static void test_whole (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=2,sockets=2,cores=2", &e);
    struct rp_gstate *s = graph_live (g);
    rp_vertex_t node0 = rp_graph_rank_vertex (g, 0);
    rp_vertex_t sock1 = rp_graph_child_next (g, rp_graph_child_first (g, node0));
    rp_vertex_t core = rp_graph_child_first (g, sock1);
    rp_vertex_t sub[16];
    size_t n = graph_subtree (g, node0, sub, 16);
    rp_vertex_t root = rp_graph_root (g);

    ok (n == 7 && sub[0] == node0 && sub[4] == sock1 && sub[5] == core,
        "graph_subtree: node0 and its 6 vertices in pre-order");
    ok (graph_subtree (g, node0, sub, 2) == 7 && sub[1] != node0,
        "graph_subtree: the count past cap, the first cap filled");
    ok (gstate_take_whole (s, node0) == 0 && gstate_check (s, &e) == 0,
        "take whole: the aggregates and blocks recount the same");
    ok (gstate_agg (s, root, rp_graph_type_index (g, "core")) == 4
            && gstate_used (s, core) == 1 && gstate_free (s, node0) == 0,
        "take whole: node0's cores gone from the root, each vertex used");
    ok (gstate_take_whole (s, node0) < 0 && gstate_take_whole (s, sock1) < 0,
        "take whole of a held subtree, or one below it: refused");
    ok (gstate_put_whole (s, node0) == 0 && gstate_check (s, &e) == 0
            && gstate_idle (s, root),
        "put whole: idle again");
    ok (gstate_put_whole (s, node0) < 0, "put whole of a free subtree: refused");
    n = graph_subtree (g, node0, sub, 16);
    ok (gstate_take_whole_list (s, node0, sub + 1, n - 1) < 0
            && gstate_take_whole_list (s, node0, sub, 0) < 0
            && gstate_idle (s, root),
        "take whole from a list that does not start at node0: refused");
    ok (gstate_take_whole_list (s, node0, sub, n) == 0
            && gstate_check (s, &e) == 0 && gstate_used (s, core) == 1
            && gstate_agg (s, root, rp_graph_type_index (g, "core")) == 4,
        "take whole from node0's list: as without it");
    ok (gstate_put_whole (s, node0) == 0 && gstate_idle (s, root),
        "... and put whole");
    rp_vertex_t into[16];
    ok (gstate_take_whole_into (s, node0, into, 2) == n && gstate_idle (s, root),
        "take whole into a list too small: its count, nothing taken");
    ok (gstate_take_whole_into (s, node0, into, 16) == n
            && memcmp (into, sub, n * sizeof (*sub)) == 0
            && gstate_check (s, &e) == 0 && gstate_used (s, core) == 1
            && gstate_agg (s, root, rp_graph_type_index (g, "core")) == 4,
        "take whole into: listed as graph_subtree lists it, taken");
    ok (gstate_take_whole_into (s, node0, into, 16) == 0
            && gstate_take_whole_into (s, sock1, into, 16) == 0
            && gstate_check (s, &e) == 0,
        "take whole into, held: refused, nothing changed");
    ok (gstate_put_whole (s, node0) == 0 && gstate_idle (s, root),
        "... put whole");
    ok (gstate_take (s, core, 1, true) == 0 && gstate_take_whole (s, node0) < 0
            && gstate_used (s, node0) == 0 && gstate_check (s, &e) == 0,
        "take whole with one core held below: refused, nothing changed");
    ok (gstate_take_whole_into (s, node0, into, 16) == 0
            && gstate_used (s, node0) == 0 && gstate_check (s, &e) == 0,
        "take whole into, one core held below: refused, nothing changed");
    ok (gstate_put_whole (s, sock1) < 0 && gstate_used (s, core) == 1,
        "put whole of a subtree held in part: refused, nothing changed");
    (void)gstate_put (s, core, 1, true);
    (void)rp_graph_set_state (g, core, RP_VERTEX_DOWN, &e);
    ok (gstate_take_whole (s, node0) < 0, "take whole with a core down: refused");
    (void)rp_graph_set_state (g, core, RP_VERTEX_UP, &e);
    ok (gstate_take_whole (s, node0) == 0, "take whole once it is up");
    (void)rp_graph_set_state (g, sock1, RP_VERTEX_DRAINED, &e);
    ok (gstate_put_whole (s, node0) == 0 && gstate_check (s, &e) == 0
            && gstate_used (s, node0) == 0 && gstate_used (s, core) == 0,
        "put whole after a socket below was drained: vertex by vertex");
    (void)rp_graph_set_state (g, sock1, RP_VERTEX_UP, &e);
    ok (gstate_check (s, &e) == 0 && gstate_idle (s, root), "idle again");
    (void)rp_graph_set_state (g, node0, RP_VERTEX_DOWN, &e);
    ok (gstate_take_whole (s, core) < 0,
        "take whole below a target that is down: refused");
    rp_graph_destroy (g);
}

/* graph_sizes into a field of records: each vertex's size, -1 at a
 * handle that is no vertex. */
static void test_sizes (void)
{
    rp_error_t e;
    struct rp_graph *g =
        rp_graph_generate ("nodes=1,sockets=1,cores=2,memory=8GB", &e);
    rp_vertex_t v[8];
    struct {
        char pad[5];
        uint64_t size;
    } rec[8];
    size_t n = graph_subtree (g, rp_graph_root (g), v, 8);
    bool same = true;

    memset (rec, 0, sizeof (rec));
    ok (n == 6 && graph_sizes (g, v, n, &rec[0].size, sizeof (rec[0])) == 0,
        "graph_sizes: a whole cluster's");
    for (size_t i = 0; i < n; i++)
        same &= rec[i].size == rp_graph_vertex_size (g, v[i]);
    ok (same && rec[n - 1].size + rec[n - 2].size > 2,
        "... each its vertex's size, the memory's among them");
    v[2] = rp_graph_nvertices (g);
    ok (graph_sizes (g, v, n, &rec[0].size, sizeof (rec[0])) < 0,
        "graph_sizes: a handle that is no vertex: -1");
    rp_graph_destroy (g);
}

/* A whole rack from its list, more interior vertices (31) than the fill
 * keeps for a second look: taken and put back as recounted. */
static void test_whole_many_inner (void)
{
    rp_error_t e;
    struct rp_graph *g =
        rp_graph_generate ("nodes=20,racks=2,sockets=2,cores=2", &e);
    struct rp_gstate *s = graph_live (g);
    rp_vertex_t rack = rp_graph_child_first (g, rp_graph_root (g));
    rp_vertex_t sub[128];
    size_t n = graph_subtree (g, rack, sub, 127);

    sub[n] = RP_VERTEX_NONE;
    ok (n == 71 && gstate_take_whole_list (s, rack, sub, n) == 0
            && gstate_check (s, &e) == 0
            && gstate_used (s, sub[n - 1]) == 1
            && gstate_agg (s, rp_graph_root (g),
                           rp_graph_type_index (g, "core"))
                   == 40,
        "take whole from a list of 31 interior vertices: as recounted");
    ok (gstate_put_whole_many (s, sub, n + 1) == 0 && gstate_check (s, &e) == 0
            && gstate_idle (s, rp_graph_root (g)),
        "... put back from the list: idle, as recounted");
    rp_graph_destroy (g);
}

/* gstate_whole_check with where[] zeroed first, as match_verify leaves it. */
static size_t wcheck (const struct rp_gstate *s, const rp_vertex_t *v,
                      size_t stride, size_t n, bool up, uint32_t *where,
                      uint32_t first)
{
    memset (where, 0, rp_graph_nvertices (s->g) * sizeof (*where));
    return gstate_whole_check (s, v, stride, n, up, where, first);
}

/* gstate_whole_check, the pre-commit check of a subtree held whole: its
 * list as logged passes and numbers every vertex; a vertex of another
 * subtree held whole (a double allocation), one not held, one before its
 * parent, one down, and a vertex of the subtree left free are each
 * refused at their place. */
static void test_whole_check (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=2,sockets=2,cores=2", &e);
    struct rp_gstate *s = graph_live (g);
    rp_vertex_t node0 = rp_graph_rank_vertex (g, 0);
    rp_vertex_t node1 = rp_graph_rank_vertex (g, 1);
    rp_vertex_t sub[16], sub1[16], bad[16];
    uint32_t *where = calloc (rp_graph_nvertices (g), sizeof (*where));
    size_t n = graph_subtree (g, node0, sub, 16);
    bool numbered = true;

    (void)graph_subtree (g, node1, sub1, 16);
    if (!where || n != 7 || gstate_take_whole (s, node0) < 0
        || gstate_take_whole (s, node1) < 0)
        BAIL_OUT ("test_whole_check: setup");
    ok (wcheck (s, sub, sizeof (*sub), n, true, where, 5) == n,
        "whole check: node0's list as logged passes");
    for (size_t k = 0; k < n; k++)
        numbered &= where[sub[k]] == 5 + k;
    ok (numbered, "... each vertex numbered first + its place");
    memcpy (bad, sub, sizeof (sub));
    bad[3] = sub1[3]; /* a core of node1, held whole by another subtree */
    ok (wcheck (s, bad, sizeof (*bad), n, true, where, 1) == 3,
        "whole check: a core of node1 in node0's list: refused there");
    memcpy (bad, sub, sizeof (sub));
    bad[2] = sub[3];
    bad[3] = sub[2];
    bad[1] = sub[4]; /* socket1 where socket0 was: its cores' parent late */
    ok (wcheck (s, bad, sizeof (*bad), n, true, where, 1) == 2,
        "whole check: a core listed before its parent: refused there");
    ok (wcheck (s, sub, 2 * sizeof (*sub), 3, true, where, 1) == 1,
        "whole check: every other vertex, a core without its socket: "
        "refused");
    (void)rp_graph_set_state (g, sub[6], RP_VERTEX_DOWN, &e);
    ok (wcheck (s, sub, sizeof (*sub), n, true, where, 1) == 6,
        "whole check: a core down: refused there");
    ok (wcheck (s, sub, sizeof (*sub), n, false, where, 1) == n,
        "whole check: ... but for satisfiability, states left out");
    (void)rp_graph_set_state (g, sub[6], RP_VERTEX_UP, &e);
    (void)gstate_put_whole (s, node0);
    for (size_t k = 0; k + 1 < n; k++)
        (void)gstate_take (s, sub[k], 1, true);
    ok (wcheck (s, sub, sizeof (*sub), n, true, where, 1) == 6,
        "whole check: the last core not held: refused there");
    ok (wcheck (s, sub, sizeof (*sub), n - 1, true, where, 1) == 0,
        "whole check: ... and left out of the list: the root's subtree "
        "is not all held");
    for (size_t k = 0; k + 1 < n; k++)
        (void)gstate_put (s, sub[k], 1, true);
    ok (gstate_put_whole (s, node1) == 0 && gstate_check (s, &e) == 0
            && gstate_idle (s, rp_graph_root (g)),
        "whole check: changes nothing in the state");
    free (where);
    rp_graph_destroy (g);
}

/* gstate_take_leaves: a slot's cores in one step, as taken one by one
 * (aggregates and block summaries recounted after every list, in walk
 * order, backwards, scattered and across parents), each put back by
 * gstate_put; a refused list changes nothing. */
static void test_take_leaves (void)
{
    rp_error_t e;
    /* 3 nodes of one socket of 150 cores: summaries at each socket (3
     * entries of 64) */
    struct rp_graph *g = rp_graph_generate ("nodes=3,cores=150", &e);
    struct rp_gstate *s = graph_live (g);
    rp_vertex_t node0 = rp_graph_rank_vertex (g, 0);
    rp_vertex_t node1 = rp_graph_rank_vertex (g, 1);
    rp_vertex_t c0 = rp_graph_child_first (g, rp_graph_child_first (g, node0));
    rp_vertex_t c1 = rp_graph_child_first (g, rp_graph_child_first (g, node1));
    int tc = rp_graph_type_index (g, "core");
    rp_vertex_t v[300];
    char why[300] = "";
    size_t bad = 0;

    for (size_t i = 0; i < 4; i++)
        v[i] = c0 + (rp_vertex_t)i;
    ok (gstate_take_leaves (s, v, 4) == 0 && gstate_check (s, &e) == 0
            && gstate_agg (s, node0, tc) == 146
            && gstate_agg (s, rp_graph_root (g), tc) == 446
            && gstate_used (s, c0 + 3) == 1,
        "four cores of a node: taken, the node and root 4 cores less");
    for (size_t i = 0; i < 64; i++) /* the rest of the first entry, back */
        v[i] = c0 + 67 - (rp_vertex_t)i;
    ok (gstate_take_leaves (s, v, 64) == 0 && brute_check (s, why, sizeof (why))
            && gstate_check (s, &e) == 0,
        "64 cores backwards across two entries: summaries as recounted");
    for (size_t i = 0; i < 40; i++) /* scattered, two parents interleaved */
        v[i] = (i % 2 ? c1 : c0 + 68) + (rp_vertex_t)((i * 37) % 80);
    ok (gstate_take_leaves (s, v, 40) == 0 && brute_check (s, why, sizeof (why))
            && gstate_check (s, &e) == 0,
        "scattered cores of two nodes, interleaved: as recounted");
    for (rp_vertex_t c = c0; c < c0 + 150 && !bad; c++)
        if (gstate_used (s, c) == 0) {
            bad += gstate_take_leaves (s, &c, 1) < 0;
            bad += !brute_check (s, why, sizeof (why));
        }
    ok (bad == 0 && gstate_agg (s, node0, tc) == 0 && gstate_check (s, &e) == 0,
        "node0's last cores one list each: its cores all gone");
    if (bad)
        diag ("%s", why);
    v[0] = c1 + 100;
    v[1] = c0;
    ok (gstate_take_leaves (s, v, 2) < 0 && gstate_used (s, c1 + 100) == 0
            && gstate_check (s, &e) == 0,
        "a list with a core held: refused, nothing changed");
    v[1] = c1 + 101;
    v[2] = c1 + 100;
    ok (gstate_take_leaves (s, v, 3) < 0 && gstate_used (s, c1 + 100) == 0
            && gstate_used (s, c1 + 101) == 0 && gstate_check (s, &e) == 0,
        "a list with a core twice: refused, nothing changed");
    v[1] = node1;
    ok (gstate_take_leaves (s, v, 2) < 0 && gstate_used (s, c1 + 100) == 0
            && !gstate_leaf_takes (s, node1),
        "a list with a vertex that is not a leaf: refused");
    (void)rp_graph_set_state (g, node1, RP_VERTEX_DOWN, &e);
    ok (gstate_take_leaves (s, v, 1) < 0 && !gstate_leaf_takes (s, v[0])
            && gstate_check (s, &e) == 0,
        "a core below a node that is down: refused");
    (void)rp_graph_set_state (g, node1, RP_VERTEX_UP, &e);
    ok (gstate_take_leaves (s, v, 0) == 0 && gstate_leaf_takes (s, v[0]),
        "an empty list: nothing to take");
    for (rp_vertex_t c = 0; c < rp_graph_nvertices (g) && !bad; c++)
        if (rp_graph_child_first (g, c) == RP_VERTEX_NONE && gstate_used (s, c))
            bad += gstate_put (s, c, 1, true) < 0;
    ok (bad == 0 && gstate_check (s, &e) == 0 && rp_graph_subtree_idle (g, 0),
        "every core put back one by one: idle");
    rp_graph_destroy (g);
}

/* gstate_put_whole_many: the same state as gstate_put_whole of each root,
 * runs of one parent and others, refusals, a root with a vertex below it
 * drained. */
static void test_put_whole_many (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=200,racks=2,cores=2", &e);
    struct rp_gstate *s = graph_live (g);
    rp_vertex_t root = rp_graph_root (g), v[200], l[1200];
    int core = rp_graph_type_index (g, "core");
    size_t n = 0;

    /* ranks 0-99 in the first rack, 100-199 in the second: a run of
     * each, then odd ranks first, 0 last (a parent's run cut short) */
    for (unsigned r = 30; r < 130; r++)
        v[n++] = rp_graph_rank_vertex (g, r);
    for (size_t i = 0; i < n; i++)
        (void)gstate_take_whole (s, v[i]);
    ok (gstate_agg (s, root, core) == 200, "100 nodes taken whole");
    ok (gstate_put_whole_many (s, l, whole_lists (g, v, n, l)) == 0
            && gstate_check (s, &e) == 0 && gstate_idle (s, root),
        "put whole many: two runs, one per rack; idle again, the aggregates"
        " and blocks recount the same");
    n = 0;
    for (unsigned r = 1; r < 200; r += 2)
        v[n++] = rp_graph_rank_vertex (g, r);
    v[n++] = rp_graph_rank_vertex (g, 0);
    for (size_t i = 0; i < n; i++)
        (void)gstate_take_whole (s, v[i]);
    ok (gstate_put_whole_many (s, l, whole_lists (g, v, n / 2, l)) == 0
            && gstate_check (s, &e) == 0
            && gstate_agg (s, root, core) == 400 - 2 * (n - n / 2),
        "put whole many: half of them; the rest still held");
    ok (gstate_put_whole_many (s, l, whole_lists (g, v + n / 2, n - n / 2, l))
                == 0
            && gstate_check (s, &e) == 0 && gstate_idle (s, root),
        "... and the other half");
    rp_vertex_t node5 = rp_graph_rank_vertex (g, 5);
    rp_vertex_t node6 = rp_graph_rank_vertex (g, 6);
    rp_vertex_t node7 = rp_graph_rank_vertex (g, 7);
    rp_vertex_t core6 = rp_graph_child_first (g, node6);
    (void)gstate_take_whole (s, node5);
    (void)gstate_take_whole (s, node7);
    v[0] = node5;
    v[1] = node6; /* not held */
    v[2] = node7;
    n = whole_lists (g, v, 3, l);
    ok (gstate_put_whole_many (s, l, n - 1) < 0 && !gstate_idle (s, root),
        "lists that do not end with RP_VERTEX_NONE: -1, nothing put back");
    ok (gstate_put_whole_many (s, l, n) < 0 && gstate_check (s, &e) == 0
            && gstate_idle (s, root),
        "a root not held: -1, the others put back");
    ok (gstate_put_whole_many (s, NULL, 1) < 0
            && gstate_put_whole_many (s, NULL, 0) == 0
            && gstate_put_whole_many (NULL, l, 1) < 0,
        "no lists: -1 unless none are asked for");
    rp_vertex_t core5 =
        rp_graph_child_first (g, rp_graph_child_first (g, node5));
    (void)gstate_take_whole (s, core5);
    l[0] = RP_VERTEX_NONE;
    l[1] = core5;
    l[2] = RP_VERTEX_NONE;
    ok (gstate_put_whole_many (s, l, 1) < 0 && gstate_used (s, core5) == 1,
        "an empty list: -1");
    ok (gstate_put_whole_many (s, l + 1, 2) == 0 && gstate_check (s, &e) == 0
            && gstate_idle (s, root),
        "a leaf's list, a root of one vertex: put back");
    (void)gstate_take_whole (s, node5);
    (void)gstate_take_whole (s, node6);
    (void)gstate_take_whole (s, node7);
    (void)rp_graph_set_state (g, core6, RP_VERTEX_DRAINED, &e);
    ok (gstate_put_whole_many (s, l, whole_lists (g, v, 3, l)) == 0
            && gstate_check (s, &e) == 0 && gstate_used (s, core6) == 0
            && gstate_used (s, node7) == 0,
        "a core drained below one root: that one vertex by vertex");
    (void)rp_graph_set_state (g, core6, RP_VERTEX_UP, &e);
    rp_vertex_t rack0 = rp_graph_parent (g, node5);
    (void)gstate_take_whole (s, node5);
    (void)gstate_take_whole (s, node7);
    (void)rp_graph_set_state (g, rack0, RP_VERTEX_DOWN, &e);
    ok (gstate_put_whole_many (s, l, whole_lists (g, v, 1, l)) == 0
            && gstate_check (s, &e) == 0 && gstate_agg (s, rack0, core) == 198
            && gstate_agg (s, root, core) == 200,
        "a root under a rack that is down: the rack counts it, the root not");
    (void)rp_graph_set_state (g, rack0, RP_VERTEX_UP, &e);
    ok (gstate_put_whole_many (s, l, whole_lists (g, v + 2, 1, l)) == 0
            && gstate_check (s, &e) == 0 && gstate_idle (s, root),
        "idle again");
    rp_graph_destroy (g);
}

/* A child that shows a new key at every change leaves empty classes
 * behind: past twice the children, the index is rebuilt without them. */
static void test_index_rebuild (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_create ();
    rp_vertex_t root = rp_graph_add_vertex (g, "cluster", NULL, 0, 1, NULL, &e);
    rp_vertex_t pool = RP_VERTEX_NONE;
    struct rp_gstate *s;
    char why[300] = "";
    size_t most = 0, live = 0;
    bool good = true;

    for (int i = 0; i < 70; i++) {
        rp_vertex_t v =
            rp_graph_add_vertex (g, "memory", NULL, i, 1000, "GB", &e);
        if (v == RP_VERTEX_NONE
            || rp_graph_add_edge (g, root, v, "containment", "contains", &e)
                   < 0)
            BAIL_OUT ("build: %s", e.text);
        if (i == 0)
            pool = v;
    }
    if (rp_graph_finalize (g, &e) < 0 || !(s = graph_live (g))
        || gstate_index (s, root) < 0)
        BAIL_OUT ("finalize: %s", e.text);
    ok (gstate_classes (s, root) == 1, "index: 70 idle pools, one class");
    for (uint64_t k = 1; k <= 400 && good; k++) {
        size_t n;
        good = gstate_take (s, pool, k, true) == 0;
        n = gstate_classes (s, root);
        most = n > most ? n : most;
        good = good && gstate_put (s, pool, k, true) == 0 && n > 0;
    }
    ok (good && most <= 2 * 70 + 16 + 1,
        "index: 400 keys of one child, at most %zu classes kept", most);
    for (size_t k = 0, n = gstate_classes (s, root); k < n; k++)
        live += gstate_class_first (s, root, k) != RP_VERTEX_NONE;
    ok (classes_ok (s, why, sizeof (why)) && live == 1,
        "index: rebuilt, the pools are in one class again (%s)", why);
    ok (gstate_check (s, &e) == 0, "index: gstate_check passes");
    rp_graph_destroy (g);
}

static void test_take_refusals (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=2,cores=2,memory=8GB", &e);
    struct rp_gstate *s = graph_live (g);
    rp_vertex_t node0 = 1, core0 = 3, core1 = 4, mem = 5;
    int tm = rp_graph_type_index (g, "memory");
    ok (gstate_take (s, mem, 9, true) < 0, "take 9 of 8 refused");
    ok (gstate_take (s, mem, 0, true) < 0, "take 0 refused");
    ok (gstate_take (s, mem, 5, true) == 0
            && gstate_take (s, mem, 3, true) == 0,
        "take 5 then 3 of 8");
    ok (gstate_take (s, mem, 1, true) < 0, "take 1 more refused");
    ok (gstate_free (s, mem) == 0 && rp_graph_subtree_free (g, 0, tm) == 8,
        "pool full; the other node's 8 remain");
    ok (gstate_take (s, mem, 1, false) < 0, "shared on exclusive refused");
    ok (gstate_put (s, mem, 9, true) < 0, "put 9 of 8 used refused");
    ok (gstate_put (s, mem, 5, true) == 0 && gstate_free (s, mem) == 5,
        "put 5: 5 free");
    ok (gstate_take (s, core0, 1, false) == 0
            && gstate_take (s, core0, 1, false) == 0
            && gstate_shared (s, core0) == 2 && gstate_free (s, core0) == 0,
        "two shared holds: nothing free");
    ok (gstate_take (s, core0, 1, true) < 0, "exclusive on shared refused");
    ok (gstate_put (s, core0, 1, false) == 0
            && gstate_put (s, core0, 1, false) == 0
            && gstate_put (s, core0, 1, false) < 0,
        "shared puts: the third is refused");
    ok (rp_graph_set_state (g, node0, RP_VERTEX_DOWN, &e) == 0
            && gstate_take (s, core1, 1, true) < 0
            && gstate_take (s, core1, 1, false) < 0,
        "take below a down vertex refused");
    ok (gstate_put (s, mem, 3, true) == 0 && gstate_free (s, mem) == 8
            && rp_graph_vertex_free (g, mem) == 0,
        "put below a down vertex: free counts, public free 0");
    ok (gstate_put (s, 99, 1, true) < 0 && gstate_take (s, 99, 1, true) < 0,
        "unknown vertex refused");
    ok (gstate_check (s, &e) == 0, "consistent");

    struct rp_gstate *p = graph_pristine (g);
    ok (p != NULL && p != s && graph_pristine (g) == p, "pristine state");
    ok (gstate_up (p, node0) && gstate_take (p, core1, 1, true) == 0
            && gstate_agg (p, 0, rp_graph_type_index (g, "core")) == 3,
        "pristine: live states do not apply");
    ok (gstate_agg (s, 0, rp_graph_type_index (g, "core")) == 2,
        "live unchanged by pristine takes");
    ok (gstate_check (p, &e) == 0, "pristine consistent");
    rp_graph_destroy (g);
}

/* gstate_check finds what it is for: corrupt one thing at a time. */
static void test_check_finds (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=70,cores=2", &e);
    struct rp_gstate *s = graph_live (g);
    int tc = rp_graph_type_index (g, "core");
    size_t T = rp_graph_ntypes (g);
    uint64_t *agg = &s->agg[g->iidx[1] * T + (size_t)tc];
    (*agg)++;
    errno = 0;
    ok (gstate_check (s, &e) < 0 && errno == EPROTO, "a wrong aggregate");
    is (e.text, "node0: free core is 3, recount 2", "... is found");
    (*agg)--;
    s->blk[0]++;
    ok (gstate_check (s, &e) < 0, "a wrong block summary");
    is (e.text, "cluster0: block summary 0 of type cluster is 1, recount 0",
        "... is found");
    s->blk[0]--;
    s->used[3] = 2;
    ok (gstate_check (s, &e) < 0, "used over size");
    is (e.text, "core0: 2 used of 1", "... is found");
    s->used[3] = 1;
    s->shared[3] = 1;
    ok (gstate_check (s, &e) < 0, "exclusive and shared");
    is (e.text, "core0: held both exclusively and shared", "... is found");
    s->used[3] = 0;
    s->shared[3] = 0;
    s->state[3] = RP_VERTEX_DOWN;
    ok (gstate_check (s, &e) < 0, "a state changed behind its back");
    is (e.text, "1 vertices not up, counted 0", "... is found");
    s->state[3] = RP_VERTEX_UP;
    ok (gstate_check (s, &e) == 0, "repaired: consistent");
    rp_graph_destroy (g);
}

/* --- gstate_child_fit ------------------------------------------------ */

static size_t fit_list (struct rp_gstate *s, rp_vertex_t p,
                        const uint64_t *need, int order, rp_vertex_t *out)
{
    size_t n = 0;
    rp_vertex_t c = RP_VERTEX_NONE;
    while ((c = gstate_child_fit (s, p, c, need, order)) != RP_VERTEX_NONE)
        out[n++] = c;
    return n;
}

/* The same through a search kept between finds (struct gfit). */
static size_t cursor_list (struct rp_gstate *s, rp_vertex_t p,
                           const uint64_t *need, int order, rp_vertex_t *out)
{
    struct gfit f;
    size_t n = 0;
    for (rp_vertex_t c = gstate_fit_first (&f, s, p, need, order);
         c != RP_VERTEX_NONE; c = gstate_fit_next (&f))
        out[n++] = c;
    return n;
}

static size_t brute_fit (const struct rp_gstate *s, rp_vertex_t p,
                         const uint64_t *need, int order, rp_vertex_t *out)
{
    size_t T = rp_graph_ntypes (s->g), n = 0, k = rp_graph_nchildren (s->g, p);
    for (size_t i = 0; i < k; i++) {
        size_t j = order == RP_WALK_HIGH ? k - 1 - i : i;
        rp_vertex_t c = s->g->child[s->g->child_off[p] + j];
        bool fit = gstate_up (s, c);
        for (size_t t = 0; need && t < T; t++)
            fit = fit && gstate_agg (s, c, (int)t) >= need[t];
        if (fit)
            out[n++] = c;
    }
    return n;
}

static bool same (const rp_vertex_t *a, size_t na, const rp_vertex_t *b,
                  size_t nb)
{
    return na == nb && (na == 0 || !memcmp (a, b, na * sizeof (*a)));
}

/* graph_child_pos: every child's place among its parent's children,
 * with evenly spaced handles (a generated cluster, found by
 * interpolating) and with subtrees of many sizes (the binary search). */
static void test_child_pos (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=1000,cores=2", &e);
    struct rp_graph *u = rp_graph_create ();
    rp_vertex_t root = add (u, "cluster", 0), nodes[100];
    size_t bad = 0;

    for (int i = 0; i < 100; i++) {
        contain (u, root, nodes[i] = add (u, "node", i));
        for (int c = 0; c < (i * 7) % 5; c++)
            contain (u, nodes[i], add (u, "core", c));
    }
    if (!g || rp_graph_finalize (u, &e) < 0)
        BAIL_OUT ("graphs: %s", e.text);
    for (size_t k = 0; k < nkids (g, 0); k++)
        bad += graph_child_pos (g, g->child[g->child_off[0] + k]) != k;
    ok (bad == 0, "1,000 evenly spaced nodes: each child's place");
    bad = 0;
    for (size_t k = 0; k < 100; k++)
        bad += graph_child_pos (u, nodes[k]) != k;
    ok (bad == 0, "100 nodes of 0 to 4 cores: each child's place");
    rp_graph_destroy (g);
    rp_graph_destroy (u);
}

static void test_child_fit (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=1000,cores=2", &e);
    struct rp_gstate *s = graph_live (g);
    int tc = rp_graph_type_index (g, "core");
    rp_vertex_t got[1000], want[1000];
    uint64_t need[4] = { 0 };
    /* node r is vertex 1 + 4r; its cores 3 + 4r, 4 + 4r */
    for (rp_vertex_t r = 0; r < 1000; r++) {
        if (r != 3 && r != 500 && r != 998)
            gstate_take (s, 3 + 4 * r, 1, true);
        if (r != 3 && r != 998 && r != 640)
            gstate_take (s, 4 + 4 * r, 1, true);
    }
    need[tc] = 2;
    size_t n = fit_list (s, 0, need, RP_WALK_LOW, got);
    ok (n == 2 && got[0] == 1 + 4 * 3 && got[1] == 1 + 4 * 998,
        "need 2 cores, low: node3, node998");
    n = fit_list (s, 0, need, RP_WALK_HIGH, got);
    ok (n == 2 && got[0] == 1 + 4 * 998 && got[1] == 1 + 4 * 3,
        "need 2 cores, high: node998, node3");
    need[tc] = 1;
    n = fit_list (s, 0, need, RP_WALK_LOW, got);
    ok (n == 4 && got[1] == 1 + 4 * 500 && got[2] == 1 + 4 * 640,
        "need 1 core, low: node3, node500, node640, node998");
    ok (gstate_child_fit (s, 0, 1 + 4 * 500, need, RP_WALK_HIGH) == 1 + 4 * 3,
        "high after node500: node3");
    ok (gstate_child_fit (s, 0, 1 + 4 * 998, need, RP_WALK_LOW)
            == RP_VERTEX_NONE,
        "low after node998: none");
    need[tc] = 3;
    ok (gstate_child_fit (s, 0, RP_VERTEX_NONE, need, RP_WALK_LOW)
            == RP_VERTEX_NONE,
        "need 3: none");
    rp_graph_set_state (g, 1 + 4 * 7, RP_VERTEX_DOWN, &e);
    n = fit_list (s, 0, NULL, RP_WALK_LOW, got);
    ok (n == 999 && got[7] == 1 + 4 * 8, "no need: every up child (999)");
    n = fit_list (s, 0, NULL, RP_WALK_HIGH, got);
    ok (n == 999 && got[0] == 1 + 4 * 999, "no need, high: from the last");
    ok (gstate_child_fit (s, 0, 2, NULL, RP_WALK_LOW) == RP_VERTEX_NONE,
        "after a vertex that is not a child: none");

    /* random patterns against the brute force */
    srand (7);
    size_t bad = 0, cbad = 0;
    for (int round = 0; round < 200; round++) {
        rp_vertex_t v = 3 + (rp_vertex_t)(rand () % 4000);
        if (rp_graph_vertex_type_index (g, v) == tc) {
            if (gstate_used (s, v))
                gstate_put (s, v, 1, true);
            else
                gstate_take (s, v, 1, true);
        }
        need[tc] = (uint64_t)(rand () % 3);
        for (int order = RP_WALK_LOW; order <= RP_WALK_HIGH; order++) {
            size_t a = fit_list (s, 0, need, order, got);
            size_t b = brute_fit (s, 0, need, order, want);
            bad += !same (got, a, want, b);
            a = cursor_list (s, 0, need, order, got);
            cbad += !same (got, a, want, b);
        }
    }
    ok (bad == 0, "200 random patterns, both orders: as the brute force");
    ok (cbad == 0, "the same kept between finds: as the brute force");
    rp_graph_destroy (g);
}

/* gstate_leaf_kids: whether a parent's children are all leaves, and
 * whether those of one type ascend in ids and have one size; the answer
 * kept for the last parent and type. */
static void test_leaf_kids (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_create ();
    rp_vertex_t root = add (g, "cluster", 0), n[5];
    bool up, one;
    int tc, tg;

    for (int i = 0; i < 5; i++)
        contain (g, root, n[i] = add (g, "node", i));
    for (int c = 0; c < 4; c++) /* n0: cores 0-3 and a GPU */
        contain (g, n[0], add (g, "core", c));
    contain (g, n[0], add (g, "gpu", 0));
    contain (g, n[1], add (g, "core", 1)); /* n1: ids descend */
    contain (g, n[1], add (g, "core", 0));
    contain (g, n[2], add (g, "core", 0)); /* n2: a socket below */
    rp_vertex_t sock = add (g, "socket", 0);
    contain (g, n[2], sock);
    contain (g, sock, add (g, "core", 1));
    contain (g, n[3], add (g, "core", 0)); /* n3: sizes 1 and 2 */
    rp_vertex_t big = rp_graph_add_vertex (g, "core", NULL, 1, 2, NULL, &e);
    if (big == RP_VERTEX_NONE)
        BAIL_OUT ("add core1: %s", e.text);
    contain (g, n[3], big);
    contain (g, n[4], add (g, "core", -1)); /* n4: no ids */
    contain (g, n[4], add (g, "core", -1));
    if (rp_graph_finalize (g, &e) < 0)
        BAIL_OUT ("leaf kids graph: %s", e.text);
    struct rp_gstate *s = graph_live (g);
    tc = rp_graph_type_index (g, "core");
    tg = rp_graph_type_index (g, "gpu");
    ok (gstate_leaf_kids (s, n[0], tc, &up, &one) && up && one,
        "cores and a GPU: leaves, cores ascending, one size");
    ok (gstate_leaf_kids (s, n[0], tg, &up, &one) && up && one,
        "the same for its one GPU");
    ok (gstate_leaf_kids (s, n[1], tc, &up, &one) && !up && one,
        "ids descending: not ascending");
    ok (gstate_leaf_kids (s, n[1], tg, &up, &one) && up && one
            && gstate_leaf_kids (s, n[1], tc, &up, &one) && !up,
        "kept per parent and type: no GPUs ascend, the cores still do not");
    ok (!gstate_leaf_kids (s, n[2], tc, &up, &one),
        "a socket among the children: not all leaves");
    ok (gstate_leaf_kids (s, n[3], tc, &up, &one) && up && !one,
        "cores of sizes 1 and 2: not one size");
    ok (gstate_leaf_kids (s, n[4], tc, &up, &one) && !up && one,
        "cores without ids: not ascending");
    ok (!gstate_leaf_kids (s, root, tc, &up, &one),
        "nodes with children: not leaves");
    rp_graph_destroy (g);
}

/* gstate_idle of a leaf from its counters, as its aggregates and
 * totals tell: free, partly or wholly used, shared, down, of every type
 * (a memory pool of 8 GB among them). */
static void test_leaf_idle (void)
{
    rp_error_t e;
    struct rp_graph *g =
        rp_graph_generate ("nodes=2,memory=8GB,gpus=2,cores=2", &e);
    struct rp_gstate *s = graph_live (g);
    size_t T = rp_graph_ntypes (g), bad = 0, leaves = 0, idle = 0;

    if (!g)
        BAIL_OUT ("graph: %s", e.text);
    srand (3);
    for (int round = 0; round < 400; round++) {
        rp_vertex_t v = (rp_vertex_t)(rand () % rp_graph_nvertices (g));
        if (rp_graph_nchildren (g, v) > 0)
            continue;
        uint64_t size = rp_graph_vertex_size (g, v);
        switch (rand () % 5) {
        case 0:
            gstate_set_counts (s, v, 0, 0);
            break;
        case 1:
            gstate_set_counts (s, v, (uint64_t)rand () % (size + 1), 0);
            break;
        case 2:
            gstate_set_counts (s, v, 0, 1);
            break;
        case 3:
            rp_graph_set_state (g, v, RP_VERTEX_DOWN, &e);
            break;
        default:
            rp_graph_set_state (g, v, RP_VERTEX_UP, &e);
        }
        bool want = true;
        for (size_t t = 0; t < T; t++)
            want = want && gstate_agg (s, v, (int)t) == total_of (g, v, t);
        bad += gstate_idle (s, v) != want;
        leaves++;
        idle += want;
    }
    ok (bad == 0 && idle > 20 && leaves - idle > 20,
        "a leaf's idleness as its aggregates and totals tell (%zu of %zu "
        "idle)",
        idle, leaves);
    rp_graph_destroy (g);
}

/* A search kept between finds while the state changes under it, as the
 * walk takes what it finds: each find as gstate_child_fit after the last
 * one; a parent without children finds nothing, and nothing after. */
static void test_fit_cursor (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=300,cores=4", &e);
    struct rp_gstate *s = graph_live (g);
    int tc = rp_graph_type_index (g, "core");
    uint64_t need[4] = { 0 };
    size_t bad = 0, found = 0;
    struct gfit f;

    need[tc] = 3;
    srand (11);
    for (int round = 0; round < 20; round++) {
        int order = round % 2 ? RP_WALK_HIGH : RP_WALK_LOW;
        rp_vertex_t c = gstate_fit_first (&f, s, 0, need, order), want;
        for (; c != RP_VERTEX_NONE; c = gstate_fit_next (&f)) {
            /* take a core of it, and one of a random node */
            gstate_take (s, c + 2, 1, true);
            rp_vertex_t r = 1 + 6 * (rp_vertex_t)(rand () % 300) + 2;
            if (!gstate_used (s, r))
                gstate_take (s, r, 1, true);
            want = gstate_child_fit (s, 0, c, need, order);
            found++;
            struct gfit f2 = f;
            bad += gstate_fit_next (&f2) != want;
        }
        for (rp_vertex_t v = 0; v < rp_graph_nvertices (g); v++)
            if (rp_graph_vertex_type_index (g, v) == tc && gstate_used (s, v))
                gstate_put (s, v, 1, true);
    }
    ok (found > 300 && bad == 0,
        "taking as it finds: each find as gstate_child_fit after the last");
    rp_vertex_t leaf = 3;
    ok (gstate_fit_first (&f, s, leaf, need, RP_WALK_LOW) == RP_VERTEX_NONE
            && gstate_fit_next (&f) == RP_VERTEX_NONE,
        "a parent without children: none, and none after");
    rp_graph_destroy (g);
}

/* The largest maximum of type t at level l of p's summaries. */
static uint64_t block_max (const struct rp_gstate *s, rp_vertex_t p, int l,
                           int t)
{
    size_t n[MAX_LEVELS], T = rp_graph_ntypes (s->g);
    uint64_t off[MAX_LEVELS], max = 0;
    if (levels (s->g, p, n, off) < l)
        return UINT64_MAX;
    for (size_t j = 0; j < n[l]; j++)
        max = s->blk[off[l] + j * T + (size_t)t] > max
                  ? s->blk[off[l] + j * T + (size_t)t]
                  : max;
    return max;
}

/* A search from a parent's first child starts where the same search
 * found its child last time, while no child before that one gained
 * (s->memo): the same child as the brute force after random takes, puts
 * (one at a time, whole, several whole), states and counts set. */
static void test_fit_again (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=300,racks=1,cores=2", &e);
    struct rp_gstate *s = graph_live (g);
    size_t n = rp_graph_nvertices (g), bad = 0, again = 0, T = ntypes (g);
    rp_vertex_t rack = rp_graph_child_first (g, rp_graph_root (g));
    rp_vertex_t *want = calloc (n, sizeof (*want));
    rp_vertex_t *lists = calloc (2 * (n + 1), sizeof (*lists));
    uint64_t needs[3][8] = { { 0 } };
    char why[200] = "";
    const uint64_t *need = NULL;
    int order = RP_WALK_LOW;
    needs[0][rp_graph_type_index (g, "node")] = 1;
    needs[1][rp_graph_type_index (g, "core")] = 2;
    needs[2][rp_graph_type_index (g, "core")] = 1;
    /* most nodes held, so that the first fit is deep and gains before it
     * are common */
    for (unsigned r = 0; r < 300; r++)
        if (r % 10 != 9)
            (void)gstate_take_whole (s, rp_graph_rank_vertex (g, r));
    srand (11);
    for (int step = 0; step < 4000 && bad == 0; step++) {
        rp_vertex_t v = (rp_vertex_t)(rand () % (int)n);
        rp_vertex_t node = rp_graph_rank_vertex (g, rand () % 300);
        int op = rand () % 24; /* half the steps change nothing */
        if (step % 16 == 0) {  /* the search asked, for 16 steps */
            need = rand () % 8 ? needs[rand () % 3] : NULL;
            order = rand () % 4 ? RP_WALK_LOW : RP_WALK_HIGH;
        }
        if (op < 3)
            (void)gstate_take_whole (s, rand () % 2 ? v : node);
        else if (op < 4 && gstate_put_whole (s, v) < 0)
            (void)gstate_put (s, v, 1, true);
        else if (op < 5) {
            rp_vertex_t two[2] = { node,
                                   rp_graph_rank_vertex (g, rand () % 300) };
            (void)gstate_put_whole_many (s, lists,
                                         whole_lists (g, two, 2, lists));
        } else if (op < 7)
            (void)gstate_take (s, v, 1, true);
        else if (op < 8)
            (void)gstate_put (s, v, 1, true);
        else if (op < 9)
            gstate_set_counts (s, v, 0, 0);
        else if (op < 10) {
            int st = rand () % 3;
            (void)rp_graph_set_state (g, v,
                                      st == 0   ? RP_VERTEX_DOWN
                                      : st == 1 ? RP_VERTEX_DRAINED
                                                : RP_VERTEX_UP,
                                      &e);
        }
        again += memo_find (s, rack, need, order == RP_WALK_HIGH) != NULL;
        rp_vertex_t got = gstate_child_fit (s, rack, NONE, need, order);
        size_t k = brute_fit (s, rack, need, order, want);
        if (got != (k ? want[0] : NONE)) {
            snprintf (why, sizeof (why), "step %d: %u, brute %u", step, got,
                      k ? want[0] : NONE);
            bad++;
        }
    }
    ok (bad == 0 && again > 1000,
        "4000 random changes: the first fit as the brute force (%zu searches"
        " began where the last one found, %zu types)",
        again, T);
    if (bad)
        diag ("%s", why);
    free (want);
    free (lists);
    rp_graph_destroy (g);

    /* a child up again with nothing free, for a search without needs; a
     * parent inside a subtree put back whole */
    g = rp_graph_generate ("nodes=3,cores=2", &e);
    s = graph_live (g);
    rp_vertex_t n0 = rp_graph_rank_vertex (g, 0), l2[8];
    rp_vertex_t sock0 = rp_graph_child_first (g, n0), root = rp_graph_root (g);
    int tc = rp_graph_type_index (g, "core");
    uint64_t core1[8] = { 0 };
    core1[tc] = 1;
    (void)gstate_take_whole (s, n0);
    (void)rp_graph_set_state (g, n0, RP_VERTEX_DOWN, &e);
    ok (gstate_child_fit (s, root, NONE, NULL, RP_WALK_LOW)
            == rp_graph_rank_vertex (g, 1),
        "no needs, node0 down: node1");
    (void)rp_graph_set_state (g, n0, RP_VERTEX_UP, &e);
    ok (gstate_child_fit (s, root, NONE, NULL, RP_WALK_LOW) == n0,
        "node0 up again, all of it held: node0");
    ok (gstate_child_fit (s, sock0, NONE, core1, RP_WALK_LOW) == NONE,
        "node0 held whole: no core of its socket");
    ok (gstate_put_whole_many (s, l2, whole_lists (g, &n0, 1, l2)) == 0
            && gstate_child_fit (s, sock0, NONE, core1, RP_WALK_LOW)
                   == rp_graph_child_first (g, sock0),
        "node0 put back whole: its socket's first core");
    (void)gstate_take_whole (s, n0);
    (void)gstate_child_fit (s, sock0, NONE, core1, RP_WALK_LOW);
    ok (gstate_put_whole (s, n0) == 0
            && gstate_child_fit (s, sock0, NONE, core1, RP_WALK_LOW)
                   == rp_graph_child_first (g, sock0),
        "... and by gstate_put_whole");
    rp_vertex_t c0 = rp_graph_child_first (g, sock0);
    uint64_t core2[8] = { 0 };
    core2[tc] = 2;
    (void)gstate_take (s, c0, 1, true);
    ok (gstate_child_fit (s, root, NONE, core2, RP_WALK_LOW)
            == rp_graph_rank_vertex (g, 1),
        "a core of node0 held: 2 cores on node1");
    ok (gstate_put (s, c0, 1, true) == 0
            && gstate_child_fit (s, root, NONE, core2, RP_WALK_LOW) == n0,
        "put back: on node0");
    (void)gstate_take_whole (s, n0);
    ok (gstate_child_fit (s, root, NONE, core2, RP_WALK_HIGH)
            == rp_graph_rank_vertex (g, 2),
        "node0 held whole, high: node2");
    (void)gstate_take_whole (s, rp_graph_rank_vertex (g, 2));
    ok (gstate_child_fit (s, root, NONE, core2, RP_WALK_HIGH)
            == rp_graph_rank_vertex (g, 1),
        "... node2 too: node1");
    ok (gstate_put_whole (s, rp_graph_rank_vertex (g, 2)) == 0
            && gstate_child_fit (s, root, NONE, core2, RP_WALK_HIGH)
                   == rp_graph_rank_vertex (g, 2),
        "node2 put back whole: node2");
    rp_graph_destroy (g);
}

/* Two searches kept at once (s->memo): a command searches the cluster's
 * nodes, then a node's cores; the next command's search of the nodes
 * begins where the last one found.  A third parent's search replaces the
 * entry not used last.  A kept search found again moves to the child it
 * finds now: the next begins there, one look. */
static void test_fit_two (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=300,racks=1,cores=2", &e);
    struct rp_gstate *s = graph_live (g);
    rp_vertex_t rack = rp_graph_child_first (g, rp_graph_root (g));
    rp_vertex_t n100 = rp_graph_rank_vertex (g, 100);
    rp_vertex_t n101 = rp_graph_rank_vertex (g, 101);
    rp_vertex_t sock = rp_graph_child_first (g, n100);
    rp_vertex_t sock2 = rp_graph_child_first (g, n101);
    uint64_t node1[8] = { 0 }, core1[8] = { 0 };
    node1[rp_graph_type_index (g, "node")] = 1;
    core1[rp_graph_type_index (g, "core")] = 1;
    for (unsigned r = 0; r < 100; r++)
        (void)gstate_take_whole (s, rp_graph_rank_vertex (g, r));
    ok (gstate_child_fit (s, rack, NONE, node1, RP_WALK_LOW) == n100
            && gstate_child_fit (s, sock, NONE, core1, RP_WALK_LOW)
                   == rp_graph_child_first (g, sock)
            && memo_find (s, rack, node1, false) != NULL
            && memo_find (s, sock, core1, false) != NULL,
        "a search of the nodes, then of a node's cores: both kept");
    fit_probes = 0;
    ok (gstate_child_fit (s, rack, NONE, node1, RP_WALK_LOW) == n100
            && fit_probes <= 2,
        "the nodes searched again: from node100 (%zu entries looked at)",
        fit_probes);
    ok (gstate_child_fit (s, sock2, NONE, core1, RP_WALK_LOW)
                == rp_graph_child_first (g, sock2)
            && memo_find (s, rack, node1, false) != NULL
            && memo_find (s, sock2, core1, false) != NULL
            && memo_find (s, sock, core1, false) == NULL,
        "a third parent's search replaces the one not used last");
    (void)gstate_take_whole (s, sock2);
    ok (memo_find (s, sock2, core1, false) == NULL
            && memo_find (s, rack, node1, false) != NULL
            && gstate_child_fit (s, rack, NONE, node1, RP_WALK_LOW) == n100,
        "a parent taken whole: its search dropped, the other kept");
    (void)gstate_take_whole (s, n100);
    (void)gstate_put_whole (s, rp_graph_rank_vertex (g, 5));
    ok (gstate_child_fit (s, rack, NONE, node1, RP_WALK_LOW)
            == rp_graph_rank_vertex (g, 5),
        "node5 put back: found before node101");
    (void)gstate_take_whole (s, rp_graph_rank_vertex (g, 5));
    ok (gstate_child_fit (s, rack, NONE, node1, RP_WALK_LOW) == n101
            && memo_find (s, rack, node1, false) != NULL
            && memo_find (s, rack, node1, false)->idx == 101,
        "node5 taken again: the kept search finds node101, keeps its place");
    fit_probes = 0;
    rp_vertex_t again = gstate_child_fit (s, rack, NONE, node1, RP_WALK_LOW);
    ok (again == n101 && fit_probes == 1,
        "searched again: from node101, one look (%zu)", fit_probes);
    rp_graph_destroy (g);
}

/* A find whose first child searched fits looks at that child alone,
 * and a kept search whose child found was taken (a slot's cores) begins
 * after the taken ones: one look each, either order. */
static void test_fit_next_one (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=1,cores=100", &e);
    struct rp_gstate *s = graph_live (g);
    rp_vertex_t sock = rp_graph_child_first (g, rp_graph_rank_vertex (g, 0));
    rp_vertex_t c[100], got[4];
    uint64_t core1[8] = { 0 };
    struct gfit x;
    core1[rp_graph_type_index (g, "core")] = 1;
    c[0] = rp_graph_child_first (g, sock);
    for (int i = 1; i < 100; i++)
        c[i] = rp_graph_child_next (g, c[i - 1]);
    for (int high = 0; high < 2; high++) {
        int order = high ? RP_WALK_HIGH : RP_WALK_LOW;
        int at = high ? 99 : 0, step = high ? -1 : 1;
        got[0] = gstate_fit_first (&x, s, sock, core1, order);
        fit_probes = 0;
        for (int i = 1; i < 4; i++)
            got[i] = gstate_fit_next (&x);
        ok (got[0] == c[at] && got[3] == c[at + 3 * step] && fit_probes == 3,
            "%s: the next 3 cores, one look each (%zu)",
            high ? "high" : "low", fit_probes);
        ok (gstate_take_leaves (s, got, 4) == 0, "%s: the 4 taken",
            high ? "high" : "low");
        fit_probes = 0;
        rp_vertex_t again = gstate_child_fit (s, sock, NONE, core1, order);
        ok (again == c[at + 4 * step] && fit_probes == 1,
            "%s: searched again, from the core after them: one look (%zu)",
            high ? "high" : "low", fit_probes);
        ok (gstate_child_fit (s, sock, NONE, NULL, order) == c[at],
            "%s: no need: a taken core is up, so it is found",
            high ? "high" : "low");
        for (int i = 0; i < 4; i++)
            (void)gstate_put (s, got[i], 1, true);
        ok (gstate_child_fit (s, sock, NONE, core1, order) == c[at]
                && gstate_check (s, &e) == 0,
            "%s: put back: the first core again", high ? "high" : "low");
    }
    rp_graph_destroy (g);
}

/* Block maxima through every kind of change, with two summary levels
 * (600 children: 38 blocks, 3 blocks of blocks), each step against the
 * brute force: the maxima fall only when a whole block (16 or 256 nodes)
 * has lost its last free core, which random steps rarely reach. */
static void test_block_maxima (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=600,cores=2", &e);
    struct rp_gstate *s = graph_live (g);
    int tc = rp_graph_type_index (g, "core");
    char why[300] = "";
    size_t bad = 0, steps = 0;
    /* node r is vertex 1 + 4r; its cores 3 + 4r, 4 + 4r */
    for (rp_vertex_t r = 0; r < 600 && !bad; r++, steps++) {
        bad += gstate_take (s, 3 + 4 * r, 1, true) < 0;
        bad += !brute_check (s, why, sizeof (why));
    }
    for (rp_vertex_t r = 600; r-- > 0 && !bad; steps++) {
        bad += gstate_take (s, 4 + 4 * r, 1, true) < 0;
        bad += !brute_check (s, why, sizeof (why));
    }
    ok (bad == 0 && steps == 1200 && block_max (s, 0, 2, tc) == 0,
        "every core taken, one at a time: maxima fall to 0 at both levels");
    for (rp_vertex_t i = 0; i < 1200 && !bad; i++, steps++) {
        rp_vertex_t r = (i * 7) % 600, c = i < 600 ? 3 : 4;
        bad += gstate_put (s, c + 4 * r, 1, true) < 0;
        bad += !brute_check (s, why, sizeof (why));
    }
    for (rp_vertex_t i = 0; i < 1200 && !bad; i++, steps++) {
        rp_vertex_t r = (i * 11) % 600;
        rp_graph_set_state (g, 1 + 4 * r,
                            i < 600 ? RP_VERTEX_DOWN : RP_VERTEX_UP, &e);
        bad += !brute_check (s, why, sizeof (why));
    }
    ok (bad == 0 && steps == 3600,
        "put back in another order, nodes down and up: as the brute force");
    if (bad)
        diag ("%s", why);
    ok (gstate_check (s, &e) == 0 && rp_graph_subtree_idle (g, 0),
        "consistent and idle at the end");
    rp_graph_destroy (g);
}

/* The maxima let a search skip blocks whose sums would not: nodes with
 * 3 free GPUs each, 4096 of them (256 blocks, 16 blocks of blocks).  A
 * search looks at the rest of its group of 16 at each level on the way
 * up, and at one group per level on the way down. */
static void test_fit_skips (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate ("nodes=4096,gpus=4", &e);
    struct rp_gstate *s = graph_live (g);
    int tg = rp_graph_type_index (g, "gpu"),
        tc = rp_graph_type_index (g, "core");
    uint64_t need[8] = { 0 };
    rp_vertex_t n3000 = rp_graph_rank_vertex (g, 3000), gpu3000 = NONE;
    for (rp_vertex_t v = 0; v < rp_graph_nvertices (g); v++) {
        if (rp_graph_vertex_type_index (g, v) != tg
            || rp_graph_vertex_id (g, v) != 0)
            continue;
        gstate_take (s, v, 1, true);
        if (rp_graph_target (g, v) == n3000)
            gstate_take (s, gpu3000 = v + 1, 1, true);
    }
    need[tg] = 4;
    for (int order = RP_WALK_LOW; order <= RP_WALK_HIGH; order++) {
        fit_probes = 0;
        ok (gstate_child_fit (s, 0, NONE, need, order) == NONE,
            "need 4 GPUs, %s: no node has them", order ? "high" : "low");
        cmp_ok (fit_probes, <=, 3 * 16,
                "... after at most 16 probes per level, not 4096");
    }
    need[tg] = 3;
    need[tc] = 1;
    fit_probes = 0;
    ok (gstate_child_fit (s, 0, NONE, need, RP_WALK_LOW)
            == rp_graph_rank_vertex (g, 0),
        "need 3 GPUs and a core: node0");
    fit_probes = 0;
    ok (gstate_child_fit (s, 0, rp_graph_rank_vertex (g, 2999), need,
                          RP_WALK_LOW)
            == rp_graph_rank_vertex (g, 3001),
        "after node2999: node3001 (node3000 has 2 GPUs)");
    cmp_ok (fit_probes, <=, 5 * 16,
            "... after at most 16 probes per level up and down");
    gstate_put (s, gpu3000, 1, true);
    gstate_put (s, gpu3000 - 1, 1, true);
    need[tg] = 4;
    for (int order = RP_WALK_LOW; order <= RP_WALK_HIGH; order++) {
        fit_probes = 0;
        ok (gstate_child_fit (s, 0, NONE, need, order) == n3000,
            "node3000 freed, need 4 GPUs, %s: node3000",
            order ? "high" : "low");
        cmp_ok (fit_probes, <=, 5 * 16,
                "... after at most 16 probes per level up and down");
    }
    /* From node0 (or node4095, high) the rest of its block and of its
     * group of blocks hold no node with 4 GPUs: one look at the maxima
     * above each, not 15 children and 15 blocks (low: 34 probes, 62 when
     * the rests were scanned; high: 20, 48). */
    for (int order = RP_WALK_LOW; order <= RP_WALK_HIGH; order++) {
        fit_probes = 0;
        ok (gstate_child_fit (s, 0, rp_graph_rank_vertex (g, order ? 4095 : 0),
                              need, order)
                == n3000,
            "after node%d, %s: node3000", order ? 4095 : 0,
            order ? "high" : "low");
        cmp_ok (fit_probes, <=, 40,
                "... the rests of its block and group skipped by their maxima");
    }
    ok (gstate_check (s, &e) == 0, "consistent");
    rp_graph_destroy (g);
}

/* --- walker --------------------------------------------------------- */

struct trace {
    char buf[1024];
    const char *name; /* the vertex that gets action */
    int action;
    bool in_post; /* act in post-order instead */
};

static void trace_add (const struct rp_graph *g, rp_vertex_t v, char tag,
                       struct trace *t)
{
    size_t len = strlen (t->buf);
    snprintf (t->buf + len, sizeof (t->buf) - len, "%s%c%s", len ? " " : "",
              tag, rp_graph_vertex_name (g, v));
}

static int trace_pre (const struct rp_graph *g, rp_vertex_t v, void *arg)
{
    struct trace *t = arg;
    trace_add (g, v, '+', t);
    if (!t->in_post && t->name
        && !strcmp (rp_graph_vertex_name (g, v), t->name))
        return t->action;
    return RP_WALK_CONTINUE;
}

static int trace_post (const struct rp_graph *g, rp_vertex_t v, void *arg)
{
    struct trace *t = arg;
    trace_add (g, v, '-', t);
    if (t->in_post && t->name && !strcmp (rp_graph_vertex_name (g, v), t->name))
        return t->action;
    return RP_WALK_CONTINUE;
}

/* cluster0 > node0 > (socket0 > core0 core1) gpu0; node1 > core2 */
static struct rp_graph *walk_graph (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_create ();
    rp_vertex_t c = add (g, "cluster", 0);
    rp_vertex_t n0 = add (g, "node", 0);
    rp_vertex_t s0 = add (g, "socket", 0);
    rp_vertex_t c0 = add (g, "core", 0);
    rp_vertex_t c1 = add (g, "core", 1);
    rp_vertex_t g0 = add (g, "gpu", 0);
    rp_vertex_t n1 = add (g, "node", 1);
    rp_vertex_t c2 = add (g, "core", 2);
    contain (g, c, n0);
    contain (g, n0, s0);
    contain (g, s0, c0);
    contain (g, s0, c1);
    contain (g, n0, g0);
    contain (g, c, n1);
    contain (g, n1, c2);
    if (rp_graph_finalize (g, &e) < 0)
        BAIL_OUT ("walk graph: %s", e.text);
    return g;
}

static const struct {
    const char *desc;
    int order;
    const char *name;
    int action;
    bool in_post;
    ssize_t count;
    const char *trace;
} walk_tests[] = {
    { "continue, low", RP_WALK_LOW, NULL, 0, false, 8,
      "+cluster0 +node0 +socket0 +core0 -core0 +core1 -core1 -socket0 +gpu0 "
      "-gpu0 -node0 +node1 +core2 -core2 -node1 -cluster0" },
    { "continue, high", RP_WALK_HIGH, NULL, 0, false, 8,
      "+cluster0 +node1 +core2 -core2 -node1 +node0 +gpu0 -gpu0 +socket0 "
      "+core1 -core1 +core0 -core0 -socket0 -node0 -cluster0" },
    { "leaf at node0", RP_WALK_LOW, "node0", RP_WALK_LEAF, false, 4,
      "+cluster0 +node0 -node0 +node1 +core2 -core2 -node1 -cluster0" },
    { "skip at node0", RP_WALK_LOW, "node0", RP_WALK_SKIP, false, 4,
      "+cluster0 +node0 +node1 +core2 -core2 -node1 -cluster0" },
    { "skip at socket0, high", RP_WALK_HIGH, "socket0", RP_WALK_SKIP, false, 6,
      "+cluster0 +node1 +core2 -core2 -node1 +node0 +gpu0 -gpu0 +socket0 "
      "-node0 -cluster0" },
    { "stop at core1", RP_WALK_LOW, "core1", RP_WALK_STOP, false, 5,
      "+cluster0 +node0 +socket0 +core0 -core0 +core1" },
    { "stop in post at socket0", RP_WALK_LOW, "socket0", RP_WALK_STOP, true, 5,
      "+cluster0 +node0 +socket0 +core0 -core0 +core1 -core1 -socket0" },
    { "leaf and skip in post go on", RP_WALK_LOW, "socket0", RP_WALK_SKIP, true,
      8,
      "+cluster0 +node0 +socket0 +core0 -core0 +core1 -core1 -socket0 +gpu0 "
      "-gpu0 -node0 +node1 +core2 -core2 -node1 -cluster0" },
    { "stop at the start", RP_WALK_LOW, "cluster0", RP_WALK_STOP, false, 1,
      "+cluster0" },
    { "leaf at the start", RP_WALK_LOW, "cluster0", RP_WALK_LEAF, false, 1,
      "+cluster0 -cluster0" },
    { "stop in post of a leaf", RP_WALK_LOW, "core0", RP_WALK_STOP, true, 4,
      "+cluster0 +node0 +socket0 +core0 -core0" },
};

static void test_walk_actions (void)
{
    struct rp_graph *g = walk_graph ();
    rp_error_t e;
    struct rp_walk *w = rp_walk_create (g, "containment", &e);
    for (size_t i = 0; i < sizeof (walk_tests) / sizeof (walk_tests[0]); i++) {
        struct trace t = { .name = walk_tests[i].name,
                           .action = walk_tests[i].action,
                           .in_post = walk_tests[i].in_post };
        rp_walk_set_order (w, (enum rp_walk_order)walk_tests[i].order);
        rp_walk_set_filters (w, trace_pre, trace_post, &t);
        ssize_t n = rp_walk_run (w, 0, &e);
        ok (n == walk_tests[i].count, "%s: %zd visits", walk_tests[i].desc, n);
        is (t.buf, walk_tests[i].trace, "%s: sequence", walk_tests[i].desc);
    }
    /* a sub-walk from an inner vertex, no filters */
    rp_walk_set_filters (w, NULL, NULL, NULL);
    ok (rp_walk_run (w, 1, &e) == 5, "from node0 without filters: 5 visits");

    struct trace t = { .name = "core1", .action = 7 };
    rp_walk_set_order (w, RP_WALK_LOW);
    rp_walk_set_filters (w, trace_pre, trace_post, &t);
    errno = 0;
    ok (rp_walk_run (w, 0, &e) < 0 && errno == EINVAL,
        "a filter returning 7 fails the walk");
    is (e.text, "pre-order filter returned 7 at core1: not a walk action",
        "... with a message");
    t = (struct trace){ .name = "node1", .action = -1, .in_post = true };
    ok (rp_walk_run (w, 0, &e) < 0, "a post filter returning -1 fails");
    is (e.text, "post-order filter returned -1 at node1: not a walk action",
        "... with a message");
    ok (rp_walk_run (w, 8, &e) < 0, "start out of range");
    is (e.text, "no vertex 8", "... says so");
    rp_walk_destroy (w);

    errno = 0;
    ok (rp_walk_create (g, "network", &e) == NULL && errno == EINVAL,
        "walk over a subsystem the graph lacks fails");
    is (e.text, "no subsystem 'network'", "... with a message");
    rp_graph_destroy (g);

    g = rp_graph_create ();
    add (g, "cluster", 0);
    ok (rp_walk_create (g, "containment", &e) == NULL,
        "walk of a graph not finalized fails");
    is (e.text, "graph is not finalized", "... with a message");
    rp_graph_destroy (g);
}

static void test_walk_needs (void)
{
    struct rp_graph *g = walk_graph ();
    struct rp_gstate *s = graph_live (g);
    rp_error_t e;
    struct rp_walk *w = rp_walk_create (g, "containment", &e);
    struct trace t = { .name = NULL };
    rp_walk_set_filters (w, trace_pre, NULL, &t);
    gstate_take (s, 3, 1, true); /* core0 */
    gstate_take (s, 7, 1, true); /* core2 */
    ok (rp_walk_need (w, "core", 1, &e) == 0, "need 1 core");
    ok (rp_walk_run (w, 0, &e) == 4, "4 visits");
    is (t.buf, "+cluster0 +node0 +socket0 +core1",
        "full subtrees are skipped before the filter");
    ok (rp_walk_need (w, "core", 2, &e) == 0
            && rp_walk_need (w, "core", 1, &e) == 0,
        "need 2 cores, then 1: 2 kept");
    t.buf[0] = '\0';
    ok (rp_walk_run (w, 0, &e) == 0 && !strcmp (t.buf, ""),
        "need 2 cores: the start cannot hold them, nothing visited");
    rp_walk_clear_needs (w);
    ok (rp_walk_need (w, "gpu", 1, &e) == 0
            && rp_walk_need (w, "core", 1, &e) == 0,
        "need a gpu and a core");
    t.buf[0] = '\0';
    rp_walk_set_order (w, RP_WALK_HIGH);
    ok (rp_walk_run (w, 0, &e) == 2, "2 visits");
    is (t.buf, "+cluster0 +node0",
        "needs apply to each child: neither gpu0 nor socket0 holds both");
    rp_walk_clear_needs (w);
    ok (rp_walk_need (w, "nic", 1, &e) == 0 && rp_walk_run (w, 0, &e) == 0,
        "need of a type the graph lacks: nothing visited");
    rp_walk_clear_needs (w);
    ok (rp_walk_need (w, "nic", 0, &e) == 0 && rp_walk_run (w, 0, &e) == 8,
        "need 0: no need");
    rp_walk_clear_needs (w);
    rp_graph_set_state (g, 6, RP_VERTEX_DOWN, &e); /* node1 */
    t.buf[0] = '\0';
    rp_walk_set_order (w, RP_WALK_LOW);
    ok (rp_walk_run (w, 0, &e) == 8, "no needs: down vertices are visited");
    rp_walk_destroy (w);
    rp_graph_destroy (g);
}
static void edge (struct rp_graph *g, rp_vertex_t a, rp_vertex_t b,
                  const char *sub, const char *type)
{
    rp_error_t e;
    if (rp_graph_add_edge (g, a, b, sub, type, &e) < 0)
        BAIL_OUT ("edge %u -> %u: %s", a, b, e.text);
}

static void test_walk_other (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_create ();
    rp_vertex_t c = add (g, "cluster", 0);
    rp_vertex_t a = add (g, "switch", 1);
    rp_vertex_t b = add (g, "switch", 2);
    rp_vertex_t d = add (g, "switch", 3);
    rp_vertex_t x = add (g, "switch", 4);
    contain (g, c, a);
    contain (g, c, b);
    contain (g, c, d);
    contain (g, c, x);
    edge (g, a, d, "net", "conduit-of"); /* added before a -> b */
    edge (g, a, b, "net", "conduit-of");
    edge (g, b, d, "net", "conduit-of");
    edge (g, d, a, "net", "conduit-of"); /* a cycle */
    edge (g, d, x, "net", "in");         /* "in" edges are not followed */
    edge (g, b, x, "power", "feeds");    /* another subsystem */
    edge (g, a, a, "net", "loop");
    if (rp_graph_finalize (g, &e) < 0)
        BAIL_OUT ("net graph: %s", e.text);
    struct rp_walk *w = rp_walk_create (g, "net", &e);
    struct trace t = { .name = NULL };
    rp_walk_set_filters (w, trace_pre, trace_post, &t);
    ok (rp_walk_run (w, a, &e) == 3, "net walk from switch1: 3 visits");
    is (t.buf, "+switch1 +switch2 +switch3 -switch3 -switch2 -switch1",
        "each vertex once, targets in ascending handle order");
    t.buf[0] = '\0';
    rp_walk_set_order (w, RP_WALK_HIGH);
    ok (rp_walk_run (w, a, &e) == 3, "high: 3 visits");
    is (t.buf, "+switch1 +switch3 -switch3 +switch2 -switch2 -switch1",
        "high: descending targets; switch2 reached once");
    t = (struct trace){ .name = "switch3", .action = RP_WALK_SKIP };
    rp_walk_set_order (w, RP_WALK_LOW);
    ok (rp_walk_run (w, a, &e) == 3
            && !strcmp (t.buf, "+switch1 +switch2 +switch3 -switch2 -switch1"),
        "skip in another subsystem: %s", t.buf);
    t = (struct trace){ .name = "switch2", .action = RP_WALK_SKIP };
    rp_walk_set_order (w, RP_WALK_HIGH);
    ok (rp_walk_run (w, a, &e) == 3
            && !strcmp (t.buf, "+switch1 +switch3 -switch3 +switch2 -switch1"),
        "a skipped vertex is still visited once: %s", t.buf);
    errno = 0;
    ok (rp_walk_need (w, "switch", 1, &e) < 0 && errno == EINVAL,
        "needs in another subsystem fail");
    is (e.text, "needs apply to the containment subsystem only",
        "... with a message");
    rp_walk_destroy (w);
    w = rp_walk_create (g, "power", &e);
    ok (w && rp_walk_run (w, b, &e) == 2, "power walk: 2 visits");
    ok (rp_walk_run (w, c, &e) == 1, "power walk from the cluster: 1 visit");
    rp_walk_destroy (w);
    rp_graph_destroy (g);
}

#define CHAIN 1000000

static void test_walk_chain (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_create ();
    rp_vertex_t root = add (g, "cluster", 0);
    for (int i = 0; i < CHAIN; i++)
        contain (g, root, add (g, "pdu", i));
    for (rp_vertex_t v = 1; v < CHAIN; v++)
        edge (g, v, v + 1, "power", "conduit-of");
    if (rp_graph_finalize (g, &e) < 0)
        BAIL_OUT ("chain: %s", e.text);
    struct rp_walk *w = rp_walk_create (g, "power", &e);
    ok (rp_walk_run (w, 1, &e) == CHAIN,
        "a chain of a million conduit-of edges: every vertex visited");
    rp_walk_destroy (w);
    w = rp_walk_create (g, "containment", &e);
    rp_walk_need (w, "pdu", 1, &e);
    gstate_take (graph_live (g), 1, 1, true);
    ok (rp_walk_run (w, root, &e) == CHAIN, "the root and 999999 free of a"
                                            " million children");
    rp_walk_destroy (w);
    rp_graph_destroy (g);

    g = rp_graph_create ();
    for (int i = 0; i < CHAIN; i++) {
        rp_vertex_t v = add (g, "level", i);
        if (i > 0)
            contain (g, v - 1, v);
    }
    ok (rp_graph_finalize (g, &e) == 0, "a containment chain a million deep");
    w = rp_walk_create (g, "containment", &e);
    ok (rp_walk_run (w, 0, &e) == CHAIN, "walked to the bottom");
    int t = rp_graph_type_index (g, "level");
    ok (rp_graph_set_state (g, CHAIN / 2, RP_VERTEX_DOWN, &e) == 0
            && rp_graph_subtree_free (g, 0, t) == CHAIN / 2
            && gstate_take (graph_live (g), CHAIN - 1, 1, true) < 0,
        "down in the middle: the lower half is not free");
    rp_walk_need (w, "level", 1, &e);
    ok (rp_walk_run (w, 0, &e) == CHAIN / 2, "needs: walk ends at the down"
                                             " vertex");
    ok (gstate_check (graph_live (g), &e) == 0, "state checks");
    rp_walk_destroy (w);
    rp_graph_destroy (g);
}

/* --- accumulator ----------------------------------------------------- */

static const char *accum_str (const struct rp_accum *a)
{
    static char buf[256];
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < rp_accum_count (a); i++)
        len += (size_t)snprintf (buf + len, sizeof (buf) - len, "%s%u:%lld",
                                 i ? " " : "", rp_accum_vertex (a, i),
                                 (long long)rp_accum_score (a, i));
    return buf;
}

static void test_accum (void)
{
    struct rp_accum *a = rp_accum_create (0);
    const int64_t sc[] = { 5, 3, 5, 7, 3, -2, 7 };
    for (rp_vertex_t v = 0; v < 7; v++)
        rp_accum_push (a, v, sc[v]);
    is (accum_str (a), "3:7 6:7 0:5 2:5 1:3 4:3 5:-2",
        "descending; ties in push order");
    ok (rp_accum_vertex (a, 7) == RP_VERTEX_NONE && rp_accum_score (a, 7) == 0,
        "out of range");
    rp_accum_clear (a);
    ok (rp_accum_count (a) == 0, "clear");
    for (rp_vertex_t v = 0; v < 1000; v++)
        rp_accum_push (a, v, v % 10);
    ok (rp_accum_count (a) == 1000 && rp_accum_vertex (a, 0) == 9
            && rp_accum_vertex (a, 1) == 19 && rp_accum_vertex (a, 999) == 990,
        "1000 pushes");
    rp_accum_destroy (a);

    /* The end reached without a search (a score no higher than the last)
     * and by one (higher), in turns. */
    a = rp_accum_create (0);
    const int64_t run[] = { 4, 4, 2, 6, 2, 2, 4, 9, 9, 1 };
    for (rp_vertex_t v = 0; v < 10; v++)
        rp_accum_push (a, v, run[v]);
    is (accum_str (a), "7:9 8:9 3:6 0:4 1:4 6:4 2:2 4:2 5:2 9:1",
        "equal and lower scores appended, higher ones placed before");
    rp_accum_destroy (a);

    a = rp_accum_create (3);
    for (rp_vertex_t v = 0; v < 7; v++)
        rp_accum_push (a, v, sc[v]);
    is (accum_str (a), "3:7 6:7 0:5", "capacity 3 keeps the best");
    rp_accum_push (a, 9, 5);
    is (accum_str (a), "3:7 6:7 0:5", "a tie with the last does not make it");
    rp_accum_push (a, 10, 6);
    is (accum_str (a), "3:7 6:7 10:6", "a better one drops the last");
    rp_accum_push (a, 11, 8);
    is (accum_str (a), "11:8 3:7 6:7", "the best goes first");
    rp_accum_destroy (a);

    a = rp_accum_create (1);
    rp_accum_push (a, 1, 1);
    rp_accum_push (a, 2, 1);
    rp_accum_push (a, 3, 0);
    is (accum_str (a), "1:1", "capacity 1: the first of the best");
    rp_accum_destroy (a);
    errno = 0;
    ok (rp_accum_push (NULL, 1, 1) < 0 && errno == EINVAL, "push to NULL");
    rp_accum_destroy (NULL);
}

/* --- bounds ---------------------------------------------------------- */

static const struct {
    const char *text;
    uint64_t bytes;
    const char *error;
} sizes[] = {
    { "1048576", 1048576, NULL },
    { "1536MB", 1610612736, NULL },
    { "2GB", 2147483648, NULL },
    { "2GiB", 2147483648, NULL },
    { "1TB", 1099511627776, NULL },
    { "1MB", 1048576, NULL },
    { "1048575", 0, "memory limit \"1048575\": less than 1MB" },
    { "1023KB", 0, "memory limit \"1023KB\": less than 1MB" },
    { "", 0,
      "memory limit \"\": a whole number of bytes, or with a unit: KB, MB, "
      "GB, TB" },
    { "GB", 0,
      "memory limit \"GB\": a whole number of bytes, or with a unit: KB, MB, "
      "GB, TB" },
    { "2X", 0,
      "memory limit \"2X\": a whole number of bytes, or with a unit: KB, MB, "
      "GB, TB" },
    { "2 GB", 0,
      "memory limit \"2 GB\": a whole number of bytes, or with a unit: KB, "
      "MB, GB, TB" },
    { "2gb", 0,
      "memory limit \"2gb\": a whole number of bytes, or with a unit: KB, "
      "MB, GB, TB" },
    { "-2GB", 0,
      "memory limit \"-2GB\": a whole number of bytes, or with a unit: KB, "
      "MB, GB, TB" },
    { "99999999999999999999", 0,
      "memory limit \"99999999999999999999\": too large" },
    { "20000PB", 0, "memory limit \"20000PB\": too large" },
};

static void test_memory_limit (void)
{
    rp_error_t e;

    ok (rp_graph_memory_limit () == RP_GRAPH_MEMORY_DEFAULT,
        "the memory limit is 1.5 GiB by default");
    errno = 0;
    ok (rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN - 1) < 0
            && errno == EINVAL
            && rp_graph_memory_limit () == RP_GRAPH_MEMORY_DEFAULT,
        "a limit below 1 MiB fails with EINVAL and changes nothing");
    ok (rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN) == 0
            && rp_graph_memory_limit () == RP_GRAPH_MEMORY_MIN,
        "1 MiB is a limit");
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_DEFAULT);
    for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
        uint64_t bytes = 0;
        int rc = rp_graph_memory_parse (sizes[i].text, &bytes, &e);
        if (sizes[i].error)
            is (rc < 0 ? e.text : "parsed", sizes[i].error, "size \"%s\": %s",
                sizes[i].text, sizes[i].error);
        else
            ok (rc == 0 && bytes == sizes[i].bytes, "size \"%s\" is %" PRIu64,
                sizes[i].text, sizes[i].bytes);
    }
    ok (rp_graph_memory_parse (NULL, NULL, &e) < 0 && errno == EINVAL,
        "parse (NULL) fails with EINVAL");
}

/* graph_memory follows the code: each count costs what is allocated for
 * it, at the larger of the two peaks. */
static void test_memory_model (void)
{
    struct graph_size one = { .vertices = 1000, .edges = 999 }, z;
    uint64_t base = graph_memory (&one);

    z = one;
    z.vertices++;
    ok (graph_memory (&z) - base == COST_VERTEX + 2 * COST_STATE + COST_MATCHER,
        "a vertex costs its struct, tree arrays, two states and a matcher");
    z = one;
    z.edges = 1999;
    ok (graph_memory (&z) == base,
        "edge records cost nothing while the second state costs more");
    z.edges = 100000;
    ok (graph_memory (&z)
            == 1000 * (COST_VERTEX + COST_FINALIZING + COST_STATE)
                   + 100000 * COST_EDGE_RECORD,
        "... but many of them make finalize the peak");
    z = one;
    z.interior = 1000;
    z.types = 1000;
    ok (graph_memory (&z) >= 3 * 8 * 1000000,
        "interior vertices x types cost three aggregates each");
    z.vertices = UINT64_MAX;
    ok (graph_memory (&z) == UINT64_MAX, "the estimate saturates");
    z = one;
    z.explicit_edges = 10;
    ok (graph_memory (&z) - base == 10 * COST_EDGE + 1001 * COST_EDGE_OFF,
        "explicit edges cost their lists and the offsets of every vertex");
}

/* Allocated bytes, where mallinfo2 counts them (not under a sanitizer). */
static size_t allocated (void)
{
    struct mallinfo2 m = mallinfo2 ();
    return m.uordblks + m.hblkhd;
}

/* The estimate is not less than what the graph, its pristine state and a
 * matcher over it take. */
static void test_memory_honest (const char *spec)
{
    rp_error_t e;
    size_t before = allocated ();
    struct gen x;
    uint64_t count, need;
    struct rp_graph *g = rp_graph_generate (spec, &e);
    struct rp_matcher *m;

    if (!g || gen_parse (&x, spec, &e) < 0 || gen_count (&x, &count, &e) < 0)
        BAIL_OUT ("generate %s: %s", spec, e.text);
    graph_pristine (g);
    if (!(m = rp_matcher_create (g, &e)))
        BAIL_OUT ("matcher: %s", e.text);
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN);
    ok (gen_memory (&x, count, &e) < 0, "%s: refused under 1 MiB", spec);
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_DEFAULT);
    need = strtoull (strstr (e.text, "about ") + 6, NULL, 10) << 20;
    ok (need >= allocated () - before,
        "%s: the estimate, %" PRIu64 " MiB, holds what it allocates, %zu KiB",
        spec, need >> 20, (allocated () - before) >> 10);
    rp_matcher_destroy (m);
}

static void test_generate_memory (void)
{
    rp_error_t e;
    struct rp_graph *g;

    g = rp_graph_generate ("nodes=1000000,sockets=2,cores=16", &e);
    ok (!g && errno == E2BIG, "a spec past the memory limit fails (E2BIG)");
    is (e.text,
        "spec makes 35000001 vertices, which need about 3425 MiB, more than "
        "the memory limit of 1536 MiB",
        "... naming the estimate and the limit");
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN);
    g = rp_graph_generate ("nodes=10000", &e);
    is (g ? "built" : e.text,
        "spec makes 30001 vertices, which need about 6 MiB, more than the "
        "memory limit of 1 MiB",
        "the limit is the one set");
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_DEFAULT);
    g = rp_graph_generate ("nodes=1000,sockets=2,cores=16", &e);
    ok (g != NULL, "a spec within the limit builds");
    rp_graph_destroy (g);
}

/* Interior vertices x types is what no builder sees coming: a chain of
 * vertices of distinct types. */
static void test_finalize_memory (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_create ();
    char type[32];
    rp_vertex_t prev = RP_VERTEX_NONE;

    for (int i = 0; i < 400; i++) {
        snprintf (type, sizeof (type), "t%d", i);
        rp_vertex_t v = add (g, type, i);
        if (prev != RP_VERTEX_NONE)
            contain (g, prev, v);
        prev = v;
    }
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN);
    errno = 0;
    ok (rp_graph_finalize (g, &e) < 0 && errno == E2BIG
            && !rp_graph_is_finalized (g),
        "finalize refuses a graph past the limit (E2BIG)");
    is (e.text,
        "400 vertices of 400 types need about 4 MiB, more than the memory "
        "limit of 1 MiB",
        "... naming vertices and types");
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_DEFAULT);
    ok (rp_graph_finalize (g, &e) == 0, "within the limit it finalizes");
    rp_graph_destroy (g);

    g = rp_graph_create ();
    add (g, "node", 0);
    graph_set_reserved (g, RP_GRAPH_MEMORY_DEFAULT);
    ok (rp_graph_finalize (g, &e) < 0 && errno == E2BIG,
        "what the builder holds counts against the limit");
    is (e.text,
        "1 vertices of 1 types need about 1537 MiB, more than the memory "
        "limit of 1536 MiB",
        "... in the estimate named");
    rp_graph_destroy (g);
}

/* The generator keeps no edge records (containment by parent,
 * core/graph_impl.h); finalize refused past the limit leaves its graph as
 * it was, and then makes the graph rp_graph_generate makes. */
static void test_builder_retry (void)
{
    const char *spec = "nodes=1000,sockets=2,cores=16,gpus=2";
    rp_error_t e;
    struct gen x;
    struct gen_ids id;
    uint64_t count;
    struct rp_graph *g = rp_graph_create ();
    struct rp_graph *want = rp_graph_generate (spec, &e);
    char *a, *b;

    if (!g || !want || gen_parse (&x, spec, &e) < 0
        || gen_count (&x, &count, &e) < 0
        || graph_reserve (g, count, 0, x.val[K_NODES]) < 0
        || gen_intern (g, &x, &id) < 0 || gen_build (g, &x, &id) < 0)
        BAIL_OUT ("generate %s", spec);
    ok (g->n == count && g->nerec == 0 && !g->erec,
        "the generator's %" PRIu32 " vertices: no edge records", g->n);
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN);
    errno = 0;
    ok (rp_graph_finalize (g, &e) < 0 && errno == E2BIG
            && !rp_graph_is_finalized (g),
        "its finalize past the limit fails");
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_DEFAULT);
    ok (rp_graph_finalize (g, &e) == 0, "... then finalizes");
    a = rp_graph_encode (g, RP_GRAPH_JSON);
    b = rp_graph_encode (want, RP_GRAPH_JSON);
    ok (a && b && !strcmp (a, b), "... into the graph generated at once");
    ok (!g->edge_off && !g->edge && rp_graph_nedges (g, 1) == 2
            && rp_graph_edge_target (g, 1, 1)
                   == rp_graph_child_next (g, rp_graph_child_first (g, 1)),
        "no vertex is explicit: no out-edge lists, edges from the children");
    free (a);
    free (b);
    rp_graph_destroy (g);
    rp_graph_destroy (want);
}

/* An explicit vertex (a conduit-of edge) in a graph whose finalize is
 * refused: the flags as they were, then finalized with its edges. */
static void test_explicit_retry (void)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_create ();
    char type[32];
    rp_vertex_t v[400];
    uint8_t flags[400];
    bool same = true;

    for (int i = 0; i < 400; i++) {
        snprintf (type, sizeof (type), "t%d", i);
        v[i] = add (g, type, i);
        if (i > 0)
            contain (g, v[i - 1], v[i]);
    }
    if (rp_graph_add_edge (g, v[1], v[0], "net", "conduit-of", &e) < 0)
        BAIL_OUT ("edge: %s", e.text);
    for (int i = 0; i < 400; i++)
        flags[i] = g->v[v[i]].flags;
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_MIN);
    ok (rp_graph_finalize (g, &e) < 0 && errno == E2BIG,
        "a graph with a conduit-of edge past the limit is refused");
    rp_graph_set_memory_limit (RP_GRAPH_MEMORY_DEFAULT);
    for (int i = 0; i < 400; i++)
        same = same && g->v[v[i]].flags == flags[i];
    ok (same, "... its vertices' flags as they were (none explicit)");
    ok (rp_graph_finalize (g, &e) == 0 && g->edge_off
            && rp_graph_nedges (g, v[1]) == 2
            && rp_graph_edge_target (g, v[1], 0) == v[2]
            && rp_graph_edge_target (g, v[1], 1) == v[0]
            && rp_graph_nedges (g, v[0]) == 1,
        "... then finalized: explicit edges in the order added");
    rp_graph_destroy (g);
}

int main (void)
{
    plan (NO_PLAN);
    test_build_errors ();
    test_finalize_retry ();
    test_max_vertices ();
    test_accessors ();
    test_tags ();
    test_navigation ();
    test_aggregates ();
    test_states ();
    test_unit_bytes ();
    test_generate ();
    test_generate_errors ();
    /* a rack of 66 nodes and sockets of 68 children: one summary level */
    test_random_states ("nodes=66,racks=1,cores=65,gpus=2,memory=16GB", false);
    /* a rack of 300 nodes: two levels */
    test_random_states ("nodes=300,racks=1,memory=2", false);
    /* whole subtrees: a rack with summaries, nodes, sockets, leaves */
    test_random_states ("nodes=66,racks=1,cores=65,gpus=2,memory=16GB", true);
    test_random_states ("nodes=300,racks=2,cores=2", true);
    test_whole ();
    test_subtree_deep ();
    test_whole_check ();
    test_whole_many_inner ();
    test_sizes ();
    test_take_leaves ();
    test_put_whole_many ();
    test_index_rebuild ();
    test_take_refusals ();
    test_check_finds ();
    test_child_pos ();
    test_child_fit ();
    test_fit_cursor ();
    test_leaf_idle ();
    test_leaf_kids ();
    test_fit_again ();
    test_fit_two ();
    test_fit_next_one ();
    test_block_maxima ();
    test_fit_skips ();
    test_walk_actions ();
    test_walk_needs ();
    test_walk_other ();
    test_walk_chain ();
    test_accum ();
    test_memory_limit ();
    test_memory_model ();
    test_generate_memory ();
    test_finalize_memory ();
    test_builder_retry ();
    test_explicit_retry ();
    test_memory_honest ("nodes=2000,sockets=2,cores=16,gpus=4,memory=256GB");
    test_memory_honest ("nodes=20000");
    test_memory_honest ("nodes=100,racks=10,sockets=4,cores=64");
    return done_testing ();
}
