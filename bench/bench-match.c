/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bench-match: the cost of building a resource graph (RFC 4) and of
 * matching jobspecs against it (core/match.c), as Markdown tables.
 *
 *   bench/bench-match [--quick] [--plugindir=DIR] [--budget=SECONDS]
 *                     [--policy=NAME] [--sizes=N,N,N] [--no-query]
 *                     [--query-sizes=N,...] [--commands=N]
 *                     [--respol=PATH] [--resource-query=PATH]
 *                     [--no-reserve | --reserve-only] [--reserve-nodes=N]
 *
 * Clusters are generated with nodes=1024, 4096 and 16384 (--sizes: three
 * others; --quick: 8, 16 and 32), sockets=2, cores=32, gpus=4,
 * memory=256GB.  --policy runs one policy only.  For each size the
 * build row reports the CPU time of rp_graph_generate, the heap it holds
 * (mallinfo2 in-use bytes before and after) and the growth of the peak
 * resident size (getrusage ru_maxrss).
 *
 * Then, for each policy (the built-in first fit, and the plugins low,
 * high, pack, spread and locality when they load) and each job stream
 *   slot4    1 slot of 4 cores
 *   node-x   1 node, exclusive
 *   2n-4g    2 nodes with 4 GPUs each
 * the cluster is filled until the first EBUSY, then a random half of the
 * jobs (fixed seed) is freed in random order and the cluster refilled
 * until EBUSY again.  Each phase reports microseconds of CPU time per
 * match (allocate, including the R it returns and destroying it) or per
 * free.  A phase stops early after --budget CPU seconds (default 4;
 * --quick: 0.05): its row then says "partial", and its numbers are the
 * average over the matches made.  The last table is the growth of the fill cost
 * per 4x nodes: nearly flat (about 1x) is what the aggregates promise for first
 * fit; linear work in the cluster size shows about 4x.
 *
 * Every phase is checked before it is reported: a fill that was not cut
 * short must have placed exactly the jobs the cluster holds (16 per node,
 * 1 per node, 1 per 2 nodes), a refill exactly the jobs freed, and
 * rp_matcher_check must pass after each stream; the program exits 1
 * otherwise, so the table never shows the speed of a wrong answer.
 *
 * Last, the query path end to end (--query-sizes, default the first two
 * sizes; --quick: the three): R of that many nodes of 64 cores and 4
 * GPUs written to a file, and a stream of --commands (default 4,000)
 * `match allocate` of one slot of 4 cores given to `respol query -R
 * R.json -F rv1_nosched` (--respol=PATH, default core/respol of
 * $RESPOL_BUILDDIR or of the current directory) for every
 * policy, and to Fluxion's `resource-query -L R.json -f rv1exec -F
 * rv1_nosched -P POLICY` for the policies it has (first, high, low,
 * locality) when --resource-query=PATH or $RESPOL_RESOURCE_QUERY names it
 * (a line says it is left out otherwise).  Each command runs twice, with
 * the stream and with none; the table gives the CPU time of the child
 * (wait4: user and system; respol: the least of three runs) without the
 * stream (the load) and per command of the stream (the difference over
 * the commands), plus the mean of the match's own time (respol's
 * --timing, Fluxion's -e: wall time).  Fluxion's baseline makes one
 * match (its first costs more than the next), three times per size (the
 * least counts, for every policy), and it runs as many commands of the
 * stream as fit in --budget (at least 11).  Every command must have
 * allocated (one R per command in the output), else the program exits 1.
 * The jobspec file is written 2.5 s before the first command reads it, so
 * respol query's cache knows it by its status (respol(1), query).
 *
 * The reserve path (--reserve-only runs it alone, --no-reserve leaves it
 * out): a cluster of --reserve-nodes nodes of one core (default 16384;
 * --quick: 64) and a stream of rp_matcher_allocate_orelse_reserve at
 * time 0 of 1-64 whole nodes for 60-3600 s (fixed seed) until it holds
 * 500, 1,000 and 2,000 job records (--quick: 100, 400; the first fill
 * the cluster, the rest are reservations); then 100 more are timed, and
 * the cancel (rp_matcher_free) of 100 random reservations.  Each row is
 * checked with rp_matcher_check.
 *
 * Plugins: DIR is $RESPOL_BUILD_MATCHDIR, else plugins/match/.libs of the
 * current (build) directory.  The loader refuses plugins below a directory
 * others can write (/tmp included), so they are copied to a private
 * directory under $HOME and loaded by name through a configuration whose
 * plugin-path is that directory.  A policy that does not load is reported
 * and left out.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "respol/config.h"
#include "respol/diag.h"
#include "respol/graph.h"
#include "respol/jobspec.h"
#include "respol/match.h"
#include "respol/rset.h"

#define BENCH_NAME "bench-match"
#define BENCH_PLUGINS
#include "bench.h"

#define NSIZES 3
#define NSTREAMS 3
#define MAXPOLICIES 6

static bool quick;
static double budget = 4.0;
static const char *only_policy; /* --policy: run this one only */
static int sizes[NSIZES] = { 1024, 4096, 16384 };
static bool sizes_set;
static bool commands_set;

static const char *const plugin_names[] = { "low", "high", "pack", "spread",
                                            "locality" };

struct stream {
    const char *name;
    const char *yaml;
    int per_node_num, per_node_den; /* jobs a full cluster holds per node */
};

static const struct stream streams[NSTREAMS] = {
    { "slot4",
      "version: 1\n"
      "resources:\n"
      "  - type: slot\n"
      "    count: 1\n"
      "    label: task\n"
      "    with:\n"
      "      - type: core\n"
      "        count: 4\n"
      "tasks:\n"
      "  - command: [app]\n"
      "    slot: task\n"
      "    count: {per_slot: 1}\n"
      "attributes: {system: {duration: 60.0}}\n",
      16, 1 },
    { "node-x",
      "version: 1\n"
      "resources:\n"
      "  - type: node\n"
      "    count: 1\n"
      "    exclusive: true\n"
      "    with:\n"
      "      - type: slot\n"
      "        count: 1\n"
      "        label: task\n"
      "        with:\n"
      "          - type: core\n"
      "            count: 1\n"
      "tasks:\n"
      "  - command: [app]\n"
      "    slot: task\n"
      "    count: {per_slot: 1}\n"
      "attributes: {system: {duration: 60.0}}\n",
      1, 1 },
    { "2n-4g",
      "version: 1\n"
      "resources:\n"
      "  - type: node\n"
      "    count: 2\n"
      "    with:\n"
      "      - type: slot\n"
      "        count: 1\n"
      "        label: task\n"
      "        with:\n"
      "          - type: core\n"
      "            count: 1\n"
      "          - type: gpu\n"
      "            count: 4\n"
      "tasks:\n"
      "  - command: [app]\n"
      "    slot: task\n"
      "    count: {per_slot: 1}\n"
      "attributes: {system: {duration: 60.0}}\n",
      1, 2 },
};

/* --- random numbers (fixed seed: every run frees in the same order) ---- */

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd (void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* --- one stream ------------------------------------------------------------
 */

struct phase {
    long n;    /* operations done */
    double us; /* CPU microseconds per operation */
    bool cut;  /* stopped by the budget */
};

struct run {
    struct phase fill, free, refill;
};

/* Allocate js until EBUSY (or max jobs, or the budget); job ids from
 * *next_id, appended to ids. */
static struct phase fill (struct rp_matcher *m, const struct rp_jobspec *js,
                          uint64_t *ids, long *nids, long max,
                          uint64_t *next_id)
{
    struct phase p = { 0, 0, false };
    double t0 = now ();
    rp_error_t e;

    while (p.n < max) {
        struct rp_rset *R = rp_matcher_allocate (m, *next_id, js, 1e9, &e);
        if (!R) {
            if (errno != EBUSY)
                die ("allocate: %s", e.text);
            break;
        }
        rp_rset_destroy (R);
        ids[(*nids)++] = (*next_id)++;
        p.n++;
        if (now () - t0 > budget) {
            p.cut = true;
            break;
        }
    }
    p.us = p.n ? (now () - t0) / (double)p.n * 1e6 : 0;
    return p;
}

/* Free a random half of ids (in random order); ids keeps the rest. */
static struct phase free_half (struct rp_matcher *m, uint64_t *ids, long *nids)
{
    struct phase p = { 0, 0, false };
    long half = *nids / 2;
    double t0;
    rp_error_t e;

    for (long i = *nids - 1; i > 0; i--) {
        long j = (long)(rnd () % (uint64_t)(i + 1));
        uint64_t tmp = ids[i];
        ids[i] = ids[j];
        ids[j] = tmp;
    }
    t0 = now ();
    for (long i = 0; i < half; i++)
        if (rp_matcher_free (m, ids[*nids - 1 - i], &e) < 0)
            die ("free: %s", e.text);
    p.n = half;
    p.us = half ? (now () - t0) / (double)half * 1e6 : 0;
    *nids -= half;
    return p;
}

static void free_all (struct rp_matcher *m, const uint64_t *ids, long nids)
{
    rp_error_t e;

    for (long i = 0; i < nids; i++)
        if (rp_matcher_free (m, ids[i], &e) < 0)
            die ("free: %s", e.text);
}

static struct run run_stream (struct rp_matcher *m, const struct stream *s,
                              const struct rp_jobspec *js, int nodes)
{
    long full = (long)nodes * s->per_node_num / s->per_node_den;
    uint64_t *ids = calloc ((size_t)full + 1, sizeof (*ids));
    uint64_t next_id = 1;
    long nids = 0;
    struct run r;
    rp_error_t e;

    if (!ids)
        die ("out of memory");
    r.fill = fill (m, js, ids, &nids, full + 1, &next_id);
    if (!r.fill.cut && r.fill.n != full)
        die ("%s on %d nodes: the fill placed %ld jobs, the cluster holds %ld",
             s->name, nodes, r.fill.n, full);
    r.free = free_half (m, ids, &nids);
    r.refill =
        fill (m, js, ids, &nids, r.fill.cut ? r.free.n : full + 1, &next_id);
    if (!r.fill.cut && !r.refill.cut && r.refill.n != r.free.n)
        die ("%s on %d nodes: the refill placed %ld jobs, %ld were freed",
             s->name, nodes, r.refill.n, r.free.n);
    if (rp_matcher_check (m, &e) < 0)
        die ("%s on %d nodes: rp_matcher_check: %s", s->name, nodes, e.text);
    free_all (m, ids, nids);
    free (ids);
    return r;
}

/* --- the tables ------------------------------------------------------------
 */

struct policy {
    const char *name;
    const struct rp_plugin *p; /* NULL: built-in first fit */
};

static double fill_us[NSIZES][MAXPOLICIES][NSTREAMS];
static bool fill_cut[NSIZES][MAXPOLICIES][NSTREAMS];

static long maxrss_kb (void)
{
    struct rusage ru;

    getrusage (RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Bytes malloc has handed out: small blocks and mmapped ones. */
static size_t heap_bytes (void)
{
    struct mallinfo2 mi = mallinfo2 ();

    return mi.uordblks + mi.hblkhd;
}

static struct rp_matcher *build (int nodes, bool print)
{
    char spec[128];
    struct rp_graph *g;
    struct rp_matcher *m;
    rp_error_t e;
    size_t heap0 = heap_bytes ();
    long rss0 = maxrss_kb ();
    double t0 = now (), t;

    snprintf (spec, sizeof (spec),
              "nodes=%d,sockets=2,cores=32,gpus=4,memory=256GB", nodes);
    if (!(g = rp_graph_generate (spec, &e)))
        die ("generate %s: %s", spec, e.text);
    t = now () - t0;
    if (print)
        printf ("| %d | %zu | %.1f ms | %.1f MB | %.1f MB |\n", nodes,
                rp_graph_nvertices (g), t * 1e3,
                (double)(heap_bytes () - heap0) / 1e6,
                (double)(maxrss_kb () - rss0) / 1e3);
    if (!(m = rp_matcher_create (g, &e)))
        die ("matcher on %s: %s", spec, e.text);
    return m;
}

static struct rp_jobspec *load_stream (const struct stream *s)
{
    struct rp_diags *diags = rp_diags_create ();
    struct rp_jobspec *js = rp_jobspec_load (s->yaml, strlen (s->yaml), s->name,
                                             RP_JOBSPEC_V1, diags);

    if (!js)
        die ("stream %s: %s", s->name,
             rp_diags_count (diags) ? rp_diags_text (diags, 0) : "?");
    rp_diags_destroy (diags);
    return js;
}

static void print_phase (const struct phase *p)
{
    printf (" %ld | %.2f%s |", p->n, p->us, p->cut ? " (partial)" : "");
}

static void bench_size (int si, int nodes, const struct policy *pol, int npol,
                        struct rp_jobspec **js)
{
    struct rp_matcher *m = build (nodes, false);
    rp_error_t e;

    for (int pi = 0; pi < npol; pi++) {
        if (rp_matcher_set_policy (m, pol[pi].p, &e) < 0)
            die ("policy %s: %s", pol[pi].name, e.text);
        for (int s = 0; s < NSTREAMS; s++) {
            struct run r = run_stream (m, &streams[s], js[s], nodes);
            printf ("| %d | %s | %s |", nodes, pol[pi].name, streams[s].name);
            print_phase (&r.fill);
            print_phase (&r.refill);
            printf (" %.2f |\n", r.free.us);
            fflush (stdout);
            fill_us[si][pi][s] = r.fill.us;
            fill_cut[si][pi][s] = r.fill.cut;
        }
    }
    rp_matcher_destroy (m);
}

static void print_growth (const struct policy *pol, int npol)
{
    printf ("\n| policy | stream | us/match %d | %d | %d | growth x%d | "
            "x%d |\n|---|---|---:|---:|---:|---:|---:|\n",
            sizes[0], sizes[1], sizes[2], sizes[1] / sizes[0],
            sizes[2] / sizes[1]);
    for (int pi = 0; pi < npol; pi++)
        for (int s = 0; s < NSTREAMS; s++) {
            double *u[NSIZES];
            for (int si = 0; si < NSIZES; si++)
                u[si] = &fill_us[si][pi][s];
            printf ("| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |%s\n",
                    pol[pi].name, streams[s].name, *u[0], *u[1], *u[2],
                    *u[0] > 0 ? *u[1] / *u[0] : 0,
                    *u[1] > 0 ? *u[2] / *u[1] : 0,
                    fill_cut[2][pi][s] || fill_cut[1][pi][s] ? " partial" : "");
        }
}

/* --- the query path end to end, beside Fluxion's resource-query ---------
 */

#define MAXQSIZES 8

static bool no_query;                 /* --no-query */
static int qsizes[MAXQSIZES];         /* --query-sizes; 0: the default */
static int nqsizes;
static long ncommands = 4000;         /* --commands */
static const char *respol_path = "core/respol"; /* --respol */
static const char *rq_path;           /* --resource-query, $RESPOL_RESOURCE_QUERY */

/* Policies of respol, with Fluxion's of the same definition (NULL: none). */
static const char *fluxion_policy (const char *name)
{
    static const char *const same[] = { "first", "high", "low", "locality" };

    for (size_t i = 0; i < sizeof (same) / sizeof (same[0]); i++)
        if (!strcmp (name, same[i]))
            return same[i];
    return NULL;
}

/* R of nodes nodes of 64 cores and 4 GPUs, as both read it. */
static void write_R (const char *path, int nodes)
{
    FILE *f = fopen (path, "w");

    if (!f)
        die ("cannot write %s: %s", path, strerror (errno));
    fprintf (f,
             "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-%d\","
             "\"children\":{\"core\":\"0-63\",\"gpu\":\"0-3\"}}],"
             "\"starttime\":0.0,\"expiration\":0.0,"
             "\"nodelist\":[\"node[0-%d]\"]}}\n",
             nodes - 1, nodes - 1);
    if (fclose (f) != 0)
        die ("write %s: %s", path, strerror (errno));
}

/* The jobspec of stream s in dir, and n commands allocating it. */
static void write_commands (const char *path, const char *jobspec, long n)
{
    FILE *f = fopen (path, "w");

    if (!f)
        die ("cannot write %s: %s", path, strerror (errno));
    for (long i = 0; i < n; i++)
        fprintf (f, "match allocate %s\n", jobspec);
    fprintf (f, "quit\n");
    if (fclose (f) != 0)
        die ("write %s: %s", path, strerror (errno));
}

/* The first line of file path, for a message. */
static const char *first_line (const char *path)
{
    static char line[512];
    FILE *f = fopen (path, "r");

    line[0] = '\0';
    if (f && fgets (line, sizeof (line), f))
        line[strcspn (line, "\n")] = '\0';
    if (f)
        fclose (f);
    return line[0] ? line : "no message";
}

/* Run argv, standard input from in, output to out and err (both to out
 * when they are the same file): the child's
 * CPU time (user and system).  Dies unless it exits 0. */
static double run_child (char *const argv[], const char *in, const char *out,
                         const char *err)
{
    struct rusage ru;
    int status;
    pid_t pid;

    fflush (stdout);
    if ((pid = fork ()) < 0)
        die ("fork: %s", strerror (errno));
    if (pid == 0) {
        int fi = open (in, O_RDONLY);
        int fo = open (out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int fe = strcmp (out, err)
                     ? open (err, O_WRONLY | O_CREAT | O_TRUNC, 0600)
                     : fo;
        /* in bench_dir: commands name the jobspec without its path,
         * which may hold spaces */
        if (fi >= 0 && fo >= 0 && fe >= 0 && chdir (bench_dir) == 0
            && dup2 (fi, 0) >= 0
            && dup2 (fo, 1) >= 0 && dup2 (fe, 2) >= 0)
            execv (argv[0], argv);
        _exit (127);
    }
    if (wait4 (pid, &status, 0, &ru) < 0)
        die ("wait: %s", strerror (errno));
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        die ("%s: exit status %d: %s", argv[0],
             WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status),
             first_line (err));
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6
           + (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
}

/* The least CPU time of reps runs (the machine may be shared). */
static double run_min (char *const argv[], const char *in, const char *out,
                       const char *err, int reps)
{
    double best = run_child (argv, in, out, err);

    for (int i = 1; i < reps; i++) {
        double t = run_child (argv, in, out, err);
        best = t < best ? t : best;
    }
    return best;
}

/* Lines of path holding an R (its "R_lite" key). */
static long count_R (const char *path)
{
    FILE *f = fopen (path, "r");
    char *line = NULL;
    size_t cap = 0;
    long n = 0;

    if (!f && errno == ENOENT)
        return 0; /* none written */
    if (!f)
        die ("cannot read %s: %s", path, strerror (errno));
    while (getline (&line, &cap, f) > 0)
        n += strstr (line, "\"R_lite\"") != NULL;
    free (line);
    fclose (f);
    return n;
}

/* The mean in us of respol's --timing lines ("...: 0.000004 s") or of
 * Fluxion's -e lines ("INFO: ELAPSE=0.000394"). */
static double timing_mean (const char *path)
{
    FILE *f = fopen (path, "r");
    char line[1024];
    double sum = 0, t;
    long n = 0;

    if (!f)
        die ("cannot read %s: %s", path, strerror (errno));
    while (fgets (line, sizeof (line), f)) {
        const char *colon = strrchr (line, ':');
        const char *elapse = strstr (line, "ELAPSE=");
        int end = 0;
        if ((elapse && sscanf (elapse + 7, "%lf", &t) == 1)
            || (!elapse && colon
                && sscanf (colon + 1, " %lf s%n", &t, &end) == 1 && end > 0)) {
            sum += t;
            n++;
        }
    }
    fclose (f);
    return n ? sum / (double)n * 1e6 : 0;
}

struct qrun {
    double load; /* CPU seconds, no command */
    double us;   /* CPU us per command */
    double match_us; /* respol's --timing, Fluxion's -e, per match */
    long n;      /* commands */
};

/* One tool (respol when fluxion is NULL, else Fluxion's policy fluxion)
 * with no command (Fluxion: one, as its first match costs more than the
 * next; unless load is known, >= 0), then with n (none: the load only),
 * each the least of reps runs; checks one R per command. */
static struct qrun query_tool (const char *policy, const char *fluxion,
                               const char *Rpath, long n, double load,
                               int reps)
{
    char cmds[sizeof (bench_dir) + 32], out[sizeof (bench_dir) + 32];
    char err[sizeof (bench_dir) + 32], cfg[sizeof (bench_dir) + 32];
    char pol[64];
    char *respol_argv[] = { (char *)respol_path, "query", cfg, pol,
                            "-R", (char *)Rpath, "-F", "rv1_nosched",
                            "--timing", NULL };
    char *rq_argv[] = { (char *)rq_path, "-L", (char *)Rpath, "-f", "rv1exec",
                        "-F", "rv1_nosched", "-P", (char *)fluxion, "-d",
                        "-e", "-t", out, NULL };
    char *const *argv = fluxion ? rq_argv : respol_argv;
    long base = fluxion ? 1 : 0; /* commands of the baseline run */
    struct qrun r = { .load = load, .n = n };
    double cpu;
    long got;

    snprintf (cmds, sizeof (cmds), "%s/commands", bench_dir);
    snprintf (out, sizeof (out), "%s/out", bench_dir);
    snprintf (err, sizeof (err), "%s/err", bench_dir);
    snprintf (cfg, sizeof (cfg), "--config=%s/respol.yaml", bench_dir);
    snprintf (pol, sizeof (pol), "--policy=%s", policy);
    if (r.load < 0) {
        write_commands (cmds, "job.yaml", base);
        r.load = run_min (argv, cmds, fluxion ? err : out, err, reps);
        (void)unlink (out);
    }
    if (n == 0)
        return r;
    write_commands (cmds, "job.yaml", n);
    (void)unlink (out); /* Fluxion writes R to it (-t) */
    cpu = run_min (argv, cmds, fluxion ? err : out, err, reps);
    if ((got = count_R (out)) != n)
        die ("%s -P %s: %ld of %ld commands allocated (%s)",
             fluxion ? rq_path : respol_path, fluxion ? fluxion : policy, got,
             n, first_line (err));
    r.us = (cpu - r.load) / (double)(n - base) * 1e6;
    r.match_us = timing_mean (err);
    return r;
}

/* Fluxion: eleven commands, then as many as fit in the budget; *load its
 * load with one command (the least of three), measured the first time. */
static struct qrun query_fluxion (const char *policy, const char *Rpath,
                                  long most, double *load)
{
    struct qrun r;
    long n;

    if (*load < 0)
        *load = query_tool (policy, policy, Rpath, 0, -1, 3).load;
    r = query_tool (policy, policy, Rpath, 11, *load, 1);
    n = r.us > 0 ? (long)(budget * 1e6 / r.us) : most;

    if (n > most)
        n = most;
    if (n > 11)
        r = query_tool (policy, policy, Rpath, n, r.load, 1);
    return r;
}

static void query_size (int nodes, const struct policy *pol, int npol)
{
    char Rpath[sizeof (bench_dir) + 16];
    long n = ncommands;

    if (n > (long)nodes * 16)
        die ("--commands=%ld: more than the %ld slots of 4 cores of %d nodes",
             n, (long)nodes * 16, nodes);
    snprintf (Rpath, sizeof (Rpath), "%s/R.json", bench_dir);
    write_R (Rpath, nodes);
    double fluxion_load = -1;

    for (int pi = 0; pi < npol; pi++) {
        struct qrun r = query_tool (pol[pi].name, NULL, Rpath, n, -1, 3);
        const char *fp = rq_path ? fluxion_policy (pol[pi].name) : NULL;
        printf ("| %d | %s | %.1f | %.1f | %.2f |", nodes, pol[pi].name,
                r.load * 1e3, r.us, r.match_us);
        if (fp) {
            struct qrun f = query_fluxion (fp, Rpath, n, &fluxion_load);
            printf (" %.1f | %.1f (%ld) | %.2f | %.1fx |\n", f.load * 1e3, f.us,
                    f.n, f.match_us, r.us > 0 ? f.us / r.us : 0);
        } else
            printf (" - | - | - | - |\n");
    }
}

/* The absolute path of program path (option opt) in buf. */
static const char *absolute (const char *opt, const char *path, char *buf)
{
    if (access (path, X_OK) < 0 || !realpath (path, buf))
        die ("%s: %s: %s", opt, path, strerror (errno));
    return buf;
}

static void query_tables (const struct policy *pol, int npol)
{
    static char abs_respol[PATH_MAX], abs_rq[PATH_MAX];
    char path[sizeof (bench_dir) + 16];
    FILE *f;

    if (!bench_dir[0])
        die ("the query path needs the private directory of the plugins");
    /* both run in bench_dir */
    respol_path = absolute ("--respol", respol_path, abs_respol);
    if (rq_path)
        rq_path = absolute ("--resource-query", rq_path, abs_rq);
    snprintf (path, sizeof (path), "%s/job.yaml", bench_dir);
    if (!(f = fopen (path, "w")))
        die ("cannot write %s: %s", path, strerror (errno));
    fputs (streams[0].yaml, f);
    if (fclose (f) != 0)
        die ("write %s: %s", path, strerror (errno));
    /* respol query reads a jobspec file on every line until it is 2 s
     * older than the read (a file edited just before is read again);
     * after that its status proves it unchanged: as for a job file
     * written before the job is submitted */
    nanosleep (&(struct timespec){ 2, 500000000 }, NULL);
    if (!rq_path)
        printf ("\nFluxion's resource-query: not given (--resource-query=PATH "
                "or RESPOL_RESOURCE_QUERY), its columns left out.\n");
    printf ("\n| nodes | policy | respol load (ms) | respol us/command | "
            "respol match us (--timing) | Fluxion load, 1 match (ms) | "
            "Fluxion us/command (commands) | Fluxion match us (-e) | "
            "Fluxion / respol |\n"
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < nqsizes; i++)
        query_size (qsizes[i], pol, npol);
}

/* --- the reserve path ------------------------------------------------- */

static bool no_reserve;          /* --no-reserve */
static bool reserve_only;        /* --reserve-only */
static int reserve_nodes = 16384; /* --reserve-nodes */

/* k whole nodes (slots of one node) for duration seconds. */
static struct rp_jobspec *whole_nodes (int k, int duration)
{
    char buf[512];
    struct rp_jobspec *js;

    snprintf (buf, sizeof (buf),
              "version: 1\nresources:\n  - type: slot\n    label: s\n"
              "    count: %d\n    with:\n      - type: node\n"
              "        count: 1\ntasks:\n  - command: [app]\n    slot: s\n"
              "    count: {per_slot: 1}\n"
              "attributes: {system: {duration: %d}}\n",
              k, duration);
    if (!(js = rp_jobspec_load (buf, strlen (buf), "reserve", RP_JOBSPEC_CANONICAL,
                                NULL)))
        die ("reserve jobspec does not load");
    return js;
}

/* The stream: job i asks 1-64 nodes for 60-3600 s (fixed seed). */
static struct rp_jobspec *reserve_job (int *k, int *d)
{
    *k = 1 + (int)(rnd () % 64);
    *d = 60 + (int)(rnd () % 3541);
    return whole_nodes (*k, *d);
}

static double reserve_one (struct rp_matcher *m, uint64_t id, bool *reserved)
{
    int k, d;
    struct rp_jobspec *js = reserve_job (&k, &d);
    rp_error_t e;
    double at = -1, t0 = now (), t;
    struct rp_rset *R = rp_matcher_allocate_orelse_reserve (m, id, js, 0, &at,
                                                            &e);

    t = now () - t0;
    if (!R)
        die ("reserve %d nodes for %d s: %s", k, d, e.text);
    rp_rset_destroy (R);
    rp_jobspec_destroy (js);
    *reserved = at > 0;
    return t;
}

/* Fill to njobs records, then time allocate-orelse-reserve and the
 * cancel of a reservation, 100 each (the cancelled are placed again). */
static void reserve_row (int nodes, long njobs)
{
    char spec[64];
    rp_error_t e;
    struct rp_graph *g;
    struct rp_matcher *m;
    uint64_t id = 1, *res = calloc ((size_t)njobs + 201, sizeof (*res));
    long nres = 0, n = 100;
    double fill = 0, tr = 0, tf = 0, t0, rss0 = (double)maxrss_kb ();
    bool reserved;

    snprintf (spec, sizeof (spec), "nodes=%d", nodes);
    if (!res || !(g = rp_graph_generate (spec, &e))
        || !(m = rp_matcher_create (g, &e)))
        die ("%s: %s", spec, res ? e.text : "out of memory");
    for (; (long)id <= njobs; id++) {
        fill += reserve_one (m, id, &reserved);
        if (reserved)
            res[nres++] = id;
    }
    for (long i = 0; i < n; i++) {
        tr += reserve_one (m, id, &reserved);
        if (reserved)
            res[nres++] = id;
        id++;
    }
    for (long i = 0; i < n && nres > 0; i++) {
        long w = (long)(rnd () % (uint64_t)nres);
        t0 = now ();
        if (rp_matcher_free (m, res[w], &e) < 0)
            die ("cancel %ju: %s", (uintmax_t)res[w], e.text);
        tf += now () - t0;
        res[w] = res[--nres];
    }
    if (rp_matcher_check (m, &e) < 0)
        die ("reserve, %d nodes: %s", nodes, e.text);
    printf ("| %d | %ld | %ld | %.1f | %.1f | %.1f | %.1f MB |\n", nodes,
            njobs, nres, fill / (double)njobs * 1e6, tr / (double)n * 1e6,
            tf / (double)n * 1e6, ((double)maxrss_kb () - rss0) / 1e3);
    rp_matcher_destroy (m);
    free (res);
}

static void reserve_table (void)
{
    int nodes = quick ? 64 : reserve_nodes;
    const long rows[] = { 500, 1000, 2000 }, qrows[] = { 100, 400 };

    printf ("\n| nodes | records | reservations | us/record (fill) | "
            "us/allocate-orelse-reserve | us/cancel | peak RSS growth |\n"
            "|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t i = 0; i < (quick ? 2 : 3); i++)
        reserve_row (nodes, quick ? qrows[i] : rows[i]);
}

static int load_policies (struct rp_config *cfg, struct policy *pol)
{
    int n = 0;

    if (!only_policy || !strcmp (only_policy, "first"))
        pol[n++] = (struct policy){ "first", NULL };
    for (size_t i = 0;
         cfg && i < sizeof (plugin_names) / sizeof (plugin_names[0]); i++) {
        rp_error_t e;
        const struct rp_plugin *p;
        if (only_policy && strcmp (only_policy, plugin_names[i]))
            continue;
        if (!(p = rp_config_policy (cfg, plugin_names[i], &e))) {
            fprintf (stderr, "bench-match: policy %s: %s (left out)\n",
                     plugin_names[i], e.text);
            continue;
        }
        pol[n++] = (struct policy){ plugin_names[i], p };
    }
    return n;
}

static void usage (FILE *f)
{
    fprintf (f, "Usage: bench-match [--quick] [--plugindir=DIR] "
                "[--budget=SECONDS] [--policy=NAME] [--sizes=N,N,N]\n"
                "                   [--no-query] [--query-sizes=N,...] "
                "[--commands=N]\n"
                "                   [--respol=PATH] [--resource-query=PATH]\n"
                "                   [--no-reserve | --reserve-only] "
                "[--reserve-nodes=N]\n");
}

/* --query-sizes: up to MAXQSIZES node counts >= 2, comma separated. */
static void parse_qsizes (const char *arg)
{
    const char *p = arg;
    char *end;

    nqsizes = 0;
    do {
        long v = strtol (p, &end, 10);
        if (end == p || v < 2 || v > 1 << 24 || nqsizes == MAXQSIZES
            || (*end && *end != ','))
            die ("--query-sizes: not up to %d node counts >= 2: %s",
                 MAXQSIZES, arg);
        qsizes[nqsizes++] = (int)v;
        p = end + 1;
    } while (*end == ',');
}

static const char *parse_args (int argc, char **argv)
{
    static const struct option opts[] = {
        { "quick", no_argument, NULL, 'q' },
        { "plugindir", required_argument, NULL, 'p' },
        { "budget", required_argument, NULL, 'b' },
        { "policy", required_argument, NULL, 'P' },
        { "sizes", required_argument, NULL, 'S' },
        { "no-query", no_argument, NULL, 'N' },
        { "query-sizes", required_argument, NULL, 'Q' },
        { "commands", required_argument, NULL, 'C' },
        { "respol", required_argument, NULL, 'r' },
        { "resource-query", required_argument, NULL, 'F' },
        { "no-reserve", no_argument, NULL, 'n' },
        { "reserve-only", no_argument, NULL, 'o' },
        { "reserve-nodes", required_argument, NULL, 'z' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *plugindir = getenv ("RESPOL_BUILD_MATCHDIR");
    char *end;
    int c;

    if (getenv ("RESPOL_BUILDDIR")) {
        static char path[4096];
        snprintf (path, sizeof (path), "%s/core/respol",
                  getenv ("RESPOL_BUILDDIR"));
        respol_path = path;
    }
    rq_path = getenv ("RESPOL_RESOURCE_QUERY");
    if (rq_path && !*rq_path)
        rq_path = NULL;

    while ((c = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'q':
            quick = true;
            break;
        case 'p':
            plugindir = optarg;
            break;
        case 'S':
            if (sscanf (optarg, "%d,%d,%d%c", &sizes[0], &sizes[1], &sizes[2],
                        &(char){ 0 })
                    != 3
                || sizes[0] < 2 || sizes[1] < 2 || sizes[2] < 2)
                die ("--sizes: not three node counts >= 2: %s", optarg);
            sizes_set = true;
            break;
        case 'P':
            only_policy = optarg;
            break;
        case 'b':
            budget = strtod (optarg, &end);
            if (*end || !(budget > 0))
                die ("--budget: not a positive number: %s", optarg);
            break;
        case 'N':
            no_query = true;
            break;
        case 'Q':
            parse_qsizes (optarg);
            break;
        case 'C':
            ncommands = strtol (optarg, &end, 10);
            if (*end || ncommands < 1)
                die ("--commands: not a positive number: %s", optarg);
            commands_set = true;
            break;
        case 'r':
            respol_path = optarg;
            break;
        case 'F':
            rq_path = optarg;
            break;
        case 'n':
            no_reserve = true;
            break;
        case 'o':
            reserve_only = true;
            break;
        case 'z':
            if ((reserve_nodes = atoi (optarg)) < 1)
                die ("--reserve-nodes: must be >= 1");
            break;
        case 'h':
            usage (stdout);
            exit (0);
        default:
            usage (stderr);
            exit (2);
        }
    }
    if (optind != argc) {
        usage (stderr);
        exit (2);
    }
    return plugindir ? plugindir : "plugins/match/.libs";
}

int main (int argc, char **argv)
{
    const char *plugindir = parse_args (argc, argv);
    struct policy pol[MAXPOLICIES];
    struct rp_jobspec *js[NSTREAMS];
    struct rp_config *cfg;
    int npol;

    if (quick && !sizes_set) {
        sizes[0] = 8;
        sizes[1] = 16;
        sizes[2] = 32;
        budget = budget < 0.05 ? budget : 0.05;
        ncommands = commands_set ? ncommands : 20;
    }
    if (nqsizes == 0) {
        nqsizes = quick ? NSIZES : 2;
        memcpy (qsizes, sizes, (size_t)nqsizes * sizeof (*qsizes));
    }
    if (reserve_only) {
        reserve_table ();
        return 0;
    }
    cfg =
        bench_plugin_config (plugindir, plugin_names,
                             sizeof (plugin_names) / sizeof (plugin_names[0]));
    if ((npol = load_policies (cfg, pol)) == 0)
        die ("no policy %s", only_policy);
    for (int s = 0; s < NSTREAMS; s++)
        js[s] = load_stream (&streams[s]);

    printf ("| nodes | vertices | build | heap | peak RSS growth |\n"
            "|---:|---:|---:|---:|---:|\n");
    for (int si = 0; si < NSIZES; si++)
        rp_matcher_destroy (build (sizes[si], true));
    printf ("\n| nodes | policy | stream | fill matches | us/match | "
            "refill matches | us/match | us/free |\n"
            "|---:|---|---|---:|---:|---:|---:|---:|\n");
    for (int si = 0; si < NSIZES; si++)
        bench_size (si, sizes[si], pol, npol, js);
    print_growth (pol, npol);
    if (!no_query)
        query_tables (pol, npol);
    if (!no_reserve)
        reserve_table ();
    for (int s = 0; s < NSTREAMS; s++)
        rp_jobspec_destroy (js[s]);
    rp_config_destroy (cfg);
    return 0;
}
