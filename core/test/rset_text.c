/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for R read as text (core/jscan.c and the text reader of
 * core/rset.c), white box: the scanner on its own, then the reader
 * against jansson's tree (rset_decode_tree, the decode R had before).
 *
 * The randomized test writes random R (entries in any order, white
 * space, optional keys, the nodelist as names or ranges) and random
 * mutations of it (truncated, a byte changed or dropped, a member
 * inserted twice or of the wrong type, numbers past any range, escapes),
 * and checks for every text: the text reader accepts only what the tree
 * accepts, with the same set (encoded), reads every unmutated R itself,
 * and rp_rset_decode answers as the tree does, error text included.
 * Fixed seed: every run checks the same texts.
 */
#include <stdarg.h>

#include "core/jscan.c"
#include "core/jtext.c"
#include "core/rset.c"
#include "bench/rng.h"
#include "t/tap/tap.h"

/* --- the scanner ---------------------------------------------------------- */

static void test_scan_strings (void)
{
    static const struct {
        const char *text;
        const char *expect; /* NULL: not read */
    } cases[] = {
        { "\"abc\"", "abc" },     { " \t\r\n\"\"", "" }, { "\"a\\\"b\"", NULL },
        { "\"\xc3\xa9\"", NULL }, { "\"a\tb\"", NULL },  { "\"abc", NULL },
        { "abc", NULL },          { "", NULL },
    };

    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct jscan s = { .p = cases[i].text };
        const char *str = NULL;
        size_t len = 0;
        bool got = jscan_string (&s, &str, &len);
        char buf[64] = "";

        if (got)
            snprintf (buf, sizeof (buf), "%.*s", (int)len, str);
        ok (got == (cases[i].expect != NULL) && s.bad == !got
                && (!got || strcmp (buf, cases[i].expect) == 0),
            "jscan_string: case %zu reads %s", i,
            cases[i].expect ? cases[i].expect : "nothing");
    }
}

static void test_scan_values (void)
{
    static const struct {
        const char *text;
        int len; /* -1: not read */
    } cases[] = {
        { "{\"a\":[1,{\"b\":\"]}\"}]},", 20 },
        { "\"x\\\"y\" ", 6 },
        { "-1.5e3}", 6 },
        { "true,", 4 },
        { "{\"a\":1", -1 },
        { "\"abc", -1 },
        { "\"ab\\", -1 },
        { "}", -1 },
    };
    char deep[2 * JSCAN_MAX_DEPTH + 8];

    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct jscan s = { .p = cases[i].text };
        const char *v;
        size_t len = 0;
        bool got = jscan_value (&s, &v, &len);

        ok (got ? (int)len == cases[i].len : cases[i].len < 0,
            "jscan_value: case %zu spans %d bytes", i, cases[i].len);
    }
    memset (deep, '[', JSCAN_MAX_DEPTH + 1);
    memset (deep + JSCAN_MAX_DEPTH + 1, ']', JSCAN_MAX_DEPTH + 1);
    deep[2 * JSCAN_MAX_DEPTH + 2] = '\0';
    {
        struct jscan s = { .p = deep };
        const char *v;
        size_t len;
        ok (!jscan_value (&s, &v, &len) && s.bad,
            "jscan_value: nesting past JSCAN_MAX_DEPTH is not read");
    }
}

static void test_scan_lists (void)
{
    static const struct {
        const char *text;
        int count; /* elements; -1: bad */
    } cases[] = {
        { "[]", 0 },    { "[ 1 , 2 ,3 ]", 3 }, { "[1,]", -1 },
        { "[,1]", -1 }, { "[1 2]", -1 },       { "[1", -1 },
    };

    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        struct jscan s = { .p = cases[i].text };
        bool first = true;
        int n = 0;
        const char *v;
        size_t len;

        jscan_expect (&s, '[');
        while (jscan_next (&s, ']', &first) && jscan_value (&s, &v, &len))
            n++;
        ok (s.bad ? cases[i].count < 0 : n == cases[i].count && jscan_end (&s),
            "jscan_next: case %zu reads %d elements", i, cases[i].count);
    }
}

/* --- random R ----------------------------------------------------------- */

static unsigned int below (unsigned int n)
{
    return (unsigned int)(rnd () % n);
}

struct text {
    char s[16384];
    size_t len;
};

static void put (struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start (ap, fmt);
    n = vsnprintf (t->s + t->len, sizeof (t->s) - t->len, fmt, ap);
    va_end (ap);
    if (n > 0)
        t->len += (size_t)n;
    if (t->len >= sizeof (t->s))
        BAIL_OUT ("random R outgrew its buffer");
}

static const char *ws (void)
{
    static const char *const w[] = { "", "", "", " ", "\n  ", "\t", "\r\n" };
    return w[below (7)];
}

/* An idset string of 1-3 random ranges from base, or "" sometimes when
 * empty is allowed; *next is past its highest id. */
static void put_ids (struct text *t, unsigned int base, bool empty,
                     unsigned int *next)
{
    unsigned int n = empty ? below (4) : 1 + below (3);
    unsigned int id = base;

    put (t, "\"");
    for (unsigned int k = 0; k < n; k++) {
        unsigned int w = below (3);
        id += below (3);
        put (t, k ? ",%u" : "%u", id);
        if (w)
            put (t, "-%u", id + w);
        id += w + 2;
    }
    put (t, "\"");
    if (next)
        *next = id;
}

/* Members of one object, written in random order: each writes itself. */
typedef void (*member_f) (struct text *t, void *arg);

static void put_members (struct text *t, member_f *f, void **args, size_t n)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = below ((unsigned int)i);
        member_f tf = f[i - 1];
        void *ta = args[i - 1];
        f[i - 1] = f[j];
        args[i - 1] = args[j];
        f[j] = tf;
        args[j] = ta;
    }
    put (t, "{%s", ws ());
    for (size_t i = 0; i < n; i++) {
        if (i)
            put (t, ",%s", ws ());
        f[i](t, args[i]);
    }
    put (t, "%s}", ws ());
}

struct gen {
    unsigned int nentries;
    struct text ranks[8]; /* each entry's rank idset, quoted */
    unsigned int first;   /* the lowest rank */
    unsigned int ntargets;
};

static void m_core (struct text *t, void *arg)
{
    (void)arg;
    put (t, "\"core\":%s", ws ());
    put_ids (t, 0, true, NULL);
}

static void m_gpu (struct text *t, void *arg)
{
    (void)arg;
    put (t, "\"gpu\"%s:", ws ());
    put_ids (t, 0, true, NULL);
}

static void m_children (struct text *t, void *arg)
{
    member_f f[2] = { m_core, m_gpu };
    void *a[2] = { arg, arg };

    put (t, "\"children\":");
    put_members (t, f, a, 1 + below (2));
}

static void m_rank (struct text *t, void *arg)
{
    const struct text *ranks = arg;

    put (t, "\"rank\":%s", ranks->s);
}

static void m_rlite (struct text *t, void *arg)
{
    struct gen *g = arg;
    unsigned int order[8];

    for (unsigned int i = 0; i < g->nentries; i++)
        order[i] = i;
    for (unsigned int i = g->nentries; i > 1; i--) {
        unsigned int j = below (i), x = order[i - 1];
        order[i - 1] = order[j];
        order[j] = x;
    }
    put (t, "\"R_lite\":%s[", ws ());
    for (unsigned int i = 0; i < g->nentries; i++) {
        /* entries in random order, ranks ascending by entry number */
        unsigned int k = order[i];
        member_f f[2] = { m_rank, m_children };
        void *a[2] = { &g->ranks[k], NULL };
        put (t, i ? ",%s" : "%s", ws ());
        put_members (t, f, a, 2);
    }
    put (t, "%s]", ws ());
}

static void m_nodelist (struct text *t, void *arg)
{
    struct gen *g = arg;
    unsigned int i = 0;

    put (t, "\"nodelist\":[");
    while (i < g->ntargets) {
        unsigned int n = 1 + below (g->ntargets - i);
        put (t, i ? ",%s" : "%s", ws ());
        if (n == 1 || below (2))
            put (t, "\"h%u\"", i), n = 1;
        else
            put (t, "\"h[%u-%u]\"", i, i + n - 1);
        i += n;
    }
    put (t, "]");
}

static void m_properties (struct text *t, void *arg)
{
    struct gen *g = arg;

    put (t, "\"properties\":{\"x\":\"%u\"", g->first);
    if (below (2))
        put (t, ",\"y@z\":\"\"");
    put (t, "}");
}

static void m_starttime (struct text *t, void *arg)
{
    (void)arg;
    put (t, "\"starttime\":%s", below (2) ? "10" : "10.5");
}

static void m_expiration (struct text *t, void *arg)
{
    (void)arg;
    put (t, "\"expiration\":%s", below (2) ? "1e3" : "200");
}

static void m_nslots (struct text *t, void *arg)
{
    (void)arg;
    put (t, "\"nslots\":%u", 1 + below (9));
}

static void m_other (struct text *t, void *arg)
{
    (void)arg;
    put (t, "\"other\":[{\"a\":\"]\\\"\"},null,true,-0.5]");
}

static void m_version (struct text *t, void *arg)
{
    (void)arg;
    put (t, "\"version\":%s1", ws ());
}

static void m_scheduling (struct text *t, void *arg)
{
    (void)arg;
    put (t, "\"scheduling\":{\"graph\":{\"nodes\":[],\"e\":\"\\u00e9\"}}");
}

static void m_execution (struct text *t, void *arg)
{
    struct gen *g = arg;
    member_f f[8] = { m_rlite, m_nodelist };
    void *a[8] = { g, g };
    size_t n = 2;

    if (g->nentries && below (3) == 0)
        a[n] = g, f[n++] = m_properties;
    if (below (3) == 0)
        f[n++] = m_starttime;
    if (below (3) == 0)
        f[n++] = m_expiration;
    if (below (4) == 0)
        f[n++] = m_nslots;
    if (below (4) == 0)
        f[n++] = m_other;
    put (t, "\"execution\":%s", ws ());
    put_members (t, f, a, n);
}

/* Entries own disjoint rank ranges, ascending by entry number. */
static void gen_init (struct gen *g)
{
    unsigned int base = 0;

    g->nentries = below (5);
    g->ntargets = 0;
    for (unsigned int i = 0; i < g->nentries; i++) {
        struct text *r = &g->ranks[i];
        rp_error_t e;
        struct rp_idset *ids;

        r->len = 0;
        put_ids (r, base, false, &base);
        r->s[r->len - 1] = '\0';
        if (!(ids = rp_idset_decode (r->s + 1, &e)))
            BAIL_OUT ("random ranks %s: %s", r->s, e.text);
        if (i == 0)
            g->first = rp_idset_first (ids);
        g->ntargets += (unsigned int)rp_idset_count (ids);
        rp_idset_destroy (ids);
        r->s[r->len - 1] = '"';
        base++;
    }
}

static void random_rtext (struct text *t)
{
    static struct gen g;
    member_f f[4] = { m_version, m_execution };
    void *a[4] = { NULL, &g };
    size_t n = 2;

    gen_init (&g);
    if (below (4) == 0)
        f[n++] = m_scheduling;
    if (below (4) == 0)
        f[n++] = m_other;
    t->len = 0;
    put (t, "%s", ws ());
    put_members (t, f, a, n);
    put (t, "%s", ws ());
}

/* --- mutations ------------------------------------------------------------ */

static const char *const mut_values[] = {
    "0",
    "1",
    "-1",
    "{}",
    "[]",
    "\"\"",
    "\"0-3\"",
    "1e400",
    "99999999999999999999",
    "null",
    "\"a\\u0041\"",
    "\"\\u0000\"",
    "[{}]",
    "\"h0\"",
    "1.5",
    "\"\xc3\xa9\"",
    "\"\xff\"",
};

static const char *const mut_keys[] = {
    "rank",       "children", "core",       "gpu",        "version",
    "execution",  "R_lite",   "nodelist",   "properties", "starttime",
    "expiration", "nslots",   "scheduling", "x",
};

#define NELEM(a) (sizeof (a) / sizeof ((a)[0]))

static void splice (struct text *t, size_t pos, size_t drop, const char *ins)
{
    size_t n = strlen (ins);

    if (t->len - drop + n >= sizeof (t->s))
        return;
    memmove (t->s + pos + n, t->s + pos + drop, t->len - pos - drop + 1);
    memcpy (t->s + pos, ins, n);
    t->len = t->len - drop + n;
}

/* The position of a random c in t, or -1. */
static long find_random (const struct text *t, char c)
{
    size_t n = 0, k;

    for (size_t i = 0; i < t->len; i++)
        n += t->s[i] == c;
    if (n == 0)
        return -1;
    k = below ((unsigned int)n);
    for (size_t i = 0; i < t->len; i++) {
        if (t->s[i] == c && k-- == 0)
            return (long)i;
    }
    return -1;
}

/* The value after a random ':' replaced, when it is a plain string. */
static void replace_value (struct text *t)
{
    long at = find_random (t, ':');
    size_t p, q;

    if (at < 0)
        return;
    for (p = (size_t)at + 1; strchr (" \t\r\n", t->s[p]) && t->s[p]; p++)
        ;
    if (t->s[p] != '"')
        return;
    for (q = p + 1; t->s[q] && t->s[q] != '"'; q++)
        ;
    if (t->s[q] == '"')
        splice (t, p, q + 1 - p, mut_values[below (NELEM (mut_values))]);
}

static void mutate (struct text *t)
{
    static const char bytes[] = "{}[]\",:0a\\ -e\xc3";
    char member[96];
    long at;

    switch (below (6)) {
    case 0:
        t->len = below ((unsigned int)t->len + 1);
        t->s[t->len] = '\0';
        break;
    case 1:
        if (t->len)
            t->s[below ((unsigned int)t->len)] =
                bytes[below (sizeof (bytes) - 1)];
        break;
    case 2:
        if (t->len)
            splice (t, below ((unsigned int)t->len), 1, "");
        break;
    case 3:
    case 4:
        if ((at = find_random (t, '{')) < 0)
            break;
        snprintf (member, sizeof (member), "\"%s\":%s,",
                  mut_keys[below (NELEM (mut_keys))],
                  mut_values[below (NELEM (mut_values))]);
        splice (t, (size_t)at + 1, 0, member);
        break;
    default:
        replace_value (t);
        break;
    }
}

/* --- the text reader against the tree ------------------------------------- */

struct counts {
    bool called;
    size_t targets;
    uint64_t cores;
    uint64_t gpus;
};

/* Records what R_lite names; refuses more than 3 targets. */
static int check_small (size_t targets, uint64_t cores, uint64_t gpus,
                        void *arg, rp_error_t *error)
{
    struct counts *c = arg;

    *c = (struct counts){ true, targets, cores, gpus };
    if (targets > 3)
        return rp_error_set (error, E2BIG, "%zu targets", targets);
    return 0;
}

struct tally {
    int texts;
    int read; /* by the text reader */
    int bad;  /* disagreements */
};

static bool same_set (const struct rp_rset *a, const struct rp_rset *b)
{
    char *x = rp_rset_encode (a, 0), *y = rp_rset_encode (b, 0);
    bool same = x && y && strcmp (x, y) == 0;

    free (x);
    free (y);
    return same;
}

/* rp_rset_decode (or the checked decode) and the tree give one answer. */
static bool same_answer (const struct rp_rset *a, const rp_error_t *ea,
                         const struct rp_rset *b, const rp_error_t *eb)
{
    if (a && b)
        return same_set (a, b);
    return !a && !b && strcmp (ea->text, eb->text) == 0;
}

static void disagree (struct tally *tl, const char *s, const char *what)
{
    if (tl->bad++ < 5)
        diag ("%s: %s", what, s);
}

static void compare_checked (const char *s, struct tally *tl)
{
    struct counts c1 = { 0 }, c2 = { 0 };
    rp_error_t e1, e2;
    struct rp_rset *txt = rset_decode_text (s, check_small, &c1, &e1);
    struct rp_rset *tree = rset_decode_tree (s, check_small, &c2, &e2);
    struct rp_rset *dec = rset_decode_checked (s, check_small, &c1, &e1);

    if (txt && !tree)
        disagree (tl, s, "checked: read as text, refused by the tree");
    if (c1.called
        && (!c2.called || c1.targets != c2.targets || c1.cores != c2.cores
            || c1.gpus != c2.gpus))
        disagree (tl, s, "checked: R_lite counted otherwise");
    if (!same_answer (dec, &e1, tree, &e2))
        disagree (tl, s, "checked: decode and tree answer otherwise");
    rp_rset_destroy (txt);
    rp_rset_destroy (tree);
    rp_rset_destroy (dec);
}

static void compare (const char *s, bool valid, struct tally *tl)
{
    rp_error_t e1, e2, e3;
    struct rp_rset *txt = rset_decode_text (s, NULL, NULL, &e1);
    struct rp_rset *tree = rset_decode_tree (s, NULL, NULL, &e2);
    struct rp_rset *dec = rp_rset_decode (s, &e3);

    tl->texts++;
    tl->read += txt != NULL;
    if (txt && !tree)
        disagree (tl, s, "read as text, refused by the tree");
    else if (txt && !same_set (txt, tree))
        disagree (tl, s, "read as text as another set");
    if (valid && !txt)
        disagree (tl, s, e2.text);
    if (!same_answer (dec, &e3, tree, &e2))
        disagree (tl, s, "rp_rset_decode and the tree answer otherwise");
    rp_rset_destroy (txt);
    rp_rset_destroy (tree);
    rp_rset_destroy (dec);
    compare_checked (s, tl);
}

static void test_random (void)
{
    static struct text t;
    struct tally valid = { 0 }, mutated = { 0 };

    for (int i = 0; i < 3000; i++) {
        random_rtext (&t);
        compare (t.s, true, &valid);
        for (int k = 0; k < 4; k++) {
            for (int m = 0; m <= k; m++)
                mutate (&t);
            compare (t.s, false, &mutated);
        }
    }
    ok (valid.bad == 0 && valid.read == valid.texts,
        "%d random R: all read as text, as the tree reads them", valid.texts);
    ok (mutated.bad == 0, "%d mutated R (%d read as text): as the tree answers",
        mutated.texts, mutated.read);
    ok (mutated.read > 0 && mutated.read < mutated.texts,
        "mutations both keep and break R");
}

static void test_null (void)
{
    rp_error_t e;

    errno = 0;
    ok (!rp_rset_decode (NULL, &e) && errno == EINVAL
            && strcmp (e.text, "R: input is NULL") == 0,
        "rp_rset_decode (NULL) fails with EINVAL");
    ok (!rset_decode_text (NULL, NULL, NULL, &e),
        "rset_decode_text (NULL) reads nothing");
}

/* RFC 20's example (conformance/rfc20/example1.json) is read as text. */
static void test_rfc_example (void)
{
    static const char text[] =
        "{\n  \"version\": 1,\n  \"execution\": {\n    \"R_lite\": [\n"
        "      {\n        \"rank\": \"19-22\",\n        \"children\": {\n"
        "          \"core\": \"0-47\",\n          \"gpu\": \"0-7\"\n"
        "        }\n      }\n    ],\n    \"nodelist\": [\n"
        "      \"node[186-189]\"\n    ],\n    \"nslots\": 32,\n"
        "    \"starttime\": 1676560542,\n    \"expiration\": 1676562342\n"
        "  }\n}\n";
    rp_error_t e1, e2;
    struct rp_rset *txt = rset_decode_text (text, NULL, NULL, &e1);
    struct rp_rset *tree = rset_decode_tree (text, NULL, NULL, &e2);

    ok (txt && tree && same_set (txt, tree) && rp_rset_ntargets (txt) == 4
            && strcmp (rp_rset_hostname (txt, 22), "node189") == 0,
        "RFC 20's example is read as text, as the tree reads it");
    rp_rset_destroy (txt);
    rp_rset_destroy (tree);
}

/* A nodelist string longer than the reader's buffer for host names. */
static void test_long_nodelist (void)
{
    static struct text t;
    rp_error_t e1, e2;
    struct rp_rset *txt, *tree;

    t.len = 0;
    put (&t, "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":"
             "\"0-99\",\"children\":{\"core\":\"0\"}}],\"nodelist\":[\"");
    for (int i = 0; i < 100; i++)
        put (&t, i ? ",longhostname%d" : "longhostname%d", i);
    put (&t, "\"]}}");
    txt = rset_decode_text (t.s, NULL, NULL, &e1);
    tree = rset_decode_tree (t.s, NULL, NULL, &e2);
    ok (t.len > 1000 && txt && tree && same_set (txt, tree)
            && strcmp (rp_rset_hostname (txt, 99), "longhostname99") == 0,
        "a nodelist string of %zu bytes is read as text", t.len);
    rp_rset_destroy (txt);
    rp_rset_destroy (tree);
}

/* What the text reader gives up on, rp_rset_decode still reads. */
static void test_not_plain (void)
{
    static const char *const texts[] = {
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"\\u0030\","
        "\"children\":{\"core\":\"0\"}}],\"nodelist\":[\"h0\"]}}",
        "{\"version\":1,\"execution\":{\"R_lite\":[],\"nodelist\":[],"
        "\"x\":\"\xc3\xa9\"}}",
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0\","
        "\"children\":{\"core\":\"0\"}}],\"nodelist\":[\"h\\u0030\"]}}",
    };

    for (size_t i = 0; i < NELEM (texts); i++) {
        rp_error_t e;
        struct rp_rset *r = rp_rset_decode (texts[i], &e);
        ok (r != NULL, "text with escapes or UTF-8, case %zu, decodes", i);
        rp_rset_destroy (r);
    }
}

/* --- a set with room for its first target's record (rset_create_one) ---- */

/* A set of rset_create_one with target rank of host, cores lo .. hi. */
static struct rp_rset *room_set (unsigned int rank, const char *host,
                                 unsigned int lo, unsigned int hi)
{
    struct rp_rset *r = rset_create_one (NULL, NULL);
    struct rp_idset *cores, *gpus;
    rp_error_t e;

    if (!r || rset_add_target_empty (r, rank, host, &cores, &gpus, &e) < 0
        || rp_idset_add_range (cores, lo, hi) < 0)
        BAIL_OUT ("room_set: %s", strerror (errno));
    return r;
}

static struct rp_rset *decoded (const char *text)
{
    rp_error_t e;
    struct rp_rset *r = rp_rset_decode (text, &e);

    if (!r)
        BAIL_OUT ("decoded: %s", e.text);
    return r;
}

static size_t refs_of (const struct rp_rset *r, size_t i)
{
    return atomic_load (&r->t[i].ch->refs);
}

/* The record in the set's block is its first target's, shared as any
 * other: the block outlives the set while a copy refers to it (under
 * valgrind or a sanitizer a block freed early reads after free). */
static void test_room_shared (void)
{
    struct rp_rset *r = room_set (3, "node3", 0, 3);
    struct rp_rset *want = decoded (
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"3\","
        "\"children\":{\"core\":\"0-3\"}}],\"nodelist\":[\"node3\"]}}");
    struct rp_rset *copy, *back;
    char *text;

    ok (r->room_used && r->t[0].ch == set_room (r)
            && refs_of (r, 0) == (2 * REF | IN_SET),
        "room: the first target's record is in the set's block, the target's "
        "and the set's references on it");
    text = rp_rset_encode (r, 0);
    back = text ? decoded (text) : NULL;
    ok (same_set (r, want) && back && rp_rset_equal (back, r)
            && rp_rset_equal (r, want) && rp_rset_count (r, "core") == 4
            && strcmp (rp_rset_hostname (r, 3), "node3") == 0,
        "room: R encodes as a set made by decode, and decodes equal");
    free (text);
    rp_rset_destroy (back);
    copy = rp_rset_copy (r);
    ok (copy && copy->t[0].ch == r->t[0].ch
            && refs_of (r, 0) == (3 * REF | IN_SET),
        "room: a copy shares the record");
    rp_rset_destroy (r);
    ok (refs_of (copy, 0) == (REF | IN_SET) && same_set (copy, want),
        "room: the set destroyed, the copy still reads its record");
    rp_rset_destroy (copy);
    rp_rset_destroy (want);
}

/* A second target gets a record of its own; a refused target leaves the
 * room free; an operation in place (built aside, swapped in) leaves each
 * block its own room. */
static void test_room_more (void)
{
    struct rp_rset *r = room_set (3, "node3", 0, 3);
    struct rp_rset *four = decoded (
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"4\","
        "\"children\":{\"core\":\"0-3\"}}],\"nodelist\":[\"node4\"]}}");
    struct rp_rset *want = decoded (
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"3-4\","
        "\"children\":{\"core\":\"0-3\"}}],\"nodelist\":[\"node[3-4]\"]}}");
    struct rp_rset *x = rset_create_one (NULL, NULL);
    struct rp_idset *cores, *gpus;
    rp_error_t e;

    ok (x && rset_add_target_empty (x, RP_IDSET_MAX_ID + 1u, "n", &cores,
                                    &gpus, &e)
                    < 0
            && !x->room_used,
        "room: a target refused leaves the room free");
    ok (rset_add_target_empty (x, 1, "n1", &cores, &gpus, &e) == 0
            && rset_add_target_empty (x, 2, "n2", &cores, &gpus, &e) == 0
            && x->t[0].ch == set_room (x) && x->t[1].ch != set_room (x),
        "room: given to the first target only");
    ok (rset_add_target_empty (x, 1, "n1", &cores, &gpus, &e) < 0
            && errno == EEXIST && refs_of (x, 0) == (2 * REF | IN_SET),
        "room: a rank taken twice is refused, its record's references kept");
    rp_rset_destroy (x);
    ok (rp_rset_add (r, four, &e) == 0 && r->room && r->room_used
            && same_set (r, want),
        "room: a set changed in place keeps its block's room");
    rp_rset_destroy (four);
    ok (same_set (r, want), "room: and reads what it holds");
    rp_rset_destroy (r);
    rp_rset_destroy (want);
}

/* Targets pushed out of rank order, then sorted: the set made in order;
 * the first target's record in the room. */
static void test_push_sort (void)
{
    static const unsigned int ranks[] = { 5, 3, 4 };
    struct rp_rset *r = rset_create_one (NULL, NULL);
    struct rp_rset *want = decoded (
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"3-5\","
        "\"children\":{\"core\":\"0-1\"}}],\"nodelist\":[\"n[3-5]\"]}}");
    struct rp_idset *cores, *gpus;
    char host[16];
    rp_error_t e;
    bool pushed = true;

    for (size_t i = 0; i < NELEM (ranks); i++) {
        snprintf (host, sizeof (host), "n%u", ranks[i]);
        pushed = pushed
                 && rset_push_target_empty (r, ranks[i], host, &cores, &gpus,
                                            &e)
                        == 0
                 && rset_ids_add_range (cores, 0, 1) == 0;
    }
    ok (pushed && r->t[0].rank == 5 && r->t[0].ch == set_room (r),
        "push: targets appended in the order given, the first in the room");
    rset_sort_targets (r);
    ok (same_set (r, want) && rp_rset_equal (r, want)
            && strcmp (rp_rset_hostname (r, 4), "n4") == 0
            && rp_rset_rank_of (r, "n5") == 5,
        "push: sorted, the set made in rank order");
    ok (rset_push_target_empty (r, RP_IDSET_MAX_ID + 1u, "x", &cores, &gpus,
                                &e)
                < 0
            && strcmp (e.text, "rank 4294967295 is out of range") == 0,
        "push: a rank out of range is refused");
    rp_rset_destroy (r);
    rp_rset_destroy (want);
}

/* rset_ids_add_range: the first range of an empty set in place, the
 * others (and bad ranges) as rp_idset_add_range answers. */
static void test_ids_add_range (void)
{
    struct rp_idset *a = rp_idset_create (), *b = rp_idset_create ();
    char *sa = NULL, *sb = NULL;
    int ra, rb;

    ok (a && b && rset_ids_add_range (a, 4, 7) == 0 && a->n == 1
            && a->r == &a->one && rp_idset_count (a) == 4
            && rset_ids_add_range (a, 0, 1) == 0
            && rset_ids_add_range (a, 2, 2) == 0
            && rp_idset_add_range (b, 0, 2) == 0
            && rp_idset_add_range (b, 4, 7) == 0
            && (sa = rp_idset_encode (a, RP_IDSET_RANGES))
            && (sb = rp_idset_encode (b, RP_IDSET_RANGES))
            && strcmp (sa, "0-2,4-7") == 0 && strcmp (sb, sa) == 0,
        "rset_ids_add_range: a first range in place, then merged as "
        "rp_idset_add_range merges");
    free (sa);
    free (sb);
    rp_idset_destroy (a);
    a = rp_idset_create ();
    errno = 0;
    ra = rset_ids_add_range (a, 3, 2);
    ok (ra < 0 && errno == EINVAL && rp_idset_empty (a),
        "rset_ids_add_range: lo > hi is EINVAL, the set left empty");
    errno = 0;
    rb = rset_ids_add_range (a, 0, RP_IDSET_MAX_ID + 1u);
    ok (rb < 0 && errno == ERANGE && rp_idset_empty (a),
        "rset_ids_add_range: past RP_IDSET_MAX_ID is ERANGE");
    rp_idset_destroy (a);
    rp_idset_destroy (b);
}

int main (void)
{
    plan (NO_PLAN);
    rng_state = 0x9e3779b97f4a7c15ULL;
    test_scan_strings ();
    test_scan_values ();
    test_scan_lists ();
    test_null ();
    test_rfc_example ();
    test_long_nodelist ();
    test_not_plain ();
    test_room_shared ();
    test_room_more ();
    test_ids_add_range ();
    test_push_sort ();
    test_random ();
    done_testing ();
}
