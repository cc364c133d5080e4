/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Event logs as files (RFC 18, "KVS Event Log Format").
 *
 * A log is a file of events, one per line (JSON Lines).  An event is a
 * JSON object with the keys
 *   timestamp  a number > 0, seconds since the epoch
 *   name       a non-empty string
 *   context    an object (optional)
 * and no other.  respol writes events as flux-core does: compact, keys in
 * the order timestamp, name, context, numbers as jansson writes them
 *   {"timestamp":1713906350.984611,"name":"drain","context":{...}}
 *
 * Reading goes through the file a line at a time, with a buffer that never
 * grows past RP_EVENTLOG_LINE_MAX bytes: a longer line is an error, found
 * without reading the rest of it, so a hostile file costs bounded memory.
 * Errors name the file and the line:
 *   eventlog:12: name: must be a non-empty string
 *   eventlog:3: not JSON: '[' or '{' expected near 'x'
 *   eventlog:7: longer than 16777216 bytes
 * What follows the last newline is an incomplete line (a crash while it was
 * written, or a writer still writing it): it is not an event.  The reader
 * stops before it and rp_eventlog_tail says how long it is; a later
 * rp_eventlog_next reads on when the line has been completed.
 *
 * Writing: rp_eventlog_append writes one whole event with one write(2) to
 * a file opened O_APPEND and returns only after fdatasync(2), so an event
 * reported as written survives a crash.  A log is created by its first
 * event, never empty (RFC 18), and its directory is synced then.  Nothing
 * is ever rewritten in place (RFC 18: "SHALL NOT be rewritten or
 * truncated"): rp_eventlog_replace writes a whole new log to a temporary
 * file in the same directory, syncs it, renames it over the old one and
 * syncs the directory, so a reader sees the old log or the new one, never
 * a mixture.  That is how a log is compacted, and how an incomplete last
 * line is dropped (rp_eventlog_repair).  rp_eventlog_append refuses to
 * write after an incomplete line (EBUSY).
 *
 * Writers must not write one log at once; serializing them (a lock) is the
 * caller's business.  Readers need no lock.
 *
 * Ownership: rp_eventlog_open returns a reader the caller must destroy.
 * What rp_eventlog_next returns is borrowed until the next call.
 * rp_eventlog_encode returns a string the caller must free.
 */
#ifndef RESPOL_EVENTLOG_H
#define RESPOL_EVENTLOG_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include <respol/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest line read, newline excluded. */
#define RP_EVENTLOG_LINE_MAX ((size_t)16 << 20) /* 16 MiB */

struct rp_eventlog;

/* A reader of the log at path.  NULL with errno ENOENT when there is no
 * such file ("PATH: No such file or directory"), EISDIR and the like for
 * what is not a regular file. */
struct rp_eventlog *rp_eventlog_open (const char *path, rp_error_t *error);
/* Accepts NULL, keeps errno. */
void rp_eventlog_destroy (struct rp_eventlog *log);

/* The next event: returns 1 and its parts (borrowed until the next call;
 * *context NULL when the event has none), 0 when no complete line is left
 * (call again later to read what a writer appends), -1 on a line that is
 * not an event (error: "NAME:LINE: what"); every later call then fails
 * with the same error. */
int rp_eventlog_next (struct rp_eventlog *log, double *timestamp,
                      const char **name, const json_t **context,
                      rp_error_t *error);

/* Line number of the last event returned (0 before the first). */
size_t rp_eventlog_lineno (const struct rp_eventlog *log);
/* Bytes of the incomplete line after the last complete one, as of the
 * last rp_eventlog_next that returned 0. */
size_t rp_eventlog_tail (const struct rp_eventlog *log);
/* Has the file at the reader's path been replaced (renamed over) or
 * removed since it was opened? */
bool rp_eventlog_replaced (const struct rp_eventlog *log);

/* Check one line (len bytes, no newline): 0, or -1 with the reason (no
 * file or line in it, e.g. "timestamp: must be a number > 0"). */
int rp_eventlog_check (const char *line, size_t len, double *timestamp,
                       const char **name, const json_t **context,
                       json_t **event, rp_error_t *error);

/* The line of one event, newline included.  context may be NULL; it is
 * not kept.  NULL with EINVAL for a bad timestamp, name or context. */
char *rp_eventlog_encode (double timestamp, const char *name,
                          const json_t *context, rp_error_t *error);

/* Append one event to the log at path (created if missing) and sync it.
 * EBUSY when the file ends in an incomplete line; errno of the system
 * call that failed otherwise ("PATH: strerror"). */
int rp_eventlog_append (const char *path, double timestamp, const char *name,
                        const json_t *context, rp_error_t *error);

/* Replace the log at path with the events of array (each an object
 * {"timestamp", "name", "context"?} as rp_eventlog_encode takes them):
 * written to a temporary file beside it, synced, renamed over it, and the
 * directory synced.  An empty array removes the log. */
int rp_eventlog_replace (const char *path, const json_t *events,
                         rp_error_t *error);

/* Replace the log at path with its complete lines (dropping an incomplete
 * last line), as rp_eventlog_replace does.  The bytes of those lines are
 * copied unchanged.  *dropped (may be NULL): bytes dropped. */
int rp_eventlog_repair (const char *path, size_t *dropped, rp_error_t *error);

#ifdef __cplusplus
}
#endif
#endif
