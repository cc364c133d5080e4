/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for core/constraint.c (RFC 31 job constraints).
 *
 * One R with four targets node[0-3] and properties ssd (0-1),
 * amd-mi50@gpu (2), slowgpu (3) and the instance-local +local (0).  A
 * table of constraints with the ranks each one selects (checked through
 * rp_constraint_match_rset for ranks 0-4, 4 not being a target, and
 * through rp_constraint_filter_rset): every RFC 31 example, the
 * empty-operand rules, '^' negation and the '@' rule.  A table of bad
 * constraints with their exact error text.  Then targets given directly
 * (no host name, no property callback) and the depth bound.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "respol/constraint.h"
#include "respol/idset.h"
#include "respol/rset.h"
#include "t/tap/tap.h"

static const char *R_text =
    "{\"version\": 1, \"execution\": {"
    "\"R_lite\": [{\"rank\": \"0-3\", \"children\": {\"core\": \"0-1\"}}],"
    "\"nodelist\": [\"node[0-3]\"],"
    "\"properties\": {\"ssd\": \"0-1\", \"amd-mi50@gpu\": \"2\","
    " \"slowgpu\": \"3\", \"+local\": \"0\"},"
    "\"starttime\": 0, \"expiration\": 0}}";

struct match {
    const char *constraint;
    const char *ranks; /* the ranks of R that match */
};

static const struct match matches[] = {
    /* RFC 31 examples */
    { "{\"properties\": [\"ssd\"]}", "0-1" },
    { "{\"properties\": [\"^slowgpu\"]}", "0-2" },
    { "{\"not\": [{\"properties\": [\"slowgpu\"]}]}", "0-2" },
    { "{\"or\": [{\"properties\": [\"ssd\"]}, {\"properties\": [\"huge\"]}]}",
      "0-1" },
    { "{\"hostlist\": [\"node[0-1]\"]}", "0-1" },
    { "{\"not\": [{\"hostlist\": [\"node[0-1]\"]}]}", "2-3" },
    { "{\"and\": [{\"hostlist\": [\"node[0-1]\"]},"
      " {\"properties\": [\"ssd\"]}]}",
      "0-1" },
    { "{\"ranks\": [\"0\"]}", "0" },
    { "{\"not\": [{\"properties\": [\"foo\", \"bar\"]}]}", "0-3" },
    /* empty operands */
    { "{}", "0-3" },
    { "{\"and\": []}", "0-3" },
    { "{\"or\": []}", "0-3" },
    { "{\"not\": []}", "" },
    { "{\"properties\": []}", "0-3" },
    { "{\"hostlist\": []}", "" },
    { "{\"ranks\": []}", "" },
    { "{\"and\": [{}]}", "0-3" },
    { "{\"not\": [{}]}", "" },
    { "{\"not\": [{\"or\": []}]}", "" },
    { "{\"not\": [{\"not\": []}]}", "0-3" },
    /* properties: all required, '^' excludes, '@' rule, '+' is a name */
    { "{\"properties\": [\"ssd\", \"slowgpu\"]}", "" },
    { "{\"properties\": [\"ssd\", \"^+local\"]}", "1" },
    { "{\"properties\": [\"^ssd\", \"^slowgpu\"]}", "2" },
    { "{\"properties\": [\"amd-mi50\"]}", "2" },
    { "{\"properties\": [\"amd-mi50@gpu\"]}", "2" },
    { "{\"properties\": [\"amd-mi50@cpu\"]}", "" },
    { "{\"properties\": [\"^amd-mi50\"]}", "0-1,3" },
    { "{\"properties\": [\"+local\"]}", "0" },
    { "{\"properties\": [\"huge\"]}", "" },
    /* several values are a union */
    { "{\"hostlist\": [\"node0\", \"node3\"]}", "0,3" },
    { "{\"hostlist\": [\"node[0-1]\", \"node[1-2]\"]}", "0-2" },
    { "{\"hostlist\": [\"other[0-3]\"]}", "" },
    { "{\"hostlist\": [\"\"]}", "" },
    { "{\"ranks\": [\"0\", \"2-3\"]}", "0,2-3" },
    { "{\"ranks\": [\"3-100\"]}", "3" },
    { "{\"ranks\": [\"[1-2]\"]}", "1-2" },
    /* nesting */
    { "{\"and\": [{\"or\": [{\"ranks\": [\"0\"]},"
      " {\"properties\": [\"slowgpu\"]}]},"
      " {\"not\": [{\"hostlist\": [\"node3\"]}]}]}",
      "0" },
    { "{\"or\": [{\"and\": [{\"ranks\": [\"0-2\"]},"
      " {\"properties\": [\"^ssd\"]}]}, {\"hostlist\": [\"node3\"]}]}",
      "2-3" },
};

struct bad {
    const char *constraint;
    const char *error;
};

static const struct bad bads[] = {
    { "[]", "constraint: must be an object" },
    { "\"ssd\"", "constraint: must be an object" },
    { "{\"foo\": []}", "constraint: unknown operator 'foo'" },
    { "{\"and\": [{\"foo\": [1]}]}", "constraint: and[0]: unknown operator "
                                     "'foo'" },
    { "{\"a\": [], \"b\": []}", "constraint: expected one operator, got 2" },
    { "{\"or\": [{}, {\"a\": [], \"b\": []}]}",
      "constraint: or[1]: expected one operator, got 2" },
    { "{\"properties\": \"ssd\"}",
      "constraint: properties: values must be an array" },
    { "{\"or\": {}}", "constraint: or: values must be an array" },
    { "{\"properties\": [1]}",
      "constraint: properties[0]: value must be a string" },
    { "{\"and\": [{\"ranks\": [\"0\"]}, {\"properties\": [\"a\", null]}]}",
      "constraint: and[1].properties[1]: value must be a string" },
    { "{\"properties\": [\"\"]}",
      "constraint: properties[0]: property name is empty" },
    { "{\"properties\": [\"^\"]}",
      "constraint: properties[0]: property name is empty" },
    { "{\"properties\": [\"^^a\"]}",
      "constraint: properties[0]: property name \"^a\": illegal character '^' "
      "at offset 0" },
    { "{\"properties\": [\"a b\"]}",
      "constraint: properties[0]: property name \"a b\": illegal character ' ' "
      "at offset 1" },
    { "{\"hostlist\": [\"n[1-\"]}",
      "constraint: hostlist[0]: hostlist: \"n[1-\": missing ']' at "
      "offset 4" },
    { "{\"hostlist\": [\"n1\", 5]}",
      "constraint: hostlist[1]: value must be a string" },
    { "{\"ranks\": [0]}", "constraint: ranks[0]: value must be a string" },
    { "{\"ranks\": [\"3,2\"]}",
      "constraint: ranks[0]: idset: \"3,2\": ids not ascending at offset 2" },
    { "{\"not\": [{}, {}]}", "constraint: not: takes one value (got 2)" },
    { "{\"not\": [1]}", "constraint: not[0]: must be an object" },
    { "{\"or\": [{\"not\": [{\"and\": [[]]}]}]}",
      "constraint: or[0].not[0].and[0]: must be an object" },
};

static json_t *load (const char *s)
{
    json_error_t jerr;
    json_t *o = json_loads (s, JSON_DECODE_ANY, &jerr);

    if (!o)
        BAIL_OUT ("bad test JSON '%s': %s", s, jerr.text);
    return o;
}

static struct rp_constraint *compile (const char *s)
{
    json_t *o = load (s);
    rp_error_t error;
    struct rp_constraint *c = rp_constraint_compile (o, &error);

    if (!c)
        BAIL_OUT ("compile %s: %s", s, error.text);
    json_decref (o);
    return c;
}

/* The ranks 0-4 of r that c matches, encoded. */
static char *matching_ranks (const struct rp_constraint *c,
                             const struct rp_rset *r)
{
    struct rp_idset *ids = rp_idset_create ();
    char *s;

    for (unsigned int rank = 0; rank <= 4; rank++)
        if (rp_constraint_match_rset (c, r, rank))
            rp_idset_add (ids, rank);
    s = rp_idset_encode (ids, RP_IDSET_RANGES);
    rp_idset_destroy (ids);
    return s;
}

static char *filtered_ranks (const struct rp_constraint *c,
                             const struct rp_rset *r)
{
    rp_error_t error;
    struct rp_rset *f = rp_constraint_filter_rset (c, r, &error);
    char *s;

    if (!f) {
        diag ("filter: %s", error.text);
        return NULL;
    }
    s = rp_idset_encode (rp_rset_ranks (f), RP_IDSET_RANGES);
    rp_rset_destroy (f);
    return s;
}

static void test_matches (const struct rp_rset *r)
{
    for (size_t i = 0; i < sizeof (matches) / sizeof (matches[0]); i++) {
        struct rp_constraint *c = compile (matches[i].constraint);
        char *got = matching_ranks (c, r);
        char *filtered = filtered_ranks (c, r);

        is (got, matches[i].ranks, "%s matches ranks \"%s\"",
            matches[i].constraint, matches[i].ranks);
        is (filtered, matches[i].ranks, "%s filters R to ranks \"%s\"",
            matches[i].constraint, matches[i].ranks);
        free (got);
        free (filtered);
        rp_constraint_destroy (c);
    }
}

static void test_bad (void)
{
    for (size_t i = 0; i < sizeof (bads) / sizeof (bads[0]); i++) {
        json_t *o = load (bads[i].constraint);
        rp_error_t error = { .text = "" };
        struct rp_constraint *c;

        errno = 0;
        c = rp_constraint_compile (o, &error);
        ok (c == NULL && errno == EINVAL, "%s fails with EINVAL",
            bads[i].constraint);
        is (error.text, bads[i].error, "%s: error text", bads[i].constraint);
        rp_constraint_destroy (c);
        json_decref (o);
    }
}

/* Properties of a target given directly: a NULL-terminated list. */
static bool has_in_list (const char *name, void *arg)
{
    for (const char *const *p = arg; *p; p++)
        if (!strcmp (*p, name))
            return true;
    return false;
}

static void test_direct (void)
{
    const char *props[] = { "ssd", "big", NULL };
    struct rp_constraint *c;

    c = compile ("{\"hostlist\": [\"x\"]}");
    ok (!rp_constraint_match (c, 0, NULL, NULL, NULL),
        "a target without a host name matches no hostlist");
    ok (rp_constraint_match (c, 0, "x", NULL, NULL), "host x matches x");
    ok (!rp_constraint_match (c, 0, "x[1]", NULL, NULL),
        "a hostlist expression as host name matches nothing");
    rp_constraint_destroy (c);

    c = compile ("{\"not\": [{\"hostlist\": [\"x\"]}]}");
    ok (rp_constraint_match (c, 0, NULL, NULL, NULL),
        "a target without a host name matches not hostlist");
    rp_constraint_destroy (c);

    c = compile ("{\"properties\": [\"^a\"]}");
    ok (rp_constraint_match (c, 0, NULL, NULL, NULL),
        "without a callback a target has no property: ^a matches");
    rp_constraint_destroy (c);

    c = compile ("{\"properties\": [\"ssd\", \"big\", \"^small\"]}");
    ok (!rp_constraint_match (c, 0, NULL, NULL, NULL),
        "without a callback ssd does not match");
    ok (rp_constraint_match (c, 7, "h", has_in_list, props),
        "the callback decides: ssd, big, not small");
    rp_constraint_destroy (c);

    c = compile ("{\"ranks\": [\"4294967294\"]}");
    ok (rp_constraint_match (c, 4294967294U, NULL, NULL, NULL),
        "the largest rank matches");
    ok (!rp_constraint_match (c, 4294967295U, NULL, NULL, NULL),
        "RP_IDSET_INVALID_ID does not");
    rp_constraint_destroy (c);

    ok (!rp_constraint_match (NULL, 0, NULL, NULL, NULL),
        "a NULL constraint matches nothing");
    ok (!rp_constraint_match_rset (NULL, NULL, 0),
        "match_rset with NULLs is false");
}

/* {"not": [ ... {} ... ]} nested n levels. */
static json_t *nested (int n)
{
    json_t *o = json_object ();
    for (int i = 1; i < n; i++)
        o = json_pack ("{s:[o]}", "not", o);
    return o;
}

static void test_depth (void)
{
    json_t *o;
    rp_error_t error;
    struct rp_constraint *c;

    o = nested (RP_CONSTRAINT_MAX_DEPTH);
    c = rp_constraint_compile (o, &error);
    ok (c != NULL, "64 levels compile");
    ok (rp_constraint_match (c, 0, NULL, NULL, NULL) == false,
        "63 nots of {} match nothing");
    rp_constraint_destroy (c);
    json_decref (o);

    o = nested (RP_CONSTRAINT_MAX_DEPTH + 1);
    errno = 0;
    c = rp_constraint_compile (o, &error);
    ok (c == NULL && errno == EINVAL, "65 levels fail with EINVAL");
    like (error.text, "constraint: ...", "the path is cut at its start");
    like (error.text, ".not[0].not[0]: nested deeper than 64 levels",
          "the end of the path and the message survive");
    json_decref (o);

    errno = 0;
    ok (rp_constraint_compile (NULL, &error) == NULL && errno == EINVAL,
        "NULL fails with EINVAL");
    is (error.text, "constraint: must be an object", "with its text");
    errno = 0;
    rp_constraint_destroy (NULL);
    ok (errno == 0, "destroy (NULL) is a no-op");
}

static void test_hostlist_bound (void)
{
    json_t *o = load ("{\"hostlist\": [\"n[0-16777215]\", \"m[0-1]\"]}");
    rp_error_t error;
    struct rp_constraint *c;

    errno = 0;
    c = rp_constraint_compile (o, &error);
    ok (c == NULL && errno == EOVERFLOW,
        "a hostlist union past 2^24 hosts fails with EOVERFLOW");
    like (error.text, "constraint: hostlist[1]: hostlist: ",
          "naming the value that overflows");
    json_decref (o);

    o = load ("{\"hostlist\": [\"n[0-16777215]\"]}");
    c = rp_constraint_compile (o, &error);
    ok (c != NULL, "a hostlist of 2^24 hosts compiles");
    ok (rp_constraint_match (c, 0, "n16777215", NULL, NULL),
        "and matches its last host");
    ok (!rp_constraint_match (c, 0, "n16777216", NULL, NULL),
        "and not the next one");
    rp_constraint_destroy (c);
    json_decref (o);
}

/* Compile {"hostlist": [text]} and match host, in a child limited to
 * 256 MiB of address space when the build allows it.  Returns 1 for a
 * match, 0 for none, -1 when the child failed (out of memory or worse). */
static int match_in_small_child (const char *text, const char *host, bool limit)
{
    pid_t pid = fork ();
    int status;

    if (pid == 0) {
        struct rlimit rl = { 256UL << 20, 256UL << 20 };
        json_t *o = json_pack ("{s:[s]}", "hostlist", text);
        struct rp_constraint *c;

        if (limit && setrlimit (RLIMIT_AS, &rl) < 0)
            _exit (3);
        if (!o || !(c = rp_constraint_compile (o, NULL)))
            _exit (2);
        _exit (rp_constraint_match (c, 0, host, NULL, NULL) ? 1 : 0);
    }
    if (pid < 0 || waitpid (pid, &status, 0) < 0 || !WIFEXITED (status))
        return -1;
    return WEXITSTATUS (status) <= 1 ? WEXITSTATUS (status) : -1;
}

/* A 30-byte hostlist whose suffix holds a digit used to be indexed host by
 * host: 2^24 hosts took seconds and gigabytes to compile.  The child's
 * address space is limited to 256 MiB, except under AddressSanitizer,
 * which reserves far more than that for itself. */
#if defined(__SANITIZE_ADDRESS__)
#define LIMIT_ADDRESS_SPACE false
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LIMIT_ADDRESS_SPACE false
#endif
#endif
#ifndef LIMIT_ADDRESS_SPACE
#define LIMIT_ADDRESS_SPACE true
#endif

static void test_hostlist_digit_suffix_is_small (void)
{
    bool limit = LIMIT_ADDRESS_SPACE;

    cmp_ok (match_in_small_child ("n[0-16777215]-e1", "n16777215-e1", limit),
            ==, 1, "n[0-16777215]-e1 matches n16777215-e1 in 256 MiB");
    cmp_ok (match_in_small_child ("n[0-16777215]-e1", "n5-e2", limit), ==, 0,
            "and not n5-e2");
    cmp_ok (match_in_small_child ("n[0-99]5", "n125", limit), ==, 1,
            "n[0-99]5 matches n125 (split at the first digits)");
    cmp_ok (match_in_small_child ("n[0-99]5", "n1005", limit), ==, 0,
            "and not n1005");
}

static void test_filter (const struct rp_rset *r)
{
    struct rp_constraint *c = compile ("{\"properties\": [\"ssd\"]}");
    rp_error_t error;
    struct rp_rset *f = rp_constraint_filter_rset (c, r, &error);
    json_t *props = f ? rp_rset_properties (f) : NULL;
    json_t *want = load ("{\"ssd\": \"0-1\", \"+local\": \"0\"}");

    ok (f && rp_rset_ntargets (f) == 2, "filter ssd keeps two targets");
    ok (props && json_equal (props, want),
        "with the properties of the targets kept");
    ok (f && !strcmp (rp_rset_hostname (f, 1), "node1"),
        "and their host names");
    ok (f && rp_rset_count (f, "core") == 4, "and their cores");
    json_decref (props);
    json_decref (want);
    rp_rset_destroy (f);

    errno = 0;
    ok (rp_constraint_filter_rset (NULL, r, &error) == NULL && errno == EINVAL,
        "filter with a NULL constraint fails with EINVAL");
    is (error.text, "constraint: filter: invalid argument", "with its text");
    rp_constraint_destroy (c);
}

int main (void)
{
    rp_error_t error;
    struct rp_rset *r;

    plan (NO_PLAN);
    if (!(r = rp_rset_decode (R_text, &error)))
        BAIL_OUT ("decode R: %s", error.text);
    test_matches (r);
    test_bad ();
    test_direct ();
    test_depth ();
    test_hostlist_bound ();
    test_hostlist_digit_suffix_is_small ();
    test_filter (r);
    rp_rset_destroy (r);
    return done_testing ();
}
