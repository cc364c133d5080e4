#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='the respol jobtap plugin: the validator stack at flux submit

core/flux/respol-jobtap.c, loaded with flux jobtap load into an instance
of one broker, runs a configuration holding require-duration and limits:
each jobspec file is accepted or refused by flux job submit as respol
jobspec validate decides, with the same message; an amendment becomes a
jobspec-update event, a warning a respol-warning event.  Skipped when
respol was configured without --with-flux.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-flux.sh"
. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"
test_under_flux 1

jobtap=$RESPOL_BUILDDIR/core/flux/.libs/respol-jobtap.so
plugins=$RESPOL_BUILD_PLUGINDIR
fixtures=$RESPOL_FIXTURE_PLUGINDIR

# load CONFIG: the jobtap plugin with that configuration, in place of
# the one loaded before.
load() {
	flux jobtap remove respol-jobtap.so >/dev/null 2>&1
	flux jobtap load "$jobtap" config="$PWD/$1"
}
# submit FILE: flux job submit; the message of a refusal in FILE.err,
# without the prefix flux-job: .
submit() {
	flux job submit "$1" >"$1.id" 2>"$1.flux" && return 0
	sed "s/^flux-job: //" "$1.flux" >"$1.err"
	return 1
}

test_expect_success 'setup: a configuration with require-duration and limits' '
	cat >limits.yaml <<-EOF &&
	validate:
	  - plugin: $plugins/require-duration.so
	    config: {default: 1h, max: 1d}
	  - plugin: $plugins/limits.so
	    config: {max-nodes: 1, max-cores: 2}
	EOF
	load limits.yaml
'
test_expect_success 'setup: jobspec files, as flux run writes them' '
	flux run --dry-run -N1 -n1 -t 10m true >ok.json &&
	flux run --dry-run -N1 -n2 -t 1h true >two.json &&
	flux run --dry-run -N1 -n1 true >nodur.json &&
	flux run --dry-run -N1 -n1 -t 2d true >long.json &&
	flux run --dry-run -N2 -n2 -t 1m true >nodes.json &&
	flux run --dry-run -N1 -n3 -t 1m true >cores.json
'
for f in ok two nodur long nodes cores; do
	test_expect_success "$f.json: flux submit decides as respol jobspec validate" '
		if respol jobspec validate --config=limits.yaml '$f'.json \
			>/dev/null 2>respol.err
		then
			submit '$f'.json
		else
			test_must_fail submit '$f'.json &&
			sed "s/^respol: jobspec: '$f'.json: //" respol.err \
				>expected &&
			test_cmp expected '$f'.json.err
		fi
	'
done
test_expect_success 'the refusals are the ones expected' '
	cat >expected <<-EOF &&
	long.json.err:require-duration: duration 2d is above the maximum 1d
	nodes.json.err:limits: requests 2 nodes, limit is 1
	cores.json.err:limits: requests 3 cores, limit is 2
	EOF
	grep . long.json.err nodes.json.err cores.json.err >got &&
	test_cmp expected got &&
	test ! -e ok.json.err && test ! -e two.json.err &&
	test ! -e nodur.json.err
'
test_expect_success 'an amendment is a jobspec-update, a warning a respol-warning' '
	id=$(cat nodur.json.id) &&
	flux job wait-event -t 30 $id clean &&
	flux job eventlog $id >log &&
	grep "jobspec-update attributes.system.duration=3600" log &&
	grep "respol-warning message=\"require-duration: duration not set, using default 1h\"" log &&
	flux jobs -no "{duration}" $id >got &&
	echo 3600.0 >expected &&
	test_cmp expected got
'
test_expect_success 'a job without warnings gets no respol event' '
	id=$(cat ok.json.id) &&
	flux job wait-event -t 30 $id clean &&
	flux job eventlog $id >log &&
	test_must_fail grep respol log
'
test_expect_success 'a validator that fails rejects the job, naming it' '
	cat >fails.yaml <<-EOF &&
	validate:
	  - plugin: $fixtures/good.so
	    config: {fail: true}
	EOF
	load fails.yaml &&
	test_must_fail submit ok.json &&
	echo "respol: good: plugin failed: failing on purpose" >expected &&
	test_cmp expected ok.json.err
'
test_expect_success 'an amendment below attributes is applied' '
	cat >note.yaml <<-EOF &&
	validate:
	  - plugin: $fixtures/good.so
	    config: {amend: {user.note: from-respol}}
	EOF
	load note.yaml &&
	submit ok.json &&
	flux job eventlog $(cat ok.json.id) >log &&
	grep "jobspec-update attributes.user.note=\"from-respol\"" log
'
test_expect_success 'an amendment of the environment Flux hides is refused' '
	cat >env.yaml <<-EOF &&
	validate:
	  - plugin: $fixtures/good.so
	    config: {amend: {system.environment: {A: b}}}
	EOF
	load env.yaml &&
	test_must_fail submit ok.json &&
	echo "respol: amendment changes attributes.system.environment, which job manager plugins cannot see" >expected &&
	test_cmp expected ok.json.err
'
test_expect_success 'a hold is posted as a respol-warning; the job is accepted' '
	cat >hold.yaml <<-EOF &&
	validate:
	  - plugin: $fixtures/hold-all.so
	EOF
	load hold.yaml &&
	submit ok.json &&
	id=$(cat ok.json.id) &&
	flux job wait-event -t 30 $id clean &&
	flux job eventlog $id >log &&
	grep "respol-warning message=\"held: hold-all: held by hold-all (queue -)\"" log
'
test_expect_success 'a configuration that does not load fails the load, its error logged' '
	cat >bad.yaml <<-EOF &&
	validate:
	  - plugin: no-such-validator
	EOF
	flux jobtap remove respol-jobtap.so &&
	test_must_fail flux jobtap load "$jobtap" config="$PWD/bad.yaml" &&
	flux dmesg | grep "respol: $PWD/bad.yaml:2:13: validate\[0\]: plugin .no-such-validator. not found"
'
test_done
