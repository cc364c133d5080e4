/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of the job shell (api/respol/shell.h): what the topology
 * says of a job's cores and GPUs (on the XML topologies of t/data), the
 * stack's calls in order, the host's check of every decision (each refusal
 * pinned), failures, and a decision applied to a real process.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <respol/config.h>
#include <respol/graph.h>
#include <respol/idset.h>
#include <respol/jobspec.h>
#include <respol/rset.h>
#include <respol/shell.h>

#include "core/test/fixtures.h"
#include "shell/test/helpers.h"
#include "t/tap/tap.h"

static char cfgpath[PATH_MAX];

/* A V1 jobspec of nslots slots of cores cores and gpus GPUs, one task
 * each, with shell options opts (a YAML flow mapping, or NULL). */
static struct rp_jobspec *job (int nslots, int cores, int gpus,
                               const char *opts)
{
    char with[128], shell[512] = "", text[1024];
    struct rp_jobspec *js;

    snprintf (with, sizeof (with), "{type: core, count: %d}", cores);
    if (gpus)
        snprintf (with + strlen (with), sizeof (with) - strlen (with),
                  ", {type: gpu, count: %d}", gpus);
    if (opts)
        snprintf (shell, sizeof (shell), ", shell: {options: %s}", opts);
    snprintf (text, sizeof (text),
              "version: 1\n"
              "resources:\n"
              "  - {type: slot, count: %d, label: task, with: [%s]}\n"
              "tasks: [{command: [app], slot: task, count: {per_slot: 1}}]\n"
              "attributes: {system: {duration: 60, environment: {HOME: /h}%s}}\n",
              nslots, with, shell);
    if (!(js = rp_jobspec_load (text, strlen (text), "job.yaml", RP_JOBSPEC_V1,
                                NULL)))
        BAIL_OUT ("bad test jobspec:\n%s", text);
    return js;
}

static struct rp_config *config (bool fixture)
{
    FILE *f = fopen (cfgpath, "w");
    struct rp_config *cfg;

    if (!f
        || fprintf (f, "shell: [%s%s%s]\n", fixture ? "{plugin: " : "",
                    fixture ? fixdir : "", fixture ? "/shell-fixture.so}" : "")
               < 0
        || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", cfgpath);
    if (!(cfg = rp_config_load (cfgpath, 0, NULL)))
        BAIL_OUT ("cannot load %s", cfgpath);
    return cfg;
}

/* A shell on topology xml with R from it, for js, initialized with cfg;
 * NULL with error. */
static struct rp_shell *shell_on (const char *xml, struct rp_rset **R,
                                  struct rp_jobspec *js,
                                  const struct rp_config *cfg,
                                  rp_error_t *error)
{
    struct rp_shell *sh;

    if (!*R && !(*R = rp_rset_from_hwloc (0, NULL, xml, error)))
        BAIL_OUT ("R from %s: %s", xml, error->text);
    if (!(sh = rp_shell_create (*R, js, 0, error)))
        return NULL;
    if ((xml && rp_shell_set_xml (sh, xml, error) < 0)
        || rp_shell_init (sh, cfg, error) < 0) {
        rp_shell_destroy (sh);
        return NULL;
    }
    return sh;
}

static void test_topology (void)
{
    struct rp_rset *R = NULL;
    struct rp_jobspec *js = job (8, 8, 1, NULL);
    struct rp_config *cfg = config (false);
    rp_error_t e;
    struct rp_shell *sh = shell_on (topology ("eas-tioga.xml"), &R, js, cfg,
                                    &e);
    struct rp_task *t;

    if (!ok (sh != NULL, "tioga: a shell of 8 slots of 8 cores and 1 GPU"))
        BAIL_OUT ("%s", e.text);
    is (enc (rp_shell_cores (sh)), "0-63", "the job's cores");
    cmp_ok (rp_idset_count (rp_shell_cpus (sh)), ==, 128,
            "their PUs (2 per core)");
    is (enc (rp_shell_gpus (sh)), "0-7", "the job's GPUs");
    is (enc (rp_shell_numas (sh)), "0-3", "the NUMA nodes of its cores");
    is (enc (rp_shell_core_cpus (sh, 0)), "0,64", "core 0: PUs 0 and 64");
    cmp_ok (rp_shell_core_numa (sh, 0), ==, 0, "core 0: NUMA node 0");
    cmp_ok (rp_shell_core_numa (sh, 63), ==, 3, "core 63: NUMA node 3");
    cmp_ok (rp_shell_core_package (sh, 63), ==, 0, "core 63: package 0");
    ok (rp_shell_core_cpus (sh, 64) == NULL && rp_shell_core_numa (sh, 64) == -1,
        "core 64: not the job's");
    cmp_ok (rp_shell_gpu_vendor (sh, 0), ==, RP_GPU_AMD, "GPU 0: AMD");
    ok (rp_shell_gpu_busid (sh, 0) != NULL, "GPU 0 has a bus id: %s",
        rp_shell_gpu_busid (sh, 0));
    cmp_ok (rp_shell_gpu_numa (sh, 0), ==, 0,
            "GPU 0 (rsmi4) is on NUMA node 0, as core 0");
    is (rp_shell_gpu_name (sh, 0), "rsmi4", "GPU 0's OS device: rsmi4");
    ok (rp_shell_gpu_name (sh, 9) == NULL, "GPU 9: no name");
    is (enc (rp_shell_gpu_cores (sh, 0)), "0-7",
        "GPU 0's nearest cores: those of its L3 (8 cores of NUMA node 0)");
    is (enc (rp_shell_gpu_cores (sh, 7)), "56-63",
        "GPU 7's: the last L3 of NUMA node 3");
    ok (rp_shell_gpu_index (sh, 0) >= 0 && rp_shell_gpu_index (sh, 0) < 8,
        "GPU 0's index among the AMD GPUs: %d", rp_shell_gpu_index (sh, 0));
    ok (rp_shell_gpu_vendor (sh, 9) == RP_GPU_UNKNOWN
            && rp_shell_gpu_cores (sh, 9) == NULL,
        "GPU 9: not the job's");
    ok (rp_shell_topology (sh) != NULL, "the topology is there for plugins");

    cmp_ok (rp_shell_ntasks (sh), ==, 8, "8 local tasks");
    cmp_ok (rp_shell_ntasks_total (sh), ==, 8, "8 tasks in the job");
    ok (rp_shell_layout (sh) != NULL, "laid out by the layout");
    t = rp_shell_task (sh, 2);
    ok (t && rp_task_global_id (t) == 2 && rp_task_local_id (t) == 2,
        "task 2");
    is (enc (rp_task_share_cores (t)), "16-23", "task 2's share of cores");
    is (enc (rp_task_share_gpus (t)), "2", "task 2's share of GPUs");
    ok (rp_task_cpus (t) == NULL && rp_task_gpus (t) == NULL
            && rp_task_mem_policy (t) == RP_MEM_DEFAULT,
        "without plugins a task is undecided");
    is (rp_task_getenv (t, "HOME"), "/h", "the job's environment");
    is (rp_task_getenv (t, "RESPOL_TASK_RANK"), "2", "RESPOL_TASK_RANK");
    is (rp_task_getenv (t, "RESPOL_TASK_LOCAL_ID"), "2",
        "RESPOL_TASK_LOCAL_ID");
    is (rp_task_getenv (t, "RESPOL_JOB_SIZE"), "8", "RESPOL_JOB_SIZE");
    is (rp_task_getenv (t, "RESPOL_SHELL_RANK"), "0", "RESPOL_SHELL_RANK");
    errno = 0;
    ok (rp_task_set_cpus (t, rp_shell_cpus (sh)) < 0 && errno == EINVAL,
        "a decision outside task_init fails with EINVAL");
    ok (rp_shell_task (sh, 8) == NULL, "no task 8 here");
    errno = 0;
    ok (rp_shell_init (sh, cfg, &e) < 0 && errno == EINVAL,
        "a shell is initialized once");
    is (e.text, "shell: already initialized", "message");
    rp_shell_destroy (sh);
    rp_jobspec_destroy (js);
    rp_config_destroy (cfg);
    rp_rset_destroy (R);
}

/* The host's own topology: one discovery for the graph and the shell. */
static void test_host_topology (void)
{
    struct rp_rset *R = NULL;
    struct rp_jobspec *js = job (1, 1, 0, NULL);
    struct rp_config *cfg = config (false);
    hwloc_topology_t topo = NULL;
    struct rp_graph *g;
    struct rp_shell *sh;
    rp_error_t e;

    if (!ok (rp_topology_load_local (&topo, &e) == 0,
             "rp_topology_load_local: this machine"))
        BAIL_OUT ("%s", e.text);
    ok ((g = rp_graph_from_topology (topo, 0, "here", &e)) != NULL,
        "rp_graph_from_topology builds its graph");
    rp_graph_destroy (g);
    errno = 0;
    ok (rp_graph_from_topology (NULL, 0, NULL, &e) == NULL && errno == EINVAL,
        "rp_graph_from_topology (NULL): EINVAL");
    errno = 0;
    ok (rp_topology_load_local (NULL, &e) < 0 && errno == EINVAL,
        "rp_topology_load_local (NULL): EINVAL");
    if (!(R = rp_rset_from_hwloc (0, NULL, NULL, &e)))
        BAIL_OUT ("%s", e.text);
    sh = rp_shell_create (R, js, 0, &e);
    ok (sh && rp_shell_set_topology (sh, topo, &e) == 0,
        "rp_shell_set_topology takes the host's");
    ok (rp_shell_set_topology (sh, topo, &e) < 0
            && !strcmp (e.text, "shell: a topology is already set"),
        "a second topology is refused: %s", e.text);
    ok (rp_shell_set_xml (sh, topology ("eas-tioga.xml"), &e) < 0
            && !strcmp (e.text, "shell: a topology is already set"),
        "so is an XML file after it");
    hwloc_topology_destroy (topo); /* the shell holds its own copy */
    ok (rp_shell_init (sh, cfg, &e) == 0, "the shell initializes on it");
    ok (rp_idset_equal (rp_shell_cores (sh), rp_rset_cores (R, 0)),
        "the job's cores are R's");
    rp_shell_destroy (sh);
    rp_jobspec_destroy (js);
    rp_config_destroy (cfg);
    rp_rset_destroy (R);
}

static const struct {
    const char *what;
    const char *opts;
    int errnum; /* 0: accepted */
    const char *error;
} decisions[] = {
    { "CPUs within the job's", "{fixture-cpus: '0-3'}", 0, NULL },
    { "CPUs outside the job's",
      "{fixture-cpus: '0-3,200'}", EINVAL,
      "shell plugin 'shell-fixture': task 0: CPUs 0-3,200 are not all the "
      "job's on this target (0-127)" },
    { "no CPU", "{fixture-cpus: ''}", EINVAL,
      "shell plugin 'shell-fixture': task 0: no CPUs" },
    { "GPUs within", "{fixture-gpus: '1'}", 0, NULL },
    { "no GPU: allowed", "{fixture-gpus: ''}", 0, NULL },
    { "GPUs outside the job's", "{fixture-gpus: '8'}", EINVAL,
      "shell plugin 'shell-fixture': task 0: GPUs 8 are not all the job's "
      "on this target (0-7)" },
    { "NUMA nodes outside", "{fixture-mems: '0,4'}", EINVAL,
      "shell plugin 'shell-fixture': task 0: NUMA nodes 0,4 are not all the "
      "job's on this target (0-3)" },
    { "a plugin fails in shell_init", "{fixture-fail: shell_init}", EPROTO,
      "shell plugin 'shell-fixture': shell_init: asked to fail in "
      "shell_init" },
    { "a plugin fails in task_init", "{fixture-fail: task_init}", EPROTO,
      "shell plugin 'shell-fixture': task_init: asked to fail in task_init" },
    { "a plugin fails without a message", "{fixture-fail: 'task_init!'}",
      EPROTO, "shell plugin 'shell-fixture': task_init returned -1 (no "
              "message)" },
};

static void test_decisions (void)
{
    struct rp_config *cfg = config (true);
    struct rp_rset *R = NULL;

    for (size_t i = 0; i < sizeof (decisions) / sizeof (decisions[0]); i++) {
        struct rp_jobspec *js = job (8, 8, 1, decisions[i].opts);
        rp_error_t e = { { 0 } };
        struct rp_shell *sh;
        errno = 0;
        sh = shell_on (topology ("eas-tioga.xml"), &R, js, cfg, &e);
        if (!decisions[i].errnum) {
            ok (sh != NULL, "%s: accepted", decisions[i].what);
            if (!sh)
                diag ("%s", e.text);
        } else {
            ok (!sh && errno == decisions[i].errnum, "%s: refused (%s)",
                decisions[i].what, strerror (decisions[i].errnum));
            is (e.text, decisions[i].error, "%s: message", decisions[i].what);
        }
        rp_shell_destroy (sh);
        rp_jobspec_destroy (js);
    }
    rp_rset_destroy (R);
    rp_config_destroy (cfg);
}

static void test_host_tasks_and_errors (void)
{
    struct rp_rset *R = rp_rset_from_hwloc (0, NULL, topology ("coral-lassen.xml"),
                                            NULL);
    struct rp_jobspec *js = job (1, 1, 0, NULL);
    struct rp_idset *cores = rp_idset_decode ("4-7", NULL);
    struct rp_shell *sh;
    rp_error_t e;

    errno = 0;
    ok (rp_shell_create (R, js, 3, &e) == NULL && errno == EINVAL,
        "create: a rank not in R fails with EINVAL");
    is (e.text, "shell: rank 3 is not in R", "message");
    sh = rp_shell_create (R, js, 0, &e);
    ok (sh && rp_shell_set_xml (sh, topology ("coral-lassen.xml"), &e) == 0
            && rp_shell_add_task (sh, 10, cores, NULL, &e) == 0
            && rp_shell_add_task (sh, 11, cores, NULL, &e) == 0,
        "a host adds its own tasks");
    ok (rp_shell_init (sh, NULL, &e) == 0, "init without configuration");
    ok (rp_shell_layout (sh) == NULL && rp_shell_ntasks (sh) == 2
            && rp_task_global_id (rp_shell_task (sh, 1)) == 11
            && rp_task_local_id (rp_shell_task (sh, 1)) == 1,
        "no layout: the host's tasks, local ids in order");
    ok (rp_shell_ntasks_total (sh) == 2, "the job's tasks: those added");
    is (enc (rp_task_share_cores (rp_shell_task (sh, 0))), "4-7",
        "with the host's share");
    cmp_ok (rp_shell_gpu_vendor (sh, 0), ==, RP_GPU_NVIDIA,
            "lassen's GPU 0 is NVIDIA");
    errno = 0;
    ok (rp_shell_add_task (sh, 12, cores, NULL, &e) < 0 && errno == EINVAL,
        "no task added after init");
    rp_shell_destroy (sh);

    sh = rp_shell_create (R, js, 0, &e);
    ok (sh && rp_shell_set_xml (sh, topology ("coral-lassen.xml"), &e) == 0
            && rp_shell_set_ntasks_total (sh, 12, &e) == 0
            && rp_shell_add_task (sh, 10, cores, NULL, &e) == 0
            && rp_shell_init (sh, NULL, &e) == 0,
        "a host adds its tasks of a larger job");
    ok (rp_shell_ntasks_total (sh) == 12, "the job's tasks: the host's count");
    is (rp_task_getenv (rp_shell_task (sh, 0), "RESPOL_JOB_SIZE"), "12",
        "RESPOL_JOB_SIZE: the host's count");
    rp_shell_destroy (sh);
    sh = rp_shell_create (R, js, 0, &e);
    errno = 0;
    ok (rp_shell_set_ntasks_total (sh, 0, &e) < 0 && errno == EINVAL,
        "a job of no task fails with EINVAL");
    is (e.text, "shell: a job of 0 tasks (1 to 16777216)", "message");
    ok (rp_shell_set_xml (sh, topology ("coral-lassen.xml"), &e) == 0
            && rp_shell_set_ntasks_total (sh, 1, &e) == 0
            && rp_shell_add_task (sh, 10, cores, NULL, &e) == 0
            && rp_shell_add_task (sh, 11, cores, NULL, &e) == 0,
        "two tasks added to a job of one");
    errno = 0;
    ok (rp_shell_init (sh, NULL, &e) < 0 && errno == EINVAL,
        "init fails with EINVAL");
    is (e.text, "shell: 2 tasks here, but the job has 1", "message");
    rp_shell_destroy (sh);

    sh = rp_shell_create (R, js, 0, &e);
    ok (sh && rp_shell_set_xml (sh, "/nonexistent.xml", &e) == 0
            && rp_shell_init (sh, NULL, &e) < 0,
        "a missing XML file fails init");
    is (e.text,
        "shell: R: hwloc: /nonexistent.xml: cannot load topology: No such "
        "file or directory",
        "message");
    rp_shell_destroy (sh);
    rp_idset_destroy (cores);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
}

/* The decision applied in a child on this machine: PU 0, a variable. */
static void test_exec (void)
{
    struct rp_config *cfg = config (true);
    struct rp_rset *R = NULL;
    struct rp_jobspec *js = job (1, 1, 0,
                                 "{fixture-cpus: '0', fixture-env: 'X=y'}");
    rp_error_t e;
    struct rp_shell *sh = shell_on (NULL, &R, js, cfg, &e);
    struct rp_task *t = sh ? rp_shell_task (sh, 0) : NULL;
    int status;
    pid_t pid;

    if (!ok (t != NULL, "this machine: a shell of one task"))
        BAIL_OUT ("%s", e.text);
    is (rp_task_getenv (t, "X"), "y", "a plugin set a variable");
    fflush (stdout);
    if ((pid = fork ()) == 0) {
        cpu_set_t set;
        if (rp_task_exec (t, &e) < 0)
            _exit (2);
        if (sched_getaffinity (0, sizeof (set), &set) < 0 || CPU_COUNT (&set) != 1
            || !CPU_ISSET (0, &set))
            _exit (3);
        if (!getenv ("X") || strcmp (getenv ("X"), "y") || getenv ("PATH"))
            _exit (4);
        _exit (0);
    }
    waitpid (pid, &status, 0);
    ok (WIFEXITED (status) && WEXITSTATUS (status) == 0,
        "in the task: bound to PU 0, its environment only (status %d)",
        WIFEXITED (status) ? WEXITSTATUS (status) : -1);
    fflush (stdout);
    if ((pid = fork ()) == 0) {
        cpu_set_t set;
        if (rp_task_exec_flags (t, RP_TASK_EXEC_KEEP_ENVIRON, &e) < 0)
            _exit (2);
        if (sched_getaffinity (0, sizeof (set), &set) < 0 || CPU_COUNT (&set) != 1
            || !CPU_ISSET (0, &set))
            _exit (3);
        if (getenv ("X") || !getenv ("PATH"))
            _exit (4);
        _exit (0);
    }
    waitpid (pid, &status, 0);
    ok (WIFEXITED (status) && WEXITSTATUS (status) == 0,
        "RP_TASK_EXEC_KEEP_ENVIRON: bound, the process's environment kept "
        "(status %d)",
        WIFEXITED (status) ? WEXITSTATUS (status) : -1);
    errno = 0;
    ok (rp_task_exec_flags (t, 2, &e) < 0 && errno == EINVAL,
        "rp_task_exec_flags: an unknown flag fails with EINVAL");
    ok (rp_task_exited (t, status, &e) == 0 && rp_shell_exit (sh, &e) == 0,
        "task_exit and shell_exit run");
    rp_shell_destroy (sh);
    rp_jobspec_destroy (js);
    rp_rset_destroy (R);
    rp_config_destroy (cfg);
}

int main (void)
{
    plan (NO_PLAN);
    fixtures_setup ("respol-test-shell");
    snprintf (cfgpath, sizeof (cfgpath), "%s/respol.yaml", tmpdir);
    test_topology ();
    test_host_topology ();
    test_decisions ();
    test_host_tasks_and_errors ();
    test_exec ();
    fixtures_cleanup ();
    return done_testing ();
}
