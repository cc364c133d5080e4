#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol jobspec convert: YAML to JSON and back without
loss, for every conformance file and for values a careless converter would
change'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/jobspec"

test_expect_success 'setup' '
	cp "$D"/v1.yaml "$D"/v1.json "$D"/errors.yaml "$D"/tricky.yaml . &&
	cp -r "$D"/conformance .
'

test_expect_success 'convert --help gives its usage and options' '
	respol jobspec convert --help >out &&
	grep "^Usage: respol jobspec convert \[--json|--yaml\] FILE$" out &&
	grep -- "--json" out &&
	grep -- "--yaml" out
'

test_expect_success 'YAML converts to compact JSON with sorted keys' '
	cat >expected <<-\EOF &&
	{"attributes":{"system":{"cwd":"/home/user/work","duration":3600.0,"environment":{"HOME":"/home/user","OMP_NUM_THREADS":"2"},"job":{"name":"app"},"shell":{"options":{"rlimit":{"core":0}}}}},"resources":[{"count":2,"type":"node","with":[{"count":2,"label":"task","type":"slot","with":[{"count":2,"type":"core"},{"count":1,"type":"gpu"}]}]}],"tasks":[{"command":["app","--input","data.txt"],"count":{"per_slot":1},"slot":"task"}],"version":1}
	EOF
	respol jobspec convert v1.yaml >out &&
	test_cmp expected out
'
test_expect_success 'JSON converts to block YAML with sorted keys' '
	cat >expected <<-\EOF &&
	attributes:
	  system:
	    duration: 0
	resources:
	  - count: 4
	    label: task
	    type: slot
	    with:
	      - count: 1
	        type: core
	tasks:
	  - command:
	      - hostname
	    count:
	      total: 4
	    slot: task
	version: 1
	EOF
	respol jobspec convert v1.json >out &&
	test_cmp expected out
'
test_expect_success '--json on JSON input normalises it' '
	respol jobspec convert v1.json >v1.yaml.out &&
	respol jobspec convert --json v1.json >a.json &&
	respol jobspec convert v1.yaml.out >b.json &&
	test_cmp a.json b.json &&
	test $(wc -l <a.json) -eq 1
'
test_expect_success '--yaml on YAML input normalises it (comments go)' '
	respol jobspec convert --yaml v1.yaml >out &&
	! grep "#" out &&
	respol jobspec convert v1.yaml >v1.json.out &&
	respol jobspec convert v1.json.out >expected &&
	test_cmp expected out
'
test_expect_success 'the last of --json and --yaml wins' '
	respol jobspec convert --json --yaml v1.json >out &&
	respol jobspec convert v1.json >expected &&
	test_cmp expected out
'
test_expect_success 'stdin: the format is read from the first byte' '
	respol jobspec convert - <v1.json >out &&
	respol jobspec convert v1.json >expected &&
	test_cmp expected out &&
	respol jobspec convert - <v1.yaml >out &&
	respol jobspec convert v1.yaml >expected &&
	test_cmp expected out
'
test_expect_success 'convert does not validate: an invalid jobspec converts' '
	respol jobspec convert errors.yaml >out &&
	grep "\"count\":0" out
'

# round trips: Y -> J1 -> Y2 -> J2 with Y2 == Y1 (YAML of the input) and
# J2 == J1.
round_trip() {
	respol jobspec convert --json "$1" >j1 &&
	respol jobspec convert --yaml "$1" >y1 &&
	respol jobspec convert j1 >y2 &&
	respol jobspec convert --json y2 >j2 &&
	test_cmp y1 y2 &&
	test_cmp j1 j2
}

for f in "$D"/conformance/rfc14/* "$D"/conformance/rfc25/* \
	"$D"/conformance/rfc26/*; do
	name=${f#"$D"/conformance/}
	test_expect_success "round trip: $name" '
		round_trip "conformance/$name"
	'
done

test_expect_success 'round trip: tricky strings, numbers and keys' '
	round_trip tricky.yaml
'
test_expect_success 'tricky values keep their JSON types and text' '
	respol jobspec convert tricky.yaml >out &&
	test_cmp "$D"/tricky.json out
'

# flux-core reads jobspec YAML with PyYAML: the JSON must be what it reads.
# The first python3 that has it (scripts/install-deps installs Debian's).
for PY in python3 /usr/bin/python3; do
	if "$PY" -c "import yaml" 2>/dev/null; then
		test_set_prereq PYYAML
		break
	fi
done
test_expect_success PYYAML 'JSON output equals what PyYAML reads, every file' '
	cat >same.py <<-\EOF &&
	import json, sys, yaml
	for path in sys.argv[1:]:
	    with open(path) as f:
	        want = yaml.safe_load(f)
	    with open(path + ".json") as f:
	        got = json.load(f)
	    if got != want:
	        sys.exit(path + ": differs from PyYAML")
	EOF
	for f in tricky.yaml conformance/*/*.yaml; do
		respol jobspec convert --json "$f" >"$f.json" || return 1
	done &&
	"$PY" same.py tricky.yaml conformance/*/*.yaml
'

# errors and usage

test_expect_success 'a syntax error is reported with its position, exit 1' '
	printf "a: [1\n" >bad.yaml &&
	test_error 1 "respol: jobspec: bad.yaml:2:1: did not find expected '"'"','"'"' or '"'"']'"'"' (while parsing a flow sequence at line 1, column 4)" \
		respol jobspec convert bad.yaml
'
test_expect_success 'a missing file is an input error' '
	test_error 1 "respol: jobspec: nosuch.yaml: No such file or directory" \
		respol jobspec convert nosuch.yaml
'
test_expect_success 'convert takes one FILE' '
	test_expect_code 2 respol jobspec convert v1.yaml v1.json 2>err &&
	grep "^respol: jobspec: convert: unexpected argument .v1.json.$" err
'
test_expect_success 'convert needs a FILE' '
	test_expect_code 2 respol jobspec convert 2>err &&
	grep "^respol: jobspec: convert: missing FILE argument$" err
'
test_expect_success 'convert takes no --profile' '
	test_expect_code 2 respol jobspec convert --profile=v1 v1.yaml 2>err &&
	grep "^respol: jobspec: convert: unknown option .--profile.$" err
'
test_expect_success '--json takes no argument' '
	test_expect_code 2 respol jobspec convert --json=yes v1.yaml 2>err &&
	grep "^respol: jobspec: convert: option .--json. takes no argument$" err
'
test_done
