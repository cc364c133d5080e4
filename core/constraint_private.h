/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: the registry of constraint operators that
 * property plugins add (core/constraint.c), for the loader
 * (core/plugin.c), rp_property_add_operator (core/property.c) and the RFC
 * 35 query parser (core/query.c). */
#ifndef RESPOL_CONSTRAINT_PRIVATE_H
#define RESPOL_CONSTRAINT_PRIVATE_H

#include <stdbool.h>

#include "respol/error.h"
#include "respol/property.h"

/* Add operator name (valid, checked by the caller) of plugin p, whose
 * table op is borrowed (the fields its size covers are copied), with arg
 * for its compile.  -1 with
 * "operator 'and' is built in", "operator 'x' is already added by 'NAME'"
 * or ENOMEM. */
int constraint_operator_add (struct rp_plugin *p, const char *name,
                             const struct rp_constraint_operator *op, void *arg,
                             rp_error_t *error);
/* Remove every operator of p.  Thread safe. */
void constraint_operators_remove (const struct rp_plugin *p);
/* Is name an operator a plugin added (not a built-in one)? */
bool constraint_operator_added (const char *name);

#endif
