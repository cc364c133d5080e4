/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Tests of unreadable files that also run as root (CI runs as root).
 *
 * File permission bits do not stop root: CAP_DAC_OVERRIDE and
 * CAP_DAC_READ_SEARCH bypass them.  privs_dac (false) clears both from
 * the effective set, keeping them in the permitted set, so that
 * privs_dac (true) brings them back; for an ordinary user both are
 * no-ops.  No libcap: the two system calls are all it takes.
 */
#ifndef RESPOL_TEST_PRIVS_H
#define RESPOL_TEST_PRIVS_H

#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline bool privs_dac (bool on)
{
    struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct d[2];
    const uint32_t bits =
        (1u << CAP_DAC_OVERRIDE) | (1u << CAP_DAC_READ_SEARCH);

    if (syscall (SYS_capget, &h, d) < 0)
        return false;
    if (on)
        d[0].effective |= bits & d[0].permitted;
    else
        d[0].effective &= ~bits;
    return syscall (SYS_capset, &h, d) == 0;
}

#endif
