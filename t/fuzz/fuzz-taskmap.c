/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target for RFC 34 task maps: rp_taskmap_decode in its four
 * forms (JSON array, wrapped object, PMI_process_mapping, raw).
 *
 * The input is decoded as a string.  When it decodes, the JSON and wrapped
 * encodings must decode to the same blocks; the PMI and raw encodings to
 * a map with the same tasks on every node (they merge blocks); the task
 * counts must add up, and every task's node must hold it.  A failure must
 * say "taskmap: " with EINVAL, EOVERFLOW, ERANGE (a raw map's idset) or
 * ENOMEM.  Any disagreement
 * calls abort() so libFuzzer keeps the input.
 *
 * Per-node checks walk every node's tasks (each node's idset has up to
 * one range per repeat), so they run on maps of at most MAX_NODES nodes
 * and MAX_WORK nodes times repeats; the PMI form repeats every block, so
 * it is tried on maps of at most MAX_REPEATS blocks counting repeats.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <respol/taskmap.h>

#define MAX_NODES 4096
#define MAX_REPEATS 65536
#define MAX_WORK 262144

static void check (bool cond)
{
    if (!cond)
        abort ();
}

static size_t repeats (const struct rp_taskmap *map)
{
    size_t n = 0;
    unsigned int r;

    for (size_t i = 0; rp_taskmap_block (map, i, NULL, NULL, NULL, &r); i++)
        n += r;
    return n;
}

/* Same tasks on every node, and per-node lookups agree with the totals. */
static void check_nodes (const struct rp_taskmap *a, const struct rp_taskmap *b)
{
    size_t total = 0;

    check (rp_taskmap_nnodes (a) == rp_taskmap_nnodes (b));
    check (rp_taskmap_ntasks (a) == rp_taskmap_ntasks (b));
    for (unsigned int node = 0; node < rp_taskmap_nnodes (a); node++) {
        struct rp_idset *x = rp_taskmap_tasks_of (a, node);
        struct rp_idset *y = rp_taskmap_tasks_of (b, node);
        unsigned int first = rp_idset_first (x), last = rp_idset_max (x);
        check (x && y && rp_idset_equal (x, y));
        check (rp_taskmap_node_ntasks (a, node) == rp_idset_count (x));
        check (first == RP_IDSET_INVALID_ID
               || (rp_taskmap_task_node (a, first) == node
                   && rp_taskmap_task_node (b, last) == node));
        total += rp_idset_count (x);
        rp_idset_destroy (x);
        rp_idset_destroy (y);
    }
    check (total == rp_taskmap_ntasks (a));
}

/* Encode with flags and decode again. */
static struct rp_taskmap *again (const struct rp_taskmap *map, int flags)
{
    char *s = rp_taskmap_encode (map, flags);
    struct rp_taskmap *back;

    check (s != NULL);
    back = rp_taskmap_decode (s, NULL);
    check (back != NULL);
    free (s);
    return back;
}

static void check_same_text (const struct rp_taskmap *a,
                             const struct rp_taskmap *b)
{
    char *x = rp_taskmap_encode (a, 0);
    char *y = rp_taskmap_encode (b, 0);

    check (x && y && !strcmp (x, y));
    free (x);
    free (y);
}

static void check_map (const struct rp_taskmap *map)
{
    struct rp_taskmap *j = again (map, 0);
    struct rp_taskmap *w = again (map, RP_TASKMAP_WRAPPED);
    size_t nnodes = rp_taskmap_nnodes (map), nrepeats = repeats (map);
    bool small = nnodes <= MAX_NODES && nnodes * nrepeats <= MAX_WORK;

    check_same_text (map, j);
    check_same_text (map, w);
    check (rp_taskmap_unknown (map) == (rp_taskmap_nblocks (map) == 0));
    check (rp_taskmap_task_node (map, rp_taskmap_ntasks (map)) == -1);
    if (small) {
        struct rp_taskmap *r = again (map, RP_TASKMAP_RAW);
        check_nodes (map, r);
        rp_taskmap_destroy (r);
    }
    if (small && nrepeats <= MAX_REPEATS) {
        struct rp_taskmap *p = again (map, RP_TASKMAP_PMI);
        check_nodes (map, p);
        rp_taskmap_destroy (p);
    }
    rp_taskmap_destroy (j);
    rp_taskmap_destroy (w);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);
    rp_error_t error;
    struct rp_taskmap *map;

    if (!s)
        return 0;
    memcpy (s, data, size);
    s[size] = '\0';
    if ((map = rp_taskmap_decode (s, &error)))
        check_map (map);
    else
        check ((errno == EINVAL || errno == EOVERFLOW || errno == ERANGE
                || errno == ENOMEM)
               && strncmp (error.text, "taskmap: ", 9) == 0);
    rp_taskmap_destroy (map);
    free (s);
    return 0;
}
