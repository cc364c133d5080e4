/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Workload traces (api/respol/trace.h): the Standard Workload Format of
 * the Parallel Workloads Archive, and respol's JSON lines, plain or
 * gzip-compressed.
 *
 * Decisions a reader would otherwise rediscover:
 * - zlib's gzread reads a file that is not compressed as it is, so one
 *   path reads both; a damaged gzip stream is an error with zlib's
 *   words, at the line where it was found.
 * - Lines are read through one buffer that grows up to 16 MiB, so a
 *   JSON line may hold a large jobspec and a file without newlines
 *   cannot take more than that.
 * - Numbers are read with strtoll/strtod over the whole field: "12x",
 *   "0x10", "1e3", "inf" and an empty field are errors, as are integer
 *   fields with a fraction.  The archive writes fields 6 (average CPU
 *   time), 7 (used memory) and 10 (requested memory) with fractions
 *   ("552.21"); the others are integers in the format.
 * - A job with an unknown (-1) or negative run time, no size, or an
 *   unknown submit time is returned with `skip` set, not dropped: the
 *   replay counts it.  Other negative values than -1 where a value
 *   cannot be negative (a submit time of -5) are errors: such a line is
 *   not SWF.
 * - A duration of a JSON line's jobspec is rounded up to whole seconds:
 *   a job asked for 1.5 s is not killed at 1 s.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "respol/trace.h"

#define LINE_MAX_BYTES ((size_t)16 << 20)
#define VALUE_MAX ((int64_t)1 << 40)
#define NFIELDS 18

struct rp_trace {
    char *name;
    gzFile gz;
    char *buf; /* buf[0..len) read and not yet consumed from pos */
    size_t cap, len, pos;
    bool eof;
    size_t line; /* of the line last returned */
    int format;
    json_t *header;
    json_t *jobspec; /* the current JSON line's object */
    struct rp_trace_job job;
    char *pending; /* the first job's line, read by open, cut in buf */
};

static const char *const field_names[NFIELDS + 1] = {
    NULL,
    "job id",
    "submit time",
    "wait time",
    "run time",
    "allocated processors",
    "average CPU time",
    "used memory",
    "requested processors",
    "requested time",
    "requested memory",
    "status",
    "user",
    "group",
    "executable",
    "queue",
    "partition",
    "preceding job",
    "think time",
};

/* --- lines ---------------------------------------------------------------- */

/* zlib's message without the "PATH: " or "<fd:N>: " it puts first. */
static const char *gz_message (const char *msg)
{
    const char *s = strstr (msg, ": ");

    return s ? s + 2 : msg;
}

static int fill (struct rp_trace *t, rp_error_t *error)
{
    int n, errnum;
    const char *msg;

    if (t->pos > 0) {
        memmove (t->buf, t->buf + t->pos, t->len - t->pos);
        t->len -= t->pos;
        t->pos = 0;
    }
    if (t->len == t->cap) {
        size_t cap = t->cap * 2;
        char *b;
        if (t->cap >= LINE_MAX_BYTES)
            return rp_error_set (error, EINVAL, "%s:%zu: longer than %zu bytes",
                                 t->name, t->line + 1, LINE_MAX_BYTES);
        if (!(b = realloc (t->buf, cap + 1)))
            return rp_error_set (error, ENOMEM, "%s: out of memory", t->name);
        t->buf = b;
        t->cap = cap;
    }
    n = gzread (t->gz, t->buf + t->len, (unsigned)(t->cap - t->len));
    if (n < 0) {
        msg = gz_message (gzerror (t->gz, &errnum));
        if (errnum == Z_ERRNO)
            return rp_error_set (error, EIO, "%s: %s", t->name,
                                 strerror (errno));
        return rp_error_set (error, EINVAL,
                             "%s:%zu: not a valid gzip file (%s)", t->name,
                             t->line + 1, msg);
    }
    if (n == 0)
        t->eof = true;
    t->len += (size_t)n;
    return 0;
}

/* The next line (NUL-terminated in place, without its newline) in
 * *line; 0 at the end of the file. */
static int next_line (struct rp_trace *t, char **line, rp_error_t *error)
{
    for (;;) {
        char *nl = memchr (t->buf + t->pos, '\n', t->len - t->pos);
        if (nl || (t->eof && t->pos < t->len)) {
            char *start = t->buf + t->pos;
            if (!nl)
                nl = t->buf + t->len;
            *nl = '\0';
            t->pos = (size_t)(nl - t->buf) + (nl < t->buf + t->len);
            if (t->pos > t->len)
                t->pos = t->len;
            t->line++;
            if (strlen (start) != (size_t)(nl - start))
                return rp_error_set (error, EINVAL, "%s:%zu: a NUL byte",
                                     t->name, t->line);
            *line = start;
            return 1;
        }
        if (t->eof)
            return 0;
        if (fill (t, error) < 0)
            return -1;
    }
}

static bool blank (const char *s)
{
    return s[strspn (s, " \t\r\f\v")] == '\0';
}

/* --- the SWF header --------------------------------------------------------
 */

/* Keep "; Key: value" (Key of letters and digits). */
static int header_comment (struct rp_trace *t, const char *s)
{
    size_t k;
    const char *v;
    json_t *old, *val;
    char key[64];

    s += strspn (s, " \t;");
    k = strspn (s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                   "0123456789");
    if (k == 0 || k >= sizeof (key) || s[k] != ':')
        return 0;
    memcpy (key, s, k);
    key[k] = '\0';
    v = s + k + 1;
    v += strspn (v, " \t");
    k = strlen (v);
    while (k > 0 && strchr (" \t\r", v[k - 1]))
        k--;
    if (!(val = json_stringn (v, k)))
        return 0; /* not UTF-8: not kept */
    old = json_object_get (t->header, key);
    if (!old)
        return json_object_set_new (t->header, key, val);
    if (!json_is_array (old)) {
        json_t *a = json_array ();
        if (!a || json_array_append (a, old) < 0
            || json_object_set_new (t->header, key, a) < 0) {
            json_decref (a);
            json_decref (val);
            return -1;
        }
        old = a;
    }
    return json_array_append_new (old, val);
}

/* --- SWF lines ---------------------------------------------------------------
 */

static bool fraction_allowed (int f)
{
    return f == 6 || f == 7 || f == 10;
}

static int bad_field (struct rp_trace *t, int f, const char *what,
                      const char *tok, rp_error_t *error)
{
    return rp_error_set (error, EINVAL, "%s:%zu: field %d (%s): %s: '%.32s'",
                         t->name, t->line, f, field_names[f], what, tok);
}

/* Field f of the line as an integer (fields with a fraction rounded
 * down: they are not used). */
static int parse_field (struct rp_trace *t, int f, const char *tok, int64_t *v,
                        rp_error_t *error)
{
    size_t n = strlen (tok);
    char *end;
    long long x;

    if (fraction_allowed (f) && strchr (tok, '.')
        && strspn (tok, "-0123456789.") == n) {
        double d = strtod (tok, &end);
        if (end != tok + n || !isfinite (d))
            return bad_field (t, f, "not a number", tok, error);
        x = d > (double)VALUE_MAX ? VALUE_MAX + 1 : (long long)floor (d);
    } else {
        errno = 0;
        x = strtoll (tok, &end, 10);
        if (end == tok || *end || errno == EINVAL)
            return bad_field (t, f, "not an integer", tok, error);
        if (errno == ERANGE)
            x = x < 0 ? -2 : VALUE_MAX + 1;
    }
    if (x > VALUE_MAX)
        return bad_field (t, f, "too large (at most 2^40)", tok, error);
    if (x < -1)
        return bad_field (t, f, "negative (-1 is unknown)", tok, error);
    if (f == 1 && x < 1)
        return bad_field (t, f, "must be >= 1", tok, error);
    *v = x;
    return 0;
}

static void swf_rules (struct rp_trace_job *j)
{
    j->size = j->requested_procs > 0   ? (uint64_t)j->requested_procs
              : j->allocated_procs > 0 ? (uint64_t)j->allocated_procs
                                       : 0;
    j->duration = j->requested_time > 0 ? j->requested_time : j->runtime;
    if (j->duration < 0)
        j->duration = 0;
    j->run = j->runtime < j->duration ? j->runtime : j->duration;
    if (j->submit < 0)
        j->skip = "unknown submit time";
    else if (j->runtime < 0)
        j->skip = "unknown run time";
    else if (j->size == 0)
        j->skip = "no size";
}

static int swf_job (struct rp_trace *t, char *line, rp_error_t *error)
{
    struct rp_trace_job *j = &t->job;
    int64_t v[NFIELDS + 1];
    char *tok, *save = NULL;
    int n = 0;

    for (tok = strtok_r (line, " \t\r\f\v", &save); tok;
         tok = strtok_r (NULL, " \t\r\f\v", &save)) {
        if (++n > NFIELDS)
            break;
        if (parse_field (t, n, tok, &v[n], error) < 0)
            return -1;
    }
    if (n != NFIELDS)
        return rp_error_set (error, EINVAL, "%s:%zu: %s%d fields, SWF has %d",
                             t->name, t->line, n > NFIELDS ? "more than " : "",
                             n > NFIELDS ? NFIELDS : n, NFIELDS);
    memset (j, 0, sizeof (*j));
    j->id = (uint64_t)v[1];
    j->submit = v[2];
    j->wait = v[3];
    j->runtime = v[4];
    j->allocated_procs = v[5];
    j->requested_procs = v[8];
    j->requested_time = v[9];
    j->status = v[11];
    j->user = v[12];
    j->group = v[13];
    j->queue = v[15];
    j->partition = v[16];
    j->line = t->line;
    swf_rules (j);
    return 0;
}

/* --- JSON lines ---------------------------------------------------------- */

static int json_member (struct rp_trace *t, const char *key, int64_t *v,
                        rp_error_t *error)
{
    json_t *o = json_object_get (t->jobspec, key);

    if (!o)
        return rp_error_set (error, EINVAL, "%s:%zu: %s: missing", t->name,
                             t->line, key);
    if (!json_is_integer (o) || json_integer_value (o) < 0
        || json_integer_value (o) > VALUE_MAX)
        return rp_error_set (error, EINVAL,
                             "%s:%zu: %s: must be whole seconds, 0..2^40",
                             t->name, t->line, key);
    *v = json_integer_value (o);
    return 0;
}

static int jsonl_check_keys (struct rp_trace *t, rp_error_t *error)
{
    const char *key;
    json_t *v;

    json_object_foreach (t->jobspec, key, v) {
        if (strcmp (key, "id") && strcmp (key, "submit")
            && strcmp (key, "runtime") && strcmp (key, "jobspec"))
            return rp_error_set (error, EINVAL, "%s:%zu: %s: unknown key",
                                 t->name, t->line, key);
    }
    return 0;
}

static int jsonl_duration (struct rp_trace *t, const json_t *js, int64_t *d,
                           rp_error_t *error)
{
    json_t *attrs = json_object_get (js, "attributes");
    json_t *o = json_object_get (json_object_get (attrs, "system"), "duration");
    double x;

    *d = 0;
    if (!o)
        return 0;
    x = json_number_value (o);
    if (!json_is_number (o) || x < 0 || x > (double)VALUE_MAX)
        return rp_error_set (error, EINVAL,
                             "%s:%zu: jobspec: attributes.system.duration: "
                             "must be a number of seconds, 0..2^40",
                             t->name, t->line);
    *d = (int64_t)ceil (x);
    return 0;
}

static int jsonl_job (struct rp_trace *t, const char *line, rp_error_t *error)
{
    struct rp_trace_job *j = &t->job;
    json_error_t je;
    json_t *js, *id;
    int64_t d;

    json_decref (t->jobspec);
    if (!(t->jobspec = json_loads (line, JSON_REJECT_DUPLICATES, &je)))
        return rp_error_set (error, EINVAL, "%s:%zu:%d: %s", t->name, t->line,
                             je.column, je.text);
    if (!json_is_object (t->jobspec))
        return rp_error_set (error, EINVAL, "%s:%zu: not a JSON object",
                             t->name, t->line);
    if (jsonl_check_keys (t, error) < 0)
        return -1;
    memset (j, 0, sizeof (*j));
    j->line = t->line;
    j->id = t->line;
    if ((id = json_object_get (t->jobspec, "id"))) {
        if (!json_is_integer (id) || json_integer_value (id) < 1)
            return rp_error_set (error, EINVAL,
                                 "%s:%zu: id: must be an integer >= 1", t->name,
                                 t->line);
        j->id = (uint64_t)json_integer_value (id);
    }
    if (json_member (t, "submit", &j->submit, error) < 0
        || json_member (t, "runtime", &j->runtime, error) < 0)
        return -1;
    if (!json_is_object (js = json_object_get (t->jobspec, "jobspec")))
        return rp_error_set (error, EINVAL, "%s:%zu: jobspec: %s", t->name,
                             t->line, js ? "must be an object" : "missing");
    if (jsonl_duration (t, js, &d, error) < 0)
        return -1;
    j->jobspec = js;
    j->duration = d;
    j->run = d > 0 && d < j->runtime ? d : j->runtime;
    j->wait = j->requested_procs = j->allocated_procs = -1;
    j->requested_time = j->status = j->user = j->group = -1;
    j->queue = j->partition = -1;
    return 0;
}

/* --- the reader --------------------------------------------------------------
 */

/* The next line that holds a job, after comments and blank lines; 0 at
 * the end. */
static int next_job_line (struct rp_trace *t, char **line, rp_error_t *error)
{
    int rc;

    while ((rc = next_line (t, line, error)) == 1) {
        const char *s = *line + strspn (*line, " \t\r\f\v");
        if (*s == ';') {
            if (t->format == RP_TRACE_SWF && header_comment (t, s) < 0)
                return rp_error_set (error, ENOMEM, "%s: out of memory",
                                     t->name);
            continue;
        }
        if (!blank (s))
            return 1;
    }
    return rc;
}

struct rp_trace *rp_trace_open (const char *path, rp_error_t *error)
{
    struct rp_trace *t = calloc (1, sizeof (*t));
    int fd = -1;
    char *line;
    int rc;

    if (!t || !(t->buf = malloc (65536 + 1)) || !(t->header = json_object ())
        || !(t->name = strdup (strcmp (path, "-") ? path : "stdin"))) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto error;
    }
    t->cap = 65536;
    t->format = RP_TRACE_SWF;
    if (!strcmp (path, "-") && (fd = dup (0)) < 0) {
        rp_error_set (error, errno, "stdin: %s", strerror (errno));
        goto error;
    }
    t->gz = fd >= 0 ? gzdopen (fd, "rb") : gzopen (path, "rb");
    if (!t->gz) {
        int errnum = errno ? errno : ENOMEM;
        if (fd >= 0)
            close (fd);
        rp_error_set (error, errnum, "%s: %s", t->name, strerror (errnum));
        goto error;
    }
    if ((rc = next_job_line (t, &line, error)) < 0)
        goto error;
    if (rc == 1) {
        t->pending = line;
        if (line[strspn (line, " \t\r\f\v")] == '{') {
            t->format = RP_TRACE_JSONL;
            json_object_clear (t->header);
        }
    }
    return t;
error:
    rp_trace_close (t);
    return NULL;
}

void rp_trace_close (struct rp_trace *t)
{
    int saved_errno = errno;

    if (t) {
        if (t->gz)
            gzclose (t->gz);
        json_decref (t->header);
        json_decref (t->jobspec);
        free (t->buf);
        free (t->name);
        free (t);
    }
    errno = saved_errno;
}

int rp_trace_format (const struct rp_trace *t)
{
    return t ? t->format : 0;
}

const json_t *rp_trace_header (const struct rp_trace *t)
{
    return t ? t->header : NULL;
}

const struct rp_trace_job *rp_trace_next (struct rp_trace *t, rp_error_t *error)
{
    char *line;
    int rc;

    if (!t) {
        rp_error_set (error, EINVAL, "trace: invalid argument");
        return NULL;
    }
    /* The first job's line was read by open, and nothing after it. */
    if ((line = t->pending))
        t->pending = NULL;
    else if ((rc = next_job_line (t, &line, error)) <= 0) {
        if (rc == 0)
            errno = 0;
        return NULL;
    }
    if (t->format == RP_TRACE_JSONL ? jsonl_job (t, line, error)
                                    : swf_job (t, line, error))
        return NULL;
    return &t->job;
}
