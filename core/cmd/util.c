/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Helpers shared by the respol subcommands; see cmd.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"

static void vwarn (const char *sub, const char *fmt, va_list ap)
{
    fprintf (stderr, "respol: %s: ", sub);
    vfprintf (stderr, fmt, ap);
    fputc ('\n', stderr);
}

void cmd_warn (const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vwarn (sub, fmt, ap);
    va_end (ap);
}

void cmd_die (const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vwarn (sub, fmt, ap);
    va_end (ap);
    exit (EXIT_INPUT);
}

void cmd_usage_error (const char *sub, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vwarn (sub, fmt, ap);
    va_end (ap);
    fprintf (stderr, "Try 'respol %s --help' for more information.\n", sub);
    exit (EXIT_USAGE);
}

char *cmd_read_all (const char *sub, FILE *stream, size_t *lenp)
{
    size_t size = 8192;
    size_t len = 0;
    char *buf = malloc (size);

    if (!buf)
        cmd_die (sub, "out of memory");
    for (;;) {
        size_t n = fread (buf + len, 1, size - len - 1, stream);
        len += n;
        if (n == 0)
            break;
        if (len + 1 == size) {
            if (size >= CMD_INPUT_MAX)
                cmd_die (sub, "input is larger than %zu bytes", CMD_INPUT_MAX);
            size *= 2;
            char *nbuf = realloc (buf, size);
            if (!nbuf)
                cmd_die (sub, "out of memory");
            buf = nbuf;
        }
    }
    if (ferror (stream))
        cmd_die (sub, "read error: %s", strerror (errno));
    buf[len] = '\0';
    if (lenp)
        *lenp = len;
    return buf;
}

json_t *cmd_read_json_stream (const char *sub, FILE *stream)
{
    size_t len;
    char *buf = cmd_read_all (sub, stream, &len);
    json_t *array = json_array ();
    size_t off = 0;

    if (!array)
        cmd_die (sub, "out of memory");
    for (;;) {
        json_error_t jerr;
        json_t *o;

        while (off < len && strchr (" \t\r\n", buf[off]))
            off++;
        if (off == len)
            break;
        o = json_loadb (buf + off, len - off, JSON_DISABLE_EOF_CHECK, &jerr);
        if (!o) {
            /* jansson's line is relative to buf + off: report the absolute
             * line by counting the newlines we skipped. */
            int line = jerr.line;
            for (size_t i = 0; i < off; i++)
                if (buf[i] == '\n')
                    line++;
            cmd_die (sub, "stdin: line %d: %s", line, jerr.text);
        }
        json_array_append_new (array, o);
        off += jerr.position;
    }
    free (buf);
    return array;
}

void cmd_print_json (const json_t *o)
{
    char *s = json_dumps (o, JSON_SORT_KEYS | JSON_COMPACT | JSON_ENCODE_ANY);
    if (!s)
        cmd_die ("json", "out of memory");
    printf ("%s\n", s);
    free (s);
}
