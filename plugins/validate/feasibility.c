/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Validator plugin "feasibility": reject jobspec that the configured
 * resources can never satisfy, however long it waits (RFC 14: a validator
 * "MAY reject the jobspec").  Configuration block: exactly one of
 *
 *   - plugin: feasibility
 *     config: {R: /etc/respol/R.json}           # R (RFC 20), JSON
 *   # or {graph: FILE}     respol graph JSON or JGF (rp_graph_load)
 *   # or {xml: FILE}       an hwloc XML topology (one node)
 *   # or {generate: SPEC}  a generated cluster, e.g. "nodes=4,cores=8"
 *
 * The resource graph is built once, in init (an error there stops the
 * stack from loading, with the builder's message), and kept in a matcher
 * (respol/match.h) in the instance data.  validate asks the matcher
 * whether the jobspec could be allocated with every vertex up and free
 * (rp_matcher_satisfiability): yes accepts; no (ENODEV) rejects with
 * "never satisfiable: <reason>", the matcher's reason, e.g.
 *   never satisfiable: needs 5 nodes with 2 GPUs each, the resource set
 *   has 4
 * Any other failure (a request the matcher cannot place, EINVAL; a policy
 * failure, EPROTO) is a plugin failure: the host rejects the job with
 * "feasibility: plugin failed" and the matcher's message, since the job
 * was not judged.
 *
 * The jobspec is the one the host read, in the host's profile: the plugin
 * has none of its own, and judges canonical jobspec (RFC 14: a slot of
 * nodes, ranges, a slot inside a slot) as the matcher does, whenever the
 * host reads it so (respol jobspec validate --profile=canonical; V1, what a
 * Flux instance accepts at submission, is that command's default).
 *
 * Decisions: FILE must be an absolute path (the configuration must mean
 * the same thing whatever the current directory of the process that
 * loads it); the XML's node is rank 0, named by the host name the
 * topology records (what a job's hostlist constraint must name); the
 * matcher uses its built-in first-fit policy (the answer of a
 * satisfiability check does not depend on the policy).  The keys are
 * declared in the descriptor, so the host refuses any other.
 *
 * Built as a site builds its own plugin: respol/plugin.h (and the public
 * API of librespol: respol/match.h), no library linked, one exported
 * symbol; everything else is static.
 */
#include <errno.h>
#include <string.h>

#include <respol/document.h>
#include <respol/match.h>
#include <respol/plugin.h>

static const struct rp_host_services *svc;

/* The configuration keys, declared: the host refuses any other. */
static const char *const sources[] = { "R", "graph", "xml", "generate", NULL };

static struct rp_graph *graph_from_R (const char *path, rp_error_t *error)
{
    struct rp_doc *doc = rp_doc_load_file (path, RP_DOC_JSON, error);
    struct rp_rset *R;
    struct rp_graph *g;

    if (!doc)
        return NULL;
    R = rp_rset_from_json (rp_doc_root (doc), error);
    rp_doc_destroy (doc);
    if (!R) {
        rp_error_prefix (error, "%s", path);
        return NULL;
    }
    g = rp_graph_from_rset (R, error);
    rp_rset_destroy (R);
    return g;
}

static struct rp_graph *build (const char *key, const char *value,
                               rp_error_t *error)
{
    if (!strcmp (key, "generate"))
        return rp_graph_generate (value, error);
    if (value[0] != '/') {
        rp_error_set (error, EINVAL, "%s: '%s' is not an absolute path", key,
                      value);
        return NULL;
    }
    if (!strcmp (key, "R"))
        return graph_from_R (value, error);
    if (!strcmp (key, "graph"))
        return rp_graph_load (value, error);
    return rp_graph_from_hwloc (value, 0, NULL, error);
}

/* The one source key of the block and its value (a string). */
static int read_config (struct rp_plugin *p, const char **key,
                        const char **value)
{
    const json_t *cfg = svc->config (p);
    const char *k;
    json_t *v;

    *key = NULL;
    *value = NULL;
    json_object_foreach ((json_t *)cfg, k, v) {
        if (*key)
            return svc->error (p,
                               "'%s' and '%s': give only one of R, graph, "
                               "xml, generate",
                               *key, k);
        if (!json_is_string (v) || !json_string_length (v))
            return svc->error (p, "%s: must be a non-empty string", k);
        *key = k;
        *value = json_string_value (v);
    }
    if (!*key)
        return svc->error (p, "one of R, graph, xml, generate is required");
    return 0;
}

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    const char *key, *value;
    rp_error_t error;
    struct rp_graph *g;
    struct rp_matcher *m;

    svc = s;
    if (read_config (p, &key, &value) < 0)
        return -1;
    if (!(g = build (key, value, &error)))
        return svc->error (p, "%s", error.text);
    if (!(m = rp_matcher_create (g, &error)))
        return svc->error (p, "%s", error.text);
    svc->set_data (p, m);
    return 0;
}

static void fini (struct rp_plugin *p)
{
    rp_matcher_destroy (svc->get_data (p));
}

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    rp_error_t error;

    if (rp_matcher_satisfiability (svc->get_data (p), js, &error) == 0)
        return RP_ACCEPT;
    if (errno == ENODEV)
        return rp_validation_reject (v, "never satisfiable: %s", error.text);
    return svc->error (p, "%s", error.text);
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "feasibility",
    .description = "reject jobs the configured resources can never satisfy",
    .version = "0.1.0",
    .init = init,
    .fini = fini,
    .ops = &ops,
    .config_keys = sources,
};
