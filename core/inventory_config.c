/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* R from a configuration `resources` block: rp_inventory_config_rset in
 * api/respol/inventory.h.
 *
 * The block is flux-core's [resource] table in YAML or JSON:
 *   resources:
 *     config:                      # or path: R.json (RFC 20), not both
 *       - hosts: node[0-15]
 *         cores: 0-47
 *         gpus: 0-3
 *         properties: [gpu, ib]
 *       - hosts: node0
 *         properties: [login]
 *     exclude: node[0-1]           # optional: idset or hostlist
 *     state: /var/lib/respol/resource  # the command's default --state
 * Ranks go to hosts in order of first appearance and a host named by
 * several entries gets the union of their cores, GPUs and properties
 * (flux-core's rlist_from_config).  A host with neither cores nor GPUs is
 * an error, as in flux-core ("host assigned no resources").  A relative
 * path is read from the directory of the configuration file.
 *
 * Algorithm: every (host, entry) pair is listed in order, sorted by host
 * name to find each host's first appearance, and the hosts numbered in
 * that order: O(h log h) for h pairs, nothing quadratic however the
 * entries overlap.  At most RP_RSET_MAX_TARGETS pairs.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/hostlist.h"
#include "respol/inventory.h"

#include "core/docpath.h"

struct cfg {
    const struct rp_doc *doc;
    rp_error_t *error;
};

struct pair {
    char *host;
    size_t seq;   /* order of appearance over all entries */
    size_t entry; /* index in config */
    size_t rank;
};

static int fail (struct cfg *c, const struct loc *l, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static int fail (struct cfg *c, const struct loc *l, const char *fmt, ...)
{
    char msg[RP_ERROR_TEXT_SIZE], path[128], where[DOCPATH_WHERE_SIZE];
    const char *name = c->doc ? rp_doc_name (c->doc) : "resources";
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    docpath_describe (c->doc, l, path, sizeof (path), where);
    return rp_error_set (c->error, EINVAL, "%s%s: %s%s%s", name, where, path,
                         *path ? ": " : "", msg);
}

static int only_keys (struct cfg *c, const struct loc *l,
                      const char *const *keys)
{
    for (void *it = json_object_iter (l->v); it;
         it = json_object_iter_next (l->v, it)) {
        struct loc k = at_iter (l, it);
        k.at_key = true;
        if (!in_list (k.key, keys))
            return fail (c, &k, "unknown key");
    }
    return 0;
}

static const char *string_at (struct cfg *c, const struct loc *l, bool required)
{
    if (!l->v && !required)
        return NULL;
    if (!l->v) {
        fail (c, l->up, "%s: missing", l->key);
        return NULL;
    }
    if (!json_is_string (l->v)) {
        fail (c, l, "must be a string");
        return NULL;
    }
    return json_string_value (l->v);
}

/* An idset, or one id written as a YAML integer ("cores: 0"). */
static struct rp_idset *idset_at (struct cfg *c, const struct loc *l)
{
    struct rp_idset *ids;
    const char *s;
    rp_error_t e;

    if (!l->v)
        return rp_idset_create ();
    if (json_is_integer (l->v)) {
        json_int_t id = json_integer_value (l->v);
        if (id < 0 || id > RP_IDSET_MAX_ID) {
            fail (c, l, "must be an idset");
            return NULL;
        }
        if (!(ids = rp_idset_create ())
            || rp_idset_add (ids, (unsigned int)id) < 0) {
            rp_idset_destroy (ids);
            rp_error_set (c->error, ENOMEM, "out of memory");
            return NULL;
        }
        return ids;
    }
    if (!(s = string_at (c, l, false)))
        return NULL;
    if (!(ids = rp_idset_decode (s, &e)))
        fail (c, l, "%s", e.text);
    return ids;
}

static int check_properties (struct cfg *c, const struct loc *l)
{
    rp_error_t e;

    if (!l->v)
        return 0;
    if (!json_is_array (l->v))
        return fail (c, l, "must be a list of property names");
    for (size_t i = 0; i < json_array_size (l->v); i++) {
        struct loc p = at_index (l, i);
        if (!json_is_string (p.v))
            return fail (c, &p, "must be a string");
        if (rp_rset_property_check (json_string_value (p.v), &e) < 0)
            return fail (c, &p, "%s", e.text);
    }
    return 0;
}

/* --- the pairs ------------------------------------------------------------ */

struct pairs {
    struct pair *p;
    size_t n;
    size_t cap;
};

static void pairs_free (struct pairs *ps)
{
    for (size_t i = 0; i < ps->n; i++)
        free (ps->p[i].host);
    free (ps->p);
}

static int pairs_add_entry (struct cfg *c, struct pairs *ps,
                            const struct loc *hl_loc, size_t entry)
{
    const char *s = string_at (c, hl_loc, true);
    struct rp_hostlist *hl;
    rp_error_t e;
    size_t count;

    if (!s)
        return -1;
    if (!(hl = rp_hostlist_decode (s, &e)))
        return fail (c, hl_loc, "%s", e.text);
    if ((count = rp_hostlist_count (hl)) == 0) {
        rp_hostlist_destroy (hl);
        return fail (c, hl_loc, "empty hostlist");
    }
    if (count > RP_RSET_MAX_TARGETS - ps->n) {
        rp_hostlist_destroy (hl);
        return fail (c, hl_loc, "more than %u hosts in all",
                     RP_RSET_MAX_TARGETS);
    }
    if (ps->n + count > ps->cap) {
        size_t cap = ps->n + count + 64;
        struct pair *p = realloc (ps->p, cap * sizeof (*p));
        if (!p)
            goto nomem;
        ps->p = p;
        ps->cap = cap;
    }
    for (size_t i = 0; i < count; i++) {
        char *host = rp_hostlist_nth (hl, i);
        if (!host)
            goto nomem;
        ps->p[ps->n] =
            (struct pair){ .host = host, .seq = ps->n, .entry = entry };
        ps->n++;
    }
    rp_hostlist_destroy (hl);
    return 0;
nomem:
    rp_hostlist_destroy (hl);
    return rp_error_set (c->error, ENOMEM, "out of memory");
}

static int by_host (const void *a, const void *b)
{
    const struct pair *x = a, *y = b;
    int c = strcmp (x->host, y->host);

    if (c)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_seq (const void *a, const void *b)
{
    const struct pair *x = a, *y = b;

    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Give each pair the rank of its host: hosts numbered in order of first
 * appearance.  Leaves the pairs in appearance order. */
static int pairs_rank (struct pairs *ps)
{
    size_t *first = calloc (ps->n + 1, sizeof (*first));
    size_t *rank = calloc (ps->n + 1, sizeof (*rank));
    size_t nhosts = 0, next = 0;

    if (!first || !rank) {
        free (first);
        free (rank);
        return -1;
    }
    /* In name order: h, the index of each distinct host, and where it
     * first appears. */
    qsort (ps->p, ps->n, sizeof (*ps->p), by_host);
    for (size_t i = 0; i < ps->n; i++) {
        bool same = i > 0 && !strcmp (ps->p[i].host, ps->p[i - 1].host);
        ps->p[i].rank = same ? ps->p[i - 1].rank : nhosts++;
        if (!same)
            first[ps->p[i].rank] = ps->p[i].seq;
    }
    /* In appearance order, a host's first pair comes before its others. */
    qsort (ps->p, ps->n, sizeof (*ps->p), by_seq);
    for (size_t i = 0; i < ps->n; i++) {
        size_t h = ps->p[i].rank;
        if (first[h] == ps->p[i].seq)
            rank[h] = next++;
        ps->p[i].rank = rank[h];
    }
    free (first);
    free (rank);
    return 0;
}

/* --- building R ------------------------------------------------------------
 */

struct acc {
    const char *host;
    struct rp_idset *cores;
    struct rp_idset *gpus;
};

static int acc_merge (struct acc *a, const char *host,
                      const struct rp_idset *cores, const struct rp_idset *gpus)
{
    a->host = host;
    if (!a->cores && !(a->cores = rp_idset_create ()))
        return -1;
    if (!a->gpus && !(a->gpus = rp_idset_create ()))
        return -1;
    if (rp_idset_add_set (a->cores, cores) < 0
        || rp_idset_add_set (a->gpus, gpus) < 0)
        return -1;
    return 0;
}

struct entry {
    struct rp_idset *cores;
    struct rp_idset *gpus;
    struct rp_idset *ranks;
};

static int read_entries (struct cfg *c, const struct loc *config,
                         struct entry *e, struct pairs *ps)
{
    static const char *const keys[] = { "hosts", "cores", "gpus", "properties",
                                        NULL };

    for (size_t i = 0; i < json_array_size (config->v); i++) {
        struct loc l = at_index (config, i);
        struct loc cores = at_key (&l, "cores"), gpus = at_key (&l, "gpus");
        struct loc props = at_key (&l, "properties");
        struct loc hosts = at_key (&l, "hosts");
        if (!json_is_object (l.v))
            return fail (c, &l, "must be a mapping");
        if (only_keys (c, &l, keys) < 0 || check_properties (c, &props) < 0
            || !(e[i].cores = idset_at (c, &cores))
            || !(e[i].gpus = idset_at (c, &gpus))
            || !(e[i].ranks = rp_idset_create ())
            || pairs_add_entry (c, ps, &hosts, i) < 0)
            return -1;
    }
    return 0;
}

/* Hosts that got nothing: "node[3-4] assigned no resources". */
static int check_empty (struct cfg *c, const struct loc *config,
                        const struct acc *a, size_t nhosts)
{
    struct rp_hostlist *hl = rp_hostlist_create ();
    char *s = NULL;
    int rc = 0;

    for (size_t h = 0; hl && h < nhosts; h++)
        if (rp_idset_empty (a[h].cores) && rp_idset_empty (a[h].gpus)
            && rp_hostlist_append (hl, a[h].host, NULL) < 0)
            rc = -1;
    if (!hl || rc < 0)
        rc = rp_error_set (c->error, ENOMEM, "out of memory");
    else if (rp_hostlist_count (hl) > 0) {
        s = rp_hostlist_encode (hl);
        rc = fail (c, config, "%s assigned no resources", s ? s : "?");
    }
    free (s);
    rp_hostlist_destroy (hl);
    return rc;
}

static struct rp_rset *build (struct cfg *c, const struct loc *config,
                              struct entry *e, struct pairs *ps)
{
    size_t nhosts = 0;
    struct acc *a;
    struct rp_rset *R = NULL;

    for (size_t i = 0; i < ps->n; i++)
        if (ps->p[i].rank + 1 > nhosts)
            nhosts = ps->p[i].rank + 1;
    if (!(a = calloc (nhosts + 1, sizeof (*a))))
        goto nomem;
    for (size_t i = 0; i < ps->n; i++) {
        struct pair *p = &ps->p[i];
        if (acc_merge (&a[p->rank], p->host, e[p->entry].cores,
                       e[p->entry].gpus)
                < 0
            || rp_idset_add (e[p->entry].ranks, (unsigned int)p->rank) < 0)
            goto nomem;
    }
    if (check_empty (c, config, a, nhosts) < 0 || !(R = rp_rset_create ()))
        goto done;
    for (size_t h = 0; h < nhosts; h++)
        if (rp_rset_add_target (R, (unsigned int)h, a[h].host, a[h].cores,
                                a[h].gpus, c->error)
            < 0)
            goto fail;
    for (size_t i = 0; i < json_array_size (config->v); i++) {
        json_t *props =
            json_object_get (json_array_get (config->v, i), "properties");
        for (size_t k = 0; k < json_array_size (props); k++)
            if (rp_rset_property_add (
                    R, json_string_value (json_array_get (props, k)),
                    e[i].ranks, c->error)
                < 0)
                goto fail;
    }
    goto done;
nomem:
    rp_error_set (c->error, ENOMEM, "out of memory");
fail:
    rp_rset_destroy (R);
    R = NULL;
done:
    for (size_t h = 0; a && h < nhosts; h++) {
        rp_idset_destroy (a[h].cores);
        rp_idset_destroy (a[h].gpus);
    }
    free (a);
    return R;
}

static struct rp_rset *from_config (struct cfg *c, const struct loc *config)
{
    size_t n;
    struct entry *e;
    struct pairs ps = { 0 };
    struct rp_rset *R = NULL;

    if (!json_is_array (config->v) || json_array_size (config->v) == 0) {
        fail (c, config, "must be a non-empty list of entries");
        return NULL;
    }
    n = json_array_size (config->v);
    if (!(e = calloc (n, sizeof (*e)))) {
        rp_error_set (c->error, ENOMEM, "out of memory");
        return NULL;
    }
    if (read_entries (c, config, e, &ps) == 0) {
        if (pairs_rank (&ps) < 0)
            rp_error_set (c->error, ENOMEM, "out of memory");
        else
            R = build (c, config, e, &ps);
    }
    for (size_t i = 0; i < n; i++) {
        rp_idset_destroy (e[i].cores);
        rp_idset_destroy (e[i].gpus);
        rp_idset_destroy (e[i].ranks);
    }
    free (e);
    pairs_free (&ps);
    return R;
}

/* R from the file at path (relative: to the configuration's directory). */
static struct rp_rset *from_path (struct cfg *c, const struct loc *l)
{
    const char *path = string_at (c, l, true);
    char *full = NULL, *copy = NULL;
    struct rp_doc *doc;
    struct rp_rset *R = NULL;
    rp_error_t e;

    if (!path)
        return NULL;
    if (path[0] != '/' && c->doc && strcmp (rp_doc_name (c->doc), "stdin")
        && (copy = strdup (rp_doc_name (c->doc)))
        && asprintf (&full, "%s/%s", dirname (copy), path) < 0)
        full = NULL;
    if (!(doc = rp_doc_load_file (full ? full : path, RP_DOC_JSON, &e))
        || !(R = rp_rset_from_json (rp_doc_root (doc), &e)))
        fail (c, l, "%s", e.text);
    rp_doc_destroy (doc);
    free (full);
    free (copy);
    return R;
}

static struct rp_idset *exclude_at (struct cfg *c, const struct loc *l,
                                    const struct rp_rset *R)
{
    const char *s = string_at (c, l, false);
    struct rp_inventory *inv = NULL;
    struct rp_idset *ids = NULL;
    rp_error_t e;

    if (!l->v)
        return rp_idset_create ();
    if (!s)
        return NULL;
    if (!(inv = rp_inventory_create (R, NULL, &e))
        || !(ids = rp_inventory_targets (inv, s, &e)))
        fail (c, l, "%s", e.text);
    rp_inventory_destroy (inv);
    return ids;
}

/* The block's keys, and that one of config and path is there. */
static int check_block (struct cfg *c, const struct loc *top,
                        const struct loc *res)
{
    static const char *const keys[] = { "config", "path", "exclude", "state",
                                        NULL };
    struct loc state = at_key (res, "state");
    bool config = json_object_get (res->v, "config") != NULL;
    bool path = json_object_get (res->v, "path") != NULL;

    if (!json_is_object (top->v))
        return fail (c, top, "must be a mapping");
    if (!res->v)
        return fail (c, top, "resources: missing");
    if (!json_is_object (res->v))
        return fail (c, res, "must be a mapping");
    if (only_keys (c, res, keys) < 0
        || (state.v && !string_at (c, &state, true)))
        return -1;
    if (config == path)
        return fail (c, res,
                     config ? "config and path are exclusive"
                            : "needs config or path");
    return 0;
}

struct rp_rset *rp_inventory_config_rset (const json_t *root,
                                          const struct rp_doc *doc,
                                          struct rp_idset **exclude,
                                          rp_error_t *error)
{
    struct cfg c = { .doc = doc, .error = error };
    struct loc top = { .v = (json_t *)root };
    struct loc res = at_key (&top, "resources");
    struct loc config = at_key (&res, "config"), path = at_key (&res, "path");
    struct loc excl = at_key (&res, "exclude");
    struct rp_rset *R;
    struct rp_idset *ex;

    if (check_block (&c, &top, &res) < 0)
        return NULL;
    R = config.v ? from_config (&c, &config) : from_path (&c, &path);
    if (!R)
        return NULL;
    if (!(ex = exclude_at (&c, &excl, R))) {
        rp_rset_destroy (R);
        return NULL;
    }
    if (exclude)
        *exclude = ex;
    else
        rp_idset_destroy (ex);
    return R;
}
