/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Documents: YAML or JSON read into a jansson tree with the line and column
 * of every node; see api/respol/document.h for the contract.  This is the
 * one reader of jobspec (RFC 14 "jobspec language": YAML) and of respol's
 * configuration.
 *
 * YAML is read with libyaml's event API into the tree with an explicit
 * stack of open containers (at most RP_DOC_MAX_DEPTH, so nothing recurses
 * on input).  Plain scalars are resolved as PyYAML's SafeLoader resolves
 * them, because flux-core reads jobspec with PyYAML: the YAML 1.1 regular
 * expressions for null, bool (yes/no/on/off/true/false in three cases),
 * int (0b binary, 0x hex, leading-0 octal, '_' separators, base 60 "1:30")
 * and float (a '.' is required, exponents need a sign, base 60, .inf,
 * .nan) are matched by hand below.  Where PyYAML would give something JSON
 * cannot hold (inf, nan, a timestamp, an int beyond 64 bits, a merge key
 * "<<", the "=" value key) the load fails rather than giving a different
 * value.  Explicit tags !!str, !!int, !!float, !!bool, !!null (and !!map,
 * !!seq on containers, "!" anywhere) are honoured; !!int and !!float accept
 * a little less than Python's int() and float() (no surrounding blanks, no
 * "0o"), again failing instead of differing.  Aliases, duplicate keys,
 * non-string keys and second documents are errors; PyYAML accepts them.
 *
 * JSON is parsed twice: by libyaml in a JSON mode (plain scalars must be
 * JSON literals) to get positions, and by jansson (strict, duplicate keys
 * rejected), whose tree and error messages are the reference.  When the two
 * trees are json_equal the positioned one is kept; when libyaml cannot read
 * valid JSON (keys longer than 1024 characters, a key and its ':' on two
 * lines, surrogate pair escapes) jansson's tree is kept without positions.
 * libyaml runs first so that the depth and node limits stop a hostile
 * document before jansson builds it.
 *
 * Positions live in one open-addressing hash table, one 32-byte entry per
 * value node.  A node that owns its allocation (container, string, number)
 * is keyed by its pointer; true, false and null are shared by jansson, so
 * they are keyed by (array, 1 + index) or (object, internal key pointer).
 * Object members also keep their key's position (duplicate key messages,
 * rp_doc_key_name_position).  Positions describe the tree as loaded.
 *
 * rp_doc_dump_yaml writes block YAML that this reader (and PyYAML) reads
 * back to an equal tree: a string is plain only when the resolver below
 * says a plain scalar would read back as that same string, and otherwise
 * single-quoted, or double-quoted with escapes when it holds a character
 * that cannot appear raw.  Reals always carry a '.', and an exponent
 * always has a sign, as PyYAML's float pattern requires.
 *
 * Bounded by memory (rp_doc_load_file_within): the byte limit is the
 * memory over COST_BYTE; JSON is counted first by json_census, one pass
 * over its brackets, commas and colons outside strings (an upper bound of
 * its containers and scalars: every value but the first of a container
 * follows a comma or a colon), so that neither tree is built when the
 * estimate passes the memory; YAML is counted by count_node as it is
 * read, in place of RP_DOC_MAX_NODES.
 *
 * Positions are libyaml's marks made 1-based; columns count characters.
 * A value that is absent (the empty null of "? k" at the very end of the
 * input) gets libyaml's mark, which may be on the line after the last.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <yaml.h>

#include "respol/document.h"

#define YAML_TAG "tag:yaml.org,2002:"
#define SHOW_MAX 40         /* bytes of a value shown in an error */
#define SIMPLE_KEY_MAX 1000 /* longer keys are dumped as "? key" */

/* Memory of a loaded document, as measured (doc/formats.md): per mapping
 * or sequence and per scalar (keys included), the nodes of both trees of
 * JSON and their positions; per byte of input, the buffer (read by
 * doubling) and the strings of both trees. */
#define COST_CONTAINER 350
#define COST_SCALAR 250
#define COST_BYTE 4

/* Position table */

struct pos {
    const void *a; /* node, or its parent when the node is shared */
    uintptr_t b;   /* 0, 1 + array index, or object key pointer */
    unsigned int line;
    unsigned int column;
    unsigned int key_line; /* 0 unless an object member */
    unsigned int key_column;
};

struct pos_table {
    struct pos *v;
    size_t cap; /* a power of two, or 0 */
    size_t n;
};

struct rp_doc {
    json_t *root;
    char *name;
    struct pos_table tab;
    uint64_t memory; /* estimate: doc_cost */
};

/* What a document of len bytes, containers and scalars takes. */
static uint64_t doc_cost (size_t len, size_t containers, size_t scalars)
{
    return (uint64_t)len * COST_BYTE + (uint64_t)containers * COST_CONTAINER
           + (uint64_t)scalars * COST_SCALAR;
}

static uint64_t mib_up (uint64_t bytes)
{
    return bytes / (1 << 20) + (bytes % (1 << 20) != 0);
}

static size_t pos_hash (const void *a, uintptr_t b)
{
    uint64_t x = (uint64_t)(uintptr_t)a * 0x9E3779B97F4A7C15ULL;

    x ^= (uint64_t)b * 0xC2B2AE3D27D4EB4FULL;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    return (size_t)x;
}

static struct pos *pos_slot (struct pos *v, size_t cap, const void *a,
                             uintptr_t b)
{
    size_t i = pos_hash (a, b) & (cap - 1);

    while (v[i].a && !(v[i].a == a && v[i].b == b))
        i = (i + 1) & (cap - 1);
    return &v[i];
}

static int pos_grow (struct pos_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 64;
    struct pos *v = calloc (cap, sizeof (*v));

    if (!v)
        return -1;
    for (size_t i = 0; i < t->cap; i++) {
        if (t->v[i].a)
            *pos_slot (v, cap, t->v[i].a, t->v[i].b) = t->v[i];
    }
    free (t->v);
    t->v = v;
    t->cap = cap;
    return 0;
}

static int pos_put (struct pos_table *t, const struct pos *p)
{
    struct pos *slot;

    if ((t->n + 1) * 4 > t->cap * 3 && pos_grow (t) < 0)
        return -1;
    slot = pos_slot (t->v, t->cap, p->a, p->b);
    if (!slot->a)
        t->n++;
    *slot = *p;
    return 0;
}

static const struct pos *pos_get (const struct pos_table *t, const void *a,
                                  uintptr_t b)
{
    const struct pos *slot;

    if (t->cap == 0 || !a)
        return NULL;
    slot = pos_slot (t->v, t->cap, a, b);
    return slot->a ? slot : NULL;
}

static bool is_shared (const json_t *o)
{
    return json_is_true (o) || json_is_false (o) || json_is_null (o);
}

/* Showing input in messages */

/* Copy at most SHOW_MAX bytes of s into buf: printable ASCII as is (with
 * '"' and '\\' escaped), other bytes as \xHH, then "..." if cut. */
static const char *show (const char *s, size_t len, char *buf, size_t size)
{
    size_t o = 0;
    size_t i;

    for (i = 0; i < len && i < SHOW_MAX && o + 5 < size; i++) {
        unsigned char c = s[i];
        if (c == '"' || c == '\\')
            o += snprintf (buf + o, size - o, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            buf[o++] = c;
        else
            o += snprintf (buf + o, size - o, "\\x%02X", c);
    }
    buf[o] = '\0';
    if (i < len && o + 4 <= size)
        strcat (buf, "...");
    return buf;
}

#define SHOW_SIZE (SHOW_MAX * 4 + 8)

/* Locale-independent numbers (like jansson: swap '.' for the locale's
 * decimal point around strtod / snprintf). */

static char decimal_point (void)
{
    const char *dp = localeconv ()->decimal_point;

    return dp && dp[0] ? dp[0] : '.';
}

/* s is a NUL-terminated decimal real in C syntax. */
static double c_strtod (const char *s)
{
    char dp = decimal_point ();
    char *copy;
    double d;

    if (dp == '.' || !strchr (s, '.') || !(copy = strdup (s)))
        return strtod (s, NULL);
    *strchr (copy, '.') = dp;
    d = strtod (copy, NULL);
    free (copy);
    return d;
}

/* Scalar resolution (YAML 1.1 as PyYAML's SafeLoader) */

enum kind {
    K_STR,
    K_NULL,
    K_BOOL,
    K_INT,
    K_FLOAT,
    K_TIMESTAMP,
    K_MERGE,
    K_VALUE,
};

static size_t span (const char *s, size_t i, size_t len, const char *set)
{
    size_t j = i;

    while (j < len && s[j] && strchr (set, s[j]))
        j++;
    return j - i;
}

#define DIGITS "0123456789"
#define DIGITS_ "0123456789_"

static bool is_one_of (const char *s, size_t len, const char *const *words)
{
    for (; *words; words++) {
        if (strlen (*words) == len && memcmp (s, *words, len) == 0)
            return true;
    }
    return false;
}

static const char *const null_words[] = { "~", "null", "Null", "NULL", NULL };
static const char *const true_words[] = { "yes",  "Yes", "YES", "true", "True",
                                          "TRUE", "on",  "On",  "ON",   NULL };
static const char *const false_words[] = { "no",    "No",    "NO",  "false",
                                           "False", "FALSE", "off", "Off",
                                           "OFF",   NULL };
static const char *const inf_words[] = { "inf", "Inf", "INF", NULL };
static const char *const nan_words[] = { ".nan", ".NaN", ".NAN", NULL };

/* Match (':' [0-5]?[0-9])+ at i; return the end, or i if none. */
static size_t match_base60 (const char *s, size_t i, size_t len)
{
    while (i + 1 < len && s[i] == ':' && isdigit ((unsigned char)s[i + 1])) {
        if (i + 2 < len && s[i + 1] <= '5' && isdigit ((unsigned char)s[i + 2]))
            i += 3;
        else
            i += 2;
    }
    return i;
}

/* [eE][-+][0-9]+ at i, as an optional suffix: return the end. */
static size_t match_exponent (const char *s, size_t i, size_t len)
{
    size_t n;

    if (i + 2 < len && (s[i] == 'e' || s[i] == 'E')
        && (s[i + 1] == '-' || s[i + 1] == '+')
        && (n = span (s, i + 2, len, DIGITS)) > 0)
        return i + 2 + n;
    return i;
}

static bool is_float (const char *s, size_t len)
{
    size_t i = (len > 0 && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    bool base60;
    size_t n;

    if (is_one_of (s, len, nan_words))
        return true;
    if (i < len && s[i] == '.') {
        if (is_one_of (s + i + 1, len - i - 1, inf_words))
            return true;
        if (i > 0 || (n = span (s, 1, len, DIGITS)) == 0)
            return false;
        i = 1 + n + span (s, 1 + n, len, DIGITS_);
        return match_exponent (s, i, len) == len;
    }
    if ((n = span (s, i, len, DIGITS)) == 0)
        return false;
    i += n + span (s, i + n, len, DIGITS_);
    base60 = i < len && s[i] == ':';
    if (base60)
        i = match_base60 (s, i, len);
    if (i == len || s[i] != '.')
        return false;
    i++;
    i += span (s, i, len, DIGITS_);
    return (base60 ? i : match_exponent (s, i, len)) == len;
}

static bool is_int (const char *s, size_t len)
{
    size_t i = (len > 0 && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
    size_t n;

    if (i + 1 < len && s[i] == '0' && s[i + 1] == 'b')
        return (n = span (s, i + 2, len, "01_")) > 0 && i + 2 + n == len;
    if (i + 1 < len && s[i] == '0' && s[i + 1] == 'x')
        return (n = span (s, i + 2, len, "0123456789abcdefABCDEF_")) > 0
               && i + 2 + n == len;
    if (i < len && s[i] == '0')
        return i + 1 + span (s, i + 1, len, "01234567_") == len;
    if (i == len || s[i] < '1' || s[i] > '9')
        return false;
    i += 1 + span (s, i + 1, len, DIGITS_);
    return i == len || match_base60 (s, i, len) == len;
}

/* [0-9]{lo,hi} at *i */
static bool digits (const char *s, size_t *i, size_t len, size_t lo, size_t hi)
{
    size_t n = span (s, *i, len, DIGITS);

    if (n < lo || n > hi)
        return false;
    *i += n;
    return true;
}

static bool is_char (const char *s, size_t *i, size_t len, char c)
{
    if (*i < len && s[*i] == c) {
        (*i)++;
        return true;
    }
    return false;
}

static bool is_timestamp_zone (const char *s, size_t i, size_t len)
{
    if (i == len)
        return true;
    i += span (s, i, len, " \t");
    if (is_char (s, &i, len, 'Z'))
        return i == len;
    if (!is_char (s, &i, len, '-') && !is_char (s, &i, len, '+'))
        return false;
    if (!digits (s, &i, len, 1, 2))
        return false;
    if (is_char (s, &i, len, ':') && !digits (s, &i, len, 2, 2))
        return false;
    return i == len;
}

static bool is_timestamp (const char *s, size_t len)
{
    size_t i = 0;
    size_t n;

    if (!digits (s, &i, len, 4, 4) || !is_char (s, &i, len, '-'))
        return false;
    if (len == 10 && digits (s, &i, len, 2, 2) && is_char (s, &i, len, '-')
        && digits (s, &i, len, 2, 2))
        return true;
    i = 5;
    if (!digits (s, &i, len, 1, 2) || !is_char (s, &i, len, '-')
        || !digits (s, &i, len, 1, 2))
        return false;
    if (!is_char (s, &i, len, 'T') && !is_char (s, &i, len, 't')) {
        if ((n = span (s, i, len, " \t")) == 0)
            return false;
        i += n;
    }
    if (!digits (s, &i, len, 1, 2) || !is_char (s, &i, len, ':')
        || !digits (s, &i, len, 2, 2) || !is_char (s, &i, len, ':')
        || !digits (s, &i, len, 2, 2))
        return false;
    if (is_char (s, &i, len, '.'))
        i += span (s, i, len, DIGITS);
    return is_timestamp_zone (s, i, len);
}

/* What a plain scalar resolves to (PyYAML's implicit resolvers: at most one
 * of them matches any string). */
static enum kind classify (const char *s, size_t len)
{
    if (len == 0 || is_one_of (s, len, null_words))
        return K_NULL;
    if (is_one_of (s, len, true_words) || is_one_of (s, len, false_words))
        return K_BOOL;
    if (is_float (s, len))
        return K_FLOAT;
    if (is_int (s, len))
        return K_INT;
    if (is_timestamp (s, len))
        return K_TIMESTAMP;
    if (len == 2 && memcmp (s, "<<", 2) == 0)
        return K_MERGE;
    if (len == 1 && s[0] == '=')
        return K_VALUE;
    return K_STR;
}

/* Conversions.  Each fills *errmsg (static text) on failure. */

static int digit_value (char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return c - 'A' + 10;
}

/* Magnitude of the digits of s (base, '_' skipped) into *v. */
static int accumulate (const char *s, size_t len, unsigned base, uint64_t *v)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '_')
            continue;
        if (__builtin_mul_overflow (*v, base, v)
            || __builtin_add_overflow (*v, digit_value (s[i]), v))
            return -1;
    }
    return 0;
}

static int base60_int (const char *s, size_t len, uint64_t *v)
{
    size_t i = 0;

    while (i < len) {
        const char *colon = memchr (s + i, ':', len - i);
        size_t n = colon ? (size_t)(colon - (s + i)) : len - i;
        uint64_t part = 0;
        if (accumulate (s + i, n, 10, &part) < 0
            || __builtin_mul_overflow (*v, 60, v)
            || __builtin_add_overflow (*v, part, v))
            return -1;
        i += n + 1;
    }
    return 0;
}

/* s matched is_int: convert as PyYAML's construct_yaml_int. */
static int make_int (const char *s, size_t len, json_int_t *out,
                     const char **errmsg)
{
    bool neg = s[0] == '-';
    size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
    uint64_t v = 0;
    int rc;

    if (len - i > 1 && s[i] == '0' && (s[i + 1] == 'b' || s[i + 1] == 'x')) {
        if (span (s, i + 2, len, "_") == len - i - 2) {
            *errmsg = "invalid integer %s";
            return -1;
        }
        rc = accumulate (s + i + 2, len - i - 2, s[i + 1] == 'b' ? 2 : 16, &v);
    } else if (s[i] == '0')
        rc = accumulate (s + i, len - i, 8, &v);
    else if (memchr (s, ':', len))
        rc = base60_int (s + i, len - i, &v);
    else
        rc = accumulate (s + i, len - i, 10, &v);
    if (rc < 0 || v > (uint64_t)INT64_MAX + (neg ? 1 : 0)) {
        *errmsg = "integer %s does not fit in 64 bits";
        return -1;
    }
    *out = neg ? (json_int_t)(0 - v) : (json_int_t)v;
    return 0;
}

/* Copy s without '_' into a new NUL-terminated string, lowercased. */
static char *strip (const char *s, size_t len)
{
    char *t = malloc (len + 1);
    size_t o = 0;

    if (!t)
        return NULL;
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '_')
            t[o++] = tolower ((unsigned char)s[i]);
    }
    t[o] = '\0';
    return t;
}

/* Python's sum over reversed parts of part * 60^k, in doubles. */
static double base60_real (char *t)
{
    double value = 0;
    double base = 1;
    char *colon;

    while ((colon = strrchr (t, ':'))) {
        value += c_strtod (colon + 1) * base;
        base *= 60;
        *colon = '\0';
    }
    return value + c_strtod (t) * base;
}

/* t: a stripped, lowercased float (construct_yaml_float). */
static int make_real_stripped (char *t, double *out, const char **errmsg)
{
    double sign = t[0] == '-' ? -1 : 1;
    char *p = (t[0] == '-' || t[0] == '+') ? t + 1 : t;
    double d;

    if (strcmp (p, ".inf") == 0 || strcmp (p, ".nan") == 0)
        d = strcmp (p, ".inf") == 0 ? INFINITY : NAN;
    else if (strchr (p, ':'))
        d = base60_real (p);
    else
        d = c_strtod (p);
    if (!isfinite (d)) {
        *errmsg = "%s is not representable in JSON";
        return -1;
    }
    *out = sign * d;
    return 0;
}

static int make_real (const char *s, size_t len, double *out,
                      const char **errmsg)
{
    char *t = strip (s, len);
    int rc;

    if (!t)
        return -2;
    rc = make_real_stripped (t, out, errmsg);
    free (t);
    return rc;
}

/* Loader */

struct frame {
    json_t *node; /* object or array being filled */
    char *key;    /* pending key of an object, NULL when a key is next */
    yaml_mark_t key_mark;
};

struct loader {
    yaml_parser_t parser;
    const char *name;
    bool json; /* plain scalars are JSON literals, no tags */
    struct frame stack[RP_DOC_MAX_DEPTH];
    int depth;
    size_t nodes;
    size_t containers;
    uint64_t budget; /* 0: RP_DOC_MAX_NODES; else the memory of doc_cost */
    size_t len;      /* of the input, for doc_cost */
    int documents;
    json_t *root;
    struct pos_table *tab;
    rp_error_t *error;
    bool limit; /* the error is a limit (depth, nodes), not syntax */
    bool done;
};

static int fail_at (struct loader *ld, const yaml_mark_t *mark, int errnum,
                    const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static int fail_at (struct loader *ld, const yaml_mark_t *mark, int errnum,
                    const char *fmt, ...)
{
    char msg[RP_ERROR_TEXT_SIZE];
    va_list ap;

    va_start (ap, fmt);
    vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    return rp_error_set (ld->error, errnum, "%s:%zu:%zu: %s", ld->name,
                         mark->line + 1, mark->column + 1, msg);
}

static int nomem (struct loader *ld)
{
    return rp_error_set (ld->error, ENOMEM, "%s: out of memory", ld->name);
}

static struct frame *top (struct loader *ld)
{
    return ld->depth > 0 ? &ld->stack[ld->depth - 1] : NULL;
}

static bool expecting_key (struct loader *ld)
{
    struct frame *f = top (ld);

    return f && json_is_object (f->node) && !f->key;
}

/* "tag:yaml.org,2002:int" -> "!!int" for messages. */
static const char *tag_name (const char *tag, char *buf, size_t size)
{
    char tmp[SHOW_SIZE];

    if (strncmp (tag, YAML_TAG, strlen (YAML_TAG)) == 0) {
        tag += strlen (YAML_TAG);
        snprintf (buf, size, "!!%s",
                  show (tag, strlen (tag), tmp, sizeof (tmp)));
    } else
        snprintf (buf, size, "%s", show (tag, strlen (tag), tmp, sizeof (tmp)));
    return buf;
}

static bool is_tag (const char *tag, const char *name)
{
    size_t n = strlen (YAML_TAG);

    return strncmp (tag, YAML_TAG, n) == 0 && strcmp (tag + n, name) == 0;
}

static int count_node (struct loader *ld, const yaml_mark_t *mark,
                       bool container)
{
    size_t containers = ld->containers + container;

    if (!ld->budget && ld->nodes == RP_DOC_MAX_NODES) {
        ld->limit = true;
        return fail_at (ld, mark, EINVAL, "document has more than %d nodes",
                        RP_DOC_MAX_NODES);
    }
    if (ld->budget
        && doc_cost (ld->len, containers, ld->nodes + 1 - containers)
               > ld->budget) {
        ld->limit = true;
        return fail_at (ld, mark, EFBIG,
                        "document needs more than the memory limit of %" PRIu64
                        " MiB",
                        ld->budget >> 20);
    }
    ld->nodes++;
    ld->containers = containers;
    return 0;
}

static int record (struct loader *ld, json_t *v, const yaml_mark_t *mark,
                   struct frame *f)
{
    struct pos p = {
        .a = v,
        .line = mark->line + 1,
        .column = mark->column + 1,
    };

    if (f && json_is_object (f->node)) {
        p.key_line = f->key_mark.line + 1;
        p.key_column = f->key_mark.column + 1;
    }
    if (is_shared (v)) {
        if (!f)
            return 0;
        p.a = f->node;
        if (json_is_array (f->node))
            p.b = json_array_size (f->node);
        else
            p.b = (uintptr_t)json_object_iter_key (
                json_object_iter_at (f->node, f->key));
    }
    return pos_put (ld->tab, &p);
}

/* Attach v (a new reference, stolen) to the open container or as root. */
static int add_value (struct loader *ld, json_t *v, const yaml_mark_t *mark)
{
    struct frame *f = top (ld);
    int rc = 0;

    if (!f)
        ld->root = v;
    else if (json_is_array (f->node))
        rc = json_array_append_new (f->node, v);
    else
        rc = json_object_set_new (f->node, f->key, v);
    if (f && rc < 0)
        return nomem (ld);
    if (record (ld, v, mark, f) < 0)
        return nomem (ld);
    if (f) {
        free (f->key);
        f->key = NULL;
    }
    return 0;
}

/* errfmt has one %s: the scalar, quoted. */
static json_t *scalar_error (struct loader *ld, const yaml_event_t *ev,
                             const char *errfmt)
{
    char buf[SHOW_SIZE];
    char value[SHOW_SIZE + 2];
    char msg[RP_ERROR_TEXT_SIZE];
    const char *s = (const char *)ev->data.scalar.value;

    snprintf (value, sizeof (value), "\"%s\"",
              show (s, ev->data.scalar.length, buf, sizeof (buf)));
    snprintf (msg, sizeof (msg), errfmt, value);
    fail_at (ld, &ev->start_mark, EINVAL, "%s", msg);
    return NULL;
}

/* v from a jansson constructor: NULL means out of memory. */
static json_t *made (struct loader *ld, json_t *v)
{
    if (!v)
        nomem (ld);
    return v;
}

static json_t *plain_value (struct loader *ld, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    const char *errmsg = NULL;
    json_int_t i;
    double d;
    int rc;

    switch (classify (s, len)) {
    case K_NULL:
        return json_null ();
    case K_BOOL:
        return json_boolean (is_one_of (s, len, true_words));
    case K_INT:
        if (make_int (s, len, &i, &errmsg) < 0)
            return scalar_error (ld, ev, errmsg);
        return made (ld, json_integer (i));
    case K_FLOAT:
        if ((rc = make_real (s, len, &d, &errmsg)) == -2)
            return made (ld, NULL);
        if (rc < 0)
            return scalar_error (ld, ev, errmsg);
        return made (ld, json_real (d));
    case K_TIMESTAMP:
        return scalar_error (
            ld, ev, "timestamp %s is not representable in JSON (quote it)");
    case K_MERGE:
        return scalar_error (ld, ev,
                             "merge key %s is not supported (quote it)");
    case K_VALUE:
        return scalar_error (ld, ev,
                             "value key %s is not supported (quote it)");
    case K_STR:
        break;
    }
    return made (ld, json_stringn (s, len));
}

/* !!float: also accepts decimal integers and exponents without a sign, as
 * Python's float() does on the text with '_' removed. */
static bool is_tagged_float (const char *t)
{
    size_t len = strlen (t);
    size_t i = (t[0] == '-' || t[0] == '+') ? 1 : 0;
    size_t n = span (t, i, len, DIGITS);

    if (is_float (t, len))
        return true;
    if (n > 0 && strchr (t, ':'))
        return match_base60 (t, i + n, len) == len;
    i += n;
    if (i < len && t[i] == '.') {
        size_t m = span (t, i + 1, len, DIGITS);
        if (n == 0 && m == 0)
            return false;
        i += 1 + m;
    } else if (n == 0)
        return false;
    if (i < len && t[i] == 'e') {
        i += (i + 1 < len && (t[i + 1] == '-' || t[i + 1] == '+')) ? 2 : 1;
        if ((n = span (t, i, len, DIGITS)) == 0)
            return false;
        i += n;
    }
    return i == len;
}

static json_t *tagged_float (struct loader *ld, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    char *t = strip (s, ev->data.scalar.length);
    const char *errmsg = "invalid !!float value %s";
    json_t *v;
    double d;

    if (!t)
        return made (ld, NULL);
    if (is_tagged_float (t) && make_real_stripped (t, &d, &errmsg) == 0)
        v = made (ld, json_real (d));
    else
        v = scalar_error (ld, ev, errmsg);
    free (t);
    return v;
}

/* !!bool: PyYAML looks the lowercased text up in its table. */
static json_t *tagged_bool (struct loader *ld, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    static const char *const yes[] = { "yes", "true", "on", NULL };
    static const char *const no[] = { "no", "false", "off", NULL };
    char t[8];

    for (size_t i = 0; i < len && i < sizeof (t); i++)
        t[i] = tolower ((unsigned char)s[i]);
    if (len < sizeof (t) && is_one_of (t, len, yes))
        return json_true ();
    if (len < sizeof (t) && is_one_of (t, len, no))
        return json_false ();
    return scalar_error (ld, ev, "invalid !!bool value %s");
}

static json_t *tagged_value (struct loader *ld, const yaml_event_t *ev)
{
    const char *tag = (const char *)ev->data.scalar.tag;
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    char buf[SHOW_SIZE];
    const char *errmsg = "invalid !!int value %s";
    json_int_t i;

    if (is_tag (tag, "str"))
        return made (ld, json_stringn (s, len));
    if (is_tag (tag, "null"))
        return json_null ();
    if (is_tag (tag, "float"))
        return tagged_float (ld, ev);
    if (is_tag (tag, "bool"))
        return tagged_bool (ld, ev);
    if (is_tag (tag, "int")) {
        if (is_int (s, len) && make_int (s, len, &i, &errmsg) == 0)
            return made (ld, json_integer (i));
        return scalar_error (ld, ev, errmsg);
    }
    fail_at (ld, &ev->start_mark, EINVAL, "unsupported tag %s",
             tag_name (tag, buf, sizeof (buf)));
    return NULL;
}

/* JSON mode: plain scalars must be JSON literals; anything else fails and
 * the caller falls back to jansson's tree. */
static json_t *json_plain_value (struct loader *ld, const yaml_event_t *ev)
{
    const char *s = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    json_t *v = json_loadb (s, len, JSON_DECODE_ANY, NULL);

    if (!v || json_is_object (v) || json_is_array (v) || json_is_string (v)) {
        json_decref (v);
        fail_at (ld, &ev->start_mark, EINVAL, "not a JSON literal");
        return NULL;
    }
    return v;
}

static json_t *scalar_value (struct loader *ld, const yaml_event_t *ev)
{
    const char *tag = (const char *)ev->data.scalar.tag;
    bool untagged = !tag || strcmp (tag, "!") == 0;

    yaml_scalar_style_t style = ev->data.scalar.style;

    if (ld->json
        && (tag
            || (style != YAML_PLAIN_SCALAR_STYLE
                && style != YAML_DOUBLE_QUOTED_SCALAR_STYLE))) {
        fail_at (ld, &ev->start_mark, EINVAL, "not JSON");
        return NULL;
    }
    if (untagged && !ev->data.scalar.plain_implicit)
        return made (ld, json_stringn ((const char *)ev->data.scalar.value,
                                       ev->data.scalar.length));
    if (untagged && ld->json)
        return json_plain_value (ld, ev);
    if (untagged)
        return plain_value (ld, ev);
    return tagged_value (ld, ev);
}

static int check_string (struct loader *ld, const yaml_event_t *ev)
{
    if (memchr (ev->data.scalar.value, '\0', ev->data.scalar.length))
        return fail_at (ld, &ev->start_mark, EINVAL,
                        "string contains a NUL character");
    return 0;
}

static const char *kind_name (json_t *v)
{
    switch (json_typeof (v)) {
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a real";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

/* Position of the key of an existing member of object o. */
static unsigned int key_line (struct loader *ld, json_t *o, const char *key)
{
    json_t *v = json_object_get (o, key);
    const struct pos *p;

    if (is_shared (v))
        p = pos_get (
            ld->tab, o,
            (uintptr_t)json_object_iter_key (json_object_iter_at (o, key)));
    else
        p = pos_get (ld->tab, v, 0);
    return p ? p->key_line : 0;
}

static int on_key (struct loader *ld, const yaml_event_t *ev)
{
    struct frame *f = top (ld);
    char buf[SHOW_SIZE];
    json_t *k;

    if (!(k = scalar_value (ld, ev)))
        return -1;
    if (!json_is_string (k)) {
        fail_at (ld, &ev->start_mark, EINVAL,
                 "mapping key must be a string, not %s (quote it)",
                 kind_name (k));
        json_decref (k);
        return -1;
    }
    json_decref (k);
    if (check_string (ld, ev) < 0)
        return -1;
    const char *key = (const char *)ev->data.scalar.value;
    if (json_object_get (f->node, key))
        return fail_at (ld, &ev->start_mark, EINVAL,
                        "duplicate key \"%s\" (lines %u and %zu)",
                        show (key, strlen (key), buf, sizeof (buf)),
                        key_line (ld, f->node, key), ev->start_mark.line + 1);
    if (!(f->key = strdup (key)))
        return nomem (ld);
    f->key_mark = ev->start_mark;
    return 0;
}

static int on_scalar (struct loader *ld, const yaml_event_t *ev)
{
    json_t *v;

    if (count_node (ld, &ev->start_mark, false) < 0)
        return -1;
    if (expecting_key (ld))
        return on_key (ld, ev);
    if (!(v = scalar_value (ld, ev)))
        return -1;
    if (json_is_string (v) && check_string (ld, ev) < 0) {
        json_decref (v);
        return -1;
    }
    return add_value (ld, v, &ev->start_mark);
}

static int on_start (struct loader *ld, const yaml_event_t *ev, bool map)
{
    const char *tag = (const char *)(map ? ev->data.mapping_start.tag
                                         : ev->data.sequence_start.tag);
    char buf[SHOW_SIZE];
    json_t *v;

    if (count_node (ld, &ev->start_mark, true) < 0)
        return -1;
    if (expecting_key (ld))
        return fail_at (ld, &ev->start_mark, EINVAL,
                        "mapping key must be a string, not a %s",
                        map ? "mapping" : "sequence");
    if (tag && strcmp (tag, "!") != 0 && !is_tag (tag, map ? "map" : "seq"))
        return fail_at (
            ld, &ev->start_mark, EINVAL, "unsupported tag %s on a %s",
            tag_name (tag, buf, sizeof (buf)), map ? "mapping" : "sequence");
    if (ld->depth == RP_DOC_MAX_DEPTH) {
        ld->limit = true;
        return fail_at (ld, &ev->start_mark, EINVAL,
                        "nesting is deeper than %d levels", RP_DOC_MAX_DEPTH);
    }
    if (!(v = map ? json_object () : json_array ()))
        return nomem (ld);
    if (add_value (ld, v, &ev->start_mark) < 0)
        return -1;
    ld->stack[ld->depth++] = (struct frame){ .node = v };
    return 0;
}

static int on_event (struct loader *ld, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_DOCUMENT_START_EVENT:
        if (ld->documents++ > 0)
            return fail_at (ld, &ev->start_mark, EINVAL,
                            "only one YAML document allowed");
        return 0;
    case YAML_STREAM_END_EVENT:
        ld->done = true;
        if (ld->documents == 0)
            return rp_error_set (ld->error, EINVAL, "%s: empty document",
                                 ld->name);
        return 0;
    case YAML_ALIAS_EVENT:
        return fail_at (ld, &ev->start_mark, EINVAL,
                        "YAML aliases are not allowed");
    case YAML_SCALAR_EVENT:
        return on_scalar (ld, ev);
    case YAML_SEQUENCE_START_EVENT:
        return on_start (ld, ev, false);
    case YAML_MAPPING_START_EVENT:
        return on_start (ld, ev, true);
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        ld->depth--;
        return 0;
    default:
        return 0;
    }
}

/* Line and column (1-based, in characters) of byte offset off of buf. */
static void offset_mark (const char *buf, size_t len, size_t off,
                         yaml_mark_t *mark)
{
    mark->line = 0;
    mark->column = 0;
    for (size_t i = 0; i < off && i < len; i++) {
        if (buf[i] == '\n') {
            mark->line++;
            mark->column = 0;
        } else if (((unsigned char)buf[i] & 0xC0) != 0x80)
            mark->column++;
    }
}

static int parser_error (struct loader *ld, const char *buf, size_t len)
{
    yaml_parser_t *p = &ld->parser;
    yaml_mark_t mark = p->problem_mark;
    const char *problem = p->problem ? p->problem : "syntax error";

    if (p->error == YAML_MEMORY_ERROR)
        return nomem (ld);
    if (p->error == YAML_READER_ERROR) {
        offset_mark (buf, len, p->problem_offset, &mark);
        if (p->problem_value != -1)
            return fail_at (ld, &mark, EINVAL, "%s (#x%X)", problem,
                            (unsigned)p->problem_value);
        return fail_at (ld, &mark, EINVAL, "%s", problem);
    }
    if (p->context)
        return fail_at (ld, &mark, EINVAL, "%s (%s at line %zu, column %zu)",
                        problem, p->context, p->context_mark.line + 1,
                        p->context_mark.column + 1);
    return fail_at (ld, &mark, EINVAL, "%s", problem);
}

static void loader_cleanup (struct loader *ld)
{
    for (int i = 0; i < ld->depth; i++)
        free (ld->stack[i].key);
    ld->depth = 0;
    yaml_parser_delete (&ld->parser);
}

/* Parse buf into ld->root, positions into ld->tab. */
static int load_yaml (struct loader *ld, const char *buf, size_t len)
{
    yaml_event_t ev;
    int rc = 0;

    if (!yaml_parser_initialize (&ld->parser))
        return nomem (ld);
    yaml_parser_set_input_string (&ld->parser, (const unsigned char *)buf, len);
    while (rc == 0 && !ld->done) {
        if (!yaml_parser_parse (&ld->parser, &ev)) {
            rc = parser_error (ld, buf, len);
            break;
        }
        rc = on_event (ld, &ev);
        yaml_event_delete (&ev);
    }
    loader_cleanup (ld);
    if (rc < 0) {
        json_decref (ld->root);
        ld->root = NULL;
    }
    return rc;
}

/* Documents */

static struct rp_doc *doc_create (const char *name)
{
    struct rp_doc *doc = calloc (1, sizeof (*doc));

    if (!doc
        || !(doc->name = strdup (strcmp (name, "-") == 0 ? "stdin" : name))) {
        free (doc);
        errno = ENOMEM;
        return NULL;
    }
    return doc;
}

void rp_doc_destroy (struct rp_doc *doc)
{
    int saved_errno = errno;

    if (doc) {
        json_decref (doc->root);
        free (doc->tab.v);
        free (doc->name);
        free (doc);
    }
    errno = saved_errno;
}

static void forget_positions (struct rp_doc *doc)
{
    free (doc->tab.v);
    memset (&doc->tab, 0, sizeof (doc->tab));
}

static bool all_blank (const char *buf, size_t len)
{
    return span (buf, 0, len, " \t\r\n") == len;
}

/* What one load may take: RP_DOC_MAX_BYTES and RP_DOC_MAX_NODES when
 * memory is 0, else the estimate doc_cost. */
struct bounds {
    uint64_t memory;
};

static size_t max_bytes (const struct bounds *bd)
{
    uint64_t n = bd->memory / COST_BYTE;

    if (!bd->memory)
        return RP_DOC_MAX_BYTES;
    return n > SIZE_MAX - 1 ? SIZE_MAX - 1 : (size_t)n;
}

static int too_large (const char *name, const struct bounds *bd,
                      rp_error_t *error)
{
    if (!bd->memory)
        return rp_error_set (error, EFBIG,
                             "%s: document is larger than %zu bytes", name,
                             RP_DOC_MAX_BYTES);
    return rp_error_set (error, EFBIG,
                         "%s: document is larger than %zu bytes, the most that"
                         " the memory limit of %" PRIu64 " MiB allows",
                         name, max_bytes (bd), bd->memory >> 20);
}

/* Depth and node limits of a tree that did not come through the loader
 * (max_nodes: SIZE_MAX for none); its nodes and containers are counted. */
static int check_limits (json_t *o, int depth, size_t max_nodes, size_t *nodes,
                         size_t *containers)
{
    int rc = 0;
    void *it;

    if (++*nodes > max_nodes)
        return -1;
    if (!json_is_object (o) && !json_is_array (o))
        return 0;
    ++*containers;
    if (depth == RP_DOC_MAX_DEPTH)
        return -2;
    for (size_t i = 0; rc == 0 && i < json_array_size (o); i++)
        rc = check_limits (json_array_get (o, i), depth + 1, max_nodes, nodes,
                           containers);
    for (it = json_object_iter (o); rc == 0 && it;
         it = json_object_iter_next (o, it)) {
        ++*nodes; /* the key */
        rc = check_limits (json_object_iter_value (it), depth + 1, max_nodes,
                           nodes, containers);
    }
    return rc;
}

/* An upper bound of the containers and scalars of JSON text, from its
 * brackets, commas and colons outside strings: one pass, nothing
 * allocated. */
static void json_census (const char *buf, size_t len, size_t *containers,
                         size_t *scalars)
{
    bool str = false;

    *containers = *scalars = 0;
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        if (str) {
            if (c == '\\')
                i++;
            else if (c == '"')
                str = false;
        } else if (c == '"')
            str = true;
        else if (c == '{' || c == '[')
            ++*containers;
        else if (c == ',' || c == ':')
            ++*scalars;
    }
    ++*scalars; /* the first value of a container, or a scalar root */
}

/* Refuse JSON whose estimate passes the memory limit before reading it. */
static int json_precheck (struct rp_doc *doc, const char *buf, size_t len,
                          const struct bounds *bd, rp_error_t *error)
{
    size_t containers, scalars;
    uint64_t need;

    if (!bd->memory)
        return 0;
    json_census (buf, len, &containers, &scalars);
    need = doc_cost (len, containers, scalars);
    if (need <= bd->memory)
        return 0;
    return rp_error_set (error, EFBIG,
                         "%s: document needs about %" PRIu64 " MiB to read,"
                         " more than the memory limit of %" PRIu64 " MiB",
                         doc->name, mib_up (need), bd->memory >> 20);
}

static json_t *load_jansson (struct rp_doc *doc, const char *buf, size_t len,
                             const struct bounds *bd, rp_error_t *error)
{
    json_error_t jerr;
    json_t *o =
        json_loadb (buf, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    size_t nodes = 0, containers = 0;
    int rc;

    if (!o) {
        for (char *p = jerr.text; *p; p++) {
            if ((unsigned char)*p < 0x20) /* keep the message one line */
                *p = '?';
        }
        rp_error_set (error, EINVAL, "%s:%d:%d: JSON: %s", doc->name, jerr.line,
                      jerr.column, jerr.text);
        return NULL;
    }
    /* the memory bound was checked before: json_precheck */
    rc = check_limits (o, 0, bd->memory ? SIZE_MAX : RP_DOC_MAX_NODES, &nodes,
                       &containers);
    if (rc < 0) {
        json_decref (o);
        if (rc == -1)
            rp_error_set (error, EINVAL, "%s: document has more than %d nodes",
                          doc->name, RP_DOC_MAX_NODES);
        else
            rp_error_set (error, EINVAL, "%s: nesting is deeper than %d levels",
                          doc->name, RP_DOC_MAX_DEPTH);
        return NULL;
    }
    doc->memory = doc_cost (len, containers, nodes - containers);
    return o;
}

static int load_json (struct rp_doc *doc, const char *buf, size_t len,
                      const struct bounds *bd, rp_error_t *error)
{
    struct loader ld = { .name = doc->name,
                         .json = true,
                         .tab = &doc->tab,
                         .budget = bd->memory,
                         .len = len };
    rp_error_t yerr;
    json_t *o;

    if (json_precheck (doc, buf, len, bd, error) < 0)
        return -1;
    ld.error = &yerr;
    if (load_yaml (&ld, buf, len) < 0 && (ld.limit || errno == ENOMEM)) {
        if (error)
            *error = yerr;
        return -1;
    }
    if (!(o = load_jansson (doc, buf, len, bd, error))) {
        json_decref (ld.root);
        return -1;
    }
    if (ld.root && json_equal (ld.root, o)) {
        json_decref (o);
        doc->root = ld.root;
        return 0;
    }
    json_decref (ld.root);
    forget_positions (doc);
    doc->root = o;
    return 0;
}

static int detect_format (const char *buf, size_t len)
{
    size_t i = span (buf, 0, len, " \t\r\n");

    if (i < len && (buf[i] == '{' || buf[i] == '['))
        return RP_DOC_JSON;
    return RP_DOC_YAML;
}

static int load_yaml_doc (struct rp_doc *doc, const char *buf, size_t len,
                          const struct bounds *bd, rp_error_t *error)
{
    struct loader ld = { .name = doc->name,
                         .tab = &doc->tab,
                         .error = error,
                         .budget = bd->memory,
                         .len = len };
    int rc = load_yaml (&ld, buf, len);

    doc->root = ld.root;
    doc->memory = doc_cost (len, ld.containers, ld.nodes - ld.containers);
    return rc;
}

/* The YAML reading of a document whose JSON reading failed with
 * json_error; NULL (json_error kept, errno EINVAL) when it is not YAML
 * either. */
static struct rp_doc *load_flow_yaml (const char *buf, size_t len,
                                      const char *name, const struct bounds *bd,
                                      rp_error_t *error)
{
    rp_error_t yaml_error;
    struct rp_doc *doc = doc_create (name);

    if (!doc) {
        rp_error_set (error, ENOMEM, "%s: out of memory", name);
        return NULL;
    }
    if (load_yaml_doc (doc, buf, len, bd, &yaml_error) < 0) {
        rp_doc_destroy (doc);
        errno = EINVAL;
        return NULL;
    }
    return doc;
}

static struct rp_doc *doc_load (const char *buf, size_t len, const char *name,
                                int format, const struct bounds *bd,
                                rp_error_t *error)
{
    struct rp_doc *doc;
    bool guessed = false;
    int rc;

    if ((!buf && len > 0) || !name || format < RP_DOC_AUTO
        || format > RP_DOC_JSON) {
        rp_error_set (error, EINVAL, "invalid argument");
        return NULL;
    }
    if (!(doc = doc_create (name))) {
        rp_error_set (error, ENOMEM, "%s: out of memory", name);
        return NULL;
    }
    if (!buf)
        buf = "";
    if (format == RP_DOC_AUTO) {
        format = detect_format (buf, len);
        guessed = true;
    }
    if (len > max_bytes (bd))
        rc = too_large (doc->name, bd, error);
    else if (format == RP_DOC_JSON && all_blank (buf, len))
        rc = rp_error_set (error, EINVAL, "%s: empty document", doc->name);
    else if (format == RP_DOC_JSON)
        rc = load_json (doc, buf, len, bd, error);
    else
        rc = load_yaml_doc (doc, buf, len, bd, error);
    if (rc < 0 && guessed && format == RP_DOC_JSON && errno == EINVAL) {
        /* Guessed JSON from a leading '{' or '[', but RFC 14 jobspec is
         * YAML, and flow-style YAML starts the same way: try it as YAML.
         * If that fails too, the JSON error is the one reported. */
        rp_doc_destroy (doc);
        return load_flow_yaml (buf, len, name, bd, error);
    }
    if (rc < 0) {
        rp_doc_destroy (doc);
        return NULL;
    }
    return doc;
}

struct rp_doc *rp_doc_load (const char *buf, size_t len, const char *name,
                            int format, rp_error_t *error)
{
    struct bounds bd = { 0 };

    return doc_load (buf, len, name, format, &bd, error);
}

static int format_of_path (const char *path)
{
    const char *dot = strrchr (path, '.');

    if (dot && strchr (dot, '/') == NULL) {
        if (strcasecmp (dot, ".json") == 0)
            return RP_DOC_JSON;
        if (strcasecmp (dot, ".yaml") == 0 || strcasecmp (dot, ".yml") == 0)
            return RP_DOC_YAML;
    }
    return RP_DOC_AUTO;
}

/* Read at most max + 1 bytes of f into *bufp. */
static int read_bounded (FILE *f, size_t max, char **bufp, size_t *lenp)
{
    size_t size = 8192;
    size_t len = 0;
    char *buf = malloc (size);

    while (buf) {
        size_t want = size - len;
        size_t n = fread (buf + len, 1, want, f);
        len += n;
        if (n < want || len > max)
            break;
        size = size * 2 > max + 1 ? max + 1 : size * 2;
        char *nbuf = realloc (buf, size);
        if (!nbuf)
            free (buf);
        buf = nbuf;
    }
    if (!buf)
        return -1;
    if (ferror (f)) {
        int saved_errno = errno ? errno : EIO;
        free (buf);
        errno = saved_errno;
        return -1;
    }
    *bufp = buf;
    *lenp = len;
    return 0;
}

/* A regular file larger than the bounds is refused before it is read. */
static bool file_too_large (FILE *f, const struct bounds *bd)
{
    struct stat st;

    return bd->memory && fstat (fileno (f), &st) == 0 && S_ISREG (st.st_mode)
           && (uintmax_t)st.st_size > max_bytes (bd);
}

/* Read f and parse what it holds as the document name, within bd; label
 * names f in a read error. */
static struct rp_doc *load_stream (FILE *f, const char *name, const char *label,
                                   int format, const struct bounds *bd,
                                   rp_error_t *error)
{
    struct rp_doc *doc;
    char *buf;
    size_t len;

    errno = 0;
    if (file_too_large (f, bd)) {
        too_large (label, bd, error);
        return NULL;
    }
    if (read_bounded (f, max_bytes (bd), &buf, &len) < 0) {
        int saved_errno = errno;
        rp_error_set (error, saved_errno, "%s: %s", label,
                      strerror (saved_errno));
        return NULL;
    }
    doc = doc_load (buf, len, name, format, bd, error);
    free (buf);
    return doc;
}

static void fclose_keep_errno (FILE *f)
{
    int saved_errno = errno;

    fclose (f);
    errno = saved_errno;
}

static struct rp_doc *doc_load_file (const char *path, int format,
                                     const struct bounds *bd, rp_error_t *error)
{
    struct rp_doc *doc;
    FILE *f;

    if (!path) {
        rp_error_set (error, EINVAL, "invalid argument");
        return NULL;
    }
    if (!strcmp (path, "-"))
        return load_stream (stdin, path, "stdin", format, bd, error);
    if (!(f = fopen (path, "r"))) {
        rp_error_set (error, errno, "%s: %s", path, strerror (errno));
        return NULL;
    }
    if (format == RP_DOC_AUTO)
        format = format_of_path (path);
    doc = load_stream (f, path, path, format, bd, error);
    fclose_keep_errno (f);
    return doc;
}

struct rp_doc *rp_doc_load_file (const char *path, int format,
                                 rp_error_t *error)
{
    struct bounds bd = { 0 };

    return doc_load_file (path, format, &bd, error);
}

struct rp_doc *rp_doc_load_file_within (const char *path, int format,
                                        uint64_t memory, rp_error_t *error)
{
    struct bounds bd = { memory };

    if (memory == 0) {
        rp_error_set (error, EINVAL, "invalid argument");
        return NULL;
    }
    return doc_load_file (path, format, &bd, error);
}

struct rp_doc *rp_doc_load_fd (int fd, const char *name, int format,
                               rp_error_t *error)
{
    struct bounds bd = { 0 };
    struct rp_doc *doc;
    FILE *f = NULL;
    int copy;

    if (fd < 0 || !name) {
        rp_error_set (error, EINVAL, "invalid argument");
        return NULL;
    }
    /* A copy, so that fclose leaves fd to the caller. */
    if ((copy = fcntl (fd, F_DUPFD_CLOEXEC, 0)) < 0
        || !(f = fdopen (copy, "r"))) {
        rp_error_set (error, errno, "%s: %s", name, strerror (errno));
        if (copy >= 0)
            close (copy);
        return NULL;
    }
    if (format == RP_DOC_AUTO)
        format = format_of_path (name);
    doc = load_stream (f, name, name, format, &bd, error);
    fclose_keep_errno (f);
    return doc;
}

uint64_t rp_doc_memory (const struct rp_doc *doc)
{
    return doc ? doc->memory : 0;
}

struct rp_doc *rp_doc_from_json (json_t *root, const char *name)
{
    struct rp_doc *doc;

    if (!root || !name) {
        errno = EINVAL;
        return NULL;
    }
    if (!(doc = doc_create (name)))
        return NULL;
    doc->root = json_incref (root);
    return doc;
}

json_t *rp_doc_root (const struct rp_doc *doc)
{
    return doc ? doc->root : NULL;
}

const char *rp_doc_name (const struct rp_doc *doc)
{
    return doc ? doc->name : NULL;
}

static bool give (const struct pos *p, bool of_key, int *line, int *column)
{
    if (!p || (of_key && p->key_line == 0))
        return false;
    if (line)
        *line = of_key ? p->key_line : p->line;
    if (column)
        *column = of_key ? p->key_column : p->column;
    return true;
}

bool rp_doc_position (const struct rp_doc *doc, const json_t *node, int *line,
                      int *column)
{
    if (!doc || !node || is_shared (node))
        return false;
    return give (pos_get (&doc->tab, node, 0), false, line, column);
}

static const struct pos *member (const struct rp_doc *doc, const json_t *object,
                                 const char *key)
{
    json_t *o = (json_t *)object;
    json_t *v = json_object_get (o, key);

    if (!v)
        return NULL;
    if (!is_shared (v))
        return pos_get (&doc->tab, v, 0);
    return pos_get (
        &doc->tab, o,
        (uintptr_t)json_object_iter_key (json_object_iter_at (o, key)));
}

bool rp_doc_key_position (const struct rp_doc *doc, const json_t *object,
                          const char *key, int *line, int *column)
{
    if (!doc || !json_is_object (object) || !key)
        return false;
    if (!json_object_get (object, key))
        return rp_doc_position (doc, object, line, column);
    return give (member (doc, object, key), false, line, column);
}

bool rp_doc_key_name_position (const struct rp_doc *doc, const json_t *object,
                               const char *key, int *line, int *column)
{
    if (!doc || !json_is_object (object) || !key)
        return false;
    if (!json_object_get (object, key))
        return rp_doc_position (doc, object, line, column);
    return give (member (doc, object, key), true, line, column);
}

bool rp_doc_index_position (const struct rp_doc *doc, const json_t *array,
                            size_t index, int *line, int *column)
{
    json_t *v;

    if (!doc || !json_is_array (array) || !(v = json_array_get (array, index)))
        return false;
    if (!is_shared (v))
        return rp_doc_position (doc, v, line, column);
    return give (pos_get (&doc->tab, array, index + 1), false, line, column);
}

/* YAML emitter */

struct buf {
    char *s;
    size_t len;
    size_t size;
    bool failed;
};

static void put (struct buf *b, const char *s, size_t len)
{
    if (b->failed)
        return;
    if (b->len + len + 1 > b->size) {
        size_t size = b->size ? b->size : 256;
        while (b->len + len + 1 > size)
            size *= 2;
        char *ns = realloc (b->s, size);
        if (!ns) {
            b->failed = true;
            return;
        }
        b->s = ns;
        b->size = size;
    }
    memcpy (b->s + b->len, s, len);
    b->len += len;
    b->s[b->len] = '\0';
}

static void puts_ (struct buf *b, const char *s)
{
    put (b, s, strlen (s));
}

static void indent (struct buf *b, int n)
{
    static const char spaces[] = "                                ";

    for (; n > 0; n -= 32)
        put (b, spaces, n < 32 ? n : 32);
}

/* Decode one UTF-8 character of s (valid UTF-8, as jansson guarantees). */
static size_t utf8_next (const unsigned char *s, size_t len, size_t i,
                         uint32_t *cp)
{
    unsigned char c = s[i];
    size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;

    if (i + n > len)
        n = len - i;
    *cp = n == 1 ? c : (c & (0x3F >> (n - 1)));
    for (size_t k = 1; k < n; k++)
        *cp = (*cp << 6) | (s[i + k] & 0x3F);
    return n;
}

/* May code point c appear raw in a quoted scalar?  libyaml's reader takes
 * printable characters; tab, line breaks (also NEL, LS, PS) and BOM are
 * escaped so the text stays on one line and reads back unchanged. */
static bool raw_ok (uint32_t c)
{
    if (c == 0x85 || c == 0x2028 || c == 0x2029 || c == 0xFEFF)
        return false;
    return (c >= 0x20 && c <= 0x7E) || (c >= 0xA0 && c <= 0xD7FF)
           || (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

static bool plain_ok (const char *s, size_t len)
{
    if (len == 0 || strchr ("-?:,[]{}#&*!|>'\"%@` ", s[0]) || s[len - 1] == ' '
        || s[len - 1] == ':' || (len >= 3 && memcmp (s, "...", 3) == 0))
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = s[i];
        if (c < 0x20 || c > 0x7E)
            return false;
        if (i + 1 < len
            && ((s[i] == ':' && s[i + 1] == ' ')
                || (s[i] == ' ' && s[i + 1] == '#')))
            return false;
    }
    return classify (s, len) == K_STR;
}

static bool single_ok (const char *s, size_t len)
{
    size_t i = 0;
    uint32_t c;

    while (i < len) {
        i += utf8_next ((const unsigned char *)s, len, i, &c);
        if (!raw_ok (c))
            return false;
    }
    return true;
}

static void put_escape (struct buf *b, uint32_t c)
{
    char tmp[16];

    switch (c) {
    case '\n':
        puts_ (b, "\\n");
        return;
    case '\t':
        puts_ (b, "\\t");
        return;
    case '\r':
        puts_ (b, "\\r");
        return;
    case '\0':
        puts_ (b, "\\0");
        return;
    }
    if (c <= 0xFF)
        snprintf (tmp, sizeof (tmp), "\\x%02X", c);
    else
        snprintf (tmp, sizeof (tmp), "\\u%04X", c);
    puts_ (b, tmp);
}

static void put_double_quoted (struct buf *b, const char *s, size_t len)
{
    size_t i = 0;
    uint32_t c;

    puts_ (b, "\"");
    while (i < len) {
        size_t n = utf8_next ((const unsigned char *)s, len, i, &c);
        if (c == '"' || c == '\\') {
            puts_ (b, "\\");
            put (b, s + i, 1);
        } else if (raw_ok (c))
            put (b, s + i, n);
        else
            put_escape (b, c);
        i += n;
    }
    puts_ (b, "\"");
}

static void put_string (struct buf *b, const char *s, size_t len)
{
    const char *q;

    if (plain_ok (s, len)) {
        put (b, s, len);
        return;
    }
    if (!single_ok (s, len)) {
        put_double_quoted (b, s, len);
        return;
    }
    puts_ (b, "'");
    while ((q = memchr (s, '\'', len))) {
        put (b, s, q - s + 1);
        puts_ (b, "'");
        len -= q - s + 1;
        s = q + 1;
    }
    put (b, s, len);
    puts_ (b, "'");
}

/* Like Python's repr: the fewest significant digits that read back
 * exactly, fixed notation for exponents -4..15, else scientific; then a '.'
 * in the mantissa and a signed exponent, so PyYAML's float pattern matches
 * (it wants both: "1e+20" and "1.0e20" would read back as strings). */
static void put_real (struct buf *b, double d)
{
    char tmp[64];
    char out[80];
    char dp = decimal_point ();
    int prec;
    int exp;
    char *e;

    for (prec = 1; prec < 17; prec++) {
        snprintf (tmp, sizeof (tmp), "%.*e", prec - 1, d);
        if ((e = strchr (tmp, dp)))
            *e = '.';
        if (c_strtod (tmp) == d)
            break;
    }
    snprintf (tmp, sizeof (tmp), "%.*e", prec - 1, d);
    exp = atoi (strchr (tmp, 'e') + 1);
    if (exp >= -4 && exp < 16)
        snprintf (tmp, sizeof (tmp), "%.*f",
                  prec - 1 - exp > 0 ? prec - 1 - exp : 0, d);
    if ((e = strchr (tmp, dp)))
        *e = '.';
    e = strchr (tmp, 'e');
    if (e)
        *e = '\0';
    snprintf (out, sizeof (out), "%s%s%s%s", tmp, strchr (tmp, '.') ? "" : ".0",
              e ? "e" : "", e ? e + 1 : "");
    puts_ (b, out);
}

static void put_scalar (struct buf *b, const json_t *o)
{
    char tmp[32];

    switch (json_typeof (o)) {
    case JSON_STRING:
        put_string (b, json_string_value (o), json_string_length (o));
        break;
    case JSON_INTEGER:
        snprintf (tmp, sizeof (tmp), "%" JSON_INTEGER_FORMAT,
                  json_integer_value (o));
        puts_ (b, tmp);
        break;
    case JSON_REAL:
        put_real (b, json_real_value (o));
        break;
    case JSON_TRUE:
        puts_ (b, "true");
        break;
    case JSON_FALSE:
        puts_ (b, "false");
        break;
    default:
        puts_ (b, "null");
        break;
    }
}

static bool is_block (const json_t *o)
{
    return (json_is_object (o) && json_object_size (o) > 0)
           || (json_is_array (o) && json_array_size (o) > 0);
}

static void put_inline (struct buf *b, const json_t *o)
{
    if (json_is_object (o))
        puts_ (b, "{}");
    else if (json_is_array (o))
        puts_ (b, "[]");
    else
        put_scalar (b, o);
}

static int emit_block (struct buf *b, const json_t *o, int ind,
                       bool inline_first, int depth);

/* After "key:" or "- " (item): the value and its newline. */
static int emit_value (struct buf *b, const json_t *v, int ind, bool item,
                       int depth)
{
    if ((json_is_object (v) || json_is_array (v))
        && depth >= RP_DOC_MAX_DEPTH) {
        errno = EINVAL;
        return -1;
    }
    if (!is_block (v)) {
        puts_ (b, item ? "" : " ");
        put_inline (b, v);
        puts_ (b, "\n");
        return 0;
    }
    if (!item)
        puts_ (b, "\n");
    return emit_block (b, v, ind, item, depth);
}

struct member {
    const char *key;
    size_t len;
    json_t *value;
};

static int member_cmp (const void *a, const void *b)
{
    const struct member *x = a;
    const struct member *y = b;
    int c = memcmp (x->key, y->key, x->len < y->len ? x->len : y->len);

    if (c != 0)
        return c;
    return x->len < y->len ? -1 : x->len > y->len;
}

static struct member *sorted_members (const json_t *o)
{
    struct member *m = calloc (json_object_size (o) + 1, sizeof (*m));
    size_t n = 0;
    void *it;

    if (!m)
        return NULL;
    for (it = json_object_iter ((json_t *)o); it;
         it = json_object_iter_next ((json_t *)o, it)) {
        m[n].key = json_object_iter_key (it);
        m[n].len = json_object_iter_key_len (it);
        m[n].value = json_object_iter_value (it);
        n++;
    }
    qsort (m, n, sizeof (*m), member_cmp);
    return m;
}

static int emit_key (struct buf *b, const struct member *m, int ind)
{
    size_t start = b->len;

    put_string (b, m->key, m->len);
    if (b->len - start <= SIMPLE_KEY_MAX) {
        puts_ (b, ":");
        return 0;
    }
    /* libyaml limits implicit keys to 1024 characters: "? key\n: value" */
    if (!b->failed) {
        b->len = start;
        puts_ (b, "? ");
        put_string (b, m->key, m->len);
        puts_ (b, "\n");
        indent (b, ind);
        puts_ (b, ":");
    }
    return 0;
}

static int emit_object (struct buf *b, const json_t *o, int ind,
                        bool inline_first, int depth)
{
    struct member *m = sorted_members (o);
    size_t n = json_object_size (o);
    int rc = 0;

    if (!m)
        return -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (i > 0 || !inline_first)
            indent (b, ind);
        emit_key (b, &m[i], ind);
        rc = emit_value (b, m[i].value, ind + 2, false, depth);
    }
    free (m);
    return rc;
}

static int emit_block (struct buf *b, const json_t *o, int ind,
                       bool inline_first, int depth)
{
    if (json_is_object (o))
        return emit_object (b, o, ind, inline_first, depth + 1);
    for (size_t i = 0; i < json_array_size (o); i++) {
        if (i > 0 || !inline_first)
            indent (b, ind);
        puts_ (b, "- ");
        if (emit_value (b, json_array_get (o, i), ind + 2, true, depth + 1) < 0)
            return -1;
    }
    return 0;
}

char *rp_doc_dump_yaml (const json_t *o)
{
    struct buf b = { 0 };
    int rc = 0;

    if (!o) {
        errno = EINVAL;
        return NULL;
    }
    errno = 0;
    if (is_block (o))
        rc = emit_block (&b, o, 0, false, 0);
    else {
        put_inline (&b, o);
        puts_ (&b, "\n");
    }
    if (rc < 0 || b.failed) {
        if (b.failed || errno == 0)
            errno = ENOMEM;
        free (b.s);
        return NULL;
    }
    return b.s;
}
