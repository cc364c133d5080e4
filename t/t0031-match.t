#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol match allocate and satisfiability: jobspec
matched to a resource graph built from a generator spec, R, hwloc XML or a
graph file; R printed for the allocation; "never" and "not now"; policies,
--now, bad jobspec, missing files and bad usage'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/match"
GEN=nodes=4,sockets=2,cores=4,gpus=2
RESPOL_PLUGIN_PATH="$RESPOL_BUILD_MATCHDIR"
export RESPOL_PLUGIN_PATH

test_expect_success 'setup: copy the fixtures so messages name short paths' '
	match_fixtures slots nodes nodes3 node-exclusive too-many-nodes gpus \
		invalid canonical &&
	cp "$D"/R4.json R.json &&
	cp "$D"/states.json states.json &&
	cp "$RESPOL_DATA"/topologies/coral-lassen.xml lassen.xml
'

# --help and usage

test_expect_success 'match --help prints the usage and every option' '
	respol match --help >out &&
	grep "^Usage: respol match allocate|satisfiability \[OPTIONS\] RESOURCE-OPTION JOBSPEC$" out &&
	for opt in --config=FILE --policy=NAME --profile=NAME --now=SECONDS \
		--jobid=N "-R, --R=FILE" --xml=FILE --graph=FILE \
		--generate=SPEC --max-memory=SIZE; do
		grep -e "$opt" out || return 1
	done
'
test_expect_success 'match -h is --help' '
	respol match --help >expected &&
	respol match allocate -h >out &&
	test_cmp expected out
'
test_expect_success 'no subcommand is a usage error' '
	test_error 2 "respol: match: missing subcommand (allocate or satisfiability)
Try '\''respol match --help'\'' for more information." respol match --generate=$GEN
'
test_expect_success 'an unknown subcommand is a usage error' '
	test_error 2 "respol: match: unknown subcommand '\''reserve'\''
Try '\''respol match --help'\'' for more information." respol match reserve --generate=$GEN slots.yaml
'
test_expect_success 'no JOBSPEC is a usage error' '
	test_error 2 "respol: match: allocate: missing JOBSPEC argument
Try '\''respol match --help'\'' for more information." respol match allocate --generate=$GEN
'
test_expect_success 'two JOBSPECs are a usage error' '
	test_error 2 "respol: match: allocate: unexpected argument '\''nodes.yaml'\''
Try '\''respol match --help'\'' for more information." respol match allocate --generate=$GEN slots.yaml nodes.yaml
'
test_expect_success 'jobspec and resources both on stdin is a usage error' '
	test_error 2 "respol: match: allocate: the jobspec and the resources cannot both be stdin
Try '\''respol match --help'\'' for more information." respol match allocate -R - - </dev/null
'
test_expect_success 'no resource option is a usage error' '
	test_error 2 "respol: match: no resources: give one of -R FILE, --xml=FILE, --graph=FILE, --generate=SPEC
Try '\''respol match --help'\'' for more information." respol match allocate slots.yaml
'
test_expect_success 'two resource options are a usage error' '
	test_error 2 "respol: match: -R and --generate exclude each other
Try '\''respol match --help'\'' for more information." respol match allocate -R R.json --generate=$GEN slots.yaml
'
test_expect_success 'bad --now, --jobid and --profile are usage errors' '
	test_error 2 "respol: match: --now: '\''soon'\'' is not a number of seconds
Try '\''respol match --help'\'' for more information." respol match allocate --now=soon --generate=$GEN slots.yaml &&
	test_error 2 "respol: match: --now: '\''-1'\'' is not a number of seconds
Try '\''respol match --help'\'' for more information." respol match allocate --now=-1 --generate=$GEN slots.yaml &&
	test_error 2 "respol: match: --now: '\''inf'\'' is not a number of seconds
Try '\''respol match --help'\'' for more information." respol match allocate --now=inf --generate=$GEN slots.yaml &&
	test_error 2 "respol: match: --jobid: '\''-3'\'' is not a job id
Try '\''respol match --help'\'' for more information." respol match allocate --jobid=-3 --generate=$GEN slots.yaml &&
	test_error 2 "respol: match: --jobid: '\''99999999999999999999'\'' is not a job id
Try '\''respol match --help'\'' for more information." respol match allocate --jobid=99999999999999999999 --generate=$GEN slots.yaml &&
	test_error 2 "respol: match: unknown profile '\''v2'\''
Try '\''respol match --help'\'' for more information." respol match allocate --profile=v2 --generate=$GEN slots.yaml
'

# allocate

test_expect_success 'allocate: slots on a generated cluster, R on one line' '
	respol match allocate --now=100 --generate=$GEN slots.yaml >out &&
	test_cmp "$D"/alloc-slots.expected out &&
	test $(wc -l <out) = 1 &&
	grep -qF "\"R_lite\":[{\"children\":{\"core\":\"0-3\"},\"rank\":\"0\"}]" out
'
test_expect_success 'allocate: options may follow the operands' '
	respol match allocate slots.yaml --generate=$GEN --now=100 >out &&
	test_cmp "$D"/alloc-slots.expected out
'
test_expect_success 'allocate: nodes with a GPU each; expiration is now + duration' '
	respol match allocate --now=100 --generate=$GEN nodes.yaml >out &&
	test_cmp "$D"/alloc-nodes.expected out &&
	grep -qF "\"expiration\":3700.0" out &&
	grep -qF "\"starttime\":100.0" out
'
test_expect_success 'allocate: an exclusive node is taken whole' '
	respol match allocate --now=100 --generate=$GEN node-exclusive.yaml >out &&
	test_cmp "$D"/alloc-node-exclusive.expected out &&
	grep -qF "{\"core\":\"0-7\",\"gpu\":\"0-1\"}" out
'
test_expect_success 'allocate: resources from R' '
	respol match allocate --now=100 -R R.json nodes.yaml >out &&
	test_cmp "$D"/alloc-nodes-R.expected out
'
test_expect_success 'allocate: resources from hwloc XML' '
	respol match allocate --now=100 --xml=lassen.xml --hostname=lassen7 \
		slots.yaml >out &&
	test_cmp "$D"/alloc-slots-xml.expected out
'
test_expect_success 'allocate: a graph file; down and drained vertices are left out' '
	respol match allocate --now=100 --graph=states.json nodes.yaml >out &&
	test_cmp "$D"/alloc-nodes-states.expected out &&
	grep -qF "{\"children\":{\"core\":\"0,2\",\"gpu\":\"0\"},\"rank\":\"0\"}" out
'
test_expect_success 'allocate: the jobspec from stdin' '
	respol match allocate --now=100 --generate=$GEN - <slots.yaml >out &&
	test_cmp "$D"/alloc-slots.expected out
'
test_expect_success 'allocate: the resources from stdin' '
	respol match allocate --now=100 -R - nodes.yaml <R.json >out &&
	test_cmp "$D"/alloc-nodes-R.expected out
'
test_expect_success 'allocate: without --now, starttime is the current time' '
	before=$(date +%s) &&
	respol match allocate --generate=$GEN slots.yaml >out &&
	after=$(date +%s) &&
	start=$(sed -e "s/.*\"starttime\":\([0-9]*\)\.0.*/\1/" out) &&
	test "$start" -ge "$before" &&
	test "$start" -le "$after"
'
test_expect_success 'allocate: --jobid is accepted' '
	respol match allocate --now=100 --jobid=42 --generate=$GEN slots.yaml >out &&
	test_cmp "$D"/alloc-slots.expected out
'
test_expect_success 'allocate: never satisfiable, exit 1, nothing on stdout' '
	test_error 1 "respol: match: never satisfiable: needs 5 nodes with 1 slot of 1 core each, the resource set has 4" \
		respol match allocate --generate=$GEN too-many-nodes.yaml &&
	test_must_be_empty stdout.err-test &&
	test_error 1 "respol: match: never satisfiable: needs 1 slot of 1 core and 3 GPUs, 0 fit" \
		respol match allocate --generate=$GEN gpus.yaml
'
test_expect_success 'allocate: not satisfiable now (a node down)' '
	test_error 1 "respol: match: not satisfiable now: needs 3 nodes with 1 slot of 1 core each, 2 are free" \
		respol match allocate --graph=states.json nodes3.yaml
'

# satisfiability

test_expect_success 'satisfiability: satisfiable' '
	respol match satisfiability --generate=$GEN nodes.yaml >out &&
	echo satisfiable >expected &&
	test_cmp expected out
'
test_expect_success 'satisfiability: hwloc XML (4 GPUs) holds what 2 GPUs per node never do' '
	respol match satisfiability --xml=lassen.xml gpus.yaml >out &&
	test_cmp expected out &&
	test_error 1 "respol: match: never satisfiable: needs 1 slot of 1 core and 3 GPUs, 0 fit" \
		respol match satisfiability --generate=$GEN gpus.yaml
'
test_expect_success 'satisfiability: states are ignored' '
	respol match satisfiability --graph=states.json nodes3.yaml >out &&
	test_cmp expected out
'
test_expect_success 'satisfiability: never satisfiable, exit 1' '
	test_error 1 "respol: match: never satisfiable: needs 5 nodes with 1 slot of 1 core each, the resource set has 4" \
		respol match satisfiability --generate=$GEN too-many-nodes.yaml &&
	test_must_be_empty stdout.err-test &&
	test_error 1 "respol: match: never satisfiable: needs 5 nodes with 1 slot of 1 core each, the resource set has 4" \
		respol match satisfiability -R R.json too-many-nodes.yaml
'

# policies

test_expect_success 'policy: --policy=high takes the highest ids' '
	respol match allocate --now=100 --policy=high --generate=$GEN nodes.yaml >out &&
	test_cmp "$D"/alloc-nodes-high.expected out &&
	grep -qF "{\"children\":{\"core\":\"6-7\",\"gpu\":\"1\"},\"rank\":\"2-3\"}" out
'
test_expect_success 'policy: --policy=first is the default' '
	respol match allocate --now=100 --policy=first --generate=$GEN nodes.yaml >out &&
	test_cmp "$D"/alloc-nodes.expected out
'
test_expect_success 'policy: the first entry of the match stack is the default' '
	cat >high.yaml <<-\EOF &&
	match:
	  - plugin: high
	    name: site-high
	EOF
	respol match allocate --now=100 --config=high.yaml --generate=$GEN \
		nodes.yaml >out &&
	test_cmp "$D"/alloc-nodes-high.expected out &&
	respol match allocate --now=100 --config=high.yaml --policy=site-high \
		--generate=$GEN nodes.yaml >out &&
	test_cmp "$D"/alloc-nodes-high.expected out &&
	respol match allocate --now=100 --config=high.yaml --policy=first \
		--generate=$GEN nodes.yaml >out &&
	test_cmp "$D"/alloc-nodes.expected out
'
test_expect_success 'policy: an unknown policy' '
	respol match allocate --policy=nosuch --generate=$GEN nodes.yaml 2>err;
	test $? = 1 &&
	grep "^respol: match: plugin '\''nosuch'\'' not found in " err &&
	test $(wc -l <err) = 1
'
test_expect_success 'policy: a plugin of another kind' '
	RESPOL_PLUGIN_PATH="$RESPOL_BUILD_PLUGINDIR" &&
	export RESPOL_PLUGIN_PATH &&
	respol match allocate --policy=limits --generate=$GEN nodes.yaml 2>err;
	test $? = 1 &&
	test $(wc -l <err) = 1 &&
	grep "^respol: match: /.*/limits.so: plugin '\''limits'\'' is a validate plugin, configured in the match stack$" err
'
test_expect_success 'policy: a missing configuration file' '
	test_error 1 "respol: match: configuration nosuch.yaml: No such file or directory" \
		respol match allocate --config=nosuch.yaml --generate=$GEN nodes.yaml
'

# bad jobspec, missing files

test_expect_success 'an invalid jobspec: its errors, exit 1' '
	test_error 1 "respol: match: invalid.yaml:4:12: resources[0].count: must be >= 1" \
		respol match allocate --generate=$GEN invalid.yaml
'
# The profile: canonical (RFC 14) by default, --profile=v1 for RFC 25.
test_expect_success 'match --help says canonical is the default profile' '
	respol match --help >out &&
	grep -F -e "--profile=NAME  jobspec profile: canonical (RFC 14, the default)" out
'
test_expect_success 'canonical jobspec is matched without --profile' '
	respol match allocate --now=100 --generate=$GEN canonical.yaml >out &&
	grep -qF "\"R_lite\":[{\"children\":{\"core\":\"0-3\"},\"rank\":\"0\"}]" out &&
	respol match allocate --now=100 --profile=canonical --generate=$GEN \
		canonical.yaml >explicit &&
	test_cmp explicit out &&
	respol match satisfiability --generate=$GEN canonical.yaml >out &&
	echo satisfiable >expected &&
	test_cmp expected out
'
test_expect_success '--profile=v1 refuses what RFC 25 does not allow' '
	test_error 1 "respol: match: canonical.yaml:9:16: resources[0].with[0].count: must be an integer in jobspec V1" \
		respol match allocate --profile=v1 --generate=$GEN canonical.yaml &&
	test_error 1 "respol: match: canonical.yaml:9:16: resources[0].with[0].count: must be an integer in jobspec V1" \
		respol match satisfiability --profile=v1 --generate=$GEN canonical.yaml
'
test_expect_success '--profile=v1: a V1 gpu count of 0 asks for no GPU' '
	sed "/type: gpu/{n;s/count: 1/count: 0/;}" nodes.yaml >gpu0.yaml &&
	respol match allocate --now=100 --profile=v1 --generate=$GEN \
		gpu0.yaml >out &&
	grep -qF "\"R_lite\":[{\"children\":{\"core\":\"0-1\"},\"rank\":\"0-1\"}]" out &&
	test_error 1 "respol: match: gpu0.yaml:14:20: resources[0].with[0].with[1].count: must be >= 1 (0 GPUs only in jobspec V1)" \
		respol match allocate --generate=$GEN gpu0.yaml
'
test_expect_success '--profile=v1 matches V1 jobspec as the default does' '
	respol match allocate --now=100 --profile=v1 --generate=$GEN \
		nodes.yaml >v1 &&
	respol match allocate --now=100 --generate=$GEN nodes.yaml >default &&
	test_cmp v1 default &&
	grep -qF "\"R_lite\":[{\"children\":{\"core\":\"0-1\",\"gpu\":\"0\"},\"rank\":\"0-1\"}]" v1
'
test_expect_success 'a missing jobspec file' '
	test_error 1 "respol: match: nosuch.yaml: No such file or directory" \
		respol match satisfiability --generate=$GEN nosuch.yaml
'
test_expect_success 'a missing resource file' '
	test_error 1 "respol: match: nosuch.json: No such file or directory" \
		respol match allocate -R nosuch.json nodes.yaml &&
	test_error 1 "respol: match: nosuch.json: No such file or directory" \
		respol match allocate --graph=nosuch.json nodes.yaml
'

# Bounded (lib-respol.sh), so that a regression fails instead of swapping.
test_expect_success 'R of 17 million vertices in 147 bytes is refused at once' '
	printf "%s" "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-1048575\",\"children\":{\"core\":\"0-15\"}}],\"nodelist\":[\"n[0-1048575]\"],\"starttime\":0.0,\"expiration\":0.0}}" >hostile.json &&
	bounded test_error 1 "respol: match: hostile.json: R: 17825793 vertices need about 2037 MiB, more than the memory limit of 1536 MiB" \
		respol match satisfiability -R hostile.json nodes.yaml
'
test_expect_success 'the memory limit: --max-memory, then RESPOL_MAX_MEMORY' '
	slot_jobspec core.yaml "{type: core, count: 1}" &&
	test_error 1 "respol: match: --generate: spec makes 30001 vertices, which need about 6 MiB, more than the memory limit of 4 MiB" \
		respol match allocate --max-memory=4MB --generate=nodes=10000 core.yaml &&
	RESPOL_MAX_MEMORY=4MB test_error 1 "respol: match: --generate: spec makes 30001 vertices, which need about 6 MiB, more than the memory limit of 4 MiB" \
		respol match allocate --generate=nodes=10000 core.yaml &&
	RESPOL_MAX_MEMORY=4MB respol match satisfiability --max-memory=8MB \
		--generate=nodes=10000 core.yaml >out &&
	echo satisfiable >expected &&
	test_cmp expected out
'

test_done
