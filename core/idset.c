/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Idsets (RFC 22): see api/respol/idset.h for the contract.
 *
 * A set is a sorted array of disjoint, non-adjacent inclusive ranges
 * {lo, hi} plus a cached member count.  The invariant r[i].hi + 1 < r[i+1].lo
 * makes the representation canonical, so equality is a range-by-range
 * comparison.  Point operations (test, next, add, remove) find their place
 * with a binary search on hi; set algebra is a linear merge of the two range
 * arrays into a new array that replaces the old one only on success, so a
 * failed call (ENOMEM) leaves its arguments untouched.  Nothing loops or
 * allocates in proportion to an id value or a range width: the encoder sizes
 * its output by counting digits per decade, so "0-4294967294" costs one
 * range however it is printed.
 *
 * The decoder is a small hand-written scanner over (s, len), strict where
 * RFC 22 is strict (see the header).  Its error text is
 *   idset: "<input>": <reason> at offset N
 * with N the byte offset in the untrimmed input of the offending character,
 * or of the start of the offending element (an id or a range).  <input> shows
 * at most 64 bytes, printable ASCII as is and other bytes as \xHH (never
 * split), followed by "..." when the input was longer.  "4,5-3" reports
 * "range not ascending" (offset 2) before ordering against the previous
 * element is checked.
 *
 * Encoding follows flux-core byte for byte: with RP_IDSET_RANGES a range of
 * two or more ids prints as "lo-hi" (so {1,2} is "1-2"); brackets are added
 * only when the set has more than one member.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/idset.h"

#include "core/idset_private.h"

#define SHOW_MAX 64

static size_t range_size (const struct range *r)
{
    return (size_t)(r->hi - r->lo) + 1;
}

/* Make room for at least want ranges.  On failure set is unchanged. */
static int reserve (struct rp_idset *set, size_t want)
{
    size_t cap = set->cap > 1 ? set->cap : 4;
    struct range *r;

    if (want <= set->cap)
        return 0;
    while (cap < want) {
        if (cap > SIZE_MAX / 2 / sizeof (*r))
            goto nomem;
        cap *= 2;
    }
    if (set->r == &set->one) {
        if (!(r = malloc (cap * sizeof (*r))))
            goto nomem;
        r[0] = set->one;
    } else if (!(r = realloc (set->r, cap * sizeof (*r))))
        goto nomem;
    set->r = r;
    set->cap = cap;
    return 0;
nomem:
    errno = ENOMEM;
    return -1;
}

/* Append [lo, hi] (lo > previous hi), merging with the last range when
 * adjacent or overlapping.  Capacity must have been reserved. */
static void push (struct rp_idset *set, unsigned int lo, unsigned int hi)
{
    struct range *last = set->n ? &set->r[set->n - 1] : NULL;

    if (last && lo <= last->hi + 1) {
        if (hi > last->hi) {
            set->count += hi - last->hi;
            last->hi = hi;
        }
        return;
    }
    set->r[set->n].lo = lo;
    set->r[set->n].hi = hi;
    set->n++;
    set->count += (size_t)(hi - lo) + 1;
}

/* Index of the first range whose hi >= id, or set->n. */
static size_t lower_bound (const struct rp_idset *set, unsigned int id)
{
    size_t lo = 0;
    size_t hi = set->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (set->r[mid].hi < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void free_ranges (struct rp_idset *set)
{
    if (set->r != &set->one)
        free (set->r);
}

/* Replace the contents of dst by those of src and destroy src. */
static void take (struct rp_idset *dst, struct rp_idset *src)
{
    free_ranges (dst);
    *dst = *src;
    if (src->r == &src->one)
        dst->r = &dst->one;
    free (src);
}

/* A set of one range (most: a job's cores on a node, its ranks) keeps it
 * in the struct: no second allocation.  malloc and the fields set, not
 * calloc: glibc's calloc took twice malloc's instructions. */
struct rp_idset *rp_idset_create (void)
{
    struct rp_idset *set = malloc (sizeof (*set));

    if (set)
        idset_init (set);
    return set;
}

void rp_idset_destroy (struct rp_idset *set)
{
    int saved_errno = errno;

    if (set) {
        free_ranges (set);
        free (set);
    }
    errno = saved_errno;
}

/* An empty set with room for cap ranges. */
static struct rp_idset *create_sized (size_t cap)
{
    struct rp_idset *set = rp_idset_create ();

    if (!set)
        return NULL;
    if (reserve (set, cap) < 0) {
        rp_idset_destroy (set);
        return NULL;
    }
    return set;
}

struct rp_idset *rp_idset_copy (const struct rp_idset *set)
{
    struct rp_idset *cpy;

    if (!set) {
        errno = EINVAL;
        return NULL;
    }
    if (!(cpy = create_sized (set->n)))
        return NULL;
    if (set->n)
        memcpy (cpy->r, set->r, set->n * sizeof (*set->r));
    cpy->n = set->n;
    cpy->count = set->count;
    return cpy;
}

/* Decoding */

struct scan {
    const char *s; /* whole input, for error messages */
    size_t len;
    size_t pos;    /* current offset */
    size_t end;    /* offset after the last non-space byte */
    bool brackets; /* the input opened with '[' */
    rp_error_t *error;
};

static bool is_space (char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool is_digit (char c)
{
    return c >= '0' && c <= '9';
}

static bool is_print (unsigned char c)
{
    return c >= 0x20 && c < 0x7f;
}

/* Write byte c as shown in messages into buf (5 bytes), return length. */
static int show_byte (char *buf, unsigned char c)
{
    if (is_print (c))
        return snprintf (buf, 5, "%c", c);
    return snprintf (buf, 5, "\\x%02x", c);
}

/* Fill buf with the input as shown in messages (see the top comment). */
static void show_input (char *buf, const char *s, size_t len)
{
    size_t used = 0;
    size_t i;

    for (i = 0; i < len; i++) {
        char tmp[5];
        int n = show_byte (tmp, s[i]);
        if (used + n > SHOW_MAX)
            break;
        memcpy (buf + used, tmp, n);
        used += n;
    }
    if (i < len) {
        memcpy (buf + used, "...", 3);
        used += 3;
    }
    buf[used] = '\0';
}

static int scan_error (struct scan *sc, int errnum, size_t off, const char *fmt,
                       ...) __attribute__ ((format (printf, 4, 5)));

static int scan_error (struct scan *sc, int errnum, size_t off, const char *fmt,
                       ...)
{
    char shown[SHOW_MAX + 4];
    char reason[64];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (reason, sizeof (reason), fmt, ap);
    va_end (ap);
    show_input (shown, sc->s, sc->len);
    return rp_error_set (sc->error, errnum, "idset: \"%s\": %s at offset %zu",
                         shown, reason, off);
}

/* Error for an unexpected byte at the current position.  The grammar only
 * calls this before the end; the end check keeps a reader from s[len]. */
static int scan_unexpected (struct scan *sc)
{
    char c;
    char tmp[5];

    if (sc->pos == sc->end)
        return scan_error (sc, EINVAL, sc->pos, "unexpected end of input");
    c = sc->s[sc->pos];
    if (c == ']')
        return scan_error (sc, EINVAL, sc->pos, "unexpected ']'");
    show_byte (tmp, c);
    return scan_error (sc, EINVAL, sc->pos, "unexpected character '%s'", tmp);
}

static bool at (const struct scan *sc, char c)
{
    return sc->pos < sc->end && sc->s[sc->pos] == c;
}

/* Parse one decimal id at the current position into *id. */
static int scan_id (struct scan *sc, unsigned int *id)
{
    size_t start = sc->pos;
    uint64_t v = 0;

    if (!(sc->pos < sc->end && is_digit (sc->s[sc->pos])))
        return scan_unexpected (sc);
    if (at (sc, '0') && sc->pos + 1 < sc->end && is_digit (sc->s[sc->pos + 1]))
        return scan_error (sc, EINVAL, start, "leading zero");
    while (sc->pos < sc->end && is_digit (sc->s[sc->pos])) {
        v = v * 10 + (sc->s[sc->pos++] - '0');
        if (v > RP_IDSET_MAX_ID)
            return scan_error (sc, ERANGE, start, "id too large (max %u)",
                               RP_IDSET_MAX_ID);
    }
    *id = (unsigned int)v;
    return 0;
}

/* True when the current position ends an element: ',', end, or ']' when
 * the input opened with '['. */
static bool at_element_end (const struct scan *sc)
{
    return sc->pos == sc->end || at (sc, ',') || (sc->brackets && at (sc, ']'));
}

/* Parse "id" or "id-id" and append it to set. */
static int scan_element (struct scan *sc, struct rp_idset *set)
{
    size_t start = sc->pos;
    unsigned int lo, hi;

    if (at_element_end (sc))
        return scan_error (sc, EINVAL, start, "empty element");
    if (scan_id (sc, &lo) < 0)
        return -1;
    hi = lo;
    if (at (sc, '-')) {
        sc->pos++;
        if (at_element_end (sc))
            return scan_error (sc, EINVAL, sc->pos, "missing id after '-'");
        if (scan_id (sc, &hi) < 0)
            return -1;
        if (hi < lo)
            return scan_error (sc, EINVAL, start, "range not ascending");
    }
    if (set->n && lo <= set->r[set->n - 1].hi)
        return scan_error (sc, EINVAL, start, "ids not ascending");
    if (reserve (set, set->n + 1) < 0)
        return scan_error (sc, ENOMEM, start, "out of memory");
    push (set, lo, hi);
    return 0;
}

/* Parse the elements between the (optional) brackets. */
static int scan_list (struct scan *sc, struct rp_idset *set)
{
    if (sc->brackets && (at (sc, ']') || sc->pos == sc->end))
        return 0; /* "[]", or "[" which the caller reports */
    for (;;) {
        if (scan_element (sc, set) < 0)
            return -1;
        if (!at (sc, ','))
            break;
        sc->pos++;
    }
    if (!at_element_end (sc))
        return scan_unexpected (sc);
    return 0;
}

static int scan_idset (struct scan *sc, struct rp_idset *set)
{
    while (sc->pos < sc->end && is_space (sc->s[sc->pos]))
        sc->pos++;
    if (sc->pos == sc->end)
        return 0; /* "" or white space only */
    if (at (sc, '[')) {
        sc->brackets = true;
        sc->pos++;
    }
    if (scan_list (sc, set) < 0)
        return -1;
    if (sc->brackets) {
        if (!at (sc, ']'))
            return scan_error (sc, EINVAL, sc->pos, "missing ']'");
        sc->pos++;
    }
    if (sc->pos < sc->end)
        return scan_unexpected (sc);
    return 0;
}

struct rp_idset *rp_idset_ndecode (const char *s, size_t len, rp_error_t *error)
{
    struct scan sc = { .s = s, .len = len, .end = len, .error = error };
    struct rp_idset *set;

    if (!s) {
        rp_error_set (error, EINVAL, "idset: input is NULL");
        return NULL;
    }
    while (sc.end > 0 && is_space (s[sc.end - 1]))
        sc.end--;
    if (!(set = rp_idset_create ())) {
        rp_error_set (error, ENOMEM, "idset: out of memory");
        return NULL;
    }
    if (scan_idset (&sc, set) < 0) {
        rp_idset_destroy (set);
        return NULL;
    }
    return set;
}

struct rp_idset *rp_idset_decode (const char *s, rp_error_t *error)
{
    if (!s) {
        rp_error_set (error, EINVAL, "idset: input is NULL");
        return NULL;
    }
    return rp_idset_ndecode (s, strlen (s), error);
}

/* Encoding */

static unsigned int digits (unsigned int v)
{
    unsigned int n = 1;

    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Total number of decimal digits of every id in [lo, hi], by decade. */
static uint64_t digits_in_range (unsigned int lo, unsigned int hi)
{
    uint64_t total = 0;
    uint64_t first = 0;
    uint64_t next = 10;

    for (unsigned int d = 1; first <= hi; d++) {
        uint64_t a = lo > first ? lo : first;
        uint64_t b = hi < next - 1 ? hi : next - 1;
        if (a <= b)
            total += (b - a + 1) * d;
        first = next;
        next *= 10;
    }
    return total;
}

/* Length of the encoding without the terminating NUL. */
static uint64_t encoded_length (const struct rp_idset *set, int flags)
{
    uint64_t len = 0;
    uint64_t elements = 0;

    for (size_t i = 0; i < set->n; i++) {
        const struct range *r = &set->r[i];
        if (flags & RP_IDSET_RANGES) {
            len += digits (r->lo);
            if (r->hi > r->lo)
                len += 1 + digits (r->hi);
            elements++;
        } else {
            len += digits_in_range (r->lo, r->hi);
            elements += range_size (r);
        }
    }
    if (elements > 1)
        len += elements - 1;
    if ((flags & RP_IDSET_BRACKETS) && set->count > 1)
        len += 2;
    return len;
}

static char *put_id (char *p, unsigned int v)
{
    char tmp[10];
    int n = 0;

    do {
        tmp[n++] = '0' + v % 10;
        v /= 10;
    } while (v);
    while (n > 0)
        *p++ = tmp[--n];
    return p;
}

/* Write range r as the encoding asks, preceded by a comma unless first. */
static char *put_range (char *p, const struct range *r, int flags, bool first)
{
    if (!first)
        *p++ = ',';
    if (flags & RP_IDSET_RANGES) {
        p = put_id (p, r->lo);
        if (r->hi > r->lo) {
            *p++ = '-';
            p = put_id (p, r->hi);
        }
        return p;
    }
    for (unsigned int id = r->lo;; id++) {
        p = put_id (p, id);
        if (id == r->hi)
            break;
        *p++ = ',';
    }
    return p;
}

char *rp_idset_encode (const struct rp_idset *set, int flags)
{
    bool brackets = (flags & RP_IDSET_BRACKETS) && set && set->count > 1;
    uint64_t len;
    char *buf, *p;

    if (!set || (flags & ~(RP_IDSET_RANGES | RP_IDSET_BRACKETS))) {
        errno = EINVAL;
        return NULL;
    }
    len = encoded_length (set, flags);
    if (len >= SIZE_MAX) {
        errno = ENOMEM;
        return NULL;
    }
    if (!(p = buf = malloc ((size_t)len + 1)))
        return NULL;
    if (brackets)
        *p++ = '[';
    for (size_t i = 0; i < set->n; i++)
        p = put_range (p, &set->r[i], flags, i == 0);
    if (brackets)
        *p++ = ']';
    *p = '\0';
    return buf;
}

/* Point and range updates */

static int check_range (const struct rp_idset *set, unsigned int lo,
                        unsigned int hi)
{
    if (!set || lo > hi) {
        errno = EINVAL;
        return -1;
    }
    if (hi > RP_IDSET_MAX_ID) {
        errno = ERANGE;
        return -1;
    }
    return 0;
}

/* Remove ranges [i, j) from the array (their members already accounted). */
static void cut (struct rp_idset *set, size_t i, size_t j)
{
    memmove (&set->r[i], &set->r[j], (set->n - j) * sizeof (*set->r));
    set->n -= j - i;
}

int rp_idset_add_range (struct rp_idset *set, unsigned int lo, unsigned int hi)
{
    size_t i, j;

    if (check_range (set, lo, hi) < 0)
        return -1;
    /* ranges i..j-1 overlap or touch [lo, hi] and merge with it */
    i = lower_bound (set, lo > 0 ? lo - 1 : 0);
    j = i;
    while (j < set->n && set->r[j].lo <= hi + 1)
        j++;
    if (i == j) {
        if (reserve (set, set->n + 1) < 0)
            return -1;
        memmove (&set->r[i + 1], &set->r[i], (set->n - i) * sizeof (*set->r));
        set->r[i] = (struct range){ lo, hi };
        set->n++;
        set->count += (size_t)(hi - lo) + 1;
        return 0;
    }
    if (set->r[i].lo < lo)
        lo = set->r[i].lo;
    if (set->r[j - 1].hi > hi)
        hi = set->r[j - 1].hi;
    for (size_t k = i; k < j; k++)
        set->count -= range_size (&set->r[k]);
    set->r[i] = (struct range){ lo, hi };
    set->count += (size_t)(hi - lo) + 1;
    cut (set, i + 1, j);
    return 0;
}

int rp_idset_add (struct rp_idset *set, unsigned int id)
{
    return rp_idset_add_range (set, id, id);
}

/* Remove [lo, hi] from the single range r[i] that strictly contains it. */
static int split (struct rp_idset *set, size_t i, unsigned int lo,
                  unsigned int hi)
{
    if (reserve (set, set->n + 1) < 0)
        return -1;
    memmove (&set->r[i + 1], &set->r[i], (set->n - i) * sizeof (*set->r));
    set->n++;
    set->r[i].hi = lo - 1;
    set->r[i + 1].lo = hi + 1;
    set->count -= (size_t)(hi - lo) + 1;
    return 0;
}

int rp_idset_remove_range (struct rp_idset *set, unsigned int lo,
                           unsigned int hi)
{
    size_t i, j;

    if (check_range (set, lo, hi) < 0)
        return -1;
    /* ranges i..j-1 overlap [lo, hi] */
    i = lower_bound (set, lo);
    j = i;
    while (j < set->n && set->r[j].lo <= hi)
        j++;
    if (i == j)
        return 0;
    if (j == i + 1 && set->r[i].lo < lo && set->r[i].hi > hi)
        return split (set, i, lo, hi);
    for (size_t k = i; k < j; k++)
        set->count -= range_size (&set->r[k]);
    if (set->r[i].lo < lo) {
        set->r[i].hi = lo - 1;
        set->count += range_size (&set->r[i]);
        i++;
    }
    if (i < j && set->r[j - 1].hi > hi) {
        set->r[j - 1].lo = hi + 1;
        set->count += range_size (&set->r[j - 1]);
        j--;
    }
    cut (set, i, j);
    return 0;
}

int rp_idset_remove (struct rp_idset *set, unsigned int id)
{
    return rp_idset_remove_range (set, id, id);
}

/* Queries */

bool rp_idset_test (const struct rp_idset *set, unsigned int id)
{
    size_t i;

    if (!set) {
        errno = EINVAL;
        return false;
    }
    i = lower_bound (set, id);
    return i < set->n && set->r[i].lo <= id;
}

unsigned int rp_idset_first (const struct rp_idset *set)
{
    return rp_idset_min (set);
}

unsigned int rp_idset_next (const struct rp_idset *set, unsigned int prev)
{
    size_t i;

    if (!set) {
        errno = EINVAL;
        return RP_IDSET_INVALID_ID;
    }
    if (prev >= RP_IDSET_MAX_ID)
        return RP_IDSET_INVALID_ID;
    i = lower_bound (set, prev + 1);
    if (i == set->n)
        return RP_IDSET_INVALID_ID;
    return set->r[i].lo > prev + 1 ? set->r[i].lo : prev + 1;
}

size_t rp_idset_count (const struct rp_idset *set)
{
    if (!set) {
        errno = EINVAL;
        return 0;
    }
    return set->count;
}

bool rp_idset_empty (const struct rp_idset *set)
{
    if (!set) {
        errno = EINVAL;
        return true;
    }
    return set->n == 0;
}

unsigned int rp_idset_min (const struct rp_idset *set)
{
    if (!set) {
        errno = EINVAL;
        return RP_IDSET_INVALID_ID;
    }
    return set->n ? set->r[0].lo : RP_IDSET_INVALID_ID;
}

unsigned int rp_idset_max (const struct rp_idset *set)
{
    if (!set) {
        errno = EINVAL;
        return RP_IDSET_INVALID_ID;
    }
    return set->n ? set->r[set->n - 1].hi : RP_IDSET_INVALID_ID;
}

unsigned int rp_idset_nth (const struct rp_idset *set, size_t n)
{
    if (!set) {
        errno = EINVAL;
        return RP_IDSET_INVALID_ID;
    }
    for (size_t i = 0; i < set->n; i++) {
        size_t size = range_size (&set->r[i]);
        if (n < size)
            return set->r[i].lo + (unsigned int)n;
        n -= size;
    }
    return RP_IDSET_INVALID_ID;
}

size_t rp_idset_range_count (const struct rp_idset *set)
{
    if (!set) {
        errno = EINVAL;
        return 0;
    }
    return set->n;
}

bool rp_idset_range (const struct rp_idset *set, size_t i, unsigned int *lo,
                     unsigned int *hi)
{
    if (!set || !lo || !hi) {
        errno = EINVAL;
        return false;
    }
    if (i >= set->n)
        return false;
    *lo = set->r[i].lo;
    *hi = set->r[i].hi;
    return true;
}

/* Set algebra: linear merges into a new set. */

struct rp_idset *rp_idset_union (const struct rp_idset *a,
                                 const struct rp_idset *b)
{
    struct rp_idset *u;
    size_t i = 0, j = 0;

    if (!a || !b) {
        errno = EINVAL;
        return NULL;
    }
    if (!(u = create_sized (a->n + b->n)))
        return NULL;
    while (i < a->n || j < b->n) {
        const struct range *r;
        if (j == b->n || (i < a->n && a->r[i].lo <= b->r[j].lo))
            r = &a->r[i++];
        else
            r = &b->r[j++];
        push (u, r->lo, r->hi);
    }
    return u;
}

struct rp_idset *rp_idset_intersect (const struct rp_idset *a,
                                     const struct rp_idset *b)
{
    struct rp_idset *x;
    size_t i = 0, j = 0;

    if (!a || !b) {
        errno = EINVAL;
        return NULL;
    }
    if (!(x = create_sized (a->n + b->n)))
        return NULL;
    while (i < a->n && j < b->n) {
        unsigned int lo = a->r[i].lo > b->r[j].lo ? a->r[i].lo : b->r[j].lo;
        unsigned int hi = a->r[i].hi < b->r[j].hi ? a->r[i].hi : b->r[j].hi;
        if (lo <= hi)
            push (x, lo, hi);
        if (a->r[i].hi < b->r[j].hi)
            i++;
        else
            j++;
    }
    return x;
}

struct rp_idset *rp_idset_difference (const struct rp_idset *a,
                                      const struct rp_idset *b)
{
    struct rp_idset *d;
    size_t j = 0;

    if (!a || !b) {
        errno = EINVAL;
        return NULL;
    }
    if (!(d = create_sized (a->n + b->n)))
        return NULL;
    for (size_t i = 0; i < a->n; i++) {
        unsigned int lo = a->r[i].lo;
        unsigned int hi = a->r[i].hi;
        bool left = true; /* [lo, hi] still has members to emit */
        while (j < b->n && b->r[j].hi < lo)
            j++;
        for (size_t k = j; left && k < b->n && b->r[k].lo <= hi; k++) {
            if (b->r[k].lo > lo)
                push (d, lo, b->r[k].lo - 1);
            if (b->r[k].hi >= hi)
                left = false;
            else
                lo = b->r[k].hi + 1;
        }
        if (left)
            push (d, lo, hi);
    }
    return d;
}

int rp_idset_add_set (struct rp_idset *set, const struct rp_idset *other)
{
    struct rp_idset *u;

    if (!set || !other) {
        errno = EINVAL;
        return -1;
    }
    if (!(u = rp_idset_union (set, other)))
        return -1;
    take (set, u);
    return 0;
}

int rp_idset_subtract (struct rp_idset *set, const struct rp_idset *other)
{
    struct rp_idset *d;

    if (!set || !other) {
        errno = EINVAL;
        return -1;
    }
    if (!(d = rp_idset_difference (set, other)))
        return -1;
    take (set, d);
    return 0;
}

bool rp_idset_equal (const struct rp_idset *a, const struct rp_idset *b)
{
    if (!a || !b) {
        errno = EINVAL;
        return false;
    }
    if (a->n != b->n || a->count != b->count)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        if (a->r[i].lo != b->r[i].lo || a->r[i].hi != b->r[i].hi)
            return false;
    }
    return true;
}

bool rp_idset_is_subset (const struct rp_idset *a, const struct rp_idset *b)
{
    size_t j = 0;

    if (!a || !b) {
        errno = EINVAL;
        return false;
    }
    for (size_t i = 0; i < a->n; i++) {
        while (j < b->n && b->r[j].hi < a->r[i].lo)
            j++;
        if (j == b->n || b->r[j].lo > a->r[i].lo || b->r[j].hi < a->r[i].hi)
            return false;
    }
    return true;
}

bool rp_idset_intersects (const struct rp_idset *a, const struct rp_idset *b)
{
    size_t i = 0, j = 0;

    if (!a || !b) {
        errno = EINVAL;
        return false;
    }
    while (i < a->n && j < b->n) {
        if (a->r[i].hi < b->r[j].lo)
            i++;
        else if (b->r[j].hi < a->r[i].lo)
            j++;
        else
            return true;
    }
    return false;
}
