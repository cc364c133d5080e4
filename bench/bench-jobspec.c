/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bench-jobspec: time reading a jobspec (parse, validate, derive the
 * facts, destroy) and print a Markdown table.
 *
 *   bench/bench-jobspec [--quick]
 *
 * Rows: a typical V1 jobspec as `flux run` writes it (YAML and JSON), a
 * typical canonical one (range count, per_resource, constraints,
 * dependencies), and three generated ~1 MiB documents: a large
 * environment (YAML and JSON) and a slot with many resource vertices.
 * Each row repeats the read, doubling the batch until the total time is at
 * least MIN_SECONDS, and reports documents per second and the input rate.
 * Time is the process's CPU time (CLOCK_PROCESS_CPUTIME_ID), so a busy
 * machine does not distort the rates.  Peak memory is measured once per
 * row in a fresh process (this program exec'd with --rss N): it builds the
 * input, returns free heap to the system (malloc_trim), and reports the
 * growth of its ru_maxrss across one read.  A forked child would reuse the
 * parent's freed heap and report almost nothing.
 *
 * Every document is checked (valid, with the expected number of slots)
 * before it is timed, so the table never reports the speed of a wrong
 * answer.  --quick runs each row once: a smoke test, not a measurement.
 * The program exits 1 only if a read fails.
 */
#include <getopt.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "respol/jobspec.h"

#define BENCH_NAME "bench-jobspec"
#include "bench.h"

#define MIN_SECONDS 0.5
#define BIG_BYTES (1 << 20)

static bool quick;

/* --- inputs --------------------------------------------------------------- */

static const char typical_v1_yaml[] =
    "version: 1\n"
    "resources:\n"
    "  - type: node\n"
    "    count: 2\n"
    "    with:\n"
    "      - type: slot\n"
    "        count: 2\n"
    "        label: task\n"
    "        with:\n"
    "          - type: core\n"
    "            count: 2\n"
    "          - type: gpu\n"
    "            count: 1\n"
    "tasks:\n"
    "  - command: [app, --input, data.txt]\n"
    "    slot: task\n"
    "    count:\n"
    "      per_slot: 1\n"
    "attributes:\n"
    "  system:\n"
    "    duration: 3600.0\n"
    "    cwd: /home/user/work\n"
    "    environment:\n"
    "      HOME: /home/user\n"
    "      PATH: /usr/local/bin:/usr/bin:/bin\n"
    "      OMP_NUM_THREADS: \"2\"\n"
    "    shell:\n"
    "      options:\n"
    "        rlimit: {core: 0}\n"
    "    job:\n"
    "      name: app\n";

/* typical_v1_yaml as flux-core writes it in JSON (one line, no blanks). */
static const char typical_v1_json[] =
    "{\"version\":1,\"resources\":[{\"type\":\"node\",\"count\":2,"
    "\"with\":[{\"type\":\"slot\",\"count\":2,\"label\":\"task\","
    "\"with\":[{\"type\":\"core\",\"count\":2},{\"type\":\"gpu\","
    "\"count\":1}]}]}],\"tasks\":[{\"command\":[\"app\",\"--input\","
    "\"data.txt\"],\"slot\":\"task\",\"count\":{\"per_slot\":1}}],"
    "\"attributes\":{\"system\":{\"duration\":3600.0,\"cwd\":"
    "\"/home/user/work\",\"environment\":{\"HOME\":\"/home/user\","
    "\"PATH\":\"/usr/local/bin:/usr/bin:/bin\",\"OMP_NUM_THREADS\":\"2\"},"
    "\"shell\":{\"options\":{\"rlimit\":{\"core\":0}}},\"job\":{"
    "\"name\":\"app\"}}}}";

static const char typical_canonical_yaml[] =
    "version: 1\n"
    "resources:\n"
    "  - type: cluster\n"
    "    count: 1\n"
    "    with:\n"
    "      - type: slot\n"
    "        count: {min: 2, max: 16, operator: \"*\", operand: 2}\n"
    "        label: worker\n"
    "        with:\n"
    "          - type: node\n"
    "            count: 1\n"
    "            exclusive: false\n"
    "            with:\n"
    "              - {type: core, count: 8}\n"
    "              - {type: memory, count: 16, unit: GiB}\n"
    "tasks:\n"
    "  - command: [worker]\n"
    "    slot: worker\n"
    "    count: {per_resource: {type: core, count: 1}}\n"
    "attributes:\n"
    "  system:\n"
    "    duration: 600\n"
    "    queue: batch\n"
    "    constraints:\n"
    "      and: [{properties: [ssd]}, {not: [{hostlist: [\"n[0-3]\"]}]}]\n"
    "    dependencies:\n"
    "      - {scheme: afterok, value: f2Fp6wNBq}\n"
    "      - {scheme: string, value: stage1, type: in, scope: user}\n";

struct buf {
    char *s;
    size_t len;
    size_t size;
};

static void append (struct buf *b, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void append (struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        va_start (ap, fmt);
        n = vsnprintf (b->s + b->len, b->size - b->len, fmt, ap);
        va_end (ap);
        if (n < 0)
            die ("vsnprintf failed");
        if ((size_t)n < b->size - b->len)
            break;
        b->size = (b->size + n + 1) * 2;
        if (!(b->s = realloc (b->s, b->size)))
            die ("out of memory");
    }
    b->len += n;
}

/* The typical V1 document with an environment of ~BIG_BYTES. */
static char *big_environment (bool json)
{
    struct buf b = { NULL, 0, 0 };
    const char *pad = "/opt/site/software/x86_64/lib:/usr/lib64:/usr/lib";

    append (&b, "%s",
            json ? "{\"version\": 1, \"resources\": [{\"type\": "
                   "\"slot\", \"count\": 4, \"label\": \"task\", "
                   "\"with\": [{\"type\": \"core\", \"count\": "
                   "1}]}], \"tasks\": [{\"command\": [\"app\"], "
                   "\"slot\": \"task\", \"count\": {\"per_slot\": "
                   "1}}], \"attributes\": {\"system\": "
                   "{\"duration\": 0, \"environment\": {"
                 : "version: 1\nresources: [{type: slot, count: "
                   "4, label: task, with: [{type: core, count: "
                   "1}]}]\ntasks: [{command: [app], slot: task, "
                   "count: {per_slot: 1}}]\nattributes:\n  "
                   "system:\n    duration: 0\n    environment:\n");
    for (int i = 0; b.len < BIG_BYTES - 128; i++) {
        if (json)
            append (&b, "%s\"VAR_%06d\": \"%s\"", i ? ", " : "", i, pad);
        else
            append (&b, "      VAR_%06d: \"%s\"\n", i, pad);
    }
    if (json)
        append (&b, "}}}}\n");
    return b.s;
}

/* A slot of ~BIG_BYTES of vertices: node > slot > many cores/gpus/memory. */
static char *big_resources (void)
{
    struct buf b = { NULL, 0, 0 };

    append (&b, "version: 1\nresources:\n  - type: node\n    count: 1\n"
                "    with:\n      - type: slot\n        count: 1\n"
                "        label: task\n        with:\n");
    for (int i = 0; b.len < BIG_BYTES - 512; i++)
        append (&b, "          - {type: %s, count: %d%s}\n",
                i % 3 == 0   ? "core"
                : i % 3 == 1 ? "gpu"
                             : "memory",
                1 + i % 7, i % 3 == 2 ? ", unit: MiB" : "");
    append (&b, "tasks: [{command: [app], slot: task, count: {per_resource: "
                "{type: core, count: 1}}}]\nattributes: {system: {duration: "
                "0}}\n");
    return b.s;
}

/* --- measurement ---------------------------------------------------------- */

struct input {
    const char *name;
    const char *doc;
    enum rp_jobspec_profile profile;
    uint64_t nslots; /* expected, checked before timing */
};

static void read_once (const struct input *in)
{
    struct rp_jobspec *js = rp_jobspec_load (in->doc, strlen (in->doc),
                                             in->name, in->profile, NULL);
    if (!js)
        die ("%s: not a valid jobspec", in->name);
    if (rp_jobspec_facts (js)->nslots != in->nslots)
        die ("%s: %llu slots, expected %llu", in->name,
             (unsigned long long)rp_jobspec_facts (js)->nslots,
             (unsigned long long)in->nslots);
    rp_jobspec_destroy (js);
}

/* Seconds per read, repeating until MIN_SECONDS have passed. */
static double time_per_read (const struct input *in, long *reads)
{
    long batch = 1, total = 0;
    double start = now (), elapsed;

    for (;;) {
        for (long i = 0; i < batch; i++)
            read_once (in);
        total += batch;
        elapsed = now () - start;
        if (quick || elapsed >= MIN_SECONDS)
            break;
        batch *= 2;
    }
    *reads = total;
    return elapsed / total;
}

/* The inputs, built on demand by index (each process builds its own). */
#define NINPUTS 6

static struct input make_input (int i)
{
    switch (i) {
    case 0:
        return (struct input){ "typical V1 (YAML)", typical_v1_yaml,
                               RP_JOBSPEC_V1, 4 };
    case 1:
        return (struct input){ "typical V1 (JSON)", typical_v1_json,
                               RP_JOBSPEC_V1, 4 };
    case 2:
        return (struct input){ "typical canonical (YAML)",
                               typical_canonical_yaml, RP_JOBSPEC_CANONICAL,
                               2 };
    case 3:
        return (struct input){ "1 MiB environment (YAML)",
                               big_environment (false), RP_JOBSPEC_V1, 4 };
    case 4:
        return (struct input){ "1 MiB environment (JSON)",
                               big_environment (true), RP_JOBSPEC_V1, 4 };
    default:
        return (struct input){ "1 MiB of resource vertices (YAML)",
                               big_resources (), RP_JOBSPEC_CANONICAL, 1 };
    }
}

static void free_input (int i, struct input *in)
{
    if (i >= 3)
        free ((char *)in->doc);
}

/* In a fresh process: print the growth of the peak RSS (KiB) over one
 * read of input i. */
static int rss_child (int i)
{
    struct input in = make_input (i);
    struct rusage before, after;

    malloc_trim (0);
    getrusage (RUSAGE_SELF, &before);
    read_once (&in);
    getrusage (RUSAGE_SELF, &after);
    printf ("%ld\n", after.ru_maxrss - before.ru_maxrss);
    free_input (i, &in);
    return 0;
}

/* Run this program with --rss i and read its answer; -1 if that fails. */
static long peak_rss_kib (int i)
{
    char cmd[64];
    FILE *p;
    long kib = -1;

    snprintf (cmd, sizeof (cmd), "/proc/%d/exe --rss %d", (int)getpid (), i);
    if (!(p = popen (cmd, "r")))
        return -1;
    if (fscanf (p, "%ld", &kib) != 1)
        kib = -1;
    if (pclose (p) != 0)
        kib = -1;
    return kib;
}

static void row (int i)
{
    struct input in = make_input (i);
    size_t len = strlen (in.doc);
    long reads;
    double sec;

    read_once (&in);
    sec = time_per_read (&in, &reads);
    printf ("| %-34s | %9zu | %10.0f | %10.1f | %7.1f | %8ld |\n", in.name, len,
            1 / sec, sec * 1e6, len / sec / (1 << 20), peak_rss_kib (i));
    fflush (stdout);
    free_input (i, &in);
}

int main (int argc, char **argv)
{
    static const struct option opts[] = {
        { "quick", no_argument, NULL, 'q' },
        { "rss", required_argument, NULL, 'r' },
        { NULL, 0, NULL, 0 },
    };
    int c;

    while ((c = getopt_long (argc, argv, "qr:", opts, NULL)) != -1) {
        if (c == 'r')
            return rss_child (atoi (optarg));
        if (c != 'q')
            die ("usage: bench-jobspec [--quick]");
        quick = true;
    }
    printf ("| %-34s | %9s | %10s | %10s | %7s | %8s |\n", "jobspec", "bytes",
            "docs/s", "us/doc", "MiB/s", "peak KiB");
    printf ("|%s|%s|%s|%s|%s|%s|\n", "------------------------------------",
            "----------:", "-----------:", "-----------:", "--------:",
            "---------:");
    for (int i = 0; i < NINPUTS; i++)
        row (i);
    return 0;
}
