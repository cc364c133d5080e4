/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* What the shipped shell plugins (cpu-affinity, gpu-affinity,
 * mem-affinity, openmp) share: reading their option and their site
 * default, the local tasks grouped by share, and a PU -> core map.
 *
 * A header of static functions rather than a library, as
 * plugins/validate/count.h: a plugin is built from its own sources and
 * respol's headers only, as a site builds its own.
 *
 * The option.  Each plugin reads the shell option named as it is
 * (rp_shell_option (sh, "cpu-affinity")), else the "default" key of its
 * configuration block, else its built-in default (the first of its
 * modes).  A value is a string of comma-separated items: at most one
 * mode, and flags (threads, verbose) where the plugin takes them;
 * "map:LIST" is a mode that runs to the end of the string, since its list
 * holds commas ("verbose,map:0-3;4-7").  A value with flags only keeps
 * the default's mode.  A bare -o KEY (1, or true) is the built-in
 * default; 0 or false is off.  Anything else is refused with the choices:
 *   cpu-affinity: unknown mode 'per_task' (per-task, on, off, map:LIST;
 *   flags threads, verbose)
 *
 * Groups.  Tasks that share a slot have the same share (the layout gives
 * them one slot's cores and GPUs) and are consecutive: a group is a run of
 * consecutive local tasks with equal shares.  A plugin splits a group's
 * share between its tasks.
 */
#ifndef RESPOL_PLUGINS_SHELL_AFFINITY_H
#define RESPOL_PLUGINS_SHELL_AFFINITY_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/idset.h>
#include <respol/plugin.h>
#include <respol/shell.h>

#define AFF_UNUSED __attribute__ ((unused))

enum {
    AFF_THREADS = 1, /* flag: every hardware thread of a core */
    AFF_VERBOSE = 2, /* flag: log each task's decision at notice level */
};

#define AFF_UNSET (-2) /* no mode given */
#define AFF_MAP (-1)   /* map:LIST */
#define AFF_MAP_MAX 65536U

/* What a plugin's option may say. */
struct aff_syntax {
    const char *key;          /* the option's name, e.g. "cpu-affinity" */
    const char *const *modes; /* NULL-terminated; [0] is the default */
    bool map;                 /* map:LIST is a mode */
    bool hex;                 /* a map's entry may be a taskset mask */
    unsigned int flags;       /* the flags it takes (AFF_*) */
};

/* A value read. */
struct aff_opts {
    int mode;           /* index in modes, AFF_MAP, or AFF_UNSET */
    unsigned int flags; /* AFF_* */
    char *map;          /* with AFF_MAP: the LIST (owned) */
};

static AFF_UNUSED void aff_opts_clear (struct aff_opts *o)
{
    free (o->map);
    o->map = NULL;
    o->mode = AFF_UNSET;
    o->flags = 0;
}

/* "per-task, on, off, map:LIST; flags threads, verbose" */
static AFF_UNUSED const char *aff_choices (const struct aff_syntax *s,
                                           char *buf, size_t size)
{
    size_t n = 0;

    buf[0] = '\0';
    for (size_t i = 0; s->modes[i] && n < size; i++)
        n += (size_t)snprintf (buf + n, size - n, "%s%s", i ? ", " : "",
                               s->modes[i]);
    if (s->map && n < size)
        n += (size_t)snprintf (buf + n, size - n, ", map:LIST");
    if (s->flags && n < size)
        snprintf (buf + n, size - n, "; flags%s%s",
                  s->flags & AFF_THREADS ? " threads," : "",
                  s->flags & AFF_VERBOSE ? " verbose" : "");
    n = strlen (buf);
    if (n > 0 && buf[n - 1] == ',')
        buf[n - 1] = '\0';
    return buf;
}

static AFF_UNUSED int aff_mode_index (const struct aff_syntax *s,
                                      const char *word, size_t len)
{
    for (int i = 0; s->modes[i]; i++)
        if (strlen (s->modes[i]) == len
            && strncmp (s->modes[i], word, len) == 0)
            return i;
    return AFF_UNSET;
}

static AFF_UNUSED unsigned int aff_flag (const struct aff_syntax *s,
                                         const char *word, size_t len)
{
    if ((s->flags & AFF_THREADS) && len == 7 && !strncmp (word, "threads", 7))
        return AFF_THREADS;
    if ((s->flags & AFF_VERBOSE) && len == 7 && !strncmp (word, "verbose", 7))
        return AFF_VERBOSE;
    return 0;
}

/* One item of a value (word, of len bytes) into o. */
static AFF_UNUSED int aff_item (struct rp_plugin *p,
                                const struct rp_host_services *svc,
                                const struct aff_syntax *s, const char *prefix,
                                const char *word, size_t len,
                                struct aff_opts *o)
{
    unsigned int flag = aff_flag (s, word, len);
    int mode;
    char choices[128];

    if (flag) {
        o->flags |= flag;
        return 0;
    }
    if ((mode = aff_mode_index (s, word, len)) == AFF_UNSET)
        return svc->error (p, "%s: unknown mode '%.*s' (%s)", prefix,
                           (int)(len > 40 ? 40 : len), word,
                           aff_choices (s, choices, sizeof (choices)));
    if (o->mode != AFF_UNSET)
        return svc->error (p, "%s: two modes, '%s' and '%.*s': give one",
                           prefix,
                           o->mode == AFF_MAP ? "map" : s->modes[o->mode],
                           (int)(len > 40 ? 40 : len), word);
    o->mode = mode;
    return 0;
}

/* The LIST of map:LIST (the rest of the value). */
static AFF_UNUSED int aff_item_map (struct rp_plugin *p,
                                    const struct rp_host_services *svc,
                                    const struct aff_syntax *s,
                                    const char *prefix, const char *list,
                                    struct aff_opts *o)
{
    if (o->mode != AFF_UNSET)
        return svc->error (p, "%s: two modes, '%s' and 'map': give one", prefix,
                           s->modes[o->mode]);
    if (!*list)
        return svc->error (p, "%s: map: empty list", prefix);
    if (!(o->map = strdup (list)))
        return svc->error (p, "out of memory");
    o->mode = AFF_MAP;
    return 0;
}

/* Read the string value v into o (cleared first). */
static AFF_UNUSED int aff_parse_string (struct rp_plugin *p,
                                        const struct rp_host_services *svc,
                                        const struct aff_syntax *s,
                                        const char *prefix, const char *v,
                                        struct aff_opts *o)
{
    const char *item = v;
    char choices[128];

    aff_opts_clear (o);
    if (!*v)
        return svc->error (p, "%s: empty value (%s)", prefix,
                           aff_choices (s, choices, sizeof (choices)));
    for (;;) {
        size_t len = strcspn (item, ",");
        if (s->map && strncmp (item, "map:", 4) == 0)
            return aff_item_map (p, svc, s, prefix, item + 4, o);
        if (len == 0)
            return svc->error (p, "%s: empty item in '%.40s'", prefix, v);
        if (aff_item (p, svc, s, prefix, item, len, o) < 0)
            return -1;
        if (!item[len])
            return 0;
        item += len + 1;
    }
}

/* Read a JSON value (an option, or the configuration's default). */
static AFF_UNUSED int aff_parse (struct rp_plugin *p,
                                 const struct rp_host_services *svc,
                                 const struct aff_syntax *s, const char *prefix,
                                 const json_t *v, struct aff_opts *o)
{
    char choices[128];

    aff_opts_clear (o);
    if (json_is_string (v))
        return aff_parse_string (p, svc, s, prefix, json_string_value (v), o);
    if (json_is_true (v)
        || (json_is_integer (v) && json_integer_value (v) == 1))
        o->mode = 0;
    else if (json_is_false (v)
             || (json_is_integer (v) && json_integer_value (v) == 0))
        o->mode = aff_mode_index (s, "off", 3);
    else
        return svc->error (p, "%s: must be a string such as '%s' (%s)", prefix,
                           s->modes[0],
                           aff_choices (s, choices, sizeof (choices)));
    return 0;
}

/* The value that applies: the option over the default (a value of flags
 * only keeps the default's mode and adds its flags to the default's),
 * else the default, else the built-in mode.  *out is cleared first; -1
 * (ENOMEM) without a message. */
static AFF_UNUSED int aff_settle (const struct aff_opts *dflt,
                                  const struct aff_opts *opt,
                                  struct aff_opts *out)
{
    bool own = opt && opt->mode != AFF_UNSET;
    const struct aff_opts *from = own ? opt : dflt;

    aff_opts_clear (out);
    out->mode = from->mode == AFF_UNSET ? 0 : from->mode;
    out->flags = own ? opt->flags : dflt->flags | (opt ? opt->flags : 0);
    if (from->map && !(out->map = strdup (from->map)))
        return -1;
    return 0;
}

static struct rp_idset **aff_map_parse (struct rp_plugin *p,
                                        const struct rp_host_services *svc,
                                        const char *prefix, const char *list,
                                        bool hex, size_t *count);
static void aff_map_free (struct rp_idset **sets, size_t n);

/* The configuration block's "default" at init (the host refuses other
 * keys, as config_keys declares); a map is checked here too. */
static AFF_UNUSED int aff_config (struct rp_plugin *p,
                                  const struct rp_host_services *svc,
                                  const struct aff_syntax *s,
                                  struct aff_opts *dflt)
{
    const json_t *v = json_object_get (svc->config (p), "default");
    struct rp_idset **map;
    size_t n;

    aff_opts_clear (dflt);
    if (!v)
        return 0;
    if (aff_parse (p, svc, s, "default", v, dflt) < 0)
        goto error;
    if (dflt->mode == AFF_MAP) {
        if (!(map = aff_map_parse (p, svc, "default", dflt->map, s->hex, &n)))
            goto error;
        aff_map_free (map, n);
    }
    return 0;
error:
    aff_opts_clear (dflt);
    return -1;
}

/* The option, settled over dflt, into out (at shell_init). */
static AFF_UNUSED int
aff_option (struct rp_plugin *p, const struct rp_host_services *svc,
            const struct aff_syntax *s, struct rp_shell *sh,
            const struct aff_opts *dflt, struct aff_opts *out)
{
    const json_t *v = rp_shell_option (sh, s->key);
    struct aff_opts opt = { .mode = AFF_UNSET };
    int rc;

    if (v && aff_parse (p, svc, s, s->key, v, &opt) < 0) {
        aff_opts_clear (&opt);
        return -1;
    }
    rc = aff_settle (dflt, v ? &opt : NULL, out);
    aff_opts_clear (&opt);
    return rc < 0 ? svc->error (p, "out of memory") : 0;
}

static AFF_UNUSED bool aff_is (const struct aff_syntax *s,
                               const struct aff_opts *o, const char *mode)
{
    return o->mode >= 0 && strcmp (s->modes[o->mode], mode) == 0;
}

/* --- map:LIST ------------------------------------------------------------ */

/* A taskset mask, "0x" then hex digits (bit 0: id 0), into ids. */
static AFF_UNUSED int aff_hex (const char *s, size_t len, struct rp_idset *ids)
{
    if (len <= 2 || len > 2 + 1024)
        return -1;
    for (size_t i = len; i > 2; i--) {
        char c = s[i - 1];
        unsigned int v, base = (unsigned int)(len - i) * 4;
        if (c >= '0' && c <= '9')
            v = (unsigned int)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = (unsigned int)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v = (unsigned int)(c - 'A' + 10);
        else
            return -1;
        for (unsigned int b = 0; b < 4; b++)
            if ((v & (1U << b)) && rp_idset_add (ids, base + b) < 0)
                return -1;
    }
    return 0;
}

static AFF_UNUSED void aff_map_free (struct rp_idset **sets, size_t n)
{
    for (size_t i = 0; sets && i < n; i++)
        rp_idset_destroy (sets[i]);
    free (sets);
}

/* One entry (len bytes at e), the n-th (from 1), of a map. */
static AFF_UNUSED struct rp_idset *
aff_map_entry (struct rp_plugin *p, const struct rp_host_services *svc,
               const char *prefix, const char *e, size_t len, size_t n,
               bool hex)
{
    struct rp_idset *ids = NULL;
    rp_error_t error;

    if (hex && len > 2 && e[0] == '0' && (e[1] == 'x' || e[1] == 'X')) {
        if (!(ids = rp_idset_create ()))
            goto nomem;
        if (aff_hex (e, len, ids) < 0) {
            rp_idset_destroy (ids);
            svc->error (p, "%s: map: entry %zu '%.*s': not a hexadecimal mask",
                        prefix, n, (int)(len > 40 ? 40 : len), e);
            return NULL;
        }
    } else if (!(ids = rp_idset_ndecode (e, len, &error))) {
        svc->error (p, "%s: map: entry %zu: %s", prefix, n, error.text);
        return NULL;
    }
    if (rp_idset_empty (ids)) {
        rp_idset_destroy (ids);
        svc->error (p, "%s: map: entry %zu is empty", prefix, n);
        return NULL;
    }
    return ids;
nomem:
    svc->error (p, "out of memory");
    return NULL;
}

/* The ';'-separated entries of list, as idsets (each an RFC 22 idset, or
 * with hex a taskset mask "0xff"); caller frees with aff_map_free. */
static AFF_UNUSED struct rp_idset **
aff_map_parse (struct rp_plugin *p, const struct rp_host_services *svc,
               const char *prefix, const char *list, bool hex, size_t *count)
{
    struct rp_idset **sets = NULL;
    size_t n = 0;

    for (const char *e = list;; e += strcspn (e, ";") + 1) {
        size_t len = strcspn (e, ";");
        struct rp_idset **grown;
        if (n >= AFF_MAP_MAX) {
            svc->error (p, "%s: map: more than %u entries", prefix,
                        AFF_MAP_MAX);
            goto error;
        }
        if (!(grown = realloc (sets, (n + 1) * sizeof (*sets)))) {
            svc->error (p, "out of memory");
            goto error;
        }
        sets = grown;
        if (!(sets[n] = aff_map_entry (p, svc, prefix, e, len, n + 1, hex)))
            goto error;
        n++;
        if (!e[len])
            break;
    }
    *count = n;
    return sets;
error:
    aff_map_free (sets, n);
    return NULL;
}

/* --- groups of tasks ------------------------------------------------------ */

/* For every local task, the first task of its group and the group's size
 * (arrays of rp_shell_ntasks entries, caller frees both). */
static AFF_UNUSED int aff_groups (struct rp_shell *sh, size_t **first,
                                  size_t **size)
{
    size_t n = rp_shell_ntasks (sh);

    *first = calloc (n + 1, sizeof (**first));
    *size = calloc (n + 1, sizeof (**size));
    if (!*first || !*size)
        return -1;
    for (size_t i = 0; i < n; i++) {
        struct rp_task *t = rp_shell_task (sh, i);
        struct rp_task *prev = i ? rp_shell_task (sh, i - 1) : NULL;
        if (prev
            && rp_idset_equal (rp_task_share_cores (t),
                               rp_task_share_cores (prev))
            && rp_idset_equal (rp_task_share_gpus (t),
                               rp_task_share_gpus (prev)))
            (*first)[i] = (*first)[i - 1];
        else
            (*first)[i] = i;
        (*size)[(*first)[i]]++;
    }
    for (size_t i = 0; i < n; i++)
        (*size)[i] = (*size)[(*first)[i]];
    return 0;
}

/* The job's cores of a task's share: the share, else every job core here
 * when no core of the share is the job's (a host's own layout). */
static AFF_UNUSED struct rp_idset *aff_share_cores (struct rp_shell *sh,
                                                    const struct rp_task *t)
{
    struct rp_idset *c =
        rp_idset_intersect (rp_task_share_cores (t), rp_shell_cores (sh));

    if (c && rp_idset_empty (c)) {
        rp_idset_destroy (c);
        c = rp_idset_copy (rp_shell_cores (sh));
    }
    return c;
}

/* --- splitting a share's cores --------------------------------------------
 *
 * How cpu-affinity per-task splits a group's cores between its k tasks,
 * and where gpu-affinity per-task expects them: the cores in topology
 * order (package, NUMA node, id), then
 * - k <= cores: contiguous runs of floor or ceil (cores / k) cores; where
 *   the rest of a NUMA node is exactly a run's size (floor or ceil), that
 *   size is taken, so runs end on the node's boundary;
 * - k > cores: one core each, core i holding floor or ceil (k / cores)
 *   consecutive tasks, the extra tasks spread evenly over the cores.
 */

struct aff_core {
    unsigned int id;
    int pkg, numa;
};

static AFF_UNUSED int aff_by_topology (const void *a, const void *b)
{
    const struct aff_core *x = a, *y = b;

    if (x->pkg != y->pkg)
        return x->pkg < y->pkg ? -1 : 1;
    if (x->numa != y->numa)
        return x->numa < y->numa ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* How many cores from v[pos] on are in the NUMA node (package) of v[pos]. */
static AFF_UNUSED size_t aff_domain_rest (const struct aff_core *v, size_t m,
                                          size_t pos)
{
    size_t n = 0;

    while (pos + n < m && v[pos + n].numa == v[pos].numa
           && v[pos + n].pkg == v[pos].pkg)
        n++;
    return n;
}

/* The size of the next run, given the rest of its NUMA node. */
static AFF_UNUSED size_t aff_run (size_t q, size_t rest, size_t *big,
                                  size_t *small)
{
    if (*big && (rest == q + 1 || !(*small && rest == q))) {
        (*big)--;
        return q + 1;
    }
    (*small)--;
    return q;
}

static AFF_UNUSED int aff_split_fill (const struct aff_core *v, size_t m,
                                      size_t k, struct rp_idset **out)
{
    size_t q = m / k, big = m % k, small = k - big, pos = 0, j = 0;

    for (j = 0; j < k; j++)
        if (!(out[j] = rp_idset_create ()))
            return -1;
    if (k > m) {
        for (size_t i = 0, t = 0; i < m; i++) {
            size_t n = k / m + ((i + 1) * (k % m) / m - i * (k % m) / m);
            for (size_t x = 0; x < n; x++)
                if (rp_idset_add (out[t++], v[i].id) < 0)
                    return -1;
        }
        return 0;
    }
    for (j = 0; j < k; j++) {
        size_t size = aff_run (q, aff_domain_rest (v, m, pos), &big, &small);
        for (size_t i = pos; i < pos + size; i++)
            if (rp_idset_add (out[j], v[i].id) < 0)
                return -1;
        pos += size;
    }
    return 0;
}

/* The cores (R ids) of each of k tasks sharing cores: out[0 .. k-1], each
 * to destroy (on failure too).  Nothing is set when cores is empty. */
static AFF_UNUSED int aff_split (struct rp_shell *sh,
                                 const struct rp_idset *cores, size_t k,
                                 struct rp_idset **out)
{
    struct aff_core *v = calloc (rp_idset_count (cores) + 1, sizeof (*v));
    size_t m = 0;
    int rc;

    if (!v)
        return -1;
    for (unsigned int c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (cores, c)) {
        v[m].id = c;
        v[m].pkg = rp_shell_core_package (sh, c);
        v[m++].numa = rp_shell_core_numa (sh, c);
    }
    qsort (v, m, sizeof (*v), aff_by_topology);
    rc = m == 0 || k == 0 ? 0 : aff_split_fill (v, m, k, out);
    free (v);
    return rc;
}

/* --- PUs and cores ------------------------------------------------------ */

/* The core (R id) of every PU of the job here, -1 for another PU. */
struct aff_pus {
    unsigned int n; /* PUs 0 .. n-1 */
    int *core;
};

static AFF_UNUSED int aff_pus_init (struct rp_shell *sh, struct aff_pus *pus)
{
    const struct rp_idset *cpus = rp_shell_cpus (sh);
    const struct rp_idset *cores = rp_shell_cores (sh);

    free (pus->core);
    pus->n = rp_idset_empty (cpus) ? 0 : rp_idset_max (cpus) + 1;
    if (!(pus->core = malloc ((pus->n + 1) * sizeof (int))))
        return -1;
    for (unsigned int i = 0; i < pus->n; i++)
        pus->core[i] = -1;
    for (unsigned int c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (cores, c)) {
        const struct rp_idset *pu = rp_shell_core_cpus (sh, c);
        for (unsigned int i = rp_idset_first (pu); i != RP_IDSET_INVALID_ID;
             i = rp_idset_next (pu, i))
            if (i < pus->n)
                pus->core[i] = (int)c;
    }
    return 0;
}

/* The cores of the PUs cpus. */
static AFF_UNUSED struct rp_idset *aff_cores_of (const struct aff_pus *pus,
                                                 const struct rp_idset *cpus)
{
    struct rp_idset *cores = rp_idset_create ();

    for (unsigned int i = rp_idset_first (cpus);
         cores && i != RP_IDSET_INVALID_ID; i = rp_idset_next (cpus, i)) {
        if (i < pus->n && pus->core[i] >= 0
            && rp_idset_add (cores, (unsigned int)pus->core[i]) < 0) {
            rp_idset_destroy (cores);
            return NULL;
        }
    }
    return cores;
}

/* The NUMA nodes (OS indices) of cores. */
static AFF_UNUSED struct rp_idset *aff_numas_of (struct rp_shell *sh,
                                                 const struct rp_idset *cores)
{
    struct rp_idset *numas = rp_idset_create ();

    for (unsigned int c = rp_idset_first (cores);
         numas && c != RP_IDSET_INVALID_ID; c = rp_idset_next (cores, c)) {
        int n = rp_shell_core_numa (sh, c);
        if (n >= 0 && rp_idset_add (numas, (unsigned int)n) < 0) {
            rp_idset_destroy (numas);
            return NULL;
        }
    }
    return numas;
}

/* The cores a task runs on: those of its CPUs when decided, else its
 * share's. */
static AFF_UNUSED struct rp_idset *aff_task_cores (struct rp_shell *sh,
                                                   const struct aff_pus *pus,
                                                   const struct rp_task *t)
{
    const struct rp_idset *cpus = rp_task_cpus (t);

    return cpus ? aff_cores_of (pus, cpus) : aff_share_cores (sh, t);
}

/* --- the state every plugin keeps ------------------------------------------
 *
 * A plugin's state (svc->set_data) begins with struct aff_base.  A plugin
 * instance may serve several shells in turn (a host that runs many jobs,
 * the benchmark): what belongs to one shell is made again in shell_init.
 */
struct aff_base {
    const struct aff_syntax *syntax;
    struct aff_opts dflt;               /* the configuration's default */
    struct aff_opts opts;               /* what applies to the current shell */
    struct aff_pus pus;                 /* the current shell's PUs */
    size_t *first, *size;               /* its groups (aff_groups) */
    void (*reset) (struct aff_base *b); /* frees the plugin's own, or NULL */
};

/* init: a state of size bytes, the configuration's default read. */
static AFF_UNUSED int aff_init (struct rp_plugin *p,
                                const struct rp_host_services *svc,
                                const struct aff_syntax *syntax, size_t size,
                                void (*reset) (struct aff_base *b))
{
    struct aff_base *b = calloc (1, size);

    if (!b)
        return svc->error (p, "out of memory");
    b->syntax = syntax;
    b->reset = reset;
    b->dflt.mode = b->opts.mode = AFF_UNSET;
    if (aff_config (p, svc, syntax, &b->dflt) < 0) {
        free (b);
        return -1;
    }
    svc->set_data (p, b);
    return 0;
}

static AFF_UNUSED void aff_shell_free (struct aff_base *b)
{
    if (b->reset)
        b->reset (b);
    free (b->first);
    free (b->size);
    b->first = b->size = NULL;
}

static AFF_UNUSED void aff_fini (struct rp_plugin *p,
                                 const struct rp_host_services *svc)
{
    struct aff_base *b = svc->get_data (p);
    int saved = errno;

    if (b) {
        aff_shell_free (b);
        aff_opts_clear (&b->dflt);
        aff_opts_clear (&b->opts);
        free (b->pus.core);
        free (b);
    }
    errno = saved;
}

/* One set per local task in *sets (*n of them, to free with
 * aff_map_free), made group by group: fn fills out[0 .. k-1] for the k
 * tasks of the group of task first.  -1 (ENOMEM) without a message. */
static AFF_UNUSED int
aff_per_group (struct rp_shell *sh, struct aff_base *b, struct rp_idset ***sets,
               size_t *n,
               int (*fn) (struct rp_shell *sh, struct aff_base *b, size_t first,
                          size_t k, struct rp_idset **out))
{
    int rc = 0;

    *n = rp_shell_ntasks (sh);
    if (!(*sets = calloc (*n + 1, sizeof (**sets))))
        return -1;
    for (size_t i = 0; rc == 0 && i < *n; i += b->size[i])
        rc = fn (sh, b, i, b->size[i], *sets + i);
    return rc;
}

/* A plugin's config_keys, init and fini, for its state type and reset
 * function (or NULL), with its static svc and syntax. */
#define AFF_DEFINE_INIT(type, reset_fn)                                        \
    static const char *const config_keys[] = { "default", NULL };              \
    static int init (struct rp_plugin *p, const struct rp_host_services *s)    \
    {                                                                          \
        svc = s;                                                               \
        return aff_init (p, svc, &syntax, sizeof (type), reset_fn);            \
    }                                                                          \
    static void fini (struct rp_plugin *p)                                     \
    {                                                                          \
        aff_fini (p, svc);                                                     \
    }

/* What shell_init does first in every plugin: the last shell's state
 * freed, the option read, the PUs mapped, the tasks grouped. */
static AFF_UNUSED int aff_shell_init (struct rp_plugin *p,
                                      const struct rp_host_services *svc,
                                      struct rp_shell *sh, struct aff_base *b)
{
    aff_shell_free (b);
    if (aff_option (p, svc, b->syntax, sh, &b->dflt, &b->opts) < 0)
        return -1;
    if (aff_pus_init (sh, &b->pus) < 0
        || aff_groups (sh, &b->first, &b->size) < 0)
        return svc->error (p, "out of memory");
    return 0;
}

/* An idset as "0-3,8" in buf (for messages). */
static AFF_UNUSED const char *aff_text (const struct rp_idset *ids, char *buf,
                                        size_t size)
{
    char *s = ids ? rp_idset_encode (ids, RP_IDSET_RANGES) : NULL;

    snprintf (buf, size, "%s", s ? s : "?");
    free (s);
    return buf;
}

#endif
