/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Property plugins: a run of the property stack over an inventory
 * (rp_inventory_annotate) and the operators plugins add
 * (rp_property_add_operator); see api/respol/property.h.
 *
 * A run has two phases.  First every instance's annotate is called, in
 * stack order, each with its own annotation, which records what the
 * instance says: per property name, the targets (its declaration).  The
 * host checks each call as it is made (a valid name, targets of the
 * inventory, a removal of what the instance said or owns) and stops the
 * run at the first plugin that fails or breaks a rule, before anything is
 * logged.  Then, instance by instance, what it declared is compared with
 * the inventory as the earlier instances left it:
 *   remove = what it owns (inventory_owned_props) - what it declared
 *   add    = what it declared - what some target has exactly (R now)
 * each logged as one event with the instance as "plugin"
 * (inventory_plugin_properties).  A property that a target already has
 * (R configures it, an administrator or another plugin added it) is not
 * added again and so not owned: the instance can never remove it.
 * Removed targets (RFC 28 shrink) are left out of both.
 *
 * Declarations are idsets by name (core/namedsets.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/property.h"

#include "core/constraint_private.h"
#include "core/inventory_private.h"
#include "core/namedsets.h"
#include "core/plugin_private.h"

struct rp_annotation {
    struct rp_plugin *p;
    const struct rp_inventory *inv;
    const json_t *hardware;
    bool active;           /* inside annotate */
    struct namedsets said; /* its declaration */
    bool broke;            /* a rule was broken: broken.text says which */
    rp_error_t broken;
};

/* --- operators ----------------------------------------------------------- */

static bool operator_name_valid (const char *s)
{
    size_t n = s ? strspn (s, "abcdefghijklmnopqrstuvwxyz"
                              "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
                 : 0;

    return n >= 1 && n <= 64 && s[n] == '\0';
}

int rp_property_add_operator (struct rp_plugin *p, const char *name,
                              const struct rp_constraint_operator *op,
                              void *arg)
{
    rp_error_t e;
    int saved;

    if (!p) {
        errno = EINVAL;
        return -1;
    }
    if (p->kind != RP_PLUGIN_PROPERTY || !p->in_init)
        rp_error_set (&e, EINVAL,
                      "operators are added in init only, by "
                      "property plugins");
    else if (!operator_name_valid (name))
        rp_error_set (&e, EINVAL,
                      "invalid operator name '%.64s' (letters, digits, '-' "
                      "and '_', 1-64 bytes)",
                      name ? name : "");
    else if (!op || !op->compile || !op->match)
        rp_error_set (&e, EINVAL, "operator '%s' has no compile or no match",
                      name);
    else if (constraint_operator_add (p, name, op, arg, &e) == 0)
        return 0;
    saved = errno;
    snprintf (p->error, sizeof (p->error), "%s", e.text);
    errno = saved;
    return -1;
}

/* --- annotate's services ------------------------------------------------- */

static int broke (struct rp_annotation *a, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static int broke (struct rp_annotation *a, const char *fmt, ...)
{
    char msg[RP_ERROR_TEXT_SIZE];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    if (!a->broke)
        rp_error_set (&a->broken, EINVAL, "property plugin '%s': %s",
                      a->p->instance, msg);
    a->broke = true;
    errno = EINVAL;
    return -1;
}

const struct rp_rset *rp_annotation_R (const struct rp_annotation *a)
{
    return a ? rp_inventory_R (a->inv) : NULL;
}

const json_t *rp_annotation_hardware (const struct rp_annotation *a,
                                      unsigned int rank)
{
    char key[16];

    if (!a || !a->hardware)
        return NULL;
    snprintf (key, sizeof (key), "%u", rank);
    return json_object_get (a->hardware, key);
}

/* The checks add and remove share: called from annotate, a valid name. */
static int check_call (struct rp_annotation *a, const char *name)
{
    rp_error_t e;

    if (!a || !a->active) {
        errno = EINVAL;
        return -1;
    }
    if (a->broke) {
        errno = EINVAL;
        return -1;
    }
    if (rp_rset_property_check (name, &e) < 0)
        return broke (a, "%s", e.text);
    return 0;
}

int rp_annotation_add (struct rp_annotation *a, const char *name,
                       const struct rp_idset *ranks)
{
    const struct rp_idset *all;
    rp_error_t e;

    if (check_call (a, name) < 0)
        return -1;
    all = rp_rset_ranks (rp_inventory_R (a->inv));
    if (ranks
        && inventory_check_ranks (ranks, all, false, EINVAL,
                                  "is not in the inventory",
                                  "are not in the inventory", &e)
               < 0)
        return broke (a, "property '%s': %s", name, e.text);
    if (namedsets_add (&a->said, name, ranks ? ranks : all) < 0) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

/* What a's instance may take back of name: said or owned.  New set. */
static struct rp_idset *mine (const struct rp_annotation *a, const char *name)
{
    const struct namedset *d = namedsets_find (&a->said, name);
    const struct rp_idset *owned =
        inventory_owned (a->inv, a->p->instance, name);
    struct rp_idset *m = d ? rp_idset_copy (d->ids) : rp_idset_create ();

    if (m && owned && rp_idset_add_set (m, owned) < 0) {
        rp_idset_destroy (m);
        return NULL;
    }
    return m;
}

int rp_annotation_remove (struct rp_annotation *a, const char *name,
                          const struct rp_idset *ranks)
{
    struct rp_idset *m;
    struct namedset *d;
    char buf[128];
    int rc = 0;

    if (check_call (a, name) < 0)
        return -1;
    if (!(m = mine (a, name))) {
        errno = ENOMEM;
        return -1;
    }
    if (ranks && !rp_idset_is_subset (ranks, m)) {
        struct rp_idset *bad = rp_idset_difference (ranks, m);
        rc = broke (a, "cannot remove property '%s' from %s: it did not add it",
                    name,
                    bad ? inventory_ranks_text (bad, buf, sizeof (buf)) : "?");
        rp_idset_destroy (bad);
    } else if ((d = namedsets_find (&a->said, name))
               && rp_idset_subtract (d->ids, ranks ? ranks : m) < 0) {
        errno = ENOMEM;
        rc = -1;
    }
    rp_idset_destroy (m);
    return rc;
}

/* --- running the stack --------------------------------------------------- */

/* Call p's annotate with a; 0, or -1 with error (EPROTO: it failed;
 * EINVAL: it broke a rule). */
static int annotate_one (struct rp_annotation *a, rp_error_t *error)
{
    struct rp_plugin *p = a->p;
    struct plugin_call call;
    int rc;

    if (!p->property.annotate)
        return 0;
    p->error[0] = '\0';
    a->active = true;
    plugin_enter (&call, p, "annotate");
    rc = p->property.annotate (p, a);
    plugin_leave (&call);
    a->active = false;
    if (rc != 0 && p->error[0])
        return rp_error_set (error, EPROTO,
                             "property plugin '%s': annotate: %s", p->instance,
                             p->error);
    if (rc != 0)
        return rp_error_set (error, EPROTO,
                             "property plugin '%s': annotate returned %d (no "
                             "message)",
                             p->instance, rc);
    if (a->broke)
        return rp_error_set (error, EINVAL, "%s", a->broken.text);
    return 0;
}

/* props without the targets of gone: {name: idset string}, empty names
 * dropped.  Takes props; new object or NULL. */
static json_t *props_without (json_t *props, const struct rp_idset *gone)
{
    json_t *none = json_object ();
    json_t *g = NULL, *out = NULL;
    const char *key;
    json_t *v;
    char *s = rp_idset_encode (gone, RP_IDSET_RANGES);

    if (!props || !none || !s)
        goto done;
    json_object_foreach (props, key, v) {
        if (json_object_set_new (none, key, json_string (s)) < 0)
            goto done;
    }
    g = none;
    none = NULL;
    out = inventory_props_diff (g, props);
done:
    free (s);
    json_decref (none);
    json_decref (g);
    json_decref (props);
    return out;
}

/* a's declaration, removed targets left out. */
static json_t *declared (const struct rp_annotation *a)
{
    json_t *o = json_object ();

    if (o && namedsets_to_json (&a->said, o) < 0) {
        json_decref (o);
        o = NULL;
    }
    return props_without (o, rp_inventory_removed (a->inv));
}

/* Log props (taken) for a's instance when it is not empty. */
static int log_props (struct rp_inventory *inv, const struct rp_annotation *a,
                      json_t *props, bool add, double now, int *events,
                      rp_error_t *error)
{
    if (!props)
        return rp_error_set (error, ENOMEM, "out of memory");
    if (json_object_size (props) == 0) {
        json_decref (props);
        return 0;
    }
    if (inventory_plugin_properties (inv, a->p->instance, props, add, now,
                                     error)
        < 0)
        return -1;
    (*events)++;
    return 0;
}

/* Bring the inventory in step with what a's instance declared. */
static int commit (struct rp_inventory *inv, const struct rp_annotation *a,
                   double now, int *events, rp_error_t *error)
{
    json_t *decl = declared (a);
    json_t *owned = props_without (inventory_owned_props (inv, a->p->instance),
                                   rp_inventory_removed (inv));
    json_t *have = NULL;
    int rc = -1;

    if (!decl || !owned) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto done;
    }
    if (log_props (inv, a, inventory_props_diff (decl, owned), false, now,
                   events, error)
        < 0)
        goto done;
    if (!(have = rp_rset_properties (rp_inventory_R (inv)))) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto done;
    }
    rc = log_props (inv, a, inventory_props_diff (have, decl), true, now,
                    events, error);
done:
    json_decref (decl);
    json_decref (owned);
    json_decref (have);
    return rc;
}

static int run (struct rp_inventory *inv, struct rp_annotation *a, size_t n,
                double now, rp_error_t *error)
{
    int events = 0;

    for (size_t i = 0; i < n; i++)
        if (annotate_one (&a[i], error) < 0)
            return -1;
    for (size_t i = 0; i < n; i++)
        if (commit (inv, &a[i], now, &events, error) < 0)
            return -1;
    return events;
}

int rp_inventory_annotate (struct rp_inventory *inv,
                           const struct rp_config *cfg, const json_t *hardware,
                           double now, rp_error_t *error)
{
    const struct rp_stack *stack =
        cfg ? rp_config_stack (cfg, RP_PLUGIN_PROPERTY) : NULL;
    size_t n = rp_stack_count (stack);
    struct rp_annotation *a;
    int rc;

    if (!inv)
        return rp_error_set (error, EINVAL, "inventory: bad arguments");
    if (!rp_inventory_R (inv))
        return rp_error_set (error, ENOENT, "no resources defined");
    if (n == 0)
        return 0;
    if (!(a = calloc (n, sizeof (*a))))
        return rp_error_set (error, ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        a[i].p = (struct rp_plugin *)rp_stack_plugin (stack, i);
        a[i].inv = inv;
        a[i].hardware = hardware;
    }
    rc = run (inv, a, n, now, error);
    for (size_t i = 0; i < n; i++)
        namedsets_clear (&a[i].said);
    free (a);
    return rc;
}
