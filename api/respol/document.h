/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Documents: YAML or JSON read once into a JSON tree that remembers where
 * each node came from (line and column), so every later error can say
 * where it is:  job.yaml:7:14: resources[0].count: must be >= 1
 *
 * Jobspec (RFC 14) and respol's configuration file are read through this
 * one reader.  YAML is read with libyaml (YAML 1.1 core types: plain
 * scalars that look like integers, reals, booleans and null become those
 * JSON types; quoted scalars are strings).  Input is bounded: size
 * (RP_DOC_MAX_BYTES), nesting depth (RP_DOC_MAX_DEPTH), number of nodes
 * (RP_DOC_MAX_NODES), and YAML aliases are refused outright (they are the
 * way to a "billion laughs" document and jobspec has no use for them).
 * Documents whose size follows what they describe (resource graphs) are
 * read by rp_doc_load_file_within instead, bounded by the memory their
 * tree takes rather than by size and nodes.
 * Multi-document YAML streams are refused: one document per input.
 * Mapping keys must be strings and unique.
 *
 * Ownership: rp_doc_* constructors return an object the caller must
 * destroy.  rp_doc_root() and node pointers are borrowed from the document
 * and live as long as it does.  rp_doc_dump_yaml() returns a string the
 * caller must free.
 */
#ifndef RESPOL_DOCUMENT_H
#define RESPOL_DOCUMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include <respol/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define RP_DOC_MAX_BYTES ((size_t)16 << 20) /* 16 MiB */
#define RP_DOC_MAX_DEPTH 64
#define RP_DOC_MAX_NODES 1000000

enum {
    RP_DOC_AUTO = 0, /* JSON if the first non-blank byte is '{' or '[',
                      * else YAML; guessed JSON that does not parse is
                      * read as (flow-style) YAML, and if that fails too
                      * the JSON error is reported */
    RP_DOC_YAML = 1,
    RP_DOC_JSON = 2,
};

struct rp_doc;

/* Parse len bytes of buf.  name labels errors (a file name, or "-" shown as
 * "stdin").  On failure returns NULL, sets errno and fills error, e.g.
 *   job.yaml:3:5: YAML aliases are not allowed
 *   job.json:1:17: JSON: end of file expected near ','   */
struct rp_doc *rp_doc_load (const char *buf, size_t len, const char *name,
                            int format, rp_error_t *error);
/* Read and parse a file ("-" reads stdin).  Format RP_DOC_AUTO also looks
 * at the extension (.json / .yaml / .yml). */
struct rp_doc *rp_doc_load_file (const char *path, int format,
                                 rp_error_t *error);
/* Read and parse what the open file fd holds, from its offset to its end,
 * as rp_doc_load_file reads a file: name labels errors and, with format
 * RP_DOC_AUTO, its extension counts.  For a file checked once opened
 * (fstat), which must not be opened again by name.  fd stays open and the
 * caller's; its offset is left after what was read.  A read error is
 * "NAME: strerror". */
struct rp_doc *rp_doc_load_fd (int fd, const char *name, int format,
                               rp_error_t *error);
/* Wrap an existing JSON tree (no positions).  Takes a new reference. */
struct rp_doc *rp_doc_from_json (json_t *root, const char *name);
void rp_doc_destroy (struct rp_doc *doc);

/* The tree.  Borrowed. */
json_t *rp_doc_root (const struct rp_doc *doc);
/* The name given at load ("stdin" for "-"). */
const char *rp_doc_name (const struct rp_doc *doc);
/* Where node (a node of this document's tree) starts: 1-based line and
 * column.  Returns false when unknown (e.g. the tree came from JSON
 * without positions or node is not from this document). */
bool rp_doc_position (const struct rp_doc *doc, const json_t *node,
                      int *line, int *column);

/* Where the value of key in object (an object node of this document)
 * starts, and where the value at index of array starts.  Use these for
 * true, false and null values: jansson shares one node for each of them,
 * so rp_doc_position cannot tell two of them apart.  For a missing key,
 * the position of the object itself is returned (errors about a missing key
 * point at the object that lacks it). */
bool rp_doc_key_position (const struct rp_doc *doc, const json_t *object,
                          const char *key, int *line, int *column);
bool rp_doc_index_position (const struct rp_doc *doc, const json_t *array,
                            size_t index, int *line, int *column);
/* Where key itself (not its value) starts in object; for a missing key,
 * the position of the object.  For "unknown key" errors. */
bool rp_doc_key_name_position (const struct rp_doc *doc,
                               const json_t *object, const char *key,
                               int *line, int *column);

/* Serialize a JSON tree as block-style YAML (keys sorted, strings quoted
 * where YAML would read them as another type), ending in a newline, such
 * that rp_doc_load of the result gives a json_equal tree.  Caller frees. */
char *rp_doc_dump_yaml (const json_t *o);

/* --- documents bounded by memory --------------------------------------
 *
 * For documents whose size follows what they describe (resource graphs)
 * rather than RP_DOC_MAX_BYTES and RP_DOC_MAX_NODES: the load is bounded
 * by the memory its tree takes, estimated as about 350 bytes a mapping or
 * sequence, 250 a scalar (keys included) and 4 a byte of input (both trees
 * of JSON and the positions; doc/formats.md has the measures).  The depth
 * stays RP_DOC_MAX_DEPTH.  Past memory, the load fails with EFBIG before
 * it takes the memory:
 *   g.jgf: document is larger than 268435456 bytes, the most that the
 *   memory limit of 1024 MiB allows           (a file: before reading it)
 *   g.jgf: document needs about 1500 MiB to read, more than the memory
 *   limit of 1024 MiB                         (JSON: before parsing it)
 *   g.yaml:12:5: document needs more than the memory limit of 1024 MiB
 * memory must be > 0 (EINVAL). */
struct rp_doc *rp_doc_load_file_within (const char *path, int format,
                                        uint64_t memory, rp_error_t *error);
/* The estimate for a loaded document, as above; 0 for rp_doc_from_json. */
uint64_t rp_doc_memory (const struct rp_doc *doc);

#ifdef __cplusplus
}
#endif
#endif
