/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Property plugins (kind RP_PLUGIN_PROPERTY): what the execution targets
 * of an instance have, and constraint operators that read it.
 *
 * A property plugin does either or both of:
 *
 * (a) Annotate.  When an inventory is built (respol/inventory.h: respol
 *     resource with a definition, rp_inventory_annotate), the host runs
 *     the property stack in order.  Each plugin's annotate says which
 *     properties (RFC 20 names) which targets have, from the target's
 *     hardware (rp_annotation_hardware: facts the host read through hwloc
 *     when the target is this machine or an hwloc XML topology) or from
 *     site rules in its configuration block (host names, ranks, what R
 *     says of the target).  What a plugin says is its whole say: the host
 *     compares it with what that plugin added before and logs the
 *     difference in the inventory's RFC 18 event log as property-add and
 *     property-remove events (context {"properties": {NAME: IDSET},
 *     "plugin": INSTANCE}), which reach schedulers as RFC 28 property-add
 *     and property-remove like an administrator's.  Running the stack
 *     again over the same inventory logs nothing new.
 *
 * (b) Add constraint operators.  RFC 31 constraints are extended by
 *     name: in init, a plugin adds operators (rp_property_add_operator),
 *     which rp_constraint_compile then accepts wherever a constraint is
 *     read (jobspec attributes.system.constraints, respol R filter, the
 *     RFC 35 query syntax as OPERATOR:VALUE) and which the matcher
 *     evaluates per target, as it does "properties".
 *
 * Valued properties.  A property named "KEY=VALUE" gives the target the
 * value VALUE for KEY: "memory=512G", "numa=2".  It is an ordinary RFC 20
 * property ("properties": ["memory=512G"] asks for that exact value);
 * operators read it with rp_constraint_target_value (respol/constraint.h),
 * which also gives the value of a graph vertex's property KEY where the
 * graph has values (JGF).
 *
 * The host checks what a plugin says, as it checks shell and match
 * plugins, and stops the run with the plugin's name (nothing of the run
 * is logged then):
 *   property plugin 'NAME': annotate: MESSAGE        (annotate failed)
 *   property plugin 'NAME': annotate returned 7 (no message)
 *   property plugin 'NAME': property name "a b": illegal character ' ' at
 *   offset 1                                          (RFC 20's rules)
 *   property plugin 'NAME': property 'gpu': rank 9 is not in the inventory
 *   property plugin 'NAME': cannot remove property 'login' from rank 0:
 *   it did not add it
 * A plugin may remove what it said earlier in the same run, or added in an
 * earlier run; never what R configures, an administrator added, or
 * another plugin added.
 *
 * Ownership: the annotation and everything its accessors return are
 * borrowed for the annotate call.  rp_annotation_add and _remove copy
 * what they are given.  An operator's table and arg are borrowed from the
 * plugin and must stay valid until fini; its name is copied.
 *
 * Threads: annotate and an operator's compile are called from one thread
 * at a time.  An operator's match may be called from several threads at
 * once (a compiled constraint is immutable, respol/constraint.h): it must
 * only read its compiled data and the target.
 */
#ifndef RESPOL_PROPERTY_H
#define RESPOL_PROPERTY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <respol/config.h>
#include <respol/constraint.h>
#include <respol/error.h>
#include <respol/idset.h>
#include <respol/inventory.h>
#include <respol/plugin.h>
#include <respol/rset.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One plugin's part of one run of the property stack.  Opaque. */
struct rp_annotation;

/* --- kind RP_PLUGIN_PROPERTY --------------------------------------------- */

struct rp_property_ops {
    uint32_t size; /* sizeof (struct rp_property_ops) as built */

    /* Say which properties the targets have: rp_annotation_add for each
     * (name, targets), rp_annotation_remove to take back what this
     * plugin said or added before.  Return 0, or -1 after svc->error ()
     * to stop the run with that message.  Optional (a plugin that only
     * adds operators has none). */
    int (*annotate) (struct rp_plugin *p, struct rp_annotation *a);

    /* New operations are added here, at the end. */
};

/* --- annotate's services ------------------------------------------------- */

/* The resources as they are before the run: the inventory's R (its
 * targets, host names, cores, GPUs and current properties). */
const struct rp_rset *rp_annotation_R (const struct rp_annotation *a);

/* What the host read of target rank's hardware, or NULL when it has
 * nothing for that target (the resources came from R or a configuration
 * block).  An object with these keys, each absent when unknown:
 *   "cpu-vendor"  string, hwloc's CPUVendor ("GenuineIntel")
 *   "cpu-model"   string, hwloc's CPUModel, trailing blanks dropped
 *   "packages", "cores", "pus", "numa"   integers: how many
 *   "memory"      integer: bytes of memory of every NUMA node
 *   "gpus"        array, one object per GPU of R (R's order), each with
 *                 "vendor" ("nvidia", "amd", "intel" or "unknown") and
 *                 "model" (hwloc's GPUModel, else the PCI device name)
 * (rp_hardware_from_hwloc makes it).  Borrowed for the call. */
const json_t *rp_annotation_hardware (const struct rp_annotation *a,
                                      unsigned int rank);

/* Say that the targets of ranks (NULL: every target) have property name
 * (an RFC 20 name; copied).  Returns 0, or -1 with errno EINVAL when the
 * name is not valid or a rank is not a target: the host then stops the
 * run after annotate returns, naming the plugin, whatever annotate
 * returns. */
int rp_annotation_add (struct rp_annotation *a, const char *name,
                       const struct rp_idset *ranks);
/* Take property name back from the targets of ranks (NULL: every target
 * this plugin gave it).  Each must have it from this plugin: said in
 * this run or added in an earlier one.  -1 with EINVAL (and the run
 * stops) otherwise. */
int rp_annotation_remove (struct rp_annotation *a, const char *name,
                          const struct rp_idset *ranks);

/* --- constraint operators -------------------------------------------------
 *
 * {"NAME": [values]} in a constraint compiles with the operator's compile
 * (values: the array, borrowed for the call) into its data, and matches a
 * target with match (data as compiled).  Errors of compile are the user's
 * (a bad value): its svc->error () text is reported as the constraint
 * compiler reports its own, e.g.
 *   constraint: and[1].memory-ge: "lots" is not a size
 */
struct rp_constraint_operator {
    uint32_t size; /* sizeof (struct rp_constraint_operator) as built */

    /* Compile values into *data (NULL is a valid result); arg is the
     * pointer given to rp_property_add_operator (one compile may serve
     * several operators).  Return 0, or -1 after svc->error ().
     * Required. */
    int (*compile) (struct rp_plugin *p, void *arg, const json_t *values,
                    void **data);
    /* Does target t satisfy the compiled operator?  Only read data and t.
     * Required. */
    bool (*match) (const void *data, const struct rp_constraint_target *t);
    /* Free what compile made.  Optional. */
    void (*destroy) (void *data);

    /* New fields are added here, at the end. */
};

/* Add operator name (letters, digits, '-' and '_', 1-64 bytes; copied)
 * with the operations of op (borrowed until fini) and arg (given to its
 * compile; the plugin's, until fini), from init only.  On
 * failure returns -1 with errno EINVAL and sets the instance's error as
 * svc->error () does, so init may return at once:
 *   operator 'and' is built in
 *   operator 'memory-ge' is already added by 'cmp'
 *   operators are added in init only
 * The operator is known process-wide from then until the instance is
 * unloaded (rp_config_destroy): a constraint compiled with it must be
 * destroyed before that. */
int rp_property_add_operator (struct rp_plugin *p, const char *name,
                              const struct rp_constraint_operator *op,
                              void *arg);

/* --- the host side ------------------------------------------------------- */

/* Run the property stack of cfg (NULL or empty: nothing) over inv, whose
 * resources must be defined: each plugin's annotate in stack order, every
 * one seeing R as it was before the run; then, plugin by plugin, log as
 * property-add what it says and no target had, and as property-remove
 * what it added before and no longer says (removed targets are left
 * out).  hardware (may be NULL) maps ranks, as decimal strings, to the
 * facts of rp_annotation_hardware.  Returns the number of events logged,
 * or -1 with error: EINVAL with the messages above when a plugin failed
 * or broke a rule (nothing logged), or the log's error. */
int rp_inventory_annotate (struct rp_inventory *inv,
                           const struct rp_config *cfg, const json_t *hardware,
                           double now, rp_error_t *error);

/* The facts of rp_annotation_hardware for this machine (xmlfile NULL) or
 * an hwloc XML file (read in a child process, as rp_rset_from_hwloc
 * reads it).  Caller must json_decref.  NULL with error ("hwloc: ..."). */
json_t *rp_hardware_from_hwloc (const char *xmlfile, rp_error_t *error);

#ifdef __cplusplus
}
#endif
#endif
