/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The host side of the plugin runtime: respol's configuration file, the
 * plugin stacks it configures, and the validator stack run (RFC 14: "a
 * stack of plugins SHALL test jobspec against site or user defined
 * criteria, and on failure, MAY reject the jobspec, or MAY warn the user
 * and continue on").  The plugin side of the ABI is respol/plugin.h.
 *
 * The configuration file (YAML, read with respol/document.h, so every
 * error says file:line:column) looks like
 *
 *   plugin-path: [/etc/respol/plugins]   # searched first, absolute only
 *   allow-insecure-path: false
 *   validate:                            # the validator stack, in order
 *     - plugin: require-duration         # a name: searched for NAME.so
 *       config: {default: 3600}
 *     - plugin: /opt/site/limits.so      # or an absolute path
 *       name: limits-debug               # instance name (default: the
 *       config: {queue: debug}           # plugin's own name)
 *   match:                               # match policies (respol/match.h)
 *     - plugin: first                    # the first entry is the default
 *   property:                            # property plugins (respol/
 *     - plugin: hostlist-properties       # property.h): run in order when
 *       config: {gpu: "node[0-3]"}        # an inventory is built
 *   shell: []                            # job-shell plugins (respol/shell.h)
 *   log:                                 # plugins' svc->log messages
 *     level: info     # err|warning|notice|info|debug or 3-7 (warning)
 *     to: syslog      # stderr (the default), syslog, or /an/absolute/file
 *
 * The log level set by the host (rp_plugin_set_log_level: the respol
 * command's -v and RESPOL_LOG) wins over the file's.  A log file is
 * opened (append, close-on-exec, created 0600) before the first init and
 * closed after the last fini, under the checks of the configuration
 * file itself (it is written, and a directory someone else can write
 * would let them point it at any file); one that cannot be opened or is
 * refused is a warning, and messages go to stderr instead.
 *
 * A plugin named without '/' is searched, in order, in the configuration's
 * plugin-path, then in $RESPOL_PLUGIN_PATH (colon separated; empty and
 * relative entries are ignored with a warning), then in the installed
 * plugin directory (rp_config_plugin_dir: the build tree's plugin
 * directories for the build tree's own command); the current directory is
 * never searched.  A plugin
 * file is refused if it, any directory above it (symbolic links resolved,
 * up to "/"), or any directory above the name as written (the search
 * directory) is writable by group or others, or is owned by a user other
 * than root and the effective user, except a sticky directory (/tmp) whose
 * entry on the path belongs to root or the effective user: no one else
 * can replace that entry.  allow-insecure-path: true turns these
 * checks off for plugins.  The configuration file gets the same checks,
 * always: an insecure configuration is refused (allow-insecure-path in it
 * cannot vouch for itself).  $RESPOL_CONFIG and $RESPOL_PLUGIN_PATH are
 * ignored in a set-user-ID or set-group-ID process (secure_getenv).
 *
 * Loading is all-or-nothing: every entry of every stack is loaded, checked
 * and initialised with its configuration block, every error is reported,
 * and if there was any, every instance already initialised is finalised
 * (in reverse order) and unloaded before rp_config_load returns NULL.
 *
 * Threads: load and destroy configurations from any thread (the loader
 * serialises loading and unloading, and holds one process-wide lock around
 * every plugin init and fini call); a configuration's stacks are run by one thread at a
 * time (plugin.h promises plugins one caller at a time).
 *
 * Crashes: a plugin that dies of SIGSEGV, SIGBUS, SIGFPE, SIGILL or
 * SIGABRT inside one of its functions (init, validate, score, prune,
 * order_candidates, fini) is named on stderr before the process dies:
 *   respol: plugin 'NAME' (FILE) crashed in validate: Segmentation fault
 * For this the library installs, once per process, before its first call
 * into a plugin, a handler for these five signals (SA_SIGINFO |
 * SA_ONSTACK | SA_NODEFER), and gives each thread that calls a plugin an
 * alternate signal stack unless it has one, so a stack overflow is named
 * too.  The handler is installed once and chains: after the message (and
 * for any such signal outside a plugin, without one) it calls the handler
 * that was installed before it (a sanitizer's, the host's), or, when that
 * was the default action (or SIG_IGN), restores the default action and
 * raises the signal again, so the process dies of it as it would have
 * (exit status 128 + the signal's number in a shell).  A host that
 * installs its own handler for these signals after loading a plugin
 * replaces this one (plugins are then not named), unless it chains to it
 * in turn.  Installing and removing a handler around every call instead
 * would cost two system calls per call of a match policy's score.
 *
 * Ownership: rp_config_load returns a configuration the caller must
 * destroy.  Stacks, plugin instances and every string returned by their
 * accessors are borrowed from the configuration and live as long as it
 * does.  rp_plugin_inspect returns an object the caller must destroy with
 * rp_plugin_destroy.
 */
#ifndef RESPOL_CONFIG_H
#define RESPOL_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <respol/diag.h>
#include <respol/error.h>
#include <respol/jobspec.h>
#include <respol/plugin.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Environment variables read by the loader. */
#define RP_CONFIG_ENV "RESPOL_CONFIG"
#define RP_PLUGIN_PATH_ENV "RESPOL_PLUGIN_PATH"

/* --- configuration ------------------------------------------------------ */

enum rp_config_flags {
    /* Read and check the file only: resolve, load and initialise no
     * plugin.  The stacks of the result are empty. */
    RP_CONFIG_NOLOAD = 1,
};

struct rp_config;

/* Read the configuration at path and load every stack it configures.
 * path NULL means $RESPOL_CONFIG when set and not empty, else the
 * default rp_config_default_path(); a missing default is an empty
 * configuration, a missing file named otherwise is an error.
 * A file that holds nothing but blank lines and comments is an empty
 * configuration, and so is the name "/dev/null" (not opened).  The file is
 * opened once and read through that open file; anything but a regular
 * file is refused before it is opened ("configuration c.fifo: not a
 * regular file (a FIFO)", EINVAL).  Every error and warning is appended to
 * diags (which may be NULL), one line each, e.g.
 *   respol.yaml:3:1: unknown key 'valdiate'
 *   respol.yaml:7:13: validate[1]: plugin 'limits' not found in /a:/b
 *   respol.yaml:9:13: validate[2] 'strict': init failed: no limit given
 * Returns NULL with errno EINVAL when there was any error (ENOMEM, ENOENT,
 * EACCES... when the file cannot be read, EPERM when the file checks
 * refuse it), with no plugin left loaded.
 * Caller must destroy. */
struct rp_config *rp_config_load (const char *path, int flags,
                                  struct rp_diags *diags);
/* A configuration from a JSON tree rather than a file, for a host that
 * builds its stacks itself or keeps them in a configuration of its own (a
 * Flux module's TOML, a test bench): root (borrowed) has the keys of the
 * file, name labels messages (there is no line and column), and the
 * file's owner and mode checks have no file to apply to (the plugin
 * files still get theirs).  Otherwise as rp_config_load. */
struct rp_config *rp_config_load_json (const json_t *root, const char *name,
                                       int flags, struct rp_diags *diags);
/* Finalise every instance in reverse order, unload, free.  Accepts NULL,
 * keeps errno. */
void rp_config_destroy (struct rp_config *cfg);

/* The file read, or NULL when the default was missing.
 * Borrowed. */
const char *rp_config_path (const struct rp_config *cfg);
/* The default configuration: the installed RP_SYSCONFDIR
 * "/respol/respol.yaml" unless rp_config_set_defaults changed it.
 * Borrowed until the next rp_config_set_defaults. */
const char *rp_config_default_path (void);
/* The plugin directories searched last, colon separated: the installed
 * RP_PLUGINDIR unless rp_config_set_defaults changed them.  Borrowed until
 * the next rp_config_set_defaults. */
const char *rp_config_plugin_dir (void);
/* Replace, for this process, the installed default configuration
 * (default_path) and the installed plugin directory (plugin_dirs: one or
 * more absolute directories, colon separated); NULL keeps that one as it
 * is.  For a program that runs uninstalled, from respol's build tree (the
 * respol command does this when it is the build tree's own), or a host
 * that carries respol's plugins in a directory of its own.  The strings
 * are copied.  Call it before loading any configuration or plugin, from
 * one thread.  -1 with EINVAL (an empty or relative path) or ENOMEM, and
 * nothing changed. */
int rp_config_set_defaults (const char *default_path,
                            const char *plugin_dirs);

/* --- stacks ------------------------------------------------------------- */

/* An ordered list of plugin instances of one kind. */
struct rp_stack;

/* The stack of a kind (enum rp_plugin_kind): never NULL for a known kind
 * (a kind with no entries, or a reserved kind, has an empty stack); NULL
 * with errno EINVAL for cfg NULL or an unknown kind.  Borrowed. */
const struct rp_stack *rp_config_stack (const struct rp_config *cfg,
                                        uint32_t kind);
size_t rp_stack_count (const struct rp_stack *s);
/* Instance i (0-based, in configuration order); NULL when out of range.
 * Borrowed. */
const struct rp_plugin *rp_stack_plugin (const struct rp_stack *s, size_t i);

/* --- plugin instances and descriptors ----------------------------------- */

/* Accessors of an instance (or of an rp_plugin_inspect result).  Strings
 * are borrowed; the version and description are NULL when the descriptor
 * has none. */
const char *rp_plugin_instance (const struct rp_plugin *p); /* its name */
const char *rp_plugin_name (const struct rp_plugin *p);     /* the plugin's */
uint32_t rp_plugin_kind (const struct rp_plugin *p);
uint32_t rp_plugin_abi_version (const struct rp_plugin *p);
const char *rp_plugin_version (const struct rp_plugin *p);
const char *rp_plugin_description (const struct rp_plugin *p);
const char *rp_plugin_file (const struct rp_plugin *p); /* absolute path */

/* "validate", "match", "property" or "shell"; NULL for another value. */
const char *rp_plugin_kind_name (uint32_t kind);

/* Load the plugin file at path (absolute, or relative to the current
 * directory: it is made absolute, never searched for), check it as the
 * loader does for the stack of its own kind, copy its descriptor, and
 * unload it without calling anything in it.  The file checks (owner and
 * permissions) always apply.  On failure returns NULL, sets errno and
 * fills error with the loader's message, e.g.
 *   /p/x.so: plugin 'x' was built for ABI version 7, this respol has ABI
 *   version 1
 * Caller must destroy with rp_plugin_destroy. */
struct rp_plugin *rp_plugin_inspect (const char *path, rp_error_t *error);
/* The plugin an entry of cfg naming name would load: a name is searched
 * in cfg's plugin-path, then $RESPOL_PLUGIN_PATH, then
 * rp_config_plugin_dir() (cfg NULL: the last two), with the did-you-mean
 * of a name not found; an absolute path is taken as it is.  Inspected as
 * rp_plugin_inspect does; caller must rp_plugin_destroy. */
struct rp_plugin *rp_config_plugin_inspect (const struct rp_config *cfg,
                                            const char *name,
                                            rp_error_t *error);
/* The queue policy (respol/queue.h) called name: the instance of that
 * name in cfg's "queue" stack when config is NULL, else the plugin of that
 * name loaded (as a stack entry with the configuration block config,
 * borrowed; NULL: empty) and kept by cfg, the same name and block giving
 * the same instance.  With name and config NULL: the first instance of
 * the queue stack that has a pass, else the plugin "fcfs".  Borrowed from
 * cfg.  NULL with errno and error on failure (the loader's message). */
const struct rp_plugin *rp_config_queue_policy (struct rp_config *cfg,
                                                const char *name,
                                                const json_t *config,
                                                rp_error_t *error);
/* Destroy an rp_plugin_inspect result (never an instance of a
 * configuration).  Accepts NULL, keeps errno. */
void rp_plugin_destroy (struct rp_plugin *p);

/* Check a descriptor as the loader does before it calls anything, for a
 * stack of kind: ABI version, size, name, kind (unknown, reserved, or not
 * the stack's), required operations.  Useful in a plugin's own tests.
 * Returns 0, or -1 with errno EINVAL and error filled, e.g.
 *   plugin 'x' has no validate operation */
int rp_plugin_desc_check (const struct rp_plugin_desc *desc, uint32_t kind,
                          rp_error_t *error);

/* Plugins' svc->log messages.  A message is delivered when its level is
 * at most the log level: the one set with rp_plugin_set_log_level, else
 * the configuration's (the "log" block's "level"), else RP_LOG_WARNING.
 * Levels below RP_LOG_ERR count as RP_LOG_ERR, above RP_LOG_DEBUG as
 * RP_LOG_DEBUG.  A message above the level costs a comparison: it is not
 * formatted.  A delivered message is one line: control characters (a
 * newline, an escape) are written as \xHH, and it is cut at 1023 bytes.
 *
 * Where it goes is the configuration's "to": syslog (facility user,
 * "<instance>: <message>"), a file (one line per message, "TIME
 * PROGRAM[PID]: <instance>: <level>: <message>", TIME in UTC as
 * 2024-05-01T12:00:00Z), or, by default ("stderr"), the handler set here.
 * The handler receives the instance name, the level (an enum
 * rp_log_level) and the message (borrowed for the call).  The default
 * handler (fn NULL) prints "<instance>: <level name>: <message>" on
 * stderr.  Process-wide: set it before loading a configuration. */
typedef void (*rp_plugin_log_f) (const char *instance, int level,
                                 const char *message, void *arg);
void rp_plugin_set_log (rp_plugin_log_f fn, void *arg);

/* The host's log level (an enum rp_log_level), which wins over every
 * configuration's: what a command line or an environment variable asks
 * for.  0 unsets it (the configuration's level applies again).
 * Process-wide, and may be changed at any time.  Returns 0, or -1 with
 * EINVAL for another value. */
int rp_plugin_set_log_level (int level);
/* A level's name: "error", "warning", "notice", "info", "debug"; NULL for
 * another value.  Static. */
const char *rp_log_level_name (int level);
/* A level from its name (as above, or "err", syslog's), or its number
 * ("3" to "7").  Returns the level, or -1 with EINVAL. */
int rp_log_level_parse (const char *s);

/* --- the validator stack ------------------------------------------------ */

/* Run the validate stack of cfg over js (a valid jobspec, borrowed), each
 * validator in order.  Every warning is appended to diags as
 * "<instance>: <message>" (RP_DIAG_WARNING); the first rejection stops the
 * stack and is appended as "<instance>: <message>" (RP_DIAG_ERROR).  The
 * amendments of a validator that accepts (rp_validation_amend) are applied
 * to a copy of the jobspec, which is read again with the same profile; an
 * amendment that makes the jobspec invalid rejects it, in the name of that
 * validator.  A validator's return value decides: RP_REJECT rejects (with
 * its message, else "rejected"), RP_ACCEPT and RP_WARN accept, anything
 * else (-1, an unknown verdict) is a failure of the plugin, which stops
 * the stack and is appended as "<instance>: plugin failed: <svc->error
 * text>", or without a text as
 *   plugin '<instance>': validate returned 7 (no message)
 *
 * Returns RP_REJECT, else RP_WARN when there was any warning, else
 * RP_ACCEPT.  When the verdict is not RP_REJECT and some validator amended
 * the jobspec, *amended (if amended is not NULL) is set to the final
 * jobspec, which the caller must destroy; else it is set to NULL.
 * Returns -1 with errno EPROTO when a validator failed (the jobspec was
 * not judged), EINVAL (cfg or js NULL) or ENOMEM, *amended untouched. */
int rp_config_validate (const struct rp_config *cfg,
                        const struct rp_jobspec *js,
                        struct rp_jobspec **amended, struct rp_diags *diags);

/* rp_config_validate for a job of an instance: the validators see ctx
 * (respol/context.h; may be NULL: nothing known) and inst
 * (respol/instance.h; NULL where the host holds no instance state), and
 * may hold the job (RP_HOLD: valid, but it must wait).  A hold does not
 * stop the stack (a later validator may still reject); the first hold's
 * reason is the stack's.  Returns RP_REJECT, else RP_HOLD when a
 * validator held the job, else RP_WARN when there was any warning, else
 * RP_ACCEPT; amendments are kept (*amended) for every verdict but
 * RP_REJECT.  For RP_REJECT and RP_HOLD, *reason (if reason is not NULL)
 * is "<instance>: <message>", which the caller must free; else NULL.
 * rp_config_validate is this function without context and instance, and
 * reports a hold as a warning "held: <instance>: <message>" (RP_WARN).
 * -1 with errno EPROTO when a validator failed, as rp_config_validate. */
struct rp_context;
struct rp_instance;
int rp_config_validate_job (const struct rp_config *cfg,
                            const struct rp_jobspec *js,
                            const struct rp_context *ctx,
                            const struct rp_instance *inst,
                            struct rp_jobspec **amended, char **reason,
                            struct rp_diags *diags);

#ifdef __cplusplus
}
#endif
#endif
