/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: the context given to plugins when the host gave
 * none, and copies into a block of the caller's (core/context.c). */
#ifndef RESPOL_CONTEXT_PRIVATE_H
#define RESPOL_CONTEXT_PRIVATE_H

#include "respol/context.h"

/* A context whose fields are all absent; static, never destroyed. */
const struct rp_context *context_empty (void);

/* The bytes a copy of c takes: the struct, its groups and its strings. */
size_t context_copy_size (const struct rp_context *c);
/* A copy of c at mem (context_copy_size bytes, aligned for the struct),
 * in that block alone: the caller frees mem, or destroys the copy when
 * mem came from malloc.  A copy at mem in a larger block that is
 * changed by a setter allocates what it sets, which only
 * rp_context_destroy frees: give such a copy to no setter. */
struct rp_context *context_copy_at (const struct rp_context *c, void *mem);

#endif
