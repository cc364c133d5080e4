/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Sizes and numbers for the shipped property plugins (hwloc-properties,
 * property-compare): "256G", "1.5T", "512M", "64", as the value of a
 * property "KEY=VALUE", a threshold in a configuration block, or a value
 * of a comparison operator.
 *
 * A header of static functions rather than a library: a plugin is built
 * from its own sources and respol's headers only, as a site builds its own
 * (cc -shared -fPIC), so shared helpers are compiled into each plugin.
 *
 * A size is digits with at most one '.', then an optional unit K, M, G, T,
 * P or E (either case; powers of 1024, as flux and Slurm read memory),
 * optionally followed by "B" or "iB"; no unit: the number itself (bytes,
 * or a count).  No sign, exponent, blank, inf or nan.  Written sizes are
 * whole MiB in the largest unit that holds them exactly: 512G, 1T,
 * 129024M (a machine's memory is rarely a whole number of GiB, and a
 * value rounded up would match a constraint it should not).
 */
#ifndef RESPOL_PLUGINS_SIZE_H
#define RESPOL_PLUGINS_SIZE_H

#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* Large enough for a written size. */
#define SIZE_TEXT 32

/* The multiplier of unit letter c, or 0. */
static inline double size_unit (char c)
{
    static const char units[] = "KMGTPE";
    const char *u = c ? strchr (units, toupper ((unsigned char)c)) : NULL;

    return u ? ldexp (1.0, 10 * (int)(u - units + 1)) : 0;
}

/* Parse s into *value; false when it is not a size. */
static inline bool size_parse (const char *s, double *value)
{
    size_t digits = strspn (s, "0123456789.");
    const char *end = s + digits;
    double unit = 1;
    char *stop;

    if (digits == 0 || strchr (s, '.') != strrchr (s, '.')
        || !isdigit ((unsigned char)s[0]))
        return false;
    if (*end && (unit = size_unit (*end)) > 0)
        end++;
    else if (*end)
        return false;
    if (*end && strcmp (end, "B") != 0 && strcmp (end, "iB") != 0)
        return false;
    *value = strtod (s, &stop) * unit;
    return stop == s + digits && isfinite (*value);
}

/* A JSON value as a size: a string size_parse reads, or a number >= 0. */
static inline bool size_json (const json_t *v, double *value)
{
    if (json_is_string (v))
        return size_parse (json_string_value (v), value);
    if (!json_is_number (v) || json_number_value (v) < 0)
        return false;
    *value = json_number_value (v);
    return isfinite (*value);
}

/* bytes, written as a size (whole MiB, see above; below 1 MiB: bytes). */
static inline const char *size_text (uint64_t bytes, char *buf, size_t size)
{
    static const char units[] = "MGTPE";
    uint64_t n = bytes >> 20;
    int u = 0;

    if (n == 0) {
        snprintf (buf, size, "%llu", (unsigned long long)bytes);
        return buf;
    }
    while (units[u + 1] && n % 1024 == 0) {
        n /= 1024;
        u++;
    }
    snprintf (buf, size, "%llu%c", (unsigned long long)n, units[u]);
    return buf;
}

#endif
