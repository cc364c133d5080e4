/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of the matcher (core/match.c): allocation sequences on
 * generated and hand-built graphs, written as tables of steps with the
 * expected result of each (an R summary or an errno and the exact
 * reason), partial release, satisfiability, determinism, and the policy
 * hooks through fake in-test plugin instances (struct rp_plugin of
 * core/plugin_private.h, filled by hand as the loader would).
 *
 * R summaries: one "RANK:cCORES[gGPUS]" per target, ascending ranks,
 * space separated; "RANK:-" for a target with neither.
 *
 * rp_matcher_check runs after every step.
 *
 * test_check corrupts the allocation state behind the matcher's back with
 * gstate_take, which librespol does not export: like core/test/graph.c,
 * the file includes the graph's own files, whose copy interposes the
 * library's.
 */
/* one copy of the graph's functions: see above */
#include "core/graph.c"
#include "core/graph_bounds.c"
#include "core/graph_finalize.c"
#include "core/graph_generate.c"
#include "core/graph_index.c"
#include "core/graph_state.c"
#include "core/graph_walk.c"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/graph.h"
#include "respol/match.h"

#include "core/graph_private.h"
#include "core/match_private.h" /* a proposal spoiled (fake_spoil) */
#include "core/plugin_private.h"
#include "core/test/allocs.h"
#include "t/tap/tap.h"

/* --- jobspec shorthands --------------------------------------------------- */

#define SLOT(n, with) "{type: slot, label: s, count: " n ", with: [" with "]}"
#define SLOTT(n, with) "{type: slot, label: t, count: " n ", with: [" with "]}"
#define NODE(n, with) "{type: node, count: " n ", with: [" with "]}"
#define XNODE(n, with)                                                         \
    "{type: node, count: " n ", exclusive: true, with: [" with "]}"
#define CORE(n) "{type: core, count: " n "}"
#define GPU(n) "{type: gpu, count: " n "}"
#define MEM(n) "{type: memory, count: " n "}"
#define MEMU(n, u) "{type: memory, count: " n ", unit: " u "}"
#define XRACK(n, with)                                                         \
    "{type: rack, count: " n ", exclusive: true, with: [" with "]}"
#define RACK(n, with) "{type: rack, count: " n ", with: [" with "]}"
#define CLUSTER(n, with) "{type: cluster, count: " n ", with: [" with "]}"
#define XCLUSTER(n, with)                                                      \
    "{type: cluster, count: " n ", exclusive: true, with: [" with "]}"
#define SWITCH(n, with) "{type: switch, count: " n ", with: [" with "]}"
#define ONE(type, n) "{type: " type ", count: " n "}"
/* An outer slot (label o) around the inner slot s the task names. */
#define OSLOT(n, with) "{type: slot, label: o, count: " n ", with: [" with "]}"
#define L(...) "[" __VA_ARGS__ "]"

static struct rp_jobspec *jobspec (const char *resources,
                                   const char *constraints, double duration)
{
    char buf[4096];
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js;

    snprintf (buf, sizeof (buf),
              "version: 1\n"
              "resources: %s\n"
              "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n"
              "attributes: {system: {duration: %g%s%s}}\n",
              resources, duration, constraints ? ", constraints: " : "",
              constraints ? constraints : "");
    js = rp_jobspec_load (buf, strlen (buf), "job", RP_JOBSPEC_CANONICAL, d);
    if (!js)
        for (size_t i = 0; i < rp_diags_count (d); i++)
            diag ("%s", rp_diags_text (d, i));
    rp_diags_destroy (d);
    return js;
}

static const char *errname (int e)
{
    switch (e) {
    case ENODEV:
        return "ENODEV";
    case EBUSY:
        return "EBUSY";
    case EEXIST:
        return "EEXIST";
    case ENOENT:
        return "ENOENT";
    case EINVAL:
        return "EINVAL";
    case EPROTO:
        return "EPROTO";
    case ENOMEM:
        return "ENOMEM";
    default:
        return "E?";
    }
}

static void summary (const struct rp_rset *R, char *buf, size_t size)
{
    const struct rp_idset *ranks = rp_rset_ranks (R);
    size_t len = 0;

    buf[0] = '\0';
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r)) {
        const struct rp_idset *c = rp_rset_cores (R, r);
        const struct rp_idset *g = rp_rset_gpus (R, r);
        char *cs = c && !rp_idset_empty (c)
                       ? rp_idset_encode (c, RP_IDSET_RANGES)
                       : NULL;
        char *gs = g && !rp_idset_empty (g)
                       ? rp_idset_encode (g, RP_IDSET_RANGES)
                       : NULL;
        len += snprintf (buf + len, size - len, "%s%u:%s%s%s%s%s",
                         len ? " " : "", r, cs ? "c" : "", cs ? cs : "",
                         gs ? "g" : "", gs ? gs : "", !cs && !gs ? "-" : "");
        free (cs);
        free (gs);
        if (len >= size)
            break;
    }
}

static void error_text (char *buf, size_t size, int e, const char *text)
{
    snprintf (buf, size, "%s: %s", errname (e), text);
}

/* --- graphs --------------------------------------------------------------- */

struct vdef {
    const char *type;
    int64_t id;
    uint64_t size;
    const char *unit;
    int parent; /* index in the table, -1 for the root */
    int64_t rank;
    const char *props; /* space separated, or NULL */
};

/* cluster > node0-2 (ranks 0-2) > socket0 > numa0-1 > core0-1 + memory
 * 1024 MB each; a "bb" pool of 10 (no unit) per node.  node0 has
 * properties "big" and "fast@x", node1 "small". */
static const struct vdef numa_graph[] = {
    { "cluster", 0, 1, NULL, -1, -1, NULL },    /* 0 */
    { "node", 0, 1, NULL, 0, 0, "big fast@x" }, /* 1 */
    { "socket", 0, 1, NULL, 1, -1, NULL },      /* 2 */
    { "numanode", 0, 1, NULL, 2, -1, NULL },    /* 3 */
    { "core", 0, 1, NULL, 3, -1, NULL },
    { "core", 1, 1, NULL, 3, -1, NULL },
    { "memory", 0, 1024, "MB", 3, -1, NULL },
    { "numanode", 1, 1, NULL, 2, -1, NULL }, /* 7 */
    { "core", 2, 1, NULL, 7, -1, NULL },
    { "core", 3, 1, NULL, 7, -1, NULL },
    { "memory", 1, 1024, "MB", 7, -1, NULL },
    { "bb", 0, 10, NULL, 1, -1, NULL },
    { "node", 1, 1, NULL, 0, 1, "small" }, /* 12 */
    { "socket", 0, 1, NULL, 12, -1, NULL },
    { "numanode", 0, 1, NULL, 13, -1, NULL }, /* 14 */
    { "core", 0, 1, NULL, 14, -1, NULL },
    { "core", 1, 1, NULL, 14, -1, NULL },
    { "memory", 0, 1024, "MB", 14, -1, NULL },
    { "numanode", 1, 1, NULL, 13, -1, NULL }, /* 18 */
    { "core", 2, 1, NULL, 18, -1, NULL },
    { "core", 3, 1, NULL, 18, -1, NULL },
    { "memory", 1, 1024, "MB", 18, -1, NULL },
    { "bb", 0, 10, NULL, 12, -1, NULL },
    { "node", 2, 1, NULL, 0, 2, NULL }, /* 23 */
    { "socket", 0, 1, NULL, 23, -1, NULL },
    { "numanode", 0, 1, NULL, 24, -1, NULL }, /* 25 */
    { "core", 0, 1, NULL, 25, -1, NULL },
    { "core", 1, 1, NULL, 25, -1, NULL },
    { "memory", 0, 1024, "MB", 25, -1, NULL },
    { "numanode", 1, 1, NULL, 24, -1, NULL }, /* 29 */
    { "core", 2, 1, NULL, 29, -1, NULL },
    { "core", 3, 1, NULL, 29, -1, NULL },
    { "memory", 1, 1024, "MB", 29, -1, NULL },
    { "bb", 0, 10, NULL, 23, -1, NULL },
    { NULL, 0, 0, NULL, 0, 0, NULL },
};

/* cluster > rack0 > node0-1, rack1 > node2-3 (ranks 0-3) > core0-1; every
 * node but node1 has the property "fast". */
static const struct vdef rack_graph[] = {
    { "cluster", 0, 1, NULL, -1, -1, NULL }, /* 0 */
    { "rack", 0, 1, NULL, 0, -1, NULL },     /* 1 */
    { "node", 0, 1, NULL, 1, 0, "fast" },    /* 2 */
    { "core", 0, 1, NULL, 2, -1, NULL },
    { "core", 1, 1, NULL, 2, -1, NULL },
    { "node", 1, 1, NULL, 1, 1, NULL }, /* 5 */
    { "core", 0, 1, NULL, 5, -1, NULL },
    { "core", 1, 1, NULL, 5, -1, NULL },
    { "rack", 1, 1, NULL, 0, -1, NULL },  /* 8 */
    { "node", 2, 1, NULL, 8, 2, "fast" }, /* 9 */
    { "core", 0, 1, NULL, 9, -1, NULL },
    { "core", 1, 1, NULL, 9, -1, NULL },
    { "node", 3, 1, NULL, 8, 3, "fast" }, /* 12 */
    { "core", 0, 1, NULL, 12, -1, NULL },
    { "core", 1, 1, NULL, 12, -1, NULL },
    { NULL, 0, 0, NULL, 0, 0, NULL },
};

/* cluster > switch0 > node0 (rank 0), switch1 > node1 (rank 1); each node
 * holds one core, box, battery, relay and bench: type names without an
 * entry in the reasons' table of words. */
static const struct vdef switch_graph[] = {
    { "cluster", 0, 1, NULL, -1, -1, NULL }, /* 0 */
    { "switch", 0, 1, NULL, 0, -1, NULL },   /* 1 */
    { "node", 0, 1, NULL, 1, 0, NULL },      /* 2 */
    { "core", 0, 1, NULL, 2, -1, NULL },
    { "box", 0, 1, NULL, 2, -1, NULL },
    { "battery", 0, 1, NULL, 2, -1, NULL },
    { "relay", 0, 1, NULL, 2, -1, NULL },
    { "bench", 0, 1, NULL, 2, -1, NULL },
    { "switch", 1, 1, NULL, 0, -1, NULL }, /* 8 */
    { "node", 1, 1, NULL, 8, 1, NULL },    /* 9 */
    { "core", 0, 1, NULL, 9, -1, NULL },
    { "box", 0, 1, NULL, 9, -1, NULL },
    { "battery", 0, 1, NULL, 9, -1, NULL },
    { "relay", 0, 1, NULL, 9, -1, NULL },
    { "bench", 0, 1, NULL, 9, -1, NULL },
    { NULL, 0, 0, NULL, 0, 0, NULL },
};

/* cluster > rack0 > ssd0 (2 units), node0 (2 cores, 1 GPU), node1 (4
 * cores, 2 GPUs); rack1 > ssd1 (1 unit), node2 (4 cores, 2 GPUs). */
static const struct vdef storage_graph[] = {
    { "cluster", 0, 1, NULL, -1, -1, NULL }, /* 0 */
    { "rack", 0, 1, NULL, 0, -1, NULL },     /* 1 */
    { "ssd", 0, 2, NULL, 1, -1, NULL },
    { "node", 0, 1, NULL, 1, 0, NULL }, /* 3 */
    { "core", 0, 1, NULL, 3, -1, NULL },
    { "core", 1, 1, NULL, 3, -1, NULL },
    { "gpu", 0, 1, NULL, 3, -1, NULL },
    { "node", 1, 1, NULL, 1, 1, NULL }, /* 7 */
    { "core", 0, 1, NULL, 7, -1, NULL },
    { "core", 1, 1, NULL, 7, -1, NULL },
    { "core", 2, 1, NULL, 7, -1, NULL },
    { "core", 3, 1, NULL, 7, -1, NULL },
    { "gpu", 0, 1, NULL, 7, -1, NULL },
    { "gpu", 1, 1, NULL, 7, -1, NULL },
    { "rack", 1, 1, NULL, 0, -1, NULL }, /* 14 */
    { "ssd", 1, 1, NULL, 14, -1, NULL },
    { "node", 2, 1, NULL, 14, 2, NULL }, /* 16 */
    { "core", 0, 1, NULL, 16, -1, NULL },
    { "core", 1, 1, NULL, 16, -1, NULL },
    { "core", 2, 1, NULL, 16, -1, NULL },
    { "core", 3, 1, NULL, 16, -1, NULL },
    { "gpu", 0, 1, NULL, 16, -1, NULL },
    { "gpu", 1, 1, NULL, 16, -1, NULL },
    { NULL, 0, 0, NULL, 0, 0, NULL },
};

/* cluster > node0 (rank 0) > socket0 > core1, core0, and socket1 > core0
 * again with gpu0: ids out of walk order and repeated within a target. */
static const struct vdef oddid_graph[] = {
    { "cluster", 0, 1, NULL, -1, -1, NULL }, /* 0 */
    { "node", 0, 1, NULL, 0, 0, NULL },      /* 1 */
    { "socket", 0, 1, NULL, 1, -1, NULL },   /* 2 */
    { "core", 1, 1, NULL, 2, -1, NULL },
    { "core", 0, 1, NULL, 2, -1, NULL },
    { "socket", 1, 1, NULL, 1, -1, NULL }, /* 5 */
    { "core", 0, 1, NULL, 5, -1, NULL },
    { "gpu", 0, 1, NULL, 5, -1, NULL },
    { NULL, 0, 0, NULL, 0, 0, NULL },
};

/* cluster > node0 (rank 0) > core0, core1, gpu0, core2-5, and node1
 * (rank 1) > core0-3: a GPU between a node's cores, which ends a run of
 * free cores (match_walk.c, leaf_run_take). */
static const struct vdef runs_graph[] = {
    { "cluster", 0, 1, NULL, -1, -1, NULL }, /* 0 */
    { "node", 0, 1, NULL, 0, 0, NULL },      /* 1 */
    { "core", 0, 1, NULL, 1, -1, NULL },
    { "core", 1, 1, NULL, 1, -1, NULL },
    { "gpu", 0, 1, NULL, 1, -1, NULL },
    { "core", 2, 1, NULL, 1, -1, NULL },
    { "core", 3, 1, NULL, 1, -1, NULL },
    { "core", 4, 1, NULL, 1, -1, NULL },
    { "core", 5, 1, NULL, 1, -1, NULL },
    { "node", 1, 1, NULL, 0, 1, NULL }, /* 9 */
    { "core", 0, 1, NULL, 9, -1, NULL },
    { "core", 1, 1, NULL, 9, -1, NULL },
    { "core", 2, 1, NULL, 9, -1, NULL },
    { "core", 3, 1, NULL, 9, -1, NULL },
    { NULL, 0, 0, NULL, 0, 0, NULL },
};

static struct rp_graph *graph_build (const struct vdef *def)
{
    struct rp_graph *g = rp_graph_create ();
    rp_vertex_t v[64];
    rp_error_t e;

    for (size_t i = 0; g && def[i].type; i++) {
        char props[128], *save = NULL;
        v[i] = rp_graph_add_vertex (g, def[i].type, NULL, def[i].id,
                                    def[i].size, def[i].unit, &e);
        if (v[i] == RP_VERTEX_NONE
            || (def[i].parent >= 0
                && rp_graph_add_edge (g, v[def[i].parent], v[i],
                                      RP_GRAPH_CONTAINMENT, "contains", &e)
                       < 0)
            || (def[i].rank >= 0
                && rp_graph_set_rank (g, v[i], def[i].rank, &e) < 0))
            BAIL_OUT ("graph_build: %s", e.text);
        snprintf (props, sizeof (props), "%s",
                  def[i].props ? def[i].props : "");
        for (char *p = strtok_r (props, " ", &save); p;
             p = strtok_r (NULL, " ", &save))
            if (rp_graph_add_property (g, v[i], p, NULL, &e) < 0)
                BAIL_OUT ("graph_build: %s", e.text);
    }
    if (rp_graph_finalize (g, &e) < 0)
        BAIL_OUT ("graph_build: %s", e.text);
    return g;
}

static struct rp_matcher *matcher (const char *spec)
{
    struct rp_graph *g = NULL;
    struct rp_matcher *m;
    rp_error_t e;

    if (strcmp (spec, "numa") == 0)
        g = graph_build (numa_graph);
    else if (strcmp (spec, "racks") == 0)
        g = graph_build (rack_graph);
    else if (strcmp (spec, "switches") == 0)
        g = graph_build (switch_graph);
    else if (strcmp (spec, "storage") == 0)
        g = graph_build (storage_graph);
    else if (strcmp (spec, "runs") == 0)
        g = graph_build (runs_graph);
    else if (strcmp (spec, "oddid") == 0)
        g = graph_build (oddid_graph);
    else if (spec[0] == '{' && !(g = rp_graph_decode_rset (spec, &e)))
        BAIL_OUT ("rp_graph_decode_rset: %s", e.text);
    else if (spec[0] != '{' && !(g = rp_graph_generate (spec, &e)))
        BAIL_OUT ("rp_graph_generate %s: %s", spec, e.text);
    if (!(m = rp_matcher_create (g, &e)))
        BAIL_OUT ("rp_matcher_create: %s", e.text);
    return m;
}

/* --- steps ---------------------------------------------------------------- */

/* Steps:
 *   a RES [@ CONSTRAINTS]   allocate the next job id (1, 2, ...)
 *   A ID RES                allocate job ID
 *   f ID                    free: "ok" or the error
 *   r ID RANKS              release: the job's R left, "gone", or error
 *   R ID                    the job's R
 *   s RES [@ CONSTRAINTS]   satisfiability: "ok" or the error
 *   d RANK STATE            set the state of the target of RANK
 */
struct seq {
    const char *name;
    const char *graph;
    const char *steps[24];
    const char *expect[24];
};

struct run {
    struct rp_matcher *m;
    uint64_t next;
};

static void split_constraints (const char *arg, char *res, size_t size,
                               const char **cons)
{
    const char *at = strstr (arg, " @ ");

    snprintf (res, size, "%.*s", at ? (int)(at - arg) : (int)strlen (arg), arg);
    *cons = at ? at + 3 : NULL;
}

static void step_alloc (struct run *run, uint64_t id, const char *arg,
                        char *out, size_t size)
{
    char res[2048];
    const char *cons;
    struct rp_jobspec *js;
    struct rp_rset *R;
    rp_error_t e;

    split_constraints (arg, res, sizeof (res), &cons);
    if (!(js = jobspec (res, cons, 0))) {
        snprintf (out, size, "bad jobspec");
        return;
    }
    if ((R = rp_matcher_allocate (run->m, id, js, 1000, &e))) {
        summary (R, out, size);
        rp_rset_destroy (R);
    } else
        error_text (out, size, errno, e.text);
    rp_jobspec_destroy (js);
}

static void step_sat (struct run *run, const char *arg, char *out, size_t size)
{
    char res[2048];
    const char *cons;
    struct rp_jobspec *js;
    rp_error_t e;

    split_constraints (arg, res, sizeof (res), &cons);
    if (!(js = jobspec (res, cons, 0))) {
        snprintf (out, size, "bad jobspec");
        return;
    }
    if (rp_matcher_satisfiability (run->m, js, &e) == 0)
        snprintf (out, size, "ok");
    else
        error_text (out, size, errno, e.text);
    rp_jobspec_destroy (js);
}

static void step_release (struct run *run, const char *arg, char *out,
                          size_t size)
{
    unsigned long long id;
    char ranks[64];
    struct rp_idset *ids;
    const struct rp_rset *R;
    rp_error_t e;

    if (sscanf (arg, "%llu %63s", &id, ranks) != 2
        || !(ids = rp_idset_decode (ranks, &e)))
        BAIL_OUT ("bad release step '%s'", arg);
    if (rp_matcher_release (run->m, id, ids, &e) < 0)
        error_text (out, size, errno, e.text);
    else if ((R = rp_matcher_job_rset (run->m, id)))
        summary (R, out, size);
    else
        snprintf (out, size, "gone");
    rp_idset_destroy (ids);
}

static void step_state (struct run *run, const char *arg, char *out,
                        size_t size)
{
    struct rp_graph *g = rp_matcher_graph (run->m);
    long long rank;
    char name[16];
    enum rp_vertex_state st;
    rp_error_t e;

    if (sscanf (arg, "%lld %15s", &rank, name) != 2
        || rp_graph_state_parse (name, &st, &e) < 0
        || rp_graph_set_state (g, rp_graph_rank_vertex (g, rank), st, &e) < 0)
        BAIL_OUT ("bad state step '%s'", arg);
    snprintf (out, size, "ok");
}

static void step (struct run *run, const char *s, char *out, size_t size)
{
    const struct rp_rset *R;
    unsigned long long id;
    rp_error_t e;
    int n = 0;

    out[0] = '\0';
    if (s[0] == 'a')
        step_alloc (run, ++run->next, s + 2, out, size);
    else if (s[0] == 'A' && sscanf (s + 2, "%llu %n", &id, &n) == 1)
        step_alloc (run, id, s + 2 + n, out, size);
    else if (s[0] == 'f' && sscanf (s + 2, "%llu", &id) == 1) {
        if (rp_matcher_free (run->m, id, &e) == 0)
            snprintf (out, size, "ok");
        else
            error_text (out, size, errno, e.text);
    } else if (s[0] == 'r')
        step_release (run, s + 2, out, size);
    else if (s[0] == 'R' && sscanf (s + 2, "%llu", &id) == 1) {
        if ((R = rp_matcher_job_rset (run->m, id)))
            summary (R, out, size);
        else
            snprintf (out, size, "%s", errname (errno));
    } else if (s[0] == 's')
        step_sat (run, s + 2, out, size);
    else if (s[0] == 'd')
        step_state (run, s + 2, out, size);
    else
        BAIL_OUT ("bad step '%s'", s);
}

static void run_seq (const struct seq *q)
{
    struct run run = { .m = matcher (q->graph) };
    char out[1024];
    rp_error_t e;

    for (size_t i = 0; q->steps[i]; i++) {
        step (&run, q->steps[i], out, sizeof (out));
        is (out, q->expect[i], "%s: step %zu: %s", q->name, i + 1, q->steps[i]);
        if (!ok (rp_matcher_check (run.m, &e) == 0,
                 "%s: step %zu: rp_matcher_check", q->name, i + 1))
            diag ("%s", e.text);
    }
    rp_matcher_destroy (run.m);
}

/* G1: 4 nodes, 2 sockets of 4 cores and 1 GPU each. */
#define G1 "nodes=4,sockets=2,cores=4,gpus=2"
#define W1 "0-7g0-1" /* a whole G1 node */

/* A slot inside a slot: each outer slot is 1 unit of ssd and an exclusive
 * node holding the inner slot (3 cores and 2 GPUs), which spans no
 * target; the outer one holds a target, so it spans them. */
#define STORAGE(n)                                                             \
    OSLOT (n, ONE ("ssd",                                                      \
                   "1") "," XNODE ("1", SLOT ("1", CORE ("3") "," GPU ("2"))))

/* Racks: an exclusive rack takes every node below it, so each must
 * satisfy the constraint, not only the nodes its request places. */
#define XRACK1 L (XRACK ("1", NODE ("1", SLOT ("1", CORE ("1")))))
#define XRACK2 L (XRACK ("2", NODE ("1", SLOT ("1", CORE ("1")))))

static const struct seq seqs[] = {
    { "a slot inside a slot",
      "storage",
      { "s " L (STORAGE ("3")), "a " L (STORAGE ("2")), "s " L (STORAGE ("1")),
        "a " L (STORAGE ("1")), "f 1", "a " L (RACK ("1", STORAGE ("2"))),
        "a " L (RACK ("1", STORAGE ("1"))), "r 4 1", "a " L (STORAGE ("1")),
        "a " L (OSLOT ("1", SLOT ("2", CORE ("1")))), NULL },
      { "ENODEV: needs 3 slots of 1 ssd and 1 node with 1 slot of 3 cores and "
        "2 GPUs each, 2 fit",
        "1:c0-3g0-1 2:c0-3g0-1", "ok",
        "EBUSY: needs 1 slot of 1 ssd and 1 node with 1 slot of 3 cores and 2 "
        "GPUs, 0 fit now",
        "ok",
        "ENODEV: needs 1 rack with 2 slots of 1 ssd and 1 node with 1 slot of "
        "3 cores and 2 GPUs, the resource set has 0",
        "1:c0-3g0-1", "gone", "1:c0-3g0-1", "0:c0-1" } },
    { "a top-level request for the root's type gets the root",
      "nodes=2,cores=2",
      { "a " L (CLUSTER ("1", SLOT ("1", CORE ("1")))),
        "a " L (XCLUSTER ("1", SLOT ("1", CORE ("1")))),
        "s " L (XCLUSTER ("1", SLOT ("1", CORE ("1")))), "f 1",
        "a " L (XCLUSTER ("1", SLOT ("1", CORE ("1")))),
        "a " L (CLUSTER ("1", SLOT ("1", CORE ("1")))), "f 3",
        "a " L (CLUSTER ("1", SLOT ("2", CORE ("2")))),
        "a " L (CLUSTER ("2", SLOT ("1", CORE ("1")))),
        "a " L (CLUSTER ("1+", SLOT ("1", CORE ("1")))),
        "a " L (CLUSTER ("1", SLOT ("4", CORE ("1")))), NULL },
      { "0:c0", "EBUSY: needs 1 cluster with 1 slot of 1 core, 0 are free",
        "ok", "ok", "0:c0-1 1:c0-1",
        "EBUSY: needs 1 cluster with 1 slot of 1 core, 0 are free", "ok",
        "0:c0-1 1:c0-1",
        "ENODEV: needs 2 clusters with 1 slot of 1 core each, the resource "
        "set has 1",
        "EBUSY: needs at least 1 cluster with 1 slot of 1 core each, 0 are "
        "free",
        "EBUSY: needs 1 cluster with 4 slots of 1 core, 0 are free" } },
    { "plurals of types without a word",
      "switches",
      { "a " L (SWITCH ("3", SLOT ("1", CORE ("1")))),
        "a " L (SLOT ("1", ONE ("box", "2"))),
        "a " L (SLOT ("1", ONE ("battery", "2"))),
        "a " L (SLOT ("1", ONE ("relay", "2"))),
        "a " L (SLOT ("1", ONE ("bench", "2"))),
        "a " L (SLOT ("1", ONE ("box", "1"))),
        "a " L (SWITCH ("2", SLOT ("1", ONE ("relay", "1")))), NULL },
      { "ENODEV: needs 3 switches with 1 slot of 1 core each, the resource "
        "set has 2",
        "ENODEV: needs 1 slot of 2 boxes, 0 fit",
        "ENODEV: needs 1 slot of 2 batteries, 0 fit",
        "ENODEV: needs 1 slot of 2 relays, 0 fit",
        "ENODEV: needs 1 slot of 2 benches, 0 fit", "0:-", "0:- 1:-" } },
    { "runs of free cores: ended by a GPU, a held core, an id, the last "
      "child",
      "runs",
      { "a " L (SLOT ("1", CORE ("2"))), "a " L (SLOT ("1", CORE ("1"))), "f 1",
        "a " L (SLOT ("1", CORE ("4"))), "a " L (SLOT ("1", CORE ("2"))),
        "a " L (SLOT ("1", CORE ("1"))),
        "a " L (SLOT ("1", "{type: core, count: 1, id: \"3\"}")),
        "a " L (SLOT ("1", CORE ("1"))), "f 3", "f 4", "f 5",
        "a " L (SLOT ("1", CORE ("1+"))), NULL },
      { "0:c0-1", "0:c2", "ok", "0:c0-1,3-4", "1:c0-1", "0:c5", "1:c3", "1:c2",
        "ok", "ok", "ok", "0:c0-1,3-5" } },
    { "first fit, slots, exclusive nodes",
      G1,
      { "a " L (SLOT ("2", CORE ("4"))),
        "a " L (NODE ("1", SLOT ("1", CORE ("2") "," GPU ("1")))),
        "a " L (XNODE ("1", SLOT ("1", CORE ("1")))),
        "a " L (XNODE ("2", SLOT ("1", CORE ("1")))),
        "s " L (XNODE ("2", SLOT ("1", CORE ("1")))), "f 1",
        "a " L (XNODE ("2", SLOT ("1", CORE ("1")))), "f 4", "f 1",
        "A 2 " L (SLOT ("1", CORE ("1"))), "R 5", "R 4", NULL },
      { "0:c0-7", "1:c0-1g0", "2:c" W1,
        "EBUSY: needs 2 nodes with 1 slot of 1 core each, 1 is free", "ok",
        "ok", "0:c" W1 " 3:c" W1, "ENOENT: job 4 holds no resources",
        "ENOENT: job 1 holds no resources",
        "EEXIST: job 2 already holds resources", "0:c" W1 " 3:c" W1,
        "ENOENT" } },
    { "reasons",
      G1,
      { "a " L (NODE ("5", SLOT ("1", GPU ("2")))),
        "a " L (SLOT ("30", CORE ("4"))),
        "a " L (SLOT ("1", "{type: fpga, count: 1}")),
        "a " L (NODE ("1", SLOT ("1", GPU ("3")))),
        "a " L (SLOT ("8", CORE ("4"))), "a " L (SLOT ("1", CORE ("1"))),
        "a " L (SLOT ("2", CORE ("1"))),
        "a " L (NODE ("2+", SLOT ("1", CORE ("1")))),
        "s " L (SLOT ("1", CORE ("1"))), "s " L (SLOT ("33", CORE ("1"))),
        "s " L (SLOT ("1", "{type: fpga, count: 1}")), NULL },
      { "ENODEV: needs 5 nodes with 1 slot of 2 GPUs each, the resource set "
        "has 4",
        "ENODEV: needs 30 slots of 4 cores each, 8 fit",
        "ENODEV: no resource of type 'fpga'",
        "ENODEV: needs 1 node with 1 slot of 3 GPUs, the resource set has 0",
        "0:c0-7 1:c0-7 2:c0-7 3:c0-7",
        "EBUSY: needs 1 slot of 1 core, 0 fit now",
        "EBUSY: needs 2 slots of 1 core each, 0 fit now",
        "EBUSY: needs at least 2 nodes with 1 slot of 1 core each, 0 are "
        "free",
        "ok", "ENODEV: needs 33 slots of 1 core each, 32 fit",
        "ENODEV: no resource of type 'fpga'" } },
    { "count forms",
      "nodes=8,cores=1",
      { "a " L (XNODE ("2", SLOT ("1", CORE ("1")))),
        "a " L (XNODE ("1-4:2", SLOT ("1", CORE ("1")))),
        "a " L (XNODE ("\"1,3\"", SLOT ("1", CORE ("1")))), "f 1",
        "a " L (XNODE ("1+", SLOT ("1", CORE ("1")))), "f 4", "f 2",
        "a " L (XNODE ("{min: 2, max: 8, operator: '*', operand: 2}",
                       SLOT ("1", CORE ("1")))),
        "a " L (XNODE ("3+", SLOT ("1", CORE ("1")))),
        "a " L (XNODE ("1", SLOT ("1", CORE ("1")))),
        "a " L (XNODE ("1", SLOT ("1", CORE ("1")))), NULL },
      { "0:c0 1:c0", "2:c0 3:c0 4:c0", "5:c0 6:c0 7:c0", "ok", "0:c0 1:c0",
        "ok", "ok", "0:c0 1:c0 2:c0 3:c0",
        "EBUSY: needs at least 3 nodes with 1 slot of 1 core each, 1 is free",
        "4:c0", "EBUSY: needs 1 node with 1 slot of 1 core, 0 are free" } },
    { "range counts take what fits",
      G1,
      { "a " L (NODE ("2-3", SLOT ("1", CORE ("1")))),
        "a " L (NODE ("2+", SLOT ("1", CORE ("1")))),
        "a " L (NODE ("\"1,3\"", SLOT ("1", CORE ("1")))),
        "a " L (SLOT ("1", "{type: core, count: \"2-64:2:*\"}")),
        "a " L (SLOT ("1", "{type: core, count: \"7+\"}")), NULL },
      { "0:c0 1:c0 2:c0", "0:c1 1:c1 2:c1 3:c0", "0:c2 1:c2 2:c2", "0:c3-6",
        "3:c1-7" } },
    { "exclusivity",
      G1,
      { "a " L (NODE ("1", SLOT ("1", CORE ("1")))),
        "a " L (NODE ("1", SLOT ("1", CORE ("1")))),
        "a " L (XNODE ("1", SLOT ("1", CORE ("1")))),
        "a " L (SLOT ("1", "{type: core, count: 2, exclusive: false}")),
        "a " L (SLOT ("1", "{type: core, count: 2, exclusive: false}")),
        "a " L (XNODE ("2", SLOT ("1", CORE ("1")))),
        "a " L (SLOT ("1", "{type: node, count: 2, with: [" CORE ("1") "]}")),
        NULL },
      { "0:c0", "0:c1", "1:c" W1, "0:c2-3", "0:c2-3", "2:c" W1 " 3:c" W1,
        "EBUSY: needs 1 slot of 2 nodes with 1 core, 0 fit now" } },
    { "omitted levels, several resources and slot types",
      G1,
      { "a " L (SLOT ("1", CORE ("6"))),
        "a " L (SLOT ("1", "{type: socket, count: 1, with: [" CORE ("2") "]}")),
        "a " L (SLOT ("1", GPU ("1"))),
        "a " L (SLOT ("1", CORE ("1")) "," SLOTT ("1", GPU ("1"))),
        "a " L (
            SLOT ("2", CORE ("3")) "," SLOTT ("1", CORE ("2") "," GPU ("2"))),
        "a " L (SLOT ("1", "{type: node, count: 1, with: [" CORE ("1") "]}")),
        NULL },
      { "0:c0-5", "1:c0-3g0", "0:g0", "0:c6g1", "1:c4-6 2:c0-4g0-1",
        "3:c" W1 } },
    { "racks and partial release",
      "nodes=4,racks=2,cores=2",
      { "a " L (SLOT ("4", CORE ("2"))), "r 1 0-1",
        "a " L ("{type: rack, count: 1, exclusive: true, with: [" NODE (
            "2", SLOT ("1", CORE ("1"))) "]}"),
        "r 1 0", "r 1 2,7", "R 1", "r 1 2", "r 1 3", "r 9 0",
        "a " L (NODE ("2", SLOT ("1", CORE ("2")))),
        "a " L ("{type: rack, count: 2, exclusive: true, with: [" NODE (
            "2", SLOT ("1", CORE ("1"))) "]}"),
        "r 3 2-3", "f 2",
        "a " L ("{type: rack, count: 2, exclusive: true, with: [" NODE (
            "2", SLOT ("1", CORE ("1"))) "]}"),
        "r 5 0", "a " L (XNODE ("1", SLOT ("1", CORE ("1")))), "r 5 1",
        "a " L (XNODE ("1", SLOT ("1", CORE ("1")))), NULL },
      { "0:c0-1 1:c0-1 2:c0-1 3:c0-1", "2:c0-1 3:c0-1", "0:c0-1 1:c0-1",
        "EINVAL: job 1 does not hold rank 0",
        "EINVAL: job 1 does not hold rank 7", "2:c0-1 3:c0-1", "3:c0-1", "gone",
        "ENOENT: job 9 holds no resources", "2:c0-1 3:c0-1",
        "EBUSY: needs 2 racks with 2 nodes with 1 slot of 1 core each, 0 are "
        "free",
        "gone", "ok", "0:c0-1 1:c0-1 2:c0-1 3:c0-1", "1:c0-1 2:c0-1 3:c0-1",
        "EBUSY: needs 1 node with 1 slot of 1 core, 0 are free",
        "2:c0-1 3:c0-1", "0:c0-1" } },
    { "down and drained",
      "nodes=4,cores=2",
      { "d 0 down", "a " L (SLOT ("1", CORE ("1"))), "d 1 drained",
        "a " L (XNODE ("1", SLOT ("1", CORE ("1")))),
        "a " L (XNODE ("2", SLOT ("1", CORE ("1")))),
        "s " L (XNODE ("4", SLOT ("1", CORE ("1")))),
        "a " L (SLOT ("4", CORE ("1"))), "d 0 up",
        "a " L (XNODE ("1", SLOT ("1", CORE ("1")))), NULL },
      { "ok", "1:c0", "ok", "2:c0-1",
        "EBUSY: needs 2 nodes with 1 slot of 1 core each, 1 is free", "ok",
        "EBUSY: needs 4 slots of 1 core each, 2 fit now", "ok", "0:c0-1" } },
    { "id filters",
      G1,
      { "a " L ("{type: node, count: 1, id: \"2-3\", with: [" SLOT (
            "1", CORE ("1")) "]}"),
        "a " L (SLOT ("1", "{type: core, count: 2, id: \"5,7\"}")),
        "a " L ("{type: node, count: 1, id: \"9\", with: [" SLOT (
            "1", CORE ("1")) "]}"),
        "a " L (SLOT ("1", "{type: core, count: 1, id: \"x\"}")),
        "a " L (SLOT ("1", "{type: core, count: 1, id: \"0-4294967294\"}")),
        NULL },
      { "2:c0", "0:c5,7",
        "ENODEV: needs 1 node with 1 slot of 1 core, the resource set has "
        "0",
        "EINVAL: core: id: idset: \"x\": unexpected character 'x' at "
        "offset 0",
        "0:c0" } },
    { "memory pools",
      "nodes=2,sockets=2,cores=2,memory=256GB",
      { "a " L (SLOT ("1", CORE ("1") "," MEM ("100"))),
        "a " L (SLOT ("1", CORE ("1") "," MEM ("150"))),
        "a " L (SLOT ("1", CORE ("1") "," MEM ("10"))),
        "a " L (NODE ("1", SLOT ("1", MEM ("300")))),
        "a " L (SLOT ("1", CORE ("1") "," MEMU ("6000", "MB"))),
        "a " L (SLOT ("1", CORE ("1") "," MEMU ("1", "TB"))),
        "a " L (SLOT ("1", CORE ("1") "," MEMU ("1", "widgets"))),
        "a " L (SLOT ("1", CORE ("1") "," MEM ("250"))),
        "a " L (MEM ("1000") "," SLOT ("1", CORE ("1"))),
        "a " L (MEM ("500") "," SLOT ("1", CORE ("1"))),
        "a " L (SLOT ("1", MEM ("1+"))),
        "a " L (SLOT ("1", "{type: memory, count: 1, with: [" CORE ("1") "]}")),
        NULL },
      { "0:c0", "0:c1", "1:c0",
        "ENODEV: needs 1 node with 1 slot of 300 GB of memory, the resource "
        "set has 0",
        "0:c2", "ENODEV: needs 1 slot of 1 core and 1 TB of memory, 0 fit",
        "ENODEV: needs memory in unit 'widgets', which does not convert to "
        "the resource set's 'GB'",
        "EBUSY: needs 1 slot of 1 core and 250 GB of memory, 0 fit now",
        "ENODEV: needs 1000 GB of memory, the resource set has 512 GB",
        "EBUSY: needs 500 GB of memory, 246 GB are free", "1:-",
        "EINVAL: memory: a pool cannot hold other resources" } },
    { "numa, MB pools, pools without unit",
      "numa",
      { "a " L (SLOT ("1", CORE ("1") "," MEM ("1"))),
        "a " L (SLOT ("1", CORE ("1") "," MEMU ("100", "MB"))),
        "a " L (SLOT ("1", CORE ("1") ", {type: bb, count: 4}")),
        "a " L (SLOT ("1", "{type: bb, count: 7}")),
        "a " L (SLOT ("1", "{type: bb, count: 4, unit: GB}")),
        "a " L (
            SLOT ("1", "{type: numanode, count: 1, with: [" CORE ("2") "]}")),
        "a " L (
            SLOT ("1", "{type: numanode, count: 2, with: [" CORE ("2") "]}")),
        NULL },
      { "0:c0", "0:c1", "0:c2", "1:-",
        "ENODEV: needs bb in unit 'GB', which does not convert to the "
        "resource set's '(none)'",
        "1:c0-1", "2:c0-3" } },
    { "constraints",
      "numa",
      { "a " L (SLOT ("1", CORE ("1"))) " @ {properties: [small]}",
        "a " L (SLOT ("1", CORE ("1"))) " @ {hostlist: [node2]}",
        "a " L (SLOT ("1", CORE ("1"))) " @ {properties: [fast]}",
        "a " L (SLOT ("1", CORE ("1"))) " @ {ranks: [\"1-2\"]}",
        "a " L (SLOT ("1", CORE ("1"))) " @ {not: [{properties: [big]}]}",
        "a " L (SLOT ("1", CORE ("1"))) " @ {or: [{properties: [nosuch]}, "
                                        "{hostlist: [node2]}]}",
        "a " L (SLOT ("1", CORE ("1"))) " @ {and: [{properties: [big]}, "
                                        "{ranks: [\"1\"]}]}",
        "a " L (XNODE ("2", SLOT ("1", CORE ("1")))) " @ {properties: "
                                                     "[big]}",
        "a " L (XNODE ("1", SLOT ("1", CORE ("1")))) " @ {properties: "
                                                     "[^small]}",
        "s " L (XNODE ("1", SLOT ("1", CORE ("1")))) " @ {properties: "
                                                     "[nosuch]}",
        "a " L (SLOT ("1", CORE ("3"))) " @ {hostlist: [node0]}",
        "a " L (SLOT ("1", CORE ("1"))) " @ {hostlist: [node0]}", NULL },
      { "1:c0", "2:c0", "0:c0", "1:c1", "1:c2", "2:c1",
        "ENODEV: needs 1 slot of 1 core, 0 fit matching the constraints",
        "ENODEV: needs 2 nodes with 1 slot of 1 core each, the resource set "
        "has 1 matching the constraints",
        "EBUSY: needs 1 node with 1 slot of 1 core, 0 are free",
        "ENODEV: needs 1 node with 1 slot of 1 core, the resource set has 0 "
        "matching the constraints",
        "0:c1-3",
        "EBUSY: needs 1 slot of 1 core, 0 fit matching the constraints "
        "now" } },
    { "constraints below exclusive racks",
      "racks",
      { "a " XRACK1 " @ {properties: [fast]}",
        "a " XRACK1 " @ {properties: [fast]}",
        "s " XRACK2 " @ {properties: [fast]}",
        "a " XRACK1 " @ {properties: [^fast]}",
        "a " L (RACK ("1", NODE ("1", SLOT ("1", CORE ("1"))))) " @ {ranks: "
                                                                "[\"1\"]}",
        "f 4", "a " XRACK1 " @ {ranks: [\"0-1\"]}", "f 1",
        "a " XRACK1 " @ {hostlist: [\"node[0,2-3]\"]}", "a " XRACK1, NULL },
      { "2:c0-1 3:c0-1",
        "EBUSY: needs 1 rack with 1 node with 1 slot of 1 core, 0 matching "
        "the constraints are free",
        "ENODEV: needs 2 racks with 1 node with 1 slot of 1 core each, the "
        "resource set has 1 matching the constraints",
        "ENODEV: needs 1 rack with 1 node with 1 slot of 1 core, the resource "
        "set has 0 matching the constraints",
        "1:c0", "ok", "0:c0-1 1:c0-1", "ok", "2:c0-1 3:c0-1",
        "EBUSY: needs 1 rack with 1 node with 1 slot of 1 core, 0 are "
        "free" } },
};

/* --- other tests ---------------------------------------------------------- */

static void test_api (void)
{
    struct rp_graph *g = rp_graph_create ();
    struct rp_matcher *m;
    struct rp_plugin v = { .instance = "v", .kind = RP_PLUGIN_VALIDATE };
    uint64_t id = 0;
    rp_error_t e;

    errno = 0;
    ok (rp_matcher_create (g, &e) == NULL && errno == EINVAL,
        "rp_matcher_create refuses a graph that is not finalized");
    is (e.text, "matcher: the graph is not finalized", "with its message");
    errno = 0;
    ok (rp_matcher_create (NULL, &e) == NULL && errno == EINVAL,
        "rp_matcher_create (NULL) fails with EINVAL");
    m = matcher ("nodes=1");
    is (rp_matcher_policy_name (m), "first", "the built-in policy is first");
    errno = 0;
    ok (rp_matcher_set_policy (m, &v, &e) < 0 && errno == EINVAL,
        "set_policy refuses a plugin of another kind");
    is (e.text, "matcher: plugin 'v' is not a match policy",
        "with its message");
    errno = 0;
    ok (rp_matcher_allocate (m, 1, NULL, 0, &e) == NULL && errno == EINVAL,
        "allocate with no jobspec fails with EINVAL");
    errno = 0;
    ok (rp_matcher_job_rset (m, 1) == NULL && errno == ENOENT,
        "job_rset of an unknown job: ENOENT");
    ok (rp_matcher_njobs (m) == 0 && !rp_matcher_job_first (m, &id), "no jobs");
    rp_matcher_destroy (m);
    rp_matcher_destroy (NULL);
}

static void test_jobs_and_times (void)
{
    struct rp_matcher *m = matcher ("nodes=4,cores=2");
    struct rp_jobspec *js = jobspec (L (SLOT ("1", CORE ("2"))), NULL, 60);
    struct rp_rset *R;
    uint64_t id = 0;
    rp_error_t e;
    char buf[256];
    json_t *st;
    char *s;

    R = rp_matcher_allocate (m, 30, js, 1000, &e);
    ok (R && rp_rset_starttime (R) == 1000 && rp_rset_expiration (R) == 1060,
        "starttime = now, expiration = now + duration");
    rp_rset_destroy (R);
    rp_rset_destroy (rp_matcher_allocate (m, 10, js, 1000, &e));
    rp_rset_destroy (rp_matcher_allocate (m, 20, js, 1000, &e));
    ok (rp_matcher_njobs (m) == 3, "three jobs");
    ok (rp_matcher_job_first (m, &id) && id == 10, "first job is 10");
    ok (rp_matcher_job_next (m, &id) && id == 20, "next is 20");
    ok (rp_matcher_job_next (m, &id) && id == 30, "next is 30");
    ok (!rp_matcher_job_next (m, &id), "then none");
    summary (rp_matcher_job_rset (m, 20), buf, sizeof (buf));
    is (buf, "2:c0-1", "job_rset of job 20");
    st = rp_matcher_stat (m);
    s = json_dumps (st, JSON_SORT_KEYS | JSON_COMPACT);
    is (s,
        "{\"jobs\":3,\"types\":{\"cluster\":{\"down\":0,\"free\":0,"
        "\"total\":1},\"core\":{\"down\":0,\"free\":2,\"total\":8},"
        "\"node\":{\"down\":0,\"free\":1,\"total\":4},\"socket\":{\"down\":0,"
        "\"free\":1,\"total\":4}},\"vertices\":17}",
        "rp_matcher_stat");
    free (s);
    json_decref (st);
    (void)rp_graph_set_state (rp_matcher_graph (m),
                              rp_graph_rank_vertex (rp_matcher_graph (m), 3),
                              RP_VERTEX_DRAINED, &e);
    st = rp_matcher_stat (m);
    s = json_dumps (json_object_get (st, "types"),
                    JSON_SORT_KEYS | JSON_COMPACT);
    is (s,
        "{\"cluster\":{\"down\":0,\"free\":0,\"total\":1},\"core\":{"
        "\"down\":2,\"free\":0,\"total\":8},\"node\":{\"down\":1,"
        "\"free\":0,\"total\":4},\"socket\":{\"down\":1,\"free\":0,"
        "\"total\":4}}",
        "rp_matcher_stat counts a drained node's subtree as down");
    free (s);
    json_decref (st);
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
}

/* What an allocation of one slot on one node allocates once the matcher's
 * scratch has grown: the job's record, and in the same block its holds
 * and the R returned (the set with its one target, host name and ranks,
 * the children record with its two idsets, one range each). */
#define ALLOCATE_ALLOCS 1

/* Whether m's third allocate of js (two made first, so that the
 * matcher's scratch has grown) allocates at most ALLOCATE_ALLOCS times. */
static bool third_allocate_within (struct rp_matcher *m,
                                   const struct rp_jobspec *js)
{
    struct rp_rset *R;
    rp_error_t e;
    size_t n0;

    rp_matcher_set_scheduling (m, false); /* R without the scheduling key */
    rp_rset_destroy (rp_matcher_allocate (m, 1, js, 1000, &e));
    rp_rset_destroy (rp_matcher_allocate (m, 2, js, 1000, &e));
    n0 = allocs ();
    R = rp_matcher_allocate (m, 3, js, 1000, &e);
    n0 = allocs () - n0;
    rp_rset_destroy (R);
    return R && n0 <= ALLOCATE_ALLOCS;
}

/* The R allocate returns is made in the job's block: it outlives the job
 * (freed, or the matcher destroyed), and the job outlives it; with the
 * scheduling key, the job keeps that R and the caller gets a copy (under
 * valgrind or a sanitizer a block freed early reads after free). */
static void test_R_in_job_block (void)
{
    static const char want[] =
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\","
        "\"children\":{\"core\":\"0-1\"}}],\"nodelist\":[\"node0\"],"
        "\"starttime\":1000.0,\"expiration\":1060.0}}";
    struct rp_matcher *m = matcher ("nodes=8,cores=4");
    struct rp_jobspec *js = jobspec (L (SLOT ("1", CORE ("2"))), NULL, 60);
    struct rp_rset *R1, *R2, *R3, *w;
    rp_error_t e;

    if (!(w = rp_rset_decode (want, &e)))
        BAIL_OUT ("test_R_in_job_block: %s", e.text);
    rp_matcher_set_scheduling (m, false);
    R1 = rp_matcher_allocate (m, 1, js, 1000, &e);
    ok (R1 && rp_rset_equal (R1, w) && rp_matcher_free (m, 1, &e) == 0
            && rp_rset_equal (R1, w),
        "R in the job's block: the job freed, R reads as made");
    rp_rset_destroy (R1);
    R2 = rp_matcher_allocate (m, 2, js, 1000, &e);
    rp_rset_destroy (R2);
    ok (R2 && rp_matcher_njobs (m) == 1 && rp_matcher_check (m, &e) == 0
            && rp_matcher_free (m, 2, &e) == 0,
        "R destroyed first, the job lives on until freed");
    rp_matcher_set_scheduling (m, true);
    R3 = rp_matcher_allocate (m, 3, js, 1000, &e);
    rp_matcher_destroy (m);
    ok (R3 && rp_rset_ntargets (R3) == 1 && rp_rset_count (R3, "core") == 2
            && rp_rset_scheduling (R3),
        "with the scheduling key: the matcher destroyed, the copy reads on");
    rp_rset_destroy (R3);
    rp_rset_destroy (w);
    rp_jobspec_destroy (js);
}

static void test_allocations (void)
{
    struct rp_matcher *m = matcher ("nodes=8,cores=4");
    struct rp_jobspec *js = jobspec (L (SLOT ("1", CORE ("2"))), NULL, 60);

    if (!allocs_counted ())
        skip (1, "allocations are not counted here (sanitizer, valgrind)");
    else
        ok (third_allocate_within (m, js),
            "test_allocations: allocate of one slot: at most %d allocations",
            ALLOCATE_ALLOCS);
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
}

/* The requests built for a jobspec are kept for its next match: one that
 * asks for ids decodes them once, not on every allocate. */
static void test_kept_requests (void)
{
    struct rp_matcher *m = matcher ("nodes=8,cores=4");
    struct rp_jobspec *js = jobspec (
        L (SLOT ("1", "{type: core, count: 2, id: \"0-3\"}")), NULL, 60);

    if (!allocs_counted ())
        skip (1, "allocations are not counted here (sanitizer, valgrind)");
    else
        ok (third_allocate_within (m, js),
            "test_kept_requests: a slot with ids: at most %d allocations "
            "(the ids decoded once)",
            ALLOCATE_ALLOCS);
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
}

/* Kept requests serve their own jobspec only: jobspecs that alternate,
 * and one loaded where a destroyed one was, are each matched as asked. */
static void test_kept_requests_other_jobspec (void)
{
    static const char *want[] = { "0:c0-1", "0:c2", "1:c0-1", "0:c3",
                                  "2:c0-2", "1:c2" };
    struct rp_matcher *m = matcher ("nodes=8,cores=4");
    struct rp_jobspec *two = jobspec (L (SLOT ("1", CORE ("2"))), NULL, 60);
    struct rp_jobspec *one = jobspec (L (SLOT ("1", CORE ("1"))), NULL, 60);
    struct rp_jobspec *js;
    char got[6][64] = { { 0 } };
    bool same = true;
    rp_error_t e;

    for (uint64_t id = 1; id <= 4; id++) {
        struct rp_rset *R =
            rp_matcher_allocate (m, id, id % 2 ? two : one, 1000, &e);
        if (R)
            summary (R, got[id - 1], sizeof (got[0]));
        rp_rset_destroy (R);
    }
    rp_jobspec_destroy (two);
    js = jobspec (L (SLOT ("1", CORE ("3"))), NULL, 60);
    for (uint64_t id = 5; id <= 6; id++) {
        struct rp_rset *R =
            rp_matcher_allocate (m, id, id == 5 ? js : one, 1000, &e);
        if (R)
            summary (R, got[id - 1], sizeof (got[0]));
        rp_rset_destroy (R);
    }
    for (size_t i = 0; i < 6; i++) {
        if (strcmp (got[i], want[i]) != 0) {
            diag ("job %zu: got '%s', want '%s'", i + 1, got[i], want[i]);
            same = false;
        }
    }
    ok (same, "test_kept_requests_other_jobspec: each jobspec matched as "
              "asked (2, 1, 2, 1, then a new one of 3 cores, 1)");
    rp_jobspec_destroy (js);
    rp_jobspec_destroy (one);
    rp_matcher_destroy (m);
}

/* rp_matcher_check finds a hold that no job record has. */
static void test_check (void)
{
    struct rp_matcher *m = matcher ("nodes=2,cores=2");
    struct rp_jobspec *js = jobspec (L (SLOT ("1", CORE ("1"))), NULL, 0);
    struct rp_graph *g = rp_matcher_graph (m);
    struct rp_gstate *s = graph_live (g);
    rp_vertex_t core1 = rp_graph_child_next (
        g, rp_graph_child_first (
               g, rp_graph_child_first (g, rp_graph_rank_vertex (g, 0))));
    rp_error_t e;

    rp_rset_destroy (rp_matcher_allocate (m, 1, js, 0, &e));
    ok (rp_matcher_check (m, &e) == 0, "check: consistent after a match");
    ok (gstate_take (s, core1, 1, true) == 0, "take core1 behind its back");
    errno = 0;
    ok (rp_matcher_check (m, &e) < 0 && errno == EPROTO,
        "check: fails with EPROTO");
    is (e.text, "core1: 1 units used, the jobs hold 0", "check: says where");
    ok (gstate_put (s, core1, 1, true) == 0 && rp_matcher_check (m, &e) == 0,
        "check: consistent again");
    ok (rp_matcher_free (m, 1, &e) == 0 && rp_matcher_check (m, &e) == 0
            && gstate_idle (s, rp_graph_root (g)),
        "free: the graph is idle again");
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
}

/* The allocated part of every pool of type in R's scheduling graph, as
 * "name:size ..." */
static void sched_sizes (const struct rp_rset *R, const char *type, char *buf,
                         size_t size)
{
    json_t *nodes = json_object_get (
        json_object_get ((json_t *)rp_rset_scheduling (R), "graph"), "nodes");
    size_t i, len = 0;
    json_t *n;

    buf[0] = '\0';
    json_array_foreach (nodes, i, n) {
        json_t *md = json_object_get (n, "metadata");
        const char *t = json_string_value (json_object_get (md, "type"));
        if (t && strcmp (t, type) == 0)
            len += snprintf (
                buf + len, size - len, "%s%s:%lld%s", len ? " " : "",
                json_string_value (json_object_get (md, "name")),
                (long long)json_integer_value (json_object_get (md, "size")),
                json_is_true (json_object_get (md, "exclusive")) ? "x" : "");
        if (len >= size)
            break;
    }
}

static void test_scheduling (void)
{
    struct rp_matcher *m = matcher ("nodes=2,sockets=2,cores=2,memory=256GB");
    struct rp_jobspec *a =
        jobspec (L (SLOT ("1", CORE ("1") "," MEM ("100"))), NULL, 0);
    struct rp_jobspec *b =
        jobspec (L (SLOT ("1", CORE ("1") "," MEM ("150"))), NULL, 0);
    struct rp_jobspec *c =
        jobspec (L (XNODE ("1", SLOT ("1", CORE ("1")))), NULL, 0);
    struct rp_rset *R;
    rp_error_t e;
    char buf[512];

    R = rp_matcher_allocate (m, 1, a, 0, &e);
    rp_rset_destroy (R);
    R = rp_matcher_allocate (m, 2, b, 0, &e);
    sched_sizes (R, "memory", buf, sizeof (buf));
    is (buf, "memory0:28x memory1:122x",
        "scheduling: a pool amount taken from two pools");
    sched_sizes (R, "core", buf, sizeof (buf));
    is (buf, "core1:1x", "scheduling: the core, exclusive");
    sched_sizes (R, "node", buf, sizeof (buf));
    is (buf, "node0:1", "scheduling: its node, shared");
    rp_rset_destroy (R);
    R = rp_matcher_allocate (m, 3, c, 0, &e);
    sched_sizes (R, "memory", buf, sizeof (buf));
    is (buf, "memory0:128x memory1:128x",
        "scheduling: an exclusive node holds its pools whole");
    sched_sizes (R, "node", buf, sizeof (buf));
    is (buf, "node1:1x", "scheduling: the exclusive node");
    rp_rset_destroy (R);
    rp_jobspec_destroy (a);
    rp_jobspec_destroy (b);
    rp_jobspec_destroy (c);
    rp_matcher_destroy (m);
}

/* The R of an allocation carries its scheduling key as text: it encodes
 * as the tree would, reads back as the tree of rp_graph_subgraph_jgf,
 * survives copies and set operations, and gives way to a tree set. */
static void test_scheduling_text (void)
{
    struct rp_matcher *m = matcher ("nodes=2,sockets=2,cores=2,memory=256GB");
    struct rp_jobspec *js =
        jobspec (L (XNODE ("1", SLOT ("1", CORE ("1")))), NULL, 0);
    struct rp_rset *R = rp_matcher_allocate (m, 1, js, 0, NULL);
    struct rp_rset *copy = R ? rp_rset_copy (R) : NULL;
    struct rp_rset *u = R ? rp_rset_union (R, R, NULL) : NULL;
    json_t *tree = R ? rp_rset_to_json (R) : NULL;
    char *text = R ? rp_rset_encode (R, 0) : NULL;
    char *dumped =
        tree ? json_dumps (tree, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    char *s1 = copy ? rp_rset_encode (copy, 0) : NULL;
    char *s2 = u ? rp_rset_encode (u, 0) : NULL;
    const struct rp_graph *g = rp_matcher_graph (m);
    rp_vertex_t vs[64];
    bool excl[64];
    size_t n = 0;
    json_t *want;

    /* node0 whole: every vertex of its subtree, exclusive */
    for (rp_vertex_t v = 0; v < rp_graph_nvertices (g) && n < 64; v++)
        if (rp_graph_vertex_rank (g, v) == 0) {
            excl[n] = true;
            vs[n++] = v;
        }
    want = rp_graph_subgraph_jgf (g, vs, NULL, excl, n);
    ok (text && dumped && !strcmp (text, dumped),
        "scheduling text: R encodes as its tree dumps");
    ok (s1 && text && !strcmp (s1, text), "scheduling text: a copy keeps it");
    ok (s2 && text && !strcmp (s2, text), "scheduling text: so does a union");
    ok (R && want && json_equal ((json_t *)rp_rset_scheduling (R), want),
        "scheduling text: reads back as rp_graph_subgraph_jgf of the node");
    ok (R
            && json_object_get (
                json_object_get ((json_t *)rp_rset_scheduling (R), "graph"),
                "nodes"),
        "scheduling text: rp_rset_scheduling reads it as a tree");
    ok (copy && rp_rset_set_scheduling (copy, NULL) == 0
            && !rp_rset_scheduling (copy),
        "scheduling text: set to NULL, it is gone");
    free (s1);
    s1 = copy ? rp_rset_encode (copy, 0) : NULL;
    ok (s1 && !strstr (s1, "\"scheduling\""),
        "scheduling text: and not encoded");
    json_decref (want);
    json_decref (tree);
    free (text);
    free (dumped);
    free (s1);
    free (s2);
    rp_rset_destroy (u);
    rp_rset_destroy (copy);
    rp_rset_destroy (R);
    rp_matcher_set_scheduling (m, false);
    R = rp_matcher_allocate (m, 2, js, 0, NULL);
    ok (R && !rp_rset_scheduling (R) && rp_rset_ntargets (R) == 1,
        "scheduling off: allocate returns R without the key");
    ok (rp_rset_scheduling (rp_matcher_job_rset (m, 2)) != NULL,
        "scheduling off: the job's R still has it when asked");
    rp_rset_destroy (R);
    rp_matcher_set_scheduling (m, true);
    rp_matcher_free (m, 2, NULL);
    R = rp_matcher_allocate (m, 3, js, 0, NULL);
    ok (R && rp_rset_scheduling (R) != NULL,
        "scheduling on again: allocate returns it");
    rp_rset_destroy (R);
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
}

/* A V1 gpu count of 0 asks for no GPU: it is no request, not an error. */
static void test_zero_count (void)
{
    static const char doc[] =
        "version: 1\n"
        "resources: [{type: node, count: 2, with: [{type: slot, count: 1, "
        "label: s, with: [{type: core, count: 2}, {type: gpu, count: 0}]}]}]\n"
        "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n"
        "attributes: {system: {duration: 0}}\n";
    struct rp_jobspec *js =
        rp_jobspec_load (doc, strlen (doc), "job", RP_JOBSPEC_V1, NULL);
    struct rp_matcher *m = matcher (G1);
    struct rp_rset *R;
    rp_error_t e;
    char out[512] = "";

    if (!js)
        BAIL_OUT ("a V1 gpu count of 0 does not load");
    if ((R = rp_matcher_allocate (m, 1, js, 0, &e)))
        summary (R, out, sizeof (out));
    else
        error_text (out, sizeof (out), errno, e.text);
    is (out, "0:c0-1 1:c0-1", "a gpu count of 0: the cores, no GPU");
    ok (rp_matcher_satisfiability (m, js, &e) == 0, "and it is satisfiable");
    ok (rp_matcher_check (m, &e) == 0, "the state is consistent");
    rp_rset_destroy (R);
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
}

/* The same sequence twice gives byte-identical R. */
static char *determinism_run (void)
{
    static const char *res[] = {
        L (SLOT ("3", CORE ("3"))),
        L (NODE ("2", SLOT ("1", CORE ("1") "," GPU ("1")))),
        L (XNODE ("1", SLOT ("1", CORE ("1")))),
        L (SLOT ("1", CORE ("5"))),
        L (NODE ("1+", SLOT ("1", CORE ("1")))),
    };
    struct rp_matcher *m = matcher (G1);
    size_t size = 1 << 20, len = 0;
    char *all = calloc (1, size);
    rp_error_t e;

    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < sizeof (res) / sizeof (res[0]); i++) {
            uint64_t id = round * 10 + i + 1;
            struct rp_jobspec *js = jobspec (res[i], NULL, 0);
            struct rp_rset *R = rp_matcher_allocate (m, id, js, 5, &e);
            char *s = R ? rp_rset_encode (R, 0) : strdup (e.text);
            len += snprintf (all + len, size - len, "%s\n", s);
            free (s);
            rp_rset_destroy (R);
            rp_jobspec_destroy (js);
            if (i % 2 == 1)
                (void)rp_matcher_free (m, id - 1, &e);
        }
    rp_matcher_destroy (m);
    return all;
}

static void test_determinism (void)
{
    char *a = determinism_run ();
    char *b = determinism_run ();

    ok (a && b && strlen (a) > 1000 && strcmp (a, b) == 0,
        "the same sequence twice gives byte-identical R");
    free (a);
    free (b);
}

/* --- policies ------------------------------------------------------------- */

struct fake {
    int mode;
    int calls;
    int request_type;             /* of the last call for a core request */
    uint64_t count_need;          /* the largest seen for a core request */
    uint64_t unit_need_core;      /* of the last call for a core request */
    uint64_t slot_count_need;     /* the largest seen for the slot */
    uint64_t slot_unit_need_core; /* of the last call for the slot */
    int64_t core_rank;            /* the lowest rank scored for a core */
    bool sat;
    int rows_bad; /* calls where the *_needs / *_frees rows differed */
    bool spoiled; /* fake_spoil did */
};

/* Whether rp_match_unit_needs and rp_match_subtree_frees give, at v, what
 * the one-type accessors give, and leave alone what is past n. */
static bool rows_agree (const struct rp_match *m, rp_vertex_t v)
{
    size_t nt = rp_graph_ntypes (rp_match_graph (m));
    uint64_t need[16], free[16];

    if (nt + 1 > 16)
        return false;
    for (size_t n = 0; n <= nt + 1; n++) {
        memset (need, 0xaa, sizeof (need));
        memset (free, 0xaa, sizeof (free));
        if (rp_match_unit_needs (m, need, n) != nt
            || rp_match_subtree_frees (m, v, free, n) != nt)
            return false;
        for (size_t t = 0; t < 16; t++) {
            bool set = t < n && t < nt;
            uint64_t nu = set ? rp_match_unit_need (m, (int)t) : 0xaaaaaaaaaaaaaaaa;
            uint64_t fr = set ? rp_match_subtree_free (m, v, (int)t)
                              : 0xaaaaaaaaaaaaaaaa;
            if (need[t] != nu || free[t] != fr)
                return false;
        }
    }
    return true;
}

static struct fake fake;

/* A vertex of type `type` that is (or is not) below `a`, and not held by
 * the match in progress; NONE when none. */
static rp_vertex_t fake_find (const struct rp_match *x, const char *type,
                              rp_vertex_t a, bool inside)
{
    const struct rp_graph *g = x->g;
    int t = rp_graph_type_index (g, type);

    for (rp_vertex_t v = 0; v < rp_graph_nvertices (g); v++) {
        bool in = false;
        for (rp_vertex_t u = v; u != RP_VERTEX_NONE && !in;
             u = rp_graph_parent (g, u))
            in = u == a;
        if (rp_graph_vertex_type_index (g, v) == t && in == inside
            && !held (x, v))
            return v;
    }
    return RP_VERTEX_NONE;
}

/* Modes 5 and up: a proposal that the pre-commit check must refuse.
 * While the second top-level request is scored (mode 11: its cores,
 * below its slot's unit 3), the first one's units (a slot at a node, two
 * cores below it) are spoiled, once: the walk of the second goes on, the
 * check sees the spoiled units. */
static void fake_spoil (const struct rp_match *m)
{
    struct rp_match *x = (struct rp_match *)m;
    rp_vertex_t node = x->nunits >= 3 ? x->units[0].v : RP_VERTEX_NONE;
    const struct req *when =
        fake.mode == 11 ? x->reqs->next->child : x->reqs->next;

    if (fake.mode < 5 || fake.spoiled || node == RP_VERTEX_NONE
        || x->cur != when)
        return;
    fake.spoiled = true;
    switch (fake.mode) {
    case 5: /* of another type */
        x->units[1].v = node;
        break;
    case 6: /* a core of its node that it does not hold */
        x->units[1].v = fake_find (x, "core", node, true);
        break;
    case 7: /* a core of another node */
        x->units[1].v = fake_find (x, "core", node, false);
        break;
    case 8: /* the slot outside every target */
        x->units[0].v = rp_graph_root (x->g);
        break;
    case 9: /* a core held that went down */
        gstate_set_state (x->s, x->units[2].v, RP_VERTEX_DOWN);
        break;
    case 10: /* a core counted at the top level, not in its slot */
        x->units[2].parent = NO_UNIT;
        break;
    case 11: /* a core counted in the second slot, not in its own */
        x->units[2].parent = 3;
        break;
    }
}

static int fake_score (struct rp_plugin *p, const struct rp_match *m,
                       rp_vertex_t v, int64_t *score)
{
    const struct rp_graph *g = rp_match_graph (m);
    int core = rp_graph_type_index (g, "core");

    fake.calls++;
    fake_spoil (m);
    if (rp_match_request_type (m) == -1) {
        if (rp_match_count_need (m) > fake.slot_count_need)
            fake.slot_count_need = rp_match_count_need (m);
        fake.slot_unit_need_core = rp_match_unit_need (m, core);
    } else {
        fake.request_type = rp_match_request_type (m);
        if (rp_match_count_need (m) > fake.count_need)
            fake.count_need = rp_match_count_need (m);
        fake.unit_need_core = rp_match_unit_need (m, core);
        if (rp_match_request_type (m) == core
            && rp_graph_vertex_rank (g, v) < fake.core_rank)
            fake.core_rank = rp_graph_vertex_rank (g, v);
    }
    fake.sat = rp_match_is_satisfiability (m);
    if (!rows_agree (m, v)
        || !rows_agree (m, (rp_vertex_t)rp_graph_nvertices (g))
        || rp_match_unit_needs (m, NULL, 4) != rp_graph_ntypes (g)
        || rp_match_subtree_frees (m, v, NULL, 4) != rp_graph_ntypes (g))
        fake.rows_bad++;
    if (fake.mode == 1) {
        snprintf (p->error, sizeof (p->error), "boom");
        return -1;
    }
    /* Prefer higher ranks, and free subtrees. */
    *score = rp_graph_vertex_rank (g, v) * 100
             + (int64_t)rp_match_subtree_free (m, v, core);
    return 0;
}

static int fake_prune (struct rp_plugin *p, const struct rp_match *m,
                       rp_vertex_t v)
{
    (void)p;
    if (fake.mode == 2)
        return 7;
    if (rp_graph_vertex_rank (rp_match_graph (m), v) == 1)
        return RP_WALK_SKIP;
    return RP_WALK_CONTINUE;
}

static int fake_order (struct rp_plugin *p, const struct rp_match *m,
                       rp_vertex_t *v, size_t n)
{
    (void)p;
    (void)m;
    if (fake.mode == 3 && n > 1) {
        v[0] = v[1]; /* a duplicate: not a permutation */
        return 0;
    }
    if (fake.mode == 4) {
        snprintf (p->error, sizeof (p->error), "no order today");
        return -1;
    }
    for (size_t i = 0; i < n / 2; i++) {
        rp_vertex_t t = v[i];
        v[i] = v[n - 1 - i];
        v[n - 1 - i] = t;
    }
    return 0;
}

struct pcase {
    const char *name;
    struct rp_match_ops ops;
    int mode;
    const char *res;
    const char *expect;
};

/* fake_spoil's mode: the proposal of two slots refused with msg. */
#define SPOILED(name, mode, msg)                                               \
    {                                                                          \
        "refused: " name, { .score = fake_score }, mode,                       \
            L (SLOT ("1", CORE ("2")) "," OSLOT ("1", CORE ("1"))),            \
            "EPROTO: policy 'fake': proposal refused: " msg                    \
    }

static const struct pcase pcases[] = {
    { "order HIGH",
      { .order = RP_MATCH_HIGH, .stop_after = 1 },
      0,
      L (SLOT ("1", CORE ("1"))),
      "3:c7" },
    { "order HIGH: a run of cores down a socket, then the next socket",
      { .order = RP_MATCH_HIGH, .stop_after = 1 },
      0,
      L (SLOT ("1", CORE ("5"))),
      "3:c3-7" },
    { "order LOW, stop_after 1",
      { .order = RP_MATCH_LOW, .stop_after = 1 },
      0,
      L (SLOT ("1", CORE ("1"))),
      "0:c0" },
    { "score: higher ranks first",
      { .stop_after = 0, .score = fake_score },
      0,
      L (NODE ("2", SLOT ("1", CORE ("1")))),
      "2:c0 3:c0" },
    { "prune skips rank 1",
      { .stop_after = 1, .prune = fake_prune },
      0,
      L (NODE ("2", SLOT ("1", CORE ("1")))),
      "0:c0 2:c0" },
    { "order_candidates reverses",
      { .stop_after = 0, .order_candidates = fake_order },
      0,
      L (NODE ("1", SLOT ("1", CORE ("1")))),
      "3:c7" },
    { "order_candidates, stop_after 2",
      { .stop_after = 2, .order_candidates = fake_order },
      0,
      L (NODE ("1", SLOT ("1", CORE ("1")))),
      "1:c1" },
    { "score: a slot inside a slot",
      { .stop_after = 0, .score = fake_score },
      0,
      L (OSLOT ("2", XNODE ("1", SLOT ("1", CORE ("1"))))),
      "2:c" W1 " 3:c" W1 },
    { "score fails",
      { .score = fake_score },
      1,
      L (SLOT ("1", CORE ("1"))),
      "EPROTO: policy 'fake': score failed: boom" },
    { "prune returns 7",
      { .prune = fake_prune },
      2,
      L (SLOT ("1", CORE ("1"))),
      "EPROTO: policy 'fake': prune returned 7 (not CONTINUE or SKIP)" },
    { "order_candidates duplicates",
      { .order_candidates = fake_order },
      3,
      L (NODE ("1", SLOT ("1", CORE ("1")))),
      "EPROTO: policy 'fake': order_candidates did not return a permutation "
      "of the candidates" },
    { "order_candidates fails",
      { .order_candidates = fake_order },
      4,
      L (NODE ("1", SLOT ("1", CORE ("1")))),
      "EPROTO: policy 'fake': order_candidates failed: no order today" },
    { "unknown order",
      { .order = 9 },
      0,
      L (SLOT ("1", CORE ("1"))),
      "EPROTO: policy 'fake': unknown order 9" },
    /* the pre-commit check: a proposal spoiled after the walk placed it */
    SPOILED ("a unit of another type", 5, "node3 is not a core"),
    SPOILED ("a unit not held", 6, "core2 is not held exclusively"),
    SPOILED ("a unit outside its parent", 7, "core0 is not below node3"),
    SPOILED ("a slot outside every target", 8, "slot at cluster0: misplaced"),
    SPOILED ("a vertex held that is down", 9, "core1 is not up"),
    SPOILED ("a count the jobspec does not ask", 10,
             "2 slots where the jobspec asks 1"),
    SPOILED ("a slot's count the jobspec does not ask", 11,
             "1 core where the jobspec asks 2"),
};

static void test_policies (void)
{
    for (size_t i = 0; i < sizeof (pcases) / sizeof (pcases[0]); i++) {
        const struct pcase *c = &pcases[i];
        struct rp_plugin p = { .instance = "fake", .kind = RP_PLUGIN_MATCH };
        struct rp_matcher *m = matcher (G1);
        struct rp_jobspec *js = jobspec (c->res, NULL, 0);
        struct rp_rset *R;
        rp_error_t e;
        char out[512];

        p.match = c->ops;
        p.match.size = sizeof (p.match);
        fake.mode = c->mode;
        fake.spoiled = false;
        ok (rp_matcher_set_policy (m, &p, &e) == 0
                && strcmp (rp_matcher_policy_name (m), "fake") == 0,
            "%s: set_policy", c->name);
        if ((R = rp_matcher_allocate (m, 1, js, 0, &e))) {
            summary (R, out, sizeof (out));
            rp_rset_destroy (R);
        } else
            error_text (out, sizeof (out), errno, e.text);
        is (out, c->expect, "%s", c->name);
        ok (rp_matcher_check (m, &e) == 0
                && rp_matcher_njobs (m)
                       == (R || !strchr (c->expect, ':')
                               ? 1
                               : (size_t)(out[0] != 'E')),
            "%s: state consistent", c->name);
        rp_jobspec_destroy (js);
        rp_matcher_destroy (m);
    }
}

/* Scores that the hints describe: by free amounts (best fit on cores),
 * -(id), and 0 at targets (else the free cores). */
static int hinted_calls, core_calls;

static void count_call (const struct rp_match *m, rp_vertex_t v)
{
    const struct rp_graph *g = rp_match_graph (m);

    hinted_calls++;
    core_calls += rp_graph_vertex_type_index (g, v)
                  == rp_graph_type_index (g, "core");
}

static int hint_free (struct rp_plugin *p, const struct rp_match *m,
                      rp_vertex_t v, int64_t *score)
{
    int core = rp_graph_type_index (rp_match_graph (m), "core");

    (void)p;
    count_call (m, v);
    *score = -(int64_t)rp_match_subtree_free (m, v, core);
    return 0;
}

static int hint_id (struct rp_plugin *p, const struct rp_match *m,
                    rp_vertex_t v, int64_t *score)
{
    int64_t id = rp_graph_vertex_id (rp_match_graph (m), v);

    (void)p;
    count_call (m, v);
    *score = id >= 0 ? -id : INT64_MIN;
    return 0;
}

static int hint_zero (struct rp_plugin *p, const struct rp_match *m,
                      rp_vertex_t v, int64_t *score)
{
    const struct rp_graph *g = rp_match_graph (m);
    int core = rp_graph_type_index (g, "core");

    (void)p;
    count_call (m, v);
    *score = rp_graph_target (g, v) == v
                 ? 0
                 : (int64_t)rp_match_subtree_free (m, v, core);
    return 0;
}

/* 0 at targets; below one, a leaf scores what the request still needs
 * (the same for every leaf of one walk), any other vertex its id (the
 * highest first: what it shows does not tell), and those where this
 * match holds cores first (as locality steers). */
static int hint_leaves (struct rp_plugin *p, const struct rp_match *m,
                        rp_vertex_t v, int64_t *score)
{
    const struct rp_graph *g = rp_match_graph (m);
    int core = rp_graph_type_index (g, "core");

    (void)p;
    count_call (m, v);
    if (rp_graph_target (g, v) == v)
        *score = 0;
    else if (rp_graph_child_first (g, v) == RP_VERTEX_NONE)
        *score = (int64_t)rp_match_count_need (m);
    else
        *score = rp_graph_vertex_id (g, v)
                 + (rp_match_held (m, v, core) > 0 ? 1000 : 0);
    return 0;
}

/* RP_MATCH_SCORE_LEAVES_BY_FREE says nothing of the vertices below a
 * target that are not leaves: a socket request is placed by score (the
 * highest id), not in walk order, though both sockets show the same. */
static void test_hints_leaves_only (void)
{
    struct rp_plugin p = { .instance = "hinted", .kind = RP_PLUGIN_MATCH };
    struct rp_matcher *m = matcher ("nodes=2,sockets=2,cores=4");
    struct rp_jobspec *js = jobspec (
        L (NODE ("1", "{type: socket, count: 1, with: [" SLOT ("1", CORE ("1"))
                      "]}")),
        NULL, 0);
    struct rp_rset *R;
    char out[512] = "";

    p.match = (struct rp_match_ops){ .size = sizeof (p.match),
                                     .score = hint_leaves,
                                     .hints = RP_MATCH_SCORE_TARGETS_ZERO
                                              | RP_MATCH_SCORE_LEAVES_BY_FREE };
    rp_matcher_set_policy (m, &p, NULL);
    if ((R = rp_matcher_allocate (m, 1, js, 0, NULL)))
        summary (R, out, sizeof (out));
    is (out, "0:c4",
        "hints leaves by free: a socket below a target is scored, not taken "
        "in walk order");
    rp_rset_destroy (R);
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
}

/* On 200 nodes, a policy whose hints say what its score is scores a few
 * vertices per allocation, not every node, and places every job where
 * scoring every candidate (rp_matcher_set_hints off) places it.  Where
 * the cores are a node's children (R) and tie (by free, leaves by free)
 * or ascend (by id), it scores none of them.  pols: a bit per policy
 * of pol[] to run. */
static void test_hints_on (const char *shape, const char *spec, unsigned pols)
{
    static const struct {
        const char *name;
        int (*score) (struct rp_plugin *, const struct rp_match *, rp_vertex_t,
                      int64_t *);
        uint32_t hints;
    } pol[] = {
        { "by free", hint_free, RP_MATCH_SCORE_BY_FREE },
        { "by id", hint_id, RP_MATCH_SCORE_BY_ID },
        { "targets zero", hint_zero, RP_MATCH_SCORE_TARGETS_ZERO },
        { "leaves by free", hint_leaves,
          RP_MATCH_SCORE_TARGETS_ZERO | RP_MATCH_SCORE_LEAVES_BY_FREE },
    };
    const char *res[] = { L (SLOT ("1", CORE ("3"))),
                          L (XNODE ("1", SLOT ("1", CORE ("1")))),
                          L (NODE ("2", SLOT ("1", CORE ("2")))) };

    for (size_t i = 0; i < sizeof (pol) / sizeof (pol[0]); i++) {
        if (!(pols & (1u << i)))
            continue;
        struct rp_plugin p = { .instance = "hinted", .kind = RP_PLUGIN_MATCH };
        struct rp_matcher *m[2] = { matcher (spec), matcher (spec) };
        int calls[2] = { 0, 0 }, cores[2] = { 0, 0 };
        bool same = true;

        p.match = (struct rp_match_ops){ .size = sizeof (p.match),
                                         .score = pol[i].score,
                                         .hints = pol[i].hints };
        rp_matcher_set_policy (m[0], &p, NULL);
        rp_matcher_set_policy (m[1], &p, NULL);
        rp_matcher_set_hints (m[1], false);
        for (uint64_t id = 1; id <= 120; id++) {
            struct rp_jobspec *js = jobspec (res[id % 3], NULL, 0);
            char out[2][512];
            for (int k = 0; k < 2; k++) {
                struct rp_rset *R;
                hinted_calls = core_calls = 0;
                R = rp_matcher_allocate (m[k], id, js, 0, NULL);
                calls[k] += hinted_calls;
                cores[k] += core_calls;
                if (R)
                    summary (R, out[k], sizeof (out[k]));
                else
                    snprintf (out[k], sizeof (out[k]), "errno %d", errno);
                rp_rset_destroy (R);
                if (id % 5 == 0)
                    rp_matcher_free (m[k], id - 3, NULL);
            }
            same = same && !strcmp (out[0], out[1]);
            rp_jobspec_destroy (js);
        }
        ok (same && rp_matcher_check (m[0], NULL) == 0,
            "hints %s, %s: 120 jobs placed as scoring every candidate places "
            "them",
            pol[i].name, shape);
        ok (calls[1] > 120 * 200 && calls[0] < calls[1] / 10,
            "hints %s, %s: %d scores, %d without the hints", pol[i].name,
            shape, calls[0], calls[1]);
        if (spec[0] == '{' && pol[i].hints != RP_MATCH_SCORE_TARGETS_ZERO)
            ok (cores[0] == 0 && cores[1] > 120 * 8,
                "hints %s, %s: no core scored (%d without the hints)",
                pol[i].name, shape, cores[1]);
        rp_matcher_destroy (m[0]);
        rp_matcher_destroy (m[1]);
    }
}

static void test_hints (void)
{
    test_hints_leaves_only ();
    test_hints_on ("sockets", "nodes=200,sockets=2,cores=4", 0xf);
    test_hints_on ("cores in nodes",
                   "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
                   "\"0-199\",\"children\":{\"core\":\"0-7\",\"gpu\":"
                   "\"0-1\"}}],\"starttime\":0,\"expiration\":0,"
                   "\"nodelist\":[\"n[0-199]\"]}}",
                   0xf);
    /* more children than BLOCK_MIN (the node's own block summaries), by
     * free and by id: the graph tells the cores are in order (all
     * leaves), no walk over them (targets zero scores them) */
    test_hints_on ("64 cores in nodes",
                   "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
                   "\"0-199\",\"children\":{\"core\":\"0-63\",\"gpu\":"
                   "\"0-3\"}}],\"starttime\":0,\"expiration\":0,"
                   "\"nodelist\":[\"n[0-199]\"]}}",
                   0xb);
    /* GPUs in the first 50 nodes only: big parents not evenly spaced,
     * found by the search where the even spacing guesses wrong */
    test_hints_on ("GPUs in some nodes",
                   "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
                   "\"0-49\",\"children\":{\"core\":\"0-65\",\"gpu\":"
                   "\"0-3\"}},{\"rank\":\"50-199\",\"children\":{\"core\":"
                   "\"0-65\"}}],\"starttime\":0,\"expiration\":0,"
                   "\"nodelist\":[\"n[0-199]\"]}}",
                   0x3);
}

/* With a policy that scores, the first pass decides from the aggregates
 * whether a node whose request holds only slots and leaf types fits: the
 * cores below the nodes it does not retake (ranks 0 and 1: the fake
 * prefers higher ranks) are never looked at.  A socket (not a leaf type)
 * in the request makes the first pass place the cores below every node. */
static void test_first_pass (void)
{
    static const struct {
        const char *res;
        int64_t rank;
        const char *expect;
    } cases[] = {
        { L (NODE ("2", SLOT ("1", CORE ("1")))), 2, "2:c0 3:c0" },
        { L (XNODE ("2", SLOT ("1", CORE ("1")))), 2, "2:c" W1 " 3:c" W1 },
        { L (NODE ("2", "{type: socket, count: 1, with: [" SLOT (
                            "1", CORE ("1")) "]}")),
          0, "2:c0 3:c0" },
    };

    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct rp_plugin p = { .instance = "fake", .kind = RP_PLUGIN_MATCH };
        struct rp_matcher *m = matcher (G1);
        struct rp_jobspec *js = jobspec (cases[i].res, NULL, 0);
        struct rp_rset *R;
        rp_error_t e;
        char out[512] = "";

        p.match = (struct rp_match_ops){ .size = sizeof (p.match),
                                         .score = fake_score };
        fake = (struct fake){ .core_rank = INT64_MAX };
        if (rp_matcher_set_policy (m, &p, &e) < 0)
            BAIL_OUT ("set_policy: %s", e.text);
        if ((R = rp_matcher_allocate (m, 1, js, 0, &e)))
            summary (R, out, sizeof (out));
        is (out, cases[i].expect, "first pass %zu: the allocation", i + 1);
        cmp_ok (fake.core_rank, ==, cases[i].rank,
                "first pass %zu: lowest rank scored for a core", i + 1);
        rp_rset_destroy (R);
        rp_jobspec_destroy (js);
        rp_matcher_destroy (m);
    }
}

static void test_accessors (void)
{
    struct rp_plugin p = { .instance = "fake", .kind = RP_PLUGIN_MATCH };
    struct rp_matcher *m = matcher (G1);
    struct rp_jobspec *js = jobspec (L (SLOT ("2", CORE ("3"))), NULL, 0);
    rp_error_t e;
    uint64_t row[2] = { 7, 7 };

    p.match =
        (struct rp_match_ops){ .size = sizeof (p.match), .score = fake_score };
    fake.mode = 0;
    fake.calls = 0;
    fake.rows_bad = 0;
    (void)rp_matcher_set_policy (m, &p, &e);
    rp_rset_destroy (rp_matcher_allocate (m, 1, js, 0, &e));
    ok (fake.calls > 0, "score was called");
    ok (fake.request_type == rp_graph_type_index (rp_matcher_graph (m), "core"),
        "rp_match_request_type: the core request's type index");
    ok (fake.unit_need_core == 1, "rp_match_unit_need: a core needs itself");
    ok (fake.count_need == 3, "rp_match_count_need: 3 cores at first");
    ok (fake.slot_unit_need_core == 3, "rp_match_unit_need: 3 cores per slot");
    ok (fake.slot_count_need == 2, "rp_match_count_need: 2 slots at first");
    ok (!fake.sat, "not a satisfiability check");
    ok (rp_matcher_satisfiability (m, js, &e) == 0 && fake.sat,
        "rp_match_is_satisfiability in a satisfiability check");
    ok (fake.rows_bad == 0,
        "rp_match_unit_needs, rp_match_subtree_frees: what the one-type "
        "accessors give at every vertex scored (and a bad one), live and in "
        "a satisfiability check; nothing past n");
    ok (rp_match_graph (NULL) == NULL && rp_match_count_need (NULL) == 0
            && rp_match_vertex_free (NULL, 0) == 0
            && rp_match_unit_needs (NULL, row, 2) == 0
            && rp_match_subtree_frees (NULL, 0, row, 2) == 0 && row[0] == 7
            && row[1] == 7,
        "accessors accept NULL");
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
}

/* rp_match_held through a policy that records, at each score call for a
 * request of type `when`, what the match holds below fixed vertices. */
struct held_rec {
    int when;           /* graph type index of the request to look at */
    int calls;          /* score calls for that request */
    uint64_t sock[2];   /* cores held below node0's two sockets */
    uint64_t node_core; /* below node0 */
    uint64_t root_core, root_gpu, root_node, sock_socket;
    bool bad_zero; /* bad arguments gave 0 */
};

static struct held_rec hrec;

static rp_vertex_t child_of_type (const struct rp_graph *g, rp_vertex_t v,
                                  int t, int nth)
{
    for (rp_vertex_t c = rp_graph_child_first (g, v); c != RP_VERTEX_NONE;
         c = rp_graph_child_next (g, c))
        if (rp_graph_vertex_type_index (g, c) == t && nth-- == 0)
            return c;
    return RP_VERTEX_NONE;
}

static int held_score (struct rp_plugin *p, const struct rp_match *m,
                       rp_vertex_t v, int64_t *score)
{
    const struct rp_graph *g = rp_match_graph (m);
    int core = rp_graph_type_index (g, "core");
    int socket = rp_graph_type_index (g, "socket");
    rp_vertex_t root = rp_graph_root (g);
    rp_vertex_t node0 =
        child_of_type (g, root, rp_graph_type_index (g, "node"), 0);
    rp_vertex_t s0 = child_of_type (g, node0, socket, 0);

    (void)p;
    *score = 0; /* walk order */
    if (rp_match_request_type (m) != hrec.when)
        return 0;
    hrec.calls++;
    hrec.sock[0] = rp_match_held (m, s0, core);
    hrec.sock[1] = rp_match_held (m, child_of_type (g, node0, socket, 1), core);
    hrec.node_core = rp_match_held (m, node0, core);
    hrec.root_core = rp_match_held (m, root, core);
    hrec.root_gpu = rp_match_held (m, root, rp_graph_type_index (g, "gpu"));
    hrec.root_node = rp_match_held (m, root, rp_graph_type_index (g, "node"));
    hrec.sock_socket = rp_match_held (m, s0, socket);
    hrec.bad_zero =
        rp_match_held (m, (rp_vertex_t)rp_graph_nvertices (g), core) == 0
        && rp_match_held (m, v, -1) == 0
        && rp_match_held (m, v, (int)rp_graph_ntypes (g)) == 0;
    return 0;
}

static void test_held (void)
{
    static const struct {
        const char *name;
        const char *res;
        const char *when;
        bool sat;
        const char *expect; /* R of job 2 */
        struct held_rec h;  /* when, calls and bad_zero not compared */
        const char *first;  /* job 1's request, when not res */
    } cases[] = {
        /* Job 1 (the same request) took node0's cores 0-1 and gpu 0:
         * not counted; job 2's cores were retaken after the first pass
         * was undone: counted once. */
        { "a slot's cores while its GPU is placed",
          L (SLOT ("1", CORE ("2") "," GPU ("1"))),
          "gpu",
          false,
          "0:c2-3g1",
          { .sock = { 2, 0 }, .node_core = 2, .root_core = 2 } },
        { "the same in a satisfiability check",
          L (SLOT ("1", CORE ("2") "," GPU ("1"))),
          "gpu",
          true,
          "",
          { .sock = { 2, 0 }, .node_core = 2, .root_core = 2 } },
        /* Job 2 holds node2 whole (its cores and GPUs counted, the node
         * itself too; job 1's node0 not) when its second request is
         * placed; the shared holds of ancestors are not counted. */
        { "an exclusive node while the next request is placed",
          L (XNODE ("1", SLOT ("1", CORE ("1"))) "," NODE (
              "1", SLOTT ("1", CORE ("1")))),
          "node",
          false,
          "1:c1 2:c" W1,
          { .root_core = 8, .root_gpu = 2, .root_node = 1 } },
        /* The first pass finds every slot and is undone; the slots are
         * retaken and the GPU of the second asked about with the first's
         * cores and GPU and the second's cores held, all logged again
         * since the last question (the rows follow the log only when
         * asked: an undo must take away what they counted, no more). */
        { "two slots' GPUs after the first pass was undone",
          L (SLOT ("2", CORE ("2") "," GPU ("1"))),
          "gpu",
          false,
          "1:c0-3g0-1",
          { .root_core = 4, .root_gpu = 1 } },
        /* Job 1 took two of node0's socket 0 cores: socket 1 and three
         * of its cores are held for the first socket, no second socket
         * fits, and the undo takes them away before any question since
         * (the rows never counted them: nothing to take from the rows);
         * node1's last core question sees its socket 0's cores held. */
        { "an undo of holds logged since the last question",
          L (NODE ("1", "{type: socket, count: 2, with: [" SLOT (
                            "1", CORE ("3")) "]}")),
          "core",
          false,
          "1:c0-2,4-6",
          { .root_core = 3 },
          L (SLOT ("1", CORE ("2"))) },
    };
    struct rp_plugin p = { .instance = "fake", .kind = RP_PLUGIN_MATCH };

    p.match =
        (struct rp_match_ops){ .size = sizeof (p.match), .score = held_score };
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct rp_matcher *m = matcher (G1);
        const struct rp_graph *g = rp_matcher_graph (m);
        struct rp_jobspec *js = jobspec (cases[i].res, NULL, 0);
        struct rp_jobspec *js1 =
            cases[i].first ? jobspec (cases[i].first, NULL, 0) : NULL;
        struct rp_rset *R = NULL;
        rp_error_t e;
        char out[512] = "";
        int rc = 0;

        if (rp_matcher_set_policy (m, &p, &e) < 0)
            BAIL_OUT ("set_policy: %s", e.text);
        hrec = (struct held_rec){ .when = -2 };
        rp_rset_destroy (rp_matcher_allocate (m, 1, js1 ? js1 : js, 0, &e));
        hrec =
            (struct held_rec){ .when = rp_graph_type_index (g, cases[i].when) };
        if (cases[i].sat)
            rc = rp_matcher_satisfiability (m, js, &e);
        else if ((R = rp_matcher_allocate (m, 2, js, 0, &e)))
            summary (R, out, sizeof (out));
        ok (rc == 0, "held %s: matched", cases[i].name);
        is (out, cases[i].expect, "held %s: job 2", cases[i].name);
        ok (hrec.calls > 0 && hrec.bad_zero,
            "held %s: scored; bad arguments give 0", cases[i].name);
        cmp_ok (hrec.sock[0], ==, cases[i].h.sock[0], "held %s: socket 0 cores",
                cases[i].name);
        cmp_ok (hrec.sock[1], ==, cases[i].h.sock[1], "held %s: socket 1 cores",
                cases[i].name);
        cmp_ok (hrec.node_core, ==, cases[i].h.node_core,
                "held %s: node0 cores", cases[i].name);
        cmp_ok (hrec.root_core, ==, cases[i].h.root_core, "held %s: all cores",
                cases[i].name);
        cmp_ok (hrec.root_gpu, ==, cases[i].h.root_gpu, "held %s: all GPUs",
                cases[i].name);
        cmp_ok (hrec.root_node, ==, cases[i].h.root_node, "held %s: nodes",
                cases[i].name);
        cmp_ok (hrec.sock_socket, ==, 0,
                "held %s: a socket held as an ancestor: 0", cases[i].name);
        rp_rset_destroy (R);
        rp_jobspec_destroy (js);
        rp_jobspec_destroy (js1);
        rp_matcher_destroy (m);
    }
    ok (rp_match_held (NULL, 0, 0) == 0, "rp_match_held (NULL) is 0");
}

/* rp_matcher_set_explain and rp_matcher_explanation: off by default, the
 * deciding run's figures when on, dropped when turned off. */
static void test_explain (void)
{
    struct rp_matcher *m = matcher ("nodes=2,cores=2");
    struct rp_jobspec *js = jobspec (
        L ("{type: node, count: 2, with: [{type: slot, label: s, count: 1, "
           "with: [{type: core, count: 2}]}]}"),
        NULL, 0);
    struct rp_rset *R;
    json_t *o, *r0;
    rp_error_t e;

    ok (rp_matcher_explanation (m) == NULL, "explain: off by default");
    R = rp_matcher_allocate (m, 1, js, 0, &e);
    ok (R && rp_matcher_explanation (m) == NULL,
        "explain: nothing recorded while off");
    rp_rset_destroy (R);
    rp_matcher_free (m, 1, NULL);
    rp_matcher_set_explain (m, true);
    R = rp_matcher_allocate (m, 1, js, 0, &e);
    o = rp_matcher_explanation (m);
    r0 = json_array_get (json_object_get (o, "requests"), 0);
    ok (R && o
            && !strcmp (json_string_value (json_object_get (o, "outcome")),
                        "allocated")
            && !strcmp (json_string_value (json_object_get (o, "policy")),
                        "first")
            && !json_object_get (o, "reason")
            && json_array_size (json_object_get (o, "requests")) == 3,
        "explain: allocated, three requests");
    ok (r0
            && !strcmp (json_string_value (json_object_get (r0, "request")),
                        "node")
            && !strcmp (json_string_value (json_object_get (r0, "count")), "2")
            && json_integer_value (json_object_get (r0, "taken")) == 2
            && json_integer_value (json_object_get (r0, "in_graph")) == 2,
        "explain: the node request: count 2, 2 taken, 2 in the graph");
    json_decref (o);
    rp_rset_destroy (R);
    R = rp_matcher_allocate (m, 2, js, 0, &e);
    o = rp_matcher_explanation (m);
    ok (!R && o
            && !strcmp (json_string_value (json_object_get (o, "outcome")),
                        "not now")
            && !strcmp (json_string_value (json_object_get (o, "reason")),
                        e.text),
        "explain: not now, with the reason the call gave");
    json_decref (o);
    rp_matcher_set_explain (m, false);
    ok (rp_matcher_explanation (m) == NULL, "explain: off drops it");
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
    ok (rp_matcher_explanation (NULL) == NULL, "explain: NULL matcher");
}

/* The cores of a slot taken by the walk's leaf path (first fit, leaves
 * taken together, no constraint): cores held by job 1 skipped by the
 * search, those outside the ids counted as refused, the rest taken until
 * the count, as the explanation counts them. */
static void test_leaf_run (void)
{
    struct rp_matcher *m = matcher ("nodes=1,cores=8");
    struct rp_jobspec *j1 = jobspec (L (SLOT ("1", CORE ("2"))), NULL, 0);
    struct rp_jobspec *j2 = jobspec (
        L (SLOT ("1", "{type: core, count: 2, id: \"1,3,6-7\"}")), NULL, 0);
    struct rp_rset *R1, *R2;
    json_t *o, *c;
    char out[128] = "";
    rp_error_t e;

    R1 = rp_matcher_allocate (m, 1, j1, 0, &e);
    rp_matcher_set_explain (m, true);
    if ((R2 = rp_matcher_allocate (m, 2, j2, 0, &e)))
        summary (R2, out, sizeof (out));
    is (out, "0:c3,6", "leaf path: the first two free cores among the ids");
    o = rp_matcher_explanation (m);
    c = json_array_get (json_object_get (o, "requests"), 1);
    ok (c
            && !strcmp (json_string_value (json_object_get (c, "request")),
                        "slot/core")
            && json_integer_value (json_object_get (c, "considered")) == 5
            && json_integer_value (json_object_get (c, "id")) == 3
            && json_integer_value (json_object_get (c, "busy")) == 0
            && json_integer_value (json_object_get (c, "taken")) == 2,
        "leaf path: 5 cores considered, 3 outside the ids, 2 taken");
    json_decref (o);
    ok (rp_matcher_check (m, &e) == 0, "leaf path: rp_matcher_check");
    rp_rset_destroy (R1);
    rp_rset_destroy (R2);
    rp_jobspec_destroy (j1);
    rp_jobspec_destroy (j2);
    rp_matcher_destroy (m);
}

/* --- allocations without R ---------------------------------------------- */

/* "node N core N gpu N hosts LIST" of a job: from the matcher's counts
 * (R NULL) or from R. */
static void held_line (struct rp_matcher *m, uint64_t id,
                       const struct rp_rset *R, char *buf, size_t size)
{
    struct rp_hostlist *hl =
        R ? rp_rset_nodelist (R) : rp_matcher_job_nodelist (m, id);
    char *hosts = hl ? rp_hostlist_encode (hl) : NULL;

    snprintf (buf, size, "node %zd core %zd gpu %zd hosts %s",
              R ? rp_rset_count (R, "node") : rp_matcher_job_count (m, id, "node"),
              R ? rp_rset_count (R, "core") : rp_matcher_job_count (m, id, "core"),
              R ? rp_rset_count (R, "gpu") : rp_matcher_job_count (m, id, "gpu"),
              hosts ? hosts : "(null)");
    free (hosts);
    rp_hostlist_destroy (hl);
}

/* Each jobspec allocated with and without R, on two matchers of the same
 * graph: the same counts and nodelist, the same R when asked. */
static void held_same (const char *graph, const char *const *res, size_t n,
                       const char *const *expect)
{
    struct rp_matcher *a = matcher (graph), *b = matcher (graph);
    char la[512], lb[512], ra[512], rb[512];
    rp_error_t e;

    for (size_t i = 0; i < n; i++) {
        struct rp_jobspec *js = jobspec (res[i], NULL, 0);
        struct rp_rset *R = rp_matcher_allocate (a, i + 1, js, 5, &e);
        int rc = rp_matcher_allocate_held (b, i + 1, js, 5, &e);
        if (!R || rc < 0)
            BAIL_OUT ("held_same %s %s: %s", graph, res[i], e.text);
        held_line (a, i + 1, R, la, sizeof (la));
        held_line (b, i + 1, NULL, lb, sizeof (lb));
        is (lb, expect[i], "%s: %s without R: %s", graph, res[i], lb);
        is (lb, la, "... as R counts it");
        summary (R, ra, sizeof (ra));
        summary (rp_matcher_job_rset (b, i + 1), rb, sizeof (rb));
        is (rb, ra, "... and job_rset gives the same R: %s", rb);
        ok (rp_matcher_check (b, &e) == 0, "... check passes");
        rp_rset_destroy (R);
        rp_jobspec_destroy (js);
    }
    rp_matcher_destroy (a);
    rp_matcher_destroy (b);
}

/* A target whose name is no host name: refused without R as R refuses
 * it, nothing held. */
static void test_held_host (void)
{
    struct rp_graph *g = rp_graph_create ();
    struct rp_jobspec *js = jobspec (L (SLOT ("1", CORE ("1"))), NULL, 0);
    struct rp_matcher *m;
    rp_vertex_t c, n;
    rp_error_t e, eR;

    if (!g
        || (c = rp_graph_add_vertex (g, "cluster", NULL, 0, 1, NULL, &e))
               == RP_VERTEX_NONE
        || (n = rp_graph_add_vertex (g, "node", "n[0-1]", 0, 1, NULL, &e))
               == RP_VERTEX_NONE
        || rp_graph_add_edge (g, c, n, "containment", "contains", &e) < 0
        || rp_graph_add_edge (g, n,
                              rp_graph_add_vertex (g, "core", NULL, 0, 1, NULL,
                                                   &e),
                              "containment", "contains", &e)
               < 0
        || rp_graph_set_rank (g, n, 0, &e) < 0 || rp_graph_finalize (g, &e) < 0
        || !(m = rp_matcher_create (g, &e)))
        BAIL_OUT ("test_held_host: %s", e.text);
    errno = 0;
    ok (rp_matcher_allocate_held (m, 1, js, 0, &e) < 0 && errno == EINVAL,
        "held: a target named as no host: EINVAL");
    is (e.text, "host name \"n[0-1]0\" is not a single host",
        "with its message");
    ok (!rp_matcher_allocate (m, 1, js, 0, &eR) && !strcmp (e.text, eR.text),
        "as allocate says it");
    ok (rp_matcher_njobs (m) == 0 && rp_matcher_check (m, &e) == 0
            && gstate_idle (graph_live (rp_matcher_graph (m)),
                            rp_graph_root (rp_matcher_graph (m))),
        "nothing held");
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
}

/* Under a policy that walks from the highest node, a job's holds come in
 * descending rank: its counts (sorted first) are still R's. */
static void test_held_high (void)
{
    struct rp_plugin p = { .instance = "high", .kind = RP_PLUGIN_MATCH };
    struct rp_matcher *a = matcher ("nodes=4,cores=2"),
                      *b = matcher ("nodes=4,cores=2");
    struct rp_jobspec *js =
        jobspec (L (SLOT ("3", NODE ("1", CORE ("1")))), NULL, 0);
    struct rp_rset *R;
    char la[512], lb[512];
    rp_error_t e;

    p.match = (struct rp_match_ops){ .size = sizeof (p.match),
                                     .order = RP_MATCH_HIGH };
    if (rp_matcher_set_policy (a, &p, &e) < 0
        || rp_matcher_set_policy (b, &p, &e) < 0
        || !(R = rp_matcher_allocate (a, 1, js, 0, &e))
        || rp_matcher_allocate_held (b, 1, js, 0, &e) < 0)
        BAIL_OUT ("test_held_high: %s", e.text);
    held_line (a, 1, R, la, sizeof (la));
    held_line (b, 1, NULL, lb, sizeof (lb));
    is (lb, "node 3 core 6 gpu 0 hosts node[1-3]",
        "high: 3 nodes without R, from the last: %s", lb);
    is (lb, la, "... as R counts them");
    rp_rset_destroy (R);
    rp_jobspec_destroy (js);
    rp_matcher_destroy (a);
    rp_matcher_destroy (b);
}

/* A vertex of type and id under parent (RP_VERTEX_NONE: the root), a
 * target of rank when rank >= 0. */
static rp_vertex_t wv (struct rp_graph *g, const char *type, int64_t id,
                       rp_vertex_t parent, int64_t rank)
{
    rp_error_t e;
    rp_vertex_t v = rp_graph_add_vertex (g, type, NULL, id, 1, NULL, &e);

    if (v == RP_VERTEX_NONE
        || (parent != RP_VERTEX_NONE
            && rp_graph_add_edge (g, parent, v, RP_GRAPH_CONTAINMENT,
                                  "contains", &e)
                   < 0)
        || (rank >= 0 && rp_graph_set_rank (g, v, rank, &e) < 0))
        BAIL_OUT ("wv %s%lld: %s", type, (long long)id, e.text);
    return v;
}

/* cluster > rack0 > node0 (rank 0: cores 0, 2 .. 66, each its own
 * range), node1 (rank 1: cores 7 .. 4, one of id 2^32 + 1, GPUs 3, 1,
 * 2); rack1 > node2 (rank 2: socket0 > cores 0-3, socket1 > cores 4-7,
 * GPUs 0-1), node3 (rank 3: cores 0-1). */
static struct rp_matcher *whole_ids_matcher (void)
{
    struct rp_graph *g = rp_graph_create ();
    rp_vertex_t c = wv (g, "cluster", 0, RP_VERTEX_NONE, -1);
    rp_vertex_t r0 = wv (g, "rack", 0, c, -1), r1 = wv (g, "rack", 1, c, -1);
    rp_vertex_t n = wv (g, "node", 0, r0, 0), s = RP_VERTEX_NONE;
    struct rp_matcher *m;
    rp_error_t e;

    for (int i = 0; i < 34; i++)
        wv (g, "core", 2 * i, n, -1);
    n = wv (g, "node", 1, r0, 1);
    for (int i = 7; i >= 4; i--)
        wv (g, "core", i, n, -1);
    wv (g, "core", (int64_t)UINT32_MAX + 2, n, -1);
    wv (g, "gpu", 3, n, -1);
    wv (g, "gpu", 1, n, -1);
    wv (g, "gpu", 2, n, -1);
    n = wv (g, "node", 2, r1, 2);
    for (int i = 0; i < 8; i++) {
        if (i % 4 == 0)
            s = wv (g, "socket", i / 4, n, -1);
        wv (g, "core", i, s, -1);
    }
    wv (g, "gpu", 0, n, -1);
    wv (g, "gpu", 1, n, -1);
    n = wv (g, "node", 3, r1, 3);
    wv (g, "core", 0, n, -1);
    wv (g, "core", 1, n, -1);
    if (rp_graph_finalize (g, &e) < 0 || !(m = rp_matcher_create (g, &e)))
        BAIL_OUT ("whole_ids_matcher: %s", e.text);
    return m;
}

/* R of subtrees held whole (their ids as ranges, match_output.c): ids out
 * of order, descending, past UINT32_MAX, sockets between, more ranges
 * than the stack holds, a rack whose nodes are the targets, and a job of
 * more items than the stack holds; counted per id without R the same. */
static void test_whole_R (void)
{
    static const char *const jobs[] = {
        L (XNODE ("1", SLOT ("1", CORE ("1")))),
        L (XNODE ("1", SLOT ("1", CORE ("1")))),
        L (XRACK ("1", NODE ("1", SLOT ("1", CORE ("1"))))),
        L (XNODE ("4", SLOT ("1", CORE ("1")))),
    };
    char node0[256] = "0:c", sum[512], la[512], lb[512], expect[4][512];
    size_t len = 3;
    rp_error_t e;

    for (int i = 0; i < 34; i++)
        len += snprintf (node0 + len, sizeof (node0) - len, "%s%d",
                         i ? "," : "", 2 * i);
    snprintf (expect[0], sizeof (expect[0]), "%s", node0);
    snprintf (expect[1], sizeof (expect[1]), "1:c4-7g1-3");
    snprintf (expect[2], sizeof (expect[2]), "2:c0-7g0-1 3:c0-1");
    snprintf (expect[3], sizeof (expect[3]), "%s 1:c4-7g1-3 %s", node0,
              expect[2]);
    struct rp_matcher *m = whole_ids_matcher ();
    for (size_t i = 0; i < 4; i++) {
        struct rp_jobspec *js = jobspec (jobs[i], NULL, 0);
        struct rp_rset *R = rp_matcher_allocate (m, i + 1, js, 0, &e);
        if (!R)
            BAIL_OUT ("test_whole_R %zu: %s", i, e.text);
        summary (R, sum, sizeof (sum));
        is (sum, expect[i], "whole R %zu: %s", i + 1, sum);
        held_line (m, i + 1, R, la, sizeof (la));
        held_line (m, i + 1, NULL, lb, sizeof (lb));
        is (lb, la, "... counted per id without R the same: %s", lb);
        ok (rp_matcher_check (m, &e) == 0, "... check passes");
        rp_rset_destroy (R);
        rp_jobspec_destroy (js);
        if (i == 2)
            for (uint64_t id = 1; id <= 3; id++)
                (void)rp_matcher_free (m, id, &e);
    }
    rp_matcher_destroy (m);
}

static void test_allocate_held (void)
{
    static const char *const gen[] = {
        L (XNODE ("1", SLOT ("1", CORE ("1")))),
        L (SLOT ("3", CORE ("1"))),
        L (SLOT ("2", NODE ("1", CORE ("2") "," GPU ("1")))),
        L (SLOT ("1", CORE ("1") "," GPU ("1"))),
    };
    static const char *const gen_expect[] = {
        "node 1 core 4 gpu 2 hosts node0",
        "node 1 core 3 gpu 0 hosts node1",
        "node 2 core 8 gpu 4 hosts node[2-3]", /* a node in a slot: whole */
        "node 1 core 1 gpu 1 hosts node1",
    };
    static const char *const odd[] = { L (XNODE ("1", SLOT ("1", CORE ("1")))) };
    static const char *const odd_expect[] = {
        "node 1 core 2 gpu 1 hosts node0",
    };
    struct rp_matcher *m = matcher ("nodes=2,cores=2");
    struct rp_jobspec *js = jobspec (L (SLOT ("3", CORE ("1"))), NULL, 0);
    rp_error_t e, eR;
    struct rp_rset *R;

    held_same ("nodes=4,sockets=2,cores=2,gpus=2", gen, 4, gen_expect);
    held_same ("oddid", odd, 1, odd_expect);

    ok (rp_matcher_allocate_held (m, 1, js, 0, &e) == 0, "held: job 1");
    errno = 0;
    ok (rp_matcher_allocate_held (m, 1, js, 0, &e) < 0 && errno == EEXIST,
        "held: the same id again fails with EEXIST");
    is (e.text, "job 1 already holds resources", "with its message");
    errno = 0;
    ok (rp_matcher_allocate_held (m, 2, js, 0, &e) < 0 && errno == EBUSY,
        "held: no room fails with EBUSY");
    R = rp_matcher_allocate (m, 2, js, 0, &eR);
    ok (!R && strcmp (e.text, eR.text) == 0,
        "with allocate's message: %s", e.text);
    ok (rp_matcher_njobs (m) == 1 && rp_matcher_check (m, &e) == 0,
        "a failed allocation holds nothing");
    errno = 0;
    ok (rp_matcher_allocate_held (m, 3, NULL, 0, &e) < 0 && errno == EINVAL,
        "held: no jobspec fails with EINVAL");
    ok (rp_matcher_allocate_held (NULL, 3, js, 0, &e) < 0 && errno == EINVAL,
        "held: no matcher fails with EINVAL");
    errno = 0;
    ok (rp_matcher_job_count (m, 9, "core") < 0 && errno == ENOENT,
        "job_count of an unknown job: ENOENT");
    errno = 0;
    ok (rp_matcher_job_count (m, 1, "socket") < 0 && errno == EINVAL,
        "job_count of a type R_lite does not count: EINVAL");
    errno = 0;
    ok (rp_matcher_job_count (m, 1, NULL) < 0 && errno == EINVAL
            && rp_matcher_job_count (NULL, 1, "core") < 0,
        "job_count with bad arguments: EINVAL");
    errno = 0;
    ok (!rp_matcher_job_nodelist (m, 9) && errno == ENOENT,
        "job_nodelist of an unknown job: ENOENT");
    errno = 0;
    ok (!rp_matcher_job_nodelist (NULL, 1) && errno == EINVAL,
        "job_nodelist with no matcher: EINVAL");
    ok (rp_matcher_free (m, 1, &e) == 0 && rp_matcher_njobs (m) == 0
            && gstate_idle (graph_live (rp_matcher_graph (m)),
                            rp_graph_root (rp_matcher_graph (m))),
        "a job allocated without R frees as any other");
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
    test_held_host ();
    test_held_high ();
}

int main (void)
{
    plan (NO_PLAN);
    for (size_t i = 0; i < sizeof (seqs) / sizeof (seqs[0]); i++)
        run_seq (&seqs[i]);
    test_api ();
    test_jobs_and_times ();
    test_allocations ();
    test_R_in_job_block ();
    test_kept_requests ();
    test_kept_requests_other_jobspec ();
    test_check ();
    test_scheduling ();
    test_scheduling_text ();
    test_zero_count ();
    test_determinism ();
    test_policies ();
    test_hints ();
    test_first_pass ();
    test_accessors ();
    test_held ();
    test_explain ();
    test_leaf_run ();
    test_allocate_held ();
    test_whole_R ();
    return done_testing ();
}
