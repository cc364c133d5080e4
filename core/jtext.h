/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: JSON written as text, byte for byte as jansson
 * writes it with JSON_COMPACT | JSON_SORT_KEYS, for the writers that skip
 * building a jansson tree only to print it (R, the JGF scheduling key):
 * the caller writes the keys of an object in sorted order; values are
 * written here as jansson formats them.
 *
 * A struct jtext is a growing buffer whose failure is sticky: write
 * everything, then look at failed once.
 */
#ifndef RESPOL_JTEXT_H
#define RESPOL_JTEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

struct jtext {
    char *s; /* NUL-terminated once anything was written */
    size_t len;
    size_t cap;
    bool failed; /* out of memory, or a value jansson refused */
};

/* jt_put past the buffer's room (it grows), or after a failure. */
void jt_put_grow (struct jtext *t, const char *s, size_t n);
/* Inline while there is room: a subgraph's text is some thirty small
 * pieces per vertex, and the calls were a third of writing it. */
static inline void jt_put (struct jtext *t, const char *s, size_t n)
{
    if (!t->failed && t->len + n + 1 <= t->cap) {
        memcpy (t->s + t->len, s, n);
        t->len += n;
        t->s[t->len] = '\0';
    } else
        jt_put_grow (t, s, n);
}
static inline void jt_puts (struct jtext *t, const char *s)
{
    jt_put (t, s, strlen (s));
}
/* An integer, as json_integer is written. */
void jt_int (struct jtext *t, int64_t v);
/* The decimal digits of v, '-' first when negative, as "%" PRId64 writes
 * them, placed just before end (no NUL): returns where they start, at
 * most 20 bytes before end.  For writers of names and numbers that
 * snprintf made most of the cost of (inline: the unit tests that build
 * the graph's own files use it too). */
static inline char *jt_digits (char *end, int64_t v)
{
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

    do {
        *--end = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    if (v < 0)
        *--end = '-';
    return end;
}
/* A real, as json_real is written: "%.17g", with ".0" when that reads as
 * an integer, and no '+' or leading zeros in the exponent. */
void jt_real (struct jtext *t, double v);
/* s as a JSON string: '"', '\\' and control characters escaped as jansson
 * escapes them without JSON_ENSURE_ASCII; a string with a byte past ASCII
 * is given to jansson (which also checks its UTF-8). */
void jt_string (struct jtext *t, const char *s);
/* Any value through jansson (JSON_ENCODE_ANY); NULL fails. */
void jt_json (struct jtext *t, const json_t *o);
/* The text (caller frees) or NULL with errno ENOMEM when it failed; t is
 * empty afterwards. */
char *jt_finish (struct jtext *t);

#endif
