/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Start the local tasks of a job shell and wait for them (launch.h).
 *
 * One poll loop watches: a signalfd (the forwarded signals and SIGCHLD),
 * the tasks' output pipes (--label-io), the PMI-1 server's connections
 * (RFC 13, shell/pmi.h), and the terminal forwarded to task 0.  The
 * time limit and the kill timeout are the loop's timeout.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "launch.h"
#include "shell/pmi.h"

/* The longest output line kept whole with --label-io; longer ones are
 * written in pieces of this size, each prefixed. */
#define LINE_MAX_BYTES (1 << 20)

struct linebuf {
    char *buf;
    size_t len, size;
};

struct ltask {
    struct rp_task *t;
    unsigned long id;
    pid_t pid;  /* its process group too; 0 once it ended */
    int out_fd; /* --label-io: read ends, -1 when closed */
    int err_fd;
    struct linebuf out, err;
};

struct launcher {
    const struct cmd_launch *l;
    struct rp_shell *sh;
    struct ltask *tasks;
    size_t n;
    size_t running;
    int status;
    int sigfd;
    sigset_t oldmask;
    struct pmi_server *srv;
    /* The terminal forwarded to task 0: in_fd is the pipe's write end. */
    int in_fd;
    bool in_open; /* still reading stdin */
    char inbuf[4096];
    size_t inlen, inoff;
    double deadline; /* monotonic seconds; 0: none */
    double kill_at;
    double last_int;
    bool stopping;
    bool out_broken; /* stdout is a closed pipe: lines are dropped */
    int fixed_status; /* a PMI abort's or error's status, else -1 */
    struct rlimit nofile; /* as it was: restored in the tasks */
    bool nofile_raised;
};

static const int forwarded[] = { SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
                                 SIGUSR1, SIGUSR2, 0 };

static double now_mono (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* --- signals to the tasks ------------------------------------------------- */

static void signal_tasks (struct launcher *la, int sig)
{
    for (size_t i = 0; i < la->n; i++)
        if (la->tasks[i].pid > 0)
            kill (-la->tasks[i].pid, sig);
}

/* End the job: SIGTERM now, SIGKILL after the kill timeout. */
static void stop_tasks (struct launcher *la)
{
    if (la->stopping)
        return;
    la->stopping = true;
    signal_tasks (la, SIGTERM);
    la->kill_at = now_mono () + la->l->kill_timeout;
}

static void raise_status (struct launcher *la, int code)
{
    if (code > la->status)
        la->status = code;
}

/* --- output ----------------------------------------------------------------- */

static void emit (struct launcher *la, FILE *f, unsigned long id,
                  const char *s, size_t len)
{
    if (f == stdout && la->out_broken)
        return;
    fprintf (f, "%lu: ", id);
    fwrite (s, 1, len, f);
    if (len == 0 || s[len - 1] != '\n')
        fputc ('\n', f);
    if (fflush (f) != 0 && f == stdout)
        la->out_broken = true; /* EPIPE: the reader went away */
}

/* Write the complete lines of b (all of it when final). */
static void flush_lines (struct launcher *la, FILE *f, unsigned long id,
                         struct linebuf *b, bool final)
{
    size_t start = 0;

    for (size_t i = 0; i < b->len; i++) {
        if (b->buf[i] == '\n') {
            emit (la, f, id, b->buf + start, i + 1 - start);
            start = i + 1;
        }
    }
    if ((final || b->len - start >= LINE_MAX_BYTES) && start < b->len) {
        emit (la, f, id, b->buf + start, b->len - start);
        start = b->len;
    }
    memmove (b->buf, b->buf + start, b->len - start);
    b->len -= start;
}

/* Read what fd has; at end of file (or an error) write what is left and
 * close it.  With drain, read until the pipe is empty, then close it
 * (the task ended: a process it left behind may hold the pipe open). */
static void read_output (struct launcher *la, struct ltask *lt, bool err,
                         bool drain)
{
    int *fd = err ? &lt->err_fd : &lt->out_fd;
    struct linebuf *b = err ? &lt->err : &lt->out;
    FILE *f = err ? stderr : stdout;

    while (*fd >= 0) {
        ssize_t n;
        if (b->size - b->len < 4096) {
            size_t size = b->size ? b->size * 2 : 8192;
            char *p = realloc (b->buf, size);
            if (!p)
                cmd_die (la->l->sub, "out of memory");
            b->buf = p;
            b->size = size;
        }
        n = read (*fd, b->buf + b->len, b->size - b->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n > 0) {
            b->len += (size_t)n;
            flush_lines (la, f, lt->id, b, false);
            if (drain)
                continue;
            return;
        }
        if (n < 0 && errno == EAGAIN && !drain)
            return;
        /* End of file, an error, or drained. */
        flush_lines (la, f, lt->id, b, true);
        close (*fd);
        *fd = -1;
    }
}

/* stdout is a pipe whose reader went away: close the tasks' stdout pipes,
 * so that their next write fails (SIGPIPE) as it would have without
 * --label-io. */
static void close_outputs (struct launcher *la)
{
    for (size_t i = 0; i < la->n; i++) {
        if (la->tasks[i].out_fd >= 0) {
            close (la->tasks[i].out_fd);
            la->tasks[i].out_fd = -1;
        }
    }
}

/* --- stdin forwarded to task 0 ---------------------------------------------- */

static void close_stdin (struct launcher *la)
{
    if (la->in_fd >= 0)
        close (la->in_fd);
    la->in_fd = -1;
    la->in_open = false;
}

static void read_stdin (struct launcher *la)
{
    ssize_t n = read (STDIN_FILENO, la->inbuf, sizeof (la->inbuf));

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close_stdin (la); /* end of input: the task reads end of file */
        return;
    }
    la->inlen = (size_t)n;
    la->inoff = 0;
}

static void write_stdin (struct launcher *la)
{
    ssize_t n = write (la->in_fd, la->inbuf + la->inoff,
                       la->inlen - la->inoff);

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n < 0) { /* the task closed its stdin */
        close_stdin (la);
        return;
    }
    la->inoff += (size_t)n;
    if (la->inoff == la->inlen)
        la->inlen = la->inoff = 0;
}

/* --- starting a task ---------------------------------------------------------- */

static void child_fail (const struct launcher *la, const struct ltask *lt,
                        const char *what, int code)
{
    dprintf (STDERR_FILENO, "respol: %s: task %lu: %s\n", la->l->sub, lt->id,
             what);
    _exit (code);
}

/* In the child: its descriptors, signals, the decision, then exec. */
static void child (struct launcher *la, struct ltask *lt, int in, int out,
                   int err, int pmi_fd)
{
    char msg[sizeof (((rp_error_t *)0)->text) + 512];
    rp_error_t error;
    int e;

    setpgid (0, 0);
    if (la->nofile_raised)
        setrlimit (RLIMIT_NOFILE, &la->nofile);
    signal (SIGPIPE, SIG_DFL);
    sigprocmask (SIG_SETMASK, &la->oldmask, NULL);
    if ((in != STDIN_FILENO && dup2 (in, STDIN_FILENO) < 0)
        || (out >= 0 && dup2 (out, STDOUT_FILENO) < 0)
        || (err >= 0 && dup2 (err, STDERR_FILENO) < 0)) {
        snprintf (msg, sizeof (msg), "dup2: %s", strerror (errno));
        child_fail (la, lt, msg, 1);
    }
    if (pmi_fd >= 0) {
        char env[4][32];
        fcntl (pmi_fd, F_SETFD, 0);
        pmi_server_task_env (la->srv, (int)lt->id, pmi_fd, env);
        for (int i = 0; i < 4; i++) {
            char *eq = strchr (env[i], '=');
            *eq = '\0';
            if (rp_task_setenv (lt->t, env[i], eq + 1) < 0)
                child_fail (la, lt, "out of memory", 1);
        }
    }
    if (la->l->cwd && chdir (la->l->cwd) < 0) {
        snprintf (msg, sizeof (msg), "working directory %s: %s", la->l->cwd,
                  strerror (errno));
        child_fail (la, lt, msg, 1);
    }
    if (rp_task_exec (lt->t, &error) < 0)
        child_fail (la, lt, error.text, 1);
    execvp (la->l->argv[0], la->l->argv);
    e = errno;
    snprintf (msg, sizeof (msg), "%s: %s", la->l->argv[0], strerror (e));
    child_fail (la, lt, msg, e == ENOENT ? 127 : 126);
}

static int make_pipe (int fds[2], const char *sub)
{
    if (pipe2 (fds, O_CLOEXEC) < 0) {
        cmd_warn (sub, "pipe: %s", strerror (errno));
        return -1;
    }
    return 0;
}

static int start_task (struct launcher *la, struct ltask *lt, int devnull)
{
    const char *sub = la->l->sub;
    int out[2] = { -1, -1 }, err[2] = { -1, -1 }, pmi_fd = -1;
    int in = devnull;
    int in_pipe[2] = { -1, -1 };
    rp_error_t error;
    pid_t pid;

    if (la->l->label_io
        && (make_pipe (out, sub) < 0 || make_pipe (err, sub) < 0))
        goto fail;
    if (lt->id == 0) {
        if (isatty (STDIN_FILENO)) {
            if (make_pipe (in_pipe, sub) < 0)
                goto fail;
            in = in_pipe[0];
        } else
            in = STDIN_FILENO;
    }
    if (la->srv
        && (pmi_fd = pmi_server_add_task (la->srv, (int)lt->id, &error)) < 0) {
        cmd_warn (sub, "%s", error.text);
        goto fail;
    }
    fflush (stdout);
    fflush (stderr);
    if ((pid = fork ()) < 0) {
        cmd_warn (sub, "task %lu: fork: %s", lt->id, strerror (errno));
        goto fail;
    }
    if (pid == 0)
        child (la, lt, in, out[1], err[1], pmi_fd);
    setpgid (pid, pid); /* also in the child: whichever runs first */
    lt->pid = pid;
    la->running++;
    if (out[1] >= 0) {
        close (out[1]);
        close (err[1]);
        fcntl (out[0], F_SETFL, O_NONBLOCK);
        fcntl (err[0], F_SETFL, O_NONBLOCK);
        lt->out_fd = out[0];
        lt->err_fd = err[0];
    }
    if (in_pipe[0] >= 0) {
        close (in_pipe[0]);
        fcntl (in_pipe[1], F_SETFL, O_NONBLOCK);
        la->in_fd = in_pipe[1];
        la->in_open = true;
    }
    if (pmi_fd >= 0)
        close (pmi_fd);
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (out[i] >= 0)
            close (out[i]);
        if (err[i] >= 0)
            close (err[i]);
        if (in_pipe[i] >= 0)
            close (in_pipe[i]);
    }
    if (pmi_fd >= 0)
        close (pmi_fd);
    return -1;
}

/* --- the end of a task -------------------------------------------------------- */

static void task_ended (struct launcher *la, struct ltask *lt, int status)
{
    int code = WIFEXITED (status) ? WEXITSTATUS (status)
                                  : 128 + WTERMSIG (status);
    rp_error_t error;

    lt->pid = 0;
    la->running--;
    raise_status (la, code);
    read_output (la, lt, false, true);
    read_output (la, lt, true, true);
    if (lt->id == 0)
        close_stdin (la);
    if (rp_task_exited (lt->t, status, &error) < 0)
        cmd_warn (la->l->sub, "task %lu: %s", lt->id, error.text);
}

static void reap (struct launcher *la)
{
    pid_t pid;
    int status;

    while ((pid = waitpid (-1, &status, WNOHANG)) > 0) {
        for (size_t i = 0; i < la->n; i++) {
            if (la->tasks[i].pid == pid) {
                task_ended (la, &la->tasks[i], status);
                break;
            }
        }
    }
}

/* --- signals ---------------------------------------------------------------- */

static void on_signal (struct launcher *la, int sig)
{
    if (sig == SIGCHLD)
        reap (la);
    else if (sig == SIGTSTP) {
        signal_tasks (la, SIGTSTP);
        raise (SIGSTOP);
    } else if (sig == SIGCONT)
        signal_tasks (la, SIGCONT);
    else if (sig == SIGINT && la->last_int > 0
             && now_mono () - la->last_int < 2.0) {
        cmd_warn (la->l->sub, "interrupted twice: killing the tasks");
        signal_tasks (la, SIGKILL);
    } else {
        if (sig == SIGINT)
            la->last_int = now_mono ();
        signal_tasks (la, sig);
    }
}

static void read_signals (struct launcher *la)
{
    struct signalfd_siginfo si;

    while (read (la->sigfd, &si, sizeof (si)) == (ssize_t)sizeof (si))
        on_signal (la, (int)si.ssi_signo);
}

/* The launcher's signals, and the mask the process had before it blocked
 * them (which the tasks get back). */
static sigset_t launch_set, launch_oldmask;
static bool launch_blocked;

static void launch_signals (sigset_t *set)
{
    sigemptyset (set);
    for (size_t i = 0; forwarded[i]; i++)
        sigaddset (set, forwarded[i]);
    sigaddset (set, SIGCHLD);
    sigaddset (set, SIGTSTP);
    sigaddset (set, SIGCONT);
}

void cmd_launch_block_signals (void)
{
    if (launch_blocked)
        return;
    launch_signals (&launch_set);
    if (sigprocmask (SIG_BLOCK, &launch_set, &launch_oldmask) == 0)
        launch_blocked = true;
}

void cmd_launch_unblock_signals (void)
{
    if (launch_blocked)
        sigprocmask (SIG_SETMASK, &launch_oldmask, NULL);
    launch_blocked = false;
}

static int signals_setup (struct launcher *la)
{
    cmd_launch_block_signals ();
    la->oldmask = launch_oldmask;
    if (!launch_blocked
        || (la->sigfd = signalfd (-1, &launch_set, SFD_NONBLOCK | SFD_CLOEXEC))
               < 0) {
        cmd_warn (la->l->sub, "signalfd: %s", strerror (errno));
        return -1;
    }
    signal (SIGPIPE, SIG_IGN);
    return 0;
}

static void signals_restore (struct launcher *la)
{
    if (la->sigfd >= 0)
        close (la->sigfd);
    cmd_launch_unblock_signals ();
    signal (SIGPIPE, SIG_DFL);
}

/* --- PMI ---------------------------------------------------------------------- */

static void on_abort (struct pmi_server *srv, int rank, int code,
                      const char *msg, void *arg)
{
    struct launcher *la = arg;

    (void)srv;
    cmd_warn (la->l->sub, "task %d aborted the job (PMI) with exit code %d%s%s",
              rank, code, *msg ? ": " : "", msg);
    if (la->fixed_status < 0)
        la->fixed_status = code ? code : 1;
    stop_tasks (la);
}

static int pmi_setup (struct launcher *la)
{
    struct pmi_server_ops ops = { .abort = on_abort };
    char kvsname[PMI_SERVER_KVSNAME_MAX];
    rp_error_t error;

    snprintf (kvsname, sizeof (kvsname), "respol-%ld", (long)getpid ());
    if (!(la->srv = pmi_server_create ((int)rp_shell_ntasks_total (la->sh),
                                       kvsname, &ops, la, &error))
        || (la->l->map
            && pmi_server_set_mapping (la->srv, la->l->map, &error) < 0)) {
        cmd_warn (la->l->sub, "%s", error.text);
        return -1;
    }
    return 0;
}

/* --- the loop ----------------------------------------------------------------- */

/* Room in the poll set: the signalfd, stdin and its pipe, two pipes per
 * task, one PMI connection per task. */
static size_t npoll_max (const struct launcher *la)
{
    return 3 + 3 * la->n;
}

static size_t add_fd (struct pollfd *fds, size_t n, int fd, short events)
{
    fds[n].fd = fd;
    fds[n].events = events;
    fds[n].revents = 0;
    return n + 1;
}

static int timeout_ms (const struct launcher *la)
{
    double next = 0, now;

    if (la->kill_at > 0)
        next = la->kill_at;
    else if (la->deadline > 0)
        next = la->deadline;
    if (next == 0)
        return -1;
    now = now_mono ();
    return next <= now ? 0 : (int)((next - now) * 1000) + 1;
}

static void check_timers (struct launcher *la)
{
    double now = now_mono ();

    if (la->kill_at > 0 && now >= la->kill_at) {
        signal_tasks (la, SIGKILL);
        la->kill_at = 0;
    }
    if (la->deadline > 0 && now >= la->deadline) {
        char buf[64];
        la->deadline = 0;
        cmd_warn (la->l->sub,
                  "time limit of %s reached: sending SIGTERM to the tasks",
                  cmd_format_duration (la->l->time_limit, buf, sizeof (buf)));
        stop_tasks (la);
    }
}

static void serve (struct launcher *la, struct pollfd *fds)
{
    while (la->running > 0) {
        size_t n = 0, pmi_first;
        n = add_fd (fds, n, la->sigfd, POLLIN);
        if (la->in_open && la->in_fd >= 0) {
            if (la->inlen == 0)
                n = add_fd (fds, n, STDIN_FILENO, POLLIN);
            else
                n = add_fd (fds, n, la->in_fd, POLLOUT);
        }
        for (size_t i = 0; i < la->n; i++) {
            if (la->tasks[i].out_fd >= 0)
                n = add_fd (fds, n, la->tasks[i].out_fd, POLLIN);
            if (la->tasks[i].err_fd >= 0)
                n = add_fd (fds, n, la->tasks[i].err_fd, POLLIN);
        }
        pmi_first = n;
        if (la->srv)
            n += pmi_server_pollfds (la->srv, fds + n, npoll_max (la) - n);
        if (poll (fds, n, timeout_ms (la)) < 0 && errno != EINTR)
            cmd_die (la->l->sub, "poll: %s", strerror (errno));
        for (size_t i = 0; i < n; i++) {
            if (!fds[i].revents)
                continue;
            if (i >= pmi_first) {
                rp_error_t error;
                if (pmi_server_handle (la->srv, fds[i].fd, fds[i].revents,
                                       &error)
                        < 0
                    && !la->stopping) {
                    cmd_warn (la->l->sub, "%s", error.text);
                    if (la->fixed_status < 0)
                        la->fixed_status = 1;
                    stop_tasks (la);
                }
            } else if (fds[i].fd == la->sigfd)
                read_signals (la);
            else if (fds[i].fd == STDIN_FILENO)
                read_stdin (la);
            else if (fds[i].fd == la->in_fd)
                write_stdin (la);
            else {
                for (size_t k = 0; k < la->n; k++) {
                    struct ltask *lt = &la->tasks[k];
                    if (fds[i].fd == lt->out_fd)
                        read_output (la, lt, false, false);
                    else if (fds[i].fd == lt->err_fd)
                        read_output (la, lt, true, false);
                }
            }
        }
        if (la->out_broken)
            close_outputs (la);
        check_timers (la);
    }
}

static void cleanup (struct launcher *la)
{
    for (size_t i = 0; i < la->n; i++) {
        struct ltask *lt = &la->tasks[i];
        if (lt->out_fd >= 0)
            close (lt->out_fd);
        if (lt->err_fd >= 0)
            close (lt->err_fd);
        free (lt->out.buf);
        free (lt->err.buf);
    }
    close_stdin (la);
    free (la->tasks);
    pmi_server_destroy (la->srv);
    signals_restore (la);
}

int cmd_launch (struct rp_shell *sh, const struct cmd_launch *l)
{
    struct launcher la = {
        .l = l, .sh = sh, .sigfd = -1, .in_fd = -1, .fixed_status = -1
    };
    struct pollfd *fds = NULL;
    rp_error_t error;
    int devnull;

    la.n = rp_shell_ntasks (sh);
    if (!(la.tasks = calloc (la.n + 1, sizeof (*la.tasks))))
        cmd_die (l->sub, "out of memory");
    for (size_t i = 0; i < la.n; i++) {
        la.tasks[i].t = rp_shell_task (sh, i);
        la.tasks[i].id = rp_task_global_id (la.tasks[i].t);
        la.tasks[i].out_fd = la.tasks[i].err_fd = -1;
    }
    /* Up to three descriptors a task (two output pipes, a PMI
     * connection): raise the soft limit to the hard one for the
     * launcher, not for the tasks. */
    if (getrlimit (RLIMIT_NOFILE, &la.nofile) == 0) {
        struct rlimit raised = { la.nofile.rlim_max, la.nofile.rlim_max };
        la.nofile_raised = setrlimit (RLIMIT_NOFILE, &raised) == 0;
    }
    if ((devnull = open ("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
        cmd_die (l->sub, "/dev/null: %s", strerror (errno));
    if (signals_setup (&la) < 0 || (l->pmi && pmi_setup (&la) < 0)
        || !(fds = calloc (npoll_max (&la), sizeof (*fds)))) {
        close (devnull);
        cleanup (&la);
        return EXIT_INPUT;
    }
    if (l->time_limit > 0)
        la.deadline = now_mono () + l->time_limit;
    for (size_t i = 0; i < la.n; i++) {
        if (start_task (&la, &la.tasks[i], devnull) < 0) {
            la.status = EXIT_INPUT;
            signal_tasks (&la, SIGKILL);
            break;
        }
    }
    close (devnull);
    serve (&la, fds);
    free (fds);
    if (rp_shell_exit (sh, &error) < 0)
        cmd_warn (l->sub, "%s", error.text);
    cleanup (&la);
    return la.fixed_status >= 0 ? la.fixed_status : la.status;
}
