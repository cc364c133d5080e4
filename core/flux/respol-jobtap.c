/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol's validator stack at submission, inside Flux's job manager: a
 * jobtap plugin (flux-jobtap-plugins(7)).
 *
 *   flux jobtap load LIBDIR/respol/flux/respol-jobtap.so [config=FILE]
 * or in the instance's configuration:
 *   [job-manager]
 *   plugins = [ { load = "LIBDIR/respol/flux/respol-jobtap.so",
 *                 conf = { config = "/etc/respol/respol.yaml" } } ]
 * Its name in flux jobtap list and remove is its file's, respol-jobtap.so.
 * Without config, the configuration is $RESPOL_CONFIG (the broker's
 * environment), else respol's default.  It is loaded once, when the
 * plugin is: a configuration that does not load fails the load, its
 * errors in the broker's log (flux dmesg).
 *
 * job.validate runs the configuration's validate stack
 * (rp_config_validate_job) over the job's jobspec, as respol jobspec
 * validate does, with the submission context of a Flux job (origin flux;
 * the user by uid; the account from attributes.system.bank, the queue
 * from attributes.system.queue, as flux-accounting and flux-core name
 * them; the job id and submit time) and no instance state (the job
 * manager's plugins see one job at a time):
 *   - a rejection fails flux submit with "<validator>: <message>";
 *   - a validator that fails (a plugin error) rejects the job too, with
 *     "respol: <validator>: plugin failed: ...": a site's policy that
 *     cannot judge a job does not let it through;
 *   - warnings are posted to the job's eventlog, one event each,
 *     "respol-warning" {"message": "<validator>: <message>"}, when the job
 *     is accepted (job.new), and so is a hold ("held: <validator>:
 *     <message>"): holding is the scheduler's (sched-respol runs the
 *     validators again, with the instance's jobs, before it starts one);
 *   - amendments are applied as a jobspec-update (RFC 21), where Flux
 *     lets a plugin change the jobspec: resources, tasks, and keys below
 *     attributes.  What it cannot change is a rejection that names it:
 *       respol: amendment changes version, which Flux cannot update
 *       respol: amendment removes attributes.system.queue, which ...
 *       respol: amendment changes attributes.system.environment, which
 *       job manager plugins cannot see
 *     (the job manager hides the environment from its plugins, so an
 *     update of it would replace the user's).  respol's validators amend
 *     keys below attributes only (rp_validation_amend), so the first two
 *     guard the jobspec against a later API: no plugin reaches them
 *     today.  Keys below attributes are
 *     updated at the depth of attributes.system.KEY and
 *     attributes.user.KEY: a value below them is replaced whole.
 * A jobspec respol cannot read (respol's RFC 25 checks) is rejected with
 * respol's message: the validators could not judge it.
 *
 * Plugins' log messages go where the configuration's log block sends
 * them (by default the broker's stderr): the handler is process-wide,
 * and the broker runs its modules as threads, each with its own handle.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <flux/core.h>
#include <flux/jobtap.h>
#include <jansson.h>

#include <respol/config.h>
#include <respol/context.h>
#include <respol/diag.h>
#include <respol/jobspec.h>

#include "jobcontext.h"

#define AUX_EVENTS "respol::events"

/* A path in a jobspec, for messages and update keys. */
#define PATH_MAX_BYTES 256

struct jobtap {
    struct rp_config *cfg;
};

static void jobtap_destroy (struct jobtap *jt)
{
    if (!jt)
        return;
    rp_config_destroy (jt->cfg);
    free (jt);
}

/* --- amendments as jobspec updates ---------------------------------------- */

/* What an amendment changes, at path (depth: 0 for the jobspec, 1 for
 * attributes, 2 for attributes.system and attributes.user): updates,
 * path -> new value, or -1 with what Flux cannot change in *why. */
static int diff (json_t *a, json_t *b, const char *path, int depth,
                 json_t *updates, char *why, size_t size);

static int diff_key (json_t *a, json_t *b, const char *path, const char *key,
                     int depth, json_t *updates, char *why, size_t size)
{
    char sub[PATH_MAX_BYTES];
    json_t *va = json_object_get (a, key), *vb = json_object_get (b, key);

    snprintf (sub, sizeof (sub), "%s%s%s", path, *path ? "." : "", key);
    if (va && vb && json_equal (va, vb))
        return 0;
    if (!vb) {
        snprintf (why, size, "amendment removes %s, which Flux cannot update",
                  sub);
        return -1;
    }
    if (!strcmp (sub, "attributes.system.environment")) {
        snprintf (why, size,
                  "amendment changes %s, which job manager plugins "
                  "cannot see",
                  sub);
        return -1;
    }
    if (depth == 0 && strcmp (key, "attributes") != 0
        && strcmp (key, "resources") != 0 && strcmp (key, "tasks") != 0) {
        snprintf (why, size, "amendment changes %s, which Flux cannot update",
                  sub);
        return -1;
    }
    if ((depth == 0 && !strcmp (key, "attributes"))
        || (depth == 1 && json_is_object (vb) && (!va || json_is_object (va))))
        return diff (va, vb, sub, depth + 1, updates, why, size);
    if (json_object_set (updates, sub, vb) < 0) {
        snprintf (why, size, "out of memory");
        return -1;
    }
    return 0;
}

static int diff (json_t *a, json_t *b, const char *path, int depth,
                 json_t *updates, char *why, size_t size)
{
    const char *key;
    json_t *v;

    json_object_foreach (a, key, v) {
        if (diff_key (a, b, path, key, depth, updates, why, size) < 0)
            return -1;
    }
    json_object_foreach (b, key, v) {
        if (!json_object_get (a, key)
            && diff_key (a, b, path, key, depth, updates, why, size) < 0)
            return -1;
    }
    return 0;
}

/* --- job.validate ------------------------------------------------------------
 */

/* The first error of d, or what. */
static const char *first_error (const struct rp_diags *d, const char *what)
{
    for (size_t i = 0; i < rp_diags_count (d); i++)
        if (rp_diags_severity (d, i) == RP_DIAG_ERROR)
            return rp_diags_text (d, i);
    return what;
}

/* Keep the warnings (and a hold) for job.new, which posts them. */
static int keep_events (flux_plugin_t *p, const struct rp_diags *d,
                        const char *held)
{
    json_t *events = json_array ();

    if (!events)
        return -1;
    for (size_t i = 0; i < rp_diags_count (d); i++)
        if (rp_diags_severity (d, i) == RP_DIAG_WARNING)
            json_array_append_new (events, json_string (rp_diags_text (d, i)));
    if (held) {
        char buf[1024];
        snprintf (buf, sizeof (buf), "held: %s", held);
        json_array_append_new (events, json_string (buf));
    }
    if (json_array_size (events) == 0) {
        json_decref (events);
        return 0;
    }
    if (flux_jobtap_job_aux_set (p, FLUX_JOBTAP_CURRENT_JOB, AUX_EVENTS, events,
                                 (flux_free_f)json_decref)
        < 0) {
        json_decref (events);
        return -1;
    }
    return 0;
}

/* Apply what the validators amended, or say why Flux cannot. */
static int amend (flux_plugin_t *p, flux_plugin_arg_t *args, json_t *jobspec,
                  const struct rp_jobspec *amended)
{
    char why[512] = "";
    json_t *updates = json_object ();
    int rc = 0;

    if (!updates)
        return flux_jobtap_reject_job (p, args, "respol: out of memory");
    if (diff (jobspec, rp_jobspec_json (amended), "", 0, updates, why,
              sizeof (why))
        < 0)
        rc = flux_jobtap_reject_job (p, args, "respol: %s", why);
    else if (json_object_size (updates) > 0
             && flux_jobtap_jobspec_update_pack (p, "O", updates) < 0)
        rc = flux_jobtap_reject_job (p, args,
                                     "respol: the job manager refused the "
                                     "amendment: %s",
                                     strerror (errno));
    json_decref (updates);
    return rc;
}

static int judge (flux_plugin_t *p, flux_plugin_arg_t *args, struct jobtap *jt,
                  json_t *jobspec, const struct rp_jobspec *js,
                  const struct rp_context *ctx, struct rp_diags *d)
{
    struct rp_jobspec *amended = NULL;
    char *reason = NULL;
    int verdict, rc = 0;

    verdict =
        rp_config_validate_job (jt->cfg, js, ctx, NULL, &amended, &reason, d);
    if (verdict < 0)
        rc = flux_jobtap_reject_job (p, args, "respol: %s",
                                     first_error (d, strerror (errno)));
    else if (verdict == RP_REJECT)
        rc = flux_jobtap_reject_job (p, args, "%s", reason);
    else if (amended && amend (p, args, jobspec, amended) < 0)
        rc = -1;
    else if (keep_events (p, d, verdict == RP_HOLD ? reason : NULL) < 0)
        rc = flux_jobtap_reject_job (p, args, "respol: out of memory");
    rp_jobspec_destroy (amended);
    free (reason);
    return rc;
}

static int validate_cb (flux_plugin_t *p, const char *topic,
                        flux_plugin_arg_t *args, void *data)
{
    struct jobtap *jt = data;
    json_t *jobspec = NULL;
    flux_jobid_t id = 0;
    int userid = -1, rc;
    double t_submit = -1;
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js = NULL;
    struct rp_context *ctx = NULL;

    (void)topic;
    if (!d)
        return flux_jobtap_reject_job (p, args, "respol: out of memory");
    if (flux_plugin_arg_unpack (args, FLUX_PLUGIN_ARG_IN, "{s:o s:I s?i s?f}",
                                "jobspec", &jobspec, "id", &id, "userid",
                                &userid, "t_submit", &t_submit)
        < 0)
        rc = flux_jobtap_reject_job (p, args, "respol: %s",
                                     flux_plugin_arg_strerror (args));
    else if (!(js =
                   rp_jobspec_from_json (jobspec, "jobspec", RP_JOBSPEC_V1, d)))
        rc = flux_jobtap_reject_job (p, args, "respol: %s",
                                     first_error (d, "jobspec: not valid"));
    else if (userid < 0
             || !(ctx = flux_job_context (js, (uint32_t)userid, id, t_submit)))
        rc = flux_jobtap_reject_job (p, args,
                                     "respol: no submission context for "
                                     "user %d",
                                     userid);
    else
        rc = judge (p, args, jt, jobspec, js, ctx, d);
    rp_context_destroy (ctx);
    rp_jobspec_destroy (js);
    rp_diags_destroy (d);
    return rc;
}

/* --- job.new: the warnings, posted ------------------------------------------
 */

static int new_cb (flux_plugin_t *p, const char *topic, flux_plugin_arg_t *args,
                   void *data)
{
    json_t *events =
        flux_jobtap_job_aux_get (p, FLUX_JOBTAP_CURRENT_JOB, AUX_EVENTS);
    size_t i;
    json_t *v;

    (void)topic;
    (void)args;
    (void)data;
    json_array_foreach (events, i, v) {
        if (flux_jobtap_event_post_pack (p, FLUX_JOBTAP_CURRENT_JOB,
                                         "respol-warning", "{s:s}", "message",
                                         json_string_value (v))
            < 0)
            flux_log_error (flux_jobtap_get_flux (p),
                            "respol: cannot post a warning");
    }
    if (events)
        flux_jobtap_job_aux_delete_value (p, FLUX_JOBTAP_CURRENT_JOB, events);
    return 0;
}

/* --- loading
 * ------------------------------------------------------------------ */

static struct rp_config *load_config (flux_plugin_t *p)
{
    flux_t *h = flux_jobtap_get_flux (p);
    const char *path = NULL;
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg = NULL;

    if (!d)
        return NULL;
    if (flux_plugin_get_conf (p)
        && flux_plugin_conf_unpack (p, "{s?s}", "config", &path) < 0)
        flux_log (h, LOG_ERR, "respol: config must be a path");
    else if (!(cfg = rp_config_load (path, 0, d)))
        flux_log (h, LOG_ERR, "respol: configuration %s: %s",
                  path ? path : rp_config_default_path (),
                  rp_diags_count (d) > 0 ? "" : strerror (errno));
    for (size_t i = 0; !cfg && i < rp_diags_count (d); i++)
        flux_log (h, LOG_ERR, "respol: %s", rp_diags_text (d, i));
    rp_diags_destroy (d);
    return cfg;
}

int flux_plugin_init (flux_plugin_t *p)
{
    struct jobtap *jt;
    const struct flux_plugin_handler tab[] = {
        { "job.validate", validate_cb, NULL },
        { "job.new", new_cb, NULL },
        { 0 },
    };

    if (!(jt = calloc (1, sizeof (*jt))))
        return -1;
    if (!(jt->cfg = load_config (p))
        || flux_plugin_aux_set (p, NULL, jt, (flux_free_f)jobtap_destroy) < 0) {
        jobtap_destroy (jt);
        errno = EINVAL;
        return -1;
    }
    for (size_t i = 0; tab[i].topic; i++)
        if (flux_plugin_add_handler (p, tab[i].topic, tab[i].cb, jt) < 0)
            return -1;
    return 0;
}
