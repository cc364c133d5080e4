/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target for the jobspec reader (core/jobspec.c), YAML and JSON.
 *
 * The input is read in both profiles (the format follows the first byte,
 * as rp_doc_load does).  Invariants:
 *   - the result is NULL exactly when an error was reported, and every
 *     message is one non-empty line;
 *   - a V1 jobspec is also a canonical one;
 *   - a valid jobspec's tree, dumped as YAML and read again, or handed to
 *     rp_jobspec_from_json, is valid with the same derived facts;
 *   - walking the model (every vertex and task accessor) is safe, and the
 *     task counts add up to the facts' ntasks (saturating).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/jobspec.h>

static void check_messages (const struct rp_diags *d, bool valid)
{
    if (valid != (rp_diags_errors (d) == 0))
        abort ();
    for (size_t i = 0; i < rp_diags_count (d); i++) {
        const char *s = rp_diags_text (d, i);
        if (!s || !*s || strchr (s, '\n'))
            abort ();
    }
}

static void walk_resources (const struct rp_jobspec_resource *r, int depth)
{
    for (; r; r = rp_jobspec_resource_next (r)) {
        const struct rp_range *count = rp_jobspec_resource_count (r);
        if (depth > RP_JOBSPEC_MAX_RESOURCE_DEPTH || !count
            || !rp_jobspec_resource_type (r)
            || !rp_jobspec_resource_count_contains (r, count->min))
            abort ();
        (void)rp_jobspec_resource_exclusive (r);
        (void)rp_jobspec_resource_total (r);
        (void)rp_jobspec_slot_memory (r);
        walk_resources (rp_jobspec_resource_with_first (r), depth + 1);
    }
}

static uint64_t sat_add (uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static void walk_tasks (const struct rp_jobspec *js)
{
    uint64_t ntasks = 0;

    for (const struct rp_jobspec_task *t = rp_jobspec_task_first (js); t;
         t = rp_jobspec_task_next (t)) {
        size_t argc;
        const char *const *argv = rp_jobspec_task_argv (t, &argc);
        if (!argv || argc == 0 || argv[argc] != NULL
            || !rp_jobspec_task_slot_resource (t))
            abort ();
        ntasks = sat_add (ntasks, rp_jobspec_task_ntasks (t));
    }
    if (ntasks != rp_jobspec_facts (js)->ntasks)
        abort ();
}

static bool same_facts (const struct rp_jobspec_facts *a,
                        const struct rp_jobspec_facts *b)
{
    return a->nnodes == b->nnodes && a->nslots == b->nslots
           && a->ntasks == b->ntasks && a->cores_per_slot == b->cores_per_slot
           && a->gpus_per_slot == b->gpus_per_slot
           && a->memory_per_slot == b->memory_per_slot
           && a->exclusive == b->exclusive && a->exact == b->exact
           && a->uniform == b->uniform && a->duration == b->duration;
}

static void check_round_trip (const struct rp_jobspec *js,
                              enum rp_jobspec_profile profile)
{
    char *yaml = rp_doc_dump_yaml (rp_jobspec_json (js));
    struct rp_jobspec *again;

    if (!yaml)
        abort ();
    again = rp_jobspec_load (yaml, strlen (yaml), "dump", profile, NULL);
    if (!again || !same_facts (rp_jobspec_facts (js), rp_jobspec_facts (again)))
        abort ();
    rp_jobspec_destroy (again);
    free (yaml);
    again = rp_jobspec_from_json (rp_jobspec_json (js), "tree", profile, NULL);
    if (!again || !same_facts (rp_jobspec_facts (js), rp_jobspec_facts (again)))
        abort ();
    rp_jobspec_destroy (again);
}

static bool run (const uint8_t *data, size_t size,
                 enum rp_jobspec_profile profile)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js;

    if (!d)
        abort ();
    js = rp_jobspec_load ((const char *)data, size, "fuzz", profile, d);
    check_messages (d, js != NULL);
    if (js) {
        walk_resources (rp_jobspec_resource_first (js), 1);
        walk_tasks (js);
        check_round_trip (js, profile);
    }
    rp_jobspec_destroy (js);
    rp_diags_destroy (d);
    return js != NULL;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    bool v1 = run (data, size, RP_JOBSPEC_V1);
    bool canonical = run (data, size, RP_JOBSPEC_CANONICAL);

    if (v1 && !canonical)
        abort ();
    return 0;
}
