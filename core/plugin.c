/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The plugin loader: find a plugin file, check it, load it with libltdl,
 * check its descriptor (api/respol/plugin.h) before calling anything in
 * it, and call init and fini with the host-services table.  The
 * configuration (core/config.c) builds stacks out of these instances; the
 * validator stack (core/validate.c) runs them.
 *
 * Decisions a reader would otherwise rediscover:
 * - Load what was checked.  The resolved file is opened once (O_NOFOLLOW),
 *   checked through that descriptor (fstat), and the loader loads
 *   "/proc/self/fd/N", that very open file: nobody can swap the file
 *   between the check and the load (a reviewer did, by path, 28 times in
 *   300).  The descriptor stays open as long as the plugin is loaded:
 *   glibc and libltdl both recognise an object already loaded by its
 *   name, so "/proc/self/fd/N" must name one file at a time.  (A plugin
 *   that dlclose cannot unload, e.g. one with STB_GNU_UNIQUE symbols, is
 *   a known gap: a later plugin opened on the same fd number would get
 *   the old one.)
 * - Which directories count.  Every directory from "/" down to the
 *   resolved file, and every directory of the name as written (a search
 *   directory holding a symlink, the directories above it, and that
 *   directory resolved), must be owned by root or the effective user and
 *   not writable by group or others (group members are other users:
 *   OpenSSH's StrictModes rule).  One exception: a sticky directory
 *   (/tmp) writable by others or by its group passes when the entry the
 *   path takes in it (lstat: a symlink is judged as itself, not as what
 *   it leads to) belongs to root or the effective user, as does the
 *   directory (its owner may rename any entry).  No one else can
 *   then rename, remove or replace that entry, which is the rule of the
 *   kernel's protected_symlinks and of careful path walkers; everything
 *   below the entry is checked as usual.  A sticky directory that only
 *   its group can write passes on the same terms: the sticky bit binds
 *   group members as it binds others.  The directories are checked before
 *   the open, so the path the open resolves cannot have been changed by
 *   another user.  A refusal says which chmod would fix it.
 * - Only a regular file is opened.  lstat before the open refuses a FIFO
 *   (whose open would wait for a writer), a device (whose open may act),
 *   a socket or a directory, naming which it is; the open is O_NONBLOCK
 *   all the same, in case it changed since, and fstat checks again.
 * - allow-insecure-path skips the owner and mode checks only: the file is
 *   still opened once, checked to be a regular file and loaded through its
 *   descriptor.
 * - Undefined symbols.  libltdl opens with RTLD_LAZY, so a plugin calling
 *   a function librespol does not have would load and then kill the
 *   process at the first call ("symbol lookup error").  A second
 *   dlopen (RTLD_NOW | RTLD_NOLOAD) after lt_dlopen does not help: glibc
 *   only takes a reference on an object already mapped, it binds nothing
 *   (checked with glibc 2.36).  So the file is first opened with
 *   dlopen (RTLD_NOW | RTLD_LOCAL), which binds every symbol or fails with
 *   "undefined symbol: NAME"; then lt_dlopen of the same "/proc/self/fd/N"
 *   (libltdl accepts that path) takes its own reference on the same
 *   mapping (the handle we keep, for lt_dlsym and lt_dlclose) and the
 *   first handle is closed.  That dlopen is also where the messages come
 *   from: ltdl reports every failure as "file not found".
 * - Order of the checks.  When the RTLD_NOW open fails on an undefined
 *   symbol, the file is opened lazily to read its descriptor, so that a
 *   plugin built for another ABI (which naturally calls functions this
 *   respol lacks) is reported by its ABI version, as is any other
 *   descriptor error, before the undefined symbol.  That lazy open runs
 *   the plugin's constructors, which may call a missing function and die,
 *   so it is done in a forked child (as core/rhwloc.c does for hwloc)
 *   that sends back the descriptor check's message; a child that dies or
 *   finds nothing wrong means the undefined symbol alone is reported.
 * - The global scope.  Plugins resolve rp_* and json_* from the global
 *   scope; in a host that loaded librespol with RTLD_LOCAL (Python ctypes,
 *   a flux-broker module) every plugin would fail on an undefined symbol.
 *   Before the first load, librespol and jansson (found with dladdr) are
 *   reopened RTLD_NOLOAD | RTLD_GLOBAL, once per process; the handles are
 *   kept, so they stay global.
 * - Descriptors of another ABI version are read only up to the name: the
 *   first four fields (abi_version, size, kind, name) are the part of the
 *   layout every ABI version keeps.  The host requires a descriptor and an
 *   ops table at least as large as in the first release of ABI 1, and
 *   ignores what a larger one adds.
 * - Declared configuration keys (the descriptor's config_keys, when its
 *   size covers the field) are checked with the descriptor: names as
 *   plugin names, none twice, at most RP_PLUGIN_CONFIG_KEYS_MAX, so a
 *   list without its NULL is caught after that many.  The configuration
 *   (core/config.c) refuses a key not declared before init.
 * - Match policies (kind match): every operation is optional, but the
 *   ops table must cover size, order and stop_after, and order must be
 *   low or high (another value would make the walk order a guess).  At
 *   load the fields the table's size covers are copied into the instance
 *   (p->match), the others left NULL / 0, so the matcher calls them
 *   without size checks.  stop_after is not checked: any value is a
 *   meaningful limit.
 * - The search: the first directory with an entry NAME.so wins, whatever
 *   it is; a directory or a dangling symlink there is an error ("not a
 *   regular file", "No such file or directory"), not skipped, so what the
 *   site put first is never silently passed over.
 * - fini is not called for an instance whose init failed: init cleans up
 *   after itself.  Every init and fini call holds one process-wide
 *   (recursive: an init may load a configuration) lock, as
 *   api/respol/config.h promises.
 * - libltdl is not thread safe: every ltdl call (and lt_dlinit/lt_dlexit,
 *   one pair per loaded plugin, ltdl counts them) holds one mutex.
 * - Naming a plugin that crashes.  Every call into a plugin sets a
 *   per-thread record (plugin_enter/plugin_leave: the instance's prefix,
 *   made once by plugin_start, and the operation's name; two stores), and
 *   a handler for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT, installed
 *   once per process before the first call, writes "respol: plugin 'NAME'
 *   (FILE) crashed in OP: Segmentation fault" from that record with
 *   write(2) alone, then chains: to the handler installed before it (a
 *   sanitizer's, the host's), else to the default action, restored and
 *   raised again.  Installed once rather than around each call because
 *   score runs per candidate: two sigaction calls would cost more than
 *   the call.  SA_NODEFER without SA_RESETHAND: the handler stays for
 *   later signals a host may recover from, and resets the default action
 *   itself when it chains to it.  The handler runs on an alternate stack
 *   (SA_ONSTACK), which plugin_enter gives each thread that has none
 *   (mmap'ed, unmapped by a thread-exit destructor), so a stack overflow
 *   is named too.  The record is cleared in a child forked during a call
 *   (pthread_atfork): the child is not in the call.
 * - Logging.  svc->log compares the level first (the host's level, else
 *   the instance's configuration's, else warning) and formats only what
 *   passes, so a policy's debug messages in score cost a comparison when
 *   they are off.  A message is made one line (control characters as
 *   \xHH): it is written to a terminal, a file or syslog, and may carry
 *   a user's text (a queue name) that must not forge a line or move a
 *   cursor.  The destination is the configuration's (struct plugin_log,
 *   which core/config.c opens: see there for the log file's checks).
 */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "core/constraint_private.h"
#include "core/paths.h"
#include "core/plugin_private.h"
#include "respol/property.h"
#include "respol/shell.h"
#include "core/suggest.h"

/* The descriptor and validate ops as in the first release of ABI 1: the
 * host reads these fields, so a plugin must provide at least these. */
#define DESC_SIZE_V1 (offsetof (struct rp_plugin_desc, ops) + sizeof (void *))
#define VALIDATE_OPS_SIZE_V1                                                   \
    (offsetof (struct rp_validate_ops, validate) + sizeof (void *))
#define DESC_NAME_END                                                          \
    (offsetof (struct rp_plugin_desc, name) + sizeof (const char *))
/* The shell ops of the first release with the shell kind: all five. */
#define SHELL_OPS_SIZE_V1                                                      \
    (offsetof (struct rp_shell_ops, shell_exit) + sizeof (void *))
/* The property ops of the first release with the property kind. */
#define PROPERTY_OPS_SIZE_V1                                                   \
    (offsetof (struct rp_property_ops, annotate) + sizeof (void *))
#define QUEUE_OPS_SIZE_V1                                                      \
    (offsetof (struct rp_queue_ops, pass) + sizeof (void *))
#define MATCH_OPS_SIZE_V1                                                      \
    (offsetof (struct rp_match_ops, stop_after) + sizeof (uint32_t))
/* Does an ops table (of type T) of the given size cover field? */
#define OPS_COVERS(T, size, field)                                             \
    ((size) >= offsetof (T, field) + sizeof (((T *)0)->field))
#define MATCH_COVERS(size, field) OPS_COVERS (struct rp_match_ops, size, field)
/* Does descriptor d cover field? */
#define DESC_COVERS(d, field) OPS_COVERS (struct rp_plugin_desc, (d)->size, field)

static pthread_mutex_t ltdl_lock = PTHREAD_MUTEX_INITIALIZER;
/* Held around every init and fini call.  Recursive: an init may load a
 * configuration of its own. */
static pthread_mutex_t call_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

/* --- the global scope --------------------------------------------------- */

static pthread_once_t promote_once = PTHREAD_ONCE_INIT;
static void *promoted[2];

/* Reopen the object defining addr with RTLD_GLOBAL (it is loaded: NOLOAD
 * only changes its scope); the handle is kept for the process. */
static void *promote (const void *addr)
{
    Dl_info info;

    if (!dladdr (addr, &info) || !info.dli_fname)
        return NULL;
    return dlopen (info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL);
}

static void promote_run (void)
{
    promoted[0] = promote ((const void *)rp_config_load);
    promoted[1] = promote ((const void *)json_object);
}

void plugin_promote_globals (void)
{
    pthread_once (&promote_once, promote_run);
}

/* --- logging and host services ------------------------------------------ */

static void default_log (const char *instance, int level, const char *message,
                         void *arg)
{
    fprintf (stderr, "%s: %s: %s\n", instance, rp_log_level_name (level),
             message);
}

static rp_plugin_log_f log_fn = default_log;
static void *log_arg;
/* rp_plugin_set_log_level; 0: not set.  Read without a lock. */
static int host_level;

void rp_plugin_set_log (rp_plugin_log_f fn, void *arg)
{
    log_fn = fn ? fn : default_log;
    log_arg = fn ? arg : NULL;
}

static const char *const level_names[] = {
    [RP_LOG_ERR] = "error",     [RP_LOG_WARNING] = "warning",
    [RP_LOG_NOTICE] = "notice", [RP_LOG_INFO] = "info",
    [RP_LOG_DEBUG] = "debug",
};

static bool level_valid (int level)
{
    return level >= RP_LOG_ERR && level <= RP_LOG_DEBUG;
}

const char *rp_log_level_name (int level)
{
    return level_valid (level) ? level_names[level] : NULL;
}

int rp_log_level_parse (const char *s)
{
    if (!s) {
        errno = EINVAL;
        return -1;
    }
    for (int l = RP_LOG_ERR; l <= RP_LOG_DEBUG; l++)
        if (!strcmp (s, level_names[l]))
            return l;
    if (!strcmp (s, "err"))
        return RP_LOG_ERR;
    if (s[0] >= '0' + RP_LOG_ERR && s[0] <= '0' + RP_LOG_DEBUG && !s[1])
        return s[0] - '0';
    errno = EINVAL;
    return -1;
}

int rp_plugin_set_log_level (int level)
{
    if (level != 0 && !level_valid (level)) {
        errno = EINVAL;
        return -1;
    }
    __atomic_store_n (&host_level, level, __ATOMIC_RELAXED);
    return 0;
}

/* The most verbose level p's messages are delivered at: the host's,
 * else its configuration's, else warning. */
static int log_level (const struct rp_plugin *p)
{
    int level = __atomic_load_n (&host_level, __ATOMIC_RELAXED);

    if (level)
        return level;
    if (p->log && p->log->level)
        return p->log->level;
    return RP_LOG_WARNING;
}

/* msg on one line: control characters as \xHH, cut to fit out. */
static void log_escape (char *out, size_t size, const char *msg)
{
    size_t n = 0;

    for (const unsigned char *s = (const unsigned char *)msg; *s; s++) {
        bool ctl = *s < 0x20 || *s == 0x7f;
        if (n + (ctl ? 4 : 1) >= size)
            break;
        if (ctl)
            n += (size_t)snprintf (out + n, size - n, "\\x%02x", *s);
        else
            out[n++] = (char)*s;
    }
    out[n] = '\0';
}

static int write_all (int fd, const char *buf, size_t len);

/* "TIME PROGRAM[PID]: INSTANCE: LEVEL: MESSAGE", one write, so lines of
 * processes sharing the file (O_APPEND) do not mix. */
static void log_to_file (int fd, const char *instance, int level,
                         const char *msg)
{
    char line[1600], stamp[32];
    time_t now = time (NULL);
    struct tm tm;
    int n;

    if (!gmtime_r (&now, &tm)
        || !strftime (stamp, sizeof (stamp), "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf (stamp, sizeof (stamp), "-");
    n = snprintf (line, sizeof (line), "%s %s[%ld]: %s: %s: %s\n", stamp,
                  program_invocation_short_name, (long)getpid (), instance,
                  rp_log_level_name (level), msg);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof (line)) {
        n = sizeof (line) - 1;
        line[n - 1] = '\n';
    }
    (void)write_all (fd, line, (size_t)n);
}

static void svc_log (struct rp_plugin *p, int level, const char *fmt, ...)
{
    char raw[1024], msg[1024];
    const char *instance = p->instance ? p->instance : p->name;
    va_list ap;

    level = level < RP_LOG_ERR     ? RP_LOG_ERR
            : level > RP_LOG_DEBUG ? RP_LOG_DEBUG
                                   : level;
    if (level > log_level (p))
        return;
    va_start (ap, fmt);
    vsnprintf (raw, sizeof (raw), fmt, ap);
    va_end (ap);
    log_escape (msg, sizeof (msg), raw);
    if (p->log && p->log->to == PLUGIN_LOG_SYSLOG)
        syslog (LOG_USER | level, "%s: %s", instance, msg);
    else if (p->log && p->log->to == PLUGIN_LOG_FILE)
        log_to_file (p->log->fd, instance, level, msg);
    else
        log_fn (instance, level, msg, log_arg);
}

static const json_t *svc_config (struct rp_plugin *p)
{
    return p->config;
}

static int svc_error (struct rp_plugin *p, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (p->error, sizeof (p->error), fmt, ap);
    va_end (ap);
    return -1;
}

static void svc_set_data (struct rp_plugin *p, void *data)
{
    p->data = data;
}

static void *svc_get_data (struct rp_plugin *p)
{
    return p->data;
}

static const char *svc_name (struct rp_plugin *p)
{
    return p->instance;
}

void plugin_log (struct rp_plugin *p, int level, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    log_fn (p->instance ? p->instance : p->name, level, buf, log_arg);
}

static const struct rp_host_services services = {
    .size = sizeof (struct rp_host_services),
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .log = svc_log,
    .config = svc_config,
    .error = svc_error,
    .set_data = svc_set_data,
    .get_data = svc_get_data,
    .name = svc_name,
};

/* --- naming a plugin that crashes --------------------------------------- */

static const int crash_signals[] = {
    SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
};
/* As strsignal words them, which the handler cannot call. */
static const char *const crash_words[] = {
    "Segmentation fault",  "Bus error", "Floating point exception",
    "Illegal instruction", "Aborted",
};
#define NCRASH (sizeof (crash_signals) / sizeof (crash_signals[0]))
/* Large enough for the handler and what it chains to (a sanitizer's
 * report runs on it too). */
#define ALTSTACK_SIZE ((size_t)256 * 1024)

static pthread_once_t crash_once = PTHREAD_ONCE_INIT;
static struct sigaction crash_previous[NCRASH];
static pthread_key_t altstack_key;
static bool altstack_key_ok;

__thread struct plugin_tls plugin_tls
    __attribute__ ((tls_model ("initial-exec")));

/* The default action of sig, now: the process dies of it. */
static void crash_default (int sig)
{
    struct sigaction dfl;
    sigset_t set;

    memset (&dfl, 0, sizeof (dfl));
    dfl.sa_handler = SIG_DFL;
    sigemptyset (&dfl.sa_mask);
    sigaction (sig, &dfl, NULL);
    sigemptyset (&set);
    sigaddset (&set, sig);
    pthread_sigmask (SIG_UNBLOCK, &set, NULL);
    raise (sig);
    /* Still here: a fault raised by the processor comes back, with the
     * default action, when the handler returns to the instruction. */
}

/* What the handler that was there before would have done. */
static void crash_chain (size_t i, int sig, siginfo_t *info, void *uc)
{
    const struct sigaction *prev = &crash_previous[i];

    if ((prev->sa_flags & SA_SIGINFO) && prev->sa_sigaction)
        prev->sa_sigaction (sig, info, uc);
    else if (!(prev->sa_flags & SA_SIGINFO) && prev->sa_handler != SIG_DFL
             && prev->sa_handler != SIG_IGN)
        prev->sa_handler (sig);
    else
        crash_default (sig); /* SIG_IGN too: a fault cannot be ignored */
}

/* "PREFIX" then "OP: WORDS\n", with write(2) and the text prepared. */
static void crash_report (const struct plugin_call *c, size_t i)
{
    const char *parts[] = { c->op, ": ", crash_words[i], "\n" };
    char tail[128];
    size_t n = 0;

    for (size_t k = 0; k < sizeof (parts) / sizeof (parts[0]); k++)
        for (const char *s = parts[k]; *s && n < sizeof (tail); s++)
            tail[n++] = *s;
    (void)write_all (STDERR_FILENO, c->prefix, strlen (c->prefix));
    (void)write_all (STDERR_FILENO, tail, n);
}

static void crash_handler (int sig, siginfo_t *info, void *uc)
{
    int saved_errno = errno;
    const struct plugin_call *c = plugin_tls.call;
    size_t i = 0;

    while (i < NCRASH && crash_signals[i] != sig)
        i++;
    if (i == NCRASH)
        return;
    if (c) {
        plugin_tls.call = NULL; /* named once, whatever comes next */
        crash_report (c, i);
    }
    crash_chain (i, sig, info, uc);
    errno = saved_errno;
}

/* A child forked during a call is not in the call. */
static void crash_atfork_child (void)
{
    plugin_tls.call = NULL;
}

static void altstack_free (void *mem)
{
    stack_t cur, off = { .ss_flags = SS_DISABLE };

    if (sigaltstack (NULL, &cur) == 0 && cur.ss_sp == mem) {
        if (cur.ss_flags & SS_ONSTACK)
            return;
        sigaltstack (&off, NULL);
    }
    munmap (mem, ALTSTACK_SIZE);
}

/* Once per process, before the first call into a plugin. */
static void crash_install (void)
{
    struct sigaction sa;

    memset (&sa, 0, sizeof (sa));
    sa.sa_sigaction = crash_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset (&sa.sa_mask);
    for (size_t i = 0; i < NCRASH; i++)
        sigaction (crash_signals[i], &sa, &crash_previous[i]);
    altstack_key_ok = pthread_key_create (&altstack_key, altstack_free) == 0;
    pthread_atfork (NULL, NULL, crash_atfork_child);
}

/* An alternate signal stack for this thread, unless it has one (the
 * host's, a sanitizer's), so that a plugin that overflows its stack is
 * named too.  mmap, not malloc: nothing for a leak checker to see when
 * the main thread exits with it. */
static void altstack_setup (void)
{
    stack_t cur, ss = { .ss_size = ALTSTACK_SIZE };

    if (sigaltstack (NULL, &cur) < 0 || !(cur.ss_flags & SS_DISABLE))
        return;
    ss.ss_sp = mmap (NULL, ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ss.ss_sp == MAP_FAILED)
        return;
    if (sigaltstack (&ss, NULL) < 0) {
        munmap (ss.ss_sp, ALTSTACK_SIZE);
        return;
    }
    if (altstack_key_ok)
        pthread_setspecific (altstack_key, ss.ss_sp);
}

void plugin_thread_setup (void)
{
    pthread_once (&crash_once, crash_install);
    altstack_setup ();
    plugin_tls.ready = true;
}

/* --- descriptor checks -------------------------------------------------- */

static const char *const kind_names[] = {
    NULL, "validate", "match", "property", "shell", "queue",
};

const char *rp_plugin_kind_name (uint32_t kind)
{
    if (kind == 0 || kind >= sizeof (kind_names) / sizeof (kind_names[0]))
        return NULL;
    return kind_names[kind];
}

bool plugin_name_valid (const char *s)
{
    size_t n = 0;

    if (!s)
        return false;
    for (; s[n] && n <= PLUGIN_NAME_MAX; n++) {
        char c = s[n];
        if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z')
            && !(c >= '0' && c <= '9') && c != '-' && c != '_')
            return false;
    }
    return n >= 1 && n <= PLUGIN_NAME_MAX;
}

static int check_abi (const struct rp_plugin_desc *d, rp_error_t *error)
{
    if (d->abi_version == RP_PLUGIN_ABI_VERSION)
        return 0;
    if (d->size >= DESC_NAME_END && plugin_name_valid (d->name))
        return rp_error_set (error, EINVAL,
                             "plugin '%s' was built for ABI version %u, "
                             "this respol has ABI version %d",
                             d->name, d->abi_version, RP_PLUGIN_ABI_VERSION);
    return rp_error_set (error, EINVAL,
                         "plugin was built for ABI version %u, this respol "
                         "has ABI version %d",
                         d->abi_version, RP_PLUGIN_ABI_VERSION);
}

static int check_name (const struct rp_plugin_desc *d, rp_error_t *error)
{
    if (!d->name)
        return rp_error_set (error, EINVAL, "plugin descriptor has no name");
    if (!plugin_name_valid (d->name))
        return rp_error_set (error, EINVAL,
                             "invalid plugin name '%.*s' (letters, digits, "
                             "'-' and '_', 1-%d bytes)",
                             PLUGIN_NAME_MAX, d->name, PLUGIN_NAME_MAX);
    return 0;
}

/* kind 0: any supported kind (rp_plugin_inspect). */
static int check_kind (const struct rp_plugin_desc *d, uint32_t kind,
                       rp_error_t *error)
{
    const char *name = rp_plugin_kind_name (d->kind);

    if (!name)
        return rp_error_set (error, EINVAL, "plugin '%s' has unknown kind %u",
                             d->name, d->kind);
    if (kind != 0 && d->kind != kind)
        return rp_error_set (error, EINVAL,
                             "plugin '%s' is a %s plugin, configured in the "
                             "%s stack",
                             d->name, name, rp_plugin_kind_name (kind));
    return 0;
}

static int check_validate_ops (const struct rp_plugin_desc *d,
                               rp_error_t *error)
{
    const struct rp_validate_ops *ops = d->ops;

    if (ops->size < VALIDATE_OPS_SIZE_V1)
        return rp_error_set (error, EINVAL,
                             "plugin '%s' has a validate ops table of %u "
                             "bytes, at least %zu expected",
                             d->name, ops->size, VALIDATE_OPS_SIZE_V1);
    if (!ops->validate)
        return rp_error_set (error, EINVAL,
                             "plugin '%s' has no validate operation", d->name);
    return 0;
}

static int check_shell_ops (const struct rp_plugin_desc *d, rp_error_t *error)
{
    const struct rp_shell_ops *ops = d->ops;

    if (ops->size < SHELL_OPS_SIZE_V1)
        return rp_error_set (error, EINVAL,
                             "plugin '%s' has a shell ops table of %u bytes, "
                             "at least %zu expected",
                             d->name, ops->size, SHELL_OPS_SIZE_V1);
    return 0;
}

static int check_property_ops (const struct rp_plugin_desc *d,
                               rp_error_t *error)
{
    const struct rp_property_ops *ops = d->ops;

    if (ops->size < PROPERTY_OPS_SIZE_V1)
        return rp_error_set (error, EINVAL,
                             "plugin '%s' has a property ops table of %u "
                             "bytes, at least %zu expected",
                             d->name, ops->size, PROPERTY_OPS_SIZE_V1);
    return 0;
}

static int check_queue_ops (const struct rp_plugin_desc *d, rp_error_t *error)
{
    const struct rp_queue_ops *ops = d->ops;

    if (ops->size < QUEUE_OPS_SIZE_V1)
        return rp_error_set (error, EINVAL,
                             "plugin '%s' has a queue ops table of %u bytes, "
                             "at least %zu expected",
                             d->name, ops->size, QUEUE_OPS_SIZE_V1);
    if (!ops->priority && !ops->pass)
        return rp_error_set (error, EINVAL,
                             "plugin '%s' has neither a priority nor a pass "
                             "operation",
                             d->name);
    if (ops->flags & ~(uint32_t)RP_QUEUE_IN_ORDER)
        return rp_error_set (
            error, EINVAL, "plugin '%s' has unknown queue flags 0x%x", d->name,
            ops->flags & ~(uint32_t)RP_QUEUE_IN_ORDER);
    return 0;
}

static int check_match_ops (const struct rp_plugin_desc *d, rp_error_t *error)
{
    const struct rp_match_ops *ops = d->ops;

    if (ops->size < MATCH_OPS_SIZE_V1)
        return rp_error_set (error, EINVAL,
                             "plugin '%s' has a match ops table of %u bytes, "
                             "at least %zu expected",
                             d->name, ops->size, MATCH_OPS_SIZE_V1);
    if (ops->order != RP_MATCH_LOW && ops->order != RP_MATCH_HIGH)
        return rp_error_set (error, EINVAL,
                             "plugin '%s' has match order %u (expected %d, "
                             "low, or %d, high)",
                             d->name, ops->order, RP_MATCH_LOW, RP_MATCH_HIGH);
    return 0;
}

/* The declared configuration keys, when the descriptor has the field:
 * valid names, none twice, at most RP_PLUGIN_CONFIG_KEYS_MAX (so at most
 * that many pointers and one more are read), and an init to read them. */
static int check_config_keys (const struct rp_plugin_desc *d, rp_error_t *error)
{
    const char *const *keys;

    if (!DESC_COVERS (d, config_keys) || !(keys = d->config_keys))
        return 0;
    if (!d->init)
        return rp_error_set (error, EINVAL,
                             "plugin '%s' declares configuration keys but has "
                             "no init",
                             d->name);
    for (size_t n = 0; keys[n]; n++) {
        if (n == RP_PLUGIN_CONFIG_KEYS_MAX)
            return rp_error_set (error, EINVAL,
                                 "plugin '%s' declares more than %d "
                                 "configuration keys",
                                 d->name, RP_PLUGIN_CONFIG_KEYS_MAX);
        if (!plugin_name_valid (keys[n]))
            return rp_error_set (error, EINVAL,
                                 "plugin '%s' declares an invalid "
                                 "configuration key '%.*s' (letters, digits, "
                                 "'-' and '_', 1-%d bytes)",
                                 d->name, PLUGIN_NAME_MAX, keys[n],
                                 PLUGIN_NAME_MAX);
        for (size_t i = 0; i < n; i++)
            if (!strcmp (keys[i], keys[n]))
                return rp_error_set (error, EINVAL,
                                     "plugin '%s' declares configuration key "
                                     "'%s' twice",
                                     d->name, keys[n]);
    }
    return 0;
}

const char *const *plugin_config_keys (const struct rp_plugin *p)
{
    if (!p->desc || !DESC_COVERS (p->desc, config_keys))
        return NULL;
    return p->desc->config_keys;
}

/* The checks of the kind's ops table. */
static int check_ops (const struct rp_plugin_desc *d, rp_error_t *error)
{
    switch (d->kind) {
    case RP_PLUGIN_MATCH:
        return check_match_ops (d, error);
    case RP_PLUGIN_SHELL:
        return check_shell_ops (d, error);
    case RP_PLUGIN_PROPERTY:
        return check_property_ops (d, error);
    case RP_PLUGIN_QUEUE:
        return check_queue_ops (d, error);
    default:
        return check_validate_ops (d, error);
    }
}

/* rp_plugin_desc_check, with kind 0 for "the descriptor's own kind". */
static int desc_check (const struct rp_plugin_desc *desc, uint32_t kind,
                       rp_error_t *error)
{
    if (check_abi (desc, error) < 0)
        return -1;
    if (desc->size < DESC_SIZE_V1)
        return rp_error_set (error, EINVAL,
                             "plugin descriptor is %u bytes, at least %zu "
                             "expected",
                             desc->size, DESC_SIZE_V1);
    if (check_name (desc, error) < 0 || check_kind (desc, kind, error) < 0)
        return -1;
    if (!desc->ops)
        return rp_error_set (error, EINVAL, "plugin '%s' has no operations",
                             desc->name);
    if (check_ops (desc, error) < 0)
        return -1;
    return check_config_keys (desc, error);
}

int rp_plugin_desc_check (const struct rp_plugin_desc *desc, uint32_t kind,
                          rp_error_t *error)
{
    if (!desc || !rp_plugin_kind_name (kind))
        return rp_error_set (error, EINVAL, "invalid argument");
    return desc_check (desc, kind, error);
}

/* --- file checks -------------------------------------------------------- */

/* Refuse st (of what, for file) when another user owns it. */
static int check_owner (const char *file, const char *verb, const char *what,
                        const struct stat *st, rp_error_t *error)
{
    if (st->st_uid != 0 && st->st_uid != geteuid ())
        return rp_error_set (error, EPERM,
                             "%s: refusing to %s: %s is owned by uid %lu, "
                             "neither root nor the current user",
                             file, verb, what, (unsigned long)st->st_uid);
    return 0;
}

/* The file itself (st, from its descriptor): root's or the user's, and
 * writable by no one else. */
static int check_file (const char *file, const char *verb,
                       const struct stat *st, rp_error_t *error)
{
    if (st->st_mode & (S_IWGRP | S_IWOTH))
        return rp_error_set (error, EPERM,
                             "%s: refusing to %s: the file is writable by "
                             "group or others (mode %04o): chmod go-w",
                             file, verb, (unsigned)(st->st_mode & 07777));
    return check_owner (file, verb, "the file", st, error);
}

/* The end of the component of path that follows its first j bytes; j
 * when none does. */
static size_t component_end (const char *path, size_t j)
{
    size_t k = j;

    while (path[k] == '/')
        k++;
    if (!path[k])
        return j;
    while (path[k] && path[k] != '/')
        k++;
    return k;
}

/* How a message that begins with file names the directory made of the
 * first len bytes of path (adj: "" or "sticky ").  When file is that very
 * path, by its place: "its directory", or "directory NAME above it" with
 * NAME the directory's last component, so that a long path is not written
 * twice in an error text of RP_ERROR_TEXT_SIZE bytes; else (the file was
 * named otherwise) by its path: "directory DIR". */
static void dir_words (char *buf, size_t size, const char *adj,
                       const char *file, const char *path, size_t len)
{
    size_t parent = (size_t)(strrchr (path, '/') - path);
    size_t start = len;

    if (strcmp (file, path) != 0) {
        snprintf (buf, size, "%sdirectory %.*s", adj, (int)len, path);
        return;
    }
    if (len == parent || (len == 1 && parent == 0)) {
        snprintf (buf, size, "its %sdirectory", adj);
        return;
    }
    while (start > 1 && path[start - 1] != '/')
        start--;
    snprintf (buf, size, "%sdirectory %.*s above it", adj,
              len == 1 ? 1 : (int)(len - start), len == 1 ? path : path + start);
}

/* dir (st) is sticky and writable by others.  Only the owner of an entry,
 * of dir, or root may rename or remove an entry there, so the path is safe
 * if the entry it goes through (the first end bytes of path, not followed:
 * a symlink is the entry) belongs to root or the user. */
static int check_sticky_entry (const char *file, const char *verb,
                               const char *dir, const struct stat *st,
                               const char *path, size_t end, rp_error_t *error)
{
    char entry[PATH_MAX];
    char where[PATH_MAX + 32];
    char what[2 * PATH_MAX + 64];
    const char *name;
    struct stat est;

    memcpy (entry, path, end);
    entry[end] = '\0';
    if (lstat (entry, &est) < 0)
        return rp_error_set (error, errno, "%s: %s: %s", file, entry,
                             strerror (errno));
    name = strrchr (entry, '/') + 1;
    dir_words (where, sizeof (where), "sticky ", file, path, strlen (dir));
    snprintf (what, sizeof (what), "%s in %s (mode %04o)", name, where,
              (unsigned)(st->st_mode & 07777));
    return check_owner (file, verb, what, &est, error);
}

/* Check the directory made of the first len bytes of path (absolute,
 * shorter than PATH_MAX); the component of path after it is the entry
 * that a sticky directory must keep safe. */
static int check_dir (const char *file, const char *verb, const char *path,
                      size_t len, rp_error_t *error)
{
    char dir[PATH_MAX];
    char what[PATH_MAX + 16];
    size_t end = component_end (path, len);
    struct stat st;
    bool shared, sticky;

    memcpy (dir, path, len);
    dir[len] = '\0';
    if (stat (dir, &st) < 0)
        return rp_error_set (error, errno, "%s: %s: %s", file, dir,
                             strerror (errno));
    dir_words (what, sizeof (what), "", file, path, len);
    shared = st.st_mode & (S_IWGRP | S_IWOTH);
    sticky = shared && (st.st_mode & S_ISVTX) && end > len;
    if (shared && !sticky)
        return rp_error_set (error, EPERM,
                             "%s: refusing to %s: %s is writable by group or "
                             "others (mode %04o): chmod go-w, or chmod +t if "
                             "shared",
                             file, verb, what, (unsigned)(st.st_mode & 07777));
    if (check_owner (file, verb, what, &st, error) < 0)
        return -1;
    if (sticky)
        return check_sticky_entry (file, verb, dir, &st, path, end, error);
    return 0;
}

/* Check every directory of path (absolute: a file's name) from "/" down to
 * the one that holds its last component. */
static int check_ancestors (const char *file, const char *verb,
                            const char *path, rp_error_t *error)
{
    size_t n = (size_t)(strrchr (path, '/') - path);

    if (strlen (path) >= PATH_MAX)
        return rp_error_set (error, ENAMETOOLONG, "%s: %s", file,
                             strerror (ENAMETOOLONG));
    if (check_dir (file, verb, path, 1, error) < 0)
        return -1;
    for (size_t j = 2; j <= n; j++)
        if (path[j] == '/' && check_dir (file, verb, path, j, error) < 0)
            return -1;
    return 0;
}

/* path made absolute (relative to the current directory, not resolved).
 * Caller frees. */
static char *absolute (const char *path)
{
    char cwd[PATH_MAX];
    char *abs;

    if (path[0] == '/')
        return strdup (path);
    if (!getcwd (cwd, sizeof (cwd)))
        return NULL;
    if (asprintf (&abs, "%s/%s", cwd, path) < 0)
        return NULL;
    return abs;
}

/* path (absolute) with the directory that holds its last component
 * resolved, the last component as it is.  Caller frees. */
static char *resolve_dir (const char *path)
{
    const char *base = strrchr (path, '/');
    char *dir = strndup (path, base > path ? (size_t)(base - path) : 1);
    char *rdir = dir ? realpath (dir, NULL) : NULL;
    char *res = NULL;

    if (rdir
        && asprintf (&res, "%s/%s", strcmp (rdir, "/") ? rdir : "", base + 1)
               < 0)
        res = NULL;
    free (dir);
    free (rdir);
    return res;
}

/* The directories of real (resolved) and those that held the name file
 * before resolution: the directories of its path as written, and of that
 * path with its directory resolved.  Each walk knows the entry below each
 * directory, for sticky directories. */
static int check_dirs (const char *file, const char *verb, const char *real,
                       rp_error_t *error)
{
    char *abs = absolute (file);
    char *rabs = abs ? resolve_dir (abs) : NULL;
    int rc = -1;

    if (!rabs) {
        rp_error_set (error, errno, "%s: %s", file, strerror (errno));
        goto out;
    }
    if (check_ancestors (file, verb, real, error) == 0
        && check_ancestors (file, verb, abs, error) == 0)
        rc = check_ancestors (file, verb, rabs, error);
out:
    free (abs);
    free (rabs);
    return rc;
}

/* What a file that is not a regular one is, for messages. */
static const char *file_type (mode_t mode)
{
    if (S_ISDIR (mode))
        return "a directory";
    if (S_ISFIFO (mode))
        return "a FIFO";
    if (S_ISCHR (mode))
        return "a character device";
    if (S_ISBLK (mode))
        return "a block device";
    if (S_ISSOCK (mode))
        return "a socket";
    if (S_ISLNK (mode))
        return "a symbolic link";
    return "of an unknown type";
}

static int check_regular (const char *file, const struct stat *st,
                          rp_error_t *error)
{
    if (S_ISREG (st->st_mode))
        return 0;
    return rp_error_set (error, EINVAL, "%s: not a regular file (%s)", file,
                         file_type (st->st_mode));
}

/* Open real (resolved) for reading; it must be a regular file, both
 * before the open and once open (st, from the descriptor). */
static int open_regular (const char *file, const char *real, struct stat *st,
                         rp_error_t *error)
{
    int fd;

    /* Looked at before the open: opening a FIFO waits for a writer,
     * opening a device can act on it, and a socket cannot be opened. */
    if (lstat (real, st) < 0)
        return rp_error_set (error, errno, "%s: %s", file, strerror (errno));
    if (check_regular (file, st, error) < 0)
        return -1;
    /* O_NONBLOCK: should it have become a FIFO since, the open does not
     * wait.  Cleared once it is known to be a regular file. */
    fd = open (real, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 || fstat (fd, st) < 0) {
        rp_error_set (error, errno, "%s: %s", file, strerror (errno));
        goto error;
    }
    if (check_regular (file, st, error) < 0)
        goto error;
    if (fcntl (fd, F_SETFL, fcntl (fd, F_GETFL) & ~O_NONBLOCK) < 0) {
        rp_error_set (error, errno, "%s: %s", file, strerror (errno));
        goto error;
    }
    return fd;
error:
    if (fd >= 0)
        close (fd);
    return -1;
}

int plugin_secure_open (const char *file, const char *verb, bool check,
                        rp_error_t *error)
{
    struct stat st;
    char *real;
    int fd = -1;

    if (!(real = realpath (file, NULL)))
        return rp_error_set (error, errno, "%s: %s", file, strerror (errno));
    if (!check || check_dirs (file, verb, real, error) == 0)
        fd = open_regular (file, real, &st, error);
    if (fd >= 0 && check && check_file (file, verb, &st, error) < 0) {
        close (fd);
        fd = -1;
    }
    free (real);
    return fd;
}

/* A log file that exists must be a regular file with one name: a hard
 * link would make respol write to the file it was made from. */
static int check_log_file (const char *file, const struct stat *st,
                           rp_error_t *error)
{
    if (check_regular (file, st, error) < 0
        || check_file (file, "write", st, error) < 0)
        return -1;
    if (st->st_nlink > 1)
        return rp_error_set (error, EPERM,
                             "%s: refusing to write: the file has %lu hard "
                             "links",
                             file, (unsigned long)st->st_nlink);
    return 0;
}

int plugin_log_open (const char *file, rp_error_t *error)
{
    char *real = NULL;
    struct stat st;
    int fd = -1;

    if (file[0] != '/')
        return rp_error_set (error, EINVAL, "%s: not an absolute path", file);
    if (!(real = resolve_dir (file)))
        return rp_error_set (error, errno, "%s: %s", file, strerror (errno));
    if (check_dirs (file, "write", real, error) < 0)
        goto out;
    /* Looked at before the open, as for reading: opening a FIFO or a
     * device can block or act. */
    if (lstat (real, &st) == 0 && check_log_file (file, &st, error) < 0)
        goto out;
    fd = open (real,
               O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY
                   | O_NONBLOCK,
               0600);
    if (fd < 0) {
        rp_error_set (error, errno, "%s: %s", file,
                      errno == ELOOP ? "not a regular file (a symbolic link)"
                                     : strerror (errno));
        goto out;
    }
    if (fstat (fd, &st) < 0) {
        rp_error_set (error, errno, "%s: %s", file, strerror (errno));
        close (fd);
        fd = -1;
    } else if (check_log_file (file, &st, error) < 0) {
        close (fd);
        fd = -1;
    }
out:
    free (real);
    return fd;
}

/* --- loading ------------------------------------------------------------ */

static bool has_elf_magic (int fd)
{
    char magic[4] = { 0 };

    return pread (fd, magic, 4, 0) == 4 && !memcmp (magic, "\177ELF", 4);
}

/* dlerror's text without the "path: " glibc puts first. */
static const char *strip_path (const char *msg, const char *path)
{
    size_t n = strlen (path);

    if (!strncmp (msg, path, n) && !strncmp (msg + n, ": ", 2))
        return msg + n + 2;
    return msg;
}

static int write_all (int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write (fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* In the child: open fdpath lazily, check the descriptor, send the error
 * text ("" if the descriptor is fine) and exit. */
static void diagnose_child (int out, const char *fdpath, uint32_t kind)
{
    const struct rp_plugin_desc *d;
    rp_error_t error = { .text = "" };
    void *h;
    int null = open ("/dev/null", O_WRONLY);

    /* The plugin's constructors run here: keep their output (and a
     * "symbol lookup error") off the caller's terminal. */
    if (null >= 0) {
        dup2 (null, STDOUT_FILENO);
        dup2 (null, STDERR_FILENO);
    }
    if (!(h = dlopen (fdpath, RTLD_LAZY | RTLD_LOCAL)))
        _exit (1);
    if (!(d = dlsym (h, RP_PLUGIN_SYMBOL)))
        rp_error_set (&error, EINVAL, "no descriptor symbol '%s'",
                      RP_PLUGIN_SYMBOL);
    else
        desc_check (d, kind, &error);
    if (write_all (out, error.text, strlen (error.text) + 1) < 0)
        _exit (1);
    _exit (0);
}

/* Run diagnose_child; its text in buf ("" when it found nothing or died). */
static void diagnose_fork (const char *fdpath, uint32_t kind, char *buf,
                           size_t size)
{
    size_t len = 0;
    int fds[2], status;
    pid_t pid;

    buf[0] = '\0';
    if (pipe2 (fds, O_CLOEXEC) < 0)
        return;
    fflush (NULL);
    if ((pid = fork ()) < 0) {
        close (fds[0]);
        close (fds[1]);
        return;
    }
    if (pid == 0) {
        close (fds[0]);
        diagnose_child (fds[1], fdpath, kind);
    }
    close (fds[1]);
    while (len < size - 1) {
        ssize_t n = read (fds[0], buf + len, size - 1 - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close (fds[0]);
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    buf[len] = '\0';
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        buf[0] = '\0';
}

/* The RTLD_NOW open failed with msg: see (in a child) if the descriptor
 * explains it better.  Fills error and returns -1 either way. */
static int diagnose (const char *file, int fd, const char *fdpath,
                     uint32_t kind, const char *msg, rp_error_t *error)
{
    const char *why = strip_path (msg, fdpath);
    char text[RP_ERROR_TEXT_SIZE];

    if (!strstr (why, "undefined symbol"))
        return rp_error_set (
            error, EINVAL, "%s: %s (%s)", file,
            has_elf_magic (fd) ? "cannot load" : "not a shared object", why);
    diagnose_fork (fdpath, kind, text, sizeof (text));
    if (text[0])
        return rp_error_set (error, EINVAL, "%s: %s", file, text);
    return rp_error_set (error, EINVAL, "%s: %s", file, why);
}

/* Open fd with every symbol bound; the ltdl handle.  Holds ltdl_lock. */
static lt_dlhandle load_locked (const char *file, int fd, uint32_t kind,
                                rp_error_t *error)
{
    char fdpath[64];
    void *now;
    lt_dlhandle h;

    snprintf (fdpath, sizeof (fdpath), "/proc/self/fd/%d", fd);
    if (!(now = dlopen (fdpath, RTLD_NOW | RTLD_LOCAL))) {
        /* Copied: the next dl call reuses dlerror's buffer.  Large enough
         * for the path that starts it and the symbol name after it. */
        char msg[PATH_MAX + RP_ERROR_TEXT_SIZE];
        const char *e = dlerror ();
        snprintf (msg, sizeof (msg), "%s", e ? e : "unknown error");
        diagnose (file, fd, fdpath, kind, msg, error);
        return NULL;
    }
    h = lt_dlopen (fdpath);
    if (!h)
        rp_error_set (error, EINVAL, "%s: cannot load (%s)", file,
                      lt_dlerror ());
    dlclose (now);
    return h;
}

static lt_dlhandle load (const char *file, int fd, uint32_t kind,
                         rp_error_t *error)
{
    lt_dlhandle h = NULL;

    plugin_promote_globals ();
    pthread_mutex_lock (&ltdl_lock);
    if (lt_dlinit () != 0) {
        rp_error_set (error, ENOMEM, "%s: cannot initialise libltdl (%s)", file,
                      lt_dlerror ());
        goto out;
    }
    if (!(h = load_locked (file, fd, kind, error)))
        lt_dlexit ();
out:
    pthread_mutex_unlock (&ltdl_lock);
    return h;
}

static void unload (struct rp_plugin *p)
{
    pthread_mutex_lock (&ltdl_lock);
    lt_dlclose (p->handle);
    lt_dlexit ();
    pthread_mutex_unlock (&ltdl_lock);
    p->handle = NULL;
    close (p->fd);
    p->fd = -1;
}

static char *strdup_or_null (const char *s, bool *oom)
{
    char *copy;

    if (!s)
        return NULL;
    if (!(copy = strdup (s)))
        *oom = true;
    return copy;
}

/* The fields of ops that its size covers; the others stay 0 / NULL. */
static void copy_match_ops (struct rp_match_ops *to,
                            const struct rp_match_ops *ops)
{
    memset (to, 0, sizeof (*to));
    to->size = sizeof (*to);
    to->order = ops->order;
    to->stop_after = ops->stop_after;
    if (MATCH_COVERS (ops->size, score))
        to->score = ops->score;
    if (MATCH_COVERS (ops->size, prune))
        to->prune = ops->prune;
    if (MATCH_COVERS (ops->size, order_candidates))
        to->order_candidates = ops->order_candidates;
    if (MATCH_COVERS (ops->size, job_event))
        to->job_event = ops->job_event;
    if (MATCH_COVERS (ops->size, hints))
        to->hints = ops->hints;
}

/* The shell ops a table of its size covers; the others NULL. */
static void copy_shell_ops (struct rp_shell_ops *to,
                            const struct rp_shell_ops *ops)
{
    memset (to, 0, sizeof (*to));
    to->size = sizeof (*to);
    to->shell_init = ops->shell_init;
    to->task_init = ops->task_init;
    to->task_exec = ops->task_exec;
    to->task_exit = ops->task_exit;
    to->shell_exit = ops->shell_exit;
}

/* The property ops a table of its size covers; the others NULL. */
static void copy_property_ops (struct rp_property_ops *to,
                               const struct rp_property_ops *ops)
{
    memset (to, 0, sizeof (*to));
    to->size = sizeof (*to);
    to->annotate = ops->annotate;
}

/* Copy what the host shows of the descriptor into p. */
static int copy_desc (struct rp_plugin *p, const struct rp_plugin_desc *d)
{
    bool oom = false;

    p->desc = d;
    p->abi_version = d->abi_version;
    p->kind = d->kind;
    p->name = strdup_or_null (d->name, &oom);
    p->version = strdup_or_null (d->version, &oom);
    p->description = strdup_or_null (d->description, &oom);
    p->fini = d->fini;
    if (d->kind == RP_PLUGIN_VALIDATE) {
        const struct rp_validate_ops *ops = d->ops;
        p->validate = ops->validate;
        if (OPS_COVERS (struct rp_validate_ops, ops->size, job_event))
            p->job_event = ops->job_event;
    } else if (d->kind == RP_PLUGIN_SHELL)
        copy_shell_ops (&p->shell, d->ops);
    else if (d->kind == RP_PLUGIN_PROPERTY)
        copy_property_ops (&p->property, d->ops);
    else if (d->kind == RP_PLUGIN_QUEUE)
        memcpy (&p->queue, d->ops, QUEUE_OPS_SIZE_V1);
    else {
        copy_match_ops (&p->match, d->ops);
        p->job_event = p->match.job_event;
    }
    return oom ? -1 : 0;
}

static int read_desc (struct rp_plugin *p, uint32_t kind, rp_error_t *error)
{
    const struct rp_plugin_desc *d;

    pthread_mutex_lock (&ltdl_lock);
    d = lt_dlsym (p->handle, RP_PLUGIN_SYMBOL);
    pthread_mutex_unlock (&ltdl_lock);
    if (!d)
        return rp_error_set (error, EINVAL, "%s: no descriptor symbol '%s'",
                             p->file, RP_PLUGIN_SYMBOL);
    if (desc_check (d, kind, error) < 0)
        return rp_error_prefix (error, "%s", p->file);
    if (copy_desc (p, d) < 0)
        return rp_error_set (error, ENOMEM, "%s: out of memory", p->file);
    return 0;
}

struct rp_plugin *plugin_open (const char *file, uint32_t kind,
                               bool allow_insecure, rp_error_t *error)
{
    struct rp_plugin *p;
    int fd = plugin_secure_open (file, "load", !allow_insecure, error);

    if (fd < 0)
        return NULL;
    if (!(p = calloc (1, sizeof (*p))) || !(p->file = strdup (file))) {
        rp_error_set (error, ENOMEM, "%s: out of memory", file);
        free (p);
        close (fd);
        return NULL;
    }
    p->fd = fd;
    if (!(p->handle = load (file, fd, kind, error)))
        goto error;
    if (read_desc (p, kind, error) < 0)
        goto error;
    return p;
error:
    plugin_close (p);
    return NULL;
}

int plugin_start (struct rp_plugin *p, const char *instance, json_t *config,
                  rp_error_t *error)
{
    struct plugin_call call;
    int rc;

    if (!(p->instance = strdup (instance))
        || asprintf (&p->crash_prefix, "respol: plugin '%s' (%s) crashed in ",
                     instance, p->file)
               < 0) {
        p->crash_prefix = NULL;
        return rp_error_set (error, ENOMEM, "out of memory");
    }
    p->config = config ? json_incref (config) : json_object ();
    if (!p->config)
        return rp_error_set (error, ENOMEM, "out of memory");
    if (!p->desc->init) {
        if (json_is_object (p->config) && json_object_size (p->config) == 0) {
            p->initialized = true;
            return 0;
        }
        return rp_error_set (error, EINVAL,
                             "takes no configuration (the plugin has no "
                             "init)");
    }
    p->error[0] = '\0';
    pthread_mutex_lock (&call_lock);
    plugin_enter (&call, p, "init");
    p->in_init = true;
    rc = p->desc->init (p, &services);
    p->in_init = false;
    plugin_leave (&call);
    pthread_mutex_unlock (&call_lock);
    if (rc != 0) {
        if (p->error[0])
            return rp_error_set (error, EINVAL, "init failed: %s", p->error);
        return rp_error_set (error, EINVAL, "init returned %d (no message)",
                             rc);
    }
    p->initialized = true;
    return 0;
}

void plugin_close (struct rp_plugin *p)
{
    int saved_errno = errno;

    if (!p)
        return;
    if (p->kind == RP_PLUGIN_PROPERTY)
        constraint_operators_remove (p);
    if (p->initialized && p->fini) {
        struct plugin_call call;
        pthread_mutex_lock (&call_lock);
        plugin_enter (&call, p, "fini");
        p->fini (p);
        plugin_leave (&call);
        pthread_mutex_unlock (&call_lock);
    }
    if (p->handle)
        unload (p);
    else if (p->fd >= 0)
        close (p->fd);
    json_decref (p->config);
    free (p->file);
    free (p->name);
    free (p->instance);
    free (p->version);
    free (p->description);
    free (p->crash_prefix);
    free (p);
    errno = saved_errno;
}

/* --- the search path ---------------------------------------------------- */

static int path_add (char ***dirs, size_t *n, const char *dir)
{
    char **v = realloc (*dirs, (*n + 2) * sizeof (char *));

    if (!v)
        return -1;
    *dirs = v;
    if (!(v[*n] = strdup (dir)))
        return -1;
    v[++*n] = NULL;
    return 0;
}

/* Add the absolute entries of the colon-separated env to dirs, warning in
 * diags (which may be NULL) about the others. */
static int path_add_env (char ***dirs, size_t *n, const char *env,
                         struct rp_diags *diags)
{
    const char *s = env;

    for (;;) {
        size_t len = strcspn (s, ":");
        char *dir = strndup (s, len);
        if (!dir)
            return -1;
        if (len == 0)
            rp_diags_add (diags, RP_DIAG_WARNING, "%s: ignoring an empty entry",
                          RP_PLUGIN_PATH_ENV);
        else if (dir[0] != '/')
            rp_diags_add (diags, RP_DIAG_WARNING,
                          "%s: ignoring relative directory '%s'",
                          RP_PLUGIN_PATH_ENV, dir);
        else if (path_add (dirs, n, dir) < 0) {
            free (dir);
            return -1;
        }
        free (dir);
        if (s[len] == '\0')
            return 0;
        s += len + 1;
    }
}

/* The directories searched last: RP_PLUGINDIR, or what
 * rp_config_set_defaults put there (core/config.c).  Colon separated. */
static char *builtin_dirs;

const char *plugin_builtin_dirs (void)
{
    return builtin_dirs ? builtin_dirs : RP_PLUGINDIR;
}

int plugin_set_builtin_dirs (const char *dirs)
{
    const char *s = dirs;
    char *copy;

    for (;;) {
        size_t len = strcspn (s, ":");
        if (len == 0 || s[0] != '/') {
            errno = EINVAL;
            return -1;
        }
        if (s[len] == '\0')
            break;
        s += len + 1;
    }
    if (!(copy = strdup (dirs)))
        return -1;
    free (builtin_dirs);
    builtin_dirs = copy;
    return 0;
}

int plugin_path_create (char *const *cfg_dirs, size_t ncfg,
                        struct rp_diags *diags, char ***dirsp)
{
    const char *env = secure_getenv (RP_PLUGIN_PATH_ENV);
    char **dirs = NULL;
    size_t n = 0;

    for (size_t i = 0; i < ncfg; i++)
        if (path_add (&dirs, &n, cfg_dirs[i]) < 0)
            goto nomem;
    if (env && path_add_env (&dirs, &n, env, diags) < 0)
        goto nomem;
    /* Checked absolute when set: no warning to give. */
    if (path_add_env (&dirs, &n, plugin_builtin_dirs (), NULL) < 0)
        goto nomem;
    *dirsp = dirs;
    return 0;
nomem:
    plugin_path_free (dirs);
    errno = ENOMEM;
    return -1;
}

void plugin_path_free (char **dirs)
{
    int saved_errno = errno;

    for (size_t i = 0; dirs && dirs[i]; i++)
        free (dirs[i]);
    free (dirs);
    errno = saved_errno;
}

static void join_dirs (char *const *dirs, char *buf, size_t size)
{
    size_t len = 0;

    buf[0] = '\0';
    for (size_t i = 0; dirs[i] && len < size; i++)
        len += snprintf (buf + len, size - len, "%s%s", i ? ":" : "", dirs[i]);
}

/* Offer the names of the NAME.so entries of dirs to s, those of dirs[i]
 * as group i + 1 (core/suggest.h: ties within a directory go to the name
 * that sorts first, whatever readdir's order). */
static void suggest_dirs (struct suggest *s, char *const *dirs)
{
    char name[PLUGIN_NAME_MAX + 1];

    for (size_t i = 0; dirs[i]; i++) {
        DIR *d = opendir (dirs[i]);
        struct dirent *e;
        if (!d)
            continue;
        while ((e = readdir (d))) {
            size_t len = strlen (e->d_name);
            if (len <= 3 || len - 3 > PLUGIN_NAME_MAX
                || strcmp (e->d_name + len - 3, ".so") != 0)
                continue;
            snprintf (name, sizeof (name), "%.*s", (int)(len - 3), e->d_name);
            if (plugin_name_valid (name))
                suggest_add (s, name, len - 3, (unsigned)i + 1);
        }
        closedir (d);
    }
}

/* "plugin 'NAME' not found in DIR:DIR...", with the closest name of hint
 * (NULL: none yet) or of dirs.  The list of directories is cut to leave
 * room for the suggestion. */
static int not_found (const char *name, char *const *dirs, struct suggest *hint,
                      rp_error_t *error)
{
    char list[RP_ERROR_TEXT_SIZE], text[SUGGEST_MAX + 32];
    struct suggest local;
    size_t fixed;

    if (!hint) {
        suggest_init (&local, name);
        hint = &local;
    }
    suggest_dirs (hint, dirs);
    suggest_hint (hint, "", text, sizeof (text));
    fixed = strlen ("plugin '' not found in ") + strlen (name) + strlen (text);
    join_dirs (dirs, list,
               fixed < sizeof (list) - 1 ? sizeof (list) - fixed : 1);
    return rp_error_set (error, ENOENT, "plugin '%s' not found in %s%s", name,
                         list, text);
}

int plugin_find (const char *name, char *const *dirs, struct suggest *hint,
                 char **file, rp_error_t *error)
{
    struct stat st;

    for (size_t i = 0; dirs[i]; i++) {
        char *path;
        if (asprintf (&path, "%s/%s.so", dirs[i], name) < 0)
            return rp_error_set (error, ENOMEM, "out of memory");
        if (lstat (path, &st) == 0) {
            *file = path;
            return 0;
        }
        free (path);
    }
    return not_found (name, dirs, hint, error);
}

/* --- inspect and accessors ---------------------------------------------- */

struct rp_plugin *rp_plugin_inspect (const char *path, rp_error_t *error)
{
    struct rp_plugin *p;
    char *file;

    if (!path || !*path) {
        rp_error_set (error, EINVAL, "invalid argument");
        return NULL;
    }
    if (!(file = absolute (path))) {
        rp_error_set (error, errno, "%s: %s", path, strerror (errno));
        return NULL;
    }
    /* Kind 0: checked as for the stack of its own kind. */
    p = plugin_open (file, 0, false, error);
    free (file);
    if (!p)
        return NULL;
    unload (p);
    p->desc = NULL;
    p->fini = NULL;
    p->validate = NULL;
    p->job_event = NULL;
    memset (&p->match, 0, sizeof (p->match));
    memset (&p->shell, 0, sizeof (p->shell));
    memset (&p->property, 0, sizeof (p->property));
    if (!(p->instance = strdup (p->name))) {
        plugin_close (p);
        rp_error_set (error, ENOMEM, "out of memory");
        return NULL;
    }
    return p;
}

void rp_plugin_destroy (struct rp_plugin *p)
{
    plugin_close (p);
}

const char *rp_plugin_instance (const struct rp_plugin *p)
{
    return p ? p->instance : NULL;
}

const char *rp_plugin_name (const struct rp_plugin *p)
{
    return p ? p->name : NULL;
}

uint32_t rp_plugin_kind (const struct rp_plugin *p)
{
    return p ? p->kind : 0;
}

uint32_t rp_plugin_abi_version (const struct rp_plugin *p)
{
    return p ? p->abi_version : 0;
}

const char *rp_plugin_version (const struct rp_plugin *p)
{
    return p ? p->version : NULL;
}

const char *rp_plugin_description (const struct rp_plugin *p)
{
    return p ? p->description : NULL;
}

const char *rp_plugin_file (const struct rp_plugin *p)
{
    return p ? p->file : NULL;
}
