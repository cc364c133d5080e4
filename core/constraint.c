/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Job constraints (RFC 31): compile once, match many times; see
 * api/respol/constraint.h for the operators and their empty-operand rules.
 *
 * Compiling walks the JSON object recursively and builds a tree of struct
 * rp_constraint nodes.  Each node points at its operator class in ops[]
 * (name, compile, match, destroy) and holds what that class decoded:
 *   properties  the names, '^' kept as the negation mark;
 *   hostlist    one rp_hostlist, all values appended, whose lookup index is
 *               built at compile time so matching never writes (thread
 *               safe) and costs O(log H);
 *   ranks       one idset, the union of all values: O(log R) per test;
 *   and/or/not  the child nodes.
 * {} compiles to a node of the internal class "{}" that matches anything.
 *
 * Errors carry the path of the offending value, built while descending:
 * an operator adds ".name" and a value "[i]", giving e.g.
 * "and[1].properties[0]".  An error shows at most the last PATH_SHOWN
 * bytes of the path, so the message after it always fits.
 *
 * Property values are checked with rp_rset_property_check after the '^',
 * so a constraint never names a property that R could not carry.  Rank
 * values must be strings (RFC 31: "compatible with the RFC 22 Idset
 * Representation"); JSON integers are refused.
 *
 * Operators added by property plugins (respol/property.h) live in a
 * process-wide registry beside the built-in table, guarded by a
 * recursive mutex (an operator's compile may compile a constraint in
 * turn).  A node of such an operator points at its registry entry and
 * holds what the plugin's compile made; compile runs under the mutex, so
 * a plugin's compile is called from one thread at a time, as every
 * plugin call is.  Entries are removed when their plugin is unloaded
 * (plugin_close): a constraint compiled with one must not outlive the
 * configuration that loaded it (respol/property.h says so).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pthread.h>

#include "respol/constraint.h"
#include "respol/hostlist.h"
#include "respol/idset.h"
#include "respol/property.h"
#include "respol/rset.h"

#include "core/constraint_private.h"
#include "core/plugin_private.h"

/* Longest path shown in an error: its end, after "...". */
#define PATH_SHOWN 100

struct rp_constraint_target {
    unsigned int rank;
    const char *hostname;
    rp_constraint_property_f has_property;
    rp_constraint_value_f value_of;
    void *arg;
};

/* An operator a property plugin added: the fields of its table that its
 * size covers, copied. */
struct constraint_ext {
    char *name;
    struct rp_plugin *p;
    void *arg;
    int (*compile) (struct rp_plugin *p, void *arg, const json_t *values,
                    void **data);
    bool (*match) (const void *data, const struct rp_constraint_target *t);
    void (*destroy) (void *data);
};

/* Large enough for RP_CONSTRAINT_MAX_DEPTH levels of "and[N]." (known
 * operator names only: an unknown one is never pushed). */
struct path {
    char buf[4096];
    size_t len;
};

struct op_class {
    const char *name;
    int (*compile) (struct rp_constraint *c, const json_t *values,
                    struct path *p, int depth, rp_error_t *error);
    bool (*match) (const struct rp_constraint *c,
                   const struct rp_constraint_target *t);
    void (*destroy) (struct rp_constraint *c);
};

struct rp_constraint {
    const struct op_class *op;
    size_t count;                    /* children or properties */
    struct rp_constraint **children; /* and, or, not */
    char **props;                    /* properties */
    struct rp_hostlist *hosts;       /* hostlist */
    struct rp_idset *ranks;          /* ranks */
    const struct constraint_ext *ext; /* a plugin's operator */
    void *data;                       /* what its compile made */
};

static struct rp_constraint *compile_node (const json_t *o, struct path *p,
                                           int depth, rp_error_t *error);
static bool match_node (const struct rp_constraint *c,
                        const struct rp_constraint_target *t);

/* Append a component to the path; return the length to restore. */
static size_t path_push (struct path *p, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));
static size_t path_push (struct path *p, const char *fmt, ...)
{
    size_t saved = p->len;
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (p->buf + p->len, sizeof (p->buf) - p->len, fmt, ap);
    va_end (ap);
    if (n > 0)
        p->len += (size_t)n;
    if (p->len >= sizeof (p->buf))
        p->len = sizeof (p->buf) - 1;
    return saved;
}

static void path_pop (struct path *p, size_t len)
{
    p->len = len;
    p->buf[len] = '\0';
}

/* "constraint: PATH: message", or "constraint: message" at the top. */
static int compile_error (rp_error_t *error, int errnum, const struct path *p,
                          const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));
static int compile_error (rp_error_t *error, int errnum, const struct path *p,
                          const char *fmt, ...)
{
    char msg[RP_ERROR_TEXT_SIZE];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    if (p->len > PATH_SHOWN)
        return rp_error_set (error, errnum, "constraint: ...%s: %s",
                             p->buf + p->len - PATH_SHOWN, msg);
    if (p->len > 0)
        return rp_error_set (error, errnum, "constraint: %s: %s", p->buf, msg);
    return rp_error_set (error, errnum, "constraint: %s", msg);
}

/* --- {} ----------------------------------------------------------------- */

static bool match_all (const struct rp_constraint *c,
                       const struct rp_constraint_target *t)
{
    return true;
}

/* --- properties --------------------------------------------------------- */

static int compile_properties (struct rp_constraint *c, const json_t *values,
                               struct path *p, int depth, rp_error_t *error)
{
    size_t n = json_array_size (values);
    rp_error_t e;

    if (n > 0 && !(c->props = calloc (n, sizeof (c->props[0]))))
        return compile_error (error, ENOMEM, p, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *s = json_string_value (json_array_get (values, i));
        size_t saved = path_push (p, "[%zu]", i);

        if (!s)
            return compile_error (error, EINVAL, p, "value must be a string");
        if (rp_rset_property_check (s[0] == '^' ? s + 1 : s, &e) < 0)
            return compile_error (error, EINVAL, p, "%s", e.text);
        if (!(c->props[i] = strdup (s)))
            return compile_error (error, ENOMEM, p, "out of memory");
        c->count = i + 1;
        path_pop (p, saved);
    }
    return 0;
}

static bool match_properties (const struct rp_constraint *c,
                              const struct rp_constraint_target *t)
{
    for (size_t i = 0; i < c->count; i++) {
        bool negated = c->props[i][0] == '^';
        const char *name = c->props[i] + (negated ? 1 : 0);
        bool has = t->has_property && t->has_property (name, t->arg);

        if (has == negated)
            return false;
    }
    return true;
}

static void destroy_properties (struct rp_constraint *c)
{
    for (size_t i = 0; i < c->count; i++)
        free (c->props[i]);
    free (c->props);
}

/* --- hostlist ----------------------------------------------------------- */

static int compile_hostlist (struct rp_constraint *c, const json_t *values,
                             struct path *p, int depth, rp_error_t *error)
{
    rp_error_t e;

    if (!(c->hosts = rp_hostlist_create ()))
        return compile_error (error, ENOMEM, p, "out of memory");
    for (size_t i = 0; i < json_array_size (values); i++) {
        const char *s = json_string_value (json_array_get (values, i));
        size_t saved = path_push (p, "[%zu]", i);

        if (!s)
            return compile_error (error, EINVAL, p, "value must be a string");
        if (rp_hostlist_append (c->hosts, s, &e) < 0)
            return compile_error (error, errno, p, "%s", e.text);
        path_pop (p, saved);
    }
    /* Build the lookup index now, so that matching only reads.  An empty
     * list needs none: it matches nothing. */
    if (rp_hostlist_count (c->hosts) == 0) {
        rp_hostlist_destroy (c->hosts);
        c->hosts = NULL;
        return 0;
    }
    (void)rp_hostlist_find (c->hosts, "");
    return 0;
}

static bool match_hostlist (const struct rp_constraint *c,
                            const struct rp_constraint_target *t)
{
    return c->hosts && t->hostname
           && rp_hostlist_find (c->hosts, t->hostname) >= 0;
}

static void destroy_hostlist (struct rp_constraint *c)
{
    rp_hostlist_destroy (c->hosts);
}

/* --- ranks -------------------------------------------------------------- */

static int add_ranks (struct rp_idset *ranks, const json_t *value,
                      struct path *p, rp_error_t *error)
{
    const char *s = json_string_value (value);
    struct rp_idset *ids;
    rp_error_t e;
    int rc;

    if (!s)
        return compile_error (error, EINVAL, p, "value must be a string");
    if (!(ids = rp_idset_decode (s, &e)))
        return compile_error (error, errno, p, "%s", e.text);
    rc = rp_idset_add_set (ranks, ids);
    rp_idset_destroy (ids);
    if (rc < 0)
        return compile_error (error, errno, p, "out of memory");
    return 0;
}

static int compile_ranks (struct rp_constraint *c, const json_t *values,
                          struct path *p, int depth, rp_error_t *error)
{
    if (!(c->ranks = rp_idset_create ()))
        return compile_error (error, ENOMEM, p, "out of memory");
    for (size_t i = 0; i < json_array_size (values); i++) {
        size_t saved = path_push (p, "[%zu]", i);

        if (add_ranks (c->ranks, json_array_get (values, i), p, error) < 0)
            return -1;
        path_pop (p, saved);
    }
    return 0;
}

static bool match_ranks (const struct rp_constraint *c,
                         const struct rp_constraint_target *t)
{
    return rp_idset_test (c->ranks, t->rank);
}

static void destroy_ranks (struct rp_constraint *c)
{
    rp_idset_destroy (c->ranks);
}

/* --- and, or, not ------------------------------------------------------- */

static int compile_children (struct rp_constraint *c, const json_t *values,
                             struct path *p, int depth, rp_error_t *error)
{
    size_t n = json_array_size (values);

    if (n > 0 && !(c->children = calloc (n, sizeof (c->children[0]))))
        return compile_error (error, ENOMEM, p, "out of memory");
    for (size_t i = 0; i < n; i++) {
        size_t saved = path_push (p, "[%zu]", i);

        c->children[i] =
            compile_node (json_array_get (values, i), p, depth + 1, error);
        if (!c->children[i])
            return -1;
        c->count = i + 1;
        path_pop (p, saved);
    }
    return 0;
}

static int compile_not (struct rp_constraint *c, const json_t *values,
                        struct path *p, int depth, rp_error_t *error)
{
    if (json_array_size (values) > 1)
        return compile_error (error, EINVAL, p, "takes one value (got %zu)",
                              json_array_size (values));
    return compile_children (c, values, p, depth, error);
}

static bool match_and (const struct rp_constraint *c,
                       const struct rp_constraint_target *t)
{
    for (size_t i = 0; i < c->count; i++)
        if (!match_node (c->children[i], t))
            return false;
    return true;
}

static bool match_or (const struct rp_constraint *c,
                      const struct rp_constraint_target *t)
{
    if (c->count == 0)
        return true;
    for (size_t i = 0; i < c->count; i++)
        if (match_node (c->children[i], t))
            return true;
    return false;
}

/* RFC 31: {"not": []} matches nothing. */
static bool match_not (const struct rp_constraint *c,
                       const struct rp_constraint_target *t)
{
    return c->count == 1 && !match_node (c->children[0], t);
}

static void destroy_children (struct rp_constraint *c)
{
    for (size_t i = 0; i < c->count; i++)
        rp_constraint_destroy (c->children[i]);
    free (c->children);
}

/* --- operators added by property plugins ------------------------------- */

static pthread_mutex_t ext_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static struct constraint_ext **exts;
static size_t nexts;

/* Under ext_lock. */
static const struct constraint_ext *ext_find (const char *name)
{
    for (size_t i = 0; i < nexts; i++)
        if (!strcmp (exts[i]->name, name))
            return exts[i];
    return NULL;
}

static int compile_ext (struct rp_constraint *c, const json_t *values,
                        struct path *p, int depth, rp_error_t *error)
{
    const struct constraint_ext *x = c->ext;
    struct plugin_call call;
    int rc;

    x->p->error[0] = '\0';
    plugin_enter (&call, x->p, "compile");
    rc = x->compile (x->p, x->arg, values, &c->data);
    plugin_leave (&call);
    if (rc == 0)
        return 0;
    c->data = NULL;
    if (x->p->error[0])
        return compile_error (error, EINVAL, p, "%s", x->p->error);
    return compile_error (error, EINVAL, p,
                          "property plugin '%s': compile returned %d (no "
                          "message)",
                          x->p->instance, rc);
}

static bool match_ext (const struct rp_constraint *c,
                       const struct rp_constraint_target *t)
{
    struct plugin_call call;
    bool ok;

    plugin_enter (&call, c->ext->p, "match");
    ok = c->ext->match (c->data, t);
    plugin_leave (&call);
    return ok;
}

static void destroy_ext (struct rp_constraint *c)
{
    struct plugin_call call;

    if (!c->ext || !c->ext->destroy || !c->data)
        return;
    plugin_enter (&call, c->ext->p, "destroy");
    c->ext->destroy (c->data);
    plugin_leave (&call);
}

static const struct op_class op_ext = { "plugin", compile_ext, match_ext,
                                        destroy_ext };

/* --- the operator table ------------------------------------------------- */

/* The operators a constraint may use.  A property plugin will add its own
 * here, at the end; match functions must not write to the node. */
static const struct op_class ops[] = {
    { "properties", compile_properties, match_properties, destroy_properties },
    { "hostlist", compile_hostlist, match_hostlist, destroy_hostlist },
    { "ranks", compile_ranks, match_ranks, destroy_ranks },
    { "and", compile_children, match_and, destroy_children },
    { "or", compile_children, match_or, destroy_children },
    { "not", compile_not, match_not, destroy_children },
};

static const struct op_class op_all = { "{}", NULL, match_all, NULL };

static const struct op_class *find_builtin (const char *name)
{
    for (size_t i = 0; i < sizeof (ops) / sizeof (ops[0]); i++)
        if (!strcmp (ops[i].name, name))
            return &ops[i];
    return NULL;
}

bool constraint_operator_added (const char *name)
{
    bool added;

    if (!name)
        return false;
    pthread_mutex_lock (&ext_lock);
    added = ext_find (name) != NULL;
    pthread_mutex_unlock (&ext_lock);
    return added;
}

/* Under ext_lock. */
static int ext_add (struct constraint_ext *x)
{
    struct constraint_ext **v = realloc (exts, (nexts + 1) * sizeof (*v));

    if (!v)
        return -1;
    exts = v;
    exts[nexts++] = x;
    return 0;
}

int constraint_operator_add (struct rp_plugin *p, const char *name,
                             const struct rp_constraint_operator *op, void *arg,
                             rp_error_t *error)
{
    const struct constraint_ext *taken;
    struct constraint_ext *x;
    int rc = -1;

    if (find_builtin (name))
        return rp_error_set (error, EINVAL, "operator '%s' is built in", name);
    if (!(x = calloc (1, sizeof (*x))) || !(x->name = strdup (name))) {
        free (x);
        return rp_error_set (error, ENOMEM, "out of memory");
    }
    x->p = p;
    x->arg = arg;
    x->compile = op->compile;
    x->match = op->match;
    if (op->size >= offsetof (struct rp_constraint_operator, destroy)
                        + sizeof (op->destroy))
        x->destroy = op->destroy;
    pthread_mutex_lock (&ext_lock);
    if ((taken = ext_find (name)))
        rp_error_set (error, EINVAL, "operator '%s' is already added by '%s'",
                      name, taken->p->instance);
    else if (ext_add (x) < 0)
        rp_error_set (error, ENOMEM, "out of memory");
    else
        rc = 0;
    pthread_mutex_unlock (&ext_lock);
    if (rc < 0) {
        free (x->name);
        free (x);
    }
    return rc;
}

void constraint_operators_remove (const struct rp_plugin *p)
{
    size_t k = 0;

    pthread_mutex_lock (&ext_lock);
    for (size_t i = 0; i < nexts; i++) {
        if (exts[i]->p == p) {
            free (exts[i]->name);
            free (exts[i]);
        } else
            exts[k++] = exts[i];
    }
    nexts = k;
    if (nexts == 0) {
        free (exts);
        exts = NULL;
    }
    pthread_mutex_unlock (&ext_lock);
}

/* --- compile, match, destroy -------------------------------------------- */

void rp_constraint_destroy (struct rp_constraint *c)
{
    if (c) {
        int saved_errno = errno;
        if (c->op->destroy)
            c->op->destroy (c);
        free (c);
        errno = saved_errno;
    }
}

/* Compile the one operator of object o into c. */
static int compile_op (struct rp_constraint *c, const json_t *o, struct path *p,
                       int depth, rp_error_t *error)
{
    const char *name = json_object_iter_key (json_object_iter ((json_t *)o));
    const json_t *values = json_object_get (o, name);
    const struct op_class *op = find_builtin (name);
    size_t saved;
    int rc;

    pthread_mutex_lock (&ext_lock);
    if (!op && (c->ext = ext_find (name)))
        op = &op_ext;
    if (!op) {
        pthread_mutex_unlock (&ext_lock);
        return compile_error (error, EINVAL, p, "unknown operator '%s'", name);
    }
    saved = path_push (p, "%s%s", p->len > 0 ? "." : "", name);
    if (!json_is_array (values))
        rc = compile_error (error, EINVAL, p, "values must be an array");
    else {
        c->op = op;
        rc = op->compile (c, values, p, depth, error);
    }
    pthread_mutex_unlock (&ext_lock);
    if (rc == 0)
        path_pop (p, saved);
    return rc;
}

static struct rp_constraint *compile_node (const json_t *o, struct path *p,
                                           int depth, rp_error_t *error)
{
    struct rp_constraint *c;

    if (depth > RP_CONSTRAINT_MAX_DEPTH) {
        compile_error (error, EINVAL, p, "nested deeper than %d levels",
                       RP_CONSTRAINT_MAX_DEPTH);
        return NULL;
    }
    if (!json_is_object (o)) {
        compile_error (error, EINVAL, p, "must be an object");
        return NULL;
    }
    if (json_object_size (o) > 1) {
        compile_error (error, EINVAL, p, "expected one operator, got %zu",
                       json_object_size (o));
        return NULL;
    }
    if (!(c = calloc (1, sizeof (*c)))) {
        compile_error (error, ENOMEM, p, "out of memory");
        return NULL;
    }
    c->op = &op_all;
    if (json_object_size (o) == 1 && compile_op (c, o, p, depth, error) < 0)
        goto error;
    return c;
error:
    rp_constraint_destroy (c);
    return NULL;
}

struct rp_constraint *rp_constraint_compile (const json_t *o, rp_error_t *error)
{
    struct path p = { .len = 0 };

    if (!o) {
        rp_error_set (error, EINVAL, "constraint: must be an object");
        return NULL;
    }
    return compile_node (o, &p, 1, error);
}

static bool match_node (const struct rp_constraint *c,
                        const struct rp_constraint_target *t)
{
    return c->op->match (c, t);
}

bool rp_constraint_match_values (const struct rp_constraint *c,
                                 unsigned int rank, const char *hostname,
                                 rp_constraint_property_f has_property,
                                 rp_constraint_value_f value_of, void *arg)
{
    struct rp_constraint_target t = {
        .rank = rank,
        .hostname = hostname,
        .has_property = has_property,
        .value_of = value_of,
        .arg = arg,
    };

    return c && match_node (c, &t);
}

bool rp_constraint_match (const struct rp_constraint *c, unsigned int rank,
                          const char *hostname,
                          rp_constraint_property_f has_property, void *arg)
{
    return rp_constraint_match_values (c, rank, hostname, has_property, NULL,
                                       arg);
}

unsigned int rp_constraint_target_rank (const struct rp_constraint_target *t)
{
    return t ? t->rank : 0;
}

const char *rp_constraint_target_hostname (const struct rp_constraint_target *t)
{
    return t ? t->hostname : NULL;
}

bool rp_constraint_target_has_property (const struct rp_constraint_target *t,
                                        const char *name)
{
    return t && name && t->has_property && t->has_property (name, t->arg);
}

const char *rp_constraint_target_value (const struct rp_constraint_target *t,
                                        const char *key)
{
    return t && key && t->value_of ? t->value_of (key, t->arg) : NULL;
}

/* --- R ------------------------------------------------------------------ */

struct rset_target {
    const struct rp_rset *r;
    unsigned int rank;
};

static bool rset_has_property (const char *name, void *arg)
{
    const struct rset_target *rt = arg;

    return rp_rset_has_property (rt->r, rt->rank, name);
}

static const char *rset_value (const char *key, void *arg)
{
    const struct rset_target *rt = arg;

    return rp_rset_property_value (rt->r, rt->rank, key);
}

bool rp_constraint_match_rset (const struct rp_constraint *c,
                               const struct rp_rset *r, unsigned int rank)
{
    struct rset_target rt = { .r = r, .rank = rank };

    if (!c || !r || !rp_idset_test (rp_rset_ranks (r), rank))
        return false;
    return rp_constraint_match_values (c, rank, rp_rset_hostname (r, rank),
                                       rset_has_property, rset_value, &rt);
}

struct rp_rset *rp_constraint_filter_rset (const struct rp_constraint *c,
                                           const struct rp_rset *r,
                                           rp_error_t *error)
{
    const struct rp_idset *all;
    struct rp_idset *keep;
    struct rp_rset *result;

    if (!c || !r) {
        rp_error_set (error, EINVAL, "constraint: filter: invalid argument");
        return NULL;
    }
    if (!(keep = rp_idset_create ()))
        goto nomem;
    all = rp_rset_ranks (r);
    for (unsigned int rank = rp_idset_first (all); rank != RP_IDSET_INVALID_ID;
         rank = rp_idset_next (all, rank)) {
        if (rp_constraint_match_rset (c, r, rank)
            && rp_idset_add (keep, rank) < 0)
            goto nomem;
    }
    if (!(result = rp_rset_copy_ranks (r, keep)))
        goto nomem;
    rp_idset_destroy (keep);
    return result;
nomem:
    rp_idset_destroy (keep);
    rp_error_set (error, ENOMEM, "constraint: filter: out of memory");
    return NULL;
}
