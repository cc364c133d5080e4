/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for core/document.c (the YAML/JSON reader and YAML writer)
 * and core/diag.c.
 *
 * The scalar table pins what each plain or tagged YAML scalar becomes; every
 * value in it is what PyYAML 6.0 yaml.safe_load gives (flux-core's reader),
 * or an error where PyYAML gives something JSON cannot hold or fails.
 * Errors are pinned with their exact text.  Positions are pinned on a
 * nested document, in YAML and in JSON.  The writer is checked on a golden
 * document and by a round trip (dump, load, json_equal) over random trees
 * from a fixed seed, so a failure always reproduces.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "respol/diag.h"
#include "respol/document.h"
#include "t/tap/tap.h"

static struct rp_doc *load (const char *s, int format, rp_error_t *error)
{
    return rp_doc_load (s, strlen (s), "t", format, error);
}

/* Compact JSON of o, into a static buffer. */
static const char *js (const json_t *o)
{
    static char buf[1024];
    char *s = json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);

    snprintf (buf, sizeof (buf), "%s", s ? s : "(null)");
    free (s);
    return buf;
}

/* Scalars: "v: <yaml>" must give {"v": <json>} or fail with error. */

struct scalar {
    const char *yaml;
    const char *json;  /* compact JSON, or NULL */
    const char *error; /* after "t:1:4: " */
};

static const struct scalar scalars[] = {
    /* null */
    { "~", "null", NULL },
    { "null", "null", NULL },
    { "Null", "null", NULL },
    { "NULL", "null", NULL },
    { "nULL", "\"nULL\"", NULL },
    { "!!null foo", "null", NULL },
    /* bool: YAML 1.1 words in three cases, not y/n */
    { "true", "true", NULL },
    { "True", "true", NULL },
    { "TRUE", "true", NULL },
    { "tRUE", "\"tRUE\"", NULL },
    { "false", "false", NULL },
    { "yes", "true", NULL },
    { "Yes", "true", NULL },
    { "YES", "true", NULL },
    { "yEs", "\"yEs\"", NULL },
    { "no", "false", NULL },
    { "NO", "false", NULL },
    { "on", "true", NULL },
    { "On", "true", NULL },
    { "off", "false", NULL },
    { "OFF", "false", NULL },
    { "y", "\"y\"", NULL },
    { "n", "\"n\"", NULL },
    { "!!bool yEs", "true", NULL },
    { "!!bool OfF", "false", NULL },
    /* int */
    { "0", "0", NULL },
    { "-0", "0", NULL },
    { "+0", "0", NULL },
    { "42", "42", NULL },
    { "+42", "42", NULL },
    { "-42", "-42", NULL },
    { "1_000", "1000", NULL },
    { "1__", "1", NULL },
    { "_1", "\"_1\"", NULL },
    { "017", "15", NULL },
    { "00", "0", NULL },
    { "0_", "0", NULL },
    { "08", "\"08\"", NULL },
    { "0o17", "\"0o17\"", NULL },
    { "0x1f", "31", NULL },
    { "0x1F_aB", "8107", NULL },
    { "-0x1f", "-31", NULL },
    { "0X1F", "\"0X1F\"", NULL },
    { "0b101", "5", NULL },
    { "-0b1_01", "-5", NULL },
    { "0B1", "\"0B1\"", NULL },
    { "1:30", "90", NULL },
    { "-1:30", "-90", NULL },
    { "1:5:3", "3903", NULL },
    { "190:20:30", "685230", NULL },
    { "1:60", "\"1:60\"", NULL },
    { "0:30", "\"0:30\"", NULL },
    { "1:3:x", "\"1:3:x\"", NULL },
    { "9223372036854775807", "9223372036854775807", NULL },
    { "-9223372036854775808", "-9223372036854775808", NULL },
    { "0x7fffffffffffffff", "9223372036854775807", NULL },
    { "-0x8000000000000000", "-9223372036854775808", NULL },
    { "!!int 0x1_0", "16", NULL },
    { "!!int '1:30'", "90", NULL },
    /* float: a '.' is needed, and an exponent needs its sign */
    { "1.5", "1.5", NULL },
    { "-1.5", "-1.5", NULL },
    { ".5", "0.5", NULL },
    { "-.5", "\"-.5\"", NULL },
    { "1.", "1.0", NULL },
    { "1_.", "1.0", NULL },
    { "1._5", "1.5", NULL },
    { "1.0e+5", "100000.0", NULL },
    { "1.e+5", "100000.0", NULL },
    { "1.5E+3", "1500.0", NULL },
    { "1.5e-400", "0.0", NULL },
    { "1e5", "\"1e5\"", NULL },
    { "1.0e5", "\"1.0e5\"", NULL },
    { "1.5e+3_0", "\"1.5e+3_0\"", NULL },
    { "1:30.5", "90.5", NULL },
    { "0.5:3", "\"0.5:3\"", NULL },
    { "!!float 1", "1.0", NULL },
    { "!!float 010", "10.0", NULL },
    { "!!float 1e5", "100000.0", NULL },
    { "!!float 1:30", "90.0", NULL },
    { "!!float '1_0'", "10.0", NULL },
    /* strings */
    { "abc", "\"abc\"", NULL },
    { "a b", "\"a b\"", NULL },
    { "'12'", "\"12\"", NULL },
    { "\"yes\"", "\"yes\"", NULL },
    { "'null'", "\"null\"", NULL },
    { "!!str 12", "\"12\"", NULL },
    { "!!str", "\"\"", NULL },
    { "2001-1-1", "\"2001-1-1\"", NULL },
    { "a=b", "\"a=b\"", NULL },
    { "'<<'", "\"<<\"", NULL },
    { "\"\\u00e9\\t\"", "\"\xc3\xa9\\t\"", NULL },
    /* the non-specific tag "!" resolves like a plain scalar (PyYAML) */
    { "! 12", "12", NULL },
    { "! '12'", "12", NULL },
    { "&anchor 7", "7", NULL },
    /* errors */
    { "9223372036854775808", NULL,
      "integer \"9223372036854775808\" does not fit in 64 bits" },
    { "-9223372036854775809", NULL,
      "integer \"-9223372036854775809\" does not fit in 64 bits" },
    { "0x8000000000000000", NULL,
      "integer \"0x8000000000000000\" does not fit in 64 bits" },
    { "99999999999999999999:00", NULL,
      "integer \"99999999999999999999:00\" does not fit in 64 bits" },
    { "0x_", NULL, "invalid integer \"0x_\"" },
    { "0b_", NULL, "invalid integer \"0b_\"" },
    { ".inf", NULL, "\".inf\" is not representable in JSON" },
    { "-.Inf", NULL, "\"-.Inf\" is not representable in JSON" },
    { ".NaN", NULL, "\".NaN\" is not representable in JSON" },
    { "1.0e+400", NULL, "\"1.0e+400\" is not representable in JSON" },
    { "!!float .inf", NULL, "\".inf\" is not representable in JSON" },
    { "2001-12-14", NULL,
      "timestamp \"2001-12-14\" is not representable in JSON (quote it)" },
    { "2001-12-14t21:59:43.10-05:00", NULL,
      "timestamp \"2001-12-14t21:59:43.10-05:00\" is not representable in "
      "JSON (quote it)" },
    { "2001-1-1 1:00:00", NULL,
      "timestamp \"2001-1-1 1:00:00\" is not representable in JSON (quote "
      "it)" },
    { "<<", NULL, "merge key \"<<\" is not supported (quote it)" },
    { "=", NULL, "value key \"=\" is not supported (quote it)" },
    { "!!int 1e3", NULL, "invalid !!int value \"1e3\"" },
    { "!!int ' 12'", NULL, "invalid !!int value \" 12\"" },
    { "!!int", NULL, "invalid !!int value \"\"" },
    { "!!float x", NULL, "invalid !!float value \"x\"" },
    { "!!float 'inf'", NULL, "invalid !!float value \"inf\"" },
    { "!!bool maybe", NULL, "invalid !!bool value \"maybe\"" },
    { "!!bool", NULL, "invalid !!bool value \"\"" },
    { "!!binary aGk=", NULL, "unsupported tag !!binary" },
    { "!!timestamp 2001-01-01", NULL, "unsupported tag !!timestamp" },
    { "!foo x", NULL, "unsupported tag !foo" },
    { "!<tag:example.com,2000:x> x", NULL,
      "unsupported tag tag:example.com,2000:x" },
    { "\"a\\0b\"", NULL, "string contains a NUL character" },
    { "*x", NULL, "YAML aliases are not allowed" },
};

static void test_scalars (void)
{
    for (size_t i = 0; i < sizeof (scalars) / sizeof (scalars[0]); i++) {
        const struct scalar *t = &scalars[i];
        char doc[256];
        char want[300];
        rp_error_t error = { .text = "" };
        struct rp_doc *d;

        snprintf (doc, sizeof (doc), "v: %s\n", t->yaml);
        d = load (doc, RP_DOC_YAML, &error);
        if (t->json) {
            snprintf (want, sizeof (want), "{\"v\":%s}", t->json);
            is (d ? js (rp_doc_root (d)) : error.text, want, "%s", t->yaml);
        } else {
            snprintf (want, sizeof (want), "t:1:4: %s", t->error);
            ok (!d && errno == EINVAL, "%s fails with EINVAL", t->yaml);
            is (error.text, want, "%s: error text", t->yaml);
        }
        rp_doc_destroy (d);
    }
}

/* Documents that fail, with the exact error. */

struct bad {
    const char *input;
    int format;
    const char *error;
};

static const struct bad bad[] = {
    { "", RP_DOC_YAML, "t: empty document" },
    { "# only a comment\n", RP_DOC_YAML, "t: empty document" },
    { " \n\t\n", RP_DOC_JSON, "t: empty document" },
    { "", RP_DOC_AUTO, "t: empty document" },
    { "a: 1\n---\nb: 2\n", RP_DOC_YAML,
      "t:2:1: only one YAML document allowed" },
    { "--- 1\n--- 2\n", RP_DOC_YAML, "t:2:1: only one YAML document allowed" },
    { "a: &x 1\nb: *x\n", RP_DOC_YAML, "t:2:4: YAML aliases are not allowed" },
    { "base: &b {x: 1}\nc:\n  <<: *b\n", RP_DOC_YAML,
      "t:3:3: merge key \"<<\" is not supported (quote it)" },
    { "a: 1\nb: 2\na: 3\n", RP_DOC_YAML,
      "t:3:1: duplicate key \"a\" (lines 1 and 3)" },
    { "x:\n  k: true\n  j: 1\n  k: false\n", RP_DOC_YAML,
      "t:4:3: duplicate key \"k\" (lines 2 and 4)" },
    { "{a: 1, a: 1}", RP_DOC_YAML,
      "t:1:8: duplicate key \"a\" (lines 1 and 1)" },
    { "1: a\n", RP_DOC_YAML,
      "t:1:1: mapping key must be a string, not an integer (quote it)" },
    { "1.5: a\n", RP_DOC_YAML,
      "t:1:1: mapping key must be a string, not a real (quote it)" },
    { "yes: a\n", RP_DOC_YAML,
      "t:1:1: mapping key must be a string, not a boolean (quote it)" },
    { "~: a\n", RP_DOC_YAML,
      "t:1:1: mapping key must be a string, not null (quote it)" },
    { "? \n: a\n", RP_DOC_YAML,
      "t:1:2: mapping key must be a string, not null (quote it)" },
    { "? [a]\n: b\n", RP_DOC_YAML,
      "t:1:3: mapping key must be a string, not a sequence" },
    { "? {a: 1}\n: b\n", RP_DOC_YAML,
      "t:1:3: mapping key must be a string, not a mapping" },
    { "!!set {a: 1}\n", RP_DOC_YAML,
      "t:1:1: unsupported tag !!set on a mapping" },
    { "a: !!str [1]\n", RP_DOC_YAML,
      "t:1:4: unsupported tag !!str on a sequence" },
    { "\"a\\0\": 1\n", RP_DOC_YAML, "t:1:1: string contains a NUL character" },
    /* libyaml's own errors, with their context */
    { "a: [1\n", RP_DOC_YAML,
      "t:2:1: did not find expected ',' or ']' (while parsing a flow sequence "
      "at line 1, column 4)" },
    { "a: b: c\n", RP_DOC_YAML,
      "t:1:5: mapping values are not allowed in this "
      "context" },
    { "a:\n  - 1\n - 2\n", RP_DOC_YAML,
      "t:3:2: did not find expected key (while parsing a block mapping at "
      "line 1, column 1)" },
    { "a: \"x\n", RP_DOC_YAML,
      "t:2:1: found unexpected end of stream (while scanning a quoted scalar "
      "at line 1, column 4)" },
    { "a: @x\n", RP_DOC_YAML,
      "t:1:4: found character that cannot start any token (while scanning for "
      "the next token at line 1, column 4)" },
    { "a: \x01\n", RP_DOC_YAML,
      "t:1:4: control characters are not allowed (#x1)" },
    { "a: b\xff\n", RP_DOC_YAML, "t:1:5: invalid leading UTF-8 octet (#xFF)" },
    /* JSON: jansson's messages */
    { "{\"a\": 1,}", RP_DOC_JSON,
      "t:1:9: JSON: string or '}' expected near '}'" },
    { "{\"a\": 1}\n,", RP_DOC_JSON,
      "t:2:1: JSON: end of file expected near ','" },
    { "{\"a\": 1, \"a\": 2}", RP_DOC_JSON,
      "t:1:12: JSON: duplicate object key near '\"a\"'" },
    { "{a: 1}", RP_DOC_JSON, "t:1:2: JSON: string or '}' expected near 'a'" },
    { "{\"a\": 1} # c", RP_DOC_JSON,
      "t:1:10: JSON: end of file expected near '#'" },
    { "[\"\\u0000\"]", RP_DOC_JSON,
      "t:1:9: JSON: \\u0000 is not allowed without JSON_ALLOW_NUL near "
      "'\"\\u0000\"'" },
    { "[99999999999999999999]", RP_DOC_JSON,
      "t:1:21: JSON: too big integer near '99999999999999999999'" },
    { "[1e400]", RP_DOC_JSON,
      "t:1:6: JSON: real number overflow near '1e400'" },
    /* AUTO picks JSON for '{' and '[', then flow-style YAML; when neither
     * reads, the JSON error is the one reported */
    { "{\"a\": 1,,}", RP_DOC_AUTO,
      "t:1:9: JSON: string or '}' expected near ','" },
};

static void test_bad (void)
{
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        rp_error_t error = { .text = "" };
        struct rp_doc *d;

        errno = 0;
        d = load (bad[i].input, bad[i].format, &error);
        ok (!d && errno == EINVAL, "bad[%zu] fails with EINVAL", i);
        is (error.text, bad[i].error, "bad[%zu] error text", i);
        rp_doc_destroy (d);
    }
}

/* Positions */

static const char nested_yaml[] = "version: 1\n"           /* 1 */
                                  "resources:\n"           /* 2 */
                                  "  - type: node\n"       /* 3 */
                                  "    count: 2\n"         /* 4 */
                                  "    exclusive: true\n"  /* 5 */
                                  "    with:\n"            /* 6 */
                                  "      - {type: core,\n" /* 7 */
                                  "         count: 4}\n"   /* 8 */
                                  "flags: [false, true,\n" /* 9 */
                                  "        null]\n"        /* 10 */
                                  "name: 'x'\n"            /* 11 */
                                  "empty:\n"               /* 12 */
                                  "real: 2.5\n";           /* 13 */

/* line*1000 + column of node, or 0 */
static int at (const struct rp_doc *d, const json_t *node)
{
    int line = 0;
    int col = 0;

    if (!rp_doc_position (d, node, &line, &col))
        return 0;
    return line * 1000 + col;
}

static int key_at (const struct rp_doc *d, const json_t *o, const char *key)
{
    int line = 0;
    int col = 0;

    if (!rp_doc_key_position (d, o, key, &line, &col))
        return 0;
    return line * 1000 + col;
}

static int key_name_at (const struct rp_doc *d, const json_t *o,
                        const char *key)
{
    int line = 0;
    int col = 0;

    if (!rp_doc_key_name_position (d, o, key, &line, &col))
        return 0;
    return line * 1000 + col;
}

static int index_at (const struct rp_doc *d, const json_t *a, size_t i)
{
    int line = 0;
    int col = 0;

    if (!rp_doc_index_position (d, a, i, &line, &col))
        return 0;
    return line * 1000 + col;
}

static void test_positions_yaml (void)
{
    rp_error_t error;
    struct rp_doc *d = load (nested_yaml, RP_DOC_YAML, &error);
    json_t *root, *res, *node, *with, *core, *flags;

    if (!d)
        BAIL_OUT ("nested_yaml: %s", error.text);
    root = rp_doc_root (d);
    res = json_object_get (root, "resources");
    node = json_array_get (res, 0);
    with = json_object_get (node, "with");
    core = json_array_get (with, 0);
    flags = json_object_get (root, "flags");

    is (rp_doc_name (d), "t", "rp_doc_name");
    cmp_ok (at (d, root), ==, 1001, "root mapping at 1:1");
    cmp_ok (at (d, json_object_get (root, "version")), ==, 1010,
            "version 1:10");
    cmp_ok (at (d, res), ==, 3003, "resources sequence at 3:3");
    cmp_ok (at (d, node), ==, 3005, "resources[0] mapping at 3:5");
    cmp_ok (at (d, json_object_get (node, "type")), ==, 3011, "type 3:11");
    cmp_ok (at (d, json_object_get (node, "count")), ==, 4012, "count 4:12");
    cmp_ok (at (d, with), ==, 7007, "with sequence at 7:7");
    cmp_ok (at (d, core), ==, 7009, "flow mapping at 7:9");
    cmp_ok (at (d, json_object_get (core, "count")), ==, 8017, "count 8:17");
    cmp_ok (at (d, json_object_get (root, "name")), ==, 11007, "quoted 11:7");
    cmp_ok (at (d, json_object_get (root, "real")), ==, 13007, "real 13:7");

    /* true/false/null are shared: position by key or index */
    cmp_ok (at (d, json_true ()), ==, 0, "rp_doc_position (true) is unknown");
    cmp_ok (key_at (d, node, "exclusive"), ==, 5016, "exclusive: true 5:16");
    cmp_ok (key_at (d, root, "empty"), ==, 12007, "empty value (null) 12:7");
    cmp_ok (index_at (d, flags, 0), ==, 9009, "flags[0] false 9:9");
    cmp_ok (index_at (d, flags, 1), ==, 9016, "flags[1] true 9:16");
    cmp_ok (index_at (d, flags, 2), ==, 10009, "flags[2] null 10:9");
    cmp_ok (index_at (d, flags, 3), ==, 0, "flags[3] does not exist");
    cmp_ok (index_at (d, res, 0), ==, 3005, "index position of a mapping");
    cmp_ok (key_at (d, node, "count"), ==, 4012, "key position of an int");
    cmp_ok (key_at (d, node, "missing"), ==, 3005,
            "missing key: position of the object");
    cmp_ok (key_at (d, res, "x"), ==, 0, "key position in an array: false");
    cmp_ok (index_at (d, node, 0), ==, 0, "index position in an object: false");

    cmp_ok (key_name_at (d, node, "exclusive"), ==, 5005, "key exclusive 5:5");
    cmp_ok (key_name_at (d, root, "flags"), ==, 9001, "key flags 9:1");
    cmp_ok (key_name_at (d, core, "count"), ==, 8010, "key count 8:10");
    cmp_ok (key_name_at (d, node, "nope"), ==, 3005,
            "missing key name: position of the object");

    json_t *foreign = json_integer (1);
    cmp_ok (at (d, foreign), ==, 0, "a node of another tree has no position");
    json_decref (foreign);
    ok (!rp_doc_position (d, NULL, NULL, NULL), "NULL node: false");
    ok (rp_doc_position (d, root, NULL, NULL), "line/column may be NULL");
    rp_doc_destroy (d);
}

static const char nested_json[] =
    "{\n"
    "  \"version\": 1,\n"
    "  \"tasks\": [{\"slot\": \"a\", \"x\": true},\n"
    "            false],\n"
    "  \"r\": 1.5e3\n"
    "}\n";

static void test_positions_json (void)
{
    rp_error_t error;
    struct rp_doc *d = load (nested_json, RP_DOC_JSON, &error);
    json_t *root, *tasks, *task;

    if (!d)
        BAIL_OUT ("nested_json: %s", error.text);
    root = rp_doc_root (d);
    tasks = json_object_get (root, "tasks");
    task = json_array_get (tasks, 0);
    is (js (root),
        "{\"r\":1500.0,\"tasks\":[{\"slot\":\"a\",\"x\":true},false],"
        "\"version\":1}",
        "JSON tree");
    cmp_ok (at (d, root), ==, 1001, "root 1:1");
    cmp_ok (at (d, json_object_get (root, "version")), ==, 2014,
            "version 2:14");
    cmp_ok (at (d, tasks), ==, 3012, "tasks 3:12");
    cmp_ok (at (d, task), ==, 3013, "tasks[0] 3:13");
    cmp_ok (at (d, json_object_get (task, "slot")), ==, 3022, "slot 3:22");
    cmp_ok (key_at (d, task, "x"), ==, 3032, "x: true 3:32");
    cmp_ok (index_at (d, tasks, 1), ==, 4013, "tasks[1] false 4:13");
    cmp_ok (key_name_at (d, root, "r"), ==, 5003, "key r 5:3");
    rp_doc_destroy (d);

    /* "1e5" is a JSON number (it would be a string in YAML 1.1) */
    d = load ("[1e5, 1E-2, -0, 0.5]", RP_DOC_JSON, &error);
    is (d ? js (rp_doc_root (d)) : error.text, "[100000.0,0.01,0,0.5]",
        "JSON numbers are read as JSON");
    rp_doc_destroy (d);
}

/* Valid JSON that libyaml cannot read keeps jansson's tree, no positions. */
static void test_json_fallback (void)
{
    static const char *inputs[] = {
        "{\"s\": \"\\ud83d\\ude00\"}", /* surrogate pair escape */
        "{\"a\"\n: 1}",                /* key and ':' on two lines */
        NULL,                          /* key of 1100 characters */
    };
    char longkey[1200];
    rp_error_t error;

    snprintf (longkey, sizeof (longkey), "{\"%01100d\": 1}", 0);
    for (int i = 0; i < 3; i++) {
        const char *in = inputs[i] ? inputs[i] : longkey;
        struct rp_doc *d = load (in, RP_DOC_JSON, &error);
        ok (d != NULL, "fallback[%d] loads", i);
        if (!d) {
            diag ("%s", error.text);
            continue;
        }
        ok (json_object_size (rp_doc_root (d)) == 1, "fallback[%d] tree", i);
        cmp_ok (at (d, rp_doc_root (d)), ==, 0, "fallback[%d] no positions", i);
        rp_doc_destroy (d);
    }
}

/* Limits */

/* a n times, mid, b m times, end. */
static char *repeat (const char *a, int n, const char *mid, const char *b,
                     int m, const char *end)
{
    size_t len = strlen (a) * n + strlen (mid) + strlen (b) * m + strlen (end);
    char *s = malloc (len + 1);
    char *p = s;

    if (!s)
        BAIL_OUT ("out of memory");
    for (int i = 0; i < n; i++)
        p = stpcpy (p, a);
    p = stpcpy (p, mid);
    for (int i = 0; i < m; i++)
        p = stpcpy (p, b);
    stpcpy (p, end);
    return s;
}

static void test_depth (void)
{
    int max = RP_DOC_MAX_DEPTH;
    rp_error_t error;
    struct rp_doc *d;
    char *s;

    s = repeat ("[", max, "1", "]", max, "");
    d = load (s, RP_DOC_YAML, &error);
    ok (d != NULL, "%d nested sequences load", max);
    rp_doc_destroy (d);
    d = load (s, RP_DOC_JSON, &error);
    ok (d != NULL, "%d nested JSON arrays load", max);
    rp_doc_destroy (d);
    free (s);

    s = repeat ("[", max + 1, "1", "]", max + 1, "");
    d = load (s, RP_DOC_YAML, &error);
    ok (!d && errno == EINVAL, "%d nested sequences fail", max + 1);
    is (error.text, "t:1:65: nesting is deeper than 64 levels", "depth error");
    d = load (s, RP_DOC_JSON, &error);
    is (d ? "loaded" : error.text, "t:1:65: nesting is deeper than 64 levels",
        "JSON depth error (libyaml runs first)");
    free (s);

    s = repeat ("{\"a\":", 100000, "1", "}", 100000, "");
    d = load (s, RP_DOC_JSON, &error);
    is (d ? "loaded" : error.text, "t:1:321: nesting is deeper than 64 levels",
        "deep JSON fails at level 65, not deeper");
    free (s);

    s = repeat ("- ", max + 1, "1\n", "", 0, "");
    d = load (s, RP_DOC_YAML, &error);
    is (d ? "loaded" : error.text, "t:1:129: nesting is deeper than 64 levels",
        "block depth error");
    free (s);

    /* JSON through jansson only (surrogate escape): limit still applies */
    s = repeat ("[", max + 1, "\"\\ud83d\\ude00\"", "]", max + 1, "");
    d = load (s, RP_DOC_JSON, &error);
    is (d ? "loaded" : error.text, "t: nesting is deeper than 64 levels",
        "fallback JSON depth error");
    free (s);
}

static void test_nodes (void)
{
    int max = RP_DOC_MAX_NODES;
    rp_error_t error;
    struct rp_doc *d;
    char *s;

    /* an array and max - 1 items: max nodes */
    s = repeat ("", 0, "[0", ",0", max - 2, "]");
    d = load (s, RP_DOC_YAML, &error);
    ok (d && json_array_size (rp_doc_root (d)) == (size_t)max - 1,
        "%d nodes load", max);
    rp_doc_destroy (d);
    free (s);

    s = repeat ("", 0, "[0", ",0", max - 1, "]");
    d = load (s, RP_DOC_JSON, &error);
    is (d ? "loaded" : error.text,
        "t:1:2000000: document has more than "
        "1000000 nodes",
        "JSON: one node too many, at its column");
    d = load (s, RP_DOC_YAML, &error);
    is (d ? "loaded" : error.text,
        "t:1:2000000: document has more than "
        "1000000 nodes",
        "YAML: one node too many");
    free (s);

    /* keys count as nodes: an object with max / 2 members is one too many,
     * and the error is at the last value */
    size_t size = (size_t)max * 8;
    size_t len = 0;
    if (!(s = malloc (size)))
        BAIL_OUT ("out of memory");
    for (int i = 0; i < max / 2; i++)
        len += snprintf (s + len, size - len, "%s\"%d\": 0", i ? ", " : "{", i);
    strcpy (s + len, "}");
    char want[80];
    snprintf (want, sizeof (want),
              "t:1:%zu: document has more than 1000000 nodes", len);
    d = load (s, RP_DOC_YAML, &error);
    is (d ? "loaded" : error.text, want, "keys are nodes");
    free (s);
}

static void test_size (void)
{
    size_t len = RP_DOC_MAX_BYTES + 1;
    char *s = malloc (len);
    rp_error_t error;
    struct rp_doc *d;

    if (!s)
        BAIL_OUT ("out of memory");
    memset (s, ' ', len);
    s[0] = 'a';
    errno = 0;
    d = rp_doc_load (s, len, "big", RP_DOC_YAML, &error);
    ok (!d && errno == EFBIG,
        "a document of RP_DOC_MAX_BYTES + 1 fails (EFBIG)");
    is (error.text, "big: document is larger than 16777216 bytes",
        "size error");
    d = rp_doc_load (s, len - 1, "big", RP_DOC_YAML, &error);
    is (d ? js (rp_doc_root (d)) : error.text, "\"a\"",
        "a document of RP_DOC_MAX_BYTES loads");
    rp_doc_destroy (d);
    free (s);
}

/* The billion laughs document fails at its first alias, without expanding
 * anything. */
static void test_billion_laughs (void)
{
    static const char lol[] =
        "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
        "b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
        "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
        "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
        "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n"
        "f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
        "g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n";
    rp_error_t error;
    struct rp_doc *d = load (lol, RP_DOC_AUTO, &error);

    ok (!d && errno == EINVAL, "billion laughs fails");
    is (error.text, "t:2:8: YAML aliases are not allowed",
        "at its first alias");
}

/* Arguments, files, formats */

static char tmpdir[64];

static const char *write_file (const char *name, const char *content)
{
    static char path[128];
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s", tmpdir, name);
    if (!(f = fopen (path, "w")) || fputs (content, f) < 0 || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", path);
    return path;
}

static const char *load_file_as (const char *path, int format)
{
    static char buf[512];
    rp_error_t error;
    struct rp_doc *d = rp_doc_load_file (path, format, &error);

    snprintf (buf, sizeof (buf), "%s", d ? js (rp_doc_root (d)) : error.text);
    rp_doc_destroy (d);
    return buf;
}

/* rp_doc_load_fd: the open file from its offset, named as given, the
 * name's extension counting as rp_doc_load_file's path does; fd stays the
 * caller's. */
static void test_load_fd (void)
{
    const char *p = write_file ("fd.json", "[1e5]\n");
    rp_error_t error;
    struct rp_doc *d;
    int fd = open (p, O_RDONLY);

    if (fd < 0)
        BAIL_OUT ("open %s", p);
    d = rp_doc_load_fd (fd, "c.json", RP_DOC_AUTO, &error);
    is (d ? js (rp_doc_root (d)) : error.text, "[100000.0]",
        "load_fd: the name's extension picks the format");
    rp_doc_destroy (d);
    ok (fcntl (fd, F_GETFD) >= 0 && lseek (fd, 0, SEEK_CUR) == 6,
        "load_fd: fd stays open, its offset after what was read");
    lseek (fd, 1, SEEK_SET);
    d = rp_doc_load_fd (fd, "c.yaml", RP_DOC_AUTO, &error);
    is (d ? js (rp_doc_root (d)) : error.text, "\"1e5]\"",
        "load_fd: reads from the offset");
    rp_doc_destroy (d);
    close (fd);

    p = write_file ("fd.yaml", "a: 1\na: 2\n");
    if ((fd = open (p, O_RDONLY)) < 0)
        BAIL_OUT ("open %s", p);
    d = rp_doc_load_fd (fd, "site.yaml", RP_DOC_AUTO, &error);
    is (d ? "loaded" : error.text,
        "site.yaml:2:1: duplicate key \"a\" (lines 1 and 2)",
        "load_fd: errors carry the name given");
    close (fd);

    if ((fd = open (tmpdir, O_RDONLY | O_DIRECTORY)) < 0)
        BAIL_OUT ("open %s", tmpdir);
    errno = 0;
    d = rp_doc_load_fd (fd, "adir", RP_DOC_AUTO, &error);
    ok (!d && errno == EISDIR, "load_fd: a read error keeps its errno");
    is (d ? "loaded" : error.text, "adir: Is a directory",
        "load_fd: a read error names the name given");
    close (fd);
    errno = 0;
    d = rp_doc_load_fd (fd, "closed", RP_DOC_AUTO, &error);
    is (d ? "loaded" : error.text, "closed: Bad file descriptor",
        "load_fd: a closed descriptor");
    errno = 0;
    ok (!rp_doc_load_fd (-1, "x", RP_DOC_AUTO, &error) && errno == EINVAL,
        "load_fd: fd -1: EINVAL");
    errno = 0;
    ok (!rp_doc_load_fd (0, NULL, RP_DOC_AUTO, &error) && errno == EINVAL,
        "load_fd: name NULL: EINVAL");
}

static void test_files (void)
{
    char want[256];
    const char *p;
    rp_error_t error;
    struct rp_doc *d;

    snprintf (tmpdir, sizeof (tmpdir), "/tmp/test_document.XXXXXX");
    if (!mkdtemp (tmpdir))
        BAIL_OUT ("mkdtemp failed");

    /* [1e5] is a real in JSON and a string in YAML: tells the format */
    p = write_file ("a.json", "[1e5]");
    is (load_file_as (p, RP_DOC_AUTO), "[100000.0]", ".json is JSON");
    p = write_file ("a.yaml", "[1e5]");
    is (load_file_as (p, RP_DOC_AUTO), "[\"1e5\"]", ".yaml is YAML");
    p = write_file ("a.yml", "[1e5]");
    is (load_file_as (p, RP_DOC_AUTO), "[\"1e5\"]", ".yml is YAML");
    is (load_file_as (p, RP_DOC_JSON), "[100000.0]",
        "format overrides extension");
    p = write_file ("a.txt", "  \n[1e5]");
    is (load_file_as (p, RP_DOC_AUTO), "[100000.0]", "sniffed JSON ('[')");
    p = write_file ("b.txt", "- 1e5");
    is (load_file_as (p, RP_DOC_AUTO), "[\"1e5\"]", "sniffed YAML");
    p = write_file ("c.txt", "{a: [1e5]}");
    is (load_file_as (p, RP_DOC_AUTO), "{\"a\":[\"1e5\"]}",
        "sniffed JSON that is flow-style YAML is read as YAML");
    p = write_file ("c.json", "{a: [1e5]}");
    ok (!rp_doc_load_file (p, RP_DOC_AUTO, &error) && errno == EINVAL,
        "but a .json file is only JSON");

    p = write_file ("bad.yaml", "a: 1\na: 2\n");
    snprintf (want, sizeof (want),
              "%s:2:1: duplicate key \"a\" (lines 1 and 2)", p);
    is (load_file_as (p, RP_DOC_AUTO), want, "errors carry the file name");

    snprintf (want, sizeof (want), "%s/missing.yaml", tmpdir);
    errno = 0;
    d = rp_doc_load_file (want, RP_DOC_AUTO, &error);
    ok (!d && errno == ENOENT, "missing file fails with ENOENT");
    strcat (want, ": No such file or directory");
    is (error.text, want, "missing file error");

    d = rp_doc_load_file (tmpdir, RP_DOC_AUTO, &error);
    snprintf (want, sizeof (want), "%s: Is a directory", tmpdir);
    ok (!d && errno == EISDIR, "directory fails with EISDIR");
    is (error.text, want, "directory error");

    /* "-" is stdin, named "stdin" */
    p = write_file ("stdin.yaml", "a: [yes, 1e5]\nb: &x 1\nc: *x\n");
    if (!freopen (p, "r", stdin))
        BAIL_OUT ("freopen");
    d = rp_doc_load_file ("-", RP_DOC_AUTO, &error);
    is (d ? "loaded" : error.text, "stdin:3:4: YAML aliases are not allowed",
        "stdin is named stdin");
    p = write_file ("stdin2.yaml", "a: [yes, 1e5]\n");
    if (!freopen (p, "r", stdin))
        BAIL_OUT ("freopen");
    d = rp_doc_load_file ("-", RP_DOC_AUTO, &error);
    is (d ? rp_doc_name (d) : error.text, "stdin", "rp_doc_name is stdin");
    is (d ? js (rp_doc_root (d)) : error.text, "{\"a\":[true,\"1e5\"]}",
        "stdin read");
    rp_doc_destroy (d);

    /* a large file is refused after reading at most MAX + 1 bytes */
    snprintf (want, sizeof (want), "%s/big.yaml", tmpdir);
    FILE *f = fopen (want, "w");
    if (!f || ftruncate (fileno (f), RP_DOC_MAX_BYTES + 4096) < 0)
        BAIL_OUT ("cannot create %s", want);
    fclose (f);
    d = rp_doc_load_file (want, RP_DOC_AUTO, &error);
    ok (!d && errno == EFBIG, "a file over the limit fails with EFBIG");
    like (error.text, "big.yaml: document is larger than 16777216 bytes",
          "big file error");
    unlink (want);

    test_load_fd ();

    const char *names[] = { "a.json",     "a.yaml",     "a.yml",   "a.txt",
                            "b.txt",      "bad.yaml",   "fd.json", "fd.yaml",
                            "stdin.yaml", "stdin2.yaml" };
    for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
        snprintf (want, sizeof (want), "%s/%s", tmpdir, names[i]);
        unlink (want);
    }
    rmdir (tmpdir);
}

/* Documents bounded by memory (rp_doc_load_file_within) */

static void write_bytes (const char *path, const char *s, size_t len)
{
    FILE *f = fopen (path, "w");

    if (!f || fwrite (s, 1, len, f) != len || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", path);
}

static const char *load_within (const char *path, uint64_t memory)
{
    static char buf[512];
    rp_error_t error;
    struct rp_doc *d =
        rp_doc_load_file_within (path, RP_DOC_AUTO, memory, &error);

    snprintf (buf, sizeof (buf), "%s", d ? "loaded" : error.text);
    rp_doc_destroy (d);
    return buf;
}

static void test_within (void)
{
    char dir[64], path[128], want[256];
    size_t len = RP_DOC_MAX_BYTES + (1 << 20), n = 0;
    char *s = malloc (len);
    rp_error_t error;
    struct rp_doc *d;
    FILE *f;

    snprintf (dir, sizeof (dir), "/tmp/test_document.XXXXXX");
    if (!s || !mkdtemp (dir))
        BAIL_OUT ("cannot make a scratch directory");
    snprintf (path, sizeof (path), "%s/big.json", dir);

    /* 17 MiB of JSON: a list of long strings */
    s[n++] = '[';
    while (n + 1002 < len) {
        s[n++] = '"';
        memset (s + n, 'x', 998);
        n += 998;
        s[n++] = '"';
        s[n++] = ',';
    }
    s[n++] = '1';
    s[n++] = ']';
    write_bytes (path, s, n);
    snprintf (want, sizeof (want), "%s: document is larger than 16777216 bytes",
              path);
    is (load_file_as (path, RP_DOC_AUTO), want,
        "17 MiB: over RP_DOC_MAX_BYTES for rp_doc_load_file");
    d = rp_doc_load_file_within (path, RP_DOC_AUTO, 256 << 20, &error);
    ok (d && json_array_size (rp_doc_root (d)) == n / 1001 + 1,
        "... but within 256 MiB of memory it loads");
    ok (rp_doc_memory (d) == 4 * (uint64_t)n + 350 + 250 * (n / 1001 + 1),
        "... and its estimate is 4 a byte, 350 a list, 250 a string");
    rp_doc_destroy (d);
    snprintf (want, sizeof (want),
              "%s: document needs about 73 MiB to read, more than the memory "
              "limit of 72 MiB",
              path);
    is (load_within (path, 72 << 20), want,
        "a JSON document past the memory is refused before parsing");
    snprintf (want, sizeof (want),
              "%s: document is larger than 4194304 bytes, the most that the "
              "memory limit of 16 MiB allows",
              path);
    is (load_within (path, 16 << 20), want,
        "a file of more bytes than the memory allows is refused before "
        "reading");
    if (!(f = fopen (path, "w")) || ftruncate (fileno (f), 1 << 30) < 0
        || fclose (f) != 0)
        BAIL_OUT ("cannot make a sparse file");
    errno = 0;
    d = rp_doc_load_file_within (path, RP_DOC_AUTO, 16 << 20, &error);
    ok (!d && errno == EFBIG, "... even of a gigabyte (EFBIG)");

    /* YAML is counted as it is read */
    snprintf (path, sizeof (path), "%s/list.yaml", dir);
    n = 0;
    for (int i = 0; i < 5000; i++, n += 5)
        memcpy (s + n, "- []\n", 5);
    write_bytes (path, s, n);
    /* 25000 bytes (100000) and the root list leave room for 2709 more */
    snprintf (want, sizeof (want),
              "%s:2710:3: document needs more than the memory limit of 1 MiB",
              path);
    is (load_within (path, 1 << 20), want,
        "a YAML document is refused at the node past the memory");
    is (load_within (path, 2 << 20), "loaded", "... and loads within 2 MiB");
    write_bytes (path, "a: [1, 2]\n", 10);
    d = rp_doc_load_file_within (path, RP_DOC_AUTO, 1 << 20, &error);
    ok (rp_doc_memory (d) == 10 * 4 + 2 * 350 + 3 * 250,
        "estimate of a small YAML document");
    rp_doc_destroy (d);
    d = rp_doc_load_file (path, RP_DOC_AUTO, &error);
    ok (rp_doc_memory (d) == 10 * 4 + 2 * 350 + 3 * 250,
        "... also for rp_doc_load_file");
    ok (rp_doc_memory (NULL) == 0, "rp_doc_memory (NULL) is 0");
    rp_doc_destroy (d);
    errno = 0;
    ok (!rp_doc_load_file_within (path, RP_DOC_AUTO, 0, &error)
            && errno == EINVAL,
        "within 0 bytes fails with EINVAL");
    unlink (path);
    snprintf (path, sizeof (path), "%s/big.json", dir);
    unlink (path);
    rmdir (dir);
    free (s);
}

static void test_args (void)
{
    rp_error_t error;
    struct rp_doc *d;
    json_t *o;

    errno = 0;
    ok (!rp_doc_load (NULL, 1, "t", RP_DOC_YAML, &error) && errno == EINVAL,
        "rp_doc_load (NULL buf) fails with EINVAL");
    errno = 0;
    ok (!rp_doc_load ("1", 1, NULL, RP_DOC_YAML, &error) && errno == EINVAL,
        "rp_doc_load (NULL name) fails with EINVAL");
    errno = 0;
    ok (!rp_doc_load ("1", 1, "t", 3, &error) && errno == EINVAL,
        "rp_doc_load (bad format) fails with EINVAL");
    errno = 0;
    ok (!rp_doc_load_file (NULL, RP_DOC_AUTO, &error) && errno == EINVAL,
        "rp_doc_load_file (NULL) fails with EINVAL");
    ok (!rp_doc_load ("a: [", 4, "t", RP_DOC_YAML, NULL) && errno == EINVAL,
        "error may be NULL");
    d = rp_doc_load ("x: 1 ", 4, "-", RP_DOC_YAML, &error);
    is (d ? rp_doc_name (d) : error.text, "stdin", "name \"-\" is stdin");
    is (d ? js (rp_doc_root (d)) : "", "{\"x\":1}", "only len bytes are read");
    rp_doc_destroy (d);

    o = json_pack ("{s:[b]}", "a", 1);
    d = rp_doc_from_json (o, "made");
    ok (d && rp_doc_root (d) == o && o->refcount == 2,
        "rp_doc_from_json takes a reference");
    is (d ? rp_doc_name (d) : NULL, "made", "rp_doc_from_json name");
    ok (d && !rp_doc_position (d, o, NULL, NULL)
            && !rp_doc_key_position (d, o, "a", NULL, NULL)
            && !rp_doc_index_position (d, json_object_get (o, "a"), 0, NULL,
                                       NULL),
        "a wrapped tree has no positions");
    errno = 42;
    rp_doc_destroy (d);
    ok (errno == 42 && o->refcount == 1,
        "rp_doc_destroy keeps errno, drops ref");
    json_decref (o);
    errno = 0;
    ok (!rp_doc_from_json (NULL, "x") && errno == EINVAL,
        "rp_doc_from_json (NULL) fails with EINVAL");
    errno = 42;
    rp_doc_destroy (NULL);
    ok (errno == 42, "rp_doc_destroy (NULL) keeps errno");
    ok (rp_doc_root (NULL) == NULL && rp_doc_name (NULL) == NULL,
        "accessors accept NULL");
}

/* Writer */

static const char golden_in[] =
    "{\"version\": 1, \"resources\": [{\"type\": \"slot\", \"count\": 1, "
    "\"label\": \"task\", \"with\": [{\"type\": \"core\", \"count\": 2}]}], "
    "\"tasks\": [{\"command\": [\"app\", \"--n\", \"a: b\"], \"slot\": "
    "\"task\", \"count\": {\"per_slot\": 1}}], \"attributes\": {\"system\": "
    "{\"duration\": 3600.0, \"cwd\": \"/home/u\", \"env\": {}, \"x\": [], "
    "\"quote\": [\"yes\", \"1\", \"\", \" a\", \"it's\", \"t\\tab\", "
    "\"n\\nl\", \"\\u00e9\", \"#c\", \"a #b\", \"a:b\", \"-\", \"1.5\", "
    "\"0x1\", \"<<\", \"2001-12-14\", \"1e5\", \"\\u0001\", \"...\", "
    "\"a\\\"b\\\\\", \"\\u2028\"], \"nested\": [[1, [2, 3]], [], [{}], "
    "{\"k\": null}], \"reals\": [0.1, 1e300, 1e-5, -0.0, 2.0], \"b\": true}}}";

static const char golden_out[] = "attributes:\n"
                                 "  system:\n"
                                 "    b: true\n"
                                 "    cwd: /home/u\n"
                                 "    duration: 3600.0\n"
                                 "    env: {}\n"
                                 "    nested:\n"
                                 "      - - 1\n"
                                 "        - - 2\n"
                                 "          - 3\n"
                                 "      - []\n"
                                 "      - - {}\n"
                                 "      - k: null\n"
                                 "    quote:\n"
                                 "      - 'yes'\n"
                                 "      - '1'\n"
                                 "      - ''\n"
                                 "      - ' a'\n"
                                 "      - it's\n"
                                 "      - \"t\\tab\"\n"
                                 "      - \"n\\nl\"\n"
                                 "      - '\xc3\xa9'\n"
                                 "      - '#c'\n"
                                 "      - 'a #b'\n"
                                 "      - a:b\n"
                                 "      - '-'\n"
                                 "      - '1.5'\n"
                                 "      - '0x1'\n"
                                 "      - '<<'\n"
                                 "      - '2001-12-14'\n"
                                 "      - 1e5\n"
                                 "      - \"\\x01\"\n"
                                 "      - '...'\n"
                                 "      - a\"b\\\n"
                                 "      - \"\\u2028\"\n"
                                 "    reals:\n"
                                 "      - 0.1\n"
                                 "      - 1.0e+300\n"
                                 "      - 1.0e-05\n"
                                 "      - -0.0\n"
                                 "      - 2.0\n"
                                 "    x: []\n"
                                 "resources:\n"
                                 "  - count: 1\n"
                                 "    label: task\n"
                                 "    type: slot\n"
                                 "    with:\n"
                                 "      - count: 2\n"
                                 "        type: core\n"
                                 "tasks:\n"
                                 "  - command:\n"
                                 "      - app\n"
                                 "      - '--n'\n"
                                 "      - 'a: b'\n"
                                 "    count:\n"
                                 "      per_slot: 1\n"
                                 "    slot: task\n"
                                 "version: 1\n";

static void check_round_trip (const json_t *o, const char *what)
{
    char *y = rp_doc_dump_yaml (o);
    rp_error_t error = { .text = "" };
    struct rp_doc *d = y ? load (y, RP_DOC_YAML, &error) : NULL;

    if (!ok (d && json_equal (rp_doc_root (d), (json_t *)o), "%s", what)) {
        diag ("tree: %s", js (o));
        diag ("yaml: %s", y ? y : "(dump failed)");
        diag ("error: %s", error.text);
    }
    rp_doc_destroy (d);
    free (y);
}

static void test_dump_golden (void)
{
    json_t *o = json_loads (golden_in, 0, NULL);
    char *y;

    if (!o)
        BAIL_OUT ("golden_in does not parse");
    y = rp_doc_dump_yaml (o);
    is (y, golden_out, "golden YAML");
    check_round_trip (o, "golden round trip");
    free (y);
    json_decref (o);

    static const struct {
        const char *json;
        const char *yaml;
    } small[] = {
        { "{}", "{}\n" },
        { "[]", "[]\n" },
        { "1", "1\n" },
        { "\"a\"", "a\n" },
        { "\"---\"", "'---'\n" },
        { "null", "null\n" },
        { "false", "false\n" },
        { "[[]]", "- []\n" },
        { "1.5", "1.5\n" },
        { "{\"\": 1}", "'': 1\n" },
        { "{\"1\": {\"2\": [true]}}", "'1':\n  '2':\n    - true\n" },
    };
    for (size_t i = 0; i < sizeof (small) / sizeof (small[0]); i++) {
        o = json_loads (small[i].json, JSON_DECODE_ANY, NULL);
        y = rp_doc_dump_yaml (o);
        is (y, small[i].yaml, "dump %s", small[i].json);
        free (y);
        json_decref (o);
    }
}

static void test_dump_limits (void)
{
    json_t *o = json_array ();
    json_t *inner = o;
    char key[2100];
    char *y;

    for (int i = 1; i < RP_DOC_MAX_DEPTH; i++) {
        json_t *a = json_array ();
        json_array_append_new (inner, a);
        inner = a;
    }
    json_array_append_new (inner, json_integer (1));
    check_round_trip (o, "a tree of depth RP_DOC_MAX_DEPTH round trips");
    json_array_append_new (inner, json_object ());
    errno = 0;
    ok (!rp_doc_dump_yaml (o) && errno == EINVAL,
        "an empty object one level deeper fails with EINVAL");
    json_array_remove (inner, 1);
    json_array_append_new (inner, json_pack ("[i]", 1));
    errno = 0;
    ok (!rp_doc_dump_yaml (o) && errno == EINVAL,
        "a tree deeper than RP_DOC_MAX_DEPTH fails with EINVAL");
    json_decref (o);

    errno = 0;
    ok (!rp_doc_dump_yaml (NULL) && errno == EINVAL,
        "rp_doc_dump_yaml (NULL) fails with EINVAL");

    /* keys over libyaml's 1024-character simple key limit use "? " */
    memset (key, 'k', sizeof (key) - 1);
    key[sizeof (key) - 1] = '\0';
    o = json_pack ("[{s:{s:i}, s:[i]}]", key, "a", 1, "b", 2);
    y = rp_doc_dump_yaml (o);
    ok (y && strncmp (y, "- b:\n    - 2\n  ? kkk", 20) == 0
            && strstr (y, "kkk\n  :\n    a: 1\n"),
        "long key written as \"? key\" then \":\" and the value");
    check_round_trip (o, "long keys round trip");
    free (y);
    json_decref (o);
}

/* Random trees: a fixed-seed xorshift, strings from a hostile alphabet. */

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static unsigned rnd (unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

static json_t *random_string (void)
{
    static const char *const pieces[] = {
        "a",
        "Z",
        "0",
        "1",
        "9",
        ".",
        "-",
        "+",
        "_",
        ":",
        " ",
        "#",
        "'",
        "\"",
        "\\",
        "\t",
        "\n",
        "\r",
        "e",
        "x",
        "b",
        "~",
        "yes",
        "no",
        "null",
        "inf",
        "nan",
        "<<",
        "=",
        "?",
        "!",
        "&",
        "*",
        "{",
        "}",
        "[",
        "]",
        ",",
        "|",
        ">",
        "%",
        "@",
        "`",
        "\xc3\xa9",
        "\xe2\x80\xa8",
        "\xc2\x85",
        "\xef\xbb\xbf",
        "\xf0\x9f\x98\x80",
        "\x01",
        "\x7f",
        "\xef\xbf\xbe",
        "2001-12-14",
        "1:30",
        "0x",
        "0b",
        ".5",
        "e+5",
        "---",
        "...",
        "- ",
        ": ",
        " #",
    };
    char buf[128] = "";
    int n = rnd (6);

    for (int i = 0; i < n; i++)
        strcat (buf, pieces[rnd (sizeof (pieces) / sizeof (pieces[0]))]);
    return json_string (buf);
}

static json_t *random_tree (int depth)
{
    static const double reals[] = { 0.0,    -0.0, 0.5,    1e300,         1e-300,
                                    3600.0, 0.1,  2.5e-8, 123456789.125, -7.0 };
    unsigned k = rnd (depth > 4 ? 7 : 9);
    json_t *o;

    switch (k) {
    case 0:
        return json_null ();
    case 1:
        return json_boolean (rnd (2));
    case 2:
        return json_integer ((json_int_t)(rng_state >> rnd (64))
                             * (rnd (2) ? 1 : -1));
    case 3:
        return json_real (reals[rnd (10)] * (rnd (5) + 1));
    case 4:
    case 5:
    case 6:
        return random_string ();
    case 7:
        o = json_array ();
        for (int i = rnd (5); i > 0; i--)
            json_array_append_new (o, random_tree (depth + 1));
        return o;
    default:
        o = json_object ();
        for (int i = rnd (5); i > 0; i--) {
            json_t *key = random_string ();
            json_object_set_new (o, json_string_value (key),
                                 random_tree (depth + 1));
            json_decref (key);
        }
        return o;
    }
}

static void test_round_trip_random (void)
{
    int failures = 0;

    for (int i = 0; i < 2000; i++) {
        json_t *o = random_tree (0);
        char *y = rp_doc_dump_yaml (o);
        rp_error_t error = { .text = "" };
        struct rp_doc *d = y ? load (y, RP_DOC_YAML, &error) : NULL;

        if ((!d || !json_equal (rp_doc_root (d), o)) && failures++ < 3) {
            diag ("tree: %s", js (o));
            diag ("yaml: %s", y ? y : "(dump failed)");
            diag ("error: %s", error.text);
        }
        rp_doc_destroy (d);
        free (y);
        json_decref (o);
    }
    cmp_ok (failures, ==, 0, "2000 random trees round trip through YAML");
}

/* Diagnostics */

static void test_diags (void)
{
    struct rp_diags *d = rp_diags_create ();
    char want[64];
    bool all = true;

    if (!d)
        BAIL_OUT ("rp_diags_create failed");
    cmp_ok (rp_diags_count (d), ==, 0, "new list is empty");
    ok (rp_diags_text (d, 0) == NULL && rp_diags_severity (d, 0) == -1,
        "out of range on an empty list");
    ok (rp_diags_add (d, RP_DIAG_ERROR, "t:%d:%d: %s", 7, 14, "bad") == 0,
        "rp_diags_add error");
    ok (rp_diags_add (d, RP_DIAG_WARNING, "careful") == 0,
        "rp_diags_add warning");
    cmp_ok (rp_diags_count (d), ==, 2, "count 2");
    cmp_ok (rp_diags_errors (d), ==, 1, "1 error");
    cmp_ok (rp_diags_warnings (d), ==, 1, "1 warning");
    is (rp_diags_text (d, 0), "t:7:14: bad", "text 0 formatted");
    is (rp_diags_text (d, 1), "careful", "text 1");
    cmp_ok (rp_diags_severity (d, 0), ==, RP_DIAG_ERROR, "severity 0");
    cmp_ok (rp_diags_severity (d, 1), ==, RP_DIAG_WARNING, "severity 1");
    errno = 0;
    ok (rp_diags_add (d, 7, "x") < 0 && errno == EINVAL,
        "bad severity fails with EINVAL");
    ok (rp_diags_add (NULL, RP_DIAG_ERROR, "x") < 0 && errno == EINVAL,
        "NULL list fails with EINVAL");
    cmp_ok (rp_diags_count (d), ==, 2, "failed adds change nothing");

    const char *first = rp_diags_text (d, 0);
    for (int i = 2; i < RP_DIAGS_MAX; i++)
        all = all && rp_diags_add (d, RP_DIAG_WARNING, "w%d", i) == 0;
    ok (all, "add up to RP_DIAGS_MAX");
    cmp_ok (rp_diags_count (d), ==, RP_DIAGS_MAX, "RP_DIAGS_MAX stored");
    ok (rp_diags_text (d, 0) == first, "earlier texts stay valid");
    ok (rp_diags_add (d, RP_DIAG_WARNING, "dropped") == 0, "add beyond MAX");
    cmp_ok (rp_diags_count (d), ==, RP_DIAGS_MAX + 1, "plus one trailer");
    is (rp_diags_text (d, RP_DIAGS_MAX), "1 more message dropped", "trailer");
    cmp_ok (rp_diags_severity (d, RP_DIAGS_MAX), ==, RP_DIAG_WARNING,
            "trailer severity: warning");
    const char *trailer = rp_diags_text (d, RP_DIAGS_MAX);
    ok (rp_diags_add (d, RP_DIAG_ERROR, "dropped") == 0
            && rp_diags_add (d, RP_DIAG_WARNING, "dropped") == 0,
        "two more");
    snprintf (want, sizeof (want), "%d more messages dropped", 3);
    is (trailer, want, "trailer counts every dropped message, same pointer");
    cmp_ok (rp_diags_severity (d, RP_DIAGS_MAX), ==, RP_DIAG_ERROR,
            "trailer severity: error once an error was dropped");
    cmp_ok (rp_diags_count (d), ==, RP_DIAGS_MAX + 1, "count stays MAX + 1");
    cmp_ok (rp_diags_errors (d), ==, 2, "dropped errors are counted");
    cmp_ok (rp_diags_warnings (d), ==, RP_DIAGS_MAX + 1,
            "dropped warnings are counted");
    is (rp_diags_text (d, RP_DIAGS_MAX - 1), "w999", "last real message kept");
    ok (rp_diags_text (d, RP_DIAGS_MAX + 1) == NULL, "past the trailer: NULL");

    rp_diags_clear (d);
    ok (rp_diags_count (d) == 0 && rp_diags_errors (d) == 0
            && rp_diags_warnings (d) == 0,
        "clear empties the list and the counters");
    ok (rp_diags_add (d, RP_DIAG_ERROR, "again") == 0
            && rp_diags_count (d) == 1,
        "a cleared list takes messages again");
    errno = 42;
    rp_diags_destroy (d);
    rp_diags_destroy (NULL);
    ok (errno == 42, "rp_diags_destroy keeps errno and accepts NULL");
    ok (rp_diags_count (NULL) == 0 && rp_diags_text (NULL, 0) == NULL
            && rp_diags_severity (NULL, 0) == -1,
        "accessors accept NULL");
}

int main (void)
{
    plan (NO_PLAN);
    test_scalars ();
    test_bad ();
    test_positions_yaml ();
    test_positions_json ();
    test_json_fallback ();
    test_depth ();
    test_nodes ();
    test_size ();
    test_billion_laughs ();
    test_files ();
    test_within ();
    test_args ();
    test_dump_golden ();
    test_dump_limits ();
    test_round_trip_random ();
    test_diags ();
    return done_testing ();
}
