/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of the workload trace reader (api/respol/trace.h): the SWF
 * rules a replay depends on (size, duration, run, skipped jobs), header
 * comments, -1 for unknown, jobs with zero or negative run time, hostile
 * lines with their line numbers, gzip (whole, damaged), and respol's JSON
 * lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "respol/trace.h"
#include "t/tap/tap.h"

static char dir[] = "/tmp/respol-trace-XXXXXX";

static const char *write_file (const char *name, const char *text, size_t len)
{
    static char path[256];
    FILE *f;

    snprintf (path, sizeof (path), "%s/%s", dir, name);
    if (!(f = fopen (path, "wb")) || fwrite (text, 1, len, f) != len
        || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", path);
    return path;
}

static const char *write_text (const char *name, const char *text)
{
    return write_file (name, text, strlen (text));
}

static const char *write_gz (const char *name, const char *text)
{
    static char path[256];
    gzFile gz;

    snprintf (path, sizeof (path), "%s/%s", dir, name);
    if (!(gz = gzopen (path, "wb"))
        || gzwrite (gz, text, (unsigned)strlen (text)) != (int)strlen (text)
        || gzclose (gz) != Z_OK)
        BAIL_OUT ("cannot write %s", path);
    return path;
}

/* One SWF line of fields 1-18 from the values given for some of them
 * (the others -1). */
static const char *swf (const char *id, const char *submit, const char *runtime,
                        const char *alloc, const char *req, const char *reqtime)
{
    static char line[512];

    snprintf (line, sizeof (line),
              "%s %s 0 %s %s -1 -1 %s %s -1 1 3 2 -1 7 1 -1 -1\n", id, submit,
              runtime, alloc, req, reqtime);
    return line;
}

static void test_rules (void)
{
    static const struct {
        const char *what;
        const char *submit, *runtime, *alloc, *req, *reqtime;
        uint64_t size;
        int64_t duration, run;
        const char *skip;
    } rows[] = {
        { "requested processors and time", "0", "100", "4", "8", "200", 8, 200,
          100, NULL },
        { "no requested processors: the allocated", "0", "100", "4", "-1",
          "200", 4, 200, 100, NULL },
        { "requested processors 0: the allocated", "0", "100", "4", "0", "200",
          4, 200, 100, NULL },
        { "no requested time: the run time", "5", "100", "4", "-1", "-1", 4,
          100, 100, NULL },
        { "run past the requested time: killed at it", "5", "300", "4", "4",
          "200", 4, 200, 200, NULL },
        { "run time 0", "5", "0", "4", "4", "200", 4, 200, 0, NULL },
        { "run time 0, no requested time", "5", "0", "4", "4", "0", 4, 0, 0,
          NULL },
        { "unknown run time: skipped", "5", "-1", "4", "4", "200", 4, 200, -1,
          "unknown run time" },
        { "no size: skipped", "5", "10", "-1", "-1", "200", 0, 200, 10,
          "no size" },
        { "size 0: skipped", "5", "10", "0", "0", "200", 0, 200, 10,
          "no size" },
        { "unknown submit time: skipped", "-1", "10", "4", "4", "200", 4, 200,
          10, "unknown submit time" },
    };

    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++) {
        const char *path = write_text (
            "rule.swf", swf ("7", rows[i].submit, rows[i].runtime,
                             rows[i].alloc, rows[i].req, rows[i].reqtime));
        rp_error_t error;
        struct rp_trace *t = rp_trace_open (path, &error);
        const struct rp_trace_job *j = t ? rp_trace_next (t, &error) : NULL;
        if (!j) {
            fail ("%s: %s", rows[i].what, error.text);
            rp_trace_close (t);
            continue;
        }
        ok (j->size == rows[i].size && j->duration == rows[i].duration
                && j->run == rows[i].run && j->id == 7 && j->line == 1,
            "%s: size %" PRIu64 ", duration %" PRId64 ", run %" PRId64,
            rows[i].what, rows[i].size, rows[i].duration, rows[i].run);
        is (j->skip, rows[i].skip, "%s: skip", rows[i].what);
        rp_trace_close (t);
    }
}

static void test_fields (void)
{
    const char *path = write_text (
        "fields.swf", "; Version: 2.2\n"
                      "12 345 67 890 16 552.21 1024.5 32 3600 2048.25 5 17 "
                      "4 99 2 3 11 60\n");
    struct rp_trace *t = rp_trace_open (path, NULL);
    const struct rp_trace_job *j = rp_trace_next (t, NULL);

    ok (j && j->id == 12 && j->submit == 345 && j->wait == 67
            && j->runtime == 890 && j->allocated_procs == 16
            && j->requested_procs == 32 && j->requested_time == 3600
            && j->status == 5 && j->user == 17 && j->group == 4 && j->queue == 2
            && j->partition == 3 && !j->jobspec && j->line == 2,
        "every field read; fractions in fields 6, 7 and 10");
    ok (rp_trace_format (t) == RP_TRACE_SWF, "the format is SWF");
    errno = 5;
    ok (!rp_trace_next (t, NULL) && errno == 0, "then the end, errno 0");
    ok (!rp_trace_next (t, NULL) && errno == 0, "and the end again");
    rp_trace_close (t);
}

static void test_header (void)
{
    const char *path =
        write_text ("header.swf", "; Version: 2.2\n"
                                  ";Computer:   Linux cluster (Seth)  \n"
                                  "; Queue:  1 [fque:1] \n"
                                  "; Queue:  2 other\n"
                                  ";\n"
                                  "; not a key value\n"
                                  "\n"
                                  "   \t\n"
                                  "; Note: x\n");
    struct rp_trace *t = rp_trace_open (path, NULL);
    char *h =
        t ? json_dumps (rp_trace_header (t), JSON_SORT_KEYS | JSON_COMPACT)
          : NULL;

    is (h,
        "{\"Computer\":\"Linux cluster (Seth)\",\"Note\":\"x\",\"Queue\":[\"1 "
        "[fque:1]\",\"2 other\"],\"Version\":\"2.2\"}",
        "header comments kept; a key given twice is an array");
    ok (t && !rp_trace_next (t, NULL) && errno == 0,
        "a trace of comments and blank lines has no job");
    free (h);
    rp_trace_close (t);
}

static void test_errors (void)
{
    static const struct {
        const char *text, *msg;
    } rows[] = {
        { "1 0 10\n", "bad.swf:1: 3 fields, SWF has 18" },
        { "; c\n1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1 9\n",
          "bad.swf:2: more than 18 fields, SWF has 18" },
        { "1 0 0 x1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
          "bad.swf:1: field 4 (run time): not an integer: 'x1'" },
        { "1 0 0 12.5 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
          "bad.swf:1: field 4 (run time): not an integer: '12.5'" },
        { "1 0 0 0x10 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
          "bad.swf:1: field 4 (run time): not an integer: '0x10'" },
        { "1 0 0 1 1 1e3 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
          "bad.swf:1: field 6 (average CPU time): not an integer: '1e3'" },
        { "1 0 0 1 1 1.2.3 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
          "bad.swf:1: field 6 (average CPU time): not a number: '1.2.3'" },
        { "1 -5 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
          "bad.swf:1: field 2 (submit time): negative (-1 is unknown): '-5'" },
        { "0 5 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
          "bad.swf:1: field 1 (job id): must be >= 1: '0'" },
        { "1 5 0 1 1 -1 -1 99999999999999999999 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
          "bad.swf:1: field 8 (requested processors): too large (at most "
          "2^40): '99999999999999999999'" },
        { "1 5 0 1 1 -1 -1 1099511627777 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
          "bad.swf:1: field 8 (requested processors): too large (at most "
          "2^40): '1099511627777'" },
        { "1 5 0 1 1 -1 -1 -99999999999999999999 1 -1 1 1 1 -1 -1 -1 -1 -1\n",
          "bad.swf:1: field 8 (requested processors): negative (-1 is "
          "unknown): '-99999999999999999999'" },
    };
    rp_error_t error;

    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++) {
        const char *path = write_text ("bad.swf", rows[i].text);
        struct rp_trace *t = rp_trace_open (path, &error);
        const char *name = strrchr (path, '/') + 1;
        char *rel;
        errno = 0;
        ok (t && !rp_trace_next (t, &error) && errno == EINVAL,
            "hostile line %zu is EINVAL", i);
        rel = strstr (error.text, name);
        is (rel, rows[i].msg, "message");
        rp_trace_close (t);
    }
}

static void test_hostile_bytes (void)
{
    static const char nul[] = "1 0 0 1 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n"
                              "2 0 0 1\0 1 -1 -1 1 1 -1 1 1 1 -1 -1 -1 -1 -1\n";
    const char *path = write_file ("nul.swf", nul, sizeof (nul) - 1);
    struct rp_trace *t = rp_trace_open (path, NULL);
    rp_error_t error;
    char *big;
    size_t n = ((size_t)16 << 20) + 10;

    ok (t && rp_trace_next (t, &error), "the line before is read");
    ok (!rp_trace_next (t, &error) && errno == EINVAL,
        "a NUL byte in a line is EINVAL");
    like (error.text, "nul.swf:2: a NUL byte", "message");
    rp_trace_close (t);

    if (!(big = malloc (n)))
        BAIL_OUT ("out of memory");
    memset (big, '1', n);
    path = write_file ("long.swf", big, n);
    free (big);
    errno = 0;
    ok (!rp_trace_open (path, &error) && errno == EINVAL,
        "a line of more than 16 MiB is EINVAL");
    like (error.text, "long.swf:1: longer than 16777216 bytes", "message");

    errno = 0;
    ok (!rp_trace_open ("/nonexistent/t.swf", &error) && errno == ENOENT,
        "a missing file is ENOENT");
    is (error.text, "/nonexistent/t.swf: No such file or directory", "message");
}

static void test_gzip (void)
{
    char text[4096] = "; Version: 2.2\n; MaxProcs: 240\n";
    const char *path;
    struct rp_trace *t;
    const struct rp_trace_job *j;
    size_t n = 0;
    rp_error_t error;
    FILE *f;
    char buf[8192];
    size_t len;

    for (int i = 1; i <= 20; i++)
        strcat (text, swf (i % 2 ? "3" : "4", "10", "100", "4", "8", "200"));
    path = write_gz ("t.swf.gz", text);
    t = rp_trace_open (path, &error);
    ok (t && rp_trace_format (t) == RP_TRACE_SWF, "gzip: opened as SWF");
    while (t && (j = rp_trace_next (t, &error)))
        n += j->size == 8 && j->line == n + 3;
    ok (n == 20 && errno == 0, "gzip: every job read, in order");
    is (json_string_value (json_object_get (rp_trace_header (t), "MaxProcs")),
        "240", "gzip: the header");
    rp_trace_close (t);

    /* Cut the compressed file in the middle: a damaged stream. */
    if (!(f = fopen (path, "rb"))
        || (len = fread (buf, 1, sizeof (buf), f)) < 40)
        BAIL_OUT ("cannot read %s", path);
    fclose (f);
    buf[len / 2] ^= 0x55;
    path = write_file ("bad.swf.gz", buf, len);
    errno = 0;
    t = rp_trace_open (path, &error);
    while (t && (j = rp_trace_next (t, &error)))
        ;
    ok (errno == EINVAL, "gzip: reading a damaged stream fails with EINVAL");
    like (error.text, ": not a valid gzip file (", "message");
    ok (strstr (error.text, "bad.swf.gz") == strrchr (error.text, '/') + 1
            && !strstr (error.text, "(bad.swf.gz") && !strstr (error.text, "<fd:"),
        "zlib's words without the path again: %s", strrchr (error.text, '/'));
    rp_trace_close (t);
}

static void test_jsonl (void)
{
    const char *path = write_text (
        "t.jsonl",
        "; a comment\n"
        "{\"submit\": 5, \"runtime\": 30, \"jobspec\": {\"version\": 1, "
        "\"attributes\": {\"system\": {\"duration\": 60.5}}}}\n"
        "\n"
        "{\"id\": 9, \"submit\": 6, \"runtime\": 100, \"jobspec\": "
        "{\"attributes\""
        ": {\"system\": {\"duration\": 60}}}}\n"
        "{\"submit\": 7, \"runtime\": 100, \"jobspec\": {}}\n");
    static const struct {
        const char *text, *msg;
    } bad[] = {
        { "{\"submit\": 5, \"runtime\": 1, \"jobspec\": {}, \"x\": 1}\n",
          "b.jsonl:1: x: unknown key" },
        { "{\"runtime\": 1, \"jobspec\": {}}\n", "b.jsonl:1: submit: missing" },
        { "{\"submit\": -1, \"runtime\": 1, \"jobspec\": {}}\n",
          "b.jsonl:1: submit: must be whole seconds, 0..2^40" },
        { "{\"submit\": 1, \"runtime\": 1.5, \"jobspec\": {}}\n",
          "b.jsonl:1: runtime: must be whole seconds, 0..2^40" },
        { "{\"submit\": 1, \"runtime\": 1}\n", "b.jsonl:1: jobspec: missing" },
        { "{\"submit\": 1, \"runtime\": 1, \"jobspec\": 3}\n",
          "b.jsonl:1: jobspec: must be an object" },
        { "{\"id\": 0, \"submit\": 1, \"runtime\": 1, \"jobspec\": {}}\n",
          "b.jsonl:1: id: must be an integer >= 1" },
        { "{\"submit\": 1, \"runtime\": 1, \"jobspec\": {\"attributes\": "
          "{\"system\": {\"duration\": \"1h\"}}}}\n",
          "b.jsonl:1: jobspec: attributes.system.duration: must be a number "
          "of seconds, 0..2^40" },
        { "{\"submit\": 1, \"submit\": 1}\n",
          "b.jsonl:1:22: duplicate object key near '\"submit\"'" },
        { "{\"submit\": 1, \"runtime\": 1, \"jobspec\": {}}\n[1]\n",
          "b.jsonl:2: not a JSON object" },
        { "{\"submit\": 1, \"runtime\": 1, \"jobspec\": {}}\n{\"submit\n",
          "b.jsonl:2:8: premature end of input near '\"submit'" },
    };
    struct rp_trace *t = rp_trace_open (path, NULL);
    const struct rp_trace_job *j;
    rp_error_t error;

    ok (t && rp_trace_format (t) == RP_TRACE_JSONL, "JSON lines: the format");
    ok (json_object_size (rp_trace_header (t)) == 0, "JSON lines: no header");
    j = rp_trace_next (t, NULL);
    ok (j && j->id == 2 && j->submit == 5 && j->runtime == 30
            && j->duration == 61 && j->run == 30 && j->size == 0
            && json_is_object (j->jobspec) && !j->skip && j->wait == -1,
        "a job: the line number as id, the duration rounded up");
    j = rp_trace_next (t, NULL);
    ok (j && j->id == 9 && j->duration == 60 && j->run == 60 && j->line == 4,
        "a job with an id, killed at its duration");
    j = rp_trace_next (t, NULL);
    ok (j && j->duration == 0 && j->run == 100,
        "a job without duration runs its run time");
    ok (!rp_trace_next (t, NULL) && errno == 0, "the end");
    rp_trace_close (t);

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        const char *p = write_text ("b.jsonl", bad[i].text);
        t = rp_trace_open (p, &error);
        while (t && rp_trace_next (t, &error))
            ;
        ok (t && errno == EINVAL, "bad JSON line %zu: EINVAL", i);
        is (strstr (error.text, "b.jsonl"), bad[i].msg, "message");
        rp_trace_close (t);
    }
}

static void test_sample (void)
{
    char path[4096];
    const char *src = getenv ("RESPOL_SRCDIR");
    struct rp_trace *t;
    const struct rp_trace_job *j;
    size_t n = 0, skipped = 0, zero = 0;
    uint64_t last = 0;
    bool ordered = true;
    rp_error_t error;

    snprintf (path, sizeof (path), "%s/t/data/traces/HPC2N-2002-sample.swf",
              src ? src : ".");
    if (!(t = rp_trace_open (path, &error))) {
        fail ("the HPC2N sample: %s", error.text);
        return;
    }
    while ((j = rp_trace_next (t, &error))) {
        n++;
        skipped += j->skip != NULL;
        zero += j->run == 0 && !j->skip;
        ordered = ordered && j->id > last;
        last = j->id;
    }
    ok (errno == 0, "the HPC2N sample reads to its end");
    cmp_ok (n, ==, 3170, "3170 jobs");
    cmp_ok (skipped, ==, 25, "25 of them with an unknown run time");
    cmp_ok (zero, ==, 0, "none runs 0 s");
    ok (ordered, "in id order");
    is (json_string_value (json_object_get (rp_trace_header (t), "MaxProcs")),
        "240", "its header: 240 processors");
    rp_trace_close (t);
}

int main (void)
{
    char cmd[300];

    plan (NO_PLAN);
    if (!mkdtemp (dir))
        BAIL_OUT ("mkdtemp");
    test_rules ();
    test_fields ();
    test_header ();
    test_errors ();
    test_hostile_bytes ();
    test_gzip ();
    test_jsonl ();
    test_sample ();
    snprintf (cmd, sizeof (cmd), "rm -rf %s", dir);
    if (system (cmd) != 0)
        diag ("cannot remove %s", dir);
    return done_testing ();
}
