/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* pmi-run: start N copies of a program as one job under the PMI-1 server,
 * on this machine.  A test helper (t/t0045-pmi-mpich.t runs an MPICH
 * hello world with it), not a command: the job shell will do this for
 * real, with layout and binding.
 *
 *   shell/test/pmi-run [-n N] [-t SECONDS] CMD [ARGS...]
 *
 * Each task gets PMI_FD, PMI_RANK, PMI_SIZE and PMI_SPAWNED=0 and the
 * server's PMI_process_mapping says all N run on one node.  Exit status:
 * the largest of the tasks' (128+N for a signal); 1 after a PMI error
 * (printed, the tasks killed); the abort's exit code when a task aborts;
 * 124 when the time limit (default 60 s) passes.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "shell/pmi.h"

struct job {
    int n;
    pid_t *pids;
    int running;
    int status; /* the exit status so far */
    bool killed;
};

static void kill_all (struct job *job)
{
    for (int i = 0; i < job->n; i++)
        if (job->pids[i] > 0)
            kill (job->pids[i], SIGTERM);
    job->killed = true;
}

static void on_abort (struct pmi_server *srv, int rank, int code,
                      const char *msg, void *arg)
{
    struct job *job = arg;

    fprintf (stderr, "pmi-run: rank %d aborted with exit code %d%s%s\n", rank,
             code, *msg ? ": " : "", msg);
    job->status = code ? code : 1;
    kill_all (job);
}

static pid_t start (struct pmi_server *srv, int rank, char **argv)
{
    rp_error_t e;
    int fd = pmi_server_add_task (srv, rank, &e);
    char env[4][32];
    pid_t pid;

    if (fd < 0) {
        fprintf (stderr, "pmi-run: %s\n", e.text);
        return -1;
    }
    pmi_server_task_env (srv, rank, fd, env);
    if ((pid = fork ()) == 0) {
        fcntl (fd, F_SETFD, 0);
        for (int i = 0; i < 4; i++)
            putenv (env[i]);
        execvp (argv[0], argv);
        fprintf (stderr, "pmi-run: %s: %s\n", argv[0], strerror (errno));
        _exit (127);
    }
    close (fd);
    if (pid < 0)
        fprintf (stderr, "pmi-run: fork: %s\n", strerror (errno));
    return pid;
}

/* Collect the tasks that exited. */
static void reap (struct job *job)
{
    int status;
    pid_t pid;

    while ((pid = waitpid (-1, &status, WNOHANG)) > 0) {
        int code =
            WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
        for (int i = 0; i < job->n; i++)
            if (job->pids[i] == pid)
                job->pids[i] = 0;
        job->running--;
        if (code > job->status && !job->killed)
            job->status = code;
    }
}

static void serve (struct pmi_server *srv, struct job *job, double limit)
{
    struct pollfd fds[1024];
    time_t end = time (NULL) + (time_t)limit;

    while (job->running > 0) {
        size_t n = pmi_server_pollfds (srv, fds, 1024);
        if (poll (fds, n < 1024 ? n : 1024, 50) > 0) {
            for (size_t i = 0; i < n && i < 1024; i++) {
                rp_error_t e;
                if (fds[i].revents
                    && pmi_server_handle (srv, fds[i].fd, fds[i].revents, &e)
                           < 0
                    && !job->killed) {
                    fprintf (stderr, "pmi-run: %s\n", e.text);
                    job->status = 1;
                    kill_all (job);
                }
            }
        }
        reap (job);
        if (time (NULL) > end && !job->killed) {
            fprintf (stderr, "pmi-run: time limit of %g s passed\n", limit);
            job->status = 124;
            kill_all (job);
        }
    }
}

int main (int argc, char **argv)
{
    struct pmi_server_ops ops = { .abort = on_abort };
    struct job job = { .n = 1 };
    double limit = 60;
    struct rp_taskmap *map = rp_taskmap_create ();
    struct pmi_server *srv;
    char kvsname[32];
    rp_error_t e;
    int c;

    while ((c = getopt (argc, argv, "+n:t:")) != -1) {
        if (c == 'n')
            job.n = atoi (optarg);
        else if (c == 't')
            limit = atof (optarg);
        else
            return 2;
    }
    if (optind == argc || job.n < 1 || job.n > 1024 || !(limit > 0)) {
        fprintf (stderr, "Usage: pmi-run [-n 1..1024] [-t SECONDS] CMD "
                         "[ARGS...]\n");
        return 2;
    }
    snprintf (kvsname, sizeof (kvsname), "pmi-run-%d", (int)getpid ());
    if (!(srv = pmi_server_create (job.n, kvsname, &ops, &job, &e))
        || rp_taskmap_append (map, 0, 1, job.n, &e) < 0
        || pmi_server_set_mapping (srv, map, &e) < 0) {
        fprintf (stderr, "pmi-run: %s\n", e.text);
        return 1;
    }
    job.pids = calloc (job.n, sizeof (pid_t));
    for (int r = 0; r < job.n; r++) {
        if ((job.pids[r] = start (srv, r, argv + optind)) < 0) {
            job.status = 1;
            kill_all (&job);
            break;
        }
        job.running++;
    }
    serve (srv, &job, limit);
    pmi_server_destroy (srv);
    rp_taskmap_destroy (map);
    free (job.pids);
    return job.status;
}
