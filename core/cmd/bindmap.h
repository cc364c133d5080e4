/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The binding map of a job shell after rp_shell_init: where each local
 * task runs, as JSON for scripts, as a table for people, and as an SVG
 * drawing of the machine (core/cmd/bindmap.c).  respol run --dry-run and
 * respol shell --dry-run print it.
 *
 * The JSON object (keys sorted when printed):
 *   host, rank           this target
 *   ntasks               the job's tasks over every target
 *   taskmap              RFC 34 task map (absent when the host laid out)
 *   cpus, cores, gpus, numa
 *                        what the job holds here: PUs (OS indices),
 *                        cores and GPUs (R's ids), NUMA nodes (OS indices),
 *                        as idsets
 *   tasks                one object per local task:
 *     id, local_id, rank
 *     bound              whether a plugin bound its CPUs
 *     cpus               the PUs it may run on (all the job's when unbound)
 *     cores              the cores (R ids) those PUs belong to
 *     numa, packages     the NUMA nodes and packages (OS indices) of those
 *                        cores ("" when the topology has none)
 *     gpus               the GPUs it sees: [{id, name, busid, numa,
 *                        vendor, index}] (name and busid null when
 *                        unknown, numa -1 when the GPU is the machine's)
 *     gpus_bound         whether a plugin chose its GPUs
 *     mem                {policy: "default"|"bind"|"preferred", numa}
 *     env                what the shell plugins set:
 *                        {NAME: {value, by: instance}}
 */
#ifndef RESPOL_CMD_BINDMAP_H
#define RESPOL_CMD_BINDMAP_H

#include <stdio.h>

#include <hwloc.h>
#include <jansson.h>

#include <respol/shell.h>

/* The map above; dies on out of memory.  Caller must json_decref. */
json_t *bindmap_json (struct rp_shell *sh);

/* The map as a table, with each task's memory policy and the variables
 * the plugins set below it. */
void bindmap_print_table (FILE *f, const json_t *map);

/* Draw the machine with each task's PUs, cores and GPUs in its colour
 * (hwloc's lstopo, its native SVG output) into path.  topo is the whole
 * machine (not restricted to the job); it is copied, not changed.  0, or
 * -1 after printing why ("respol: SUB: --svg: ..."). */
int bindmap_svg (const char *sub, const json_t *map, hwloc_topology_t topo,
                 const char *path);

#endif
