/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests of a Slurm step's node under respol's shell
 * (shell/slurm/step.h), without Slurm: the --respol option's syntax and
 * every refusal, Slurm's core ids on the XML topologies of t/data (socket
 * major: each package's cores in turn), the tasks' shares against the
 * task layout's, the node's shell with the fixture plugin (GPUs on
 * lassen's topology, which Slurm's GRES would need real devices for),
 * and the environment given back to Slurm.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>

#include <respol/config.h>
#include <respol/idset.h>
#include <respol/jobspec.h>
#include <respol/layout.h>
#include <respol/rset.h>
#include <respol/shell.h>

#include "core/test/fixtures.h"
#include "shell/test/helpers.h"
#include "shell/slurm/step.h"
#include "t/tap/tap.h"

/* The topology of an XML file of t/data, with its I/O devices. */
static hwloc_topology_t load (const char *name)
{
    hwloc_topology_t topo;

    if (hwloc_topology_init (&topo) < 0
        || hwloc_topology_set_xml (topo, topology (name)) < 0
        || hwloc_topology_set_io_types_filter (topo, HWLOC_TYPE_FILTER_KEEP_ALL)
               < 0
        || hwloc_topology_load (topo) < 0)
        BAIL_OUT ("cannot load %s", name);
    return topo;
}

/* --- the option ----------------------------------------------------------- */

static const struct {
    const char *arg;
    const char *json; /* NULL: an error */
    const char *error;
} options[] = {
    { "cpu-affinity=per-task", "{\"cpu-affinity\":\"per-task\"}", NULL },
    { "cpu-affinity=per-task,gpu-affinity=per-task,verbose",
      "{\"cpu-affinity\":\"per-task\",\"gpu-affinity\":\"per-task\","
      "\"verbose\":1}",
      NULL },
    { "cpu-affinity=map:0,1,verbose",
      "{\"cpu-affinity\":\"map:0,1\",\"verbose\":1}", NULL },
    { "a=1,b=true,c=1.5,d=", "{\"a\":1,\"b\":true,\"c\":1.5,\"d\":\"\"}",
      NULL },
    { "a=[1,2],b=x", "{\"a\":[1,2],\"b\":\"x\"}", NULL },
    { "a=[1,2],b=\"x,y\",c=1.5", "{\"a\":[1,2],\"b\":\"x,y\",\"c\":1.5}",
      NULL },
    { "a=\"x,y\",b", "{\"a\":\"x,y\",\"b\":1}", NULL },
    { "a={\"k\":1,\"j\":[2,3]},b=2", "{\"a\":{\"j\":[2,3],\"k\":1},\"b\":2}",
      NULL },
    { "a=\"q\\\",r\",b", "{\"a\":\"q\\\",r\",\"b\":1}", NULL },
    { "a=[1,2", "{\"a\":\"[1,2\"}", NULL },
    { "a.b=1,a.c=2", "{\"a\":{\"b\":1,\"c\":2}}", NULL },
    { "a=1,a=2", "{\"a\":2}", NULL },
    { "x=y=z", "{\"x\":\"y=z\"}", NULL },
    { "verbose=2", "{\"verbose\":2}", NULL },
    { "verbose=false", "{\"verbose\":false}", NULL },
    { "", NULL, "--respol: no option given (KEY[=VALUE],...)" },
    { "a,,b", NULL,
      "--respol: an empty entry (two commas, or one at either end)" },
    { ",a", NULL,
      "--respol: an empty entry (two commas, or one at either end)" },
    { "a=1,", NULL,
      "--respol: an empty entry (two commas, or one at either end)" },
    { "1a=2", NULL,
      "--respol: '1a=2' is not KEY[=VALUE] (a key is a letter, then "
      "letters, digits, '-', '_' or '.')" },
    { "a b=1,c", NULL,
      "--respol: 'a b=1' is not KEY[=VALUE] (a key is a letter, then "
      "letters, digits, '-', '_' or '.')" },
    { "a.=1", NULL, "--respol: invalid key 'a.'" },
    { "a..b=1", NULL, "--respol: invalid key 'a..b'" },
    { "a=1,a.b=2", NULL, "--respol: 'a' is not an object" },
    { "a=\xff", NULL, "--respol: a: the value is not valid UTF-8" },
    { "verbose=yes", NULL,
      "--respol: verbose: 0, 1, 2 or false (verbose alone is 1)" },
    { "verbose=-1", NULL,
      "--respol: verbose: 0, 1, 2 or false (verbose alone is 1)" },
};

static void test_options (void)
{
    rp_error_t e;
    char *big;
    json_t *o;

    for (size_t i = 0; i < sizeof (options) / sizeof (options[0]); i++) {
        char *got = NULL;
        e.text[0] = '\0';
        o = slurm_options_parse ("--respol", options[i].arg, &e);
        if (o)
            got = json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT);
        if (options[i].json)
            is (got, options[i].json, "'%s'", options[i].arg);
        else
            ok (!o && !strcmp (e.text, options[i].error), "'%s': refused: %s",
                options[i].arg, e.text);
        free (got);
        json_decref (o);
    }
    ok (slurm_options_parse ("--respol", NULL, &e) == NULL,
        "no value: refused");
    o = slurm_options_parse (SLURM_OPTIONS_ENV, "a,,b", &e);
    is (e.text,
        "RESPOL_SLURM_OPTIONS: an empty entry (two commas, or one at either "
        "end)",
        "the environment form is named as such");
    if (!(big = malloc (SLURM_OPTIONS_MAX + 2)))
        BAIL_OUT ("out of memory");
    memset (big, 'a', SLURM_OPTIONS_MAX + 1);
    big[SLURM_OPTIONS_MAX + 1] = '\0';
    ok (slurm_options_parse ("--respol", big, &e) == NULL, "too long: refused");
    is (e.text, "--respol: longer than 65536 bytes", "message");
    big[SLURM_OPTIONS_MAX] = '\0';
    ok ((o = slurm_options_parse ("--respol", big, &e)) != NULL,
        "the longest accepted");
    json_decref (o);
    free (big);
}

static void test_verbose (void)
{
    const struct {
        const char *arg;
        int level;
    } t[] = { { "a", 0 },           { "verbose", 1 },       { "verbose=2", 2 },
              { "verbose=9", 2 },   { "verbose=false", 0 }, { "verbose=0", 0 },
              { "verbose=true", 1 } };

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        json_t *o = slurm_options_parse ("--respol", t[i].arg, NULL);
        cmp_ok (slurm_options_verbose (o), ==, t[i].level, "%s: verbosity %d",
                t[i].arg, t[i].level);
        json_decref (o);
    }
}

/* --- Slurm's cores -------------------------------------------------------- */

/* Slurm's k-th core is the k-th met walking the packages in order: on
 * every topology of t/data, each package's cores in turn, which are
 * hwloc's logical indices, R's ids. */
static void test_cores_socket_major (const char *name)
{
    hwloc_topology_t topo = load (name);
    int n = hwloc_get_nbobjs_by_type (topo, HWLOC_OBJ_CORE);
    hwloc_obj_t pkg = NULL, c;
    char ids[32];
    int k = 0, bad = 0;

    while ((pkg = hwloc_get_next_obj_by_type (topo, HWLOC_OBJ_PACKAGE, pkg)))
        for (c = NULL; (c = hwloc_get_next_obj_inside_cpuset_by_type (
                            topo, pkg->cpuset, HWLOC_OBJ_CORE, c));
             k++) {
            struct rp_idset *r;
            snprintf (ids, sizeof (ids), "%d", k);
            r = slurm_cores (ids, topo, NULL);
            if (!r || rp_idset_count (r) != 1
                || rp_idset_first (r) != c->logical_index)
                bad++;
            rp_idset_destroy (r);
        }
    ok (k == n && bad == 0,
        "%s: Slurm's cores 0-%d are the packages' cores in order, R's ids",
        name, n - 1);
    hwloc_topology_destroy (topo);
}

static void test_cores (void)
{
    hwloc_topology_t topo = load ("coral-lassen.xml");
    struct rp_idset *r;
    hwloc_obj_t c;
    rp_error_t e;

    test_cores_socket_major ("coral-lassen.xml");
    test_cores_socket_major ("eas-tioga.xml");
    test_cores_socket_major ("epyc-corona.xml");
    test_cores_socket_major ("cts1-quartz-smt1.xml");
    test_cores_socket_major ("h200-vm.xml");
    r = slurm_cores ("18-21", topo, &e);
    is (enc (r), "18-21", "lassen: Slurm's cores 18-21 are R's 18-21");
    c = hwloc_get_obj_by_type (topo, HWLOC_OBJ_CORE, 20);
    ok (c
            && hwloc_get_ancestor_obj_by_type (topo, HWLOC_OBJ_PACKAGE, c)
                   == hwloc_get_obj_by_type (topo, HWLOC_OBJ_PACKAGE, 1),
        "core 20 is the second package's first");
    rp_idset_destroy (r);
    ok (slurm_cores ("38-40", topo, &e) == NULL, "a core beyond: refused");
    is (e.text,
        "Slurm's core 40 is not a core of this machine, which has 40 "
        "(slurm.conf's node line must be what slurmd -C prints)",
        "message");
    ok (slurm_cores ("", topo, &e) == NULL, "no core: refused");
    is (e.text, "Slurm gave the step no core here", "message");
    ok (slurm_cores ("3,2", topo, &e) == NULL, "not an idset: refused");
    is (e.text,
        "Slurm's cores '3,2': idset: \"3,2\": ids not ascending at offset 2",
        "message");
    hwloc_topology_destroy (topo);
}

/* --- shares --------------------------------------------------------------- */

static void test_shares (void)
{
    const struct {
        const char *ids;
        unsigned int n;
        const char *shares; /* n shares, separated by '|' */
    } t[] = {
        { "0-7", 2, "0-3|4-7" }, { "0-6", 3, "0-2|3-4|5-6" },
        { "4-5,9", 3, "4|5|9" }, { "0-1", 4, "0|0|1|1" },
        { "0-1", 3, "0|0|1" },   { "0-2", 7, "0|0|0|1|1|2|2" },
        { "", 2, "|" },          { "0-3", 1, "0-3" },
    };

    for (size_t i = 0; i < sizeof (t) / sizeof (t[0]); i++) {
        struct rp_idset *ids = rp_idset_decode (t[i].ids, NULL);
        char got[256] = "";
        for (unsigned int j = 0; j < t[i].n; j++) {
            struct rp_idset *s = slurm_share (ids, t[i].n, j);
            snprintf (got + strlen (got), sizeof (got) - strlen (got), "%s%s",
                      j ? "|" : "", enc (s));
            rp_idset_destroy (s);
        }
        is (got, t[i].shares, "%u tasks on '%s'", t[i].n, t[i].ids);
        rp_idset_destroy (ids);
    }
}

/* The layout's shares of a target's cores over n slots of one task,
 * against slurm_share's. */
static void test_shares_layout (const char *cores, unsigned int n,
                                unsigned int per_slot)
{
    struct rp_rset *R = rp_rset_create ();
    struct rp_idset *ids = rp_idset_decode (cores, NULL);
    char text[512];
    struct rp_jobspec *js;
    struct rp_layout *l;
    rp_error_t e;
    int bad = 0;

    if (!R || rp_rset_add_target (R, 0, "n0", ids, NULL, &e) < 0)
        BAIL_OUT ("R: %s", e.text);
    snprintf (text, sizeof (text),
              "version: 1\nresources:\n  - {type: slot, count: %u, label: "
              "task, with: [{type: core, count: %u}]}\ntasks: [{command: "
              "[app], slot: task, count: {per_slot: 1}}]\nattributes: "
              "{system: {duration: 0}}\n",
              n, per_slot);
    if (!(js = rp_jobspec_load (text, strlen (text), "j", RP_JOBSPEC_V1, NULL))
        || !(l = rp_layout_create (R, js, 0, NULL, &e)))
        BAIL_OUT ("layout of %u slots on %s", n, cores);
    for (unsigned int i = 0; i < n; i++) {
        struct rp_idset *s = slurm_share (ids, n, i);
        if (strcmp (enc (s), enc (rp_layout_task_cores (l, i))))
            bad++;
        rp_idset_destroy (s);
    }
    ok (bad == 0, "%u tasks on cores %s: the layout's shares", n, cores);
    rp_layout_destroy (l);
    rp_jobspec_destroy (js);
    rp_idset_destroy (ids);
    rp_rset_destroy (R);
}

/* --- the node's shell ----------------------------------------------------- */

static char cfgpath[PATH_MAX];

static struct rp_config *config (void)
{
    FILE *f = fopen (cfgpath, "w");
    struct rp_config *cfg;

    if (!f
        || fprintf (f, "shell: [{plugin: %s/shell-fixture.so}]\n", fixdir) < 0
        || fclose (f) != 0 || !(cfg = rp_config_load (cfgpath, 0, NULL)))
        BAIL_OUT ("cannot write or load %s", cfgpath);
    return cfg;
}

static char *const job_env[] = { "HOME=/h",  "A=1", "BAD=\xff",
                                 "NOEQUALS", "=x",  NULL };
static char *const job_argv[] = { "app", "-x", NULL };
static const unsigned long job_ids[] = { 4, 5 };

/* A step of 2 tasks (ids 4 and 5 of 8) on node 1 of lassen, cores 0-3,
 * GPUs gpus, options opts. */
static struct slurm_node *node_of (hwloc_topology_t topo,
                                   const struct rp_config *cfg,
                                   const char *cores, const char *gpus,
                                   const char *opts, rp_error_t *e)
{
    json_t *o =
        opts ? slurm_options_parse ("--respol", opts, NULL) : json_object ();
    struct slurm_step st = {
        .hostname = "lassen1",
        .nodeid = 1,
        .cores = cores,
        .gpus = gpus,
        .ntasks = 2,
        .ntasks_total = 8,
        .ids = job_ids,
        .argv = job_argv,
        .env = job_env,
        .options = o,
    };
    struct slurm_node *node;

    if (!o)
        BAIL_OUT ("options '%s'", opts);
    node = slurm_node_create (&st, topo, cfg, e);
    json_decref (o);
    return node;
}

static void test_node (void)
{
    hwloc_topology_t topo = load ("coral-lassen.xml");
    struct rp_config *cfg = config ();
    rp_error_t e;
    struct slurm_node *node =
        node_of (topo, cfg, "0-3", "0,1", "fixture-env=X=y", &e);
    struct rp_shell *sh = slurm_node_shell (node);
    struct rp_task *t = rp_shell_task (sh, 1);

    if (!ok (node != NULL, "a node of 2 tasks on lassen"))
        BAIL_OUT ("%s", e.text);
    ok (rp_shell_ntasks (sh) == 2 && rp_shell_ntasks_total (sh) == 8
            && rp_shell_rank (sh) == 1,
        "2 tasks here of 8, node 1");
    is (rp_rset_hostname (rp_shell_R (sh), 1), "lassen1", "its host");
    is (enc (rp_shell_gpus (sh)), "0-1", "the step's GPUs");
    ok (rp_task_global_id (t) == 5 && rp_task_local_id (t) == 1,
        "local task 1 is Slurm's task 5");
    is (enc (rp_task_share_cores (t)), "2-3", "its share of the cores");
    is (enc (rp_task_share_gpus (t)), "1", "its share of the GPUs");
    cmp_ok (rp_shell_gpu_vendor (sh, 1), ==, RP_GPU_NVIDIA,
            "GPU 1 is lassen's NVIDIA GPU");
    is (json_string_value (rp_shell_option (sh, "fixture-env")), "X=y",
        "the options are the shell's");
    is (rp_task_getenv (t, "RESPOL_TASK_RANK"), "5", "RESPOL_TASK_RANK");
    is (rp_task_getenv (t, "RESPOL_JOB_SIZE"), "8", "RESPOL_JOB_SIZE");
    is (rp_task_getenv (t, "RESPOL_SHELL_RANK"), "1", "RESPOL_SHELL_RANK");
    is (rp_task_getenv (t, "HOME"), "/h", "the job's environment");
    ok (!rp_task_getenv (t, "BAD"), "a value JSON cannot hold is left out");
    is (rp_task_getenv (t, "X"), "y", "the plugin set a variable");
    slurm_node_destroy (node);

    node = node_of (topo, cfg, "0-3", NULL, "fixture-share", &e);
    t = rp_shell_task (slurm_node_shell (node), 1);
    is (enc (rp_task_cpus (t)), "16-23",
        "a plugin binds task 1 to its share: cores 2-3, PUs 16-23");
    slurm_node_destroy (node);

    node = node_of (topo, cfg, "0-3", NULL, "fixture-cpus=4-7", &e);
    ok (node == NULL, "CPUs outside the step's cores: refused");
    is (e.text,
        "shell plugin 'shell-fixture': task 4: CPUs 4-7 are not all the "
        "job's on this target (8-23)",
        "message");
    node = node_of (topo, cfg, "0-3", "4", NULL, &e);
    ok (node == NULL, "a GPU the machine lacks: refused");
    is (e.text, "shell: rank 1: GPU 4 of R is not in the topology, which has 4",
        "message");
    node = node_of (topo, cfg, "0-3", "x", NULL, &e);
    ok (node == NULL, "Slurm's GPUs not an idset: refused");
    is (e.text,
        "Slurm's GPUs 'x': idset: \"x\": unexpected character 'x' at offset 0",
        "message");
    node = node_of (topo, cfg, "0-3", NULL, "fixture-fail=task_init", &e);
    ok (node == NULL && errno == EPROTO, "a plugin that fails: EPROTO");
    is (e.text,
        "shell plugin 'shell-fixture': task_init: asked to fail in "
        "task_init",
        "message");
    rp_config_destroy (cfg);
    hwloc_topology_destroy (topo);
}

/* The GPU machine the project captured (t/data/topologies/h200-vm.xml):
 * 16 cores, one NVIDIA GPU that hwloc shows as a PCI device, Slurm's
 * GPU 0 (SLURM_STEP_GPUS=0) shared by the step's two tasks. */
static void test_node_h200 (void)
{
    hwloc_topology_t topo = load ("h200-vm.xml");
    rp_error_t e;
    struct slurm_node *node = node_of (topo, NULL, "0-15", "0", NULL, &e);
    struct rp_shell *sh = slurm_node_shell (node);

    if (!ok (node != NULL, "h200-vm: a node of 2 tasks, 16 cores, GPU 0"))
        BAIL_OUT ("%s", e.text);
    cmp_ok (rp_shell_gpu_vendor (sh, 0), ==, RP_GPU_NVIDIA,
            "Slurm's GPU 0 is the machine's NVIDIA GPU");
    ok (rp_shell_gpu_busid (sh, 0) != NULL, "with its PCI bus id (%s)",
        rp_shell_gpu_busid (sh, 0));
    is (enc (rp_task_share_cores (rp_shell_task (sh, 1))), "8-15",
        "task 1's share: cores 8-15");
    is (enc (rp_task_share_gpus (rp_shell_task (sh, 1))), "0",
        "one GPU for two tasks: both share GPU 0");
    slurm_node_destroy (node);
    node = node_of (topo, NULL, "0-15", "1", NULL, &e);
    ok (node == NULL, "Slurm's GPU 1 on a machine of one: refused");
    is (e.text, "shell: rank 1: GPU 1 of R is not in the topology, which has 1",
        "message");
    hwloc_topology_destroy (topo);
}

/* --- the environment ------------------------------------------------------ */

static char calls[1024];

static int record_set (const char *name, const char *value, void *arg)
{
    (void)arg;
    if (!strcmp (name, "FAIL"))
        return -1;
    snprintf (calls + strlen (calls), sizeof (calls) - strlen (calls),
              "set %s=%s;", name, value);
    return 0;
}

static int record_unset (const char *name, void *arg)
{
    (void)arg;
    snprintf (calls + strlen (calls), sizeof (calls) - strlen (calls),
              "unset %s;", name);
    return 0;
}

static void test_env (void)
{
    hwloc_topology_t topo = load ("coral-lassen.xml");
    struct rp_config *cfg = config ();
    rp_error_t e;
    struct slurm_node *node =
        node_of (topo, cfg, "0-3", NULL, "fixture-env=HOME=/other", &e);
    struct rp_task *t = rp_shell_task (slurm_node_shell (node), 0);

    if (!node)
        BAIL_OUT ("%s", e.text);
    rp_task_unsetenv (t, "A");
    calls[0] = '\0';
    ok (slurm_env_apply (node, t, record_set, record_unset, NULL, &e) == 0,
        "the environment given back");
    is (calls,
        "set HOME=/other;set RESPOL_TASK_RANK=4;set RESPOL_TASK_LOCAL_ID=0;"
        "set RESPOL_JOB_SIZE=8;set RESPOL_SHELL_RANK=1;unset A;",
        "what changed is set, what went is unset, the rest (BAD) untouched");
    rp_task_setenv (t, "FAIL", "1");
    ok (slurm_env_apply (node, t, record_set, record_unset, NULL, &e) < 0,
        "a variable Slurm refuses: an error");
    is (e.text, "cannot set FAIL in the task's environment", "message");
    slurm_node_destroy (node);
    rp_config_destroy (cfg);
    hwloc_topology_destroy (topo);
}

int main (void)
{
    plan (NO_PLAN);
    fixtures_setup ("respol-test-slurm");
    snprintf (cfgpath, sizeof (cfgpath), "%s/respol.yaml", tmpdir);
    test_options ();
    test_verbose ();
    test_cores ();
    test_shares ();
    test_shares_layout ("0-7", 2, 4);
    test_shares_layout ("0-6", 3, 2);
    test_shares_layout ("0-9", 4, 2);
    test_shares_layout ("2-5,8-11", 3, 2);
    test_node ();
    test_node_h200 ();
    test_env ();
    fixtures_cleanup ();
    return done_testing ();
}
