#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol match --explain and respol query --explain: why an
allocation is what it is (candidates considered, taken and refused, per
request and per reason; what the policy pruned; its top scores), and the
policy named in the reason of a match it made fail'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

FIX="$RESPOL_FIXTURE_PLUGINDIR"
SQ="'"

test_expect_success 'setup: jobspecs and a policy that keeps user daemon off rank 0' '
	respol jobspec create --env="-*" -N1 -n1 -c1 -t 1h -- app >c1.yaml &&
	respol jobspec create --env="-*" -N1 -n1 -c1 --exclusive -t 1h -- app >x1.yaml &&
	respol jobspec create --env="-*" -N2 -n2 -c1 -t 1h -- app >n2.yaml &&
	respol jobspec create --env="-*" -N1 -n1 -c1 -t 1h --requires=host:node3 -- app >h3.yaml &&
	echo "match: [{plugin: $FIX/who-policy.so}]" >who.yaml
'
test_expect_success 'allocated: every request with what was considered and taken' '
	respol match allocate --explain --generate=nodes=4,cores=2 n2.yaml \
		>/dev/null 2>err &&
	cat >expected <<-\EOF &&
	respol: match: explain: policy first: allocated
	respol: match: explain: node (count 2): 4 in the graph, considered 2, taken 2
	respol: match: explain: node/slot (count 1): considered 2, taken 2
	respol: match: explain: node/slot/core (count 1): 8 in the graph, considered 2, taken 2
	EOF
	test_cmp expected err
'
test_expect_success 'a policy that pruned is named in the reason, with --explain or not' '
	test_expect_code 1 respol match allocate --config=who.yaml --user=daemon \
		--generate=nodes=2,cores=2 n2.yaml 2>err &&
	grep -v "who-policy: warning: match for" err >reason &&
	echo "respol: match: never satisfiable: needs 2 nodes with 1 slot of 1 core each, the resource set has 1; policy ${SQ}who-policy${SQ} pruned 1 of 2 nodes" >expected &&
	test_cmp expected reason &&
	test_expect_code 1 respol match allocate --explain --config=who.yaml \
		--user=daemon --generate=nodes=2,cores=2 n2.yaml 2>err &&
	grep "explain:" err >out &&
	cat >expected <<-EOF &&
	respol: match: explain: policy who-policy: never: needs 2 nodes with 1 slot of 1 core each, the resource set has 1; policy ${SQ}who-policy${SQ} pruned 1 of 2 nodes
	respol: match: explain: node (count 2): 2 in the graph, considered 1, taken 0; 1 pruned by the policy
	respol: match: explain: node/slot (count 1): considered 1, taken 1
	respol: match: explain: node/slot/core (count 1): 4 in the graph, considered 1, taken 1
	respol: match: explain: pruned by the policy: 1 node
	EOF
	test_cmp expected out
'
test_expect_success 'a policy that pruned nothing is not named' '
	test_expect_code 1 respol match allocate --config=who.yaml --user=root \
		--generate=nodes=1,cores=2 n2.yaml 2>err &&
	grep -v "who-policy: warning: match for" err >reason &&
	echo "respol: match: never satisfiable: needs 2 nodes with 1 slot of 1 core each, the resource set has 1" >expected &&
	test_cmp expected reason
'
test_expect_success 'query --explain: full nodes skipped whole, constraint refusals, the live state' '
	cat >script <<-\EOF &&
	match allocate c1.yaml
	match allocate x1.yaml
	match allocate h3.yaml
	EOF
	respol query -F short --explain --generate=nodes=4,cores=4 -f script \
		>out 2>err &&
	cat >expected <<-\EOF &&
	1: node0: core[0]
	2: node1: core[0-3]
	3: node3: core[0]
	EOF
	test_cmp expected out &&
	cat >expected <<-\EOF &&
	respol: query: explain: policy first: allocated
	respol: query: explain: node (count 1): 4 in the graph, considered 1, taken 1
	respol: query: explain: node/slot (count 1): considered 1, taken 1
	respol: query: explain: node/slot/core (count 1): 16 in the graph, considered 1, taken 1
	respol: query: explain: policy first: allocated
	respol: query: explain: node (count 1): 4 in the graph, considered 1, taken 1
	respol: query: explain: node/slot (count 1): considered 1, taken 1
	respol: query: explain: node/slot/core (count 1): 16 in the graph, considered 1, taken 1
	respol: query: explain: policy first: allocated
	respol: query: explain: node (count 1): 4 in the graph, considered 3, taken 1; 2 refused by the constraints
	respol: query: explain: node/slot (count 1): considered 1, taken 1
	respol: query: explain: node/slot/core (count 1): 16 in the graph, considered 1, taken 1
	EOF
	test_cmp expected err
'
test_expect_success 'query --explain: not now, and never, say which state decided' '
	cat >script <<-\EOF &&
	match allocate x1.yaml
	match allocate x1.yaml
	match allocate n2.yaml
	EOF
	test_expect_code 1 respol query -F short --explain \
		--generate=nodes=1,cores=1 -f script >out 2>err &&
	grep "explain: policy" err >outcomes &&
	cat >expected <<-\EOF &&
	respol: query: explain: policy first: allocated
	respol: query: explain: policy first: not now: needs 1 node with 1 slot of 1 core, 0 are free
	respol: query: explain: policy first: never: needs 2 nodes with 1 slot of 1 core each, the resource set has 1
	EOF
	test_cmp expected outcomes
'
test_expect_success 'a scoring policy: the top scores of each request' '
	respol match allocate --explain --policy=spread --generate=nodes=3,cores=2 \
		c1.yaml >/dev/null 2>err &&
	grep "explain: node (count 1)" err &&
	grep "^respol: match: explain:   top scores: node0 [0-9-]*, node1 [0-9-]*, node2 [0-9-]*$" err
'
test_expect_success 'satisfiability --explain' '
	respol match satisfiability --explain --generate=nodes=1,cores=2 c1.yaml \
		>out 2>err &&
	echo satisfiable >expected &&
	test_cmp expected out &&
	head -1 err >first &&
	echo "respol: match: explain: policy first: satisfiable" >expected &&
	test_cmp expected first
'
test_expect_success 'without --explain nothing is explained' '
	respol match allocate --generate=nodes=1,cores=2 c1.yaml >/dev/null 2>err &&
	test_must_be_empty err
'

test_done
