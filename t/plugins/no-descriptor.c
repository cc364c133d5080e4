/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* Fixture plugin "no-descriptor": a shared object that exports a symbol,
 * but not respol_plugin. */
#include <respol/plugin.h>

RP_PLUGIN_EXPORT const int respol_plugin_descriptor = 1;
