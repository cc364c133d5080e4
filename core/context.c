/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The submission context (api/respol/context.h): who submits a job.
 *
 * Decisions a reader would otherwise rediscover:
 * - A user given as digits is a uid, as in chown(1): a name made only of
 *   digits cannot be named that way (POSIX advises against such names).
 *   uid 4294967295 ((uid_t)-1) is refused: it means "no uid" to the
 *   kernel.
 * - Users and groups are looked up with the reentrant calls, once, when
 *   the user is set: plugins read copies, so a callback never waits on
 *   NSS (LDAP, sssd) and the answer cannot change under a running stack.
 * - Groups: getgrouplist (the primary group and the supplementary groups
 *   the database lists), at most RP_CONTEXT_MAX_GROUPS; a user in more
 *   groups keeps the first ones and the count says so.
 * - A copy is one allocation: the struct, then its groups and strings
 *   (inblock says which fields lie there, so a setter frees only the
 *   others).  One block is one malloc and one free where the fields cost
 *   up to five of each; the instance puts a job's copy in the job
 *   record's own block (context_copy_at).
 */
#include <errno.h>
#include <grp.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "respol/context.h"

#include "core/context_private.h"

#define RP_CONTEXT_MAX_GROUPS 4096

struct rp_context {
    int origin;
    bool has_uid;
    uint32_t uid;
    char *user;
    uint32_t *groups;
    size_t ngroups;
    char *account;
    char *queue;
    bool has_jobid;
    uint64_t jobid;
    bool has_submit_time;
    double submit_time;
    uint8_t inblock; /* IN_*: fields in the struct's own block (a copy) */
};

enum { IN_USER = 1, IN_GROUPS = 2, IN_ACCOUNT = 4, IN_QUEUE = 8 };

/* Free field p unless it lies in c's block. */
static void drop (struct rp_context *c, void *p, uint8_t bit)
{
    if (!(c->inblock & bit))
        free (p);
    c->inblock &= (uint8_t)~bit;
}

static const char *const origin_names[] = { "unknown", "command", "flux",
                                            "slurm", "simulator" };
#define NORIGINS (sizeof (origin_names) / sizeof (origin_names[0]))

const struct rp_context *context_empty (void)
{
    static const struct rp_context empty = { .origin = RP_ORIGIN_UNKNOWN };
    return &empty;
}

const char *rp_context_origin_name (int origin)
{
    if (origin < 0 || (size_t)origin >= NORIGINS)
        return NULL;
    return origin_names[origin];
}

struct rp_context *rp_context_create (int origin)
{
    struct rp_context *c;

    if (!rp_context_origin_name (origin)) {
        errno = EINVAL;
        return NULL;
    }
    if (!(c = calloc (1, sizeof (*c))))
        return NULL;
    c->origin = origin;
    return c;
}

static void clear_user (struct rp_context *c)
{
    drop (c, c->user, IN_USER);
    drop (c, c->groups, IN_GROUPS);
    c->user = NULL;
    c->groups = NULL;
    c->ngroups = 0;
    c->has_uid = false;
}

void rp_context_destroy (struct rp_context *c)
{
    int saved_errno = errno;

    if (c) {
        clear_user (c);
        drop (c, c->account, IN_ACCOUNT);
        drop (c, c->queue, IN_QUEUE);
        free (c);
    }
    errno = saved_errno;
}

/* src at *at, moved past it: the copy, or NULL for NULL. */
static char *put_string (char **at, const char *src)
{
    char *s = *at;
    size_t len;

    if (!src)
        return NULL;
    len = strlen (src);
    memcpy (s, src, len + 1);
    *at += len + 1;
    return s;
}

size_t context_copy_size (const struct rp_context *c)
{
    return sizeof (*c) + c->ngroups * sizeof (uint32_t)
           + (c->user ? strlen (c->user) + 1 : 0)
           + (c->account ? strlen (c->account) + 1 : 0)
           + (c->queue ? strlen (c->queue) + 1 : 0);
}

struct rp_context *context_copy_at (const struct rp_context *c, void *mem)
{
    struct rp_context *n = mem;
    char *at;

    *n = *c;
    n->inblock = IN_USER | IN_GROUPS | IN_ACCOUNT | IN_QUEUE;
    n->groups = c->ngroups > 0 ? (uint32_t *)(n + 1) : NULL;
    if (c->ngroups > 0)
        memcpy (n->groups, c->groups, c->ngroups * sizeof (uint32_t));
    at = (char *)(n + 1) + c->ngroups * sizeof (uint32_t);
    n->user = put_string (&at, c->user);
    n->account = put_string (&at, c->account);
    n->queue = put_string (&at, c->queue);
    return n;
}

struct rp_context *rp_context_copy (const struct rp_context *c)
{
    struct rp_context *n;

    if (!c) {
        errno = EINVAL;
        return NULL;
    }
    if (!(n = malloc (context_copy_size (c))))
        return NULL;
    return context_copy_at (c, n);
}

/* --- the user ----------------------------------------------------------- */

/* "123" -> 123; false for anything else (empty, sign, letters, too big,
 * (uid_t)-1). */
static bool parse_uid (const char *s, uint32_t *uid)
{
    unsigned long long v = 0;

    if (!*s)
        return false;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        v = v * 10 + (unsigned long long)(*p - '0');
        if (v >= UINT32_MAX)
            return false;
    }
    *uid = (uint32_t)v;
    return true;
}

static bool all_digits_or_sign (const char *s)
{
    for (; *s; s++)
        if ((*s < '0' || *s > '9') && *s != '-' && *s != '+')
            return false;
    return true;
}

/* Look the user up by name (name != NULL) or uid.  0 with *pw filled (buf
 * holds its strings), 1 when the database has no such user, -1 on error. */
static int lookup (const char *name, uid_t uid, struct passwd *pw, char **buf)
{
    long hint = sysconf (_SC_GETPW_R_SIZE_MAX);
    size_t size = hint > 0 ? (size_t)hint : 4096;
    struct passwd *result = NULL;

    for (;;) {
        int rc;
        char *nbuf = realloc (*buf, size);
        if (!nbuf)
            return -1;
        *buf = nbuf;
        rc = name ? getpwnam_r (name, pw, *buf, size, &result)
                  : getpwuid_r (uid, pw, *buf, size, &result);
        if (rc == ERANGE && size < (1u << 20)) {
            size *= 2;
            continue;
        }
        if (rc == 0 || rc == ENOENT || rc == ESRCH || rc == EBADF
            || rc == EPERM)
            return result ? 0 : 1;
        errno = rc;
        return -1;
    }
}

static int set_groups (struct rp_context *c, const char *name, gid_t gid)
{
    int n = 32;
    gid_t *g = NULL;

    for (;;) {
        int want = n;
        gid_t *ng = realloc (g, (size_t)n * sizeof (gid_t));
        if (!ng) {
            free (g);
            return -1;
        }
        g = ng;
        if (getgrouplist (name, gid, g, &want) >= 0) {
            n = want;
            break;
        }
        if (want <= n || n >= RP_CONTEXT_MAX_GROUPS) {
            n = n < RP_CONTEXT_MAX_GROUPS ? n : RP_CONTEXT_MAX_GROUPS;
            break;
        }
        n = want < RP_CONTEXT_MAX_GROUPS ? want : RP_CONTEXT_MAX_GROUPS;
    }
    if (!(c->groups = malloc ((size_t)n * sizeof (uint32_t)))) {
        free (g);
        return -1;
    }
    for (int i = 0; i < n; i++)
        c->groups[i] = (uint32_t)g[i];
    c->ngroups = (size_t)n;
    free (g);
    return 0;
}

int rp_context_set_user (struct rp_context *c, const char *user,
                         rp_error_t *error)
{
    struct passwd pw;
    char *buf = NULL;
    uint32_t uid = 0;
    bool by_uid;
    int rc;

    if (!c || !user || !*user)
        return rp_error_set (error, EINVAL, "user: empty value");
    by_uid = parse_uid (user, &uid);
    if (!by_uid && all_digits_or_sign (user))
        return rp_error_set (error, EINVAL, "user '%s': not a name or a uid",
                             user);
    if ((rc = lookup (by_uid ? NULL : user, (uid_t)uid, &pw, &buf)) < 0) {
        int saved_errno = errno;
        free (buf);
        return rp_error_set (error, saved_errno, "user '%s': %s", user,
                             strerror (saved_errno));
    }
    if (rc == 1 && !by_uid) {
        free (buf);
        return rp_error_set (error, ENOENT, "unknown user '%s'", user);
    }
    clear_user (c);
    c->has_uid = true;
    c->uid = rc == 0 ? (uint32_t)pw.pw_uid : uid;
    if (rc == 0
        && (!(c->user = strdup (pw.pw_name))
            || set_groups (c, pw.pw_name, pw.pw_gid) < 0)) {
        clear_user (c);
        free (buf);
        return rp_error_set (error, ENOMEM, "user '%s': out of memory", user);
    }
    free (buf);
    return 0;
}

int rp_context_set_caller (struct rp_context *c, rp_error_t *error)
{
    char s[16];

    snprintf (s, sizeof (s), "%lu", (unsigned long)geteuid ());
    return rp_context_set_user (c, s, error);
}

/* --- the other fields --------------------------------------------------- */

static int set_name (struct rp_context *c, char **field, uint8_t bit,
                     const char *value)
{
    char *s = NULL;

    if (!c || (value && (!*value || strlen (value) > RP_CONTEXT_NAME_MAX))) {
        errno = EINVAL;
        return -1;
    }
    if (value && *field && !strcmp (value, *field))
        return 0; /* a copy's name set again: nothing to allocate */
    if (value && !(s = strdup (value)))
        return -1;
    drop (c, *field, bit);
    *field = s;
    return 0;
}

int rp_context_set_account (struct rp_context *c, const char *account)
{
    return set_name (c, c ? &c->account : NULL, IN_ACCOUNT, account);
}

int rp_context_set_queue (struct rp_context *c, const char *queue)
{
    return set_name (c, c ? &c->queue : NULL, IN_QUEUE, queue);
}

void rp_context_set_jobid (struct rp_context *c, uint64_t jobid)
{
    if (c) {
        c->has_jobid = true;
        c->jobid = jobid;
    }
}

int rp_context_set_submit_time (struct rp_context *c, double t)
{
    if (!c || !isfinite (t) || t < 0) {
        errno = EINVAL;
        return -1;
    }
    c->has_submit_time = true;
    c->submit_time = t;
    return 0;
}

/* --- reading ------------------------------------------------------------ */

bool rp_context_uid (const struct rp_context *c, uint32_t *uid)
{
    if (!c || !c->has_uid)
        return false;
    if (uid)
        *uid = c->uid;
    return true;
}

const char *rp_context_user (const struct rp_context *c)
{
    return c ? c->user : NULL;
}

size_t rp_context_ngroups (const struct rp_context *c)
{
    return c ? c->ngroups : 0;
}

bool rp_context_group (const struct rp_context *c, size_t i, uint32_t *gid)
{
    if (!c || i >= c->ngroups)
        return false;
    if (gid)
        *gid = c->groups[i];
    return true;
}

bool rp_context_in_group (const struct rp_context *c, uint32_t gid)
{
    for (size_t i = 0; c && i < c->ngroups; i++)
        if (c->groups[i] == gid)
            return true;
    return false;
}

const char *rp_context_account (const struct rp_context *c)
{
    return c ? c->account : NULL;
}

const char *rp_context_queue (const struct rp_context *c)
{
    return c ? c->queue : NULL;
}

bool rp_context_jobid (const struct rp_context *c, uint64_t *jobid)
{
    if (!c || !c->has_jobid)
        return false;
    if (jobid)
        *jobid = c->jobid;
    return true;
}

bool rp_context_submit_time (const struct rp_context *c, double *t)
{
    if (!c || !c->has_submit_time)
        return false;
    if (t)
        *t = c->submit_time;
    return true;
}

int rp_context_origin (const struct rp_context *c)
{
    return c ? c->origin : RP_ORIGIN_UNKNOWN;
}
