/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bench-inventory: the resource inventory (core/inventory.c), its event
 * log (core/eventlog.c) and RFC 28 acquisition (core/acquire.c), as
 * Markdown tables.
 *
 *   bench/bench-inventory [--quick] [--events=N]
 *
 * Inventories of 1,024, 4,096 and 16,384 execution targets (--quick: 64,
 * 256, 1,024), each 2 sockets x 32 cores and 4 GPUs in R.  For each size:
 *   build     rp_inventory_create from R
 *   initial   the producer's initial response, encoded
 *   drain     one drain of one target, in memory (the event built, the
 *             state changed), then the producer's response for it
 *   consumer  rp_acquire_consumer_create from the initial response (the
 *             matcher's graph built), then one down and one up of one
 *             target applied (per response)
 * Times are CPU microseconds (bench.h), averaged over many repetitions on
 * the same objects.  The growth table divides each per-operation cost at
 * 16,384 targets by its cost at 1,024: a cost that follows the targets an
 * operation names stays near 1x; one that follows the inventory is 16x.
 *
 * Then a log of --events=N events (default 100,000; --quick: 2,000) is
 * written for the largest inventory (random drains with reasons and
 * overwrite levels, undrains, downs, ups, property changes on 1-4
 * targets; written with rp_eventlog_encode, not synced) and replayed by
 * rp_inventory_open; so is a log of the same inventory with 1,000 events.
 * The table gives the CPU time of each replay, the heap in use after
 * it (mallinfo2), and the peak resident size of a process that only
 * replays (this program run again), beside one that only builds the
 * inventory: what replay
 * keeps follows the inventory, not the log.  A logged drain (append and
 * fdatasync) is timed in wall-clock time, as the disk is most of it.
 *
 * Checks before anything is reported: every replayed inventory equals the
 * one the same events built in memory (drained set, reasons, times, down
 * set, properties); every consumer's up set is the inventory's; the
 * program exits 1 otherwise.
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "respol/acquire.h"
#include "respol/eventlog.h"
#include "respol/inventory.h"
#include "respol/rset.h"

#define BENCH_NAME "bench-inventory"
#include "bench.h"

struct row {
    size_t n;
    double build, initial, drain, next, consumer, apply;
    size_t initial_bytes;
};

static double wall (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static size_t heap (void)
{
    return mallinfo2 ().uordblks;
}

static long maxrss_kb (void)
{
    struct rusage ru;
    getrusage (RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static struct rp_rset *make_R (size_t n)
{
    char buf[512];
    rp_error_t e;
    struct rp_rset *R;

    snprintf (buf, sizeof (buf),
              "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-%zu\","
              "\"children\":{\"core\":\"0-63\",\"gpu\":\"0-3\"}}],"
              "\"starttime\":0,\"expiration\":0,\"nodelist\":[\"n[0-%zu]\"]}}",
              n - 1, n - 1);
    if (!(R = rp_rset_decode (buf, &e)))
        die ("R: %s", e.text);
    return R;
}

static struct rp_idset *one (unsigned int r)
{
    struct rp_idset *ids = rp_idset_create ();
    if (!ids || rp_idset_add (ids, r) < 0)
        die ("out of memory");
    return ids;
}

static json_t *next_response (struct rp_acquire_producer *p,
                              struct rp_inventory *inv)
{
    json_t *o = NULL;
    rp_error_t e;

    if (rp_acquire_producer_next (p, inv, &o, &e) != 1)
        die ("producer: no response: %s", e.text);
    return o;
}

/* Drain and undrain target r, each with the producer's response. */
static void drain_cycle (struct rp_inventory *inv,
                         struct rp_acquire_producer *p, unsigned int r,
                         double *tdrain, double *tnext)
{
    struct rp_idset *ids = one (r);
    rp_error_t e;
    double t0 = now ();
    json_t *o;

    if (rp_inventory_drain (inv, ids, "bench", RP_DRAIN_DEFAULT, 1, &e) < 0)
        die ("drain: %s", e.text);
    *tdrain += now () - t0;
    t0 = now ();
    o = next_response (p, inv);
    *tnext += now () - t0;
    json_decref (o);
    if (rp_inventory_undrain (inv, ids, NULL, RP_DRAIN_DEFAULT, 1, &e) < 0)
        die ("undrain: %s", e.text);
    json_decref (next_response (p, inv));
    rp_idset_destroy (ids);
}

static void measure_consumer (struct row *row, const json_t *first, size_t reps)
{
    struct rp_acquire_consumer *c;
    rp_error_t e;
    double t0 = now (), t = 0;
    char buf[64];

    if (!(c = rp_acquire_consumer_create (first, &e)))
        die ("consumer: %s", e.text);
    row->consumer = now () - t0;
    for (size_t i = 0; i < reps; i++) {
        unsigned int r = (unsigned int)((i * 7919) % row->n);
        json_t *down, *up;
        snprintf (buf, sizeof (buf), "{\"down\":\"%u\"}", r);
        down = json_loads (buf, 0, NULL);
        snprintf (buf, sizeof (buf), "{\"up\":\"%u\"}", r);
        up = json_loads (buf, 0, NULL);
        t0 = now ();
        if (rp_acquire_consumer_apply (c, down, &e) < 0
            || rp_acquire_consumer_apply (c, up, &e) < 0)
            die ("apply: %s", e.text);
        t += now () - t0;
        json_decref (down);
        json_decref (up);
    }
    row->apply = t / (2.0 * reps);
    if (rp_idset_count (rp_acquire_consumer_up (c)) != row->n)
        die ("consumer: %zu targets up, not %zu",
             rp_idset_count (rp_acquire_consumer_up (c)), row->n);
    rp_acquire_consumer_destroy (c);
}

static void measure (struct row *row, size_t reps)
{
    struct rp_rset *R = make_R (row->n);
    struct rp_acquire_producer *p = rp_acquire_producer_create ();
    struct rp_inventory *inv;
    json_t *first;
    char *s;
    rp_error_t e;
    double t0 = now (), td = 0, tn = 0;

    if (!(inv = rp_inventory_create (R, NULL, &e)))
        die ("inventory: %s", e.text);
    row->build = now () - t0;
    t0 = now ();
    for (size_t i = 0; i < reps; i++) {
        json_decref (rp_acquire_producer_first (p, inv, &e));
    }
    first = rp_acquire_producer_first (p, inv, &e);
    s = rp_acquire_encode (first);
    row->initial = (now () - t0) / (double)(reps + 1);
    row->initial_bytes = strlen (s);
    free (s);
    for (size_t i = 0; i < reps; i++)
        drain_cycle (inv, p, (unsigned int)((i * 104729) % row->n), &td, &tn);
    row->drain = td / (double)reps;
    row->next = tn / (double)reps;
    measure_consumer (row, first, reps);
    json_decref (first);
    rp_acquire_producer_destroy (p);
    rp_inventory_destroy (inv);
    rp_rset_destroy (R);
}

/* --- the long log ----------------------------------------------------------
 */

static const char *reasons[] = { "bad disk",    "memory errors", "fan",
                                 "bios update", "network",       "swap",
                                 "maintenance", "kernel" };

/* A random event on 1-4 consecutive targets, applied to inv in memory
 * (the model) and returned as its name and context. */
static const char *random_event (struct rp_inventory *inv, size_t n, double ts,
                                 json_t **ctx)
{
    unsigned int lo = (unsigned int)(random () % n);
    unsigned int hi = lo + (unsigned int)(random () % 4);
    struct rp_idset *ids = rp_idset_create ();
    int k = (int)(random () % 10);
    const char *name;
    char s[64];

    if (hi >= n)
        hi = (unsigned int)n - 1;
    rp_idset_add_range (ids, lo, hi);
    snprintf (s, sizeof (s), "%u-%u", lo, hi);
    if (k < 4) {
        int ow = (int)(random () % 3);
        const char *reason = reasons[random () % 8];
        name = "drain";
        if (rp_inventory_drain (inv, ids, reason,
                                ow == 2 ? RP_DRAIN_FORCE
                                : ow    ? RP_DRAIN_OVERWRITE
                                        : RP_DRAIN_UPDATE,
                                ts, NULL)
            < 0)
            die ("model: drain %s", s);
        *ctx = json_pack ("{s:s s:s s:s s:i}", "idset", s, "nodelist", "n",
                          "reason", reason, "overwrite", ow);
    } else if (k < 6) {
        name = "undrain";
        if (rp_inventory_undrain (inv, ids, NULL, RP_DRAIN_UPDATE, ts, NULL)
            < 0)
            die ("model: undrain %s", s);
        *ctx = json_pack ("{s:s s:s s:i}", "idset", s, "nodelist", "n",
                          "overwrite", 0);
    } else if (k < 8) {
        /* one target, the other way: an operation that succeeds */
        bool up = rp_idset_test (rp_inventory_down (inv), lo);
        struct rp_idset *t = one (lo);
        name = up ? "up" : "down";
        if (rp_inventory_set_up (inv, t, up, ts, NULL) < 0)
            die ("model: %s %u", name, lo);
        snprintf (s, sizeof (s), "%u", lo);
        *ctx = json_pack ("{s:s s:s}", "idset", s, "nodelist", "n");
        rp_idset_destroy (t);
    } else {
        bool add = random () % 2;
        name = add ? "property-add" : "property-remove";
        if ((add ? rp_inventory_property_add
                 : rp_inventory_property_remove) (inv, "p", ids, ts, NULL)
            < 0)
            die ("model: %s %s", name, s);
        *ctx = json_pack ("{s:{s:s}}", "properties", "p", s);
    }
    rp_idset_destroy (ids);
    return name;
}

/* Write a log of the definition of R and nevents random events to
 * dir/eventlog; the same events applied to *model in memory. */
static void write_log (const char *dir, const struct rp_rset *R, size_t nevents,
                       struct rp_inventory **model)
{
    char path[512];
    json_t *ctx;
    char *line;
    FILE *f;

    snprintf (path, sizeof (path), "%s/eventlog", dir);
    if (mkdir (dir, 0700) < 0 && errno != EEXIST)
        die ("%s: %s", dir, strerror (errno));
    if (!(f = fopen (path, "w")))
        die ("%s: %s", path, strerror (errno));
    if (!(*model = rp_inventory_create (R, NULL, NULL)))
        die ("model");
    ctx = json_pack ("{s:s s:o s:s}", "method", "configuration", "R",
                     rp_rset_to_json (R), "exclude", "");
    line = rp_eventlog_encode (1, "resource-define", ctx, NULL);
    fputs (line, f);
    free (line);
    json_decref (ctx);
    for (size_t i = 1; i < nevents; i++) {
        double ts = 1.7e9 + (double)i;
        const char *name =
            random_event (*model, rp_rset_ntargets (R), ts, &ctx);
        if (!(line = rp_eventlog_encode (ts, name, ctx, NULL)))
            die ("encode");
        fputs (line, f);
        free (line);
        json_decref (ctx);
    }
    if (fclose (f) != 0)
        die ("%s: %s", path, strerror (errno));
}

/* Same drained targets, reasons, times, down set and properties. */
static bool same (const struct rp_inventory *a, const struct rp_inventory *b)
{
    const struct rp_idset *d = rp_inventory_drained (a);
    json_t *pa = rp_rset_properties (rp_inventory_R (a));
    json_t *pb = rp_rset_properties (rp_inventory_R (b));
    bool eq = json_equal (pa, pb)
              && rp_idset_equal (d, rp_inventory_drained (b))
              && rp_idset_equal (rp_inventory_down (a), rp_inventory_down (b));

    json_decref (pa);
    json_decref (pb);
    for (unsigned int r = rp_idset_first (d); eq && r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (d, r)) {
        double ta, tb;
        const char *ra, *rb;
        rp_inventory_drain_info (a, r, &ta, &ra);
        rp_inventory_drain_info (b, r, &tb, &rb);
        eq = ta == tb && !ra == !rb && (!ra || !strcmp (ra, rb));
    }
    return eq;
}

struct replay {
    size_t events;
    size_t bytes;
    double cpu;
    size_t heap; /* held after replay, bytes */
    long rss;    /* peak resident size of a process that only replays, KiB */
};

/* The peak resident size (KiB) of a fresh process (this program run
 * again) that replays dir's log, or, with dir NULL, only builds the
 * inventory of n targets in memory. */
static long child_peak (const char *dir, size_t n)
{
    char exe[512], arg[1200], line[64] = "";
    ssize_t len = readlink ("/proc/self/exe", exe, sizeof (exe) - 1);
    long kb = -1;
    FILE *f;

    if (len <= 0)
        die ("/proc/self/exe: %s", strerror (errno));
    exe[len] = '\0';
    if (dir)
        snprintf (arg, sizeof (arg), "'%s' --peak-replay='%s'", exe, dir);
    else
        snprintf (arg, sizeof (arg), "'%s' --peak-build=%zu", exe, n);
    if (!(f = popen (arg, "r")) || !fgets (line, sizeof (line), f)
        || pclose (f) != 0 || (kb = strtol (line, NULL, 10)) <= 0)
        die ("%s: no peak", arg);
    return kb;
}

/* The child's side: do it, print the peak. */
static int peak_main (const char *dir, size_t n)
{
    struct rp_rset *R = dir ? NULL : make_R (n);
    struct rp_inventory *inv = dir ? rp_inventory_open (dir, 0, NULL, NULL)
                                   : rp_inventory_create (R, NULL, NULL);

    if (!inv)
        die ("peak: no inventory");
    printf ("%ld\n", maxrss_kb ());
    rp_inventory_destroy (inv);
    rp_rset_destroy (R);
    return 0;
}

static void replay (const char *dir, const struct rp_rset *R, size_t nevents,
                    struct replay *out)
{
    struct rp_inventory *model, *inv;
    char path[512];
    struct stat st;
    size_t h0;
    double t0;
    rp_error_t e;

    write_log (dir, R, nevents, &model);
    snprintf (path, sizeof (path), "%s/eventlog", dir);
    if (stat (path, &st) < 0)
        die ("%s: %s", path, strerror (errno));
    out->rss = child_peak (dir, 0);
    malloc_trim (0);
    h0 = heap ();
    t0 = now ();
    if (!(inv = rp_inventory_open (dir, 0, NULL, &e)))
        die ("replay: %s", e.text);
    out->cpu = now () - t0;
    out->heap = heap () - h0;
    out->events = rp_inventory_nevents (inv);
    out->bytes = (size_t)st.st_size;
    if (out->events != nevents || !same (inv, model))
        die ("replay of %zu events differs from the model", nevents);
    rp_inventory_destroy (inv);
    rp_inventory_destroy (model);
    unlink (path);
}

/* Wall-clock time of one logged drain (append and fdatasync). */
static double logged_drain (const char *dir, const struct rp_rset *R, int reps)
{
    struct rp_inventory *inv;
    rp_error_t e;
    double t = 0;
    char path[512];

    snprintf (path, sizeof (path), "%s/eventlog", dir);
    unlink (path);
    if (!(inv = rp_inventory_open (dir, RP_INVENTORY_WRITE, NULL, &e))
        || rp_inventory_define (inv, R, NULL, "configuration", 1, NULL, &e) < 0)
        die ("logged: %s", e.text);
    for (int i = 0; i < reps; i++) {
        struct rp_idset *ids = one ((unsigned int)i);
        double t0 = wall ();
        if (rp_inventory_drain (inv, ids, "x", RP_DRAIN_DEFAULT, 2, &e) < 0)
            die ("logged drain: %s", e.text);
        t += wall () - t0;
        rp_idset_destroy (ids);
    }
    rp_inventory_destroy (inv);
    unlink (path);
    snprintf (path, sizeof (path), "%s/lock", dir);
    unlink (path);
    return t / reps;
}

/* --- output ----------------------------------------------------------------
 */

static void print_rows (const struct row *rows, size_t k)
{
    printf ("| targets | build (ms) | initial response (ms, bytes) | drain "
            "(us) | its response (us) | consumer build (ms) | consumer up "
            "or down (us) |\n");
    printf ("|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < k; i++)
        printf ("| %zu | %.2f | %.3f, %zu | %.2f | %.2f | %.2f | %.2f |\n",
                rows[i].n, rows[i].build * 1e3, rows[i].initial * 1e3,
                rows[i].initial_bytes, rows[i].drain * 1e6, rows[i].next * 1e6,
                rows[i].consumer * 1e3, rows[i].apply * 1e6);
    printf ("\n| growth, %zu / %zu targets | drain | its response | consumer "
            "up or down |\n|---|---|---|---|\n",
            rows[k - 1].n, rows[0].n);
    printf ("| x | %.2fx | %.2fx | %.2fx |\n\n",
            rows[k - 1].drain / rows[0].drain, rows[k - 1].next / rows[0].next,
            rows[k - 1].apply / rows[0].apply);
}

static void print_replays (size_t n, const struct replay *r, size_t k,
                           long base, double logged)
{
    printf ("| replay, %zu targets | log size (MB) | CPU (s) | heap held "
            "(MB) | peak RSS of a replaying process (MB) |\n"
            "|---|---|---|---|---|\n",
            n);
    printf ("| none (in memory) | - | - | - | %.1f |\n", base / 1024.0);
    for (size_t i = 0; i < k; i++)
        printf ("| %zu events | %.1f | %.3f | %.2f | %.1f |\n", r[i].events,
                r[i].bytes / 1e6, r[i].cpu, r[i].heap / 1e6, r[i].rss / 1024.0);
    printf ("\nlogged drain (append + fdatasync), wall clock: %.3f ms\n",
            logged * 1e3);
}

static void usage (FILE *f)
{
    fprintf (f, "Usage: bench-inventory [--quick] [--events=N]\n");
}

int main (int argc, char **argv)
{
    static const struct option opts[] = {
        { "quick", no_argument, NULL, 'q' },
        { "events", required_argument, NULL, 'e' },
        { "help", no_argument, NULL, 'h' },
        { "peak-replay", required_argument, NULL, 'r' },
        { "peak-build", required_argument, NULL, 'b' },
        { NULL, 0, NULL, 0 },
    };
    size_t sizes[3] = { 1024, 4096, 16384 };
    size_t nevents = 100000, reps = 2000;
    struct row rows[3] = { { 0 } };
    struct replay r[2];
    char dir[] = "/tmp/bench-inventory-XXXXXX";
    struct rp_rset *R;
    double logged;
    int c;

    while ((c = getopt_long (argc, argv, "", opts, NULL)) != -1) {
        if (c == 'q') {
            sizes[0] = 64, sizes[1] = 256, sizes[2] = 1024;
            nevents = 2000;
            reps = 100;
        } else if (c == 'r' || c == 'b') {
            return peak_main (c == 'r' ? optarg : NULL,
                              strtoul (optarg, NULL, 10));
        } else if (c == 'e') {
            char *end;
            nevents = strtoul (optarg, &end, 10);
            if (*end || nevents < 1000)
                die ("--events: not a number >= 1000: %s", optarg);
        } else {
            usage (c == 'h' ? stdout : stderr);
            return c == 'h' ? 0 : 2;
        }
    }
    srandom (20260513);
    for (int i = 0; i < 3; i++) {
        rows[i].n = sizes[i];
        measure (&rows[i], reps);
    }
    print_rows (rows, 3);
    if (!mkdtemp (dir))
        die ("mkdtemp: %s", strerror (errno));
    R = make_R (sizes[2]);
    replay (dir, R, 1000, &r[0]);
    replay (dir, R, nevents, &r[1]);
    logged = logged_drain (dir, R, 20);
    rmdir (dir);
    print_replays (sizes[2], r, 2, child_peak (NULL, sizes[2]), logged);
    rp_rset_destroy (R);
    return 0;
}
