#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='the respol shell plugin inside Flux (shell/flux/respol-shell.c)

Jobs run by flux run in an instance of two brokers on this machine, with
the plugin enabled by one line of an initrc (-o userrc) and a respol
configuration whose shell stack is the shell-fixture plugin, which does
what its options say (-o respol.fixture-cpus=... and so on).  Skipped when
respol was configured without --with-flux.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-flux.sh"
. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"
test_under_flux 2

# The PUs (OS indices) of cores 0 and 1, as Flux numbers cores: the
# first job of this idle instance gets cores 0 and 1 of rank 0.
pu0=$(hwloc-calc --physical-output --intersect PU core:0)
pu1=$(hwloc-calc --physical-output --intersect PU core:1)
both=$(respol idset encode "$pu0,$pu1")
run() {
	timeout 60 flux run --label-io "$@"
}
allowed='grep Cpus_allowed_list /proc/self/status'
# task_exits FILE RANK: "TASK-ID STATUS" of each task_exit the fixture
# logged in shell RANK's log (-o verbose=2) in FILE, sorted.
task_exits() {
	grep "flux-shell\[$2\]: TRACE: respol: shell-fixture: task_exit" "$1" |
		sed "s/.*task_exit //" | sort
}

# The shipped cpu-affinity plugin.
cpu_affinity=$RESPOL_BUILDDIR/plugins/built/cpu-affinity.so

test_expect_success 'setup: a configuration with the fixture, an initrc' '
	flux_shell_rc rc "$RESPOL_FIXTURE_PLUGINDIR/shell-fixture.so" &&
	flux_shell_rc bad no-such-plugin &&
	flux_shell_rc cpu "$cpu_affinity"
'
test_expect_success 'without respol, Flux binds each task to all the job CPUs' '
	run -N1 -n2 -o cpu-affinity=on sh -c "$allowed" >out &&
	printf "0: Cpus_allowed_list:\t%s\n1: Cpus_allowed_list:\t%s\n" \
		"$both" "$both" >expected &&
	sort out >got &&
	test_cmp expected got
'
test_expect_success 'respol decides: its binding replaces Flux, its variable reaches the task' '
	run -N1 -n2 -o userrc=rc.lua -o respol.fixture-cpus=$pu1 \
		-o respol.fixture-env=FIXTURE=set \
		sh -c "$allowed; echo FIXTURE=\$FIXTURE" >out &&
	printf "0: Cpus_allowed_list:\t%s\n0: FIXTURE=set\n1: Cpus_allowed_list:\t%s\n1: FIXTURE=set\n" \
		"$pu1" "$pu1" >expected &&
	sort out >got &&
	test_cmp expected got
'
test_expect_success 'respol cpu-affinity per-task: each task its own core' '
	run -N1 -n2 -o userrc=cpu.lua -o respol.cpu-affinity=per-task \
		sh -c "$allowed" >out &&
	printf "0: Cpus_allowed_list:\t%s\n1: Cpus_allowed_list:\t%s\n" \
		"$pu0" "$pu1" >expected &&
	sort out >got &&
	test_cmp expected got
'
test_expect_success '-o respol.cpu-affinity=off: Flux binding stays' '
	run -N1 -n2 -o userrc=cpu.lua -o respol.cpu-affinity=off \
		-o cpu-affinity=on sh -c "$allowed" >out &&
	printf "0: Cpus_allowed_list:\t%s\n1: Cpus_allowed_list:\t%s\n" \
		"$both" "$both" >expected &&
	sort out >got &&
	test_cmp expected got
'
test_expect_success '-o cpu-affinity=off is Flux option, not respol' '
	run -N1 -n2 -o userrc=cpu.lua -o cpu-affinity=off \
		sh -c "$allowed" >out &&
	printf "0: Cpus_allowed_list:\t%s\n1: Cpus_allowed_list:\t%s\n" \
		"$pu0" "$pu1" >expected &&
	sort out >got &&
	test_cmp expected got
'
test_expect_success 'a variable a plugin unsets is gone from the task' '
	FIXTURE_GONE=here run -N1 -n1 -o userrc=rc.lua \
		-o respol.fixture-unset=FIXTURE_GONE \
		sh -c "echo FIXTURE_GONE=\${FIXTURE_GONE-unset}" >out &&
	echo "0: FIXTURE_GONE=unset" >expected &&
	test_cmp expected out &&
	FIXTURE_GONE=here run -N1 -n1 -o userrc=rc.lua \
		sh -c "echo FIXTURE_GONE=\${FIXTURE_GONE-unset}" >out &&
	echo "0: FIXTURE_GONE=here" >expected &&
	test_cmp expected out
'
test_expect_success 'another shell option reaches respol directly; respol.KEY wins' '
	run -N1 -n1 -o userrc=rc.lua -o fixture-env=FIXTURE=direct \
		sh -c "echo FIXTURE=\$FIXTURE" >direct &&
	run -N1 -n1 -o userrc=rc.lua -o fixture-env=FIXTURE=direct \
		-o respol.fixture-env=FIXTURE=respol \
		sh -c "echo FIXTURE=\$FIXTURE" >both &&
	echo "0: FIXTURE=direct" >expected.direct &&
	echo "0: FIXTURE=respol" >expected.both &&
	test_cmp expected.direct direct &&
	test_cmp expected.both both
'
test_expect_success '-o respol=off: Flux binding stays, no variable' '
	run -N1 -n2 -o userrc=rc.lua -o respol=off -o cpu-affinity=on \
		sh -c "$allowed; echo FIXTURE=\$FIXTURE" >out &&
	printf "0: Cpus_allowed_list:\t%s\n0: FIXTURE=\n1: Cpus_allowed_list:\t%s\n1: FIXTURE=\n" \
		"$both" "$both" >expected &&
	sort out >got &&
	test_cmp expected got
'
test_expect_success 'a bad -o respol value stops the job with its message' '
	test_must_fail run -N1 -n1 -o userrc=rc.lua -o respol=maybe \
		touch ran 2>err &&
	grep "FATAL: respol: option respol: must be on, off, or respol.KEY=VALUE options for respol.s shell plugins" err &&
	test ! -e ran
'
test_expect_success 'a decision outside the job is refused before any task starts' '
	test_must_fail run -N1 -n1 -c1 -o userrc=rc.lua \
		-o respol.fixture-cpus=$pu1 touch ran 2>err &&
	grep "FATAL: respol: shell plugin .shell-fixture.: task 0: CPUs $pu1 are not all the job.s on this target ($pu0)" err &&
	test ! -e ran
'
test_expect_success 'a plugin that fails in task_init stops the job' '
	test_must_fail run -N1 -n1 -o userrc=rc.lua \
		-o respol.fixture-fail=task_init touch ran 2>err &&
	grep "FATAL: respol: shell plugin .shell-fixture.: task_init: asked to fail in task_init" err &&
	test ! -e ran
'
test_expect_success 'a plugin that fails in task_exec: the task exits 1, its command not run' '
	test_expect_code 1 run -N1 -n1 -o userrc=rc.lua \
		-o respol.fixture-fail=task_exec touch ran 2>err &&
	grep "respol: task 0: shell plugin .shell-fixture.: task_exec: asked to fail in task_exec" err &&
	test ! -e ran
'
test_expect_success 'a configuration that does not load stops the job with its error' '
	test_must_fail run -N1 -n1 -o userrc=bad.lua touch ran 2>err &&
	grep "FATAL: respol: $PWD/bad.yaml:2:13: shell\[0\]: plugin .no-such-plugin. not found" err &&
	test ! -e ran
'
test_expect_success 'a plugin that fails in task_exit or shell_exit: logged, the job done' '
	run -N1 -n1 -o userrc=rc.lua -o respol.fixture-fail=task_exit \
		true 2>err &&
	grep "ERROR: respol: task 0: shell plugin .shell-fixture.: task_exit: asked to fail in task_exit" err &&
	run -N1 -n1 -o userrc=rc.lua -o respol.fixture-fail=shell_exit \
		true 2>err &&
	grep "ERROR: respol: shell plugin .shell-fixture.: shell_exit: asked to fail in shell_exit" err
'
test_expect_success 'a plugin conf whose config is not a path stops the job' '
	flux_rc num.lua "config = 3" &&
	test_must_fail run -N1 -n1 -o userrc=num.lua touch ran 2>err &&
	grep "FATAL: respol: plugin conf: config must be a path" err &&
	test ! -e ran
'
test_expect_success 'plugin logs reach the shell log (task_exit, at -o verbose=2)' '
	run -N1 -n2 -o userrc=rc.lua -o verbose=2 true 2>err &&
	grep "respol: shell-fixture: task_exit 0 0" err &&
	grep "respol: shell-fixture: task_exit 1 0" err
'
test_expect_success 'task ids are Flux task map: --taskmap=cyclic over two nodes' '
	run -N2 -n4 -o userrc=rc.lua -o verbose=2 --taskmap=cyclic \
		true 2>err &&
	task_exits err 0 >got0 &&
	task_exits err 1 >got1 &&
	printf "0 0\n2 0\n" >expected0 &&
	printf "1 0\n3 0\n" >expected1 &&
	test_cmp expected0 got0 &&
	test_cmp expected1 got1
'
test_expect_success 'a task map respol does not lay out: Flux tasks, 3 and 1' '
	run -N2 -n4 -o userrc=rc.lua -o verbose=2 \
		--taskmap="manual:[[0,1,3,1],[1,1,1,1]]" true 2>err &&
	task_exits err 0 >got0 &&
	task_exits err 1 >got1 &&
	printf "0 0\n1 0\n2 0\n" >expected0 &&
	printf "3 0\n" >expected1 &&
	test_cmp expected0 got0 &&
	test_cmp expected1 got1 &&
	grep "flux-shell\[0\]: DEBUG: respol: tasks 0-2: Flux.s task map, not respol.s layout (other ids)" err
'
test_done
