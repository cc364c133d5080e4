/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* What every benchmark program shares: die with the program's name, the
 * clock, and copying a file.  Define BENCH_NAME before including this
 * header.
 *
 * Time is the process's CPU time (CLOCK_PROCESS_CPUTIME_ID), not wall
 * time, so other work on the machine does not inflate the numbers; every
 * benchmark is single threaded.
 */
#ifndef RESPOL_BENCH_H
#define RESPOL_BENCH_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BENCH_NAME
#error "define BENCH_NAME before including bench.h"
#endif

static void die (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2), noreturn, unused));

static void die (const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    fprintf (stderr, BENCH_NAME ": ");
    vfprintf (stderr, fmt, ap);
    fputc ('\n', stderr);
    va_end (ap);
    exit (1);
}

static __attribute__ ((unused)) double now (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Copy a file (the benchmarks copy plugins to a directory the loader
 * accepts), dying on error. */
static __attribute__ ((unused)) void copy_file (const char *from,
                                                const char *to)
{
    FILE *in = fopen (from, "rb");
    FILE *out = in ? fopen (to, "wb") : NULL;
    char buf[65536];
    size_t n;

    if (!in || !out)
        die ("cannot copy %s to %s: %s", from, to, strerror (errno));
    while ((n = fread (buf, 1, sizeof (buf), in)) > 0)
        if (fwrite (buf, 1, n, out) != n)
            die ("write %s: %s", to, strerror (errno));
    fclose (in);
    if (fclose (out) != 0)
        die ("write %s: %s", to, strerror (errno));
}

#ifdef BENCH_PLUGINS
#include <stdbool.h>
#include <unistd.h>

#include "respol/config.h"
#include "respol/diag.h"

/* The private directory bench_plugin_config made, "" when none. */
static char bench_dir[4096];

static void bench_cleanup (void)
{
    char cmd[sizeof (bench_dir) + 16];

    if (!bench_dir[0])
        return;
    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", bench_dir);
    if (system (cmd) != 0)
        fprintf (stderr, BENCH_NAME ": cannot remove %s\n", bench_dir);
}

/* A configuration whose plugin-path holds copies of the plugins NAME.so
 * of plugindir (those that exist); NULL, with a note, when there is none.
 * The loader refuses plugins below a directory others can write (/tmp
 * included), so they are copied to a private directory under $HOME,
 * removed at exit.  Define BENCH_PLUGINS before including this header. */
static __attribute__ ((unused)) struct rp_config *
bench_plugin_config (const char *plugindir, const char *const *names, size_t n)
{
    struct rp_diags *diags = rp_diags_create ();
    struct rp_config *cfg;
    char path[sizeof (bench_dir) + 64];
    FILE *f;

    snprintf (bench_dir, sizeof (bench_dir), "%s/.%s-XXXXXX",
              getenv ("HOME") ? getenv ("HOME") : ".", BENCH_NAME);
    if (!mkdtemp (bench_dir))
        die ("mkdtemp %s: %s", bench_dir, strerror (errno));
    atexit (bench_cleanup);
    for (size_t i = 0; i < n; i++) {
        char from[4096 + 64];
        snprintf (from, sizeof (from), "%s/%s.so", plugindir, names[i]);
        snprintf (path, sizeof (path), "%s/%s.so", bench_dir, names[i]);
        if (access (from, R_OK) == 0)
            copy_file (from, path);
    }
    snprintf (path, sizeof (path), "%s/respol.yaml", bench_dir);
    if (!(f = fopen (path, "w")))
        die ("cannot write %s: %s", path, strerror (errno));
    fprintf (f, "plugin-path: [%s]\n", bench_dir);
    fclose (f);
    if (!(cfg = rp_config_load (path, 0, diags)))
        fprintf (stderr, BENCH_NAME ": %s: %s (built-in first fit only)\n",
                 path,
                 rp_diags_count (diags) ? rp_diags_text (diags, 0)
                                        : strerror (errno));
    rp_diags_destroy (diags);
    return cfg;
}
#endif

#endif
