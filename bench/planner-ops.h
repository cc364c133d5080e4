/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* bench-planner's view of a planner, so that the same workload can time
 * respol's planner and, built by scripts/compare-planner, Fluxion's
 * (bench/planner-fluxion.cpp).  Every function dies on failure except
 * earliest, which returns -1 when there is no time.
 */
#ifndef RESPOL_BENCH_PLANNER_OPS_H
#define RESPOL_BENCH_PLANNER_OPS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct bench_planner_ops {
    const char *name;
    void *(*create) (uint64_t total);
    void (*destroy) (void *p);
    uint64_t (*add) (void *p, int64_t start, int64_t duration, uint64_t n);
    void (*remove) (void *p, uint64_t span);
    int64_t (*earliest) (void *p, int64_t after, int64_t duration, uint64_t n);
    uint64_t (*free_during) (void *p, int64_t start, int64_t duration);
    /* Move span's end (NULL where the planner cannot). */
    void (*set_end) (void *p, uint64_t span, int64_t end);
};

/* Fluxion's planner (only in a build by scripts/compare-planner). */
const struct bench_planner_ops *bench_fluxion_planner (void);

#ifdef __cplusplus
}
#endif
#endif
