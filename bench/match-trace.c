/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* match-trace: a random sequence of matcher operations (core/match.c, RFC 4
 * graph, RFC 14 jobspec, RFC 20 R, RFC 27 release), printed, so that two
 * builds of librespol can be shown to place every job the same way: run
 * it against each and compare the outputs (scripts/compare-match does).
 *
 *   bench/match-trace [--seed=N] [--clusters=N] [--steps=N]
 *                     [--policy=NAME] [--plugindir=DIR] [--jobspecs]
 *                     [--no-hints]
 *
 * For every policy (the built-in first fit and the plugins low, high,
 * pack, spread and locality; --policy: one) and every cluster: a random
 * generated cluster, small (1-8 nodes) or past the size where the matcher
 * keeps block summaries and indexes (65-300 nodes), sometimes with racks,
 * GPUs and memory, driven through random steps: allocations of random
 * jobspecs (slots of cores, GPUs and memory; nodes, shared or exclusive,
 * holding slots; slots of whole nodes; bare cores; two requests at once;
 * every RFC 14 count form; sometimes ranks or ids), frees, partial
 * releases, nodes set down, drained and up again, satisfiability checks.
 * Each allocation prints the job's R with its scheduling key (compact,
 * sorted keys) or its errno and reason (with the jobspec); every other
 * step prints its outcome.  --jobspecs prints the jobspec of each
 * allocation too, to replay one.  --no-hints has the matcher score every
 * candidate (rp_matcher_set_hints): the same output, slower, which is
 * how the policies' hints are checked against their operations.  Nothing is
 * judged here: the output is the evidence.
 *
 * Uses only the public API, so that the same source builds against an
 * older librespol.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/config.h"
#include "respol/diag.h"
#include "respol/graph.h"
#include "respol/idset.h"
#include "respol/jobspec.h"
#include "respol/match.h"
#include "respol/rset.h"

#define BENCH_NAME "match-trace"
#define BENCH_PLUGINS
#include "bench.h"
#include "rng.h"

#define MAXJOBS 512

static bool show_jobspecs; /* --jobspecs */
static bool no_hints;      /* --no-hints */

/* Declared weak: the trace builds against a librespol older than it
 * (scripts/compare-match), where --no-hints is refused. */
extern void rp_matcher_set_hints (struct rp_matcher *m, bool on)
    __attribute__ ((weak));

struct cluster {
    int nodes, racks, sockets, cores, gpus, mem;
    struct rp_matcher *m;
    uint64_t jobs[MAXJOBS];
    int njobs;
    uint64_t next_id;
};

/* --- clusters ----------------------------------------------------------- */

static void cluster_spec (struct cluster *c, char *spec, size_t size)
{
    int n = snprintf (spec, size, "nodes=%d,sockets=%d,cores=%d", c->nodes,
                      c->sockets, c->cores);

    if (c->racks)
        n += snprintf (spec + n, size - (size_t)n, ",racks=%d", c->racks);
    if (c->gpus)
        n += snprintf (spec + n, size - (size_t)n, ",gpus=%d", c->gpus);
    if (c->mem)
        snprintf (spec + n, size - (size_t)n, ",memory=%dGB", c->mem);
}

static void cluster_make (struct cluster *c, const struct rp_plugin *p)
{
    char spec[256];
    struct rp_graph *g;
    rp_error_t e;

    memset (c, 0, sizeof (*c));
    c->nodes = chance (50) ? pick (1, 8) : pick (65, 300);
    c->sockets = pick (1, 2);
    c->cores = pick (1, 8);
    c->gpus = chance (50) ? c->sockets * pick (1, 2) : 0;
    c->mem = chance (50) ? c->sockets * pick (1, 16) : 0;
    if (c->nodes > 8 && chance (25))
        c->racks = c->nodes % 3 == 0 ? 3 : c->nodes % 2 == 0 ? 2 : 0;
    c->next_id = 1;
    cluster_spec (c, spec, sizeof (spec));
    printf ("cluster %s\n", spec);
    if (!(g = rp_graph_generate (spec, &e))
        || !(c->m = rp_matcher_create (g, &e))
        || rp_matcher_set_policy (c->m, p, &e) < 0)
        die ("%s: %s", spec, e.text);
    if (no_hints)
        rp_matcher_set_hints (c->m, false);
}

/* --- jobspecs ------------------------------------------------------------ */

static void put_count (FILE *f, int n)
{
    int hi = n + pick (0, 3);

    switch (pick (0, 9)) {
    case 0:
        fprintf (f, "\"%d-%d\"", n, hi);
        break;
    case 1:
        fprintf (f, "\"%d+\"", n);
        break;
    case 2:
        fprintf (f, "\"%d-%d:2\"", n, hi + 2);
        break;
    case 3:
        fprintf (f, "\"%d,%d\"", n, hi + 1);
        break;
    case 4:
        fprintf (f, "{min: %d, max: %d, operator: \"+\", operand: 1}", n, hi);
        break;
    default:
        fprintf (f, "%d", n);
        break;
    }
}

/* A slot's cores, GPUs and memory, as a flow list. */
static void put_slot_body (FILE *f, const struct cluster *c, bool memory)
{
    int per = c->sockets * c->cores;

    fprintf (f, "{type: core, count: %d}",
             chance (80) ? pick (1, (per + 1) / 2) : pick (1, per + 1));
    if (c->gpus && chance (40))
        fprintf (f, ", {type: gpu, count: %d}", pick (1, c->gpus));
    if (memory && c->mem && chance (40))
        fprintf (f, ", {type: memory, count: %d, unit: GB}",
                 pick (1, c->mem / 2 + 1));
}

static void put_request (FILE *f, const struct cluster *c)
{
    int few = chance (70) ? 1 : pick (1, c->nodes + 1);
    const char *id = chance (5) ? ", id: \"0-40\"" : "";

    switch (pick (0, 9)) {
    case 0:
    case 1:
    case 2: /* slots of cores, GPUs, memory */
        fprintf (f, "  - {type: slot, label: s, count: ");
        put_count (f, chance (70) ? 1 : pick (1, 2 * c->nodes));
        fprintf (f, ", with: [");
        put_slot_body (f, c, true);
        fprintf (f, "]}\n");
        break;
    case 3:
    case 4: /* nodes, shared or exclusive, holding slots */
        fprintf (f, "  - {type: node%s%s, count: ",
                 chance (40) ? ", exclusive: true" : "", id);
        put_count (f, few);
        fprintf (f, ", with: [{type: slot, label: s, count: %d, with: [",
                 pick (1, 2));
        put_slot_body (f, c, false);
        fprintf (f, "]}]}\n");
        break;
    case 5: /* slots of whole nodes */
        fprintf (f, "  - {type: slot, label: s, count: ");
        put_count (f, few);
        fprintf (f, ", with: [{type: node, count: 1}]}\n");
        break;
    case 6: /* cores, no slot */
        fprintf (f,
                 "  - {type: slot, label: s, count: 1, with: [{type: core, "
                 "count: 1}]}\n  - {type: core, count: %d%s}\n",
                 pick (1, c->cores), chance (20) ? ", exclusive: true" : "");
        break;
    case 7: /* two requests */
        fprintf (f,
                 "  - {type: node, count: 1, with: [{type: slot, label: s, "
                 "count: 1, with: [{type: core, count: 1}]}]}\n"
                 "  - {type: slot, label: t, count: %d, with: [",
                 pick (1, 3));
        put_slot_body (f, c, true);
        fprintf (f, "]}\n");
        break;
    default: /* the benchmark's shapes */
        if (chance (50))
            fprintf (f,
                     "  - {type: slot, label: s, count: 1, with: [{type: "
                     "core, count: %d}]}\n",
                     pick (1, c->cores));
        else
            fprintf (f,
                     "  - {type: node, count: %d, exclusive: %s, with: "
                     "[{type: slot, label: s, count: 1, with: [{type: "
                     "core, count: 1}]}]}\n",
                     pick (1, 2), chance (50) ? "true" : "false");
        break;
    }
}

static struct rp_jobspec *gen_jobspec (const struct cluster *c, char **text)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js;
    size_t len = 0;
    FILE *f;

    if (!d || !(f = open_memstream (text, &len)))
        die ("out of memory");
    fprintf (f, "version: 1\nresources:\n");
    put_request (f, c);
    fprintf (f,
             "tasks: [{command: [app], slot: s, count: {per_slot: 1}}]\n"
             "attributes: {system: {duration: %d",
             chance (50) ? 0 : pick (1, 3600));
    if (chance (8)) {
        int lo = pick (0, 3);
        fprintf (f, ", constraints: {ranks: [\"%d-%d\"]}", lo,
                 lo + pick (0, c->nodes));
    }
    fprintf (f, "}}\n");
    fclose (f);
    js = rp_jobspec_load (*text, len, "trace.yaml", RP_JOBSPEC_CANONICAL, d);
    rp_diags_destroy (d);
    return js;
}

/* --- steps ---------------------------------------------------------------- */

static void print_R (const struct rp_rset *R)
{
    char *s = rp_rset_encode (R, 0);

    if (!s)
        die ("encode: out of memory");
    printf ("%s\n", s);
    free (s);
}

static void step_allocate (struct cluster *c)
{
    char *text = NULL;
    struct rp_jobspec *js = gen_jobspec (c, &text);
    struct rp_rset *R;
    rp_error_t e;

    if (!js) {
        printf ("jobspec refused\n");
        free (text);
        return;
    }
    if (chance (10)) {
        int rc = rp_matcher_satisfiability (c->m, js, &e);
        printf ("sat %d %s\n", rc < 0 ? errno : 0, rc < 0 ? e.text : "");
    }
    R = rp_matcher_allocate (c->m, c->next_id, js, 1e9, &e);
    if (!R)
        printf ("alloc %s: %d %s\n", text, errno, e.text);
    else {
        if (show_jobspecs)
            printf ("jobspec %" PRIu64 ":\n%s", c->next_id, text);
        printf ("alloc %" PRIu64 ": ", c->next_id);
        print_R (R);
        if (c->njobs < MAXJOBS)
            c->jobs[c->njobs++] = c->next_id;
        else if (rp_matcher_free (c->m, c->next_id, &e) < 0)
            die ("free: %s", e.text);
        c->next_id++;
    }
    rp_rset_destroy (R);
    rp_jobspec_destroy (js);
    free (text);
}

static void step_free (struct cluster *c)
{
    int j;
    rp_error_t e;

    if (c->njobs == 0)
        return;
    j = pick (0, c->njobs - 1);
    if (rp_matcher_free (c->m, c->jobs[j], &e) < 0)
        die ("free %" PRIu64 ": %s", c->jobs[j], e.text);
    printf ("free %" PRIu64 "\n", c->jobs[j]);
    c->jobs[j] = c->jobs[--c->njobs];
}

static void step_release (struct cluster *c)
{
    const struct rp_rset *R;
    struct rp_idset *ranks;
    unsigned int r;
    rp_error_t e;
    int j;

    if (c->njobs == 0)
        return;
    j = pick (0, c->njobs - 1);
    if (!(R = rp_matcher_job_rset (c->m, c->jobs[j]))
        || !(ranks = rp_idset_create ()))
        die ("job %" PRIu64 ": no R", c->jobs[j]);
    r = rp_idset_first (rp_rset_ranks (R));
    if (rp_idset_add (ranks, r) < 0)
        die ("out of memory");
    if (rp_matcher_release (c->m, c->jobs[j], ranks, &e) < 0)
        die ("release: %s", e.text);
    printf ("release %" PRIu64 " %u\n", c->jobs[j], r);
    if (!rp_matcher_job_rset (c->m, c->jobs[j]))
        c->jobs[j] = c->jobs[--c->njobs];
    rp_idset_destroy (ranks);
}

static void step_state (struct cluster *c)
{
    struct rp_graph *g = rp_matcher_graph (c->m);
    unsigned int rank = (unsigned int)pick (0, c->nodes - 1);
    enum rp_vertex_state st = (enum rp_vertex_state)pick (0, 2);
    rp_error_t e;

    if (rp_graph_set_state (g, rp_graph_rank_vertex (g, rank), st, &e) < 0)
        die ("set-state: %s", e.text);
    printf ("state %u %s\n", rank, rp_graph_state_name (st));
}

static void run_cluster (const struct rp_plugin *p, int steps)
{
    struct cluster c;
    rp_error_t e;

    cluster_make (&c, p);
    for (int s = 0; s < steps; s++) {
        int k = pick (1, 100);
        if (k <= 60)
            step_allocate (&c);
        else if (k <= 85)
            step_free (&c);
        else if (k <= 93)
            step_release (&c);
        else if (c.nodes > 1)
            step_state (&c);
    }
    if (rp_matcher_check (c.m, &e) < 0)
        die ("rp_matcher_check: %s", e.text);
    rp_matcher_destroy (c.m);
}

/* --- main ----------------------------------------------------------------- */

static const char *const names[] = { "first", "low",    "high",
                                     "pack",  "spread", "locality" };

int main (int argc, char **argv)
{
    static const struct option opts[] = {
        { "seed", required_argument, NULL, 's' },
        { "clusters", required_argument, NULL, 'c' },
        { "steps", required_argument, NULL, 'n' },
        { "policy", required_argument, NULL, 'P' },
        { "plugindir", required_argument, NULL, 'p' },
        { "jobspecs", no_argument, NULL, 'j' },
        { "no-hints", no_argument, NULL, 'H' },
        { NULL, 0, NULL, 0 },
    };
    const char *plugindir = getenv ("RESPOL_BUILD_MATCHDIR");
    const char *only = NULL;
    int clusters = 20, steps = 300, opt;

    rng_state = 20261126;
    struct rp_config *cfg;

    while ((opt = getopt_long (argc, argv, "", opts, NULL)) != -1) {
        if (opt == 's')
            rng_state =
                strtoull (optarg, NULL, 10) * UINT64_C (0x9E3779B97F4A7C15) + 1;
        else if (opt == 'c')
            clusters = atoi (optarg);
        else if (opt == 'n')
            steps = atoi (optarg);
        else if (opt == 'P')
            only = optarg;
        else if (opt == 'p')
            plugindir = optarg;
        else if (opt == 'j')
            show_jobspecs = true;
        else if (opt == 'H' && !rp_matcher_set_hints)
            die ("--no-hints: this librespol has no rp_matcher_set_hints");
        else if (opt == 'H')
            no_hints = true;
        else
            die ("usage: match-trace [--seed=N] [--clusters=N] [--steps=N] "
                 "[--policy=NAME] [--plugindir=DIR] [--jobspecs] "
                 "[--no-hints]");
    }
    cfg = bench_plugin_config (plugindir ? plugindir : "plugins/match/.libs",
                               names + 1, 5);
    for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
        const struct rp_plugin *p = NULL;
        uint64_t seed;
        rp_error_t e;
        if (only && strcmp (only, names[i]))
            continue;
        if (i > 0 && !(p = cfg ? rp_config_policy (cfg, names[i], &e) : NULL))
            die ("policy %s: %s", names[i], cfg ? e.text : "no configuration");
        seed = rng_state;
        printf ("policy %s\n", names[i]);
        for (int k = 0; k < clusters; k++)
            run_cluster (p, steps);
        rng_state = seed;
    }
    rp_config_destroy (cfg);
    return 0;
}
