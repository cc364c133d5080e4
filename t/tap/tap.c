/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* TAP emitter; see tap.h.  Not thread safe: unit tests are single threaded. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

static int planned = NO_PLAN;
static int run;
static int failed;
static bool plan_printed;

void plan (int n)
{
    if (plan_printed)
        BAIL_OUT ("plan() called twice");
    planned = n;
    if (n != NO_PLAN) {
        printf ("1..%d\n", n);
        plan_printed = true;
    }
    fflush (stdout);
}

static bool vreport (bool pass, const char *file, int line, const char *fmt,
                     va_list ap)
{
    run++;
    if (!pass)
        failed++;
    printf ("%sok %d - ", pass ? "" : "not ", run);
    vprintf (fmt, ap);
    printf ("\n");
    if (!pass)
        printf ("#   Failed test at %s line %d.\n", file, line);
    fflush (stdout);
    return pass;
}

bool tap_ok (bool pass, const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vreport (pass, file, line, fmt, ap);
    va_end (ap);
    return pass;
}

static bool str_equal (const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp (a, b) == 0;
}

bool tap_is (const char *got, const char *expected, const char *file, int line,
             const char *fmt, ...)
{
    bool pass = str_equal (got, expected);
    va_list ap;
    va_start (ap, fmt);
    vreport (pass, file, line, fmt, ap);
    va_end (ap);
    if (!pass) {
        printf ("#          got: %s%s%s\n", got ? "'" : "", got ? got : "NULL",
                got ? "'" : "");
        printf ("#     expected: %s%s%s\n", expected ? "'" : "",
                expected ? expected : "NULL", expected ? "'" : "");
    }
    return pass;
}

bool tap_isnt (const char *got, const char *expected, const char *file,
               int line, const char *fmt, ...)
{
    bool pass = !str_equal (got, expected);
    va_list ap;
    va_start (ap, fmt);
    vreport (pass, file, line, fmt, ap);
    va_end (ap);
    if (!pass)
        printf ("#     got: '%s' which was not expected\n", got ? got : "NULL");
    return pass;
}

bool tap_like (const char *got, const char *substring, const char *file,
               int line, const char *fmt, ...)
{
    bool pass = got && substring && strstr (got, substring);
    va_list ap;
    va_start (ap, fmt);
    vreport (pass, file, line, fmt, ap);
    va_end (ap);
    if (!pass) {
        printf ("#                   '%s'\n", got ? got : "NULL");
        printf ("#     doesn't contain '%s'\n", substring ? substring : "NULL");
    }
    return pass;
}

bool tap_cmp_ok (long long a, const char *op, long long b, const char *file,
                 int line, const char *fmt, ...)
{
    bool pass;
    va_list ap;

    if (!strcmp (op, "=="))
        pass = a == b;
    else if (!strcmp (op, "!="))
        pass = a != b;
    else if (!strcmp (op, "<"))
        pass = a < b;
    else if (!strcmp (op, "<="))
        pass = a <= b;
    else if (!strcmp (op, ">"))
        pass = a > b;
    else if (!strcmp (op, ">="))
        pass = a >= b;
    else
        BAIL_OUT ("cmp_ok: unknown operator '%s'", op);
    va_start (ap, fmt);
    vreport (pass, file, line, fmt, ap);
    va_end (ap);
    if (!pass)
        printf ("#     %lld\n#         %s\n#     %lld\n", a, op, b);
    return pass;
}

const char *tap_escape (const char *s)
{
    static char bufs[4][512];
    static int next;
    char *buf = bufs[next++ % 4];
    size_t n = 0;

    for (; s && *s && n < sizeof (bufs[0]) - 5; s++) {
        unsigned char c = *s;
        if (c >= 0x20 && c < 0x7f)
            buf[n++] = c;
        else
            n += sprintf (buf + n, "\\x%02x", c);
    }
    buf[n] = '\0';
    return buf;
}

void diag (const char *fmt, ...)
{
    va_list ap;
    printf ("# ");
    va_start (ap, fmt);
    vprintf (fmt, ap);
    va_end (ap);
    printf ("\n");
    fflush (stdout);
}

void skip (int n, const char *fmt, ...)
{
    char reason[256];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (reason, sizeof (reason), fmt, ap);
    va_end (ap);
    while (n-- > 0)
        printf ("ok %d # SKIP %s\n", ++run, reason);
    fflush (stdout);
}

void BAIL_OUT (const char *fmt, ...)
{
    va_list ap;
    printf ("Bail out! ");
    va_start (ap, fmt);
    vprintf (fmt, ap);
    va_end (ap);
    printf ("\n");
    fflush (stdout);
    exit (255);
}

int exit_status (void)
{
    if (failed)
        return failed > 254 ? 254 : failed;
    if (planned != NO_PLAN && run != planned)
        return 255;
    return 0;
}

int done_testing (void)
{
    if (!plan_printed) {
        printf ("1..%d\n", run);
        plan_printed = true;
        planned = run;
    } else if (run != planned)
        diag ("planned %d tests but ran %d", planned, run);
    fflush (stdout);
    return exit_status ();
}
