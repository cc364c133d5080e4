/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* respol hostlist: combine, transform and print RFC 29 hostlists, with the
 * options of `flux hostlist` (see usage() below).
 *
 * Processing order: read the HOSTLIST arguments (each "-", or the absence
 * of any, reads white-space separated hostlists from stdin into one list);
 * combine them (concatenate, or -u/-i/-m/-X, at most one of these); then
 * -x, -S, -n, -L; then print (-q, else -c, else -F, else -e, else the
 * compressed form; an empty result prints an empty line).
 *
 * Decisions:
 *   - -u, -i and -X fold the arguments pairwise with the library's sorted,
 *     unique union, intersect and xor; with one argument they give it
 *     sorted and unique.  -m with one argument gives it unchanged.
 *   - -x takes its argument as an idset of indices when it decodes as one
 *     (as flux does), else as a hostlist: "-x 1-2" drops the hosts at 1
 *     and 2, "-x n[1-2]" drops hosts n1 and n2.
 *   - An index out of range in -n or -x is an error; -L larger than the
 *     list is not.  "-L -N" keeps the last N hosts, as in flux.
 *   - -d implies -e (a delimiter is only used by the expanded form).
 *   - Library errors print without the library's "hostlist: " prefix:
 *     respol: hostlist: "foo[": missing ']' at offset 4 (as respol idset
 *     does); errors in an option's value name the option first.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/hostlist.h>
#include <respol/idset.h>

#include "cmd.h"

#define SUB "hostlist"

enum combine {
    COMBINE_CAT,
    COMBINE_UNION,
    COMBINE_INTERSECT,
    COMBINE_MINUS,
    COMBINE_XOR
};

struct opts {
    bool expand, count, sort, quiet;
    const char *delim;
    const char *nth, *find, *limit, *exclude;
    enum combine combine;
};

static const struct option longopts[] = {
    { "expand", no_argument, NULL, 'e' },
    { "delimiter", required_argument, NULL, 'd' },
    { "count", no_argument, NULL, 'c' },
    { "nth", required_argument, NULL, 'n' },
    { "find", required_argument, NULL, 'F' },
    { "limit", required_argument, NULL, 'L' },
    { "sort", no_argument, NULL, 'S' },
    { "union", no_argument, NULL, 'u' },
    { "exclude", required_argument, NULL, 'x' },
    { "intersect", no_argument, NULL, 'i' },
    { "minus", no_argument, NULL, 'm' },
    { "xor", no_argument, NULL, 'X' },
    { "quiet", no_argument, NULL, 'q' },
    { "help", no_argument, NULL, 'h' },
    { NULL, 0, NULL, 0 },
};

/* No leading ':': cmd_option_error tells a missing argument either way,
 * and t/t0000-basic.t checks that case through this command. */
#define SHORTOPTS "ed:cn:F:L:Sux:imXqh"

static void usage (FILE *f)
{
    fprintf (
        f,
        "Usage: respol hostlist [OPTIONS] [HOSTLIST...]\n"
        "Combine, transform and print RFC 29 hostlists.  With no HOSTLIST,\n"
        "or for the argument '-', hostlists are read from stdin (white space\n"
        "separated).  The arguments are combined (concatenated by default),\n"
        "then -x, -S, -n and -L apply in that order, then the result is\n"
        "printed compressed, or as -q, -c, -F or -e say.\n"
        "\n"
        "  -e, --expand           print the hosts, separated by the delimiter\n"
        "  -d, --delimiter=S      delimiter for --expand (default ' '); "
        "implies -e\n"
        "  -c, --count            print the number of hosts\n"
        "  -n, --nth=IDS          only the hosts at zero-based indices IDS "
        "(idset)\n"
        "  -F, --find=HOSTS       print the index of each of HOSTS, one a "
        "line\n"
        "  -L, --limit=N          only the first N hosts (-N: the last N)\n"
        "  -S, --sort             sort the hosts\n"
        "  -u, --union            union of the arguments, sorted, unique\n"
        "  -x, --exclude=HOSTS|IDS  without these hosts, or the hosts at "
        "these\n"
        "                         indices when IDS is an idset\n"
        "  -i, --intersect        hosts in every argument, sorted, unique\n"
        "  -m, --minus            the first argument minus the others\n"
        "  -X, --xor              hosts in an odd number of arguments, "
        "sorted, unique\n"
        "  -q, --quiet            print nothing; exit 0 if the result is not "
        "empty, 1 if it is\n"
        "  -h, --help             print this help\n");
}

/* --- errors ------------------------------------------------------------ */

/* Library text without its leading "hostlist: ". */
static const char *lib_text (const rp_error_t *error)
{
    if (!strncmp (error->text, "hostlist: ", 10))
        return error->text + 10;
    return error->text;
}

/* Report the option getopt_long just rejected (c is '?' or ':'). */
static void bad_option (int c, char **argv)
{
    cmd_bad_option (SUB, "", c, argv, SHORTOPTS, longopts);
}

static void nomem (void)
{
    cmd_die (SUB, "out of memory");
}

/* A failed set operation or append: EOVERFLOW is the only input error. */
static void die_errno (void)
{
    if (errno == EOVERFLOW)
        cmd_die (SUB, "result has more than %u hosts", RP_HOSTLIST_MAX_HOSTS);
    cmd_die (SUB, "%s", strerror (errno));
}

/* --- options ----------------------------------------------------------- */

static void set_combine (struct opts *o, enum combine c)
{
    if (o->combine != COMBINE_CAT && o->combine != c)
        cmd_usage_error (SUB, "only one of --union, --intersect, --minus and "
                              "--xor may be given");
    o->combine = c;
}

static bool set_flag (struct opts *o, int c)
{
    switch (c) {
    case 'e':
        o->expand = true;
        return true;
    case 'c':
        o->count = true;
        return true;
    case 'S':
        o->sort = true;
        return true;
    case 'q':
        o->quiet = true;
        return true;
    }
    return false;
}

static bool set_value (struct opts *o, int c)
{
    switch (c) {
    case 'd':
        o->delim = optarg;
        o->expand = true;
        return true;
    case 'n':
        o->nth = optarg;
        return true;
    case 'F':
        o->find = optarg;
        return true;
    case 'L':
        o->limit = optarg;
        return true;
    case 'x':
        o->exclude = optarg;
        return true;
    }
    return false;
}

static bool set_combine_opt (struct opts *o, int c)
{
    switch (c) {
    case 'u':
        set_combine (o, COMBINE_UNION);
        return true;
    case 'i':
        set_combine (o, COMBINE_INTERSECT);
        return true;
    case 'm':
        set_combine (o, COMBINE_MINUS);
        return true;
    case 'X':
        set_combine (o, COMBINE_XOR);
        return true;
    }
    return false;
}

static void parse_options (struct opts *o, int argc, char **argv)
{
    int c;

    opterr = 0;
    optind = 0;
    while ((c = getopt_long (argc, argv, SHORTOPTS, longopts, NULL)) != -1) {
        if (set_flag (o, c) || set_value (o, c) || set_combine_opt (o, c))
            continue;
        if (c == 'h') {
            usage (stdout);
            exit (0);
        }
        bad_option (c, argv);
    }
}

/* -L: N or -N, decimal.  Sets *from_end for -N. */
static size_t parse_limit (const char *s, bool *from_end)
{
    const char *p = s;
    size_t n = 0;

    *from_end = *p == '-';
    if (*from_end)
        p++;
    if (*p == '\0')
        cmd_usage_error (SUB, "invalid --limit '%s'", s);
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            cmd_usage_error (SUB, "invalid --limit '%s'", s);
        if (n <= RP_HOSTLIST_MAX_HOSTS)
            n = n * 10 + (size_t)(*p - '0');
    }
    return n;
}

/* What the command holds while it runs.  cmd_die exits from anywhere;
 * memory still in use then is reachable from here, so leak checkers at exit
 * see no leak. */
static struct {
    struct rp_hostlist *result; /* the list being worked on */
    struct rp_hostlist *arg;    /* the argument being combined into it */
    struct rp_hostlist *tmp;    /* a list being built, or --find's hosts */
    struct rp_idset *ids;       /* --nth or --exclude indices */
    char *input;                /* stdin */
} held;

static void replace_result (struct rp_hostlist *hl)
{
    rp_hostlist_destroy (held.result);
    held.result = hl;
}

/* --- input ------------------------------------------------------------- */

static void read_stdin (struct rp_hostlist *hl)
{
    size_t len;
    char *save = NULL;

    held.input = cmd_read_all (SUB, stdin, &len);
    if (strlen (held.input) != len)
        cmd_die (SUB, "stdin: unexpected NUL byte");
    for (char *tok = strtok_r (held.input, " \t\r\n\v\f", &save); tok;
         tok = strtok_r (NULL, " \t\r\n\v\f", &save)) {
        rp_error_t error;
        if (rp_hostlist_append (hl, tok, &error) < 0)
            cmd_die (SUB, "%s", lib_text (&error));
    }
    free (held.input);
    held.input = NULL;
}

/* Decode arg (or read stdin for "-") into *slot. */
static void load (const char *arg, struct rp_hostlist **slot)
{
    rp_error_t error;

    if (!strcmp (arg, "-")) {
        if (!(*slot = rp_hostlist_create ()))
            nomem ();
        read_stdin (*slot);
    } else if (!(*slot = rp_hostlist_decode (arg, &error)))
        cmd_die (SUB, "%s", lib_text (&error));
}

/* --- combining --------------------------------------------------------- */

static struct rp_hostlist *combine2 (enum combine how,
                                     const struct rp_hostlist *a,
                                     const struct rp_hostlist *b)
{
    switch (how) {
    case COMBINE_UNION:
        return rp_hostlist_union (a, b);
    case COMBINE_INTERSECT:
        return rp_hostlist_intersect (a, b);
    case COMBINE_MINUS:
        return rp_hostlist_minus (a, b);
    case COMBINE_XOR:
        return rp_hostlist_xor (a, b);
    case COMBINE_CAT:
        break;
    }
    return NULL;
}

/* Fold the arguments into held.result (argc >= 1). */
static void combine (enum combine how, int argc, char **argv)
{
    load (argv[0], &held.result);
    if (argc == 1 && how != COMBINE_CAT && how != COMBINE_MINUS
        && rp_hostlist_uniq (held.result) < 0)
        die_errno ();
    for (int i = 1; i < argc; i++) {
        struct rp_hostlist *r = NULL;
        load (argv[i], &held.arg);
        if (how == COMBINE_CAT
            && rp_hostlist_append_list (held.result, held.arg) < 0)
            die_errno ();
        if (how != COMBINE_CAT && !(r = combine2 (how, held.result, held.arg)))
            die_errno ();
        if (r)
            replace_result (r);
        rp_hostlist_destroy (held.arg);
        held.arg = NULL;
    }
}

/* --- indices ----------------------------------------------------------- */

/* Die if an index of held.ids is not below the length of the result. */
static void check_indices (const char *opt)
{
    size_t count = rp_hostlist_count (held.result);
    unsigned int bad = count == 0
                           ? rp_idset_first (held.ids)
                           : rp_idset_next (held.ids, (unsigned int)count - 1);

    if (bad != RP_IDSET_INVALID_ID)
        cmd_die (SUB, "%s: index %u is out of range (%zu host%s)", opt, bad,
                 count, count == 1 ? "" : "s");
}

/* Append hosts first..first+n-1 of the result to held.tmp. */
static void append_slice (size_t first, size_t n)
{
    struct rp_hostlist *s;

    if (n == 0)
        return;
    if (!(s = rp_hostlist_slice (held.result, first, n))
        || rp_hostlist_append_list (held.tmp, s) < 0) {
        rp_hostlist_destroy (s);
        die_errno ();
    }
    rp_hostlist_destroy (s);
}

/* Keep the hosts at the indices in held.ids (keep) or at the others, then
 * drop held.ids. */
static void select_indices (bool keep)
{
    size_t next = 0, count = rp_hostlist_count (held.result);
    unsigned int lo, hi;

    if (!(held.tmp = rp_hostlist_create ()))
        nomem ();
    for (size_t i = 0; rp_idset_range (held.ids, i, &lo, &hi); i++) {
        if (keep)
            append_slice (lo, (size_t)(hi - lo) + 1);
        else
            append_slice (next, lo - next);
        next = (size_t)hi + 1;
    }
    if (!keep)
        append_slice (next, count - next);
    replace_result (held.tmp);
    held.tmp = NULL;
    rp_idset_destroy (held.ids);
    held.ids = NULL;
}

/* --- the steps after combining ---------------------------------------- */

static void exclude (const char *arg)
{
    rp_error_t error;

    if ((held.ids = rp_idset_decode (arg, NULL))) {
        check_indices ("--exclude");
        select_indices (false);
    } else if (rp_hostlist_delete (held.result, arg, &error) < 0)
        cmd_die (SUB, "--exclude: %s", lib_text (&error));
}

static void nth (const char *arg)
{
    rp_error_t error;

    if (!(held.ids = rp_idset_decode (arg, &error)))
        cmd_die (SUB, "--nth: %s", error.text);
    check_indices ("--nth");
    select_indices (true);
}

static void limit (const char *arg)
{
    bool from_end;
    size_t n = parse_limit (arg, &from_end);
    size_t count = rp_hostlist_count (held.result);
    struct rp_hostlist *out;

    if (n > count)
        n = count;
    if (!(out = rp_hostlist_slice (held.result, from_end ? count - n : 0, n)))
        die_errno ();
    replace_result (out);
}

/* --- output ------------------------------------------------------------ */

static void print_find (const char *arg)
{
    char host[RP_HOSTLIST_MAX_NAME + 1];
    rp_error_t error;

    if (!(held.tmp = rp_hostlist_decode (arg, &error)))
        cmd_die (SUB, "--find: %s", lib_text (&error));
    for (size_t i = 0; i < rp_hostlist_count (held.tmp); i++) {
        ssize_t idx;
        if (rp_hostlist_nth_buf (held.tmp, i, host, sizeof (host)) < 0)
            die_errno ();
        if ((idx = rp_hostlist_find (held.result, host)) < 0 && errno == ENOENT)
            cmd_die (SUB, "--find: host %s is not in the hostlist", host);
        if (idx < 0)
            die_errno ();
        printf ("%zd\n", idx);
    }
    rp_hostlist_destroy (held.tmp);
    held.tmp = NULL;
}

static void print_string (char *s)
{
    if (!s)
        nomem ();
    printf ("%s\n", s);
    free (s);
}

static int output (const struct opts *o)
{
    const struct rp_hostlist *hl = held.result;

    if (o->quiet)
        return rp_hostlist_count (hl) > 0 ? 0 : 1;
    if (o->count)
        printf ("%zu\n", rp_hostlist_count (hl));
    else if (o->find)
        print_find (o->find);
    else if (o->expand)
        print_string (rp_hostlist_expand (hl, o->delim ? o->delim : " "));
    else
        print_string (rp_hostlist_encode (hl));
    if (fflush (stdout) != 0 || ferror (stdout))
        cmd_die (SUB, "write error: %s", strerror (errno));
    return 0;
}

int cmd_hostlist (int argc, char **argv)
{
    struct opts o = { .combine = COMBINE_CAT };
    char *dash[] = { "-" };
    int rc;

    parse_options (&o, argc, argv);
    argc -= optind;
    argv += optind;
    if (o.limit) {
        bool from_end;
        parse_limit (o.limit, &from_end); /* bad usage before any input */
    }
    if (argc > 0)
        combine (o.combine, argc, argv);
    else
        combine (o.combine, 1, dash);
    if (o.exclude)
        exclude (o.exclude);
    if (o.sort && rp_hostlist_sort (held.result) < 0)
        die_errno ();
    if (o.nth)
        nth (o.nth);
    if (o.limit)
        limit (o.limit);
    rc = output (&o);
    replace_result (NULL);
    return rc;
}
