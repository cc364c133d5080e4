/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The respol plugin ABI.
 *
 * A plugin is a shared object that exports exactly one symbol,
 * RP_PLUGIN_SYMBOL ("respol_plugin"): a const struct rp_plugin_desc.  The
 * host reads abi_version, size and kind first and refuses a plugin built for
 * another ABI version or of another kind than the stack it is configured
 * in, before it calls any of its functions.  (Loading a shared object runs
 * its ELF constructors, as dlopen always does; the loader's checks on the
 * file's owner and mode, and on its directories, come before that.)
 *
 * A site plugin is built with nothing but this header:
 *
 *   cc -shared -fPIC $(pkg-config --cflags respol) -o site.so site.c
 *
 * It is not linked against librespol: the functions it calls (rp_*, and
 * jansson's json_*) are resolved when the host loads it, from the host
 * process.  Keep every other symbol of the plugin static.
 *
 * Compatibility rules (the contract between host and plugin):
 * - RP_PLUGIN_ABI_VERSION changes only when a change is incompatible.  A
 *   plugin built for ABI N loads in every release whose ABI is N.
 * - The first four fields of struct rp_plugin_desc (abi_version, size,
 *   kind, name) keep their types and places in every ABI version, so a
 *   host can always say which plugin it refuses and why.
 * - struct rp_plugin_desc, struct rp_host_services and every kind's ops
 *   struct only grow at the end.  Each starts with its size, as built: the
 *   host uses only the fields a plugin's size covers (a missing field is
 *   treated as NULL), and a plugin must check svc->size before it uses a
 *   service added after the first release.
 * - Plugins see jobspec, R, graph vertices and tasks only through opaque
 *   handles and the accessor functions of librespol; no struct of the
 *   library crosses the boundary.
 *
 * Kinds: RP_PLUGIN_VALIDATE (jobspec validators) is defined here.  The
 * kinds RP_PLUGIN_MATCH (match policy), RP_PLUGIN_PROPERTY (constraint
 * operators and property handling) and RP_PLUGIN_SHELL (job-shell task
 * hooks) are reserved: their numbers are fixed and their ops structs will be
 * defined by the releases that build those features.  The host refuses to
 * load a plugin of a reserved kind until then.
 *
 * Threads: the host calls a plugin instance from one thread at a time.
 */
#ifndef RESPOL_PLUGIN_H
#define RESPOL_PLUGIN_H

#include <stdarg.h>
#include <stdint.h>

#include <jansson.h>

#include <respol/jobspec.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RP_PLUGIN_ABI_VERSION 1
#define RP_PLUGIN_SYMBOL "respol_plugin"

/* Mark the descriptor so it stays exported under -fvisibility=hidden.  In
 * C++ a namespace-scope const has internal linkage and a mangled name, so
 * the macro also gives it C linkage there. */
#ifdef __cplusplus
#define RP_PLUGIN_EXPORT extern "C" __attribute__ ((visibility ("default")))
#else
#define RP_PLUGIN_EXPORT __attribute__ ((visibility ("default")))
#endif

enum rp_plugin_kind {
    RP_PLUGIN_VALIDATE = 1, /* jobspec validator: struct rp_validate_ops */
    RP_PLUGIN_MATCH = 2,    /* reserved: match policy */
    RP_PLUGIN_PROPERTY = 3, /* reserved: constraint operators, properties */
    RP_PLUGIN_SHELL = 4,    /* reserved: job-shell task hooks */
};

/* Log levels (syslog's numbers). */
enum rp_log_level {
    RP_LOG_ERR = 3,
    RP_LOG_WARNING = 4,
    RP_LOG_NOTICE = 5,
    RP_LOG_INFO = 6,
    RP_LOG_DEBUG = 7,
};

/* The host's handle on one plugin instance (one entry of a stack; a plugin
 * configured twice has two).  Opaque; valid from init to fini. */
struct rp_plugin;

/* Services the host offers every plugin, passed to init.  The table is
 * owned by the host, constant, and lives as long as the plugin is loaded,
 * so a plugin may keep the pointer in a static variable. */
struct rp_host_services {
    uint32_t size;        /* sizeof (struct rp_host_services) in the host */
    uint32_t abi_version; /* RP_PLUGIN_ABI_VERSION of the host */

    /* Log a message, prefixed by the host with the instance name. */
    void (*log) (struct rp_plugin *p, int level, const char *fmt, ...)
        __attribute__ ((format (printf, 3, 4)));

    /* This instance's configuration block: the entry's "config" value, an
     * empty object when the entry has none.  Read-only, borrowed for the
     * life of the instance. */
    const json_t *(*config) (struct rp_plugin *p);

    /* Say why init (or another operation) failed.  The host prints the
     * message with the instance name and, for init, the position of the
     * configuration block.  Returns -1, so: return svc->error (p, "..."); */
    int (*error) (struct rp_plugin *p, const char *fmt, ...)
        __attribute__ ((format (printf, 2, 3)));

    /* A per-instance data pointer for the plugin's own state; NULL until
     * set.  The plugin frees what it stored, in fini. */
    void (*set_data) (struct rp_plugin *p, void *data);
    void *(*get_data) (struct rp_plugin *p);

    /* The instance name: the entry's "name", else the plugin's name. */
    const char *(*name) (struct rp_plugin *p);

    /* New services are added here, at the end. */
};

/* The descriptor: the one symbol a plugin exports, e.g.
 *
 *   RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
 *       .abi_version = RP_PLUGIN_ABI_VERSION,
 *       .size = sizeof (struct rp_plugin_desc),
 *       .kind = RP_PLUGIN_VALIDATE,
 *       .name = "site",
 *       .description = "reject jobs that ask for more than 4 GPUs",
 *       .version = "1.0",
 *       .init = site_init,
 *       .fini = site_fini,
 *       .ops = &site_ops,
 *   };
 */
struct rp_plugin_desc {
    uint32_t abi_version;    /* RP_PLUGIN_ABI_VERSION the plugin was built for */
    uint32_t size;           /* sizeof (struct rp_plugin_desc) as built */
    uint32_t kind;           /* enum rp_plugin_kind */
    const char *name;        /* letters, digits, '-', '_'; 1-64 bytes */
    const char *description; /* one line */
    const char *version;     /* the plugin's own version, e.g. "1.2.0" */

    /* Called once per instance after the checks, before any operation.
     * Validate the configuration block here: return 0, or -1 after
     * svc->error() to stop the whole stack from loading.  Optional: a
     * plugin without init accepts only an empty configuration block. */
    int (*init) (struct rp_plugin *p, const struct rp_host_services *svc);
    /* Called once per instance when the stack is unloaded; not called when
     * init failed (init frees what it allocated before failing).
     * Optional. */
    void (*fini) (struct rp_plugin *p);

    /* The kind's operations: const struct rp_validate_ops * for
     * RP_PLUGIN_VALIDATE.  Required. */
    const void *ops;

    /* New fields are added here, at the end. */
};

/* --- kind RP_PLUGIN_VALIDATE --------------------------------------------
 *
 * RFC 14: "A stack of plugins SHALL test jobspec against site or user
 * defined criteria, and on failure, MAY reject the jobspec, or MAY warn the
 * user and continue on."  The host runs the stack in order on a jobspec
 * that already passed the RFC checks; the first reject stops it; every
 * warning is reported.
 */

/* Verdicts, returned by validate. */
enum rp_verdict {
    RP_ACCEPT = 0,
    RP_WARN = 1,   /* accept, with the messages given by rp_validation_warn */
    RP_REJECT = 2, /* reject, with the message given by rp_validation_reject */
};

/* One run of the stack over one jobspec.  Opaque; borrowed for the
 * duration of the validate call. */
struct rp_validation;

struct rp_validate_ops {
    uint32_t size; /* sizeof (struct rp_validate_ops) as built */

    /* Judge js (borrowed for the call).  Return an enum rp_verdict, after
     * rp_validation_warn() / rp_validation_reject() for the message.  A
     * return of -1 (or any other value) is a plugin failure: the host
     * rejects the jobspec with "<instance>: plugin failed" and the text of
     * svc->error(), if any.  Required. */
    int (*validate) (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v);

    /* New operations are added here, at the end. */
};

/* Services for validate (exported by librespol): */

/* Record a warning / the reason for rejection (printf-style, one line).
 * They return RP_WARN / RP_REJECT, so: return rp_validation_reject (v, ...);
 * A validator may warn several times. */
int rp_validation_warn (struct rp_validation *v, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
int rp_validation_reject (struct rp_validation *v, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Amend the jobspec: set the value at a dotted path under "attributes"
 * (e.g. "system.queue", "system.duration", "system.constraints").  Takes
 * ownership of value (a new reference, as json_pack returns).  The host
 * applies a validator's amendments when it returns RP_ACCEPT or RP_WARN,
 * checks the amended jobspec against the RFC again, and passes it to the
 * next validator; the stack's result carries the amended jobspec.
 * Returns 0, or -1 with errno EINVAL (bad path) / ENOMEM; value is
 * released on failure too. */
int rp_validation_amend (struct rp_validation *v, const char *path,
                         json_t *value);

#ifdef __cplusplus
}
#endif
#endif
