/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* What the job shell's unit tests share (shell/test/shell.c,
 * shell/slurm/test/step.c): the path of a topology of t/data/topologies,
 * and an idset as text that needs no freeing.
 */
#ifndef RESPOL_SHELL_TEST_HELPERS_H
#define RESPOL_SHELL_TEST_HELPERS_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "respol/idset.h"

/* Borrowed until the next call. */
static inline const char *topology (const char *name)
{
    static char path[PATH_MAX];
    const char *src = getenv ("RESPOL_SRCDIR");

    snprintf (path, sizeof (path), "%s/t/data/topologies/%s", src ? src : ".",
              name);
    return path;
}

/* ids as ranges, "(null)" for NULL; borrowed until the fourth next call. */
static inline char *enc (const struct rp_idset *ids)
{
    static char buf[4][256];
    static int next;
    char *s = ids ? rp_idset_encode (ids, RP_IDSET_RANGES) : NULL;
    char *b = buf[next++ % 4];

    snprintf (b, 256, "%s", s ? s : "(null)");
    free (s);
    return b;
}

#endif
