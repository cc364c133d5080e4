/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol error reporting.
 *
 * Every fallible respol function takes an rp_error_t * as its last
 * parameter.  On failure it fills error->text with one human readable line
 * (no trailing newline) that says where and what, e.g.
 *   idset: "3,2": ids not ascending at offset 2
 * and sets errno.  error may be NULL when the caller does not want the text.
 * On success error is left untouched.
 */
#ifndef RESPOL_ERROR_H
#define RESPOL_ERROR_H

#ifdef __cplusplus
extern "C" {
#endif

#define RP_ERROR_TEXT_SIZE 256

typedef struct {
    char text[RP_ERROR_TEXT_SIZE];
} rp_error_t;

/* Fill error (if not NULL) from a printf-style format, truncating to fit,
 * set errno to errnum, and return -1, so an error path is one line:
 *   return rp_error_set (error, EINVAL, "bad id at offset %zu", off);
 */
int rp_error_set (rp_error_t *error, int errnum, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* Prefix error->text with "prefix: " (printf-style), keeping errno.
 * Returns -1.  Used to add context as an error travels up. */
int rp_error_prefix (rp_error_t *error, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#ifdef __cplusplus
}
#endif
#endif
