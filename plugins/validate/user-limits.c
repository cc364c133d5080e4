/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Validator plugin "user-limits": what one user, and one account, may run
 * at once, in the manner of Slurm's per-user and per-association limits
 * (MaxJobs, MaxSubmitJobs, GrpTRES).  Configuration block:
 *
 *   - plugin: user-limits
 *     config:
 *       user:                  # every user, unless listed under users
 *         max-running-jobs: 4
 *         max-pending-jobs: 20 # held jobs included
 *         max-nodes: 16        # held by the user's running jobs together
 *         max-cores: 1024
 *         max-gpus: 8
 *       users:                 # by name or uid: the keys a user's block
 *         alice: {max-nodes: 64}   # sets replace those of user
 *         "1234": {max-gpus: 0}
 *       account:               # every account (its users together)
 *         max-nodes: 128
 *       accounts:
 *         physics: {max-nodes: 256}
 *
 * Every block and key is optional, but some limit must be set.  Who and
 * which account come from the submission context (respol/context.h):
 * user limits apply to a job whose context has a uid, account limits to
 * one whose context has an account.
 *
 * Decisions:
 * - A job that alone exceeds a limit (8 GPUs where a user may hold 4) is
 *   rejected: it could never run.  A job that would exceed a limit with
 *   what its user or account runs now is held, with the figures: the
 *   instance re-validates it before starting it, so it runs once the
 *   others end, as a Slurm job waits with reason AssocMaxJobsLimit.
 * - max-pending-jobs rejects a new submission when that many jobs of the
 *   user (or account) are already waiting, as Slurm's MaxSubmitJobs
 *   does: holding it would add one more pending job.  A job the instance
 *   already knows (a held job validated again) is not counted twice.
 * - A job's size is counted from its request as the limits plugin counts
 *   it (the smallest acceptable value of ranges), except nodes: a job
 *   that names no node holds at least one, so it counts one.  What users
 *   hold is counted from their running jobs' R (the instance's usage).
 * - Without an instance (respol jobspec validate) only the first check
 *   is possible: a job within every limit is accepted, and the plugin
 *   logs at debug level that usage was not checked.
 * - Checks run in the order: the job alone (user, then account), then
 *   with usage: pending jobs (a rejection), running jobs, nodes, cores,
 *   GPUs (holds), user before account; the first one exceeded decides.
 *
 * Built as a site builds its own plugin: respol/plugin.h and the headers
 * it names only, no library linked, one exported symbol.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/context.h>
#include <respol/instance.h>
#include <respol/plugin.h>

#include "count.h"

enum { RUNNING, PENDING, NODES, CORES, GPUS, NLIMITS };

static const char *const limit_key[NLIMITS] = {
    "max-running-jobs", "max-pending-jobs", "max-nodes", "max-cores",
    "max-gpus",
};
static const int usage_item[NLIMITS] = {
    RP_USAGE_RUNNING_JOBS, RP_USAGE_PENDING_JOBS, RP_USAGE_NODES,
    RP_USAGE_CORES,        RP_USAGE_GPUS,
};
static const char *const noun[NLIMITS] = { "running job", "pending job",
                                           "node", "core", "GPU" };

struct limits {
    int64_t v[NLIMITS]; /* -1: no limit */
};

struct named {
    char *name;
    struct limits l;
};

struct scope {
    struct limits dflt; /* "user" / "account" */
    struct named *list; /* "users" / "accounts" */
    size_t n;
};

struct conf {
    struct scope user, account;
};

static const struct rp_host_services *svc;

/* --- configuration ------------------------------------------------------ */

static void limits_clear (struct limits *l)
{
    for (int i = 0; i < NLIMITS; i++)
        l->v[i] = -1;
}

/* Read block o (at path, for messages) into l, over what l holds. */
static int read_limits (struct rp_plugin *p, const char *path, const json_t *o,
                        struct limits *l)
{
    const char *key;
    json_t *v;

    if (!json_is_object (o))
        return svc->error (p, "%s: must be a mapping", path);
    json_object_foreach ((json_t *)o, key, v) {
        int i;
        for (i = 0; i < NLIMITS && strcmp (key, limit_key[i]) != 0; i++)
            ;
        if (i == NLIMITS)
            return svc->error (p, "%s: unknown key '%s'", path, key);
        if (!json_is_integer (v) || json_integer_value (v) < 0)
            return svc->error (p, "%s.%s: must be an integer >= 0", path,
                               key);
        l->v[i] = json_integer_value (v);
    }
    return 0;
}

static int read_list (struct rp_plugin *p, const char *path, const json_t *o,
                      struct scope *s)
{
    const char *name;
    json_t *v;
    char where[512];

    if (!json_is_object (o))
        return svc->error (p, "%s: must be a mapping", path);
    if (!(s->list = calloc (json_object_size (o) + 1, sizeof (*s->list))))
        return svc->error (p, "out of memory");
    json_object_foreach ((json_t *)o, name, v) {
        struct named *e = &s->list[s->n];
        if (!*name)
            return svc->error (p, "%s: a name is empty", path);
        if (!(e->name = strdup (name)))
            return svc->error (p, "out of memory");
        s->n++;
        e->l = s->dflt;
        snprintf (where, sizeof (where), "%s.%s", path, name);
        if (read_limits (p, where, v, &e->l) < 0)
            return -1;
    }
    return 0;
}

static bool any_limit (const struct conf *c)
{
    const struct scope *scopes[] = { &c->user, &c->account };

    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i <= scopes[k]->n; i++) {
            const struct limits *l =
                i < scopes[k]->n ? &scopes[k]->list[i].l : &scopes[k]->dflt;
            for (int j = 0; j < NLIMITS; j++)
                if (l->v[j] >= 0)
                    return true;
        }
    return false;
}

/* The top-level keys, declared: the host refuses any other at the key. */
static const char *const keys[] = { "user", "account", "users", "accounts",
                                    NULL };

static int read_conf (struct rp_plugin *p, const json_t *cfg, struct conf *c)
{
    struct scope *scopes[] = { &c->user, &c->account };
    json_t *v;

    limits_clear (&c->user.dflt);
    limits_clear (&c->account.dflt);
    /* Defaults first: a listed user's block starts from them. */
    for (int k = 0; k < 2; k++) {
        if ((v = json_object_get (cfg, keys[k]))
            && read_limits (p, keys[k], v, &scopes[k]->dflt) < 0)
            return -1;
        if ((v = json_object_get (cfg, keys[k + 2]))
            && read_list (p, keys[k + 2], v, scopes[k]) < 0)
            return -1;
    }
    if (!any_limit (c))
        return svc->error (p, "no limit is configured (user, users, account, "
                              "accounts: max-running-jobs, max-pending-jobs, "
                              "max-nodes, max-cores, max-gpus)");
    return 0;
}

static void conf_destroy (struct conf *c)
{
    if (c) {
        int saved = errno;
        struct scope *scopes[] = { &c->user, &c->account };
        for (int k = 0; k < 2; k++) {
            for (size_t i = 0; i < scopes[k]->n; i++)
                free (scopes[k]->list[i].name);
            free (scopes[k]->list);
        }
        free (c);
        errno = saved;
    }
}

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    struct conf *c;

    svc = s;
    if (!(c = calloc (1, sizeof (*c))))
        return svc->error (p, "out of memory");
    if (read_conf (p, svc->config (p), c) < 0) {
        conf_destroy (c);
        return -1;
    }
    svc->set_data (p, c);
    return 0;
}

static void fini (struct rp_plugin *p)
{
    conf_destroy (svc->get_data (p));
}

/* --- validate ----------------------------------------------------------- */

/* The limits of the scope's entry named name (or uid, as digits), else
 * its defaults. */
static const struct limits *find (const struct scope *s, const char *name,
                                  const char *uid)
{
    for (size_t i = 0; i < s->n; i++)
        if ((name && !strcmp (s->list[i].name, name))
            || (uid && !strcmp (s->list[i].name, uid)))
            return &s->list[i].l;
    return &s->dflt;
}

struct who {
    const char *what; /* "user" or "account" */
    const char *name;
    const struct limits *l;
    uint64_t used[NLIMITS]; /* what it runs now; all 0 without instance */
};

/* Does the job alone exceed a limit of w?  Reject then. */
static int check_alone (const struct who *w, const uint64_t need[NLIMITS],
                        struct rp_validation *v)
{
    for (int i = RUNNING; i < NODES; i++) /* need 1: the limit is 0 */
        if (w->l->v[i] >= 0 && need[i] > (uint64_t)w->l->v[i])
            return rp_validation_reject (v, "%s %s may have no %ss", w->what,
                                         w->name, noun[i]);
    for (int i = NODES; i < NLIMITS; i++)
        if (w->l->v[i] >= 0 && need[i] > (uint64_t)w->l->v[i])
            return rp_validation_reject (
                v, "requests %" PRIu64 " %s%s, %s %s may hold %" PRId64,
                need[i], noun[i], need[i] == 1 ? "" : "s", w->what, w->name,
                w->l->v[i]);
    return RP_ACCEPT;
}

/* With what w runs now: reject (too many pending) or hold. */
static int check_usage (const struct who *w, const uint64_t need[NLIMITS],
                        bool known, struct rp_validation *v)
{
    const struct limits *l = w->l;

    if (!known && l->v[PENDING] >= 0
        && w->used[PENDING] + 1 > (uint64_t)l->v[PENDING])
        return rp_validation_reject (
            v, "%s %s has %" PRIu64 " pending job%s, limit is %" PRId64,
            w->what, w->name, w->used[PENDING],
            w->used[PENDING] == 1 ? "" : "s", l->v[PENDING]);
    if (l->v[RUNNING] >= 0 && w->used[RUNNING] + 1 > (uint64_t)l->v[RUNNING])
        return rp_validation_hold (
            v, "%s %s runs %" PRIu64 " job%s, limit is %" PRId64, w->what,
            w->name, w->used[RUNNING], w->used[RUNNING] == 1 ? "" : "s",
            l->v[RUNNING]);
    for (int i = NODES; i < NLIMITS; i++)
        if (l->v[i] >= 0 && count_add_sat (w->used[i], need[i]) > (uint64_t)l->v[i])
            return rp_validation_hold (
                v,
                "%s %s holds %" PRIu64 " of %" PRId64 " %ss, this job needs %" PRIu64,
                w->what, w->name, w->used[i], l->v[i], noun[i], need[i]);
    return RP_ACCEPT;
}

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    const struct conf *c = svc->get_data (p);
    const struct rp_context *ctx = rp_validation_context (v);
    const struct rp_instance *in = rp_validation_instance (v);
    const struct rp_jobspec_facts *f = rp_jobspec_facts (js);
    uint64_t need[NLIMITS] = { 1, 1, f->nnodes > 0 ? f->nnodes : 1, 0, 0 };
    struct who w[2];
    size_t n = 0;
    uint64_t jobid;
    uint32_t uid;
    char uidbuf[16];
    bool known = rp_context_jobid (ctx, &jobid)
                 && rp_instance_job (in, jobid) != NULL;
    int rc;

    count_cores_gpus (rp_jobspec_resource_first (js), &need[CORES], &need[GPUS]);
    if (rp_context_uid (ctx, &uid)) {
        const char *name = rp_context_user (ctx);
        snprintf (uidbuf, sizeof (uidbuf), "%" PRIu32, uid);
        w[n] = (struct who){ "user", name ? name : uidbuf,
                             find (&c->user, name, uidbuf), { 0 } };
        for (int i = 0; in && i < NLIMITS; i++)
            w[n].used[i] = rp_instance_user_usage (in, uid, usage_item[i]);
        n++;
    }
    if (rp_context_account (ctx)) {
        const char *a = rp_context_account (ctx);
        w[n] = (struct who){ "account", a, find (&c->account, a, NULL),
                             { 0 } };
        for (int i = 0; in && i < NLIMITS; i++)
            w[n].used[i] = rp_instance_account_usage (in, a, usage_item[i]);
        n++;
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = check_alone (&w[i], need, v)) != RP_ACCEPT)
            return rc;
    if (!in) {
        svc->log (p, RP_LOG_DEBUG,
                  "no instance: what users run now was not checked");
        return RP_ACCEPT;
    }
    for (size_t i = 0; i < n; i++)
        if ((rc = check_usage (&w[i], need, known, v)) != RP_ACCEPT)
            return rc;
    return RP_ACCEPT;
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "user-limits",
    .description = "limit what each user and account runs at once: hold a "
                   "job until it fits",
    .version = "0.1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
    .config_keys = keys,
};
