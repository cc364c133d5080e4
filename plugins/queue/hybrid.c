/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Queue policy "hybrid": reservations for the first N pending jobs that
 * do not start, as conservative does for all of them; a later job starts
 * when it fits now without delaying any of them.  Configuration block:
 *
 *   - plugin: hybrid
 *     config: {depth: 4}
 *
 * depth is an integer from 1 to 1000000, 1 when not given.  (hybrid with
 * depth 1 is not easy: easy starts jobs in order before it reserves.)
 *
 * Built as a site builds its own plugin: respol/queue.h only, no library
 * linked, one exported symbol; everything else is static.
 */
#include <stdint.h>
#include <stdlib.h>

#include <respol/queue.h>

#include "reserve.h"

#define DEPTH_MAX 1000000

static const struct rp_host_services *svc;

static const char *const config_keys[] = { "depth", NULL };

static int hybrid_init (struct rp_plugin *p,
                        const struct rp_host_services *services)
{
    const json_t *v = json_object_get (services->config (p), "depth");
    size_t *depth;

    svc = services;
    if (v
        && (!json_is_integer (v) || json_integer_value (v) < 1
            || json_integer_value (v) > DEPTH_MAX))
        return svc->error (p, "depth: must be an integer from 1 to %d",
                           DEPTH_MAX);
    if (!(depth = malloc (sizeof (*depth))))
        return svc->error (p, "out of memory");
    *depth = v ? (size_t)json_integer_value (v) : 1;
    svc->set_data (p, depth);
    return 0;
}

static void hybrid_fini (struct rp_plugin *p)
{
    free (svc->get_data (p));
}

static int hybrid_pass (struct rp_plugin *p, struct rp_queue *q)
{
    return reserve_pass (q, *(size_t *)svc->get_data (p));
}

static const struct rp_queue_ops ops = {
    .size = sizeof (struct rp_queue_ops),
    .pass = hybrid_pass,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_QUEUE,
    .name = "hybrid",
    .description = "reservations for the first N jobs that wait",
    .version = "1.0",
    .init = hybrid_init,
    .fini = hybrid_fini,
    .ops = &ops,
    .config_keys = config_keys,
};
