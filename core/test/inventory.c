/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The resource inventory (core/inventory.c, core/inventory_config.c,
 * core/inventory_flux.c): the configuration block, flux-core's drain and
 * undrain rules, every operation's errors, the event log (what is
 * written, replay, a torn last line, hostile logs), redefinition,
 * compaction, following a writer, and reading a Flux event log. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "respol/document.h"
#include "respol/eventlog.h"
#include "respol/inventory.h"
#include "t/tap/tap.h"

static char dir[] = "/tmp/respol-inventory-XXXXXX";
static char logpath[256];

static struct rp_rset *R16 (void)
{
    struct rp_rset *R = rp_rset_decode (
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-15\","
        "\"children\":{\"core\":\"0-3\",\"gpu\":\"0\"}}],\"starttime\":0,"
        "\"expiration\":0,\"nodelist\":[\"node[0-15]\"]}}",
        NULL);
    if (!R)
        BAIL_OUT ("R16");
    return R;
}

/* An idset, borrowed: kept until 256 more are made. */
static struct rp_idset *ids (const char *s)
{
    static struct rp_idset *keep[256];
    static int k;
    struct rp_idset *i = rp_idset_decode (s, NULL);

    if (!i)
        BAIL_OUT ("idset %s", s);
    rp_idset_destroy (keep[k % 256]);
    keep[k++ % 256] = i;
    return i;
}

static char *enc (const struct rp_idset *i)
{
    static char buf[4][256];
    static int k;
    char *s = rp_idset_encode (i, RP_IDSET_RANGES);
    char *b = buf[k++ % 4];

    snprintf (b, 256, "%s", s ? s : "(null)");
    free (s);
    return b;
}

static void write_file (const char *p, const char *data)
{
    FILE *f = fopen (p, "w");
    if (!f || fputs (data, f) < 0 || fclose (f) != 0)
        BAIL_OUT ("cannot write %s", p);
}

static char *read_file (const char *p)
{
    static char buf[1 << 16];
    FILE *f = fopen (p, "r");
    size_t n = f ? fread (buf, 1, sizeof (buf) - 1, f) : 0;

    buf[n] = '\0';
    if (f)
        fclose (f);
    return buf;
}

/* --- the configuration block --------------------------------------------- */

static struct rp_rset *config (const char *yaml, struct rp_idset **ex,
                               rp_error_t *e)
{
    struct rp_doc *doc =
        rp_doc_load (yaml, strlen (yaml), "res.yaml", RP_DOC_YAML, e);
    struct rp_rset *R;

    if (!doc)
        return NULL;
    R = rp_inventory_config_rset (rp_doc_root (doc), doc, ex, e);
    rp_doc_destroy (doc);
    return R;
}

static void test_config (void)
{
    struct rp_idset *ex = NULL;
    rp_error_t e;
    struct rp_rset *R = config ("resources:\n"
                                "  config:\n"
                                "    - hosts: b[1-2]\n"
                                "      cores: 0-3\n"
                                "    - hosts: a0,b1\n"
                                "      gpus: '0'\n"
                                "      properties: [gpu]\n"
                                "  exclude: a0\n",
                                &ex, &e);
    char *s;

    ok (R != NULL, "a config block with two entries");
    s = R ? rp_rset_encode (R, 0) : NULL;
    is (s,
        "{\"execution\":{\"R_lite\":[{\"children\":{\"core\":\"0-3\",\"gpu\":"
        "\"0\"},\"rank\":\"0\"},{\"children\":{\"core\":\"0-3\"},\"rank\":"
        "\"1\"},{\"children\":{\"core\":\"\",\"gpu\":\"0\"},\"rank\":"
        "\"2\"}],\"expiration\":"
        "0.0,\"nodelist\":[\"b[1-2],a0\"],\"properties\":{\"gpu\":\"0,2\"},"
        "\"starttime\":0.0},\"version\":1}",
        "ranks by first appearance, a host in two entries gets both");
    is (ex ? enc (ex) : NULL, "2", "exclude by host name");
    free (s);
    rp_rset_destroy (R);
    rp_idset_destroy (ex);

    static const struct {
        const char *yaml;
        const char *error;
    } bad[] = {
        { "x: 1\n", "res.yaml:1:1: resources: missing" },
        { "resources: []\n", "res.yaml:1:12: resources: must be a mapping" },
        { "resources:\n  exclude: '1'\n",
          "res.yaml:2:3: resources: needs config or path" },
        { "resources:\n  path: R.json\n  config: []\n",
          "res.yaml:2:3: resources: config and path are exclusive" },
        { "resources:\n  confg: []\n",
          "res.yaml:2:3: resources.confg: unknown key" },
        { "resources:\n  config: []\n", "res.yaml:2:11: resources.config: must "
                                        "be a non-empty list of entries" },
        { "resources:\n  config:\n    - cores: 0-1\n",
          "res.yaml:3:7: resources.config[0]: hosts: missing" },
        { "resources:\n  config:\n    - hosts: 'n[1-'\n",
          "res.yaml:3:14: resources.config[0].hosts: hostlist: \"n[1-\": "
          "missing ']' at offset 4" },
        { "resources:\n  config:\n    - hosts: n1\n      cores: 3,2\n",
          "res.yaml:4:14: resources.config[0].cores: idset: \"3,2\": ids not "
          "ascending at offset 2" },
        { "resources:\n  config:\n    - hosts: n1\n      cores: 0\n      "
          "color: red\n",
          "res.yaml:5:7: resources.config[0].color: unknown key" },
        { "resources:\n  config:\n    - hosts: n1\n      cores: 0\n      "
          "properties: [a, 'b|c']\n",
          "res.yaml:5:23: resources.config[0].properties[1]: property name "
          "\"b|c\": illegal character '|' at offset 1" },
        { "resources:\n  config:\n    - hosts: n[1-3]\n      cores: 0\n    - "
          "hosts: n[4-5]\n",
          "res.yaml:3:5: resources.config: n[4-5] assigned no resources" },
        { "resources:\n  config:\n    - hosts: n1\n      cores: 0\n  exclude: "
          "n9\n",
          "res.yaml:5:12: resources.exclude: host 'n9' is not in the "
          "inventory" },
        { "resources:\n  config:\n    - hosts: n1\n      cores: 0\n  state: "
          "3\n",
          "res.yaml:5:10: resources.state: must be a string" },
        { "resources:\n  path: /nonexistent/R.json\n",
          "res.yaml:2:9: resources.path: /nonexistent/R.json: No such file or "
          "directory" },
    };
    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        e.text[0] = '\0';
        R = config (bad[i].yaml, NULL, &e);
        ok (R == NULL, "bad config %zu fails", i);
        is (e.text, bad[i].error, "with '%s'", bad[i].error);
        rp_rset_destroy (R);
    }
}

/* --- operations in memory ------------------------------------------------- */

static void drain_is (struct rp_inventory *inv, unsigned int rank, double time,
                      const char *reason, const char *what)
{
    double t = -1;
    const char *r = "unset";
    bool d = rp_inventory_drain_info (inv, rank, &t, &r);

    ok (d && t == time
            && ((!reason && !r) || (reason && r && !strcmp (reason, r))),
        "%s: rank %u drained at %g, reason %s (got %s at %g)", what, rank, time,
        reason ? reason : "none", d ? (r ? r : "none") : "undrained", t);
}

static void test_drain_rules (void)
{
    struct rp_rset *R = R16 ();
    struct rp_idset *ex = ids ("0"), *i1 = ids ("1"), *i12 = ids ("1-2");
    struct rp_idset *i01 = ids ("0-1"), *i5 = ids ("5");
    struct rp_inventory *inv = rp_inventory_create (R, ex, NULL);
    rp_error_t e;

    ok (inv != NULL, "an inventory of 16 targets, rank 0 excluded");
    ok (rp_inventory_drain (inv, i1, "disk", RP_DRAIN_DEFAULT, 100, &e) == 0,
        "drain 1");
    drain_is (inv, 1, 100, "disk", "drain");
    errno = 0;
    ok (rp_inventory_drain (inv, i12, "x", RP_DRAIN_DEFAULT, 101, &e) < 0
            && errno == EEXIST,
        "drain 1-2 again fails (EEXIST)");
    is (e.text, "rank 1 already drained", "flux-core's message");
    ok (rp_inventory_drain (inv, i01, "x", RP_DRAIN_DEFAULT, 101, &e) < 0,
        "drain 0-1 fails");
    is (e.text, "ranks 0-1 already drained or excluded",
        "drained and excluded in one message");
    ok (rp_inventory_drain (inv, ex, "x", RP_DRAIN_DEFAULT, 101, &e) < 0
            && errno == EINVAL,
        "draining an excluded target: EINVAL");
    is (e.text, "rank 0 excluded", "says so");
    ok (rp_inventory_drain (inv, ex, "x", RP_DRAIN_FORCE, 101, &e) < 0,
        "no mode drains an excluded target");
    ok (rp_inventory_drain (inv, i12, "new", RP_DRAIN_UPDATE, 102, &e) == 0,
        "drain --update 1-2");
    drain_is (inv, 1, 100, "disk", "update keeps reason and time");
    drain_is (inv, 2, 102, "new", "update drains an undrained target");
    ok (rp_inventory_drain (inv, i1, "over", RP_DRAIN_OVERWRITE, 103, &e) == 0,
        "drain --force 1");
    drain_is (inv, 1, 100, "over", "overwrite: new reason, same time");
    ok (rp_inventory_drain (inv, i1, "forced", RP_DRAIN_FORCE, 104, &e) == 0,
        "drain --force --force 1");
    drain_is (inv, 1, 104, "forced", "force: new reason and time");
    ok (rp_inventory_drain (inv, i5, NULL, RP_DRAIN_DEFAULT, 105, &e) == 0,
        "drain 5 without a reason");
    drain_is (inv, 5, 105, NULL, "no reason");
    ok (rp_inventory_drain (inv, i5, "late", RP_DRAIN_DEFAULT, 106, &e) == 0,
        "a target drained without a reason may be drained again");
    drain_is (inv, 5, 105, "late", "the reason is set, the time kept");
    ok (rp_inventory_drain (inv, i1, NULL, RP_DRAIN_OVERWRITE, 107, &e) == 0,
        "drain --force 1 without a reason");
    drain_is (inv, 1, 104, NULL, "overwrite without a reason clears it");
    is (enc (rp_inventory_drained (inv)), "1-2,5", "drained set");

    errno = 0;
    ok (rp_inventory_undrain (inv, ids ("2-3"), NULL, RP_DRAIN_DEFAULT, 110, &e)
                < 0
            && errno == EEXIST,
        "undrain 2-3: 3 is not drained");
    is (e.text, "rank 3 not drained", "says which");
    ok (rp_inventory_undrain (inv, ids ("2-3"), "ok", RP_DRAIN_UPDATE, 110, &e)
            == 0,
        "undrain --update 2-3");
    is (enc (rp_inventory_drained (inv)), "1,5", "2 undrained");
    ok (!rp_inventory_drain_info (inv, 2, NULL, NULL), "no drain info left");

    ok (rp_inventory_set_up (inv, ids ("3-4"), false, 111, &e) == 0,
        "down 3-4");
    ok (rp_inventory_set_up (inv, ids ("4-5"), false, 112, &e) < 0
            && errno == EEXIST,
        "down 4-5 fails");
    is (e.text, "rank 4 already down", "already down");
    ok (rp_inventory_set_up (inv, ids ("3,6"), true, 112, &e) < 0,
        "up 3,6 fails");
    is (e.text, "rank 6 already up", "already up");
    ok (rp_inventory_set_up (inv, ids ("4"), true, 113, &e) == 0, "up 4");
    is (enc (rp_inventory_down (inv)), "3", "down set");
    ok (rp_inventory_shrink (inv, ids ("14-15"), 114, &e) == 0, "shrink 14-15");
    ok (rp_inventory_drain (inv, ids ("13-14"), "x", RP_DRAIN_DEFAULT, 115, &e)
            < 0,
        "a removed target takes no drain");
    is (e.text, "rank 14 removed", "says it was removed");
    ok (rp_inventory_shrink (inv, ids ("15"), 115, &e) < 0,
        "nor another shrink");
    {
        struct rp_idset *up = rp_inventory_up (inv);
        is (enc (up), "2,4,6-13", "up: not excluded, drained, down or removed");
        rp_idset_destroy (up);
    }
    ok (rp_inventory_drain (inv, ids ("15-17"), "x", RP_DRAIN_DEFAULT, 116, &e)
                < 0
            && errno == ENOENT,
        "targets outside the inventory: ENOENT");
    is (e.text, "ranks 16-17 are not in the inventory", "named");
    ok (rp_inventory_drain (inv, ids (""), "x", RP_DRAIN_DEFAULT, 116, &e) < 0,
        "no targets");
    is (e.text, "no targets", "is an error");

    ok (rp_inventory_property_add (inv, "big@gpu", ids ("1-3"), 120, &e) == 0,
        "property-add big@gpu 1-3");
    ok (rp_rset_has_property (rp_inventory_R (inv), 2, "big"),
        "big@gpu gives big (RFC 20)");
    ok (rp_inventory_property_remove (inv, "big", ids ("2"), 121, &e) == 0
            && !rp_rset_has_property (rp_inventory_R (inv), 2, "big@gpu")
            && rp_rset_has_property (rp_inventory_R (inv), 3, "big@gpu"),
        "property-remove big 2 removes big@gpu from 2 only");
    ok (rp_inventory_property_add (inv, "a|b", ids ("1"), 122, &e) < 0,
        "a bad property name");
    is (e.text, "property name \"a|b\": illegal character '|' at offset 1",
        "is refused");
    ok (rp_inventory_expire (inv, 5000, 123, &e) == 0
            && rp_rset_expiration (rp_inventory_R (inv)) == 5000,
        "expire");
    ok (rp_inventory_expire (inv, -1, 123, &e) < 0, "a negative expiration");
    is (e.text, "expiration: must be a number >= 0", "is refused");

    {
        struct rp_idset *t = rp_inventory_targets (inv, "node[3-4]", &e);
        is (t ? enc (t) : e.text, "3-4", "targets by host name");
        rp_idset_destroy (t);
        ok (!rp_inventory_targets (inv, "node[3-4],nodeX", &e), "unknown host");
        is (e.text, "host 'nodeX' is not in the inventory", "named");
        ok (!rp_inventory_targets (inv, "12-20", &e), "ranks beyond");
        is (e.text, "ranks 16-20 are not in the inventory", "named");
    }
    ok (rp_inventory_nevents (inv) > 0 && !rp_inventory_logpath (inv),
        "in memory: events counted, no log");
    rp_inventory_destroy (inv);
    rp_rset_destroy (R);
}

/* --- the log ---------------------------------------------------------------
 */

static bool same_state (const struct rp_inventory *a,
                        const struct rp_inventory *b)
{
    const struct rp_idset *d = rp_inventory_drained (a);

    if (!rp_rset_equal (rp_inventory_R (a), rp_inventory_R (b))
        || !rp_idset_equal (rp_inventory_excluded (a),
                            rp_inventory_excluded (b))
        || !rp_idset_equal (d, rp_inventory_drained (b))
        || !rp_idset_equal (rp_inventory_down (a), rp_inventory_down (b))
        || !rp_idset_equal (rp_inventory_removed (a), rp_inventory_removed (b)))
        return false;
    for (unsigned int r = rp_idset_first (d); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (d, r)) {
        double ta, tb;
        const char *ra, *rb;
        rp_inventory_drain_info (a, r, &ta, &ra);
        rp_inventory_drain_info (b, r, &tb, &rb);
        if (ta != tb || !ra != !rb || (ra && strcmp (ra, rb)))
            return false;
    }
    return true;
}

static struct rp_inventory *open_dir (int flags, struct rp_diags *w,
                                      rp_error_t *e)
{
    return rp_inventory_open (dir, flags, w, e);
}

static void test_log (void)
{
    struct rp_rset *R = R16 ();
    struct rp_idset *ex = ids ("0");
    struct rp_inventory *w, *r;
    struct rp_diags *warn = rp_diags_create ();
    rp_error_t e;
    bool changed;
    const char *log;

    unlink (logpath);
    w = open_dir (RP_INVENTORY_WRITE, NULL, &e);
    ok (w && !rp_inventory_R (w), "a new state directory: no resources");
    ok (rp_inventory_define (w, R, ex, "configuration", 10, &changed, &e) == 0
            && changed,
        "define");
    ok (rp_inventory_define (w, R, ex, "configuration", 11, &changed, &e) == 0
            && !changed,
        "the same definition again logs nothing");
    ok (rp_inventory_drain (w, ids ("1-2"), "bad disk", RP_DRAIN_DEFAULT,
                            1713906350.984611, &e)
            == 0,
        "drain 1-2");
    ok (rp_inventory_undrain (w, ids ("2"), NULL, RP_DRAIN_DEFAULT, 20, &e)
            == 0,
        "undrain 2");
    ok (rp_inventory_set_up (w, ids ("3"), false, 21, &e) == 0, "down 3");
    ok (rp_inventory_property_add (w, "fast", ids ("4-5"), 22, &e) == 0,
        "property-add");
    ok (rp_inventory_expire (w, 9999.5, 23, &e) == 0, "expire");
    ok (rp_inventory_shrink (w, ids ("15"), 24, &e) == 0, "shrink");
    log = read_file (logpath);
    like (log,
          "\n{\"timestamp\":1713906350.984611,\"name\":\"drain\",\"context\":"
          "{\"idset\":\"1-2\",\"nodelist\":\"node[1-2]\",\"reason\":\"bad "
          "disk\",\"overwrite\":0}}\n"
          "{\"timestamp\":20.0,\"name\":\"undrain\",\"context\":{\"idset\":"
          "\"2\",\"nodelist\":\"node2\",\"overwrite\":0}}\n"
          "{\"timestamp\":21.0,\"name\":\"down\",\"context\":{\"idset\":\"3\","
          "\"nodelist\":\"node3\"}}\n"
          "{\"timestamp\":22.0,\"name\":\"property-add\",\"context\":{"
          "\"properties\":{\"fast\":\"4-5\"}}}\n"
          "{\"timestamp\":23.0,\"name\":\"resource-update\",\"context\":{"
          "\"expiration\":9999.5}}\n"
          "{\"timestamp\":24.0,\"name\":\"shrink\",\"context\":{\"idset\":"
          "\"15\",\"nodelist\":\"node15\"}}\n",
          "one line per operation, drain and undrain as flux-core writes them");
    like (log,
          "{\"timestamp\":10.0,\"name\":\"resource-define\",\"context\":{"
          "\"method\":\"configuration\",\"R\":{",
          "the log starts with the definition");
    ok (rp_inventory_nevents (w) == 7, "7 events");
    r = open_dir (0, warn, &e);
    ok (r && same_state (r, w), "a reader replays the same state");
    ok (rp_diags_count (warn) == 0, "without warnings");
    rp_inventory_destroy (r);

    /* A crash in the middle of a line. */
    {
        int fd = open (logpath, O_WRONLY | O_APPEND);
        ok (write (fd, "{\"timestamp\":25,\"na", 19) == 19, "a torn line");
        close (fd);
    }
    r = open_dir (0, warn, &e);
    ok (r && same_state (r, w), "a reader ignores it");
    ok (rp_diags_count (warn) == 1, "and warns");
    {
        char want[512];
        snprintf (want, sizeof (want),
                  "%s:8: incomplete last line (19 bytes) ignored", logpath);
        is (rp_diags_text (warn, 0), want, "naming the line");
    }
    rp_inventory_destroy (r);
    rp_inventory_destroy (w);
    rp_diags_clear (warn);
    w = open_dir (RP_INVENTORY_WRITE, warn, &e);
    ok (w && rp_diags_count (warn) == 1
            && strstr (rp_diags_text (warn, 0), "(19 bytes) dropped"),
        "a writer drops it");
    ok (rp_inventory_set_up (w, ids ("3"), true, 26, &e) == 0,
        "and appends after it");
    r = open_dir (0, NULL, &e);
    ok (r && same_state (r, w) && rp_inventory_nevents (r) == 8,
        "nothing before the torn line was lost");
    rp_inventory_destroy (r);
    rp_inventory_destroy (w);
    rp_diags_destroy (warn);
    rp_rset_destroy (R);
}

/* A log: the definition of R16, then the lines of tail. */
static void write_log (const char *tail)
{
    struct rp_rset *R = R16 ();
    char *Rs = rp_rset_encode (R, 0);
    char *buf;

    if (asprintf (&buf,
                  "{\"timestamp\":1,\"name\":\"resource-define\",\"context\":"
                  "{\"method\":\"configuration\",\"R\":%s,\"exclude\":\"\"}}"
                  "\n%s",
                  Rs, tail)
        < 0)
        BAIL_OUT ("asprintf");
    write_file (logpath, buf);
    free (buf);
    free (Rs);
    rp_rset_destroy (R);
}

static void test_hostile (void)
{
    static const struct {
        const char *line;
        const char *error; /* after "PATH:2: " */
    } bad[] = {
        { "{\"timestamp\":2,\"name\":\"explode\"}", "explode: unknown event" },
        { "{\"timestamp\":2,\"name\":\"drain\"}", "drain: no context" },
        { "{\"timestamp\":2,\"name\":\"drain\",\"context\":{\"idset\":1,"
          "\"nodelist\":\"n\"}}",
          "drain: idset: must be a string" },
        { "{\"timestamp\":2,\"name\":\"drain\",\"context\":{\"idset\":\"1\"}}",
          "drain: nodelist: must be a string" },
        { "{\"timestamp\":2,\"name\":\"drain\",\"context\":{\"idset\":"
          "\"0-4294967294\",\"nodelist\":\"n\"}}",
          "drain: idset: ranks 16-4294967294 are not in the inventory" },
        { "{\"timestamp\":2,\"name\":\"drain\",\"context\":{\"idset\":"
          "\"0-4294967295\",\"nodelist\":\"n\"}}",
          "drain: idset: idset: \"0-4294967295\": id too large (max "
          "4294967294) at offset 2" },
        { "{\"timestamp\":2,\"name\":\"drain\",\"context\":{\"idset\":\"1\","
          "\"nodelist\":\"n\",\"overwrite\":3}}",
          "drain: overwrite: must be 0, 1 or 2" },
        { "{\"timestamp\":2,\"name\":\"drain\",\"context\":{\"idset\":\"1\","
          "\"nodelist\":\"n\",\"reason\":[]}}",
          "drain: reason: must be a string" },
        { "{\"timestamp\":2,\"name\":\"down\",\"context\":{\"idset\":\"1\","
          "\"nodelist\":\"n\",\"why\":1}}",
          "down: unknown key 'why'" },
        { "{\"timestamp\":2,\"name\":\"property-add\",\"context\":{"
          "\"properties\":{\"a b\":\"1\"}}}",
          "property-add: properties: property name \"a b\": illegal character "
          "' ' "
          "at offset 1" },
        { "{\"timestamp\":2,\"name\":\"property-add\",\"context\":{"
          "\"properties\":{\"a\":\"99\"}}}",
          "property-add: properties: rank 99 is not in the inventory" },
        { "{\"timestamp\":2,\"name\":\"property-add\",\"context\":{"
          "\"properties\":[]}}",
          "property-add: properties: must be an object" },
        { "{\"timestamp\":2,\"name\":\"resource-update\",\"context\":{"
          "\"expiration\":\"soon\"}}",
          "resource-update: expiration: must be a number >= 0" },
        { "{\"timestamp\":2,\"name\":\"resource-define\",\"context\":{"
          "\"method\":\"magic\",\"R\":{},\"exclude\":\"\"}}",
          "resource-define: method: unknown method 'magic'" },
        { "{\"timestamp\":2,\"name\":\"resource-define\",\"context\":{"
          "\"method\":\"configuration\",\"R\":{\"version\":2},\"exclude\":"
          "\"\"}}",
          "resource-define: R: version: unsupported version 2" },
        { "[1,2,3]", "not a JSON object" },
        { "{\"timestamp\":2,\"name\":\"drain\",\"context\":{\"idset\":\"1\","
          "\"nodelist\":\"n\"},\"extra\":0}",
          "unknown key 'extra'" },
    };
    rp_error_t e;
    char want[512];

    for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
        char *tail;
        if (asprintf (&tail, "%s\n", bad[i].line) < 0)
            BAIL_OUT ("asprintf");
        write_log (tail);
        free (tail);
        snprintf (want, sizeof (want), "%s:2: %s", logpath, bad[i].error);
        e.text[0] = '\0';
        ok (!open_dir (0, NULL, &e), "hostile log %zu is refused", i);
        is (e.text, want, "with '%s'", bad[i].error);
    }
    write_file (logpath, "{\"timestamp\":1,\"name\":\"drain\",\"context\":{"
                         "\"idset\":\"1\",\"nodelist\":\"n\"}}\n");
    snprintf (want, sizeof (want), "%s:1: drain: event before resource-define",
              logpath);
    ok (!open_dir (0, NULL, &e), "an event before any definition");
    is (e.text, want, "is refused");
    unlink (logpath);
}

static void test_redefine (void)
{
    struct rp_rset *R = R16 ();
    struct rp_rset *R2 = rp_rset_decode (
        "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-2\","
        "\"children\":{\"core\":\"0-7\"}}],\"starttime\":0,\"expiration\":0,"
        "\"nodelist\":[\"node5,node1,new0\"]}}",
        NULL);
    struct rp_idset *ex2 = ids ("1");
    struct rp_inventory *inv = rp_inventory_create (R, NULL, NULL);
    rp_error_t e;
    bool changed;

    rp_inventory_drain (inv, ids ("1,5"), "why", RP_DRAIN_DEFAULT, 50, &e);
    rp_inventory_set_up (inv, ids ("7"), false, 51, &e);
    ok (rp_inventory_define (inv, R2, ex2, "configuration", 60, &changed, &e)
                == 0
            && changed,
        "redefine: node5 is rank 0, node1 rank 1 (excluded), new0 rank 2");
    is (enc (rp_inventory_drained (inv)), "0",
        "node5's drain moved to rank 0; node1's was dropped (excluded)");
    drain_is (inv, 0, 50, "why", "with its time and reason");
    is (enc (rp_inventory_down (inv)), "", "node7 is gone, so is its down");
    rp_inventory_destroy (inv);
    rp_rset_destroy (R);
    rp_rset_destroy (R2);
}

static void test_compact_and_follow (void)
{
    struct rp_rset *R = R16 ();
    struct rp_inventory *w, *r, *again;
    size_t before, after;
    rp_error_t e;

    unlink (logpath);
    w = open_dir (RP_INVENTORY_WRITE, NULL, &e);
    rp_inventory_define (w, R, ids ("15"), "configuration", 1, NULL, &e);
    r = open_dir (0, NULL, &e);
    ok (r && rp_inventory_nevents (r) == 1, "a reader opened");
    for (int i = 0; i < 50; i++) {
        rp_inventory_drain (w, ids ("1-3"), "a", RP_DRAIN_FORCE, 100 + i, &e);
        rp_inventory_undrain (w, ids ("2"), NULL, RP_DRAIN_DEFAULT, 100 + i,
                              &e);
    }
    rp_inventory_drain (w, ids ("9"), NULL, RP_DRAIN_DEFAULT, 200, &e);
    rp_inventory_set_up (w, ids ("4-5"), false, 201, &e);
    rp_inventory_property_add (w, "x", ids ("6"), 202, &e);
    rp_inventory_property_remove (w, "x", ids ("6"), 203, &e);
    rp_inventory_property_add (w, "y", ids ("7-8"), 204, &e);
    rp_inventory_expire (w, 1e9, 205, &e);
    rp_inventory_shrink (w, ids ("12"), 206, &e);
    ok (rp_inventory_refresh (r, 5, &e) == 5, "the reader reads 5 events");
    ok (rp_inventory_refresh (r, 0, &e) > 0 && same_state (r, w),
        "then the rest: the writer's state");
    ok (rp_inventory_compact (w, 300, &before, &after, &e) == 0, "compact");
    ok (before == 108 && after == 7, "108 events become 7 (got %zu, %zu)",
        before, after);
    again = open_dir (0, NULL, &e);
    ok (again && same_state (again, w) && rp_inventory_nevents (again) == 7,
        "the compacted log gives the same state");
    rp_inventory_destroy (again);
    rp_inventory_set_up (w, ids ("4"), true, 301, &e);
    ok (rp_inventory_refresh (r, 0, &e) == 8 && same_state (r, w),
        "a reader sees the log was replaced and reads the new one");
    ok (rp_inventory_refresh (r, 0, &e) == 0, "then nothing new");
    rp_inventory_destroy (r);
    rp_inventory_destroy (w);
    rp_rset_destroy (R);
}

/* --- Flux ------------------------------------------------------------------
 */

static void test_flux (void)
{
    struct rp_rset *R = R16 ();
    char fluxlog[300];
    struct rp_inventory *inv = rp_inventory_create (R, ids ("0"), NULL);
    struct rp_diags *w = rp_diags_create ();
    struct rp_flux_import st;
    rp_error_t e;
    char want[512];

    snprintf (fluxlog, sizeof (fluxlog), "%s/resource.eventlog", dir);
    /* flux-core's t2311: a log from before 0.62. */
    write_file (
        fluxlog,
        "{\"timestamp\":1713893408.8647039,\"name\":\"resource-init\","
        "\"context\":{\"restart\":false,\"drain\":{},\"online\":\"\","
        "\"exclude\":\"\"}}\n"
        "{\"timestamp\":1713893408.8673074,\"name\":\"resource-define\","
        "\"context\":{\"method\":\"configuration\"}}\n"
        "{\"timestamp\":1713893411.0698946,\"name\":\"online\",\"context\":{"
        "\"idset\":\"0\"}}\n"
        "{\"timestamp\":1713905771.5895882,\"name\":\"offline\",\"context\":{"
        "\"idset\":\"1-3\"}}\n"
        "{\"timestamp\":1713905772.5933509,\"name\":\"resource-init\","
        "\"context\":{\"restart\":true,\"drain\":{},\"online\":\"\","
        "\"exclude\":\"\"}}\n"
        "{\"timestamp\":1713906350.984611,\"name\":\"drain\",\"context\":{"
        "\"idset\":\"2\",\"reason\":\"smurfs\",\"overwrite\":0}}\n"
        "{\"timestamp\":1713906351.000000,\"name\":\"drain\",\"context\":{"
        "\"idset\":\"2\",\"reason\":\"underwear\",\"overwrite\":1}}\n"
        "{\"timestamp\":1713906369.9485908,\"name\":\"resource-init\","
        "\"context\":{\"restart\":true,\"drain\":{\"2\":{\"timestamp\":"
        "1713906351.000000,\"reason\":\"underwear\"}},\"online\":\"\","
        "\"exclude\":\"\"}}\n");
    ok (rp_inventory_import_flux (inv, fluxlog, 1e9, w, &st, &e) == 0,
        "import flux-core's pre-0.62 test log");
    is (enc (rp_inventory_drained (inv)), "2", "rank 2 drained");
    drain_is (inv, 2, 1713906351.0, "underwear", "as flux-core shows it");
    ok (st.events == 8 && st.used == 0 && st.ignored == 8 && st.logged == 1,
        "8 events: the drains before the last resource-init ignored "
        "(%zu %zu %zu %zu)",
        st.events, st.used, st.ignored, st.logged);
    ok (rp_inventory_import_flux (inv, fluxlog, 1e9, w, &st, &e) == 0
            && st.logged == 0,
        "a second import logs nothing");

    /* The new format: nodelists, a host that moved, a host that is gone,
     * an excluded target, an undrain. */
    write_file (
        fluxlog,
        "{\"timestamp\":100,\"name\":\"drain\",\"context\":{\"idset\":\"1-2\","
        "\"nodelist\":\"node[1-2]\",\"reason\":\"uvula\",\"overwrite\":0}}\n"
        "{\"timestamp\":101,\"name\":\"drain\",\"context\":{\"idset\":\"40\","
        "\"nodelist\":\"node7\",\"reason\":\"moved\",\"overwrite\":0}}\n"
        "{\"timestamp\":102,\"name\":\"drain\",\"context\":{\"idset\":\"42\","
        "\"nodelist\":\"fake42\",\"reason\":\"\",\"overwrite\":0}}\n"
        "{\"timestamp\":103,\"name\":\"drain\",\"context\":{\"idset\":\"0\","
        "\"nodelist\":\"node0\",\"reason\":\"excl\"}}\n"
        "{\"timestamp\":104,\"name\":\"undrain\",\"context\":{\"idset\":\"1\","
        "\"nodelist\":\"node1\"}}\n"
        "{\"timestamp\":105,\"name\":\"drain\",\"context\":{\"idset\":\"2\","
        "\"nodelist\":\"node2\",\"reason\":\"second\",\"overwrite\":0}}\n"
        "{\"timestamp\":106,\"name\":\"torpid\",\"context\":{\"idset\":\"3\"}}"
        "\n"
        "{\"timestamp\":107,\"name\":\"frobnicate\"}\n");
    rp_diags_clear (w);
    ok (rp_inventory_import_flux (inv, fluxlog, 1e9, w, &st, &e) == 0,
        "import a log with nodelists");
    is (enc (rp_inventory_drained (inv)), "2,7",
        "2 and 7 (rank 40 in Flux, node7 here); 1 undrained, 0 excluded");
    drain_is (inv, 2, 100, "uvula", "overwrite 0 keeps the first reason");
    drain_is (inv, 7, 101, "moved", "matched by host name");
    ok (st.skipped == 1, "fake42 skipped");
    ok (rp_diags_count (w) == 2, "two warnings");
    snprintf (want, sizeof (want),
              "%s:3: drain: 1 target not in the inventory skipped (first: "
              "rank 42, fake42)",
              fluxlog);
    is (rp_diags_text (w, 0), want, "one for the skipped target");
    snprintf (want, sizeof (want), "%s:8: unknown event 'frobnicate' ignored",
              fluxlog);
    is (rp_diags_text (w, 1), want, "one for the unknown event");

    write_file (fluxlog, "{\"timestamp\":1,\"name\":\"drain\",\"context\":{"
                         "\"idset\":\"1\",\"reason\":5}}\n");
    ok (rp_inventory_import_flux (inv, fluxlog, 1e9, w, &st, &e) < 0,
        "a wrong type");
    snprintf (want, sizeof (want), "%s:1: drain: reason: must be a string",
              fluxlog);
    is (e.text, want, "is an error with the line");
    write_file (fluxlog, "{\"timestamp\":1,\"name\":\"undrain\",\"context\":{"
                         "\"idset\":\"0-4294967294\"}}\n");
    ok (rp_inventory_import_flux (inv, fluxlog, 1e9, w, &st, &e) < 0,
        "a huge idset");
    snprintf (want, sizeof (want),
              "%s:1: undrain: idset: more than 1048576 targets", fluxlog);
    is (e.text, want, "is refused before any rank is visited");
    unlink (fluxlog);
    rp_diags_destroy (w);
    rp_inventory_destroy (inv);
    rp_rset_destroy (R);
}

int main (void)
{
    plan (NO_PLAN);
    setenv ("TZ", "UTC", 1);
    if (!mkdtemp (dir))
        BAIL_OUT ("mkdtemp");
    snprintf (logpath, sizeof (logpath), "%s/eventlog", dir);
    test_config ();
    test_drain_rules ();
    test_log ();
    test_hostile ();
    test_redefine ();
    test_compact_and_follow ();
    test_flux ();
    unlink (logpath);
    {
        char lock[300];
        snprintf (lock, sizeof (lock), "%s/lock", dir);
        unlink (lock);
    }
    rmdir (dir);
    return done_testing ();
}
