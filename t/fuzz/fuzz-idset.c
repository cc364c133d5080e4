/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target for the RFC 22 idset decoder and the set algebra.
 *
 * The input is decoded whole with rp_idset_ndecode (it need not be NUL
 * terminated).  When it decodes, every encoding (all four flag
 * combinations) must decode back to an equal set, and the set must agree
 * with its own count, min, max and ranges.  The input is also split in two
 * halves; when both decode, union, intersection and difference are checked
 * against each other with the identities of set algebra.  Any disagreement
 * calls abort() so libFuzzer keeps the input.
 *
 * flags 0 lists every id, so its output is proportional to the number of
 * members: it is only tried on sets of at most MAX_LISTED members, so that
 * an input like "0-4000000000" stays fast.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <respol/idset.h>

#define MAX_LISTED 100000

static void check (bool cond)
{
    if (!cond)
        abort ();
}

/* Encode with flags, decode again, and check the result equals set. */
static void check_roundtrip (const struct rp_idset *set, int flags)
{
    rp_error_t error;
    char *s = rp_idset_encode (set, flags);
    struct rp_idset *again;

    check (s != NULL);
    again = rp_idset_decode (s, &error);
    check (again != NULL);
    check (rp_idset_equal (set, again));
    rp_idset_destroy (again);
    free (s);
}

/* The lo of range i + 1, or RP_IDSET_INVALID_ID. */
static unsigned int next_lo (const struct rp_idset *set, size_t i)
{
    unsigned int lo, hi;

    if (!rp_idset_range (set, i + 1, &lo, &hi))
        return RP_IDSET_INVALID_ID;
    return lo;
}

/* The ranges are ordered, disjoint, non-adjacent and add up to count. */
static void check_shape (const struct rp_idset *set)
{
    size_t n = rp_idset_range_count (set);
    size_t count = 0;
    unsigned int lo, hi, prev_hi = 0;

    for (size_t i = 0; i < n; i++) {
        check (rp_idset_range (set, i, &lo, &hi));
        check (lo <= hi && hi <= RP_IDSET_MAX_ID);
        check (i == 0 || lo > prev_hi + 1);
        check (rp_idset_test (set, lo) && rp_idset_test (set, hi));
        check (i == 0 || !rp_idset_test (set, lo - 1));
        check (i == 0 || rp_idset_next (set, prev_hi) == lo);
        check (rp_idset_next (set, lo)
               == (lo < hi ? lo + 1 : next_lo (set, i)));
        count += (size_t)(hi - lo) + 1;
        prev_hi = hi;
    }
    check (!rp_idset_range (set, n, &lo, &hi));
    check (rp_idset_count (set) == count);
    check (rp_idset_empty (set) == (n == 0));
    check (rp_idset_min (set) == rp_idset_first (set));
    check (rp_idset_min (set) == rp_idset_nth (set, 0));
    check (rp_idset_max (set)
           == (count ? rp_idset_nth (set, count - 1) : RP_IDSET_INVALID_ID));
}

static void check_one (const struct rp_idset *set)
{
    check_shape (set);
    check_roundtrip (set, RP_IDSET_RANGES);
    check_roundtrip (set, RP_IDSET_RANGES | RP_IDSET_BRACKETS);
    if (rp_idset_count (set) <= MAX_LISTED) {
        check_roundtrip (set, 0);
        check_roundtrip (set, RP_IDSET_BRACKETS);
    }
}

static void check_algebra (const struct rp_idset *a, const struct rp_idset *b)
{
    struct rp_idset *u = rp_idset_union (a, b);
    struct rp_idset *x = rp_idset_intersect (a, b);
    struct rp_idset *d = rp_idset_difference (a, b);
    struct rp_idset *t = rp_idset_copy (d);

    check (u && x && d && t);
    check_shape (u);
    check_shape (x);
    check_shape (d);
    /* |a| + |b| = |a | b| + |a & b| */
    check (rp_idset_count (a) + rp_idset_count (b)
           == rp_idset_count (u) + rp_idset_count (x));
    check (rp_idset_is_subset (a, u) && rp_idset_is_subset (b, u));
    check (rp_idset_is_subset (x, a) && rp_idset_is_subset (x, b));
    check (rp_idset_is_subset (d, a) && !rp_idset_intersects (d, b));
    check (rp_idset_intersects (a, b) == !rp_idset_empty (x));
    check (rp_idset_is_subset (a, b) == rp_idset_empty (d));
    /* (a - b) | (a & b) = a */
    check (rp_idset_add_set (t, x) == 0 && rp_idset_equal (t, a));
    /* a | b - b = a - b */
    check (rp_idset_subtract (u, b) == 0 && rp_idset_equal (u, d));
    rp_idset_destroy (u);
    rp_idset_destroy (x);
    rp_idset_destroy (d);
    rp_idset_destroy (t);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    const char *s = (const char *)data;
    rp_error_t error;
    struct rp_idset *set = rp_idset_ndecode (s, size, &error);
    struct rp_idset *a, *b;

    if (set)
        check_one (set);
    else
        check ((errno == EINVAL || errno == ERANGE)
               && strncmp (error.text, "idset: \"", 8) == 0);
    rp_idset_destroy (set);

    a = rp_idset_ndecode (s, size / 2, NULL);
    b = rp_idset_ndecode (s + size / 2, size - size / 2, NULL);
    if (a && b)
        check_algebra (a, b);
    rp_idset_destroy (a);
    rp_idset_destroy (b);
    return 0;
}
