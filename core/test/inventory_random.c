/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Randomized: the inventory and its log (core/inventory.c), the RFC 28
 * producer and consumer (core/acquire.c), and the Flux event log reader
 * (core/inventory_flux.c), each against a model this file keeps on its
 * own.
 *
 * Part 1: thousands of random administrative operations (drain and
 * undrain in every mode, down, up, shrink, property-add and -remove,
 * expire, compaction) on small inventories kept in a state directory,
 * with clean restarts and crashes: a crash cuts the log inside the line
 * of the operation under way (that operation never returned, so it is
 * lost) or just after it (it is kept), and a writer opens the directory
 * again.  After every step:
 *   - each operation succeeded or failed as the model's rules say;
 *   - the inventory's drained, down and removed sets, every drain time
 *     and reason, the properties and the expiration are the model's: no
 *     drain, property or exclusion is lost across restarts and crashes;
 *   - a consumer fed by a producer from the start has the model's view:
 *     up (not excluded, drained, down or removed), removed, properties.
 *
 * Part 2: Flux resource event logs of thousands of random events (drain
 * with every overwrite level or none, undrain, reasons or none, nodelists
 * or none, targets that moved to another rank or do not exist, a
 * resource-init with a drain summary, liveness events), replayed by the
 * model with flux-core's rules (drain.c, upgrade.c) and imported: the
 * drained set, times and reasons are the model's.
 *
 * Seed: a fixed default (printed), RESPOL_TEST_SEED overrides.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "respol/acquire.h"
#include "respol/inventory.h"
#include "t/tap/tap.h"

#define DEFAULT_SEED 20260513u
#define MAXN 24
#define NPROPS 3

static unsigned int seed;
static char dir[] = "/tmp/respol-invrand-XXXXXX";
static char logpath[256];

static const char *reasons[] = { "r0", "r1", "bad disk" };
static const char *props[NPROPS] = { "a", "b", "c@gpu" };

static unsigned int rnd (unsigned int n)
{
    return n ? (unsigned int)(random () % n) : 0;
}

/* --- the model ------------------------------------------------------------ */

struct mt {
    bool down, drained, removed, excluded;
    double time;
    int reason; /* -1: none */
    bool prop[NPROPS];
};

struct model {
    int n;
    struct mt t[MAXN];
    double expiration;
};

static bool in (unsigned long long set, int r)
{
    return set & (1ull << r);
}

/* What the operation does in the model: returns false when it must fail
 * (and then changes nothing). */
static bool model_drain (struct model *m, unsigned long long set, int mode,
                         int reason, double now)
{
    int ow = mode == RP_DRAIN_FORCE ? 2 : mode == RP_DRAIN_OVERWRITE ? 1 : 0;

    for (int r = 0; r < m->n; r++) {
        if (!in (set, r))
            continue;
        if (m->t[r].removed || m->t[r].excluded)
            return false;
        if (mode == RP_DRAIN_DEFAULT && m->t[r].drained && m->t[r].reason >= 0)
            return false;
    }
    for (int r = 0; r < m->n; r++) {
        struct mt *t = &m->t[r];
        if (!in (set, r) || (!ow && t->drained && t->reason >= 0))
            continue;
        t->reason = reason;
        if (!t->drained || ow == 2) {
            t->drained = true;
            t->time = now;
        }
    }
    return true;
}

static bool model_undrain (struct model *m, unsigned long long set, int mode)
{
    for (int r = 0; r < m->n; r++)
        if (in (set, r)
            && (m->t[r].removed
                || (mode == RP_DRAIN_DEFAULT && !m->t[r].drained)))
            return false;
    for (int r = 0; r < m->n; r++)
        if (in (set, r)) {
            m->t[r].drained = false;
            m->t[r].reason = -1;
            m->t[r].time = 0;
        }
    return true;
}

static bool model_updown (struct model *m, unsigned long long set, bool up)
{
    for (int r = 0; r < m->n; r++)
        if (in (set, r) && (m->t[r].removed || m->t[r].down == !up))
            return false;
    for (int r = 0; r < m->n; r++)
        if (in (set, r))
            m->t[r].down = !up;
    return true;
}

static bool model_any_removed (const struct model *m, unsigned long long set)
{
    for (int r = 0; r < m->n; r++)
        if (in (set, r) && m->t[r].removed)
            return true;
    return false;
}

/* --- helpers -------------------------------------------------------------- */

static struct rp_idset *set_ids (unsigned long long set)
{
    struct rp_idset *ids = rp_idset_create ();

    for (int r = 0; r < MAXN; r++)
        if (in (set, r))
            rp_idset_add (ids, (unsigned int)r);
    return ids;
}

static unsigned long long random_set (const struct model *m)
{
    unsigned long long set = 0;
    int k = 1 + (int)rnd (3);

    if (rnd (4) == 0) { /* a range */
        int lo = (int)rnd ((unsigned)m->n), hi = lo + (int)rnd (4);
        for (int r = lo; r <= hi && r < m->n; r++)
            set |= 1ull << r;
        return set;
    }
    while (k-- > 0)
        set |= 1ull << rnd ((unsigned)m->n);
    return set;
}

static struct rp_rset *make_R (int n)
{
    char buf[512];
    rp_error_t e;
    struct rp_rset *R;

    snprintf (buf, sizeof (buf),
              "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-%d\","
              "\"children\":{\"core\":\"0-1\"}}],\"starttime\":0,"
              "\"expiration\":0,\"nodelist\":[\"n[0-%d]\"]}}",
              n - 1, n - 1);
    if (!(R = rp_rset_decode (buf, &e)))
        BAIL_OUT ("R: %s", e.text);
    return R;
}

/* The first property R and the model disagree on for target r, or NULL. */
static const char *prop_differs (const struct rp_rset *R, int r,
                                 const struct mt *t)
{
    for (int p = 0; p < NPROPS; p++)
        if (rp_rset_has_property (R, (unsigned)r, props[p]) != t->prop[p])
            return props[p];
    return NULL;
}

/* Does the inventory hold the model's state?  Returns NULL or what
 * differs. */
static const char *differs (const struct rp_inventory *inv,
                            const struct model *m)
{
    static char why[256];
    const struct rp_rset *R = rp_inventory_R (inv);
    const char *p;

    for (int r = 0; r < m->n; r++) {
        const struct mt *t = &m->t[r];
        double ts;
        const char *reason;
        bool d = rp_inventory_drain_info (inv, (unsigned)r, &ts, &reason);
        if (d != t->drained
            || (d
                && (ts != t->time || !reason != (t->reason < 0)
                    || (reason && strcmp (reason, reasons[t->reason])))))
            return snprintf (why, sizeof (why), "rank %d: drain", r), why;
        if (rp_idset_test (rp_inventory_down (inv), (unsigned)r) != t->down)
            return snprintf (why, sizeof (why), "rank %d: down", r), why;
        if (rp_idset_test (rp_inventory_removed (inv), (unsigned)r)
            != t->removed)
            return snprintf (why, sizeof (why), "rank %d: removed", r), why;
        if (rp_idset_test (rp_inventory_excluded (inv), (unsigned)r)
            != t->excluded)
            return snprintf (why, sizeof (why), "rank %d: excluded", r), why;
        if ((p = prop_differs (R, r, t)))
            return snprintf (why, sizeof (why), "rank %d: property %s", r, p),
                   why;
    }
    return rp_rset_expiration (R) != m->expiration ? "expiration" : NULL;
}

/* Does the consumer have the model's view? */
static const char *view_differs (struct rp_acquire_consumer *c,
                                 const struct model *m)
{
    static char why[256];
    const struct rp_rset *R = rp_acquire_consumer_resources (c);
    const char *p;

    for (int r = 0; r < m->n; r++) {
        const struct mt *t = &m->t[r];
        bool up = !t->excluded && !t->removed && !t->drained && !t->down;
        if (t->excluded)
            continue;
        if (rp_idset_test (rp_acquire_consumer_up (c), (unsigned)r) != up)
            return snprintf (why, sizeof (why), "rank %d: up", r), why;
        if (rp_idset_test (rp_acquire_consumer_removed (c), (unsigned)r)
            != t->removed)
            return snprintf (why, sizeof (why), "rank %d: removed", r), why;
        if (!t->removed && (p = prop_differs (R, r, t)))
            return snprintf (why, sizeof (why), "rank %d: property %s", r, p),
                   why;
    }
    return rp_rset_expiration (R) != m->expiration ? "expiration" : NULL;
}

static off_t log_size (void)
{
    struct stat st;

    return stat (logpath, &st) == 0 ? st.st_size : 0;
}

/* --- part 1 ----------------------------------------------------------------
 */

struct run {
    struct model m;
    struct rp_inventory *inv;
    struct rp_acquire_producer *p;
    struct rp_acquire_consumer *c;
    double now;
    unsigned long step;
    size_t ops, failures, crashes, lost, restarts, compactions;
    bool bad;
};

static void fail_run (struct run *x, const char *what, const char *detail)
{
    if (!x->bad)
        diag ("seed %u step %lu: %s: %s", seed, x->step, what,
              detail ? detail : "");
    x->bad = true;
}

static int do_op (struct run *x, int op, rp_error_t *e, bool *expect)
{
    struct model *m = &x->m;
    unsigned long long set = random_set (m);
    struct rp_idset *t = set_ids (set);
    int mode = (int)rnd (4), reason = (int)rnd (4) - 1, p = (int)rnd (NPROPS);
    double now = x->now;
    int rc;

    if (op < 30) {
        *expect = model_drain (m, set, mode, reason, now);
        rc =
            rp_inventory_drain (x->inv, t, reason >= 0 ? reasons[reason] : NULL,
                                (enum rp_drain_mode)mode, now, e);
    } else if (op < 50) {
        *expect = model_undrain (m, set, mode);
        rc = rp_inventory_undrain (x->inv, t, NULL, (enum rp_drain_mode)mode,
                                   now, e);
    } else if (op < 70) {
        bool up = rnd (2);
        *expect = model_updown (m, set, up);
        rc = rp_inventory_set_up (x->inv, t, up, now, e);
    } else if (op < 73) {
        *expect = !model_any_removed (m, set);
        for (int r = 0; *expect && r < m->n; r++)
            if (in (set, r))
                m->t[r].removed = true;
        rc = rp_inventory_shrink (x->inv, t, now, e);
    } else if (op < 93) {
        bool add = rnd (2);
        /* "c" removes "c@gpu" (RFC 20 / rp_rset_property_remove). */
        const char *name = !add && p == 2 && rnd (2) ? "c" : props[p];
        *expect = !model_any_removed (m, set);
        for (int r = 0; *expect && r < m->n; r++)
            if (in (set, r))
                m->t[r].prop[p] = add;
        rc = add ? rp_inventory_property_add (x->inv, name, t, now, e)
                 : rp_inventory_property_remove (x->inv, name, t, now, e);
    } else {
        double exp = rnd (3) ? 1000.0 + rnd (100000) / 7.0 : 0;
        *expect = true;
        m->expiration = exp;
        rc = rp_inventory_expire (x->inv, exp, now, e);
    }
    rp_idset_destroy (t);
    return rc;
}

static void reopen (struct run *x)
{
    rp_error_t e;

    rp_inventory_destroy (x->inv);
    if (!(x->inv = rp_inventory_open (dir, RP_INVENTORY_WRITE, NULL, &e)))
        fail_run (x, "reopen", e.text);
}

/* Cut the log inside the line of the last operation (it is lost: the
 * model goes back to before) or after it (kept). */
static void crash (struct run *x, off_t before, const struct model *saved)
{
    off_t after = log_size ();
    off_t cut =
        rnd (3) == 0 ? after : before + (off_t)rnd ((unsigned)(after - before));

    x->crashes++;
    if (truncate (logpath, cut) < 0)
        BAIL_OUT ("truncate");
    if (cut < after) {
        x->m = *saved;
        x->lost++;
    }
    reopen (x);
}

static void sync_consumer (struct run *x)
{
    json_t *o = NULL;
    rp_error_t e;
    int rc = rp_acquire_producer_next (x->p, x->inv, &o, &e);

    if (rc < 0)
        fail_run (x, "producer", e.text);
    else if (rc > 0 && rp_acquire_consumer_apply (x->c, o, &e) < 0) {
        char *s = rp_acquire_encode (o);
        fail_run (x, e.text, s);
        free (s);
    }
    json_decref (o);
}

static void one_step (struct run *x)
{
    int op = (int)rnd (100);
    struct model saved = x->m;
    off_t before = log_size ();
    bool expect = true;
    const char *d;
    rp_error_t e;
    int rc;

    x->now += 1 + rnd (100) / 8.0;
    rc = do_op (x, op, &e, &expect);
    x->ops++;
    if ((rc == 0) != expect)
        fail_run (x, rc == 0 ? "succeeded, the model says fail" : e.text, "op");
    if (rc < 0) {
        x->m = saved;
        x->failures++;
    }
    if (rc == 0 && rnd (40) == 0)
        crash (x, before, &saved);
    else if (rnd (60) == 0) {
        x->restarts++;
        reopen (x);
    } else if (rnd (150) == 0) {
        x->compactions++;
        if (rp_inventory_compact (x->inv, x->now, NULL, NULL, &e) < 0)
            fail_run (x, "compact", e.text);
    }
    if ((d = differs (x->inv, &x->m)))
        fail_run (x, "inventory differs from the model", d);
    sync_consumer (x);
    if ((d = view_differs (x->c, &x->m)))
        fail_run (x, "consumer differs from the model", d);
}

static void part1 (void)
{
    struct run total = { 0 };
    int rounds = 25, steps = 160;

    for (int round = 0; round < rounds && !total.bad; round++) {
        struct run x = { 0 };
        struct rp_rset *R;
        struct rp_idset *ex = rp_idset_create ();
        json_t *first;
        rp_error_t e;

        unlink (logpath);
        x.m.n = 4 + (int)rnd (MAXN - 4);
        for (int r = 0; r < x.m.n; r++) {
            x.m.t[r].reason = -1;
            if (rnd (8) == 0) {
                x.m.t[r].excluded = true;
                rp_idset_add (ex, (unsigned)r);
            }
        }
        if (rp_idset_count (ex) == (size_t)x.m.n)
            rp_idset_remove (ex, 0), x.m.t[0].excluded = false;
        R = make_R (x.m.n);
        x.now = 1000;
        reopen (&x);
        if (rp_inventory_define (x.inv, R, ex, "configuration", x.now, NULL, &e)
            < 0)
            fail_run (&x, "define", e.text);
        x.p = rp_acquire_producer_create ();
        first = rp_acquire_producer_first (x.p, x.inv, &e);
        if (!first || !(x.c = rp_acquire_consumer_create (first, &e)))
            fail_run (&x, "first", e.text);
        json_decref (first);
        for (x.step = 0; x.step < (unsigned long)steps && !x.bad; x.step++)
            one_step (&x);
        total.ops += x.ops;
        total.failures += x.failures;
        total.crashes += x.crashes;
        total.lost += x.lost;
        total.restarts += x.restarts;
        total.compactions += x.compactions;
        total.bad |= x.bad;
        rp_acquire_consumer_destroy (x.c);
        rp_acquire_producer_destroy (x.p);
        rp_inventory_destroy (x.inv);
        rp_rset_destroy (R);
        rp_idset_destroy (ex);
    }
    diag ("%zu operations (%zu refused), %zu crashes (%zu lost the operation "
          "under way), %zu restarts, %zu compactions",
          total.ops, total.failures, total.crashes, total.lost, total.restarts,
          total.compactions);
    ok (!total.bad, "random operations, crashes and restarts: the inventory "
                    "and the consumer's view are the model's after every step");
    ok (total.ops >= 4000 && total.crashes > 10 && total.lost > 5,
        "thousands of operations, crashes that lost the operation under way");
}

/* --- part 2: Flux event logs -------------------------------------------- */

/* The Flux instance's ranks map to the inventory's: rank r of Flux is
 * host "n<map[r]>"; map[r] = -1: a host the inventory does not have. */
struct fluxrun {
    int n;  /* inventory targets n0..n(n-1) */
    int fn; /* Flux ranks */
    int map[MAXN + 8];
    struct model m; /* drain state of the inventory's targets */
    FILE *f;
    double ts;
    size_t events;
};

static void flux_event (struct fluxrun *y, const char *name, const char *ctx)
{
    y->ts += (1 + rnd (1000)) / 1024.0; /* exact in binary and in %.10f */
    fprintf (y->f, "{\"timestamp\":%.10f,\"name\":\"%s\"%s%s%s}\n", y->ts, name,
             ctx ? ",\"context\":" : "", ctx ? ctx : "", "");
    y->events++;
}

/* A random set of Flux ranks, its idset and nodelist text (nodelist may
 * be left out: then ranks are the inventory's directly). */
static unsigned long long flux_targets (struct fluxrun *y, char *idset,
                                        char *nodelist, bool *named)
{
    unsigned long long set = 0;
    int k = 1 + (int)rnd (3);

    while (k-- > 0)
        set |= 1ull << rnd ((unsigned)y->fn);
    idset[0] = nodelist[0] = '\0';
    *named = rnd (5) != 0;
    for (int r = 0; r < y->fn; r++) {
        if (!in (set, r))
            continue;
        sprintf (idset + strlen (idset), "%s%d", *idset ? "," : "", r);
        if (y->map[r] >= 0)
            sprintf (nodelist + strlen (nodelist), "%sn%d",
                     *nodelist ? "," : "", y->map[r]);
        else
            sprintf (nodelist + strlen (nodelist), "%sgone%d",
                     *nodelist ? "," : "", r);
    }
    return set;
}

/* The inventory targets of a Flux set: by host when named, else by
 * rank. */
static unsigned long long local_targets (const struct fluxrun *y,
                                         unsigned long long set, bool named)
{
    unsigned long long out = 0;

    for (int r = 0; r < y->fn; r++) {
        if (!in (set, r))
            continue;
        if (named && y->map[r] >= 0)
            out |= 1ull << y->map[r];
        else if (!named && r < y->n)
            out |= 1ull << r;
    }
    return out;
}

/* flux-core's replay of one drain / undrain on the model. */
static void flux_apply (struct fluxrun *y, bool drain, unsigned long long set,
                        int ow, int reason)
{
    for (int r = 0; r < y->n; r++) {
        struct mt *t = &y->m.t[r];
        if (!in (set, r))
            continue;
        if (!drain) {
            t->drained = false;
            t->reason = -1;
            continue;
        }
        if (!ow && t->drained && t->reason >= 0)
            continue;
        t->reason = reason;
        if (!t->drained || ow == 2) {
            t->drained = true;
            t->time = y->ts;
        }
    }
}

static void flux_drain (struct fluxrun *y, bool drain)
{
    char idset[512], nodelist[1024], ctx[2048];
    bool named;
    unsigned long long set = flux_targets (y, idset, nodelist, &named);
    int ow = (int)rnd (4) - 1; /* -1: no key (means 1) */
    int reason = (int)rnd (4) - 1;
    size_t len;

    snprintf (ctx, sizeof (ctx), "{\"idset\":\"%s\"", idset);
    len = strlen (ctx);
    if (named)
        len += (size_t)snprintf (ctx + len, sizeof (ctx) - len,
                                 ",\"nodelist\":\"%s\"", nodelist);
    if (drain && reason >= 0)
        len += (size_t)snprintf (ctx + len, sizeof (ctx) - len,
                                 ",\"reason\":\"%s\"", reasons[reason]);
    if (ow >= 0)
        len += (size_t)snprintf (ctx + len, sizeof (ctx) - len,
                                 ",\"overwrite\":%d", ow);
    snprintf (ctx + len, sizeof (ctx) - len, "}");
    flux_event (y, drain ? "drain" : "undrain", ctx);
    flux_apply (y, drain, local_targets (y, set, named), ow < 0 ? 1 : ow,
                reason);
}

/* A resource-init: its drain summary is the state (by rank). */
static void flux_init (struct fluxrun *y)
{
    char ctx[4096];
    size_t len;
    int reason = (int)rnd (4) - 1;
    double ts;

    y->ts += 1;
    ts = y->ts - 0.25;
    for (int r = 0; r < y->n; r++) {
        y->m.t[r].drained = false;
        y->m.t[r].reason = -1;
    }
    len = (size_t)snprintf (ctx, sizeof (ctx), "{\"restart\":true,\"drain\":{");
    for (int r = 0, k = 0; r < y->fn; r++) {
        if (rnd (4) != 0)
            continue;
        len += (size_t)snprintf (
            ctx + len, sizeof (ctx) - len,
            "%s\"%d\":{\"timestamp\":%.10f%s%s%s}", k++ ? "," : "", r, ts,
            reason >= 0 ? ",\"reason\":\"" : "",
            reason >= 0 ? reasons[reason] : "", reason >= 0 ? "\"" : "");
        if (r < y->n) {
            y->m.t[r].drained = true;
            y->m.t[r].reason = reason;
            y->m.t[r].time = ts;
        }
    }
    snprintf (ctx + len, sizeof (ctx) - len,
              "},\"online\":\"\",\"exclude\":\"\"}");
    flux_event (y, "resource-init", ctx);
}

static void part2 (void)
{
    bool good = true;
    size_t events = 0;

    for (int round = 0; round < 6 && good; round++) {
        struct fluxrun y = { 0 };
        char path[300];
        struct rp_rset *R;
        struct rp_inventory *inv;
        struct rp_idset *ex = rp_idset_create ();
        struct rp_flux_import st;
        rp_error_t e;
        const char *d;

        y.n = y.m.n = 8 + (int)rnd (MAXN - 8);
        y.fn = y.n + (int)rnd (8);
        for (int r = 0; r < y.fn; r++)
            y.map[r] = r < y.n ? r : -1;
        for (int k = 0; k < 3; k++) { /* hosts that moved */
            int a = (int)rnd ((unsigned)y.fn), b = (int)rnd ((unsigned)y.fn);
            int t = y.map[a];
            y.map[a] = y.map[b];
            y.map[b] = t;
        }
        for (int r = 0; r < y.n; r++) {
            y.m.t[r].reason = -1;
            if (rnd (10) == 0) {
                y.m.t[r].excluded = true;
                rp_idset_add (ex, (unsigned)r);
            }
        }
        snprintf (path, sizeof (path), "%s/flux.eventlog", dir);
        y.f = fopen (path, "w");
        y.ts = 1.7e9;
        for (int i = 0; i < 1600; i++) {
            int k = (int)rnd (100);
            if (k < 55)
                flux_drain (&y, true);
            else if (k < 80)
                flux_drain (&y, false);
            else if (k < 97)
                flux_event (&y, rnd (2) ? "online" : "offline",
                            "{\"idset\":\"0-3\"}");
            else if (k < 98)
                flux_event (&y, "resource-define",
                            "{\"method\":\"configuration\"}");
            else if (i > 200 && i < 1300)
                flux_init (&y);
        }
        fclose (y.f);
        events += y.events;
        for (int r = 0; r < y.n; r++)
            if (y.m.t[r].excluded) {
                y.m.t[r].drained = false;
                y.m.t[r].reason = -1;
            }
        R = make_R (y.n);
        inv = rp_inventory_create (R, ex, NULL);
        if (rp_inventory_import_flux (inv, path, 2e9, NULL, &st, &e) < 0) {
            diag ("seed %u round %d: %s", seed, round, e.text);
            good = false;
        } else if ((d = differs (inv, &y.m))) {
            diag ("seed %u round %d: %s", seed, round, d);
            good = false;
        }
        rp_inventory_destroy (inv);
        rp_rset_destroy (R);
        rp_idset_destroy (ex);
        unlink (path);
    }
    ok (good && events >= 9000,
        "Flux event logs (%zu events in all): the drained set, times and "
        "reasons are what flux-core's replay gives",
        events);
}

int main (void)
{
    const char *s = getenv ("RESPOL_TEST_SEED");

    plan (NO_PLAN);
    seed = s ? (unsigned int)strtoul (s, NULL, 10) : DEFAULT_SEED;
    diag ("seed %u (RESPOL_TEST_SEED to change)", seed);
    srandom (seed);
    if (!mkdtemp (dir))
        BAIL_OUT ("mkdtemp");
    snprintf (logpath, sizeof (logpath), "%s/eventlog", dir);
    part1 ();
    part2 ();
    {
        char p[300];
        unlink (logpath);
        snprintf (p, sizeof (p), "%s/lock", dir);
        unlink (p);
        rmdir (dir);
    }
    return done_testing ();
}
