/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* placeholder until implemented */
extern const int respol_plugin;
const int respol_plugin = 0;
