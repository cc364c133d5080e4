/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* The jobspec the tests of the matcher in time ask with (core/test/
 * match_time.c, match_time_random.c): count slots of one `what` (a whole
 * node, or one core of a shared node), for duration seconds (<= 0: no
 * duration).  Bails out when it does not load.
 */
#ifndef RESPOL_TEST_SLOTS_H
#define RESPOL_TEST_SLOTS_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "respol/jobspec.h"
#include "t/tap/tap.h"

static struct rp_jobspec *js_slots (const char *what, int count,
                                    int64_t duration)
{
    char buf[1024], attr[64];
    struct rp_jobspec *js;

    if (duration > 0)
        snprintf (attr, sizeof (attr), "duration: %" PRId64, duration);
    else
        snprintf (attr, sizeof (attr), "cwd: /tmp");
    snprintf (buf, sizeof (buf),
              "version: 1\nresources:\n  - type: slot\n    label: s\n"
              "    count: %d\n    with:\n      - type: %s\n        count: 1\n"
              "tasks:\n  - command: [app]\n    slot: s\n"
              "    count: {per_slot: 1}\n"
              "attributes:\n  system:\n    %s\n",
              count, what, attr);
    if (!(js = rp_jobspec_load (buf, strlen (buf), "t.yaml",
                                RP_JOBSPEC_CANONICAL, NULL)))
        BAIL_OUT ("jobspec does not load:\n%s", buf);
    return js;
}

#endif
