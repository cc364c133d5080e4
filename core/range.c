/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Resource ranges: the RFC 14 count dictionary and its RFC 45 string form.
 * See api/respol/range.h for the contract.
 *
 * Parsing is one left-to-right pass over the grammar
 *   [ "[" ] NUM [ "-" NUM | "+" ] [ ":" NUM [ ":" OP ] ] [ "]" ]
 * into a local struct, which is then checked against the RFC 14 rules and
 * copied to the caller only on success.  Decisions:
 *   - "N" alone is RFC 14's integer count: min = max = N, '+', 1.  An
 *     operand needs an explicit max or '+': "4:2" is an error.
 *   - "N+:S" (operand, no operator) means operator '+', as "N-M:S" does:
 *     RFC 45 lets '+' be omitted with its colon whatever the max.
 *   - A max of RP_RANGE_MAX is the same value as "unbounded": "1-M" with
 *     M = 2^63-1 decodes to what "1+" decodes to and encodes as "1+".
 *   - Encoding is of the dictionary, not of its value set: decode (encode
 *     (r)) == r always, so "1-8:2" stays "1-8:2" (not "1-7:2") and
 *     "4-4:2:*" is not shortened to "4".  "N-M:S:+" encodes as "N-M:S"
 *     and "N-M:1:+" as "N-M"; brackets are never emitted.
 *   - Strict lexing: no white space, no leading zeros, no sign, brackets
 *     must pair, nothing after the range.  Numbers above RP_RANGE_MAX are
 *     ERANGE, every other fault EINVAL.
 *   - Error text: range: "<input>": <reason>, with the input cut at 64
 *     bytes (then "...") and bytes outside printable ASCII shown as '?', so
 *     the message is one bounded line.  rp_range_check() gives the bare
 *     reason ("max must be >= min"), for callers that prefix a location.
 *
 * Values: iteration, contains and largest never overflow: each step is
 * tested against max (at most RP_RANGE_MAX) before it is taken, and a step
 * that would not increase the value ends the sequence.  For '*' and '^'
 * the value at least doubles per step, so their loops run at most 63
 * times; '+' is closed form.  rp_range_size() is UINT64_MAX for an
 * unbounded range although iterating one stops at RP_RANGE_MAX.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/range.h"

#define SHOW_MAX 64 /* bytes of input quoted in an error message */

struct parser {
    const char *s;
    size_t pos;
    bool bracket; /* the string opened with '[' */
    rp_error_t *error;
};

static int parse_error (struct parser *p, int errnum, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Format the reason, then prepend the (cut, sanitized) input. */
static int parse_error (struct parser *p, int errnum, const char *fmt, ...)
{
    char reason[RP_ERROR_TEXT_SIZE];
    char shown[SHOW_MAX + 1];
    size_t len = strnlen (p->s, SHOW_MAX + 1);
    size_t n = len > SHOW_MAX ? SHOW_MAX : len;
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (reason, sizeof (reason), fmt, ap);
    va_end (ap);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p->s[i];
        shown[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    shown[n] = '\0';
    return rp_error_set (p->error, errnum, "range: \"%s%s\": %s", shown,
                         len > SHOW_MAX ? "..." : "", reason);
}

/* A character for a message: 'x' or '\xNN'. */
static const char *show_char (char c, char buf[8])
{
    unsigned char u = c;
    if (u >= 0x20 && u < 0x7f)
        snprintf (buf, 8, "'%c'", c);
    else
        snprintf (buf, 8, "'\\x%02x'", u);
    return buf;
}

/* Only a bracketed string can end where more was expected. */
static int unexpected (struct parser *p)
{
    char buf[8];
    if (p->s[p->pos] == '\0')
        return parse_error (p, EINVAL, "missing ']' at offset %zu", p->pos);
    return parse_error (p, EINVAL, "unexpected character %s at offset %zu",
                        show_char (p->s[p->pos], buf), p->pos);
}

static bool is_digit (char c)
{
    return c >= '0' && c <= '9';
}

static int parse_number (struct parser *p, uint64_t *value)
{
    size_t start = p->pos;
    uint64_t v = 0;

    if (!is_digit (p->s[p->pos]))
        return parse_error (p, EINVAL, "expected a number at offset %zu",
                            p->pos);
    if (p->s[p->pos] == '0' && is_digit (p->s[p->pos + 1]))
        return parse_error (p, EINVAL, "leading zero at offset %zu", p->pos);
    while (is_digit (p->s[p->pos])) {
        uint64_t d = (uint64_t)(p->s[p->pos] - '0');
        if (v > (RP_RANGE_MAX - d) / 10)
            return parse_error (p, ERANGE,
                                "number at offset %zu is larger than %llu",
                                start, (unsigned long long)RP_RANGE_MAX);
        v = v * 10 + d;
        p->pos++;
    }
    *value = v;
    return 0;
}

static bool at_end (struct parser *p)
{
    return p->s[p->pos] == (p->bracket ? ']' : '\0');
}

/* ":" OP after the operand. */
static int parse_operator (struct parser *p, struct rp_range *r)
{
    char c = p->s[p->pos];
    char buf[8];

    if (c == '\0' || c == ']')
        return parse_error (p, EINVAL, "expected an operator at offset %zu",
                            p->pos);
    if (c != '+' && c != '*' && c != '^')
        return parse_error (p, EINVAL, "unknown operator %s at offset %zu",
                            show_char (c, buf), p->pos);
    r->op = c;
    p->pos++;
    return 0;
}

/* "-" NUM or "+" after min. */
static int parse_max (struct parser *p, struct rp_range *r)
{
    char c = p->s[p->pos];

    if (c == '-') {
        p->pos++;
        return parse_number (p, &r->max);
    }
    if (c == '+') {
        p->pos++;
        r->max = RP_RANGE_UNBOUNDED;
        return 0;
    }
    if (c == ':')
        return parse_error (
            p, EINVAL, "expected '-' or '+' before ':' at offset %zu", p->pos);
    return unexpected (p);
}

/* The max, then the optional ":" NUM [ ":" OP ]. */
static int parse_tail (struct parser *p, struct rp_range *r)
{
    if (parse_max (p, r) < 0)
        return -1;
    if (at_end (p))
        return 0;
    if (p->s[p->pos] != ':')
        return unexpected (p);
    p->pos++;
    if (parse_number (p, &r->operand) < 0)
        return -1;
    if (at_end (p))
        return 0;
    if (p->s[p->pos] != ':')
        return unexpected (p);
    p->pos++;
    return parse_operator (p, r);
}

static int parse (struct parser *p, struct rp_range *r)
{
    if (p->s[0] == '\0')
        return parse_error (p, EINVAL, "empty string");
    if (p->s[0] == '[') {
        p->bracket = true;
        p->pos++;
    }
    if (parse_number (p, &r->min) < 0)
        return -1;
    r->max = r->min;
    if (!at_end (p) && parse_tail (p, r) < 0)
        return -1;
    if (!at_end (p))
        return unexpected (p);
    if (p->bracket)
        p->pos++; /* the ']' that at_end() found */
    if (p->s[p->pos] != '\0')
        return unexpected (p);
    return 0;
}

int rp_range_decode (const char *s, struct rp_range *r, rp_error_t *error)
{
    struct rp_range tmp = { .operand = 1, .op = '+' };
    struct parser p = { .s = s, .error = error };
    rp_error_t e;

    if (!s || !r)
        return rp_error_set (error, EINVAL, "range: invalid argument");
    if (parse (&p, &tmp) < 0)
        return -1;
    if (rp_range_check (&tmp, &e) < 0)
        return parse_error (&p, errno, "%s", e.text);
    *r = tmp;
    return 0;
}

static int too_large (rp_error_t *error, const char *what)
{
    return rp_error_set (error, ERANGE, "%s must be <= %llu", what,
                         (unsigned long long)RP_RANGE_MAX);
}

int rp_range_check (const struct rp_range *r, rp_error_t *error)
{
    char buf[8];

    if (!r)
        return rp_error_set (error, EINVAL, "invalid argument");
    if (r->min > RP_RANGE_MAX)
        return too_large (error, "min");
    if (r->max > RP_RANGE_MAX)
        return too_large (error, "max");
    if (r->operand > RP_RANGE_MAX)
        return too_large (error, "operand");
    if (r->op != '+' && r->op != '*' && r->op != '^')
        return rp_error_set (error, EINVAL, "unknown operator %s",
                             show_char (r->op, buf));
    if (r->min < 1)
        return rp_error_set (error, EINVAL, "min must be >= 1");
    if (r->max < r->min)
        return rp_error_set (error, EINVAL, "max must be >= min");
    if (r->operand < 1)
        return rp_error_set (error, EINVAL, "operand must be >= 1");
    if (r->op != '+' && r->operand < 2)
        return rp_error_set (error, EINVAL,
                             "operand must be >= 2 for operator '%c'", r->op);
    if (r->op == '^' && r->min < 2)
        return rp_error_set (error, EINVAL,
                             "min must be >= 2 for operator '^'");
    return 0;
}

static bool valid (const struct rp_range *r)
{
    int saved_errno = errno;
    bool ok = rp_range_check (r, NULL) == 0;
    errno = saved_errno;
    return ok;
}

char *rp_range_encode (const struct rp_range *r)
{
    char buf[96];
    int n;

    if (!valid (r)) {
        errno = EINVAL;
        return NULL;
    }
    if (r->max == RP_RANGE_UNBOUNDED)
        n = snprintf (buf, sizeof (buf), "%llu+", (unsigned long long)r->min);
    else
        n = snprintf (buf, sizeof (buf), "%llu-%llu",
                      (unsigned long long)r->min, (unsigned long long)r->max);
    if (r->op == '+' && r->operand == 1) {
        if (r->min == r->max)
            snprintf (buf, sizeof (buf), "%llu", (unsigned long long)r->min);
    } else if (r->op == '+')
        snprintf (buf + n, sizeof (buf) - n, ":%llu",
                  (unsigned long long)r->operand);
    else
        snprintf (buf + n, sizeof (buf) - n, ":%llu:%c",
                  (unsigned long long)r->operand, r->op);
    return strdup (buf);
}

/* x^e if it is <= limit, else false.  x >= 2 and e >= 2 (checked rules),
 * so the loop ends after at most 63 multiplications. */
static bool power_le (uint64_t x, uint64_t e, uint64_t limit, uint64_t *out)
{
    uint64_t v = 1;

    for (uint64_t i = 0; i < e; i++) {
        if (v > limit / x)
            return false;
        v *= x;
    }
    *out = v;
    return true;
}

/* The value after v, if it is <= limit and > v. */
static bool step (const struct rp_range *r, uint64_t v, uint64_t limit,
                  uint64_t *out)
{
    uint64_t next;

    if (v > limit)
        return false;
    switch (r->op) {
    case '+':
        if (r->operand > limit - v)
            return false;
        next = v + r->operand;
        break;
    case '*':
        if (v > limit / r->operand)
            return false;
        next = v * r->operand;
        break;
    default:
        if (v < 2 || !power_le (v, r->operand, limit, &next))
            return false;
        break;
    }
    if (next <= v)
        return false;
    *out = next;
    return true;
}

bool rp_range_first (const struct rp_range *r, uint64_t *v)
{
    if (!v || !valid (r))
        return false;
    *v = r->min;
    return true;
}

bool rp_range_next (const struct rp_range *r, uint64_t *v)
{
    if (!v || !valid (r))
        return false;
    return step (r, *v, r->max, v);
}

bool rp_range_largest (const struct rp_range *r, uint64_t limit, uint64_t *v)
{
    uint64_t x, next;

    if (!v || !valid (r) || r->min > limit)
        return false;
    if (limit > r->max)
        limit = r->max;
    if (r->op == '+') {
        *v = r->min + (limit - r->min) / r->operand * r->operand;
        return true;
    }
    x = r->min;
    while (step (r, x, limit, &next))
        x = next;
    *v = x;
    return true;
}

bool rp_range_contains (const struct rp_range *r, uint64_t v)
{
    uint64_t largest;

    if (!rp_range_largest (r, v, &largest))
        return false;
    return largest == v;
}

uint64_t rp_range_size (const struct rp_range *r)
{
    uint64_t n = 1;
    uint64_t x, next;

    if (!valid (r))
        return 0;
    if (r->max == RP_RANGE_UNBOUNDED)
        return UINT64_MAX;
    if (r->op == '+')
        return (r->max - r->min) / r->operand + 1;
    x = r->min;
    while (step (r, x, r->max, &next)) {
        x = next;
        n++;
    }
    return n;
}
