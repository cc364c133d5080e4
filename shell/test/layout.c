/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for the task layout: shell/layout.c.
 *
 * Layout tables: an R, a jobspec and a distribution; the task map every
 * target computes, and what each target runs, written
 *   "0:0-1 1:2-3:0 | 2:0-1"
 * (task 0 on the first target with cores 0-1; task 1 with cores 2-3 and
 * GPU 0; " | " between targets, "-" for a target without tasks).  Every
 * case is laid out on every rank and checked for what must hold whatever
 * the rules: all ranks agree on the map, the tasks are 0..N-1 once each,
 * each on the node the map says, every share is inside what R gives the
 * target, and a target with tasks hands out all of its cores and GPUs.
 *
 * R is written "cores[/gpus]" per target, ";" between targets, "Nx" to
 * repeat one: "2x0-3/0-1" is two targets of 4 cores and 2 GPUs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/layout.h"
#include "t/tap/tap.h"

#define JS(resources, count) JS_SYS (resources, count, "")
/* With more of the task entry (", distribution: cyclic") and more system
 * attributes (", shell: {...}"). */
#define JS_SYS(resources, count, system) JS_TASK (resources, count, "", system)
#define JS_TASK(resources, count, task, system)                                \
    "version: 1\nresources: " resources "\ntasks: [{command: [app], "          \
    "slot: task, count: " count task "}]\nattributes: {system: {duration: "    \
    "0" system "}}\n"
#define PER_RESOURCE_OPT(o)                                                    \
    JS_SYS (N2S2C1, "{per_slot: 1}",                                           \
            ", shell: {options: {per-resource: " o "}}")

static struct rp_jobspec *js_load (const char *yaml)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js = rp_jobspec_load (yaml, strlen (yaml), "job.yaml",
                                             RP_JOBSPEC_CANONICAL, d);

    if (!js)
        BAIL_OUT ("jobspec %s: %s", yaml,
                  rp_diags_count (d) ? rp_diags_text (d, 0) : "?");
    rp_diags_destroy (d);
    return js;
}

static void add_target (struct rp_rset *R, unsigned int rank, const char *s)
{
    char host[32], cores[256] = "", gpus[256] = "";
    const char *slash = strchr (s, '/');
    struct rp_idset *c, *g;
    size_t len = slash ? (size_t)(slash - s) : strlen (s);

    snprintf (cores, sizeof (cores), "%.*s", (int)len, s);
    if (slash)
        snprintf (gpus, sizeof (gpus), "%s", slash + 1);
    snprintf (host, sizeof (host), "node%u", rank);
    c = rp_idset_decode (cores, NULL);
    g = rp_idset_decode (gpus, NULL);
    if (!c || !g || rp_rset_add_target (R, rank, host, c, g, NULL) < 0)
        BAIL_OUT ("R target %s", s);
    rp_idset_destroy (c);
    rp_idset_destroy (g);
}

/* R from the test notation (see the top). */
static struct rp_rset *rset (const char *spec)
{
    struct rp_rset *R = rp_rset_create ();
    char *copy = strdup (spec);
    char *save = NULL;
    unsigned int rank = 0;

    for (char *tok = strtok_r (copy, ";", &save); tok;
         tok = strtok_r (NULL, ";", &save)) {
        char *x = strchr (tok, 'x');
        int n = x ? atoi (tok) : 1;
        for (int i = 0; i < n; i++)
            add_target (R, rank++, x ? x + 1 : tok);
    }
    free (copy);
    return R;
}

static void append_ids (char *buf, size_t size, const struct rp_idset *ids)
{
    char *s = rp_idset_encode (ids, RP_IDSET_RANGES);
    size_t used = strlen (buf);

    snprintf (buf + used, size - used, "%s", s);
    free (s);
}

/* This target's tasks in the table notation, appended to buf. */
static void describe (char *buf, size_t size, const struct rp_layout *l)
{
    size_t n = rp_layout_ntasks_local (l);

    if (n == 0)
        strncat (buf, "-", size - strlen (buf) - 1);
    for (size_t i = 0; i < n; i++) {
        const struct rp_idset *g = rp_layout_task_gpus (l, i);
        size_t used = strlen (buf);
        snprintf (buf + used, size - used, "%s%ld:", i ? " " : "",
                  rp_layout_task_global_id (l, i));
        append_ids (buf, size, rp_layout_task_cores (l, i));
        if (!rp_idset_empty (g)) {
            strncat (buf, ":", size - strlen (buf) - 1);
            append_ids (buf, size, g);
        }
    }
}

/* What must hold on target rank whatever the rules. */
static bool sound (const struct rp_layout *l, const struct rp_rset *R,
                   struct rp_idset *seen)
{
    unsigned int rank = rp_layout_rank (l);
    struct rp_idset *cores = rp_idset_create ();
    struct rp_idset *gpus = rp_idset_create ();
    size_t n = rp_layout_ntasks_local (l);
    bool good = true;

    for (size_t i = 0; i < n; i++) {
        long id = rp_layout_task_global_id (l, i);
        if (id < 0 || rp_idset_test (seen, id)
            || rp_taskmap_task_node (rp_layout_taskmap (l), id)
                   != rp_layout_nodeid (l)
            || rp_layout_task_local_id (l, id) != (long)i
            || (i > 0 && rp_layout_task_global_id (l, i - 1) >= id))
            good = false;
        rp_idset_add (seen, id);
        rp_idset_add_set (cores, rp_layout_task_cores (l, i));
        rp_idset_add_set (gpus, rp_layout_task_gpus (l, i));
    }
    if (n > 0
        && (!rp_idset_equal (cores, rp_rset_cores (R, rank))
            || !rp_idset_equal (gpus, rp_rset_gpus (R, rank))))
        good = false;
    rp_idset_destroy (cores);
    rp_idset_destroy (gpus);
    return good;
}

struct lcase {
    const char *name;
    const char *R;
    const char *jobspec;
    const char *dist;
    const char *map;
    const char *tasks;
};

/* What laying a job out on every rank of R gave. */
struct outcome {
    char error[RP_ERROR_TEXT_SIZE]; /* the first rank's, "" when none */
    int errnum;                     /* and its errno */
    bool agree;     /* every rank: the same error, or the same map */
    bool sound;     /* see sound (), and task ids 0..N-1 once each */
    char *map;      /* the task map (JSON), NULL on error */
    char got[4096]; /* the table notation */
};

static void lay_out (const struct rp_rset *R, const struct rp_jobspec *js,
                     const char *dist, struct outcome *o)
{
    const struct rp_idset *ranks = rp_rset_ranks (R);
    struct rp_idset *seen = rp_idset_create ();
    unsigned int node = 0;
    size_t ntasks = 0;

    memset (o, 0, sizeof (*o));
    o->agree = o->sound = true;
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r), node++) {
        rp_error_t e = { "" };
        struct rp_layout *l = rp_layout_create (R, js, r, dist, &e);
        char *map = l ? rp_taskmap_encode (rp_layout_taskmap (l), 0) : NULL;
        if (node == 0) {
            o->errnum = l ? 0 : errno;
            snprintf (o->error, sizeof (o->error), "%s", l ? "" : e.text);
            o->map = map ? strdup (map) : NULL;
        }
        o->agree = o->agree && !strcmp (o->error, l ? "" : e.text)
                   && (!l || (!strcmp (map, o->map)
                              && rp_layout_nodeid (l) == node));
        if (l) {
            o->sound = o->sound && sound (l, R, seen);
            ntasks += rp_layout_ntasks_local (l);
            if (node)
                strncat (o->got, " | ", sizeof (o->got) - strlen (o->got) - 1);
            describe (o->got, sizeof (o->got), l);
        }
        free (map);
        rp_layout_destroy (l);
    }
    o->sound = o->sound && rp_idset_count (seen) == ntasks
               && (ntasks == 0 || rp_idset_max (seen) == ntasks - 1);
    rp_idset_destroy (seen);
}

/* Lay c out on every rank: the table row, and soundness. */
static void check_case (const struct lcase *c)
{
    struct rp_rset *R = rset (c->R);
    struct rp_jobspec *js = js_load (c->jobspec);
    struct outcome o;

    lay_out (R, js, c->dist, &o);
    if (o.error[0])
        fail ("%s: %s", c->name, o.error);
    else {
        is (o.map, c->map, "%s: task map", c->name);
        is (o.got, c->tasks, "%s: tasks and shares", c->name);
        ok (o.agree && o.sound,
            "%s: every rank agrees, tasks 0..N-1 once each, shares within R",
            c->name);
    }
    free (o.map);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
}

/* jobspec create -N2 -n4 and -N2 -n3: node > slot > core */
#define N2S2C1                                                                 \
    "[{type: node, count: 2, with: [{type: slot, count: 2, "                   \
    "label: task, with: [{type: core, count: 1}]}]}]"

/* What flux run --tasks-per-node writes: per_slot 1 and a shell option. */
#define N2S1C2_OPT(o)                                                          \
    JS_SYS ("[{type: node, count: 2, with: [{type: slot, count: 1, label: "    \
            "task, with: [{type: core, count: 2}]}]}]",                        \
            "{per_slot: 1}", ", shell: {options: {per-resource: " o "}}")

static const struct lcase cases[] = {
    /* per_slot, block and cyclic */
    { "-N2 -n4", "2x0-1", JS (N2S2C1, "{per_slot: 1}"), NULL, "[[0,2,2,1]]",
      "0:0 1:1 | 2:0 3:1" },
    { "-N2 -n4 cyclic", "2x0-1", JS (N2S2C1, "{per_slot: 1}"), "cyclic",
      "[[0,2,1,2]]", "0:0 2:1 | 1:0 3:1" },
    { "-N2 -n4 cyclic:2", "2x0-1", JS (N2S2C1, "{per_slot: 1}"), "cyclic:2",
      "[[0,2,2,1]]", "0:0 1:1 | 2:0 3:1" },
    { "per_slot 2", "0-3",
      JS ("[{type: slot, count: 4, label: task, with: [{type: core, count: "
          "1}]}]",
          "{per_slot: 2}"),
      NULL, "[[0,1,8,1]]", "0:0 1:0 2:1 3:1 4:2 5:2 6:3 7:3" },
    /* uneven: 3 tasks over 2 nodes, total 5 over 2 slots */
    { "3 tasks on 2 nodes", "2x0-1", JS (N2S2C1, "{total: 3}"), NULL,
      "[[0,1,2,1],[1,1,1,1]]", "0:0 1:1 | 2:0-1" },
    { "3 tasks on 2 nodes, cyclic", "2x0-1", JS (N2S2C1, "{total: 3}"),
      "cyclic", "[[0,2,1,1],[0,1,1,1]]", "0:0 2:1 | 1:0-1" },
    { "total 5 on 2 slots of one node", "0-3",
      JS ("[{type: slot, count: 2, label: task, with: [{type: core, count: "
          "2}]}]",
          "{total: 5}"),
      NULL, "[[0,1,5,1]]", "0:0-1 1:0-1 2:0-1 3:2-3 4:2-3" },
    { "total 5 on 2 slots of two nodes", "2x0-1",
      JS ("[{type: slot, count: 2, label: task, with: [{type: core, count: "
          "2}]}]",
          "{total: 5}"),
      NULL, "[[0,1,3,1],[1,1,2,1]]", "0:0-1 1:0-1 2:0-1 | 3:0-1 4:0-1" },
    { "total 3 on 8 slots: runs of slots", "0-7",
      JS ("[{type: node, count: 1, with: [{type: slot, count: 8, label: "
          "task, with: [{type: core, count: 1}]}]}]",
          "{total: 3}"),
      NULL, "[[0,1,3,1]]", "0:0-2 1:3-5 2:6-7" },
    { "total 4 on 2x4 slots: dealt, not packed", "2x0-3",
      JS ("[{type: node, count: 2, with: [{type: slot, count: 4, label: "
          "task, with: [{type: core, count: 1}]}]}]",
          "{total: 4}"),
      NULL, "[[0,2,2,1]]", "0:0-1 1:2-3 | 2:0-1 3:2-3" },
    /* per_resource */
    { "per_resource core 2", "0-3",
      JS ("[{type: slot, count: 2, label: task, with: [{type: core, count: "
          "2}]}]",
          "{per_resource: {type: core, count: 2}}"),
      NULL, "[[0,1,8,1]]", "0:0-1 1:0-1 2:0-1 3:0-1 4:2-3 5:2-3 6:2-3 7:2-3" },
    { "per_resource gpu 1", "0-7/0-3",
      JS ("[{type: slot, count: 2, label: task, with: [{type: core, count: "
          "4}, {type: gpu, count: 2}]}]",
          "{per_resource: {type: gpu, count: 1}}"),
      NULL, "[[0,1,4,1]]", "0:0-3:0-1 1:0-3:0-1 2:4-7:2-3 3:4-7:2-3" },
    { "per_resource node 3 (slot of nodes)", "2x0-1",
      JS ("[{type: slot, count: 2, label: task, with: [{type: node, count: "
          "1, with: [{type: core, count: 2}]}]}]",
          "{per_resource: {type: node, count: 3}}"),
      NULL, "[[0,2,3,1]]", "0:0-1 1:0-1 2:0-1 | 3:0-1 4:0-1 5:0-1" },
    { "per_resource socket (counted in the jobspec)", "0-3",
      JS ("[{type: slot, count: 1, label: task, with: [{type: socket, "
          "count: 2, with: [{type: core, count: 2}]}]}]",
          "{per_resource: {type: socket, count: 1}}"),
      NULL, "[[0,1,2,1]]", "0:0-3 1:0-3" },
    /* slots of nodes (RFC 14 examples and use cases) */
    { "RFC 14 example 2", "4x0-1",
      JS ("[{type: slot, count: 4, label: task, with: [{type: node, count: "
          "1}]}]",
          "{per_slot: 1}"),
      NULL, "[[0,4,1,1]]", "0:0-1 | 1:0-1 | 2:0-1 | 3:0-1" },
    { "use case 2.2: total 5 on 4 slots of a node", "4x0",
      JS ("[{type: slot, count: 4, label: task, with: [{type: node, count: "
          "1}]}]",
          "{total: 5}"),
      NULL, "[[0,1,2,1],[1,3,1,1]]", "0:0 1:0 | 2:0 | 3:0 | 4:0" },
    { "slots of 2 nodes, per_slot 3", "4x0",
      JS ("[{type: slot, count: 2, label: task, with: [{type: node, count: "
          "2}]}]",
          "{per_slot: 3}"),
      NULL, "[[0,1,2,1],[1,1,1,1],[2,1,2,1],[3,1,1,1]]",
      "0:0 1:0 | 2:0 | 3:0 4:0 | 5:0" },
    { "use case 1.6: 2 slots of 1+ nodes on 5 nodes", "5x0-29",
      "version: 1\nresources: [{type: cluster, count: 2, with: [{type: slot, "
      "count: 1, label: task, with: [{type: node, count: {min: 1}, "
      "exclusive: false, with: [{type: core, count: 30}]}]}]}]\ntasks: "
      "[{command: [app], slot: task, count: {per_resource: {type: node, "
      "count: 1}}}]\nattributes: {system: {duration: 0}}\n",
      NULL, "[[0,5,1,1]]", "0:0-29 | 1:0-29 | 2:0-29 | 3:0-29 | 4:0-29" },
    { "a range of slots of a node: R decides", "3x0",
      JS ("[{type: slot, count: {min: 1}, label: task, with: [{type: node, "
          "count: 1}]}]",
          "{per_slot: 1}"),
      NULL, "[[0,3,1,1]]", "0:0 | 1:0 | 2:0" },
    /* splitting a target */
    { "-N1 -n2 -c2 --exclusive on 64 cores and 8 GPUs", "0-63/0-7",
      JS ("[{type: node, count: 1, exclusive: true, with: [{type: slot, "
          "count: 2, label: task, with: [{type: core, count: 2}]}]}]",
          "{per_slot: 1}"),
      NULL, "[[0,1,2,1]]", "0:0-31:0-3 1:32-63:4-7" },
    { "fewer GPUs than slots: consecutive slots share one", "0-7/0-1",
      JS ("[{type: node, count: 1, with: [{type: slot, count: 4, label: "
          "task, with: [{type: core, count: 2}]}]}]",
          "{per_slot: 1}"),
      NULL, "[[0,1,4,1]]", "0:0-1:0 1:2-3:0 2:4-5:1 3:6-7:1" },
    { "sparse core ids split by position", "1,3,5-7",
      JS ("[{type: slot, count: 2, label: task, with: [{type: core, count: "
          "2}]}]",
          "{per_slot: 1}"),
      NULL, "[[0,1,2,1]]", "0:1,3,5 1:6-7" },
    { "floating exact slots on unequal targets", "0-5;0-1",
      JS ("[{type: slot, count: 4, label: task, with: [{type: core, count: "
          "2}]}]",
          "{per_slot: 1}"),
      NULL, "[[0,1,3,1],[1,1,1,1]]", "0:0-1 1:2-3 2:4-5 | 3:0-1" },
    { "floating exact slots dealt over roomy targets", "2x0-7",
      JS ("[{type: slot, count: 4, label: task, with: [{type: core, count: "
          "2}]}]",
          "{per_slot: 1}"),
      NULL, "[[0,2,2,1]]", "0:0-3 1:4-7 | 2:0-3 3:4-7" },
    { "floating exact slots leave a target empty", "3x0-1",
      JS ("[{type: slot, count: 2, label: task, with: [{type: core, count: "
          "2}]}]",
          "{per_slot: 1}"),
      NULL, "[[0,2,1,1]]", "0:0-1 | 1:0-1 | -" },
    { "a range of slots: as many as fit", "0-5",
      JS ("[{type: slot, count: \"2+\", label: task, with: [{type: core, "
          "count: 2}]}]",
          "{per_slot: 1}"),
      NULL, "[[0,1,3,1]]", "0:0-1 1:2-3 2:4-5" },
    /* distribution from the jobspec, and flux-core's shell option */
    { "distribution: cyclic in the task entry", "2x0-1",
      JS_TASK (N2S2C1, "{per_slot: 1}", ", distribution: cyclic", ""), NULL,
      "[[0,2,1,2]]", "0:0 2:1 | 1:0 3:1" },
    { "the argument wins over the task entry", "2x0-1",
      JS_TASK (N2S2C1, "{per_slot: 1}", ", distribution: cyclic", ""), "block",
      "[[0,2,2,1]]", "0:0 1:1 | 2:0 3:1" },
    { "flux run --tasks-per-node=2 (shell option per-resource)", "2x0-1",
      N2S1C2_OPT ("{type: node, count: 2}"), NULL, "[[0,2,2,1]]",
      "0:0-1 1:0-1 | 2:0-1 3:0-1" },
    { "shell option per-resource core, count defaults to 1", "2x0-1",
      N2S1C2_OPT ("{type: core}"), NULL, "[[0,2,2,1]]",
      "0:0-1 1:0-1 | 2:0-1 3:0-1" },
    { "storage use case: a slot in a node in a slot", "2x0-4/0-6",
      "version: 1\nresources: [{type: slot, count: 2, label: outer, with: "
      "[{type: ssd, count: 1}, {type: node, count: 1, exclusive: true, "
      "with: [{type: slot, count: 1, label: task, with: [{type: core, count: "
      "5}, {type: gpu, count: 7}]}]}]}]\ntasks: [{command: [app], slot: "
      "task, count: {per_slot: 1}}]\nattributes: {system: {duration: 0}}\n",
      NULL, "[[0,2,1,1]]", "0:0-4:0-6 | 1:0-4:0-6" },
};

/* --- errors ---------------------------------------------------------- */

struct ecase {
    const char *R;
    const char *jobspec;
    unsigned int rank;
    const char *dist;
    const char *error;
};

#define SLOT4C2                                                                \
    "[{type: slot, count: 4, label: task, with: [{type: core, "                \
    "count: 2}]}]"

static const struct ecase errors[] = {
    { "2x0-1", JS (N2S2C1, "{per_slot: 1}"), 7, NULL,
      "layout: rank 7 is not in R (ranks 0-1)" },
    { "0-1",
      "version: 1\nresources: [{type: slot, count: 1, label: a, with: "
      "[{type: core, count: 1}]}, {type: slot, count: 1, label: b, with: "
      "[{type: core, count: 1}]}]\ntasks: [{command: [a], slot: a, count: "
      "{per_slot: 1}}, {command: [b], slot: b, count: {per_slot: "
      "1}}]\nattributes: {system: {duration: 0}}\n",
      0, NULL, "layout: the jobspec has 2 task entries; a layout runs one" },
    { "0-1",
      "version: 1\nresources: [{type: slot, count: 1, label: task, with: "
      "[{type: core, count: 1}]}, {type: slot, count: 1, label: b, with: "
      "[{type: core, count: 1}]}]\ntasks: [{command: [a], slot: task, count: "
      "{per_slot: 1}}]\nattributes: {system: {duration: 0}}\n",
      0, NULL,
      "layout: slot \"b\" is not the task's slot \"task\", nor around it or "
      "inside it" },
    { "0-1",
      JS ("[{type: node, count: 1, with: [{type: slot, count: 1, label: "
          "task, with: [{type: node, count: 1}]}]}]",
          "{per_slot: 1}"),
      0, NULL, "layout: slot \"task\" holds a node and is inside one" },
    { "0-1",
      JS ("[{type: slot, count: 1, label: task, with: [{type: memory, "
          "count: 4, unit: GB}]}]",
          "{per_slot: 1}"),
      0, NULL,
      "layout: slot \"task\" holds no node, core or GPU: R cannot say where "
      "its slots are" },
    { "0-1;0", JS (N2S2C1, "{per_slot: 1}"), 0, NULL,
      "layout: rank 1 (node1): 1 core and 0 GPUs cannot hold 2 slots of "
      "1 core" },
    { "0-3;0-2",
      JS ("[{type: node, count: 2, with: [{type: slot, count: 2, label: "
          "task, with: [{type: core, count: 2}, {type: gpu, count: 1}]}]}]",
          "{per_slot: 1}"),
      0, NULL,
      "layout: rank 0 (node0): 4 cores and 0 GPUs cannot hold 2 slots of "
      "2 cores and 1 GPU" },
    { "0-5", JS (SLOT4C2, "{per_slot: 1}"), 0, NULL,
      "layout: R holds 3 slots of 2 cores, the jobspec asks for 4" },
    { "0-1", JS (N2S2C1, "{per_slot: 1}"), 0, NULL,
      "layout: R holds 2 slots of 1 core, the jobspec asks for 4" },
    { "3x0",
      JS ("[{type: slot, count: 4, label: task, with: [{type: node, count: "
          "1}]}]",
          "{per_slot: 1}"),
      0, NULL,
      "layout: R holds 3 execution targets, fewer than the 4 nodes of 4 "
      "slots \"task\"" },
    { "0",
      JS ("[{type: slot, count: 1, label: task, with: [{type: core, count: "
          "1}]}]",
          "{per_slot: 65537}"),
      0, NULL, "layout: rank 0 (node0): more than 65536 tasks on one target" },
    { "0-70000",
      JS ("[{type: slot, count: {min: 1}, label: task, with: [{type: core, "
          "count: 1}]}]",
          "{per_slot: 1}"),
      0, NULL, "layout: rank 0 (node0): more than 65536 slots on one target" },
    { "300x0",
      JS ("[{type: node, count: 300, with: [{type: slot, count: 1, label: "
          "task, with: [{type: core, count: 1}]}]}]",
          "{per_slot: 65536}"),
      0, NULL, "layout: more than 16777216 tasks" },
    { "0-1",
      JS ("[{type: slot, count: 1, label: task, with: [{type: node, count: "
          "1, with: [{type: gpu, count: 1}]}]}]",
          "{per_resource: {type: gpu, count: 1}}"),
      0, NULL,
      "layout: per_resource: no gpu in the slots R holds, so no task to run" },
    { "2x0-1", JS (N2S2C1, "{per_slot: 1}"), 0, "plane",
      "layout: distribution \"plane\": not block, cyclic or cyclic:N" },
    { "2x0-1", JS (N2S2C1, "{per_slot: 1}"), 0, "cyclic:0",
      "layout: distribution \"cyclic:0\": N must be an integer from 1 to "
      "2147483647" },
    { "2x0-1", JS (N2S2C1, "{per_slot: 1}"), 0, "cyclic:02",
      "layout: distribution \"cyclic:02\": N must be an integer from 1 to "
      "2147483647" },
    { "2x0-1", JS (N2S2C1, "{per_slot: 1}"), 0, "cyclic:99999999999",
      "layout: distribution \"cyclic:99999999999\": N must be an integer from "
      "1 to 2147483647" },
    { "2x0-1", JS_TASK (N2S2C1, "{per_slot: 1}", ", distribution: plane", ""),
      0, NULL,
      "layout: distribution \"plane\": not block, cyclic or cyclic:N" },
    { "2x0-1", PER_RESOURCE_OPT ("{type: socket}"), 0, NULL,
      "layout: attributes.system.shell.options.per-resource: type must be "
      "node, core or gpu" },
    { "2x0-1", PER_RESOURCE_OPT ("{type: node, count: 0}"), 0, NULL,
      "layout: attributes.system.shell.options.per-resource: count must be "
      "an integer from 1 to 2147483647" },
    { "2x0-1", PER_RESOURCE_OPT ("{type: node, count: \"2\"}"), 0, NULL,
      "layout: attributes.system.shell.options.per-resource: count must be "
      "an integer from 1 to 2147483647" },
    { "2x0-1", PER_RESOURCE_OPT ("node"), 0, NULL,
      "layout: attributes.system.shell.options.per-resource: must be an "
      "object {type, count}" },
};

static void test_errors (void)
{
    for (size_t i = 0; i < sizeof (errors) / sizeof (errors[0]); i++) {
        struct rp_rset *R = rset (errors[i].R);
        struct rp_jobspec *js = js_load (errors[i].jobspec);
        rp_error_t e = { "" };
        struct rp_layout *l =
            rp_layout_create (R, js, errors[i].rank, errors[i].dist, &e);
        ok (l == NULL, "refused: %s", errors[i].error);
        is (e.text, errors[i].error, "with its message");
        rp_layout_destroy (l);
        rp_jobspec_destroy (js);
        rp_rset_destroy (R);
    }
}

/* 256 tasks on 1024 nodes: the nodes past 255 have none. */
static void test_1024_nodes (void)
{
    struct rp_rset *R = rset ("1024x0-63");
    struct rp_jobspec *js =
        js_load (JS ("[{type: node, count: 1024, with: [{type: slot, count: "
                     "1, label: task, with: [{type: core, count: 64}]}]}]",
                     "{total: 256}"));
    struct rp_layout *a = rp_layout_create (R, js, 255, NULL, NULL);
    struct rp_layout *b = rp_layout_create (R, js, 1023, "cyclic", NULL);
    char *map = a ? rp_taskmap_encode (rp_layout_taskmap (a), 0) : NULL;

    ok (a && rp_layout_ntasks (a) == 256 && rp_layout_nnodes (a) == 1024
            && rp_layout_nslots (a) == 1024 && rp_layout_ntasks_local (a) == 1
            && rp_layout_task_global_id (a, 0) == 255,
        "1024 nodes, total 256: node 255 runs task 255");
    is (map, "[[0,256,1,1]]", "the map names the 256 nodes with tasks");
    ok (b && rp_layout_ntasks_local (b) == 0 && rp_layout_nslots_local (b) == 1
            && !strcmp (rp_layout_distribution (b), "cyclic:1"),
        "node 1023 runs nothing, holds its slot");
    free (map);
    rp_layout_destroy (a);
    rp_layout_destroy (b);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
}

static void test_accessors (void)
{
    struct rp_rset *R = rset ("0-1;4-7");
    struct rp_jobspec *js = js_load (JS (N2S2C1, "{per_slot: 1}"));
    struct rp_layout *l;
    rp_error_t e;

    add_target (R, 9, "0-1"); /* ranks 0, 1, 9: node ids 0, 1, 2 */
    rp_jobspec_destroy (js);
    js = js_load (
        JS ("[{type: node, count: 3, with: [{type: slot, count: 2, label: "
            "task, with: [{type: core, count: 1}]}]}]",
            "{per_slot: 1}"));
    l = rp_layout_create (R, js, 9, "cyclic", &e);
    ok (l && rp_layout_rank (l) == 9 && rp_layout_nodeid (l) == 2
            && rp_layout_nslots_local (l) == 2 && rp_layout_ntasks (l) == 6,
        "rank 9 is node 2 of 3");
    ok (l && rp_layout_task_global_id (l, 0) == 2
            && rp_layout_task_global_id (l, 1) == 5
            && rp_layout_task_local_id (l, 5) == 1,
        "cyclic: node 2 runs tasks 2 and 5");
    errno = 0;
    ok (rp_layout_task_local_id (l, 0) == -1 && errno == ENOENT,
        "task 0 runs elsewhere: ENOENT");
    errno = 0;
    ok (rp_layout_task_global_id (l, 2) == -1 && errno == ENOENT,
        "no local task 2: ENOENT");
    errno = 0;
    ok (rp_layout_task_cores (l, 2) == NULL && errno == ENOENT
            && rp_layout_task_gpus (l, 2) == NULL,
        "no share for local task 2");
    rp_layout_destroy (l);
    l = rp_layout_create (R, js, 1, NULL, &e);
    ok (l && rp_layout_task_cores (l, 0)
            && rp_idset_count (rp_layout_task_cores (l, 0)) == 2
            && rp_idset_min (rp_layout_task_cores (l, 0)) == 4,
        "rank 1's first task gets R's cores 4-5");
    rp_layout_destroy (l);
    errno = 0;
    ok (rp_layout_create (NULL, js, 0, NULL, &e) == NULL && errno == EINVAL,
        "no R: EINVAL");
    errno = 0;
    ok (rp_layout_create (R, js, 3, NULL, &e) == NULL && errno == ENOENT,
        "rank 3 not in R: ENOENT");
    is (e.text, "layout: rank 3 is not in R (ranks 0-1,9)", "with its message");
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
}

/* --- random jobs: whatever the rules, every rank agrees ----------------- */

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static unsigned int rnd (unsigned int n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng % n;
}

/* 1-5 targets with gaps between ranks; 1-16 cores, sometimes every other
 * id from an offset; 0-4 GPUs. */
static struct rp_rset *random_rset (void)
{
    struct rp_rset *R = rp_rset_create ();
    unsigned int n = 1 + rnd (5), rank = 0;

    for (unsigned int i = 0; i < n; i++, rank += 1 + rnd (2)) {
        struct rp_idset *c = rp_idset_create ();
        struct rp_idset *g = rp_idset_create ();
        unsigned int ncores = 1 + rnd (16), ngpus = rnd (5);
        unsigned int base = rnd (4), step = rnd (3) ? 1 : 2;
        char host[32];
        for (unsigned int k = 0; k < ncores; k++)
            rp_idset_add (c, base + k * step);
        if (ngpus)
            rp_idset_add_range (g, 0, ngpus - 1);
        snprintf (host, sizeof (host), "node%u", rank);
        if (rp_rset_add_target (R, rank, host, c, g, NULL) < 0)
            BAIL_OUT ("random R");
        rp_idset_destroy (c);
        rp_idset_destroy (g);
    }
    return R;
}

/* A slot inside a node, floating, or of nodes, with a random count form. */
static void random_jobspec (char *buf, size_t size)
{
    unsigned int kind = rnd (3), c = 1 + rnd (4), g = rnd (2);
    char slots[16], shape[96], res[256], count[96];

    if (rnd (4))
        snprintf (slots, sizeof (slots), "%u", 1 + rnd (4));
    else
        snprintf (slots, sizeof (slots), "\"1+\"");
    if (kind == 2)
        snprintf (shape, sizeof (shape),
                  "{type: node, count: %u, with: [{type: core, count: 1}]}",
                  1 + rnd (2));
    else
        snprintf (shape, sizeof (shape),
                  "{type: core, count: %u}%s", c,
                  g ? ", {type: gpu, count: 1}" : "");
    if (kind == 0)
        snprintf (res, sizeof (res),
                  "[{type: node, count: %u, with: [{type: slot, count: %s, "
                  "label: task, with: [%s]}]}]",
                  1 + rnd (3), slots, shape);
    else
        snprintf (res, sizeof (res),
                  "[{type: slot, count: %s, label: task, with: [%s]}]", slots,
                  shape);
    switch (rnd (4)) {
    case 0:
        snprintf (count, sizeof (count), "{per_slot: %u}", 1 + rnd (3));
        break;
    case 1:
        snprintf (count, sizeof (count), "{total: %u}", 1 + rnd (20));
        break;
    case 2:
        snprintf (count, sizeof (count),
                  "{per_resource: {type: core, count: %u}}", 1 + rnd (2));
        break;
    default:
        snprintf (count, sizeof (count),
                  "{per_resource: {type: %s, count: 1}}",
                  kind == 2 ? "node" : g ? "gpu" : "core");
        break;
    }
    snprintf (buf, size,
              "version: 1\nresources: %s\ntasks: [{command: [app], slot: "
              "task, count: %s}]\nattributes: {system: {duration: 0}}\n",
              res, count);
}

static void test_random (void)
{
    static const char *dists[] = { NULL, "cyclic", "cyclic:2" };
    int laid = 0, disagree = 0, unsound = 0, internal = 0;

    for (int i = 0; i < 600; i++) {
        char yaml[1024];
        struct rp_rset *R = random_rset ();
        struct rp_jobspec *js;
        struct outcome o;
        random_jobspec (yaml, sizeof (yaml));
        js = js_load (yaml);
        lay_out (R, js, dists[rnd (3)], &o);
        if (!o.agree && disagree++ == 0)
            diag ("ranks disagree: %s", yaml);
        if (!o.error[0] && !o.sound && unsound++ == 0)
            diag ("unsound: %s: %s", yaml, o.got);
        if (o.errnum == EPROTO && internal++ == 0)
            diag ("%s: %s", yaml, o.error);
        laid += !o.error[0];
        free (o.map);
        rp_jobspec_destroy (js);
        rp_rset_destroy (R);
    }
    ok (disagree == 0, "600 random jobs: every rank gives the same map or "
                       "the same error");
    ok (unsound == 0, "every job laid out is sound");
    ok (internal == 0, "the closed forms never disagree with the placement");
    ok (laid >= 200, "most random jobs are laid out (%d of 600)", laid);
}

int main (void)
{
    plan (NO_PLAN);
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
        check_case (&cases[i]);
    test_errors ();
    test_1024_nodes ();
    test_accessors ();
    test_random ();
    done_testing ();
}
