/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: the memory units jobspec (RFC 14 "unit") and
 * resource pools (RFC 4 "Units") are written in.  KB and KiB alike are
 * powers of 1024, as flux-sched reads them (doc/conformance.md).  A static
 * inline function, so that white-box tests that include a core .c file
 * get it too.
 */
#ifndef RESPOL_UNITS_H
#define RESPOL_UNITS_H

#include <stdint.h>
#include <string.h>

/* Bytes in one unit: "B", "KB" ... "PB", "KiB" ... "PiB"; 0 for NULL, ""
 * or an unknown unit (names are case-sensitive). */
static inline uint64_t units_bytes (const char *unit)
{
    static const struct {
        const char *name;
        int shift;
    } units[] = {
        { "B", 0 },    { "KB", 10 },  { "MB", 20 },  { "GB", 30 },
        { "TB", 40 },  { "PB", 50 },  { "KiB", 10 }, { "MiB", 20 },
        { "GiB", 30 }, { "TiB", 40 }, { "PiB", 50 },
    };

    for (size_t i = 0; unit && i < sizeof (units) / sizeof (units[0]); i++) {
        if (!strcmp (unit, units[i].name))
            return UINT64_C (1) << units[i].shift;
    }
    return 0;
}

#endif
