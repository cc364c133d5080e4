#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol resource runs the property stack: the fixture
property plugin annotates what a definition gives, its events name it, a
second run logs nothing, the host refuses bad names, foreign targets and
removals of what the plugin did not add; operators by name in match and
R filter'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/resource"
FIX="$RESPOL_FIXTURE_PLUGINDIR"
unset RESPOL_STATE_DIR

# fixture FILE BLOCK: a configuration with the fixture as its one property
# plugin, configured with BLOCK (flow YAML).
fixture() {
	property_config "$1" "$FIX/property-fixture.so" "$2"
}

test_expect_success 'setup' '
	cp "$D"/R4.json . &&
	fixture gpu.yaml "{add: {gpu: 0-1}}" &&
	fixture less.yaml "{add: {gpu: \"0\"}}"
'
test_expect_success '--help names --config' '
	respol resource --help >out &&
	grep -e "--config=FILE     the configuration whose property plugins" out
'
test_expect_success '--config without a definition is a usage error' '
	test_expect_code 2 respol resource --state=s --config=gpu.yaml list \
		2>err &&
	grep "^respol: resource: --config is for --resources, -R, --local and --xml (its property plugins annotate what they define)$" err
'
test_expect_success 'a definition runs the stack: the plugin adds gpu' '
	respol resource --state=s --config=gpu.yaml -R R4.json --now=5 \
		list -n >out &&
	grep "^ *up gpu *2 " out &&
	tail -n 1 s/eventlog >last &&
	echo "{\"timestamp\":5.0,\"name\":\"property-add\",\"context\":{\"properties\":{\"gpu\":\"0-1\"},\"plugin\":\"property-fixture\"}}" >expected &&
	test_cmp expected last
'
test_expect_success 'the same definition and stack again log nothing' '
	cp s/eventlog before &&
	respol resource --state=s --config=gpu.yaml -R R4.json --now=6 list &&
	test_cmp before s/eventlog
'
test_expect_success 'a stack that says less removes what it no longer says' '
	respol resource --state=s --config=less.yaml -R R4.json --now=7 list &&
	tail -n 1 s/eventlog >last &&
	echo "{\"timestamp\":7.0,\"name\":\"property-remove\",\"context\":{\"properties\":{\"gpu\":\"1\"},\"plugin\":\"property-fixture\"}}" >expected &&
	test_cmp expected last
'
test_expect_success 'RFC 28: the scheduler sees what the plugin added' '
	respol resource --state=s acquire >stream &&
	head -n 1 stream | grep "\"properties\":{\"gpu\":\"0\",\"ssd\":\"2-3\"}"
'
test_expect_success 'without --config the default configuration is used' '
	RESPOL_CONFIG="$PWD/gpu.yaml" respol resource --state=s -R R4.json \
		--now=8 list &&
	tail -n 1 s/eventlog | grep "\"properties\":{\"gpu\":\"1\"},\"plugin\""
'
test_expect_success 'an administrator removes it: the plugin owns it no more' '
	respol resource --state=s --now=9 property-remove 0-1 gpu &&
	fixture rm.yaml "{remove: {gpu: \"0\"}}" &&
	test_error 1 "respol: resource: property plugin '"'"'property-fixture'"'"': cannot remove property '"'"'gpu'"'"' from rank 0: it did not add it" \
		respol resource --state=s --config=rm.yaml -R R4.json list
'
test_expect_success 'a plugin cannot remove what R configures' '
	fixture ssd.yaml "{remove: {ssd: 2-3}}" &&
	test_error 1 "respol: resource: property plugin '"'"'property-fixture'"'"': cannot remove property '"'"'ssd'"'"' from ranks 2-3: it did not add it" \
		respol resource --state=s --config=ssd.yaml -R R4.json list
'
test_expect_success 'a bad property name is refused, naming the plugin' '
	fixture bad.yaml "{add: {\"a|b\": \"0\"}}" &&
	test_error 1 "respol: resource: property plugin '"'"'property-fixture'"'"': property name \"a|b\": illegal character '"'"'|'"'"' at offset 1" \
		respol resource --state=s --config=bad.yaml -R R4.json list
'
test_expect_success 'targets the inventory does not have are refused' '
	fixture far.yaml "{add: {gpu: 2-7}}" &&
	test_error 1 "respol: resource: property plugin '"'"'property-fixture'"'"': property '"'"'gpu'"'"': ranks 4-7 are not in the inventory" \
		respol resource --state=s --config=far.yaml -R R4.json list
'
test_expect_success 'a plugin that fails exits 3 with its message' '
	fixture fail.yaml "{fail: no inventory today}" &&
	test_error 3 "respol: resource: property plugin '"'"'property-fixture'"'"': annotate: no inventory today" \
		respol resource --state=s --config=fail.yaml -R R4.json list
'
test_expect_success 'and without a message, with what it returned' '
	fixture silent.yaml "{fail: \"!\"}" &&
	test_error 3 "respol: resource: property plugin '"'"'property-fixture'"'"': annotate returned -1 (no message)" \
		respol resource --state=s --config=silent.yaml -R R4.json list
'
test_expect_success 'nothing of a refused run was logged' '
	respol resource --state=s --now=10 property-add 0 keep &&
	cp s/eventlog before &&
	test_expect_code 1 respol resource --state=s --config=bad.yaml \
		-R R4.json list 2>/dev/null &&
	test_cmp before s/eventlog
'
test_expect_success '--xml gives the plugin the hardware of rank 0' '
	fixture hw.yaml "{hardware: cores}" &&
	respol resource --state=x --config=hw.yaml \
		--xml="$RESPOL_DATA/topologies/eas-tioga.xml" --now=5 list -n >out &&
	grep "cores=64" out
'
test_expect_success 'a bad XML file is named before any plugin runs' '
	echo "<topology>" >bad.xml &&
	test_expect_code 1 respol resource --state=y --config=hw.yaml \
		--xml=bad.xml list 2>err &&
	grep "^respol: resource: R: hwloc: bad.xml: " err
'

# operators

test_expect_success 'operator: R filter --config knows it' '
	fixture op.yaml "{operator: has}" &&
	respol R filter --config=op.yaml "{\"has\": [\"ssd\"]}" <R4.json >out &&
	grep "\"rank\":\"2-3\"" out &&
	respol R filter --config=op.yaml "has:ssd" <R4.json >out2 &&
	test_cmp out out2
'
test_expect_success 'operator: without the configuration it is unknown' '
	test_error 1 "respol: R: filter: constraint: unknown operator '"'"'has'"'"'" \
		respol R filter "{\"has\": [\"ssd\"]}" <R4.json
'
test_expect_success 'operator: a value its compile refuses, with the path' '
	test_error 1 "respol: R: filter: constraint: not[0].has: wants [KEY] or [KEY, VALUE]" \
		respol R filter --config=op.yaml "{\"not\": [{\"has\": [1]}]}" <R4.json
'
test_expect_success 'operator: respol match places a job on a target it matches' '
	slot_jobspec job.yaml "{type: core, count: 1}" \
		"duration: 0, constraints: {has: [ssd]}" &&
	respol match allocate --config=op.yaml -R R4.json job.yaml >out &&
	grep "\"rank\":\"2\"" out
'
test_expect_success 'operator: a jobspec with it is not valid without it' '
	test_expect_code 1 respol match allocate -R R4.json job.yaml 2>err &&
	grep "constraints: unknown operator '"'"'has'"'"'" err
'
test_expect_success 'operator: two instances cannot add one name' '
	cat >two.yaml <<-EOF &&
	property:
	  - plugin: $FIX/property-fixture.so
	    config: {operator: has}
	  - plugin: $FIX/property-fixture.so
	    name: again
	    config: {operator: has}
	EOF
	test_error 1 "respol: config: two.yaml:6:13: property[1] '"'"'again'"'"': init failed: operator '"'"'has'"'"' is already added by '"'"'property-fixture'"'"'" \
		respol config check two.yaml
'
test_expect_success 'operator: a built-in name cannot be taken' '
	fixture and.yaml "{operator: and}" &&
	test_error 1 "respol: config: and.yaml:3:13: property[0] '"'"'property-fixture'"'"': init failed: operator '"'"'and'"'"' is built in" \
		respol config check and.yaml
'

test_done
