/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Idsets: sets of non-negative integer ids (RFC 22).
 *
 * An idset is stored as a sorted array of disjoint, non-adjacent ranges, so
 * every operation costs in the number of ranges (R), never in the largest id
 * or in the number of members:  test, add, remove, next: O(log R) plus the
 * shift of the range array for add/remove; union, intersect, difference,
 * equal, subset: O(R1 + R2); count, min, max: O(1).
 *
 * Ids are unsigned int in [0, RP_IDSET_MAX_ID].  RP_IDSET_INVALID_ID marks
 * "no id" (end of iteration, empty set).  A larger id is an error (ERANGE).
 *
 * String form (RFC 22), accepted by rp_idset_decode():
 *   "1,2,3,5,6,42"  "1-3,5-6,42"  "[1-3,5-6,42]"  ""  "[]"
 * respol is strict where RFC 22 is strict and documents each leniency in
 * doc/conformance.md:
 *   - ids must be ascending and unique across the string ("3,2" and "1-3,2"
 *     are errors: "ids not ascending at offset N");
 *   - a range lo-hi needs lo <= hi; "3-3" is accepted and means "3";
 *   - leading zeros are an error ("01"), but "0" is fine;
 *   - empty elements are errors ("1,,2", ",", "1,");
 *   - leading and trailing white space around the whole string is ignored;
 *     any other character is an error;
 *   - "" and "[]" decode to the empty set.
 *
 * Ownership: functions returning struct rp_idset * or char * return a new
 * object the caller must destroy (rp_idset_destroy) or free (free(3)).
 * Functions that fail return NULL or -1 and set errno; they leave their
 * arguments unchanged.
 */
#ifndef RESPOL_IDSET_H
#define RESPOL_IDSET_H

#include <stdbool.h>
#include <stddef.h>

#include <respol/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RP_IDSET_MAX_ID 4294967294U     /* 2^32 - 2 */
#define RP_IDSET_INVALID_ID 4294967295U /* 2^32 - 1 */

/* Encoding flags for rp_idset_encode(). */
enum {
    RP_IDSET_RANGES = 1,   /* compress consecutive ids: "1-3" not "1,2,3" */
    RP_IDSET_BRACKETS = 2, /* surround with [] when there is more than one id */
};

struct rp_idset;

/* Create an empty idset.  Caller must destroy. */
struct rp_idset *rp_idset_create (void);

/* Destroy.  Accepts NULL, keeps errno. */
void rp_idset_destroy (struct rp_idset *set);

/* Deep copy.  Caller must destroy. */
struct rp_idset *rp_idset_copy (const struct rp_idset *set);

/* Parse an RFC 22 string.  On failure returns NULL, sets errno (EINVAL for
 * syntax, ERANGE for an id above RP_IDSET_MAX_ID) and fills error with e.g.
 *   idset: "3,2": ids not ascending at offset 2
 * Caller must destroy. */
struct rp_idset *rp_idset_decode (const char *s, rp_error_t *error);

/* Same for the first len bytes of s (s need not be NUL terminated). */
struct rp_idset *rp_idset_ndecode (const char *s, size_t len,
                                   rp_error_t *error);

/* Encode as a string using RP_IDSET_* flags.  With flags == 0 every id is
 * listed ("1,2,3").  The empty set encodes as "".  Caller must free.
 * Cost is proportional to the output, so a flags == 0 encoding of a huge
 * range is huge: callers printing for humans use RP_IDSET_RANGES. */
char *rp_idset_encode (const struct rp_idset *set, int flags);

/* Add or remove one id or the inclusive range [lo, hi] (lo <= hi).
 * Adding an id already present or removing one absent is not an error.
 * Returns 0, or -1 with errno EINVAL (bad argument, lo > hi) or ERANGE. */
int rp_idset_add (struct rp_idset *set, unsigned int id);
int rp_idset_add_range (struct rp_idset *set, unsigned int lo,
                        unsigned int hi);
int rp_idset_remove (struct rp_idset *set, unsigned int id);
int rp_idset_remove_range (struct rp_idset *set, unsigned int lo,
                           unsigned int hi);

/* In place: set = set | other, set = set - other.  0 or -1 (ENOMEM). */
int rp_idset_add_set (struct rp_idset *set, const struct rp_idset *other);
int rp_idset_subtract (struct rp_idset *set, const struct rp_idset *other);

bool rp_idset_test (const struct rp_idset *set, unsigned int id);

/* Smallest member, or RP_IDSET_INVALID_ID when empty. */
unsigned int rp_idset_first (const struct rp_idset *set);
/* Smallest member greater than prev, or RP_IDSET_INVALID_ID.  Stateless:
 * for (id = rp_idset_first (s); id != RP_IDSET_INVALID_ID;
 *      id = rp_idset_next (s, id)) */
unsigned int rp_idset_next (const struct rp_idset *set, unsigned int prev);

/* Number of members (up to 2^32 - 1). */
size_t rp_idset_count (const struct rp_idset *set);
bool rp_idset_empty (const struct rp_idset *set);
/* RP_IDSET_INVALID_ID when empty. */
unsigned int rp_idset_min (const struct rp_idset *set);
unsigned int rp_idset_max (const struct rp_idset *set);

/* The n-th smallest member (n from 0), or RP_IDSET_INVALID_ID when
 * n >= count.  O(R).  */
unsigned int rp_idset_nth (const struct rp_idset *set, size_t n);

/* Ranges: the set is the disjoint union of rp_idset_range_count() ranges,
 * in ascending order, none adjacent.  rp_idset_range() stores range i in
 * *lo, *hi and returns true, or returns false if i is out of range. */
size_t rp_idset_range_count (const struct rp_idset *set);
bool rp_idset_range (const struct rp_idset *set, size_t i, unsigned int *lo,
                     unsigned int *hi);

/* New sets.  Caller must destroy.  NULL with errno on failure. */
struct rp_idset *rp_idset_union (const struct rp_idset *a,
                                 const struct rp_idset *b);
struct rp_idset *rp_idset_intersect (const struct rp_idset *a,
                                     const struct rp_idset *b);
struct rp_idset *rp_idset_difference (const struct rp_idset *a,
                                      const struct rp_idset *b);

bool rp_idset_equal (const struct rp_idset *a, const struct rp_idset *b);
/* True when every member of a is in b (the empty set is a subset of all). */
bool rp_idset_is_subset (const struct rp_idset *a, const struct rp_idset *b);
/* True when a and b share a member. */
bool rp_idset_intersects (const struct rp_idset *a, const struct rp_idset *b);

#ifdef __cplusplus
}
#endif
#endif
