/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* What the event log fuzz targets (fuzz-eventlog.c, fuzz-flux-eventlog.c)
 * share: abort() on a broken invariant, so libFuzzer keeps the input, and
 * the shape of a reader's error, "PATH:LINE: ..." with LINE >= 1. */
#ifndef RESPOL_FUZZ_EVENTLOG_CHECKS_H
#define RESPOL_FUZZ_EVENTLOG_CHECKS_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static void check (bool cond)
{
    if (!cond)
        abort ();
}

static bool names_line (const char *text, const char *path)
{
    size_t n = strlen (path);
    char *end;

    if (strncmp (text, path, n) != 0 || text[n] != ':')
        return false;
    return strtoul (text + n + 1, &end, 10) >= 1 && end[0] == ':';
}

#endif
