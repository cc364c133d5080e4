/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: the pieces of the inventory (core/inventory.c)
 * that its Flux event log reader (core/inventory_flux.c) shares. */
#ifndef RESPOL_INVENTORY_PRIVATE_H
#define RESPOL_INVENTORY_PRIVATE_H

#include <stdbool.h>

#include <jansson.h>

#include "respol/error.h"
#include "respol/idset.h"
#include "respol/inventory.h"
#include "respol/rset.h"

/* The Flux overwrite levels of drain.c: 0 (default, update), 1
 * (overwrite), 2 (force-overwrite). */
int inventory_overwrite (enum rp_drain_mode mode);

/* Change the drain state in memory only, as flux-core's
 * draininfo_drain_rank / draininfo_undrain_rank do for each target of
 * ids (all targets of inv). */
int inventory_apply_drain (struct rp_inventory *inv, const struct rp_idset *ids,
                           const char *reason, int overwrite, double timestamp);
void inventory_apply_undrain (struct rp_inventory *inv,
                              const struct rp_idset *ids);

/* Log event name with context (taken) at timestamp, counted; nothing in
 * memory changes.  0 or -1. */
int inventory_log (struct rp_inventory *inv, const char *name, json_t *context,
                   double timestamp, rp_error_t *error);

/* The context {"idset": ..., "nodelist": ...} of ids. */
json_t *inventory_targets_context (const struct rp_inventory *inv,
                                   const struct rp_idset *ids);

/* Append to a one drain event per (time, reason) of the drained targets
 * of inv, in time order, each with overwrite 2 (force): what compaction
 * writes.  0 or -1 (ENOMEM). */
int inventory_drain_events (json_t *a, const struct rp_inventory *inv);

/* The rank in R of a target that had rank and host (NULL: unknown) in
 * another R: rank when R gives it that host, else the lowest rank of host
 * in R, else -1 (flux-core's add_target in drain.c). */
long inventory_rank_of_host (const struct rp_rset *R, unsigned int rank,
                             const char *host);

/* 0 when o has only keys of the NULL terminated list, else -1 with
 * "unknown key 'KEY'". */
int inventory_only_keys (const json_t *o, const char *const *keys,
                         rp_error_t *error);

/* -1 with "RANKS ONE" / "RANKS MANY" (one rank / several) and errnum when
 * the ranks of ids in set (meet) or not in set (!meet) are not none. */
int inventory_check_ranks (const struct rp_idset *ids,
                           const struct rp_idset *set, bool meet, int errnum,
                           const char *one, const char *many,
                           rp_error_t *error);

/* The targets where property plugin instance owner added property name
 * (a property-add event with that "plugin"), or NULL when none.
 * Borrowed until the next change. */
const struct rp_idset *inventory_owned (const struct rp_inventory *inv,
                                        const char *owner, const char *name);

/* What owner (NULL: every owner together) added: {name: idset string}.
 * New object, or NULL (ENOMEM). */
json_t *inventory_owned_props (const struct rp_inventory *inv,
                               const char *owner);

/* Log a property-add (add) or property-remove event of plugin instance
 * owner, props {name: idset string} (taken; names checked, targets of the
 * inventory), and apply it.  0 or -1. */
int inventory_plugin_properties (struct rp_inventory *inv, const char *owner,
                                 json_t *props, bool add, double now,
                                 rp_error_t *error);

/* The properties of to ({name: idset string}) that from has not, per
 * name, empty names left out.  New object, or NULL (ENOMEM). */
json_t *inventory_props_diff (const json_t *from, const json_t *to);

/* "rank 3" / "ranks 1-2" into buf. */
const char *inventory_ranks_text (const struct rp_idset *ids, char *buf,
                                  size_t size);

#endif
