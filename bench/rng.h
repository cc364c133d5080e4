/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Random numbers for randomized tests and traces: xorshift64*, so that a
 * seed means the same sequence on every machine.  Set rng_state (non-zero)
 * before the first call.  A header of static functions: the programs that
 * use it (core/test/match_random.c, bench/match-trace.c) are one file
 * each.
 */
#ifndef RESPOL_BENCH_RNG_H
#define RESPOL_BENCH_RNG_H

#include <stdbool.h>
#include <stdint.h>

static uint64_t rng_state = 1;

static __attribute__ ((unused)) uint64_t rnd (void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C (2685821657736338717);
}

/* Uniform in lo .. hi (inclusive; hi >= lo). */
static __attribute__ ((unused)) int pick (int lo, int hi)
{
    return lo + (int)(rnd () % (uint64_t)(hi - lo + 1));
}

static __attribute__ ((unused)) bool chance (int percent)
{
    return pick (1, 100) <= percent;
}

#endif
