/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The closest name to a word that was not found; see core/suggest.h.
 *
 * The distance is the optimal string alignment form of Damerau-Levenshtein
 * (a transposition of two neighbours costs 1; a substring is not edited
 * twice), computed row by row over three rows of the usual table, and
 * abandoned as soon as a whole row is above the largest distance that
 * could still be accepted.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/suggest.h"

/* Accepted: at most FAR - 1. */
#define FAR 3

static unsigned min3 (unsigned a, unsigned b, unsigned c)
{
    unsigned m = a < b ? a : b;
    return m < c ? m : c;
}

/* One row of the table: row i (1-based) for a[i - 1] against b; returns
 * the smallest value of the row. */
static unsigned osa_row (const char *a, size_t i, const char *b, size_t lb,
                         const unsigned *pp, const unsigned *p, unsigned *c)
{
    unsigned low;

    c[0] = (unsigned)i;
    low = c[0];
    for (size_t j = 1; j <= lb; j++) {
        unsigned cost = a[i - 1] != b[j - 1];
        c[j] = min3 (p[j] + 1, c[j - 1] + 1, p[j - 1] + cost);
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]
            && pp[j - 2] + 1 < c[j])
            c[j] = pp[j - 2] + 1;
        if (c[j] < low)
            low = c[j];
    }
    return low;
}

/* The distance between a and b (lengths at most SUGGEST_MAX + 2), or FAR
 * when it is FAR or more. */
static unsigned distance (const char *a, size_t la, const char *b, size_t lb)
{
    unsigned rows[3][SUGGEST_MAX + 3];
    unsigned *pp = rows[0], *p = rows[1], *c = rows[2];

    for (size_t j = 0; j <= lb; j++)
        p[j] = (unsigned)j;
    for (size_t i = 1; i <= la; i++) {
        unsigned *t = pp;
        if (osa_row (a, i, b, lb, pp, p, c) >= FAR)
            return FAR;
        pp = p;
        p = c;
        c = t;
    }
    return p[lb] < FAR ? p[lb] : FAR;
}

void suggest_init (struct suggest *s, const char *word)
{
    s->word = word;
    s->len = strlen (word);
    s->distance = FAR;
    s->group = 0;
    s->best[0] = '\0';
}

/* Does a name at distance d in group replace the best so far? */
static bool better (const struct suggest *s, unsigned d, unsigned group,
                    const char *name, size_t len)
{
    if (d != s->distance)
        return d < s->distance;
    if (group == 0 || group != s->group)
        return false;
    return strncmp (name, s->best, len) < 0
           || (strncmp (name, s->best, len) == 0 && s->best[len] != '\0');
}

void suggest_add (struct suggest *s, const char *name, size_t len,
                  unsigned group)
{
    size_t diff = len > s->len ? len - s->len : s->len - len;
    unsigned d;

    if (len > SUGGEST_MAX || s->len > SUGGEST_MAX + 2 || diff >= FAR)
        return;
    d = distance (s->word, s->len, name, len);
    /* Close: at most 2, less than half the word's length; never itself. */
    if (d == 0 || d >= FAR || 2 * d >= s->len)
        return;
    if (!better (s, d, group, name, len))
        return;
    memcpy (s->best, name, len);
    s->best[len] = '\0';
    s->distance = d;
    s->group = group;
}

const char *suggest_best (const struct suggest *s)
{
    return s->distance < FAR ? s->best : NULL;
}

const char *suggest_hint (const struct suggest *s, const char *prefix,
                          char *buf, size_t size)
{
    const char *best = suggest_best (s);

    if (best)
        snprintf (buf, size, "; did you mean '%s%s'?", prefix, best);
    else if (size > 0)
        buf[0] = '\0';
    return buf;
}
