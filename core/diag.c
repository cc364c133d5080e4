/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Diagnostics: an ordered list of error and warning messages; see
 * api/respol/diag.h for the contract.  Not tied to one RFC: the jobspec
 * (RFC 14/25) and configuration validators use it to report every problem
 * of a document rather than just the first.
 *
 * Messages are stored as separately allocated strings, so a pointer from
 * rp_diags_text stays valid while later messages are added.  At most
 * RP_DIAGS_MAX messages are stored; every message after that is counted
 * (rp_diags_errors / rp_diags_warnings) but not kept, and one extra entry,
 * stored after the RP_DIAGS_MAX-th, says "N more messages dropped".  That
 * trailer lives in a fixed buffer inside the list, so its pointer also stays
 * valid while its count grows; its severity is the worst one dropped.  So
 * rp_diags_count is at most RP_DIAGS_MAX + 1, and a caller that prints every
 * stored message also tells the user how many it did not see.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/diag.h"

struct diag {
    enum rp_diag_severity severity;
    char *text;
};

struct rp_diags {
    struct diag *v;
    size_t n;   /* stored messages, without the trailer */
    size_t cap; /* allocated entries of v */
    size_t errors;
    size_t warnings;
    size_t dropped;
    enum rp_diag_severity dropped_severity;
    char trailer[64];
};

struct rp_diags *rp_diags_create (void)
{
    struct rp_diags *d = calloc (1, sizeof (*d));

    if (!d)
        errno = ENOMEM;
    return d;
}

void rp_diags_clear (struct rp_diags *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->n; i++)
        free (d->v[i].text);
    d->n = 0;
    d->errors = 0;
    d->warnings = 0;
    d->dropped = 0;
    d->trailer[0] = '\0';
}

void rp_diags_destroy (struct rp_diags *d)
{
    int saved_errno = errno;

    if (d) {
        rp_diags_clear (d);
        free (d->v);
        free (d);
    }
    errno = saved_errno;
}

static void count (struct rp_diags *d, enum rp_diag_severity severity)
{
    if (severity == RP_DIAG_ERROR)
        d->errors++;
    else
        d->warnings++;
}

static void drop (struct rp_diags *d, enum rp_diag_severity severity)
{
    if (d->dropped == 0 || severity == RP_DIAG_ERROR)
        d->dropped_severity = severity;
    d->dropped++;
    snprintf (d->trailer, sizeof (d->trailer), "%zu more message%s dropped",
              d->dropped, d->dropped == 1 ? "" : "s");
    count (d, severity);
}

static int reserve (struct rp_diags *d)
{
    size_t cap;
    struct diag *v;

    if (d->n < d->cap)
        return 0;
    cap = d->cap ? d->cap * 2 : 16;
    if (cap > RP_DIAGS_MAX)
        cap = RP_DIAGS_MAX;
    if (!(v = realloc (d->v, cap * sizeof (*v))))
        return -1;
    d->v = v;
    d->cap = cap;
    return 0;
}

int rp_diags_add (struct rp_diags *d, enum rp_diag_severity severity,
                  const char *fmt, ...)
{
    va_list ap;
    char *text;
    int rc;

    if (!d || !fmt
        || (severity != RP_DIAG_ERROR && severity != RP_DIAG_WARNING)) {
        errno = EINVAL;
        return -1;
    }
    if (d->n == RP_DIAGS_MAX) {
        drop (d, severity);
        return 0;
    }
    if (reserve (d) < 0)
        goto nomem;
    va_start (ap, fmt);
    rc = vasprintf (&text, fmt, ap);
    va_end (ap);
    if (rc < 0)
        goto nomem;
    d->v[d->n].severity = severity;
    d->v[d->n].text = text;
    d->n++;
    count (d, severity);
    return 0;
nomem:
    errno = ENOMEM;
    return -1;
}

size_t rp_diags_count (const struct rp_diags *d)
{
    if (!d)
        return 0;
    return d->n + (d->dropped > 0 ? 1 : 0);
}

size_t rp_diags_errors (const struct rp_diags *d)
{
    return d ? d->errors : 0;
}

size_t rp_diags_warnings (const struct rp_diags *d)
{
    return d ? d->warnings : 0;
}

const char *rp_diags_text (const struct rp_diags *d, size_t i)
{
    if (!d || i >= rp_diags_count (d))
        return NULL;
    if (i == d->n)
        return d->trailer;
    return d->v[i].text;
}

int rp_diags_severity (const struct rp_diags *d, size_t i)
{
    if (!d || i >= rp_diags_count (d))
        return -1;
    if (i == d->n)
        return d->dropped_severity;
    return d->v[i].severity;
}
