/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Start the local tasks of a job shell and wait for them: what respol run
 * and respol shell share (core/cmd/launch.c).
 *
 * Each task is a child process in its own process group, so that a signal
 * or the time limit reaches everything it started.  In the child the
 * shell's decision is applied (rp_task_exec: the stack's task_exec, CPU
 * binding, memory policy, the task's environment) and the command is
 * executed with execvp in cwd; a command that cannot be executed exits 127 (126
 * when it is not executable), as shells do, after
 *   respol: SUB: task N: CMD: No such file or directory
 *
 * Standard streams.  The task of global id 0 reads the launcher's stdin
 * (forwarded through a pipe when stdin is a terminal, since tasks are not
 * in the terminal's foreground process group); the others read
 * /dev/null.  Tasks write to the launcher's stdout and stderr directly,
 * or, with label_io, through pipes that the launcher reads and writes
 * line by line, each line prefixed "ID: " (the task's global id).
 *
 * Signals.  SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are
 * forwarded to every task's process group; a second SIGINT within two
 * seconds of the first sends SIGKILL.  SIGTSTP stops the tasks and the
 * launcher, SIGCONT continues them.
 *
 * Time limit.  When time_limit (seconds) passes, the tasks get SIGTERM,
 * and SIGKILL kill_timeout seconds later if they are still running:
 *   respol: SUB: time limit of 1m reached: sending SIGTERM to the tasks
 *
 * PMI.  With pmi, a PMI-1 server (shell/pmi.h) serves the tasks over
 * PMI_FD, PMI_RANK and PMI_SIZE: every task of the job must be local.  A
 * task that aborts (PMI abort) ends the job with its exit code; one that
 * breaks the protocol ends it too, with the server's message.
 *
 * Exit status: the largest of the tasks' (128+N for a task killed by
 * signal N); after a PMI abort its exit code, after a PMI error 1.
 */
#ifndef RESPOL_CMD_LAUNCH_H
#define RESPOL_CMD_LAUNCH_H

#include <stdbool.h>

#include <respol/shell.h>
#include <respol/taskmap.h>

/* How long tasks get between SIGTERM and SIGKILL at the time limit, as
 * Flux's job shell gives them. */
#define CMD_KILL_TIMEOUT 5.0

struct cmd_launch {
    const char *sub;     /* "run", "shell": in messages */
    char **argv;         /* the command: NULL-terminated, argv[0] set */
    const char *cwd;     /* the tasks' working directory, or NULL */
    bool label_io;       /* prefix each output line with the task id */
    double time_limit;   /* seconds; 0: none */
    double kill_timeout; /* seconds from SIGTERM to SIGKILL */
    bool pmi;            /* serve PMI-1 (every task is local) */
    const struct rp_taskmap *map; /* the job's task map, for PMI */
};

/* Block the signals the launcher reads (those above and SIGCHLD) in this
 * thread, so that every thread started later inherits the mask: call it
 * first, before anything that may start threads (hwloc's discovery loads
 * GPU drivers, e.g. an OpenCL runtime, whose threads would otherwise
 * take SIGCHLD or SIGTERM with the default action: a lost child, or the
 * launcher killed).  cmd_launch calls it too; unblock restores the mask
 * (a dry run's caller, before it exits: a Ctrl-C that came meanwhile is
 * then delivered). */
void cmd_launch_block_signals (void);
void cmd_launch_unblock_signals (void);

/* Run the tasks of sh (initialized with rp_shell_init), then its
 * shell_exit.  Returns the exit status above; prints why on stderr when
 * a task could not be started (the others are then killed, exit 1). */
int cmd_launch (struct rp_shell *sh, const struct cmd_launch *l);

#endif
