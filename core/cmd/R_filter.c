/* SPDX-License-Identifier: LGPL-3.0-or-later */
#include "cmd.h"
int cmd_R_filter (int argc, char **argv)
{
    cmd_die ("R", "not implemented yet");
}
