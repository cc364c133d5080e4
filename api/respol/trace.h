/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Workload traces: the jobs a site ran, to replay them (respol simulate).
 *
 * Two formats, told apart by the first byte that is not white space or
 * a comment: '{' is respol's JSON lines, anything else the Standard
 * Workload Format.  Either may be compressed with gzip (read directly,
 * with zlib; a file that is not compressed is read as it is).
 *
 * Standard Workload Format (SWF 2.2, the Parallel Workloads Archive's):
 * one job a line, 18 fields separated by white space; a line starting
 * with ';' is a comment, and a header comment "; Key: value" is kept
 * (rp_trace_header); blank lines are skipped; -1 means unknown.  The
 * fields: 1 job id, 2 submit time (s from the log's start), 3 wait time,
 * 4 run time, 5 allocated processors, 6 average CPU time, 7 used memory,
 * 8 requested processors, 9 requested time, 10 requested memory, 11
 * status, 12 user, 13 group, 14 executable, 15 queue, 16 partition, 17
 * preceding job, 18 think time.  Fields 6, 7 and 10 may have a
 * fraction, the others are integers.
 *
 * The rules that make a replay comparable with other simulators, applied
 * here so that every caller gets the same jobs:
 *   - size: the requested processors (field 8) when positive, else the
 *     allocated processors (field 5);
 *   - duration (RFC 14 attributes.system.duration): the requested time
 *     (field 9) when positive, else the run time (field 4);
 *   - run: how long the job runs in a replay, min(run time, duration):
 *     a job is killed at its duration;
 *   - skipped (the job is returned, with skip saying why, for the caller
 *     to count): a negative run time ("unknown run time"), no size ("no
 *     size"), an unknown submit time ("unknown submit time").
 * A line that is not SWF is an error that names it: "trace.swf:12: 17
 * fields, SWF has 18", "trace.swf:3: field 4 (run time): not an integer:
 * 'x1'".
 *
 * respol's JSON lines: one JSON object a line, {"id": N (optional; the
 * line number when absent), "submit": S, "runtime": R, "jobspec": {...}}
 * with S and R whole seconds >= 0 and the jobspec RFC 14 (as JSON; read
 * it with rp_jobspec_from_json).  Its duration is the jobspec's
 * attributes.system.duration, rounded up to a whole second (0: none);
 * size is 0 (the jobspec says what the job needs); run is min(runtime,
 * duration) when there is a duration.
 *
 * Bounds: lines of at most 16 MiB; times and sizes at most 2^40 (35,000
 * years of seconds, a trillion processors); ids 1..2^63-1.
 *
 * Ownership: rp_trace_open returns a reader the caller must close; what
 * rp_trace_next and rp_trace_header return is borrowed: the job until the
 * next call, the header until the reader is closed.
 */
#ifndef RESPOL_TRACE_H
#define RESPOL_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <respol/error.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rp_trace_format {
    RP_TRACE_SWF = 1,
    RP_TRACE_JSONL = 2,
};

/* One job of the trace as read.  Times in seconds; -1 for unknown. */
struct rp_trace_job {
    uint64_t id;
    int64_t submit;   /* from the trace's start */
    int64_t wait;     /* SWF field 3: how long it waited where it ran */
    int64_t runtime;  /* as it ran (SWF field 4) */
    int64_t duration; /* RFC 14 duration: requested, else run time; 0 none */
    int64_t run;      /* how long it runs in a replay */
    uint64_t size;    /* processors (SWF); 0 for JSON lines */
    int64_t requested_procs, allocated_procs, requested_time;
    int64_t status, user, group, queue, partition;
    const char *skip;      /* NULL, or why the job cannot be replayed */
    const json_t *jobspec; /* JSON lines: the job's jobspec; SWF: NULL */
    size_t line;           /* its line in the file */
};

struct rp_trace;

/* Open path ("-": stdin) and read up to its first job (the header, and
 * the format).  NULL with errno and error: "FILE: No such file or
 * directory", "FILE: not a valid gzip file (...)", ENOMEM. */
struct rp_trace *rp_trace_open (const char *path, rp_error_t *error);
/* Accepts NULL, keeps errno. */
void rp_trace_close (struct rp_trace *t);

/* enum rp_trace_format of the trace (RP_TRACE_SWF for one without a
 * job). */
int rp_trace_format (const struct rp_trace *t);

/* The SWF header's "; Key: value" comments, as {"Key": "value", ...};
 * a key given several times (Queue, Note) has an array of its values in
 * order.  Empty for JSON lines. */
const json_t *rp_trace_header (const struct rp_trace *t);

/* The next job, or NULL: at the end with errno 0, or on an error with
 * errno (EINVAL for a line that is not the format, EIO, ENOMEM) and
 * error, "FILE:LINE: what". */
const struct rp_trace_job *rp_trace_next (struct rp_trace *t,
                                          rp_error_t *error);

#ifdef __cplusplus
}
#endif
#endif
