/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target: the RFC 18 event log reader (respol/eventlog.h) and
 * the inventory's replay of it (rp_inventory_open, respol/inventory.h).
 *
 * Each input is written as the log of a scratch state directory.  The
 * reader reads it to the end: every event it returns must encode to a
 * line that rp_eventlog_check reads back with the same timestamp and name;
 * an error must name the file and a line ("PATH:LINE: ..."), and repeat
 * on the next call.  Then an inventory replays the same directory: it
 * succeeds or fails with "PATH:LINE: ..." (or a message about the
 * directory).  When it succeeds with resources defined, compacting the
 * log (rp_inventory_compact: a new file, renamed over) and replaying the
 * compacted log must give the same state: R, excluded, drained, down and
 * removed targets, and each drain's reason and time; and compacting that
 * again must write the same bytes (which also holds what no accessor
 * shows: which property plugin owns which property).  Any disagreement
 * calls abort() so libFuzzer keeps the input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <respol/eventlog.h>
#include <respol/inventory.h>

#include "t/fuzz/eventlog-checks.h"

static char dir[4096];
static char logpath[4200];

static void scratch_write (const uint8_t *data, size_t size)
{
    int fd;

    if (!dir[0]) {
        snprintf (dir, sizeof (dir), "%s/.fuzz-eventlog-XXXXXX",
                  getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp");
        check (mkdtemp (dir) != NULL);
        snprintf (logpath, sizeof (logpath), "%s/eventlog", dir);
    }
    /* Compaction renames a new file over the log: write a fresh one. */
    unlink (logpath);
    check ((fd = open (logpath, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0);
    check (size == 0 || write (fd, data, size) == (ssize_t)size);
    close (fd);
}

static void read_log (void)
{
    struct rp_eventlog *log;
    rp_error_t e, again;
    const json_t *ctx, *ctx2;
    const char *name, *name2;
    double ts, ts2;
    json_t *event;
    int rc;

    check ((log = rp_eventlog_open (logpath, &e)) != NULL);
    while ((rc = rp_eventlog_next (log, &ts, &name, &ctx, &e)) == 1) {
        char *line = rp_eventlog_encode (ts, name, ctx, NULL);
        check (line != NULL);
        check (rp_eventlog_check (line, strlen (line) - 1, &ts2, &name2, &ctx2,
                                  &event, NULL)
               == 0);
        check (ts2 == ts && !strcmp (name2, name));
        json_decref (event);
        free (line);
    }
    if (rc < 0) {
        check (names_line (e.text, logpath));
        check (rp_eventlog_next (log, &ts, &name, &ctx, &again) == -1);
        check (!strcmp (again.text, e.text));
    }
    rp_eventlog_destroy (log);
}

static bool same_drains (const struct rp_inventory *a,
                         const struct rp_inventory *b)
{
    const struct rp_idset *d = rp_inventory_drained (a);

    for (unsigned int r = rp_idset_first (d); r != RP_IDSET_INVALID_ID;
         r = rp_idset_next (d, r)) {
        const char *ra, *rb;
        double ta, tb;
        if (!rp_inventory_drain_info (a, r, &ta, &ra)
            || !rp_inventory_drain_info (b, r, &tb, &rb) || ta != tb
            || !ra != !rb || (ra && strcmp (ra, rb) != 0))
            return false;
    }
    return true;
}

static void check_same (const struct rp_inventory *a,
                        const struct rp_inventory *b)
{
    check (rp_rset_equal (rp_inventory_R (a), rp_inventory_R (b)));
    check (!strcmp (rp_inventory_method (a), rp_inventory_method (b)));
    check (
        rp_idset_equal (rp_inventory_excluded (a), rp_inventory_excluded (b)));
    check (rp_idset_equal (rp_inventory_drained (a), rp_inventory_drained (b)));
    check (rp_idset_equal (rp_inventory_down (a), rp_inventory_down (b)));
    check (rp_idset_equal (rp_inventory_removed (a), rp_inventory_removed (b)));
    check (same_drains (a, b) && same_drains (b, a));
}

/* The log's bytes (caller frees). */
static char *slurp (size_t *len)
{
    FILE *f = fopen (logpath, "r");
    char *buf = NULL;

    check (f != NULL);
    check (getdelim (&buf, len, '\0', f) >= 0 || feof (f));
    *len = ftell (f);
    fclose (f);
    return buf;
}

static void replay (void)
{
    struct rp_inventory *inv, *again;
    size_t n1 = 0, n2 = 0;
    char *once, *twice;
    rp_error_t e;

    if (!(inv = rp_inventory_open (dir, 0, NULL, &e))) {
        check (names_line (e.text, logpath) || errno == ENOMEM);
        return;
    }
    if (rp_inventory_R (inv)
        && rp_inventory_compact (inv, 1e9, NULL, NULL, &e) == 0) {
        check ((again = rp_inventory_open (dir, 0, NULL, &e)) != NULL);
        check_same (inv, again);
        once = slurp (&n1);
        check (rp_inventory_compact (again, 1e9, NULL, NULL, &e) == 0);
        twice = slurp (&n2);
        check (n1 == n2 && (n1 == 0 || !memcmp (once, twice, n1)));
        free (once);
        free (twice);
        rp_inventory_destroy (again);
    }
    rp_inventory_destroy (inv);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    scratch_write (data, size);
    read_log ();
    replay ();
    return 0;
}
