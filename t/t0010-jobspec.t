#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol jobspec validate and summary: RFC 14 / RFC 25
jobspec checked with every error reported by file, line, column and path,
warnings that do not fail, the derived facts, and bad usage'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/jobspec"

test_expect_success 'setup: copy the fixtures so messages name short paths' '
	cp "$D"/v1.yaml "$D"/v1.json "$D"/canonical.yaml "$D"/errors.yaml \
		"$D"/warnings.yaml .
'

# --help

test_expect_success 'jobspec --help lists every subcommand on stdout' '
	respol jobspec --help >out &&
	grep "^Usage: respol jobspec SUBCOMMAND" out &&
	for sub in create validate convert summary; do
		grep "^  $sub " out || return 1
	done
'
test_expect_success 'jobspec -h is --help' '
	respol jobspec --help >expected &&
	respol jobspec -h >out &&
	test_cmp expected out
'
test_expect_success 'validate --help gives its usage and options' '
	respol jobspec validate --help >out &&
	grep "^Usage: respol jobspec validate \[--profile=v1|canonical\] FILE\.\.\.$" out &&
	grep -- "--profile=NAME" out
'
test_expect_success 'summary -h gives its usage and options' '
	respol jobspec summary -h >out &&
	grep "^Usage: respol jobspec summary \[--profile=v1|canonical\] \[--json\] FILE$" out &&
	grep -- "--json" out
'
test_expect_success 'create is dispatched to respol jobspec create' '
	respol jobspec create --help >out &&
	grep "^Usage: respol jobspec create " out
'
test_expect_success 'what create writes, validate accepts (V1)' '
	respol jobspec create -n2 hostname >created.yaml &&
	respol jobspec validate created.yaml 2>err &&
	test_must_be_empty err
'
test_expect_success 'respol --help lists jobspec' '
	respol --help >out &&
	grep "^  jobspec " out
'

# validate

test_expect_success 'a valid V1 jobspec: exit 0, nothing printed' '
	respol jobspec validate v1.yaml >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err
'
test_expect_success 'JSON input is validated the same way' '
	respol jobspec validate v1.json v1.yaml 2>err &&
	test_must_be_empty err
'
test_expect_success 'stdin is read for -' '
	respol jobspec validate - <v1.yaml 2>err &&
	test_must_be_empty err
'
test_expect_success 'every error of a document is printed, exit 1' '
	cat >expected <<-\EOF &&
	respol: jobspec: errors.yaml:4:12: resources[0].count: must be >= 1
	respol: jobspec: errors.yaml:6:9: resources[0].with[0]: missing key "label" (a slot needs a label)
	respol: jobspec: errors.yaml:7:16: resources[0].with[0].count: must be an integer in jobspec V1
	respol: jobspec: errors.yaml:11:17: resources[0].with[0].with[0].id: not allowed in jobspec V1
	respol: jobspec: errors.yaml:13:14: tasks[0].command: must be a list
	respol: jobspec: errors.yaml:14:11: tasks[0].slot: no slot labelled "task"
	respol: jobspec: errors.yaml:16:17: tasks[0].count.per_slot: must be 1 in jobspec V1
	respol: jobspec: errors.yaml:19:5: attributes.system: missing key "duration" (required in jobspec V1)
	respol: jobspec: errors.yaml:19:10: attributes.system.cwd: must be an absolute path
	respol: jobspec: errors.yaml:21:14: attributes.system.environment.DEBUG: must be a string or null
	EOF
	test_expect_code 1 respol jobspec validate errors.yaml >out 2>err &&
	test_must_be_empty out &&
	test_cmp expected err
'
test_expect_success 'the canonical profile drops the V1 rules only' '
	cat >expected <<-\EOF &&
	respol: jobspec: errors.yaml:4:12: resources[0].count: must be >= 1
	respol: jobspec: errors.yaml:6:9: resources[0].with[0]: missing key "label" (a slot needs a label)
	respol: jobspec: errors.yaml:13:14: tasks[0].command: must be a list
	respol: jobspec: errors.yaml:14:11: tasks[0].slot: no slot labelled "task"
	respol: jobspec: errors.yaml:19:10: attributes.system.cwd: must be an absolute path
	respol: jobspec: errors.yaml:21:14: attributes.system.environment.DEBUG: must be a string or null
	EOF
	test_expect_code 1 respol jobspec validate --profile=canonical \
		errors.yaml 2>err &&
	test_cmp expected err
'
test_expect_success 'V1 is the default profile: canonical-only forms fail' '
	cat >expected <<-\EOF &&
	respol: jobspec: canonical.yaml:8:16: resources[0].with[0].count: must be an integer in jobspec V1
	respol: jobspec: canonical.yaml:4:11: resources[0].type: must be node or slot in jobspec V1
	respol: jobspec: canonical.yaml:25:19: tasks[0].distribution: not allowed in jobspec V1
	respol: jobspec: canonical.yaml:24:21: tasks[0].count.per_resource: not allowed in jobspec V1
	EOF
	test_expect_code 1 respol jobspec validate canonical.yaml 2>err &&
	test_cmp expected err &&
	test_expect_code 1 respol jobspec validate --profile v1 canonical.yaml \
		2>err2 &&
	test_cmp expected err2
'
test_expect_success '--profile=canonical accepts RFC 14 forms' '
	respol jobspec validate --profile=canonical canonical.yaml 2>err &&
	test_must_be_empty err
'
test_expect_success 'V1 takes a gpu count of 0 (as flux-core), canonical does not' '
	sed "/type: gpu/{n;s/count: 1/count: 0/;}" v1.yaml >gpu0.yaml &&
	grep -q "count: 0" gpu0.yaml &&
	respol jobspec validate gpu0.yaml 2>err &&
	test_must_be_empty err &&
	respol jobspec summary gpu0.yaml >out &&
	grep " gpus_per_slot=0 " out &&
	test_error 1 "respol: jobspec: gpu0.yaml:14:20: resources[0].with[0].with[1].count: must be >= 1 (0 GPUs only in jobspec V1)" \
		respol jobspec validate --profile=canonical gpu0.yaml
'
test_expect_success 'several files: every one is checked, exit 1 if any fails' '
	cat >expected <<-\EOF &&
	respol: jobspec: errors.yaml:4:12: resources[0].count: must be >= 1
	respol: jobspec: errors.yaml:6:9: resources[0].with[0]: missing key "label" (a slot needs a label)
	respol: jobspec: errors.yaml:13:14: tasks[0].command: must be a list
	respol: jobspec: errors.yaml:14:11: tasks[0].slot: no slot labelled "task"
	respol: jobspec: errors.yaml:19:10: attributes.system.cwd: must be an absolute path
	respol: jobspec: errors.yaml:21:14: attributes.system.environment.DEBUG: must be a string or null
	respol: jobspec: nosuch.yaml: No such file or directory
	EOF
	test_expect_code 1 respol jobspec validate --profile=canonical \
		v1.yaml errors.yaml canonical.yaml nosuch.yaml 2>err &&
	test_cmp expected err
'
test_expect_success 'warnings are printed but do not fail' '
	cat >expected <<-\EOF &&
	respol: jobspec: warning: warnings.yaml:18:7: attributes.system.exec: unknown system attribute
	respol: jobspec: warning: warnings.yaml:19:19: attributes.system.alloc-bypass: unknown system attribute
	EOF
	respol jobspec validate warnings.yaml 2>err &&
	test_cmp expected err
'
test_expect_success 'errors from stdin are named stdin' '
	sed "5s/count: 2/count: 0/" v1.yaml >zero.yaml &&
	test_error 1 "respol: jobspec: stdin:5:12: resources[0].count: must be >= 1" \
		respol jobspec validate - <zero.yaml
'
test_expect_success 'a YAML syntax error names its position' '
	printf "version: 1\nresources: [\n" >syntax.yaml &&
	test_error 1 "respol: jobspec: syntax.yaml:3:1: did not find expected node content (while parsing a flow node at line 3, column 1)" \
		respol jobspec validate syntax.yaml
'
test_expect_success 'a JSON syntax error names its position' '
	printf "{\"version\": 1,}\n" >syntax.json &&
	test_error 1 "respol: jobspec: syntax.json:1:15: JSON: string or '"'"'}'"'"' expected near '"'"'}'"'"'" \
		respol jobspec validate syntax.json
'
test_expect_success 'YAML aliases (billion laughs) are refused' '
	cat >laughs.yaml <<-\EOF &&
	a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]
	b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]
	c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]
	EOF
	test_error 1 "respol: jobspec: laughs.yaml:2:8: YAML aliases are not allowed" \
		respol jobspec validate laughs.yaml
'
test_expect_success 'a document over 16 MiB is refused before parsing' '
	{ echo "version: 1"; echo "x: |"; yes "  0123456789012345678901234567890123456789" |
		head -n 420000; } >huge.yaml &&
	test_error 1 "respol: jobspec: huge.yaml: document is larger than 16777216 bytes" \
		respol jobspec validate huge.yaml
'
test_expect_success 'nesting deeper than the reader allows is refused' '
	{ printf "version: "; i=0; while test $i -lt 70; do printf "["; i=$((i+1)); done;
	  i=0; while test $i -lt 70; do printf "]"; i=$((i+1)); done; echo; } >deep.yaml &&
	test_expect_code 1 respol jobspec validate deep.yaml 2>err &&
	grep "^respol: jobspec: deep.yaml:1:.*deeper than 64" err
'
test_expect_success 'a count above 2^31-1 is refused' '
	sed "5s/count: 2/count: 99999999999/" v1.yaml >big.yaml &&
	test_error 1 "respol: jobspec: big.yaml:5:12: resources[0].count: must be <= 2147483647" \
		respol jobspec validate big.yaml
'

# validate: bad usage

test_expect_success 'validate without FILE is a usage error' '
	test_expect_code 2 respol jobspec validate 2>err &&
	grep "^respol: jobspec: validate: missing FILE argument$" err
'
test_expect_success 'an unknown profile is a usage error' '
	test_expect_code 2 respol jobspec validate --profile=v2 v1.yaml 2>err &&
	grep "^respol: jobspec: validate: unknown profile .v2.$" err
'
test_expect_success '--profile requires an argument' '
	test_expect_code 2 respol jobspec validate --profile 2>err &&
	grep "^respol: jobspec: validate: option .--profile. requires an argument$" err
'
test_expect_success 'validate takes no --json' '
	test_expect_code 2 respol jobspec validate --json v1.yaml 2>err &&
	grep "^respol: jobspec: validate: unknown option .--json.$" err
'
test_expect_success 'an unknown short option is a usage error' '
	test_expect_code 2 respol jobspec validate -x v1.yaml 2>err &&
	grep "^respol: jobspec: validate: unknown option .-x.$" err
'
test_expect_success 'an unknown subcommand is a usage error' '
	test_expect_code 2 respol jobspec frobnicate 2>err &&
	grep "^respol: jobspec: unknown subcommand .frobnicate.$" err
'
test_expect_success 'a missing subcommand is a usage error' '
	test_expect_code 2 respol jobspec 2>err &&
	grep "^respol: jobspec: missing subcommand$" err
'
test_expect_success 'options may follow the FILEs; after -- they are file names' '
	respol jobspec summary v1.yaml --json >out &&
	grep "^{" out &&
	test_expect_code 1 respol jobspec validate -- v1.yaml --profile=x 2>err &&
	grep "^respol: jobspec: --profile=x: No such file or directory$" err
'

test_expect_success 'flow-style YAML on stdin is read as YAML, not refused as JSON' '
	cat >flow.txt <<-\EOF &&
	{version: 1, resources: [{type: slot, count: 1, label: task,
	  with: [{type: core, count: 1}]}],
	 tasks: [{command: [app], slot: task, count: {per_slot: 1}}],
	 attributes: {system: {duration: 0}}}
	EOF
	respol jobspec validate - <flow.txt &&
	respol jobspec validate flow.txt &&
	cp flow.txt flow.json &&
	test_expect_code 1 respol jobspec validate flow.json 2>err &&
	grep "^respol: jobspec: flow.json:1:8: JSON: " err
'
test_expect_success 'a guessed JSON document that is neither JSON nor YAML: the JSON error' '
	printf "{\"version\": 1,,}\n" >bad.txt &&
	test_expect_code 1 respol jobspec validate bad.txt 2>err &&
	grep "^respol: jobspec: bad.txt:1:15: JSON: " err
'

# summary

test_expect_success 'summary prints the derived facts on one line' '
	cat >expected <<-\EOF &&
	nnodes=2 nslots=4 cores_per_slot=2 gpus_per_slot=1 memory_per_slot=0 exclusive=false duration=3600 ntasks=4 exact=true uniform=true
	EOF
	respol jobspec summary v1.yaml >out &&
	test_cmp expected out
'
test_expect_success 'summary of a slot-only JSON jobspec' '
	cat >expected <<-\EOF &&
	nnodes=0 nslots=4 cores_per_slot=1 gpus_per_slot=0 memory_per_slot=0 exclusive=true duration=0 ntasks=4 exact=true uniform=true
	EOF
	respol jobspec summary v1.json >out &&
	test_cmp expected out
'
test_expect_success 'summary --profile=canonical: minimum counts, not exact' '
	cat >expected <<-\EOF &&
	nnodes=2 nslots=2 cores_per_slot=8 gpus_per_slot=0 memory_per_slot=17179869184 exclusive=false duration=600 ntasks=16 exact=false uniform=true
	EOF
	respol jobspec summary --profile=canonical canonical.yaml >out &&
	test_cmp expected out
'
test_expect_success 'summary --json prints the same facts, sorted keys' '
	cat >expected <<-\EOF &&
	{"cores_per_slot":2,"duration":3600.0,"exact":true,"exclusive":false,"gpus_per_slot":1,"memory_per_slot":0,"nnodes":2,"nslots":4,"ntasks":4,"uniform":true}
	EOF
	respol jobspec summary --json v1.yaml >out &&
	test_cmp expected out
'
test_expect_success 'summary --json writes saturated counts as INT64_MAX, never negative' '
	cat >huge.yaml <<-\EOF &&
	version: 1
	resources:
	  - type: cluster
	    count: 2147483647
	    with:
	      - type: node
	        count: 2147483647
	        with:
	          - type: slot
	            count: 2147483647
	            label: task
	            with:
	              - type: core
	                count: 1
	tasks:
	  - command: [app]
	    slot: task
	    count: {per_slot: 1}
	attributes:
	  system: {duration: 0}
	EOF
	respol jobspec summary --profile=canonical huge.yaml >out &&
	grep "nslots=18446744073709551615" out &&
	respol jobspec summary --profile=canonical --json huge.yaml >out &&
	grep "\"nslots\":9223372036854775807" out &&
	! grep ":-" out
'
test_expect_success 'summary of an invalid jobspec prints its errors, exit 1' '
	test_expect_code 1 respol jobspec summary canonical.yaml >out 2>err &&
	test_must_be_empty out &&
	test $(wc -l <err) -eq 4
'
test_expect_success 'summary prints warnings and the facts' '
	cat >expected <<-\EOF &&
	nnodes=0 nslots=1 cores_per_slot=1 gpus_per_slot=0 memory_per_slot=0 exclusive=true duration=60 ntasks=1 exact=true uniform=true
	EOF
	respol jobspec summary warnings.yaml >out 2>err &&
	test_cmp expected out &&
	test $(wc -l <err) -eq 2 &&
	grep -c "^respol: jobspec: warning: warnings.yaml:" err
'
test_expect_success 'summary takes one FILE' '
	test_expect_code 2 respol jobspec summary v1.yaml v1.json 2>err &&
	grep "^respol: jobspec: summary: unexpected argument .v1.json.$" err
'
test_expect_success 'summary takes no --yaml' '
	test_expect_code 2 respol jobspec summary --yaml v1.yaml 2>err &&
	grep "^respol: jobspec: summary: unknown option .--yaml.$" err
'
test_done
