/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bench-binding: the cost of the job shell's layout and binding decisions
 * for 256 tasks on one node of the largest topology of t/data/topologies
 * (eas-tioga: 64 cores x 2 PUs, 4 NUMA nodes, 8 GPUs), as a Markdown
 * table.
 *
 *   bench/bench-binding [--quick] [--xml=FILE] [--plugins=DIR]
 *                       [--fixtures=DIR]
 *
 * FILE defaults to $RESPOL_SRCDIR/t/data/topologies/eas-tioga.xml, DIR to
 * $RESPOL_BUILDDIR/plugins/shell/.libs, the fixtures' to
 * $RESPOL_FIXTURE_PLUGINDIR (each relative to the current directory when
 * the variable is unset); the plugins are copied to a private directory
 * the loader accepts.
 *
 * Each row is one rp_shell_create, rp_shell_set_xml, rp_shell_init (the
 * layout, the topology, the stack's shell_init and task_init for every
 * task, the host's check of every decision) and rp_shell_destroy, for a
 * jobspec and a stack: none, cpu-affinity alone, or the shipped four
 * (cpu-affinity, gpu-affinity, mem-affinity, openmp).  The whole costs
 * milliseconds, nearly all of it the topology's load (the same whatever
 * the stack, and it varies by more than the stack costs on a busy
 * machine), so the stack is also timed from inside: the fixture plugin
 * "clock" (t/plugins/clock.c) brackets it and reports the CPU time spent
 * between its two instances, the plugins' shell_init and every
 * task_init: the last column.
 *
 * Every row's decisions are checked before it is timed (every task
 * bound, with GPUs, a memory policy and OMP_NUM_THREADS where the stack
 * decides them), so the table never shows the speed of a wrong answer;
 * the program exits 1 otherwise.  Time is CPU time, each row repeated
 * until MIN_SECONDS; --quick runs each row once: a smoke test, not a
 * measurement.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/config.h"
#include "respol/jobspec.h"
#include "respol/rset.h"
#include "respol/shell.h"

#define BENCH_NAME "bench-binding"
#include "bench.h"

#define MIN_SECONDS 0.5
#define NTASKS 256

static bool quick;
static char dir[PATH_MAX];

#define JS(resources, count)                                                   \
    "version: 1\nresources: " resources "\ntasks: [{command: [app], "          \
    "slot: task, count: " count "}]\nattributes: {system: {duration: 0}}\n"

static const struct {
    const char *what;
    const char *jobspec;
} jobs[] = {
    { "8 slots of 8 cores + 1 GPU, per_slot 32",
      JS ("[{type: slot, count: 8, label: task, with: [{type: core, count: "
          "8}, {type: gpu, count: 1}]}]",
          "{per_slot: 32}") },
    { "64 slots of 1 core, total 256",
      JS ("[{type: slot, count: 64, label: task, with: [{type: core, count: "
          "1}]}]",
          "{total: 256}") },
    { "1 slot of the node (64 cores, 8 GPUs), per_slot 256",
      JS ("[{type: slot, count: 1, label: task, with: [{type: core, count: "
          "64}, {type: gpu, count: 8}]}]",
          "{per_slot: 256}") },
};

static const char *const stacks[] = {
    NULL,
    "cpu-affinity",
    "cpu-affinity gpu-affinity mem-affinity openmp",
};

static void cleanup (void)
{
    char cmd[sizeof (dir) + 16];

    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", dir);
    if (system (cmd) != 0)
        fprintf (stderr, BENCH_NAME ": cannot remove %s\n", dir);
}

/* The configuration of a stack ("a b c": plugin names), between the two
 * clocks, in dir. */
static struct rp_config *load (const char *stack)
{
    char path[sizeof (dir) + 32], *copy, *save = NULL;
    struct rp_config *cfg;
    FILE *f;

    snprintf (path, sizeof (path), "%s/respol.yaml", dir);
    if (!(f = fopen (path, "w")) || !(copy = strdup (stack ? stack : "")))
        die ("cannot write %s", path);
    fprintf (f, "shell:%s\n", stack ? "" : " []");
    if (stack)
        fprintf (f,
                 "  - {plugin: %s/clock.so, name: clock-start, config: "
                 "{role: start}}\n",
                 dir);
    for (char *p = strtok_r (copy, " ", &save); p;
         p = strtok_r (NULL, " ", &save))
        fprintf (f, "  - plugin: %s/%s.so\n", dir, p);
    if (stack)
        fprintf (f,
                 "  - {plugin: %s/clock.so, name: clock-stop, config: "
                 "{role: stop}}\n",
                 dir);
    free (copy);
    if (fclose (f) != 0 || !(cfg = rp_config_load (path, 0, NULL)))
        die ("cannot load the stack '%s' from %s", stack ? stack : "", dir);
    return cfg;
}

/* Are task t's decisions those of stack? */
static bool bound (const char *stack, struct rp_task *t)
{
    const struct rp_idset *c = rp_task_cpus (t), *g = rp_task_gpus (t);

    if (!c || rp_idset_empty (c))
        return false;
    return !strstr (stack, "gpu-affinity")
           || (g && !rp_idset_empty (g)
               && rp_task_getenv (t, "ROCR_VISIBLE_DEVICES")
               && rp_task_getenv (t, "OMP_NUM_THREADS")
               && rp_task_mem_policy (t) == RP_MEM_BIND);
}

/* One shell, initialized and destroyed: the stack's CPU time in ns (0
 * without a stack); with check, every decision is verified. */
static long long run_once (const char *xml, const struct rp_rset *R,
                           const struct rp_jobspec *js,
                           const struct rp_config *cfg, const char *stack,
                           bool check)
{
    rp_error_t e;
    struct rp_shell *sh = rp_shell_create (R, js, 0, &e);
    const char *ns;
    long long t = 0;

    if (!sh || rp_shell_set_xml (sh, xml, &e) < 0
        || rp_shell_init (sh, cfg, &e) < 0)
        die ("%s", e.text);
    if (rp_shell_ntasks (sh) != NTASKS)
        die ("%zu tasks, not %d", rp_shell_ntasks (sh), NTASKS);
    for (size_t i = 0; check && stack && i < NTASKS; i++)
        if (!bound (stack, rp_shell_task (sh, i)))
            die ("stack '%s': task %zu is not bound", stack, i);
    if (stack) {
        if (!(ns = rp_task_getenv (rp_shell_task (sh, NTASKS - 1),
                                   "RESPOL_CLOCK_NS")))
            die ("the clock plugin did not report");
        t = atoll (ns);
    }
    rp_shell_destroy (sh);
    return t;
}

static void row (const char *xml, const struct rp_rset *R,
                 const struct rp_jobspec *js, const char *what,
                 const char *stack)
{
    struct rp_config *cfg = load (stack);
    long batch = 1, total = 0;
    long long inside = 0;
    double start, elapsed;

    run_once (xml, R, js, cfg, stack, true);
    start = now ();
    for (;;) {
        for (long i = 0; i < batch; i++)
            inside += run_once (xml, R, js, cfg, stack, false);
        total += batch;
        elapsed = now () - start;
        if (quick || elapsed >= MIN_SECONDS)
            break;
        batch *= 2;
    }
    printf ("| %s | %s | %ld | %.2f | %.1f | ", what,
            stack ? stack : "none (layout and topology)", total,
            elapsed / (double)total * 1e3,
            elapsed / (double)total * 1e6 / NTASKS);
    if (stack)
        printf ("%.2f |\n", (double)inside / (double)total / 1e3 / NTASKS);
    else
        printf ("- |\n");
    fflush (stdout);
    rp_config_destroy (cfg);
}

static void bench (const char *xml)
{
    rp_error_t e;
    struct rp_rset *R = rp_rset_from_hwloc (0, NULL, xml, &e);

    if (!R)
        die ("%s", e.text);
    printf ("| jobspec (256 tasks on one node) | stack | shells | ms per "
            "shell | us per task | the stack's us per task |\n"
            "|---|---|---:|---:|---:|---:|\n");
    for (size_t j = 0; j < sizeof (jobs) / sizeof (jobs[0]); j++) {
        struct rp_jobspec *js =
            rp_jobspec_load (jobs[j].jobspec, strlen (jobs[j].jobspec), "bench",
                             RP_JOBSPEC_CANONICAL, NULL);
        if (!js)
            die ("%s: the jobspec does not load", jobs[j].what);
        for (size_t s = 0; s < sizeof (stacks) / sizeof (stacks[0]); s++)
            row (xml, R, js, jobs[j].what, stacks[s]);
        rp_jobspec_destroy (js);
    }
    rp_rset_destroy (R);
}

static void usage (FILE *f)
{
    fprintf (f, "Usage: bench-binding [--quick] [--xml=FILE] [--plugins=DIR] "
                "[--fixtures=DIR]\n"
                "Time the shell's binding decisions for 256 tasks on an "
                "eas-tioga node; print a Markdown table.\n"
                "  -q, --quick         one iteration per row (smoke test)\n"
                "      --xml=FILE      the topology (default: eas-tioga)\n"
                "      --plugins=DIR   where the shell plugins are\n"
                "      --fixtures=DIR  where the clock fixture plugin is\n"
                "  -h, --help          this text\n");
}

/* $var/rel, or rel when var is unset. */
static const char *in_tree (const char *var, const char *rel, char *buf,
                            size_t size)
{
    const char *base = getenv (var);

    snprintf (buf, size, "%s%s%s", base ? base : "", base ? "/" : "", rel);
    return buf;
}

static void copy (const char *from, const char *name)
{
    char a[PATH_MAX + 64], b[PATH_MAX + 64];

    snprintf (a, sizeof (a), "%s/%s.so", from, name);
    snprintf (b, sizeof (b), "%s/%s.so", dir, name);
    copy_file (a, b);
}

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "quick", no_argument, NULL, 'q' },
        { "xml", required_argument, NULL, 'x' },
        { "plugins", required_argument, NULL, 'p' },
        { "fixtures", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char xbuf[PATH_MAX], pbuf[PATH_MAX];
    const char *xml =
        in_tree ("RESPOL_SRCDIR", "t/data/topologies/eas-tioga.xml", xbuf,
                 sizeof (xbuf));
    const char *plugins =
        in_tree ("RESPOL_BUILDDIR", "plugins/shell/.libs", pbuf, sizeof (pbuf));
    const char *fixtures = getenv ("RESPOL_FIXTURE_PLUGINDIR");
    int c;

    while ((c = getopt_long (argc, argv, "+qh", longopts, NULL)) != -1) {
        if (c == 'q')
            quick = true;
        else if (c == 'x')
            xml = optarg;
        else if (c == 'p')
            plugins = optarg;
        else if (c == 'f')
            fixtures = optarg;
        else if (c == 'h') {
            usage (stdout);
            return 0;
        } else {
            usage (stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf (stderr, BENCH_NAME ": unexpected argument '%s'\n",
                 argv[optind]);
        usage (stderr);
        return 2;
    }
    snprintf (dir, sizeof (dir), "%s/.bench-binding-XXXXXX",
              getenv ("HOME") ? getenv ("HOME") : ".");
    if (!mkdtemp (dir))
        die ("mkdtemp %s: %s", dir, strerror (errno));
    atexit (cleanup);
    copy (plugins, "cpu-affinity");
    copy (plugins, "gpu-affinity");
    copy (plugins, "mem-affinity");
    copy (plugins, "openmp");
    copy (fixtures ? fixtures : "t/plugins/.libs", "clock");
    printf ("## respol binding benchmark%s\n\n",
            quick ? " (--quick: smoke run, not a measurement)" : "");
    printf ("Topology: %s.  Time: CPU, per rp_shell_create, set_xml, init "
            "(layout, topology, stack, checks) and destroy; the stack's own "
            "time measured between two instances of the clock fixture.\n\n",
            xml);
    bench (xml);
    return 0;
}
