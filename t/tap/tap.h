/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* A small TAP (Test Anything Protocol, version 13) emitter for respol's C
 * unit tests.  The interface follows the libtap conventions that HPC C code
 * bases use (plan, ok, is, cmp_ok, diag, skip, BAIL_OUT, done_testing), so a
 * test reads the same as it would in flux-core.
 *
 * Output goes to stdout; diagnostics go to stdout prefixed with "# " so the
 * automake TAP driver keeps them in the log next to the failing test.
 */
#ifndef RESPOL_TAP_H
#define RESPOL_TAP_H

#include <stdbool.h>

#define NO_PLAN (-1)

/* Declare the number of tests to run, or NO_PLAN and call done_testing(). */
void plan (int n);

/* Each returns the test result (true for pass) so a test can be chained. */
#define ok(test, ...) tap_ok (!!(test), __FILE__, __LINE__, __VA_ARGS__)
#define is(got, expected, ...)                                                 \
    tap_is ((got), (expected), __FILE__, __LINE__, __VA_ARGS__)
#define isnt(got, expected, ...)                                               \
    tap_isnt ((got), (expected), __FILE__, __LINE__, __VA_ARGS__)
#define like(got, substring, ...)                                              \
    tap_like ((got), (substring), __FILE__, __LINE__, __VA_ARGS__)
#define cmp_ok(a, op, b, ...)                                                  \
    tap_cmp_ok ((long long)(a), #op, (long long)(b), __FILE__, __LINE__,       \
                __VA_ARGS__)
#define pass(...) ok (1, __VA_ARGS__)
#define fail(...) ok (0, __VA_ARGS__)

bool tap_ok (bool pass, const char *file, int line, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
/* String equality; NULL equals only NULL. */
bool tap_is (const char *got, const char *expected, const char *file, int line,
             const char *fmt, ...) __attribute__ ((format (printf, 5, 6)));
bool tap_isnt (const char *got, const char *expected, const char *file,
               int line, const char *fmt, ...)
    __attribute__ ((format (printf, 5, 6)));
/* Substring match: passes when got contains substring. */
bool tap_like (const char *got, const char *substring, const char *file,
               int line, const char *fmt, ...)
    __attribute__ ((format (printf, 5, 6)));
/* op is one of == != < <= > >= */
bool tap_cmp_ok (long long a, const char *op, long long b, const char *file,
                 int line, const char *fmt, ...)
    __attribute__ ((format (printf, 6, 7)));

/* s with non-printable bytes as \xHH, for test descriptions.  Returns one
 * of four rotating static buffers (512 bytes, longer input is cut), so one
 * description can show two strings. */
const char *tap_escape (const char *s);

/* Print a diagnostic line ("# ..."). */
void diag (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Emit n passing tests marked "# SKIP reason". */
void skip (int n, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* Abort the whole test program: "Bail out! reason", exit 255. */
void BAIL_OUT (const char *fmt, ...)
    __attribute__ ((format (printf, 1, 2), noreturn));

/* Finish: prints the plan if NO_PLAN was given. Returns the exit status the
 * test program should return (0 when every test passed and the plan held). */
int done_testing (void);

/* Return value for main(): same as done_testing() without printing a plan. */
int exit_status (void);

#endif
