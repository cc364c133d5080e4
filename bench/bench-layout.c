/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bench-layout: the cost of laying out a job's tasks on one execution
 * target (rp_layout_create) and reading every local task's ids and share,
 * as a Markdown table.
 *
 *   bench/bench-layout [--quick]
 *
 * R is the largest topology of the shared set, eas-tioga (64 cores, 8
 * GPUs), once as a 1-node R and once as a 1,024-node R of such nodes.
 * Each row lays out one jobspec for one rank, then walks every local task
 * (global id, cores, GPUs), and destroys the layout: what a job shell does
 * once.  Rows repeat, doubling the batch until MIN_SECONDS of CPU time,
 * and report microseconds per layout, per task on the target, and per task
 * of the job (a target computes every target's counts and the whole task
 * map).
 *
 * Each row's counts are checked before it is timed (tasks in the job and
 * on the target, and every local task has a non-empty core set), so the
 * table never shows the speed of a wrong answer; the program exits 1
 * otherwise.  --quick runs each row once: a smoke test, not a
 * measurement.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/diag.h"
#include "respol/jobspec.h"
#include "respol/layout.h"
#include "respol/rset.h"

#define BENCH_NAME "bench-layout"
#include "bench.h"

#define MIN_SECONDS 0.2

static bool quick;

#define JS(resources, count)                                                   \
    "version: 1\nresources: " resources "\ntasks: [{command: [app], "          \
    "slot: task, count: " count "}]\nattributes: {system: {duration: 0}}\n"

/* 1,024 nodes: one slot of a whole node each, 256 tasks; 64 slots of a
 * core each, 4 tasks per slot. */
#define WHOLE_NODES_256                                                        \
    JS ("[{type: node, count: 1024, with: [{type: slot, count: 1, label: "     \
        "task, with: [{type: core, count: 64}]}]}]",                           \
        "{total: 256}")
#define CORE_SLOTS_X4                                                          \
    JS ("[{type: node, count: 1024, with: [{type: slot, count: 64, label: "    \
        "task, with: [{type: core, count: 1}]}]}]",                            \
        "{per_slot: 4}")

struct row {
    const char *what;
    unsigned int nodes;
    const char *jobspec;
    const char *dist;
    unsigned int rank;
    size_t ntasks, nlocal; /* expected */
};

static const struct row rows[] = {
    { "8 slots of 8 cores + 1 GPU, per_slot 32", 1,
      JS ("[{type: node, count: 1, with: [{type: slot, count: 8, label: "
          "task, with: [{type: core, count: 8}, {type: gpu, count: 1}]}]}]",
          "{per_slot: 32}"),
      NULL, 0, 256, 256 },
    { "64 slots of 1 core, total 256", 1,
      JS ("[{type: node, count: 1, with: [{type: slot, count: 64, label: "
          "task, with: [{type: core, count: 1}]}]}]",
          "{total: 256}"),
      NULL, 0, 256, 256 },
    { "64 slots of 1 core, per_resource core 4, cyclic", 1,
      JS ("[{type: slot, count: 64, label: task, with: [{type: core, count: "
          "1}]}]",
          "{per_resource: {type: core, count: 4}}"),
      "cyclic", 0, 256, 256 },
    { "1 slot of 64 cores per node, total 256 (rank 0)", 1024, WHOLE_NODES_256,
      NULL, 0, 256, 1 },
    { "1 slot of 64 cores per node, total 256 (rank 1023)", 1024,
      WHOLE_NODES_256, NULL, 1023, 256, 0 },
    { "64 slots of 1 core per node, per_slot 4 (rank 512)", 1024, CORE_SLOTS_X4,
      NULL, 512, 262144, 256 },
    { "64 slots of 1 core per node, per_slot 4, cyclic (rank 512)", 1024,
      CORE_SLOTS_X4, "cyclic", 512, 262144, 256 },
};

static struct rp_rset *make_rset (unsigned int nodes)
{
    struct rp_rset *R = rp_rset_create ();
    struct rp_idset *cores = rp_idset_decode ("0-63", NULL);
    struct rp_idset *gpus = rp_idset_decode ("0-7", NULL);

    for (unsigned int i = 0; R && cores && gpus && i < nodes; i++) {
        char host[32];
        snprintf (host, sizeof (host), "tioga%u", i);
        if (rp_rset_add_target (R, i, host, cores, gpus, NULL) < 0)
            die ("R: cannot add target %u", i);
    }
    if (!R || !cores || !gpus)
        die ("R: out of memory");
    rp_idset_destroy (cores);
    rp_idset_destroy (gpus);
    return R;
}

/* One layout, read whole and destroyed; returns the local tasks seen
 * with a non-empty core set. */
static size_t run_once (const struct rp_rset *R, const struct rp_jobspec *js,
                        const struct row *row, size_t *ntasks)
{
    rp_error_t e;
    struct rp_layout *l = rp_layout_create (R, js, row->rank, row->dist, &e);
    size_t n, good = 0;

    if (!l)
        die ("%s: %s", row->what, e.text);
    n = rp_layout_ntasks_local (l);
    for (size_t i = 0; i < n; i++) {
        const struct rp_idset *c = rp_layout_task_cores (l, i);
        if (rp_layout_task_global_id (l, i) >= 0 && c && !rp_idset_empty (c)
            && rp_layout_task_gpus (l, i))
            good++;
    }
    *ntasks = rp_layout_ntasks (l);
    rp_layout_destroy (l);
    return good;
}

static void bench_row (const struct row *row)
{
    struct rp_rset *R = make_rset (row->nodes);
    struct rp_jobspec *js =
        rp_jobspec_load (row->jobspec, strlen (row->jobspec), "bench",
                         RP_JOBSPEC_CANONICAL, NULL);
    long batch = 1, total = 0;
    double start, elapsed, us;
    size_t ntasks, good;

    if (!js)
        die ("%s: jobspec does not load", row->what);
    good = run_once (R, js, row, &ntasks);
    if (ntasks != row->ntasks || good != row->nlocal)
        die ("%s: %zu tasks, %zu here with a share; expected %zu and %zu",
             row->what, ntasks, good, row->ntasks, row->nlocal);
    start = now ();
    for (;;) {
        for (long i = 0; i < batch; i++)
            run_once (R, js, row, &ntasks);
        total += batch;
        elapsed = now () - start;
        if (quick || elapsed >= MIN_SECONDS)
            break;
        batch *= 2;
    }
    us = elapsed / total * 1e6;
    printf ("| %u | %s | %s | %zu | %zu | %ld | %.1f | ", row->nodes, row->what,
            row->dist ? row->dist : "block", row->ntasks, row->nlocal, total,
            us);
    if (row->nlocal)
        printf ("%.3f", us / row->nlocal);
    else
        printf ("-");
    printf (" | %.4f |\n", us / row->ntasks);
    fflush (stdout);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
}

static void usage (FILE *f)
{
    fprintf (f, "Usage: bench-layout [--quick]\n"
                "Time task layouts on eas-tioga-sized R; print a Markdown "
                "table.\n"
                "  -q, --quick  one iteration per row (smoke test)\n"
                "  -h, --help   this text\n");
}

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "quick", no_argument, NULL, 'q' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    while ((c = getopt_long (argc, argv, "+qh", longopts, NULL)) != -1) {
        if (c == 'q')
            quick = true;
        else if (c == 'h') {
            usage (stdout);
            return 0;
        } else {
            usage (stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "bench-layout: unexpected argument '%s'\n",
                 argv[optind]);
        usage (stderr);
        return 2;
    }
    printf ("## respol task layout benchmark%s\n\n",
            quick ? " (--quick: smoke run, not a measurement)" : "");
    printf ("R: nodes of 64 cores and 8 GPUs (eas-tioga).  Time: CPU, per "
            "rp_layout_create on one rank, reading every local task's ids "
            "and share, and destroying it.\n\n");
    printf ("| nodes | jobspec | distribution | tasks | here | iterations | "
            "us/layout | us/task here | us/task of job |\n");
    printf ("|---:|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++)
        bench_row (&rows[i]);
    return 0;
}
