/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* "Did you mean ...?": the closest of a set of names to a word that was
 * not found.  Shared by the library (configuration keys, plugin and
 * policy names) and the command (options), through the convenience
 * library core/libsuggest.la; nothing here is exported from librespol.
 *
 * A name is close when its Damerau-Levenshtein distance to the word
 * (optimal string alignment: insertions, deletions, substitutions and
 * transpositions of neighbours, each costing 1) is at most 2 and less than
 * half the word's length, so that a short word ("x") never gets a
 * suggestion that shares nothing with it.  The closest name wins; among
 * equally close names, the first one offered, except within a group
 * (group > 0, e.g. the entries of one directory, which come in no useful
 * order), where the name that sorts first (strcmp) wins, so that the
 * answer does not depend on the order readdir gives.
 *
 * The comparison is case sensitive, and costs O(len(word) * len(name))
 * time and no allocation: names longer than SUGGEST_MAX bytes, words
 * longer than SUGGEST_MAX + 2, and names whose length differs from the
 * word's by more than 2 are never close and are not compared.
 */
#ifndef RESPOL_SUGGEST_H
#define RESPOL_SUGGEST_H

#include <stddef.h>

#define SUGGEST_MAX 64

struct suggest {
    const char *word; /* borrowed */
    size_t len;
    unsigned distance; /* of best; above 2 while there is none */
    unsigned group;    /* of best */
    char best[SUGGEST_MAX + 1];
};

/* Start looking for names close to word (borrowed until the last call). */
void suggest_init (struct suggest *s, const char *word);

/* Offer the first len bytes of name (which may be longer, e.g. a file
 * name with its suffix), in group (0: no group). */
void suggest_add (struct suggest *s, const char *name, size_t len,
                  unsigned group);

/* The closest name offered (a copy held in s), or NULL when none is
 * close. */
const char *suggest_best (const struct suggest *s);

/* "; did you mean 'PREFIXbest'?" into buf, or "" when none is close.
 * Returns buf. */
const char *suggest_hint (const struct suggest *s, const char *prefix,
                          char *buf, size_t size);

#endif
