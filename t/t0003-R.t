#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol R: encode, decode, append, union, diff, intersect,
rerank, remap, verify and set-property RFC 20 resource sets, read R written
by flux-core, and refuse bad input and bad usage'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/R"

# --help and dispatch

test_expect_success 'R --help lists every subcommand on stdout' '
	respol R --help >out &&
	grep "^Usage: respol R SUBCOMMAND" out &&
	for sub in encode decode append union diff intersect rerank remap \
		verify set-property filter; do
		grep "^  $sub " out || return 1
	done
'
test_expect_success 'R -h is --help' '
	respol R --help >expected &&
	respol R -h >out &&
	test_cmp expected out
'
test_expect_success 'every subcommand has --help and -h, exit 0' '
	for sub in encode decode append union diff intersect rerank remap \
		verify set-property; do
		respol R $sub --help >out &&
		grep "^Usage: respol R $sub" out &&
		respol R $sub -h >out2 &&
		test_cmp out out2 || return 1
	done
'
test_expect_success 'encode and decode --help describe their options' '
	respol R encode --help >out &&
	for o in -r,\ --ranks -c,\ --cores -g,\ --gpus -H,\ --hosts \
		-p,\ --property -l,\ --local -f,\ --xml; do
		grep -e "  $o" out || return 1
	done &&
	respol R decode --help >out &&
	for o in -s,\ --short -n,\ --nodelist -r,\ --ranks -c,\ --count \
		-i,\ --include -x,\ --exclude -p,\ --properties; do
		grep -e "  $o" out || return 1
	done
'
test_expect_success '--help wins over a missing argument' '
	respol R rerank --help >out &&
	grep "^Usage: respol R rerank HOSTLIST$" out
'
test_expect_success 'R filter is dispatched to its own command' '
	respol R filter --help >out &&
	grep "^Usage: respol R filter" out
'
test_expect_success 'R with no subcommand is a usage error' '
	test_error 2 "respol: R: missing subcommand
Try '"'"'respol R --help'"'"' for more information." respol R
'
test_expect_success 'R with an unknown subcommand is a usage error' '
	test_error 2 "respol: R: unknown subcommand '"'"'frob'"'"'
Try '"'"'respol R --help'"'"' for more information." respol R frob
'
test_expect_success 'R with an unknown option is a usage error' '
	test_error 2 "respol: R: unknown option '"'"'--frob'"'"'
Try '"'"'respol R --help'"'"' for more information." respol R --frob
'

# Errors of a subcommand end with the same hint.
hint="Try 'respol R --help' for more information."

# encode

test_expect_success 'encode: one rank, core 0, host name given' '
	echo "{\"execution\":{\"R_lite\":[{\"children\":{\"core\":\"0\"},\"rank\":\"0\"}],\"expiration\":0.0,\"nodelist\":[\"foo\"],\"starttime\":0.0},\"version\":1}" >expected &&
	respol R encode -H foo >out &&
	test_cmp expected out
'
test_expect_success 'encode: the host name defaults to this machine' '
	hostname >expected &&
	respol R encode | respol R decode --nodelist >out &&
	test_cmp expected out &&
	echo 0-2 >expected &&
	respol R encode -r 0-2 | respol R decode -i "$(hostname)" -r >out &&
	test_cmp expected out
'
test_expect_success 'encode: ranks, cores, gpus, hosts (RFC 20 example)' '
	respol R encode -r 19-22 -c 0-47 -g 0-7 -H "node[186-189]" >out &&
	test_cmp "$D/encode-example.expected" out
'
test_expect_success 'encode: long options' '
	respol R encode --ranks=19-22 --cores=0-47 --gpus=0-7 \
		--hosts="node[186-189]" >out &&
	test_cmp "$D/encode-example.expected" out
'
test_expect_success 'encode: properties, all ranks by default' '
	respol R encode -r 0-3 -c 0-3 -H "fluke[0-3]" -p all -p pbatch:0-1 \
		--property=debug:2-3 -p "+queue@x:3" >out &&
	test_cmp "$D/encode-properties.expected" out
'
test_expect_success 'encode: NAME:RANKS splits at the last colon' '
	respol R encode -H foo -p a:b:0 >out &&
	grep "\"properties\":{\"a:b\":\"0\"}" out
'
test_expect_success 'encode output decodes to the same short form' '
	respol R encode -r 0-3 -c 0-47 -g 0-7 -H "node[186-189]" |
		respol R decode --short >out &&
	echo "rank[0-3]/core[0-47],gpu[0-7]" >expected &&
	test_cmp expected out
'
test_expect_success 'encode: a bad --ranks idset' '
	test_error 1 "respol: R: encode: --ranks: idset: \"3,2\": ids not ascending at offset 2" \
		respol R encode -r 3,2
'
test_expect_success 'encode: a bad --cores idset' '
	test_error 1 "respol: R: encode: --cores: idset: \"x\": unexpected character '"'"'x'"'"' at offset 0" \
		respol R encode -H foo -c x
'
test_expect_success 'encode: a bad --gpus idset' '
	test_error 1 "respol: R: encode: --gpus: idset: \"1-\": missing id after '"'"'-'"'"' at offset 2" \
		respol R encode -H foo -g 1-
'
test_expect_success 'encode: a bad --hosts hostlist' '
	test_error 1 "respol: R: encode: --hosts: hostlist: \"foo[1-\": missing '"'"']'"'"' at offset 6" \
		respol R encode -H "foo[1-"
'
test_expect_success 'encode: --hosts must name one host per rank' '
	test_error 1 "respol: R: encode: --hosts: 3 hosts for 4 ranks" \
		respol R encode -r 0-3 -H "n[0-2]"
'
test_expect_success 'encode: --ranks must not be empty' '
	test_error 1 "respol: R: encode: --ranks: no rank" \
		respol R encode -r "" -H foo
'
test_expect_success 'encode: at most 1048576 ranks, checked before any work' '
	test_error 1 "respol: R: encode: --ranks: 4294967295 ranks, more than 1048576" \
		respol R encode -r 0-4294967294
'
test_expect_success 'encode: --property with bad ranks' '
	test_error 1 "respol: R: encode: --property: '"'"'a:x'"'"': idset: \"x\": unexpected character '"'"'x'"'"' at offset 0" \
		respol R encode -H foo -p a:x
'
test_expect_success 'encode: --property with no ranks after the colon' '
	test_error 1 "respol: R: encode: --property: '"'"'a:'"'"': no ranks after '"'"':'"'"'" \
		respol R encode -H foo -p a:
'
test_expect_success 'encode: --property on a rank that is not a target' '
	test_error 1 "respol: R: encode: --property: '"'"'a:5'"'"': rank 5 is not an execution target" \
		respol R encode -H foo -p a:5
'
test_expect_success 'encode: --property with an illegal name' '
	test_error 1 "respol: R: encode: --property: '"'"'a!b'"'"': property name \"a!b\": illegal character '"'"'!'"'"' at offset 1" \
		respol R encode -H foo -p "a!b"
'
test_expect_success 'encode: --local and --xml exclude each other' '
	test_error 2 "respol: R: encode: --local and --xml exclude each other
$hint" respol R encode --local --xml=x.xml
'
test_expect_success 'encode: --cores and --gpus exclude --local and --xml' '
	test_error 2 "respol: R: encode: --cores and --gpus exclude --local and --xml
$hint" respol R encode --local -c 0 &&
	test_error 2 "respol: R: encode: --cores and --gpus exclude --local and --xml
$hint" respol R encode -f x.xml -g 0
'
test_expect_success 'encode: unknown options' '
	test_error 2 "respol: R: encode: unknown option '"'"'-z'"'"'
$hint" respol R encode -z &&
	test_error 2 "respol: R: encode: unknown option '"'"'--frob'"'"'
$hint" respol R encode --frob=1 &&
	test_error 2 "respol: R: encode: unknown option '"'"'-z'"'"'
$hint" respol R encode --local -zl
'
test_expect_success 'encode: an option without its argument' '
	test_error 2 "respol: R: encode: option '"'"'--ranks'"'"' requires an argument
$hint" respol R encode --ranks &&
	test_error 2 "respol: R: encode: option '"'"'-H'"'"' requires an argument
$hint" respol R encode -H
'
test_expect_success 'encode: a flag given an argument' '
	test_error 2 "respol: R: encode: option '"'"'--local'"'"' takes no argument
$hint" respol R encode --local=yes
'
test_expect_success 'encode: an operand is a usage error' '
	test_error 2 "respol: R: encode: unexpected argument '"'"'0-3'"'"'
$hint" respol R encode 0-3
'

# decode

test_expect_success 'decode: RFC 20 example, normalised (nslots kept)' '
	respol R decode <"$D/example1.json" >out &&
	test_cmp "$D/example1.expected" out
'
test_expect_success 'decode: R written by flux-core' '
	respol R decode <"$D/flux-core.json" >out &&
	test_cmp "$D/flux-core.expected" out
'
test_expect_success 'decode: scheduling is kept; same children are grouped' '
	respol R decode <"$D/scheduling.json" >out &&
	test_cmp "$D/scheduling.expected" out
'
test_expect_success 'decode: output decodes to itself' '
	respol R decode <"$D/flux-core.expected" >out &&
	test_cmp "$D/flux-core.expected" out
'
test_expect_success 'decode: concatenated R give their union' '
	respol R encode -r 0-1 -c 0-3 -H "n[0-1]" >A &&
	respol R encode -r 1-2 -c 2-5 -H "n[1-2]" >B &&
	cat A B | respol R decode >out &&
	test_cmp "$D/union.expected" out &&
	printf "%s%s" "$(cat A)" "$(cat B)" | respol R decode >out &&
	test_cmp "$D/union.expected" out
'
test_expect_success 'decode: a duplicate key in the stream: the last one wins' '
	echo "{\"version\":2,\"version\":1,\"execution\":{\"R_lite\":[],\"nodelist\":[]}}" >dup &&
	respol R decode <dup >out &&
	echo "{\"execution\":{\"R_lite\":[],\"expiration\":0.0,\"nodelist\":[],\"starttime\":0.0},\"version\":1}" >expected &&
	test_cmp expected out
'
test_expect_success 'decode: escapes in R_lite and the nodelist' '
	echo "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"\\u0030\",\"children\":{\"core\":\"0\"}}],\"nodelist\":[\"\\u0061\"]}}" >esc &&
	respol R decode <esc >out &&
	respol R encode -r 0 -c 0 -H a >expected &&
	test_cmp expected out
'
test_expect_success 'decode: a syntax error after a good R is worded by line' '
	{ cat "$D/flux-core.json" && echo "{\"version\":1,"; } >bad &&
	test_error 1 "respol: R: decode: stdin: line 3: string or '"'"'}'"'"' expected near end of file" \
		respol R decode <bad
'
test_expect_success 'decode --short groups identical children' '
	echo "rank[0-1]/core[0-3],gpu0 rank[2-3]/core[0-3]" >expected &&
	respol R decode --short <"$D/flux-core.json" >out &&
	test_cmp expected out &&
	echo "rank[19-22]/core[0-47],gpu[0-7]" >expected &&
	respol R decode -s <"$D/example1.json" >out &&
	test_cmp expected out
'
test_expect_success 'decode --short: brackets only around several ids' '
	respol R encode -r 0 -c 0 -g 1 -H a >R1 &&
	respol R encode -r 1 -c 0,2-3 -H b >R2 &&
	respol R encode -r 2,4 -c 0 -g 1 -H c,d >R3 &&
	echo "rank[0,2,4]/core0,gpu1 rank1/core[0,2-3]" >expected &&
	cat R1 R2 R3 | respol R decode -s >out &&
	test_cmp expected out
'
test_expect_success 'decode --short: a target with GPUs and no core' '
	respol R encode -c "" -g 0-1 -H a | respol R decode -s >out &&
	echo "rank0/gpu[0-1]" >expected &&
	test_cmp expected out
'
test_expect_success 'decode --nodelist, --ranks, --count' '
	echo "fluke[0-3]" >expected &&
	respol R decode --nodelist <"$D/flux-core.json" >out &&
	test_cmp expected out &&
	echo "0-3" >expected &&
	respol R decode --ranks <"$D/flux-core.json" >out &&
	test_cmp expected out &&
	printf "4\n16\n2\n" >expected &&
	for t in node core gpu; do
		respol R decode --count=$t <"$D/flux-core.json" || return 1
	done >out &&
	test_cmp expected out
'
test_expect_success 'decode: several print options, one line each in order' '
	cat >expected <<-\EOF &&
	rank[19-22]/core[0-47],gpu[0-7]
	node[186-189]
	19-22
	192
	EOF
	respol R decode -c core -r -n -s <"$D/example1.json" >out &&
	test_cmp expected out
'
test_expect_success 'decode --include: an idset of ranks' '
	respol R decode -i 0,2 <"$D/flux-core.json" >out &&
	test_cmp "$D/include-0,2.expected" out
'
test_expect_success 'decode --include: ranks that are not targets are ignored' '
	echo "2-3" >expected &&
	respol R decode --include="[2-9]" -r <"$D/flux-core.json" >out &&
	test_cmp expected out
'
test_expect_success 'decode --include: a hostlist' '
	echo "1-2" >expected &&
	respol R decode -i "fluke[1-2]" -r <"$D/flux-core.json" >out &&
	test_cmp expected out
'
test_expect_success 'decode --include: a host matches every rank on it' '
	respol R encode -r 0-2 -H "a,b,a" >in &&
	echo "0,2" >expected &&
	respol R decode -i a -r <in >out &&
	test_cmp expected out
'
test_expect_success 'decode --exclude: an idset and a hostlist' '
	echo "2-3" >expected &&
	respol R decode -x 0-1 -r <"$D/flux-core.json" >out &&
	test_cmp expected out &&
	echo "fluke[1-3]" >expected &&
	respol R decode --exclude=fluke0 -n <"$D/flux-core.json" >out &&
	test_cmp expected out
'
test_expect_success 'decode --properties: all of a list, ^ for not' '
	cat >expected <<-\EOF &&
	0-1
	2-3

	0-1
	EOF
	for p in pbatch ^pbatch pbatch,debug pbatch,^debug; do
		respol R decode -p $p -r <"$D/flux-core.json" || return 1
	done >out &&
	test_cmp expected out
'
test_expect_success 'decode --properties: NAME matches NAME@suffix' '
	respol R encode -r 0-1 -H "a,b" -p amd@gpu:1 >in &&
	echo 1 >expected &&
	respol R decode -p amd -r <in >out &&
	test_cmp expected out
'
test_expect_success 'decode: --include, then --exclude, then --properties' '
	echo "0" >expected &&
	respol R decode -i 0-2 -x 1 -p pbatch -r <"$D/flux-core.json" >out &&
	test_cmp expected out
'
test_expect_success 'decode: filters keep properties of surviving targets' '
	respol R decode -x "fluke[0-1]" <"$D/flux-core.json" >out &&
	grep "\"properties\":{\"debug\":\"2-3\"}" out
'
test_expect_success 'decode --include: a host that is not in R' '
	test_error 1 "respol: R: decode: --include: no target on host fluke9" \
		respol R decode -i "fluke[1,9]" <"$D/flux-core.json"
'
test_expect_success 'decode --exclude: a bad idset' '
	test_error 1 "respol: R: decode: --exclude: idset: \"2,1\": ids not ascending at offset 2" \
		respol R decode -x 2,1 <"$D/flux-core.json"
'
test_expect_success 'decode --include: a bad hostlist' '
	test_error 1 "respol: R: decode: --include: hostlist: \"fluke[1-\": missing '"'"']'"'"' at offset 8" \
		respol R decode -i "fluke[1-" <"$D/flux-core.json"
'
test_expect_success 'decode --properties: an illegal name' '
	test_error 1 "respol: R: decode: --properties: property name \"a|b\": illegal character '"'"'|'"'"' at offset 1" \
		respol R decode -p "a|b" <"$D/flux-core.json"
'
test_expect_success 'decode --properties: an empty name' '
	test_error 1 "respol: R: decode: --properties: '"'"'a,,b'"'"': empty property name" \
		respol R decode -p a,,b <"$D/flux-core.json" &&
	test_error 1 "respol: R: decode: --properties: '"'"'a,'"'"': empty property name" \
		respol R decode -p a, <"$D/flux-core.json"
'
test_expect_success 'decode --count: an unknown type is a usage error' '
	test_error 2 "respol: R: decode: --count: unknown type '"'"'socket'"'"' (node, core or gpu)
$hint" respol R decode -c socket <"$D/flux-core.json"
'
test_expect_success 'decode: empty stdin' '
	test_error 1 "respol: R: decode: no R on stdin" respol R decode </dev/null &&
	echo "  " >blank &&
	test_error 1 "respol: R: decode: no R on stdin" respol R decode <blank
'
test_expect_success 'decode: stdin that is not JSON' '
	echo "{\"version\":" >bad &&
	test_error 1 "respol: R: decode: stdin: line 2: unexpected token near end of file" \
		respol R decode <bad
'
test_expect_success 'decode: an R that is not valid' '
	echo "{\"version\":2}" >bad &&
	test_error 1 "respol: R: decode: stdin: version: unsupported version 2" \
		respol R decode <bad
'
test_expect_success 'decode: a JSON value that is not an object' '
	echo "[]" >bad &&
	test_error 1 "respol: R: decode: stdin: must be a JSON object" \
		respol R decode <bad
'
test_expect_success 'decode: the invalid one of several R is named' '
	{ cat "$D/flux-core.json" && echo "{\"version\":2}"; } >bad &&
	test_error 1 "respol: R: decode: stdin: object 2: version: unsupported version 2" \
		respol R decode <bad
'
test_expect_success 'decode: R that cannot be combined (rank on two hosts)' '
	respol R encode -r 0 -H a >in &&
	respol R encode -r 0 -H b >>in &&
	test_error 1 "respol: R: decode: stdin: object 2: rank 0: host b does not match a" \
		respol R decode <in
'
test_expect_success 'decode: an operand is a usage error' '
	test_error 2 "respol: R: decode: unexpected argument '"'"'x'"'"'
$hint" respol R decode x
'

# append, union, diff, intersect

test_expect_success 'set operations: inputs' '
	respol R encode -r 0-1 -c 0-3 -H "n[0-1]" >A &&
	respol R encode -r 1-2 -c 2-5 -H "n[1-2]" >B &&
	respol R encode -r 0 -c 4-5 -H n0 >C &&
	respol R encode -r 0 -c 0-1 -H n0 >D
'
test_expect_success 'union' '
	cat A B | respol R union >out &&
	test_cmp "$D/union.expected" out
'
test_expect_success 'append of disjoint R' '
	cat A C | respol R append >out &&
	test_cmp "$D/append.expected" out
'
test_expect_success 'append fails on overlap' '
	cat A B >in &&
	test_error 1 "respol: R: append: stdin: object 2: rank 1 (n1): core 2-3 already present" \
		respol R append <in
'
test_expect_success 'diff: the first minus the rest' '
	cat A B D | respol R diff >out &&
	test_cmp "$D/diff.expected" out
'
test_expect_success 'intersect: what all share' '
	cat A B | respol R intersect >out &&
	test_cmp "$D/intersect.expected" out
'
test_expect_success 'intersect: nothing shared is the empty R, parts empty' '
	cat A B C | respol R intersect >out &&
	test_cmp "$D/empty.expected" out &&
	printf "\n\n\n0\n" >expected &&
	respol R decode -s -n -r -c core <out >parts &&
	test_cmp expected parts
'
test_expect_success 'one R in is the same R out' '
	for sub in append union diff intersect; do
		respol R $sub <"$D/flux-core.json" >out &&
		test_cmp "$D/flux-core.expected" out || return 1
	done
'
test_expect_success 'set operations: empty stdin and operands' '
	for sub in append union diff intersect; do
		test_error 1 "respol: R: $sub: no R on stdin" \
			respol R $sub </dev/null &&
		test_error 2 "respol: R: $sub: unexpected argument '"'"'A'"'"'
$hint" respol R $sub A || return 1
	done
'

# rerank, remap

test_expect_success 'rerank: ranks follow host positions; properties follow' '
	respol R rerank "fluke[2-3],fluke[0-1]" <"$D/flux-core.json" >out &&
	test_cmp "$D/rerank.expected" out
'
test_expect_success 'rerank: a hostlist that does not name every host' '
	test_error 1 "respol: R: rerank: rank 3 (fluke3): host not in the hostlist" \
		respol R rerank "fluke[0-2]" <"$D/flux-core.json"
'
test_expect_success 'rerank: missing HOSTLIST, extra operand' '
	test_error 2 "respol: R: rerank: missing HOSTLIST
$hint" respol R rerank <"$D/flux-core.json" &&
	test_error 2 "respol: R: rerank: unexpected argument '"'"'b'"'"'
$hint" respol R rerank a b <"$D/flux-core.json"
'
test_expect_success 'remap: ranks and cores from 0, GPU ids kept' '
	respol R encode -r 4,7 -c 2-3,5 -g 1 -H "x[4,7]" |
		respol R remap >out &&
	test_cmp "$D/remap.expected" out
'
test_expect_success 'remap: an operand is a usage error' '
	test_error 2 "respol: R: remap: unexpected argument '"'"'x'"'"'
$hint" respol R remap x
'

# verify

test_expect_success 'verify: actual holds everything expected, and more' '
	respol R encode -r 0-1 -c 0-7 -g 0 -H "n[0-1]" >A2 &&
	cat A A2 | respol R verify >out &&
	test_must_be_empty out &&
	cat A A | respol R verify >out &&
	test_must_be_empty out
'
test_expect_success 'verify: missing cores' '
	cat A2 A >in &&
	test_error 1 "respol: R: verify: rank 0 (n0): missing core 4-7" \
		respol R verify <in
'
test_expect_success 'verify: a missing target' '
	respol R encode -r 0 -c 0-3 -H n0 >A0 &&
	cat A A0 >in &&
	test_error 1 "respol: R: verify: rank 1 (n1): missing" respol R verify <in
'
test_expect_success 'verify: an unexpected target' '
	cat A0 A >in &&
	test_error 1 "respol: R: verify: rank 1 (n1): unexpected" \
		respol R verify <in
'
test_expect_success 'verify: another host' '
	respol R encode -r 0-1 -c 0-3 -H "m[0-1]" >M &&
	cat A M >in &&
	test_error 1 "respol: R: verify: rank 0: expected host n0, got m0" \
		respol R verify <in
'
test_expect_success 'verify: stdin must hold two R' '
	test_error 1 "respol: R: verify: expected 2 R on stdin (expected, then actual), got 1" \
		respol R verify <A &&
	cat A A A >in &&
	test_error 1 "respol: R: verify: expected 2 R on stdin (expected, then actual), got 3" \
		respol R verify <in &&
	test_error 1 "respol: R: verify: no R on stdin" respol R verify </dev/null
'

# set-property

test_expect_success 'set-property: NAME[:RANKS]...' '
	respol R set-property all gpu:0-1 "x:y:3" <"$D/flux-core.json" >out &&
	test_cmp "$D/set-property.expected" out
'
test_expect_success 'set-property: a rank that is not a target' '
	test_error 1 "respol: R: set-property: '"'"'a:7'"'"': rank 7 is not an execution target" \
		respol R set-property a:7 <"$D/flux-core.json"
'
test_expect_success 'set-property: an illegal name' '
	test_error 1 "respol: R: set-property: '"'"'a^b'"'"': property name \"a^b\": illegal character '"'"'^'"'"' at offset 1" \
		respol R set-property "a^b" <"$D/flux-core.json"
'
test_expect_success 'set-property: missing NAME' '
	test_error 2 "respol: R: set-property: missing NAME[:RANKS]...
$hint" respol R set-property <"$D/flux-core.json"
'

test_expect_success 'R on stdin: at most what the memory limit allows' '
	{ respol R encode -r 0-3 -c 0-7 && printf "%30000s\n" ""; } >padded.json &&
	RESPOL_MAX_MEMORY=1MB test_error 1 "respol: R: decode: stdin: more than 21845 bytes of R, the most that the memory limit of 1 MiB allows" \
		respol R decode <padded.json &&
	cat padded.json | RESPOL_MAX_MEMORY=1MB test_error 1 "respol: R: union: stdin: more than 21845 bytes of R, the most that the memory limit of 1 MiB allows" \
		respol R union &&
	RESPOL_MAX_MEMORY=2MB respol R decode --short <padded.json >out &&
	echo "rank[0-3]/core[0-7]" >expected &&
	test_cmp expected out
'
test_expect_success 'R on stdin: a bad RESPOL_MAX_MEMORY' '
	RESPOL_MAX_MEMORY=1e9 test_error 1 "respol: R: decode: RESPOL_MAX_MEMORY: memory limit \"1e9\": a whole number of bytes, or with a unit: KB, MB, GB, TB" \
		respol R decode </dev/null
'

test_done
