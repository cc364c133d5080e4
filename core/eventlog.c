/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* RFC 18 event logs as files; see api/respol/eventlog.h.
 *
 * The reader keeps one buffer: unread bytes live in buf[start, end).  A
 * line is taken when a newline is found there; otherwise the unread bytes
 * move to the front, the buffer doubles when it is full (never past
 * RP_EVENTLOG_LINE_MAX + 1 bytes) and more is read.  End of file with
 * unread bytes left is an incomplete line, kept for a later call.
 *
 * Strictness: an event has exactly the keys of RFC 18 (flux-core's
 * reader lets other keys pass; respol writes none, so another key means a
 * damaged line), duplicate keys are refused, an empty line is an error.
 * RFC 18 does not order timestamps (its own example is out of order), so
 * neither does the reader.
 *
 * Durability: append is open, one write(2) (continued if the kernel takes
 * less), fdatasync(2), close; a new file's directory is fsync'd.  replace
 * and repair go through a temporary file made with mkstemp(3) beside the
 * log, fsync'd, renamed over it, then the directory fsync'd.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "respol/eventlog.h"

#define CHUNK 65536

struct rp_eventlog {
    char *path;
    int fd;
    dev_t dev;
    ino_t ino;
    char *buf;
    size_t cap;
    size_t start; /* first unread byte */
    size_t end;   /* end of what was read */
    size_t lineno;
    size_t tail;
    json_t *event; /* the last event returned */
    bool failed;
    rp_error_t failure;
};

/* --- one line ------------------------------------------------------------ */

static int check_keys (json_t *o, rp_error_t *error)
{
    const char *key;
    json_t *v;

    json_object_foreach (o, key, v) {
        if (strcmp (key, "timestamp") != 0 && strcmp (key, "name") != 0
            && strcmp (key, "context") != 0)
            return rp_error_set (error, EINVAL, "unknown key '%.64s'", key);
    }
    return 0;
}

int rp_eventlog_check (const char *line, size_t len, double *timestamp,
                       const char **name, const json_t **context,
                       json_t **event, rp_error_t *error)
{
    json_error_t je;
    json_t *o, *t, *n, *c;

    if (len == 0)
        return rp_error_set (error, EINVAL, "empty line");
    if (!(o = json_loadb (line, len, JSON_REJECT_DUPLICATES, &je)))
        return rp_error_set (error, EINVAL, "not JSON: %s", je.text);
    if (!json_is_object (o)) {
        json_decref (o);
        return rp_error_set (error, EINVAL, "not a JSON object");
    }
    t = json_object_get (o, "timestamp");
    n = json_object_get (o, "name");
    c = json_object_get (o, "context");
    if (!t || !json_is_number (t) || !(json_number_value (t) > 0)
        || !isfinite (json_number_value (t)))
        rp_error_set (error, EINVAL, "timestamp: must be a number > 0");
    else if (!n || !json_is_string (n) || json_string_length (n) == 0)
        rp_error_set (error, EINVAL, "name: must be a non-empty string");
    else if (c && !json_is_object (c))
        rp_error_set (error, EINVAL, "context: must be an object");
    else if (check_keys (o, error) == 0) {
        *timestamp = json_number_value (t);
        *name = json_string_value (n);
        *context = c;
        *event = o;
        return 0;
    }
    json_decref (o);
    errno = EINVAL;
    return -1;
}

char *rp_eventlog_encode (double timestamp, const char *name,
                          const json_t *context, rp_error_t *error)
{
    json_t *o;
    char *s, *line;
    size_t len;

    if (!(timestamp > 0) || !isfinite (timestamp) || !name || !*name
        || (context && !json_is_object (context))) {
        rp_error_set (error, EINVAL, "eventlog: bad event");
        return NULL;
    }
    if (!(o = json_pack ("{s:f s:s}", "timestamp", timestamp, "name", name))
        || (context && json_object_set (o, "context", (json_t *)context) < 0)) {
        json_decref (o);
        rp_error_set (error, EINVAL, "eventlog: event '%.64s': not UTF-8",
                      name);
        return NULL;
    }
    s = json_dumps (o, JSON_COMPACT);
    json_decref (o);
    if (!s || !(line = realloc (s, (len = strlen (s)) + 2))) {
        free (s);
        rp_error_set (error, ENOMEM, "out of memory");
        return NULL;
    }
    line[len] = '\n';
    line[len + 1] = '\0';
    return line;
}

/* --- reading -------------------------------------------------------------- */

struct rp_eventlog *rp_eventlog_open (const char *path, rp_error_t *error)
{
    struct rp_eventlog *log = calloc (1, sizeof (*log));
    struct stat st;

    if (!log || !(log->path = strdup (path)) || !(log->buf = malloc (CHUNK))) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto error;
    }
    log->cap = CHUNK;
    if ((log->fd = open (path, O_RDONLY | O_CLOEXEC)) < 0) {
        rp_error_set (error, errno, "%s: %s", path, strerror (errno));
        goto error;
    }
    if (fstat (log->fd, &st) < 0 || !S_ISREG (st.st_mode)) {
        int e = S_ISDIR (st.st_mode) ? EISDIR : EINVAL;
        rp_error_set (error, e, "%s: %s", path,
                      e == EISDIR ? strerror (e) : "not a regular file");
        close (log->fd);
        goto error;
    }
    log->dev = st.st_dev;
    log->ino = st.st_ino;
    return log;
error:
    if (log) {
        free (log->path);
        free (log->buf);
        free (log);
    }
    return NULL;
}

void rp_eventlog_destroy (struct rp_eventlog *log)
{
    int saved = errno;

    if (log) {
        close (log->fd);
        json_decref (log->event);
        free (log->buf);
        free (log->path);
        free (log);
    }
    errno = saved;
}

static int fail (struct rp_eventlog *log, rp_error_t *error, int errnum,
                 const char *what)
{
    log->failed = true;
    rp_error_set (&log->failure, errnum, "%s:%zu: %s", log->path,
                  log->lineno + 1, what);
    if (error)
        *error = log->failure;
    errno = errnum;
    return -1;
}

/* Make room to read more: move the unread bytes to the front, and grow
 * the buffer when they fill it.  -1 when a line is too long or out of
 * memory. */
static int make_room (struct rp_eventlog *log, rp_error_t *error)
{
    size_t unread = log->end - log->start;
    char *nbuf;
    size_t ncap;

    if (unread > RP_EVENTLOG_LINE_MAX) {
        char what[64];
        snprintf (what, sizeof (what), "longer than %zu bytes",
                  RP_EVENTLOG_LINE_MAX);
        return fail (log, error, EFBIG, what);
    }
    memmove (log->buf, log->buf + log->start, unread);
    log->start = 0;
    log->end = unread;
    if (unread < log->cap)
        return 0;
    ncap = log->cap * 2;
    if (ncap > RP_EVENTLOG_LINE_MAX + 1)
        ncap = RP_EVENTLOG_LINE_MAX + 1;
    if (!(nbuf = realloc (log->buf, ncap)))
        return fail (log, error, ENOMEM, "out of memory");
    log->buf = nbuf;
    log->cap = ncap;
    return 0;
}

/* The next complete line into *line, *len: 1, 0 at the end, -1. */
static int next_line (struct rp_eventlog *log, char **line, size_t *len,
                      rp_error_t *error)
{
    for (;;) {
        char *nl = memchr (log->buf + log->start, '\n', log->end - log->start);
        ssize_t n;
        if (nl) {
            *line = log->buf + log->start;
            *len = (size_t)(nl - *line);
            log->start += *len + 1;
            return 1;
        }
        if (make_room (log, error) < 0)
            return -1;
        n = read (log->fd, log->buf + log->end, log->cap - log->end);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return fail (log, error, errno, strerror (errno));
        if (n == 0) {
            log->tail = log->end - log->start;
            return 0;
        }
        log->end += (size_t)n;
    }
}

int rp_eventlog_next (struct rp_eventlog *log, double *timestamp,
                      const char **name, const json_t **context,
                      rp_error_t *error)
{
    char *line;
    size_t len;
    json_t *event;
    rp_error_t e;
    int rc;

    if (!log || !timestamp || !name || !context)
        return rp_error_set (error, EINVAL, "eventlog: bad arguments");
    if (log->failed) {
        if (error)
            *error = log->failure;
        errno = EINVAL;
        return -1;
    }
    if ((rc = next_line (log, &line, &len, error)) <= 0)
        return rc;
    if (rp_eventlog_check (line, len, timestamp, name, context, &event, &e) < 0)
        return fail (log, error, EINVAL, e.text);
    json_decref (log->event);
    log->event = event;
    log->lineno++;
    log->tail = 0;
    return 1;
}

size_t rp_eventlog_lineno (const struct rp_eventlog *log)
{
    return log ? log->lineno : 0;
}

size_t rp_eventlog_tail (const struct rp_eventlog *log)
{
    return log ? log->tail : 0;
}

bool rp_eventlog_replaced (const struct rp_eventlog *log)
{
    struct stat st;

    if (!log)
        return false;
    if (stat (log->path, &st) < 0)
        return true;
    return st.st_dev != log->dev || st.st_ino != log->ino;
}

/* --- writing -------------------------------------------------------------- */

static int sync_dir (const char *path, rp_error_t *error)
{
    char *copy = strdup (path);
    int fd, rc = 0;

    if (!copy)
        return rp_error_set (error, ENOMEM, "out of memory");
    if ((fd = open (dirname (copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0
        || fsync (fd) < 0)
        rc = rp_error_set (error, errno, "%s: %s", copy, strerror (errno));
    if (fd >= 0)
        close (fd);
    free (copy);
    return rc;
}

static int write_all (int fd, const char *s, size_t len)
{
    while (len > 0) {
        ssize_t n = write (fd, s, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        s += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Does the open file end in a newline (or is it empty)? */
static int ends_complete (int fd, bool *complete)
{
    struct stat st;
    char c;

    if (fstat (fd, &st) < 0)
        return -1;
    if (st.st_size == 0) {
        *complete = true;
        return 0;
    }
    if (pread (fd, &c, 1, st.st_size - 1) != 1)
        return -1;
    *complete = c == '\n';
    return 0;
}

static int open_append (const char *path, bool *created, rp_error_t *error)
{
    int fd = open (path, O_RDWR | O_APPEND | O_CLOEXEC);
    bool complete;

    *created = false;
    if (fd < 0 && errno == ENOENT) {
        fd =
            open (path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        *created = fd >= 0;
    }
    if (fd < 0)
        return rp_error_set (error, errno, "%s: %s", path, strerror (errno));
    if (ends_complete (fd, &complete) < 0) {
        rp_error_set (error, errno, "%s: %s", path, strerror (errno));
        close (fd);
        return -1;
    }
    if (!complete) {
        close (fd);
        return rp_error_set (error, EBUSY, "%s: ends in an incomplete line",
                             path);
    }
    return fd;
}

int rp_eventlog_append (const char *path, double timestamp, const char *name,
                        const json_t *context, rp_error_t *error)
{
    char *line;
    bool created;
    int fd, rc = 0;

    if (!path)
        return rp_error_set (error, EINVAL, "eventlog: bad arguments");
    if (!(line = rp_eventlog_encode (timestamp, name, context, error)))
        return -1;
    if ((fd = open_append (path, &created, error)) < 0) {
        free (line);
        return -1;
    }
    if (write_all (fd, line, strlen (line)) < 0 || fdatasync (fd) < 0)
        rc = rp_error_set (error, errno, "%s: %s", path, strerror (errno));
    if (close (fd) < 0 && rc == 0)
        rc = rp_error_set (error, errno, "%s: %s", path, strerror (errno));
    free (line);
    if (rc == 0 && created)
        rc = sync_dir (path, error);
    return rc;
}

/* A temporary file beside path: its descriptor, name in *tmp (free). */
static int tmp_open (const char *path, char **tmp, rp_error_t *error)
{
    int fd;

    if (asprintf (tmp, "%s.XXXXXX", path) < 0) {
        *tmp = NULL;
        return rp_error_set (error, ENOMEM, "out of memory");
    }
    if ((fd = mkstemp (*tmp)) < 0) {
        rp_error_set (error, errno, "%s: %s", *tmp, strerror (errno));
        free (*tmp);
        *tmp = NULL;
        return -1;
    }
    (void)fchmod (fd, 0644);
    return fd;
}

/* Sync and close fd, rename tmp over path, sync the directory. */
static int tmp_commit (int fd, char *tmp, const char *path, rp_error_t *error)
{
    int rc = 0;

    if (fsync (fd) < 0)
        rc = rp_error_set (error, errno, "%s: %s", tmp, strerror (errno));
    if (close (fd) < 0 && rc == 0)
        rc = rp_error_set (error, errno, "%s: %s", tmp, strerror (errno));
    if (rc == 0 && rename (tmp, path) < 0)
        rc = rp_error_set (error, errno, "%s: %s", path, strerror (errno));
    if (rc < 0)
        unlink (tmp);
    free (tmp);
    return rc < 0 ? -1 : sync_dir (path, error);
}

static void tmp_abort (int fd, char *tmp)
{
    int saved = errno;

    close (fd);
    unlink (tmp);
    free (tmp);
    errno = saved;
}

static int remove_log (const char *path, rp_error_t *error)
{
    if (unlink (path) < 0 && errno != ENOENT)
        return rp_error_set (error, errno, "%s: %s", path, strerror (errno));
    return sync_dir (path, error);
}

static int write_events (int fd, const json_t *events, rp_error_t *error)
{
    size_t i;
    json_t *e;

    json_array_foreach (events, i, e) {
        json_t *t = json_object_get (e, "timestamp");
        json_t *n = json_object_get (e, "name");
        char *line =
            rp_eventlog_encode (json_number_value (t), json_string_value (n),
                                json_object_get (e, "context"), error);
        int rc = line ? write_all (fd, line, strlen (line)) : -1;
        if (line && rc < 0)
            rp_error_set (error, errno, "write: %s", strerror (errno));
        free (line);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int rp_eventlog_replace (const char *path, const json_t *events,
                         rp_error_t *error)
{
    char *tmp;
    int fd;

    if (!path || !json_is_array (events))
        return rp_error_set (error, EINVAL, "eventlog: bad arguments");
    if (json_array_size (events) == 0)
        return remove_log (path, error);
    if ((fd = tmp_open (path, &tmp, error)) < 0)
        return -1;
    if (write_events (fd, events, error) < 0) {
        tmp_abort (fd, tmp);
        return -1;
    }
    return tmp_commit (fd, tmp, path, error);
}

/* Copy the first len bytes of in to out. */
static int copy_bytes (int in, int out, off_t len)
{
    char buf[CHUNK];

    while (len > 0) {
        size_t want = len < (off_t)sizeof (buf) ? (size_t)len : sizeof (buf);
        ssize_t n = read (in, buf, want);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n == 0 ? (errno = EIO, -1) : -1;
        if (write_all (out, buf, (size_t)n) < 0)
            return -1;
        len -= n;
    }
    return 0;
}

/* Length of the complete lines of fd (size bytes): up to and including
 * its last newline.  -1 on a read error. */
static off_t complete_length (int fd, off_t size)
{
    char buf[CHUNK];

    while (size > 0) {
        size_t want = size < (off_t)sizeof (buf) ? (size_t)size : sizeof (buf);
        ssize_t n = pread (fd, buf, want, size - (off_t)want);
        if (n != (ssize_t)want)
            return -1;
        for (size_t i = want; i > 0; i--)
            if (buf[i - 1] == '\n')
                return size - (off_t)want + (off_t)i;
        size -= (off_t)want;
    }
    return 0;
}

int rp_eventlog_repair (const char *path, size_t *dropped, rp_error_t *error)
{
    struct stat st;
    off_t keep;
    char *tmp;
    int in, out;

    if (dropped)
        *dropped = 0;
    if ((in = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        return rp_error_set (error, errno, "%s: %s", path, strerror (errno));
    if (fstat (in, &st) < 0 || (keep = complete_length (in, st.st_size)) < 0) {
        rp_error_set (error, errno, "%s: %s", path, strerror (errno));
        close (in);
        return -1;
    }
    if (dropped)
        *dropped = (size_t)(st.st_size - keep);
    if (keep == st.st_size || keep == 0) {
        close (in);
        return keep == 0 && st.st_size > 0 ? remove_log (path, error) : 0;
    }
    if ((out = tmp_open (path, &tmp, error)) < 0) {
        close (in);
        return -1;
    }
    if (copy_bytes (in, out, keep) < 0) {
        rp_error_set (error, errno, "%s: %s", path, strerror (errno));
        close (in);
        tmp_abort (out, tmp);
        return -1;
    }
    close (in);
    return tmp_commit (out, tmp, path, error);
}
