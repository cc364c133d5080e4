#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='RFC 28 resource acquisition: respol resource acquire
(the initial response and, with --follow, every change another command
makes), and respol query applying the stream (acquire), rebuilding
running jobs (hello) and counting targets per state (stat)'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/resource"
S=--state=st
unset RESPOL_STATE_DIR

# wait_lines N FILE: wait (up to 10 s) until FILE has N lines.
wait_lines() {
	_i=0
	while test "$(wc -l <"$2" 2>/dev/null || echo 0)" -lt "$1"; do
		_i=$((_i + 1))
		test $_i -lt 100 || { echo "$2: fewer than $1 lines"; return 1; }
		sleep 0.1
	done
}

test_expect_success 'setup' '
	cp "$D"/resources.yaml "$D"/rfc28-initial.json "$D"/rfc28-update.json \
		"$D"/job-1-4.json "$D"/job-9.json . &&
	respol resource $S --resources=resources.yaml --now=1 list >/dev/null
'
test_expect_success 'acquire: the initial response, as flux-core writes it' '
	respol resource $S --now=2 drain node7 &&
	respol resource $S acquire >out &&
	cat >expected <<-\EOF &&
	{"resources":{"version":1,"execution":{"R_lite":[{"rank":"1-5","children":{"core":"0-15"}},{"rank":"6-7","children":{"core":"0-15","gpu":"0-1"}}],"starttime":0.0,"expiration":0.0,"nodelist":["node[1-7]"],"properties":{"gpu":"6-7"}}},"up":"1-6"}
	EOF
	test_cmp expected out
'
test_expect_success 'acquire --follow: one response per change, until killed' '
	respol resource $S acquire --follow >follow.out 2>follow.err &
	pid=$! &&
	test_when_finished "kill $pid 2>/dev/null || :" &&
	wait_lines 1 follow.out &&
	respol resource $S drain 2 &&
	respol resource $S undrain 2,7 &&
	respol resource $S down node[3-4] &&
	respol resource $S shrink 3-5 &&
	respol resource $S property-add 1 fast &&
	respol resource $S property-remove 6 gpu &&
	respol resource $S expire 5000.5 &&
	test_expect_code 1 respol resource $S up 3 2>/dev/null &&
	wait_lines 8 follow.out &&
	kill $pid &&
	tail -n +2 follow.out >out &&
	cat >expected <<-\EOF &&
	{"down":"2"}
	{"up":"2,7"}
	{"down":"3-4"}
	{"down":"3-5","shrink":"3-5"}
	{"property-add":{"fast":"1"}}
	{"property-remove":{"gpu":"6"}}
	{"expiration":5000.5}
	EOF
	test_cmp expected out &&
	test ! -s follow.err
'
test_expect_success 'acquire --follow sees a compacted log' '
	respol resource $S acquire --follow >follow2.out &
	pid=$! &&
	test_when_finished "kill $pid 2>/dev/null || :" &&
	wait_lines 1 follow2.out &&
	respol resource $S compact >/dev/null &&
	respol resource $S drain 1 &&
	wait_lines 2 follow2.out &&
	kill $pid &&
	tail -n 1 follow2.out >out &&
	echo "{\"down\":\"1\"}" >expected &&
	test_cmp expected out
'
test_expect_success 'the stream applied by respol query gives the inventory view' '
	cat follow.out >stream &&
	printf "acquire stream\nstat\n" >script &&
	respol query --generate=nodes=1 -f script >out &&
	cat >expected <<-\EOF &&
	{"jobs":0,"targets":{"down":0,"drained":0,"removed":3,"up":4},"types":{"cluster":{"down":0,"free":1,"total":1},"core":{"down":48,"free":64,"total":112},"gpu":{"down":0,"free":4,"total":4},"node":{"down":3,"free":4,"total":7}},"vertices":124}
	EOF
	test_cmp expected out
'
test_expect_success 'query: jobs land on the targets the stream says are up' '
	cat >job.yaml <<-\EOF &&
	version: 1
	resources: [{type: node, count: 1, exclusive: true, with: [{type: slot, count: 1, label: s, with: [{type: core, count: 1}]}]}]
	tasks: [{command: [a], slot: s, count: {per_slot: 1}}]
	attributes: {system: {duration: 0, constraints: {properties: [fast]}}}
	EOF
	printf "acquire stream\nmatch allocate job.yaml\nmatch allocate job.yaml\n" >script &&
	test_expect_code 1 respol query -F short --generate=nodes=1 -f script >out 2>err &&
	echo "1: node1: core[0-15]" >expected &&
	test_cmp expected out &&
	echo "respol: query: line 3: match allocate job.yaml: not satisfiable now: needs 1 node with 1 slot of 1 core, 0 matching the constraints are free" >expected &&
	test_cmp expected err
'
test_expect_success 'query: the RFC 28 examples; the later one is refused for its typo' '
	printf "acquire rfc28-initial.json\nacquire rfc28-update.json\nstat\n" >script &&
	test_expect_code 1 respol query --generate=nodes=1 -f script >out 2>err &&
	echo "respol: query: line 2: acquire rfc28-update.json: rfc28-update.json:1: unknown key '\''shink'\''" >expected &&
	test_cmp expected err &&
	grep "\"targets\":{\"down\":3,\"drained\":0,\"removed\":0,\"up\":3}" out &&
	sed -e s/shink/shrink/ rfc28-update.json >fixed.json &&
	printf "acquire rfc28-initial.json\nacquire fixed.json\n" >script &&
	test_expect_code 1 respol query --generate=nodes=1 -f script 2>err &&
	echo "respol: query: line 2: acquire fixed.json: fixed.json:1: up: rank 6 is not in the resources" >expected &&
	test_cmp expected err
'
test_expect_success 'query: stream errors name the file and line' '
	printf "{\"up\":\"1\"}\n" >first-not-initial &&
	printf "acquire first-not-initial\n" >script &&
	test_expect_code 1 respol query --generate=nodes=1 -f script 2>err &&
	echo "respol: query: line 1: acquire first-not-initial: first-not-initial:1: no initial response before" >expected &&
	test_cmp expected err &&
	{ cat rfc28-initial.json && echo && echo "{\"down\":" ; } >broken &&
	printf "acquire broken\n" >script &&
	test_expect_code 1 respol query --generate=nodes=1 -f script 2>err &&
	grep "^respol: query: line 1: acquire broken: broken:3: not JSON: " err &&
	printf "acquire nosuch\nacquire -\nacquire\n" >script &&
	test_expect_code 1 respol query --generate=nodes=1 -f script 2>err &&
	cat >expected <<-\EOF &&
	respol: query: line 1: acquire nosuch: nosuch: No such file or directory
	respol: query: line 3: acquire: usage: acquire FILE|-
	EOF
	test_cmp expected err
'
test_expect_success 'query: acquire - reads the stream from stdin' '
	printf "acquire -\nstat\n" >script &&
	respol query --generate=nodes=1 -f script <rfc28-initial.json >out &&
	grep "\"targets\":{\"down\":3,\"drained\":0,\"removed\":0,\"up\":3}" out
'
test_expect_success 'query hello: a running job rebuilt exactly, on a down target too' '
	printf "acquire rfc28-initial.json\nhello job-1-4.json\ninfo 1\nstat\n" >script &&
	respol query --generate=nodes=1 -F short -f script >out &&
	cat >expected <<-\EOF &&
	1: host1: core[1-2]; host4: core[0] gpu[0]
	1: host1: core[1-2]; host4: core[0] gpu[0]
	{"jobs":1,"targets":{"down":3,"drained":0,"removed":0,"up":3},"types":{"cluster":{"down":0,"free":0,"total":1},"core":{"down":18,"free":16,"total":36},"gpu":{"down":3,"free":3,"total":6},"node":{"down":3,"free":2,"total":6}},"vertices":49}
	EOF
	test_cmp expected out
'
test_expect_success 'query hello: errors name the job; a failure takes no job id' '
	printf "acquire rfc28-initial.json\nhello job-1-4.json\nhello job-9.json\nhello job-1-4.json 1\nhello job-1-4.json 1,4\nhello job-1-4.json 4\nhello\nhello -\nhello job-1-4.json 3,2\n" >script &&
	test_expect_code 1 respol query --generate=nodes=1 -F short -f script >out 2>err &&
	cat >expected <<-\EOF &&
	1: host1: core[1-2]; host4: core[0] gpu[0]
	EOF
	test_cmp expected out &&
	cat >expected <<-\EOF &&
	respol: query: line 3: hello job-9.json: job 2: rank 9: no such execution target
	respol: query: line 4: hello job-1-4.json 1: job 2: rank 4 (host4): core0 is held by another job
	respol: query: line 6: hello job-1-4.json 4: job 3: rank 1 (host1): core1 is held by another job
	respol: query: line 7: hello: usage: hello R-FILE [FREE]
	respol: query: line 8: hello -: an R file is needed, not stdin
	respol: query: line 9: hello job-1-4.json 3,2: idset: "3,2": ids not ascending at offset 2
	EOF
	test_cmp expected err
'
test_expect_success 'query hello without acquire works on the query graph' '
	printf "hello job-1-4.json\n" >script &&
	test_expect_code 1 respol query --generate=nodes=2 -f script 2>err &&
	echo "respol: query: line 1: hello job-1-4.json: job 1: rank 1: host host1, not node1" >expected &&
	test_cmp expected err
'

test_done
