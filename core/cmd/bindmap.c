/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The binding map of a job shell (bindmap.h): JSON, a table, an SVG.
 *
 * The SVG is hwloc's own drawing: lstopo (lstopo-no-graphics, Debian
 * package hwloc) draws an XML export of the machine in which each task's
 * PUs, cores and GPUs carry an "lstopoStyle" info attribute (hwloc's
 * per-object style: Background=#rrggbb;Text=#rrggbb), with one legend
 * line per task naming its colour.
 */
#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <respol/idset.h>
#include <respol/layout.h>
#include <respol/rset.h>
#include <respol/taskmap.h>

#include "bindmap.h"
#include "cmd.h"

extern char **environ;

static void nomem (void)
{
    cmd_die ("run", "out of memory");
}

static json_t *idset_json (const struct rp_idset *s)
{
    char *str = s ? rp_idset_encode (s, RP_IDSET_RANGES) : strdup ("");
    json_t *o;

    if (!str || !(o = json_string (str)))
        nomem ();
    free (str);
    return o;
}

static void set_new (json_t *o, const char *key, json_t *v)
{
    if (!v || json_object_set_new (o, key, v) < 0)
        nomem ();
}

static struct rp_idset *idset_new (void)
{
    struct rp_idset *s = rp_idset_create ();
    if (!s)
        nomem ();
    return s;
}

static void idset_add (struct rp_idset *s, int id)
{
    if (id >= 0 && rp_idset_add (s, (unsigned int)id) < 0)
        nomem ();
}

static const char *vendor_name (int vendor)
{
    switch (vendor) {
    case RP_GPU_NVIDIA:
        return "nvidia";
    case RP_GPU_AMD:
        return "amd";
    case RP_GPU_INTEL:
        return "intel";
    default:
        return "unknown";
    }
}

static json_t *nullable_string (const char *s)
{
    return s ? json_string (s) : json_null ();
}

static json_t *gpu_json (const struct rp_shell *sh, unsigned int g)
{
    json_t *o = json_object ();

    if (!o)
        nomem ();
    set_new (o, "id", json_integer (g));
    set_new (o, "name", nullable_string (rp_shell_gpu_name (sh, g)));
    set_new (o, "busid", nullable_string (rp_shell_gpu_busid (sh, g)));
    set_new (o, "numa", json_integer (rp_shell_gpu_numa (sh, g)));
    set_new (o, "vendor",
             json_string (vendor_name (rp_shell_gpu_vendor (sh, g))));
    set_new (o, "index", json_integer (rp_shell_gpu_index (sh, g)));
    return o;
}

/* The plugin-set variables of t. */
static json_t *env_json (struct rp_task *t)
{
    char *const *envp = rp_task_envp (t);
    json_t *o = json_object ();

    if (!o || !envp)
        nomem ();
    for (size_t i = 0; envp[i]; i++) {
        const char *eq = strchr (envp[i], '=');
        char name[256];
        const char *by;
        json_t *v;
        if (!eq || (size_t)(eq - envp[i]) >= sizeof (name))
            continue;
        memcpy (name, envp[i], (size_t)(eq - envp[i]));
        name[eq - envp[i]] = '\0';
        if (!(by = rp_task_env_by (t, name)))
            continue;
        if (!(v = json_pack ("{s:s s:s}", "value", eq + 1, "by", by)))
            nomem ();
        set_new (o, name, v);
    }
    return o;
}

static const char *mem_policy_name (int policy)
{
    return policy == RP_MEM_BIND        ? "bind"
           : policy == RP_MEM_PREFERRED ? "preferred"
                                        : "default";
}

static json_t *task_json (struct rp_shell *sh, struct rp_task *t)
{
    const struct rp_idset *cpus = rp_task_cpus (t);
    const struct rp_idset *gpus = rp_task_gpus (t);
    const struct rp_idset *all = rp_shell_cores (sh);
    struct rp_idset *cores = idset_new ();
    struct rp_idset *numa = idset_new ();
    struct rp_idset *pkgs = idset_new ();
    json_t *o = json_object (), *list = json_array (), *mem;
    unsigned int c, g;

    if (!o || !list)
        nomem ();
    if (!cpus)
        cpus = rp_shell_cpus (sh);
    for (c = rp_idset_first (all); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (all, c)) {
        const struct rp_idset *pus = rp_shell_core_cpus (sh, c);
        if (pus && rp_idset_intersects (pus, cpus)) {
            idset_add (cores, (int)c);
            idset_add (numa, rp_shell_core_numa (sh, c));
            idset_add (pkgs, rp_shell_core_package (sh, c));
        }
    }
    if (!gpus)
        gpus = rp_shell_gpus (sh);
    for (g = rp_idset_first (gpus); g != RP_IDSET_INVALID_ID;
         g = rp_idset_next (gpus, g))
        if (json_array_append_new (list, gpu_json (sh, g)) < 0)
            nomem ();
    set_new (o, "id", json_integer ((json_int_t)rp_task_global_id (t)));
    set_new (o, "local_id", json_integer (rp_task_local_id (t)));
    set_new (o, "rank", json_integer (rp_shell_rank (sh)));
    set_new (o, "bound", json_boolean (rp_task_cpus (t) != NULL));
    set_new (o, "cpus", idset_json (cpus));
    set_new (o, "cores", idset_json (cores));
    set_new (o, "numa", idset_json (numa));
    set_new (o, "packages", idset_json (pkgs));
    set_new (o, "gpus", list);
    set_new (o, "gpus_bound", json_boolean (rp_task_gpus (t) != NULL));
    if (!(mem = json_pack ("{s:s}", "policy",
                           mem_policy_name (rp_task_mem_policy (t)))))
        nomem ();
    set_new (mem, "numa", idset_json (rp_task_mems (t)));
    set_new (o, "mem", mem);
    set_new (o, "env", env_json (t));
    rp_idset_destroy (cores);
    rp_idset_destroy (numa);
    rp_idset_destroy (pkgs);
    return o;
}

json_t *bindmap_json (struct rp_shell *sh)
{
    const struct rp_layout *layout = rp_shell_layout (sh);
    const char *host = rp_rset_hostname (rp_shell_R (sh), rp_shell_rank (sh));
    json_t *o = json_object (), *tasks = json_array ();

    if (!o || !tasks)
        nomem ();
    set_new (o, "host", nullable_string (host));
    set_new (o, "rank", json_integer (rp_shell_rank (sh)));
    set_new (o, "ntasks", json_integer ((json_int_t)rp_shell_ntasks_total (sh)));
    if (layout)
        set_new (o, "taskmap",
                 rp_taskmap_to_json (rp_layout_taskmap (layout), 0));
    set_new (o, "cpus", idset_json (rp_shell_cpus (sh)));
    set_new (o, "cores", idset_json (rp_shell_cores (sh)));
    set_new (o, "gpus", idset_json (rp_shell_gpus (sh)));
    set_new (o, "numa", idset_json (rp_shell_numas (sh)));
    for (size_t i = 0; i < rp_shell_ntasks (sh); i++)
        if (json_array_append_new (tasks, task_json (sh, rp_shell_task (sh, i)))
            < 0)
            nomem ();
    set_new (o, "tasks", tasks);
    return o;
}

/* --- the table ------------------------------------------------------------ */

static const char *str (const json_t *o, const char *key)
{
    const char *s = json_string_value (json_object_get (o, key));
    return s && *s ? s : "-";
}

/* "0 (cuda0, 0000:3b:00.0, NUMA 0); 1 (...)" or "-". */
static void gpus_text (const json_t *gpus, bool bound, char *buf, size_t size)
{
    size_t n = 0, i;
    json_t *g;

    buf[0] = '\0';
    if (json_array_size (gpus) == 0) {
        snprintf (buf, size, "-");
        return;
    }
    json_array_foreach (gpus, i, g) {
        const char *name = json_string_value (json_object_get (g, "name"));
        const char *busid = json_string_value (json_object_get (g, "busid"));
        json_int_t numa = json_integer_value (json_object_get (g, "numa"));
        char numabuf[32] = "";
        if (numa >= 0)
            snprintf (numabuf, sizeof (numabuf), ", NUMA %lld",
                      (long long)numa);
        if (n < size)
            n += (size_t)snprintf (
                buf + n, size - n, "%s%lld (%s%s%s%s)", i ? "; " : "",
                (long long)json_integer_value (json_object_get (g, "id")),
                name ? name : "", name && busid ? ", " : "",
                busid ? busid : "", numabuf);
    }
    if (!bound && n < size)
        snprintf (buf + n, size - n, " [all, not chosen]");
}

enum { COL_TASK, COL_PUS, COL_CORES, COL_NUMA, COL_PKG, COL_GPUS, NCOLS };

static void row_cells (const json_t *t, char cells[NCOLS][1024])
{
    snprintf (cells[COL_TASK], 1024, "%lld",
              (long long)json_integer_value (json_object_get (t, "id")));
    snprintf (cells[COL_PUS], 1024, "%s%s", str (t, "cpus"),
              json_is_true (json_object_get (t, "bound")) ? "" : " (unbound)");
    snprintf (cells[COL_CORES], 1024, "%s", str (t, "cores"));
    snprintf (cells[COL_NUMA], 1024, "%s", str (t, "numa"));
    snprintf (cells[COL_PKG], 1024, "%s", str (t, "packages"));
    gpus_text (json_object_get (t, "gpus"),
               json_is_true (json_object_get (t, "gpus_bound")),
               cells[COL_GPUS], 1024);
}

static void print_row (FILE *f, const char *const *cells, const size_t *width)
{
    for (int c = 0; c < NCOLS - 1; c++)
        fprintf (f, "%-*s  ", (int)width[c], cells[c]);
    fprintf (f, "%s\n", cells[NCOLS - 1]);
}

void bindmap_print_table (FILE *f, const json_t *map)
{
    static const char *heads[NCOLS] = { "TASK", "PUS",     "CORES",
                                        "NUMA", "PACKAGE", "GPUS" };
    const json_t *tasks = json_object_get (map, "tasks");
    size_t width[NCOLS], i;
    char cells[NCOLS][1024];
    json_t *t;

    fprintf (f, "host %s (rank %lld): %zu of %lld tasks; the job holds PUs "
                "%s, cores %s, GPUs %s\n",
             str (map, "host"),
             (long long)json_integer_value (json_object_get (map, "rank")),
             json_array_size (tasks),
             (long long)json_integer_value (json_object_get (map, "ntasks")),
             str (map, "cpus"), str (map, "cores"), str (map, "gpus"));
    for (int c = 0; c < NCOLS; c++)
        width[c] = strlen (heads[c]);
    json_array_foreach (tasks, i, t) {
        row_cells (t, cells);
        for (int c = 0; c < NCOLS; c++)
            if (strlen (cells[c]) > width[c])
                width[c] = strlen (cells[c]);
    }
    print_row (f, heads, width);
    json_array_foreach (tasks, i, t) {
        row_cells (t, cells);
        const char *row[NCOLS];
        for (int c = 0; c < NCOLS; c++)
            row[c] = cells[c];
        print_row (f, row, width);
    }
    json_array_foreach (tasks, i, t) {
        const json_t *mem = json_object_get (t, "mem");
        const json_t *env = json_object_get (t, "env");
        const char *policy = json_string_value (json_object_get (mem, "policy"));
        const char *key;
        json_t *v;
        long long id = (long long)json_integer_value (json_object_get (t, "id"));
        if (policy && strcmp (policy, "default") != 0)
            fprintf (f, "task %lld: memory %s to NUMA %s\n", id, policy,
                     str (mem, "numa"));
        json_object_foreach ((json_t *)env, key, v)
            fprintf (f, "task %lld: %s=%s (%s)\n", id, key,
                     json_string_value (json_object_get (v, "value")),
                     json_string_value (json_object_get (v, "by")));
    }
}

/* --- the drawing ------------------------------------------------------------ */

static const struct {
    const char *name, *rgb;
} palette[] = {
    { "red", "#e6194b" },   { "blue", "#4363d8" },   { "green", "#3cb44b" },
    { "orange", "#f58231" }, { "purple", "#911eb4" }, { "cyan", "#42d4f4" },
    { "magenta", "#f032e6" }, { "lime", "#bfef45" },  { "teal", "#469990" },
    { "brown", "#9a6324" },  { "navy", "#000075" },   { "olive", "#808000" },
};
#define NCOLOURS (sizeof (palette) / sizeof (palette[0]))

static int style (hwloc_obj_t o, const char *rgb)
{
    char value[96];

    if (!o)
        return 0;
    snprintf (value, sizeof (value), "Background=%s;Text=#ffffff", rgb);
    return hwloc_obj_add_info (o, "lstopoStyle", value);
}

static hwloc_obj_type_t core_type (hwloc_topology_t topo)
{
    return hwloc_get_nbobjs_by_type (topo, HWLOC_OBJ_CORE) > 0
               ? HWLOC_OBJ_CORE
               : HWLOC_OBJ_PU;
}

/* Colour the task's PUs, cores and GPUs. */
static int colour_task (hwloc_topology_t topo, const json_t *t,
                        const char *rgb)
{
    struct rp_idset *cpus, *cores;
    const char *ct = json_string_value (json_object_get (t, "cores"));
    unsigned int i;
    size_t k;
    json_t *g;
    int rc = 0;

    if (!(cpus = rp_idset_decode (str (t, "cpus"), NULL)))
        return -1;
    if (!(cores = rp_idset_decode (ct ? ct : "", NULL))) {
        rp_idset_destroy (cpus);
        return -1;
    }
    for (i = rp_idset_first (cpus); i != RP_IDSET_INVALID_ID && rc == 0;
         i = rp_idset_next (cpus, i))
        rc = style (hwloc_get_pu_obj_by_os_index (topo, i), rgb);
    for (i = rp_idset_first (cores); i != RP_IDSET_INVALID_ID && rc == 0;
         i = rp_idset_next (cores, i))
        rc = style (hwloc_get_obj_by_type (topo, core_type (topo), i), rgb);
    json_array_foreach (json_object_get (t, "gpus"), k, g) {
        const char *busid = json_string_value (json_object_get (g, "busid"));
        hwloc_obj_t pci =
            busid ? hwloc_get_pcidev_by_busidstring (topo, busid) : NULL;
        if (rc == 0 && pci) {
            rc = style (pci, rgb);
            for (hwloc_obj_t c = pci->io_first_child; c && rc == 0;
                 c = c->next_sibling)
                rc = style (c, rgb);
        }
    }
    rp_idset_destroy (cpus);
    rp_idset_destroy (cores);
    return rc;
}

/* lstopo-no-graphics, else lstopo, from PATH. */
static const char *find_lstopo (void)
{
    static const char *names[] = { "lstopo-no-graphics", "lstopo", NULL };
    const char *path = getenv ("PATH");

    for (size_t i = 0; names[i]; i++) {
        const char *p = path ? path : "/usr/bin:/bin";
        while (*p) {
            const char *end = strchr (p, ':');
            size_t len = end ? (size_t)(end - p) : strlen (p);
            char full[4096];
            snprintf (full, sizeof (full), "%.*s/%s", (int)len,
                      len ? p : ".", names[i]);
            if (access (full, X_OK) == 0)
                return names[i];
            p += len + (end ? 1 : 0);
        }
    }
    return NULL;
}

static int draw (const char *sub, const char *lstopo, const char *xml,
                 const json_t *map, const char *path)
{
    const json_t *tasks = json_object_get (map, "tasks");
    size_t ntasks = json_array_size (tasks), n = 0, i;
    char **argv = calloc (2 * ntasks + 16, sizeof (char *));
    char **legends = calloc (ntasks + 1, sizeof (char *));
    json_t *t;
    pid_t pid;
    int status, rc = -1, err;

    if (!argv || !legends)
        nomem ();
    argv[n++] = (char *)lstopo;
    argv[n++] = "--if";
    argv[n++] = "xml";
    argv[n++] = "-i";
    argv[n++] = (char *)xml;
    argv[n++] = "--of";
    argv[n++] = "svg";
    argv[n++] = "-f";
    argv[n++] = "--no-factorize";
    argv[n++] = "--no-collapse";
    json_array_foreach (tasks, i, t) {
        const json_t *gpus = json_object_get (t, "gpus");
        char ids[512] = "none";
        size_t m = 0, k;
        json_t *g;
        json_array_foreach (gpus, k, g)
            if (m < sizeof (ids))
                m += (size_t)snprintf (
                    ids + m, sizeof (ids) - m, "%s%lld", k ? "," : "",
                    (long long)json_integer_value (json_object_get (g, "id")));
        if (asprintf (&legends[i], "task %lld: %s, PUs %s, GPUs %s",
                      (long long)json_integer_value (json_object_get (t, "id")),
                      json_is_true (json_object_get (t, "bound"))
                          ? palette[i % NCOLOURS].name
                          : "grey (unbound)",
                      str (t, "cpus"), ids)
            < 0)
            nomem ();
        argv[n++] = "--append-legend";
        argv[n++] = legends[i];
    }
    argv[n++] = (char *)path;
    argv[n] = NULL;
    fflush (stdout);
    fflush (stderr);
    if ((err = posix_spawnp (&pid, lstopo, NULL, NULL, argv, environ)) != 0)
        cmd_warn (sub, "--svg: %s: %s", lstopo, strerror (err));
    else if (waitpid (pid, &status, 0) < 0)
        cmd_warn (sub, "--svg: waitpid: %s", strerror (errno));
    else if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        cmd_warn (sub, "--svg: %s failed to draw %s", lstopo, path);
    else
        rc = 0;
    for (i = 0; i < ntasks; i++)
        free (legends[i]);
    free (legends);
    free (argv);
    return rc;
}

int bindmap_svg (const char *sub, const json_t *map, hwloc_topology_t topo,
                 const char *path)
{
    const json_t *tasks = json_object_get (map, "tasks");
    const char *lstopo = find_lstopo ();
    const char *tmpdir = getenv ("TMPDIR");
    hwloc_topology_t copy;
    char xml[4096];
    json_t *t;
    size_t i;
    int fd, rc = -1;

    if (!lstopo) {
        cmd_warn (sub, "--svg: lstopo-no-graphics is not in PATH (Debian "
                       "package hwloc)");
        return -1;
    }
    if (hwloc_topology_dup (&copy, topo) < 0) {
        cmd_warn (sub, "--svg: cannot copy the topology: %s",
                  strerror (errno));
        return -1;
    }
    json_array_foreach (tasks, i, t) {
        const char *rgb = json_is_true (json_object_get (t, "bound"))
                              ? palette[i % NCOLOURS].rgb
                              : "#a0a0a0";
        if (colour_task (copy, t, rgb) < 0) {
            cmd_warn (sub, "--svg: out of memory");
            hwloc_topology_destroy (copy);
            return -1;
        }
    }
    snprintf (xml, sizeof (xml), "%s/respol-bindmap-XXXXXX.xml",
              tmpdir && *tmpdir ? tmpdir : "/tmp");
    if ((fd = mkstemps (xml, 4)) < 0)
        cmd_warn (sub, "--svg: %s: %s", xml, strerror (errno));
    else {
        close (fd);
        if (hwloc_topology_export_xml (copy, xml, 0) < 0)
            cmd_warn (sub, "--svg: cannot write the topology to %s: %s", xml,
                      strerror (errno));
        else
            rc = draw (sub, lstopo, xml, map, path);
        unlink (xml);
    }
    hwloc_topology_destroy (copy);
    return rc;
}
