/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The validator stack run (RFC 14: "a stack of plugins SHALL test jobspec
 * against site or user defined criteria, and on failure, MAY reject the
 * jobspec, or MAY warn the user and continue on") and the services a
 * validator calls during the run; see rp_config_validate in
 * api/respol/config.h and the RP_PLUGIN_VALIDATE section of
 * api/respol/plugin.h.
 *
 * One struct rp_validation lives on the stack for each validator call, so
 * a call that neither warns nor amends allocates nothing: dispatch is an
 * indirect call and a few stores.
 *
 * Amendments are recorded as (path, value) pairs during the call and
 * applied only when the validator accepts: to a deep copy of the current
 * jobspec's JSON, which is read again with rp_jobspec_from_json (same
 * profile, same name) so the next validator and the caller only ever see a
 * jobspec that passed the RFC checks.  An amendment that cannot be applied
 * (a path through a value that is not a mapping) or that makes the jobspec
 * invalid rejects it in the name of that validator; the re-read's warnings
 * are not repeated (the original jobspec's were already reported).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/config.h"
#include "respol/jobspec.h"

#include "core/context_private.h"
#include "core/plugin_private.h"

/* Bounds on an amendment path ("system.queue"): it is plugin input. */
#define AMEND_PATH_MAX 256
#define AMEND_DEPTH_MAX 16

struct rp_validation {
    struct rp_plugin *p;
    struct rp_diags *diags;
    const struct rp_context *ctx;
    const struct rp_instance *inst;
    size_t warnings;
    char *reject;   /* the reason given, or NULL */
    char *hold;     /* the hold's reason, or NULL */
    json_t *amends; /* [[path, value], ...] or NULL */
    bool oom;
};

/* --- services for validate ---------------------------------------------- */

int rp_validation_warn (struct rp_validation *v, const char *fmt, ...)
{
    char *msg;
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vasprintf (&msg, fmt, ap);
    va_end (ap);
    v->warnings++;
    if (n < 0) {
        v->oom = true;
        return RP_WARN;
    }
    if (rp_diags_add (v->diags, RP_DIAG_WARNING, "%s: %s", v->p->instance, msg)
            < 0
        && v->diags)
        v->oom = true;
    free (msg);
    return RP_WARN;
}

/* Keep the message of fmt in *where (replacing an earlier one). */
static void keep_message (struct rp_validation *v, char **where,
                          const char *fmt, va_list ap)
{
    char *msg;

    if (vasprintf (&msg, fmt, ap) < 0) {
        msg = NULL;
        v->oom = true;
    }
    free (*where);
    *where = msg;
}

int rp_validation_reject (struct rp_validation *v, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    keep_message (v, &v->reject, fmt, ap);
    va_end (ap);
    return RP_REJECT;
}

int rp_validation_hold (struct rp_validation *v, const char *fmt, ...)
{
    va_list ap;

    va_start (ap, fmt);
    keep_message (v, &v->hold, fmt, ap);
    va_end (ap);
    return RP_HOLD;
}

const struct rp_context *rp_validation_context (const struct rp_validation *v)
{
    return v && v->ctx ? v->ctx : context_empty ();
}

const struct rp_instance *rp_validation_instance (const struct rp_validation *v)
{
    return v ? v->inst : NULL;
}

/* A path must be valid UTF-8: its segments become JSON object keys. */
static bool amend_path_valid (const char *path)
{
    size_t len = strnlen (path, AMEND_PATH_MAX + 1);
    json_t *s;
    int depth = 1;

    if (len == 0 || len > AMEND_PATH_MAX || path[0] == '.'
        || path[len - 1] == '.' || strstr (path, ".."))
        return false;
    if (!(s = json_string (path))) /* NULL for invalid UTF-8 */
        return false;
    json_decref (s);
    for (const char *s = path; *s; s++)
        if (*s == '.' && ++depth > AMEND_DEPTH_MAX)
            return false;
    return true;
}

int rp_validation_amend (struct rp_validation *v, const char *path,
                         json_t *value)
{
    json_t *pair;

    if (!v || !path || !value || !amend_path_valid (path)) {
        json_decref (value);
        errno = EINVAL;
        return -1;
    }
    if (!v->amends && !(v->amends = json_array ()))
        goto nomem;
    if (!(pair = json_pack ("[s]", path))) {
        json_decref (value);
        errno = ENOMEM;
        return -1;
    }
    if (json_array_append_new (pair, value) < 0) { /* released value */
        json_decref (pair);
        errno = ENOMEM;
        return -1;
    }
    if (json_array_append_new (v->amends, pair) < 0) { /* released pair */
        errno = ENOMEM;
        return -1;
    }
    return 0;
nomem:
    json_decref (value);
    errno = ENOMEM;
    return -1;
}

/* --- applying amendments ------------------------------------------------ */

/* Set attributes.<path> = value in root, making the mappings on the way;
 * else -1, with why filled unless it was for lack of memory. */
static int amend_one (json_t *root, const char *path, json_t *value, char *why,
                      size_t size)
{
    json_t *obj = json_object_get (root, "attributes");
    const char *seg = path;

    if (!obj
        && json_object_set_new (root, "attributes", obj = json_object ()) < 0)
        return -1;
    if (!json_is_object (obj)) {
        snprintf (why, size, "'attributes' is not a mapping");
        return -1;
    }
    for (;;) {
        size_t len = strcspn (seg, ".");
        char key[AMEND_PATH_MAX + 1];
        json_t *child;

        snprintf (key, sizeof (key), "%.*s", (int)len, seg);
        if (seg[len] == '\0')
            return json_object_set (obj, key, value);
        child = json_object_get (obj, key);
        if (!child
            && json_object_set_new (obj, key, child = json_object ()) < 0)
            return -1;
        if (!json_is_object (child)) {
            snprintf (why, size, "'%.*s' is not a mapping",
                      (int)(seg + len - path), path);
            return -1;
        }
        obj = child;
        seg += len + 1;
    }
}

/* The jobspec cur amended by v's amendments, or NULL after adding the
 * rejection to diags (*oom when that was for lack of memory). */
static struct rp_jobspec *amend (const struct rp_jobspec *cur,
                                 struct rp_validation *v, bool *oom)
{
    json_t *copy = json_deep_copy (rp_jobspec_json (cur));
    const char *name = rp_doc_name (rp_jobspec_doc (cur));
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js = NULL;
    char why[RP_ERROR_TEXT_SIZE] = "";
    size_t i;
    json_t *pair;

    if (!copy || !d)
        goto nomem;
    json_array_foreach (v->amends, i, pair) {
        const char *path = json_string_value (json_array_get (pair, 0));
        if (amend_one (copy, path, json_array_get (pair, 1), why, sizeof (why))
            == 0)
            continue;
        if (!why[0])
            goto nomem;
        rp_diags_add (v->diags, RP_DIAG_ERROR, "%s: cannot amend '%s': %s",
                      v->p->instance, path, why);
        goto out;
    }
    js = rp_jobspec_from_json (copy, name ? name : "jobspec",
                               rp_jobspec_profile (cur), d);
    if (!js && errno == ENOMEM)
        goto nomem;
    for (i = 0; !js && i < rp_diags_count (d); i++)
        if (rp_diags_severity (d, i) == RP_DIAG_ERROR)
            rp_diags_add (v->diags, RP_DIAG_ERROR,
                          "%s: amended jobspec is invalid: %s", v->p->instance,
                          rp_diags_text (d, i));
    goto out;
nomem:
    *oom = true;
out:
    json_decref (copy);
    rp_diags_destroy (d);
    return js;
}

/* --- the run ------------------------------------------------------------ */

struct run {
    const struct rp_jobspec *cur; /* the jobspec the next validator sees */
    struct rp_jobspec *owned;     /* cur, when an amendment made it */
    struct rp_diags *diags;
    const struct rp_context *ctx;
    const struct rp_instance *inst;
    char *reason; /* "<instance>: <message>" of the rejection or first hold */
    bool warned;
    bool held;
    bool failed; /* a validator failed: neither verdict nor rejection */
    bool oom;
};

static void set_reason (struct run *r, const char *who, const char *msg)
{
    free (r->reason);
    if (asprintf (&r->reason, "%s: %s", who, msg) < 0) {
        r->reason = NULL;
        r->oom = true;
    }
}

static void reject (struct run *r, struct rp_plugin *p, int rc,
                    const struct rp_validation *v)
{
    const char *who = p->instance;
    char buf[RP_ERROR_TEXT_SIZE + 32];
    const char *msg = buf;

    if (rc == RP_REJECT)
        msg = v->reject ? v->reject : "rejected";
    else if (p->error[0])
        snprintf (buf, sizeof (buf), "plugin failed: %s", p->error);
    else
        snprintf (buf, sizeof (buf), "validate returned %d (no message)",
                  rc);
    if (rc != RP_REJECT && !p->error[0])
        rp_diags_add (r->diags, RP_DIAG_ERROR, "plugin '%s': %s", who, msg);
    else
        rp_diags_add (r->diags, RP_DIAG_ERROR, "%s: %s", who, msg);
    set_reason (r, who, msg);
    if (rc != RP_REJECT)
        r->failed = true;
}

/* A hold: the first one's reason is the stack's; the stack goes on. */
static void hold (struct run *r, struct rp_plugin *p,
                  const struct rp_validation *v)
{
    if (r->held)
        return;
    r->held = true;
    set_reason (r, p->instance, v->hold ? v->hold : "held");
}

/* Run one validator; false when the stack stops here. */
static bool run_one (struct run *r, struct rp_plugin *p)
{
    struct rp_validation v = { .p = p,
                               .diags = r->diags,
                               .ctx = r->ctx,
                               .inst = r->inst };
    struct rp_jobspec *js = NULL;
    struct plugin_call call;
    bool valid;
    int rc;

    p->error[0] = '\0';
    plugin_enter (&call, p, "validate");
    rc = p->validate (p, r->cur, &v);
    plugin_leave (&call);
    valid = rc == RP_ACCEPT || rc == RP_WARN || rc == RP_HOLD;
    if (rc == RP_WARN || v.warnings)
        r->warned = true;
    if (!valid)
        reject (r, p, rc, &v);
    else if (v.amends && (js = amend (r->cur, &v, &r->oom))) {
        rp_jobspec_destroy (r->owned);
        r->cur = r->owned = js;
    }
    if (valid && v.amends && !js)
        set_reason (r, p->instance, "amended jobspec refused");
    if (rc == RP_HOLD)
        hold (r, p, &v);
    r->oom |= v.oom;
    free (v.reject);
    free (v.hold);
    json_decref (v.amends);
    return valid && (!v.amends || js);
}

int rp_config_validate_job (const struct rp_config *cfg,
                            const struct rp_jobspec *js,
                            const struct rp_context *ctx,
                            const struct rp_instance *inst,
                            struct rp_jobspec **amended, char **reason,
                            struct rp_diags *diags)
{
    const struct rp_stack *s = rp_config_stack (cfg, RP_PLUGIN_VALIDATE);
    struct run r = { .cur = js, .diags = diags, .ctx = ctx, .inst = inst };
    bool accepted = true;
    int verdict;

    if (!s || !js) {
        errno = EINVAL;
        return -1;
    }
    /* Instances belong to the configuration; a call changes only their
     * own state, never the stack. */
    for (size_t i = 0; accepted && i < rp_stack_count (s); i++)
        accepted = run_one (&r, (struct rp_plugin *)rp_stack_plugin (s, i));
    if (r.oom || r.failed) {
        rp_jobspec_destroy (r.owned);
        free (r.reason);
        errno = r.oom ? ENOMEM : EPROTO;
        return -1;
    }
    if (!accepted) {
        rp_jobspec_destroy (r.owned);
        r.owned = NULL;
        verdict = RP_REJECT;
    } else
        verdict = r.held ? RP_HOLD : r.warned ? RP_WARN : RP_ACCEPT;
    if (amended)
        *amended = r.owned;
    else
        rp_jobspec_destroy (r.owned);
    if (reason && (verdict == RP_REJECT || verdict == RP_HOLD))
        *reason = r.reason;
    else {
        if (reason)
            *reason = NULL;
        free (r.reason);
    }
    return verdict;
}

int rp_config_validate (const struct rp_config *cfg,
                        const struct rp_jobspec *js,
                        struct rp_jobspec **amended, struct rp_diags *diags)
{
    char *reason = NULL;
    int verdict = rp_config_validate_job (cfg, js, NULL, NULL, amended,
                                          &reason, diags);

    /* This function's callers know three verdicts: a hold is a warning. */
    if (verdict == RP_HOLD) {
        if (rp_diags_add (diags, RP_DIAG_WARNING, "held: %s", reason) < 0
            && diags) {
            free (reason);
            if (amended) {
                rp_jobspec_destroy (*amended);
                *amended = NULL;
            }
            errno = ENOMEM;
            return -1;
        }
        verdict = RP_WARN;
    }
    free (reason);
    return verdict;
}
