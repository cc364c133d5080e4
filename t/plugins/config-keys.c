/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugins that declare the keys of their configuration block
 * (config_keys), one source built three ways:
 *   declared-keys   declares limit and queue.  Its init fails on any other
 *                   key with a message of its own, so a test tells the
 *                   host's refusal (before init) from init's.
 *   old-descriptor  (-DOLD_DESCRIPTOR) a descriptor as large as before
 *                   config_keys.  The field lies in memory all the same,
 *                   with the list above, which would refuse a key "other":
 *                   the host must not read it, so {other: 1} loads (init
 *                   accepts any block).
 *   bad-keys        (-DKEY_TWICE) declares limit twice: refused at load.
 */
#include <stddef.h>
#include <string.h>

#include <respol/plugin.h>

#ifdef OLD_DESCRIPTOR
#define INIT_CHECKS false
#else
#define INIT_CHECKS true
#endif

#if defined(KEY_TWICE)
#define NAME "bad-keys"
static const char *const keys[] = { "limit", "queue", "limit", NULL };
#elif defined(OLD_DESCRIPTOR)
#define NAME "old-descriptor"
static const char *const keys[] = { "limit", "queue", NULL };
#else
#define NAME "declared-keys"
static const char *const keys[] = { "limit", "queue", NULL };
#endif

static bool declared (const char *key)
{
    for (size_t i = 0; keys[i]; i++)
        if (strcmp (keys[i], key) == 0)
            return true;
    return false;
}

static int init (struct rp_plugin *p, const struct rp_host_services *svc)
{
    const char *key;
    json_t *value;

    json_object_foreach ((json_t *)svc->config (p), key, value) {
        if (INIT_CHECKS && !declared (key))
            return svc->error (p, "init saw the undeclared key '%s'", key);
    }
    return 0;
}

static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
                     struct rp_validation *v)
{
    return RP_ACCEPT;
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
#ifdef OLD_DESCRIPTOR
    .size = offsetof (struct rp_plugin_desc, config_keys),
#else
    .size = sizeof (struct rp_plugin_desc),
#endif
    .kind = RP_PLUGIN_VALIDATE,
    .name = NAME,
    .description = "declares its configuration keys (test fixture)",
    .version = "1.0",
    .init = init,
    .ops = &ops,
    .config_keys = keys,
};
