/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol query: a resource graph (RFC 4) and its jobs, driven by a
 * script of commands, one per line, in the manner of Fluxion's
 * resource-query:
 *
 *   match allocate FILE          allocate; prints the job's id and R
 *   match satisfiability FILE    prints "satisfiable"
 *   free JOBID                   free the whole job
 *   release JOBID IDSET          RFC 27 partial release of those ranks
 *   info JOBID                   print the job's current R
 *   set-state NAME|RANK up|down|drained
 *   stat                         rp_matcher_stat, as JSON
 *   quit
 *
 * Blank lines and lines whose first non-blank is '#' are skipped; words
 * are separated by blanks.  Commands come from -f FILE, else stdin; on a
 * terminal the prompt "respol> " is printed.
 *
 * Choices a reader would otherwise rediscover:
 * - Job ids are 1, 2, ... given to successful allocations only, so a
 *   failed match does not leave a hole in the numbering.
 * - A failing command prints "respol: query: line N: WORDS: message" on
 *   stderr (WORDS: the command's words, single spaced) and the script
 *   goes on; the exit status is 1 when any command failed, 3 when a
 *   match failed because its policy did (EPROTO).  free, release
 *   and set-state print nothing when they succeed.
 * - A line is read into a fixed buffer: one longer than 64 KiB is
 *   skipped to its end and reported, never stored, so memory does not
 *   grow with the input.
 * - set-state takes a rank (only digits: the execution target of that
 *   rank) or a vertex name, which must name exactly one vertex.  Names
 *   are looked up by a scan of the graph: set-state is rare next to
 *   matching, and names need not be unique (every socket has a core0).
 * - A jobspec named "-" is refused: stdin is the command stream or was
 *   already read.
 * - -F short prints a job on one line, its targets in rank order:
 *     1: node0: core[0-3] gpu[0]; node1: core[0-3] gpu[0]
 *   the ids as RFC 22 idsets, always in brackets; a target with neither
 *   cores nor GPUs (memory only, say) is its host name alone.  What R_lite
 *   cannot say (sockets, memory) is in the JSON form's "scheduling" key.
 * - Jobspec is read with the canonical profile (RFC 14) by default, as
 *   respol match reads it; --profile=v1 restricts it to RFC 25.
 * - --now fixes every starttime (as for respol match); without it each
 *   allocation starts at the current time in whole seconds.
 * - --timing prints how long each match took on stderr:
 *     respol: query: line N: match allocate FILE: 0.000123 s
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <respol/config.h>
#include <respol/graph.h>
#include <respol/idset.h>
#include <respol/jobspec.h>
#include <respol/match.h>
#include <respol/rset.h>

#include "cmd.h"

#define SUB "query"
#define LINE_MAX_BYTES 65536
#define MAX_WORDS 4

enum {
    OPT_HELP = 256,
    OPT_CONFIG,
    OPT_PROFILE,
    OPT_NOW,
    OPT_TIMING,
};

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "config", required_argument, NULL, OPT_CONFIG },
    { "policy", required_argument, NULL, 'P' },
    { "format", required_argument, NULL, 'F' },
    { "profile", required_argument, NULL, OPT_PROFILE },
    { "now", required_argument, NULL, OPT_NOW },
    { "timing", no_argument, NULL, OPT_TIMING },
    { "file", required_argument, NULL, 'f' },
    { "verbose", no_argument, NULL, 'v' },
    CMD_RESOURCE_LONGOPTS,
    { NULL, 0, NULL, 0 },
};
#define SHORTOPTS "hvP:F:f:" CMD_RESOURCE_SHORTOPTS

struct options {
    const char *config;
    const char *policy;
    const char *file;
    struct cmd_resources res;
};

struct query {
    struct rp_matcher *m;
    enum rp_jobspec_profile profile;
    double now; /* < 0: the current time */
    bool short_form;
    bool timing;
    bool stdin_commands;
    uint64_t next_jobid;
    unsigned long line;
    bool failed;
    bool plugin_failed; /* a policy failed (EPROTO) */
    /* the current command: its words and their single spaced text */
    char *words[MAX_WORDS + 1];
    int nwords;
    char text[LINE_MAX_BYTES + 1];
};

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: respol query [OPTIONS] RESOURCE-OPTION\n\n"
             "Read commands, one per line, from FILE or stdin:\n"
             "  match allocate JOBSPEC-FILE       allocate (job ids 1, 2, "
             "...)\n"
             "  match satisfiability JOBSPEC-FILE\n"
             "  free JOBID                        free the whole job\n"
             "  release JOBID IDSET               free the job's ranks in "
             "IDSET\n"
             "  info JOBID                        print the job's R\n"
             "  set-state NAME|RANK up|down|drained\n"
             "  stat                              print what is free, per "
             "type\n"
             "  quit\n\n"
             "Options:\n"
             "      --config=FILE   the plugin configuration (default "
             "$RESPOL_CONFIG,\n"
             "                      else the installed one)\n"
             "  -P, --policy=NAME   the match policy (default: the first "
             "of the match\n"
             "                      stack, else first fit)\n"
             "  -F, --format=NAME   json (default: a jobid=N line, then R) "
             "or short\n"
             "                      (one line per job)\n"
             "  -f, --file=FILE     read commands from FILE, not stdin\n"
             "      --profile=NAME  jobspec profile: canonical (RFC 14, the "
             "default)\n"
             "                      or v1 (RFC 25)\n"
             "      --now=SECONDS   the start time written in R (default: "
             "now)\n"
             "      --timing        print how long each match took, on "
             "stderr\n"
             "  -v, --verbose       print plugin messages up to info "
             "(-vv: debug)\n"
             "  -h, --help          print this message\n\n%s",
             cmd_resources_help);
}

/* --- messages ----------------------------------------------------------- */

static void fail (struct query *q, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* "respol: query: line N: WORDS: message", and remember the failure. */
static void fail (struct query *q, const char *fmt, ...)
{
    va_list ap;

    fprintf (stderr, "respol: %s: line %lu: ", SUB, q->line);
    if (q->nwords > 0)
        fprintf (stderr, "%s: ", q->text);
    va_start (ap, fmt);
    vfprintf (stderr, fmt, ap);
    va_end (ap);
    fputc ('\n', stderr);
    q->failed = true;
}

/* The job id of a command "WORD JOBID ..." that takes nwords words;
 * -1 after a message ("usage: ..." for another count of words). */
static int job_command (struct query *q, int nwords, const char *usage,
                        uint64_t *jobid)
{
    if (q->nwords != nwords) {
        fail (q, "usage: %s", usage);
        return -1;
    }
    if (cmd_parse_jobid (q->words[1], jobid) < 0) {
        fail (q, "'%s' is not a job id", q->words[1]);
        return -1;
    }
    return 0;
}

/* A matcher call about jobid failed: "no job N" (ENOENT), else its
 * message. */
static void fail_job (struct query *q, uint64_t jobid, const rp_error_t *error)
{
    if (errno == ENOENT)
        fail (q, "no job %llu", (unsigned long long)jobid);
    else
        fail (q, "%s", error->text);
}

/* --- printing jobs ------------------------------------------------------- */

/* " TYPE[IDS]" for a non-empty set. */
static void print_ids (const char *type, const struct rp_idset *ids)
{
    char *s;

    if (!ids || rp_idset_empty (ids))
        return;
    if (!(s = rp_idset_encode (ids, RP_IDSET_RANGES)))
        cmd_die (SUB, "out of memory");
    printf (" %s[%s]", type, s);
    free (s);
}

static void print_short (uint64_t jobid, const struct rp_rset *R)
{
    const struct rp_idset *ranks = rp_rset_ranks (R);
    unsigned int rank;
    const char *sep = " ";

    printf ("%llu:", (unsigned long long)jobid);
    for (rank = rp_idset_first (ranks); rank != RP_IDSET_INVALID_ID;
         rank = rp_idset_next (ranks, rank)) {
        printf ("%s%s:", sep, rp_rset_hostname (R, rank));
        print_ids ("core", rp_rset_cores (R, rank));
        print_ids ("gpu", rp_rset_gpus (R, rank));
        sep = "; ";
    }
    putchar ('\n');
}

static void print_job (const struct query *q, uint64_t jobid,
                       const struct rp_rset *R)
{
    char *s;

    if (q->short_form) {
        print_short (jobid, R);
        return;
    }
    if (!(s = rp_rset_encode (R, 0)))
        cmd_die (SUB, "out of memory");
    printf ("jobid=%llu\n%s\n", (unsigned long long)jobid, s);
    free (s);
}

/* --- commands ------------------------------------------------------------ */

static struct rp_jobspec *load_jobspec (struct query *q, const char *path)
{
    struct rp_diags *d;
    struct rp_jobspec *js;
    int saved_errno;

    if (!strcmp (path, "-")) {
        fail (q, "a jobspec file is needed, not stdin");
        return NULL;
    }
    if (!(d = rp_diags_create ()))
        cmd_die (SUB, "out of memory");
    js = rp_jobspec_load_file (path, q->profile, d);
    saved_errno = errno;
    for (size_t i = 0; i < rp_diags_count (d); i++) {
        bool warning = rp_diags_severity (d, i) == RP_DIAG_WARNING;
        fprintf (stderr, "respol: %s: line %lu: %s%s\n", SUB, q->line,
                 warning ? "warning: " : "", rp_diags_text (d, i));
    }
    if (!js && rp_diags_errors (d) == 0)
        fail (q, "%s", strerror (saved_errno));
    if (!js)
        q->failed = true;
    rp_diags_destroy (d);
    return js;
}

static double now_of (const struct query *q)
{
    return q->now >= 0 ? q->now : (double)time (NULL);
}

static double elapsed (const struct timespec *t0)
{
    struct timespec t1;

    clock_gettime (CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec)
           + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static int do_match (struct query *q, bool allocate,
                     const struct rp_jobspec *js, rp_error_t *error)
{
    struct rp_rset *R;

    if (!allocate) {
        if (rp_matcher_satisfiability (q->m, js, error) < 0)
            return -1;
        printf ("satisfiable\n");
        return 0;
    }
    R = rp_matcher_allocate (q->m, q->next_jobid, js, now_of (q), error);
    if (!R)
        return -1;
    print_job (q, q->next_jobid++, R);
    rp_rset_destroy (R);
    return 0;
}

static void cmd_match_line (struct query *q)
{
    bool allocate = q->nwords == 3 && !strcmp (q->words[1], "allocate");
    char buf[sizeof (((rp_error_t *)0)->text) + 32];
    struct rp_jobspec *js;
    struct timespec t0;
    rp_error_t error;

    if (q->nwords != 3
        || (!allocate && strcmp (q->words[1], "satisfiability") != 0)) {
        fail (q, "usage: match allocate|satisfiability JOBSPEC-FILE");
        return;
    }
    if (!(js = load_jobspec (q, q->words[2])))
        return;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    if (do_match (q, allocate, js, &error) < 0) {
        q->plugin_failed |= cmd_match_status (errno) == EXIT_PLUGIN;
        fail (q, "%s", cmd_match_error (&error, errno, buf, sizeof (buf)));
    }
    if (q->timing)
        fprintf (stderr, "respol: %s: line %lu: %s: %.6f s\n", SUB, q->line,
                 q->text, elapsed (&t0));
    rp_jobspec_destroy (js);
}

static void cmd_free_line (struct query *q)
{
    uint64_t jobid;
    rp_error_t error;

    if (job_command (q, 2, "free JOBID", &jobid) < 0)
        return;
    if (rp_matcher_free (q->m, jobid, &error) < 0)
        fail_job (q, jobid, &error);
}

static void cmd_release_line (struct query *q)
{
    struct rp_idset *ranks;
    uint64_t jobid;
    rp_error_t error;

    if (job_command (q, 3, "release JOBID IDSET", &jobid) < 0)
        return;
    if (!(ranks = rp_idset_decode (q->words[2], &error))) {
        fail (q, "%s", error.text);
        return;
    }
    if (rp_matcher_release (q->m, jobid, ranks, &error) < 0)
        fail_job (q, jobid, &error);
    rp_idset_destroy (ranks);
}

static void cmd_info_line (struct query *q)
{
    const struct rp_rset *R;
    uint64_t jobid;

    if (job_command (q, 2, "info JOBID", &jobid) < 0)
        return;
    if (!(R = rp_matcher_job_rset (q->m, jobid))) {
        fail (q, "no job %llu", (unsigned long long)jobid);
        return;
    }
    print_job (q, jobid, R);
}

/* The vertex named name, which must be the only one of that name. */
static rp_vertex_t find_name (struct query *q, const struct rp_graph *g,
                              const char *name)
{
    rp_vertex_t found = RP_VERTEX_NONE;
    size_t n = 0;

    for (rp_vertex_t v = 0; v < rp_graph_nvertices (g); v++) {
        if (strcmp (rp_graph_vertex_name (g, v), name) != 0)
            continue;
        if (n++ == 0)
            found = v;
    }
    if (n == 0)
        fail (q, "no vertex named '%s'", name);
    else if (n > 1)
        fail (q, "%zu vertices are named '%s'", n, name);
    return n == 1 ? found : RP_VERTEX_NONE;
}

static rp_vertex_t find_vertex (struct query *q, const struct rp_graph *g,
                                const char *s)
{
    unsigned long long rank;
    rp_vertex_t v;
    char *end;

    if (s[strspn (s, "0123456789")] != '\0')
        return find_name (q, g, s);
    errno = 0;
    rank = strtoull (s, &end, 10);
    if (errno != 0 || rank > INT64_MAX
        || (v = rp_graph_rank_vertex (g, (int64_t)rank)) == RP_VERTEX_NONE) {
        fail (q, "no execution target of rank %s", s);
        return RP_VERTEX_NONE;
    }
    return v;
}

static void cmd_set_state_line (struct query *q)
{
    struct rp_graph *g = rp_matcher_graph (q->m);
    enum rp_vertex_state state;
    rp_error_t error;
    rp_vertex_t v;

    if (q->nwords != 3) {
        fail (q, "usage: set-state NAME|RANK up|down|drained");
        return;
    }
    if (rp_graph_state_parse (q->words[2], &state, &error) < 0) {
        fail (q, "%s", error.text);
        return;
    }
    if ((v = find_vertex (q, g, q->words[1])) == RP_VERTEX_NONE)
        return;
    if (rp_graph_set_state (g, v, state, &error) < 0)
        fail (q, "%s", error.text);
}

static void cmd_stat_line (struct query *q)
{
    json_t *o;

    if (q->nwords != 1) {
        fail (q, "usage: stat");
        return;
    }
    if (!(o = rp_matcher_stat (q->m)))
        cmd_die (SUB, "out of memory");
    cmd_print_json (o);
    json_decref (o);
}

/* --- the loop ------------------------------------------------------------ */

/* Split line into words (at most MAX_WORDS + 1 kept: one more than any
 * command takes, which is enough to say there are too many) and build
 * their single spaced text (never longer than the line). */
static void split (struct query *q, char *line)
{
    char *save = NULL;
    size_t len = 0;

    q->nwords = 0;
    q->text[0] = '\0';
    for (char *w = strtok_r (line, " \t\r\v\f", &save); w;
         w = strtok_r (NULL, " \t\r\v\f", &save)) {
        if (q->nwords <= MAX_WORDS)
            q->words[q->nwords++] = w;
        len += (size_t)snprintf (q->text + len, sizeof (q->text) - len, "%s%s",
                                 len ? " " : "", w);
    }
}

/* Run one line.  Returns false for quit. */
static bool run_line (struct query *q, char *line)
{
    const char *cmd;

    split (q, line);
    if (q->nwords == 0 || q->words[0][0] == '#')
        return true;
    cmd = q->words[0];
    if (!strcmp (cmd, "quit") && q->nwords == 1)
        return false;
    if (!strcmp (cmd, "quit"))
        fail (q, "usage: quit");
    else if (!strcmp (cmd, "match"))
        cmd_match_line (q);
    else if (!strcmp (cmd, "free"))
        cmd_free_line (q);
    else if (!strcmp (cmd, "release"))
        cmd_release_line (q);
    else if (!strcmp (cmd, "info"))
        cmd_info_line (q);
    else if (!strcmp (cmd, "set-state"))
        cmd_set_state_line (q);
    else if (!strcmp (cmd, "stat"))
        cmd_stat_line (q);
    else
        fail (q, "unknown command '%s'", cmd);
    return true;
}

/* Read one line into buf (size LINE_MAX_BYTES + 2), without its newline.
 * Returns 1, 0 at end of input, or -1 for a line that was too long (read
 * to its end and dropped). */
static int read_line (FILE *f, char *buf, size_t size)
{
    size_t len;
    int c;

    if (!fgets (buf, (int)size, f))
        return 0;
    len = strlen (buf);
    if (len > 0 && buf[len - 1] == '\n') {
        buf[len - 1] = '\0';
        return 1;
    }
    if (len < size - 1)
        return 1; /* the last line, without a newline */
    while ((c = getc (f)) != EOF && c != '\n')
        ;
    return -1;
}

static void loop (struct query *q, FILE *f)
{
    static char buf[LINE_MAX_BYTES + 2];
    bool prompt = q->stdin_commands && isatty (STDIN_FILENO);
    int rc;

    for (;;) {
        if (prompt) {
            printf ("respol> ");
            fflush (stdout);
        }
        if ((rc = read_line (f, buf, sizeof (buf))) == 0)
            break;
        q->line++;
        q->nwords = 0;
        if (rc < 0)
            fail (q, "line longer than %d bytes", LINE_MAX_BYTES);
        else if (!run_line (q, buf))
            break;
        fflush (stdout);
    }
    if (ferror (f))
        cmd_die (SUB, "read error: %s", strerror (errno));
    if (prompt && rc == 0)
        putchar ('\n');
}

/* --- options ------------------------------------------------------------- */

static void set_option (struct options *o, struct query *q, int c)
{
    if (c == 'v')
        cmd_verbose ();
    else if (c == OPT_CONFIG)
        o->config = optarg;
    else if (c == 'P')
        o->policy = optarg;
    else if (c == 'f')
        o->file = optarg;
    else if (c == OPT_TIMING)
        q->timing = true;
    else if (c == 'F') {
        if (strcmp (optarg, "json") != 0 && strcmp (optarg, "short") != 0)
            cmd_usage_error (SUB, "unknown format '%s'", optarg);
        q->short_form = !strcmp (optarg, "short");
    } else if (c == OPT_PROFILE) {
        if (rp_jobspec_profile_parse (optarg, &q->profile) < 0)
            cmd_usage_error (SUB, "unknown profile '%s'", optarg);
    } else if (cmd_parse_now (optarg, &q->now) < 0)
        cmd_usage_error (SUB, "--now: '%s' is not a number of seconds", optarg);
}

static void parse_options (struct options *o, struct query *q, int argc,
                           char **argv)
{
    static const struct cmd_getopt getopts = { SUB, SHORTOPTS, opts, OPT_HELP,
                                               usage };
    int c;

    optind = 0;
    while ((c = cmd_resources_getopt (&getopts, &o->res, argc, argv)) != -1)
        set_option (o, q, c);
    if (optind < argc)
        cmd_usage_error (SUB, "unexpected argument '%s'", argv[optind]);
    q->stdin_commands = !o->file || !strcmp (o->file, "-");
    if (q->stdin_commands && cmd_resources_stdin (&o->res))
        cmd_usage_error (SUB, "the commands and the resources cannot both "
                              "be stdin");
}

static FILE *open_commands (const struct options *o, const struct query *q)
{
    FILE *f;

    if (q->stdin_commands)
        return stdin;
    if (!(f = fopen (o->file, "r")))
        cmd_die (SUB, "%s: %s", o->file, strerror (errno));
    return f;
}

int cmd_query (int argc, char **argv)
{
    struct options o = { 0 };
    struct query *q = calloc (1, sizeof (*q));
    struct rp_config *cfg;
    struct rp_graph *g;
    int status;
    FILE *f;

    if (!q)
        cmd_die (SUB, "out of memory");
    q->profile = RP_JOBSPEC_CANONICAL;
    q->now = -1;
    q->next_jobid = 1;
    parse_options (&o, q, argc, argv);
    g = cmd_resources_load (SUB, &o.res);
    cfg = cmd_match_config (SUB, o.config);
    q->m = cmd_matcher_create (SUB, g, cfg, o.policy);
    f = open_commands (&o, q);
    loop (q, f);
    if (f != stdin)
        fclose (f);
    rp_matcher_destroy (q->m);
    rp_config_destroy (cfg);
    status = q->plugin_failed ? EXIT_PLUGIN : q->failed ? EXIT_INPUT : 0;
    free (q);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return status;
}
