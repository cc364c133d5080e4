/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Shared between the loader (core/plugin.c), the configuration
 * (core/config.c) and the validator stack (core/validate.c): the plugin
 * instance and the loader's internal entry points.  Nothing here is
 * exported (no rp_ prefix: the version script keeps it local).
 */
#ifndef RESPOL_PLUGIN_PRIVATE_H
#define RESPOL_PLUGIN_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>
#include <ltdl.h>

#include "respol/config.h"
#include "respol/diag.h"
#include "respol/error.h"
#include "respol/plugin.h"
#include "respol/property.h"
#include "respol/queue.h"
#include "respol/shell.h"

/* A configuration's log block (core/config.c reads it and owns it; the
 * instances it loads point to it). */
enum plugin_log_to {
    PLUGIN_LOG_HANDLER = 0, /* rp_plugin_set_log's handler (stderr) */
    PLUGIN_LOG_SYSLOG,
    PLUGIN_LOG_FILE,
};
struct plugin_log {
    int level; /* RP_LOG_ERR..RP_LOG_DEBUG; 0: not given */
    enum plugin_log_to to;
    int fd; /* PLUGIN_LOG_FILE: open for appending */
};

struct rp_plugin {
    char *file;        /* absolute path as resolved */
    char *name;        /* descriptor name (copied) */
    char *instance;    /* instance name */
    char *version;     /* copied, or NULL */
    char *description; /* copied, or NULL */
    uint32_t abi_version;
    uint32_t kind;

    int fd;                            /* the file loaded, -1 once unloaded */
    lt_dlhandle handle;                /* NULL once unloaded (inspect) */
    const struct rp_plugin_desc *desc; /* NULL once unloaded */
    void (*fini) (struct rp_plugin *p);
    int (*validate) (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v);
    /* Either kind's job_event when its ops table covers it, else NULL. */
    int (*job_event) (struct rp_plugin *p, int event, const struct rp_job *job);
    /* Kind match: the plugin's ops as the host sees them: the fields its
     * size covers, copied; the others NULL / 0.  Callers need no size
     * checks. */
    struct rp_match_ops match;
    /* Kind shell: the ops its size covers, copied; the others NULL. */
    struct rp_shell_ops shell;
    /* Kind property: likewise. */
    struct rp_property_ops property;
    /* Kind queue: likewise. */
    struct rp_queue_ops queue;

    json_t *config; /* the configuration block (a reference) */
    void *data;     /* svc->set_data */
    bool initialized;
    bool in_init; /* inside its init call (rp_property_add_operator) */
    char error[RP_ERROR_TEXT_SIZE]; /* last svc->error text, "" if none */

    /* Where svc->log goes: the configuration's log block (owned by it),
     * NULL for the defaults. */
    const struct plugin_log *log;
    /* "respol: plugin 'INSTANCE' (FILE) crashed in ", written by the
     * crash handler; made by plugin_start. */
    char *crash_prefix;
};

/* Load the plugin file (an absolute path), check it for a stack of kind
 * (file permissions unless allow_insecure, loadability with every symbol
 * bound, descriptor; kind 0: for the stack of its own kind).  Messages
 * start with file.  Does not call init. */
struct rp_plugin *plugin_open (const char *file, uint32_t kind,
                               bool allow_insecure, rp_error_t *error);
/* Call init with the instance name and configuration block (a new
 * reference is taken).  Messages are "init failed: ..." (the caller adds
 * where). */
int plugin_start (struct rp_plugin *p, const char *instance, json_t *config,
                  rp_error_t *error);
/* The configuration keys p declares (a NULL-terminated list checked at
 * load, borrowed from the loaded plugin), or NULL when it declares none
 * (or its descriptor predates the field, or it is unloaded). */
const char *const *plugin_config_keys (const struct rp_plugin *p);
/* fini (if init succeeded), unload, free.  Accepts NULL, keeps errno. */
void plugin_close (struct rp_plugin *p);

/* Log as the instance p, as svc->log does. */
void plugin_log (struct rp_plugin *p, int level, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Deliver a job event (an enum rp_job_event) to every instance of the
 * validate stack, then the match stack, of cfg that has a job_event
 * operation (core/config.c).  A failure is logged with the instance
 * name; delivery goes on. */
void config_job_event (const struct rp_config *cfg, int event,
                       const struct rp_job *job);

/* The search path for plugin names: the configuration's directories
 * (cfg_dirs, ncfg of them), then the absolute entries of
 * $RESPOL_PLUGIN_PATH (a warning in diags for each empty or relative
 * one), then plugin_builtin_dirs().  *dirs is a NULL-terminated array of
 * copies; free it with plugin_path_free. */
/* The directories searched last, colon separated: RP_PLUGINDIR unless
 * plugin_set_builtin_dirs (absolute directories only: else EINVAL)
 * replaced it.  Static until the next plugin_set_builtin_dirs. */
const char *plugin_builtin_dirs (void);
int plugin_set_builtin_dirs (const char *dirs);

int plugin_path_create (char *const *cfg_dirs, size_t ncfg,
                        struct rp_diags *diags, char ***dirs);
void plugin_path_free (char **dirs);

/* Find NAME.so in the first directory of dirs that has an entry of that
 * name, whatever it is (a directory or a dangling symlink is then reported
 * by plugin_open, not skipped).  On success *file is the path (caller
 * frees).  Not found: -1, ENOENT,
 * "plugin 'NAME' not found in DIR:DIR...", and "; did you mean 'X'?"
 * when a name is close (core/suggest.h): one of those already offered to
 * hint (for NAME; NULL: none), else of the NAME.so files in dirs. */
struct suggest;
int plugin_find (const char *name, char *const *dirs, struct suggest *hint,
                 char **file, rp_error_t *error);

/* Open file for reading, resolved, without following a symlink at the
 * last step, and return the descriptor (blocking, close-on-exec).  It
 * must be a regular file: anything else is refused before it is opened,
 * EINVAL, "FILE: not a regular file (a FIFO)".  Unless !check, the file,
 * every directory above its resolved path and every directory above the
 * name as given must be owned by root or the effective user and not
 * writable by group or others, except that a sticky directory may be if
 * the entry the path takes in it belongs to root or the effective user.
 * Messages start with file; refusals are EPERM, "FILE: refusing to VERB:
 * ...", and say how to fix the mode. */
int plugin_secure_open (const char *file, const char *verb, bool check,
                        rp_error_t *error);

/* Make librespol's and jansson's symbols global (once per process), for
 * plugins loaded by a host that opened librespol with RTLD_LOCAL. */
void plugin_promote_globals (void);

/* Open file (absolute) to append log lines to it, creating it (mode
 * 0600) when it does not exist, under the configuration's trust rules:
 * every directory above it owned by root or the effective user and
 * writable by no one else (or sticky, with the entry root's or the
 * user's); the file is not followed if it is a symlink, and must be a
 * regular file with one link, owned by root or the user, writable by no
 * one else.  The descriptor (O_APPEND, close-on-exec), or -1 with error
 * ("FILE: refusing to write: ..."). */
int plugin_log_open (const char *file, rp_error_t *error);

/* A call into a plugin, for the crash handler.  Around every call of a
 * plugin's function:
 *   struct plugin_call c;
 *   plugin_enter (&c, p, "validate");
 *   rc = p->validate (...);
 *   plugin_leave (&c);
 * A fatal signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT) in the calling
 * thread between the two writes "respol: plugin 'NAME' (FILE) crashed in
 * validate: Segmentation fault" on stderr, then lets the signal take its
 * course (see plugin.c).  Calls nest (an init may load a configuration). */
struct plugin_call {
    const char *prefix; /* p->crash_prefix */
    const char *op;     /* a string literal */
    const struct plugin_call *prev;
};

/* Per thread: the innermost call, and whether the thread is set up
 * (handlers installed, alternate stack checked).  Inline and
 * initial-exec: score runs per candidate, and a function call and
 * __tls_get_addr on each side cost as much as the rest of the call.
 * (A 16-byte initial-exec block fits the static TLS that glibc keeps for
 * libraries opened with dlopen.) */
struct plugin_tls {
    const struct plugin_call *call;
    bool ready;
};
extern __thread struct plugin_tls plugin_tls
    __attribute__ ((tls_model ("initial-exec")));
/* Install the handler (once per process) and this thread's alternate
 * stack; sets plugin_tls.ready. */
void plugin_thread_setup (void);

static inline void plugin_enter (struct plugin_call *c,
                                 const struct rp_plugin *p, const char *op)
{
    if (!plugin_tls.ready)
        plugin_thread_setup ();
    c->prefix =
        p->crash_prefix ? p->crash_prefix : "respol: a plugin crashed in ";
    c->op = op;
    c->prev = plugin_tls.call;
    /* The handler runs in this thread: the record is complete before it
     * is published, and published before the call. */
    __atomic_signal_fence (__ATOMIC_SEQ_CST);
    plugin_tls.call = c;
    __atomic_signal_fence (__ATOMIC_SEQ_CST);
}

static inline void plugin_leave (const struct plugin_call *c)
{
    __atomic_signal_fence (__ATOMIC_SEQ_CST);
    plugin_tls.call = c->prev;
}

/* Plugin and instance names: letters, digits, '-', '_'; 1-64 bytes. */
#define PLUGIN_NAME_MAX 64
bool plugin_name_valid (const char *s);

#endif
