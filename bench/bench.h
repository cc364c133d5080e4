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

#endif
