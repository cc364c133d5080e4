/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of the shipped shell plugins (plugins/shell/: cpu-affinity,
 * gpu-affinity, mem-affinity, openmp), driven through the library as a
 * host drives them: R from an XML topology of t/data/topologies (whole,
 * or part of a node), a jobspec, a configuration with the shell stack,
 * options, rp_shell_init.
 *
 * Every scenario of every topology is checked for what must always hold
 * (check_binding: every task's PUs and GPUs within the allocation,
 * disjoint where the mode says so, balanced, each GPU near its task's
 * cores, the vendor's variable with the vendor's indices, the memory
 * policy, OpenMP's variables); some also pin the exact binding.  Then
 * the other modes, the site defaults, every bad option's message, the
 * verbose log, and one binding applied to a real process.
 */
#include <errno.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <respol/config.h>
#include <respol/diag.h>
#include <respol/idset.h>
#include <respol/jobspec.h>
#include <respol/rset.h>
#include <respol/shell.h>

#include "core/test/fixtures.h"
#include "t/tap/tap.h"

static char plugdir[PATH_MAX]; /* copies of the shell plugins */
static char cfgpath[PATH_MAX];

static const char stack4[] = "shell:\n"
                             "  - plugin: @/cpu-affinity.so\n"
                             "  - plugin: @/gpu-affinity.so\n"
                             "  - plugin: @/mem-affinity.so\n"
                             "  - plugin: @/openmp.so\n";

static const char *topology (const char *name)
{
    static char path[4][PATH_MAX];
    static int next;
    const char *src = getenv ("RESPOL_SRCDIR");
    char *p = path[next++ % 4];

    snprintf (p, PATH_MAX, "%s/t/data/topologies/%s.xml", src ? src : ".",
              name);
    return p;
}

static void copy_plugins (void)
{
    const char *b = getenv ("RESPOL_BUILDDIR");
    char cmd[3 * PATH_MAX];

    snprintf (plugdir, sizeof (plugdir), "%s/shell", tmpdir);
    snprintf (cmd, sizeof (cmd),
              "mkdir -m 0755 '%s' && cp '%s'/plugins/shell/.libs/*.so '%s'",
              plugdir, b ? b : ".", plugdir);
    if (system (cmd) != 0)
        BAIL_OUT ("%s failed", cmd);
}

/* A configuration from yaml, every '@' replaced by plugdir; NULL with
 * its first message in *msg (static) when it does not load. */
static struct rp_config *config (const char *yaml, const char **msg)
{
    static char first[512];
    struct rp_diags *d = rp_diags_create ();
    FILE *f = fopen (cfgpath, "w");
    struct rp_config *cfg;

    if (!f || !d)
        BAIL_OUT ("cannot write %s", cfgpath);
    for (const char *c = yaml; *c; c++)
        if (*c == '@')
            fputs (plugdir, f);
        else
            fputc (*c, f);
    if (fclose (f) != 0)
        BAIL_OUT ("cannot write %s", cfgpath);
    cfg = rp_config_load (cfgpath, 0, d);
    snprintf (first, sizeof (first), "%s",
              rp_diags_count (d) ? rp_diags_text (d, 0) : "");
    if (msg)
        *msg = first;
    else if (!cfg)
        BAIL_OUT ("%s", first);
    rp_diags_destroy (d);
    return cfg;
}

/* nslots slots of cores cores and gpus GPUs, with the task count count
 * (a YAML flow mapping: "{per_slot: 2}"), and environment env (a YAML
 * flow mapping, or NULL). */
static struct rp_jobspec *job (int nslots, int cores, int gpus,
                               const char *count, const char *env)
{
    char with[128], text[1024];
    struct rp_jobspec *js;

    snprintf (with, sizeof (with), "{type: core, count: %d}", cores);
    if (gpus)
        snprintf (with + strlen (with), sizeof (with) - strlen (with),
                  ", {type: gpu, count: %d}", gpus);
    snprintf (text, sizeof (text),
              "version: 1\n"
              "resources:\n"
              "  - {type: slot, count: %d, label: task, with: [%s]}\n"
              "tasks: [{command: [app], slot: task, count: %s}]\n"
              "attributes: {system: {duration: 0, environment: %s}}\n",
              nslots, with, count, env ? env : "{}");
    if (!(js = rp_jobspec_load (text, strlen (text), "job.yaml",
                                RP_JOBSPEC_CANONICAL, NULL)))
        BAIL_OUT ("bad test jobspec:\n%s", text);
    return js;
}

/* R of a whole topology, or of the cores and GPUs given (idsets). */
static struct rp_rset *R_of (const char *xml, const char *cores,
                             const char *gpus)
{
    rp_error_t e;
    struct rp_rset *whole = rp_rset_from_hwloc (0, NULL, xml, &e);
    struct rp_idset *c = NULL, *g = NULL;
    struct rp_rset *R;

    if (!whole)
        BAIL_OUT ("%s", e.text);
    if (!cores)
        return whole;
    if (!(R = rp_rset_create ()) || !(c = rp_idset_decode (cores, NULL))
        || !(g = rp_idset_decode (gpus, NULL))
        || rp_rset_add_target (R, 0, "part", c, g, &e) < 0)
        BAIL_OUT ("R of part of %s", xml);
    rp_idset_destroy (c);
    rp_idset_destroy (g);
    rp_rset_destroy (whole);
    return R;
}

/* A shell on xml with options opts ("KEY=VALUE|KEY=VALUE", each VALUE
 * a JSON string, or raw JSON after KEY:=). */
static struct rp_shell *shell (const char *xml, const struct rp_rset *R,
                               const struct rp_jobspec *js,
                               const struct rp_config *cfg, const char *opts,
                               rp_error_t *e)
{
    struct rp_shell *sh = rp_shell_create (R, js, 0, e);
    char *copy = opts ? strdup (opts) : NULL, *save = NULL;

    if (!sh)
        BAIL_OUT ("shell: %s", e->text);
    for (char *o = copy ? strtok_r (copy, "|", &save) : NULL; o;
         o = strtok_r (NULL, "|", &save)) {
        char *eq = strchr (o, '=');
        bool raw = eq && eq > o && eq[-1] == ':';
        json_t *v;
        if (!eq)
            BAIL_OUT ("bad test option %s", o);
        eq[raw ? -1 : 0] = '\0';
        v = raw ? json_loads (eq + 1, JSON_DECODE_ANY, NULL)
                : json_string (eq + 1);
        if (!v || rp_shell_set_option (sh, o, v, e) < 0)
            BAIL_OUT ("option %s", o);
    }
    free (copy);
    if ((xml && rp_shell_set_xml (sh, xml, e) < 0)
        || rp_shell_init (sh, cfg, e) < 0) {
        rp_shell_destroy (sh);
        return NULL;
    }
    return sh;
}

static char *text (const struct rp_idset *ids)
{
    static char buf[8][512];
    static int next;
    char *s = ids ? rp_idset_encode (ids, RP_IDSET_RANGES) : NULL;
    char *b = buf[next++ % 8];

    snprintf (b, 512, "%s", s ? s : "(undecided)");
    free (s);
    return b;
}

/* --- what must always hold -------------------------------------------------
 */

/* The cores of the PUs cpus. */
static struct rp_idset *cores_of (const struct rp_shell *sh,
                                  const struct rp_idset *cpus)
{
    const struct rp_idset *cores = rp_shell_cores (sh);
    struct rp_idset *out = rp_idset_create ();

    for (unsigned int c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (cores, c))
        if (rp_idset_intersects (rp_shell_core_cpus (sh, c), cpus))
            rp_idset_add (out, c);
    return out;
}

static struct rp_idset *numas_of (const struct rp_shell *sh,
                                  const struct rp_idset *cores)
{
    struct rp_idset *out = rp_idset_create ();

    for (unsigned int c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (cores, c))
        if (rp_shell_core_numa (sh, c) >= 0)
            rp_idset_add (out, (unsigned int)rp_shell_core_numa (sh, c));
    return out;
}

enum {
    DISJOINT = 1,  /* no two tasks share a PU */
    ONE_NUMA = 2,  /* each task's cores on one NUMA node */
    NEAR = 4,      /* each GPU of a task near its cores */
    NO_GPU_SET = 8 /* GPUs not all given out (a map) */
};

struct expect {
    unsigned int flags;
    int pus;     /* PUs per task, or 0 */
    int gpus;    /* GPUs per task, or 0 */
    int per_gpu; /* tasks per GPU, or 0 */
};

static const char *why; /* the first failure of a check */

static bool failed (const char *fmt, ...)
{
    static char buf[512];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (buf, sizeof (buf), fmt, ap);
    va_end (ap);
    why = buf;
    return false;
}

/* Every task's CPUs: decided, not empty, the job's; balanced. */
static bool check_cpus (const struct rp_shell *sh, const struct expect *x)
{
    size_t lo = SIZE_MAX, hi = 0, n = rp_shell_ntasks (sh);

    for (size_t i = 0; i < n; i++) {
        const struct rp_idset *c = rp_task_cpus (rp_shell_task (sh, i));
        struct rp_idset *cores;
        size_t k;
        if (!c || rp_idset_empty (c))
            return failed ("task %zu: no CPUs", i);
        if (!rp_idset_is_subset (c, rp_shell_cpus (sh)))
            return failed ("task %zu: CPUs %s not the job's", i, text (c));
        if (x->pus && rp_idset_count (c) != (size_t)x->pus)
            return failed ("task %zu: %zu PUs, not %d", i, rp_idset_count (c),
                           x->pus);
        cores = cores_of (sh, c);
        k = rp_idset_count (cores);
        lo = k < lo ? k : lo;
        hi = k > hi ? k : hi;
        if (x->flags & ONE_NUMA) {
            struct rp_idset *numas = numas_of (sh, cores);
            bool one = rp_idset_count (numas) == 1;
            rp_idset_destroy (numas);
            if (!one)
                return failed ("task %zu: cores %s on several NUMA nodes", i,
                               text (cores));
        }
        for (size_t j = 0; (x->flags & DISJOINT) && j < i; j++)
            if (rp_idset_intersects (c, rp_task_cpus (rp_shell_task (sh, j))))
                return failed ("tasks %zu and %zu share PUs", j, i);
        rp_idset_destroy (cores);
    }
    return hi - lo <= 1 ? true
                        : failed ("cores per task from %zu to %zu", lo, hi);
}

/* Is GPU g near cores: among its nearest cores, else in their package. */
static bool near (const struct rp_shell *sh, unsigned int g,
                  const struct rp_idset *cores)
{
    const struct rp_idset *gc = rp_shell_gpu_cores (sh, g);
    int pkg = rp_shell_core_package (sh, rp_idset_first (gc));

    if (rp_idset_intersects (gc, cores))
        return true;
    for (unsigned int c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (cores, c))
        if (rp_shell_core_package (sh, c) == pkg)
            return true;
    return false;
}

/* The vendor's variable holds the vendor's indices of the task's GPUs. */
static bool check_vars (const struct rp_shell *sh, size_t i)
{
    struct rp_task *t = rp_shell_task (sh, i);
    const struct rp_idset *g = rp_task_gpus (t);
    const char *vars[] = { NULL, "CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES",
                           "ZE_AFFINITY_MASK" };
    int vendor = rp_shell_gpu_vendor (sh, rp_idset_first (g));
    struct rp_idset *ix = rp_idset_create ();
    char *want;
    bool good;

    for (unsigned int id = rp_idset_first (g); id != RP_IDSET_INVALID_ID;
         id = rp_idset_next (g, id))
        rp_idset_add (ix, (unsigned int)rp_shell_gpu_index (sh, id));
    want = rp_idset_encode (ix, 0);
    good = vendor > 0 && rp_task_getenv (t, vars[vendor])
           && strcmp (rp_task_getenv (t, vars[vendor]), want) == 0
           && (vendor != RP_GPU_NVIDIA
               || (rp_task_getenv (t, "CUDA_DEVICE_ORDER")
                   && !strcmp (rp_task_getenv (t, "CUDA_DEVICE_ORDER"),
                               "PCI_BUS_ID")));
    if (!good)
        failed ("task %zu: GPUs %s: %s is %s, not %s", i, text (g),
                vendor > 0 ? vars[vendor] : "(unknown vendor)",
                vendor > 0 && rp_task_getenv (t, vars[vendor])
                    ? rp_task_getenv (t, vars[vendor])
                    : "unset",
                want);
    free (want);
    rp_idset_destroy (ix);
    return good;
}

/* Every task's GPUs: decided, not empty, the job's, all given out,
 * balanced; near its cores; the variables. */
static bool check_gpus (const struct rp_shell *sh, const struct expect *x)
{
    size_t n = rp_shell_ntasks (sh), ng = rp_idset_count (rp_shell_gpus (sh));
    size_t *per = calloc (rp_idset_max (rp_shell_gpus (sh)) + 2, sizeof (*per));
    struct rp_idset *all = rp_idset_create ();
    bool good = true;

    for (size_t i = 0; good && i < n; i++) {
        struct rp_task *t = rp_shell_task (sh, i);
        const struct rp_idset *g = rp_task_gpus (t);
        struct rp_idset *cores = cores_of (sh, rp_task_cpus (t));
        if (!g || rp_idset_empty (g))
            good = failed ("task %zu: no GPU", i);
        else if (!rp_idset_is_subset (g, rp_shell_gpus (sh)))
            good = failed ("task %zu: GPUs %s not the job's", i, text (g));
        else if (x->gpus && rp_idset_count (g) != (size_t)x->gpus)
            good = failed ("task %zu: GPUs %s, not %d", i, text (g), x->gpus);
        for (unsigned int id = rp_idset_first (g);
             good && id != RP_IDSET_INVALID_ID; id = rp_idset_next (g, id)) {
            per[id]++;
            if ((x->flags & NEAR) && !near (sh, id, cores))
                good = failed ("task %zu (cores %s): GPU %u is far", i,
                               text (cores), id);
        }
        good = good && check_vars (sh, i);
        rp_idset_add_set (all, g);
        rp_idset_destroy (cores);
    }
    if (good && !(x->flags & NO_GPU_SET) && rp_idset_count (all) != ng)
        good = failed ("GPUs given out: %s of %s", text (all),
                       text (rp_shell_gpus (sh)));
    for (unsigned int id = rp_idset_first (rp_shell_gpus (sh));
         good && x->per_gpu && id != RP_IDSET_INVALID_ID;
         id = rp_idset_next (rp_shell_gpus (sh), id))
        if (per[id] != (size_t)x->per_gpu)
            good =
                failed ("GPU %u: %zu tasks, not %d", id, per[id], x->per_gpu);
    free (per);
    rp_idset_destroy (all);
    return good;
}

/* Memory on the NUMA nodes of the task's cores (none where there is one
 * NUMA node); OpenMP: a thread per core, a place per core, close. */
static bool check_mem_omp (const struct rp_shell *sh)
{
    bool one =
        rp_idset_count (rp_shell_numas (sh)) <= 1
        && hwloc_get_nbobjs_by_type (rp_shell_topology (sh), HWLOC_OBJ_NUMANODE)
               <= 1;

    for (size_t i = 0; i < rp_shell_ntasks (sh); i++) {
        struct rp_task *t = rp_shell_task (sh, i);
        struct rp_idset *cores = cores_of (sh, rp_task_cpus (t));
        struct rp_idset *numas = numas_of (sh, cores);
        char num[16];
        const char *places = rp_task_getenv (t, "OMP_PLACES");
        size_t nplaces = 0;
        bool mem = one ? rp_task_mem_policy (t) == RP_MEM_DEFAULT
                       : rp_task_mem_policy (t) == RP_MEM_BIND
                             && rp_idset_equal (rp_task_mems (t), numas);
        for (const char *c = places; c && *c; c++)
            nplaces += *c == '{';
        snprintf (num, sizeof (num), "%zu", rp_idset_count (cores));
        if (!mem)
            return failed ("task %zu: memory policy %d on %s, cores on %s", i,
                           rp_task_mem_policy (t), text (rp_task_mems (t)),
                           text (numas));
        if (!rp_task_getenv (t, "OMP_NUM_THREADS")
            || strcmp (rp_task_getenv (t, "OMP_NUM_THREADS"), num) != 0
            || nplaces != rp_idset_count (cores)
            || !rp_task_getenv (t, "OMP_PROC_BIND")
            || strcmp (rp_task_getenv (t, "OMP_PROC_BIND"), "close") != 0)
            return failed ("task %zu: OMP_NUM_THREADS=%s OMP_PLACES=%s for "
                           "cores %s",
                           i, rp_task_getenv (t, "OMP_NUM_THREADS"),
                           places ? places : "(unset)", text (cores));
        rp_idset_destroy (cores);
        rp_idset_destroy (numas);
    }
    return true;
}

/* --- binding on every topology ---------------------------------------------
 */

struct scenario {
    const char *topo;
    const char *what;
    const char *cores, *gpus; /* part of the node (idsets), or NULL */
    int nslots, cores_per_slot, gpus_per_slot;
    const char *count;
    const char *opts;
    struct expect x;
    /* Pinned: local task, its CPUs and GPUs, and a variable (NAME=VALUE). */
    int task;
    const char *cpus, *tgpus, *var;
};

static const struct scenario scenarios[] = {
    /* eas-tioga: 64 cores x 2 PUs, 4 NUMA nodes, 8 AMD GPUs (2 per NUMA
     * node, each near the 8 cores of one L3), numbered by ROCm in another
     * order than R (GPU 0 is ROCm's 4). */
    { "eas-tioga",
      "one task per core",
      NULL,
      NULL,
      64,
      1,
      0,
      "{per_slot: 1}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 1, 1, 8 },
      9,
      "9",
      "1",
      "ROCR_VISIBLE_DEVICES=5" },
    { "eas-tioga",
      "one task per GPU",
      NULL,
      NULL,
      8,
      8,
      1,
      "{per_slot: 1}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 8, 1, 1 },
      7,
      "56-63",
      "7",
      "ROCR_VISIBLE_DEVICES=1" },
    { "eas-tioga",
      "one task per GPU, threads",
      NULL,
      NULL,
      8,
      8,
      1,
      "{per_slot: 1}",
      "cpu-affinity=per-task,threads",
      { DISJOINT | ONE_NUMA | NEAR, 16, 1, 1 },
      0,
      "0-7,64-71",
      "0",
      "ROCR_VISIBLE_DEVICES=4" },
    { "eas-tioga",
      "more tasks than GPUs: 16 tasks in one slot",
      NULL,
      NULL,
      1,
      64,
      8,
      "{per_slot: 16}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 4, 1, 2 },
      3,
      "12-15",
      "1",
      "ROCR_VISIBLE_DEVICES=5" },
    { "eas-tioga",
      "more GPUs than tasks: 3 tasks in one slot",
      NULL,
      NULL,
      1,
      64,
      8,
      "{per_slot: 3}",
      NULL,
      { DISJOINT | NEAR, 0, 0, 1 },
      2,
      "43-63",
      "5-7",
      "ROCR_VISIBLE_DEVICES=0,1,7" },
    { "eas-tioga",
      "more GPUs than tasks: 4 tasks, 2 GPUs each",
      NULL,
      NULL,
      1,
      64,
      8,
      "{per_slot: 4}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 16, 2, 1 },
      2,
      "32-47",
      "4-5",
      "ROCR_VISIBLE_DEVICES=6,7" },
    { "eas-tioga",
      "more tasks than cores: 128 tasks, a PU each",
      NULL,
      NULL,
      1,
      64,
      8,
      "{per_slot: 128}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 1, 1, 16 },
      1,
      "64",
      "0",
      "ROCR_VISIBLE_DEVICES=4" },
    { "eas-tioga",
      "part of the node: NUMA nodes 1 and 2, 4 tasks",
      "16-47",
      "2-5",
      1,
      32,
      4,
      "{per_slot: 4}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 8, 1, 1 },
      3,
      "40-47",
      "5",
      "ROCR_VISIBLE_DEVICES=7" },
    { "eas-tioga",
      "6 tasks over 4 NUMA nodes",
      NULL,
      NULL,
      1,
      64,
      8,
      "{per_slot: 6}",
      NULL,
      { DISJOINT | NEAR, 0, 0, 1 },
      2,
      "22-31",
      "3",
      "ROCR_VISIBLE_DEVICES=3" },

    /* coral-lassen: POWER9, 2 sockets of 20 cores x 4 PUs (PUs from 8),
     * 2 NVIDIA V100 per socket. */
    { "coral-lassen",
      "one task per core",
      NULL,
      NULL,
      40,
      1,
      0,
      "{per_slot: 1}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 1, 1, 10 },
      20,
      "96",
      "2",
      "CUDA_VISIBLE_DEVICES=2" },
    { "coral-lassen",
      "one task per GPU",
      NULL,
      NULL,
      4,
      10,
      1,
      "{per_slot: 1}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 10, 1, 1 },
      1,
      "48,52,56,60,64,68,72,76,80,84",
      "1",
      "CUDA_VISIBLE_DEVICES=1" },
    { "coral-lassen",
      "one task per GPU, threads",
      NULL,
      NULL,
      4,
      10,
      1,
      "{per_slot: 1}",
      "cpu-affinity=threads",
      { DISJOINT | ONE_NUMA | NEAR, 40, 1, 1 },
      0,
      "8-47",
      "0",
      NULL },
    { "coral-lassen",
      "more tasks than GPUs: 8 tasks in one slot",
      NULL,
      NULL,
      1,
      40,
      4,
      "{per_slot: 8}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 5, 1, 2 },
      4,
      "96,100,104,108,112",
      "2",
      "CUDA_VISIBLE_DEVICES=2" },
    { "coral-lassen",
      "more GPUs than tasks: 2 tasks in one slot",
      NULL,
      NULL,
      1,
      40,
      4,
      "{per_slot: 2}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 20, 2, 1 },
      1,
      NULL,
      "2-3",
      "CUDA_VISIBLE_DEVICES=2,3" },
    { "coral-lassen",
      "3 tasks, 4 GPUs",
      NULL,
      NULL,
      1,
      40,
      4,
      "{per_slot: 3}",
      NULL,
      { DISJOINT | NEAR, 0, 0, 1 },
      0,
      NULL,
      "0-1",
      NULL },
    { "coral-lassen",
      "part of the node: 10 cores of each socket, 2 GPUs",
      "10-29",
      "1-2",
      1,
      20,
      2,
      "{per_slot: 2}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 10, 1, 1 },
      1,
      NULL,
      "2",
      "CUDA_VISIBLE_DEVICES=2" },

    /* epyc-corona: 48 cores x 2 PUs, 8 NUMA nodes of 6 cores, 4 AMD MI50
     * on NUMA nodes 1, 2, 5 and 7. */
    { "epyc-corona",
      "one task per core",
      NULL,
      NULL,
      48,
      1,
      0,
      "{per_slot: 1}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 1, 1, 12 },
      47,
      "47",
      "3",
      "ROCR_VISIBLE_DEVICES=3" },
    { "epyc-corona",
      "one task per GPU",
      NULL,
      NULL,
      4,
      12,
      1,
      "{per_slot: 1}",
      NULL,
      { DISJOINT | NEAR, 12, 1, 1 },
      2,
      "24-35",
      "2",
      "ROCR_VISIBLE_DEVICES=2" },
    { "epyc-corona",
      "more tasks than GPUs: a task per NUMA node",
      NULL,
      NULL,
      1,
      48,
      4,
      "{per_slot: 8}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 6, 1, 2 },
      3,
      "18-23",
      "1",
      "ROCR_VISIBLE_DEVICES=1" },
    { "epyc-corona",
      "more GPUs than tasks: 2 tasks",
      NULL,
      NULL,
      1,
      48,
      4,
      "{per_slot: 2}",
      NULL,
      { DISJOINT | NEAR, 24, 2, 1 },
      1,
      "24-47",
      "2-3",
      "ROCR_VISIBLE_DEVICES=2,3" },
    { "epyc-corona",
      "part of the node: NUMA nodes 2-5",
      "12-35",
      "1-2",
      1,
      24,
      2,
      "{per_slot: 4}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 6, 1, 2 },
      2,
      "24-29",
      "2",
      "ROCR_VISIBLE_DEVICES=2" },

    /* cts1-quartz-smt1: 2 sockets of 18 cores, SMT off, no GPU. */
    { "cts1-quartz-smt1",
      "one task per core",
      NULL,
      NULL,
      36,
      1,
      0,
      "{per_slot: 1}",
      NULL,
      { DISJOINT | ONE_NUMA, 1, 0, 0 },
      35,
      "35",
      NULL,
      NULL },
    { "cts1-quartz-smt1",
      "one task per socket, threads (SMT off)",
      NULL,
      NULL,
      2,
      18,
      0,
      "{per_slot: 1}",
      "cpu-affinity=per-task,threads",
      { DISJOINT | ONE_NUMA, 18, 0, 0 },
      1,
      "18-35",
      NULL,
      NULL },
    { "cts1-quartz-smt1",
      "part of the node across the sockets",
      "9-26",
      "",
      1,
      18,
      0,
      "{per_slot: 2}",
      NULL,
      { DISJOINT | ONE_NUMA, 9, 0, 0 },
      1,
      "18-26",
      NULL,
      NULL },
    { "cts1-quartz-smt1",
      "5 tasks",
      NULL,
      NULL,
      1,
      36,
      0,
      "{per_slot: 5}",
      NULL,
      { DISJOINT, 0, 0, 0 },
      4,
      "29-35",
      NULL,
      NULL },

    /* h200-vm: 16 cores, one NVIDIA H200 with no locality, 1 NUMA node. */
    { "h200-vm",
      "one task per core",
      NULL,
      NULL,
      16,
      1,
      0,
      "{per_slot: 1}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 1, 1, 16 },
      15,
      "15",
      "0",
      "CUDA_VISIBLE_DEVICES=0" },
    { "h200-vm",
      "one task per GPU",
      NULL,
      NULL,
      1,
      16,
      1,
      "{per_slot: 1}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 16, 1, 1 },
      0,
      "0-15",
      "0",
      "CUDA_DEVICE_ORDER=PCI_BUS_ID" },
    { "h200-vm",
      "more tasks than GPUs: 4 tasks",
      NULL,
      NULL,
      1,
      16,
      1,
      "{per_slot: 4}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 4, 1, 4 },
      3,
      "12-15",
      "0",
      "CUDA_VISIBLE_DEVICES=0" },
    { "h200-vm",
      "part of the node",
      "4-11",
      "0",
      1,
      8,
      1,
      "{per_slot: 2}",
      NULL,
      { DISJOINT | ONE_NUMA | NEAR, 4, 1, 2 },
      1,
      "8-11",
      "0",
      NULL },
};

/* Does task's variable name=value hold? */
static bool has_var (const struct rp_task *t, const char *var)
{
    const char *eq = strchr (var, '=');
    char name[64];

    snprintf (name, sizeof (name), "%.*s", (int)(eq - var), var);
    return rp_task_getenv (t, name)
           && !strcmp (rp_task_getenv (t, name), eq + 1);
}

static void test_scenario (const struct rp_config *cfg,
                           const struct scenario *s)
{
    const char *xml = topology (s->topo);
    struct rp_rset *R = R_of (xml, s->cores, s->gpus);
    struct rp_jobspec *js =
        job (s->nslots, s->cores_per_slot, s->gpus_per_slot, s->count, NULL);
    rp_error_t e;
    struct rp_shell *sh = shell (xml, R, js, cfg, s->opts, &e);
    struct rp_task *t;

    if (!ok (sh != NULL, "%s: %s: the shell starts", s->topo, s->what)) {
        diag ("%s", e.text);
        goto done;
    }
    why = "";
    ok (check_cpus (sh, &s->x),
        "%s: %s: CPUs within the allocation%s, "
        "balanced",
        s->topo, s->what, s->x.flags & DISJOINT ? ", disjoint" : "");
    if (*why)
        diag ("%s", why);
    why = "";
    if (rp_idset_empty (rp_shell_gpus (sh))) {
        ok (rp_task_gpus (rp_shell_task (sh, 0))
                && rp_idset_empty (rp_task_gpus (rp_shell_task (sh, 0))),
            "%s: %s: no GPU here, none given", s->topo, s->what);
    } else if (!ok (check_gpus (sh, &s->x),
                    "%s: %s: GPUs within the allocation, all given out, "
                    "balanced, near, with the vendor's indices",
                    s->topo, s->what))
        diag ("%s", why);
    why = "";
    if (!ok (check_mem_omp (sh), "%s: %s: memory and OpenMP follow the cores",
             s->topo, s->what))
        diag ("%s", why);
    t = rp_shell_task (sh, (size_t)s->task);
    if (s->cpus)
        is (text (rp_task_cpus (t)), s->cpus, "%s: %s: task %d's CPUs", s->topo,
            s->what, s->task);
    if (s->tgpus)
        is (text (rp_task_gpus (t)), s->tgpus, "%s: %s: task %d's GPUs",
            s->topo, s->what, s->task);
    if (s->var)
        ok (has_var (t, s->var), "%s: %s: task %d has %s", s->topo, s->what,
            s->task, s->var);
done:
    rp_shell_destroy (sh);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
}

/* Task counts in one slot of a whole node: every count from 1 to 2
 * more than the cores, then from one less than the PUs to 2 more: what
 * must always hold (no exact binding). */
static bool every_count (const struct rp_config *cfg, const char *xml,
                         const struct rp_rset *R, int cores, int gpus, int k)
{
    char count[32];
    struct rp_jobspec *js;
    struct rp_shell *sh;
    rp_error_t e;
    struct expect x = { 0, 0, 0, 0 };
    bool good;

    snprintf (count, sizeof (count), "{per_slot: %d}", k);
    js = job (1, cores, gpus, count, NULL);
    if (!(sh = shell (xml, R, js, cfg, NULL, &e)))
        good = failed ("%s", e.text);
    else {
        x.flags =
            (size_t)k <= rp_idset_count (rp_shell_cpus (sh)) ? DISJOINT : 0;
        good = check_cpus (sh, &x) && (!gpus || check_gpus (sh, &x))
               && check_mem_omp (sh);
    }
    rp_shell_destroy (sh);
    rp_jobspec_destroy (js);
    return good;
}

static void test_every_count (const struct rp_config *cfg, const char *topo,
                              int cores, int gpus, int pus)
{
    const char *xml = topology (topo);
    struct rp_rset *R = R_of (xml, NULL, NULL);
    bool good = true;
    int k;

    why = "";
    for (k = 1; good && k <= pus + 2;
         k = k == cores + 2 && pus - 1 > k ? pus - 1 : k + 1)
        good = every_count (cfg, xml, R, cores, gpus, k);
    if (!ok (good,
             "%s: 1 to %d tasks in one slot: every binding within the "
             "allocation, balanced, disjoint up to %d tasks, every GPU given "
             "out",
             topo, pus + 2, pus))
        diag ("%d tasks: %s", k - 1, why);
    rp_rset_destroy (R);
}

static void test_scenarios (void)
{
    struct rp_config *cfg = config (stack4, NULL);

    for (size_t i = 0; i < sizeof (scenarios) / sizeof (scenarios[0]); i++)
        test_scenario (cfg, &scenarios[i]);
    test_every_count (cfg, "eas-tioga", 64, 8, 128);
    test_every_count (cfg, "coral-lassen", 40, 4, 160);
    test_every_count (cfg, "epyc-corona", 48, 4, 96);
    test_every_count (cfg, "h200-vm", 16, 1, 16);
    test_every_count (cfg, "cts1-quartz-smt1", 36, 0, 36);
    rp_config_destroy (cfg);
}

/* --- the other modes -------------------------------------------------------
 */

/* A shell on tioga for 4 tasks in one slot (all 64 cores, 8 GPUs), with
 * the full stack and options opts; NULL with *e. */
static struct rp_shell *tioga4 (const struct rp_config *cfg, const char *opts,
                                const char *env, struct rp_rset **R,
                                struct rp_jobspec **js, rp_error_t *e)
{
    const char *xml = topology ("eas-tioga");

    *R = R_of (xml, NULL, NULL);
    *js = job (1, 64, 8, "{per_slot: 4}", env);
    return shell (xml, *R, *js, cfg, opts, e);
}

static void done (struct rp_shell *sh, struct rp_jobspec *js, struct rp_rset *R)
{
    rp_shell_destroy (sh);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
}

static const char *env_of (struct rp_shell *sh, size_t i, const char *name)
{
    const char *v = rp_task_getenv (rp_shell_task (sh, i), name);
    return v ? v : "(unset)";
}

static void test_cpu_modes (const struct rp_config *cfg)
{
    struct rp_rset *R;
    struct rp_jobspec *js;
    rp_error_t e;
    struct rp_shell *sh = tioga4 (cfg, "cpu-affinity=on", NULL, &R, &js, &e);
    struct rp_task *t;

    if (!ok (sh != NULL, "cpu-affinity=on: the shell starts"))
        diag ("%s", e.text);
    t = rp_shell_task (sh, 3);
    is (text (rp_task_cpus (t)), "0-127", "on: every task all the job's PUs");
    is (env_of (sh, 3, "OMP_NUM_THREADS"), "16",
        "on: OpenMP starts a fair part of the cores per task (64 / 4)");
    ok (!rp_task_getenv (t, "OMP_PLACES")
            && !rp_task_getenv (t, "OMP_PROC_BIND"),
        "on: no OMP_PLACES nor OMP_PROC_BIND (the tasks share their PUs)");
    is (text (rp_task_gpus (t)), "6-7",
        "on: GPUs still per task, by the "
        "cores per-task would give");
    done (sh, js, R);

    sh = tioga4 (cfg, "cpu-affinity=off", NULL, &R, &js, &e);
    t = sh ? rp_shell_task (sh, 1) : NULL;
    ok (t && rp_task_cpus (t) == NULL, "off: the task is not bound");
    is (env_of (sh, 1, "OMP_NUM_THREADS"), "16",
        "off: OMP_NUM_THREADS is the task's fair part of its share");
    ok (t && !rp_task_getenv (t, "OMP_PLACES"), "off: no OMP_PLACES");
    ok (t && rp_task_mem_policy (t) == RP_MEM_BIND
            && !strcmp (text (rp_task_mems (t)), "0-3"),
        "off: memory on the NUMA nodes of its share (%s)",
        t ? text (rp_task_mems (t)) : "");
    done (sh, js, R);

    sh = tioga4 (cfg, "cpu-affinity=verbose,map:0-3;0x30", NULL, &R, &js, &e);
    if (!ok (sh != NULL, "map: a list and a taskset mask"))
        diag ("%s", e.text);
    is (text (rp_task_cpus (rp_shell_task (sh, 0))), "0-3", "map: task 0");
    is (text (rp_task_cpus (rp_shell_task (sh, 1))), "4-5",
        "map: task 1 (0x30)");
    is (text (rp_task_cpus (rp_shell_task (sh, 2))), "0-3",
        "map: task 2 reuses the first entry");
    is (env_of (sh, 1, "OMP_PLACES"), "{4},{5}", "map: OpenMP's places follow");
    done (sh, js, R);

    sh = tioga4 (cfg, "cpu-affinity=threads|openmp=threads", NULL, &R, &js, &e);
    t = sh ? rp_shell_task (sh, 0) : NULL;
    is (text (rp_task_cpus (t)), "0-15,64-79",
        "threads: both PUs of each core");
    is (env_of (sh, 0, "OMP_NUM_THREADS"), "32",
        "openmp=threads: a thread per PU");
    like (env_of (sh, 0, "OMP_PLACES"), "{0},{64},{1},{65},{2}",
          "openmp=threads: a place per PU, by core");
    done (sh, js, R);

    sh = tioga4 (cfg, "cpu-affinity=threads", NULL, &R, &js, &e);
    is (env_of (sh, 0, "OMP_NUM_THREADS"), "16", "openmp: a thread per core");
    like (env_of (sh, 0, "OMP_PLACES"), "{0,64},{1,65},{2,66}",
          "openmp: a place per core, with its PUs");
    done (sh, js, R);
}

static void test_gpu_modes (const struct rp_config *cfg)
{
    struct rp_rset *R;
    struct rp_jobspec *js;
    rp_error_t e;
    struct rp_shell *sh = tioga4 (cfg, "gpu-affinity=on", NULL, &R, &js, &e);

    is (text (rp_task_gpus (rp_shell_task (sh, 2))), "0-7",
        "gpu-affinity=on: every task all the job's GPUs");
    is (env_of (sh, 2, "ROCR_VISIBLE_DEVICES"), "0,1,2,3,4,5,6,7",
        "on: ROCm's indices, listed (no ranges)");
    done (sh, js, R);

    sh = tioga4 (cfg, "gpu-affinity=off", NULL, &R, &js, &e);
    ok (sh && rp_task_gpus (rp_shell_task (sh, 2)) == NULL
            && !rp_task_getenv (rp_shell_task (sh, 2), "ROCR_VISIBLE_DEVICES"),
        "off: no decision, no variable");
    done (sh, js, R);

    sh = tioga4 (cfg, "gpu-affinity=map:0;1,2", NULL, &R, &js, &e);
    is (text (rp_task_gpus (rp_shell_task (sh, 1))), "1-2",
        "map: task 1's GPUs by R's ids");
    is (env_of (sh, 1, "ROCR_VISIBLE_DEVICES"), "2,5",
        "map: told to ROCm by its indices");
    is (env_of (sh, 2, "ROCR_VISIBLE_DEVICES"), "4",
        "map: task 2 reuses the first entry (GPU 0 is ROCm's 4)");
    done (sh, js, R);
}

/* A job without GPUs on a machine with some sees none of them. */
static void test_hide (const struct rp_config *cfg)
{
    static const struct {
        const char *topo, *cores, *var, *order;
    } hide[] = {
        { "eas-tioga", "0-63", "ROCR_VISIBLE_DEVICES", NULL },
        { "coral-lassen", "0-39", "CUDA_VISIBLE_DEVICES", "PCI_BUS_ID" },
        { "h200-vm", "0-15", "CUDA_VISIBLE_DEVICES", "PCI_BUS_ID" },
    };

    for (size_t i = 0; i < sizeof (hide) / sizeof (hide[0]); i++) {
        const char *xml = topology (hide[i].topo);
        struct rp_rset *R = R_of (xml, hide[i].cores, "");
        struct rp_jobspec *js = job (2, 1, 0, "{per_slot: 1}", NULL);
        rp_error_t e;
        struct rp_shell *sh = shell (xml, R, js, cfg, NULL, &e);
        struct rp_task *t = sh ? rp_shell_task (sh, 1) : NULL;
        ok (t && rp_task_gpus (t) && rp_idset_empty (rp_task_gpus (t)),
            "%s, no GPU in R: the task gets none", hide[i].topo);
        is (env_of (sh, 1, hide[i].var), "",
            "%s: %s is set empty, which hides the machine's", hide[i].topo,
            hide[i].var);
        if (hide[i].order)
            is (env_of (sh, 1, "CUDA_DEVICE_ORDER"), hide[i].order,
                "%s: with CUDA_DEVICE_ORDER", hide[i].topo);
        done (sh, js, R);
    }
    {
        const char *xml = topology ("cts1-quartz-smt1");
        struct rp_rset *R = R_of (xml, NULL, NULL);
        struct rp_jobspec *js = job (2, 1, 0, "{per_slot: 1}", NULL);
        rp_error_t e;
        struct rp_shell *sh = shell (xml, R, js, cfg, NULL, &e);
        ok (sh
                && !rp_task_getenv (rp_shell_task (sh, 0),
                                    "CUDA_VISIBLE_DEVICES")
                && !rp_task_getenv (rp_shell_task (sh, 0),
                                    "ROCR_VISIBLE_DEVICES"),
            "quartz (no GPU at all): no variable");
        done (sh, js, R);
    }
}

static void test_env_kept (const struct rp_config *cfg)
{
    struct rp_rset *R;
    struct rp_jobspec *js;
    rp_error_t e;
    struct rp_shell *sh =
        tioga4 (cfg, NULL, "{OMP_NUM_THREADS: '3', OMP_PROC_BIND: spread}", &R,
                &js, &e);

    is (env_of (sh, 0, "OMP_NUM_THREADS"), "3",
        "the user's OMP_NUM_THREADS "
        "is kept");
    is (env_of (sh, 0, "OMP_PROC_BIND"), "spread",
        "the user's OMP_PROC_BIND is kept");
    like (env_of (sh, 0, "OMP_PLACES"), "{0},{1},", "OMP_PLACES is still set");
    done (sh, js, R);

    sh = tioga4 (cfg, "openmp=off|mem-affinity=preferred", NULL, &R, &js, &e);
    ok (sh && !rp_task_getenv (rp_shell_task (sh, 0), "OMP_NUM_THREADS"),
        "openmp=off: no variable");
    ok (sh && rp_task_mem_policy (rp_shell_task (sh, 3)) == RP_MEM_PREFERRED
            && !strcmp (text (rp_task_mems (rp_shell_task (sh, 3))), "3"),
        "mem-affinity=preferred: NUMA node 3 first for task 3");
    done (sh, js, R);

    sh = tioga4 (cfg, "mem-affinity=off", NULL, &R, &js, &e);
    ok (sh && rp_task_mem_policy (rp_shell_task (sh, 0)) == RP_MEM_DEFAULT,
        "mem-affinity=off: the system's policy");
    done (sh, js, R);

    {
        const char *xml = topology ("coral-lassen");
        R = R_of (xml, NULL, NULL);
        js = job (4, 10, 1, "{per_slot: 1}",
                  "{CUDA_DEVICE_ORDER: FASTEST_FIRST}");
        sh = shell (xml, R, js, cfg, NULL, &e);
        is (env_of (sh, 0, "CUDA_DEVICE_ORDER"), "FASTEST_FIRST",
            "the user's CUDA_DEVICE_ORDER is kept");
        done (sh, js, R);

        xml = topology ("cts1-quartz-smt1");
        R = R_of (xml, "0-17", "");
        js = job (2, 9, 0, "{per_slot: 1}", NULL);
        sh = shell (xml, R, js, cfg, NULL, &e);
        ok (sh && rp_task_mem_policy (rp_shell_task (sh, 1)) == RP_MEM_BIND
                && !strcmp (text (rp_task_mems (rp_shell_task (sh, 1))), "0"),
            "quartz, one socket's cores: memory bound to its NUMA node "
            "(the machine has two)");
        done (sh, js, R);
    }
}

/* Bare options: 1 and true are the built-in default, 0 and false off. */
static void test_bare (const struct rp_config *cfg)
{
    static const struct {
        const char *opts;
        bool bound;
    } bare[] = {
        { "cpu-affinity:=1", true },
        { "cpu-affinity:=true", true },
        { "cpu-affinity:=0", false },
        { "cpu-affinity:=false", false },
    };

    for (size_t i = 0; i < sizeof (bare) / sizeof (bare[0]); i++) {
        struct rp_rset *R;
        struct rp_jobspec *js;
        rp_error_t e;
        struct rp_shell *sh = tioga4 (cfg, bare[i].opts, NULL, &R, &js, &e);
        const struct rp_idset *c =
            sh ? rp_task_cpus (rp_shell_task (sh, 0)) : NULL;
        ok (sh && (bare[i].bound ? c && !strcmp (text (c), "0-15") : !c),
            "%s: %s", bare[i].opts, bare[i].bound ? "per-task" : "off");
        done (sh, js, R);
    }
}

/* --- site defaults -----------------------------------------------------------
 */

static void test_defaults (void)
{
    const char *msg;
    struct rp_config *cfg =
        config ("shell:\n"
                "  - plugin: @/cpu-affinity.so\n"
                "    config: {default: 'per-task,threads'}\n"
                "  - plugin: @/openmp.so\n"
                "    config: {default: 'off'}\n",
                NULL);
    struct rp_rset *R;
    struct rp_jobspec *js;
    rp_error_t e;
    struct rp_shell *sh = tioga4 (cfg, NULL, NULL, &R, &js, &e);

    is (text (rp_task_cpus (rp_shell_task (sh, 0))), "0-15,64-79",
        "the site's default applies (per-task,threads)");
    ok (sh && !rp_task_getenv (rp_shell_task (sh, 0), "OMP_NUM_THREADS"),
        "the site's default for openmp: off");
    done (sh, js, R);
    sh = tioga4 (cfg, "cpu-affinity=on|openmp=on", NULL, &R, &js, &e);
    is (text (rp_task_cpus (rp_shell_task (sh, 0))), "0-127",
        "the option wins over the default");
    is (env_of (sh, 0, "OMP_NUM_THREADS"), "16", "for openmp too");
    done (sh, js, R);
    sh = tioga4 (cfg, "cpu-affinity=verbose", NULL, &R, &js, &e);
    is (text (rp_task_cpus (rp_shell_task (sh, 0))), "0-15,64-79",
        "an option of flags only keeps the default's mode and flags");
    done (sh, js, R);
    rp_config_destroy (cfg);

    ok (!config ("shell:\n"
                 "  - plugin: @/cpu-affinity.so\n"
                 "    config: {default: per_task}\n",
                 &msg),
        "a bad default is refused when the configuration loads");
    like (msg,
          "init failed: default: unknown mode 'per_task' (per-task, on, "
          "off, map:LIST; flags threads, verbose)",
          "message: %s", msg);
    ok (!config ("shell:\n"
                 "  - plugin: @/mem-affinity.so\n"
                 "    config: {mode: local}\n",
                 &msg),
        "an unknown key is refused");
    like (msg, "unknown key 'mode'", "message: %s", msg);
    ok (!config ("shell:\n"
                 "  - plugin: @/gpu-affinity.so\n"
                 "    config: {default: 'map:0;;1'}\n",
                 &msg),
        "a bad map in the default is refused");
    like (msg, "init failed: default: map: entry 2 is empty", "message: %s",
          msg);
}

/* --- bad options -----------------------------------------------------------
 */

#define CPU_CHOICES "(per-task, on, off, map:LIST; flags threads, verbose)"
#define SP_CPU "shell plugin 'cpu-affinity': shell_init: cpu-affinity: "

static const struct {
    const char *opts;
    const char *error;
} bad[] = {
    { "cpu-affinity=per_task", SP_CPU "unknown mode 'per_task' " CPU_CHOICES },
    { "cpu-affinity=", SP_CPU "empty value " CPU_CHOICES },
    { "cpu-affinity=on,per-task",
      SP_CPU "two modes, 'on' and 'per-task': give one" },
    { "cpu-affinity=on,map:0", SP_CPU "two modes, 'on' and 'map': give one" },
    { "cpu-affinity=per-task,,threads",
      SP_CPU "empty item in 'per-task,,threads'" },
    { "cpu-affinity=per-task,", SP_CPU "empty item in 'per-task,'" },
    { "cpu-affinity=map:", SP_CPU "map: empty list" },
    { "cpu-affinity=map:0-3;;4", SP_CPU "map: entry 2 is empty" },
    { "cpu-affinity=map:0-3;", SP_CPU "map: entry 2 is empty" },
    { "cpu-affinity=map:0-3;x", SP_CPU
      "map: entry 2: idset: \"x\": unexpected character 'x' at offset 0" },
    { "cpu-affinity=map:0xfg", SP_CPU "map: entry 1 '0xfg': not a hexadecimal "
                                      "mask" },
    { "cpu-affinity=map:0x0", SP_CPU "map: entry 1 is empty" },
    { "cpu-affinity:=2",
      SP_CPU "must be a string such as 'per-task' " CPU_CHOICES },
    { "cpu-affinity:={\"a\": 1}",
      SP_CPU "must be a string such as 'per-task' " CPU_CHOICES },
    { "gpu-affinity=threads",
      "shell plugin 'gpu-affinity': shell_init: gpu-affinity: unknown mode "
      "'threads' (per-task, on, off, map:LIST; flags verbose)" },
    { "gpu-affinity=map:0;1-x",
      "shell plugin 'gpu-affinity': shell_init: gpu-affinity: map: entry 2: "
      "idset: \"1-x\": unexpected character 'x' at offset 2" },
    { "mem-affinity=bind",
      "shell plugin 'mem-affinity': shell_init: mem-affinity: unknown mode "
      "'bind' (local, preferred, off; flags verbose)" },
    { "openmp=map:1",
      "shell plugin 'openmp': shell_init: openmp: unknown mode 'map:1' (on, "
      "off; flags threads, verbose)" },
    /* Decisions outside the allocation: the host refuses them. */
    { "cpu-affinity=map:200",
      "shell plugin 'cpu-affinity': task 0: CPUs 200 are not all the job's "
      "on this target (0-127)" },
    { "gpu-affinity=map:9",
      "shell plugin 'gpu-affinity': task 0: GPUs 9 are not all the job's on "
      "this target (0-7)" },
};

/* The bounds of a map: entries, and the digits of a mask. */
static void test_map_bounds (const struct rp_config *cfg)
{
    size_t n = 65537 * 2 + 32;
    char *opts = malloc (n), *p = opts;
    struct rp_rset *R;
    struct rp_jobspec *js;
    rp_error_t e;
    struct rp_shell *sh;

    if (!opts)
        BAIL_OUT ("out of memory");
    p += sprintf (p, "cpu-affinity=map:");
    for (int i = 0; i < 65537; i++)
        p += sprintf (p, i ? ";0" : "0");
    sh = tioga4 (cfg, opts, NULL, &R, &js, &e);
    ok (!sh, "a map of 65537 entries is refused");
    is (e.text, SP_CPU "map: more than 65536 entries", "message");
    done (sh, js, R);
    p = opts + sprintf (opts, "cpu-affinity=map:0x");
    memset (p, 'f', 1025);
    p[1025] = '\0';
    sh = tioga4 (cfg, opts, NULL, &R, &js, &e);
    ok (!sh, "a mask of 1025 hex digits is refused");
    like (e.text, "map: entry 1 '0xffffffff", "message: %s", e.text);
    done (sh, js, R);
    p[1024] = '\0';
    p[0] = '1';
    memset (p + 1, '0', 1023);
    sh = tioga4 (cfg, opts, NULL, &R, &js, &e);
    ok (!sh, "a mask of 1024 hex digits is read: PU 4092 is refused by the "
             "host");
    is (e.text,
        "shell plugin 'cpu-affinity': task 0: CPUs 4092 are not all the "
        "job's on this target (0-127)",
        "message");
    done (sh, js, R);
    free (opts);
}

static void test_bad_options (const struct rp_config *cfg)
{
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        struct rp_rset *R;
        struct rp_jobspec *js;
        rp_error_t e = { { 0 } };
        struct rp_shell *sh;
        errno = 0;
        sh = tioga4 (cfg, bad[i].opts, NULL, &R, &js, &e);
        ok (!sh && (errno == EINVAL || errno == EPROTO), "%s is refused",
            bad[i].opts);
        is (e.text, bad[i].error, "%s: message", bad[i].opts);
        done (sh, js, R);
    }
}

/* --- verbose -----------------------------------------------------------------
 */

static char logged[8][256];
static int nlogged;

static void catch_log (const char *instance, int level, const char *message,
                       void *arg)
{
    (void)arg;
    if (nlogged < 8)
        snprintf (logged[nlogged++], sizeof (logged[0]), "%s: %d: %s", instance,
                  level, message);
}

static void test_verbose (const struct rp_config *cfg)
{
    const char *xml = topology ("eas-tioga");
    struct rp_rset *R = R_of (xml, NULL, NULL);
    struct rp_jobspec *js = job (1, 64, 8, "{per_slot: 2}", NULL);
    static const char *const want[] = {
        "cpu-affinity: 5: task 0: CPUs 0-31: cores 0-31, NUMA nodes 0-1",
        "gpu-affinity: 5: task 0: GPUs 0-3: ROCR_VISIBLE_DEVICES=2,3,4,5",
        "mem-affinity: 5: task 0: memory bound to NUMA nodes 0-1",
        "openmp: 5: task 0: OMP_NUM_THREADS=32 OMP_PLACES={0},{1},{2},{3},{4},"
        "{5},{6},{7},{8},{9},{10},{11},{12},{13},{14},{15},{16},{17},{18},{19},"
        "{20},{21},{22},{23},{24},{25},{26},{27},{28},{29},{30},{31} "
        "OMP_PROC_BIND=close",
        "cpu-affinity: 5: task 1: CPUs 32-63: cores 32-63, NUMA nodes 2-3",
    };
    rp_error_t e;
    struct rp_shell *sh;

    rp_plugin_set_log (catch_log, NULL);
    rp_plugin_set_log_level (RP_LOG_NOTICE);
    sh = shell (xml, R, js, cfg,
                "cpu-affinity=verbose|gpu-affinity=verbose|"
                "mem-affinity=verbose|openmp=verbose",
                &e);
    cmp_ok (nlogged, ==, 8, "verbose: each plugin logs each task");
    for (size_t i = 0; i < sizeof (want) / sizeof (want[0]); i++)
        is (logged[i], want[i], "verbose: message %zu", i);
    rp_shell_destroy (sh);
    nlogged = 0;
    rp_plugin_set_log_level (RP_LOG_WARNING);
    sh = shell (xml, R, js, cfg, "cpu-affinity=verbose", &e);
    cmp_ok (nlogged, ==, 0, "verbose logs at notice level: hidden at warning");
    rp_shell_destroy (sh);
    rp_plugin_set_log_level (0);
    rp_plugin_set_log (NULL, NULL);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
}

/* --- a real process ----------------------------------------------------------
 */

/* On this machine: two tasks of cpu-affinity per-task and openmp, each
 * bound in its own process to the PUs decided. */
static void test_exec (void)
{
    struct rp_config *cfg = config ("shell:\n"
                                    "  - plugin: @/cpu-affinity.so\n"
                                    "  - plugin: @/openmp.so\n",
                                    NULL);
    struct rp_rset *R = rp_rset_from_hwloc (0, NULL, NULL, NULL);
    struct rp_jobspec *js = job (1, 1, 0, "{per_slot: 2}", NULL);
    rp_error_t e;
    struct rp_shell *sh = R ? shell (NULL, R, js, cfg, NULL, &e) : NULL;

    if (!ok (sh != NULL, "this machine: two tasks"))
        diag ("%s", R ? e.text : "no R");
    for (size_t i = 0; sh && i < rp_shell_ntasks (sh); i++) {
        struct rp_task *t = rp_shell_task (sh, i);
        const struct rp_idset *want = rp_task_cpus (t);
        int status;
        pid_t pid;
        fflush (stdout);
        if ((pid = fork ()) == 0) {
            cpu_set_t set;
            int n = 0;
            if (rp_task_exec (t, &e) < 0
                || sched_getaffinity (0, sizeof (set), &set) < 0)
                _exit (2);
            for (int c = 0; c < CPU_SETSIZE; c++)
                if (CPU_ISSET (c, &set)) {
                    if (!rp_idset_test (want, (unsigned int)c))
                        _exit (3);
                    n++;
                }
            if ((size_t)n != rp_idset_count (want)
                || !getenv ("OMP_NUM_THREADS"))
                _exit (4);
            _exit (0);
        }
        waitpid (pid, &status, 0);
        ok (WIFEXITED (status) && WEXITSTATUS (status) == 0,
            "task %zu runs on PUs %s only, with OMP_NUM_THREADS=%s (status %d)",
            i, text (want), rp_task_getenv (t, "OMP_NUM_THREADS"),
            WIFEXITED (status) ? WEXITSTATUS (status) : -1);
    }
    rp_shell_destroy (sh);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
    rp_config_destroy (cfg);
}

int main (void)
{
    struct rp_config *cfg;

    plan (NO_PLAN);
    fixtures_setup ("respol-test-affinity");
    snprintf (cfgpath, sizeof (cfgpath), "%s/respol.yaml", tmpdir);
    copy_plugins ();
    test_scenarios ();
    cfg = config (stack4, NULL);
    test_cpu_modes (cfg);
    test_gpu_modes (cfg);
    test_hide (cfg);
    test_env_kept (cfg);
    test_bare (cfg);
    test_bad_options (cfg);
    test_map_bounds (cfg);
    test_verbose (cfg);
    rp_config_destroy (cfg);
    test_defaults ();
    test_exec ();
    fixtures_cleanup ();
    return done_testing ();
}
