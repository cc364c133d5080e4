/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Validator plugin "queues": the queues a site offers, the default queue,
 * and the resource properties each queue requires.  Configuration block:
 *
 *   - plugin: queues
 *     config:
 *       default: batch          # optional
 *       queues:                 # required, at least one queue
 *         batch: {}             # (or nothing: "batch:")
 *         debug:
 *           requires: [debug]   # RFC 31 property names ("^x": not x)
 *         gpu:
 *           constraints: {or: [{properties: [a100]}, {properties: [h100]}]}
 *
 * A job's attributes.system.queue must name a configured queue; the
 * rejection lists them (sorted).  A job without a queue is amended to the
 * default queue, silently, as flux-core applies its default queue; with no
 * default it is rejected ("a queue is required: one of batch, debug").
 *
 * A queue's requirements are added to the job's RFC 31 constraints
 * (attributes.system.constraints): "requires" becomes {"properties": [...]}
 * and "constraints" (any RFC 31 object) is taken as written; the job's
 * constraints become that object when it had none, else
 *   {"and": [<the job's constraints>, <requires>, <constraints>]}
 * so a job never escapes the queue's requirements and its own still apply.
 *
 * Decisions: "requires" is a list of property names, not an RFC 35 query
 * string (a query belongs to a command line; a configuration file can say
 * the same with "constraints").  Property names and constraint objects are
 * checked in init with librespol's own checks (rp_rset_property_check,
 * rp_constraint_compile, resolved from the host like every rp_ function),
 * so a bad block fails the load instead of rejecting every job of the
 * queue.
 *
 * Built as a site builds its own plugin: respol headers only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <respol/constraint.h>
#include <respol/plugin.h>
#include <respol/rset.h>

struct conf {
    json_t *queues; /* name -> array of constraint objects to add */
    char *names;    /* "batch, debug": the queue names, sorted */
    char *dflt;     /* the default queue, or NULL */
};

static const struct rp_host_services *svc;

/* --- configuration ------------------------------------------------------ */

static int read_requires (struct rp_plugin *p, const char *queue,
                          const json_t *o, json_t *add)
{
    rp_error_t error;
    size_t i;
    json_t *v;

    if (!json_is_array (o))
        return svc->error (p,
                           "queues.%s.requires: must be a list of "
                           "property names",
                           queue);
    json_array_foreach (o, i, v) {
        const char *name = json_string_value (v);
        if (!name)
            return svc->error (p, "queues.%s.requires[%zu]: must be a string",
                               queue, i);
        if (rp_rset_property_check (name + (*name == '^'), &error) < 0)
            return svc->error (p, "queues.%s.requires[%zu]: %s", queue, i,
                               error.text);
    }
    if (json_array_size (o) > 0
        && json_array_append_new (
               add, json_pack ("{s:o}", "properties", json_deep_copy (o)))
               < 0)
        return svc->error (p, "out of memory");
    return 0;
}

static int read_constraints (struct rp_plugin *p, const char *queue,
                             const json_t *o, json_t *add)
{
    struct rp_constraint *c;
    rp_error_t error;

    if (!(c = rp_constraint_compile (o, &error)))
        return svc->error (p, "queues.%s.constraints: %s", queue, error.text);
    rp_constraint_destroy (c);
    if (json_array_append_new (add, json_deep_copy (o)) < 0)
        return svc->error (p, "out of memory");
    return 0;
}

/* Read queue's block o (a mapping or null) into add, its constraint
 * objects. */
static int read_queue (struct rp_plugin *p, const char *queue, const json_t *o,
                       json_t *add)
{
    const json_t *req = json_object_get (o, "requires");
    const json_t *con = json_object_get (o, "constraints");
    const char *key;
    json_t *v;

    if (!json_is_object (o) && !json_is_null (o))
        return svc->error (p, "queues.%s: must be a mapping", queue);
    json_object_foreach ((json_t *)o, key, v) {
        if (strcmp (key, "requires") != 0 && strcmp (key, "constraints") != 0)
            return svc->error (p, "queues.%s: unknown key '%s'", queue, key);
    }
    if (req && read_requires (p, queue, req, add) < 0)
        return -1;
    if (con && read_constraints (p, queue, con, add) < 0)
        return -1;
    return 0;
}

static int compare_names (const void *a, const void *b)
{
    return strcmp (*(const char *const *)a, *(const char *const *)b);
}

/* Join the (sorted) queue names of c->queues into c->names. */
static int join_names (struct conf *c)
{
    size_t n = json_object_size (c->queues), len = 1, i = 0;
    const char **names = calloc (n, sizeof (*names));
    const char *name;
    json_t *v;

    if (!names)
        return -1;
    json_object_foreach (c->queues, name, v) {
        names[i++] = name;
        len += strlen (name) + 2;
    }
    qsort (names, n, sizeof (*names), compare_names);
    if ((c->names = malloc (len))) {
        c->names[0] = '\0';
        for (i = 0; i < n; i++) {
            strcat (c->names, names[i]);
            strcat (c->names, i + 1 < n ? ", " : "");
        }
    }
    free (names);
    return c->names ? 0 : -1;
}

static int read_queues (struct rp_plugin *p, const json_t *o, struct conf *c)
{
    const char *name;
    json_t *v, *add;

    if (!o)
        return svc->error (p, "'queues' is required");
    if (!json_is_object (o) || json_object_size (o) == 0)
        return svc->error (p, "queues: must be a mapping of at least one "
                              "queue");
    json_object_foreach ((json_t *)o, name, v) {
        if (!*name)
            return svc->error (p, "queues: a queue name is empty");
        if (!(add = json_array ())
            || json_object_set_new (c->queues, name, add) < 0)
            return svc->error (p, "out of memory");
        if (read_queue (p, name, v, add) < 0)
            return -1;
    }
    if (join_names (c) < 0)
        return svc->error (p, "out of memory");
    return 0;
}

static int read_default (struct rp_plugin *p, const json_t *o, struct conf *c)
{
    const char *name = json_string_value (o);

    if (!o)
        return 0;
    if (!name)
        return svc->error (p, "default: must be a queue name");
    if (!json_object_get (c->queues, name))
        return svc->error (p, "default: unknown queue '%s', one of %s", name,
                           c->names);
    if (!(c->dflt = strdup (name)))
        return svc->error (p, "out of memory");
    return 0;
}

/* The top-level keys are declared in the descriptor: the host refuses
 * any other. */
static const char *const config_keys[] = { "default", "queues", NULL };

static int read_conf (struct rp_plugin *p, const json_t *cfg, struct conf *c)
{
    if (read_queues (p, json_object_get (cfg, "queues"), c) < 0)
        return -1;
    return read_default (p, json_object_get (cfg, "default"), c);
}

static void conf_destroy (struct conf *c)
{
    if (c) {
        int saved = errno;
        json_decref (c->queues);
        free (c->names);
        free (c->dflt);
        free (c);
        errno = saved;
    }
}

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    struct conf *c;

    svc = s;
    if (!(c = calloc (1, sizeof (*c))) || !(c->queues = json_object ())) {
        free (c);
        return svc->error (p, "out of memory");
    }
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

/* The job's new constraints: add[0] alone when the job had none and the
 * queue adds one object, else {"and": [existing, add...]}.  A new
 * reference, or NULL when out of memory. */
static json_t *constraints (const json_t *existing, const json_t *add)
{
    json_t *o, *and, *v;
    size_t i;

    if (!existing && json_array_size (add) == 1)
        return json_deep_copy (json_array_get (add, 0));
    if (!(o = json_pack ("{s:[]}", "and")))
        return NULL;
    and = json_object_get (o, "and");
    if (existing && json_array_append_new (and, json_deep_copy (existing)) < 0)
        goto error;
    json_array_foreach (add, i, v) {
        if (json_array_append_new (and, json_deep_copy (v)) < 0)
            goto error;
    }
    return o;
error:
    json_decref (o);
    return NULL;
}

static int amend (struct rp_plugin *p, struct rp_validation *v,
                  const char *path, json_t *value)
{
    if (!value)
        return svc->error (p, "out of memory");
    if (rp_validation_amend (v, path, value) < 0)
        return svc->error (p, "cannot set %s: %s", path, strerror (errno));
    return 0;
}

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    const struct conf *c = svc->get_data (p);
    const char *queue = rp_jobspec_queue (js);
    json_t *add;

    if (!queue && !c->dflt)
        return rp_validation_reject (v, "a queue is required: one of %s",
                                     c->names);
    if (!queue) {
        queue = c->dflt;
        if (amend (p, v, "system.queue", json_string (queue)) < 0)
            return -1;
    }
    if (!(add = json_object_get (c->queues, queue)))
        return rp_validation_reject (v, "unknown queue '%s': one of %s", queue,
                                     c->names);
    if (json_array_size (add) > 0
        && amend (p, v, "system.constraints",
                  constraints (rp_jobspec_constraints (js), add))
               < 0)
        return -1;
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
    .name = "queues",
    .description = "allowed queues, the default queue, and the properties "
                   "each queue requires",
    .version = "0.1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
    .config_keys = config_keys,
};
