/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for the configuration (core/config.c), the stacks it loads
 * through the loader (core/plugin.c) and the validator stack run
 * (core/validate.c), with the fixture plugins of t/plugins (found through
 * $RESPOL_FIXTURE_PLUGINDIR).
 *
 * Configuration files are written to a private temporary directory (removed
 * at the end).  In the tables, "$FIX" and "$TMP" in a file stand for the
 * fixture and temporary directories, and "@" at the start of an expected
 * message line stands for the file's path.  The fixture "good" appends
 * init/validate/fini lines to a log file when its block says so: that is
 * how the tests observe call order, all-or-nothing loading and what each
 * validator sees.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/paths.h"
#include "core/plugin_private.h"
#include "respol/config.h"
#include "respol/jobspec.h"
#include "respol/match.h"
#include "t/tap/tap.h"

#include "core/test/fixtures.h"

static char cfgpath[PATH_MAX];

/* --- helpers ------------------------------------------------------------ */

/* s with every "$FIX" and "$TMP" replaced, and "@" at a line start by
 * cfgpath when at_path.  Caller frees. */
static char *expand (const char *s, bool at_path)
{
    size_t size = strlen (s) * 4 + 8 * PATH_MAX;
    char *out = malloc (size);
    size_t n = 0;

    if (!out)
        BAIL_OUT ("out of memory");
    for (const char *p = s; *p && n < size - PATH_MAX; p++) {
        if (!strncmp (p, "$FIX", 4)) {
            n += snprintf (out + n, size - n, "%s", fixdir);
            p += 3;
        } else if (!strncmp (p, "$TMP", 4)) {
            n += snprintf (out + n, size - n, "%s", tmpdir);
            p += 3;
        } else if (at_path && *p == '@' && (p == s || p[-1] == '\n'))
            n += snprintf (out + n, size - n, "%s", cfgpath);
        else
            out[n++] = *p;
    }
    out[n] = '\0';
    return out;
}

static const char *tmp (const char *name)
{
    static char bufs[4][PATH_MAX];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf (b, PATH_MAX, "%s/%s", tmpdir, name);
    return b;
}

static void write_file (const char *path, const char *content)
{
    FILE *f = fopen (path, "w");
    if (!f || fputs (content, f) < 0 || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", path);
}

/* Contents of path ("" when missing), in a static buffer. */
static const char *read_file (const char *path)
{
    static char buf[8192];
    FILE *f = fopen (path, "r");
    size_t n = f ? fread (buf, 1, sizeof (buf) - 1, f) : 0;

    buf[n] = '\0';
    if (f)
        fclose (f);
    return buf;
}

static void run (const char *fmt, const char *arg)
    __attribute__ ((format (printf, 1, 0)));
static void run (const char *fmt, const char *arg)
{
    char cmd[4 * PATH_MAX];
    snprintf (cmd, sizeof (cmd), fmt, arg);
    if (system (cmd) != 0)
        BAIL_OUT ("%s failed", cmd);
}

/* Every message of d, one per line, warnings marked "W: ". */
static const char *messages (const struct rp_diags *d)
{
    static char buf[16384];
    size_t n = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < rp_diags_count (d) && n < sizeof (buf); i++)
        n += snprintf (buf + n, sizeof (buf) - n, "%s%s%s", i ? "\n" : "",
                       rp_diags_severity (d, i) == RP_DIAG_WARNING ? "W: " : "",
                       rp_diags_text (d, i));
    return buf;
}

/* Write content (expanded) as the configuration file and load it. */
static struct rp_config *load (const char *content, int flags,
                               struct rp_diags *d)
{
    char *text = expand (content, false);

    rp_diags_clear (d);
    write_file (cfgpath, text);
    free (text);
    return rp_config_load (cfgpath, flags, d);
}

/* Is the expanded form of want the list of messages of d? */
static bool is_messages (const struct rp_diags *d, const char *want,
                         const char *what)
{
    char *w = expand (want, true);
    bool pass = is (messages (d), w, "%s", what);
    free (w);
    return pass;
}

static const struct rp_plugin *instance (const struct rp_config *cfg, size_t i)
{
    return rp_stack_plugin (rp_config_stack (cfg, RP_PLUGIN_VALIDATE), i);
}

static size_t count (const struct rp_config *cfg)
{
    return rp_stack_count (rp_config_stack (cfg, RP_PLUGIN_VALIDATE));
}

/* --- the file: every error -------------------------------------------- */

struct syntax_test {
    const char *what;
    const char *content;
    const char *errors; /* NULL: valid */
};

static const struct syntax_test syntax_tests[] = {
    { "an empty file is the empty configuration", "", NULL },
    { "only comments and blank lines", "# nothing yet\n\n   # indented\n",
      NULL },
    { "null document", "~\n", NULL },
    { "every key, empty",
      "plugin-path: []\nallow-insecure-path: false\n"
      "validate: []\nmatch: []\nproperty: []\nshell: []\n",
      NULL },
    { "null values are empty",
      "plugin-path:\nallow-insecure-path:\n"
      "validate:\nmatch:\nproperty:\nshell:\n",
      NULL },
    { "entries of every form (checked, not loaded)",
      "plugin-path: [/a/b, /c]\nvalidate:\n  - plugin: good\n"
      "  - plugin: /abs/x.so\n    name: x-1_Y\n    config: {a: 1}\n"
      "  - plugin: good\n    config:\n",
      NULL },
    { "a misspelt key", "valdiate: []\n",
      "@:1:1: unknown key 'valdiate'; did you mean 'validate'?" },
    { "plugin-path not a list", "plugin-path: /x\n",
      "@:1:14: plugin-path must be a list of absolute directories" },
    { "plugin-path entries not absolute", "plugin-path: [/a, rel, 3, '']\n",
      "@:1:19: plugin-path[1] must be an absolute directory\n"
      "@:1:24: plugin-path[2] must be an absolute directory\n"
      "@:1:27: plugin-path[3] must be an absolute directory" },
    { "allow-insecure-path not a boolean", "allow-insecure-path: please\n",
      "@:1:22: allow-insecure-path must be true or false" },
    { "validate not a list", "validate: {plugin: x}\n",
      "@:1:11: validate must be a list of plugin entries" },
    { "an entry that is not a mapping", "validate:\n  - good\n",
      "@:2:5: validate[0]: must be a mapping with a 'plugin' key" },
    { "an entry without plugin", "validate:\n  - name: x\n",
      "@:2:5: validate[0]: missing key 'plugin'" },
    { "plugin not a string", "validate:\n  - plugin: 3\n",
      "@:2:13: validate[0]: 'plugin' must be a string" },
    { "a relative plugin path", "validate:\n  - plugin: lib/x.so\n",
      "@:2:13: validate[0]: plugin path 'lib/x.so' is relative (use a name "
      "or an absolute path)" },
    { "a plugin name with a dot", "validate:\n  - plugin: x.so\n",
      "@:2:13: validate[0]: invalid plugin name 'x.so' (letters, digits, "
      "'-' and '_', 1-64 bytes; or an absolute path)" },
    { "an empty plugin name", "validate:\n  - plugin: ''\n",
      "@:2:13: validate[0]: invalid plugin name '' (letters, digits, '-' "
      "and '_', 1-64 bytes; or an absolute path)" },
    { "an invalid instance name",
      "validate:\n  - plugin: good\n    name: a b\n",
      "@:3:11: validate[0]: invalid instance name 'a b' (letters, digits, "
      "'-' and '_', 1-64 bytes)" },
    { "an instance name with '#'",
      "validate:\n  - plugin: good\n    name: 'good#2'\n",
      "@:3:11: validate[0]: invalid instance name 'good#2' (letters, "
      "digits, '-' and '_', 1-64 bytes)" },
    { "name not a string", "validate:\n  - plugin: good\n    name: 3\n",
      "@:3:11: validate[0]: 'name' must be a string" },
    { "an instance name used twice",
      "validate:\n  - plugin: good\n    name: a\n  - plugin: good\n"
      "    name: a\n",
      "@:5:11: validate[1]: instance name 'a' is used twice" },
    { "config not a mapping", "validate:\n  - plugin: good\n    config: [1]\n",
      "@:3:13: validate[0]: 'config' must be a mapping" },
    { "an unknown entry key", "validate:\n  - plugin: good\n    confg: {}\n",
      "@:3:5: validate[0]: unknown key 'confg'; did you mean 'config'?" },
    { "match entries of every form (checked, not loaded)",
      "match:\n  - plugin: first\n  - plugin: /abs/pack.so\n    name: p\n"
      "    config: {}\n",
      NULL },
    { "match entries are checked as validate entries",
      "match:\n  - plugin: x.so\n  - name: a\n  - plugin: first\n"
      "    confg: {}\n",
      "@:2:13: match[0]: invalid plugin name 'x.so' (letters, digits, '-' "
      "and '_', 1-64 bytes; or an absolute path)\n"
      "@:3:5: match[1]: missing key 'plugin'\n"
      "@:5:5: match[2]: unknown key 'confg'; did you mean 'config'?" },
    { "instance names are unique across the validate and match stacks",
      "validate:\n  - plugin: good\n    name: a\nmatch:\n  - plugin: first\n"
      "    name: a\n",
      "@:6:11: match[0]: instance name 'a' is used twice" },
    { "match not a list", "match: first\n",
      "@:1:8: match must be a list of plugin entries" },
    { "a property entry is read as every entry is",
      "property: [{plugin: x, nme: y}]\n",
      "@:1:24: property[0]: unknown key 'nme'; did you mean 'name'?" },
    { "shell not a list", "shell: {}\n",
      "@:1:8: shell must be a list of plugin entries" },
    { "a configuration that is not a mapping", "- a\n- b\n",
      "@:1:1: the configuration must be a mapping" },
    { "a scalar configuration", "hello\n",
      "@:1:1: the configuration must be a mapping" },
    { "every error is reported, in order",
      "plugin-path: rel\nvalidate:\n  - plugin: x/y\n    bogus: 1\n"
      "  - {plugin: good, name: 'a b'}\nvaldiate:\n",
      "@:1:14: plugin-path must be a list of absolute directories\n"
      "@:3:13: validate[0]: plugin path 'x/y' is relative (use a name or an "
      "absolute path)\n"
      "@:4:5: validate[0]: unknown key 'bogus'\n"
      "@:5:26: validate[1]: invalid instance name 'a b' (letters, digits, "
      "'-' and '_', 1-64 bytes)\n"
      "@:6:1: unknown key 'valdiate'; did you mean 'validate'?" },
};

static void test_syntax (void)
{
    struct rp_diags *d = rp_diags_create ();

    for (size_t i = 0; i < sizeof (syntax_tests) / sizeof (syntax_tests[0]);
         i++) {
        const struct syntax_test *t = &syntax_tests[i];
        errno = 0;
        struct rp_config *cfg = load (t->content, RP_CONFIG_NOLOAD, d);
        if (!t->errors) {
            ok (cfg != NULL && rp_diags_count (d) == 0, "%s: valid", t->what);
            ok (count (cfg) == 0, "%s: NOLOAD loads nothing", t->what);
        } else {
            ok (cfg == NULL && errno == EINVAL, "%s: EINVAL", t->what);
            is_messages (d, t->errors, t->what);
        }
        rp_config_destroy (cfg);
    }
    rp_diags_destroy (d);
}

static void test_files (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    char want[2 * PATH_MAX];
    const char *def = rp_config_default_path ();

    errno = 0;
    cfg = rp_config_load (tmp ("missing.yaml"), 0, d);
    snprintf (want, sizeof (want),
              "configuration %s: No such file or directory",
              tmp ("missing.yaml"));
    ok (cfg == NULL && errno == ENOENT, "a missing file: ENOENT");
    is (messages (d), want, "a missing file: message");

    cfg = load ("validate: [\n", 0, d);
    ok (cfg == NULL && rp_diags_errors (d) == 1,
        "a YAML syntax error fails with one message");
    like (messages (d), cfgpath, "which names the file");

    cfg = load ("validate: []\n", 0, d);
    is (rp_config_path (cfg), cfgpath, "rp_config_path is the file read");
    rp_config_destroy (cfg);

    setenv (RP_CONFIG_ENV, cfgpath, 1);
    rp_diags_clear (d);
    cfg = rp_config_load (NULL, 0, d);
    is (rp_config_path (cfg), cfgpath, "path NULL reads $RESPOL_CONFIG");
    rp_config_destroy (cfg);
    setenv (RP_CONFIG_ENV, tmp ("missing.yaml"), 1);
    errno = 0;
    ok (rp_config_load (NULL, 0, d) == NULL && errno == ENOENT,
        "a missing $RESPOL_CONFIG is an error");
    setenv (RP_CONFIG_ENV, "", 1);
    cfg = rp_config_load (NULL, 0, NULL);
    if (access (def, F_OK) == 0)
        skip (1, "%s exists", def);
    else
        ok (cfg && rp_config_path (cfg) == NULL && count (cfg) == 0,
            "an empty $RESPOL_CONFIG means the installed default, which is "
            "missing: the empty configuration");
    rp_config_destroy (cfg);
    unsetenv (RP_CONFIG_ENV);

    is (def + strlen (def) - strlen ("/respol/respol.yaml"),
        "/respol/respol.yaml", "the default is sysconfdir/respol/respol.yaml");
    errno = 0;
    ok (rp_config_load (cfgpath, 2, d) == NULL && errno == EINVAL,
        "unknown flags: EINVAL");
    errno = 0;
    ok (rp_config_load ("", 0, d) == NULL && errno == EINVAL,
        "an empty path: EINVAL");
    errno = 42;
    rp_config_destroy (NULL);
    ok (errno == 42, "rp_config_destroy (NULL) keeps errno");
    rp_diags_destroy (d);
}

/* rp_config_load (path) fails with errno errnum and the one message
 * "configuration PATH: text". */
static void expect_config_fails (const char *path, int errnum, const char *text,
                                 const char *what)
{
    struct rp_diags *d = rp_diags_create ();
    char want[3 * PATH_MAX];
    struct rp_config *cfg;

    snprintf (want, sizeof (want), "configuration %s: %s", path, text);
    errno = 0;
    cfg = rp_config_load (path, 0, d);
    ok (cfg == NULL && errno == errnum, "%s: refused with %s", what,
        errnum == EPERM ? "EPERM" : "EINVAL");
    is (messages (d), want, "%s: message", what);
    rp_config_destroy (cfg);
    rp_diags_destroy (d);
}

/* "configuration PATH: not a regular file (type)", EINVAL. */
static void expect_not_regular (const char *path, const char *type,
                                const char *what)
{
    char text[64];

    snprintf (text, sizeof (text), "not a regular file (%s)", type);
    expect_config_fails (path, EINVAL, text, what);
}

/* Only a regular file is read, and it is not opened otherwise: a FIFO
 * would block the open.  (A socket: core/test/plugin.c, the same check.)
 * /dev/null is the empty configuration by its name. */
static void test_special_files (void)
{
    struct rp_config *cfg;
    rp_error_t error;

    if (mkfifo (tmp ("c.fifo"), 0644) < 0 || mkdir (tmp ("c.d"), 0755) < 0
        || symlink ("/dev/null", tmp ("null.yaml")) < 0)
        BAIL_OUT ("mkfifo, mkdir or symlink");
    /* Should the open wait for a writer, the alarm fails the test. */
    alarm (10);
    expect_not_regular (tmp ("c.fifo"), "a FIFO", "a FIFO");
    alarm (0);
    expect_not_regular ("/dev/zero", "a character device", "/dev/zero");
    expect_not_regular (tmp ("c.d"), "a directory", "a directory");
    expect_not_regular (tmp ("null.yaml"), "a character device",
                        "a symlink to /dev/null (only the name counts)");

    cfg = rp_config_load ("/dev/null", RP_CONFIG_NOLOAD, NULL);
    ok (cfg && count (cfg) == 0 && !strcmp (rp_config_path (cfg), "/dev/null"),
        "/dev/null is the empty configuration");
    ok (!rp_config_policy (cfg, "first", &error),
        "/dev/null read with NOLOAD loads no policy");
    is (error.text,
        "policy 'first': the configuration was read without loading "
        "plugins",
        "/dev/null read with NOLOAD: message");
    rp_config_destroy (cfg);
    write_file (tmp ("blank.yaml"), "# nothing\n");
    cfg = rp_config_load (tmp ("blank.yaml"), RP_CONFIG_NOLOAD, NULL);
    is (cfg && !rp_config_policy (cfg, "first", &error) ? error.text : "",
        "policy 'first': the configuration was read without loading "
        "plugins",
        "so does a blank file read with NOLOAD");
    rp_config_destroy (cfg);
}

static void test_stacks_api (void)
{
    struct rp_config *cfg = rp_config_load (cfgpath, RP_CONFIG_NOLOAD, NULL);

    errno = 0;
    ok (rp_config_stack (NULL, RP_PLUGIN_VALIDATE) == NULL && errno == EINVAL,
        "rp_config_stack (NULL): EINVAL");
    errno = 0;
    ok (rp_config_stack (cfg, 0) == NULL && errno == EINVAL,
        "rp_config_stack (kind 0): EINVAL");
    ok (rp_config_stack (cfg, 6) == NULL, "rp_config_stack (kind 6): NULL");
    ok (rp_config_stack (cfg, RP_PLUGIN_SHELL) != NULL
            && rp_stack_count (rp_config_stack (cfg, RP_PLUGIN_SHELL)) == 0,
        "a kind with no entries has an empty stack");
    ok (rp_stack_count (NULL) == 0 && rp_stack_plugin (NULL, 0) == NULL,
        "rp_stack_count/plugin (NULL)");
    ok (rp_stack_plugin (rp_config_stack (cfg, RP_PLUGIN_VALIDATE), 0) == NULL,
        "rp_stack_plugin out of range: NULL");
    rp_config_destroy (cfg);
}

/* --- loading ------------------------------------------------------------ */

struct load_test {
    const char *what;
    const char *content;
    const char *errors;
};

static const struct load_test load_tests[] = {
    { "a name not found in plugin-path nor the installed directory",
      "plugin-path: [$TMP/empty]\nvalidate:\n  - plugin: good\n",
      "@:3:13: validate[0]: plugin 'good' not found in "
      "$TMP/empty:" RP_PLUGINDIR },
    { "an absolute path that does not exist",
      "validate:\n  - plugin: $FIX/none.so\n",
      "@:2:13: validate[0]: $FIX/none.so: No such file or directory" },
    { "wrong ABI", "validate:\n  - plugin: $FIX/wrong-abi.so\n",
      "@:2:13: validate[0]: $FIX/wrong-abi.so: plugin 'wrong-abi' was built "
      "for ABI version 7, this respol has ABI version 1" },
    { "a validator in the shell stack", "shell:\n  - plugin: $FIX/good.so\n",
      "@:2:13: shell[0]: $FIX/good.so: plugin 'good' is a validate plugin, "
      "configured in the shell stack" },
    { "unknown kind", "validate:\n  - plugin: $FIX/wrong-kind.so\n",
      "@:2:13: validate[0]: $FIX/wrong-kind.so: plugin 'wrong-kind' has "
      "unknown kind 99" },
    { "a property plugin in the validate stack",
      "validate:\n  - plugin: $FIX/property-fixture.so\n",
      "@:2:13: validate[0]: $FIX/property-fixture.so: plugin "
      "'property-fixture' is a property plugin, configured in the validate "
      "stack" },
    { "no ops", "plugin-path: [$FIX]\nvalidate:\n  - plugin: no-ops\n",
      "@:3:13: validate[0]: $FIX/no-ops.so: plugin 'no-ops' has no "
      "operations" },
    { "no descriptor", "validate:\n  - plugin: $FIX/no-descriptor.so\n",
      "@:2:13: validate[0]: $FIX/no-descriptor.so: no descriptor symbol "
      "'respol_plugin'" },
    { "undefined symbol", "validate:\n  - plugin: $FIX/undefined-symbol.so\n",
      "@:2:13: validate[0]: $FIX/undefined-symbol.so: undefined symbol: "
      "rp_no_such_function" },
    { "not a shared object", "validate:\n  - plugin: $TMP/text.so\n",
      "@:2:13: validate[0]: $TMP/text.so: not a shared object (invalid ELF "
      "header)" },
    { "init fails (no block: the entry's position)",
      "validate:\n  - plugin: $FIX/init-fails.so\n",
      "@:2:5: validate[0] 'init-fails': init failed: init failed on "
      "purpose" },
    { "a bad block: missing key (the block's position)",
      "validate:\n  - plugin: $FIX/strict-config.so\n    config: {}\n",
      "@:3:13: validate[0] 'strict-config': init failed: 'limit' is "
      "required" },
    { "a bad block: bad value",
      "validate:\n  - plugin: $FIX/strict-config.so\n    name: strict\n"
      "    config:\n      limit: 0\n",
      "@:5:7: validate[0] 'strict': init failed: 'limit' must be an integer "
      "> 0" },
    { "a bad block: unknown key",
      "validate:\n  - plugin: $FIX/strict-config.so\n"
      "    config: {limit: 2, lmit: 3}\n",
      "@:3:13: validate[0] 'strict-config': init failed: unknown key "
      "'lmit'" },
    { "no block given to a plugin without init: its own error",
      "validate:\n  - plugin: $FIX/strict-config.so\n",
      "@:2:5: validate[0] 'strict-config': init failed: 'limit' is "
      "required" },
    { "a block given to a plugin without init",
      "validate:\n  - plugin: $FIX/reject-all.so\n    config: {a: 1}\n",
      "@:3:13: validate[0] 'reject-all': takes no configuration (the plugin "
      "has no init)" },
    { "a validator in the match stack", "match:\n  - plugin: $FIX/good.so\n",
      "@:2:13: match[0]: $FIX/good.so: plugin 'good' is a validate plugin, "
      "configured in the match stack" },
    { "a match policy in the validate stack",
      "validate:\n  - plugin: $FIX/bad-order.so\n",
      "@:2:13: validate[0]: $FIX/bad-order.so: plugin 'bad-order' is a match "
      "plugin, configured in the validate stack" },
    { "a block given to a policy without init",
      "match:\n  - plugin: $FIX/bad-order.so\n    config: {a: 1}\n",
      "@:3:13: match[0] 'bad-order': takes no configuration (the plugin has "
      "no init)" },
    { "a policy whose init refuses its block",
      "match:\n  - plugin: $FIX/score-fails.so\n    config: {a: 1}\n",
      "@:3:13: match[0] 'score-fails': init failed: takes no "
      "configuration" },
    { "a key the plugin does not declare: refused at the key, before init",
      "validate:\n  - plugin: $FIX/declared-keys.so\n"
      "    config: {limit: 2, lmit: 3}\n",
      "@:3:24: validate[0] 'declared-keys': unknown key 'lmit'; did you mean "
      "'limit'?" },
    { "every key the plugin does not declare, with the instance name",
      "validate:\n  - plugin: $FIX/declared-keys.so\n    name: dk\n"
      "    config:\n      queue: batch\n      max: 3\n      qeue: x\n",
      "@:6:7: validate[0] 'dk': unknown key 'max'\n"
      "@:7:7: validate[0] 'dk': unknown key 'qeue'; did you mean 'queue'?" },
    { "a declared list with a key twice",
      "validate:\n  - plugin: $FIX/bad-keys.so\n",
      "@:2:13: validate[0]: $FIX/bad-keys.so: plugin 'bad-keys' declares "
      "configuration key 'limit' twice" },
    { "every bad entry is reported",
      "plugin-path: [$FIX]\nvalidate:\n  - plugin: wrong-abi\n"
      "  - plugin: good\n  - plugin: init-fails\n  - plugin: no-ops\n",
      "@:3:13: validate[0]: $FIX/wrong-abi.so: plugin 'wrong-abi' was built "
      "for ABI version 7, this respol has ABI version 1\n"
      "@:5:5: validate[2] 'init-fails': init failed: init failed on "
      "purpose\n"
      "@:6:13: validate[3]: $FIX/no-ops.so: plugin 'no-ops' has no "
      "operations" },
};

static void test_load_errors (void)
{
    struct rp_diags *d = rp_diags_create ();

    write_file (tmp ("text.so"), "This is not a shared object but a text "
                                 "file, long enough for an ELF header.\n");
    for (size_t i = 0; i < sizeof (load_tests) / sizeof (load_tests[0]); i++) {
        const struct load_test *t = &load_tests[i];
        errno = 0;
        struct rp_config *cfg = load (t->content, 0, d);
        ok (cfg == NULL && errno == EINVAL, "%s: fails", t->what);
        is_messages (d, t->errors, t->what);
        rp_config_destroy (cfg);
    }
    rp_diags_destroy (d);
}

static void test_load_good (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    char want[PATH_MAX];

    cfg = load ("plugin-path: [$FIX]\nvalidate:\n  - plugin: good\n"
                "  - plugin: $FIX/strict-config.so\n    config: {limit: 3}\n"
                "  - plugin: good\n    config:\n",
                0, d);
    if (!ok (cfg != NULL && rp_diags_count (d) == 0, "a stack loads"))
        diag ("%s", messages (d));
    ok (count (cfg) == 3, "with three instances");
    snprintf (want, sizeof (want), "%s/good.so", fixdir);
    is (rp_plugin_file (instance (cfg, 0)), want, "found in plugin-path");
    is (rp_plugin_instance (instance (cfg, 0)), "good", "first: good");
    is (rp_plugin_instance (instance (cfg, 1)), "strict-config",
        "second: strict-config");
    is (rp_plugin_version (instance (cfg, 1)), "2.1", "its version");
    is (rp_plugin_instance (instance (cfg, 2)), "good#2",
        "the same plugin again is instance good#2");
    is (rp_plugin_name (instance (cfg, 2)), "good", "of plugin good");
    rp_config_destroy (cfg);

    cfg = load ("plugin-path: [$FIX]\nvalidate:\n  - plugin: good\n"
                "  - plugin: strict-config\n    name: good\n"
                "    config: {limit: 1}\n",
                0, d);
    is (rp_plugin_instance (instance (cfg, 0)), "good#2",
        "an implicit name does not take a name given later");
    is (rp_plugin_instance (instance (cfg, 1)), "good",
        "the explicit name is kept");
    rp_config_destroy (cfg);
    rp_diags_destroy (d);
}

/* Declared keys: the block is checked against them and init sees it; a
 * descriptor that predates the field loads with any block. */
static void test_declared_keys (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;

    cfg = load ("validate:\n  - plugin: $FIX/declared-keys.so\n"
                "    config: {queue: batch, limit: 2}\n"
                "  - plugin: $FIX/declared-keys.so\n",
                0, d);
    if (!ok (cfg != NULL && rp_diags_count (d) == 0,
             "a block of declared keys, and no block, load"))
        diag ("%s", messages (d));
    rp_config_destroy (cfg);
    cfg = load ("validate:\n  - plugin: $FIX/old-descriptor.so\n"
                "    config: {other: 1}\n",
                0, d);
    if (!ok (cfg != NULL && rp_diags_count (d) == 0,
             "a descriptor without config_keys loads with any block"))
        diag ("%s", messages (d));
    rp_config_destroy (cfg);
    rp_diags_destroy (d);
}

static void test_search_path (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    char want[2 * PATH_MAX];
    char cwd[PATH_MAX];

    mkdir (tmp ("first"), 0755);
    mkdir (tmp ("empty"), 0755);
    run ("cp $RESPOL_FIXTURE_PLUGINDIR/good.so '%s'", tmp ("first"));

    setenv (RP_PLUGIN_PATH_ENV, fixdir, 1);
    cfg = load ("validate:\n  - plugin: good\n", 0, d);
    snprintf (want, sizeof (want), "%s/good.so", fixdir);
    is (cfg ? rp_plugin_file (instance (cfg, 0)) : messages (d), want,
        "a name is found in $RESPOL_PLUGIN_PATH");
    rp_config_destroy (cfg);

    cfg =
        load ("plugin-path: [$TMP/first]\nvalidate:\n  - plugin: good\n", 0, d);
    snprintf (want, sizeof (want), "%s/good.so", tmp ("first"));
    is (cfg ? rp_plugin_file (instance (cfg, 0)) : messages (d), want,
        "plugin-path comes before $RESPOL_PLUGIN_PATH");
    rp_config_destroy (cfg);

    snprintf (want, sizeof (want), ":rel:%s::", fixdir);
    setenv (RP_PLUGIN_PATH_ENV, want, 1);
    cfg = load ("validate:\n  - plugin: good\n", 0, d);
    ok (cfg != NULL, "empty and relative entries are ignored");
    is (messages (d),
        "W: RESPOL_PLUGIN_PATH: ignoring an empty entry\n"
        "W: RESPOL_PLUGIN_PATH: ignoring relative directory 'rel'\n"
        "W: RESPOL_PLUGIN_PATH: ignoring an empty entry\n"
        "W: RESPOL_PLUGIN_PATH: ignoring an empty entry",
        "each with a warning");
    rp_config_destroy (cfg);

    setenv (RP_PLUGIN_PATH_ENV, tmp ("empty"), 1);
    cfg = load ("plugin-path: [$TMP/empty, /nonexistent]\nvalidate:\n"
                "  - plugin: nothere\n",
                0, d);
    snprintf (want, sizeof (want),
              "%s:3:13: validate[0]: plugin 'nothere' not found in "
              "%s:/nonexistent:%s:%s",
              cfgpath, tmp ("empty"), tmp ("empty"), RP_PLUGINDIR);
    is (messages (d), want,
        "the search order: plugin-path, $RESPOL_PLUGIN_PATH, installed");
    rp_config_destroy (cfg);

    unsetenv (RP_PLUGIN_PATH_ENV);
    if (!getcwd (cwd, sizeof (cwd)) || chdir (fixdir) < 0)
        BAIL_OUT ("chdir");
    cfg = load ("validate:\n  - plugin: good\n", 0, d);
    snprintf (want, sizeof (want),
              "%s:2:13: validate[0]: plugin 'good' not found in %s", cfgpath,
              RP_PLUGINDIR);
    ok (cfg == NULL, "the current directory is never searched");
    is (messages (d), want, "not even as a last resort");
    if (chdir (cwd) < 0)
        BAIL_OUT ("chdir back");
    rp_diags_destroy (d);
}

/* --- match policies ---------------------------------------------------- */

static const struct rp_plugin *policy (const struct rp_config *cfg, size_t i)
{
    return rp_stack_plugin (rp_config_stack (cfg, RP_PLUGIN_MATCH), i);
}

static void test_match_stack (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    const struct rp_plugin *p;

    cfg = load ("plugin-path: [$FIX]\nvalidate:\n  - plugin: good\n"
                "match:\n  - plugin: bad-order\n  - plugin: score-fails\n"
                "    name: sf\n  - plugin: bad-order\n",
                0, d);
    if (!ok (cfg != NULL, "a match stack loads"))
        diag ("%s", messages (d));
    cmp_ok (rp_stack_count (rp_config_stack (cfg, RP_PLUGIN_MATCH)), ==, 3,
            "with three instances");
    ok (count (cfg) == 1, "beside one validator");
    is (rp_plugin_instance (policy (cfg, 0)), "bad-order", "first: bad-order");
    is (rp_plugin_instance (policy (cfg, 1)), "sf", "second: sf");
    is (rp_plugin_instance (policy (cfg, 2)), "bad-order#2",
        "third: bad-order#2");
    cmp_ok (rp_plugin_kind (policy (cfg, 0)), ==, RP_PLUGIN_MATCH,
            "of kind match");
    p = policy (cfg, 1);
    ok (p && p->match.score && p->match.prune && p->match.order_candidates,
        "the host sees every operation of a full ops table");
    ok (p && p->match.order == RP_MATCH_LOW && p->match.stop_after == 0,
        "and its settings");
    p = policy (cfg, 0);
    ok (p && !p->match.score && !p->match.prune && p->match.order_candidates,
        "operations a policy leaves out are NULL");
    ok (p && !p->validate, "a policy has no validate operation");
    rp_config_destroy (cfg);
    rp_diags_destroy (d);
}

struct ops_size_test {
    const char *size;
    bool score, prune, order_candidates;
};

#define OPS_END(field)                                                         \
    (offsetof (struct rp_match_ops, field)                                     \
     + sizeof (((struct rp_match_ops *)0)->field))

/* The fixture score-fails takes its ops size from the environment. */
static void test_match_ops_size (void)
{
    struct rp_diags *d = rp_diags_create ();
    char sizes[5][16];
    const size_t values[5] = { 12, OPS_END (score), OPS_END (prune),
                               OPS_END (order_candidates),
                               sizeof (struct rp_match_ops) + 64 };
    const bool want[5][3] = {
        { false, false, false }, { true, false, false }, { true, true, false },
        { true, true, true },    { true, true, true },
    };

    for (size_t i = 0; i < 5; i++) {
        struct rp_config *cfg;
        const struct rp_plugin *p;
        snprintf (sizes[i], sizeof (sizes[i]), "%zu", values[i]);
        setenv ("RESPOL_TEST_MATCH_OPS_SIZE", sizes[i], 1);
        cfg = load ("match:\n  - plugin: $FIX/score-fails.so\n", 0, d);
        p = policy (cfg, 0);
        if (!ok (p != NULL, "ops size %s: loads", sizes[i])) {
            diag ("%s", messages (d));
            continue;
        }
        ok (!p->match.score == !want[i][0] && !p->match.prune == !want[i][1]
                && !p->match.order_candidates == !want[i][2],
            "ops size %s: the host sees the operations it covers", sizes[i]);
        cmp_ok (p->match.size, ==, sizeof (struct rp_match_ops),
                "ops size %s: the host's copy is a full table", sizes[i]);
        rp_config_destroy (cfg);
    }
    setenv ("RESPOL_TEST_MATCH_OPS_SIZE", "8", 1);
    ok (load ("match:\n  - plugin: $FIX/score-fails.so\n", 0, d) == NULL,
        "ops size 8 (not covering stop_after): refused");
    is_messages (d,
                 "@:2:13: match[0]: $FIX/score-fails.so: plugin 'score-fails' "
                 "has a match ops table of 8 bytes, at least 12 expected",
                 "ops size 8: message");
    unsetenv ("RESPOL_TEST_MATCH_OPS_SIZE");
    rp_diags_destroy (d);
}

/* Copy the shipped policy "first" into $TMP/match; false when the build's
 * match plugins are not known. */
static bool copy_first (void)
{
    const char *dir = getenv ("RESPOL_BUILD_MATCHDIR");

    if (!dir)
        return false;
    mkdir (tmp ("match"), 0755);
    run ("cp $RESPOL_BUILD_MATCHDIR/first.so '%s'", tmp ("match"));
    return true;
}

struct policy_test {
    const char *name;
    int errnum;
    const char *error; /* "$FIX" and "$TMP" expanded */
};

static const struct policy_test policy_errors[] = {
    { "nope", ENOENT,
      "plugin 'nope' not found in $FIX:$TMP/empty:" RP_PLUGINDIR },
    { "good", EINVAL,
      "$FIX/good.so: plugin 'good' is a validate plugin, configured in the "
      "match stack" },
    { "wrong-abi", EINVAL,
      "$FIX/wrong-abi.so: plugin 'wrong-abi' was built for ABI version 7, "
      "this respol has ABI version 1" },
    { "a b", EINVAL,
      "invalid plugin name 'a b' (letters, digits, '-' and '_', 1-64 "
      "bytes; or an absolute path)" },
    { "", EINVAL,
      "invalid plugin name '' (letters, digits, '-' and '_', 1-64 bytes; or "
      "an absolute path)" },
    { "x/y.so", EINVAL,
      "plugin path 'x/y.so' is relative (use a name or an absolute path)" },
    { "$FIX/none.so", ENOENT, "$FIX/none.so: No such file or directory" },
};

static void test_policy_errors (struct rp_config *cfg)
{
    for (size_t i = 0; i < sizeof (policy_errors) / sizeof (policy_errors[0]);
         i++) {
        const struct policy_test *t = &policy_errors[i];
        char *name = expand (t->name, false);
        char *want = expand (t->error, false);
        rp_error_t error = { "" };
        errno = 0;
        ok (rp_config_policy (cfg, name, &error) == NULL && errno == t->errnum,
            "policy '%s': fails (errno)", t->name);
        is (error.text, want, "policy '%s': message", t->name);
        free (name);
        free (want);
    }
}

static void test_config_policy (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    const struct rp_plugin *p, *q;
    rp_error_t error;
    char want[PATH_MAX];

    mkdir (tmp ("empty"), 0755);
    setenv (RP_PLUGIN_PATH_ENV, tmp ("empty"), 1);
    cfg = load ("plugin-path: [$FIX]\nmatch:\n  - plugin: bad-order\n"
                "  - plugin: score-fails\n    name: sf\n",
                0, d);
    if (!ok (cfg != NULL, "a configuration with a match stack loads"))
        diag ("%s", messages (d));
    ok (rp_config_policy (cfg, NULL, &error) == policy (cfg, 0),
        "name NULL: the first entry of the match stack");
    ok (rp_config_policy (cfg, "sf", &error) == policy (cfg, 1),
        "an instance name of the match stack: that instance");
    ok (rp_config_policy (cfg, "bad-order", &error) == policy (cfg, 0),
        "bad-order: the instance of that name");
    p = rp_config_policy (cfg, "score-fails", &error);
    ok (p != NULL && p != policy (cfg, 1),
        "a plugin name that is no instance name: the plugin, loaded");
    is (rp_plugin_instance (p), "score-fails", "named as the plugin");
    snprintf (want, sizeof (want), "%s/score-fails.so", fixdir);
    is (rp_plugin_file (p), want, "found in the configuration's search path");
    ok (rp_config_policy (cfg, "score-fails", &error) == p,
        "loading the same name twice returns the same instance");
    cmp_ok (rp_stack_count (rp_config_stack (cfg, RP_PLUGIN_MATCH)), ==, 2,
            "the match stack is unchanged");
    snprintf (want, sizeof (want), "%s/bad-order.so", fixdir);
    q = rp_config_policy (cfg, want, &error);
    ok (q != NULL && q != policy (cfg, 0), "an absolute path loads the file");
    is (rp_plugin_instance (q), "bad-order#2",
        "as an implicit name: the first free 'name#N'");
    ok (rp_config_policy (cfg, want, &error) == q,
        "the same path twice: the same instance");
    test_policy_errors (cfg);
    errno = 0;
    ok (rp_config_policy (NULL, "first", &error) == NULL && errno == EINVAL,
        "cfg NULL: EINVAL");
    rp_config_destroy (cfg);

    cfg = load ("match:\n  - plugin: first\n", RP_CONFIG_NOLOAD, d);
    errno = 0;
    ok (rp_config_policy (cfg, "first", &error) == NULL && errno == EINVAL,
        "a configuration read with NOLOAD loads no policy");
    is (error.text,
        "policy 'first': the configuration was read without loading plugins",
        "NOLOAD: message");
    rp_config_destroy (cfg);

    cfg = load ("plugin-path: [$FIX]\n", 0, d);
    errno = 0;
    p = rp_config_policy (cfg, NULL, &error);
    snprintf (want, sizeof (want), "plugin 'first' not found in %s:%s:%s",
              fixdir, tmp ("empty"), RP_PLUGINDIR);
    ok (p == NULL && errno == ENOENT,
        "name NULL, empty match stack: the plugin 'first'");
    is (p ? "" : error.text, want, "which must be found");
    rp_config_destroy (cfg);

    if (!copy_first ()) {
        skip (5, "RESPOL_BUILD_MATCHDIR is not set");
    } else {
        setenv (RP_PLUGIN_PATH_ENV, tmp ("match"), 1);
        cfg = load ("validate:\n  - plugin: $FIX/good.so\n    name: first\n", 0,
                    d);
        p = rp_config_policy (cfg, NULL, &error);
        if (!ok (p != NULL, "name NULL, empty match stack: first.so loads"))
            diag ("%s", error.text);
        is (rp_plugin_name (p), "first", "plugin first");
        is (rp_plugin_instance (p), "first#2",
            "instance names stay unique across stacks");
        ok (p && p->match.order == RP_MATCH_LOW && p->match.stop_after == 1
                && !p->match.score,
            "first: order low, stop after 1, no score");
        ok (rp_config_policy (cfg, "first", &error) == p,
            "by name: the same instance");
        rp_config_destroy (cfg);
    }
    unsetenv (RP_PLUGIN_PATH_ENV);
    rp_diags_destroy (d);
}

static void test_insecure (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    char want[3 * PATH_MAX];

    mkdir (tmp ("ins"), 0755);
    run ("cp $RESPOL_FIXTURE_PLUGINDIR/good.so '%s'", tmp ("ins"));
    chmod (tmp ("ins/good.so"), 0666);
    cfg = load ("validate:\n  - plugin: $TMP/ins/good.so\n", 0, d);
    snprintf (want, sizeof (want),
              "%s:2:13: validate[0]: %s: refusing to load: the file is "
              "writable by group or others (mode 0666): chmod go-w",
              cfgpath, tmp ("ins/good.so"));
    ok (cfg == NULL, "a file writable by others is refused");
    is (messages (d), want, "with its message");
    cfg = load ("allow-insecure-path: true\nvalidate:\n"
                "  - plugin: $TMP/ins/good.so\n",
                0, d);
    ok (cfg != NULL && count (cfg) == 1, "allow-insecure-path: true loads it");
    rp_config_destroy (cfg);
    cfg = load ("validate:\n  - plugin: $TMP/ins/good.so\n"
                "allow-insecure-path: true\n",
                0, d);
    ok (cfg != NULL, "wherever the key is in the file");
    rp_config_destroy (cfg);
    rp_diags_destroy (d);
}

/* Load path (written with content, then given mode) and expect a refusal
 * with EPERM and the message "configuration PATH: refusing to read: why". */
static void expect_config_refused (const char *path, const char *content,
                                   mode_t mode, const char *why,
                                   const char *what)
{
    char text[2 * PATH_MAX];

    write_file (path, content);
    chmod (path, mode);
    snprintf (text, sizeof (text), "refusing to read: %s", why);
    expect_config_fails (path, EPERM, text, what);
}

/* The configuration decides what runs: it gets the plugins' checks, and
 * allow-insecure-path in it cannot lift them. */
static void test_insecure_config (void)
{
    const char *insecure = "allow-insecure-path: true\nvalidate: []\n";
    char why[2 * PATH_MAX];
    struct rp_config *cfg;

    if (mkdir (tmp ("cfg"), 0755) < 0 || mkdir (tmp ("cfg/sub"), 0755) < 0)
        BAIL_OUT ("mkdir");
    expect_config_refused (tmp ("cfg/sub/a.yaml"), insecure, 0666,
                           "the file is writable by group or others (mode "
                           "0666): chmod go-w",
                           "a configuration writable by others, even with "
                           "allow-insecure-path");
    expect_config_refused (tmp ("cfg/sub/a.yaml"), "", 0620,
                           "the file is writable by group or others (mode "
                           "0620): chmod go-w",
                           "a group-writable configuration");
    chmod (tmp ("cfg"), 0777);
    snprintf (why, sizeof (why),
              "directory cfg above it is writable by group or others (mode "
              "0777): chmod go-w, or chmod +t if shared");
    expect_config_refused (tmp ("cfg/sub/a.yaml"), "", 0644, why,
                           "a configuration below a directory writable by "
                           "others");
    chmod (tmp ("cfg"), 0755);
    cfg = rp_config_load (tmp ("cfg/sub/a.yaml"), 0, NULL);
    ok (cfg != NULL, "the same configuration, made safe, loads");
    rp_config_destroy (cfg);
    chmod (tmp ("cfg"), 01777);
    cfg = rp_config_load (tmp ("cfg/sub/a.yaml"), 0, NULL);
    ok (cfg != NULL, "below a sticky directory writable by others (an "
                     "installation under /tmp), it loads");
    rp_config_destroy (cfg);
    chmod (tmp ("cfg"), 0755);
    cfg = rp_config_load ("/dev/null", 0, NULL);
    ok (cfg != NULL && count (cfg) == 0,
        "/dev/null (writable by all) is the empty configuration");
    rp_config_destroy (cfg);
}

/* All-or-nothing: a stack whose third entry fails finalises the others,
 * in reverse order; the failed one is not finalised (its fini aborts). */
static void test_all_or_nothing (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;

    unlink (tmp ("log"));
    cfg = load ("plugin-path: [$FIX]\nvalidate:\n"
                "  - {plugin: good, name: a, config: {log: $TMP/log}}\n"
                "  - {plugin: good, config: {log: $TMP/log}}\n"
                "  - {plugin: init-fails}\n"
                "  - {plugin: good, config: {log: $TMP/log}}\n",
                0, d);
    ok (cfg == NULL, "a stack with a failing entry does not load");
    is (read_file (tmp ("log")),
        "init a\ninit good\ninit good#2\nfini good#2\nfini good\nfini a\n",
        "every entry was tried, then every initialised one finalised in "
        "reverse order");

    unlink (tmp ("log"));
    cfg = load ("plugin-path: [$FIX]\nvalidate:\n"
                "  - {plugin: good, name: a, config: {log: $TMP/log}}\n"
                "  - {plugin: good, name: b, config: {log: $TMP/log}}\n",
                0, d);
    is (read_file (tmp ("log")), "init a\ninit b\n", "a good stack inits");
    rp_config_destroy (cfg);
    is (read_file (tmp ("log")), "init a\ninit b\nfini b\nfini a\n",
        "rp_config_destroy finalises in reverse order");
    rp_diags_destroy (d);
}

static char logged[1024];

static void log_handler (const char *instance, int level, const char *msg,
                         void *arg)
{
    snprintf (logged, sizeof (logged), "%s %d %s %s", instance, level, msg,
              (const char *)arg);
}

static void test_log (void)
{
    struct rp_config *cfg;

    rp_plugin_set_log (log_handler, "arg");
    rp_plugin_set_log_level (RP_LOG_DEBUG);
    cfg = load ("validate:\n  - {plugin: $FIX/good.so, name: g, config: "
                "{x: 1}}\n",
                0, NULL);
    is (logged, "g 6 config {\"x\":1} arg",
        "svc->log reaches the handler with the instance name, level, "
        "message and argument");
    rp_config_destroy (cfg);
    rp_plugin_set_log (NULL, NULL);
    rp_plugin_set_log_level (0);
}

/* --- the validator stack ------------------------------------------------ */

static const char job1[] = "version: 1\n"
                           "resources:\n"
                           "  - type: slot\n"
                           "    count: 1\n"
                           "    label: task\n"
                           "    with:\n"
                           "      - type: core\n"
                           "        count: 1\n"
                           "tasks:\n"
                           "  - command: [hostname]\n"
                           "    slot: task\n"
                           "    count:\n"
                           "      per_slot: 1\n"
                           "attributes:\n"
                           "  system:\n"
                           "    duration: 60\n";

static const char job2[] = "version: 1\n"
                           "resources:\n"
                           "  - type: slot\n"
                           "    count: 2\n"
                           "    label: task\n"
                           "    with:\n"
                           "      - type: core\n"
                           "        count: 1\n"
                           "tasks:\n"
                           "  - command: [hostname]\n"
                           "    slot: task\n"
                           "    count:\n"
                           "      per_slot: 1\n"
                           "attributes:\n"
                           "  system:\n"
                           "    duration: 60\n";

static struct rp_jobspec *job (const char *yaml, enum rp_jobspec_profile pr)
{
    struct rp_jobspec *js =
        rp_jobspec_load (yaml, strlen (yaml), "job.yaml", pr, NULL);
    if (!js)
        BAIL_OUT ("the test jobspec does not load");
    return js;
}

struct stack_test {
    const char *what;
    const char *stack; /* the validate list, in flow style */
    int verdict;
    const char *messages;
    const char *log;   /* $TMP/log afterwards */
    const char *queue; /* of the amended jobspec, or NULL for none */
};

#define G(opts) "{plugin: good, config: {log: $TMP/log" opts "}}"

static const struct stack_test stack_tests[] = {
    { "an empty stack accepts", "[]", RP_ACCEPT, "", "", NULL },
    { "validators run in order", "[" G ("") ", " G ("") "]", RP_ACCEPT, "",
      "init good\ninit good#2\nvalidate good queue=-\n"
      "validate good#2 queue=-\n",
      NULL },
    { "the first reject stops the stack",
      "[" G ("") ", {plugin: reject-all}, " G ("") "]", RP_REJECT,
      "reject-all: rejected on purpose",
      "init good\ninit good#2\nvalidate good queue=-\n", NULL },
    { "every warning is collected, the amendment applied",
      "[{plugin: warn-all}]", RP_WARN,
      "W: warn-all: first warning\nW: warn-all: second warning (queue -)", "",
      "amended" },
    { "an amendment is visible to the next validator",
      "[{plugin: warn-all}, " G ("") ", {plugin: warn-all}]", RP_WARN,
      "W: warn-all: first warning\nW: warn-all: second warning (queue -)\n"
      "W: warn-all#2: first warning\n"
      "W: warn-all#2: second warning (queue amended)",
      "init good\nvalidate good queue=amended\n", "amended" },
    { "warnings before a reject are kept",
      "[{plugin: warn-all}, {plugin: reject-all}]", RP_REJECT,
      "W: warn-all: first warning\nW: warn-all: second warning (queue -)\n"
      "reject-all: rejected on purpose",
      "", NULL },
    { "an amendment that makes the jobspec invalid rejects",
      "[" G (", amend: {system.duration: forever}") ", " G ("") "]", RP_REJECT,
      "good: amended jobspec is invalid: job.yaml: attributes.system."
      "duration: must be a number",
      "init good\ninit good#2\nvalidate good queue=-\n", NULL },
    { "an amendment through a value that is not a mapping rejects",
      "[{plugin: warn-all}, " G (", amend: {system.queue.x: 1}") "]", RP_REJECT,
      "W: warn-all: first warning\nW: warn-all: second warning (queue -)\n"
      "good: cannot amend 'system.queue.x': 'system.queue' is not a "
      "mapping",
      "init good\nvalidate good queue=amended\n", NULL },
    { "amendments make the mappings on their path",
      "[" G (", amend: {system.queue: q, user.a.b: 1}") "]", RP_ACCEPT, "",
      "init good\nvalidate good queue=-\n", "q" },
    { "a failing validator fails the stack with its error",
      "[" G (", fail: true") ", " G ("") "]", -1,
      "good: plugin failed: failing on purpose",
      "init good\ninit good#2\nvalidate good queue=-\n", NULL },
    { "an empty amendment path is refused", "[" G (", amend: {'': 1}") "]",
      -1, "good: plugin failed: cannot amend ",
      "init good\nvalidate good queue=-\n", NULL },
    { "an amendment path with an empty segment is refused",
      "[" G (", amend: {system..queue: 1}") "]", -1,
      "good: plugin failed: cannot amend system..queue",
      "init good\nvalidate good queue=-\n", NULL },
    { "an amendment path ending in a dot is refused",
      "[" G (", amend: {system.: 1}") "]", -1,
      "good: plugin failed: cannot amend system.",
      "init good\nvalidate good queue=-\n", NULL },
    { "an amendment path 17 deep is refused",
      "[" G (", amend: {a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q: 1}") "]", -1,
      "good: plugin failed: cannot amend a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q",
      "init good\nvalidate good queue=-\n", NULL },
    { "an amendment path 16 deep is accepted",
      "[" G (", amend: {user.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p: 1}") "]", RP_ACCEPT,
      "", "init good\nvalidate good queue=-\n", "" },
    { "a validator that accepts within its limit",
      "[{plugin: strict-config, config: {limit: 1}}]", RP_ACCEPT, "", "",
      NULL },
};

static void check_stack (const struct stack_test *t, const char *jobyaml)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js = job (jobyaml, RP_JOBSPEC_V1);
    struct rp_jobspec *amended = (struct rp_jobspec *)&amended;
    char content[1024];
    struct rp_config *cfg;
    int verdict;

    unlink (tmp ("log"));
    snprintf (content, sizeof (content), "plugin-path: [$FIX]\nvalidate: %s\n",
              t->stack);
    if (!(cfg = load (content, 0, d)))
        BAIL_OUT ("%s: %s", t->what, messages (d));
    errno = 0;
    verdict = rp_config_validate (cfg, js, &amended, d);
    cmp_ok (verdict, ==, t->verdict, "%s: verdict", t->what);
    if (t->verdict < 0)
        ok (errno == EPROTO, "%s: EPROTO, a plugin failed", t->what);
    is_messages (d, t->messages, t->what);
    char *log = expand (t->log, false);
    is (read_file (tmp ("log")), log, "%s: what the validators saw", t->what);
    free (log);
    if (t->verdict < 0)
        ok (amended == (struct rp_jobspec *)&amended,
            "%s: *amended untouched", t->what);
    else if (!t->queue)
        ok (amended == NULL, "%s: no amended jobspec", t->what);
    else if (*t->queue)
        is (amended ? rp_jobspec_queue (amended) : "(none)", t->queue,
            "%s: the amended jobspec", t->what);
    else
        ok (amended != NULL, "%s: an amended jobspec", t->what);
    ok (rp_jobspec_queue (js) == NULL, "%s: the input is unchanged", t->what);
    if (amended != (struct rp_jobspec *)&amended)
        rp_jobspec_destroy (amended);
    rp_config_destroy (cfg);
    rp_jobspec_destroy (js);
    rp_diags_destroy (d);
}

static void test_stack_run (void)
{
    for (size_t i = 0; i < sizeof (stack_tests) / sizeof (stack_tests[0]); i++)
        check_stack (&stack_tests[i], job1);

    const struct stack_test over = {
        "a validator that rejects with its reason",
        "[{plugin: strict-config, config: {limit: 1}}]",
        RP_REJECT,
        "strict-config: 2 tasks, more than the limit of 1",
        "",
        NULL,
    };
    check_stack (&over, job2);
}

static void test_stack_edges (void)
{
    struct rp_jobspec *js = job (job1, RP_JOBSPEC_CANONICAL);
    struct rp_jobspec *amended = NULL;
    struct rp_config *cfg;

    cfg = load ("validate: [{plugin: $FIX/warn-all.so}]\n", 0, NULL);
    ok (rp_config_validate (cfg, js, &amended, NULL) == RP_WARN,
        "diags may be NULL: warnings still make the verdict");
    ok (amended && rp_jobspec_profile (amended) == RP_JOBSPEC_CANONICAL,
        "the amended jobspec keeps the profile");
    rp_jobspec_destroy (amended);
    ok (rp_config_validate (cfg, js, NULL, NULL) == RP_WARN,
        "amended may be NULL");
    amended = (struct rp_jobspec *)&amended;
    errno = 0;
    ok (rp_config_validate (NULL, js, &amended, NULL) == -1 && errno == EINVAL
            && amended == (struct rp_jobspec *)&amended,
        "cfg NULL: EINVAL, amended untouched");
    errno = 0;
    ok (rp_config_validate (cfg, NULL, NULL, NULL) == -1 && errno == EINVAL,
        "js NULL: EINVAL");
    errno = 0;
    ok (rp_validation_amend (NULL, "system.queue", json_string ("x")) == -1
            && errno == EINVAL,
        "rp_validation_amend (NULL): EINVAL (and the value is released)");
    rp_config_destroy (cfg);
    rp_jobspec_destroy (js);
}

/* rp_config_set_defaults replaces the installed default configuration and
 * plugin directory for the process (the build tree's command uses it);
 * bad arguments change nothing.  Runs last: it changes process state. */
static void test_set_defaults (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg;
    char dirs[2 * PATH_MAX + 2];
    char want[4 * PATH_MAX];

    errno = 0;
    ok (rp_config_set_defaults ("relative.yaml", NULL) < 0 && errno == EINVAL,
        "set_defaults: a relative configuration path: EINVAL");
    errno = 0;
    ok (rp_config_set_defaults (NULL, "") < 0 && errno == EINVAL,
        "set_defaults: empty plugin directories: EINVAL");
    errno = 0;
    ok (rp_config_set_defaults (tmp ("x.yaml"), "/a:b") < 0 && errno == EINVAL,
        "set_defaults: a relative plugin directory: EINVAL");
    is (rp_config_plugin_dir (), RP_PLUGINDIR, "which changed nothing");
    ok (strcmp (rp_config_default_path (), tmp ("x.yaml")) != 0,
        "not even the configuration given with them");

    snprintf (dirs, sizeof (dirs), "%s:%s", tmp ("empty"), fixdir);
    ok (rp_config_set_defaults (tmp ("default.yaml"), dirs) == 0,
        "set_defaults: both");
    is (rp_config_default_path (), tmp ("default.yaml"),
        "the default configuration is the one set");
    is (rp_config_plugin_dir (), dirs, "the plugin directories are those set");

    write_file (tmp ("default.yaml"), "validate:\n  - plugin: good\n");
    cfg = rp_config_load (NULL, 0, d);
    ok (cfg && rp_config_path (cfg) && !strcmp (rp_config_path (cfg),
                                                 tmp ("default.yaml")),
        "path NULL reads the default set");
    ok (cfg && count (cfg) == 1, "whose plugin is found in the directories set");
    rp_config_destroy (cfg);

    rp_diags_clear (d);
    cfg = load ("validate:\n  - plugin: nothere\n", 0, d);
    snprintf (want, sizeof (want),
              "%s:2:13: validate[0]: plugin 'nothere' not found in %s",
              cfgpath, dirs);
    is (messages (d), want, "they are searched last, in order");
    rp_config_destroy (cfg);

    unlink (tmp ("default.yaml"));
    cfg = rp_config_load (NULL, 0, d);
    ok (cfg && rp_config_path (cfg) == NULL && count (cfg) == 0,
        "a missing default set is the empty configuration");
    rp_config_destroy (cfg);

    ok (rp_config_set_defaults (NULL, RP_PLUGINDIR) == 0
            && !strcmp (rp_config_plugin_dir (), RP_PLUGINDIR)
            && !strcmp (rp_config_default_path (), tmp ("default.yaml")),
        "NULL keeps the configuration as it is");
    rp_diags_destroy (d);
}

int main (void)
{
    plan (NO_PLAN);
    unsetenv (RP_CONFIG_ENV);
    unsetenv (RP_PLUGIN_PATH_ENV);
    fixtures_setup ("respol-test-config");
    snprintf (cfgpath, sizeof (cfgpath), "%s/respol.yaml", tmpdir);
    test_syntax ();
    test_files ();
    test_special_files ();
    test_stacks_api ();
    test_load_errors ();
    test_load_good ();
    test_declared_keys ();
    test_search_path ();
    test_match_stack ();
    test_match_ops_size ();
    test_config_policy ();
    test_insecure ();
    test_insecure_config ();
    test_all_or_nothing ();
    test_log ();
    test_stack_run ();
    test_stack_edges ();
    test_set_defaults ();
    fixtures_cleanup ();
    return done_testing ();
}
