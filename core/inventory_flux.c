/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Reading a Flux instance's resource event log into an inventory:
 * rp_inventory_import_flux in api/respol/inventory.h.
 *
 * flux-core (0.88, src/modules/resource/drain.c, upgrade.c) rebuilds its
 * drain state at start by replaying KVS resource.eventlog: a log with a
 * resource-init event (the format before 0.62) is first cut to the drain
 * summary of its last resource-init followed by the drain, undrain and
 * resource-define events after it; then every drain is applied with its
 * "overwrite" level (1 when the key is missing) and every undrain clears
 * the drain; targets are found by host name through the event's
 * nodelist when the rank now names another host (a rank whose host is
 * gone is dropped, as is a rank beyond the instance); finally drained
 * targets that are excluded are undrained.
 *
 * Here the same replay runs on a scratch copy of the inventory (its R, no
 * drains), in one pass: a resource-init clears the scratch drain state
 * and applies its summary, which is what cutting the log there gives.
 * Then the inventory is made to agree with the scratch state through its
 * own log: one undrain of what it has drained and Flux does not, then one
 * drain (force-overwrite) per (time, reason) that differs.  The import is
 * idempotent: a second one logs nothing.
 *
 * Reading is respol's RFC 18 reader (bounded lines, errors with the line
 * number); a context that is not what flux-core writes is an error, as
 * flux-core's replay makes it fatal ("drain parse error").  Unknown keys
 * in a context are ignored, as flux-core's json_unpack does.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/eventlog.h"
#include "respol/hostlist.h"
#include "respol/inventory.h"

#include "core/inventory_private.h"

struct import {
    struct rp_inventory *inv;     /* the target */
    struct rp_inventory *scratch; /* Flux's drain state as it is replayed */
    const struct rp_rset *R;
    const char *path;
    size_t lineno;
    size_t since_init; /* drain/undrain used since the last resource-init */
    struct rp_flux_import st;
    struct rp_diags *warnings;
};

static const char *const flux_events[] = {
    "resource-init", "resource-define", "resource-update", "online", "offline",
    "restart",       "truncate",        "torpid",          "lively", NULL,
};

static bool known (const char *name)
{
    for (size_t i = 0; flux_events[i]; i++)
        if (!strcmp (flux_events[i], name))
            return true;
    return false;
}

static void warn_skipped (struct import *im, const char *name, size_t n,
                          unsigned int rank, const char *host)
{
    if (n == 0 || !im->warnings)
        return;
    rp_diags_add (im->warnings, RP_DIAG_WARNING,
                  "%s:%zu: %s: %zu target%s not in the inventory skipped "
                  "(first: rank %u%s%s)",
                  im->path, im->lineno, name, n, n > 1 ? "s" : "", rank,
                  host ? ", " : "", host ? host : "");
}

/* The inventory targets of idset s and nodelist nl (may be NULL). */
static struct rp_idset *decode_targets (struct import *im, const char *name,
                                        const char *s, const char *nl,
                                        rp_error_t *error)
{
    struct rp_idset *ids = rp_idset_decode (s, error), *out = NULL;
    struct rp_hostlist *hl = NULL;
    size_t index = 0, skipped = 0;
    unsigned int first = 0;
    char host[256], firsthost[256] = "";

    if (!ids || (nl && !(hl = rp_hostlist_decode (nl, error))))
        goto error;
    if (rp_idset_count (ids) > RP_RSET_MAX_TARGETS) {
        rp_error_set (error, EINVAL, "more than %u targets",
                      RP_RSET_MAX_TARGETS);
        goto error;
    }
    if (!(out = rp_idset_create ()))
        goto nomem;
    for (unsigned int r = rp_idset_first (ids); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ids, r)) {
        bool named =
            hl && rp_hostlist_nth_buf (hl, index++, host, sizeof (host)) == 0;
        long m = inventory_rank_of_host (im->R, r, named ? host : NULL);
        if (m >= 0 && rp_idset_add (out, (unsigned int)m) < 0)
            goto nomem;
        if (m < 0 && skipped++ == 0) {
            first = r;
            snprintf (firsthost, sizeof (firsthost), "%s", named ? host : "");
        }
    }
    im->st.skipped += skipped;
    warn_skipped (im, name, skipped, first, *firsthost ? firsthost : NULL);
    rp_idset_destroy (ids);
    rp_hostlist_destroy (hl);
    return out;
nomem:
    rp_error_set (error, ENOMEM, "out of memory");
error:
    rp_idset_destroy (ids);
    rp_idset_destroy (out);
    rp_hostlist_destroy (hl);
    return NULL;
}

static int get_string (const json_t *ctx, const char *key, bool required,
                       const char **s, rp_error_t *error)
{
    json_t *v = json_object_get (ctx, key);

    *s = NULL;
    if (!v && !required)
        return 0;
    if (!v || !json_is_string (v))
        return rp_error_set (error, EINVAL, "%s: must be a string", key);
    *s = json_string_value (v);
    return 0;
}

static int do_drain (struct import *im, const char *name, const json_t *ctx,
                     double ts, rp_error_t *error)
{
    bool drain = !strcmp (name, "drain");
    const char *s, *nl, *reason = NULL;
    json_t *ow = json_object_get (ctx, "overwrite");
    struct rp_idset *ids;
    int rc = 0;

    if (!ctx)
        return rp_error_set (error, EINVAL, "no context");
    if (get_string (ctx, "idset", true, &s, error) < 0
        || get_string (ctx, "nodelist", false, &nl, error) < 0
        || (drain && get_string (ctx, "reason", false, &reason, error) < 0))
        return -1;
    if (drain && ow && !json_is_integer (ow))
        return rp_error_set (error, EINVAL, "overwrite: must be an integer");
    if (!(ids = decode_targets (im, name, s, nl, error)))
        return rp_error_prefix (error, "idset");
    if (!drain)
        inventory_apply_undrain (im->scratch, ids);
    else if (inventory_apply_drain (im->scratch, ids, reason,
                                    ow ? (int)json_integer_value (ow) : 1, ts)
             < 0)
        rc = rp_error_set (error, ENOMEM, "out of memory");
    rp_idset_destroy (ids);
    im->since_init++;
    return rc;
}

/* resource-init: the state is its drain summary {IDSET: {timestamp,
 * reason?}}. */
static int do_init (struct import *im, const json_t *ctx, rp_error_t *error)
{
    json_t *drain = ctx ? json_object_get (ctx, "drain") : NULL;
    const char *key;
    json_t *v;

    if (!drain || !json_is_object (drain))
        return rp_error_set (error, EINVAL, "drain: must be an object");
    inventory_apply_undrain (im->scratch, rp_inventory_drained (im->scratch));
    im->st.ignored += im->since_init;
    im->st.used -= im->since_init;
    im->since_init = 0;
    json_object_foreach (drain, key, v) {
        json_t *t = json_object_get (v, "timestamp");
        const char *reason = NULL;
        struct rp_idset *ids;
        int rc;
        if (!json_is_object (v) || !t || !json_is_number (t)
            || get_string (v, "reason", false, &reason, error) < 0)
            return rp_error_set (error, EINVAL,
                                 "drain.%.64s: must be {timestamp, reason?}",
                                 key);
        if (!(ids = decode_targets (im, "resource-init", key, NULL, error)))
            return rp_error_prefix (error, "drain.%.64s", key);
        rc = inventory_apply_drain (im->scratch, ids, reason, 1,
                                    json_number_value (t));
        rp_idset_destroy (ids);
        if (rc < 0)
            return rp_error_set (error, ENOMEM, "out of memory");
    }
    return 0;
}

static int one_event (struct import *im, double ts, const char *name,
                      const json_t *ctx, rp_error_t *error)
{
    if (!strcmp (name, "drain") || !strcmp (name, "undrain")) {
        im->st.used++;
        return do_drain (im, name, ctx, ts, error);
    }
    im->st.ignored++;
    if (!strcmp (name, "resource-init"))
        return do_init (im, ctx, error);
    if (!known (name) && im->warnings)
        rp_diags_add (im->warnings, RP_DIAG_WARNING,
                      "%s:%zu: unknown event '%.64s' ignored", im->path,
                      im->lineno, name);
    return 0;
}

static int read_log (struct import *im, rp_error_t *error)
{
    struct rp_eventlog *log = rp_eventlog_open (im->path, error);
    int rc;

    if (!log)
        return -1;
    for (;;) {
        double ts;
        const char *name;
        const json_t *ctx;
        rp_error_t e;
        if ((rc = rp_eventlog_next (log, &ts, &name, &ctx, error)) <= 0)
            break;
        im->lineno = rp_eventlog_lineno (log);
        im->st.events++;
        if (one_event (im, ts, name, ctx, &e) < 0) {
            rc = rp_error_set (error, errno, "%s:%zu: %s: %s", im->path,
                               im->lineno, name, e.text);
            break;
        }
    }
    if (rc == 0 && rp_eventlog_tail (log) > 0 && im->warnings)
        rp_diags_add (im->warnings, RP_DIAG_WARNING,
                      "%s:%zu: incomplete last line (%zu bytes) ignored",
                      im->path, rp_eventlog_lineno (log) + 1,
                      rp_eventlog_tail (log));
    rp_eventlog_destroy (log);
    return rc;
}

/* --- making the inventory agree ------------------------------------------- */

static bool same_drain (const struct rp_inventory *a,
                        const struct rp_inventory *b, unsigned int rank)
{
    double ta, tb;
    const char *ra, *rb;

    if (!rp_inventory_drain_info (a, rank, &ta, &ra)
        || !rp_inventory_drain_info (b, rank, &tb, &rb))
        return false;
    if (ta != tb || !ra != !rb)
        return false;
    return !ra || !strcmp (ra, rb);
}

static int log_undrain (struct import *im, double now, rp_error_t *error)
{
    struct rp_idset *ids = rp_idset_difference (
        rp_inventory_drained (im->inv), rp_inventory_drained (im->scratch));
    json_t *o = NULL;
    int rc = -1;

    if (!ids
        || (!rp_idset_empty (ids)
            && (!(o = inventory_targets_context (im->inv, ids))
                || json_object_set_new (o, "overwrite", json_integer (0))
                       < 0))) {
        json_decref (o);
        rp_idset_destroy (ids);
        return rp_error_set (error, ENOMEM, "out of memory");
    }
    if (rp_idset_empty (ids))
        rc = 0;
    else if (inventory_log (im->inv, "undrain", o, now, error) == 0) {
        inventory_apply_undrain (im->inv, ids);
        im->st.logged++;
        rc = 0;
    }
    rp_idset_destroy (ids);
    return rc;
}

/* One drain event of the scratch state (from inventory_drain_events),
 * logged to the inventory unless it has it already. */
static int log_drain (struct import *im, const json_t *e, rp_error_t *error)
{
    double ts = json_number_value (json_object_get (e, "timestamp"));
    json_t *ctx = json_object_get (e, "context");
    json_t *r = json_object_get (ctx, "reason");
    const char *reason = r ? json_string_value (r) : NULL;
    struct rp_idset *ids = rp_idset_decode (
        json_string_value (json_object_get (ctx, "idset")), NULL);
    bool same = true;
    int rc = 0;

    if (!ids)
        return rp_error_set (error, ENOMEM, "out of memory");
    for (unsigned int k = rp_idset_first (ids);
         same && k != RP_IDSET_INVALID_ID; k = rp_idset_next (ids, k))
        same = same_drain (im->inv, im->scratch, k);
    if (!same) {
        rc = inventory_log (im->inv, "drain", json_incref (ctx), ts, error);
        if (rc == 0 && inventory_apply_drain (im->inv, ids, reason, 2, ts) < 0)
            rc = rp_error_set (error, ENOMEM, "out of memory");
        if (rc == 0)
            im->st.logged++;
    }
    rp_idset_destroy (ids);
    return rc;
}

static int agree (struct import *im, double now, rp_error_t *error)
{
    struct rp_idset *ex = rp_idset_intersect (
        rp_inventory_drained (im->scratch), rp_inventory_excluded (im->inv));
    json_t *events = json_array ();
    size_t i;
    json_t *e;
    int rc = -1;

    if (!ex || !events) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto done;
    }
    inventory_apply_undrain (im->scratch, ex);
    if (inventory_drain_events (events, im->scratch) < 0) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto done;
    }
    if (log_undrain (im, now, error) < 0)
        goto done;
    json_array_foreach (events, i, e) {
        if (log_drain (im, e, error) < 0)
            goto done;
    }
    im->st.drained = rp_idset_count (rp_inventory_drained (im->inv));
    rc = 0;
done:
    rp_idset_destroy (ex);
    json_decref (events);
    return rc;
}

int rp_inventory_import_flux (struct rp_inventory *inv, const char *path,
                              double now, struct rp_diags *warnings,
                              struct rp_flux_import *stats, rp_error_t *error)
{
    struct import im = { .inv = inv, .path = path, .warnings = warnings };
    int rc = -1;

    if (!inv || !path)
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (!(im.R = rp_inventory_R (inv)))
        return rp_error_set (error, ENOENT, "no resources defined");
    if (!(im.scratch = rp_inventory_create (im.R, NULL, error)))
        return -1;
    if (read_log (&im, error) == 0 && agree (&im, now, error) == 0) {
        if (stats)
            *stats = im.st;
        rc = 0;
    }
    rp_inventory_destroy (im.scratch);
    return rc;
}
