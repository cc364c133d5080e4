#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='an MPICH program wires up through the PMI-1 server

shell/test/pmi-run starts N copies of a program under the PMI-1 server of
shell/pmi.c; MPICH (Debian: mpich and libmpich-dev) builds
shell/test/mpi-hello.c, whose ranks add 1 each in an MPI_Allreduce, so one
job of N ranks says "N answered" and N singletons would say "1".  Skipped
where MPICH is not installed.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

PMI_RUN="$RESPOL_BUILDDIR/shell/test/pmi-run"
MPICC=$(command -v mpicc.mpich || true)
if test -z "$MPICC"; then
	skip_all='MPICH not found (apt-get install mpich libmpich-dev)'
	test_done
fi

test_expect_success 'build the MPI hello world with MPICH' '
	"$MPICC" -o hello "$RESPOL_SRCDIR/shell/test/mpi-hello.c"
'
for n in 1 2 4; do
	test_expect_success "pmi-run -n $n: $n ranks of one job" '
		timeout 120 "$PMI_RUN" -n '$n' ./hello >out &&
		sort out >got &&
		for r in $(seq 0 $(('$n' - 1))); do
			echo "hello from rank $r of '$n' ('$n' answered)" || return 1
		done >expected &&
		test_cmp expected got
	'
done
test_expect_success 'MPI_Abort reaches the server: its exit code, the rank named' '
	test_expect_code 5 timeout 120 "$PMI_RUN" -n 2 ./hello abort 2>err &&
	grep "^pmi-run: rank 1 aborted with exit code 5$" err
'
test_done
