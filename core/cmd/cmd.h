/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Shared pieces of the respol command: subcommand entry points and the
 * helpers that give every subcommand the same error conventions:
 *   respol: SUBCOMMAND: message     on stderr
 *   exit 1 on bad input, 2 on bad usage.
 */
#ifndef RESPOL_CMD_H
#define RESPOL_CMD_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include <respol/config.h>
#include <respol/diag.h>

#define EXIT_INPUT 1
#define EXIT_USAGE 2

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

/* Load the plugin configuration (path, else $RESPOL_CONFIG, else the
 * installed one) with plugin messages sent to log (arg), print every
 * message of the load, and return it; NULL, after printing why, when it
 * does not load.  Caller must rp_config_destroy. */
struct rp_config *cmd_load_config (const char *sub, const char *path,
                                   rp_plugin_log_f log, void *arg);

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

#endif
