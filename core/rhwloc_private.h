/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Inside librespol only: the hwloc pieces that R (core/rhwloc.c) and the
 * resource graph (core/graph_build.c) share, so that both number cores and
 * GPUs the same way and both survive a malformed XML file.
 *
 * Messages start with the caller's prefix ("R: hwloc", "graph: hwloc").
 */
#ifndef RESPOL_RHWLOC_PRIVATE_H
#define RESPOL_RHWLOC_PRIVATE_H

#include <stddef.h>

#include <hwloc.h>

#include <respol/error.h>

/* The largest hwloc XML file read.  Real machines' files are a few MB
 * (a node with hundreds of PCI devices); hwloc takes the length as an int. */
#define RHWLOC_XML_MAX_BYTES (64 << 20)
#define RHWLOC_XML_MAX_TEXT "64 MiB"

/* Load this machine's topology (xmlfile NULL) or an XML file, keeping
 * every I/O object.  Call it on an XML file only in a child process
 * (rhwloc_run_child): hwloc may crash on malformed XML. */
int rhwloc_load (hwloc_topology_t *topo, const char *xmlfile,
                 const char *prefix, rp_error_t *error);

/* The compute GPUs, one OS device per physical device, in the order that
 * numbers them 0..n-1.  Fills gpus[0 .. max-1] and returns the count
 * (which may exceed max). */
unsigned int rhwloc_gpus (hwloc_topology_t topo, hwloc_obj_t *gpus,
                          unsigned int max);

/* The PCI device o is (o itself) or is under, or NULL. */
hwloc_obj_t rhwloc_pci_ancestor (hwloc_obj_t o);

/* hostname if not NULL, else the topology's HostName, else the machine's
 * (written to buf). */
const char *rhwloc_hostname (hwloc_topology_t topo, const char *hostname,
                             char *buf, size_t size, const char *prefix,
                             rp_error_t *error);

/* Run fn (arg) in a forked child, which reads xmlfile, and return the
 * string fn returned there (caller frees), or NULL with fn's error, or an
 * error saying that the child died (an invalid topology). */
typedef char *(*rhwloc_child_f) (void *arg, rp_error_t *error);
char *rhwloc_run_child (const char *xmlfile, const char *prefix,
                        rhwloc_child_f fn, void *arg, rp_error_t *error);

#endif
