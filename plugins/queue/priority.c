/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Queue policy "priority": orders the queue by a number the jobspec
 * carries, highest first, equal numbers in submission order.  No fair
 * share, no ages: the number is the job's own.  Configuration block:
 *
 *   - plugin: priority
 *     config: {attribute: system.urgency, default: 16}
 *
 * attribute is a dotted path under the jobspec's attributes
 * (default "system.urgency", Flux's name, whose values run from 0 to 31
 * with 16 the default); default is the priority of a job without it (16
 * when not given).  A job whose value is not an integer is queued with
 * the default and a warning in the log.  It only orders: the pass is
 * another policy's (the one respol simulate --queue or the scheduler
 * picks).
 *
 * Built as a site builds its own plugin: respol/queue.h only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <stdlib.h>
#include <string.h>

#include <respol/queue.h>

struct conf {
    char *path; /* the dotted path, under "attributes" */
    int64_t dflt;
};

static const struct rp_host_services *svc;

static const char *const config_keys[] = { "attribute", "default", NULL };

/* A dotted path of names, each of letters, digits, '-', '_' and '.' as
 * separator, no empty name. */
static bool path_valid (const char *s)
{
    size_t n = strlen (s);

    if (n == 0 || n > 256 || s[0] == '.' || s[n - 1] == '.' || strstr (s, ".."))
        return false;
    return strspn (s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                      "0123456789-_.")
           == n;
}

static int priority_init (struct rp_plugin *p,
                          const struct rp_host_services *services)
{
    const json_t *cfg, *a, *d;
    struct conf *c;

    svc = services;
    cfg = svc->config (p);
    a = json_object_get (cfg, "attribute");
    d = json_object_get (cfg, "default");
    if (a && (!json_is_string (a) || !path_valid (json_string_value (a))))
        return svc->error (p, "attribute: must be a dotted path such as "
                              "system.urgency");
    if (d && !json_is_integer (d))
        return svc->error (p, "default: must be an integer");
    if (!(c = calloc (1, sizeof (*c)))
        || !(c->path = strdup (a ? json_string_value (a) : "system.urgency"))) {
        free (c);
        return svc->error (p, "out of memory");
    }
    c->dflt = d ? json_integer_value (d) : 16;
    svc->set_data (p, c);
    return 0;
}

static void priority_fini (struct rp_plugin *p)
{
    struct conf *c = svc->get_data (p);

    if (c)
        free (c->path);
    free (c);
}

/* The value at c->path under the jobspec's attributes, or NULL. */
static json_t *lookup (const struct conf *c, const struct rp_jobspec *js)
{
    json_t *o = json_object_get (rp_jobspec_json (js), "attributes");
    const char *s = c->path;

    while (o && *s) {
        const char *dot = strchr (s, '.');
        size_t n = dot ? (size_t)(dot - s) : strlen (s);
        char key[257];
        memcpy (key, s, n);
        key[n] = '\0';
        o = json_object_get (o, key);
        s += n + (dot != NULL);
    }
    return o;
}

static int priority_of (struct rp_plugin *p, const struct rp_jobspec *js,
                        int64_t *priority)
{
    const struct conf *c = svc->get_data (p);
    json_t *v = lookup (c, js);

    *priority = c->dflt;
    if (v && !json_is_integer (v))
        svc->log (p, RP_LOG_WARNING,
                  "attributes.%s is not an integer: priority %lld", c->path,
                  (long long)c->dflt);
    else if (v)
        *priority = json_integer_value (v);
    return 0;
}

static const struct rp_queue_ops ops = {
    .size = sizeof (struct rp_queue_ops),
    .priority = priority_of,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_QUEUE,
    .name = "priority",
    .description = "the queue ordered by a jobspec attribute, highest first",
    .version = "1.0",
    .init = priority_init,
    .fini = priority_fini,
    .ops = &ops,
    .config_keys = config_keys,
};
