/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Hostlists: ordered lists of host names in the compact form of RFC 29,
 * e.g. "node[0-15,20],login1".
 *
 * A hostlist keeps its order and its duplicates.  It is stored as runs of
 * (prefix, numeric range, zero-padding width, suffix), so a list like
 * "node[0-16383]" costs one run, not 16384 strings.  Indexing (nth) is
 * O(log runs); find is O(d log R) after a lazily built index over the runs
 * (R runs, d digit groups in the name looked up); delete and the set
 * operations cost in runs, never in hosts; decode and encode are O(H) in
 * the worst case (H hosts written out one by one).
 *
 * Bound: a hostlist holds at most RP_HOSTLIST_MAX_HOSTS hosts.  Decoding or
 * appending beyond it fails with EOVERFLOW ("hostlist: ... expands past
 * 16777216 hosts") and allocates nothing in proportion to the range width.
 * A host name is at most RP_HOSTLIST_MAX_NAME bytes.
 *
 * Encoding compresses runs of hosts that share a prefix, suffix and
 * zero-padding width and whose numbers ascend consecutively into one
 * bracketed range, keeping order: "n1,n2,n3,m1,n4" -> "n[1-3],m1,n4".
 *
 * Ownership: functions returning struct rp_hostlist * or char * return new
 * objects the caller must destroy (rp_hostlist_destroy) or free (free(3)).
 * Failing functions leave their arguments unchanged.
 */
#ifndef RESPOL_HOSTLIST_H
#define RESPOL_HOSTLIST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <respol/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RP_HOSTLIST_MAX_HOSTS 16777216U /* 2^24 */
#define RP_HOSTLIST_MAX_NAME 255

struct rp_hostlist;

/* Empty hostlist.  Caller must destroy. */
struct rp_hostlist *rp_hostlist_create (void);
/* Accepts NULL, keeps errno. */
void rp_hostlist_destroy (struct rp_hostlist *hl);
struct rp_hostlist *rp_hostlist_copy (const struct rp_hostlist *hl);

/* Parse an RFC 29 string ("" is the empty list).  On failure returns NULL,
 * sets errno and fills error, e.g.
 *   hostlist: "foo[1-": missing ']' at offset 6
 * Caller must destroy. */
struct rp_hostlist *rp_hostlist_decode (const char *s, rp_error_t *error);

/* Compressed RFC 29 string.  The empty list encodes as "".  Caller frees. */
char *rp_hostlist_encode (const struct rp_hostlist *hl);

/* Append the hosts of an RFC 29 string / of another list, keeping order.
 * Return the number of hosts appended, or -1 (hl unchanged). */
int rp_hostlist_append (struct rp_hostlist *hl, const char *s,
                        rp_error_t *error);
int rp_hostlist_append_list (struct rp_hostlist *hl,
                             const struct rp_hostlist *other);

size_t rp_hostlist_count (const struct rp_hostlist *hl);

/* Host at zero-based index n, as a new string the caller must free; NULL
 * with errno ENOENT when n >= count. */
char *rp_hostlist_nth (const struct rp_hostlist *hl, size_t n);

/* Copy host n into buf (size bytes, NUL terminated).  Returns 0, or -1 with
 * ENOENT (n out of range) or EOVERFLOW (buf too small).  No allocation. */
int rp_hostlist_nth_buf (const struct rp_hostlist *hl, size_t n, char *buf,
                         size_t size);

/* Zero-based index of the first occurrence of host, or -1 with errno
 * ENOENT.  host must be a single host name, not a hostlist expression.
 * Takes a const list: the lookup index is built on first use (not thread
 * safe against concurrent first use; build it with rp_hostlist_find once
 * before sharing a list between threads). */
ssize_t rp_hostlist_find (const struct rp_hostlist *hl, const char *host);

/* Remove every occurrence of each host of the RFC 29 string s.  Returns
 * the number of hosts removed, or -1 (hl unchanged). */
int rp_hostlist_delete (struct rp_hostlist *hl, const char *s,
                        rp_error_t *error);

/* Sort in place: by prefix, then suffix, then number (numerically), so
 * "n10" sorts after "n9".  Stable for equal names.  0 or -1. */
int rp_hostlist_sort (struct rp_hostlist *hl);
/* Sort and remove duplicates.  0 or -1. */
int rp_hostlist_uniq (struct rp_hostlist *hl);

/* Set operations returning a new list.  union, intersect and xor return a
 * list sorted and without duplicates (as `flux hostlist -u/-i/-X` print
 * them); minus keeps the order and duplicates of a and drops every host
 * that occurs in b.  Caller must destroy. */
struct rp_hostlist *rp_hostlist_union (const struct rp_hostlist *a,
                                       const struct rp_hostlist *b);
struct rp_hostlist *rp_hostlist_intersect (const struct rp_hostlist *a,
                                           const struct rp_hostlist *b);
struct rp_hostlist *rp_hostlist_minus (const struct rp_hostlist *a,
                                       const struct rp_hostlist *b);
struct rp_hostlist *rp_hostlist_xor (const struct rp_hostlist *a,
                                     const struct rp_hostlist *b);

/* All hosts, expanded, joined by delim.  Caller must free. */
char *rp_hostlist_expand (const struct rp_hostlist *hl, const char *delim);

bool rp_hostlist_equal (const struct rp_hostlist *a,
                        const struct rp_hostlist *b);

/* The count hosts from zero-based index first on, as a new list that
 * spells them as hl does ("foo[0-4]-eth2" sliced from 1 for 2 is
 * "foo[1-2]-eth2").  NULL with ENOENT when first + count > count of hl.
 * O(log runs + runs in the slice).  Caller must destroy. */
struct rp_hostlist *rp_hostlist_slice (const struct rp_hostlist *hl,
                                       size_t first, size_t count);

#ifdef __cplusplus
}
#endif
#endif
