/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* site-validator.c: an example respol validator plugin, written as a
 * tutorial.  Copy it, rename it, and make it your site's policy.
 *
 * The policy: a job may not ask for more than N GPUs on one node (N is
 * "max-gpus-per-node" in the plugin's configuration block), and a job that
 * asks for GPUs outside the site's GPU queue (optional "gpu-queue") is
 * accepted with a warning.  The configuration entry in respol.yaml:
 *
 *   validate:
 *     - plugin: /etc/respol/plugins/site.so
 *       config:
 *         max-gpus-per-node: 4
 *         gpu-queue: gpu
 *
 * Build it with nothing but the respol headers (no library is linked: the
 * rp_* and json_* functions it calls are resolved from the respol process
 * that loads it):
 *
 *   cc -shared -fPIC $(pkg-config --cflags respol) -o site.so site.c
 *
 * The whole contract is in <respol/plugin.h> and respol-plugin(7); the
 * jobspec accessors are in <respol/jobspec.h>.
 */
/* strdup is POSIX, not C11: ask for it, so that -std=c11 works too. */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* plugin.h brings in jansson.h and respol/jobspec.h. */
#include <respol/plugin.h>

/* Step 1: the plugin's own state, one per instance.
 *
 * A plugin may be configured twice in a stack (two instances, two
 * configuration blocks), so keep per-instance state behind
 * svc->set_data() / svc->get_data(), never in static variables. */
struct site {
    json_int_t max_gpus_per_node;
    char *gpu_queue; /* NULL: no GPU queue configured */
};

/* The host's service table is the same for every instance and lives as
 * long as the plugin is loaded, so one static pointer is enough. */
static const struct rp_host_services *svc;

/* Step 2: the keys of the configuration block.  Declared in the
 * descriptor (step 6), they let the host refuse any other key itself, at
 * its line and column in respol.yaml and with the closest declared key
 * ("unknown key 'gpu-queu'; did you mean 'gpu-queue'?"), before init is
 * called: a typo stops the load instead of being ignored. */
static const char *const site_keys[] = { "max-gpus-per-node", "gpu-queue",
                                         NULL };

/* Step 3: init.  Called once per instance, before any validate call, with
 * the configuration block, whose keys the host already checked.  Check
 * the values strictly.  On error, return svc->error (p, ...): the host
 * prints the message with the instance name and the file:line:column of
 * the block, and loads nothing of the whole configuration. */
static int read_config (struct rp_plugin *p, struct site *site)
{
    /* The block is a read-only JSON object (YAML is converted), borrowed
     * for the life of the instance: never modify or decref it. */
    const json_t *cfg = svc->config (p);
    json_t *max = json_object_get (cfg, "max-gpus-per-node");
    json_t *queue = json_object_get (cfg, "gpu-queue");

    if (!max)
        return svc->error (p, "'max-gpus-per-node' is required");
    if (!json_is_integer (max) || json_integer_value (max) < 0)
        return svc->error (p, "max-gpus-per-node: must be an integer >= 0");
    site->max_gpus_per_node = json_integer_value (max);

    if (queue && !json_is_string (queue))
        return svc->error (p, "gpu-queue: must be a queue name");
    if (queue && !(site->gpu_queue = strdup (json_string_value (queue))))
        return svc->error (p, "out of memory");
    return 0;
}

static int site_init (struct rp_plugin *p, const struct rp_host_services *s)
{
    struct site *site;

    svc = s;
    /* A host newer than this plugin may pass a larger table; an older one a
     * smaller table.  Every service used here is in the first release, so
     * no svc->size check is needed; a service added later would be
     * guarded with offsetof (struct rp_host_services, new) < svc->size. */
    if (!(site = calloc (1, sizeof (*site))))
        return svc->error (p, "out of memory");
    if (read_config (p, site) < 0) {
        free (site->gpu_queue);
        free (site);
        return -1;
    }
    svc->set_data (p, site);
    /* svc->log goes to the host's log handler with the instance name;
     * respol prints levels up to warning, and notice to debug only with
     * --verbose. */
    svc->log (p, RP_LOG_DEBUG, "at most %lld GPUs per node",
              (long long)site->max_gpus_per_node);
    return 0;
}

/* Step 4: fini.  Called once per instance when the stack is unloaded
 * (never after a failed init): free what init stored. */
static void site_fini (struct rp_plugin *p)
{
    struct site *site = svc->get_data (p);

    if (site) {
        free (site->gpu_queue);
        free (site);
    }
}

/* Step 5: validate.  The jobspec already passed the RFC 14/25 checks; read
 * it only through the accessors of <respol/jobspec.h>.
 *
 * Counting GPUs per node: rp_jobspec_resource_total (r) is the number of
 * instances of vertex r in the whole request (the product of the counts
 * from the top down to r; the minimum when a count is a range).  So the
 * GPUs inside one instance of a node vertex are the totals of the gpu
 * vertices below it divided by the node's own total. */

/* a + b, saturating: a huge request must not wrap around to a small one
 * (the library's totals saturate the same way). */
static uint64_t add (uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* The totals of the gpu vertices in the list r and below it. */
static uint64_t gpu_total (const struct rp_jobspec_resource *r)
{
    uint64_t n = 0;

    for (; r; r = rp_jobspec_resource_next (r)) {
        if (strcmp (rp_jobspec_resource_type (r), "gpu") == 0)
            n = add (n, rp_jobspec_resource_total (r));
        n = add (n, gpu_total (rp_jobspec_resource_with_first (r)));
    }
    return n;
}

/* Check every node and slot vertex of the list r and below it: a slot
 * always lies on one node, so a slot with too many GPUs cannot fit either,
 * and a job that names no node is still checked through its slots. */
static int check_gpus (const struct rp_jobspec_resource *r, uint64_t max,
                       struct rp_validation *v)
{
    for (; r; r = rp_jobspec_resource_next (r)) {
        const char *type = rp_jobspec_resource_type (r);
        const struct rp_jobspec_resource *with =
            rp_jobspec_resource_with_first (r);
        uint64_t gpus;

        if (strcmp (type, "node") == 0 || strcmp (type, "slot") == 0) {
            gpus = gpu_total (with) / rp_jobspec_resource_total (r);
            /* rp_validation_reject records the message and returns
             * RP_REJECT, so the verdict is one line. */
            if (gpus > max)
                return rp_validation_reject (
                    v, "requests %" PRIu64 " GPUs per %s, limit is %" PRIu64,
                    gpus, type, max);
        }
        if (check_gpus (with, max, v) == RP_REJECT)
            return RP_REJECT;
    }
    return RP_ACCEPT;
}

static int site_validate (struct rp_plugin *p, const struct rp_jobspec *js,
                          struct rp_validation *v)
{
    const struct site *site = svc->get_data (p);
    const struct rp_jobspec_resource *top = rp_jobspec_resource_first (js);
    const char *queue = rp_jobspec_queue (js); /* NULL when unset */

    if (check_gpus (top, site->max_gpus_per_node, v) == RP_REJECT)
        return RP_REJECT;

    /* A warning accepts the job and tells the user something.  A
     * validator may warn several times; every warning is reported. */
    if (site->gpu_queue && gpu_total (top) > 0
        && (!queue || strcmp (queue, site->gpu_queue) != 0))
        return rp_validation_warn (v, "job uses GPUs outside queue '%s'",
                                   site->gpu_queue);

    /* A validator could also amend the jobspec, e.g.
     *   rp_validation_amend (v, "system.queue", json_string ("gpu"));
     * the host applies amendments when the validator accepts and checks
     * the amended jobspec again. */
    return RP_ACCEPT;
}

/* Step 6: the descriptor, the one symbol the plugin exports.  Every other
 * symbol above is static.  The host checks abi_version and kind before it
 * calls anything, and uses only the fields that .size covers, so a plugin
 * built today keeps loading in every release with the same ABI version. */
static const struct rp_validate_ops site_ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = site_validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "site-gpus",
    .description = "reject jobs asking for more than N GPUs per node",
    .version = "1.0.0",
    .init = site_init,
    .fini = site_fini,
    .ops = &site_ops,
    .config_keys = site_keys,
};
