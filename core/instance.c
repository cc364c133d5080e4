/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The jobs of an instance and per-user and per-account usage; see
 * api/respol/instance.h.
 *
 * Jobs live in a hash map by id and in a doubly linked list in
 * submission order.  The map is open addressing on the id itself
 * (Fibonacci hashing, linear probing, removal by backward shift, so no
 * tombstones): a lookup is a multiply and a compare or two, where a
 * string map keyed by the id in decimal cost a conversion, a hash of the
 * digits, a strcmp and a copy of the key per job.
 *
 * Usage is one record per user ("u" and the uid in decimal) and per
 * account ("a" and its name) in a second map, adjusted by the job's
 * contribution on every state change: a job contributes 1 pending job
 * while pending or held, and 1 running job plus the targets, cores and
 * GPUs of its R while running.  A job finds its records once, when it is
 * submitted, and keeps pointers to them: a record cannot fall to zero
 * while a job points at it, since every state contributes a job, so a
 * transition adjusts them in place and cannot fail.  A record that falls
 * back to all zeros when a job finishes is removed, so the map follows
 * the users and accounts that have jobs, not every one ever seen.
 *
 * Events are delivered after the change is applied and its usage
 * counted, through the configuration's stacks (config_job_event).
 */
#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/instance.h"

#include "core/context_private.h"
#include "core/plugin_private.h"
#include "core/strmap.h"

#define NITEMS 5

struct usage {
    uint64_t v[NITEMS];
};

struct rp_job {
    uint64_t id;
    int state;
    struct rp_context *ctx; /* a copy in j's block, after the struct */
    struct rp_jobspec *js;
    struct rp_rset *R;
    char *reason;
    struct rp_job *prev, *next;
    struct usage *rec[2]; /* its user's and account's usage (NULL: none) */
};

/* Where a job's context lies in its block: after the struct, aligned for
 * any type. */
#define CTX_AT                                                                 \
    ((sizeof (struct rp_job) + _Alignof (max_align_t) - 1)                     \
     & ~(_Alignof (max_align_t) - 1))

/* Jobs by id: size a power of two (1 << bits), at most half full. */
struct jobmap {
    struct rp_job **slot;
    size_t size;
    size_t count;
    unsigned bits;
};

struct rp_instance {
    const struct rp_config *cfg;
    struct jobmap jobs;
    struct strmap *usage; /* "u<uid>" / "a<account>" -> struct usage */
    struct rp_job *first, *last;
};

static const char *const state_names[] = { NULL, "pending", "held",
                                           "running" };
static const char *const event_names[] = { NULL,      "accepted", "held",
                                           "released", "started", "finished" };

const char *rp_job_state_name (int state)
{
    return state >= 1 && state <= 3 ? state_names[state] : NULL;
}

const char *rp_job_event_name (int event)
{
    return event >= 1 && event <= 5 ? event_names[event] : NULL;
}

/* --- jobs by id ---------------------------------------------------------- */

#define JOBMAP_BITS0 4

static int jobmap_init (struct jobmap *map)
{
    map->bits = JOBMAP_BITS0;
    map->size = (size_t)1 << map->bits;
    map->count = 0;
    map->slot = calloc (map->size, sizeof (*map->slot));
    return map->slot ? 0 : -1;
}

static size_t jobmap_home (const struct jobmap *map, uint64_t id)
{
    return (size_t)((id * 0x9e3779b97f4a7c15ULL) >> (64 - map->bits));
}

/* The slot of id, or the empty slot where it would go. */
static size_t jobmap_pos (const struct jobmap *map, uint64_t id)
{
    size_t mask = map->size - 1;
    size_t i = jobmap_home (map, id);

    while (map->slot[i] && map->slot[i]->id != id)
        i = (i + 1) & mask;
    return i;
}

static struct rp_job *jobmap_get (const struct jobmap *map, uint64_t id)
{
    return map->slot[jobmap_pos (map, id)];
}

static int jobmap_grow (struct jobmap *map)
{
    struct jobmap bigger = { .bits = map->bits + 1 };

    bigger.size = (size_t)1 << bigger.bits;
    if (!(bigger.slot = calloc (bigger.size, sizeof (*bigger.slot))))
        return -1;
    for (size_t i = 0; i < map->size; i++)
        if (map->slot[i])
            bigger.slot[jobmap_pos (&bigger, map->slot[i]->id)] = map->slot[i];
    bigger.count = map->count;
    free (map->slot);
    *map = bigger;
    return 0;
}

/* Put j, whose id is absent.  -1 out of memory, nothing changed. */
static int jobmap_put (struct jobmap *map, struct rp_job *j)
{
    if ((map->count + 1) * 2 > map->size && jobmap_grow (map) < 0)
        return -1;
    map->slot[jobmap_pos (map, j->id)] = j;
    map->count++;
    return 0;
}

/* Remove id (present): the entries after it in its run move back to
 * where a lookup finds them without it. */
static void jobmap_remove (struct jobmap *map, uint64_t id)
{
    size_t mask = map->size - 1;
    size_t hole = jobmap_pos (map, id);

    map->slot[hole] = NULL;
    map->count--;
    for (size_t i = (hole + 1) & mask; map->slot[i]; i = (i + 1) & mask) {
        size_t home = jobmap_home (map, map->slot[i]->id);
        /* it stays when its home lies cyclically in (hole, i] */
        if (hole < i ? home > hole && home <= i : home > hole || home <= i)
            continue;
        map->slot[hole] = map->slot[i];
        map->slot[i] = NULL;
        hole = i;
    }
}

/* --- create, destroy ------------------------------------------------------ */

struct rp_instance *rp_instance_create (const struct rp_config *cfg)
{
    struct rp_instance *in = calloc (1, sizeof (*in));

    if (!in)
        return NULL;
    in->cfg = cfg;
    if (jobmap_init (&in->jobs) < 0 || !(in->usage = strmap_create ())) {
        rp_instance_destroy (in);
        errno = ENOMEM;
        return NULL;
    }
    return in;
}

static void job_free (struct rp_job *j)
{
    if (j) {
        /* j->ctx lies in j's block, never given to a setter */
        rp_jobspec_destroy (j->js);
        rp_rset_destroy (j->R);
        free (j->reason);
        free (j);
    }
}

static void free_value (void *value, void *arg)
{
    (void)arg;
    free (value);
}

void rp_instance_destroy (struct rp_instance *in)
{
    int saved_errno = errno;

    if (in) {
        struct rp_job *j = in->first;
        while (j) {
            struct rp_job *next = j->next;
            job_free (j);
            j = next;
        }
        free (in->jobs.slot);
        strmap_each (in->usage, free_value, NULL);
        strmap_destroy (in->usage);
        free (in);
    }
    errno = saved_errno;
}

/* --- usage -------------------------------------------------------------- */

/* prefix (one character) and v in decimal at buf, which holds 22 bytes:
 * what snprintf "%c%" PRIu64 writes, without its cost on every job's
 * every transition. */
static void u64_key (char *buf, char prefix, uint64_t v)
{
    char digits[20];
    size_t n = 0;

    do
        digits[n++] = (char)('0' + v % 10);
    while ((v /= 10));
    *buf++ = prefix;
    while (n > 0)
        *buf++ = digits[--n];
    *buf = '\0';
}

/* What j adds to its user's and account's usage in its current state. */
static void contribution (const struct rp_job *j, struct usage *u)
{
    memset (u, 0, sizeof (*u));
    if (j->state == RP_JOB_PENDING || j->state == RP_JOB_HELD)
        u->v[RP_USAGE_PENDING_JOBS] = 1;
    else if (j->state == RP_JOB_RUNNING) {
        ssize_t cores = rp_rset_count (j->R, "core");
        ssize_t gpus = rp_rset_count (j->R, "gpu");
        u->v[RP_USAGE_RUNNING_JOBS] = 1;
        u->v[RP_USAGE_NODES] = rp_rset_ntargets (j->R);
        u->v[RP_USAGE_CORES] = cores > 0 ? (uint64_t)cores : 0;
        u->v[RP_USAGE_GPUS] = gpus > 0 ? (uint64_t)gpus : 0;
    }
}

static bool all_zero (const struct usage *u)
{
    for (int i = 0; i < NITEMS; i++)
        if (u->v[i])
            return false;
    return true;
}

/* The usage keys of j: its user's and its account's (absent: ""). */
static void usage_keys (const struct rp_job *j, char *user, char *account,
                        size_t size)
{
    uint32_t uid;
    const char *a = rp_context_account (j->ctx);

    user[0] = account[0] = '\0';
    if (rp_context_uid (j->ctx, &uid))
        u64_key (user, 'u', uid);
    if (a) {
        size_t len = strnlen (a, size - 2);
        account[0] = 'a';
        memcpy (account + 1, a, len);
        account[len + 1] = '\0';
    }
}

/* The record of key, made (all zeros) when there is none: NULL out of
 * memory.  *made says whether it was. */
static struct usage *usage_record (struct rp_instance *in, const char *key,
                                   bool *made)
{
    struct usage *u = strmap_get (in->usage, key);

    *made = !u;
    if (u)
        return u;
    if (!(u = calloc (1, sizeof (*u))))
        return NULL;
    if (strmap_put (in->usage, key, u) < 0) {
        free (u);
        return NULL;
    }
    return u;
}

/* Add c to u (sign 1), or take it away (sign -1). */
static void usage_add (struct usage *u, const struct usage *c, int sign)
{
    for (int i = 0; i < NITEMS; i++)
        u->v[i] = sign > 0 ? u->v[i] + c->v[i] : u->v[i] - c->v[i];
}

/* Drop the record of key when it is all zeros. */
static void usage_drop_zero (struct rp_instance *in, const char *key,
                             struct usage *u)
{
    if (u && all_zero (u))
        free (strmap_remove (in->usage, key));
}

/* A new job j counts in: its records found (or made) once, kept in j and
 * adjusted there on every transition, so a transition looks nothing up.
 * A record never falls to zero while a job points at it: a job in any
 * state adds 1 pending or 1 running job.  -1 with ENOMEM, nothing
 * changed. */
static int usage_join (struct rp_instance *in, struct rp_job *j)
{
    char key[2][RP_CONTEXT_NAME_MAX + 2];
    struct usage c;
    bool made;

    usage_keys (j, key[0], key[1], sizeof (key[1]));
    for (int k = 0; k < 2; k++) {
        if (!key[k][0])
            continue;
        if (!(j->rec[k] = usage_record (in, key[k], &made))) {
            if (k == 1)
                usage_drop_zero (in, key[0], j->rec[0]);
            j->rec[0] = NULL;
            return -1;
        }
    }
    contribution (j, &c);
    for (int k = 0; k < 2; k++)
        if (j->rec[k])
            usage_add (j->rec[k], &c, 1);
    return 0;
}

/* j, leaving, counts out; a record left at zeros is dropped. */
static void usage_leave (struct rp_instance *in, struct rp_job *j)
{
    char key[2][RP_CONTEXT_NAME_MAX + 2];
    struct usage c;

    contribution (j, &c);
    usage_keys (j, key[0], key[1], sizeof (key[1]));
    for (int k = 0; k < 2; k++)
        if (j->rec[k]) {
            usage_add (j->rec[k], &c, -1);
            usage_drop_zero (in, key[k], j->rec[k]);
            j->rec[k] = NULL;
        }
}

/* Move j to state (with R, reason: taken), its records adjusted by the
 * change of its contribution. */
static void transition (struct rp_job *j, int state, struct rp_rset *R,
                        char *reason)
{
    struct usage was, now;

    contribution (j, &was);
    if (j->R != R)
        rp_rset_destroy (j->R);
    if (j->reason != reason)
        free (j->reason);
    j->state = state;
    j->R = R;
    j->reason = reason;
    contribution (j, &now);
    for (int k = 0; k < 2; k++)
        if (j->rec[k]) {
            usage_add (j->rec[k], &was, -1);
            usage_add (j->rec[k], &now, 1);
        }
}

static void event (struct rp_instance *in, int ev, const struct rp_job *j)
{
    if (in->cfg)
        config_job_event (in->cfg, ev, j);
}

/* --- the host side ------------------------------------------------------ */

static struct rp_job *lookup (const struct rp_instance *in, uint64_t id)
{
    return jobmap_get (&in->jobs, id);
}

int rp_instance_submit (struct rp_instance *in, uint64_t id,
                        const struct rp_context *ctx, struct rp_jobspec *js,
                        rp_error_t *error)
{
    struct rp_job *j;

    if (!in) {
        rp_jobspec_destroy (js);
        return rp_error_set (error, EINVAL, "invalid argument");
    }
    if (lookup (in, id)) {
        rp_jobspec_destroy (js);
        return rp_error_set (error, EEXIST, "job %" PRIu64 " exists", id);
    }
    /* the record and a copy of its context in one block (malloc, not
     * calloc: calloc costs more) */
    if (!ctx)
        ctx = context_empty ();
    if (!(j = malloc (CTX_AT + context_copy_size (ctx)))) {
        rp_jobspec_destroy (js);
        return rp_error_set (error, ENOMEM, "out of memory");
    }
    *j = (struct rp_job){ 0 };
    j->ctx = context_copy_at (ctx, (char *)j + CTX_AT);
    j->id = id;
    j->js = js;
    j->state = RP_JOB_PENDING;
    if (jobmap_put (&in->jobs, j) < 0) {
        job_free (j);
        return rp_error_set (error, ENOMEM, "out of memory");
    }
    if (usage_join (in, j) < 0) {
        jobmap_remove (&in->jobs, id);
        job_free (j);
        return rp_error_set (error, ENOMEM, "out of memory");
    }
    j->prev = in->last;
    if (in->last)
        in->last->next = j;
    else
        in->first = j;
    in->last = j;
    event (in, RP_EVENT_ACCEPTED, j);
    return 0;
}

/* The job id in a state of mask (1 << state), or NULL with error. */
static struct rp_job *job_in (struct rp_instance *in, uint64_t id,
                              unsigned mask, rp_error_t *error)
{
    struct rp_job *j = in ? lookup (in, id) : NULL;

    if (!in)
        return rp_error_set (error, EINVAL, "invalid argument"), NULL;
    if (!j)
        return rp_error_set (error, ENOENT, "job %" PRIu64 ": no such job",
                             id),
               NULL;
    if (!(mask & (1u << j->state)))
        return rp_error_set (error, EINVAL, "job %" PRIu64 " is %s", id,
                             rp_job_state_name (j->state)),
               NULL;
    return j;
}

#define MASK(s) (1u << (s))

int rp_instance_hold (struct rp_instance *in, uint64_t id, const char *reason,
                      rp_error_t *error)
{
    struct rp_job *j;
    char *copy;

    if (!reason || !*reason)
        return rp_error_set (error, EINVAL, "a hold needs a reason");
    if (!(j = job_in (in, id, MASK (RP_JOB_PENDING) | MASK (RP_JOB_HELD),
                      error)))
        return -1;
    if (!(copy = strdup (reason)))
        return rp_error_set (error, ENOMEM, "out of memory");
    transition (j, RP_JOB_HELD, NULL, copy);
    event (in, RP_EVENT_HELD, j);
    return 0;
}

int rp_instance_release (struct rp_instance *in, uint64_t id,
                         rp_error_t *error)
{
    struct rp_job *j = job_in (in, id, MASK (RP_JOB_HELD), error);

    if (!j)
        return -1;
    transition (j, RP_JOB_PENDING, NULL, NULL);
    event (in, RP_EVENT_RELEASED, j);
    return 0;
}

static int run_with (struct rp_instance *in, struct rp_job *j,
                     const struct rp_rset *R, rp_error_t *error)
{
    struct rp_rset *copy;

    if (!R)
        return rp_error_set (error, EINVAL, "invalid argument");
    if (!(copy = rp_rset_copy (R)))
        return rp_error_set (error, ENOMEM, "out of memory");
    transition (j, RP_JOB_RUNNING, copy, NULL);
    return 0;
}

int rp_instance_start (struct rp_instance *in, uint64_t id,
                       const struct rp_rset *R, rp_error_t *error)
{
    struct rp_job *j = job_in (in, id, MASK (RP_JOB_PENDING), error);

    if (!j || run_with (in, j, R, error) < 0)
        return -1;
    event (in, RP_EVENT_STARTED, j);
    return 0;
}

int rp_instance_start_take (struct rp_instance *in, uint64_t id,
                            struct rp_rset *R, rp_error_t *error)
{
    struct rp_job *j = job_in (in, id, MASK (RP_JOB_PENDING), error);

    if (!j || !R) {
        rp_rset_destroy (R);
        return j ? rp_error_set (error, EINVAL, "invalid argument") : -1;
    }
    transition (j, RP_JOB_RUNNING, R, NULL);
    event (in, RP_EVENT_STARTED, j);
    return 0;
}

int rp_instance_update (struct rp_instance *in, uint64_t id,
                        const struct rp_rset *R, rp_error_t *error)
{
    struct rp_job *j = job_in (in, id, MASK (RP_JOB_RUNNING), error);

    return j ? run_with (in, j, R, error) : -1;
}

int rp_instance_finish (struct rp_instance *in, uint64_t id,
                        rp_error_t *error)
{
    struct rp_job *j = job_in (
        in, id, MASK (RP_JOB_PENDING) | MASK (RP_JOB_HELD) | MASK (RP_JOB_RUNNING),
        error);

    if (!j)
        return -1;
    usage_leave (in, j);
    event (in, RP_EVENT_FINISHED, j);
    jobmap_remove (&in->jobs, id);
    if (j->prev)
        j->prev->next = j->next;
    else
        in->first = j->next;
    if (j->next)
        j->next->prev = j->prev;
    else
        in->last = j->prev;
    job_free (j);
    return 0;
}

/* --- reading ------------------------------------------------------------ */

const struct rp_job *rp_instance_job (const struct rp_instance *in,
                                      uint64_t id)
{
    const struct rp_job *j = in ? lookup (in, id) : NULL;

    if (!j)
        errno = ENOENT;
    return j;
}

size_t rp_instance_njobs (const struct rp_instance *in)
{
    return in ? in->jobs.count : 0;
}

const struct rp_job *rp_instance_first (const struct rp_instance *in)
{
    return in ? in->first : NULL;
}

const struct rp_job *rp_instance_next (const struct rp_job *j)
{
    return j ? j->next : NULL;
}

static uint64_t usage_get (const struct rp_instance *in, const char *key,
                           int item)
{
    const struct usage *u;

    if (!in || item < 0 || item >= NITEMS)
        return 0;
    u = strmap_get (in->usage, key);
    return u ? u->v[item] : 0;
}

uint64_t rp_instance_user_usage (const struct rp_instance *in, uint32_t uid,
                                 int item)
{
    char key[32];

    snprintf (key, sizeof (key), "u%" PRIu32, uid);
    return usage_get (in, key, item);
}

uint64_t rp_instance_account_usage (const struct rp_instance *in,
                                    const char *account, int item)
{
    char key[RP_CONTEXT_NAME_MAX + 2];

    if (!account || !*account
        || (size_t)snprintf (key, sizeof (key), "a%s", account)
               >= sizeof (key))
        return 0;
    return usage_get (in, key, item);
}

uint64_t rp_job_id (const struct rp_job *j)
{
    return j ? j->id : 0;
}

int rp_job_state (const struct rp_job *j)
{
    return j ? j->state : 0;
}

const struct rp_context *rp_job_context (const struct rp_job *j)
{
    return j ? j->ctx : NULL;
}

const struct rp_jobspec *rp_job_jobspec (const struct rp_job *j)
{
    return j ? j->js : NULL;
}

const struct rp_rset *rp_job_R (const struct rp_job *j)
{
    return j && j->state == RP_JOB_RUNNING ? j->R : NULL;
}

const char *rp_job_hold_reason (const struct rp_job *j)
{
    return j && j->state == RP_JOB_HELD ? j->reason : NULL;
}
