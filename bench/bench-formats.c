/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bench-formats: time the format libraries (RFC 22 idset, RFC 29
 * hostlist, RFC 20 R) and print a Markdown table.
 *
 *   bench/bench-formats [--quick] [--markdown]
 *
 * Each row repeats one operation, doubling the batch until the total time
 * is at least MIN_SECONDS, and reports the mean time per operation.  Time
 * includes destroying the result, which every real caller pays too.
 * Scaling series (1k, 4k, 16k hosts or targets) report the growth of the
 * time per operation against the previous size: per 4x step, linear or
 * O(n log n) work shows about 4-5x, quadratic work about 16x.
 *
 * Inputs are built so that nothing compresses: hostnames "h<6 random
 * letters><n>" share no prefix runs, and R target i has cores 0-(i%64) and
 * GPU {i/64}, so no two targets share an R_lite entry.  Random letters come
 * from a fixed-seed xorshift, so every run times the same inputs.
 * find is timed on a list whose lookup index is already built (the first
 * batch builds it), i.e. the steady state of repeated lookups.
 *
 * Every result is checked (counts, sizes) before it is timed, so the table
 * never reports the speed of a wrong answer.  --quick uses small sizes
 * and a single iteration: a smoke test, not a measurement.  The program
 * never fails on timing; it exits 1 only if an operation fails.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "respol/hostlist.h"
#include "respol/idset.h"
#include "respol/rset.h"

#define BENCH_NAME "bench-formats"
#include "bench.h"

#define MIN_SECONDS 0.2
#define NSIZES 3

static bool quick;

/* --- timing and the table ------------------------------------------------ */

typedef void (*op_f) (void *arg);

struct row {
    long iterations;
    double us; /* per operation */
};

static struct row measure (op_f op, void *arg)
{
    long batch = 1, total = 0;
    double start = now (), elapsed;

    for (;;) {
        for (long i = 0; i < batch; i++)
            op (arg);
        total += batch;
        elapsed = now () - start;
        if (quick || elapsed >= MIN_SECONDS)
            break;
        batch *= 2;
    }
    return (struct row){ .iterations = total, .us = elapsed / total * 1e6 };
}

static void print_header (void)
{
    printf ("| operation | size | iterations | time/op (us) | growth |\n");
    printf ("|---|---:|---:|---:|---:|\n");
}

/* prev_us <= 0: not a scaling row, or the first of its series. */
static void print_row (const char *name, const char *size, struct row r,
                       double prev_us)
{
    printf ("| %s | %s | %ld | %.3f |", name, size, r.iterations, r.us);
    if (prev_us > 0)
        printf (" %.2fx |\n", r.us / prev_us);
    else
        printf (" - |\n");
    fflush (stdout);
}

static double print_measured (const char *name, const char *size, op_f op,
                              void *arg, double prev_us)
{
    struct row r = measure (op, arg);
    print_row (name, size, r, prev_us);
    return r.us;
}

/* --- idset --------------------------------------------------------------- */

struct idset_pair {
    struct rp_idset *a, *b;
    size_t union_count, diff_count;
};

static void op_idset_codec (void *arg)
{
    const char *s = arg;
    rp_error_t e;
    struct rp_idset *set = rp_idset_decode (s, &e);
    char *out;

    if (!set)
        die ("%s", e.text);
    if (!(out = rp_idset_encode (set, RP_IDSET_RANGES)) || strcmp (out, s))
        die ("idset encode: wrong result");
    free (out);
    rp_idset_destroy (set);
}

static void op_idset_union (void *arg)
{
    struct idset_pair *p = arg;
    struct rp_idset *u = rp_idset_union (p->a, p->b);
    if (!u || rp_idset_count (u) != p->union_count)
        die ("idset union: wrong result");
    rp_idset_destroy (u);
}

static void op_idset_difference (void *arg)
{
    struct idset_pair *p = arg;
    struct rp_idset *d = rp_idset_difference (p->a, p->b);
    if (!d || rp_idset_count (d) != p->diff_count)
        die ("idset difference: wrong result");
    rp_idset_destroy (d);
}

/* Ids first, first + step, ... (n of them). */
static struct rp_idset *idset_every (unsigned int first, unsigned int step,
                                     size_t n)
{
    struct rp_idset *set = rp_idset_create ();
    if (!set)
        die ("out of memory");
    for (size_t i = 0; i < n; i++)
        if (rp_idset_add (set, first + (unsigned int)i * step) < 0)
            die ("idset add failed");
    return set;
}

static void bench_idset (void)
{
    static const struct {
        const char *name;
        op_f op;
        int overlapping;
    } ops[] = {
        { "idset union, alternating ids", op_idset_union, 0 },
        { "idset difference, alternating ids", op_idset_difference, 0 },
        { "idset union, overlapping halves", op_idset_union, 1 },
        { "idset difference, overlapping halves", op_idset_difference, 1 },
    };
    const char *big = "0-100000000";
    struct idset_pair pairs[2][2]; /* [size][overlapping] */
    size_t sizes[2] = { 250000, 1000000 };

    print_measured ("idset decode+encode \"0-100000000\"", "1 range",
                    op_idset_codec, (void *)big, 0);
    for (size_t k = 0; k < 2; k++) {
        size_t n = quick ? sizes[k] / 100 : sizes[k];
        sizes[k] = n;
        /* alternating: evens and odds, n each, no id in common */
        pairs[k][0] = (struct idset_pair){ idset_every (0, 2, n),
                                           idset_every (1, 2, n), 2 * n, n };
        /* overlapping: evens from 0 and evens from n, half in common */
        pairs[k][1] = (struct idset_pair){ idset_every (0, 2, n),
                                           idset_every ((unsigned int)n, 2, n),
                                           n + n / 2, n / 2 };
    }
    for (size_t i = 0; i < 4; i++) {
        double prev = 0;
        for (size_t k = 0; k < 2; k++) {
            char size[32];
            snprintf (size, sizeof (size), "%zu ids", sizes[k]);
            prev = print_measured (ops[i].name, size, ops[i].op,
                                   &pairs[k][ops[i].overlapping], prev);
        }
    }
    for (size_t k = 0; k < 2; k++)
        for (int o = 0; o < 2; o++) {
            rp_idset_destroy (pairs[k][o].a);
            rp_idset_destroy (pairs[k][o].b);
        }
}

/* --- hostlist ------------------------------------------------------------ */

struct hosts {
    size_t n;
    char **names;
    char *joined; /* the decode input */
    struct rp_hostlist *hl;
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rng (void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

static char *xstrdup (const char *s)
{
    char *p = strdup (s);
    if (!p)
        die ("out of memory");
    return p;
}

static char *join (char **names, size_t n)
{
    size_t len = 1;
    char *s, *p;

    for (size_t i = 0; i < n; i++)
        len += strlen (names[i]) + 1;
    if (!(s = malloc (len)))
        die ("out of memory");
    p = s;
    for (size_t i = 0; i < n; i++)
        p += sprintf (p, "%s%s", i ? "," : "", names[i]);
    return s;
}

static void hosts_init (struct hosts *h, size_t n, bool random_names)
{
    char buf[64];
    rp_error_t e;

    h->n = n;
    if (!(h->names = calloc (n, sizeof (h->names[0]))))
        die ("out of memory");
    for (size_t i = 0; i < n; i++) {
        char letters[7];
        for (int j = 0; j < 6; j++)
            letters[j] = (char)('a' + rng () % 26);
        letters[6] = '\0';
        if (random_names)
            snprintf (buf, sizeof (buf), "h%s%zu", letters, i);
        else
            snprintf (buf, sizeof (buf), "node%zu", i);
        h->names[i] = xstrdup (buf);
    }
    if (random_names)
        h->joined = join (h->names, n);
    else {
        snprintf (buf, sizeof (buf), "node[0-%zu]", n - 1);
        h->joined = xstrdup (buf);
    }
    if (!(h->hl = rp_hostlist_decode (h->joined, &e)))
        die ("%s", e.text);
}

static void hosts_fini (struct hosts *h)
{
    for (size_t i = 0; i < h->n; i++)
        free (h->names[i]);
    free (h->names);
    free (h->joined);
    rp_hostlist_destroy (h->hl);
}

static void op_hostlist_decode (void *arg)
{
    struct hosts *h = arg;
    rp_error_t e;
    struct rp_hostlist *hl = rp_hostlist_decode (h->joined, &e);

    if (!hl)
        die ("%s", e.text);
    if (rp_hostlist_count (hl) != h->n)
        die ("hostlist decode: wrong count");
    rp_hostlist_destroy (hl);
}

static void op_hostlist_encode (void *arg)
{
    struct hosts *h = arg;
    char *s = rp_hostlist_encode (h->hl);

    if (!s || strcmp (s, h->joined) != 0)
        die ("hostlist encode: wrong result");
    free (s);
}

static void op_hostlist_find_all (void *arg)
{
    struct hosts *h = arg;

    for (size_t i = 0; i < h->n; i++)
        if (rp_hostlist_find (h->hl, h->names[i]) != (ssize_t)i)
            die ("hostlist find %s: wrong index", h->names[i]);
}

static void bench_hostlist_kind (bool random_names, const size_t *sizes)
{
    static const struct {
        const char *name;
        op_f op;
    } ops[] = {
        { "hostlist decode", op_hostlist_decode },
        { "hostlist encode", op_hostlist_encode },
        { "hostlist find every host", op_hostlist_find_all },
    };
    const char *kind = random_names ? "h<random><n>" : "node[0-N]";
    struct hosts h[NSIZES];

    for (size_t k = 0; k < NSIZES; k++)
        hosts_init (&h[k], sizes[k], random_names);
    for (size_t i = 0; i < 3; i++) {
        double prev = 0;
        for (size_t k = 0; k < NSIZES; k++) {
            char name[128], size[32];
            snprintf (name, sizeof (name), "%s, %s", ops[i].name, kind);
            snprintf (size, sizeof (size), "%zu hosts", sizes[k]);
            prev = print_measured (name, size, ops[i].op, &h[k], prev);
        }
    }
    for (size_t k = 0; k < NSIZES; k++)
        hosts_fini (&h[k]);
}

/* --- R ------------------------------------------------------------------- */

struct rsets {
    size_t n;
    struct rp_rset *all, *a, *b; /* a, b: overlapping 5/8 of all */
    char *encoded;               /* of all */
    size_t a_only, overlap;
};

static struct rp_rset *rset_range (size_t lo, size_t hi)
{
    struct rp_rset *r = rp_rset_create ();
    rp_error_t e;

    if (!r)
        die ("out of memory");
    for (size_t i = lo; i < hi; i++) {
        char host[32];
        struct rp_idset *cores = rp_idset_create ();
        struct rp_idset *gpus = rp_idset_create ();
        if (!cores || !gpus)
            die ("out of memory");
        snprintf (host, sizeof (host), "node%zu", i);
        if (rp_idset_add_range (cores, 0, (unsigned int)(i % 64)) < 0
            || rp_idset_add (gpus, (unsigned int)(i / 64)) < 0)
            die ("idset add failed");
        if (rp_rset_add_target (r, (unsigned int)i, host, cores, gpus, &e) < 0)
            die ("%s", e.text);
        rp_idset_destroy (cores);
        rp_idset_destroy (gpus);
    }
    return r;
}

static void rsets_init (struct rsets *s, size_t n)
{
    size_t cut_b = n * 3 / 8, cut_a = n * 5 / 8;

    s->n = n;
    s->all = rset_range (0, n);
    s->a = rset_range (0, cut_a);
    s->b = rset_range (cut_b, n);
    s->a_only = cut_b;
    s->overlap = cut_a - cut_b;
    if (!(s->encoded = rp_rset_encode (s->all, 0)))
        die ("R encode failed");
}

static void rsets_fini (struct rsets *s)
{
    rp_rset_destroy (s->all);
    rp_rset_destroy (s->a);
    rp_rset_destroy (s->b);
    free (s->encoded);
}

static void check_targets (struct rp_rset *r, size_t n, const char *what,
                           rp_error_t *e)
{
    if (!r)
        die ("R %s: %s", what, e->text);
    if (rp_rset_ntargets (r) != n)
        die ("R %s: %zu targets, expected %zu", what, rp_rset_ntargets (r), n);
    rp_rset_destroy (r);
}

static void op_rset_decode (void *arg)
{
    struct rsets *s = arg;
    rp_error_t e;
    check_targets (rp_rset_decode (s->encoded, &e), s->n, "decode", &e);
}

static void op_rset_encode (void *arg)
{
    struct rsets *s = arg;
    char *out = rp_rset_encode (s->all, 0);

    if (!out || strcmp (out, s->encoded) != 0)
        die ("R encode: wrong result");
    free (out);
}

static void op_rset_union (void *arg)
{
    struct rsets *s = arg;
    rp_error_t e;
    check_targets (rp_rset_union (s->a, s->b, &e), s->n, "union", &e);
}

static void op_rset_diff (void *arg)
{
    struct rsets *s = arg;
    rp_error_t e;
    check_targets (rp_rset_diff (s->a, s->b, &e), s->a_only, "difference", &e);
}

static void op_rset_intersect (void *arg)
{
    struct rsets *s = arg;
    rp_error_t e;
    check_targets (rp_rset_intersect (s->a, s->b, &e), s->overlap, "intersect",
                   &e);
}

static void bench_rset (const size_t *sizes)
{
    static const struct {
        const char *name;
        op_f op;
    } ops[] = {
        { "R decode", op_rset_decode },
        { "R encode", op_rset_encode },
        { "R union (overlapping 5/8 + 5/8)", op_rset_union },
        { "R difference (overlapping 5/8 - 5/8)", op_rset_diff },
        { "R intersect (overlapping 5/8 & 5/8)", op_rset_intersect },
    };
    struct rsets s[NSIZES];

    for (size_t k = 0; k < NSIZES; k++)
        rsets_init (&s[k], sizes[k]);
    for (size_t i = 0; i < 5; i++) {
        double prev = 0;
        for (size_t k = 0; k < NSIZES; k++) {
            char size[32];
            snprintf (size, sizeof (size), "%zu targets", sizes[k]);
            prev = print_measured (ops[i].name, size, ops[i].op, &s[k], prev);
        }
    }
    for (size_t k = 0; k < NSIZES; k++)
        rsets_fini (&s[k]);
}

/* --- main ---------------------------------------------------------------- */

static void usage (FILE *f)
{
    fprintf (f, "Usage: bench-formats [--quick] [--markdown]\n"
                "Time idset, hostlist and R operations; print a Markdown "
                "table.\n"
                "  -q, --quick     small sizes, one iteration (smoke test)\n"
                "  -m, --markdown  Markdown table (the default)\n"
                "  -h, --help      this text\n");
}

static void parse_args (int argc, char **argv)
{
    static const struct option longopts[] = {
        { "quick", no_argument, NULL, 'q' },
        { "markdown", no_argument, NULL, 'm' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    while ((c = getopt_long (argc, argv, "+qmh", longopts, NULL)) != -1) {
        if (c == 'q')
            quick = true;
        else if (c == 'h') {
            usage (stdout);
            exit (0);
        } else if (c != 'm') {
            usage (stderr);
            exit (2);
        }
    }
    if (optind < argc) {
        fprintf (stderr, "bench-formats: unexpected argument '%s'\n",
                 argv[optind]);
        usage (stderr);
        exit (2);
    }
}

int main (int argc, char **argv)
{
    static const size_t full[NSIZES] = { 1024, 4096, 16384 };
    static const size_t small[NSIZES] = { 16, 64, 256 };
    const size_t *sizes;

    parse_args (argc, argv);
    sizes = quick ? small : full;
    printf ("## respol format benchmarks%s\n\n",
            quick ? " (--quick: smoke run, not a measurement)" : "");
    print_header ();
    bench_idset ();
    bench_hostlist_kind (false, sizes);
    bench_hostlist_kind (true, sizes);
    bench_rset (sizes);
    return 0;
}
