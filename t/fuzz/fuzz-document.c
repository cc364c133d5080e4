/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target for the document reader and YAML writer
 * (core/document.c).
 *
 * Each input is loaded as YAML and as JSON.  When a load succeeds:
 * - every node's position is queried (rp_doc_position, rp_doc_key_position,
 *   rp_doc_key_name_position, rp_doc_index_position); when the document has
 *   positions at all, each one must be known and inside the input;
 * - the tree is written with rp_doc_dump_yaml, which must not fail, and
 *   the YAML read back must be json_equal to the tree (the round trip
 *   property), else abort().
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/document.h"

struct ctx {
    const struct rp_doc *doc;
    bool positioned;
    int lines; /* lines of the input + 1: libyaml ends the stream on a new
                * line, where a missing last value (e.g. "? k") is placed */
};

static void check_pos (const struct ctx *c, bool known, int line, int col,
                       const char *what)
{
    if (!c->positioned)
        return;
    if (!known || line < 1 || line > c->lines || col < 1) {
        fprintf (stderr, "%s: position %s %d:%d\n", what,
                 known ? "out of range" : "unknown", line, col);
        abort ();
    }
}

static void walk (const struct ctx *c, json_t *o);

static void walk_object (const struct ctx *c, json_t *o)
{
    int line = 0;
    int col = 0;

    for (void *it = json_object_iter (o); it;
         it = json_object_iter_next (o, it)) {
        const char *key = json_object_iter_key (it);
        bool k = rp_doc_key_position (c->doc, o, key, &line, &col);
        check_pos (c, k, line, col, "key_position");
        k = rp_doc_key_name_position (c->doc, o, key, &line, &col);
        check_pos (c, k, line, col, "key_name_position");
        walk (c, json_object_iter_value (it));
    }
}

static void walk_array (const struct ctx *c, json_t *o)
{
    int line = 0;
    int col = 0;

    for (size_t i = 0; i < json_array_size (o); i++) {
        bool k = rp_doc_index_position (c->doc, o, i, &line, &col);
        check_pos (c, k, line, col, "index_position");
        walk (c, json_array_get (o, i));
    }
}

/* Depth is at most RP_DOC_MAX_DEPTH: the recursion is bounded. */
static void walk (const struct ctx *c, json_t *o)
{
    int line = 0;
    int col = 0;

    walk_object (c, o);
    walk_array (c, o);
    if (!json_is_true (o) && !json_is_false (o) && !json_is_null (o)) {
        bool k = rp_doc_position (c->doc, o, &line, &col);
        check_pos (c, k, line, col, "position");
    }
}

static void round_trip (const json_t *root)
{
    char *y = rp_doc_dump_yaml (root);
    rp_error_t error;
    struct rp_doc *d;

    if (!y) {
        if (errno == ENOMEM)
            return;
        fprintf (stderr, "rp_doc_dump_yaml failed: %s\n", strerror (errno));
        abort ();
    }
    if (!(d = rp_doc_load (y, strlen (y), "dump", RP_DOC_YAML, &error))) {
        fprintf (stderr, "dump does not load: %s\n---\n%s", error.text, y);
        abort ();
    }
    if (!json_equal (rp_doc_root (d), (json_t *)root)) {
        fprintf (stderr, "dump loads to another tree\n---\n%s", y);
        abort ();
    }
    rp_doc_destroy (d);
    free (y);
}

static void one (const uint8_t *data, size_t size, int format)
{
    rp_error_t error;
    struct rp_doc *doc =
        rp_doc_load ((const char *)data, size, "fuzz", format, &error);
    struct ctx c = { .doc = doc, .lines = 2 };
    json_t *root;

    if (!doc)
        return;
    root = rp_doc_root (doc);
    for (size_t i = 0; i < size; i++)
        c.lines += data[i] == '\n' || data[i] == '\r' || data[i] == 0x85
                   || data[i] == 0xA8 || data[i] == 0xA9; /* NEL, LS, PS */
    c.positioned = json_is_object (root) || json_is_array (root)
                       ? rp_doc_position (doc, root, NULL, NULL)
                       : format == RP_DOC_YAML;
    walk (&c, root);
    round_trip (root);
    rp_doc_destroy (doc);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    one (data, size, RP_DOC_YAML);
    one (data, size, RP_DOC_JSON);
    return 0;
}
