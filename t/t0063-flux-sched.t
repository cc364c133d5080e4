#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='sched-respol, the scheduler module, in an instance of four brokers

sched-simple is removed and core/flux/sched-respol.so loaded in its place:
jobs get the R respol query gives for the same resources and jobspecs, a
drained rank gets no job, a reload with running jobs holds them again
(RFC 27 hello), a job asking too much is denied with the matcher'"'"'s
reason, the free and allocated cores agree with flux resource list and
with respol query over the same acquisition and jobs, and two policies
place the same job differently.  Skipped when respol was configured
without --with-flux.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-flux.sh"
. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"
# The module's directory in the instance's module search path, as
# sched-respol(7) says a site puts it: it loads by name.
FLUX_MODULE_PATH_PREPEND=$RESPOL_BUILDDIR/core/flux/.libs
export FLUX_MODULE_PATH_PREPEND
test_under_flux 4

sched=$RESPOL_BUILDDIR/core/flux/.libs/sched-respol.so
match=$RESPOL_BUILD_MATCHDIR

# load [ARGS]: sched-respol (with ARGS) in place of the scheduler loaded.
load() {
	for m in sched-simple sched-respol; do
		if flux module list | grep -q "^$m "; then
			flux module remove $m || return 1
		fi
	done
	flux module load "$sched" "$@"
}
# R_lite of each job of the ids in FILE, one per line, keys sorted.
R_lite_of() {
	for id in $(cat "$1"); do
		flux job info $id R | jq -c -S .execution.R_lite || return 1
	done
}
# The same from respol query's JSON output.
query_R_lite() {
	grep -v "^jobid=" | jq -c -S .execution.R_lite
}
# until_ok CMD...: CMD again every 0.1 s until it succeeds, 10 s at most.
until_ok() {
	for i in $(seq 100); do
		"$@" && return 0
		sleep 0.1
	done
	return 1
}
running_is() {
	test "$(flux jobs -no {id} --filter=running | wc -l)" = "$1"
}
free_is() {
	test "$(flux module stats sched-respol | jq .types.core.free)" = "$1"
}
wait_running() {
	until_ok running_is "$1"
}
wait_free() {
	until_ok free_is "$1"
}
# node_jobs_run_on N "RANK...": N exclusive one-node jobs all run, on
# those ranks.
node_jobs_run_on() {
	for i in $(seq $1); do
		flux submit -N1 --exclusive sleep 300 || return 1
	done >ids &&
	wait_running $1 &&
	flux jobs -no "{ranks}" --filter=running | sort >got &&
	printf "%s\n" $2 >expected &&
	test_cmp expected got
}
cancel_all() {
	flux cancel --all >/dev/null 2>&1
	flux queue idle --timeout=30
}

# Module arguments are split at blanks, and the trash directory has one:
# the configurations the module reads live in a directory of their own.
conf=$(mktemp -d "${TMPDIR:-/tmp}/respol-t0063.XXXXXX") || exit 1

test_expect_success 'setup: a configuration with two policies' '
	cat >"$conf/respol.yaml" <<-EOF &&
	match:
	  - plugin: $match/low.so
	  - plugin: $match/high.so
	EOF
	flux resource R >R.json
'
test_expect_success 'bad arguments fail the load, with the reason logged' '
	test_must_fail flux module load "$sched" bogus=1 &&
	flux dmesg | grep "unknown argument .bogus=1.: the arguments are config=FILE, policy=NAME, queue-depth=N|unlimited" &&
	test_must_fail flux module load "$sched" queue-depth=0 &&
	flux dmesg | grep "queue-depth=0: must be a number >= 1 or unlimited" &&
	test_must_fail flux module load "$sched" policy=no-such-policy &&
	flux dmesg | grep "policy=no-such-policy: plugin .no-such-policy. not found in " &&
	test_must_fail flux module load "$sched" config=/nonexistent/respol.yaml &&
	flux dmesg | grep "sched-respol.err.0.: .*nonexistent" >err &&
	grep "sched-respol.err.0.: configuration /nonexistent/respol.yaml: No such file or directory$" err &&
	test "$(wc -l <err)" = 1
'
test_expect_success 'sched-respol loads in place of sched-simple' '
	load config="$conf/respol.yaml" policy=low &&
	flux module list | grep "^sched-respol "
'
test_expect_success 'jobs get the R respol query gives them' '
	flux run --dry-run -N1 -n2 sleep 300 >j1.json &&
	flux run --dry-run -N2 -n2 sleep 300 >j2.json &&
	flux run --dry-run -N1 -n1 sleep 300 >j3.json &&
	for j in j1 j2 j3; do
		flux job submit $j.json || return 1
	done >ids &&
	wait_running 3 &&
	R_lite_of ids >got &&
	printf "match allocate j1.json\nmatch allocate j2.json\nmatch allocate j3.json\n" >script &&
	respol query --config="$conf/respol.yaml" --policy=low -R R.json -f script |
		query_R_lite >expected &&
	test_cmp expected got
'
test_expect_success 'flux resource list agrees with the module and respol query' '
	flux resource list -s free -no "{ncores}" >flux-free &&
	flux resource list -s allocated -no "{ncores}" >flux-alloc &&
	flux module stats sched-respol >stats &&
	jq .types.core.free stats >module-free &&
	jq ".types.core.total - .types.core.free" stats >module-alloc &&
	test_cmp flux-free module-free &&
	test_cmp flux-alloc module-alloc &&
	(echo "acquire up.json" &&
	 for id in $(cat ids); do
		flux job info $id R >R.$id &&
		echo "hello R.$id" || exit 1
	 done &&
	 echo stat) >script &&
	jq -c "{resources: ., up: \"0-3\"}" R.json >up.json &&
	respol query -R R.json -f script | tail -1 >query-stats &&
	jq -S "del(.targets)" query-stats >expected &&
	jq -S . stats >got &&
	test_cmp expected got
'
test_expect_success 'a reload holds every running job again (hello)' '
	flux module stats sched-respol | jq -S . >before &&
	load config="$conf/respol.yaml" policy=low &&
	flux module stats sched-respol | jq -S . >after &&
	test_cmp before after &&
	grep "\"jobs\": 3" after
'
test_expect_success 'after the reload, new jobs go around the running ones' '
	flux run --dry-run -N1 -n2 sleep 300 >j4.json &&
	flux job submit j4.json >ids4 &&
	wait_running 4 &&
	R_lite_of ids4 >got &&
	printf "match allocate j1.json\nmatch allocate j2.json\nmatch allocate j3.json\nmatch allocate j4.json\n" >script &&
	respol query --config="$conf/respol.yaml" --policy=low -R R.json -f script |
		query_R_lite | tail -1 >expected &&
	test_cmp expected got
'
test_expect_success 'a job that can never run is denied with the matcher reason' '
	test_must_fail flux run -N8 true 2>err &&
	grep "type=alloc severity=0 needs 8 nodes with 1 slot of 1 core each, the resource set has 4" err
'
test_expect_success 'a job that cannot run now waits, first come first served; cancel takes it out' '
	flux module stats sched-respol | jq .types.core.free >free.before &&
	id=$(flux submit -N4 --exclusive true) &&
	id2=$(flux submit -N1 -n1 true) &&
	sleep 1 &&
	flux jobs -no "{state}" $id $id2 >got &&
	printf "SCHED\nSCHED\n" >expected &&
	test_cmp expected got &&
	flux cancel $id $id2 &&
	flux job wait-event -t 10 $id2 clean &&
	flux jobs -no "{state} {result}" $id $id2 >got &&
	printf "INACTIVE CANCELED\nINACTIVE CANCELED\n" >expected &&
	test_cmp expected got &&
	flux module stats sched-respol | jq .types.core.free >free.after &&
	test_cmp free.before free.after &&
	cancel_all
'
test_expect_success 'a drained rank gets no new job; flux resource drain is unchanged; undrained, it does' '
	flux resource drain 1 "respol test" &&
	flux resource drain -no "{state} {reason} {ranks}" >drain.before &&
	node_jobs_run_on 3 "0 2 3" &&
	flux resource drain -no "{state} {reason} {ranks}" >drain.after &&
	test_cmp drain.before drain.after &&
	cancel_all &&
	flux resource undrain 1 &&
	node_jobs_run_on 4 "0 1 2 3" &&
	cancel_all
'
test_expect_success 'partial release: housekeeping frees the job rank by rank' '
	flux config load <<-EOF &&
	[job-manager.housekeeping]
	command = ["sh", "-c", "test \$(flux getattr rank) = 0 || sleep 5"]
	release-after = "0s"
	EOF
	id=$(flux submit -N2 -n2 true) &&
	flux job wait-event -t 10 $id finish &&
	wait_free 7 &&
	flux resource list -s allocated -no "{ncores} {ranks}" >got &&
	echo "1 1" >expected &&
	test_cmp expected got
'
test_expect_success 'a reload during it holds what is not freed yet (hello)' '
	load config="$conf/respol.yaml" policy=low &&
	flux module stats sched-respol | jq -c .types.core >got &&
	echo "{\"total\":8,\"free\":7,\"down\":0}" >expected &&
	test_cmp expected got &&
	wait_free 8 &&
	flux config load </dev/null
'
test_expect_success 'two policies place the same job differently' '
	id=$(flux submit -N1 -n1 sleep 300) &&
	wait_running 1 &&
	flux job info $id R | jq -c .execution.R_lite >low &&
	cancel_all &&
	load config="$conf/respol.yaml" policy=high &&
	id=$(flux submit -N1 -n1 sleep 300) &&
	wait_running 1 &&
	flux job info $id R | jq -c .execution.R_lite >high &&
	cancel_all &&
	echo "[{\"children\":{\"core\":\"0\"},\"rank\":\"0\"}]" >expected.low &&
	echo "[{\"children\":{\"core\":\"1\"},\"rank\":\"3\"}]" >expected.high &&
	test_cmp expected.low low &&
	test_cmp expected.high high
'
test_expect_success 'a higher urgency goes first, with queue-depth=unlimited' '
	load config="$conf/respol.yaml" queue-depth=unlimited &&
	blocker=$(flux submit -N4 --exclusive sleep 300) &&
	wait_running 1 &&
	a=$(flux submit -N4 --exclusive sleep 300) &&
	b=$(flux submit -N4 --exclusive sleep 300) &&
	flux job wait-event -t 10 $b priority &&
	flux job urgency $b 20 &&
	flux cancel $blocker &&
	flux job wait-event -t 10 $b start &&
	flux jobs -no "{state}" $a >got &&
	echo SCHED >expected &&
	test_cmp expected got &&
	cancel_all
'
test_expect_success 'a running job duration update is accepted (sched.expiration)' '
	id=$(flux submit -N1 -n1 -t 1h sleep 300) &&
	wait_running 1 &&
	flux update $id duration=2h &&
	flux jobs -no "{duration}" $id >got &&
	echo 7200.0 >expected &&
	test_cmp expected got &&
	cancel_all
'
test_expect_success 'a validator that holds keeps the job waiting, annotated' '
	cat >"$conf/hold.yaml" <<-EOF &&
	validate:
	  - plugin: $RESPOL_FIXTURE_PLUGINDIR/hold-all.so
	EOF
	load config="$conf/hold.yaml" &&
	id=$(flux submit -N1 -n1 true) &&
	flux job wait-event -t 10 $id priority &&
	sleep 1 &&
	flux jobs -no "{state} {annotations.sched.reason_pending}" $id >got &&
	echo "SCHED held: hold-all: held by hold-all (queue -)" >expected &&
	test_cmp expected got &&
	load &&
	flux job wait-event -t 30 $id clean
'
test_expect_success 'a validator that fails denies the job with its message' '
	cat >"$conf/fails.yaml" <<-EOF &&
	validate:
	  - plugin: $RESPOL_FIXTURE_PLUGINDIR/good.so
	    config: {fail: true}
	EOF
	load config="$conf/fails.yaml" &&
	test_must_fail flux run -N1 -n1 true 2>err &&
	grep "type=alloc severity=0 respol: good: plugin failed: failing on purpose" err &&
	load
'
test_expect_success 'feasibility.check answers with the matcher reason' '
	flux run --dry-run -N8 true >big.json &&
	flux python -c "
import json, sys, flux
h = flux.Flux()
js = json.load(open(\"big.json\"))
try:
    h.rpc(\"feasibility.check\", {\"jobspec\": js}).get()
    print(\"feasible\")
except OSError as e:
    print(e.strerror)
" >got &&
	echo "needs 8 nodes with 1 slot of 1 core each, the resource set has 4" >expected &&
	test_cmp expected got
'
test_expect_success 'sched-simple loads again after sched-respol' '
	id=$(flux submit -N1 -n1 sleep 300) &&
	wait_running 1 &&
	flux module remove sched-respol &&
	flux module load sched-simple &&
	flux run -N1 -n1 true &&
	cancel_all
'
test_expect_success 'it loads by name from FLUX_MODULE_PATH_PREPEND' '
	flux module remove sched-simple &&
	flux module load sched-respol &&
	flux module list | grep "^sched-respol " &&
	flux run -N1 -n1 true &&
	flux module remove sched-respol &&
	flux module load sched-simple
'
test_expect_success 'cleanup' '
	rm -rf "$conf"
'
test_done
