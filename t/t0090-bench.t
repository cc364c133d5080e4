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
test_expect_success 'bench-jobspec --quick prints its table' '
	"$BENCH/bench-jobspec" --quick >out &&
	grep "^| " out &&
	grep -i "1 MiB" out
'
test_expect_success 'bench-plugin --quick prints its table' '
	"$BENCH/bench-plugin" --quick >out &&
	grep "validator stack of 10" out &&
	grep "one plugin call through the stack" out &&
	grep "load, init, fini and unload a stack of 10 plugins" out
'
test_expect_success 'bench-plugin fails clearly on a missing plugin' '
	test_expect_code 1 "$BENCH/bench-plugin" --quick --plugin=/nonexistent.so 2>err &&
	grep "^bench-plugin: cannot copy /nonexistent.so" err
'
test_expect_success 'bench-match --quick prints its tables' '
	"$BENCH/bench-match" --quick >out &&
	grep "^| nodes | vertices | build" out &&
	grep "^| 32 | first | slot4 |" out &&
	grep "^| 32 | first | node-x |" out &&
	grep "^| 32 | first | 2n-4g |" out &&
	grep "^| first | slot4 |" out &&
	for p in low high pack spread locality; do
		grep "^| 32 | $p | slot4 |" out || return 1
	done
'
test_expect_success 'bench-match --quick times the query path of every policy' '
	grep "^| nodes | policy | respol load (ms) | respol us/command" out &&
	for p in first low high pack spread locality; do
		grep "^| 32 | $p | [0-9.]* | -\{0,1\}[0-9.]* | [0-9.]* |" out ||
			return 1
	done
'
test_expect_success 'bench-match --quick times the reserve path, checked' '
	grep "^| nodes | records | reservations | us/record (fill) | us/allocate-orelse-reserve | us/cancel |" out &&
	grep "^| 64 | 100 | [0-9]* | [0-9.]* | [0-9.]* | [0-9.]* |" out &&
	grep "^| 64 | 400 | [0-9]* | [0-9.]* | [0-9.]* | [0-9.]* |" out &&
	"$BENCH/bench-match" --quick --reserve-only >out2 &&
	test $(grep -c "^| 64 |" out2) = 2 &&
	"$BENCH/bench-match" --quick --no-reserve --no-query --policy=first >out3 &&
	! grep "^| nodes | records" out3
'
test_expect_success 'bench-match says when Fluxion is not given' '
	RESPOL_RESOURCE_QUERY= "$BENCH/bench-match" --quick --policy=first \
		--query-sizes=8 >out &&
	grep "^Fluxion.s resource-query: not given" out &&
	grep "^| 8 | first | .* | - | - | - | - |\$" out
'
# The stand-in's cost per command is a few microseconds of shell: on a
# loaded machine its difference from the baseline may come out below 0.
test_expect_success 'bench-match runs a stand-in for resource-query and checks its R' '
	cat >rq <<-\EOF &&
	#!/bin/sh
	# answers every allocate with one R in the file of -t
	while [ $# -gt 0 ]; do
		[ "$1" = -t ] && out=$2
		shift
	done
	: >"$out"
	while read -r cmd rest; do
		[ "$cmd" = match ] && echo "{\"R_lite\": []}" >>"$out"
	done
	exit 0
	EOF
	chmod +x rq &&
	"$BENCH/bench-match" --quick --policy=low --query-sizes=8 \
		--resource-query="$PWD/rq" >out &&
	grep "^| 8 | low | .* | -\{0,1\}[0-9.]*x |\$" out
'
test_expect_success 'bench-match refuses a resource-query that allocates nothing' '
	printf "#!/bin/sh\ncat >/dev/null\n" >rq0 &&
	chmod +x rq0 &&
	test_expect_code 1 "$BENCH/bench-match" --quick --policy=first \
		--query-sizes=8 --resource-query="$PWD/rq0" 2>err &&
	grep "^bench-match: .*/rq0 -P first: 0 of 11 commands allocated" err
'
test_expect_success 'bench-match refuses more commands than the cluster holds' '
	test_expect_code 1 "$BENCH/bench-match" --quick --policy=first \
		--query-sizes=2 --commands=33 2>err &&
	grep "^bench-match: --commands=33: more than the 32 slots of 4 cores of 2 nodes" err
'
test_expect_success 'bench-match names a respol or resource-query it cannot run' '
	test_expect_code 1 "$BENCH/bench-match" --quick --policy=first \
		--respol=/nonexistent 2>err &&
	grep "^bench-match: --respol: /nonexistent: No such file or directory" err &&
	test_expect_code 1 "$BENCH/bench-match" --quick --policy=first \
		--resource-query=/nonexistent 2>err &&
	grep "^bench-match: --resource-query: /nonexistent: No such file" err
'
test_expect_success 'bench-match rejects bad --query-sizes and --commands' '
	test_expect_code 1 "$BENCH/bench-match" --query-sizes=1 2>err &&
	grep "^bench-match: --query-sizes: not up to 8 node counts >= 2: 1" err &&
	test_expect_code 1 "$BENCH/bench-match" --commands=0 2>err &&
	grep "^bench-match: --commands: not a positive number: 0" err
'
test_expect_success 'bench-match rejects a bad --budget (exit 1)' '
	test_expect_code 1 "$BENCH/bench-match" --budget=-1 2>err &&
	grep "^bench-match: --budget: not a positive number: -1" err
'
test_expect_success 'match-trace prints every step of every policy' '
	"$BENCH/match-trace" --seed=3 --clusters=1 --steps=30 >out &&
	for p in first low high pack spread locality; do
		grep "^policy $p\$" out || return 1
	done &&
	grep "^cluster nodes=" out &&
	grep "^alloc [0-9]*: {\"execution\"" out
'
test_expect_success 'compare-match finds a build the same as itself' '
	CFLAGS="$RESPOL_SANITIZERS" \
	"$RESPOL_SRCDIR/scripts/compare-match" --seeds=1 --clusters=1 --steps=20 \
		"$RESPOL_BUILDDIR" "$RESPOL_BUILDDIR" >out &&
	grep "^seed 1 pack: same" out
'
test_expect_success 'compare-match needs a built tree' '
	test_expect_code 1 "$RESPOL_SRCDIR/scripts/compare-match" "$PWD" 2>err &&
	grep "no core/.libs/librespol.so (build it first)" err
'
test_expect_success 'compare-reserve times respol alone when no resource-query is given' '
	RESPOL_RESOURCE_QUERY= "$RESPOL_SRCDIR/scripts/compare-reserve" \
		--respol="$RESPOL_BUILDDIR/core/respol" --nodes=16 --commands=20 >out &&
	test $(grep -c "^| 16 | [0-9]*-[0-9]* | [0-9.]* | - |\$" out) = 4 &&
	grep "^whole runs, CPU seconds: respol [0-9.]*, Fluxion -; reserved, not allocated: respol [1-9][0-9]*, Fluxion -, of 20\$" out
'
test_expect_success 'compare-reserve reads a resource-query stand-in and checks its answers' '
	cat >rqe <<-\EOF &&
	#!/bin/sh
	# one ELAPSE per match, half of them reserved
	n=0
	while read -r cmd rest; do
		[ "$cmd" = match ] || continue
		n=$((n + 1))
		[ $((n % 2)) = 0 ] && echo "INFO: RESOURCES=RESERVED"
		echo "INFO: ELAPSE=0.000250"
	done
	EOF
	chmod +x rqe &&
	"$RESPOL_SRCDIR/scripts/compare-reserve" --respol="$RESPOL_BUILDDIR/core/respol" \
		--nodes=16 --commands=20 --resource-query="$PWD/rqe" >out &&
	test $(grep -c "^| 16 | [0-9]*-[0-9]* | [0-9.]* | 250.0 |\$" out) = 4 &&
	grep "Fluxion 10, of 20\$" out &&
	printf "#!/bin/sh\\ncat >/dev/null\\n" >rqn &&
	chmod +x rqn &&
	test_expect_code 1 "$RESPOL_SRCDIR/scripts/compare-reserve" \
		--respol="$RESPOL_BUILDDIR/core/respol" --nodes=16 --commands=20 \
		--resource-query="$PWD/rqn" 2>err &&
	grep "^compare-reserve: resource-query answered 0 of 20 commands\$" err
'
test_expect_success 'compare-reserve refuses bad arguments (exit 2)' '
	test_expect_code 2 "$RESPOL_SRCDIR/scripts/compare-reserve" --nodes=x 2>err &&
	grep "^compare-reserve: --nodes and --commands take a number\$" err &&
	test_expect_code 2 "$RESPOL_SRCDIR/scripts/compare-reserve" \
		--resource-query=/nonexistent 2>err &&
	grep "^compare-reserve: /nonexistent: not an executable\$" err &&
	test_expect_code 2 "$RESPOL_SRCDIR/scripts/compare-reserve" --frob 2>err &&
	grep "^compare-reserve: unknown argument .--frob.\$" err
'
test_expect_success 'bench-inventory --quick prints its tables' '
	"$BENCH/bench-inventory" --quick >out &&
	grep "^| targets | build (ms) | initial response" out &&
	grep "^| 1024 | " out &&
	grep "^| growth, 1024 / 64 targets | drain" out &&
	grep "^| 2000 events | " out &&
	grep "^logged drain (append + fdatasync), wall clock: " out
'
test_expect_success 'bench-inventory rejects a bad --events (exit 1)' '
	test_expect_code 1 "$BENCH/bench-inventory" --events=10 2>err &&
	grep "^bench-inventory: --events: not a number >= 1000: 10" err
'
test_expect_success 'bench-layout --quick prints its table' '
	"$BENCH/bench-layout" --quick >out &&
	grep "^| nodes | jobspec" out &&
	grep "^| 1 | 8 slots of 8 cores + 1 GPU, per_slot 32 | block | 256 | 256 |" out &&
	grep "^| 1024 | 64 slots of 1 core per node, per_slot 4, cyclic (rank 512) | cyclic | 262144 | 256 |" out
'
test_expect_success 'bench-layout rejects an unknown option (exit 2)' '
	test_expect_code 2 "$BENCH/bench-layout" --frobnicate
'
test_expect_success 'bench-run --quick prints its table' '
	"$BENCH/bench-run" --quick >out &&
	grep "^| true " out &&
	grep "^| respol run -n1 true " out &&
	grep "^| respol run --dry-run -n1 true " out
'
test_expect_success 'bench-run rejects an unknown option (exit 2)' '
	test_expect_code 2 "$BENCH/bench-run" --frobnicate
'
test_expect_success 'bench-binding --quick prints its table' '
	"$BENCH/bench-binding" --quick >out &&
	grep "^| jobspec (256 tasks on one node) | stack" out &&
	grep "^| 8 slots of 8 cores + 1 GPU, per_slot 32 | cpu-affinity gpu-affinity mem-affinity openmp | 1 |" out &&
	grep "^| 1 slot of the node (64 cores, 8 GPUs), per_slot 256 | none (layout and topology) | 1 |" out
'
test_expect_success 'bench-binding fails clearly without the plugins' '
	test_expect_code 1 "$BENCH/bench-binding" --quick --plugins=/nonexistent 2>err &&
	grep "^bench-binding: cannot copy /nonexistent/cpu-affinity.so" err
'
test_expect_success 'bench-planner --quick prints its tables' '
	"$BENCH/bench-planner" --quick >out &&
	grep "^| planner | spans | build (ms) | earliest (us)" out &&
	grep "^| respol | 100 | " out &&
	grep "^| respol | 1000 | " out &&
	grep "^The backlog: all S jobs arrive at 0" out
'
test_expect_success 'bench-planner rejects a bad --spans (exit 1)' '
	test_expect_code 1 "$BENCH/bench-planner" --spans=5 2>err &&
	grep "^bench-planner: --spans: not a list of numbers 10..10000000: 5" err
'
test_done
