/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: what the matcher gives an R (core/rset.c) that
 * the public API does not.
 */
#ifndef RESPOL_RSET_PRIVATE_H
#define RESPOL_RSET_PRIVATE_H

#include <respol/rset.h>

/* Set r's scheduling key to text (taken, also on failure): a JSON object
 * written as json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS) would write
 * it, which rp_rset_encode copies as it is; rp_rset_scheduling parses it
 * the first time it is asked for.  Returns 0, or -1 with EINVAL. */
int rset_set_scheduling_text (struct rp_rset *r, char *text);

/* rp_rset_add_target, taking cores and gpus (both non-NULL; destroyed on
 * failure too) rather than copying them: the matcher builds them for the
 * R of each job it allocates. */
int rset_add_target_take (struct rp_rset *r, unsigned int rank,
                          const char *hostname, struct rp_idset *cores,
                          struct rp_idset *gpus, rp_error_t *error);

#endif
