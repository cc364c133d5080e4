/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Jobspec: read, validate and model RFC 14 canonical jobspec and its RFC 25
 * V1 profile.  See api/respol/jobspec.h for the contract.
 *
 * The document is read once into a JSON tree with positions (document.h).
 * One pass of small check functions, one per section (version, resources,
 * tasks, attributes and its system keys, RFC 26 dependencies, RFC 31
 * constraints, RFC 37 files), walks the tree.  Each check carries a struct
 * loc chain (core/docpath.h) from which a message gets its path
 * (resources[0].with[1].count.min) and its position (the key's value in the
 * document).  Checks never stop at the first problem: everything goes to
 * the rp_diags list, and the model is kept only when there was no error.
 * The model (resource tree, task array) is built during the same pass; the
 * derived facts are computed afterwards from the valid model, with the
 * system attributes a matcher reads on every match (duration, constraints)
 * looked up there once: a jobspec is read-only once loaded.
 *
 * Where the RFC's prose, its JSON schema and flux-core disagree, the prose
 * wins; where the RFC is silent, flux-core's validators decide (each
 * decision is recorded in doc/conformance.md):
 *   - count dictionary: max is optional on its own; only operator and
 *     operand must come together (the RFC 14 schema ties max to them too);
 *   - unknown keys are errors at the top level, in a resource vertex, a
 *     task and a count dictionary; in tasks[].count they are warnings in
 *     the canonical profile ("reserved for future or site-specific
 *     extensions") and errors in V1; in per_resource and an RFC 37 file
 *     object they are warnings (the RFCs do not forbid them, flux-core
 *     accepts them);
 *   - version: any integer >= 1 in the canonical profile (RFC 14 is
 *     silent; flux-core refuses the others);
 *   - attributes must be a dictionary (the schemas also allow null);
 *     system and user, when present, must be dictionaries with values
 *     (RFC 14: "if present, must have values");
 *   - task attributes are free-form (the RFC 14 schema wants strings) except
 *     for environment;
 *   - RFC 26: scheme and value are required; type and scope only for the
 *     string and fluid schemes (the RFC 26 schema requires them always);
 *     every value is a string (RFC 26), begin-time's decimal seconds;
 *     other schemes are accepted unchecked;
 *   - RFC 37 in jobspec: RFC 14 says "files" is a dictionary archive, so a
 *     list archive is an error; "." and ".." are refused as path
 *     components (the RFC's "characters" would forbid "conf.json"), empty
 *     components are not;
 *   - V1: a gpu count may be 0 (RFC 25 redefines count as "a single integer
 *     value", dropping RFC 14's "positive"; flux-core's V1 checks take it;
 *     its schema says minimum 1), which asks for no GPU;
 *   - V1: exclusive is allowed on a node only (RFC 25 prose; its schema has
 *     it on the slot); command must be a list (the schema also allows a
 *     string); tasks have only command, slot and count; total must be at
 *     least the node count; the prose's "total <= the slot's count" is not
 *     enforced because RFC 25's own use case 2.1 (4 slots, total 5)
 *     breaks it;
 *   - type and label may be empty (RFC 14 only says strings; flux-core
 *     accepts them);
 *   - respol's own limit: resources nest at most
 *     RP_JOBSPEC_MAX_RESOURCE_DEPTH deep.
 *
 * A slot may hold another slot (RFC 14: a slot is "a valid resource spec",
 * and "with" holds resource vertices; flux-core accepts it).  What is
 * inside the inner slot is inside the outer one too: each slot's per-type
 * counts and memory cover everything below it, nested slots included,
 * and a per_resource type may be declared anywhere inside the task's slot.
 * The derived facts describe the outermost slots.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "respol/constraint.h"
#include "respol/jobspec.h"

#include "core/docpath.h"
#include "core/units.h"

#define PATH_MAX_LEN 256

struct rp_jobspec_resource {
    struct rp_jobspec_resource *parent;
    struct rp_jobspec_resource *with; /* first child */
    struct rp_jobspec_resource *next; /* next sibling */
    struct rp_jobspec_resource *slot; /* enclosing slot, or NULL */
    size_t index;                     /* in js->all */
    json_t *json;
    const char *type;
    const char *label;
    const char *unit;
    const char *id;
    bool exclusive;
    bool is_slot;
    enum rp_jobspec_count_form form;
    struct rp_range count;
    struct rp_idset *idset;
    uint64_t total; /* instances in the whole request */
    /* slot vertices only: */
    json_t *types;    /* type -> index into type_n */
    uint64_t *type_n; /* per-slot count of each type */
    uint64_t memory;  /* bytes per slot */
};

struct rp_jobspec_task {
    struct rp_jobspec_task *next;
    const char **argv;
    size_t argc;
    const char *slot;
    struct rp_jobspec_resource *slot_res;
    enum rp_jobspec_task_count_kind kind;
    uint64_t value;
    const char *type;
    uint64_t ntasks;
    const char *distribution;
    json_t *attributes;
    json_t *environment;
};

struct rp_jobspec {
    atomic_size_t refs; /* rp_jobspec_copy */
    struct rp_doc *doc;
    enum rp_jobspec_profile profile;
    long long version;
    struct rp_jobspec_resource *resources;
    struct rp_jobspec_resource **all; /* every vertex, in document order */
    size_t nall;
    size_t all_size;
    json_t *labels; /* label -> index into all */
    struct rp_jobspec_task *tasks;
    size_t ntasks;
    json_t *system;
    json_t *user;
    json_t *constraints; /* attributes.system.constraints, looked up once */
    struct rp_jobspec_facts facts;
};

struct ctx {
    struct rp_jobspec *js;
    const struct rp_doc *doc;
    struct rp_diags *diags;
    bool v1;
    size_t errors;
    bool nomem;
};

static const char *v1_suffix = " in jobspec V1";

/* --- messages ----------------------------------------------------------- */

static void vreport (struct ctx *c, enum rp_diag_severity sev,
                     const struct loc *l, const char *fmt, va_list ap)
{
    char path[PATH_MAX_LEN];
    char where[DOCPATH_WHERE_SIZE];
    char msg[512];

    if (sev == RP_DIAG_ERROR)
        c->errors++;
    if (!c->diags)
        return;
    vsnprintf (msg, sizeof (msg), fmt, ap);
    docpath_describe (c->doc, l, path, sizeof (path), where);
    if (rp_diags_add (c->diags, sev, "%s%s: %s%s%s", rp_doc_name (c->doc),
                      where, path, *path ? ": " : "", msg)
        < 0)
        c->nomem = true;
}

static void diag_error (struct ctx *c, const struct loc *l, const char *fmt,
                        ...) __attribute__ ((format (printf, 3, 4)));
static void diag_warn (struct ctx *c, const struct loc *l, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

static void diag_error (struct ctx *c, const struct loc *l, const char *fmt,
                        ...)
{
    va_list ap;
    va_start (ap, fmt);
    vreport (c, RP_DIAG_ERROR, l, fmt, ap);
    va_end (ap);
}

static void diag_warn (struct ctx *c, const struct loc *l, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vreport (c, RP_DIAG_WARNING, l, fmt, ap);
    va_end (ap);
}

/* --- small helpers ------------------------------------------------------ */

/* Report keys of the object at l that are not in allowed: errors, or
 * warnings where the RFC allows other keys (they are ignored). */
static void unknown_keys (struct ctx *c, const struct loc *l,
                          const char *const *allowed, bool warn)
{
    for (void *it = json_object_iter (l->v); it;
         it = json_object_iter_next (l->v, it)) {
        struct loc k = at_iter (l, it);
        k.at_key = true; /* the key is what is wrong, wherever its value */
        if (in_list (k.key, allowed))
            continue;
        if (warn)
            diag_warn (c, &k, "unknown key (ignored)");
        else
            diag_error (c, &k, "unknown key");
    }
}

static void check_unknown_keys (struct ctx *c, const struct loc *l,
                                const char *const *allowed)
{
    unknown_keys (c, l, allowed, false);
}

static bool require_key (struct ctx *c, const struct loc *l, const char *key,
                         const char *why)
{
    if (json_object_get (l->v, key))
        return true;
    diag_error (c, l, "missing key \"%s\"%s", key, why);
    return false;
}

static bool want_object (struct ctx *c, const struct loc *l)
{
    if (json_is_object (l->v))
        return true;
    diag_error (c, l, "must be a dictionary");
    return false;
}

static bool want_array (struct ctx *c, const struct loc *l, bool nonempty)
{
    if (!json_is_array (l->v)) {
        diag_error (c, l, "must be a list");
        return false;
    }
    if (nonempty && json_array_size (l->v) == 0) {
        diag_error (c, l, "must not be empty");
        return false;
    }
    return true;
}

static const char *want_string (struct ctx *c, const struct loc *l)
{
    if (json_is_string (l->v))
        return json_string_value (l->v);
    diag_error (c, l, "must be a string");
    return NULL;
}

/* An optional string member: NULL (no message) when absent. */
static const char *opt_string (struct ctx *c, const struct loc *up,
                               const char *key)
{
    struct loc l = at_key (up, key);
    return l.v ? want_string (c, &l) : NULL;
}

/* An integer in [1, RP_JOBSPEC_MAX_COUNT]. */
static bool want_count (struct ctx *c, const struct loc *l, uint64_t *n)
{
    json_int_t i;

    if (!json_is_integer (l->v)) {
        diag_error (c, l, "must be an integer");
        return false;
    }
    i = json_integer_value (l->v);
    if (i < 1) {
        diag_error (c, l, "must be >= 1");
        return false;
    }
    if (i > RP_JOBSPEC_MAX_COUNT) {
        diag_error (c, l, "must be <= %lld", (long long)RP_JOBSPEC_MAX_COUNT);
        return false;
    }
    *n = (uint64_t)i;
    return true;
}

static bool want_nonnegative (struct ctx *c, const struct loc *l)
{
    if (!json_is_number (l->v)) {
        diag_error (c, l, "must be a number");
        return false;
    }
    if (!(json_number_value (l->v) >= 0)
        || !isfinite (json_number_value (l->v))) {
        diag_error (c, l, "must be >= 0");
        return false;
    }
    return true;
}

static uint64_t sat_mul (uint64_t a, uint64_t b)
{
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

static uint64_t sat_add (uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* --- resource counts ---------------------------------------------------- */

static bool count_bounds (struct ctx *c, const struct loc *l,
                          const struct rp_range *r)
{
    const long long max = RP_JOBSPEC_MAX_COUNT;

    if (r->min > (uint64_t)max)
        diag_error (c, l, "min must be <= %lld", max);
    else if (r->max != RP_RANGE_UNBOUNDED && r->max > (uint64_t)max)
        diag_error (c, l, "max must be <= %lld", max);
    else if (r->operand > (uint64_t)max)
        diag_error (c, l, "operand must be <= %lld", max);
    else
        return true;
    return false;
}

static bool count_idset (struct ctx *c, const struct loc *l, const char *s,
                         struct rp_jobspec_resource *r)
{
    rp_error_t e;
    struct rp_idset *ids = rp_idset_decode (s, &e);

    if (!ids) {
        if (errno == ENOMEM)
            c->nomem = true;
        else
            diag_error (c, l, "%s", e.text);
        return false;
    }
    if (rp_idset_empty (ids) || rp_idset_min (ids) < 1)
        diag_error (c, l, "idset members must be >= 1");
    else if (rp_idset_max (ids) > RP_JOBSPEC_MAX_COUNT)
        diag_error (c, l, "idset members must be <= %lld",
                    (long long)RP_JOBSPEC_MAX_COUNT);
    else if (r) {
        r->form = RP_JOBSPEC_COUNT_IDSET;
        r->count.min = rp_idset_min (ids);
        r->count.max = rp_idset_max (ids);
        r->count.operand = 1;
        r->count.op = '+';
        r->idset = ids;
        return true;
    }
    rp_idset_destroy (ids);
    return false;
}

static bool count_string (struct ctx *c, const struct loc *l,
                          struct rp_jobspec_resource *r)
{
    const char *s = json_string_value (l->v);
    struct rp_range range;
    rp_error_t e;

    if (strchr (s, ','))
        return count_idset (c, l, s, r);
    if (rp_range_decode (s, &range, &e) < 0) {
        diag_error (c, l, "%s", e.text);
        return false;
    }
    if (!count_bounds (c, l, &range))
        return false;
    if (r) {
        r->form = RP_JOBSPEC_COUNT_RANGE;
        r->count = range;
    }
    return true;
}

/* One integer member of a count dictionary; negative values become 0 so
 * that rp_range_check names the rule they break. */
static bool dict_member (struct ctx *c, const struct loc *up, const char *key,
                         uint64_t *value)
{
    struct loc l = at_key (up, key);
    json_int_t i;

    if (!l.v)
        return true;
    if (!json_is_integer (l.v)) {
        diag_error (c, &l, "must be an integer");
        return false;
    }
    i = json_integer_value (l.v);
    if (i > RP_JOBSPEC_MAX_COUNT) {
        diag_error (c, &l, "must be <= %lld", (long long)RP_JOBSPEC_MAX_COUNT);
        return false;
    }
    *value = i < 0 ? 0 : (uint64_t)i;
    return true;
}

static bool dict_operator (struct ctx *c, const struct loc *up, char *op)
{
    struct loc l = at_key (up, "operator");
    const char *s = json_string_value (l.v);

    if (!l.v)
        return true;
    if (!s || strlen (s) != 1 || !strchr ("+*^", s[0])) {
        diag_error (c, &l, "must be one of \"+\", \"*\", \"^\"");
        return false;
    }
    *op = s[0];
    return true;
}

static bool count_dict (struct ctx *c, const struct loc *l,
                        struct rp_jobspec_resource *r)
{
    static const char *const keys[] = { "min", "max", "operator", "operand",
                                        NULL };
    struct rp_range range = { 0, RP_RANGE_UNBOUNDED, 1, '+' };
    bool has_op = json_object_get (l->v, "operator") != NULL;
    bool has_operand = json_object_get (l->v, "operand") != NULL;
    bool ok = true;
    rp_error_t e;

    check_unknown_keys (c, l, keys);
    ok &= require_key (c, l, "min", "");
    ok &= dict_member (c, l, "min", &range.min);
    ok &= dict_member (c, l, "max", &range.max);
    ok &= dict_member (c, l, "operand", &range.operand);
    ok &= dict_operator (c, l, &range.op);
    if (has_op != has_operand) {
        diag_error (c, l, "operator and operand must be given together");
        ok = false;
    }
    if (ok && rp_range_check (&range, &e) < 0) {
        diag_error (c, l, "%s", e.text);
        ok = false;
    }
    if (ok && r) {
        r->form = RP_JOBSPEC_COUNT_DICT;
        r->count = range;
    }
    return ok;
}

/* An integer count of a gpu: RFC 25 redefines count as "a single integer
 * value" (RFC 14: "a single positive integer"), and flux-core's V1 checks
 * take 0 GPUs, which asks for none. */
static bool gpu_count (struct ctx *c, const struct loc *l, uint64_t *n)
{
    json_int_t i = json_integer_value (l->v);

    if (i < 0 && c->v1) {
        diag_error (c, l, "must be >= 0");
        return false;
    }
    if (i == 0 && !c->v1) {
        diag_error (c, l, "must be >= 1 (0 GPUs only in jobspec V1)");
        return false;
    }
    *n = 0;
    return i == 0 || want_count (c, l, n);
}

static bool check_resource_count (struct ctx *c, const struct loc *l,
                                  struct rp_jobspec_resource *r)
{
    bool gpu = r && r->type && !strcmp (r->type, "gpu");
    uint64_t n;

    if (json_is_integer (l->v)) {
        if (!(gpu ? gpu_count (c, l, &n) : want_count (c, l, &n)))
            return false;
        if (r) {
            struct rp_range range = { n, n, 1, '+' };
            r->form = RP_JOBSPEC_COUNT_INTEGER;
            r->count = range;
        }
        return true;
    }
    if (c->v1) {
        diag_error (c, l, "must be an integer%s", v1_suffix);
        return false;
    }
    if (json_is_string (l->v))
        return count_string (c, l, r);
    if (json_is_object (l->v))
        return count_dict (c, l, r);
    diag_error (c, l, "must be an integer, a string or a dictionary");
    return false;
}

/* --- resource vertices -------------------------------------------------- */

struct walk {
    struct rp_jobspec_resource *parent;
    struct rp_jobspec_resource *slot; /* enclosing slot */
    int depth;
};

static struct rp_jobspec_resource *new_resource (struct ctx *c)
{
    struct rp_jobspec *js = c->js;
    struct rp_jobspec_resource *r;

    if (js->nall == js->all_size) {
        size_t size = js->all_size ? js->all_size * 2 : 16;
        void *p = realloc (js->all, size * sizeof (js->all[0]));
        if (!p)
            goto nomem;
        js->all = p;
        js->all_size = size;
    }
    if (!(r = calloc (1, sizeof (*r))))
        goto nomem;
    r->index = js->nall;
    js->all[js->nall++] = r;
    return r;
nomem:
    c->nomem = true;
    return NULL;
}

static void add_label (struct ctx *c, const struct loc *l,
                       const struct rp_jobspec_resource *r)
{
    char shown[DOCPATH_SHOW_MAX + 4];
    json_t *index;

    if (json_object_get (c->js->labels, r->label)) {
        diag_error (c, l, "duplicate label \"%s\"",
                    docpath_show (r->label, shown));
        return;
    }
    index = json_integer ((json_int_t)r->index);
    if (!index || json_object_set_new (c->js->labels, r->label, index) < 0)
        c->nomem = true;
}

/* Record r's type in the set of types of every slot r is inside (for
 * per_resource): a resource of a nested slot is inside the outer one too. */
static void add_slot_type (struct ctx *c, struct rp_jobspec_resource *r)
{
    for (struct rp_jobspec_resource *slot = r->slot; slot; slot = slot->slot) {
        if (json_object_get (slot->types, r->type))
            continue;
        if (json_object_set_new (slot->types, r->type,
                                 json_integer (json_object_size (slot->types)))
            < 0)
            c->nomem = true;
    }
}

static void check_vertex_keys (struct ctx *c, const struct loc *l,
                               const char *type)
{
    static const char *const keys[] = { "type", "count", "unit", "exclusive",
                                        "with", "label", "id",   NULL };
    struct loc k;

    check_unknown_keys (c, l, keys);
    require_key (c, l, "type", "");
    require_key (c, l, "count", "");
    if (!c->v1)
        return;
    if (json_object_get (l->v, "id")) {
        k = at_key (l, "id");
        diag_error (c, &k, "not allowed%s", v1_suffix);
    }
    if (json_object_get (l->v, "exclusive") && type && strcmp (type, "node")) {
        k = at_key (l, "exclusive");
        diag_error (c, &k, "not allowed except on a node%s", v1_suffix);
    }
}

static void check_vertex_strings (struct ctx *c, const struct loc *l,
                                  struct rp_jobspec_resource *r)
{
    struct loc k = at_key (l, "label");

    r->unit = opt_string (c, l, "unit");
    r->id = opt_string (c, l, "id");
    if (k.v && (r->label = want_string (c, &k)))
        add_label (c, &k, r);
}

static void check_exclusive (struct ctx *c, const struct loc *l,
                             struct rp_jobspec_resource *r)
{
    struct loc k = at_key (l, "exclusive");

    r->exclusive = r->is_slot || r->slot;
    if (!k.v)
        return;
    if (!json_is_boolean (k.v)) {
        diag_error (c, &k, "must be a boolean");
        return;
    }
    r->exclusive = json_is_true (k.v);
}

static void check_slot (struct ctx *c, const struct loc *l,
                        struct rp_jobspec_resource *r)
{
    require_key (c, l, "label", " (a slot needs a label)");
    require_key (c, l, "with", " (a slot needs at least one resource)");
    if (!(r->types = json_object ()))
        c->nomem = true;
}

static void check_memory_unit (struct ctx *c, const struct loc *l,
                               const struct rp_jobspec_resource *r);
static void check_with (struct ctx *c, const struct loc *l,
                        struct rp_jobspec_resource *r, const struct walk *w);

/* Check the list of vertices at l, linking them as children of w->parent
 * (or as the top-level list) through *tail. */
static void check_vertices (struct ctx *c, const struct loc *l,
                            const struct walk *w,
                            struct rp_jobspec_resource **tail);

/* Check one vertex; returns its model (NULL if it is not a dictionary). */
static struct rp_jobspec_resource *
check_vertex (struct ctx *c, const struct loc *l, const struct walk *w)
{
    struct loc k = at_key (l, "type");
    struct rp_jobspec_resource *r;

    if (!want_object (c, l))
        return NULL;
    check_vertex_keys (c, l, json_string_value (k.v));
    if (!(r = new_resource (c)))
        return NULL;
    r->json = l->v;
    r->parent = w->parent;
    r->slot = w->slot;
    if (k.v && (r->type = want_string (c, &k))) {
        r->is_slot = !strcmp (r->type, "slot");
        add_slot_type (c, r);
    }
    if (r->is_slot)
        check_slot (c, l, r);
    k = at_key (l, "count");
    if (k.v)
        check_resource_count (c, &k, r);
    check_vertex_strings (c, l, r);
    check_exclusive (c, l, r);
    check_memory_unit (c, l, r);
    check_with (c, l, r, w);
    return r;
}

static void check_with (struct ctx *c, const struct loc *l,
                        struct rp_jobspec_resource *r, const struct walk *w)
{
    struct loc k = at_key (l, "with");
    struct walk child = { r, r->is_slot ? r : w->slot, w->depth + 1 };

    if (!k.v || !want_array (c, &k, true))
        return;
    if (child.depth >= RP_JOBSPEC_MAX_RESOURCE_DEPTH) {
        diag_error (c, &k, "resources nest deeper than %d",
                    RP_JOBSPEC_MAX_RESOURCE_DEPTH);
        return;
    }
    check_vertices (c, &k, &child, &r->with);
}

static void check_vertices (struct ctx *c, const struct loc *l,
                            const struct walk *w,
                            struct rp_jobspec_resource **tail)
{
    for (size_t i = 0; i < json_array_size (l->v); i++) {
        struct loc e = at_index (l, i);
        struct rp_jobspec_resource *r = check_vertex (c, &e, w);
        if (r) {
            *tail = r;
            tail = &r->next;
        }
    }
}

/* --- memory units ------------------------------------------------------- */

/* Bytes per unit of a memory count (none: GB), or 0 for an unknown
 * unit. */
static uint64_t unit_bytes (const char *unit)
{
    return unit ? units_bytes (unit) : UINT64_C (1) << 30;
}

static void check_memory_unit (struct ctx *c, const struct loc *l,
                               const struct rp_jobspec_resource *r)
{
    char shown[DOCPATH_SHOW_MAX + 4];
    struct loc k = at_key (l, "unit");

    if (!r->type || strcmp (r->type, "memory") || !r->unit
        || unit_bytes (r->unit))
        return;
    diag_warn (c, &k,
               "unknown memory unit \"%s\" (not counted in memory per slot)",
               docpath_show (r->unit, shown));
}

/* --- V1 resource shapes ------------------------------------------------- */

static const char *vertex_type (const json_t *v)
{
    return json_string_value (json_object_get (v, "type"));
}

static void v1_leaf (struct ctx *c, const struct loc *l)
{
    struct loc k = at_key (l, "with");
    if (k.v)
        diag_error (c, &k, "not allowed%s", v1_suffix);
}

static void v1_slot (struct ctx *c, const struct loc *l)
{
    struct loc w = at_key (l, "with");
    int ncore = 0, ngpu = 0;

    if (!json_is_array (w.v))
        return; /* reported by the canonical checks */
    for (size_t i = 0; i < json_array_size (w.v); i++) {
        struct loc e = at_index (&w, i);
        struct loc t = at_key (&e, "type");
        const char *type = vertex_type (e.v);
        if (!type)
            continue;
        if (strcmp (type, "core") && strcmp (type, "gpu")) {
            diag_error (c, &t, "must be core or gpu%s", v1_suffix);
            continue;
        }
        if ((!strcmp (type, "core") ? ncore++ : ngpu++) > 0)
            diag_error (c, &e, "a slot has at most one %s%s", type, v1_suffix);
        v1_leaf (c, &e);
    }
    if (ncore == 0)
        diag_error (c, l, "a slot must have a core%s", v1_suffix);
}

static void v1_node (struct ctx *c, const struct loc *l)
{
    struct loc w = at_key (l, "with");
    struct loc e, t;

    if (!require_key (c, l, "with", " (required in jobspec V1)")
        || !json_is_array (w.v) || json_array_size (w.v) == 0)
        return;
    if (json_array_size (w.v) != 1) {
        diag_error (c, &w, "must have exactly one element%s", v1_suffix);
        return;
    }
    e = at_index (&w, 0);
    t = at_key (&e, "type");
    if (!vertex_type (e.v))
        return;
    if (strcmp (vertex_type (e.v), "slot"))
        diag_error (c, &t, "must be slot%s", v1_suffix);
    else
        v1_slot (c, &e);
}

static void v1_resources (struct ctx *c, const struct loc *l)
{
    struct loc e = at_index (l, 0);
    struct loc t = at_key (&e, "type");
    const char *type = vertex_type (e.v);

    if (json_array_size (l->v) != 1)
        diag_error (c, l, "must have exactly one element%s", v1_suffix);
    if (!type)
        return;
    if (!strcmp (type, "node"))
        v1_node (c, &e);
    else if (!strcmp (type, "slot"))
        v1_slot (c, &e);
    else
        diag_error (c, &t, "must be node or slot%s", v1_suffix);
}

static void check_resources (struct ctx *c, const struct loc *l)
{
    struct walk top = { NULL, NULL, 0 };

    if (!want_array (c, l, true))
        return;
    check_vertices (c, l, &top, &c->js->resources);
    if (c->v1)
        v1_resources (c, l);
}

/* --- environment, tasks ------------------------------------------------- */

static void check_environment (struct ctx *c, const struct loc *l)
{
    if (!want_object (c, l))
        return;
    for (void *it = json_object_iter (l->v); it;
         it = json_object_iter_next (l->v, it)) {
        struct loc k = at_iter (l, it);
        if (!json_is_string (k.v) && !json_is_null (k.v))
            diag_error (c, &k, "must be a string or null");
    }
}

static void check_command (struct ctx *c, const struct loc *l,
                           struct rp_jobspec_task *t)
{
    size_t n;

    if (!want_array (c, l, true))
        return;
    n = json_array_size (l->v);
    if (!(t->argv = calloc (n + 1, sizeof (t->argv[0])))) {
        c->nomem = true;
        return;
    }
    t->argc = n;
    for (size_t i = 0; i < n; i++) {
        struct loc e = at_index (l, i);
        t->argv[i] = want_string (c, &e);
    }
}

static void task_slot (struct ctx *c, const struct loc *l,
                       struct rp_jobspec_task *t)
{
    char s1[DOCPATH_SHOW_MAX + 4], s2[DOCPATH_SHOW_MAX + 4];
    json_t *index;
    struct rp_jobspec_resource *r;

    if (!(t->slot = want_string (c, l)))
        return;
    index = json_object_get (c->js->labels, t->slot);
    if (!index) {
        diag_error (c, l, "no slot labelled \"%s\"",
                    docpath_show (t->slot, s1));
        return;
    }
    r = c->js->all[json_integer_value (index)];
    if (!r->is_slot) {
        diag_error (c, l, "\"%s\" labels a %s, not a slot",
                    docpath_show (t->slot, s1),
                    docpath_show (r->type ? r->type : "resource", s2));
        return;
    }
    t->slot_res = r;
}

static void per_resource (struct ctx *c, const struct loc *l,
                          struct rp_jobspec_task *t)
{
    static const char *const keys[] = { "type", "count", NULL };
    char s1[DOCPATH_SHOW_MAX + 4], s2[DOCPATH_SHOW_MAX + 4];
    struct loc k = at_key (l, "type");
    struct loc n = at_key (l, "count");

    if (c->v1) {
        diag_error (c, l, "not allowed%s", v1_suffix);
        return;
    }
    if (!want_object (c, l))
        return;
    unknown_keys (c, l, keys, true);
    if (require_key (c, l, "count", ""))
        want_count (c, &n, &t->value);
    if (!require_key (c, l, "type", "") || !(t->type = want_string (c, &k)))
        return;
    if (t->slot_res && !json_object_get (t->slot_res->types, t->type))
        diag_error (c, &k, "no resource of type \"%s\" in slot \"%s\"",
                    docpath_show (t->type, s1), docpath_show (t->slot, s2));
}

static void v1_task_count (struct ctx *c, const struct loc *l,
                           const struct rp_jobspec_task *t)
{
    const struct rp_jobspec_resource *top = c->js->resources;
    uint64_t nnodes;

    if (t->kind == RP_JOBSPEC_PER_SLOT && t->value != 1) {
        diag_error (c, l, "must be 1%s", v1_suffix);
        return;
    }
    if (t->kind != RP_JOBSPEC_TOTAL || !top || !top->type
        || strcmp (top->type, "node") || top->form != RP_JOBSPEC_COUNT_INTEGER)
        return;
    nnodes = top->count.min;
    if (nnodes && t->value < nnodes)
        diag_error (c, l, "must be >= the node count (%llu)%s",
                    (unsigned long long)nnodes, v1_suffix);
}

static void task_count_entry (struct ctx *c, const struct loc *l,
                              struct rp_jobspec_task *t)
{
    if (!strcmp (l->key, "per_resource")) {
        t->kind = RP_JOBSPEC_PER_RESOURCE;
        per_resource (c, l, t);
        return;
    }
    t->kind =
        !strcmp (l->key, "per_slot") ? RP_JOBSPEC_PER_SLOT : RP_JOBSPEC_TOTAL;
    if (want_count (c, l, &t->value) && c->v1)
        v1_task_count (c, l, t);
}

static void check_task_count (struct ctx *c, const struct loc *l,
                              struct rp_jobspec_task *t)
{
    static const char *const kinds[] = { "per_slot", "per_resource", "total",
                                         NULL };
    int n = 0;

    if (!want_object (c, l))
        return;
    for (void *it = json_object_iter (l->v); it;
         it = json_object_iter_next (l->v, it)) {
        struct loc k = at_iter (l, it);
        bool known = in_list (k.key, kinds);
        if (known && n++ == 0)
            task_count_entry (c, &k, t);
        else if (!known && c->v1)
            diag_error (c, &k, "unknown key");
        else if (!known)
            diag_warn (c, &k, "unknown key (reserved for extensions)");
    }
    if (n == 0)
        diag_error (c, l, "must have one of per_slot, per_resource, total");
    else if (n > 1)
        diag_error (c, l,
                    "must have only one of per_slot, per_resource, total");
}

static void check_task_attributes (struct ctx *c, const struct loc *l,
                                   struct rp_jobspec_task *t)
{
    struct loc k = at_key (l, "environment");

    if (!want_object (c, l))
        return;
    t->attributes = l->v;
    if (k.v) {
        check_environment (c, &k);
        t->environment = k.v;
    }
}

static void v1_task_keys (struct ctx *c, const struct loc *l)
{
    struct loc k = at_key (l, "distribution");

    if (k.v)
        diag_error (c, &k, "not allowed%s", v1_suffix);
    if ((k = at_key (l, "attributes")).v)
        diag_error (c, &k, "not allowed%s", v1_suffix);
}

static void check_task (struct ctx *c, const struct loc *l,
                        struct rp_jobspec_task *t)
{
    static const char *const keys[] = { "command",      "slot",       "count",
                                        "distribution", "attributes", NULL };
    struct loc k;

    if (!want_object (c, l))
        return;
    check_unknown_keys (c, l, keys);
    if (c->v1)
        v1_task_keys (c, l);
    if (require_key (c, l, "command", "") && (k = at_key (l, "command")).v)
        check_command (c, &k, t);
    if (require_key (c, l, "slot", "") && (k = at_key (l, "slot")).v)
        task_slot (c, &k, t);
    if (require_key (c, l, "count", "") && (k = at_key (l, "count")).v)
        check_task_count (c, &k, t);
    t->distribution = opt_string (c, l, "distribution");
    if ((k = at_key (l, "attributes")).v && !c->v1)
        check_task_attributes (c, &k, t);
}

static void check_tasks (struct ctx *c, const struct loc *l)
{
    struct rp_jobspec *js = c->js;
    size_t n;

    if (!want_array (c, l, true))
        return;
    n = json_array_size (l->v);
    if (c->v1 && n != 1)
        diag_error (c, l, "must have exactly one element%s", v1_suffix);
    if (!(js->tasks = calloc (n, sizeof (js->tasks[0])))) {
        c->nomem = true;
        return;
    }
    js->ntasks = n;
    for (size_t i = 0; i < n; i++) {
        struct loc e = at_index (l, i);
        js->tasks[i].next = i + 1 < n ? &js->tasks[i + 1] : NULL;
        check_task (c, &e, &js->tasks[i]);
    }
}

/* --- RFC 26 dependencies ------------------------------------------------ */

static void want_one_of (struct ctx *c, const struct loc *up, const char *key,
                         const char *const *values, const char *shown)
{
    struct loc l = at_key (up, key);
    const char *s;

    if (!require_key (c, up, key, ""))
        return;
    if ((s = want_string (c, &l)) && !in_list (s, values))
        diag_error (c, &l, "must be one of %s", shown);
}

/* begin-time's value: seconds since the epoch, a string (RFC 26: every
 * value is a string; flux-core writes str(timestamp)) of decimal digits
 * with an optional fraction ("1632777640.5"). */
static void dependency_begin_time (struct ctx *c, const struct loc *l)
{
    const char *s = want_string (c, l);
    size_t n;

    if (!s)
        return;
    if ((n = strspn (s, "0123456789")) > 0) {
        if (s[n] == '.')
            n += 1 + strspn (s + n + 1, "0123456789");
        if (s[n] == '\0')
            return;
    }
    diag_error (c, l, "must be a timestamp (decimal seconds >= 0)");
}

static void check_dependency (struct ctx *c, const struct loc *l)
{
    static const char *const types[] = { "in", "out", "inout", NULL };
    static const char *const scopes[] = { "user", "global", NULL };
    struct loc k = at_key (l, "value");
    const char *scheme;

    if (!want_object (c, l))
        return;
    scheme = opt_string (c, l, "scheme");
    require_key (c, l, "scheme", "");
    if (require_key (c, l, "value", "")) {
        if (scheme && !strcmp (scheme, "begin-time"))
            dependency_begin_time (c, &k);
        else
            want_string (c, &k);
    }
    if (!scheme || (strcmp (scheme, "string") && strcmp (scheme, "fluid")))
        return;
    want_one_of (c, l, "type", types, "\"in\", \"out\", \"inout\"");
    want_one_of (c, l, "scope", scopes, "\"user\", \"global\"");
}

static void check_dependencies (struct ctx *c, const struct loc *l)
{
    if (!want_array (c, l, true))
        return;
    for (size_t i = 0; i < json_array_size (l->v); i++) {
        struct loc e = at_index (l, i);
        check_dependency (c, &e);
    }
}

/* --- RFC 31 constraints ------------------------------------------------- */

static void check_constraints (struct ctx *c, const struct loc *l)
{
    static const char prefix[] = "constraint: ";
    struct rp_constraint *con;
    rp_error_t e;
    const char *text = e.text;

    if (!want_object (c, l))
        return;
    if ((con = rp_constraint_compile (l->v, &e))) {
        rp_constraint_destroy (con);
        return;
    }
    if (errno == ENOMEM) {
        c->nomem = true;
        return;
    }
    if (!strncmp (text, prefix, strlen (prefix)))
        text += strlen (prefix);
    diag_error (c, l, "%s", text);
}

/* --- RFC 37 files ------------------------------------------------------- */

/* RFC 37: not empty, relative, no "." or ".." component (the RFC's
 * "characters", read as components: "conf.json" is reserved by RFC 14).
 * Empty components ("a//b", "a/") are a path's ordinary spelling. */
static bool valid_archive_path (const char *path)
{
    const char *p = path;

    if (!*path || *path == '/')
        return false;
    while (*p) {
        size_t n = strcspn (p, "/");
        if ((n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        p += n;
        p += strspn (p, "/");
    }
    return true;
}

static bool valid_base64 (const char *s)
{
    size_t len = strlen (s);
    size_t pad = 0;

    if (len % 4)
        return false;
    while (pad < 2 && pad < len && s[len - 1 - pad] == '=')
        pad++;
    for (size_t i = 0; i < len - pad; i++) {
        if (!strchr ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                     "0123456789+/",
                     s[i]))
            return false;
    }
    return true;
}

static void forbid (struct ctx *c, const struct loc *l, const char *key,
                    const char *what)
{
    struct loc k = at_key (l, key);
    if (k.v)
        diag_error (c, &k, "not allowed for a %s", what);
}

static void want_integer (struct ctx *c, const struct loc *up, const char *key,
                          bool nonnegative)
{
    struct loc l = at_key (up, key);

    if (!l.v)
        return;
    if (!json_is_integer (l.v))
        diag_error (c, &l, "must be an integer");
    else if (nonnegative && json_integer_value (l.v) < 0)
        diag_error (c, &l, "must be >= 0");
}

static void check_blobvec (struct ctx *c, const struct loc *l)
{
    if (!want_array (c, l, false))
        return;
    for (size_t i = 0; i < json_array_size (l->v); i++) {
        struct loc e = at_index (l, i);
        json_t *v = e.v;
        if (!json_is_array (v) || json_array_size (v) != 3
            || !json_is_integer (json_array_get (v, 0))
            || json_integer_value (json_array_get (v, 0)) < 0
            || !json_is_integer (json_array_get (v, 1))
            || json_integer_value (json_array_get (v, 1)) < 0
            || !json_is_string (json_array_get (v, 2)))
            diag_error (c, &e, "must be [offset, size, blobref]");
    }
}

static void file_data (struct ctx *c, const struct loc *l, const char *encoding)
{
    struct loc d = at_key (l, "data");
    const char *s;

    if (!require_key (c, l, "data", ""))
        return;
    if (!strcmp (encoding, "blobvec")) {
        check_blobvec (c, &d);
        return;
    }
    if ((s = want_string (c, &d)) && !strcmp (encoding, "base64")
        && !valid_base64 (s))
        diag_error (c, &d, "not valid base64");
}

static void regular_file (struct ctx *c, const struct loc *l)
{
    static const char *const encodings[] = { "utf-8", "base64", "blobvec",
                                             NULL };
    struct loc k = at_key (l, "encoding");
    const char *enc;

    if (!k.v) {
        bool has_data = json_object_get (l->v, "data") != NULL;
        if (has_data)
            forbid (c, l, "size", "file with JSON content");
        else
            require_key (c, l, "size", " (an empty file needs a size)");
        return;
    }
    if (!(enc = want_string (c, &k)))
        return;
    if (!in_list (enc, encodings)) {
        diag_error (c, &k, "must be one of \"utf-8\", \"base64\", \"blobvec\"");
        return;
    }
    require_key (c, l, "size", "");
    file_data (c, l, enc);
}

static void file_by_type (struct ctx *c, const struct loc *l, json_int_t mode)
{
    struct loc k = at_key (l, "mode");
    struct loc d = at_key (l, "data");

    if (S_ISREG (mode)) {
        regular_file (c, l);
    } else if (S_ISDIR (mode)) {
        forbid (c, l, "size", "directory");
        forbid (c, l, "data", "directory");
        forbid (c, l, "encoding", "directory");
    } else if (S_ISLNK (mode)) {
        forbid (c, l, "size", "symbolic link");
        forbid (c, l, "encoding", "symbolic link");
        if (require_key (c, l, "data", " (a symbolic link needs a target)"))
            want_string (c, &d);
    } else
        diag_error (c, &k,
                    "must be a regular file, directory or symbolic link");
}

static void check_file (struct ctx *c, const struct loc *l)
{
    /* "path" is refused below, with its own message */
    static const char *const keys[] = { "mode", "mtime",    "ctime", "size",
                                        "data", "encoding", "path",  NULL };
    struct loc k = at_key (l, "mode");
    json_int_t mode;

    if (!want_object (c, l))
        return;
    if (json_object_get (l->v, "path")) {
        struct loc p = at_key (l, "path");
        diag_error (c, &p, "not allowed in a dictionary archive");
    }
    unknown_keys (c, l, keys, true);
    want_integer (c, l, "mtime", false);
    want_integer (c, l, "ctime", false);
    want_integer (c, l, "size", true);
    if (!require_key (c, l, "mode", ""))
        return;
    if (!json_is_integer (k.v)) {
        diag_error (c, &k, "must be an integer");
        return;
    }
    mode = json_integer_value (k.v);
    if (mode < 0 || mode > 0xffffffff) {
        diag_error (c, &k, "must be a file mode");
        return;
    }
    file_by_type (c, l, mode);
}

static void check_files (struct ctx *c, const struct loc *l)
{
    if (!json_is_object (l->v)) {
        diag_error (c, l,
                    "must be a dictionary (an RFC 37 dictionary archive)");
        return;
    }
    for (void *it = json_object_iter (l->v); it;
         it = json_object_iter_next (l->v, it)) {
        struct loc k = at_iter (l, it);
        if (!valid_archive_path (k.key))
            diag_error (c, &k,
                        "path must be relative and not empty, without \".\" "
                        "or \"..\" components");
        check_file (c, &k);
    }
}

/* --- attributes --------------------------------------------------------- */

static void check_cwd (struct ctx *c, const struct loc *l)
{
    const char *s = want_string (c, l);
    if (s && s[0] != '/')
        diag_error (c, l, "must be an absolute path");
}

static void check_job (struct ctx *c, const struct loc *l)
{
    if (!want_object (c, l))
        return;
    for (void *it = json_object_iter (l->v); it;
         it = json_object_iter_next (l->v, it)) {
        struct loc k = at_iter (l, it);
        want_string (c, &k);
    }
}

static void check_shell (struct ctx *c, const struct loc *l)
{
    struct loc k = at_key (l, "options");

    if (want_object (c, l) && k.v)
        want_object (c, &k);
}

static void check_string_attr (struct ctx *c, const struct loc *l)
{
    want_string (c, l);
}

static void check_seconds (struct ctx *c, const struct loc *l)
{
    want_nonnegative (c, l);
}

static const struct {
    const char *name;
    void (*check) (struct ctx *c, const struct loc *l);
} system_attrs[] = {
    { "duration", check_seconds },
    { "preemptible-after", check_seconds },
    { "environment", check_environment },
    { "cwd", check_cwd },
    { "queue", check_string_attr },
    { "bank", check_string_attr },
    { "project", check_string_attr },
    { "dependencies", check_dependencies },
    { "constraints", check_constraints },
    { "job", check_job },
    { "shell", check_shell },
    { "files", check_files },
};

static void check_system_attr (struct ctx *c, const struct loc *l)
{
    for (size_t i = 0; i < sizeof (system_attrs) / sizeof (system_attrs[0]);
         i++) {
        if (!strcmp (l->key, system_attrs[i].name)) {
            system_attrs[i].check (c, l);
            return;
        }
    }
    diag_warn (c, l, "unknown system attribute");
}

/* attributes.system and .user: RFC 14 "if present, must have values". */
static bool want_values (struct ctx *c, const struct loc *l)
{
    if (!want_object (c, l))
        return false;
    if (json_object_size (l->v) > 0)
        return true;
    diag_error (c, l, "must not be empty");
    return false;
}

static void check_system (struct ctx *c, const struct loc *l)
{
    if (!want_values (c, l))
        return;
    c->js->system = l->v;
    if (c->v1)
        require_key (c, l, "duration", " (required in jobspec V1)");
    for (void *it = json_object_iter (l->v); it;
         it = json_object_iter_next (l->v, it)) {
        struct loc k = at_iter (l, it);
        check_system_attr (c, &k);
    }
}

static void check_attributes (struct ctx *c, const struct loc *l)
{
    static const char *const keys[] = { "system", "user", NULL };
    struct loc k;

    if (!want_object (c, l))
        return;
    check_unknown_keys (c, l, keys);
    if (c->v1)
        require_key (c, l, "system", " (required in jobspec V1)");
    if ((k = at_key (l, "system")).v)
        check_system (c, &k);
    if ((k = at_key (l, "user")).v && want_values (c, &k))
        c->js->user = k.v;
}

/* --- the document ------------------------------------------------------- */

static void check_version (struct ctx *c, const struct loc *l)
{
    if (!json_is_integer (l->v)) {
        diag_error (c, l, "must be an integer");
        return;
    }
    c->js->version = json_integer_value (l->v);
    if (c->v1 && c->js->version != 1)
        diag_error (c, l, "must be 1%s", v1_suffix);
    else if (c->js->version < 1)
        diag_error (c, l, "must be >= 1");
}

static void check_document (struct ctx *c, json_t *root)
{
    static const char *const keys[] = { "version", "resources", "tasks",
                                        "attributes", NULL };
    struct loc top = { NULL, NULL, NULL, 0, root };
    struct loc k;

    if (!json_is_object (root)) {
        diag_error (c, &top, "jobspec must be a dictionary");
        return;
    }
    check_unknown_keys (c, &top, keys);
    for (const char *const *key = keys; *key; key++)
        require_key (c, &top, *key, "");
    if ((k = at_key (&top, "version")).v)
        check_version (c, &k);
    if ((k = at_key (&top, "resources")).v)
        check_resources (c, &k);
    if ((k = at_key (&top, "tasks")).v)
        check_tasks (c, &k);
    if ((k = at_key (&top, "attributes")).v)
        check_attributes (c, &k);
}

/* --- derived facts ------------------------------------------------------ */

/* Count n instances of r in one slot's per-type counts and memory. */
static void add_to_slot (struct rp_jobspec_resource *slot,
                         const struct rp_jobspec_resource *r, uint64_t n)
{
    size_t i = json_integer_value (json_object_get (slot->types, r->type));
    uint64_t bytes;

    slot->type_n[i] = sat_add (slot->type_n[i], n);
    if (strcmp (r->type, "memory") || !(bytes = unit_bytes (r->unit)))
        return;
    slot->memory = sat_add (slot->memory, sat_mul (n, bytes));
}

/* Count r in every slot it is inside: in one slot, the product of the
 * counts from r up to, not including, that slot. */
static void add_to_slots (struct rp_jobspec_resource *r)
{
    uint64_t n = r->count.min;

    for (struct rp_jobspec_resource *p = r->parent; p; p = p->parent) {
        if (p->is_slot)
            add_to_slot (p, r, n);
        n = sat_mul (n, p->count.min);
    }
}

/* Totals, top down: js->all is in document (pre-)order, so a parent is
 * always done before its children. */
static int derive_resources (struct rp_jobspec *js)
{
    for (size_t i = 0; i < js->nall; i++) {
        struct rp_jobspec_resource *r = js->all[i];
        if (r->is_slot
            && !(r->type_n = calloc (json_object_size (r->types) + 1,
                                     sizeof (uint64_t))))
            return -1;
    }
    for (size_t i = 0; i < js->nall; i++) {
        struct rp_jobspec_resource *r = js->all[i];
        struct rp_jobspec_resource *p = r->parent;
        r->total = sat_mul (p ? p->total : 1, r->count.min);
        if (r->slot)
            add_to_slots (r);
    }
    return 0;
}

static bool has_node_ancestor (const struct rp_jobspec_resource *r)
{
    for (r = r->parent; r; r = r->parent) {
        if (!strcmp (r->type, "node"))
            return true;
    }
    return false;
}

static bool count_exact (const struct rp_jobspec_resource *r)
{
    if (r->idset)
        return rp_idset_count (r->idset) == 1;
    return r->count.min == r->count.max;
}

static bool same_shape (const struct rp_jobspec_resource *slot,
                        const struct rp_jobspec_facts *f)
{
    return rp_jobspec_slot_count_type (slot, "core") == f->cores_per_slot
           && rp_jobspec_slot_count_type (slot, "gpu") == f->gpus_per_slot
           && slot->memory == f->memory_per_slot;
}

static void derive_slot_facts (struct rp_jobspec *js,
                               const struct rp_jobspec_resource *r, bool *first)
{
    struct rp_jobspec_facts *f = &js->facts;

    f->nslots = sat_add (f->nslots, r->total);
    if (*first) {
        f->cores_per_slot = rp_jobspec_slot_count_type (r, "core");
        f->gpus_per_slot = rp_jobspec_slot_count_type (r, "gpu");
        f->memory_per_slot = r->memory;
        *first = false;
    } else if (!same_shape (r, f))
        f->uniform = false;
}

static void derive_task (struct rp_jobspec_task *t)
{
    const struct rp_jobspec_resource *slot = t->slot_res;

    if (t->kind == RP_JOBSPEC_TOTAL)
        t->ntasks = t->value;
    else if (t->kind == RP_JOBSPEC_PER_SLOT)
        t->ntasks = sat_mul (t->value, slot->total);
    else
        t->ntasks = sat_mul (
            sat_mul (t->value, rp_jobspec_slot_count_type (slot, t->type)),
            slot->total);
}

static json_t *system_get (const struct rp_jobspec *js, const char *key)
{
    return js ? json_object_get (js->system, key) : NULL;
}

static int derive (struct rp_jobspec *js)
{
    struct rp_jobspec_facts *f = &js->facts;
    bool first = true;

    if (derive_resources (js) < 0)
        return -1;
    f->exclusive = f->exact = f->uniform = true;
    for (size_t i = 0; i < js->nall; i++) {
        const struct rp_jobspec_resource *r = js->all[i];
        if (r->is_slot && !r->slot) /* a nested slot is in its shape */
            derive_slot_facts (js, r, &first);
        if (!strcmp (r->type, "node") && !has_node_ancestor (r))
            f->nnodes = sat_add (f->nnodes, r->total);
        f->exclusive &= r->exclusive;
        f->exact &= count_exact (r);
    }
    for (size_t i = 0; i < js->ntasks; i++) {
        derive_task (&js->tasks[i]);
        f->ntasks = sat_add (f->ntasks, js->tasks[i].ntasks);
    }
    f->duration = json_number_value (system_get (js, "duration"));
    js->constraints = system_get (js, "constraints");
    return 0;
}

/* --- construction ------------------------------------------------------- */

static void resource_destroy (struct rp_jobspec_resource *r)
{
    rp_idset_destroy (r->idset);
    json_decref (r->types);
    free (r->type_n);
    free (r);
}

struct rp_jobspec *rp_jobspec_copy (const struct rp_jobspec *js)
{
    struct rp_jobspec *mut = (struct rp_jobspec *)js; /* the count only */

    if (!js) {
        errno = EINVAL;
        return NULL;
    }
    atomic_fetch_add (&mut->refs, 1);
    return mut;
}

void rp_jobspec_destroy (struct rp_jobspec *js)
{
    int saved_errno = errno;

    if (!js || atomic_fetch_sub (&js->refs, 1) > 1)
        return;
    for (size_t i = 0; i < js->nall; i++)
        resource_destroy (js->all[i]);
    free (js->all);
    for (size_t i = 0; i < js->ntasks; i++)
        free (js->tasks[i].argv);
    free (js->tasks);
    json_decref (js->labels);
    rp_doc_destroy (js->doc);
    free (js);
    errno = saved_errno;
}

/* Takes ownership of doc. */
static struct rp_jobspec *from_doc (struct rp_doc *doc,
                                    enum rp_jobspec_profile profile,
                                    struct rp_diags *diags)
{
    struct rp_jobspec *js = calloc (1, sizeof (*js));
    struct ctx c = { js, doc, diags, profile == RP_JOBSPEC_V1, 0, false };

    if (!js || !(js->labels = json_object ())) {
        free (js);
        rp_doc_destroy (doc);
        errno = ENOMEM;
        return NULL;
    }
    atomic_init (&js->refs, 1);
    js->doc = doc;
    js->profile = profile;
    check_document (&c, rp_doc_root (doc));
    if (c.nomem || (c.errors == 0 && derive (js) < 0))
        goto nomem;
    if (c.errors > 0) {
        rp_jobspec_destroy (js);
        errno = EINVAL;
        return NULL;
    }
    return js;
nomem:
    rp_jobspec_destroy (js);
    errno = ENOMEM;
    return NULL;
}

static bool valid_profile (enum rp_jobspec_profile profile)
{
    return profile == RP_JOBSPEC_V1 || profile == RP_JOBSPEC_CANONICAL;
}

static struct rp_jobspec *load_failed (struct rp_diags *diags,
                                       const rp_error_t *e)
{
    int saved_errno = errno;

    if (diags)
        rp_diags_add (diags, RP_DIAG_ERROR, "%s", e->text);
    errno = saved_errno;
    return NULL;
}

struct rp_jobspec *rp_jobspec_load (const char *buf, size_t len,
                                    const char *name,
                                    enum rp_jobspec_profile profile,
                                    struct rp_diags *diags)
{
    struct rp_doc *doc;
    rp_error_t e;

    if ((!buf && len) || !name || !valid_profile (profile)) {
        errno = EINVAL;
        return NULL;
    }
    if (!(doc = rp_doc_load (buf ? buf : "", len, name, RP_DOC_AUTO, &e)))
        return load_failed (diags, &e);
    return from_doc (doc, profile, diags);
}

struct rp_jobspec *rp_jobspec_load_file (const char *path,
                                         enum rp_jobspec_profile profile,
                                         struct rp_diags *diags)
{
    struct rp_doc *doc;
    rp_error_t e;

    if (!path || !valid_profile (profile)) {
        errno = EINVAL;
        return NULL;
    }
    if (!(doc = rp_doc_load_file (path, RP_DOC_AUTO, &e)))
        return load_failed (diags, &e);
    return from_doc (doc, profile, diags);
}

/* True when o nests containers more than budget levels deep. */
static bool too_deep (json_t *o, int budget)
{
    if (!json_is_array (o) && !json_is_object (o))
        return false;
    if (budget == 0)
        return true;
    for (size_t i = 0; i < json_array_size (o); i++) {
        if (too_deep (json_array_get (o, i), budget - 1))
            return true;
    }
    for (void *it = json_object_iter (o); it;
         it = json_object_iter_next (o, it)) {
        if (too_deep (json_object_iter_value (it), budget - 1))
            return true;
    }
    return false;
}

struct rp_jobspec *rp_jobspec_from_json (const json_t *root, const char *name,
                                         enum rp_jobspec_profile profile,
                                         struct rp_diags *diags)
{
    json_t *copy;
    struct rp_doc *doc;

    if (!root || !name || !valid_profile (profile)) {
        errno = EINVAL;
        return NULL;
    }
    if (too_deep ((json_t *)root, RP_DOC_MAX_DEPTH)) {
        if (diags)
            rp_diags_add (diags, RP_DIAG_ERROR,
                          "%s: document nests deeper than %d", name,
                          RP_DOC_MAX_DEPTH);
        errno = EINVAL;
        return NULL;
    }
    if (!(copy = json_deep_copy (root))) {
        errno = ENOMEM;
        return NULL;
    }
    doc = rp_doc_from_json (copy, name);
    json_decref (copy);
    if (!doc) {
        errno = ENOMEM;
        return NULL;
    }
    return from_doc (doc, profile, diags);
}

int rp_jobspec_profile_parse (const char *name,
                              enum rp_jobspec_profile *profile)
{
    if (!name || !profile)
        return rp_error_set (NULL, EINVAL, "invalid argument");
    if (!strcmp (name, "v1"))
        *profile = RP_JOBSPEC_V1;
    else if (!strcmp (name, "canonical"))
        *profile = RP_JOBSPEC_CANONICAL;
    else
        return rp_error_set (NULL, EINVAL, "unknown profile");
    return 0;
}

/* --- accessors ---------------------------------------------------------- */

const struct rp_doc *rp_jobspec_doc (const struct rp_jobspec *js)
{
    return js ? js->doc : NULL;
}

json_t *rp_jobspec_json (const struct rp_jobspec *js)
{
    return js ? rp_doc_root (js->doc) : NULL;
}

enum rp_jobspec_profile rp_jobspec_profile (const struct rp_jobspec *js)
{
    return js ? js->profile : RP_JOBSPEC_V1;
}

long long rp_jobspec_version (const struct rp_jobspec *js)
{
    return js ? js->version : 0;
}

const struct rp_jobspec_facts *rp_jobspec_facts (const struct rp_jobspec *js)
{
    return js ? &js->facts : NULL;
}

json_t *rp_jobspec_system (const struct rp_jobspec *js)
{
    return js ? js->system : NULL;
}

json_t *rp_jobspec_user (const struct rp_jobspec *js)
{
    return js ? js->user : NULL;
}

double rp_jobspec_duration (const struct rp_jobspec *js)
{
    return js ? js->facts.duration : 0;
}

const char *rp_jobspec_queue (const struct rp_jobspec *js)
{
    return json_string_value (system_get (js, "queue"));
}

const char *rp_jobspec_cwd (const struct rp_jobspec *js)
{
    return json_string_value (system_get (js, "cwd"));
}

const char *rp_jobspec_job_name (const struct rp_jobspec *js)
{
    return json_string_value (json_object_get (system_get (js, "job"), "name"));
}

json_t *rp_jobspec_environment (const struct rp_jobspec *js)
{
    return system_get (js, "environment");
}

json_t *rp_jobspec_constraints (const struct rp_jobspec *js)
{
    return js ? js->constraints : NULL;
}

json_t *rp_jobspec_dependencies (const struct rp_jobspec *js)
{
    return system_get (js, "dependencies");
}

json_t *rp_jobspec_files (const struct rp_jobspec *js)
{
    return system_get (js, "files");
}

const struct rp_jobspec_resource *
rp_jobspec_resource_first (const struct rp_jobspec *js)
{
    return js ? js->resources : NULL;
}

const struct rp_jobspec_resource *
rp_jobspec_resource_next (const struct rp_jobspec_resource *r)
{
    return r ? r->next : NULL;
}

const struct rp_jobspec_resource *
rp_jobspec_resource_with_first (const struct rp_jobspec_resource *r)
{
    return r ? r->with : NULL;
}

const struct rp_jobspec_resource *
rp_jobspec_resource_parent (const struct rp_jobspec_resource *r)
{
    return r ? r->parent : NULL;
}

const char *rp_jobspec_resource_type (const struct rp_jobspec_resource *r)
{
    return r ? r->type : NULL;
}

const char *rp_jobspec_resource_label (const struct rp_jobspec_resource *r)
{
    return r ? r->label : NULL;
}

const char *rp_jobspec_resource_unit (const struct rp_jobspec_resource *r)
{
    return r ? r->unit : NULL;
}

const char *rp_jobspec_resource_id (const struct rp_jobspec_resource *r)
{
    return r ? r->id : NULL;
}

bool rp_jobspec_resource_exclusive (const struct rp_jobspec_resource *r)
{
    return r ? r->exclusive : false;
}

json_t *rp_jobspec_resource_json (const struct rp_jobspec_resource *r)
{
    return r ? r->json : NULL;
}

enum rp_jobspec_count_form
rp_jobspec_resource_count_form (const struct rp_jobspec_resource *r)
{
    return r ? r->form : RP_JOBSPEC_COUNT_INTEGER;
}

const struct rp_range *
rp_jobspec_resource_count (const struct rp_jobspec_resource *r)
{
    return r ? &r->count : NULL;
}

const struct rp_idset *
rp_jobspec_resource_count_idset (const struct rp_jobspec_resource *r)
{
    return r ? r->idset : NULL;
}

bool rp_jobspec_resource_count_contains (const struct rp_jobspec_resource *r,
                                         uint64_t value)
{
    if (!r)
        return false;
    if (r->form == RP_JOBSPEC_COUNT_INTEGER)
        return value == r->count.min;
    if (r->idset)
        return value <= RP_IDSET_MAX_ID
               && rp_idset_test (r->idset, (unsigned int)value);
    return rp_range_contains (&r->count, value);
}

uint64_t rp_jobspec_resource_total (const struct rp_jobspec_resource *r)
{
    return r ? r->total : 0;
}

const struct rp_jobspec_resource *
rp_jobspec_slot_find (const struct rp_jobspec *js, const char *label)
{
    json_t *index;
    struct rp_jobspec_resource *r;

    if (!js || !label || !(index = json_object_get (js->labels, label)))
        return NULL;
    r = js->all[json_integer_value (index)];
    return r->is_slot ? r : NULL;
}

uint64_t rp_jobspec_slot_count_type (const struct rp_jobspec_resource *slot,
                                     const char *type)
{
    json_t *index;

    if (!slot || !slot->is_slot || !type || !slot->type_n
        || !(index = json_object_get (slot->types, type)))
        return 0;
    return slot->type_n[json_integer_value (index)];
}

uint64_t rp_jobspec_slot_memory (const struct rp_jobspec_resource *slot)
{
    return slot && slot->is_slot ? slot->memory : 0;
}

const struct rp_jobspec_task *
rp_jobspec_task_first (const struct rp_jobspec *js)
{
    return js && js->ntasks ? &js->tasks[0] : NULL;
}

const struct rp_jobspec_task *
rp_jobspec_task_next (const struct rp_jobspec_task *t)
{
    return t ? t->next : NULL;
}

const char *const *rp_jobspec_task_argv (const struct rp_jobspec_task *t,
                                         size_t *argc)
{
    if (argc)
        *argc = t ? t->argc : 0;
    return t ? t->argv : NULL;
}

const char *rp_jobspec_task_slot (const struct rp_jobspec_task *t)
{
    return t ? t->slot : NULL;
}

const struct rp_jobspec_resource *
rp_jobspec_task_slot_resource (const struct rp_jobspec_task *t)
{
    return t ? t->slot_res : NULL;
}

enum rp_jobspec_task_count_kind
rp_jobspec_task_count_kind (const struct rp_jobspec_task *t)
{
    return t ? t->kind : RP_JOBSPEC_PER_SLOT;
}

uint64_t rp_jobspec_task_count_value (const struct rp_jobspec_task *t)
{
    return t ? t->value : 0;
}

const char *rp_jobspec_task_count_type (const struct rp_jobspec_task *t)
{
    return t && t->kind == RP_JOBSPEC_PER_RESOURCE ? t->type : NULL;
}

uint64_t rp_jobspec_task_ntasks (const struct rp_jobspec_task *t)
{
    return t ? t->ntasks : 0;
}

const char *rp_jobspec_task_distribution (const struct rp_jobspec_task *t)
{
    return t ? t->distribution : NULL;
}

json_t *rp_jobspec_task_attributes (const struct rp_jobspec_task *t)
{
    return t ? t->attributes : NULL;
}

json_t *rp_jobspec_task_environment (const struct rp_jobspec_task *t)
{
    return t ? t->environment : NULL;
}
