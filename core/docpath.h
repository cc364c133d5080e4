/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Where a value is in a document, for messages: the struct loc chain that
 * the jobspec checks (core/jobspec.c) and the graph reader
 * (core/graph_io.c) walk, its path ("resources[0].with[1].count") and its
 * position (":line:col", from the document reader).  Internal to
 * librespol: no rp_ prefix, and the version script keeps it local.
 *
 * A path names an object member by its key after a dot when the key is
 * "simple" (letters, digits, '_' and '-'), else as ["key"] with the key
 * shown as printable ASCII cut at DOCPATH_SHOW_MAX bytes; an array element
 * as [i].  Messages are built by the callers ("file:line:col: path:
 * what"), as one stops at the first problem and the other collects them.
 */
#ifndef RESPOL_DOCPATH_H
#define RESPOL_DOCPATH_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "respol/document.h"

#define DOCPATH_SHOW_MAX 64
#define DOCPATH_WHERE_SIZE 32 /* ":line:col" */

/* Where a value is: its container and key or index, up to the root. */
struct loc {
    const struct loc *up;
    const json_t *container; /* NULL for the root */
    const char *key;
    size_t index;
    json_t *v;
    bool at_key; /* report at the key itself, not its value */
};

/* The member key of the object at up (v NULL when absent), element i of
 * the array at up, and the member iterator it of the object at up points
 * at.  Loops over members use jansson's iterators (not
 * json_object_foreach) so that clang-format keeps their braces in place. */
struct loc at_key (const struct loc *up, const char *key);
struct loc at_index (const struct loc *up, size_t i);
struct loc at_iter (const struct loc *up, void *it);

/* Is s one of the strings of the NULL-terminated list? */
bool in_list (const char *s, const char *const *list);

/* A user string for a message: printable ASCII (others as '?'), cut at
 * DOCPATH_SHOW_MAX bytes with "..." after.  Returns buf. */
const char *docpath_show (const char *s, char buf[DOCPATH_SHOW_MAX + 4]);

/* The path of l into path (size bytes, cut to fit; "" at the root) and
 * its position into where (":line:col", "" when doc is NULL or does not
 * know it: a tree not read from a document). */
void docpath_describe (const struct rp_doc *doc, const struct loc *l,
                       char *path, size_t size, char where[DOCPATH_WHERE_SIZE]);

#endif
