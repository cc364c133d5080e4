/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "shell-fixture" (shell): does what its shell options say,
 * for the shell's tests.
 *   fixture-cpus: IDSET    every task's CPUs
 *   fixture-share: 1       each task's CPUs: the PUs of its share of cores
 *   fixture-gpus: IDSET    every task's GPUs
 *   fixture-mems: IDSET    every task's NUMA nodes (bind)
 *   fixture-env: NAME=VAL  set in every task
 *   fixture-unset: NAME    unset in every task
 *   fixture-thread: 1      start a thread in shell_init that lives as
 *                          long as the process (as a GPU runtime loaded
 *                          during discovery does): it inherits the
 *                          signal mask of that moment
 *   fixture-fail: OP       fail in OP (shell_init, task_init, ...) with
 *                          a message; "OP!" fails without one
 * and logs each operation it runs at debug level. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <respol/idset.h>
#include <respol/shell.h>

static const struct rp_host_services *svc;

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    (void)p;
    svc = s;
    return 0;
}

/* A string option, or an integer one as text (-o key=3 gives a number). */
static const char *opt (struct rp_shell *sh, const char *key)
{
    static char buf[32];
    const json_t *v = rp_shell_option (sh, key);

    if (json_is_integer (v)) {
        snprintf (buf, sizeof (buf), "%lld", (long long)json_integer_value (v));
        return buf;
    }
    return json_string_value (v);
}

/* Fail in op when asked: -1, with a message unless "op!". */
static int maybe_fail (struct rp_plugin *p, struct rp_shell *sh,
                       const char *op)
{
    const char *f = opt (sh, "fixture-fail");
    size_t n = strlen (op);

    if (!f || strncmp (f, op, n) != 0 || (f[n] && strcmp (f + n, "!") != 0))
        return 0;
    if (f[n] == '!')
        return -1;
    return svc->error (p, "asked to fail in %s", op);
}

static int set (struct rp_plugin *p, struct rp_shell *sh, struct rp_task *t,
                const char *key, int (*fn) (struct rp_task *,
                                            const struct rp_idset *))
{
    const char *v = opt (sh, key);
    struct rp_idset *ids;
    rp_error_t e;
    int rc;

    if (!v)
        return 0;
    if (!(ids = rp_idset_decode (v, &e)))
        return svc->error (p, "%s: %s", key, e.text);
    rc = fn (t, ids);
    rp_idset_destroy (ids);
    return rc;
}

static int set_mems (struct rp_task *t, const struct rp_idset *ids)
{
    return rp_task_set_mem (t, RP_MEM_BIND, ids);
}

static void *idle (void *arg)
{
    (void)arg;
    for (;;)
        pause ();
    return NULL;
}

/* The PUs of the task's share of cores, when fixture-share is set. */
static int set_share (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t)
{
    const struct rp_idset *share = rp_task_share_cores (t);
    struct rp_idset *cpus;
    int rc = 0;

    if (!rp_shell_option (sh, "fixture-share"))
        return 0;
    if (!(cpus = rp_idset_create ()))
        return svc->error (p, "out of memory");
    for (unsigned int c = rp_idset_first (share); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (share, c))
        if (rp_idset_add_set (cpus, rp_shell_core_cpus (sh, c)) < 0)
            rc = -1;
    if (rc == 0)
        rc = rp_task_set_cpus (t, cpus);
    rp_idset_destroy (cpus);
    return rc < 0 ? svc->error (p, "fixture-share: cannot bind") : 0;
}

static int shell_init (struct rp_plugin *p, struct rp_shell *sh)
{
    pthread_t t;

    svc->log (p, RP_LOG_DEBUG, "shell_init");
    if (rp_shell_option (sh, "fixture-thread")) {
        if (pthread_create (&t, NULL, idle, NULL) != 0)
            return svc->error (p, "pthread_create failed");
        pthread_detach (t);
    }
    return maybe_fail (p, sh, "shell_init");
}

static int task_init (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t)
{
    const char *env = opt (sh, "fixture-env");

    if (maybe_fail (p, sh, "task_init") < 0
        || set (p, sh, t, "fixture-cpus", rp_task_set_cpus) < 0
        || set (p, sh, t, "fixture-gpus", rp_task_set_gpus) < 0
        || set (p, sh, t, "fixture-mems", set_mems) < 0
        || set_share (p, sh, t) < 0)
        return -1;
    if (opt (sh, "fixture-unset")
        && rp_task_unsetenv (t, opt (sh, "fixture-unset")) < 0)
        return svc->error (p, "fixture-unset: cannot unset it");
    if (env && strchr (env, '=')) {
        char *name = strndup (env, (size_t)(strchr (env, '=') - env));
        int rc = name ? rp_task_setenv (t, name, strchr (env, '=') + 1) : -1;
        free (name);
        if (rc < 0)
            return svc->error (p, "fixture-env: cannot set %s", env);
    }
    return 0;
}

static int task_exec (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t)
{
    (void)t;
    return maybe_fail (p, sh, "task_exec");
}

static int task_exit (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t, int status)
{
    svc->log (p, RP_LOG_DEBUG, "task_exit %lu %d", rp_task_global_id (t),
              status);
    return maybe_fail (p, sh, "task_exit");
}

static int shell_exit (struct rp_plugin *p, struct rp_shell *sh)
{
    return maybe_fail (p, sh, "shell_exit");
}

static const struct rp_shell_ops ops = {
    .size = sizeof (struct rp_shell_ops),
    .shell_init = shell_init,
    .task_init = task_init,
    .task_exec = task_exec,
    .task_exit = task_exit,
    .shell_exit = shell_exit,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_SHELL,
    .name = "shell-fixture",
    .description = "does what its shell options say (test fixture)",
    .version = "1.0",
    .init = init,
    .ops = &ops,
};
