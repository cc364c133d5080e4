/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The resource acquisition protocol (RFC 28): the stream of responses
 * through which a scheduler learns which resources exist and which it may
 * use, produced from an inventory (respol/inventory.h) and applied to a
 * matcher (respol/match.h).
 *
 * Responses (one JSON object each):
 *   initial  {"resources": R, "up": IDSET}
 *            R (RFC 20): the inventory less excluded and removed targets,
 *            with its properties and expiration as they are now; up: the
 *            targets a scheduler may allocate (not drained, not down).
 *   later    one or more of, in this order:
 *            "up", "down", "shrink": IDSET of targets changing state;
 *            every target of "shrink" is also in "down" (RFC 28: "SHALL
 *            also appear in the down key of the same response");
 *            "property-add", "property-remove": {NAME: IDSET} (RFC 20);
 *            "expiration": a real, the new expiration of the set.
 * They are written as flux-core's resource module writes them (acquire.c):
 * compact JSON, keys in the order above, "up" and "down" before
 * "shrink", R's keys in the order of flux-core's rlist_to_R (version,
 * execution: R_lite [rank, children], starttime, expiration, nodelist,
 * properties), numbers as jansson writes them.  rp_acquire_encode gives
 * those bytes.
 *
 * The producer compares what the inventory says now with what it sent
 * before, so it can follow an inventory that other processes change
 * (rp_inventory_refresh) and says each change once.  Its cost per
 * response is in the ranges of the idsets involved, not in the number of
 * targets.  A target that joins the inventory after the initial response
 * (a redefinition) is not in the stream; a target that leaves it is
 * removed (shrink); a newly excluded one goes down (as in flux-core).
 *
 * The consumer keeps a scheduler's view: a matcher whose graph is built
 * from the initial response's R (rp_graph_from_rset), whose targets are
 * set down when not up, and which then follows every response:
 *   - down, drained or removed targets are never allocated; jobs that hold
 *     them keep them (RFC 28: "the scheduler SHALL NOT raise an
 *     exception"; they are freed later);
 *   - removed targets (shrink) never come back and no longer count for
 *     satisfiability, which is decided on the full set less those;
 *   - property changes are seen by the next match's constraints;
 *   - RFC 27 hello: rp_acquire_consumer_hello reconstructs a running job's
 *     allocation from its R, also on targets that are down now.
 * A response that breaks the protocol is an error and changes nothing:
 *   "down: rank 9 is not in the resources", "up: rank 6 was removed",
 *   "rank 3 is both up and down", "unknown key 'shink'".
 * Where the RFC lets the consumer choose: shrink takes precedence over up
 * and down in the same response (RFC 28), a shrink target missing from
 * down is accepted, removing a property a target does not have changes
 * nothing.
 *
 * Ownership: constructors return objects the caller must destroy;
 * functions returning json_t * return new references; the matcher and
 * the sets returned by accessors are borrowed from the consumer.
 */
#ifndef RESPOL_ACQUIRE_H
#define RESPOL_ACQUIRE_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include <respol/error.h>
#include <respol/idset.h>
#include <respol/inventory.h>
#include <respol/match.h>
#include <respol/rset.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- producer ------------------------------------------------------------ */

struct rp_acquire_producer;

struct rp_acquire_producer *rp_acquire_producer_create (void);
void rp_acquire_producer_destroy (struct rp_acquire_producer *p);

/* The initial response for inv (borrowed), remembered as sent.  NULL with
 * ENOENT when inv has no resources, EINVAL when all are excluded or
 * removed. */
json_t *rp_acquire_producer_first (struct rp_acquire_producer *p,
                                   const struct rp_inventory *inv,
                                   rp_error_t *error);
/* The response that brings a scheduler from what was sent to what inv
 * says now: 1 and *response (new reference), 0 when nothing changed, -1
 * on error (EINVAL before the first response). */
int rp_acquire_producer_next (struct rp_acquire_producer *p,
                              const struct rp_inventory *inv, json_t **response,
                              rp_error_t *error);

/* A response as the bytes flux-core sends: compact, keys in insertion
 * order, no newline.  Caller must free. */
char *rp_acquire_encode (const json_t *response);

/* --- consumer ------------------------------------------------------------ */

struct rp_acquire_consumer;

/* A scheduler's view from the initial response (borrowed; only
 * "resources" and "up").  The matcher uses the built-in first fit until
 * rp_matcher_set_policy on rp_acquire_consumer_matcher. */
struct rp_acquire_consumer *rp_acquire_consumer_create (const json_t *initial,
                                                        rp_error_t *error);
void rp_acquire_consumer_destroy (struct rp_acquire_consumer *c);

/* Apply a later response (borrowed). */
int rp_acquire_consumer_apply (struct rp_acquire_consumer *c,
                               const json_t *response, rp_error_t *error);

/* RFC 27 hello: job jobid holds R (borrowed) less the ranks of free (may
 * be NULL: none freed yet; RFC 27 "free").  A job whose ranks are all
 * free holds nothing.  Errors name the job: "job 42: rank 7: no such
 * execution target" (rp_matcher_hello). */
int rp_acquire_consumer_hello (struct rp_acquire_consumer *c, uint64_t jobid,
                               const struct rp_rset *R,
                               const struct rp_idset *free, rp_error_t *error);

struct rp_matcher *rp_acquire_consumer_matcher (struct rp_acquire_consumer *c);
/* The resources as the responses made them (properties and expiration
 * updated; removed targets included), the targets up, the removed. */
const struct rp_rset *
rp_acquire_consumer_resources (const struct rp_acquire_consumer *c);
const struct rp_idset *
rp_acquire_consumer_up (const struct rp_acquire_consumer *c);
const struct rp_idset *
rp_acquire_consumer_removed (const struct rp_acquire_consumer *c);

#ifdef __cplusplus
}
#endif
#endif
