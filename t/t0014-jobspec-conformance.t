#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol jobspec: every example and schema of RFC 14, RFC 25
and RFC 26 (copied into t/data/jobspec/conformance) gives the result the RFC
intends, in both profiles, and so do the storage use cases flux-core accepts
(a slot inside a slot); see t/data/jobspec/README.md for the list'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/jobspec/conformance"

test_expect_success 'setup' '
	cp -r "$D" conformance
'

# For each file of a folder: the result of validate in each profile with
# every message, then the summary when the file is canonical jobspec.
report() {
	for f in conformance/"$1"/*; do
		echo "== $f"
		for p in v1 canonical; do
			if respol jobspec validate --profile=$p "$f" 2>err; then
				echo "$p: valid"
			else
				echo "$p: invalid"
			fi
			cat err
		done
		if respol jobspec summary --profile=canonical "$f" >sum 2>/dev/null
		then
			echo "summary: $(cat sum)"
		fi
	done
}

# An RFC 26 example is a dependency list: put it in a V1 jobspec.
embed() {
	cat <<-\EOF
	version: 1
	resources: [{type: slot, count: 1, label: task, with: [{type: core, count: 1}]}]
	tasks: [{command: [app], slot: task, count: {per_slot: 1}}]
	attributes:
	  system:
	    duration: 0
	    dependencies:
	EOF
	sed "s/^/      /" "$1"
}

for rfc in rfc14 rfc25 rfc26 storage; do
	test_expect_success "$rfc: every file gives the intended result" '
		report $rfc >out &&
		test_cmp "$D/$rfc.expected" out
	'
done

test_expect_success 'every file of the four folders is covered' '
	for f in "$D"/rfc14/* "$D"/rfc25/* "$D"/rfc26/* "$D"/storage/*; do
		name=${f#"$D"/}
		grep -x "== conformance/$name" "$D"/*.expected || return 1
	done
'

for f in example_1 example_2 example_3_A example_3_B example_3_C; do
	test_expect_success "rfc26/$f.yaml: valid dependencies in a V1 jobspec" '
		embed conformance/rfc26/$f.yaml >$f-job.yaml &&
		respol jobspec validate $f-job.yaml 2>err &&
		test_must_be_empty err &&
		respol jobspec convert $f-job.yaml >job.json &&
		respol jobspec convert conformance/rfc26/$f.yaml >deps.json &&
		grep -F "\"dependencies\":$(cat deps.json)" job.json
	'
done

test_expect_success 'RFC 26 planned type values are refused' '
	sed "s/type: inout/type: inoutset/" conformance/rfc26/example_1.yaml \
		>planned.yaml &&
	embed planned.yaml >planned-job.yaml &&
	test_error 1 "respol: jobspec: planned-job.yaml:8:15: attributes.system.dependencies[0].type: must be one of \"in\", \"out\", \"inout\"" \
		respol jobspec validate planned-job.yaml
'
test_done
