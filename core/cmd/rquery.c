/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol query: a resource graph (RFC 4) and its jobs, driven by a
 * script of commands, one per line, in the manner of Fluxion's
 * resource-query:
 *
 *   match allocate [WHO] FILE    validate, then allocate now; prints the
 *                                job's id and R (or that it is held)
 *   match satisfiability FILE    prints "satisfiable"
 *   match allocate_orelse_reserve [WHO] FILE
 *                                allocate now, else reserve at the
 *                                earliest time the job fits (its
 *                                duration); prints its id, "at=T
 *                                allocated|reserved" and R
 *   submit [WHO] FILE            validate and queue the job (pending or
 *                                held), allocating nothing
 *   schedule                     start the queued jobs that can start, in
 *                                submission order
 *   free JOBID                   free the whole job (or cancel a queued one)
 *   release JOBID IDSET          RFC 27 partial release of those ranks
 *   info JOBID                   print the job's current R (or its state)
 *   jobs                         every job: state, user, account, queue
 *   usage user NAME|UID          what a user / an account runs now
 *   usage account NAME
 *   set-state NAME|RANK up|down|drained
 *   stat                         rp_matcher_stat, as JSON, with the
 *                                execution targets per state
 *   acquire FILE|-               apply an RFC 28 acquisition stream
 *   hello R-FILE [FREE]          RFC 27 hello: a running job's R
 *   quit
 *
 * WHO is any of --user=NAME|UID, --account=NAME, --queue=NAME for that
 * job (the command line's, else the caller and the jobspec's bank and
 * queue: respol/context.h).
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
 * - A jobspec file is parsed once per content: the query keeps the last
 *   16 files it parsed, each with the text it was read from and the
 *   file's status then; the same text is not parsed again (its warnings
 *   are printed again), an edited file is.  A file is read again unless
 *   its status (device, inode, size, mtime, ctime) is what it was and its
 *   ctime was 2 s older than the clock before that read: an edit after
 *   the read sets a later ctime, even where file systems keep whole (or
 *   even) seconds; one within 2 s of the read makes the file read again
 *   until it is older.  Opening and reading a file cost 4 us of system
 *   time a line, a stat 1 us: a file's status is asked once per batch
 *   of commands (the lines one read(2) of the commands gave), not per
 *   line.  Every line of a batch was written before the batch was read,
 *   and its status asked after that read: an edit made before any line
 *   of the batch was written is seen, as when it is asked per line.
 *   Jobs share the parsed jobspec (rp_jobspec_copy).  The user of a
 *   job's WHO is looked up once per --user word, not per job.
 * - Commands are read with read(2) into a buffer of two lines' bounds, and
 *   stdout is flushed when the buffer is empty, before the read that may
 *   wait (after every command when stdout and stderr are one file, so
 *   their lines stay in order): a driver reads each answer before it
 *   writes the next command, and a stream of commands costs no write
 *   each.
 * - -F rv1_nosched prints R without the scheduling key (as Fluxion's
 *   resource-query -F rv1_nosched), and the matcher then does not write
 *   the key for allocations (rp_matcher_set_scheduling).
 * - --now fixes every starttime (as for respol match); without it each
 *   allocation starts at the current time in whole seconds.
 * - --timing prints how long each match took on stderr:
 *     respol: query: line N: match allocate FILE: 0.000001234 s
 *   in seconds to the nanosecond (a match takes a few microseconds:
 *   whole microseconds would hide the difference of two builds).
 * - The query is an instance (respol/instance.h): its jobs have a
 *   submission context, validators and match policies see it and the
 *   instance's usage, and every plugin with a job_event operation sees
 *   jobs accepted, held, released, started and finished.  The
 *   configuration's validator stack runs on every job submitted (match
 *   allocate, submit) and again on every queued job before schedule
 *   starts it: a rejection fails the line (no job id is used), a hold
 *   queues the job with its reason ("2: held: user-limits: ...").
 * - schedule is first come, first served among the jobs that are not
 *   held: the first one that cannot start now stops the pass (the jobs
 *   behind it wait); a held job is passed over; a job that can never
 *   start is rejected and forgotten ("3: rejected: never satisfiable:
 *   ...").  Queue policies with reservations and backfill come with the
 *   planner.
 * - acquire reads one JSON object per line (RFC 28 responses, as `respol
 *   resource acquire` prints them).  An initial response replaces the
 *   resources and forgets the jobs, as a scheduler that reloads does
 *   (hello brings them back); later ones apply to it (respol/acquire.h).
 *   A bad response stops the file there: "FILE:LINE: message".
 * - hello gives the next job id to a job that holds R less the ranks of
 *   FREE (an RFC 22 idset, RFC 27's "free"), prints it as allocate does,
 *   and fails naming the job: "hello: job 3: rank 9: no such execution
 *   target".
 * - stat adds "targets": the execution targets that are up, down,
 *   drained, and removed by an acquisition stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <respol/acquire.h>
#include <respol/config.h>
#include <respol/context.h>
#include <respol/document.h>
#include <respol/eventlog.h>
#include <respol/graph.h>
#include <respol/idset.h>
#include <respol/instance.h>
#include <respol/jobspec.h>
#include <respol/match.h>
#include <respol/rset.h>

#include "cmd.h"

#define SUB "query"
#define LINE_MAX_BYTES 65536
#define MAX_WORDS 8

enum {
    OPT_HELP = 256,
    OPT_CONFIG,
    OPT_PROFILE,
    OPT_NOW,
    OPT_TIMING,
    OPT_EXPLAIN,
};

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "config", required_argument, NULL, OPT_CONFIG },
    { "policy", required_argument, NULL, 'P' },
    { "format", required_argument, NULL, 'F' },
    { "profile", required_argument, NULL, OPT_PROFILE },
    { "now", required_argument, NULL, OPT_NOW },
    { "timing", no_argument, NULL, OPT_TIMING },
    { "explain", no_argument, NULL, OPT_EXPLAIN },
    { "file", required_argument, NULL, 'f' },
    { "verbose", no_argument, NULL, 'v' },
    CMD_WHO_LONGOPTS,
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

#define CACHE_FILES 16

/* A jobspec file as it was read and parsed, with what the load said. */
struct jobspec_cache {
    char *path;
    char *text;
    size_t len;
    struct rp_jobspec *js;
    char **warnings;
    size_t nwarnings;
    uint64_t used; /* query clock of the last use: the oldest goes first */
    struct stat st; /* the file as it was when text was read */
    bool trusted;   /* st proves text: changed since st.st_ctim long before */
    uint64_t batch; /* the batch of commands in which st proved text */
};

struct query {
    struct rp_matcher *m;
    struct rp_acquire_consumer *consumer; /* owns m when set */
    struct rp_config *cfg;
    const char *policy;
    struct rp_instance *inst;
    bool validators;    /* cfg has a validate stack */
    struct cmd_who who; /* the command line's WHO */
    enum rp_jobspec_profile profile;
    double now; /* < 0: the current time */
    bool short_form;
    bool nosched; /* -F rv1_nosched */
    bool timing;
    bool explain;
    bool stdin_commands;
    uint64_t next_jobid;
    unsigned long line;
    bool failed;
    bool plugin_failed; /* a policy failed (EPROTO) */
    /* jobspec files parsed, by path, each with the text it was read
     * from (struct jobspec_cache), and the user of the last job's WHO */
    struct jobspec_cache *cache;
    size_t ncache;
    uint64_t cache_clock;
    uint64_t batch; /* the commands' reads so far: the current line's batch */
    struct rp_context *user_ctx;
    char *user_key; /* its --user word, "" for the caller */
    /* the last job's context, the next job's too when it is made the
     * same way: the same user, the same jobspec (a reference held, so that
     * its address names it) and the same --account and --queue words */
    struct rp_context *job_ctx;
    struct rp_jobspec *job_ctx_js;
    char *job_ctx_account;
    char *job_ctx_queue;
    /* the current command: its words and their single spaced text */
    char *words[MAX_WORDS + 1];
    int nwords;
    char text[LINE_MAX_BYTES + 1];
    /* the text of the last R printed: its buffer kept for the next */
    char *rtext;
    size_t rtextsize;
};

static void usage (FILE *f)
{
    fprintf (f,
             "Usage: respol query [OPTIONS] RESOURCE-OPTION\n\n"
             "Read commands, one per line, from FILE or stdin:\n"
             "  match allocate [WHO] JOBSPEC-FILE validate, allocate (job "
             "ids 1, 2, ...)\n"
             "  match satisfiability JOBSPEC-FILE\n"
             "  match allocate_orelse_reserve [WHO] JOBSPEC-FILE\n"
             "                                    allocate now, else reserve "
             "at the earliest\n"
             "                                    time it fits\n"
             "  submit [WHO] JOBSPEC-FILE         validate and queue "
             "(pending or held)\n"
             "  schedule                          start queued jobs, first "
             "come first served\n"
             "  free JOBID                        free the whole job\n"
             "  release JOBID IDSET               free the job's ranks in "
             "IDSET\n"
             "  info JOBID                        print the job's R\n"
             "  jobs                              list the jobs\n"
             "  usage user NAME|UID | usage account NAME\n"
             "  set-state NAME|RANK up|down|drained\n"
             "  stat                              print what is free, per "
             "type\n"
             "  acquire FILE|-                    apply an RFC 28 "
             "acquisition stream\n"
             "  hello R-FILE [FREE]               RFC 27 hello: a running "
             "job's R\n"
             "  quit\n"
             "WHO: --user=NAME|UID --account=NAME --queue=NAME (for match "
             "allocate and\n"
             "submit; the defaults are the options below).\n\n"
             "Options:\n"
             "      --config=FILE   the plugin configuration (default "
             "$RESPOL_CONFIG,\n"
             "                      else the installed one)\n"
             "  -P, --policy=NAME   the match policy (default: the first "
             "of the match\n"
             "                      stack, else first fit)\n"
             "  -F, --format=NAME   json (default: a jobid=N line, then R), "
             "rv1_nosched\n"
             "                      (the same, R without its scheduling "
             "key) or short\n"
             "                      (one line per job)\n"
             "  -f, --file=FILE     read commands from FILE, not stdin\n"
             "      --profile=NAME  jobspec profile: canonical (RFC 14, the "
             "default)\n"
             "                      or v1 (RFC 25)\n"
             "      --now=SECONDS   the start time written in R (default: "
             "now)\n"
             "      --timing        print how long each match took, on "
             "stderr\n"
             "      --explain       say why each match came out as it did, "
             "on stderr\n"
             "  -v, --verbose       print plugin messages up to info "
             "(-vv: debug)\n" CMD_WHO_HELP
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

/* "jobid=N\n", written digit by digit: printf was 700 instructions of
 * a command. */
static void put_jobid (uint64_t id)
{
    char buf[32], *p = buf + sizeof (buf);

    *--p = '\n';
    do
        *--p = (char)('0' + id % 10);
    while ((id /= 10) > 0);
    memcpy (p -= 6, "jobid=", 6);
    fwrite (p, 1, (size_t)(buf + sizeof (buf) - p), stdout);
}

/* A job's R, after its start when it has one (match
 * allocate_orelse_reserve, info of a reservation). */
static void print_job_at (struct query *q, uint64_t jobid,
                          const struct rp_rset *R, bool at)
{
    struct rp_rset *bare = NULL;
    double start = 0;
    bool reserved = false;
    ssize_t len;

    if (at)
        (void)rp_matcher_job_time (q->m, jobid, &start, NULL, &reserved);
    if (at && q->short_form)
        printf ("%llu: at=%.0f %s\n", (unsigned long long)jobid, start,
                reserved ? "reserved" : "allocated");
    if (q->short_form) {
        print_short (jobid, R);
        return;
    }
    /* -F rv1_nosched: R as the matcher returns it without the key; the R
     * of info and hello has it */
    if (q->nosched && rp_rset_scheduling (R)
        && (!(R = bare = rp_rset_copy (R))
            || rp_rset_set_scheduling (bare, NULL) < 0))
        cmd_die (SUB, "out of memory");
    if ((len = rp_rset_encode_buf (R, 0, &q->rtext, &q->rtextsize)) < 0)
        cmd_die (SUB, "out of memory");
    put_jobid (jobid);
    if (at)
        printf ("at=%.0f %s\n", start, reserved ? "reserved" : "allocated");
    q->rtext[len] = '\n'; /* the NUL: the line is written whole */
    fwrite (q->rtext, 1, (size_t)len + 1, stdout);
    rp_rset_destroy (bare);
}

static void print_job (struct query *q, uint64_t jobid,
                       const struct rp_rset *R)
{
    print_job_at (q, jobid, R, false);
}

/* --- commands ------------------------------------------------------------ */

static void cache_entry_clear (struct jobspec_cache *c)
{
    free (c->path);
    free (c->text);
    rp_jobspec_destroy (c->js);
    for (size_t i = 0; i < c->nwarnings; i++)
        free (c->warnings[i]);
    free (c->warnings);
    memset (c, 0, sizeof (*c));
}

static void cache_destroy (struct query *q)
{
    for (size_t i = 0; i < q->ncache; i++)
        cache_entry_clear (&q->cache[i]);
    free (q->cache);
}

/* The whole of a regular file of at most RP_DOC_MAX_BYTES, with its
 * status in *st, or NULL (then the jobspec reader opens it itself and says
 * what is wrong).  One read of the size and one more byte: a regular file
 * gives less only at its end. */
static char *read_small (const char *path, size_t *len, struct stat *st)
{
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    char *buf = NULL;
    ssize_t n;

    if (fd < 0)
        return NULL;
    if (fstat (fd, st) == 0 && S_ISREG (st->st_mode)
        && (uint64_t)st->st_size <= RP_DOC_MAX_BYTES
        && (buf = malloc ((size_t)st->st_size + 1))) {
        do
            n = read (fd, buf, (size_t)st->st_size + 1);
        while (n < 0 && errno == EINTR);
        if (n < 0 || n > st->st_size) {
            free (buf);
            buf = NULL;
        } else
            *len = (size_t)n;
    }
    close (fd);
    return buf;
}

/* The margin past a file's last change after which its status proves its
 * text: a change made after the file was read sets a later st_ctim, even
 * on file systems that keep whole or even seconds. */
#define CACHE_TRUST_NS 2000000000LL

static long long ns_of (const struct timespec *t)
{
    return (long long)t->tv_sec * 1000000000LL + t->tv_nsec;
}

/* Remember that c's text was read from st, whose text was read after the
 * wall clock showed *before. */
static void cache_stat (struct jobspec_cache *c, const struct stat *st,
                        const struct timespec *before)
{
    c->st = *st;
    c->trusted = ns_of (&st->st_ctim) + CACHE_TRUST_NS <= ns_of (before);
}

/* The cached jobspec of path when its status st proves it unchanged. */
static struct jobspec_cache *cache_find_stat (struct query *q, const char *path,
                                              const struct stat *st)
{
    for (size_t i = 0; i < q->ncache; i++) {
        struct jobspec_cache *c = &q->cache[i];
        if (c->trusted && c->st.st_ino == st->st_ino
            && c->st.st_dev == st->st_dev && c->st.st_size == st->st_size
            && ns_of (&c->st.st_ctim) == ns_of (&st->st_ctim)
            && ns_of (&c->st.st_mtim) == ns_of (&st->st_mtim)
            && !strcmp (c->path, path))
            return c;
    }
    return NULL;
}

/* The cached jobspec of path when its status proved it unchanged for a
 * line of this batch of commands (batch 0: none yet). */
static struct jobspec_cache *cache_find_batch (struct query *q,
                                               const char *path)
{
    for (size_t i = 0; q->batch && i < q->ncache; i++) {
        struct jobspec_cache *c = &q->cache[i];
        if (c->batch == q->batch && c->trusted && !strcmp (c->path, path))
            return c;
    }
    return NULL;
}

/* The cached jobspec of path when the file still holds text. */
static struct jobspec_cache *cache_find (struct query *q, const char *path,
                                         const char *text, size_t len)
{
    for (size_t i = 0; text && i < q->ncache; i++) {
        struct jobspec_cache *c = &q->cache[i];
        if (!strcmp (c->path, path) && c->len == len
            && !memcmp (c->text, text, len))
            return c;
    }
    return NULL;
}

/* A slot for path: its old entry, a free one, or the least recently used
 * (cleared). */
static struct jobspec_cache *cache_slot (struct query *q, const char *path)
{
    struct jobspec_cache *c = NULL;

    for (size_t i = 0; i < q->ncache && !c; i++)
        if (!strcmp (q->cache[i].path, path))
            c = &q->cache[i];
    if (!c && q->ncache < CACHE_FILES) {
        struct jobspec_cache *n =
            realloc (q->cache, (q->ncache + 1) * sizeof (*n));
        if (!n)
            cmd_die (SUB, "out of memory");
        q->cache = n;
        c = &q->cache[q->ncache++];
        memset (c, 0, sizeof (*c));
    }
    for (size_t i = 0; i < q->ncache && !c; i++)
        if (i == 0 || q->cache[i].used < c->used)
            c = &q->cache[i];
    cache_entry_clear (c);
    return c;
}

/* Print what the load said; keep its warnings in c (when not NULL). */
static void load_diags (struct query *q, struct rp_diags *d,
                        struct jobspec_cache *c)
{
    for (size_t i = 0; i < rp_diags_count (d); i++) {
        bool warning = rp_diags_severity (d, i) == RP_DIAG_WARNING;
        fprintf (stderr, "respol: %s: line %lu: %s%s\n", SUB, q->line,
                 warning ? "warning: " : "", rp_diags_text (d, i));
        if (!c || !warning)
            continue;
        if (!(c->warnings =
                  realloc (c->warnings, (c->nwarnings + 1) * sizeof (char *)))
            || !(c->warnings[c->nwarnings++] = strdup (rp_diags_text (d, i))))
            cmd_die (SUB, "out of memory");
    }
}

/* Parse path, and keep it by the text it was read from when that text is
 * what the file still holds after the parse (else it changed meanwhile:
 * not kept). */
/* What a read of a jobspec file gave: its text (NULL: not read), its
 * status then, and the wall clock before the read. */
struct file_read {
    char *text;
    size_t len;
    struct stat st;
    struct timespec before;
};

static struct rp_jobspec *load_new (struct query *q, const char *path,
                                    struct file_read *r)
{
    struct rp_diags *d = rp_diags_create ();
    struct jobspec_cache *c = NULL;
    struct rp_jobspec *js;
    size_t after_len = 0;
    struct stat after_st;
    char *after = NULL;
    int saved_errno;

    if (!d)
        cmd_die (SUB, "out of memory");
    js = rp_jobspec_load_file (path, q->profile, d);
    saved_errno = errno;
    if (js && r->text && (after = read_small (path, &after_len, &after_st))
        && after_len == r->len && !memcmp (after, r->text, r->len)) {
        c = cache_slot (q, path);
        if (!(c->path = strdup (path)) || !(c->js = rp_jobspec_copy (js)))
            cmd_die (SUB, "out of memory");
        c->text = r->text;
        c->len = r->len;
        c->used = ++q->cache_clock;
        cache_stat (c, &r->st, &r->before);
        c->batch = c->trusted ? q->batch : 0;
        r->text = NULL;
    }
    load_diags (q, d, c);
    if (!js && rp_diags_errors (d) == 0)
        fail (q, "%s", strerror (saved_errno));
    if (!js)
        q->failed = true;
    rp_diags_destroy (d);
    free (after);
    free (r->text);
    return js;
}

/* The jobspec of file path: read once per content (a file read before
 * with the same text is not parsed again; its warnings are said again).
 * A file whose status is what it was when its text was read, and whose
 * last change was CACHE_TRUST_NS before that read, is not read again. */
static struct rp_jobspec *load_jobspec (struct query *q, const char *path)
{
    struct file_read r = { 0 };
    struct jobspec_cache *c;

    if (!strcmp (path, "-")) {
        fail (q, "a jobspec file is needed, not stdin");
        return NULL;
    }
    if (!(c = cache_find_batch (q, path))
        && (stat (path, &r.st) < 0 || !(c = cache_find_stat (q, path, &r.st)))) {
        clock_gettime (CLOCK_REALTIME, &r.before);
        r.text = read_small (path, &r.len, &r.st);
        if (!(c = cache_find (q, path, r.text, r.len)))
            return load_new (q, path, &r);
        cache_stat (c, &r.st, &r.before);
        free (r.text);
    }
    c->batch = c->trusted ? q->batch : 0;
    c->used = ++q->cache_clock;
    for (size_t i = 0; i < c->nwarnings; i++)
        fprintf (stderr, "respol: %s: line %lu: warning: %s\n", SUB, q->line,
                 c->warnings[i]);
    return rp_jobspec_copy (c->js);
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

/* The words of a job line from word first on: WHO options and exactly
 * one FILE.  -1 after a message. */
static int job_words (struct query *q, int first, const char *usage,
                      struct cmd_who *w, const char **file)
{
    static const struct {
        const char *prefix;
        int opt;
    } who_opts[] = { { "--user=", CMD_OPT_USER },
                     { "--account=", CMD_OPT_ACCOUNT },
                     { "--queue=", CMD_OPT_QUEUE } };
    size_t nopts = sizeof (who_opts) / sizeof (who_opts[0]);

    *w = q->who;
    *file = NULL;
    if (q->nwords > MAX_WORDS) {
        fail (q, "usage: %s", usage);
        return -1;
    }
    for (int i = first; i < q->nwords; i++) {
        const char *word = q->words[i];
        size_t k;
        if (strncmp (word, "--", 2) != 0) {
            if (*file) {
                fail (q, "usage: %s", usage);
                return -1;
            }
            *file = word;
            continue;
        }
        for (k = 0; k < nopts; k++) {
            size_t len = strlen (who_opts[k].prefix);
            if (!strncmp (word, who_opts[k].prefix, len)) {
                cmd_who_option (w, who_opts[k].opt, word + len);
                break;
            }
        }
        if (k == nopts) {
            fail (q, "unknown option '%s'", word);
            return -1;
        }
    }
    if (!*file) {
        fail (q, "usage: %s", usage);
        return -1;
    }
    return 0;
}

static void job_ctx_drop (struct query *q)
{
    rp_context_destroy (q->job_ctx);
    rp_jobspec_destroy (q->job_ctx_js);
    free (q->job_ctx_account);
    free (q->job_ctx_queue);
    q->job_ctx = NULL;
    q->job_ctx_js = NULL;
    q->job_ctx_account = q->job_ctx_queue = NULL;
}

static bool same_word (const char *a, const char *b)
{
    return a == b || (a && b && !strcmp (a, b));
}

static char *word_copy (const char *word)
{
    char *copy = word ? strdup (word) : NULL;

    if (word && !copy)
        cmd_die (SUB, "out of memory");
    return copy;
}

/* The context of a new job (the next job id, submitted now), borrowed
 * until the next call, or NULL after a message.  The user is looked up
 * once per --user word, and the context made once for the jobs made the
 * same way (job_ctx): a job reads its account and queue from the
 * jobspec's attributes, and a copy of the user's context with them cost
 * more than a thousand instructions a job. */
static const struct rp_context *job_context (struct query *q,
                                             const struct cmd_who *w,
                                             const struct rp_jobspec *js)
{
    const char *key = w->user ? w->user : "";
    rp_error_t error;

    if (!q->user_ctx || strcmp (q->user_key, key)) {
        job_ctx_drop (q);
        rp_context_destroy (q->user_ctx);
        free (q->user_key);
        q->user_key = NULL;
        if (!(q->user_ctx = cmd_context_user (w, &error))) {
            fail (q, "%s", error.text);
            return NULL;
        }
        q->user_key = word_copy (key);
    }
    if (!q->job_ctx || q->job_ctx_js != js
        || !same_word (q->job_ctx_account, w->account)
        || !same_word (q->job_ctx_queue, w->queue)) {
        job_ctx_drop (q);
        if (!(q->job_ctx = cmd_context_from (q->user_ctx, w, js, &error))) {
            fail (q, "%s", error.text);
            return NULL;
        }
        q->job_ctx_js = rp_jobspec_copy (js);
        q->job_ctx_account = word_copy (w->account);
        q->job_ctx_queue = word_copy (w->queue);
    }
    rp_context_set_jobid (q->job_ctx, q->next_jobid);
    rp_context_set_submit_time (q->job_ctx, now_of (q));
    return q->job_ctx;
}

/* Print "N: STATE[: REASON]" (-F short) or "jobid=N" and "STATE[:
 * REASON]" on two lines (-F json), for a job that got no R. */
static void print_state (const struct query *q, uint64_t id, const char *state,
                         const char *reason)
{
    if (q->short_form)
        printf ("%llu: %s%s%s\n", (unsigned long long)id, state,
                reason ? ": " : "", reason ? reason : "");
    else
        printf ("jobid=%llu\n%s%s%s\n", (unsigned long long)id, state,
                reason ? ": " : "", reason ? reason : "");
}

/* Run the validator stack over js for ctx.  Returns the verdict (with
 * *reason, to free, for RP_REJECT and RP_HOLD; *final the jobspec as
 * amended, to destroy, or NULL when unchanged), after printing the
 * warnings. */
static int validate (struct query *q, const struct rp_jobspec *js,
                     const struct rp_context *ctx, struct rp_jobspec **final,
                     char **reason)
{
    struct rp_diags *d;
    int verdict;

    *final = NULL;
    *reason = NULL;
    if (!q->validators)
        return RP_ACCEPT;
    if (!(d = rp_diags_create ()))
        cmd_die (SUB, "out of memory");
    verdict =
        rp_config_validate_job (q->cfg, js, ctx, q->inst, final, reason, d);
    if (verdict < 0 && errno != EPROTO)
        cmd_die (SUB, "validate: %s", strerror (errno));
    for (size_t i = 0; i < rp_diags_count (d); i++)
        if (rp_diags_severity (d, i) == RP_DIAG_WARNING)
            fprintf (stderr, "respol: %s: line %lu: warning: %s\n", SUB,
                     q->line, rp_diags_text (d, i));
        else if (verdict < 0)
            fail (q, "%s", rp_diags_text (d, i));
    rp_diags_destroy (d);
    /* A validator failed: the job is neither accepted nor rejected. */
    if (verdict < 0)
        q->plugin_failed = true;
    return verdict;
}

/* Queue job q->next_jobid (ctx copied, js taken), held when reason is not
 * NULL. */
static uint64_t queue_job (struct query *q, const struct rp_context *ctx,
                           struct rp_jobspec *js, const char *reason)
{
    uint64_t id = q->next_jobid++;
    rp_error_t error;

    if (rp_instance_submit (q->inst, id, ctx, js, &error) < 0
        || (reason && rp_instance_hold (q->inst, id, reason, &error) < 0))
        cmd_die (SUB, "job %llu: %s", (unsigned long long)id, error.text);
    return id;
}

/* Start pending job id with R (taken): the instance hears of it, R is
 * printed (after its start with at). */
static void started_at (struct query *q, uint64_t id, struct rp_rset *R,
                        bool at)
{
    rp_error_t error;

    if (rp_instance_start_take (q->inst, id, R, &error) < 0)
        cmd_die (SUB, "job %llu: %s", (unsigned long long)id, error.text);
    print_job_at (q, id, rp_job_R (rp_instance_job (q->inst, id)), at);
}

static void started (struct query *q, uint64_t id, struct rp_rset *R)
{
    started_at (q, id, R, false);
}

static void timing (const struct query *q, const struct timespec *t0)
{
    if (q->timing)
        fprintf (stderr, "respol: %s: line %lu: %s: %.9f s\n", SUB, q->line,
                 q->text, elapsed (t0));
    if (q->explain)
        cmd_explain_print (SUB, q->m);
}

static void cmd_satisfiability_line (struct query *q)
{
    char buf[sizeof (((rp_error_t *)0)->text) + 32];
    struct rp_jobspec *js;
    struct timespec t0;
    rp_error_t error;

    if (q->nwords != 3) {
        fail (q, "usage: match satisfiability JOBSPEC-FILE");
        return;
    }
    if (!(js = load_jobspec (q, q->words[2])))
        return;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    rp_matcher_set_context (q->m, NULL);
    if (rp_matcher_satisfiability (q->m, js, &error) < 0) {
        q->plugin_failed |= cmd_match_status (errno) == EXIT_PLUGIN;
        fail (q, "%s", cmd_match_error (&error, errno, buf, sizeof (buf)));
    } else
        printf ("satisfiable\n");
    timing (q, &t0);
    rp_jobspec_destroy (js);
}

enum { JOB_SUBMIT, JOB_ALLOCATE, JOB_RESERVE };

/* The matcher's answer for job id of mode: R, or NULL with error. */
static struct rp_rset *job_match (struct query *q, int mode, uint64_t id,
                                  const struct rp_jobspec *js,
                                  rp_error_t *error)
{
    double at;

    if (mode == JOB_RESERVE)
        return rp_matcher_allocate_orelse_reserve (q->m, id, js, now_of (q),
                                                   &at, error);
    return rp_matcher_allocate (q->m, id, js, now_of (q), error);
}

/* Job id was matched: running (R taken) or reserved (pending). */
static void matched (struct query *q, int mode, const struct rp_context *ctx,
                     struct rp_jobspec *js, struct rp_rset *R)
{
    bool reserved = false;
    uint64_t id;

    (void)rp_matcher_job_time (q->m, q->next_jobid, NULL, NULL, &reserved);
    id = queue_job (q, ctx, js, NULL);
    if (!reserved) {
        started_at (q, id, R, mode == JOB_RESERVE);
        return;
    }
    print_job_at (q, id, R, true);
    rp_rset_destroy (R);
}

/* match allocate, match allocate_orelse_reserve and submit. */
static void cmd_job_line (struct query *q, int mode)
{
    const char *usage = mode == JOB_ALLOCATE ? "match allocate [WHO] JOBSPEC-FILE"
                        : mode == JOB_RESERVE
                            ? "match allocate_orelse_reserve [WHO] JOBSPEC-FILE"
                            : "submit [WHO] JOBSPEC-FILE";
    char buf[sizeof (((rp_error_t *)0)->text) + 32];
    struct rp_jobspec *js, *amended;
    const struct rp_context *ctx;
    struct rp_rset *R = NULL;
    struct cmd_who w;
    const char *file;
    char *reason = NULL;
    struct timespec t0;
    rp_error_t error;
    int verdict;

    if (job_words (q, mode == JOB_SUBMIT ? 1 : 2, usage, &w, &file) < 0
        || !(js = load_jobspec (q, file)))
        return;
    if (!(ctx = job_context (q, &w, js)))
        goto out;
    clock_gettime (CLOCK_MONOTONIC, &t0);
    verdict = validate (q, js, ctx, &amended, &reason);
    if (amended) {
        rp_jobspec_destroy (js);
        js = amended;
    }
    if (verdict < 0)
        goto out; /* a validator failed, said by validate () */
    if (verdict == RP_REJECT) {
        fail (q, "rejected: %s", reason);
        goto out;
    }
    if (verdict == RP_HOLD || mode == JOB_SUBMIT) {
        uint64_t id = queue_job (q, ctx, js, reason);
        js = NULL;
        print_state (q, id, reason ? "held" : "pending", reason);
        goto out;
    }
    rp_matcher_set_context (q->m, ctx);
    R = job_match (q, mode, q->next_jobid, js, &error);
    timing (q, &t0);
    if (!R) {
        q->plugin_failed |= cmd_match_status (errno) == EXIT_PLUGIN;
        fail (q, "%s", cmd_match_error (&error, errno, buf, sizeof (buf)));
        goto out;
    }
    matched (q, mode, ctx, js, R);
    R = NULL;
    js = NULL;
out:
    rp_matcher_set_context (q->m, NULL);
    rp_rset_destroy (R);
    free (reason);
    rp_jobspec_destroy (js);
}

static void cmd_match_line (struct query *q)
{
    if (q->nwords >= 2 && !strcmp (q->words[1], "allocate"))
        cmd_job_line (q, JOB_ALLOCATE);
    else if (q->nwords >= 2
             && !strcmp (q->words[1], "allocate_orelse_reserve"))
        cmd_job_line (q, JOB_RESERVE);
    else if (q->nwords >= 2 && !strcmp (q->words[1], "satisfiability"))
        cmd_satisfiability_line (q);
    else
        fail (q, "usage: match allocate|allocate_orelse_reserve|"
                 "satisfiability JOBSPEC-FILE");
}

/* A queued job's match in a schedule pass: a job that holds a
 * reservation gives it up and is allocated, else reserved again. */
static struct rp_rset *schedule_match (struct query *q, uint64_t id,
                                       const struct rp_jobspec *js,
                                       rp_error_t *error)
{
    double at;

    if (!rp_matcher_job_time (q->m, id, NULL, NULL, NULL))
        return rp_matcher_allocate (q->m, id, js, now_of (q), error);
    if (rp_matcher_free (q->m, id, error) < 0)
        return NULL;
    return rp_matcher_allocate_orelse_reserve (q->m, id, js, now_of (q), &at,
                                               error);
}

/* One queued job in a schedule pass: validated again, then started if it
 * can be.  false when the pass stops here. */
static bool schedule_one (struct query *q, const struct rp_job *j)
{
    char buf[sizeof (((rp_error_t *)0)->text) + 32];
    bool reserved = false;
    uint64_t id = rp_job_id (j);
    struct rp_jobspec *amended;
    struct rp_rset *R;
    char *reason;
    rp_error_t error;
    int verdict;

    /* Amendments were applied at submission: the jobspec stays. */
    verdict =
        validate (q, rp_job_jobspec (j), rp_job_context (j), &amended, &reason);
    rp_jobspec_destroy (amended);
    if (verdict < 0)
        return false; /* a validator failed: the pass stops here */
    if (verdict == RP_REJECT) {
        print_state (q, id, "rejected", reason);
        free (reason);
        rp_instance_finish (q->inst, id, NULL);
        return true;
    }
    if (verdict == RP_HOLD) {
        if (rp_instance_hold (q->inst, id, reason, &error) < 0)
            cmd_die (SUB, "job %llu: %s", (unsigned long long)id, error.text);
        free (reason);
        return true;
    }
    if (rp_job_state (j) == RP_JOB_HELD
        && rp_instance_release (q->inst, id, &error) < 0)
        cmd_die (SUB, "job %llu: %s", (unsigned long long)id, error.text);
    rp_matcher_set_context (q->m, rp_job_context (j));
    R = schedule_match (q, id, rp_job_jobspec (j), &error);
    rp_matcher_set_context (q->m, NULL);
    if (q->explain)
        cmd_explain_print (SUB, q->m);
    if (R && rp_matcher_job_time (q->m, id, NULL, NULL, &reserved) && reserved) {
        rp_rset_destroy (R);
        return false; /* reserved again: the pass stops here */
    }
    if (R) {
        started (q, id, R);
        return true;
    }
    if (errno == EBUSY)
        return false;
    cmd_match_error (&error, errno, buf, sizeof (buf));
    if (errno != ENODEV) {
        q->plugin_failed |= cmd_match_status (errno) == EXIT_PLUGIN;
        fail (q, "job %llu: %s", (unsigned long long)id, buf);
        return false;
    }
    print_state (q, id, "rejected", buf);
    rp_instance_finish (q->inst, id, NULL);
    return true;
}

static void cmd_schedule_line (struct query *q)
{
    size_t n = rp_instance_njobs (q->inst), k = 0;
    uint64_t *ids;

    if (q->nwords != 1) {
        fail (q, "usage: schedule");
        return;
    }
    /* The queued jobs as they are now: starting one changes the list. */
    if (!(ids = calloc (n + 1, sizeof (*ids))))
        cmd_die (SUB, "out of memory");
    for (const struct rp_job *j = rp_instance_first (q->inst); j;
         j = rp_instance_next (j))
        if (rp_job_state (j) != RP_JOB_RUNNING)
            ids[k++] = rp_job_id (j);
    for (size_t i = 0; i < k; i++) {
        const struct rp_job *j = rp_instance_job (q->inst, ids[i]);
        if (j && !schedule_one (q, j))
            break;
    }
    free (ids);
}

static void cmd_free_line (struct query *q)
{
    const struct rp_job *j;
    uint64_t jobid;
    rp_error_t error;

    if (job_command (q, 2, "free JOBID", &jobid) < 0)
        return;
    if (!(j = rp_instance_job (q->inst, jobid))) {
        fail (q, "no job %llu", (unsigned long long)jobid);
        return;
    }
    /* a running job, or a pending one with a reservation */
    if (rp_matcher_job_time (q->m, jobid, NULL, NULL, NULL)
        && rp_matcher_free (q->m, jobid, &error) < 0) {
        fail_job (q, jobid, &error);
        return;
    }
    rp_instance_finish (q->inst, jobid, NULL);
}

static void cmd_release_line (struct query *q)
{
    const struct rp_rset *R;
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
    else if (!(R = rp_matcher_job_rset (q->m, jobid)))
        rp_instance_finish (q->inst, jobid, NULL);
    else if (rp_instance_update (q->inst, jobid, R, &error) < 0)
        cmd_die (SUB, "job %llu: %s", (unsigned long long)jobid, error.text);
    rp_idset_destroy (ranks);
}

static void cmd_info_line (struct query *q)
{
    const struct rp_job *j;
    uint64_t jobid;

    if (job_command (q, 2, "info JOBID", &jobid) < 0)
        return;
    if (!(j = rp_instance_job (q->inst, jobid))) {
        fail (q, "no job %llu", (unsigned long long)jobid);
        return;
    }
    if (rp_job_state (j) == RP_JOB_RUNNING)
        print_job (q, jobid, rp_matcher_job_rset (q->m, jobid));
    else if (rp_matcher_job_time (q->m, jobid, NULL, NULL, NULL)) {
        print_job_at (q, jobid, rp_matcher_job_rset (q->m, jobid), true);
    } else
        print_state (q, jobid, rp_job_state_name (rp_job_state (j)),
                     rp_job_hold_reason (j));
}

/* "user=alice" style words of a job's context ("-" when absent). */
static void print_job_line (const struct query *q, const struct rp_job *j)
{
    const struct rp_context *c = rp_job_context (j);
    const char *user = rp_context_user (c);
    const char *account = rp_context_account (c);
    const char *queue = rp_context_queue (c);
    const char *reason = rp_job_hold_reason (j);
    char uidbuf[16] = "-";
    uint32_t uid;
    json_t *o;

    if (!user && rp_context_uid (c, &uid))
        snprintf (uidbuf, sizeof (uidbuf), "%lu", (unsigned long)uid);
    if (q->short_form) {
        printf ("%llu: %s user=%s account=%s queue=%s%s%s\n",
                (unsigned long long)rp_job_id (j),
                rp_job_state_name (rp_job_state (j)), user ? user : uidbuf,
                account ? account : "-", queue ? queue : "-",
                reason ? ": " : "", reason ? reason : "");
        return;
    }
    if (!(o = json_pack ("{s:I s:s s:s* s:s* s:s* s:s*}", "id",
                         (json_int_t)rp_job_id (j), "state",
                         rp_job_state_name (rp_job_state (j)), "user", user,
                         "account", account, "queue", queue, "reason", reason)))
        cmd_die (SUB, "out of memory");
    if (rp_context_uid (c, &uid)
        && json_object_set_new (o, "uid", json_integer (uid)) < 0)
        cmd_die (SUB, "out of memory");
    cmd_print_json (o);
    json_decref (o);
}

static void cmd_jobs_line (struct query *q)
{
    if (q->nwords != 1) {
        fail (q, "usage: jobs");
        return;
    }
    for (const struct rp_job *j = rp_instance_first (q->inst); j;
         j = rp_instance_next (j))
        print_job_line (q, j);
}

static void cmd_usage_line (struct query *q)
{
    static const char *const items[] = { "running_jobs", "pending_jobs",
                                         "nodes", "cores", "gpus" };
    bool user = q->nwords == 3 && !strcmp (q->words[1], "user");
    bool account = q->nwords == 3 && !strcmp (q->words[1], "account");
    struct rp_context *c = NULL;
    rp_error_t error;
    uint32_t uid = 0;
    json_t *o;

    if (!user && !account) {
        fail (q, "usage: usage user NAME|UID | usage account NAME");
        return;
    }
    if (user) {
        if (!(c = rp_context_create (RP_ORIGIN_COMMAND)))
            cmd_die (SUB, "out of memory");
        if (rp_context_set_user (c, q->words[2], &error) < 0) {
            fail (q, "%s", error.text);
            rp_context_destroy (c);
            return;
        }
        rp_context_uid (c, &uid);
        rp_context_destroy (c);
    }
    if (!(o = json_object ()))
        cmd_die (SUB, "out of memory");
    for (int i = 0; i < 5; i++) {
        uint64_t v = user ? rp_instance_user_usage (q->inst, uid, i)
                          : rp_instance_account_usage (q->inst, q->words[2], i);
        if (json_object_set_new (o, items[i], json_integer ((json_int_t)v)) < 0)
            cmd_die (SUB, "out of memory");
    }
    cmd_print_json (o);
    json_decref (o);
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

/* Execution targets per state: {"down", "drained", "removed", "up"}. */
static json_t *target_states (const struct query *q)
{
    const struct rp_graph *g = rp_matcher_graph (q->m);
    const struct rp_idset *removed = rp_matcher_removed (q->m);
    json_int_t n[4] = { 0 }; /* up, down, drained, removed */

    for (rp_vertex_t v = 0; v < rp_graph_nvertices (g); v++) {
        int64_t rank = rp_graph_vertex_rank (g, v);
        if (rp_graph_target (g, v) != v)
            continue;
        if (removed && rank >= 0 && rank <= UINT32_MAX
            && rp_idset_test (removed, (unsigned int)rank))
            n[3]++;
        else
            n[rp_graph_vertex_state (g, v)]++;
    }
    return json_pack ("{s:I s:I s:I s:I}", "up", n[0], "down", n[1], "drained",
                      n[2], "removed", n[3]);
}

static void cmd_stat_line (struct query *q)
{
    json_t *o;

    if (q->nwords != 1) {
        fail (q, "usage: stat");
        return;
    }
    if (!(o = rp_matcher_stat (q->m))
        || json_object_set_new (o, "targets", target_states (q)) < 0)
        cmd_die (SUB, "out of memory");
    cmd_print_json (o);
    json_decref (o);
}

/* --- acquisition (RFC 28) and hello (RFC 27) ------------------------------ */

/* The policy of the query (as cmd_matcher_create chose it) for m. */
static void set_policy (struct query *q, struct rp_matcher *m)
{
    const struct rp_stack *stack = rp_config_stack (q->cfg, RP_PLUGIN_MATCH);
    const struct rp_plugin *p;
    rp_error_t e;

    if (!q->policy && rp_stack_count (stack) == 0)
        return;
    if (!(p = rp_config_policy (q->cfg, q->policy, &e))
        || rp_matcher_set_policy (m, p, &e) < 0)
        cmd_die (SUB, "%s", e.text);
}

static void drop_state (struct query *q)
{
    if (q->consumer)
        rp_acquire_consumer_destroy (q->consumer);
    else
        rp_matcher_destroy (q->m);
    q->consumer = NULL;
    q->m = NULL;
}

/* One response: an initial one starts over, a later one applies. */
static int acquire_one (struct query *q, const json_t *o, rp_error_t *e)
{
    struct rp_acquire_consumer *c;

    if (!json_object_get (o, "resources")) {
        if (!q->consumer)
            return rp_error_set (e, EINVAL, "no initial response before");
        return rp_acquire_consumer_apply (q->consumer, o, e);
    }
    if (!(c = rp_acquire_consumer_create (o, e)))
        return -1;
    set_policy (q, rp_acquire_consumer_matcher (c));
    drop_state (q);
    q->consumer = c;
    q->m = rp_acquire_consumer_matcher (c);
    /* The jobs are forgotten with the old resources: a new instance. */
    rp_instance_destroy (q->inst);
    if (!(q->inst = rp_instance_create (q->cfg)))
        cmd_die (SUB, "out of memory");
    rp_matcher_set_instance (q->m, q->inst);
    rp_matcher_set_explain (q->m, q->explain);
    rp_matcher_set_scheduling (q->m, !q->nosched);
    return 0;
}

/* Read one line into *buf (growing, up to max bytes): 1, 0 at the end,
 * -1 when it is longer (read to its end and dropped). */
static int read_response (FILE *f, char **buf, size_t *cap, size_t max)
{
    size_t len = 0;
    int c;

    while ((c = getc (f)) != EOF && c != '\n') {
        if (len == max)
            continue;
        if (len + 1 >= *cap) {
            size_t n = *cap ? *cap * 2 : 4096;
            char *nb = realloc (*buf, n);
            if (!nb)
                cmd_die (SUB, "out of memory");
            *buf = nb;
            *cap = n;
        }
        (*buf)[len++] = (char)c;
    }
    if (c == EOF && len == 0)
        return 0;
    if (*buf)
        (*buf)[len] = '\0';
    return len == max ? -1 : 1;
}

static void acquire_stream (struct query *q, FILE *f, const char *name)
{
    char *buf = NULL;
    size_t cap = 0;
    unsigned long line = 0;
    int rc;

    while ((rc = read_response (f, &buf, &cap, RP_EVENTLOG_LINE_MAX)) != 0) {
        json_error_t je;
        json_t *o = NULL;
        rp_error_t e;
        line++;
        if (rc < 0) {
            fail (q, "%s:%lu: longer than %zu bytes", name, line,
                  RP_EVENTLOG_LINE_MAX);
            break;
        }
        if (buf[strspn (buf, " \t\r")] == '\0')
            continue;
        if (!(o = json_loads (buf, JSON_REJECT_DUPLICATES, &je)))
            rc = rp_error_set (&e, EINVAL, "not JSON: %s", je.text);
        else
            rc = acquire_one (q, o, &e);
        json_decref (o);
        if (rc < 0) {
            fail (q, "%s:%lu: %s", name, line, e.text);
            break;
        }
    }
    free (buf);
}

static void cmd_acquire_line (struct query *q)
{
    const char *path;
    FILE *f;

    if (q->nwords != 2) {
        fail (q, "usage: acquire FILE|-");
        return;
    }
    path = q->words[1];
    if (!strcmp (path, "-") && q->stdin_commands) {
        fail (q, "stdin is the command stream");
        return;
    }
    if (!(f = strcmp (path, "-") ? fopen (path, "r") : stdin)) {
        fail (q, "%s: %s", path, strerror (errno));
        return;
    }
    acquire_stream (q, f, strcmp (path, "-") ? path : "stdin");
    if (f != stdin)
        fclose (f);
}

static struct rp_rset *load_rset (struct query *q, const char *path)
{
    rp_error_t e;
    struct rp_doc *doc = rp_doc_load_file (path, RP_DOC_JSON, &e);
    struct rp_rset *R = doc ? rp_rset_from_json (rp_doc_root (doc), &e) : NULL;

    if (!R)
        fail (q, "%s%s%s", doc ? path : "", doc ? ": " : "", e.text);
    rp_doc_destroy (doc);
    return R;
}

/* The hello of job jobid: through the acquisition consumer when there is
 * one, else on the matcher, with R less the ranks of free. */
static int hello (struct query *q, uint64_t jobid, const struct rp_rset *R,
                  const struct rp_idset *free_ranks, rp_error_t *e)
{
    struct rp_idset *keep;
    struct rp_rset *held;
    int rc = 0;

    if (q->consumer)
        return rp_acquire_consumer_hello (q->consumer, jobid, R, free_ranks, e);
    if (!(keep = rp_idset_copy (rp_rset_ranks (R)))
        || (free_ranks && rp_idset_subtract (keep, free_ranks) < 0)
        || !(held = rp_rset_copy_ranks (R, keep)))
        cmd_die (SUB, "out of memory");
    if (!rp_idset_empty (keep)
        && (rc = rp_matcher_hello (q->m, jobid, held, e)) < 0)
        rp_error_prefix (e, "job %ju", (uintmax_t)jobid);
    rp_rset_destroy (held);
    rp_idset_destroy (keep);
    return rc;
}

static void cmd_hello_line (struct query *q)
{
    struct rp_idset *free_ranks = NULL;
    const struct rp_rset *held;
    struct rp_rset *R = NULL;
    uint64_t jobid = q->next_jobid;
    rp_error_t e;

    if (q->nwords != 2 && q->nwords != 3) {
        fail (q, "usage: hello R-FILE [FREE]");
        return;
    }
    if (!strcmp (q->words[1], "-")) {
        fail (q, "an R file is needed, not stdin");
        return;
    }
    if (q->nwords == 3 && !(free_ranks = rp_idset_decode (q->words[2], &e)))
        fail (q, "%s", e.text);
    else if ((R = load_rset (q, q->words[1]))
             && hello (q, jobid, R, free_ranks, &e) < 0)
        fail (q, "%s", e.text);
    else if (R) {
        q->next_jobid++;
        /* A running job known by its R alone (no jobspec, no context). */
        if ((held = rp_matcher_job_rset (q->m, jobid))
            && (rp_instance_submit (q->inst, jobid, NULL, NULL, &e) < 0
                || rp_instance_start (q->inst, jobid, held, &e) < 0))
            cmd_die (SUB, "job %ju: %s", (uintmax_t)jobid, e.text);
        if (held)
            print_job (q, jobid, held);
    }
    rp_rset_destroy (R);
    rp_idset_destroy (free_ranks);
}

/* --- the loop ------------------------------------------------------------ */

static bool is_blank (char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Split line into words (at most MAX_WORDS + 1 kept: one more than any
 * command takes, which is enough to say there are too many) and build
 * their single spaced text (never longer than the line).  One pass over
 * the line: strtok_r with strspn and strcspn under it cost 500
 * instructions a command. */
static void split (struct query *q, char *line)
{
    char *p = line;
    size_t len = 0;

    q->nwords = 0;
    q->text[0] = '\0';
    for (;;) {
        char *w;
        size_t n;
        while (is_blank (*p))
            p++;
        if (!*p)
            break;
        for (w = p; *p && !is_blank (*p); p++)
            ;
        n = (size_t)(p - w);
        if (*p)
            *p++ = '\0';
        if (q->nwords <= MAX_WORDS)
            q->words[q->nwords++] = w;
        if (len)
            q->text[len++] = ' ';
        memcpy (q->text + len, w, n + 1); /* the line's length bounds it */
        len += n;
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
    else if (!strcmp (cmd, "submit"))
        cmd_job_line (q, JOB_SUBMIT);
    else if (!strcmp (cmd, "schedule"))
        cmd_schedule_line (q);
    else if (!strcmp (cmd, "jobs"))
        cmd_jobs_line (q);
    else if (!strcmp (cmd, "usage"))
        cmd_usage_line (q);
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
    else if (!strcmp (cmd, "acquire"))
        cmd_acquire_line (q);
    else if (!strcmp (cmd, "hello"))
        cmd_hello_line (q);
    else
        fail (q, "unknown command '%s'", cmd);
    return true;
}

/* The command stream, read with read(2) into buf: what stdio would do,
 * and it tells when the next line is not there yet. */
struct commands {
    int fd;
    char buf[2 * (LINE_MAX_BYTES + 2)];
    size_t start, end; /* the bytes not yet taken */
    bool eof;
    bool skipping; /* the rest of a line too long, up to its newline */
    uint64_t reads; /* read(2)s that gave bytes: the batches so far */
};

/* Wait for more of the stream: what the commands printed goes out first,
 * so a program that drives the query reads each answer before it writes
 * the next command.  -1 on a read error. */
static int refill (struct commands *in)
{
    ssize_t n;

    fflush (stdout);
    fflush (stderr);
    if (in->start > 0) {
        memmove (in->buf, in->buf + in->start, in->end - in->start);
        in->end -= in->start;
        in->start = 0;
    }
    do
        n = read (in->fd, in->buf + in->end, sizeof (in->buf) - in->end);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -1;
    in->eof = n == 0;
    in->end += (size_t)n;
    in->reads += n > 0;
    return 0;
}

/* The next line, without its newline, in *line (NUL terminated in the
 * buffer).  Returns 1, 0 at end of input, or -1 for a line longer than
 * LINE_MAX_BYTES (read to its end and dropped); dies on a read error. */
static int read_line (struct commands *in, char **line)
{
    for (;;) {
        char *s = in->buf + in->start;
        size_t avail = in->end - in->start;
        char *nl = memchr (s, '\n', avail);

        if (nl || (in->eof && avail > 0)) {
            size_t len = nl ? (size_t)(nl - s) : avail;
            bool skipped = in->skipping || len > LINE_MAX_BYTES;
            in->start += nl ? len + 1 : len;
            in->skipping = false;
            s[len] = '\0'; /* the buffer keeps a byte past any line */
            *line = s;
            return skipped ? -1 : 1;
        }
        if (in->eof)
            return in->skipping ? (in->skipping = false, -1) : 0;
        if (avail > LINE_MAX_BYTES) { /* too long: keep none of it */
            in->start = in->end;
            in->skipping = true;
        }
        if (refill (in) < 0)
            cmd_die (SUB, "read error: %s", strerror (errno));
    }
}

/* Do stdout and stderr write the same file?  Then every command's output
 * goes out before the next command runs, in the order it was written. */
static bool same_output (void)
{
    struct stat o, e;

    return fstat (STDOUT_FILENO, &o) < 0 || fstat (STDERR_FILENO, &e) < 0
           || (o.st_dev == e.st_dev && o.st_ino == e.st_ino);
}

static void loop (struct query *q, struct commands *in)
{
    bool prompt = q->stdin_commands && isatty (STDIN_FILENO);
    bool each = same_output ();
    char *line;
    int rc;

    for (;;) {
        if (prompt) {
            printf ("respol> ");
            fflush (stdout);
        }
        if ((rc = read_line (in, &line)) == 0)
            break;
        q->line++;
        q->nwords = 0;
        q->batch = in->reads;
        if (rc < 0)
            fail (q, "line longer than %d bytes", LINE_MAX_BYTES);
        else if (!run_line (q, line))
            break;
        if (each)
            fflush (stdout);
    }
    if (prompt && rc == 0)
        putchar ('\n');
}

/* --- options ------------------------------------------------------------- */

static void set_option (struct options *o, struct query *q, int c)
{
    if (cmd_who_option (&q->who, c, optarg))
        return;
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
    else if (c == OPT_EXPLAIN)
        q->explain = true;
    else if (c == 'F') {
        if (strcmp (optarg, "json") != 0 && strcmp (optarg, "short") != 0
            && strcmp (optarg, "rv1_nosched") != 0)
            cmd_usage_error (SUB, "unknown format '%s'", optarg);
        q->short_form = !strcmp (optarg, "short");
        q->nosched = !strcmp (optarg, "rv1_nosched");
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

/* The command stream (its buffer is large: not on the stack). */
static struct commands *open_commands (const struct options *o,
                                       const struct query *q)
{
    struct commands *in = calloc (1, sizeof (*in));

    if (!in)
        cmd_die (SUB, "out of memory");
    in->fd = q->stdin_commands ? STDIN_FILENO
                               : open (o->file, O_RDONLY | O_CLOEXEC);
    if (in->fd < 0)
        cmd_die (SUB, "%s: %s", o->file, strerror (errno));
    return in;
}

int cmd_query (int argc, char **argv)
{
    struct options o = { 0 };
    struct query *q = calloc (1, sizeof (*q));
    struct rp_config *cfg;
    struct rp_graph *g;
    struct commands *in;
    int status;

    if (!q)
        cmd_die (SUB, "out of memory");
    q->profile = RP_JOBSPEC_CANONICAL;
    q->now = -1;
    q->next_jobid = 1;
    parse_options (&o, q, argc, argv);
    g = cmd_resources_load (SUB, &o.res);
    cfg = cmd_match_config (SUB, o.config);
    q->m = cmd_matcher_create (SUB, g, cfg, o.policy);
    q->cfg = cfg;
    q->policy = o.policy;
    q->validators =
        rp_stack_count (rp_config_stack (cfg, RP_PLUGIN_VALIDATE)) > 0;
    if (!(q->inst = rp_instance_create (cfg)))
        cmd_die (SUB, "out of memory");
    rp_matcher_set_instance (q->m, q->inst);
    rp_matcher_set_explain (q->m, q->explain);
    rp_matcher_set_scheduling (q->m, !q->nosched);
    in = open_commands (&o, q);
    loop (q, in);
    if (in->fd != STDIN_FILENO)
        close (in->fd);
    free (in);
    drop_state (q);
    job_ctx_drop (q);
    cache_destroy (q);
    rp_context_destroy (q->user_ctx);
    free (q->user_key);
    free (q->rtext);
    rp_instance_destroy (q->inst);
    rp_config_destroy (cfg);
    status = q->plugin_failed ? EXIT_PLUGIN : q->failed ? EXIT_INPUT : 0;
    free (q);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return status;
}
