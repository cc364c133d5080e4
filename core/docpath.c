/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Where a value is in a document, for messages.  See core/docpath.h.
 *
 * The position of a member is the position of its value (of its key when
 * l->at_key, for an unknown key, which is wrong wherever its value is); of
 * an array element, the element's; of the root, the root value's.
 */
#include <stdio.h>
#include <string.h>

#include "core/docpath.h"

struct loc at_key (const struct loc *up, const char *key)
{
    return (struct loc){ .up = up,
                         .container = up->v,
                         .key = key,
                         .v = json_object_get (up->v, key) };
}

struct loc at_index (const struct loc *up, size_t i)
{
    return (struct loc){
        .up = up, .container = up->v, .index = i, .v = json_array_get (up->v, i)
    };
}

struct loc at_iter (const struct loc *up, void *it)
{
    return (struct loc){ .up = up,
                         .container = up->v,
                         .key = json_object_iter_key (it),
                         .v = json_object_iter_value (it) };
}

bool in_list (const char *s, const char *const *list)
{
    for (; *list; list++) {
        if (!strcmp (s, *list))
            return true;
    }
    return false;
}

const char *docpath_show (const char *s, char buf[DOCPATH_SHOW_MAX + 4])
{
    size_t len = strnlen (s, DOCPATH_SHOW_MAX + 1);
    size_t n = len > DOCPATH_SHOW_MAX ? DOCPATH_SHOW_MAX : len;

    for (size_t i = 0; i < n; i++) {
        unsigned char c = s[i];
        buf[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    strcpy (buf + n, len > DOCPATH_SHOW_MAX ? "..." : "");
    return buf;
}

static bool simple_key (const char *key)
{
    if (!*key)
        return false;
    for (const char *p = key; *p; p++) {
        if (!strchr ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                     "0123456789_-",
                     *p))
            return false;
    }
    return true;
}

static void path_append (const struct loc *l, char *buf, size_t size)
{
    size_t len;
    char shown[DOCPATH_SHOW_MAX + 4];

    if (!l || !l->container)
        return;
    path_append (l->up, buf, size);
    len = strlen (buf);
    if (json_is_array (l->container))
        snprintf (buf + len, size - len, "[%zu]", l->index);
    else if (simple_key (l->key))
        snprintf (buf + len, size - len, "%s%s", len ? "." : "", l->key);
    else
        snprintf (buf + len, size - len, "[\"%s\"]",
                  docpath_show (l->key, shown));
}

static bool position (const struct rp_doc *doc, const struct loc *l, int *line,
                      int *col)
{
    if (!doc)
        return false;
    if (!l->container)
        return rp_doc_position (doc, l->v, line, col);
    if (json_is_array (l->container))
        return rp_doc_index_position (doc, l->container, l->index, line, col);
    if (l->at_key)
        return rp_doc_key_name_position (doc, l->container, l->key, line, col);
    return rp_doc_key_position (doc, l->container, l->key, line, col);
}

void docpath_describe (const struct rp_doc *doc, const struct loc *l,
                       char *path, size_t size, char where[DOCPATH_WHERE_SIZE])
{
    int line, col;

    path[0] = '\0';
    where[0] = '\0';
    path_append (l, path, size);
    if (position (doc, l, &line, &col))
        snprintf (where, DOCPATH_WHERE_SIZE, ":%d:%d", line, col);
}
