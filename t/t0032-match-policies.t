#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='the shipped match policies first, low, high, pack,
spread and locality: which nodes, cores and GPUs a sequence of jobs gets on
small generated clusters; choosing a policy with --policy, by the match
stack of the configuration, by instance name, by path; unknown policies;
the host refusing what the fixture policies bad-order and score-fails do,
with nothing allocated; configuration blocks of shipped policies'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

RESPOL_PLUGIN_PATH="$RESPOL_BUILD_MATCHDIR:$RESPOL_FIXTURE_PLUGINDIR"
export RESPOL_PLUGIN_PATH

Q="'"
RACKS=nodes=8,racks=2,cores=2
GPUS=nodes=2,sockets=2,cores=2,gpus=2

# nodes FILE N: N whole nodes (exclusive), one task on one core of each.
nodes() {
	cat >"$1" <<-EOF
	version: 1
	resources:
	  - {type: node, count: $2, exclusive: true, with: [{type: slot, count: 1, label: task, with: [{type: core, count: 1}]}]}
	tasks: [{command: [app], slot: task, count: {per_slot: 1}}]
	attributes: {system: {duration: 0}}
	EOF
}

# run POLICY SPEC COMMAND...: run the query commands (one per argument)
# with POLICY on the generated cluster SPEC, short output.
run() {
	_p=$1 _s=$2
	shift 2
	printf "%s\n" "$@" | respol query -F short -P "$_p" --generate="$_s"
}

# golden POLICY SPEC EXPECTED COMMAND...: run's output is EXPECTED.
golden() {
	_p=$1 _s=$2
	printf "%s" "$3" >expected &&
	shift 3 &&
	run "$_p" "$_s" "$@" >out &&
	test_cmp expected out
}

test_expect_success 'setup: jobs' '
	nodes n1.yaml 1 &&
	nodes n2.yaml 2 &&
	nodes n3.yaml 3 &&
	slot_jobspec c1.yaml "{type: core, count: 1}" &&
	slot_jobspec c2.yaml "{type: core, count: 2}" &&
	slot_jobspec c3.yaml "{type: core, count: 3}" &&
	slot_jobspec c1g1.yaml "{type: core, count: 1}, {type: gpu, count: 1}" &&
	slot_jobspec g1c1.yaml "{type: gpu, count: 1}, {type: core, count: 1}" &&
	slot_jobspec node0.yaml "{type: core, count: 1}" \
		"duration: 0, constraints: {hostlist: [node0]}"
'

# --- the shipped policies -------------------------------------------------

test_expect_success 'the shipped policies describe themselves' '
	for p in first low high pack spread locality; do
		respol plugin info "$RESPOL_BUILD_MATCHDIR/$p.so" |
			sed "/^file: /d" || return 1
	done >out &&
	cat >expected <<-EOF &&
	name: first
	kind: match
	version: 0.1.0
	abi: 1
	description: first fit: lowest ids first, stop at the first fit
	name: low
	kind: match
	version: 0.1.0
	abi: 1
	description: lowest ids first, looking at every candidate
	name: high
	kind: match
	version: 0.1.0
	abi: 1
	description: highest ids first, stop at the first fit
	name: pack
	kind: match
	version: 0.1.0
	abi: 1
	description: best fit: fill partly used resources first
	name: spread
	kind: match
	version: 0.1.0
	abi: 1
	description: worst fit: the least loaded resources first
	name: locality
	kind: match
	version: 0.1.0
	abi: 1
	description: keep a job within as few racks and sockets as it can
	EOF
	test_cmp expected out
'
test_expect_success 'the shipped policies export their descriptor and nothing else' '
	for p in first low high pack spread locality; do
		nm -D --defined-only "$RESPOL_BUILD_MATCHDIR/$p.so" |
			awk "\$2 !~ /^[wU]$/ { print \$3 }" || return 1
	done >out &&
	printf "respol_plugin\n%.0s" 1 2 3 4 5 6 >expected &&
	test_cmp expected out
'

# Whole nodes on 2 racks of 4 nodes (node0-3, node4-7): jobs of 1, 1 and 3
# nodes.

test_expect_success 'first: lowest ids first' '
	golden first $RACKS "1: node0: core[0-1]
2: node1: core[0-1]
3: node2: core[0-1]; node3: core[0-1]; node4: core[0-1]
" "match allocate n1.yaml" "match allocate n1.yaml" "match allocate n3.yaml"
'
test_expect_success 'low: lowest ids first' '
	golden low $RACKS "1: node0: core[0-1]
2: node1: core[0-1]
3: node2: core[0-1]; node3: core[0-1]; node4: core[0-1]
" "match allocate n1.yaml" "match allocate n1.yaml" "match allocate n3.yaml"
'
test_expect_success 'high: highest ids first' '
	golden high $RACKS "1: node7: core[0-1]
2: node6: core[0-1]
3: node3: core[0-1]; node4: core[0-1]; node5: core[0-1]
" "match allocate n1.yaml" "match allocate n1.yaml" "match allocate n3.yaml"
'
test_expect_success 'pack: the fuller rack first' '
	golden pack $RACKS "1: node0: core[0-1]
2: node1: core[0-1]
3: node2: core[0-1]; node3: core[0-1]; node4: core[0-1]
" "match allocate n1.yaml" "match allocate n1.yaml" "match allocate n3.yaml"
'
test_expect_success 'spread: the emptier rack first' '
	golden spread $RACKS "1: node0: core[0-1]
2: node4: core[0-1]
3: node1: core[0-1]; node2: core[0-1]; node3: core[0-1]
" "match allocate n1.yaml" "match allocate n1.yaml" "match allocate n3.yaml"
'
test_expect_success 'locality: the fullest rack that holds the whole job' '
	golden locality $RACKS "1: node0: core[0-1]
2: node1: core[0-1]
3: node4: core[0-1]; node5: core[0-1]; node6: core[0-1]
" "match allocate n1.yaml" "match allocate n1.yaml" "match allocate n3.yaml"
'
test_expect_success 'locality: a job no rack can hold: the emptiest rack first' '
	nodes n4.yaml 4 &&
	CMDS="match allocate n1.yaml
match allocate n1.yaml
match allocate n2.yaml
match allocate n4.yaml" &&
	golden locality nodes=9,racks=3 "1: node0: core[0]
2: node1: core[0]
3: node3: core[0]; node4: core[0]
4: node2: core[0]; node6: core[0]; node7: core[0]; node8: core[0]
" "$CMDS" &&
	golden first nodes=9,racks=3 "1: node0: core[0]
2: node1: core[0]
3: node2: core[0]; node3: core[0]
4: node4: core[0]; node5: core[0]; node6: core[0]; node7: core[0]
" "$CMDS"
'

# Cores and GPUs: 2 nodes of 2 sockets, each socket with 2 cores and 1 GPU
# (node: core0-1 gpu0 | core2-3 gpu1).

SEQ="match allocate c1.yaml
match allocate c1g1.yaml
match allocate c2.yaml
match allocate c1g1.yaml
match allocate c1.yaml"

test_expect_success 'first: cores and GPUs, lowest ids first' '
	golden first $GPUS "1: node0: core[0]
2: node0: core[1] gpu[0]
3: node0: core[2-3]
4: node1: core[0] gpu[0]
5: node1: core[1]
" "$SEQ"
'
test_expect_success 'low: cores and GPUs, lowest ids first' '
	golden low $GPUS "1: node0: core[0]
2: node0: core[1] gpu[0]
3: node0: core[2-3]
4: node1: core[0] gpu[0]
5: node1: core[1]
" "$SEQ"
'
test_expect_success 'high: cores and GPUs, highest ids first' '
	golden high $GPUS "1: node1: core[3]
2: node1: core[2] gpu[1]
3: node1: core[0-1]
4: node0: core[3] gpu[1]
5: node0: core[2]
" "$SEQ"
'
test_expect_success 'pack: cores and GPUs, the partly used node and socket first' '
	golden pack $GPUS "1: node0: core[0]
2: node0: core[1] gpu[0]
3: node0: core[2-3]
4: node1: core[0] gpu[0]
5: node1: core[1]
" "$SEQ"
'
test_expect_success 'spread: cores and GPUs, the least loaded node and socket first' '
	golden spread $GPUS "1: node0: core[0]
2: node1: core[0] gpu[0]
3: node0: core[2-3]
4: node1: core[2] gpu[1]
5: node1: core[1]
" "$SEQ"
'
test_expect_success 'locality: cores and GPUs, a slot within one socket' '
	golden locality $GPUS "1: node0: core[0]
2: node0: core[1] gpu[0]
3: node0: core[2-3]
4: node1: core[0] gpu[0]
5: node1: core[1]
" "$SEQ"
'

# Where the policies part: a partly used node, a socket with one core left.

test_expect_success 'first, pack, spread: a freed node and a partly used one' '
	CMDS="match allocate c2.yaml
match allocate c3.yaml
free 1
match allocate c1.yaml
match allocate c1.yaml" &&
	golden first nodes=2,cores=4 "1: node0: core[0-1]
2: node1: core[0-2]
3: node0: core[0]
4: node0: core[1]
" "$CMDS" &&
	golden pack nodes=2,cores=4 "1: node0: core[0-1]
2: node1: core[0-2]
3: node1: core[3]
4: node0: core[0]
" "$CMDS" &&
	golden spread nodes=2,cores=4 "1: node0: core[0-1]
2: node1: core[0-2]
3: node0: core[0]
4: node0: core[1]
" "$CMDS"
'
test_expect_success 'pack: a job'"'"'s slots fill one node before the next; spread: one per node' '
	cat >s2c2.yaml <<-\EOF &&
	version: 1
	resources:
	  - {type: slot, count: 2, label: task, with: [{type: core, count: 2}]}
	tasks: [{command: [app], slot: task, count: {per_slot: 1}}]
	attributes: {system: {duration: 0}}
	EOF
	sed "s/count: 2, label/count: 3, label/" s2c2.yaml >s3c2.yaml &&
	CMDS="match allocate c3.yaml
match allocate s2c2.yaml
match allocate s2c2.yaml" &&
	golden pack nodes=3,cores=4 "1: node0: core[0-2]
2: node1: core[0-3]
3: node2: core[0-3]
" "$CMDS" &&
	golden spread nodes=3,cores=4 "1: node0: core[0-2]
2: node1: core[0-1]; node2: core[0-1]
3: node1: core[2-3]; node2: core[2-3]
" "$CMDS" &&
	golden pack nodes=2,cores=6 "1: node0: core[0-1]
2: node0: core[2-5]; node1: core[0-1]
" "match allocate c2.yaml" "match allocate s3c2.yaml"
'
test_expect_success 'locality: two cores in the socket that holds both' '
	CMDS="match allocate c1.yaml
match allocate c2.yaml
match allocate c1g1.yaml" &&
	golden locality nodes=1,sockets=2,cores=2,gpus=2 "1: node0: core[0]
2: node0: core[2-3]
3: node0: core[1] gpu[0]
" "$CMDS" &&
	golden first nodes=1,sockets=2,cores=2,gpus=2 "1: node0: core[0]
2: node0: core[1-2]
3: node0: core[3] gpu[0]
" "$CMDS"
'
test_expect_success 'locality: a slot'"'"'s cores and GPU in the socket that holds them all' '
	slot_jobspec c2g1.yaml "{type: core, count: 2}, {type: gpu, count: 1}" &&
	golden locality nodes=1,sockets=2,cores=2,gpus=2 "1: node0: core[0]
2: node0: core[2-3] gpu[1]
" "match allocate c1.yaml" "match allocate c2g1.yaml" &&
	golden first nodes=1,sockets=2,cores=2,gpus=2 "1: node0: core[0]
2: node0: core[1-2] gpu[0]
" "match allocate c1.yaml" "match allocate c2g1.yaml"
'
test_expect_success 'locality: a GPU listed before the core, one socket' '
	golden locality nodes=1,sockets=2,cores=2,gpus=2 "1: node0: core[0-1]
2: node0: core[2] gpu[1]
" "match allocate c2.yaml" "match allocate g1c1.yaml" &&
	golden first nodes=1,sockets=2,cores=2,gpus=2 "1: node0: core[0-1]
2: node0: core[2] gpu[0]
" "match allocate c2.yaml" "match allocate g1c1.yaml"
'
test_expect_success 'locality: a slot'"'"'s GPU follows its cores into a partly used socket' '
	slot_jobspec c2g1.yaml "{type: core, count: 2}, {type: gpu, count: 1}" &&
	CMDS="match allocate c1.yaml
match allocate c1.yaml
match allocate c1.yaml
match allocate c2g1.yaml" &&
	golden locality nodes=1,sockets=2,cores=4,gpus=2 "1: node0: core[0]
2: node0: core[1]
3: node0: core[2]
4: node0: core[4-5] gpu[1]
" "$CMDS"
'
test_expect_success 'spread: two cores in the emptier socket' '
	golden spread nodes=1,sockets=2,cores=2,gpus=2 "1: node0: core[0]
2: node0: core[2-3]
3: node0: core[1] gpu[0]
" "match allocate c1.yaml" "match allocate c2.yaml" "match allocate c1g1.yaml"
'

# low orders by id, first by handle: they part on a graph whose vertices
# are not in id order (node1, rank 0, comes before node0, rank 1).

test_expect_success 'low: by id where handles are not in id order; first, high: by handle' '
	cat >swapped.json <<-\EOF &&
	{"respol-graph": 1,
	 "vertices": [{"id": 0, "type": "cluster"},
	              {"id": 1, "rank": 0, "type": "node"}, {"id": 0, "type": "core"},
	              {"id": 0, "rank": 1, "type": "node"}, {"id": 0, "type": "core"}],
	 "edges": [[0, 1], [1, 2], [0, 3], [3, 4]]}
	EOF
	for p in first low high; do
		printf "match allocate n1.yaml\nmatch allocate n1.yaml\n" |
			respol query -F short -P $p --graph=swapped.json || return 1
	done >out &&
	cat >expected <<-\EOF &&
	1: node1: core[0]
	2: node0: core[0]
	1: node0: core[0]
	2: node1: core[0]
	1: node0: core[0]
	2: node1: core[0]
	EOF
	test_cmp expected out
'

# --- choosing the policy --------------------------------------------------

test_expect_success '--policy picks a shipped policy (match allocate)' '
	respol match allocate --now=0 --policy=high --generate=$GPUS c1g1.yaml >R.json &&
	respol R decode --short <R.json >out &&
	echo "rank1/core3,gpu1" >expected &&
	test_cmp expected out &&
	respol match allocate --now=0 --policy=spread --generate=$GPUS c1g1.yaml |
		respol R decode --short >out &&
	echo "rank0/core0,gpu0" >expected &&
	test_cmp expected out
'
test_expect_success '--policy takes an absolute path' '
	respol match allocate --now=0 --policy="$RESPOL_BUILD_MATCHDIR/high.so" \
		--generate=$GPUS c1g1.yaml | respol R decode --short >out &&
	echo "rank1/core3,gpu1" >expected &&
	test_cmp expected out
'
test_expect_success 'query --policy is -P' '
	echo "match allocate n1.yaml" |
		respol query -F short --policy=high --generate=$RACKS >out &&
	echo "1: node7: core[0-1]" >expected &&
	test_cmp expected out
'
test_expect_success 'without a match stack the default is first' '
	respol match allocate --now=0 --generate=$GPUS c1g1.yaml |
		respol R decode --short >out &&
	echo "rank0/core0,gpu0" >expected &&
	test_cmp expected out &&
	printf "match allocate n1.yaml\nmatch allocate n1.yaml\n" |
		respol query -F short --generate=$RACKS >out &&
	printf "1: node0: core[0-1]\n2: node1: core[0-1]\n" >expected &&
	test_cmp expected out
'
test_expect_success 'the first entry of the match stack is the default' '
	cat >stack.yaml <<-\EOF &&
	match:
	  - plugin: spread
	  - plugin: high
	EOF
	printf "match allocate n1.yaml\nmatch allocate n1.yaml\n" |
		respol query --config=stack.yaml -F short --generate=$RACKS >out &&
	printf "1: node0: core[0-1]\n2: node4: core[0-1]\n" >expected &&
	test_cmp expected out &&
	RESPOL_CONFIG=stack.yaml respol query -F short --generate=$RACKS \
		<<-\EOF >out &&
	match allocate n1.yaml
	match allocate n1.yaml
	EOF
	test_cmp expected out &&
	echo "match allocate n1.yaml" |
		respol query --config=stack.yaml -P high -F short --generate=$RACKS >out &&
	echo "1: node7: core[0-1]" >expected &&
	test_cmp expected out
'
test_expect_success 'an instance is chosen by its name, before a plugin of that name' '
	cat >named.yaml <<-\EOF &&
	match:
	  - plugin: spread
	    name: wide
	  - plugin: high
	    name: first
	EOF
	echo "match allocate n1.yaml" |
		respol query --config=named.yaml -P first -F short --generate=$RACKS >out &&
	echo "1: node7: core[0-1]" >expected &&
	test_cmp expected out &&
	printf "match allocate n1.yaml\nmatch allocate n1.yaml\n" |
		respol query --config=named.yaml -P wide -F short --generate=$RACKS >out &&
	printf "1: node0: core[0-1]\n2: node4: core[0-1]\n" >expected &&
	test_cmp expected out &&
	respol match allocate --now=0 --config=named.yaml --policy=first \
		--generate=$GPUS c1g1.yaml | respol R decode --short >out &&
	echo "rank1/core3,gpu1" >expected &&
	test_cmp expected out
'
test_expect_success 'a policy not in the stack is loaded by name' '
	echo "match allocate n1.yaml" |
		respol query --config=named.yaml -P low -F short --generate=$RACKS >out &&
	echo "1: node0: core[0-1]" >expected &&
	test_cmp expected out
'
test_expect_success 'an unknown policy: the loader'"'"'s message, exit 1' '
	PLUGINDIR=$(respol plugin --help |
		sed -n "s/.*RESPOL_PLUGIN_PATH, then \(.*\)\.$/\1/p") &&
	test -n "$PLUGINDIR" &&
	test_error 1 "respol: match: plugin ${Q}nope${Q} not found in $RESPOL_PLUGIN_PATH:$PLUGINDIR" \
		respol match allocate --policy=nope --generate=$RACKS n1.yaml &&
	test_error 1 "respol: query: plugin ${Q}nope${Q} not found in $RESPOL_PLUGIN_PATH:$PLUGINDIR" \
		respol query -P nope --generate=$RACKS </dev/null
'
test_expect_success 'a policy name that is no plugin name, a relative path' '
	test_error 1 "respol: match: invalid plugin name ${Q}a b${Q} (letters, digits, ${Q}-${Q} and ${Q}_${Q}, 1-64 bytes; or an absolute path)" \
		respol match allocate "--policy=a b" --generate=$RACKS n1.yaml &&
	test_error 1 "respol: match: plugin path ${Q}x/high.so${Q} is relative (use a name or an absolute path)" \
		respol match allocate --policy=x/high.so --generate=$RACKS n1.yaml
'
test_expect_success 'a validator is no match policy' '
	RESPOL_PLUGIN_PATH="$RESPOL_BUILD_PLUGINDIR" \
		respol match allocate --policy=limits --generate=$RACKS n1.yaml 2>err;
	test $? = 1 &&
	sed "s|^respol: match: /.*/limits.so: |respol: match: DIR/limits.so: |" err >out &&
	echo "respol: match: DIR/limits.so: plugin ${Q}limits${Q} is a validate plugin, configured in the match stack" >expected &&
	test_cmp expected out
'

# --- configuration blocks ---------------------------------------------------

test_expect_success 'a shipped policy refuses a configuration block' '
	for p in first low high pack spread locality; do
		printf "match:\n  - plugin: %s\n    config: {x: 1}\n" $p >block.yaml &&
		test_error 1 "respol: config: block.yaml:3:13: match[0] $Q$p$Q: takes no configuration (the plugin has no init)" \
			respol config check block.yaml || return 1
	done
'
test_expect_success 'a match command with such a configuration fails' '
	printf "match:\n  - plugin: pack\n    config: {x: 1}\n" >block.yaml &&
	test_error 1 "respol: match: block.yaml:3:13: match[0] ${Q}pack${Q}: takes no configuration (the plugin has no init)" \
		respol match allocate --config=block.yaml --generate=$RACKS n1.yaml
'
test_expect_success 'the match stack commented out in conf/respol.yaml loads' '
	cp "$RESPOL_SRCDIR/conf/respol.yaml" default.yaml &&
	respol config check default.yaml >out &&
	echo "default.yaml: ok: 3 plugins loaded, checked and initialised with their configuration blocks (shell: cpu-affinity, gpu-affinity, openmp); no jobspec was run through them" >expected &&
	test_cmp expected out &&
	sed -n "/^# match:\$/,/^\$/p" "$RESPOL_SRCDIR/conf/respol.yaml" |
		sed "s/^# \{0,1\}//" >example.yaml &&
	respol config check example.yaml >out &&
	echo "example.yaml: ok: 2 plugins loaded, checked and initialised with their configuration blocks (match: pack, wide); no jobspec was run through them" >expected &&
	test_cmp expected out
'

# --- what the host refuses ----------------------------------------------------

STAT_FREE='{"jobs":0,"targets":{"down":0,"drained":0,"removed":0,"up":2},"types":{"cluster":{"down":0,"free":1,"total":1},"core":{"down":0,"free":2,"total":2},"node":{"down":0,"free":2,"total":2},"socket":{"down":0,"free":2,"total":2}},"vertices":7}'

test_expect_success 'bad-order: not a permutation; nothing allocated' '
	cat >expected <<-EOF &&
	$STAT_FREE
	1: node0: core[0]
	EOF
	cat >cmds <<-\EOF &&
	match allocate n2.yaml
	stat
	match allocate node0.yaml
	EOF
	test_expect_code 3 respol query -F short -P bad-order --generate=nodes=2 \
		-f cmds >out 2>err &&
	test_cmp expected out &&
	echo "respol: query: line 1: match allocate n2.yaml: policy ${Q}bad-order${Q}: order_candidates did not return a permutation of the candidates" >expected &&
	test_cmp expected err
'
test_expect_success 'bad-order: match allocate fails with the instance name, exit 3' '
	printf "match:\n  - plugin: bad-order\n    name: shuffle\n" >shuffle.yaml &&
	test_error 3 "respol: match: policy ${Q}shuffle${Q}: order_candidates did not return a permutation of the candidates" \
		respol match allocate --config=shuffle.yaml --generate=nodes=2 n1.yaml
'
test_expect_success 'score-fails: its message; nothing allocated' '
	cat >cmds <<-\EOF &&
	match allocate n1.yaml
	stat
	match satisfiability n1.yaml
	EOF
	test_expect_code 3 respol query -F short -P score-fails \
		--generate=nodes=2 -f cmds >out 2>err &&
	echo "$STAT_FREE" >expected &&
	test_cmp expected out &&
	cat >expected <<-EOF &&
	respol: query: line 1: match allocate n1.yaml: policy ${Q}score-fails${Q}: score failed: score failed on purpose
	respol: query: line 3: match satisfiability n1.yaml: policy ${Q}score-fails${Q}: score failed: score failed on purpose
	EOF
	test_cmp expected err
'
test_expect_success 'score-fails: match allocate and satisfiability fail, exit 3' '
	test_error 3 "respol: match: policy ${Q}score-fails${Q}: score failed: score failed on purpose" \
		respol match allocate --policy=score-fails --generate=nodes=2 n1.yaml &&
	test_error 3 "respol: match: policy ${Q}score-fails${Q}: score failed: score failed on purpose" \
		respol match satisfiability --policy=score-fails --generate=nodes=2 n1.yaml
'
test_expect_success 'score-fails refuses a configuration block in its init' '
	printf "match:\n  - plugin: score-fails\n    config: {a: 1}\n" >sf.yaml &&
	test_error 1 "respol: config: sf.yaml:3:13: match[0] ${Q}score-fails${Q}: init failed: takes no configuration" \
		respol config check sf.yaml
'

test_done
