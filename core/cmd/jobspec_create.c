/* SPDX-License-Identifier: LGPL-3.0-or-later */
#include "cmd.h"
int cmd_jobspec_create (int argc, char **argv)
{
    cmd_die ("jobspec", "not implemented yet");
}
