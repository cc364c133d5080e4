/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* JSON text read in place (core/jscan.h).
 *
 * White space is what jansson skips: space, tab, newline, carriage return.
 * A skipped value is found by its brackets, with strings (and their
 * escapes) stepped over so that a bracket in a string does not count; its
 * contents are not checked here, jansson reads the span.  A scalar is the
 * run of bytes that can make up a number or a literal.
 */
#include <string.h>

#include "core/jscan.h"

static bool fail (struct jscan *s)
{
    s->bad = true;
    return false;
}

static void skip_ws (struct jscan *s)
{
    while (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')
        s->p++;
}

bool jscan_expect (struct jscan *s, char c)
{
    if (s->bad)
        return false;
    skip_ws (s);
    if (*s->p != c)
        return fail (s);
    s->p++;
    return true;
}

bool jscan_next (struct jscan *s, char close, bool *first)
{
    if (s->bad)
        return false;
    skip_ws (s);
    if (*s->p == close && *first) {
        s->p++;
        return false;
    }
    if (*first) {
        *first = false;
        return true;
    }
    if (*s->p == close) {
        s->p++;
        return false;
    }
    if (*s->p != ',')
        return fail (s);
    s->p++;
    return true;
}

bool jscan_string (struct jscan *s, const char **str, size_t *len)
{
    const unsigned char *q;

    if (!jscan_expect (s, '"'))
        return false;
    q = (const unsigned char *)s->p;
    while (*q >= 0x20 && *q < 0x7f && *q != '"' && *q != '\\')
        q++;
    if (*q != '"')
        return fail (s);
    *str = s->p;
    *len = (size_t)((const char *)q - s->p);
    s->p = (const char *)q + 1;
    return true;
}

bool jscan_key (struct jscan *s, const char **key, size_t *len)
{
    return jscan_string (s, key, len) && jscan_expect (s, ':');
}

/* After the opening '"': the byte past the closing one, or NULL. */
static const char *skip_string (const char *p)
{
    for (; *p && *p != '"'; p++) {
        if (*p == '\\' && !*++p)
            return NULL;
    }
    return *p ? p + 1 : NULL;
}

static const char *skip_nested (const char *p)
{
    int depth = 0;

    do {
        if (*p == '"') {
            if (!(p = skip_string (p + 1)))
                return NULL;
            continue;
        }
        if (*p == '{' || *p == '[') {
            if (++depth > JSCAN_MAX_DEPTH)
                return NULL;
        } else if (*p == '}' || *p == ']')
            depth--;
        else if (!*p)
            return NULL;
        p++;
    } while (depth > 0);
    return p;
}

static const char *skip_scalar (const char *p)
{
    const char *q = p + strspn (p, "0123456789+-.eEtrufalsn");

    return q > p ? q : NULL;
}

bool jscan_value (struct jscan *s, const char **start, size_t *len)
{
    const char *q;

    if (s->bad)
        return false;
    skip_ws (s);
    if (*s->p == '"')
        q = skip_string (s->p + 1);
    else if (*s->p == '{' || *s->p == '[')
        q = skip_nested (s->p);
    else
        q = skip_scalar (s->p);
    if (!q)
        return fail (s);
    *start = s->p;
    *len = (size_t)(q - s->p);
    s->p = q;
    return true;
}

bool jscan_end (struct jscan *s)
{
    if (s->bad)
        return false;
    skip_ws (s);
    return *s->p == '\0' || fail (s);
}

bool jscan_is (const char *key, size_t len, const char *name)
{
    return strlen (name) == len && memcmp (key, name, len) == 0;
}
