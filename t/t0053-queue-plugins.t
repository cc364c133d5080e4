#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='queue policies as plugins: the queue stack of the
configuration, --queue by instance or plugin name, the priority order,
and the host refusing a policy that breaks a promise, with its name'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/simulate"
FIX="$RESPOL_FIXTURE_PLUGINDIR"

# queue_config FILE PLUGIN BLOCK: a queue stack of one instance "rogue".
queue_config() {
	cat >"$1" <<-EOF
	queue:
	  - plugin: $2
	    name: rogue
	    config: $3
	EOF
}

rogue() {
	queue_config q.yaml "$FIX/queue-fixture.so" "{mode: $1}" &&
	test_expect_code 1 respol simulate --config=q.yaml \
		--generate=nodes=6,cores=1 "$D"/textbook.swf >out 2>err
}

test_expect_success 'an instance of the queue stack, by its name, with its block' '
	cat >q.yaml <<-\EOF &&
	queue:
	  - plugin: hybrid
	    name: deep
	    config: {depth: 2}
	EOF
	respol simulate --generate=nodes=6,cores=1 --queue=hybrid:2 \
		--jobs=expected "$D"/textbook.swf >/dev/null &&
	respol simulate --config=q.yaml --generate=nodes=6,cores=1 \
		--queue=deep --jobs=deep.csv "$D"/textbook.swf >out &&
	test_cmp expected deep.csv &&
	grep "^queue: deep$" out
'

test_expect_success 'without --queue: the stack first instance that decides' '
	respol simulate --config=q.yaml --generate=nodes=6,cores=1 \
		--jobs=first.csv "$D"/textbook.swf >out &&
	test_cmp expected first.csv &&
	grep "^queue: deep$" out
'

test_expect_success 'without a queue stack: fcfs' '
	respol simulate --generate=nodes=6,cores=1 "$D"/textbook.swf >out &&
	grep "^queue: fcfs$" out
'

test_expect_success '--compare takes instances of the stack as queue policies' '
	respol simulate --config=q.yaml --generate=nodes=6,cores=1 \
		--compare=deep,easy,first "$D"/textbook.swf >out &&
	grep "^queue: *deep *easy *deep$" out &&
	grep "^policy: *first *first *first$" out
'

test_expect_success 'a name that is no plugin, a plugin of another kind' '
	test_expect_code 1 respol simulate --generate=nodes=6,cores=1 \
		--queue=nosuch "$D"/textbook.swf 2>err &&
	grep "^respol: simulate: --queue: plugin .nosuch. not found in " err &&
	test_expect_code 1 respol simulate --generate=nodes=6,cores=1 \
		--queue=first "$D"/textbook.swf 2>err &&
	grep "^respol: simulate: --queue: .*first.so: plugin .first. is a match plugin, configured in the queue stack$" err
'

test_expect_success 'hybrid checks its depth' '
	cat >bad.yaml <<-\EOF &&
	queue:
	  - plugin: hybrid
	    config: {depth: 0}
	EOF
	test_expect_code 1 respol simulate --config=bad.yaml \
		--generate=nodes=6,cores=1 "$D"/textbook.swf 2>err &&
	grep "hybrid.: init failed: depth: must be an integer from 1 to 1000000$" err
'

test_expect_success 'priority orders the queue by attributes.system.urgency' '
	js="\"resources\": [{\"type\": \"slot\", \"count\": 2, \"label\": \"task\", \"with\": [{\"type\": \"core\", \"count\": 1}]}], \"tasks\": [{\"command\": [\"a\"], \"slot\": \"task\", \"count\": {\"per_slot\": 1}}]" &&
	cat >p.jsonl <<-EOF &&
	{"id": 1, "submit": 0, "runtime": 10, "jobspec": {"version": 1, $js, "attributes": {"system": {"duration": 10}}}}
	{"id": 2, "submit": 1, "runtime": 10, "jobspec": {"version": 1, $js, "attributes": {"system": {"duration": 10, "urgency": 3}}}}
	{"id": 3, "submit": 2, "runtime": 10, "jobspec": {"version": 1, $js, "attributes": {"system": {"duration": 10}}}}
	{"id": 4, "submit": 3, "runtime": 10, "jobspec": {"version": 1, $js, "attributes": {"system": {"duration": 10, "urgency": 31}}}}
	EOF
	cat >prio.yaml <<-\EOF &&
	queue:
	  - plugin: priority
	  - plugin: fcfs
	EOF
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,10,0,2,"node0"
	2,1,30,40,29,2,"node0"
	3,2,20,30,18,2,"node0"
	4,3,10,20,7,2,"node0"
	EOF
	respol simulate --config=prio.yaml --generate=nodes=1,cores=2 \
		--jobs=prio.csv p.jsonl >out 2>err &&
	test_cmp expected prio.csv &&
	grep "^queue: fcfs$" out
'

test_expect_success 'priority: its attribute and default from its block' '
	cat >prio2.yaml <<-\EOF &&
	queue:
	  - plugin: priority
	    config: {attribute: system.urgency, default: 0}
	  - plugin: fcfs
	EOF
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,10,0,2,"node0"
	2,1,20,30,19,2,"node0"
	3,2,30,40,28,2,"node0"
	4,3,10,20,7,2,"node0"
	EOF
	respol simulate --config=prio2.yaml --generate=nodes=1,cores=2 \
		--jobs=prio2.csv p.jsonl >out 2>err &&
	test_cmp expected prio2.csv
'

test_expect_success 'priority: a bad block is refused when it loads' '
	cat >bad.yaml <<-\EOF &&
	queue:
	  - plugin: priority
	    config: {attribute: "a..b"}
	EOF
	test_expect_code 1 respol simulate --config=bad.yaml \
		--generate=nodes=1,cores=2 p.jsonl 2>err &&
	grep "init failed: attribute: must be a dotted path such as system.urgency$" err
'

test_expect_success 'a policy that only orders cannot be the one that decides' '
	test_expect_code 1 respol simulate --config=prio.yaml \
		--generate=nodes=1,cores=2 --queue=priority p.jsonl 2>err &&
	grep "^respol: simulate: --queue: queue policy .priority. only orders the queue: give it in the queue stack, with a policy that decides$" err
'

test_expect_success 'a start that would delay a reservation is refused, with the policy name' '
	rogue greedy &&
	grep "^respol: simulate: at 2: queue policy .rogue.: job 4 started at 2 would delay a reservation$" err
'

test_expect_success 'a reservation later than the last is refused' '
	rogue later &&
	grep "^respol: simulate: at 0: queue policy .rogue.: job 1.s reservation delayed from 0 to 100$" err
'

test_expect_success 'a cancelled reservation is none: its job holds no time' '
	rogue cancelled &&
	grep "^respol: simulate: at 0: queue policy .rogue.: pass failed: job 2 reserved at 100, then -1 once cancelled$" err
'

test_expect_success 'a job left reserved at the time of the pass is refused' '
	rogue reserve &&
	grep "^respol: simulate: at 0: queue policy .rogue.: job 1 is reserved at 0, the time of the pass, and was not started$" err
'

# The same rules where reservations are the matcher's (JSON lines).
rogue_js () {
	queue_config q.yaml "$FIX/queue-fixture.so" "{mode: $1}" &&
	respol simulate --config=q.yaml --generate=nodes=6,cores=1 \
		--jobs=js.csv "$D"/textbook.jsonl >out 2>err
}

test_expect_success 'JSON lines: the matcher refuses a start that would delay a reservation: no room' '
	rogue_js greedy &&
	respol simulate --generate=nodes=6,cores=1 --queue=conservative \
		--jobs=cons.csv "$D"/textbook.jsonl >/dev/null &&
	test_cmp cons.csv js.csv
'

test_expect_success 'JSON lines: a reservation later than the last is refused' '
	test_expect_code 1 rogue_js later &&
	grep "^respol: simulate: at 0: queue policy .rogue.: job 1.s reservation delayed from 0 to 100$" err
'

test_expect_success 'JSON lines: a cancelled reservation is none' '
	test_expect_code 1 rogue_js cancelled &&
	grep "^respol: simulate: at 0: queue policy .rogue.: pass failed: job 2 reserved at 100, then -1 once cancelled$" err
'

test_expect_success 'JSON lines: a job left reserved at the time of the pass is refused' '
	test_expect_code 1 rogue_js reserve &&
	grep "^respol: simulate: at 0: queue policy .rogue.: job 1 is reserved at 0, the time of the pass, and was not started$" err
'

# A match policy that fails only in a match on the state (crash-match,
# live): the jobs are accepted when they arrive, and the failure comes
# when the queue policy asks whether one fits.  The question says yes,
# so that the start fails with the policy's message (exit 3), rather
# than no, which would leave the job waiting for ever.
broken_fits () {
	cat >m.yaml <<-EOF &&
	match:
	  - plugin: $FIX/crash-match.so
	    name: broken
	    config: {in: $1, return: -1, live: true}
	queue:
	  - plugin: $FIX/queue-fixture.so
	    name: rogue
	    config: {mode: fits}
	EOF
	test_expect_code 3 respol simulate --config=m.yaml \
		--generate=nodes=6,cores=1 "$D"/textbook.jsonl 2>err
}

test_expect_success 'JSON lines: fits when the pruning fails: the start stops with its message' '
	broken_fits prune &&
	grep "^respol: simulate: .*textbook.jsonl:1: job 1: policy .broken.: prune returned -1 (not CONTINUE or SKIP)$" err
'

test_expect_success 'JSON lines: fits when the scoring fails: the start stops with its message' '
	broken_fits score &&
	grep "^respol: simulate: .*textbook.jsonl:1: job 1: policy .broken.: score returned -1 (no message)$" err
'

test_expect_success 'a policy that starts nothing: the replay stops when nothing runs' '
	rogue idle &&
	grep "^respol: simulate: job 1 can never start: nothing runs$" err &&
	test_expect_code 1 rogue_js idle &&
	grep "^respol: simulate: job 1 can never start: nothing runs$" err
'

test_expect_success 'a policy that fails, with and without a message' '
	rogue fail &&
	grep "^respol: simulate: at 0: queue policy .rogue.: pass failed: the fixture fails$" err &&
	rogue silent &&
	grep "^respol: simulate: at 0: queue policy .rogue.: pass returned 7 (no message)$" err
'

test_expect_success 'a job that is not in the queue' '
	rogue bad-index &&
	grep "^respol: simulate: at 0: queue policy .rogue.: start: no job at queue position 2 (2 pending)$" err &&
	rogue twice &&
	grep "^respol: simulate: at 0: queue policy .rogue.: start: job 1 is not pending$" err
'

test_expect_success 'a policy that says it starts jobs in order, and does not' '
	queue_config q.yaml "$FIX/queue-in-order.so" "{mode: unordered}" &&
	test_expect_code 1 respol simulate --config=q.yaml \
		--generate=nodes=6,cores=1 "$D"/textbook.swf 2>err &&
	grep "^respol: simulate: at 0: queue policy .rogue.: started job 2 before job 1 (it starts jobs in order)$" err
'

test_expect_success 'respol config check and plugin list show the queue stack' '
	respol config check prio.yaml >out &&
	grep "^prio.yaml: ok: 2 plugins loaded, .*(queue: priority, fcfs);" out &&
	respol plugin list --config=prio.yaml >out &&
	grep "^queue  *priority  *1.0  *1 .*priority.so  *the queue ordered by a jobspec attribute, highest first$" out &&
	grep "^queue  *fcfs  " out
'

test_done
