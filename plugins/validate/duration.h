/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* RFC 23 durations for the shipped validator plugins (require-duration,
 * limits): "30s", "5m", "2h", "1d", "1.5h", "500ms", or a plain number of
 * seconds.
 *
 * A header of static functions rather than a library: a plugin is built
 * from its own sources and respol's headers only, as a site builds its own
 * (cc -shared -fPIC), so shared helpers are compiled into each plugin.
 *
 * Parsing is stricter than flux-core's strtod-based one: digits with at
 * most one '.', then an optional suffix ms, s, m, h or d; no sign,
 * exponent, inf/nan, hex or white space; the value must be finite.
 */
#ifndef RESPOL_PLUGINS_DURATION_H
#define RESPOL_PLUGINS_DURATION_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Large enough for "%.15g" and a suffix. */
#define DURATION_TEXT 40

/* Seconds in one unit of suffix s; 0 for an unknown suffix. */
static double duration_unit (const char *s)
{
    static const struct {
        const char *suffix;
        double seconds;
    } units[] = {
        { "", 1 },   { "s", 1 },    { "ms", 1e-3 },
        { "m", 60 }, { "h", 3600 }, { "d", 86400 },
    };

    for (size_t i = 0; i < sizeof (units) / sizeof (units[0]); i++) {
        if (strcmp (s, units[i].suffix) == 0)
            return units[i].seconds;
    }
    return 0;
}

/* Parse s (digits with at most one '.', then a suffix) into *d.  Returns 0,
 * or -1 when s is not a finite duration. */
static int duration_parse (const char *s, double *d)
{
    size_t n = strspn (s, "0123456789.");
    const char *dot = memchr (s, '.', n);
    double unit = duration_unit (s + n);
    double value;

    if (n == 0 || unit == 0
        || (dot && memchr (dot + 1, '.', n - 1 - (dot - s))))
        return -1;
    if (n == 1 && dot)
        return -1;
    value = strtod (s, NULL) * unit;
    if (!isfinite (value))
        return -1;
    *d = value;
    return 0;
}

/* Write d in the largest unit that divides it, else in seconds. */
static const char *duration_text (double d, char buf[DURATION_TEXT])
{
    static const struct {
        char suffix;
        double seconds;
    } units[] = { { 'd', 86400 }, { 'h', 3600 }, { 'm', 60 } };

    for (size_t i = 0; i < sizeof (units) / sizeof (units[0]); i++) {
        if (d >= units[i].seconds && fmod (d, units[i].seconds) == 0) {
            snprintf (buf, DURATION_TEXT, "%.15g%c", d / units[i].seconds,
                      units[i].suffix);
            return buf;
        }
    }
    snprintf (buf, DURATION_TEXT, "%.15gs", d);
    return buf;
}

#endif
