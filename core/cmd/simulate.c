/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol simulate: replay a workload trace (api/respol/trace.h) on a
 * resource graph (RFC 4) in virtual time, matching every job for real.
 *
 *   respol simulate [--config=FILE] [--policy=MATCH-POLICY]
 *       [--queue=NAME[:N]]
 *       [--unit=core|node] [--jobs=FILE.csv] [--format=text|json]
 *       [--compare=P1,P2,...] RESOURCE-OPTION TRACE
 *
 * The rules, pinned so that results compare with other simulators (the
 * trace's own rules, size, duration, run and skipped jobs, are the
 * reader's):
 * - A job of the SWF asks for `size` slots of one core (--unit=core, the
 *   default) or `size` whole nodes (--unit=node; a slot of one node,
 *   exclusive), with its duration as attributes.system.duration (RFC 14).
 *   A job of JSON lines asks what its jobspec asks.
 * - Jobs are queued in (submit time, job id, line) order.  A job the
 *   matcher calls never satisfiable (ENODEV) is rejected when it arrives,
 *   with the matcher's reason on stderr, and counted.
 * - At each event time: the jobs that end release their resources first,
 *   then arrivals are queued, then one scheduling pass.  A job of run
 *   time 0 starts and ends at that time; what it frees is used by another
 *   pass at that time.
 * - The queue policy is a plugin (respol/queue.h): --queue=NAME is the
 *   instance of that name in the configuration's queue stack, else the
 *   plugin NAME from the plugin path (NAME:N: with the configuration
 *   block {depth: N}, for hybrid); without --queue, the stack's first
 *   instance that has a pass, else fcfs.  The queue is ordered by the
 *   policy's priority when it has one, else by the first instance of the
 *   stack that has one, else it is submission order.  Each pass the
 *   policy starts and reserves through the host (core/queue.c), which
 *   refuses a start that would delay a reservation, a reservation later
 *   than the job's last, and (for a policy that says it starts jobs in
 *   order, fcfs) a start that passes a pending job.  The shipped fcfs,
 *   easy, conservative and hybrid are plugins/queue/.
 * - The planner (respol/planner.h) holds the cluster's units: running
 *   jobs hold a span of their duration (what a scheduler knows; none:
 *   for ever) and give it back when they end (at their run time, early);
 *   reservations are spans too.  The units are interchangeable (size
 *   slots of one core, or whole nodes), so what the planner finds free
 *   now the matcher places.  Jobs of JSON lines ask what their jobspecs
 *   ask, which a count of units does not say: they run without a
 *   planner, and are reserved by the matcher (the host's reserve,
 *   cancel and fits, respol/queue.h): a job's reservation is its own
 *   matcher record, freed before it is allocated at its time, and the
 *   matcher places a job now only where no reservation needs the
 *   resources before its end.
 * - After every event time the invariants are checked: no more units in
 *   use than exist, each running job holds exactly its size, no job
 *   starts before it is submitted, the planner has as many units free
 *   now as the matcher (without a planner: the matcher holds as many
 *   jobs as run and are reserved, each reservation its job's record at
 *   the time the policy was given, later than now) (the policy's own promises are checked as it
 *   makes its decisions, above); the matcher's own
 *   check (rp_matcher_check) walks the graph, so it runs every 1,000
 *   event times and at the end.  A broken one stops the replay with
 *   "invariant broken at T: what" (exit 1).
 *
 * Output: the summary (text "key: value" lines, or --format=json, one
 * object with sorted keys) and --jobs=FILE a CSV of the jobs that ran,
 * in queue order.  --compare runs the trace (read once) under each queue
 * or match policy given, on a graph built again each time, and prints
 * the summaries side by side (JSON: an object a line).  Everything but
 * pass_us_mean and pass_us_max (CPU time of the scheduling passes) is a
 * function of the inputs, so two runs give the same bytes.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <respol/config.h>
#include <respol/diag.h>
#include <respol/graph.h>
#include <respol/hostlist.h>
#include <respol/jobspec.h>
#include <respol/match.h>
#include <respol/planner.h>
#include <respol/queue.h>
#include <respol/rset.h>
#include <respol/trace.h>

#include "cmd.h"

#define SUB "simulate"
/* Bounded slowdown's threshold: runs shorter than this count as this. */
#define BSLD_TAU 10.0

enum {
    OPT_HELP = 256,
    OPT_CONFIG,
    OPT_POLICY,
    OPT_QUEUE,
    OPT_UNIT,
    OPT_JOBS,
    OPT_FORMAT,
    OPT_COMPARE,
    OPT_PLOT,
};

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "config", required_argument, NULL, OPT_CONFIG },
    { "policy", required_argument, NULL, OPT_POLICY },
    { "queue", required_argument, NULL, OPT_QUEUE },
    { "unit", required_argument, NULL, OPT_UNIT },
    { "jobs", required_argument, NULL, OPT_JOBS },
    { "format", required_argument, NULL, OPT_FORMAT },
    { "compare", required_argument, NULL, OPT_COMPARE },
    { "plot", required_argument, NULL, OPT_PLOT },
    { "verbose", no_argument, NULL, 'v' },
    CMD_RESOURCE_LONGOPTS,
    { NULL, 0, NULL, 0 },
};
#define SHORTOPTS "hv" CMD_RESOURCE_SHORTOPTS

/* --queue=NAME:N: N from 1 to this, as a configuration block {depth: N}. */
#define DEPTH_MAX 1000000

/* "NAME" or "NAME:N" into the plugin name (a copy, caller frees) and its
 * configuration block (NULL, or {"depth": N}); -1 for a bad N. */
static int parse_queue (const char *label, char **name, json_t **config)
{
    const char *colon = strchr (label, ':');
    char *end;
    unsigned long n;

    *config = NULL;
    if (!colon) {
        if (!(*name = strdup (label)))
            cmd_die (SUB, "out of memory");
        return 0;
    }
    errno = 0;
    n = strtoul (colon + 1, &end, 10);
    if (colon[1] < '1' || colon[1] > '9' || errno || *end || n > DEPTH_MAX)
        return -1;
    if (!(*name = strndup (label, (size_t)(colon - label)))
        || !(*config = json_pack ("{s:I}", "depth", (json_int_t)n)))
        cmd_die (SUB, "out of memory");
    return 0;
}

struct options {
    const char *config, *policy, *jobs_path;
    char *compare; /* --compare's list, or NULL */
    const char *plot_path;
    const char *queue; /* --queue, or NULL */
    bool node_unit, json;
    struct cmd_resources res;
};

enum job_state { QUEUED, RUNNING, DONE, REJECTED };

struct job {
    uint64_t id, size, units;
    /* What the queue policy sees; q.span, q.has_span: its planner span,
     * running or reserved; q.reserved: its last reservation's start. */
    struct rp_queue_job q;
    int64_t priority;
    int64_t submit, run, duration, start, end;
    size_t line;
    json_t *jobspec; /* JSON lines: the trace's; SWF: NULL */
    struct rp_jobspec *js; /* built when first needed, kept while queued */
    bool js_shared;        /* js is the cache's (struct js_cache) */
    char *where;           /* --jobs only: its nodes, as a hostlist */
    enum job_state state;
};


/* The jobspecs of SWF jobs, by (size, duration): a job's jobspec depends
 * on nothing else, and a trace repeats its pairs (LANL's 122,057 jobs have
 * 2,781, its first 12,000 have 613), so a pair's is built once, not once
 * per job.  At most JS_CACHE_MAX of them (about 5.4 KB each: 5.5 MB); a
 * job of a pair seen after the cache is full builds its own.  Open
 * addressing in twice as many slots. */
#define JS_CACHE_MAX 1024
#define JS_CACHE_SLOTS (2 * JS_CACHE_MAX)

struct js_slot {
    uint64_t size;
    int64_t duration;
    struct rp_jobspec *js; /* NULL: empty */
};

struct js_cache {
    struct js_slot slot[JS_CACHE_SLOTS];
    size_t n;
};

struct sim {
    const struct options *o;
    const char *queue;               /* this run's --queue, as given */
    const struct rp_plugin *qp;      /* its queue policy */
    const struct rp_plugin *orderer; /* the queue's priority, or NULL */
    bool quiet;                 /* a rerun (--compare): rejections said */
    struct rp_planner *planner; /* the units over time: running jobs and
                                   reservations, as the scheduler knows
                                   them (durations, not run times) */
    const char *trace;
    struct job *jobs;
    size_t njobs, skipped, rejected;
    size_t arrived;                /* jobs[0..arrived) arrived */
    struct rp_queue_job **queue_v; /* the pending jobs, in queue order */
    size_t nq;
    size_t *running;      /* a heap of indexes, by (end, index) */
    size_t nrunning;
    size_t backfilled;    /* jobs started before an earlier one */
    size_t passer, passed; /* the last such job, the one it passed */
    uint64_t total, in_use;
    struct rp_matcher *m;
    struct js_cache *jsc; /* NULL until a SWF job's jobspec is built */
    double pass_us_sum, pass_us_max;
    size_t passes;
    int64_t now; /* the time of the pass */
    bool later;  /* a job of JSON lines was reserved later than now */
};

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: respol simulate [OPTIONS] RESOURCE-OPTION TRACE\n\n"
             "Replay TRACE (Standard Workload Format or respol JSON lines, "
             "gzip or not;\n'-' is stdin) in virtual time, print a "
             "summary.\n\n"
             "Options:\n"
             "      --queue=NAME    the queue policy: an instance of the "
             "queue stack, or\n"
             "                      a plugin: fcfs (the default), easy, "
             "conservative,\n"
             "                      hybrid:N (reservations for N jobs)\n"
             "      --policy=NAME   the match policy (default: the first of "
             "the match\n"
             "                      stack, else first fit)\n"
             "      --config=FILE   the plugin configuration (default "
             "$RESPOL_CONFIG,\n"
             "                      else the installed one)\n"
             "      --unit=UNIT     core (default: a job of size N asks N "
             "cores) or node\n"
             "                      (N whole nodes)\n"
             "      --jobs=FILE     write every job that ran as CSV\n"
             "      --format=FMT    the summary as text (default) or json\n"
             "      --compare=P,... run under each queue or match policy P, "
             "print the\n"
             "                      summaries side by side\n"
             "      --plot=FILE     draw utilization over time and the waits "
             "as SVG\n"
             "  -v, --verbose       print plugin messages up to info "
             "(-vv: debug)\n"
             "  -h, --help          print this message\n\n%s",
             cmd_resources_help);
}

/* --- the jobs ------------------------------------------------------------ */

static int job_cmp (const void *a, const void *b)
{
    const struct job *x = a, *y = b;

    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static void add_job (struct sim *s, const struct rp_trace_job *tj,
                     size_t *cap)
{
    struct job *j;

    if (s->njobs == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        if (!(s->jobs = realloc (s->jobs, *cap * sizeof (*s->jobs))))
            cmd_die (SUB, "out of memory");
    }
    j = &s->jobs[s->njobs++];
    memset (j, 0, sizeof (*j));
    j->id = tj->id;
    j->size = tj->size;
    j->submit = tj->submit;
    j->run = tj->run;
    j->duration = tj->duration;
    j->line = tj->line;
    j->start = j->end = -1;
    if (tj->jobspec && !(j->jobspec = json_deep_copy (tj->jobspec)))
        cmd_die (SUB, "out of memory");
}

static void read_trace (struct sim *s, const char *path)
{
    rp_error_t error;
    struct rp_trace *t = rp_trace_open (path, &error);
    const struct rp_trace_job *tj;
    size_t cap = 0;

    if (!t)
        cmd_die (SUB, "%s", error.text);
    while ((tj = rp_trace_next (t, &error))) {
        if (tj->skip)
            s->skipped++;
        else
            add_job (s, tj, &cap);
    }
    if (errno != 0)
        cmd_die (SUB, "%s", error.text);
    rp_trace_close (t);
    qsort (s->jobs, s->njobs, sizeof (*s->jobs), job_cmp);
}

/* The jobspec of job j: the trace's, or size slots of one core or node. */
static struct rp_jobspec *job_jobspec (const struct sim *s,
                                       const struct job *j)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js;
    json_t *o = j->jobspec;

    /* RFC 14: a duration of 0 is no limit. */
    if (!o)
        o = json_pack ("{s:i, s:[{s:s, s:I, s:s, s:[{s:s, s:i}]}], "
                       "s:[{s:[s], s:s, s:{s:i}}], s:{s:{s:I}}}",
                       "version", 1, "resources", "type", "slot", "count",
                       (json_int_t)j->size, "label", "task", "with", "type",
                       s->o->node_unit ? "node" : "core", "count", 1, "tasks",
                       "command", "job", "slot", "task", "count", "per_slot",
                       1, "attributes", "system", "duration",
                       (json_int_t)j->duration);
    if (!o || !d)
        cmd_die (SUB, "out of memory");
    js = rp_jobspec_from_json (o, "jobspec", RP_JOBSPEC_CANONICAL, d);
    if (o != j->jobspec)
        json_decref (o);
    if (!js)
        cmd_die (SUB, "%s:%zu: job %" PRIu64 ": %s", s->trace, j->line, j->id,
                 rp_diags_count (d) ? rp_diags_text (d, 0)
                                    : "not a valid jobspec");
    rp_diags_destroy (d);
    return js;
}

/* The cache's jobspec of (j->size, j->duration), built if missing;
 * NULL when the cache is full. */
static struct rp_jobspec *cached_jobspec (struct sim *s, const struct job *j)
{
    uint64_t h = (j->size * 0x9e3779b97f4a7c15ULL)
                 ^ ((uint64_t)j->duration * 0xc2b2ae3d27d4eb4fULL);
    struct js_slot *e;

    if (!s->jsc && !(s->jsc = calloc (1, sizeof (*s->jsc))))
        cmd_die (SUB, "out of memory");
    for (size_t k = (size_t)(h >> 40) % JS_CACHE_SLOTS;;
         k = (k + 1) % JS_CACHE_SLOTS) {
        e = &s->jsc->slot[k];
        if (!e->js)
            break;
        if (e->size == j->size && e->duration == j->duration)
            return e->js;
    }
    if (s->jsc->n == JS_CACHE_MAX)
        return NULL;
    e->size = j->size;
    e->duration = j->duration;
    e->js = job_jobspec (s, j);
    s->jsc->n++;
    return e->js;
}

static void js_cache_destroy (struct js_cache *c)
{
    for (size_t k = 0; c && k < JS_CACHE_SLOTS; k++)
        rp_jobspec_destroy (c->slot[k].js);
    free (c);
}

/* Job j's jobspec: a SWF job's from the cache, else built once while it
 * waits (a queued job is tried at every pass).  Borrowed until
 * drop_jobspec. */
static struct rp_jobspec *jobspec_of (struct sim *s, struct job *j)
{
    if (!j->js && !j->jobspec)
        j->js_shared = (j->js = cached_jobspec (s, j)) != NULL;
    if (!j->js)
        j->js = job_jobspec (s, j);
    return j->js;
}

static void drop_jobspec (struct job *j)
{
    if (!j->js_shared)
        rp_jobspec_destroy (j->js);
    j->js = NULL;
    j->js_shared = false;
}

/* --- running jobs: a heap by (end, index) --------------------------------- */

static bool ends_before (const struct sim *s, size_t a, size_t b)
{
    const struct job *x = &s->jobs[a], *y = &s->jobs[b];

    return x->end < y->end || (x->end == y->end && a < b);
}

static void heap_swap (size_t *h, size_t a, size_t b)
{
    size_t t = h[a];

    h[a] = h[b];
    h[b] = t;
}

static void heap_push (struct sim *s, size_t i)
{
    size_t k = s->nrunning++;

    s->running[k] = i;
    while (k > 0 && ends_before (s, s->running[k], s->running[(k - 1) / 2])) {
        heap_swap (s->running, k, (k - 1) / 2);
        k = (k - 1) / 2;
    }
}

static size_t heap_pop (struct sim *s)
{
    size_t top = s->running[0], k = 0;

    s->running[0] = s->running[--s->nrunning];
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= s->nrunning)
            break;
        if (c + 1 < s->nrunning
            && ends_before (s, s->running[c + 1], s->running[c]))
            c++;
        if (!ends_before (s, s->running[c], s->running[k]))
            break;
        heap_swap (s->running, k, c);
        k = c;
    }
    return top;
}

/* --- events ---------------------------------------------------------------- */

/* A job's span in the planner: its duration from start, or no end. */
static void span_add (struct sim *s, struct job *j, int64_t start)
{
    rp_error_t error;
    int64_t d = j->duration > 0 ? j->duration : RP_PLANNER_FOREVER;

    if (!s->planner)
        return;
    if (rp_planner_add (s->planner, start, d, j->size, &j->q.span, &error) < 0)
        cmd_die (SUB, "invariant broken at %" PRId64 ": job %" PRIu64 ": %s",
                 start, j->id, error.text);
    j->q.has_span = true;
}

static void span_remove (struct sim *s, struct job *j)
{
    if (s->planner && j->q.has_span
        && rp_planner_remove (s->planner, j->q.span, NULL) < 0)
        cmd_die (SUB, "job %" PRIu64 ": planner span lost", j->id);
    j->q.has_span = false;
}

static void release (struct sim *s, int64_t t)
{
    rp_error_t error;

    while (s->nrunning > 0 && s->jobs[s->running[0]].end <= t) {
        size_t i = heap_pop (s);
        if (rp_matcher_free (s->m, i + 1, &error) < 0)
            cmd_die (SUB, "job %" PRIu64 ": %s", s->jobs[i].id, error.text);
        s->in_use -= s->jobs[i].units;
        s->jobs[i].state = DONE;
        span_remove (s, &s->jobs[i]);
    }
}

static void reject (struct sim *s, struct job *j, const rp_error_t *error,
                    int errnum)
{
    char buf[sizeof (error->text) + 32];

    if (errnum != ENODEV) {
        cmd_warn (SUB, "%s:%zu: job %" PRIu64 ": %s", s->trace, j->line, j->id,
                  cmd_match_error (error, errnum, buf, sizeof (buf)));
        exit (cmd_match_status (errnum));
    }
    if (!s->quiet)
        cmd_warn (SUB, "%s:%zu: job %" PRIu64 ": rejected: %s", s->trace,
                  j->line, j->id,
                  cmd_match_error (error, errnum, buf, sizeof (buf)));
    j->state = REJECTED;
    s->rejected++;
}

/* The job whose queue record is q. */
static struct job *job_of (struct rp_queue_job *q)
{
    return (struct job *)((char *)q - offsetof (struct job, q));
}

/* Queue job j: after the last pending job of a priority at least its. */
static void enqueue (struct sim *s, struct job *j)
{
    size_t k = s->nq;

    if (s->orderer)
        while (k > 0 && job_of (s->queue_v[k - 1])->priority < j->priority)
            k--;
    memmove (&s->queue_v[k + 1], &s->queue_v[k],
             (s->nq - k) * sizeof (*s->queue_v));
    s->queue_v[k] = &j->q;
    s->nq++;
    j->q.pending = true;
}

static void arrive (struct sim *s, int64_t t)
{
    rp_error_t error;

    while (s->arrived < s->njobs && s->jobs[s->arrived].submit <= t) {
        struct job *j = &s->jobs[s->arrived++];
        struct rp_jobspec *js = NULL;
        /* A size the units hold is satisfiable (unless a policy prunes:
         * then the job is rejected when it is first tried). */
        if (!s->planner || j->size > s->total || s->orderer)
            js = jobspec_of (s, j);
        if ((!s->planner || j->size > s->total)
            && rp_matcher_satisfiability (s->m, js, &error) < 0)
            reject (s, j, &error, errno);
        else if (s->orderer
                 && rp_queue_priority (s->orderer, js, &j->priority, &error)
                        < 0)
            cmd_die (SUB, "%s", error.text);
        else
            enqueue (s, j);
        if (j->state == REJECTED)
            drop_jobspec (j);
    }
}

/* The units job id holds: cores, or execution targets with --unit=node
 * (counted from the matcher's record: no R is built). */
static uint64_t units_of (const struct sim *s, uint64_t id)
{
    ssize_t n =
        rp_matcher_job_count (s->m, id, s->o->node_unit ? "node" : "core");

    return n > 0 ? (uint64_t)n : 0;
}

static char *where_of (const struct sim *sim, uint64_t id)
{
    struct rp_hostlist *hl = rp_matcher_job_nodelist (sim->m, id);
    char *s = hl ? rp_hostlist_encode (hl) : NULL;

    rp_hostlist_destroy (hl);
    if (!s)
        cmd_die (SUB, "out of memory");
    return s;
}

/* --- reservations through the matcher (jobs of JSON lines) ----------------
 *
 * Without a planner a job's reservation is its own matcher record (id
 * i + 1, the id it runs under: a job is never both), made by
 * rp_matcher_allocate_orelse_reserve_held (no R: only its start is read)
 * and freed before the job is allocated at its time.  One reserved at
 * now holds its resources from now: the start takes them.  Whether a
 * job fits now is rp_matcher_fits: the matcher's answer, nothing
 * allocated. */

static void unreserve_job (struct sim *s, struct job *j)
{
    rp_error_t error;

    if (s->planner || !j->q.has_span)
        return;
    if (rp_matcher_free (s->m, (uint64_t)(j - s->jobs) + 1, &error) < 0)
        cmd_die (SUB, "job %" PRIu64 ": %s", j->id, error.text);
    j->q.has_span = false;
}

/* Job j's reservation again, at the earliest time from now: *at, or
 * RP_PLANNER_FOREVER when no time holds it (nothing held).  0, or -1
 * with errno and error (the matcher's). */
static int reserve_job (struct sim *s, struct job *j, int64_t *at,
                        rp_error_t *error)
{
    double t;

    unreserve_job (s, j);
    if (rp_matcher_allocate_orelse_reserve_held (
            s->m, (uint64_t)(j - s->jobs) + 1, jobspec_of (s, j),
            (double)s->now, &t, error)
        < 0) {
        *at = RP_PLANNER_FOREVER;
        return errno == EBUSY ? 0 : -1;
    }
    j->q.has_span = true;
    *at = (int64_t)t;
    s->later = s->later || *at > s->now;
    return 0;
}

/* The host's reserve, cancel and fits (struct rp_queue_host). */
static int host_reserve (void *arg, size_t k, int64_t *at, rp_error_t *error)
{
    struct sim *s = arg;

    return reserve_job (s, job_of (s->queue_v[k]), at, error);
}

static int host_cancel (void *arg, size_t k, rp_error_t *error)
{
    struct sim *s = arg;

    (void)error;
    unreserve_job (s, job_of (s->queue_v[k]));
    return 0;
}

/* Whether the matcher places job j now, around the reservations, asked
 * without allocating (rp_matcher_fits).  A failure says yes: the start
 * fails with it (rejects the job, or stops the replay).  Not now says
 * no: whether it ever could was asked when it arrived. */
static bool places_now (struct sim *s, struct job *j)
{
    rp_error_t error;

    return rp_matcher_fits (s->m, jobspec_of (s, j), (double)s->now, &error)
           != 0;
}

/* Its own reservation held: see respol/queue.h. */
static bool host_fits (void *arg, size_t k)
{
    struct sim *s = arg;

    return places_now (s, job_of (s->queue_v[k]));
}

/* Allocate job i at t: 0, or -1 with errno and error.  A job reserved
 * later is reserved again first (its place is its own), and is still
 * reserved (EBUSY) when that is not now.  Once jobs of JSON lines are
 * reserved later than now, a job is asked whether it fits first: an
 * allocation that fails walks the graph twice (now, then the pristine
 * graph to word its error), the question at most once, and not at all
 * where the matcher's planners (it has them from then on) show too few
 * units free.  Before, the question would only add a walk to each
 * start. */
static int allocate (struct sim *s, size_t i, int64_t t, rp_error_t *error)
{
    struct job *j = &s->jobs[i];
    int64_t at;

    if (s->later && !j->q.has_span && !places_now (s, j)) {
        errno = EBUSY;
        return -1;
    }
    if (s->planner || !j->q.has_span)
        return rp_matcher_allocate_held (s->m, i + 1, jobspec_of (s, j),
                                         (double)t, error);
    if (j->q.reserved != t) {
        if (reserve_job (s, j, &at, error) < 0)
            return -1;
        j->q.reserved = at;
        if (at != t) {
            errno = EBUSY;
            return -1;
        }
    }
    j->q.has_span = false; /* the record runs */
    return 0;
}

/* Try to start job i, at position k of the queue, at t: an enum
 * rp_queue_start. */
static int try_start (struct sim *s, size_t i, size_t k, int64_t t)
{
    struct job *j = &s->jobs[i];
    rp_error_t error;
    int rc = allocate (s, i, t, &error);
    int errnum = errno;

    if (rc < 0) {
        if (errnum == EBUSY)
            return RP_QUEUE_NO_ROOM;
        drop_jobspec (j);
        reject (s, j, &error, errnum);
        return RP_QUEUE_REJECTED;
    }
    drop_jobspec (j);
    j->units = units_of (s, i + 1);
    if (s->o->jobs_path)
        j->where = where_of (s, i + 1);
    j->state = RUNNING;
    j->start = t;
    j->end = t + j->run;
    s->in_use += j->units;
    span_remove (s, j); /* its reservation */
    span_add (s, j, t);
    for (size_t e = 0; e < k; e++)
        if (s->queue_v[e]->pending) {
            s->backfilled++;
            s->passed = (size_t)(job_of (s->queue_v[e]) - s->jobs);
            s->passer = i;
            break;
        }
    heap_push (s, i);
    return RP_QUEUE_STARTED;
}

/* CPU time: a pass's cost, whatever else the machine runs. */
static double now_us (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The host's start (struct rp_queue_host). */
static int host_start (void *arg, size_t k, rp_error_t *error)
{
    struct sim *s = arg;
    struct job *j = job_of (s->queue_v[k]);

    (void)error;
    return try_start (s, (size_t)(j - s->jobs), k, s->now);
}

/* The queue without the jobs that left it in a pass. */
static void compact (struct sim *s)
{
    size_t n = 0;

    for (size_t k = 0; k < s->nq; k++)
        if (s->queue_v[k]->pending)
            s->queue_v[n++] = s->queue_v[k];
    s->nq = n;
}

/* One scheduling pass at t.  A pass with nothing queued does nothing and
 * counts 0 us: the CPU clock is a system call, two for each pass timed,
 * and many passes (after jobs end) find the queue empty. */
static void pass (struct sim *s, int64_t t)
{
    struct rp_queue_host h = { .jobs = s->queue_v,
                               .count = s->nq,
                               .now = t,
                               .planner = s->planner,
                               .start = host_start,
                               .arg = s,
                               .reserve = host_reserve,
                               .cancel = host_cancel,
                               .fits = host_fits };
    double t0, us;
    rp_error_t error;

    s->passes++;
    if (s->nq == 0)
        return;
    t0 = now_us ();
    s->now = t;
    if (rp_queue_run (s->qp, &h, &error) < 0)
        cmd_die (SUB, "at %" PRId64 ": %s", t, error.text);
    compact (s);
    us = now_us () - t0;
    s->pass_us_sum += us;
    if (us > s->pass_us_max)
        s->pass_us_max = us;
}

/* The matcher's own check walks the whole graph: every MATCHER_CHECK
 * event times and at the end; the others are O(running jobs). */
#define MATCHER_CHECK 1000

static void check_matcher (struct sim *s, int64_t t)
{
    rp_error_t error;

    if (rp_matcher_check (s->m, &error) < 0)
        cmd_die (SUB, "invariant broken at %" PRId64 ": %s", t, error.text);
}

/* Without a planner: every reservation held is the matcher's record of
 * the job, a reservation later than now at the start the policy was
 * given (nothing moved it). */
static void check_reservations (const struct sim *s, int64_t t)
{
    for (size_t k = 0; k < s->nq; k++) {
        const struct job *j = job_of (s->queue_v[k]);
        double start;
        bool reserved;
        if (!j->q.has_span)
            continue;
        if (!rp_matcher_job_time (s->m, (uint64_t)(j - s->jobs) + 1, &start,
                                  NULL, &reserved)
            || !reserved || (int64_t)start != j->q.reserved || start <= t)
            cmd_die (SUB,
                     "invariant broken at %" PRId64 ": job %" PRIu64
                     " is not reserved at %" PRId64 " in the matcher",
                     t, j->id, j->q.reserved);
    }
}

/* The queued jobs that hold a reservation in the matcher. */
static size_t reservations (const struct sim *s)
{
    size_t n = 0;

    for (size_t k = 0; !s->planner && k < s->nq; k++)
        n += s->queue_v[k]->has_span;
    return n;
}

static void check (struct sim *s, int64_t t, size_t events)
{
    uint64_t used = 0;

    if (events % MATCHER_CHECK == 0)
        check_matcher (s, t);
    if (rp_matcher_njobs (s->m) != s->nrunning + reservations (s))
        cmd_die (SUB, "invariant broken at %" PRId64 ": %zu jobs hold "
                      "resources, %zu run, %zu reserved", t,
                 rp_matcher_njobs (s->m), s->nrunning, reservations (s));
    for (size_t k = 0; k < s->nrunning; k++) {
        const struct job *j = &s->jobs[s->running[k]];
        if (j->units != j->size && !j->jobspec)
            cmd_die (SUB, "invariant broken at %" PRId64 ": job %" PRIu64
                          " holds %" PRIu64 " units, its size is %" PRIu64,
                     t, j->id, j->units, j->size);
        if (j->start < j->submit)
            cmd_die (SUB, "invariant broken at %" PRId64 ": job %" PRIu64
                          " started before it was submitted", t, j->id);
        used += j->units;
    }
    if (used != s->in_use || used > s->total)
        cmd_die (SUB, "invariant broken at %" PRId64 ": %" PRIu64
                      " units in use of %" PRIu64, t, used, s->total);
    if (s->planner
        && rp_planner_free_at (s->planner, t) != s->total - s->in_use)
        cmd_die (SUB,
                 "invariant broken at %" PRId64 ": the planner has %" PRIu64
                 " units free, the matcher %" PRIu64,
                 t, rp_planner_free_at (s->planner, t), s->total - s->in_use);
    if (!s->planner)
        check_reservations (s, t);
}

static void progress (const struct sim *s, size_t events, bool tty)
{
    if (tty && events % 4096 == 0)
        fprintf (stderr, "\rrespol: %s: %zu of %zu jobs arrived, %zu running",
                 SUB, s->arrived, s->njobs, s->nrunning);
}

static void replay (struct sim *s)
{
    bool tty = isatty (STDERR_FILENO);
    size_t events = 0;

    while (s->arrived < s->njobs || s->nrunning > 0) {
        int64_t t = s->arrived < s->njobs ? s->jobs[s->arrived].submit
                                          : INT64_MAX;
        if (s->nrunning > 0 && s->jobs[s->running[0]].end < t)
            t = s->jobs[s->running[0]].end;
        do {
            release (s, t);
            arrive (s, t);
            pass (s, t);
        } while (s->nrunning > 0 && s->jobs[s->running[0]].end <= t);
        check (s, t, ++events);
        progress (s, events, tty);
        if (s->nrunning == 0 && s->arrived == s->njobs && s->nq > 0)
            cmd_die (SUB, "job %" PRIu64 " can never start: nothing runs",
                     job_of (s->queue_v[0])->id);
    }
    check_matcher (s, INT64_MAX);
    if (tty && events >= 4096)
        fprintf (stderr, "\r\033[K");
}

/* --- output -------------------------------------------------------------- */

static int cmp_i64 (const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

    return x < y ? -1 : x > y;
}

/* Bounded slowdown: (wait + run) / max(run, tau), at least 1. */
static double bsld (double wait, double run)
{
    double x = (wait + run) / (run > BSLD_TAU ? run : BSLD_TAU);

    return x > 1.0 ? x : 1.0;
}

#define PLOT_BINS 200

struct summary {
    char queue[32];
    char *policy;
    size_t jobs, rejected, skipped, backfilled;
    double utilization, mean_wait, mean_bsld, pass_us_mean, pass_us_max;
    int64_t p95_wait, makespan;
    /* For --plot: utilization in PLOT_BINS equal slices of [first, last],
     * and the waits at every percentile. */
    int64_t first, last;
    double util[PLOT_BINS];
    int64_t wait_pct[101];
};

/* Job j's unit-seconds into the slices of [u->first, u->last] it spans. */
static void plot_job (struct summary *u, const struct job *j, double width)
{
    size_t b = (size_t)((double)(j->start - u->first) / width);

    for (; b < PLOT_BINS; b++) {
        double lo = (double)u->first + (double)b * width;
        double a = (double)j->start > lo ? (double)j->start : lo;
        double e = (double)j->end < lo + width ? (double)j->end : lo + width;
        if (e <= a)
            break;
        u->util[b] += (e - a) * (double)j->units;
    }
}

static void plot_data (const struct sim *s, struct summary *u,
                       const int64_t *waits)
{
    double width = (double)(u->last - u->first) / PLOT_BINS;

    for (size_t k = 0; k <= 100; k++)
        u->wait_pct[k] = waits[k * (u->jobs - 1) / 100];
    if (width <= 0)
        return;
    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].state == DONE)
            plot_job (u, &s->jobs[i], width);
    for (size_t b = 0; b < PLOT_BINS; b++)
        u->util[b] /= width * (double)s->total;
}

static void summarize (const struct sim *s, struct summary *u)
{
    int64_t *waits = malloc ((s->njobs + 1) * sizeof (*waits));
    int64_t first = INT64_MAX, last = 0;
    double area = 0, wsum = 0, bsum = 0;

    if (!waits)
        cmd_die (SUB, "out of memory");
    memset (u, 0, sizeof (*u));
    snprintf (u->queue, sizeof (u->queue), "%s", s->queue);
    if (!(u->policy = strdup (rp_matcher_policy_name (s->m))))
        cmd_die (SUB, "out of memory");
    u->rejected = s->rejected;
    u->skipped = s->skipped;
    u->backfilled = s->backfilled;
    u->pass_us_max = s->pass_us_max;
    if (s->passes)
        u->pass_us_mean = s->pass_us_sum / (double)s->passes;
    for (size_t i = 0; i < s->njobs; i++) {
        const struct job *j = &s->jobs[i];
        double w = (double)(j->start - j->submit);
        if (j->state != DONE)
            continue;
        waits[u->jobs++] = j->start - j->submit;
        wsum += w;
        bsum += bsld (w, (double)j->run);
        area += (double)j->units * (double)j->run;
        first = j->submit < first ? j->submit : first;
        last = j->end > last ? j->end : last;
    }
    if (u->jobs > 0) {
        qsort (waits, u->jobs, sizeof (*waits), cmp_i64);
        /* The nearest rank: the ceil(0.95 n)-th smallest. */
        u->p95_wait = waits[(95 * u->jobs + 99) / 100 - 1];
        u->mean_wait = wsum / (double)u->jobs;
        u->mean_bsld = bsum / (double)u->jobs;
        u->makespan = last - first;
        if (u->makespan > 0)
            u->utilization = area / ((double)s->total * (double)u->makespan);
        u->first = first;
        u->last = last;
        plot_data (s, u, waits);
    }
    free (waits);
}

static void print_json (const struct summary *u)
{
    printf ("{\"backfilled\":%zu,\"jobs\":%zu,\"makespan\":%" PRId64
            ",\"mean_bsld\":%.3f,\"mean_wait\":%.1f,\"p95_wait\":%" PRId64
            ",\"pass_us_max\":%.1f,\"pass_us_mean\":%.1f,\"policy\":\"%s\","
            "\"queue\":\"%s\",\"rejected\":%zu,\"skipped\":%zu,"
            "\"utilization\":%.4f}\n",
            u->backfilled, u->jobs, u->makespan, u->mean_bsld, u->mean_wait,
            u->p95_wait, u->pass_us_max, u->pass_us_mean, u->policy, u->queue,
            u->rejected, u->skipped, u->utilization);
}

/* One line of the text summary: the key, then each run's value. */
static void print_row (const char *key, const struct summary *u, size_t n,
                       size_t offset, char type)
{
    if (n > 1)
        printf ("%s:%*s", key, (int)(13 - strlen (key)), "");
    else
        printf ("%s:", key);
    for (size_t i = 0; i < n; i++) {
        const char *p = (const char *)&u[i] + offset;
        char buf[64];
        if (type == 'a')
            snprintf (buf, sizeof (buf), "%s", p);
        else if (type == 's')
            snprintf (buf, sizeof (buf), "%s", *(char *const *)p);
        else if (type == 'z')
            snprintf (buf, sizeof (buf), "%zu", *(const size_t *)p);
        else if (type == 'i')
            snprintf (buf, sizeof (buf), "%" PRId64, *(const int64_t *)p);
        else
            snprintf (buf, sizeof (buf), type == '4' ? "%.4f"
                                         : type == '3' ? "%.3f"
                                                       : "%.1f",
                      *(const double *)p);
        printf (n > 1 ? " %14s" : " %s", buf);
    }
    printf ("\n");
}

/* The summaries of n runs: text, one column per run, or JSON, one
 * object a line. */
static void print_summaries (const struct summary *u, size_t n, bool json)
{
    static const struct {
        const char *key;
        size_t offset;
        char type;
    } rows[] = {
#define ROW(f, t) { #f, offsetof (struct summary, f), t }
        ROW (queue, 'a'),       ROW (policy, 's'),      ROW (jobs, 'z'),
        ROW (rejected, 'z'),    ROW (skipped, 'z'),     ROW (utilization, '4'),
        ROW (mean_wait, '1'),   ROW (p95_wait, 'i'),    ROW (mean_bsld, '3'),
        ROW (makespan, 'i'),    ROW (backfilled, 'z'),  ROW (pass_us_mean, '1'),
        ROW (pass_us_max, '1'),
#undef ROW
    };

    for (size_t i = 0; json && i < n; i++)
        print_json (&u[i]);
    for (size_t r = 0; !json && r < sizeof (rows) / sizeof (rows[0]); r++)
        print_row (rows[r].key, u, n, rows[r].offset, rows[r].type);
}

/* --- --plot: utilization over time and the waits, one colour a run --- */

static const char *const colours[] = { "#1f77b4", "#d62728", "#2ca02c",
                                       "#9467bd", "#ff7f0e", "#8c564b",
                                       "#e377c2", "#7f7f7f" };
#define PW 720.0 /* plot width, from x = 60 */
#define PH 200.0 /* each panel's height */

static void plot_axes (FILE *f, double top, const char *title,
                       const char *xlabel, const char *x0, const char *x1)
{
    fprintf (f,
             "<rect x=\"60\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" "
             "fill=\"none\" stroke=\"#000\"/>\n"
             "<text x=\"60\" y=\"%.0f\">%s</text>\n"
             "<text x=\"400\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n"
             "<text x=\"60\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n"
             "<text x=\"780\" y=\"%.0f\" text-anchor=\"middle\">%s</text>\n"
             "<text x=\"55\" y=\"%.0f\" text-anchor=\"end\">1</text>\n"
             "<text x=\"55\" y=\"%.0f\" text-anchor=\"end\">0</text>\n",
             top, PW, PH, top - 8, title, top + PH + 32, xlabel, top + PH + 16,
             x0, top + PH + 16, x1, top + 10, top + PH);
}

/* s as XML character data. */
static void xml_text (FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            fputs ("&lt;", f);
        else if (*s == '&')
            fputs ("&amp;", f);
        else
            fputc (*s, f);
    }
}

static void write_plot (const char *path, const struct summary *u, size_t n)
{
    FILE *f = fopen (path, "w");
    int64_t t0 = INT64_MAX, t1 = 0, wmax = 1;
    char end[64], wend[64];

    if (!f)
        cmd_die (SUB, "%s: %s", path, strerror (errno));
    for (size_t i = 0; i < n; i++) {
        t0 = u[i].jobs && u[i].first < t0 ? u[i].first : t0;
        t1 = u[i].last > t1 ? u[i].last : t1;
        wmax = u[i].wait_pct[100] > wmax ? u[i].wait_pct[100] : wmax;
    }
    if (t1 <= t0)
        t0 = 0, t1 = 1;
    if (t1 - t0 < 2 * 86400)
        snprintf (end, sizeof (end), "%" PRId64 " s", t1 - t0);
    else
        snprintf (end, sizeof (end), "%.1f days", (double)(t1 - t0) / 86400);
    snprintf (wend, sizeof (wend), "%" PRId64 " s", wmax);
    fprintf (f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"800\" "
                "height=\"600\" font-family=\"sans-serif\" "
                "font-size=\"12\">\n<rect width=\"800\" height=\"600\" "
                "fill=\"#fff\"/>\n");
    plot_axes (f, 40, "utilization", "time", "0", end);
    plot_axes (f, 340, "fraction of jobs that waited at most", "wait (log scale)",
               "0 s", wend);
    for (size_t i = 0; i < n; i++) {
        const char *c = colours[i % (sizeof (colours) / sizeof (colours[0]))];
        double width = (double)(u[i].last - u[i].first) / PLOT_BINS;
        fprintf (f, "<text x=\"%.0f\" y=\"590\" fill=\"%s\">%s ",
                 60 + (double)i * 120, c, u[i].queue);
        xml_text (f, u[i].policy);
        fprintf (f, "</text>\n");
        if (!u[i].jobs)
            continue;
        fprintf (f, "<polyline fill=\"none\" stroke=\"%s\" points=\"", c);
        for (size_t b = 0; b < PLOT_BINS && width > 0; b++)
            fprintf (f, "%s%.1f,%.1f", b ? " " : "",
                     60 + PW * ((double)u[i].first + ((double)b + 0.5) * width
                                - (double)t0) / (double)(t1 - t0),
                     40 + PH * (1 - u[i].util[b]));
        fprintf (f, "\"/>\n<polyline fill=\"none\" stroke=\"%s\" "
                    "points=\"", c);
        for (size_t k = 0; k <= 100; k++)
            fprintf (f, "%s%.1f,%.1f", k ? " " : "",
                     60 + PW * log10 (1 + (double)u[i].wait_pct[k])
                              / log10 (1 + (double)wmax),
                     340 + PH * (1 - (double)k / 100));
        fprintf (f, "\"/>\n");
    }
    fprintf (f, "</svg>\n");
    if (fclose (f) != 0)
        cmd_die (SUB, "%s: %s", path, strerror (errno));
}

static void write_jobs (const struct sim *s, const char *path)
{
    FILE *f = fopen (path, "w");

    if (!f)
        cmd_die (SUB, "%s: %s", path, strerror (errno));
    fprintf (f, "id,submit,start,end,wait,size,where\n");
    for (size_t i = 0; i < s->njobs; i++) {
        const struct job *j = &s->jobs[i];
        if (j->state == DONE)
            fprintf (f,
                     "%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                     ",%" PRIu64 ",\"%s\"\n",
                     j->id, j->submit, j->start, j->end, j->start - j->submit,
                     j->units, j->where);
    }
    if (fclose (f) != 0)
        cmd_die (SUB, "%s: %s", path, strerror (errno));
}

/* --- the command ----------------------------------------------------------- */

static uint64_t count_units (const struct rp_graph *g, bool node_unit)
{
    const char *type = node_unit ? "node" : "core";
    uint64_t n = 0;

    for (size_t v = 0; v < rp_graph_nvertices (g); v++)
        if (!strcmp (rp_graph_vertex_type (g, (rp_vertex_t)v), type))
            n += node_unit ? 1 : rp_graph_vertex_size (g, (rp_vertex_t)v);
    return n;
}

static void set_option (struct options *o, int c)
{
    if (c == 'v')
        cmd_verbose ();
    else if (c == OPT_CONFIG)
        o->config = optarg;
    else if (c == OPT_POLICY)
        o->policy = optarg;
    else if (c == OPT_JOBS)
        o->jobs_path = optarg;
    else if (c == OPT_COMPARE)
        o->compare = optarg;
    else if (c == OPT_PLOT)
        o->plot_path = optarg;
    else if (c == OPT_QUEUE) {
        char *name;
        json_t *config;
        if (parse_queue (optarg, &name, &config) < 0)
            cmd_usage_error (SUB,
                             "--queue: '%s': the depth after ':' must "
                             "be an integer from 1 to %d",
                             optarg, DEPTH_MAX);
        free (name);
        json_decref (config);
        o->queue = optarg;
    } else if (c == OPT_UNIT) {
        if (strcmp (optarg, "core") && strcmp (optarg, "node"))
            cmd_usage_error (SUB, "--unit: '%s' is not core or node", optarg);
        o->node_unit = !strcmp (optarg, "node");
    } else if (strcmp (optarg, "text") && strcmp (optarg, "json"))
        cmd_usage_error (SUB, "--format: '%s' is not text or json", optarg);
    else
        o->json = !strcmp (optarg, "json");
}

/* The queue policy label names (NULL: the configuration's first, else
 * fcfs), and the plugin that orders the queue. */
static void load_queue (struct sim *s, struct rp_config *cfg, const char *label)
{
    const struct rp_stack *st = rp_config_stack (cfg, RP_PLUGIN_QUEUE);
    char *name = NULL;
    json_t *config = NULL;
    rp_error_t error;

    if (label)
        parse_queue (label, &name, &config); /* checked by set_option */
    s->qp = rp_config_queue_policy (cfg, name, config, &error);
    free (name);
    json_decref (config);
    if (!s->qp)
        cmd_die (SUB, "--queue: %s", error.text);
    if (!rp_queue_has_pass (s->qp))
        cmd_die (SUB,
                 "--queue: queue policy '%s' only orders the queue: "
                 "give it in the queue stack, with a policy that "
                 "decides",
                 rp_plugin_instance (s->qp));
    s->queue = label ? label : rp_plugin_instance (s->qp);
    s->orderer = rp_queue_has_priority (s->qp) ? s->qp : NULL;
    for (size_t i = 0; !s->orderer && i < rp_stack_count (st); i++)
        if (rp_queue_has_priority (rp_stack_plugin (st, i)))
            s->orderer = rp_stack_plugin (st, i);
}

/* Jobs of a size of interchangeable units (SWF) are planned; jobs of
 * their own jobspecs are not: they are reserved through the matcher. */
static void plan (struct sim *s)
{
    rp_error_t error;

    for (size_t i = 0; i < s->njobs; i++)
        if (s->jobs[i].jobspec)
            return;
    if (!(s->planner = rp_planner_create (s->total, &error)))
        cmd_die (SUB, "%s", error.text);
}

static void sim_destroy (struct sim *s)
{
    for (size_t i = 0; i < s->njobs; i++) {
        json_decref (s->jobs[i].jobspec);
        drop_jobspec (&s->jobs[i]);
        free (s->jobs[i].where);
    }
    free (s->jobs);
    free (s->running);
    free (s->queue_v);
    js_cache_destroy (s->jsc);
    rp_planner_destroy (s->planner);
    rp_matcher_destroy (s->m);
}

/* The jobs as read, before a replay. */
static void reset (struct sim *s)
{
    for (size_t i = 0; i < s->njobs; i++) {
        struct job *j = &s->jobs[i];
        free (j->where);
        j->where = NULL;
        drop_jobspec (j);
        j->state = QUEUED;
        j->start = j->end = -1;
        j->units = 0;
        j->priority = 0;
        j->q = (struct rp_queue_job){
            .id = j->id,
            .size = j->size,
            .duration = j->duration > 0 ? j->duration : RP_PLANNER_FOREVER,
            .reserved = -1,
        };
    }
    s->arrived = s->nq = s->nrunning = 0;
    s->later = false;
    s->rejected = s->backfilled = s->passes = 0;
    s->in_use = 0;
    s->pass_us_sum = s->pass_us_max = 0;
}

/* One replay under queue policy queue and match policy policy (NULL:
 * the configuration's first, else first fit); its summary in u. */
static void run (struct sim *s, const char *queue, const char *policy,
                 struct rp_config *cfg, struct summary *u)
{
    struct rp_graph *g = cmd_resources_load (SUB, &s->o->res);

    s->total = count_units (g, s->o->node_unit);
    if (s->total == 0) {
        rp_graph_destroy (g);
        cmd_die (SUB, "the resources have no %s",
                 s->o->node_unit ? "node" : "core");
    }
    s->m = cmd_matcher_create (SUB, g, cfg, policy);
    /* The replay reads R_lite (units, nodelist) only: no scheduling key,
     * whose subgraph was most of an allocation's cost. */
    rp_matcher_set_scheduling (s->m, false);
    load_queue (s, cfg, queue);
    plan (s);
    reset (s);
    replay (s);
    summarize (s, u);
}

static void end_run (struct sim *s)
{
    rp_planner_destroy (s->planner);
    s->planner = NULL;
    rp_matcher_destroy (s->m);
    s->m = NULL;
    s->quiet = true;
}

/* P (NAME or NAME:N) names a queue policy: an instance of the queue
 * stack, or a plugin of kind queue on the plugin path. */
static bool is_queue_policy (struct rp_config *cfg, const char *p)
{
    const struct rp_stack *st = rp_config_stack (cfg, RP_PLUGIN_QUEUE);
    struct rp_plugin *inspected;
    char *name;
    json_t *config;
    bool yes = false;
    rp_error_t error;

    if (parse_queue (p, &name, &config) < 0)
        cmd_usage_error (SUB,
                         "--compare: '%s': the depth after ':' must "
                         "be an integer from 1 to %d",
                         p, DEPTH_MAX);
    json_decref (config);
    for (size_t i = 0; !yes && i < rp_stack_count (st); i++)
        yes = !strcmp (rp_plugin_instance (rp_stack_plugin (st, i)), name);
    if (!yes && (inspected = rp_config_plugin_inspect (cfg, name, &error))) {
        yes = rp_plugin_kind (inspected) == RP_PLUGIN_QUEUE;
        rp_plugin_destroy (inspected);
    }
    free (name);
    return yes;
}

/* --compare=P,...: each P a queue policy (with --policy's match policy)
 * or else a match policy (with --queue's queue policy). */
#define COMPARE_MAX 16
static size_t compare_list (const struct options *o, struct rp_config *cfg,
                            const char **queues, const char **policies)
{
    size_t n = 0;
    char *save = NULL;

    if (o->jobs_path)
        cmd_usage_error (SUB, "--jobs writes one run's jobs: not with "
                              "--compare");
    if (cmd_resources_stdin (&o->res))
        cmd_usage_error (SUB, "--compare reads the resources once a run: "
                              "not from stdin");
    if (!*o->compare || o->compare[strlen (o->compare) - 1] == ','
        || strstr (o->compare, ",,") || *o->compare == ',')
        cmd_usage_error (SUB, "--compare: an empty name in '%s'",
                         o->compare);
    for (char *p = strtok_r (o->compare, ",", &save); p;
         p = strtok_r (NULL, ",", &save)) {
        if (n == COMPARE_MAX)
            cmd_usage_error (SUB, "--compare: at most %d policies",
                             COMPARE_MAX);
        policies[n] = o->policy;
        queues[n] = p;
        if (!is_queue_policy (cfg, p)) {
            queues[n] = o->queue;
            policies[n] = p;
        }
        n++;
    }
    return n;
}

int cmd_simulate (int argc, char **argv)
{
    static const struct cmd_getopt getopts = { SUB, SHORTOPTS, opts, OPT_HELP,
                                               usage };
    struct options o = { 0 };
    struct sim s = { .o = &o };
    struct rp_config *cfg;
    struct summary u[COMPARE_MAX];
    const char *queues[COMPARE_MAX];
    const char *policies[COMPARE_MAX];
    size_t n = 1;
    int c;

    optind = 0;
    while ((c = cmd_resources_getopt (&getopts, &o.res, argc, argv)) != -1)
        set_option (&o, c);
    if (optind == argc)
        cmd_usage_error (SUB, "missing TRACE argument");
    if (optind + 1 < argc)
        cmd_usage_error (SUB, "unexpected argument '%s'", argv[optind + 1]);
    if (!strcmp (argv[optind], "-") && cmd_resources_stdin (&o.res))
        cmd_usage_error (SUB, "the trace and the resources cannot both be "
                              "stdin");
    s.trace = argv[optind];
    cfg = cmd_match_config (SUB, o.config);
    if (o.compare)
        n = compare_list (&o, cfg, queues, policies);
    else {
        queues[0] = o.queue;
        policies[0] = o.policy;
    }
    read_trace (&s, s.trace);
    if (!(s.running = malloc ((s.njobs + 1) * sizeof (*s.running)))
        || !(s.queue_v = malloc ((s.njobs + 1) * sizeof (*s.queue_v))))
        cmd_die (SUB, "out of memory");
    for (size_t i = 0; i < n; i++) {
        run (&s, queues[i], policies[i], cfg, &u[i]);
        if (o.jobs_path)
            write_jobs (&s, o.jobs_path);
        end_run (&s);
    }
    print_summaries (u, n, o.json);
    if (o.plot_path)
        write_plot (o.plot_path, u, n);
    for (size_t i = 0; i < n; i++)
        free (u[i].policy);
    sim_destroy (&s);
    rp_config_destroy (cfg);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return 0;
}
