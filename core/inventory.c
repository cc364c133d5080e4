/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The resource inventory and its event log; see api/respol/inventory.h.
 *
 * State: the targets of R in an array sorted by rank (a rank finds its
 * target by binary search, or at once when ranks are 0..n-1), each with
 * its flags (down, drained, removed), drain time and reason; reasons are
 * shared, reference-counted strings, so a drain of 16,384 targets keeps
 * one copy of its reason.  Beside the array, idsets of the drained, down,
 * removed and excluded targets are kept up to date, so the sets a
 * scheduler needs (rp_inventory_up) cost in ranges, not targets.
 *
 * Every change goes through one function per event (apply_*), used both
 * by the operations, after their checks and after the event is in the
 * log, and by replay, after the event's context is checked.  So what a
 * restart rebuilds is what the operations did.  Replay checks the shape of
 * every context (types, unknown keys, idsets within the inventory:
 * checked in ranges before any rank is visited, so "0-4294967294" costs
 * nothing) but not the preconditions of the operations: a log says what
 * happened.
 *
 * Decisions a reader would otherwise rediscover:
 * - drain and undrain carry flux-core's contexts, key order and overwrite
 *   levels, and replay applies them as flux-core's drain.c does (an
 *   "overwrite" missing from a drain means 1, as there).
 * - A redefinition keeps the state of a target whose host is in the new R:
 *   same rank if the host is still there, else the lowest rank of that
 *   host (flux-core's rule for drains, add_target in drain.c); drained
 *   targets that are now excluded are undrained (flux-core's
 *   reconcile_excluded).
 * - A reader that finds an incomplete last line warns; a writer repairs
 *   the log first (rp_eventlog_repair: a new file, renamed over), since
 *   appending after the fragment would glue the next event to it.
 * - Who added a property at run time: a property-add event whose context
 *   has "plugin" (a property plugin's instance name, respol/property.h)
 *   makes that instance the owner of the property on those targets.  Any
 *   property-remove (a plugin's or an administrator's) ends every
 *   ownership of what it removes (the name and, for a name without '@',
 *   its "name@..." forms, which rp_rset_property_remove removes too); a
 *   redefinition ends them all, as it resets R's properties.  So what an
 *   instance owns is always something R has, and compaction writes one
 *   property-add per owner beside the administrator's.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "respol/eventlog.h"
#include "respol/hostlist.h"
#include "respol/inventory.h"

#include "core/inventory_private.h"
#include "core/namedsets.h"

#define T_DOWN 1
#define T_DRAINED 2
#define T_REMOVED 4

struct reason {
    unsigned int refs;
    char text[];
};

struct target {
    unsigned int rank;
    uint8_t flags;
    double drain_time;
    struct reason *reason;
};

/* What a property plugin's instance added: per property, the targets. */
struct owned {
    char *owner;
    struct namedsets props;
};

struct rp_inventory {
    char *dir;
    char *logpath;
    int lockfd;
    struct rp_eventlog *log; /* positioned after the last event applied */
    struct rp_rset *conf;    /* R as defined */
    struct rp_rset *R;       /* R now: properties and expiration changed */
    char *method;
    struct rp_idset *exclude;
    struct rp_idset *drained;
    struct rp_idset *down;
    struct rp_idset *removed;
    struct target *t;
    size_t n;
    size_t nevents;
    struct owned *own;
    size_t nown;
};

static int nomem (rp_error_t *error)
{
    return rp_error_set (error, ENOMEM, "out of memory");
}

/* --- reasons ------------------------------------------------------------- */

static struct reason *reason_new (const char *text)
{
    struct reason *r;
    size_t len;

    if (!text)
        return NULL;
    len = strlen (text);
    if ((r = malloc (sizeof (*r) + len + 1))) {
        r->refs = 1;
        memcpy (r->text, text, len + 1);
    }
    return r;
}

static struct reason *reason_ref (struct reason *r)
{
    if (r)
        r->refs++;
    return r;
}

static void reason_unref (struct reason *r)
{
    if (r && --r->refs == 0)
        free (r);
}

/* --- targets ------------------------------------------------------------- */

static struct target *target_find (const struct rp_inventory *inv,
                                   unsigned int rank)
{
    size_t lo = 0, hi = inv->n;

    if (rank < inv->n && inv->t[rank].rank == rank)
        return &inv->t[rank];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (inv->t[mid].rank < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < inv->n && inv->t[lo].rank == rank ? &inv->t[lo] : NULL;
}

static void targets_free (struct target *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        reason_unref (t[i].reason);
    free (t);
}

/* set |= ids or set -= ids, range by range: O(ranges of ids x log ranges
 * of set) plus moves, where rp_idset_add_set and rp_idset_subtract build
 * a new set (O(ranges of set)): an event names a few targets, a set of
 * drained targets may hold thousands of ranges. */
static int set_change (struct rp_idset *set, const struct rp_idset *ids,
                       bool add)
{
    unsigned int lo, hi;

    for (size_t i = 0; rp_idset_range (ids, i, &lo, &hi); i++)
        if ((add ? rp_idset_add_range (set, lo, hi)
                 : rp_idset_remove_range (set, lo, hi))
            < 0)
            return -1;
    return 0;
}

/* Targets of R, all up, not drained, not removed. */
static struct target *targets_new (const struct rp_rset *R, size_t *n)
{
    const struct rp_idset *ranks = rp_rset_ranks (R);
    struct target *t;
    size_t i = 0;

    *n = rp_idset_count (ranks);
    if (!(t = calloc (*n + 1, sizeof (*t))))
        return NULL;
    for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ranks, r))
        t[i++].rank = r;
    return t;
}

const char *inventory_ranks_text (const struct rp_idset *ids, char *buf,
                                  size_t size)
{
    char *s = rp_idset_encode (ids, RP_IDSET_RANGES);

    snprintf (buf, size, "rank%s %s", rp_idset_count (ids) > 1 ? "s" : "",
              s ? s : "?");
    free (s);
    return buf;
}

int inventory_check_ranks (const struct rp_idset *ids,
                           const struct rp_idset *set, bool meet, int errnum,
                           const char *one, const char *many, rp_error_t *error)
{
    struct rp_idset *bad;
    char buf[128];

    if (meet ? !rp_idset_intersects (ids, set) : rp_idset_is_subset (ids, set))
        return 0;
    if (!(bad = meet ? rp_idset_intersect (ids, set)
                     : rp_idset_difference (ids, set)))
        return nomem (error);
    rp_error_set (error, errnum, "%s %s",
                  inventory_ranks_text (bad, buf, sizeof (buf)),
                  rp_idset_count (bad) == 1 ? one : many);
    rp_idset_destroy (bad);
    return -1;
}

/* 0 when every rank of ids is a target of R, else -1 naming those that
 * are not ("ranks 16-17 are not in the inventory"). */
static int check_in (const struct rp_inventory *inv, const struct rp_idset *ids,
                     rp_error_t *error)
{
    return inventory_check_ranks (ids, rp_rset_ranks (inv->R), false, ENOENT,
                                  "is not in the inventory",
                                  "are not in the inventory", error);
}

/* -1 with "RANKS what" when ids meets set (what: "removed", ...). */
static int check_none (const struct rp_idset *ids, const struct rp_idset *set,
                       int errnum, const char *what, rp_error_t *error)
{
    return inventory_check_ranks (ids, set, true, errnum, what, what, error);
}

/* -1 with "RANKS what" when some rank of ids is not in set. */
static int check_all (const struct rp_idset *ids, const struct rp_idset *set,
                      int errnum, const char *what, rp_error_t *error)
{
    return inventory_check_ranks (ids, set, false, errnum, what, what, error);
}

/* The checks every operation on targets makes. */
static int check_targets (const struct rp_inventory *inv,
                          const struct rp_idset *ids, rp_error_t *error)
{
    if (!inv->R)
        return rp_error_set (error, ENOENT, "no resources defined");
    if (!ids || rp_idset_empty (ids))
        return rp_error_set (error, EINVAL, "no targets");
    if (check_in (inv, ids, error) < 0)
        return -1;
    return check_none (ids, inv->removed, EINVAL, "removed", error);
}

/* --- applying events ---------------------------------------------------- */

int inventory_overwrite (enum rp_drain_mode mode)
{
    return mode == RP_DRAIN_FORCE ? 2 : mode == RP_DRAIN_OVERWRITE ? 1 : 0;
}

static void drain_one (struct target *t, struct reason *reason, int overwrite,
                       double timestamp)
{
    if (!overwrite && (t->flags & T_DRAINED) && t->reason)
        return;
    reason_unref (t->reason);
    t->reason = reason_ref (reason);
    if (!(t->flags & T_DRAINED) || overwrite == 2) {
        t->flags |= T_DRAINED;
        t->drain_time = timestamp;
    }
}

int inventory_apply_drain (struct rp_inventory *inv, const struct rp_idset *ids,
                           const char *text, int overwrite, double timestamp)
{
    struct reason *reason = NULL;

    if (text && !(reason = reason_new (text)))
        return -1;
    if (set_change (inv->drained, ids, true) < 0) {
        reason_unref (reason);
        return -1;
    }
    for (unsigned int r = rp_idset_first (ids); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ids, r))
        drain_one (target_find (inv, r), reason, overwrite, timestamp);
    reason_unref (reason);
    return 0;
}

void inventory_apply_undrain (struct rp_inventory *inv,
                              const struct rp_idset *ids)
{
    for (unsigned int r = rp_idset_first (ids); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ids, r)) {
        struct target *t = target_find (inv, r);
        t->flags &= (uint8_t)~T_DRAINED;
        t->drain_time = 0;
        reason_unref (t->reason);
        t->reason = NULL;
    }
    (void)set_change (inv->drained, ids, false);
}

/* Set or clear flag on the targets of ids, and keep set in step. */
static int apply_flag (struct rp_inventory *inv, const struct rp_idset *ids,
                       uint8_t flag, struct rp_idset *set, bool on)
{
    if (set_change (set, ids, on) < 0)
        return -1;
    for (unsigned int r = rp_idset_first (ids); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ids, r)) {
        struct target *t = target_find (inv, r);
        t->flags = on ? (uint8_t)(t->flags | flag)
                      : (uint8_t)(t->flags & (uint8_t)~flag);
    }
    return 0;
}

static int owned_add (struct rp_inventory *inv, const char *owner,
                      const char *name, const struct rp_idset *ids);
static int owned_remove (struct rp_inventory *inv, const char *name,
                         const struct rp_idset *ids);

/* One property of an event: R, and who owns it. */
static int apply_property (struct rp_inventory *inv, const char *name,
                           const struct rp_idset *ids, bool add,
                           const char *owner, rp_error_t *error)
{
    if (add ? rp_rset_property_add (inv->R, name, ids, error)
            : rp_rset_property_remove (inv->R, name, ids, error))
        return -1;
    if ((add && owner && owned_add (inv, owner, name, ids) < 0)
        || (!add && owned_remove (inv, name, ids) < 0))
        return nomem (error);
    return 0;
}

/* props: {name: idset string}, checked; owner: the plugin instance that
 * adds them, or NULL. */
static int apply_properties (struct rp_inventory *inv, const json_t *props,
                             bool add, const char *owner, rp_error_t *error)
{
    const char *name;
    json_t *v;

    json_object_foreach ((json_t *)props, name, v) {
        struct rp_idset *ids = rp_idset_decode (json_string_value (v), error);
        int rc = ids ? apply_property (inv, name, ids, add, owner, error) : -1;
        rp_idset_destroy (ids);
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* --- who added a property ------------------------------------------------ */

static struct owned *owned_find (const struct rp_inventory *inv,
                                 const char *owner)
{
    for (size_t i = 0; i < inv->nown; i++)
        if (!strcmp (inv->own[i].owner, owner))
            return &inv->own[i];
    return NULL;
}

const struct rp_idset *inventory_owned (const struct rp_inventory *inv,
                                        const char *owner, const char *name)
{
    const struct owned *o = owned_find (inv, owner);
    const struct namedset *e = o ? namedsets_find (&o->props, name) : NULL;

    return e ? e->ids : NULL;
}

static void owned_delete (struct rp_inventory *inv, size_t i)
{
    free (inv->own[i].owner);
    namedsets_clear (&inv->own[i].props);
    inv->own[i] = inv->own[--inv->nown];
}

static void owned_clear (struct rp_inventory *inv)
{
    while (inv->nown > 0)
        owned_delete (inv, inv->nown - 1);
    free (inv->own);
    inv->own = NULL;
}

/* owner now owns name on ids too. */
static int owned_add (struct rp_inventory *inv, const char *owner,
                      const char *name, const struct rp_idset *ids)
{
    struct owned *o = owned_find (inv, owner);
    struct owned *v;

    if (!o) {
        if (!(v = realloc (inv->own, (inv->nown + 1) * sizeof (*v))))
            return -1;
        inv->own = v;
        o = &v[inv->nown];
        *o = (struct owned){ .owner = strdup (owner) };
        if (!o->owner)
            return -1;
        inv->nown++;
    }
    return namedsets_add (&o->props, name, ids);
}

/* Does removing name remove held (name itself, or "name@..." when name
 * has no '@')? */
static bool removes (const char *name, const char *held)
{
    size_t len = strlen (name);

    return !strcmp (held, name)
           || (!strchr (name, '@') && !strncmp (held, name, len)
               && held[len] == '@');
}

/* name was removed from ids: nobody owns it (or its '@' forms) there. */
static int owned_remove (struct rp_inventory *inv, const char *name,
                         const struct rp_idset *ids)
{
    for (size_t i = inv->nown; i-- > 0;) {
        struct namedsets *p = &inv->own[i].props;
        for (size_t k = p->n; k-- > 0;) {
            if (!removes (name, p->v[k].name))
                continue;
            if (set_change (p->v[k].ids, ids, false) < 0)
                return -1;
            if (rp_idset_empty (p->v[k].ids))
                namedsets_delete (p, k);
        }
        if (p->n == 0)
            owned_delete (inv, i);
    }
    return 0;
}

long inventory_rank_of_host (const struct rp_rset *R, unsigned int rank,
                             const char *host)
{
    const char *now = rp_rset_hostname (R, rank);

    if (!host)
        return now ? (long)rank : -1;
    if (now && !strcmp (now, host))
        return rank;
    return rp_rset_rank_of (R, host);
}

/* Move the state of the old targets to those of R (sorted, fresh). */
static void remap (struct rp_inventory *inv, const struct rp_rset *R,
                   struct target *t, size_t n)
{
    struct rp_inventory tmp = { .t = t, .n = n };

    for (size_t i = 0; i < inv->n; i++) {
        struct target *o = &inv->t[i];
        struct target *d;
        long r;
        if (!o->flags)
            continue;
        r = inventory_rank_of_host (R, o->rank,
                                    rp_rset_hostname (inv->R, o->rank));
        if (r < 0 || !(d = target_find (&tmp, (unsigned int)r)))
            continue;
        reason_unref (d->reason);
        *d = (struct target){ .rank = d->rank,
                              .flags = o->flags,
                              .drain_time = o->drain_time,
                              .reason = reason_ref (o->reason) };
    }
}

/* The idsets of the targets' flags, rebuilt. */
static int sets_rebuild (struct rp_inventory *inv)
{
    struct rp_idset *s[3] = { rp_idset_create (), rp_idset_create (),
                              rp_idset_create () };
    static const uint8_t flag[3] = { T_DRAINED, T_DOWN, T_REMOVED };

    for (int k = 0; k < 3; k++)
        if (!s[k])
            goto nomem;
    for (size_t i = 0; i < inv->n; i++)
        for (int k = 0; k < 3; k++)
            if ((inv->t[i].flags & flag[k])
                && rp_idset_add (s[k], inv->t[i].rank) < 0)
                goto nomem;
    rp_idset_destroy (inv->drained);
    rp_idset_destroy (inv->down);
    rp_idset_destroy (inv->removed);
    inv->drained = s[0];
    inv->down = s[1];
    inv->removed = s[2];
    return 0;
nomem:
    for (int k = 0; k < 3; k++)
        rp_idset_destroy (s[k]);
    return -1;
}

/* Define R (taken), exclude (taken, not NULL) and method. */
static int apply_define (struct rp_inventory *inv, struct rp_rset *R,
                         struct rp_idset *exclude, const char *method)
{
    struct rp_rset *cur = rp_rset_copy (R);
    char *m = strdup (method);
    struct rp_idset *both = NULL;
    struct target *t;
    size_t n;

    if (!cur || !m || !(t = targets_new (R, &n)))
        goto nomem;
    if (inv->R)
        remap (inv, R, t, n);
    targets_free (inv->t, inv->n);
    inv->t = t;
    inv->n = n;
    rp_rset_destroy (inv->conf);
    rp_rset_destroy (inv->R);
    rp_idset_destroy (inv->exclude);
    free (inv->method);
    owned_clear (inv);
    inv->conf = R;
    inv->R = cur;
    inv->exclude = exclude;
    inv->method = m;
    if (sets_rebuild (inv) < 0
        || !(both = rp_idset_intersect (inv->drained, exclude)))
        return -1;
    inventory_apply_undrain (inv, both);
    rp_idset_destroy (both);
    return 0;
nomem:
    rp_rset_destroy (cur);
    rp_rset_destroy (R);
    rp_idset_destroy (exclude);
    free (m);
    return -1;
}

/* --- the log ---------------------------------------------------------- */

int inventory_log (struct rp_inventory *inv, const char *name, json_t *context,
                   double timestamp, rp_error_t *error)
{
    int rc = 0;

    if (!context)
        return nomem (error);
    if (inv->logpath)
        rc = rp_eventlog_append (inv->logpath, timestamp, name, context, error);
    json_decref (context);
    if (rc == 0)
        inv->nevents++;
    return rc;
}

static json_t *idset_string (const struct rp_idset *ids)
{
    char *s = rp_idset_encode (ids, RP_IDSET_RANGES);
    json_t *o = s ? json_string (s) : NULL;

    free (s);
    return o;
}

static json_t *nodelist_string (const struct rp_inventory *inv,
                                const struct rp_idset *ids)
{
    struct rp_hostlist *hl = rp_hostlist_create ();
    json_t *o = NULL;
    char *s = NULL;

    if (!hl)
        return NULL;
    for (unsigned int r = rp_idset_first (ids); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ids, r)) {
        const char *host = rp_rset_hostname (inv->R, r);
        if (host && rp_hostlist_append (hl, host, NULL) < 0)
            goto done;
    }
    if ((s = rp_hostlist_encode (hl)))
        o = json_string (s);
done:
    free (s);
    rp_hostlist_destroy (hl);
    return o;
}

json_t *inventory_targets_context (const struct rp_inventory *inv,
                                   const struct rp_idset *ids)
{
    json_t *o = json_object ();

    if (!o || json_object_set_new (o, "idset", idset_string (ids)) < 0
        || json_object_set_new (o, "nodelist", nodelist_string (inv, ids))
               < 0) {
        json_decref (o);
        return NULL;
    }
    return o;
}

/* --- operations --------------------------------------------------------- */

static int drain_check (const struct rp_inventory *inv,
                        const struct rp_idset *ids, enum rp_drain_mode mode,
                        rp_error_t *error)
{
    struct rp_idset *bad, *excl;
    bool drained = false, excluded;
    char buf[128];

    if (!(excl = rp_idset_intersect (ids, inv->exclude)))
        return nomem (error);
    excluded = !rp_idset_empty (excl);
    if (!(bad = rp_idset_copy (excl)))
        goto nomem;
    for (unsigned int r = rp_idset_first (ids);
         mode == RP_DRAIN_DEFAULT && r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ids, r)) {
        const struct target *t = target_find (inv, r);
        if ((t->flags & T_DRAINED) && t->reason) {
            drained = true;
            if (rp_idset_add (bad, r) < 0)
                goto nomem;
        }
    }
    rp_idset_destroy (excl);
    if (!drained && !excluded) {
        rp_idset_destroy (bad);
        return 0;
    }
    rp_error_set (error, drained ? EEXIST : EINVAL, "%s %s%s%s",
                  inventory_ranks_text (bad, buf, sizeof (buf)),
                  drained ? "already drained" : "",
                  drained && excluded ? " or " : "",
                  excluded ? "excluded" : "");
    rp_idset_destroy (bad);
    return -1;
nomem:
    rp_idset_destroy (excl);
    rp_idset_destroy (bad);
    return nomem (error);
}

/* Set "reason" when there is one; then "overwrite" (key order: drain puts
 * the reason first, undrain last, as flux-core does). */
static int set_reason (json_t *o, const char *reason)
{
    return reason ? json_object_set_new (o, "reason", json_string (reason)) : 0;
}

int rp_inventory_drain (struct rp_inventory *inv,
                        const struct rp_idset *targets, const char *reason,
                        enum rp_drain_mode mode, double now, rp_error_t *error)
{
    int overwrite = inventory_overwrite (mode);
    json_t *o;

    if (!inv)
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (check_targets (inv, targets, error) < 0
        || drain_check (inv, targets, mode, error) < 0)
        return -1;
    if (!(o = inventory_targets_context (inv, targets))
        || set_reason (o, reason) < 0
        || json_object_set_new (o, "overwrite", json_integer (overwrite)) < 0) {
        json_decref (o);
        return nomem (error);
    }
    if (inventory_log (inv, "drain", o, now, error) < 0)
        return -1;
    if (inventory_apply_drain (inv, targets, reason, overwrite, now) < 0)
        return nomem (error);
    return 0;
}

int rp_inventory_undrain (struct rp_inventory *inv,
                          const struct rp_idset *targets, const char *reason,
                          enum rp_drain_mode mode, double now,
                          rp_error_t *error)
{
    json_t *o;

    if (!inv)
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (check_targets (inv, targets, error) < 0
        || (mode == RP_DRAIN_DEFAULT
            && check_all (targets, inv->drained, EEXIST, "not drained", error)
                   < 0))
        return -1;
    if (!(o = inventory_targets_context (inv, targets))
        || json_object_set_new (o, "overwrite",
                                json_integer (inventory_overwrite (mode)))
               < 0
        || set_reason (o, reason) < 0) {
        json_decref (o);
        return nomem (error);
    }
    if (inventory_log (inv, "undrain", o, now, error) < 0)
        return -1;
    inventory_apply_undrain (inv, targets);
    return 0;
}

int rp_inventory_set_up (struct rp_inventory *inv,
                         const struct rp_idset *targets, bool up, double now,
                         rp_error_t *error)
{
    if (!inv)
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (check_targets (inv, targets, error) < 0
        || (up ? check_all (targets, inv->down, EEXIST, "already up", error)
               : check_none (targets, inv->down, EEXIST, "already down", error))
               < 0)
        return -1;
    if (inventory_log (inv, up ? "up" : "down",
                       inventory_targets_context (inv, targets), now, error)
        < 0)
        return -1;
    if (apply_flag (inv, targets, T_DOWN, inv->down, !up) < 0)
        return nomem (error);
    return 0;
}

int rp_inventory_shrink (struct rp_inventory *inv,
                         const struct rp_idset *targets, double now,
                         rp_error_t *error)
{
    if (!inv)
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (check_targets (inv, targets, error) < 0
        || inventory_log (inv, "shrink",
                          inventory_targets_context (inv, targets), now, error)
               < 0)
        return -1;
    if (apply_flag (inv, targets, T_REMOVED, inv->removed, true) < 0)
        return nomem (error);
    return 0;
}

/* Log and apply one property event: props {name: idset string} (taken),
 * checked; owner the plugin instance, or NULL. */
static int property_event (struct rp_inventory *inv, json_t *props, bool add,
                           const char *owner, double now, rp_error_t *error)
{
    json_t *o = props ? json_pack ("{s:O}", "properties", props) : NULL;
    int rc = -1;

    if (!o || (owner && json_object_set_new (o, "plugin", json_string (owner))))
        goto nomem;
    if (inventory_log (inv, add ? "property-add" : "property-remove", o, now,
                       error)
        == 0)
        rc = apply_properties (inv, props, add, owner, error);
    json_decref (props);
    return rc;
nomem:
    json_decref (o);
    json_decref (props);
    return nomem (error);
}

int inventory_plugin_properties (struct rp_inventory *inv, const char *owner,
                                 json_t *props, bool add, double now,
                                 rp_error_t *error)
{
    return property_event (inv, props, add, owner, now, error);
}

static int property_op (struct rp_inventory *inv, const char *name,
                        const struct rp_idset *targets, bool add, double now,
                        rp_error_t *error)
{
    json_t *props;

    if (!inv || !name)
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (check_targets (inv, targets, error) < 0
        || rp_rset_property_check (name, error) < 0)
        return -1;
    if (!(props = json_object ())
        || json_object_set_new (props, name, idset_string (targets)) < 0) {
        json_decref (props);
        return nomem (error);
    }
    return property_event (inv, props, add, NULL, now, error);
}

int rp_inventory_property_add (struct rp_inventory *inv, const char *name,
                               const struct rp_idset *targets, double now,
                               rp_error_t *error)
{
    return property_op (inv, name, targets, true, now, error);
}

int rp_inventory_property_remove (struct rp_inventory *inv, const char *name,
                                  const struct rp_idset *targets, double now,
                                  rp_error_t *error)
{
    return property_op (inv, name, targets, false, now, error);
}

int rp_inventory_expire (struct rp_inventory *inv, double expiration,
                         double now, rp_error_t *error)
{
    struct rp_rset *copy;

    if (!inv)
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (!inv->R)
        return rp_error_set (error, ENOENT, "no resources defined");
    if (!isfinite (expiration) || expiration < 0)
        return rp_error_set (error, EINVAL,
                             "expiration: must be a number >= 0");
    if (!(copy = rp_rset_copy (inv->R)))
        return nomem (error);
    if (rp_rset_set_times (copy, rp_rset_starttime (copy), expiration, error)
            < 0
        || inventory_log (inv, "resource-update",
                          json_pack ("{s:f}", "expiration", expiration), now,
                          error)
               < 0) {
        rp_rset_destroy (copy);
        return -1;
    }
    rp_rset_destroy (inv->R);
    inv->R = copy;
    return 0;
}

static bool same_definition (const struct rp_inventory *inv,
                             const struct rp_rset *R,
                             const struct rp_idset *exclude, const char *method)
{
    return inv->conf && rp_rset_equal (inv->conf, R)
           && rp_idset_equal (inv->exclude, exclude)
           && !strcmp (inv->method, method);
}

static json_t *define_context (const struct rp_rset *R,
                               const struct rp_idset *exclude,
                               const char *method)
{
    return json_pack ("{s:s s:o s:o}", "method", method, "R",
                      rp_rset_to_json (R), "exclude", idset_string (exclude));
}

int rp_inventory_define (struct rp_inventory *inv, const struct rp_rset *R,
                         const struct rp_idset *exclude, const char *method,
                         double now, bool *changed, rp_error_t *error)
{
    struct rp_idset *ex =
        exclude ? rp_idset_copy (exclude) : rp_idset_create ();
    struct rp_rset *copy = NULL;

    if (changed)
        *changed = false;
    if (!inv || !R || !method
        || (strcmp (method, "configuration") != 0
            && strcmp (method, "dynamic-discovery")))
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (!ex)
        return nomem (error);
    if (!rp_idset_is_subset (ex, rp_rset_ranks (R))) {
        rp_idset_destroy (ex);
        return rp_error_set (error, EINVAL, "exclude: not targets of R");
    }
    if (same_definition (inv, R, ex, method)) {
        rp_idset_destroy (ex);
        return 0;
    }
    if (!(copy = rp_rset_copy (R))
        || inventory_log (inv, "resource-define",
                          define_context (R, ex, method), now, error)
               < 0) {
        rp_idset_destroy (ex);
        rp_rset_destroy (copy);
        return copy ? -1 : nomem (error);
    }
    if (apply_define (inv, copy, ex, method) < 0)
        return nomem (error);
    if (changed)
        *changed = true;
    return 0;
}

/* --- replay --------------------------------------------------------------- */

int inventory_only_keys (const json_t *o, const char *const *keys,
                         rp_error_t *error)
{
    const char *key;
    json_t *v;

    json_object_foreach ((json_t *)o, key, v) {
        size_t i = 0;
        while (keys[i] && strcmp (keys[i], key) != 0)
            i++;
        if (!keys[i])
            return rp_error_set (error, EINVAL, "unknown key '%.64s'", key);
    }
    return 0;
}

static const char *ctx_string (const json_t *ctx, const char *key,
                               bool required, rp_error_t *error)
{
    json_t *v = json_object_get (ctx, key);

    if (!v && !required)
        return NULL;
    if (!v || !json_is_string (v)) {
        rp_error_set (error, EINVAL, "%s: must be a string", key);
        return NULL;
    }
    return json_string_value (v);
}

/* The idset at key of ctx, within the inventory. */
static struct rp_idset *ctx_idset (const struct rp_inventory *inv,
                                   const json_t *ctx, const char *key,
                                   rp_error_t *error)
{
    const char *s = ctx_string (ctx, key, true, error);
    struct rp_idset *ids;

    if (!s)
        return NULL;
    if (!(ids = rp_idset_decode (s, error)) || check_in (inv, ids, error) < 0) {
        rp_idset_destroy (ids);
        rp_error_prefix (error, "%s", key);
        return NULL;
    }
    return ids;
}

/* The common shape: idset, nodelist, and the keys of extra. */
static struct rp_idset *targets_event (const struct rp_inventory *inv,
                                       const json_t *ctx,
                                       const char *const *keys,
                                       rp_error_t *error)
{
    if (!ctx)
        return rp_error_set (error, EINVAL, "no context"), NULL;
    if (inventory_only_keys (ctx, keys, error) < 0
        || !ctx_string (ctx, "nodelist", true, error))
        return NULL;
    return ctx_idset (inv, ctx, "idset", error);
}

static int replay_drain (struct rp_inventory *inv, const json_t *ctx, double ts,
                         bool drain, rp_error_t *error)
{
    static const char *const keys[] = { "idset", "nodelist", "reason",
                                        "overwrite", NULL };
    struct rp_idset *ids = targets_event (inv, ctx, keys, error);
    json_t *ow = ids ? json_object_get (ctx, "overwrite") : NULL;
    const char *reason = NULL;
    int rc = -1;

    if (!ids)
        return -1;
    if (json_object_get (ctx, "reason")
        && !(reason = ctx_string (ctx, "reason", true, error)))
        goto done;
    if (ow
        && (!json_is_integer (ow) || json_integer_value (ow) < 0
            || json_integer_value (ow) > 2)) {
        rp_error_set (error, EINVAL, "overwrite: must be 0, 1 or 2");
        goto done;
    }
    if (!drain)
        inventory_apply_undrain (inv, ids);
    else if (inventory_apply_drain (inv, ids, reason,
                                    ow ? (int)json_integer_value (ow) : 1, ts)
             < 0) {
        nomem (error);
        goto done;
    }
    rc = 0;
done:
    rp_idset_destroy (ids);
    return rc;
}

static int replay_flag (struct rp_inventory *inv, const json_t *ctx,
                        uint8_t flag, bool on, rp_error_t *error)
{
    static const char *const keys[] = { "idset", "nodelist", NULL };
    struct rp_idset *ids = targets_event (inv, ctx, keys, error);
    struct rp_idset *set = flag == T_DOWN ? inv->down : inv->removed;
    int rc;

    if (!ids)
        return -1;
    rc = apply_flag (inv, ids, flag, set, on);
    rp_idset_destroy (ids);
    return rc < 0 ? nomem (error) : 0;
}

static int check_properties (const struct rp_inventory *inv, const json_t *o,
                             rp_error_t *error)
{
    const char *name;
    json_t *v;

    if (!json_is_object (o))
        return rp_error_set (error, EINVAL, "properties: must be an object");
    json_object_foreach ((json_t *)o, name, v) {
        struct rp_idset *ids = NULL;
        int rc = rp_rset_property_check (name, error);
        if (rc == 0 && !json_is_string (v))
            rc = rp_error_set (error, EINVAL, "must be an idset string");
        if (rc == 0
            && (!(ids = rp_idset_decode (json_string_value (v), error))
                || check_in (inv, ids, error) < 0))
            rc = -1;
        rp_idset_destroy (ids);
        if (rc < 0)
            return rp_error_prefix (error, "properties");
    }
    return 0;
}

static int replay_properties (struct rp_inventory *inv, const json_t *ctx,
                              bool add, rp_error_t *error)
{
    static const char *const keys[] = { "properties", "plugin", NULL };
    const json_t *props = json_object_get (ctx, "properties");
    const json_t *plugin = json_object_get (ctx, "plugin");
    const char *owner = json_string_value (plugin);

    if (!ctx || inventory_only_keys (ctx, keys, error) < 0
        || check_properties (inv, props, error) < 0)
        return ctx ? -1 : rp_error_set (error, EINVAL, "no context");
    if (plugin && (!owner || !*owner))
        return rp_error_set (error, EINVAL,
                             "plugin: must be a non-empty string");
    return apply_properties (inv, props, add, owner, error);
}

static int replay_update (struct rp_inventory *inv, const json_t *ctx,
                          rp_error_t *error)
{
    static const char *const keys[] = { "expiration", NULL };
    json_t *e = ctx ? json_object_get (ctx, "expiration") : NULL;

    if (!ctx || inventory_only_keys (ctx, keys, error) < 0)
        return ctx ? -1 : rp_error_set (error, EINVAL, "no context");
    if (!e || !json_is_number (e) || json_number_value (e) < 0)
        return rp_error_set (error, EINVAL,
                             "expiration: must be a number >= 0");
    return rp_rset_set_times (inv->R, rp_rset_starttime (inv->R),
                              json_number_value (e), error);
}

static int replay_define (struct rp_inventory *inv, const json_t *ctx,
                          rp_error_t *error)
{
    static const char *const keys[] = { "method", "R", "exclude", NULL };
    const char *method = ctx ? ctx_string (ctx, "method", true, error) : NULL;
    struct rp_rset *R = NULL;
    struct rp_idset *ex = NULL;
    const char *s;

    if (!ctx || inventory_only_keys (ctx, keys, error) < 0 || !method)
        return ctx ? -1 : rp_error_set (error, EINVAL, "no context");
    if (strcmp (method, "configuration") != 0
        && strcmp (method, "dynamic-discovery") != 0)
        return rp_error_set (error, EINVAL, "method: unknown method '%.64s'",
                             method);
    if (!(R = rp_rset_from_json (json_object_get (ctx, "R"), error)))
        return -1;
    if (!(s = ctx_string (ctx, "exclude", true, error))
        || !(ex = rp_idset_decode (s, error))) {
        rp_rset_destroy (R);
        return rp_error_prefix (error, "exclude");
    }
    if (!rp_idset_is_subset (ex, rp_rset_ranks (R))) {
        rp_rset_destroy (R);
        rp_idset_destroy (ex);
        return rp_error_set (error, EINVAL, "exclude: not targets of R");
    }
    return apply_define (inv, R, ex, method) < 0 ? nomem (error) : 0;
}

static int replay_one (struct rp_inventory *inv, double ts, const char *name,
                       const json_t *ctx, rp_error_t *error)
{
    if (!strcmp (name, "resource-define"))
        return replay_define (inv, ctx, error);
    if (!inv->R)
        return rp_error_set (error, EINVAL, "event before resource-define");
    if (!strcmp (name, "drain") || !strcmp (name, "undrain"))
        return replay_drain (inv, ctx, ts, !strcmp (name, "drain"), error);
    if (!strcmp (name, "down") || !strcmp (name, "up"))
        return replay_flag (inv, ctx, T_DOWN, !strcmp (name, "down"), error);
    if (!strcmp (name, "shrink"))
        return replay_flag (inv, ctx, T_REMOVED, true, error);
    if (!strcmp (name, "property-add") || !strcmp (name, "property-remove"))
        return replay_properties (inv, ctx, !strcmp (name, "property-add"),
                                  error);
    if (!strcmp (name, "resource-update"))
        return replay_update (inv, ctx, error);
    return rp_error_set (error, EINVAL, "unknown event");
}

/* Apply up to max events (0: all) from the reader.  Returns the number
 * applied or -1 ("PATH:LINE: NAME: what"). */
static int replay (struct rp_inventory *inv, size_t max, rp_error_t *error)
{
    size_t count = 0;

    while (max == 0 || count < max) {
        double ts;
        const char *name;
        const json_t *ctx;
        rp_error_t e;
        int rc = rp_eventlog_next (inv->log, &ts, &name, &ctx, error);
        if (rc <= 0)
            return rc < 0 ? -1 : (int)count;
        if (replay_one (inv, ts, name, ctx, &e) < 0)
            return rp_error_set (error, errno, "%s:%zu: %s: %s", inv->logpath,
                                 rp_eventlog_lineno (inv->log), name, e.text);
        inv->nevents++;
        count++;
    }
    return (int)count;
}

/* --- life cycle ----------------------------------------------------------- */

static struct rp_inventory *inventory_new (void)
{
    struct rp_inventory *inv = calloc (1, sizeof (*inv));

    if (inv)
        inv->lockfd = -1;
    return inv;
}

struct rp_inventory *rp_inventory_create (const struct rp_rset *R,
                                          const struct rp_idset *exclude,
                                          rp_error_t *error)
{
    struct rp_inventory *inv = inventory_new ();

    if (!inv) {
        nomem (error);
        return NULL;
    }
    if (rp_inventory_define (inv, R, exclude, "configuration", 1, NULL, error)
        < 0) {
        rp_inventory_destroy (inv);
        return NULL;
    }
    inv->nevents = 0;
    return inv;
}

static void inventory_clear (struct rp_inventory *inv)
{
    rp_eventlog_destroy (inv->log);
    rp_rset_destroy (inv->conf);
    rp_rset_destroy (inv->R);
    free (inv->method);
    rp_idset_destroy (inv->exclude);
    rp_idset_destroy (inv->drained);
    rp_idset_destroy (inv->down);
    rp_idset_destroy (inv->removed);
    targets_free (inv->t, inv->n);
    owned_clear (inv);
}

void rp_inventory_destroy (struct rp_inventory *inv)
{
    int saved = errno;

    if (inv) {
        inventory_clear (inv);
        if (inv->lockfd >= 0)
            close (inv->lockfd);
        free (inv->dir);
        free (inv->logpath);
        free (inv);
    }
    errno = saved;
}

static int lock_dir (struct rp_inventory *inv, rp_error_t *error)
{
    char *path;

    if (mkdir (inv->dir, 0755) < 0 && errno != EEXIST)
        return rp_error_set (error, errno, "%s: %s", inv->dir,
                             strerror (errno));
    if (asprintf (&path, "%s/lock", inv->dir) < 0)
        return nomem (error);
    inv->lockfd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (inv->lockfd < 0 || flock (inv->lockfd, LOCK_EX) < 0) {
        rp_error_set (error, errno, "%s: %s", path, strerror (errno));
        free (path);
        return -1;
    }
    free (path);
    return 0;
}

/* Open and replay the log, when there is one.  A torn tail is reported
 * (repaired: with write). */
static int load (struct rp_inventory *inv, bool write,
                 struct rp_diags *warnings, rp_error_t *error)
{
    size_t tail, dropped;

    if (!(inv->log = rp_eventlog_open (inv->logpath, error)))
        return errno == ENOENT ? 0 : -1;
    if (replay (inv, 0, error) < 0)
        return -1;
    if ((tail = rp_eventlog_tail (inv->log)) == 0)
        return 0;
    if (!write) {
        if (warnings)
            rp_diags_add (warnings, RP_DIAG_WARNING,
                          "%s:%zu: incomplete last line (%zu bytes) ignored",
                          inv->logpath, rp_eventlog_lineno (inv->log) + 1,
                          tail);
        return 0;
    }
    if (rp_eventlog_repair (inv->logpath, &dropped, error) < 0)
        return -1;
    if (warnings)
        rp_diags_add (warnings, RP_DIAG_WARNING,
                      "%s:%zu: incomplete last line (%zu bytes) dropped",
                      inv->logpath, rp_eventlog_lineno (inv->log) + 1, dropped);
    return 0;
}

struct rp_inventory *rp_inventory_open (const char *dir, int flags,
                                        struct rp_diags *warnings,
                                        rp_error_t *error)
{
    struct rp_inventory *inv = inventory_new ();
    bool write = flags & RP_INVENTORY_WRITE;
    struct stat st;

    if (!inv || !dir || !(inv->dir = strdup (dir))
        || asprintf (&inv->logpath, "%s/eventlog", dir) < 0) {
        if (inv)
            inv->logpath = NULL;
        dir ? nomem (error)
            : rp_error_set (error, EINVAL, "inventory: bad arguments");
        goto error;
    }
    if (write && lock_dir (inv, error) < 0)
        goto error;
    if (!write && stat (dir, &st) < 0) {
        rp_error_set (error, errno, "%s: %s", dir, strerror (errno));
        goto error;
    }
    if (load (inv, write, warnings, error) < 0)
        goto error;
    return inv;
error:
    rp_inventory_destroy (inv);
    return NULL;
}

/* Swap the state of a and b; each keeps its paths and lock. */
static void swap_state (struct rp_inventory *a, struct rp_inventory *b)
{
    struct rp_inventory ta = *a, tb = *b;

    *a = tb;
    *b = ta;
    a->dir = ta.dir;
    a->logpath = ta.logpath;
    a->lockfd = ta.lockfd;
    b->dir = tb.dir;
    b->logpath = tb.logpath;
    b->lockfd = tb.lockfd;
}

/* The log was replaced: read the new one from the start. */
static int reload (struct rp_inventory *inv, rp_error_t *error)
{
    struct rp_inventory *fresh = inventory_new ();
    int rc = -1;

    if (!fresh || !(fresh->logpath = strdup (inv->logpath))) {
        rp_inventory_destroy (fresh);
        return nomem (error);
    }
    if (load (fresh, false, NULL, error) == 0) {
        swap_state (inv, fresh);
        rc = (int)inv->nevents;
    }
    rp_inventory_destroy (fresh);
    return rc;
}

int rp_inventory_refresh (struct rp_inventory *inv, size_t max,
                          rp_error_t *error)
{
    if (!inv)
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (!inv->logpath)
        return 0;
    if (!inv->log || rp_eventlog_replaced (inv->log))
        return reload (inv, error);
    return replay (inv, max, error);
}

/* --- compaction ----------------------------------------------------------- */

/* Put the reader after the log's events without applying them. */
static void reader_skip (struct rp_inventory *inv)
{
    const char *name;
    const json_t *ctx;
    double ts;

    while (inv->log && rp_eventlog_next (inv->log, &ts, &name, &ctx, NULL) > 0)
        ;
}

static int push (json_t *a, double ts, const char *name, json_t *ctx)
{
    json_t *e = ctx ? json_pack ("{s:f s:s s:o}", "timestamp", ts, "name", name,
                                 "context", ctx)
                    : NULL;

    return e ? json_array_append_new (a, e) : -1;
}

json_t *inventory_props_diff (const json_t *from, const json_t *to)
{
    json_t *diff = json_object ();
    const char *key;
    json_t *v;

    json_object_foreach ((json_t *)to, key, v) {
        json_t *o = json_object_get (from, key);
        struct rp_idset *a1 = rp_idset_decode (json_string_value (v), NULL);
        struct rp_idset *b1 =
            rp_idset_decode (o ? json_string_value (o) : "", NULL);
        struct rp_idset *d = a1 && b1 ? rp_idset_difference (a1, b1) : NULL;
        int bad = !d
                  || (!rp_idset_empty (d)
                      && json_object_set_new (diff, key, idset_string (d)) < 0);
        rp_idset_destroy (a1);
        rp_idset_destroy (b1);
        rp_idset_destroy (d);
        if (bad || !diff) {
            json_decref (diff);
            return NULL;
        }
    }
    return diff;
}

/* What owner (NULL: every owner together) added: {name: idset string}. */
json_t *inventory_owned_props (const struct rp_inventory *inv,
                               const char *owner)
{
    json_t *o = json_object ();

    for (size_t i = 0; o && i < inv->nown; i++) {
        if (owner && strcmp (owner, inv->own[i].owner) != 0)
            continue;
        if (namedsets_to_json (&inv->own[i].props, o) < 0) {
            json_decref (o);
            return NULL;
        }
    }
    return o;
}

static int drain_cmp (const void *x, const void *y)
{
    const struct target *a = *(const struct target *const *)x;
    const struct target *b = *(const struct target *const *)y;

    if (a->drain_time != b->drain_time)
        return a->drain_time < b->drain_time ? -1 : 1;
    if (!a->reason || !b->reason)
        return (a->reason != NULL) - (b->reason != NULL);
    if (a->reason != b->reason) {
        int c = strcmp (a->reason->text, b->reason->text);
        if (c)
            return c;
    }
    return a->rank < b->rank ? -1 : a->rank > b->rank;
}

static bool same_drain (const struct target *a, const struct target *b)
{
    if (a->drain_time != b->drain_time)
        return false;
    if (!a->reason || !b->reason)
        return a->reason == b->reason;
    return !strcmp (a->reason->text, b->reason->text);
}

static int push_drain_group (json_t *a, const struct rp_inventory *inv,
                             struct target **g, size_t n)
{
    struct rp_idset *ids = rp_idset_create ();
    json_t *o = NULL;
    int rc = -1;

    for (size_t i = 0; ids && i < n; i++)
        if (rp_idset_add (ids, g[i]->rank) < 0)
            goto done;
    if (!ids || !(o = inventory_targets_context (inv, ids))
        || (g[0]->reason
            && json_object_set_new (o, "reason",
                                    json_string (g[0]->reason->text))
                   < 0)
        || json_object_set_new (o, "overwrite", json_integer (2)) < 0)
        goto done;
    rc = push (a, g[0]->drain_time, "drain", o);
    o = NULL;
done:
    json_decref (o);
    rp_idset_destroy (ids);
    return rc;
}

/* One drain event per (time, reason), in time order. */
int inventory_drain_events (json_t *a, const struct rp_inventory *inv)
{
    size_t n = rp_idset_count (inv->drained), k = 0;
    struct target **d = calloc (n + 1, sizeof (*d));
    int rc = 0;

    if (!d)
        return -1;
    for (size_t i = 0; i < inv->n; i++)
        if (inv->t[i].flags & T_DRAINED)
            d[k++] = &inv->t[i];
    qsort (d, k, sizeof (*d), drain_cmp);
    for (size_t i = 0, j; i < k && rc == 0; i = j) {
        for (j = i + 1; j < k && same_drain (d[i], d[j]); j++)
            ;
        rc = push_drain_group (a, inv, &d[i], j - i);
    }
    free (d);
    return rc;
}

/* A property event of props (taken) when it is not empty; owner: its
 * "plugin", or NULL. */
static int push_props (json_t *a, double now, const char *name, json_t *props,
                       const char *owner)
{
    json_t *ctx;

    if (!props)
        return -1;
    if (json_object_size (props) == 0) {
        json_decref (props);
        return 0;
    }
    ctx = owner ? json_pack ("{s:o s:s}", "properties", props, "plugin", owner)
                : json_pack ("{s:o}", "properties", props);
    return push (a, now, name, ctx);
}

/* property-add: what R has and conf has not, the administrator's then
 * each owner's; property-remove: what conf has and R has not. */
static int push_properties (json_t *a, const struct rp_inventory *inv,
                            double now)
{
    json_t *pc = rp_rset_properties (inv->conf);
    json_t *pr = rp_rset_properties (inv->R);
    json_t *all = inventory_owned_props (inv, NULL);
    json_t *added = pc && pr ? inventory_props_diff (pc, pr) : NULL;
    int rc = -1;

    if (!all || !added
        || push_props (a, now, "property-add",
                       inventory_props_diff (all, added), NULL)
               < 0)
        goto done;
    for (size_t i = 0; i < inv->nown; i++) {
        const char *owner = inv->own[i].owner;
        if (push_props (a, now, "property-add",
                        inventory_owned_props (inv, owner), owner)
            < 0)
            goto done;
    }
    rc = push_props (a, now, "property-remove", inventory_props_diff (pr, pc),
                     NULL);
done:
    json_decref (pc);
    json_decref (pr);
    json_decref (all);
    json_decref (added);
    return rc;
}

static json_t *compacted (const struct rp_inventory *inv, double now)
{
    json_t *a = json_array ();

    if (!a
        || push (a, now, "resource-define",
                 define_context (inv->conf, inv->exclude, inv->method))
               < 0
        || push_properties (a, inv, now) < 0
        || (rp_rset_expiration (inv->R) != rp_rset_expiration (inv->conf)
            && push (a, now, "resource-update",
                     json_pack ("{s:f}", "expiration",
                                rp_rset_expiration (inv->R)))
                   < 0)
        || (!rp_idset_empty (inv->down)
            && push (a, now, "down", inventory_targets_context (inv, inv->down))
                   < 0)
        || inventory_drain_events (a, inv) < 0
        || (!rp_idset_empty (inv->removed)
            && push (a, now, "shrink",
                     inventory_targets_context (inv, inv->removed))
                   < 0)) {
        json_decref (a);
        return NULL;
    }
    return a;
}

int rp_inventory_compact (struct rp_inventory *inv, double now, size_t *before,
                          size_t *after, rp_error_t *error)
{
    json_t *events;

    if (!inv)
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (!inv->R)
        return rp_error_set (error, ENOENT, "no resources defined");
    if (!(events = compacted (inv, now)))
        return nomem (error);
    if (inv->logpath && rp_eventlog_replace (inv->logpath, events, error) < 0) {
        json_decref (events);
        return -1;
    }
    if (before)
        *before = inv->nevents;
    inv->nevents = json_array_size (events);
    if (after)
        *after = inv->nevents;
    json_decref (events);
    if (inv->log) {
        rp_eventlog_destroy (inv->log);
        inv->log = rp_eventlog_open (inv->logpath, NULL);
        reader_skip (inv);
    }
    return 0;
}

/* --- reading -------------------------------------------------------------- */

const struct rp_rset *rp_inventory_R (const struct rp_inventory *inv)
{
    return inv ? inv->R : NULL;
}

const char *rp_inventory_method (const struct rp_inventory *inv)
{
    return inv ? inv->method : NULL;
}

const struct rp_idset *rp_inventory_excluded (const struct rp_inventory *inv)
{
    return inv ? inv->exclude : NULL;
}

const struct rp_idset *rp_inventory_drained (const struct rp_inventory *inv)
{
    return inv ? inv->drained : NULL;
}

const struct rp_idset *rp_inventory_down (const struct rp_inventory *inv)
{
    return inv ? inv->down : NULL;
}

const struct rp_idset *rp_inventory_removed (const struct rp_inventory *inv)
{
    return inv ? inv->removed : NULL;
}

struct rp_idset *rp_inventory_up (const struct rp_inventory *inv)
{
    struct rp_idset *up;

    if (!inv || !inv->R) {
        errno = EINVAL;
        return NULL;
    }
    if (!(up = rp_idset_copy (rp_rset_ranks (inv->R))))
        return NULL;
    if (rp_idset_subtract (up, inv->exclude) < 0
        || rp_idset_subtract (up, inv->removed) < 0
        || rp_idset_subtract (up, inv->drained) < 0
        || rp_idset_subtract (up, inv->down) < 0) {
        rp_idset_destroy (up);
        return NULL;
    }
    return up;
}

bool rp_inventory_drain_info (const struct rp_inventory *inv, unsigned int rank,
                              double *timestamp, const char **reason)
{
    const struct target *t = inv && inv->R ? target_find (inv, rank) : NULL;

    if (!t || !(t->flags & T_DRAINED))
        return false;
    if (timestamp)
        *timestamp = t->drain_time;
    if (reason)
        *reason = t->reason ? t->reason->text : NULL;
    return true;
}

size_t rp_inventory_nevents (const struct rp_inventory *inv)
{
    return inv ? inv->nevents : 0;
}

const char *rp_inventory_logpath (const struct rp_inventory *inv)
{
    return inv ? inv->logpath : NULL;
}

/* Hosts of hostlist s to ranks. */
static struct rp_idset *hosts_targets (const struct rp_inventory *inv,
                                       const char *s, rp_error_t *error)
{
    struct rp_hostlist *hl = rp_hostlist_decode (s, error);
    struct rp_idset *ids = hl ? rp_idset_create () : NULL;
    char host[256];

    if (!ids)
        goto error;
    for (size_t i = 0; i < rp_hostlist_count (hl); i++) {
        long r;
        if (rp_hostlist_nth_buf (hl, i, host, sizeof (host)) < 0)
            goto error;
        if ((r = rp_rset_rank_of (inv->R, host)) < 0) {
            rp_error_set (error, ENOENT, "host '%.64s' is not in the inventory",
                          host);
            goto error;
        }
        if (rp_idset_add (ids, (unsigned int)r) < 0) {
            nomem (error);
            goto error;
        }
    }
    rp_hostlist_destroy (hl);
    return ids;
error:
    rp_idset_destroy (ids);
    rp_hostlist_destroy (hl);
    return NULL;
}

struct rp_idset *rp_inventory_targets (const struct rp_inventory *inv,
                                       const char *s, rp_error_t *error)
{
    struct rp_idset *ids;

    if (!inv || !s) {
        rp_error_set (error, EINVAL, "inventory: bad arguments");
        return NULL;
    }
    if (!inv->R) {
        rp_error_set (error, ENOENT, "no resources defined");
        return NULL;
    }
    if (!(ids = rp_idset_decode (s, NULL)))
        return hosts_targets (inv, s, error);
    if (check_in (inv, ids, error) < 0) {
        rp_idset_destroy (ids);
        return NULL;
    }
    return ids;
}
