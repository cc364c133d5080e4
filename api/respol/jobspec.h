/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Jobspec: RFC 14 canonical jobspec and its RFC 25 "version 1" profile,
 * read from YAML or JSON, validated, and held as an immutable model.
 *
 * Reading reports every problem of a document, not just the first: each
 * error and warning goes to an rp_diags list as one line that names the
 * file, line, column and path,
 *   job.yaml:7:14: resources[0].with[0].count: min must be >= 1
 * and the reader returns NULL (errno EINVAL) when there was any error.
 * Warnings (unknown system attributes, unknown task count keys in the
 * canonical profile, unknown keys in per_resource and in RFC 37 file
 * objects, unknown memory units) do not make a document invalid.
 *
 * Profiles: RP_JOBSPEC_V1 (the default, as in Flux) accepts only RFC 25
 * jobspec: version 1, one node or slot at the top, the shapes slot>core,
 * node>slot>core, slot>(core,gpu), node>slot>(core,gpu), integer counts,
 * one task with per_slot 1 or total, attributes.system.duration; a gpu
 * count may be 0 (as flux-core's V1 reads it).
 * RP_JOBSPEC_CANONICAL accepts all of RFC 14 with any version >= 1.
 *
 * Counts: a count is a positive integer, an RFC 45 range string, an RFC 22
 * idset string (a string with a ',' is read as an idset, any other string
 * as a range), or a {min, max, operator, operand} dictionary.  No count
 * value (integer, min, max, operand, idset member) may exceed
 * RP_JOBSPEC_MAX_COUNT; an unbounded max is allowed.
 *
 * Derived facts (struct rp_jobspec_facts) are computed once when the
 * document is read, from the smallest acceptable value of every count, in
 * saturating 64-bit arithmetic.
 *
 * Ownership: rp_jobspec_load*() and rp_jobspec_from_json() return a jobspec
 * the caller must destroy.  Every pointer returned by an accessor (strings,
 * json_t, resource and task handles, facts) is borrowed from the jobspec and
 * lives as long as it does; json_t values must not be modified.  The
 * jobspec never changes after it is read, so it may be shared between
 * threads for reading.
 */
#ifndef RESPOL_JOBSPEC_H
#define RESPOL_JOBSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <respol/diag.h>
#include <respol/document.h>
#include <respol/idset.h>
#include <respol/range.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Largest count value: 2^31 - 1, the largest count Flux tools accept (they
 * hold counts in an int).  A larger value is an error, which also keeps the
 * derived facts of a small document small. */
#define RP_JOBSPEC_MAX_COUNT INT64_C (2147483647)

/* Deepest nesting of resource vertices ("with" inside "with"). */
#define RP_JOBSPEC_MAX_RESOURCE_DEPTH 16

enum rp_jobspec_profile {
    RP_JOBSPEC_V1 = 0,        /* RFC 25, the default */
    RP_JOBSPEC_CANONICAL = 1, /* RFC 14 */
};

/* The form a resource count was written in. */
enum rp_jobspec_count_form {
    RP_JOBSPEC_COUNT_INTEGER = 0, /* count: 4 */
    RP_JOBSPEC_COUNT_RANGE = 1,   /* count: "1-8:2:*" (RFC 45) */
    RP_JOBSPEC_COUNT_IDSET = 2,   /* count: "4,9,16,25" (RFC 22) */
    RP_JOBSPEC_COUNT_DICT = 3,    /* count: {min: 2, max: 8, ...} */
};

/* How a task entry says how many tasks to run. */
enum rp_jobspec_task_count_kind {
    RP_JOBSPEC_PER_SLOT = 0,
    RP_JOBSPEC_PER_RESOURCE = 1,
    RP_JOBSPEC_TOTAL = 2,
};

/* Facts every consumer needs, derived from the minimum of every count.
 * This struct only grows at the end; it is always library-allocated. */
struct rp_jobspec_facts {
    uint64_t nnodes; /* nodes requested (outermost node vertices), or 0
                      * when the jobspec names no node */
    uint64_t nslots; /* task slots over the whole request; a slot inside
                      * another slot is part of that slot, not counted */
    uint64_t ntasks; /* tasks over all task entries */
    /* Shape of one slot of the first outermost slot vertex in document
     * order (what a nested slot holds included): */
    uint64_t cores_per_slot;
    uint64_t gpus_per_slot;
    uint64_t memory_per_slot; /* bytes; see rp_jobspec_slot_memory() */
    bool exclusive;           /* every vertex is allocated exclusively */
    bool exact;      /* every count is a single value, so the numbers above
                      * are exact rather than minimums */
    bool uniform;    /* every outermost slot vertex has the shape above */
    double duration; /* attributes.system.duration, 0 when unset */
};

struct rp_jobspec;
struct rp_jobspec_resource;
struct rp_jobspec_task;

/* Read a jobspec from len bytes of buf (YAML or JSON, see document.h for
 * how the format is chosen and the input bounds).  name labels messages
 * ("-" is shown as "stdin").  Every error and warning is appended to diags
 * (which may be NULL).  Returns NULL with errno EINVAL when the document is
 * not a valid jobspec of the profile, or another errno (ENOMEM, ENOENT, ...)
 * when it cannot be read.  Caller must destroy. */
struct rp_jobspec *rp_jobspec_load (const char *buf, size_t len,
                                    const char *name,
                                    enum rp_jobspec_profile profile,
                                    struct rp_diags *diags);
/* Same, reading path ("-" reads stdin). */
struct rp_jobspec *rp_jobspec_load_file (const char *path,
                                         enum rp_jobspec_profile profile,
                                         struct rp_diags *diags);
/* Same, from a JSON tree (messages carry no line and column).  root is
 * copied, not referenced: later changes to it do not reach the jobspec. */
struct rp_jobspec *rp_jobspec_from_json (const json_t *root, const char *name,
                                         enum rp_jobspec_profile profile,
                                         struct rp_diags *diags);
/* Accepts NULL, keeps errno. */
void rp_jobspec_destroy (struct rp_jobspec *js);
/* A copy of js the caller must destroy: a jobspec never changes once
 * loaded, so the copy is js itself with one more reference (O(1)), and
 * each owner destroys its own.  NULL with EINVAL for NULL.  References
 * are counted atomically: copies may be destroyed by different threads. */
struct rp_jobspec *rp_jobspec_copy (const struct rp_jobspec *js);

/* Parse a profile name: "v1" or "canonical".  0, or -1 with errno EINVAL
 * and *profile untouched. */
int rp_jobspec_profile_parse (const char *name,
                              enum rp_jobspec_profile *profile);

/* The document.  Borrowed: the whole tree and its positions. */
const struct rp_doc *rp_jobspec_doc (const struct rp_jobspec *js);
json_t *rp_jobspec_json (const struct rp_jobspec *js);
enum rp_jobspec_profile rp_jobspec_profile (const struct rp_jobspec *js);
long long rp_jobspec_version (const struct rp_jobspec *js);

/* Derived facts.  Borrowed. */
const struct rp_jobspec_facts *rp_jobspec_facts (const struct rp_jobspec *js);

/* Attributes.  Borrowed, read-only (a jobspec's duration and constraints
 * are read once, when it is loaded); NULL when absent. */
json_t *rp_jobspec_system (const struct rp_jobspec *js);
json_t *rp_jobspec_user (const struct rp_jobspec *js);
/* attributes.system.duration, 0 when unset (RFC 14: 0 means unlimited). */
double rp_jobspec_duration (const struct rp_jobspec *js);
/* attributes.system.queue, .cwd, .job.name.  NULL when absent. */
const char *rp_jobspec_queue (const struct rp_jobspec *js);
const char *rp_jobspec_cwd (const struct rp_jobspec *js);
const char *rp_jobspec_job_name (const struct rp_jobspec *js);
/* attributes.system.environment, .constraints (RFC 31), .dependencies
 * (RFC 26), .files (RFC 37).  NULL when absent. */
json_t *rp_jobspec_environment (const struct rp_jobspec *js);
json_t *rp_jobspec_constraints (const struct rp_jobspec *js);
json_t *rp_jobspec_dependencies (const struct rp_jobspec *js);
json_t *rp_jobspec_files (const struct rp_jobspec *js);

/* Resource vertices, as a tree:
 *   for (r = rp_jobspec_resource_first (js); r;
 *        r = rp_jobspec_resource_next (r))
 * visits the top-level "resources" list; rp_jobspec_resource_with_first()
 * descends into "with".  NULL ends each list. */
const struct rp_jobspec_resource *
rp_jobspec_resource_first (const struct rp_jobspec *js);
const struct rp_jobspec_resource *
rp_jobspec_resource_next (const struct rp_jobspec_resource *r);
const struct rp_jobspec_resource *
rp_jobspec_resource_with_first (const struct rp_jobspec_resource *r);
/* NULL for a top-level vertex. */
const struct rp_jobspec_resource *
rp_jobspec_resource_parent (const struct rp_jobspec_resource *r);

const char *rp_jobspec_resource_type (const struct rp_jobspec_resource *r);
/* NULL when the vertex has no label / unit / id. */
const char *rp_jobspec_resource_label (const struct rp_jobspec_resource *r);
const char *rp_jobspec_resource_unit (const struct rp_jobspec_resource *r);
const char *rp_jobspec_resource_id (const struct rp_jobspec_resource *r);
/* Effective exclusivity: the vertex's "exclusive" if given, else true for
 * a slot and every vertex inside one, false otherwise (RFC 14). */
bool rp_jobspec_resource_exclusive (const struct rp_jobspec_resource *r);
/* The vertex as written.  Borrowed. */
json_t *rp_jobspec_resource_json (const struct rp_jobspec_resource *r);

/* The count.  rp_jobspec_resource_count() is the count as an RFC 14 range
 * (borrowed): exact for the integer, range and dictionary forms; for the
 * idset form it spans the idset's smallest and largest member with
 * operand 1, and rp_jobspec_resource_count_idset() (NULL for other forms)
 * holds the exact set.  rp_jobspec_resource_count_contains() answers for
 * every form.  A V1 gpu count of 0 (RFC 25 allows it) has min = max = 0,
 * which no other count has: it asks for none of the type. */
enum rp_jobspec_count_form
rp_jobspec_resource_count_form (const struct rp_jobspec_resource *r);
const struct rp_range *
rp_jobspec_resource_count (const struct rp_jobspec_resource *r);
const struct rp_idset *
rp_jobspec_resource_count_idset (const struct rp_jobspec_resource *r);
bool rp_jobspec_resource_count_contains (const struct rp_jobspec_resource *r,
                                         uint64_t value);

/* Instances of this vertex in the whole request: the product of the
 * minimum counts from the top down to and including r (saturating). */
uint64_t rp_jobspec_resource_total (const struct rp_jobspec_resource *r);

/* Slots.  rp_jobspec_slot_find() returns the slot vertex labelled label,
 * or NULL.  For a slot vertex, the number of resources of a type inside
 * one slot (minimum counts; 0 when none, or when slot is not a slot; a
 * slot inside it and everything that slot holds are inside it too), and
 * the memory of one slot in bytes: memory vertices count in their unit
 * (B, KB, MB, GB, TB, PB and the KiB..PiB spellings, all powers of 1024
 * as Slurm and Flux read them; no unit means GB); a memory vertex with
 * another unit is not counted (and was warned about). */
const struct rp_jobspec_resource *
rp_jobspec_slot_find (const struct rp_jobspec *js, const char *label);
uint64_t rp_jobspec_slot_count_type (const struct rp_jobspec_resource *slot,
                                     const char *type);
uint64_t rp_jobspec_slot_memory (const struct rp_jobspec_resource *slot);

/* Tasks, in document order:
 *   for (t = rp_jobspec_task_first (js); t; t = rp_jobspec_task_next (t)) */
const struct rp_jobspec_task *
rp_jobspec_task_first (const struct rp_jobspec *js);
const struct rp_jobspec_task *
rp_jobspec_task_next (const struct rp_jobspec_task *t);

/* The command: a NULL-terminated argv of *argc (if argc) strings. */
const char *const *rp_jobspec_task_argv (const struct rp_jobspec_task *t,
                                         size_t *argc);
/* The slot label, and the slot vertex it names. */
const char *rp_jobspec_task_slot (const struct rp_jobspec_task *t);
const struct rp_jobspec_resource *
rp_jobspec_task_slot_resource (const struct rp_jobspec_task *t);
/* The count: its kind, its value (per_slot, per_resource.count or total)
 * and, for per_resource, the resource type (else NULL). */
enum rp_jobspec_task_count_kind
rp_jobspec_task_count_kind (const struct rp_jobspec_task *t);
uint64_t rp_jobspec_task_count_value (const struct rp_jobspec_task *t);
const char *rp_jobspec_task_count_type (const struct rp_jobspec_task *t);
/* Tasks this entry runs over the whole request (minimum counts). */
uint64_t rp_jobspec_task_ntasks (const struct rp_jobspec_task *t);
/* distribution, attributes, attributes.environment: NULL when absent. */
const char *rp_jobspec_task_distribution (const struct rp_jobspec_task *t);
json_t *rp_jobspec_task_attributes (const struct rp_jobspec_task *t);
json_t *rp_jobspec_task_environment (const struct rp_jobspec_task *t);

#ifdef __cplusplus
}
#endif
#endif
