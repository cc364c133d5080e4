/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Validator plugin "limits": site limits on the size and duration of a job,
 * optionally different per queue.  Configuration block:
 *
 *   - plugin: limits
 *     config:
 *       max-nodes: 64          # each key optional
 *       max-cores: 4096
 *       max-gpus: 256
 *       max-tasks: 8192
 *       max-duration: 1d       # seconds, or an RFC 23 duration
 *       queues:
 *         debug: {max-nodes: 4, max-duration: 30m}
 *
 * A queue's block overrides the keys it sets for jobs whose
 * attributes.system.queue names it; the other keys keep their top-level
 * value.  A job in a queue without a block gets the top-level limits.
 *
 * How a job is counted (over the whole job, from the smallest acceptable
 * value of every count when counts are ranges, as the jobspec facts are):
 *   nodes   the node vertices it names (rp_jobspec_facts nnodes: 0 for a
 *           job that names no node, which no max-nodes limit rejects);
 *   cores, gpus  the instances of every core / gpu vertex
 *           (rp_jobspec_resource_total summed over the tree, which for a
 *           V1 jobspec is nslots * cores_per_slot, and stays right when
 *           slots differ in shape);
 *   tasks   rp_jobspec_facts ntasks;
 *   duration  attributes.system.duration; 0 (unlimited) is above any
 *           max-duration, as in flux-core's duration limit.
 * The checks run in that order and the first one exceeded rejects the job:
 *   requests 8 nodes, limit is 4 (queue debug)
 * naming the queue when the limit comes from that queue's block.
 *
 * Decisions: counts are integers >= 0 (max-gpus: 0 keeps a queue free of
 * GPU jobs); max-duration is > 0, parsed strictly as in require-duration;
 * a block with no limit anywhere is a configuration error (it would do
 * nothing); a queue block cannot lift a top-level limit, only set another
 * value.
 *
 * Built as a site builds its own plugin: respol/plugin.h only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/plugin.h>

#include "count.h"
#include "duration.h"

enum { NODES, CORES, GPUS, TASKS, NCOUNTS };

static const char *const count_key[NCOUNTS] = { "max-nodes", "max-cores",
                                                "max-gpus", "max-tasks" };
static const char *const count_noun[NCOUNTS] = { "node", "core", "GPU",
                                                 "task" };

/* The limits of the top level or of one queue. */
struct limits {
    int64_t count[NCOUNTS]; /* -1: no limit */
    double duration;        /* 0: no limit */
    bool own[NCOUNTS + 1];  /* set by the queue's block ([NCOUNTS]:
                             * duration) */
};

struct queue {
    char *name;
    struct limits l;
};

struct conf {
    struct limits top;
    size_t nqueues;
    struct queue *queues;
};

static const struct rp_host_services *svc;

/* --- configuration ------------------------------------------------------ */

/* The path of a key in a queue's block (queue NULL: at the top level), as
 * three "%s" arguments: "queues." queue "." */
#define IN_QUEUE(queue)                                                        \
    (queue) ? "queues." : "", (queue) ? (queue) : "", (queue) ? "." : ""

static int read_duration (struct rp_plugin *p, const char *queue,
                          const char *key, const json_t *v, double *d)
{
    if (json_is_number (v))
        *d = json_number_value (v);
    else if (!json_is_string (v))
        return svc->error (p,
                           "%s%s%s%s: must be a number of seconds or a "
                           "duration such as 30s, 5m, 2h or 1d",
                           IN_QUEUE (queue), key);
    else if (duration_parse (json_string_value (v), d) < 0)
        return svc->error (p, "%s%s%s%s: invalid duration '%s'",
                           IN_QUEUE (queue), key, json_string_value (v));
    if (!(*d > 0))
        return svc->error (p, "%s%s%s%s: must be > 0", IN_QUEUE (queue), key);
    return 0;
}

/* Read value v of key into l (queue NULL: at the top level).  1 when key is
 * not a limit key, 0 when read, -1 after an error. */
static int read_limit (struct rp_plugin *p, const char *queue, const char *key,
                       const json_t *v, struct limits *l)
{
    for (int i = 0; i < NCOUNTS; i++) {
        if (strcmp (key, count_key[i]) != 0)
            continue;
        if (!json_is_integer (v) || json_integer_value (v) < 0)
            return svc->error (p, "%s%s%s%s: must be an integer >= 0",
                               IN_QUEUE (queue), key);
        l->count[i] = json_integer_value (v);
        l->own[i] = true;
        return 0;
    }
    if (strcmp (key, "max-duration") != 0)
        return 1;
    if (read_duration (p, queue, key, v, &l->duration) < 0)
        return -1;
    l->own[NCOUNTS] = true;
    return 0;
}

static void limits_clear (struct limits *l)
{
    memset (l, 0, sizeof (*l));
    for (int i = 0; i < NCOUNTS; i++)
        l->count[i] = -1;
}

/* Read queue q's block o (a mapping or null). */
static int read_queue (struct rp_plugin *p, const json_t *o, struct queue *q)
{
    const char *key;
    json_t *v;
    int rc;

    if (!json_is_object (o) && !json_is_null (o))
        return svc->error (p, "queues.%s: must be a mapping", q->name);
    json_object_foreach ((json_t *)o, key, v) {
        if ((rc = read_limit (p, q->name, key, v, &q->l)) < 0)
            return -1;
        if (rc > 0)
            return svc->error (p, "queues.%s: unknown key '%s'", q->name, key);
    }
    return 0;
}

static int read_queues (struct rp_plugin *p, const json_t *o, struct conf *c)
{
    const char *name;
    json_t *v;

    if (!json_is_object (o))
        return svc->error (p, "queues: must be a mapping");
    if (!(c->queues = calloc (json_object_size (o) + 1, sizeof (*c->queues))))
        return svc->error (p, "out of memory");
    json_object_foreach ((json_t *)o, name, v) {
        struct queue *q = &c->queues[c->nqueues];
        if (!*name)
            return svc->error (p, "queues: a queue name is empty");
        if (!(q->name = strdup (name)))
            return svc->error (p, "out of memory");
        c->nqueues++;
        limits_clear (&q->l);
        if (read_queue (p, v, q) < 0)
            return -1;
    }
    return 0;
}

/* Give every queue the top-level limits it does not set itself. */
static void inherit (struct conf *c)
{
    for (size_t i = 0; i < c->nqueues; i++) {
        struct limits *l = &c->queues[i].l;
        for (int k = 0; k < NCOUNTS; k++) {
            if (!l->own[k])
                l->count[k] = c->top.count[k];
        }
        if (!l->own[NCOUNTS])
            l->duration = c->top.duration;
    }
}

/* Is there any limit at all? */
static bool any_limit (const struct conf *c)
{
    for (size_t i = 0; i <= c->nqueues; i++) {
        const struct limits *l = i < c->nqueues ? &c->queues[i].l : &c->top;
        for (int k = 0; k <= NCOUNTS; k++) {
            if (l->own[k])
                return true;
        }
    }
    return false;
}

/* The top-level keys, declared in the descriptor: the host refuses any
 * other, so every key but queues is a limit.  A queue's block is checked
 * here. */
static const char *const config_keys[] = {
    "max-nodes",    "max-cores", "max-gpus", "max-tasks",
    "max-duration", "queues",    NULL,
};

static int read_conf (struct rp_plugin *p, const json_t *cfg, struct conf *c)
{
    const char *key;
    json_t *v;
    int rc;

    limits_clear (&c->top);
    json_object_foreach ((json_t *)cfg, key, v) {
        if (strcmp (key, "queues") == 0)
            rc = read_queues (p, v, c);
        else
            rc = read_limit (p, NULL, key, v, &c->top);
        if (rc < 0)
            return -1;
    }
    if (!any_limit (c))
        return svc->error (p, "no limit is configured (max-nodes, max-cores, "
                              "max-gpus, max-tasks, max-duration, queues)");
    inherit (c);
    return 0;
}

static void conf_destroy (struct conf *c)
{
    if (c) {
        int saved = errno;
        for (size_t i = 0; i < c->nqueues; i++)
            free (c->queues[i].name);
        free (c->queues);
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

static const struct queue *find_queue (const struct conf *c, const char *name)
{
    for (size_t i = 0; name && i < c->nqueues; i++) {
        if (strcmp (c->queues[i].name, name) == 0)
            return &c->queues[i];
    }
    return NULL;
}

static int check_duration (const struct rp_jobspec *js, const struct limits *l,
                           const char *queue, struct rp_validation *v)
{
    double d = rp_jobspec_duration (js);
    bool own = queue && l->own[NCOUNTS];
    char a[DURATION_TEXT], b[DURATION_TEXT];

    if (l->duration == 0 || (d > 0 && d <= l->duration))
        return RP_ACCEPT;
    if (d == 0)
        return rp_validation_reject (
            v, "requests an unlimited duration, limit is %s%s%s%s",
            duration_text (l->duration, b), own ? " (queue " : "",
            own ? queue : "", own ? ")" : "");
    return rp_validation_reject (
        v, "requests a duration of %s, limit is %s%s%s%s", duration_text (d, a),
        duration_text (l->duration, b), own ? " (queue " : "", own ? queue : "",
        own ? ")" : "");
}

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    const struct conf *c = svc->get_data (p);
    const struct rp_jobspec_facts *f = rp_jobspec_facts (js);
    const struct queue *q = find_queue (c, rp_jobspec_queue (js));
    const struct limits *l = q ? &q->l : &c->top;
    uint64_t req[NCOUNTS] = { f->nnodes, 0, 0, f->ntasks };

    count_cores_gpus (rp_jobspec_resource_first (js), &req[CORES], &req[GPUS]);
    for (int k = 0; k < NCOUNTS; k++) {
        bool own = q && l->own[k];
        if (l->count[k] < 0 || req[k] <= (uint64_t)l->count[k])
            continue;
        return rp_validation_reject (
            v, "requests %" PRIu64 " %s%s, limit is %" PRId64 "%s%s%s", req[k],
            count_noun[k], req[k] == 1 ? "" : "s", l->count[k],
            own ? " (queue " : "", own ? q->name : "", own ? ")" : "");
    }
    return check_duration (js, l, q ? q->name : NULL, v);
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "limits",
    .description = "limit the nodes, cores, GPUs, tasks and duration of a "
                   "job, per queue",
    .version = "0.1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
    .config_keys = config_keys,
};
