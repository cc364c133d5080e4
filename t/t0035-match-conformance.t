#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='RFC 14 use cases matched to resource graphs (respol match)

Every RFC 14 example and use case (t/data/jobspec/conformance/rfc14) is
matched with "respol match allocate", which reads canonical jobspec by
default, on a generated graph or on a graph of t/data/match-conformance
made so that the intent
of the RFC text is visible in the result: nodes that lack what the
request asks sit before nodes that have it, so a first fit that ignored
the request would pick them.  Each test quotes the RFC sentence it checks,
compares the whole R with a golden file, and shows the allocation in the
short form of "respol R decode --short" so the intent is readable here.
Use cases the matcher refuses pin the exact refusal.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

JS="$RESPOL_DATA/jobspec/conformance/rfc14"
STORAGE="$RESPOL_DATA/jobspec/conformance/storage"
GRAPHS="$RESPOL_DATA/match-conformance"

# match_in DIR NAME RESOURCE-OPTION: allocate DIR/NAME.yaml, compare with
# its golden file, and leave the short form in NAME.short.
match_in() {
	_dir=$1
	_name=$2
	shift 2
	respol match allocate --now=1000 "$@" \
		"$_dir/$_name.yaml" >"$_name.out" &&
	test_cmp "$GRAPHS/$_name.expected" "$_name.out" &&
	respol R decode --short <"$_name.out" >"$_name.short"
}

# match NAME RESOURCE-OPTION: the same for RFC 14 use case NAME.
match() {
	match_in "$JS" "$@"
}

# short NAME EXPECTED: the short form of NAME's allocation.
short() {
	echo "$2" >"$1.short.expected" &&
	test_cmp "$1.short.expected" "$1.short"
}

# RFC 14 "Example Jobspec": "The example below declares a request for 4
# "nodes" each of which with 1 task slot consisting of 2 cores each, for a
# total of 4 task slots."  Nodes are shared (outside the slot): only the
# slot's 2 cores of each node are allocated.
test_expect_success 'example1: 4 nodes with 1 slot of 2 cores each' '
	match example1 --generate=nodes=6,sockets=2,cores=2 &&
	short example1 "rank[0-3]/core[0-1]"
'

# RFC 14: "Another example, running one task on each of four nodes."
# A node inside a slot is exclusive: each is taken whole.
test_expect_success 'example2: one slot per node on four nodes, whole' '
	match example2 --generate=nodes=6,sockets=2,cores=2 &&
	short example2 "rank[0-3]/core[0-3]"
'

# Use Case 1.1: "Request 4 nodes" (salloc -N4).
test_expect_success 'use case 1.1: request 4 nodes' '
	match use_case_1.1 --generate=nodes=6,cores=2,gpus=1 &&
	short use_case_1.1 "rank[0-3]/core[0-1],gpu0"
'
test_expect_success 'use case 1.1: 3 nodes can never hold it (ENODEV)' '
	test_error 1 "respol: match: never satisfiable: needs 4 slots of 1 node each, 3 fit" \
		respol match allocate --generate=nodes=3 \
		"$JS/use_case_1.1.yaml"
'

# Use Case 1.2: "Request between 3 and 30 nodes" (salloc -N3-30).  A
# range takes the largest acceptable value that fits (respol/match.h):
# all 8 nodes of an 8-node cluster, the minimum 3 on a 3-node one.
test_expect_success 'use case 1.2: between 3 and 30 nodes takes all 8' '
	match use_case_1.2 --generate=nodes=8 &&
	short use_case_1.2 "rank[0-7]/core0"
'
test_expect_success 'use case 1.2: 3 nodes are enough' '
	respol match allocate --now=1000 \
		--generate=nodes=3 "$JS/use_case_1.2.yaml" >out &&
	respol R decode --short <out >short &&
	echo "rank[0-2]/core0" >expected &&
	test_cmp expected short
'
test_expect_success 'use case 1.2: 2 nodes are not (ENODEV)' '
	test_error 1 "respol: match: never satisfiable: needs at least 3 slots of 1 node each, 2 fit" \
		respol match allocate --generate=nodes=2 \
		"$JS/use_case_1.2.yaml"
'

# Use Case 1.3: "Request 4 nodes with at least 2 sockets each, and 4 cores
# per socket".  sockets.json: node0 has one socket of 8 cores, node2 two
# sockets of 3 cores: neither qualifies.  node3 has sockets of 4, 4 and 3
# cores: its two 4-core sockets qualify.  node5 has sockets of 5 cores.
# The node is not exclusive, so R holds the qualifying sockets' cores.
test_expect_success 'use case 1.3: 4 nodes with >= 2 sockets of >= 4 cores' '
	match use_case_1.3 --graph="$GRAPHS/sockets.json" &&
	short use_case_1.3 "rank[1,3-4]/core[0-7] rank5/core[0-9]"
'

# Use Case 1.4: "Request an **exclusive** allocation of 4 nodes that have
# at least two sockets and 4 cores per socket".  The same nodes as 1.3,
# each taken whole: node3 with its 3-core socket too.
test_expect_success 'use case 1.4: the same 4 nodes, exclusive and whole' '
	match use_case_1.4 --graph="$GRAPHS/sockets.json" &&
	short use_case_1.4 "rank[1,4]/core[0-7] rank3/core[0-10] rank5/core[0-9]"
'

# Use Case 1.5: "ask for 1 core on 2 nodes on the same cluster with 4096 GB
# of memory and Infiniband 10G + 1 cpu on 2 nodes on the same switch with
# bicore processors".  oar.json: federation0 > cluster0 > node0-2 and
# federation0 > switch0 > node3-5; only node1 and node2 have an ib10g,
# node3 has one core.  Nodes sit inside slots, so each is taken whole.
test_expect_success 'use case 1.5: ib nodes in the cluster, bicore on the switch' '
	match use_case_1.5 --graph="$GRAPHS/oar.json" &&
	short use_case_1.5 "rank[1-2,4-5]/core[0-1]"
'
# A graph without memory (nor ib10g) can never hold it.
test_expect_success 'use case 1.5: a type the graph lacks (ENODEV)' '
	test_error 1 "respol: match: never satisfiable: no resource of type '"'"'memory'"'"'" \
		respol match allocate --generate=nodes=4 \
		"$JS/use_case_1.5.yaml"
'

# Use Case 1.6: "Ask for 30 cores on 2 clusters (total = 60 cores), with 1
# flux broker launched per node".  clusters.json: federation0 > cluster0,
# cluster1, each with two nodes of 32 cores.  The node count is
# {min: 1}: "N+" takes as many as are free (respol/match.h), so every
# node of both clusters gets 30 cores, not the RFC's total of 60.
test_expect_success 'use case 1.6: 30 cores per node on 2 clusters' '
	match use_case_1.6 --graph="$GRAPHS/clusters.json" &&
	short use_case_1.6 "rank[0-3]/core[0-29]"
'
# A top-level request for the type of the graph's root is matched by the
# root itself: on a graph whose root is the one cluster, "count: 1" gets
# it, and the use case's "count: 2" can never be met.
test_expect_success 'use case 1.6: one cluster on a graph rooted at one cluster' '
	sed "s/count: 2\$/count: 1/" "$JS/use_case_1.6.yaml" >one_cluster.yaml &&
	respol match allocate --now=1000 \
		--generate=nodes=4,cores=32 one_cluster.yaml >one_cluster.out &&
	respol R decode --short <one_cluster.out >one_cluster.short &&
	short one_cluster "rank[0-3]/core[0-29]"
'
test_expect_success 'use case 1.6: a graph rooted at one cluster has 1 (ENODEV)' '
	test_error 1 "respol: match: never satisfiable: needs 2 clusters with 1 slot of at least 1 node with 30 cores each, the resource set has 1" \
		respol match allocate --generate=nodes=4,cores=32 \
		"$JS/use_case_1.6.yaml"
'

# Use Case 1.7: "Request 3 cores across 3 switches, with 1 flux broker
# launched per node".  switches.json: four switches of two 2-core nodes.
# As in 1.6 the node count {min: 1} takes every node below each switch.
test_expect_success 'use case 1.7: cores across 3 switches' '
	match use_case_1.7 --graph="$GRAPHS/switches.json" &&
	short use_case_1.7 "rank[0-5]/core0"
'

# Use Case 1.8: "Similar to 1.2, request between 3 and 30 nodes, but must
# be a perfect square" (count "4,9,16,25").  10 nodes: 9 is the largest
# acceptable count that fits.
test_expect_success 'use case 1.8: a perfect square of nodes (9 of 10)' '
	match use_case_1.8 --generate=nodes=10 &&
	short use_case_1.8 "rank[0-8]/core0"
'
test_expect_success 'use case 1.8: 3 nodes can never hold 4 (ENODEV)' '
	test_error 1 "respol: match: never satisfiable: needs at least 4 slots of 1 node each, 3 fit" \
		respol match allocate --generate=nodes=3 \
		"$JS/use_case_1.8.yaml"
'

# Use Case 2.1: "Run hostname 20 times on 4 nodes, 5 per node".  Tasks do
# not change the resources: 4 whole nodes.
test_expect_success 'use case 2.1: 4 nodes (5 tasks per node)' '
	match use_case_2.1 --generate=nodes=5,cores=4 &&
	short use_case_2.1 "rank[0-3]/core[0-3]"
'

# Use Case 2.2: "Run 5 copies of hostname across 4 nodes, default
# distribution".
test_expect_success 'use case 2.2: 4 nodes (5 tasks in total)' '
	match use_case_2.2 --generate=nodes=5,cores=4 &&
	short use_case_2.2 "rank[0-3]/core[0-3]"
'

# Use Case 2.3: "Run 10 copies of myapp, require 2 cores per copy, for a
# total of 20 cores".  Nodes of 8 cores: 4 slots on each of the first two,
# 2 on the third.
test_expect_success 'use case 2.3: 10 slots of 2 cores, 20 cores' '
	match use_case_2.3 --generate=nodes=4,sockets=2,cores=4 &&
	short use_case_2.3 "rank[0-1]/core[0-7] rank2/core[0-3]"
'

# Use Case 2.4: "11 tasks, one node, the first 10 tasks each using one
# core and 4G of RAM for read-db, the last task using 6 cores and 24G of
# RAM for db".  One node of 2 x 8 cores and 2 x 32 GB: 16 cores, and
# 64 GB of memory in the scheduling subgraph of the golden R.
test_expect_success 'use case 2.4: two slot types on one node' '
	match use_case_2.4 --generate=nodes=2,sockets=2,cores=8,memory=64GB &&
	short use_case_2.4 "rank0/core[0-15]"
'
test_expect_success 'use case 2.4: 15 cores can never hold 16 (ENODEV)' '
	test_error 1 "respol: match: never satisfiable: needs 1 node with 10 slots of 1 core and 4 GB of memory and 1 slot of 6 cores and 24 GB of memory, the resource set has 0" \
		respol match satisfiability \
		--generate=nodes=2,sockets=1,cores=15,memory=64GB \
		"$JS/use_case_2.4.yaml"
'

# Use Case 2.5: "Run 10 copies of app across 10 cores with at least 2GB
# per core".  The memory count {min: 2} is a range, and a range takes the
# largest value that fits (respol/match.h): each slot takes all the free
# memory of its node (8 GB), so 10 slots need 10 nodes.
test_expect_success 'use case 2.5: 10 slots of 1 core and >= 2 GB' '
	match use_case_2.5 --generate=nodes=10,sockets=2,cores=2,memory=8GB &&
	short use_case_2.5 "rank[0-9]/core0"
'
# For the same reason 5 nodes of 2 cores and 8 GB (10 cores, 40 GB: what
# the RFC text asks fits) can never hold it.
test_expect_success 'use case 2.5: a range of memory takes all of a node' '
	test_error 1 "respol: match: never satisfiable: needs 10 slots of at least 2 GB of memory and 1 core each, 5 fit" \
		respol match allocate \
		--generate=nodes=5,sockets=2,cores=2,memory=8GB \
		"$JS/use_case_2.5.yaml"
'

# Use Case 2.6: "Run 10 copies of app across 2 nodes with at least 4GB per
# node".  Nodes with 2 GB never qualify.
test_expect_success 'use case 2.6: 2 nodes with >= 4 GB' '
	match use_case_2.6 --generate=nodes=3,cores=2,memory=8GB &&
	short use_case_2.6 "rank[0-1]/core[0-1]"
'
test_expect_success 'use case 2.6: nodes of 2 GB never qualify (ENODEV)' '
	test_error 1 "respol: match: never satisfiable: needs 2 slots of 1 node with at least 4 GB of memory each, 0 fit" \
		respol match allocate \
		--generate=nodes=3,cores=2,memory=2GB "$JS/use_case_2.6.yaml"
'

# Use Case 2.7: "Run two different tasks, one with the global environment
# and one with an overridden environment": both in the one slot's node.
test_expect_success 'use case 2.7: one node for two tasks' '
	match use_case_2.7 --generate=nodes=2,cores=2 &&
	short use_case_2.7 "rank0/core[0-1]"
'

# Use Case 2.8: "Depend on two previously submitted jobs": dependencies do
# not change matching.
test_expect_success 'use case 2.8: dependencies do not change the match' '
	match use_case_2.8 --generate=nodes=2,cores=2 &&
	short use_case_2.8 "rank0/core[0-1]"
'

# Use Case 2.9: "Require that allocated resources have the amd-mi50
# property".  mi50.R.json: ranks 0-3, the property on ranks 2-3.
test_expect_success 'use case 2.9: only a node with the property' '
	match use_case_2.9 -R "$GRAPHS/mi50.R.json" &&
	short use_case_2.9 "rank2/core[0-3]"
'
test_expect_success 'use case 2.9: no node has the property (ENODEV)' '
	test_error 1 "respol: match: never satisfiable: needs 1 slot of 1 node, 0 fit matching the constraints" \
		respol match allocate --generate=nodes=2 \
		"$JS/use_case_2.9.yaml"
'

# Storage (flux-core's storage use cases, not in RFC 14): "2 slots, each an
# ssd plus an exclusive node holding a slot of 5 cores and 7 GPUs"; a slot
# inside a slot.  storage.json: rack0 > ssd0 (1 unit), node0 (4 cores, 7
# GPUs: too few cores), node1 (8 cores, 8 GPUs); rack1 > ssd1 (4 units),
# node2 (5 cores, 6 GPUs: too few GPUs), node3 (5 cores, 7 GPUs), node4
# (6 cores, 8 GPUs).  Each outer slot gets 1 unit of ssd and a node taken
# whole (RFC 14: an exclusive vertex, with everything in it); R_lite holds
# the nodes' cores and GPUs, the scheduling key the ssd pools' units.  The
# tasks ("per_slot: 1" on the inner slot) count against the inner slot:
# 2 tasks, each within one node.
test_expect_success 'storage: 2 slots of 1 ssd and a whole node each' '
	match_in "$STORAGE" storage_slots --graph="$GRAPHS/storage.json" &&
	short storage_slots "rank1/core[0-7],gpu[0-7] rank3/core[0-4],gpu[0-6]" &&
	grep -F "{\"id\":\"2\",\"metadata\":{\"basename\":\"ssd\",\"exclusive\":true,\"id\":0,\"name\":\"ssd0\",\"paths\":{\"containment\":\"/cluster0/rack0/ssd0\"},\"rank\":-1,\"size\":1," storage_slots.out &&
	grep -F "\"name\":\"ssd1\",\"paths\":{\"containment\":\"/cluster0/rack1/ssd1\"},\"rank\":-1,\"size\":1," storage_slots.out &&
	respol jobspec summary "$STORAGE/storage_slots.yaml" --profile=canonical >sum &&
	grep " ntasks=2 " sum
'
# The same below one rack: rack0 has 1 unit of ssd and one node that
# qualifies, so both slots come from rack1.
test_expect_success 'storage: the ssd and the nodes from the same rack' '
	match_in "$STORAGE" storage_rack --graph="$GRAPHS/storage.json" &&
	short storage_rack "rank3/core[0-4],gpu[0-6] rank4/core[0-5],gpu[0-7]" &&
	grep -F "\"name\":\"ssd1\",\"paths\":{\"containment\":\"/cluster0/rack1/ssd1\"},\"rank\":-1,\"size\":2," storage_rack.out
'
test_expect_success 'storage: 4 slots can never fit 3 qualifying nodes (ENODEV)' '
	sed "s/count: 2\$/count: 4/" "$STORAGE/storage_slots.yaml" >four.yaml &&
	test_error 1 "respol: match: never satisfiable: needs 4 slots of 1 ssd and 1 node with 1 slot of 5 cores and 7 GPUs each, 3 fit" \
		respol match allocate --graph="$GRAPHS/storage.json" four.yaml
'
test_expect_success 'storage: a cluster without ssd (ENODEV)' '
	test_error 1 "respol: match: never satisfiable: no resource of type '"'"'ssd'"'"'" \
		respol match allocate --generate=nodes=4,cores=8,gpus=8 \
		"$STORAGE/storage_slots.yaml"
'
# Fluxion graphs give ssd pools a unit (GiB); the request has none, and a
# unit on one side only never fits (doc/conformance.md).
test_expect_success 'storage: ssd pools in GiB and a request without unit (ENODEV)' '
	sed "s/\"type\": \"ssd\"/\"type\": \"ssd\", \"unit\": \"GiB\"/" \
		"$GRAPHS/storage.json" >gib.json &&
	test_error 1 "respol: match: never satisfiable: needs ssd in unit '"'"'(none)'"'"', which does not convert to the resource set'"'"'s '"'"'GiB'"'"'" \
		respol match allocate --graph=gib.json "$STORAGE/storage_slots.yaml"
'

test_done
