#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol jobspec create: V1 jobspec from a command line like
flux run --dry-run (resources, tasks, duration, cwd, environment, queue,
constraints, shell options, attributes), output that validates, and every
error with its message and exit code'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/jobspec-create"

# Deterministic output: no environment, a fixed working directory.
create() {
	respol jobspec create --env=-* --cwd=/home/flux "$@"
}

test_expect_success 'create --help prints usage on stdout' '
	respol jobspec create --help >out &&
	grep "^Usage: respol jobspec create \[OPTIONS\] \[--\] COMMAND" out &&
	for o in -N,\ --nodes -n,\ --ntasks -c,\ --cores-per-task \
		-g,\ --gpus-per-task --tasks-per-node -x,\ --exclusive \
		-t,\ --time-limit -q,\ --queue --requires --env \
		-o,\ --setopt -S,\ --setattr --cwd --json; do
		grep -e "  $o" out || return 1
	done &&
	respol jobspec create -h >out2 &&
	test_cmp out out2
'

# resources and tasks

test_expect_success 'one task of one core by default' '
	create hostname >out &&
	test_cmp "$D/default.yaml" out
'
test_expect_success '-n10 -c2 is RFC 25 use case 2.2' '
	create -n10 -c2 myapp >out &&
	test_cmp "$D/use-case-2.2.yaml" out &&
	create --ntasks=10 --cores-per-task=2 myapp >out &&
	test_cmp "$D/use-case-2.2.yaml" out
'
test_expect_success '-n10 -c2 -g1 is RFC 25 use case 2.3' '
	create -n10 -c2 -g1 myapp >out &&
	test_cmp "$D/use-case-2.3.yaml" out &&
	create -n10 -c2 --gpus-per-task=1 myapp >out &&
	test_cmp "$D/use-case-2.3.yaml" out
'
test_expect_success '-g0 asks for no GPU' '
	create -n10 -c2 -g0 myapp >out &&
	test_cmp "$D/use-case-2.2.yaml" out
'
test_expect_success '-N4 -n5: ceil(5/4) slots per node, total 5 tasks' '
	create -N4 -n5 hostname >out &&
	test_cmp "$D/use-case-2.1.yaml" out
'
test_expect_success '-N4 -n16 -g1: 4 slots per node, per_slot 1' '
	create --nodes=4 -n16 -g1 myapp >out &&
	test_cmp "$D/use-case-2.4.yaml" out
'
test_expect_success '-N alone: one task per node, exclusive' '
	create -N2 app >out &&
	test_cmp "$D/nodes.yaml" out &&
	create -N2 -x app >out &&
	test_cmp "$D/nodes.yaml" out
'
test_expect_success '-N with -n is not exclusive unless -x' '
	create -N2 -n4 -x app >out &&
	test_cmp "$D/nodes-exclusive.yaml" out &&
	create -N2 -n4 app >out &&
	! grep exclusive out
'
test_expect_success '--tasks-per-node=3 -N2: six tasks, three slots per node' '
	create -N2 --tasks-per-node=3 app >out &&
	test_cmp "$D/tasks-per-node.yaml" out
'
test_expect_success 'the command is everything after the options' '
	create --json -n1 -- ls -l -n2 >out &&
	grep "\"command\":\\[\"ls\",\"-l\",\"-n2\"\\]" out &&
	create --json ls -l >out &&
	grep "\"command\":\\[\"ls\",\"-l\"\\]" out
'

# attributes

test_expect_success 'every attribute option, as YAML and as JSON' '
	create -N2 -n3 -t 2h -q batch --requires="ssd host:node[1-4]" \
		--requires="^slowgpu|rank:0-3" --env=FOO=bar --env=EMPTY= \
		-o cpu-affinity=per-task -o verbose -o "pmi.args=[\"a\"]" \
		--setattr=user.tag=x -S user.conf.depth=5 --setattr=queue=debug \
		-- myapp -x "a b" >out &&
	test_cmp "$D/attributes.yaml" out &&
	create --json -N2 -n3 -t 2h -q batch --requires="ssd host:node[1-4]" \
		--requires="^slowgpu|rank:0-3" --env=FOO=bar --env=EMPTY= \
		-o cpu-affinity=per-task -o verbose -o "pmi.args=[\"a\"]" \
		--setattr=user.tag=x -S user.conf.depth=5 --setattr=queue=debug \
		-- myapp -x "a b" >out &&
	test_cmp "$D/attributes.json" out
'
test_expect_success 'the YAML and the JSON are the same document' '
	respol jobspec convert --json "$D/attributes.yaml" >out &&
	test_cmp "$D/attributes.json" out
'
test_expect_success 'every golden file is valid V1 jobspec without warnings' '
	respol jobspec validate "$D"/*.yaml "$D"/*.json >out 2>err &&
	test_must_be_empty err
'
test_expect_success 'output for many options validates' '
	create -N3 -n7 -c4 -g2 -t 1d app >out &&
	respol jobspec validate out &&
	create -n3 -c2 --requires="not (a|b) host:x rank:1" app >out &&
	respol jobspec validate out
'

test_expect_success '-t takes a Flux Standard Duration, bare = minutes' '
	for d in 30s:30.0 5m:300.0 2h:7200.0 1d:86400.0 5:300.0 0:0.0 \
		1.5:90.0 0.5s:0.5 .5m:30.0 0s:0.0 10.:600.0; do
		create --json -t ${d%%:*} app >out &&
		grep "\"duration\":${d#*:}," out || return 1
	done
'
test_expect_success 'a duration is always written, 0.0 by default' '
	create --json app >out &&
	grep "\"duration\":0.0," out
'
test_expect_success 'queue from -q, and --setattr=queue=X overrides it' '
	create --json -q batch app >out &&
	grep "\"queue\":\"batch\"" out &&
	create --json -q batch --setattr=system.queue=debug app >out &&
	grep "\"queue\":\"debug\"" out &&
	! grep batch out
'
test_expect_success 'one --requires is the constraint itself' '
	create --json --requires="ssd,big -slow" app >out &&
	grep "\"constraints\":{\"and\":\\[{\"properties\":\\[\"ssd\",\"big\"\\]},{\"not\":\\[{\"properties\":\\[\"slow\"\\]}\\]}\\]}," out
'
test_expect_success 'several --requires are and-ed, and-values spliced' '
	create --json --requires="a host:x" --requires=b app >out &&
	grep "\"constraints\":{\"and\":\\[{\"properties\":\\[\"a\"\\]},{\"hostlist\":\\[\"x\"\\]},{\"properties\":\\[\"b\"\\]}\\]}," out
'
test_expect_success 'shell options: bare key is 1, values JSON or string' '
	create --json -o a -o b=2 -o c=x -o "d={\"e\":true}" -o f.g=null \
		-o "h=[1" app >out &&
	grep "\"shell\":{\"options\":{\"a\":1,\"b\":2,\"c\":\"x\",\"d\":{\"e\":true},\"f\":{\"g\":null},\"h\":\"\\[1\"}}" out
'
test_expect_success '--setattr: system. assumed, user. kept, dotted keys nest' '
	create --json --setattr=x.y=1 --setattr=user.z --setattr=system.w=\"s\" \
		app >out &&
	grep "\"user\":{\"z\":1}" out &&
	grep "\"w\":\"s\"" out &&
	grep "\"x\":{\"y\":1}" out
'
test_expect_success '--setattr may replace what other options set' '
	create --json -t 5m --setattr=duration=60 --setattr=cwd=/tmp app >out &&
	grep "\"cwd\":\"/tmp\",\"duration\":60," out
'
test_expect_success 'cwd defaults to the current directory' '
	respol jobspec create --env=-* --json app >out &&
	grep "\"cwd\":\"$(pwd)\"" out
'

# environment

test_expect_success 'the whole environment is copied by default' '
	RESPOL_TEST_VAR="hello world" respol jobspec create --json app >out &&
	grep "\"RESPOL_TEST_VAR\":\"hello world\"" out &&
	grep "\"PATH\":" out
'
test_expect_success '--env=PATTERN copies matching variables' '
	FOO_A=1 FOO_B=2 BAR=3 create --json --env="FOO_*" app >out &&
	grep "\"environment\":{\"FOO_A\":\"1\",\"FOO_B\":\"2\"}}" out &&
	BAR=3 create --json --env=BAR --env=NOT_SET_ANYWHERE app >out &&
	grep "\"environment\":{\"BAR\":\"3\"}}" out
'
test_expect_success '--env=-PATTERN removes, rules apply in order' '
	create --json --env=A=1 --env=AB=2 --env=B=3 --env=-A* app >out &&
	grep "\"environment\":{\"B\":\"3\"}}" out &&
	create --json --env=-A --env=A=x=y app >out &&
	grep "\"environment\":{\"A\":\"x=y\"}}" out &&
	FOO_A=1 respol jobspec create --json --cwd=/ --env=-FOO_A app >out &&
	! grep FOO_A out &&
	grep "\"PATH\":" out
'

test_expect_success 'a variable that is not UTF-8 is left out with a warning' '
	BADVAR="$(printf "\377")" respol jobspec create --json --cwd=/ app \
		>out 2>err &&
	echo "respol: jobspec: create: environment: BADVAR: value is not valid UTF-8, not copied" >expected &&
	test_cmp expected err &&
	! grep BADVAR out &&
	BADVAR="$(printf "\377")" create --json --env=BADVAR app >out 2>err &&
	test_cmp expected err
'
test_expect_success 'no warning when a rule removes or replaces it' '
	BADVAR="$(printf "\377")" respol jobspec create --json --cwd=/ \
		--env=-BAD* app >out 2>err &&
	test_must_be_empty err &&
	BADVAR="$(printf "\377")" respol jobspec create --json --cwd=/ \
		--env=BADVAR=ok app >out 2>err &&
	test_must_be_empty err &&
	grep "\"BADVAR\":\"ok\"" out
'

# errors: bad usage (exit 2)

test_expect_success 'a missing command is a usage error' '
	test_error 2 "respol: jobspec: create: missing command
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create -n2 &&
	test_error 2 "respol: jobspec: create: missing command
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create -n2 --
'
test_expect_success 'unknown options and bad option syntax are usage errors' '
	test_error 2 "respol: jobspec: create: unknown option '"'"'-z'"'"'
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create -z app &&
	test_error 2 "respol: jobspec: create: unknown option '"'"'--frob'"'"'
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create --frob=1 app &&
	test_error 2 "respol: jobspec: create: option '"'"'--json'"'"' takes no argument
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create --json=1 app &&
	test_error 2 "respol: jobspec: create: option '"'"'--exclusive'"'"' takes no argument
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create --exclusive=yes app &&
	test_error 2 "respol: jobspec: create: option '"'"'-n'"'"' requires an argument
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create -n &&
	test_error 2 "respol: jobspec: create: option '"'"'--nodes'"'"' requires an argument
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create --nodes
'
test_expect_success 'options that need or exclude others are usage errors' '
	test_error 2 "respol: jobspec: create: --tasks-per-node needs --nodes
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create --tasks-per-node=2 app &&
	test_error 2 "respol: jobspec: create: --tasks-per-node and --ntasks cannot be used together
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create -N2 -n4 --tasks-per-node=2 app &&
	test_error 2 "respol: jobspec: create: --exclusive needs --nodes
Try '"'"'respol jobspec --help'"'"' for more information." \
		respol jobspec create -x app
'

# errors: bad values (exit 1)

test_expect_success 'counts must be positive integers (GPUs may be 0)' '
	test_error 1 "respol: jobspec: create: --ntasks: '"'"'0'"'"' is not a positive integer" \
		respol jobspec create -n0 app &&
	test_error 1 "respol: jobspec: create: --nodes: '"'"'x'"'"' is not a positive integer" \
		respol jobspec create -N x app &&
	test_error 1 "respol: jobspec: create: --cores-per-task: '"'"'+2'"'"' is not a positive integer" \
		respol jobspec create -c +2 app &&
	test_error 1 "respol: jobspec: create: --gpus-per-task: '"'"'-1'"'"' is not a non-negative integer" \
		respol jobspec create -g -1 app &&
	test_error 1 "respol: jobspec: create: --tasks-per-node: '"'"'2x'"'"' is not a positive integer" \
		respol jobspec create -N1 --tasks-per-node=2x app &&
	test_error 1 "respol: jobspec: create: --ntasks: '"'"'3000000000'"'"' is too large" \
		respol jobspec create -n 3000000000 app &&
	test_error 1 "respol: jobspec: create: --ntasks: '"'"'99999999999999999999'"'"' is too large" \
		respol jobspec create -n 99999999999999999999 app
'
test_expect_success 'more nodes than tasks is an error' '
	test_error 1 "respol: jobspec: create: node count (4) is greater than task count (2)" \
		respol jobspec create -N4 -n2 app
'
test_expect_success '--tasks-per-node that overflows the task count' '
	test_error 1 "respol: jobspec: create: --tasks-per-node: 65536 nodes * 65536 tasks is too many tasks" \
		respol jobspec create -N65536 --tasks-per-node=65536 app
'
test_expect_success 'a bad duration is an error' '
	for d in 5x -1 1.2.3 inf nan "" 5ms . 1e3 " 5" 0x10; do
		test_error 1 "respol: jobspec: create: --time-limit: invalid duration '"'"'$d'"'"'" \
			respol jobspec create -t "$d" app || return 1
	done
'
test_expect_success 'a bad --requires query names what and where' '
	test_error 1 "respol: jobspec: create: --requires: constraint query: \"a|(\": expected a term at offset 3" \
		respol jobspec create --requires="a|(" app &&
	test_error 1 "respol: jobspec: create: --requires: constraint query: \"\": empty query" \
		respol jobspec create --requires= app &&
	test_error 1 "respol: jobspec: create: --requires: constraint query: \"foo:x\": unknown operator '"'"'foo'"'"' at offset 0" \
		respol jobspec create --requires=foo:x app
'
test_expect_success 'bad --env rules are errors' '
	test_error 1 "respol: jobspec: create: --env: invalid rule '"'"''"'"'" \
		respol jobspec create --env= app &&
	test_error 1 "respol: jobspec: create: --env: invalid rule '"'"'-'"'"'" \
		respol jobspec create --env=- app &&
	test_error 1 "respol: jobspec: create: --env: invalid rule '"'"'=x'"'"'" \
		respol jobspec create --env==x app &&
	test_error 1 "respol: jobspec: create: --env: reading rules from a file ('"'"'^f'"'"') is not supported" \
		respol jobspec create --env=^f app
'
test_expect_success 'bad -o and --setattr keys are errors' '
	test_error 1 "respol: jobspec: create: --setopt: invalid key '"'"''"'"'" \
		respol jobspec create -o "" app &&
	test_error 1 "respol: jobspec: create: --setopt: invalid key '"'"'.a'"'"'" \
		respol jobspec create -o .a app &&
	test_error 1 "respol: jobspec: create: --setopt: invalid key '"'"'a.'"'"'" \
		respol jobspec create -o a.=1 app &&
	test_error 1 "respol: jobspec: create: --setopt: '"'"'a.b'"'"' is not an object" \
		respol jobspec create -o a.b=1 -o a.b.c=2 app &&
	test_error 1 "respol: jobspec: create: --setattr: invalid key '"'"'a..b'"'"'" \
		respol jobspec create --setattr=a..b=1 app &&
	test_error 1 "respol: jobspec: create: --setattr: invalid key '"'"'user.'"'"'" \
		respol jobspec create --setattr=user. app &&
	test_error 1 "respol: jobspec: create: --setattr: '"'"'system.duration'"'"' is not an object" \
		respol jobspec create --setattr=duration.x=1 app
'
test_expect_success 'known system attributes keep their types' '
	test_error 1 "respol: jobspec: create: --setattr: system.duration must be a number >= 0" \
		respol jobspec create --setattr=duration=soon app &&
	test_error 1 "respol: jobspec: create: --setattr: system.duration must be a number >= 0" \
		respol jobspec create --setattr=duration=-1 app &&
	test_error 1 "respol: jobspec: create: --setattr: system.cwd must be a string" \
		respol jobspec create --setattr=cwd=5 app &&
	test_error 1 "respol: jobspec: create: --setattr: system.queue must be a string" \
		respol jobspec create --setattr=queue=[] app &&
	test_error 1 "respol: jobspec: create: --setattr: system.environment must be an object" \
		respol jobspec create --setattr=environment=1 app &&
	test_error 1 "respol: jobspec: create: system.constraints: constraint: unknown operator '"'"'foo'"'"'" \
		respol jobspec create --setattr="constraints={\"foo\": []}" app
'
test_expect_success 'create refuses to print jobspec that validate would reject' '
	cat >expected <<-\EOF &&
	respol: jobspec: create: jobspec: attributes.system.cwd: must be an absolute path
	respol: jobspec: create: the options make an invalid V1 jobspec
	EOF
	test_expect_code 1 respol jobspec create --cwd=relative app >out 2>err &&
	test_must_be_empty out &&
	test_cmp expected err &&
	cat >expected <<-\EOF &&
	respol: jobspec: create: jobspec: attributes.system.job.name: must be a string
	respol: jobspec: create: the options make an invalid V1 jobspec
	EOF
	test_expect_code 1 respol jobspec create -S job.name=5 app >out 2>err &&
	test_cmp expected err &&
	test_expect_code 1 respol jobspec create -S preemptible-after=-1 app 2>err &&
	grep "preemptible-after" err
'
test_expect_success 'arguments that are not UTF-8 are errors' '
	bad="$(printf "\377")" &&
	test_error 1 "respol: jobspec: create: command argument 1: not valid UTF-8" \
		respol jobspec create app "$bad" &&
	test_error 1 "respol: jobspec: create: --cwd: not valid UTF-8" \
		respol jobspec create --cwd="/$bad" app &&
	test_error 1 "respol: jobspec: create: --queue: not valid UTF-8" \
		respol jobspec create -q "$bad" app &&
	test_error 1 "respol: jobspec: create: --setopt: not valid UTF-8" \
		respol jobspec create -o "a=$bad" app &&
	test_error 1 "respol: jobspec: create: --setattr: invalid key '"'"'user.$bad'"'"'" \
		respol jobspec create --setattr="user.$bad=1" app &&
	test_error 1 "respol: jobspec: create: --env: '"'"'A=$bad'"'"': not valid UTF-8" \
		respol jobspec create --env="A=$bad" app
'
test_done
