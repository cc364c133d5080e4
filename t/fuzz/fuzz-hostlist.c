/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target for the RFC 29 hostlist decoder, encoder, index and set
 * operations.
 *
 * The input (up to its first NUL) is decoded.  A failure must be EINVAL or
 * EOVERFLOW with a "hostlist: \"" message.  A list must encode to a string
 * that decodes back equal, expand to its hosts in order, and agree with
 * nth and find (find gives the first host of that name).  The input is
 * also split in two halves; when both decode, union, intersect, minus and
 * xor are checked against each other and against find.  Any disagreement
 * calls abort() so libFuzzer keeps the input.
 *
 * The harness's own checks that are proportional to the number of hosts
 * (expand, checking every host against find) are only done on lists of at
 * most MAX_CHECKED hosts, so that "n[0-16777215]-x1" stays fast; the
 * library itself never works per host on such a list.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <respol/hostlist.h>

#define MAX_CHECKED 2048
#define NAME_MAX_BUF (RP_HOSTLIST_MAX_NAME + 1)

static void check (bool cond)
{
    if (!cond)
        abort ();
}

static char *nth (const struct rp_hostlist *hl, size_t i)
{
    char *s = rp_hostlist_nth (hl, i);

    check (s != NULL);
    return s;
}

/* Encode, decode again: equal, and the same again when encoded. */
static void check_roundtrip (const struct rp_hostlist *hl)
{
    rp_error_t error;
    char *s = rp_hostlist_encode (hl);
    struct rp_hostlist *again;
    char *s2;

    check (s != NULL);
    again = rp_hostlist_decode (s, &error);
    check (again != NULL);
    check (rp_hostlist_equal (hl, again));
    check (rp_hostlist_count (hl) == rp_hostlist_count (again));
    s2 = rp_hostlist_encode (again);
    check (s2 != NULL);
    rp_hostlist_destroy (again);
    again = rp_hostlist_decode (s2, &error);
    check (again != NULL && rp_hostlist_equal (hl, again));
    rp_hostlist_destroy (again);
    free (s);
    free (s2);
}

/* Every host: nth, nth_buf, find; and expand joins them. */
static void check_hosts (const struct rp_hostlist *hl)
{
    size_t n = rp_hostlist_count (hl), off = 0;
    char *all = rp_hostlist_expand (hl, ",");
    char buf[NAME_MAX_BUF];

    check (all != NULL);
    for (size_t i = 0; i < n; i++) {
        char *h = nth (hl, i);
        size_t len = strlen (h);
        ssize_t f = rp_hostlist_find (hl, h);
        check (len > 0 && len <= RP_HOSTLIST_MAX_NAME);
        check (rp_hostlist_nth_buf (hl, i, buf, sizeof (buf)) == 0);
        check (strcmp (buf, h) == 0);
        check (rp_hostlist_nth_buf (hl, i, buf, len) < 0 && errno == EOVERFLOW);
        check (f >= 0 && (size_t)f <= i);
        free (h);
        h = nth (hl, (size_t)f);
        check (strcmp (buf, h) == 0);
        check (strncmp (all + off, h, len) == 0);
        off += len;
        check (all[off] == (i + 1 < n ? ',' : '\0'));
        off++;
        free (h);
    }
    check (n > 0 || all[0] == '\0');
    check (rp_hostlist_nth (hl, n) == NULL && errno == ENOENT);
    free (all);
}

/* uniq: the same names, each once, sorted again gives the same. */
static void check_uniq (const struct rp_hostlist *hl)
{
    struct rp_hostlist *u = rp_hostlist_copy (hl);
    struct rp_hostlist *s = rp_hostlist_copy (hl);
    struct rp_hostlist *again;

    check (u && s && rp_hostlist_uniq (u) == 0 && rp_hostlist_sort (s) == 0);
    check (rp_hostlist_count (s) == rp_hostlist_count (hl));
    check (rp_hostlist_count (u) <= rp_hostlist_count (hl));
    for (size_t i = 0; i < rp_hostlist_count (u); i++) {
        char *h = nth (u, i);
        check (rp_hostlist_find (u, h) == (ssize_t)i);
        check (rp_hostlist_find (hl, h) >= 0);
        free (h);
    }
    for (size_t i = 0; i < rp_hostlist_count (hl); i++) {
        char *h = nth (hl, i);
        check (rp_hostlist_find (u, h) >= 0);
        free (h);
    }
    again = rp_hostlist_copy (u);
    check (again && rp_hostlist_sort (again) == 0);
    check (rp_hostlist_equal (again, u));
    rp_hostlist_destroy (again);
    again = rp_hostlist_copy (s);
    check (again && rp_hostlist_uniq (again) == 0);
    check (rp_hostlist_count (again) == rp_hostlist_count (u));
    rp_hostlist_destroy (again);
    rp_hostlist_destroy (u);
    rp_hostlist_destroy (s);
}

static bool has (const struct rp_hostlist *hl, const char *h)
{
    return rp_hostlist_find (hl, h) >= 0;
}

/* Every host of r is in a (in_a), in b (in_b), as asked. */
static void check_members (const struct rp_hostlist *r,
                           const struct rp_hostlist *a,
                           const struct rp_hostlist *b, int in_a, int in_b)
{
    for (size_t i = 0; i < rp_hostlist_count (r); i++) {
        char *h = nth (r, i);
        bool ha = has (a, h), hb = has (b, h);
        check (in_a < 0 || ha == (bool)in_a);
        check (in_b < 0 || hb == (bool)in_b);
        check (in_a >= 0 || in_b >= 0 || ha || hb);
        free (h);
    }
}

static void check_algebra (const struct rp_hostlist *a,
                           const struct rp_hostlist *b)
{
    struct rp_hostlist *u = rp_hostlist_union (a, b);
    struct rp_hostlist *i = rp_hostlist_intersect (a, b);
    struct rp_hostlist *m = rp_hostlist_minus (a, b);
    struct rp_hostlist *x = rp_hostlist_xor (a, b);
    struct rp_hostlist *ua = rp_hostlist_copy (a);
    struct rp_hostlist *ub = rp_hostlist_copy (b);
    struct rp_hostlist *d = rp_hostlist_copy (a);
    char *bs = rp_hostlist_encode (b);
    int removed;

    check (u && i && m && x && ua && ub && d && bs);
    check (rp_hostlist_uniq (ua) == 0 && rp_hostlist_uniq (ub) == 0);
    /* |uniq a| + |uniq b| = |a | b| + |a & b|, |a ^ b| = |a | b| - |a & b| */
    check (rp_hostlist_count (ua) + rp_hostlist_count (ub)
           == rp_hostlist_count (u) + rp_hostlist_count (i));
    check (rp_hostlist_count (x) + rp_hostlist_count (i)
           == rp_hostlist_count (u));
    check_members (u, a, b, -1, -1);
    check_members (i, a, b, 1, 1);
    check_members (m, a, b, 1, 0);
    check_members (x, a, b, -1, -1);
    for (size_t k = 0; k < rp_hostlist_count (x); k++) {
        char *h = nth (x, k);
        check (has (a, h) != has (b, h));
        free (h);
    }
    /* delete is minus in place */
    removed = rp_hostlist_delete (d, bs, NULL);
    check (removed >= 0 && rp_hostlist_equal (d, m));
    check ((size_t)removed + rp_hostlist_count (m) == rp_hostlist_count (a));
    rp_hostlist_destroy (u);
    rp_hostlist_destroy (i);
    rp_hostlist_destroy (m);
    rp_hostlist_destroy (x);
    rp_hostlist_destroy (ua);
    rp_hostlist_destroy (ub);
    rp_hostlist_destroy (d);
    free (bs);
}

static void check_one (const struct rp_hostlist *hl)
{
    check_roundtrip (hl);
    if (rp_hostlist_count (hl) > MAX_CHECKED)
        return;
    check_hosts (hl);
    check_uniq (hl);
    check_algebra (hl, hl);
}

static struct rp_hostlist *decode_n (const uint8_t *data, size_t size,
                                     rp_error_t *error)
{
    char *s = malloc (size + 1);
    struct rp_hostlist *hl;

    check (s != NULL);
    memcpy (s, data, size);
    s[size] = '\0';
    hl = rp_hostlist_decode (s, error);
    free (s);
    return hl;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    rp_error_t error;
    struct rp_hostlist *hl = decode_n (data, size, &error);
    struct rp_hostlist *a, *b;

    if (hl)
        check_one (hl);
    else
        check ((errno == EINVAL || errno == EOVERFLOW)
               && strncmp (error.text, "hostlist: \"", 11) == 0);
    rp_hostlist_destroy (hl);

    a = decode_n (data, size / 2, NULL);
    b = decode_n (data + size / 2, size - size / 2, NULL);
    if (a && b && rp_hostlist_count (a) <= MAX_CHECKED
        && rp_hostlist_count (b) <= MAX_CHECKED)
        check_algebra (a, b);
    rp_hostlist_destroy (a);
    rp_hostlist_destroy (b);
    return 0;
}
