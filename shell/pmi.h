/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* A PMI-1 server: the simple wire protocol of RFC 13, which MPICH's
 * simple PMI client speaks over the descriptor named by PMI_FD.
 *
 * Internal to the job shell (shell/libshell.la, linked by the respol
 * command), not part of librespol: nothing but a job shell serves PMI,
 * and the protocol needs no plugin-facing API.  Names carry no rp_
 * prefix for that reason.
 *
 * One connection per local task, over a socketpair.  The caller owns the
 * poll loop, so it can watch its children and other descriptors too:
 *
 *   srv = pmi_server_create (size, "kvs-1", NULL, NULL, &error);
 *   pmi_server_set_mapping (srv, taskmap, &error);
 *   fd = pmi_server_add_task (srv, rank, &error);   for each local task
 *   fork; in the child: clear FD_CLOEXEC on fd (or dup2 it), set the
 *     environment of pmi_server_task_env, exec; in the parent: close fd
 *   loop: n = pmi_server_pollfds (srv, fds, max); poll (fds, n, ...);
 *         pmi_server_handle (srv, fds[i].fd, fds[i].revents, &error)
 *
 * The KVS is one key-value space for the whole job.  A value is visible
 * to every local task as soon as it is put; RFC 13 only promises it after
 * the next barrier.  A barrier completes when every task added has
 * entered it.  With several nodes, the ops' barrier hook is the seam: it
 * is called when every local task has entered, sends what
 * pmi_server_kvs_foreach_new lists to the other nodes, puts theirs with
 * pmi_server_kvs_put and calls pmi_server_barrier_done, now or later from
 * the caller's loop.  Without a hook the barrier completes at once (one
 * node).
 *
 * Bounds on what a task sends (MPICH's and flux-core's limits, which
 * get_maxes announces): a request line of at most PMI_SERVER_LINE_MAX
 * bytes, a kvsname, key and value shorter than their maxima, at most
 * PMI_SERVER_PUTS_PER_TASK puts per task, bytes of RFC 13's grammar
 * (printable ASCII, space and tab).  A put or get beyond a size is
 * answered with RFC 13's length error codes; anything else that breaks
 * the protocol closes that task's connection and pmi_server_handle
 * returns -1 with the reason, e.g.
 *   pmi: rank 3: unknown command "frob"
 * RFC 13 says the program must then be aborted: that is the caller's.
 */
#ifndef RESPOL_SHELL_PMI_H
#define RESPOL_SHELL_PMI_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>

#include "respol/error.h"
#include "respol/taskmap.h"

/* Lengths including the terminating NUL, as PMI_KVS_Get_*_length_max
 * report them. */
#define PMI_SERVER_KVSNAME_MAX 64
#define PMI_SERVER_KEY_MAX 64
#define PMI_SERVER_VALUE_MAX 1024
/* A request line without its newline. */
#define PMI_SERVER_LINE_MAX                                                    \
    (PMI_SERVER_KVSNAME_MAX + PMI_SERVER_KEY_MAX + PMI_SERVER_VALUE_MAX + 64)
#define PMI_SERVER_PUTS_PER_TASK 256

struct pmi_server;

struct pmi_server_ops {
    /* Every local task has entered the barrier (see above).  -1 fails the
     * barrier: every task gets barrier_out with rc=-1. */
    int (*barrier) (struct pmi_server *srv, void *arg);
    /* A task sent abort (exitcode 1 when it gave none, msg may be empty).
     * Its connection stays open; ending the job is the caller's. */
    void (*abort) (struct pmi_server *srv, int rank, int exitcode,
                   const char *msg, void *arg);
};

/* A server for a job of size tasks (PMI_SIZE) whose KVS is called
 * kvsname (letters, digits and "-_.", shorter than
 * PMI_SERVER_KVSNAME_MAX).  ops may be NULL; it is copied.  Caller must
 * destroy. */
struct pmi_server *pmi_server_create (int size, const char *kvsname,
                                      const struct pmi_server_ops *ops,
                                      void *arg, rp_error_t *error);
/* Closes every connection.  Accepts NULL, keeps errno. */
void pmi_server_destroy (struct pmi_server *srv);

/* Put PMI_process_mapping (RFC 13) from the job's task map; an empty
 * value when its PMI form does not fit a value (RFC 13: "unknown"). */
int pmi_server_set_mapping (struct pmi_server *srv,
                            const struct rp_taskmap *map, rp_error_t *error);

/* Connect local task rank (0 <= rank < size, once each).  Returns the
 * task's end of the connection, with FD_CLOEXEC set; the caller owns it
 * (see above).  -1 with the reason. */
int pmi_server_add_task (struct pmi_server *srv, int rank, rp_error_t *error);

/* The task's environment: "PMI_FD=fd", "PMI_RANK=rank", "PMI_SIZE=size",
 * "PMI_SPAWNED=0", for the fd it will have after exec. */
int pmi_server_task_env (const struct pmi_server *srv, int rank, int fd,
                         char env[4][32]);

/* The descriptors to poll: one per open connection, with the events the
 * server waits for (none while the task waits in a barrier: hangups
 * still show).  Fills at most n entries; returns how many there are. */
size_t pmi_server_pollfds (const struct pmi_server *srv, struct pollfd *fds,
                           size_t n);
/* Open connections (a task that finalized or failed is closed). */
size_t pmi_server_nopen (const struct pmi_server *srv);

/* Serve what poll reported for fd.  0, or -1 with the reason when that
 * task broke the protocol or closed its connection after it started
 * talking and before finalize; its connection is then closed.  A task
 * that closes without ever sending a request is not an error (a program
 * that does not use PMI). */
int pmi_server_handle (struct pmi_server *srv, int fd, short revents,
                       rp_error_t *error);

/* --- the seam for several nodes ----------------------------------------- */

/* End the barrier the hook was called for: rc 0 or -1 for every task. */
int pmi_server_barrier_done (struct pmi_server *srv, int rc);
/* Call fn for each key put by a local task since the last barrier ended,
 * in put order; stops at fn's first nonzero return, which it returns. */
int pmi_server_kvs_foreach_new (const struct pmi_server *srv,
                                int (*fn) (const char *key, const char *value,
                                           void *arg),
                                void *arg);
/* Put a key from elsewhere (another node); same bounds as a task's put.
 * A key already there with another value is an error. */
int pmi_server_kvs_put (struct pmi_server *srv, const char *key,
                        const char *value, rp_error_t *error);
/* The value of key, or NULL.  Borrowed until the server is destroyed. */
const char *pmi_server_kvs_get (const struct pmi_server *srv, const char *key);

#endif
