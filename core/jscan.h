/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: JSON text read in place, for the readers that
 * skip building a jansson tree (R decode reads R_lite and the nodelist
 * this way, core/rset.c).
 *
 * A scanner is a cursor on NUL-terminated text.  It reads what a caller
 * expects (an object's members, an array's elements, a string) and gives
 * up on anything else: any failure is sticky (bad) and says only "not
 * read here", never why.  The caller then reads the whole text again with
 * jansson, which finds and words the error, so the scanner need not
 * reproduce jansson's messages.  For that to hold, what the scanner
 * accepts must be what jansson accepts: strings are read only when plain
 * (printable ASCII, no escapes: anything else gives up), and a value the
 * scanner skips (jscan_value) is handed to jansson as a span.
 */
#ifndef RESPOL_JSCAN_H
#define RESPOL_JSCAN_H

#include <stdbool.h>
#include <stddef.h>

/* Nesting a skipped value may have; deeper gives up (jansson's limit for
 * a whole document is 2048). */
#define JSCAN_MAX_DEPTH 512

struct jscan {
    const char *p; /* the next byte to read */
    bool bad;      /* sticky: something was not as expected */
};

/* Consume c after white space: true, or false and bad. */
bool jscan_expect (struct jscan *s, char c);

/* Inside an array or object whose opening bracket was read: true when
 * another element follows (the ',' between elements read), false at close
 * (read) or when bad.  *first starts true. */
bool jscan_next (struct jscan *s, char close, bool *first);

/* A plain string: *str (borrowed from the text) and *len, quotes
 * excluded.  False and bad when it is not a string or not plain. */
bool jscan_string (struct jscan *s, const char **str, size_t *len);

/* An object member's key and its ':' (jscan_next first). */
bool jscan_key (struct jscan *s, const char **key, size_t *len);

/* Skip one value of any kind, unchecked: *start and *len span it, for
 * jansson to read (json_loadb with JSON_DECODE_ANY). */
bool jscan_value (struct jscan *s, const char **start, size_t *len);

/* Only white space is left. */
bool jscan_end (struct jscan *s);

/* True when the key of *len bytes at key is the string name. */
bool jscan_is (const char *key, size_t len, const char *name);

#endif
