/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bench-plugin: the cost of the plugin runtime, as a Markdown table.
 *
 *   bench/bench-plugin [--quick] [--plugin=FILE]
 *
 * FILE is an accepting validator (default: the fixture plugin "good",
 * $RESPOL_FIXTURE_PLUGINDIR/good.so, else t/plugins/.libs/good.so from the
 * build directory).  It is copied to ten distinct files in a private
 * directory so a ten-plugin stack loads ten shared objects, as a site's
 * would.
 *
 * Rows:
 * - one run of a validator stack of 0, 1 and 10 accepting validators over a
 *   typical V1 jobspec (rp_config_validate), and the cost per plugin call:
 *   (t10 - t0) / 10;
 * - loading a ten-plugin stack: read the configuration, resolve, check,
 *   dlopen and init ten plugins, then finalise and unload them.
 * Time is CPU time (CLOCK_PROCESS_CPUTIME_ID), each row repeated until it
 * has run MIN_SECONDS.  --quick runs each row a few times: a smoke test,
 * not a measurement.  Exits 1 if a stack fails to load or rejects.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "respol/config.h"
#include "respol/diag.h"
#include "respol/jobspec.h"

#define BENCH_NAME "bench-plugin"
#include "bench.h"

#define MIN_SECONDS 0.5
#define NPLUGINS 10

static bool quick;

static const char jobspec_yaml[] = "version: 1\n"
                                   "resources:\n"
                                   "  - type: node\n"
                                   "    count: 2\n"
                                   "    with:\n"
                                   "      - type: slot\n"
                                   "        count: 4\n"
                                   "        label: task\n"
                                   "        with:\n"
                                   "          - type: core\n"
                                   "            count: 4\n"
                                   "tasks:\n"
                                   "  - command: [app]\n"
                                   "    slot: task\n"
                                   "    count: {per_slot: 1}\n"
                                   "attributes:\n"
                                   "  system:\n"
                                   "    duration: 3600.0\n"
                                   "    queue: batch\n";

/* The plugins are copied into a private directory under $HOME: the loader
 * refuses a plugin below a directory others can write, /tmp included. */
static char dir[4096];

/* A configuration of n validators p0.so..p(n-1).so; returns its path. */
static char *write_config (int n)
{
    char *path;
    FILE *f;

    if (asprintf (&path, "%s/stack%d.yaml", dir, n) < 0
        || !(f = fopen (path, "w")))
        die ("cannot write a configuration in %s", dir);
    fprintf (f, "validate:%s\n", n == 0 ? " []" : "");
    for (int i = 0; i < n; i++)
        fprintf (f, "  - plugin: %s/p%d.so\n", dir, i);
    fclose (f);
    return path;
}

static struct rp_config *load (const char *path)
{
    struct rp_diags *diags = rp_diags_create ();
    struct rp_config *cfg = diags ? rp_config_load (path, 0, diags) : NULL;

    if (!cfg)
        die ("%s: %s", path,
             diags && rp_diags_count (diags) ? rp_diags_text (diags, 0)
                                             : strerror (errno));
    rp_diags_destroy (diags);
    return cfg;
}

/* Seconds per run of the stack of cfg over js. */
static double time_validate (const struct rp_config *cfg,
                             const struct rp_jobspec *js, long *iterations)
{
    long batch = 1024, total = 0;
    double t0 = now (), elapsed;

    do {
        for (long i = 0; i < batch; i++) {
            struct rp_jobspec *amended = NULL;
            if (rp_config_validate (cfg, js, &amended, NULL) != RP_ACCEPT)
                die ("the stack did not accept the jobspec");
            rp_jobspec_destroy (amended);
        }
        total += batch;
        batch *= 2;
        elapsed = now () - t0;
    } while (!quick && elapsed < MIN_SECONDS);
    *iterations = total;
    return elapsed / (double)total;
}

static double time_load (const char *path, long *iterations)
{
    long total = 0;
    double t0 = now (), elapsed;

    do {
        rp_config_destroy (load (path));
        total++;
        elapsed = now () - t0;
    } while (!quick && elapsed < MIN_SECONDS);
    *iterations = total;
    return elapsed / (double)total;
}

static const char *default_plugin (void)
{
    static char path[4096];
    const char *d = getenv ("RESPOL_FIXTURE_PLUGINDIR");

    snprintf (path, sizeof (path), "%s/good.so", d ? d : "t/plugins/.libs");
    return path;
}

static void usage (FILE *f)
{
    fprintf (f, "Usage: bench-plugin [--quick] [--plugin=FILE]\n");
}

static void cleanup (void)
{
    char cmd[sizeof (dir) + 16];
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", dir);
    if (system (cmd) != 0)
        fprintf (stderr, "bench-plugin: cannot remove %s\n", dir);
}

int main (int argc, char **argv)
{
    static const struct option opts[] = {
        { "quick", no_argument, NULL, 'q' },
        { "plugin", required_argument, NULL, 'p' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    const char *plugin = default_plugin ();
    int sizes[] = { 0, 1, NPLUGINS };
    double per_run[3];
    struct rp_jobspec *js;
    struct rp_diags *diags;
    int c;

    while ((c = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'q':
            quick = true;
            break;
        case 'p':
            plugin = optarg;
            break;
        case 'h':
            usage (stdout);
            return 0;
        default:
            usage (stderr);
            return 2;
        }
    }
    if (optind != argc) {
        usage (stderr);
        return 2;
    }
    snprintf (dir, sizeof (dir), "%s/.bench-plugin-XXXXXX",
              getenv ("HOME") ? getenv ("HOME") : ".");
    if (!mkdtemp (dir))
        die ("mkdtemp %s: %s", dir, strerror (errno));
    atexit (cleanup);
    for (int i = 0; i < NPLUGINS; i++) {
        char to[sizeof (dir) + 16];
        snprintf (to, sizeof (to), "%s/p%d.so", dir, i);
        copy_file (plugin, to);
    }
    if (!(diags = rp_diags_create ())
        || !(js = rp_jobspec_load (jobspec_yaml, sizeof (jobspec_yaml) - 1,
                                   "bench.yaml", RP_JOBSPEC_V1, diags)))
        die ("the benchmark jobspec does not load");
    rp_diags_destroy (diags);

    printf ("| operation | iterations | time |\n|---|---:|---:|\n");
    for (int i = 0; i < 3; i++) {
        char *path = write_config (sizes[i]);
        struct rp_config *cfg = load (path);
        long n;

        per_run[i] = time_validate (cfg, js, &n);
        printf ("| validator stack of %d, one jobspec | %ld | %.1f ns |\n",
                sizes[i], n, per_run[i] * 1e9);
        rp_config_destroy (cfg);
        free (path);
    }
    printf ("| one plugin call through the stack ((t10 - t0) / 10) | - | "
            "%.1f ns |\n",
            (per_run[2] - per_run[0]) / NPLUGINS * 1e9);
    {
        char *path = write_config (NPLUGINS);
        long n;
        double t = time_load (path, &n);
        printf ("| load, init, fini and unload a stack of %d plugins | %ld | "
                "%.3f ms |\n",
                NPLUGINS, n, t * 1e3);
        free (path);
    }
    rp_jobspec_destroy (js);
    return 0;
}
