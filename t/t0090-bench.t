#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='benchmarks run (--quick), print their table, and check their results

The numbers are not judged here (speed is measured by running the
benchmarks with make bench, never by a timed test); this only guards that
every benchmark still builds, runs and verifies what it times.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

BENCH="$RESPOL_BUILDDIR/bench"

test_expect_success 'bench-formats --quick prints its table' '
	"$BENCH/bench-formats" --quick >out &&
	grep "^| operation" out &&
	grep "idset decode+encode" out &&
	grep "hostlist find every host" out &&
	grep "R intersect" out
'
test_expect_success 'bench-formats rejects an unknown option (exit 2)' '
	test_expect_code 2 "$BENCH/bench-formats" --frobnicate
'
test_done
