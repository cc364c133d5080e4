#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol resource import-flux-eventlog: a Flux resource
event log gives the drained targets, reasons and times flux resource drain
would show (flux-core'\''s replay, overwrite and upgrade rules); hostile
logs are refused with the line, in bounded memory'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/resource"
S=--state=st
TZ=UTC
export TZ
unset RESPOL_STATE_DIR

test_expect_success 'setup' '
	cp "$D"/R4.json "$D"/flux-t2311.eventlog "$D"/flux-new.eventlog .
'
test_expect_success 'an inventory is needed first' '
	mkdir empty &&
	test_error 1 "respol: resource: empty: no resources defined (define them with --resources=FILE, -R FILE, --local or --xml=FILE)" \
		respol resource --state=empty import-flux-eventlog flux-new.eventlog
'
test_expect_success 'flux-core'\''s pre-0.62 test log: rank 2, underwear' '
	respol resource $S -R R4.json --now=1 import-flux-eventlog flux-t2311.eventlog >out &&
	echo "11 events: 0 drain/undrain used, 11 ignored, 0 targets skipped; 1 targets drained, 1 events logged" >expected &&
	test_cmp expected out &&
	respol resource $S drain >out &&
	cat >expected <<-\EOF &&
	TIME         STATE    REASON                         NODELIST
	Apr23 21:05  drained  underwear                      node2
	EOF
	test_cmp expected out &&
	respol resource $S drain --json >out &&
	grep "\"reason\":\"underwear\",\"state\":\"drained\",\"timestamp\":1713906351.0" out
'
test_expect_success 'the current format: hosts by nodelist, a host that is gone, undrain, overwrite' '
	respol resource $S import-flux-eventlog flux-new.eventlog >out 2>err &&
	echo "7 events: 5 drain/undrain used, 2 ignored, 1 targets skipped; 2 targets drained, 2 events logged" >expected &&
	test_cmp expected out &&
	echo "respol: resource: warning: flux-new.eventlog:3: drain: 1 target not in the inventory skipped (first: rank 42, fake42)" >expected &&
	test_cmp expected err &&
	respol resource $S drain >out &&
	cat >expected <<-\EOF &&
	TIME         STATE    REASON                         NODELIST
	Apr23 21:06  drained  second                         node2
	Apr23 21:06  drained  moved to rank 3                node3
	EOF
	test_cmp expected out
'
test_expect_success 'importing again logs nothing; the drains survive a restart' '
	respol resource $S import-flux-eventlog flux-new.eventlog >out 2>/dev/null &&
	grep "0 events logged$" out &&
	respol resource $S drain >st.drain &&
	test_cmp expected st.drain
'
test_expect_success 'excluded targets end undrained (flux-core reconcile_excluded)' '
	respol resource --state=ex -R R4.json --exclude=node2 import-flux-eventlog flux-new.eventlog >/dev/null 2>&1 &&
	respol resource --state=ex drain -n >out &&
	echo "Apr23 21:06  drained  moved to rank 3                node3" >expected &&
	test_cmp expected out
'
test_expect_success 'thousands of events: the last ones win as flux-core replays them' '
	awk "BEGIN { for (i = 0; i < 5000; i++) { r = i % 4; k = int (i / 4) % 3;
		if (k == 2) printf \"{\\\"timestamp\\\":%d,\\\"name\\\":\\\"undrain\\\",\\\"context\\\":{\\\"idset\\\":\\\"%d\\\",\\\"nodelist\\\":\\\"node%d\\\"}}\n\", 1700000000 + i, r, r;
		else printf \"{\\\"timestamp\\\":%d,\\\"name\\\":\\\"drain\\\",\\\"context\\\":{\\\"idset\\\":\\\"%d\\\",\\\"nodelist\\\":\\\"node%d\\\",\\\"reason\\\":\\\"%s%d\\\",\\\"overwrite\\\":%d}}\n\", 1700000000 + i, r, r, k ? \"b\" : \"a\", i, k;
		if (i % 7 == 0) printf \"{\\\"timestamp\\\":%d,\\\"name\\\":\\\"online\\\",\\\"context\\\":{\\\"idset\\\":\\\"0-3\\\"}}\n\", 1700000000 + i } }" >big.eventlog &&
	test $(wc -l <big.eventlog) -gt 5000 &&
	respol resource --state=big -R R4.json import-flux-eventlog big.eventlog >out &&
	grep "^5715 events: 5000 drain/undrain used, 715 ignored, 0 targets skipped; 4 targets drained" out &&
	respol resource --state=big drain --json >out &&
	cat >expected <<-\EOF &&
	[{"nnodes":1,"nodelist":"node0","ranks":"0","reason":"b4996","state":"drained","timestamp":1700004992.0,"up":true},{"nnodes":1,"nodelist":"node1","ranks":"1","reason":"b4997","state":"drained","timestamp":1700004993.0,"up":true},{"nnodes":1,"nodelist":"node2","ranks":"2","reason":"b4998","state":"drained","timestamp":1700004994.0,"up":true},{"nnodes":1,"nodelist":"node3","ranks":"3","reason":"b4999","state":"drained","timestamp":1700004995.0,"up":true}]
	EOF
	test_cmp expected out
'

# hostile logs

test_expect_success 'wrong types, huge idsets and bad JSON are refused with the line' '
	printf "{\"timestamp\":1,\"name\":\"online\",\"context\":{\"idset\":\"0\"}}\n{\"timestamp\":2,\"name\":\"drain\",\"context\":{\"idset\":\"1\",\"reason\":5}}\n" >types.eventlog &&
	test_error 1 "respol: resource: types.eventlog:2: drain: reason: must be a string" \
		respol resource $S import-flux-eventlog types.eventlog &&
	printf "{\"timestamp\":1,\"name\":\"undrain\",\"context\":{\"idset\":\"0-4294967294\"}}\n" >huge.eventlog &&
	test_error 1 "respol: resource: huge.eventlog:1: undrain: idset: more than 1048576 targets" \
		respol resource $S import-flux-eventlog huge.eventlog &&
	printf "{\"timestamp\":1,\"name\":\"resource-init\",\"context\":{\"drain\":[]}}\n" >init.eventlog &&
	test_error 1 "respol: resource: init.eventlog:1: resource-init: drain: must be an object" \
		respol resource $S import-flux-eventlog init.eventlog &&
	printf "{\"timestamp\":1,\"name\":\"drain\",\"context\":{\"idset\":\"1\"}\n" >json.eventlog &&
	test_error 1 "respol: resource: json.eventlog:1: not JSON: '\''}'\'' expected near end of file" \
		respol resource $S import-flux-eventlog json.eventlog &&
	test_error 1 "respol: resource: nosuch: No such file or directory" \
		respol resource $S import-flux-eventlog nosuch &&
	test_error 1 "respol: resource: empty: Is a directory" \
		respol resource $S import-flux-eventlog empty &&
	respol resource $S drain >again &&
	test_cmp st.drain again
'
test_expect_success 'unknown events are warnings; a torn last line is ignored' '
	printf "{\"timestamp\":1,\"name\":\"frobnicate\"}\n{\"timestamp\":2,\"name\":\"dra" >odd.eventlog &&
	respol resource $S import-flux-eventlog odd.eventlog >out 2>err &&
	cat >expected.err <<-\EOF &&
	respol: resource: warning: odd.eventlog:1: unknown event '\''frobnicate'\'' ignored
	respol: resource: warning: odd.eventlog:2: incomplete last line (26 bytes) ignored
	EOF
	test_cmp expected.err err &&
	grep "^1 events: 0 drain/undrain used, 1 ignored" out
'
test_expect_success 'a line of 100 MB is refused after 16 MiB, within bounded memory' '
	awk "BEGIN { s = \"x\"; for (i = 0; i < 20; i++) s = s s; printf \"{\\\"timestamp\\\":1,\\\"name\\\":\\\"drain\\\",\\\"context\\\":{\\\"idset\\\":\\\"1\\\",\\\"reason\\\":\\\"\"; for (i = 0; i < 100; i++) printf \"%s\", s; print \"\\\"}}\" }" >long.eventlog &&
	test $(wc -c <long.eventlog) -gt 100000000 &&
	bounded -m 400000 test_error 1 "respol: resource: long.eventlog:1: longer than 16777216 bytes" \
		respol resource $S import-flux-eventlog long.eventlog
'

test_done
