/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for core/hostlist.c (RFC 29 hostlists).
 *
 * The RFC's test vectors, a table of other valid strings (decode, expand,
 * encode) and of invalid strings with their exact error text; every API
 * function with its edge cases; hosts spelled in more than one way
 * ("foo[1]-eth2" and "foo1-eth2"); and sort, uniq, find, delete and the set
 * operations checked against a naive model (arrays of names) on random
 * lists with a fixed seed, so a failure always reproduces.  The
 * test_digit_suffix_* tests guard names whose digits can be split in more
 * than one way ("n[0-9]-e1" holds "n5-e1" by its first digit group, the
 * plain name by its last): lookups and set operations across such lists,
 * and a list of 2^24 such hosts looked up under a 256 MiB address space
 * limit, which fails if anything is allocated per host.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "respol/hostlist.h"
#include "t/tap/tap.h"

#define MAX_HOSTS RP_HOSTLIST_MAX_HOSTS
#define X10 "xxxxxxxxxx"
#define X62 X10 X10 X10 X10 X10 X10 "xx"
#define X64 X62 "xx"
#define LONG250                                                                \
    X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10    \
        X10 X10 X10 X10 X10 X10 X10
#define LONG254 LONG250 "xxxx"
#define LONG256 LONG250 "xxxxxx"

static struct rp_hostlist *dec (const char *s)
{
    rp_error_t error;
    struct rp_hostlist *hl = rp_hostlist_decode (s, &error);

    if (!hl)
        BAIL_OUT ("decode \"%s\": %s", s, error.text);
    return hl;
}

/* Encoding / expansion in one of four rotating buffers. */
static const char *keep (char *s)
{
    static char bufs[4][4096];
    static int next;
    char *buf = bufs[next++ % 4];

    if (!s)
        return "(failed)";
    snprintf (buf, sizeof (bufs[0]), "%s", s);
    free (s);
    return buf;
}

static const char *enc (const struct rp_hostlist *hl)
{
    return keep (rp_hostlist_encode (hl));
}

static const char *exp_ (const struct rp_hostlist *hl)
{
    return keep (rp_hostlist_expand (hl, ","));
}

/* RFC 29 test vectors and more valid strings */

struct valid {
    const char *input;
    const char *expanded; /* joined by "," */
    const char *encoded;
    size_t count;
};

static const struct valid rfc_vectors[] = {
    { "", "", "", 0 },
    { "foox,fooy,fooz", "foox,fooy,fooz", "foox,fooy,fooz", 3 },
    { "[1-3,5-6]", "1,2,3,5,6", "[1-3,5-6]", 5 },
    { "foo[1-5]", "foo1,foo2,foo3,foo4,foo5", "foo[1-5]", 5 },
    { "foo[0-4]-eth2", "foo0-eth2,foo1-eth2,foo2-eth2,foo3-eth2,foo4-eth2",
      "foo[0-4]-eth2", 5 },
    { "foo1,foo1,foo1", "foo1,foo1,foo1", "foo[1,1,1]", 3 },
    { "[00-02]", "00,01,02", "[00-02]", 3 },
    { "[00-2]", "00,01,02", "[00-02]", 3 },
    { "foo[1,1,2,1]", "foo1,foo1,foo2,foo1", "foo[1,1-2,1]", 4 },
};

static const struct valid valid[] = {
    /* compression keeps order */
    { "n1,n2,n3,m1,n4", "n1,n2,n3,m1,n4", "n[1-3],m1,n4", 5 },
    { "node1,node2", "node1,node2", "node[1-2]", 2 },
    { "foo1,foo1", "foo1,foo1", "foo[1,1]", 2 },
    { "n[1-3],n[4-6]", "n1,n2,n3,n4,n5,n6", "n[1-6]", 6 },
    { "n[1-3,4-6]", "n1,n2,n3,n4,n5,n6", "n[1-6]", 6 },
    { "n3,n2,n1", "n3,n2,n1", "n[3,2,1]", 3 },
    { "n[5,4,10-12]", "n5,n4,n10,n11,n12", "n[5,4,10-12]", 5 },
    { "n1,m1,n2", "n1,m1,n2", "n1,m1,n2", 3 },
    { "a[1-2]x,a[3]x,a4x", "a1x,a2x,a3x,a4x", "a[1-3]x,a4x", 4 },
    /* plain names: the digits at the end are the number */
    { "node", "node", "node", 1 },
    { "5", "5", "5", 1 },
    { "0", "0", "0", 1 },
    { "007", "007", "007", 1 },
    { "rack1-node7", "rack1-node7", "rack1-node7", 1 },
    { "rack1-node7,rack1-node8", "rack1-node7,rack1-node8", "rack1-node[7-8]",
      2 },
    { "foo1x,foo2x", "foo1x,foo2x", "foo1x,foo2x", 2 },
    { "n12345678901234567890", "n12345678901234567890", "n12345678901234567890",
      1 },
    { "n123456789012345678,n123456789012345679",
      "n123456789012345678,n123456789012345679",
      "n[123456789012345678-123456789012345679]", 2 },
    /* padding */
    { "n[01-03]", "n01,n02,n03", "n[01-03]", 3 },
    { "n[08-10]", "n08,n09,n10", "n[08-10]", 3 },
    { "n[9-10]", "n9,n10", "n[9-10]", 2 },
    { "n[008-010]", "n008,n009,n010", "n[008-010]", 3 },
    { "n01,n02,n3", "n01,n02,n3", "n[01-02],n3", 3 },
    { "n08,n09,n10,n11", "n08,n09,n10,n11", "n[08-11]", 4 },
    { "n[08-10],n11", "n08,n09,n10,n11", "n[08-11]", 4 },
    { "n[005,4,11-13]", "n005,n004,n011,n012,n013", "n[005,004,011-013]", 5 },
    { "n[01,5]", "n01,n05", "n[01,05]", 2 },
    { "n[1,02]", "n1,n02", "n1,n02", 2 },
    { "n[01,005]", "n01,n005", "n01,n005", 2 },
    { "n[01,10]", "n01,n10", "n[01,10]", 2 },
    { "n[01,9]", "n01,n09", "n[01,09]", 2 },
    { "n01,n9", "n01,n9", "n01,n9", 2 },
    { "n[1-02]", "n1,n2", "n[1-2]", 2 },
    { "[0]", "0", "0", 1 },
    { "[00]", "00", "00", 1 },
    { "n[0-1]", "n0,n1", "n[0-1]", 2 },
    { "n1,n01,n001", "n1,n01,n001", "n1,n01,n001", 3 },
    /* suffixes and prefixes with digits */
    { "n1[2-3]", "n12,n13", "n1[2-3]", 2 },
    { "n1[9-10]", "n19,n110", "n1[9-10]", 2 },
    { "n[1-2]3", "n13,n23", "n[1-2]3", 2 },
    { "foo[1]-eth2", "foo1-eth2", "foo1-eth2", 1 },
    { "foo[1-2]-eth2,foo[3]-eth2", "foo1-eth2,foo2-eth2,foo3-eth2",
      "foo[1-3]-eth2", 3 },
    { "[1-2]x", "1x,2x", "[1-2]x", 2 },
    { "!#$%&'()*+-./:;<=>?@\\^_`{|}~", "!#$%&'()*+-./:;<=>?@\\^_`{|}~",
      "!#$%&'()*+-./:;<=>?@\\^_`{|}~", 1 },
    /* empty expressions */
    { ",", "", "", 0 },
    { "a,,b", "a,b", "a,b", 2 },
    { "a,", "a", "a", 1 },
    { ",a", "a", "a", 1 },
    /* big numbers */
    { "n[999999999999999998-999999999999999999]",
      "n999999999999999998,n999999999999999999",
      "n[999999999999999998-999999999999999999]", 2 },
    { "n[000000000000000001]", "n000000000000000001", "n000000000000000001",
      1 },
};

static void check_valid (const struct valid *v)
{
    rp_error_t error = { .text = "untouched" };
    struct rp_hostlist *hl = rp_hostlist_decode (v->input, &error);
    struct rp_hostlist *again;

    if (!ok (hl != NULL, "decode \"%s\" works", v->input)) {
        diag ("%s", error.text);
        return;
    }
    is (error.text, "untouched", "decode \"%s\" leaves error alone", v->input);
    cmp_ok (rp_hostlist_count (hl), ==, v->count, "\"%s\" has %zu hosts",
            v->input, v->count);
    is (exp_ (hl), v->expanded, "\"%s\" expands to \"%s\"", v->input,
        v->expanded);
    is (enc (hl), v->encoded, "\"%s\" encodes as \"%s\"", v->input, v->encoded);
    again = dec (v->encoded);
    ok (rp_hostlist_equal (hl, again), "\"%s\" decodes back equal", v->encoded);
    is (enc (again), v->encoded, "and encodes the same again");
    rp_hostlist_destroy (again);
    rp_hostlist_destroy (hl);
}

static void test_valid (void)
{
    for (size_t i = 0; i < sizeof (rfc_vectors) / sizeof (rfc_vectors[0]); i++)
        check_valid (&rfc_vectors[i]);
    for (size_t i = 0; i < sizeof (valid) / sizeof (valid[0]); i++)
        check_valid (&valid[i]);
}

/* Invalid strings */

struct invalid {
    const char *input;
    int errnum;
    const char *text;
};

static const struct invalid invalid[] = {
    { "foo[1-", EINVAL, "hostlist: \"foo[1-\": missing ']' at offset 6" },
    { "foo[", EINVAL, "hostlist: \"foo[\": missing ']' at offset 4" },
    { "foo[1", EINVAL, "hostlist: \"foo[1\": missing ']' at offset 5" },
    { "foo[1,", EINVAL, "hostlist: \"foo[1,\": missing ']' at offset 6" },
    { "foo]", EINVAL, "hostlist: \"foo]\": unexpected ']' at offset 3" },
    { "]", EINVAL, "hostlist: \"]\": unexpected ']' at offset 0" },
    { "a[1]]", EINVAL, "hostlist: \"a[1]]\": unexpected ']' at offset 4" },
    { "a,b]", EINVAL, "hostlist: \"a,b]\": unexpected ']' at offset 3" },
    { "a[[1]]", EINVAL, "hostlist: \"a[[1]]\": expected a number at offset 2" },
    { "a[1[2]]", EINVAL, "hostlist: \"a[1[2]]\": unexpected '[' at offset 3" },
    { "a[1]b[2]", EINVAL,
      "hostlist: \"a[1]b[2]\": unexpected '[' at offset 5" },
    { "foo[]", EINVAL, "hostlist: \"foo[]\": empty idlist at offset 3" },
    { "a,[]", EINVAL, "hostlist: \"a,[]\": empty idlist at offset 2" },
    { "a b", EINVAL, "hostlist: \"a b\": invalid character ' ' at offset 1" },
    { " a", EINVAL, "hostlist: \" a\": invalid character ' ' at offset 0" },
    { "a\n", EINVAL,
      "hostlist: \"a\\x0a\": invalid character '\\x0a' at offset 1" },
    { "a\tb", EINVAL,
      "hostlist: \"a\\x09b\": invalid character '\\x09' at offset 1" },
    { "n[1 ]", EINVAL,
      "hostlist: \"n[1 ]\": invalid character ' ' at offset 3" },
    { "n[ 1]", EINVAL,
      "hostlist: \"n[ 1]\": invalid character ' ' at offset 2" },
    { "n[1]\x7f", EINVAL,
      "hostlist: \"n[1]\\x7f\": invalid character '\\x7f' at offset 4" },
    { "n\xc3\xa9", EINVAL,
      "hostlist: \"n\\xc3\\xa9\": invalid character '\\xc3' at offset 1" },
    { "n[5-3]", EINVAL,
      "hostlist: \"n[5-3]\": range not ascending at offset 4" },
    { "n[1,10-9]", EINVAL,
      "hostlist: \"n[1,10-9]\": range not ascending at offset 7" },
    { "n[a]", EINVAL, "hostlist: \"n[a]\": expected a number at offset 2" },
    { "n[,1]", EINVAL, "hostlist: \"n[,1]\": expected a number at offset 2" },
    { "n[1,]", EINVAL, "hostlist: \"n[1,]\": expected a number at offset 4" },
    { "n[1,,2]", EINVAL,
      "hostlist: \"n[1,,2]\": expected a number at offset 4" },
    { "n[1-]", EINVAL, "hostlist: \"n[1-]\": expected a number at offset 4" },
    { "n[-1]", EINVAL, "hostlist: \"n[-1]\": expected a number at offset 2" },
    { "n[1-a]", EINVAL, "hostlist: \"n[1-a]\": expected a number at offset 4" },
    { "n[1a]", EINVAL, "hostlist: \"n[1a]\": unexpected 'a' at offset 3" },
    { "n[1-2-3]", EINVAL,
      "hostlist: \"n[1-2-3]\": unexpected '-' at offset 5" },
    { "n[1--2]", EINVAL,
      "hostlist: \"n[1--2]\": expected a number at offset 4" },
    { "n[1\x01]", EINVAL,
      "hostlist: \"n[1\\x01]\": invalid character '\\x01' at offset 3" },
    { "n[\x01]", EINVAL,
      "hostlist: \"n[\\x01]\": invalid character '\\x01' at offset 2" },
    { "n[1234567890123456789]", EINVAL,
      "hostlist: \"n[1234567890123456789]\": number longer than 18 digits at "
      "offset 2" },
    { "n[0000000000000000001]", EINVAL,
      "hostlist: \"n[0000000000000000001]\": number longer than 18 digits at "
      "offset 2" },
    { "n[1-1234567890123456789]", EINVAL,
      "hostlist: \"n[1-1234567890123456789]\": number longer than 18 digits "
      "at offset 4" },
    { "n[0-4294967295]", EOVERFLOW,
      "hostlist: \"n[0-4294967295]\": expands past 16777216 hosts at offset "
      "2" },
    { "n[0-16777216]", EOVERFLOW,
      "hostlist: \"n[0-16777216]\": expands past 16777216 hosts at offset 2" },
    { "n[0-999999999999999999]", EOVERFLOW,
      "hostlist: \"n[0-999999999999999999]\": expands past 16777216 hosts at "
      "offset 2" },
    { "n[0-16777215],x", EOVERFLOW,
      "hostlist: \"n[0-16777215],x\": expands past 16777216 hosts at offset "
      "14" },
    { "n[0-8388607],m[0-8388607],o[0-1]", EOVERFLOW,
      "hostlist: \"n[0-8388607],m[0-8388607],o[0-1]\": expands past 16777216 "
      "hosts at offset 28" },
    { "n[0-9999999,0-9999999]", EOVERFLOW,
      "hostlist: \"n[0-9999999,0-9999999]\": expands past 16777216 hosts at "
      "offset 12" },
    /* names: 255 bytes at most */
    { LONG256, EINVAL,
      "hostlist: \"" X64 "...\": host name longer than 255 bytes at "
      "offset 0" },
    { "a," LONG254 "[1-10]", EINVAL,
      "hostlist: \"a," X62 "...\": host name longer than 255 bytes at "
      "offset 2" },
    { LONG250 "[1-10]yyyy", EINVAL,
      "hostlist: \"" X64 "...\": host name longer than 255 bytes at "
      "offset 0" },
    { LONG250 "[1-9]yyy,a b", EINVAL,
      "hostlist: \"" X64 "...\": invalid character ' ' at offset 260" },
    /* long inputs show 64 bytes and "..." */
    { "n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15,n16,n17,n18,n19 x",
      EINVAL,
      "hostlist: \"n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15,n16,n17,"
      "n18,n...\": invalid character ' ' at offset 66" },
    { "n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15,n16,n17,n18,]",
      EINVAL,
      "hostlist: \"n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15,n16,n17,"
      "n18,]\": unexpected ']' at offset 63" },
    { "n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15,n16,n17,n\x01",
      EINVAL,
      "hostlist: \"n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15,n16,n17,"
      "n\\x01\": invalid character '\\x01' at offset 60" },
    { "n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15,n16,n17,nn\x01",
      EINVAL,
      "hostlist: \"n1,n2,n3,n4,n5,n6,n7,n8,n9,n10,n11,n12,n13,n14,n15,n16,n17,"
      "nn...\": invalid character '\\x01' at offset 61" },
};

static void test_invalid (void)
{
    for (size_t i = 0; i < sizeof (invalid) / sizeof (invalid[0]); i++) {
        const struct invalid *v = &invalid[i];
        rp_error_t error = { .text = "" };
        struct rp_hostlist *hl;

        errno = 0;
        hl = rp_hostlist_decode (v->input, &error);
        ok (hl == NULL && errno == v->errnum, "decode \"%s\" fails with %s",
            tap_escape (v->input),
            v->errnum == EINVAL ? "EINVAL" : "EOVERFLOW");
        is (error.text, v->text, "and says %s", tap_escape (v->text));
        errno = 0;
        hl = rp_hostlist_decode (v->input, NULL);
        ok (hl == NULL && errno == v->errnum,
            "decode \"%s\" fails the same without an error buffer",
            tap_escape (v->input));
    }
}

static void test_decode_limits (void)
{
    rp_error_t error;
    char name[RP_HOSTLIST_MAX_NAME + 32];
    struct rp_hostlist *hl;

    memset (name, 'x', RP_HOSTLIST_MAX_NAME);
    name[RP_HOSTLIST_MAX_NAME] = '\0';
    hl = rp_hostlist_decode (name, &error);
    ok (hl && rp_hostlist_count (hl) == 1,
        "a plain name of 255 bytes is accepted");
    rp_hostlist_destroy (hl);

    memset (name, 'x', RP_HOSTLIST_MAX_NAME - 3);
    strcpy (name + RP_HOSTLIST_MAX_NAME - 3, "[1-10]yy");
    hl = rp_hostlist_decode (name, &error);
    ok (hl == NULL && errno == EINVAL,
        "252 + 2 digits + 2 bytes in brackets is too long");
    strcpy (name + RP_HOSTLIST_MAX_NAME - 3, "[1-9]yy");
    hl = rp_hostlist_decode (name, &error);
    ok (hl && rp_hostlist_count (hl) == 9,
        "252 + 1 digit + 2 bytes in brackets is accepted");
    rp_hostlist_destroy (hl);
    strcpy (name + RP_HOSTLIST_MAX_NAME - 3, "[001]y");
    hl = rp_hostlist_decode (name, &error);
    ok (hl == NULL && errno == EINVAL, "the padding counts in the length");

    hl = rp_hostlist_decode ("n[0-16777215]", &error);
    ok (hl && rp_hostlist_count (hl) == MAX_HOSTS,
        "n[0-16777215] holds exactly the maximum");
    is (keep (rp_hostlist_nth (hl, MAX_HOSTS - 1)), "n16777215",
        "its last host is n16777215");
    cmp_ok (rp_hostlist_find (hl, "n16777215"), ==, MAX_HOSTS - 1,
            "and is found at the end");
    rp_hostlist_destroy (hl);

    errno = 0;
    ok (rp_hostlist_decode (NULL, &error) == NULL && errno == EINVAL,
        "decode (NULL) fails with EINVAL");
    is (error.text, "hostlist: input is NULL", "and says so");
}

/* Create, copy, append */

static void test_create_copy (void)
{
    struct rp_hostlist *hl = rp_hostlist_create ();
    struct rp_hostlist *c;

    ok (hl != NULL, "create works");
    cmp_ok (rp_hostlist_count (hl), ==, 0, "a new list is empty");
    is (enc (hl), "", "and encodes as \"\"");
    is (exp_ (hl), "", "and expands to \"\"");
    rp_hostlist_destroy (hl);

    hl = dec ("n[1-3],x,foo[0-1]-eth2");
    c = rp_hostlist_copy (hl);
    ok (c && rp_hostlist_equal (c, hl), "copy is equal");
    is (enc (c), "n[1-3],x,foo[0-1]-eth2", "and spelled the same");
    ok (rp_hostlist_append (c, "y", NULL) == 1 && rp_hostlist_count (hl) == 6,
        "changing the copy leaves the original alone");
    rp_hostlist_destroy (c);
    rp_hostlist_destroy (hl);

    errno = 0;
    ok (rp_hostlist_copy (NULL) == NULL && errno == EINVAL,
        "copy (NULL) fails with EINVAL");
    errno = 42;
    rp_hostlist_destroy (NULL);
    ok (errno == 42, "destroy (NULL) keeps errno");
    hl = dec ("n[1-2]");
    errno = 42;
    rp_hostlist_destroy (hl);
    ok (errno == 42, "destroy keeps errno");
    cmp_ok (rp_hostlist_count (NULL), ==, 0, "count (NULL) is 0");
}

static void test_append (void)
{
    struct rp_hostlist *hl = rp_hostlist_create ();
    struct rp_hostlist *other = dec ("n[4-5],m");
    rp_error_t error = { .text = "" };

    cmp_ok (rp_hostlist_append (hl, "n[1-3]", &error), ==, 3,
            "append returns the number of hosts appended");
    cmp_ok (rp_hostlist_append (hl, "", &error), ==, 0,
            "appending \"\" appends nothing");
    cmp_ok (rp_hostlist_append_list (hl, other), ==, 3,
            "append_list returns the number of hosts appended");
    is (enc (hl), "n[1-5],m", "runs merge across appends");
    cmp_ok (rp_hostlist_append_list (hl, hl), ==, 6,
            "a list can be appended to itself");
    is (enc (hl), "n[1-5],m,n[1-5],m", "and is then doubled");

    errno = 0;
    ok (rp_hostlist_append (hl, "a,b[", &error) < 0 && errno == EINVAL,
        "append of a bad string fails");
    is (error.text, "hostlist: \"a,b[\": missing ']' at offset 4",
        "with the decode error");
    is (enc (hl), "n[1-5],m,n[1-5],m", "and leaves the list unchanged");
    rp_hostlist_destroy (hl);

    hl = dec ("n[0-16777214]");
    errno = 0;
    ok (rp_hostlist_append (hl, "a,b", &error) < 0 && errno == EOVERFLOW,
        "append past the maximum fails with EOVERFLOW");
    is (error.text,
        "hostlist: \"a,b\": expands past 16777216 hosts at offset 2",
        "and says where");
    cmp_ok (rp_hostlist_count (hl), ==, MAX_HOSTS - 1, "the list is unchanged");
    cmp_ok (rp_hostlist_append (hl, "a", &error), ==, 1, "one more host fits");
    errno = 0;
    ok (rp_hostlist_append_list (hl, other) < 0 && errno == EOVERFLOW,
        "append_list past the maximum fails with EOVERFLOW");
    cmp_ok (rp_hostlist_count (hl), ==, MAX_HOSTS, "the list is unchanged");
    rp_hostlist_destroy (hl);

    errno = 0;
    ok (rp_hostlist_append (NULL, "a", &error) < 0 && errno == EINVAL,
        "append to NULL fails with EINVAL");
    is (error.text, "hostlist: list is NULL", "and says so");
    errno = 0;
    ok (rp_hostlist_append (other, NULL, &error) < 0 && errno == EINVAL,
        "append of NULL fails with EINVAL");
    errno = 0;
    ok (rp_hostlist_append_list (other, NULL) < 0 && errno == EINVAL,
        "append_list (hl, NULL) fails with EINVAL");
    errno = 0;
    ok (rp_hostlist_append_list (NULL, other) < 0 && errno == EINVAL,
        "append_list (NULL, hl) fails with EINVAL");
    rp_hostlist_destroy (other);
}

/* nth, find, expand, slice */

static void test_nth (void)
{
    struct rp_hostlist *hl = dec ("n[1-3],login,n[08-10],foo[5,4]-eth2");
    const char *want[] = { "n1",  "n2",  "n3",        "login",    "n08",
                           "n09", "n10", "foo5-eth2", "foo4-eth2" };
    char buf[16];

    for (size_t i = 0; i < 9; i++) {
        is (keep (rp_hostlist_nth (hl, i)), want[i], "nth %zu is %s", i,
            want[i]);
        ok (rp_hostlist_nth_buf (hl, i, buf, sizeof (buf)) == 0
                && !strcmp (buf, want[i]),
            "nth_buf %zu is %s", i, want[i]);
    }
    errno = 0;
    ok (rp_hostlist_nth (hl, 9) == NULL && errno == ENOENT,
        "nth past the end fails with ENOENT");
    errno = 0;
    ok (rp_hostlist_nth_buf (hl, 9, buf, sizeof (buf)) < 0 && errno == ENOENT,
        "nth_buf past the end fails with ENOENT");
    strcpy (buf, "untouched");
    errno = 0;
    ok (rp_hostlist_nth_buf (hl, 7, buf, 9) < 0 && errno == EOVERFLOW,
        "nth_buf into a buffer one byte short fails with EOVERFLOW");
    is (buf, "untouched", "and leaves the buffer alone");
    ok (rp_hostlist_nth_buf (hl, 7, buf, 10) == 0 && !strcmp (buf, "foo5-eth2"),
        "a buffer of exactly strlen + 1 is enough");
    errno = 0;
    ok (rp_hostlist_nth (NULL, 0) == NULL && errno == EINVAL,
        "nth (NULL) fails with EINVAL");
    errno = 0;
    ok (rp_hostlist_nth_buf (hl, 0, NULL, 0) < 0 && errno == EINVAL,
        "nth_buf with a NULL buffer fails with EINVAL");
    rp_hostlist_destroy (hl);
}

struct find_case {
    const char *list;
    const char *host;
    ssize_t index; /* -1: ENOENT */
};

static const struct find_case finds[] = {
    { "n[1-3],n2", "n2", 1 },
    { "n[1-3],n2", "n4", -1 },
    { "n[1-3],n2", "n", -1 },
    { "n[1-3],n2", "n02", -1 },
    { "n[1-3],n2", "n[2]", -1 },
    { "n[1-3],n2", "", -1 },
    { "n2,n[1-3]", "n2", 0 },
    { "n[5,4,4,3]", "n4", 1 },
    { "n[08-10]", "n10", 2 },
    { "n[08-10]", "n010", -1 },
    { "n[08-10]", "n8", -1 },
    { "n[08-10]", "n08", 0 },
    { "n10,n[08-10]", "n10", 0 },
    { "n[1-10],n[01-10]", "n01", 10 },
    { "n[1-10],n[01-10]", "n1", 0 },
    { "n[1-10],n[01-10]", "n10", 9 },
    { "x,foo[0-4]-eth2", "foo3-eth2", 4 },
    { "foo[0-4]-eth2,foo3-eth2", "foo3-eth2", 3 },
    { "foo3-eth2,foo[0-4]-eth2", "foo3-eth2", 0 },
    { "foo[0-4]-eth2", "foo3-eth", -1 },
    { "n1[2-3],n12", "n12", 0 },
    { "n12,n1[2-3]", "n13", 2 },
    { "n1[9-10]", "n110", 1 },
    { "n0[1-3]", "n02", 1 },
    { "n0[1-3]", "n2", -1 },
    { "foo1x,foo[1]x", "foo1x", 0 },
    { "foo[1]x,foo1x", "foo1x", 0 },
    { "login,n1", "login", 0 },
    { "n12345678901234567890", "n12345678901234567890", 0 },
    { "n1234567890123456789[0-2]", "n12345678901234567892", 2 },
    { "[1-3]", "2", 1 },
    { "", "a", -1 },
};

static void test_find (void)
{
    char long_name[RP_HOSTLIST_MAX_NAME + 2];
    struct rp_hostlist *hl;

    for (size_t i = 0; i < sizeof (finds) / sizeof (finds[0]); i++) {
        const struct find_case *f = &finds[i];
        hl = dec (f->list);
        errno = 0;
        ssize_t got = rp_hostlist_find (hl, f->host);
        if (f->index < 0)
            ok (got == -1 && errno == ENOENT, "\"%s\" is not in \"%s\"",
                f->host, f->list);
        else
            cmp_ok (got, ==, f->index, "\"%s\" is at %zd in \"%s\"", f->host,
                    f->index, f->list);
        rp_hostlist_destroy (hl);
    }
    hl = dec ("n[1-3]");
    cmp_ok (rp_hostlist_find (hl, "n3"), ==, 2, "find builds the index");
    rp_hostlist_append (hl, "n3,n0", NULL);
    cmp_ok (rp_hostlist_find (hl, "n0"), ==, 4, "append drops the index");
    rp_hostlist_delete (hl, "n1", NULL);
    cmp_ok (rp_hostlist_find (hl, "n0"), ==, 3, "delete drops the index");
    rp_hostlist_sort (hl);
    cmp_ok (rp_hostlist_find (hl, "n0"), ==, 0, "sort drops the index");
    rp_hostlist_uniq (hl);
    cmp_ok (rp_hostlist_find (hl, "n3"), ==, 2, "uniq drops the index");
    memset (long_name, 'x', sizeof (long_name) - 1);
    long_name[sizeof (long_name) - 1] = '\0';
    errno = 0;
    ok (rp_hostlist_find (hl, long_name) < 0 && errno == ENOENT,
        "a name longer than 255 bytes is not found");
    errno = 0;
    ok (rp_hostlist_find (hl, NULL) < 0 && errno == EINVAL,
        "find (hl, NULL) fails with EINVAL");
    errno = 0;
    ok (rp_hostlist_find (NULL, "a") < 0 && errno == EINVAL,
        "find (NULL, host) fails with EINVAL");
    rp_hostlist_destroy (hl);
}

static void test_expand (void)
{
    struct rp_hostlist *hl = dec ("n[9-11],x,[098-100]");

    is (keep (rp_hostlist_expand (hl, " ")), "n9 n10 n11 x 098 099 100",
        "expand with a space");
    is (keep (rp_hostlist_expand (hl, "")), "n9n10n11x098099100",
        "expand with an empty delimiter");
    is (keep (rp_hostlist_expand (hl, ", ")), "n9, n10, n11, x, 098, 099, 100",
        "expand with a long delimiter");
    errno = 0;
    ok (rp_hostlist_expand (hl, NULL) == NULL && errno == EINVAL,
        "expand with a NULL delimiter fails with EINVAL");
    errno = 0;
    ok (rp_hostlist_expand (NULL, ",") == NULL && errno == EINVAL,
        "expand (NULL) fails with EINVAL");
    errno = 0;
    ok (rp_hostlist_encode (NULL) == NULL && errno == EINVAL,
        "encode (NULL) fails with EINVAL");
    rp_hostlist_destroy (hl);
}

struct slice_case {
    const char *list;
    size_t first, count;
    const char *want; /* NULL: ENOENT */
};

static const struct slice_case slices[] = {
    { "foo[0-4]-eth2", 1, 2, "foo[1-2]-eth2" },
    { "n[1-3],x,m[5-9]", 0, 9, "n[1-3],x,m[5-9]" },
    { "n[1-3],x,m[5-9]", 2, 3, "n3,x,m5" },
    { "n[1-3],x,m[5-9]", 3, 1, "x" },
    { "n[1-3],x,m[5-9]", 4, 5, "m[5-9]" },
    { "n[1-3],x,m[5-9]", 9, 0, "" },
    { "n[1-3],x,m[5-9]", 0, 0, "" },
    { "n[1-3],x,m[5-9]", 9, 1, NULL },
    { "n[1-3],x,m[5-9]", 10, 0, NULL },
    { "n[1-3],x,m[5-9]", 5, 5, NULL },
    { "n[08-12]", 1, 3, "n[09-11]" },
    { "n[08-12]", 2, 3, "n[10-12]" },
};

static void test_slice (void)
{
    for (size_t i = 0; i < sizeof (slices) / sizeof (slices[0]); i++) {
        const struct slice_case *s = &slices[i];
        struct rp_hostlist *hl = dec (s->list);
        struct rp_hostlist *out;

        errno = 0;
        out = rp_hostlist_slice (hl, s->first, s->count);
        if (s->want)
            is (out ? enc (out) : NULL, s->want,
                "slice %zu+%zu of \"%s\" is \"%s\"", s->first, s->count,
                s->list, s->want);
        else
            ok (!out && errno == ENOENT,
                "slice %zu+%zu of \"%s\" fails with ENOENT", s->first, s->count,
                s->list);
        rp_hostlist_destroy (out);
        rp_hostlist_destroy (hl);
    }
    errno = 0;
    ok (rp_hostlist_slice (NULL, 0, 0) == NULL && errno == EINVAL,
        "slice (NULL) fails with EINVAL");
}

/* Equality */

struct pair {
    const char *a, *b;
    bool equal;
};

static const struct pair equals[] = {
    { "", "", true },
    { "n[1-3]", "n1,n2,n3", true },
    { "n[1-3]", "n[1-2],n3", true },
    { "n[1-3]", "n[1-4]", false },
    { "n[1-3]", "n[3,2,1]", false },
    { "n[1-3]", "m[1-3]", false },
    { "n[01-03]", "n[1-3]", false },
    { "n[08-10]", "n08,n09,n10", true },
    { "n[08-10]", "n[08-09],n[10]", true },
    { "foo[1]-eth2", "foo1-eth2", true },
    { "foo[1-2]-eth2", "foo1-eth2,foo2-eth2", true },
    { "n1[2]", "n12", true },
    { "n0[1-2]", "n[01-02]", true },
    { "n0[1-2]", "n[1-2]", false },
    { "foo[1]x", "foo1x", true },
    { "a,b", "b,a", false },
    { "a", "a,a", false },
};

static void test_equal (void)
{
    for (size_t i = 0; i < sizeof (equals) / sizeof (equals[0]); i++) {
        struct rp_hostlist *a = dec (equals[i].a);
        struct rp_hostlist *b = dec (equals[i].b);
        ok (rp_hostlist_equal (a, b) == equals[i].equal
                && rp_hostlist_equal (b, a) == equals[i].equal,
            "\"%s\" and \"%s\" are %s", equals[i].a, equals[i].b,
            equals[i].equal ? "equal" : "different");
        rp_hostlist_destroy (a);
        rp_hostlist_destroy (b);
    }
    ok (rp_hostlist_equal (NULL, NULL), "NULL equals NULL");
    struct rp_hostlist *a = dec ("");
    ok (!rp_hostlist_equal (a, NULL) && !rp_hostlist_equal (NULL, a),
        "NULL differs from the empty list");
    rp_hostlist_destroy (a);
}

/* Sort, uniq, delete */

struct op_case {
    const char *in;
    const char *arg;
    const char *want;
};

static const struct op_case sorts[] = {
    { "", NULL, "" },
    { "n10,n9,n1", NULL, "n[1,9-10]" },
    { "b,a,c", NULL, "a,b,c" },
    { "n[1-3],m[1-3]", NULL, "m[1-3],n[1-3]" },
    { "n[5-10],n[1-6]", NULL, "n[1-5,5-6,6-10]" },
    { "n[1-3],n[1-3]", NULL, "n[1,1-2,2-3,3]" },
    { "n,n1,n0", NULL, "n,n[0-1]" },
    { "n1x,n1,n2x,n2", NULL, "n[1-2],n1x,n2x" },
    { "n[1]x,n1,n[2]x,n2", NULL, "n[1-2],n[1-2]x" },
    { "n01,n1,n2,n02", NULL, "n1,n01,n2,n02" },
    { "n[08-11],n9", NULL, "n08,n9,n[09-11]" },
    { "ab1,a1,b1,a2", NULL, "a[1-2],ab1,b1" },
    { "foo[3-4]-eth2,foo[1-2]-eth2", NULL, "foo[1-4]-eth2" },
    { "n100,n20,n3", NULL, "n[3,20,100]" },
};

static const struct op_case uniqs[] = {
    { "", NULL, "" },
    { "n[1-3],n[2-5],n1", NULL, "n[1-5]" },
    { "b,a,b,a", NULL, "a,b" },
    { "foo1,foo1,foo1", NULL, "foo1" },
    { "n01,n1,n01", NULL, "n1,n01" },
    { "n[08-10],n10,n[9-10]", NULL, "n08,n9,n[09-10]" },
    { "foo[1]-eth2,foo1-eth2", NULL, "foo1-eth2" },
    { "foo1-eth2,foo0abc,foo[1]-eth2", NULL, "foo1-eth2,foo0abc" },
    { "n12,n1[2]", NULL, "n12" },
    { "n1[2],n12", NULL, "n12" },
    { "foo[1]x,foo1x", NULL, "foo1x" },
};

static const struct op_case deletes[] = {
    { "n[1-5]", "n3", "n[1-2,4-5]" },
    { "n[1-5],n3", "n3", "n[1-2,4-5]" },
    { "n[1-5]", "n[1-5]", "" },
    { "n[1-5]", "m1", "n[1-5]" },
    { "n[1-5]", "", "n[1-5]" },
    { "n[1-5],x", "x,n[2-4]", "n[1,5]" },
    { "foo[0-4]-eth2", "foo2-eth2", "foo[0-1,3-4]-eth2" },
    { "foo[0-4]-eth2", "foo[1-3]-eth2", "foo[0,4]-eth2" },
    { "foo0-eth2,foo1-eth2", "foo[1]-eth2", "foo0-eth2" },
    { "n[08-12]", "n10", "n[08-09,11-12]" },
    { "n[08-12]", "n010", "n[08-12]" },
    { "n1[0-5]", "n12", "n1[0-1,3-5]" },
    { "n[10-15]", "n1[2-3]", "n[10-11,14-15]" },
    { "n[0-16777215]", "n[1-16777214]", "n[0,16777215]" },
};

static void test_ops (void)
{
    for (size_t i = 0; i < sizeof (sorts) / sizeof (sorts[0]); i++) {
        struct rp_hostlist *hl = dec (sorts[i].in);
        ok (rp_hostlist_sort (hl) == 0, "sort \"%s\" works", sorts[i].in);
        is (enc (hl), sorts[i].want, "and gives \"%s\"", sorts[i].want);
        rp_hostlist_destroy (hl);
    }
    for (size_t i = 0; i < sizeof (uniqs) / sizeof (uniqs[0]); i++) {
        struct rp_hostlist *hl = dec (uniqs[i].in);
        ok (rp_hostlist_uniq (hl) == 0, "uniq \"%s\" works", uniqs[i].in);
        is (enc (hl), uniqs[i].want, "and gives \"%s\"", uniqs[i].want);
        rp_hostlist_destroy (hl);
    }
    for (size_t i = 0; i < sizeof (deletes) / sizeof (deletes[0]); i++) {
        const struct op_case *d = &deletes[i];
        struct rp_hostlist *hl = dec (d->in);
        size_t before = rp_hostlist_count (hl);
        int n = rp_hostlist_delete (hl, d->arg, NULL);
        ok (n >= 0 && (size_t)n == before - rp_hostlist_count (hl),
            "delete \"%s\" from \"%s\" returns the number removed", d->arg,
            d->in);
        is (enc (hl), d->want, "and gives \"%s\"", d->want);
        rp_hostlist_destroy (hl);
    }
}

static void test_ops_errors (void)
{
    struct rp_hostlist *hl = dec ("n[1-3]");
    rp_error_t error = { .text = "" };

    errno = 0;
    ok (rp_hostlist_delete (hl, "n[", &error) < 0 && errno == EINVAL,
        "delete of a bad string fails");
    is (error.text, "hostlist: \"n[\": missing ']' at offset 2",
        "with the decode error");
    is (enc (hl), "n[1-3]", "and leaves the list alone");
    errno = 0;
    ok (rp_hostlist_delete (NULL, "n1", &error) < 0 && errno == EINVAL,
        "delete from NULL fails with EINVAL");
    errno = 0;
    ok (rp_hostlist_sort (NULL) < 0 && errno == EINVAL,
        "sort (NULL) fails with EINVAL");
    errno = 0;
    ok (rp_hostlist_uniq (NULL) < 0 && errno == EINVAL,
        "uniq (NULL) fails with EINVAL");
    errno = 0;
    ok (!rp_hostlist_union (hl, NULL) && errno == EINVAL,
        "union (hl, NULL) fails with EINVAL");
    errno = 0;
    ok (!rp_hostlist_intersect (NULL, hl) && errno == EINVAL,
        "intersect (NULL, hl) fails with EINVAL");
    errno = 0;
    ok (!rp_hostlist_minus (hl, NULL) && errno == EINVAL,
        "minus (hl, NULL) fails with EINVAL");
    errno = 0;
    ok (!rp_hostlist_xor (NULL, hl) && errno == EINVAL,
        "xor (NULL, hl) fails with EINVAL");
    rp_hostlist_destroy (hl);
}

/* Set operations */

struct setop_case {
    const char *a, *b;
    const char *u, *i, *m, *x;
};

static const struct setop_case setops[] = {
    { "", "", "", "", "", "" },
    { "n[1-5]", "", "n[1-5]", "", "n[1-5]", "n[1-5]" },
    { "", "n[1-5]", "n[1-5]", "", "", "n[1-5]" },
    { "n[1-5]", "n[4-8]", "n[1-8]", "n[4-5]", "n[1-3]", "n[1-3,6-8]" },
    { "n[5,1,3,1]", "n[3-4]", "n[1,3-5]", "n3", "n[5,1,1]", "n[1,4-5]" },
    { "b,a,b", "c,b", "a,b,c", "b", "a", "a,c" },
    { "n[01-03]", "n[1-3]", "n1,n01,n2,n02,n3,n03", "", "n[01-03]",
      "n1,n01,n2,n02,n3,n03" },
    { "n[08-12]", "n[10-14]", "n[08-14]", "n[10-12]", "n[08-09]",
      "n[08-09,13-14]" },
    { "foo[0-4]-eth2", "foo1-eth2,foo3-eth2", "foo[0-4]-eth2", "foo[1,3]-eth2",
      "foo[0,2,4]-eth2", "foo[0,2,4]-eth2" },
    { "foo1-eth2,foo3-eth2", "foo[0-4]-eth2", "foo[0-4]-eth2",
      "foo1-eth2,foo3-eth2", "", "foo[0,2,4]-eth2" },
    { "n1[0-5]", "n[12-20]", "n[12-20],n1[0-1]", "n1[2-5]", "n1[0-1]",
      "n[16-20],n1[0-1]" },
    { "n[0-16777215]", "n[0-16777215]", "n[0-16777215]", "n[0-16777215]", "",
      "" },
    { "n[0-16777215]", "m[0-16777215]", NULL, "", "n[0-16777215]", NULL },
};

static void check_setop (const char *what, const struct rp_hostlist *got,
                         const struct setop_case *s, const char *want)
{
    if (!want) {
        ok (got == NULL && errno == EOVERFLOW,
            "%s of \"%s\" and \"%s\" fails with EOVERFLOW", what, s->a, s->b);
        return;
    }
    is (got ? enc (got) : NULL, want, "\"%s\" %s \"%s\" is \"%s\"", s->a, what,
        s->b, want);
}

static void test_setops (void)
{
    for (size_t i = 0; i < sizeof (setops) / sizeof (setops[0]); i++) {
        const struct setop_case *s = &setops[i];
        struct rp_hostlist *a = dec (s->a), *b = dec (s->b), *r;

        errno = 0;
        check_setop ("union", r = rp_hostlist_union (a, b), s, s->u);
        rp_hostlist_destroy (r);
        errno = 0;
        check_setop ("intersect", r = rp_hostlist_intersect (a, b), s, s->i);
        rp_hostlist_destroy (r);
        errno = 0;
        check_setop ("minus", r = rp_hostlist_minus (a, b), s, s->m);
        rp_hostlist_destroy (r);
        errno = 0;
        check_setop ("xor", r = rp_hostlist_xor (a, b), s, s->x);
        rp_hostlist_destroy (r);
        rp_hostlist_destroy (a);
        rp_hostlist_destroy (b);
    }
}

/* Random lists against a naive model */

#define MAXN 48
#define ITERATIONS 2000

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

static unsigned int rnd (unsigned int n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned int)(rng_state % n);
}

struct host {
    char name[32];
};

struct model {
    struct host h[2 * MAXN];
    size_t n;
};

/* Sort key of a name spelled the way random_list spells it. */
struct mkey {
    char prefix[32], suffix[32];
    bool num;
    unsigned long n;
    int cls;
};

static void model_key (const char *name, struct mkey *k)
{
    size_t len = strlen (name), j = len, i;

    while (j > 0 && (name[j - 1] < '0' || name[j - 1] > '9'))
        j--;
    i = j;
    while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
        i--;
    memset (k, 0, sizeof (*k));
    if (j == 0) {
        snprintf (k->prefix, sizeof (k->prefix), "%s", name);
        return;
    }
    snprintf (k->prefix, sizeof (k->prefix), "%.*s", (int)i, name);
    snprintf (k->suffix, sizeof (k->suffix), "%s", name + j);
    k->num = true;
    k->n = strtoul (name + i, NULL, 10);
    k->cls = (j - i > 1 && name[i] == '0') ? (int)(j - i) : 0;
}

static int model_cmp (const struct host *a, const struct host *b)
{
    struct mkey x, y;
    int c;

    model_key (a->name, &x);
    model_key (b->name, &y);
    if ((c = strcmp (x.prefix, y.prefix)) || (c = strcmp (x.suffix, y.suffix)))
        return c;
    if (x.num != y.num)
        return x.num ? 1 : -1;
    if (x.n != y.n)
        return x.n < y.n ? -1 : 1;
    return x.cls - y.cls;
}

/* Stable insertion sort. */
static void model_sort (struct model *m)
{
    for (size_t i = 1; i < m->n; i++) {
        struct host t = m->h[i];
        size_t j = i;
        while (j > 0 && model_cmp (&m->h[j - 1], &t) > 0) {
            m->h[j] = m->h[j - 1];
            j--;
        }
        m->h[j] = t;
    }
}

static ssize_t model_find (const struct model *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (!strcmp (m->h[i].name, name))
            return (ssize_t)i;
    return -1;
}

static void model_uniq (struct model *m)
{
    struct model out = { .n = 0 };

    model_sort (m);
    for (size_t i = 0; i < m->n; i++)
        if (model_find (&out, m->h[i].name) < 0)
            out.h[out.n++] = m->h[i];
    *m = out;
}

/* Hosts of a that are (in == true) or are not in b, in order. */
static void model_filter (const struct model *a, const struct model *b, bool in,
                          struct model *out)
{
    out->n = 0;
    for (size_t i = 0; i < a->n; i++)
        if ((model_find (b, a->h[i].name) >= 0) == in)
            out->h[out->n++] = a->h[i];
}

static void model_cat (struct model *a, const struct model *b)
{
    for (size_t i = 0; i < b->n; i++)
        a->h[a->n++] = b->h[i];
}

static bool matches (const struct rp_hostlist *hl, const struct model *m)
{
    char buf[64];

    if (!hl || rp_hostlist_count (hl) != m->n)
        return false;
    for (size_t i = 0; i < m->n; i++)
        if (rp_hostlist_nth_buf (hl, i, buf, sizeof (buf)) < 0
            || strcmp (buf, m->h[i].name) != 0)
            return false;
    return true;
}

static void model_range (struct model *m, const char *p, int width,
                         unsigned int lo, unsigned int len, const char *s)
{
    for (unsigned int n = lo; n < lo + len; n++)
        snprintf (m->h[m->n++].name, 32, "%s%0*u%s", p, width, n, s);
}

/* A random list spelled in brackets and plain names; names whose spelling
 * makes the model's key the list's: no digits in suffixes, prefixes that do
 * not end in a digit. */
static void random_list (struct rp_hostlist *hl, struct model *m)
{
    static const char *prefixes[] = { "a", "b", "ab", "n-", "" };
    static const char *suffixes[] = { "", "", "x", "-ib" };
    int runs = rnd (6);

    m->n = 0;
    for (int k = 0; k < runs; k++) {
        const char *p = prefixes[rnd (5)];
        const char *s = suffixes[rnd (4)];
        int width = rnd (4) == 0 ? 2 + (int)rnd (2) : 0;
        unsigned int lo = rnd (25), len = 1 + rnd (8);
        char expr[128];

        if (rnd (8) == 0) {
            snprintf (expr, sizeof (expr), "%s%s", *p ? p : "z", "login");
            snprintf (m->h[m->n++].name, 32, "%s", expr);
        } else if (m->n + len > MAXN)
            break;
        else {
            snprintf (expr, sizeof (expr), "%s[%0*u-%u]%s", p, width, lo,
                      lo + len - 1, s);
            model_range (m, p, width, lo, len, s);
        }
        if (rp_hostlist_append (hl, expr, NULL) < 0)
            BAIL_OUT ("append %s failed", expr);
    }
}

static int random_setops (const struct rp_hostlist *a, const struct model *ma,
                          const struct rp_hostlist *b, const struct model *mb)
{
    struct model mu = *ma, mi, mm, mx, t;
    struct rp_hostlist *u = rp_hostlist_union (a, b);
    struct rp_hostlist *i = rp_hostlist_intersect (a, b);
    struct rp_hostlist *m = rp_hostlist_minus (a, b);
    struct rp_hostlist *x = rp_hostlist_xor (a, b);
    int bad = 0;

    model_cat (&mu, mb);
    model_uniq (&mu);
    model_filter (ma, mb, true, &mi);
    model_uniq (&mi);
    model_filter (ma, mb, false, &mm);
    model_filter (mb, ma, false, &t);
    mx = mm;
    model_cat (&mx, &t);
    model_uniq (&mx);
    bad += !matches (u, &mu) + !matches (i, &mi) + !matches (m, &mm);
    bad += !matches (x, &mx);
    rp_hostlist_destroy (u);
    rp_hostlist_destroy (i);
    rp_hostlist_destroy (m);
    rp_hostlist_destroy (x);
    return bad;
}

static int random_list_ops (const struct rp_hostlist *a, const struct model *ma,
                            const struct model *mb)
{
    struct rp_hostlist *c = rp_hostlist_copy (a);
    struct rp_hostlist *again;
    struct model m = *ma;
    char *s = rp_hostlist_encode (a);
    int bad = 0;

    again = s ? rp_hostlist_decode (s, NULL) : NULL;
    bad += !matches (again, ma) || !rp_hostlist_equal (a, again);
    for (size_t k = 0; k < ma->n; k++)
        bad += rp_hostlist_find (a, ma->h[k].name)
               != model_find (ma, ma->h[k].name);
    for (size_t k = 0; k < mb->n; k++)
        bad += rp_hostlist_find (a, mb->h[k].name)
               != model_find (ma, mb->h[k].name);
    model_sort (&m);
    bad += rp_hostlist_sort (c) != 0 || !matches (c, &m);
    model_uniq (&m);
    bad += rp_hostlist_uniq (c) != 0 || !matches (c, &m);
    rp_hostlist_destroy (again);
    rp_hostlist_destroy (c);
    free (s);
    return bad;
}

static int random_delete (const struct rp_hostlist *a, const struct model *ma,
                          const struct rp_hostlist *b, const struct model *mb)
{
    struct rp_hostlist *c = rp_hostlist_copy (a);
    char *s = rp_hostlist_encode (b);
    struct model m;
    int bad = 0, n;

    model_filter (ma, mb, false, &m);
    n = rp_hostlist_delete (c, s, NULL);
    bad += n < 0 || (size_t)n != ma->n - m.n || !matches (c, &m);
    rp_hostlist_destroy (c);
    free (s);
    return bad;
}

static void test_random (void)
{
    int bad = 0;

    for (int k = 0; k < ITERATIONS && !bad; k++) {
        struct rp_hostlist *a = rp_hostlist_create ();
        struct rp_hostlist *b = rp_hostlist_create ();
        struct model ma, mb;

        random_list (a, &ma);
        random_list (b, &mb);
        bad += !matches (a, &ma) + !matches (b, &mb);
        bad += random_list_ops (a, &ma, &mb);
        bad += random_setops (a, &ma, b, &mb);
        bad += random_delete (a, &ma, b, &mb);
        if (bad)
            diag ("round %d disagrees with the model: \"%s\" and \"%s\"", k,
                  enc (a), enc (b));
        rp_hostlist_destroy (a);
        rp_hostlist_destroy (b);
    }
    ok (bad == 0, "%d random rounds agree with a naive model", ITERATIONS);
}

/* Random spellings of the same names: only which names, in which order and
 * how often, is checked; the sort order depends on the spelling. */

static const char *spellings[][4] = {
    { "foo1-eth2", "foo[1]-eth2", "foo1-eth[2]", "foo1-eth2" },
    { "foo2-eth2", "foo[2]-eth2", "foo2-eth[2]", "foo[2]-eth2" },
    { "n12", "n1[2]", "n[12]", "n12" },
    { "n13", "n1[3]", "n[13]", "n13" },
    { "n012", "n0[12]", "n[012]", "n01[2]" },
    { "foo1x", "foo[1]x", "foo1x", "foo[1]x" },
    { "a1b2c3", "a[1]b2c3", "a1b[2]c3", "a1b2c[3]" },
    { "7", "[7]", "7", "[7]" },
    { "07", "[07]", "0[7]", "07" },
    { "x", "x", "x", "x" },
};

#define NSPELL (sizeof (spellings) / sizeof (spellings[0]))

static void random_spelled (struct rp_hostlist *hl, struct model *m)
{
    int n = rnd (10);

    m->n = 0;
    for (int k = 0; k < n; k++) {
        unsigned int w = rnd (NSPELL), s = rnd (4);
        const char *expr = spellings[w][s];
        snprintf (m->h[m->n++].name, 32, "%s", spellings[w][0]);
        if (rp_hostlist_append (hl, expr, NULL) != 1)
            BAIL_OUT ("append %s failed", expr);
    }
}

/* Same names, each as often, in any order. */
static bool same_multiset (const struct rp_hostlist *hl, const struct model *m)
{
    struct model got = { .n = 0 }, want = *m;
    char buf[64];

    if (!hl || rp_hostlist_count (hl) != m->n)
        return false;
    for (size_t i = 0; i < m->n; i++) {
        if (rp_hostlist_nth_buf (hl, i, buf, sizeof (buf)) < 0)
            return false;
        snprintf (got.h[got.n++].name, 32, "%s", buf);
    }
    for (size_t i = 0; i < got.n; i++) {
        ssize_t j = model_find (&want, got.h[i].name);
        if (j < 0)
            return false;
        want.h[j] = want.h[--want.n];
    }
    return true;
}

static int spelled_round (void)
{
    struct rp_hostlist *a = rp_hostlist_create (), *b = rp_hostlist_create ();
    struct rp_hostlist *u, *i, *m, *x;
    struct model ma, mb, mu, mi, mm, mx, t;
    int bad = 0;

    random_spelled (a, &ma);
    random_spelled (b, &mb);
    mu = ma;
    model_cat (&mu, &mb);
    model_uniq (&mu);
    model_filter (&ma, &mb, true, &mi);
    model_uniq (&mi);
    model_filter (&ma, &mb, false, &mm);
    model_filter (&mb, &ma, false, &t);
    mx = mm;
    model_cat (&mx, &t);
    model_uniq (&mx);
    bad += !same_multiset (u = rp_hostlist_union (a, b), &mu);
    bad += !same_multiset (i = rp_hostlist_intersect (a, b), &mi);
    bad += !matches (m = rp_hostlist_minus (a, b), &mm);
    bad += !same_multiset (x = rp_hostlist_xor (a, b), &mx);
    for (size_t k = 0; k < mb.n; k++)
        bad += rp_hostlist_find (a, mb.h[k].name)
               != model_find (&ma, mb.h[k].name);
    rp_hostlist_uniq (a);
    model_uniq (&ma);
    bad += !same_multiset (a, &ma);
    if (bad)
        diag ("spellings disagree: \"%s\" and \"%s\"", enc (a), enc (b));
    rp_hostlist_destroy (u);
    rp_hostlist_destroy (i);
    rp_hostlist_destroy (m);
    rp_hostlist_destroy (x);
    rp_hostlist_destroy (a);
    rp_hostlist_destroy (b);
    return bad;
}

static void test_random_spellings (void)
{
    int bad = 0;

    for (int k = 0; k < ITERATIONS && !bad; k++)
        bad = spelled_round ();
    ok (bad == 0, "%d rounds of mixed spellings agree with a naive model",
        ITERATIONS);
}

/* Names whose digits split in more than one way */

static const struct find_case digit_finds[] = {
    { "n[0-9]-e1,n5-e1", "n5-e1", 5 },
    { "n5-e1,n[0-9]-e1", "n5-e1", 0 },
    { "n5-e[0-9],n[0-9]-e1", "n5-e1", 1 },
    { "n[0-9]-e1,n5-e[0-9]", "n5-e1", 5 },
    { "n[0-9]-e1,n5-e[0-9]", "n5-e0", 10 },
    { "n[0-9]-e1", "n5-e2", -1 },
    { "n[0-9]-e1", "n5-e", -1 },
    { "n[0-9]-e1", "n05-e1", -1 },
    { "n[00-10]-e1", "n05-e1", 5 },
    { "n[00-10]-e1", "n5-e1", -1 },
    { "n[00-10]-e1", "n10-e1", 10 },
    { "n[00-10]-e1", "n010-e1", -1 },
    { "n1[0-9]-e1", "n15-e1", 5 },
    { "n[10-19]-e1,n1[0-9]-e1", "n15-e1", 5 },
    { "n[5]-e1,n5-e1", "n5-e1", 0 },
    { "a1b[0-3]c2", "a1b2c2", 2 },
    { "a1b[0-3]c2", "a1b2c3", -1 },
    { "n[0-99]5", "n125", 12 },
    { "n[0-99]5", "n05", 0 },
    { "n[0-99]5", "n5", -1 },
    { "n[0-99],n[0-9]5", "n05", 100 },
    { "n[0-99],n[0-9]5", "n15", 15 },
    { "n[0-9]5,n[0-99]", "n15", 1 },
    { "n[0-9]-e1", "n[5]-e1", -1 },
    { "n1234567890123456789[0-9]-e1", "n12345678901234567895-e1", 5 },
    { "n1234567890123456789[0-9]-e1", "n1234567890123456789-e1", -1 },
    { "n[1-3]1234567890123456789", "n21234567890123456789", 1 },
    { "n[0-16777215]-e1", "n16777215-e1", 16777215 },
    { "n[0-16777215]-e1", "n16777216-e1", -1 },
};

static void test_digit_suffix_find (void)
{
    for (size_t i = 0; i < sizeof (digit_finds) / sizeof (digit_finds[0]);
         i++) {
        const struct find_case *f = &digit_finds[i];
        struct rp_hostlist *hl = dec (f->list);
        ssize_t got;

        errno = 0;
        got = rp_hostlist_find (hl, f->host);
        if (f->index < 0)
            ok (got == -1 && errno == ENOENT, "\"%s\" is not in \"%s\"",
                f->host, f->list);
        else
            cmp_ok (got, ==, f->index, "\"%s\" is at %zd in \"%s\"", f->host,
                    f->index, f->list);
        rp_hostlist_destroy (hl);
    }
}

#define HOLES_0_99                                                             \
    "n[0-14,16-24,26-34,36-44,46-54,56-64,66-74,76-84,86-94,96-99]"

static const struct op_case digit_deletes[] = {
    { "n[0-9]-e1", "n5-e1", "n[0-4,6-9]-e1" },
    { "n[0-9]-e1,n5-e1", "n5-e[0-9]", "n[0-4,6-9]-e1" },
    { "n5-e[0-9]", "n[0-9]-e1", "n5-e[0,2-9]" },
    { "n[00-10]-e1", "n5-e1", "n[00-10]-e1" },
    { "n[00-10]-e1", "n05-e1", "n[00-04,06-10]-e1" },
    { "n[00-10]-e1", "n[0-9]-e1", "n[00-10]-e1" },
    { "n1[0-9]-e1", "n[12-13]-e1", "n1[0-1,4-9]-e1" },
    { "n[0-99]", "n[0-9]5", HOLES_0_99 },
    { "n[0-9]5", "n[0-99]", "n05" },
    { "n[0-9]-x12345678901234567890", "n5-x1234567890123456789[0-9]",
      "n[0-4,6-9]-x12345678901234567890" },
    { "n5-x1234567890123456789[0-9]", "n[0-9]-x12345678901234567890",
      "n5-x1234567890123456789[1-9]" },
    { "n[0-16777215]-e1", "n[1-16777214]-e1", "n[0,16777215]-e1" },
    { "n[0-16777215]-e1", "n5-e[0-9]", "n[0-4,6-16777215]-e1" },
};

static void test_digit_suffix_delete (void)
{
    for (size_t i = 0; i < sizeof (digit_deletes) / sizeof (digit_deletes[0]);
         i++) {
        const struct op_case *d = &digit_deletes[i];
        struct rp_hostlist *hl = dec (d->in);
        size_t before = rp_hostlist_count (hl);
        int n = rp_hostlist_delete (hl, d->arg, NULL);
        ok (n >= 0 && (size_t)n == before - rp_hostlist_count (hl),
            "delete \"%s\" from \"%s\" returns the number removed", d->arg,
            d->in);
        is (enc (hl), d->want, "and gives \"%s\"", d->want);
        rp_hostlist_destroy (hl);
    }
}

static const struct setop_case digit_setops[] = {
    { "n[0-9]-e1", "n5-e1", "n[0-9]-e1", "n5-e1", "n[0-4,6-9]-e1",
      "n[0-4,6-9]-e1" },
    { "n5-e1", "n[0-9]-e1", "n[0-9]-e1", "n5-e1", "", "n[0-4,6-9]-e1" },
    { "n[0-9]-e1", "n5-e[0-9]", "n[0-9]-e1,n5-e[0,2-9]", "n5-e1",
      "n[0-4,6-9]-e1", "n[0-4,6-9]-e1,n5-e[0,2-9]" },
    { "n[00-02]-e1", "n[0-2]-e1", "n0-e1,n00-e1,n1-e1,n01-e1,n2-e1,n02-e1", "",
      "n[00-02]-e1", "n0-e1,n00-e1,n1-e1,n01-e1,n2-e1,n02-e1" },
    { "n[00-10]-e1", "n5-e1,n05-e1", "n[00-10]-e1,n5-e1", "n05-e1",
      "n[00-04,06-10]-e1", "n[00-04,06-10]-e1,n5-e1" },
    { "n1[0-9]-e1", "n[10-19]-e1", "n[10-19]-e1", "n1[0-9]-e1", "", "" },
    { "n[0-99]", "n[0-9]5", "n[0-99],n05", "n[15,25,35,45,55,65,75,85,95]",
      HOLES_0_99, HOLES_0_99 ",n05" },
    { "n[0-16777215]-e1", "n5-e1,n7-e1", "n[0-16777215]-e1", "n[5,7]-e1",
      "n[0-4,6,8-16777215]-e1", "n[0-4,6,8-16777215]-e1" },
    { "n[0-16777215]-e1", "n5-e[0-9]", NULL, "n5-e1", "n[0-4,6-16777215]-e1",
      NULL },
};

static void test_digit_suffix_setops (void)
{
    for (size_t i = 0; i < sizeof (digit_setops) / sizeof (digit_setops[0]);
         i++) {
        const struct setop_case *s = &digit_setops[i];
        struct rp_hostlist *a = dec (s->a), *b = dec (s->b), *r;

        errno = 0;
        check_setop ("union", r = rp_hostlist_union (a, b), s, s->u);
        rp_hostlist_destroy (r);
        check_setop ("intersect", r = rp_hostlist_intersect (a, b), s, s->i);
        rp_hostlist_destroy (r);
        check_setop ("minus", r = rp_hostlist_minus (a, b), s, s->m);
        rp_hostlist_destroy (r);
        errno = 0;
        check_setop ("xor", r = rp_hostlist_xor (a, b), s, s->x);
        rp_hostlist_destroy (r);
        rp_hostlist_destroy (a);
        rp_hostlist_destroy (b);
    }
}

static const struct op_case digit_uniqs[] = {
    { "n5-e1,n[0-9]-e1", NULL, "n[0-9]-e1" },
    { "n[0-9]-e1,n5-e[0-9]", NULL, "n[0-9]-e1,n5-e[0,2-9]" },
    { "n5-e[0-9],n[0-9]-e1", NULL, "n[0-9]-e1,n5-e[0,2-9]" },
    { "n[00-10]-e1,n5-e1,n05-e1", NULL, "n[00-10]-e1,n5-e1" },
    { "n[0-99],n[0-9]5", NULL, "n[0-99],n05" },
    { "n[0-9]5,n[0-99]", NULL, "n[0-99],n05" },
    { "n1[0-9]-e1,n[10-19]-e1,n15-e1", NULL, "n[10-19]-e1" },
    { "n[15-19],n[1-2]5", NULL, "n[15-19],n25" },
};

static void test_digit_suffix_uniq (void)
{
    for (size_t i = 0; i < sizeof (digit_uniqs) / sizeof (digit_uniqs[0]);
         i++) {
        struct rp_hostlist *hl = dec (digit_uniqs[i].in);
        ok (rp_hostlist_uniq (hl) == 0, "uniq \"%s\" works", digit_uniqs[i].in);
        is (enc (hl), digit_uniqs[i].want, "and gives \"%s\"",
            digit_uniqs[i].want);
        rp_hostlist_destroy (hl);
    }
}

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif

/* In a child: 2^24 hosts of one run with a digit in its suffix take no
 * memory per host to look up or to subtract from.  The child is held to
 * 256 MiB of address space; under the address sanitizer, which reserves
 * terabytes of shadow memory at start, to 256 MiB of resident memory grown
 * instead (its peak resident size, read before and after).  Returns the
 * child's exit status (0: all held). */
#define MAX_HOSTS_MEMORY (256u << 20)

#ifdef UNDER_ASAN
static long peak_rss_kib (void)
{
    struct rusage ru;
    return getrusage (RUSAGE_SELF, &ru) < 0 ? -1 : ru.ru_maxrss;
}
#endif

static int max_hosts_child (void)
{
    struct rp_hostlist *hl, *b, *m;
    int status = 1;
#ifdef UNDER_ASAN
    long before = peak_rss_kib ();
#else
    struct rlimit rl = { .rlim_cur = MAX_HOSTS_MEMORY,
                         .rlim_max = MAX_HOSTS_MEMORY };

    if (setrlimit (RLIMIT_AS, &rl) < 0)
        return 2;
#endif
    if (!(hl = rp_hostlist_decode ("n[0-16777215]-e1", NULL)))
        return 3;
    if (rp_hostlist_find (hl, "n16777215-e1") != MAX_HOSTS - 1)
        return 4;
    if (!(b = rp_hostlist_decode ("n5-e[0-9]", NULL)))
        return 5;
    m = rp_hostlist_minus (hl, b);
    if (m && rp_hostlist_count (m) == MAX_HOSTS - 1
        && rp_hostlist_delete (hl, "n[1-16777214]-e1", NULL) == MAX_HOSTS - 2)
        status = 0;
    rp_hostlist_destroy (m);
    rp_hostlist_destroy (b);
    rp_hostlist_destroy (hl);
#ifdef UNDER_ASAN
    if (status == 0 && (before < 0 || peak_rss_kib () - before
                                          > (long)(MAX_HOSTS_MEMORY >> 10)))
        status = 6;
#endif
    return status;
}

static void test_digit_suffix_max_hosts (void)
{
    struct rp_hostlist *hl = dec ("n[0-16777215]-e1");
    int status;
    pid_t pid;

    cmp_ok (rp_hostlist_find (hl, "n16777215-e1"), ==, MAX_HOSTS - 1,
            "n16777215-e1 is the last of n[0-16777215]-e1");
    cmp_ok (rp_hostlist_find (hl, "n0-e1"), ==, 0, "n0-e1 is the first");
    rp_hostlist_destroy (hl);

    fflush (stdout);
    if ((pid = fork ()) < 0)
        BAIL_OUT ("fork: %s", strerror (errno));
    if (pid == 0)
        _exit (max_hosts_child ());
    if (waitpid (pid, &status, 0) < 0)
        BAIL_OUT ("waitpid: %s", strerror (errno));
    ok (WIFEXITED (status) && WEXITSTATUS (status) == 0,
        "within 256 MiB, n[0-16777215]-e1 decodes, finds, subtracts and "
        "deletes (status %d)",
        WIFEXITED (status) ? WEXITSTATUS (status) : -1);
}

/* Random lists whose names split in several ways, against the model.
 * Union, intersect, xor and uniq are sorted by spelling, which the model
 * does not know: they are checked as multisets, and uniq as sorted. */

#define DIGIT_ROUNDS 10000

static void digit_expr (char *expr, size_t size, struct model *m,
                        unsigned int lo, unsigned int len)
{
    unsigned int c = rnd (3);
    int w = rnd (4) == 0 ? 2 : 0;
    char p[32], s[32];

    switch (rnd (11)) {
    case 0:
        snprintf (p, sizeof (p), "n");
        snprintf (s, sizeof (s), "-e%u", c);
        break;
    case 1:
        snprintf (p, sizeof (p), "n%u-e", c + 4);
        snprintf (s, sizeof (s), "%s", "");
        break;
    case 2:
        snprintf (p, sizeof (p), "n");
        snprintf (s, sizeof (s), "%u", c + 4);
        break;
    case 3:
        snprintf (p, sizeof (p), "n%u", c);
        snprintf (s, sizeof (s), "-e%u", c);
        break;
    case 4:
        snprintf (p, sizeof (p), "x1234567890123456%u", c);
        snprintf (s, sizeof (s), "%s", "");
        break;
    case 5:
        snprintf (p, sizeof (p), "r%u-n", c);
        snprintf (s, sizeof (s), "-e1");
        break;
    case 6:
        snprintf (p, sizeof (p), "r");
        snprintf (s, sizeof (s), "-n%u-e1", c + 4);
        break;
    case 7:
        snprintf (p, sizeof (p), "n");
        snprintf (s, sizeof (s), "%u5", c + 4);
        break;
    case 8:
        snprintf (p, sizeof (p), "y");
        snprintf (s, sizeof (s), "-123456789012345678%u", c);
        break;
    case 9:
        snprintf (p, sizeof (p), "y%u-123456789012345678", c);
        snprintf (s, sizeof (s), "%s", "");
        break;
    default:
        snprintf (p, sizeof (p), "x1234567890123456");
        snprintf (s, sizeof (s), "%u", c);
        break;
    }
    snprintf (expr, size, "%s[%0*u-%u]%s", p, w, lo, lo + len - 1, s);
    model_range (m, p, w, lo, len, s);
}

static void random_digit_list (struct rp_hostlist *hl, struct model *m)
{
    int runs = rnd (7);

    m->n = 0;
    for (int k = 0; k < runs; k++) {
        unsigned int lo = rnd (14), len = 1 + rnd (6);
        char expr[128];
        if (m->n + len > MAXN)
            break;
        if (rnd (5) == 0) {
            snprintf (expr, sizeof (expr), "n%u-e%u", lo, rnd (3));
            snprintf (m->h[m->n++].name, 32, "%s", expr);
        } else if (rnd (5) == 0) {
            snprintf (expr, sizeof (expr), "r%u-n%u-e1", rnd (3), lo);
            snprintf (m->h[m->n++].name, 32, "%s", expr);
        } else
            digit_expr (expr, sizeof (expr), m, lo, len);
        if (rp_hostlist_append (hl, expr, NULL) < 0)
            BAIL_OUT ("append %s failed", expr);
    }
}

/* uniq of hl: the model's names, and sorted already. */
static int digit_uniq (const struct rp_hostlist *hl, const struct model *m)
{
    struct rp_hostlist *u = rp_hostlist_copy (hl), *s;
    struct model mu = *m;
    int bad;

    model_uniq (&mu);
    bad = rp_hostlist_uniq (u) != 0 || !same_multiset (u, &mu);
    s = rp_hostlist_copy (u);
    bad += rp_hostlist_sort (s) != 0 || !rp_hostlist_equal (s, u);
    rp_hostlist_destroy (s);
    rp_hostlist_destroy (u);
    return bad;
}

static int digit_round (void)
{
    struct rp_hostlist *a = rp_hostlist_create (), *b = rp_hostlist_create ();
    struct rp_hostlist *u, *i, *m, *x, *d;
    struct model ma, mb, mu, mi, mm, mx, t;
    char *bs;
    int bad = 0;

    random_digit_list (a, &ma);
    random_digit_list (b, &mb);
    mu = ma;
    model_cat (&mu, &mb);
    model_uniq (&mu);
    model_filter (&ma, &mb, true, &mi);
    model_uniq (&mi);
    model_filter (&ma, &mb, false, &mm);
    model_filter (&mb, &ma, false, &t);
    mx = mm;
    model_cat (&mx, &t);
    model_uniq (&mx);
    bad += !same_multiset (u = rp_hostlist_union (a, b), &mu);
    bad += !same_multiset (i = rp_hostlist_intersect (a, b), &mi);
    bad += !matches (m = rp_hostlist_minus (a, b), &mm);
    bad += !same_multiset (x = rp_hostlist_xor (a, b), &mx);
    bs = rp_hostlist_encode (b);
    d = rp_hostlist_copy (a);
    bad += !bs || rp_hostlist_delete (d, bs, NULL) < 0 || !matches (d, &mm);
    for (size_t k = 0; k < ma.n; k++)
        bad += rp_hostlist_find (a, ma.h[k].name)
               != model_find (&ma, ma.h[k].name);
    for (size_t k = 0; k < mb.n; k++)
        bad += rp_hostlist_find (a, mb.h[k].name)
               != model_find (&ma, mb.h[k].name);
    bad += digit_uniq (a, &ma);
    if (bad)
        diag ("digit splits disagree: \"%s\" and \"%s\"", enc (a), enc (b));
    free (bs);
    rp_hostlist_destroy (d);
    rp_hostlist_destroy (u);
    rp_hostlist_destroy (i);
    rp_hostlist_destroy (m);
    rp_hostlist_destroy (x);
    rp_hostlist_destroy (a);
    rp_hostlist_destroy (b);
    return bad;
}

static void test_digit_suffix_random (void)
{
    int bad = 0;

    for (int k = 0; k < DIGIT_ROUNDS && !bad; k++)
        bad = digit_round ();
    ok (bad == 0,
        "%d rounds of names split in several ways agree with a "
        "naive model",
        DIGIT_ROUNDS);
}

int main (void)
{
    plan (NO_PLAN);
    test_valid ();
    test_invalid ();
    test_decode_limits ();
    test_create_copy ();
    test_append ();
    test_nth ();
    test_find ();
    test_expand ();
    test_slice ();
    test_equal ();
    test_ops ();
    test_ops_errors ();
    test_setops ();
    test_random ();
    test_random_spellings ();
    test_digit_suffix_find ();
    test_digit_suffix_delete ();
    test_digit_suffix_setops ();
    test_digit_suffix_uniq ();
    test_digit_suffix_max_hosts ();
    test_digit_suffix_random ();
    return done_testing ();
}
