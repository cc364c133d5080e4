/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of the matcher in time (api/respol/match.h "time", core/
 * match_time.c): allocate at now with reservations in view (backfill),
 * allocate-orelse-reserve at the earliest time, cancellation, jobs that
 * end early and late (reservations pushed), shared and exclusive holds
 * of one vertex at different times, and every error with its message.
 * rp_matcher_check (which sweeps every vertex's holds over time) runs
 * after every step.  The randomized comparison with per-unit timelines
 * is match_time_random.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/graph.h"
#include "respol/jobspec.h"
#include "respol/match.h"
#include "respol/rset.h"
#include "core/test/slots.h"
#include "t/tap/tap.h"

static struct rp_matcher *matcher (const char *spec)
{
    rp_error_t e;
    struct rp_graph *g = rp_graph_generate (spec, &e);
    struct rp_matcher *m;

    if (!g || !(m = rp_matcher_create (g, &e)))
        BAIL_OUT ("%s: %s", spec, e.text);
    return m;
}

static void check (struct rp_matcher *m, const char *what)
{
    rp_error_t e;
    ok (rp_matcher_check (m, &e) == 0, "%s: rp_matcher_check", what);
    if (rp_matcher_check (m, &e) < 0)
        diag ("%s", e.text);
}

/* allocate-orelse-reserve js: its start (-1 on failure, error in e) */
static double reserve (struct rp_matcher *m, uint64_t id, const char *what,
                       int count, int duration, double now, rp_error_t *e)
{
    struct rp_jobspec *js = js_slots (what, count, duration);
    double at = -2;
    struct rp_rset *R;

    R = rp_matcher_allocate_orelse_reserve (m, id, js, now, &at, e);
    rp_jobspec_destroy (js);
    if (!R)
        return -1;
    if (rp_rset_starttime (R) != at)
        diag ("R starts at %g, not %g", rp_rset_starttime (R), at);
    rp_rset_destroy (R);
    return at;
}

static int allocate (struct rp_matcher *m, uint64_t id, const char *what,
                     int count, int duration, double now, rp_error_t *e)
{
    struct rp_jobspec *js = js_slots (what, count, duration);
    struct rp_rset *R = rp_matcher_allocate (m, id, js, now, e);

    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
    return R ? 0 : -1;
}

static double start_of (struct rp_matcher *m, uint64_t id, bool *reserved)
{
    double s = -1;
    if (!rp_matcher_job_time (m, id, &s, NULL, reserved))
        return -1;
    return s;
}

/* With no reservation, allocate-orelse-reserve is allocate: same R. */
static void test_same_as_allocate (void)
{
    struct rp_matcher *a = matcher ("nodes=4,cores=4");
    struct rp_matcher *b = matcher ("nodes=4,cores=4");
    struct rp_jobspec *js = js_slots ("core", 3, 100);
    rp_error_t e;
    double at = -1;
    struct rp_rset *Ra = rp_matcher_allocate (a, 1, js, 5, &e);
    struct rp_rset *Rb =
        rp_matcher_allocate_orelse_reserve (b, 1, js, 5, &at, &e);
    char *sa = Ra ? rp_rset_encode (Ra, 0) : NULL;
    char *sb = Rb ? rp_rset_encode (Rb, 0) : NULL;

    ok (sa && sb && strcmp (sa, sb) == 0 && at == 5,
        "no reservation: allocate-orelse-reserve gives allocate's R at now");
    free (sa);
    free (sb);
    rp_rset_destroy (Ra);
    rp_rset_destroy (Rb);
    rp_jobspec_destroy (js);
    rp_matcher_destroy (a);
    rp_matcher_destroy (b);
}

/* The textbook backfill: A holds 2 of 4 nodes to 100, B (4 nodes) is
 * reserved at 100; C (2 nodes, 50 s) backfills now, D (2 nodes, 200 s)
 * would delay B: reserved after it. */
static void test_backfill (void)
{
    struct rp_matcher *m = matcher ("nodes=4,cores=4");
    rp_error_t e;
    bool r = false;

    ok (reserve (m, 1, "node", 2, 100, 0, &e) == 0, "A: allocated at 0");
    ok (reserve (m, 2, "node", 4, 50, 0, &e) == 100,
        "B (4 nodes): reserved at 100, when A ends");
    ok (start_of (m, 2, &r) == 100 && r, "B: a reservation starting at 100");
    check (m, "B reserved");
    ok (allocate (m, 3, "node", 2, 50, 0, &e) == 0,
        "C (2 nodes, 50 s): allocated now, before B");
    errno = 0;
    ok (allocate (m, 4, "node", 2, 200, 0, &e) < 0 && errno == EBUSY,
        "D (2 nodes, 200 s): not now, it would delay B");
    ok (reserve (m, 4, "node", 2, 200, 0, &e) == 150,
        "D: reserved at 150, when B ends");
    check (m, "C and D");
    ok (reserve (m, 5, "core", 1, 10, 0, &e) == 50,
        "E (one core, 10 s): at 50, when C ends, before B");
    check (m, "E");
    /* cancel B: D's reservation stays */
    ok (rp_matcher_free (m, 2, &e) == 0, "B: cancelled");
    ok (start_of (m, 2, NULL) < 0 && errno == ENOENT, "B: gone");
    check (m, "B cancelled");
    ok (reserve (m, 6, "node", 4, 10, 0, &e) == 100,
        "F (4 nodes, 10 s): at 100, in B's place, before D");
    ok (reserve (m, 7, "node", 4, 51, 0, &e) == 350,
        "G (4 nodes, 51 s): at 350, after D");
    check (m, "F");
    rp_matcher_destroy (m);
}

/* A job that ends early frees the rest of its span; a job that runs late
 * keeps its resources and pushes the reservations in its way. */
static void test_early_late (void)
{
    struct rp_matcher *m = matcher ("nodes=2,cores=2");
    rp_error_t e;
    double end = 0;

    ok (reserve (m, 1, "node", 1, 100, 0, &e) == 0, "A: node, to 100");
    ok (reserve (m, 2, "node", 1, 50, 0, &e) == 0, "B: node, to 50");
    ok (reserve (m, 3, "node", 2, 10, 0, &e) == 100, "C: 2 nodes at 100");
    ok (rp_matcher_set_time (m, 20, &e) == 0 && rp_matcher_time (m) == 20,
        "time is 20");
    ok (rp_matcher_free (m, 1, &e) == 0, "A ends early at 20");
    ok (reserve (m, 4, "node", 1, 80, 20, &e) == 20,
        "D (node, 80 s): now, on A's node, up to C");
    ok (rp_matcher_free (m, 4, &e) == 0, "D cancelled");
    ok (reserve (m, 5, "node", 1, 81, 20, &e) == 110,
        "E (node, 81 s): it would delay C: after C");
    check (m, "E");
    ok (rp_matcher_run_late (m, 2, 105, &e) == 0, "B runs late, to 105");
    ok (rp_matcher_job_time (m, 2, NULL, &end, NULL) && end == 105,
        "B's expiration is 105");
    ok (start_of (m, 3, NULL) == 105, "C pushed to 105");
    ok (start_of (m, 5, NULL) == 115, "E pushed after C, to 115");
    check (m, "B late");
    ok (rp_matcher_set_time (m, 106, &e) == 0,
        "time is 106: B is past its end, still running");
    ok (start_of (m, 3, NULL) == 107, "C pushed to 107");
    ok (start_of (m, 5, NULL) == 117, "E pushed to 117");
    check (m, "B later");
    ok (rp_matcher_free (m, 2, &e) == 0, "B ends at 106");
    ok (start_of (m, 3, NULL) == 107,
        "C stays at 107 (reservations are rebuilt by the next pass)");
    check (m, "B ended");
    rp_matcher_destroy (m);
}

/* A node shared by core jobs at one time and taken whole at another. */
static void test_shared_and_whole (void)
{
    struct rp_matcher *m = matcher ("nodes=1,cores=4");
    rp_error_t e;

    ok (reserve (m, 1, "core", 2, 100, 0, &e) == 0, "A: 2 cores to 100");
    ok (reserve (m, 2, "node", 1, 100, 0, &e) == 100,
        "B: the node whole, at 100");
    ok (reserve (m, 3, "core", 2, 100, 0, &e) == 0,
        "C: the 2 other cores now (ends with A)");
    ok (reserve (m, 4, "core", 1, 101, 0, &e) == 200,
        "D: one core for 101 s would overlap B: after it");
    check (m, "shared then whole");
    rp_matcher_destroy (m);
}

/* RFC 27 partial release and hello in time: the spans follow. */
static void test_release_hello (void)
{
    struct rp_matcher *m = matcher ("nodes=2,cores=2");
    struct rp_idset *one = rp_idset_decode ("1", NULL);
    const char *Rtext =
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\","
        "\"children\":{\"core\":\"0-1\"}}],\"nodelist\":[\"node0\"],"
        "\"starttime\":0,"
        "\"expiration\":300}}";
    rp_error_t e = { { 0 } };
    struct rp_rset *R = rp_rset_decode (Rtext, &e);

    ok (reserve (m, 1, "node", 2, 100, 0, &e) == 0, "A: 2 nodes to 100");
    ok (reserve (m, 2, "node", 1, 50, 0, &e) == 100, "B: a node at 100");
    ok (rp_matcher_release (m, 1, one, &e) == 0, "A releases rank 1");
    check (m, "release");
    ok (reserve (m, 3, "node", 1, 100, 0, &e) == 0,
        "C: a node now, on the rank A released");
    ok (rp_matcher_free (m, 1, &e) == 0 && rp_matcher_free (m, 3, &e) == 0,
        "A and C end");
    ok (R && rp_matcher_hello (m, 4, R, &e) == 0,
        "hello: D holds node0 to 300");
    if (!R || e.text[0])
        diag ("%s", e.text);
    ok (start_of (m, 2, NULL) == 300,
        "B (on node0, as A was) is pushed after D, to 300");
    check (m, "hello");
    ok (reserve (m, 5, "node", 2, 10, 0, &e) == 350,
        "E (2 nodes): after D and B, at 350");
    check (m, "after hello");
    rp_rset_destroy (R);
    rp_idset_destroy (one);
    rp_matcher_destroy (m);
}

/* A now before the matcher's time: the job is late at once. */
static void test_earlier_now (void)
{
    struct rp_matcher *m = matcher ("nodes=1,cores=2");
    rp_error_t e;

    ok (reserve (m, 1, "core", 1, 100, 10, &e) == 10, "A: a core at 10");
    ok (reserve (m, 2, "core", 2, 10, 10, &e) == 110, "B: 2 cores at 110");
    ok (allocate (m, 3, "core", 1, 5, 0, &e) == 0,
        "C: a core at 0 for 5 s while the time is 10: allocated");
    check (m, "C is late at once");
    rp_matcher_destroy (m);
}

static int fits (struct rp_matcher *m, const char *what, int count,
                 int duration, double now)
{
    struct rp_jobspec *js = js_slots (what, count, duration);
    rp_error_t e;
    int rc = rp_matcher_fits (m, js, now, &e);

    rp_jobspec_destroy (js);
    return rc;
}

/* Whether a job fits now, allocating nothing: allocate's answer. */
static void test_fits (void)
{
    struct rp_matcher *m = matcher ("nodes=4,cores=4");
    rp_error_t e;

    ok (fits (m, "node", 4, 100, 0) == 1, "4 nodes on an idle cluster: fit");
    ok (fits (m, "node", 5, 100, 0) == 0, "5 nodes of 4: do not fit");
    ok (reserve (m, 1, "node", 2, 100, 0, &e) == 0, "A: 2 nodes to 100");
    ok (fits (m, "node", 2, 0, 0) == 1 && fits (m, "node", 3, 0, 0) == 0,
        "no reservation: 2 nodes fit, 3 do not");
    ok (reserve (m, 2, "node", 4, 50, 0, &e) == 100, "B: reserved at 100");
    ok (fits (m, "node", 2, 50, 0) == 1, "C (2 nodes, 50 s): fits before B");
    ok (fits (m, "node", 2, 200, 0) == 0, "D (2 nodes, 200 s): would delay B");
    ok (fits (m, "core", 1, 0, 0) == 0, "a core without end: would delay B");
    ok (fits (m, "node", 3, 10, 0) == 0, "3 nodes: too few free now");
    ok (rp_matcher_njobs (m) == 2, "nothing allocated");
    check (m, "fits");
    ok (rp_matcher_free (m, 2, &e) == 0, "B: cancelled");
    ok (fits (m, "node", 4, 10, 150) == 0,
        "at 150, A past its end keeps its nodes: 4 do not fit");
    ok (fits (m, "node", 2, 10, 150) == 1, "at 150, 2 nodes fit");
    check (m, "A late");
    errno = 0;
    ok (rp_matcher_fits (m, NULL, 0, &e) < 0 && errno == EINVAL,
        "no jobspec: EINVAL");
    rp_matcher_destroy (m);
}

/* allocate-orelse-reserve without R: the same starts, records and R as
 * with it, step by step on two matchers, errors included. */
static void test_reserve_held (void)
{
    static const struct {
        const char *what;
        int count, duration;
        double now, at; /* -1: EBUSY, -2: ENODEV */
    } step[] = {
        { "node", 2, 100, 0, 0 },  { "node", 4, 50, 0, 100 },
        { "node", 2, 50, 0, 0 },   { "node", 2, 200, 0, 150 },
        { "core", 1, 10, 0, 50 },  { "node", 5, 10, 0, -2 },
        { "node", 2, 0, 10, 150 }, { "node", 3, 10, 10, -1 },
    };
    struct rp_matcher *a = matcher ("nodes=4,cores=4");
    struct rp_matcher *b = matcher ("nodes=4,cores=4");
    bool same = true;
    rp_error_t e;

    for (size_t i = 0; i < sizeof (step) / sizeof (step[0]); i++) {
        struct rp_jobspec *js =
            js_slots (step[i].what, step[i].count, step[i].duration);
        double ta = -3, tb = -3;
        struct rp_rset *R = rp_matcher_allocate_orelse_reserve (
            a, i + 1, js, step[i].now, &ta, &e);
        int ea = errno, rc;
        const struct rp_rset *Rb;
        char *sa, *sb;

        rc = rp_matcher_allocate_orelse_reserve_held (b, i + 1, js, step[i].now,
                                                      &tb, &e);
        if (step[i].at < 0)
            ok (!R && rc < 0 && ea == errno
                    && errno == (step[i].at == -1 ? EBUSY : ENODEV),
                "step %zu: %s with R and held", i,
                step[i].at == -1 ? "EBUSY" : "ENODEV");
        else
            ok (R && rc == 0 && ta == step[i].at && tb == ta,
                "step %zu: at %g with R and held", i, step[i].at);
        Rb = R ? rp_matcher_job_rset (b, i + 1) : NULL;
        sa = R ? rp_rset_encode (R, 0) : NULL;
        sb = Rb ? rp_rset_encode (Rb, 0) : NULL;
        same = same && (!R || (sa && sb && !strcmp (sa, sb)));
        free (sa);
        free (sb);
        rp_rset_destroy (R);
        rp_jobspec_destroy (js);
    }
    ok (same, "every R the same");
    ok (rp_matcher_allocate_orelse_reserve_held (b, 1, NULL, 20, NULL, &e) < 0
            && errno == EINVAL,
        "held, no jobspec: EINVAL");
    check (b, "held");
    rp_matcher_destroy (a);
    rp_matcher_destroy (b);
}

/* A job the bound puts later than now that could never fit: ENODEV with
 * the reason, not a search of every later window. */
static void test_never_later (void)
{
    static const char y[] =
        "version: 1\nresources:\n  - type: slot\n    label: s\n"
        "    count: 1\n    with:\n      - type: core\n        count: 3\n"
        "tasks:\n  - command: [app]\n    slot: s\n"
        "    count: {per_slot: 1}\n"
        "attributes:\n  system:\n    duration: 10\n";
    struct rp_matcher *m = matcher ("nodes=2,cores=2");
    struct rp_jobspec *js =
        rp_jobspec_load (y, strlen (y), "t.yaml", RP_JOBSPEC_CANONICAL, NULL);
    rp_error_t e;
    double at;

    if (!js)
        BAIL_OUT ("the jobspec of 3 cores does not load");
    ok (reserve (m, 1, "node", 1, 100, 0, &e) == 0, "A: a node to 100");
    ok (reserve (m, 2, "core", 1, 50, 0, &e) == 0, "B: a core to 50");
    errno = 0;
    ok (!rp_matcher_allocate_orelse_reserve (m, 3, js, 0, &at, &e)
            && errno == ENODEV,
        "3 cores on one node of 2, when 3 cores are free at 100 at the "
        "earliest: ENODEV");
    diag ("%s", e.text);
    check (m, "never");
    rp_jobspec_destroy (js);
    rp_matcher_destroy (m);
}

static void test_errors (void)
{
    struct rp_matcher *m = matcher ("nodes=2,cores=2");
    struct rp_idset *ranks = rp_idset_decode ("0", NULL);
    rp_error_t e;

    ok (reserve (m, 1, "node", 1, 0, 10, &e) == 10, "A: a node, no end");
    ok (reserve (m, 2, "node", 1, 50, 10, &e) == 10, "B: a node, to 60");
    errno = 0;
    ok (reserve (m, 3, "node", 2, 10, 10, &e) < 0 && errno == EBUSY
            && strstr (e.text, "; no later time either: what holds it has "
                               "no end"),
        "2 nodes while A never ends: EBUSY, no later time");
    diag ("%s", e.text);
    ok (reserve (m, 3, "node", 1, 10, 10, &e) == 60, "C: a node at 60");
    errno = 0;
    ok (reserve (m, 3, "node", 1, 10, 10, &e) < 0 && errno == EEXIST,
        "C again: EEXIST");
    errno = 0;
    ok (reserve (m, 4, "node", 3, 10, 10, &e) < 0 && errno == ENODEV,
        "3 nodes of 2: ENODEV");
    errno = 0;
    ok (rp_matcher_set_time (m, 5, &e) < 0 && errno == EINVAL
            && strcmp (e.text, "time goes back: 5 is before 10") == 0,
        "time goes back: EINVAL");
    errno = 0;
    ok (rp_matcher_run_late (m, 3, 100, &e) < 0 && errno == EINVAL
            && strcmp (e.text, "job 3 is a reservation, not running") == 0,
        "run_late of a reservation: EINVAL");
    errno = 0;
    ok (rp_matcher_run_late (m, 1, 100, &e) < 0 && errno == EINVAL
            && strcmp (e.text, "job 1 has no end to pass") == 0,
        "run_late of a job without end: EINVAL");
    errno = 0;
    ok (rp_matcher_run_late (m, 2, 60, &e) < 0 && errno == EINVAL
            && strcmp (e.text, "job 2: 60 is not after its end, 60") == 0,
        "run_late to its own end: EINVAL");
    errno = 0;
    ok (rp_matcher_run_late (m, 9, 60, &e) < 0 && errno == ENOENT,
        "run_late of an unknown job: ENOENT");
    errno = 0;
    ok (rp_matcher_release (m, 3, ranks, &e) < 0 && errno == EINVAL
            && strcmp (e.text, "job 3 is a reservation: free it whole") == 0,
        "release of a reservation: EINVAL");
    ok (rp_matcher_run_late (m, 2, 0, &e) == 0,
        "B runs late without end: C cannot be placed, it is cancelled");
    ok (start_of (m, 3, NULL) < 0 && errno == ENOENT, "C: gone");
    check (m, "errors");
    rp_idset_destroy (ranks);
    rp_matcher_destroy (m);
}

int main (void)
{
    plan (NO_PLAN);
    test_same_as_allocate ();
    test_backfill ();
    test_early_late ();
    test_shared_and_whole ();
    test_release_hello ();
    test_earlier_now ();
    test_fits ();
    test_never_later ();
    test_reserve_held ();
    test_errors ();
    done_testing ();
}
