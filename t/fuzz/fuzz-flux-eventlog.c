/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target: the import of a Flux resource event log
 * (rp_inventory_import_flux, respol/inventory.h).
 *
 * Each input is written to a scratch file and imported into an inventory
 * in memory of four targets, node[0-3] (ranks 0-3), with rank 3 excluded
 * and rank 1 drained beforehand.  The import succeeds or fails with
 * "PATH:LINE: ..." (or ENOMEM); a failure leaves the drain state as it
 * was.  After a success the counts add up (events read are at least those
 * used plus those ignored; drained is the size of the drained set), no
 * excluded target is drained, and a second import of the same file logs
 * nothing and changes nothing (the import is idempotent).  Any
 * disagreement calls abort() so libFuzzer keeps the input.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <respol/inventory.h>

#include "t/fuzz/eventlog-checks.h"

static const char R4[] =
    "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-3\","
    "\"children\":{\"core\":\"0-7\",\"gpu\":\"0-1\"}}],"
    "\"nodelist\":[\"node[0-3]\"],\"starttime\":0,\"expiration\":0}}";

static char path[4096];

static void scratch_write (const uint8_t *data, size_t size)
{
    char dir[4000];
    int fd;

    if (!path[0]) {
        snprintf (dir, sizeof (dir), "%s/.fuzz-flux-eventlog-XXXXXX",
                  getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp");
        check (mkdtemp (dir) != NULL);
        snprintf (path, sizeof (path), "%s/resource.eventlog", dir);
    }
    check ((fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) >= 0);
    check (size == 0 || write (fd, data, size) == (ssize_t)size);
    close (fd);
}

static struct rp_inventory *inventory (void)
{
    struct rp_rset *R = rp_rset_decode (R4, NULL);
    struct rp_idset *ex = rp_idset_decode ("3", NULL);
    struct rp_idset *one = rp_idset_decode ("1", NULL);
    struct rp_inventory *inv = NULL;

    check (R && ex && one);
    check ((inv = rp_inventory_create (R, ex, NULL)) != NULL);
    check (rp_inventory_drain (inv, one, "before", RP_DRAIN_DEFAULT, 5, NULL)
           == 0);
    rp_rset_destroy (R);
    rp_idset_destroy (ex);
    rp_idset_destroy (one);
    return inv;
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct rp_inventory *inv = inventory ();
    struct rp_flux_import st, st2;
    struct rp_idset *before;
    rp_error_t e;

    scratch_write (data, size);
    check ((before = rp_idset_copy (rp_inventory_drained (inv))) != NULL);
    if (rp_inventory_import_flux (inv, path, 10, NULL, &st, &e) < 0) {
        check (names_line (e.text, path) || errno == ENOMEM);
        check (rp_idset_equal (before, rp_inventory_drained (inv)));
        goto done;
    }
    check (st.used + st.ignored <= st.events);
    check (st.drained == rp_idset_count (rp_inventory_drained (inv)));
    check (!rp_idset_intersects (rp_inventory_drained (inv),
                                 rp_inventory_excluded (inv)));
    rp_idset_destroy (before);
    check ((before = rp_idset_copy (rp_inventory_drained (inv))) != NULL);
    check (rp_inventory_import_flux (inv, path, 11, NULL, &st2, &e) == 0);
    check (st2.logged == 0);
    check (rp_idset_equal (before, rp_inventory_drained (inv)));
done:
    rp_idset_destroy (before);
    rp_inventory_destroy (inv);
    return 0;
}
