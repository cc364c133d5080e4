/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for core/range.c (RFC 45 strings, RFC 14 count dictionary).
 *
 * Tables of valid strings (decoded fields, encoding, first values, size)
 * and invalid strings (errno, exact message, *r untouched); then
 * contains/largest/size against brute-force iteration over every small
 * range, and the overflow edges near RP_RANGE_MAX.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/range.h"
#include "t/tap/tap.h"

#define MAXV RP_RANGE_MAX
#define NVALS 6

struct valid_case {
    const char *s;
    struct rp_range r;
    const char *encoded;
    uint64_t size;
    int nvals;
    uint64_t vals[NVALS]; /* the first nvals values (all when size is nvals) */
};

/* input, {min, max, operand, op}, encoding, size, first values */
/* clang-format off */
static const struct valid_case valid[] = {
    { "4", { 4, 4, 1, '+' }, "4", 1, 1, { 4 } },
    { "[4]", { 4, 4, 1, '+' }, "4", 1, 1, { 4 } },
    { "1", { 1, 1, 1, '+' }, "1", 1, 1, { 1 } },
    { "1-8", { 1, 8, 1, '+' }, "1-8", 8, 6, { 1, 2, 3, 4, 5, 6 } },
    { "1-8:1", { 1, 8, 1, '+' }, "1-8", 8, 6, { 1, 2, 3, 4, 5, 6 } },
    { "1-8:1:+", { 1, 8, 1, '+' }, "1-8", 8, 6, { 1, 2, 3, 4, 5, 6 } },
    { "4-4", { 4, 4, 1, '+' }, "4", 1, 1, { 4 } },
    { "4-4:2:*", { 4, 4, 2, '*' }, "4-4:2:*", 1, 1, { 4 } },
    { "2+", { 2, MAXV, 1, '+' }, "2+", UINT64_MAX, 6, { 2, 3, 4, 5, 6, 7 } },
    { "[100+]", { 100, MAXV, 1, '+' }, "100+", UINT64_MAX,
      3, { 100, 101, 102 } },
    { "1-5:2", { 1, 5, 2, '+' }, "1-5:2", 3, 3, { 1, 3, 5 } },
    { "1-5:2:+", { 1, 5, 2, '+' }, "1-5:2", 3, 3, { 1, 3, 5 } },
    { "1-8:2", { 1, 8, 2, '+' }, "1-8:2", 4, 4, { 1, 3, 5, 7 } },
    { "2+:2", { 2, MAXV, 2, '+' }, "2+:2", UINT64_MAX, 3, { 2, 4, 6 } },
    { "2+:2:+", { 2, MAXV, 2, '+' }, "2+:2", UINT64_MAX, 3, { 2, 4, 6 } },
    { "2+:1:+", { 2, MAXV, 1, '+' }, "2+", UINT64_MAX, 3, { 2, 3, 4 } },
    { "2+:2:*", { 2, MAXV, 2, '*' }, "2+:2:*", UINT64_MAX,
      6, { 2, 4, 8, 16, 32, 64 } },
    { "2-64:2:*", { 2, 64, 2, '*' }, "2-64:2:*", 6,
      6, { 2, 4, 8, 16, 32, 64 } },
    { "1-8:2:*", { 1, 8, 2, '*' }, "1-8:2:*", 4, 4, { 1, 2, 4, 8 } },
    { "[1-4:2:*]", { 1, 4, 2, '*' }, "1-4:2:*", 3, 3, { 1, 2, 4 } },
    { "3-100:3:*", { 3, 100, 3, '*' }, "3-100:3:*", 4, 4, { 3, 9, 27, 81 } },
    { "2-8:2:^", { 2, 8, 2, '^' }, "2-8:2:^", 2, 2, { 2, 4 } },
    { "2-256:2:^", { 2, 256, 2, '^' }, "2-256:2:^", 4, 4, { 2, 4, 16, 256 } },
    { "2+:2:^", { 2, MAXV, 2, '^' }, "2+:2:^", UINT64_MAX,
      6, { 2, 4, 16, 256, 65536, 4294967296 } },
    { "3-1000:3:^", { 3, 1000, 3, '^' }, "3-1000:3:^", 2, 2, { 3, 27 } },
    { "2-100000:3:^", { 2, 100000, 3, '^' }, "2-100000:3:^", 3,
      3, { 2, 8, 512 } },
    { "1-9223372036854775807", { 1, MAXV, 1, '+' }, "1+", UINT64_MAX,
      3, { 1, 2, 3 } },
    /* max = RP_RANGE_MAX is "unbounded": size is UINT64_MAX */
    { "9223372036854775807", { MAXV, MAXV, 1, '+' },
      "9223372036854775807", UINT64_MAX, 1, { MAXV } },
    { "9223372036854775807+", { MAXV, MAXV, 1, '+' },
      "9223372036854775807", UINT64_MAX, 1, { MAXV } },
    { "1+:9223372036854775807", { 1, MAXV, MAXV, '+' },
      "1+:9223372036854775807", UINT64_MAX, 1, { 1 } },
    { "1-9223372036854775806", { 1, MAXV - 1, 1, '+' },
      "1-9223372036854775806", MAXV - 1, 2, { 1, 2 } },
    { "10-20:10", { 10, 20, 10, '+' }, "10-20:10", 2, 2, { 10, 20 } },
};
/* clang-format on */

struct invalid_case {
    const char *s;
    int errnum;
    const char *text;
};

static const struct invalid_case invalid[] = {
    { "", EINVAL, "range: \"\": empty string" },
    { "[]", EINVAL, "range: \"[]\": expected a number at offset 1" },
    { "[", EINVAL, "range: \"[\": expected a number at offset 1" },
    { " 4", EINVAL, "range: \" 4\": expected a number at offset 0" },
    { "4 ", EINVAL, "range: \"4 \": unexpected character ' ' at offset 1" },
    { "1 - 4", EINVAL,
      "range: \"1 - 4\": unexpected character ' ' at offset 1" },
    { "01", EINVAL, "range: \"01\": leading zero at offset 0" },
    { "1-08", EINVAL, "range: \"1-08\": leading zero at offset 2" },
    { "1-8:02", EINVAL, "range: \"1-8:02\": leading zero at offset 4" },
    { "00", EINVAL, "range: \"00\": leading zero at offset 0" },
    { "0", EINVAL, "range: \"0\": min must be >= 1" },
    { "0-4", EINVAL, "range: \"0-4\": min must be >= 1" },
    { "0+", EINVAL, "range: \"0+\": min must be >= 1" },
    { "1-0", EINVAL, "range: \"1-0\": max must be >= min" },
    { "4-2", EINVAL, "range: \"4-2\": max must be >= min" },
    { "2-8:0", EINVAL, "range: \"2-8:0\": operand must be >= 1" },
    { "2+:0:*", EINVAL, "range: \"2+:0:*\": operand must be >= 1" },
    { "1-8:1:*", EINVAL,
      "range: \"1-8:1:*\": operand must be >= 2 for operator '*'" },
    { "2-8:1:^", EINVAL,
      "range: \"2-8:1:^\": operand must be >= 2 for operator '^'" },
    { "1-8:2:^", EINVAL,
      "range: \"1-8:2:^\": min must be >= 2 for operator '^'" },
    { "1-8:2:/", EINVAL,
      "range: \"1-8:2:/\": unknown operator '/' at offset 6" },
    { "1-8:2:x", EINVAL,
      "range: \"1-8:2:x\": unknown operator 'x' at offset 6" },
    { "1-8:2:'*'", EINVAL,
      "range: \"1-8:2:'*'\": unknown operator ''' at offset 6" },
    { "1-8:2:", EINVAL, "range: \"1-8:2:\": expected an operator at offset 6" },
    { "[1-8:2:]", EINVAL,
      "range: \"[1-8:2:]\": expected an operator at offset 7" },
    { "1-8:2:**", EINVAL,
      "range: \"1-8:2:**\": unexpected character '*' at offset 7" },
    { "1-8:2:*x", EINVAL,
      "range: \"1-8:2:*x\": unexpected character 'x' at offset 7" },
    { "1-8:2:*:", EINVAL,
      "range: \"1-8:2:*:\": unexpected character ':' at offset 7" },
    { "1-8:", EINVAL, "range: \"1-8:\": expected a number at offset 4" },
    { "1-8::*", EINVAL, "range: \"1-8::*\": expected a number at offset 4" },
    { "1-", EINVAL, "range: \"1-\": expected a number at offset 2" },
    { "1-+", EINVAL, "range: \"1-+\": expected a number at offset 2" },
    { "-1", EINVAL, "range: \"-1\": expected a number at offset 0" },
    { "+1", EINVAL, "range: \"+1\": expected a number at offset 0" },
    { "1+4", EINVAL, "range: \"1+4\": unexpected character '4' at offset 2" },
    { "1+-4", EINVAL, "range: \"1+-4\": unexpected character '-' at offset 2" },
    { "1-4+", EINVAL, "range: \"1-4+\": unexpected character '+' at offset 3" },
    { "1-4-8", EINVAL,
      "range: \"1-4-8\": unexpected character '-' at offset 3" },
    { "4:2", EINVAL,
      "range: \"4:2\": expected '-' or '+' before ':' at offset 1" },
    { "4:2:*", EINVAL,
      "range: \"4:2:*\": expected '-' or '+' before ':' at offset 1" },
    { "4x", EINVAL, "range: \"4x\": unexpected character 'x' at offset 1" },
    { "1,2", EINVAL, "range: \"1,2\": unexpected character ',' at offset 1" },
    { "1.5", EINVAL, "range: \"1.5\": unexpected character '.' at offset 1" },
    { "[1-4", EINVAL, "range: \"[1-4\": missing ']' at offset 4" },
    { "[1", EINVAL, "range: \"[1\": missing ']' at offset 2" },
    { "[1+:2:*", EINVAL, "range: \"[1+:2:*\": missing ']' at offset 7" },
    { "1-4]", EINVAL, "range: \"1-4]\": unexpected character ']' at offset 3" },
    { "[1-4]]", EINVAL,
      "range: \"[1-4]]\": unexpected character ']' at offset 5" },
    { "[1-4]x", EINVAL,
      "range: \"[1-4]x\": unexpected character 'x' at offset 5" },
    { "[[1-4]]", EINVAL, "range: \"[[1-4]]\": expected a number at offset 1" },
    { "[1-4:2:*x]", EINVAL,
      "range: \"[1-4:2:*x]\": unexpected character 'x' at offset 8" },
    { "[1-4:2x]", EINVAL,
      "range: \"[1-4:2x]\": unexpected character 'x' at offset 6" },
    { "1\t", EINVAL,
      "range: \"1?\": unexpected character '\\x09' at offset 1" },
    { "1-8:2:\xff", EINVAL,
      "range: \"1-8:2:?\": unknown operator '\\xff' at offset 6" },
    { "9223372036854775808", ERANGE,
      "range: \"9223372036854775808\": number at offset 0 is larger than "
      "9223372036854775807" },
    { "18446744073709551616", ERANGE,
      "range: \"18446744073709551616\": number at offset 0 is larger than "
      "9223372036854775807" },
    { "1-99999999999999999999", ERANGE,
      "range: \"1-99999999999999999999\": number at offset 2 is larger than "
      "9223372036854775807" },
    { "1+:9223372036854775808:*", ERANGE,
      "range: \"1+:9223372036854775808:*\": number at offset 3 is larger "
      "than 9223372036854775807" },
    /* 64 bytes shown, then "..." */
    { "1-2xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxyyy",
      EINVAL,
      "range: \"1-2xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...\": unexpected character 'x' at "
      "offset 3" },
    /* exactly 64 bytes: shown whole */
    { "1-2xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
      EINVAL,
      "range: \"1-2xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
      "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\": unexpected character 'x' at offset "
      "3" },
};

static const struct rp_range sentinel = { 77, 88, 99, '^' };

static bool range_eq (const struct rp_range *a, const struct rp_range *b)
{
    return a->min == b->min && a->max == b->max && a->operand == b->operand
           && a->op == b->op;
}

static void check_values (const struct valid_case *c, const struct rp_range *r)
{
    uint64_t v = 0;
    int n = 0;
    bool more = rp_range_first (r, &v);
    bool match = true;

    for (; more && n < c->nvals; n++, more = rp_range_next (r, &v))
        if (v != c->vals[n])
            match = false;
    if (n < c->nvals || (c->size == (uint64_t)c->nvals && more))
        match = false;
    ok (match, "%s: first values", c->s);
    ok (rp_range_size (r) == c->size, "%s: size %llu", c->s,
        (unsigned long long)rp_range_size (r));
}

static void test_valid (void)
{
    for (size_t i = 0; i < sizeof (valid) / sizeof (valid[0]); i++) {
        const struct valid_case *c = &valid[i];
        struct rp_range r, r2;
        rp_error_t e = { .text = "untouched" };
        char *s;

        errno = 0;
        if (!ok (rp_range_decode (c->s, &r, &e) == 0, "decode %s", c->s)) {
            diag ("%s", e.text);
            continue;
        }
        is (e.text, "untouched", "%s: error untouched on success", c->s);
        ok (range_eq (&r, &c->r), "%s: fields %llu %llu %llu '%c'", c->s,
            (unsigned long long)r.min, (unsigned long long)r.max,
            (unsigned long long)r.operand, r.op);
        ok (rp_range_check (&r, NULL) == 0, "%s: check passes", c->s);
        s = rp_range_encode (&r);
        is (s, c->encoded, "%s: encodes as %s", c->s, c->encoded);
        ok (s && rp_range_decode (s, &r2, NULL) == 0 && range_eq (&r, &r2),
            "%s: encoding decodes to the same range", c->s);
        free (s);
        check_values (c, &r);
    }
}

/* s with bytes outside printable ASCII as '?', to keep the TAP log text. */
static const char *printable (const char *s, char *buf, size_t size)
{
    size_t i;
    for (i = 0; s[i] && i < size - 1; i++)
        buf[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
    buf[i] = '\0';
    return buf;
}

static void test_invalid (void)
{
    for (size_t i = 0; i < sizeof (invalid) / sizeof (invalid[0]); i++) {
        const struct invalid_case *c = &invalid[i];
        struct rp_range r = sentinel;
        rp_error_t e = { .text = "" };
        char buf[128];
        const char *name = printable (c->s, buf, sizeof (buf));

        errno = 0;
        ok (rp_range_decode (c->s, &r, &e) < 0 && errno == c->errnum,
            "decode \"%s\" fails with %s", name,
            c->errnum == ERANGE ? "ERANGE" : "EINVAL");
        is (e.text, c->text, "decode \"%s\": message", name);
        ok (range_eq (&r, &sentinel), "decode \"%s\": r untouched", name);
        errno = 0;
        ok (rp_range_decode (c->s, &r, NULL) < 0 && errno == c->errnum,
            "decode \"%s\" with NULL error fails too", name);
    }
}

static void test_args (void)
{
    struct rp_range r = sentinel;
    rp_error_t e;
    uint64_t v = 5;

    errno = 0;
    ok (rp_range_decode (NULL, &r, &e) < 0 && errno == EINVAL,
        "decode (NULL) fails with EINVAL");
    is (e.text, "range: invalid argument", "decode (NULL): message");
    errno = 0;
    ok (rp_range_decode ("4", NULL, &e) < 0 && errno == EINVAL,
        "decode (s, NULL) fails with EINVAL");
    errno = 0;
    ok (rp_range_check (NULL, &e) < 0 && errno == EINVAL,
        "check (NULL) fails with EINVAL");
    errno = 0;
    ok (rp_range_encode (NULL) == NULL && errno == EINVAL,
        "encode (NULL) fails with EINVAL");
    ok (!rp_range_first (NULL, &v) && v == 5, "first (NULL) is false");
    ok (!rp_range_next (NULL, &v) && v == 5, "next (NULL) is false");
    ok (!rp_range_contains (NULL, 5), "contains (NULL) is false");
    ok (!rp_range_largest (NULL, 5, &v) && v == 5, "largest (NULL) is false");
    ok (rp_range_size (NULL) == 0, "size (NULL) is 0");
}

struct check_case {
    struct rp_range r;
    int errnum;
    const char *text;
};

static const struct check_case checks[] = {
    { { 0, 4, 1, '+' }, EINVAL, "min must be >= 1" },
    { { 4, 3, 1, '+' }, EINVAL, "max must be >= min" },
    { { 1, 4, 0, '+' }, EINVAL, "operand must be >= 1" },
    { { 1, 4, 1, '*' }, EINVAL, "operand must be >= 2 for operator '*'" },
    { { 2, 4, 1, '^' }, EINVAL, "operand must be >= 2 for operator '^'" },
    { { 1, 4, 2, '^' }, EINVAL, "min must be >= 2 for operator '^'" },
    { { 1, 4, 2, '/' }, EINVAL, "unknown operator '/'" },
    { { 1, 4, 2, 0 }, EINVAL, "unknown operator '\\x00'" },
    { { MAXV + 1, MAXV + 1, 1, '+' },
      ERANGE,
      "min must be <= 9223372036854775807" },
    { { 1, UINT64_MAX, 1, '+' }, ERANGE, "max must be <= 9223372036854775807" },
    { { 1, 4, MAXV + 1, '+' },
      ERANGE,
      "operand must be <= 9223372036854775807" },
};

static void test_check (void)
{
    for (size_t i = 0; i < sizeof (checks) / sizeof (checks[0]); i++) {
        const struct check_case *c = &checks[i];
        rp_error_t e = { .text = "" };
        uint64_t v = 42;

        errno = 0;
        ok (rp_range_check (&c->r, &e) < 0 && errno == c->errnum,
            "check fails: %s", c->text);
        is (e.text, c->text, "check message: %s", c->text);
        errno = 0;
        ok (rp_range_encode (&c->r) == NULL && errno == EINVAL,
            "encode fails with EINVAL: %s", c->text);
        ok (!rp_range_first (&c->r, &v) && !rp_range_next (&c->r, &v)
                && !rp_range_largest (&c->r, 10, &v) && v == 42,
            "first, next, largest refuse: %s", c->text);
        ok (!rp_range_contains (&c->r, 4) && rp_range_size (&c->r) == 0,
            "contains, size refuse: %s", c->text);
    }
}

/* Brute force: the values of r that are <= limit, by iteration. */
static int brute_values (const struct rp_range *r, uint64_t limit,
                         uint64_t *vals, int nmax, bool *complete)
{
    uint64_t v;
    int n = 0;
    bool more;

    for (more = rp_range_first (r, &v); more && v <= limit && n < nmax;
         more = rp_range_next (r, &v))
        vals[n++] = v;
    *complete = !more || v > limit;
    return n;
}

static bool agrees (const struct rp_range *r, uint64_t limit)
{
    uint64_t vals[64];
    bool complete;
    int n = brute_values (r, limit, vals, 64, &complete);
    int k = 0;

    if (!complete)
        return false;
    for (uint64_t x = 0; x <= limit; x++) {
        uint64_t got;
        bool in = k < n && vals[k] == x;
        bool has = rp_range_largest (r, x, &got);
        if (in)
            k++;
        if (rp_range_contains (r, x) != in)
            return false;
        if (has != (k > 0) || (has && got != vals[k - 1]))
            return false;
    }
    if (r->max != RP_RANGE_UNBOUNDED && r->max <= limit)
        return rp_range_size (r) == (uint64_t)n;
    return true;
}

/* Every small range: contains, largest and size agree with iteration. */
static void test_brute_force (void)
{
    const char ops[] = "+*^";
    uint64_t maxes[] = { 1, 2, 3, 5, 8, 9, 16, 27, 30, RP_RANGE_UNBOUNDED };
    int checked = 0, bad = 0;

    for (int o = 0; o < 3; o++)
        for (uint64_t min = 1; min <= 9; min++)
            for (size_t m = 0; m < sizeof (maxes) / sizeof (maxes[0]); m++)
                for (uint64_t operand = 1; operand <= 5; operand++) {
                    struct rp_range r = { min, maxes[m], operand, ops[o] };
                    if (rp_range_check (&r, NULL) < 0)
                        continue;
                    checked++;
                    if (!agrees (&r, 40)) {
                        bad++;
                        diag ("disagree: %llu %llu %llu %c",
                              (unsigned long long)min,
                              (unsigned long long)maxes[m],
                              (unsigned long long)operand, ops[o]);
                    }
                }
    ok (checked > 700 && bad == 0,
        "contains/largest/size agree with iteration on %d ranges", checked);
}

static int count_values (const char *s, uint64_t *last)
{
    struct rp_range r;
    uint64_t v;
    int n = 0;

    if (rp_range_decode (s, &r, NULL) < 0)
        return -1;
    for (bool more = rp_range_first (&r, &v); more && n < 1000;
         more = rp_range_next (&r, &v)) {
        *last = v;
        n++;
    }
    return n;
}

/* Iteration near RP_RANGE_MAX ends without overflow. */
static void test_overflow (void)
{
    uint64_t last = 0;

    ok (count_values ("2+:2:*", &last) == 62 && last == UINT64_C (1) << 62,
        "2+:2:* ends at 2^62 after 62 values");
    ok (count_values ("3+:2:*", &last) == 62 && last == UINT64_C (3) << 61,
        "3+:2:* ends at 3*2^61");
    ok (count_values ("2+:2:^", &last) == 6 && last == UINT64_C (1) << 32,
        "2+:2:^ ends at 2^32");
    ok (count_values ("2+:62:^", &last) == 2 && last == UINT64_C (1) << 62,
        "2+:62:^ is 2, 2^62");
    ok (count_values ("2+:63:^", &last) == 1 && last == 2,
        "2+:63:^ is only 2 (2^63 > max)");
    ok (count_values ("3037000499+:2:^", &last) == 2
            && last == UINT64_C (9223372030926249001),
        "3037000499+:2:^ is min and min^2");
    ok (count_values ("3037000500+:2:^", &last) == 1,
        "3037000500+:2:^ is min only (min^2 > max)");
    ok (count_values ("9223372036854775807+", &last) == 1 && last == MAXV,
        "9223372036854775807+ is one value");
    ok (count_values ("9223372036854775806+", &last) == 2 && last == MAXV,
        "9223372036854775806+ ends at RP_RANGE_MAX");
    ok (count_values ("1+:9223372036854775807", &last) == 1 && last == 1,
        "1+:9223372036854775807 is only 1");
    ok (count_values ("2+:9223372036854775807:*", &last) == 1 && last == 2,
        "2+:9223372036854775807:* is only 2");
    ok (count_values ("2+:9223372036854775807:^", &last) == 1 && last == 2,
        "2+:9223372036854775807:^ is only 2");
    ok (count_values ("4611686018427387904-9223372036854775807:2:*", &last) == 1
            && last == UINT64_C (1) << 62,
        "2^62 * 2 is not reached");
}

static void test_next_untouched (void)
{
    struct rp_range r;
    uint64_t v = 8;

    rp_range_decode ("1-8:2:*", &r, NULL);
    ok (!rp_range_next (&r, &v) && v == 8, "next after max: false, v kept");
    v = 100;
    ok (!rp_range_next (&r, &v) && v == 100, "next above max: false, v kept");
    v = 3;
    ok (rp_range_next (&r, &v) && v == 6, "next applies the operator");
    rp_range_decode ("2+:2:^", &r, NULL);
    v = 1;
    ok (!rp_range_next (&r, &v) && v == 1, "'^' next of 1 does not loop");
    v = 0;
    ok (!rp_range_next (&r, &v) && v == 0, "'^' next of 0 does not loop");
    rp_range_decode ("1+:2:*", &r, NULL);
    v = 0;
    ok (!rp_range_next (&r, &v) && v == 0, "'*' next of 0 does not loop");
}

/* contains and largest on huge values: closed form / O(log); a loop over
 * max / operand steps would not finish. */
static void test_large_queries (void)
{
    struct rp_range r;
    uint64_t v = 0;

    rp_range_decode ("1+", &r, NULL);
    ok (rp_range_contains (&r, MAXV), "1+ contains RP_RANGE_MAX");
    ok (!rp_range_contains (&r, MAXV + 1), "1+ does not contain 2^63");
    ok (!rp_range_contains (&r, UINT64_MAX), "1+ does not contain 2^64-1");
    ok (!rp_range_contains (&r, 0), "1+ does not contain 0");
    ok (rp_range_largest (&r, UINT64_MAX, &v) && v == MAXV,
        "1+ largest <= 2^64-1 is RP_RANGE_MAX");
    rp_range_decode ("1+:2", &r, NULL);
    ok (rp_range_contains (&r, MAXV), "1+:2 contains RP_RANGE_MAX (odd)");
    ok (!rp_range_contains (&r, MAXV - 1), "1+:2 does not contain 2^63-2");
    ok (rp_range_largest (&r, MAXV - 1, &v) && v == MAXV - 2,
        "1+:2 largest <= 2^63-2 is 2^63-3");
    rp_range_decode ("3+:2:*", &r, NULL);
    ok (rp_range_contains (&r, UINT64_C (3) << 61), "3+:2:* contains 3*2^61");
    ok (!rp_range_contains (&r, (UINT64_C (3) << 61) + 3),
        "3+:2:* does not contain 3*2^61+3");
    ok (!rp_range_contains (&r, UINT64_C (1) << 62),
        "3+:2:* does not contain 2^62");
    ok (rp_range_largest (&r, UINT64_MAX, &v) && v == UINT64_C (3) << 61,
        "3+:2:* largest is 3*2^61");
    rp_range_decode ("2+:2:^", &r, NULL);
    ok (rp_range_contains (&r, UINT64_C (1) << 32), "2+:2:^ contains 2^32");
    ok (!rp_range_contains (&r, UINT64_C (1) << 62),
        "2+:2:^ does not contain 2^62");
    ok (rp_range_largest (&r, UINT64_MAX, &v) && v == UINT64_C (1) << 32,
        "2+:2:^ largest is 2^32");
    ok (!rp_range_largest (&r, 1, &v) && v == UINT64_C (1) << 32,
        "largest below min: false, v kept");
    rp_range_decode ("2-9223372036854775806:2:*", &r, NULL);
    ok (rp_range_size (&r) == 62, "2-(2^63-2):2:* has 62 values");
    rp_range_decode ("1-9223372036854775806", &r, NULL);
    ok (rp_range_size (&r) == MAXV - 1, "1-(2^63-2) has 2^63-2 values");
}

/* Structs built by hand encode in the shortest form. */
static void test_encode_struct (void)
{
    struct {
        struct rp_range r;
        const char *s;
    } t[] = {
        { { 5, 5, 1, '+' }, "5" },
        { { 5, 5, 3, '+' }, "5-5:3" },
        { { 5, 9, 1, '+' }, "5-9" },
        { { 5, MAXV, 1, '+' }, "5+" },
        { { 5, MAXV, 3, '+' }, "5+:3" },
        { { 5, MAXV, 3, '*' }, "5+:3:*" },
        { { 5, 90, 3, '^' }, "5-90:3:^" },
        { { MAXV, MAXV, MAXV, '*' },
          "9223372036854775807+:9223372036854775807:*" },
    };
    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        char *s = rp_range_encode (&t[i].r);
        is (s, t[i].s, "encode struct as %s", t[i].s);
        free (s);
    }
}

int main (void)
{
    plan (NO_PLAN);
    test_valid ();
    test_invalid ();
    test_args ();
    test_check ();
    test_brute_force ();
    test_overflow ();
    test_next_untouched ();
    test_large_queries ();
    test_encode_struct ();
    return done_testing ();
}
