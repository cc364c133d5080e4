/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture match policy "score-fails": score fails (svc->error, then -1)
 * for every vertex.  The host must fail the match in this instance's name,
 * with this message, and allocate nothing.
 *
 * It also has a prune (always RP_WALK_CONTINUE) and an order_candidates
 * (leaves the order as it is), so that every operation is set, and its ops
 * size can be made smaller at load time with
 * $RESPOL_TEST_MATCH_OPS_SIZE (read by a constructor, before the loader
 * reads the descriptor): the loader's unit tests check that only the
 * operations the size covers are seen by the host.
 */
#include <stdlib.h>

#include <respol/plugin.h>

static const struct rp_host_services *svc;

static int init (struct rp_plugin *p, const struct rp_host_services *s)
{
    svc = s;
    if (json_object_size (s->config (p)) > 0)
        return s->error (p, "takes no configuration");
    return 0;
}

static int score (struct rp_plugin *p, const struct rp_match *m, rp_vertex_t v,
                  int64_t *score)
{
    (void)m;
    (void)v;
    (void)score;
    return svc->error (p, "score failed on purpose");
}

static int prune (struct rp_plugin *p, const struct rp_match *m, rp_vertex_t v)
{
    (void)p;
    (void)m;
    (void)v;
    return RP_WALK_CONTINUE;
}

static int order_candidates (struct rp_plugin *p, const struct rp_match *m,
                             rp_vertex_t *v, size_t n)
{
    (void)p;
    (void)m;
    (void)v;
    (void)n;
    return 0;
}

static struct rp_match_ops ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_LOW,
    .stop_after = 0,
    .score = score,
    .prune = prune,
    .order_candidates = order_candidates,
};

__attribute__ ((constructor)) static void set_size (void)
{
    const char *s = getenv ("RESPOL_TEST_MATCH_OPS_SIZE");

    if (s)
        ops.size = (uint32_t)strtoul (s, NULL, 10);
}

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_MATCH,
    .name = "score-fails",
    .description = "score fails for every vertex (test fixture)",
    .version = "1.0",
    .init = init,
    .ops = &ops,
};
