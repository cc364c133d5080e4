/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for core/jobspec.c (RFC 14 canonical jobspec, RFC 25 V1).
 *
 * - the conformance examples of RFC 14, 25 and 26 (copied to
 *   t/data/jobspec/conformance, found through RESPOL_SRCDIR): which profile
 *   accepts each, and its derived facts;
 * - a table of invalid documents, one per rule: a valid base document with
 *   one substitution (or a whole small document), and every message it
 *   must produce, exactly;
 * - the model's accessors on a document that uses every feature;
 * - bounds (counts, nesting), JSON input without positions, argument
 *   errors.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/jobspec.h"
#include "t/tap/tap.h"

/* Canonical base: every section and every system attribute, valid. */
static const char base_c[] = "version: 999\n"                   /* 1 */
                             "resources:\n"                     /* 2 */
                             "  - type: node\n"                 /* 3 */
                             "    count: 2\n"                   /* 4 */
                             "    label: nodes\n"               /* 5 */
                             "    with:\n"                      /* 6 */
                             "      - type: slot\n"             /* 7 */
                             "        count: 2\n"               /* 8 */
                             "        label: default\n"         /* 9 */
                             "        with:\n"                  /* 10 */
                             "          - type: core\n"         /* 11 */
                             "            count: 4\n"           /* 12 */
                             "          - type: gpu\n"          /* 13 */
                             "            count: 1\n"           /* 14 */
                             "          - type: memory\n"       /* 15 */
                             "            count: 8\n"           /* 16 */
                             "            unit: GB\n"           /* 17 */
                             "tasks:\n"                         /* 18 */
                             "  - command: [\"app\", \"-v\"]\n" /* 19 */
                             "    slot: default\n"              /* 20 */
                             "    count:\n"                     /* 21 */
                             "      per_slot: 1\n"              /* 22 */
                             "    distribution: block\n"        /* 23 */
                             "    attributes:\n"                /* 24 */
                             "      environment:\n"             /* 25 */
                             "        FOO: \"1\"\n"             /* 26 */
                             "        BAR: null\n"              /* 27 */
                             "attributes:\n"                    /* 28 */
                             "  system:\n"                      /* 29 */
                             "    duration: 3600.\n"            /* 30 */
                             "    cwd: /home/flux\n"            /* 31 */
                             "    queue: batch\n"               /* 32 */
                             "    bank: b1\n"                   /* 33 */
                             "    project: p1\n"                /* 34 */
                             "    environment:\n"               /* 35 */
                             "      HOME: /home/flux\n"         /* 36 */
                             "    job:\n"                       /* 37 */
                             "      name: myjob\n"              /* 38 */
                             "    shell:\n"                     /* 39 */
                             "      options:\n"                 /* 40 */
                             "        verbose: true\n"          /* 41 */
                             "    dependencies:\n"              /* 42 */
                             "      - scheme: afterok\n"        /* 43 */
                             "        value: f1234\n"           /* 44 */
                             "    constraints:\n"               /* 45 */
                             "      properties: [ssd]\n"        /* 46 */
                             "    files:\n"                     /* 47 */
                             "      script:\n"                  /* 48 */
                             "        mode: 33216\n"            /* 49 */
                             "        size: 10\n"               /* 50 */
                             "        encoding: utf-8\n"        /* 51 */
                             "        data: \"#!/bin/sh\\n\"\n" /* 52 */
                             "  user:\n"                        /* 53 */
                             "    anything: [1, 2]\n";          /* 54 */

/* V1 base: node>slot>(core,gpu), valid. */
static const char base_v[] = "version: 1\n"             /* 1 */
                             "resources:\n"             /* 2 */
                             "  - type: node\n"         /* 3 */
                             "    count: 2\n"           /* 4 */
                             "    exclusive: true\n"    /* 5 */
                             "    with:\n"              /* 6 */
                             "      - type: slot\n"     /* 7 */
                             "        count: 2\n"       /* 8 */
                             "        label: task\n"    /* 9 */
                             "        with:\n"          /* 10 */
                             "          - type: core\n" /* 11 */
                             "            count: 4\n"   /* 12 */
                             "          - type: gpu\n"  /* 13 */
                             "            count: 1\n"   /* 14 */
                             "tasks:\n"                 /* 15 */
                             "  - command: [\"app\"]\n" /* 16 */
                             "    slot: task\n"         /* 17 */
                             "    count:\n"             /* 18 */
                             "      per_slot: 1\n"      /* 19 */
                             "attributes:\n"            /* 20 */
                             "  system:\n"              /* 21 */
                             "    duration: 60\n";      /* 22 */

#define C RP_JOBSPEC_CANONICAL
#define V RP_JOBSPEC_V1

/* A small document's common tail, for whole-document cases. */
#define TAIL_C                                                                 \
    "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n"                 \
    "attributes: {}\n"

struct invalid_case {
    const char *rule;
    enum rp_jobspec_profile profile;
    const char *base; /* NULL: text is the whole document */
    const char *old;  /* replaced by text in base, must occur once */
    const char *text;
    const char *messages; /* every message, '\n'-joined; warnings carry
                           * "warning: " in front */
};

static const struct invalid_case invalid[] = {
    /* the document */
    { "jobspec is a dictionary", C, NULL, NULL, "- 1\n",
      "job.yaml:1:1: jobspec must be a dictionary" },
    { "unknown top-level key", C, base_c, "version: 999\n",
      "version: 999\nextra: 1\n", "job.yaml:2:1: extra: unknown key" },
    { "version required", C, base_c, "version: 999\n", "",
      "job.yaml:1:1: missing key \"version\"" },
    { "resources, tasks, attributes required", C, NULL, NULL, "version: 1\n",
      "job.yaml:1:1: missing key \"resources\"\n"
      "job.yaml:1:1: missing key \"tasks\"\n"
      "job.yaml:1:1: missing key \"attributes\"" },
    { "version is an integer", C, base_c, "version: 999", "version: \"1\"",
      "job.yaml:1:10: version: must be an integer" },
    { "version is an integer (real)", C, base_c, "version: 999", "version: 1.0",
      "job.yaml:1:10: version: must be an integer" },
    { "version is >= 1 (as flux-core)", C, base_c, "version: 999", "version: 0",
      "job.yaml:1:10: version: must be >= 1" },
    { "version is not negative", C, base_c, "version: 999", "version: -1",
      "job.yaml:1:10: version: must be >= 1" },
    { "V1: version 0", V, base_v, "version: 1", "version: 0",
      "job.yaml:1:10: version: must be 1 in jobspec V1" },

    /* resources */
    { "resources is a list", C, NULL, NULL,
      "version: 1\nresources: {}\n" TAIL_C,
      "job.yaml:2:12: resources: must be a list\n"
      "job.yaml:3:30: tasks[0].slot: no slot labelled \"s\"" },
    { "resources is not empty", C, NULL, NULL,
      "version: 1\nresources: []\n" TAIL_C,
      "job.yaml:2:12: resources: must not be empty\n"
      "job.yaml:3:30: tasks[0].slot: no slot labelled \"s\"" },
    { "a vertex is a dictionary", C, NULL, NULL,
      "version: 1\nresources: [5]\n" TAIL_C,
      "job.yaml:2:13: resources[0]: must be a dictionary\n"
      "job.yaml:3:30: tasks[0].slot: no slot labelled \"s\"" },
    { "type required", C, base_c, "  - type: node\n    count: 2\n",
      "  - count: 2\n", "job.yaml:3:5: resources[0]: missing key \"type\"" },
    { "count required", C, base_c, "  - type: node\n    count: 2\n",
      "  - type: node\n", "job.yaml:3:5: resources[0]: missing key \"count\"" },
    { "type is a string", C, base_c, "type: node", "type: [node]",
      "job.yaml:3:11: resources[0].type: must be a string" },
    { "unknown vertex key", C, base_c, "    label: nodes\n",
      "    label: nodes\n    size: 4\n",
      "job.yaml:6:5: resources[0].size: unknown key" },
    { "count >= 1", C, base_c, "count: 2\n    label: nodes",
      "count: 0\n    label: nodes",
      "job.yaml:4:12: resources[0].count: must be >= 1" },
    { "count >= 1 (negative)", C, base_c, "count: 2\n    label: nodes",
      "count: -3\n    label: nodes",
      "job.yaml:4:12: resources[0].count: must be >= 1" },
    { "count <= RP_JOBSPEC_MAX_COUNT", C, base_c, "count: 2\n    label: nodes",
      "count: 2147483648\n    label: nodes",
      "job.yaml:4:12: resources[0].count: must be <= 2147483647" },
    { "count is not a real", C, base_c, "count: 2\n    label: nodes",
      "count: 1.5\n    label: nodes",
      "job.yaml:4:12: resources[0].count: must be an integer, a string or "
      "a dictionary" },
    { "count is not a boolean", C, base_c, "count: 2\n    label: nodes",
      "count: true\n    label: nodes",
      "job.yaml:4:12: resources[0].count: must be an integer, a string or "
      "a dictionary" },
    { "range string rules", C, base_c, "count: 2\n    label: nodes",
      "count: \"4-2\"\n    label: nodes",
      "job.yaml:4:12: resources[0].count: range: \"4-2\": max must be >= "
      "min" },
    { "range string syntax", C, base_c, "count: 2\n    label: nodes",
      "count: \"x\"\n    label: nodes",
      "job.yaml:4:12: resources[0].count: range: \"x\": expected a number "
      "at offset 0" },
    { "range string bound", C, base_c, "count: 2\n    label: nodes",
      "count: \"1-3000000000\"\n    label: nodes",
      "job.yaml:4:12: resources[0].count: max must be <= 2147483647" },
    { "range string operand bound", C, base_c, "count: 2\n    label: nodes",
      "count: \"1+:3000000000\"\n    label: nodes",
      "job.yaml:4:12: resources[0].count: operand must be <= 2147483647" },
    { "idset string syntax", C, base_c, "count: 2\n    label: nodes",
      "count: \"3,2\"\n    label: nodes",
      "job.yaml:4:12: resources[0].count: idset: \"3,2\": ids not "
      "ascending at offset 2" },
    { "idset members >= 1", C, base_c, "count: 2\n    label: nodes",
      "count: \"0,4\"\n    label: nodes",
      "job.yaml:4:12: resources[0].count: idset members must be >= 1" },
    { "idset members bound", C, base_c, "count: 2\n    label: nodes",
      "count: \"4,3000000000\"\n    label: nodes",
      "job.yaml:4:12: resources[0].count: idset members must be <= "
      "2147483647" },
    { "dictionary: min >= 1", C, base_c, "count: 4", "count: {min: 0}",
      "job.yaml:12:20: resources[0].with[0].with[0].count: min must be >= "
      "1" },
    { "dictionary: min required", C, base_c, "count: 4", "count: {max: 4}",
      "job.yaml:12:20: resources[0].with[0].with[0].count: missing key "
      "\"min\"" },
    { "dictionary: max >= min", C, base_c, "count: 4",
      "count: {min: 4, max: 2}",
      "job.yaml:12:20: resources[0].with[0].with[0].count: max must be >= "
      "min" },
    { "dictionary: operator needs operand", C, base_c, "count: 4",
      "count: {min: 1, max: 8, operator: \"*\"}",
      "job.yaml:12:20: resources[0].with[0].with[0].count: operator and "
      "operand must be given together" },
    { "dictionary: operand needs operator", C, base_c, "count: 4",
      "count: {min: 1, operand: 2}",
      "job.yaml:12:20: resources[0].with[0].with[0].count: operator and "
      "operand must be given together" },
    { "dictionary: operand >= 1", C, base_c, "count: 4",
      "count: {min: 1, operator: \"+\", operand: 0}",
      "job.yaml:12:20: resources[0].with[0].with[0].count: operand must be "
      ">= 1" },
    { "dictionary: * needs operand >= 2", C, base_c, "count: 4",
      "count: {min: 1, max: 8, operator: \"*\", operand: 1}",
      "job.yaml:12:20: resources[0].with[0].with[0].count: operand must be "
      ">= 2 for operator '*'" },
    { "dictionary: ^ needs operand >= 2", C, base_c, "count: 4",
      "count: {min: 2, operator: \"^\", operand: 1}",
      "job.yaml:12:20: resources[0].with[0].with[0].count: operand must be "
      ">= 2 for operator '^'" },
    { "dictionary: ^ needs min >= 2", C, base_c, "count: 4",
      "count: {min: 1, max: 8, operator: \"^\", operand: 2}",
      "job.yaml:12:20: resources[0].with[0].with[0].count: min must be >= 2 "
      "for operator '^'" },
    { "dictionary: operator is +, * or ^", C, base_c, "count: 4",
      "count: {min: 2, operator: \"/\", operand: 2}",
      "job.yaml:12:39: resources[0].with[0].with[0].count.operator: must be "
      "one of \"+\", \"*\", \"^\"" },
    { "dictionary: unknown key", C, base_c, "count: 4",
      "count: {min: 1, step: 2}",
      "job.yaml:12:29: resources[0].with[0].with[0].count.step: unknown "
      "key" },
    { "dictionary: min is an integer", C, base_c, "count: 4",
      "count: {min: \"1\"}",
      "job.yaml:12:26: resources[0].with[0].with[0].count.min: must be an "
      "integer" },
    { "dictionary: bound", C, base_c, "count: 4",
      "count: {min: 1, max: 3000000000}",
      "job.yaml:12:34: resources[0].with[0].with[0].count.max: must be <= "
      "2147483647" },
    { "unit is a string", C, base_c, "unit: GB", "unit: 5",
      "job.yaml:17:19: resources[0].with[0].with[2].unit: must be a string" },
    { "exclusive is a boolean", C, base_c, "    label: nodes\n",
      "    label: nodes\n    exclusive: \"yes\"\n",
      "job.yaml:6:16: resources[0].exclusive: must be a boolean" },
    { "id is a string", C, base_c, "    label: nodes\n",
      "    label: nodes\n    id: 5\n",
      "job.yaml:6:9: resources[0].id: must be a string" },
    { "with is a list", C, base_c, "          - type: core\n",
      "          - type: core\n            with: {}\n",
      "job.yaml:12:19: resources[0].with[0].with[0].with: must be a list" },
    { "with is not empty", C, base_c, "          - type: core\n",
      "          - type: core\n            with: []\n",
      "job.yaml:12:19: resources[0].with[0].with[0].with: must not be "
      "empty" },
    { "label is a string", C, base_c, "label: nodes", "label: 5",
      "job.yaml:5:12: resources[0].label: must be a string" },
    { "labels are unique", C, base_c, "label: nodes", "label: default",
      "job.yaml:9:16: resources[0].with[0].label: duplicate label "
      "\"default\"\n"
      "job.yaml:20:11: tasks[0].slot: \"default\" labels a node, not a "
      "slot" },
    { "a slot has a label", C, base_c, "        label: default\n", "",
      "job.yaml:7:9: resources[0].with[0]: missing key \"label\" (a slot "
      "needs a label)\n"
      "job.yaml:19:11: tasks[0].slot: no slot labelled \"default\"" },
    { "a slot has with", C, NULL, NULL,
      "version: 1\nresources: [{type: slot, count: 1, label: s}]\n" TAIL_C,
      "job.yaml:2:13: resources[0]: missing key \"with\" (a slot needs at "
      "least one resource)" },
    { "a slot in a slot is a slot too", C, base_c, "type: core", "type: slot",
      "job.yaml:11:13: resources[0].with[0].with[0]: missing key \"label\" "
      "(a slot needs a label)\n"
      "job.yaml:11:13: resources[0].with[0].with[0]: missing key \"with\" "
      "(a slot needs at least one resource)" },
    { "unknown memory unit is a warning", C, base_c, "unit: GB",
      "unit: furlong",
      "warning: job.yaml:17:19: resources[0].with[0].with[2].unit: unknown "
      "memory unit \"furlong\" (not counted in memory per slot)" },

    /* tasks */
    { "tasks is a list", C, NULL, NULL,
      "version: 1\nresources: [{type: slot, count: 1, label: s, with: "
      "[{type: core, count: 1}]}]\ntasks: {}\nattributes: {}\n",
      "job.yaml:3:8: tasks: must be a list" },
    { "tasks is not empty", C, NULL, NULL,
      "version: 1\nresources: [{type: slot, count: 1, label: s, with: "
      "[{type: core, count: 1}]}]\ntasks: []\nattributes: {}\n",
      "job.yaml:3:8: tasks: must not be empty" },
    { "a task is a dictionary", C, base_c, "  - command: [\"app\", \"-v\"]\n",
      "  - 5\n  - command: [\"app\", \"-v\"]\n",
      "job.yaml:19:5: tasks[0]: must be a dictionary" },
    { "command required", C, base_c, "  - command: [\"app\", \"-v\"]\n    slot",
      "  - slot", "job.yaml:19:5: tasks[0]: missing key \"command\"" },
    { "slot required", C, base_c, "    slot: default\n", "",
      "job.yaml:19:5: tasks[0]: missing key \"slot\"" },
    { "count required", C, base_c, "    count:\n      per_slot: 1\n", "",
      "job.yaml:19:5: tasks[0]: missing key \"count\"" },
    { "unknown task key", C, base_c, "    slot: default\n",
      "    slot: default\n    ntasks: 4\n",
      "job.yaml:21:5: tasks[0].ntasks: unknown key" },
    { "command is a list", C, base_c, "[\"app\", \"-v\"]", "app",
      "job.yaml:19:14: tasks[0].command: must be a list" },
    { "command is not empty", C, base_c, "[\"app\", \"-v\"]", "[]",
      "job.yaml:19:14: tasks[0].command: must not be empty" },
    { "command is strings", C, base_c, "[\"app\", \"-v\"]", "[app, 5]",
      "job.yaml:19:20: tasks[0].command[1]: must be a string" },
    { "slot is a string", C, base_c, "slot: default", "slot: [default]",
      "job.yaml:20:11: tasks[0].slot: must be a string" },
    { "slot names a slot", C, base_c, "slot: default", "slot: nosuch",
      "job.yaml:20:11: tasks[0].slot: no slot labelled \"nosuch\"" },
    { "slot names a slot, not another vertex", C, base_c, "slot: default",
      "slot: nodes",
      "job.yaml:20:11: tasks[0].slot: \"nodes\" labels a node, not a slot" },
    { "count is a dictionary", C, base_c, "    count:\n      per_slot: 1\n",
      "    count: 1\n",
      "job.yaml:21:12: tasks[0].count: must be a "
      "dictionary" },
    { "count has one of per_slot, per_resource, total", C, base_c,
      "      per_slot: 1\n", "      {}\n",
      "job.yaml:22:7: tasks[0].count: must have one of per_slot, "
      "per_resource, total" },
    { "count has only one", C, base_c, "      per_slot: 1\n",
      "      per_slot: 1\n      total: 4\n",
      "job.yaml:22:7: tasks[0].count: must have only one of per_slot, "
      "per_resource, total" },
    { "per_slot >= 1", C, base_c, "per_slot: 1", "per_slot: 0",
      "job.yaml:22:17: tasks[0].count.per_slot: must be >= 1" },
    { "total is an integer", C, base_c, "per_slot: 1", "total: \"4\"",
      "job.yaml:22:14: tasks[0].count.total: must be an integer" },
    { "total bound", C, base_c, "per_slot: 1", "total: 2147483648",
      "job.yaml:22:14: tasks[0].count.total: must be <= 2147483647" },
    { "per_resource is a dictionary", C, base_c, "per_slot: 1",
      "per_resource: 1",
      "job.yaml:22:21: tasks[0].count.per_resource: must be a dictionary" },
    { "per_resource needs count", C, base_c, "per_slot: 1",
      "per_resource: {type: core}",
      "job.yaml:22:21: tasks[0].count.per_resource: missing key \"count\"" },
    { "per_resource needs type", C, base_c, "per_slot: 1",
      "per_resource: {count: 1}",
      "job.yaml:22:21: tasks[0].count.per_resource: missing key \"type\"" },
    { "per_resource unknown key is a warning", C, base_c, "per_slot: 1",
      "per_resource: {type: core, count: 1, each: 1}",
      "warning: job.yaml:22:44: tasks[0].count.per_resource.each: unknown key "
      "(ignored)" },
    { "per_resource type is inside the slot", C, base_c, "per_slot: 1",
      "per_resource: {type: node, count: 1}",
      "job.yaml:22:28: tasks[0].count.per_resource.type: no resource of "
      "type \"node\" in slot \"default\"" },
    { "unknown count key is a warning (canonical)", C, base_c,
      "      per_slot: 1\n", "      per_slot: 1\n      per_gpu: 1\n",
      "warning: job.yaml:23:16: tasks[0].count.per_gpu: unknown key "
      "(reserved for extensions)" },
    { "distribution is a string", C, base_c, "distribution: block",
      "distribution: 5",
      "job.yaml:23:19: tasks[0].distribution: must be a string" },
    { "task attributes is a dictionary", C, base_c,
      "    attributes:\n      environment:\n        FOO: \"1\"\n        "
      "BAR: null\n",
      "    attributes: 5\n",
      "job.yaml:24:17: tasks[0].attributes: must be a dictionary" },
    { "task environment values", C, base_c, "FOO: \"1\"", "FOO: 1",
      "job.yaml:26:14: tasks[0].attributes.environment.FOO: must be a "
      "string or null" },

    /* attributes */
    { "attributes is a dictionary", C, NULL, NULL,
      "version: 1\nresources: [{type: slot, count: 1, label: s, with: "
      "[{type: core, count: 1}]}]\ntasks: [{command: [a], slot: s, count: "
      "{per_slot: 1}}]\nattributes: null\n",
      "job.yaml:4:13: attributes: must be a dictionary" },
    { "attributes has only system and user", C, base_c, "  user:\n",
      "  other: {}\n  user:\n",
      "job.yaml:53:3: attributes.other: unknown key" },
    { "system is a dictionary", C, NULL, NULL,
      "version: 1\nresources: [{type: slot, count: 1, label: s, with: "
      "[{type: core, count: 1}]}]\ntasks: [{command: [a], slot: s, count: "
      "{per_slot: 1}}]\nattributes: {system: 5, user: []}\n",
      "job.yaml:4:22: attributes.system: must be a dictionary\n"
      "job.yaml:4:31: attributes.user: must be a dictionary" },
    { "system and user have values (RFC 14)", C, NULL, NULL,
      "version: 1\nresources: [{type: slot, count: 1, label: s, with: "
      "[{type: core, count: 1}]}]\ntasks: [{command: [a], slot: s, count: "
      "{per_slot: 1}}]\nattributes: {system: {}, user: {}}\n",
      "job.yaml:4:22: attributes.system: must not be empty\n"
      "job.yaml:4:32: attributes.user: must not be empty" },
    { "V1: system has values", V, base_v, "    duration: 60\n", "    {}\n",
      "job.yaml:22:5: attributes.system: must not be empty" },
    { "duration >= 0", C, base_c, "duration: 3600.", "duration: -1",
      "job.yaml:30:15: attributes.system.duration: must be >= 0" },
    { "duration is a number", C, base_c, "duration: 3600.", "duration: 1h",
      "job.yaml:30:15: attributes.system.duration: must be "
      "a number" },
    { "preemptible-after >= 0", C, base_c, "    bank: b1\n",
      "    bank: b1\n    preemptible-after: -0.5\n",
      "job.yaml:34:24: attributes.system.preemptible-after: must be >= 0" },
    { "cwd is absolute", C, base_c, "cwd: /home/flux", "cwd: home",
      "job.yaml:31:10: attributes.system.cwd: must be an absolute path" },
    { "cwd is a string", C, base_c, "cwd: /home/flux", "cwd: 5",
      "job.yaml:31:10: attributes.system.cwd: must be a string" },
    { "queue is a string", C, base_c, "queue: batch", "queue: [batch]",
      "job.yaml:32:12: attributes.system.queue: must be a string" },
    { "bank is a string", C, base_c, "bank: b1", "bank: 1",
      "job.yaml:33:11: attributes.system.bank: must be a string" },
    { "project is a string", C, base_c, "project: p1", "project: {}",
      "job.yaml:34:14: attributes.system.project: must be a string" },
    { "environment is a dictionary", C, base_c,
      "    environment:\n      HOME: /home/flux\n", "    environment: [HOME]\n",
      "job.yaml:35:18: attributes.system.environment: must be a dictionary" },
    { "environment values are strings or null", C, base_c, "HOME: /home/flux",
      "HOME: 5",
      "job.yaml:36:13: attributes.system.environment.HOME: must be a string "
      "or null" },
    { "job is a dictionary", C, base_c, "    job:\n      name: myjob\n",
      "    job: myjob\n",
      "job.yaml:37:10: attributes.system.job: must be a dictionary" },
    { "job.name is a string", C, base_c, "name: myjob", "name: 5",
      "job.yaml:38:13: attributes.system.job.name: must be a string" },
    { "job values are strings", C, base_c, "      name: myjob\n",
      "      name: myjob\n      tags: [a]\n",
      "job.yaml:39:13: attributes.system.job.tags: must be a string" },
    { "shell is a dictionary", C, base_c,
      "    shell:\n      options:\n        verbose: true\n", "    shell: 5\n",
      "job.yaml:39:12: attributes.system.shell: must be a dictionary" },
    { "shell.options is a dictionary", C, base_c,
      "      options:\n        verbose: true\n", "      options: [1]\n",
      "job.yaml:40:16: attributes.system.shell.options: must be a "
      "dictionary" },
    { "unknown system attribute is a warning", C, base_c, "    bank: b1\n",
      "    bank: b1\n    color: blue\n",
      "warning: job.yaml:34:12: attributes.system.color: unknown system "
      "attribute" },

    /* RFC 26 dependencies */
    { "dependencies is a list", C, base_c,
      "      - scheme: afterok\n        value: f1234\n", "      {}\n",
      "job.yaml:43:7: attributes.system.dependencies: must be a list" },
    { "dependencies is not empty", C, base_c,
      "    dependencies:\n      - scheme: afterok\n        value: f1234\n",
      "    dependencies: []\n",
      "job.yaml:42:19: attributes.system.dependencies: must not be empty" },
    { "a dependency is a dictionary", C, base_c, "      - scheme: afterok\n",
      "      - afterok\n      - scheme: "
      "afterok\n",
      "job.yaml:43:9: attributes.system.dependencies[0]: must be a "
      "dictionary" },
    { "a dependency has a scheme", C, base_c,
      "      - scheme: afterok\n"
      "        value: f1234\n",
      "      - value: f1234\n",
      "job.yaml:43:9: attributes.system.dependencies[0]: missing key "
      "\"scheme\"" },
    { "a dependency has a value", C, base_c, "        value: f1234\n", "",
      "job.yaml:43:9: attributes.system.dependencies[0]: missing key "
      "\"value\"" },
    { "scheme is a string", C, base_c, "scheme: afterok", "scheme: 1",
      "job.yaml:43:17: attributes.system.dependencies[0].scheme: must be a "
      "string" },
    { "value is a string", C, base_c, "value: f1234", "value: [f1234]",
      "job.yaml:44:16: attributes.system.dependencies[0].value: must be a "
      "string" },
    { "begin-time value is a timestamp", C, base_c,
      "scheme: afterok\n        value: f1234",
      "scheme: begin-time\n        value: soon",
      "job.yaml:44:16: attributes.system.dependencies[0].value: must be a "
      "timestamp (decimal seconds >= 0)" },
    { "begin-time value is not negative", C, base_c,
      "scheme: afterok\n        value: f1234",
      "scheme: begin-time\n        value: \"-1\"",
      "job.yaml:44:16: attributes.system.dependencies[0].value: must be a "
      "timestamp (decimal seconds >= 0)" },
    { "begin-time value is a string (RFC 26)", C, base_c,
      "scheme: afterok\n        value: f1234",
      "scheme: begin-time\n        value: 1632777640.5",
      "job.yaml:44:16: attributes.system.dependencies[0].value: must be a "
      "string" },
    { "begin-time value string is decimal", C, base_c,
      "scheme: afterok\n        value: f1234",
      "scheme: begin-time\n        value: \"nan\"",
      "job.yaml:44:16: attributes.system.dependencies[0].value: must be a "
      "timestamp (decimal seconds >= 0)" },
    { "string scheme needs type and scope", C, base_c,
      "scheme: afterok\n        value: f1234",
      "scheme: string\n        value: foo",
      "job.yaml:43:9: attributes.system.dependencies[0]: missing key "
      "\"type\"\n"
      "job.yaml:43:9: attributes.system.dependencies[0]: missing key "
      "\"scope\"" },
    { "type and scope values", C, base_c,
      "scheme: afterok\n        value: f1234",
      "scheme: fluid\n        value: f1234\n        type: all\n"
      "        scope: everyone",
      "job.yaml:45:15: attributes.system.dependencies[0].type: must be one "
      "of \"in\", \"out\", \"inout\"\n"
      "job.yaml:46:16: attributes.system.dependencies[0].scope: must be one "
      "of \"user\", \"global\"" },

    /* RFC 31 constraints */
    { "constraints is a dictionary", C, base_c,
      "    constraints:\n      properties: [ssd]\n", "    constraints: [ssd]\n",
      "job.yaml:45:18: attributes.system.constraints: must be a "
      "dictionary" },
    { "constraints compile", C, base_c, "properties: [ssd]", "color: [blue]",
      "job.yaml:46:7: attributes.system.constraints: unknown operator "
      "'color'" },

    /* RFC 37 files */
    { "files is a dictionary archive", C, base_c,
      "      script:\n        mode: 33216\n        size: 10\n        "
      "encoding: utf-8\n        data: \"#!/bin/sh\\n\"\n",
      "      - {path: script, mode: 33216, size: 0}\n",
      "job.yaml:48:7: attributes.system.files: must be a dictionary (an RFC "
      "37 dictionary archive)" },
    { "archive paths are relative", C, base_c, "      script:\n",
      "      /etc/x:\n",
      "job.yaml:49:9: attributes.system.files[\"/etc/x\"]: path must be "
      "relative and not empty, without \".\" or \"..\" components" },
    { "archive paths are not empty", C, base_c, "      script:\n",
      "      \"\":\n",
      "job.yaml:49:9: attributes.system.files[\"\"]: path must be relative "
      "and not empty, without \".\" or \"..\" components" },
    { "archive paths have no ..", C, base_c, "      script:\n",
      "      a/../b:\n",
      "job.yaml:49:9: attributes.system.files[\"a/../b\"]: path must be "
      "relative and not empty, without \".\" or \"..\" components" },
    { "a file is a dictionary", C, base_c,
      "      script:\n        mode: 33216\n        size: 10\n        "
      "encoding: utf-8\n        data: \"#!/bin/sh\\n\"\n",
      "      script: 5\n",
      "job.yaml:48:15: attributes.system.files.script: must be a "
      "dictionary" },
    { "a file has a mode", C, base_c, "        mode: 33216\n", "",
      "job.yaml:49:9: attributes.system.files.script: missing key "
      "\"mode\"" },
    { "mode is an integer", C, base_c, "mode: 33216", "mode: rw",
      "job.yaml:49:15: attributes.system.files.script.mode: must be an "
      "integer" },
    { "mode is a file mode", C, base_c, "mode: 33216", "mode: -1",
      "job.yaml:49:15: attributes.system.files.script.mode: must be a file "
      "mode" },
    { "mode is a file, directory or link", C, base_c, "mode: 33216",
      "mode: 4480",
      "job.yaml:49:15: attributes.system.files.script.mode: must be a "
      "regular file, directory or symbolic link" },
    { "no path in a dictionary archive", C, base_c, "        mode: 33216\n",
      "        mode: 33216\n        path: script\n",
      "job.yaml:50:15: attributes.system.files.script.path: not allowed in "
      "a dictionary archive" },
    { "unknown file key is a warning", C, base_c, "        mode: 33216\n",
      "        mode: 33216\n        owner: root\n",
      "warning: job.yaml:50:9: attributes.system.files.script.owner: unknown "
      "key (ignored)" },
    { "size is >= 0", C, base_c, "size: 10", "size: -1",
      "job.yaml:50:15: attributes.system.files.script.size: must be >= 0" },
    { "mtime is an integer", C, base_c, "        mode: 33216\n",
      "        mode: 33216\n        mtime: yesterday\n",
      "job.yaml:50:16: attributes.system.files.script.mtime: must be an "
      "integer" },
    { "encoding is known", C, base_c, "encoding: utf-8", "encoding: gzip",
      "job.yaml:51:19: attributes.system.files.script.encoding: must be one "
      "of \"utf-8\", \"base64\", \"blobvec\"" },
    { "encoded file needs data", C, base_c, "        data: \"#!/bin/sh\\n\"\n",
      "",
      "job.yaml:49:9: attributes.system.files.script: missing key "
      "\"data\"" },
    { "encoded file needs size", C, base_c, "        size: 10\n", "",
      "job.yaml:49:9: attributes.system.files.script: missing key "
      "\"size\"" },
    { "base64 data is base64", C, base_c, "encoding: utf-8", "encoding: base64",
      "job.yaml:52:15: attributes.system.files.script.data: not valid "
      "base64" },
    { "blobvec data is regions", C, base_c,
      "encoding: utf-8\n        data: \"#!/bin/sh\\n\"",
      "encoding: blobvec\n        data: [[0, 10]]",
      "job.yaml:52:16: attributes.system.files.script.data[0]: must be "
      "[offset, size, blobref]" },
    { "empty file needs size", C, base_c,
      "        size: 10\n        encoding: utf-8\n        data: "
      "\"#!/bin/sh\\n\"\n",
      "",
      "job.yaml:49:9: attributes.system.files.script: missing key \"size\" "
      "(an empty file needs a size)" },
    { "JSON content has no size", C, base_c,
      "        encoding: utf-8\n        data: \"#!/bin/sh\\n\"\n",
      "        data: {a: 1}\n",
      "job.yaml:50:15: attributes.system.files.script.size: not allowed for "
      "a file with JSON content" },
    { "a directory is empty", C, base_c, "mode: 33216", "mode: 16877",
      "job.yaml:50:15: attributes.system.files.script.size: not allowed for "
      "a directory\n"
      "job.yaml:52:15: attributes.system.files.script.data: not allowed for "
      "a directory\n"
      "job.yaml:51:19: attributes.system.files.script.encoding: not allowed "
      "for a directory" },
    { "a symbolic link has a string target", C, base_c,
      "        mode: 33216\n        size: 10\n        encoding: utf-8\n"
      "        data: \"#!/bin/sh\\n\"\n",
      "        mode: 41471\n        data: 5\n",
      "job.yaml:50:15: attributes.system.files.script.data: must be a "
      "string" },

    /* V1 (RFC 25) */
    { "V1: version 1", V, base_v, "version: 1", "version: 2",
      "job.yaml:1:10: version: must be 1 in jobspec V1" },
    { "V1: one resource", V, base_v, "resources:\n",
      "resources:\n  - type: node\n    count: 1\n    with: [{type: slot, "
      "count: 1, label: other, with: [{type: core, count: 1}]}]\n",
      "job.yaml:3:3: resources: must have exactly one element in jobspec "
      "V1" },
    { "V1: node or slot at the top", V, NULL, NULL,
      "version: 1\nresources: [{type: core, count: 1}]\n"
      "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n"
      "attributes: {system: {duration: 0}}\n",
      "job.yaml:2:20: resources[0].type: must be node or slot in jobspec "
      "V1\n"
      "job.yaml:3:30: tasks[0].slot: no slot labelled \"s\"" },
    { "V1: a node has a slot", V, base_v, "type: slot", "type: socket",
      "job.yaml:7:15: resources[0].with[0].type: must be slot in jobspec "
      "V1\n"
      "job.yaml:17:11: tasks[0].slot: \"task\" labels a socket, not a slot" },
    { "V1: a node has with", V, NULL, NULL,
      "version: 1\nresources: [{type: node, count: 1}]\n"
      "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n"
      "attributes: {system: {duration: 0}}\n",
      "job.yaml:2:13: resources[0]: missing key \"with\" (required in "
      "jobspec V1)\n"
      "job.yaml:3:30: tasks[0].slot: no slot labelled \"s\"" },
    { "V1: a node has one slot", V, base_v, "    exclusive: true\n    with:\n",
      "    exclusive: true\n    with:\n      - {type: slot, count: 1, label: "
      "b, with: [{type: "
      "core, count: 1}]}\n",
      "job.yaml:7:7: resources[0].with: must have exactly one element in "
      "jobspec V1" },
    { "V1: a slot has cores and gpus only", V, base_v, "type: gpu",
      "type: memory",
      "job.yaml:13:19: resources[0].with[0].with[1].type: must be core or "
      "gpu in jobspec V1" },
    { "V1: a slot has one core", V, base_v, "type: gpu", "type: core",
      "job.yaml:13:13: resources[0].with[0].with[1]: a slot has at most one "
      "core in jobspec V1" },
    { "V1: a slot has a core", V, base_v,
      "          - type: core\n            count: 4\n", "",
      "job.yaml:7:9: resources[0].with[0]: a slot must have a core in "
      "jobspec V1" },
    { "V1: cores have no with", V, base_v, "            count: 4\n",
      "            count: 4\n            with: [{type: pu, count: 1}]\n",
      "job.yaml:13:19: resources[0].with[0].with[0].with: not allowed in "
      "jobspec V1" },
    { "V1: no id", V, base_v, "        label: task\n",
      "        label: task\n        id: \"0-3\"\n",
      "job.yaml:10:13: resources[0].with[0].id: not allowed in jobspec V1" },
    { "V1: exclusive only on a node", V, base_v, "        label: task\n",
      "        label: task\n        exclusive: false\n",
      "job.yaml:10:20: resources[0].with[0].exclusive: not allowed except "
      "on a node in jobspec V1" },
    { "V1: a gpu count is not negative", V, base_v, "count: 1\ntasks",
      "count: -1\ntasks",
      "job.yaml:14:20: resources[0].with[0].with[1].count: must be >= 0" },
    { "V1: a core count is positive", V, base_v, "count: 4", "count: 0",
      "job.yaml:12:20: resources[0].with[0].with[0].count: must be >= 1" },
    { "V1: a node count is positive", V, base_v, "count: 2\n    exclusive",
      "count: 0\n    exclusive",
      "job.yaml:4:12: resources[0].count: must be >= 1" },
    { "canonical: a gpu count of 0 is V1 only", C, base_v, "count: 1\ntasks",
      "count: 0\ntasks",
      "job.yaml:14:20: resources[0].with[0].with[1].count: must be >= 1 (0 "
      "GPUs only in jobspec V1)" },
    { "V1: integer counts", V, base_v, "count: 4", "count: \"4\"",
      "job.yaml:12:20: resources[0].with[0].with[0].count: must be an "
      "integer in jobspec V1" },
    { "V1: one task", V, base_v, "attributes:\n",
      "  - command: [\"b\"]\n    slot: task\n    count: {per_slot: 1}\n"
      "attributes:\n",
      "job.yaml:16:3: tasks: must have exactly one element in jobspec V1" },
    { "V1: no distribution", V, base_v, "    slot: task\n",
      "    slot: task\n    distribution: block\n",
      "job.yaml:18:19: tasks[0].distribution: not allowed in jobspec V1" },
    { "V1: no task attributes", V, base_v, "    slot: task\n",
      "    slot: task\n    attributes: {}\n",
      "job.yaml:18:17: tasks[0].attributes: not allowed in jobspec V1" },
    { "V1: per_slot is 1", V, base_v, "per_slot: 1", "per_slot: 2",
      "job.yaml:19:17: tasks[0].count.per_slot: must be 1 in jobspec V1" },
    { "V1: no per_resource", V, base_v, "per_slot: 1",
      "per_resource: {type: core, count: 1}",
      "job.yaml:19:21: tasks[0].count.per_resource: not allowed in jobspec "
      "V1" },
    { "V1: total >= node count", V, base_v, "per_slot: 1", "total: 1",
      "job.yaml:19:14: tasks[0].count.total: must be >= the node count (2) "
      "in jobspec V1" },
    { "V1: unknown count key is an error", V, base_v, "      per_slot: 1\n",
      "      per_slot: 1\n      per_gpu: 1\n",
      "job.yaml:20:16: tasks[0].count.per_gpu: unknown key" },
    { "V1: system required", V, base_v, "  system:\n    duration: 60\n",
      "  user: {a: 1}\n",
      "job.yaml:21:3: attributes: missing key \"system\" (required in jobspec "
      "V1)" },
    { "V1: duration required", V, base_v, "    duration: 60\n",
      "    cwd: /tmp\n",
      "job.yaml:22:5: attributes.system: missing key \"duration\" (required "
      "in jobspec V1)" },
};

static char *substitute (const struct invalid_case *t)
{
    const char *at;
    char *s;
    size_t nb, no, nt;

    if (!t->base)
        return strdup (t->text);
    if (!(at = strstr (t->base, t->old)) || strstr (at + 1, t->old))
        BAIL_OUT ("%s: \"%s\" must occur once in the base", t->rule, t->old);
    nb = strlen (t->base);
    no = strlen (t->old);
    nt = strlen (t->text);
    if (!(s = malloc (nb - no + nt + 1)))
        BAIL_OUT ("out of memory");
    memcpy (s, t->base, at - t->base);
    memcpy (s + (at - t->base), t->text, nt);
    strcpy (s + (at - t->base) + nt, at + no);
    return s;
}

/* Every message of d, '\n'-joined, warnings prefixed.  Caller frees. */
static char *joined (const struct rp_diags *d)
{
    size_t size = 1;
    char *s;

    for (size_t i = 0; i < rp_diags_count (d); i++)
        size += strlen (rp_diags_text (d, i)) + 10;
    if (!(s = calloc (1, size)))
        BAIL_OUT ("out of memory");
    for (size_t i = 0; i < rp_diags_count (d); i++) {
        if (i > 0)
            strcat (s, "\n");
        if (rp_diags_severity (d, i) == RP_DIAG_WARNING)
            strcat (s, "warning: ");
        strcat (s, rp_diags_text (d, i));
    }
    return s;
}

/* True when every line of messages is a warning (or there is none). */
static bool only_warnings (const char *messages)
{
    for (const char *p = messages; *p;
         p = strchr (p, '\n') ? strchr (p, '\n') + 1 : "") {
        if (strncmp (p, "warning: ", 9) != 0)
            return false;
    }
    return true;
}

static void test_bases (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js;

    js = rp_jobspec_load (base_c, strlen (base_c), "job.yaml", C, d);
    ok (js != NULL && rp_diags_count (d) == 0,
        "the canonical base document is valid and quiet");
    rp_jobspec_destroy (js);
    js = rp_jobspec_load (base_c, strlen (base_c), "job.yaml", V, d);
    ok (js == NULL && errno == EINVAL, "the canonical base document is not V1");
    rp_diags_clear (d);
    js = rp_jobspec_load (base_v, strlen (base_v), "job.yaml", V, d);
    ok (js != NULL && rp_diags_count (d) == 0,
        "the V1 base document is valid and quiet");
    rp_jobspec_destroy (js);
    js = rp_jobspec_load (base_v, strlen (base_v), "job.yaml", C, d);
    ok (js != NULL && rp_diags_count (d) == 0,
        "the V1 base document is valid canonical jobspec");
    rp_jobspec_destroy (js);
    rp_diags_destroy (d);
}

/* A copy is the same jobspec with one more reference: each owner
 * destroys its own, and the last destroy frees it. */
static void test_copy (void)
{
    struct rp_jobspec *js =
        rp_jobspec_load (base_c, strlen (base_c), "job.yaml", C, NULL);
    struct rp_jobspec *a = rp_jobspec_copy (js);
    struct rp_jobspec *b = rp_jobspec_copy (a);

    ok (js && a == js && b == js, "copy: the same jobspec");
    rp_jobspec_destroy (js);
    rp_jobspec_destroy (a);
    ok (b && rp_jobspec_resource_first (b)
            && !strcmp (rp_jobspec_resource_type (rp_jobspec_resource_first (b)),
                        "node"),
        "copy: usable after the other owners destroyed theirs");
    rp_jobspec_destroy (b);
    errno = 0;
    ok (rp_jobspec_copy (NULL) == NULL && errno == EINVAL,
        "copy: NULL fails with EINVAL");
}

static void test_invalid (void)
{
    for (size_t i = 0; i < sizeof (invalid) / sizeof (invalid[0]); i++) {
        const struct invalid_case *t = &invalid[i];
        struct rp_diags *d = rp_diags_create ();
        char *doc = substitute (t);
        struct rp_jobspec *js;
        bool want_valid = only_warnings (t->messages);
        char *got;

        errno = 0;
        js = rp_jobspec_load (doc, strlen (doc), "job.yaml", t->profile, d);
        got = joined (d);
        if (want_valid)
            ok (js != NULL, "%s: still valid", t->rule);
        else
            ok (js == NULL && errno == EINVAL, "%s: invalid (EINVAL)", t->rule);
        is (got, t->messages, "%s: messages", t->rule);
        rp_jobspec_destroy (js);
        free (got);
        free (doc);
        rp_diags_destroy (d);
    }
}

/* Several errors in one document are all reported, in document order. */
static void test_collects_all (void)
{
    static const char doc[] =
        "version: x\n"
        "resources: [{type: slot, count: 0, label: s, with: [{type: core, "
        "count: {min: 0}}]}]\n"
        "tasks: [{command: [], slot: t, count: {per_slot: 1}}]\n"
        "attributes: {system: {duration: -1, cwd: rel}}\n";
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js =
        rp_jobspec_load (doc, strlen (doc), "job.yaml", C, d);
    char *got = joined (d);

    ok (js == NULL && rp_diags_errors (d) == 7,
        "a document with seven errors gives seven errors");
    is (got,
        "job.yaml:1:10: version: must be an integer\n"
        "job.yaml:2:33: resources[0].count: must be >= 1\n"
        "job.yaml:2:73: resources[0].with[0].count: min must be >= 1\n"
        "job.yaml:3:19: tasks[0].command: must not be empty\n"
        "job.yaml:3:29: tasks[0].slot: no slot labelled \"t\"\n"
        "job.yaml:4:33: attributes.system.duration: must be >= 0\n"
        "job.yaml:4:42: attributes.system.cwd: must be an absolute path",
        "they are in document order with positions and paths");
    free (got);
    rp_diags_destroy (d);
}

/* --- conformance examples ----------------------------------------------- */

struct example {
    const char *file;
    bool v1; /* valid V1 (every example is valid canonical) */
    uint64_t nnodes, nslots, ntasks, cores, gpus, memory;
    bool exclusive, exact, uniform;
    double duration;
};

#define GiB (UINT64_C (1) << 30)

static const struct example examples[] = {
    { "rfc14/example1.yaml", true, 4, 4, 4, 2, 0, 0, false, true, true, 3600 },
    { "rfc14/example2.yaml", false, 4, 4, 4, 0, 0, 0, true, true, true, 3600 },
    { "rfc14/use_case_1.1.yaml", false, 4, 4, 4, 0, 0, 0, true, true, true,
      3600 },
    { "rfc14/use_case_1.2.yaml", false, 3, 3, 3, 0, 0, 0, true, false, true,
      3600 },
    { "rfc14/use_case_1.3.yaml", false, 4, 4, 4, 8, 0, 0, false, false, true,
      3600 },
    { "rfc14/use_case_1.4.yaml", false, 4, 4, 4, 8, 0, 0, true, true, true,
      3600 },
    { "rfc14/use_case_1.5.yaml", false, 4, 4, 4, 0, 0, 4 * GiB, false, true,
      false, 14400 },
    { "rfc14/use_case_1.6.yaml", false, 2, 2, 2, 30, 0, 0, false, false, true,
      3600 },
    { "rfc14/use_case_1.7.yaml", false, 3, 3, 3, 1, 0, 0, false, false, true,
      3600 },
    { "rfc14/use_case_1.8.yaml", false, 4, 4, 4, 0, 0, 0, true, false, true,
      3600 },
    { "rfc14/use_case_2.1.yaml", false, 4, 4, 20, 0, 0, 0, true, true, true,
      3600 },
    { "rfc14/use_case_2.2.yaml", false, 4, 4, 5, 0, 0, 0, true, true, true,
      3600 },
    { "rfc14/use_case_2.3.yaml", false, 0, 10, 10, 2, 0, 0, true, true, true,
      3600 },
    { "rfc14/use_case_2.4.yaml", false, 1, 11, 11, 1, 0, 4 * GiB, false, true,
      false, 3600 },
    { "rfc14/use_case_2.5.yaml", false, 0, 10, 10, 1, 0, 2 * GiB, true, false,
      true, 3600 },
    { "rfc14/use_case_2.6.yaml", false, 2, 2, 10, 0, 0, 4 * GiB, true, false,
      true, 3600 },
    { "rfc14/use_case_2.7.yaml", false, 1, 1, 2, 0, 0, 0, true, true, true,
      3600 },
    { "rfc14/use_case_2.8.yaml", false, 1, 1, 1, 0, 0, 0, true, true, true,
      3600 },
    { "rfc14/use_case_2.9.yaml", false, 1, 1, 1, 0, 0, 0, true, true, true,
      3600 },
    { "rfc25/example1.yaml", true, 4, 4, 4, 2, 0, 0, false, true, true, 3600 },
    { "rfc25/use_case_1.1.yaml", true, 4, 4, 4, 1, 0, 0, false, true, true,
      3600 },
    { "rfc25/use_case_2.1.yaml", true, 4, 4, 5, 1, 0, 0, false, true, true,
      3600 },
    { "rfc25/use_case_2.2.yaml", true, 0, 10, 10, 2, 0, 0, true, true, true,
      3600 },
    { "rfc25/use_case_2.3.yaml", true, 0, 10, 10, 2, 1, 0, true, true, true,
      3600 },
    { "rfc25/use_case_2.4.yaml", true, 4, 16, 16, 1, 1, 0, false, true, true,
      3600 },
};

static const char *srcdir (void)
{
    const char *s = getenv ("RESPOL_SRCDIR");
    return s ? s : ".";
}

static void conformance_path (char *buf, size_t size, const char *file)
{
    snprintf (buf, size, "%s/t/data/jobspec/conformance/%s", srcdir (), file);
}

static void check_facts (const struct example *e, const struct rp_jobspec *js)
{
    const struct rp_jobspec_facts *f = rp_jobspec_facts (js);

    ok (f->nnodes == e->nnodes && f->nslots == e->nslots
            && f->ntasks == e->ntasks,
        "%s: nnodes %llu nslots %llu ntasks %llu", e->file,
        (unsigned long long)f->nnodes, (unsigned long long)f->nslots,
        (unsigned long long)f->ntasks);
    ok (f->cores_per_slot == e->cores && f->gpus_per_slot == e->gpus
            && f->memory_per_slot == e->memory,
        "%s: per slot: %llu cores %llu gpus %llu bytes", e->file,
        (unsigned long long)f->cores_per_slot,
        (unsigned long long)f->gpus_per_slot,
        (unsigned long long)f->memory_per_slot);
    ok (f->exclusive == e->exclusive && f->exact == e->exact
            && f->uniform == e->uniform && f->duration == e->duration,
        "%s: exclusive %d exact %d uniform %d duration %g", e->file,
        f->exclusive, f->exact, f->uniform, f->duration);
}

static void test_conformance (void)
{
    char path[1024];

    if (!getenv ("RESPOL_SRCDIR")) {
        skip (4 * (int)(sizeof (examples) / sizeof (examples[0])),
              "RESPOL_SRCDIR not set");
        return;
    }
    for (size_t i = 0; i < sizeof (examples) / sizeof (examples[0]); i++) {
        const struct example *e = &examples[i];
        struct rp_jobspec *js;

        conformance_path (path, sizeof (path), e->file);
        js = rp_jobspec_load_file (path, RP_JOBSPEC_V1, NULL);
        ok ((js != NULL) == e->v1, "%s: %s V1", e->file,
            e->v1 ? "is" : "is not");
        rp_jobspec_destroy (js);
        js = rp_jobspec_load_file (path, C, NULL);
        if (!js) {
            fail ("%s: is canonical", e->file);
            skip (3, "no jobspec");
            continue;
        }
        check_facts (e, js);
        rp_jobspec_destroy (js);
    }
}

/* The RFC 26 examples are dependency lists: put each in a jobspec. */
static void test_rfc26 (void)
{
    static const char *files[] = { "example_1.yaml", "example_2.yaml",
                                   "example_3_A.yaml", "example_3_B.yaml",
                                   "example_3_C.yaml" };
    char path[1024];

    if (!getenv ("RESPOL_SRCDIR")) {
        skip (5, "RESPOL_SRCDIR not set");
        return;
    }
    for (size_t i = 0; i < sizeof (files) / sizeof (files[0]); i++) {
        char file[64];
        struct rp_doc *doc;
        json_t *js_json;
        struct rp_jobspec *js;

        snprintf (file, sizeof (file), "rfc26/%s", files[i]);
        conformance_path (path, sizeof (path), file);
        if (!(doc = rp_doc_load_file (path, RP_DOC_AUTO, NULL)))
            BAIL_OUT ("cannot read %s", path);
        js_json = json_pack (
            "{s:i s:[{s:s s:i s:s s:[{s:s s:i}]}] s:[{s:[s] s:s s:{s:i}}] "
            "s:{s:{s:f s:O}}}",
            "version", 1, "resources", "type", "slot", "count", 1, "label",
            "task", "with", "type", "core", "count", 1, "tasks", "command",
            "true", "slot", "task", "count", "per_slot", 1, "attributes",
            "system", "duration", 0.0, "dependencies", rp_doc_root (doc));
        js = rp_jobspec_from_json (js_json, file, V, NULL);
        ok (js != NULL
                && json_equal (rp_jobspec_dependencies (js), rp_doc_root (doc)),
            "%s: valid dependencies in a V1 jobspec", file);
        rp_jobspec_destroy (js);
        json_decref (js_json);
        rp_doc_destroy (doc);
    }
}

/* --- the model ---------------------------------------------------------- */

static const char model_doc[] =
    "version: 7\n"
    "resources:\n"
    "  - type: cluster\n"
    "    count: \"1-3\"\n"
    "    id: \"0-7\"\n"
    "    with:\n"
    "      - type: slot\n"
    "        count: \"2,4,8\"\n"
    "        label: s\n"
    "        with:\n"
    "          - type: node\n"
    "            count: {min: 2, max: 64, operator: \"*\", operand: 2}\n"
    "            exclusive: false\n"
    "            with:\n"
    "              - type: core\n"
    "                count: 3\n"
    "              - type: memory\n"
    "                count: 512\n"
    "                unit: MiB\n"
    "          - type: core\n"
    "            count: 1\n"
    "tasks:\n"
    "  - command: [hostname, -s]\n"
    "    slot: s\n"
    "    count: {per_resource: {type: core, count: 2}}\n"
    "    distribution: cyclic\n"
    "    attributes: {environment: {A: b}, other: 1}\n"
    "  - command: [sleep, \"1\"]\n"
    "    slot: s\n"
    "    count: {total: 3}\n"
    "attributes:\n"
    "  system:\n"
    "    duration: 90.5\n"
    "    queue: debug\n"
    "    cwd: /tmp\n"
    "    job: {name: model}\n"
    "    environment: {X: \"1\"}\n"
    "    constraints: {properties: [ssd]}\n"
    "    dependencies: [{scheme: afterany, value: f1}]\n"
    "    files: {a.txt: {mode: 33188, size: 0}}\n"
    "  user: {u: 1}\n";

static void test_model_resources (const struct rp_jobspec *js)
{
    const struct rp_jobspec_resource *cl = rp_jobspec_resource_first (js);
    const struct rp_jobspec_resource *slot =
        rp_jobspec_resource_with_first (cl);
    const struct rp_jobspec_resource *node =
        rp_jobspec_resource_with_first (slot);
    const struct rp_jobspec_resource *core2 = rp_jobspec_resource_next (node);
    const struct rp_range *r;

    is (rp_jobspec_resource_type (cl), "cluster", "first vertex: cluster");
    ok (rp_jobspec_resource_next (cl) == NULL
            && rp_jobspec_resource_parent (cl) == NULL,
        "cluster: no sibling, no parent");
    is (rp_jobspec_resource_id (cl), "0-7", "cluster: id");
    ok (rp_jobspec_resource_count_form (cl) == RP_JOBSPEC_COUNT_RANGE
            && rp_jobspec_resource_count (cl)->min == 1
            && rp_jobspec_resource_count (cl)->max == 3,
        "cluster: range count 1-3");
    ok (!rp_jobspec_resource_exclusive (cl), "cluster: not exclusive");
    is (rp_jobspec_resource_label (slot), "s", "slot: label");
    ok (rp_jobspec_resource_parent (slot) == cl, "slot: parent is cluster");
    ok (rp_jobspec_resource_count_form (slot) == RP_JOBSPEC_COUNT_IDSET
            && rp_jobspec_resource_count_idset (slot) != NULL
            && rp_idset_count (rp_jobspec_resource_count_idset (slot)) == 3,
        "slot: idset count of three values");
    ok (rp_jobspec_resource_count_contains (slot, 4)
            && !rp_jobspec_resource_count_contains (slot, 3)
            && !rp_jobspec_resource_count_contains (slot, UINT64_C (1) << 40),
        "slot: count contains 4, not 3, not 2^40");
    ok (rp_jobspec_resource_exclusive (slot), "slot: exclusive by default");
    r = rp_jobspec_resource_count (node);
    ok (rp_jobspec_resource_count_form (node) == RP_JOBSPEC_COUNT_DICT
            && r->min == 2 && r->max == 64 && r->op == '*' && r->operand == 2,
        "node: dictionary count");
    ok (rp_jobspec_resource_count_contains (node, 16)
            && !rp_jobspec_resource_count_contains (node, 6),
        "node: count contains 16, not 6");
    ok (!rp_jobspec_resource_exclusive (node),
        "node: exclusive: false inside a slot is kept");
    ok (rp_jobspec_resource_exclusive (rp_jobspec_resource_with_first (node)),
        "core inside a slot: exclusive by default");
    is (rp_jobspec_resource_unit (
            rp_jobspec_resource_next (rp_jobspec_resource_with_first (node))),
        "MiB", "memory: unit");
    ok (rp_jobspec_resource_total (core2) == 2
            && rp_jobspec_resource_total (node) == 4,
        "totals from the minimum counts: 1 x 2 x 2 nodes, 1 x 2 cores");
    ok (rp_jobspec_slot_find (js, "s") == slot
            && rp_jobspec_slot_find (js, "t") == NULL,
        "rp_jobspec_slot_find");
    ok (rp_jobspec_slot_count_type (slot, "core") == 7
            && rp_jobspec_slot_count_type (slot, "node") == 2
            && rp_jobspec_slot_count_type (slot, "gpu") == 0
            && rp_jobspec_slot_count_type (node, "core") == 0,
        "per slot: 2 nodes x 3 cores + 1 core = 7 cores");
    ok (rp_jobspec_slot_memory (slot) == 2 * 512 * (UINT64_C (1) << 20),
        "per slot: 2 x 512 MiB");
    json_t *o = rp_jobspec_resource_json (cl);
    is (json_string_value (json_object_get (o, "type")), "cluster",
        "the vertex as written");
}

static void test_model_tasks (const struct rp_jobspec *js)
{
    const struct rp_jobspec_task *t = rp_jobspec_task_first (js);
    const struct rp_jobspec_task *t2 = rp_jobspec_task_next (t);
    size_t argc;
    const char *const *argv = rp_jobspec_task_argv (t, &argc);

    ok (argc == 2 && !strcmp (argv[0], "hostname") && !strcmp (argv[1], "-s")
            && argv[2] == NULL,
        "task 0: argv");
    is (rp_jobspec_task_slot (t), "s", "task 0: slot label");
    ok (rp_jobspec_task_slot_resource (t) == rp_jobspec_slot_find (js, "s"),
        "task 0: slot vertex");
    ok (rp_jobspec_task_count_kind (t) == RP_JOBSPEC_PER_RESOURCE
            && rp_jobspec_task_count_value (t) == 2,
        "task 0: per_resource count 2");
    is (rp_jobspec_task_count_type (t), "core", "task 0: per core");
    ok (rp_jobspec_task_ntasks (t) == 28,
        "task 0: 2 per core x 7 cores x 2 slots = 28 tasks");
    is (rp_jobspec_task_distribution (t), "cyclic", "task 0: distribution");
    is (json_string_value (
            json_object_get (rp_jobspec_task_environment (t), "A")),
        "b", "task 0: environment");
    ok (json_integer_value (
            json_object_get (rp_jobspec_task_attributes (t), "other"))
            == 1,
        "task 0: other attributes are free-form");
    ok (rp_jobspec_task_count_kind (t2) == RP_JOBSPEC_TOTAL
            && rp_jobspec_task_count_value (t2) == 3
            && rp_jobspec_task_ntasks (t2) == 3
            && rp_jobspec_task_count_type (t2) == NULL
            && rp_jobspec_task_distribution (t2) == NULL
            && rp_jobspec_task_attributes (t2) == NULL,
        "task 1: total 3, no type, distribution or attributes");
    ok (rp_jobspec_task_next (t2) == NULL, "two tasks");
}

static void test_model_attributes (const struct rp_jobspec *js)
{
    const struct rp_jobspec_facts *f = rp_jobspec_facts (js);

    ok (rp_jobspec_version (js) == 7 && rp_jobspec_profile (js) == C,
        "version and profile");
    ok (rp_jobspec_duration (js) == 90.5, "duration");
    is (rp_jobspec_queue (js), "debug", "queue");
    is (rp_jobspec_cwd (js), "/tmp", "cwd");
    is (rp_jobspec_job_name (js), "model", "job name");
    is (json_string_value (json_object_get (rp_jobspec_environment (js), "X")),
        "1", "environment");
    ok (json_is_object (rp_jobspec_constraints (js))
            && json_is_array (rp_jobspec_dependencies (js))
            && json_is_object (rp_jobspec_files (js)),
        "constraints, dependencies, files");
    ok (json_is_object (rp_jobspec_system (js))
            && json_integer_value (json_object_get (rp_jobspec_user (js), "u"))
                   == 1,
        "system and user");
    ok (json_is_object (rp_jobspec_json (js)) && rp_jobspec_doc (js) != NULL
            && !strcmp (rp_doc_name (rp_jobspec_doc (js)), "model.yaml"),
        "the document");
    ok (f->nslots == 2 && f->nnodes == 4 && f->ntasks == 31
            && f->cores_per_slot == 7
            && f->memory_per_slot == (UINT64_C (1) << 30) && !f->exclusive
            && !f->exact && f->uniform && f->duration == 90.5,
        "facts");
}

static void test_model (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js =
        rp_jobspec_load (model_doc, strlen (model_doc), "model.yaml", C, d);

    if (!js) {
        for (size_t i = 0; i < rp_diags_count (d); i++)
            diag ("%s", rp_diags_text (d, i));
        BAIL_OUT ("the model document does not load");
    }
    test_model_resources (js);
    test_model_tasks (js);
    test_model_attributes (js);
    rp_jobspec_destroy (js);
    rp_diags_destroy (d);
}

/* Absent attributes give NULL and 0. */
static void test_absent (void)
{
    static const char doc[] =
        "{\"version\": 1, \"resources\": [{\"type\": \"slot\", \"count\": 1, "
        "\"label\": \"a\", \"with\": [{\"type\": \"core\", \"count\": 1}]}], "
        "\"tasks\": [{\"command\": [\"x\"], \"slot\": \"a\", \"count\": "
        "{\"per_slot\": 1}}], \"attributes\": {}}";
    struct rp_jobspec *js =
        rp_jobspec_load (doc, strlen (doc), "j.json", C, NULL);

    ok (js != NULL, "a JSON jobspec with empty attributes is canonical");
    ok (rp_jobspec_system (js) == NULL && rp_jobspec_user (js) == NULL
            && rp_jobspec_duration (js) == 0 && rp_jobspec_queue (js) == NULL
            && rp_jobspec_cwd (js) == NULL && rp_jobspec_job_name (js) == NULL
            && rp_jobspec_environment (js) == NULL
            && rp_jobspec_constraints (js) == NULL
            && rp_jobspec_dependencies (js) == NULL
            && rp_jobspec_files (js) == NULL,
        "absent attributes are NULL, duration 0");
    ok (rp_jobspec_resource_label (
            rp_jobspec_resource_with_first (rp_jobspec_resource_first (js)))
            == NULL,
        "no label: NULL");
    rp_jobspec_destroy (js);
}

/* --- valid corner cases ------------------------------------------------- */

struct valid_case {
    const char *rule;
    const char *old;
    const char *text;
};

/* Substitutions of base_c that must stay valid and quiet. */
static const struct valid_case valid[] = {
    { "max without operator and operand (RFC 14 prose)", "count: 4",
      "count: {min: 1, max: 4}" },
    { "dictionary with only min", "count: 4", "count: {min: 1}" },
    { "range string", "count: 4", "count: \"[2-64:2:*]\"" },
    { "unbounded range string", "count: 4", "count: \"2+\"" },
    { "range string at the bound", "count: 4", "count: \"2147483647\"" },
    { "count at the bound", "count: 4", "count: 2147483647" },
    { "idset string", "count: 4", "count: \"1,3,5-7\"" },
    { "^ with min 2 and operand 2", "count: 4",
      "count: {min: 2, operator: \"^\", operand: 2}" },
    { "duration 0", "duration: 3600.", "duration: 0" },
    { "integer duration", "duration: 3600.", "duration: 60" },
    { "environment unset with null", "HOME: /home/flux", "HOME: null" },
    { "begin-time with a numeric string",
      "scheme: afterok\n        value: f1234",
      "scheme: begin-time\n        value: \"1632777640\"" },
    { "begin-time with a fractional string",
      "scheme: afterok\n        value: f1234",
      "scheme: begin-time\n        value: \"1632777640.25\"" },
    { "unknown schemes pass", "scheme: afterok", "scheme: site-special" },
    { "extra keys in a dependency", "value: f1234",
      "value: f1234\n        note: hi" },
    { "empty constraint", "properties: [ssd]", "{}" },
    { "per_resource of a type in the slot", "per_slot: 1",
      "per_resource: {type: gpu, count: 2}" },
    { "total", "per_slot: 1", "total: 9" },
    { "base64 file", "encoding: utf-8\n        data: \"#!/bin/sh\\n\"",
      "encoding: base64\n        data: \"IyEvYmluL3NoCg==\"" },
    { "blobvec file", "encoding: utf-8\n        data: \"#!/bin/sh\\n\"",
      "encoding: blobvec\n        data: [[0, 10, sha1-aa]]" },
    { "JSON content",
      "        size: 10\n        encoding: utf-8\n        "
      "data: \"#!/bin/sh\\n\"\n",
      "        data: {a: [1]}\n" },
    { "empty file",
      "        encoding: utf-8\n        data: "
      "\"#!/bin/sh\\n\"\n",
      "" },
    { "directory",
      "mode: 33216\n        size: 10\n        encoding: utf-8\n"
      "        data: \"#!/bin/sh\\n\"\n",
      "mode: 16877\n" },
    { "symbolic link",
      "mode: 33216\n        size: 10\n        encoding: "
      "utf-8\n",
      "mode: 41471\n" },
    { "nested archive path", "      script:\n", "      a/b.c:\n" },
    { "id and unit strings", "    label: nodes\n",
      "    label: nodes\n    id: \"0-1\"\n    unit: box\n" },
    { "explicit exclusive", "    label: nodes\n",
      "    label: nodes\n    exclusive: true\n" },
    { "an empty type (RFC 14 silent; flux-core accepts it)", "type: node",
      "type: \"\"" },
    { "an empty label (RFC 14 silent; flux-core accepts it)", "label: nodes",
      "label: \"\"" },
    { "archive paths with empty components (RFC 37 silent)", "      script:\n",
      "      a//b/:\n" },
    { "labels on non-slot vertices are unique names too",
      "          - type: gpu\n",
      "          - type: gpu\n            label: g\n" },
};

static void test_valid (void)
{
    for (size_t i = 0; i < sizeof (valid) / sizeof (valid[0]); i++) {
        struct invalid_case t = { valid[i].rule, C, base_c, valid[i].old,
                                  valid[i].text, "" };
        char *doc = substitute (&t);
        struct rp_diags *d = rp_diags_create ();
        struct rp_jobspec *js =
            rp_jobspec_load (doc, strlen (doc), "job.yaml", C, d);
        char *got = joined (d);

        ok (js != NULL, "%s: valid", t.rule);
        is (got, "", "%s: no messages", t.rule);
        rp_jobspec_destroy (js);
        rp_diags_destroy (d);
        free (got);
        free (doc);
    }
}

/* "exclusive: false" on a slot overrides the default; the slot's contents
 * keep theirs. */
static void test_exclusive_defaults (void)
{
    static const char doc[] =
        "version: 1\n"
        "resources: [{type: node, count: 1, with: [{type: slot, count: 1, "
        "label: s, exclusive: false, with: [{type: core, count: 1}]}]}]\n"
        "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n"
        "attributes: {}\n";
    struct rp_jobspec *js =
        rp_jobspec_load (doc, strlen (doc), "x.yaml", C, NULL);
    const struct rp_jobspec_resource *node = rp_jobspec_resource_first (js);
    const struct rp_jobspec_resource *slot =
        rp_jobspec_resource_with_first (node);

    ok (js && !rp_jobspec_resource_exclusive (node),
        "a node outside a slot is not exclusive by default");
    ok (js && !rp_jobspec_resource_exclusive (slot),
        "exclusive: false on a slot is kept");
    ok (js
            && rp_jobspec_resource_exclusive (
                rp_jobspec_resource_with_first (slot)),
        "a core in that slot is still exclusive by default");
    rp_jobspec_destroy (js);
}

/* V1 takes a gpu count of 0 (RFC 25: "a single integer value"; flux-core's
 * V1 checks take it): it asks for no GPU. */
static void test_v1_no_gpu (void)
{
    struct invalid_case t = { "gpu 0",           V, base_v, "count: 1\ntasks",
                              "count: 0\ntasks", "" };
    char *doc = substitute (&t);
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js =
        rp_jobspec_load (doc, strlen (doc), "job.yaml", V, d);
    const struct rp_jobspec_resource *gpu = NULL;
    char *got = joined (d);

    ok (js != NULL, "V1: a gpu count of 0 is valid");
    is (got, "", "V1: with no message");
    if (js)
        gpu = rp_jobspec_resource_next (rp_jobspec_resource_with_first (
            rp_jobspec_resource_with_first (rp_jobspec_resource_first (js))));
    ok (gpu && rp_jobspec_resource_count (gpu)->min == 0
            && rp_jobspec_resource_count (gpu)->max == 0
            && rp_jobspec_resource_count_contains (gpu, 0)
            && !rp_jobspec_resource_count_contains (gpu, 1)
            && rp_jobspec_resource_total (gpu) == 0,
        "V1: it counts 0 and only 0");
    ok (js && rp_jobspec_facts (js)->gpus_per_slot == 0
            && rp_jobspec_facts (js)->cores_per_slot == 4
            && rp_jobspec_facts (js)->exact,
        "V1: no GPU per slot");
    rp_jobspec_destroy (js);
    rp_diags_destroy (d);
    free (got);
    free (doc);
}

/* --- nested slots ------------------------------------------------------ */

/* The storage use case flux-core accepts: 2 slots, each an ssd and an
 * exclusive node holding a slot of 5 cores and 7 GPUs; the tasks run in
 * the inner slot.  %s is the task's slot and count. */
static const char storage_doc[] = "version: 1\n"
                                  "resources:\n"
                                  "  - type: slot\n"
                                  "    count: 2\n"
                                  "    label: storage\n"
                                  "    with:\n"
                                  "      - type: ssd\n"
                                  "        count: 1\n"
                                  "      - type: node\n"
                                  "        exclusive: true\n"
                                  "        count: 1\n"
                                  "        with:\n"
                                  "          - type: slot\n"
                                  "            label: task\n"
                                  "            count: 1\n"
                                  "            with:\n"
                                  "              - type: core\n"
                                  "                count: 5\n"
                                  "              - type: gpu\n"
                                  "                count: 7\n"
                                  "              - type: memory\n"
                                  "                count: 2\n"
                                  "tasks:\n"
                                  "  - command: [\"true\"]\n"
                                  "    %s\n"
                                  "attributes:\n"
                                  "  system:\n"
                                  "    duration: 3600\n";

static struct rp_jobspec *
storage (const char *task, enum rp_jobspec_profile profile, struct rp_diags *d)
{
    char doc[sizeof (storage_doc) + 128];

    snprintf (doc, sizeof (doc), storage_doc, task);
    return rp_jobspec_load (doc, strlen (doc), "s.yaml", profile, d);
}

static uint64_t ntasks (const char *task)
{
    struct rp_jobspec *js = storage (task, C, NULL);
    uint64_t n = js ? rp_jobspec_facts (js)->ntasks : 0;

    rp_jobspec_destroy (js);
    return n;
}

/* A slot inside a slot (RFC 14: a slot is "a valid resource spec", and
 * "with" holds resource vertices): everything inside the inner slot is
 * inside the outer one too; tasks count against the slot they name. */
static void test_nested_slots (void)
{
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js =
        storage ("slot: task\n    count: {per_slot: 1}", C, d);
    const struct rp_jobspec_resource *outer, *node, *inner;
    const struct rp_jobspec_facts *f;
    char *got = joined (d);

    ok (js != NULL, "a slot inside a slot is valid canonical jobspec");
    is (got, "", "with no message");
    free (got);
    if (!js)
        BAIL_OUT ("the storage use case does not load");
    outer = rp_jobspec_resource_first (js);
    node = rp_jobspec_resource_next (rp_jobspec_resource_with_first (outer));
    inner = rp_jobspec_resource_with_first (node);
    ok (rp_jobspec_slot_find (js, "storage") == outer
            && rp_jobspec_slot_find (js, "task") == inner,
        "both slots are found by label");
    ok (rp_jobspec_slot_count_type (outer, "ssd") == 1
            && rp_jobspec_slot_count_type (outer, "node") == 1
            && rp_jobspec_slot_count_type (outer, "slot") == 1
            && rp_jobspec_slot_count_type (outer, "core") == 5
            && rp_jobspec_slot_count_type (outer, "gpu") == 7
            && rp_jobspec_slot_memory (outer) == 2 * GiB,
        "the outer slot counts what its nested slot holds");
    ok (rp_jobspec_slot_count_type (inner, "core") == 5
            && rp_jobspec_slot_count_type (inner, "gpu") == 7
            && rp_jobspec_slot_count_type (inner, "ssd") == 0
            && rp_jobspec_slot_memory (inner) == 2 * GiB,
        "the inner slot counts only what it holds");
    ok (rp_jobspec_resource_total (inner) == 2
            && rp_jobspec_resource_total (
                   rp_jobspec_resource_with_first (inner))
                   == 10,
        "2 inner slots, 10 cores in the whole request");
    ok (rp_jobspec_resource_exclusive (node)
            && rp_jobspec_resource_exclusive (inner),
        "the node and the inner slot are exclusive");
    f = rp_jobspec_facts (js);
    ok (f->nnodes == 2 && f->nslots == 2 && f->cores_per_slot == 5
            && f->gpus_per_slot == 7 && f->memory_per_slot == 2 * GiB
            && f->uniform && f->exclusive && f->ntasks == 2,
        "facts: 2 outermost slots of 5 cores and 7 GPUs, 2 tasks");
    rp_jobspec_destroy (js);
    ok (ntasks ("slot: storage\n    count: {per_slot: 3}") == 6,
        "per_slot on the outer slot: 3 tasks per outer slot");
    ok (ntasks ("slot: storage\n    count: {per_resource: {type: gpu, "
                "count: 1}}")
            == 14,
        "per_resource on the outer slot counts the GPUs of its inner slot");
    ok (ntasks ("slot: task\n    count: {per_resource: {type: core, "
                "count: 2}}")
            == 20,
        "per_resource on the inner slot: 2 tasks per core");

    rp_diags_clear (d);
    js = storage ("slot: task\n    count: {per_resource: {type: ssd, "
                  "count: 1}}",
                  C, d);
    got = joined (d);
    ok (js == NULL, "per_resource on the inner slot of a type outside it");
    is (got,
        "s.yaml:26:34: tasks[0].count.per_resource.type: no resource of type "
        "\"ssd\" in slot \"task\"",
        "is refused: the type is not inside the task's slot");
    free (got);
    rp_diags_clear (d);
    js = storage ("slot: task\n    count: {per_slot: 1}", V, d);
    got = joined (d);
    ok (js == NULL
            && strstr (got, "resources[0].with[1].type: must be core "
                            "or gpu in jobspec V1"),
        "V1 refuses it (its shapes have no slot in a slot)");
    free (got);
    rp_diags_destroy (d);
}

/* --- bounds and arguments ----------------------------------------------- */

/* Resources nested n deep: slot > node > node > ... > core. */
static char *nested (int n)
{
    size_t size = 64 * (size_t)n + 512;
    char *s = malloc (size);
    size_t len = 0;

    if (!s)
        BAIL_OUT ("out of memory");
    len += snprintf (s + len, size - len,
                     "{\"version\": 1, \"resources\": [{\"type\": \"slot\", "
                     "\"label\": \"s\", \"count\": 1, \"with\": ");
    for (int i = 2; i < n; i++)
        len += snprintf (s + len, size - len,
                         "[{\"type\": \"node\", \"count\": 1, \"with\": ");
    len +=
        snprintf (s + len, size - len, "[{\"type\": \"core\", \"count\": 1}]");
    for (int i = 2; i < n; i++)
        len += snprintf (s + len, size - len, "}]");
    snprintf (s + len, size - len,
              "}], \"tasks\": [{\"command\": [\"a\"], \"slot\": \"s\", "
              "\"count\": {\"per_slot\": 1}}], \"attributes\": {}}");
    return s;
}

static void test_nesting (void)
{
    char *s = nested (RP_JOBSPEC_MAX_RESOURCE_DEPTH);
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js = rp_jobspec_load (s, strlen (s), "deep.json", C, d);
    char *got;

    ok (js != NULL, "resources nested %d deep are accepted",
        RP_JOBSPEC_MAX_RESOURCE_DEPTH);
    rp_jobspec_destroy (js);
    free (s);
    s = nested (RP_JOBSPEC_MAX_RESOURCE_DEPTH + 1);
    js = rp_jobspec_load (s, strlen (s), "deep.json", C, d);
    got = joined (d);
    ok (js == NULL && errno == EINVAL, "one more level is refused");
    like (got, ": resources nest deeper than 16", "with its message");
    free (got);
    free (s);
    rp_diags_destroy (d);
}

static void test_from_json (void)
{
    json_t *o =
        json_pack ("{s:i s:[{s:s s:i}] s:[] s:{}}", "version", 1, "resources",
                   "type", "slot", "count", 0, "tasks", "attributes");
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js = rp_jobspec_from_json (o, "tree", C, d);
    char *got = joined (d);
    json_t *deep = json_array ();

    ok (js == NULL && errno == EINVAL, "rp_jobspec_from_json refuses");
    is (got,
        "tree: resources[0]: missing key \"label\" (a slot needs a label)\n"
        "tree: resources[0]: missing key \"with\" (a slot needs at least one "
        "resource)\n"
        "tree: resources[0].count: must be >= 1\n"
        "tree: tasks: must not be empty",
        "messages without positions name the tree and the path");
    free (got);
    rp_diags_clear (d);
    for (int i = 0; i < RP_DOC_MAX_DEPTH + 5; i++)
        deep = json_pack ("[o]", deep);
    js = rp_jobspec_from_json (deep, "deep", C, d);
    got = joined (d);
    ok (js == NULL && errno == EINVAL, "a tree nested too deep is refused");
    is (got, "deep: document nests deeper than 64", "with its message");
    free (got);
    json_decref (deep);
    json_decref (o);
    rp_diags_destroy (d);
}

static void test_document_errors (void)
{
    static const char alias[] = "a: &x [1]\nb: *x\n";
    struct rp_diags *d = rp_diags_create ();
    struct rp_jobspec *js;
    char *big;

    js = rp_jobspec_load (alias, strlen (alias), "a.yaml", C, d);
    ok (js == NULL && errno == EINVAL && rp_diags_errors (d) == 1,
        "a YAML alias is refused by the reader, one error");
    like (rp_diags_text (d, 0), "a.yaml:", "the message names the file");
    rp_diags_clear (d);
    big = malloc (RP_DOC_MAX_BYTES + 2);
    if (!big)
        BAIL_OUT ("out of memory");
    memset (big, ' ', RP_DOC_MAX_BYTES + 1);
    big[RP_DOC_MAX_BYTES + 1] = '\0';
    js = rp_jobspec_load (big, RP_DOC_MAX_BYTES + 1, "big.yaml", C, d);
    ok (js == NULL && errno == EFBIG && rp_diags_errors (d) == 1,
        "a document over RP_DOC_MAX_BYTES is refused (EFBIG)");
    free (big);
    rp_diags_clear (d);
    js = rp_jobspec_load_file ("/nonexistent/job.yaml", C, d);
    ok (js == NULL && errno == ENOENT && rp_diags_errors (d) == 1,
        "a missing file: ENOENT and one error");
    is (rp_diags_text (d, 0),
        "/nonexistent/job.yaml: No such file or directory", "naming the file");
    rp_diags_destroy (d);
}

static void test_arguments (void)
{
    enum rp_jobspec_profile p = C;

    errno = 0;
    ok (rp_jobspec_load (NULL, 1, "x", C, NULL) == NULL && errno == EINVAL,
        "rp_jobspec_load (NULL, 1) fails with EINVAL");
    errno = 0;
    ok (rp_jobspec_load ("", 0, NULL, C, NULL) == NULL && errno == EINVAL,
        "rp_jobspec_load without a name fails with EINVAL");
    errno = 0;
    ok (rp_jobspec_load ("{}", 2, "x", (enum rp_jobspec_profile)7, NULL) == NULL
            && errno == EINVAL,
        "an unknown profile fails with EINVAL");
    errno = 0;
    ok (rp_jobspec_load_file (NULL, C, NULL) == NULL && errno == EINVAL,
        "rp_jobspec_load_file (NULL) fails with EINVAL");
    errno = 0;
    ok (rp_jobspec_from_json (NULL, "x", C, NULL) == NULL && errno == EINVAL,
        "rp_jobspec_from_json (NULL) fails with EINVAL");
    ok (rp_jobspec_profile_parse ("canonical", &p) == 0 && p == C,
        "profile canonical");
    ok (rp_jobspec_profile_parse ("v1", &p) == 0 && p == V, "profile v1");
    errno = 0;
    ok (rp_jobspec_profile_parse ("V2", &p) < 0 && errno == EINVAL && p == V,
        "an unknown profile name fails with EINVAL, *profile untouched");
    errno = 42;
    rp_jobspec_destroy (NULL);
    ok (errno == 42, "rp_jobspec_destroy (NULL) keeps errno");
    ok (rp_jobspec_facts (NULL) == NULL
            && rp_jobspec_resource_first (NULL) == NULL
            && rp_jobspec_task_first (NULL) == NULL
            && rp_jobspec_slot_count_type (NULL, "core") == 0,
        "accessors accept NULL");
}

/* The default profile is V1, so an RFC 14 use case is refused unless the
 * caller asks for canonical. */
static void test_default_profile (void)
{
    ok (RP_JOBSPEC_V1 == 0, "RP_JOBSPEC_V1 is the zero (default) value");
}

int main (void)
{
    plan (NO_PLAN);
    test_bases ();
    test_copy ();
    test_invalid ();
    test_collects_all ();
    test_valid ();
    test_exclusive_defaults ();
    test_v1_no_gpu ();
    test_nested_slots ();
    test_conformance ();
    test_rfc26 ();
    test_model ();
    test_absent ();
    test_nesting ();
    test_from_json ();
    test_document_errors ();
    test_arguments ();
    test_default_profile ();
    return done_testing ();
}
