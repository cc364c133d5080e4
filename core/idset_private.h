/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: an idset inside another record (core/idset.c),
 * so that a record that always has one (a resource set's ranks) makes
 * it with its own allocation. */
#ifndef RESPOL_IDSET_PRIVATE_H
#define RESPOL_IDSET_PRIVATE_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "respol/idset.h"

struct range {
    unsigned int lo;
    unsigned int hi;
};

struct rp_idset {
    struct range *r; /* &one while cap is 1, else allocated */
    size_t n;        /* ranges in use */
    size_t cap;      /* ranges allocated */
    size_t count;    /* members */
    struct range one;
};

/* Inline: the tests that include a library file (core/test/rset_text.c
 * includes core/rset.c) link with librespol, which exports rp_ names
 * only. */

/* An empty set in place, for idset_fini, never rp_idset_destroy. */
static inline void idset_init (struct rp_idset *set)
{
    *set = (struct rp_idset){ .cap = 1 };
    set->r = &set->one;
}

/* Free what set holds, not set itself.  Keeps errno. */
static inline void idset_fini (struct rp_idset *set)
{
    int saved_errno = errno;

    if (set->r != &set->one)
        free (set->r);
    errno = saved_errno;
}

/* set's bytes were copied from was (a struct moved): set points at its
 * own room again. */
static inline void idset_moved (struct rp_idset *set,
                                const struct rp_idset *was)
{
    if (set->r == &was->one)
        set->r = &set->one;
}

#endif
