/* SPDX-License-Identifier: LGPL-3.0-or-later */
#include "cmd.h"
int cmd_plugin (int argc, char **argv)
{
    cmd_die (argv[0], "not implemented yet");
}
