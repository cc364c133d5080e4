#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol R filter: the execution targets of R that satisfy
an RFC 31 constraint or an RFC 35 query, and errors for bad constraints,
bad R and bad usage'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/R-filter"

# R.json: node[0-3], ranks 0-3, 4 cores each, GPUs 0-1 on ranks 2-3;
# properties ssd (0-1), amd-mi50@gpu (2), slowgpu (3), +local (0).
# R2.json: big[4-5], ranks 4-5, ssd on 5.

test_expect_success 'R filter --help prints usage on stdout' '
	respol R filter --help >out &&
	grep "^Usage: respol R filter \[--config=FILE\] CONSTRAINT" out &&
	respol R filter -h >out2 &&
	test_cmp out out2
'
test_expect_success 'a property query keeps the targets with it' '
	respol R filter ssd <"$D/R.json" >out &&
	test_cmp "$D/ssd.expected" out
'
test_expect_success 'the same constraint as JSON gives the same R' '
	respol R filter "{\"properties\": [\"ssd\"]}" <"$D/R.json" >out &&
	test_cmp "$D/ssd.expected" out
'
test_expect_success 'JSON after leading blanks is JSON' '
	respol R filter "  {\"properties\": [\"ssd\"]}" <"$D/R.json" >out &&
	test_cmp "$D/ssd.expected" out
'
test_expect_success '^slowgpu drops the targets with slowgpu' '
	respol R filter ^slowgpu <"$D/R.json" >out &&
	test_cmp "$D/not-slowgpu.expected" out
'
test_expect_success '-slowgpu (after --) and not slowgpu are the same' '
	respol R filter -- -slowgpu <"$D/R.json" >out &&
	test_cmp "$D/not-slowgpu.expected" out &&
	respol R filter "not slowgpu" <"$D/R.json" >out &&
	test_cmp "$D/not-slowgpu.expected" out
'
test_expect_success 'host: selects by host name' '
	respol R filter "host:node[1-2]" <"$D/R.json" >out &&
	test_cmp "$D/hosts.expected" out
'
test_expect_success 'rank: selects by rank' '
	respol R filter "rank:0,3" <"$D/R.json" >out &&
	test_cmp "$D/ranks.expected" out
'
test_expect_success 'amd-mi50 matches a target with amd-mi50@gpu' '
	respol R filter "{\"properties\": [\"amd-mi50\"]}" <"$D/R.json" >out &&
	test_cmp "$D/at-suffix.expected" out &&
	respol R filter amd-mi50 <"$D/R.json" >out &&
	test_cmp "$D/at-suffix.expected" out
'
test_expect_success '{} and {"or": []} keep everything' '
	respol R filter "{}" <"$D/R.json" >out &&
	test_cmp "$D/all.expected" out &&
	respol R filter "{\"or\": []}" <"$D/R.json" >out &&
	test_cmp "$D/all.expected" out
'
test_expect_success '{"not": []} keeps nothing' '
	respol R filter "{\"not\": []}" <"$D/R.json" >out &&
	test_cmp "$D/none.expected" out
'
test_expect_success 'not (ssd|slowgpu) leaves rank 2' '
	respol R filter "not (ssd|slowgpu)" <"$D/R.json" >out &&
	test_cmp "$D/at-suffix.expected" out
'
test_expect_success 'several R on stdin are filtered as their union' '
	cat "$D/R.json" "$D/R2.json" | respol R filter "rank:3-4|ssd" >out &&
	test_cmp "$D/union.expected" out
'
test_expect_success 'the output is R that R decode reads back' '
	respol R filter ssd <"$D/R.json" | respol R decode >out &&
	test_cmp "$D/ssd.expected" out
'

# errors: bad usage (exit 2)

test_expect_success 'a missing CONSTRAINT is a usage error' '
	test_error 2 "respol: R: filter: missing CONSTRAINT argument
Try '"'"'respol R --help'"'"' for more information." \
		respol R filter <"$D/R.json"
'
test_expect_success 'a second argument is a usage error' '
	test_error 2 "respol: R: filter: unexpected argument '"'"'b'"'"'
Try '"'"'respol R --help'"'"' for more information." \
		respol R filter a b <"$D/R.json"
'
test_expect_success 'an unknown option is a usage error' '
	test_error 2 "respol: R: filter: unknown option '"'"'--frob'"'"'
Try '"'"'respol R --help'"'"' for more information." \
		respol R filter --frob=1 a <"$D/R.json" &&
	test_error 2 "respol: R: filter: unknown option '"'"'-s'"'"'
Try '"'"'respol R --help'"'"' for more information." \
		respol R filter -slowgpu <"$D/R.json" &&
	test_error 2 "respol: R: filter: option '"'"'--help'"'"' takes no argument
Try '"'"'respol R --help'"'"' for more information." \
		respol R filter --help=1 <"$D/R.json"
'

# errors: bad input (exit 1)

test_expect_success 'a bad query names what and where' '
	test_error 1 "respol: R: filter: constraint query: \"a | (b\": missing '"'"')'"'"' at offset 6" \
		respol R filter "a | (b" <"$D/R.json" &&
	test_error 1 "respol: R: filter: constraint query: \"foo:x\": unknown operator '"'"'foo'"'"' at offset 0" \
		respol R filter "foo:x" <"$D/R.json" &&
	test_error 1 "respol: R: filter: constraint query: \"\": empty query" \
		respol R filter "" <"$D/R.json"
'
test_expect_success 'a bad JSON constraint names the operator and path' '
	test_error 1 "respol: R: filter: constraint: unknown operator '"'"'foo'"'"'" \
		respol R filter "{\"foo\": []}" <"$D/R.json" &&
	test_error 1 "respol: R: filter: constraint: and[0].properties[0]: value must be a string" \
		respol R filter "{\"and\": [{\"properties\": [1]}]}" <"$D/R.json" &&
	test_error 1 "respol: R: filter: constraint: not: takes one value (got 2)" \
		respol R filter "{\"not\": [{}, {}]}" <"$D/R.json"
'
test_expect_success 'JSON that does not parse is an error with its offset' '
	test_error 1 "respol: R: filter: constraint: JSON: unexpected token near end of file at offset 7" \
		respol R filter "{\"foo\":" <"$D/R.json"
'
test_expect_success 'the constraint is checked before stdin is read' '
	test_error 1 "respol: R: filter: constraint: unknown operator '"'"'foo'"'"'" \
		respol R filter "{\"foo\": []}" </dev/null
'
test_expect_success 'empty stdin is an error' '
	test_error 1 "respol: R: filter: no R on stdin" \
		respol R filter ssd </dev/null
'
test_expect_success 'stdin that is not JSON is an error with its line' '
	printf "{\"version\": 1}\nx\n" >bad.json &&
	test_error 1 "respol: R: filter: stdin: line 2: '"'"'['"'"' or '"'"'{'"'"' expected near '"'"'x'"'"'" \
		respol R filter ssd <bad.json
'
test_expect_success 'R that is not valid is an error' '
	echo "{}" >bad.json &&
	test_error 1 "respol: R: filter: stdin: version: missing" \
		respol R filter ssd <bad.json
'
test_expect_success 'R that does not combine names the object' '
	cat "$D/R.json" >two.json &&
	echo "{\"version\": 1, \"execution\": {\"R_lite\": [{\"rank\": \"0\", \"children\": {\"core\": \"0\"}}], \"nodelist\": [\"other\"], \"starttime\": 0, \"expiration\": 0}}" >>two.json &&
	test_error 1 "respol: R: filter: stdin: object 2: rank 0: host other does not match node0" \
		respol R filter ssd <two.json
'
test_done
