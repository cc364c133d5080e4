/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* How the shipped validators (limits, user-limits) count the cores and
 * GPUs a jobspec asks for: the instances of every core / gpu vertex
 * (rp_jobspec_resource_total, from the smallest acceptable value of every
 * count), summed over the tree, saturating at UINT64_MAX.
 *
 * A header of static functions rather than a library, as duration.h: a
 * plugin is built from its own sources and respol's headers only.
 */
#ifndef RESPOL_PLUGINS_COUNT_H
#define RESPOL_PLUGINS_COUNT_H

#include <stdint.h>
#include <string.h>

#include <respol/jobspec.h>

static inline uint64_t count_add_sat (uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Add the core and gpu instances of r, its siblings and their children
 * to *cores and *gpus. */
static void count_cores_gpus (const struct rp_jobspec_resource *r,
                              uint64_t *cores, uint64_t *gpus)
{
    for (; r; r = rp_jobspec_resource_next (r)) {
        const char *type = rp_jobspec_resource_type (r);
        if (strcmp (type, "core") == 0)
            *cores = count_add_sat (*cores, rp_jobspec_resource_total (r));
        else if (strcmp (type, "gpu") == 0)
            *gpus = count_add_sat (*gpus, rp_jobspec_resource_total (r));
        count_cores_gpus (rp_jobspec_resource_with_first (r), cores, gpus);
    }
}

#endif
