/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture match policy "bad-order": order_candidates makes the last
 * candidate a copy of the first, so with two or more candidates the
 * result is not a permutation of what it was given.  The host must fail
 * the match in this instance's name and allocate nothing. */
#include <respol/plugin.h>

static int order_candidates (struct rp_plugin *p, const struct rp_match *m,
                             rp_vertex_t *v, size_t n)
{
    (void)p;
    (void)m;
    if (n >= 2)
        v[n - 1] = v[0];
    return 0;
}

static const struct rp_match_ops ops = {
    .size = sizeof (struct rp_match_ops),
    .order = RP_MATCH_LOW,
    .stop_after = 0,
    .order_candidates = order_candidates,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_MATCH,
    .name = "bad-order",
    .description = "returns a duplicate candidate (test fixture)",
    .version = "1.0",
    .ops = &ops,
};
