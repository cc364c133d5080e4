/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The resource inventory of an instance, and its history as an RFC 18
 * event log (respol/eventlog.h).
 *
 * An inventory holds:
 *   - the configured resource set R (RFC 20): from a file, from this
 *     machine (rp_rset_from_hwloc) or from a configuration `resources`
 *     block (rp_inventory_config_rset), and how it was obtained (the
 *     "method", as flux-core names it: "configuration" or
 *     "dynamic-discovery");
 *   - the execution targets excluded by configuration: never given to a
 *     scheduler (RFC 28), never drained;
 *   - per target: up or down (set by an administrator: respol monitors
 *     nothing), drained with a reason (optional) and a time, removed
 *     (shrink, for good);
 *   - properties added and removed at run time (RFC 28 property-add and
 *     property-remove), on top of those R configures;
 *   - the expiration of the resource set.
 *
 * Drain and undrain follow flux-core's resource module (drain.c), so that
 * drain history read from Flux means the same here:
 *   drain  RP_DRAIN_DEFAULT  fails if a target is drained with a reason
 *                            ("ranks 1-2 already drained")
 *          RP_DRAIN_UPDATE   a target already drained with a reason keeps
 *                            its reason and time
 *          RP_DRAIN_OVERWRITE  the reason is replaced, the time kept
 *          RP_DRAIN_FORCE    the reason and the time are replaced
 *   undrain RP_DRAIN_DEFAULT fails if a target is not drained; the other
 *                            modes do not.  The reason is only logged.
 * A target that is drained without a reason may be drained again with one
 * in the default mode: the reason is set, the time kept.  Excluded targets
 * can never be drained (flux-core: "There is no option to force an
 * excluded node into the drain state"); removed targets take no operation.
 * An operation that would change nothing (down a target that is down) is
 * an error, except property-add and property-remove, which may repeat.
 *
 * The event log: an inventory opened on a directory (rp_inventory_open)
 * replays DIR/eventlog, and each operation appends one event and syncs it
 * before it returns 0: drains, properties, exclusions survive a restart
 * and a crash.  Events and contexts (flux-core's where it has them):
 *   resource-define  {"method", "R", "exclude"}
 *   drain            {"idset", "nodelist", "reason"?, "overwrite"}
 *   undrain          {"idset", "nodelist", "overwrite", "reason"?}
 *   down, up, shrink {"idset", "nodelist"}
 *   property-add, property-remove  {"properties": {NAME: IDSET},
 *                                   "plugin"?: INSTANCE}
 *   resource-update  {"expiration"}
 * A redefinition (a new R or exclusion) keeps the state of every target
 * whose host is still there, under its new rank, and starts properties
 * and expiration from the new R.  rp_inventory_compact replaces the log
 * with the few events that give the current state, with an atomic rename.
 * A log that is not such a sequence is an error that names the line:
 *   DIR/eventlog:7: drain: idset: rank 99 is not in the inventory
 * Its memory follows the inventory, not the log: replay keeps only the
 * state.
 *
 * Writers (RP_INVENTORY_WRITE) hold an exclusive lock (flock on
 * DIR/lock) for as long as the inventory is open; readers take none and
 * may follow what writers append (rp_inventory_refresh).
 *
 * Property plugins (respol/property.h) annotate an inventory after it is
 * defined (rp_inventory_annotate): what they add and take back is logged
 * as property-add and property-remove events whose context also names the
 * plugin instance ({"properties": {...}, "plugin": "NAME"}), which makes
 * it the owner of what it added: replay and compaction keep who owns what,
 * and a plugin may only remove what it owns.  An administrator's
 * rp_inventory_property_remove ends every ownership of what it removes.
 * All of it reaches schedulers as RFC 28 property-add / property-remove.
 * The matcher reads properties through rp_matcher_set_properties and
 * rp_matcher_set_values, where operators plugins add read them too.
 *
 * Costs: an operation costs in the targets it names (a binary search
 * each) plus the ranges of the idsets it changes; rp_inventory_up and the
 * other sets cost in ranges; nothing costs in the size of the log.
 *
 * Ownership: constructors return objects the caller must destroy.
 * Accessors returning const pointers return data borrowed until the next
 * operation, refresh or destroy.  Failing operations leave the inventory
 * and the log as they were and fill error.
 */
#ifndef RESPOL_INVENTORY_H
#define RESPOL_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <respol/diag.h>
#include <respol/document.h>
#include <respol/error.h>
#include <respol/idset.h>
#include <respol/rset.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rp_drain_mode {
    RP_DRAIN_DEFAULT = 0,
    RP_DRAIN_UPDATE = 1,
    RP_DRAIN_OVERWRITE = 2,
    RP_DRAIN_FORCE = 3,
};

enum {
    RP_INVENTORY_WRITE = 1, /* lock for writing; create DIR if missing */
};

struct rp_inventory;

/* An inventory in memory only (no log): R (copied) with exclude (NULL:
 * none; copied; every rank must be a target). */
struct rp_inventory *rp_inventory_create (const struct rp_rset *R,
                                          const struct rp_idset *exclude,
                                          rp_error_t *error);

/* The inventory kept in directory dir: its log replayed.  A directory
 * without a log gives an inventory without resources (rp_inventory_R is
 * NULL) until rp_inventory_define.  An incomplete last line is a warning
 * added to warnings (may be NULL); opened for writing, the log is then
 * repaired (rp_eventlog_repair).  NULL on error: the log's message, or
 * "DIR: ..." for the directory. */
struct rp_inventory *rp_inventory_open (const char *dir, int flags,
                                        struct rp_diags *warnings,
                                        rp_error_t *error);
/* Accepts NULL, keeps errno; releases the lock. */
void rp_inventory_destroy (struct rp_inventory *inv);

/* Define (or redefine) the resources: R and exclude (NULL: none) are
 * copied; method is "configuration" or "dynamic-discovery".  Nothing is
 * logged when R, exclude and method are those already defined.
 * *changed (may be NULL) says whether they were not. */
int rp_inventory_define (struct rp_inventory *inv, const struct rp_rset *R,
                         const struct rp_idset *exclude, const char *method,
                         double now, bool *changed, rp_error_t *error);

/* --- operations: each logs one event, at time now ----------------------- */

int rp_inventory_drain (struct rp_inventory *inv,
                        const struct rp_idset *targets, const char *reason,
                        enum rp_drain_mode mode, double now, rp_error_t *error);
int rp_inventory_undrain (struct rp_inventory *inv,
                          const struct rp_idset *targets, const char *reason,
                          enum rp_drain_mode mode, double now,
                          rp_error_t *error);
/* Mark targets down (up false) or up. */
int rp_inventory_set_up (struct rp_inventory *inv,
                         const struct rp_idset *targets, bool up, double now,
                         rp_error_t *error);
/* Remove targets for good (RFC 28 shrink). */
int rp_inventory_shrink (struct rp_inventory *inv,
                         const struct rp_idset *targets, double now,
                         rp_error_t *error);
/* Add / remove a property (an RFC 20 name) on targets.  Removing "name"
 * also removes "name@..." (rp_rset_property_remove). */
int rp_inventory_property_add (struct rp_inventory *inv, const char *name,
                               const struct rp_idset *targets, double now,
                               rp_error_t *error);
int rp_inventory_property_remove (struct rp_inventory *inv, const char *name,
                                  const struct rp_idset *targets, double now,
                                  rp_error_t *error);
/* Set the expiration of the resource set (seconds since the epoch, 0:
 * none; after the starttime when both are set). */
int rp_inventory_expire (struct rp_inventory *inv, double expiration,
                         double now, rp_error_t *error);

/* Replace the log with the events that give the current state (atomic
 * rename; see respol/eventlog.h).  *before, *after (may be NULL): events
 * in the log before and after. */
int rp_inventory_compact (struct rp_inventory *inv, double now, size_t *before,
                          size_t *after, rp_error_t *error);

/* Read what writers appended since (at most max events; 0: all).  When
 * the log was replaced (compacted, repaired), it is read again from the
 * start.  Returns the number of events applied, or -1. */
int rp_inventory_refresh (struct rp_inventory *inv, size_t max,
                          rp_error_t *error);

/* --- reading -------------------------------------------------------------- */

/* The resources as they are now: the configured R with run-time property
 * changes and the current expiration, all targets (excluded and removed
 * included).  NULL before the first definition. */
const struct rp_rset *rp_inventory_R (const struct rp_inventory *inv);
const char *rp_inventory_method (const struct rp_inventory *inv);
/* The sets of targets (never NULL once defined). */
const struct rp_idset *rp_inventory_excluded (const struct rp_inventory *inv);
const struct rp_idset *rp_inventory_drained (const struct rp_inventory *inv);
const struct rp_idset *rp_inventory_down (const struct rp_inventory *inv);
const struct rp_idset *rp_inventory_removed (const struct rp_inventory *inv);
/* Available to a scheduler now: not excluded, removed, drained or down.
 * Caller must destroy. */
struct rp_idset *rp_inventory_up (const struct rp_inventory *inv);
/* The drain time and reason (NULL: none; borrowed) of a drained target;
 * false when rank is not drained. */
bool rp_inventory_drain_info (const struct rp_inventory *inv, unsigned int rank,
                              double *timestamp, const char **reason);
/* Events in the log (replayed and appended), and its path (NULL in
 * memory). */
size_t rp_inventory_nevents (const struct rp_inventory *inv);
const char *rp_inventory_logpath (const struct rp_inventory *inv);

/* The targets named by s: an RFC 22 idset of ranks, else an RFC 29
 * hostlist of host names of the inventory.  Every one must be a target:
 *   "ranks 16-17 are not in the inventory", "host 'nodeX' is not in the
 *   inventory".  Caller must destroy. */
struct rp_idset *rp_inventory_targets (const struct rp_inventory *inv,
                                       const char *s, rp_error_t *error);

/* --- configuration and Flux -------------------------------------------- */

/* R from the `resources` block of a configuration document (root: its
 * top mapping, as the document reader gives it; doc, when not NULL, gives
 * the positions for errors):
 *   resources:
 *     config: [{hosts: HOSTLIST, cores?: IDSET, gpus?: IDSET,
 *               properties?: [NAME...]}, ...]     (or path: R-FILE)
 *     exclude?: IDSET or HOSTLIST
 *     state?: DIR                  (read by the command, not here)
 * flux-core's resource.config, resource.path and resource.exclude: ranks
 * are given to hosts in order of first appearance; a host in several
 * entries gets the union.  *exclude (may be NULL) gets the excluded
 * ranks.  Errors say where:
 *   res.yaml:4:12: resources.config[1].cores: idset: "3,2": ids not ...
 * Caller must destroy. */
struct rp_rset *rp_inventory_config_rset (const json_t *root,
                                          const struct rp_doc *doc,
                                          struct rp_idset **exclude,
                                          rp_error_t *error);

/* What rp_inventory_import_flux read. */
struct rp_flux_import {
    size_t events;  /* events in the log */
    size_t used;    /* drain and undrain events applied */
    size_t ignored; /* events of other names, and those before the last
                     * resource-init */
    size_t skipped; /* targets of drain/undrain not in the inventory */
    size_t drained; /* targets drained after the import */
    size_t logged;  /* events added to the inventory's log */
};

/* Read a Flux instance's resource event log (KVS resource.eventlog, as
 * `flux kvs get --raw resource.eventlog` prints it) and make the drain
 * state of the inventory what Flux would show after replaying it: the
 * drained targets with their reasons and times.  Targets are matched by
 * host name where the event has a nodelist (flux-core's rule), else by
 * rank; targets not in the inventory are skipped (a warning each event).
 * Events before the last resource-init (logs older than flux-core 0.62)
 * are dropped and its drain summary taken, as flux-core's upgrade does;
 * online, offline and every other event are read and ignored (flux-core
 * keeps no liveness across a restart).  Excluded targets end undrained.
 * stats (may be NULL) gets the counts. */
int rp_inventory_import_flux (struct rp_inventory *inv, const char *path,
                              double now, struct rp_diags *warnings,
                              struct rp_flux_import *stats, rp_error_t *error);

#ifdef __cplusplus
}
#endif
#endif
