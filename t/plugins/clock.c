/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "clock" (shell): times the shell plugins placed between
 * two of its instances, for bench/bench-binding, which cannot tell their
 * cost from the topology's load otherwise (the load varies by more than
 * the plugins cost).  The instance configured {role: start} reads the
 * process's CPU clock at the start of shell_init and of each task_init;
 * the one configured {role: stop}, placed after the plugins to time,
 * adds what passed since, and at the last local task's task_init sets
 * RESPOL_CLOCK_NS=<total nanoseconds> in that task's environment. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <respol/shell.h>

static const struct rp_host_services *svc;
static long long started, total;

static long long now_ns (void)
{
    struct timespec ts;

    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static bool stop (struct rp_plugin *p)
{
    const char *role =
        json_string_value (json_object_get (svc->config (p), "role"));

    return role && strcmp (role, "stop") == 0;
}

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    const char *role;

    svc = s;
    role = json_string_value (json_object_get (svc->config (p), "role"));
    if (!role || (strcmp (role, "start") && strcmp (role, "stop")))
        return svc->error (p, "role must be start or stop");
    return 0;
}

static int shell_init (struct rp_plugin *p, struct rp_shell *sh)
{
    (void)sh;
    if (!stop (p)) {
        total = 0;
        started = now_ns ();
    } else
        total += now_ns () - started;
    return 0;
}

static int task_init (struct rp_plugin *p, struct rp_shell *sh,
                      struct rp_task *t)
{
    char buf[32];

    if (!stop (p)) {
        started = now_ns ();
        return 0;
    }
    total += now_ns () - started;
    if (rp_task_local_id (t) + 1 < rp_shell_ntasks (sh))
        return 0;
    snprintf (buf, sizeof (buf), "%lld", total);
    return rp_task_setenv (t, "RESPOL_CLOCK_NS", buf);
}

static const struct rp_shell_ops ops = {
    .size = sizeof (struct rp_shell_ops),
    .shell_init = shell_init,
    .task_init = task_init,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_SHELL,
    .name = "clock",
    .description = "time the shell plugins between two instances (bench)",
    .version = "1.0",
    .init = init,
    .ops = &ops,
};
