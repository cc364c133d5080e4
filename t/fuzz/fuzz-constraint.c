/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fuzz target for the constraint compiler (RFC 31) and the query parser
 * (RFC 35).
 *
 * Input whose first non-blank byte is '{' or '[' is JSON: when it loads,
 * it is compiled, and a compiled constraint is matched against a few
 * fixed targets (with and without host name and properties).  Any other
 * input is a query: when it parses, the result must compile (abort
 * otherwise) and is matched the same way.  Every failure must leave a
 * non-empty error text and errno set.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <respol/constraint.h>

static bool has_property (const char *name, void *arg)
{
    static const char *const props[] = { "ssd", "amd-mi50@gpu", "amd-mi50",
                                         "+local", "a" };
    for (size_t i = 0; i < sizeof (props) / sizeof (props[0]); i++)
        if (!strcmp (name, props[i]))
            return true;
    return false;
}

static void check_failure (const rp_error_t *error, const char *what)
{
    if (errno == 0 || error->text[0] == '\0') {
        fprintf (stderr, "%s failed without errno or text\n", what);
        abort ();
    }
}

static void match_all (const struct rp_constraint *c)
{
    static const char *const hosts[] = { "node0", "host1", "n16777215", NULL };

    for (size_t i = 0; i < sizeof (hosts) / sizeof (hosts[0]); i++) {
        (void)rp_constraint_match (c, (unsigned int)i * 3, hosts[i],
                                   has_property, NULL);
        (void)rp_constraint_match (c, 4294967294U, hosts[i], NULL, NULL);
    }
}

static void fuzz_json (const char *s, size_t size)
{
    json_t *o = json_loadb (s, size, JSON_DECODE_ANY, NULL);
    rp_error_t error = { .text = "" };
    struct rp_constraint *c;

    if (!o)
        return;
    errno = 0;
    if (!(c = rp_constraint_compile (o, &error)))
        check_failure (&error, "compile");
    match_all (c);
    rp_constraint_destroy (c);
    json_decref (o);
}

static void fuzz_query (const char *s)
{
    rp_error_t error = { .text = "" };
    struct rp_constraint *c;
    json_t *o;

    errno = 0;
    if (!(o = rp_constraint_query_parse (s, &error))) {
        check_failure (&error, "query parse");
        return;
    }
    if (!(c = rp_constraint_compile (o, &error))) {
        char *j = json_dumps (o, JSON_COMPACT);
        fprintf (stderr, "query \"%s\" gave %s which does not compile: %s\n", s,
                 j ? j : "?", error.text);
        abort ();
    }
    match_all (c);
    rp_constraint_destroy (c);
    json_decref (o);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    char *s = malloc (size + 1);
    size_t skip;

    if (!s)
        return 0;
    memcpy (s, data, size);
    s[size] = '\0';
    skip = strspn (s, " \t\r\n");
    if (s[skip] == '{' || s[skip] == '[')
        fuzz_json (s, size);
    else
        fuzz_query (s);
    free (s);
    return 0;
}
