/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The respol plugin ABI.
 *
 * A plugin is a shared object that exports exactly one symbol,
 * RP_PLUGIN_SYMBOL ("respol_plugin"): a const struct rp_plugin_desc.  The
 * host reads abi_version, size and kind first and refuses a plugin built for
 * another ABI version or of another kind than the stack it is configured
 * in, before it calls any of its functions.  (Loading a shared object runs
 * its ELF constructors, as dlopen always does; the loader's checks on the
 * file's owner and mode, and on its directories, come before that.)
 *
 * A site plugin is built with nothing but this header:
 *
 *   cc -shared -fPIC $(pkg-config --cflags respol) -o site.so site.c
 *
 * It is not linked against librespol: the functions it calls (rp_*, and
 * jansson's json_*) are resolved when the host loads it, from the host
 * process.  Keep every other symbol of the plugin static.
 *
 * Compatibility rules (the contract between host and plugin):
 * - RP_PLUGIN_ABI_VERSION changes only when a change is incompatible.  A
 *   plugin built for ABI N loads in every release whose ABI is N.
 * - The first four fields of struct rp_plugin_desc (abi_version, size,
 *   kind, name) keep their types and places in every ABI version, so a
 *   host can always say which plugin it refuses and why.
 * - struct rp_plugin_desc, struct rp_host_services and every kind's ops
 *   struct only grow at the end.  Each starts with its size, as built: the
 *   host uses only the fields a plugin's size covers (a missing field is
 *   treated as NULL), and a plugin must check svc->size before it uses a
 *   service added after the first release.
 * - Plugins see jobspec, R, graph vertices and tasks only through opaque
 *   handles and the accessor functions of librespol; no struct of the
 *   library crosses the boundary.
 *
 * Kinds: RP_PLUGIN_VALIDATE (jobspec validators) and RP_PLUGIN_MATCH
 * (match policies) are defined here, RP_PLUGIN_SHELL (the job shell's
 * task hooks: CPU, GPU and memory binding, environment) in respol/shell.h,
 * RP_PLUGIN_PROPERTY (properties of execution targets, constraint
 * operators) in respol/property.h, RP_PLUGIN_QUEUE (queue policies: the
 * order of pending jobs, what a scheduling pass starts and reserves) in
 * respol/queue.h.
 *
 * Threads: the host calls a plugin instance from one thread at a time.
 */
#ifndef RESPOL_PLUGIN_H
#define RESPOL_PLUGIN_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <respol/graph.h>
#include <respol/jobspec.h>

/* respol/context.h, respol/instance.h (which include this header). */
struct rp_context;
struct rp_instance;
struct rp_job;

#ifdef __cplusplus
extern "C" {
#endif

#define RP_PLUGIN_ABI_VERSION 1
#define RP_PLUGIN_SYMBOL "respol_plugin"

/* Mark the descriptor so it stays exported under -fvisibility=hidden.  In
 * C++ a namespace-scope const has internal linkage and a mangled name, so
 * the macro also gives it C linkage there. */
#ifdef __cplusplus
#define RP_PLUGIN_EXPORT extern "C" __attribute__ ((visibility ("default")))
#else
#define RP_PLUGIN_EXPORT __attribute__ ((visibility ("default")))
#endif

enum rp_plugin_kind {
    RP_PLUGIN_VALIDATE = 1, /* jobspec validator: struct rp_validate_ops */
    RP_PLUGIN_MATCH = 2,    /* match policy: struct rp_match_ops */
    RP_PLUGIN_PROPERTY = 3, /* properties, operators: respol/property.h */
    RP_PLUGIN_SHELL = 4,    /* job-shell task hooks: respol/shell.h */
    RP_PLUGIN_QUEUE = 5,    /* queue policies: respol/queue.h */
};

/* Log levels (syslog's numbers). */
enum rp_log_level {
    RP_LOG_ERR = 3,
    RP_LOG_WARNING = 4,
    RP_LOG_NOTICE = 5,
    RP_LOG_INFO = 6,
    RP_LOG_DEBUG = 7,
};

/* The host's handle on one plugin instance (one entry of a stack; a plugin
 * configured twice has two).  Opaque; valid from init to fini. */
struct rp_plugin;

/* Services the host offers every plugin, passed to init.  The table is
 * owned by the host, constant, and lives as long as the plugin is loaded,
 * so a plugin may keep the pointer in a static variable. */
struct rp_host_services {
    uint32_t size;        /* sizeof (struct rp_host_services) in the host */
    uint32_t abi_version; /* RP_PLUGIN_ABI_VERSION of the host */

    /* Log a message (printf-style, one line), from any operation, init to
     * fini.  The host prefixes it with the instance name and delivers it
     * when level is at most the log level (RP_LOG_WARNING unless the
     * configuration's log block or the command line (-v, RESPOL_LOG) says
     * otherwise) to stderr, syslog or a file (see rp_plugin_set_log in
     * respol/config.h).  A message above the level is not formatted, so
     * debug messages cost little when they are off. */
    void (*log) (struct rp_plugin *p, int level, const char *fmt, ...)
        __attribute__ ((format (printf, 3, 4)));

    /* This instance's configuration block: the entry's "config" value, an
     * empty object when the entry has none.  Read-only, borrowed for the
     * life of the instance. */
    const json_t *(*config) (struct rp_plugin *p);

    /* Say why init (or another operation) failed.  The host prints the
     * message with the instance name and, for init, the position of the
     * configuration block.  Returns -1, so: return svc->error (p, "..."); */
    int (*error) (struct rp_plugin *p, const char *fmt, ...)
        __attribute__ ((format (printf, 2, 3)));

    /* A per-instance data pointer for the plugin's own state; NULL until
     * set.  The plugin frees what it stored, in fini. */
    void (*set_data) (struct rp_plugin *p, void *data);
    void *(*get_data) (struct rp_plugin *p);

    /* The instance name: the entry's "name", else the plugin's name. */
    const char *(*name) (struct rp_plugin *p);

    /* New services are added here, at the end. */
};

/* The descriptor: the one symbol a plugin exports, e.g.
 *
 *   RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
 *       .abi_version = RP_PLUGIN_ABI_VERSION,
 *       .size = sizeof (struct rp_plugin_desc),
 *       .kind = RP_PLUGIN_VALIDATE,
 *       .name = "site",
 *       .description = "reject jobs that ask for more than 4 GPUs",
 *       .version = "1.0",
 *       .init = site_init,
 *       .fini = site_fini,
 *       .ops = &site_ops,
 *   };
 */
struct rp_plugin_desc {
    uint32_t abi_version;    /* RP_PLUGIN_ABI_VERSION the plugin was built for */
    uint32_t size;           /* sizeof (struct rp_plugin_desc) as built */
    uint32_t kind;           /* enum rp_plugin_kind */
    const char *name;        /* letters, digits, '-', '_'; 1-64 bytes */
    const char *description; /* one line */
    const char *version;     /* the plugin's own version, e.g. "1.2.0" */

    /* Called once per instance after the checks, before any operation.
     * Validate the configuration block here: return 0, or -1 after
     * svc->error() to stop the whole stack from loading.  Optional: a
     * plugin without init accepts only an empty configuration block. */
    int (*init) (struct rp_plugin *p, const struct rp_host_services *svc);
    /* Called once per instance when the stack is unloaded; not called when
     * init failed (init frees what it allocated before failing).
     * Optional. */
    void (*fini) (struct rp_plugin *p);

    /* The kind's operations: const struct rp_validate_ops * for
     * RP_PLUGIN_VALIDATE, const struct rp_match_ops * for
     * RP_PLUGIN_MATCH, const struct rp_property_ops * for
     * RP_PLUGIN_PROPERTY, const struct rp_shell_ops * for
     * RP_PLUGIN_SHELL, const struct rp_queue_ops * for RP_PLUGIN_QUEUE.
     * Required. */
    const void *ops;

    /* The keys the configuration block may hold, NULL-terminated, e.g.
     *   static const char *const keys[] = { "max-nodes", "queue", NULL };
     * (letters, digits, '-', '_', 1-64 bytes each; no key twice; at most
     * RP_PLUGIN_CONFIG_KEYS_MAX; a plugin that declares keys has an init).
     * The host then refuses any other key of the block itself, at the
     * key's own position in the configuration file, before init is
     * called; init still checks the values and any nested block.  NULL:
     * not declared, init checks the whole block.  (A host that predates
     * this field ignores it: a plugin that must also run there checks its
     * keys itself.)  Optional. */
    const char *const *config_keys;

    /* New fields are added here, at the end. */
};

#define RP_PLUGIN_CONFIG_KEYS_MAX 64

/* --- kind RP_PLUGIN_VALIDATE --------------------------------------------
 *
 * RFC 14: "A stack of plugins SHALL test jobspec against site or user
 * defined criteria, and on failure, MAY reject the jobspec, or MAY warn the
 * user and continue on."  The host runs the stack in order on a jobspec
 * that already passed the RFC checks; the first reject stops it; every
 * warning is reported.
 */

/* Verdicts, returned by validate. */
enum rp_verdict {
    RP_ACCEPT = 0,
    RP_WARN = 1,   /* accept, with the messages given by rp_validation_warn */
    RP_REJECT = 2, /* reject, with the message given by rp_validation_reject */
    RP_HOLD = 3,   /* valid, but not now: the job stays pending with the
                    * reason given by rp_validation_hold */
};

/* One run of the stack over one jobspec.  Opaque; borrowed for the
 * duration of the validate call. */
struct rp_validation;

struct rp_validate_ops {
    uint32_t size; /* sizeof (struct rp_validate_ops) as built */

    /* Judge js (borrowed for the call).  Return an enum rp_verdict, after
     * rp_validation_warn() / rp_validation_reject() for the message.  A
     * return of -1 (or any other value) is a plugin failure: the jobspec
     * is not judged, the host reports "<instance>: plugin failed: " and
     * the text of svc->error(), or without one "plugin '<instance>':
     * validate returned 7 (no message)", and the respol command exits 3.
     * Required. */
    int (*validate) (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v);

    /* A job's life changed in the instance the host runs (respol/
     * instance.h): event is an enum rp_job_event, job is borrowed for the
     * call (read it with the rp_job_* accessors).  Return 0, or -1 after
     * svc->error (): the host logs the failure and goes on.  Optional;
     * called only where the host holds instance state. */
    int (*job_event) (struct rp_plugin *p, int event, const struct rp_job *job);

    /* New operations are added here, at the end. */
};

/* Services for validate (exported by librespol): */

/* Record a warning / the reason for rejection (printf-style, one line).
 * They return RP_WARN / RP_REJECT, so: return rp_validation_reject (v, ...);
 * A validator may warn several times. */
int rp_validation_warn (struct rp_validation *v, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
int rp_validation_reject (struct rp_validation *v, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
/* Hold the job: it is valid, but must wait (e.g. its user runs too much
 * now), with this reason (printf-style, one line).  Returns RP_HOLD.  The
 * stack goes on (a later validator may still reject it); the host keeps a
 * held job pending, shows the reason, and runs the stack over it again
 * before it starts it.  Where the host holds no instance state (respol
 * jobspec validate), a hold is reported and the job is not started. */
int rp_validation_hold (struct rp_validation *v, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Who submits the job (respol/context.h): never NULL (a host that knows
 * nothing gives a context whose fields are all absent).  Borrowed for the
 * call, read-only. */
const struct rp_context *rp_validation_context (const struct rp_validation *v);
/* The instance's jobs and usage (respol/instance.h), or NULL where the
 * host holds none (respol jobspec validate): say so to the user rather
 * than guess.  When the job is already known to the instance (a held job
 * validated again), rp_instance_job finds it by the context's job id, and
 * the usage counts it as pending.  Borrowed for the call. */
const struct rp_instance *
rp_validation_instance (const struct rp_validation *v);

/* Amend the jobspec: set the value at a dotted path under "attributes"
 * (e.g. "system.queue", "system.duration", "system.constraints").  Takes
 * ownership of value (a new reference, as json_pack returns).  The host
 * applies a validator's amendments when it returns RP_ACCEPT or RP_WARN,
 * checks the amended jobspec against the RFC again, and passes it to the
 * next validator; the stack's result carries the amended jobspec.
 * Returns 0, or -1 with errno EINVAL (bad path) / ENOMEM; value is
 * released on failure too. */
int rp_validation_amend (struct rp_validation *v, const char *path,
                         json_t *value);

/* --- kind RP_PLUGIN_MATCH -----------------------------------------------
 *
 * A match policy decides which of the free resources a job gets; the host
 * (respol/match.h) does everything else.  For each resource request of a
 * jobspec (a vertex of its "resources" tree) the host walks the
 * containment subsystem of the resource graph (RFC 4) below the vertex it
 * is placing the request in, skipping subtrees whose aggregates show they
 * cannot hold one unit of the request, and collects the candidates: the
 * vertices of the requested type whose own requests fit below them (for a
 * slot: the execution targets that can hold one more slot).  The policy
 * steers this walk through three optional operations:
 *
 * - score: the evaluating filter.  The host calls it for every candidate
 *   and, while descending, for the children of every vertex it descends
 *   into, and visits children and takes candidates in descending score
 *   order; equal scores keep the walk order (ops->order).  Without score,
 *   children are visited and candidates taken in walk order, which lets
 *   the host skip full parts of the graph without looking at them.
 * - prune: the pruning filter, called before the host descends into a
 *   vertex: RP_WALK_CONTINUE, or RP_WALK_SKIP to leave the subtree out.
 * - order_candidates: the policy's own ordering of one request's
 *   candidates, after scoring.  It may permute the array (nothing else).
 *
 * For a slot, an execution target that can hold several slots is a
 * candidate once per slot it can hold (the same handle several times),
 * each scored when the walk finds it, after the slots before it were
 * taken; a policy that wants a job's slots kept together on one target
 * orders them with order_candidates (the shipped pack policy does).
 *
 * and two settings: order (RP_MATCH_LOW: ascending vertex handles, which
 * builders make ascending ids; RP_MATCH_HIGH: descending), and stop_after:
 * 0 to consider every candidate, k >= 1 to end a request's search once k
 * times the count it needs have been found ("first fit" is 1).
 *
 * The host checks what a policy proposes before it commits it: an
 * order_candidates result that is not a permutation of the candidates
 * given, a score or prune that fails or returns an unknown value, all fail
 * the match with the instance name in the error and leave nothing
 * allocated; and every allocation is checked against the free set (no
 * overlap with another job, nothing down or drained), the counts and the
 * exclusivity asked before it is committed.
 *
 * A policy sees the graph through the rp_graph_* accessors of
 * respol/graph.h (read-only) and the match in progress through the
 * rp_match_* accessors below.  Free amounts must be read with
 * rp_match_vertex_free / rp_match_subtree_free, which account for what
 * this match has already taken and, in a satisfiability check, ignore
 * allocations and states.
 */

/* One match in progress.  Opaque; borrowed for the duration of a call. */
struct rp_match;

enum rp_match_order {
    RP_MATCH_LOW = 0,
    RP_MATCH_HIGH = 1,
};

struct rp_match_ops {
    uint32_t size;       /* sizeof (struct rp_match_ops) as built */
    uint32_t order;      /* enum rp_match_order */
    uint32_t stop_after; /* 0: every candidate; k: stop at k x needed */

    /* Score v (higher is preferred): set *score and return 0, or return
     * -1 after svc->error () to fail the match ("policy 'NAME': score
     * failed: TEXT"; without a text "policy 'NAME': score returned -1 (no
     * message)").  Optional. */
    int (*score) (struct rp_plugin *p, const struct rp_match *m,
                  rp_vertex_t v, int64_t *score);

    /* Return RP_WALK_CONTINUE or RP_WALK_SKIP for v, a vertex the host is
     * about to descend into (never the vertex the request is placed in).
     * Optional. */
    int (*prune) (struct rp_plugin *p, const struct rp_match *m,
                  rp_vertex_t v);

    /* Reorder the n candidates of the current request (v[0] is taken
     * first).  Return 0, or -1 after svc->error ().  Optional. */
    int (*order_candidates) (struct rp_plugin *p, const struct rp_match *m,
                             rp_vertex_t *v, size_t n);

    /* As rp_validate_ops' job_event.  Optional. */
    int (*job_event) (struct rp_plugin *p, int event, const struct rp_job *job);

    /* What the host may know of score and order_candidates without
     * calling them (bits of enum rp_match_hint; 0: nothing), so that it
     * can order candidates from its indexes where a large part of the
     * graph would otherwise be scored (see below).  The operations must
     * still do what the hints say: the host calls them where it cannot
     * use an index, and for explanations.  Optional. */
    uint32_t hints;

    /* New operations are added here, at the end. */
};

/* Hints (rp_match_ops.hints).  Where the vertex the host places a request
 * in has many children (more than 64) that are all candidates of the
 * request, the host keeps an index of them and uses these instead of
 * scoring every child; a match then costs about the same at any number
 * of children.  Where the children the request may take are all its
 * candidates and the hints say they score in walk order (ids ascending,
 * or all showing the same, as the free cores of a node), the host takes
 * them in that order without scoring them.
 *
 * RP_MATCH_SCORE_BY_FREE: score (v) depends only on the request being
 *   placed (rp_match_request, rp_match_request_type, rp_match_unit_need
 *   or rp_match_unit_needs, rp_match_jobspec, rp_match_is_satisfiability)
 *   and on what v shows: its type, size and state, and the free amounts
 *   rp_match_vertex_free and rp_match_subtree_free (or
 *   rp_match_subtree_frees) give for v; not on its id, name or
 *   properties, nor on rp_match_count_need or rp_match_held.  Vertices
 *   that show the same get the same score.  The host scores one child
 *   per class of children that show the same (best fit, worst fit).
 * RP_MATCH_SCORE_BY_ID: score (v) is -(v's id), INT64_MIN when it has
 *   none: ascending ids.  Where the children's ids ascend with their
 *   handles, the host takes them in order without scoring them.
 * RP_MATCH_SCORE_TARGETS_ZERO: score (v) is 0 for every execution
 *   target: the host takes targets in walk order without scoring them.
 * RP_MATCH_ORDER_GROUPS: order_candidates leaves unchanged an array in
 *   which each vertex appears once, or where the finds of each vertex are
 *   next to each other: the host does not call it then.
 * RP_MATCH_SCORE_LEAVES_BY_FREE: below an execution target, leaves that
 *   this match does not hold and that show the same (as for
 *   RP_MATCH_SCORE_BY_FREE) score the same when scored for one walk of
 *   the request, whatever else score reads (rp_match_count_need,
 *   rp_match_held): where the children a request may take below a
 *   target are such leaves, all of its type, the host takes them in
 *   walk order without scoring them (the cores of a node under a policy
 *   that steers by what the match holds, as locality does). */
enum rp_match_hint {
    RP_MATCH_SCORE_BY_FREE = 1,
    RP_MATCH_SCORE_BY_ID = 2,
    RP_MATCH_SCORE_TARGETS_ZERO = 4,
    RP_MATCH_ORDER_GROUPS = 8,
    RP_MATCH_SCORE_LEAVES_BY_FREE = 16,
};

/* Services for match policies (exported by librespol).  All take the
 * match given to the operation and are valid during the call only. */

/* The graph (read with respol/graph.h accessors) and the jobspec. */
const struct rp_graph *rp_match_graph (const struct rp_match *m);
const struct rp_jobspec *rp_match_jobspec (const struct rp_match *m);
/* The request being placed: a vertex of the jobspec's resources tree. */
const struct rp_jobspec_resource *rp_match_request (const struct rp_match *m);
/* The graph type index of the request's type (-1: not in the graph). */
int rp_match_request_type (const struct rp_match *m);
/* How many units of the request are still needed at this point of the
 * walk (for a count range: up to its minimum). */
uint64_t rp_match_count_need (const struct rp_match *m);
/* Units of type index t still to place for the unit being filled (one
 * instance of the request: one node with what is under it, one slot):
 * what the host is about to look for below the vertex it descends into. */
uint64_t rp_match_unit_need (const struct rp_match *m, int t);
/* true in a satisfiability check (allocations and states ignored). */
bool rp_match_is_satisfiability (const struct rp_match *m);
/* Free units as this match sees them (see above). */
uint64_t rp_match_vertex_free (const struct rp_match *m, rp_vertex_t v);
uint64_t rp_match_subtree_free (const struct rp_match *m, rp_vertex_t v,
                                int t);
/* Units of type index t that this match holds in the subtree of v (v
 * included), in the units of rp_match_subtree_free: what the requests
 * placed so far took, the unit being filled included (in a first pass,
 * also the candidate being tried), but not the shared holds that every
 * hold puts on its ancestors.  A candidate that a first pass decides from
 * the free aggregates is not taken, so it is not counted.  0 for a bad
 * argument, and when memory for the counts cannot be had (the match then
 * fails with ENOMEM once the policy's operation returns).  The counts are
 * brought up to date when asked: the first call after new holds costs
 * O(depth) per hold made since, the next ones O(1); a policy that never
 * calls it pays nothing for it. */
uint64_t rp_match_held (const struct rp_match *m, rp_vertex_t v, int t);
/* Who submits the job (never NULL; all absent when the host gave no
 * context) and the instance (NULL when the host holds none), as for
 * validators. */
const struct rp_context *rp_match_context (const struct rp_match *m);
const struct rp_instance *rp_match_instance (const struct rp_match *m);
/* rp_match_unit_need and rp_match_subtree_free of every type at once, for
 * a policy that reads them all for each vertex it scores: need[t] and
 * free[t] for every type index t below both n and the graph's type count
 * (the rest of the array is left alone; all 0 where the one-type
 * accessor gives 0: no request being placed, a bad vertex).  Return the
 * graph's type count (0, nothing written: m is NULL). */
size_t rp_match_unit_needs (const struct rp_match *m, uint64_t *need,
                            size_t n);
size_t rp_match_subtree_frees (const struct rp_match *m, rp_vertex_t v,
                               uint64_t *free, size_t n);

#ifdef __cplusplus
}
#endif
#endif
