#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='the feasibility validator: every bad configuration
block with its message; resources from a generator spec, R, a graph file
and hwloc XML; jobs accepted, rejected as never satisfiable with the
matcher'"'"'s reason, and a request the matcher cannot place as a plugin
failure, through respol jobspec validate'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

RESPOL_PLUGIN_PATH="$RESPOL_BUILD_PLUGINDIR"
export RESPOL_PLUGIN_PATH

Q="'"
GEN=nodes=4,sockets=2,cores=4,gpus=2

# feasible FILE BLOCK: a configuration whose validate stack is feasibility
# with the flow-style BLOCK.
feasible() {
	printf "validate:\n  - plugin: feasibility\n    config: %s\n" "$2" >"$1"
}

# check_block BLOCK MESSAGE: feasibility with BLOCK fails to load with
# MESSAGE (at line 3, column 13: the block).
check_block() {
	feasible block.yaml "$1" &&
	test_error 1 "respol: config: block.yaml:3:13: validate[0] ${Q}feasibility$Q: init failed: $2" \
		respol config check block.yaml
}

# job FILE NODES SLOTS-PER-NODE CORES-PER-SLOT GPUS-PER-SLOT
#     [CONSTRAINTS]: a V1 jobspec, one task per slot.
job() {
	{
		printf "version: 1\nresources:\n"
		printf "  - {type: node, count: %s, with: [{type: slot, count: %s, label: task, with: [{type: core, count: %s}" "$2" "$3" "$4"
		test "$5" = 0 || printf ", {type: gpu, count: %s}" "$5"
		printf "]}]}\n"
		printf "tasks: [{command: [app], slot: task, count: {per_slot: 1}}]\n"
		printf "attributes:\n  system:\n    duration: 60\n"
		test -z "$6" || printf "    constraints: %s\n" "$6"
	} >"$1"
}

# accepts CONFIG JOB [OPTION]: validate accepts JOB silently.
accepts() {
	respol jobspec validate $3 --config="$1" "$2" >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err
}

# rejects CONFIG JOB MESSAGE [OPTION]: validate rejects JOB with MESSAGE.
rejects() {
	test_error 1 "respol: jobspec: $2: $3" \
		respol jobspec validate $4 --config="$1" "$2"
}

# --- descriptor and configuration -------------------------------------------

test_expect_success 'feasibility describes itself' '
	respol plugin info "$RESPOL_BUILD_PLUGINDIR/feasibility.so" |
		sed "/^file: /d" >out &&
	cat >expected <<-\EOF &&
	name: feasibility
	kind: validate
	version: 0.1.0
	abi: 1
	description: reject jobs the configured resources can never satisfy
	EOF
	test_cmp expected out
'
test_expect_success 'feasibility exports its descriptor and nothing else' '
	nm -D --defined-only "$RESPOL_BUILD_PLUGINDIR/feasibility.so" |
		awk "\$2 !~ /^[wU]$/ { print \$3 }" >out &&
	echo respol_plugin >expected &&
	test_cmp expected out
'
test_expect_success 'a block with one source loads' '
	feasible gen.yaml "{generate: \"$GEN\"}" &&
	respol config check gen.yaml >out &&
	echo "gen.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (validate: feasibility); no jobspec was run through it" >expected &&
	test_cmp expected out
'
test_expect_success 'no source, or no block at all' '
	check_block "{}" "one of R, graph, xml, generate is required" &&
	printf "validate:\n  - plugin: feasibility\n" >none.yaml &&
	test_error 1 "respol: config: none.yaml:2:5: validate[0] ${Q}feasibility$Q: init failed: one of R, graph, xml, generate is required" \
		respol config check none.yaml
'
test_expect_success 'an unknown key, refused by the host at the key' '
	feasible block.yaml "{file: /R.json}" &&
	test_error 1 "respol: config: block.yaml:3:14: validate[0] ${Q}feasibility$Q: unknown key ${Q}file$Q" \
		respol config check block.yaml &&
	feasible block.yaml "{generate: nodes=1, grpah: /g.json}" &&
	test_error 1 "respol: config: block.yaml:3:33: validate[0] ${Q}feasibility$Q: unknown key ${Q}grpah$Q; did you mean ${Q}graph$Q?" \
		respol config check block.yaml
'
test_expect_success 'two sources' '
	check_block "{R: /a.json, xml: /b.xml}" \
		"${Q}R$Q and ${Q}xml$Q: give only one of R, graph, xml, generate" &&
	check_block "{generate: nodes=1, graph: /g.json}" \
		"${Q}generate$Q and ${Q}graph$Q: give only one of R, graph, xml, generate"
'
test_expect_success 'a value that is no non-empty string' '
	check_block "{R: 1}" "R: must be a non-empty string" &&
	check_block "{graph: \"\"}" "graph: must be a non-empty string" &&
	check_block "{xml: [/a.xml]}" "xml: must be a non-empty string" &&
	check_block "{generate: ~}" "generate: must be a non-empty string" &&
	check_block "{generate: {nodes: 1}}" "generate: must be a non-empty string"
'
test_expect_success 'a relative path' '
	check_block "{R: R.json}" "R: ${Q}R.json$Q is not an absolute path" &&
	check_block "{graph: ./g.json}" "graph: ${Q}./g.json$Q is not an absolute path" &&
	check_block "{xml: t.xml}" "xml: ${Q}t.xml$Q is not an absolute path"
'
test_expect_success 'a missing file: the reader'"'"'s message' '
	check_block "{R: $PWD/nosuch.json}" "$PWD/nosuch.json: No such file or directory" &&
	check_block "{graph: $PWD/nosuch.json}" "$PWD/nosuch.json: No such file or directory"
'
test_expect_success 'a file that is not what it should be: the reader'"'"'s message' '
	echo "{\"version\": 2}" >bad-R.json &&
	feasible block.yaml "{R: $PWD/bad-R.json}" &&
	test_expect_code 1 respol config check block.yaml 2>err &&
	grep "^respol: config: block.yaml:3:13: validate\[0\] .feasibility.: init failed: .*version" err &&
	test $(wc -l <err) = 1 &&
	echo "not json" >bad-graph.json &&
	feasible block.yaml "{graph: $PWD/bad-graph.json}" &&
	test_expect_code 1 respol config check block.yaml 2>err &&
	grep "^respol: config: block.yaml:3:13: validate\[0\] .feasibility.: init failed: " err &&
	test $(wc -l <err) = 1
'
test_expect_success 'a bad generator spec: the generator'"'"'s message' '
	check_block "{generate: nodes=0}" "nodes=0: not a positive integer" &&
	check_block "{generate: bogus}" "${Q}bogus$Q: expected key=value"
'

# --- accept and reject ------------------------------------------------------

test_expect_success 'setup: jobs' '
	job fits.yaml 4 2 4 1 &&
	job one.yaml 1 1 1 0 &&
	job nodes5.yaml 5 1 1 0 &&
	job gpus3.yaml 1 1 1 3 &&
	job cores9.yaml 1 1 9 0 &&
	job nofast.yaml 1 1 1 0 "{properties: [fast]}"
'
test_expect_success 'generate: a job that fits is accepted' '
	accepts gen.yaml fits.yaml &&
	accepts gen.yaml one.yaml
'
test_expect_success 'generate: jobs that never fit are rejected with the reason' '
	rejects gen.yaml nodes5.yaml \
		"feasibility: never satisfiable: needs 5 nodes with 1 slot of 1 core each, the resource set has 4" &&
	rejects gen.yaml gpus3.yaml \
		"feasibility: never satisfiable: needs 1 node with 1 slot of 1 core and 3 GPUs, the resource set has 0" &&
	rejects gen.yaml cores9.yaml \
		"feasibility: never satisfiable: needs 1 node with 1 slot of 9 cores, the resource set has 0"
'
test_expect_success 'constraints no resource meets are never satisfiable' '
	rejects gen.yaml nofast.yaml \
		"feasibility: never satisfiable: needs 1 node with 1 slot of 1 core, the resource set has 0 matching the constraints"
'
test_expect_success 'a type the resources lack (canonical)' '
	slot_jobspec fpga.yaml "{type: core, count: 1}, {type: fpga, count: 1}" "duration: 60" &&
	rejects gen.yaml fpga.yaml \
		"feasibility: never satisfiable: no resource of type ${Q}fpga$Q" \
		--profile=canonical
'
test_expect_success 'memory pools (canonical)' '
	feasible mem.yaml "{generate: \"nodes=2,memory=16GB\"}" &&
	slot_jobspec mem4.yaml "{type: core, count: 1}, {type: memory, count: 4}" "duration: 60" &&
	sed "s/count: 4}/count: 40}/" mem4.yaml >mem40.yaml &&
	accepts mem.yaml mem4.yaml --profile=canonical &&
	rejects mem.yaml mem40.yaml \
		"feasibility: never satisfiable: needs 1 slot of 1 core and 40 GB of memory, 0 fit" \
		--profile=canonical
'
test_expect_success 'feasibility judges the jobspec in the profile the host read' '
	slot_jobspec range8.yaml "{type: core, count: \"8+\"}" "duration: 60" &&
	slot_jobspec range9.yaml "{type: core, count: \"9+\"}" "duration: 60" &&
	test_error 1 "respol: jobspec: range8.yaml:3:68: resources[0].with[0].count: must be an integer in jobspec V1" \
		respol jobspec validate --config=gen.yaml range8.yaml &&
	accepts gen.yaml range8.yaml --profile=canonical &&
	rejects gen.yaml range9.yaml \
		"feasibility: never satisfiable: needs 1 slot of at least 9 cores, 0 fit" \
		--profile=canonical
'
test_expect_success 'a slot inside a slot: the storage request (canonical)' '
	feasible storage.yaml "{graph: $RESPOL_DATA/match-conformance/storage.json}" &&
	cp "$RESPOL_DATA/jobspec/conformance/storage/storage_slots.yaml" two.yaml &&
	sed "s/count: 2\$/count: 4/" two.yaml >four.yaml &&
	accepts storage.yaml two.yaml --profile=canonical &&
	rejects storage.yaml four.yaml \
		"feasibility: never satisfiable: needs 4 slots of 1 ssd and 1 node with 1 slot of 5 cores and 7 GPUs each, 3 fit" \
		--profile=canonical
'
test_expect_success 'a request the matcher cannot place is a plugin failure, exit 3' '
	slot_jobspec pool.yaml "{type: memory, count: 4, with: [{type: core, count: 1}]}" "duration: 60" &&
	test_error 3 "respol: jobspec: pool.yaml: feasibility: plugin failed: memory: a pool cannot hold other resources" \
		respol jobspec validate --profile=canonical --config=mem.yaml pool.yaml
'
test_expect_success 'R: the resources of an R file' '
	respol R encode -r 0-3 -c 0-7 -g 0-1 -H "node[0-3]" >R.json &&
	feasible r.yaml "{R: $PWD/R.json}" &&
	accepts r.yaml fits.yaml &&
	rejects r.yaml nodes5.yaml \
		"feasibility: never satisfiable: needs 5 nodes with 1 slot of 1 core each, the resource set has 4"
'
test_expect_success 'graph: a graph file; states are ignored' '
	respol graph export --generate=nodes=2,cores=2 |
		sed "s/\"rank\":1,\"type\":\"node\"/\"rank\":1,\"state\":\"down\",\"type\":\"node\"/" >down.json &&
	grep -q "\"state\":\"down\"" down.json &&
	feasible g.yaml "{graph: $PWD/down.json}" &&
	job two.yaml 2 1 2 0 &&
	job three.yaml 3 1 1 0 &&
	accepts g.yaml two.yaml &&
	rejects g.yaml three.yaml \
		"feasibility: never satisfiable: needs 3 nodes with 1 slot of 1 core each, the resource set has 2"
'
test_expect_success 'graph: JGF too' '
	respol graph export --format=jgf --generate=nodes=2,cores=2 >g.jgf &&
	feasible jgf.yaml "{graph: $PWD/g.jgf}" &&
	accepts jgf.yaml two.yaml &&
	rejects jgf.yaml three.yaml \
		"feasibility: never satisfiable: needs 3 nodes with 1 slot of 1 core each, the resource set has 2"
'
test_expect_success 'xml: one node of an hwloc topology (40 cores, 4 GPUs)' '
	feasible x.yaml "{xml: $RESPOL_DATA/topologies/coral-lassen.xml}" &&
	job lassen.yaml 1 4 10 1 &&
	accepts x.yaml lassen.yaml &&
	job lassen-gpus.yaml 1 5 1 1 &&
	rejects x.yaml lassen-gpus.yaml \
		"feasibility: never satisfiable: needs 1 node with 5 slots of 1 core and 1 GPU, the resource set has 0" &&
	rejects x.yaml nodes5.yaml \
		"feasibility: never satisfiable: needs 5 nodes with 1 slot of 1 core each, the resource set has 1"
'
test_expect_success 'xml: the node has the host name the topology records' '
	slot_jobspec on-lassen28.yaml "{type: core, count: 1}" \
		"duration: 60, constraints: {hostlist: [lassen28]}" &&
	sed "s/lassen28/lassen29/" on-lassen28.yaml >on-lassen29.yaml &&
	accepts x.yaml on-lassen28.yaml &&
	rejects x.yaml on-lassen29.yaml \
		"feasibility: never satisfiable: needs 1 slot of 1 core, 0 fit matching the constraints"
'
test_expect_success 'feasibility after an amending validator sees the amendment' '
	printf "validate:\n  - plugin: queues\n    config: {default: fast, queues: {fast: {requires: [fast]}}}\n  - plugin: feasibility\n    config: {generate: \"%s\"}\n" \
		"$GEN" >q.yaml &&
	rejects q.yaml one.yaml \
		"feasibility: never satisfiable: needs 1 node with 1 slot of 1 core, the resource set has 0 matching the constraints"
'
test_expect_success 'the example commented out in conf/respol.yaml is feasibility' '
	sed -n "/^#   - plugin: feasibility\$/,/^\$/p" "$RESPOL_SRCDIR/conf/respol.yaml" |
		sed "s/^#//" >entry &&
	{ echo "validate:" && cat entry; } >example.yaml &&
	test_expect_code 1 respol config check example.yaml 2>err &&
	echo "respol: config: example.yaml:4:8: validate[0] ${Q}feasibility$Q: init failed: /etc/respol/R.json: No such file or directory" >expected &&
	test_cmp expected err
'

test_done
