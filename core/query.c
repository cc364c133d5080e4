/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The constraint query syntax (RFC 35), compiled to an RFC 31 object; see
 * api/respol/constraint.h for the operators and defaults.
 *
 * A recursive descent parser over a one-token lookahead lexer:
 *   or    := and (OR and)*
 *   and   := unary ([AND] unary)*        juxtaposition is and
 *   unary := NOT unary | '-' TERM | '(' or ')' | TERM
 * so and binds tighter than or, and "not" binds tightest: "not a b" is
 * "(not a) and b".  '-' is a negation only where a term may start ("a-b"
 * is one term) and must touch a term: "- a", "--a" and "-(a|b)" are
 * errors (RFC 35 forbids negating a general expression; "not (a|b)" is
 * the way to do it).
 *
 * A term is a run of characters other than white space and ( ) & |, in
 * which '...' and "..." quote (no escapes).  Its decoded text remembers
 * which bytes were quoted, so only an unquoted ':' separates the operator
 * and only unquoted ',' split a properties operand.  A whole unquoted
 * term "and", "or" or "not" is the keyword; "and:x" is a term with the
 * (unknown) operator "and".
 *
 * Bounds: parentheses and "not" nest at most RP_CONSTRAINT_MAX_DEPTH
 * deep, and the resulting object is at most that deep, so the recursion
 * is bounded and the result always compiles.  Each parse function returns
 * the depth of what it built, so no second walk is needed.
 *
 * Errors quote the query (cut at QUOTE_MAX bytes with "...") and give the
 * byte offset where the problem is; operand errors name the offset of
 * their term and repeat the library's own message.
 *
 * An operator a property plugin added (respol/property.h) is written
 * OPERATOR:VALUE and becomes {"OPERATOR": ["VALUE"]} (the whole operand,
 * commas included, one value), checked by compiling it with the plugin's
 * compile.  Operators of the query syntax's own (host, rank...) keep
 * their meaning.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respol/constraint.h"
#include "respol/hostlist.h"
#include "respol/idset.h"
#include "respol/rset.h"

#include "core/constraint_private.h"

#define QUOTE_MAX 60

enum token {
    TOK_END,
    TOK_LPAREN,
    TOK_RPAREN,
    TOK_AND,
    TOK_OR,
    TOK_NOT,
    TOK_NEG,
    TOK_TERM,
};

struct parser {
    const char *q;
    size_t len;
    size_t pos; /* where the lexer continues */
    int level;  /* open parentheses and "not" */
    enum token tok;
    size_t off;  /* offset of the current token */
    size_t size; /* its length in the query */
    rp_error_t *error;
};

/* A decoded term: text without quotes, and for each byte whether it was
 * inside quotes. */
struct term {
    char *text;
    bool *quoted;
    size_t len;
};

static json_t *parse_or (struct parser *P, int *depth);

/* "constraint query: "QUERY": msg", the query cut at QUOTE_MAX bytes. */
static int query_error (struct parser *P, int errnum, const char *msg)
{
    int n = P->len > QUOTE_MAX ? QUOTE_MAX : (int)P->len;

    return rp_error_set (P->error, errnum, "constraint query: \"%.*s%s\": %s",
                         n, P->q, (size_t)n < P->len ? "..." : "", msg);
}

/* A syntax error: "... : msg at offset N". */
static int parse_error (struct parser *P, size_t off, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));
static int parse_error (struct parser *P, size_t off, const char *fmt, ...)
{
    char msg[RP_ERROR_TEXT_SIZE];
    va_list ap;
    int len;

    va_start (ap, fmt);
    len = vsnprintf (msg, sizeof (msg), fmt, ap);
    va_end (ap);
    if (len >= 0 && (size_t)len < sizeof (msg))
        snprintf (msg + len, sizeof (msg) - len, " at offset %zu", off);
    return query_error (P, EINVAL, msg);
}

/* A bad operand: "... : term at offset N: <library message>". */
static int term_error (struct parser *P, const char *text)
{
    char msg[RP_ERROR_TEXT_SIZE];

    snprintf (msg, sizeof (msg), "term at offset %zu: %s", P->off, text);
    return query_error (P, EINVAL, msg);
}

static int nomem (struct parser *P)
{
    return query_error (P, ENOMEM, "out of memory");
}

static bool is_space (char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
           || c == '\v';
}

/* May c start or continue a term?  ('-' starts a negation instead.) */
static bool is_term_char (char c)
{
    return c != '\0' && !is_space (c) && !strchr ("()&|", c);
}

/* Length of the raw term at s, quotes included; -1 on an open quote. */
static int term_size (struct parser *P, size_t start, size_t *sizep)
{
    size_t i = start;

    while (i < P->len && is_term_char (P->q[i])) {
        char quote = P->q[i];
        if (quote == '\'' || quote == '"') {
            const char *end = memchr (P->q + i + 1, quote, P->len - i - 1);
            if (!end)
                return parse_error (P, i, "unterminated quote");
            i = (size_t)(end - P->q);
        }
        i++;
    }
    *sizep = i - start;
    return 0;
}

static bool raw_is (struct parser *P, const char *word)
{
    return P->size == strlen (word) && !strncmp (P->q + P->off, word, P->size);
}

/* Advance to the next token.  0, or -1 with the error set. */
static int next (struct parser *P)
{
    while (P->pos < P->len && is_space (P->q[P->pos]))
        P->pos++;
    P->off = P->pos;
    P->size = 1;
    if (P->pos == P->len) {
        P->tok = TOK_END;
        P->size = 0;
        return 0;
    }
    switch (P->q[P->pos]) {
    case '(':
        P->tok = TOK_LPAREN;
        break;
    case ')':
        P->tok = TOK_RPAREN;
        break;
    case '&':
    case '|':
        P->tok = P->q[P->pos] == '&' ? TOK_AND : TOK_OR;
        if (P->pos + 1 < P->len && P->q[P->pos + 1] == P->q[P->pos])
            P->size = 2;
        break;
    case '-':
        P->tok = TOK_NEG;
        break;
    default:
        if (term_size (P, P->pos, &P->size) < 0)
            return -1;
        P->tok = raw_is (P, "and")   ? TOK_AND
                 : raw_is (P, "or")  ? TOK_OR
                 : raw_is (P, "not") ? TOK_NOT
                                     : TOK_TERM;
        break;
    }
    P->pos += P->size;
    return 0;
}

/* --- terms -------------------------------------------------------------- */

static void term_free (struct term *t)
{
    free (t->text);
    free (t->quoted);
}

/* Decode the current token's raw text into t (quotes removed). */
static int term_decode (struct parser *P, struct term *t)
{
    const char *raw = P->q + P->off;
    char quote = 0;

    t->len = 0;
    t->text = malloc (P->size + 1);
    t->quoted = malloc (P->size + 1);
    if (!t->text || !t->quoted) {
        term_free (t);
        return nomem (P);
    }
    for (size_t i = 0; i < P->size; i++) {
        if (quote ? raw[i] == quote : (raw[i] == '\'' || raw[i] == '"')) {
            quote = quote ? 0 : raw[i];
            continue;
        }
        t->quoted[t->len] = quote != 0;
        t->text[t->len++] = raw[i];
    }
    t->text[t->len] = '\0';
    return 0;
}

/* Offset in t of the first unquoted c at or after start, or t->len. */
static size_t term_find (const struct term *t, size_t start, char c)
{
    size_t i = start;

    while (i < t->len && !(t->text[i] == c && !t->quoted[i]))
        i++;
    return i;
}

/* The RFC 31 operator named by the query operator (NULL: default). */
static const char *map_operator (const char *name)
{
    static const char *const map[][2] = {
        { "properties", "properties" },
        { "host", "hostlist" },
        { "hosts", "hostlist" },
        { "hostlist", "hostlist" },
        { "rank", "ranks" },
        { "ranks", "ranks" },
    };

    if (!name)
        return "properties";
    for (size_t i = 0; i < sizeof (map) / sizeof (map[0]); i++)
        if (!strcmp (map[i][0], name))
            return map[i][1];
    return constraint_operator_added (name) ? name : NULL;
}

/* Append the properties of operand (t->text + start), split at unquoted
 * commas, to values. */
static int add_properties (struct parser *P, const struct term *t, size_t start,
                           json_t *values)
{
    while (start <= t->len) {
        size_t end = term_find (t, start, ',');
        char *s = strndup (t->text + start, end - start);
        rp_error_t e;
        int rc;

        if (!s)
            return nomem (P);
        if (rp_rset_property_check (s[0] == '^' ? s + 1 : s, &e) < 0) {
            free (s);
            return term_error (P, e.text);
        }
        rc = json_array_append_new (values, json_string (s));
        free (s);
        if (rc < 0)
            return nomem (P);
        start = end + 1;
    }
    return 0;
}

/* Check the operand of a plugin's operator: compile {op: [s]}. */
static int check_added (struct parser *P, const char *op, const char *s)
{
    json_t *o = json_pack ("{s:[s]}", op, s);
    struct rp_constraint *c;
    const char *text;
    rp_error_t e;

    if (!o)
        return nomem (P);
    c = rp_constraint_compile (o, &e);
    json_decref (o);
    if (c) {
        rp_constraint_destroy (c);
        return 0;
    }
    text = strncmp (e.text, "constraint: ", 12) ? e.text : e.text + 12;
    return errno == ENOMEM ? nomem (P) : term_error (P, text);
}

/* Check a hostlist or ranks operand the way rp_constraint_compile will. */
static int check_operand (struct parser *P, const char *op, const char *s)
{
    rp_error_t e;

    if (strcmp (op, "hostlist") != 0 && strcmp (op, "ranks") != 0)
        return check_added (P, op, s);
    if (!strcmp (op, "hostlist")) {
        struct rp_hostlist *hl = rp_hostlist_decode (s, &e);
        if (!hl)
            return term_error (P, e.text);
        rp_hostlist_destroy (hl);
    } else {
        struct rp_idset *ids = rp_idset_decode (s, &e);
        if (!ids)
            return term_error (P, e.text);
        rp_idset_destroy (ids);
    }
    return 0;
}

static int term_values (struct parser *P, const struct term *t, const char *op,
                        size_t start, json_t *values)
{
    json_t *s;

    if (start == t->len)
        return parse_error (P, P->off, "empty operand");
    if (!strcmp (op, "properties"))
        return add_properties (P, t, start, values);
    if (check_operand (P, op, t->text + start) < 0)
        return -1;
    if (!(s = json_string (t->text + start)))
        return term_error (P, "not valid UTF-8");
    if (json_array_append_new (values, s) < 0)
        return nomem (P);
    return 0;
}

/* The current TERM token as {"op": [values]}. */
static json_t *term_object (struct parser *P, const struct term *t)
{
    size_t colon = term_find (t, 0, ':');
    const char *op;
    json_t *values = NULL;
    json_t *o;

    if (colon == 0) {
        parse_error (P, P->off, "missing operator before ':'");
        return NULL;
    }
    if (colon < t->len)
        t->text[colon] = '\0';
    op = map_operator (colon < t->len ? t->text : NULL);
    if (!op) {
        parse_error (P, P->off, "unknown operator '%s'", t->text);
        return NULL;
    }
    if (!(values = json_array ()) || !(o = json_object ()))
        goto error_nomem;
    if (json_object_set_new (o, op, values) < 0) {
        json_decref (o);
        goto error_nomem;
    }
    if (term_values (P, t, op, colon < t->len ? colon + 1 : 0, values) < 0) {
        json_decref (o);
        return NULL;
    }
    return o;
error_nomem:
    json_decref (values);
    nomem (P);
    return NULL;
}

static json_t *parse_term (struct parser *P, int *depth)
{
    struct term t;
    json_t *o;

    if (term_decode (P, &t) < 0)
        return NULL;
    o = term_object (P, &t);
    term_free (&t);
    if (!o || next (P) < 0) {
        json_decref (o);
        return NULL;
    }
    *depth = 1;
    return o;
}

/* --- expressions -------------------------------------------------------- */

/* {name: items}, stealing items; NULL (error set) when too deep. */
static json_t *make_node (struct parser *P, const char *name, json_t *items,
                          int depth)
{
    json_t *o;

    if (depth > RP_CONSTRAINT_MAX_DEPTH) {
        json_decref (items);
        parse_error (P, P->off, "nested deeper than %d levels",
                     RP_CONSTRAINT_MAX_DEPTH);
        return NULL;
    }
    if (!items || !(o = json_object ())
        || json_object_set_new (o, name, items) < 0) {
        json_decref (items);
        nomem (P);
        return NULL;
    }
    return o;
}

static int enter (struct parser *P)
{
    if (++P->level > RP_CONSTRAINT_MAX_DEPTH)
        return parse_error (P, P->off, "nested deeper than %d levels",
                            RP_CONSTRAINT_MAX_DEPTH);
    return 0;
}

static json_t *negate (struct parser *P, json_t *o, int *depth)
{
    if (!o)
        return NULL;
    *depth += 1;
    return make_node (P, "not", json_pack ("[o]", o), *depth);
}

static json_t *parse_unary (struct parser *P, int *depth)
{
    json_t *o;
    size_t off = P->off;

    switch (P->tok) {
    case TOK_NOT:
        if (enter (P) < 0 || next (P) < 0)
            return NULL;
        o = negate (P, parse_unary (P, depth), depth);
        P->level--;
        return o;
    case TOK_NEG:
        if (next (P) < 0)
            return NULL;
        if (P->tok != TOK_TERM || P->off != off + 1) {
            parse_error (P, off, "'-' must be followed by a term");
            return NULL;
        }
        return negate (P, parse_term (P, depth), depth);
    case TOK_LPAREN:
        if (enter (P) < 0 || next (P) < 0 || !(o = parse_or (P, depth)))
            return NULL;
        if (P->tok != TOK_RPAREN) {
            json_decref (o);
            parse_error (P, P->off, "missing ')'");
            return NULL;
        }
        P->level--;
        if (next (P) < 0) {
            json_decref (o);
            return NULL;
        }
        return o;
    case TOK_TERM:
        return parse_term (P, depth);
    case TOK_END:
        parse_error (P, P->off, "expected a term");
        return NULL;
    default:
        parse_error (P, P->off, "unexpected '%.*s'", (int)P->size,
                     P->q + P->off);
        return NULL;
    }
}

/* Append item to items, splicing in the values of an item that is itself
 * a name node; keep the deepest depth of what ends up in items. */
static int add_flat (json_t *items, json_t *item, int item_depth,
                     const char *name, int *maxdepth)
{
    json_t *values = json_object_get (item, name);
    int rc;

    if (json_object_size (item) == 1 && json_is_array (values)) {
        rc = json_array_extend (items, values);
        item_depth--;
        json_decref (item);
    } else {
        rc = json_array_append_new (items, item);
    }
    if (item_depth > *maxdepth)
        *maxdepth = item_depth;
    return rc;
}

/* Merge the values of every properties node of items into the first. */
static int merge_properties (json_t *items)
{
    json_t *first = NULL;
    size_t i = 0;

    while (i < json_array_size (items)) {
        json_t *item = json_array_get (items, i);
        json_t *values = json_object_get (item, "properties");

        if (!values || json_object_size (item) != 1) {
            i++;
        } else if (!first) {
            first = values;
            i++;
        } else {
            if (json_array_extend (first, values) < 0)
                return -1;
            json_array_remove (items, i);
        }
    }
    return 0;
}

/* Combine items (stolen) into one node: the single item, or {name: items}. */
static json_t *combine (struct parser *P, const char *name, json_t *items,
                        int maxdepth, int *depth)
{
    json_t *o;

    if (!strcmp (name, "and") && merge_properties (items) < 0) {
        json_decref (items);
        nomem (P);
        return NULL;
    }
    if (json_array_size (items) == 1) {
        o = json_incref (json_array_get (items, 0));
        json_decref (items);
        *depth = maxdepth;
        return o;
    }
    *depth = maxdepth + 1;
    return make_node (P, name, items, *depth);
}

static bool starts_unary (enum token tok)
{
    return tok == TOK_TERM || tok == TOK_NEG || tok == TOK_NOT
           || tok == TOK_LPAREN;
}

/* A list of operands joined by name (and: also by juxtaposition). */
static json_t *parse_list (struct parser *P, const char *name, enum token op,
                           json_t *(*operand) (struct parser *, int *),
                           int *depth)
{
    json_t *items = json_array ();
    int maxdepth = 0;

    if (!items) {
        nomem (P);
        return NULL;
    }
    for (;;) {
        int d = 0;
        json_t *item = operand (P, &d);

        if (!item)
            goto error;
        if (add_flat (items, item, d, name, &maxdepth) < 0) {
            nomem (P);
            goto error;
        }
        if (P->tok == op) {
            if (next (P) < 0)
                goto error;
        } else if (op != TOK_AND || !starts_unary (P->tok)) {
            break;
        }
    }
    return combine (P, name, items, maxdepth, depth);
error:
    json_decref (items);
    return NULL;
}

static json_t *parse_and (struct parser *P, int *depth)
{
    return parse_list (P, "and", TOK_AND, parse_unary, depth);
}

static json_t *parse_or (struct parser *P, int *depth)
{
    return parse_list (P, "or", TOK_OR, parse_and, depth);
}

json_t *rp_constraint_query_parse (const char *query, rp_error_t *error)
{
    struct parser P = { .q = query, .error = error };
    json_t *o;
    int depth;

    if (!query) {
        rp_error_set (error, EINVAL, "constraint query: no query");
        return NULL;
    }
    P.len = strlen (query);
    if (next (&P) < 0)
        return NULL;
    if (P.tok == TOK_END) {
        query_error (&P, EINVAL, "empty query");
        return NULL;
    }
    if (!(o = parse_or (&P, &depth)))
        return NULL;
    if (P.tok != TOK_END) {
        json_decref (o);
        parse_error (&P, P.off, "unexpected '%.*s'", (int)P.size, P.q + P.off);
        return NULL;
    }
    return o;
}
