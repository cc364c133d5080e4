/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Task maps (RFC 34).  See api/respol/taskmap.h for the contract.
 *
 * A map is an array of blocks in task order, each with the id of its
 * first task, so the node of a task is a binary search and the tasks of a
 * node one pass over the blocks.  Nothing is expanded: every bound
 * (RP_TASKMAP_MAX_NODES, _TASKS, _REPEATS) is checked on the numbers
 * before a block is stored, so a lookup or an encoding never costs more
 * than the bounds allow.
 *
 * rp_taskmap_append merges as flux-core's taskmap_append does: a block
 * that continues the last one (next node, same ppn, not repeated) extends
 * it; the same single node again grows its ppn; the same block again
 * counts a repeat; and a last block equal to the one before it (nodeid,
 * nnodes, ppn) folds into its repeat.  That is what turns the raw and PMI
 * forms into the RFC 34 test vectors.  One difference: flux-core grows
 * the ppn of a repeated single-node block, which changes every repeat;
 * here only a block with repeat 1 grows.  The JSON forms are stored as
 * written, so decode then encode gives the same blocks back.
 *
 * The four text forms are told apart as flux-core does: empty or holding
 * "vector," is PMI, no bracket or parenthesis is raw, else JSON.
 * Deviations (doc/conformance.md): the PMI form is read strictly by RFC
 * 13's grammar (flux-core skips white space and stray text); a raw map
 * keeps empty elements as nodes without tasks (flux-core drops them and
 * renumbers the nodes after them); the wrapped object may hold only
 * "version" and "map".
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/idset.h"
#include "respol/taskmap.h"

struct block {
    unsigned int start;
    unsigned int nnodes;
    unsigned int ppn;
    unsigned int repeat;
    uint64_t first; /* id of the block's first task */
};

struct rp_taskmap {
    struct block *b;
    size_t n, cap;
    uint64_t ntasks;
    uint64_t nrepeats; /* sum of repeat over the blocks */
    unsigned int nnodes;
};

#define SHOW_MAX 64

static uint64_t block_ntasks (const struct block *b)
{
    return (uint64_t)b->nnodes * b->ppn * b->repeat;
}

static uint64_t block_span (const struct block *b)
{
    return (uint64_t)b->nnodes * b->ppn;
}

struct rp_taskmap *rp_taskmap_create (void)
{
    return calloc (1, sizeof (struct rp_taskmap));
}

void rp_taskmap_destroy (struct rp_taskmap *map)
{
    if (map) {
        int saved_errno = errno;
        free (map->b);
        free (map);
        errno = saved_errno;
    }
}

struct rp_taskmap *rp_taskmap_copy (const struct rp_taskmap *map)
{
    struct rp_taskmap *copy;

    if (!map) {
        errno = EINVAL;
        return NULL;
    }
    if (!(copy = rp_taskmap_create ()))
        return NULL;
    *copy = *map;
    copy->cap = map->n;
    copy->b = NULL;
    if (map->n && !(copy->b = malloc (map->n * sizeof (*map->b)))) {
        free (copy);
        return NULL;
    }
    if (map->n)
        memcpy (copy->b, map->b, map->n * sizeof (*map->b));
    return copy;
}

/* --- building ----------------------------------------------------------- */

static int push_block (struct rp_taskmap *map, unsigned int start,
                       unsigned int nnodes, unsigned int ppn,
                       unsigned int repeat)
{
    struct block *b;

    if (map->n == map->cap) {
        size_t cap = map->cap ? map->cap * 2 : 8;
        struct block *nb = realloc (map->b, cap * sizeof (*nb));
        if (!nb)
            return -1;
        map->b = nb;
        map->cap = cap;
    }
    b = &map->b[map->n];
    *b = (struct block){ start, nnodes, ppn, repeat, map->ntasks };
    map->n++;
    map->ntasks += block_ntasks (b);
    map->nrepeats += repeat;
    if (start + nnodes > map->nnodes)
        map->nnodes = start + nnodes;
    return 0;
}

/* Check a block's numbers against the bounds, given the map it joins. */
static int block_check (const struct rp_taskmap *map, uint64_t start,
                        uint64_t nnodes, uint64_t ppn, uint64_t repeat,
                        rp_error_t *error)
{
    uint64_t span;

    if (start >= RP_TASKMAP_MAX_NODES || nnodes > RP_TASKMAP_MAX_NODES - start)
        return rp_error_set (error, EOVERFLOW,
                             "node %llu is above the largest node id %u",
                             (unsigned long long)(start >= RP_TASKMAP_MAX_NODES
                                                      ? start
                                                      : start + nnodes - 1),
                             RP_TASKMAP_MAX_NODES - 1);
    if (repeat > RP_TASKMAP_MAX_REPEATS - map->nrepeats)
        return rp_error_set (error, EOVERFLOW,
                             "more than %u blocks (counting repeats)",
                             RP_TASKMAP_MAX_REPEATS);
    if (ppn > RP_TASKMAP_MAX_TASKS
        || (span = nnodes * ppn) > RP_TASKMAP_MAX_TASKS
        || span * repeat > RP_TASKMAP_MAX_TASKS - map->ntasks)
        return rp_error_set (error, EOVERFLOW, "more than %u tasks",
                             RP_TASKMAP_MAX_TASKS);
    return 0;
}

/* The last block equal to the one before it folds into its repeat. */
static void fold_repeat (struct rp_taskmap *map)
{
    struct block *prev, *last;

    if (map->n < 2)
        return;
    prev = &map->b[map->n - 2];
    last = &map->b[map->n - 1];
    if (prev->start == last->start && prev->nnodes == last->nnodes
        && prev->ppn == last->ppn) {
        prev->repeat += last->repeat;
        map->n--;
    }
}

/* Merge (nodeid, nnodes, ppn) into the last block when flux-core would.
 * Returns true when merged.  Bounds were checked by the caller. */
static bool merge_last (struct rp_taskmap *map, unsigned int nodeid,
                        unsigned int nnodes, unsigned int ppn)
{
    struct block *last = map->n ? &map->b[map->n - 1] : NULL;

    if (!last)
        return false;
    if (nodeid == last->start + last->nnodes && ppn == last->ppn
        && last->repeat == 1)
        last->nnodes += nnodes;
    else if (nodeid == last->start && last->nnodes == 1 && nnodes == 1
             && last->repeat == 1)
        last->ppn += ppn;
    else if (nodeid == last->start && nnodes == last->nnodes
             && ppn == last->ppn) {
        last->repeat++;
        map->nrepeats++;
    } else
        return false;
    map->ntasks += (uint64_t)nnodes * ppn;
    if (nodeid + nnodes > map->nnodes)
        map->nnodes = nodeid + nnodes;
    fold_repeat (map);
    return true;
}

/* Append with the bounds checked; messages without the "taskmap: " prefix. */
static int append_block (struct rp_taskmap *map, uint64_t nodeid,
                         uint64_t nnodes, uint64_t ppn, rp_error_t *error)
{
    if (nnodes == 0 || ppn == 0)
        return rp_error_set (error, EINVAL, "nnodes and ppn must be >= 1");
    if (block_check (map, nodeid, nnodes, ppn, 1, error) < 0)
        return -1;
    if (merge_last (map, nodeid, nnodes, ppn))
        return 0;
    if (push_block (map, nodeid, nnodes, ppn, 1) < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    return 0;
}

int rp_taskmap_append (struct rp_taskmap *map, unsigned int nodeid,
                       unsigned int nnodes, unsigned int ppn, rp_error_t *error)
{
    if (!map)
        return rp_error_set (error, EINVAL, "taskmap: no map");
    if (append_block (map, nodeid, nnodes, ppn, error) < 0)
        return rp_error_prefix (error, "taskmap");
    return 0;
}

/* --- JSON --------------------------------------------------------------- */

/* One block [nodeid, nnodes, ppn, repeat] at map[i]. */
static int block_from_json (struct rp_taskmap *map, size_t i, const json_t *a,
                            rp_error_t *error)
{
    static const char *const names[] = { "nodeid", "nnodes", "ppn", "repeat" };
    json_int_t v[4];

    if (!json_is_array (a) || json_array_size (a) != 4)
        return rp_error_set (error, EINVAL,
                             "map[%zu]: must be an array of 4 integers "
                             "[nodeid, nnodes, ppn, repeat]",
                             i);
    for (int k = 0; k < 4; k++) {
        json_t *e = json_array_get (a, k);
        if (!json_is_integer (e))
            return rp_error_set (
                error, EINVAL, "map[%zu]: %s must be an integer", i, names[k]);
        v[k] = json_integer_value (e);
        if (v[k] < (k == 0 ? 0 : 1))
            return rp_error_set (error, EINVAL, "map[%zu]: %s must be >= %d", i,
                                 names[k], k == 0 ? 0 : 1);
    }
    if (block_check (map, v[0], v[1], v[2], v[3], error) < 0)
        return rp_error_prefix (error, "map[%zu]", i);
    if (push_block (map, v[0], v[1], v[2], v[3]) < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    return 0;
}

/* The array of blocks, or the wrapped object's map, into a new map. */
static const json_t *unwrap (const json_t *o, rp_error_t *error)
{
    const char *key;
    json_t *v;
    json_t *version = json_object_get (o, "version");
    json_t *array = json_object_get (o, "map");

    json_object_foreach ((json_t *)o, key, v) {
        if (strcmp (key, "version") != 0 && strcmp (key, "map") != 0) {
            rp_error_set (error, EINVAL, "\"%.*s\": unknown key", SHOW_MAX,
                          key);
            return NULL;
        }
    }
    if (!version || !array) {
        rp_error_set (error, EINVAL, "%s: missing",
                      version ? "map" : "version");
        return NULL;
    }
    if (!json_is_integer (version) || json_integer_value (version) != 1) {
        rp_error_set (error, EINVAL, "version: must be 1");
        return NULL;
    }
    if (!json_is_array (array)) {
        rp_error_set (error, EINVAL, "map: must be an array");
        return NULL;
    }
    return array;
}

struct rp_taskmap *rp_taskmap_from_json (const json_t *o, rp_error_t *error)
{
    struct rp_taskmap *map = NULL;
    const json_t *array = o;
    size_t i;
    json_t *a;

    if (json_is_object (o) && !(array = unwrap (o, error)))
        goto error;
    if (!json_is_array (array)) {
        rp_error_set (error, EINVAL,
                      "must be an array of blocks or an object "
                      "{\"version\": 1, \"map\": [...]}");
        goto error;
    }
    if (!(map = rp_taskmap_create ())) {
        rp_error_set (error, ENOMEM, "out of memory");
        goto error;
    }
    json_array_foreach (array, i, a) {
        if (block_from_json (map, i, a, error) < 0)
            goto error;
    }
    return map;
error:
    rp_taskmap_destroy (map);
    rp_error_prefix (error, "taskmap");
    return NULL;
}

static struct rp_taskmap *decode_json (const char *s, rp_error_t *error)
{
    json_error_t jerr;
    json_t *o = json_loads (s, 0, &jerr);
    struct rp_taskmap *map;

    if (!o) {
        rp_error_set (error, EINVAL, "taskmap: not valid JSON: %s (offset %d)",
                      jerr.text, jerr.position);
        return NULL;
    }
    map = rp_taskmap_from_json (o, error);
    json_decref (o);
    return map;
}

json_t *rp_taskmap_to_json (const struct rp_taskmap *map, int flags)
{
    json_t *array, *o;

    if (!map || (flags & ~RP_TASKMAP_WRAPPED)) {
        errno = EINVAL;
        return NULL;
    }
    if (!(array = json_array ()))
        goto nomem;
    for (size_t i = 0; i < map->n; i++) {
        const struct block *b = &map->b[i];
        if (json_array_append_new (
                array, json_pack ("[IIII]", (json_int_t)b->start,
                                  (json_int_t)b->nnodes, (json_int_t)b->ppn,
                                  (json_int_t)b->repeat))
            < 0)
            goto nomem;
    }
    if (!(flags & RP_TASKMAP_WRAPPED))
        return array;
    if (!(o = json_pack ("{s:i s:o}", "version", 1, "map", array)))
        goto nomem;
    return o;
nomem:
    json_decref (array);
    errno = ENOMEM;
    return NULL;
}

/* --- PMI_process_mapping (RFC 13) -------------------------------------- */

struct scan {
    const char *s;
    size_t pos;
    rp_error_t *error;
};

static void show (char *buf, size_t size, const char *s)
{
    size_t len = strlen (s);

    if (len > SHOW_MAX)
        snprintf (buf, size, "%.*s...", SHOW_MAX, s);
    else
        snprintf (buf, size, "%s", s);
    for (char *p = buf; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            *p = '?';
}

static int pmi_error (struct scan *sc, int errnum, const char *what)
{
    char shown[SHOW_MAX + 4];

    show (shown, sizeof (shown), sc->s);
    return rp_error_set (sc->error, errnum,
                         "taskmap: PMI: \"%s\": %s at offset %zu", shown, what,
                         sc->pos);
}

static int expect (struct scan *sc, const char *text)
{
    size_t len = strlen (text);

    if (strncmp (sc->s + sc->pos, text, len) != 0) {
        char what[32];
        snprintf (what, sizeof (what), "expected '%s'", text);
        return pmi_error (sc, EINVAL, what);
    }
    sc->pos += len;
    return 0;
}

/* An unsigned decimal of at most 10 digits, stored in *v. */
static int scan_uint (struct scan *sc, uint64_t *v)
{
    size_t start = sc->pos;

    *v = 0;
    while (sc->s[sc->pos] >= '0' && sc->s[sc->pos] <= '9') {
        if (sc->pos - start == 10)
            return pmi_error (sc, EOVERFLOW, "number too large");
        *v = *v * 10 + (sc->s[sc->pos++] - '0');
    }
    if (sc->pos == start)
        return pmi_error (sc, EINVAL, "expected a number");
    return 0;
}

/* "(nodeid,nnodes,ppn)", appended to map.  A bad number is reported at
 * the block's '('. */
static int pmi_block (struct scan *sc, struct rp_taskmap *map)
{
    uint64_t v[3];
    size_t at = sc->pos, end;
    rp_error_t e;

    if (expect (sc, "(") < 0 || scan_uint (sc, &v[0]) < 0
        || expect (sc, ",") < 0 || scan_uint (sc, &v[1]) < 0
        || expect (sc, ",") < 0 || scan_uint (sc, &v[2]) < 0
        || expect (sc, ")") < 0)
        return -1;
    end = sc->pos;
    sc->pos = at;
    if (append_block (map, v[0], v[1], v[2], &e) < 0)
        return pmi_error (sc, errno, e.text);
    sc->pos = end;
    return 0;
}

static struct rp_taskmap *decode_pmi (const char *s, rp_error_t *error)
{
    struct scan sc = { s, 0, error };
    struct rp_taskmap *map = rp_taskmap_create ();

    if (!map) {
        rp_error_set (error, ENOMEM, "taskmap: out of memory");
        return NULL;
    }
    if (s[strspn (s, " \t\r\n")] == '\0') /* RFC 13: empty is unknown */
        return map;
    if (expect (&sc, "(vector,") < 0 || pmi_block (&sc, map) < 0)
        goto error;
    while (s[sc.pos] == ',') {
        sc.pos++;
        if (pmi_block (&sc, map) < 0)
            goto error;
    }
    if (expect (&sc, ")") < 0)
        goto error;
    if (s[sc.pos] != '\0') {
        pmi_error (&sc, EINVAL, "trailing characters");
        goto error;
    }
    return map;
error:
    rp_taskmap_destroy (map);
    return NULL;
}

/* --- raw: one idset per node ------------------------------------------- */

struct run {
    unsigned int lo, hi, node;
};

/* Runs of all nodes; grows by doubling, so a raw map of a million nodes
 * costs a million appends, not a million copies. */
struct runs {
    struct run *v;
    size_t n, cap;
};

static int cmp_run (const void *a, const void *b)
{
    const struct run *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Append the ranges of node's idset (the element s[0..len)) to runs. */
static int raw_node (const char *s, size_t len, unsigned int node,
                     struct runs *runs, rp_error_t *error)
{
    struct rp_idset *ids = rp_idset_ndecode (s, len, error);
    size_t nr = ids ? rp_idset_range_count (ids) : 0;

    if (!ids)
        return rp_error_prefix (error, "taskmap: raw: node %u", node);
    if (runs->n + nr > runs->cap) {
        size_t cap = (runs->n + nr) * 2;
        struct run *v = realloc (runs->v, cap * sizeof (*v));
        if (!v) {
            rp_idset_destroy (ids);
            return rp_error_set (error, ENOMEM, "taskmap: out of memory");
        }
        runs->v = v;
        runs->cap = cap;
    }
    for (size_t i = 0; i < nr; i++) {
        struct run *r = &runs->v[runs->n++];
        rp_idset_range (ids, i, &r->lo, &r->hi);
        r->node = node;
    }
    rp_idset_destroy (ids);
    return 0;
}

/* Runs sorted by task id must cover 0..N-1 exactly once. */
static int raw_check (const struct run *r, const struct run *prev,
                      rp_error_t *error)
{
    uint64_t next = prev ? (uint64_t)prev->hi + 1 : 0;

    if (r->lo < next)
        return rp_error_set (error, EINVAL,
                             "taskmap: raw: task %u is on node %u and node %u",
                             r->lo, prev->node, r->node);
    if (r->lo > next + 1)
        return rp_error_set (error, EINVAL,
                             "taskmap: raw: missing tasks %llu-%u",
                             (unsigned long long)next, r->lo - 1);
    if (r->lo > next)
        return rp_error_set (error, EINVAL, "taskmap: raw: missing task %llu",
                             (unsigned long long)next);
    return 0;
}

static int raw_append (struct rp_taskmap *map, struct runs *runs,
                       rp_error_t *error)
{
    qsort (runs->v, runs->n, sizeof (*runs->v), cmp_run);
    for (size_t i = 0; i < runs->n; i++) {
        const struct run *r = &runs->v[i];
        if (raw_check (r, i ? &runs->v[i - 1] : NULL, error) < 0)
            return -1;
        if (append_block (map, r->node, 1, (uint64_t)r->hi - r->lo + 1, error)
            < 0)
            return rp_error_prefix (error, "taskmap: raw");
    }
    return 0;
}

static struct rp_taskmap *decode_raw (const char *s, rp_error_t *error)
{
    struct rp_taskmap *map = rp_taskmap_create ();
    struct runs runs = { NULL, 0, 0 };
    unsigned int node = 0;
    const char *p = s;

    if (!map) {
        rp_error_set (error, ENOMEM, "taskmap: out of memory");
        return NULL;
    }
    for (;;) {
        size_t len = strcspn (p, ";");
        if (node >= RP_TASKMAP_MAX_NODES) {
            rp_error_set (error, EOVERFLOW, "taskmap: raw: more than %u nodes",
                          RP_TASKMAP_MAX_NODES);
            goto error;
        }
        if (raw_node (p, len, node++, &runs, error) < 0)
            goto error;
        if (p[len] == '\0')
            break;
        p += len + 1;
    }
    if (raw_append (map, &runs, error) < 0)
        goto error;
    free (runs.v);
    return map;
error:
    free (runs.v);
    rp_taskmap_destroy (map);
    return NULL;
}

struct rp_taskmap *rp_taskmap_decode (const char *s, rp_error_t *error)
{
    if (!s) {
        rp_error_set (error, EINVAL, "taskmap: no input");
        return NULL;
    }
    if (*s == '\0' || strstr (s, "vector,"))
        return decode_pmi (s, error);
    if (!strpbrk (s, "({[]})"))
        return decode_raw (s, error);
    return decode_json (s, error);
}

/* --- encoding ----------------------------------------------------------- */

static void encode_json (FILE *f, const struct rp_taskmap *map, int flags)
{
    if (flags & RP_TASKMAP_WRAPPED)
        fputs ("{\"version\":1,\"map\":", f);
    fputc ('[', f);
    for (size_t i = 0; i < map->n; i++) {
        const struct block *b = &map->b[i];
        fprintf (f, "%s[%u,%u,%u,%u]", i ? "," : "", b->start, b->nnodes,
                 b->ppn, b->repeat);
    }
    fputc (']', f);
    if (flags & RP_TASKMAP_WRAPPED)
        fputc ('}', f);
}

static void encode_pmi (FILE *f, const struct rp_taskmap *map)
{
    bool first = true;

    if (map->n == 0)
        return;
    fputs ("(vector,", f);
    for (size_t i = 0; i < map->n; i++) {
        const struct block *b = &map->b[i];
        for (unsigned int r = 0; r < b->repeat; r++) {
            fprintf (f, "%s(%u,%u,%u)", first ? "" : ",", b->start, b->nnodes,
                     b->ppn);
            first = false;
        }
    }
    fputc (')', f);
}

static int encode_raw (FILE *f, const struct rp_taskmap *map)
{
    for (unsigned int node = 0; node < map->nnodes; node++) {
        struct rp_idset *ids = rp_taskmap_tasks_of (map, node);
        char *s = ids ? rp_idset_encode (ids, RP_IDSET_RANGES) : NULL;
        rp_idset_destroy (ids);
        if (!s)
            return -1;
        fprintf (f, "%s%s", node ? ";" : "", s);
        free (s);
    }
    return 0;
}

char *rp_taskmap_encode (const struct rp_taskmap *map, int flags)
{
    char *s = NULL;
    size_t len;
    FILE *f;
    int rc = 0;

    if (!map
        || (flags & ~(RP_TASKMAP_WRAPPED | RP_TASKMAP_PMI | RP_TASKMAP_RAW))
        || (flags & (flags - 1))) {
        errno = EINVAL;
        return NULL;
    }
    if (!(f = open_memstream (&s, &len)))
        return NULL;
    if (flags & RP_TASKMAP_PMI)
        encode_pmi (f, map);
    else if (flags & RP_TASKMAP_RAW)
        rc = encode_raw (f, map);
    else
        encode_json (f, map, flags);
    if (fclose (f) != 0 || rc < 0) {
        free (s);
        errno = ENOMEM;
        return NULL;
    }
    return s;
}

/* --- lookups ------------------------------------------------------------ */

bool rp_taskmap_unknown (const struct rp_taskmap *map)
{
    return !map || map->n == 0;
}

size_t rp_taskmap_ntasks (const struct rp_taskmap *map)
{
    return map ? map->ntasks : 0;
}

size_t rp_taskmap_nnodes (const struct rp_taskmap *map)
{
    return map ? map->nnodes : 0;
}

size_t rp_taskmap_nblocks (const struct rp_taskmap *map)
{
    return map ? map->n : 0;
}

bool rp_taskmap_block (const struct rp_taskmap *map, size_t i,
                       unsigned int *nodeid, unsigned int *nnodes,
                       unsigned int *ppn, unsigned int *repeat)
{
    if (!map || i >= map->n)
        return false;
    if (nodeid)
        *nodeid = map->b[i].start;
    if (nnodes)
        *nnodes = map->b[i].nnodes;
    if (ppn)
        *ppn = map->b[i].ppn;
    if (repeat)
        *repeat = map->b[i].repeat;
    return true;
}

static bool holds (const struct block *b, unsigned int node)
{
    return node >= b->start && node - b->start < b->nnodes;
}

size_t rp_taskmap_node_ntasks (const struct rp_taskmap *map,
                               unsigned int nodeid)
{
    size_t n = 0;

    for (size_t i = 0; map && i < map->n; i++)
        if (holds (&map->b[i], nodeid))
            n += (size_t)map->b[i].ppn * map->b[i].repeat;
    return n;
}

long rp_taskmap_task_node (const struct rp_taskmap *map, size_t taskid)
{
    size_t lo = 0, hi;
    const struct block *b;
    uint64_t off;

    if (!map || taskid >= map->ntasks) {
        errno = ENOENT;
        return -1;
    }
    hi = map->n; /* the block holding taskid is in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (map->b[mid].first <= taskid)
            lo = mid;
        else
            hi = mid;
    }
    b = &map->b[lo];
    off = (taskid - b->first) % block_span (b);
    return (long)(b->start + off / b->ppn);
}

struct rp_idset *rp_taskmap_tasks_of (const struct rp_taskmap *map,
                                      unsigned int nodeid)
{
    struct rp_idset *ids = rp_idset_create ();

    for (size_t i = 0; ids && map && i < map->n; i++) {
        const struct block *b = &map->b[i];
        uint64_t lo;
        if (!holds (b, nodeid))
            continue;
        lo = b->first + (uint64_t)(nodeid - b->start) * b->ppn;
        for (unsigned int r = 0; r < b->repeat; r++, lo += block_span (b)) {
            if (rp_idset_add_range (ids, lo, lo + b->ppn - 1) < 0) {
                rp_idset_destroy (ids);
                return NULL;
            }
        }
    }
    return ids;
}
