#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol query: a script of match, free, release, info,
set-state, stat and quit commands run on one resource graph; JSON and
short output, errors that let the script go on, the exit status'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/match"
GEN=nodes=4,sockets=2,cores=4,gpus=2
RESPOL_PLUGIN_PATH="$RESPOL_BUILD_MATCHDIR"
export RESPOL_PLUGIN_PATH

test_expect_success 'setup: copy the fixtures so messages name short paths' '
	match_fixtures slots nodes nodes3 node-exclusive too-many-nodes gpus \
		invalid &&
	cp "$D"/R4.json R.json &&
	cp "$D"/query-script script
'

# --help and usage

test_expect_success 'query --help prints the commands and every option' '
	respol query --help >out &&
	grep "^Usage: respol query \[OPTIONS\] RESOURCE-OPTION$" out &&
	for cmd in "match allocate" "match satisfiability" \
		"match allocate_orelse_reserve" free release info \
		set-state stat quit; do
		grep "^  $cmd" out || return 1
	done &&
	for opt in --config=FILE "-P, --policy=NAME" "-F, --format=NAME" \
		"-f, --file=FILE" --profile=NAME --now=SECONDS --timing \
		"-R, --R=FILE" --generate=SPEC; do
		grep -e "$opt" out || return 1
	done
'
test_expect_success 'an operand is a usage error' '
	test_error 2 "respol: query: unexpected argument '\''script'\''
Try '\''respol query --help'\'' for more information." respol query --generate=$GEN script
'
test_expect_success 'an unknown --format is a usage error' '
	test_error 2 "respol: query: unknown format '\''long'\''
Try '\''respol query --help'\'' for more information." respol query -F long --generate=$GEN
'
test_expect_success 'commands and resources both on stdin is a usage error' '
	test_error 2 "respol: query: the commands and the resources cannot both be stdin
Try '\''respol query --help'\'' for more information." respol query -R - </dev/null &&
	test_error 2 "respol: query: the commands and the resources cannot both be stdin
Try '\''respol query --help'\'' for more information." respol query -f - --graph=- </dev/null
'
test_expect_success 'a missing command file' '
	test_error 1 "respol: query: nosuch: No such file or directory" \
		respol query -f nosuch --generate=$GEN
'
test_expect_success 'no resource option is a usage error' '
	test_error 2 "respol: query: no resources: give one of -R FILE, --xml=FILE, --graph=FILE, --generate=SPEC
Try '\''respol query --help'\'' for more information." respol query </dev/null
'

# a script with every command

test_expect_success 'every command, -F short: output, errors that go on, exit 1' '
	cat >expected <<-\EOF &&
	1: node0: core[0-1] gpu[0]; node1: core[0-1] gpu[0]
	2: node0: core[2-5]
	satisfiable
	1: node0: core[0-1] gpu[0]; node1: core[0-1] gpu[0]
	1: node1: core[0-1] gpu[0]
	3: node0: core[0]; node1: core[2]; node2: core[0]
	{"jobs":2,"targets":{"down":1,"drained":0,"removed":0,"up":3},"types":{"cluster":{"down":0,"free":0,"total":1},"core":{"down":8,"free":19,"total":32},"gpu":{"down":2,"free":5,"total":8},"node":{"down":1,"free":0,"total":4},"socket":{"down":2,"free":3,"total":8}},"vertices":53}
	EOF
	cat >expected.err <<-\EOF &&
	respol: query: line 5: match satisfiability too-many-nodes.yaml: never satisfiable: needs 5 nodes with 1 slot of 1 core each, the resource set has 4
	respol: query: line 7: match allocate gpus.yaml: never satisfiable: needs 1 slot of 1 core and 3 GPUs, 0 fit
	respol: query: line 11: release 1 5: job 1 does not hold rank 5
	respol: query: line 13: free 9: no job 9
	respol: query: line 14: info 2: no job 2
	respol: query: line 17: match allocate nodes3.yaml: not satisfiable now: needs 3 nodes with 1 slot of 1 core each, 2 are free
	respol: query: line 21: set-state core0 down: 4 vertices are named '\''core0'\''
	respol: query: line 22: set-state nosuch down: no vertex named '\''nosuch'\''
	respol: query: line 23: set-state 7 down: no execution target of rank 7
	respol: query: line 24: set-state node0 broken: unknown state '\''broken'\'': up, down or drained
	respol: query: line 25: frob x: unknown command '\''frob'\''
	respol: query: line 26: free: usage: free JOBID
	respol: query: line 27: free x: '\''x'\'' is not a job id
	respol: query: line 28: release 1 3-2: idset: "3-2": range not ascending at offset 0
	respol: query: line 29: invalid.yaml:4:12: resources[0].count: must be >= 1
	respol: query: line 30: nosuch.yaml: No such file or directory
	respol: query: line 31: match allocate -: a jobspec file is needed, not stdin
	respol: query: line 32: match reserve slots.yaml: usage: match allocate|allocate_orelse_reserve|satisfiability JOBSPEC-FILE
	respol: query: line 33: stat extra: usage: stat
	EOF
	test_expect_code 1 respol query --now=100 -F short -f script \
		--generate=$GEN >out 2>err &&
	test_cmp expected out &&
	test_cmp expected.err err
'
test_expect_success 'commands from stdin give the same, and no prompt' '
	test_expect_code 1 respol query --now=100 --format=short \
		--generate=$GEN <script >out 2>err &&
	test_cmp expected out &&
	test_cmp expected.err err
'
test_expect_success 'JSON output: jobid=N, then R; info after a release' '
	cat >s2 <<-\EOF &&
	match allocate slots.yaml
	match allocate nodes.yaml
	release 2 1
	info 2
	free 1
	stat
	EOF
	respol query --now=100 -R R.json -f s2 >out &&
	test_cmp "$D"/query-json.expected out
'
test_expect_success '-F rv1_nosched: release and info read the R a job record builds when first asked' '
	respol query --now=100 -R R.json -F rv1_nosched -f s2 >out &&
	sed "s/,\"scheduling\":.*,\"version\":1}$/,\"version\":1}/" \
		"$D"/query-json.expected >expected &&
	test_cmp expected out &&
	printf "match allocate nodes.yaml\nrelease 1 5\nrelease 1 0\ninfo 1\n" |
		test_expect_code 1 respol query --now=100 -F rv1_nosched \
		--generate=$GEN >out 2>err &&
	cat >expected <<-\EOF &&
	jobid=1
	{"execution":{"R_lite":[{"children":{"core":"0-1","gpu":"0"},"rank":"0-1"}],"expiration":3700.0,"nodelist":["node[0-1]"],"starttime":100.0},"version":1}
	jobid=1
	{"execution":{"R_lite":[{"children":{"core":"0-1","gpu":"0"},"rank":"1"}],"expiration":3700.0,"nodelist":["node1"],"starttime":100.0},"version":1}
	EOF
	test_cmp expected out &&
	echo "respol: query: line 2: release 1 5: job 1 does not hold rank 5" >expected.err &&
	test_cmp expected.err err
'
test_expect_success 'a target whose host name is not one host fails every match that takes it' '
	respol graph export --generate=nodes=2,sockets=1,cores=2 |
		sed "s/{\"id\":0,\"rank\":0,\"type\":\"node\"}/{\"id\":0,\"name\":\"n[0-1]\",\"rank\":0,\"type\":\"node\"}/" >badhost.json &&
	grep -q "n\[0-1\]" badhost.json &&
	printf "match allocate slots.yaml\nmatch allocate slots.yaml\n" |
		test_expect_code 1 respol query --now=100 -F short \
		--graph=badhost.json >out 2>err &&
	test_must_be_empty out &&
	cat >expected.err <<-\EOF &&
	respol: query: line 1: match allocate slots.yaml: host name "n[0-1]" is not a single host
	respol: query: line 2: match allocate slots.yaml: host name "n[0-1]" is not a single host
	EOF
	test_cmp expected.err err
'
test_expect_success 'a script where every command succeeds exits 0' '
	printf "match allocate slots.yaml\nfree 1\nmatch allocate slots.yaml\n" |
		respol query --now=100 -F short --generate=$GEN >out &&
	cat >expected <<-\EOF &&
	1: node0: core[0-3]
	2: node0: core[0-3]
	EOF
	test_cmp expected out
'
test_expect_success 'quit stops the script' '
	printf "quit\nfrob\n" | respol query --generate=$GEN >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err
'
test_expect_success 'a line of 64 KiB is read; a longer one is an error, and the script goes on' '
	awk "BEGIN { s = \"#\"; for (i = 1; i < 65536; i++) s = s \"x\"; print s; print s \"x\"; print \"stat\"; print \"free 1\" }" >long &&
	test_expect_code 1 respol query -f long --generate=nodes=1 >out 2>err &&
	cat >expected.err <<-\EOF &&
	respol: query: line 2: line longer than 65536 bytes
	respol: query: line 4: free 1: no job 1
	EOF
	test_cmp expected.err err &&
	grep "^{\"jobs\":0," out
'
test_expect_success 'a last line without a newline is run' '
	printf "match allocate slots.yaml" |
		respol query --now=100 -F short --generate=$GEN >out &&
	echo "1: node0: core[0-3]" >expected &&
	test_cmp expected out
'
test_expect_success '-P chooses the policy' '
	printf "match allocate nodes.yaml\n" |
		respol query -P high -F short --generate=$GEN >out &&
	echo "1: node2: core[6-7] gpu[1]; node3: core[6-7] gpu[1]" >expected &&
	test_cmp expected out &&
	printf "match allocate nodes.yaml\n" |
		respol query --policy=nosuch --generate=$GEN 2>err;
	test $? = 1 &&
	grep "^respol: query: plugin '\''nosuch'\'' not found in " err
'
test_expect_success '--timing prints the time of each match on stderr' '
	printf "match allocate slots.yaml\nstat\nmatch satisfiability slots.yaml\n" |
		respol query --timing --generate=$GEN >out 2>err &&
	test $(wc -l <err) = 2 &&
	grep "^respol: query: line 1: match allocate slots.yaml: [0-9]*\.[0-9]\{9\} s$" err &&
	grep "^respol: query: line 3: match satisfiability slots.yaml: [0-9]*\.[0-9]\{9\} s$" err
'
test_expect_success 'release of every rank ends the job; a down root blocks every match' '
	cat >s3 <<-\EOF &&
	match allocate nodes.yaml
	release 1 0-4294967294
	release 1 0-1
	info 1
	free 18446744073709551615
	free 18446744073709551616
	set-state 99999999999999999999 down
	set-state cluster0 down
	match allocate slots.yaml
	set-state cluster0 up
	match allocate slots.yaml
	EOF
	cat >expected <<-\EOF &&
	1: node0: core[0-1] gpu[0]; node1: core[0-1] gpu[0]
	2: node0: core[0-3]
	EOF
	cat >expected.err <<-\EOF &&
	respol: query: line 2: release 1 0-4294967294: job 1 does not hold rank 2
	respol: query: line 4: info 1: no job 1
	respol: query: line 5: free 18446744073709551615: no job 18446744073709551615
	respol: query: line 6: free 18446744073709551616: '\''18446744073709551616'\'' is not a job id
	respol: query: line 7: set-state 99999999999999999999 down: no execution target of rank 99999999999999999999
	respol: query: line 9: match allocate slots.yaml: not satisfiable now: needs 2 slots of 2 cores each, 0 fit now
	EOF
	test_expect_code 1 respol query -F short -f s3 --generate=$GEN >out 2>err &&
	test_cmp expected out &&
	test_cmp expected.err err
'
test_expect_success '-F rv1_nosched: R without its scheduling key, for allocate and info' '
	cat >s4 <<-\EOF &&
	match allocate slots.yaml
	info 1
	EOF
	respol query --now=100 -R R.json -f s4 >json &&
	respol query --now=100 -F rv1_nosched -R R.json -f s4 >out &&
	test $(grep -c "\"scheduling\":{\"graph\"" json) = 2 &&
	sed "s/,\"scheduling\":.*,\"version\":1}$/,\"version\":1}/" json >expected &&
	test_cmp expected out
'
test_expect_success 'R of cores in runs, with a gap, taken upward and downward' '
	respol jobspec create -n1 -c2 -- app >c2.yaml &&
	respol jobspec create -n1 -c4 -- app >c4.yaml &&
	printf "match allocate c2.yaml\nmatch allocate c2.yaml\nfree 1\nmatch allocate c4.yaml\n" >s5 &&
	for p in first high; do
		respol query --now=100 -F rv1_nosched -P $p \
			--generate=nodes=1,cores=8 -f s5 || return 1
	done | sed -n "s/.*\"core\":\"\([^\"]*\)\".*/\1/p" >out &&
	cat >expected <<-\EOF &&
	0-1
	2-3
	0-1,4-5
	6-7
	4-5
	2-3,6-7
	EOF
	test_cmp expected out &&
	respol query --now=100 -F rv1_nosched --generate=nodes=1,cores=8 -f s5 |
		grep "^jobid=" >ids &&
	printf "jobid=1\njobid=2\njobid=3\n" >expected &&
	test_cmp expected ids
'
test_expect_success 'R of a job whose holds on one target are not together, and of one in descending rank' '
	cat >ab.yaml <<-\EOF &&
	version: 1
	resources:
	  - {type: slot, count: 2, label: a, with: [{type: core, count: 6}]}
	  - {type: slot, count: 1, label: b, with: [{type: core, count: 1}]}
	tasks:
	  - {command: [app], slot: a, count: {per_slot: 1}}
	  - {command: [app], slot: b, count: {per_slot: 1}}
	attributes: {system: {duration: 0}}
	EOF
	echo "match allocate ab.yaml" >s6 &&
	for p in first high; do
		respol query --now=100 -F rv1_nosched -P $p \
			--generate=nodes=3,cores=8 -f s6 || return 1
	done | sed -n "s/.*\"R_lite\":\(\[[^]]*\]\).*/\1/p" >out &&
	cat >expected <<-\EOF &&
	[{"children":{"core":"0-6"},"rank":"0"},{"children":{"core":"0-5"},"rank":"1"}]
	[{"children":{"core":"2-7"},"rank":"1"},{"children":{"core":"1-7"},"rank":"2"}]
	EOF
	test_cmp expected out &&
	respol jobspec create -N2 -n2 -c4 -- app >n2.yaml &&
	echo "match allocate n2.yaml" >s7 &&
	respol query --now=100 -F rv1_nosched -P high \
		--generate=nodes=3,cores=8 -f s7 >out &&
	grep -F "\"R_lite\":[{\"children\":{\"core\":\"4-7\"},\"rank\":\"1-2\"}]" out
'
# Wait (up to 30 s) for job $1's answer in out.
wait_answer () {
	n=0 &&
	while ! grep -q "^$1:" out && test $n -lt 600; do
		sleep 0.05; n=$((n + 1))
	done
}
# Allocate jobspec file $1 twice through a query that reads a FIFO, write
# the text of $2 over it once the second answer is out, allocate it again.
query_edit () {
	rm -f cmds &&
	mkfifo cmds &&
	{ respol query --now=100 -F short --generate=$GEN -f cmds >out 2>err & } &&
	exec 9>cmds &&
	echo "match allocate $1" >&9 &&
	echo "match allocate $1" >&9 &&
	wait_answer 2 &&
	cat "$2" >"$1" &&
	echo "match allocate $1" >&9 &&
	exec 9>&- &&
	wait
}
test_expect_success 'a jobspec file is parsed once per content: an edited file is read again' '
	cp slots.yaml job.yaml &&
	query_edit job.yaml nodes.yaml &&
	cat >expected <<-\EOF &&
	1: node0: core[0-3]
	2: node0: core[4-7]
	3: node1: core[0-1] gpu[0]; node2: core[0-1] gpu[0]
	EOF
	test_cmp expected out &&
	test_must_be_empty err
'
test_expect_success 'a file unchanged for seconds is known by its status; one edited then is read again' '
	sed "s/^        count: 2/        count: 3/" slots.yaml >job2.yaml &&
	sed "s/^        count: 2/        count: 1/" slots.yaml >job1.yaml &&
	test $(wc -c <job2.yaml) = $(wc -c <job1.yaml) &&
	cp job2.yaml old.yaml &&
	sleep 3 &&
	query_edit old.yaml job1.yaml &&
	cat >expected <<-\EOF &&
	1: node0: core[0-5]
	2: node1: core[0-5]
	3: node0: core[6-7]
	EOF
	test_cmp expected out &&
	test_must_be_empty err
'
# Run a query of commands from FIFO cmds, its jobspec file $1's stat
# calls counted by a preloaded fixture into stats: the first line is
# written alone and answered, the next two are written together.
query_stats () {
	rm -f cmds stats &&
	mkfifo cmds &&
	{ RESPOL_TEST_STAT_PATH=$1 RESPOL_TEST_STAT_OUT="$PWD/stats" \
	  LD_PRELOAD="$RESPOL_FIXTURE_PLUGINDIR/count-stat.so" \
	  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
	  respol query --now=100 -F short --generate=$GEN -f cmds >out 2>err & } &&
	exec 9>cmds &&
	echo "match allocate $1" >&9 &&
	wait_answer 1 &&
	printf "match allocate %s\nmatch allocate %s\n" $1 $1 >&9 &&
	exec 9>&- &&
	wait
}
test_expect_success 'a file known by its status is asked it once per batch of commands' '
	test -f job2.yaml || { cp slots.yaml job2.yaml && sleep 3; } &&
	query_stats job2.yaml &&
	cat >expected <<-\EOF &&
	1: node0: core[0-5]
	2: node1: core[0-5]
	3: node2: core[0-5]
	EOF
	test_cmp expected out &&
	test_must_be_empty err &&
	echo "stat job2.yaml: 2" >expected &&
	test_cmp expected stats
'
test_expect_success 'standard output and error in one file keep the order of the commands' '
	printf "match allocate slots.yaml\nfrob\nmatch allocate slots.yaml\nfree 9\n" >s6 &&
	test_expect_code 1 respol query --now=100 -F short --generate=$GEN -f s6 >out 2>&1 &&
	cat >expected <<-\EOF &&
	1: node0: core[0-3]
	respol: query: line 2: frob: unknown command '\''frob'\''
	2: node0: core[4-7]
	respol: query: line 4: free 9: no job 9
	EOF
	test_cmp expected out
'
test_expect_success 'a jobspec read again from the cache says its warnings again' '
	sed "s/^  system:/  system:\n    frob: 1/" slots.yaml >warn.yaml &&
	printf "match allocate warn.yaml\nmatch allocate warn.yaml\n" |
		respol query --now=100 -F short --generate=$GEN >out 2>err &&
	cat >expected.err <<-\EOF &&
	respol: query: line 1: warning: warn.yaml:17:11: attributes.system.frob: unknown system attribute
	respol: query: line 2: warning: warn.yaml:17:11: attributes.system.frob: unknown system attribute
	EOF
	test_cmp expected.err err &&
	test $(wc -l <out) = 2
'
test_expect_success 'the cache holds 16 files; the 17th and later read as well' '
	for i in $(seq 1 18); do
		sed "s/count: 2$/count: 1/" slots.yaml >j$i.yaml || return 1
	done &&
	for i in $(seq 1 18) 1 18 2; do echo "match allocate j$i.yaml"; done >s5 &&
	respol query --now=100 -F short --generate=nodes=21,cores=1 -f s5 >out &&
	test $(wc -l <out) = 21 &&
	tail -1 out >last &&
	echo "21: node20: core[0]" >expected &&
	test_cmp expected last
'
test_expect_success 'a job of another --user on a line gets that user' '
	printf "match allocate slots.yaml\nmatch allocate --user=0 slots.yaml\nmatch allocate slots.yaml\njobs\n" |
		respol query --now=100 -F short --generate=$GEN >out &&
	grep "^1: running user=$(id -un) " out &&
	grep "^2: running user=root " out &&
	grep "^3: running user=$(id -un) " out
'
test_expect_success 'bad options are usage errors' '
	test_error 2 "respol: query: option '\''-F'\'' requires an argument
Try '\''respol query --help'\'' for more information." respol query --generate=$GEN -F &&
	test_error 2 "respol: query: unknown option '\''-x'\''
Try '\''respol query --help'\'' for more information." respol query -x --generate=$GEN &&
	test_error 2 "respol: query: --now: '\''never'\'' is not a number of seconds
Try '\''respol query --help'\'' for more information." respol query --now=never --generate=$GEN &&
	test_error 2 "respol: query: unknown profile '\''v9'\''
Try '\''respol query --help'\'' for more information." respol query --profile=v9 --generate=$GEN
'
test_expect_success 'query --help says canonical is the default profile' '
	respol query --help >out &&
	grep -F -e "--profile=NAME  jobspec profile: canonical (RFC 14, the default)" out
'
test_expect_success 'canonical jobspec is read without --profile' '
	cp "$D"/canonical.yaml . &&
	printf "match allocate canonical.yaml\nmatch satisfiability canonical.yaml\n" >s4 &&
	respol query -F short -f s4 --generate=$GEN >out &&
	printf "1: node0: core[0-3]\nsatisfiable\n" >expected &&
	test_cmp expected out &&
	respol query --profile=canonical -F short -f s4 --generate=$GEN >out &&
	test_cmp expected out
'
test_expect_success '--profile=v1 refuses it, line by line, and reads V1' '
	printf "match allocate canonical.yaml\nmatch allocate nodes.yaml\n" >s5 &&
	test_expect_code 1 respol query --profile=v1 -F short -f s5 \
		--generate=$GEN >out 2>err &&
	echo "respol: query: line 1: canonical.yaml:9:16: resources[0].with[0].count: must be an integer in jobspec V1" >expected &&
	test_cmp expected err &&
	echo "1: node0: core[0-1] gpu[0]; node1: core[0-1] gpu[0]" >expected &&
	test_cmp expected out
'

# match allocate_orelse_reserve: durations and reservations

whole () {
	printf "version: 1\nresources:\n  - type: slot\n    label: s\n    count: %s\n    with:\n      - type: node\n        count: 1\ntasks:\n  - command: [app]\n    slot: s\n    count: {per_slot: 1}\nattributes:\n  system:\n    duration: %s\n" "$1" "$2"
}
test_expect_success 'match allocate_orelse_reserve: now, else the earliest time; backfill, info, free, schedule (reserved again)' '
	whole 2 100 >w2.yaml &&
	whole 4 50 >w4.yaml &&
	whole 2 150 >l2.yaml &&
	cat >s6 <<-\EOF &&
	match allocate_orelse_reserve w2.yaml
	match allocate_orelse_reserve w4.yaml
	match allocate w2.yaml
	match allocate l2.yaml
	match allocate_orelse_reserve l2.yaml
	info 2
	free 2
	match allocate_orelse_reserve w4.yaml
	submit w2.yaml
	schedule
	jobs
	match allocate_orelse_reserve
	EOF
	cat >expected <<-\EOF &&
	1: at=100 allocated
	1: node0: core[0-7] gpu[0-1]; node1: core[0-7] gpu[0-1]
	2: at=200 reserved
	2: node0: core[0-7] gpu[0-1]; node1: core[0-7] gpu[0-1]; node2: core[0-7] gpu[0-1]; node3: core[0-7] gpu[0-1]
	3: node2: core[0-7] gpu[0-1]; node3: core[0-7] gpu[0-1]
	4: at=250 reserved
	4: node0: core[0-7] gpu[0-1]; node1: core[0-7] gpu[0-1]
	2: at=200 reserved
	2: node0: core[0-7] gpu[0-1]; node1: core[0-7] gpu[0-1]; node2: core[0-7] gpu[0-1]; node3: core[0-7] gpu[0-1]
	5: at=200 reserved
	5: node0: core[0-7] gpu[0-1]; node1: core[0-7] gpu[0-1]; node2: core[0-7] gpu[0-1]; node3: core[0-7] gpu[0-1]
	6: pending
	1: running user=U account=- queue=-
	3: running user=U account=- queue=-
	4: pending user=U account=- queue=-
	5: pending user=U account=- queue=-
	6: pending user=U account=- queue=-
	EOF
	cat >expected.err <<-\EOF &&
	respol: query: line 4: match allocate l2.yaml: not satisfiable now: needs 2 slots of 1 node each, 0 fit now
	respol: query: line 12: match allocate_orelse_reserve: usage: match allocate_orelse_reserve [WHO] JOBSPEC-FILE
	EOF
	test_expect_code 1 respol query --now=100 -F short -f s6 \
		--generate=$GEN >out 2>err &&
	sed "s/user=[^ ]*/user=U/" out >out.u &&
	test_cmp expected out.u &&
	test_cmp expected.err err
'
test_expect_success 'a scoring policy (high) sees only nodes free for the whole span' '
	whole 2 50 >a.yaml &&
	whole 4 10 >b.yaml &&
	whole 2 100 >c.yaml &&
	whole 1 50 >y.yaml &&
	cat >s8 <<-\EOF &&
	match allocate_orelse_reserve a.yaml
	match allocate_orelse_reserve b.yaml
	match allocate_orelse_reserve c.yaml
	free 1
	free 2
	match allocate_orelse_reserve c.yaml
	match allocate_orelse_reserve y.yaml
	EOF
	cat >expected <<-\EOF &&
	1: at=0 allocated
	1: node2: core[0]; node3: core[0]
	2: at=50 reserved
	2: node0: core[0]; node1: core[0]; node2: core[0]; node3: core[0]
	3: at=60 reserved
	3: node2: core[0]; node3: core[0]
	4: at=0 allocated
	4: node0: core[0]; node1: core[0]
	5: at=0 allocated
	5: node3: core[0]
	EOF
	respol query -P high -F short --now=0 --generate=nodes=4 -f s8 >out &&
	test_cmp expected out
'
test_expect_success 'match allocate_orelse_reserve, JSON: jobid=N, at=T, then R' '
	printf "match allocate_orelse_reserve w2.yaml\nmatch allocate_orelse_reserve w2.yaml\n" >s7 &&
	respol query --now=100 -F rv1_nosched -f s7 --generate=nodes=2 >out &&
	cat >expected <<-\EOF &&
	jobid=1
	at=100 allocated
	{"execution":{"R_lite":[{"children":{"core":"0"},"rank":"0-1"}],"expiration":200.0,"nodelist":["node[0-1]"],"starttime":100.0},"version":1}
	jobid=2
	at=200 reserved
	{"execution":{"R_lite":[{"children":{"core":"0"},"rank":"0-1"}],"expiration":300.0,"nodelist":["node[0-1]"],"starttime":200.0},"version":1}
	EOF
	test_cmp expected out
'

command -v script >/dev/null 2>&1 && test_set_prereq SCRIPT
test_expect_success SCRIPT 'on a terminal, the prompt is printed' '
	printf "quit\n" |
		script -qec "respol query --generate=nodes=1" /dev/null >out &&
	grep -q "respol> " out
'

test_expect_success 'words are split at any blank: tabs, CR, VT, FF, runs of them' '
	printf "match\tallocate \r slots.yaml\n  \v\f\n\fnosuch  cmd\t\r\n#\tcomment\n\t#x\nfree\t1 \n info  1\n" |
		test_expect_code 1 respol query -F short --generate=$GEN >out 2>err &&
	cat >expect <<-\EOF &&
	1: node0: core[0-3]
	EOF
	test_cmp expect out &&
	cat >expect <<-\EOF &&
	respol: query: line 3: nosuch cmd: unknown command '\''nosuch'\''
	respol: query: line 7: info 1: no job 1
	EOF
	test_cmp expect err
'

test_done
