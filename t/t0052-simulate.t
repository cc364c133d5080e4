#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol simulate: a workload trace replayed in virtual
time under fcfs, easy and conservative, the rules of the replay, its
output, its errors, the textbook backfilling case, and every fcfs start
time checked against an independent model'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/simulate"
HPC2N="$RESPOL_DATA/traces/HPC2N-2002-sample.swf"

# The summary without the wall clock times of the passes.
untimed () {
	grep -v "^pass_us_" "$1" | sed -e "s/,\"pass_us_max\":[0-9.]*,\"pass_us_mean\":[0-9.]*//"
}

test_expect_success 'simulate --help gives its usage' '
	respol simulate --help >out &&
	grep "^Usage: respol simulate \[OPTIONS\] RESOURCE-OPTION TRACE$" out &&
	grep -- "--queue=NAME" out &&
	grep -- "--jobs=FILE" out
'

test_expect_success 'the small trace: the fcfs schedule worked out by hand' '
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,100,0,2,"node[0-1]"
	2,0,100,150,100,4,"node[0-3]"
	3,10,150,160,140,1,"node0"
	4,20,160,160,140,4,"node[0-3]"
	5,20,160,190,140,4,"node[0-3]"
	6,30,190,210,160,1,"node0"
	EOF
	respol simulate --generate=nodes=4,cores=1 --jobs=jobs.csv "$D"/small.swf \
		>summary 2>err &&
	test_cmp expected jobs.csv
'

test_expect_success 'the job larger than the cluster is rejected with the reason' '
	cat >expected <<-EOF &&
	respol: simulate: $D/small.swf:9: job 7: rejected: never satisfiable: needs 8 slots of 1 core each, 4 fit
	EOF
	test_cmp expected err
'

test_expect_success 'the summary: every key, the figures worked out by hand' '
	cat >expected <<-\EOF &&
	queue: fcfs
	policy: first
	jobs: 6
	rejected: 1
	skipped: 1
	utilization: 0.6548
	mean_wait: 113.3
	p95_wait: 160
	mean_bsld: 7.944
	makespan: 210
	backfilled: 0
	EOF
	untimed summary >got &&
	test_cmp expected got &&
	grep "^pass_us_mean: [0-9]*\.[0-9]$" summary &&
	grep "^pass_us_max: [0-9]*\.[0-9]$" summary
'

test_expect_success 'the summary as JSON, keys sorted' '
	respol simulate --generate=nodes=4,cores=1 --format=json "$D"/small.swf \
		>summary.json 2>/dev/null &&
	cat >expected <<-\EOF &&
	{"backfilled":0,"jobs":6,"makespan":210,"mean_bsld":7.944,"mean_wait":113.3,"p95_wait":160,"policy":"first","queue":"fcfs","rejected":1,"skipped":1,"utilization":0.6548}
	EOF
	untimed summary.json >got &&
	test_cmp expected got &&
	jq -e ".pass_us_mean >= 0 and .pass_us_max >= .pass_us_mean" summary.json
'

test_expect_success 'a gzip-compressed trace and stdin give the same' '
	gzip -c "$D"/small.swf >small.swf.gz &&
	respol simulate --generate=nodes=4,cores=1 --jobs=gz.csv small.swf.gz \
		>/dev/null 2>&1 &&
	test_cmp jobs.csv gz.csv &&
	respol simulate --generate=nodes=4,cores=1 --jobs=stdin.csv - \
		<small.swf.gz >/dev/null 2>&1 &&
	test_cmp jobs.csv stdin.csv
'

test_expect_success '--unit=node: a job of size N takes N whole nodes' '
	respol simulate --generate=nodes=4,cores=2 --unit=node --jobs=node.csv \
		"$D"/small.swf >/dev/null 2>&1 &&
	test_cmp jobs.csv node.csv &&
	respol simulate --generate=nodes=4,cores=2 --jobs=core.csv \
		"$D"/small.swf >/dev/null 2>&1 &&
	head -3 core.csv | tail -2 >got &&
	cat >expected <<-\EOF &&
	1,0,0,100,0,2,"node0"
	2,0,0,50,0,4,"node[1-2]"
	EOF
	test_cmp expected got
'

# The textbook case under queue policy $1: its jobs as expected, the
# summary in out.
textbook () {
	respol simulate --generate=nodes=6,cores=1 --queue=$1 --jobs=$1.csv \
		"$D"/textbook.swf >out &&
	test_cmp expected $1.csv
}

test_expect_success 'the textbook case under fcfs: strict order' '
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,100,0,4,"node[0-3]"
	2,0,100,200,100,5,"node[0-4]"
	3,1,200,300,199,6,"node[0-5]"
	4,2,300,550,298,1,"node0"
	5,3,300,340,297,1,"node1"
	EOF
	textbook fcfs &&
	grep "^backfilled: 0$" out
'

test_expect_success 'easy: 4 backfills, it does not delay the head (2); 3 waits' '
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,100,0,4,"node[0-3]"
	2,0,100,200,100,5,"node[0-3,5]"
	3,1,252,352,251,6,"node[0-5]"
	4,2,2,252,0,1,"node4"
	5,3,3,43,0,1,"node5"
	EOF
	textbook easy &&
	grep "^queue: easy$" out &&
	grep "^backfilled: 2$" out
'

test_expect_success 'conservative: 4 would delay 3 and is refused; 5 delays none' '
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,100,0,4,"node[0-3]"
	2,0,100,200,100,5,"node[0-4]"
	3,1,200,300,199,6,"node[0-5]"
	4,2,300,550,298,1,"node0"
	5,3,3,43,0,1,"node4"
	EOF
	textbook conservative &&
	grep "^backfilled: 1$" out
'

test_expect_success 'hybrid:N reserves for the first N: hybrid:1 is easy, hybrid:2 here conservative' '
	cp easy.csv expected &&
	textbook hybrid:1 &&
	grep "^queue: hybrid:1$" out &&
	cp conservative.csv expected &&
	textbook hybrid:2 &&
	grep "^backfilled: 1$" out
'

test_expect_success '--compare: the three side by side, each as run alone' '
	cat >expected <<-\EOF &&
	queue:                   fcfs           easy   conservative
	policy:                 first          first          first
	jobs:                       5              5              5
	rejected:                   0              0              0
	skipped:                    0              0              0
	utilization:           0.5424         0.8475         0.5424
	mean_wait:              178.8           70.2          119.4
	p95_wait:                 298            251            298
	mean_bsld:              3.321          1.702          1.836
	makespan:                 550            352            550
	backfilled:                 0              2              1
	EOF
	respol simulate --generate=nodes=6,cores=1 \
		--compare=fcfs,easy,conservative "$D"/textbook.swf >out &&
	untimed out >got &&
	test_cmp expected got &&
	grep "^pass_us_mean: *[0-9.]* *[0-9.]* *[0-9.]*$" out &&
	respol simulate --generate=nodes=6,cores=1 --format=json \
		--compare=conservative,fcfs,easy "$D"/textbook.swf >all.json &&
	for q in conservative fcfs easy; do
		respol simulate --generate=nodes=6,cores=1 --format=json \
			--queue=$q "$D"/textbook.swf || return 1
	done >one.json &&
	untimed all.json >a && untimed one.json >b &&
	test_cmp b a
'

test_expect_success '--compare takes match policies too, with --queue' '
	respol simulate --generate=nodes=6,cores=1 --format=json --queue=easy \
		--compare=first,high "$D"/textbook.swf >out &&
	jq -r "[.queue, .policy] | join(\" \")" out >got &&
	printf "easy first\neasy high\n" >expected &&
	test_cmp expected got &&
	test_expect_code 1 respol simulate --generate=nodes=6,cores=1 \
		--compare=fcfs,nosuch "$D"/textbook.swf 2>err >/dev/null &&
	grep "^respol: simulate: .*nosuch" err
'

test_expect_success '--compare: usage errors' '
	test_expect_code 2 respol simulate --generate=nodes=1 --compare=fcfs, x 2>err &&
	grep "^respol: simulate: --compare: an empty name in .fcfs,.$" err &&
	test_expect_code 2 respol simulate --generate=nodes=1 --compare=fcfs,,easy x 2>err &&
	grep "^respol: simulate: --compare: an empty name in .fcfs,,easy.$" err &&
	test_expect_code 2 respol simulate --generate=nodes=1 --compare=fcfs \
		--jobs=j.csv x 2>err &&
	grep "^respol: simulate: --jobs writes one run.s jobs: not with --compare$" err &&
	test_expect_code 2 respol simulate -R - --compare=fcfs,easy x 2>err </dev/null &&
	grep "^respol: simulate: --compare reads the resources once a run: not from stdin$" err &&
	test_expect_code 2 respol simulate --generate=nodes=1 \
		--compare=a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q x 2>err &&
	grep "^respol: simulate: --compare: at most 16 policies$" err
'

command -v xmllint >/dev/null && test_set_prereq XMLLINT
test_expect_success '--plot draws each run: utilization and waits, a colour each' '
	respol simulate --generate=nodes=6,cores=1 --compare=fcfs,easy \
		--plot=p.svg "$D"/textbook.swf >/dev/null &&
	head -1 p.svg | grep "^<svg xmlns=\"http://www.w3.org/2000/svg\"" &&
	test $(grep -c "<polyline fill=\"none\" stroke=\"#1f77b4\"" p.svg) -eq 2 &&
	test $(grep -c "<polyline fill=\"none\" stroke=\"#d62728\"" p.svg) -eq 2 &&
	grep "fill=\"#1f77b4\">fcfs first</text>" p.svg &&
	grep "fill=\"#d62728\">easy first</text>" p.svg &&
	grep ">550 s</text>" p.svg &&
	grep ">298 s</text>" p.svg &&
	respol simulate --generate=nodes=6,cores=1 --compare=fcfs,easy \
		--plot=again.svg "$D"/textbook.swf >/dev/null &&
	test_cmp p.svg again.svg &&
	respol simulate --generate=nodes=6,cores=1 --queue=easy \
		--plot=one.svg "$D"/textbook.swf >/dev/null &&
	test $(grep -c "<polyline" one.svg) -eq 2 &&
	test_expect_code 1 respol simulate --generate=nodes=6,cores=1 \
		--plot=/nonexistent/p.svg "$D"/textbook.swf >/dev/null 2>err &&
	grep "^respol: simulate: /nonexistent/p.svg: No such file or directory$" err
'
test_expect_success 'the README picture is what the README command draws' '
	respol simulate --generate=nodes=240,cores=1 \
		--compare=fcfs,easy,conservative --plot=hpc2n.svg "$HPC2N" >/dev/null &&
	test_cmp "$RESPOL_SRCDIR/doc/simulate-hpc2n.svg" hpc2n.svg &&
	grep -F "(doc/simulate-hpc2n.svg)" "$RESPOL_SRCDIR/README.md" &&
	grep -F -- "--compare=fcfs,easy,conservative \\" "$RESPOL_SRCDIR/README.md"
'
test_expect_success XMLLINT '--plot writes well-formed SVG' '
	xmllint --noout p.svg
'

# The start times of a --jobs CSV.
starts () {
	cut -d, -f1,3 "$1"
}

test_expect_success 'JSON lines reserve through the matcher: the textbook case as jobspecs starts as the SWF does' '
	for q in easy conservative hybrid:1 hybrid:2
	do
		respol simulate --generate=nodes=6,cores=1 --queue=$q \
			--jobs=swf.csv "$D"/textbook.swf >swf.out &&
		respol simulate --generate=nodes=6,cores=1 --queue=$q \
			--jobs=js.csv "$D"/textbook.jsonl >js.out &&
		starts swf.csv >expected &&
		starts js.csv >got &&
		test_cmp expected got &&
		grep "^backfilled: " swf.out >expected &&
		grep "^backfilled: " js.out >got &&
		test_cmp expected got || return 1
	done
'

# Six nodes of one core, GPUs on two: job 2 asks a GPU, so it waits for
# job 1 although four cores are free (a count of cores would start it at
# 1).  easy: 2 reserved at 100 on a GPU node; 3 and 5 backfill on nodes
# without one; at 100 2 starts on node0 and 4 (two cores) is reserved at
# 200, when 2 ends.  conservative: 4 is reserved at 100 too (node1 and
# node5: 2 holds node0), so 5 may not take node5 now (it would run past
# 100): it is reserved at 150, when 4 ends.
gpu_job () {
	w="{\"type\":\"core\",\"count\":1}"
	test $5 = 0 || w="$w,{\"type\":\"gpu\",\"count\":1}"
	printf "{\"id\":%s,\"submit\":%s,\"runtime\":%s,\"jobspec\":{\"version\":1,\"resources\":[{\"type\":\"slot\",\"count\":%s,\"label\":\"task\",\"with\":[%s]}],\"tasks\":[{\"command\":[\"job\"],\"slot\":\"task\",\"count\":{\"per_slot\":1}}],\"attributes\":{\"system\":{\"duration\":%s}}}}\n" \
		$1 $2 $3 $4 "$w" $6
}
# The GPU case under queue policy $1, its jobs as expected, $2 backfilled.
gpu_case () {
	respol simulate -R gpu.R --queue=$1 --jobs=$1.csv gpu.jsonl >out &&
	test_cmp expected $1.csv &&
	grep "^backfilled: $2$" out
}
test_expect_success 'JSON lines: GPUs on some nodes, the easy schedule worked out by hand' '
	cat >gpu.R <<-\EOF &&
	{"version":1,"execution":{"R_lite":[{"rank":"0-1","children":{"core":"0","gpu":"0"}},{"rank":"2-5","children":{"core":"0"}}],"starttime":0,"expiration":0,"nodelist":["node[0-5]"]}}
	EOF
	{
		gpu_job 1 0 100 2 1 100 &&
		gpu_job 2 1 100 1 1 100 &&
		gpu_job 3 2 200 3 0 200 &&
		gpu_job 4 3 50 2 0 50 &&
		gpu_job 5 4 300 1 0 300
	} >gpu.jsonl &&
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,100,0,2,"node[0-1]"
	2,1,100,200,99,1,"node0"
	3,2,2,202,0,3,"node[2-4]"
	4,3,200,250,197,2,"node[0-1]"
	5,4,4,304,0,1,"node5"
	EOF
	gpu_case easy 2
'

test_expect_success 'JSON lines: GPUs on some nodes, the conservative schedule worked out by hand' '
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,100,0,2,"node[0-1]"
	2,1,100,200,99,1,"node0"
	3,2,2,202,0,3,"node[2-4]"
	4,3,100,150,97,2,"node[1,5]"
	5,4,150,450,146,1,"node1"
	EOF
	gpu_case conservative 1
'

test_expect_success 'a job of run time 0 frees for another pass at that time; duration 0 is no limit' '
	cat >zero.swf <<-\EOF &&
	1 0 -1 0 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1
	2 0 -1 5 2 -1 -1 2 10 -1 1 1 1 -1 -1 -1 -1 -1
	3 0 -1 0 1 -1 -1 1 -1 -1 1 1 1 -1 -1 -1 -1 -1
	EOF
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,0,0,2,"node[0-1]"
	2,0,0,5,0,2,"node[0-1]"
	3,0,5,5,5,1,"node0"
	EOF
	respol simulate --generate=nodes=2,cores=1 --jobs=zero.csv zero.swf \
		>/dev/null &&
	test_cmp expected zero.csv
'

test_expect_success 'JSON lines: the jobspec says what a job needs' '
	cat >t.jsonl <<-\EOF &&
	{"id": 1, "submit": 0, "runtime": 100, "jobspec": {"version": 1, "resources": [{"type": "node", "count": 2, "with": [{"type": "slot", "count": 1, "label": "task", "with": [{"type": "core", "count": 1}]}]}], "tasks": [{"command": ["a"], "slot": "task", "count": {"per_slot": 1}}], "attributes": {"system": {"duration": 50}}}}
	{"id": 2, "submit": 10, "runtime": 5, "jobspec": {"version": 1, "resources": [{"type": "slot", "count": 1, "label": "task", "with": [{"type": "core", "count": 1}]}], "tasks": [{"command": ["b"], "slot": "task", "count": {"per_slot": 1}}], "attributes": {"system": {"duration": 0}}}}
	EOF
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,50,0,2,"node[0-1]"
	2,10,50,55,40,1,"node0"
	EOF
	respol simulate --generate=nodes=2,cores=1 --jobs=jl.csv t.jsonl \
		>/dev/null &&
	test_cmp expected jl.csv
'

# The model is Python: the first python3 that runs.
for PY in python3 /usr/bin/python3; do
	if "$PY" -c "import heapq" 2>/dev/null; then
		test_set_prereq PYTHON3
		break
	fi
done
test_expect_success 'a job whose jobspec is not valid stops the replay' '
	cat >bad.jsonl <<-\EOF &&
	{"id": 3, "submit": 0, "runtime": 1, "jobspec": {"version": 1, "resources": [{"type": "slot", "count": 1, "label": "task", "with": [{"type": "core", "count": 1}]}], "tasks": [{"command": ["b"], "slot": "task", "count": {"per_slot": 1}}], "attributes": {"system": {}}}}
	EOF
	test_expect_code 1 respol simulate --generate=nodes=1 bad.jsonl 2>err &&
	grep "^respol: simulate: bad.jsonl:1: job 3: .*attributes.system: must not be empty$" err
'

test_expect_success PYTHON3 'HPC2N: every fcfs start time is the independent model'"'"'s' '
	respol simulate --generate=nodes=240,cores=1 --jobs=hpc2n.csv \
		--format=json "$HPC2N" >hpc2n.json &&
	"$PY" "$D"/fcfs-model.py "$HPC2N" 240 >model &&
	tail -n +2 hpc2n.csv | cut -d, -f1,3 >got &&
	test $(wc -l <got) -eq 3145 &&
	test_cmp model got
'

test_expect_success PYTHON3 'jobs of 1,100 sizes and durations: the model'"'"'s start times' '
	# More pairs of (size, duration) than the jobspecs kept for them
	# (1,024): the last ones are built for each job.
	awk "BEGIN { for (i = 1; i <= 1100; i++) printf \"%d %d -1 %d %d -1 -1 %d %d -1 1 1 1 -1 -1 -1 -1 -1\\n\", i, 7 * i, (37 * i) % 500 + 1, i % 8 + 1, i % 8 + 1, 600 + i }" \
		>pairs.swf &&
	respol simulate --generate=nodes=8,cores=1 --jobs=pairs.csv \
		pairs.swf >/dev/null &&
	"$PY" "$D"/fcfs-model.py pairs.swf 8 >model &&
	tail -n +2 pairs.csv | cut -d, -f1,3 >got &&
	test $(wc -l <got) -eq 1100 &&
	test_cmp model got
'

test_expect_success 'HPC2N under fcfs: the summary pinned' '
	respol simulate --generate=nodes=240,cores=1 --format=json "$HPC2N" \
		>hpc2n.json &&
	cat >expected <<-\EOF &&
	{"backfilled":0,"jobs":3145,"makespan":5309576,"mean_bsld":47.038,"mean_wait":5588.6,"p95_wait":25665,"policy":"first","queue":"fcfs","rejected":0,"skipped":25,"utilization":0.3940}
	EOF
	untimed hpc2n.json >got &&
	test_cmp expected got
'

test_expect_success 'the README shows what simulate prints on HPC2N' '
	respol simulate --generate=nodes=240,cores=1 "$HPC2N" >out &&
	untimed out >got &&
	sed -n "/^\$ respol simulate --generate=nodes=240,cores=1 /,/^\`\`\`\$/p" \
		"$RESPOL_SRCDIR/README.md" | sed -e "1d" -e "\$d" | grep -v "^pass_us_" >shown &&
	test $(wc -l <shown) -eq 11 &&
	test_cmp shown got
'

test_expect_success 'HPC2N under easy, conservative and hybrid:4: the summaries pinned' '
	cat >expected <<-\EOF &&
	{"backfilled":590,"jobs":3145,"makespan":5282045,"mean_bsld":16.214,"mean_wait":3470.2,"p95_wait":20437,"policy":"first","queue":"easy","rejected":0,"skipped":25,"utilization":0.3960}
	{"backfilled":567,"jobs":3145,"makespan":5282045,"mean_bsld":16.044,"mean_wait":3434.3,"p95_wait":19053,"policy":"first","queue":"conservative","rejected":0,"skipped":25,"utilization":0.3960}
	{"backfilled":528,"jobs":3145,"makespan":5282045,"mean_bsld":18.509,"mean_wait":3483.5,"p95_wait":19372,"policy":"first","queue":"hybrid:4","rejected":0,"skipped":25,"utilization":0.3960}
	EOF
	for q in easy conservative hybrid:4; do
		respol simulate --generate=nodes=240,cores=1 --queue=$q \
			--format=json "$HPC2N" >$q.json &&
		untimed $q.json || return 1
	done >got &&
	test_cmp expected got
'

test_expect_success 'the same inputs give the same bytes' '
	respol simulate --generate=nodes=240,cores=1 --jobs=hpc2n.csv \
		--format=json "$HPC2N" >hpc2n.json &&
	respol simulate --generate=nodes=240,cores=1 --jobs=again.csv \
		--format=json "$HPC2N" >again.json &&
	test_cmp hpc2n.csv again.csv &&
	untimed hpc2n.json >a && untimed again.json >b &&
	test_cmp a b
'

# The first 600 jobs of HPC2N as JSON lines: slots of one core, as the
# SWF asks.  The replay checks its invariants after every event (the
# matcher holds the jobs that run and the reservations, each where the
# policy was given it); the backfills pin the schedules.
test_expect_success 'HPC2N as JSON lines under easy, conservative and hybrid:4: the invariants hold' '
	awk -v max=600 -f "$D"/swf-to-jsonl.awk "$HPC2N" >h600.jsonl &&
	test $(wc -l <h600.jsonl) -eq 600 &&
	for qb in easy:39 conservative:51 hybrid:4:53
	do
		q=${qb%:*} &&
		respol simulate --generate=nodes=240,cores=1 --queue=$q \
			h600.jsonl >out &&
		grep "^jobs: 600$" out &&
		grep "^rejected: 0$" out &&
		grep "^backfilled: ${qb##*:}$" out || return 1
	done
'

# The invariants that tie the matcher to the replay's records (JSON
# lines: the matcher holds the jobs that run and the reservations, each
# where the policy was given it) cannot be broken by a trace or a policy:
# the queue host refuses every decision that would.  A preloaded fixture
# makes the matcher lie to the checks (AddressSanitizer, in a sanitizer
# build, must not insist on coming first).
lie () {
	RESPOL_TEST_LIE=$1 \
	LD_PRELOAD="$RESPOL_FIXTURE_PLUGINDIR/matcher-lies.so" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	test_expect_code 1 respol simulate --generate=nodes=6,cores=1 \
		--queue=conservative "$D"/textbook.jsonl >out 2>err
}

test_expect_success 'invariant: the matcher holds as many jobs as run and are reserved' '
	lie njobs &&
	cat >expected <<-\EOF &&
	respol: simulate: invariant broken at 0: 3 jobs hold resources, 1 run, 1 reserved
	EOF
	test_cmp expected err
'

test_expect_success 'invariant: each reservation is the matcher'"'"'s, at the time given' '
	lie job-time &&
	cat >expected <<-\EOF &&
	respol: simulate: invariant broken at 0: job 2 is not reserved at 100 in the matcher
	EOF
	test_cmp expected err
'

test_expect_success 'the fixture that lies tells the truth unless asked' '
	LD_PRELOAD="$RESPOL_FIXTURE_PLUGINDIR/matcher-lies.so" \
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	respol simulate --generate=nodes=6,cores=1 --queue=conservative \
		--jobs=truth.csv "$D"/textbook.jsonl >out &&
	respol simulate --generate=nodes=6,cores=1 --queue=conservative \
		--jobs=plain.csv "$D"/textbook.jsonl >out &&
	test_cmp plain.csv truth.csv
'

test_expect_success 'usage errors exit 2 with the reason' '
	test_expect_code 2 respol simulate --generate=nodes=1 2>err &&
	grep "^respol: simulate: missing TRACE argument$" err &&
	for q in hybrid:0 hybrid:x hybrid:1000001 hybrid:+1 hybrid:1x hybrid:; do
		test_expect_code 2 respol simulate --generate=nodes=1 --queue=$q x 2>err &&
		grep "^respol: simulate: --queue: .$q.: the depth after .:. must be an integer from 1 to 1000000$" err || return 1
	done &&
	test_expect_code 2 respol simulate --generate=nodes=1 --unit=gpu x 2>err &&
	grep "^respol: simulate: --unit: .gpu. is not core or node$" err &&
	test_expect_code 2 respol simulate --generate=nodes=1 --format=yaml x 2>err &&
	grep "^respol: simulate: --format: .yaml. is not text or json$" err &&
	test_expect_code 2 respol simulate --generate=nodes=1 x y 2>err &&
	grep "^respol: simulate: unexpected argument .y.$" err &&
	test_expect_code 2 respol simulate -R - - 2>err &&
	grep "^respol: simulate: the trace and the resources cannot both be stdin$" err
'

test_expect_success 'resources without the unit asked for are refused' '
	cat >gpus.json <<-\EOF &&
	{"edges":[[0,1],[1,2]],"respol-graph":1,"vertices":[{"id":0,"type":"cluster"},{"id":0,"rank":0,"type":"node"},{"id":0,"type":"gpu"}]}
	EOF
	test_expect_code 1 respol simulate --graph=gpus.json "$D"/small.swf 2>err &&
	grep "^respol: simulate: the resources have no core$" err &&
	respol simulate --graph=gpus.json --unit=node --jobs=gpus.csv \
		"$D"/small.swf >/dev/null 2>&1 &&
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	3,10,10,20,0,1,"node0"
	6,30,30,50,0,1,"node0"
	EOF
	test_cmp expected gpus.csv
'

test_expect_success 'a hostile trace stops with its file and line, exit 1' '
	printf "1 0 -1 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n2 0 -1 x 1\n" >bad.swf &&
	test_expect_code 1 respol simulate --generate=nodes=1 bad.swf 2>err &&
	cat >expected <<-\EOF &&
	respol: simulate: bad.swf:2: field 4 (run time): not an integer: '"'"'x'"'"'
	EOF
	test_cmp expected err &&
	test_expect_code 1 respol simulate --generate=nodes=1 missing.swf 2>err &&
	grep "^respol: simulate: missing.swf: No such file or directory$" err &&
	test_expect_code 1 respol simulate --generate=nodes=1 --jobs=/nonexistent/j.csv \
		"$D"/small.swf 2>err >/dev/null &&
	grep "^respol: simulate: /nonexistent/j.csv: No such file or directory$" err
'

test_done
