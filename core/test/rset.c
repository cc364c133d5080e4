/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for R version 1 (RFC 20): core/rset.c.
 *
 * JSON in the tables is written with ' for " (see J()) so the tables stay
 * readable; expected error texts are literal.  The randomized tests compare
 * union, diff, intersect, append and is_subset with a model of per-rank
 * bit masks (fixed seed, so every run checks the same cases).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "respol/hostlist.h"
#include "respol/rset.h"
#include "t/tap/tap.h"

#include "core/test/allocs.h"

/* --- helpers ------------------------------------------------------------ */

/* s with every ' replaced by ".  Up to 8 results live at a time. */
static const char *J (const char *s)
{
    static char buf[8][4096];
    static int next;
    char *b = buf[next++ % 8];
    size_t i;

    for (i = 0; s[i] && i < sizeof (buf[0]) - 1; i++)
        b[i] = s[i] == '\'' ? '"' : s[i];
    b[i] = '\0';
    return b;
}

static struct rp_rset *dec (const char *s)
{
    rp_error_t e;
    struct rp_rset *r = rp_rset_decode (J (s), &e);

    if (!r)
        BAIL_OUT ("decode %s: %s", s, e.text);
    return r;
}

static struct rp_idset *ids (const char *s)
{
    rp_error_t e;
    struct rp_idset *set = rp_idset_decode (s, &e);

    if (!set)
        BAIL_OUT ("idset %s: %s", s, e.text);
    return set;
}

/* r encodes as expected (J form).  Frees nothing. */
static bool encodes_as (const struct rp_rset *r, const char *expected,
                        const char *what)
{
    char *s = rp_rset_encode (r, 0);
    bool pass = is (s, J (expected), "%s", what);

    free (s);
    return pass;
}

static bool ids_is (const struct rp_idset *set, const char *expected,
                    const char *what)
{
    char *s = set ? rp_idset_encode (set, RP_IDSET_RANGES) : NULL;
    bool pass = is (s, expected, "%s", what);

    free (s);
    return pass;
}

static void add (struct rp_rset *r, unsigned int rank, const char *host,
                 const char *cores, const char *gpus)
{
    struct rp_idset *c = cores ? ids (cores) : NULL;
    struct rp_idset *g = gpus ? ids (gpus) : NULL;
    rp_error_t e;

    if (rp_rset_add_target (r, rank, host, c, g, &e) < 0)
        BAIL_OUT ("add_target %u %s: %s", rank, host, e.text);
    rp_idset_destroy (c);
    rp_idset_destroy (g);
}

#define EMPTY_R                                                                \
    "{'execution':{'R_lite':[],'expiration':0.0,'nodelist':[],'starttime':0."  \
    "0},'version':1}"

/* --- the RFC example and flux-core's output ------------------------------- */

static const char *example1 = "{\n"
                              "  \"version\": 1,\n"
                              "  \"execution\": {\n"
                              "    \"R_lite\": [\n"
                              "      {\n"
                              "        \"rank\": \"19-22\",\n"
                              "        \"children\": {\n"
                              "          \"core\": \"0-47\",\n"
                              "          \"gpu\": \"0-7\"\n"
                              "        }\n"
                              "      }\n"
                              "    ],\n"
                              "    \"nodelist\": [\n"
                              "      \"node[186-189]\"\n"
                              "    ],\n"
                              "    \"nslots\": 32,\n"
                              "    \"starttime\": 1676560542,\n"
                              "    \"expiration\": 1676562342\n"
                              "  }\n"
                              "}\n";

static void test_rfc_example (void)
{
    rp_error_t e;
    struct rp_rset *r = rp_rset_decode (example1, &e);

    if (!ok (r != NULL, "RFC 20 example decodes"))
        BAIL_OUT ("%s", e.text);
    cmp_ok (rp_rset_ntargets (r), ==, 4, "4 execution targets");
    ids_is (rp_rset_ranks (r), "19-22", "ranks 19-22");
    is (rp_rset_hostname (r, 19), "node186", "rank 19 is node186");
    is (rp_rset_hostname (r, 22), "node189", "rank 22 is node189");
    ids_is (rp_rset_cores (r, 20), "0-47", "rank 20 cores 0-47");
    ids_is (rp_rset_gpus (r, 21), "0-7", "rank 21 gpus 0-7");
    cmp_ok (rp_rset_count (r, "node"), ==, 4, "count node");
    cmp_ok (rp_rset_count (r, "core"), ==, 192, "count core");
    cmp_ok (rp_rset_count (r, "gpu"), ==, 32, "count gpu");
    ok (rp_rset_starttime (r) == 1676560542., "starttime");
    ok (rp_rset_expiration (r) == 1676562342., "expiration");
    cmp_ok (rp_rset_rank_of (r, "node188"), ==, 21, "rank_of node188");
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0-47','gpu':'0-"
                "7'},'rank':'19-22'}],'expiration':1676562342.0,'nodelist':["
                "'node[186-189]'],'nslots':32,'starttime':1676560542.0},"
                "'version':1}",
                "RFC example re-encodes as flux does, nslots kept");
    rp_rset_destroy (r);
}

static void test_flux_core_output (void)
{
    struct rp_rset *r = dec (
        "{'version':1,'execution':{'R_lite':[{'rank':'0-3','children':{'core':"
        "'0-47','gpu':'0-7'}}],'starttime':0.0,'expiration':0.0,'nodelist':["
        "'node[0-3]']}}");

    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0-47','gpu':'0-"
                "7'},'rank':'0-3'}],'expiration':0.0,'nodelist':['node[0-3]'],"
                "'starttime':0.0},'version':1}",
                "flux-core R is read and written back");
    rp_rset_destroy (r);
}

/* --- round trips ---------------------------------------------------------- */

/* Canonical encodings: decode then encode gives the same text. */
static const char *canonical[] = {
    EMPTY_R,
    "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0'}],"
    "'expiration':0.0,'nodelist':['a'],'starttime':0.0},'version':1}",
    "{'execution':{'R_lite':[{'children':{'core':''},'rank':'0'}],"
    "'expiration':0.0,'nodelist':['a'],'starttime':0.0},'version':1}",
    "{'execution':{'R_lite':[{'children':{'core':'','gpu':'0'},'rank':'3'}],"
    "'expiration':0.0,'nodelist':['gpunode'],'starttime':0.0},'version':1}",
    "{'execution':{'R_lite':[{'children':{'core':'0-3','gpu':'0-1'},'rank':'0-"
    "1,4'},{'children':{'core':'0-7'},'rank':'2-3'}],'expiration':0.0,"
    "'nodelist':['node[0-3,7]'],'starttime':0.0},'version':1}",
    "{'execution':{'R_lite':[{'children':{'core':'0,2'},'rank':'0,2'},{"
    "'children':{'core':'1,3'},'rank':'1,3'}],'expiration':0.0,'nodelist':["
    "'n[01-04]'],'starttime':0.0},'version':1}",
    "{'execution':{'R_lite':[{'children':{'core':'0-1'},'rank':'0-1'}],"
    "'expiration':0.0,'nodelist':['a,b'],'properties':{'+queue':'0','amd-"
    "mi50@gpu':'1','debug':'0-1','\xc3\xa9t\xc3\xa9':'1'},'starttime':0.0},"
    "'version':1}",
    "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'4294967294'}],"
    "'expiration':1676562342.25,'nodelist':['last'],'starttime':1676560542.5}"
    ",'version':1}",
    "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0'}],"
    "'expiration':5.0,'nodelist':['a'],'starttime':0.0},'version':1}",
    "{'attributes':{'system':{'duration':3600}},'execution':{'R_lite':[{"
    "'children':{'core':'0'},'rank':'0'}],'expiration':0.0,'future':{'x':[1,"
    "2.5,null,true]},'nodelist':['a'],'nslots':1,'starttime':0.0},'other':"
    "'kept','scheduling':{'graph':{'nodes':[{'id':'0'}]},'writer':'fluxion'},"
    "'version':1}",
};

static void test_canonical (void)
{
    for (size_t i = 0; i < sizeof (canonical) / sizeof (canonical[0]); i++) {
        rp_error_t e;
        struct rp_rset *r = rp_rset_decode (J (canonical[i]), &e);
        struct rp_rset *again;
        char *s;

        if (!ok (r != NULL, "canonical[%zu] decodes", i)) {
            diag ("%s", e.text);
            continue;
        }
        s = rp_rset_encode (r, 0);
        is (s, J (canonical[i]), "canonical[%zu] encodes the same", i);
        again = s ? rp_rset_decode (s, &e) : NULL;
        ok (again && rp_rset_equal (r, again),
            "canonical[%zu] re-decodes equal", i);
        free (s);
        rp_rset_destroy (again);
        rp_rset_destroy (r);
    }
}

/* Other forms of the same sets: input -> canonical output. */
static const struct {
    const char *in;
    const char *out;
    const char *what;
} normalized[] = {
    { "{'version':1,'execution':{'R_lite':[{'rank':'0','children':{'core':'0-"
      "1'}},{'rank':'1','children':{'core':'0-1'}}],'nodelist':['a','b']}}",
      "{'execution':{'R_lite':[{'children':{'core':'0-1'},'rank':'0-1'}],"
      "'expiration':0.0,'nodelist':['a,b'],'starttime':0.0},'version':1}",
      "entries with equal children are grouped, times added" },
    { "{'version':1,'execution':{'R_lite':[{'rank':'5','children':{'core':'1'"
      "}},{'rank':'2','children':{'core':'0'}}],'nodelist':['x','y']}}",
      "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'2'},{"
      "'children':{'core':'1'},'rank':'5'}],'expiration':0.0,'nodelist':['x,"
      "y'],'starttime':0.0},'version':1}",
      "nodelist maps to ascending ranks; entries ordered by lowest rank" },
    { "{'version':1,'execution':{'R_lite':[{'rank':'[0-1]','children':{'core'"
      ":'[0-3]','gpu':''}}],'nodelist':['n1','n2'],'properties':{},"
      "'starttime':0,'expiration':0}}",
      "{'execution':{'R_lite':[{'children':{'core':'0-3'},'rank':'0-1'}],"
      "'expiration':0.0,'nodelist':['n[1-2]'],'starttime':0.0},'version':1}",
      "brackets dropped, empty gpu and properties omitted" },
    { "{'version':1,'execution':{'R_lite':[{'rank':'0-1','children':{'core':'"
      "0'}}],'nodelist':['a,b'],'properties':{'x':'','y':'1'}}}",
      "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0-1'}],"
      "'expiration':0.0,'nodelist':['a,b'],'properties':{'y':'1'},"
      "'starttime':0.0},'version':1}",
      "a property with an empty idset is dropped" },
    { "{'version':1,'execution':{'R_lite':[{'rank':'0','children':{'core':'0'"
      "}}],'nodelist':['a'],'starttime':-0.0}}",
      "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0'}],"
      "'expiration':0.0,'nodelist':['a'],'starttime':0.0},'version':1}",
      "starttime -0.0 is 0.0" },
    { "{'version':1,'execution':{'R_lite':[{'rank':'4294967294','children':{"
      "'core':'0-1,4,7-9,4294967294','gpu':'[1-3]'}}],'nodelist':['a']}}",
      "{'execution':{'R_lite':[{'children':{'core':'0-1,4,7-9,4294967294',"
      "'gpu':'1-3'},'rank':'4294967294'}],'expiration':0.0,'nodelist':['a'],"
      "'starttime':0.0},'version':1}",
      "one target: its ids range by range, the largest rank" },
};

static void test_normalized (void)
{
    for (size_t i = 0; i < sizeof (normalized) / sizeof (normalized[0]); i++) {
        struct rp_rset *r = dec (normalized[i].in);
        encodes_as (r, normalized[i].out, normalized[i].what);
        rp_rset_destroy (r);
    }
}

static void test_pretty (void)
{
    struct rp_rset *r = dec ("{'version':1,'execution':{'R_lite':[{'rank':'0',"
                             "'children':{'core':'0'}}],'nodelist':['a']}}");
    char *s = rp_rset_encode (r, RP_RSET_PRETTY);

    is (s,
        "{\n"
        "  \"execution\": {\n"
        "    \"R_lite\": [\n"
        "      {\n"
        "        \"children\": {\n"
        "          \"core\": \"0\"\n"
        "        },\n"
        "        \"rank\": \"0\"\n"
        "      }\n"
        "    ],\n"
        "    \"expiration\": 0.0,\n"
        "    \"nodelist\": [\n"
        "      \"a\"\n"
        "    ],\n"
        "    \"starttime\": 0.0\n"
        "  },\n"
        "  \"version\": 1\n"
        "}",
        "RP_RSET_PRETTY indents, sorted keys, no trailing newline");
    free (s);
    errno = 0;
    ok (rp_rset_encode (r, 4) == NULL && errno == EINVAL,
        "encode with an unknown flag fails with EINVAL");
    errno = 0;
    ok (rp_rset_encode (NULL, 0) == NULL && errno == EINVAL,
        "encode (NULL) fails with EINVAL");
    rp_rset_destroy (r);
}

/* rp_rset_encode_buf writes what rp_rset_encode writes, into the caller's
 * buffer: grown when short, reused (nothing allocated) when long enough,
 * plain R and R with other keys (through rp_rset_encode) alike. */
static void test_encode_buf (void)
{
    struct rp_rset *big = dec ("{'version':1,'execution':{'R_lite':[{'rank':"
                               "'0-3','children':{'core':'0-7'}}],"
                               "'nodelist':['node[0-3]'],'starttime':5}}");
    struct rp_rset *one = dec ("{'version':1,'execution':{'R_lite':[{'rank':"
                               "'0','children':{'core':'0'}}],"
                               "'nodelist':['a']},'x':1}");
    struct rp_rset *rs[] = { one, big, one };
    char *buf = NULL;
    size_t size = 0, n0;
    bool same = true;

    for (size_t i = 0; i < 3; i++) {
        char *s = rp_rset_encode (rs[i], i == 2 ? RP_RSET_PRETTY : 0);
        ssize_t len =
            rp_rset_encode_buf (rs[i], i == 2 ? RP_RSET_PRETTY : 0, &buf, &size);
        if (!s || len != (ssize_t)strlen (s) || strcmp (buf, s) != 0) {
            diag ("R %zu: got '%s', want '%s'", i, buf ? buf : "(null)", s);
            same = false;
        }
        free (s);
    }
    ok (same && size > 0,
        "encode_buf: the text of rp_rset_encode, compact or pretty, "
        "the buffer grown");
    if (!allocs_counted ())
        skip (1, "allocations are not counted here (sanitizer, valgrind)");
    else {
        struct rp_rset *node = dec ("{'version':1,'execution':{'R_lite':"
                                    "[{'rank':'0','children':{'core':'0-3'}}],"
                                    "'nodelist':['a']}}");
        n0 = allocs ();
        ok (rp_rset_encode_buf (node, 0, &buf, &size) > 0 && allocs () == n0,
            "encode_buf: R of one host into a buffer long enough: nothing "
            "allocated");
        rp_rset_destroy (node);
    }
    errno = 0;
    ok (rp_rset_encode_buf (big, 4, &buf, &size) < 0 && errno == EINVAL,
        "encode_buf with an unknown flag fails with EINVAL");
    errno = 0;
    ok (rp_rset_encode_buf (NULL, 0, &buf, &size) < 0 && errno == EINVAL,
        "encode_buf (NULL) fails with EINVAL");
    free (buf);
    buf = NULL;
    errno = 0;
    ok (rp_rset_encode_buf (big, 0, &buf, &size) < 0 && errno == EINVAL,
        "encode_buf: no buffer but a size fails with EINVAL");
    errno = 0;
    ok (rp_rset_encode_buf (big, 0, NULL, &size) < 0 && errno == EINVAL,
        "encode_buf: no place for the buffer fails with EINVAL");
    rp_rset_destroy (one);
    rp_rset_destroy (big);
}

/* The compact encoding writes R_lite itself and the rest through jansson:
 * it must stay byte for byte the jansson dump of rp_rset_to_json(), also
 * with keys that need escaping (a"b), keys that sort around the known ones
 * (R, R_lite2, Z, ~, non-ASCII), odd numbers and properties. */
static const char *compact_cases[] = {
    "{'version':1,'zz':{'b':1,'a':[1.5e300,-0.0,1e-320]},'A':'\\u0001x"
    "\\u001f\\'','\xc3\xa9':1,'a\\'b':2,'execution':{'R_lite':[{'rank':'0-3',"
    "'children':{'core':'0-1'}},{'rank':'4','children':{'core':'0',"
    "'gpu':'1'}}],'nodelist':['a[0-4]'],'Z':true,'nslots':3,'r_lite':null,"
    "'R_lite2':{},'R':[],'~':'x/y'},'scheduling':{}}",
    "{'version':1,'execution':{'R_lite':[{'rank':'0-1','children':{'core':"
    "''}}],'nodelist':['x,y'],'starttime':0.1,'expiration':123456789.125,"
    "'properties':{'a\\\\b':'0','+q@x':'1','\xc3\xa9t\xc3\xa9':"
    "'0-1'}}}",
};

static void test_compact_is_jansson_dump (void)
{
    for (size_t i = 0; i < sizeof (compact_cases) / sizeof (compact_cases[0]);
         i++) {
        struct rp_rset *r = dec (compact_cases[i]);
        json_t *o = rp_rset_to_json (r);
        char *want = json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS);
        char *want_pretty = json_dumps (o, JSON_INDENT (2) | JSON_SORT_KEYS);
        char *got = rp_rset_encode (r, 0);
        char *got_pretty = rp_rset_encode (r, RP_RSET_PRETTY);

        is (got, want, "compact_cases[%zu]: encode is the jansson dump", i);
        is (got_pretty, want_pretty,
            "compact_cases[%zu]: pretty encode is the jansson dump", i);
        free (want);
        free (want_pretty);
        free (got);
        free (got_pretty);
        json_decref (o);
        rp_rset_destroy (r);
    }
}

/* R that only respol's keys hold is written whole by the encoder, times
 * included: every time writes as jansson writes the real. */
static void test_compact_times (void)
{
    static const double times[] = {
        0.,    1.,       1.5,     1e9,     1795670756.,     1795670756.25,
        0.1,   1e-5,     1.5e-7,  1e15,    1e16,            1e17,
        1e20,  1.25e100, 1e300,   5e-324,  9007199254740993., 123456789.123456789,
        2.5e-300, 4.9406564584124654e-300, 1e-4, 1e22,
        /* whole numbers are written digit by digit below 2^53 */
        9007199254740991., 9007199254740994., 4503599627370497.,
        4503599627370495.5, 999999999999999., 1000000000000001., 10., 7.,
    };
    struct rp_rset *r = dec (
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-2\","
        "\"children\":{\"core\":\"0-3\"}}],"
        "\"nodelist\":[\"node[0-2]\"]}}");
    size_t n = sizeof (times) / sizeof (times[0]);

    for (size_t i = 0; i < n; i++) {
        rp_error_t e;
        double end = times[(i + 7) % n];
        json_t *o;
        char *want = NULL, *got = NULL;
        if (rp_rset_set_times (r, times[i], end < times[i] ? 0. : end, &e) < 0)
            BAIL_OUT ("set_times %g: %s", times[i], e.text);
        o = rp_rset_to_json (r);
        want = o ? json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        got = rp_rset_encode (r, 0);
        is (got, want, "times %.17g: encode is the jansson dump", times[i]);
        free (want);
        free (got);
        json_decref (o);
    }
    rp_rset_destroy (r);
}

/* R of one target (text) encodes as the jansson dump of its JSON. */
static void is_dump (const char *text, const char *what)
{
    struct rp_rset *r = dec (text);
    json_t *o = rp_rset_to_json (r);
    char *want = o ? json_dumps (o, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    char *got = rp_rset_encode (r, 0);

    is (got, want, "one target, %s: encode is the jansson dump", what);
    free (want);
    free (got);
    json_decref (o);
    rp_rset_destroy (r);
}

/* R of one target is written with its host name as the nodelist: the
 * name reads back as itself (rp_rset_add_target's check), and the
 * hostlist of it writes it as it is, whatever its digits. */
static void test_one_host_nodelist (void)
{
    static const char *const lists[] = {
        "node0",       "node[007]",    "n1-2",   "a.b-c_d",
        "h99999999999", "rack1-node002", "n[0]", "x",
        "node-01a",    "0",            "n00",    "n[10]",
    };

    for (size_t i = 0; i < sizeof (lists) / sizeof (lists[0]); i++) {
        char text[256];
        snprintf (text, sizeof (text),
                  "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
                  "\"5\",\"children\":{\"core\":\"0-3\"}}],"
                  "\"nodelist\":[\"%s\"]}}",
                  lists[i]);
        is_dump (text, lists[i]);
    }
}

/* R of one target writes its R_lite entry straight from the target (no
 * keys grouped): every shape of children and rank as the jansson dump. */
static void test_one_target_rlite (void)
{
    static const char *const ranks[] = { "0", "9", "10", "4294", "1000000" };
    static const char *const kids[] = {
        "\"core\":\"0-3\"",         "\"core\":\"0,2,5-9\",\"gpu\":\"0-3\"",
        "\"core\":\"\"",            "\"core\":\"\",\"gpu\":\"1\"",
        "\"core\":\"63\",\"gpu\":\"\"",
    };

    for (size_t i = 0; i < sizeof (kids) / sizeof (kids[0]); i++) {
        const char *rank = ranks[i % (sizeof (ranks) / sizeof (ranks[0]))];
        char text[256];
        snprintf (text, sizeof (text),
                  "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
                  "\"%s\",\"children\":{%s}}],\"nodelist\":[\"n\"]}}",
                  rank, kids[i]);
        is_dump (text, kids[i]);
    }
}

static void test_empty (void)
{
    struct rp_rset *r = rp_rset_create ();
    struct rp_hostlist *hl;

    ok (r != NULL, "create works");
    cmp_ok (rp_rset_ntargets (r), ==, 0, "empty set has no targets");
    ok (rp_idset_empty (rp_rset_ranks (r)), "empty set has no ranks");
    cmp_ok (rp_rset_count (r, "core"), ==, 0, "empty set has no cores");
    ok (rp_rset_starttime (r) == 0. && rp_rset_expiration (r) == 0.,
        "times unset");
    ok (rp_rset_scheduling (r) == NULL, "no scheduling key");
    hl = rp_rset_nodelist (r);
    ok (hl && rp_hostlist_count (hl) == 0, "nodelist is empty");
    rp_hostlist_destroy (hl);
    encodes_as (r, EMPTY_R, "empty set encodes with nodelist []");
    rp_rset_destroy (r);
    errno = 1234;
    rp_rset_destroy (NULL);
    cmp_ok (errno, ==, 1234, "destroy (NULL) keeps errno");
}

/* --- invalid R ------------------------------------------------------------ */

#define RL(x) "{'version':1,'execution':{'R_lite':[" x "],'nodelist':['a']}}"
#define EX(x)                                                                  \
    "{'version':1,'execution':{'R_lite':[{'rank':'0-1','children':{'core':'0'" \
    "}}],'nodelist':['a,b']" x "}}"

static const struct {
    const char *in;
    int errnum;
    const char *error;
} invalid[] = {
    { "", EINVAL, "R: line 1 column 0: '[' or '{' expected near end of file" },
    { "{'version':1,", EINVAL,
      "R: line 1 column 13: string or '}' expected near end of file" },
    { "[]", EINVAL, "R: must be a JSON object" },
    { "{'version':1,'version':1}", EINVAL,
      "R: line 1 column 22: duplicate object key near '\"version\"'" },
    { "{}", EINVAL, "R: version: missing" },
    { "{'version':'1'}", EINVAL, "R: version: must be an integer" },
    { "{'version':1.0}", EINVAL, "R: version: must be an integer" },
    { "{'version':2,'execution':{}}", EINVAL,
      "R: version: unsupported version 2" },
    { "{'version':1}", EINVAL, "R: execution: missing" },
    { "{'version':1,'execution':[]}", EINVAL,
      "R: execution: must be an object" },
    { "{'version':1,'execution':{'nodelist':[]}}", EINVAL,
      "R: execution.R_lite: missing" },
    { "{'version':1,'execution':{'R_lite':{},'nodelist':[]}}", EINVAL,
      "R: execution.R_lite: must be an array" },
    { RL ("1"), EINVAL, "R: execution.R_lite[0]: must be an object" },
    { RL ("{'children':{'core':'0'}}"), EINVAL,
      "R: execution.R_lite[0].rank: missing" },
    { RL ("{'rank':0,'children':{'core':'0'}}"), EINVAL,
      "R: execution.R_lite[0].rank: must be a string" },
    { RL ("{'rank':'3,2','children':{'core':'0'}}"), EINVAL,
      "R: execution.R_lite[0].rank: idset: \"3,2\": ids not ascending at "
      "offset 2" },
    { RL ("{'rank':'4294967295','children':{'core':'0'}}"), ERANGE,
      "R: execution.R_lite[0].rank: idset: \"4294967295\": id too large (max "
      "4294967294) at offset 0" },
    { RL ("{'rank':'','children':{'core':'0'}}"), EINVAL,
      "R: execution.R_lite[0].rank: must not be empty" },
    { RL ("{'rank':'0'}"), EINVAL, "R: execution.R_lite[0].children: missing" },
    { RL ("{'rank':'0','children':[]}"), EINVAL,
      "R: execution.R_lite[0].children: must be an object" },
    { RL ("{'rank':'0','children':{'gpu':'0'}}"), EINVAL,
      "R: execution.R_lite[0].children.core: missing" },
    { RL ("{'rank':'0','children':{'core':0}}"), EINVAL,
      "R: execution.R_lite[0].children.core: must be a string" },
    { RL ("{'rank':'0','children':{'core':'0'}},{'rank':'1','children':{"
          "'core':'3,2'}}"),
      EINVAL,
      "R: execution.R_lite[1].children.core: idset: \"3,2\": ids not "
      "ascending at offset 2" },
    { RL ("{'rank':'0','children':{'core':'0','gpu':'x'}}"), EINVAL,
      "R: execution.R_lite[0].children.gpu: idset: \"x\": unexpected "
      "character 'x' at offset 0" },
    { RL ("{'rank':'0','children':{'core':'0','gpu':[]}}"), EINVAL,
      "R: execution.R_lite[0].children.gpu: must be a string" },
    { RL ("{'rank':'0','children':{'core':'0','mem':'0'}}"), EINVAL,
      "R: execution.R_lite[0].children.mem: unknown resource type" },
    { RL ("{'rank':'0','children':{'core':'0'},'extra':1}"), EINVAL,
      "R: execution.R_lite[0].extra: unknown key" },
    { RL ("{'rank':'4-5','children':{'core':'0'}},{'rank':'0-3','children':{"
          "'core':'1'}},{'rank':'5-6','children':{'core':'2'}}"),
      EINVAL, "R: execution.R_lite[2].rank: rank 5 appears twice" },
    { RL ("{'rank':'9','children':{'core':'0'}},{'rank':'1-3','children':{"
          "'core':'1'}},{'rank':'0-2','children':{'core':'2'}}"),
      EINVAL, "R: execution.R_lite[2].rank: rank 1 appears twice" },
    { RL ("{'rank':'0-1048576','children':{'core':'0'}}"), EOVERFLOW,
      "R: execution.R_lite: more than 1048576 execution targets" },
    { RL ("{'rank':'0-4294967294','children':{'core':'0'}},{'rank':'0','"
          "children':{'core':'0'}}"),
      EINVAL, "R: execution.R_lite[1].rank: rank 0 appears twice" },
    { "{'version':1,'execution':{'R_lite':[]}}", EINVAL,
      "R: execution.nodelist: missing" },
    { "{'version':1,'execution':{'R_lite':[],'nodelist':'a'}}", EINVAL,
      "R: execution.nodelist: must be an array" },
    { "{'version':1,'execution':{'R_lite':[],'nodelist':[1]}}", EINVAL,
      "R: execution.nodelist[0]: must be a string" },
    { "{'version':1,'execution':{'R_lite':[{'rank':'0-3','children':{'core':"
      "'0'}}],'nodelist':['a,b','c']}}",
      EINVAL, "R: execution.nodelist: 3 hosts for 4 execution targets" },
    { "{'version':1,'execution':{'R_lite':[{'rank':'0','children':{'core':"
      "'0'}}],'nodelist':['a,b']}}",
      EINVAL, "R: execution.nodelist: 2 hosts for 1 execution target" },
    { "{'version':1,'execution':{'R_lite':[{'rank':'0-1','children':{'core':"
      "'0'}}],'nodelist':['a']}}",
      EINVAL, "R: execution.nodelist: 1 host for 2 execution targets" },
    { EX (",'properties':[]"), EINVAL,
      "R: execution.properties: must be an object" },
    { EX (",'properties':{'a|b':'0'}"), EINVAL,
      "R: execution.properties: property name \"a|b\": illegal character '|' "
      "at offset 1" },
    { EX (",'properties':{'a@b@c':'0'}"), EINVAL,
      "R: execution.properties: property name \"a@b@c\": more than one '@'" },
    { EX (",'properties':{'':'0'}"), EINVAL,
      "R: execution.properties: property name is empty" },
    { EX (",'properties':{'x':1}"), EINVAL,
      "R: execution.properties.x: must be a string" },
    { EX (",'properties':{'x':'1-'}"), EINVAL,
      "R: execution.properties.x: idset: \"1-\": missing id after '-' at "
      "offset 2" },
    { EX (",'properties':{'x':'1,7'}"), EINVAL,
      "R: execution.properties.x: rank 7 is not an execution target" },
    { EX (",'starttime':'0'"), EINVAL,
      "R: execution.starttime: must be a number >= 0" },
    { EX (",'starttime':-1"), EINVAL,
      "R: execution.starttime: must be a number >= 0" },
    { EX (",'expiration':-0.5"), EINVAL,
      "R: execution.expiration: must be a number >= 0" },
    { EX (",'starttime':10,'expiration':10"), EINVAL,
      "R: execution.expiration: must be greater than starttime" },
    { EX (",'starttime':10.5,'expiration':3"), EINVAL,
      "R: execution.expiration: must be greater than starttime" },
    { EX (",'nslots':0"), EINVAL,
      "R: execution.nslots: must be an integer > 0" },
    { EX (",'nslots':1.5"), EINVAL,
      "R: execution.nslots: must be an integer > 0" },
    { "{'version':1,'execution':{'R_lite':[],'nodelist':[]},'scheduling':"
      "'x'}",
      EINVAL, "R: scheduling: must be an object" },
};

static void test_invalid (void)
{
    for (size_t i = 0; i < sizeof (invalid) / sizeof (invalid[0]); i++) {
        rp_error_t e = { .text = "" };
        struct rp_rset *r;

        errno = 0;
        r = rp_rset_decode (J (invalid[i].in), &e);
        ok (r == NULL && errno == invalid[i].errnum,
            "invalid[%zu] fails with errno %d", i, invalid[i].errnum);
        is (e.text, invalid[i].error, "invalid[%zu] error text", i);
        rp_rset_destroy (r);
    }
}

static void test_invalid_other (void)
{
    rp_error_t e;
    json_t *o = json_pack ("[i]", 1);

    errno = 0;
    ok (rp_rset_decode (NULL, &e) == NULL && errno == EINVAL,
        "decode (NULL) fails with EINVAL");
    is (e.text, "R: input is NULL", "decode (NULL) error text");
    errno = 0;
    ok (rp_rset_from_json (o, &e) == NULL && errno == EINVAL,
        "from_json of an array fails with EINVAL");
    is (e.text, "R: must be a JSON object", "from_json error text");
    ok (rp_rset_decode ("{\"version\":2}", NULL) == NULL,
        "decode fails with a NULL error");
    json_decref (o);
}

static void test_nodelist_errors (void)
{
    rp_error_t e = { .text = "" };
    rp_error_t h = { .text = "" };
    struct rp_hostlist *hl = rp_hostlist_decode ("foo[1-", &h);
    char want[512];

    ok (hl == NULL, "hostlist foo[1- is invalid");
    snprintf (want, sizeof (want), "R: execution.nodelist[1]: %s", h.text);
    ok (rp_rset_decode (J ("{'version':1,'execution':{'R_lite':[],"
                           "'nodelist':['','foo[1-']}}"),
                        &e)
            == NULL,
        "an invalid hostlist in the nodelist is an error");
    is (e.text, want, "the error names the nodelist entry, then the hostlist");
}

/* --- decode details ------------------------------------------------------- */

static void test_duplicate_hosts (void)
{
    struct rp_rset *r = dec ("{'version':1,'execution':{'R_lite':[{'rank':'0-"
                             "2','children':{'core':'0'}}],'nodelist':['h,h,"
                             "h']}}");
    struct rp_rset *again;
    char *s;
    rp_error_t e;

    cmp_ok (rp_rset_ntargets (r), ==, 3,
            "one host for several ranks (flux "
            "start -s 3) is accepted");
    cmp_ok (rp_rset_rank_of (r, "h"), ==, 0, "rank_of returns the lowest rank");
    s = rp_rset_encode (r, 0);
    again = rp_rset_decode (s, &e);
    ok (again && rp_rset_equal (r, again), "duplicate host names round trip");
    errno = 0;
    ok (rp_rset_rerank (r, "h", &e) < 0 && errno == EINVAL,
        "rerank of a set whose targets share a host fails");
    is (e.text, "ranks 0 and 1 have the same host h", "error text");
    free (s);
    rp_rset_destroy (again);
    rp_rset_destroy (r);
}

static void test_opaque (void)
{
    json_t *in = json_pack (
        "{s:i s:{s:[{s:s s:{s:s}}] s:[s] s:i s:{s:[i,f]}} s:{s:s s:{s:[]}}"
        " s:{s:{s:i}} s:o}",
        "version", 1, "execution", "R_lite", "rank", "0", "children", "core",
        "0-1", "nodelist", "a", "nslots", 2, "x-vendor", "v", 1, 2.5,
        "scheduling", "writer", "fluxion", "graph", "nodes", "attributes",
        "system", "duration", 60, "future", json_true ());
    rp_error_t e;
    struct rp_rset *r = rp_rset_from_json (in, &e);
    json_t *out;
    json_t *sched;

    if (!ok (r != NULL, "from_json with opaque keys works"))
        BAIL_OUT ("%s", e.text);
    out = rp_rset_to_json (r);
    ok (json_equal (json_object_get (out, "scheduling"),
                    json_object_get (in, "scheduling")),
        "scheduling is kept");
    ok (json_equal (json_object_get (out, "attributes"),
                    json_object_get (in, "attributes")),
        "attributes are kept");
    ok (json_equal (json_object_get (out, "future"),
                    json_object_get (in, "future")),
        "an unknown top level key is kept");
    ok (json_equal (
            json_object_get (json_object_get (out, "execution"), "x-vendor"),
            json_object_get (json_object_get (in, "execution"), "x-vendor")),
        "an unknown execution key is kept");
    ok (json_integer_value (
            json_object_get (json_object_get (out, "execution"), "nslots"))
            == 2,
        "nslots is kept");
    ok (json_equal (rp_rset_scheduling (r), json_object_get (in, "scheduling")),
        "rp_rset_scheduling returns it");

    /* from_json does not keep references into the caller's object */
    json_object_set_new (json_object_get (in, "scheduling"), "writer",
                         json_string ("changed"));
    json_decref (out);
    out = rp_rset_to_json (r);
    is (json_string_value (
            json_object_get (json_object_get (out, "scheduling"), "writer")),
        "fluxion", "changing the input after from_json changes nothing");
    /* nor does to_json hand out references into the set */
    json_object_set_new (json_object_get (out, "scheduling"), "writer",
                         json_string ("mine"));
    is (json_string_value (json_object_get (rp_rset_scheduling (r), "writer")),
        "fluxion", "changing to_json output changes nothing");
    json_decref (out);

    sched = json_pack ("{s:s}", "writer", "other");
    ok (rp_rset_set_scheduling (r, sched) == 0
            && json_equal (rp_rset_scheduling (r), sched),
        "set_scheduling replaces the key");
    ok (rp_rset_set_scheduling (r, NULL) == 0 && !rp_rset_scheduling (r),
        "set_scheduling (NULL) drops it");
    json_decref (sched);
    sched = json_integer (1);
    errno = 0;
    ok (rp_rset_set_scheduling (r, sched) < 0 && errno == EINVAL,
        "set_scheduling of a non-object fails with EINVAL");
    json_decref (sched);
    json_decref (in);
    rp_rset_destroy (r);
}

static void test_opaque_ops (void)
{
    struct rp_rset *a = dec ("{'version':1,'execution':{'R_lite':[{'rank':'0',"
                             "'children':{'core':'0'}}],'nodelist':['a'],"
                             "'nslots':1},'scheduling':{'who':'a'}}");
    struct rp_rset *b = dec ("{'version':1,'execution':{'R_lite':[{'rank':'1',"
                             "'children':{'core':'0'}}],'nodelist':['b']},"
                             "'scheduling':{'who':'b'}}");
    rp_error_t e;
    struct rp_rset *u = rp_rset_union (a, b, &e);
    struct rp_rset *c = rp_rset_copy (a);

    encodes_as (u,
                "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0-1'"
                "}],'expiration':0.0,'nodelist':['a,b'],'nslots':1,"
                "'starttime':0.0},'scheduling':{'who':'a'},'version':1}",
                "union keeps the opaque keys of the first operand");
    rp_rset_set_scheduling (c, NULL);
    ok (rp_rset_scheduling (a) != NULL,
        "dropping scheduling from a copy leaves the original");
    struct rp_rset *d = dec ("{'version':1,'execution':{'R_lite':[{'rank':'1',"
                             "'children':{'core':'0'}}],'nodelist':['b']}}");
    struct rp_rset *u2 = rp_rset_union (d, a, &e);
    encodes_as (u2,
                "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0-1'"
                "}],'expiration':0.0,'nodelist':['a,b'],'starttime':0.0},"
                "'version':1}",
                "union of a set without opaque keys: none");
    struct rp_rset *n = rp_rset_create ();
    json_t *o = json_pack ("{s:s}", "who", "n");
    ok (n && rp_rset_scheduling (n) == NULL && rp_rset_set_scheduling (n, o) == 0
            && rp_rset_scheduling (n) == o,
        "a new set: no scheduling key, then the one set");
    json_decref (o);
    rp_rset_destroy (n);
    rp_rset_destroy (d);
    rp_rset_destroy (u2);
    rp_rset_destroy (a);
    rp_rset_destroy (b);
    rp_rset_destroy (u);
    rp_rset_destroy (c);
}

/* --- add_target and accessors --------------------------------------------- */

static void test_add_target (void)
{
    struct rp_rset *r = rp_rset_create ();
    struct rp_idset *c = ids ("0-3");
    rp_error_t e;
    struct rp_hostlist *hl;
    char *s;

    ok (rp_rset_add_target (r, 5, "node5", c, NULL, &e) == 0,
        "add_target rank 5");
    ok (rp_rset_add_target (r, 1, "node1", NULL, NULL, &e) == 0,
        "add_target rank 1 without cores or GPUs");
    add (r, 3, "node3", "0-3", "0");
    ids_is (rp_rset_ranks (r), "1,3,5", "ranks are kept sorted");
    errno = 0;
    ok (rp_rset_add_target (r, 3, "other", c, NULL, &e) < 0 && errno == EEXIST,
        "add_target of an existing rank fails with EEXIST");
    is (e.text, "rank 3 is already an execution target", "EEXIST text");
    errno = 0;
    ok (rp_rset_add_target (r, 4294967295U, "x", c, NULL, &e) < 0
            && errno == EINVAL,
        "add_target of rank 2^32-1 fails with EINVAL");
    is (e.text, "rank 4294967295 is out of range", "range text");
    errno = 0;
    ok (rp_rset_add_target (r, 7, "", c, NULL, &e) < 0 && errno == EINVAL,
        "add_target with an empty host name fails with EINVAL");
    is (e.text, "host name is empty", "empty host text");
    errno = 0;
    ok (rp_rset_add_target (r, 7, NULL, c, NULL, &e) < 0 && errno == EINVAL,
        "add_target with a NULL host name fails with EINVAL");
    errno = 0;
    ok (rp_rset_add_target (r, 7, "n[1-2]", c, NULL, &e) < 0 && errno == EINVAL,
        "add_target with a hostlist as host name fails with EINVAL");
    is (e.text, "host name \"n[1-2]\" is not a single host", "hostlist text");
    errno = 0;
    ok (rp_rset_add_target (r, 7, "a,b", c, NULL, &e) < 0 && errno == EINVAL,
        "add_target with host name a,b fails with EINVAL");
    errno = 0;
    ok (rp_rset_add_target (NULL, 7, "a", c, NULL, &e) < 0 && errno == EINVAL,
        "add_target (NULL) fails with EINVAL");
    cmp_ok (rp_rset_ntargets (r), ==, 3, "failures added nothing");

    is (rp_rset_hostname (r, 3), "node3", "hostname");
    ids_is (rp_rset_cores (r, 1), "",
            "a target without cores has an empty set");
    ids_is (rp_rset_gpus (r, 5), "", "a target without GPUs has an empty set");
    errno = 0;
    ok (rp_rset_hostname (r, 2) == NULL && errno == ENOENT,
        "hostname of a non-target fails with ENOENT");
    errno = 0;
    ok (rp_rset_cores (r, 9) == NULL && errno == ENOENT,
        "cores of a non-target fails with ENOENT");
    errno = 0;
    ok (rp_rset_gpus (r, 0) == NULL && errno == ENOENT,
        "gpus of a non-target fails with ENOENT");
    cmp_ok (rp_rset_rank_of (r, "node5"), ==, 5, "rank_of node5");
    errno = 0;
    ok (rp_rset_rank_of (r, "node4") < 0 && errno == ENOENT,
        "rank_of an unknown host fails with ENOENT");
    add (r, 0, "node0", "0", NULL);
    cmp_ok (rp_rset_rank_of (r, "node0"), ==, 0,
            "rank_of sees a target added after the last lookup");
    hl = rp_rset_nodelist (r);
    s = hl ? rp_hostlist_encode (hl) : NULL;
    is (s, "node[0-1,3,5]", "nodelist in rank order");
    free (s);
    rp_hostlist_destroy (hl);
    cmp_ok (rp_rset_count (r, "core"), ==, 9, "count core");
    cmp_ok (rp_rset_count (r, "gpu"), ==, 1, "count gpu");
    errno = 0;
    ok (rp_rset_count (r, "socket") < 0 && errno == EINVAL,
        "count socket fails with EINVAL");
    errno = 0;
    ok (rp_rset_count (r, NULL) < 0 && errno == EINVAL,
        "count NULL fails with EINVAL");
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0'},"
                "{'children':{'core':''},'rank':'1'},{'children':{'core':'0-3'"
                ",'gpu':'0'},'rank':'3'},{'children':{'core':'0-3'},'rank':'5'"
                "}],'expiration':0.0,'nodelist':['node[0-1,3,5]'],"
                "'starttime':0.0},'version':1}",
                "targets built by add_target encode");
    rp_idset_destroy (c);
    rp_rset_destroy (r);
}

/* R_lite groups equal children whatever order the targets came in, in
 * runs beside each other or apart, shared or copied (the same text as
 * before targets shared their children and grouping went by runs). */
static void test_grouping_shapes (void)
{
    struct rp_rset *r = rp_rset_create ();
    struct rp_rset *d;

    add (r, 4, "n4", "0-3", NULL);
    add (r, 0, "n0", "0-3", NULL); /* shares with the target after it */
    add (r, 2, "n2", "0-1", "0");
    add (r, 1, "n1", "0-3", NULL);
    add (r, 3, "n3", "0-1", "0");
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0-3'},'rank':'0-"
                "1,4'},{'children':{'core':'0-1','gpu':'0'},'rank':'2-3'}],"
                "'expiration':0.0,'nodelist':['n[0-4]'],'starttime':0.0},"
                "'version':1}",
                "targets out of rank order group by children");
    ok (rp_rset_cores (r, 0) == rp_rset_cores (r, 1)
            && rp_rset_cores (r, 1) == rp_rset_cores (r, 4)
            && rp_rset_gpus (r, 2) == rp_rset_gpus (r, 3)
            && rp_rset_cores (r, 1) != rp_rset_cores (r, 2),
        "targets added beside a target with equal children share its sets");
    ids_is (rp_rset_cores (r, 0), "0-3", "a target's cores after sharing");
    ids_is (rp_rset_gpus (r, 3), "0", "a target's GPUs after sharing");
    rp_rset_destroy (r);

    r = rp_rset_create ();
    add (r, 0, "a0", "0", NULL);
    add (r, 1, "a1", "0", NULL);
    add (r, 2, "a2", "1", NULL);
    add (r, 3, "a3", "1", NULL);
    add (r, 4, "a4", "0", NULL);
    add (r, 5, "a5", "0", NULL);
    add (r, 7, "a7", "0", NULL);
    add (r, 9, "a9", "0", "0");
    add (r, 10, "a10", NULL, NULL);
    add (r, 11, "a11", NULL, NULL);
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0-1,"
                "4-5,7'},{'children':{'core':'1'},'rank':'2-3'},{'children':{"
                "'core':'0','gpu':'0'},'rank':'9'},{'children':{'core':''},"
                "'rank':'10-11'}],'expiration':0.0,'nodelist':['a[0-5,7,9-11]"
                "'],'starttime':0.0},'version':1}",
                "runs of equal children apart are one entry, gaps kept");
    rp_rset_destroy (r);

    d = dec ("{'version':1,'execution':{'R_lite':[{'rank':'4-5','children'"
                ":{'core':'0'}},{'rank':'0-1','children':{'core':'0'}},{'rank'"
                ":'2-3','children':{'core':'1'}}],'nodelist':['b[0-5]']}}");
    encodes_as (d,
                "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0-1,"
                "4-5'},{'children':{'core':'1'},'rank':'2-3'}],'expiration':0."
                "0,'nodelist':['b[0-5]'],'starttime':0.0},'version':1}",
                "equal children of two entries are one entry");
    rp_rset_destroy (d);
}

static void test_times (void)
{
    struct rp_rset *r = rp_rset_create ();
    rp_error_t e;

    ok (rp_rset_set_times (r, 10., 20.5, &e) == 0, "set_times 10, 20.5");
    ok (rp_rset_starttime (r) == 10. && rp_rset_expiration (r) == 20.5,
        "times read back");
    ok (rp_rset_set_times (r, 0., 5., &e) == 0, "unset starttime");
    ok (rp_rset_set_times (r, 5., 0., &e) == 0, "unset expiration");
    errno = 0;
    ok (rp_rset_set_times (r, 5., 5., &e) < 0 && errno == EINVAL,
        "expiration == starttime fails");
    is (e.text, "expiration: must be greater than starttime", "error text");
    errno = 0;
    ok (rp_rset_set_times (r, -1., 5., &e) < 0 && errno == EINVAL,
        "negative starttime fails");
    is (e.text, "starttime: must be a number >= 0", "error text");
    errno = 0;
    ok (rp_rset_set_times (r, 1., 1. / 0., &e) < 0 && errno == EINVAL,
        "infinite expiration fails");
    is (e.text, "expiration: must be a number >= 0", "error text");
    ok (rp_rset_starttime (r) == 5. && rp_rset_expiration (r) == 0.,
        "failures changed nothing");
    encodes_as (r,
                "{'execution':{'R_lite':[],'expiration':0.0,'nodelist':[],"
                "'starttime':5.0},'version':1}",
                "times encode as reals");
    rp_rset_destroy (r);
}

/* --- properties ----------------------------------------------------------- */

static const struct {
    const char *name;
    const char *error; /* NULL: valid */
} names[] = {
    { "batch", NULL },
    { "amd-mi50@gpu", NULL },
    { "+queue", NULL },
    { "+queue@gpu", NULL },
    { "++a", NULL },
    { "a+b", NULL },
    { "a.b-c_d:e/f", NULL },
    { "\xc3\xa9t\xc3\xa9", NULL },
    { "\xf0\x9f\x98\x80", NULL },
    { "", "property name is empty" },
    { "a!b", "property name \"a!b\": illegal character '!' at offset 1" },
    { "a&b", "property name \"a&b\": illegal character '&' at offset 1" },
    { "a'b", "property name \"a'b\": illegal character ''' at offset 1" },
    { "a\"b", "property name \"a\"b\": illegal character '\"' at offset 1" },
    { "^a", "property name \"^a\": illegal character '^' at offset 0" },
    { "a`", "property name \"a`\": illegal character '`' at offset 1" },
    { "a|b", "property name \"a|b\": illegal character '|' at offset 1" },
    { "(a", "property name \"(a\": illegal character '(' at offset 0" },
    { "a)", "property name \"a)\": illegal character ')' at offset 1" },
    { "a b", "property name \"a b\": illegal character ' ' at offset 1" },
    { "a\tb", "property name: illegal character 0x09 at offset 1" },
    { "a\nb", "property name: illegal character 0x0a at offset 1" },
    { "a\x7f", "property name: illegal character 0x7f at offset 1" },
    { "\xff", "property name: invalid UTF-8 at offset 0" },
    { "ab\xc3", "property name: invalid UTF-8 at offset 2" },
    { "\xc0\xaf", "property name: invalid UTF-8 at offset 0" },
    { "\xe0\x80\xaf", "property name: invalid UTF-8 at offset 0" },
    { "x\xed\xa0\x80", "property name: invalid UTF-8 at offset 1" },
    { "\xf4\x90\x80\x80", "property name: invalid UTF-8 at offset 0" },
    { "a@b@c", "property name \"a@b@c\": more than one '@'" },
    { "@gpu", "property name \"@gpu\": nothing before '@'" },
    { "a@", "property name \"a@\": nothing after '@'" },
    { "+", "property name \"+\": nothing after '+'" },
    { "+@gpu", "property name \"+@gpu\": nothing before '@'" },
};

static void test_property_check (void)
{
    rp_error_t e;

    for (size_t i = 0; i < sizeof (names) / sizeof (names[0]); i++) {
        e.text[0] = '\0';
        errno = 0;
        if (!names[i].error) {
            ok (rp_rset_property_check (names[i].name, &e) == 0,
                "property name %s is valid", names[i].name);
            continue;
        }
        ok (rp_rset_property_check (names[i].name, &e) < 0 && errno == EINVAL,
            "names[%zu] is invalid (EINVAL)", i);
        is (e.text, names[i].error, "names[%zu] error text", i);
    }
    errno = 0;
    ok (rp_rset_property_check (NULL, &e) < 0 && errno == EINVAL,
        "property_check (NULL) fails with EINVAL");
}

static void test_properties (void)
{
    struct rp_rset *r = dec ("{'version':1,'execution':{'R_lite':[{'rank':'0-"
                             "3','children':{'core':'0'}}],'nodelist':['n[0-"
                             "3]']}}");
    struct rp_idset *s01 = ids ("0-1");
    struct rp_idset *s1 = ids ("1");
    struct rp_idset *s7 = ids ("2,7");
    rp_error_t e;
    json_t *o;
    json_t *want;

    ok (rp_rset_property_add (r, "amd-mi50@gpu", s01, &e) == 0,
        "add amd-mi50@gpu to 0-1");
    ok (rp_rset_property_add (r, "amd-mi50", s1, &e) == 0, "add amd-mi50 to 1");
    ok (rp_rset_property_add (r, "+queue", NULL, &e) == 0,
        "add +queue to all targets");
    ok (rp_rset_property_add (r, "amd", s1, &e) == 0, "add amd to 1");
    ok (rp_rset_has_property (r, 0, "amd-mi50@gpu"), "0 has amd-mi50@gpu");
    ok (rp_rset_has_property (r, 0, "amd-mi50"),
        "0 has amd-mi50 through amd-mi50@gpu");
    ok (!rp_rset_has_property (r, 2, "amd-mi50"), "2 has no amd-mi50");
    ok (!rp_rset_has_property (r, 0, "amd"), "0 has no amd (not a prefix)");
    ok (!rp_rset_has_property (r, 0, "amd-mi50@cpu"), "0 has no amd-mi50@cpu");
    ok (!rp_rset_has_property (r, 0, "amd-mi5"), "0 has no amd-mi5");
    ok (rp_rset_has_property (r, 3, "+queue"), "3 has +queue");
    ok (!rp_rset_has_property (r, 9, "+queue"), "9 (no target) has nothing");
    ok (!rp_rset_has_property (NULL, 0, "x")
            && !rp_rset_has_property (r, 0, NULL),
        "has_property with NULL is false");
    o = rp_rset_properties (r);
    want = json_pack ("{s:s s:s s:s s:s}", "+queue", "0-3", "amd", "1",
                      "amd-mi50", "1", "amd-mi50@gpu", "0-1");
    ok (json_equal (o, want), "properties object");
    json_decref (o);
    json_decref (want);

    errno = 0;
    ok (rp_rset_property_add (r, "x", s7, &e) < 0 && errno == ENOENT,
        "add to a rank that is not a target fails with ENOENT");
    is (e.text, "rank 7 is not an execution target", "ENOENT text");
    errno = 0;
    ok (rp_rset_property_add (r, "x|y", s1, &e) < 0 && errno == EINVAL,
        "add a bad name fails with EINVAL");
    errno = 0;
    ok (rp_rset_property_remove (r, "amd", s7, &e) < 0 && errno == ENOENT,
        "remove from a rank that is not a target fails with ENOENT");
    ok (rp_rset_has_property (r, 1, "amd"), "failed remove changed nothing");

    ok (rp_rset_property_remove (r, "amd-mi50", s1, &e) == 0,
        "remove amd-mi50 from 1");
    ok (!rp_rset_has_property (r, 1, "amd-mi50")
            && !rp_rset_has_property (r, 1, "amd-mi50@gpu"),
        "removing the base name removed the suffixed form from 1");
    ok (rp_rset_has_property (r, 0, "amd-mi50@gpu"), "0 keeps amd-mi50@gpu");
    ok (rp_rset_has_property (r, 1, "amd"), "1 keeps amd");
    ok (rp_rset_property_remove (r, "amd-mi50@gpu", NULL, &e) == 0,
        "remove amd-mi50@gpu everywhere");
    ok (rp_rset_property_remove (r, "nothere", NULL, &e) == 0,
        "removing an absent property is not an error");
    rp_rset_strip_local_properties (r);
    ok (!rp_rset_has_property (r, 0, "+queue"), "strip drops +queue");
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0-3'"
                "}],'expiration':0.0,'nodelist':['n[0-3]'],'properties':{"
                "'amd':'1'},'starttime':0.0},'version':1}",
                "properties left: amd");
    ok (rp_rset_property_remove (r, "amd", NULL, &e) == 0, "remove amd");
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'0-3'"
                "}],'expiration':0.0,'nodelist':['n[0-3]'],'starttime':0.0},"
                "'version':1}",
                "no properties: key omitted");
    rp_idset_destroy (s01);
    rp_idset_destroy (s1);
    rp_idset_destroy (s7);
    rp_rset_destroy (r);
}

/* --- operations ----------------------------------------------------------- */

static void test_add_append (void)
{
    struct rp_rset *dst = rp_rset_create ();
    struct rp_rset *src = rp_rset_create ();
    struct rp_rset *bad = rp_rset_create ();
    struct rp_rset *before;
    struct rp_idset *r0 = ids ("0");
    rp_error_t e;

    add (dst, 0, "n0", "0-1", NULL);
    add (dst, 2, "n2", "0-3", "0");
    rp_rset_property_add (dst, "a", r0, &e);
    add (src, 0, "n0", "2-3", "1");
    add (src, 1, "n1", "0", NULL);
    rp_rset_property_add (src, "b", r0, &e);
    add (bad, 2, "m2", "5", NULL);

    before = rp_rset_copy (dst);
    ok (rp_rset_append (dst, src, &e) == 0, "append disjoint cores works");
    encodes_as (dst,
                "{'execution':{'R_lite':[{'children':{'core':'0-3','gpu':'1'},"
                "'rank':'0'},{'children':{'core':'0'},'rank':'1'},{'children':"
                "{'core':'0-3','gpu':'0'},'rank':'2'}],'expiration':0.0,"
                "'nodelist':['n[0-2]'],'properties':{'a':'0','b':'0'},"
                "'starttime':0.0},'version':1}",
                "append merged rank 0, added rank 1, properties merged");
    rp_rset_destroy (dst);
    dst = rp_rset_copy (before);
    rp_rset_destroy (before);

    ok (rp_rset_add (dst, src, &e) == 0 && rp_rset_add (dst, src, &e) == 0,
        "add twice works");
    ids_is (rp_rset_cores (dst, 0), "0-3", "add merged cores of rank 0");
    ids_is (rp_rset_gpus (dst, 0), "1", "add merged gpus of rank 0");

    before = rp_rset_copy (dst);
    errno = 0;
    ok (rp_rset_append (dst, src, &e) < 0 && errno == EEXIST,
        "append of cores already present fails with EEXIST");
    is (e.text, "rank 0 (n0): core 2-3 already present", "EEXIST text");
    ok (rp_rset_equal (dst, before), "failed append left dst unchanged");
    rp_rset_destroy (src);
    src = rp_rset_create ();
    add (src, 2, "n2", NULL, "0");
    errno = 0;
    ok (rp_rset_append (dst, src, &e) < 0 && errno == EEXIST,
        "append of a GPU already present fails with EEXIST");
    is (e.text, "rank 2 (n2): gpu 0 already present", "EEXIST gpu text");
    errno = 0;
    ok (rp_rset_add (dst, bad, &e) < 0 && errno == EINVAL,
        "add with a different host name for rank 2 fails with EINVAL");
    is (e.text, "rank 2: host m2 does not match n2", "EINVAL text");
    errno = 0;
    ok (rp_rset_append (dst, bad, &e) < 0 && errno == EINVAL,
        "append with a different host name fails with EINVAL");
    ok (rp_rset_equal (dst, before), "failed add left dst unchanged");
    errno = 0;
    ok (rp_rset_add (NULL, src, &e) < 0 && errno == EINVAL
            && rp_rset_add (dst, NULL, &e) < 0,
        "add with NULL fails with EINVAL");
    ok (rp_rset_add (dst, dst, &e) == 0 && rp_rset_equal (dst, before),
        "add a set to itself changes nothing");
    rp_rset_destroy (before);
    rp_rset_destroy (dst);
    rp_rset_destroy (src);
    rp_rset_destroy (bad);
    rp_idset_destroy (r0);
}

static void test_union_diff_intersect (void)
{
    struct rp_rset *a = dec (
        "{'version':1,'execution':{'R_lite':[{'rank':'0-3','children':{'core'"
        ":'0-3','gpu':'0'}}],'nodelist':['n[0-3]'],'properties':{'x':'0,3'},"
        "'starttime':1,'expiration':9}}");
    struct rp_rset *b = dec (
        "{'version':1,'execution':{'R_lite':[{'rank':'2','children':{'core':'"
        "0-1'}},{'rank':'3','children':{'core':'0-3','gpu':'0'}},{'rank':'4',"
        "'children':{'core':'7'}}],'nodelist':['n2','n3','n4'],'properties':{"
        "'y':'2,4'}}}");
    struct rp_rset *m = dec ("{'version':1,'execution':{'R_lite':[{'rank':'1',"
                             "'children':{'core':'0-3','gpu':'0'}}],"
                             "'nodelist':['other']}}");
    rp_error_t e;
    struct rp_rset *r;

    r = rp_rset_union (a, b, &e);
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0-3','gpu':'0'},"
                "'rank':'0-3'},{'children':{'core':'7'},'rank':'4'}],"
                "'expiration':9.0,'nodelist':['n[0-4]'],'properties':{'x':'0,"
                "3','y':'2,4'},'starttime':1.0},'version':1}",
                "union");
    rp_rset_destroy (r);

    r = rp_rset_diff (a, b, &e);
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0-3','gpu':'0'},"
                "'rank':'0-1'},{'children':{'core':'2-3','gpu':'0'},'rank':'2'"
                "}],'expiration':9.0,'nodelist':['n[0-2]'],'properties':{'x':"
                "'0'},'starttime':1.0},'version':1}",
                "diff drops rank 3 (left with nothing) and its properties");
    rp_rset_destroy (r);

    r = rp_rset_intersect (a, b, &e);
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0-1'},'rank':'2'"
                "},{'children':{'core':'0-3','gpu':'0'},'rank':'3'}],"
                "'expiration':9.0,'nodelist':['n[2-3]'],'properties':{'x':'3',"
                "'y':'2'},'starttime':1.0},'version':1}",
                "intersect keeps common ranks, properties of both");
    rp_rset_destroy (r);

    errno = 0;
    ok (rp_rset_union (a, m, &e) == NULL && errno == EINVAL,
        "union with a different host for a rank fails with EINVAL");
    is (e.text, "rank 1: host other does not match n1", "union error text");
    r = rp_rset_diff (a, m, &e);
    ok (r && rp_rset_equal (r, a),
        "diff subtracts nothing where host names differ");
    rp_rset_destroy (r);
    r = rp_rset_intersect (a, m, &e);
    ok (r && rp_rset_ntargets (r) == 0,
        "intersect keeps nothing where host names differ");
    rp_rset_destroy (r);
    errno = 0;
    ok (rp_rset_diff (NULL, a, &e) == NULL && errno == EINVAL,
        "diff (NULL, a) fails with EINVAL");
    errno = 0;
    ok (rp_rset_intersect (a, NULL, &e) == NULL && errno == EINVAL,
        "intersect (a, NULL) fails with EINVAL");
    errno = 0;
    ok (rp_rset_union (NULL, NULL, &e) == NULL && errno == EINVAL,
        "union (NULL, NULL) fails with EINVAL");
    rp_rset_destroy (a);
    rp_rset_destroy (b);
    rp_rset_destroy (m);
}

static void test_empty_targets (void)
{
    struct rp_rset *a = rp_rset_create ();
    struct rp_rset *b = rp_rset_create ();
    rp_error_t e;
    struct rp_rset *r;

    add (a, 0, "n0", NULL, NULL);
    add (a, 1, "n1", NULL, NULL);
    add (b, 1, "n1", "0", NULL);
    r = rp_rset_intersect (a, a, &e);
    ok (r && rp_rset_equal (r, a), "a & a keeps targets without resources");
    rp_rset_destroy (r);
    r = rp_rset_diff (a, a, &e);
    ok (r && rp_rset_ntargets (r) == 0, "a - a is empty");
    rp_rset_destroy (r);
    r = rp_rset_intersect (a, b, &e);
    ok (r && rp_rset_ntargets (r) == 0,
        "an empty target and one with a core have nothing in common");
    rp_rset_destroy (r);
    r = rp_rset_diff (a, b, &e);
    ok (r && rp_rset_ntargets (r) == 1 && rp_rset_hostname (r, 0),
        "a - b keeps rank 0 (not in b), drops rank 1");
    rp_rset_destroy (r);
    ok (!rp_rset_is_subset (a, b),
        "a target of a missing from b: not a subset");
    ok (rp_rset_is_subset (b, b) && rp_rset_is_subset (a, a),
        "every set is a subset of itself");
    rp_rset_destroy (a);
    rp_rset_destroy (b);
}

static void test_copy_ranks (void)
{
    struct rp_rset *r = dec (
        "{'version':1,'execution':{'R_lite':[{'rank':'0-3','children':{'core'"
        ":'0'}}],'nodelist':['n[0-3]'],'properties':{'x':'0,3','y':'1'},"
        "'expiration':7},'scheduling':{}}");
    struct rp_idset *sel = ids ("1,3,9");
    struct rp_rset *c = rp_rset_copy_ranks (r, sel);

    encodes_as (c,
                "{'execution':{'R_lite':[{'children':{'core':'0'},'rank':'1,3'"
                "}],'expiration':7.0,'nodelist':['n[1,3]'],'properties':{'x':"
                "'3','y':'1'},'starttime':0.0},'scheduling':{},'version':1}",
                "copy_ranks keeps the selected targets, their properties, the "
                "times and opaque keys");
    errno = 0;
    ok (rp_rset_copy_ranks (r, NULL) == NULL && errno == EINVAL,
        "copy_ranks (r, NULL) fails with EINVAL");
    errno = 0;
    ok (rp_rset_copy (NULL) == NULL && errno == EINVAL,
        "copy (NULL) fails with EINVAL");
    rp_rset_destroy (c);
    rp_idset_destroy (sel);
    rp_rset_destroy (r);
}

static void test_rerank (void)
{
    struct rp_rset *r = dec (
        "{'version':1,'execution':{'R_lite':[{'rank':'10','children':{'core':"
        "'0'}},{'rank':'11','children':{'core':'1'}},{'rank':'12','children':{"
        "'core':'2'}}],'nodelist':['a,b,c'],'properties':{'p':'10,12'}}}");
    struct rp_rset *before = rp_rset_copy (r);
    static const struct {
        const char *hosts;
        const char *error;
    } bad[] = {
        { "c,b", "rank 10 (a): host not in the hostlist" },
        { "c,b,a,d", "hostlist has 4 hosts for 3 execution targets" },
        { "c,b,d", "host d is not the host of an execution target" },
        { "c,b,b", "host b appears twice in the hostlist" },
    };
    rp_error_t e;

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        errno = 0;
        ok (rp_rset_rerank (r, bad[i].hosts, &e) < 0 && errno == EINVAL,
            "rerank %s fails with EINVAL", bad[i].hosts);
        is (e.text, bad[i].error, "rerank %s error text", bad[i].hosts);
    }
    ok (rp_rset_rerank (r, "c[", &e) < 0, "rerank with a bad hostlist fails");
    ok (rp_rset_equal (r, before), "failed reranks changed nothing");
    ok (rp_rset_rerank (r, "c,a,b", &e) == 0, "rerank c,a,b works");
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'2'},'rank':'0'},"
                "{'children':{'core':'0'},'rank':'1'},{'children':{'core':'1'}"
                ",'rank':'2'}],'expiration':0.0,'nodelist':['c,a,b'],"
                "'properties':{'p':'0-1'},'starttime':0.0},'version':1}",
                "ranks follow host positions, properties follow targets");
    cmp_ok (rp_rset_rank_of (r, "a"), ==, 1, "rank_of sees the new ranks");
    rp_rset_destroy (before);
    rp_rset_destroy (r);
}

static void test_remap (void)
{
    struct rp_rset *r = dec (
        "{'version':1,'execution':{'R_lite':[{'rank':'4,9','children':{'core':"
        "'8-11','gpu':'2-3'}},{'rank':'6','children':{'core':'1,5'}}],"
        "'nodelist':['n4','n6','n9'],'properties':{'p':'6,9'}}}");
    rp_error_t e;

    ok (rp_rset_remap (r, &e) == 0, "remap works");
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'0-3','gpu':'2-3'"
                "},'rank':'0,2'},{'children':{'core':'0-1'},'rank':'1'}],"
                "'expiration':0.0,'nodelist':['n[4,6,9]'],'properties':{'p':'"
                "1-2'},'starttime':0.0},'version':1}",
                "ranks 0..n-1, cores 0..k-1, GPUs kept, properties follow");
    errno = 0;
    ok (rp_rset_remap (NULL, &e) < 0 && errno == EINVAL,
        "remap (NULL) fails with EINVAL");
    rp_rset_destroy (r);
}

static void test_equal_subset (void)
{
    struct rp_rset *a = rp_rset_create ();
    struct rp_rset *b;
    rp_error_t e;
    struct rp_idset *r0 = ids ("0");

    add (a, 0, "n0", "0-3", "0");
    add (a, 1, "n1", "0-3", NULL);
    b = rp_rset_copy (a);
    ok (rp_rset_equal (a, b), "a copy is equal");
    rp_rset_property_add (b, "p", r0, &e);
    ok (!rp_rset_equal (a, b), "a property makes sets differ");
    rp_rset_property_remove (b, "p", NULL, &e);
    ok (rp_rset_equal (a, b), "equal again without the property");
    rp_rset_set_times (b, 0., 5., &e);
    ok (!rp_rset_equal (a, b), "expiration makes sets differ");
    ok (rp_rset_is_subset (a, b), "times do not matter to is_subset");
    rp_rset_destroy (b);
    b = rp_rset_create ();
    add (b, 0, "n0", "0-3", "0");
    add (b, 1, "n1", "0-2", NULL);
    ok (!rp_rset_equal (a, b), "different cores: not equal");
    ok (rp_rset_is_subset (b, a), "b is a subset of a");
    ok (!rp_rset_is_subset (a, b), "a is not a subset of b");
    ok (!rp_rset_equal (a, NULL) && !rp_rset_is_subset (NULL, a),
        "NULL is never equal or a subset");
    rp_rset_destroy (b);
    b = rp_rset_create ();
    add (b, 0, "x0", "0-3", "0");
    add (b, 1, "n1", "0-3", NULL);
    ok (!rp_rset_equal (a, b) && !rp_rset_is_subset (a, b),
        "a different host: not equal, not a subset");
    rp_rset_destroy (b);
    rp_rset_destroy (a);
    rp_idset_destroy (r0);
}

static void test_verify (void)
{
    struct rp_rset *expected = rp_rset_create ();
    rp_error_t e;
    static const struct {
        const char *actual;
        const char *error; /* NULL: passes */
    } tests[] = {
        { "{'version':1,'execution':{'R_lite':[{'rank':'2-4','children':{'"
          "core':'0-8','gpu':'0-1'}}],'nodelist':['node[2-4]']}}",
          NULL },
        { "{'version':1,'execution':{'R_lite':[{'rank':'2-4','children':{'"
          "core':'0-15','gpu':'0-3'}}],'nodelist':['node[2-4]']}}",
          NULL },
        { "{'version':1,'execution':{'R_lite':[{'rank':'2,4','children':{'"
          "core':'0-8','gpu':'0-1'}},{'rank':'3','children':{'core':'0-6',"
          "'gpu':'0-1'}}],'nodelist':['node[2-4]']}}",
          "rank 3 (node3): missing core 7-8" },
        { "{'version':1,'execution':{'R_lite':[{'rank':'2-4','children':{'"
          "core':'0-8','gpu':'1'}}],'nodelist':['node[2-4]']}}",
          "rank 2 (node2): missing gpu 0" },
        { "{'version':1,'execution':{'R_lite':[{'rank':'2-4','children':{'"
          "core':'0-8','gpu':'0-1'}}],'nodelist':['node7,node[3-4]']}}",
          "rank 2: expected host node2, got node7" },
        { "{'version':1,'execution':{'R_lite':[{'rank':'2-3','children':{'"
          "core':'0-8','gpu':'0-1'}}],'nodelist':['node[2-3]']}}",
          "rank 4 (node4): missing" },
        { "{'version':1,'execution':{'R_lite':[{'rank':'1-4','children':{'"
          "core':'0-8','gpu':'0-1'}}],'nodelist':['node[1-4]']}}",
          "rank 1 (node1): unexpected" },
    };

    add (expected, 2, "node2", "0-8", "0-1");
    add (expected, 3, "node3", "0-8", "0-1");
    add (expected, 4, "node4", "0-8", "0-1");
    for (size_t i = 0; i < sizeof (tests) / sizeof (tests[0]); i++) {
        struct rp_rset *actual = dec (tests[i].actual);
        e.text[0] = '\0';
        errno = 0;
        if (!tests[i].error) {
            ok (rp_rset_verify (expected, actual, &e) == 0,
                "verify[%zu] passes", i);
        } else {
            ok (rp_rset_verify (expected, actual, &e) < 0 && errno == EINVAL,
                "verify[%zu] fails with EINVAL", i);
            is (e.text, tests[i].error, "verify[%zu] error text", i);
        }
        rp_rset_destroy (actual);
    }
    errno = 0;
    ok (rp_rset_verify (NULL, expected, &e) < 0 && errno == EINVAL,
        "verify (NULL) fails with EINVAL");
    rp_rset_destroy (expected);
}

/* --- randomized checks against a model ----------------------------------- */

#define NRANKS 12

struct model {
    bool present[NRANKS];
    int host[NRANKS]; /* 0: "n<rank>", 1: "m<rank>" */
    unsigned int cores[NRANKS];
    unsigned int gpus[NRANKS];
    unsigned int props[NRANKS]; /* bit 0: "x", bit 1: "y@gpu" */
};

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static unsigned int rnd (unsigned int n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned int)(rng_state % n);
}

static void model_random (struct model *m)
{
    memset (m, 0, sizeof (*m));
    for (int i = 0; i < NRANKS; i++) {
        if (rnd (10) < 4)
            continue;
        m->present[i] = true;
        m->host[i] = rnd (8) == 0;
        m->cores[i] = rnd (6) == 0 ? 0 : rnd (256);
        m->gpus[i] = rnd (3) == 0 ? 0 : rnd (16);
        m->props[i] = rnd (4);
    }
}

static struct rp_idset *mask_ids (unsigned int mask)
{
    struct rp_idset *set = rp_idset_create ();

    for (unsigned int b = 0; set && b < 32; b++) {
        if (mask & (1U << b))
            rp_idset_add (set, b);
    }
    return set;
}

static struct rp_rset *model_rset (const struct model *m)
{
    static const char *pname[] = { "x", "y@gpu" };
    struct rp_rset *r = rp_rset_create ();
    rp_error_t e;

    for (int i = 0; i < NRANKS; i++) {
        char host[16];
        struct rp_idset *c = mask_ids (m->cores[i]);
        struct rp_idset *g = mask_ids (m->gpus[i]);
        snprintf (host, sizeof (host), "%c%d", m->host[i] ? 'm' : 'n', i);
        if (m->present[i] && rp_rset_add_target (r, i, host, c, g, &e) < 0)
            BAIL_OUT ("model add_target: %s", e.text);
        rp_idset_destroy (c);
        rp_idset_destroy (g);
    }
    for (int p = 0; p < 2; p++) {
        struct rp_idset *set = rp_idset_create ();
        for (int i = 0; i < NRANKS; i++) {
            if (m->present[i] && (m->props[i] & (1U << p)))
                rp_idset_add (set, i);
        }
        if (rp_rset_property_add (r, pname[p], set, &e) < 0)
            BAIL_OUT ("model property_add: %s", e.text);
        rp_idset_destroy (set);
    }
    return r;
}

static bool common (const struct model *a, const struct model *b, int i)
{
    return a->present[i] && b->present[i] && a->host[i] == b->host[i];
}

/* Expected union; false when a rank's hosts differ. */
static bool model_union (const struct model *a, const struct model *b,
                         struct model *out)
{
    *out = *a;
    for (int i = 0; i < NRANKS; i++) {
        if (!b->present[i])
            continue;
        if (a->present[i] && a->host[i] != b->host[i])
            return false;
        out->present[i] = true;
        out->host[i] = b->host[i];
        out->cores[i] |= b->cores[i];
        out->gpus[i] |= b->gpus[i];
        out->props[i] |= b->props[i];
    }
    return true;
}

static void model_diff (const struct model *a, const struct model *b,
                        struct model *out)
{
    *out = *a;
    for (int i = 0; i < NRANKS; i++) {
        if (!common (a, b, i))
            continue;
        out->cores[i] &= ~b->cores[i];
        out->gpus[i] &= ~b->gpus[i];
        out->present[i] = out->cores[i] || out->gpus[i];
    }
}

static void model_intersect (const struct model *a, const struct model *b,
                             struct model *out)
{
    memset (out, 0, sizeof (*out));
    for (int i = 0; i < NRANKS; i++) {
        bool a_empty = !a->cores[i] && !a->gpus[i];
        bool b_empty = !b->cores[i] && !b->gpus[i];
        if (!common (a, b, i))
            continue;
        out->host[i] = a->host[i];
        out->cores[i] = a->cores[i] & b->cores[i];
        out->gpus[i] = a->gpus[i] & b->gpus[i];
        out->props[i] = a->props[i] | b->props[i];
        out->present[i] = out->cores[i] || out->gpus[i] || (a_empty && b_empty);
    }
}

/* Expected errno of append: 0, EINVAL (host) or EEXIST (overlap), from the
 * lowest rank that has either problem. */
static int model_append_errno (const struct model *a, const struct model *b)
{
    for (int i = 0; i < NRANKS; i++) {
        if (!a->present[i] || !b->present[i])
            continue;
        if (a->host[i] != b->host[i])
            return EINVAL;
        if ((a->cores[i] & b->cores[i]) || (a->gpus[i] & b->gpus[i]))
            return EEXIST;
    }
    return 0;
}

static bool model_subset (const struct model *a, const struct model *b)
{
    for (int i = 0; i < NRANKS; i++) {
        if (!a->present[i])
            continue;
        if (!common (a, b, i) || (a->cores[i] & ~b->cores[i])
            || (a->gpus[i] & ~b->gpus[i]))
            return false;
    }
    return true;
}

static bool check_result (struct rp_rset *got, const struct model *want)
{
    struct rp_rset *exp = model_rset (want);
    bool pass = got && rp_rset_equal (got, exp);

    rp_rset_destroy (exp);
    rp_rset_destroy (got);
    return pass;
}

static bool round_trips (const struct rp_rset *r)
{
    char *s = rp_rset_encode (r, 0);
    rp_error_t e;
    struct rp_rset *again = s ? rp_rset_decode (s, &e) : NULL;
    bool pass = again && rp_rset_equal (r, again);

    if (!pass)
        diag ("%s", s ? s : "(encode failed)");
    free (s);
    rp_rset_destroy (again);
    return pass;
}

static bool union_fails (const struct rp_rset *a, const struct rp_rset *b)
{
    struct rp_rset *u;

    errno = 0;
    u = rp_rset_union (a, b, NULL);
    rp_rset_destroy (u);
    return !u && errno == EINVAL;
}

static void test_random (void)
{
    int fails[7] = { 0 };
    const int rounds = 400;

    for (int k = 0; k < rounds; k++) {
        struct model ma, mb, mu, md, mi;
        struct rp_rset *a, *b, *dst;
        rp_error_t e;
        bool u_ok;
        int want;

        model_random (&ma);
        model_random (&mb);
        a = model_rset (&ma);
        b = model_rset (&mb);
        u_ok = model_union (&ma, &mb, &mu);
        model_diff (&ma, &mb, &md);
        model_intersect (&ma, &mb, &mi);
        if (u_ok ? !check_result (rp_rset_union (a, b, &e), &mu)
                 : !union_fails (a, b))
            fails[0]++;
        if (!check_result (rp_rset_diff (a, b, &e), &md))
            fails[1]++;
        if (!check_result (rp_rset_intersect (a, b, &e), &mi))
            fails[2]++;
        want = model_append_errno (&ma, &mb);
        dst = rp_rset_copy (a);
        errno = 0;
        if ((rp_rset_append (dst, b, &e) < 0 ? errno : 0) != want
            || (want && !rp_rset_equal (dst, a))
            || (!want && !check_result (rp_rset_copy (dst), &mu)))
            fails[3]++;
        rp_rset_destroy (dst);
        if (rp_rset_is_subset (a, b) != model_subset (&ma, &mb))
            fails[4]++;
        if (!round_trips (a))
            fails[5]++;
        if ((rp_rset_verify (a, b, NULL) == 0)
            != (model_subset (&ma, &mb)
                && memcmp (ma.present, mb.present, sizeof (ma.present)) == 0))
            fails[6]++;
        rp_rset_destroy (a);
        rp_rset_destroy (b);
    }
    cmp_ok (fails[0], ==, 0, "random union matches the model (%d rounds)",
            rounds);
    cmp_ok (fails[1], ==, 0, "random diff matches the model");
    cmp_ok (fails[2], ==, 0, "random intersect matches the model");
    cmp_ok (fails[3], ==, 0, "random append matches the model");
    cmp_ok (fails[4], ==, 0, "random is_subset matches the model");
    cmp_ok (fails[5], ==, 0, "random sets round trip");
    cmp_ok (fails[6], ==, 0, "random verify matches the model");
}

/* --- scale ---------------------------------------------------------------- */

/* 16384 targets whose children all differ: every target is its own R_lite
 * entry.  Checks the result, not the time. */
static void test_many_targets (void)
{
    const unsigned int n = 16384;
    struct rp_rset *r = rp_rset_create ();
    struct rp_rset *again;
    struct rp_rset *u;
    rp_error_t e;
    char *s;
    json_t *o;

    for (unsigned int i = 0; i < n; i++) {
        char host[32];
        struct rp_idset *c = rp_idset_create ();
        snprintf (host, sizeof (host), "node%u", i);
        rp_idset_add_range (c, i % 64, 64 + i / 64);
        if (rp_rset_add_target (r, i, host, c, NULL, &e) < 0)
            BAIL_OUT ("%s", e.text);
        rp_idset_destroy (c);
    }
    s = rp_rset_encode (r, 0);
    o = s ? json_loads (s, 0, NULL) : NULL;
    cmp_ok (json_array_size (
                json_object_get (json_object_get (o, "execution"), "R_lite")),
            ==, n, "16384 distinct targets encode as 16384 entries");
    again = s ? rp_rset_decode (s, &e) : NULL;
    ok (again && rp_rset_equal (r, again), "and decode back equal");
    u = rp_rset_union (r, again, &e);
    ok (u && rp_rset_equal (u, r), "union with an equal set is equal");
    rp_rset_destroy (u);
    u = rp_rset_diff (r, again, &e);
    ok (u && rp_rset_ntargets (u) == 0, "diff with an equal set is empty");
    rp_rset_destroy (u);
    cmp_ok (rp_rset_rank_of (r, "node9999"), ==, 9999, "rank_of node9999");
    json_decref (o);
    free (s);
    rp_rset_destroy (again);
    rp_rset_destroy (r);
}

static void test_cap (void)
{
    rp_error_t e;
    struct rp_rset *r;
    struct rp_rset *one;
    char s[256];

    snprintf (s, sizeof (s),
              "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-%u\","
              "\"children\":{\"core\":\"0\"}}],\"nodelist\":[\"n[0-%u]\"]}}",
              RP_RSET_MAX_TARGETS - 1, RP_RSET_MAX_TARGETS - 1);
    r = rp_rset_decode (s, &e);
    ok (r && rp_rset_ntargets (r) == RP_RSET_MAX_TARGETS,
        "RP_RSET_MAX_TARGETS targets decode");
    one = rp_rset_create ();
    add (one, RP_RSET_MAX_TARGETS, "extra", "0", NULL);
    errno = 0;
    ok (rp_rset_add_target (r, RP_RSET_MAX_TARGETS, "extra", NULL, NULL, &e) < 0
            && errno == EOVERFLOW,
        "add_target past RP_RSET_MAX_TARGETS fails with EOVERFLOW");
    is (e.text, "more than 1048576 execution targets", "EOVERFLOW text");
    errno = 0;
    ok (rp_rset_union (r, one, &e) == NULL && errno == EOVERFLOW,
        "union past RP_RSET_MAX_TARGETS fails with EOVERFLOW");
    errno = 0;
    ok (rp_rset_add (r, one, &e) < 0 && errno == EOVERFLOW
            && rp_rset_ntargets (r) == RP_RSET_MAX_TARGETS,
        "add past RP_RSET_MAX_TARGETS fails, set unchanged");
    rp_rset_destroy (one);
    rp_rset_destroy (r);
}

/* --- bounds --------------------------------------------------------------- */

static const struct {
    const char *in;
    size_t targets;
    uint64_t cores, gpus;
} sizes[] = {
    { "{'version':1,'execution':{'R_lite':[],'nodelist':[]}}", 0, 0, 0 },
    { "{'version':1,'execution':{'R_lite':[{'rank':'0-3','children':{'core':"
      "'0-7','gpu':'0-1'}},{'rank':'5','children':{'core':'0'}}],"
      "'nodelist':['n[0-4]']}}",
      5, 33, 8 },
    /* 2^20 ranks of 2^32 - 1 cores: counted, never expanded */
    { "{'version':1,'execution':{'R_lite':[{'rank':'0-1048575','children':{"
      "'core':'0-4294967294'}}],'nodelist':['n[0-1048575]']}}",
      1048576, UINT64_C (4503599626321920), 0 },
    /* only R_lite is read: a bad nodelist is decode's business */
    { "{'version':1,'execution':{'R_lite':[{'rank':'0','children':{'core':"
      "''}}],'nodelist':7}}",
      1, 0, 0 },
};

static void test_size_json (void)
{
    size_t nerrors = 0, agree = 0;

    for (size_t i = 0; i < sizeof (sizes) / sizeof (sizes[0]); i++) {
        rp_error_t e = { .text = "" };
        json_t *o = json_loads (J (sizes[i].in), 0, NULL);
        size_t targets = 0;
        uint64_t cores = 0, gpus = 0;
        int rc = rp_rset_size_json (o, &targets, &cores, &gpus, &e);
        ok (rc == 0 && targets == sizes[i].targets && cores == sizes[i].cores
                && gpus == sizes[i].gpus,
            "size_json[%zu]: %zu targets, %" PRIu64 " cores, %" PRIu64
            " GPUs %s",
            i, sizes[i].targets, sizes[i].cores, sizes[i].gpus, e.text);
        json_decref (o);
    }
    /* where size_json refuses R, it says what decode says */
    for (size_t i = 0; i < sizeof (invalid) / sizeof (invalid[0]); i++) {
        rp_error_t e = { .text = "" };
        json_t *o =
            json_loads (J (invalid[i].in), JSON_REJECT_DUPLICATES, NULL);
        if (!o || rp_rset_size_json (o, NULL, NULL, NULL, &e) == 0) {
            json_decref (o);
            continue;
        }
        nerrors++;
        agree += !strcmp (e.text, invalid[i].error);
        json_decref (o);
    }
    ok (nerrors > 20 && agree == nerrors,
        "size_json refuses %zu of the invalid R as decode does (%zu agree)",
        nerrors, agree);
    errno = 0;
    ok (rp_rset_size_json (NULL, NULL, NULL, NULL, NULL) < 0 && errno == EINVAL,
        "size_json (NULL) fails with EINVAL");

    ok (rp_rset_text_max (UINT64_C (3) << 29) == 33554432,
        "text_max: 32 MiB of R for 1.5 GiB");
    ok (rp_rset_text_max (47) == 0 && rp_rset_text_max (48) == 1,
        "text_max: 48 bytes of memory a byte");
    ok (rp_rset_text_max (UINT64_MAX) >= SIZE_MAX / 48,
        "text_max: no overflow");
}

/* Host names accepted without parsing (letters, digits, '.', '-', '_')
 * are exactly those RFC 29 reads back as one host, itself: random names
 * of those characters and a few others, with long digit runs. */
static bool reads_back (const char *name)
{
    rp_error_t e;
    struct rp_hostlist *hl = rp_hostlist_decode (name, &e);
    char buf[RP_HOSTLIST_MAX_NAME + 1];
    bool yes = hl && rp_hostlist_count (hl) == 1
               && rp_hostlist_nth_buf (hl, 0, buf, sizeof (buf)) == 0
               && !strcmp (buf, name);

    rp_hostlist_destroy (hl);
    return yes;
}

static void test_hostname_fast_path (void)
{
    static const char chars[] = "ab.-_0190[],x ";
    unsigned int seed = 17;
    size_t bad = 0, accepted = 0;

    for (int i = 0; i < 20000; i++) {
        char name[64];
        size_t n = 1 + (size_t)(rand_r (&seed) % 40);
        struct rp_rset *r = rp_rset_create ();
        rp_error_t e;
        for (size_t k = 0; k < n; k++)
            name[k] = rand_r (&seed) % 4 == 0
                          ? (char)('0' + rand_r (&seed) % 10)
                          : chars[rand_r (&seed) % (sizeof (chars) - 1)];
        name[n] = '\0';
        bool added = rp_rset_add_target (r, 0, name, NULL, NULL, &e) == 0;
        if (added != reads_back (name) && bad++ < 5)
            diag ("host name '%s': added %d", name, added);
        accepted += added;
        rp_rset_destroy (r);
    }
    ok (bad == 0 && accepted > 1000,
        "add_target accepts exactly the names read back as one host "
        "(%zu of 20000)",
        accepted);
}

/* A set keeps its first target, and that target's host name when it is
 * shorter than 32 bytes, in its own struct: a set of one target costs no
 * array and no copy of the name.  A second target moves the target out;
 * the set changed in place (add, append) takes the result's fields, its
 * own room included. */
static void test_one_target_inline (void)
{
    static const char h31[] = "h123456789012345678901234567890";
    static const char h32[] = "h1234567890123456789012345678901";
    struct rp_rset *r, *s1, *s2;
    rp_error_t e;
    size_t n0;

    if (!allocs_counted ())
        skip (1, "allocations are not counted here (sanitizer, valgrind)");
    else {
        struct rp_idset *c = ids ("0-3");
        n0 = allocs ();
        r = rp_rset_create ();
        ok (r && rp_rset_add_target (r, 0, "node0", c, NULL, &e) == 0
                && allocs () - n0 == 4,
            "test_one_target_inline: a set of one target is 4 allocations "
            "(the set with its ranks, children, cores, GPUs)");
        rp_idset_destroy (c);
        rp_rset_destroy (r);
    }
    r = rp_rset_create ();
    add (r, 5, "n5", "0-3", NULL);
    s1 = rp_rset_create ();
    add (s1, 2, "n2", "4", "0");
    ok (rp_rset_rank_of (r, "n5") == 5 && rp_rset_add (r, s1, &e) == 0
            && rp_rset_rank_of (r, "n5") == 5 && rp_rset_rank_of (r, "n2") == 2,
        "test_one_target_inline: add in place, both hosts found after");
    ids_is (rp_rset_ranks (r), "2,5",
            "test_one_target_inline: the ranks moved with the set's fields");
    encodes_as (r,
                "{'execution':{'R_lite':[{'children':{'core':'4','gpu':'0'},"
                "'rank':'2'},{'children':{'core':'0-3'},'rank':'5'}],"
                "'expiration':0.0,'nodelist':['n[2,5]'],'starttime':0.0},"
                "'version':1}",
                "test_one_target_inline: and encodes both");
    add (r, 9, h31, "1", NULL);
    add (r, 1, h32, "1", NULL);
    ok (rp_rset_ntargets (r) == 4 && rp_rset_rank_of (r, h31) == 9
            && rp_rset_rank_of (r, h32) == 1 && rp_rset_rank_of (r, "n2") == 2,
        "test_one_target_inline: grown to 4 targets, every host found");
    s2 = rp_rset_create ();
    add (s2, 7, h31, "0", NULL);
    add (s2, 8, h32, "0", NULL);
    ok (rp_rset_ntargets (s2) == 2 && rp_rset_append (s1, s2, &e) == 0
            && rp_rset_rank_of (s1, h31) == 7 && rp_rset_rank_of (s1, h32) == 8
            && rp_rset_rank_of (s1, "n2") == 2,
        "test_one_target_inline: 31 and 32 byte names, appended in place");
    rp_rset_destroy (s2);
    s2 = rp_rset_copy (s1);
    rp_rset_destroy (s1);
    ok (s2 && rp_rset_rank_of (s2, h32) == 8 && rp_rset_rank_of (s2, "n2") == 2,
        "test_one_target_inline: a copy outlives its source");
    rp_rset_destroy (s2);
    rp_rset_destroy (r);
}

int main (void)
{
    plan (NO_PLAN);
    test_rfc_example ();
    test_flux_core_output ();
    test_canonical ();
    test_normalized ();
    test_pretty ();
    test_encode_buf ();
    test_compact_is_jansson_dump ();
    test_compact_times ();
    test_one_host_nodelist ();
    test_one_target_rlite ();
    test_empty ();
    test_invalid ();
    test_invalid_other ();
    test_nodelist_errors ();
    test_duplicate_hosts ();
    test_opaque ();
    test_opaque_ops ();
    test_add_target ();
    test_grouping_shapes ();
    test_times ();
    test_property_check ();
    test_properties ();
    test_add_append ();
    test_union_diff_intersect ();
    test_empty_targets ();
    test_copy_ranks ();
    test_rerank ();
    test_remap ();
    test_equal_subset ();
    test_verify ();
    test_random ();
    test_many_targets ();
    test_cap ();
    test_size_json ();
    test_hostname_fast_path ();
    test_one_target_inline ();
    return done_testing ();
}
