/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Idsets by name; see core/namedsets.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/namedsets.h"

struct namedset *namedsets_find (const struct namedsets *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp (s->v[i].name, name))
            return &s->v[i];
    return NULL;
}

int namedsets_add (struct namedsets *s, const char *name,
                   const struct rp_idset *ids)
{
    struct namedset *e = namedsets_find (s, name);
    struct namedset *v;

    if (e)
        return rp_idset_add_set (e->ids, ids);
    if (!(v = realloc (s->v, (s->n + 1) * sizeof (*v))))
        return -1;
    s->v = v;
    e = &v[s->n];
    e->name = strdup (name);
    e->ids = rp_idset_copy (ids);
    if (!e->name || !e->ids) {
        free (e->name);
        rp_idset_destroy (e->ids);
        errno = ENOMEM;
        return -1;
    }
    s->n++;
    return 0;
}

void namedsets_delete (struct namedsets *s, size_t i)
{
    free (s->v[i].name);
    rp_idset_destroy (s->v[i].ids);
    s->v[i] = s->v[--s->n];
}

void namedsets_clear (struct namedsets *s)
{
    while (s->n > 0)
        namedsets_delete (s, s->n - 1);
    free (s->v);
    s->v = NULL;
}

int namedsets_to_json (const struct namedsets *s, json_t *o)
{
    for (size_t i = 0; i < s->n; i++) {
        json_t *had = json_object_get (o, s->v[i].name);
        struct rp_idset *u =
            rp_idset_decode (had ? json_string_value (had) : "", NULL);
        char *text = NULL;
        int rc =
            !u || rp_idset_add_set (u, s->v[i].ids) < 0
                    || !(text = rp_idset_encode (u, RP_IDSET_RANGES))
                    || json_object_set_new (o, s->v[i].name, json_string (text))
                           < 0
                ? -1
                : 0;
        free (text);
        rp_idset_destroy (u);
        if (rc < 0)
            return -1;
    }
    return 0;
}
