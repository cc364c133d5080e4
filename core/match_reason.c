/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Why a match came out as it did: the reason of a failure ("needs 5
 * nodes with 2 GPUs each, 3 are free") and the explanation of
 * rp_matcher_set_explain.
 *
 * Decisions:
 * - Reasons name the top-level request, with counts of the minimum ("at
 *   least N" for a range) and what was found: "the resource set has N" /
 *   "N are free" for vertices, "N fit" / "N fit now" for slots.  Types
 *   without a word of their own get a generic English plural ("2
 *   clusters", "3 switches", "2 batteries").
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/match_private.h"

/* --- reasons -------------------------------------------------------------- */

struct text {
    char *buf;
    size_t size;
    size_t len;
};

static void text_add (struct text *t, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

static void text_add (struct text *t, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (t->len >= t->size)
        return;
    va_start (ap, fmt);
    n = vsnprintf (t->buf + t->len, t->size - t->len, fmt, ap);
    va_end (ap);
    if (n > 0)
        t->len += (size_t)n;
}

/* A generic English plural of word in buf: +es after s, x, z, ch and sh,
 * consonant + y -> ies, else +s. */
static const char *plural (const char *word, char *buf, size_t size)
{
    size_t n = strlen (word);
    const char *end = n ? word + n - 1 : word;
    const char *suffix = "s";

    if (n && strchr ("sxz", *end))
        suffix = "es";
    else if (n >= 2 && (*end == 'h') && strchr ("cs", end[-1]))
        suffix = "es";
    else if (n >= 2 && *end == 'y' && !strchr ("aeiou", end[-1])) {
        snprintf (buf, size, "%.*sies", (int)(n - 1), word);
        return buf;
    }
    snprintf (buf, size, "%s%s", word, suffix);
    return buf;
}

/* The word for n vertices of type; buf holds a generic plural. */
const char *match_type_word (const char *type, uint64_t n, char *buf,
                             size_t size)
{
    static const struct {
        const char *type, *one, *many;
    } words[] = {
        { "node", "node", "nodes" }, { "core", "core", "cores" },
        { "gpu", "GPU", "GPUs" },    { "socket", "socket", "sockets" },
        { "slot", "slot", "slots" }, { "rack", "rack", "racks" },
    };

    for (size_t i = 0; i < sizeof (words) / sizeof (words[0]); i++)
        if (strcmp (type, words[i].type) == 0)
            return n == 1 ? words[i].one : words[i].many;
    return n == 1 ? type : plural (type, buf, size);
}

bool match_count_fixed (const struct req *q)
{
    return q->min == q->max;
}

static void describe (struct text *t, const struct req *q)
{
    const char *sep = q->slot ? " of " : " with ";
    char word[RP_ERROR_TEXT_SIZE];

    text_add (t, "%s%ju", match_count_fixed (q) ? "" : "at least ",
              (uintmax_t)q->min);
    if (q->pool && *q->unit)
        text_add (t, " %s of %s", q->unit, q->type);
    else
        text_add (t, " %s",
                  match_type_word (q->type, q->min, word, sizeof (word)));
    for (const struct req *c = q->child; c; c = c->next) {
        text_add (t, "%s", sep);
        describe (t, c);
        sep = " and ";
    }
}

/* "; policy 'P' pruned N of M TYPEs" for each type the policy pruned
 * in this run: it may be why the match failed. */
static void pruned_add (const struct rp_match *x, struct text *t)
{
    for (size_t k = 0; x->p && k < x->m->ntypes; k++) {
        char word[RP_ERROR_TEXT_SIZE];
        uint64_t all;
        if (x->pruned[k] == 0)
            continue;
        all = rp_graph_subtree_total (x->g, rp_graph_root (x->g), (int)k);
        text_add (t, "; policy '%s' pruned %ju of %ju %s", x->p->instance,
                  (uintmax_t)x->pruned[k], (uintmax_t)all,
                  match_type_word (rp_graph_type_name (x->g, (int)k), all, word,
                                   sizeof (word)));
    }
}

/* Why x->failed did not fit, busy: on the live state. */
void match_reason (const struct rp_match *x, bool busy, char *buf, size_t size)
{
    struct text t = { .buf = buf, .size = size };
    const struct req *q = x->failed;
    uint64_t n = x->failed_found;
    const char *cons = x->failed_filtered ? " matching the constraints" : "";
    const char *unit = q->pool && *q->unit ? q->unit : NULL;

    buf[0] = '\0';
    text_add (&t, "needs ");
    describe (&t, q);
    if (q->child && (q->min != 1 || !match_count_fixed (q)))
        text_add (&t, " each");
    if (q->slot)
        text_add (&t, ", %ju %s%s%s", (uintmax_t)n, n == 1 ? "fits" : "fit",
                  cons, busy ? " now" : "");
    else if (!busy)
        text_add (&t, ", the resource set has %ju%s%s%s", (uintmax_t)n,
                  unit ? " " : "", unit ? unit : "", cons);
    else
        text_add (&t, ", %ju%s%s%s %s free", (uintmax_t)n, unit ? " " : "",
                  unit ? unit : "", cons, n == 1 ? "is" : "are");
    pruned_add (x, &t);
}

/* --- the explanation (rp_matcher_set_explain) ------------------------------
 */

/* q's type after those of the requests above it: "node/slot/core". */
static void req_label (const struct req *q, char *buf, size_t size)
{
    char rest[RP_ERROR_TEXT_SIZE];

    if (!q->parent) {
        snprintf (buf, size, "%s", q->type);
        return;
    }
    req_label (q->parent, rest, sizeof (rest));
    snprintf (buf, size, "%s/%s", rest, q->type);
}

static json_t *top_json (const struct rp_match *x, const struct req *q)
{
    json_t *a = json_array ();

    for (size_t i = 0; a && i < q->st.ntop; i++)
        if (json_array_append_new (
                a, json_pack ("{s:s s:I}", "vertex",
                              rp_graph_vertex_name (x->g, q->st.top[i].v),
                              "score", (json_int_t)q->st.top[i].score))
            < 0) {
            json_decref (a);
            return NULL;
        }
    return a;
}

static json_t *req_json (const struct rp_match *x, const struct req *q)
{
    char label[RP_ERROR_TEXT_SIZE], count[64];
    const struct req_stats *st = &q->st;

    req_label (q, label, sizeof (label));
    if (match_count_fixed (q))
        snprintf (count, sizeof (count), "%ju", (uintmax_t)q->min);
    else if (q->max == UINT64_MAX)
        snprintf (count, sizeof (count), "%ju+", (uintmax_t)q->min);
    else
        snprintf (count, sizeof (count), "%ju-%ju", (uintmax_t)q->min,
                  (uintmax_t)q->max);
    json_t *o;

    o = json_pack ("{s:s s:s s:I s:I s:I s:I s:I s:I s:I s:o}", "request",
                   label, "count", count, "considered",
                   (json_int_t)st->considered, "taken", (json_int_t)st->taken,
                   "busy", (json_int_t)st->busy, "constraint",
                   (json_int_t)st->constraint, "id", (json_int_t)st->id,
                   "no_fit", (json_int_t)st->nofit, "pruned",
                   (json_int_t)st->pruned, "top", top_json (x, q));
    if (o && !q->slot && q->t >= 0
        && json_object_set_new (
               o, "in_graph",
               json_integer ((json_int_t)rp_graph_subtree_total (
                   x->g, rp_graph_root (x->g), q->t)))
               < 0) {
        json_decref (o);
        return NULL;
    }
    return o;
}

/* The explanation of this run, outcome (and reason) as the caller says;
 * NULL for lack of memory. */
json_t *match_explain_json (const struct rp_match *x, const char *outcome,
                            const char *why)
{
    json_t *o = json_pack ("{s:s s:s s:[] s:{}}", "policy",
                           rp_matcher_policy_name (x->m), "outcome", outcome,
                           "requests", "pruned");

    if (!o || (why && json_object_set_new (o, "reason", json_string (why)) < 0))
        goto nomem;
    for (size_t i = 0; i < x->nreqs; i++)
        if (json_array_append_new (json_object_get (o, "requests"),
                                   req_json (x, &x->all[i]))
            < 0)
            goto nomem;
    for (size_t k = 0; k < x->m->ntypes; k++)
        if (x->pruned[k]
            && json_object_set_new (json_object_get (o, "pruned"),
                                    rp_graph_type_name (x->g, (int)k),
                                    json_integer ((json_int_t)x->pruned[k]))
                   < 0)
            goto nomem;
    return o;
nomem:
    json_decref (o);
    return NULL;
}

/* Keep o (taken) as the matcher's explanation. */
void match_explain_keep (struct rp_matcher *m, json_t *o)
{
    json_decref (m->explanation);
    m->explanation = o;
}

void match_explain_run (struct rp_match *x, const char *outcome,
                        const char *why)
{
    if (x->m->explain)
        match_explain_keep (x->m, match_explain_json (x, outcome, why));
}

void rp_matcher_set_explain (struct rp_matcher *m, bool on)
{
    if (m) {
        m->explain = on;
        if (!on)
            match_explain_keep (m, NULL);
    }
}

json_t *rp_matcher_explanation (const struct rp_matcher *m)
{
    return m ? json_incref (m->explanation) : NULL;
}
