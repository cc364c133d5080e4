#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='exit statuses tell outcomes apart; a failure without a message names the operation

0 ok, 1 bad input or a rejected job, 2 a usage error, 3 a plugin that
failed (it returned an error or an unknown verdict: the job was not
judged).  The fixture plugins crash and crash-match return the value
their block gives from the operation it names, without a message.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

FIX="$RESPOL_FIXTURE_PLUGINDIR"
Q="'"

# returns FILE STACK PLUGIN OP VALUE
returns() {
	printf "plugin-path: [%s]\n%s:\n  - plugin: %s\n    config: {in: %s, return: %s}\n" \
		"$FIX" "$2" "$3" "$4" "$5" >"$1"
}

test_expect_success 'setup' '
	respol jobspec create -n1 hostname >job.yaml &&
	printf "version: 1\n" >bad.yaml &&
	printf "plugin-path: [%s]\nvalidate:\n  - plugin: reject-all\n" "$FIX" >reject.yaml
'

# --- the wording of a failure without a message --------------------------

test_expect_success 'validate returns an unknown verdict: named with the value, exit 3' '
	returns c.yaml validate crash validate 7 &&
	test_error 3 "respol: jobspec: job.yaml: plugin ${Q}crash${Q}: validate returned 7 (no message)" \
		respol jobspec validate --config=c.yaml job.yaml
'
test_expect_success 'validate returns -1 without svc->error: named with -1, exit 3' '
	returns c.yaml validate crash validate -1 &&
	test_error 3 "respol: jobspec: job.yaml: plugin ${Q}crash${Q}: validate returned -1 (no message)" \
		respol jobspec validate --config=c.yaml job.yaml
'
test_expect_success 'score fails without a message: named with the value, exit 3' '
	returns m.yaml match crash-match score -1 &&
	test_error 3 "respol: match: policy ${Q}crash-match${Q}: score returned -1 (no message)" \
		respol match allocate --config=m.yaml --generate=nodes=2,cores=2 job.yaml &&
	test_error 3 "respol: match: policy ${Q}crash-match${Q}: score returned -1 (no message)" \
		respol match satisfiability --config=m.yaml --generate=nodes=2,cores=2 job.yaml
'
test_expect_success 'order_candidates fails without a message: named, exit 3' '
	returns m.yaml match crash-match order_candidates 2 &&
	test_error 3 "respol: match: policy ${Q}crash-match${Q}: order_candidates returned 2 (no message)" \
		respol match allocate --config=m.yaml --generate=nodes=2,cores=2 job.yaml
'
test_expect_success 'prune returns an unknown value: named, exit 3' '
	returns m.yaml match crash-match prune 5 &&
	test_error 3 "respol: match: policy ${Q}crash-match${Q}: prune returned 5 (not CONTINUE or SKIP)" \
		respol match allocate --config=m.yaml --generate=nodes=2,cores=2 job.yaml
'
test_expect_success 'init fails without a message: named with the value; a bad configuration, exit 1' '
	returns i.yaml validate crash init -1 &&
	test_error 1 "respol: config: i.yaml:4:13: validate[0] ${Q}crash${Q}: init returned -1 (no message)" \
		respol config check i.yaml &&
	test_error 1 "respol: plugin: i.yaml:4:13: validate[0] ${Q}crash${Q}: init returned -1 (no message)" \
		respol plugin list --config=i.yaml &&
	test_error 1 "respol: jobspec: i.yaml:4:13: validate[0] ${Q}crash${Q}: init returned -1 (no message)" \
		respol jobspec validate --config=i.yaml job.yaml
'

# --- exit statuses ----------------------------------------------------------

test_expect_success 'exit 0: accepted' '
	returns ok.yaml validate crash none 0 &&
	respol jobspec validate --config=ok.yaml job.yaml
'
test_expect_success 'exit 1: rejected by a validator, or not a valid jobspec' '
	test_expect_code 1 respol jobspec validate --config=reject.yaml job.yaml 2>err &&
	test_expect_code 1 respol jobspec validate bad.yaml 2>err
'
test_expect_success 'exit 2: a usage error' '
	test_expect_code 2 respol jobspec validate --frobnicate job.yaml 2>err &&
	test_expect_code 2 respol match allocate job.yaml 2>err
'
test_expect_success 'exit 3 wins over 1 among several files, in either order' '
	returns c.yaml validate crash validate -1 &&
	test_expect_code 3 respol jobspec validate --config=c.yaml bad.yaml job.yaml 2>err &&
	test_expect_code 3 respol jobspec validate --config=c.yaml job.yaml bad.yaml 2>err
'
test_expect_success 'query: 1 when a command failed, 3 when a policy failed' '
	echo "match allocate bad.yaml" >bad.cmds &&
	printf "match allocate job.yaml\nmatch allocate bad.yaml\n" >both.cmds &&
	returns m.yaml match crash-match score -1 &&
	test_expect_code 1 respol query --config=m.yaml --generate=nodes=2 -f bad.cmds 2>err &&
	test_expect_code 3 respol query --config=m.yaml --generate=nodes=2 -f both.cmds 2>err &&
	grep "^respol: query: line 1: match allocate job.yaml: policy ${Q}crash-match${Q}: score returned -1 (no message)$" err
'
test_expect_success 'a job that cannot be placed is bad input, exit 1' '
	respol jobspec create -N3 hostname >three.yaml &&
	test_expect_code 1 respol match allocate --generate=nodes=2 three.yaml 2>err
'

test_done
