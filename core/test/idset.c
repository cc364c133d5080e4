/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for core/idset.c (RFC 22 idsets).
 *
 * Tables of valid strings with their encodings in every flag combination and
 * of invalid strings with their exact error text; every API function with its
 * edge cases (0, RP_IDSET_MAX_ID, the empty set, NULL); and the set algebra
 * checked against a naive bitmap model on random small sets with a fixed
 * seed, so a failure always reproduces.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/idset.h"
#include "t/tap/tap.h"

#include "core/test/allocs.h"

#define R RP_IDSET_RANGES
#define B RP_IDSET_BRACKETS
#define MAX RP_IDSET_MAX_ID
#define INVALID RP_IDSET_INVALID_ID

/* Decode s, fail the test run if it does not decode. */
static struct rp_idset *dec (const char *s)
{
    rp_error_t error;
    struct rp_idset *set = rp_idset_decode (s, &error);

    if (!set)
        BAIL_OUT ("decode \"%s\": %s", s, error.text);
    return set;
}

/* Encode set with flags into a static buffer (for short sets). */
static const char *enc (const struct rp_idset *set, int flags)
{
    static char buf[256];
    char *s = rp_idset_encode (set, flags);

    if (!s)
        return "(encode failed)";
    snprintf (buf, sizeof (buf), "%s", s);
    free (s);
    return buf;
}

/* Valid strings */

struct valid {
    const char *input;
    const char *plain;  /* flags 0 */
    const char *ranges; /* RP_IDSET_RANGES */
    const char *plain_b;
    const char *ranges_b;
    size_t count;
};

static const struct valid valid[] = {
    { "", "", "", "", "", 0 },
    { "[]", "", "", "", "", 0 },
    { "  \t\n", "", "", "", "", 0 },
    { " [] ", "", "", "", "", 0 },
    { "0", "0", "0", "0", "0", 1 },
    { "[0]", "0", "0", "0", "0", 1 },
    { "42", "42", "42", "42", "42", 1 },
    { "3-3", "3", "3", "3", "3", 1 },
    { "1,2", "1,2", "1-2", "[1,2]", "[1-2]", 2 },
    { "1-2", "1,2", "1-2", "[1,2]", "[1-2]", 2 },
    { "1,2,3", "1,2,3", "1-3", "[1,2,3]", "[1-3]", 3 },
    { "1,2,3,5,6,42", "1,2,3,5,6,42", "1-3,5-6,42", "[1,2,3,5,6,42]",
      "[1-3,5-6,42]", 6 },
    { "1-3,5-6,42", "1,2,3,5,6,42", "1-3,5-6,42", "[1,2,3,5,6,42]",
      "[1-3,5-6,42]", 6 },
    { "[1-3,5-6,42]", "1,2,3,5,6,42", "1-3,5-6,42", "[1,2,3,5,6,42]",
      "[1-3,5-6,42]", 6 },
    { "0-2,3,4-5", "0,1,2,3,4,5", "0-5", "[0,1,2,3,4,5]", "[0-5]", 6 },
    { "1,3,5", "1,3,5", "1,3,5", "[1,3,5]", "[1,3,5]", 3 },
    { "8-11", "8,9,10,11", "8-11", "[8,9,10,11]", "[8-11]", 4 },
    { " 7,9 \n", "7,9", "7,9", "[7,9]", "[7,9]", 2 },
    { "\t[7-8]\r\n", "7,8", "7-8", "[7,8]", "[7-8]", 2 },
    { "4294967294", "4294967294", "4294967294", "4294967294", "4294967294", 1 },
    { "4294967293-4294967294", "4294967293,4294967294", "4294967293-4294967294",
      "[4294967293,4294967294]", "[4294967293-4294967294]", 2 },
    { "0,4294967294", "0,4294967294", "0,4294967294", "[0,4294967294]",
      "[0,4294967294]", 2 },
    { "99-101", "99,100,101", "99-101", "[99,100,101]", "[99-101]", 3 },
};

static void test_valid (void)
{
    for (size_t i = 0; i < sizeof (valid) / sizeof (valid[0]); i++) {
        const struct valid *v = &valid[i];
        rp_error_t error = { .text = "untouched" };
        struct rp_idset *set = rp_idset_decode (v->input, &error);

        if (!ok (set != NULL, "decode \"%s\" works", tap_escape (v->input))) {
            diag ("%s", error.text);
            continue;
        }
        is (error.text, "untouched", "decode \"%s\" leaves error alone",
            tap_escape (v->input));
        cmp_ok (rp_idset_count (set), ==, v->count, "\"%s\" has %zu ids",
                tap_escape (v->input), v->count);
        is (enc (set, 0), v->plain, "\"%s\" encodes as \"%s\"",
            tap_escape (v->input), v->plain);
        is (enc (set, R), v->ranges, "\"%s\" with RANGES is \"%s\"",
            tap_escape (v->input), v->ranges);
        is (enc (set, B), v->plain_b, "\"%s\" with BRACKETS is \"%s\"",
            tap_escape (v->input), v->plain_b);
        is (enc (set, R | B), v->ranges_b,
            "\"%s\" with RANGES|BRACKETS is \"%s\"", tap_escape (v->input),
            v->ranges_b);
        rp_idset_destroy (set);
    }
}

/* Invalid strings */

struct invalid {
    const char *input;
    int errnum;
    const char *text;
};

static const struct invalid invalid[] = {
    { "3,2", EINVAL, "idset: \"3,2\": ids not ascending at offset 2" },
    { "1,1", EINVAL, "idset: \"1,1\": ids not ascending at offset 2" },
    { "1-3,2", EINVAL, "idset: \"1-3,2\": ids not ascending at offset 4" },
    { "1-3,3-5", EINVAL, "idset: \"1-3,3-5\": ids not ascending at offset 4" },
    { "[5,1-2]", EINVAL, "idset: \"[5,1-2]\": ids not ascending at offset 3" },
    { "01", EINVAL, "idset: \"01\": leading zero at offset 0" },
    { "00", EINVAL, "idset: \"00\": leading zero at offset 0" },
    { "1-02", EINVAL, "idset: \"1-02\": leading zero at offset 2" },
    { "1,007", EINVAL, "idset: \"1,007\": leading zero at offset 2" },
    { "4294967295", ERANGE,
      "idset: \"4294967295\": id too large (max 4294967294) at offset 0" },
    { "1-4294967295", ERANGE,
      "idset: \"1-4294967295\": id too large (max 4294967294) at offset 2" },
    { "99999999999999999999999", ERANGE,
      "idset: \"99999999999999999999999\": id too large (max 4294967294) at "
      "offset 0" },
    { "1,,2", EINVAL, "idset: \"1,,2\": empty element at offset 2" },
    { ",", EINVAL, "idset: \",\": empty element at offset 0" },
    { "1,", EINVAL, "idset: \"1,\": empty element at offset 2" },
    { ",1", EINVAL, "idset: \",1\": empty element at offset 0" },
    { "[1,]", EINVAL, "idset: \"[1,]\": empty element at offset 3" },
    { "[,]", EINVAL, "idset: \"[,]\": empty element at offset 1" },
    { " 1, ", EINVAL, "idset: \" 1, \": empty element at offset 3" },
    { "5-3", EINVAL, "idset: \"5-3\": range not ascending at offset 0" },
    { "1,5-3", EINVAL, "idset: \"1,5-3\": range not ascending at offset 2" },
    { "1-", EINVAL, "idset: \"1-\": missing id after '-' at offset 2" },
    { "1-,2", EINVAL, "idset: \"1-,2\": missing id after '-' at offset 2" },
    { "[1-]", EINVAL, "idset: \"[1-]\": missing id after '-' at offset 3" },
    { "x", EINVAL, "idset: \"x\": unexpected character 'x' at offset 0" },
    { "1x", EINVAL, "idset: \"1x\": unexpected character 'x' at offset 1" },
    { "-1", EINVAL, "idset: \"-1\": unexpected character '-' at offset 0" },
    { "1--2", EINVAL, "idset: \"1--2\": unexpected character '-' at offset 2" },
    { "1-2-3", EINVAL,
      "idset: \"1-2-3\": unexpected character '-' at offset 3" },
    { "1-a", EINVAL, "idset: \"1-a\": unexpected character 'a' at offset 2" },
    { "+1", EINVAL, "idset: \"+1\": unexpected character '+' at offset 0" },
    { "1 2", EINVAL, "idset: \"1 2\": unexpected character ' ' at offset 1" },
    { "1, 2", EINVAL, "idset: \"1, 2\": unexpected character ' ' at offset 2" },
    { "[ ]", EINVAL, "idset: \"[ ]\": unexpected character ' ' at offset 1" },
    { "[[1]", EINVAL, "idset: \"[[1]\": unexpected character '[' at offset 1" },
    { "1[2]", EINVAL, "idset: \"1[2]\": unexpected character '[' at offset 1" },
    { "[1][2]", EINVAL,
      "idset: \"[1][2]\": unexpected character '[' at offset 3" },
    { "1;2", EINVAL, "idset: \"1;2\": unexpected character ';' at offset 1" },
    { "1\x01", EINVAL,
      "idset: \"1\\x01\": unexpected character '\\x01' at offset 1" },
    { "\xff", EINVAL,
      "idset: \"\\xff\": unexpected character '\\xff' at offset 0" },
    { "[", EINVAL, "idset: \"[\": missing ']' at offset 1" },
    { "[1", EINVAL, "idset: \"[1\": missing ']' at offset 2" },
    { "[1-3,5 ", EINVAL, "idset: \"[1-3,5 \": missing ']' at offset 6" },
    { "]", EINVAL, "idset: \"]\": unexpected ']' at offset 0" },
    { "1]", EINVAL, "idset: \"1]\": unexpected ']' at offset 1" },
    { "1,]", EINVAL, "idset: \"1,]\": unexpected ']' at offset 2" },
    { "[1]]", EINVAL, "idset: \"[1]]\": unexpected ']' at offset 3" },
    { "[]]", EINVAL, "idset: \"[]]\": unexpected ']' at offset 2" },
    { "[1]x", EINVAL, "idset: \"[1]x\": unexpected character 'x' at offset 3" },
    /* long inputs show 64 bytes and "..." */
    { "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,"
      "x",
      EINVAL,
      "idset: \"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,"
      "24,2...\": unexpected character 'x' at offset 66" },
    /* exactly 64 bytes: shown whole */
    { "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,x",
      EINVAL,
      "idset: \"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,"
      "24,x\": unexpected character 'x' at offset 63" },
    /* a \xHH is never split: 15 of them fill 60 bytes, the 16th would not
     * fit in 64 */
    { "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01",
      EINVAL,
      "idset: \"\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01"
      "\\x01\\x01\\x01\\x01\": unexpected character '\\x01' at offset 0" },
    { "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"
      "\x01",
      EINVAL,
      "idset: \"\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01\\x01"
      "\\x01\\x01\\x01\\x01...\": unexpected character '\\x01' at offset 0" },
    { "12345678901234567890123456789012345678901234567890123456789012\x01"
      "9",
      ERANGE,
      "idset: \"12345678901234567890123456789012345678901234567890123456789012"
      "...\": id too large (max 4294967294) at offset 0" },
};

static void test_invalid (void)
{
    for (size_t i = 0; i < sizeof (invalid) / sizeof (invalid[0]); i++) {
        const struct invalid *v = &invalid[i];
        rp_error_t error = { .text = "" };
        struct rp_idset *set;

        errno = 0;
        set = rp_idset_decode (v->input, &error);
        ok (set == NULL && errno == v->errnum, "decode \"%s\" fails with %s",
            tap_escape (v->input), v->errnum == ERANGE ? "ERANGE" : "EINVAL");
        is (error.text, v->text, "and says %s", tap_escape (v->text));
        errno = 0;
        set = rp_idset_decode (v->input, NULL);
        ok (set == NULL && errno == v->errnum,
            "decode \"%s\" fails the same without an error buffer",
            tap_escape (v->input));
    }
}

static void test_decode_args (void)
{
    rp_error_t error = { .text = "" };
    struct rp_idset *set;
    const char buf[] = { '1', '-', '3', ',', '9' };
    const char nul[] = { '1', '\0', '2' };

    errno = 0;
    ok (rp_idset_decode (NULL, &error) == NULL && errno == EINVAL,
        "decode (NULL) fails with EINVAL");
    is (error.text, "idset: input is NULL", "and says so");
    errno = 0;
    ok (rp_idset_ndecode (NULL, 0, &error) == NULL && errno == EINVAL,
        "ndecode (NULL, 0) fails with EINVAL");

    set = rp_idset_ndecode (buf, 3, &error);
    is (enc (set, R), "1-3", "ndecode stops at len (no NUL needed)");
    rp_idset_destroy (set);
    set = rp_idset_ndecode (buf, sizeof (buf), &error);
    is (enc (set, R), "1-3,9", "ndecode reads all len bytes");
    rp_idset_destroy (set);
    set = rp_idset_ndecode (buf, 0, &error);
    ok (set && rp_idset_empty (set), "ndecode of 0 bytes is the empty set");
    rp_idset_destroy (set);
    set = rp_idset_ndecode ("1,2", 1, &error);
    is (enc (set, R), "1", "ndecode ignores bytes past len");
    rp_idset_destroy (set);

    errno = 0;
    ok (rp_idset_ndecode (nul, sizeof (nul), &error) == NULL && errno == EINVAL,
        "ndecode rejects an embedded NUL");
    is (error.text,
        "idset: \"1\\x002\": unexpected character '\\x00' at "
        "offset 1",
        "and shows it as \\x00");
}

/* Encoding */

static void test_encode (void)
{
    struct rp_idset *set = dec ("0-4294967294");
    char *s;

    cmp_ok (rp_idset_count (set), ==, 4294967295ULL,
            "the full set has 2^32-1 members");
    cmp_ok (rp_idset_range_count (set), ==, 1, "in one range");
    is (enc (set, R), "0-4294967294", "and encodes back with RANGES");
    is (enc (set, R | B), "[0-4294967294]", "and with brackets");
    rp_idset_destroy (set);

    set = dec ("0-100000000");
    cmp_ok (rp_idset_count (set), ==, 100000001, "0-100000000 has 1e8+1 ids");
    is (enc (set, R), "0-100000000", "and encodes back with RANGES");
    rp_idset_destroy (set);

    set = dec ("8-12,98-101,999-1000");
    s = rp_idset_encode (set, 0);
    is (s, "8,9,10,11,12,98,99,100,101,999,1000",
        "flags 0 lists every id across decade boundaries");
    free (s);
    errno = 0;
    ok (rp_idset_encode (set, 4) == NULL && errno == EINVAL,
        "encode with an unknown flag fails with EINVAL");
    errno = 0;
    ok (rp_idset_encode (set, -1) == NULL && errno == EINVAL,
        "encode with flags -1 fails with EINVAL");
    errno = 0;
    ok (rp_idset_encode (NULL, R) == NULL && errno == EINVAL,
        "encode (NULL) fails with EINVAL");
    rp_idset_destroy (set);

    set = dec ("4294967290-4294967294");
    s = rp_idset_encode (set, 0);
    is (s, "4294967290,4294967291,4294967292,4294967293,4294967294",
        "flags 0 near RP_IDSET_MAX_ID");
    free (s);
    rp_idset_destroy (set);
}

/* Point updates and queries */

static void test_create_destroy (void)
{
    struct rp_idset *set = rp_idset_create ();
    struct rp_idset *cpy;

    ok (set != NULL, "create works");
    ok (rp_idset_empty (set), "a new set is empty");
    cmp_ok (rp_idset_count (set), ==, 0, "and has no member");
    cmp_ok (rp_idset_range_count (set), ==, 0, "and no range");
    ok (rp_idset_min (set) == INVALID, "min of the empty set is INVALID");
    ok (rp_idset_max (set) == INVALID, "max of the empty set is INVALID");
    ok (rp_idset_first (set) == INVALID, "first of the empty set is INVALID");
    ok (rp_idset_next (set, 0) == INVALID, "next of the empty set is INVALID");
    ok (rp_idset_nth (set, 0) == INVALID, "nth of the empty set is INVALID");
    ok (!rp_idset_test (set, 0), "0 is not in the empty set");
    is (enc (set, R | B), "", "the empty set encodes as \"\"");

    cpy = rp_idset_copy (set);
    ok (cpy && rp_idset_empty (cpy), "copy of the empty set is empty");
    rp_idset_destroy (cpy);
    rp_idset_destroy (set);

    set = dec ("1-3,7,100-200");
    cpy = rp_idset_copy (set);
    ok (cpy && rp_idset_equal (cpy, set), "copy is equal to the original");
    rp_idset_add (cpy, 5);
    ok (!rp_idset_test (set, 5), "and independent of it");
    rp_idset_destroy (cpy);
    rp_idset_destroy (set);

    errno = 0;
    ok (rp_idset_copy (NULL) == NULL && errno == EINVAL,
        "copy (NULL) fails with EINVAL");
    errno = 42;
    rp_idset_destroy (NULL);
    ok (errno == 42, "destroy (NULL) is a no-op that keeps errno");
    set = dec ("1");
    errno = 42;
    rp_idset_destroy (set);
    ok (errno == 42, "destroy keeps errno");
}

struct update {
    const char *before;
    char op; /* '+' add_range, '-' remove_range */
    unsigned int lo, hi;
    const char *after;
};

static const struct update updates[] = {
    { "", '+', 5, 5, "5" },
    { "5", '+', 5, 5, "5" },
    { "5", '+', 4, 4, "4-5" },
    { "5", '+', 6, 6, "5-6" },
    { "5", '+', 7, 7, "5,7" },
    { "5", '+', 3, 3, "3,5" },
    { "3,7", '+', 5, 5, "3,5,7" },
    { "3,5", '+', 4, 4, "3-5" },
    { "1-2,4-5,7-8,10-11", '+', 3, 9, "1-11" },
    { "1-2,4-5,7-8,20", '+', 5, 7, "1-2,4-8,20" },
    { "1-2,4-5,7-8,20", '+', 6, 6, "1-2,4-8,20" },
    { "10-20", '+', 0, 30, "0-30" },
    { "10-20", '+', 12, 15, "10-20" },
    { "10-20", '+', 0, 9, "0-20" },
    { "10-20", '+', 21, 4294967294, "10-4294967294" },
    { "0", '+', 4294967294, 4294967294, "0,4294967294" },
    { "", '+', 0, 4294967294, "0-4294967294" },
    { "", '-', 5, 5, "" },
    { "5", '-', 5, 5, "" },
    { "5", '-', 6, 6, "5" },
    { "4-6", '-', 5, 5, "4,6" },
    { "4-6", '-', 4, 4, "5-6" },
    { "4-6", '-', 6, 6, "4-5" },
    { "1-10", '-', 3, 7, "1-2,8-10" },
    { "1-10", '-', 0, 4294967294, "" },
    { "1-3,5-7,9-11", '-', 2, 10, "1,11" },
    { "1-3,5-7,9-11", '-', 4, 8, "1-3,9-11" },
    { "1-3,5-7,9-11", '-', 5, 7, "1-3,9-11" },
    { "1-3,5-7,9-11", '-', 0, 5, "6-7,9-11" },
    { "1-3,5-7,9-11", '-', 7, 100, "1-3,5-6" },
    { "0-4294967294", '-', 0, 0, "1-4294967294" },
    { "0-4294967294", '-', 4294967294, 4294967294, "0-4294967293" },
    { "0-4294967294", '-', 1, 4294967293, "0,4294967294" },
};

static void test_updates (void)
{
    for (size_t i = 0; i < sizeof (updates) / sizeof (updates[0]); i++) {
        const struct update *u = &updates[i];
        struct rp_idset *set = dec (u->before);
        struct rp_idset *want = dec (u->after);
        int rc;

        if (u->op == '+')
            rc = rp_idset_add_range (set, u->lo, u->hi);
        else
            rc = rp_idset_remove_range (set, u->lo, u->hi);
        ok (rc == 0 && rp_idset_equal (set, want), "\"%s\" %c [%u, %u] = %s",
            u->before, u->op, u->lo, u->hi, enc (set, R));
        cmp_ok (rp_idset_count (set), ==, rp_idset_count (want),
                "and the count is %zu", rp_idset_count (want));
        rp_idset_destroy (set);
        rp_idset_destroy (want);
    }
}

static void test_update_errors (void)
{
    struct rp_idset *set = dec ("1-3");

    errno = 0;
    ok (rp_idset_add (set, INVALID) < 0 && errno == ERANGE,
        "add (RP_IDSET_INVALID_ID) fails with ERANGE");
    errno = 0;
    ok (rp_idset_add_range (set, 5, INVALID) < 0 && errno == ERANGE,
        "add_range (5, RP_IDSET_INVALID_ID) fails with ERANGE");
    errno = 0;
    ok (rp_idset_add_range (set, 5, 4) < 0 && errno == EINVAL,
        "add_range (5, 4) fails with EINVAL");
    errno = 0;
    ok (rp_idset_remove (set, INVALID) < 0 && errno == ERANGE,
        "remove (RP_IDSET_INVALID_ID) fails with ERANGE");
    errno = 0;
    ok (rp_idset_remove_range (set, 0, INVALID) < 0 && errno == ERANGE,
        "remove_range (0, RP_IDSET_INVALID_ID) fails with ERANGE");
    errno = 0;
    ok (rp_idset_remove_range (set, 3, 2) < 0 && errno == EINVAL,
        "remove_range (3, 2) fails with EINVAL");
    is (enc (set, R), "1-3", "failed updates leave the set unchanged");
    ok (rp_idset_add (set, 2) == 0 && rp_idset_remove (set, 9) == 0,
        "adding a member or removing a non-member is not an error");
    is (enc (set, R), "1-3", "and changes nothing");
    ok (rp_idset_add (set, MAX) == 0 && rp_idset_test (set, MAX),
        "add (RP_IDSET_MAX_ID) works");
    ok (rp_idset_remove (set, MAX) == 0 && !rp_idset_test (set, MAX),
        "remove (RP_IDSET_MAX_ID) works");
    rp_idset_destroy (set);

    errno = 0;
    ok (rp_idset_add (NULL, 1) < 0 && errno == EINVAL,
        "add (NULL) fails with EINVAL");
    errno = 0;
    ok (rp_idset_add_range (NULL, 1, 2) < 0 && errno == EINVAL,
        "add_range (NULL) fails with EINVAL");
    errno = 0;
    ok (rp_idset_remove (NULL, 1) < 0 && errno == EINVAL,
        "remove (NULL) fails with EINVAL");
    errno = 0;
    ok (rp_idset_remove_range (NULL, 1, 2) < 0 && errno == EINVAL,
        "remove_range (NULL) fails with EINVAL");
}

static void test_queries (void)
{
    struct rp_idset *set = dec ("0,2-4,10,4294967290-4294967294");
    unsigned int lo = 1, hi = 1;

    ok (rp_idset_test (set, 0) && !rp_idset_test (set, 1)
            && rp_idset_test (set, 2) && rp_idset_test (set, 4)
            && !rp_idset_test (set, 5) && rp_idset_test (set, 10)
            && !rp_idset_test (set, 11) && rp_idset_test (set, MAX),
        "test finds members and only members");
    ok (!rp_idset_test (set, INVALID), "RP_IDSET_INVALID_ID is never a member");
    ok (rp_idset_first (set) == 0 && rp_idset_min (set) == 0,
        "first and min are 0");
    ok (rp_idset_max (set) == MAX, "max is RP_IDSET_MAX_ID");
    ok (rp_idset_next (set, 0) == 2, "next (0) is 2");
    ok (rp_idset_next (set, 2) == 3, "next (2) is 3");
    ok (rp_idset_next (set, 4) == 10, "next (4) is 10");
    ok (rp_idset_next (set, 7) == 10, "next (7), a non-member, is 10");
    ok (rp_idset_next (set, 10) == 4294967290, "next (10) is 4294967290");
    ok (rp_idset_next (set, MAX - 1) == MAX, "next (MAX - 1) is MAX");
    ok (rp_idset_next (set, MAX) == INVALID, "next (MAX) is INVALID");
    ok (rp_idset_next (set, INVALID) == INVALID, "next (INVALID) is INVALID");
    cmp_ok (rp_idset_count (set), ==, 10, "count is 10");
    ok (rp_idset_nth (set, 0) == 0, "nth (0) is 0");
    ok (rp_idset_nth (set, 1) == 2, "nth (1) is 2");
    ok (rp_idset_nth (set, 3) == 4, "nth (3) is 4");
    ok (rp_idset_nth (set, 4) == 10, "nth (4) is 10");
    ok (rp_idset_nth (set, 9) == MAX, "nth (9) is MAX");
    ok (rp_idset_nth (set, 10) == INVALID, "nth (count) is INVALID");
    ok (rp_idset_nth (set, SIZE_MAX) == INVALID, "nth (SIZE_MAX) is INVALID");
    cmp_ok (rp_idset_range_count (set), ==, 4, "range_count is 4");
    ok (rp_idset_range (set, 1, &lo, &hi) && lo == 2 && hi == 4,
        "range 1 is [2, 4]");
    ok (rp_idset_range (set, 3, &lo, &hi) && lo == 4294967290 && hi == MAX,
        "range 3 is [4294967290, MAX]");
    lo = hi = 7;
    ok (!rp_idset_range (set, 4, &lo, &hi) && lo == 7 && hi == 7,
        "range 4 is out of range and stores nothing");
    errno = 0;
    ok (!rp_idset_range (set, 0, NULL, &hi) && errno == EINVAL,
        "range with lo == NULL fails with EINVAL");
    errno = 0;
    ok (!rp_idset_range (set, 0, &lo, NULL) && errno == EINVAL,
        "range with hi == NULL fails with EINVAL");
    rp_idset_destroy (set);

    set = dec ("0-4294967294");
    ok (rp_idset_nth (set, 4294967294ULL) == MAX,
        "nth (2^32-2) of the full set");
    ok (rp_idset_nth (set, 4294967295ULL) == INVALID,
        "nth (2^32-1) of the full set is INVALID");
    rp_idset_destroy (set);
}

static void test_query_null (void)
{
    unsigned int lo, hi;

    errno = 0;
    ok (!rp_idset_test (NULL, 1) && errno == EINVAL, "test (NULL): EINVAL");
    errno = 0;
    ok (rp_idset_first (NULL) == INVALID && errno == EINVAL,
        "first (NULL): INVALID, EINVAL");
    errno = 0;
    ok (rp_idset_next (NULL, 1) == INVALID && errno == EINVAL,
        "next (NULL): INVALID, EINVAL");
    errno = 0;
    ok (rp_idset_count (NULL) == 0 && errno == EINVAL,
        "count (NULL): 0, EINVAL");
    errno = 0;
    ok (rp_idset_empty (NULL) && errno == EINVAL, "empty (NULL): true, EINVAL");
    errno = 0;
    ok (rp_idset_min (NULL) == INVALID && errno == EINVAL,
        "min (NULL): INVALID, EINVAL");
    errno = 0;
    ok (rp_idset_max (NULL) == INVALID && errno == EINVAL,
        "max (NULL): INVALID, EINVAL");
    errno = 0;
    ok (rp_idset_nth (NULL, 0) == INVALID && errno == EINVAL,
        "nth (NULL): INVALID, EINVAL");
    errno = 0;
    ok (rp_idset_range_count (NULL) == 0 && errno == EINVAL,
        "range_count (NULL): 0, EINVAL");
    errno = 0;
    ok (!rp_idset_range (NULL, 0, &lo, &hi) && errno == EINVAL,
        "range (NULL): false, EINVAL");
}

/* Set algebra */

struct algebra {
    const char *a, *b;
    const char *u, *x, *d; /* union, intersection, a - b */
    bool subset, intersects;
};

static const struct algebra algebra[] = {
    { "", "", "", "", "", true, false },
    { "", "1-3", "1-3", "", "", true, false },
    { "1-3", "", "1-3", "", "1-3", false, false },
    { "1-3", "1-3", "1-3", "1-3", "", true, true },
    { "1-3", "4-6", "1-6", "", "1-3", false, false },
    { "1-3", "5-6", "1-3,5-6", "", "1-3", false, false },
    { "1-5", "3-8", "1-8", "3-5", "1-2", false, true },
    { "3-4", "1-8", "1-8", "3-4", "", true, true },
    { "1-8", "3-4", "1-8", "3-4", "1-2,5-8", false, true },
    { "0-10", "1,3,5,7,9", "0-10", "1,3,5,7,9", "0,2,4,6,8,10", false, true },
    { "1-2,5-6,9-10", "2-5,10", "1-6,9-10", "2,5,10", "1,6,9", false, true },
    { "0,4294967294", "1-4294967293", "0-4294967294", "", "0,4294967294", false,
      false },
    { "0-4294967294", "7", "0-4294967294", "7", "0-6,8-4294967294", false,
      true },
};

static void test_algebra (void)
{
    for (size_t i = 0; i < sizeof (algebra) / sizeof (algebra[0]); i++) {
        const struct algebra *t = &algebra[i];
        struct rp_idset *a = dec (t->a);
        struct rp_idset *b = dec (t->b);
        struct rp_idset *u = rp_idset_union (a, b);
        struct rp_idset *x = rp_idset_intersect (a, b);
        struct rp_idset *d = rp_idset_difference (a, b);

        is (enc (u, R), t->u, "\"%s\" | \"%s\" = \"%s\"", t->a, t->b, t->u);
        is (enc (x, R), t->x, "\"%s\" & \"%s\" = \"%s\"", t->a, t->b, t->x);
        is (enc (d, R), t->d, "\"%s\" - \"%s\" = \"%s\"", t->a, t->b, t->d);
        ok (rp_idset_is_subset (a, b) == t->subset, "\"%s\" <= \"%s\" is %s",
            t->a, t->b, t->subset ? "true" : "false");
        ok (rp_idset_intersects (a, b) == t->intersects,
            "\"%s\" intersects \"%s\" is %s", t->a, t->b,
            t->intersects ? "true" : "false");
        ok (rp_idset_add_set (a, b) == 0 && rp_idset_equal (a, u),
            "add_set gives the union");
        rp_idset_destroy (a);
        a = dec (t->a);
        ok (rp_idset_subtract (a, b) == 0 && rp_idset_equal (a, d),
            "subtract gives the difference");
        rp_idset_destroy (a);
        rp_idset_destroy (b);
        rp_idset_destroy (u);
        rp_idset_destroy (x);
        rp_idset_destroy (d);
    }
}

static void test_algebra_self (void)
{
    struct rp_idset *a = dec ("1-3,7");
    struct rp_idset *b = dec ("1-3,7");

    ok (rp_idset_add_set (a, a) == 0 && rp_idset_equal (a, b),
        "add_set (a, a) leaves a unchanged");
    ok (rp_idset_subtract (a, a) == 0 && rp_idset_empty (a),
        "subtract (a, a) empties a");
    ok (rp_idset_equal (b, b), "a set equals itself");
    rp_idset_add (a, 9);
    ok (!rp_idset_equal (a, b), "sets with different members differ");
    rp_idset_destroy (a);
    a = dec ("1-2,7");
    ok (!rp_idset_equal (a, b), "sets with the same range count can differ");
    rp_idset_destroy (a);
    rp_idset_destroy (b);
}

static void test_algebra_null (void)
{
    struct rp_idset *a = dec ("1");

    errno = 0;
    ok (rp_idset_union (a, NULL) == NULL && errno == EINVAL,
        "union (a, NULL) fails with EINVAL");
    errno = 0;
    ok (rp_idset_union (NULL, a) == NULL && errno == EINVAL,
        "union (NULL, a) fails with EINVAL");
    errno = 0;
    ok (rp_idset_intersect (a, NULL) == NULL && errno == EINVAL,
        "intersect (a, NULL) fails with EINVAL");
    errno = 0;
    ok (rp_idset_difference (NULL, a) == NULL && errno == EINVAL,
        "difference (NULL, a) fails with EINVAL");
    errno = 0;
    ok (rp_idset_add_set (a, NULL) < 0 && errno == EINVAL,
        "add_set (a, NULL) fails with EINVAL");
    errno = 0;
    ok (rp_idset_add_set (NULL, a) < 0 && errno == EINVAL,
        "add_set (NULL, a) fails with EINVAL");
    errno = 0;
    ok (rp_idset_subtract (a, NULL) < 0 && errno == EINVAL,
        "subtract (a, NULL) fails with EINVAL");
    errno = 0;
    ok (rp_idset_subtract (NULL, a) < 0 && errno == EINVAL,
        "subtract (NULL, a) fails with EINVAL");
    is (enc (a, R), "1", "failed calls leave a unchanged");
    errno = 0;
    ok (!rp_idset_equal (a, NULL) && errno == EINVAL,
        "equal (a, NULL) is false, EINVAL");
    errno = 0;
    ok (!rp_idset_is_subset (NULL, a) && errno == EINVAL,
        "is_subset (NULL, a) is false, EINVAL");
    errno = 0;
    ok (!rp_idset_intersects (a, NULL) && errno == EINVAL,
        "intersects (a, NULL) is false, EINVAL");
    rp_idset_destroy (a);
}

/* Random sets against a bitmap model */

#define UNIVERSE 64
#define ITERATIONS 3000

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static unsigned int rnd (unsigned int n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned int)(rng_state % n);
}

struct model {
    bool in[UNIVERSE];
};

/* Apply a few random add_range/remove_range to both set and model. */
static void random_fill (struct rp_idset *set, struct model *m)
{
    int ops = rnd (8);

    memset (m, 0, sizeof (*m));
    for (int k = 0; k < ops; k++) {
        unsigned int lo = rnd (UNIVERSE);
        unsigned int hi = lo + rnd (UNIVERSE - lo);
        bool add = rnd (3) != 0;
        if (add)
            rp_idset_add_range (set, lo, hi);
        else
            rp_idset_remove_range (set, lo, hi);
        for (unsigned int id = lo; id <= hi; id++)
            m->in[id] = add;
    }
}

/* Naive encodings of the model, for both flag sets. */
static void model_encode (const struct model *m, char *plain, char *ranges)
{
    char *p = plain, *r = ranges;

    *p = *r = '\0';
    for (unsigned int id = 0; id < UNIVERSE; id++) {
        unsigned int hi = id;
        if (!m->in[id])
            continue;
        p += sprintf (p, "%s%u", p == plain ? "" : ",", id);
        while (hi + 1 < UNIVERSE && m->in[hi + 1]) {
            hi++;
            p += sprintf (p, ",%u", hi);
        }
        r += sprintf (r, "%s%u", r == ranges ? "" : ",", id);
        if (hi > id)
            r += sprintf (r, "-%u", hi);
        id = hi;
    }
}

/* True when set holds exactly the members of m, checked every way. */
static bool matches (const struct rp_idset *set, const struct model *m)
{
    char plain[UNIVERSE * 4], ranges[UNIVERSE * 4];
    size_t count = 0;
    unsigned int id, n = 0;

    for (id = 0; id < UNIVERSE + 2; id++) {
        bool in = id < UNIVERSE && m->in[id];
        if (rp_idset_test (set, id) != in)
            return false;
        if (in && rp_idset_nth (set, count++) != id)
            return false;
    }
    if (rp_idset_count (set) != count || rp_idset_nth (set, count) != INVALID)
        return false;
    for (id = rp_idset_first (set); id != INVALID; id = rp_idset_next (set, id))
        if (id >= UNIVERSE || !m->in[id] || ++n > count)
            return false;
    model_encode (m, plain, ranges);
    return n == count && !strcmp (enc (set, 0), plain)
           && !strcmp (enc (set, R), ranges);
}

static bool model_subset (const struct model *a, const struct model *b)
{
    for (int i = 0; i < UNIVERSE; i++)
        if (a->in[i] && !b->in[i])
            return false;
    return true;
}

static bool model_intersects (const struct model *a, const struct model *b)
{
    for (int i = 0; i < UNIVERSE; i++)
        if (a->in[i] && b->in[i])
            return true;
    return false;
}

/* One random round; returns the number of disagreements. */
static int random_round (void)
{
    struct rp_idset *a = rp_idset_create ();
    struct rp_idset *b = rp_idset_create ();
    struct rp_idset *u, *x, *d;
    struct model ma, mb, mu, mx, md;
    int bad = 0;

    random_fill (a, &ma);
    random_fill (b, &mb);
    for (int i = 0; i < UNIVERSE; i++) {
        mu.in[i] = ma.in[i] || mb.in[i];
        mx.in[i] = ma.in[i] && mb.in[i];
        md.in[i] = ma.in[i] && !mb.in[i];
    }
    u = rp_idset_union (a, b);
    x = rp_idset_intersect (a, b);
    d = rp_idset_difference (a, b);
    bad += !matches (a, &ma) + !matches (b, &mb);
    bad += !matches (u, &mu) + !matches (x, &mx) + !matches (d, &md);
    bad += rp_idset_is_subset (a, b) != model_subset (&ma, &mb);
    bad += rp_idset_intersects (a, b) != model_intersects (&ma, &mb);
    bad += rp_idset_equal (a, b) != !memcmp (&ma, &mb, sizeof (ma));
    bad += rp_idset_add_set (a, b) != 0 || !rp_idset_equal (a, u);
    bad += rp_idset_subtract (b, d) != 0 || !matches (b, &mb);
    rp_idset_destroy (a);
    rp_idset_destroy (b);
    rp_idset_destroy (u);
    rp_idset_destroy (x);
    rp_idset_destroy (d);
    return bad;
}

static void test_random (void)
{
    int bad = 0;

    for (int i = 0; i < ITERATIONS && !bad; i++) {
        bad = random_round ();
        if (bad)
            diag ("round %d disagrees with the model", i);
    }
    ok (bad == 0, "%d random rounds agree with a bitmap model", ITERATIONS);
}

/* A set of one range lives in one allocation; a second range moves the
 * ranges out, and a one-range result taken in (subtract) comes back in. */
static void test_one_range_inline (void)
{
    struct rp_idset *set, *other, *cpy;
    size_t n0;

    if (!allocs_counted ()) {
        skip (4, "allocations are not counted here (sanitizer, valgrind)");
        goto spill;
    }
    n0 = allocs ();
    set = rp_idset_create ();
    ok (set && rp_idset_add_range (set, 0, 3) == 0 && allocs () - n0 == 1,
        "test_one_range_inline: create and add 0-3 is one allocation");
    n0 = allocs ();
    ok ((cpy = rp_idset_copy (set)) && allocs () - n0 == 1,
        "test_one_range_inline: a copy of one range is one allocation");
    n0 = allocs ();
    ok (rp_idset_add (set, 7) == 0 && allocs () - n0 == 1,
        "test_one_range_inline: a second range is one more");
    n0 = allocs ();
    ok (rp_idset_add (set, 9) == 0 && rp_idset_add (set, 11) == 0
            && allocs () - n0 == 0,
        "test_one_range_inline: the third and fourth are in its room");
    rp_idset_destroy (cpy);
    rp_idset_destroy (set);
spill:
    set = dec ("0-3");
    ok (rp_idset_add (set, 7) == 0 && rp_idset_add (set, 9) == 0
            && !strcmp (enc (set, R), "0-3,7,9"),
        "test_one_range_inline: ranges out of the struct keep their ids");
    other = dec ("4-20");
    ok (rp_idset_subtract (set, other) == 0 && !strcmp (enc (set, R), "0-3")
            && rp_idset_count (set) == 4,
        "test_one_range_inline: a one-range difference taken in");
    ok (rp_idset_add (set, 5) == 0 && !strcmp (enc (set, R), "0-3,5"),
        "test_one_range_inline: and out again");
    ok (rp_idset_remove (set, 5) == 0 && rp_idset_add_set (set, other) == 0
            && !strcmp (enc (set, R), "0-20"),
        "test_one_range_inline: a one-range union taken in");
    cpy = rp_idset_copy (set);
    ok (cpy && rp_idset_add (cpy, 30) == 0 && !strcmp (enc (set, R), "0-20")
            && !strcmp (enc (cpy, R), "0-20,30"),
        "test_one_range_inline: a copy's ranges are its own");
    rp_idset_destroy (cpy);
    rp_idset_destroy (other);
    rp_idset_destroy (set);
}

int main (void)
{
    plan (NO_PLAN);
    test_valid ();
    test_invalid ();
    test_decode_args ();
    test_encode ();
    test_create_destroy ();
    test_updates ();
    test_update_errors ();
    test_queries ();
    test_query_null ();
    test_algebra ();
    test_algebra_self ();
    test_algebra_null ();
    test_random ();
    test_one_range_inline ();
    return done_testing ();
}
