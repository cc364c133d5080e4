/* SPDX-License-Identifier: LGPL-3.0-or-later */
/* All of respol's public interface. */
#ifndef RESPOL_RESPOL_H
#define RESPOL_RESPOL_H

#include <respol/acquire.h>
#include <respol/config.h>
#include <respol/constraint.h>
#include <respol/context.h>
#include <respol/diag.h>
#include <respol/document.h>
#include <respol/error.h>
#include <respol/eventlog.h>
#include <respol/hostlist.h>
#include <respol/idset.h>
#include <respol/instance.h>
#include <respol/inventory.h>
#include <respol/jobspec.h>
#include <respol/layout.h>
#include <respol/planner.h>
#include <respol/plugin.h>
#include <respol/range.h>
#include <respol/rset.h>
#include <respol/taskmap.h>
#include <respol/trace.h>

#endif
