/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for core/query.c (RFC 35 constraint query syntax).
 *
 * A table of queries with the RFC 31 object each must give (compared with
 * json_equal, so array order counts), covering every example of RFC 35
 * (with respol's default operator "properties" in place of the RFC's
 * "name") and RFC 31, every operator spelling, quoting, negation,
 * flattening and the merging of properties terms; and a table of bad
 * queries with their exact error text.  Every query that parses must
 * also compile with rp_constraint_compile.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/constraint.h"
#include "t/tap/tap.h"

struct good {
    const char *query;
    const char *json;
};

static const struct good good[] = {
    /* RFC 35 examples, default operator properties */
    { "foo", "{\"properties\": [\"foo\"]}" },
    { "foo bar", "{\"properties\": [\"foo\", \"bar\"]}" },
    { "foo bar host:started", "{\"and\": [{\"properties\": [\"foo\", \"bar\"]},"
                              " {\"hostlist\": [\"started\"]}]}" },
    { "a|b|c", "{\"or\": [{\"properties\": [\"a\"]}, {\"properties\": [\"b\"]},"
               " {\"properties\": [\"c\"]}]}" },
    { "a|b&c", "{\"or\": [{\"properties\": [\"a\"]}, {\"properties\": [\"b\", "
               "\"c\"]}]}" },
    { "(a|b)&c", "{\"and\": [{\"or\": [{\"properties\": [\"a\"]},"
                 " {\"properties\": [\"b\"]}]}, {\"properties\": [\"c\"]}]}" },
    { "(a|-b)&c", "{\"and\": [{\"or\": [{\"properties\": [\"a\"]},"
                  " {\"not\": [{\"properties\": [\"b\"]}]}]},"
                  " {\"properties\": [\"c\"]}]}" },
    /* the brief's examples and the RFC 31 examples as queries */
    { "ssd", "{\"properties\": [\"ssd\"]}" },
    { "^slowgpu", "{\"properties\": [\"^slowgpu\"]}" },
    { "-slowgpu", "{\"not\": [{\"properties\": [\"slowgpu\"]}]}" },
    { "ssd|huge",
      "{\"or\": [{\"properties\": [\"ssd\"]}, {\"properties\": [\"huge\"]}]}" },
    { "host:host[0-1]", "{\"hostlist\": [\"host[0-1]\"]}" },
    { "-host:host[0-1]", "{\"not\": [{\"hostlist\": [\"host[0-1]\"]}]}" },
    { "host:host[0-1] ssd", "{\"and\": [{\"hostlist\": [\"host[0-1]\"]},"
                            " {\"properties\": [\"ssd\"]}]}" },
    { "host:node[1-4]", "{\"hostlist\": [\"node[1-4]\"]}" },
    { "rank:0", "{\"ranks\": [\"0\"]}" },
    { "rank:0-3", "{\"ranks\": [\"0-3\"]}" },
    /* operator names */
    { "hosts:n1", "{\"hostlist\": [\"n1\"]}" },
    { "hostlist:n[1,3]", "{\"hostlist\": [\"n[1,3]\"]}" },
    { "ranks:1,5", "{\"ranks\": [\"1,5\"]}" },
    { "properties:ssd", "{\"properties\": [\"ssd\"]}" },
    /* and, or spellings */
    { "a&b", "{\"properties\": [\"a\", \"b\"]}" },
    { "a&&b", "{\"properties\": [\"a\", \"b\"]}" },
    { "a and b", "{\"properties\": [\"a\", \"b\"]}" },
    { "a||b",
      "{\"or\": [{\"properties\": [\"a\"]}, {\"properties\": [\"b\"]}]}" },
    { "a or b",
      "{\"or\": [{\"properties\": [\"a\"]}, {\"properties\": [\"b\"]}]}" },
    { "a(b|c)",
      "{\"and\": [{\"properties\": [\"a\"]}, {\"or\": [{\"properties\": "
      "[\"b\"]}, {\"properties\": [\"c\"]}]}]}" },
    /* negation */
    { "not a", "{\"not\": [{\"properties\": [\"a\"]}]}" },
    { "not (a|b)", "{\"not\": [{\"or\": [{\"properties\": [\"a\"]},"
                   " {\"properties\": [\"b\"]}]}]}" },
    { "not a b", "{\"and\": [{\"not\": [{\"properties\": [\"a\"]}]},"
                 " {\"properties\": [\"b\"]}]}" },
    { "not not a", "{\"not\": [{\"not\": [{\"properties\": [\"a\"]}]}]}" },
    { "not -a", "{\"not\": [{\"not\": [{\"properties\": [\"a\"]}]}]}" },
    { "-rank:0", "{\"not\": [{\"ranks\": [\"0\"]}]}" },
    { "a-b", "{\"properties\": [\"a-b\"]}" },
    { "a -b c", "{\"and\": [{\"properties\": [\"a\", \"c\"]},"
                " {\"not\": [{\"properties\": [\"b\"]}]}]}" },
    /* words that only start like keywords are terms */
    { "andy notice orange",
      "{\"properties\": [\"andy\", \"notice\", \"orange\"]}" },
    /* properties operands split at commas */
    { "a,b", "{\"properties\": [\"a\", \"b\"]}" },
    { "a,^b c", "{\"properties\": [\"a\", \"^b\", \"c\"]}" },
    /* quoting */
    { "'and'", "{\"properties\": [\"and\"]}" },
    { "\"or\" 'not'", "{\"properties\": [\"or\", \"not\"]}" },
    { "'a:b'", "{\"properties\": [\"a:b\"]}" },
    { "'a,b'", "{\"properties\": [\"a,b\"]}" },
    { "host:'n[1-2]'", "{\"hostlist\": [\"n[1-2]\"]}" },
    { "-'x'", "{\"not\": [{\"properties\": [\"x\"]}]}" },
    { "'-x'", "{\"properties\": [\"-x\"]}" },
    { "a'b'c", "{\"properties\": [\"abc\"]}" },
    /* flattening and merging */
    { "(a|b)|c",
      "{\"or\": [{\"properties\": [\"a\"]}, {\"properties\": [\"b\"]},"
      " {\"properties\": [\"c\"]}]}" },
    { "(a b) c", "{\"properties\": [\"a\", \"b\", \"c\"]}" },
    { "(host:x rank:1) c",
      "{\"and\": [{\"hostlist\": [\"x\"]}, {\"ranks\": [\"1\"]},"
      " {\"properties\": [\"c\"]}]}" },
    { "host:a host:b",
      "{\"and\": [{\"hostlist\": [\"a\"]}, {\"hostlist\": [\"b\"]}]}" },
    { "((a))", "{\"properties\": [\"a\"]}" },
    /* white space */
    { " \t a \n ", "{\"properties\": [\"a\"]}" },
    { "a|\tb",
      "{\"or\": [{\"properties\": [\"a\"]}, {\"properties\": [\"b\"]}]}" },
};

struct bad {
    const char *query;
    const char *error;
};

static const struct bad bad[] = {
    { "", "constraint query: \"\": empty query" },
    { "  ", "constraint query: \"  \": empty query" },
    { "a | (b", "constraint query: \"a | (b\": missing ')' at offset 6" },
    { "a)", "constraint query: \"a)\": unexpected ')' at offset 1" },
    { "()", "constraint query: \"()\": unexpected ')' at offset 1" },
    { "a |", "constraint query: \"a |\": expected a term at offset 3" },
    { "not", "constraint query: \"not\": expected a term at offset 3" },
    { "| a", "constraint query: \"| a\": unexpected '|' at offset 0" },
    { "a && || b",
      "constraint query: \"a && || b\": unexpected '||' at offset 5" },
    { "a &&& b", "constraint query: \"a &&& b\": unexpected '&' at offset 4" },
    { "and a", "constraint query: \"and a\": unexpected 'and' at offset 0" },
    { "a or or b",
      "constraint query: \"a or or b\": unexpected 'or' at offset 5" },
    { "-(a|b)",
      "constraint query: \"-(a|b)\": '-' must be followed by a term at "
      "offset 0" },
    { "- a",
      "constraint query: \"- a\": '-' must be followed by a term at offset 0" },
    { "--a",
      "constraint query: \"--a\": '-' must be followed by a term at offset 0" },
    { "a -",
      "constraint query: \"a -\": '-' must be followed by a term at offset 2" },
    { "-not a",
      "constraint query: \"-not a\": '-' must be followed by a term at "
      "offset 0" },
    { "'a", "constraint query: \"'a\": unterminated quote at offset 0" },
    { "a \"b'",
      "constraint query: \"a \"b'\": unterminated quote at offset 2" },
    { "foo:x",
      "constraint query: \"foo:x\": unknown operator 'foo' at offset 0" },
    { "a state:started",
      "constraint query: \"a state:started\": unknown operator 'state' at "
      "offset 2" },
    { "and:x",
      "constraint query: \"and:x\": unknown operator 'and' at offset 0" },
    { ":x",
      "constraint query: \":x\": missing operator before ':' at offset 0" },
    { "host:", "constraint query: \"host:\": empty operand at offset 0" },
    { "a rank:''",
      "constraint query: \"a rank:''\": empty operand at offset 2" },
    { "rank:3,2",
      "constraint query: \"rank:3,2\": term at offset 0: idset: \"3,2\": ids "
      "not ascending at offset 2" },
    { "ranks:x",
      "constraint query: \"ranks:x\": term at offset 0: idset: \"x\": "
      "unexpected character 'x' at offset 0" },
    { "a host:n[1-",
      "constraint query: \"a host:n[1-\": term at offset 2: hostlist: "
      "\"n[1-\": missing ']' at offset 4" },
    { "a,,b",
      "constraint query: \"a,,b\": term at offset 0: property name is empty" },
    { "^",
      "constraint query: \"^\": term at offset 0: property name is empty" },
    { "a, b",
      "constraint query: \"a, b\": term at offset 0: property name is empty" },
    { "'a b'",
      "constraint query: \"'a b'\": term at offset 0: property name \"a b\": "
      "illegal character ' ' at offset 1" },
    { "a!b",
      "constraint query: \"a!b\": term at offset 0: property name \"a!b\": "
      "illegal character '!' at offset 1" },
    { "^^a",
      "constraint query: \"^^a\": term at offset 0: property name \"^a\": "
      "illegal character '^' at offset 0" },
    { "a\xff",
      "constraint query: \"a\xff\": term at offset 0: property name: invalid "
      "UTF-8 at offset 1" },
    { "host:n\xff",
      "constraint query: \"host:n\xff\": term at offset 0: hostlist: "
      "\"n\\xff\": invalid character '\\xff' at offset 1" },
    { "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)",
      "constraint query: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
      "aaaaaaaa...\": unexpected ')' at offset 68" },
};

static json_t *load (const char *s)
{
    json_error_t jerr;
    json_t *o = json_loads (s, 0, &jerr);

    if (!o)
        BAIL_OUT ("bad test JSON '%s': %s", s, jerr.text);
    return o;
}

static void diag_json (const char *label, const json_t *o)
{
    char *s = json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS);
    diag ("%s: %s", label, s ? s : "(null)");
    free (s);
}

static void test_good (void)
{
    for (size_t i = 0; i < sizeof (good) / sizeof (good[0]); i++) {
        rp_error_t error = { .text = "" };
        json_t *want = load (good[i].json);
        json_t *got = rp_constraint_query_parse (good[i].query, &error);
        struct rp_constraint *c;

        if (!ok (got && json_equal (got, want), "\"%s\" parses",
                 good[i].query)) {
            diag ("error: %s", error.text);
            diag_json ("got", got);
            diag_json ("want", want);
        }
        c = rp_constraint_compile (got, &error);
        if (!ok (c != NULL, "\"%s\" compiles", good[i].query))
            diag ("%s", error.text);
        rp_constraint_destroy (c);
        json_decref (got);
        json_decref (want);
    }
}

static void test_bad (void)
{
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        rp_error_t error = { .text = "" };
        json_t *got;

        errno = 0;
        got = rp_constraint_query_parse (bad[i].query, &error);
        ok (got == NULL && errno == EINVAL, "\"%s\" fails with EINVAL",
            bad[i].query);
        is (error.text, bad[i].error, "\"%s\": error text", bad[i].query);
        json_decref (got);
    }
}

/* A query of n "not " and a final term, and n '(' ... ')' around a term. */
static char *nots (int n)
{
    char *s = malloc (4 * n + 2);
    for (int i = 0; i < n; i++)
        memcpy (s + 4 * i, "not ", 4);
    strcpy (s + 4 * n, "a");
    return s;
}

static char *parens (int n)
{
    char *s = malloc (2 * n + 2);
    memset (s, '(', n);
    s[n] = 'a';
    memset (s + n + 1, ')', n);
    s[2 * n + 1] = '\0';
    return s;
}

static void test_depth (void)
{
    rp_error_t error;
    char *q;
    json_t *o;
    struct rp_constraint *c;

    /* 63 nots and a term: 64 levels, the most that compiles */
    q = nots (RP_CONSTRAINT_MAX_DEPTH - 1);
    o = rp_constraint_query_parse (q, &error);
    ok (o != NULL, "63 nested nots parse");
    c = rp_constraint_compile (o, &error);
    ok (c != NULL, "and compile (64 levels)");
    ok (rp_constraint_match (c, 0, NULL, NULL, NULL),
        "an odd number of nots around a missing property matches");
    rp_constraint_destroy (c);
    json_decref (o);
    free (q);

    q = nots (RP_CONSTRAINT_MAX_DEPTH);
    errno = 0;
    o = rp_constraint_query_parse (q, &error);
    ok (o == NULL && errno == EINVAL, "64 nested nots fail");
    like (error.text, "...\": nested deeper than 64 levels at offset 257",
          "with the depth and where");
    json_decref (o);
    free (q);

    q = nots (RP_CONSTRAINT_MAX_DEPTH + 1);
    o = rp_constraint_query_parse (q, &error);
    ok (o == NULL, "65 nested nots fail");
    like (error.text, "nested deeper than 64 levels at offset 256",
          "at the 65th not");
    free (q);

    q = parens (RP_CONSTRAINT_MAX_DEPTH);
    o = rp_constraint_query_parse (q, &error);
    ok (o != NULL && json_object_get (o, "properties"),
        "64 nested parentheses parse to one term");
    json_decref (o);
    free (q);

    q = parens (RP_CONSTRAINT_MAX_DEPTH + 1);
    o = rp_constraint_query_parse (q, &error);
    ok (o == NULL, "65 nested parentheses fail");
    like (error.text, "nested deeper than 64 levels at offset 64",
          "at the 65th '('");
    free (q);

    /* each "(a|b " nests an or and an and: 32 of them nest 64 levels
     * below the top or (the tree, not the parentheses, is too deep) */
    {
        size_t n = 33, len = 0;
        char *s = malloc (n * 5 + n + 2);
        for (size_t i = 0; i < n; i++)
            len += sprintf (s + len, "(a|b ");
        s[len++] = 'c';
        memset (s + len, ')', n);
        s[len + n] = '\0';
        o = rp_constraint_query_parse (s, &error);
        ok (o == NULL, "alternating or/and 66 deep fails");
        like (error.text, "nested deeper than 64 levels", "as too deep");
        free (s);
    }
}

static void test_args (void)
{
    rp_error_t error;

    errno = 0;
    ok (rp_constraint_query_parse (NULL, &error) == NULL && errno == EINVAL,
        "NULL query fails with EINVAL");
    is (error.text, "constraint query: no query", "with its text");
    errno = 0;
    ok (rp_constraint_query_parse (")", NULL) == NULL && errno == EINVAL,
        "a NULL error pointer is allowed");
}

int main (void)
{
    plan (NO_PLAN);
    test_good ();
    test_bad ();
    test_depth ();
    test_args ();
    return done_testing ();
}
