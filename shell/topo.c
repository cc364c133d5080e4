/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* What the topology says of the job's cores and GPUs on one execution
 * target (api/respol/shell.h): each core's PUs, NUMA node and package,
 * each GPU's vendor, PCI bus id, nearest NUMA node and cores, and its
 * index in its vendor's visible-devices variable.
 *
 * R's ids are the ones R's hwloc discovery gives (core/rhwloc.c): cores
 * are hwloc's logical Core indices (PUs when the topology has no Core),
 * GPUs are numbered by rhwloc_gpus.  Both are read in the whole topology;
 * only then is it restricted to the job's PUs for plugins (a restriction
 * renumbers logical indices).
 *
 * An XML file is first read by R's discovery in a child process: hwloc
 * crashes on some malformed files, and the shell must not.  Once that
 * child read it, the shell loads it in process.
 *
 * A GPU's nearest NUMA node and cores: those under the smallest non-I/O
 * object holding the GPU (hwloc's PCI locality).  A GPU whose locality is
 * the whole machine (a virtual machine shows no PCI locality) is near
 * every core and no NUMA node in particular.
 *
 * A GPU's index: CUDA numbers devices in PCI bus order when
 * CUDA_DEVICE_ORDER=PCI_BUS_ID (the GPU affinity plugin sets it), ROCm and
 * Level Zero number theirs in PCI bus order: the index of a GPU is its
 * position among the machine's GPUs of the same vendor sorted by bus id.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/idset.h"
#include "respol/rset.h"

#include "core/rhwloc_private.h"
#include "shell/shell_private.h"

#define PREFIX "shell: hwloc"

static hwloc_obj_type_t core_type (hwloc_topology_t topo)
{
    return hwloc_get_nbobjs_by_type (topo, HWLOC_OBJ_CORE) > 0
               ? HWLOC_OBJ_CORE
               : HWLOC_OBJ_PU;
}

static int idset_of_bitmap (struct rp_idset *ids, hwloc_const_bitmap_t set)
{
    int i;

    hwloc_bitmap_foreach_begin (i, set)
    {
        if (rp_idset_add (ids, (unsigned int)i) < 0)
            return -1;
    }
    hwloc_bitmap_foreach_end ();
    return 0;
}

static int numa_of (hwloc_topology_t topo, hwloc_const_cpuset_t set)
{
    hwloc_obj_t n = hwloc_get_next_obj_covering_cpuset_by_type (
        topo, set, HWLOC_OBJ_NUMANODE, NULL);

    if (!n) /* a set wider than one NUMA node: the first inside it */
        n = hwloc_get_next_obj_inside_cpuset_by_type (topo, set,
                                                     HWLOC_OBJ_NUMANODE, NULL);
    return n ? (int)n->os_index : -1;
}

/* The cores of R on this target: PUs, NUMA node, package. */
static int load_cores (struct rp_shell *sh, rp_error_t *error)
{
    const struct rp_idset *cores = rp_rset_cores (sh->R, sh->rank);
    hwloc_obj_type_t type = core_type (sh->topo);
    int nobjs = hwloc_get_nbobjs_by_type (sh->topo, type);
    unsigned int c;

    sh->ncore_slots = rp_idset_empty (cores) ? 0 : rp_idset_max (cores) + 1;
    if (!(sh->core_cpus = calloc (sh->ncore_slots + 1, sizeof (*sh->core_cpus)))
        || !(sh->core_numa = calloc (sh->ncore_slots + 1, sizeof (int)))
        || !(sh->core_pkg = calloc (sh->ncore_slots + 1, sizeof (int))))
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    for (c = rp_idset_first (cores); c != RP_IDSET_INVALID_ID;
         c = rp_idset_next (cores, c)) {
        hwloc_obj_t o = hwloc_get_obj_by_type (sh->topo, type, c);
        hwloc_obj_t pkg;
        if (!o)
            return rp_error_set (error, EINVAL,
                                 "shell: rank %u: core %u of R is not in the "
                                 "topology, which has %d",
                                 sh->rank, c, nobjs);
        if (!(sh->core_cpus[c] = rp_idset_create ())
            || idset_of_bitmap (sh->core_cpus[c], o->cpuset) < 0
            || rp_idset_add_set (sh->cpus, sh->core_cpus[c]) < 0
            || rp_idset_add (sh->cores, c) < 0)
            return rp_error_set (error, ENOMEM, "shell: out of memory");
        sh->core_numa[c] = numa_of (sh->topo, o->cpuset);
        pkg = hwloc_get_ancestor_obj_by_type (sh->topo, HWLOC_OBJ_PACKAGE, o);
        sh->core_pkg[c] = pkg ? (int)pkg->os_index : -1;
        if (sh->core_numa[c] >= 0
            && rp_idset_add (sh->numas, (unsigned int)sh->core_numa[c]) < 0)
            return rp_error_set (error, ENOMEM, "shell: out of memory");
    }
    return 0;
}

static hwloc_obj_t pci_of (hwloc_obj_t o)
{
    while (o && o->type != HWLOC_OBJ_PCI_DEVICE)
        o = o->parent;
    return o;
}

static int vendor_of (hwloc_obj_t pci)
{
    if (!pci)
        return RP_GPU_UNKNOWN;
    switch (pci->attr->pcidev.vendor_id) {
    case 0x10de:
        return RP_GPU_NVIDIA;
    case 0x1002:
        return RP_GPU_AMD;
    case 0x8086:
        return RP_GPU_INTEL;
    default:
        return RP_GPU_UNKNOWN;
    }
}

static void busid_of (hwloc_obj_t pci, char *buf, size_t size)
{
    buf[0] = '\0';
    if (pci)
        snprintf (buf, size, "%04x:%02x:%02x.%01x", pci->attr->pcidev.domain,
                  pci->attr->pcidev.bus, pci->attr->pcidev.dev,
                  pci->attr->pcidev.func);
}

/* The job's cores whose PUs are all inside set (all of them when set is
 * the machine's). */
static struct rp_idset *cores_inside (const struct rp_shell *sh,
                                      hwloc_const_cpuset_t set)
{
    struct rp_idset *near = rp_idset_create ();

    for (unsigned int c = 0; near && c < sh->ncore_slots; c++) {
        hwloc_obj_t o;
        if (!sh->core_cpus[c])
            continue;
        o = hwloc_get_obj_by_type (sh->topo, core_type (sh->topo), c);
        if (o && hwloc_bitmap_isincluded (o->cpuset, set)
            && rp_idset_add (near, c) < 0) {
            rp_idset_destroy (near);
            return NULL;
        }
    }
    return near;
}

/* The index of gpu g among the machine's GPUs (all n of them) of its
 * vendor, in bus id order. */
static int index_of (const char *busid, int vendor, hwloc_obj_t *all,
                     unsigned int n, unsigned int g)
{
    int index = 0;

    if (!busid[0])
        return (int)g;
    for (unsigned int i = 0; i < n; i++) {
        hwloc_obj_t pci = pci_of (all[i]);
        char other[16];
        busid_of (pci, other, sizeof (other));
        if (i != g && vendor_of (pci) == vendor && other[0]
            && strcmp (other, busid) < 0)
            index++;
    }
    return index;
}

static int load_gpus (struct rp_shell *sh, rp_error_t *error)
{
    const struct rp_idset *gpus = rp_rset_gpus (sh->R, sh->rank);
    unsigned int n = rhwloc_gpus (sh->topo, NULL, 0);
    hwloc_obj_t *all = calloc (n + 1, sizeof (*all));
    unsigned int g;
    int rc = 0;

    sh->ngpu_slots = !gpus || rp_idset_empty (gpus) ? 0 : rp_idset_max (gpus) + 1;
    if (!all || !(sh->gpu = calloc (sh->ngpu_slots + 1, sizeof (*sh->gpu)))) {
        free (all);
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    }
    rhwloc_gpus (sh->topo, all, n);
    for (g = gpus ? rp_idset_first (gpus) : RP_IDSET_INVALID_ID;
         g != RP_IDSET_INVALID_ID; g = rp_idset_next (gpus, g)) {
        struct gpu_info *gi = &sh->gpu[g];
        hwloc_obj_t pci, at;
        if (g >= n) {
            rc = rp_error_set (error, EINVAL,
                               "shell: rank %u: GPU %u of R is not in the "
                               "topology, which has %u",
                               sh->rank, g, n);
            break;
        }
        pci = pci_of (all[g]);
        gi->vendor = vendor_of (pci);
        busid_of (pci, gi->busid, sizeof (gi->busid));
        if (all[g]->type == HWLOC_OBJ_OS_DEVICE && all[g]->name)
            snprintf (gi->name, sizeof (gi->name), "%s", all[g]->name);
        at = hwloc_get_non_io_ancestor_obj (sh->topo, all[g]);
        gi->numa = !at || !at->parent ? -1 : numa_of (sh->topo, at->cpuset);
        gi->index = index_of (gi->busid, gi->vendor, all, n, g);
        if (!(gi->cores = !at || !at->parent
                              ? rp_idset_copy (sh->cores)
                              : cores_inside (sh, at->cpuset))
            || rp_idset_add (sh->gpus, g) < 0) {
            rc = rp_error_set (error, ENOMEM, "shell: out of memory");
            break;
        }
    }
    free (all);
    return rc;
}

/* Restrict the topology to the job's PUs, for plugins. */
static int restrict_topo (struct rp_shell *sh, rp_error_t *error)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc ();
    unsigned int i;
    int rc = 0;

    if (!set)
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    for (i = rp_idset_first (sh->cpus); i != RP_IDSET_INVALID_ID;
         i = rp_idset_next (sh->cpus, i))
        hwloc_bitmap_set (set, i);
    if (!hwloc_bitmap_iszero (set)
        && hwloc_topology_restrict (sh->topo, set,
                                    HWLOC_RESTRICT_FLAG_ADAPT_IO)
               < 0)
        rc = rp_error_set (error, errno, "%s: cannot restrict the topology "
                                         "to the job's CPUs: %s",
                           PREFIX, strerror (errno));
    hwloc_bitmap_free (set);
    return rc;
}

int shell_topo_load (struct rp_shell *sh, rp_error_t *error)
{
    if (sh->topo)
        ; /* the host's (rp_shell_set_topology) */
    else if (sh->xmlfile) {
        /* Read in a child first: hwloc crashes on some bad files. */
        struct rp_rset *probe = rp_rset_from_hwloc (0, NULL, sh->xmlfile,
                                                    error);
        if (!probe)
            return rp_error_prefix (error, "shell");
        rp_rset_destroy (probe);
    }
    if (!sh->topo && rhwloc_load (&sh->topo, sh->xmlfile, PREFIX, error) < 0)
        return -1;
    if (!(sh->cpus = rp_idset_create ()) || !(sh->cores = rp_idset_create ())
        || !(sh->gpus = rp_idset_create ()) || !(sh->numas = rp_idset_create ()))
        return rp_error_set (error, ENOMEM, "shell: out of memory");
    if (load_cores (sh, error) < 0 || load_gpus (sh, error) < 0)
        return -1;
    return restrict_topo (sh, error);
}

void shell_topo_free (struct rp_shell *sh)
{
    for (unsigned int c = 0; c < sh->ncore_slots && sh->core_cpus; c++)
        rp_idset_destroy (sh->core_cpus[c]);
    free (sh->core_cpus);
    free (sh->core_numa);
    free (sh->core_pkg);
    for (unsigned int g = 0; g < sh->ngpu_slots && sh->gpu; g++)
        rp_idset_destroy (sh->gpu[g].cores);
    free (sh->gpu);
    rp_idset_destroy (sh->cpus);
    rp_idset_destroy (sh->cores);
    rp_idset_destroy (sh->gpus);
    rp_idset_destroy (sh->numas);
    if (sh->topo)
        hwloc_topology_destroy (sh->topo);
}

/* --- accessors ------------------------------------------------------------ */

hwloc_topology_t rp_shell_topology (const struct rp_shell *sh)
{
    return sh ? sh->topo : NULL;
}

const struct rp_idset *rp_shell_cpus (const struct rp_shell *sh)
{
    return sh ? sh->cpus : NULL;
}

const struct rp_idset *rp_shell_cores (const struct rp_shell *sh)
{
    return sh ? sh->cores : NULL;
}

const struct rp_idset *rp_shell_gpus (const struct rp_shell *sh)
{
    return sh ? sh->gpus : NULL;
}

const struct rp_idset *rp_shell_numas (const struct rp_shell *sh)
{
    return sh ? sh->numas : NULL;
}

static bool job_core (const struct rp_shell *sh, unsigned int core)
{
    return sh && sh->core_cpus && core < sh->ncore_slots
           && sh->core_cpus[core];
}

const struct rp_idset *rp_shell_core_cpus (const struct rp_shell *sh,
                                           unsigned int core)
{
    return job_core (sh, core) ? sh->core_cpus[core] : NULL;
}

int rp_shell_core_numa (const struct rp_shell *sh, unsigned int core)
{
    return job_core (sh, core) ? sh->core_numa[core] : -1;
}

int rp_shell_core_package (const struct rp_shell *sh, unsigned int core)
{
    return job_core (sh, core) ? sh->core_pkg[core] : -1;
}

static const struct gpu_info *job_gpu (const struct rp_shell *sh,
                                       unsigned int gpu)
{
    return sh && sh->gpu && gpu < sh->ngpu_slots && sh->gpu[gpu].cores
               ? &sh->gpu[gpu]
               : NULL;
}

int rp_shell_gpu_vendor (const struct rp_shell *sh, unsigned int gpu)
{
    const struct gpu_info *gi = job_gpu (sh, gpu);
    return gi ? gi->vendor : RP_GPU_UNKNOWN;
}

const char *rp_shell_gpu_busid (const struct rp_shell *sh, unsigned int gpu)
{
    const struct gpu_info *gi = job_gpu (sh, gpu);
    return gi && gi->busid[0] ? gi->busid : NULL;
}

const char *rp_shell_gpu_name (const struct rp_shell *sh, unsigned int gpu)
{
    const struct gpu_info *gi = job_gpu (sh, gpu);
    return gi && gi->name[0] ? gi->name : NULL;
}

int rp_shell_gpu_numa (const struct rp_shell *sh, unsigned int gpu)
{
    const struct gpu_info *gi = job_gpu (sh, gpu);
    return gi ? gi->numa : -1;
}

const struct rp_idset *rp_shell_gpu_cores (const struct rp_shell *sh,
                                           unsigned int gpu)
{
    const struct gpu_info *gi = job_gpu (sh, gpu);
    return gi ? gi->cores : NULL;
}

int rp_shell_gpu_index (const struct rp_shell *sh, unsigned int gpu)
{
    const struct gpu_info *gi = job_gpu (sh, gpu);
    return gi ? gi->index : -1;
}
