/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "good": a validator that accepts every jobspec, for the
 * loader, configuration and validator-stack tests.
 *
 * init logs its configuration block (svc->log, level info).  Every other
 * behaviour is asked for in the block, so one fixture serves every test:
 *   log: PATH      append "init NAME", "validate NAME queue=Q" and
 *                  "fini NAME" lines to PATH (observes init/fini order and
 *                  what each validator sees)
 *   fail: true     validate fails: svc->error ("failing on purpose"), -1
 *   amend: {PATH: VALUE, ...}   amend the jobspec (rp_validation_amend)
 * Any other key is accepted (and logged).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/plugin.h>

struct good {
    char *log;
    bool fail;
    json_t *amend;
};

static const struct rp_host_services *svc;

static void append (struct rp_plugin *p, const char *fmt, ...)
{
    struct good *g = svc->get_data (p);
    FILE *f;
    va_list ap;

    if (!g->log || !(f = fopen (g->log, "a")))
        return;
    va_start (ap, fmt);
    vfprintf (f, fmt, ap);
    va_end (ap);
    fputc ('\n', f);
    fclose (f);
}

static int good_init (struct rp_plugin *p, const struct rp_host_services *s)
{
    const json_t *cfg = s->config (p);
    const char *log = json_string_value (json_object_get (cfg, "log"));
    char *dump = json_dumps (cfg, JSON_SORT_KEYS | JSON_COMPACT);
    struct good *g = calloc (1, sizeof (*g));

    svc = s;
    if (!g || !dump || (log && !(g->log = strdup (log)))) {
        free (g);
        free (dump);
        return svc->error (p, "out of memory");
    }
    svc->log (p, RP_LOG_INFO, "config %s", dump);
    free (dump);
    g->fail = json_is_true (json_object_get (cfg, "fail"));
    g->amend = json_object_get (cfg, "amend");
    svc->set_data (p, g);
    append (p, "init %s", svc->name (p));
    return 0;
}

static void good_fini (struct rp_plugin *p)
{
    struct good *g = svc->get_data (p);

    append (p, "fini %s", svc->name (p));
    free (g->log);
    free (g);
}

static int good_validate (struct rp_plugin *p, const struct rp_jobspec *js,
                          struct rp_validation *v)
{
    struct good *g = svc->get_data (p);
    const char *queue = rp_jobspec_queue (js);
    const char *path;
    json_t *value;

    append (p, "validate %s queue=%s", svc->name (p), queue ? queue : "-");
    if (g->fail)
        return svc->error (p, "failing on purpose");
    json_object_foreach (g->amend, path, value) {
        if (rp_validation_amend (v, path, json_incref (value)) < 0)
            return svc->error (p, "cannot amend %s", path);
    }
    return RP_ACCEPT;
}

static const struct rp_validate_ops ops = {
    .size = sizeof (struct rp_validate_ops),
    .validate = good_validate,
};

RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
    .abi_version = RP_PLUGIN_ABI_VERSION,
    .size = sizeof (struct rp_plugin_desc),
    .kind = RP_PLUGIN_VALIDATE,
    .name = "good",
    .description = "accepts every jobspec (test fixture)",
    .version = "1.0",
    .init = good_init,
    .fini = good_fini,
    .ops = &ops,
};
