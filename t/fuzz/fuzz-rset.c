/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target for R version 1 (RFC 20): rp_rset_decode().
 *
 * Every input must decode or fail with an error text.  When it decodes:
 * rp_rset_from_json() of the same JSON gives an equal set; encoding and
 * decoding again gives an equal set whose encoding is the same text; and
 * operations with itself hold: a - a is empty, a | a and a & a equal a, a
 * is a subset of itself and verifies against itself, a copy is equal,
 * appending a to itself fails unless a has no core or GPU, remap keeps the
 * counts, every property read back is seen by has_property.  Sets of more
 * than DEEP_MAX targets only get the round trip (a few bytes of R can name
 * up to RP_RSET_MAX_TARGETS targets, and libFuzzer wants fast runs).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/rset.h"

#define DEEP_MAX 4096

static void check (bool cond, const char *what)
{
    if (!cond) {
        fprintf (stderr, "fuzz-rset: %s\n", what);
        abort ();
    }
}

static void check_from_json (const char *s, const struct rp_rset *r)
{
    json_t *o = json_loads (s, JSON_REJECT_DUPLICATES, NULL);
    rp_error_t e;
    struct rp_rset *r2;

    check (o != NULL, "decoded text is not JSON");
    r2 = rp_rset_from_json (o, &e);
    check (r2 && rp_rset_equal (r, r2), "from_json differs from decode");
    rp_rset_destroy (r2);
    json_decref (o);
}

static void check_round_trip (const struct rp_rset *r)
{
    rp_error_t e;
    char *s = rp_rset_encode (r, 0);
    struct rp_rset *r2 = s ? rp_rset_decode (s, &e) : NULL;
    char *s2 = r2 ? rp_rset_encode (r2, 0) : NULL;

    check (s != NULL, "encode failed");
    check (r2 != NULL, "encoded R does not decode");
    check (rp_rset_equal (r, r2), "decode (encode (r)) != r");
    check (s2 && strcmp (s, s2) == 0, "encoding is not stable");
    free (s);
    free (s2);
    rp_rset_destroy (r2);
}

static void check_self_ops (const struct rp_rset *r)
{
    rp_error_t e;
    struct rp_rset *x;
    bool empty =
        rp_rset_count (r, "core") == 0 && rp_rset_count (r, "gpu") == 0;

    x = rp_rset_diff (r, r, &e);
    check (x && rp_rset_ntargets (x) == 0, "a - a is not empty");
    rp_rset_destroy (x);
    x = rp_rset_union (r, r, &e);
    check (x && rp_rset_equal (x, r), "a | a != a");
    rp_rset_destroy (x);
    x = rp_rset_intersect (r, r, &e);
    check (x && rp_rset_equal (x, r), "a & a != a");
    rp_rset_destroy (x);
    check (rp_rset_is_subset (r, r), "a is not a subset of a");
    check (rp_rset_verify (r, r, &e) == 0, "a does not verify against a");
    x = rp_rset_copy (r);
    check (x && rp_rset_equal (x, r), "copy differs");
    check ((rp_rset_append (x, r, &e) == 0) == empty, "append a to a");
    check (rp_rset_equal (x, r), "append changed the set");
    check (rp_rset_remap (x, &e) == 0, "remap failed");
    check (rp_rset_count (x, "core") == rp_rset_count (r, "core")
               && rp_rset_count (x, "gpu") == rp_rset_count (r, "gpu")
               && rp_rset_ntargets (x) == rp_rset_ntargets (r),
           "remap changed the counts");
    rp_rset_destroy (x);
}

static void check_properties (const struct rp_rset *r)
{
    json_t *o = rp_rset_properties (r);

    check (o != NULL, "properties failed");
    for (void *it = json_object_iter (o); it;
         it = json_object_iter_next (o, it)) {
        const char *name = json_object_iter_key (it);
        json_t *v = json_object_iter_value (it);
        struct rp_idset *ids = rp_idset_decode (json_string_value (v), NULL);
        check (ids != NULL, "property idset does not decode");
        for (unsigned int id = rp_idset_first (ids); id != RP_IDSET_INVALID_ID;
             id = rp_idset_next (ids, id))
            check (rp_rset_has_property (r, id, name), "has_property");
        rp_idset_destroy (ids);
    }
    json_decref (o);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);
    rp_error_t e = { .text = "" };
    struct rp_rset *r;

    if (!s)
        return 0;
    memcpy (s, data, size);
    s[size] = '\0';
    r = rp_rset_decode (s, &e);
    if (!r) {
        check (strncmp (e.text, "R: ", 3) == 0, "error text without R:");
        free (s);
        return 0;
    }
    check_round_trip (r);
    if (rp_rset_ntargets (r) <= DEEP_MAX) {
        check_from_json (s, r);
        check_self_ops (r);
        check_properties (r);
    }
    rp_rset_destroy (r);
    free (s);
    return 0;
}
