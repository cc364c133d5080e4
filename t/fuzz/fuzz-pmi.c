/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target for the PMI-1 server (shell/pmi.c): the input is what
 * two tasks of a job send over their connections.
 *
 * The input is split at its first 0xff byte (none: all of it to task 0):
 * the first part goes to task 0, the rest to task 1, each written in
 * pieces of up to 61 bytes, with the server run between pieces, so lines
 * arrive cut at every place.  The server must never crash or grow, must
 * close a connection only with an error that names the task, and every
 * error must be "pmi: rank N: ..."; the barrier hook completes at once.
 * Any disagreement calls abort() so libFuzzer keeps the input.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shell/pmi.h"

static void check (bool cond)
{
    if (!cond)
        abort ();
}

static int hook (struct pmi_server *srv, void *arg)
{
    return pmi_server_barrier_done (srv, 0);
}

/* Serve until nothing is ready; drain what the tasks were sent. */
static void run (struct pmi_server *srv, const int *fd)
{
    struct pollfd fds[2];
    char buf[4096];

    for (int round = 0; round < 1000; round++) {
        size_t n = pmi_server_pollfds (srv, fds, 2);
        check (n <= 2);
        if (n == 0 || poll (fds, n, 0) <= 0)
            break;
        for (size_t i = 0; i < n; i++) {
            rp_error_t e = { "" };
            if (fds[i].revents
                && pmi_server_handle (srv, fds[i].fd, fds[i].revents, &e) < 0)
                check (!strncmp (e.text, "pmi: rank ", 10));
        }
        for (int t = 0; t < 2; t++)
            while (recv (fd[t], buf, sizeof (buf), MSG_DONTWAIT) > 0)
                ;
    }
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct pmi_server_ops ops = { .barrier = hook };
    struct pmi_server *srv = pmi_server_create (2, "fuzz", &ops, NULL, NULL);
    const uint8_t *cut = memchr (data, 0xff, size);
    size_t len[2] = { cut ? (size_t)(cut - data) : size, 0 };
    const uint8_t *part[2] = { data, cut ? cut + 1 : data + size };
    int fd[2];

    check (srv != NULL);
    len[1] = size - len[0] - (cut ? 1 : 0);
    for (int t = 0; t < 2; t++)
        check ((fd[t] = pmi_server_add_task (srv, t, NULL)) >= 0);
    for (size_t off = 0; off < len[0] || off < len[1]; off += 61) {
        for (int t = 0; t < 2; t++)
            if (off < len[t]
                && send (fd[t], part[t] + off,
                         len[t] - off < 61 ? len[t] - off : 61,
                         MSG_DONTWAIT | MSG_NOSIGNAL)
                       < 0)
                check (errno == EAGAIN || errno == EPIPE
                       || errno == ECONNRESET);
        run (srv, fd);
    }
    close (fd[0]);
    run (srv, fd);
    close (fd[1]);
    run (srv, fd);
    check (pmi_server_nopen (srv) == 0);
    pmi_server_destroy (srv);
    return 0;
}
