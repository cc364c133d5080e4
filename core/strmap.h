/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: a hash map from strings to pointers, for lookups
 * that must cost O(1) whatever the number of entries (jobs by id, usage
 * by user and account in core/instance.c).
 *
 * Open addressing with linear probing, FNV-1a hashes, grown to keep the
 * load under 1/2 and never shrunk; a removed entry leaves a tombstone that
 * an insert reuses.  Keys are copied; values are the caller's.
 */
#ifndef RESPOL_STRMAP_H
#define RESPOL_STRMAP_H

#include <stddef.h>

struct strmap;

struct strmap *strmap_create (void);
/* Frees the map and its key copies, not the values.  Accepts NULL. */
void strmap_destroy (struct strmap *m);
/* The value of key, or NULL. */
void *strmap_get (const struct strmap *m, const char *key);
/* Set key to value (not NULL), replacing an older value.  0, or -1 with
 * ENOMEM and the map unchanged. */
int strmap_put (struct strmap *m, const char *key, void *value);
/* Remove key; returns its value, or NULL when it was not there. */
void *strmap_remove (struct strmap *m, const char *key);
size_t strmap_count (const struct strmap *m);
/* Every value, in no order: call fn (value, arg) for each. */
void strmap_each (const struct strmap *m, void (*fn) (void *value, void *arg),
                  void *arg);

#endif
