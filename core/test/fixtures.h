/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugins for the loader's unit tests (core/test/plugin.c,
 * core/test/config.c): a private temporary directory, and copies of the
 * fixture plugins where the loader accepts them.
 *
 * The loader refuses files below a directory others may write (a sticky
 * one such as /tmp passes when the entry below it is the user's), and the
 * build tree may be anywhere: the temporary directory is made in the first
 * of /tmp, the build tree and $HOME where a copy of the fixture "good"
 * loads, and the tests use the copies.
 */
#ifndef RESPOL_TEST_FIXTURES_H
#define RESPOL_TEST_FIXTURES_H

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "respol/config.h"
#include "t/tap/tap.h"

static const char *fixdir;     /* where the fixture plugins are */
static char fixcopy[PATH_MAX]; /* their copies, in tmpdir */
static char tmpdir[PATH_MAX];  /* the test's private directory */

/* Set fixdir and tmpdir; prefix names the directory ("respol-test-NAME"). */
static void fixtures_setup (const char *prefix)
{
    /* /tmp first: the loader's messages name these paths twice, and an
     * error text holds 255 bytes, so the shorter the better. */
    const char *bases[] = { "/tmp", getenv ("RESPOL_BUILDDIR"),
                            getenv ("HOME") };
    char cmd[4 * PATH_MAX];

    if (!(fixdir = getenv ("RESPOL_FIXTURE_PLUGINDIR")))
        BAIL_OUT ("RESPOL_FIXTURE_PLUGINDIR is not set (run with make "
                  "check)");
    for (size_t i = 0; i < sizeof (bases) / sizeof (bases[0]); i++) {
        struct rp_plugin *p;
        if (!bases[i])
            continue;
        snprintf (tmpdir, sizeof (tmpdir), "%s/%s-XXXXXX", bases[i], prefix);
        if (!mkdtemp (tmpdir))
            continue;
        snprintf (fixcopy, sizeof (fixcopy), "%s/fix", tmpdir);
        snprintf (cmd, sizeof (cmd), "mkdir -m 0755 '%s' && cp '%s'/*.so '%s'",
                  fixcopy, fixdir, fixcopy);
        if (system (cmd) != 0)
            BAIL_OUT ("%s failed", cmd);
        snprintf (cmd, sizeof (cmd), "%s/good.so", fixcopy);
        if ((p = rp_plugin_inspect (cmd, NULL))) {
            rp_plugin_destroy (p);
            fixdir = fixcopy;
            return;
        }
        snprintf (cmd, sizeof (cmd), "rm -rf '%s'", tmpdir);
        if (system (cmd) != 0)
            diag ("could not remove %s", tmpdir);
    }
    BAIL_OUT ("no directory where the loader accepts plugins (the build "
              "tree, $HOME)");
}

static void fixtures_cleanup (void)
{
    char cmd[2 * PATH_MAX];

    snprintf (cmd, sizeof (cmd), "rm -rf '%s'", tmpdir);
    if (system (cmd) != 0)
        diag ("could not remove %s", tmpdir);
}

#endif
