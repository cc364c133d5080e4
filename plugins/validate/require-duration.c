/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Validator plugin "require-duration": every job must say how long it runs
 * (RFC 14 attributes.system.duration), optionally with a site default and a
 * maximum.  Configuration block:
 *
 *   - plugin: require-duration
 *     config: {default: 1h, max: 1d}
 *
 * Both keys are optional; each is a number of seconds (YAML numbers are
 * seconds) or a Flux Standard Duration string (RFC 23: "90", "30s", "5m",
 * "2h", "1d", "1.5h", "500ms").  A job without a duration (unset, or 0,
 * which RFC 14 reads as "unlimited") gets the default, amended into
 * attributes.system.duration with a warning, as flux-core's frobnicator
 * applies a default duration to a job with duration 0; with no default it
 * is rejected.  A job above max is rejected with both values.
 *
 * Decisions: durations are parsed strictly (a plain decimal number, no
 * sign, exponent, "inf" or white space, then one of the suffixes ms, s, m,
 * h, d) where flux-core's strtod-based parser is looser; default and max
 * must be > 0; default above max is a configuration error.  Messages show
 * a duration in the largest unit that divides it ("90m", "25h"), else in
 * seconds ("0.5s").
 *
 * Built as a site builds its own plugin: respol/plugin.h only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/plugin.h>

#include "duration.h"

struct conf {
    double dflt; /* 0: no default */
    double max;  /* 0: no maximum */
};

static const struct rp_host_services *svc;

/* --- configuration ---------------------------------------------------- */

/* Read the duration value v of configuration key key into *d. */
static int read_duration (struct rp_plugin *p, const char *key, const json_t *v,
                          double *d)
{
    double value;

    if (json_is_string (v)) {
        if (duration_parse (json_string_value (v), &value) < 0)
            return svc->error (p, "%s: invalid duration '%s'", key,
                               json_string_value (v));
    } else if (json_is_number (v))
        value = json_number_value (v);
    else
        return svc->error (p,
                           "%s: must be a number of seconds or a duration "
                           "such as 30s, 5m, 2h or 1d",
                           key);
    if (!(value > 0))
        return svc->error (p, "%s: must be > 0", key);
    *d = value;
    return 0;
}

/* --- the plugin --------------------------------------------------------- */

/* The keys, declared in the descriptor: the host refuses any other. */
static const char *const config_keys[] = { "default", "max", NULL };

static int read_conf (struct rp_plugin *p, const json_t *cfg, struct conf *c)
{
    char a[DURATION_TEXT], b[DURATION_TEXT];
    const char *key;
    json_t *v;

    json_object_foreach ((json_t *)cfg, key, v) {
        if (read_duration (p, key, v,
                           strcmp (key, "default") == 0 ? &c->dflt : &c->max)
            < 0)
            return -1;
    }
    if (c->dflt > 0 && c->max > 0 && c->dflt > c->max)
        return svc->error (p, "default %s is above max %s",
                           duration_text (c->dflt, a),
                           duration_text (c->max, b));
    return 0;
}

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    struct conf c = { 0 }, *data;

    svc = s;
    if (read_conf (p, svc->config (p), &c) < 0)
        return -1;
    if (!(data = malloc (sizeof (*data))))
        return svc->error (p, "out of memory");
    *data = c;
    svc->set_data (p, data);
    return 0;
}

static void fini (struct rp_plugin *p)
{
    int saved = errno;

    free (svc->get_data (p));
    errno = saved;
}

/* Amend the default into a job without a duration, with a warning. */
static int apply_default (struct rp_plugin *p, const struct conf *c,
                          struct rp_validation *v)
{
    char a[DURATION_TEXT];

    if (c->dflt == 0)
        return rp_validation_reject (
            v, "a duration is required (attributes.system.duration)");
    if (rp_validation_amend (v, "system.duration", json_real (c->dflt)) < 0)
        return svc->error (p, "cannot set the duration: %s", strerror (errno));
    return rp_validation_warn (v, "duration not set, using default %s",
                               duration_text (c->dflt, a));
}

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    const struct conf *c = svc->get_data (p);
    double d = rp_jobspec_duration (js);
    char a[DURATION_TEXT], b[DURATION_TEXT];

    if (d == 0)
        return apply_default (p, c, v);
    if (c->max > 0 && d > c->max)
        return rp_validation_reject (v, "duration %s is above the maximum %s",
                                     duration_text (d, a),
                                     duration_text (c->max, b));
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
    .name = "require-duration",
    .description = "require a job duration, with an optional default and "
                   "maximum",
    .version = "0.1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
    .config_keys = config_keys,
};
