/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* rp_error_t helpers: see api/respol/error.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "respol/error.h"

int rp_error_set (rp_error_t *error, int errnum, const char *fmt, ...)
{
    if (error) {
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (error->text, sizeof (error->text), fmt, ap);
        va_end (ap);
    }
    errno = errnum;
    return -1;
}

int rp_error_prefix (rp_error_t *error, const char *fmt, ...)
{
    int saved_errno = errno;
    if (error) {
        char prefix[RP_ERROR_TEXT_SIZE];
        char rest[RP_ERROR_TEXT_SIZE];
        va_list ap;
        va_start (ap, fmt);
        vsnprintf (prefix, sizeof (prefix), fmt, ap);
        va_end (ap);
        memcpy (rest, error->text, sizeof (rest));
        rest[sizeof (rest) - 1] = '\0';
        snprintf (error->text, sizeof (error->text), "%s: %s", prefix, rest);
    }
    errno = saved_errno;
    return -1;
}
