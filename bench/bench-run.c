/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bench-run: what respol run costs over running a command directly.
 *
 *   bench/bench-run [--quick] [--respol=PATH] [--runs=N]
 *
 * Wall time of whole processes, unlike the other benchmarks (CPU time):
 * the cost of a job launcher is the time its user waits.  For each row
 * the command runs N times (after one warm-up run) and the table gives
 * the minimum, median and maximum in milliseconds:
 *   true                    the command alone (fork and exec)
 *   respol run -n1 true     the jobspec, validators, one hwloc discovery,
 *                           the match, the shell plugins, one task
 *   respol run -nC true     a task per core of this machine (C cores)
 *   respol run -n1 -l true  with --label-io (the output pipes)
 *   respol run --dry-run    everything but starting the task
 * Every run must exit 0.  --respol names the command (default: the build
 * tree's, core/.libs/respol with core/.libs first in LD_LIBRARY_PATH, not
 * libtool's wrapper script; else respol in PATH).  The configuration is the one respol finds ($RESPOL_CONFIG, else
 * the installed or the build tree's): the shipped shell plugins run.
 */
#define BENCH_NAME "bench-run"
#include "bench.h"

#include <fcntl.h>
#include <getopt.h>
#include <spawn.h>
#include <stdbool.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static double wall (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Run argv once with stdout and stderr to /dev/null; seconds taken. */
static double run_once (char **argv)
{
    posix_spawn_file_actions_t fa;
    double t0 = wall ();
    pid_t pid;
    int status, err;

    posix_spawn_file_actions_init (&fa);
    posix_spawn_file_actions_addopen (&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen (&fa, 2, "/dev/null", O_WRONLY, 0);
    if ((err = posix_spawnp (&pid, argv[0], &fa, NULL, argv, environ)) != 0)
        die ("%s: %s", argv[0], strerror (err));
    posix_spawn_file_actions_destroy (&fa);
    if (waitpid (pid, &status, 0) < 0)
        die ("waitpid: %s", strerror (errno));
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0) {
        fprintf (stderr, BENCH_NAME ": this command failed:");
        for (size_t i = 0; argv[i]; i++)
            fprintf (stderr, " %s", argv[i]);
        fprintf (stderr, "\n");
        exit (1);
    }
    return wall () - t0;
}

static int cmp (const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void row (const char *what, char **argv, int runs)
{
    double *t = calloc ((size_t)runs, sizeof (double));

    if (!t)
        die ("out of memory");
    run_once (argv); /* warm-up */
    for (int i = 0; i < runs; i++)
        t[i] = run_once (argv);
    qsort (t, (size_t)runs, sizeof (double), cmp);
    printf ("| %-30s | %8.2f | %8.2f | %8.2f |\n", what, t[0] * 1e3,
            t[runs / 2] * 1e3, t[runs - 1] * 1e3);
    free (t);
}

/* The number of cores of this machine, from respol itself. */
static int ncores (const char *respol)
{
    char cmd[4096];
    FILE *p;
    int n = 0;

    snprintf (cmd, sizeof (cmd),
              "'%s' R encode --local | '%s' R decode --count=core", respol,
              respol);
    if (!(p = popen (cmd, "r")) || fscanf (p, "%d", &n) != 1 || n < 1)
        die ("cannot count this machine's cores with %s", respol);
    pclose (p);
    return n;
}

static const char *default_respol (const char *argv0)
{
    static char path[4096];
    const char *slash = strrchr (argv0, '/');

    if (slash) {
        char libs[4096];
        /* The program itself, not libtool's wrapper script (a shell that
         * sets up the library path costs more than respol run does). */
        snprintf (libs, sizeof (libs), "%.*s/../core/.libs",
                  (int)(slash - argv0), argv0);
        snprintf (path, sizeof (path), "%s/respol", libs);
        if (access (path, X_OK) == 0) {
            const char *old = getenv ("LD_LIBRARY_PATH");
            char *v;
            if (asprintf (&v, "%s%s%s", libs, old ? ":" : "", old ? old : "")
                    < 0
                || setenv ("LD_LIBRARY_PATH", v, 1) < 0)
                die ("out of memory");
            free (v);
            return path;
        }
        snprintf (path, sizeof (path), "%.*s/../core/respol",
                  (int)(slash - argv0), argv0);
        if (access (path, X_OK) == 0)
            return path;
    }
    return "respol";
}

int main (int argc, char **argv)
{
    static const struct option opts[] = {
        { "quick", no_argument, NULL, 'q' },
        { "respol", required_argument, NULL, 'r' },
        { "runs", required_argument, NULL, 'n' },
        { NULL, 0, NULL, 0 },
    };
    const char *respol = default_respol (argv[0]);
    int runs = 21, c, cores;
    char ntasks[32];

    while ((c = getopt_long (argc, argv, "", opts, NULL)) != -1) {
        if (c == 'q')
            runs = 3;
        else if (c == 'r')
            respol = optarg;
        else if (c == 'n' && atoi (optarg) > 0)
            runs = atoi (optarg);
        else {
            fprintf (stderr, "Usage: bench-run [--quick] [--respol=PATH] "
                             "[--runs=N]\n");
            return 2;
        }
    }
    cores = ncores (respol);
    snprintf (ntasks, sizeof (ntasks), "-n%d", cores);
    printf ("respol run against the command alone: wall ms over %d runs, "
            "%d cores\n\n",
            runs, cores);
    printf ("| %-30s | %8s | %8s | %8s |\n", "command", "min", "median",
            "max");
    printf ("|%s|%s|%s|%s|\n", "--------------------------------", "----------",
            "----------", "----------");
    {
        char *a[] = { "true", NULL };
        char *b[] = { (char *)respol, "run", "-n1", "true", NULL };
        char *d[] = { (char *)respol, "run", ntasks, "true", NULL };
        char *l[] = { (char *)respol, "run", "-n1", "-l", "true", NULL };
        char *r[] = { (char *)respol, "run", "--dry-run", "-n1", "true", NULL };
        char label[64];
        row ("true", a, runs);
        row ("respol run -n1 true", b, runs);
        snprintf (label, sizeof (label), "respol run -n%d true", cores);
        row (label, d, runs);
        row ("respol run -n1 -l true", l, runs);
        row ("respol run --dry-run -n1 true", r, runs);
    }
    return 0;
}
