/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* A string-keyed hash map; see core/strmap.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/strmap.h"

struct slot {
    char *key;   /* NULL: empty, or a tombstone when value is TOMB */
    void *value;
};

static char tomb;
#define TOMB ((void *)&tomb)

struct strmap {
    struct slot *slots;
    size_t size;  /* a power of two */
    size_t count; /* live entries */
    size_t used;  /* live entries and tombstones */
};

static uint64_t hash (const char *s)
{
    uint64_t h = 1469598103934665603ULL;

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

struct strmap *strmap_create (void)
{
    struct strmap *m = calloc (1, sizeof (*m));

    if (m && !(m->slots = calloc (m->size = 16, sizeof (struct slot)))) {
        free (m);
        return NULL;
    }
    return m;
}

void strmap_destroy (struct strmap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->size; i++)
        free (m->slots[i].key);
    free (m->slots);
    free (m);
}

/* The slot of key, or NULL. */
static struct slot *find (const struct strmap *m, const char *key)
{
    size_t mask = m->size - 1;

    for (size_t i = hash (key) & mask;; i = (i + 1) & mask) {
        struct slot *s = &m->slots[i];
        if (!s->key && s->value != TOMB)
            return NULL;
        if (s->key && !strcmp (s->key, key))
            return s;
    }
}

void *strmap_get (const struct strmap *m, const char *key)
{
    struct slot *s = m && key ? find (m, key) : NULL;

    return s ? s->value : NULL;
}

/* Put a key already copied (and known to be absent) into a table known to
 * have room: in the first empty slot or tombstone of its probe sequence.
 * Returns whether it took an empty slot. */
static bool place (struct slot *slots, size_t size, char *key, void *value)
{
    size_t mask = size - 1;
    size_t i = hash (key) & mask;
    bool empty;

    while (slots[i].key)
        i = (i + 1) & mask;
    empty = slots[i].value != TOMB;
    slots[i].key = key;
    slots[i].value = value;
    return empty;
}

static int grow (struct strmap *m)
{
    size_t size = m->count * 4 > m->size ? m->size * 2 : m->size;
    struct slot *slots = calloc (size, sizeof (struct slot));

    if (!slots)
        return -1;
    for (size_t i = 0; i < m->size; i++)
        if (m->slots[i].key)
            place (slots, size, m->slots[i].key, m->slots[i].value);
    free (m->slots);
    m->slots = slots;
    m->size = size;
    m->used = m->count;
    return 0;
}

int strmap_put (struct strmap *m, const char *key, void *value)
{
    struct slot *s;
    char *copy;

    if (!m || !key || !value) {
        errno = EINVAL;
        return -1;
    }
    if ((s = find (m, key))) {
        s->value = value;
        return 0;
    }
    if ((m->used + 1) * 2 > m->size && grow (m) < 0)
        return -1;
    if (!(copy = strdup (key)))
        return -1;
    if (place (m->slots, m->size, copy, value))
        m->used++;
    m->count++;
    return 0;
}

void *strmap_remove (struct strmap *m, const char *key)
{
    struct slot *s = m && key ? find (m, key) : NULL;
    void *value;

    if (!s)
        return NULL;
    value = s->value;
    free (s->key);
    s->key = NULL;
    s->value = TOMB;
    m->count--;
    return value;
}

size_t strmap_count (const struct strmap *m)
{
    return m ? m->count : 0;
}

void strmap_each (const struct strmap *m, void (*fn) (void *value, void *arg),
                  void *arg)
{
    for (size_t i = 0; m && i < m->size; i++)
        if (m->slots[i].key)
            fn (m->slots[i].value, arg);
}
