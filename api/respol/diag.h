/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Diagnostics: an ordered list of error and warning messages.
 *
 * Validators that report every problem of a document, not just the first
 * (jobspec, configuration), append to an rp_diags.  Each message is one
 * line that says where and what, e.g.
 *   job.yaml:7:14: resources[0].with[0].count: min must be >= 1
 *
 * Ownership: rp_diags_create returns an object the caller must destroy.
 * Strings returned by rp_diags_text are borrowed until the list is
 * destroyed or cleared.
 */
#ifndef RESPOL_DIAG_H
#define RESPOL_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum rp_diag_severity {
    RP_DIAG_ERROR = 0,
    RP_DIAG_WARNING = 1,
};

struct rp_diags;

struct rp_diags *rp_diags_create (void);
/* Accepts NULL, keeps errno. */
void rp_diags_destroy (struct rp_diags *d);
/* Remove every message. */
void rp_diags_clear (struct rp_diags *d);

/* Append a message (printf-style).  Returns 0, or -1 with ENOMEM. When the
 * list already holds RP_DIAGS_MAX messages the message is counted but not
 * stored, and the last stored message says how many were dropped. */
#define RP_DIAGS_MAX 1000
int rp_diags_add (struct rp_diags *d, enum rp_diag_severity severity,
                  const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

/* Number of stored messages of all severities. */
size_t rp_diags_count (const struct rp_diags *d);
/* Number of errors / warnings added (including dropped ones). */
size_t rp_diags_errors (const struct rp_diags *d);
size_t rp_diags_warnings (const struct rp_diags *d);
/* Message i (0-based, in the order added) and its severity. NULL / -1 when
 * i is out of range. */
const char *rp_diags_text (const struct rp_diags *d, size_t i);
int rp_diags_severity (const struct rp_diags *d, size_t i);

#ifdef __cplusplus
}
#endif
#endif
