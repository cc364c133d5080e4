/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* libFuzzer target: the configuration reader (respol.yaml(5)).
 *
 * Each input is written to a scratch file and read with RP_CONFIG_NOLOAD:
 * the YAML reader and every check of the configuration run, but no plugin
 * is loaded (loading arbitrary paths named by the fuzzer would run their
 * constructors).  Invariants: a load either succeeds with no error in the
 * diagnostics, or fails with at least one; nothing crashes or leaks.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <respol/config.h>
#include <respol/diag.h>

static char path[] = "/tmp/fuzz-config-XXXXXX.yaml";
static int fd = -1;

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    struct rp_diags *diags;
    struct rp_config *cfg;

    if (fd < 0 && (fd = mkstemps (path, 5)) < 0)
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
