/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target: the configuration reader (respol.yaml(5)).
 *
 * Each input is written to a scratch file and read with RP_CONFIG_NOLOAD:
 * the YAML reader and every check of the configuration run, but no plugin
 * is loaded (loading arbitrary paths named by the fuzzer would run their
 * constructors).  Invariants: a load either succeeds with no error in the
 * diagnostics, or fails with at least one; nothing crashes or leaks.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <respol/config.h>
#include <respol/diag.h>

/* The scratch file lives in a private directory under $HOME: the loader
 * refuses a configuration below a directory others can write, /tmp
 * included, and every input would be refused unread. */
static char path[4096];
static int fd = -1;

static int scratch_open (void)
{
    char dir[4000];

    snprintf (dir, sizeof (dir), "%s/.fuzz-config-XXXXXX",
              getenv ("HOME") ? getenv ("HOME") : ".");
    if (!mkdtemp (dir))
        return -1;
    snprintf (path, sizeof (path), "%s/respol.yaml", dir);
    return open (path, O_RDWR | O_CREAT | O_TRUNC, 0644);
}

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct rp_diags *diags;
    struct rp_config *cfg;

    if (fd < 0 && (fd = scratch_open ()) < 0)
        abort ();
    if (ftruncate (fd, 0) < 0 || pwrite (fd, data, size, 0) != (ssize_t)size)
        abort ();
    if (!(diags = rp_diags_create ()))
        abort ();
    cfg = rp_config_load (path, RP_CONFIG_NOLOAD, diags);
    if (cfg && rp_diags_errors (diags) > 0)
        abort ();
    if (!cfg && rp_diags_errors (diags) == 0)
        abort ();
    rp_config_destroy (cfg);
    rp_diags_destroy (diags);
    return 0;
}
