/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: what the matcher gives an R (core/rset.c) that
 * the public API does not.
 */
#ifndef RESPOL_RSET_PRIVATE_H
#define RESPOL_RSET_PRIVATE_H

#include <stdatomic.h>

#include <respol/rset.h>

/* Set r's scheduling key to text (taken, also on failure): a JSON object
 * written as json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS) would write
 * it, which rp_rset_encode copies as it is; rp_rset_scheduling parses it
 * the first time it is asked for.  Returns 0, or -1 with EINVAL. */
int rset_set_scheduling_text (struct rp_rset *r, char *text);

/* rp_rset_create, in a block with room for the children record of the
 * first target that rset_add_target_empty makes: a set of one target
 * (a job's R on one node) is one allocation.  The record is shared as any
 * other (a copy of the set refers to it); the block is freed with the
 * set or its record's last reference, whichever comes last.
 *
 * mem NULL: the block is allocated.  Else the set is made at mem
 * (rset_one_size bytes, aligned as malloc aligns) inside another's
 * block, a malloc'd block that begins with its count of references: the
 * set takes one, drops it when the set and its record are done with, and
 * the last reference frees block (a job record and the R allocate
 * returns, one allocation). */
struct rp_rset *rset_create_one (void *mem, atomic_size_t *block);
size_t rset_one_size (void);

/* What rp_rset_add_target checks of a host name: 0, or -1 with the
 * error set. */
int rset_host_check (const char *name, rp_error_t *error);

/* rp_rset_add_target for a host name rset_host_check passed, with empty
 * cores and gpus that the caller fills: *cores and *gpus are r's, borrowed
 * until r changes, and nothing else shares them until then. */
int rset_add_target_empty (struct rp_rset *r, unsigned int rank,
                           const char *hostname, struct rp_idset **cores,
                           struct rp_idset **gpus, rp_error_t *error);

/* rset_add_target_empty appended after r's targets whatever its rank, for
 * a caller that knows r has no target of that rank: when it is below the
 * last one's, r's targets are out of rank order until rset_sort_targets,
 * and only rset_push_target_empty, rset_sort_targets and rp_rset_destroy
 * may be called on r until then. */
int rset_push_target_empty (struct rp_rset *r, unsigned int rank,
                            const char *hostname, struct rp_idset **cores,
                            struct rp_idset **gpus, rp_error_t *error);
void rset_sort_targets (struct rp_rset *r);

/* rp_idset_add_range for the idsets of rset_add_target_empty: the first
 * range of an empty set written in place. */
int rset_ids_add_range (struct rp_idset *ids, unsigned int lo,
                        unsigned int hi);

/* Target i of r (0 <= i < rp_rset_ntargets, in rank order), borrowed
 * until r changes: its rank, host name, cores and GPUs.  False past the
 * end. */
bool rset_target_at (const struct rp_rset *r, size_t i, unsigned int *rank,
                     const char **host, const struct rp_idset **cores,
                     const struct rp_idset **gpus);

/* What R_lite names, before R is expanded into targets: 0 to go on, or -1
 * with the error set. */
typedef int (*rset_size_check_f) (size_t targets, uint64_t cores,
                                  uint64_t gpus, void *arg,
                                  rp_error_t *error);

/* rp_rset_decode, with check (when not NULL) called once R_lite is read
 * and before it is expanded (rp_rset_size_json's counts).  Caller must
 * destroy the result. */
struct rp_rset *rset_decode_checked (const char *s, rset_size_check_f check,
                                     void *arg, rp_error_t *error);

/* The reader of the text alone: R, or NULL for text that it does not read
 * (not plain, see core/jscan.h) or that is not valid R, error then
 * unspecified. */
struct rp_rset *rset_decode_text (const char *s, rset_size_check_f check,
                                  void *arg, rp_error_t *error);

/* The same through jansson's tree of the whole text: what
 * rset_decode_checked falls back on to word an error, and what the tests
 * compare it with. */
struct rp_rset *rset_decode_tree (const char *s, rset_size_check_f check,
                                  void *arg, rp_error_t *error);

#endif
