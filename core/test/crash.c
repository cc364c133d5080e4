/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for naming a plugin that crashes (core/plugin.c): how the
 * library's signal handler chains to a handler the host installed before
 * it, what it does with a signal outside a plugin, and a crash in a thread
 * that is not the main one.  Each case runs in a child process (it dies),
 * with the fixture plugin "crash" of t/plugins; the parent reads what the
 * child wrote on stderr and how it ended.  t/t0029-plugin-crash.t covers
 * every signal and operation through the respol command.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "respol/config.h"
#include "respol/jobspec.h"
#include "t/tap/tap.h"

#include "core/test/fixtures.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

static const char jobyaml[] = "version: 1\n"
                              "resources:\n"
                              "  - {type: slot, count: 1, label: task,\n"
                              "     with: [{type: core, count: 1}]}\n"
                              "tasks:\n"
                              "  - {command: [hostname], slot: task,\n"
                              "     count: {per_slot: 1}}\n"
                              "attributes: {system: {duration: 60}}\n";

/* The stack of the fixture "crash" with the block given, validating one
 * jobspec; in a child, so it may not come back. */
static void validate_with (const char *block)
{
    char path[PATH_MAX + 16], text[2 * PATH_MAX];
    struct rp_config *cfg;
    struct rp_jobspec *js;
    FILE *f;

    snprintf (path, sizeof (path), "%s/c.yaml", tmpdir);
    snprintf (text, sizeof (text),
              "validate:\n  - plugin: %s/crash.so\n    config: %s\n", fixdir,
              block);
    if (!(f = fopen (path, "w")) || fputs (text, f) < 0 || fclose (f) != 0)
        _exit (100);
    if (!(cfg = rp_config_load (path, 0, NULL)))
        _exit (101);
    if (!(js = rp_jobspec_load (jobyaml, strlen (jobyaml), "job.yaml",
                                RP_JOBSPEC_V1, NULL)))
        _exit (102);
    if (rp_config_validate (cfg, js, NULL, NULL) != RP_ACCEPT)
        _exit (103);
    rp_jobspec_destroy (js);
    rp_config_destroy (cfg);
}

/* Run fn in a child, its stderr into buf; its wait status. */
static int child (void (*fn) (void), char *buf, size_t size)
{
    struct rlimit nocore = { 0, 0 };
    int fds[2], status;
    size_t len = 0;
    ssize_t n;
    pid_t pid;

    fflush (NULL);
    if (pipe (fds) < 0 || (pid = fork ()) < 0)
        BAIL_OUT ("pipe or fork: %s", strerror (errno));
    if (pid == 0) {
        setrlimit (RLIMIT_CORE, &nocore);
        dup2 (fds[1], STDERR_FILENO);
        close (fds[0]);
        fn ();
        _exit (0);
    }
    close (fds[1]);
    /* Read to the end, keeping what fits: a sanitizer's report is long,
     * and a child writing to a closed pipe would die of SIGPIPE. */
    for (;;) {
        char drop[4096];
        bool room = len < size - 1;
        n = read (fds[0], room ? buf + len : drop,
                  room ? size - 1 - len : sizeof (drop));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (room)
            len += (size_t)n;
    }
    buf[len] = '\0';
    close (fds[0]);
    while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

/* "respol: plugin 'crash' (FIX/crash.so) crashed in OP: WORDS\n" */
static const char *named (const char *op, const char *words)
{
    static char buf[2 * PATH_MAX];

    snprintf (buf, sizeof (buf),
              "respol: plugin 'crash' (%s/crash.so) crashed in %s: %s\n",
              fixdir, op, words);
    return buf;
}

/* --- a host with its own handler ------------------------------------------ */

static void host_handler (int sig)
{
    static const char msg[] = "the host's handler\n";

    (void)sig;
    (void)write (STDERR_FILENO, msg, sizeof (msg) - 1);
    _exit (42);
}

static void host_then_crash (void)
{
    signal (SIGABRT, host_handler);
    validate_with ("{in: validate, signal: abort}");
}

static void test_host_handler (void)
{
    char err[4096], want[2 * PATH_MAX + 64];
    int status = child (host_then_crash, err, sizeof (err));

    snprintf (want, sizeof (want), "%sthe host's handler\n",
              named ("validate", "Aborted"));
    is (err, want,
        "the plugin is named, then the handler the host installed first runs");
    ok (WIFEXITED (status) && WEXITSTATUS (status) == 42,
        "and the host's handler decides how the process ends");
}

/* --- a signal outside a plugin -------------------------------------------- */

static void crash_after_call (void)
{
    validate_with ("{}"); /* installs the handler, calls the plugin */
    abort ();
}

static void test_outside (void)
{
    char err[4096];
    int status = child (crash_after_call, err, sizeof (err));

    is (err, "", "a signal after the call returned names no plugin");
    ok (WIFSIGNALED (status) && WTERMSIG (status) == SIGABRT,
        "and the process dies of it");
}

static void crash_before_any_call (void)
{
    raise (SIGABRT);
}

static void test_before (void)
{
    char err[4096];
    int status = child (crash_before_any_call, err, sizeof (err));

    ok (WIFSIGNALED (status) && WTERMSIG (status) == SIGABRT && !err[0],
        "before any call into a plugin, nothing is installed");
}

/* --- another thread ------------------------------------------------------- */

static void *thread_main (void *arg)
{
    validate_with (arg);
    return NULL;
}

static const char *thread_block;

static void crash_in_thread (void)
{
    pthread_t t;

    if (pthread_create (&t, NULL, thread_main, (void *)thread_block) != 0)
        _exit (104);
    pthread_join (t, NULL);
}

static void test_thread (void)
{
    char err[8192];
    int status;

    thread_block = "{in: validate, signal: abort}";
    status = child (crash_in_thread, err, sizeof (err));
    is (err, named ("validate", "Aborted"),
        "a crash in another thread names the plugin it was in");
    ok (WIFSIGNALED (status) && WTERMSIG (status) == SIGABRT,
        "and the process dies of it");

    thread_block = "{in: validate, signal: stack}";
    status = child (crash_in_thread, err, sizeof (err));
    ok (!strncmp (err, named ("validate", "Segmentation fault"),
                  strlen (named ("validate", "Segmentation fault"))),
        "a stack overflow in a thread is named (an alternate stack there)");
#ifdef ASAN
    ok (WIFEXITED (status) && WEXITSTATUS (status) == 1
            && strstr (err, "AddressSanitizer"),
        "then the sanitizer's handler, installed first, reports it");
#else
    ok (WIFSIGNALED (status) && WTERMSIG (status) == SIGSEGV,
        "and the process dies of SIGSEGV");
#endif
}

int main (void)
{
    plan (NO_PLAN);
    unsetenv (RP_CONFIG_ENV);
    unsetenv (RP_PLUGIN_PATH_ENV);
    fixtures_setup ("respol-test-crash");
    test_host_handler ();
    test_outside ();
    test_before ();
    test_thread ();
    fixtures_cleanup ();
    return done_testing ();
}
