/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Resource graph builders (RFC 4): from R (RFC 20) and from an hwloc
 * topology.  Both add vertices in containment pre-order with siblings in
 * ascending id order (handle order is "lowest id first"), and return a
 * finalized graph.
 *
 * From R: cluster0 > one "node" per execution target in rank order (id and
 * rank: the rank, name: the host name) > its "core" vertices, then its
 * "gpu" vertices, by id.  R_lite knows cores and GPUs only, so that is all
 * a graph from R has.  R properties become node properties (no value).
 * The memory of the graph (graph_memory, and R's own) is estimated
 * before anything is built: an R of a few bytes can name billions of
 * cores.  rp_graph_decode_rset estimates it from R_lite's counts before R
 * is even expanded into targets (core/rset.c reads R_lite as text), and
 * drops R before the graph is finalized, the peak of memory.  Vertices
 * are added as graph_generate.c adds them (types interned once, parents
 * set in builder order), targets read by index, not looked up by rank:
 * the same graph as through rp_graph_add_vertex, at 1,048,576 nodes of
 * 16 cores 2.4 s of CPU less.
 *
 * From hwloc: cluster0 > node (rank, host name) > "socket" per Package
 * (hwloc logical index) > "numanode" per NUMA node, only when a package
 * holds more than one > "core" (numbered as rp_rset_from_hwloc numbers
 * them: hwloc's node-wide logical index, PUs when there are no Core
 * objects), then "gpu" (numbered as rp_rset_from_hwloc: shared code in
 * core/rhwloc_private.h), then the NUMA node's "memory" pool (GB, rounded
 * down, at least 1).  A core goes under the NUMA node whose cpuset holds
 * it, a GPU under the innermost socket or NUMA node whose cpuset holds its
 * PCI locality (its first non-I/O ancestor), a pool under the package of
 * its NUMA node; what no package holds goes under the node.  An XML file
 * is read in a child process (hwloc can crash on malformed XML), which
 * sends the graph back as respol's graph JSON.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hwloc.h>

#include <respol/graph.h>

#include "core/graph_impl.h"
#include "core/graph_private.h"
#include "core/rhwloc_private.h"
#include "core/rset_private.h"

#define GB 1000000000ULL

/* === from R ============================================================= */

static int rset_prefix (rp_error_t *error)
{
    return rp_error_prefix (error, "graph: R");
}

/* A decoded target of R (core/rset.c): its struct in an array grown by
 * doubling, its host name, its children when they are its own. */
#define RSET_TARGET_COST 320

/* The estimate of the graph of an R with these counts, and of the R: the
 * cluster and every target interior, every target named, cores and GPUs
 * leaves.  The same for R decoded or not, so both checks agree.  *np: the
 * vertex count. */
static int rset_memory (size_t targets, uint64_t cores, uint64_t gpus,
                        uint64_t *np, rp_error_t *error)
{
    uint64_t n = 1 + (uint64_t)targets, limit = rp_graph_memory_limit ();
    struct graph_size z = { 0 };
    uint64_t need;

    if (__builtin_add_overflow (n, cores, &n)
        || __builtin_add_overflow (n, gpus, &n) || n > RP_GRAPH_MAX_VERTICES)
        return rp_error_set (error, E2BIG, "graph: R: more than %u vertices",
                             RP_GRAPH_MAX_VERTICES);
    z.vertices = n;
    z.named = z.targets = targets;
    z.interior = 1 + targets;
    z.types = 2 + (cores > 0) + (gpus > 0);
    need = graph_memory (&z) + targets * RSET_TARGET_COST;
    if (np)
        *np = n;
    if (need <= limit)
        return 0;
    return graph_memory_error (error, need, limit,
                               "graph: R: %" PRIu64 " vertices need", n);
}

/* Count the vertices before building: 1 + targets + cores + GPUs. */
static int rset_check_size (const struct rp_rset *R, uint64_t *np,
                            rp_error_t *error)
{
    const struct rp_idset *c, *gp;
    const char *host;
    unsigned int rank;
    uint64_t cores = 0, gpus = 0;

    if (rp_rset_ntargets (R) == 0)
        return rp_error_set (error, EINVAL, "graph: R: no execution targets");
    for (size_t i = 0; rset_target_at (R, i, &rank, &host, &c, &gp); i++) {
        cores += rp_idset_count (c);
        gpus += rp_idset_count (gp);
    }
    return rset_memory (rp_rset_ntargets (R), cores, gpus, np, error);
}

/* A type and its basename, interned when first used (so a graph from R
 * has the types it had when every vertex went through
 * rp_graph_add_vertex, in the same order). */
struct rtype {
    const char *name;
    int type;
    int base;
};

/* A vertex of type t under parent, as rp_graph_add_vertex and
 * rp_graph_add_edge would add it, without looking the type up or checking
 * what the builder knows: builder order, one parent each (as
 * graph_generate.c adds them).  The edge is the parent alone, no edge
 * record: added after its parent's other children, it is plain
 * (core/graph_impl.h, "Containment by parent"). */
static rp_vertex_t add_under (struct rp_graph *g, rp_vertex_t parent,
                              struct rtype *t, int64_t id)
{
    rp_vertex_t v;

    if (t->type < 0
        && ((t->type = graph_strtab_intern (&g->types, t->name, UINT16_MAX)) < 0
            || (t->base = graph_strtab_intern (&g->strs, t->name, UINT32_MAX))
                   < 0)) {
        t->type = -1;
        return NONE;
    }
    if ((v = graph_vertex_add (g, t->type, t->base, id, 1, 0)) == NONE)
        return NONE;
    g->v[v].parent = parent;
    return v;
}

static int add_ids (struct rp_graph *g, rp_vertex_t parent, struct rtype *t,
                    const struct rp_idset *ids)
{
    for (unsigned int id = rp_idset_first (ids); id != RP_IDSET_INVALID_ID;
         id = rp_idset_next (ids, id))
        if (add_under (g, parent, t, id) == NONE)
            return -1;
    return 0;
}

struct rtypes {
    struct rtype node;
    struct rtype core;
    struct rtype gpu;
};

static int rset_target (struct rp_graph *g, rp_vertex_t root,
                        const struct rp_rset *R, size_t i, struct rtypes *t,
                        unsigned int *rankp, rp_vertex_t *vp, rp_error_t *error)
{
    const struct rp_idset *cores, *gpus;
    const char *host;
    rp_vertex_t v;

    rset_target_at (R, i, rankp, &host, &cores, &gpus);
    if ((v = add_under (g, root, &t->node, *rankp)) == NONE)
        return rp_error_set (error, ENOMEM, "out of memory");
    if (rp_graph_set_name (g, v, host, error) < 0
        || rp_graph_set_rank (g, v, *rankp, error) < 0)
        return -1;
    if (add_ids (g, v, &t->core, cores) < 0
        || add_ids (g, v, &t->gpu, gpus) < 0)
        return rp_error_set (error, ENOMEM, "out of memory");
    *vp = v;
    return 0;
}

/* The node vertex of rank: nodes[i] is the target of ranks[i] (ascending). */
static rp_vertex_t node_of (const unsigned int *ranks, const rp_vertex_t *nodes,
                            size_t n, unsigned int rank)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ranks[mid] < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ranks[lo] == rank ? nodes[lo] : RP_VERTEX_NONE;
}

/* Give property name to the nodes of the ranks in s (an idset). */
static int rset_property (struct rp_graph *g, const char *name, const char *s,
                          const unsigned int *ranks, const rp_vertex_t *nodes,
                          size_t n, rp_error_t *error)
{
    struct rp_idset *ids = rp_idset_decode (s, error);
    int rc = -1;

    if (!ids)
        return -1;
    for (unsigned int r = rp_idset_first (ids); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (ids, r)) {
        rp_vertex_t v = node_of (ranks, nodes, n, r);
        if (v == RP_VERTEX_NONE) {
            rp_error_set (error, EINVAL,
                          "property %s: rank %u is not an execution target",
                          name, r);
            goto done;
        }
        if (rp_graph_add_property (g, v, name, NULL, error) < 0)
            goto done;
    }
    rc = 0;
done:
    rp_idset_destroy (ids);
    return rc;
}

static int rset_properties (struct rp_graph *g, const struct rp_rset *R,
                            const unsigned int *ranks, const rp_vertex_t *nodes,
                            size_t n, rp_error_t *error)
{
    json_t *props = rp_rset_properties (R);
    int rc = 0;

    if (!props)
        return rp_error_set (error, ENOMEM, "out of memory");
    for (void *it = json_object_iter (props); it && rc == 0;
         it = json_object_iter_next (props, it))
        rc = rset_property (g, json_object_iter_key (it),
                            json_string_value (json_object_iter_value (it)),
                            ranks, nodes, n, error);
    json_decref (props);
    return rc;
}

/* Everything but finalizing (the caller may drop R first). */
static int rset_build (struct rp_graph *g, const struct rp_rset *R,
                       unsigned int *ranks, rp_vertex_t *nodes,
                       rp_error_t *error)
{
    struct rtypes t = { { "node", -1, -1 },
                        { "core", -1, -1 },
                        { "gpu", -1, -1 } };
    size_t n = rp_rset_ntargets (R);
    rp_vertex_t root;

    root = rp_graph_add_vertex (g, "cluster", NULL, 0, 1, NULL, error);
    if (root == RP_VERTEX_NONE)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (rset_target (g, root, R, i, &t, &ranks[i], &nodes[i], error) < 0)
            return -1;
    }
    return rset_properties (g, R, ranks, nodes, n, error);
}

/* The graph of R, not finalized. */
static struct rp_graph *rset_graph (const struct rp_rset *R, rp_error_t *error)
{
    size_t n;
    uint64_t nv;
    unsigned int *ranks = NULL;
    rp_vertex_t *nodes = NULL;
    struct rp_graph *g = NULL;

    if (!R)
        return rp_error_set (error, EINVAL, "graph: R: invalid argument"), NULL;
    if (rset_check_size (R, &nv, error) < 0)
        return NULL;
    n = rp_rset_ntargets (R);
    if (!(ranks = calloc (n, sizeof (*ranks)))
        || !(nodes = calloc (n, sizeof (*nodes))) || !(g = rp_graph_create ())
        || graph_reserve (g, nv, 0, n) < 0) {
        rp_error_set (error, ENOMEM, "graph: R: out of memory");
        goto error;
    }
    if (rset_build (g, R, ranks, nodes, error) < 0) {
        rset_prefix (error);
        goto error;
    }
    free (ranks);
    free (nodes);
    return g;
error:;
    int saved_errno = errno;
    free (ranks);
    free (nodes);
    rp_graph_destroy (g);
    errno = saved_errno;
    return NULL;
}

static struct rp_graph *finalized (struct rp_graph *g, rp_error_t *error)
{
    if (g && rp_graph_finalize (g, error) < 0) {
        int saved_errno = errno;
        rset_prefix (error);
        rp_graph_destroy (g);
        errno = saved_errno;
        return NULL;
    }
    return g;
}

struct rp_graph *rp_graph_from_rset (const struct rp_rset *R, rp_error_t *error)
{
    return finalized (rset_graph (R, error), error);
}

static int rset_memory_check (size_t targets, uint64_t cores, uint64_t gpus,
                              void *arg, rp_error_t *error)
{
    (void)arg;
    return rset_memory (targets, cores, gpus, NULL, error);
}

/* Decoded as rp_rset_decode decodes (and words an error), sized from
 * R_lite before R is expanded into targets, and R dropped before the
 * graph is finalized (finalizing is the peak of memory). */
struct rp_graph *rp_graph_decode_rset (const char *s, rp_error_t *error)
{
    struct rp_rset *R;
    struct rp_graph *g;

    if (!(R = rset_decode_checked (s, rset_memory_check, NULL, error)))
        return NULL;
    g = rset_graph (R, error);
    rp_rset_destroy (R);
    return finalized (g, error);
}

/* === from hwloc ========================================================= */

static int add_child (struct rp_graph *g, rp_vertex_t parent, const char *type,
                      int64_t id, uint64_t size, const char *unit,
                      rp_vertex_t *vp, rp_error_t *error)
{
    rp_vertex_t v = rp_graph_add_vertex (g, type, NULL, id, size, unit, error);

    if (v == RP_VERTEX_NONE
        || rp_graph_add_edge (g, parent, v, RP_GRAPH_CONTAINMENT, "contains",
                              error)
               < 0)
        return -1;
    if (vp)
        *vp = v;
    return 0;
}

#define HW "graph: hwloc"

/* Where an object goes: the vertex of its package and NUMA node, if any. */
struct place {
    hwloc_obj_t pkg;  /* NULL: under the node */
    hwloc_obj_t numa; /* NULL: under the package (or node) */
};

struct hw {
    hwloc_topology_t topo;
    struct rp_graph *g;
    hwloc_obj_t *cores;
    struct place *core_at;
    unsigned int ncores;
    hwloc_obj_t *gpus;
    struct place *gpu_at;
    unsigned int ngpus;
    hwloc_obj_t *numas;
    struct place *numa_at;
    unsigned int nnumas;
    rp_error_t *error;
};

static hwloc_obj_t package_of (hwloc_topology_t topo, hwloc_obj_t o)
{
    if (o && o->type == HWLOC_OBJ_PACKAGE)
        return o;
    return o ? hwloc_get_ancestor_obj_by_type (topo, HWLOC_OBJ_PACKAGE, o)
             : NULL;
}

static unsigned int numas_in (const struct hw *hw, hwloc_obj_t pkg)
{
    unsigned int n = 0;

    for (unsigned int i = 0; i < hw->nnumas; i++)
        n += hw->numa_at[i].pkg == pkg;
    return n;
}

/* The place of an object with a cpuset: its package, and the NUMA node of
 * that package holding the cpuset when the package has several. */
static struct place place_of (const struct hw *hw, hwloc_obj_t o)
{
    struct place p = { package_of (hw->topo, o), NULL };

    if (!p.pkg || numas_in (hw, p.pkg) < 2 || !o->cpuset
        || hwloc_bitmap_iszero (o->cpuset))
        return p;
    for (unsigned int i = 0; i < hw->nnumas; i++) {
        hwloc_obj_t m = hw->numas[i];
        if (hw->numa_at[i].pkg == p.pkg && m->cpuset
            && hwloc_bitmap_isincluded (o->cpuset, m->cpuset)) {
            p.numa = m;
            break;
        }
    }
    return p;
}

static hwloc_obj_t *objs_of_type (hwloc_topology_t topo, hwloc_obj_type_t t,
                                  unsigned int *n)
{
    int count = hwloc_get_nbobjs_by_type (topo, t);
    hwloc_obj_t *objs = calloc (count > 0 ? (size_t)count : 1, sizeof (*objs));

    *n = 0;
    if (!objs)
        return NULL;
    for (int i = 0; i < count; i++)
        objs[(*n)++] = hwloc_get_obj_by_type (topo, t, (unsigned int)i);
    return objs;
}

static int hw_collect (struct hw *hw)
{
    hwloc_obj_type_t ct =
        hwloc_get_nbobjs_by_type (hw->topo, HWLOC_OBJ_CORE) > 0 ? HWLOC_OBJ_CORE
                                                                : HWLOC_OBJ_PU;

    if (!(hw->numas = objs_of_type (hw->topo, HWLOC_OBJ_NUMANODE, &hw->nnumas))
        || !(hw->numa_at = calloc (hw->nnumas + 1, sizeof (struct place)))
        || !(hw->cores = objs_of_type (hw->topo, ct, &hw->ncores))
        || !(hw->core_at = calloc (hw->ncores + 1, sizeof (struct place))))
        return rp_error_set (hw->error, ENOMEM, HW ": out of memory");
    if (hw->ncores == 0)
        return rp_error_set (hw->error, EINVAL, HW ": topology has no cores");
    for (unsigned int i = 0; i < hw->nnumas; i++)
        hw->numa_at[i].pkg = package_of (hw->topo, hw->numas[i]);
    for (unsigned int i = 0; i < hw->ncores; i++)
        hw->core_at[i] = place_of (hw, hw->cores[i]);
    hw->ngpus = rhwloc_gpus (hw->topo, NULL, 0);
    if (!(hw->gpus = calloc (hw->ngpus + 1, sizeof (hwloc_obj_t)))
        || !(hw->gpu_at = calloc (hw->ngpus + 1, sizeof (struct place))))
        return rp_error_set (hw->error, ENOMEM, HW ": out of memory");
    rhwloc_gpus (hw->topo, hw->gpus, hw->ngpus);
    for (unsigned int i = 0; i < hw->ngpus; i++) {
        hwloc_obj_t at = hwloc_get_non_io_ancestor_obj (hw->topo, hw->gpus[i]);
        hw->gpu_at[i] = place_of (hw, at);
    }
    return 0;
}

static bool same_place (struct place a, hwloc_obj_t pkg, hwloc_obj_t numa)
{
    return a.pkg == pkg && a.numa == numa;
}

static uint64_t memory_gb (hwloc_obj_t numa)
{
    uint64_t gb = numa->attr ? numa->attr->numanode.local_memory / GB : 0;
    return gb > 0 ? gb : 1;
}

/* The cores, GPUs and memory pools placed at (pkg, numa), under v.  A
 * pool is placed by its own NUMA node when the package shows NUMA
 * vertices, else by its package. */
static int hw_leaves (struct hw *hw, rp_vertex_t v, hwloc_obj_t pkg,
                      hwloc_obj_t numa)
{
    bool split = pkg && numas_in (hw, pkg) >= 2;

    for (unsigned int i = 0; i < hw->ncores; i++)
        if (same_place (hw->core_at[i], pkg, numa)
            && add_child (hw->g, v, "core", hw->cores[i]->logical_index, 1,
                          NULL, NULL, hw->error)
                   < 0)
            return -1;
    for (unsigned int i = 0; i < hw->ngpus; i++)
        if (same_place (hw->gpu_at[i], pkg, numa)
            && add_child (hw->g, v, "gpu", i, 1, NULL, NULL, hw->error) < 0)
            return -1;
    for (unsigned int i = 0; i < hw->nnumas; i++) {
        hwloc_obj_t m = hw->numas[i];
        if (hw->numa_at[i].pkg != pkg || (split && m != numa)
            || (!split && numa))
            continue;
        if (add_child (hw->g, v, "memory", m->logical_index, memory_gb (m),
                       "GB", NULL, hw->error)
            < 0)
            return -1;
    }
    return 0;
}

static int hw_socket (struct hw *hw, rp_vertex_t node, hwloc_obj_t pkg)
{
    rp_vertex_t s;

    if (add_child (hw->g, node, "socket", pkg->logical_index, 1, NULL, &s,
                   hw->error)
        < 0)
        return -1;
    if (numas_in (hw, pkg) >= 2) {
        for (unsigned int i = 0; i < hw->nnumas; i++) {
            rp_vertex_t m;
            if (hw->numa_at[i].pkg != pkg)
                continue;
            if (add_child (hw->g, s, "numanode", hw->numas[i]->logical_index, 1,
                           NULL, &m, hw->error)
                    < 0
                || hw_leaves (hw, m, pkg, hw->numas[i]) < 0)
                return -1;
        }
    }
    return hw_leaves (hw, s, pkg, NULL);
}

static int hw_build (struct hw *hw, unsigned int rank, const char *host)
{
    int npkg = hwloc_get_nbobjs_by_type (hw->topo, HWLOC_OBJ_PACKAGE);
    rp_vertex_t root, node;

    root = rp_graph_add_vertex (hw->g, "cluster", NULL, 0, 1, NULL, hw->error);
    if (root == RP_VERTEX_NONE
        || add_child (hw->g, root, "node", rank, 1, NULL, &node, hw->error) < 0
        || rp_graph_set_name (hw->g, node, host, hw->error) < 0
        || rp_graph_set_rank (hw->g, node, rank, hw->error) < 0)
        return -1;
    for (int i = 0; i < npkg; i++) {
        hwloc_obj_t pkg =
            hwloc_get_obj_by_type (hw->topo, HWLOC_OBJ_PACKAGE, (unsigned)i);
        if (hw_socket (hw, node, pkg) < 0)
            return -1;
    }
    if (hw_leaves (hw, node, NULL, NULL) < 0)
        return -1;
    return rp_graph_finalize (hw->g, hw->error);
}

static void hw_free (struct hw *hw)
{
    free (hw->cores);
    free (hw->core_at);
    free (hw->gpus);
    free (hw->gpu_at);
    free (hw->numas);
    free (hw->numa_at);
}

/* Build from a topology loaded in this process (path: its file, for
 * messages, or NULL). */
static struct rp_graph *build (hwloc_topology_t topo, const char *path,
                               unsigned int rank, const char *hostname,
                               rp_error_t *error)
{
    char hostbuf[HOST_NAME_MAX + 1];
    struct hw hw = { .error = error, .topo = topo };
    const char *host;

    if (!(host = rhwloc_hostname (hw.topo, hostname, hostbuf, sizeof (hostbuf),
                                  HW, error))
        || hw_collect (&hw) < 0)
        goto error;
    if (!(hw.g = rp_graph_create ())) {
        rp_error_set (error, ENOMEM, HW ": out of memory");
        goto error;
    }
    if (hw_build (&hw, rank, host) < 0) {
        if (path)
            rp_error_prefix (error, HW ": %s", path);
        else
            rp_error_prefix (error, HW);
        goto error;
    }
    hw_free (&hw);
    return hw.g;
error:;
    int saved_errno = errno;
    rp_graph_destroy (hw.g);
    hw_free (&hw);
    errno = saved_errno;
    return NULL;
}

static struct rp_graph *from_topology (const char *path, unsigned int rank,
                                       const char *hostname, rp_error_t *error)
{
    hwloc_topology_t topo;
    struct rp_graph *g;

    if (rhwloc_load (&topo, path, HW, error) < 0)
        return NULL;
    g = build (topo, path, rank, hostname, error);
    int saved_errno = errno;
    hwloc_topology_destroy (topo);
    errno = saved_errno;
    return g;
}

struct rp_graph *rp_graph_from_topology (struct hwloc_topology *topo,
                                         unsigned int rank,
                                         const char *hostname,
                                         rp_error_t *error)
{
    if (!topo) {
        rp_error_set (error, EINVAL, HW ": invalid argument");
        return NULL;
    }
    return build (topo, NULL, rank, hostname, error);
}

struct child_args {
    const char *path;
    unsigned int rank;
    const char *hostname;
};

static char *graph_child (void *arg, rp_error_t *error)
{
    struct child_args *a = arg;
    struct rp_graph *g = from_topology (a->path, a->rank, a->hostname, error);
    char *s;

    if (!g)
        return NULL;
    if (!(s = rp_graph_encode (g, RP_GRAPH_JSON)))
        rp_error_set (error, ENOMEM, HW ": out of memory");
    rp_graph_destroy (g);
    return s;
}

struct rp_graph *rp_graph_from_hwloc (const char *path, unsigned int rank,
                                      const char *hostname, rp_error_t *error)
{
    struct child_args args = { path, rank, hostname };
    struct rp_graph *g;
    json_t *o;
    char *s;

    if (!path)
        return from_topology (NULL, rank, hostname, error);
    if (!(s = rhwloc_run_child (path, HW, graph_child, &args, error)))
        return NULL;
    o = json_loads (s, 0, NULL);
    free (s);
    if (!o) {
        rp_error_set (error, EIO, HW ": %s: the process reading it failed",
                      path);
        return NULL;
    }
    g = rp_graph_from_json (o, error);
    json_decref (o);
    return g;
}
