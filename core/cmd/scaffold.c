/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol plugin new: write a commented plugin that builds and loads as it
 * is, for a site to make its own (see respol-plugin(7)).
 *
 *   respol plugin new --kind=validate|match|shell|property|queue [--dir=DIR] NAME
 *
 * writes DIR/NAME.c (DIR defaults to the current directory) and prints
 * how to build and enable it:
 *   # wrote NAME.c, a validate plugin; build it with:
 *   cc -shared -fPIC $(pkg-config --cflags respol) -o NAME.so NAME.c
 *   # and enable it in respol.yaml with:
 *   validate:
 *     - plugin: /abs/dir/NAME.so
 *       config: {max-nodes: 64}
 * Lines that start with '#' are comments to sh and YAML alike.
 *
 * What the skeletons do as written: the validator rejects a job that asks
 * for more nodes than "max-nodes"; the match policy is first fit, taking
 * the ranks in "avoid-ranks" (an idset) only when nothing else fits; the
 * shell plugin sets the variable named by "variable" to each task's local
 * id; the property plugin gives "property" to the targets whose host name
 * starts with "prefix"; the queue policy puts jobs of at most "short"
 * seconds first and backfills as EASY does.  Each declares its configuration keys, keeps its
 * state per instance, says in its opening comment how to try it, and
 * builds with -Wall -Wextra -Werror -std=c11 (t0027 builds each and runs
 * the commands its comment gives).
 *
 * Decisions:
 * - NAME is checked by the loader itself: rp_plugin_desc_check on the
 *   descriptor the skeleton will have, so the rule and the message are
 *   the loader's ("invalid plugin name 'a b' (letters, digits, ...)").
 *   A bad NAME is bad input (exit 1); a bad --kind is bad usage (exit 2).
 * - NAME.c is created with O_CREAT | O_EXCL: an existing file (or a
 *   symlink, even a dangling one) is never overwritten.  A file that could
 *   not be written whole is removed.
 * - The build line names the files relative to the current directory, as
 *   given, quoted for sh when they need it; the entry names the absolute
 *   path of NAME.so, quoted for YAML when it needs it.
 * - The skeletons are one text whose @WORD@ markers are filled from the
 *   kind's fields, so what they share is written once.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <respol/config.h>
#include <respol/property.h>
#include <respol/queue.h>
#include <respol/shell.h>

#include "cmd.h"
#include "core/suggest.h"

#define SUB "plugin"

/* --- the skeletons ------------------------------------------------------ */

/* One text for every kind; @WORD@ stands for the field WORD of the kind's
 * struct skeleton below, @NAME@ for the plugin's name. */
static const char skeleton_text[] =
    "/* @NAME@.c: a respol @WHAT@, made by `respol plugin new`.\n"
    " *\n"
    "@SUMMARY@"
    " *\n"
    " * Build it (the respol headers are all it needs: the rp_* and json_*\n"
    " * functions it calls are resolved from the respol that loads it):\n"
    " *\n"
    " *   cc -shared -fPIC $(pkg-config --cflags respol) -o @NAME@.so "
    "@NAME@.c\n"
    " *\n"
    " * enable it in respol.yaml (the .so and the directories above it must\n"
    " * be writable by you or root only):\n"
    " *\n"
    " *   @KIND@:\n"
    " *     - plugin: /path/to/@NAME@.so\n"
    " *       config: @CONFIG@\n"
    " *\n"
    " * and try it:\n"
    " *\n"
    " *   respol config check respol.yaml\n"
    "@TRY@"
    " *\n"
    " * The contract is <respol/plugin.h> and respol-plugin(7); the\n"
    " * @ACCESSORS@.\n"
    " */\n"
    "@INCLUDES@"
    "\n"
    "#include <respol/plugin.h>\n"
    "@HEADERS@"
    "\n"
    "/* The keys of the configuration block.  The host refuses any other\n"
    " * key itself (at its line and column, before init), so init only\n"
    " * checks the values. */\n"
    "static const char *const config_keys[] = { @KEYS@, NULL };\n"
    "\n"
    "/* One instance's state.  A plugin may be configured twice, with two\n"
    " * blocks: keep state behind svc->set_data, not in static variables. */\n"
    "struct state {\n"
    "@STATE@"
    "};\n"
    "\n"
    "/* The host's services: one table for every instance, valid as long as\n"
    " * the plugin is loaded. */\n"
    "static const struct rp_host_services *svc;\n"
    "\n"
    "/* Once per instance, with its block, before any @OPERATION@.  Return\n"
    " * 0, or svc->error (p, ...) to stop the configuration from loading\n"
    " * with that message. */\n"
    "static int init (struct rp_plugin *p, const struct rp_host_services "
    "*s)\n"
    "{\n"
    "@INIT@"
    "    svc->set_data (p, st);\n"
    "    return 0;\n"
    "}\n"
    "\n"
    "/* Once per instance, when the configuration is destroyed (never after\n"
    " * a failed init). */\n"
    "static void fini (struct rp_plugin *p)\n"
    "{\n"
    "@FINI@"
    "}\n"
    "\n"
    "@OPS@"
    "\n"
    "/* The one symbol a plugin exports; keep every other symbol static.\n"
    " * Bump .version when the behaviour changes. */\n"
    "RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {\n"
    "    .abi_version = RP_PLUGIN_ABI_VERSION,\n"
    "    .size = sizeof (struct rp_plugin_desc),\n"
    "    .kind = @KIND_ID@,\n"
    "    .name = \"@NAME@\",\n"
    "    .description = \"@DESCRIPTION@\",\n"
    "    .version = \"0.1.0\",\n"
    "    .init = init,\n"
    "    .fini = fini,\n"
    "    .ops = &ops,\n"
    "    .config_keys = config_keys,\n"
    "};\n";

struct skeleton {
    const char *kind; /* KIND: the --kind and the stack */
    uint32_t kind_id;
    const char *config; /* CONFIG: the block of the respol.yaml entry */
    const char *fields[2 * 14 + 1]; /* other words and values, NULL */
};

static const struct skeleton skeletons[] = {
    { "validate",
      RP_PLUGIN_VALIDATE,
      "{max-nodes: 64}",
      {
          "WHAT",
          "jobspec validator",
          "SUMMARY",
          " * As written, it rejects a job that asks for more nodes than\n"
          " * \"max-nodes\" in its configuration block.  Make it your site's\n"
          " * policy: change validate() and the keys init() reads; keep the "
          "rest.\n",
          "TRY",
          " *   respol jobspec create -N 128 -n 128 -- app >big.yaml\n"
          " *   respol jobspec validate --config=respol.yaml big.yaml\n",
          "ACCESSORS",
          "jobspec accessors are in <respol/jobspec.h>",
          "INCLUDES",
          "#include <stdint.h>\n#include <stdlib.h>\n",
          "HEADERS",
          "",
          "KEYS",
          "\"max-nodes\"",
          "STATE",
          "    uint64_t max_nodes;\n",
          "OPERATION",
          "validate",
          "INIT",
          "    json_t *max = json_object_get (s->config (p), \"max-nodes\");\n"
          "    struct state *st;\n"
          "\n"
          "    svc = s;\n"
          "    if (!max)\n"
          "        return svc->error (p, \"'max-nodes' is required\");\n"
          "    if (!json_is_integer (max) || json_integer_value (max) < 0)\n"
          "        return svc->error (p, \"max-nodes: must be an integer >= "
          "0\");\n"
          "    if (!(st = malloc (sizeof (*st))))\n"
          "        return svc->error (p, \"out of memory\");\n"
          "    st->max_nodes = (uint64_t)json_integer_value (max);\n",
          "FINI",
          "    free (svc->get_data (p));\n",
          "OPS",
          "/* Judge one jobspec, already checked against the RFCs and borrowed "
          "for\n"
          " * the call.  Return RP_ACCEPT, rp_validation_warn (v, ...) to "
          "accept\n"
          " * with a warning, or rp_validation_reject (v, ...) to reject.  A "
          "job\n"
          " * that names no node (only slots) has nnodes 0: give it a rule of\n"
          " * its own if the site needs one. */\n"
          "static int validate (struct rp_plugin *p, const struct rp_jobspec "
          "*js,\n"
          "                     struct rp_validation *v)\n"
          "{\n"
          "    const struct state *st = svc->get_data (p);\n"
          "    uint64_t nnodes = rp_jobspec_facts (js)->nnodes;\n"
          "\n"
          "    if (nnodes > st->max_nodes)\n"
          "        return rp_validation_reject (v, \"requests %llu nodes, "
          "limit "
          "is %llu\",\n"
          "                                     (unsigned long long)nnodes,\n"
          "                                     (unsigned long "
          "long)st->max_nodes);\n"
          "    return RP_ACCEPT;\n"
          "}\n"
          "\n"
          "static const struct rp_validate_ops ops = {\n"
          "    .size = sizeof (struct rp_validate_ops),\n"
          "    .validate = validate,\n"
          "};\n",
          "KIND_ID",
          "RP_PLUGIN_VALIDATE",
          "DESCRIPTION",
          "reject jobs asking for more than max-nodes nodes",
      } },
    { "match",
      RP_PLUGIN_MATCH,
      "{avoid-ranks: \"0\"}",
      {
          "WHAT",
          "match policy",
          "SUMMARY",
          " * As written, it is first fit, lowest ids first, except that the\n"
          " * nodes whose rank is in \"avoid-ranks\" (an RFC 22 idset, e.g. "
          "\"0\"\n"
          " * for a service node) are taken only when nothing else fits.  Make "
          "it\n"
          " * your site's placement policy: change score(), or add prune and\n"
          " * order_candidates (respol-plugin(7), MATCH POLICIES); keep the "
          "rest.\n",
          "TRY",
          " *   respol jobspec create -N 1 -n 1 -- app >job.yaml\n"
          " *   respol match allocate --config=respol.yaml --generate=nodes=4 "
          "job.yaml\n",
          "ACCESSORS",
          "graph accessors are in <respol/graph.h>",
          "INCLUDES",
          "#include <limits.h>\n#include <stdlib.h>\n",
          "HEADERS",
          "",
          "KEYS",
          "\"avoid-ranks\"",
          "STATE",
          "    struct rp_idset *avoid;\n",
          "OPERATION",
          "match",
          "INIT",
          "    json_t *ranks = json_object_get (s->config (p), "
          "\"avoid-ranks\");\n"
          "    struct state *st;\n"
          "    rp_error_t error;\n"
          "\n"
          "    svc = s;\n"
          "    if (!json_is_string (ranks))\n"
          "        return svc->error (p, \"avoid-ranks: must be an idset of "
          "ranks, \"\n"
          "                              \"e.g. \\\"0\\\" or "
          "\\\"0-1,8\\\"\");\n"
          "    if (!(st = malloc (sizeof (*st))))\n"
          "        return svc->error (p, \"out of memory\");\n"
          "    if (!(st->avoid = rp_idset_decode (json_string_value (ranks), "
          "&error))) {\n"
          "        free (st);\n"
          "        return svc->error (p, \"avoid-ranks: %s\", error.text);\n"
          "    }\n",
          "FINI",
          "    struct state *st = svc->get_data (p);\n"
          "\n"
          "    rp_idset_destroy (st->avoid);\n"
          "    free (st);\n",
          "OPS",
          "/* The evaluating filter: called for every candidate, and for the\n"
          " * children of every vertex the host descends into, which it "
          "visits\n"
          " * and takes in descending score (equal scores in walk order).  "
          "Every\n"
          " * vertex of a node carries the node's rank (those above the nodes\n"
          " * have none, -1): a vertex of an avoided rank scores -1, the "
          "others\n"
          " * 0.  Return 0, or svc->error (p, ...) to fail the match. */\n"
          "static int score (struct rp_plugin *p, const struct rp_match *m,\n"
          "                  rp_vertex_t v, int64_t *score)\n"
          "{\n"
          "    const struct state *st = svc->get_data (p);\n"
          "    int64_t rank = rp_graph_vertex_rank (rp_match_graph (m), v);\n"
          "\n"
          "    *score = rank >= 0 && rank <= UINT_MAX\n"
          "                     && rp_idset_test (st->avoid, (unsigned "
          "int)rank)\n"
          "                 ? -1\n"
          "                 : 0;\n"
          "    return 0;\n"
          "}\n"
          "\n"
          "/* order: children in ascending ids.  stop_after 0: look at every\n"
          " * candidate before choosing, so that an avoided node is taken "
          "only\n"
          " * when no other fits (1 would stop at the first fit found). */\n"
          "static const struct rp_match_ops ops = {\n"
          "    .size = sizeof (struct rp_match_ops),\n"
          "    .order = RP_MATCH_LOW,\n"
          "    .stop_after = 0,\n"
          "    .score = score,\n"
          "};\n",
          "KIND_ID",
          "RP_PLUGIN_MATCH",
          "DESCRIPTION",
          "first fit, the ranks in avoid-ranks last",
      } },
    { "shell",
      RP_PLUGIN_SHELL,
      "{variable: TASK_LOCAL_ID}",
      {
          "WHAT",
          "job-shell plugin",
          "SUMMARY",
          " * As written, it sets the variable named by \"variable\" in its\n"
          " * configuration block to each task's local id (0, 1, ... on this\n"
          " * target), and logs it at debug level (respol run -vv).  Make it\n"
          " * your site's: change task_init(), or add shell_init, task_exec,\n"
          " * task_exit and shell_exit (respol-plugin(7), SHELL PLUGINS); "
          "keep\n"
          " * the rest.\n",
          "TRY",
          " *   respol run --config=respol.yaml -n2 printenv TASK_LOCAL_ID\n",
          "ACCESSORS",
          "shell and task accessors are in <respol/shell.h>",
          "INCLUDES",
          "#include <errno.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
          "#include <string.h>\n",
          "HEADERS",
          "#include <respol/shell.h>\n",
          "KEYS",
          "\"variable\"",
          "STATE",
          "    const char *variable; /* borrowed from the block */\n",
          "OPERATION",
          "task_init",
          "INIT",
          "    json_t *var = json_object_get (s->config (p), \"variable\");\n"
          "    struct state *st;\n"
          "\n"
          "    svc = s;\n"
          "    if (!var)\n"
          "        return svc->error (p, \"'variable' is required\");\n"
          "    if (!json_is_string (var) || !*json_string_value (var)\n"
          "        || strchr (json_string_value (var), '='))\n"
          "        return svc->error (p, \"variable: must be a variable name, "
          "\"\n"
          "                              \"e.g. TASK_LOCAL_ID\");\n"
          "    if (!(st = malloc (sizeof (*st))))\n"
          "        return svc->error (p, \"out of memory\");\n"
          "    st->variable = json_string_value (var);\n",
          "FINI",
          "    free (svc->get_data (p));\n",
          "OPS",
          "/* For each task of this target, in the shell, before any task\n"
          " * starts: decide its environment (and its CPUs, GPUs and memory\n"
          " * policy: rp_task_set_cpus and the others).  Return 0, or\n"
          " * svc->error (p, ...) to stop the job with that message. */\n"
          "static int task_init (struct rp_plugin *p, struct rp_shell *sh,\n"
          "                      struct rp_task *t)\n"
          "{\n"
          "    const struct state *st = svc->get_data (p);\n"
          "    char id[16];\n"
          "\n"
          "    (void)sh;\n"
          "    snprintf (id, sizeof (id), \"%u\", rp_task_local_id (t));\n"
          "    if (rp_task_setenv (t, st->variable, id) < 0)\n"
          "        return svc->error (p, \"%s: %s\", st->variable, strerror "
          "(errno));\n"
          "    svc->log (p, RP_LOG_DEBUG, \"task %lu: %s=%s\",\n"
          "              rp_task_global_id (t), st->variable, id);\n"
          "    return 0;\n"
          "}\n"
          "\n"
          "static const struct rp_shell_ops ops = {\n"
          "    .size = sizeof (struct rp_shell_ops),\n"
          "    .task_init = task_init,\n"
          "};\n",
          "KIND_ID",
          "RP_PLUGIN_SHELL",
          "DESCRIPTION",
          "set a variable to each task's local id",
      } },
    { "property",
      RP_PLUGIN_PROPERTY,
      "{prefix: login, property: login}",
      {
          "WHAT",
          "property plugin",
          "SUMMARY",
          " * As written, it gives the property \"property\" of its\n"
          " * configuration block to every target whose host name starts with\n"
          " * \"prefix\", each time the resources are defined (respol resource\n"
          " * --config with -R, --resources, --local or --xml).  Make it your\n"
          " * site's: change annotate() (rp_annotation_hardware gives what "
          "hwloc\n"
          " * shows), or add constraint operators in init "
          "(respol-plugin(7),\n"
          " * PROPERTY PLUGINS); keep the rest.\n",
          "TRY",
          " *   respol R encode -r 0-3 -H 'login0,node[1-3]' >R.json\n"
          " *   respol resource --state=state --config=respol.yaml -R R.json "
          "list\n",
          "ACCESSORS",
          "annotation and R accessors are in <respol/property.h>\n"
          " * and <respol/rset.h>",
          "INCLUDES",
          "#include <stdlib.h>\n#include <string.h>\n",
          "HEADERS",
          "#include <respol/property.h>\n",
          "KEYS",
          "\"prefix\", \"property\"",
          "STATE",
          "    const char *prefix, *property; /* borrowed from the block */\n",
          "OPERATION",
          "annotate",
          "INIT",
          "    const json_t *block = s->config (p);\n"
          "    json_t *prefix = json_object_get (block, \"prefix\");\n"
          "    json_t *property = json_object_get (block, \"property\");\n"
          "    struct state *st;\n"
          "    rp_error_t error;\n"
          "\n"
          "    svc = s;\n"
          "    if (!json_is_string (prefix))\n"
          "        return svc->error (p, \"prefix: must be the start of host "
          "names, \"\n"
          "                              \"e.g. login\");\n"
          "    if (!json_is_string (property))\n"
          "        return svc->error (p, \"property: must be a property name, "
          "\"\n"
          "                              \"e.g. login\");\n"
          "    if (rp_rset_property_check (json_string_value (property), "
          "&error) < 0)\n"
          "        return svc->error (p, \"property: %s\", error.text);\n"
          "    if (!(st = malloc (sizeof (*st))))\n"
          "        return svc->error (p, \"out of memory\");\n"
          "    st->prefix = json_string_value (prefix);\n"
          "    st->property = json_string_value (property);\n",
          "FINI",
          "    free (svc->get_data (p));\n",
          "OPS",
          "/* Say which targets have which properties: what annotate says is\n"
          " * its whole say, so a target it no longer names loses the "
          "property\n"
          " * it gave (the host logs property-add and property-remove events).\n"
          " * Return 0, or svc->error (p, ...) to stop the run. */\n"
          "static int annotate (struct rp_plugin *p, struct rp_annotation *a)\n"
          "{\n"
          "    const struct state *st = svc->get_data (p);\n"
          "    const struct rp_rset *R = rp_annotation_R (a);\n"
          "    const struct rp_idset *ranks = rp_rset_ranks (R);\n"
          "    size_t len = strlen (st->prefix);\n"
          "    struct rp_idset *have = rp_idset_create ();\n"
          "    int rc = -1;\n"
          "\n"
          "    if (!have)\n"
          "        return svc->error (p, \"out of memory\");\n"
          "    for (unsigned int r = rp_idset_first (ranks); r != "
          "RP_IDSET_INVALID_ID;\n"
          "         r = rp_idset_next (ranks, r)) {\n"
          "        const char *host = rp_rset_hostname (R, r);\n"
          "        if (host && !strncmp (host, st->prefix, len)\n"
          "            && rp_idset_add (have, r) < 0) {\n"
          "            svc->error (p, \"out of memory\");\n"
          "            goto cleanup;\n"
          "        }\n"
          "    }\n"
          "    rc = 0;\n"
          "    if (rp_idset_count (have) > 0)\n"
          "        rc = rp_annotation_add (a, st->property, have);\n"
          "cleanup:\n"
          "    rp_idset_destroy (have);\n"
          "    return rc;\n"
          "}\n"
          "\n"
          "static const struct rp_property_ops ops = {\n"
          "    .size = sizeof (struct rp_property_ops),\n"
          "    .annotate = annotate,\n"
          "};\n",
          "KIND_ID",
          "RP_PLUGIN_PROPERTY",
          "DESCRIPTION",
          "give a property to the hosts whose names start with a prefix",
      } },
    { "queue",
      RP_PLUGIN_QUEUE,
      "{short: 3600}",
      {
          "WHAT",
          "queue policy",
          "SUMMARY",
          " * As written, jobs whose duration is at most \"short\" seconds go\n"
          " * ahead of the others (priority), and each scheduling pass is EASY\n"
          " * backfilling (pass): one reservation, for the first job that does\n"
          " * not fit, and later jobs start only when they do not delay it.\n"
          " * Make it your site's: change priority() or pass(), or drop one of\n"
          " * them; keep the rest.\n",
          "TRY",
          " *   printf '1 0 -1 1000 4 -1 -1 4 1000 -1 1 1 1 -1 -1 -1 -1 -1\\n' "
          ">w.swf\n"
          " *   printf '2 1 -1 5000 4 -1 -1 4 5000 -1 1 1 1 -1 -1 -1 -1 -1\\n' "
          ">>w.swf\n"
          " *   printf '3 2 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1\\n' "
          ">>w.swf\n"
          " *   respol simulate --config=respol.yaml --queue=@NAME@ "
          "--jobs=jobs.csv \\\n"
          " *     --generate=nodes=4,cores=1 --unit=node w.swf\n",
          "ACCESSORS",
          "queue services are in <respol/queue.h> and the\n"
          " * jobspec accessors in <respol/jobspec.h>",
          "INCLUDES",
          "#include <stdbool.h>\n#include <stdint.h>\n#include <stdlib.h>\n",
          "HEADERS",
          "#include <respol/queue.h>\n",
          "KEYS",
          "\"short\"",
          "STATE",
          "    double shrt; /* seconds */\n",
          "OPERATION",
          "priority or pass",
          "INIT",
          "    json_t *shrt = json_object_get (s->config (p), \"short\");\n"
          "    struct state *st;\n"
          "\n"
          "    svc = s;\n"
          "    if (shrt && (!json_is_integer (shrt) || json_integer_value (shrt) < 1))\n"
          "        return svc->error (p, \"short: must be a number of seconds >= 1\");\n"
          "    if (!(st = malloc (sizeof (*st))))\n"
          "        return svc->error (p, \"out of memory\");\n"
          "    st->shrt = shrt ? (double)json_integer_value (shrt) : 3600;\n",
          "FINI",
          "    free (svc->get_data (p));\n",
          "OPS",
          "/* The priority of a job as it is queued (js borrowed for the call): the\n"
          " * queue runs from the highest to the lowest, equal ones in submission\n"
          " * order.  A job with a duration of at most \"short\" seconds goes before\n"
          " * the others (a duration of 0 is none: unlimited). */\n"
          "static int priority (struct rp_plugin *p, const struct rp_jobspec *js,\n"
          "                     int64_t *prio)\n"
          "{\n"
          "    const struct state *st = svc->get_data (p);\n"
          "    double d = rp_jobspec_duration (js);\n"
          "\n"
          "    *prio = d > 0 && d <= st->shrt ? 1 : 0;\n"
          "    return 0;\n"
          "}\n"
          "\n"
          "/* One scheduling pass, at rp_queue_now (q), over the pending jobs in\n"
          " * queue order (0 is the head).  As written, EASY backfilling: jobs start\n"
          " * in order while they fit; the first that does not is given a\n"
          " * reservation (the earliest time it fits for its duration); a later job\n"
          " * starts only when it fits now without delaying it (the host refuses,\n"
          " * naming this plugin, a start that would).  The reservation is made\n"
          " * again by the next pass, so this one cancels it at its end.  Return 0,\n"
          " * or svc->error (p, ...) to stop the scheduler. */\n"
          "static int pass (struct rp_plugin *p, struct rp_queue *q)\n"
          "{\n"
          "    size_t n = rp_queue_count (q), head = 0;\n"
          "\n"
          "    (void)p;\n"
          "    for (; head < n; head++) {\n"
          "        int rc;\n"
          "\n"
          "        if (!rp_queue_job_pending (q, head))\n"
          "            continue;\n"
          "        if ((rc = rp_queue_start (q, head)) < 0)\n"
          "            return -1;\n"
          "        if (rc == RP_QUEUE_NO_ROOM)\n"
          "            break;\n"
          "    }\n"
          "    if (head == n)\n"
          "        return 0;\n"
          "    if (rp_queue_reserve (q, head, NULL) < 0)\n"
          "        return -1;\n"
          "    for (size_t k = head + 1; k < n; k++)\n"
          "        if (rp_queue_job_pending (q, k) && rp_queue_fits (q, k)\n"
          "            && rp_queue_start (q, k) < 0)\n"
          "            return -1;\n"
          "    return rp_queue_cancel (q, head);\n"
          "}\n"
          "\n"
          "static const struct rp_queue_ops ops = {\n"
          "    .size = sizeof (struct rp_queue_ops),\n"
          "    .priority = priority,\n"
          "    .pass = pass,\n"
          "};\n",
          "KIND_ID",
          "RP_PLUGIN_QUEUE",
          "DESCRIPTION",
          "short jobs first, EASY backfilling",
      } },
};
#define NSKELETONS (sizeof (skeletons) / sizeof (skeletons[0]))

/* --- options ------------------------------------------------------------ */

enum { OPT_HELP = 256, OPT_KIND, OPT_DIR };

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "kind", required_argument, NULL, OPT_KIND },
    { "dir", required_argument, NULL, OPT_DIR },
    { NULL, 0, NULL, 0 },
};

static const struct skeleton *find_kind (const char *kind)
{
    char hint[SUGGEST_MAX + 32];
    struct suggest s;

    suggest_init (&s, kind);
    for (size_t i = 0; i < NSKELETONS; i++) {
        if (!strcmp (kind, skeletons[i].kind))
            return &skeletons[i];
        suggest_add (&s, skeletons[i].kind, strlen (skeletons[i].kind), 0);
    }
    cmd_usage_error (SUB, "new: unknown kind '%s' (validate, match, shell, "
                     "property or queue)%s", kind,
                     suggest_hint (&s, "", hint, sizeof (hint)));
}

/* --- quoting ------------------------------------------------------------ */

static bool plain (const char *s, const char *extra)
{
    for (; *s; s++)
        if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z')
            && !(*s >= '0' && *s <= '9') && !strchr (extra, *s))
            return false;
    return true;
}

/* s as one sh word, in f. */
static void put_sh (FILE *f, const char *s)
{
    if (*s && plain (s, "/._-+,:=@%")) {
        fputs (s, f);
        return;
    }
    fputc ('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs ("'\\''", f);
        else
            fputc (*s, f);
    }
    fputc ('\'', f);
}

/* s as a YAML scalar, in f: plain when it is safe, else double-quoted
 * with \\, \" and \xNN escapes. */
static void put_yaml (FILE *f, const char *s)
{
    if (*s == '/' && plain (s, "/._-+")) {
        fputs (s, f);
        return;
    }
    fputc ('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf (f, "\\%c", c);
        else if (c < 0x20 || c == 0x7f)
            fprintf (f, "\\x%02x", c);
        else
            fputc (c, f);
    }
    fputc ('"', f);
}

/* --- writing ------------------------------------------------------------ */

/* The value of the len bytes at word in sk (name for NAME), or NULL. */
static const char *field (const struct skeleton *sk, const char *name,
                          const char *word, size_t len)
{
    if (len == 4 && !strncmp (word, "NAME", 4))
        return name;
    if (len == 4 && !strncmp (word, "KIND", 4))
        return sk->kind;
    if (len == 6 && !strncmp (word, "CONFIG", 6))
        return sk->config;
    for (size_t i = 0; sk->fields[i]; i += 2)
        if (strlen (sk->fields[i]) == len
            && !strncmp (sk->fields[i], word, len))
            return sk->fields[i + 1];
    return NULL;
}

/* text, each @WORD@ replaced by its value, into f; a value's own @NAME@
 * too (a kind's "try it" commands name the plugin), at depth 0 only. */
static void put_words (FILE *f, const struct skeleton *sk, const char *name,
                       const char *text, int depth)
{
    const char *s = text, *at, *end;

    while ((at = strchr (s, '@')) && (end = strchr (at + 1, '@'))) {
        const char *value = field (sk, name, at + 1, end - at - 1);
        if (!value || (depth > 0 && value != name)) {
            /* Not a word: keep the first '@' and go on after it. */
            fwrite (s, 1, at + 1 - s, f);
            s = at + 1;
            continue;
        }
        fwrite (s, 1, at - s, f);
        if (depth == 0 && value != name)
            put_words (f, sk, name, value, 1);
        else
            fputs (value, f);
        s = end + 1;
    }
    fputs (s, f);
}

/* The skeleton's text, each @WORD@ replaced by its value, into f. */
static void put_text (FILE *f, const struct skeleton *sk, const char *name)
{
    put_words (f, sk, name, skeleton_text, 0);
}

/* Write path (new) with sk's text; dies with a message. */
static void write_new (const char *path, const struct skeleton *sk,
                       const char *name)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    FILE *f;

    if (fd < 0 && errno == EEXIST)
        cmd_die (SUB, "new: %s exists: not overwriting it", path);
    if (fd < 0)
        cmd_die (SUB, "new: %s: %s", path, strerror (errno));
    if (!(f = fdopen (fd, "w"))) {
        int e = errno;
        close (fd);
        unlink (path);
        cmd_die (SUB, "new: %s: %s", path, strerror (e));
    }
    put_text (f, sk, name);
    if (ferror (f) | (fclose (f) != 0)) {
        int e = errno;
        unlink (path);
        cmd_die (SUB, "new: %s: write error: %s", path, strerror (e));
    }
}

/* DIR/NAME.EXT as given ("NAME.EXT" when DIR is "."), with "./" before a
 * path that would start with '-' (an option, to cc).  Caller frees. */
static char *path_of (const char *dir, const char *name, const char *ext)
{
    size_t len = strlen (dir);
    char *path;
    int rc;

    while (len > 1 && dir[len - 1] == '/')
        len--;
    if (!strcmp (dir, "."))
        rc = asprintf (&path, "%s%s.%s", name[0] == '-' ? "./" : "", name, ext);
    else
        rc =
            asprintf (&path, "%s%.*s%s%s.%s", dir[0] == '-' ? "./" : "",
                      (int)len, dir, dir[len - 1] == '/' ? "" : "/", name, ext);
    if (rc < 0)
        cmd_die (SUB, "out of memory");
    return path;
}

/* How to build it (the files as given) and enable it (the absolute path
 * of the .so). */
static void print_next (const char *dir, const char *name,
                        const struct skeleton *sk)
{
    char *c = path_of (dir, name, "c"), *so = path_of (dir, name, "so");
    char *real = realpath (dir, NULL), *abs;

    if (!real)
        cmd_die (SUB, "new: %s: %s", dir, strerror (errno));
    abs = path_of (real, name, "so");
    printf ("# wrote %s, a %s plugin; build it with:\n", c, sk->kind);
    fputs ("cc -shared -fPIC $(pkg-config --cflags respol) -o ", stdout);
    put_sh (stdout, so);
    putchar (' ');
    put_sh (stdout, c);
    printf ("\n# and enable it in respol.yaml with:\n%s:\n  - plugin: ",
            sk->kind);
    put_yaml (stdout, abs);
    printf ("\n    config: %s\n", sk->config);
    free (real);
    free (abs);
    free (so);
    free (c);
}

static int accept_all (struct rp_plugin *p, const struct rp_jobspec *js,
                       struct rp_validation *v)
{
    return RP_ACCEPT;
}

static int pass_none (struct rp_plugin *p, struct rp_queue *q)
{
    return 0;
}

/* Is name a plugin name, by the loader's own check of the descriptor the
 * skeleton will have?  Dies with the loader's message. */
static void check_name (const char *name, const struct skeleton *sk)
{
    static const struct rp_validate_ops vops = { .size = sizeof (vops),
                                                 .validate = accept_all };
    static const struct rp_match_ops mops = { .size = sizeof (mops) };
    static const struct rp_shell_ops sops = { .size = sizeof (sops) };
    static const struct rp_property_ops pops = { .size = sizeof (pops) };
    static const struct rp_queue_ops qops = { .size = sizeof (qops),
                                              .pass = pass_none };
    struct rp_plugin_desc d = {
        .abi_version = RP_PLUGIN_ABI_VERSION,
        .size = sizeof (d),
        .kind = sk->kind_id,
        .name = name,
        .ops = &vops,
    };
    rp_error_t error;

    if (sk->kind_id == RP_PLUGIN_MATCH)
        d.ops = &mops;
    else if (sk->kind_id == RP_PLUGIN_SHELL)
        d.ops = &sops;
    else if (sk->kind_id == RP_PLUGIN_PROPERTY)
        d.ops = &pops;
    else if (sk->kind_id == RP_PLUGIN_QUEUE)
        d.ops = &qops;
    if (rp_plugin_desc_check (&d, sk->kind_id, &error) < 0)
        cmd_die (SUB, "new: %s", error.text);
}

int cmd_plugin_new (int argc, char **argv, void (*usage) (FILE *f))
{
    const struct skeleton *sk = NULL;
    const char *dir = ".";
    char *c;
    int opt;

    optind = 0;
    opterr = 0;
    while ((opt = getopt_long (argc, argv, "h", opts, NULL)) != -1) {
        if (opt == 'h' || opt == OPT_HELP) {
            usage (stdout);
            exit (0);
        }
        if (opt == '?')
            cmd_bad_option (SUB, "new: ", opt, argv, "h", opts);
        if (opt == OPT_KIND)
            sk = find_kind (optarg);
        else
            dir = optarg;
    }
    if (!sk)
        cmd_usage_error (SUB, "new: --kind=validate|match|shell|property|queue is "
                         "required");
    if (optind == argc)
        cmd_usage_error (SUB, "new: missing NAME argument");
    if (optind + 1 < argc)
        cmd_usage_error (SUB, "new: unexpected argument '%s'",
                         argv[optind + 1]);
    if (!*dir)
        cmd_usage_error (SUB, "new: --dir must not be empty");
    check_name (argv[optind], sk);
    c = path_of (dir, argv[optind], "c");
    write_new (c, sk, argv[optind]);
    free (c);
    print_next (dir, argv[optind], sk);
    return 0;
}
