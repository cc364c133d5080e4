/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Randomized: the planner (core/planner.c) against a brute-force model,
 * one counter of units in use per second of a short horizon.
 *
 * Each round makes a pool of 1-12 units and runs thousands of random
 * operations on both: add a span (ending or not), remove one, move its
 * end earlier or later, and ask every question (free at t, free during
 * [t, t+d), is it free, the earliest start, the next change).  The model
 * answers by looking at every second; a span without end holds to the
 * end of the horizon, which lies past every time the operations use.
 * After every operation: each change succeeded or failed as the model
 * says, each answer is the model's, the spans' starts, ends and amounts
 * are the model's, and the points where use changes are exactly the
 * times at which some span starts or ends.
 *
 * Seed: a fixed default (printed), RESPOL_TEST_SEED overrides.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/planner.h"
#include "t/tap/tap.h"

#define DEFAULT_SEED 20261126u
#define LAST 100 /* spans start and end at most here */
#define H 160    /* the horizon: past every time used */
#define MAXD 40  /* the longest duration asked */
#define MAXSPANS 64
#define F RP_PLANNER_FOREVER

struct mspan {
    bool used;
    uint64_t id;
    int64_t start, end; /* end F: none */
    uint64_t amount;
};

struct model {
    uint64_t total;
    int64_t use[H];
    struct mspan s[MAXSPANS];
};

static unsigned int rnd (unsigned int n)
{
    return n ? (unsigned int)(random () % n) : 0;
}

static int64_t mend (int64_t end)
{
    return end == F ? H : end;
}

static void mapply (struct model *m, const struct mspan *s, int sign)
{
    for (int64_t t = s->start; t < mend (s->end); t++)
        m->use[t] += sign * (int64_t)s->amount;
}

/* The most in use during [start, end) of the model. */
static int64_t mmax (const struct model *m, int64_t start, int64_t end)
{
    int64_t best = 0;

    for (int64_t t = start; t < end && t < H; t++)
        if (m->use[t] > best)
            best = m->use[t];
    return best;
}

static bool mfree (const struct model *m, int64_t start, int64_t end,
                   uint64_t n)
{
    return mmax (m, start, end) + (int64_t)n <= (int64_t)m->total;
}

/* The model's earliest start, or -1 when it has none. */
static int64_t mearliest (const struct model *m, int64_t after, int64_t d,
                          uint64_t n)
{
    for (int64_t t = after; t < H - MAXD; t++)
        if (mfree (m, t, d == F ? H : t + d, n))
            return t;
    return -1;
}

static struct mspan *mfind (struct model *m, uint64_t id)
{
    for (int i = 0; i < MAXSPANS; i++)
        if (m->s[i].used && m->s[i].id == id)
            return &m->s[i];
    return NULL;
}

static struct mspan *mpick (struct model *m)
{
    int n = 0, k;

    for (int i = 0; i < MAXSPANS; i++)
        n += m->s[i].used;
    if (n == 0)
        return NULL;
    k = (int)rnd ((unsigned)n);
    for (int i = 0; i < MAXSPANS; i++)
        if (m->s[i].used && k-- == 0)
            return &m->s[i];
    return NULL;
}

static int failures;

static void check (bool cond, const char *what, unsigned round, int step)
{
    if (!cond && failures++ < 20)
        diag ("round %u step %d: %s", round, step, what);
}

static void op_add (struct rp_planner *p, struct model *m, unsigned r, int k)
{
    struct mspan s = { .used = true };
    int64_t d = rnd (5) == 0 ? F : 1 + rnd (20);
    rp_error_t error;
    bool want;
    int rc, i;

    s.start = rnd (LAST - 20);
    s.end = d == F ? F : s.start + d;
    s.amount = 1 + rnd ((unsigned)m->total);
    for (i = 0; i < MAXSPANS && m->s[i].used; i++)
        ;
    if (i == MAXSPANS)
        return;
    want = mfree (m, s.start, mend (s.end), s.amount);
    rc = rp_planner_add (p, s.start, d, s.amount, &s.id, &error);
    check ((rc == 0) == want, "add succeeds as the model says", r, k);
    check (rc == 0 || errno == EBUSY, "add fails with EBUSY", r, k);
    if (rc == 0 && want) {
        check (!mfind (m, s.id), "a new span has a new id", r, k);
        m->s[i] = s;
        mapply (m, &s, 1);
    }
}

static void op_remove (struct rp_planner *p, struct model *m, unsigned r, int k)
{
    struct mspan *s = mpick (m);

    if (!s)
        return;
    check (rp_planner_remove (p, s->id, NULL) == 0, "remove", r, k);
    mapply (m, s, -1);
    s->used = false;
}

static void op_set_end (struct rp_planner *p, struct model *m, unsigned r,
                        int k)
{
    struct mspan *s = mpick (m), moved;
    bool want;
    int rc;

    if (!s)
        return;
    moved = *s;
    moved.end = rnd (6) == 0 ? F : s->start + 1 + rnd (30);
    if (moved.end != F && moved.end > LAST)
        moved.end = LAST;
    if (moved.end <= moved.start)
        return;
    mapply (m, s, -1);
    want = mfree (m, moved.start, mend (moved.end), moved.amount);
    rc = rp_planner_set_end (p, s->id, moved.end, NULL);
    check ((rc == 0) == want, "set_end succeeds as the model says", r, k);
    if (rc == 0 && want)
        *s = moved;
    mapply (m, s, 1);
}

static void op_questions (struct rp_planner *p, struct model *m, unsigned r,
                          int k)
{
    int64_t t = rnd (LAST + 5), d = rnd (8) == 0 ? F : 1 + rnd (MAXD), at;
    uint64_t n = rnd ((unsigned)m->total + 2), got;
    int64_t want = mearliest (m, t, d, n);
    int rc;

    check (rp_planner_free_at (p, t) == m->total - (uint64_t)m->use[t],
           "free_at", r, k);
    got = rp_planner_free_during (p, t, d);
    check (got == m->total - (uint64_t)mmax (m, t, d == F ? H : t + d),
           "free_during", r, k);
    check (rp_planner_is_free (p, t, d, n)
               == (n <= m->total && mfree (m, t, d == F ? H : t + d, n)),
           "is_free", r, k);
    rc = rp_planner_earliest (p, t, d, n, &at, NULL);
    if (n > m->total)
        check (rc < 0 && errno == ENODEV, "earliest: ENODEV", r, k);
    else if (want < 0)
        check (rc < 0 && errno == EBUSY, "earliest: EBUSY", r, k);
    else
        check (rc == 0 && at == want, "earliest", r, k);
}

/* The spans are the model's, and the points are the times at which some
 * span starts or ends. */
static void check_state (struct rp_planner *p, struct model *m, unsigned r,
                         int k)
{
    bool point[H + 1] = { false };
    size_t n = 0;
    int64_t t;

    for (int i = 0; i < MAXSPANS; i++) {
        const struct mspan *s = &m->s[i];
        int64_t start, end;
        uint64_t amount;
        if (!s->used)
            continue;
        n++;
        point[s->start] = true;
        if (s->end != F)
            point[s->end] = true;
        check (rp_planner_span (p, s->id, &start, &end, &amount)
                   && start == s->start && end == s->end && amount == s->amount,
               "span as the model has it", r, k);
    }
    check (rp_planner_span_count (p) == n, "span count", r, k);
    for (int64_t at = -1; rp_planner_next_change (p, at, &t); at = t) {
        check (t >= 0 && t <= H && point[t], "a point is a span's end", r, k);
        if (t >= 0 && t <= H)
            point[t] = false;
    }
    for (int i = 0; i <= H; i++)
        check (!point[i], "every span's start and end is a point", r, k);
}

static void run_round (unsigned round, int steps)
{
    struct model m = { .total = 1 + rnd (12) };
    struct rp_planner *p = rp_planner_create (m.total, NULL);

    if (!p)
        BAIL_OUT ("cannot create a planner");
    for (int k = 0; k < steps; k++) {
        switch (rnd (10)) {
        case 0:
        case 1:
        case 2:
            op_add (p, &m, round, k);
            break;
        case 3:
            op_remove (p, &m, round, k);
            break;
        case 4:
        case 5:
            op_set_end (p, &m, round, k);
            break;
        default:
            op_questions (p, &m, round, k);
        }
        check_state (p, &m, round, k);
    }
    rp_planner_destroy (p);
}

int main (void)
{
    const char *env = getenv ("RESPOL_TEST_SEED");
    unsigned seed = env ? (unsigned)strtoul (env, NULL, 10) : DEFAULT_SEED;
    int rounds = 40, steps = 1000;

    plan (NO_PLAN);
    diag ("seed %u (RESPOL_TEST_SEED to change)", seed);
    srandom (seed);
    for (int r = 0; r < rounds; r++)
        run_round ((unsigned)r, steps);
    ok (failures == 0,
        "%d rounds of %d random operations agree with the model (%d "
        "disagreements)",
        rounds, steps, failures);
    return done_testing ();
}
