/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bench-planner: the planner (core/planner.c), as a Markdown table.
 *
 *   bench/bench-planner [--quick] [--spans=N,N,...]
 *
 * One pool of 16,384 units (the nodes of a 16,384-node cluster), filled
 * with S spans (default 1,000, 10,000 and 100,000; --quick: 100 and
 * 1,000) the way a conservative scheduler fills it: each job of 1-1024
 * nodes (a power of two times 1-2) and 1 minute to 1 day asks for the
 * earliest time at or after its submission and is added there.  Jobs
 * arrive 800 s apart, about what the pool can run (the mean job is some
 * 265 nodes for 12 hours: 690 s of the whole pool), so the schedule
 * stays as long as the load makes it, whatever S is.  Then, on that
 * pool, at random times of its life:
 *   earliest  rp_planner_earliest for a new job of the same kind
 *   add+remove  rp_planner_add at the time earliest gave, then
 *             rp_planner_remove of it (the pool keeps S spans)
 *   set_end   a span ends 1 s early, then its end is put back (per call)
 *   free      rp_planner_free_during of a random interval
 * Times are CPU microseconds (bench.h) per call, averaged over 20,000
 * calls (--quick: 200).  The growth column divides the cost at each size
 * by the cost at the first: O(log S) grows by about log(10 S)/log(S) per
 * 10x, O(S) by 10x.  Memory: the heap the planner holds (mallinfo2) per
 * span.
 *
 * Checks, before anything is reported: every span added where earliest
 * said fits (add does not fail), rp_planner_free_during after an add is
 * lower by the span's amount or more, and removing every span added
 * leaves the pool as it was.
 *
 * A second table is the worst case for earliest: every job arrives at
 * time 0 (a backlog of S jobs), and each question is asked at time 0,
 * so that it looks past the whole backlog of windows too short for it.
 *
 * Built by scripts/compare-planner with Fluxion's planner too, the tables
 * have a row for each planner on the same workload (same seed).
 *
 * Under callgrind with --instr-atstart=no, only the earliest calls of the
 * first table are counted (where valgrind's header is installed): with
 * one size per run (--spans=N), instructions and simulated cache misses
 * per question, which the machine's clock cannot separate.
 */
#include <getopt.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/planner.h"

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define PROBE_START() CALLGRIND_START_INSTRUMENTATION
#define PROBE_STOP() CALLGRIND_STOP_INSTRUMENTATION
#endif
#endif
#ifndef PROBE_START
#define PROBE_START() ((void)0)
#define PROBE_STOP() ((void)0)
#endif

#define BENCH_NAME "bench-planner"
#include "bench.h"
#include "planner-ops.h"

#define TOTAL 16384
#define MAXSIZES 8

static bool quick;
/* Seconds between arrivals; 0: all at time 0 (the backlog). */
static int64_t gap = 800;

/* --- respol's planner through the bench's view ---------------------------- */

static void *r_create (uint64_t total)
{
    rp_error_t e;
    struct rp_planner *p = rp_planner_create (total, &e);
    if (!p)
        die ("%s", e.text);
    return p;
}

static void r_destroy (void *p)
{
    rp_planner_destroy (p);
}

static uint64_t r_add (void *p, int64_t start, int64_t duration, uint64_t n)
{
    rp_error_t e;
    uint64_t id;
    if (rp_planner_add (p, start, duration, n, &id, &e) < 0)
        die ("add: %s", e.text);
    return id;
}

static void r_remove (void *p, uint64_t span)
{
    rp_error_t e;
    if (rp_planner_remove (p, span, &e) < 0)
        die ("remove: %s", e.text);
}

static int64_t r_earliest (void *p, int64_t after, int64_t duration, uint64_t n)
{
    int64_t at;
    if (rp_planner_earliest (p, after, duration, n, &at, NULL) < 0)
        return -1;
    return at;
}

static uint64_t r_free_during (void *p, int64_t start, int64_t duration)
{
    return rp_planner_free_during (p, start, duration);
}

static void r_set_end (void *p, uint64_t span, int64_t end)
{
    rp_error_t e;
    if (rp_planner_set_end (p, span, end, &e) < 0)
        die ("set_end: %s", e.text);
}

static const struct bench_planner_ops respol_ops = {
    .name = "respol",
    .create = r_create,
    .destroy = r_destroy,
    .add = r_add,
    .remove = r_remove,
    .earliest = r_earliest,
    .free_during = r_free_during,
    .set_end = r_set_end,
};

#ifndef BENCH_FLUXION
const struct bench_planner_ops *bench_fluxion_planner (void)
{
    return NULL;
}
#endif

/* --- the workload ----------------------------------------------------------
 */

struct job {
    uint64_t n;
    int64_t d;
};

static uint64_t rng_state;

static uint64_t rng (void)
{
    /* splitmix64: the same stream for every planner */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static struct job random_job (void)
{
    struct job j;
    j.n = ((uint64_t)1 << (rng () % 11)) * (1 + rng () % 2);
    if (j.n > 1024)
        j.n = 1024;
    j.d = 60 + (int64_t)(rng () % 86341);
    return j;
}

struct result {
    double build, earliest, add, set_end, free;
    double bytes;
};

/* The heap in use: small blocks and the large ones malloc maps on their
 * own (the planner's arrays past 128 KiB). */
static size_t heap (void)
{
    struct mallinfo2 mi = mallinfo2 ();

    return mi.uordblks + mi.hblkhd;
}

/* Fill p with nspans spans as a conservative scheduler would; the ids in
 * ids. */
static void fill (const struct bench_planner_ops *o, void *p, size_t nspans,
                  uint64_t *ids)
{
    for (size_t i = 0; i < nspans; i++) {
        struct job j = random_job ();
        int64_t at = o->earliest (p, (int64_t)i * gap, j.d, j.n);
        if (at < 0)
            die ("%s: no time for span %zu", o->name, i);
        ids[i] = o->add (p, at, j.d, j.n);
    }
}

static void time_earliest_add_remove (const struct bench_planner_ops *o,
                                      void *p, size_t nspans, size_t calls,
                                      struct result *r)
{
    int64_t *at = malloc (calls * sizeof (*at));
    struct job *jobs = malloc (calls * sizeof (*jobs));
    uint64_t before = o->free_during (p, 0, 1000000);
    double t0;

    if (!at || !jobs)
        die ("out of memory");
    for (size_t i = 0; i < calls; i++)
        jobs[i] = random_job ();
    t0 = now ();
    if (gap > 0)
        PROBE_START ();
    for (size_t i = 0; i < calls; i++)
        at[i] = o->earliest (p, (int64_t)(rng () % (nspans * gap + 1)),
                             jobs[i].d, jobs[i].n);
    if (gap > 0)
        PROBE_STOP ();
    r->earliest = (now () - t0) * 1e6 / calls;
    /* Add each where earliest said and remove it at once, so that every
     * add sees the pool of nspans spans. */
    t0 = now ();
    for (size_t i = 0; i < calls; i++) {
        uint64_t id;
        if (at[i] < 0)
            die ("%s: earliest found no time", o->name);
        id = o->add (p, at[i], jobs[i].d, jobs[i].n);
        if (i == 0 && o->free_during (p, at[i], jobs[i].d) > TOTAL - jobs[i].n)
            die ("%s: an added span holds nothing", o->name);
        o->remove (p, id);
    }
    r->add = (now () - t0) * 1e6 / calls;
    if (o->free_during (p, 0, 1000000) != before)
        die ("%s: removing every span added does not give the pool back",
             o->name);
    free (at);
    free (jobs);
}

static void time_set_end_free (const struct bench_planner_ops *o, void *p,
                               const uint64_t *spans, size_t nspans,
                               size_t calls, struct result *r)
{
    double t0;
    volatile uint64_t sink = 0;

    r->set_end = -1;
    if (o->set_end) {
        int64_t start, end;
        t0 = now ();
        for (size_t i = 0; i < calls; i++) {
            uint64_t s = spans[rng () % nspans];
            if (!rp_planner_span (p, s, &start, &end, NULL))
                die ("no span %llu", (unsigned long long)s);
            if (end - start < 2)
                continue;
            o->set_end (p, s, end - 1);
            o->set_end (p, s, end);
        }
        r->set_end = (now () - t0) * 1e6 / calls / 2;
    }
    t0 = now ();
    for (size_t i = 0; i < calls; i++)
        sink += o->free_during (p, (int64_t)(rng () % (nspans * gap + 1)),
                                60 + (int64_t)(rng () % 86341));
    r->free = (now () - t0) * 1e6 / calls;
    (void)sink;
}

static void bench_size (const struct bench_planner_ops *o, size_t nspans,
                        struct result *r)
{
    size_t calls = quick ? 200 : 20000;
    uint64_t *ids = malloc (nspans * sizeof (*ids));
    size_t h0;
    double t0;
    void *p;

    if (!ids)
        die ("out of memory");
    h0 = heap ();
    rng_state = 20261126;
    t0 = now ();
    p = o->create (TOTAL);
    fill (o, p, nspans, ids);
    r->build = (now () - t0) * 1e3;
    r->bytes = ((double)heap () - (double)h0) / (double)nspans;
    time_earliest_add_remove (o, p, nspans, calls, r);
    time_set_end_free (o, p, ids, nspans, calls, r);
    o->destroy (p);
    free (ids);
}

static void print_row (const char *name, size_t nspans, const struct result *r,
                       const struct result *first)
{
    char set_end[32] = "-";

    if (r->set_end >= 0)
        snprintf (set_end, sizeof (set_end), "%.2f", r->set_end);
    printf ("| %s | %zu | %.1f | %.2f | %.2f | %s | %.2f | %.0f | %.2fx |\n",
            name, nspans, r->build, r->earliest, r->add, set_end, r->free,
            r->bytes, r->earliest / first->earliest);
}

static void print_header (void)
{
    printf (
        "| planner | spans | build (ms) | earliest (us) | add+remove (us) | "
        "set_end (us) | free_during (us) | bytes/span | earliest growth "
        "|\n");
    printf ("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
}

static int parse_sizes (const char *s, size_t *sizes)
{
    int n = 0;
    char *end;

    while (*s && n < MAXSIZES) {
        unsigned long long v = strtoull (s, &end, 10);
        if (end == s || v < 10 || v > 10000000 || (*end && *end != ','))
            return -1;
        sizes[n++] = (size_t)v;
        s = *end ? end + 1 : end;
    }
    return *s ? -1 : n;
}

static void usage (FILE *f)
{
    fprintf (f, "Usage: bench-planner [--quick] [--spans=N,N,...]\n"
                "Time the planner on a pool of 16384 units; print a "
                "Markdown table.\n"
                "  -q, --quick      small pools, few calls (smoke test)\n"
                "      --spans=N,.. the pool sizes in spans (10..10000000)\n"
                "  -h, --help       this text\n");
}

int main (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "quick", no_argument, NULL, 'q' },
        { "spans", required_argument, NULL, 's' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    size_t sizes[MAXSIZES] = { 1000, 10000, 100000 };
    int nsizes = 3, c;
    const struct bench_planner_ops *planners[2] = { &respol_ops,
                                                    bench_fluxion_planner () };
    bool given = false;

    while ((c = getopt_long (argc, argv, "+qh", longopts, NULL)) != -1) {
        if (c == 'q')
            quick = true;
        else if (c == 's') {
            if ((nsizes = parse_sizes (optarg, sizes)) < 1)
                die ("--spans: not a list of numbers 10..10000000: %s", optarg);
            given = true;
        } else if (c == 'h') {
            usage (stdout);
            return 0;
        } else {
            usage (stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf (stderr, "bench-planner: unexpected argument '%s'\n",
                 argv[optind]);
        usage (stderr);
        return 2;
    }
    if (quick && !given) {
        sizes[0] = 100;
        sizes[1] = 1000;
        nsizes = 2;
    }
    printf ("## respol planner benchmark%s\n\n",
            quick ? " (--quick: smoke run, not a measurement)" : "");
    for (int table = 0; table < 2; table++) {
        gap = table == 0 ? 800 : 0;
        if (table == 0)
            printf ("A pool of %d units (nodes) holding S spans placed as a "
                    "conservative scheduler places jobs arriving 800 s "
                    "apart.  CPU microseconds per call; memory per span.\n\n",
                    TOTAL);
        else
            printf ("\nThe backlog: all S jobs arrive at 0, every question "
                    "is asked at 0.\n\n");
        print_header ();
        for (int k = 0; k < 2; k++) {
            struct result first = { 0 };
            if (!planners[k])
                continue;
            for (int i = 0; i < nsizes; i++) {
                struct result r = { 0 };
                if (table == 1 && sizes[i] > 10000)
                    continue;
                bench_size (planners[k], sizes[i], &r);
                if (i == 0)
                    first = r;
                print_row (planners[k]->name, sizes[i], &r, &first);
            }
        }
    }
    return 0;
}
