/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Unit tests for core/suggest.c: a table of words against name lists
 * (each edit, the distance and length limits, ties by order and within a
 * group by name, lengths), and the hint's text.
 */
#include <string.h>

#include "core/suggest.h"
#include "t/tap/tap.h"

#define LONG64                                                                 \
    "a123456789012345678901234567890123456789012345678901234567890123"

struct suggest_case {
    const char *what;
    const char *word;
    const char *names[6]; /* NULL-terminated, group 0 */
    const char *want;     /* NULL: no suggestion */
};

/* clang-format off */
static const struct suggest_case cases[] = {
    { "a transposition", "valdiate", { "match", "validate", NULL }, "validate" },
    { "a deletion", "plugn", { "name", "plugin", "config", NULL }, "plugin" },
    { "an insertion", "configg", { "config", NULL }, "config" },
    { "a substitution", "jsan", { "json", NULL }, "json" },
    { "two edits", "mx-nodez", { "max-nodes", NULL }, "max-nodes" },
    { "three edits are too many", "mx-ndez", { "max-nodes", NULL }, NULL },
    { "a transposition and a deletion", "lmiit", { "limits", NULL }, "limits" },
    { "1 edit in a word of 2 is half its length", "ab", { "abc", NULL }, NULL },
    { "1 edit in a word of 3", "jsn", { "json", NULL }, "json" },
    { "2 edits in a word of 4 is half its length", "abcd", { "abef", NULL },
      NULL },
    { "2 edits in a word of 5", "abcde", { "abcfg", NULL }, "abcfg" },
    { "a one-letter word", "x", { "h", "xy", NULL }, NULL },
    { "the closest wins", "sprad", { "shred", "spread", NULL }, "spread" },
    { "a tie goes to the first offered", "fist", { "first", "fast", NULL },
      "first" },
    { "the same tie, the other order", "fist", { "fast", "first", NULL },
      "fast" },
    { "the word itself is not a suggestion", "high", { "high", NULL }, NULL },
    { "case counts as an edit", "Match", { "match", NULL }, "match" },
    { "no names", "anything", { NULL }, NULL },
    { "an empty word", "", { "a", NULL }, NULL },
    { "a name of 64 bytes", LONG64 "x", { LONG64, NULL }, LONG64 },
    { "a name of 65 bytes is never compared", LONG64, { LONG64 "x", NULL },
      NULL },
    { "a long word is never compared",
      LONG64 LONG64, { LONG64, NULL }, NULL },
};

static void test_table (void)
{
    for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
        const struct suggest_case *t = &cases[i];
        struct suggest s;
        const char *got;

        suggest_init (&s, t->word);
        for (size_t j = 0; t->names[j]; j++)
            suggest_add (&s, t->names[j], strlen (t->names[j]), 0);
        got = suggest_best (&s);
        if (t->want)
            is (got, t->want, "%s: '%s' suggests '%s'", t->what, t->word,
                t->want);
        else
            ok (got == NULL, "%s: '%s' gets no suggestion", t->what, t->word);
    }
}

/* Names with a suffix, as directory entries are offered. */
static void test_length (void)
{
    struct suggest s;

    suggest_init (&s, "limts");
    suggest_add (&s, "limits.so", 6, 1);
    is (suggest_best (&s), "limits", "a name is offered by its first len bytes");
}

/* Within a group, equally close names are taken in name order, whatever
 * the order they come in; between groups, the earlier group wins. */
struct group_case {
    const char *what;
    const char *word;
    struct {
        const char *name;
        unsigned group;
    } names[4]; /* up to a NULL name */
    const char *want;
};

/* clang-format off */
static const struct group_case group_cases[] = {
    { "ties in a group: the name that sorts first", "pak",
      { { "pac", 1 }, { "pa", 1 }, { "pack", 1 } }, "pa" },
    { "ties in a group: the same, in another order", "pak",
      { { "pack", 1 }, { "pa", 1 } }, "pa" },
    { "ties between groups: the earlier group", "pak",
      { { "pack", 1 }, { "pac", 2 } }, "pack" },
    { "no group: the first offered", "pak",
      { { "pack", 0 }, { "pac", 0 } }, "pack" },
    { "a closer name in a later group wins", "abcdef",
      { { "abcxyf", 1 }, { "abcdeg", 2 } }, "abcdeg" },
};
/* clang-format on */

static void test_groups (void)
{
    for (size_t i = 0; i < sizeof (group_cases) / sizeof (group_cases[0]);
         i++) {
        const struct group_case *t = &group_cases[i];
        struct suggest s;

        suggest_init (&s, t->word);
        for (size_t j = 0; j < 4 && t->names[j].name; j++)
            suggest_add (&s, t->names[j].name, strlen (t->names[j].name),
                         t->names[j].group);
        is (suggest_best (&s), t->want, "%s", t->what);
    }
}

static void test_hint (void)
{
    struct suggest s;
    char buf[64];

    suggest_init (&s, "jsno");
    suggest_add (&s, "json", 4, 0);
    is (suggest_hint (&s, "--", buf, sizeof (buf)), "; did you mean '--json'?",
        "the hint names the suggestion");
    suggest_init (&s, "zzzz");
    suggest_add (&s, "json", 4, 0);
    is (suggest_hint (&s, "--", buf, sizeof (buf)), "",
        "no suggestion: an empty hint");
}

int main (void)
{
    plan (NO_PLAN);
    test_table ();
    test_length ();
    test_groups ();
    test_hint ();
    done_testing ();
}
