#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='the binding map, and respol shell

respol run --dry-run and respol shell --dry-run print where each task
would run (a table, JSON, an SVG drawing) on this machine or on another
machine'"'"'s hwloc XML topology; respol shell runs one target'"'"'s tasks
of a job given its R and jobspec, for a launcher that starts it on each
node.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

FIX="$RESPOL_FIXTURE_PLUGINDIR"
TOPO="$RESPOL_DATA/topologies"
Q="'"

test_expect_success 'setup' '
	printf "plugin-path: [%s]\nshell:\n  - plugin: shell-fixture\n" \
		"$FIX" >fixture.yaml &&
	respol jobspec create -n2 hostname >job2.yaml &&
	respol jobspec create -N2 -n4 hostname >job4.yaml &&
	respol R encode --local >local.json &&
	respol R encode -r 0-1 -H node[0-1] --xml="$TOPO/eas-tioga.xml" \
		>two.json
'

# --- respol run --dry-run -----------------------------------------------------

test_expect_success 'the table: the job, then one row per task' '
	respol run --dry-run -n2 --xml="$TOPO/epyc-corona.xml" hostname >out &&
	head -n 2 out >got &&
	cat >expected <<-EOF &&
	host corona145 (rank 0): 2 of 2 tasks; the job holds PUs 0-1,48-49, cores 0-1, GPUs -
	TASK  PUS                  CORES  NUMA  PACKAGE  GPUS
	EOF
	test_cmp expected got &&
	test $(wc -l <out) -eq 4
'
test_expect_success 'JSON: every field of a task' '
	respol run --dry-run --format=json -n1 -g1 --xml="$TOPO/eas-tioga.xml" \
		hostname >map.json &&
	jq -e ".ntasks == 1 and .rank == 0 and (.taskmap | type == \"array\")" map.json &&
	jq -e ".tasks[0] | .id == 0 and .local_id == 0 and .rank == 0 and
		.bound == false and .gpus_bound == false and
		(.cpus | type == \"string\") and .cores == \"0\" and
		.mem.policy == \"default\" and .env == {}" map.json &&
	jq -e ".tasks[0].gpus[0] | .id == 0 and .vendor == \"amd\" and
		(.busid | test(\"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\\\\.[0-9a-f]$\")) and
		(.numa | type == \"number\") and .name == \"rsmi4\" and
		.index == 4" map.json
'
test_expect_success 'a plugin decision shows in the map, with who set what' '
	respol run --dry-run --format=json --config=fixture.yaml \
		-o fixture-env=X=1 -o fixture-cpus=1-1 -n1 -c2 \
		--xml="$TOPO/epyc-corona.xml" hostname >map.json &&
	jq -e ".tasks[0] | .bound == true and .cpus == \"1\" and .cores == \"1\" and
		.env.X == {\"value\": \"1\", \"by\": \"shell-fixture\"}" map.json &&
	respol run --dry-run --config=fixture.yaml -o fixture-env=X=1 \
		-o fixture-cpus=1-1 -n1 -c2 --xml="$TOPO/epyc-corona.xml" \
		hostname >out &&
	grep "^task 0: X=1 (shell-fixture)$" out
'
test_expect_success 'a memory policy shows in the table' '
	respol run --dry-run --config=fixture.yaml -o fixture-mems=0-0 \
		--xml="$TOPO/epyc-corona.xml" hostname >out &&
	grep "^task 0: memory bind to NUMA 0$" out
'
test_expect_success 'a dry run starts nothing' '
	respol run --dry-run touch ran >/dev/null &&
	! test -e ran
'
test_expect_success 'a dry run on this machine: the job holds what R says' '
	respol run --dry-run --format=json -n1 hostname >map.json &&
	jq -e ".tasks | length == 1" map.json &&
	jq -e ".host == \"$(hostname)\"" map.json
'
test_expect_success 'an XML file that is not there: named, exit 1' '
	test_expect_code 1 respol run --dry-run --xml=nothere.xml true 2>err &&
	grep "nothere.xml" err
'

# --- --svg ------------------------------------------------------------------------

command -v lstopo-no-graphics >/dev/null && test_set_prereq LSTOPO
test_expect_success LSTOPO '--svg draws each task in its colour, with a legend' '
	respol run --dry-run --config=fixture.yaml -o fixture-cpus=0-0 \
		--svg=map.svg --xml="$TOPO/epyc-corona.xml" hostname >/dev/null &&
	grep -q "<svg" map.svg &&
	grep -q "task 0: red, PUs 0, GPUs none" map.svg &&
	grep -q "rgb(230,25,75)" map.svg
'
test_expect_success LSTOPO 'an unbound task is drawn grey' '
	respol run --dry-run --svg=map.svg --xml="$TOPO/epyc-corona.xml" \
		hostname >/dev/null &&
	grep -q "task 0: grey (unbound)" map.svg
'
test_expect_success LSTOPO '--svg into a directory that is not there: exit 1' '
	test_expect_code 1 respol run --dry-run --svg=/no/such/dir/map.svg \
		--xml="$TOPO/epyc-corona.xml" hostname >/dev/null 2>err &&
	grep "^respol: run: --svg: " err
'
test_expect_success '--svg without lstopo says which package has it' '
	mkdir -p nolstopo &&
	for f in /usr/bin/* /bin/*; do
		case $f in */lstopo*) ;; *) ln -sf "$f" nolstopo/ ;; esac
	done &&
	test_expect_code 1 env PATH="$(pwd)/nolstopo" "$(command -v respol)" run --dry-run \
		--svg=map.svg --xml="$TOPO/epyc-corona.xml" hostname \
		>/dev/null 2>err &&
	grep "^respol: run: --svg: lstopo-no-graphics is not in PATH (Debian package hwloc)$" err
'

# --- respol shell ---------------------------------------------------------------

test_expect_success 'respol shell runs this machine'"'"'s tasks of R' '
	respol shell -R local.json job2.yaml >out &&
	test $(wc -l <out) -eq 2
'
test_expect_success 'respol shell finds its rank by host name' '
	respol shell --dry-run --format=json -R local.json job2.yaml >map.json &&
	jq -e ".rank == 0 and (.tasks | length) == 2" map.json
'
test_expect_success 'respol shell --rank=1 of two nodes: tasks 2 and 3' '
	respol shell --dry-run --format=json --rank=1 -R two.json \
		--xml="$TOPO/eas-tioga.xml" job4.yaml >map.json &&
	jq -e "[.tasks[].id] == [2, 3] and .ntasks == 4 and .rank == 1" map.json
'
test_expect_success 'respol shell --taskmap=cyclic: tasks 1 and 3 on rank 1' '
	respol shell --dry-run --format=json --rank=1 --taskmap=cyclic \
		-R two.json --xml="$TOPO/eas-tioga.xml" job4.yaml >map.json &&
	jq -e "[.tasks[].id] == [1, 3]" map.json
'
test_expect_success 'respol shell: a rank not in R, a host not in R' '
	test_error 1 "respol: shell: rank 5 is not in R" \
		respol shell --rank=5 -R two.json job4.yaml &&
	test_expect_code 1 respol shell -R two.json job4.yaml 2>err &&
	grep "^respol: shell: this host, $(hostname), is not in R${Q}s nodelist: give --rank$" err
'
test_expect_success 'respol shell: R whose GPUs this machine lacks is refused' '
	respol R encode -c 0 -g 0-63 >gpus.json &&
	respol jobspec create -n1 hostname >job1.yaml &&
	test_expect_code 1 respol shell -R gpus.json job1.yaml 2>err &&
	grep "^respol: shell: shell: rank 0: GPU [0-9]* of R is not in the topology, which has [0-9]*$" err
'
test_expect_success 'respol shell: bad usage' '
	test_error 2 "respol: shell: missing -R FILE (the job${Q}s R)
Try ${Q}respol shell --help${Q} for more information." respol shell job2.yaml &&
	test_expect_code 2 respol shell -R local.json 2>err &&
	grep "^respol: shell: missing JOBSPEC argument$" err &&
	test_expect_code 2 respol shell -R - - 2>err &&
	grep "^respol: shell: R and the jobspec cannot both be stdin$" err &&
	test_expect_code 2 respol shell --rank=x -R local.json job2.yaml 2>err &&
	grep "^respol: shell: --rank: ${Q}x${Q} is not a rank$" err &&
	test_expect_code 2 respol shell --xml=x.xml -R local.json job2.yaml 2>err &&
	grep "^respol: shell: --xml plans on another machine: it needs --dry-run$" err
'
test_expect_success 'respol shell: bad R and bad jobspec are named' '
	echo "{" >bad.json &&
	test_expect_code 1 respol shell -R bad.json job2.yaml 2>err &&
	grep "^respol: shell: bad.json: " err &&
	test_expect_code 1 respol shell -R nothere.json job2.yaml 2>err &&
	grep "^respol: shell: nothere.json: No such file or directory$" err &&
	echo "version: 1" >badjob.yaml &&
	test_expect_code 1 respol shell -R local.json badjob.yaml 2>err &&
	grep "badjob.yaml" err
'

test_done
