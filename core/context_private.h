/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: the context given to plugins when the host gave
 * none (core/context.c). */
#ifndef RESPOL_CONTEXT_PRIVATE_H
#define RESPOL_CONTEXT_PRIVATE_H

#include "respol/context.h"

/* A context whose fields are all absent; static, never destroyed. */
const struct rp_context *context_empty (void);

#endif
