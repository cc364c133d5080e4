#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol plugin test: one plugin alone over jobspecs, its
verdicts or allocations, warnings, amendments, log lines and time per call'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

FIX="$RESPOL_FIXTURE_PLUGINDIR"
Q="'"

# The lines without their timing, which varies.
untimed() {
	sed "s/ ([0-9.]* us per call)$/ (T us per call)/" "$@"
}

test_expect_success 'setup: jobspecs' '
	respol jobspec create --env="-*" -N1 -n1 -c1 -t 1h -- app >one.yaml &&
	respol jobspec create --env="-*" -N4 -n4 -t 1h -- app >four.yaml &&
	respol jobspec create --env="-*" -N1 -n1 -c1 -- app >nodur.yaml &&
	respol jobspec create --env="-*" -N8 -n8 -t 1h -- app >eight.yaml
'
test_expect_success 'a validator: a line per jobspec with its verdict and time' '
	respol plugin test --set max-nodes=2 limits one.yaml four.yaml >out &&
	untimed out >got &&
	cat >expected <<-\EOF &&
	one.yaml: accept (T us per call)
	four.yaml: reject: limits: requests 4 nodes, limit is 2 (T us per call)
	EOF
	test_cmp expected got
'
test_expect_success 'warnings and amendments are shown under the line' '
	respol plugin test --set max=1h --set default=30m require-duration \
		nodur.yaml >out &&
	untimed out >got &&
	cat >expected <<-EOF &&
	nodur.yaml: warn (T us per call)
	    warning: require-duration: duration not set, using default 30m
	    amended: system.duration = 1800.0
	EOF
	test_cmp expected got
'
test_expect_success 'a hold' '
	respol jobspec create --env="-*" -N1 -n1 -c1 -t 1h -q gpu -- app >gpu.yaml &&
	respol plugin test "$FIX/hold-all.so" gpu.yaml >out &&
	untimed out >got &&
	cat >expected <<-EOF &&
	gpu.yaml: hold: hold-all: held by hold-all (queue gpu) (T us per call)
	    amended: system.held = true
	EOF
	test_cmp expected got
'
test_expect_success 'what the plugin logs, at every level, is shown' '
	respol plugin test --set "user={max-cores: 1}" --user=daemon \
		user-limits one.yaml eight.yaml >out &&
	untimed out >got &&
	cat >expected <<-EOF &&
	one.yaml: accept (T us per call)
	    log debug: no instance: what users run now was not checked
	eight.yaml: reject: user-limits: requests 8 cores, user daemon may hold 1 (T us per call)
	EOF
	test_cmp expected got
'
test_expect_success 'the block comes from the configuration entry, --set changes a key' '
	cat >site.yaml <<-\EOF &&
	validate:
	  - plugin: limits
	    name: small
	    config: {max-nodes: 2, max-tasks: 100}
	EOF
	respol plugin test --config=site.yaml small four.yaml >out &&
	untimed out >got &&
	echo "four.yaml: reject: limits: requests 4 nodes, limit is 2 (T us per call)" >expected &&
	test_cmp expected got &&
	respol plugin test --config=site.yaml --set max-nodes=8 limits four.yaml \
		eight.yaml >out &&
	untimed out >got &&
	cat >expected <<-\EOF &&
	four.yaml: accept (T us per call)
	eight.yaml: accept (T us per call)
	EOF
	test_cmp expected got
'
test_expect_success '--set keeps the keys of the entry it does not name' '
	respol jobspec create --env="-*" -N1 -n200 -t 1h -- app >many.yaml &&
	respol plugin test --config=site.yaml --set max-nodes=8 limits \
		many.yaml >out &&
	untimed out >got &&
	echo "many.yaml: reject: limits: requests 200 tasks, limit is 100 (T us per call)" >expected &&
	test_cmp expected got
'
test_expect_success 'a bad block is refused as a configuration is' '
	test_expect_code 1 respol plugin test --set max-nodes=x limits \
		one.yaml 2>err &&
	grep "max-nodes: must be an integer >= 0" err
'
test_expect_success '--repeat: one line per jobspec, the mean time' '
	respol plugin test --repeat=50 --set max-nodes=2 limits one.yaml >out &&
	test $(wc -l <out) = 1 &&
	grep "^one.yaml: accept ([0-9.]* us per call)$" out
'
test_expect_success 'a match policy: a stream of allocations on one graph' '
	respol plugin test --generate=nodes=4,cores=4 spread one.yaml four.yaml \
		one.yaml eight.yaml >out &&
	untimed out >got &&
	cat >expected <<-\EOF &&
	one.yaml: node0: core[0] (T us per call)
	four.yaml: node0: core[1]; node1: core[0]; node2: core[0]; node3: core[0] (T us per call)
	one.yaml: node1: core[1] (T us per call)
	eight.yaml: never satisfiable: needs 8 nodes with 1 slot of 1 core each, the resource set has 4 (T us per call)
	EOF
	test_cmp expected got
'
test_expect_success 'a match policy that fails in a call: exit 3' '
	test_expect_code 3 respol plugin test --generate=nodes=2,cores=2 \
		"$FIX/score-fails.so" one.yaml >out &&
	grep "^one.yaml: policy ${Q}score-fails$Q: score failed" out
'

# Usage and bad input

test_expect_success 'missing arguments are usage errors' '
	test_expect_code 2 respol plugin test 2>err &&
	grep "test: missing PLUGIN argument" err &&
	test_expect_code 2 respol plugin test limits 2>err &&
	grep "test: missing JOBSPEC argument" err
'
test_expect_success 'a validator takes no resources, a policy needs them' '
	test_expect_code 2 respol plugin test --generate=nodes=1 limits one.yaml 2>err &&
	grep "test: limits is a validator: it takes no resources" err &&
	test_expect_code 2 respol plugin test spread one.yaml 2>err &&
	grep "test: spread is a match policy: give the resources" err
'
test_expect_success 'bad --repeat and --set' '
	test_expect_code 2 respol plugin test --repeat=0 limits one.yaml 2>err &&
	grep "test: --repeat: ${Q}0$Q is not a count from 1 to 1000000" err &&
	test_expect_code 2 respol plugin test --set x limits one.yaml 2>err &&
	grep "test: --set: ${Q}x$Q is not KEY=VALUE" err
'
test_expect_success 'an unknown plugin, with the closest name' '
	test_error 1 "respol: plugin: plugin ${Q}limts$Q not found in $RESPOL_BUILDDIR/plugins/built; did you mean ${Q}limits$Q?" \
		respol plugin test limts one.yaml
'
test_expect_success 'a jobspec that is not valid' '
	echo "version: 1" >bad.yaml &&
	test_expect_code 1 respol plugin test --set max-nodes=2 limits bad.yaml 2>err &&
	grep "bad.yaml" err
'

test_done
