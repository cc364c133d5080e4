/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture, not a plugin: preloaded (LD_PRELOAD) into a respol command, it
 * counts the stat(2) calls made on the path in $RESPOL_TEST_STAT_PATH and
 * writes the count, as "stat PATH: N", to the file named by
 * $RESPOL_TEST_STAT_OUT when a process that made such calls exits (the
 * processes that start the command, a wrapper script's, write nothing).  A test sees from it how
 * often a command asks a file's status (respol query asks a jobspec
 * file's once per batch of commands), which its output cannot show.
 * It wraps the C library's stat (dlsym RTLD_NEXT).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned long count;

int stat (const char *restrict path, struct stat *restrict st)
{
    int (*real) (const char *restrict, struct stat *restrict) =
        (int (*) (const char *restrict, struct stat *restrict))dlsym (
            RTLD_NEXT, "stat");
    const char *want = getenv ("RESPOL_TEST_STAT_PATH");

    if (want && !strcmp (path, want))
        count++;
    return real (path, st);
}

__attribute__ ((destructor)) static void report (void)
{
    const char *out = getenv ("RESPOL_TEST_STAT_OUT");
    const char *want = getenv ("RESPOL_TEST_STAT_PATH");
    FILE *f;

    if (!count || !out || !want || !(f = fopen (out, "w")))
        return;
    fprintf (f, "stat %s: %lu\n", want, count);
    fclose (f);
}
