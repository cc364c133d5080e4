/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for the plugin loader (core/plugin.c): the descriptor checks
 * on in-memory descriptors (every message), rp_plugin_inspect on every
 * fixture plugin of t/plugins (one per failure mode, found through
 * $RESPOL_FIXTURE_PLUGINDIR), file checks (not a shared object, not a
 * regular file, writable by others, owned by another user, sticky
 * directories and the swap attack through them, symlinks,
 * relative paths), and the log service.
 *
 * Files are made in a private temporary directory, removed at the end.
 */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "respol/config.h"
#include "respol/property.h"
#include "respol/queue.h"
#include "t/tap/tap.h"

#include "core/test/fixtures.h"

/* Rotating static buffers so a test can use several paths at once. */
static char *buf (void)
{
    static char bufs[8][PATH_MAX];
    static int next;
    return bufs[next++ % 8];
}

static const char *fixture (const char *name)
{
    char *b = buf ();
    snprintf (b, PATH_MAX, "%s/%s.so", fixdir, name);
    return b;
}

static const char *tmp (const char *name)
{
    char *b = buf ();
    snprintf (b, PATH_MAX, "%s/%s", tmpdir, name);
    return b;
}

static void write_file (const char *path, const char *content)
{
    FILE *f = fopen (path, "w");
    if (!f || fputs (content, f) < 0 || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", path);
}

static void copy_file (const char *from, const char *to)
{
    char cmd[3 * PATH_MAX];
    snprintf (cmd, sizeof (cmd), "cp '%s' '%s'", from, to);
    if (system (cmd) != 0)
        BAIL_OUT ("%s failed", cmd);
}

/* --- descriptor checks -------------------------------------------------- */

static int validate_ok (struct rp_plugin *p, const struct rp_jobspec *js,
                        struct rp_validation *v)
{
    return RP_ACCEPT;
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate_ok,
};
static const struct rp_validate_ops ops_small = {
    .size = 2,
    .validate = validate_ok,
};
static const struct rp_validate_ops ops_null = {
    .size = sizeof (struct rp_validate_ops),
    .validate = NULL,
};

static const struct rp_match_ops match_ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_HIGH,
    .stop_after = 1,
};
/* A policy built with only the settings: every operation is optional. */
static const struct rp_match_ops match_ops_v1 = {
    .size = 12,
    .order = RP_MATCH_LOW,
};
static const struct rp_match_ops match_ops_small = {
    .size = 8,
    .order = RP_MATCH_LOW,
};
static const struct rp_match_ops match_ops_order2 = {
    .size = sizeof (struct rp_match_ops),
    .order = 2,
};
static const struct rp_match_ops match_ops_order_big = {
    .size = sizeof (struct rp_match_ops),
    .order = 0xffffffff,
};

/* A property plugin's ops: annotate is optional (an operator plugin). */
static const struct rp_property_ops property_ops = {
    .size = sizeof (struct rp_property_ops),
};
static const struct rp_property_ops property_ops_small = {
    .size = 8,
};
static int queue_pass (struct rp_plugin *p, struct rp_queue *q)
{
    (void)p;
    (void)q;
    return 0;
}
static const struct rp_queue_ops queue_ops = {
    .size = sizeof (struct rp_queue_ops),
    .pass = queue_pass,
};
static const struct rp_queue_ops queue_ops_none = {
    .size = sizeof (struct rp_queue_ops),
};
static const struct rp_queue_ops queue_ops_small = {
    .size = 16,
    .pass = queue_pass,
};
static const struct rp_queue_ops queue_ops_flags = {
    .size = sizeof (struct rp_queue_ops),
    .flags = 6,
    .pass = queue_pass,
};

static const char name64[] =
    "a123456789012345678901234567890123456789012345678901234567890123";
static const char name65[] =
    "a1234567890123456789012345678901234567890123456789012345678901234";

#define LONG_KEY64                                                             \
    "a123456789012345678901234567890123456789012345678901234567890123"

#define ABI RP_PLUGIN_ABI_VERSION
#define SIZE sizeof (struct rp_plugin_desc)
#define VAL RP_PLUGIN_VALIDATE
#define MATCH RP_PLUGIN_MATCH

struct desc_test {
    const char *what;
    uint32_t abi, size, kind;
    const char *name;
    const void *ops;
    uint32_t stack;
    const char *error; /* NULL: valid */
};

static const struct desc_test desc_tests[] = {
    { "a valid validator (no init, fini, version, description)", ABI, SIZE, VAL,
      "x", &ops, VAL, NULL },
    { "ABI 7", 7, SIZE, VAL, "x", &ops, VAL,
      "plugin 'x' was built for ABI version 7, this respol has ABI version "
      "1" },
    { "ABI 0", 0, SIZE, VAL, "x", &ops, VAL,
      "plugin 'x' was built for ABI version 0, this respol has ABI version "
      "1" },
    { "ABI 7, size not covering the name", 7, 12, VAL, "x", &ops, VAL,
      "plugin was built for ABI version 7, this respol has ABI version 1" },
    { "ABI 7, bad name", 7, SIZE, VAL, "a b", &ops, VAL,
      "plugin was built for ABI version 7, this respol has ABI version 1" },
    { "ABI 7, NULL name", 7, SIZE, VAL, NULL, &ops, VAL,
      "plugin was built for ABI version 7, this respol has ABI version 1" },
    { "descriptor too small", ABI, 16, VAL, "x", &ops, VAL,
      "plugin descriptor is 16 bytes, at least 64 expected" },
    { "size 0", ABI, 0, VAL, "x", &ops, VAL,
      "plugin descriptor is 0 bytes, at least 64 expected" },
    { "NULL name", ABI, SIZE, VAL, NULL, &ops, VAL,
      "plugin descriptor has no name" },
    { "empty name", ABI, SIZE, VAL, "", &ops, VAL,
      "invalid plugin name '' (letters, digits, '-' and '_', 1-64 bytes)" },
    { "name with a space", ABI, SIZE, VAL, "a b", &ops, VAL,
      "invalid plugin name 'a b' (letters, digits, '-' and '_', 1-64 "
      "bytes)" },
    { "name with a dot", ABI, SIZE, VAL, "a.so", &ops, VAL,
      "invalid plugin name 'a.so' (letters, digits, '-' and '_', 1-64 "
      "bytes)" },
    { "name of 64 bytes", ABI, SIZE, VAL, name64, &ops, VAL, NULL },
    { "name of 65 bytes (shown cut at 64)", ABI, SIZE, VAL, name65, &ops, VAL,
      "invalid plugin name "
      "'a123456789012345678901234567890123456789012345678901234567890123' "
      "(letters, digits, '-' and '_', 1-64 bytes)" },
    { "name with every allowed kind of character", ABI, SIZE, VAL, "Az09-_",
      &ops, VAL, NULL },
    { "kind 0", ABI, SIZE, 0, "x", &ops, VAL, "plugin 'x' has unknown kind 0" },
    { "kind 99", ABI, SIZE, 99, "x", &ops, VAL,
      "plugin 'x' has unknown kind 99" },
    { "a match policy in the validate stack", ABI, SIZE, MATCH, "x", &match_ops,
      VAL, "plugin 'x' is a match plugin, configured in the validate stack" },
    { "a property plugin in the validate stack", ABI, SIZE, RP_PLUGIN_PROPERTY,
      "x", &property_ops, VAL,
      "plugin 'x' is a property plugin, configured in the validate stack" },
    { "a shell plugin in the validate stack", ABI, SIZE, RP_PLUGIN_SHELL, "x",
      &ops, VAL,
      "plugin 'x' is a shell plugin, configured in the validate stack" },
    { "a property plugin without annotate (it may only add operators)", ABI,
      SIZE, RP_PLUGIN_PROPERTY, "x", &property_ops, RP_PLUGIN_PROPERTY, NULL },
    { "property ops not covering annotate", ABI, SIZE, RP_PLUGIN_PROPERTY, "x",
      &property_ops_small, RP_PLUGIN_PROPERTY,
      "plugin 'x' has a property ops table of 8 bytes, at least 16 "
      "expected" },
    { "a queue policy", ABI, SIZE, RP_PLUGIN_QUEUE, "x", &queue_ops,
      RP_PLUGIN_QUEUE, NULL },
    { "a queue policy in the match stack", ABI, SIZE, RP_PLUGIN_QUEUE, "x",
      &queue_ops, MATCH,
      "plugin 'x' is a queue plugin, configured in the match stack" },
    { "a match policy in the queue stack", ABI, SIZE, MATCH, "x", &match_ops,
      RP_PLUGIN_QUEUE,
      "plugin 'x' is a match plugin, configured in the queue stack" },
    { "a queue policy with neither priority nor pass", ABI, SIZE,
      RP_PLUGIN_QUEUE, "x", &queue_ops_none, RP_PLUGIN_QUEUE,
      "plugin 'x' has neither a priority nor a pass operation" },
    { "queue ops not covering pass", ABI, SIZE, RP_PLUGIN_QUEUE, "x",
      &queue_ops_small, RP_PLUGIN_QUEUE,
      "plugin 'x' has a queue ops table of 16 bytes, at least 24 expected" },
    { "queue flags unknown", ABI, SIZE, RP_PLUGIN_QUEUE, "x", &queue_ops_flags,
      RP_PLUGIN_QUEUE, "plugin 'x' has unknown queue flags 0x6" },
    { "a validator in the property stack", ABI, SIZE, VAL, "x", &ops,
      RP_PLUGIN_PROPERTY,
      "plugin 'x' is a validate plugin, configured in the property stack" },
    { "a validator in the match stack", ABI, SIZE, VAL, "x", &ops,
      RP_PLUGIN_MATCH,
      "plugin 'x' is a validate plugin, configured in the match stack" },
    { "a validator in the shell stack", ABI, SIZE, VAL, "x", &ops,
      RP_PLUGIN_SHELL,
      "plugin 'x' is a validate plugin, configured in the shell stack" },
    { "stack of unknown kind", ABI, SIZE, VAL, "x", &ops, 99,
      "invalid argument" },
    { "stack kind 0", ABI, SIZE, VAL, "x", &ops, 0, "invalid argument" },
    { "ops NULL", ABI, SIZE, VAL, "x", NULL, VAL,
      "plugin 'x' has no operations" },
    { "ops too small", ABI, SIZE, VAL, "x", &ops_small, VAL,
      "plugin 'x' has a validate ops table of 2 bytes, at least 16 "
      "expected" },
    { "no validate operation", ABI, SIZE, VAL, "x", &ops_null, VAL,
      "plugin 'x' has no validate operation" },
    { "a match policy", ABI, SIZE, MATCH, "x", &match_ops, MATCH, NULL },
    { "a match policy with settings only (every operation is optional)", ABI,
      SIZE, MATCH, "x", &match_ops_v1, MATCH, NULL },
    { "match ops not covering stop_after", ABI, SIZE, MATCH, "x",
      &match_ops_small, MATCH,
      "plugin 'x' has a match ops table of 8 bytes, at least 12 expected" },
    { "match order 2", ABI, SIZE, MATCH, "x", &match_ops_order2, MATCH,
      "plugin 'x' has match order 2 (expected 0, low, or 1, high)" },
    { "match order 2^32-1", ABI, SIZE, MATCH, "x", &match_ops_order_big, MATCH,
      "plugin 'x' has match order 4294967295 (expected 0, low, or 1, "
      "high)" },
    { "match ops NULL", ABI, SIZE, MATCH, "x", NULL, MATCH,
      "plugin 'x' has no operations" },
    { "a validator with a match ops table (size too small to be validate "
      "ops)",
      ABI, SIZE, VAL, "x", &match_ops_small, VAL,
      "plugin 'x' has a validate ops table of 8 bytes, at least 16 "
      "expected" },
    { "a match policy in the shell stack", ABI, SIZE, MATCH, "x", &match_ops,
      RP_PLUGIN_SHELL,
      "plugin 'x' is a match plugin, configured in the shell stack" },
};

static struct rp_plugin_desc make_desc (const struct desc_test *t)
{
    struct rp_plugin_desc d = {
        .abi_version = t->abi,
        .size = t->size,
        .kind = t->kind,
        .name = t->name,
        .ops = t->ops,
    };
    return d;
}

static void test_desc_check (void)
{
    for (size_t i = 0; i < sizeof (desc_tests) / sizeof (desc_tests[0]); i++) {
        const struct desc_test *t = &desc_tests[i];
        rp_error_t error = { "untouched" };
        errno = 0;
        struct rp_plugin_desc d = make_desc (t);
        int rc = rp_plugin_desc_check (&d, t->stack, &error);
        if (!t->error) {
            ok (rc == 0 && !strcmp (error.text, "untouched"),
                "desc check: %s: valid", t->what);
            continue;
        }
        ok (rc == -1 && errno == EINVAL, "desc check: %s: EINVAL", t->what);
        is (error.text, t->error, "desc check: %s: message", t->what);
    }
}

/* A descriptor and ops table built by a later release (larger) load. */
static void test_desc_grows (void)
{
    struct {
        struct rp_validate_ops ops;
        void *later[2];
    } big_ops = { { .size = sizeof (big_ops), .validate = validate_ok } };
    struct {
        struct rp_plugin_desc desc;
        void *later[4];
    } big = {
        { .abi_version = ABI, .kind = VAL, .name = "x", .ops = &big_ops }
    };
    rp_error_t error;

    big.desc.size = sizeof (big);
    ok (rp_plugin_desc_check (&big.desc, RP_PLUGIN_VALIDATE, &error) == 0,
        "a larger descriptor and ops table (a later release) are accepted");
    errno = 0;
    ok (rp_plugin_desc_check (NULL, RP_PLUGIN_VALIDATE, &error) < 0
            && errno == EINVAL,
        "desc check of NULL fails with EINVAL");
    ok (rp_plugin_desc_check (NULL, RP_PLUGIN_VALIDATE, NULL) < 0,
        "desc check accepts a NULL error");
}

/* Declared configuration keys: the list is checked with the descriptor,
 * and a descriptor that predates the field is not read beyond its size. */
static int init_ok (struct rp_plugin *p, const struct rp_host_services *svc)
{
    return 0;
}

static const char *const keys_ok[] = { "max-nodes", "queue_1", "R", NULL };
static const char *const keys_none[] = { NULL };
static const char *const keys_space[] = { "max nodes", NULL };
static const char *const keys_empty[] = { "a", "", NULL };
static const char *const keys_twice[] = { "a", "b", "a", NULL };
static const char *const keys_long[] = { name65, NULL };
static const char *const keys_64[] = { name64, NULL };

struct keys_test {
    const char *what;
    const char *const *keys;
    bool init;
    const char *error; /* NULL: valid */
};

static const struct keys_test keys_tests[] = {
    { "declared keys", keys_ok, true, NULL },
    { "no key at all (an empty block only)", keys_none, true, NULL },
    { "not declared (NULL)", NULL, false, NULL },
    { "a key of 64 bytes", keys_64, true, NULL },
    { "keys without init", keys_ok, false,
      "plugin 'x' declares configuration keys but has no init" },
    { "a key with a space", keys_space, true,
      "plugin 'x' declares an invalid configuration key 'max nodes' "
      "(letters, digits, '-' and '_', 1-64 bytes)" },
    { "an empty key", keys_empty, true,
      "plugin 'x' declares an invalid configuration key '' (letters, "
      "digits, '-' and '_', 1-64 bytes)" },
    { "a key of 65 bytes (shown cut at 64)", keys_long, true,
      "plugin 'x' declares an invalid configuration key '" LONG_KEY64
      "' (letters, digits, '-' and '_', 1-64 bytes)" },
    { "a key twice", keys_twice, true,
      "plugin 'x' declares configuration key 'a' twice" },
};

static void test_config_keys (void)
{
    for (size_t i = 0; i < sizeof (keys_tests) / sizeof (keys_tests[0]); i++) {
        const struct keys_test *t = &keys_tests[i];
        struct rp_plugin_desc d = {
            .abi_version = ABI,
            .size = SIZE,
            .kind = VAL,
            .name = "x",
            .init = t->init ? init_ok : NULL,
            .ops = &ops,
            .config_keys = t->keys,
        };
        rp_error_t error = { "untouched" };
        int rc;

        errno = 0;
        rc = rp_plugin_desc_check (&d, VAL, &error);
        if (!t->error)
            ok (rc == 0 && !strcmp (error.text, "untouched"),
                "config keys: %s: valid", t->what);
        else
            ok (rc == -1 && errno == EINVAL && !strcmp (error.text, t->error),
                "config keys: %s: %s", t->what, error.text);
    }
}

/* 64 keys are accepted, 65 are too many, and a list without its NULL is
 * read no further than that (the array ends there: a sanitizer build
 * catches a read past it). */
static void test_config_keys_max (void)
{
    static char names[RP_PLUGIN_CONFIG_KEYS_MAX + 1][8];
    const char *keys[RP_PLUGIN_CONFIG_KEYS_MAX + 1];
    struct rp_plugin_desc d = {
        .abi_version = ABI,
        .size = SIZE,
        .kind = VAL,
        .name = "x",
        .init = init_ok,
        .ops = &ops,
        .config_keys = keys,
    };
    rp_error_t error;

    for (int i = 0; i < RP_PLUGIN_CONFIG_KEYS_MAX + 1; i++) {
        snprintf (names[i], sizeof (names[i]), "k%d", i);
        keys[i] = names[i];
    }
    keys[RP_PLUGIN_CONFIG_KEYS_MAX] = NULL;
    ok (rp_plugin_desc_check (&d, VAL, &error) == 0,
        "config keys: %d keys are accepted", RP_PLUGIN_CONFIG_KEYS_MAX);
    keys[RP_PLUGIN_CONFIG_KEYS_MAX] = names[RP_PLUGIN_CONFIG_KEYS_MAX];
    ok (rp_plugin_desc_check (&d, VAL, &error) < 0
            && !strcmp (error.text,
                        "plugin 'x' declares more than 64 configuration keys"),
        "config keys: %d keys are too many: %s", RP_PLUGIN_CONFIG_KEYS_MAX + 1,
        error.text);
}

/* A descriptor built before config_keys existed is not read past its
 * size: whatever lies there is not taken for a list. */
static void test_config_keys_old_size (void)
{
    struct rp_plugin_desc d = {
        .abi_version = ABI,
        .size = offsetof (struct rp_plugin_desc, config_keys),
        .kind = VAL,
        .name = "x",
        .ops = &ops,
        .config_keys = keys_space,
    };
    rp_error_t error;

    ok (rp_plugin_desc_check (&d, VAL, &error) == 0,
        "config keys: a descriptor not covering the field is not read "
        "there");
}

/* --- inspect ------------------------------------------------------------ */

static void test_inspect_good (void)
{
    rp_error_t error;
    struct rp_plugin *p = rp_plugin_inspect (fixture ("good"), &error);

    if (!ok (p != NULL, "inspect good.so")) {
        diag ("%s", error.text);
        return;
    }
    is (rp_plugin_name (p), "good", "name");
    is (rp_plugin_instance (p), "good", "instance name is the plugin name");
    cmp_ok (rp_plugin_kind (p), ==, RP_PLUGIN_VALIDATE, "kind");
    cmp_ok (rp_plugin_abi_version (p), ==, RP_PLUGIN_ABI_VERSION, "abi");
    is (rp_plugin_version (p), "1.0", "version");
    is (rp_plugin_description (p), "accepts every jobspec (test fixture)",
        "description");
    is (rp_plugin_file (p), fixture ("good"), "file");
    errno = 42;
    rp_plugin_destroy (p);
    ok (errno == 42, "rp_plugin_destroy keeps errno");
    rp_plugin_destroy (NULL);
    pass ("rp_plugin_destroy (NULL) is a no-op");
}

struct inspect_test {
    const char *fixture;
    int errnum;
    const char *error; /* after "<file>: " */
};

static const struct inspect_test inspect_tests[] = {
    { "wrong-abi", EINVAL,
      "plugin 'wrong-abi' was built for ABI version 7, this respol has ABI "
      "version 1" },
    { "wrong-kind", EINVAL, "plugin 'wrong-kind' has unknown kind 99" },
    { "no-ops", EINVAL, "plugin 'no-ops' has no operations" },
    { "no-descriptor", EINVAL, "no descriptor symbol 'respol_plugin'" },
    { "undefined-symbol", EINVAL, "undefined symbol: rp_no_such_function" },
    /* Without the child process, the lazy open's constructor kills us. */
    { "ctor-undefined", EINVAL, "undefined symbol: rp_ctor_no_such_function" },
    { "no-such-plugin", ENOENT, "No such file or directory" },
};

static void test_inspect_failures (void)
{
    for (size_t i = 0; i < sizeof (inspect_tests) / sizeof (inspect_tests[0]);
         i++) {
        const struct inspect_test *t = &inspect_tests[i];
        char want[2 * PATH_MAX];
        rp_error_t error;
        struct rp_plugin *p;

        snprintf (want, sizeof (want), "%s: %s", fixture (t->fixture),
                  t->error);
        errno = 0;
        p = rp_plugin_inspect (fixture (t->fixture), &error);
        ok (p == NULL && errno == t->errnum, "inspect %s.so fails (errno)",
            t->fixture);
        is (p ? "" : error.text, want, "inspect %s.so: message", t->fixture);
        rp_plugin_destroy (p);
    }
}

static void test_inspect_files (void)
{
    char want[2 * PATH_MAX];
    rp_error_t error;
    struct rp_plugin *p;

    write_file (tmp ("text.so"),
                "This is not a shared object but a text file, long enough "
                "to hold an ELF header: 64 bytes or more.\n");
    p = rp_plugin_inspect (tmp ("text.so"), &error);
    snprintf (want, sizeof (want),
              "%s: not a shared object (invalid ELF header)", tmp ("text.so"));
    ok (p == NULL && errno == EINVAL, "a text file is refused");
    is (error.text, want, "a text file: message");

    write_file (tmp ("short.so"), "\177EL");
    p = rp_plugin_inspect (tmp ("short.so"), &error);
    snprintf (want, sizeof (want), "%s: not a shared object (file too short)",
              tmp ("short.so"));
    is (p ? "" : error.text, want, "a 3-byte file: message");

    copy_file ("/bin/true", tmp ("exe.so"));
    p = rp_plugin_inspect (tmp ("exe.so"), &error);
    snprintf (want, sizeof (want), "%s: cannot load (", tmp ("exe.so"));
    ok (p == NULL, "an executable is refused");
    like (error.text, want, "an executable: 'cannot load' with the reason");
    rp_plugin_destroy (p);

    if (mkdir (tmp ("dir.so"), 0755) < 0)
        BAIL_OUT ("mkdir");
    p = rp_plugin_inspect (tmp ("dir.so"), &error);
    snprintf (want, sizeof (want), "%s: not a regular file (a directory)",
              tmp ("dir.so"));
    ok (p == NULL && errno == EINVAL, "a directory is refused");
    is (error.text, want, "a directory: message");

    errno = 0;
    ok (rp_plugin_inspect (NULL, &error) == NULL && errno == EINVAL,
        "inspect NULL fails with EINVAL");
    errno = 0;
    ok (rp_plugin_inspect ("", &error) == NULL && errno == EINVAL,
        "inspect \"\" fails with EINVAL");
}

static void test_inspect_paths (void)
{
    char cwd[PATH_MAX];
    rp_error_t error;
    struct rp_plugin *p;

    if (!getcwd (cwd, sizeof (cwd)) || chdir (fixdir) < 0)
        BAIL_OUT ("chdir");
    p = rp_plugin_inspect ("good.so", &error);
    ok (p != NULL, "a relative path is relative to the current directory");
    is (p ? rp_plugin_file (p) : error.text, fixture ("good"),
        "and shown as an absolute path");
    rp_plugin_destroy (p);
    if (chdir (cwd) < 0)
        BAIL_OUT ("chdir back");

    if (symlink (fixture ("good"), tmp ("link.so")) < 0)
        BAIL_OUT ("symlink");
    p = rp_plugin_inspect (tmp ("link.so"), &error);
    ok (p != NULL, "a symlink to a plugin loads");
    is (p ? rp_plugin_file (p) : error.text, tmp ("link.so"),
        "its file is the path given");
    rp_plugin_destroy (p);
}

/* A match policy is inspected as a match policy (its own kind). */
static void test_inspect_match (void)
{
    rp_error_t error;
    struct rp_plugin *p = rp_plugin_inspect (fixture ("bad-order"), &error);

    if (!ok (p != NULL, "inspect bad-order.so (a match policy)"))
        diag ("%s", error.text);
    is (rp_plugin_name (p), "bad-order", "its name");
    cmp_ok (rp_plugin_kind (p), ==, RP_PLUGIN_MATCH, "its kind is match");
    is (rp_plugin_description (p),
        "returns a duplicate candidate (test fixture)", "its description");
    rp_plugin_destroy (p);
}

/* --- file permissions --------------------------------------------------- */

static void expect_refused (const char *path, const char *why, const char *what)
{
    char want[3 * PATH_MAX];
    rp_error_t error;
    struct rp_plugin *p;

    snprintf (want, sizeof (want), "%s: refusing to load: %s", path, why);
    errno = 0;
    p = rp_plugin_inspect (path, &error);
    ok (p == NULL && errno == EPERM, "%s: refused with EPERM", what);
    is (p ? "" : error.text, want, "%s: message", what);
    rp_plugin_destroy (p);
}

/* "WORDS is writable by group or others (mode M): ...", with the chmod
 * that fixes it; WORDS name the directory by its place from the file the
 * message begins with ("its directory", "directory NAME above it"). */
static const char *dir_writable (const char *words, unsigned mode)
{
    char *b = buf ();
    snprintf (b, PATH_MAX,
              "%s is writable by group or others (mode %04o): "
              "chmod go-w, or chmod +t if shared",
              words, mode);
    return b;
}

/* "the file is writable by group or others (mode M): chmod go-w" */
static const char *file_writable (unsigned mode)
{
    char *b = buf ();
    snprintf (b, PATH_MAX,
              "the file is writable by group or others (mode %04o): chmod "
              "go-w",
              mode);
    return b;
}

/* "E in WORDS (mode M) is owned by uid U, neither root nor the current
 * user" (E a name in the sticky directory WORDS name by its place from the
 * file: "its sticky directory", "sticky directory NAME above it") */
static const char *entry_foreign (const char *entry, const char *words,
                                  unsigned mode, uid_t uid)
{
    char *b = buf ();
    snprintf (b, PATH_MAX,
              "%s in %s (mode %04o) is owned by uid %lu, "
              "neither root nor the current user",
              entry, words, mode, (unsigned long)uid);
    return b;
}

/* rp_plugin_inspect (path) loads. */
static void expect_loads (const char *path, const char *what)
{
    rp_error_t error;
    struct rp_plugin *p = rp_plugin_inspect (path, &error);

    if (!ok (p != NULL, "%s: loads", what))
        diag ("%s", error.text);
    rp_plugin_destroy (p);
}

static void test_insecure_modes (void)
{
    if (mkdir (tmp ("sec"), 0755) < 0 || mkdir (tmp ("sec/sub"), 0755) < 0)
        BAIL_OUT ("mkdir");
    copy_file (fixture ("good"), tmp ("sec/sub/good.so"));
    chmod (tmp ("sec/sub/good.so"), 0646);
    expect_refused (tmp ("sec/sub/good.so"), file_writable (0646),
                    "a file writable by others");
    chmod (tmp ("sec/sub/good.so"), 0664);
    expect_refused (tmp ("sec/sub/good.so"), file_writable (0664),
                    "a group-writable file (group members are other users)");
    chmod (tmp ("sec/sub/good.so"), 0644);
    chmod (tmp ("sec/sub"), 0757);
    expect_refused (tmp ("sec/sub/good.so"),
                    dir_writable ("its directory", 0757),
                    "a directory writable by others");
    chmod (tmp ("sec/sub"), 0775);
    expect_refused (tmp ("sec/sub/good.so"),
                    dir_writable ("its directory", 0775),
                    "a group-writable directory");
    chmod (tmp ("sec/sub"), 0755);
    chmod (tmp ("sec"), 0777);
    expect_refused (tmp ("sec/sub/good.so"), dir_writable ("directory sec above it", 0777),
                    "an ancestor directory writable by others");
    chmod (tmp ("sec"), 01777);
    expect_loads (tmp ("sec/sub/good.so"),
                  "a sticky ancestor writable by others (like /tmp), the "
                  "directory below it the user's");
    chmod (tmp ("sec"), 01775);
    expect_loads (tmp ("sec/sub/good.so"),
                  "a sticky group-writable ancestor, the same way");
    chmod (tmp ("sec"), 0755);
    chmod (tmp ("sec/sub"), 01777);
    expect_loads (tmp ("sec/sub/good.so"),
                  "a sticky directory holding the user's file");
    chmod (tmp ("sec/sub/good.so"), 0666);
    expect_refused (tmp ("sec/sub/good.so"), file_writable (0666),
                    "the file in it is still checked");
    chmod (tmp ("sec/sub/good.so"), 0644);
    chmod (tmp ("sec/sub"), 0755);
}

/* A plugin in a private directory below /tmp (a sticky directory) loads:
 * the directory of the user's that the path takes in /tmp is safe. */
static void test_insecure_tmp (void)
{
    char dir[] = "/tmp/respol-test-plugin-XXXXXX";
    char file[sizeof (dir) + 16];
    char cmd[2 * sizeof (file)];
    struct stat st;

    if (stat ("/tmp", &st) < 0 || (st.st_mode & 07777) != 01777
        || !mkdtemp (dir)) {
        skip (1, "/tmp is not a 1777 directory");
        return;
    }
    snprintf (file, sizeof (file), "%s/good.so", dir);
    copy_file (fixture ("good"), file);
    expect_loads (file, "a plugin in a private directory below /tmp");
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", dir);
    if (system (cmd) != 0)
        diag ("could not remove %s", dir);
}

/* The directory that holds the name given (a search directory) counts,
 * not only the one the symlink leads to. */
static void test_insecure_link (void)
{
    char want[3 * PATH_MAX];
    struct rp_plugin *p;
    rp_error_t error;

    if (mkdir (tmp ("open"), 0755) < 0
        || symlink (fixture ("good"), tmp ("open/good.so")) < 0)
        BAIL_OUT ("mkdir or symlink");
    p = rp_plugin_inspect (tmp ("open/good.so"), &error);
    ok (p != NULL, "a symlink to a safe plugin in a safe directory loads");
    rp_plugin_destroy (p);
    chmod (tmp ("open"), 0777);
    expect_refused (tmp ("open/good.so"), dir_writable ("its directory", 0777),
                    "a safe plugin named in a directory writable by others");
    chmod (tmp ("open"), 0755);

    if (mkfifo (tmp ("fifo.so"), 0644) < 0)
        BAIL_OUT ("mkfifo");
    snprintf (want, sizeof (want), "%s: not a regular file (a FIFO)",
              tmp ("fifo.so"));
    p = rp_plugin_inspect (tmp ("fifo.so"), &error);
    is (p ? "" : error.text, want,
        "a FIFO is refused (opening it does not "
        "wait for a writer)");
    rp_plugin_destroy (p);
}

/* Bind a Unix socket at tmp (name): made from tmpdir, so that a long
 * build tree does not overflow sun_path. */
static void make_socket (const char *name)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    char cwd[PATH_MAX];
    int fd = socket (AF_UNIX, SOCK_STREAM, 0);

    snprintf (sa.sun_path, sizeof (sa.sun_path), "%s", name);
    if (fd < 0 || !getcwd (cwd, sizeof (cwd)) || chdir (tmpdir) < 0
        || bind (fd, (struct sockaddr *)&sa, sizeof (sa)) < 0
        || chdir (cwd) < 0)
        BAIL_OUT ("cannot bind a socket in %s", tmpdir);
    close (fd);
}

/* Anything but a regular file is refused before it is opened, saying what
 * it is.  (A FIFO: test_insecure_link.) */
static void test_not_regular (void)
{
    char want[2 * PATH_MAX];
    struct rp_plugin *p;
    rp_error_t error;

    make_socket ("sock.so");
    snprintf (want, sizeof (want), "%s: not a regular file (a socket)",
              tmp ("sock.so"));
    errno = 0;
    p = rp_plugin_inspect (tmp ("sock.so"), &error);
    ok (p == NULL && errno == EINVAL, "a socket is refused with EINVAL");
    is (p ? "" : error.text, want, "a socket: message");
    rp_plugin_destroy (p);

    p = rp_plugin_inspect ("/dev/zero", &error);
    is (p ? "" : error.text,
        "/dev/zero: not a regular file (a character device)",
        "a character device is refused, not opened");
    rp_plugin_destroy (p);
    if (symlink ("/dev/null", tmp ("null.so")) < 0)
        BAIL_OUT ("symlink");
    snprintf (want, sizeof (want),
              "%s: not a regular file (a character device)", tmp ("null.so"));
    p = rp_plugin_inspect (tmp ("null.so"), &error);
    is (p ? "" : error.text, want,
        "a symlink to a character device: the device is refused");
    rp_plugin_destroy (p);
}

static void test_insecure_owner (void)
{
    char why[2 * PATH_MAX];
    struct passwd *nobody = getpwnam ("nobody");

    if (geteuid () != 0 || !nobody) {
        skip (4, "not root: cannot give a file to another user");
        return;
    }
    if (chown (tmp ("sec/sub/good.so"), nobody->pw_uid, (gid_t)-1) < 0)
        BAIL_OUT ("chown");
    snprintf (why, sizeof (why),
              "the file is owned by uid %lu, neither root nor the current "
              "user",
              (unsigned long)nobody->pw_uid);
    expect_refused (tmp ("sec/sub/good.so"), why, "a file of another user");
    if (chown (tmp ("sec/sub/good.so"), 0, (gid_t)-1) < 0
        || chown (tmp ("sec"), nobody->pw_uid, (gid_t)-1) < 0)
        BAIL_OUT ("chown");
    snprintf (why, sizeof (why),
              "directory sec above it is owned by uid %lu, neither root nor "
              "the current user",
              (unsigned long)nobody->pw_uid);
    expect_refused (tmp ("sec/sub/good.so"), why,
                    "an ancestor directory of another user");
    if (chown (tmp ("sec"), 0, (gid_t)-1) < 0)
        BAIL_OUT ("chown");
}

/* Does the kernel refuse to follow a symlink that another user owns in a
 * sticky world-writable directory (fs.protected_symlinks)?  Then such a
 * path fails in realpath, before respol's own check. */
static bool kernel_protects_symlinks (void)
{
    FILE *f = fopen ("/proc/sys/fs/protected_symlinks", "r");
    int c = f ? getc (f) : '0';

    if (f)
        fclose (f);
    return c != '0';
}

/* The swap attack through a sticky directory: another user may rename or
 * replace what is theirs in it, so an entry of theirs on the path (a
 * directory, the file, a symlink to a safe file or directory) is refused;
 * so is a sticky directory of theirs (its owner may rename any entry). */
static void test_sticky_swap (void)
{
    struct passwd *nobody = getpwnam ("nobody");
    char s[PATH_MAX];
    char why[2 * PATH_MAX];
    uid_t uid;

    if (geteuid () != 0 || !nobody) {
        skip (10, "not root: cannot give a file to another user");
        return;
    }
    uid = nobody->pw_uid;
    snprintf (s, sizeof (s), "%s", tmp ("sticky"));
    if (mkdir (s, 0755) < 0 || chmod (s, 01777) < 0
        || mkdir (tmp ("sticky/sub"), 0755) < 0
        || chown (tmp ("sticky/sub"), uid, (gid_t)-1) < 0)
        BAIL_OUT ("mkdir or chown");
    copy_file (fixture ("good"), tmp ("sticky/sub/good.so"));
    expect_refused (tmp ("sticky/sub/good.so"),
                    entry_foreign ("sub", "sticky directory sticky above it", 01777, uid),
                    "a directory of another user in a sticky directory");
    copy_file (fixture ("good"), tmp ("sticky/good.so"));
    if (chown (tmp ("sticky/good.so"), uid, (gid_t)-1) < 0)
        BAIL_OUT ("chown");
    expect_refused (tmp ("sticky/good.so"),
                    entry_foreign ("good.so", "its sticky directory", 01777, uid),
                    "a file of another user in a sticky directory");

    if (symlink (fixture ("good"), tmp ("sticky/link.so")) < 0
        || lchown (tmp ("sticky/link.so"), uid, (gid_t)-1) < 0
        || symlink (fixdir, tmp ("sticky/dir")) < 0
        || lchown (tmp ("sticky/dir"), uid, (gid_t)-1) < 0)
        BAIL_OUT ("symlink or lchown");
    if (kernel_protects_symlinks ()) {
        struct rp_plugin *p = rp_plugin_inspect (tmp ("sticky/link.so"), NULL);
        ok (p == NULL, "a symlink of another user to a safe plugin: refused "
                       "(by the kernel's protected_symlinks)");
        rp_plugin_destroy (p);
        skip (1, "fs.protected_symlinks is on: the kernel refuses first");
    } else {
        expect_refused (tmp ("sticky/link.so"),
                        entry_foreign ("link.so", "its sticky directory", 01777,
                                       uid),
                        "a symlink of another user to a safe plugin");
    }
    if (chmod (s, 01775) < 0)
        BAIL_OUT ("chmod");
    /* Group-writable only: the kernel does not protect symlinks there. */
    expect_refused (tmp ("sticky/dir/good.so"),
                    entry_foreign ("dir", "sticky directory sticky above it", 01775,
                                   uid),
                    "a symlink of another user to a safe directory, in a "
                    "sticky group-writable directory");
    if (chmod (s, 01777) < 0 || chown (s, uid, (gid_t)-1) < 0
        || chown (tmp ("sticky/sub"), 0, (gid_t)-1) < 0)
        BAIL_OUT ("chmod or chown");
    snprintf (why, sizeof (why),
              "directory sticky above it is owned by uid %lu, neither root "
              "nor the current user",
              (unsigned long)uid);
    expect_refused (tmp ("sticky/sub/good.so"), why,
                    "a sticky directory of another user");
}

/* --- misc --------------------------------------------------------------- */

static void test_kind_names (void)
{
    is (rp_plugin_kind_name (RP_PLUGIN_VALIDATE), "validate", "kind 1");
    is (rp_plugin_kind_name (RP_PLUGIN_MATCH), "match", "kind 2");
    is (rp_plugin_kind_name (RP_PLUGIN_PROPERTY), "property", "kind 3");
    is (rp_plugin_kind_name (RP_PLUGIN_SHELL), "shell", "kind 4");
    is (rp_plugin_kind_name (RP_PLUGIN_QUEUE), "queue", "kind 5");
    ok (rp_plugin_kind_name (0) == NULL && rp_plugin_kind_name (6) == NULL,
        "kinds 0 and 6 have no name");
    ok (rp_plugin_name (NULL) == NULL && rp_plugin_instance (NULL) == NULL
            && rp_plugin_file (NULL) == NULL && rp_plugin_kind (NULL) == 0
            && rp_plugin_abi_version (NULL) == 0
            && rp_plugin_version (NULL) == NULL
            && rp_plugin_description (NULL) == NULL,
        "accessors of NULL return NULL / 0");
}

int main (void)
{
    plan (NO_PLAN);
    fixtures_setup ("respol-test-plugin");
    test_desc_check ();
    test_desc_grows ();
    test_config_keys ();
    test_config_keys_max ();
    test_config_keys_old_size ();
    test_inspect_good ();
    test_inspect_failures ();
    test_inspect_files ();
    test_inspect_paths ();
    test_inspect_match ();
    test_insecure_modes ();
    test_insecure_tmp ();
    test_insecure_link ();
    test_not_regular ();
    test_insecure_owner ();
    test_sticky_swap ();
    test_kind_names ();
    fixtures_cleanup ();
    return done_testing ();
}
