/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol resource: an instance's resource inventory (respol/inventory.h)
 * kept in a state directory, and the resource acquisition stream (RFC 28,
 * respol/acquire.h) produced from it, with the names and output Flux users
 * know from `flux resource`.
 *
 *   respol resource list|status [--json] [-n]
 *   respol resource drain [-n] [--json]              list drained targets
 *   respol resource drain [-f [-f]] [-u] TARGETS [REASON...]
 *   respol resource undrain [-f] [-u] TARGETS [REASON...]
 *   respol resource up|down|shrink TARGETS
 *   respol resource property-add|property-remove TARGETS NAME...
 *   respol resource expire SECONDS
 *   respol resource acquire [--follow]
 *   respol resource import-flux-eventlog FILE
 *   respol resource compact
 * with, for every subcommand, --state=DIR and the definition options
 * (--resources=FILE, -R FILE, --local, --xml=FILE, --hostname, --exclude,
 * --config=FILE) and --now=SECONDS.  TARGETS is an RFC 22 idset of ranks
 * or an RFC 29 hostlist of host names.
 *
 * Choices a reader would otherwise rediscover:
 * - The state directory is --state, else $RESPOL_STATE_DIR, else the
 *   `state` key of the --resources file, else LOCALSTATEDIR/lib/respol/
 *   resource.  It holds `eventlog` (RFC 18) and `lock`.
 * - A definition option defines (or redefines) the resources before the
 *   subcommand runs; nothing is logged when it gives what is defined.
 *   Read-only subcommands take no lock unless a definition is given.
 * - After each definition the configuration's property stack runs over
 *   the inventory (rp_inventory_annotate; the configuration is loaded
 *   only then: --config, else $RESPOL_CONFIG, else the installed one).
 *   With --local or --xml the plugins get rank 0's hardware facts
 *   (rp_hardware_from_hwloc).  A plugin that fails exits 3, one that
 *   breaks the host's rules 1, as respol run does for shell plugins.
 * - status groups targets by state (avail, exclude, removed, drained;
 *   "*" after a target that is down, as flux marks offline ones) with
 *   their reason and time; TIME and REASON columns are left out when no
 *   line has one (flux's "?:" fields).  respol does not know the
 *   scheduler's allocations, so drained targets are always "drained",
 *   never "draining".  list shows the scheduler's view (flux's list):
 *   "up" and "down" (drained or down), excluded and removed targets left
 *   out, one line per state and set of properties.
 * - --json prints one JSON array (sorted keys), one object per line of
 *   the text output, with the ranks and the exact timestamp.
 * - Times print as flux prints them: "%b%d %R" in local time.
 * - acquire --follow polls the log every 0.2 s and prints one response
 *   per event that changes what a scheduler sees, until killed.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <respol/acquire.h>
#include <respol/document.h>
#include <respol/inventory.h>
#include <respol/property.h>
#include <respol/rset.h>

#include "core/paths.h"
#include "cmd.h"

#define SUB "resource"
#define STATE_ENV "RESPOL_STATE_DIR"

enum {
    OPT_HELP = 256,
    OPT_STATE,
    OPT_RESOURCES,
    OPT_LOCAL,
    OPT_XML,
    OPT_HOSTNAME,
    OPT_EXCLUDE,
    OPT_NOW,
    OPT_JSON,
    OPT_FOLLOW,
    OPT_CONFIG,
};

static const struct option opts[] = {
    { "help", no_argument, NULL, OPT_HELP },
    { "state", required_argument, NULL, OPT_STATE },
    { "resources", required_argument, NULL, OPT_RESOURCES },
    { "R", required_argument, NULL, 'R' },
    { "local", no_argument, NULL, OPT_LOCAL },
    { "xml", required_argument, NULL, OPT_XML },
    { "hostname", required_argument, NULL, OPT_HOSTNAME },
    { "exclude", required_argument, NULL, OPT_EXCLUDE },
    { "now", required_argument, NULL, OPT_NOW },
    { "json", no_argument, NULL, OPT_JSON },
    { "no-header", no_argument, NULL, 'n' },
    { "force", no_argument, NULL, 'f' },
    { "update", no_argument, NULL, 'u' },
    { "follow", no_argument, NULL, OPT_FOLLOW },
    { "config", required_argument, NULL, OPT_CONFIG },
    { "verbose", no_argument, NULL, 'v' },
    { NULL, 0, NULL, 0 },
};
#define SHORTOPTS "+hR:nfuv"

struct options {
    const char *state;
    const char *resources;
    const char *R;
    const char *xml;
    const char *hostname;
    const char *exclude;
    const char *config;
    bool local;
    double now;
    bool json;
    bool no_header;
    bool follow;
    int force;
    bool update;
    char *state_buf;
};

/* A subcommand: its name, what it takes, and what runs it. */
enum {
    F_WRITE = 1,   /* changes the inventory */
    F_LIST = 2,    /* --json, -n */
    F_MODES = 4,   /* -f, -u */
    F_FOLLOW = 8,  /* --follow */
    F_ANYDEF = 16, /* runs without resources defined */
};

struct ctx {
    struct options *o;
    struct rp_inventory *inv;
    int argc;
    char **argv;
};

struct subcommand {
    const char *name;
    int flags;
    int (*fn) (struct ctx *c);
    const char *args;
};

static void usage (FILE *f)
{
    fprintf (
        f,
        "Usage: respol resource SUBCOMMAND [OPTIONS] [ARGS]\n\n"
        "Subcommands:\n"
        "  list                          the scheduler's view: up and down\n"
        "  status                        targets by state, with reasons "
        "and times\n"
        "  drain                         list drained targets\n"
        "  drain TARGETS [REASON...]     drain targets (-f, -f -f, -u)\n"
        "  undrain TARGETS [REASON...]   undrain targets (-f, -u)\n"
        "  up|down TARGETS               mark targets up or down\n"
        "  shrink TARGETS                remove targets for good\n"
        "  property-add TARGETS NAME...  add properties to targets\n"
        "  property-remove TARGETS NAME...\n"
        "  expire SECONDS                set the expiration (0: none)\n"
        "  acquire [--follow]            print the RFC 28 stream\n"
        "  import-flux-eventlog FILE     take the drains of a Flux "
        "resource event log\n"
        "  compact                       rewrite the log as the current "
        "state\n\n"
        "TARGETS: an idset of ranks or a hostlist of host names.\n\n"
        "Options:\n"
        "      --state=DIR       the state directory (default "
        "$" STATE_ENV ",\n"
        "                        else the resources file's state, else\n"
        "                        " RP_LOCALSTATEDIR "/lib/respol/resource)\n"
        "      --resources=FILE  define the resources from a configuration's\n"
        "                        resources block\n"
        "  -R, --R=FILE          define them from R (RFC 20)\n"
        "      --local           define them from this machine (hwloc)\n"
        "      --xml=FILE        define them from an hwloc XML topology\n"
        "      --hostname=NAME   the host name for --local and --xml\n"
        "      --exclude=TARGETS targets excluded (with -R, --local, "
        "--xml)\n"
        "      --config=FILE     the configuration whose property plugins "
        "annotate\n"
        "                        the resources defined (default "
        "$" RP_CONFIG_ENV ",\n"
        "                        else the installed one)\n"
        "  -v, --verbose         print plugin messages up to info (-vv: "
        "debug)\n"
        "      --now=SECONDS     the time of the operation (default: now)\n"
        "      --json            list, status, drain: JSON\n"
        "  -n, --no-header       list, status, drain: no header line\n"
        "  -f, --force           drain: replace the reason (twice: and the "
        "time);\n"
        "                        undrain: do not fail on undrained targets\n"
        "  -u, --update          drain: keep existing reasons; undrain: as "
        "-f\n"
        "      --follow          acquire: print changes until killed\n"
        "  -h, --help            print this message\n");
}

/* --- small helpers -------------------------------------------------------- */

static double now_of (const struct options *o)
{
    struct timespec ts;

    if (o->now >= 0)
        return o->now;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void print_warnings (const struct rp_diags *d)
{
    for (size_t i = 0; i < rp_diags_count (d); i++)
        fprintf (stderr, "respol: %s: warning: %s\n", SUB,
                 rp_diags_text (d, i));
}

static struct rp_idset *targets (struct ctx *c, const char *s)
{
    rp_error_t e;
    struct rp_idset *ids = rp_inventory_targets (c->inv, s, &e);

    if (!ids)
        cmd_die (SUB, "%s", e.text);
    return ids;
}

static char *encode_ids (const struct rp_idset *ids)
{
    char *s = rp_idset_encode (ids, RP_IDSET_RANGES);

    if (!s)
        cmd_die (SUB, "out of memory");
    return s;
}

/* The words of argv joined by spaces (NULL when there are none). */
static char *join (int argc, char **argv)
{
    size_t len = 1;
    char *s;

    if (argc == 0)
        return NULL;
    for (int i = 0; i < argc; i++)
        len += strlen (argv[i]) + 1;
    if (!(s = calloc (1, len)))
        cmd_die (SUB, "out of memory");
    for (int i = 0; i < argc; i++) {
        strcat (s, argv[i]);
        if (i + 1 < argc)
            strcat (s, " ");
    }
    return s;
}

/* --- defining the resources ------------------------------------------------
 */

static struct rp_rset *config_rset (const char *path, struct rp_idset **ex)
{
    rp_error_t e;
    struct rp_doc *doc = rp_doc_load_file (path, RP_DOC_AUTO, &e);
    struct rp_rset *R;

    if (!doc)
        cmd_die (SUB, "%s", e.text);
    if (!(R = rp_inventory_config_rset (rp_doc_root (doc), doc, ex, &e)))
        cmd_die (SUB, "%s", e.text);
    rp_doc_destroy (doc);
    return R;
}

/* The state key of the resources file, when it has one. */
static char *config_state (const char *path)
{
    struct rp_doc *doc = rp_doc_load_file (path, RP_DOC_AUTO, NULL);
    json_t *res = doc ? json_object_get (rp_doc_root (doc), "resources") : NULL;
    const char *s = json_string_value (json_object_get (res, "state"));
    char *copy = s ? strdup (s) : NULL;

    rp_doc_destroy (doc);
    return copy;
}

static struct rp_rset *defined_rset (const struct options *o,
                                     const char **method)
{
    rp_error_t e;
    struct rp_rset *R = NULL;
    struct rp_doc *doc;

    *method = "configuration";
    if (o->R) {
        if (!(doc = rp_doc_load_file (o->R, RP_DOC_JSON, &e))
            || !(R = rp_rset_from_json (rp_doc_root (doc), &e)))
            cmd_die (SUB, "%s%s%s", doc ? o->R : "", doc ? ": " : "", e.text);
        rp_doc_destroy (doc);
        return R;
    }
    *method = "dynamic-discovery";
    if (!(R = rp_rset_from_hwloc (0, o->hostname, o->xml, &e)))
        cmd_die (SUB, "%s", e.text);
    return R;
}

/* Run the property stack over what was just defined. */
static void annotate (struct ctx *c)
{
    const struct options *o = c->o;
    struct rp_config *cfg = cmd_load_config (SUB, o->config);
    json_t *hw = NULL, *facts = NULL;
    rp_error_t e;
    int rc, errnum;

    if (!cfg)
        exit (EXIT_INPUT);
    if (rp_stack_count (rp_config_stack (cfg, RP_PLUGIN_PROPERTY)) > 0
        && (o->local || o->xml)) {
        if (!(facts = rp_hardware_from_hwloc (o->xml, &e)))
            cmd_die (SUB, "%s", e.text);
        if (!(hw = json_pack ("{s:o}", "0", facts)))
            cmd_die (SUB, "out of memory");
    }
    rc = rp_inventory_annotate (c->inv, cfg, hw, now_of (o), &e);
    errnum = errno;
    json_decref (hw);
    rp_config_destroy (cfg);
    if (rc < 0) {
        cmd_warn (SUB, "%s", e.text);
        exit (errnum == EPROTO ? EXIT_PLUGIN : EXIT_INPUT);
    }
}

static void define (struct ctx *c)
{
    const struct options *o = c->o;
    struct rp_idset *ex = NULL;
    const char *method = "configuration";
    struct rp_rset *R;
    struct rp_inventory *tmp;
    rp_error_t e;

    if (o->resources)
        R = config_rset (o->resources, &ex);
    else
        R = defined_rset (o, &method);
    if (o->exclude) {
        if (!(tmp = rp_inventory_create (R, NULL, &e))
            || !(ex = rp_inventory_targets (tmp, o->exclude, &e)))
            cmd_die (SUB, "--exclude: %s", e.text);
        rp_inventory_destroy (tmp);
    }
    if (rp_inventory_define (c->inv, R, ex, method, now_of (o), NULL, &e) < 0)
        cmd_die (SUB, "%s", e.text);
    rp_rset_destroy (R);
    rp_idset_destroy (ex);
    annotate (c);
}

static bool defining (const struct options *o)
{
    return o->resources || o->R || o->xml || o->local;
}

/* --- showing ------------------------------------------------------------- */

/* A line of status / drain output: targets that share all of these. */
struct group {
    const char *state;
    bool up;
    const char *reason;
    double timestamp; /* 0: none */
    struct rp_idset *ranks;
};

struct groups {
    struct group *g;
    size_t n;
};

static void groups_free (struct groups *gs)
{
    for (size_t i = 0; i < gs->n; i++)
        rp_idset_destroy (gs->g[i].ranks);
    free (gs->g);
}

static bool same_group (const struct group *g, const char *state, bool up,
                        const char *reason, double ts)
{
    return !strcmp (g->state, state) && g->up == up && g->timestamp == ts
           && !g->reason == !reason && (!reason || !strcmp (g->reason, reason));
}

static void group_add (struct groups *gs, const char *state, bool up,
                       const char *reason, double ts, unsigned int rank)
{
    struct group *g = NULL;

    for (size_t i = 0; i < gs->n && !g; i++)
        if (same_group (&gs->g[i], state, up, reason, ts))
            g = &gs->g[i];
    if (!g) {
        struct group *n = realloc (gs->g, (gs->n + 1) * sizeof (*n));
        if (!n || !(n[gs->n].ranks = rp_idset_create ()))
            cmd_die (SUB, "out of memory");
        gs->g = n;
        g = &gs->g[gs->n++];
        g->state = state;
        g->up = up;
        g->reason = reason;
        g->timestamp = ts;
    }
    if (rp_idset_add (g->ranks, rank) < 0)
        cmd_die (SUB, "out of memory");
}

/* The state of rank as status names it. */
static const char *state_of (const struct rp_inventory *inv, unsigned int rank)
{
    if (rp_idset_test (rp_inventory_excluded (inv), rank))
        return "exclude";
    if (rp_idset_test (rp_inventory_removed (inv), rank))
        return "removed";
    if (rp_idset_test (rp_inventory_drained (inv), rank))
        return "drained";
    return "avail";
}

/* Targets grouped as flux resource status groups them: avail, exclude,
 * removed, then drained; within each, up before down; drained ones by
 * reason and time (in whole seconds, as flux-core's resource.status). */
static void status_groups (const struct rp_inventory *inv, bool drained_only,
                           struct groups *gs)
{
    static const char *const order[] = { "avail", "exclude", "removed",
                                         "drained" };
    const struct rp_idset *ranks = rp_rset_ranks (rp_inventory_R (inv));

    for (size_t k = drained_only ? 3 : 0; k < 4; k++)
        for (int up = 1; up >= 0; up--)
            for (unsigned int r = rp_idset_first (ranks);
                 r != RP_IDSET_INVALID_ID; r = rp_idset_next (ranks, r)) {
                const char *reason = NULL;
                double ts = 0;
                if (strcmp (state_of (inv, r), order[k]) != 0
                    || rp_idset_test (rp_inventory_down (inv), r) == up)
                    continue;
                if (k == 3)
                    rp_inventory_drain_info (inv, r, &ts, &reason);
                group_add (gs, order[k], up, reason, ts, r);
            }
}

static char *nodelist_of (const struct rp_inventory *inv,
                          const struct rp_idset *ranks, size_t *n)
{
    struct rp_rset *R = rp_rset_copy_ranks (rp_inventory_R (inv), ranks);
    struct rp_hostlist *hl = R ? rp_rset_nodelist (R) : NULL;
    char *s = hl ? rp_hostlist_encode (hl) : NULL;

    if (!s)
        cmd_die (SUB, "out of memory");
    if (n)
        *n = rp_hostlist_count (hl);
    rp_hostlist_destroy (hl);
    rp_rset_destroy (R);
    return s;
}

static const char *time_text (double ts, char *buf, size_t size)
{
    time_t t = (time_t)ts;
    struct tm tm;

    buf[0] = '\0';
    if (ts > 0 && localtime_r (&t, &tm))
        strftime (buf, size, "%b%d %R", &tm);
    return buf;
}

static json_t *group_json (const struct rp_inventory *inv,
                           const struct group *g)
{
    size_t n;
    char *nl = nodelist_of (inv, g->ranks, &n);
    char *ranks = encode_ids (g->ranks);
    json_t *o =
        json_pack ("{s:s s:b s:s s:s s:I}", "state", g->state, "up", g->up,
                   "ranks", ranks, "nodelist", nl, "nnodes", (json_int_t)n);

    if (o && g->timestamp > 0)
        json_object_set_new (o, "timestamp", json_real (g->timestamp));
    if (o && g->reason)
        json_object_set_new (o, "reason", json_string (g->reason));
    free (nl);
    free (ranks);
    if (!o)
        cmd_die (SUB, "out of memory");
    return o;
}

static int print_groups_json (const struct rp_inventory *inv,
                              const struct groups *gs)
{
    json_t *a = json_array ();

    for (size_t i = 0; a && i < gs->n; i++)
        json_array_append_new (a, group_json (inv, &gs->g[i]));
    if (!a)
        cmd_die (SUB, "out of memory");
    cmd_print_json (a);
    json_decref (a);
    return 0;
}

/* The width of the REASON column: 30, or the longest reason. */
static int reason_width (const struct groups *gs, bool *any)
{
    int w = 30;

    *any = false;
    for (size_t i = 0; i < gs->n; i++) {
        if (gs->g[i].reason || gs->g[i].timestamp > 0)
            *any = true;
        if (gs->g[i].reason && (int)strlen (gs->g[i].reason) > w)
            w = (int)strlen (gs->g[i].reason);
    }
    return w;
}

static void print_status_line (const struct rp_inventory *inv,
                               const struct group *g, bool drainfmt, bool extra,
                               int rw)
{
    char state[32], tbuf[64];
    size_t n;
    char *nl = nodelist_of (inv, g->ranks, &n);

    snprintf (state, sizeof (state), "%s%s", g->state, g->up ? "" : "*");
    time_text (g->timestamp, tbuf, sizeof (tbuf));
    if (drainfmt)
        printf ("%-12s %-8.8s %-*s %s\n", tbuf, state, rw,
                g->reason ? g->reason : "", nl);
    else if (extra)
        printf ("%12s  %s %6zu %-12s %-*s %s\n", state,
                g->up ? "\u2714" : "\u2717", n, tbuf, rw,
                g->reason ? g->reason : "", nl);
    else
        printf ("%12s  %s %6zu %s\n", state, g->up ? "\u2714" : "\u2717", n,
                nl);
    free (nl);
}

/* status, or drain without targets (drainfmt: flux's drain format). */
static int show_status (struct ctx *c, bool drainfmt)
{
    struct groups gs = { 0 };
    bool extra;
    int rw;

    status_groups (c->inv, drainfmt, &gs);
    if (c->o->json) {
        print_groups_json (c->inv, &gs);
        groups_free (&gs);
        return 0;
    }
    rw = reason_width (&gs, &extra);
    if (!c->o->no_header && drainfmt)
        printf ("%-12s %-8s %-*s %s\n", "TIME", "STATE", rw, "REASON",
                "NODELIST");
    else if (!c->o->no_header && extra)
        printf ("%12s %s %6s %-12s %-*s %s\n", "STATE", "UP", "NNODES", "TIME",
                rw, "REASON", "NODELIST");
    else if (!c->o->no_header)
        printf ("%12s %s %6s %s\n", "STATE", "UP", "NNODES", "NODELIST");
    for (size_t i = 0; i < gs.n; i++)
        print_status_line (c->inv, &gs.g[i], drainfmt, extra, rw);
    groups_free (&gs);
    return 0;
}

static int cmd_status (struct ctx *c)
{
    if (c->argc > 0)
        cmd_usage_error (SUB, "status: unexpected argument '%s'", c->argv[0]);
    return show_status (c, false);
}

/* --- list ------------------------------------------------------------------
 */

struct line {
    const char *state;
    char *props; /* "a,b" */
    struct rp_idset *ranks;
};

/* The properties of rank, joined by commas (in name order). */
static char *props_of (const struct rp_rset *R, unsigned int rank)
{
    json_t *all = rp_rset_properties (R);
    const char *name;
    json_t *v;
    size_t len = 1;
    char *s;

    json_object_foreach (all, name, v)
        len += strlen (name) + 1;
    if (!(s = calloc (1, len)))
        cmd_die (SUB, "out of memory");
    json_object_foreach (all, name, v) {
        struct rp_idset *ids = rp_idset_decode (json_string_value (v), NULL);
        if (ids && rp_idset_test (ids, rank)) {
            if (*s)
                strcat (s, ",");
            strcat (s, name);
        }
        rp_idset_destroy (ids);
    }
    json_decref (all);
    return s;
}

static void line_add (struct line **lines, size_t *n, const char *state,
                      char *props, unsigned int rank)
{
    struct line *l = NULL;

    for (size_t i = 0; i < *n && !l; i++)
        if (!strcmp ((*lines)[i].state, state)
            && !strcmp ((*lines)[i].props, props))
            l = &(*lines)[i];
    if (l)
        free (props);
    else {
        struct line *nl = realloc (*lines, (*n + 1) * sizeof (*nl));
        if (!nl || !(nl[*n].ranks = rp_idset_create ()))
            cmd_die (SUB, "out of memory");
        *lines = nl;
        l = &nl[(*n)++];
        l->state = state;
        l->props = props;
    }
    if (rank != RP_IDSET_INVALID_ID && rp_idset_add (l->ranks, rank) < 0)
        cmd_die (SUB, "out of memory");
}

/* Lines for up, then down: targets not excluded or removed, by their
 * property sets; a state with no target gets one empty line. */
static struct line *list_lines (const struct rp_inventory *inv, size_t *n)
{
    static const char *const states[] = { "up", "down" };
    const struct rp_rset *R = rp_inventory_R (inv);
    struct rp_idset *up = rp_inventory_up (inv);
    const struct rp_idset *ranks = rp_rset_ranks (R);
    struct line *lines = NULL;

    *n = 0;
    for (int k = 0; k < 2; k++) {
        size_t before = *n;
        for (unsigned int r = rp_idset_first (ranks); r != RP_IDSET_INVALID_ID;
             r = rp_idset_next (ranks, r)) {
            if (rp_idset_test (rp_inventory_excluded (inv), r)
                || rp_idset_test (rp_inventory_removed (inv), r)
                || rp_idset_test (up, r) != (k == 0))
                continue;
            line_add (&lines, n, states[k], props_of (R, r), r);
        }
        if (*n == before)
            line_add (&lines, n, states[k], strdup (""), RP_IDSET_INVALID_ID);
    }
    rp_idset_destroy (up);
    return lines;
}

static void count_of (const struct rp_inventory *inv,
                      const struct rp_idset *ranks, long *cores, long *gpus)
{
    struct rp_rset *R = rp_rset_copy_ranks (rp_inventory_R (inv), ranks);

    if (!R)
        cmd_die (SUB, "out of memory");
    *cores = (long)rp_rset_count (R, "core");
    *gpus = (long)rp_rset_count (R, "gpu");
    rp_rset_destroy (R);
}

static json_t *line_json (const struct rp_inventory *inv, const struct line *l)
{
    size_t n;
    long cores, gpus;
    char *nl = nodelist_of (inv, l->ranks, &n);
    char *ranks = encode_ids (l->ranks);
    json_t *props = json_array ();
    json_t *o;
    char *save = NULL, *copy = strdup (l->props);

    for (char *p = strtok_r (copy, ",", &save); p && props;
         p = strtok_r (NULL, ",", &save))
        json_array_append_new (props, json_string (p));
    count_of (inv, l->ranks, &cores, &gpus);
    o = json_pack ("{s:s s:o s:s s:s s:I s:I s:I}", "state", l->state,
                   "properties", props, "ranks", ranks, "nodelist", nl,
                   "nnodes", (json_int_t)n, "ncores", (json_int_t)cores,
                   "ngpus", (json_int_t)gpus);
    free (copy);
    free (nl);
    free (ranks);
    if (!o)
        cmd_die (SUB, "out of memory");
    return o;
}

struct widths {
    int props; /* 0: no PROPERTIES column */
    int cores;
    int gpus; /* 0: no NGPUS column */
};

static struct widths list_widths (const struct rp_inventory *inv,
                                  const struct line *lines, size_t n)
{
    struct widths w = { 0, 6, 0 };
    bool gpus = false;

    for (size_t i = 0; i < n; i++) {
        long c, g;
        char buf[32];
        int len = (int)strlen (lines[i].props);
        count_of (inv, lines[i].ranks, &c, &g);
        if (len > 0 && len > w.props)
            w.props = len < 10 ? 10 : len;
        if (snprintf (buf, sizeof (buf), "%ld", c) > w.cores)
            w.cores = (int)strlen (buf);
        gpus |= g > 0;
        if (g > 0 && snprintf (buf, sizeof (buf), "%ld", g) > w.gpus)
            w.gpus = (int)strlen (buf);
    }
    if (gpus && w.gpus < 5)
        w.gpus = 5;
    return w;
}

static void print_list_line (const char *state, const char *props,
                             const char *nnodes, const char *cores,
                             const char *gpus, const char *nl,
                             const struct widths *w)
{
    printf ("%10s", state);
    if (w->props)
        printf (" %-*s", w->props, props);
    printf (" %6s %*s", nnodes, w->cores, cores);
    if (w->gpus)
        printf (" %*s", w->gpus, gpus);
    printf (" %s\n", nl);
}

static int cmd_list (struct ctx *c)
{
    size_t n;
    struct line *lines;
    struct widths w;
    json_t *a = NULL;

    if (c->argc > 0)
        cmd_usage_error (SUB, "list: unexpected argument '%s'", c->argv[0]);
    lines = list_lines (c->inv, &n);
    w = list_widths (c->inv, lines, n);
    if (c->o->json && !(a = json_array ()))
        cmd_die (SUB, "out of memory");
    if (!c->o->json && !c->o->no_header)
        print_list_line ("STATE", "PROPERTIES", "NNODES", "NCORES", "NGPUS",
                         "NODELIST", &w);
    for (size_t i = 0; i < n; i++) {
        char nn[32], nc[32], ng[32];
        size_t nodes;
        long cores, gpus;
        char *nl;
        if (a) {
            json_array_append_new (a, line_json (c->inv, &lines[i]));
            continue;
        }
        nl = nodelist_of (c->inv, lines[i].ranks, &nodes);
        count_of (c->inv, lines[i].ranks, &cores, &gpus);
        snprintf (nn, sizeof (nn), "%zu", nodes);
        snprintf (nc, sizeof (nc), "%ld", cores);
        snprintf (ng, sizeof (ng), "%ld", gpus);
        print_list_line (lines[i].state, lines[i].props, nn, nc, ng, nl, &w);
        free (nl);
    }
    if (a) {
        cmd_print_json (a);
        json_decref (a);
    }
    for (size_t i = 0; i < n; i++) {
        free (lines[i].props);
        rp_idset_destroy (lines[i].ranks);
    }
    free (lines);
    return 0;
}

/* --- operations ------------------------------------------------------------
 */

static enum rp_drain_mode mode_of (const struct options *o)
{
    if (o->update)
        return RP_DRAIN_UPDATE;
    return o->force >= 2 ? RP_DRAIN_FORCE
           : o->force    ? RP_DRAIN_OVERWRITE
                         : RP_DRAIN_DEFAULT;
}

static int cmd_drain (struct ctx *c)
{
    struct rp_idset *ids;
    char *reason;
    rp_error_t e;
    int rc;

    if (c->argc == 0) {
        if (c->o->force || c->o->update)
            cmd_usage_error (SUB, "drain: -f and -u need TARGETS");
        return show_status (c, true);
    }
    if (c->o->json)
        cmd_usage_error (SUB, "drain: --json only without TARGETS");
    ids = targets (c, c->argv[0]);
    reason = join (c->argc - 1, c->argv + 1);
    rc = rp_inventory_drain (c->inv, ids, reason, mode_of (c->o), now_of (c->o),
                             &e);
    if (rc < 0 && errno == EEXIST)
        cmd_die (SUB, "%s (-f replaces the reason, -u keeps it)", e.text);
    if (rc < 0)
        cmd_die (SUB, "%s", e.text);
    free (reason);
    rp_idset_destroy (ids);
    return 0;
}

static int cmd_undrain (struct ctx *c)
{
    struct rp_idset *ids;
    char *reason;
    rp_error_t e;

    if (c->argc == 0)
        cmd_usage_error (SUB, "undrain: TARGETS missing");
    ids = targets (c, c->argv[0]);
    reason = join (c->argc - 1, c->argv + 1);
    if (rp_inventory_undrain (c->inv, ids, reason,
                              c->o->force || c->o->update ? RP_DRAIN_UPDATE
                                                          : RP_DRAIN_DEFAULT,
                              now_of (c->o), &e)
        < 0)
        cmd_die (SUB, "%s", e.text);
    free (reason);
    rp_idset_destroy (ids);
    return 0;
}

static struct rp_idset *one_targets (struct ctx *c, const char *name)
{
    if (c->argc != 1)
        cmd_usage_error (SUB, "%s: %s", name,
                         c->argc ? "one TARGETS argument" : "TARGETS missing");
    return targets (c, c->argv[0]);
}

static int updown (struct ctx *c, bool up)
{
    struct rp_idset *ids = one_targets (c, up ? "up" : "down");
    rp_error_t e;

    if (rp_inventory_set_up (c->inv, ids, up, now_of (c->o), &e) < 0)
        cmd_die (SUB, "%s", e.text);
    rp_idset_destroy (ids);
    return 0;
}

static int cmd_up (struct ctx *c)
{
    return updown (c, true);
}

static int cmd_down (struct ctx *c)
{
    return updown (c, false);
}

static int cmd_shrink (struct ctx *c)
{
    struct rp_idset *ids = one_targets (c, "shrink");
    rp_error_t e;

    if (rp_inventory_shrink (c->inv, ids, now_of (c->o), &e) < 0)
        cmd_die (SUB, "%s", e.text);
    rp_idset_destroy (ids);
    return 0;
}

static int property_op (struct ctx *c, bool add)
{
    const char *name = add ? "property-add" : "property-remove";
    struct rp_idset *ids;
    rp_error_t e;

    if (c->argc < 2)
        cmd_usage_error (SUB, "%s: TARGETS and at least one NAME", name);
    ids = targets (c, c->argv[0]);
    for (int i = 1; i < c->argc; i++) {
        int rc = add ? rp_inventory_property_add (c->inv, c->argv[i], ids,
                                                  now_of (c->o), &e)
                     : rp_inventory_property_remove (c->inv, c->argv[i], ids,
                                                     now_of (c->o), &e);
        if (rc < 0)
            cmd_die (SUB, "%s", e.text);
    }
    rp_idset_destroy (ids);
    return 0;
}

static int cmd_property_add (struct ctx *c)
{
    return property_op (c, true);
}

static int cmd_property_remove (struct ctx *c)
{
    return property_op (c, false);
}

static int cmd_expire (struct ctx *c)
{
    double t;
    rp_error_t e;

    if (c->argc != 1)
        cmd_usage_error (SUB, "expire: one SECONDS argument");
    if (cmd_parse_now (c->argv[0], &t) < 0)
        cmd_die (SUB, "expire: '%s' is not a number of seconds", c->argv[0]);
    if (rp_inventory_expire (c->inv, t, now_of (c->o), &e) < 0)
        cmd_die (SUB, "%s", e.text);
    return 0;
}

static int cmd_compact (struct ctx *c)
{
    size_t before, after;
    rp_error_t e;

    if (c->argc > 0)
        cmd_usage_error (SUB, "compact: unexpected argument '%s'", c->argv[0]);
    if (rp_inventory_compact (c->inv, now_of (c->o), &before, &after, &e) < 0)
        cmd_die (SUB, "%s", e.text);
    printf ("%zu events, now %zu\n", before, after);
    return 0;
}

static int cmd_import (struct ctx *c)
{
    struct rp_diags *w = rp_diags_create ();
    struct rp_flux_import st;
    rp_error_t e;

    if (c->argc != 1)
        cmd_usage_error (SUB, "import-flux-eventlog: one FILE argument");
    if (!w)
        cmd_die (SUB, "out of memory");
    if (rp_inventory_import_flux (c->inv, c->argv[0], now_of (c->o), w, &st, &e)
        < 0) {
        print_warnings (w);
        cmd_die (SUB, "%s", e.text);
    }
    print_warnings (w);
    printf ("%zu events: %zu drain/undrain used, %zu ignored, %zu targets "
            "skipped; %zu targets drained, %zu events logged\n",
            st.events, st.used, st.ignored, st.skipped, st.drained, st.logged);
    rp_diags_destroy (w);
    return 0;
}

/* --- acquire ---------------------------------------------------------------
 */

static void print_response (const json_t *o)
{
    char *s = rp_acquire_encode (o);

    if (!s)
        cmd_die (SUB, "out of memory");
    printf ("%s\n", s);
    free (s);
    if (fflush (stdout) != 0)
        cmd_die (SUB, "write error: %s", strerror (errno));
}

static void follow (struct ctx *c, struct rp_acquire_producer *p)
{
    const struct timespec pause = { 0, 200 * 1000 * 1000 };
    rp_error_t e;

    for (;;) {
        int n = rp_inventory_refresh (c->inv, 1, &e);
        json_t *o = NULL;
        if (n < 0)
            cmd_die (SUB, "%s", e.text);
        if (n == 0) {
            nanosleep (&pause, NULL);
            continue;
        }
        if (rp_acquire_producer_next (p, c->inv, &o, &e) < 0)
            cmd_die (SUB, "%s", e.text);
        if (o)
            print_response (o);
        json_decref (o);
    }
}

static int cmd_acquire (struct ctx *c)
{
    struct rp_acquire_producer *p = rp_acquire_producer_create ();
    json_t *o;
    rp_error_t e;

    if (c->argc > 0)
        cmd_usage_error (SUB, "acquire: unexpected argument '%s'", c->argv[0]);
    if (!p)
        cmd_die (SUB, "out of memory");
    if (!(o = rp_acquire_producer_first (p, c->inv, &e)))
        cmd_die (SUB, "%s", e.text);
    print_response (o);
    json_decref (o);
    if (c->o->follow)
        follow (c, p);
    rp_acquire_producer_destroy (p);
    return 0;
}

/* --- the command ------------------------------------------------------------
 */

static const struct subcommand subcommands[] = {
    { "list", F_LIST, cmd_list, "" },
    { "status", F_LIST, cmd_status, "" },
    { "drain", F_LIST | F_MODES, cmd_drain, "[TARGETS [REASON...]]" },
    { "undrain", F_WRITE | F_MODES, cmd_undrain, "TARGETS [REASON...]" },
    { "up", F_WRITE, cmd_up, "TARGETS" },
    { "down", F_WRITE, cmd_down, "TARGETS" },
    { "shrink", F_WRITE, cmd_shrink, "TARGETS" },
    { "property-add", F_WRITE, cmd_property_add, "TARGETS NAME..." },
    { "property-remove", F_WRITE, cmd_property_remove, "TARGETS NAME..." },
    { "expire", F_WRITE, cmd_expire, "SECONDS" },
    { "acquire", F_FOLLOW, cmd_acquire, "" },
    { "import-flux-eventlog", F_WRITE, cmd_import, "FILE" },
    { "compact", F_WRITE, cmd_compact, "" },
};

static void set_option (struct options *o, int c)
{
    if (c == OPT_STATE)
        o->state = optarg;
    else if (c == OPT_RESOURCES)
        o->resources = optarg;
    else if (c == 'R')
        o->R = optarg;
    else if (c == OPT_LOCAL)
        o->local = true;
    else if (c == OPT_XML)
        o->xml = optarg;
    else if (c == OPT_HOSTNAME)
        o->hostname = optarg;
    else if (c == OPT_EXCLUDE)
        o->exclude = optarg;
    else if (c == OPT_JSON)
        o->json = true;
    else if (c == 'n')
        o->no_header = true;
    else if (c == 'f')
        o->force++;
    else if (c == 'u')
        o->update = true;
    else if (c == OPT_FOLLOW)
        o->follow = true;
    else if (c == OPT_CONFIG)
        o->config = optarg;
    else if (c == 'v')
        cmd_verbose ();
    else if (cmd_parse_now (optarg, &o->now) < 0)
        cmd_usage_error (SUB, "--now: '%s' is not a number of seconds", optarg);
}

/* Options and arguments, in any order (arguments after "--" are never
 * options): the arguments are gathered into args. */
static int parse (struct options *o, int argc, char **argv, char **args)
{
    int nargs = 0, c;

    opterr = 0;
    optind = 1;
    while (optind < argc) {
        if ((c = getopt_long (argc, argv, SHORTOPTS, opts, NULL)) == -1) {
            if (optind > 0 && !strcmp (argv[optind - 1], "--")) {
                while (optind < argc)
                    args[nargs++] = argv[optind++];
                break;
            }
            args[nargs++] = argv[optind++];
            continue;
        }
        if (c == OPT_HELP || c == 'h') {
            usage (stdout);
            exit (0);
        }
        if (c == '?' || c == ':')
            cmd_bad_option (SUB, "", c, argv, SHORTOPTS, opts);
        set_option (o, c);
    }
    return nargs;
}

static void check_options (const struct options *o, const struct subcommand *s)
{
    int defs = !!o->resources + !!o->R + !!o->xml + !!o->local;

    if (defs > 1)
        cmd_usage_error (SUB, "one of --resources, -R, --local, --xml");
    if (o->hostname && !o->local && !o->xml)
        cmd_usage_error (SUB, "--hostname is for --local and --xml");
    if (o->config && !defs)
        cmd_usage_error (SUB, "--config is for --resources, -R, --local and "
                              "--xml (its property plugins annotate what they "
                              "define)");
    if (o->exclude && (!defs || o->resources))
        cmd_usage_error (SUB, "--exclude is for -R, --local and --xml (a "
                              "resources file has its own exclude)");
    if ((o->json || o->no_header) && !(s->flags & F_LIST))
        cmd_usage_error (SUB,
                         "%s: --json and -n are for list, status and "
                         "drain",
                         s->name);
    if ((o->force || o->update) && !(s->flags & F_MODES))
        cmd_usage_error (SUB, "%s: -f and -u are for drain and undrain",
                         s->name);
    if (o->force && o->update)
        cmd_usage_error (SUB, "only one of --force and --update");
    if (o->follow && !(s->flags & F_FOLLOW))
        cmd_usage_error (SUB, "%s: --follow is for acquire", s->name);
}

static const char *state_dir (struct options *o)
{
    const char *env = secure_getenv (STATE_ENV);

    if (o->state)
        return o->state;
    if (env && *env)
        return env;
    if (o->resources && (o->state_buf = config_state (o->resources)))
        return o->state_buf;
    return RP_LOCALSTATEDIR "/lib/respol/resource";
}

static const struct subcommand *find_subcommand (const char *name)
{
    for (size_t i = 0; i < sizeof (subcommands) / sizeof (subcommands[0]); i++)
        if (!strcmp (subcommands[i].name, name))
            return &subcommands[i];
    cmd_usage_error (SUB, "unknown subcommand '%s'", name);
}

static void open_inventory (struct ctx *c, const struct subcommand *s)
{
    bool write = (s->flags & F_WRITE) || defining (c->o)
                 || (!strcmp (s->name, "drain") && c->argc > 0);
    struct rp_diags *w = rp_diags_create ();
    const char *dir = state_dir (c->o);
    rp_error_t e;

    if (!w)
        cmd_die (SUB, "out of memory");
    c->inv = rp_inventory_open (dir, write ? RP_INVENTORY_WRITE : 0, w, &e);
    print_warnings (w);
    rp_diags_destroy (w);
    if (!c->inv)
        cmd_die (SUB, "%s", e.text);
    if (defining (c->o))
        define (c);
    if (!rp_inventory_R (c->inv))
        cmd_die (SUB,
                 "%s: no resources defined (define them with "
                 "--resources=FILE, -R FILE, --local or --xml=FILE)",
                 dir);
}

int cmd_resource (int argc, char **argv)
{
    struct options o = { .now = -1 };
    char **args = calloc ((size_t)argc + 1, sizeof (*args));
    struct ctx c = { .o = &o };
    const struct subcommand *s;
    int nargs, rc;

    if (!args)
        cmd_die (SUB, "out of memory");
    nargs = parse (&o, argc, argv, args);
    if (nargs == 0)
        cmd_usage_error (SUB, "a subcommand is needed");
    s = find_subcommand (args[0]);
    check_options (&o, s);
    c.argc = nargs - 1;
    c.argv = args + 1;
    open_inventory (&c, s);
    rc = s->fn (&c);
    rp_inventory_destroy (c.inv);
    free (o.state_buf);
    free (args);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return rc;
}
