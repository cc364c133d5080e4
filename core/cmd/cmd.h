/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Shared pieces of the respol command: subcommand entry points and the
 * helpers that give every subcommand the same error conventions:
 *   respol: SUBCOMMAND: message     on stderr
 *   exit 1 on bad input (a rejected job included), 2 on bad usage, 3 when
 *   a plugin failed (it returned an error or an unknown verdict, so the
 *   job was not judged); a plugin that crashes kills the command with its
 *   signal (128 + the signal in a shell) after the library names it.
 */
#ifndef RESPOL_CMD_H
#define RESPOL_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include <respol/config.h>
#include <respol/diag.h>
#include <respol/jobspec.h>

#define EXIT_INPUT 1
#define EXIT_USAGE 2
#define EXIT_PLUGIN 3

/* Subcommands: argv[0] is the subcommand name. Return the exit status. */
int cmd_idset (int argc, char **argv);
int cmd_hostlist (int argc, char **argv);
int cmd_R (int argc, char **argv);
int cmd_jobspec (int argc, char **argv);
int cmd_plugin (int argc, char **argv);
int cmd_config (int argc, char **argv);
/* `respol jobspec create` (argv[0] is "create") and `respol R filter`
 * (argv[0] is "filter"), dispatched from cmd_jobspec and cmd_R. */
int cmd_jobspec_create (int argc, char **argv);
int cmd_R_filter (int argc, char **argv);
/* `respol plugin new` (argv[0] is "new"), dispatched from cmd_plugin;
 * usage prints the usage of respol plugin, for --help. */
int cmd_plugin_new (int argc, char **argv, void (*usage) (FILE *f));

/* Print "respol: SUB: message" on stderr and exit with EXIT_INPUT. */
void cmd_die (const char *sub, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3), noreturn));
/* Print "respol: SUB: message" and a hint to try --help, exit EXIT_USAGE. */
void cmd_usage_error (const char *sub, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3), noreturn));
/* Print "respol: SUB: message" on stderr, no exit. */
void cmd_warn (const char *sub, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* The message for the option getopt_long just rejected (it returned c,
 * '?' or ':'), written into buf (size > 0): "unknown option '--foo'",
 * "unknown option '-x'", "option '--config' requires an argument",
 * "option '-n' requires an argument", "option '--json' takes no
 * argument".  Call it before getopt_long is called again.  argv is the
 * NULL terminated vector given to getopt_long; optstring and longopts are
 * those given to it (they tell a missing argument from an unknown option
 * when optstring does not start with ':').  CMD_OPTION_ERROR_SIZE fits
 * any message but that of an absurdly long option, which is cut.
 * Returns buf. */
#define CMD_OPTION_ERROR_SIZE 256
const char *cmd_option_error (char *buf, size_t size, int c, char **argv,
                              const char *optstring,
                              const struct option *longopts);

/* The usage error for that option: "respol: SUB: PREFIXmessage" and the
 * --help hint, exit EXIT_USAGE. */
void cmd_bad_option (const char *sub, const char *prefix, int c, char **argv,
                     const char *optstring, const struct option *longopts)
    __attribute__ ((noreturn));

/* Print every message of d on stderr as "respol: SUB: [warning: ]text".
 * Returns the number of errors. */
size_t cmd_print_diags (const char *sub, const struct rp_diags *d);

/* Plugin log levels.  -v and --verbose (repeatable), given before the
 * subcommand or to a subcommand that runs plugins, call cmd_verbose; the
 * level is then info (-v) or debug (-vv), else $RESPOL_LOG (a name or
 * 3..7), else unset: the configuration's log level, else warning. */
void cmd_verbose (void);
/* The level the command line and $RESPOL_LOG ask for (0: neither); a bad
 * $RESPOL_LOG is reported once, as a warning of sub, and ignored. */
int cmd_log_level (const char *sub);

/* Load the plugin configuration (path, else $RESPOL_CONFIG, else the
 * installed one) with the log level of cmd_log_level and plugin messages
 * printed on stderr as "respol: SUB: INSTANCE: LEVEL: message" (unless
 * the configuration sends them elsewhere), print every message of the
 * load, and return it; NULL, after printing why, when it does not load.
 * Caller must rp_config_destroy. */
struct rp_config *cmd_load_config (const char *sub, const char *path);

/* cmd_load_config without setting the plugin log, with rp_config_load
 * flags (RP_CONFIG_NOLOAD: read and check the file only). */
struct rp_config *cmd_load_config_flags (const char *sub, const char *path,
                                         int flags);

/* The jobspec in path ("-": stdin) with that profile; every error and
 * warning printed as "respol: SUB: ..."; exits 1 when it is not valid. */
struct rp_jobspec *cmd_load_jobspec (const char *sub, const char *path,
                                     enum rp_jobspec_profile profile);

/* The jobspec of a command line with the options of respol jobspec
 * create (core/cmd/jobspec_create.c), checked as V1, for a subcommand
 * that runs a job (respol run): argv[0] is the subcommand, then options,
 * then [--] COMMAND [ARGS...].  The caller's own options (x->opts, long,
 * with values that do not clash with create's, and x->shortopts) go to
 * x->fn; -h and --help print x->usage.  Errors read "respol: SUB:
 * message" and exit.  Caller must json_decref. */
struct cmd_create_extra {
    const struct option *opts; /* NULL-terminated */
    const char *shortopts;     /* or NULL */
    void (*fn) (int c, const char *arg, void *ctx);
    void *ctx;
    void (*usage) (FILE *f);
    /* Or NULL: called once the options are read, before the jobspec is
     * built and checked (respol run loads its configuration there: its
     * property plugins may add the constraint operators --requires
     * uses). */
    void (*prepare) (void *ctx);
};
json_t *cmd_jobspec_from_args (const char *sub, int argc, char **argv,
                               const struct cmd_create_extra *x);

/* `respol plugin test` (argv[0] is "test"), dispatched from cmd_plugin. */
int cmd_plugin_test (int argc, char **argv);

/* Read all of stream into a NUL terminated buffer (caller frees), dying
 * with a message on error or when it exceeds CMD_INPUT_MAX bytes. */
#define CMD_INPUT_MAX ((size_t)1 << 30)
char *cmd_read_all (const char *sub, FILE *stream, size_t *lenp);

/* The memory limit of R and resource graphs (rp_graph_set_memory_limit):
 * option (the value of --max-memory) when not NULL, else
 * $RESPOL_MAX_MEMORY when set, else the library's default.  Sets it in
 * the library and returns it.  A bad option is a usage error (exit 2), a
 * bad $RESPOL_MAX_MEMORY bad input (exit 1):
 *   respol: SUB: --max-memory: memory limit "2X": ... */
uint64_t cmd_memory_limit (const char *sub, const char *option);

/* Read R text from stream (name, e.g. "stdin", in messages): at most
 * rp_rset_text_max (the memory limit) bytes; dies with "NAME: more than N
 * bytes of R, the most that the memory limit of M MiB allows" past that,
 * before reading it when stream is a regular file that large.  Caller
 * frees. */
char *cmd_read_rset (const char *sub, FILE *stream, const char *name,
                     size_t *lenp);

/* Read a stream of concatenated R objects (JSON values; white space
 * between them is optional), as cmd_read_rset bounds it ($RESPOL_MAX_MEMORY
 * applies).  Returns a JSON array of them (caller must json_decref); dies
 * with "respol: SUB: stdin: line:col: message" on a syntax error. */
json_t *cmd_read_json_stream (const char *sub, FILE *stream);

/* The same from text read by cmd_read_rset (len bytes at buf). */
json_t *cmd_json_stream (const char *sub, const char *buf, size_t len);

/* The R objects of such text, each decoded from its own text by
 * rp_rset_decode (R_lite read in place, no JSON tree): an array of *np
 * (caller frees with cmd_rsets_free), or NULL when an object is not
 * decoded so, or the text is not a stream of objects: the caller then
 * reads it with cmd_json_stream and rp_rset_from_json, whose answer and
 * messages stand (that reading takes duplicate keys, the last one
 * winning; rp_rset_decode refuses them).  buf is changed while it is
 * read and restored. */
struct rp_rset **cmd_decode_rsets (char *buf, size_t len, size_t *np);
void cmd_rsets_free (struct rp_rset **r, size_t n);

/* Every R object on stdin for `respol CMD SUB` (`respol R filter`:
 * "R", "filter"), each decoded from its own text where it can be
 * (cmd_decode_rsets), else the stream read as JSON, whose messages stand;
 * $RESPOL_MAX_MEMORY applies.  *np of them, at least one (caller frees
 * with cmd_rsets_free).  Dies, what was read freed first, with
 * "respol: CMD: SUB: no R on stdin" or "respol: CMD: SUB: stdin: object
 * N: message" ("stdin: message" when there is one object). */
struct rp_rset **cmd_read_rsets (const char *cmd, const char *sub, size_t *np);
/* cmd_read_rsets, folded left with fn (cmd_fold_add: their union):
 * dies with "respol: CMD: SUB: stdin: object N: message" where fn fails,
 * what was read freed first. */
typedef int (*cmd_fold_fn) (struct rp_rset **acc, const struct rp_rset *r,
                            rp_error_t *error);
struct rp_rset *cmd_read_fold (const char *cmd, const char *sub,
                               cmd_fold_fn fn);
int cmd_fold_add (struct rp_rset **acc, const struct rp_rset *r,
                  rp_error_t *error);
/* A library message without the "R: " it starts with. */
const char *cmd_R_text (const rp_error_t *error);
/* "stdin", or "stdin: object N" (N from 1) when there are n > 1 (a
 * static buffer). */
const char *cmd_stdin_object (size_t i, size_t n);

/* Around the first load of this machine's topology in the process (hwloc
 * reads its plugin list once): skip the hwloc plugins a job's discovery
 * does not need, unless $HWLOC_PLUGINS_BLACKLIST says otherwise; end
 * takes the variable out of the environment again, so that no task
 * inherits it. */
void cmd_hwloc_quick_begin (void);
void cmd_hwloc_quick_end (void);

/* A duration in Flux's form (RFC 23): "30s", "1.5m", "2h", "1d". */
const char *cmd_format_duration (double seconds, char *buf, size_t size);

/* Print a JSON value with sorted keys, compact, and a newline. */
void cmd_print_json (const json_t *o);

/* --- resources: the options shared by graph, match and query ----------
 *
 * Exactly one of -R FILE / --R=FILE (R, RFC 20; "-" is stdin),
 * --xml=FILE (an hwloc XML topology: one node, rank 0, host name from
 * --hostname=NAME or the topology), --graph=FILE (a respol graph or JGF
 * file) or --generate=SPEC (rp_graph_generate) says what the resource
 * graph is.  A subcommand adds CMD_RESOURCE_SHORTOPTS to its optstring
 * and CMD_RESOURCE_LONGOPTS to its long options, and reads its options
 * with cmd_resources_getopt. */
struct rp_graph;

enum {
    CMD_OPT_R = 'R',
    CMD_OPT_XML = 0x1000,
    CMD_OPT_HOSTNAME,
    CMD_OPT_GRAPH,
    CMD_OPT_GENERATE,
    CMD_OPT_MAX_MEMORY,
};

#define CMD_RESOURCE_SHORTOPTS "R:"
#define CMD_RESOURCE_LONGOPTS                                                  \
    { "R", required_argument, NULL, CMD_OPT_R },                               \
        { "xml", required_argument, NULL, CMD_OPT_XML },                       \
        { "hostname", required_argument, NULL, CMD_OPT_HOSTNAME },             \
        { "graph", required_argument, NULL, CMD_OPT_GRAPH },                   \
        { "generate", required_argument, NULL, CMD_OPT_GENERATE },             \
    {                                                                          \
        "max-memory", required_argument, NULL, CMD_OPT_MAX_MEMORY              \
    }

struct cmd_resources {
    int kind;               /* CMD_OPT_R, _XML, _GRAPH, _GENERATE; 0: none */
    const char *arg;        /* its argument (borrowed from argv) */
    const char *hostname;   /* --hostname, or NULL */
    const char *max_memory; /* --max-memory, or NULL */
    int twice;              /* a second resource option, or 0 */
};

/* The options of a subcommand that takes the resource options: optstring
 * and long options (with the resource options, -h and --help), the value
 * of --help among them, and what prints its usage. */
struct cmd_getopt {
    const char *sub;
    const char *shortopts;
    const struct option *opts;
    int help;
    void (*usage) (FILE *f);
};

/* getopt_long over argv (set optind to 0 before the first call): the
 * resource options are recorded in r, -h and --help print the usage to
 * stdout and exit 0, an unknown option or a missing argument is a usage
 * error (exit 2).  Returns the next other option (optarg set), or -1
 * after the last. */
int cmd_resources_getopt (const struct cmd_getopt *g, struct cmd_resources *r,
                          int argc, char **argv);

/* Check r (usage errors, exit 2: none given, two given, --hostname
 * without --xml, a bad --max-memory or $RESPOL_MAX_MEMORY), set the
 * memory limit (cmd_memory_limit) and build the finalized graph; on bad
 * input print "respol: SUB: message" and exit 1.  Caller must
 * rp_graph_destroy. */
struct rp_graph *cmd_resources_load (const char *sub,
                                     const struct cmd_resources *r);

/* Does r read stdin ("-R -", "--graph=-")? */
bool cmd_resources_stdin (const struct cmd_resources *r);

/* Help text of the resource options, for usage messages. */
extern const char cmd_resources_help[];

/* --- who submits: --user, --account, --queue ----------------------------
 * Taken by respol jobspec validate, match and query (core/cmd/who.c). */
struct rp_context;
struct rp_jobspec;

enum {
    CMD_OPT_USER = 0x1100,
    CMD_OPT_ACCOUNT,
    CMD_OPT_QUEUE,
};
#define CMD_WHO_LONGOPTS                                                       \
    { "user", required_argument, NULL, CMD_OPT_USER },                         \
        { "account", required_argument, NULL, CMD_OPT_ACCOUNT },               \
    {                                                                          \
        "queue", required_argument, NULL, CMD_OPT_QUEUE                        \
    }
#define CMD_WHO_HELP                                                           \
    "      --user=NAME|UID the user who submits (default: you)\n"             \
    "      --account=NAME  the account (default: the jobspec's "             \
    "system.bank)\n"                                                        \
    "      --queue=NAME    the queue (default: the jobspec's system.queue)\n"

struct cmd_who {
    const char *user, *account, *queue; /* borrowed from argv, or NULL */
};

/* Record option c in w: 1 when it was one of these options, else 0. */
int cmd_who_option (struct cmd_who *w, int c, const char *arg);
/* The context for a job of jobspec js (may be NULL): origin "command",
 * the user (else the caller), the account and queue (else js's).  NULL
 * with error ("unknown user 'x'", ...).  Caller must destroy. */
struct rp_context *cmd_context (const struct cmd_who *w,
                                const struct rp_jobspec *js,
                                rp_error_t *error);
/* cmd_context in two steps, for a command that makes many jobs: the
 * context of w's user (looked up in the password and group databases
 * once), then a copy of it with w's (else js's) account and queue. */
struct rp_context *cmd_context_user (const struct cmd_who *w,
                                     rp_error_t *error);
struct rp_context *cmd_context_from (const struct rp_context *user,
                                     const struct cmd_who *w,
                                     const struct rp_jobspec *js,
                                     rp_error_t *error);

/* `respol graph`, `respol match`, `respol query`. */
int cmd_graph (int argc, char **argv);
int cmd_match (int argc, char **argv);
int cmd_query (int argc, char **argv);
/* `respol simulate` (core/cmd/simulate.c). */
int cmd_simulate (int argc, char **argv);

/* `respol resource`: the inventory and RFC 28 acquisition. */
int cmd_resource (int argc, char **argv);
/* respol run and respol shell (core/cmd/run.c, core/cmd/jobshell.c). */
int cmd_run (int argc, char **argv);
int cmd_shell (int argc, char **argv);

/* --- matching: pieces shared by respol match and respol query ---------- */
struct rp_matcher;

/* The plugin configuration (cmd_load_config); exits 1 when it does not
 * load. */
struct rp_config *cmd_match_config (const char *sub, const char *path);

/* A matcher over g (ownership taken) with the policy named policy
 * (rp_config_policy), or, when policy is NULL and cfg has no match stack,
 * the matcher's built-in first fit.  Dies with the library's message. */
struct rp_matcher *cmd_matcher_create (const char *sub, struct rp_graph *g,
                                       struct rp_config *cfg,
                                       const char *policy);

/* The message for a failed allocate or satisfiability check: "never
 * satisfiable: " (errnum ENODEV) or "not satisfiable now: " (EBUSY)
 * before the library's text.  Written into buf; returns buf.
 * cmd_match_status is the exit status for errnum: EXIT_PLUGIN for EPROTO
 * (the policy failed), else EXIT_INPUT. */
const char *cmd_match_error (const rp_error_t *error, int errnum, char *buf,
                             size_t size);
int cmd_match_status (int errnum);

/* Print the matcher's explanation of its last match (rp_matcher_
 * explanation) on stderr, "respol: SUB: explain: ..." lines:
 *   policy first: allocated
 *   node (count 2): considered 4, taken 2; 1 busy, 1 pruned by the policy
 *   pruned by the policy: 1 of the nodes looked at
 *   top scores: node3 12, node1 7
 * Nothing when there is none. */
void cmd_explain_print (const char *sub, const struct rp_matcher *m);

/* Parse --now (seconds since the epoch: finite, >= 0) and a job id
 * (decimal, unsigned 64-bit).  0, or -1 with the output untouched. */
int cmd_parse_now (const char *s, double *now);
int cmd_parse_jobid (const char *s, uint64_t *jobid);

#endif
