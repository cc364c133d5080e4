#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='the shipped property plugins: hostlist-properties,
hwloc-properties on real machines'\'' topologies, property-compare with
R filter, respol match, and respol query applying the RFC 28 stream;
every error of their blocks'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/resource"
TOPO="$RESPOL_DATA/topologies"
unset RESPOL_STATE_DIR

# check_error PLUGIN BLOCK MESSAGE: the configuration does not load, with
# MESSAGE after "respol: config: c.yaml:3:13: property[0] 'PLUGIN': ".
check_error() {
	property_config c.yaml "$1" "$2" &&
	test_error 1 "respol: config: c.yaml:3:13: property[0] '$1': init failed: $3" \
		respol config check c.yaml
}

test_expect_success 'setup' '
	cp "$D"/R4.json .
'

# hostlist-properties

test_expect_success 'hostlist-properties: properties from hostlists' '
	property_config hl.yaml hostlist-properties \
		"{gpu: \"node[0-1]\", bigmem: [node2, node9], \"+debug\": node0}" &&
	respol resource --state=hl --config=hl.yaml -R R4.json --now=5 \
		list -n >out &&
	cat >expected <<-\EOF &&
	        up +debug,gpu      1      8     2 node0
	        up gpu             1      8     2 node1
	        up bigmem,ssd      1      8     2 node2
	        up ssd             1      8     2 node3
	      down                 0      0     0 
	EOF
	test_cmp expected out
'
test_expect_success 'hostlist-properties: hosts not in the inventory are logged' '
	respol resource -v --state=hl --config=hl.yaml -R R4.json list \
		>/dev/null 2>err &&
	grep "^respol: resource: hostlist-properties: info: bigmem: 1 host not in the inventory$" err
'
test_expect_success 'hostlist-properties: a bad property name' '
	check_error hostlist-properties "{\"a b\": node0}" \
		"property name \"a b\": illegal character '"'"' '"'"' at offset 1"
'
test_expect_success 'hostlist-properties: a bad hostlist' '
	check_error hostlist-properties "{gpu: \"node[0-\"}" \
		"gpu: hostlist: \"node[0-\": missing '"'"']'"'"' at offset 7"
'
test_expect_success 'hostlist-properties: not a hostlist' '
	check_error hostlist-properties "{gpu: {a: b}}" \
		"gpu: must be a hostlist or a list of them"
'
test_expect_success 'hostlist-properties: no host' '
	check_error hostlist-properties "{gpu: []}" "gpu: no host"
'

# hwloc-properties

test_expect_success 'hwloc-properties: names for what hwloc shows' '
	cat >hw.yaml <<-\EOF &&
	property:
	  - plugin: hwloc-properties
	    config:
	      cpu-vendor: {GenuineIntel: intel, AuthenticAMD: amd}
	      cpu-model: {"*E5-2695 v4*": broadwell, "*EPYC*": zen}
	      gpu-vendor: {nvidia: nvidia, amd: amd-gpu}
	      gpu-model: {"*V100*": v100, "*MI200*": mi200, "*": other-gpu}
	      memory: {"0": mem-small, 120G: mem-128g, 500G: mem-512g}
	      numa: {"1": numa1, "2": numa2, "4": numa4}
	      values: [memory, numa, gpus]
	EOF
	rm -f out &&
	for t in cts1-quartz-smt1 eas-tioga coral-lassen; do
		respol resource --state=$t --config=hw.yaml --xml="$TOPO/$t.xml" \
			--now=5 list -n >>out || return 1
	done &&
	cat >expected <<-\EOF &&
	        up broadwell,gpus=0,intel,mem-128g,memory=128515M,numa2,numa=2      1     36 quartz386
	      down                                                                  0      0 
	        up amd,amd-gpu,gpus=8,mem-512g,memory=515476M,mi200,numa4,numa=4,zen      1     64     8 tioga29
	      down                                                                        0      0     0 
	        up gpus=4,mem-128g,memory=261561M,numa2,numa=2,nvidia,v100      1     40     4 lassen28
	      down                                                              0      0     0 
	EOF
	test_cmp expected out
'
test_expect_success 'hwloc-properties: the events name the plugin' '
	grep -c "\"plugin\":\"hwloc-properties\"" eas-tioga/eventlog >n &&
	echo 1 >expected &&
	test_cmp expected n
'
test_expect_success 'hwloc-properties: R without hardware gets nothing' '
	respol resource --state=r --config=hw.yaml -R R4.json --now=5 list &&
	! grep property-add r/eventlog
'
test_expect_success 'hwloc-properties: this machine (--local)' '
	respol resource --state=local --config=hw.yaml --local --now=5 \
		list -n >out &&
	grep "memory=" out &&
	grep "numa=" out
'
test_expect_success 'hwloc-properties: an unknown key, at the key' '
	property_config c.yaml hwloc-properties "{cpu-vendr: {a: b}}" &&
	test_error 1 "respol: config: c.yaml:3:14: property[0] '"'"'hwloc-properties'"'"': unknown key '"'"'cpu-vendr'"'"'; did you mean '"'"'cpu-vendor'"'"'?" \
		respol config check c.yaml
'
test_expect_success 'hwloc-properties: a threshold that is not a size' '
	check_error hwloc-properties "{memory: {lots: big}}" \
		"memory: \"lots\" is not a size"
'
test_expect_success 'hwloc-properties: a bad property name' '
	check_error hwloc-properties "{cpu-model: {\"*\": \"a|b\"}}" \
		"cpu-model: *: property name \"a|b\": illegal character '"'"'|'"'"' at offset 1"
'
test_expect_success 'hwloc-properties: not a mapping' '
	check_error hwloc-properties "{gpu-model: [v100]}" \
		"gpu-model: must be a mapping of patterns to property names"
'
test_expect_success 'hwloc-properties: an unknown fact' '
	check_error hwloc-properties "{values: [memory, speed]}" \
		"values[1]: must be one of memory, numa, cores, pus, packages, gpus"
'
test_expect_success 'hwloc-properties: values not a list' '
	check_error hwloc-properties "{values: memory}" \
		"values: must be a list of facts (memory, numa, cores, pus, packages, gpus)"
'
test_expect_success 'hwloc-properties: a name that is not a string' '
	check_error hwloc-properties "{cpu-vendor: {GenuineIntel: [a]}}" \
		"cpu-vendor: GenuineIntel: must be a property name"
'
test_expect_success 'hwloc-properties: a NUMA threshold that is not a count' '
	check_error hwloc-properties "{numa: {two: numa2}}" \
		"numa: \"two\" is not a count"
'

# property-compare

test_expect_success 'property-compare: setup' '
	property_config cmp.yaml property-compare "{keys: [memory, numa]}" &&
	cat >mem.yaml <<-\EOF &&
	property:
	  - plugin: hostlist-properties
	    config: {"memory=256G": "node[0-1]", "memory=1T": node2, "memory=lots": node3}
	  - plugin: property-compare
	    config: {keys: [memory]}
	EOF
	respol resource --state=mem --config=mem.yaml -R R4.json --now=5 list &&
	respol resource --state=mem acquire >stream &&
	head -n 1 stream | jq -c .resources >Rmem.json
'
test_expect_success 'property-compare: R filter, as JSON and as a query' '
	respol R filter --config=cmp.yaml "{\"memory-ge\": [\"512G\"]}" \
		<Rmem.json | jq -r ".execution.R_lite[].rank" >out &&
	echo 2 >expected &&
	test_cmp expected out &&
	respol R filter --config=cmp.yaml "memory-lt:1T" <Rmem.json |
		jq -r ".execution.R_lite[].rank" >out &&
	echo 0-1 >expected &&
	test_cmp expected out
'
test_expect_success 'property-compare: every operator' '
	for c in "memory-ge:256G=0-2" "memory-gt:256G=2" "memory-le:256G=0-1" \
		"memory-lt:256G=-" "memory-eq:262144M=0-1" \
		"not memory-ge:1T=0-1,3" "numa-ge:1=-"; do
		q=${c%=*} want=${c##*=} &&
		got=$(respol R filter --config=cmp.yaml "$q" <Rmem.json |
			jq -r "[.execution.R_lite[].rank] | join(\",\")") &&
		test "${got:--}" = "$want" || { echo "$q: $got, not $want"; return 1; }
	done
'
test_expect_success 'property-compare: several values must all hold' '
	respol R filter --config=cmp.yaml "{\"memory-ge\": [\"1G\", \"512G\"]}" \
		<Rmem.json | jq -r ".execution.R_lite[].rank" >out &&
	echo 2 >expected &&
	test_cmp expected out
'
test_expect_success 'property-compare: respol match places on memory-ge' '
	cat >big.yaml <<-\EOF &&
	version: 1
	resources: [{type: node, count: 1, exclusive: true, with: [{type: slot, count: 1, label: s, with: [{type: core, count: 1}]}]}]
	tasks: [{command: [a], slot: s, count: {per_slot: 1}}]
	attributes: {system: {duration: 0, constraints: {memory-ge: [512G]}}}
	EOF
	respol match allocate --config=cmp.yaml -R Rmem.json big.yaml |
		jq -r ".execution.R_lite[].rank" >out &&
	echo 2 >expected &&
	test_cmp expected out
'
test_expect_success 'property-compare: respol query on the RFC 28 stream' '
	printf "acquire stream\nmatch allocate big.yaml\nmatch allocate big.yaml\n" >script &&
	test_expect_code 1 respol query --config=cmp.yaml -F short \
		--generate=nodes=1 -f script >out 2>err &&
	echo "1: node2: core[0-7] gpu[0-1]" >expected &&
	test_cmp expected out &&
	echo "respol: query: line 3: match allocate big.yaml: not satisfiable now: needs 1 node with 1 slot of 1 core, 0 matching the constraints are free" >expected &&
	test_cmp expected err
'
test_expect_success 'property-compare: a property added at run time counts at once' '
	respol resource --state=mem --now=6 property-add 3 memory=2T &&
	respol resource --state=mem acquire >stream2 &&
	printf "acquire stream2\nmatch allocate big.yaml\nmatch allocate big.yaml\n" >script &&
	respol query --config=cmp.yaml -F short --generate=nodes=1 -f script \
		>out &&
	cat >expected <<-\EOF &&
	1: node2: core[0-7] gpu[0-1]
	2: node3: core[0-7] gpu[0-1]
	EOF
	test_cmp expected out
'
test_expect_success 'property-compare: a value that is not a size' '
	test_error 1 "respol: R: filter: constraint: memory-ge: \"lots\" is not a size (e.g. 256G, 1.5T, 64)" \
		respol R filter --config=cmp.yaml "{\"memory-ge\": [\"lots\"]}" <Rmem.json
'
test_expect_success 'property-compare: in a query, at its term' '
	test_error 1 "respol: R: filter: constraint query: \"ssd memory-ge:x\": term at offset 4: memory-ge: \"x\" is not a size (e.g. 256G, 1.5T, 64)" \
		respol R filter --config=cmp.yaml "ssd memory-ge:x" <Rmem.json
'
test_expect_success 'property-compare: no value' '
	test_error 1 "respol: R: filter: constraint: memory-ge: needs a value" \
		respol R filter --config=cmp.yaml "{\"memory-ge\": []}" <Rmem.json
'
test_expect_success 'property-compare: a jobspec with a bad value is not valid' '
	slot_jobspec bad.yaml "{type: core, count: 1}" \
		"duration: 0, constraints: {memory-ge: [-1]}" &&
	test_expect_code 1 respol match allocate --config=cmp.yaml -R Rmem.json \
		bad.yaml 2>err &&
	grep "attributes.system.constraints: memory-ge: -1 is not a size" err
'
test_expect_success 'property-compare: no keys' '
	check_error property-compare "{}" \
		"keys: must be a list of one key or more (e.g. [memory, numa])"
'
test_expect_success 'property-compare: a key that is not a string' '
	check_error property-compare "{keys: [memory, [x]]}" \
		"keys[1]: must be a key of 1-60 bytes"
'
test_expect_success 'property-compare: a key that makes a bad operator name' '
	check_error property-compare "{keys: [\"a b\"]}" \
		"invalid operator name '"'"'a b-ge'"'"' (letters, digits, '"'"'-'"'"' and '"'"'_'"'"', 1-64 bytes)"
'

# the example of respol-plugin(7)

command -v cc >/dev/null && command -v pkg-config >/dev/null &&
	pkg-config --exists jansson && test_set_prereq CC

test_expect_success CC 'the example of respol-plugin(7) builds and annotates' '
	sed -n "/^#include <string.h>$/,/^\.fi$/p" \
		"$RESPOL_SRCDIR/doc/man/respol-plugin.7" | sed "\$d" |
		sed "s/\\\\-/-/g" >gpu-hosts.c &&
	cc -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter -shared -fPIC \
		-I"$RESPOL_SRCDIR/api" $(pkg-config --cflags jansson) \
		-o gpu-hosts.so gpu-hosts.c &&
	property_config g.yaml "$PWD/gpu-hosts.so" "{}" &&
	cat >g.json <<-\EOF &&
	{"version":1,"execution":{"R_lite":[{"rank":"0-2","children":{"core":"0"}}],"nodelist":["gpu1","cpu2","gpu3"]}}
	EOF
	respol resource --state=g --config=g.yaml -R g.json list -n >out &&
	grep "^ *up gpu *2 .* gpu\[1,3\]$" out
'

test_done
