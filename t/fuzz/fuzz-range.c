/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target for core/range.c (RFC 45 strings).
 *
 * The input is tried twice: as a range string (decode must either fail
 * with EINVAL/ERANGE and a "range: " message, or give a range that checks,
 * encodes, and decodes back equal from its encoding), and, when long
 * enough, as raw struct rp_range fields (check, encode and the value
 * functions must agree and terminate whatever the fields hold).  For every
 * valid range the first 1000 values are walked: ascending, each contained,
 * each the largest value <= itself, the previous one the largest below
 * it, and size() equal to the count when the walk ended.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "respol/range.h"

#define WALK_MAX 1000

static void require (int cond)
{
    if (!cond)
        abort ();
}

static bool range_eq (const struct rp_range *a, const struct rp_range *b)
{
    return a->min == b->min && a->max == b->max && a->operand == b->operand
           && a->op == b->op;
}

/* Walk up to WALK_MAX values and check each against contains/largest. */
static void walk (const struct rp_range *r)
{
    uint64_t v, prev = 0, got;
    uint64_t n = 0;
    bool more;

    for (more = rp_range_first (r, &v); more && n < WALK_MAX;
         more = rp_range_next (r, &v)) {
        require (v >= r->min && v <= r->max);
        require (n == 0 || v > prev);
        require (rp_range_contains (r, v));
        require (rp_range_largest (r, v, &got) && got == v);
        if (n > 0) {
            require (rp_range_largest (r, v - 1, &got) && got == prev);
            require (v - 1 == prev || !rp_range_contains (r, v - 1));
        }
        prev = v;
        n++;
    }
    require (!rp_range_contains (r, r->min - 1));
    require (!rp_range_largest (r, r->min - 1, &got));
    if (!more) {
        /* the walk ended: nothing above the last value is acceptable */
        require (rp_range_largest (r, UINT64_MAX, &got) && got == prev);
        if (r->max != RP_RANGE_UNBOUNDED)
            require (rp_range_size (r) == n);
    }
}

static void fuzz_string (const char *s)
{
    struct rp_range r, r2;
    rp_error_t e;
    char *enc, *enc2;

    if (rp_range_decode (s, &r, &e) < 0) {
        require (errno == EINVAL || errno == ERANGE);
        require (strncmp (e.text, "range: \"", 8) == 0);
        require (strlen (e.text) < sizeof (e.text));
        return;
    }
    require (rp_range_check (&r, NULL) == 0);
    enc = rp_range_encode (&r);
    require (enc != NULL);
    require (rp_range_decode (enc, &r2, NULL) == 0 && range_eq (&r, &r2));
    enc2 = rp_range_encode (&r2);
    require (enc2 != NULL && strcmp (enc, enc2) == 0);
    require (strlen (enc) <= strlen (s));
    free (enc);
    free (enc2);
    walk (&r);
}

static void fuzz_struct (const uint8_t *data)
{
    struct rp_range r, r2;
    char *enc;

    memcpy (&r.min, data, 8);
    memcpy (&r.max, data + 8, 8);
    memcpy (&r.operand, data + 16, 8);
    r.op = (char)data[24];
    /* keep the interesting small values reachable */
    if (data[25] & 1)
        r.min %= 64;
    if (data[25] & 2)
        r.max %= 1024;
    if (data[25] & 4)
        r.operand %= 8;
    if (rp_range_check (&r, NULL) < 0) {
        uint64_t v = 7;
        require (rp_range_encode (&r) == NULL);
        require (!rp_range_first (&r, &v) && v == 7);
        require (rp_range_size (&r) == 0);
        return;
    }
    enc = rp_range_encode (&r);
    require (enc != NULL);
    require (rp_range_decode (enc, &r2, NULL) == 0 && range_eq (&r, &r2));
    free (enc);
    walk (&r);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);

    if (!s)
        return 0;
    memcpy (s, data, size);
    s[size] = '\0';
    fuzz_string (s);
    free (s);
    if (size >= 26)
        fuzz_struct (data);
    return 0;
}
