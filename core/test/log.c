/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for plugin logging (core/plugin.c, core/config.c): levels,
 * who decides them (the host's level over the configuration's), the
 * configuration's log block and its destinations (the handler, syslog, a
 * file under the configuration's trust rules), and what a message becomes
 * (one line, clamped level), with the fixture plugin "crash" of t/plugins,
 * whose init logs "init at LEVEL" at each level (log: true) or a text of
 * its own (say, say-level).
 *
 * syslog is the test's own (defined below, so librespol's calls reach it),
 * which records what would have been sent.  In the tables, "@" at the
 * start of a message stands for the configuration's path and "$TMP" for
 * the private temporary directory.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "respol/config.h"
#include "t/tap/tap.h"

#include "core/test/fixtures.h"

static char cfgpath[PATH_MAX];

/* --- what reached the handler and syslog ------------------------------ */

static char handled[8192];
static char syslogged[8192];

static void append (char *buf, size_t size, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static void append (char *buf, size_t size, const char *fmt, ...)
{
    size_t len = strlen (buf);
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf + len, size - len, fmt, ap);
    va_end (ap);
}

static void vsyslog_record (int pri, const char *fmt, va_list ap)
{
    char msg[2048];

    vsnprintf (msg, sizeof (msg), fmt, ap);
    append (syslogged, sizeof (syslogged), "%d %s\n", pri, msg);
}

void syslog (int pri, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    vsyslog_record (pri, fmt, ap);
    va_end (ap);
}

/* What syslog becomes with _FORTIFY_SOURCE. */
void __syslog_chk (int pri, int flag, const char *fmt, ...);
void __syslog_chk (int pri, int flag, const char *fmt, ...)
{
    va_list ap;

    (void)flag;
    va_start (ap, fmt);
    vsyslog_record (pri, fmt, ap);
    va_end (ap);
}

static void handler (const char *instance, int level, const char *msg,
                     void *arg)
{
    (void)arg;
    append (handled, sizeof (handled), "%s %d %s\n", instance, level, msg);
}

/* --- configurations --------------------------------------------------- */

/* s with "$TMP" replaced by tmpdir and "@" at a line start by cfgpath. */
static const char *expand (const char *s)
{
    static char out[16384];
    size_t n = 0;

    for (const char *p = s; *p && n < sizeof (out) - PATH_MAX; p++) {
        if (!strncmp (p, "$TMP", 4)) {
            n += snprintf (out + n, sizeof (out) - n, "%s", tmpdir);
            p += 3;
        } else if (*p == '@' && (p == s || p[-1] == '\n'))
            n += snprintf (out + n, sizeof (out) - n, "%s", cfgpath);
        else
            out[n++] = *p;
    }
    out[n] = '\0';
    return out;
}

static const char *tmp (const char *name)
{
    static char buf[PATH_MAX + 64];

    snprintf (buf, sizeof (buf), "%s/%s", tmpdir, name);
    return buf;
}

/* The messages of d, one per line, "W: " before a warning. */
static const char *messages (const struct rp_diags *d)
{
    static char buf[8192];

    buf[0] = '\0';
    for (size_t i = 0; i < rp_diags_count (d); i++)
        append (buf, sizeof (buf), "%s%s\n",
                rp_diags_severity (d, i) == RP_DIAG_WARNING ? "W: " : "",
                rp_diags_text (d, i));
    return buf;
}

/* Load the crash fixture with block (flow style), after "log: LOG" unless
 * log is NULL; the handler and syslog records are cleared first.
 * Returns the configuration (NULL if it does not load), messages in d. */
static struct rp_config *load (const char *log, const char *block,
                               struct rp_diags *d)
{
    char text[4 * PATH_MAX];
    FILE *f;

    snprintf (text, sizeof (text),
              "%s%s%svalidate:\n  - plugin: %s/crash.so\n    config: %s\n",
              log ? "log: " : "", log ? expand (log) : "", log ? "\n" : "",
              fixdir, block);
    if (!(f = fopen (cfgpath, "w")) || fputs (text, f) < 0 || fclose (f))
        BAIL_OUT ("cannot write %s", cfgpath);
    handled[0] = syslogged[0] = '\0';
    rp_diags_clear (d);
    return rp_config_load (cfgpath, 0, d);
}

/* --- level names -------------------------------------------------------- */

static void test_levels (void)
{
    static const struct {
        const char *s;
        int level;
    } t[] = {
        { "err", 3 },   { "error", 3 }, { "warning", 4 }, { "notice", 5 },
        { "info", 6 },  { "debug", 7 }, { "3", 3 },       { "7", 7 },
        { "2", -1 },    { "8", -1 },    { "33", -1 },     { "", -1 },
        { "Info", -1 }, { "warn", -1 }, { " 6", -1 },     { "6 ", -1 },
    };

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        errno = 0;
        int l = rp_log_level_parse (t[i].s);
        ok (l == t[i].level && (l > 0 || errno == EINVAL),
            "rp_log_level_parse (\"%s\") = %d", t[i].s, t[i].level);
    }
    errno = 0;
    ok (rp_log_level_parse (NULL) < 0 && errno == EINVAL,
        "rp_log_level_parse (NULL): EINVAL");
    is (rp_log_level_name (RP_LOG_ERR), "error", "level 3 is error");
    is (rp_log_level_name (RP_LOG_DEBUG), "debug", "level 7 is debug");
    ok (!rp_log_level_name (2) && !rp_log_level_name (8), "no name for 2 or 8");
    errno = 0;
    ok (rp_plugin_set_log_level (8) < 0 && errno == EINVAL,
        "rp_plugin_set_log_level (8): EINVAL");
    errno = 0;
    ok (rp_plugin_set_log_level (-1) < 0 && errno == EINVAL,
        "rp_plugin_set_log_level (-1): EINVAL");
    ok (rp_plugin_set_log_level (RP_LOG_DEBUG) == 0
            && rp_plugin_set_log_level (0) == 0,
        "rp_plugin_set_log_level: 3 to 7, and 0 to unset");
}

/* --- who decides the level ---------------------------------------------- */

static const char all_levels[] = "crash 3 init at err\n"
                                 "crash 4 init at warning\n"
                                 "crash 5 init at notice\n"
                                 "crash 6 init at info\n"
                                 "crash 7 init at debug\n";

/* The first n lines of all_levels. */
static const char *up_to (int n)
{
    static char buf[sizeof (all_levels)];
    const char *p = all_levels;

    for (int i = 0; i < n; i++)
        p = strchr (p, '\n') + 1;
    snprintf (buf, sizeof (buf), "%.*s", (int)(p - all_levels), all_levels);
    return buf;
}

static void test_who_decides (void)
{
    static const struct {
        const char *what;
        int host;        /* rp_plugin_set_log_level, 0: unset */
        const char *log; /* the configuration's log block */
        int delivered;   /* how many of the five init lines */
    } t[] = {
        { "by default, warning", 0, NULL, 2 },
        { "the host's level", RP_LOG_DEBUG, NULL, 5 },
        { "the configuration's level", 0, "{level: info}", 4 },
        { "a level as a number", 0, "{level: 5}", 3 },
        { "a level as a string of digits", 0, "{level: '7'}", 5 },
        { "the host's level wins over the configuration's, lower", RP_LOG_ERR,
          "{level: debug}", 1 },
        { "the host's level wins over the configuration's, higher", RP_LOG_INFO,
          "{level: err}", 4 },
        { "to: stderr is the handler", 0, "{to: stderr, level: notice}", 3 },
    };
    struct rp_diags *d = rp_diags_create ();

    rp_plugin_set_log (handler, NULL);
    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        struct rp_config *cfg;
        rp_plugin_set_log_level (t[i].host);
        cfg = load (t[i].log, "{log: true}", d);
        is (handled, up_to (t[i].delivered), "%s", t[i].what);
        rp_config_destroy (cfg);
    }
    rp_plugin_set_log_level (0);

    struct rp_config *cfg = load (NULL, "{log: true, in: validate}", d);
    handled[0] = '\0';
    rp_config_destroy (cfg);
    is (handled, "crash 3 fini at err\ncrash 4 fini at warning\n",
        "fini logs too, at the same level");
    rp_diags_destroy (d);
}

/* --- what a message becomes --------------------------------------------- */

static void test_message (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    char want[2048], big[2001];

    rp_plugin_set_log (handler, NULL);
    cfg = load (NULL, "{say: \"a\\nb\\e[31mc\\x7f\\td\\u00e9\"}", d);
    is (handled, "crash 4 a\\x0ab\\x1b[31mc\\x7f\\x09d\xc3\xa9\n",
        "control characters are written as \\xHH; UTF-8 is kept");
    rp_config_destroy (cfg);

    cfg = load (NULL, "{say: low, say-level: 0}", d);
    is (handled, "crash 3 low\n", "a level below err is delivered as err");
    rp_config_destroy (cfg);

    cfg = load (NULL, "{say: high, say-level: 99}", d);
    is (handled, "", "a level above debug is debug: not delivered at warning");
    rp_config_destroy (cfg);
    rp_plugin_set_log_level (RP_LOG_DEBUG);
    cfg = load (NULL, "{say: high, say-level: 99}", d);
    is (handled, "crash 7 high\n", "and delivered as debug");
    rp_config_destroy (cfg);
    rp_plugin_set_log_level (0);

    memset (big, 'x', sizeof (big) - 1);
    big[sizeof (big) - 1] = '\0';
    snprintf (want, sizeof (want), "{say: %s}", big);
    cfg = load (NULL, want, d);
    ok (strlen (handled) == strlen ("crash 4 ") + 1023 + 1,
        "a message is cut at 1023 bytes");
    rp_config_destroy (cfg);
    rp_diags_destroy (d);
}

/* --- destinations ------------------------------------------------------- */

static void test_syslog (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    char want[256];

    rp_plugin_set_log (handler, NULL);
    cfg = load ("{to: syslog, level: notice}", "{log: true}", d);
    snprintf (want, sizeof (want),
              "%d crash: init at err\n%d crash: init at warning\n"
              "%d crash: init at notice\n",
              LOG_USER | LOG_ERR, LOG_USER | LOG_WARNING,
              LOG_USER | LOG_NOTICE);
    is (syslogged, want, "to: syslog sends each message, facility user");
    is (handled, "", "and nothing to the handler");
    rp_config_destroy (cfg);
    rp_diags_destroy (d);
}

/* The contents of path, with every "TIME PROGRAM[PID]: " made "T: " when
 * it has that form. */
static const char *log_lines (const char *path)
{
    static char buf[8192];
    char line[2048], prefix[128];
    FILE *f = fopen (path, "r");

    buf[0] = '\0';
    if (!f)
        return "(missing)";
    snprintf (prefix, sizeof (prefix),
              "%s[%ld]: ", program_invocation_short_name, (long)getpid ());
    while (fgets (line, sizeof (line), f)) {
        const char *sp = strchr (line, ' ');
        bool stamp = sp && sp - line == 20 && line[4] == '-' && line[10] == 'T'
                     && line[19] == 'Z';
        if (stamp && !strncmp (sp + 1, prefix, strlen (prefix)))
            append (buf, sizeof (buf), "T: %s", sp + 1 + strlen (prefix));
        else
            append (buf, sizeof (buf), "%s", line);
    }
    fclose (f);
    return buf;
}

static void test_file (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    struct stat st;

    rp_plugin_set_log (handler, NULL);
    unlink (tmp ("p.log"));
    cfg = load ("{to: $TMP/p.log}", "{log: true}", d);
    is (messages (d), "", "to: FILE loads without a message");
    is (log_lines (tmp ("p.log")),
        "T: crash: error: init at err\nT: crash: warning: init at warning\n",
        "each message is a line: time, program[pid], instance, level");
    is (handled, "", "and nothing reaches the handler");
    ok (stat (tmp ("p.log"), &st) == 0 && (st.st_mode & 0777) == 0600,
        "the file is created 0600");
    rp_config_destroy (cfg);
    ok (strstr (log_lines (tmp ("p.log")), "fini at warning") != NULL,
        "fini's messages go there too: it is closed after the last fini");
    cfg = load ("{to: $TMP/p.log}", "{say: again}", d);
    rp_config_destroy (cfg);
    like (log_lines (tmp ("p.log")), "init at err\n",
          "a second run appends: the first run's lines are kept");
    like (log_lines (tmp ("p.log")), "T: crash: warning: again\n",
          "after them, the second's");
    rp_diags_destroy (d);
}

/* Files the log block refuses (with a warning: messages go to stderr). */
static void test_file_refused (void)
{
    static const struct {
        const char *what;
        const char *setup; /* shell, in $TMP */
        const char *to;
        const char *warning; /* after "FILE:1:11: log: 'to': " */
    } t[] = {
        { "a directory others can write",
          "mkdir -m 0777 open && chmod 0777 open", "$TMP/open/x.log",
          "$TMP/open/x.log: refusing to write: its directory is "
          "writable by group or others (mode 0777): chmod go-w, or chmod +t "
          "if shared" },
        { "a file others can write", "touch w.log && chmod 0666 w.log",
          "$TMP/w.log",
          "$TMP/w.log: refusing to write: the file is writable by group or "
          "others (mode 0666): chmod go-w" },
        { "a symlink", "touch target && ln -sf target link.log",
          "$TMP/link.log",
          "$TMP/link.log: not a regular file (a symbolic link)" },
        { "a dangling symlink", "ln -sf nowhere dangling.log",
          "$TMP/dangling.log",
          "$TMP/dangling.log: not a regular file (a symbolic link)" },
        { "a hard link", "touch h1 && ln -f h1 h2.log", "$TMP/h2.log",
          "$TMP/h2.log: refusing to write: the file has 2 hard links" },
        { "a FIFO (without waiting for a reader)", "mkfifo fifo.log",
          "$TMP/fifo.log", "$TMP/fifo.log: not a regular file (a FIFO)" },
        { "a directory", "mkdir -p dir.log", "$TMP/dir.log",
          "$TMP/dir.log: not a regular file (a directory)" },
        { "a missing directory", "true", "$TMP/none/x.log",
          "$TMP/none/x.log: No such file or directory" },
    };
    struct rp_diags *d = rp_diags_create ();
    char cmd[2 * PATH_MAX], log[PATH_MAX], want[4096];

    rp_plugin_set_log (handler, NULL);
    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        struct rp_config *cfg;
        snprintf (cmd, sizeof (cmd), "cd '%s' && %s", tmpdir, t[i].setup);
        if (system (cmd) != 0)
            BAIL_OUT ("%s failed", cmd);
        snprintf (log, sizeof (log), "{to: %s}", t[i].to);
        cfg = load (log, "{say: here}", d);
        snprintf (want, sizeof (want),
                  "W: %s:1:11: log: 'to': %s; plugin messages go to stderr\n",
                  cfgpath, t[i].warning);
        ok (cfg != NULL, "%s: the configuration loads", t[i].what);
        is (messages (d), expand (want), "%s: refused, with a warning",
            t[i].what);
        is (handled, "crash 4 here\n", "%s: messages go to the handler",
            t[i].what);
        rp_config_destroy (cfg);
    }
    ok (!strcmp (log_lines (tmp ("target")), ""),
        "the symlink's target was not written");
    ok (!strcmp (log_lines (tmp ("h1")), ""),
        "nor the file the hard link shares");
    rp_diags_destroy (d);
}

/* --- the log block's errors --------------------------------------------- */

static void test_block_errors (void)
{
    static const struct {
        const char *log;
        const char *error; /* after "@:" */
    } t[] = {
        { "5", "1:6: log must be a mapping (level, to)" },
        { "[info]", "1:6: log must be a mapping (level, to)" },
        { "{lvl: 3}", "1:7: log: unknown key 'lvl'" },
        { "{level: loud}",
          "1:14: log: 'level' must be err, warning, notice, info, debug, or 3 "
          "to 7" },
        { "{level: 8}",
          "1:14: log: 'level' must be err, warning, notice, info, debug, or 3 "
          "to 7" },
        { "{level: 2}",
          "1:14: log: 'level' must be err, warning, notice, info, debug, or 3 "
          "to 7" },
        { "{level: true}",
          "1:14: log: 'level' must be err, warning, notice, info, debug, or 3 "
          "to 7" },
        { "{to: relative.log}",
          "1:11: log: 'to' must be stderr, syslog or an absolute file path" },
        { "{to: 5}",
          "1:11: log: 'to' must be stderr, syslog or an absolute file path" },
        { "{to: ''}",
          "1:11: log: 'to' must be stderr, syslog or an absolute file path" },
        { "{to: Syslog}",
          "1:11: log: 'to' must be stderr, syslog or an absolute file path" },
    };
    struct rp_diags *d = rp_diags_create ();
    char want[1024];

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        struct rp_config *cfg = load (t[i].log, "{}", d);
        snprintf (want, sizeof (want), "@:%s\n", t[i].error);
        ok (cfg == NULL && errno == EINVAL, "log: %s: refused", t[i].log);
        is (messages (d), expand (want), "log: %s: the error", t[i].log);
        rp_config_destroy (cfg);
    }
    rp_diags_destroy (d);
}

int main (void)
{
    plan (NO_PLAN);
    unsetenv (RP_CONFIG_ENV);
    unsetenv (RP_PLUGIN_PATH_ENV);
    fixtures_setup ("respol-test-log");
    snprintf (cfgpath, sizeof (cfgpath), "%s/respol.yaml", tmpdir);
    test_levels ();
    test_who_decides ();
    test_message ();
    test_syslog ();
    test_file ();
    test_file_refused ();
    test_block_errors ();
    rp_plugin_set_log (NULL, NULL);
    fixtures_cleanup ();
    return done_testing ();
}
