/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* JSON text as jansson writes it (core/jtext.h).
 *
 * What jansson 2.14 does, and this follows: integers with "%lld"; reals
 * with "%.17g" in the C locale, ".0" appended when the text has neither
 * '.' nor 'e', and the exponent written without '+' and without leading
 * zeros ("1e+20" -> "1e20", "1e-05" -> "1e-5"); strings with '"' and '\\'
 * escaped, \b \f \n \r \t for those control characters and \uXXXX (upper
 * case hex) for the others, '/' and everything past ASCII as is.  The
 * tests compare every case with jansson's own output.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/jtext.h"

void jt_put_grow (struct jtext *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 1024;
        char *p;
        while (cap < t->len + n + 1)
            cap *= 2;
        if (!(p = realloc (t->s, cap))) {
            t->failed = true;
            return;
        }
        t->s = p;
        t->cap = cap;
    }
    memcpy (t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

void jt_int (struct jtext *t, int64_t v)
{
    char buf[24];
    char *p = jt_digits (buf + sizeof (buf), v);

    jt_put (t, p, (size_t)(buf + sizeof (buf) - p));
}

/* A whole number below 2^53 as "%.17g" and ".0" write it: its digits. */
static bool jt_whole (struct jtext *t, double v)
{
    char buf[24];
    char *p = buf + sizeof (buf);
    bool neg = v < 0;
    uint64_t u;

    if (!(v > -9007199254740992.0 && v < 9007199254740992.0)
        || v != (double)(int64_t)v || (v == 0 && signbit (v)))
        return false;
    u = (uint64_t)(neg ? -v : v);
    *--p = '0';
    *--p = '.';
    do
        *--p = (char)('0' + u % 10);
    while ((u /= 10));
    if (neg)
        *--p = '-';
    jt_put (t, p, (size_t)(buf + sizeof (buf) - p));
    return true;
}

void jt_real (struct jtext *t, double v)
{
    char buf[64];
    int n;
    char *e, *from, *to;

    if (jt_whole (t, v))
        return; /* most times in R are whole seconds */
    n = snprintf (buf, sizeof (buf) - 3, "%.17g", v);

    if (n < 0 || (size_t)n >= sizeof (buf) - 3) {
        t->failed = true;
        return;
    }
    for (char *p = buf; *p; p++)
        if (*p == ',')
            *p = '.'; /* a locale's decimal comma, as jansson undoes it */
    if (!strchr (buf, '.') && !strchr (buf, 'e'))
        strcat (buf, ".0");
    if ((e = strchr (buf, 'e'))) {
        from = to = e + 1;
        if (*to == '-')
            from = ++to;
        else if (*from == '+')
            from++;
        while (*from == '0' && from[1])
            from++;
        memmove (to, from, strlen (from) + 1);
    }
    jt_puts (t, buf);
}

static int dump_cb (const char *s, size_t n, void *arg)
{
    jt_put (arg, s, n);
    return 0;
}

void jt_json (struct jtext *t, const json_t *o)
{
    if (!o
        || json_dump_callback (o, dump_cb, t,
                               JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY)
               < 0)
        t->failed = true;
}

void jt_string (struct jtext *t, const char *s)
{
    static const char esc[] = "\b\f\n\r\t";
    static const char name[] = "bfnrt";
    const char *run = s, *p = s;

    /* most strings (names, paths, types) need nothing escaped: one scan */
    while ((unsigned char)*p >= 0x20 && (unsigned char)*p < 0x80 && *p != '"'
           && *p != '\\')
        p++;
    if (!*p) {
        jt_put (t, "\"", 1);
        jt_put (t, s, (size_t)(p - s));
        jt_put (t, "\"", 1);
        return;
    }
    for (p = s; *p; p++)
        if ((unsigned char)*p >= 0x80) {
            json_t *o = json_string (s);
            jt_json (t, o);
            json_decref (o);
            return;
        }
    jt_put (t, "\"", 1);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        const char *e;
        char buf[8];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        jt_put (t, run, (size_t)(s - run));
        run = s + 1;
        if (c == '"' || c == '\\')
            jt_put (t, c == '"' ? "\\\"" : "\\\\", 2);
        else if ((e = strchr (esc, c)))
            jt_put (t, (char[]){ '\\', name[e - esc] }, 2);
        else
            jt_put (t, buf, (size_t)snprintf (buf, sizeof (buf), "\\u%04X", c));
    }
    jt_put (t, run, (size_t)(s - run));
    jt_put (t, "\"", 1);
}

char *jt_finish (struct jtext *t)
{
    char *s = t->failed ? NULL : t->s;

    if (t->failed) {
        free (t->s);
        errno = ENOMEM;
    } else if (!s && !(s = strdup ("")))
        errno = ENOMEM;
    *t = (struct jtext){ 0 };
    return s;
}
