/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: idsets by name, as RFC 20 properties are kept
 * outside R (core/inventory.c: what each property plugin added;
 * core/property.c: what a plugin says in one run).  A short list with a
 * linear lookup: a plugin deals in a few names, each for many targets,
 * and every operation costs in the ranges of its idsets.
 */
#ifndef RESPOL_NAMEDSETS_H
#define RESPOL_NAMEDSETS_H

#include <stddef.h>

#include <jansson.h>

#include "respol/idset.h"

struct namedset {
    char *name;
    struct rp_idset *ids;
};

struct namedsets {
    struct namedset *v;
    size_t n;
};

/* The set of name, or NULL. */
struct namedset *namedsets_find (const struct namedsets *s, const char *name);
/* The set of name |= ids (name and ids copied).  0, or -1 (ENOMEM). */
int namedsets_add (struct namedsets *s, const char *name,
                   const struct rp_idset *ids);
/* Drop set i (the last one takes its place). */
void namedsets_delete (struct namedsets *s, size_t i);
/* Drop every set. */
void namedsets_clear (struct namedsets *s);
/* Add the sets to o ({name: idset string}, each united with what o has
 * for that name).  0, or -1 (ENOMEM). */
int namedsets_to_json (const struct namedsets *s, json_t *o);

#endif
