/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* What a property plugin learns of a target's hardware
 * (rp_hardware_from_hwloc, api/respol/property.h): a JSON object of
 * facts read from this machine's hwloc topology or an XML file's.
 *
 * The CPU's vendor and model are the CPUVendor and CPUModel infos of the
 * first package (else of the root: some topologies put them there), with
 * trailing blanks dropped (AMD pads its model names).  Memory is the
 * root's total memory (every NUMA node's).  GPUs are those R numbers
 * (rhwloc_gpus: one per physical device, in R's order); a GPU's vendor
 * comes from its PCI device's vendor id, else from the GPUVendor info
 * (XML written without PCI devices), and its model from the GPUModel
 * info, else the PCI device's name (PCIDevice).
 *
 * An XML file is read in a child process, as for R (core/rhwloc.c): the
 * facts come back encoded and are decoded here.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <hwloc.h>
#include <jansson.h>

#include "respol/property.h"

#include "core/rhwloc_private.h"

#define PREFIX "hwloc"

/* An info of the first package, else of the root; NULL when none. */
static const char *cpu_info (hwloc_topology_t topo, const char *name)
{
    hwloc_obj_t pkg = hwloc_get_obj_by_type (topo, HWLOC_OBJ_PACKAGE, 0);
    const char *s = pkg ? hwloc_obj_get_info_by_name (pkg, name) : NULL;

    if (!s)
        s = hwloc_obj_get_info_by_name (hwloc_get_root_obj (topo), name);
    return s && *s ? s : NULL;
}

/* o[key] = s without its trailing blanks, when s has more than blanks. */
static int set_text (json_t *o, const char *key, const char *s)
{
    size_t len = s ? strlen (s) : 0;

    while (len > 0 && isspace ((unsigned char)s[len - 1]))
        len--;
    if (len == 0)
        return 0;
    return json_object_set_new (o, key, json_stringn (s, len));
}

static int set_count (json_t *o, const char *key, hwloc_topology_t topo,
                      hwloc_obj_type_t type)
{
    int n = hwloc_get_nbobjs_by_type (topo, type);

    return n > 0 ? json_object_set_new (o, key, json_integer (n)) : 0;
}

static const char *vendor_name (hwloc_obj_t gpu, hwloc_obj_t pci)
{
    const char *s = hwloc_obj_get_info_by_name (gpu, "GPUVendor");

    switch (pci ? pci->attr->pcidev.vendor_id : 0) {
    case 0x10de:
        return "nvidia";
    case 0x1002:
        return "amd";
    case 0x8086:
        return "intel";
    }
    if (s && (strstr (s, "NVIDIA") || strstr (s, "Nvidia")))
        return "nvidia";
    if (s && (strstr (s, "AMD") || strstr (s, "Advanced Micro Devices")))
        return "amd";
    if (s && strstr (s, "Intel"))
        return "intel";
    return "unknown";
}

static json_t *gpu_facts (hwloc_obj_t gpu)
{
    hwloc_obj_t pci = rhwloc_pci_ancestor (gpu);
    const char *model = hwloc_obj_get_info_by_name (gpu, "GPUModel");
    json_t *o = json_pack ("{s:s}", "vendor", vendor_name (gpu, pci));

    if (!model && pci)
        model = hwloc_obj_get_info_by_name (pci, "PCIDevice");
    if (o && set_text (o, "model", model) < 0) {
        json_decref (o);
        return NULL;
    }
    return o;
}

static json_t *gpus_facts (hwloc_topology_t topo)
{
    unsigned int n = rhwloc_gpus (topo, NULL, 0);
    hwloc_obj_t *v = calloc (n + 1, sizeof (*v));
    json_t *a = v ? json_array () : NULL;

    if (a)
        n = rhwloc_gpus (topo, v, n);
    for (unsigned int i = 0; a && i < n; i++)
        if (json_array_append_new (a, gpu_facts (v[i])) < 0) {
            json_decref (a);
            a = NULL;
        }
    free (v);
    return a;
}

static json_t *facts (hwloc_topology_t topo)
{
    hwloc_obj_t root = hwloc_get_root_obj (topo);
    json_t *o = json_object ();

    if (!o || set_text (o, "cpu-vendor", cpu_info (topo, "CPUVendor")) < 0
        || set_text (o, "cpu-model", cpu_info (topo, "CPUModel")) < 0
        || set_count (o, "packages", topo, HWLOC_OBJ_PACKAGE) < 0
        || set_count (o, "cores", topo, HWLOC_OBJ_CORE) < 0
        || set_count (o, "pus", topo, HWLOC_OBJ_PU) < 0
        || set_count (o, "numa", topo, HWLOC_OBJ_NUMANODE) < 0
        || (root->total_memory > 0
            && json_object_set_new (
                   o, "memory", json_integer ((json_int_t)root->total_memory))
                   < 0)
        || json_object_set_new (o, "gpus", gpus_facts (topo)) < 0) {
        json_decref (o);
        return NULL;
    }
    return o;
}

static json_t *from_topology (const char *xmlfile, rp_error_t *error)
{
    hwloc_topology_t topo;
    json_t *o;

    if (rhwloc_load (&topo, xmlfile, PREFIX, error) < 0)
        return NULL;
    if (!(o = facts (topo)))
        rp_error_set (error, ENOMEM, PREFIX ": out of memory");
    hwloc_topology_destroy (topo);
    return o;
}

static char *facts_child (void *arg, rp_error_t *error)
{
    json_t *o = from_topology (arg, error);
    char *s = o ? json_dumps (o, JSON_COMPACT) : NULL;

    if (o && !s)
        rp_error_set (error, ENOMEM, PREFIX ": out of memory");
    json_decref (o);
    return s;
}

json_t *rp_hardware_from_hwloc (const char *xmlfile, rp_error_t *error)
{
    json_t *o;
    char *reply;

    if (!xmlfile)
        return from_topology (NULL, error);
    if (!(reply = rhwloc_run_child (xmlfile, PREFIX, facts_child,
                                    (void *)xmlfile, error)))
        return NULL;
    if (!(o = json_loads (reply, 0, NULL)))
        rp_error_set (error, EPROTO, PREFIX ": %s: unreadable reply", xmlfile);
    free (reply);
    return o;
}
