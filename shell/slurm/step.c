/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* One node's part of a Slurm job step, run by respol's job shell; the
 * rules (the option's syntax, R from Slurm's ids, the tasks' shares, the
 * environment) are in shell/slurm/step.h.
 *
 * The option is read entry by entry: a key, then '=' and a value whose
 * end is the first comma that starts another entry (a key then '=', ','
 * or the end), or an empty one (an error), after any bracketed or quoted
 * JSON at its start.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/idset.h>
#include <respol/jobspec.h>
#include <respol/rset.h>
#include <respol/shell.h>

#include "shell/slurm/step.h"

/* --- the option ----------------------------------------------------------- */

static bool key_char (char c)
{
    return isalnum ((unsigned char)c) || c == '-' || c == '_' || c == '.';
}

/* The end of the key at s (s itself when none starts there). */
static const char *key_end (const char *s)
{
    if (!isalpha ((unsigned char)*s))
        return s;
    while (key_char (*s))
        s++;
    return s;
}

/* Whether s, just after a comma, starts another entry or an empty one. */
static bool entry_starts (const char *s)
{
    const char *k = key_end (s);

    if (*s == ',' || *s == '\0')
        return true;
    return k != s && (*k == '=' || *k == ',' || *k == '\0');
}

/* Past the bracketed or quoted JSON at the start of v (v itself when it
 * starts with neither); an unclosed one runs to the end.  A quoted
 * string counts as one more level while it lasts. */
static const char *json_end (const char *v)
{
    int depth = 0;
    bool quoted = false;
    const char *s;

    if (*v != '[' && *v != '{' && *v != '"')
        return v;
    for (s = v; *s; s++) {
        if (quoted && *s == '\\' && s[1])
            s++;
        else if (*s == '"')
            depth += (quoted = !quoted) ? 1 : -1;
        else if (!quoted && (*s == '[' || *s == '{'))
            depth++;
        else if (!quoted && (*s == ']' || *s == '}'))
            depth--;
        if (depth == 0)
            return s + 1;
    }
    return s;
}

/* The end of the value at v: the comma that ends its entry, or the end. */
static const char *value_end (const char *v)
{
    const char *s = json_end (v);

    for (; *s; s++)
        if (*s == ',' && entry_starts (s + 1))
            return s;
    return s;
}

/* VALUE as JSON if it parses, else as a string; NULL: not UTF-8. */
static json_t *parse_value (const char *v, size_t len)
{
    char *text = strndup (v, len);
    json_t *o = NULL;

    if (text && !(o = json_loads (text, JSON_DECODE_ANY, NULL)))
        o = json_string (text);
    free (text);
    return o;
}

/* Set the dotted key below root to value (stolen). */
static int set_path (const char *what, json_t *root, char *key, json_t *value,
                     rp_error_t *error)
{
    char *name = key, *dot;
    json_t *child;

    for (; (dot = strchr (name, '.')); name = dot + 1, root = child) {
        *dot = '\0';
        if (!*name
            || (!(child = json_object_get (root, name))
                && json_object_set_new (root, name, child = json_object ())
                       < 0))
            goto invalid;
        if (!json_is_object (child)) {
            json_decref (value);
            return rp_error_set (error, EINVAL, "%s: '%s' is not an object",
                                 what, key);
        }
        *dot = '.';
    }
    if (!*name)
        goto invalid;
    if (json_object_set_new (root, name, value) < 0)
        return rp_error_set (error, ENOMEM, "%s: out of memory", what);
    return 0;
invalid:
    if (dot)
        *dot = '.';
    json_decref (value);
    return rp_error_set (error, EINVAL, "%s: invalid key '%s'", what, key);
}

/* Read the entry at s into o: the end of the entry, or NULL with error. */
static const char *parse_entry (const char *what, const char *s, json_t *o,
                                rp_error_t *error)
{
    const char *k = key_end (s), *end;
    json_t *value;
    char *key;
    int rc;

    if (*s == ',' || *s == '\0') {
        rp_error_set (error, EINVAL,
                      "%s: an empty entry (two commas, or one at either end)",
                      what);
        return NULL;
    }
    if (k == s || (*k != '=' && *k != ',' && *k != '\0')) {
        rp_error_set (error, EINVAL,
                      "%s: '%.*s' is not KEY[=VALUE] (a key is a letter, then "
                      "letters, digits, '-', '_' or '.')",
                      what, (int)strcspn (s, ","), s);
        return NULL;
    }
    end = *k == '=' ? value_end (k + 1) : k;
    value = *k == '=' ? parse_value (k + 1, (size_t)(end - k - 1))
                      : json_integer (1);
    if (!value) {
        rp_error_set (error, EINVAL, "%s: %.*s: the value is not valid UTF-8",
                      what, (int)(k - s), s);
        return NULL;
    }
    if (!(key = strndup (s, (size_t)(k - s)))) {
        json_decref (value);
        rp_error_set (error, ENOMEM, "%s: out of memory", what);
        return NULL;
    }
    rc = set_path (what, o, key, value, error);
    free (key);
    return rc < 0 ? NULL : end;
}

static int check_verbose (const char *what, const json_t *o, rp_error_t *error)
{
    const json_t *v = json_object_get (o, "verbose");

    if (!v || json_is_boolean (v)
        || (json_is_integer (v) && json_integer_value (v) >= 0))
        return 0;
    return rp_error_set (error, EINVAL,
                         "%s: verbose: 0, 1, 2 or false (verbose alone is 1)",
                         what);
}

json_t *slurm_options_parse (const char *what, const char *arg,
                             rp_error_t *error)
{
    json_t *o;
    const char *s = arg;

    if (!arg || !*arg) {
        rp_error_set (error, EINVAL, "%s: no option given (KEY[=VALUE],...)",
                      what);
        return NULL;
    }
    if (strlen (arg) > SLURM_OPTIONS_MAX) {
        rp_error_set (error, EINVAL, "%s: longer than %d bytes", what,
                      SLURM_OPTIONS_MAX);
        return NULL;
    }
    if (!(o = json_object ())) {
        rp_error_set (error, ENOMEM, "%s: out of memory", what);
        return NULL;
    }
    while ((s = parse_entry (what, s, o, error)) && *s)
        s++;
    if (!s || check_verbose (what, o, error) < 0) {
        json_decref (o);
        return NULL;
    }
    return o;
}

int slurm_options_verbose (const json_t *options)
{
    const json_t *v = json_object_get (options, "verbose");

    if (json_is_integer (v))
        return json_integer_value (v) > 2 ? 2 : (int)json_integer_value (v);
    return json_is_true (v) ? 1 : 0;
}

/* --- R -------------------------------------------------------------------- */

/* map[k]: the logical index of Slurm's core k, for k < the count
 * returned (-1 with errno ENOMEM).  Packages in order, the cores of each
 * in order; cores under no package after them (hwloc shows none on
 * Linux). */
static int core_map (hwloc_topology_t topo, hwloc_obj_type_t type,
                     unsigned int **mapp)
{
    int n = hwloc_get_nbobjs_by_type (topo, type), k = 0;
    unsigned int *map = calloc ((size_t)n + 1, sizeof (*map));
    char *seen = calloc ((size_t)n + 1, 1);
    hwloc_obj_t pkg = NULL, c;

    if (!map || !seen) {
        free (map);
        free (seen);
        errno = ENOMEM;
        return -1;
    }
    while ((pkg = hwloc_get_next_obj_by_type (topo, HWLOC_OBJ_PACKAGE, pkg)))
        for (c = NULL; (c = hwloc_get_next_obj_inside_cpuset_by_type (
                            topo, pkg->cpuset, type, c));)
            if (!seen[c->logical_index] && k < n) {
                seen[c->logical_index] = 1;
                map[k++] = c->logical_index;
            }
    for (int i = 0; i < n; i++)
        if (!seen[i])
            map[k++] = (unsigned int)i;
    free (seen);
    *mapp = map;
    return n;
}

/* Add map[k] to out for every id k of in: -1 with error for an id of n
 * or more. */
static int map_ids (const struct rp_idset *in, const unsigned int *map, int n,
                    struct rp_idset *out, rp_error_t *error)
{
    for (unsigned int k = rp_idset_first (in); k != RP_IDSET_INVALID_ID;
         k = rp_idset_next (in, k)) {
        if (k >= (unsigned int)n)
            return rp_error_set (error, EINVAL,
                                 "Slurm's core %u is not a core of this "
                                 "machine, which has %d (slurm.conf's node "
                                 "line must be what slurmd -C prints)",
                                 k, n);
        if (rp_idset_add (out, map[k]) < 0)
            return rp_error_set (error, ENOMEM, "out of memory");
    }
    return 0;
}

struct rp_idset *slurm_cores (const char *ids, hwloc_topology_t topo,
                              rp_error_t *error)
{
    hwloc_obj_type_t type = hwloc_get_nbobjs_by_type (topo, HWLOC_OBJ_CORE) > 0
                                ? HWLOC_OBJ_CORE
                                : HWLOC_OBJ_PU;
    struct rp_idset *in, *out = NULL;
    unsigned int *map = NULL;
    rp_error_t e;
    int n;

    if (!(in = rp_idset_decode (ids ? ids : "", &e))) {
        rp_error_set (error, EINVAL, "Slurm's cores '%s': %s", ids ? ids : "",
                      e.text);
        return NULL;
    }
    if (rp_idset_empty (in)) {
        rp_error_set (error, EINVAL, "Slurm gave the step no core here");
        goto done;
    }
    if ((n = core_map (topo, type, &map)) < 0 || !(out = rp_idset_create ())) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto done;
    }
    if (map_ids (in, map, n, out, error) < 0) {
        rp_idset_destroy (out);
        out = NULL;
    }
done:
    free (map);
    rp_idset_destroy (in);
    return out;
}

/* The n pieces of m: piece j is the [start, start + len) of m items,
 * contiguous, as even as possible, earlier pieces one more. */
static void piece (unsigned int m, unsigned int n, unsigned int j,
                   unsigned int *start, unsigned int *len)
{
    unsigned int base = m / n, extra = m % n;

    *start = j * base + (j < extra ? j : extra);
    *len = base + (j < extra ? 1 : 0);
}

struct rp_idset *slurm_share (const struct rp_idset *ids, unsigned int n,
                              unsigned int i)
{
    unsigned int m = (unsigned int)rp_idset_count (ids), start, len, j, id;
    struct rp_idset *share = rp_idset_create ();

    if (!share || m == 0 || n == 0)
        return share;
    if (m >= n)
        piece (m, n, i, &start, &len);
    else { /* the tasks in m pieces: which one holds task i */
        for (j = 0; j < m; j++) {
            piece (n, m, j, &start, &len);
            if (i < start + len)
                break;
        }
        start = j;
        len = 1;
    }
    for (j = 0, id = rp_idset_first (ids); id != RP_IDSET_INVALID_ID;
         j++, id = rp_idset_next (ids, id))
        if (j >= start && j < start + len && rp_idset_add (share, id) < 0) {
            rp_idset_destroy (share);
            return NULL;
        }
    return share;
}

/* --- the jobspec ---------------------------------------------------------- */

/* The job's environment: every NAME=VALUE that JSON can hold. */
static json_t *env_object (char *const *env)
{
    json_t *o = json_object ();

    for (size_t i = 0; o && env && env[i]; i++) {
        const char *eq = strchr (env[i], '=');
        char *name =
            eq && eq != env[i] ? strndup (env[i], (size_t)(eq - env[i])) : NULL;
        json_t *v = name ? json_string (eq + 1) : NULL;
        if (v && !json_object_get (o, name))
            json_object_set_new (o, name, v);
        else
            json_decref (v);
        free (name);
    }
    return o;
}

/* The command, its words that JSON can hold; "-" when it has none. */
static json_t *command_array (char *const *argv)
{
    json_t *a = json_array ();

    for (size_t i = 0; a && argv && argv[i]; i++)
        json_array_append_new (a, json_string (argv[i]));
    if (a && json_array_size (a) == 0)
        json_array_append_new (a, json_string ("-"));
    return a;
}

static struct rp_jobspec *jobspec_of (const struct slurm_step *st,
                                      size_t ncores, size_t ngpus,
                                      rp_error_t *error)
{
    size_t cores = ncores / st->ntasks ? ncores / st->ntasks : 1;
    size_t gpus = ngpus / st->ntasks;
    json_t *with =
        json_pack ("[{s:s s:I}]", "type", "core", "count", (json_int_t)cores);
    json_t *root = NULL;
    struct rp_jobspec *js = NULL;
    struct rp_diags *d = rp_diags_create ();

    if (with && gpus)
        json_array_append_new (with, json_pack ("{s:s s:I}", "type", "gpu",
                                                "count", (json_int_t)gpus));
    if (with)
        root =
            json_pack ("{s:i s:[{s:s s:I s:s s:O}] s:[{s:o s:s s:{s:i}}]"
                       " s:{s:{s:i s:o}}}",
                       "version", 1, "resources", "type", "slot", "count",
                       (json_int_t)st->ntasks, "label", "task", "with", with,
                       "tasks", "command", command_array (st->argv), "slot",
                       "task", "count", "per_slot", 1, "attributes", "system",
                       "duration", 0, "environment", env_object (st->env));
    if (!root || !d)
        rp_error_set (error, ENOMEM, "out of memory");
    else if (!(js = rp_jobspec_from_json (root, "the step", RP_JOBSPEC_V1, d)))
        rp_error_set (error, EINVAL, "the step's jobspec: %s",
                      rp_diags_count (d) ? rp_diags_text (d, 0) : "invalid");
    rp_diags_destroy (d);
    json_decref (with);
    json_decref (root);
    return js;
}

/* --- the node ------------------------------------------------------------- */

struct slurm_node {
    struct rp_rset *R;
    struct rp_jobspec *js;
    struct rp_shell *sh;
};

void slurm_node_destroy (struct slurm_node *node)
{
    int saved_errno = errno;

    if (!node)
        return;
    rp_shell_destroy (node->sh);
    rp_jobspec_destroy (node->js);
    rp_rset_destroy (node->R);
    free (node);
    errno = saved_errno;
}

struct rp_shell *slurm_node_shell (const struct slurm_node *node)
{
    return node ? node->sh : NULL;
}

/* R of the node: its cores and GPUs in R's ids. */
static struct rp_rset *R_of (const struct slurm_step *st, hwloc_topology_t topo,
                             rp_error_t *error)
{
    struct rp_idset *cores = slurm_cores (st->cores, topo, error);
    struct rp_idset *gpus = NULL;
    struct rp_rset *R = NULL;
    rp_error_t e;

    if (!cores)
        return NULL;
    if (!(gpus = rp_idset_decode (st->gpus ? st->gpus : "", &e)))
        rp_error_set (error, EINVAL, "Slurm's GPUs '%s': %s", st->gpus, e.text);
    else if (!(R = rp_rset_create ()))
        rp_error_set (error, ENOMEM, "out of memory");
    else if (rp_rset_add_target (R, st->nodeid, st->hostname, cores, gpus,
                                 error)
             < 0) {
        rp_rset_destroy (R);
        R = NULL;
    }
    rp_idset_destroy (cores);
    rp_idset_destroy (gpus);
    return R;
}

/* The local tasks, each with its share, and the options. */
static int add_tasks (struct slurm_node *node, const struct slurm_step *st,
                      rp_error_t *error)
{
    const struct rp_idset *cores = rp_rset_cores (node->R, st->nodeid);
    const struct rp_idset *gpus = rp_rset_gpus (node->R, st->nodeid);
    const char *key;
    json_t *v;

    json_object_foreach ((json_t *)st->options, key, v)
        if (rp_shell_set_option (node->sh, key, json_incref (v), error) < 0)
            return -1;
    if (rp_shell_set_ntasks_total (node->sh, st->ntasks_total, error) < 0)
        return -1;
    for (unsigned int i = 0; i < st->ntasks; i++) {
        struct rp_idset *c = slurm_share (cores, st->ntasks, i);
        struct rp_idset *g = slurm_share (gpus, st->ntasks, i);
        int rc = c && g ? rp_shell_add_task (node->sh, st->ids[i], c, g, error)
                        : rp_error_set (error, ENOMEM, "out of memory");
        rp_idset_destroy (c);
        rp_idset_destroy (g);
        if (rc < 0)
            return -1;
    }
    return 0;
}

struct slurm_node *slurm_node_create (const struct slurm_step *st,
                                      hwloc_topology_t topo,
                                      const struct rp_config *cfg,
                                      rp_error_t *error)
{
    struct slurm_node *node = calloc (1, sizeof (*node));

    if (!node) {
        rp_error_set (error, ENOMEM, "out of memory");
        return NULL;
    }
    if (st->ntasks == 0 || !st->ids) {
        rp_error_set (error, EINVAL, "the step has no task here");
        goto error;
    }
    if (!(node->R = R_of (st, topo, error))
        || !(node->js = jobspec_of (
                 st, rp_idset_count (rp_rset_cores (node->R, st->nodeid)),
                 rp_idset_count (rp_rset_gpus (node->R, st->nodeid)), error))
        || !(node->sh = rp_shell_create (node->R, node->js, st->nodeid, error))
        || rp_shell_set_topology (node->sh, topo, error) < 0
        || add_tasks (node, st, error) < 0
        || rp_shell_init (node->sh, cfg, error) < 0)
        goto error;
    return node;
error:
    slurm_node_destroy (node);
    return NULL;
}

/* --- the environment ------------------------------------------------------ */

int slurm_env_apply (const struct slurm_node *node, struct rp_task *t,
                     slurm_setenv_f set, slurm_unsetenv_f unset, void *arg,
                     rp_error_t *error)
{
    const json_t *job = rp_jobspec_environment (node->js);
    char *const *envp = rp_task_envp (t);
    const char *name;
    json_t *v;

    if (!envp)
        return rp_error_set (error, ENOMEM, "out of memory");
    for (size_t i = 0; envp[i]; i++) {
        const char *eq = strchr (envp[i], '=');
        char *n = eq ? strndup (envp[i], (size_t)(eq - envp[i])) : NULL;
        const char *was =
            n ? json_string_value (json_object_get (job, n)) : NULL;
        int rc = n && (!was || strcmp (was, eq + 1)) ? set (n, eq + 1, arg) : 0;
        if (rc < 0)
            rp_error_set (error, EINVAL,
                          "cannot set %s in the task's environment", n);
        free (n);
        if (rc < 0)
            return -1;
    }
    json_object_foreach ((json_t *)job, name, v)
        if (!rp_task_getenv (t, name) && unset (name, arg) < 0)
            return rp_error_set (error, EINVAL,
                                 "cannot unset %s in the task's environment",
                                 name);
    return 0;
}
