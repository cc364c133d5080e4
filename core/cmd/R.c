/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol R: encode, decode and combine RFC 20 resource sets, with the
 * subcommands and options of flux-core's `flux R` (see usage() below and
 * doc/man/respol.1).
 *
 * Input: every subcommand but encode reads R objects, concatenated, on
 * stdin (cmd_read_json_stream); decode, rerank, remap and set-property
 * work on their union, verify wants exactly two, and append, union, diff
 * and intersect fold left over them.  Empty input is "no R on stdin".
 *
 * Errors: "respol: R: SUB: message", exit 1 for bad input (including a
 * bad idset, hostlist or property in an option value), 2 for bad usage
 * (unknown option or subcommand, missing or extra argument, options that
 * exclude each other, an unknown --count type).  Library messages start
 * with "R: "; that is dropped since "R: " is already said, and an error in
 * the n-th object of stdin reads "stdin: object n: ..." (just "stdin: ..."
 * when there is one), e.g.
 *   respol: R: decode: stdin: execution.nodelist: 3 hosts for 4 ...
 *
 * Choices a reader would otherwise rediscover:
 * - encode --local/--xml with several ranks gives each rank the cores and
 *   GPUs found by hwloc (like -c/-g give each rank the same ids).  The host
 *   name defaults to the topology's HostName (--xml) or this machine's.
 * - encode checks the number of ranks against RP_RSET_MAX_TARGETS before
 *   it adds a target, so "-r 0-4294967294" fails at once.
 * - NAME:RANKS is split at the last ':' (property names may hold ':'), so
 *   a name with a ':' needs explicit ranks: "a:b:0-3".
 * - --include/--exclude TARGETS made only of digits, ',', '-', '[', ']'
 *   and blanks are an idset of ranks (ranks that are not targets are
 *   ignored); anything else is a hostlist, whose hosts must all be hosts
 *   of the R ("no target on host X").  A host matches every rank on it.
 * - decode --short groups targets like the R_lite entries of the compact
 *   encoding: "rank[0-3]/core[0-47],gpu[0-7]", groups by lowest rank.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <respol/hostlist.h>
#include <respol/idset.h>
#include <respol/rset.h>

#include "cmd.h"

#define SUB "R"

struct r_cmd {
    const char *name;
    const char *args;
    const char *summary;
    const char *optstring;
    const struct option *opts;
    const char *help;
    int (*run) (const struct r_cmd *cmd, int argc, char **argv);
};

/* --- errors ------------------------------------------------------------ */

/* Report the option getopt_long just rejected (c is '?' or ':'). */
static void bad_option (const struct r_cmd *cmd, int c, char **argv)
{
    char prefix[64];

    snprintf (prefix, sizeof (prefix), "%s: ", cmd->name);
    cmd_bad_option (SUB, prefix, c, argv, cmd->optstring, cmd->opts);
}

static void usage_cmd (const struct r_cmd *c);

/* c is what getopt_long returned and no option of cmd's own: --help, or
 * a bad option. */
static void other_option (const struct r_cmd *cmd, int c, char **argv)
{
    if (c == 'h') {
        usage_cmd (cmd);
        exit (0);
    }
    bad_option (cmd, c, argv);
}

/* --- input ------------------------------------------------------------- */

struct rlist {
    struct rp_rset **r;
    size_t n;
};

static void rlist_free (struct rlist *l)
{
    cmd_rsets_free (l->r, l->n);
}

/* Decode every R on stdin (cmd_read_rsets); die on bad input or when
 * there is none. */
static struct rlist read_rlist (const char *sub)
{
    struct rlist l;

    l.r = cmd_read_rsets (SUB, sub, &l.n);
    return l;
}


static int fold_append (struct rp_rset **acc, const struct rp_rset *r,
                        rp_error_t *error)
{
    return rp_rset_append (*acc, r, error);
}

static int fold_new (struct rp_rset **acc, struct rp_rset *result)
{
    if (!result)
        return -1;
    rp_rset_destroy (*acc);
    *acc = result;
    return 0;
}

static int fold_diff (struct rp_rset **acc, const struct rp_rset *r,
                      rp_error_t *error)
{
    return fold_new (acc, rp_rset_diff (*acc, r, error));
}

static int fold_intersect (struct rp_rset **acc, const struct rp_rset *r,
                           rp_error_t *error)
{
    return fold_new (acc, rp_rset_intersect (*acc, r, error));
}

static void print_rset (const char *sub, const struct rp_rset *r)
{
    char *s = rp_rset_encode (r, 0);

    if (!s)
        cmd_die (SUB, "%s: %s", sub, strerror (errno));
    printf ("%s\n", s);
    free (s);
}

/* --- arguments --------------------------------------------------------- */

static struct rp_idset *idset_arg (const char *sub, const char *opt,
                                   const char *s)
{
    rp_error_t error;
    struct rp_idset *set = rp_idset_decode (s, &error);

    if (!set)
        cmd_die (SUB, "%s: %s: %s", sub, opt, error.text);
    return set;
}

static struct rp_hostlist *hostlist_arg (const char *sub, const char *opt,
                                         const char *s)
{
    rp_error_t error;
    struct rp_hostlist *hl = rp_hostlist_decode (s, &error);

    if (!hl)
        cmd_die (SUB, "%s: %s: %s", sub, opt, error.text);
    return hl;
}

/* Give property NAME[:RANKS] (split at the last ':') to r.  prefix is
 * put before messages ("--property: " or ""). */
static void add_property (const char *sub, const char *prefix,
                          struct rp_rset *r, const char *arg)
{
    const char *colon = strrchr (arg, ':');
    struct rp_idset *ranks = NULL;
    rp_error_t error;
    char *name;

    if (!(name = strndup (arg, colon ? (size_t)(colon - arg) : strlen (arg))))
        cmd_die (SUB, "%s: out of memory", sub);
    if (colon && !(ranks = rp_idset_decode (colon + 1, &error)))
        cmd_die (SUB, "%s: %s'%s': %s", sub, prefix, arg, error.text);
    if (colon && rp_idset_empty (ranks))
        cmd_die (SUB, "%s: %s'%s': no ranks after ':'", sub, prefix, arg);
    if (rp_rset_property_add (r, name, ranks, &error) < 0)
        cmd_die (SUB, "%s: %s'%s': %s", sub, prefix, arg, cmd_R_text (&error));
    rp_idset_destroy (ranks);
    free (name);
}

/* --- encode ------------------------------------------------------------ */

struct encode_args {
    const char *ranks;
    const char *cores;
    const char *gpus;
    const char *hosts;
    const char *xml;
    bool local;
    const char **props;
    int nprops;
};

/* The host name of each rank: the i-th host of --hosts, else defhost. */
struct hostnames {
    struct rp_hostlist *hl;
    char buf[RP_HOSTLIST_MAX_NAME + 1];
    char defhost[RP_HOSTLIST_MAX_NAME + 1];
};

static const char *hostname_of (const char *sub, struct hostnames *h, size_t i)
{
    if (!h->hl)
        return h->defhost;
    if (rp_hostlist_nth_buf (h->hl, i, h->buf, sizeof (h->buf)) < 0)
        cmd_die (SUB, "%s: --hosts: host %zu: %s", sub, i, strerror (errno));
    return h->buf;
}

static void check_ranks (const char *sub, const struct rp_idset *ranks,
                         const struct rp_hostlist *hl)
{
    size_t n = rp_idset_count (ranks);

    if (n == 0)
        cmd_die (SUB, "%s: --ranks: no rank", sub);
    if (n > RP_RSET_MAX_TARGETS)
        cmd_die (SUB, "%s: --ranks: %zu ranks, more than %u", sub, n,
                 RP_RSET_MAX_TARGETS);
    if (hl && rp_hostlist_count (hl) != n)
        cmd_die (SUB, "%s: --hosts: %zu hosts for %zu ranks", sub,
                 rp_hostlist_count (hl), n);
}

/* Add a target with cores and gpus for each rank, skipping the first
 * `from` ranks. */
static void add_targets (const char *sub, struct rp_rset *r,
                         const struct rp_idset *ranks, size_t from,
                         struct hostnames *h, const struct rp_idset *cores,
                         const struct rp_idset *gpus)
{
    unsigned int rank = rp_idset_first (ranks);
    size_t i = 0;

    for (; rank != RP_IDSET_INVALID_ID; rank = rp_idset_next (ranks, rank)) {
        rp_error_t error;
        if (i++ < from)
            continue;
        if (rp_rset_add_target (r, rank, hostname_of (sub, h, i - 1), cores,
                                gpus, &error)
            < 0)
            cmd_die (SUB, "%s: %s", sub, cmd_R_text (&error));
    }
}

static struct rp_rset *encode_ids (const char *sub, const struct encode_args *a,
                                   const struct rp_idset *ranks,
                                   struct hostnames *h)
{
    struct rp_idset *cores = idset_arg (sub, "--cores", a->cores);
    struct rp_idset *gpus = NULL;
    struct rp_rset *r;

    if (a->gpus)
        gpus = idset_arg (sub, "--gpus", a->gpus);
    if (!h->hl && gethostname (h->defhost, sizeof (h->defhost) - 1) < 0)
        cmd_die (SUB, "%s: gethostname: %s", sub, strerror (errno));
    if (!(r = rp_rset_create ()))
        cmd_die (SUB, "%s: %s", sub, strerror (errno));
    add_targets (sub, r, ranks, 0, h, cores, gpus);
    rp_idset_destroy (cores);
    rp_idset_destroy (gpus);
    return r;
}

/* One target from hwloc on the first rank, copied to the others. */
static struct rp_rset *encode_hwloc (const char *sub,
                                     const struct encode_args *a,
                                     const struct rp_idset *ranks,
                                     struct hostnames *h)
{
    unsigned int first = rp_idset_first (ranks);
    const char *host = h->hl ? hostname_of (sub, h, 0) : NULL;
    const struct rp_idset *g;
    struct rp_idset *cores, *gpus = NULL;
    struct rp_rset *r;
    rp_error_t error;

    if (!(r = rp_rset_from_hwloc (first, host, a->xml, &error)))
        cmd_die (SUB, "%s: %s", sub, cmd_R_text (&error));
    /* Accessors borrow until r changes: copy before adding targets. */
    snprintf (h->defhost, sizeof (h->defhost), "%s",
              rp_rset_hostname (r, first));
    cores = rp_idset_copy (rp_rset_cores (r, first));
    if ((g = rp_rset_gpus (r, first)))
        gpus = rp_idset_copy (g);
    if (!cores || (g && !gpus))
        cmd_die (SUB, "%s: %s", sub, strerror (errno));
    add_targets (sub, r, ranks, 1, h, cores, gpus);
    rp_idset_destroy (cores);
    rp_idset_destroy (gpus);
    return r;
}

static const struct option encode_opts[] = {
    { "help", no_argument, NULL, 'h' },
    { "ranks", required_argument, NULL, 'r' },
    { "cores", required_argument, NULL, 'c' },
    { "gpus", required_argument, NULL, 'g' },
    { "hosts", required_argument, NULL, 'H' },
    { "property", required_argument, NULL, 'p' },
    { "local", no_argument, NULL, 'l' },
    { "xml", required_argument, NULL, 'f' },
    { NULL, 0, NULL, 0 },
};

static void parse_encode (const struct r_cmd *cmd, int argc, char **argv,
                          struct encode_args *a)
{
    int c;

    while ((c = getopt_long (argc, argv, cmd->optstring, cmd->opts, NULL))
           != -1) {
        switch (c) {
        case 'r':
            a->ranks = optarg;
            break;
        case 'c':
            a->cores = optarg;
            break;
        case 'g':
            a->gpus = optarg;
            break;
        case 'H':
            a->hosts = optarg;
            break;
        case 'p':
            a->props[a->nprops++] = optarg;
            break;
        case 'l':
            a->local = true;
            break;
        case 'f':
            a->xml = optarg;
            break;
        default:
            other_option (cmd, c, argv);
        }
    }
    if (optind < argc)
        cmd_usage_error (SUB, "%s: unexpected argument '%s'", cmd->name,
                         argv[optind]);
    if (a->local && a->xml)
        cmd_usage_error (SUB, "%s: --local and --xml exclude each other",
                         cmd->name);
    if ((a->local || a->xml) && (a->cores || a->gpus))
        cmd_usage_error (SUB,
                         "%s: --cores and --gpus exclude --local and "
                         "--xml",
                         cmd->name);
}

static int run_encode (const struct r_cmd *cmd, int argc, char **argv)
{
    struct encode_args a = { .ranks = "0" };
    struct hostnames h = { .hl = NULL };
    struct rp_idset *ranks;
    struct rp_rset *r;

    /* -p may be given once per argument. */
    if (!(a.props = calloc (argc, sizeof (a.props[0]))))
        cmd_die (SUB, "%s: out of memory", cmd->name);
    parse_encode (cmd, argc, argv, &a);
    ranks = idset_arg (cmd->name, "--ranks", a.ranks);
    if (a.hosts)
        h.hl = hostlist_arg (cmd->name, "--hosts", a.hosts);
    check_ranks (cmd->name, ranks, h.hl);
    if (!a.cores)
        a.cores = "0";
    if (a.local || a.xml)
        r = encode_hwloc (cmd->name, &a, ranks, &h);
    else
        r = encode_ids (cmd->name, &a, ranks, &h);
    for (int i = 0; i < a.nprops; i++)
        add_property (cmd->name, "--property: ", r, a.props[i]);
    print_rset (cmd->name, r);
    rp_rset_destroy (r);
    rp_hostlist_destroy (h.hl);
    rp_idset_destroy (ranks);
    free (a.props);
    return 0;
}

/* --- decode ------------------------------------------------------------ */

enum { PRINT_SHORT = 1, PRINT_NODELIST = 2, PRINT_RANKS = 4, PRINT_COUNT = 8 };

struct decode_args {
    const char *include;
    const char *exclude;
    const char *properties;
    const char *count;
    int print;
};

/* TARGETS made only of idset characters are ranks. */
static bool is_idset_text (const char *s)
{
    return s[strspn (s, "0123456789,-[] \t")] == '\0';
}

/* The ranks of r on the hosts of hl; every host must have a target. */
static struct rp_idset *hosts_to_ranks (const char *sub, const char *opt,
                                        const struct rp_rset *r,
                                        const struct rp_hostlist *hl)
{
    const struct rp_idset *all = rp_rset_ranks (r);
    struct rp_idset *ranks = rp_idset_create ();
    char host[RP_HOSTLIST_MAX_NAME + 1];
    unsigned int rank;

    if (!ranks)
        cmd_die (SUB, "%s: out of memory", sub);
    for (size_t i = 0; i < rp_hostlist_count (hl); i++) {
        if (rp_hostlist_nth_buf (hl, i, host, sizeof (host)) < 0)
            cmd_die (SUB, "%s: %s: %s", sub, opt, strerror (errno));
        if (rp_rset_rank_of (r, host) < 0)
            cmd_die (SUB, "%s: %s: no target on host %s", sub, opt, host);
    }
    for (rank = rp_idset_first (all); rank != RP_IDSET_INVALID_ID;
         rank = rp_idset_next (all, rank)) {
        if (rp_hostlist_find (hl, rp_rset_hostname (r, rank)) >= 0
            && rp_idset_add (ranks, rank) < 0)
            cmd_die (SUB, "%s: out of memory", sub);
    }
    return ranks;
}

static struct rp_idset *targets_arg (const char *sub, const char *opt,
                                     const struct rp_rset *r, const char *s)
{
    struct rp_hostlist *hl;
    struct rp_idset *ranks;

    if (is_idset_text (s))
        return idset_arg (sub, opt, s);
    hl = hostlist_arg (sub, opt, s);
    ranks = hosts_to_ranks (sub, opt, r, hl);
    rp_hostlist_destroy (hl);
    return ranks;
}

/* Replace *r by its targets in ranks (or not in ranks when exclude). */
static void keep_ranks (const char *sub, struct rp_rset **r,
                        struct rp_idset *ranks, bool exclude)
{
    struct rp_rset *kept;

    if (exclude) {
        struct rp_idset *all = rp_idset_copy (rp_rset_ranks (*r));
        if (!all || rp_idset_subtract (all, ranks) < 0)
            cmd_die (SUB, "%s: out of memory", sub);
        rp_idset_destroy (ranks);
        ranks = all;
    }
    if (!(kept = rp_rset_copy_ranks (*r, ranks)))
        cmd_die (SUB, "%s: %s", sub, strerror (errno));
    rp_idset_destroy (ranks);
    rp_rset_destroy (*r);
    *r = kept;
}

/* Does target rank satisfy every term of the comma list? */
static bool has_properties (const struct rp_rset *r, unsigned int rank,
                            char **terms, int nterms)
{
    for (int i = 0; i < nterms; i++) {
        bool negate = terms[i][0] == '^';
        if (rp_rset_has_property (r, rank, terms[i] + negate) == negate)
            return false;
    }
    return true;
}

/* Split the --properties list and check each name. */
static int split_properties (const char *sub, char *list, char **terms)
{
    int n = 0;
    char *save = NULL;

    if (*list == '\0' || *list == ',' || list[strlen (list) - 1] == ','
        || strstr (list, ",,"))
        cmd_die (SUB, "%s: --properties: '%s': empty property name", sub, list);
    for (char *t = strtok_r (list, ",", &save); t;
         t = strtok_r (NULL, ",", &save)) {
        rp_error_t error;
        if (rp_rset_property_check (t + (t[0] == '^'), &error) < 0)
            cmd_die (SUB, "%s: --properties: %s", sub, cmd_R_text (&error));
        terms[n++] = t;
    }
    return n;
}

static struct rp_idset *
properties_arg (const char *sub, const struct rp_rset *r, const char *list)
{
    const struct rp_idset *all = rp_rset_ranks (r);
    struct rp_idset *ranks = rp_idset_create ();
    char *copy = strdup (list);
    char **terms = calloc (strlen (list) + 1, sizeof (char *));
    unsigned int rank;
    int n;

    if (!ranks || !copy || !terms)
        cmd_die (SUB, "%s: out of memory", sub);
    n = split_properties (sub, copy, terms);
    for (rank = rp_idset_first (all); rank != RP_IDSET_INVALID_ID;
         rank = rp_idset_next (all, rank)) {
        if (has_properties (r, rank, terms, n)
            && rp_idset_add (ranks, rank) < 0)
            cmd_die (SUB, "%s: out of memory", sub);
    }
    free (terms);
    free (copy);
    return ranks;
}

static char *encode_ids_bracketed (const char *sub, const char *s)
{
    struct rp_idset *set = idset_arg (sub, "R_lite", s);
    char *out = rp_idset_encode (set, RP_IDSET_RANGES | RP_IDSET_BRACKETS);

    if (!out)
        cmd_die (SUB, "%s: out of memory", sub);
    rp_idset_destroy (set);
    return out;
}

/* One group of the short form: rank[0-3]/core[0-47],gpu[0-7]. */
static void print_group (const char *sub, json_t *entry)
{
    const char *rank = "", *core = "", *gpu = "";
    char *ranks, *cores, *gpus;

    if (json_unpack (entry, "{s:s s:{s?s s?s}}", "rank", &rank, "children",
                     "core", &core, "gpu", &gpu)
        < 0)
        cmd_die (SUB, "%s: unexpected R_lite entry", sub);
    ranks = encode_ids_bracketed (sub, rank);
    cores = encode_ids_bracketed (sub, core);
    gpus = encode_ids_bracketed (sub, gpu);
    printf ("rank%s/", ranks);
    if (*cores)
        printf ("core%s", cores);
    if (*gpus)
        printf ("%sgpu%s", *cores ? "," : "", gpus);
    free (ranks);
    free (cores);
    free (gpus);
}

static void print_short (const char *sub, const struct rp_rset *r)
{
    json_t *o = rp_rset_to_json (r);
    json_t *rlite, *entry;
    size_t i;

    if (!o)
        cmd_die (SUB, "%s: %s", sub, strerror (errno));
    rlite = json_object_get (json_object_get (o, "execution"), "R_lite");
    json_array_foreach (rlite, i, entry) {
        if (i > 0)
            printf (" ");
        print_group (sub, entry);
    }
    printf ("\n");
    json_decref (o);
}

static void print_parts (const char *sub, const struct rp_rset *r,
                         const struct decode_args *a)
{
    struct rp_hostlist *hl;
    char *s;

    if (a->print & PRINT_SHORT)
        print_short (sub, r);
    if (a->print & PRINT_NODELIST) {
        if (!(hl = rp_rset_nodelist (r)) || !(s = rp_hostlist_encode (hl)))
            cmd_die (SUB, "%s: %s", sub, strerror (errno));
        printf ("%s\n", s);
        free (s);
        rp_hostlist_destroy (hl);
    }
    if (a->print & PRINT_RANKS) {
        if (!(s = rp_idset_encode (rp_rset_ranks (r), RP_IDSET_RANGES)))
            cmd_die (SUB, "%s: %s", sub, strerror (errno));
        printf ("%s\n", s);
        free (s);
    }
    if (a->print & PRINT_COUNT)
        printf ("%zd\n", rp_rset_count (r, a->count));
}

static const struct option decode_opts[] = {
    { "help", no_argument, NULL, 'h' },
    { "short", no_argument, NULL, 's' },
    { "nodelist", no_argument, NULL, 'n' },
    { "ranks", no_argument, NULL, 'r' },
    { "count", required_argument, NULL, 'c' },
    { "include", required_argument, NULL, 'i' },
    { "exclude", required_argument, NULL, 'x' },
    { "properties", required_argument, NULL, 'p' },
    { NULL, 0, NULL, 0 },
};

static void parse_decode (const struct r_cmd *cmd, int argc, char **argv,
                          struct decode_args *a)
{
    int c;

    while ((c = getopt_long (argc, argv, cmd->optstring, cmd->opts, NULL))
           != -1) {
        switch (c) {
        case 's':
            a->print |= PRINT_SHORT;
            break;
        case 'n':
            a->print |= PRINT_NODELIST;
            break;
        case 'r':
            a->print |= PRINT_RANKS;
            break;
        case 'c':
            a->print |= PRINT_COUNT;
            a->count = optarg;
            break;
        case 'i':
            a->include = optarg;
            break;
        case 'x':
            a->exclude = optarg;
            break;
        case 'p':
            a->properties = optarg;
            break;
        default:
            other_option (cmd, c, argv);
        }
    }
    if (optind < argc)
        cmd_usage_error (SUB, "%s: unexpected argument '%s'", cmd->name,
                         argv[optind]);
    if (a->count && strcmp (a->count, "node") && strcmp (a->count, "core")
        && strcmp (a->count, "gpu"))
        cmd_usage_error (SUB,
                         "%s: --count: unknown type '%s' (node, core "
                         "or gpu)",
                         cmd->name, a->count);
}

static int run_decode (const struct r_cmd *cmd, int argc, char **argv)
{
    struct decode_args a = { .print = 0 };
    struct rp_rset *r;

    parse_decode (cmd, argc, argv, &a);
    r = cmd_read_fold (SUB, cmd->name, cmd_fold_add);
    if (a.include)
        keep_ranks (cmd->name, &r,
                    targets_arg (cmd->name, "--include", r, a.include), false);
    if (a.exclude)
        keep_ranks (cmd->name, &r,
                    targets_arg (cmd->name, "--exclude", r, a.exclude), true);
    if (a.properties)
        keep_ranks (cmd->name, &r, properties_arg (cmd->name, r, a.properties),
                    false);
    if (a.print)
        print_parts (cmd->name, r, &a);
    else
        print_rset (cmd->name, r);
    rp_rset_destroy (r);
    return 0;
}

/* --- the other subcommands --------------------------------------------- */

static const struct option help_opts[] = {
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* Parse --help only; check the number of operands (-1: one or more). */
static void parse_plain (const struct r_cmd *cmd, int argc, char **argv,
                         int nargs)
{
    int c;

    while ((c = getopt_long (argc, argv, cmd->optstring, cmd->opts, NULL))
           != -1)
        other_option (cmd, c, argv);
    if (nargs != 0 && optind == argc)
        cmd_usage_error (SUB, "%s: missing %s", cmd->name, cmd->args);
    if (nargs >= 0 && argc - optind > nargs)
        cmd_usage_error (SUB, "%s: unexpected argument '%s'", cmd->name,
                         argv[optind + nargs]);
}

static int run_fold (const struct r_cmd *cmd, int argc, char **argv)
{
    static const struct {
        const char *name;
        cmd_fold_fn fn;
    } folds[] = {
        { "append", fold_append },
        { "union", cmd_fold_add },
        { "diff", fold_diff },
        { "intersect", fold_intersect },
    };
    cmd_fold_fn fn = cmd_fold_add;
    struct rp_rset *r;

    parse_plain (cmd, argc, argv, 0);
    for (size_t i = 0; i < sizeof (folds) / sizeof (folds[0]); i++)
        if (!strcmp (cmd->name, folds[i].name))
            fn = folds[i].fn;
    r = cmd_read_fold (SUB, cmd->name, fn);
    print_rset (cmd->name, r);
    rp_rset_destroy (r);
    return 0;
}

static int run_rerank (const struct r_cmd *cmd, int argc, char **argv)
{
    struct rp_rset *r;
    rp_error_t error;

    parse_plain (cmd, argc, argv, 1);
    r = cmd_read_fold (SUB, cmd->name, cmd_fold_add);
    if (rp_rset_rerank (r, argv[optind], &error) < 0)
        cmd_die (SUB, "%s: %s", cmd->name, cmd_R_text (&error));
    print_rset (cmd->name, r);
    rp_rset_destroy (r);
    return 0;
}

static int run_remap (const struct r_cmd *cmd, int argc, char **argv)
{
    struct rp_rset *r;
    rp_error_t error;

    parse_plain (cmd, argc, argv, 0);
    r = cmd_read_fold (SUB, cmd->name, cmd_fold_add);
    if (rp_rset_remap (r, &error) < 0)
        cmd_die (SUB, "%s: %s", cmd->name, cmd_R_text (&error));
    print_rset (cmd->name, r);
    rp_rset_destroy (r);
    return 0;
}

static int run_verify (const struct r_cmd *cmd, int argc, char **argv)
{
    struct rlist l;
    rp_error_t error;

    parse_plain (cmd, argc, argv, 0);
    l = read_rlist (cmd->name);
    if (l.n != 2) {
        size_t n = l.n;
        rlist_free (&l);
        cmd_die (SUB,
                 "%s: expected 2 R on stdin (expected, then actual), "
                 "got %zu",
                 cmd->name, n);
    }
    if (rp_rset_verify (l.r[0], l.r[1], &error) < 0)
        cmd_die (SUB, "%s: %s", cmd->name, cmd_R_text (&error));
    rlist_free (&l);
    return 0;
}

static int run_set_property (const struct r_cmd *cmd, int argc, char **argv)
{
    struct rp_rset *r;

    parse_plain (cmd, argc, argv, -1);
    r = cmd_read_fold (SUB, cmd->name, cmd_fold_add);
    for (int i = optind; i < argc; i++)
        add_property (cmd->name, "", r, argv[i]);
    print_rset (cmd->name, r);
    rp_rset_destroy (r);
    return 0;
}

/* --- dispatch ---------------------------------------------------------- */

static const char encode_help[] =
    "Print R for the execution targets the options describe.\n"
    "\n"
    "  -r, --ranks=IDSET       ranks of the targets (default 0)\n"
    "  -c, --cores=IDSET       cores of every target (default 0)\n"
    "  -g, --gpus=IDSET        GPUs of every target (default none)\n"
    "  -H, --hosts=HOSTLIST    one host per rank, in rank order (default\n"
    "                          this machine's host name for every rank)\n"
    "  -p, --property=NAME[:RANKS]\n"
    "                          give property NAME to RANKS (default all);\n"
    "                          repeatable; split at the last ':'\n"
    "  -l, --local             every target gets the cores and GPUs of this\n"
    "                          machine (hwloc)\n"
    "  -f, --xml=FILE          every target gets the cores and GPUs of an\n"
    "                          hwloc XML topology; the default host name is\n"
    "                          the topology's\n"
    "  -h, --help              print this message\n";

static const char decode_help[] =
    "Read R on stdin (several R: their union), keep the targets the\n"
    "filters select, and print that R, or the parts asked for, one per\n"
    "line in the order short, nodelist, ranks, count.\n"
    "\n"
    "  -i, --include=TARGETS   keep these targets: an idset of ranks or a\n"
    "                          hostlist\n"
    "  -x, --exclude=TARGETS   drop these targets\n"
    "  -p, --properties=LIST   keep targets that have every property of the\n"
    "                          comma list (^NAME: that do not have NAME)\n"
    "  -s, --short             print groups like "
    "rank[0-3]/core[0-47],gpu[0-7]\n"
    "  -n, --nodelist          print the host names as a hostlist\n"
    "  -r, --ranks             print the ranks as an idset\n"
    "  -c, --count=TYPE        print the number of node, core or gpu\n"
    "  -h, --help              print this message\n";

#define HELP_ONLY "\n  -h, --help              print this message\n"

static const struct r_cmd commands[] = {
    { "encode", "[OPTIONS]", "print R for targets given by options or hwloc",
      ":hr:c:g:H:p:lf:", encode_opts, encode_help, run_encode },
    { "decode", "[OPTIONS]", "print R from stdin, filtered, or parts of it",
      ":hsnrc:i:x:p:", decode_opts, decode_help, run_decode },
    { "append", "", "union; fails if a core or GPU is in two inputs", ":h",
      help_opts,
      "Read R on stdin and print their union; fail if a core or GPU is in\n"
      "two of them.\n" HELP_ONLY,
      run_fold },
    { "union", "", "the union of the inputs", ":h", help_opts,
      "Read R on stdin and print their union.\n" HELP_ONLY, run_fold },
    { "diff", "", "the first input minus the others", ":h", help_opts,
      "Read R on stdin and print the first minus the others.\n" HELP_ONLY,
      run_fold },
    { "intersect", "", "what all inputs share", ":h", help_opts,
      "Read R on stdin and print what all share (a target is shared when\n"
      "its rank and host name agree).\n" HELP_ONLY,
      run_fold },
    { "rerank", "HOSTLIST", "renumber ranks by host position in HOSTLIST", ":h",
      help_opts,
      "Read R on stdin (several R: their union) and give the target on the\n"
      "i-th host of HOSTLIST rank i.  HOSTLIST names every host "
      "once.\n" HELP_ONLY,
      run_rerank },
    { "remap", "", "renumber ranks and each target's cores from 0", ":h",
      help_opts,
      "Read R on stdin (several R: their union) and renumber ranks 0..n-1\n"
      "and each target's cores 0..k-1, in order.  GPU ids are "
      "kept.\n" HELP_ONLY,
      run_remap },
    { "verify", "", "check that the 2nd R holds everything in the 1st", ":h",
      help_opts,
      "Read two R on stdin, expected then actual.  Exit 0 when actual has\n"
      "the expected targets (same ranks and hosts), each with at least its\n"
      "expected cores and GPUs; else print the first difference, exit "
      "1.\n" HELP_ONLY,
      run_verify },
    { "set-property", "NAME[:RANKS]...", "give properties to targets", ":h",
      help_opts,
      "Read R on stdin (several R: their union) and give each property NAME\n"
      "to RANKS (default all targets).  NAME:RANKS is split at the last\n"
      "':'.\n" HELP_ONLY,
      run_set_property },
    { NULL, NULL, NULL, NULL, NULL, NULL, NULL },
};

static void usage (FILE *f)
{
    fprintf (f, "Usage: respol R SUBCOMMAND [OPTIONS] [ARGS...]\n\n");
    fprintf (f, "Encode, decode and combine RFC 20 resource sets (R).  "
                "Every subcommand but\nencode reads R objects, "
                "concatenated, on stdin.\n\n");
    fprintf (f, "Subcommands:\n");
    for (const struct r_cmd *c = commands; c->name; c++)
        fprintf (f, "  %-12s %-15s %s\n", c->name, c->args, c->summary);
    fprintf (f, "  %-12s %-15s %s\n", "filter", "CONSTRAINT",
             "keep targets that satisfy an RFC 31 constraint");
    fprintf (f, "\nRun 'respol R SUBCOMMAND --help' for its options.\n");
}

static void usage_cmd (const struct r_cmd *c)
{
    printf ("Usage: respol R %s%s%s\n\n%s", c->name, *c->args ? " " : "",
            c->args, c->help);
}

int cmd_R (int argc, char **argv)
{
    const struct r_cmd *cmd;

    if (argc < 2)
        cmd_usage_error (SUB, "missing subcommand");
    if (!strcmp (argv[1], "--help") || !strcmp (argv[1], "-h")) {
        usage (stdout);
        return 0;
    }
    if (!strcmp (argv[1], "filter"))
        return cmd_R_filter (argc - 1, argv + 1);
    for (cmd = commands; cmd->name; cmd++)
        if (!strcmp (cmd->name, argv[1]))
            break;
    if (!cmd->name && argv[1][0] == '-')
        cmd_usage_error (SUB, "unknown option '%s'", argv[1]);
    if (!cmd->name)
        cmd_usage_error (SUB, "unknown subcommand '%s'", argv[1]);
    argc--;
    argv++;
    optind = 0;
    opterr = 0;
    cmd->run (cmd, argc, argv);
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "%s: write error: %s", cmd->name, strerror (errno));
    return 0;
}
