/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugins "crash" (a validator) and "crash-match" (a match policy,
 * built from this file with -DCRASH_MATCH): a plugin that misbehaves in
 * the operation its configuration block names, for the tests of what the
 * host says about it:
 *   in: OP          the operation: init, fini, and validate (crash) or
 *                   score, prune, order_candidates (crash-match)
 *   signal: NAME    OP dies of a signal it causes itself: segv (a store
 *                   through a null pointer), bus (a read of a mapping
 *                   past the end of its file), fpe (an integer division
 *                   by zero; raise(SIGFPE) where it does not trap), ill
 *                   (an undefined instruction; raise(SIGILL) off x86),
 *                   abort (abort()), stack (unbounded recursion)
 *   return: N       OP returns N without a message (svc->error not called)
 *   log: true       every operation logs "OP at LEVEL" at each of the five
 *                   levels
 *   say: TEXT       init logs TEXT at level say-level (default warning)
 *   live: true      score, prune and order_candidates misbehave only in a
 *                   match on the state, not in a satisfiability check
 *                   (a job is accepted, then its match fails)
 * Otherwise it does nothing: validate accepts, score is 0, prune continues.
 */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <respol/plugin.h>

struct crash {
    const char *in;     /* borrowed from the configuration block */
    const char *signal; /* NULL: none */
    bool has_return;
    int rc;
    bool log;
    bool live;
};

static const struct rp_host_services *svc;
static volatile uintptr_t zero;
static volatile size_t depth_limit = SIZE_MAX;

#define NO_SANITIZE                                                            \
    __attribute__ ((noinline, no_sanitize ("address", "undefined")))

NO_SANITIZE static void crash_segv (void)
{
    *(volatile int *)zero = 1;
}

NO_SANITIZE static void crash_bus (void)
{
    int fd = memfd_create ("crash", 0);
    volatile char *m;

    if (fd >= 0
        && (m = mmap (NULL, 4096, PROT_READ, MAP_SHARED, fd, 0)) != MAP_FAILED)
        (void)m[0]; /* the file is empty: SIGBUS */
    raise (SIGBUS);
}

NO_SANITIZE static void crash_fpe (void)
{
#if defined(__x86_64__) || defined(__i386__)
    volatile int a = 1, b = (int)zero;
    a = a / b;
#endif
    raise (SIGFPE);
}

NO_SANITIZE static void crash_ill (void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("ud2");
#endif
    raise (SIGILL);
}

NO_SANITIZE static size_t recurse (size_t depth)
{
    volatile char frame[1024];

    frame[0] = (char)depth;
    if (depth >= depth_limit)
        return frame[0];
    return recurse (depth + 1) + frame[0];
}

static void crash (const char *how)
{
    if (!strcmp (how, "segv"))
        crash_segv ();
    else if (!strcmp (how, "bus"))
        crash_bus ();
    else if (!strcmp (how, "fpe"))
        crash_fpe ();
    else if (!strcmp (how, "ill"))
        crash_ill ();
    else if (!strcmp (how, "abort"))
        abort ();
    else if (!strcmp (how, "stack"))
        (void)recurse (0);
}

static const char *const levels[] = {
    [RP_LOG_ERR] = "err",       [RP_LOG_WARNING] = "warning",
    [RP_LOG_NOTICE] = "notice", [RP_LOG_INFO] = "info",
    [RP_LOG_DEBUG] = "debug",
};

/* Log if asked, then crash or return if op is the one: 1 with *rc set
 * when op must return *rc. */
static int act (struct rp_plugin *p, const char *op, int *rc)
{
    const struct crash *c = svc->get_data (p);

    if (c->log)
        for (int l = RP_LOG_ERR; l <= RP_LOG_DEBUG; l++)
            svc->log (p, l, "%s at %s", op, levels[l]);
    if (!c->in || strcmp (c->in, op) != 0)
        return 0;
    if (c->signal)
        crash (c->signal);
    if (!c->has_return)
        return 0;
    *rc = c->rc;
    return 1;
}

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    const json_t *cfg = s->config (p);
    json_t *ret = json_object_get (cfg, "return");
    struct crash *c = calloc (1, sizeof (*c));
    int rc = 0;

    svc = s;
    if (!c)
        return s->error (p, "out of memory");
    c->in = json_string_value (json_object_get (cfg, "in"));
    c->signal = json_string_value (json_object_get (cfg, "signal"));
    c->has_return = json_is_integer (ret);
    c->rc = (int)json_integer_value (ret);
    c->log = json_is_true (json_object_get (cfg, "log"));
    c->live = json_is_true (json_object_get (cfg, "live"));
    s->set_data (p, c);
    if (json_is_string (json_object_get (cfg, "say"))) {
        json_t *l = json_object_get (cfg, "say-level");
        s->log (p, l ? (int)json_integer_value (l) : RP_LOG_WARNING, "%s",
                json_string_value (json_object_get (cfg, "say")));
    }
    if (act (p, "init", &rc) && rc != 0) {
        free (c);
        return rc;
    }
    return 0;
}

static void fini (struct rp_plugin *p)
{
    int rc;

    (void)act (p, "fini", &rc);
    free (svc->get_data (p));
}

#ifndef CRASH_MATCH

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    int rc;

    (void)js;
    (void)v;
    return act (p, "validate", &rc) ? rc : RP_ACCEPT;
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

#define KIND RP_PLUGIN_VALIDATE
#define NAME "crash"

#else

/* A match op's act: none in a satisfiability check when the block says
 * live. */
static int act_match (struct rp_plugin *p, const struct rp_match *m,
                      const char *op, int *rc)
{
    const struct crash *c = svc->get_data (p);

    if (c->live && rp_match_is_satisfiability (m))
        return 0;
    return act (p, op, rc);
}

static int score (struct rp_plugin *p, const struct rp_match *m, rp_vertex_t v,
                  int64_t *score)
{
    int rc;

    (void)v;
    *score = 0;
    return act_match (p, m, "score", &rc) ? rc : 0;
}

static int prune (struct rp_plugin *p, const struct rp_match *m, rp_vertex_t v)
{
    int rc;

    (void)v;
    return act_match (p, m, "prune", &rc) ? rc : RP_WALK_CONTINUE;
}

static int order_candidates (struct rp_plugin *p, const struct rp_match *m,
                             rp_vertex_t *v, size_t n)
{
    int rc;

    (void)v;
    (void)n;
    return act_match (p, m, "order_candidates", &rc) ? rc : 0;
}

static const struct rp_match_ops ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_LOW,
    .stop_after = 0,
    .score = score,
    .prune = prune,
    .order_candidates = order_candidates,
};

#define KIND RP_PLUGIN_MATCH
#define NAME "crash-match"

#endif

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = KIND,
    .name = NAME,
    .description = "misbehaves where its block says (test fixture)",
    .version = "1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
};
