/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The resource acquisition protocol (RFC 28): producer and consumer; see
 * api/respol/acquire.h.
 *
 * Producer.  It keeps what it sent: `valid` (the targets of the initial
 * resources not removed since), `up`, the properties of the valid targets
 * and the expiration.  A later response is the difference between that
 * and the inventory now, in idset operations (ranges):
 *   gone   = valid targets the inventory removed or no longer has
 *   up'    = (valid - gone) & rp_inventory_up (inv)
 *   up     = up' - up(sent)        down = (up(sent) - up') | gone
 *   shrink = gone
 * flux-core computes down as up(sent) - up' only, so a target that was
 * already down when it is removed is in its shrink key but not in down;
 * the RFC says every shrink target SHALL be in down, and here it is.
 * Properties: per name, the targets that have it now (within valid -
 * gone) against those sent.
 *
 * Byte compatibility: flux-core builds each response with json_object_set
 * in the order resources, up (first) or up, down, shrink (later;
 * acquire_respond_next), sends expiration alone ({"expiration": f},
 * resource-update), and dumps with JSON_COMPACT, keeping insertion order.
 * R is rebuilt here in rlist_to_R's order.  The members of "children"
 * and of "properties" come, in flux-core, from hash tables (zhashx), whose
 * order depends on how the node was built; respol writes core before gpu
 * and properties by name.  flux-core 0.88 sends no property-add or
 * property-remove: their place (after shrink, before expiration) follows
 * the RFC's list.
 *
 * Consumer.  Each response is checked whole before anything changes;
 * then shrink, down, up, properties and expiration are applied in that
 * order, each costing in the targets it names.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "respol/acquire.h"
#include "respol/graph.h"

#include "core/inventory_private.h"

static int nomem (rp_error_t *error)
{
    return rp_error_set (error, ENOMEM, "out of memory");
}

static json_t *idset_json (const struct rp_idset *ids)
{
    char *s = rp_idset_encode (ids, RP_IDSET_RANGES);
    json_t *o = s ? json_string (s) : NULL;

    free (s);
    return o;
}

/* o[key] = v (taken); false on failure. */
static bool put (json_t *o, const char *key, json_t *v)
{
    return v && json_object_set_new (o, key, v) == 0;
}

/* --- R in flux-core's key order ------------------------------------------ */

static bool copy_key (json_t *to, const json_t *from, const char *key)
{
    json_t *v = json_object_get (from, key);

    return !v || json_object_set (to, key, v) == 0;
}

/* Copy the keys of from that are not in skip (NULL terminated). */
static bool copy_rest (json_t *to, const json_t *from, const char *const *skip)
{
    const char *key;
    json_t *v;

    json_object_foreach ((json_t *)from, key, v) {
        size_t i = 0;
        while (skip[i] && strcmp (skip[i], key) != 0)
            i++;
        if (!skip[i] && json_object_set (to, key, v) < 0)
            return false;
    }
    return true;
}

static json_t *flux_entry (const json_t *e)
{
    static const char *const kids[] = { "core", "gpu", NULL };
    static const char *const top[] = { "rank", "children", NULL };
    const json_t *ch = json_object_get (e, "children");
    json_t *o = json_object (), *c = json_object ();

    if (!o || !c || !copy_key (o, e, "rank") || !copy_key (c, ch, "core")
        || !copy_key (c, ch, "gpu") || !copy_rest (c, ch, kids)
        || json_object_set (o, "children", c) < 0 || !copy_rest (o, e, top)) {
        json_decref (o);
        o = NULL;
    }
    json_decref (c);
    return o;
}

static json_t *flux_execution (const json_t *x)
{
    static const char *const order[] = { "R_lite",     "nslots",   "starttime",
                                         "expiration", "nodelist", "properties",
                                         NULL };
    json_t *o = json_object (), *lite = json_array ();
    size_t i;
    json_t *e;

    if (!o || !lite || json_object_set (o, "R_lite", lite) < 0)
        goto error;
    json_array_foreach (json_object_get (x, "R_lite"), i, e) {
        if (json_array_append_new (lite, flux_entry (e)) < 0)
            goto error;
    }
    for (i = 1; order[i]; i++)
        if (!copy_key (o, x, order[i]))
            goto error;
    if (!copy_rest (o, x, order))
        goto error;
    json_decref (lite);
    return o;
error:
    json_decref (lite);
    json_decref (o);
    return NULL;
}

static json_t *flux_R (const struct rp_rset *R)
{
    static const char *const top[] = { "version", "execution", NULL };
    json_t *j = rp_rset_to_json (R);
    json_t *o = json_object ();

    if (!j || !o || !copy_key (o, j, "version")
        || !put (o, "execution",
                 flux_execution (json_object_get (j, "execution")))
        || !copy_rest (o, j, top)) {
        json_decref (o);
        o = NULL;
    }
    json_decref (j);
    return o;
}

char *rp_acquire_encode (const json_t *response)
{
    if (!response) {
        errno = EINVAL;
        return NULL;
    }
    return json_dumps (response, JSON_COMPACT);
}

/* --- producer ------------------------------------------------------------ */

struct rp_acquire_producer {
    bool started;
    struct rp_idset *valid;
    struct rp_idset *up;
    json_t *props; /* name -> idset string, within valid */
    double expiration;
};

struct rp_acquire_producer *rp_acquire_producer_create (void)
{
    return calloc (1, sizeof (struct rp_acquire_producer));
}

void rp_acquire_producer_destroy (struct rp_acquire_producer *p)
{
    int saved = errno;

    if (p) {
        rp_idset_destroy (p->valid);
        rp_idset_destroy (p->up);
        json_decref (p->props);
        free (p);
    }
    errno = saved;
}

/* Targets of inv a scheduler may be told of: not excluded or removed. */
static struct rp_idset *alive (const struct rp_inventory *inv)
{
    struct rp_idset *ids = rp_idset_copy (rp_rset_ranks (rp_inventory_R (inv)));

    if (ids
        && (rp_idset_subtract (ids, rp_inventory_excluded (inv)) < 0
            || rp_idset_subtract (ids, rp_inventory_removed (inv)) < 0)) {
        rp_idset_destroy (ids);
        ids = NULL;
    }
    return ids;
}

/* The members of props ({name: idset}) restricted to the targets of
 * within, empty ones left out. */
static json_t *props_restrict (const json_t *props,
                               const struct rp_idset *within)
{
    json_t *o = json_object ();
    const char *name;
    json_t *v;

    json_object_foreach ((json_t *)props, name, v) {
        struct rp_idset *ids = rp_idset_decode (json_string_value (v), NULL);
        struct rp_idset *in = ids ? rp_idset_intersect (ids, within) : NULL;
        bool ok =
            o && in && (rp_idset_empty (in) || put (o, name, idset_json (in)));
        rp_idset_destroy (ids);
        rp_idset_destroy (in);
        if (!ok) {
            json_decref (o);
            return NULL;
        }
    }
    return o;
}

/* The properties of R on the targets of within. */
static json_t *props_within (const struct rp_rset *R,
                             const struct rp_idset *within)
{
    json_t *all = rp_rset_properties (R);
    json_t *o = all ? props_restrict (all, within) : NULL;

    json_decref (all);
    return o;
}

json_t *rp_acquire_producer_first (struct rp_acquire_producer *p,
                                   const struct rp_inventory *inv,
                                   rp_error_t *error)
{
    const struct rp_rset *R = rp_inventory_R (inv);
    struct rp_idset *valid = NULL, *up = NULL;
    struct rp_rset *res = NULL;
    json_t *o = NULL;

    if (!p || !R) {
        rp_error_set (error, p ? ENOENT : EINVAL,
                      p ? "no resources defined" : "acquire: bad arguments");
        return NULL;
    }
    if (!(valid = alive (inv)) || !(up = rp_inventory_up (inv))
        || !(res = rp_rset_copy_ranks (R, valid)))
        goto nomem;
    if (rp_idset_empty (valid)) {
        rp_error_set (error, EINVAL, "every target is excluded or removed");
        goto done;
    }
    if (!(o = json_object ()) || !put (o, "resources", flux_R (res))
        || !put (o, "up", idset_json (up)))
        goto nomem;
    json_decref (p->props);
    if (!(p->props = props_within (R, valid)))
        goto nomem;
    rp_idset_destroy (p->valid);
    rp_idset_destroy (p->up);
    p->valid = valid;
    p->up = up;
    valid = up = NULL;
    p->expiration = rp_rset_expiration (R);
    p->started = true;
    goto done;
nomem:
    json_decref (o);
    o = NULL;
    nomem (error);
done:
    rp_idset_destroy (valid);
    rp_idset_destroy (up);
    rp_rset_destroy (res);
    return o;
}

/* Sent targets that are gone: removed, or no longer in R. */
static struct rp_idset *gone (const struct rp_acquire_producer *p,
                              const struct rp_inventory *inv)
{
    struct rp_idset *g =
        rp_idset_difference (p->valid, rp_rset_ranks (rp_inventory_R (inv)));
    struct rp_idset *rm =
        rp_idset_intersect (p->valid, rp_inventory_removed (inv));

    if (!g || !rm || rp_idset_add_set (g, rm) < 0) {
        rp_idset_destroy (g);
        g = NULL;
    }
    rp_idset_destroy (rm);
    return g;
}

struct delta {
    struct rp_idset *valid; /* valid - gone */
    struct rp_idset *gone;
    struct rp_idset *up; /* up now */
    struct rp_idset *went_up;
    struct rp_idset *went_down;
    json_t *props;
    json_t *padd;
    json_t *prem;
};

static void delta_free (struct delta *d)
{
    rp_idset_destroy (d->valid);
    rp_idset_destroy (d->gone);
    rp_idset_destroy (d->up);
    rp_idset_destroy (d->went_up);
    rp_idset_destroy (d->went_down);
    json_decref (d->props);
    json_decref (d->padd);
    json_decref (d->prem);
}

static int delta_make (const struct rp_acquire_producer *p,
                       const struct rp_inventory *inv, struct delta *d)
{
    struct rp_idset *inv_up = rp_inventory_up (inv);
    json_t *sent = NULL;
    int rc = -1;

    if (!inv_up || !(d->gone = gone (p, inv))
        || !(d->valid = rp_idset_difference (p->valid, d->gone))
        || !(d->up = rp_idset_intersect (d->valid, inv_up))
        || !(d->went_up = rp_idset_difference (d->up, p->up))
        || !(d->went_down = rp_idset_difference (p->up, d->up))
        || rp_idset_add_set (d->went_down, d->gone) < 0
        || !(d->props = props_within (rp_inventory_R (inv), d->valid)))
        goto done;
    /* What was sent, on the targets still valid. */
    if (!(sent = props_restrict (p->props, d->valid)))
        goto done;
    if (!(d->padd = inventory_props_diff (sent, d->props))
        || !(d->prem = inventory_props_diff (d->props, sent)))
        goto done;
    rc = 0;
done:
    rp_idset_destroy (inv_up);
    json_decref (sent);
    return rc;
}

static bool put_ids (json_t *o, const char *key, const struct rp_idset *ids)
{
    return rp_idset_empty (ids) || put (o, key, idset_json (ids));
}

static bool put_props (json_t *o, const char *key, json_t *props)
{
    return json_object_size (props) == 0
           || json_object_set (o, key, props) == 0;
}

int rp_acquire_producer_next (struct rp_acquire_producer *p,
                              const struct rp_inventory *inv, json_t **response,
                              rp_error_t *error)
{
    struct delta d = { 0 };
    double exp;
    json_t *o = NULL;

    if (!p || !p->started || !response || !rp_inventory_R (inv))
        return rp_error_set (error, EINVAL, "acquire: no initial response yet");
    *response = NULL;
    exp = rp_rset_expiration (rp_inventory_R (inv));
    if (delta_make (p, inv, &d) < 0 || !(o = json_object ())
        || !put_ids (o, "up", d.went_up) || !put_ids (o, "down", d.went_down)
        || !put_ids (o, "shrink", d.gone)
        || !put_props (o, "property-add", d.padd)
        || !put_props (o, "property-remove", d.prem)
        || (exp != p->expiration && !put (o, "expiration", json_real (exp)))) {
        json_decref (o);
        delta_free (&d);
        return nomem (error);
    }
    rp_idset_destroy (p->valid);
    rp_idset_destroy (p->up);
    json_decref (p->props);
    p->valid = d.valid;
    p->up = d.up;
    p->props = d.props;
    d.valid = d.up = NULL;
    d.props = NULL;
    p->expiration = exp;
    delta_free (&d);
    if (json_object_size (o) == 0) {
        json_decref (o);
        return 0;
    }
    *response = o;
    return 1;
}

/* --- consumer ------------------------------------------------------------ */

struct rp_acquire_consumer {
    struct rp_rset *R;
    struct rp_idset *up;
    struct rp_idset *removed;
    struct rp_matcher *m;
};

static bool has_property (unsigned int rank, const char *name, void *arg)
{
    const struct rp_acquire_consumer *c = arg;

    return rp_rset_has_property (c->R, rank, name);
}

static const char *value_of (unsigned int rank, const char *key, void *arg)
{
    const struct rp_acquire_consumer *c = arg;

    return rp_rset_property_value (c->R, rank, key);
}

/* The idset at key (NULL: absent, *ids stays NULL), within R. */
static int get_ids (const struct rp_rset *R, const json_t *o, const char *key,
                    struct rp_idset **ids, rp_error_t *error)
{
    json_t *v = json_object_get (o, key);
    struct rp_idset *extra;
    char buf[128];

    *ids = NULL;
    if (!v)
        return 0;
    if (!json_is_string (v))
        return rp_error_set (error, EINVAL, "%s: must be an idset string", key);
    if (!(*ids = rp_idset_decode (json_string_value (v), error)))
        return rp_error_prefix (error, "%s", key);
    if (rp_idset_is_subset (*ids, rp_rset_ranks (R)))
        return 0;
    extra = rp_idset_difference (*ids, rp_rset_ranks (R));
    rp_error_set (error, EINVAL, "%s: %s %s not in the resources", key,
                  extra ? inventory_ranks_text (extra, buf, sizeof (buf)) : "?",
                  extra && rp_idset_count (extra) == 1 ? "is" : "are");
    rp_idset_destroy (extra);
    rp_idset_destroy (*ids);
    *ids = NULL;
    return -1;
}

static int check_props (const struct rp_rset *R, const json_t *o,
                        const char *key, rp_error_t *error)
{
    json_t *props = json_object_get (o, key);
    const char *name;
    json_t *v;

    if (!props)
        return 0;
    if (!json_is_object (props))
        return rp_error_set (error, EINVAL, "%s: must be an object", key);
    json_object_foreach (props, name, v) {
        struct rp_idset *ids = NULL;
        int rc = rp_rset_property_check (name, error);
        if (rc == 0)
            rc = get_ids (R, props, name, &ids, error);
        rp_idset_destroy (ids);
        if (rc < 0)
            return rp_error_prefix (error, "%s", key);
    }
    return 0;
}

static int set_states (struct rp_acquire_consumer *c,
                       const struct rp_idset *ids, enum rp_vertex_state st)
{
    struct rp_graph *g = rp_matcher_graph (c->m);

    for (unsigned int r = rp_idset_first (ids); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ids, r))
        if (rp_graph_set_state (g, rp_graph_rank_vertex (g, r), st, NULL) < 0)
            return -1;
    return 0;
}

struct rp_acquire_consumer *rp_acquire_consumer_create (const json_t *initial,
                                                        rp_error_t *error)
{
    static const char *const keys[] = { "resources", "up", NULL };
    struct rp_acquire_consumer *c = calloc (1, sizeof (*c));
    struct rp_idset *down = NULL;
    struct rp_graph *g;

    if (!c) {
        nomem (error);
        return NULL;
    }
    if (!json_is_object (initial)) {
        rp_error_set (error, EINVAL, "the initial response is not an object");
        goto error;
    }
    if (inventory_only_keys (initial, keys, error) < 0)
        goto error;
    if (!json_object_get (initial, "resources")
        || !json_object_get (initial, "up")) {
        rp_error_set (error, EINVAL, "%s: missing",
                      json_object_get (initial, "up") ? "resources" : "up");
        goto error;
    }
    if (!(c->R = rp_rset_from_json (json_object_get (initial, "resources"),
                                    error))) {
        rp_error_prefix (error, "resources");
        goto error;
    }
    if (get_ids (c->R, initial, "up", &c->up, error) < 0)
        goto error;
    if (!(c->removed = rp_idset_create ())
        || !(down = rp_idset_difference (rp_rset_ranks (c->R), c->up))) {
        nomem (error);
        goto error;
    }
    if (!(g = rp_graph_from_rset (c->R, error))
        || !(c->m = rp_matcher_create (g, error)))
        goto error;
    rp_matcher_set_properties (c->m, has_property, c);
    rp_matcher_set_values (c->m, value_of, c);
    if (set_states (c, down, RP_VERTEX_DOWN) < 0) {
        nomem (error);
        goto error;
    }
    rp_idset_destroy (down);
    return c;
error:
    rp_idset_destroy (down);
    rp_acquire_consumer_destroy (c);
    return NULL;
}

void rp_acquire_consumer_destroy (struct rp_acquire_consumer *c)
{
    int saved = errno;

    if (c) {
        rp_matcher_destroy (c->m);
        rp_rset_destroy (c->R);
        rp_idset_destroy (c->up);
        rp_idset_destroy (c->removed);
        free (c);
    }
    errno = saved;
}

struct update {
    struct rp_idset *up;
    struct rp_idset *down;
    struct rp_idset *shrink;
    double expiration; /* < 0: none */
};

static void update_free (struct update *u)
{
    rp_idset_destroy (u->up);
    rp_idset_destroy (u->down);
    rp_idset_destroy (u->shrink);
}

/* ids (may be NULL) less shrink (may be NULL): a new set, never NULL but
 * on ENOMEM. */
static struct rp_idset *less (const struct rp_idset *ids,
                              const struct rp_idset *shrink)
{
    if (!ids)
        return rp_idset_create ();
    return shrink ? rp_idset_difference (ids, shrink) : rp_idset_copy (ids);
}

/* The checks that involve more than one key. */
static int check_update (const struct rp_acquire_consumer *c, struct update *u,
                         rp_error_t *error)
{
    struct rp_idset *up = less (u->up, u->shrink);
    struct rp_idset *down = less (u->down, u->shrink);
    int rc = -1;
    char buf[128];

    if (!up || !down) {
        nomem (error);
        goto done;
    }
    if (rp_idset_intersects (up, c->removed)) {
        struct rp_idset *bad = rp_idset_intersect (up, c->removed);
        rp_error_set (error, EINVAL, "up: %s %s removed",
                      bad ? inventory_ranks_text (bad, buf, sizeof (buf)) : "?",
                      bad && rp_idset_count (bad) == 1 ? "was" : "were");
        rp_idset_destroy (bad);
        goto done;
    }
    if (rp_idset_intersects (up, down)) {
        struct rp_idset *bad = rp_idset_intersect (up, down);
        rp_error_set (error, EINVAL, "%s %s both up and down",
                      bad ? inventory_ranks_text (bad, buf, sizeof (buf)) : "?",
                      bad && rp_idset_count (bad) == 1 ? "is" : "are");
        rp_idset_destroy (bad);
        goto done;
    }
    rp_idset_destroy (u->up);
    rp_idset_destroy (u->down);
    u->up = up;
    u->down = down;
    up = down = NULL;
    rc = 0;
done:
    rp_idset_destroy (up);
    rp_idset_destroy (down);
    return rc;
}

static int check_expiration (const struct rp_rset *R, const json_t *o,
                             double *exp, rp_error_t *error)
{
    json_t *v = json_object_get (o, "expiration");
    double start = rp_rset_starttime (R);

    *exp = -1;
    if (!v)
        return 0;
    if (!json_is_number (v) || !isfinite (json_number_value (v))
        || json_number_value (v) < 0)
        return rp_error_set (error, EINVAL,
                             "expiration: must be a number >= 0");
    *exp = json_number_value (v);
    if (*exp > 0 && start > 0 && *exp <= start)
        return rp_error_set (error, EINVAL,
                             "expiration: must be after the starttime");
    return 0;
}

static int parse_update (const struct rp_acquire_consumer *c, const json_t *o,
                         struct update *u, rp_error_t *error)
{
    static const char *const keys[] = {
        "up",         "down", "shrink", "property-add", "property-remove",
        "expiration", NULL
    };

    if (!json_is_object (o))
        return rp_error_set (error, EINVAL, "a response must be an object");
    if (json_object_get (o, "resources"))
        return rp_error_set (error, EINVAL,
                             "resources: only in the initial response");
    if (inventory_only_keys (o, keys, error) < 0)
        return -1;
    if (json_object_size (o) == 0)
        return rp_error_set (error, EINVAL, "an empty response");
    if (get_ids (c->R, o, "up", &u->up, error) < 0
        || get_ids (c->R, o, "down", &u->down, error) < 0
        || get_ids (c->R, o, "shrink", &u->shrink, error) < 0
        || check_props (c->R, o, "property-add", error) < 0
        || check_props (c->R, o, "property-remove", error) < 0
        || check_expiration (c->R, o, &u->expiration, error) < 0)
        return -1;
    return check_update (c, u, error);
}

static int apply_props (struct rp_acquire_consumer *c, const json_t *o,
                        const char *key, bool add, rp_error_t *error)
{
    const char *name;
    json_t *v;

    json_object_foreach (json_object_get (o, key), name, v) {
        struct rp_idset *ids = rp_idset_decode (json_string_value (v), error);
        int rc = !ids  ? -1
                 : add ? rp_rset_property_add (c->R, name, ids, error)
                       : rp_rset_property_remove (c->R, name, ids, error);
        rp_idset_destroy (ids);
        if (rc < 0)
            return -1;
    }
    return 0;
}

int rp_acquire_consumer_apply (struct rp_acquire_consumer *c,
                               const json_t *response, rp_error_t *error)
{
    struct update u = { 0 };
    int rc = -1;

    if (!c)
        return rp_error_set (error, EINVAL, "acquire: bad arguments");
    if (parse_update (c, response, &u, error) < 0)
        goto done;
    if (u.shrink
        && (rp_idset_add_set (c->removed, u.shrink) < 0
            || rp_idset_subtract (c->up, u.shrink) < 0
            || rp_matcher_remove_targets (c->m, u.shrink, error) < 0))
        goto done;
    if (set_states (c, u.down, RP_VERTEX_DOWN) < 0
        || rp_idset_subtract (c->up, u.down) < 0
        || set_states (c, u.up, RP_VERTEX_UP) < 0
        || rp_idset_add_set (c->up, u.up) < 0) {
        nomem (error);
        goto done;
    }
    if (apply_props (c, response, "property-add", true, error) < 0
        || apply_props (c, response, "property-remove", false, error) < 0
        || (u.expiration >= 0
            && rp_rset_set_times (c->R, rp_rset_starttime (c->R), u.expiration,
                                  error)
                   < 0))
        goto done;
    rc = 0;
done:
    update_free (&u);
    return rc;
}

int rp_acquire_consumer_hello (struct rp_acquire_consumer *c, uint64_t jobid,
                               const struct rp_rset *R,
                               const struct rp_idset *free, rp_error_t *error)
{
    struct rp_idset *keep;
    struct rp_rset *held;
    int rc;

    if (!c || !R)
        return rp_error_set (error, EINVAL, "acquire: bad arguments");
    if (!(keep = free ? rp_idset_difference (rp_rset_ranks (R), free)
                      : rp_idset_copy (rp_rset_ranks (R))))
        return nomem (error);
    if (rp_idset_empty (keep)) {
        rp_idset_destroy (keep);
        return 0;
    }
    if (!(held = rp_rset_copy_ranks (R, keep))) {
        rp_idset_destroy (keep);
        return nomem (error);
    }
    rc = rp_matcher_hello (c->m, jobid, held, error);
    if (rc < 0)
        rp_error_prefix (error, "job %ju", (uintmax_t)jobid);
    rp_rset_destroy (held);
    rp_idset_destroy (keep);
    return rc;
}

struct rp_matcher *rp_acquire_consumer_matcher (struct rp_acquire_consumer *c)
{
    return c ? c->m : NULL;
}

const struct rp_rset *
rp_acquire_consumer_resources (const struct rp_acquire_consumer *c)
{
    return c ? c->R : NULL;
}

const struct rp_idset *
rp_acquire_consumer_up (const struct rp_acquire_consumer *c)
{
    return c ? c->up : NULL;
}

const struct rp_idset *
rp_acquire_consumer_removed (const struct rp_acquire_consumer *c)
{
    return c ? c->removed : NULL;
}
