/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Hostlists (RFC 29): see api/respol/hostlist.h for the contract.
 *
 * Storage.  A list is an array of runs in list order.  A run is a prefix, a
 * suffix and an ascending range lo..hi of numbers printed zero padded to
 * `width` digits ("node[08-10]" is one run of width 2), or one host without
 * a numeric part.  Each run records the index of its first host, so nth is
 * a binary search over runs.  Appending merges a run into the previous one
 * when it continues it (same prefix, suffix and padding, next number), so
 * "node1,node2" and "node[1-2]" are stored alike.  A plain host ("node12")
 * takes the digits at the end of its name (at most 18) as its number.
 * width is canonical: 0 unless the run holds a number that is padded, so a
 * run's spelling decides the names it holds.
 *
 * Decoding (RFC 29, Implementation).  A byte of a prefix or suffix is
 * printable ASCII other than space, '[', ']' and ','.  Decisions:
 *   - an empty expression is the empty list, also between commas: "a,,b"
 *     is "a,b" and "," is "" (RFC: "" is an empty list; flux-core agrees);
 *   - the width of an idlist is taken from its first element ("[00-2]" is
 *     00,01,02; "[005,4,11-13]" is 005,004,011,012,013, as the RFC says);
 *     a later element that has leading zeros of its own keeps them
 *     ("[1,02]" is 1,02, as flux-core reads it);
 *   - ids may repeat and descend between elements ("[5,4,4]"), but a range
 *     must ascend: "[5-3]" is "range not ascending";
 *   - a number has at most 18 digits, a host name at most
 *     RP_HOSTLIST_MAX_NAME bytes and a list at most RP_HOSTLIST_MAX_HOSTS
 *     hosts, checked before anything is allocated for a range;
 *   - an idlist is checked whole (first pass) before its runs are added
 *     (second pass), so errors are reported at the earliest offset.
 * Error text: hostlist: "<input>": <reason> at offset N, with the input shown
 * as idset.c shows it (64 bytes at most, other bytes as \xHH, "..." when
 * cut).  Non-printable bytes are "invalid character"; a printable byte in
 * the wrong place is "unexpected".
 *
 * Encoding.  Consecutive runs with the same prefix and suffix share one
 * bracket when the padding of the first says how to read every other: a
 * padded run needs the same width, an unpadded one at least that many
 * digits.  So the output reads the same whether the reader applies the
 * first element's width to all (RFC 29) or each element's own (flux-core).
 * Duplicates stay in the bracket as flux-core writes them: "foo[1,1,1]".
 * A group of one host is printed without brackets ("foo[1]-eth2" alone is
 * "foo1-eth2").
 *
 * Host identity.  Different spellings can name the same host:
 * "foo[1]-eth2" and "foo1-eth2", "n1[2]" and "n12".  What compares hosts by
 * name (find, delete, uniq and the set operations) works on splits of the
 * name: a digit group or its head as the number (at most 18 digits: of a
 * longer group, the last 18, the others staying in the prefix), with its
 * class of padding, the bytes before as prefix and after as suffix.  A
 * split and a number give back exactly one name.  A run cut where the
 * printed width of its numbers changes is one range of numbers of one
 * split: the digits that end its prefix join the number ("n1[0-9]" is
 * n10..n19); a digit in its suffix does not matter ("n[0-9]-e1" is
 * ("n", "-e1") 0..9); digits that begin its suffix stay there ("n[1-3]5"
 * is ("n", "5") 1..3).  A name's canonical split is at its last digit
 * group; single hosts are indexed under it.  The index is the sorted array
 * of those ranges, cut by a sweep into disjoint segments that each know
 * their first occurrence in the list.
 *
 * find tries every split of the name (each digit group, and each group
 * less the leading digits of some key's suffix) and keeps the least
 * position: a few binary searches, whatever the hosts.  The set
 * operations cut every piece of one list against the segments of its own
 * split in the other; a host with several splits (two digit groups, or a
 * suffix that begins with digits) may also sit in a segment of the same
 * skeleton (the name with each digit group as one mark) but another
 * split, which is compared piece against segment: two splits at
 * different groups share at most one host, two of one group share hosts
 * whose numbers step by a power of ten.  So the operations cost in runs,
 * O(R log R), plus such pairs of one skeleton, plus the hosts of a result
 * that cannot be written in fewer runs ("n[0-99]" minus "n[0-9]5" has
 * nine holes).  Pairs of one skeleton are compared one by one, so lists
 * that mix splits of one skeleton heavily ("n[0-99]-e7" against 100 runs
 * "n7-e[...]") cost up to runs of a times runs of b, never hosts.
 * Nothing is allocated per host of an input.
 *
 * Sorting orders hosts by their spelling: prefix, suffix (bytewise), then
 * the number, then padding ("n1" < "n01" < "n2"); no number sorts first.
 * It is a stable merge of the runs (each already ascending), taken up in
 * order of their first host, with a heap of the runs that overlap; so a
 * list of non-overlapping runs sorts in O(R log R) whatever its hosts.
 * uniq first drops later copies spelled alike (which the merge would
 * interleave host by host), sorts, then keeps the first host of each name
 * in sorted order, so its result does not depend on the input's order.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/hostlist.h"

#define MAX_DIGITS 18
#define NAME_BUF (RP_HOSTLIST_MAX_NAME + MAX_DIGITS + 2)
#define SHOW_MAX 64
#define CHUNK_SIZE 65536

struct run {
    char *stem;      /* prefix, NUL, suffix, NUL */
    uint64_t head;   /* head_of (prefix) */
    uint64_t lo, hi; /* numbers (both 0 without a numeric part) */
    size_t pos;      /* index of the first host of the run */
    uint16_t plen, slen;
    uint8_t width; /* zero padding: 0, or more than the digits of lo */
    bool num;      /* the hosts have a numeric part */
};

/* How to spell hosts: a run without its range, pointing anywhere. */
struct spell {
    const char *prefix, *suffix;
    size_t plen, slen;
    int width;
    bool num;
};

/* The key of a split (see the top comment). */
struct key {
    const char *prefix, *suffix;
    uint64_t head; /* head_of (prefix) */
    uint16_t plen, slen;
    uint8_t cls; /* 0, or the width of a number with leading zeros, or
                    MAX_DIGITS for the end of a longer digit group */
    bool num;
};

/* Hosts with key k and number v in lo..hi; the first is at index off + v. */
struct seg {
    struct key k;
    uint64_t lo, hi;
    int64_t off;
};

struct chunk {
    struct chunk *next;
    size_t used;
    char data[CHUNK_SIZE];
};

struct rp_hostlist {
    struct run *runs;
    size_t nruns;
    size_t alloc;
    size_t count;
    struct index *index; /* built by find, dropped by every change */
};

static const uint64_t pow10_tab[MAX_DIGITS + 1] = {
    1ULL,
    10ULL,
    100ULL,
    1000ULL,
    10000ULL,
    100000ULL,
    1000000ULL,
    10000000ULL,
    100000000ULL,
    1000000000ULL,
    10000000000ULL,
    100000000000ULL,
    1000000000000ULL,
    10000000000000ULL,
    100000000000000ULL,
    1000000000000000ULL,
    10000000000000000ULL,
    100000000000000000ULL,
    1000000000000000000ULL,
};

/* Numbers and names */

static bool is_digit (char c)
{
    return c >= '0' && c <= '9';
}

static int ndigits (uint64_t n)
{
    int d = 1;

    while (d < MAX_DIGITS && n >= pow10_tab[d])
        d++;
    return d;
}

static uint64_t digits_value (const char *s, size_t len)
{
    uint64_t v = 0;

    for (size_t i = 0; i < len; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    return v;
}

/* Print n zero padded to width digits into buf (no NUL); return length. */
static size_t fmt_num (char *buf, uint64_t n, int width)
{
    char tmp[MAX_DIGITS + 1];
    size_t len = 0, out = 0;

    do {
        tmp[len++] = (char)('0' + n % 10);
        n /= 10;
    } while (n > 0);
    while (out + len < (size_t)width)
        buf[out++] = '0';
    while (len > 0)
        buf[out++] = tmp[--len];
    return out;
}

static int canon_width (uint64_t lo, int width)
{
    return width > ndigits (lo) ? width : 0;
}

/* The padding class of number n of run r: its width if n is padded. */
static int host_cls (const struct run *r, uint64_t n)
{
    return r->width > ndigits (n) ? r->width : 0;
}

static const char *run_suffix (const struct run *r)
{
    return r->stem + r->plen + 1;
}

static size_t run_count (const struct run *r)
{
    return r->num ? (size_t)(r->hi - r->lo) + 1 : 1;
}

static struct spell spell_of (const struct run *r)
{
    return (struct spell){ .prefix = r->stem,
                           .suffix = run_suffix (r),
                           .plen = r->plen,
                           .slen = r->slen,
                           .width = r->width,
                           .num = r->num };
}

/* Write the name of host n of run r into buf (NAME_BUF); return length. */
static size_t run_name (const struct run *r, uint64_t n, char *buf)
{
    size_t len = r->plen;

    memcpy (buf, r->stem, r->plen);
    if (r->num)
        len += fmt_num (buf + len, n, r->width);
    memcpy (buf + len, run_suffix (r), r->slen);
    len += r->slen;
    buf[len] = '\0';
    return len;
}

static int64_t host_pos (const struct run *r, uint64_t n)
{
    return (int64_t)(r->pos + (size_t)(n - r->lo));
}

/* The first 8 bytes of s, zero padded, as a number that orders like s:
 * comparing it first spares most comparisons a cache miss. */
static uint64_t head_of (const char *s, size_t len)
{
    uint64_t h = 0;

    for (size_t i = 0; i < 8; i++)
        h = (h << 8) | (i < len ? (unsigned char)s[i] : 0u);
    return h;
}

static int bytes_cmp (const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp (a, b, alen < blen ? alen : blen);

    if (c != 0)
        return c;
    return alen < blen ? -1 : alen > blen;
}

static bool same_stem (const struct run *a, const struct run *b)
{
    return a->plen == b->plen && a->slen == b->slen
           && memcmp (a->stem, b->stem, a->plen + a->slen + 2u) == 0;
}

/* The list */

static void index_destroy (struct index *ix);

static void invalidate (struct rp_hostlist *hl)
{
    index_destroy (hl->index);
    hl->index = NULL;
}

struct rp_hostlist *rp_hostlist_create (void)
{
    return calloc (1, sizeof (struct rp_hostlist));
}

static void clear_runs (struct rp_hostlist *hl)
{
    for (size_t i = 0; i < hl->nruns; i++)
        free (hl->runs[i].stem);
    free (hl->runs);
    hl->runs = NULL;
    hl->nruns = hl->alloc = hl->count = 0;
}

void rp_hostlist_destroy (struct rp_hostlist *hl)
{
    int saved_errno = errno;

    if (hl) {
        clear_runs (hl);
        index_destroy (hl->index);
        free (hl);
    }
    errno = saved_errno;
}

/* Make room for n more runs.  On failure hl is unchanged. */
static int reserve (struct rp_hostlist *hl, size_t n)
{
    size_t alloc = hl->alloc ? hl->alloc : 8;
    struct run *runs;

    if (hl->alloc - hl->nruns >= n)
        return 0;
    while (alloc - hl->nruns < n) {
        if (alloc > SIZE_MAX / 2 / sizeof (*runs)) {
            errno = ENOMEM;
            return -1;
        }
        alloc *= 2;
    }
    if (!(runs = realloc (hl->runs, alloc * sizeof (*runs))))
        return -1;
    hl->runs = runs;
    hl->alloc = alloc;
    return 0;
}

/* True when numbers lo.. spelled sp (canonical width) continue run last. */
static bool continues (const struct run *last, const struct spell *sp,
                       uint64_t lo, int width)
{
    return last->num && sp->num && last->hi + 1 == lo
           && (width == last->width
               || (width == 0 && ndigits (lo) >= last->width))
           && last->plen == sp->plen && last->slen == sp->slen
           && memcmp (last->stem, sp->prefix, sp->plen) == 0
           && memcmp (run_suffix (last), sp->suffix, sp->slen) == 0;
}

/* Append hosts lo..hi spelled sp (one host when !sp->num), merging into the
 * last run when they continue it.  No bound check: public entry points
 * check RP_HOSTLIST_MAX_HOSTS.  sp may point into a stem of hl. */
static int push (struct rp_hostlist *hl, const struct spell *sp, uint64_t lo,
                 uint64_t hi)
{
    int width = sp->num ? canon_width (lo, sp->width) : 0;
    struct run *last = hl->nruns ? &hl->runs[hl->nruns - 1] : NULL;
    char *stem;

    invalidate (hl);
    if (last && continues (last, sp, lo, width)) {
        last->hi = hi;
        hl->count += (size_t)(hi - lo) + 1;
        return 0;
    }
    if (reserve (hl, 1) < 0 || !(stem = malloc (sp->plen + sp->slen + 2)))
        return -1;
    memcpy (stem, sp->prefix, sp->plen);
    stem[sp->plen] = '\0';
    memcpy (stem + sp->plen + 1, sp->suffix, sp->slen);
    stem[sp->plen + 1 + sp->slen] = '\0';
    hl->runs[hl->nruns++] = (struct run){ .stem = stem,
                                          .head = head_of (stem, sp->plen),
                                          .lo = sp->num ? lo : 0,
                                          .hi = sp->num ? hi : 0,
                                          .pos = hl->count,
                                          .plen = (uint16_t)sp->plen,
                                          .slen = (uint16_t)sp->slen,
                                          .width = (uint8_t)width,
                                          .num = sp->num };
    hl->count += sp->num ? (size_t)(hi - lo) + 1 : 1;
    return 0;
}

/* Move the runs of src to the end of dst, leaving src empty.  Fails only
 * before anything moved. */
static int move_runs (struct rp_hostlist *dst, struct rp_hostlist *src)
{
    if (reserve (dst, src->nruns) < 0)
        return -1;
    invalidate (dst);
    invalidate (src);
    for (size_t i = 0; i < src->nruns; i++) {
        struct run r = src->runs[i];
        struct spell sp = spell_of (&r);
        struct run *last = dst->nruns ? &dst->runs[dst->nruns - 1] : NULL;

        if (last && continues (last, &sp, r.lo, r.width)) {
            last->hi = r.hi;
            free (r.stem);
        } else {
            r.pos = dst->count;
            dst->runs[dst->nruns++] = r;
        }
        dst->count += run_count (&r);
    }
    src->nruns = src->count = 0;
    return 0;
}

/* Replace the contents of dst by those of src and destroy src. */
static void take (struct rp_hostlist *dst, struct rp_hostlist *src)
{
    clear_runs (dst);
    invalidate (dst);
    dst->runs = src->runs;
    dst->nruns = src->nruns;
    dst->alloc = src->alloc;
    dst->count = src->count;
    src->runs = NULL;
    src->nruns = src->alloc = src->count = 0;
    rp_hostlist_destroy (src);
}

struct rp_hostlist *rp_hostlist_copy (const struct rp_hostlist *hl)
{
    struct rp_hostlist *c;

    if (!hl) {
        errno = EINVAL;
        return NULL;
    }
    if (!(c = rp_hostlist_create ()) || reserve (c, hl->nruns) < 0)
        goto error;
    for (size_t i = 0; i < hl->nruns; i++) {
        const struct run *r = &hl->runs[i];
        size_t size = r->plen + r->slen + 2u;
        char *stem = malloc (size);
        if (!stem)
            goto error;
        memcpy (stem, r->stem, size);
        c->runs[c->nruns] = *r;
        c->runs[c->nruns++].stem = stem;
    }
    c->count = hl->count;
    return c;
error:
    rp_hostlist_destroy (c);
    return NULL;
}

/* Decoding */

struct parser {
    const char *s;
    size_t base; /* hosts already in the list that s is appended to */
    struct rp_hostlist *hl;
    rp_error_t *error;
};

/* The part of an expression between '[' and ']'. */
struct idlist {
    size_t lb, rb;   /* offsets of '[' and ']' */
    int width;       /* from the first element */
    uint64_t count;  /* hosts */
    int maxdigits;   /* the longest number as printed */
    struct spell sp; /* when set (second pass), add the hosts */
    bool add;
};

struct elem {
    uint64_t lo, hi;
    int width;
    size_t off;
};

static bool is_print (unsigned char c)
{
    return c >= 0x20 && c < 0x7f;
}

static bool name_char (unsigned char c)
{
    return c > ' ' && c < 0x7f && c != '[' && c != ']' && c != ',';
}

/* Write byte c as shown in messages into buf (5 bytes), return length. */
static int show_byte (char *buf, unsigned char c)
{
    if (is_print (c))
        return snprintf (buf, 5, "%c", c);
    return snprintf (buf, 5, "\\x%02x", c);
}

/* Fill buf (SHOW_MAX + 4 bytes) with s as shown in messages. */
static void show_input (char *buf, const char *s)
{
    size_t used = 0;

    for (; *s; s++) {
        char tmp[5];
        int n = show_byte (tmp, (unsigned char)*s);
        if (used + (size_t)n > SHOW_MAX)
            break;
        memcpy (buf + used, tmp, (size_t)n);
        used += (size_t)n;
    }
    if (*s) {
        memcpy (buf + used, "...", 3);
        used += 3;
    }
    buf[used] = '\0';
}

static int perr (struct parser *p, int errnum, size_t off, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static int perr (struct parser *p, int errnum, size_t off, const char *fmt, ...)
{
    char shown[SHOW_MAX + 4];
    char reason[64];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (reason, sizeof (reason), fmt, ap);
    va_end (ap);
    show_input (shown, p->s);
    return rp_error_set (p->error, errnum, "hostlist: \"%s\": %s at offset %zu",
                         shown, reason, off);
}

/* Error for the byte at off, which may not stand there. */
static int perr_char (struct parser *p, size_t off)
{
    unsigned char c = (unsigned char)p->s[off];
    char shown[5];

    if (c == '\0')
        return perr (p, EINVAL, off, "missing ']'");
    if (c > ' ' && c < 0x7f)
        return perr (p, EINVAL, off, "unexpected '%c'", c);
    show_byte (shown, c);
    return perr (p, EINVAL, off, "invalid character '%s'", shown);
}

/* Error for the byte at off where a number must start. */
static int perr_number (struct parser *p, size_t off)
{
    unsigned char c = (unsigned char)p->s[off];

    if (c > ' ' && c < 0x7f)
        return perr (p, EINVAL, off, "expected a number");
    return perr_char (p, off);
}

static int parse_num (struct parser *p, size_t *offp, uint64_t *n, size_t *len)
{
    size_t off = *offp, end = off;

    while (is_digit (p->s[end])) {
        if (end - off == MAX_DIGITS)
            return perr (p, EINVAL, off, "number longer than %d digits",
                         MAX_DIGITS);
        end++;
    }
    if (end == off)
        return perr_number (p, off);
    *n = digits_value (p->s + off, end - off);
    *len = end - off;
    *offp = end;
    return 0;
}

/* Parse "lo" or "lo-hi" at *offp. */
static int parse_elem (struct parser *p, size_t *offp, struct idlist *il,
                       bool first, struct elem *e)
{
    size_t len, off = *offp;

    if (parse_num (p, offp, &e->lo, &len) < 0)
        return -1;
    e->off = off;
    e->hi = e->lo;
    e->width = (len > 1 && p->s[off] == '0') ? (int)len : il->width;
    if (first)
        il->width = e->width;
    if (p->s[*offp] == '-') {
        size_t hioff = ++*offp;
        if (parse_num (p, offp, &e->hi, &len) < 0)
            return -1;
        if (e->hi < e->lo)
            return perr (p, EINVAL, hioff, "range not ascending");
    }
    return 0;
}

/* First pass: count and measure; second pass: add the hosts. */
static int add_elem (struct parser *p, struct idlist *il, const struct elem *e)
{
    struct spell sp = il->sp;
    int digits = ndigits (e->hi);

    if (il->add) {
        sp.width = e->width;
        if (push (p->hl, &sp, e->lo, e->hi) < 0)
            return perr (p, errno, e->off, "out of memory");
        return 0;
    }
    il->count += e->hi - e->lo + 1;
    if (p->base + p->hl->count + il->count > RP_HOSTLIST_MAX_HOSTS)
        return perr (p, EOVERFLOW, e->off, "expands past %u hosts",
                     RP_HOSTLIST_MAX_HOSTS);
    if (digits < e->width)
        digits = e->width;
    if (digits > il->maxdigits)
        il->maxdigits = digits;
    return 0;
}

/* Parse the idlist whose '[' is at il->lb; set il->rb. */
static int parse_idlist (struct parser *p, struct idlist *il)
{
    size_t off = il->lb + 1;
    bool first = true;

    il->width = il->maxdigits = 0;
    il->count = 0;
    if (p->s[off] == ']')
        return perr (p, EINVAL, il->lb, "empty idlist");
    for (;;) {
        struct elem e;
        if (parse_elem (p, &off, il, first, &e) < 0 || add_elem (p, il, &e) < 0)
            return -1;
        first = false;
        if (p->s[off] == ']')
            break;
        if (p->s[off] != ',')
            return perr_char (p, off);
        off++;
    }
    il->rb = off;
    return 0;
}

/* A host without brackets, s[start..start+len). */
static int add_plain (struct parser *p, size_t start, size_t len)
{
    const char *name = p->s + start;
    struct spell sp = { .prefix = name, .suffix = "", .plen = len };
    size_t i = len;
    uint64_t n = 0;

    if (len == 0)
        return 0;
    if (len > RP_HOSTLIST_MAX_NAME)
        return perr (p, EINVAL, start, "host name longer than %d bytes",
                     RP_HOSTLIST_MAX_NAME);
    if (p->base + p->hl->count + 1 > RP_HOSTLIST_MAX_HOSTS)
        return perr (p, EOVERFLOW, start, "expands past %u hosts",
                     RP_HOSTLIST_MAX_HOSTS);
    while (i > 0 && is_digit (name[i - 1]))
        i--;
    if (i < len && len - i <= MAX_DIGITS) {
        sp.num = true;
        sp.plen = i;
        sp.width = (len - i > 1 && name[i] == '0') ? (int)(len - i) : 0;
        n = digits_value (name + i, len - i);
    }
    if (push (p->hl, &sp, n, n) < 0)
        return perr (p, errno, start, "out of memory");
    return 0;
}

/* prefix[idlist]suffix with the prefix at start and '[' at lb. */
static int parse_bracketed (struct parser *p, size_t start, size_t lb,
                            size_t *offp)
{
    struct idlist il = { .lb = lb };
    size_t off, sstart;

    if (parse_idlist (p, &il) < 0)
        return -1;
    off = sstart = il.rb + 1;
    while (name_char ((unsigned char)p->s[off]))
        off++;
    if (p->s[off] != '\0' && p->s[off] != ',')
        return perr_char (p, off);
    if ((lb - start) + (size_t)il.maxdigits + (off - sstart)
        > RP_HOSTLIST_MAX_NAME)
        return perr (p, EINVAL, start, "host name longer than %d bytes",
                     RP_HOSTLIST_MAX_NAME);
    il.sp = (struct spell){ .prefix = p->s + start,
                            .suffix = p->s + sstart,
                            .plen = lb - start,
                            .slen = off - sstart,
                            .num = true };
    il.add = true;
    if (parse_idlist (p, &il) < 0)
        return -1;
    *offp = off;
    return 0;
}

static int parse_expr (struct parser *p, size_t *offp)
{
    size_t start = *offp, off = start;

    while (name_char ((unsigned char)p->s[off]))
        off++;
    if (p->s[off] == '[')
        return parse_bracketed (p, start, off, offp);
    if (p->s[off] != '\0' && p->s[off] != ',')
        return perr_char (p, off);
    *offp = off;
    return add_plain (p, start, off - start);
}

/* Decode s into a new list, as if appended to a list of base hosts. */
static struct rp_hostlist *decode (const char *s, size_t base,
                                   rp_error_t *error)
{
    struct parser p = { .s = s, .base = base, .error = error };
    size_t off = 0;

    if (!s) {
        rp_error_set (error, EINVAL, "hostlist: input is NULL");
        return NULL;
    }
    if (!(p.hl = rp_hostlist_create ())) {
        rp_error_set (error, errno, "hostlist: out of memory");
        return NULL;
    }
    for (;;) {
        if (parse_expr (&p, &off) < 0) {
            rp_hostlist_destroy (p.hl);
            return NULL;
        }
        if (s[off] == '\0')
            return p.hl;
        off++;
    }
}

struct rp_hostlist *rp_hostlist_decode (const char *s, rp_error_t *error)
{
    return decode (s, 0, error);
}

int rp_hostlist_append (struct rp_hostlist *hl, const char *s,
                        rp_error_t *error)
{
    struct rp_hostlist *tmp;
    size_t n;

    if (!hl)
        return rp_error_set (error, EINVAL, "hostlist: list is NULL");
    if (!(tmp = decode (s, hl->count, error)))
        return -1;
    n = tmp->count;
    if (move_runs (hl, tmp) < 0) {
        rp_hostlist_destroy (tmp);
        return rp_error_set (error, errno, "hostlist: out of memory");
    }
    rp_hostlist_destroy (tmp);
    return (int)n;
}

int rp_hostlist_append_list (struct rp_hostlist *hl,
                             const struct rp_hostlist *other)
{
    struct rp_hostlist *tmp;
    size_t n;

    if (!hl || !other) {
        errno = EINVAL;
        return -1;
    }
    if (other->count > RP_HOSTLIST_MAX_HOSTS - hl->count) {
        errno = EOVERFLOW;
        return -1;
    }
    if (!(tmp = rp_hostlist_copy (other)))
        return -1;
    n = tmp->count;
    if (move_runs (hl, tmp) < 0) {
        rp_hostlist_destroy (tmp);
        return -1;
    }
    rp_hostlist_destroy (tmp);
    return (int)n;
}

/* Encoding */

struct buf {
    char *data;
    size_t len, size;
};

static int buf_put (struct buf *b, const char *s, size_t n)
{
    if (b->size - b->len <= n) {
        size_t size = b->size ? b->size : 64;
        char *data;
        while (size - b->len <= n)
            size *= 2;
        if (!(data = realloc (b->data, size)))
            return -1;
        b->data = data;
        b->size = size;
    }
    memcpy (b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

static int buf_num (struct buf *b, uint64_t n, int width)
{
    char tmp[MAX_DIGITS + 1];

    return buf_put (b, tmp, fmt_num (tmp, n, width));
}

/* Whether run r can share the bracket opened by run first. */
static bool joins_group (const struct run *first, const struct run *r)
{
    return r->num && same_stem (first, r)
           && (r->width == first->width
               || (r->width == 0 && ndigits (r->lo) >= first->width));
}

static size_t group_end (const struct rp_hostlist *hl, size_t i)
{
    size_t j = i + 1;

    if (!hl->runs[i].num)
        return j;
    while (j < hl->nruns && joins_group (&hl->runs[i], &hl->runs[j]))
        j++;
    return j;
}

static int put_elem (struct buf *b, const struct run *r, bool first)
{
    if ((!first && buf_put (b, ",", 1) < 0) || buf_num (b, r->lo, r->width) < 0)
        return -1;
    if (r->hi > r->lo
        && (buf_put (b, "-", 1) < 0 || buf_num (b, r->hi, r->width) < 0))
        return -1;
    return 0;
}

/* Runs i..j-1 as one expression. */
static int put_group (struct buf *b, const struct rp_hostlist *hl, size_t i,
                      size_t j)
{
    const struct run *r = &hl->runs[i];

    if (b->len > 0 && buf_put (b, ",", 1) < 0)
        return -1;
    if (j == i + 1 && r->lo == r->hi) {
        char name[NAME_BUF];
        return buf_put (b, name, run_name (r, r->lo, name));
    }
    if (buf_put (b, r->stem, r->plen) < 0 || buf_put (b, "[", 1) < 0)
        return -1;
    for (size_t k = i; k < j; k++)
        if (put_elem (b, &hl->runs[k], k == i) < 0)
            return -1;
    if (buf_put (b, "]", 1) < 0 || buf_put (b, run_suffix (r), r->slen) < 0)
        return -1;
    return 0;
}

char *rp_hostlist_encode (const struct rp_hostlist *hl)
{
    struct buf b = { 0 };

    if (!hl) {
        errno = EINVAL;
        return NULL;
    }
    for (size_t i = 0; i < hl->nruns;) {
        size_t j = group_end (hl, i);
        if (put_group (&b, hl, i, j) < 0)
            goto error;
        i = j;
    }
    if (!b.data)
        return strdup ("");
    return b.data;
error:
    free (b.data);
    return NULL;
}

/* Counting, indexing, expanding */

size_t rp_hostlist_count (const struct rp_hostlist *hl)
{
    return hl ? hl->count : 0;
}

/* The run holding host n (n < count). */
static size_t run_at (const struct rp_hostlist *hl, size_t n)
{
    size_t lo = 0, hi = hl->nruns - 1;

    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (hl->runs[mid].pos <= n)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

static size_t nth_name (const struct rp_hostlist *hl, size_t n, char *buf)
{
    const struct run *r = &hl->runs[run_at (hl, n)];

    return run_name (r, r->lo + (n - r->pos), buf);
}

char *rp_hostlist_nth (const struct rp_hostlist *hl, size_t n)
{
    char name[NAME_BUF];

    if (!hl) {
        errno = EINVAL;
        return NULL;
    }
    if (n >= hl->count) {
        errno = ENOENT;
        return NULL;
    }
    nth_name (hl, n, name);
    return strdup (name);
}

int rp_hostlist_nth_buf (const struct rp_hostlist *hl, size_t n, char *buf,
                         size_t size)
{
    char name[NAME_BUF];
    size_t len;

    if (!hl || !buf) {
        errno = EINVAL;
        return -1;
    }
    if (n >= hl->count) {
        errno = ENOENT;
        return -1;
    }
    len = nth_name (hl, n, name);
    if (len >= size) {
        errno = EOVERFLOW;
        return -1;
    }
    memcpy (buf, name, len + 1);
    return 0;
}

/* Bytes of all the names of run r, without separators. */
static size_t run_chars (const struct run *r)
{
    size_t total = run_count (r) * (r->plen + r->slen);

    if (!r->num)
        return total;
    for (int d = 1; d <= MAX_DIGITS; d++) {
        uint64_t lo = d == 1 ? 0 : pow10_tab[d - 1];
        uint64_t hi = pow10_tab[d] - 1;
        if (lo < r->lo)
            lo = r->lo;
        if (hi > r->hi)
            hi = r->hi;
        if (lo <= hi)
            total +=
                (size_t)(hi - lo + 1) * (size_t)(d > r->width ? d : r->width);
    }
    return total;
}

/* Write the hosts of r at s + len, each after delim but the list's first;
 * return the new length. */
static size_t expand_run (const struct run *r, char *s, size_t len,
                          const char *delim, size_t dlen)
{
    for (uint64_t n = r->lo; n <= r->hi; n++) {
        if (r->pos + (n - r->lo) > 0) {
            memcpy (s + len, delim, dlen);
            len += dlen;
        }
        len += run_name (r, n, s + len);
    }
    return len;
}

char *rp_hostlist_expand (const struct rp_hostlist *hl, const char *delim)
{
    size_t dlen, size = 1, len = 0;
    char *s;

    if (!hl || !delim) {
        errno = EINVAL;
        return NULL;
    }
    dlen = strlen (delim);
    if (hl->count > 0)
        size += (hl->count - 1) * dlen;
    for (size_t i = 0; i < hl->nruns; i++)
        size += run_chars (&hl->runs[i]);
    if (!(s = malloc (size)))
        return NULL;
    s[0] = '\0';
    for (size_t i = 0; i < hl->nruns; i++)
        len = expand_run (&hl->runs[i], s, len, delim, dlen);
    return s;
}

struct rp_hostlist *rp_hostlist_slice (const struct rp_hostlist *hl,
                                       size_t first, size_t count)
{
    struct rp_hostlist *out;
    size_t i;

    if (!hl) {
        errno = EINVAL;
        return NULL;
    }
    if (first > hl->count || count > hl->count - first) {
        errno = ENOENT;
        return NULL;
    }
    if (!(out = rp_hostlist_create ()))
        return NULL;
    for (i = count ? run_at (hl, first) : 0; count > 0; i++) {
        const struct run *r = &hl->runs[i];
        struct spell sp = spell_of (r);
        size_t skip = first - r->pos;
        size_t n = run_count (r) - skip;
        if (n > count)
            n = count;
        if (push (out, &sp, r->lo + skip, r->lo + skip + (n - 1)) < 0) {
            rp_hostlist_destroy (out);
            return NULL;
        }
        first += n;
        count -= n;
    }
    return out;
}

/* Equality: host by host, but a stretch spelled alike in both is skipped
 * at once. */

static bool host_equal (const struct run *a, uint64_t na, const struct run *b,
                        uint64_t nb)
{
    char x[NAME_BUF], y[NAME_BUF];
    size_t lx = run_name (a, na, x);
    size_t ly = run_name (b, nb, y);

    return lx == ly && memcmp (x, y, lx) == 0;
}

/* How many hosts from offset oa of ra and ob of rb are equal (0: none). */
static size_t equal_stretch (const struct run *ra, size_t oa,
                             const struct run *rb, size_t ob)
{
    size_t na = run_count (ra) - oa, nb = run_count (rb) - ob;

    if (ra->num == rb->num && ra->width == rb->width && same_stem (ra, rb)
        && ra->lo + oa == rb->lo + ob)
        return na < nb ? na : nb;
    return host_equal (ra, ra->lo + oa, rb, rb->lo + ob) ? 1 : 0;
}

bool rp_hostlist_equal (const struct rp_hostlist *a,
                        const struct rp_hostlist *b)
{
    size_t i = 0, j = 0, oa = 0, ob = 0;

    if (!a || !b)
        return a == b;
    if (a->count != b->count)
        return false;
    while (i < a->nruns) {
        size_t k = equal_stretch (&a->runs[i], oa, &b->runs[j], ob);
        if (k == 0)
            return false;
        oa += k;
        ob += k;
        if (oa == run_count (&a->runs[i])) {
            i++;
            oa = 0;
        }
        if (ob == run_count (&b->runs[j])) {
            j++;
            ob = 0;
        }
    }
    return true;
}

/* A binary heap of indices ordered by a caller's less(). */

struct heap {
    size_t *v;
    size_t n;
    bool (*less) (const void *ctx, size_t a, size_t b);
    const void *ctx;
};

static void heap_swap (struct heap *h, size_t i, size_t j)
{
    size_t t = h->v[i];

    h->v[i] = h->v[j];
    h->v[j] = t;
}

static void heap_push (struct heap *h, size_t x)
{
    size_t i = h->n++;

    h->v[i] = x;
    while (i > 0 && h->less (h->ctx, h->v[i], h->v[(i - 1) / 2])) {
        heap_swap (h, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static size_t heap_pop (struct heap *h)
{
    size_t top = h->v[0], i = 0;

    h->v[0] = h->v[--h->n];
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < h->n && h->less (h->ctx, h->v[l], h->v[m]))
            m = l;
        if (l + 1 < h->n && h->less (h->ctx, h->v[l + 1], h->v[m]))
            m = l + 1;
        if (m == i)
            return top;
        heap_swap (h, i, m);
        i = m;
    }
}

/* Sorting */

/* Order of spellings: prefix, suffix, then without number first. */
static int stem_cmp (const struct run *a, const struct run *b)
{
    int c;

    if (a->head != b->head)
        return a->head < b->head ? -1 : 1;
    c = bytes_cmp (a->stem, a->plen, b->stem, b->plen);

    if (c == 0)
        c = bytes_cmp (run_suffix (a), a->slen, run_suffix (b), b->slen);
    if (c == 0)
        c = (int)a->num - (int)b->num;
    return c;
}

static int host_cmp (const struct run *a, uint64_t na, const struct run *b,
                     uint64_t nb)
{
    int c = stem_cmp (a, b);

    if (c != 0 || !a->num)
        return c;
    if (na != nb)
        return na < nb ? -1 : 1;
    return host_cls (a, na) - host_cls (b, nb);
}

struct merge {
    const struct rp_hostlist *hl;
    uint64_t *cur; /* next number of each run */
    size_t *order; /* runs by first host */
    size_t next;   /* runs order[next..] have not started */
};

static bool merge_less (const void *ctx, size_t a, size_t b)
{
    const struct merge *m = ctx;
    int c = host_cmp (&m->hl->runs[a], m->cur[a], &m->hl->runs[b], m->cur[b]);

    return c < 0 || (c == 0 && a < b);
}

/* The least run besides the one just popped: the top of the heap or the
 * next to start.  False when there is none. */
static bool competitor (const struct merge *m, const struct heap *h, size_t *c)
{
    bool next = m->next < m->hl->nruns;

    if (h->n == 0 && !next)
        return false;
    if (h->n > 0 && (!next || merge_less (m, h->v[0], m->order[m->next])))
        *c = h->v[0];
    else
        *c = m->order[m->next];
    return true;
}

/* The last number that run r (just popped, so the least) emits before the
 * competitor comes first. */
static uint64_t merge_limit (const struct merge *m, size_t r,
                             const struct heap *h)
{
    const struct run *rr = &m->hl->runs[r], *rc;
    uint64_t x, lim;
    size_t c;

    if (!rr->num || !competitor (m, h, &c))
        return rr->hi;
    rc = &m->hl->runs[c];
    if (stem_cmp (rr, rc) != 0)
        return rr->hi;
    x = m->cur[c];
    lim = x;
    if (host_cls (rr, x) > host_cls (rc, x)
        || (host_cls (rr, x) == host_cls (rc, x) && r > c))
        lim = x - 1; /* x > cur[r] here, since r was the least */
    return lim < rr->hi ? lim : rr->hi;
}

struct start {
    const struct run *r;
    size_t i;
};

static int start_cmp (const void *a, const void *b)
{
    const struct start *x = a, *y = b;
    int c = host_cmp (x->r, x->r->lo, y->r, y->r->lo);

    if (c == 0)
        c = x->i < y->i ? -1 : 1;
    return c;
}

static int order_runs (struct merge *m)
{
    size_t n = m->hl->nruns;
    struct start *v = malloc ((n ? n : 1) * sizeof (*v));

    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++) {
        v[i] = (struct start){ .r = &m->hl->runs[i], .i = i };
        m->cur[i] = m->hl->runs[i].lo;
    }
    qsort (v, n, sizeof (*v), start_cmp);
    for (size_t i = 0; i < n; i++)
        m->order[i] = v[i].i;
    free (v);
    return 0;
}

/* Merge the runs, each ascending, taking them up in order of their first
 * host: the heap only holds runs that overlap. */
static int merge_runs (struct rp_hostlist *out, struct merge *m, struct heap *h)
{
    if (order_runs (m) < 0)
        return -1;
    for (;;) {
        if (m->next < m->hl->nruns
            && (h->n == 0 || merge_less (m, m->order[m->next], h->v[0])))
            heap_push (h, m->order[m->next++]);
        if (h->n == 0)
            return 0;
        size_t r = heap_pop (h);
        const struct run *rr = &m->hl->runs[r];
        struct spell sp = spell_of (rr);
        uint64_t lim = merge_limit (m, r, h);
        if (push (out, &sp, m->cur[r], lim) < 0)
            return -1;
        if (rr->num && lim < rr->hi) {
            m->cur[r] = lim + 1;
            heap_push (h, r);
        }
    }
}

/* A sorted copy of hl. */
static struct rp_hostlist *sorted (const struct rp_hostlist *hl)
{
    struct merge m = { .hl = hl };
    struct heap h = { .less = merge_less, .ctx = &m };
    struct rp_hostlist *out = rp_hostlist_create ();
    size_t n = hl->nruns ? hl->nruns : 1;

    m.cur = malloc (n * sizeof (*m.cur));
    m.order = malloc (n * sizeof (*m.order));
    h.v = malloc (n * sizeof (*h.v));
    if (!out || !m.cur || !m.order || !h.v || merge_runs (out, &m, &h) < 0) {
        rp_hostlist_destroy (out);
        out = NULL;
    }
    free (m.cur);
    free (m.order);
    free (h.v);
    return out;
}

int rp_hostlist_sort (struct rp_hostlist *hl)
{
    struct rp_hostlist *s;

    if (!hl) {
        errno = EINVAL;
        return -1;
    }
    if (!(s = sorted (hl)))
        return -1;
    take (hl, s);
    return 0;
}

/* The index */

#define ST_WORDS 4 /* a bit for each digit count 0..255 */

struct index {
    struct seg *segs;
    size_t n;
    struct chunk *chunks;  /* names of single hosts keyed by name */
    uint64_t st[ST_WORDS]; /* digits that begin the suffix of a key */
    bool spelled;          /* keys are spellings, not splits */
    bool off_split;        /* see run_off_split */
};

static void index_destroy (struct index *ix)
{
    int saved_errno = errno;

    if (ix) {
        while (ix->chunks) {
            struct chunk *c = ix->chunks;
            ix->chunks = c->next;
            free (c);
        }
        free (ix->segs);
        free (ix);
    }
    errno = saved_errno;
}

static int key_cmp (const struct key *a, const struct key *b)
{
    int c = (int)a->num - (int)b->num;

    if (c == 0 && a->head != b->head)
        return a->head < b->head ? -1 : 1;
    if (c == 0)
        c = bytes_cmp (a->prefix, a->plen, b->prefix, b->plen);
    if (c == 0)
        c = bytes_cmp (a->suffix, a->slen, b->suffix, b->slen);
    if (c == 0)
        c = (int)a->cls - (int)b->cls;
    return c;
}

static bool has_digit (const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (is_digit (s[i]))
            return true;
    return false;
}

static size_t count_groups (const char *s, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++)
        if (is_digit (s[i]) && (i == 0 || !is_digit (s[i - 1])))
            n++;
    return n;
}

static size_t lead_digits (const char *s, size_t len)
{
    size_t n = 0;

    while (n < len && is_digit (s[n]))
        n++;
    return n;
}

/* The split of name whose number is the digits [a, e): prefix before,
 * suffix from e.  Of more than MAX_DIGITS digits, the number is the last
 * MAX_DIGITS (class MAX_DIGITS: always printed that wide) and the others
 * stay in the prefix. */
static void split_key (const char *name, size_t len, size_t a, size_t e,
                       struct key *k, uint64_t *v)
{
    uint8_t cls = (e - a > 1 && name[a] == '0') ? (uint8_t)(e - a) : 0;

    if (e - a > MAX_DIGITS) {
        a = e - MAX_DIGITS;
        cls = MAX_DIGITS;
    }
    *k = (struct key){ .prefix = name,
                       .suffix = name + e,
                       .head = head_of (name, a),
                       .plen = (uint16_t)a,
                       .slen = (uint16_t)(len - e),
                       .cls = cls,
                       .num = true };
    *v = digits_value (name + a, e - a);
}

/* The canonical key and number of a name: its split at its last digit
 * group; a name without digits is its own key. */
static void canon_key (const char *name, size_t len, struct key *k, uint64_t *v)
{
    size_t j = len, i;

    while (j > 0 && !is_digit (name[j - 1]))
        j--;
    i = j;
    while (i > 0 && is_digit (name[i - 1]))
        i--;
    if (j > 0) {
        split_key (name, len, i, j, k, v);
        return;
    }
    *k = (struct key){ .prefix = name,
                       .suffix = "",
                       .head = head_of (name, len),
                       .plen = (uint16_t)len };
    *v = 0;
}

/* Whether r holds hosts under a split other than their canonical one:
 * more than one host, and a digit in the suffix.  A list without such
 * runs holds every host under its canonical key. */
static bool run_off_split (const struct run *r)
{
    return r->num && r->lo != r->hi && has_digit (run_suffix (r), r->slen);
}

static bool list_off_split (const struct rp_hostlist *hl)
{
    for (size_t i = 0; i < hl->nruns; i++)
        if (run_off_split (&hl->runs[i]))
            return true;
    return false;
}

/* A piece is a segment before the sweep: hosts of one run with numbers
 * n1.. and key numbers pc->lo..pc->hi, all printed as wide.  transient:
 * the key points into a buffer that dies when the callback returns. */
typedef int (*piece_f) (void *arg, const struct seg *pc, uint64_t n1,
                        bool transient);

/* The one host of r, keyed by its name, so that "n[5]-e1" and "n5-e1"
 * share a key. */
static int single_piece (const struct run *r, piece_f cb, void *arg)
{
    char name[NAME_BUF];
    struct seg pc;
    uint64_t v;

    canon_key (name, run_name (r, r->lo, name), &pc.k, &v);
    pc.lo = pc.hi = v;
    pc.off = host_pos (r, r->lo) - (int64_t)v;
    return cb (arg, &pc, r->lo, true);
}

/* The last number of r from n on that prints with as many digits (and the
 * same padding) as n; without by_digits only padding matters. */
static uint64_t print_class (const struct run *r, bool by_digits, uint64_t n,
                             int *k, bool *padded)
{
    int d = ndigits (n);
    uint64_t end;

    *padded = r->width > d;
    *k = *padded ? r->width : d;
    if (*padded)
        end = pow10_tab[r->width - 1] - 1;
    else
        end = by_digits ? pow10_tab[d] - 1 : r->hi;
    return end < r->hi ? end : r->hi;
}

/* Numbers n1..n2 of r, printed with k digits after the lt digits that end
 * the prefix.  The key's number is those lt digits followed by ours; of
 * more than MAX_DIGITS in all, the last MAX_DIGITS (see split_key). */
static int class_piece (const struct run *r, size_t lt, uint64_t n1,
                        uint64_t n2, int k, bool padded, piece_f cb, void *arg)
{
    size_t keep = lt + (size_t)k > MAX_DIGITS ? MAX_DIGITS - (size_t)k : lt;
    const char *t = r->stem + r->plen - keep;
    struct seg pc = { .k = { .prefix = r->stem,
                             .suffix = run_suffix (r),
                             .plen = (uint16_t)(r->plen - keep),
                             .slen = r->slen,
                             .num = true } };
    uint64_t base = digits_value (t, keep) * pow10_tab[k];

    pc.k.head = head_of (pc.k.prefix, pc.k.plen);
    if (keep < lt)
        pc.k.cls = MAX_DIGITS;
    else if (lt > 0)
        pc.k.cls = t[0] == '0' ? (uint8_t)(lt + (size_t)k) : 0;
    else
        pc.k.cls = padded ? (uint8_t)k : 0;
    pc.lo = base + n1;
    pc.hi = base + n2;
    pc.off = host_pos (r, n1) - (int64_t)pc.lo;
    return cb (arg, &pc, n1, false);
}

/* Pieces of r, whose prefix ends in lt digits that belong to the number. */
static int range_pieces (const struct run *r, size_t lt, bool by_digits,
                         piece_f cb, void *arg)
{
    uint64_t n = r->lo;

    for (;;) {
        int k;
        bool padded;
        uint64_t end = print_class (r, by_digits, n, &k, &padded);
        if (class_piece (r, lt, n, end, k, padded, cb, arg) < 0)
            return -1;
        if (end == r->hi)
            return 0;
        n = end + 1;
    }
}

static int nonum_piece (const struct run *r, bool spelled, piece_f cb,
                        void *arg)
{
    struct seg pc = { .k = {
                          .prefix = r->stem, .suffix = "", .plen = r->plen } };
    uint64_t v = 0;

    if (!spelled)
        canon_key (r->stem, r->plen, &pc.k, &v);
    else
        pc.k.head = r->head;
    pc.lo = pc.hi = v;
    pc.off = (int64_t)r->pos - (int64_t)v;
    return cb (arg, &pc, 0, false);
}

/* The pieces of run r by split, or by spelling when spelled (prefix,
 * suffix and padding class as written; a run is then at most a padded and
 * an unpadded piece). */
static int run_pieces (const struct run *r, bool spelled, piece_f cb, void *arg)
{
    size_t lt = 0;

    if (!r->num)
        return nonum_piece (r, spelled, cb, arg);
    if (spelled)
        return range_pieces (r, 0, false, cb, arg);
    if (r->lo == r->hi && has_digit (run_suffix (r), r->slen))
        return single_piece (r, cb, arg);
    while (lt < r->plen && is_digit (r->stem[r->plen - 1 - lt]))
        lt++;
    return range_pieces (r, lt, true, cb, arg);
}

struct builder {
    struct seg *v;
    size_t n, alloc;
    struct index *ix;
};

static const char *arena_dup (struct index *ix, const char *s, size_t len)
{
    struct chunk *c = ix->chunks;
    char *p;

    if (!c || CHUNK_SIZE - c->used < len) {
        if (!(c = malloc (sizeof (*c))))
            return NULL;
        c->next = ix->chunks;
        c->used = 0;
        ix->chunks = c;
    }
    p = c->data + c->used;
    memcpy (p, s, len);
    c->used += len;
    return p;
}

static void note_st (struct index *ix, const struct key *k)
{
    size_t st = lead_digits (k->suffix, k->slen);

    ix->st[st / 64] |= 1ULL << (st % 64);
}

static bool st_used (const struct index *ix, size_t st)
{
    return st < 64 * ST_WORDS && (ix->st[st / 64] >> (st % 64)) & 1;
}

static int collect_piece (void *arg, const struct seg *pc, uint64_t n1,
                          bool transient)
{
    struct builder *b = arg;
    struct seg s = *pc;

    if (b->n == b->alloc) {
        size_t alloc = b->alloc ? b->alloc * 2 : 64;
        struct seg *v = realloc (b->v, alloc * sizeof (*v));
        if (!v)
            return -1;
        b->v = v;
        b->alloc = alloc;
    }
    if (transient) {
        s.k.prefix = arena_dup (b->ix, pc->k.prefix, pc->k.plen);
        s.k.suffix = arena_dup (b->ix, pc->k.suffix, pc->k.slen);
        if (!s.k.prefix || !s.k.suffix)
            return -1;
    }
    if (s.k.num)
        note_st (b->ix, &s.k);
    b->v[b->n++] = s;
    return 0;
}

static int seg_cmp (const void *a, const void *b)
{
    const struct seg *x = a, *y = b;
    int c = key_cmp (&x->k, &y->k);

    if (c != 0)
        return c;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static bool off_less (const void *ctx, size_t a, size_t b)
{
    const struct seg *pc = ctx;

    return pc[a].off < pc[b].off;
}

/* Add segment lo..hi of piece t, merging it into the last when it goes on
 * with the same first occurrence. */
static void emit_seg (struct index *ix, const struct seg *t, uint64_t lo,
                      uint64_t hi)
{
    struct seg *last = ix->n ? &ix->segs[ix->n - 1] : NULL;

    if (last && last->off == t->off && last->hi + 1 == lo
        && key_cmp (&last->k, &t->k) == 0) {
        last->hi = hi;
        return;
    }
    ix->segs[ix->n++] =
        (struct seg){ .k = t->k, .lo = lo, .hi = hi, .off = t->off };
}

/* Pieces g..e-1 share a key and ascend by lo: cut them into disjoint
 * segments, each owned by the covering piece that comes first in the list
 * (least off).  A segment ends where its owner ends or a piece starts. */
static void sweep_group (struct index *ix, struct heap *h, const struct seg *pc,
                         size_t g, size_t e)
{
    size_t i = g;
    uint64_t x = 0;

    h->n = 0;
    while (i < e || h->n > 0) {
        uint64_t end;
        if (h->n == 0)
            x = pc[i].lo;
        while (i < e && pc[i].lo <= x)
            heap_push (h, i++);
        while (h->n > 0 && pc[h->v[0]].hi < x)
            heap_pop (h);
        if (h->n == 0)
            continue;
        end = pc[h->v[0]].hi;
        if (i < e && pc[i].lo - 1 < end)
            end = pc[i].lo - 1;
        emit_seg (ix, &pc[h->v[0]], x, end);
        x = end + 1;
    }
}

static int sweep (struct index *ix, const struct seg *pc, size_t n)
{
    struct heap h = { .less = off_less, .ctx = pc };

    if (n == 0)
        return 0;
    ix->segs = malloc (2 * n * sizeof (*ix->segs));
    h.v = malloc (n * sizeof (*h.v));
    if (!ix->segs || !h.v) {
        free (h.v);
        return -1;
    }
    for (size_t g = 0; g < n;) {
        size_t e = g + 1;
        while (e < n && key_cmp (&pc[e].k, &pc[g].k) == 0)
            e++;
        sweep_group (ix, &h, pc, g, e);
        g = e;
    }
    free (h.v);
    return 0;
}

static struct index *index_build (const struct rp_hostlist *hl, bool spelled)
{
    struct builder b = { 0 };

    if (!(b.ix = calloc (1, sizeof (*b.ix))))
        return NULL;
    b.ix->spelled = spelled;
    b.ix->off_split = !spelled && list_off_split (hl);
    for (size_t i = 0; i < hl->nruns; i++)
        if (run_pieces (&hl->runs[i], spelled, collect_piece, &b) < 0)
            goto error;
    if (b.n > 0)
        qsort (b.v, b.n, sizeof (*b.v), seg_cmp);
    if (sweep (b.ix, b.v, b.n) < 0)
        goto error;
    free (b.v);
    return b.ix;
error:
    free (b.v);
    index_destroy (b.ix);
    return NULL;
}

/* The first segment that is not before (k, v): the one holding v if any. */
static size_t seg_search (const struct index *ix, const struct key *k,
                          uint64_t v)
{
    size_t lo = 0, hi = ix->n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = key_cmp (&ix->segs[mid].k, k);
        if (c < 0 || (c == 0 && ix->segs[mid].hi < v))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether segment i has key k and starts at or before v. */
static bool seg_reaches (const struct index *ix, size_t i, const struct key *k,
                         uint64_t v)
{
    return i < ix->n && ix->segs[i].lo <= v && key_cmp (&ix->segs[i].k, k) == 0;
}

/* First position of host (k, v), or -1. */
static int64_t find_key (const struct index *ix, const struct key *k,
                         uint64_t v)
{
    size_t i = seg_search (ix, k, v);

    if (!seg_reaches (ix, i, k, v))
        return -1;
    return ix->segs[i].off + (int64_t)v;
}

static void keep_least (int64_t *best, int64_t pos)
{
    if (pos >= 0 && (*best < 0 || pos < *best))
        *best = pos;
}

/* Try the splits of name at its digit group [a, b): the whole group, and
 * the group less the digits that begin the suffix of some key. */
static void find_group (const struct index *ix, const char *name, size_t len,
                        size_t a, size_t b, int64_t *best)
{
    for (size_t st = 0; st < b - a; st++) {
        struct key k;
        uint64_t v;
        if (!st_used (ix, st))
            continue;
        split_key (name, len, a, b - st, &k, &v);
        keep_least (best, find_key (ix, &k, v));
    }
}

/* The first position of name, or -1: the least over its splits. */
static int64_t find_name (const struct index *ix, const char *name, size_t len)
{
    int64_t best = -1;
    struct key k;
    uint64_t v;
    size_t a, b = 0;

    canon_key (name, len, &k, &v);
    if (!k.num || !ix->off_split)
        return find_key (ix, &k, v);
    while (b < len) {
        for (a = b; a < len && !is_digit (name[a]); a++)
            ;
        for (b = a; b < len && is_digit (name[b]); b++)
            ;
        find_group (ix, name, len, a, b, &best);
    }
    return best;
}

ssize_t rp_hostlist_find (const struct rp_hostlist *hl, const char *host)
{
    int64_t pos;
    size_t len;

    if (!hl || !host) {
        errno = EINVAL;
        return -1;
    }
    if (!hl->index) {
        struct rp_hostlist *mut = (struct rp_hostlist *)hl;
        if (!(mut->index = index_build (hl, false)))
            return -1;
    }
    len = strnlen (host, RP_HOSTLIST_MAX_NAME + 1);
    if (len > RP_HOSTLIST_MAX_NAME
        || (pos = find_name (hl->index, host, len)) < 0) {
        errno = ENOENT;
        return -1;
    }
    return (ssize_t)pos;
}

/* Cross matching.  A host with several splits sits in an index under the
 * key of the run that holds it.  So a piece is also compared with the
 * segments of the same skeleton (its names with each digit group as one
 * mark; compared by hash, since a collision only costs a comparison that
 * finds nothing) whose split differs: digit group g, or digits st of the
 * group left in the suffix.  With the same split the keys would be equal.
 * Where the groups differ, a segment that shares a host with the piece has
 * the piece's text on one side of its number (before it when its group
 * comes first, after it otherwise) and the piece's text with a number of
 * the piece's range on the other: the entries are sorted both ways, so
 * such segments are found by binary search, not by trying all. */

struct shape {
    uint64_t hash; /* of the skeleton */
    uint16_t g;    /* digit groups before the number's */
    uint16_t st;   /* digits of the number's group in the suffix */
};

struct xent {
    const struct seg *s;
    struct shape sh;
};

/* Segments with a number by skeleton, split, then by prefix and suffix
 * (byp) or by suffix and prefix (bys); the second side by length first. */
struct cross {
    struct xent *byp, *bys;
    size_t n;
};

/* What an entry is compared with, up to level: 0 the skeleton, 1 the
 * split, 2 the first side (fix), 3 the second (var). */
struct probe {
    struct shape sh;
    const char *fix, *var;
    size_t flen, vlen;
    int level;
};

/* Byte i of prefix, a digit for the number, suffix. */
static char key_char (const struct key *k, size_t i)
{
    if (i < k->plen)
        return k->prefix[i];
    if (i == k->plen)
        return '0';
    return k->suffix[i - k->plen - 1];
}

static void key_shape (const struct key *k, struct shape *sh)
{
    uint64_t h = 14695981039346656037ULL; /* FNV-1a */
    size_t n = k->plen + 1u + k->slen;

    for (size_t i = 0; i < n; i++) {
        char c = key_char (k, i);
        if (is_digit (c) && i > 0 && is_digit (key_char (k, i - 1)))
            continue;
        h = (h ^ (is_digit (c) ? 0u : (unsigned char)c)) * 1099511628211ULL;
    }
    sh->hash = h;
    sh->g = (uint16_t)count_groups (k->prefix, k->plen);
    if (k->plen > 0 && is_digit (k->prefix[k->plen - 1]))
        sh->g--; /* digits kept in the prefix: the number's group */
    sh->st = (uint16_t)lead_digits (k->suffix, k->slen);
}

static int shape_cmp (const struct shape *a, const struct shape *b, int level)
{
    if (a->hash != b->hash)
        return a->hash < b->hash ? -1 : 1;
    if (level < 1 || (a->g == b->g && a->st == b->st))
        return 0;
    if (a->g != b->g)
        return a->g < b->g ? -1 : 1;
    return a->st < b->st ? -1 : 1;
}

static int xent_order (const struct xent *e, const struct probe *p,
                       bool by_suffix)
{
    const struct key *k = &e->s->k;
    const char *fix = by_suffix ? k->suffix : k->prefix;
    const char *var = by_suffix ? k->prefix : k->suffix;
    size_t flen = by_suffix ? k->slen : k->plen;
    size_t vlen = by_suffix ? k->plen : k->slen;
    int c = shape_cmp (&e->sh, &p->sh, p->level);

    if (c != 0 || p->level < 2)
        return c;
    if ((c = bytes_cmp (fix, flen, p->fix, p->flen)) != 0 || p->level < 3)
        return c;
    if (vlen != p->vlen)
        return vlen < p->vlen ? -1 : 1;
    return memcmp (var, p->var, vlen);
}

static void probe_of (const struct xent *e, bool by_suffix, struct probe *p)
{
    const struct key *k = &e->s->k;

    *p = (struct probe){ .sh = e->sh,
                         .fix = by_suffix ? k->suffix : k->prefix,
                         .flen = by_suffix ? k->slen : k->plen,
                         .var = by_suffix ? k->prefix : k->suffix,
                         .vlen = by_suffix ? k->plen : k->slen,
                         .level = 3 };
}

static int xent_cmp_p (const void *a, const void *b)
{
    struct probe p;

    probe_of (b, false, &p);
    return xent_order (a, &p, false);
}

static int xent_cmp_s (const void *a, const void *b)
{
    struct probe p;

    probe_of (b, true, &p);
    return xent_order (a, &p, true);
}

/* The first entry of v[0..n) not before p, or with after the first after. */
static size_t xent_bound (const struct xent *v, size_t n, const struct probe *p,
                          bool by_suffix, bool after)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = xent_order (&v[mid], p, by_suffix);
        if (c < 0 || (after && c == 0))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void cross_free (struct cross *cx)
{
    free (cx->byp);
    free (cx->bys);
}

/* The segments of ix with a number, sorted both ways. */
static int cross_build (struct cross *cx, const struct index *ix)
{
    size_t size = (ix->n ? ix->n : 1) * sizeof (struct xent);

    cx->byp = malloc (size);
    cx->bys = malloc (size);
    if (!cx->byp || !cx->bys)
        return -1;
    cx->n = 0;
    for (size_t i = 0; i < ix->n; i++) {
        if (!ix->segs[i].k.num)
            continue;
        cx->byp[cx->n].s = &ix->segs[i];
        key_shape (&ix->segs[i].k, &cx->byp[cx->n++].sh);
    }
    memcpy (cx->bys, cx->byp, cx->n * sizeof (struct xent));
    qsort (cx->byp, cx->n, sizeof (struct xent), xent_cmp_p);
    qsort (cx->bys, cx->n, sizeof (struct xent), xent_cmp_s);
    return 0;
}

/* The points vlo + i * vstep (i < count) of a piece that a segment holds,
 * at positions q0 + i * qstep there. */
struct item {
    uint64_t vlo, vstep, count;
    int64_t q0, qstep;
};

static int window_len (const struct key *k, uint64_t v)
{
    return k->cls ? k->cls : ndigits (v);
}

/* The name of number v of key k, printed len digits wide; its length. */
static size_t key_name (const struct key *k, uint64_t v, int len, char *buf)
{
    size_t n = k->plen;

    memcpy (buf, k->prefix, k->plen);
    n += fmt_num (buf + n, v, len);
    memcpy (buf + n, k->suffix, k->slen);
    return n + k->slen;
}

/* The numbers of segment q printed len digits wide, in *w1..*w2. */
static bool window_range (const struct seg *q, int len, uint64_t *w1,
                          uint64_t *w2)
{
    uint64_t lo = q->lo, hi = q->hi;

    if (len < 1 || len > MAX_DIGITS || (q->k.cls && len != q->k.cls))
        return false;
    if (!q->k.cls) {
        uint64_t dlo = len == 1 ? 0 : pow10_tab[len - 1];
        if (lo < dlo)
            lo = dlo;
        if (hi > pow10_tab[len] - 1)
            hi = pow10_tab[len] - 1;
    }
    *w1 = lo;
    *w2 = hi;
    return lo <= hi;
}

/* Whether names np and nq (n bytes) with number windows [p0, p1) and
 * [q0, q1) agree where both are fixed, and each has digits where the
 * other's window is. */
static bool windows_fit (const char *np, const char *nq, size_t n, size_t p0,
                         size_t p1, size_t q0, size_t q1)
{
    for (size_t i = 0; i < n; i++) {
        bool inp = i >= p0 && i < p1, inq = i >= q0 && i < q1;
        if (!inp && !inq && np[i] != nq[i])
            return false;
        if (inp != inq && !is_digit (inp ? nq[i] : np[i]))
            return false;
    }
    return true;
}

/* The digits of s in [w0, w1) as a number, with zeros in [o0, o1). */
static uint64_t window_value (const char *s, size_t w0, size_t w1, size_t o0,
                              size_t o1)
{
    uint64_t v = 0;

    for (size_t i = w0; i < w1; i++)
        v = v * 10 + (i >= o0 && i < o1 ? 0u : (uint64_t)(s[i] - '0'));
    return v;
}

/* Narrow *s1..*s2 to the s with lo <= a + s * step <= hi. */
static bool solve (uint64_t a, uint64_t step, uint64_t lo, uint64_t hi,
                   uint64_t *s1, uint64_t *s2)
{
    uint64_t from = a >= lo ? 0 : (lo - a + step - 1) / step;

    if (a > hi)
        return false;
    if (from > *s1)
        *s1 = from;
    if ((hi - a) / step < *s2)
        *s2 = (hi - a) / step;
    return *s1 <= *s2;
}

/* The hosts of piece p that segment q holds.  A host of both is p's name
 * with q's fixed digits in p's window and p's in q's; where the windows
 * overlap, the same digits s count in both numbers. */
static bool cross_item (const struct seg *p, const struct seg *q,
                        struct item *it)
{
    char np[NAME_BUF], nq[NAME_BUF];
    int lp = window_len (&p->k, p->lo);
    size_t n = p->k.plen + (size_t)lp + p->k.slen;
    size_t p0 = p->k.plen, p1 = p0 + (size_t)lp, q0 = q->k.plen, q1, o0, o1;
    int lq = (int)n - (int)q->k.plen - (int)q->k.slen;
    uint64_t w1, w2, ap, aq, sp = 1, sq = 1, s1 = 0, s2 = 0;

    if (!window_range (q, lq, &w1, &w2))
        return false;
    q1 = q0 + (size_t)lq;
    key_name (&p->k, p->lo, lp, np);
    key_name (&q->k, w1, lq, nq);
    if (!windows_fit (np, nq, n, p0, p1, q0, q1))
        return false;
    o0 = p0 > q0 ? p0 : q0;
    o1 = p1 < q1 ? p1 : q1;
    if (o0 < o1) {
        sp = pow10_tab[p1 - o1];
        sq = pow10_tab[q1 - o1];
        s2 = pow10_tab[o1 - o0] - 1;
    } else
        o1 = o0;
    ap = window_value (nq, p0, p1, o0, o1);
    aq = window_value (np, q0, q1, o0, o1);
    if (!solve (ap, sp, p->lo, p->hi, &s1, &s2)
        || !solve (aq, sq, w1, w2, &s1, &s2))
        return false;
    *it = (struct item){ .vlo = ap + s1 * sp,
                         .vstep = sp,
                         .count = s2 - s1 + 1,
                         .q0 = q->off + (int64_t)(aq + s1 * sq),
                         .qstep = (int64_t)sq };
    return true;
}

/* Keep the points of it that occur earlier in the segment than in piece
 * pc (the same list): false when none. */
static bool item_earlier (const struct seg *pc, struct item *it)
{
    int64_t d0 = pc->off + (int64_t)it->vlo - it->q0;
    int64_t dl = (int64_t)it->vstep - it->qstep;
    uint64_t i1 = 0, i2 = it->count - 1;

    if (d0 <= 0 && dl <= 0)
        return false;
    if (d0 <= 0)
        i1 = (uint64_t)(-d0 / dl) + 1;
    else if (dl < 0 && (uint64_t)((d0 - 1) / -dl) < i2)
        i2 = (uint64_t)((d0 - 1) / -dl);
    if (i1 > i2)
        return false;
    it->vlo += i1 * it->vstep;
    it->q0 += (int64_t)i1 * it->qstep;
    it->count = i2 - i1 + 1;
    return true;
}

/* Filters: the hosts of a list that are in (KEEP_IN) or not in (KEEP_OUT)
 * an index, or that are the first of their name in their own index
 * (KEEP_FIRST), in order.  Each piece marks the numbers that its own key's
 * segments hold (in KEEP_FIRST: hold earlier), then those that segments
 * of other splits hold, and keeps the marked or the unmarked ones. */

enum keep { KEEP_IN, KEEP_OUT, KEEP_FIRST };

struct mark {
    uint64_t lo, hi;
};

struct filter {
    struct rp_hostlist *out;
    const struct index *ix;
    const struct cross *cx; /* NULL: no host is off its canonical split */
    enum keep mode;
    const struct run *r;
    struct mark *m;
    size_t nm, alloc, nbase; /* marks; the first nbase by the own key */
};

static int add_mark (struct filter *f, uint64_t lo, uint64_t hi)
{
    if (f->nm == f->alloc) {
        size_t alloc = f->alloc ? f->alloc * 2 : 16;
        struct mark *m = realloc (f->m, alloc * sizeof (*m));
        if (!m)
            return -1;
        f->m = m;
        f->alloc = alloc;
    }
    f->m[f->nm++] = (struct mark){ .lo = lo, .hi = hi };
    return 0;
}

/* The first own-key mark that ends at or after v. */
static size_t base_after (const struct filter *f, uint64_t v)
{
    size_t lo = 0, hi = f->nbase;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->m[mid].hi < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int mark_points (struct filter *f, const struct item *it, uint64_t i,
                        uint64_t last)
{
    for (; i <= last; i++) {
        uint64_t v = it->vlo + i * it->vstep;
        if (add_mark (f, v, v) < 0)
            return -1;
    }
    return 0;
}

/* Mark the points of it, skipping those an own-key mark holds already, so
 * that the work follows the result, not the segment. */
static int mark_item (struct filter *f, const struct item *it)
{
    uint64_t i = 0;

    if (it->vstep == 1)
        return add_mark (f, it->vlo, it->vlo + it->count - 1);
    while (i < it->count) {
        uint64_t v = it->vlo + i * it->vstep, last = it->count - 1;
        size_t j = base_after (f, v);
        if (j < f->nbase && f->m[j].lo <= v) {
            i = (f->m[j].hi - it->vlo) / it->vstep + 1;
            continue;
        }
        if (j < f->nbase && (f->m[j].lo - 1 - it->vlo) / it->vstep < last)
            last = (f->m[j].lo - 1 - it->vlo) / it->vstep;
        if (mark_points (f, it, i, last) < 0)
            return -1;
        i = last + 1;
    }
    return 0;
}

/* Mark what the segments of pc's own key hold (in KEEP_FIRST: those that
 * pc does not own). */
static int base_marks (struct filter *f, const struct seg *pc)
{
    size_t i = seg_search (f->ix, &pc->k, pc->lo);

    f->nm = 0;
    for (; seg_reaches (f->ix, i, &pc->k, pc->hi); i++) {
        const struct seg *s = &f->ix->segs[i];
        uint64_t from = s->lo > pc->lo ? s->lo : pc->lo;
        uint64_t to = s->hi < pc->hi ? s->hi : pc->hi;
        if (f->mode == KEEP_FIRST && s->off == pc->off)
            continue;
        if (add_mark (f, from, to) < 0)
            return -1;
    }
    f->nbase = f->nm;
    return 0;
}

static int cross_one (struct filter *f, const struct seg *pc,
                      const struct seg *q)
{
    struct item it;

    if (!cross_item (pc, q, &it))
        return 0;
    if (f->mode == KEEP_FIRST && !item_earlier (pc, &it))
        return 0;
    return mark_item (f, &it);
}

/* Digit group g of name s (n bytes) in [*a, *b): false if none. */
static bool group_at (const char *s, size_t n, size_t g, size_t *a, size_t *b)
{
    size_t i = 0;

    for (;;) {
        while (i < n && !is_digit (s[i]))
            i++;
        if (i == n)
            return false;
        *a = i;
        while (i < n && is_digit (s[i]))
            i++;
        *b = i;
        if (g-- == 0)
            return true;
    }
}

/* Compare pc with the entries of split qsh (another digit group) that
 * share its names' text on one side of their number, and on the other
 * side the text with a number of pc's range (see cross matching). */
static int cross_split (struct filter *f, const struct seg *pc,
                        const struct shape *psh, const struct shape *qsh)
{
    char lo[NAME_BUF], hi[NAME_BUF];
    int lp = window_len (&pc->k, pc->lo);
    size_t n = key_name (&pc->k, pc->lo, lp, lo), a, b, w0, w1, i;
    bool by_suffix = qsh->g > psh->g;
    const struct xent *v = by_suffix ? f->cx->bys : f->cx->byp;
    struct probe p = { .sh = *qsh, .level = 3 };

    key_name (&pc->k, pc->hi, lp, hi);
    if (!group_at (lo, n, qsh->g, &a, &b) || b - a <= qsh->st)
        return 0;
    w1 = b - qsh->st;
    w0 = w1 - a > MAX_DIGITS ? w1 - MAX_DIGITS : a;
    p.fix = by_suffix ? lo + w1 : lo;
    p.flen = by_suffix ? n - w1 : w0;
    p.var = by_suffix ? lo : lo + w1;
    p.vlen = by_suffix ? w0 : n - w1;
    i = xent_bound (v, f->cx->n, &p, by_suffix, false);
    p.var = by_suffix ? hi : hi + w1;
    for (; i < f->cx->n && xent_order (&v[i], &p, by_suffix) <= 0; i++)
        if (cross_one (f, pc, v[i].s) < 0)
            return -1;
    return 0;
}

/* Compare pc with the entries byp[i..j) of one split. */
static int cross_bucket (struct filter *f, const struct seg *pc,
                         const struct shape *psh, size_t i, size_t j)
{
    const struct shape *qsh = &f->cx->byp[i].sh;

    if (qsh->g == psh->g && qsh->st == psh->st)
        return 0;
    if (qsh->g != psh->g)
        return cross_split (f, pc, psh, qsh);
    for (; i < j; i++)
        if (cross_one (f, pc, f->cx->byp[i].s) < 0)
            return -1;
    return 0;
}

/* Mark what segments of pc's skeleton but another split hold. */
static int cross_marks (struct filter *f, const struct seg *pc)
{
    struct probe p = { .level = 0 };
    size_t i, end;

    if (!f->cx || !pc->k.num)
        return 0;
    key_shape (&pc->k, &p.sh);
    i = xent_bound (f->cx->byp, f->cx->n, &p, false, false);
    end = xent_bound (f->cx->byp, f->cx->n, &p, false, true);
    while (i < end) {
        struct probe b = { .sh = f->cx->byp[i].sh, .level = 1 };
        size_t j = i + xent_bound (f->cx->byp + i, end - i, &b, false, true);
        if (cross_bucket (f, pc, &p.sh, i, j) < 0)
            return -1;
        i = j;
    }
    return 0;
}

static int mark_cmp (const void *a, const void *b)
{
    const struct mark *x = a, *y = b;

    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Add the hosts of piece pc with key numbers v1..v2. */
static int filter_emit (struct filter *f, const struct seg *pc, uint64_t n1,
                        uint64_t v1, uint64_t v2)
{
    struct spell sp = spell_of (f->r);

    return push (f->out, &sp, n1 + (v1 - pc->lo), n1 + (v2 - pc->lo));
}

/* Add the marked numbers of pc (KEEP_IN) or the others. */
static int emit_marks (struct filter *f, const struct seg *pc, uint64_t n1)
{
    uint64_t x = pc->lo;
    size_t i = 0;

    if (f->nm > f->nbase)
        qsort (f->m, f->nm, sizeof (*f->m), mark_cmp);
    while (i < f->nm) {
        uint64_t lo = f->m[i].lo, hi = f->m[i].hi;
        for (i++; i < f->nm && f->m[i].lo <= hi + 1; i++)
            hi = f->m[i].hi > hi ? f->m[i].hi : hi;
        if (f->mode == KEEP_IN && filter_emit (f, pc, n1, lo, hi) < 0)
            return -1;
        if (f->mode != KEEP_IN && lo > x
            && filter_emit (f, pc, n1, x, lo - 1) < 0)
            return -1;
        x = hi + 1;
    }
    if (f->mode != KEEP_IN && x <= pc->hi)
        return filter_emit (f, pc, n1, x, pc->hi);
    return 0;
}

static int filter_piece (void *arg, const struct seg *pc, uint64_t n1,
                         bool transient)
{
    struct filter *f = arg;

    if (base_marks (f, pc) < 0 || cross_marks (f, pc) < 0)
        return -1;
    return emit_marks (f, pc, n1);
}

static struct rp_hostlist *filter_list (const struct rp_hostlist *a,
                                        const struct index *ix,
                                        const struct cross *cx, enum keep mode)
{
    struct filter f = {
        .out = rp_hostlist_create (), .ix = ix, .cx = cx, .mode = mode
    };

    if (!f.out)
        return NULL;
    for (size_t i = 0; i < a->nruns; i++) {
        f.r = &a->runs[i];
        if (run_pieces (f.r, ix->spelled, filter_piece, &f) < 0) {
            rp_hostlist_destroy (f.out);
            f.out = NULL;
            break;
        }
    }
    free (f.m);
    return f.out;
}

/* The hosts of a kept by mode against b's index (b's own when built, else
 * a temporary one), or its index of spellings.  Segments are cross
 * matched only when a or b holds hosts off their canonical split. */
static struct rp_hostlist *filter_by (const struct rp_hostlist *a,
                                      const struct rp_hostlist *b,
                                      enum keep mode, bool spelled)
{
    struct index *tmp = NULL;
    const struct index *ix = b->index;
    struct cross cx = { 0 };
    struct rp_hostlist *out = NULL;
    bool cross;

    if (spelled || !ix)
        ix = tmp = index_build (b, spelled);
    if (!ix)
        return NULL;
    cross = !spelled && (ix->off_split || list_off_split (a));
    if (!cross || cross_build (&cx, ix) == 0)
        out = filter_list (a, ix, cross ? &cx : NULL, mode);
    cross_free (&cx);
    index_destroy (tmp);
    return out;
}

/* Sorted, with only the first host of each name.  Copies spelled alike go
 * before the sort, which would interleave them host by host; then the
 * first spelling in sorted order of each name stays, so the result does
 * not depend on the order of the input.  hl is not changed. */
static struct rp_hostlist *uniq_of (const struct rp_hostlist *hl)
{
    struct rp_hostlist *f = filter_by (hl, hl, KEEP_FIRST, true), *s, *u;

    if (!f)
        return NULL;
    s = sorted (f);
    rp_hostlist_destroy (f);
    if (!s)
        return NULL;
    u = filter_by (s, s, KEEP_FIRST, false);
    rp_hostlist_destroy (s);
    return u;
}

int rp_hostlist_uniq (struct rp_hostlist *hl)
{
    struct rp_hostlist *u;

    if (!hl) {
        errno = EINVAL;
        return -1;
    }
    if (!(u = uniq_of (hl)))
        return -1;
    take (hl, u);
    return 0;
}

int rp_hostlist_delete (struct rp_hostlist *hl, const char *s,
                        rp_error_t *error)
{
    struct rp_hostlist *d, *out;
    size_t n;

    if (!hl)
        return rp_error_set (error, EINVAL, "hostlist: list is NULL");
    if (!(d = rp_hostlist_decode (s, error)))
        return -1;
    out = filter_by (hl, d, KEEP_OUT, false);
    rp_hostlist_destroy (d);
    if (!out)
        return rp_error_set (error, errno, "hostlist: out of memory");
    n = hl->count - out->count;
    take (hl, out);
    return (int)n;
}

/* Set operations */

/* Uniq of c, which is destroyed; EOVERFLOW when the result is too long. */
static struct rp_hostlist *uniq_bounded (struct rp_hostlist *c)
{
    struct rp_hostlist *u = c ? uniq_of (c) : NULL;

    rp_hostlist_destroy (c);
    if (u && u->count > RP_HOSTLIST_MAX_HOSTS) {
        rp_hostlist_destroy (u);
        errno = EOVERFLOW;
        return NULL;
    }
    return u;
}

/* a then b, unbounded; a is destroyed (also on failure). */
static struct rp_hostlist *concat (struct rp_hostlist *a, struct rp_hostlist *b)
{
    if (!a || !b || move_runs (a, b) < 0) {
        rp_hostlist_destroy (a);
        a = NULL;
    }
    rp_hostlist_destroy (b);
    return a;
}

struct rp_hostlist *rp_hostlist_union (const struct rp_hostlist *a,
                                       const struct rp_hostlist *b)
{
    if (!a || !b) {
        errno = EINVAL;
        return NULL;
    }
    return uniq_bounded (concat (rp_hostlist_copy (a), rp_hostlist_copy (b)));
}

struct rp_hostlist *rp_hostlist_intersect (const struct rp_hostlist *a,
                                           const struct rp_hostlist *b)
{
    if (!a || !b) {
        errno = EINVAL;
        return NULL;
    }
    return uniq_bounded (filter_by (a, b, KEEP_IN, false));
}

struct rp_hostlist *rp_hostlist_minus (const struct rp_hostlist *a,
                                       const struct rp_hostlist *b)
{
    if (!a || !b) {
        errno = EINVAL;
        return NULL;
    }
    return filter_by (a, b, KEEP_OUT, false);
}

struct rp_hostlist *rp_hostlist_xor (const struct rp_hostlist *a,
                                     const struct rp_hostlist *b)
{
    if (!a || !b) {
        errno = EINVAL;
        return NULL;
    }
    return uniq_bounded (concat (filter_by (a, b, KEEP_OUT, false),
                                 filter_by (b, a, KEEP_OUT, false)));
}
