/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Counting the allocations of a call, for the tests that pin how many
 * allocations a common operation costs (a job's R, its record): the test
 * program defines malloc, calloc and realloc over glibc's own entry points,
 * and the library's calls reach them as any call to malloc does.
 *
 * Include it in one test file only, after the system headers.  A build
 * with AddressSanitizer has its own malloc (ALLOCS_COUNTED is 0 there),
 * and valgrind puts its own in place of any: a test asks allocs_counted ()
 * and skips when it is false. */
#ifndef RESPOL_TEST_ALLOCS_H
#define RESPOL_TEST_ALLOCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>

#include "respol/idset.h"

#if defined(__SANITIZE_ADDRESS__)
#define ALLOCS_COUNTED 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ALLOCS_COUNTED 0
#endif
#endif
#ifndef ALLOCS_COUNTED
#define ALLOCS_COUNTED 1
#endif

static size_t allocs_n;

/* Allocations so far (malloc, calloc, and realloc of NULL or to a new
 * block size: every call that may take a new block). */
static inline size_t allocs (void)
{
    return allocs_n;
}

#if ALLOCS_COUNTED
extern void *__libc_malloc (size_t size);
extern void *__libc_calloc (size_t n, size_t size);
extern void *__libc_realloc (void *p, size_t size);

void *malloc (size_t size);
void *calloc (size_t n, size_t size);
void *realloc (void *p, size_t size);

void *malloc (size_t size)
{
    allocs_n++;
    return __libc_malloc (size);
}

void *calloc (size_t n, size_t size)
{
    allocs_n++;
    return __libc_calloc (n, size);
}

void *realloc (void *p, size_t size)
{
    allocs_n++;
    return __libc_realloc (p, size);
}
#endif

/* Whether the library's allocations are counted here: its malloc seen
 * by the counter.  Call it before a count starts: it allocates. */
static inline bool allocs_counted (void)
{
    size_t n = allocs_n;

    rp_idset_destroy (rp_idset_create ());
    return ALLOCS_COUNTED && allocs_n != n;
}

#endif
