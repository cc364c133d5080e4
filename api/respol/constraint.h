/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Job constraints (RFC 31) and the constraint query syntax (RFC 35).
 *
 * A constraint is a JSON object { "operator": [ values ] } that selects
 * execution targets.  It is compiled once (hostlists and idsets decoded,
 * nested operators turned into a tree) and then evaluated many times
 * against targets, each described by its rank, its host name and a
 * callback that says whether it has a property.
 *
 * Operators and their meaning for one target:
 *   properties  every value names a property the target has; a value
 *               "^name" a property it must not have.  Values are property
 *               names (rp_rset_property_check, after the '^').  Whether a
 *               target with "amd-mi50@gpu" has "amd-mi50" is the callback's
 *               business (rp_rset_has_property says yes, RFC 20).
 *   hostlist    the target's host name is in one of the RFC 29 hostlists.
 *   ranks       the target's rank is in one of the RFC 22 idsets.
 *   and, or     all / any of the values, each a constraint object.
 *   not         the negation of its one value.
 * Empty operands: {}, {"and": []}, {"or": []} and {"properties": []}
 * match every target; {"not": []}, {"hostlist": []} and {"ranks": []}
 * match none (a target is in no member of an empty union).  "not" with
 * two or more values is an error.
 *
 * Property plugins add operators by name (rp_property_add_operator,
 * respol/property.h): compiled and matched by the plugin's functions,
 * which read the target through the rp_constraint_target accessors below
 * (its rank, host name, properties and valued properties "KEY=VALUE").
 * Built-in names cannot be taken.
 *
 * Bounds: constraints nest at most RP_CONSTRAINT_MAX_DEPTH levels ({} and
 * {"properties": [...]} are one level, {"not": [{...}]} two).
 *
 * Ownership: rp_constraint_compile returns an object the caller must
 * destroy; it keeps no reference to the JSON it was given.  A compiled
 * constraint is immutable: matching may run from several threads at once.
 * rp_constraint_filter_rset returns a new set the caller must destroy;
 * rp_constraint_query_parse a new JSON object the caller must json_decref.
 */
#ifndef RESPOL_CONSTRAINT_H
#define RESPOL_CONSTRAINT_H

#include <stdbool.h>

#include <jansson.h>

#include <respol/error.h>
#include <respol/rset.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RP_CONSTRAINT_MAX_DEPTH 64

struct rp_constraint;

/* Does the target have property name (never starts with '^')?  arg is the
 * pointer given to rp_constraint_match. */
typedef bool (*rp_constraint_property_f) (const char *name, void *arg);

/* Compile an RFC 31 constraint object.  o is not modified or kept.  On
 * failure returns NULL, sets errno (EINVAL, ENOMEM, EOVERFLOW for a
 * hostlist union past RP_HOSTLIST_MAX_HOSTS) and fills error with the path
 * of the offending value and what is wrong with it, e.g.
 *   constraint: unknown operator 'foo'
 *   constraint: and[1].properties[0]: value must be a string
 *   constraint: hostlist[0]: hostlist: "n[1-": missing ']' at offset 4
 *   constraint: not: takes one value (got 2)
 * Caller must destroy. */
struct rp_constraint *rp_constraint_compile (const json_t *o,
                                             rp_error_t *error);
/* Accepts NULL, keeps errno. */
void rp_constraint_destroy (struct rp_constraint *c);

/* True when the target with this rank, host name (NULL: the target has no
 * name and matches no hostlist) and properties (has_property NULL: it has
 * none) satisfies c. */
bool rp_constraint_match (const struct rp_constraint *c, unsigned int rank,
                          const char *hostname,
                          rp_constraint_property_f has_property, void *arg);

/* The target's value for key: the VALUE of a property "KEY=VALUE" it has
 * (respol/property.h), or NULL.  arg is the pointer given to
 * rp_constraint_match_values. */
typedef const char *(*rp_constraint_value_f) (const char *key, void *arg);

/* rp_constraint_match for a target that may have valued properties
 * (value_of NULL: it has none), which operators added by property plugins
 * read. */
bool rp_constraint_match_values (const struct rp_constraint *c,
                                 unsigned int rank, const char *hostname,
                                 rp_constraint_property_f has_property,
                                 rp_constraint_value_f value_of, void *arg);

/* A target as an operator's match sees it (respol/property.h).  Opaque;
 * borrowed for the call, and so is every string its accessors return. */
struct rp_constraint_target;
unsigned int rp_constraint_target_rank (const struct rp_constraint_target *t);
/* NULL when the target has no name. */
const char *
rp_constraint_target_hostname (const struct rp_constraint_target *t);
/* As the "properties" operator asks: "a" also when it has "a@suffix". */
bool rp_constraint_target_has_property (const struct rp_constraint_target *t,
                                        const char *name);
/* The value for key (rp_constraint_value_f), or NULL. */
const char *rp_constraint_target_value (const struct rp_constraint_target *t,
                                        const char *key);

/* True when target rank of r satisfies c; false when rank is not a target
 * of r.  Properties follow rp_rset_has_property, values
 * rp_rset_property_value. */
bool rp_constraint_match_rset (const struct rp_constraint *c,
                               const struct rp_rset *r, unsigned int rank);

/* The targets of r that satisfy c, with their cores, GPUs, properties and
 * r's times (rp_rset_copy_ranks).  Caller must destroy.  NULL with errno
 * (ENOMEM) on failure. */
struct rp_rset *rp_constraint_filter_rset (const struct rp_constraint *c,
                                           const struct rp_rset *r,
                                           rp_error_t *error);

/* --- RFC 35 query syntax ------------------------------------------------ */

/* Parse a constraint query into an RFC 31 object, with the defaults of
 * flux-core's `flux run --requires`:
 *   - a term is OPERATOR:OPERAND or OPERAND; the default operator is
 *     "properties"; "host:", "hosts:" and "hostlist:" mean "hostlist",
 *     "rank:" and "ranks:" mean "ranks"; any other operator is an error;
 *   - a properties operand is split at commas ("a,b" = "a b"), "^x" stays
 *     the value "^x";
 *   - "-term" and "not term" negate: {"not": [term]}; "not" may precede a
 *     parenthesized expression, '-' may not ("-(a|b)" is an error);
 *   - "a b", "a&b", "a&&b", "a and b" join with and; "a|b", "a||b",
 *     "a or b" with or; and binds tighter than or; parentheses group;
 *   - '...' and "..." quote (no escapes): quoted ':' ',' '-' and white
 *     space are operand text, and quoted "and", "or", "not" are terms;
 *   - an and nested in an and, or an or in an or, is flattened, and the
 *     properties terms of one and are merged into one values list, as
 *     flux-core does: "a b|c" -> {"or": [{"properties": ["a", "b"]},
 *     {"properties": ["c"]}]}.  Hostlist and ranks terms are never merged
 *     (their values are a union, so merging would turn and into or).
 * Every operand is checked the way rp_constraint_compile checks it, so a
 * parsed query always compiles.  On failure returns NULL, sets errno
 * (EINVAL) and fills error with what and where, e.g.
 *   constraint query: "a | (b": missing ')' at offset 6
 *   constraint query: "foo:x": unknown operator 'foo' at offset 0
 * Caller must json_decref. */
json_t *rp_constraint_query_parse (const char *query, rp_error_t *error);

#ifdef __cplusplus
}
#endif
#endif
