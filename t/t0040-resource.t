#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol resource: the inventory in a state directory,
defined from R or a resources block; list, status and drain as flux
resource shows them; drain and undrain with flux-core'\''s rules; up,
down, shrink, properties, expiration; the event log; usage errors'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/resource"
TZ=UTC
export TZ
unset RESPOL_STATE_DIR

# lines N FILE: FILE has N lines.
lines() {
	test "$(wc -l <"$2")" -eq "$1" || {
		echo "$2: $(wc -l <"$2") lines, not $1"
		return 1
	}
}

test_expect_success 'setup' '
	cp "$D"/R4.json "$D"/resources.yaml .
'

# --help and usage

test_expect_success '--help lists every subcommand and option' '
	respol resource --help >out &&
	for s in list status "drain TARGETS" undrain "up|down" shrink \
		property-add property-remove expire acquire \
		import-flux-eventlog compact; do
		grep "^  $s" out || return 1
	done &&
	for o in --state=DIR --resources=FILE "-R, --R=FILE" --local \
		--xml=FILE --hostname=NAME --exclude=TARGETS --now=SECONDS --json \
		"-n, --no-header" "-f, --force" "-u, --update" --follow; do
		grep -e "$o" out || return 1
	done
'
test_expect_success 'usage errors exit 2' '
	test_error 2 "respol: resource: a subcommand is needed
Try '\''respol resource --help'\'' for more information." respol resource &&
	test_error 2 "respol: resource: unknown subcommand '\''frob'\''
Try '\''respol resource --help'\'' for more information." respol resource frob &&
	test_error 2 "respol: resource: unknown option '\''--frob'\''
Try '\''respol resource --help'\'' for more information." respol resource status --frob &&
	test_error 2 "respol: resource: up: --json and -n are for list, status and drain
Try '\''respol resource --help'\'' for more information." respol resource up 1 --json &&
	test_error 2 "respol: resource: down: -f and -u are for drain and undrain
Try '\''respol resource --help'\'' for more information." respol resource down -f 1 &&
	test_error 2 "respol: resource: list: --follow is for acquire
Try '\''respol resource --help'\'' for more information." respol resource list --follow &&
	test_error 2 "respol: resource: one of --resources, -R, --local, --xml
Try '\''respol resource --help'\'' for more information." respol resource -R R4.json --local list &&
	test_error 2 "respol: resource: --hostname is for --local and --xml
Try '\''respol resource --help'\'' for more information." respol resource --hostname=x list &&
	test_error 2 "respol: resource: --exclude is for -R, --local and --xml (a resources file has its own exclude)
Try '\''respol resource --help'\'' for more information." respol resource --resources=resources.yaml --exclude=1 list &&
	test_error 2 "respol: resource: only one of --force and --update
Try '\''respol resource --help'\'' for more information." respol resource drain -f -u 1 &&
	test_error 2 "respol: resource: --now: '\''soon'\'' is not a number of seconds
Try '\''respol resource --help'\'' for more information." respol resource --now=soon list
'

# defining the resources

test_expect_success 'a state directory with no resources' '
	test_error 1 "respol: resource: st: No such file or directory" \
		respol resource --state=st status &&
	mkdir st &&
	test_error 1 "respol: resource: st: no resources defined (define them with --resources=FILE, -R FILE, --local or --xml=FILE)" \
		respol resource --state=st status
'
test_expect_success 'a resources block defines them; its state is the default directory' '
	respol resource --resources=resources.yaml --now=1000 status >out &&
	cat >expected <<-\EOF &&
	       STATE UP NNODES NODELIST
	       avail  ✔      7 node[1-7]
	     exclude  ✔      1 node0
	EOF
	test_cmp expected out &&
	test -s from-config/eventlog &&
	grep "^{\"timestamp\":1000.0,\"name\":\"resource-define\",\"context\":{\"method\":\"configuration\",\"R\":{\"version\":1," from-config/eventlog
'
test_expect_success 'the same definition again logs nothing' '
	respol resource --resources=resources.yaml list >/dev/null &&
	lines 1 from-config/eventlog
'
test_expect_success 'RESPOL_STATE_DIR is the default; --state wins over it' '
	RESPOL_STATE_DIR=env respol resource -R R4.json list >/dev/null &&
	test -s env/eventlog &&
	RESPOL_STATE_DIR=env respol resource --state=st -R R4.json list >/dev/null &&
	test -s st/eventlog
'
test_expect_success 'a bad resources block says where' '
	printf "resources:\n  config:\n    - hosts: n1\n      cores: 3,2\n" >bad.yaml &&
	test_error 1 "respol: resource: bad.yaml:4:14: resources.config[0].cores: idset: \"3,2\": ids not ascending at offset 2" \
		respol resource --state=x --resources=bad.yaml list
'
test_expect_success '--exclude names hosts or ranks of the R' '
	test_error 1 "respol: resource: --exclude: host '\''nodeX'\'' is not in the inventory" \
		respol resource --state=x -R R4.json --exclude=nodeX list &&
	respol resource --state=ex -R R4.json --exclude=node3 status >out &&
	grep "exclude  ✔      1 node3" out
'
test_expect_success '--xml defines one node from an hwloc topology' '
	respol resource --state=xml --hostname=big \
		--xml="$RESPOL_DATA/topologies/h200-vm.xml" list >out &&
	grep " up .* big$" out
'

# the state directory used below: 8 nodes, node0 excluded

S="--state=from-config"

test_expect_success 'drain, down; status groups by state with reasons and times' '
	respol resource $S --now=1713906350 drain node[1-2] bad disk &&
	respol resource $S --now=1713906400 drain 3 &&
	respol resource $S down 7 &&
	respol resource $S status >out &&
	cat >expected <<-\EOF &&
	       STATE UP NNODES TIME         REASON                         NODELIST
	       avail  ✔      3                                             node[4-6]
	      avail*  ✗      1                                             node7
	     exclude  ✔      1                                             node0
	     drained  ✔      2 Apr23 21:05  bad disk                       node[1-2]
	     drained  ✔      1 Apr23 21:06                                 node3
	EOF
	test_cmp expected out
'
test_expect_success 'drain with no targets lists them as flux resource drain does' '
	respol resource $S drain >out &&
	cat >expected <<-\EOF &&
	TIME         STATE    REASON                         NODELIST
	Apr23 21:05  drained  bad disk                       node[1-2]
	Apr23 21:06  drained                                 node3
	EOF
	test_cmp expected out &&
	respol resource $S drain -n >out &&
	tail -n 2 expected >expected2 &&
	test_cmp expected2 out
'
test_expect_success 'list: the scheduler view, by state and properties' '
	respol resource $S list >out &&
	cat >expected <<-\EOF &&
	     STATE PROPERTIES NNODES NCORES NGPUS NODELIST
	        up                 2     32     0 node[4-5]
	        up gpu             1     16     2 node6
	      down                 3     48     0 node[1-3]
	      down gpu             1     16     2 node7
	EOF
	test_cmp expected out
'
test_expect_success 'list: a state with nothing gets an empty line; no PROPERTIES or NGPUS column when empty' '
	respol resource --state=r4 -R R4.json --exclude=2-3 list >out &&
	cat >expected <<-\EOF &&
	     STATE NNODES NCORES NGPUS NODELIST
	        up      2     16     4 node[0-1]
	      down      0      0     0 
	EOF
	test_cmp expected out
'
test_expect_success '--json: one array, sorted keys, exact times' '
	respol resource $S drain --json >out &&
	cat >expected <<-\EOF &&
	[{"nnodes":2,"nodelist":"node[1-2]","ranks":"1-2","reason":"bad disk","state":"drained","timestamp":1713906350.0,"up":true},{"nnodes":1,"nodelist":"node3","ranks":"3","state":"drained","timestamp":1713906400.0,"up":true}]
	EOF
	test_cmp expected out &&
	respol resource $S status --json >out &&
	grep "^\[{\"nnodes\":3,\"nodelist\":\"node\[4-6\]\",\"ranks\":\"4-6\",\"state\":\"avail\",\"up\":true},{\"nnodes\":1,\"nodelist\":\"node7\",\"ranks\":\"7\",\"state\":\"avail\",\"up\":false}," out &&
	respol resource $S list --json >out &&
	grep "{\"ncores\":16,\"ngpus\":2,\"nnodes\":1,\"nodelist\":\"node7\",\"properties\":\[\"gpu\"\],\"ranks\":\"7\",\"state\":\"down\"}\]$" out
'
test_expect_success 'drain rules: default fails on drained, -f, -f -f, -u' '
	test_error 1 "respol: resource: rank 1 already drained (-f replaces the reason, -u keeps it)" \
		respol resource $S drain 1 again &&
	test_error 1 "respol: resource: ranks 0-1 already drained or excluded (-f replaces the reason, -u keeps it)" \
		respol resource $S drain 0-1 &&
	test_error 1 "respol: resource: rank 0 excluded" \
		respol resource $S drain -f node0 &&
	respol resource $S --now=1713906500 drain -f 1 new reason &&
	respol resource $S --now=1713906600 drain -f -f 2 forced &&
	respol resource $S --now=1713906700 drain -u 1-3 upd &&
	respol resource $S drain >out &&
	cat >expected <<-\EOF &&
	TIME         STATE    REASON                         NODELIST
	Apr23 21:05  drained  new reason                     node1
	Apr23 21:10  drained  forced                         node2
	Apr23 21:06  drained  upd                            node3
	EOF
	test_cmp expected out
'
test_expect_success 'undrain: fails on an undrained target unless -f or -u' '
	test_error 1 "respol: resource: rank 4 not drained" \
		respol resource $S undrain 3-4 &&
	respol resource $S undrain -f 3-4 fixed &&
	respol resource $S drain -n >out &&
	lines 2 out &&
	test_error 2 "respol: resource: undrain: TARGETS missing
Try '\''respol resource --help'\'' for more information." respol resource $S undrain
'
test_expect_success 'up, down, shrink and their errors' '
	test_error 1 "respol: resource: rank 5 already up" respol resource $S up 5 &&
	test_error 1 "respol: resource: rank 7 already down" respol resource $S down node7 &&
	respol resource $S up 7 &&
	respol resource $S shrink 6 &&
	test_error 1 "respol: resource: rank 6 removed" respol resource $S down 6 &&
	test_error 1 "respol: resource: ranks 8-9 are not in the inventory" \
		respol resource $S down 7-9 &&
	test_error 1 "respol: resource: host '\''nodeX'\'' is not in the inventory" \
		respol resource $S down nodeX &&
	test_error 2 "respol: resource: shrink: one TARGETS argument
Try '\''respol resource --help'\'' for more information." respol resource $S shrink 1 2 &&
	respol resource $S status >out &&
	grep "^     removed  ✔      1 .* node6$" out
'
test_expect_success 'property-add, property-remove, expire' '
	respol resource $S property-add node[4-5] fast big@gpu &&
	respol resource $S list >out &&
	grep "^        up big@gpu,fast,gpu " out ||
	grep "^        up big@gpu,fast " out &&
	respol resource $S property-remove 5 big &&
	respol resource $S list >out &&
	grep "^        up fast       " out &&
	test_error 1 "respol: resource: property name \"a|b\": illegal character '\''|'\'' at offset 1" \
		respol resource $S property-add 4 "a|b" &&
	test_error 2 "respol: resource: property-add: TARGETS and at least one NAME
Try '\''respol resource --help'\'' for more information." respol resource $S property-add 4 &&
	respol resource $S expire 2000000000 &&
	tail -n 1 from-config/eventlog | grep "\"name\":\"resource-update\",\"context\":{\"expiration\":2000000000.0}" &&
	test_error 1 "respol: resource: expire: '\''never'\'' is not a number of seconds" \
		respol resource $S expire never
'
test_expect_success 'the log: one flux-core shaped line per operation' '
	grep -c . from-config/eventlog >count &&
	echo 14 >expected &&
	test_cmp expected count &&
	sed -n 2p from-config/eventlog >line &&
	echo "{\"timestamp\":1713906350.0,\"name\":\"drain\",\"context\":{\"idset\":\"1-2\",\"nodelist\":\"node[1-2]\",\"reason\":\"bad disk\",\"overwrite\":0}}" >expected &&
	test_cmp expected line
'
test_expect_success 'a torn last line: readers warn, writers drop it, nothing else is lost' '
	respol resource $S status >before &&
	printf "{\"timestamp\":5,\"na" >>from-config/eventlog &&
	respol resource $S status >out 2>err &&
	test_cmp before out &&
	echo "respol: resource: warning: from-config/eventlog:15: incomplete last line (18 bytes) ignored" >expected &&
	test_cmp expected err &&
	respol resource $S down 5 2>err &&
	echo "respol: resource: warning: from-config/eventlog:15: incomplete last line (18 bytes) dropped" >expected &&
	test_cmp expected err &&
	respol resource $S status >out 2>err &&
	test ! -s err &&
	lines 15 from-config/eventlog
'
test_expect_success 'compact: the same state in few events' '
	respol resource $S status >before &&
	respol resource $S list >before.list &&
	respol resource $S --now=3000 compact >out &&
	echo "15 events, now 7" >expected &&
	test_cmp expected out &&
	respol resource $S status >after &&
	respol resource $S list >after.list &&
	test_cmp before after &&
	test_cmp before.list after.list &&
	lines 7 from-config/eventlog
'
test_expect_success 'a redefinition keeps the state of the hosts still there (node1 is gone)' '
	cat >moved.yaml <<-\EOF &&
	resources:
	  config:
	    - hosts: node[2-3],nodeA
	      cores: 0-3
	EOF
	respol resource --state=from-config --resources=moved.yaml drain >out &&
	cat >expected <<-\EOF &&
	TIME         STATE    REASON                         NODELIST
	Apr23 21:10  drained  forced                         node2
	EOF
	test_cmp expected out
'
test_expect_success 'a hostile log is refused with its line' '
	mkdir hostile &&
	head -n 1 from-config/eventlog >hostile/eventlog &&
	echo "{\"timestamp\":2,\"name\":\"drain\",\"context\":{\"idset\":\"0-4294967294\",\"nodelist\":\"x\"}}" >>hostile/eventlog &&
	test_error 1 "respol: resource: hostile/eventlog:2: drain: idset: ranks 8-4294967294 are not in the inventory" \
		respol resource --state=hostile status &&
	head -n 1 from-config/eventlog >hostile/eventlog &&
	echo "{\"timestamp\":2,\"name\":\"reboot\"}" >>hostile/eventlog &&
	test_error 1 "respol: resource: hostile/eventlog:2: reboot: unknown event" \
		respol resource --state=hostile status
'
test_expect_success 'a line of 100 MB is refused after 16 MiB, within bounded memory' '
	head -n 1 from-config/eventlog >hostile/eventlog &&
	awk "BEGIN { s = \"x\"; for (i = 0; i < 20; i++) s = s s; for (i = 0; i < 100; i++) printf \"%s\", s; print \"\" }" >>hostile/eventlog &&
	test $(wc -c <hostile/eventlog) -gt 100000000 &&
	bounded -m 400000 test_error 1 "respol: resource: hostile/eventlog:2: longer than 16777216 bytes" \
		respol resource --state=hostile status
'

test_done
