#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol run: real tasks on this machine

Builds the jobspec, matches it to this machine and runs the tasks:
their exit codes, signals, the time limit, --label-io, stdin, the
working directory, the PMI-1 server with an MPICH program, and every
refusal (bad options, unsatisfiable jobs, validators, shell plugins).'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

FIX="$RESPOL_FIXTURE_PLUGINDIR"
Q="'"
NCORES=$(respol R encode --local | jq -r ".execution.R_lite[0].children.core" |
	xargs respol idset count)

test_expect_success 'setup' '
	printf "plugin-path: [%s]\nshell:\n  - plugin: shell-fixture\n" \
		"$FIX" >fixture.yaml &&
	printf "plugin-path: [%s]\nvalidate:\n  - plugin: reject-all\n" \
		"$FIX" >reject.yaml
'

# --- the tasks ------------------------------------------------------------

test_expect_success 'one task runs its command, exit 0' '
	respol run echo hello >out &&
	echo hello >expected &&
	test_cmp expected out
'
test_expect_success 'each task knows its rank and the job size' '
	respol run -n2 sh -c "echo \$RESPOL_TASK_RANK/\$RESPOL_JOB_SIZE" >out &&
	sort out >got &&
	printf "0/2\n1/2\n" >expected &&
	test_cmp expected got
'
test_expect_success 'the exit status is the largest of the tasks' '
	test_expect_code 4 respol run -n2 sh -c "exit \$((RESPOL_TASK_RANK + 3))"
'
test_expect_success 'a task killed by a signal: 128 + the signal' '
	test_expect_code 137 respol run sh -c "kill -KILL \$\$"
'
test_expect_success 'a command that is not there: 127, named' '
	test_error 127 "respol: run: task 0: no-such-command: No such file or directory" \
		respol run no-such-command
'
test_expect_success 'a command that is not executable: 126, named' '
	printf "#!/bin/sh\n" >notexec &&
	chmod -x notexec &&
	test_error 126 "respol: run: task 0: ./notexec: Permission denied" \
		respol run ./notexec
'
test_expect_success '--label-io prefixes every line of stdout and stderr' '
	respol run -l -n2 sh -c "echo out \$RESPOL_TASK_RANK; echo err >&2" \
		>out 2>err &&
	sort out >got &&
	printf "0: out 0\n1: out 1\n" >expected &&
	test_cmp expected got &&
	sort err >got &&
	printf "0: err\n1: err\n" >expected &&
	test_cmp expected got
'
test_expect_success '--label-io ends a last line that has no newline' '
	respol run --label-io printf "a\nno newline" >out &&
	printf "0: a\n0: no newline\n" >expected &&
	test_cmp expected out
'
test_expect_success 'stdin goes to task 0, the others read nothing' '
	echo hi | respol run -l -n2 cat >out &&
	echo "0: hi" >expected &&
	test_cmp expected out
'
test_expect_success 'a reader that goes away ends the tasks (SIGPIPE)' '
	timeout 20 respol run -l yes | head -n 1 >out &&
	echo "0: y" >expected &&
	test_cmp expected out
'
test_expect_success 'the tasks run in --cwd' '
	mkdir -p sub &&
	respol run --cwd="$(pwd)/sub" pwd >out &&
	echo "$(pwd)/sub" >expected &&
	test_cmp expected out
'
test_expect_success 'a working directory that is not there: named, exit 1' '
	test_error 1 "respol: run: task 0: working directory /no/such/dir: No such file or directory" \
		respol run --cwd=/no/such/dir true
'
test_expect_success 'the job environment reaches the tasks, --env rules apply' '
	FOO=from-here respol run --env=BAR=set sh -c "echo \$FOO \$BAR" >out &&
	echo "from-here set" >expected &&
	test_cmp expected out
'

test_expect_success 'the tasks keep the caller'"'"'s limit on open files' '
	(ulimit -n 64 && respol run -l -n2 sh -c "ulimit -n") >out &&
	printf "0: 64\n1: 64\n" >expected &&
	sort out | test_cmp expected -
'

# --- signals and the time limit ---------------------------------------------

test_expect_success 'the time limit ends the tasks with SIGTERM' '
	test_expect_code 143 respol run -t 1s sleep 30 2>err &&
	grep "^respol: run: time limit of 1s reached: sending SIGTERM to the tasks$" err
'
test_expect_success 'a task that ignores SIGTERM gets SIGKILL 5 s later' '
	test_expect_code 137 respol run -t 1s sh -c "trap \"\" TERM; sleep 30"
'
test_expect_success 'SIGTERM is forwarded to the tasks' '
	rm -f ready
	respol run sh -c "trap \"echo got TERM; exit 7\" TERM; touch ready; while :; do sleep 0.1; done" >out &
	pid=$! &&
	for i in $(seq 100); do test -e ready && break; sleep 0.1; done &&
	kill -TERM $pid &&
	test_expect_code 7 wait $pid &&
	echo "got TERM" >expected &&
	test_cmp expected out
'
# interrupt_twice: start a job whose task survives one SIGINT, send two
# (the second once the first has reached the task); prints the exit code.
# The job is started by a command of its own, not at the end of an and-list
# put in the background: $! is then the pid of a subshell that the shell may
# or may not replace by the command, and a signal sent to a subshell waiting
# for its child never reaches respol.
interrupt_twice() {
	rm -f ready got-int
	env --default-signal=INT respol run sh -c \
		"trap \"touch got-int\" INT; touch ready; sleep 30; sleep 30" 2>err &
	pid=$!
	for i in $(seq 100); do test -e ready && break; sleep 0.1; done &&
	kill -INT $pid &&
	for i in $(seq 500); do test -e got-int && break; sleep 0.02; done &&
	kill -INT $pid
	wait $pid
	echo $?
}
# The window is two seconds: on a loaded machine the second interrupt may
# come later, so the test looks for the first one's mark every 20 ms and
# tries three times.
test_expect_success 'a second SIGINT within 2 s kills the tasks' '
	for try in 1 2 3; do
		code=$(interrupt_twice) &&
		test "$code" = 137 && break
	done &&
	test "$code" = 137 &&
	grep "^respol: run: interrupted twice: killing the tasks$" err
'

# --- PMI ------------------------------------------------------------------------

MPICC=$(command -v mpicc.mpich || true)
test -n "$MPICC" && test_set_prereq MPICH
test_expect_success MPICH 'an MPICH program of 2 tasks wires up as one job' '
	"$MPICC" -o hello "$RESPOL_SRCDIR/shell/test/mpi-hello.c" &&
	timeout 120 respol run -n2 ./hello >out &&
	sort out >got &&
	printf "hello from rank 0 of 2 (2 answered)\nhello from rank 1 of 2 (2 answered)\n" >expected &&
	test_cmp expected got
'
test_expect_success MPICH 'MPI_Abort ends the job with its exit code, the task named' '
	test_expect_code 5 timeout 120 respol run -n2 ./hello abort 2>err &&
	grep "^respol: run: task 1 aborted the job (PMI) with exit code 5" err
'

# --- the shell plugins --------------------------------------------------------

test_expect_success 'a plugin variable reaches the task' '
	respol run --config=fixture.yaml -o fixture-env=HELLO=world \
		sh -c "echo \$HELLO" >out &&
	echo world >expected &&
	test_cmp expected out
'
test_expect_success 'a thread started during setup does not take SIGCHLD' '
	for i in 1 2 3 4 5; do
		timeout 20 respol run --config=fixture.yaml -o fixture-thread -n2 \
			true || return 1
	done
'
test_expect_success 'a plugin binding is applied to the task' '
	respol run --config=fixture.yaml -o fixture-cpus=0-0 \
		grep Cpus_allowed_list /proc/self/status >out &&
	printf "Cpus_allowed_list:\t0\n" >expected &&
	test_cmp expected out
'
test_expect_success 'a binding outside the job is refused, named, nothing runs' '
	test_error 1 "respol: run: shell plugin ${Q}shell-fixture${Q}: task 0: CPUs 4096 are not all the job${Q}s on this target (0)" \
		respol run --config=fixture.yaml -o fixture-cpus=4096 touch ran &&
	! test -e ran
'
test_expect_success 'a plugin that fails stops the job: its message, exit 3' '
	test_error 3 "respol: run: shell plugin ${Q}shell-fixture${Q}: task_init: asked to fail in task_init" \
		respol run --config=fixture.yaml -o fixture-fail=task_init touch ran &&
	! test -e ran
'
test_expect_success 'a plugin that fails in task_exec: the task does not run' '
	test_expect_code 1 respol run --config=fixture.yaml \
		-o fixture-fail=task_exec touch ran 2>err &&
	grep "^respol: run: task 0: shell plugin ${Q}shell-fixture${Q}: task_exec: asked to fail in task_exec$" err &&
	! test -e ran
'

test_expect_success 'cpu-affinity: two tasks on two different cores' '
	printf "plugin-path: [%s]\nshell:\n  - plugin: cpu-affinity\n" \
		"$RESPOL_BUILD_SHELLDIR" >affinity.yaml &&
	respol run --config=affinity.yaml -n2 -l \
		grep Cpus_allowed_list /proc/self/status >out &&
	sed -n "s/^0: Cpus_allowed_list:\t//p" out >cpus0 &&
	sed -n "s/^1: Cpus_allowed_list:\t//p" out >cpus1 &&
	test -s cpus0 && test -s cpus1 &&
	test "$(respol idset intersect "$(cat cpus0)" "$(cat cpus1)")" = "" &&
	test "$(respol idset count "$(cat cpus0)")" = 1
'
test_expect_success 'cpu-affinity=off: the tasks run unbound' '
	respol run --config=affinity.yaml -o cpu-affinity=off -n2 -l \
		grep Cpus_allowed_list /proc/self/status >out &&
	test $(sed "s/^[01]: //" out | sort -u | wc -l) -eq 1
'

# --- refusals ---------------------------------------------------------------------

test_expect_success 'more cores than this machine has: never satisfiable, exit 1' '
	test_expect_code 1 respol run -n $((NCORES + 1)) true 2>err &&
	grep "^respol: run: never satisfiable: " err
'
test_expect_success 'constraint operators of the configuration'"'"'s plugins are known to --requires' '
	printf "property:\n  - plugin: property-compare\n    config: {keys: [memory]}\n" \
		>compare.yaml &&
	test_error 1 "respol: run: --requires: constraint query: \"memory-ge:1G\": unknown operator ${Q}memory-ge${Q} at offset 0" \
		respol run --requires=memory-ge:1G true &&
	test_error 1 "respol: run: never satisfiable: needs 1 slot of 1 core, 0 fit matching the constraints" \
		respol run --config=compare.yaml --requires=memory-ge:1G true
'
test_expect_success 'a validator rejects the job: nothing runs, exit 1' '
	test_expect_code 1 respol run --config=reject.yaml touch ran 2>err &&
	grep "reject-all" err &&
	! test -e ran
'
test_expect_success 'bad usage: messages and exit 2' '
	test_error 2 "respol: run: missing command
Try ${Q}respol run --help${Q} for more information." respol run &&
	test_expect_code 2 respol run --xml=x.xml true 2>err &&
	grep "^respol: run: --xml plans on another machine: it needs --dry-run$" err &&
	test_expect_code 2 respol run --dry-run --format=xml true 2>err &&
	grep "^respol: run: --format: ${Q}xml${Q} is not table or json$" err &&
	test_expect_code 2 respol run --format=json true 2>err &&
	grep "^respol: run: --format applies to --dry-run$" err &&
	test_expect_code 2 respol run --json true 2>err &&
	grep "^respol: run: --json prints jobspec in respol jobspec create; here --dry-run --format=json prints the job$" err &&
	test_expect_code 2 respol run --bogus true 2>err &&
	grep "^respol: run: unknown option ${Q}--bogus${Q}$" err
'
test_expect_success 'a bad --taskmap is refused' '
	test_expect_code 1 respol run --taskmap=spiral true 2>err &&
	grep "spiral" err
'
test_expect_success 'respol run --help' '
	respol run --help >out &&
	grep "^Usage: respol run \[OPTIONS\] \[--\] COMMAND \[ARGS...\]$" out
'

test_done
