/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The resource acquisition protocol (RFC 28, core/acquire.c) and what the
 * matcher does for it (core/match.c: hello, removed targets, properties
 * that change):
 * - protocol tables: the exact bytes of the initial response and of the
 *   response after each kind of change, every key of every response;
 *   shrink targets also in down; properties; expiration;
 * - the RFC's own examples, its typo ("shink") included;
 * - the consumer: never allocates down, drained or removed targets, keeps
 *   jobs on a target that goes down, sees property changes at once,
 *   decides satisfiability on the full set less removed; its errors;
 * - RFC 27 hello: allocations rebuilt exactly, on down targets too; a
 *   hello naming resources that do not exist names the job. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "respol/acquire.h"
#include "respol/inventory.h"
#include "respol/jobspec.h"
#include "respol/match.h"
#include "t/tap/tap.h"

static struct rp_idset *ids (const char *s)
{
    static struct rp_idset *keep[64];
    static int k;
    struct rp_idset *i = rp_idset_decode (s, NULL);

    if (!i)
        BAIL_OUT ("idset %s", s);
    rp_idset_destroy (keep[k % 64]);
    keep[k++ % 64] = i;
    return i;
}

static struct rp_rset *rset (const char *s)
{
    rp_error_t e;
    struct rp_rset *R = rp_rset_decode (s, &e);

    if (!R)
        BAIL_OUT ("R: %s", e.text);
    return R;
}

static char *encode (const json_t *o)
{
    static char buf[8][4096];
    static int k;
    char *s = o ? rp_acquire_encode (o) : NULL;
    char *b = buf[k++ % 8];

    snprintf (b, 4096, "%s", s ? s : "(none)");
    free (s);
    return b;
}

/* The next response as text, "(none)" when nothing changed. */
static const char *next (struct rp_acquire_producer *p,
                         const struct rp_inventory *inv)
{
    static rp_error_t e;
    json_t *o = NULL;
    int rc = rp_acquire_producer_next (p, inv, &o, &e);
    const char *s = rc < 0 ? e.text : encode (o);

    json_decref (o);
    return s;
}

#define R4                                                                     \
    "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-1\","             \
    "\"children\":{\"core\":\"0-3\",\"gpu\":\"0\"}},{\"rank\":\"2-3\","        \
    "\"children\":{\"core\":\"0-3\"}}],\"starttime\":0,\"expiration\":0,"      \
    "\"nodelist\":[\"node[0-3]\"],\"properties\":{\"fast\":\"2-3\"}}}"

/* --- producer --------------------------------------------------------------
 */

static void test_producer (void)
{
    struct rp_rset *R = rset (R4);
    struct rp_inventory *inv = rp_inventory_create (R, ids ("0"), NULL);
    struct rp_acquire_producer *p = rp_acquire_producer_create ();
    rp_error_t e;
    json_t *first;
    json_t *o = NULL;

    ok (rp_acquire_producer_next (p, inv, &o, &e) < 0 && errno == EINVAL,
        "no later response before the initial one");
    rp_inventory_drain (inv, ids ("1"), "x", RP_DRAIN_DEFAULT, 10, &e);
    first = rp_acquire_producer_first (p, inv, &e);
    is (encode (first),
        "{\"resources\":{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
        "\"1\",\"children\":{\"core\":\"0-3\",\"gpu\":\"0\"}},{\"rank\":"
        "\"2-3\",\"children\":{\"core\":\"0-3\"}}],\"starttime\":0.0,"
        "\"expiration\":0.0,\"nodelist\":[\"node[1-3]\"],\"properties\":{"
        "\"fast\":\"2-3\"}}},\"up\":\"2-3\"}",
        "initial: resources less the excluded target, up less the drained "
        "one, keys in flux-core's order");
    ok (json_object_size (first) == 2, "the initial response has two keys");
    json_decref (first);
    is (next (p, inv), "(none)", "nothing changed, nothing to say");

    static const struct {
        const char *op;
        const char *arg;
        const char *response;
    } steps[] = {
        { "drain", "2", "{\"down\":\"2\"}" },
        { "undrain", "2", "{\"up\":\"2\"}" },
        { "undrain", "1", "{\"up\":\"1\"}" },
        { "down", "1-2", "{\"down\":\"1-2\"}" },
        { "up", "2", "{\"up\":\"2\"}" },
        { "drain", "2", "{\"down\":\"2\"}" },
        { "down", "2", "(none)" },    /* already down to a scheduler */
        { "undrain", "2", "(none)" }, /* still down */
        { "up", "2", "{\"up\":\"2\"}" },
        { "shrink", "3", "{\"down\":\"3\",\"shrink\":\"3\"}" },
        { "shrink", "1", "{\"down\":\"1\",\"shrink\":\"1\"}" },
        { "property-add", "big:0,2", "{\"property-add\":{\"big\":\"2\"}}" },
        { "property-add", "fast:2", "(none)" },
        { "property-remove", "fast:2",
          "{\"property-remove\":{\"fast\":\"2\"}}" },
        { "property-add", "amd@gpu:2",
          "{\"property-add\":{\"amd@gpu\":\"2\"}}" },
        { "property-remove", "amd:2",
          "{\"property-remove\":{\"amd@gpu\":\"2\"}}" },
        { "expire", "5000.5", "{\"expiration\":5000.5}" },
        { "expire", "5000.5", "(none)" },
        { "expire", "0", "{\"expiration\":0.0}" },
        { "drain", "0", "rank 0 excluded" },
    };
    for (size_t i = 0; i < sizeof (steps) / sizeof (steps[0]); i++) {
        const char *op = steps[i].op, *arg = steps[i].arg;
        char name[64] = "";
        const char *t = arg;
        int rc;
        if (strchr (arg, ':')) {
            snprintf (name, sizeof (name), "%.*s",
                      (int)(strchr (arg, ':') - arg), arg);
            t = strchr (arg, ':') + 1;
        }
        if (!strcmp (op, "drain"))
            rc = rp_inventory_drain (inv, ids (t), "r", RP_DRAIN_DEFAULT, 20,
                                     &e);
        else if (!strcmp (op, "undrain"))
            rc = rp_inventory_undrain (inv, ids (t), NULL, RP_DRAIN_DEFAULT, 20,
                                       &e);
        else if (!strcmp (op, "down") || !strcmp (op, "up"))
            rc = rp_inventory_set_up (inv, ids (t), !strcmp (op, "up"), 20, &e);
        else if (!strcmp (op, "shrink"))
            rc = rp_inventory_shrink (inv, ids (t), 20, &e);
        else if (!strcmp (op, "property-add"))
            rc = rp_inventory_property_add (inv, name, ids (t), 20, &e);
        else if (!strcmp (op, "property-remove"))
            rc = rp_inventory_property_remove (inv, name, ids (t), 20, &e);
        else
            rc = rp_inventory_expire (inv, atof (t), 20, &e);
        if (rc < 0) {
            is (e.text, steps[i].response, "%s %s fails", op, arg);
            continue;
        }
        is (next (p, inv), steps[i].response, "%s %s: %s", op, arg,
            steps[i].response);
    }
    rp_acquire_producer_destroy (p);
    rp_inventory_destroy (inv);
    rp_rset_destroy (R);
}

/* Keys of one response, in order, and the type of each. */
static void test_keys (void)
{
    struct rp_rset *R = rset (R4);
    struct rp_inventory *inv = rp_inventory_create (R, NULL, NULL);
    struct rp_acquire_producer *p = rp_acquire_producer_create ();
    json_t *first = rp_acquire_producer_first (p, inv, NULL);
    json_t *o = NULL;
    const char *key;
    json_t *v;
    char order[256] = "";
    bool types = true;

    rp_inventory_set_up (inv, ids ("0"), false, 1, NULL);
    rp_inventory_drain (inv, ids ("1"), NULL, RP_DRAIN_DEFAULT, 1, NULL);
    rp_inventory_shrink (inv, ids ("1"), 1, NULL);
    rp_inventory_set_up (inv, ids ("0"), true, 1, NULL);
    rp_inventory_set_up (inv, ids ("2"), false, 1, NULL);
    rp_inventory_property_add (inv, "p", ids ("0"), 1, NULL);
    rp_inventory_property_remove (inv, "fast", ids ("3"), 1, NULL);
    rp_inventory_expire (inv, 77, 1, NULL);
    ok (rp_acquire_producer_next (p, inv, &o, NULL) == 1,
        "several changes at once make one response");
    json_object_foreach (o, key, v) {
        strcat (order, key);
        strcat (order, " ");
        if (!strcmp (key, "expiration"))
            types &= json_is_real (v);
        else if (!strncmp (key, "property-", 9))
            types &= json_is_object (v);
        else
            types &= json_is_string (v);
    }
    is (order, "down shrink property-add property-remove expiration ",
        "every later key, in the order flux-core and the RFC give");
    ok (types, "idsets are strings, properties objects, expiration a real");
    is (encode (o),
        "{\"down\":\"1-2\",\"shrink\":\"1\",\"property-add\":{\"p\":\"0\"},"
        "\"property-remove\":{\"fast\":\"3\"},\"expiration\":77.0}",
        "rank 0 went down and up again: not named; 1 is in down and shrink");
    json_decref (o);
    json_decref (first);
    rp_acquire_producer_destroy (p);
    rp_inventory_destroy (inv);
    rp_rset_destroy (R);
}

static void test_redefine (void)
{
    struct rp_rset *R = rset (R4);
    struct rp_rset *R3 = rset (
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-2\","
        "\"children\":{\"core\":\"0-3\"}}],\"starttime\":0,\"expiration\":0,"
        "\"nodelist\":[\"node[0-2]\"]}}");
    struct rp_inventory *inv = rp_inventory_create (R, NULL, NULL);
    struct rp_acquire_producer *p = rp_acquire_producer_create ();
    json_t *first = rp_acquire_producer_first (p, inv, NULL);

    rp_inventory_define (inv, R3, ids ("1"), "configuration", 5, NULL, NULL);
    is (next (p, inv),
        "{\"down\":\"1,3\",\"shrink\":\"3\",\"property-remove\":{\"fast\":"
        "\"2\"}}",
        "redefined: an excluded target goes down, one no longer in R is "
        "removed, properties follow the new R");
    json_decref (first);
    rp_acquire_producer_destroy (p);
    rp_inventory_destroy (inv);
    rp_rset_destroy (R);
    rp_rset_destroy (R3);
}

/* --- consumer --------------------------------------------------------------
 */

/* RFC 28's examples. */
static const char *rfc_initial =
    "{\"resources\":{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
    "\"0-5\",\"children\":{\"core\":\"0-5\",\"gpu\":\"0\"}}],\"starttime\":0,"
    "\"expiration\":0,\"nodelist\":[\"host[0-5]\"]}},\"up\":\"0-2\"}";
static const char *rfc_update =
    "{\"up\":\"3-6\",\"down\":\"2,6\",\"shink\":\"6\",\"property-add\":{"
    "\"foo\":\"0-1\"},\"property-remove\":{\"bar\":\"3\"}}";

static struct rp_acquire_consumer *consumer (const char *s)
{
    json_t *o = json_loads (s, 0, NULL);
    rp_error_t e;
    struct rp_acquire_consumer *c = rp_acquire_consumer_create (o, &e);

    if (!c)
        diag ("%s", e.text);
    json_decref (o);
    return c;
}

static int apply (struct rp_acquire_consumer *c, const char *s, rp_error_t *e)
{
    json_t *o = json_loads (s, 0, NULL);
    int rc;

    if (!o)
        BAIL_OUT ("not JSON: %s", s);
    rc = rp_acquire_consumer_apply (c, o, e);
    json_decref (o);
    return rc;
}

static void test_rfc_examples (void)
{
    struct rp_acquire_consumer *c = consumer (rfc_initial);
    rp_error_t e;

    ok (c != NULL, "RFC 28's initial response");
    ok (c && rp_idset_equal (rp_acquire_consumer_up (c), ids ("0-2")),
        "up 0-2");
    ok (apply (c, rfc_update, &e) < 0, "RFC 28's later example");
    is (e.text, "unknown key 'shink'",
        "is refused for its typo (shink), and the reason says so");
    ok (rp_idset_equal (rp_acquire_consumer_up (c), ids ("0-2")),
        "and changed nothing");
    ok (apply (c,
               "{\"up\":\"3-6\",\"down\":\"2,6\",\"shrink\":\"6\","
               "\"property-add\":{\"foo\":\"0-1\"},\"property-remove\":{"
               "\"bar\":\"3\"}}",
               &e)
            < 0,
        "with shrink spelled right, it names rank 6, which the RFC's initial "
        "example (ranks 0-5) does not have");
    is (e.text, "up: rank 6 is not in the resources", "refused, and said so");
    ok (apply (c,
               "{\"up\":\"3-5\",\"down\":\"2,5\",\"shrink\":\"5\","
               "\"property-add\":{\"foo\":\"0-1\"},\"property-remove\":{"
               "\"bar\":\"3\"}}",
               &e)
            == 0,
        "with 5 for 6 it applies");
    ok (rp_idset_equal (rp_acquire_consumer_up (c), ids ("0-1,3-4")),
        "up: 0-1,3-4 (2 down; 5 in up, down and shrink: shrink wins)");
    ok (rp_idset_equal (rp_acquire_consumer_removed (c), ids ("5")),
        "5 removed");
    ok (rp_rset_has_property (rp_acquire_consumer_resources (c), 1, "foo")
            && !rp_rset_has_property (rp_acquire_consumer_resources (c), 2,
                                      "foo"),
        "foo on 0-1");
    rp_acquire_consumer_destroy (c);
}

static void test_consumer_errors (void)
{
    static const struct {
        const char *response;
        const char *error;
    } bad[] = {
        { "{}", "an empty response" },
        { "[]", "a response must be an object" },
        { "{\"up\":\"9\"}", "up: rank 9 is not in the resources" },
        { "{\"down\":\"4-9\"}", "down: ranks 6-9 are not in the resources" },
        { "{\"down\":3}", "down: must be an idset string" },
        { "{\"down\":\"3,2\"}",
          "down: idset: \"3,2\": ids not ascending at offset 2" },
        { "{\"up\":\"1\",\"down\":\"1\"}", "rank 1 is both up and down" },
        { "{\"up\":\"5\"}", "up: rank 5 was removed" },
        { "{\"resources\":{}}", "resources: only in the initial response" },
        { "{\"expiration\":-1}", "expiration: must be a number >= 0" },
        { "{\"expiration\":\"x\"}", "expiration: must be a number >= 0" },
        { "{\"property-add\":[]}", "property-add: must be an object" },
        { "{\"property-add\":{\"a b\":\"1\"}}",
          "property-add: property name \"a b\": illegal character ' ' at "
          "offset 1" },
        { "{\"property-remove\":{\"a\":\"7\"}}",
          "property-remove: a: rank 7 is not in the resources" },
    };
    struct rp_acquire_consumer *c = consumer (rfc_initial);
    rp_error_t e;

    ok (apply (c, "{\"down\":\"5\",\"shrink\":\"5\"}", &e) == 0, "shrink 5");
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        e.text[0] = '\0';
        ok (apply (c, bad[i].response, &e) < 0, "%s is refused",
            bad[i].response);
        is (e.text, bad[i].error, "with '%s'", bad[i].error);
    }
    ok (rp_idset_equal (rp_acquire_consumer_up (c), ids ("0-2")),
        "refused responses changed nothing");
    ok (apply (c, "{\"down\":\"5\"}", &e) == 0,
        "down of a removed target is accepted (nothing changes)");
    ok (apply (c, "{\"shrink\":\"4\"}", &e) == 0
            && rp_idset_equal (rp_acquire_consumer_removed (c), ids ("4-5")),
        "a shrink without down is accepted: shrink takes precedence");
    ok (apply (c, "{\"property-remove\":{\"nosuch\":\"1\"}}", &e) == 0,
        "removing a property a target does not have changes nothing");
    rp_acquire_consumer_destroy (c);

    static const struct {
        const char *initial;
        const char *error;
    } badfirst[] = {
        { "[]", "the initial response is not an object" },
        { "{\"up\":\"0\"}", "resources: missing" },
        { "{\"resources\":{}}", "up: missing" },
        { "{\"resources\":{},\"up\":\"0\",\"x\":1}", "unknown key 'x'" },
        { "{\"resources\":{\"version\":1},\"up\":\"0\"}",
          "resources: R: execution: missing" },
    };
    for (size_t i = 0; i < sizeof (badfirst) / sizeof (badfirst[0]); i++) {
        json_t *o = json_loads (badfirst[i].initial, 0, NULL);
        e.text[0] = '\0';
        ok (!rp_acquire_consumer_create (o, &e), "initial %s is refused",
            badfirst[i].initial);
        is (e.text, badfirst[i].error, "with '%s'", badfirst[i].error);
        json_decref (o);
    }
}

static struct rp_jobspec *job (int nodes, const char *constraint)
{
    char buf[1024];
    struct rp_jobspec *js;

    snprintf (buf, sizeof (buf),
              "version: 1\n"
              "resources: [{type: node, count: %d, exclusive: true, with: "
              "[{type: slot, "
              "label: s, count: 1, with: [{type: core, count: 1}]}]}]\n"
              "tasks: [{command: [a], slot: s, count: {per_slot: 1}}]\n"
              "attributes: {system: {duration: 0%s%s}}\n",
              nodes, constraint ? ", constraints: " : "",
              constraint ? constraint : "");
    if (!(js = rp_jobspec_load (buf, strlen (buf), "job", RP_JOBSPEC_CANONICAL,
                                NULL)))
        BAIL_OUT ("jobspec");
    return js;
}

static void test_consumer_matching (void)
{
    struct rp_acquire_consumer *c = consumer (rfc_initial);
    struct rp_matcher *m = rp_acquire_consumer_matcher (c);
    struct rp_jobspec *j3 = job (3, NULL), *j1 = job (1, NULL);
    struct rp_jobspec *jfoo = job (1, "{properties: [foo]}");
    struct rp_jobspec *j6 = job (6, NULL);
    struct rp_rset *R;
    rp_error_t e;

    R = rp_matcher_allocate (m, 1, j3, 0, &e);
    ok (R && rp_idset_equal (rp_rset_ranks (R), ids ("0-2")),
        "3 nodes: the up ones, 0-2");
    rp_rset_destroy (R);
    errno = 0;
    ok (!rp_matcher_allocate (m, 2, j1, 0, &e) && errno == EBUSY,
        "no node is up and free: EBUSY (3-5 are down)");
    ok (rp_matcher_satisfiability (m, j6, &e) == 0,
        "6 nodes are satisfiable: down targets count");
    ok (apply (c, "{\"down\":\"1\"}", &e) == 0, "1 goes down");
    ok (rp_matcher_job_rset (m, 1) && rp_matcher_check (m, &e) == 0,
        "job 1 keeps it (no exception)");
    ok (apply (c, "{\"up\":\"4\",\"property-add\":{\"foo\":\"5\"}}", &e) == 0,
        "4 comes up; foo added on 5");
    errno = 0;
    ok (!rp_matcher_allocate (m, 2, jfoo, 0, &e) && errno == EBUSY,
        "a job wanting foo: not now (5 is down)");
    ok (apply (c, "{\"up\":\"5\"}", &e) == 0, "5 comes up");
    R = rp_matcher_allocate (m, 2, jfoo, 0, &e);
    ok (R && rp_idset_equal (rp_rset_ranks (R), ids ("5")),
        "the job wanting foo gets 5: the property is seen at once");
    rp_rset_destroy (R);
    ok (apply (c, "{\"property-remove\":{\"foo\":\"5\"}}", &e) == 0
            && rp_matcher_satisfiability (m, jfoo, &e) < 0 && errno == ENODEV,
        "foo removed: a job wanting foo is never satisfiable");
    ok (apply (c, "{\"down\":\"3\",\"shrink\":\"3\"}", &e) == 0, "3 removed");
    errno = 0;
    ok (rp_matcher_satisfiability (m, j6, &e) < 0 && errno == ENODEV,
        "6 nodes are never satisfiable any more: removed targets do not "
        "count");
    ok (rp_matcher_free (m, 1, &e) == 0 && rp_matcher_free (m, 2, &e) == 0
            && rp_matcher_check (m, &e) == 0,
        "jobs are freed, the state is consistent");
    {
        struct rp_jobspec *j5 = job (5, NULL);
        R = rp_matcher_allocate (m, 3, j5, 0, &e);
        ok (!R && errno == EBUSY, "5 nodes: not now (1 down, 3 removed)");
        rp_jobspec_destroy (j5);
    }
    rp_acquire_consumer_destroy (c);
    rp_jobspec_destroy (j3);
    rp_jobspec_destroy (j1);
    rp_jobspec_destroy (jfoo);
    rp_jobspec_destroy (j6);
}

/* R of one target. */
static struct rp_rset *R1 (const char *rank, const char *cores,
                           const char *host)
{
    char buf[512];

    snprintf (buf, sizeof (buf),
              "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"%s\","
              "\"children\":{\"core\":\"%s\"}}],\"starttime\":0,"
              "\"expiration\":0,\"nodelist\":[\"%s\"]}}",
              rank, cores, host);
    return rset (buf);
}

static const struct {
    const char *rank, *cores, *host;
    const char *what, *error;
} bad_hellos[] = {
    { "9", "0", "host9", "a target that does not exist",
      "job 44: rank 9: no such execution target" },
    { "2", "5-9", "host2", "cores that do not exist",
      "job 45: rank 2 (host2): no core 6" },
    { "2", "0", "other2", "another host name",
      "job 46: rank 2: host other2, not host2" },
};

static void test_hello (void)
{
    struct rp_acquire_consumer *c = consumer (rfc_initial);
    struct rp_matcher *m = rp_acquire_consumer_matcher (c);
    struct rp_rset *R = rset (
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"1\","
        "\"children\":{\"core\":\"1-2\"}},{\"rank\":\"4\",\"children\":{"
        "\"core\":\"0\",\"gpu\":\"0\"}}],\"starttime\":100,\"expiration\":200,"
        "\"nodelist\":[\"host[1,4]\"]}}");
    struct rp_rset *bad;
    rp_error_t e;
    char *a, *b;

    ok (rp_acquire_consumer_hello (c, 42, R, NULL, &e) == 0,
        "hello: job 42 on ranks 1 and 4 (4 is down)");
    {
        struct rp_rset *held = rp_rset_copy (rp_matcher_job_rset (m, 42));
        rp_rset_set_scheduling (held, NULL);
        a = rp_rset_encode (R, 0);
        b = rp_rset_encode (held, 0);
        rp_rset_destroy (held);
    }
    ok (rp_rset_equal (R, rp_matcher_job_rset (m, 42)),
        "the job's R is the R it was given");
    is (b, a, "byte for byte but the scheduling key");
    free (a);
    free (b);
    ok (rp_matcher_check (m, &e) == 0, "the state is consistent");
    ok (!rp_idset_test (rp_acquire_consumer_up (c), 4), "4 stays down");
    ok (rp_acquire_consumer_hello (c, 42, R, NULL, &e) < 0 && errno == EEXIST,
        "the same job twice: EEXIST");
    ok (rp_acquire_consumer_hello (c, 43, R, NULL, &e) < 0 && errno == EBUSY,
        "another job on the same cores: EBUSY");
    is (e.text, "job 43: rank 1 (host1): core1 is held by another job",
        "names the job and the core");
    ok (rp_matcher_check (m, &e) == 0 && rp_matcher_njobs (m) == 1,
        "and changed nothing");
    for (size_t i = 0; i < sizeof (bad_hellos) / sizeof (bad_hellos[0]); i++) {
        bad = R1 (bad_hellos[i].rank, bad_hellos[i].cores, bad_hellos[i].host);
        ok (rp_acquire_consumer_hello (c, 44 + i, bad, NULL, &e) < 0
                && errno == ENOENT,
            "hello: %s", bad_hellos[i].what);
        is (e.text, bad_hellos[i].error, "%s", bad_hellos[i].error);
        rp_rset_destroy (bad);
    }
    ok (rp_matcher_check (m, &e) == 0 && rp_matcher_njobs (m) == 1,
        "failed hellos changed nothing");
    ok (rp_acquire_consumer_hello (c, 47, R, ids ("1,4"), &e) == 0
            && rp_matcher_njobs (m) == 1,
        "a job whose every rank was freed holds nothing");
    ok (rp_matcher_free (m, 42, &e) == 0, "free job 42");
    bad = R1 ("0-1", "0", "host[0-1]");
    ok (rp_acquire_consumer_hello (c, 48, bad, ids ("0"), &e) == 0
            && rp_idset_equal (rp_rset_ranks (rp_matcher_job_rset (m, 48)),
                               ids ("1")),
        "RFC 27 free: rank 0 already freed, the job holds rank 1");
    rp_rset_destroy (bad);
    ok (rp_matcher_free (m, 48, &e) == 0 && rp_matcher_check (m, &e) == 0,
        "free it: all is free again");
    {
        json_t *st = rp_matcher_stat (m);
        json_t *core = json_object_get (json_object_get (st, "types"), "core");
        ok (json_integer_value (json_object_get (core, "free")) == 18,
            "18 cores free: the 3 up targets' (hello holds were undone)");
        json_decref (st);
    }
    rp_rset_destroy (R);
    rp_acquire_consumer_destroy (c);
}

/* Producer to consumer: the consumer's view is the inventory's. */
static void test_round_trip (void)
{
    struct rp_rset *R = rset (R4);
    struct rp_inventory *inv = rp_inventory_create (R, ids ("3"), NULL);
    struct rp_acquire_producer *p = rp_acquire_producer_create ();
    json_t *first = rp_acquire_producer_first (p, inv, NULL);
    struct rp_acquire_consumer *c = rp_acquire_consumer_create (first, NULL);
    struct rp_idset *up;
    json_t *o;
    rp_error_t e;

    ok (c != NULL, "a consumer from the producer's initial response");
    rp_inventory_drain (inv, ids ("0"), "x", RP_DRAIN_DEFAULT, 1, NULL);
    rp_inventory_property_add (inv, "y", ids ("1-2"), 1, NULL);
    rp_inventory_shrink (inv, ids ("2"), 1, NULL);
    ok (rp_acquire_producer_next (p, inv, &o, &e) == 1
            && rp_acquire_consumer_apply (c, o, &e) == 0,
        "the next response applies");
    json_decref (o);
    up = rp_inventory_up (inv);
    ok (rp_idset_equal (up, rp_acquire_consumer_up (c))
            && rp_idset_equal (rp_acquire_consumer_removed (c), ids ("2"))
            && rp_rset_has_property (rp_acquire_consumer_resources (c), 1, "y"),
        "the consumer's up, removed and properties are the inventory's");
    rp_idset_destroy (up);
    json_decref (first);
    rp_acquire_consumer_destroy (c);
    rp_acquire_producer_destroy (p);
    rp_inventory_destroy (inv);
    rp_rset_destroy (R);
}

int main (void)
{
    plan (NO_PLAN);
    test_producer ();
    test_keys ();
    test_redefine ();
    test_rfc_examples ();
    test_consumer_errors ();
    test_consumer_matching ();
    test_hello ();
    test_round_trip ();
    return done_testing ();
}
