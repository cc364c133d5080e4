/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Helpers shared by the respol subcommands; see cmd.h.
 *
 * cmd_option_error() words every option that getopt_long rejects the same
 * way, with getopt's own "requires an argument".  It reads what glibc
 * leaves behind: optopt is 0 for an unknown or ambiguous long option, the
 * option's val for a known long option given "=value" it does not take or
 * lacking its argument, and the character for a short option; optind has
 * moved past a long option, so argv[optind - 1] is that word.  A short
 * option inside a cluster ("-zq") leaves optind on the cluster, so
 * argv[optind - 1] is an earlier word, maybe an option's separate value
 * that starts with "--": a rejection is taken as one of a long option
 * only when that word names a long option whose val is optopt and which
 * getopt had cause to reject (an "=value" it does not take, or a missing
 * argument with nothing left on the command line).
 *
 * Input is read whole, up to a bound: CMD_INPUT_MAX, or for R the text
 * that the memory limit allows (rp_rset_text_max), checked on a regular
 * file's size before reading it.
 *
 * A known long option is named in full ("--ex=1" reports '--exclusive',
 * as getopt does); an unknown or ambiguous one as typed, up to '='; a
 * short one that is not printable as '-\xNN'.  A name too long for buf
 * is cut and ends in "...", so the message keeps its closing quote.  An
 * unknown long option close to one of longopts (core/suggest.h) gets
 * "; did you mean '--NAME'?", the hint kept whole when the option is cut.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <respol/graph.h>
#include <respol/rset.h>

#include "cmd.h"
#include "core/jscan.h"
#include "core/suggest.h"

static void vwarn (const char *sub, const char *fmt, va_list ap)
{
    fprintf (stderr, "respol: %s: ", sub);
    vfprintf (stderr, fmt, ap);
    fputc ('\n', stderr);
}

void cmd_warn (const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vwarn (sub, fmt, ap);
    va_end (ap);
}

void cmd_die (const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vwarn (sub, fmt, ap);
    va_end (ap);
    exit (EXIT_INPUT);
}

void cmd_usage_error (const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vwarn (sub, fmt, ap);
    va_end (ap);
    fprintf (stderr, "Try 'respol %s --help' for more information.\n", sub);
    exit (EXIT_USAGE);
}

/* "PRE'DASHES+NAME'POST" into buf, NAME being len bytes of name, cut to
 * fit. */
static const char *option_message (char *buf, size_t size, const char *pre,
                                   const char *dashes, const char *name,
                                   size_t len, const char *post)
{
    size_t fixed = strlen (pre) + strlen (dashes) + strlen (post) + 2;
    const char *cut = "";

    if (fixed + len >= size && size > fixed + 3) {
        len = size - fixed - 4;
        cut = "...";
    }
    snprintf (buf, size, "%s'%s%.*s%s'%s", pre, dashes, (int)len, name, cut,
              post);
    return buf;
}

/* optstring without its leading '+' or '-' (getopt's scanning mode). */
static const char *short_options (const char *optstring)
{
    if (*optstring == '+' || *optstring == '-')
        optstring++;
    return optstring;
}

/* Does short option c take a required argument ("c:" but not "c::")?
 * ':' and ';' are never options, as in glibc. */
static bool short_needs_arg (const char *optstring, int c)
{
    const char *s = short_options (optstring);
    const char *p;

    if (c == 0 || c == ':' || c == ';' || !(p = strchr (s, c)))
        return false;
    return p[1] == ':' && p[2] != ':';
}

/* The long option whose val is optopt and whose name is the len bytes at
 * name, exactly, else as an abbreviation; NULL if there is none. */
static const struct option *find_long (const struct option *longopts,
                                       const char *name, size_t len)
{
    const struct option *found = NULL;

    for (const struct option *o = longopts; o && o->name; o++) {
        if (o->val != optopt || strncmp (o->name, name, len) != 0)
            continue;
        if (!found || strlen (o->name) == len)
            found = o;
    }
    return found;
}

/* The long option that the word arg, rejected by getopt_long, names, if
 * getopt had cause to reject it: a value it does not take, or no value
 * when it needs one and arg was the last word.  NULL if there is none:
 * the option was a short one. */
static const struct option *rejected_long (const struct option *longopts,
                                           const char *arg, bool last)
{
    const struct option *o;
    size_t len;

    if (strncmp (arg, "--", 2) != 0)
        return NULL;
    len = strcspn (arg + 2, "=");
    if (!(o = find_long (longopts, arg + 2, len)))
        return NULL;
    if (arg[2 + len] == '=' && o->has_arg == no_argument)
        return o;
    if (arg[2 + len] == '\0' && o->has_arg == required_argument && last)
        return o;
    return NULL;
}

static const char *short_error (char *buf, size_t size, int c,
                                const char *optstring)
{
    bool colon = *short_options (optstring) == ':';
    char name[8];

    if (isprint ((unsigned char)optopt))
        snprintf (name, sizeof (name), "%c", optopt);
    else
        snprintf (name, sizeof (name), "\\x%02x", (unsigned char)optopt);
    if (c == ':' || (!colon && short_needs_arg (optstring, optopt)))
        return option_message (buf, size, "option ", "-", name, strlen (name),
                               " requires an argument");
    return option_message (buf, size, "unknown option ", "-", name,
                           strlen (name), "");
}

/* "unknown option 'ARG'" for the unknown long option arg ("--name" or
 * "--name=value"), with the closest of longopts. */
static const char *unknown_long (char *buf, size_t size, const char *arg,
                                 const struct option *longopts)
{
    char hint[SUGGEST_MAX + 32], name[SUGGEST_MAX + 8] = "";
    size_t len = strcspn (arg, "=");
    struct suggest s;

    /* A name too long to be close to any is not copied. */
    if (!strncmp (arg, "--", 2) && len - 2 < sizeof (name))
        snprintf (name, sizeof (name), "%.*s", (int)(len - 2), arg + 2);
    suggest_init (&s, name);
    for (const struct option *o = longopts; o && o->name; o++)
        suggest_add (&s, o->name, strlen (o->name), 0);
    suggest_hint (&s, "--", hint, sizeof (hint));
    return option_message (buf, size, "unknown option ", "", arg, len, hint);
}

const char *cmd_option_error (char *buf, size_t size, int c, char **argv,
                              const char *optstring,
                              const struct option *longopts)
{
    const char *arg = optind > 0 ? argv[optind - 1] : "";
    const struct option *o;

    if (optopt == 0)
        return unknown_long (buf, size, arg, longopts);
    if (!(o = rejected_long (longopts, arg, argv[optind] == NULL)))
        return short_error (buf, size, c, optstring);
    if (o->has_arg == no_argument)
        return option_message (buf, size, "option ", "--", o->name,
                               strlen (o->name), " takes no argument");
    return option_message (buf, size, "option ", "--", o->name,
                           strlen (o->name), " requires an argument");
}

/* Read stream into a NUL terminated buffer until its end or until more
 * than max bytes were read (*over set, the rest left unread); the buffer
 * grows by doubling up to max + 2 bytes. */
static char *read_upto (const char *sub, FILE *stream, size_t max, size_t *lenp,
                        bool *over)
{
    size_t size = 8192;
    size_t len = 0;
    char *buf = malloc (size);

    *over = false;
    if (!buf)
        cmd_die (sub, "out of memory");
    for (;;) {
        size_t n = fread (buf + len, 1, size - len - 1, stream);
        len += n;
        if (len > max) {
            *over = true;
            break;
        }
        if (n == 0)
            break;
        if (len + 1 == size) {
            size = size - 2 < max / 2 ? size * 2 : max + 2;
            char *nbuf = realloc (buf, size);
            if (!nbuf)
                cmd_die (sub, "out of memory");
            buf = nbuf;
        }
    }
    if (ferror (stream))
        cmd_die (sub, "read error: %s", strerror (errno));
    buf[len] = '\0';
    *lenp = len;
    return buf;
}

char *cmd_read_all (const char *sub, FILE *stream, size_t *lenp)
{
    size_t len;
    bool over;
    char *buf = read_upto (sub, stream, CMD_INPUT_MAX, &len, &over);

    if (over)
        cmd_die (sub, "input is larger than %zu bytes", CMD_INPUT_MAX);
    if (lenp)
        *lenp = len;
    return buf;
}

uint64_t cmd_memory_limit (const char *sub, const char *option)
{
    const char *text = option ? option : getenv ("RESPOL_MAX_MEMORY");
    uint64_t bytes;
    rp_error_t error;

    if (!text)
        return rp_graph_memory_limit ();
    if (rp_graph_memory_parse (text, &bytes, &error) < 0) {
        if (option)
            cmd_usage_error (sub, "--max-memory: %s", error.text);
        cmd_die (sub, "RESPOL_MAX_MEMORY: %s", error.text);
    }
    rp_graph_set_memory_limit (bytes);
    return bytes;
}

static void rset_too_large (const char *sub, const char *name, size_t max,
                            uint64_t limit)
{
    cmd_die (sub,
             "%s: more than %zu bytes of R, the most that the memory limit"
             " of %" PRIu64 " MiB allows",
             name, max, limit >> 20);
}

char *cmd_read_rset (const char *sub, FILE *stream, const char *name,
                     size_t *lenp)
{
    uint64_t limit = rp_graph_memory_limit ();
    size_t max = rp_rset_text_max (limit), len;
    struct stat st;
    bool over;
    char *buf;

    if (fstat (fileno (stream), &st) == 0 && S_ISREG (st.st_mode)
        && (uintmax_t)st.st_size > max)
        rset_too_large (sub, name, max, limit);
    buf = read_upto (sub, stream, max, &len, &over);
    if (over) {
        free (buf);
        rset_too_large (sub, name, max, limit);
    }
    if (lenp)
        *lenp = len;
    return buf;
}

json_t *cmd_json_stream (const char *sub, const char *buf, size_t len)
{
    json_t *array = json_array ();
    size_t off = 0;

    if (!array)
        cmd_die (sub, "out of memory");
    for (;;) {
        json_error_t jerr;
        json_t *o;

        while (off < len && strchr (" \t\r\n", buf[off]))
            off++;
        if (off == len)
            break;
        o = json_loadb (buf + off, len - off, JSON_DISABLE_EOF_CHECK, &jerr);
        if (!o) {
            /* jansson's line is relative to buf + off: report the absolute
             * line by counting the newlines we skipped. */
            int line = jerr.line;
            for (size_t i = 0; i < off; i++)
                if (buf[i] == '\n')
                    line++;
            cmd_die (sub, "stdin: line %d: %s", line, jerr.text);
        }
        json_array_append_new (array, o);
        off += jerr.position;
    }
    return array;
}

json_t *cmd_read_json_stream (const char *sub, FILE *stream)
{
    size_t len;
    char *buf;
    json_t *array;

    cmd_memory_limit (sub, NULL);
    buf = cmd_read_rset (sub, stream, "stdin", &len);
    array = cmd_json_stream (sub, buf, len);
    free (buf);
    return array;
}

void cmd_rsets_free (struct rp_rset **r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rp_rset_destroy (r[i]);
    free (r);
}

/* The object at *off decoded from its own text (NUL-terminated in place
 * for the time), *off moved past it; NULL where that does not go. */
static struct rp_rset *decode_next (char *buf, size_t *off)
{
    struct jscan s = { .p = buf + *off };
    const char *v;
    size_t vlen;
    struct rp_rset *r;
    rp_error_t error;
    char saved;

    if (buf[*off] != '{' || !jscan_value (&s, &v, &vlen))
        return NULL;
    saved = buf[*off + vlen];
    buf[*off + vlen] = '\0';
    r = rp_rset_decode (v, &error);
    buf[*off + vlen] = saved;
    *off += vlen;
    return r;
}

struct rp_rset **cmd_decode_rsets (char *buf, size_t len, size_t *np)
{
    struct rp_rset **r = NULL, **nr;
    size_t n = 0, off = 0;

    for (;;) {
        while (off < len && strchr (" \t\r\n", buf[off]))
            off++;
        if (off == len)
            break;
        if (!(nr = realloc (r, (n + 1) * sizeof (*r)))
            || !(nr[n] = decode_next (buf, &off))) {
            cmd_rsets_free (nr ? nr : r, n);
            return NULL;
        }
        r = nr;
        n++;
    }
    *np = n;
    return r ? r : calloc (1, sizeof (*r));
}

const char *cmd_R_text (const rp_error_t *error)
{
    if (!strncmp (error->text, "R: ", 3))
        return error->text + 3;
    return error->text;
}

const char *cmd_stdin_object (size_t i, size_t n)
{
    static char buf[64];

    if (n == 1)
        return "stdin";
    snprintf (buf, sizeof (buf), "stdin: object %zu", i + 1);
    return buf;
}

struct rp_rset **cmd_read_rsets (const char *cmd, const char *sub, size_t *np)
{
    char prog[64];
    json_t *a;
    struct rp_rset **r;
    rp_error_t error;
    char *buf;
    size_t len, n;

    snprintf (prog, sizeof (prog), "%s: %s", cmd, sub);
    cmd_memory_limit (prog, NULL);
    buf = cmd_read_rset (prog, stdin, "stdin", &len);
    if ((r = cmd_decode_rsets (buf, len, &n))) {
        free (buf);
        if (n == 0) {
            free (r);
            cmd_die (cmd, "%s: no R on stdin", sub);
        }
        *np = n;
        return r;
    }
    a = cmd_json_stream (prog, buf, len);
    free (buf);
    n = json_array_size (a);
    if (n == 0 || !(r = calloc (n, sizeof (r[0])))) {
        json_decref (a);
        cmd_die (cmd, "%s: %s", sub, n ? "out of memory" : "no R on stdin");
    }
    for (size_t i = 0; i < n; i++) {
        if (!(r[i] = rp_rset_from_json (json_array_get (a, i), &error))) {
            char where[64];
            snprintf (where, sizeof (where), "%s", cmd_stdin_object (i, n));
            cmd_rsets_free (r, n);
            json_decref (a);
            cmd_die (cmd, "%s: %s: %s", sub, where, cmd_R_text (&error));
        }
    }
    json_decref (a);
    *np = n;
    return r;
}

int cmd_fold_add (struct rp_rset **acc, const struct rp_rset *r,
                  rp_error_t *error)
{
    return rp_rset_add (*acc, r, error);
}

struct rp_rset *cmd_read_fold (const char *cmd, const char *sub,
                               cmd_fold_fn fn)
{
    size_t n;
    struct rp_rset **r = cmd_read_rsets (cmd, sub, &n);
    struct rp_rset *acc = r[0];
    rp_error_t error;

    r[0] = NULL;
    for (size_t i = 1; i < n; i++) {
        if (fn (&acc, r[i], &error) < 0) {
            char where[64];
            snprintf (where, sizeof (where), "%s", cmd_stdin_object (i, n));
            rp_rset_destroy (acc);
            cmd_rsets_free (r, n); /* what was read, freed before dying */
            cmd_die (cmd, "%s: %s: %s", sub, where, cmd_R_text (&error));
        }
    }
    cmd_rsets_free (r, n);
    return acc;
}

void cmd_print_json (const json_t *o)
{
    char *s = json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
    if (!s)
        cmd_die ("json", "out of memory");
    printf ("%s\n", s);
    free (s);
}

void cmd_bad_option (const char *sub, const char *prefix, int c, char **argv,
                     const char *optstring, const struct option *longopts)
{
    char buf[CMD_OPTION_ERROR_SIZE];

    cmd_usage_error (
        sub, "%s%s", prefix,
        cmd_option_error (buf, sizeof (buf), c, argv, optstring, longopts));
}

size_t cmd_print_diags (const char *sub, const struct rp_diags *d)
{
    for (size_t i = 0; i < rp_diags_count (d); i++) {
        bool warning = rp_diags_severity (d, i) == RP_DIAG_WARNING;
        fprintf (stderr, "respol: %s: %s%s\n", sub, warning ? "warning: " : "",
                 rp_diags_text (d, i));
    }
    return rp_diags_errors (d);
}

/* --- plugin logs --------------------------------------------------------- */

static int verbosity; /* how many -v */

void cmd_verbose (void)
{
    verbosity++;
}

int cmd_log_level (const char *sub)
{
    static bool warned;
    const char *env = secure_getenv ("RESPOL_LOG");
    int level;

    if (verbosity)
        return verbosity == 1 ? RP_LOG_INFO : RP_LOG_DEBUG;
    if (!env || !*env)
        return 0;
    if ((level = rp_log_level_parse (env)) > 0)
        return level;
    if (!warned)
        cmd_warn (sub,
                  "warning: RESPOL_LOG: unknown level '%s' (err, warning, "
                  "notice, info, debug, or 3 to 7); ignored",
                  env);
    warned = true;
    return 0;
}

static void plugin_log (const char *instance, int level, const char *msg,
                        void *arg)
{
    fprintf (stderr, "respol: %s: %s: %s: %s\n", (const char *)arg, instance,
             rp_log_level_name (level), msg);
}

struct rp_config *cmd_load_config (const char *sub, const char *path)
{
    return cmd_load_config_flags (sub, path, 0);
}

struct rp_config *cmd_load_config_flags (const char *sub, const char *path,
                                         int flags)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    int saved_errno;

    if (!d)
        cmd_die (sub, "out of memory");
    rp_plugin_set_log (plugin_log, (void *)sub);
    rp_plugin_set_log_level (cmd_log_level (sub));
    cfg = rp_config_load (path, flags, d);
    saved_errno = errno;
    cmd_print_diags (sub, d);
    if (!cfg && rp_diags_count (d) == 0)
        cmd_die (sub, "%s", strerror (saved_errno));
    rp_diags_destroy (d);
    return cfg;
}

struct rp_jobspec *cmd_load_jobspec (const char *sub, const char *path,
                                     enum rp_jobspec_profile profile)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js;
    int saved_errno;

    if (!d)
        cmd_die (sub, "out of memory");
    js = rp_jobspec_load_file (path, profile, d);
    saved_errno = errno;
    cmd_print_diags (sub, d);
    if (!js && rp_diags_errors (d) == 0)
        cmd_die (sub, "%s: %s", path, strerror (saved_errno));
    rp_diags_destroy (d);
    if (!js)
        exit (EXIT_INPUT);
    return js;
}

const char *cmd_format_duration (double seconds, char *buf, size_t size)
{
    static const struct {
        double unit;
        const char *suffix;
    } units[] = { { 86400, "d" }, { 3600, "h" }, { 60, "m" } };

    for (size_t i = 0; i < sizeof (units) / sizeof (units[0]); i++) {
        if (seconds >= units[i].unit) {
            snprintf (buf, size, "%g%s", seconds / units[i].unit,
                      units[i].suffix);
            return buf;
        }
    }
    snprintf (buf, size, "%gs", seconds);
    return buf;
}

/* hwloc's plugins that discovering this machine for a job does not need:
 * "gl" finds displays (X servers it tries to connect to), not compute
 * GPUs, and "xml_libxml" reads XML (hwloc's own reader does that for
 * exported files).  Loading them costs more than the discovery itself. */
#define HWLOC_SKIP "HWLOC_PLUGINS_BLACKLIST"
static bool hwloc_skip_set;

void cmd_hwloc_quick_begin (void)
{
    if (getenv (HWLOC_SKIP) == NULL
        && setenv (HWLOC_SKIP, "hwloc_gl,hwloc_xml_libxml", 1) == 0)
        hwloc_skip_set = true;
}

void cmd_hwloc_quick_end (void)
{
    if (hwloc_skip_set)
        unsetenv (HWLOC_SKIP);
    hwloc_skip_set = false;
}
