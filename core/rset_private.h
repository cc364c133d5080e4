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

/* What rp_rset_add_target checks of a host name: 0, or -1 with the
 * error set. */
int rset_host_check (const char *name, rp_error_t *error);

/* rp_rset_add_target for a host name rset_host_check passed, with cores
 * and gpus taken (also on failure), not copied. */
int rset_add_target_taken (struct rp_rset *r, unsigned int rank,
                           const char *hostname, struct rp_idset *cores,
                           struct rp_idset *gpus, rp_error_t *error);

#endif
