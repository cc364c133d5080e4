#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='the shipped validators require-duration, limits and
queues: their descriptors, every bad configuration block with its message,
and every accept, warn, amend and reject through respol jobspec validate'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

RESPOL_PLUGIN_PATH="$RESPOL_BUILD_PLUGINDIR"
export RESPOL_PLUGIN_PATH

Q="'"

# check_block PLUGIN BLOCK MESSAGE: configuring PLUGIN with the flow-style
# BLOCK fails to load with MESSAGE (at line 3, column 13: the block).
check_block() {
	printf "validate:\n  - plugin: %s\n    config: %s\n" "$1" "$2" >block.yaml &&
	test_error 1 "respol: config: block.yaml:3:13: validate[0] $Q$1$Q: init failed: $3" \
		respol config check block.yaml
}

# check_key PLUGIN BLOCK COL MESSAGE: configuring PLUGIN with BLOCK fails
# to load with the host's MESSAGE about a key the plugin does not declare,
# at line 3, column COL (the key), before init.
check_key() {
	printf "validate:\n  - plugin: %s\n    config: %s\n" "$1" "$2" >block.yaml &&
	test_error 1 "respol: config: block.yaml:3:$3: validate[0] $Q$1$Q: $4" \
		respol config check block.yaml
}

# good_block PLUGIN BLOCK: configuring PLUGIN with BLOCK loads.
good_block() {
	printf "validate:\n  - plugin: %s\n    config: %s\n" "$1" "$2" >good.yaml &&
	respol config check good.yaml >out &&
	echo "good.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (validate: $1); no jobspec was run through it" >expected &&
	test_cmp expected out
}

# --- descriptors ----------------------------------------------------------

test_expect_success 'the shipped plugins describe themselves' '
	for p in require-duration limits queues; do
		respol plugin info "$RESPOL_BUILD_PLUGINDIR/$p.so" || return 1
	done >out &&
	sed "s|^file: $RESPOL_BUILD_PLUGINDIR/|file: |" out >info &&
	cat >expected <<-EOF &&
	name: require-duration
	kind: validate
	version: 0.1.0
	abi: 1
	description: require a job duration, with an optional default and maximum
	file: require-duration.so
	name: limits
	kind: validate
	version: 0.1.0
	abi: 1
	description: limit the nodes, cores, GPUs, tasks and duration of a job, per queue
	file: limits.so
	name: queues
	kind: validate
	version: 0.1.0
	abi: 1
	description: allowed queues, the default queue, and the properties each queue requires
	file: queues.so
	EOF
	test_cmp expected info
'
test_expect_success 'the shipped plugins export their descriptor and nothing else' '
	for p in require-duration limits queues; do
		nm -D --defined-only "$RESPOL_BUILD_PLUGINDIR/$p.so" |
			awk "\$2 !~ /^[wU]$/ { print \$3 }" || return 1
	done >out &&
	printf "respol_plugin\n%.0s" 1 2 3 >expected &&
	test_cmp expected out
'

# --- the installed default configuration ----------------------------------

test_expect_success 'conf/respol.yaml loads its shell stack and no validator' '
	cp "$RESPOL_SRCDIR/conf/respol.yaml" default.yaml &&
	respol config check default.yaml >out &&
	echo "default.yaml: ok: 3 plugins loaded, checked and initialised with their configuration blocks (shell: cpu-affinity, gpu-affinity, openmp); no jobspec was run through them" >expected &&
	test_cmp expected out
'
test_expect_success 'the example stack commented out in conf/respol.yaml loads' '
	sed -n "/^# validate:\$/,/^\$/p" "$RESPOL_SRCDIR/conf/respol.yaml" |
		sed "s/^# \{0,1\}//" >example.yaml &&
	respol config check example.yaml >out &&
	echo "example.yaml: ok: 3 plugins loaded, checked and initialised with their configuration blocks (validate: require-duration, queues, limits); no jobspec was run through them" >expected &&
	test_cmp expected out
'

# --- require-duration: configuration --------------------------------------

test_expect_success 'require-duration: good blocks' '
	good_block require-duration "{}" &&
	good_block require-duration "{default: 90}" &&
	good_block require-duration "{default: 0.5, max: 1}" &&
	good_block require-duration "{max: 1.5h}" &&
	good_block require-duration "{default: 500ms, max: .5s}" &&
	good_block require-duration "{default: 2h, max: 2h}" &&
	good_block require-duration "{default: \"30\", max: 1d}"
'
test_expect_success 'require-duration: an unknown key, refused at the key' '
	check_key require-duration "{dflt: 1h}" 14 "unknown key ${Q}dflt${Q}" &&
	check_key require-duration "{max: 1d, defualt: 1h}" 23 \
		"unknown key ${Q}defualt${Q}; did you mean ${Q}default${Q}?"
'
test_expect_success 'require-duration: a value that is no duration' '
	check_block require-duration "{default: true}" \
		"default: must be a number of seconds or a duration such as 30s, 5m, 2h or 1d" &&
	check_block require-duration "{max: [1h]}" \
		"max: must be a number of seconds or a duration such as 30s, 5m, 2h or 1d" &&
	check_block require-duration "{max: ~}" \
		"max: must be a number of seconds or a duration such as 30s, 5m, 2h or 1d"
'
test_expect_success 'require-duration: strings that are not RFC 23 durations' '
	for d in 1x 2w h "" . 1..2 1.5.2h -5 +5 " 5m" "5m " 1e3 inf nan 0x10 5M 5mm 1h30m; do
		check_block require-duration "{default: \"$d\"}" \
			"default: invalid duration $Q$d$Q" || return 1
	done
'
test_expect_success 'require-duration: a duration that overflows' '
	big=$(printf "9%.0s" $(seq 400)) &&
	printf "validate:\n  - plugin: require-duration\n    config: {max: %sd}\n" \
		"$big" >block.yaml &&
	test_expect_code 1 respol config check block.yaml 2>err &&
	grep "^respol: config: block.yaml:3:13: validate\[0\] .require-duration.: init failed: max: invalid duration .99999" err
'
test_expect_success 'require-duration: durations must be > 0' '
	check_block require-duration "{default: 0}" "default: must be > 0" &&
	check_block require-duration "{default: -1}" "default: must be > 0" &&
	check_block require-duration "{max: 0s}" "max: must be > 0" &&
	check_block require-duration "{max: -0.5}" "max: must be > 0"
'
test_expect_success 'require-duration: default above max, both shown' '
	check_block require-duration "{default: 2h, max: 90m}" \
		"default 2h is above max 90m" &&
	check_block require-duration "{max: 1, default: 1.5}" \
		"default 1.5s is above max 1s" &&
	check_block require-duration "{default: 1d, max: 86399}" \
		"default 1d is above max 86399s"
'

# --- limits: configuration ------------------------------------------------

test_expect_success 'limits: good blocks' '
	good_block limits "{max-nodes: 4}" &&
	good_block limits "{max-gpus: 0}" &&
	good_block limits "{max-cores: 9223372036854775807}" &&
	good_block limits "{max-duration: 1h}" &&
	good_block limits "{max-duration: 600}" &&
	good_block limits "{queues: {debug: {max-nodes: 1}}}" &&
	good_block limits "{max-nodes: 4, queues: {debug: ~, batch: {}}}"
'
test_expect_success 'limits: a block with no limit at all' '
	msg="no limit is configured (max-nodes, max-cores, max-gpus, max-tasks, max-duration, queues)" &&
	check_block limits "{}" "$msg" &&
	check_block limits "{queues: {}}" "$msg" &&
	check_block limits "{queues: {debug: {}, batch: ~}}" "$msg"
'
test_expect_success 'limits: unknown keys, at the top and in a queue' '
	check_key limits "{max-node: 4}" 14 \
		"unknown key ${Q}max-node${Q}; did you mean ${Q}max-nodes${Q}?" &&
	check_block limits "{queues: {debug: {max-node: 1}}}" \
		"queues.debug: unknown key ${Q}max-node${Q}" &&
	check_block limits "{queues: {debug: {queues: {}}}}" \
		"queues.debug: unknown key ${Q}queues${Q}"
'
test_expect_success 'limits: counts are integers >= 0' '
	check_block limits "{max-nodes: -1}" "max-nodes: must be an integer >= 0" &&
	check_block limits "{max-cores: 1.5}" "max-cores: must be an integer >= 0" &&
	check_block limits "{max-gpus: \"4\"}" "max-gpus: must be an integer >= 0" &&
	check_block limits "{max-tasks: true}" "max-tasks: must be an integer >= 0" &&
	check_block limits "{queues: {debug: {max-nodes: -2}}}" \
		"queues.debug.max-nodes: must be an integer >= 0"
'
test_expect_success 'limits: max-duration' '
	check_block limits "{max-duration: 0}" "max-duration: must be > 0" &&
	check_block limits "{max-duration: 2w}" \
		"max-duration: invalid duration ${Q}2w${Q}" &&
	check_block limits "{max-duration: [1]}" \
		"max-duration: must be a number of seconds or a duration such as 30s, 5m, 2h or 1d" &&
	check_block limits "{queues: {debug: {max-duration: 1y}}}" \
		"queues.debug.max-duration: invalid duration ${Q}1y${Q}" &&
	check_block limits "{queues: {debug: {max-duration: -1}}}" \
		"queues.debug.max-duration: must be > 0"
'
test_expect_success 'limits: queues is a mapping of mappings' '
	check_block limits "{queues: [debug]}" "queues: must be a mapping" &&
	check_block limits "{queues: {debug: 4}}" "queues.debug: must be a mapping" &&
	check_block limits "{queues: {\"\": {max-nodes: 1}}}" \
		"queues: a queue name is empty"
'

# --- queues: configuration ------------------------------------------------

test_expect_success 'queues: good blocks' '
	good_block queues "{queues: {batch: {}}}" &&
	good_block queues "{queues: {batch: ~, debug: {requires: []}}, default: batch}" &&
	good_block queues "{queues: {debug: {requires: [debug, \"^slow\", amd-mi50@gpu]}}}" &&
	good_block queues "{queues: {gpu: {constraints: {or: [{properties: [a100]}, {hostlist: [\"g[1-4]\"]}]}}}}"
'
test_expect_success 'queues: queues is required, with at least one queue' '
	check_block queues "{}" "${Q}queues${Q} is required" &&
	check_block queues "{default: batch}" "${Q}queues${Q} is required" &&
	check_block queues "{queues: {}}" "queues: must be a mapping of at least one queue" &&
	check_block queues "{queues: [batch]}" "queues: must be a mapping of at least one queue" &&
	check_block queues "{queues: {\"\": {}}}" "queues: a queue name is empty"
'
test_expect_success 'queues: unknown keys' '
	check_key queues "{queues: {batch: {}}, dflt: batch}" 35 \
		"unknown key ${Q}dflt${Q}" &&
	check_block queues "{queues: {batch: {require: [x]}}}" \
		"queues.batch: unknown key ${Q}require${Q}" &&
	check_block queues "{queues: {batch: 1}}" "queues.batch: must be a mapping"
'
test_expect_success 'queues: requires is a list of property names' '
	check_block queues "{queues: {b: {requires: x}}}" \
		"queues.b.requires: must be a list of property names" &&
	check_block queues "{queues: {b: {requires: [a, 1]}}}" \
		"queues.b.requires[1]: must be a string" &&
	check_block queues "{queues: {b: {requires: [a, \"^\"]}}}" \
		"queues.b.requires[1]: property name is empty" &&
	check_block queues "{queues: {b: {requires: [\"a b\"]}}}" \
		"queues.b.requires[0]: property name \"a b\": illegal character $Q $Q at offset 1"
'
test_expect_success 'queues: constraints is an RFC 31 object' '
	check_block queues "{queues: {b: {constraints: {foo: [x]}}}}" \
		"queues.b.constraints: constraint: unknown operator ${Q}foo${Q}" &&
	check_block queues "{queues: {b: {constraints: [x]}}}" \
		"queues.b.constraints: constraint: must be an object" &&
	check_block queues "{queues: {b: {constraints: {hostlist: [\"n[1-\"]}}}}" \
		"queues.b.constraints: constraint: hostlist[0]: hostlist: \"n[1-\": missing $Q]$Q at offset 4"
'
test_expect_success 'queues: the default must be a configured queue' '
	check_block queues "{queues: {debug: {}, batch: {}}, default: gpu}" \
		"default: unknown queue ${Q}gpu${Q}, one of batch, debug" &&
	check_block queues "{queues: {batch: {}}, default: [batch]}" \
		"default: must be a queue name"
'

# --- running the stack: helpers -------------------------------------------

# stack FILE ENTRY...: a configuration whose validate stack is the entries
# (flow-style YAML mappings), in order.
stack() {
	_f=$1
	shift
	echo "validate:" >"$_f" &&
	for _e in "$@"; do
		printf "  - %s\n" "$_e" >>"$_f" || return 1
	done
}

# job FILE NODES SLOTS-PER-NODE CORES-PER-SLOT GPUS-PER-SLOT DURATION
#     [QUEUE [CONSTRAINTS]]: a V1 jobspec, one task per slot.
job() {
	{
		printf "version: 1\nresources:\n"
		printf "  - {type: node, count: %s, with: [{type: slot, count: %s, label: task, with: [{type: core, count: %s}" "$2" "$3" "$4"
		test "$5" = 0 || printf ", {type: gpu, count: %s}" "$5"
		printf "]}]}\n"
		printf "tasks: [{command: [app], slot: task, count: {per_slot: 1}}]\n"
		printf "attributes:\n  system:\n    duration: %s\n" "$6"
		test -z "$7" || printf "    queue: %s\n" "$7"
		test -z "$8" || printf "    constraints: %s\n" "$8"
	} >"$1"
}

# accepts CONFIG JOB: validate accepts JOB silently.
accepts() {
	respol jobspec validate --config="$1" "$2" >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err
}

# rejects CONFIG JOB MESSAGE: validate rejects JOB with MESSAGE.
rejects() {
	test_error 1 "respol: jobspec: $2: $3" \
		respol jobspec validate --config="$1" "$2"
}

# attributes CONFIG JOB: print the attributes of the amended JOB.
attributes() {
	respol jobspec validate --config="$1" --print "$2" >printed &&
	sed -n "/^attributes:/,/^resources:/p" printed | sed "\$d"
}

# --- require-duration -----------------------------------------------------

test_expect_success 'require-duration: setup' '
	stack rd.yaml "{plugin: require-duration, config: {default: 1h, max: 1d}}" &&
	stack rd-required.yaml "{plugin: require-duration}" &&
	stack rd-max.yaml "{plugin: require-duration, config: {max: 500ms}}" &&
	job unlimited.yaml 1 1 1 0 0 &&
	job day.yaml 1 1 1 0 86400 &&
	job day-and-1h.yaml 1 1 1 0 90000 &&
	job second.yaml 1 1 1 0 1 &&
	job short.yaml 1 1 1 0 0.25 &&
	cat >canonical.yaml <<-EOF
	version: 1
	resources: [{type: slot, count: 1, label: task, with: [{type: core, count: 1}]}]
	tasks: [{command: [app], slot: task, count: {per_slot: 1}}]
	attributes: {system: {cwd: /tmp}}
	EOF
'
test_expect_success 'require-duration: a job with a duration up to max is accepted' '
	accepts rd.yaml day.yaml &&
	accepts rd.yaml short.yaml &&
	accepts rd-required.yaml day-and-1h.yaml &&
	accepts rd-max.yaml short.yaml
'
test_expect_success 'require-duration: duration 0 gets the default, with a warning' '
	respol jobspec validate --config=rd.yaml unlimited.yaml >out 2>err &&
	test_must_be_empty out &&
	echo "respol: jobspec: warning: unlimited.yaml: require-duration: duration not set, using default 1h" >expected &&
	test_cmp expected err &&
	attributes rd.yaml unlimited.yaml >attrs &&
	printf "attributes:\n  system:\n    duration: 3600.0\n" >expected &&
	test_cmp expected attrs
'
test_expect_success 'require-duration: no duration at all (canonical) gets the default' '
	respol jobspec validate --profile=canonical --config=rd.yaml \
		--print canonical.yaml >printed 2>err &&
	echo "respol: jobspec: warning: canonical.yaml: require-duration: duration not set, using default 1h" >expected &&
	test_cmp expected err &&
	grep "^    duration: 3600.0$" printed
'
test_expect_success 'require-duration: without a default, no duration is rejected' '
	rejects rd-required.yaml unlimited.yaml \
		"require-duration: a duration is required (attributes.system.duration)" &&
	test_error 1 "respol: jobspec: canonical.yaml: require-duration: a duration is required (attributes.system.duration)" \
		respol jobspec validate --profile=canonical --config=rd-required.yaml canonical.yaml
'
test_expect_success 'require-duration: above max is rejected with both values' '
	rejects rd.yaml day-and-1h.yaml \
		"require-duration: duration 25h is above the maximum 1d" &&
	rejects rd-max.yaml second.yaml \
		"require-duration: duration 1s is above the maximum 0.5s"
'
test_expect_success 'require-duration: the default is what the next validator sees' '
	stack rd-limits.yaml \
		"{plugin: require-duration, config: {default: 2h}}" \
		"{plugin: limits, config: {max-duration: 1h}}" &&
	cat >expected <<-EOF &&
	respol: jobspec: warning: unlimited.yaml: require-duration: duration not set, using default 2h
	respol: jobspec: unlimited.yaml: limits: requests a duration of 2h, limit is 1h
	EOF
	test_expect_code 1 respol jobspec validate --config=rd-limits.yaml \
		unlimited.yaml 2>err &&
	test_cmp expected err
'

# --- limits ---------------------------------------------------------------

test_expect_success 'limits: setup' '
	stack limits.yaml "{plugin: limits, config: {max-nodes: 4, max-cores: 32, max-gpus: 8, max-tasks: 16, max-duration: 1h, queues: {debug: {max-nodes: 1, max-duration: 10m}, gpu: {max-gpus: 64}, cpu: {max-gpus: 0}}}}"
'
test_expect_success 'limits: a job at every limit is accepted' '
	job at.yaml 4 4 2 2 3600 &&
	stack at-limits.yaml "{plugin: limits, config: {max-nodes: 4, max-cores: 32, max-gpus: 32, max-tasks: 16, max-duration: 1h}}" &&
	accepts at-limits.yaml at.yaml
'
test_expect_success 'limits: each limit, counted over the whole job' '
	job nodes.yaml 5 1 1 0 60 &&
	rejects limits.yaml nodes.yaml "limits: requests 5 nodes, limit is 4" &&
	job cores.yaml 2 2 9 0 60 &&
	rejects limits.yaml cores.yaml "limits: requests 36 cores, limit is 32" &&
	job gpus.yaml 2 2 1 3 60 &&
	rejects limits.yaml gpus.yaml "limits: requests 12 GPUs, limit is 8" &&
	job tasks.yaml 4 5 1 0 60 &&
	rejects limits.yaml tasks.yaml "limits: requests 20 tasks, limit is 16" &&
	job long.yaml 1 1 1 0 3601 &&
	rejects limits.yaml long.yaml "limits: requests a duration of 3601s, limit is 1h"
'
test_expect_success 'limits: the first limit exceeded is the one named' '
	job all.yaml 5 5 9 9 7200 &&
	rejects limits.yaml all.yaml "limits: requests 5 nodes, limit is 4"
'
test_expect_success 'limits: a job without a duration is above max-duration' '
	rejects limits.yaml unlimited.yaml \
		"limits: requests an unlimited duration, limit is 1h"
'
test_expect_success 'limits: a queue block names its queue, and inherits the rest' '
	job debug2.yaml 2 1 1 0 60 debug &&
	rejects limits.yaml debug2.yaml "limits: requests 2 nodes, limit is 1 (queue debug)" &&
	job debuglong.yaml 1 1 1 0 601 debug &&
	rejects limits.yaml debuglong.yaml \
		"limits: requests a duration of 601s, limit is 10m (queue debug)" &&
	job debug0.yaml 1 1 1 0 0 debug &&
	rejects limits.yaml debug0.yaml \
		"limits: requests an unlimited duration, limit is 10m (queue debug)" &&
	job debuggpus.yaml 1 1 1 9 60 debug &&
	rejects limits.yaml debuggpus.yaml "limits: requests 9 GPUs, limit is 8"
'
test_expect_success 'limits: a queue may raise a limit, or forbid a resource' '
	job gpu.yaml 2 2 1 16 60 gpu &&
	accepts limits.yaml gpu.yaml &&
	job gpunodes.yaml 5 1 1 0 60 gpu &&
	rejects limits.yaml gpunodes.yaml "limits: requests 5 nodes, limit is 4" &&
	job cpu.yaml 1 1 1 1 60 cpu &&
	rejects limits.yaml cpu.yaml "limits: requests 1 GPU, limit is 0 (queue cpu)"
'
test_expect_success 'limits: a queue without a block gets the top-level limits' '
	job other.yaml 5 1 1 0 60 other &&
	rejects limits.yaml other.yaml "limits: requests 5 nodes, limit is 4" &&
	job other-ok.yaml 4 1 1 0 60 other &&
	accepts limits.yaml other-ok.yaml
'
test_expect_success 'limits: slots of different shapes are all counted (canonical)' '
	cat >shapes.yaml <<-EOF &&
	version: 1
	resources:
	  - {type: slot, count: 2, label: a, with: [{type: core, count: 4}]}
	  - {type: slot, count: 1, label: b, with: [{type: core, count: 1}, {type: gpu, count: 2}]}
	tasks:
	  - {command: [a], slot: a, count: {per_slot: 1}}
	  - {command: [b], slot: b, count: {per_slot: 3}}
	attributes: {system: {duration: 60}}
	EOF
	stack shapes-limits.yaml "{plugin: limits, config: {max-nodes: 0, max-cores: 8, max-gpus: 2, max-tasks: 5}}" &&
	test_error 1 "respol: jobspec: shapes.yaml: limits: requests 9 cores, limit is 8" \
		respol jobspec validate --profile=canonical --config=shapes-limits.yaml shapes.yaml &&
	stack shapes-limits.yaml "{plugin: limits, config: {max-nodes: 0, max-cores: 9, max-gpus: 2, max-tasks: 4}}" &&
	test_error 1 "respol: jobspec: shapes.yaml: limits: requests 5 tasks, limit is 4" \
		respol jobspec validate --profile=canonical --config=shapes-limits.yaml shapes.yaml &&
	stack shapes-limits.yaml "{plugin: limits, config: {max-nodes: 0, max-cores: 9, max-gpus: 2, max-tasks: 5}}" &&
	respol jobspec validate --profile=canonical --config=shapes-limits.yaml shapes.yaml 2>err &&
	test_must_be_empty err
'
test_expect_success 'limits: a range counts its minimum (canonical)' '
	cat >range.yaml <<-EOF &&
	version: 1
	resources:
	  - type: node
	    count: {min: 2, max: 8}
	    with: [{type: slot, count: "1-4", label: task, with: [{type: core, count: 2}]}]
	tasks: [{command: [app], slot: task, count: {per_slot: 1}}]
	attributes: {system: {duration: 60}}
	EOF
	stack range-limits.yaml "{plugin: limits, config: {max-nodes: 2, max-cores: 4}}" &&
	respol jobspec validate --profile=canonical --config=range-limits.yaml range.yaml 2>err &&
	test_must_be_empty err &&
	stack range-limits.yaml "{plugin: limits, config: {max-nodes: 1}}" &&
	test_error 1 "respol: jobspec: range.yaml: limits: requests 2 nodes, limit is 1" \
		respol jobspec validate --profile=canonical --config=range-limits.yaml range.yaml
'
test_expect_success 'limits: the largest counts do not wrap around' '
	job huge.yaml 2147483647 2147483647 2147483647 2147483647 60 &&
	stack huge-limits.yaml "{plugin: limits, config: {max-gpus: 9223372036854775807}}" &&
	rejects huge-limits.yaml huge.yaml \
		"limits: requests 18446744073709551615 GPUs, limit is 9223372036854775807"
'

# --- queues ---------------------------------------------------------------

test_expect_success 'queues: setup' '
	stack queues.yaml "{plugin: queues, config: {default: batch, queues: {batch: ~, debug: {requires: [debug, \"^slow\"]}, gpu: {constraints: {or: [{properties: [a100]}, {properties: [h100]}]}}, both: {requires: [x], constraints: {hostlist: [\"n[1-2]\"]}}}}}" &&
	stack queues-nodefault.yaml "{plugin: queues, config: {queues: {debug: {}, batch: {}}}}"
'
test_expect_success 'queues: a job in a queue without requirements is untouched' '
	job batch.yaml 1 1 1 0 60 batch &&
	accepts queues.yaml batch.yaml &&
	attributes queues.yaml batch.yaml >attrs &&
	printf "attributes:\n  system:\n    duration: 60\n    queue: batch\n" >expected &&
	test_cmp expected attrs
'
test_expect_success 'queues: a job without a queue gets the default, silently' '
	job noqueue.yaml 1 1 1 0 60 &&
	accepts queues.yaml noqueue.yaml &&
	attributes queues.yaml noqueue.yaml >attrs &&
	printf "attributes:\n  system:\n    duration: 60\n    queue: batch\n" >expected &&
	test_cmp expected attrs
'
test_expect_success 'queues: without a default, a job without a queue is rejected' '
	rejects queues-nodefault.yaml noqueue.yaml \
		"queues: a queue is required: one of batch, debug"
'
test_expect_success 'queues: an unknown queue is rejected, listing the queues' '
	job nope.yaml 1 1 1 0 60 nope &&
	rejects queues.yaml nope.yaml \
		"queues: unknown queue '"'"'nope'"'"': one of batch, both, debug, gpu" &&
	rejects queues-nodefault.yaml nope.yaml \
		"queues: unknown queue '"'"'nope'"'"': one of batch, debug"
'
test_expect_success 'queues: required properties become the constraints' '
	job debug.yaml 1 1 1 0 60 debug &&
	accepts queues.yaml debug.yaml &&
	attributes queues.yaml debug.yaml >attrs &&
	cat >expected <<-EOF &&
	attributes:
	  system:
	    constraints:
	      properties:
	        - debug
	        - ^slow
	    duration: 60
	    queue: debug
	EOF
	test_cmp expected attrs
'
test_expect_success 'queues: and are added to the job'"'"'s own constraints' '
	job debugssd.yaml 1 1 1 0 60 debug "{properties: [ssd]}" &&
	attributes queues.yaml debugssd.yaml >attrs &&
	cat >expected <<-EOF &&
	attributes:
	  system:
	    constraints:
	      and:
	        - properties:
	            - ssd
	        - properties:
	            - debug
	            - ^slow
	    duration: 60
	    queue: debug
	EOF
	test_cmp expected attrs
'
test_expect_success 'queues: a constraints object is added as written' '
	job gpu.yaml 1 1 1 0 60 gpu "{ranks: [\"0\"]}" &&
	attributes queues.yaml gpu.yaml >attrs &&
	cat >expected <<-EOF &&
	attributes:
	  system:
	    constraints:
	      and:
	        - ranks:
	            - '"'"'0'"'"'
	        - or:
	            - properties:
	                - a100
	            - properties:
	                - h100
	    duration: 60
	    queue: gpu
	EOF
	test_cmp expected attrs
'
test_expect_success 'queues: requires and constraints together' '
	job both.yaml 1 1 1 0 60 both &&
	attributes queues.yaml both.yaml >attrs &&
	cat >expected <<-EOF &&
	attributes:
	  system:
	    constraints:
	      and:
	        - properties:
	            - x
	        - hostlist:
	            - n[1-2]
	    duration: 60
	    queue: both
	EOF
	test_cmp expected attrs
'
test_expect_success 'queues: the default queue'"'"'s requirements apply too' '
	stack queues-debug.yaml "{plugin: queues, config: {default: debug, queues: {debug: {requires: [debug]}}}}" &&
	attributes queues-debug.yaml noqueue.yaml >attrs &&
	cat >expected <<-EOF &&
	attributes:
	  system:
	    constraints:
	      properties:
	        - debug
	    duration: 60
	    queue: debug
	EOF
	test_cmp expected attrs
'
test_expect_success 'queues: the default queue is what limits sees' '
	stack queues-limits.yaml \
		"{plugin: queues, config: {default: debug, queues: {debug: {}}}}" \
		"{plugin: limits, config: {queues: {debug: {max-nodes: 1}}}}" &&
	job two-nodes.yaml 2 1 1 0 60 &&
	rejects queues-limits.yaml two-nodes.yaml \
		"limits: requests 2 nodes, limit is 1 (queue debug)"
'

# --- the three together -----------------------------------------------------

test_expect_success 'the example stack of conf/respol.yaml on a job without duration or queue' '
	job plain.yaml 1 2 1 0 0 &&
	respol jobspec validate --config=example.yaml --print plain.yaml >printed 2>err &&
	echo "respol: jobspec: warning: plain.yaml: require-duration: duration not set, using default 1h" >expected &&
	test_cmp expected err &&
	sed -n "/^attributes:/,/^resources:/p" printed | sed "\$d" >attrs &&
	printf "attributes:\n  system:\n    duration: 3600.0\n    queue: batch\n" >expected &&
	test_cmp expected attrs
'
test_expect_success 'the example stack rejects a GPU job in batch' '
	job gpu-batch.yaml 1 1 1 1 60 batch &&
	rejects example.yaml gpu-batch.yaml "limits: requests 1 GPU, limit is 0"
'

test_done
