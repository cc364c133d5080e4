/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Resource sets: R version 1 (RFC 20).
 *
 * An rp_rset is a set of execution targets.  Each target has a rank (an
 * id, RFC 22), a host name (from the RFC 29 nodelist, matched to ranks in
 * ascending rank order), a set of core ids and a set of GPU ids.  Execution
 * targets may carry properties (RFC 20 "properties": name -> idset of
 * ranks).  starttime and expiration (seconds since the epoch, 0 = unset)
 * bound the set in time.
 *
 * What respol does not interpret it keeps and writes back unchanged: the
 * top level "scheduling" and "attributes" keys, any other unknown top level
 * key, and unknown keys of "execution" such as "nslots".  (Operations that
 * build a new set from two, like union, keep those of the first operand;
 * the RFC says scheduling data "SHOULD be ignored by other Flux components"
 * and linkage into it is by host name, which respol does not rewrite.)
 *
 * Encoding (rp_rset_encode, rp_rset_to_json) is the compact form flux-core
 * writes: targets with identical children share one R_lite entry whose
 * "rank" is an idset, entries ordered by lowest rank; "nodelist" is one
 * compressed RFC 29 hostlist in an array; "starttime" and "expiration"
 * always present as reals; "properties" present when not empty; children
 * "gpu" present when not empty.
 *
 * Property names (RFC 20): valid UTF-8, not empty, none of the characters
 * ! & ' " ^ ` | ( ) nor white space.  A name "base@suffix" applies to the
 * target and also gives it the property "base" (rp_rset_has_property).
 * A leading '+' marks an instance-local property.
 *
 * Ownership: functions returning struct rp_rset *, char * or json_t *
 * return new objects the caller must destroy / free / json_decref.
 * Accessors returning const pointers return borrowed data, valid until the
 * set is next modified or destroyed.  Failing functions leave their
 * arguments unchanged and fill error.
 */
#ifndef RESPOL_RSET_H
#define RESPOL_RSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <jansson.h>

#include <respol/error.h>
#include <respol/hostlist.h>
#include <respol/idset.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rp_rset;

/* Encoding flags. */
enum {
    RP_RSET_PRETTY = 1, /* indented output (keys are always sorted) */
};

/* A set holds at most RP_RSET_MAX_TARGETS execution targets, so that a few
 * bytes of R ("rank": "0-4294967294") cannot expand into gigabytes.
 * Decoding or growing a set past it fails with EOVERFLOW, e.g.
 *   R: execution.R_lite: more than 1048576 execution targets */
#define RP_RSET_MAX_TARGETS 1048576U /* 2^20 */

/* Empty set (no targets, times unset).  Caller must destroy. */
struct rp_rset *rp_rset_create (void);
void rp_rset_destroy (struct rp_rset *r);
struct rp_rset *rp_rset_copy (const struct rp_rset *r);

/* Parse and fully validate R version 1 from JSON text / a JSON object.
 * Errors say what and where, e.g.
 *   R: execution.R_lite[1].children.core: idset: "3,2": ids not ascending
 *   at offset 2
 *   R: execution.nodelist: 3 hosts for 4 execution targets
 * Caller must destroy.  rp_rset_from_json() does not steal o. */
struct rp_rset *rp_rset_decode (const char *s, rp_error_t *error);
struct rp_rset *rp_rset_from_json (const json_t *o, rp_error_t *error);

/* Compact R as a JSON object / as text (sorted keys, no trailing newline).
 * Caller must json_decref / free. */
json_t *rp_rset_to_json (const struct rp_rset *r);
char *rp_rset_encode (const struct rp_rset *r, int flags);
/* rp_rset_encode into *buf, of *size bytes, grown with realloc as
 * getline(3) grows its line (*buf NULL and *size 0 to start): a caller
 * that prints one R after another allocates nothing once *buf is large
 * enough.  The length of the text (NUL-terminated), or -1 with errno
 * EINVAL or ENOMEM; *buf stays the caller's to free, also on failure. */
ssize_t rp_rset_encode_buf (const struct rp_rset *r, int flags, char **buf,
                            size_t *size);

/* Add one execution target.  cores and gpus may be NULL (empty); they are
 * copied.  Fails with EEXIST if rank is already a target, EINVAL for a bad
 * host name or rank. */
int rp_rset_add_target (struct rp_rset *r, unsigned int rank,
                        const char *hostname, const struct rp_idset *cores,
                        const struct rp_idset *gpus, rp_error_t *error);

/* --- accessors ---------------------------------------------------------- */

/* The ranks of all targets.  Borrowed. */
const struct rp_idset *rp_rset_ranks (const struct rp_rset *r);
size_t rp_rset_ntargets (const struct rp_rset *r);
/* Host name, cores, GPUs of target rank, or NULL (errno ENOENT). Borrowed. */
const char *rp_rset_hostname (const struct rp_rset *r, unsigned int rank);
const struct rp_idset *rp_rset_cores (const struct rp_rset *r,
                                      unsigned int rank);
const struct rp_idset *rp_rset_gpus (const struct rp_rset *r,
                                     unsigned int rank);
/* Lowest rank whose host name is hostname, or -1 (ENOENT).  O(log n)
 * after an index built on first use (not thread safe against concurrent
 * first use on one set). */
long rp_rset_rank_of (const struct rp_rset *r, const char *hostname);
/* Host names in rank order.  Caller must destroy. */
struct rp_hostlist *rp_rset_nodelist (const struct rp_rset *r);

/* Count "node" (targets), "core" or "gpu".  -1 with EINVAL for another
 * type. */
ssize_t rp_rset_count (const struct rp_rset *r, const char *type);

double rp_rset_starttime (const struct rp_rset *r);
double rp_rset_expiration (const struct rp_rset *r);
/* 0 means unset; when both are set expiration must exceed starttime. */
int rp_rset_set_times (struct rp_rset *r, double starttime, double expiration,
                       rp_error_t *error);

/* The opaque "scheduling" object, or NULL.  Borrowed. */
const json_t *rp_rset_scheduling (const struct rp_rset *r);
/* Replace it (o may be NULL to drop it).  Takes a new reference to o. */
int rp_rset_set_scheduling (struct rp_rset *r, json_t *o);

/* --- properties (RFC 20 execution.properties) --------------------------- */

/* Check a property name: 0 or -1 with the reason. */
int rp_rset_property_check (const char *name, rp_error_t *error);
/* Give / take property name to / from the targets in ranks (NULL = all).
 * Every rank must be a target (ENOENT otherwise).  Removing a name without
 * '@' also removes the suffixed forms "name@..." from those ranks. */
int rp_rset_property_add (struct rp_rset *r, const char *name,
                          const struct rp_idset *ranks, rp_error_t *error);
int rp_rset_property_remove (struct rp_rset *r, const char *name,
                             const struct rp_idset *ranks, rp_error_t *error);
/* True when target rank has name, directly or as "name@suffix". */
bool rp_rset_has_property (const struct rp_rset *r, unsigned int rank,
                           const char *name);
/* The value of key on target rank: the VALUE of the first property (in
 * byte order) named "KEY=VALUE" that rank has, or NULL (also for key NULL
 * or empty).  Borrowed until the properties change.  O(log properties +
 * values of key). */
const char *rp_rset_property_value (const struct rp_rset *r, unsigned int rank,
                                    const char *key);
/* The properties object {name: idset string}.  Caller must json_decref. */
json_t *rp_rset_properties (const struct rp_rset *r);
/* Drop instance-local ('+'-prefixed) properties.  */
void rp_rset_strip_local_properties (struct rp_rset *r);

/* --- set operations ----------------------------------------------------- */

/* dst |= src.  A rank present in both must have the same host name
 * (EINVAL otherwise); its cores and GPUs are merged. Properties merged. */
int rp_rset_add (struct rp_rset *dst, const struct rp_rset *src,
                 rp_error_t *error);
/* Like rp_rset_add but fails (EEXIST, dst unchanged) if any core or GPU of
 * src is already in dst. */
int rp_rset_append (struct rp_rset *dst, const struct rp_rset *src,
                    rp_error_t *error);

/* New sets: a | b, a - b, a & b.  Targets left with no core and no GPU
 * are dropped.  Intersection keeps a target only where rank and host name
 * both agree.  Properties follow the surviving targets.  Caller must
 * destroy. */
struct rp_rset *rp_rset_union (const struct rp_rset *a,
                               const struct rp_rset *b, rp_error_t *error);
struct rp_rset *rp_rset_diff (const struct rp_rset *a,
                              const struct rp_rset *b, rp_error_t *error);
struct rp_rset *rp_rset_intersect (const struct rp_rset *a,
                                   const struct rp_rset *b, rp_error_t *error);

/* The targets whose ranks are in ranks.  Caller must destroy. */
struct rp_rset *rp_rset_copy_ranks (const struct rp_rset *r,
                                    const struct rp_idset *ranks);

/* Renumber ranks by the position of each target's host in hosts (RFC 29):
 * the target on host hosts[i] gets rank i.  hosts must name every target's
 * host exactly once and nothing else. Properties follow. */
int rp_rset_rerank (struct rp_rset *r, const char *hosts, rp_error_t *error);

/* Renumber ranks to 0..n-1 in rank order and each target's cores to
 * 0..k-1 in id order.  GPU ids are kept (see doc/conformance.md). */
int rp_rset_remap (struct rp_rset *r, rp_error_t *error);

/* True when every core and GPU of a is in b on the same rank and host. */
bool rp_rset_is_subset (const struct rp_rset *a, const struct rp_rset *b);
/* Same targets, host names, cores, GPUs, properties and times. */
bool rp_rset_equal (const struct rp_rset *a, const struct rp_rset *b);

/* Check that actual holds everything in expected (same ranks, host names,
 * at least the expected cores and GPUs).  0, or -1 with the first
 * difference, e.g. "rank 3 (node3): missing core 7-8". */
int rp_rset_verify (const struct rp_rset *expected,
                    const struct rp_rset *actual, rp_error_t *error);

/* --- hwloc discovery ---------------------------------------------------- */

/* One execution target from an hwloc topology: this machine's when xmlfile
 * is NULL, else the hwloc XML file.  Cores are hwloc logical core indices;
 * GPUs are the co-processor OS devices (CUDA, NVML, RSMI, OpenCL, Level
 * Zero), one per physical device, numbered 0..n-1 in topology order.  The
 * host name is hostname if given, else the topology's HostName, else
 * gethostname().  Caller must destroy. */
struct rp_rset *rp_rset_from_hwloc (unsigned int rank, const char *hostname,
                                    const char *xmlfile, rp_error_t *error);

/* This machine's topology as respol discovers it (every I/O object kept,
 * PCI GPUs found with or without hwloc's plugins), for a caller that
 * builds several things from one discovery (rp_graph_from_topology,
 * rp_shell_set_topology).  Caller must hwloc_topology_destroy. */
struct hwloc_topology;
int rp_topology_load_local (struct hwloc_topology **topo, rp_error_t *error);

/* --- bounds ------------------------------------------------------------- */

/* The longest R text whose reading fits in memory bytes: jansson's tree
 * of a JSON text takes up to 44 bytes a byte of text, so a reader that
 * must stay within a memory limit reads at most memory / 48 bytes of R
 * (doc/formats.md).  For 1.5 GiB, 32 MiB: R of 100,000 targets with
 * distinct children and properties is about 10 MB. */
size_t rp_rset_text_max (uint64_t memory);

/* What the R in o names, from its R_lite alone, without expanding it:
 * the number of execution targets, and of cores and GPUs over all of
 * them.  R_lite is checked as rp_rset_from_json checks it (the same
 * messages); the rest of R is not.  Costs what reading R_lite costs (its
 * entries and rank ranges), not what the counts are, so that a caller can
 * refuse an R too large for it before decoding it.  0, or -1 with the
 * error.  Any output pointer may be NULL. */
int rp_rset_size_json (const json_t *o, size_t *ntargets, uint64_t *ncores,
                       uint64_t *ngpus, rp_error_t *error);

#ifdef __cplusplus
}
#endif
#endif
