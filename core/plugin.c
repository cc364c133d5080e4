/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The plugin loader: find a plugin file, check it, load it with libltdl,
 * check its descriptor (api/respol/plugin.h) before calling anything in
 * it, and call init and fini with the host-services table.  The
 * configuration (core/config.c) builds stacks out of these instances; the
 * validator stack (core/validate.c) runs them.
 *
 * Decisions a reader would otherwise rediscover:
 * - Undefined symbols.  libltdl opens with RTLD_LAZY, so a plugin calling
 *   a function librespol does not have would load and then kill the
 *   process at the first call ("symbol lookup error").  A second
 *   dlopen (RTLD_NOW | RTLD_NOLOAD) after lt_dlopen does not help: glibc
 *   only takes a reference on an object already mapped, it binds nothing
 *   (checked with glibc 2.36).  So the file is first opened with
 *   dlopen (RTLD_NOW | RTLD_LOCAL), which binds every symbol or fails with
 *   "undefined symbol: NAME"; then lt_dlopen takes its own reference on the
 *   same mapping (the handle we keep, for lt_dlsym and lt_dlclose) and the
 *   first handle is closed.  That dlopen is also where the messages come
 *   from: ltdl reports every failure as "file not found".
 * - Order of the checks.  When the RTLD_NOW open fails on an undefined
 *   symbol, the file is opened lazily to read its descriptor, so that a
 *   plugin built for another ABI (which naturally calls functions this
 *   respol lacks) is reported by its ABI version, as is any other
 *   descriptor error, before the undefined symbol.
 * - Descriptors of another ABI version are read only up to the name: the
 *   first four fields (abi_version, size, kind, name) are the part of the
 *   layout every ABI version keeps.  The host requires a descriptor and an
 *   ops table at least as large as in the first release of ABI 1, and
 *   ignores what a larger one adds.
 * - File checks: the file (symlinks resolved) and its directory must not
 *   be writable by others, and must be owned by root or the current user,
 *   unless the configuration allows insecure paths.  The loader opens the
 *   resolved path, the one it checked.
 * - fini is not called for an instance whose init failed: init cleans up
 *   after itself.
 * - libltdl is not thread safe: every ltdl call (and lt_dlinit/lt_dlexit,
 *   one pair per loaded plugin, ltdl counts them) holds one mutex.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/paths.h"
#include "core/plugin_private.h"

/* The descriptor and validate ops as in the first release of ABI 1: the
 * host reads these fields, so a plugin must provide at least these. */
#define DESC_SIZE_V1 (offsetof (struct rp_plugin_desc, ops) + sizeof (void *))
#define VALIDATE_OPS_SIZE_V1                                                   \
    (offsetof (struct rp_validate_ops, validate) + sizeof (void *))
#define DESC_NAME_END                                                          \
    (offsetof (struct rp_plugin_desc, name) + sizeof (const char *))

static pthread_mutex_t ltdl_lock = PTHREAD_MUTEX_INITIALIZER;

/* --- logging and host services ------------------------------------------ */

static void default_log (const char *instance, int level, const char *message,
                         void *arg)
{
    if (level <= RP_LOG_WARNING)
        fprintf (stderr, "%s: %s\n", instance, message);
}

static rp_plugin_log_f log_fn = default_log;
static void *log_arg;

void rp_plugin_set_log (rp_plugin_log_f fn, void *arg)
{
    log_fn = fn ? fn : default_log;
    log_arg = fn ? arg : NULL;
}

static void svc_log (struct rp_plugin *p, int level, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    log_fn (p->instance ? p->instance : p->name, level, buf, log_arg);
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

/* --- descriptor checks -------------------------------------------------- */

static const char *const kind_names[] = {
    NULL, "validate", "match", "property", "shell",
};

const char *rp_plugin_kind_name (uint32_t kind)
{
    if (kind == 0 || kind >= sizeof (kind_names) / sizeof (kind_names[0]))
        return NULL;
    return kind_names[kind];
}

static bool kind_supported (uint32_t kind)
{
    return kind == RP_PLUGIN_VALIDATE;
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

static int check_kind (const struct rp_plugin_desc *d, uint32_t kind,
                       rp_error_t *error)
{
    const char *name = rp_plugin_kind_name (d->kind);

    if (!name)
        return rp_error_set (error, EINVAL, "plugin '%s' has unknown kind %u",
                             d->name, d->kind);
    if (!kind_supported (d->kind))
        return rp_error_set (error, EINVAL,
                             "plugin '%s' has kind %u (%s), reserved and not "
                             "yet supported",
                             d->name, d->kind, name);
    if (d->kind != kind)
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

int rp_plugin_desc_check (const struct rp_plugin_desc *desc, uint32_t kind,
                          rp_error_t *error)
{
    if (!desc || !rp_plugin_kind_name (kind))
        return rp_error_set (error, EINVAL, "invalid argument");
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
    return check_validate_ops (desc, error);
}

/* --- file checks -------------------------------------------------------- */

/* st is what file (what) resolves to; refuse what others may change. */
static int check_owner_mode (const char *file, const char *what,
                             const struct stat *st, rp_error_t *error)
{
    if (st->st_mode & S_IWOTH)
        return rp_error_set (error, EPERM,
                             "%s: refusing to load: %s is writable by other "
                             "users (mode %04o)",
                             file, what, (unsigned)(st->st_mode & 07777));
    if (st->st_uid != 0 && st->st_uid != geteuid ())
        return rp_error_set (error, EPERM,
                             "%s: refusing to load: %s is owned by uid %lu, "
                             "neither root nor the current user",
                             file, what, (unsigned long)st->st_uid);
    return 0;
}

static int check_dir (const char *file, const char *real, rp_error_t *error)
{
    char *dir = strdup (real);
    char *slash = dir ? strrchr (dir, '/') : NULL;
    char what[PATH_MAX + 16];
    struct stat st;
    int rc = -1;

    if (!dir)
        return rp_error_set (error, ENOMEM, "%s: out of memory", file);
    if (slash == dir)
        slash++;
    if (slash)
        *slash = '\0';
    if (stat (dir, &st) < 0) {
        rp_error_set (error, errno, "%s: %s: %s", file, dir, strerror (errno));
        goto out;
    }
    snprintf (what, sizeof (what), "directory %s", dir);
    rc = check_owner_mode (file, what, &st, error);
out:
    free (dir);
    return rc;
}

/* Resolve file, check it is a regular file (and, unless allow_insecure,
 * that it and its directory are safe).  *real is the resolved path. */
static int check_file (const char *file, bool allow_insecure, char **real,
                       rp_error_t *error)
{
    struct stat st;
    char *r = realpath (file, NULL);

    if (!r)
        return rp_error_set (error, errno, "%s: %s", file, strerror (errno));
    if (stat (r, &st) < 0) {
        rp_error_set (error, errno, "%s: %s", file, strerror (errno));
        goto error;
    }
    if (!S_ISREG (st.st_mode)) {
        rp_error_set (error, EINVAL, "%s: not a regular file", file);
        goto error;
    }
    if (!allow_insecure
        && (check_owner_mode (file, "the file", &st, error) < 0
            || check_dir (file, r, error) < 0))
        goto error;
    *real = r;
    return 0;
error:
    free (r);
    return -1;
}

/* --- loading ------------------------------------------------------------ */

static bool has_elf_magic (const char *path)
{
    char magic[4] = { 0 };
    FILE *f = fopen (path, "rb");
    bool elf;

    if (!f)
        return false;
    elf = fread (magic, 1, 4, f) == 4 && !memcmp (magic, "\177ELF", 4);
    fclose (f);
    return elf;
}

/* dlerror's text without the "path: " glibc puts first. */
static const char *strip_path (const char *msg, const char *real)
{
    size_t n = strlen (real);

    if (!strncmp (msg, real, n) && !strncmp (msg + n, ": ", 2))
        return msg + n + 2;
    return msg;
}

/* The RTLD_NOW open failed with msg: open lazily to see if the descriptor
 * explains it better.  Fills error and returns -1 either way. */
static int diagnose (const char *file, const char *real, uint32_t kind,
                     const char *msg, rp_error_t *error)
{
    const char *why = strip_path (msg, real);
    lt_dlhandle h;
    const struct rp_plugin_desc *d;

    if (!strstr (why, "undefined symbol"))
        return rp_error_set (
            error, EINVAL, "%s: %s (%s)", file,
            has_elf_magic (real) ? "cannot load" : "not a shared object", why);
    rp_error_set (error, EINVAL, "%s: %s", file, why);
    if (!(h = lt_dlopen (real)))
        return -1;
    d = lt_dlsym (h, RP_PLUGIN_SYMBOL);
    if (!d)
        rp_error_set (error, EINVAL, "%s: no descriptor symbol '%s'", file,
                      RP_PLUGIN_SYMBOL);
    else if (rp_plugin_desc_check (d, kind, error) < 0)
        rp_error_prefix (error, "%s", file);
    lt_dlclose (h);
    return -1;
}

/* Open real with every symbol bound; the ltdl handle.  Holds ltdl_lock. */
static lt_dlhandle load_locked (const char *file, const char *real,
                                uint32_t kind, rp_error_t *error)
{
    void *now = dlopen (real, RTLD_NOW | RTLD_LOCAL);
    lt_dlhandle h;

    if (!now) {
        /* Copied: the next dl call reuses dlerror's buffer.  Large enough
         * for the path that starts it and the symbol name after it. */
        char msg[PATH_MAX + RP_ERROR_TEXT_SIZE];
        const char *e = dlerror ();
        snprintf (msg, sizeof (msg), "%s", e ? e : "unknown error");
        diagnose (file, real, kind, msg, error);
        return NULL;
    }
    h = lt_dlopen (real);
    if (!h)
        rp_error_set (error, EINVAL, "%s: cannot load (%s)", file,
                      lt_dlerror ());
    dlclose (now);
    return h;
}

static lt_dlhandle load (const char *file, const char *real, uint32_t kind,
                         rp_error_t *error)
{
    lt_dlhandle h = NULL;

    pthread_mutex_lock (&ltdl_lock);
    if (lt_dlinit () != 0) {
        rp_error_set (error, ENOMEM, "%s: cannot initialise libltdl (%s)", file,
                      lt_dlerror ());
        goto out;
    }
    if (!(h = load_locked (file, real, kind, error)))
        lt_dlexit ();
out:
    pthread_mutex_unlock (&ltdl_lock);
    return h;
}

static void unload (lt_dlhandle h)
{
    pthread_mutex_lock (&ltdl_lock);
    lt_dlclose (h);
    lt_dlexit ();
    pthread_mutex_unlock (&ltdl_lock);
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
    p->validate = ((const struct rp_validate_ops *)d->ops)->validate;
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
    if (rp_plugin_desc_check (d, kind, error) < 0)
        return rp_error_prefix (error, "%s", p->file);
    if (copy_desc (p, d) < 0)
        return rp_error_set (error, ENOMEM, "%s: out of memory", p->file);
    return 0;
}

struct rp_plugin *plugin_open (const char *file, uint32_t kind,
                               bool allow_insecure, rp_error_t *error)
{
    struct rp_plugin *p;
    char *real = NULL;

    if (check_file (file, allow_insecure, &real, error) < 0)
        return NULL;
    if (!(p = calloc (1, sizeof (*p))) || !(p->file = strdup (file))) {
        rp_error_set (error, ENOMEM, "%s: out of memory", file);
        goto error;
    }
    if (!(p->handle = load (file, real, kind, error)))
        goto error;
    if (read_desc (p, kind, error) < 0)
        goto error;
    free (real);
    return p;
error:
    free (real);
    plugin_close (p);
    return NULL;
}

int plugin_start (struct rp_plugin *p, const char *instance, json_t *config,
                  rp_error_t *error)
{
    if (!(p->instance = strdup (instance)))
        return rp_error_set (error, ENOMEM, "out of memory");
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
    if (p->desc->init (p, &services) != 0) {
        if (p->error[0])
            return rp_error_set (error, EINVAL, "init failed: %s", p->error);
        return rp_error_set (error, EINVAL, "init failed");
    }
    p->initialized = true;
    return 0;
}

void plugin_close (struct rp_plugin *p)
{
    int saved_errno = errno;

    if (!p)
        return;
    if (p->initialized && p->fini)
        p->fini (p);
    if (p->handle)
        unload (p->handle);
    json_decref (p->config);
    free (p->file);
    free (p->name);
    free (p->instance);
    free (p->version);
    free (p->description);
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

/* Add the absolute entries of env to dirs, warning about the others. */
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

int plugin_path_create (char *const *cfg_dirs, size_t ncfg,
                        struct rp_diags *diags, char ***dirsp)
{
    const char *env = getenv (RP_PLUGIN_PATH_ENV);
    char **dirs = NULL;
    size_t n = 0;

    for (size_t i = 0; i < ncfg; i++)
        if (path_add (&dirs, &n, cfg_dirs[i]) < 0)
            goto nomem;
    if (env && path_add_env (&dirs, &n, env, diags) < 0)
        goto nomem;
    if (path_add (&dirs, &n, RP_PLUGINDIR) < 0)
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

int plugin_find (const char *name, char *const *dirs, char **file,
                 rp_error_t *error)
{
    char list[RP_ERROR_TEXT_SIZE];
    struct stat st;

    for (size_t i = 0; dirs[i]; i++) {
        char *path;
        if (asprintf (&path, "%s/%s.so", dirs[i], name) < 0)
            return rp_error_set (error, ENOMEM, "out of memory");
        if (stat (path, &st) == 0) {
            *file = path;
            return 0;
        }
        free (path);
    }
    join_dirs (dirs, list, sizeof (list));
    return rp_error_set (error, ENOENT, "plugin '%s' not found in %s", name,
                         list);
}

/* --- inspect and accessors ---------------------------------------------- */

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
    /* Every kind but validate is refused before the stack is looked at,
     * so checking for the validate stack is checking for its own kind. */
    p = plugin_open (file, RP_PLUGIN_VALIDATE, false, error);
    free (file);
    if (!p)
        return NULL;
    unload (p->handle);
    p->handle = NULL;
    p->desc = NULL;
    p->fini = NULL;
    p->validate = NULL;
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
