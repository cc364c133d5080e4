/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Property plugin "hostlist-properties": properties from hostlists, the
 * way a site writes them down.  Configuration block: property names, each
 * with an RFC 29 hostlist or a list of them:
 *
 *   - plugin: hostlist-properties
 *     config:
 *       gpu: node[0-15]
 *       bigmem: ["node[16-19]", login1]
 *       "+debug": node[0-1]          # instance-local (RFC 20 '+')
 *
 * When the inventory is built, every target whose host name is in a
 * property's hostlists gets that property.  A host the inventory does not
 * have is skipped (one configuration may serve several clusters) and
 * logged at info level, with how many.
 *
 * Decisions: names and hostlists are checked in init (rp_rset_property_
 * check, rp_hostlist_decode), so a bad block fails the load; a property
 * with no host at all ([]) is an error too (it says nothing).  Targets are
 * found through rp_rset_rank_of (O(log n) per host), and each property is
 * said once, for all its targets.
 *
 * Built as a site builds its own plugin: respol headers only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <stdlib.h>
#include <string.h>

#include <respol/hostlist.h>
#include <respol/property.h>

static const struct rp_host_services *svc;

/* --- configuration ------------------------------------------------------ */

/* The hosts of a property's value (a hostlist or a list of them). */
static struct rp_hostlist *hosts_of (struct rp_plugin *p, const char *name,
                                     const json_t *v)
{
    struct rp_hostlist *hl = rp_hostlist_create ();
    const json_t *one = v;
    rp_error_t e;
    size_t n = json_is_array (v) ? json_array_size (v) : 1;

    for (size_t i = 0; hl && i < n; i++) {
        if (json_is_array (v))
            one = json_array_get (v, i);
        if (!json_is_string (one)) {
            svc->error (p, "%s: must be a hostlist or a list of them", name);
            goto error;
        }
        if (rp_hostlist_append (hl, json_string_value (one), &e) < 0) {
            svc->error (p, "%s: %s", name, e.text);
            goto error;
        }
    }
    if (hl && rp_hostlist_count (hl) == 0) {
        svc->error (p, "%s: no host", name);
        goto error;
    }
    if (!hl)
        svc->error (p, "out of memory");
    return hl;
error:
    rp_hostlist_destroy (hl);
    return NULL;
}

static int check (struct rp_plugin *p, const json_t *block)
{
    const char *name;
    json_t *v;
    rp_error_t e;

    json_object_foreach ((json_t *)block, name, v) {
        struct rp_hostlist *hl;
        if (rp_rset_property_check (name, &e) < 0)
            return svc->error (p, "%s", e.text);
        if (!(hl = hosts_of (p, name, v)))
            return -1;
        rp_hostlist_destroy (hl);
    }
    return 0;
}

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    svc = s;
    return check (p, s->config (p));
}

/* --- annotate ----------------------------------------------------------- */

/* The targets of R on the hosts of hl; *missing counts the others. */
static struct rp_idset *targets (const struct rp_rset *R,
                                 const struct rp_hostlist *hl, size_t *missing)
{
    struct rp_idset *ids = rp_idset_create ();
    char host[256];

    for (size_t i = 0; ids && i < rp_hostlist_count (hl); i++) {
        long rank;
        if (rp_hostlist_nth_buf (hl, i, host, sizeof (host)) < 0
            || (rank = rp_rset_rank_of (R, host)) < 0)
            (*missing)++;
        else if (rp_idset_add (ids, (unsigned int)rank) < 0) {
            rp_idset_destroy (ids);
            ids = NULL;
        }
    }
    return ids;
}

static int annotate (struct rp_plugin *p, struct rp_annotation *a)
{
    const struct rp_rset *R = rp_annotation_R (a);
    const char *name;
    json_t *v;

    json_object_foreach ((json_t *)svc->config (p), name, v) {
        struct rp_hostlist *hl = hosts_of (p, name, v);
        struct rp_idset *ids;
        size_t missing = 0;
        if (!hl)
            return -1;
        ids = targets (R, hl, &missing);
        rp_hostlist_destroy (hl);
        if (!ids)
            return svc->error (p, "out of memory");
        if (missing > 0)
            svc->log (p, RP_LOG_INFO, "%s: %zu host%s not in the inventory",
                      name, missing, missing > 1 ? "s" : "");
        if (!rp_idset_empty (ids))
            rp_annotation_add (a, name, ids);
        rp_idset_destroy (ids);
    }
    return 0;
}

static const struct rp_property_ops ops = {
    .size = sizeof (struct rp_property_ops),
    .annotate = annotate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_PROPERTY,
    .name = "hostlist-properties",
    .description = "properties from hostlists in the configuration",
    .version = "1.0",
    .init = init,
    .ops = &ops,
};
