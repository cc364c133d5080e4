/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for the property plugin kind (respol/property.h): the
 * fixture plugin t/plugins/property-fixture.c does what its block says,
 * and the host's checks, the inventory's events and the operators are
 * watched from outside. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/constraint.h"
#include "respol/eventlog.h"
#include "respol/graph.h"
#include "respol/inventory.h"
#include "respol/property.h"
#include "t/tap/tap.h"

#include "core/test/fixtures.h"

static const char R4[] =
    "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-3\","
    "\"children\":{\"core\":\"0-7\"}}],\"nodelist\":[\"node[0-3]\"],"
    "\"properties\":{\"ssd\":\"2-3\",\"memory=512G\":\"0\","
    "\"memory=1T\":\"1\"}}}";

static char plugin[PATH_MAX];

/* A configuration of property entries, each {name?, config} as JSON
 * text: "[{\"config\": {...}}, ...]".  NULL on failure, with the
 * diagnostics in *first (first line). */
static struct rp_config *load (const char *entries, char *first, size_t size)
{
    json_t *a = json_loads (entries, 0, NULL);
    json_t *root = json_object ();
    struct rp_diags *d = rp_diags_create ();
    struct rp_config *cfg = NULL;
    size_t i;
    json_t *e;

    if (!a || !root || !d)
        BAIL_OUT ("out of memory or bad test entries: %s", entries);
    json_array_foreach (a, i, e) {
        json_object_set_new (e, "plugin", json_string (plugin));
    }
    json_object_set (root, "property", a);
    cfg = rp_config_load_json (root, "test", 0, d);
    if (first)
        snprintf (first, size, "%s",
                  rp_diags_count (d) ? rp_diags_text (d, 0) : "");
    json_decref (a);
    json_decref (root);
    rp_diags_destroy (d);
    return cfg;
}

static struct rp_inventory *inventory (void)
{
    struct rp_rset *R = rp_rset_decode (R4, NULL);
    struct rp_inventory *inv = R ? rp_inventory_create (R, NULL, NULL) : NULL;

    if (!inv)
        BAIL_OUT ("cannot make the inventory");
    rp_rset_destroy (R);
    return inv;
}

/* The targets of property name in inv's R, as an idset string ("" when
 * none). */
static const char *targets_of (const struct rp_inventory *inv, const char *name)
{
    static char buf[256];
    json_t *o = rp_rset_properties (rp_inventory_R (inv));
    const char *s = json_string_value (json_object_get (o, name));

    snprintf (buf, sizeof (buf), "%s", s ? s : "");
    json_decref (o);
    return buf;
}

/* Run a stack of entries over inv: the number of events, or -1 with the
 * message in error. */
static int annotate (struct rp_inventory *inv, const char *entries,
                     const json_t *hw, rp_error_t *error)
{
    char first[512];
    struct rp_config *cfg = load (entries, first, sizeof (first));
    int rc;

    if (!cfg)
        BAIL_OUT ("configuration %s does not load: %s", entries, first);
    rc = rp_inventory_annotate (inv, cfg, hw, 10, error);
    rp_config_destroy (cfg);
    return rc;
}

/* --- annotate ------------------------------------------------------------ */

static void test_annotate (void)
{
    struct rp_inventory *inv = inventory ();
    rp_error_t e;

    ok (annotate (inv,
                  "[{\"config\":{\"add\":{\"gpu\":\"0-1\",\"big\":\"all\"}}}]",
                  NULL, &e)
            == 1,
        "a first run logs one property-add event");
    is (targets_of (inv, "gpu"), "0-1", "gpu on 0-1");
    is (targets_of (inv, "big"), "0-3", "big on every target");
    ok (annotate (inv,
                  "[{\"config\":{\"add\":{\"gpu\":\"0-1\",\"big\":\"all\"}}}]",
                  NULL, &e)
            == 0,
        "the same run again logs nothing");
    ok (annotate (inv, "[{\"config\":{\"add\":{\"gpu\":\"0\"}}}]", NULL, &e)
            == 1,
        "saying less removes what the plugin no longer says (one event)");
    is (targets_of (inv, "gpu"), "0", "gpu on 0 only");
    is (targets_of (inv, "big"), "", "big gone");
    ok (annotate (inv, "[{\"config\":{\"add\":{\"ssd\":\"all\"}}}]", NULL, &e)
            == 2,
        "a property R configures on some targets is added on the others");
    is (targets_of (inv, "ssd"), "0-3", "ssd on every target");
    ok (annotate (inv, "[{\"config\":{}}]", NULL, &e) == 1,
        "saying nothing takes back only what the plugin added");
    is (targets_of (inv, "ssd"), "2-3", "R's ssd stays on 2-3");
    is (targets_of (inv, "gpu"), "", "gpu gone");
    ok (annotate (inv, "[]", NULL, &e) == 0, "an empty stack logs nothing");
    rp_inventory_destroy (inv);
}

static void test_remove (void)
{
    struct rp_inventory *inv = inventory ();
    rp_error_t e;

    ok (annotate (inv,
                  "[{\"config\":{\"add\":{\"gpu\":\"0-3\"},"
                  "\"remove\":{\"gpu\":\"2\"}}}]",
                  NULL, &e)
            == 1,
        "a plugin may take back what it said in the same run");
    is (targets_of (inv, "gpu"), "0-1,3", "gpu on 0-1,3");
    ok (annotate (inv, "[{\"config\":{\"remove\":{\"gpu\":\"0-1\"}}}]", NULL,
                  &e)
            == 1,
        "and what it added in an earlier run");
    is (targets_of (inv, "gpu"), "", "gpu gone");
    errno = 0;
    ok (annotate (inv, "[{\"config\":{\"remove\":{\"ssd\":\"2\"}}}]", NULL, &e)
                == -1
            && errno == EINVAL,
        "removing what R configures fails with EINVAL");
    is (e.text,
        "property plugin 'property-fixture': cannot remove property 'ssd' "
        "from rank 2: it did not add it",
        "the message names the plugin, the property and the target");
    ok (annotate (
            inv,
            "[{\"config\":{\"add\":{\"a\":\"0\"}}},"
            "{\"name\":\"other\",\"config\":{\"remove\":{\"a\":\"0-1\"}}}]",
            NULL, &e)
            == -1,
        "another instance cannot remove what the first said");
    is (e.text,
        "property plugin 'other': cannot remove property 'a' from ranks 0-1: "
        "it did not add it",
        "the message names that instance");
    is (targets_of (inv, "a"), "", "nothing of that run was logged");
    rp_inventory_destroy (inv);
}

struct rule_test {
    const char *what;
    const char *entries;
    int errnum;
    const char *error;
};

static const struct rule_test rule_tests[] = {
    { "a name with a space", "[{\"config\":{\"add\":{\"a b\":\"0\"}}}]", EINVAL,
      "property plugin 'property-fixture': property name \"a b\": illegal "
      "character ' ' at offset 1" },
    { "a name with '^'", "[{\"config\":{\"add\":{\"^x\":\"0\"}}}]", EINVAL,
      "property plugin 'property-fixture': property name \"^x\": illegal "
      "character '^' at offset 0" },
    { "an empty name", "[{\"config\":{\"add\":{\"\":\"0\"}}}]", EINVAL,
      "property plugin 'property-fixture': property name is empty" },
    { "a bad name to remove", "[{\"config\":{\"remove\":{\"a@\":\"0\"}}}]",
      EINVAL,
      "property plugin 'property-fixture': property name \"a@\": nothing "
      "after '@'" },
    { "targets not in the inventory",
      "[{\"config\":{\"add\":{\"gpu\":\"3-9\"}}}]", EINVAL,
      "property plugin 'property-fixture': property 'gpu': ranks 4-9 are not "
      "in the inventory" },
    { "annotate fails with a message", "[{\"config\":{\"fail\":\"no luck\"}}]",
      EPROTO, "property plugin 'property-fixture': annotate: no luck" },
    { "annotate fails without one", "[{\"config\":{\"fail\":\"!\"}}]", EPROTO,
      "property plugin 'property-fixture': annotate returned -1 (no "
      "message)" },
    { "the first plugin that fails stops the run",
      "[{\"config\":{\"add\":{\"x\":\"0\"}}},{\"name\":\"second\","
      "\"config\":{\"fail\":\"second\"}},{\"name\":\"third\",\"config\":"
      "{\"fail\":\"third\"}}]",
      EPROTO, "property plugin 'second': annotate: second" },
};

static void test_rules (void)
{
    for (size_t i = 0; i < sizeof (rule_tests) / sizeof (rule_tests[0]); i++) {
        const struct rule_test *t = &rule_tests[i];
        struct rp_inventory *inv = inventory ();
        rp_error_t e;

        errno = 0;
        ok (annotate (inv, t->entries, NULL, &e) == -1 && errno == t->errnum,
            "%s: fails (errno)", t->what);
        is (e.text, t->error, "%s: message", t->what);
        ok (rp_inventory_nevents (inv) == 0
                && !strcmp (targets_of (inv, "x"), ""),
            "%s: nothing logged", t->what);
        rp_inventory_destroy (inv);
    }
}

/* Two instances: the second does not own what the first added, and adds
 * it when the first no longer says it. */
static void test_two_instances (void)
{
    struct rp_inventory *inv = inventory ();
    rp_error_t e;

    ok (annotate (inv,
                  "[{\"config\":{\"add\":{\"a\":\"0-1\"}}},"
                  "{\"name\":\"b\",\"config\":{\"add\":{\"a\":\"1-2\"}}}]",
                  NULL, &e)
            == 2,
        "two instances: each adds what no target had");
    is (targets_of (inv, "a"), "0-2", "a on 0-2");
    ok (annotate (inv,
                  "[{\"config\":{}},"
                  "{\"name\":\"b\",\"config\":{\"add\":{\"a\":\"1-2\"}}}]",
                  NULL, &e)
            == 2,
        "the first says nothing: its part goes, the second adds rank 1");
    is (targets_of (inv, "a"), "1-2", "a on 1-2");
    rp_inventory_destroy (inv);
}

/* --- the event log -------------------------------------------------------- */

static int lines_with (const char *path, const char *text)
{
    char line[4096];
    FILE *f = fopen (path, "r");
    int n = 0;

    while (f && fgets (line, sizeof (line), f))
        if (strstr (line, text))
            n++;
    if (f)
        fclose (f);
    return n;
}

static void test_log (void)
{
    char dir[PATH_MAX], log[PATH_MAX + 16];
    struct rp_rset *R = rp_rset_decode (R4, NULL);
    struct rp_inventory *inv;
    rp_error_t e;

    snprintf (dir, sizeof (dir), "%s/state", tmpdir);
    snprintf (log, sizeof (log), "%s/eventlog", dir);
    if (!R || !(inv = rp_inventory_open (dir, RP_INVENTORY_WRITE, NULL, &e))
        || rp_inventory_define (inv, R, NULL, "configuration", 5, NULL, &e) < 0)
        BAIL_OUT ("cannot make the state directory");
    ok (annotate (inv, "[{\"config\":{\"add\":{\"gpu\":\"0-1\"}}}]", NULL, &e)
            == 1,
        "logged: one event");
    ok (lines_with (log, "{\"timestamp\":10.0,\"name\":\"property-add\","
                         "\"context\":{\"properties\":{\"gpu\":\"0-1\"},"
                         "\"plugin\":\"property-fixture\"}}")
            == 1,
        "a property-add event with the instance as plugin");
    rp_inventory_destroy (inv);
    inv = rp_inventory_open (dir, RP_INVENTORY_WRITE, NULL, &e);
    ok (inv && !strcmp (targets_of (inv, "gpu"), "0-1"),
        "replayed: gpu on 0-1");
    ok (inv
            && annotate (inv, "[{\"config\":{\"add\":{\"gpu\":\"0-1\"}}}]",
                         NULL, &e)
                   == 0,
        "replayed: the plugin owns it, a run logs nothing");
    ok (inv && rp_inventory_compact (inv, 20, NULL, NULL, &e) == 0,
        "compacted");
    ok (lines_with (log, "\"plugin\":\"property-fixture\"") == 1,
        "the compacted log keeps who added it");
    rp_inventory_destroy (inv);
    inv = rp_inventory_open (dir, RP_INVENTORY_WRITE, NULL, &e);
    ok (inv
            && annotate (inv, "[{\"config\":{\"remove\":{\"gpu\":\"all\"}}}]",
                         NULL, &e)
                   == 1,
        "after compaction and a restart the plugin may still remove it");
    ok (lines_with (log, "\"name\":\"property-remove\",\"context\":"
                         "{\"properties\":{\"gpu\":\"0-1\"},\"plugin\":"
                         "\"property-fixture\"}")
            == 1,
        "a property-remove event with the instance as plugin");
    ok (inv
            && rp_inventory_property_add (inv, "gpu", rp_rset_ranks (R), 30, &e)
                   == 0,
        "an administrator adds gpu everywhere");
    ok (inv
            && annotate (inv, "[{\"config\":{\"remove\":{\"gpu\":\"0\"}}}]",
                         NULL, &e)
                   == -1,
        "the plugin cannot remove the administrator's");
    rp_inventory_destroy (inv);
    rp_rset_destroy (R);
}

static void test_replay_checks (void)
{
    char dir[PATH_MAX], log[PATH_MAX + 16], want[2 * PATH_MAX];
    struct rp_inventory *inv;
    rp_error_t e;
    FILE *f;

    snprintf (dir, sizeof (dir), "%s/hostile", tmpdir);
    snprintf (log, sizeof (log), "%s/eventlog", dir);
    if (!(inv = rp_inventory_open (dir, RP_INVENTORY_WRITE, NULL, &e)))
        BAIL_OUT ("%s", e.text);
    rp_inventory_destroy (inv);
    if (!(f = fopen (log, "w")))
        BAIL_OUT ("%s", log);
    fprintf (f,
             "{\"timestamp\":1,\"name\":\"resource-define\",\"context\":"
             "{\"method\":\"configuration\",\"R\":%s,\"exclude\":\"\"}}\n"
             "{\"timestamp\":2,\"name\":\"property-add\",\"context\":"
             "{\"properties\":{\"a\":\"0\"},\"plugin\":7}}\n",
             R4);
    fclose (f);
    ok (rp_inventory_open (dir, 0, NULL, &e) == NULL,
        "replay: a plugin that is not a string is an error");
    snprintf (want, sizeof (want),
              "%s:2: property-add: plugin: must be a non-empty string", log);
    is (e.text, want, "replay: the message names the line and the key");
}

/* --- operators ------------------------------------------------------------ */

/* Compile text (JSON): NULL with the message in e. */
static struct rp_constraint *compile (const char *text, rp_error_t *e)
{
    json_t *o = json_loads (text, 0, NULL);
    struct rp_constraint *c;

    if (!o)
        BAIL_OUT ("bad test constraint %s", text);
    c = rp_constraint_compile (o, e);
    json_decref (o);
    return c;
}

/* The ranks of R4 that text matches, as an idset string. */
static const char *matching (const char *text)
{
    static char buf[64];
    struct rp_rset *R = rp_rset_decode (R4, NULL);
    rp_error_t e;
    struct rp_constraint *c = compile (text, &e);
    struct rp_rset *f = c && R ? rp_constraint_filter_rset (c, R, &e) : NULL;
    char *s = f ? rp_idset_encode (rp_rset_ranks (f), RP_IDSET_RANGES) : NULL;

    snprintf (buf, sizeof (buf), "%s", s ? s : e.text);
    free (s);
    rp_rset_destroy (f);
    rp_constraint_destroy (c);
    rp_rset_destroy (R);
    return buf;
}

static void test_values (void)
{
    struct rp_rset *R = rp_rset_decode (R4, NULL);

    is (rp_rset_property_value (R, 0, "memory"), "512G",
        "rp_rset_property_value: rank 0's memory");
    is (rp_rset_property_value (R, 1, "memory"), "1T",
        "rp_rset_property_value: rank 1's memory");
    ok (rp_rset_property_value (R, 2, "memory") == NULL,
        "rp_rset_property_value: rank 2 has none");
    ok (rp_rset_property_value (R, 0, "mem") == NULL,
        "rp_rset_property_value: a key is the whole text before '='");
    ok (rp_rset_property_value (R, 0, "") == NULL
            && rp_rset_property_value (R, 0, NULL) == NULL
            && rp_rset_property_value (NULL, 0, "memory") == NULL,
        "rp_rset_property_value: empty or NULL key, NULL set");
    rp_rset_destroy (R);
}

static void test_graph_values (void)
{
    struct rp_graph *g = rp_graph_decode_rset (R4, NULL);
    rp_vertex_t v0 = g ? rp_graph_rank_vertex (g, 0) : RP_VERTEX_NONE;
    rp_vertex_t v2 = g ? rp_graph_rank_vertex (g, 2) : RP_VERTEX_NONE;
    rp_error_t e;

    is (rp_graph_vertex_property_value (g, v0, "memory"), "512G",
        "a graph from R: the node's value from its property memory=512G");
    ok (rp_graph_vertex_property_value (g, v2, "memory") == NULL,
        "a graph from R: none where R has none");
    ok (rp_graph_vertex_property_value (g, v2, "") == NULL
            && rp_graph_vertex_property_value (NULL, v2, "memory") == NULL,
        "empty key, NULL graph: NULL");
    rp_graph_destroy (g);
    g = rp_graph_create ();
    v0 = g ? rp_graph_add_vertex (g, "node", NULL, 0, 1, NULL, &e)
           : RP_VERTEX_NONE;
    ok (v0 != RP_VERTEX_NONE
            && rp_graph_add_property (g, v0, "memory", "2T", &e) == 0
            && rp_graph_add_property (g, v0, "memory=1T", NULL, &e) == 0
            && rp_graph_finalize (g, &e) == 0,
        "a graph property with a value (as JGF has them)");
    is (rp_graph_vertex_property_value (g, v0, "memory"), "2T",
        "is the vertex's value, before a KEY=VALUE name");
    rp_graph_destroy (g);
}

static void test_operators (void)
{
    char first[512];
    struct rp_config *cfg =
        load ("[{\"config\":{\"operator\":\"fx\"}}]", first, sizeof (first));
    struct rp_config *again;
    rp_error_t e;
    json_t *q;
    char *s;

    if (!ok (cfg != NULL, "a plugin that adds an operator loads"))
        diag ("%s", first);
    is (matching ("{\"fx\": [\"ssd\"]}"), "2-3",
        "the operator matches through the plugin (a property)");
    is (matching ("{\"fx\": [\"memory\", \"1T\"]}"), "1",
        "and reads valued properties");
    is (matching ("{\"not\": [{\"fx\": [\"memory\", \"1T\"]}]}"), "0,2-3",
        "it nests like any operator");
    is (matching ("{\"and\": [{\"ranks\": [\"0-3\"]}, {\"fx\": [1]}]}"),
        "constraint: and[1].fx: wants [KEY] or [KEY, VALUE]",
        "a value its compile refuses: the plugin's message at the path");
    is (matching ("{\"fx\": \"ssd\"}"),
        "constraint: fx: values must be an array",
        "values must still be an array");
    q = rp_constraint_query_parse ("fx:memory ssd", &e);
    s = q ? json_dumps (q, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    is (s ? s : e.text,
        "{\"and\":[{\"fx\":[\"memory\"]},{\"properties\":[\"ssd\"]}]}",
        "the query syntax takes OPERATOR:VALUE for it");
    free (s);
    json_decref (q);

    again = load ("[{\"name\":\"two\",\"config\":{\"operator\":\"fx\"}}]",
                  first, sizeof (first));
    ok (again == NULL, "a second instance cannot add the same operator");
    is (first,
        "test: property[0] 'two': init failed: operator 'fx' is already added "
        "by 'property-fixture'",
        "the message names who has it");
    rp_config_destroy (again);
    rp_config_destroy (cfg);
    is (matching ("{\"fx\": [\"ssd\"]}"), "constraint: unknown operator 'fx'",
        "unloaded, the operator is gone");
    ok (rp_constraint_query_parse ("fx:ssd", &e) == NULL,
        "and the query syntax no longer knows it");
    is (e.text,
        "constraint query: \"fx:ssd\": unknown operator 'fx' at offset 0",
        "query message");
}

struct init_test {
    const char *what;
    const char *entries;
    const char *error;
};

static const struct init_test init_tests[] = {
    { "a built-in name", "[{\"config\":{\"operator\":\"and\"}}]",
      "test: property[0] 'property-fixture': init failed: operator 'and' is "
      "built in" },
    { "properties is built in too",
      "[{\"config\":{\"operator\":\"properties\"}}]",
      "test: property[0] 'property-fixture': init failed: operator "
      "'properties' is built in" },
    { "a name with a space", "[{\"config\":{\"operator\":\"a b\"}}]",
      "test: property[0] 'property-fixture': init failed: invalid operator "
      "name 'a b' (letters, digits, '-' and '_', 1-64 bytes)" },
    { "an empty name", "[{\"config\":{\"operator\":\"\"}}]",
      "test: property[0] 'property-fixture': init failed: invalid operator "
      "name '' (letters, digits, '-' and '_', 1-64 bytes)" },
    { "an operator without match", "[{\"config\":{\"no-match\":\"nm\"}}]",
      "test: property[0] 'property-fixture': init failed: operator 'nm' has "
      "no compile or no match" },
};

static void test_operator_errors (void)
{
    for (size_t i = 0; i < sizeof (init_tests) / sizeof (init_tests[0]); i++) {
        char first[512];
        struct rp_config *cfg =
            load (init_tests[i].entries, first, sizeof (first));
        ok (cfg == NULL, "%s: the load fails", init_tests[i].what);
        is (first, init_tests[i].error, "%s: message", init_tests[i].what);
        rp_config_destroy (cfg);
    }
    errno = 0;
    ok (rp_property_add_operator (NULL, "x", NULL, NULL) < 0 && errno == EINVAL,
        "rp_property_add_operator (NULL): EINVAL");
}

static void test_late_operator (void)
{
    struct rp_inventory *inv = inventory ();
    rp_error_t e;

    ok (annotate (inv, "[{\"config\":{\"late\":\"fx\"}}]", NULL, &e) == -1,
        "an operator added in annotate fails the run");
    is (e.text,
        "property plugin 'property-fixture': annotate: operators are added in "
        "init only, by property plugins",
        "with the host's message as the plugin's");
    errno = 0;
    ok (rp_inventory_annotate (NULL, NULL, NULL, 1, &e) == -1
            && errno == EINVAL,
        "rp_inventory_annotate (NULL): EINVAL");
    is (e.text, "inventory: bad arguments", "message");
    rp_inventory_destroy (inv);
    inv = rp_inventory_open (tmpdir, 0, NULL, &e);
    errno = 0;
    ok (inv && rp_inventory_annotate (inv, NULL, NULL, 1, &e) == -1
            && errno == ENOENT,
        "an inventory without resources: ENOENT");
    is (e.text, "no resources defined", "message");
    rp_inventory_destroy (inv);
}

/* --- hardware --------------------------------------------------------------
 */

static json_t *facts_of (const char *topology)
{
    char path[PATH_MAX];
    rp_error_t e;
    json_t *o;

    snprintf (path, sizeof (path), "%s/t/data/topologies/%s.xml",
              getenv ("RESPOL_SRCDIR"), topology);
    if (!(o = rp_hardware_from_hwloc (path, &e)))
        diag ("%s", e.text);
    return o;
}

/* facts has n GPUs, each of them gpu (compact JSON). */
static bool gpus_are (const json_t *facts, size_t n, const char *gpu)
{
    const json_t *a = json_object_get (facts, "gpus");
    size_t i;
    json_t *g;

    if (json_array_size (a) != n)
        return false;
    json_array_foreach (a, i, g) {
        char *s = json_dumps (g, JSON_COMPACT);
        bool same = s && !strcmp (s, gpu);
        free (s);
        if (!same)
            return false;
    }
    return true;
}

static void test_hardware (void)
{
    json_t *q = facts_of ("cts1-quartz-smt1");
    json_t *t = facts_of ("eas-tioga");
    json_t *l = facts_of ("coral-lassen");
    json_t *hw = json_pack ("{s:O}", "2", t);
    struct rp_inventory *inv = inventory ();
    rp_error_t e;
    char *s;

    s = q ? json_dumps (q, JSON_SORT_KEYS | JSON_COMPACT) : NULL;
    is (s,
        "{\"cores\":36,\"cpu-model\":\"Intel(R) Xeon(R) CPU E5-2695 v4 @ "
        "2.10GHz\",\"cpu-vendor\":\"GenuineIntel\",\"gpus\":[],"
        "\"memory\":134758404096,\"numa\":2,\"packages\":2,\"pus\":36}",
        "quartz: CPU, counts, memory, no GPU");
    free (s);
    is (json_string_value (json_object_get (t, "cpu-model")),
        "AMD EPYC 7A53 64-Core Processor",
        "tioga: the model without its trailing blanks");
    ok (gpus_are (t, 8,
                  "{\"vendor\":\"amd\",\"model\":\"AMD INSTINCT MI200 (MCM) "
                  "OAM LC MBA HPE C2\"}"),
        "tioga: 8 AMD GPUs with their model");
    ok (gpus_are (l, 4,
                  "{\"vendor\":\"nvidia\",\"model\":\"Tesla "
                  "V100-SXM2-16GB\"}"),
        "lassen: 4 NVIDIA GPUs (one per device, not per backend)");
    ok (l && !json_object_get (l, "cpu-vendor"),
        "lassen: POWER9 has no CPUVendor: the key is absent");
    ok (rp_hardware_from_hwloc ("/nonexistent.xml", &e) == NULL,
        "a missing file fails");
    is (e.text,
        "hwloc: /nonexistent.xml: cannot load topology: No such file or "
        "directory",
        "its message");
    ok (annotate (inv, "[{\"config\":{\"hardware\":\"cores\"}}]", hw, &e) == 1,
        "a plugin reads the facts the host gives for a target");
    is (targets_of (inv, "cores=64"), "2", "cores=64 on rank 2, tioga's");
    json_decref (q);
    json_decref (t);
    json_decref (l);
    json_decref (hw);
    rp_inventory_destroy (inv);
}

int main (void)
{
    plan (NO_PLAN);
    fixtures_setup ("respol-test-property");
    snprintf (plugin, sizeof (plugin), "%s/property-fixture.so", fixdir);
    test_annotate ();
    test_remove ();
    test_rules ();
    test_two_instances ();
    test_log ();
    test_replay_checks ();
    test_values ();
    test_graph_values ();
    test_operators ();
    test_operator_errors ();
    test_late_operator ();
    test_hardware ();
    fixtures_cleanup ();
    done_testing ();
}
