#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol jobspec validate runs the configured validator
stack after the RFC checks: order, warnings, the first rejection, amendments
(--print), a broken amendment, and the configuration options'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

FIX="$RESPOL_FIXTURE_PLUGINDIR"

test_expect_success 'setup: jobspecs and stacks' '
	cat >job.yaml <<-EOF &&
	version: 1
	resources:
	  - type: slot
	    count: 1
	    label: task
	    with:
	      - type: core
	        count: 1
	tasks:
	  - command: [hostname]
	    slot: task
	    count:
	      per_slot: 1
	attributes:
	  system:
	    duration: 60
	EOF
	sed "0,/count: 1$/s//count: 2/" job.yaml >two.yaml &&
	cat >bad.yaml <<-EOF &&
	version: 1
	resources: []
	EOF
	stack() {
		printf "plugin-path: [\"%s\"]\nvalidate:\n" "$FIX" &&
		for entry in "$@"; do
			printf "  - %s\n" "$entry"
		done
	} &&
	stack >empty.yaml &&
	stack "{plugin: good, config: {log: log}}" >good.yaml &&
	stack "{plugin: warn-all}" >warn.yaml &&
	stack "{plugin: reject-all}" >reject.yaml &&
	stack "{plugin: warn-all}" "{plugin: reject-all}" \
		"{plugin: good, config: {log: log}}" >order.yaml &&
	stack "{plugin: warn-all}" "{plugin: good, config: {log: log}}" \
		>visible.yaml &&
	stack "{plugin: good, config: {amend: {system.duration: forever}}}" \
		>broken.yaml &&
	stack "{plugin: good, config: {fail: true}}" >fail.yaml &&
	stack "{plugin: strict-config, config: {limit: 1}}" >strict.yaml
'
test_expect_success 'the test jobspecs are valid (two.yaml has two tasks)' '
	respol jobspec validate --config=empty.yaml job.yaml two.yaml &&
	respol jobspec summary two.yaml >out &&
	grep "ntasks=2 " out
'

# --help and usage

test_expect_success 'validate --help shows --config and --print' '
	respol jobspec validate --help >out &&
	grep "^      --config=FILE   the plugin configuration whose validator stack runs$" out &&
	grep "^      --print         print the jobspec as amended by the stack, as YAML$" out
'
test_expect_success '--config requires an argument' '
	test_error 2 "respol: jobspec: validate: option '"'"'--config'"'"' requires an argument
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec validate --config
'
test_expect_success '--print takes one FILE' '
	test_error 2 "respol: jobspec: validate: --print takes one FILE
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec validate --config=empty.yaml --print job.yaml job.yaml
'
test_expect_success 'convert does not take --config' '
	test_error 2 "respol: jobspec: convert: unknown option '"'"'--config'"'"'
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec convert --config=empty.yaml job.yaml
'

# The stack

test_expect_success 'an empty stack: valid, silent' '
	respol jobspec validate --config=empty.yaml job.yaml >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err
'
test_expect_success 'an accepting validator runs once per valid jobspec' '
	rm -f log &&
	respol jobspec validate --config=good.yaml job.yaml two.yaml 2>err &&
	test_must_be_empty err &&
	printf "%s\n" "init good" "validate good queue=-" "validate good queue=-" \
		"fini good" >expected &&
	test_cmp expected log
'
test_expect_success 'the stack does not run on a jobspec that fails the RFC checks' '
	rm -f log &&
	test_expect_code 1 respol jobspec validate --config=good.yaml bad.yaml \
		2>err &&
	printf "%s\n" "init good" "fini good" >expected &&
	test_cmp expected log
'
test_expect_success 'warnings are printed and do not fail' '
	cat >expected <<-EOF &&
	respol: jobspec: warning: job.yaml: warn-all: first warning
	respol: jobspec: warning: job.yaml: warn-all: second warning (queue -)
	EOF
	respol jobspec validate --config=warn.yaml job.yaml >out 2>err &&
	test_must_be_empty out &&
	test_cmp expected err
'
test_expect_success 'a rejection fails, naming the validator' '
	test_error 1 "respol: jobspec: job.yaml: reject-all: rejected on purpose" \
		respol jobspec validate --config=reject.yaml job.yaml
'
test_expect_success 'the first rejection stops the stack; earlier warnings are kept' '
	rm -f log &&
	cat >expected <<-EOF &&
	respol: jobspec: warning: job.yaml: warn-all: first warning
	respol: jobspec: warning: job.yaml: warn-all: second warning (queue -)
	respol: jobspec: job.yaml: reject-all: rejected on purpose
	EOF
	test_expect_code 1 respol jobspec validate --config=order.yaml job.yaml \
		2>err &&
	test_cmp expected err &&
	printf "%s\n" "init good" "fini good" >expected &&
	test_cmp expected log
'
test_expect_success 'an amendment is visible to the next validator' '
	rm -f log &&
	respol jobspec validate --config=visible.yaml job.yaml 2>err &&
	grep "^validate good queue=amended$" log
'
test_expect_success '--print prints the amended jobspec as YAML' '
	respol jobspec validate --config=warn.yaml --print job.yaml >out 2>err &&
	respol jobspec convert --yaml job.yaml |
		sed "s/^    duration: 60$/&\n    queue: amended/" >expected &&
	test_cmp expected out &&
	respol jobspec validate --config=empty.yaml job.yaml &&
	respol jobspec validate --config=empty.yaml out
'
test_expect_success '--print of a jobspec nothing amended prints it as read' '
	respol jobspec validate --config=good.yaml --print job.yaml >out &&
	respol jobspec convert --yaml job.yaml >expected &&
	test_cmp expected out
'
test_expect_success '--print prints nothing for a rejected jobspec' '
	test_expect_code 1 respol jobspec validate --config=reject.yaml --print \
		job.yaml >out 2>err &&
	test_must_be_empty out
'
test_expect_success 'an amendment that breaks the jobspec rejects it' '
	test_error 1 "respol: jobspec: job.yaml: good: amended jobspec is invalid: job.yaml: attributes.system.duration: must be a number" \
		respol jobspec validate --config=broken.yaml job.yaml
'
test_expect_success 'a failing validator fails with its error, exit 3' '
	test_error 3 "respol: jobspec: job.yaml: good: plugin failed: failing on purpose" \
		respol jobspec validate --config=fail.yaml job.yaml
'
test_expect_success 'each file is judged on its own' '
	test_error 1 "respol: jobspec: two.yaml: strict-config: 2 tasks, more than the limit of 1" \
		respol jobspec validate --config=strict.yaml job.yaml two.yaml
'

# Which configuration

test_expect_success 'without --config, $RESPOL_CONFIG is used' '
	RESPOL_CONFIG=reject.yaml test_expect_code 1 \
		respol jobspec validate job.yaml 2>err &&
	grep "reject-all: rejected on purpose" err
'
test_expect_success '--config wins over $RESPOL_CONFIG' '
	RESPOL_CONFIG=reject.yaml respol jobspec validate --config=empty.yaml \
		job.yaml
'
test_expect_success 'a configuration that does not load: its errors, nothing validated' '
	printf "validate:\n  - plugin: \"%s/init-fails.so\"\n" "$FIX" >cfgbad.yaml &&
	test_error 1 "respol: jobspec: cfgbad.yaml:2:5: validate[0] '"'"'init-fails'"'"': init failed: init failed on purpose" \
		respol jobspec validate --config=cfgbad.yaml job.yaml
'
test_expect_success 'a missing configuration file' '
	test_error 1 "respol: jobspec: configuration none.yaml: No such file or directory" \
		respol jobspec validate --config=none.yaml job.yaml
'

test_done
