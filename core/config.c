/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol's configuration file and the plugin stacks it configures; see
 * api/respol/config.h for the format and the contract.
 *
 * Loading has two passes.  The first reads the whole file (through
 * rp_doc_load_fd, so every message has file:line:col) and checks every
 * key, collecting all errors; plugins are only loaded when it found none,
 * so a typo never half-loads anything.  The second loads each entry in
 * order (find the file, open and check it, init it with its block) and
 * keeps going after a failure, so `respol config check` reports every bad
 * entry at once; if anything failed, everything loaded is finalised in
 * reverse order and unloaded.
 *
 * Decisions a reader would otherwise rediscover:
 * - A key whose value is null (`validate:` with every entry commented
 *   out, `config:` with nothing after it) means the empty value.
 * - Instance names: the entry's `name`, else the plugin's own name.  Two
 *   entries with the same explicit name are an error.  An implicit name
 *   that is already taken (the same plugin configured twice, or a name
 *   given explicitly to some other entry) becomes "name#2", "name#3", ...;
 *   '#' cannot appear in a name written in the file, so these never
 *   collide with one.
 * - Names are unique across all stacks, so a name identifies an instance
 *   in every message.
 * - The configuration decides what runs, so the file gets the plugin
 *   files' owner and mode checks (plugin_secure_open: the file and every
 *   directory above it), always: allow-insecure-path cannot vouch for the
 *   file that sets it.  The file is opened once, by plugin_secure_open,
 *   and what was checked is what is read, through that descriptor
 *   (rp_doc_load_fd; the blank-file test rereads it with pread).  Only a
 *   regular file is opened: a FIFO (whose open would wait for a writer),
 *   a device, a socket or a directory is refused before any open, with
 *   "configuration PATH: not a regular file (a FIFO)".  The one exception
 *   is /dev/null, a character device, which is the empty configuration
 *   by its name as given (the tests', and a user's way to say "none"); it
 *   is not opened, and a symlink to it is refused as a device.  Every
 *   failure to open is named "configuration PATH: ...".
 *   $RESPOL_CONFIG is read with secure_getenv.
 * - Messages about loading an entry point at its `plugin` value; init
 *   failures point at its `config` block (at the entry when it has none).
 *   A key of the block that the plugin does not declare (when it declares
 *   its keys) is refused before init, at the key, like a key of the file.
 * - Every stack ("validate", "match", "property", "shell", "queue")
 *   takes the same entries, each loaded into the stack of its key only.  A
 * property plugin's init may add constraint operators
 * (rp_property_add_operator): they are known process-wide while the
 * configuration is loaded, and a name taken twice (by two instances, or two
 * configurations loaded at once) fails the second init.  rp_config_policy looks
 * up an instance of the match stack by name, else loads the plugin of that name
 * (or absolute path) as an entry with an empty block would be, in the same
 * search path (built on first use, from the file's plugin-path and
 * $RESPOL_PLUGIN_PATH as they are then; its warnings are not reported) with the
 * same checks.  Such policies are kept by the configuration under the name
 * asked for (asking twice returns the same instance), named like an implicit
 * entry ("first#2" when "first" is taken in any stack), and finalised first in
 * rp_config_destroy. A configuration read with RP_CONFIG_NOLOAD loads none.
 * - An unknown key, and a plugin or policy name not found, get the
 *   closest known name (core/suggest.h): the keys of the file or of an
 *   entry; for a plugin, the NAME.so files of the search path; for a
 *   policy, the instances of the match stack first, then those files.
 * - The log block: its level is the configuration's, which the host's
 *   (rp_plugin_set_log_level: the command line, RESPOL_LOG) overrides.
 *   Its destination is opened before the first init, so init's messages
 *   go there too, and closed after the last fini.  A log file is written,
 *   not read, but a path through a directory someone else can write lets
 *   them put a symlink or a hard link there and have respol (root, say)
 *   append to any file, or read what plugins log; so it gets the
 *   configuration's checks (directories and file root's or the user's and
 *   writable by no one else, sticky directories as for plugins), is not
 *   followed if it is a symlink, must be a regular file with one link,
 *   and is created 0600.  allow-insecure-path does not cover it.  A log
 *   file that cannot be opened, or is refused, is a warning and the
 *   messages go to stderr: a configuration shared by every user may name
 *   a file only the daemon can write, and no command should fail for it
 *   (syslog is the destination that works for everyone).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/paths.h"
#include "respol/config.h"
#include "respol/document.h"
#include "respol/instance.h"
#include "respol/match.h"

#include "core/plugin_private.h"
#include "core/suggest.h"

#define NKINDS 5 /* RP_PLUGIN_VALIDATE .. RP_PLUGIN_QUEUE */

struct rp_stack {
    uint32_t kind;
    size_t count;
    struct rp_plugin **v;
};

struct rp_config {
    char *path;
    struct rp_stack stacks[NKINDS];
    int flags;
    /* For rp_config_policy: the file's plugin-path and
     * allow-insecure-path, the search path (built on first use), and the
     * policies loaded by name, with the names asked for. */
    char **plugin_path;
    size_t nplugin_path;
    bool allow_insecure;
    char **search;
    struct rp_stack policies;
    char **policy_keys;
    struct plugin_log log; /* every instance points here */
};

/* One entry of a stack, as read (pointers borrowed from the document). */
struct entry {
    uint32_t kind;
    size_t index;
    const json_t *node;
    const char *plugin;
    const char *name; /* explicit, or NULL */
    json_t *config;   /* NULL when absent */
};

/* The state of one rp_config_load. */
struct loader {
    struct rp_doc *doc;
    struct rp_diags *diags;
    int flags;
    size_t errors;
    json_t *plugin_path; /* array of strings, borrowed, or NULL */
    bool allow_insecure;
    struct entry *entries;
    size_t nentries;
    char **search;          /* the search path, built on first use */
    json_t *names;          /* instance name -> "validate[i]" of its entry */
    json_t *explicit_names; /* name -> true, every explicit name */
    json_t *log;            /* the log block, borrowed, or NULL */
    int log_level;          /* its level, 0 if none */
    const char *log_to;     /* its destination, or NULL */
};

static const char config_installed[] = RP_SYSCONFDIR "/respol/respol.yaml";
static char *config_default; /* set by rp_config_set_defaults */

const char *rp_config_default_path (void)
{
    return config_default ? config_default : config_installed;
}

const char *rp_config_plugin_dir (void)
{
    return plugin_builtin_dirs ();
}

int rp_config_set_defaults (const char *default_path, const char *plugin_dirs)
{
    char *copy = NULL;

    if (default_path && default_path[0] != '/') {
        errno = EINVAL;
        return -1;
    }
    if (default_path && !(copy = strdup (default_path)))
        return -1;
    if (plugin_dirs && plugin_set_builtin_dirs (plugin_dirs) < 0) {
        free (copy);
        return -1;
    }
    if (copy) {
        free (config_default);
        config_default = copy;
    }
    return 0;
}

/* --- messages ----------------------------------------------------------- */

/* Add an error at line:col (0 when unknown). */
static void verr (struct loader *ld, bool known, int line, int col,
                  const char *fmt, va_list ap)
{
    char msg[RP_ERROR_TEXT_SIZE * 2];

    vsnprintf (msg, sizeof (msg), fmt, ap);
    ld->errors++;
    if (known)
        rp_diags_add (ld->diags, RP_DIAG_ERROR, "%s:%d:%d: %s",
                      rp_doc_name (ld->doc), line, col, msg);
    else
        rp_diags_add (ld->diags, RP_DIAG_ERROR, "%s: %s", rp_doc_name (ld->doc),
                      msg);
}

/* An error about the value of key in obj (index in array when key is
 * NULL). */
static void err_at (struct loader *ld, const json_t *parent, const char *key,
                    size_t index, const char *fmt, ...)
    __attribute__ ((format (printf, 5, 6)));
static void err_at (struct loader *ld, const json_t *parent, const char *key,
                    size_t index, const char *fmt, ...)
{
    int line = 0, col = 0;
    bool known =
        key ? rp_doc_key_position (ld->doc, parent, key, &line, &col)
            : rp_doc_index_position (ld->doc, parent, index, &line, &col);
    va_list ap;

    va_start (ap, fmt);
    verr (ld, known, line, col, fmt, ap);
    va_end (ap);
}

/* An error about key itself (an unknown key). */
static void err_key (struct loader *ld, const json_t *obj, const char *key,
                     const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
static void err_key (struct loader *ld, const json_t *obj, const char *key,
                     const char *fmt, ...)
{
    int line = 0, col = 0;
    bool known = rp_doc_key_name_position (ld->doc, obj, key, &line, &col);
    va_list ap;

    va_start (ap, fmt);
    verr (ld, known, line, col, fmt, ap);
    va_end (ap);
}

/* "LABEL: unknown key 'KEY'" about key of obj (label NULL: no label),
 * with the closest of the known keys (NULL-terminated). */
static void err_unknown (struct loader *ld, const json_t *obj, const char *key,
                         const char *label, const char *const *known)
{
    char hint[SUGGEST_MAX + 32];
    struct suggest s;

    suggest_init (&s, key);
    for (size_t i = 0; known[i]; i++)
        suggest_add (&s, known[i], strlen (known[i]), 0);
    err_key (ld, obj, key, "%s%sunknown key '%s'%s", label ? label : "",
             label ? ": " : "", key,
             suggest_hint (&s, "", hint, sizeof (hint)));
}

/* An error about node. */
static void err_node (struct loader *ld, const json_t *node, const char *fmt,
                      ...) __attribute__ ((format (printf, 3, 4)));
static void err_node (struct loader *ld, const json_t *node, const char *fmt,
                      ...)
{
    int line = 0, col = 0;
    bool known = rp_doc_position (ld->doc, node, &line, &col);
    va_list ap;

    va_start (ap, fmt);
    verr (ld, known, line, col, fmt, ap);
    va_end (ap);
}

/* --- first pass: read and check the file -------------------------------- */

static void read_plugin_path (struct loader *ld, const json_t *root, json_t *v)
{
    size_t i;
    json_t *dir;

    if (json_is_null (v))
        return;
    if (!json_is_array (v)) {
        err_at (ld, root, "plugin-path", 0,
                "plugin-path must be a list of absolute directories");
        return;
    }
    json_array_foreach (v, i, dir) {
        if (!json_is_string (dir) || json_string_value (dir)[0] != '/')
            err_at (ld, v, NULL, i,
                    "plugin-path[%zu] must be an absolute directory", i);
    }
    ld->plugin_path = v;
}

static const char *const name_rule = "letters, digits, '-' and '_', 1-64 bytes";

/* The keys of the file and of an entry, for suggestions. */
static const char *const top_keys[] = {
    "validate",
    "match",
    "property",
    "shell",
    "queue",
    "plugin-path",
    "allow-insecure-path",
    NULL,
};
static const char *const entry_keys[] = { "plugin", "name", "config", NULL };

static void read_entry_plugin (struct loader *ld, struct entry *e,
                               const char *label, json_t *v)
{
    const char *s = json_string_value (v);

    if (!s) {
        err_at (ld, e->node, "plugin", 0, "%s: 'plugin' must be a string",
                label);
        return;
    }
    if (strchr (s, '/') && s[0] != '/')
        err_at (ld, e->node, "plugin", 0,
                "%s: plugin path '%s' is relative (use a name or an "
                "absolute path)",
                label, s);
    else if (!strchr (s, '/') && !plugin_name_valid (s))
        err_at (ld, e->node, "plugin", 0,
                "%s: invalid plugin name '%s' (%s; or an absolute path)", label,
                s, name_rule);
    else
        e->plugin = s;
}

static void read_entry_name (struct loader *ld, struct entry *e,
                             const char *label, json_t *v)
{
    const char *s = json_string_value (v);

    if (!s)
        err_at (ld, e->node, "name", 0, "%s: 'name' must be a string", label);
    else if (!plugin_name_valid (s))
        err_at (ld, e->node, "name", 0, "%s: invalid instance name '%s' (%s)",
                label, s, name_rule);
    else if (json_object_get (ld->explicit_names, s))
        err_at (ld, e->node, "name", 0, "%s: instance name '%s' is used twice",
                label, s);
    else if (json_object_set_new (ld->explicit_names, s, json_true ()) == 0)
        e->name = s;
}

static void read_entry_key (struct loader *ld, struct entry *e,
                            const char *label, const char *key, json_t *v)
{
    if (!strcmp (key, "plugin"))
        read_entry_plugin (ld, e, label, v);
    else if (!strcmp (key, "name"))
        read_entry_name (ld, e, label, v);
    else if (!strcmp (key, "config") && json_is_object (v))
        e->config = v;
    else if (!strcmp (key, "config") && !json_is_null (v))
        err_at (ld, e->node, "config", 0, "%s: 'config' must be a mapping",
                label);
    else if (strcmp (key, "config"))
        err_unknown (ld, e->node, key, label, entry_keys);
}

static void read_entry (struct loader *ld, uint32_t kind, json_t *stack,
                        size_t index, json_t *node)
{
    struct entry *e = &ld->entries[ld->nentries];
    char label[32];
    const char *key;
    json_t *v;

    snprintf (label, sizeof (label), "%s[%zu]", rp_plugin_kind_name (kind),
              index);
    if (!json_is_object (node)) {
        err_at (ld, stack, NULL, index,
                "%s: must be a mapping with a 'plugin' key", label);
        return;
    }
    *e = (struct entry){ .kind = kind, .index = index, .node = node };
    json_object_foreach (node, key, v) {
        read_entry_key (ld, e, label, key, v);
    }
    if (!json_object_get (node, "plugin"))
        err_node (ld, node, "%s: missing key 'plugin'", label);
    if (e->plugin)
        ld->nentries++;
}

static void read_stack (struct loader *ld, const json_t *root, uint32_t kind,
                        json_t *v)
{
    const char *name = rp_plugin_kind_name (kind);
    size_t i;
    json_t *node;

    if (json_is_null (v))
        return;
    if (!json_is_array (v)) {
        err_at (ld, root, name, 0, "%s must be a list of plugin entries", name);
        return;
    }
    json_array_foreach (v, i, node) {
        read_entry (ld, kind, v, i, node);
    }
}

static void read_log_level (struct loader *ld, json_t *log, json_t *v)
{
    json_int_t n = json_integer_value (v);
    int level = -1;

    if (json_is_string (v))
        level = rp_log_level_parse (json_string_value (v));
    else if (json_is_integer (v) && n >= RP_LOG_ERR && n <= RP_LOG_DEBUG)
        level = (int)n;
    if (level < 0)
        err_at (ld, log, "level", 0,
                "log: 'level' must be err, warning, notice, info, debug, "
                "or 3 to 7");
    else
        ld->log_level = level;
}

static void read_log_to (struct loader *ld, json_t *log, json_t *v)
{
    const char *s = json_string_value (v);

    if (s && (!strcmp (s, "stderr") || !strcmp (s, "syslog") || s[0] == '/'))
        ld->log_to = s;
    else
        err_at (ld, log, "to", 0,
                "log: 'to' must be stderr, syslog or an absolute file path");
}

static void read_log (struct loader *ld, const json_t *root, json_t *v)
{
    const char *key;
    json_t *val;

    if (json_is_null (v))
        return;
    if (!json_is_object (v)) {
        err_at (ld, root, "log", 0, "log must be a mapping (level, to)");
        return;
    }
    ld->log = v;
    json_object_foreach (v, key, val) {
        if (!strcmp (key, "level"))
            read_log_level (ld, v, val);
        else if (!strcmp (key, "to"))
            read_log_to (ld, v, val);
        else
            err_key (ld, v, key, "log: unknown key '%s'", key);
    }
}

/* The kind whose stack the top-level key names, or 0. */
static uint32_t stack_kind (const char *key)
{
    for (uint32_t k = 1; k <= NKINDS; k++)
        if (!strcmp (key, rp_plugin_kind_name (k)))
            return k;
    return 0;
}

static void read_key (struct loader *ld, const json_t *root, const char *key,
                      json_t *v)
{
    uint32_t kind = stack_kind (key);

    if (kind)
        read_stack (ld, root, kind, v);
    else if (!strcmp (key, "plugin-path"))
        read_plugin_path (ld, root, v);
    else if (!strcmp (key, "log"))
        read_log (ld, root, v);
    else if (!strcmp (key, "allow-insecure-path")) {
        if (json_is_boolean (v))
            ld->allow_insecure = json_is_true (v);
        else if (!json_is_null (v))
            err_at (ld, root, key, 0,
                    "allow-insecure-path must be true or false");
    } else
        err_unknown (ld, root, key, NULL, top_keys);
}

/* Room for every entry of every stack (an upper bound). */
static int alloc_entries (struct loader *ld, const json_t *root)
{
    size_t n = 0;

    for (uint32_t k = 1; k <= NKINDS; k++)
        n += json_array_size (json_object_get (root, rp_plugin_kind_name (k)));
    ld->entries = calloc (n + 1, sizeof (struct entry));
    return ld->entries ? 0 : -1;
}

static int read_root (struct loader *ld)
{
    json_t *root = rp_doc_root (ld->doc);
    const char *key;
    json_t *v;

    if (json_is_null (root))
        return 0;
    if (!json_is_object (root)) {
        err_node (ld, root, "the configuration must be a mapping");
        return 0;
    }
    if (alloc_entries (ld, root) < 0)
        return -1;
    json_object_foreach (root, key, v) {
        read_key (ld, root, key, v);
    }
    return 0;
}

/* --- second pass: load the entries -------------------------------------- */

static int search_path (struct loader *ld)
{
    char **cfg_dirs = NULL;
    size_t n = json_array_size (ld->plugin_path);
    int rc;

    if (ld->search)
        return 0;
    if (n && !(cfg_dirs = calloc (n, sizeof (char *))))
        return -1;
    for (size_t i = 0; i < n; i++)
        cfg_dirs[i] =
            (char *)json_string_value (json_array_get (ld->plugin_path, i));
    rc = plugin_path_create (cfg_dirs, n, ld->diags, &ld->search);
    free (cfg_dirs);
    return rc;
}

/* The file of entry e, or NULL after an error. */
static char *entry_file (struct loader *ld, const struct entry *e,
                         const char *label)
{
    rp_error_t error;
    char *file = NULL;

    if (e->plugin[0] == '/') {
        if (!(file = strdup (e->plugin)))
            err_at (ld, e->node, "plugin", 0, "%s: out of memory", label);
        return file;
    }
    if (search_path (ld) < 0)
        rp_error_set (&error, ENOMEM, "out of memory");
    else if (plugin_find (e->plugin, ld->search, NULL, &file, &error) == 0)
        return file;
    err_at (ld, e->node, "plugin", 0, "%s: %s", label, error.text);
    return NULL;
}

/* The instance name of e, whose plugin p is loaded (an implicit name gets
 * the first free "#N"). */
static char *instance_name (struct loader *ld, const struct entry *e,
                            const struct rp_plugin *p)
{
    char *name;

    if (e->name)
        return strdup (e->name);
    if (!(name = strdup (rp_plugin_name (p))))
        return NULL;
    for (int n = 2; json_object_get (ld->names, name)
                    || json_object_get (ld->explicit_names, name);
         n++) {
        free (name);
        if (asprintf (&name, "%s#%d", rp_plugin_name (p), n) < 0)
            return NULL;
    }
    return name;
}

static bool declared (const char *const *keys, const char *key)
{
    for (size_t i = 0; keys[i]; i++)
        if (!strcmp (keys[i], key))
            return true;
    return false;
}

/* Refuse each key of e's block that p does not declare (when it declares
 * its keys), at the key; false when there was one. */
static bool check_declared (struct loader *ld, const struct entry *e,
                            const struct rp_plugin *p, const char *label,
                            const char *name)
{
    const char *const *keys = plugin_config_keys (p);
    size_t errors = ld->errors;
    char where[160];
    const char *key;
    json_t *v;

    if (!keys || !e->config)
        return true;
    snprintf (where, sizeof (where), "%s '%s'", label, name);
    json_object_foreach (e->config, key, v) {
        if (!declared (keys, key))
            err_unknown (ld, e->config, key, where, keys);
    }
    return ld->errors == errors;
}

/* Init p as instance e; false after an error. */
static bool start (struct loader *ld, const struct entry *e,
                   struct rp_plugin *p, const char *label)
{
    rp_error_t error;
    char *name = instance_name (ld, e, p);

    if (!name || json_object_set_new (ld->names, name, json_string (label))) {
        err_node (ld, e->node, "%s: out of memory", label);
        free (name);
        return false;
    }
    if (!check_declared (ld, e, p, label, name)) {
        free (name);
        return false;
    }
    if (plugin_start (p, name, e->config, &error) < 0) {
        if (e->config)
            err_at (ld, e->node, "config", 0, "%s '%s': %s", label, name,
                    error.text);
        else
            err_node (ld, e->node, "%s '%s': %s", label, name, error.text);
        free (name);
        return false;
    }
    free (name);
    return true;
}

static void load_entry (struct loader *ld, struct rp_config *cfg,
                        const struct entry *e)
{
    struct rp_stack *s = &cfg->stacks[e->kind - 1];
    char label[32];
    rp_error_t error;
    struct rp_plugin *p;
    char *file;

    snprintf (label, sizeof (label), "%s[%zu]", rp_plugin_kind_name (e->kind),
              e->index);
    if (!(file = entry_file (ld, e, label)))
        return;
    p = plugin_open (file, e->kind, ld->allow_insecure, &error);
    free (file);
    if (!p) {
        err_at (ld, e->node, "plugin", 0, "%s: %s", label, error.text);
        return;
    }
    /* Added before init, so that a failed init is unloaded with the rest
     * (not finalised: it is not initialized). */
    s->v[s->count++] = p;
    p->log = &cfg->log;
    start (ld, e, p, label);
}

static int alloc_stacks (struct loader *ld, struct rp_config *cfg)
{
    for (size_t i = 0; i < ld->nentries; i++) {
        struct rp_stack *s = &cfg->stacks[ld->entries[i].kind - 1];
        if (!s->v && !(s->v = calloc (ld->nentries, sizeof (*s->v))))
            return -1;
    }
    return 0;
}

static int load_entries (struct loader *ld, struct rp_config *cfg)
{
    if (alloc_stacks (ld, cfg) < 0)
        return -1;
    for (size_t i = 0; i < ld->nentries; i++)
        load_entry (ld, cfg, &ld->entries[i]);
    return 0;
}

/* The log block's destination, before any init; a file that cannot be
 * opened is a warning (see above). */
static void open_log (struct loader *ld, struct rp_config *cfg)
{
    rp_error_t error;
    int line = 0, col = 0;

    cfg->log.level = ld->log_level;
    if (!ld->log_to || !strcmp (ld->log_to, "stderr"))
        return;
    if (!strcmp (ld->log_to, "syslog")) {
        cfg->log.to = PLUGIN_LOG_SYSLOG;
        return;
    }
    if ((cfg->log.fd = plugin_log_open (ld->log_to, &error)) >= 0) {
        cfg->log.to = PLUGIN_LOG_FILE;
        return;
    }
    rp_doc_key_position (ld->doc, ld->log, "to", &line, &col);
    rp_diags_add (ld->diags, RP_DIAG_WARNING,
                  "%s:%d:%d: log: 'to': %s; plugin messages go to stderr",
                  rp_doc_name (ld->doc), line, col, error.text);
}

/* --- rp_config_load ----------------------------------------------------- */

/* Does buf (n bytes) hold nothing but blanks and comments?  *comment: in
 * a comment, carried from one piece of a file to the next. */
static bool blank_piece (const char *buf, size_t n, bool *comment)
{
    for (size_t i = 0; i < n; i++) {
        char c = buf[i];
        if (c == '\n')
            *comment = false;
        else if (!*comment && c == '#')
            *comment = true;
        else if (!*comment && c != ' ' && c != '\t' && c != '\r')
            return false;
    }
    return true;
}

/* Does the file open on fd hold nothing but blank lines and comments?
 * Read again from its start through the same descriptor. */
static bool fd_is_blank (int fd)
{
    char buf[4096];
    bool comment = false;
    off_t total = 0;
    ssize_t n;

    while ((n = pread (fd, buf, sizeof (buf), total)) > 0) {
        total += n;
        if (total > (off_t)RP_DOC_MAX_BYTES
            || !blank_piece (buf, (size_t)n, &comment))
            return false;
    }
    return n == 0;
}

static struct rp_config *config_create (const char *path)
{
    struct rp_config *cfg = calloc (1, sizeof (*cfg));

    if (!cfg)
        return NULL;
    for (uint32_t k = 1; k <= NKINDS; k++)
        cfg->stacks[k - 1].kind = k;
    cfg->log.fd = -1;
    if (path && !(cfg->path = strdup (path))) {
        free (cfg);
        return NULL;
    }
    return cfg;
}

/* Which file to read; *optional when a missing file is no error. */
static const char *choose_path (const char *path, bool *optional)
{
    const char *env = secure_getenv (RP_CONFIG_ENV);

    *optional = false;
    if (path)
        return path;
    if (env && *env)
        return env;
    *optional = true;
    return rp_config_default_path ();
}

static void loader_free (struct loader *ld)
{
    int saved_errno = errno;

    rp_doc_destroy (ld->doc);
    free (ld->entries);
    plugin_path_free (ld->search);
    json_decref (ld->names);
    json_decref (ld->explicit_names);
    errno = saved_errno;
}

/* What rp_config_policy needs later: the flags, plugin-path and
 * allow-insecure-path. */
static int keep_settings (struct loader *ld, struct rp_config *cfg)
{
    size_t n = json_array_size (ld->plugin_path);

    cfg->flags = ld->flags;
    cfg->allow_insecure = ld->allow_insecure;
    if (n == 0)
        return 0;
    if (!(cfg->plugin_path = calloc (n, sizeof (char *))))
        return -1;
    for (size_t i = 0; i < n; i++) {
        json_t *dir = json_array_get (ld->plugin_path, i);
        if (!(cfg->plugin_path[i] = strdup (json_string_value (dir))))
            return -1;
        cfg->nplugin_path++;
    }
    return 0;
}

/* Read and check the file, then load its entries into cfg. */
static int load (struct loader *ld, struct rp_config *cfg)
{
    if (!(ld->names = json_object ()) || !(ld->explicit_names = json_object ()))
        return -1;
    if (read_root (ld) < 0)
        return -1;
    if (!ld->errors && keep_settings (ld, cfg) < 0)
        return -1;
    if (ld->errors || (ld->flags & RP_CONFIG_NOLOAD))
        return 0;
    open_log (ld, cfg);
    return load_entries (ld, cfg);
}

/* The empty configuration of path (NULL: no file was found), or NULL
 * after adding the error to diags. */
static struct rp_config *config_empty (const char *path, int flags,
                                       struct rp_diags *diags)
{
    struct rp_config *cfg = config_create (path);

    if (!cfg) {
        rp_diags_add (diags, RP_DIAG_ERROR, "%s: out of memory",
                      path ? path : config_default);
        errno = ENOMEM;
        return NULL;
    }
    cfg->flags = flags;
    return cfg;
}

/* Open path once and check that open file (plugin_secure_open: a regular
 * file whose owner, mode and directories pass the plugin files' checks,
 * for the configuration decides what runs); the descriptor, or -1 after
 * adding the error to diags.  An optional file that does not exist is
 * -1 with errno ENOENT, and no error. */
static int config_open (const char *path, bool optional, struct rp_diags *diags)
{
    rp_error_t error;
    int fd = plugin_secure_open (path, "read", true, &error);
    int saved_errno = errno;

    if (fd >= 0 || (optional && saved_errno == ENOENT))
        return fd;
    /* Named as the configuration, so that the message is not taken for
     * one about the command's own arguments. */
    rp_diags_add (diags, RP_DIAG_ERROR, "configuration %s", error.text);
    errno = saved_errno;
    return -1;
}

/* Parse what fd holds into ld->doc: 0; 1 when it does not parse because
 * the file holds only blanks and comments (the empty configuration); -1
 * after adding the error to diags. */
static int config_parse (struct loader *ld, const char *path, int fd)
{
    rp_error_t error;
    int saved_errno;

    if ((ld->doc = rp_doc_load_fd (fd, path, RP_DOC_AUTO, &error)))
        return 0;
    saved_errno = errno;
    if (saved_errno == EINVAL && fd_is_blank (fd))
        return 1;
    /* A parse error says where it is; another failure (too large, a read
     * error) is named as the configuration. */
    if (saved_errno == EINVAL)
        rp_diags_add (ld->diags, RP_DIAG_ERROR, "%s", error.text);
    else
        rp_diags_add (ld->diags, RP_DIAG_ERROR, "configuration %s", error.text);
    errno = saved_errno;
    return -1;
}

/* The configuration of ld->doc (read from path), checked and loaded; NULL
 * after adding the errors to diags. */
static struct rp_config *config_from_doc (struct loader *ld, const char *path)
{
    struct rp_config *cfg = config_create (path);

    if (!cfg || load (ld, cfg) < 0) {
        rp_diags_add (ld->diags, RP_DIAG_ERROR, "%s: out of memory", path);
        rp_config_destroy (cfg);
        errno = ENOMEM;
        return NULL;
    }
    if (ld->errors) {
        rp_config_destroy (cfg);
        errno = EINVAL;
        return NULL;
    }
    return cfg;
}

/* The configuration in the file path, open on fd. */
static struct rp_config *config_read (const char *path, int fd, int flags,
                                      struct rp_diags *diags)
{
    struct loader ld = { .diags = diags, .flags = flags };
    struct rp_config *cfg = NULL;
    int rc = config_parse (&ld, path, fd);

    if (rc == 0)
        cfg = config_from_doc (&ld, path);
    else if (rc == 1)
        cfg = config_empty (path, flags, diags);
    loader_free (&ld);
    return cfg;
}

struct rp_config *rp_config_load_json (const json_t *root, const char *name,
                                       int flags, struct rp_diags *diags)
{
    struct loader ld = { .diags = diags, .flags = flags };
    struct rp_config *cfg;

    if (!root || !name || !*name || (flags & ~RP_CONFIG_NOLOAD)) {
        errno = EINVAL;
        return NULL;
    }
    if (!(ld.doc = rp_doc_from_json ((json_t *)root, name))) {
        rp_diags_add (diags, RP_DIAG_ERROR, "%s: out of memory", name);
        return NULL;
    }
    cfg = config_from_doc (&ld, name);
    loader_free (&ld);
    return cfg;
}

struct rp_config *rp_config_load (const char *path, int flags,
                                  struct rp_diags *diags)
{
    struct rp_config *cfg;
    bool optional;
    int fd, saved_errno;

    if ((flags & ~RP_CONFIG_NOLOAD) || (path && !*path)) {
        errno = EINVAL;
        return NULL;
    }
    path = choose_path (path, &optional);
    /* /dev/null, a character device, is the empty configuration by its
     * name; it is not opened.  Any other device is refused. */
    if (!strcmp (path, "/dev/null"))
        return config_empty (path, flags, diags);
    if ((fd = config_open (path, optional, diags)) < 0)
        return errno == ENOENT && optional ? config_empty (NULL, flags, diags)
                                           : NULL;
    cfg = config_read (path, fd, flags, diags);
    saved_errno = errno;
    close (fd);
    errno = saved_errno;
    return cfg;
}

void rp_config_destroy (struct rp_config *cfg)
{
    int saved_errno = errno;

    if (!cfg)
        return;
    /* Loaded last, unloaded first. */
    while (cfg->policies.count > 0) {
        size_t i = --cfg->policies.count;
        plugin_close (cfg->policies.v[i]);
        free (cfg->policy_keys[i]);
    }
    free (cfg->policies.v);
    free (cfg->policy_keys);
    plugin_path_free (cfg->search);
    for (size_t i = 0; i < cfg->nplugin_path; i++)
        free (cfg->plugin_path[i]);
    free (cfg->plugin_path);
    for (int k = NKINDS - 1; k >= 0; k--) {
        struct rp_stack *s = &cfg->stacks[k];
        while (s->count > 0)
            plugin_close (s->v[--s->count]);
        free (s->v);
    }
    if (cfg->log.fd >= 0)
        close (cfg->log.fd);
    free (cfg->path);
    free (cfg);
    errno = saved_errno;
}

const char *rp_config_path (const struct rp_config *cfg)
{
    return cfg ? cfg->path : NULL;
}

/* --- stacks ------------------------------------------------------------- */

static void stack_job_event (const struct rp_stack *s, int event,
                             const struct rp_job *job)
{
    for (size_t i = 0; i < s->count; i++) {
        struct rp_plugin *p = s->v[i];
        if (!p->job_event)
            continue;
        p->error[0] = '\0';
        if (p->job_event (p, event, job) != 0)
            plugin_log (p, RP_LOG_ERR, "job_event (%s) failed%s%s",
                        rp_job_event_name (event), p->error[0] ? ": " : "",
                        p->error);
    }
}

void config_job_event (const struct rp_config *cfg, int event,
                       const struct rp_job *job)
{
    if (!cfg)
        return;
    stack_job_event (&cfg->stacks[RP_PLUGIN_VALIDATE - 1], event, job);
    stack_job_event (&cfg->stacks[RP_PLUGIN_MATCH - 1], event, job);
    stack_job_event (&cfg->policies, event, job);
}

const struct rp_stack *rp_config_stack (const struct rp_config *cfg,
                                        uint32_t kind)
{
    if (!cfg || kind < 1 || kind > NKINDS) {
        errno = EINVAL;
        return NULL;
    }
    return &cfg->stacks[kind - 1];
}

size_t rp_stack_count (const struct rp_stack *s)
{
    return s ? s->count : 0;
}

const struct rp_plugin *rp_stack_plugin (const struct rp_stack *s, size_t i)
{
    if (!s || i >= s->count)
        return NULL;
    return s->v[i];
}

/* --- match policies by name --------------------------------------------- */

static const struct rp_plugin *stack_find (const struct rp_stack *s,
                                           const char *instance)
{
    for (size_t i = 0; i < s->count; i++)
        if (!strcmp (s->v[i]->instance, instance))
            return s->v[i];
    return NULL;
}

static bool instance_taken (const struct rp_config *cfg, const char *name)
{
    for (uint32_t k = 0; k < NKINDS; k++)
        if (stack_find (&cfg->stacks[k], name))
            return true;
    return stack_find (&cfg->policies, name) != NULL;
}

/* The plugin's own name, or the first free "name#N" (as for an entry
 * without an explicit name).  Caller frees. */
static char *policy_instance_name (const struct rp_config *cfg,
                                   const struct rp_plugin *p)
{
    char *name = strdup (p->name);

    for (int n = 2; name && instance_taken (cfg, name); n++) {
        free (name);
        if (asprintf (&name, "%s#%d", p->name, n) < 0)
            return NULL;
    }
    return name;
}

/* The file of plugin name (a name searched for, or an absolute path).
 * Caller frees. */
static char *policy_file (struct rp_config *cfg, const char *name,
                          rp_error_t *error)
{
    const struct rp_stack *match = &cfg->stacks[RP_PLUGIN_MATCH - 1];
    struct suggest hint;
    char *file = NULL;

    if (name[0] == '/') {
        if (!(file = strdup (name)))
            rp_error_set (error, ENOMEM, "out of memory");
        return file;
    }
    if (strchr (name, '/')) {
        rp_error_set (error, EINVAL,
                      "plugin path '%s' is relative (use a name or an "
                      "absolute path)",
                      name);
        return NULL;
    }
    if (!plugin_name_valid (name)) {
        rp_error_set (error, EINVAL,
                      "invalid plugin name '%s' (%s; or an absolute path)",
                      name, name_rule);
        return NULL;
    }
    if (!cfg->search
        && plugin_path_create (cfg->plugin_path, cfg->nplugin_path, NULL,
                               &cfg->search)
               < 0) {
        rp_error_set (error, ENOMEM, "out of memory");
        return NULL;
    }
    /* A name close to an instance of the match stack, or to a plugin. */
    suggest_init (&hint, name);
    for (size_t i = 0; i < match->count; i++)
        suggest_add (&hint, match->v[i]->instance,
                     strlen (match->v[i]->instance), 0);
    if (plugin_find (name, cfg->search, &hint, &file, error) < 0)
        return NULL;
    return file;
}

/* Room for one more policy and its key (a copy of key). */
static int policies_grow (struct rp_config *cfg, const char *key)
{
    size_t n = cfg->policies.count + 1;
    struct rp_plugin **v = realloc (cfg->policies.v, n * sizeof (*v));
    char **keys;

    if (!v)
        return -1;
    cfg->policies.v = v;
    if (!(keys = realloc (cfg->policy_keys, n * sizeof (*keys))))
        return -1;
    cfg->policy_keys = keys;
    if (!(keys[n - 1] = strdup (key)))
        return -1;
    return 0;
}

struct rp_plugin *rp_config_plugin_inspect (const struct rp_config *cfg,
                                            const char *name,
                                            rp_error_t *error)
{
    struct rp_config *empty = NULL;
    struct rp_plugin *p;
    char *file;

    if (!name || !*name) {
        rp_error_set (error, EINVAL, "invalid argument");
        return NULL;
    }
    if (!cfg && !(cfg = empty = config_create (NULL))) {
        rp_error_set (error, ENOMEM, "out of memory");
        return NULL;
    }
    /* The configuration's search path is built on first use. */
    file = policy_file ((struct rp_config *)cfg, name, error);
    rp_config_destroy (empty);
    if (!file)
        return NULL;
    p = rp_plugin_inspect (file, error);
    free (file);
    return p;
}

/* Load, check and init the plugin name of kind with the block config
 * (NULL: empty); keep it under key. */
static const struct rp_plugin *policy_load (struct rp_config *cfg,
                                            const char *name, uint32_t kind,
                                            json_t *config, const char *key,
                                            rp_error_t *error)
{
    struct rp_plugin *p;
    char *file, *instance = NULL;

    if (!(file = policy_file (cfg, name, error)))
        return NULL;
    p = plugin_open (file, kind, cfg->allow_insecure, error);
    free (file);
    if (!p)
        return NULL;
    if (!(instance = policy_instance_name (cfg, p))
        || policies_grow (cfg, key) < 0) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto error;
    }
    p->log = &cfg->log;
    if (plugin_start (p, instance, config, error) < 0) {
        free (cfg->policy_keys[cfg->policies.count]);
        rp_error_prefix (error, "%s", p->file);
        goto error;
    }
    free (instance);
    cfg->policies.v[cfg->policies.count++] = p;
    return p;
error:
    free (instance);
    plugin_close (p);
    return NULL;
}

const struct rp_plugin *rp_config_policy (struct rp_config *cfg,
                                          const char *name, rp_error_t *error)
{
    const struct rp_stack *match;
    const struct rp_plugin *p;

    if (!cfg) {
        rp_error_set (error, EINVAL, "invalid argument");
        return NULL;
    }
    match = &cfg->stacks[RP_PLUGIN_MATCH - 1];
    if (!name && match->count > 0)
        return match->v[0];
    if (!name)
        name = "first";
    if ((p = stack_find (match, name)))
        return p;
    for (size_t i = 0; i < cfg->policies.count; i++)
        if (!strcmp (cfg->policy_keys[i], name))
            return cfg->policies.v[i];
    if (cfg->flags & RP_CONFIG_NOLOAD) {
        rp_error_set (error, EINVAL,
                      "policy '%s': the configuration was read without "
                      "loading plugins",
                      name);
        return NULL;
    }
    return policy_load (cfg, name, RP_PLUGIN_MATCH, NULL, name, error);
}

/* A loaded policy of cfg->policies by key, or NULL. */
static const struct rp_plugin *policy_cached (const struct rp_config *cfg,
                                              const char *key)
{
    for (size_t i = 0; i < cfg->policies.count; i++)
        if (!strcmp (cfg->policy_keys[i], key))
            return cfg->policies.v[i];
    return NULL;
}

/* The first instance of the queue stack that has a pass, or NULL. */
static const struct rp_plugin *first_pass (const struct rp_stack *queue)
{
    for (size_t i = 0; i < queue->count; i++)
        if (rp_queue_has_pass (queue->v[i]))
            return queue->v[i];
    return NULL;
}

const struct rp_plugin *rp_config_queue_policy (struct rp_config *cfg,
                                                const char *name,
                                                const json_t *config,
                                                rp_error_t *error)
{
    const struct rp_stack *queue;
    const struct rp_plugin *p;
    char *dump = NULL, *key = NULL;

    if (!cfg || (config && !json_is_object (config))) {
        rp_error_set (error, EINVAL, "invalid argument");
        return NULL;
    }
    queue = &cfg->stacks[RP_PLUGIN_QUEUE - 1];
    if (!name && !config && (p = first_pass (queue)))
        return p;
    if (!name)
        name = "fcfs";
    if (!config && (p = stack_find (queue, name)))
        return p;
    /* Keys of the match policies are plain names: these start with a
     * newline, which no name has. */
    if ((config && !(dump = json_dumps (config, JSON_COMPACT | JSON_SORT_KEYS)))
        || asprintf (&key, "\nqueue\n%s\n%s", name, dump ? dump : "") < 0) {
        free (dump);
        rp_error_set (error, ENOMEM, "out of memory");
        return NULL;
    }
    free (dump);
    if (!(p = policy_cached (cfg, key)) && (cfg->flags & RP_CONFIG_NOLOAD))
        rp_error_set (error, EINVAL,
                      "queue policy '%s': the configuration was read without "
                      "loading plugins",
                      name);
    else if (!p)
        p = policy_load (cfg, name, RP_PLUGIN_QUEUE, (json_t *)config, key,
                         error);
    free (key);
    return p;
}
