/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* RFC 18 event logs as files (core/eventlog.c): the line checks, the
 * encoding flux-core writes, appending, reading on as a writer appends,
 * the incomplete last line, the bound on line length, repair and
 * replacement by rename. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "respol/eventlog.h"
#include "t/tap/tap.h"

static char dir[] = "/tmp/respol-eventlog-XXXXXX";
static char path[256];

static void write_file (const char *p, const char *data, size_t len)
{
    FILE *f = fopen (p, "w");
    if (!f || fwrite (data, 1, len, f) != len || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", p);
}

static char *read_file (const char *p)
{
    FILE *f = fopen (p, "r");
    static char buf[65536];
    size_t n;

    if (!f)
        return NULL;
    n = fread (buf, 1, sizeof (buf) - 1, f);
    buf[n] = '\0';
    fclose (f);
    return buf;
}

struct check_case {
    const char *line;
    const char *error; /* NULL: valid */
};

static const struct check_case checks[] = {
    { "{\"timestamp\":1.5,\"name\":\"drain\"}", NULL },
    { "{\"timestamp\":1,\"name\":\"x\",\"context\":{}}", NULL },
    { "{\"name\":\"x\",\"timestamp\":2}", NULL },
    { "", "empty line" },
    { "[]", "not a JSON object" },
    { "{", "not JSON: " },
    { "{\"timestamp\":1,\"name\":\"x\"} {}", "not JSON: " },
    { "{\"timestamp\":0,\"name\":\"x\"}", "timestamp: must be a number > 0" },
    { "{\"timestamp\":-1,\"name\":\"x\"}", "timestamp: must be a number > 0" },
    { "{\"timestamp\":\"1\",\"name\":\"x\"}",
      "timestamp: must be a number > 0" },
    { "{\"name\":\"x\"}", "timestamp: must be a number > 0" },
    { "{\"timestamp\":1}", "name: must be a non-empty string" },
    { "{\"timestamp\":1,\"name\":\"\"}", "name: must be a non-empty string" },
    { "{\"timestamp\":1,\"name\":3}", "name: must be a non-empty string" },
    { "{\"timestamp\":1,\"name\":\"x\",\"context\":[]}",
      "context: must be an object" },
    { "{\"timestamp\":1,\"name\":\"x\",\"extra\":1}", "unknown key 'extra'" },
    { "{\"timestamp\":1,\"name\":\"x\",\"name\":\"y\"}", "not JSON: " },
    { "{\"timestamp\":1e999,\"name\":\"x\"}", "not JSON: " },
};

static void test_check (void)
{
    for (size_t i = 0; i < sizeof (checks) / sizeof (checks[0]); i++) {
        const struct check_case *c = &checks[i];
        double ts;
        const char *name;
        const json_t *ctx;
        json_t *ev = NULL;
        rp_error_t e = { "" };
        int rc = rp_eventlog_check (c->line, strlen (c->line), &ts, &name, &ctx,
                                    &ev, &e);
        if (!c->error)
            ok (rc == 0 && ev, "check '%s' is an event", c->line);
        else
            ok (rc < 0 && errno == EINVAL
                    && strstr (e.text, c->error) == e.text,
                "check '%s': %s (got '%s')", c->line, c->error, e.text);
        json_decref (ev);
    }
}

static void test_encode (void)
{
    json_t *ctx = json_pack ("{s:s s:s s:s s:i}", "idset", "2", "nodelist",
                             "fake2", "reason", "smurfs", "overwrite", 0);
    char *s = rp_eventlog_encode (1713906350.984611, "drain", ctx, NULL);
    rp_error_t e;

    is (s,
        "{\"timestamp\":1713906350.984611,\"name\":\"drain\",\"context\":{"
        "\"idset\":\"2\",\"nodelist\":\"fake2\",\"reason\":\"smurfs\","
        "\"overwrite\":0}}\n",
        "encode writes flux-core's bytes: key order, reals, newline");
    free (s);
    s = rp_eventlog_encode (5, "x", NULL, NULL);
    is (s, "{\"timestamp\":5.0,\"name\":\"x\"}\n",
        "a whole timestamp is a real, the context is left out when absent");
    free (s);
    errno = 0;
    ok (!rp_eventlog_encode (0, "x", NULL, &e) && errno == EINVAL,
        "encode refuses timestamp 0");
    ok (!rp_eventlog_encode (1, "", NULL, &e) && errno == EINVAL,
        "encode refuses an empty name");
    {
        json_t *a = json_array ();
        ok (!rp_eventlog_encode (1, "x", a, &e) && errno == EINVAL,
            "encode refuses a context that is not an object");
        json_decref (a);
    }
    ok (!rp_eventlog_encode (1, "\xff", NULL, &e) && errno == EINVAL,
        "encode refuses a name that is not UTF-8");
    json_decref (ctx);
}

static int next (struct rp_eventlog *log, const char **name, rp_error_t *e)
{
    double ts;
    const json_t *ctx;

    return rp_eventlog_next (log, &ts, name, &ctx, e);
}

static void test_append_follow (void)
{
    struct rp_eventlog *log;
    const char *name;
    rp_error_t e;
    int fd;

    unlink (path);
    errno = 0;
    ok (!rp_eventlog_open (path, &e) && errno == ENOENT,
        "a missing log: ENOENT");
    ok (rp_eventlog_append (path, 1, "a", NULL, &e) == 0,
        "append creates the log");
    ok ((log = rp_eventlog_open (path, &e)) != NULL, "open the log");
    ok (next (log, &name, &e) == 1 && !strcmp (name, "a"), "read event a");
    ok (next (log, &name, &e) == 0, "then the end");
    {
        json_t *o = json_object ();
        ok (rp_eventlog_append (path, 2, "b", o, &e) == 0, "append another");
        json_decref (o);
    }
    ok (next (log, &name, &e) == 1 && !strcmp (name, "b")
            && rp_eventlog_lineno (log) == 2,
        "the reader reads on: event b, line 2");
    /* A writer in the middle of a line. */
    fd = open (path, O_WRONLY | O_APPEND);
    ok (write (fd, "{\"timestamp\":3,", 15) == 15, "write half a line");
    ok (next (log, &name, &e) == 0 && rp_eventlog_tail (log) == 15,
        "an incomplete line is not read; its length is known");
    errno = 0;
    ok (rp_eventlog_append (path, 4, "d", NULL, &e) < 0 && errno == EBUSY,
        "append refuses to write after an incomplete line");
    like (e.text, "ends in an incomplete line", "and says why");
    ok (write (fd, "\"name\":\"c\"}\n", 12) == 12, "finish the line");
    ok (next (log, &name, &e) == 1 && !strcmp (name, "c")
            && rp_eventlog_tail (log) == 0,
        "the completed line is read");
    ok (!rp_eventlog_replaced (log), "not replaced");
    close (fd);
    rp_eventlog_destroy (log);
}

static void test_torn_and_repair (void)
{
    const char *data = "{\"timestamp\":1,\"name\":\"a\"}\n{\"timesta";
    struct rp_eventlog *log;
    const char *name;
    size_t dropped;
    rp_error_t e;

    write_file (path, data, strlen (data));
    log = rp_eventlog_open (path, &e);
    ok (next (log, &name, &e) == 1 && next (log, &name, &e) == 0
            && rp_eventlog_tail (log) == 9,
        "a torn last line: one event, then 9 bytes left");
    ok (rp_eventlog_repair (path, &dropped, &e) == 0 && dropped == 9,
        "repair drops the 9 bytes");
    is (read_file (path), "{\"timestamp\":1,\"name\":\"a\"}\n",
        "what was before them is kept byte for byte");
    ok (rp_eventlog_replaced (log), "the reader sees the log was replaced");
    rp_eventlog_destroy (log);
    ok (rp_eventlog_repair (path, &dropped, &e) == 0 && dropped == 0,
        "repairing a whole log changes nothing");
    write_file (path, "{\"time", 6);
    ok (rp_eventlog_repair (path, &dropped, &e) == 0 && dropped == 6
            && access (path, F_OK) < 0,
        "a log of one incomplete line is removed");
}

static void test_errors (void)
{
    const char *data = "{\"timestamp\":1,\"name\":\"a\"}\n"
                       "{\"timestamp\":1,\"name\":\"b\",\"context\":3}\n";
    struct rp_eventlog *log;
    const char *name;
    rp_error_t e;
    char want[512];

    write_file (path, data, strlen (data));
    log = rp_eventlog_open (path, &e);
    ok (next (log, &name, &e) == 1, "line 1 is an event");
    snprintf (want, sizeof (want), "%s:2: context: must be an object", path);
    ok (next (log, &name, &e) < 0, "line 2 is not");
    is (e.text, want, "the error names the file and the line");
    ok (next (log, &name, &e) < 0 && !strcmp (e.text, want),
        "and stays the error");
    rp_eventlog_destroy (log);
    ok (!rp_eventlog_open (dir, &e) && errno == EISDIR,
        "a directory is not a log");
}

static void test_long_line (void)
{
    size_t len = RP_EVENTLOG_LINE_MAX + 100;
    char *big = malloc (len);
    struct rp_eventlog *log;
    const char *name;
    rp_error_t e;
    char want[512];
    FILE *f;

    memset (big, 'x', len);
    f = fopen (path, "w");
    fputs ("{\"timestamp\":1,\"name\":\"a\"}\n", f);
    fwrite (big, 1, len, f);
    fputs ("\n", f);
    fclose (f);
    free (big);
    log = rp_eventlog_open (path, &e);
    ok (next (log, &name, &e) == 1, "a short line");
    snprintf (want, sizeof (want), "%s:2: longer than %zu bytes", path,
              RP_EVENTLOG_LINE_MAX);
    ok (next (log, &name, &e) < 0 && errno == EFBIG, "then a line too long");
    is (e.text, want, "named with its line number");
    rp_eventlog_destroy (log);
}

static void test_replace (void)
{
    json_t *events =
        json_pack ("[{s:f s:s} {s:f s:s s:{s:s}}]", "timestamp", 1.0, "name",
                   "a", "timestamp", 2.5, "name", "b", "context", "k", "v");
    rp_error_t e;
    struct stat st;

    ok (rp_eventlog_replace (path, events, &e) == 0, "replace");
    is (read_file (path),
        "{\"timestamp\":1.0,\"name\":\"a\"}\n"
        "{\"timestamp\":2.5,\"name\":\"b\",\"context\":{\"k\":\"v\"}}\n",
        "the new log holds the events");
    ok (stat (path, &st) == 0 && (st.st_mode & 0777) == 0644, "with mode 0644");
    json_array_clear (events);
    ok (rp_eventlog_replace (path, events, &e) == 0 && access (path, F_OK) < 0,
        "an empty list removes the log (never an empty log)");
    json_decref (events);
}

int main (void)
{
    plan (NO_PLAN);
    if (!mkdtemp (dir))
        BAIL_OUT ("mkdtemp");
    snprintf (path, sizeof (path), "%s/eventlog", dir);
    test_check ();
    test_encode ();
    test_append_follow ();
    test_torn_and_repair ();
    test_errors ();
    test_long_line ();
    test_replace ();
    unlink (path);
    rmdir (dir);
    return done_testing ();
}
