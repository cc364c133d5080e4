/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* site-match-policy.c: an example respol match policy, written as a
 * tutorial.  Copy it, rename it, and make it your site's placement policy.
 *
 * The policy: nodes with the resource property named by "prefer" (RFC 20
 * execution.properties, e.g. "fast") are taken before the others, and
 * nodes with the property named by "avoid" (e.g. "login") are never taken;
 * otherwise first fit, lowest ids first.  The configuration entry in
 * respol.yaml:
 *
 *   match:
 *     - plugin: /etc/respol/plugins/site-policy.so
 *       config:
 *         prefer: fast
 *         avoid: login
 *
 * Build it with nothing but the respol headers (no library is linked: the
 * rp_* and json_* functions it calls are resolved from the respol process
 * that loads it):
 *
 *   cc -shared -fPIC $(pkg-config --cflags respol) -o site-policy.so \
 *       site-match-policy.c
 *
 * and try it on R with properties:
 *
 *   respol R encode -r 0-3 -c 0-7 -H 'node[0-3]' |
 *       respol R set-property fast:2-3 login:0 >R.json
 *   respol match allocate --config=site.yaml -R R.json job.yaml
 *
 * The whole contract is in <respol/plugin.h> and respol-plugin(7) (MATCH
 * POLICIES); the graph accessors are in <respol/graph.h>.
 */
/* strdup is POSIX, not C11: ask for it, so that -std=c11 works too. */
#define _POSIX_C_SOURCE 200809L

#include <stdlib.h>
#include <string.h>

/* plugin.h brings in jansson.h, respol/graph.h and respol/jobspec.h;
 * rset.h checks property names as R does. */
#include <respol/plugin.h>
#include <respol/rset.h>

/* Step 1: the plugin's own state, one per instance (a policy may be
 * configured twice with different blocks: keep state behind
 * svc->set_data, never in static variables). */
struct policy {
    char *prefer; /* NULL: no preference */
    char *avoid;  /* NULL: avoid nothing */
};

/* The host's service table is the same for every instance and lives as
 * long as the plugin is loaded, so one static pointer is enough. */
static const struct rp_host_services *svc;

/* Step 2: the keys of the configuration block, declared in the descriptor
 * (step 6): the host refuses any other key itself, at its line and
 * column, before init is called. */
static const char *const policy_keys[] = { "prefer", "avoid", NULL };

static void policy_destroy (struct policy *pol)
{
    if (pol) {
        free (pol->prefer);
        free (pol->avoid);
        free (pol);
    }
}

/* One property name of the block, copied into *name (NULL when absent). */
static int read_property (struct rp_plugin *p, const char *key, char **name)
{
    json_t *v = json_object_get (svc->config (p), key);
    rp_error_t error;

    if (!v)
        return 0;
    if (!json_is_string (v))
        return svc->error (p, "%s: must be a property name", key);
    if (rp_rset_property_check (json_string_value (v), &error) < 0)
        return svc->error (p, "%s: %s", key, error.text);
    if (!(*name = strdup (json_string_value (v))))
        return svc->error (p, "out of memory");
    return 0;
}

/* Step 3: init, once per instance, with the block (its keys already
 * checked by the host).  A block that asks for nothing is refused: the
 * policy would be first fit under another name. */
static int policy_init (struct rp_plugin *p, const struct rp_host_services *s)
{
    struct policy *pol;

    svc = s;
    if (!(pol = calloc (1, sizeof (*pol))))
        return svc->error (p, "out of memory");
    if (read_property (p, "prefer", &pol->prefer) < 0
        || read_property (p, "avoid", &pol->avoid) < 0) {
        policy_destroy (pol);
        return -1;
    }
    if (!pol->prefer && !pol->avoid) {
        policy_destroy (pol);
        return svc->error (p, "give 'prefer', 'avoid' or both");
    }
    svc->set_data (p, pol);
    return 0;
}

/* Step 4: fini, once per instance when the configuration is destroyed. */
static void policy_fini (struct rp_plugin *p)
{
    policy_destroy (svc->get_data (p));
}

/* Step 5: the operations.  The host walks the containment tree below the
 * vertex a request is placed in and asks the policy about the vertices it
 * meets; a policy only steers the walk, the host takes and checks
 * everything.  All three operations are optional.
 *
 * prune: called before the host descends into v.  Skipping a node leaves
 * everything in it out of this request (it is never taken). */
static int policy_prune (struct rp_plugin *p, const struct rp_match *m,
                         rp_vertex_t v)
{
    const struct policy *pol = svc->get_data (p);

    if (pol->avoid
        && rp_graph_vertex_has_property (rp_match_graph (m), v, pol->avoid))
        return RP_WALK_SKIP;
    return RP_WALK_CONTINUE;
}

/* score: called for every candidate and for the children of every vertex
 * the host descends into; higher scores are visited and taken first,
 * equal scores in walk order (the ops' order below).  Properties are on
 * the nodes (execution targets), so a node with the preferred property
 * scores 1 and everything else 0: among the nodes, preferred ones first,
 * and within a node the walk order. */
static int policy_score (struct rp_plugin *p, const struct rp_match *m,
                         rp_vertex_t v, int64_t *score)
{
    const struct policy *pol = svc->get_data (p);

    *score = pol->prefer
             && rp_graph_vertex_has_property (rp_match_graph (m), v,
                                              pol->prefer);
    return 0;
}

/* Step 6: the operations table and the descriptor, the one symbol the
 * plugin exports.  order: RP_MATCH_LOW walks children in ascending ids.
 * stop_after: 0 looks at every candidate before choosing, which a score
 * needs to find the preferred nodes wherever they are (1 would stop at
 * the first fit, as the shipped "first" policy does). */
static const struct rp_match_ops policy_ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_LOW,
    .stop_after = 0,
    .score = policy_score,
    .prune = policy_prune,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_MATCH,
    .name = "site-policy",
    .description = "nodes with a preferred property first, never nodes "
                   "with an avoided one",
    .version = "1.0.0",
    .init = policy_init,
    .fini = policy_fini,
    .ops = &policy_ops,
    .config_keys = policy_keys,
};
