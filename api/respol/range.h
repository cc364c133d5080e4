/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Resource ranges: the RFC 14 count dictionary {min, max, operator,
 * operand} and its compact RFC 45 string form.
 *
 * String forms accepted by rp_range_decode():
 *   "N"            exactly N               (min = max = N)
 *   "N-M"          N..M step 1             (operator '+', operand 1)
 *   "N+"           N or more, step 1       (max unbounded)
 *   "N-M:S"        N..M step S             (operator '+')
 *   "N-M:S:op"     N..M by op S, op one of '+', '*', '^'
 *   "N+:S:op"      unbounded with operator
 *   any of the above inside square brackets: "[1-4:2:*]"
 *
 * Acceptable values: v0 = min, then v(k+1) = v(k) + operand ('+'),
 * v(k) * operand ('*') or v(k) ^ operand ('^'), for as long as v <= max.
 *
 * Rules (RFC 14 count dictionary), checked by rp_range_decode() and
 * rp_range_check(): min >= 1; max >= min; operand >= 1; operator '*' and
 * '^' need operand >= 2; '^' needs min >= 2.  Numbers are decimal without
 * leading zeros, at most RP_RANGE_MAX.
 *
 * struct rp_range is a plain value type, not an opaque object: it is the
 * RFC 14 dictionary itself, four scalars that jobspec code copies freely,
 * and it will never grow.  (A deliberate exception to the "every public type
 * is opaque" rule.)
 */
#ifndef RESPOL_RANGE_H
#define RESPOL_RANGE_H

#include <stdbool.h>
#include <stdint.h>

#include <respol/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest value of min, max or operand.  Also the value of max that means
 * "unbounded" (RFC 14: "the default max SHALL be infinite"). */
#define RP_RANGE_MAX UINT64_C(9223372036854775807) /* 2^63 - 1 */
#define RP_RANGE_UNBOUNDED RP_RANGE_MAX

struct rp_range {
    uint64_t min;
    uint64_t max;     /* RP_RANGE_UNBOUNDED when there is no maximum */
    uint64_t operand; /* >= 1 */
    char op;          /* '+', '*' or '^' */
};

/* Parse an RFC 45 string into *r.  On failure returns -1, sets errno
 * EINVAL (or ERANGE for a number above RP_RANGE_MAX), fills error with the
 * reason, e.g.
 *   range: "4-2": max must be >= min
 * and leaves *r untouched. */
int rp_range_decode (const char *s, struct rp_range *r, rp_error_t *error);

/* Check the RFC 14 rules listed above.  0 or -1 with the reason. */
int rp_range_check (const struct rp_range *r, rp_error_t *error);

/* Shortest RFC 45 string for r ("4", "1-8", "2+", "1-5:2", "2-64:2:*").
 * Caller must free.  NULL with errno EINVAL if r breaks the rules. */
char *rp_range_encode (const struct rp_range *r);

/* Iterate acceptable values in ascending order:
 *   for (ok = rp_range_first (r, &v); ok; ok = rp_range_next (r, &v))
 * rp_range_next() advances *v by the operator; both return false when
 * there is no (further) value, without overflowing. */
bool rp_range_first (const struct rp_range *r, uint64_t *v);
bool rp_range_next (const struct rp_range *r, uint64_t *v);

/* True when v is an acceptable value of r. */
bool rp_range_contains (const struct rp_range *r, uint64_t v);

/* Largest acceptable value <= limit, stored in *v.  Returns false when even
 * min exceeds limit.  O(log) for '*' and '^', O(1) for '+'. */
bool rp_range_largest (const struct rp_range *r, uint64_t limit,
                       uint64_t *v);

/* Number of acceptable values, saturating at UINT64_MAX for unbounded. */
uint64_t rp_range_size (const struct rp_range *r);

#ifdef __cplusplus
}
#endif
#endif
