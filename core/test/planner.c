/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of the planner (api/respol/planner.h): tables of spans and
 * the questions asked of them (free at a time, during an interval, the
 * earliest start), jobs that end early and late, cancellation, spans
 * without end, shared points, and every error with its message.  The
 * randomized comparison with a per-second timeline is in
 * planner_random.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "respol/planner.h"
#include "t/tap/tap.h"

#define F RP_PLANNER_FOREVER

static uint64_t add (struct rp_planner *p, int64_t s, int64_t d, uint64_t n)
{
    uint64_t id;
    rp_error_t error;

    if (rp_planner_add (p, s, d, n, &id, &error) < 0)
        BAIL_OUT ("add %" PRId64 "+%" PRId64 " x%" PRIu64 ": %s", s, d, n,
                  error.text);
    return id;
}

/* Pool of 10: A [0,10) x4, B [5,15) x3, C [20,30) x10. */
static struct rp_planner *pool3 (uint64_t *a, uint64_t *b, uint64_t *c)
{
    struct rp_planner *p = rp_planner_create (10, NULL);

    if (!p)
        BAIL_OUT ("cannot create a planner");
    *a = add (p, 0, 10, 4);
    *b = add (p, 5, 10, 3);
    *c = add (p, 20, 10, 10);
    return p;
}

static void test_free (void)
{
    static const struct {
        int64_t t, d;
        uint64_t at, during;
    } rows[] = {
        { 0, 5, 6, 6 },    { 4, 1, 6, 6 },    { 0, 6, 6, 3 },
        { 5, 5, 3, 3 },    { 10, 5, 7, 7 },   { 10, 10, 7, 7 },
        { 15, 5, 10, 10 }, { 15, 6, 10, 0 },  { 19, 1, 10, 10 },
        { 20, 1, 0, 0 },   { 29, 1, 0, 0 },   { 30, 1000, 10, 10 },
        { 0, F, 6, 0 },    { 30, F, 10, 10 }, { 14, 0, 7, 7 },
    };
    uint64_t a, b, c;
    struct rp_planner *p = pool3 (&a, &b, &c);

    cmp_ok (rp_planner_total (p), ==, 10, "total");
    cmp_ok (rp_planner_span_count (p), ==, 3, "3 spans");
    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++) {
        cmp_ok (rp_planner_free_at (p, rows[i].t), ==, rows[i].at,
                "free at %" PRId64, rows[i].t);
        cmp_ok (rp_planner_free_during (p, rows[i].t, rows[i].d), ==,
                rows[i].during, "free during [%" PRId64 ", +%" PRId64 ")",
                rows[i].t, rows[i].d);
        ok (rp_planner_is_free (p, rows[i].t, rows[i].d, rows[i].during)
                && (rows[i].during == 10
                    || !rp_planner_is_free (p, rows[i].t, rows[i].d,
                                            rows[i].during + 1)),
            "is_free agrees at %" PRId64, rows[i].t);
    }
    cmp_ok (rp_planner_free_at (p, -1), ==, 0, "free at -1: 0");
    ok (!rp_planner_is_free (p, 30, 1, 11), "is_free: more than the pool");
    rp_planner_destroy (p);
}

static void test_earliest (void)
{
    static const struct {
        int64_t after, d;
        uint64_t n;
        int64_t at;
    } rows[] = {
        { 0, 5, 6, 0 },   { 0, 5, 7, 10 },   { 0, 6, 7, 10 },
        { 0, 11, 7, 30 }, { 0, 5, 10, 15 },  { 0, 6, 10, 30 },
        { 12, 3, 7, 12 }, { 16, 5, 10, 30 }, { 16, 4, 10, 16 },
        { 0, F, 1, 30 },  { 25, 1, 1, 30 },  { 100, 1, 10, 100 },
        { 0, 1, 0, 0 },
    };
    uint64_t a, b, c;
    struct rp_planner *p = pool3 (&a, &b, &c);
    rp_error_t error;
    int64_t at;

    for (size_t i = 0; i < sizeof (rows) / sizeof (rows[0]); i++) {
        at = -1;
        ok (rp_planner_earliest (p, rows[i].after, rows[i].d, rows[i].n, &at,
                                 &error)
                    == 0
                && at == rows[i].at,
            "earliest after %" PRId64 " for %" PRId64 " s of %" PRIu64
            " units: %" PRId64,
            rows[i].after, rows[i].d, rows[i].n, rows[i].at);
        if (at != rows[i].at)
            diag ("got %" PRId64, at);
    }
    errno = 0;
    ok (rp_planner_earliest (p, 0, 1, 11, &at, &error) < 0 && errno == ENODEV,
        "earliest: more units than the pool has is ENODEV");
    is (error.text, "planner: needs 11 units, the pool has 10", "message");
    rp_planner_destroy (p);
}

static void test_early_late_cancel (void)
{
    uint64_t a, b, c;
    struct rp_planner *p = pool3 (&a, &b, &c);
    rp_error_t error;
    int64_t s, e, at;
    uint64_t n;

    ok (rp_planner_set_end (p, a, 5, &error) == 0, "A ends early, at 5");
    ok (rp_planner_span (p, a, &s, &e, &n) && s == 0 && e == 5 && n == 4,
        "A is [0,5) x4");
    cmp_ok (rp_planner_free_at (p, 5), ==, 7, "what A held from 5 is free");
    ok (rp_planner_earliest (p, 0, 5, 7, &at, &error) == 0 && at == 5,
        "7 units for 5 s: from 5 now");

    errno = 0;
    ok (rp_planner_set_end (p, b, 22, &error) < 0 && errno == EBUSY,
        "B cannot run late into C's full pool");
    is (error.text,
        "planner: needs 3 units from 15 to 22, only 0 are free at 20",
        "message");
    ok (rp_planner_span (p, b, NULL, &e, NULL) && e == 15,
        "B keeps its end after a refused extension");
    ok (rp_planner_set_end (p, b, 20, &error) == 0, "B runs late, to 20");
    cmp_ok (rp_planner_free_during (p, 15, 5), ==, 7, "B holds [15,20)");
    ok (rp_planner_set_end (p, b, 20, &error) == 0, "the same end again");

    ok (rp_planner_remove (p, c, &error) == 0, "C is cancelled");
    cmp_ok (rp_planner_span_count (p), ==, 2, "2 spans");
    ok (!rp_planner_span (p, c, NULL, NULL, NULL) && errno == ENOENT,
        "C is gone");
    cmp_ok (rp_planner_free_during (p, 20, 100), ==, 10, "all free from 20");
    ok (rp_planner_earliest (p, 0, 11, 7, &at, &error) == 0 && at == 5,
        "7 units for 11 s: from 5, when A has ended");
    ok (rp_planner_earliest (p, 0, 11, 8, &at, &error) == 0 && at == 20,
        "8 units for 11 s: from 20, when B has ended");
    ok (rp_planner_set_end (p, b, F, &error) == 0, "B never ends");
    cmp_ok (rp_planner_free_at (p, 1000000), ==, 7, "B holds for ever");
    ok (rp_planner_set_end (p, b, 16, &error) == 0,
        "B without end gets an end again");
    cmp_ok (rp_planner_free_at (p, 16), ==, 10, "and holds nothing after it");
    rp_planner_destroy (p);
}

static void test_forever (void)
{
    struct rp_planner *p = rp_planner_create (10, NULL);
    rp_error_t error;
    int64_t at;

    add (p, 40, F, 8);
    add (p, 0, 10, 2);
    ok (rp_planner_earliest (p, 35, 5, 3, &at, &error) == 0 && at == 35,
        "3 units for 5 s before the span without end");
    ok (rp_planner_earliest (p, 0, 35, 8, &at, &error) == 0 && at == 0,
        "8 units for 35 s beside the short span");
    ok (rp_planner_earliest (p, 0, 30, 9, &at, &error) == 0 && at == 10,
        "9 units for 30 s after the short span");
    errno = 0;
    ok (rp_planner_earliest (p, 38, 5, 3, &at, &error) < 0 && errno == EBUSY,
        "never 3 units for 5 s from 38: EBUSY");
    is (error.text,
        "planner: needs 3 units from 38 on, spans without end leave 2 of 10 "
        "free",
        "message");
    errno = 0;
    ok (rp_planner_earliest (p, 0, F, 3, &at, &error) < 0 && errno == EBUSY,
        "never 3 units for ever");
    ok (rp_planner_earliest (p, 0, F, 2, &at, &error) == 0 && at == 0,
        "2 units for ever from 0");
    errno = 0;
    ok (rp_planner_add (p, 50, 1, 3, &(uint64_t){ 0 }, &error) < 0
            && errno == EBUSY,
        "add inside the span without end: EBUSY");
    is (error.text,
        "planner: needs 3 units from 50 to 51, only 2 are free at 50",
        "message");
    errno = 0;
    ok (rp_planner_add (p, 30, F, 3, &(uint64_t){ 0 }, &error) < 0
            && errno == EBUSY,
        "add without end over one: EBUSY");
    is (error.text, "planner: needs 3 units from 30 on, only 2 are free at 40",
        "message");
    rp_planner_destroy (p);
}

static void test_points (void)
{
    struct rp_planner *p = rp_planner_create (4, NULL);
    uint64_t x, y, z;
    int64_t t;
    char seen[128] = "";
    size_t n = 0;

    x = add (p, 0, 10, 2);
    y = add (p, 10, 10, 4); /* starts where x ends */
    z = add (p, 5, 5, 2);   /* ends where x ends and y starts */
    for (int64_t at = -1; rp_planner_next_change (p, at, &t); at = t)
        n += (size_t)snprintf (seen + n, sizeof (seen) - n, "%s%" PRId64,
                               n ? "," : "", t);
    is (seen, "0,5,10,20", "the points where use changes");
    cmp_ok (rp_planner_free_at (p, 10), ==, 0, "at 10: y holds all 4");
    cmp_ok (rp_planner_free_at (p, 9), ==, 0, "at 9: x and z hold all 4");
    ok (rp_planner_remove (p, x, NULL) == 0, "remove x");
    cmp_ok (rp_planner_free_at (p, 9), ==, 2, "at 9: z holds 2");
    ok (rp_planner_next_change (p, 5, &t) && t == 10,
        "the point at 10 stays while z ends and y starts there");
    ok (rp_planner_remove (p, y, NULL) == 0
            && rp_planner_remove (p, z, NULL) == 0,
        "remove y and z");
    ok (!rp_planner_next_change (p, -1, &t), "no point left");
    cmp_ok (rp_planner_span_count (p), ==, 0, "no span left");
    x = add (p, 3, 1, 1);
    ok (x == y || x == z || x == 1, "a removed span's id is used again");
    rp_planner_destroy (p);
}

static void test_errors (void)
{
    struct rp_planner *p;
    rp_error_t error;
    uint64_t id;
    int64_t at;

    errno = 0;
    ok (!rp_planner_create (0, &error) && errno == EINVAL,
        "create: 0 units is EINVAL");
    is (error.text, "planner: total must be 1..4611686018427387904", "message");
    ok (!rp_planner_create (RP_PLANNER_TOTAL_MAX + 1, NULL),
        "create: more than the most units");
    p = rp_planner_create (RP_PLANNER_TOTAL_MAX, NULL);
    ok (p && rp_planner_add (p, 0, 1, RP_PLANNER_TOTAL_MAX, &id, NULL) == 0,
        "the most units, all held");
    rp_planner_destroy (p);
    rp_planner_destroy (NULL);

    p = rp_planner_create (4, NULL);
    static const struct {
        int64_t s, d;
        uint64_t n;
        const char *msg;
    } bad[] = {
        { 0, 0, 1, "planner: duration must be >= 1" },
        { 0, -5, 1, "planner: duration must be >= 1" },
        { -1, 1, 1, "planner: start must be 0..9223372036854775806" },
        { F, 1, 1, "planner: start must be 0..9223372036854775806" },
        { 0, 1, 0, "planner: amount must be 1..4" },
        { 0, 1, 5, "planner: amount must be 1..4" },
        { 10, F - 10, 1,
          "planner: 10 + 9223372036854775797 is past the largest time" },
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        errno = 0;
        ok (rp_planner_add (p, bad[i].s, bad[i].d, bad[i].n, &id, &error) < 0
                && errno == EINVAL,
            "add %" PRId64 " +%" PRId64 " x%" PRIu64 ": EINVAL", bad[i].s,
            bad[i].d, bad[i].n);
        is (error.text, bad[i].msg, "message");
    }
    cmp_ok (rp_planner_span_count (p), ==, 0, "nothing was added");
    errno = 0;
    ok (rp_planner_earliest (p, -3, 1, 1, &at, &error) < 0 && errno == EINVAL,
        "earliest: a negative time is EINVAL");
    errno = 0;
    ok (rp_planner_remove (p, 99, &error) < 0 && errno == ENOENT,
        "remove: an unknown span is ENOENT");
    is (error.text, "planner: no span 99", "message");
    ok (rp_planner_remove (p, 0, NULL) < 0, "span 0 is never a span");
    id = add (p, 10, 5, 1);
    errno = 0;
    ok (rp_planner_set_end (p, id, 10, &error) < 0 && errno == EINVAL,
        "set_end: an end not after the start is EINVAL");
    is (error.text, "planner: end 10 is not after the span's start 10",
        "message");
    errno = 0;
    ok (rp_planner_set_end (p, 42, 20, &error) < 0 && errno == ENOENT,
        "set_end: an unknown span is ENOENT");
    ok (rp_planner_remove (p, id, NULL) == 0
            && rp_planner_remove (p, id, &error) < 0 && errno == ENOENT,
        "remove twice: ENOENT the second time");
    rp_planner_destroy (p);
}

int main (void)
{
    plan (NO_PLAN);
    test_free ();
    test_earliest ();
    test_early_late_cancel ();
    test_forever ();
    test_points ();
    test_errors ();
    return done_testing ();
}
