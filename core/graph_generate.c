/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Generated clusters for tests and benchmarks (rp_graph_generate, see
 * api/respol/graph.h): cluster > racks > nodes > sockets > cores, GPUs and
 * a memory pool per socket, added in containment pre-order with the
 * internal builder calls (no checks needed: the spec was checked, and the
 * memory estimate made from it, before anything is allocated).
 *
 * Decisions.  racks=0 and gpus=0 mean "none"; nodes are named with the
 * prefix as basename (so name = prefix + rank with no side entry); empty
 * items (",,") are refused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/graph_impl.h"

/* --- generator ------------------------------------------------------- */

enum {
    K_NODES,
    K_RACKS,
    K_SOCKETS,
    K_CORES,
    K_GPUS,
    K_MEMORY,
    K_PREFIX,
    K_COUNT
};

static const char *gen_keys[K_COUNT] = {
    "nodes", "racks", "sockets", "cores", "gpus", "memory", "prefix",
};

struct gen {
    uint64_t val[K_COUNT];
    bool set[K_COUNT];
    char unit[8];
    char prefix[WORD_MAX + 1];
};

/* digits only, no sign; *len set to the number of digits.  -1 when there
 * are none or the value overflows. */
static int parse_u64 (const char *s, uint64_t *out, size_t *len)
{
    uint64_t v = 0;
    bool over = false;
    size_t i = 0;
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        over = over || __builtin_mul_overflow (v, 10, &v)
               || __builtin_add_overflow (v, (uint64_t)(s[i] - '0'), &v);
    }
    *out = v;
    *len = i;
    return i > 0 && !over ? 0 : -1;
}

static int gen_value (struct gen *x, int k, const char *val, rp_error_t *error)
{
    size_t len = 0;
    bool zero_ok = k == K_RACKS || k == K_GPUS;
    if (k == K_PREFIX) {
        if (!graph_word_ok (val, "-_."))
            return rp_error_set (error, EINVAL,
                                 "prefix=%s: letters, digits,"
                                 " '-', '_', '.' (1-64)",
                                 val);
        strcpy (x->prefix, val);
        return 0;
    }
    if (parse_u64 (val, &x->val[k], &len) < 0 && len > 0)
        return rp_error_set (error, EINVAL, "%s=%s: too large", gen_keys[k],
                             val);
    const char *unit = val + len;
    bool unit_ok = k == K_MEMORY && units_bytes (unit) > 0;
    if (len == 0 || (*unit && !unit_ok) || (x->val[k] == 0 && !zero_ok))
        return rp_error_set (error, EINVAL, "%s=%s: not a %s integer%s",
                             gen_keys[k], val,
                             zero_ok ? "non-negative" : "positive",
                             k == K_MEMORY ? " with an optional unit" : "");
    if (k == K_MEMORY)
        snprintf (x->unit, sizeof (x->unit), "%s", *unit ? unit : "GB");
    return 0;
}

static int gen_item (struct gen *x, const char *item, rp_error_t *error)
{
    const char *eq = strchr (item, '=');
    if (!eq)
        return rp_error_set (error, EINVAL, "'%s': expected key=value", item);
    size_t klen = (size_t)(eq - item);
    for (int k = 0; k < K_COUNT; k++) {
        if (strlen (gen_keys[k]) != klen || strncmp (gen_keys[k], item, klen))
            continue;
        if (x->set[k])
            return rp_error_set (error, EINVAL, "%s given twice", gen_keys[k]);
        x->set[k] = true;
        return gen_value (x, k, eq + 1, error);
    }
    return rp_error_set (error, EINVAL, "unknown key '%.*s'", (int)klen, item);
}

static int gen_divides (const struct gen *x, int k, uint64_t by,
                        const char *what, rp_error_t *error)
{
    if (x->val[k] % by == 0)
        return 0;
    return rp_error_set (error, EINVAL,
                         "%s=%" PRIu64 "%s does not divide"
                         " evenly among %" PRIu64 " %s",
                         gen_keys[k], x->val[k], k == K_MEMORY ? x->unit : "",
                         by, what);
}

/* Vertex count, with overflow checks. */
static int gen_count (const struct gen *x, uint64_t *count, rp_error_t *error)
{
    uint64_t so = x->val[K_SOCKETS], per, n;
    uint64_t pools = x->set[K_MEMORY] ? so : 0;
    bool over = __builtin_add_overflow (x->val[K_CORES], 1, &per)
                || __builtin_mul_overflow (per, so, &per)
                || __builtin_add_overflow (per, 1 + x->val[K_GPUS], &per)
                || __builtin_add_overflow (per, pools, &per)
                || __builtin_mul_overflow (per, x->val[K_NODES], &n)
                || __builtin_add_overflow (n, 1 + x->val[K_RACKS], &n);
    if (over || n > RP_GRAPH_MAX_VERTICES)
        return rp_error_set (error, E2BIG,
                             "spec makes %s%" PRIu64 " vertices,"
                             " more than the maximum %u",
                             over ? "over " : "", over ? UINT64_MAX : n,
                             RP_GRAPH_MAX_VERTICES);
    *count = n;
    return 0;
}

/* The memory estimate of the spec's graph against the limit. */
static int gen_memory (const struct gen *x, uint64_t count, rp_error_t *error)
{
    uint64_t nodes = x->val[K_NODES], limit = rp_graph_memory_limit ();
    struct graph_size z = {
        .vertices = count,
        .named = nodes,
        .targets = nodes,
        .interior = 1 + x->val[K_RACKS] + nodes * (1 + x->val[K_SOCKETS]),
        .types =
            4 + (x->val[K_RACKS] > 0) + (x->val[K_GPUS] > 0) + x->set[K_MEMORY],
    };
    uint64_t need = graph_memory (&z);

    if (need <= limit)
        return 0;
    return graph_memory_error (error, need, limit,
                               "spec makes %" PRIu64 " vertices, which need",
                               count);
}

static int gen_parse (struct gen *x, const char *spec, rp_error_t *error)
{
    memset (x, 0, sizeof (*x));
    x->val[K_SOCKETS] = x->val[K_CORES] = 1;
    strcpy (x->prefix, "node");
    char item[256];
    for (const char *p = spec; *spec;) {
        size_t len = strcspn (p, ",");
        if (len == 0 || len >= sizeof (item))
            return rp_error_set (error, EINVAL, "%s item at offset %zu",
                                 len ? "overlong" : "empty",
                                 (size_t)(p - spec));
        memcpy (item, p, len);
        item[len] = '\0';
        if (gen_item (x, item, error) < 0)
            return -1;
        p += len;
        if (*p++ == '\0')
            break;
    }
    if (!x->set[K_NODES])
        return rp_error_set (error, EINVAL, "nodes= is required");
    if ((x->val[K_RACKS]
         && gen_divides (x, K_NODES, x->val[K_RACKS], "racks", error) < 0)
        || gen_divides (x, K_GPUS, x->val[K_SOCKETS], "sockets", error) < 0
        || gen_divides (x, K_MEMORY, x->val[K_SOCKETS], "sockets", error) < 0)
        return -1;
    return 0;
}

struct gen_ids {
    int cluster, rack, node, socket, core, gpu, memory;        /* types */
    int bcluster, brack, bnode, bsocket, bcore, bgpu, bmemory; /* strs */
    int unit, none;
};

static int gen_intern (struct rp_graph *g, const struct gen *x,
                       struct gen_ids *id)
{
    const char *t[] = { "cluster", "rack", "node",  "socket",
                        "core",    "gpu",  "memory" };
    int *ti[] = { &id->cluster, &id->rack, &id->node,  &id->socket,
                  &id->core,    &id->gpu,  &id->memory };
    int *bi[] = { &id->bcluster, &id->brack, &id->bnode,  &id->bsocket,
                  &id->bcore,    &id->bgpu,  &id->bmemory };
    bool want[] = { true,
                    x->val[K_RACKS] > 0,
                    true,
                    true,
                    true,
                    x->val[K_GPUS] > 0,
                    x->set[K_MEMORY] };
    for (int i = 0; i < 7; i++) {
        const char *base = i == 2 ? x->prefix : t[i];
        if (want[i]
            && ((*ti[i] = graph_strtab_intern (&g->types, t[i], 16)) < 0
                || (*bi[i] = graph_strtab_intern (&g->strs, base, UINT32_MAX))
                       < 0))
            return -1;
    }
    id->none = 0;
    id->unit = x->set[K_MEMORY]
                   ? graph_strtab_intern (&g->strs, x->unit, UINT32_MAX)
                   : 0;
    return id->unit < 0 ? -1 : 0;
}

/* Parent p contains c (builder order: no checks needed, and the edge is
 * the parent alone, core/graph_impl.h "Containment by parent"); c is
 * NONE when graph_vertex_add failed. */
static int gen_edge (struct rp_graph *g, rp_vertex_t p, rp_vertex_t c)
{
    if (c == NONE)
        return -1;
    g->v[c].parent = p;
    return 0;
}

static int gen_socket (struct rp_graph *g, const struct gen *x,
                       const struct gen_ids *id, rp_vertex_t node, uint64_t s)
{
    uint64_t nc = x->val[K_CORES], ng = x->val[K_GPUS] / x->val[K_SOCKETS];
    rp_vertex_t so =
        graph_vertex_add (g, id->socket, id->bsocket, (int64_t)s, 1, 0);
    int rc = gen_edge (g, node, so);
    for (uint64_t i = 0; i < nc && rc == 0; i++)
        rc = gen_edge (g, so,
                       graph_vertex_add (g, id->core, id->bcore,
                                         (int64_t)(s * nc + i), 1, 0));
    for (uint64_t i = 0; i < ng && rc == 0; i++)
        rc = gen_edge (g, so,
                       graph_vertex_add (g, id->gpu, id->bgpu,
                                         (int64_t)(s * ng + i), 1, 0));
    if (x->set[K_MEMORY] && rc == 0) {
        uint64_t size = x->val[K_MEMORY] / x->val[K_SOCKETS];
        rc = gen_edge (g, so,
                       graph_vertex_add (g, id->memory, id->bmemory, (int64_t)s,
                                         size, id->unit));
    }
    return rc;
}

static int gen_build (struct rp_graph *g, const struct gen *x,
                      const struct gen_ids *id)
{
    uint64_t racks = x->val[K_RACKS], nodes = x->val[K_NODES];
    uint64_t per_rack = racks ? nodes / racks : nodes;
    rp_vertex_t top = graph_vertex_add (g, id->cluster, id->bcluster, 0, 1, 0);
    int rc = 0;
    for (uint64_t r = 0; r < nodes && rc == 0; r++) {
        if (racks && r % per_rack == 0) {
            rp_vertex_t rack = graph_vertex_add (g, id->rack, id->brack,
                                                 (int64_t)(r / per_rack), 1, 0);
            if ((rc = gen_edge (g, 0, rack)) < 0)
                break;
            top = rack;
        }
        rp_vertex_t node =
            graph_vertex_add (g, id->node, id->bnode, (int64_t)r, 1, 0);
        struct side *s = graph_side_make (g, node);
        if (!s || gen_edge (g, top, node) < 0)
            return -1;
        s->rank = (int64_t)r;
        g->v[node].flags |= F_TARGET;
        for (uint64_t so = 0; so < x->val[K_SOCKETS] && rc == 0; so++)
            rc = gen_socket (g, x, id, node, so);
    }
    return rc;
}

struct rp_graph *rp_graph_generate (const char *spec, rp_error_t *error)
{
    struct gen x;
    struct gen_ids id;
    uint64_t count = 0;
    struct rp_graph *g = NULL;
    if (!spec) {
        rp_error_set (error, EINVAL, "no spec");
        return NULL;
    }
    if (gen_parse (&x, spec, error) < 0 || gen_count (&x, &count, error) < 0
        || gen_memory (&x, count, error) < 0)
        return NULL;
    if (!(g = rp_graph_create ())
        || graph_reserve (g, count, 0, x.val[K_NODES]) < 0)
        goto nomem;
    if (gen_intern (g, &x, &id) < 0 || gen_build (g, &x, &id) < 0)
        goto nomem;
    if (rp_graph_finalize (g, error) < 0)
        goto error;
    return g;
nomem:
    rp_error_set (error, ENOMEM, "out of memory");
error:
    rp_graph_destroy (g);
    return NULL;
}
