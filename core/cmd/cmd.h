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

/* Read all of stream into a NUL terminated buffer (caller frees), dying
 * with a message on error or when it exceeds CMD_INPUT_MAX bytes. */
#define CMD_INPUT_MAX ((size_t)1 << 30)
char *cmd_read_all (const char *sub, FILE *stream, size_t *lenp);

/* Read a stream of concatenated JSON values (white space between them is
 * optional).  Returns a JSON array of them (caller must json_decref); dies
 * with "respol: SUB: stdin: line:col: message" on a syntax error. */
json_t *cmd_read_json_stream (const char *sub, FILE *stream);

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
};

#define CMD_RESOURCE_SHORTOPTS "R:"
#define CMD_RESOURCE_LONGOPTS                                                  \
    { "R", required_argument, NULL, CMD_OPT_R },                               \
        { "xml", required_argument, NULL, CMD_OPT_XML },                       \
        { "hostname", required_argument, NULL, CMD_OPT_HOSTNAME },             \
        { "graph", required_argument, NULL, CMD_OPT_GRAPH },                   \
    {                                                                          \
        "generate", required_argument, NULL, CMD_OPT_GENERATE                  \
    }

struct cmd_resources {
    int kind;             /* CMD_OPT_R, _XML, _GRAPH, _GENERATE; 0: none */
    const char *arg;      /* its argument (borrowed from argv) */
    const char *hostname; /* --hostname, or NULL */
    int twice;            /* a second resource option, or 0 */
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
 * without --xml) and build the finalized graph; on bad input print
 * "respol: SUB: message" and exit 1.  Caller must rp_graph_destroy. */
struct rp_graph *cmd_resources_load (const char *sub,
                                     const struct cmd_resources *r);

/* Does r read stdin ("-R -", "--graph=-")? */
bool cmd_resources_stdin (const struct cmd_resources *r);

/* Help text of the resource options, for usage messages. */
extern const char cmd_resources_help[];

/* `respol graph`, `respol match`, `respol query`. */
int cmd_graph (int argc, char **argv);
int cmd_match (int argc, char **argv);
int cmd_query (int argc, char **argv);

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

/* Parse --now (seconds since the epoch: finite, >= 0) and a job id
 * (decimal, unsigned 64-bit).  0, or -1 with the output untouched. */
int cmd_parse_now (const char *s, double *now);
int cmd_parse_jobid (const char *s, uint64_t *jobid);

#endif
