/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture, not a plugin: preloaded (LD_PRELOAD) into respol simulate, it
 * makes the matcher lie to the simulator's invariant checks, so that a
 * test sees what the replay says when the matcher and the simulator's
 * own records disagree, which no trace or policy can cause (the queue
 * host refuses every decision that would, core/queue.c).  The lie,
 * from $RESPOL_TEST_LIE:
 *   njobs      rp_matcher_njobs counts one job more than the matcher
 *              holds;
 *   job-time   rp_matcher_job_time puts a reservation's start one second
 *              later than it is.
 * Anything else: the truth.  Each wraps the library's function (dlsym
 * RTLD_NEXT).
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <respol/match.h>

static bool lie (const char *what)
{
    const char *s = getenv ("RESPOL_TEST_LIE");

    return s && !strcmp (s, what);
}

size_t rp_matcher_njobs (const struct rp_matcher *m)
{
    size_t (*real) (const struct rp_matcher *) =
        (size_t (*) (const struct rp_matcher *))dlsym (RTLD_NEXT,
                                                       "rp_matcher_njobs");

    return real (m) + lie ("njobs");
}

bool rp_matcher_job_time (const struct rp_matcher *m, uint64_t jobid,
                          double *start, double *end, bool *reserved)
{
    bool (*real) (const struct rp_matcher *, uint64_t, double *, double *,
                  bool *) =
        (bool (*) (const struct rp_matcher *, uint64_t, double *, double *,
                   bool *))dlsym (RTLD_NEXT, "rp_matcher_job_time");
    bool r = false, found = real (m, jobid, start, end, &r);

    if (reserved)
        *reserved = r;
    if (found && r && start && lie ("job-time"))
        *start += 1;
    return found;
}
