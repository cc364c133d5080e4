/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for RFC 34 task maps: shell/taskmap.c.
 *
 * The RFC's test vectors (raw <-> JSON), its tables of regular
 * distributions (block, cyclic:1, cyclic:2, also in RFC 13's PMI form),
 * every lookup checked against the raw form, and hostile input.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/taskmap.h"
#include "t/tap/tap.h"

static struct rp_taskmap *dec (const char *s)
{
    rp_error_t e;
    struct rp_taskmap *map = rp_taskmap_decode (s, &e);

    if (!map)
        BAIL_OUT ("decode %s: %s", s, e.text);
    return map;
}

/* map encodes as expected with flags.  Destroys nothing. */
static void encodes_as (const struct rp_taskmap *map, int flags,
                        const char *expected, const char *what)
{
    char *s = rp_taskmap_encode (map, flags);

    is (s, expected, "%s", what);
    free (s);
}

/* --- RFC 34 test vectors ------------------------------------------------ */

static const struct {
    const char *raw;
    const char *json;
} vectors[] = {
    { "0", "[[0,1,1,1]]" },
    { "0;1", "[[0,2,1,1]]" },
    { "0-1", "[[0,1,2,1]]" },
    { "0-1;2-3", "[[0,2,2,1]]" },
    { "0,2;1,3", "[[0,2,1,2]]" },
    { "1;0", "[[1,1,1,1],[0,1,1,1]]" },
    { "0-3;4-7;8-11;12-15", "[[0,4,4,1]]" },
    { "0,4,8,12;1,5,9,13;2,6,10,14;3,7,11,15", "[[0,4,1,4]]" },
    { "0-1,8-9;2-3,10-11;4-5,12-13;6-7,14-15", "[[0,4,2,2]]" },
    { "0-1;2-3;4-5;6-7;8-11;12-15", "[[0,4,2,1],[4,2,4,1]]" },
    { "0,6;1,7;2,8;3,9;4,10,12,14;5,11,13,15", "[[0,6,1,2],[4,2,1,2]]" },
    { "14-15;12-13;10-11;8-9;4-7;0-3",
      "[[5,1,4,1],[4,1,4,1],[3,1,2,1],[2,1,2,1],[1,1,2,1],[0,1,2,1]]" },
    { "0-1;2-3;4-5;6-7;8-9;12-13;10-11;14-15",
      "[[0,5,2,1],[6,1,2,1],[5,1,2,1],[7,1,2,1]]" },
    { "12-15;8-11;4-7;0-3", "[[3,1,4,1],[2,1,4,1],[1,1,4,1],[0,1,4,1]]" },
};

/* Every lookup of map agrees with the raw form. */
static void check_lookups (const struct rp_taskmap *map, const char *raw)
{
    char *copy = strdup (raw);
    char *save = NULL;
    unsigned int node = 0;
    bool good = true;
    size_t ntasks = 0;

    for (char *tok = strtok_r (copy, ";", &save); tok;
         tok = strtok_r (NULL, ";", &save), node++) {
        struct rp_idset *ids = rp_taskmap_tasks_of (map, node);
        char *s = rp_idset_encode (ids, 0);
        char *t = rp_idset_encode (ids, RP_IDSET_RANGES);
        if (strcmp (s, tok) != 0 && strcmp (t, tok) != 0)
            good = false;
        if (rp_taskmap_node_ntasks (map, node) != rp_idset_count (ids))
            good = false;
        for (unsigned int id = rp_idset_first (ids); id != RP_IDSET_INVALID_ID;
             id = rp_idset_next (ids, id))
            if (rp_taskmap_task_node (map, id) != node)
                good = false;
        ntasks += rp_idset_count (ids);
        free (s);
        free (t);
        rp_idset_destroy (ids);
    }
    ok (good && ntasks == rp_taskmap_ntasks (map)
            && node == rp_taskmap_nnodes (map),
        "lookups of %s agree with its raw form", raw);
    free (copy);
}

static void test_vectors (void)
{
    for (size_t i = 0; i < sizeof (vectors) / sizeof (vectors[0]); i++) {
        struct rp_taskmap *a = dec (vectors[i].raw);
        struct rp_taskmap *b = dec (vectors[i].json);
        encodes_as (a, 0, vectors[i].json, vectors[i].raw);
        encodes_as (b, RP_TASKMAP_RAW, vectors[i].raw, vectors[i].json);
        encodes_as (b, 0, vectors[i].json, "JSON round trip");
        check_lookups (b, vectors[i].raw);
        rp_taskmap_destroy (a);
        rp_taskmap_destroy (b);
    }
}

static void test_unknown (void)
{
    struct rp_taskmap *map = dec ("[]");

    ok (rp_taskmap_unknown (map) && rp_taskmap_ntasks (map) == 0
            && rp_taskmap_nnodes (map) == 0,
        "[] is the unknown mapping");
    encodes_as (map, 0, "[]", "unknown: JSON");
    encodes_as (map, RP_TASKMAP_PMI, "", "unknown: PMI is empty (RFC 13)");
    encodes_as (map, RP_TASKMAP_RAW, "", "unknown: raw is empty");
    encodes_as (map, RP_TASKMAP_WRAPPED, "{\"version\":1,\"map\":[]}",
                "unknown: wrapped");
    errno = 0;
    ok (rp_taskmap_task_node (map, 0) == -1 && errno == ENOENT,
        "unknown: task 0 has no node (ENOENT)");
    rp_taskmap_destroy (map);
    map = dec ("");
    ok (rp_taskmap_unknown (map),
        "\"\" (empty PMI_process_mapping) is unknown");
    rp_taskmap_destroy (map);
    map = dec ("{\"version\":1,\"map\":[]}");
    ok (rp_taskmap_unknown (map), "wrapped [] is unknown");
    rp_taskmap_destroy (map);
}

/* --- regular distributions (RFC 34 and RFC 13 tables) ------------------- */

/* counts[i] tasks on node i, dealt stride at a time round robin (stride 0:
 * block), as a launcher builds its map. */
static struct rp_taskmap *build (const unsigned int *counts, unsigned int n,
                                 unsigned int stride)
{
    struct rp_taskmap *map = rp_taskmap_create ();
    unsigned int *left = calloc (n, sizeof (*left));
    bool more = true;

    memcpy (left, counts, n * sizeof (*left));
    while (more) {
        more = false;
        for (unsigned int i = 0; i < n; i++) {
            unsigned int k = stride && stride < left[i] ? stride : left[i];
            if (k == 0)
                continue;
            if (rp_taskmap_append (map, i, 1, k, NULL) < 0)
                BAIL_OUT ("append failed");
            left[i] -= k;
            more = true;
        }
    }
    free (left);
    return map;
}

static void test_distributions (void)
{
    unsigned int c44[] = { 4, 4, 4, 4 };
    unsigned int c4224[] = { 2, 2, 2, 2, 4, 4 };
    unsigned int *big = malloc (4096 * sizeof (*big));
    const struct {
        unsigned int *counts;
        unsigned int n;
        unsigned int stride;
        const char *json, *pmi;
    } t[] = {
        { c44, 4, 0, "[[0,4,4,1]]", "(vector,(0,4,4))" },
        { c44, 4, 1, "[[0,4,1,4]]",
          "(vector,(0,4,1),(0,4,1),(0,4,1),(0,4,1))" },
        { c44, 4, 2, "[[0,4,2,2]]", "(vector,(0,4,2),(0,4,2))" },
        { c4224, 6, 0, "[[0,4,2,1],[4,2,4,1]]", "(vector,(0,4,2),(4,2,4))" },
        { c4224, 6, 1, "[[0,6,1,2],[4,2,1,2]]",
          "(vector,(0,6,1),(0,6,1),(4,2,1),(4,2,1))" },
        { c4224, 6, 2, "[[0,6,2,1],[4,2,2,1]]", "(vector,(0,6,2),(4,2,2))" },
    };

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        struct rp_taskmap *map = build (t[i].counts, t[i].n, t[i].stride);
        struct rp_taskmap *back;
        encodes_as (map, 0, t[i].json, t[i].json);
        encodes_as (map, RP_TASKMAP_PMI, t[i].pmi, t[i].pmi);
        back = dec (t[i].pmi);
        encodes_as (back, 0, t[i].json, "PMI form decodes to the same blocks");
        rp_taskmap_destroy (back);
        rp_taskmap_destroy (map);
    }
    for (int i = 0; i < 4096; i++)
        big[i] = 256;
    for (unsigned int stride = 0; stride <= 2; stride++) {
        struct rp_taskmap *map = build (big, 4096, stride);
        const char *want[] = { "[[0,4096,256,1]]", "[[0,4096,1,256]]",
                               "[[0,4096,2,128]]" };
        encodes_as (map, 0, want[stride], "4096*256");
        ok (rp_taskmap_ntasks (map) == 1048576
                && rp_taskmap_task_node (map, 1048575) == 4095
                && rp_taskmap_task_node (map, 4096)
                       == (stride ? 4096 / stride % 4096 : 16),
            "4096*256 %s: ntasks and task_node", want[stride]);
        rp_taskmap_destroy (map);
    }
    free (big);
}

/* --- other forms and lookups -------------------------------------------- */

static void test_forms (void)
{
    struct rp_taskmap *map = dec ("{\"version\":1,\"map\":[[0,4096,256,1]]}");
    struct rp_taskmap *copy;
    struct rp_idset *ids;
    unsigned int v[4];

    encodes_as (map, 0, "[[0,4096,256,1]]", "wrapped form decodes");
    encodes_as (map, RP_TASKMAP_WRAPPED,
                "{\"version\":1,\"map\":[[0,4096,256,1]]}",
                "wrapped form encodes as flux-core writes it");
    ok (rp_taskmap_nblocks (map) == 1
            && rp_taskmap_block (map, 0, &v[0], &v[1], &v[2], &v[3])
            && v[0] == 0 && v[1] == 4096 && v[2] == 256 && v[3] == 1
            && !rp_taskmap_block (map, 1, NULL, NULL, NULL, NULL),
        "blocks are visible as stored");
    ok (rp_taskmap_node_ntasks (map, 4095) == 256
            && rp_taskmap_node_ntasks (map, 4096) == 0,
        "node_ntasks: 256 on the last node, 0 past it");
    ids = rp_taskmap_tasks_of (map, 4096);
    ok (ids && rp_idset_empty (ids), "tasks_of a node without tasks is empty");
    rp_idset_destroy (ids);
    errno = 0;
    ok (rp_taskmap_task_node (map, 1048576) == -1 && errno == ENOENT,
        "task_node past the last task fails with ENOENT");
    copy = rp_taskmap_copy (map);
    encodes_as (copy, 0, "[[0,4096,256,1]]", "copy has the same blocks");
    rp_taskmap_destroy (copy);
    rp_taskmap_destroy (map);

    map = dec ("0;;1");
    encodes_as (map, 0, "[[0,1,1,1],[2,1,1,1]]",
                "raw: an empty element is a node without tasks");
    encodes_as (map, RP_TASKMAP_RAW, "0;;1", "raw: written back with the hole");
    rp_taskmap_destroy (map);

    map = dec ("[[0,2,1,1],[0,2,1,1]]");
    encodes_as (map, 0, "[[0,2,1,1],[0,2,1,1]]",
                "JSON blocks are kept as written");
    encodes_as (map, RP_TASKMAP_RAW, "0,2;1,3", "and mean what they say");
    rp_taskmap_destroy (map);

    map = dec ("[[0,1,1,2]]");
    ok (rp_taskmap_append (map, 0, 1, 1, NULL) == 0, "append after a repeat");
    encodes_as (map, 0, "[[0,1,1,3]]",
                "a repeated single-node block counts one more repeat");
    ok (rp_taskmap_ntasks (map) == 3, "and holds 3 tasks");
    rp_taskmap_destroy (map);
}

/* --- hostile input ------------------------------------------------------ */

static const struct {
    const char *in;
    const char *error;
} bad[] = {
    { "[[0,1,1]]", "taskmap: map[0]: must be an array of 4 integers "
                   "[nodeid, nnodes, ppn, repeat]" },
    { "[[0,1,1,1,1]]", "taskmap: map[0]: must be an array of 4 integers "
                       "[nodeid, nnodes, ppn, repeat]" },
    { "[7]", "taskmap: map[0]: must be an array of 4 integers "
             "[nodeid, nnodes, ppn, repeat]" },
    { "[[-1,1,1,1]]", "taskmap: map[0]: nodeid must be >= 0" },
    { "[[0,1,1,1],[0,0,1,1]]", "taskmap: map[1]: nnodes must be >= 1" },
    { "[[0,1,-4,1]]", "taskmap: map[0]: ppn must be >= 1" },
    { "[[0,1,1,0]]", "taskmap: map[0]: repeat must be >= 1" },
    { "[[0,1,1.5,1]]", "taskmap: map[0]: ppn must be an integer" },
    { "[[0,\"1\",1,1]]", "taskmap: map[0]: nnodes must be an integer" },
    { "[[1048576,1,1,1]]",
      "taskmap: map[0]: node 1048576 is above the largest node id 1048575" },
    { "[[1048000,1000,1,1]]",
      "taskmap: map[0]: node 1048999 is above the largest node id 1048575" },
    { "[[0,1,9223372036854775807,1]]",
      "taskmap: map[0]: more than 2147483647 tasks" },
    { "[[0,1048576,2048,1]]", "taskmap: map[0]: more than 2147483647 tasks" },
    { "[[0,1,2147483647,1],[0,1,1,1]]",
      "taskmap: map[1]: more than 2147483647 tasks" },
    { "[[0,2,1,1048577]]",
      "taskmap: map[0]: more than 1048576 blocks (counting repeats)" },
    { "[[0,1,1,1048576],[0,1,1,1]]",
      "taskmap: map[1]: more than 1048576 blocks (counting repeats)" },
    { "{\"version\":2,\"map\":[]}", "taskmap: version: must be 1" },
    { "{\"map\":[]}", "taskmap: version: missing" },
    { "{\"version\":1}", "taskmap: map: missing" },
    { "{\"version\":1,\"map\":{}}", "taskmap: map: must be an array" },
    { "{\"version\":1,\"map\":[],\"x\":1}", "taskmap: \"x\": unknown key" },
    { "[[0,1,1,1]", "taskmap: not valid JSON: ']' expected near end of file "
                    "(offset 10)" },
    { "(vector,(0,4))", "taskmap: PMI: \"(vector,(0,4))\": expected ',' at "
                        "offset 12" },
    { "(vector,(0,4,4)", "taskmap: PMI: \"(vector,(0,4,4)\": expected ')' at "
                         "offset 15" },
    { "(vector,(0,4,4)) x", "taskmap: PMI: \"(vector,(0,4,4)) x\": trailing "
                            "characters at offset 16" },
    { "(vector,)", "taskmap: PMI: \"(vector,)\": expected '(' at offset 8" },
    { "(vector,(0,0,4))", "taskmap: PMI: \"(vector,(0,0,4))\": nnodes and ppn "
                          "must be >= 1 at offset 8" },
    { "(vector,(0,1,99999999999))", "taskmap: PMI: \"(vector,(0,1,99999999999))"
                                    "\": number too large at offset 23" },
    { "(vector,(0,1048577,1))",
      "taskmap: PMI: \"(vector,(0,1048577,1))\": node 1048576 is above the "
      "largest node id 1048575 at offset 8" },
    { " (vector,(0,1,1))", "taskmap: PMI: \" (vector,(0,1,1))\": expected "
                           "'(vector,' at offset 0" },
    { "0-1;1-2", "taskmap: raw: task 1 is on node 0 and node 1" },
    { "0;0", "taskmap: raw: task 0 is on node 0 and node 1" },
    { "0;2", "taskmap: raw: missing task 1" },
    { "1-3", "taskmap: raw: missing task 0" },
    { "0;4-7", "taskmap: raw: missing tasks 1-3" },
    { "0;x", "taskmap: raw: node 1: idset: \"x\": unexpected character 'x' at "
             "offset 0" },
    { "0-2147483647", "taskmap: raw: more than 2147483647 tasks" },
    { "0-4294967294", "taskmap: raw: more than 2147483647 tasks" },
};

static void test_bad (void)
{
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        rp_error_t e = { "" };
        struct rp_taskmap *map = rp_taskmap_decode (bad[i].in, &e);
        ok (map == NULL, "%s is refused", bad[i].in);
        is (e.text, bad[i].error, "with its message");
        rp_taskmap_destroy (map);
    }
}

static void test_bounds (void)
{
    char *s = malloc (RP_TASKMAP_MAX_NODES * 2 + 2);
    rp_error_t e = { "" };
    struct rp_taskmap *map = dec ("[[0,2,1,1048576]]");
    struct rp_idset *ids = rp_taskmap_tasks_of (map, 1);

    ok (rp_idset_count (ids) == 1048576 && rp_idset_max (ids) == 2097151,
        "the most repeats: tasks_of holds 2^20 ranges");
    rp_idset_destroy (ids);
    rp_taskmap_destroy (map);

    /* 2^20 + 1 raw elements: one node too many */
    for (size_t i = 0; i <= RP_TASKMAP_MAX_NODES; i++) {
        s[2 * i] = '0';
        s[2 * i + 1] = ';';
    }
    s[2 * RP_TASKMAP_MAX_NODES + 1] = '\0';
    s[0] = '0';
    ok (rp_taskmap_decode (s, &e) == NULL
            && !strcmp (e.text, "taskmap: raw: more than 1048576 nodes"),
        "raw: more than 2^20 nodes is refused before a task is read");
    free (s);

    map = rp_taskmap_create ();
    ok (rp_taskmap_append (map, 0, 1, 2147483647U, NULL) == 0,
        "append: 2^31-1 tasks on one node");
    errno = 0;
    ok (rp_taskmap_append (map, 1, 1, 1, &e) < 0 && errno == EOVERFLOW,
        "append: one more fails with EOVERFLOW");
    is (e.text, "taskmap: more than 2147483647 tasks", "with its message");
    errno = 0;
    ok (rp_taskmap_append (map, 1, 0, 1, &e) < 0 && errno == EINVAL,
        "append: 0 nodes fails with EINVAL");
    encodes_as (map, 0, "[[0,1,2147483647,1]]",
                "a failed append changes nothing");
    errno = 0;
    ok (rp_taskmap_encode (map, RP_TASKMAP_PMI | RP_TASKMAP_RAW) == NULL
            && errno == EINVAL,
        "encode: two forms at once fail with EINVAL");
    errno = 0;
    ok (rp_taskmap_encode (map, 64) == NULL && errno == EINVAL,
        "encode: an unknown flag fails with EINVAL");
    rp_taskmap_destroy (map);
    errno = 0;
    ok (rp_taskmap_decode (NULL, &e) == NULL && errno == EINVAL,
        "decode (NULL) fails with EINVAL");
}

int main (void)
{
    plan (NO_PLAN);
    test_vectors ();
    test_unknown ();
    test_distributions ();
    test_forms ();
    test_bad ();
    test_bounds ();
    done_testing ();
}
