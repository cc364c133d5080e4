#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol graph show and export: the resource graph (RFC 4)
built from R, hwloc XML, a graph file or a generator spec, printed as a
tree or as respol JSON, JGF and dot; the resource options and their
errors'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/match"
GEN=nodes=2,sockets=2,cores=4,gpus=2

test_expect_success 'setup: copy the fixtures so messages name short paths' '
	cp "$RESPOL_DATA"/R/example1.json R.json &&
	cp "$RESPOL_DATA"/topologies/coral-lassen.xml lassen.xml &&
	cp "$D"/states.json states.json
'

# --help and usage

test_expect_success 'graph --help prints the usage and the resource options' '
	respol graph --help >out &&
	grep "^Usage: respol graph show RESOURCE-OPTION$" out &&
	grep "^       respol graph export \[--format=json|jgf|dot\] RESOURCE-OPTION$" out &&
	for opt in "-R, --R=FILE" --xml=FILE --hostname=NAME --graph=FILE \
		--generate=SPEC --max-memory=SIZE --format=NAME; do
		grep -e "$opt" out || return 1
	done
'
test_expect_success 'graph -h is --help, also after a subcommand' '
	respol graph --help >expected &&
	respol graph -h >out &&
	test_cmp expected out &&
	respol graph show --help >out &&
	test_cmp expected out
'
test_expect_success 'respol --help lists graph, match and query' '
	respol --help >out &&
	grep "^  graph " out &&
	grep "^  match " out &&
	grep "^  query " out
'
test_expect_success 'no subcommand is a usage error' '
	test_error 2 "respol: graph: missing subcommand (show or export)
Try '\''respol graph --help'\'' for more information." respol graph --generate=nodes=1
'
test_expect_success 'an unknown subcommand is a usage error' '
	test_error 2 "respol: graph: unknown subcommand '\''draw'\''
Try '\''respol graph --help'\'' for more information." respol graph draw --generate=nodes=1
'
test_expect_success 'an extra argument is a usage error' '
	test_error 2 "respol: graph: show: unexpected argument '\''x'\''
Try '\''respol graph --help'\'' for more information." respol graph show x --generate=nodes=1
'
test_expect_success 'an unknown option is a usage error' '
	test_error 2 "respol: graph: unknown option '\''--frob'\''
Try '\''respol graph --help'\'' for more information." respol graph show --frob --generate=nodes=1
'
test_expect_success '--format with show is a usage error' '
	test_error 2 "respol: graph: show: --format applies to export only
Try '\''respol graph --help'\'' for more information." respol graph show --format=json --generate=nodes=1
'
test_expect_success 'an unknown --format is a usage error' '
	test_error 2 "respol: graph: export: unknown format '\''xml'\''
Try '\''respol graph --help'\'' for more information." respol graph export --format=xml --generate=nodes=1
'

# resource options: usage errors

test_expect_success 'no resource option is a usage error' '
	test_error 2 "respol: graph: no resources: give one of -R FILE, --xml=FILE, --graph=FILE, --generate=SPEC
Try '\''respol graph --help'\'' for more information." respol graph show
'
test_expect_success 'two resource options are a usage error' '
	test_error 2 "respol: graph: -R and --generate exclude each other
Try '\''respol graph --help'\'' for more information." respol graph show -R R.json --generate=nodes=1 &&
	test_error 2 "respol: graph: --xml and --graph exclude each other
Try '\''respol graph --help'\'' for more information." respol graph show --xml=lassen.xml --graph=g.json --R=R.json
'
test_expect_success 'one resource option twice is a usage error' '
	test_error 2 "respol: graph: --generate given twice
Try '\''respol graph --help'\'' for more information." respol graph show --generate=nodes=1 --generate=nodes=2
'
test_expect_success '--hostname without --xml is a usage error' '
	test_error 2 "respol: graph: --hostname applies to --xml only
Try '\''respol graph --help'\'' for more information." respol graph show --hostname=x --generate=nodes=1
'
test_expect_success 'a resource option without its value is a usage error' '
	test_error 2 "respol: graph: option '\''--generate'\'' requires an argument
Try '\''respol graph --help'\'' for more information." respol graph show --generate &&
	test_error 2 "respol: graph: option '\''-R'\'' requires an argument
Try '\''respol graph --help'\'' for more information." respol graph show -R
'

# resource options: bad input

test_expect_success '-R: a missing file' '
	test_error 1 "respol: graph: nosuch.json: No such file or directory" \
		respol graph show -R nosuch.json
'
test_expect_success '-R: not JSON' '
	echo "{" >bad.json &&
	respol graph show -R bad.json 2>err;
	test $? = 1 &&
	grep "^respol: graph: bad.json: R: " err
'
test_expect_success '-R: not a valid R, from stdin' '
	echo "{\"version\": 2}" |
		test_error 1 "respol: graph: stdin: R: version: unsupported version 2" \
			respol graph show -R -
'
test_expect_success '--xml: a missing file' '
	test_error 1 "respol: graph: hwloc: nosuch.xml: cannot load topology: No such file or directory" \
		respol graph show --xml=nosuch.xml
'
test_expect_success '--graph: a missing file' '
	test_error 1 "respol: graph: nosuch.json: No such file or directory" \
		respol graph show --graph=nosuch.json
'
test_expect_success '--graph: neither respol JSON nor JGF' '
	echo "{\"foo\": 1}" >foo.json &&
	test_error 1 "respol: graph: foo.json:1:1: neither respol graph JSON nor JGF: no '\''respol-graph'\'' or '\''graph'\'' key" \
		respol graph show --graph=foo.json
'
test_expect_success '--generate: a bad spec' '
	test_error 1 "respol: graph: --generate: nodes= is required" \
		respol graph show --generate=cores=4 &&
	test_error 1 "respol: graph: --generate: nodes=3 does not divide evenly among 2 racks" \
		respol graph show --generate=nodes=3,racks=2
'

# show

test_expect_success 'show: a generated cluster, runs of cores compressed' '
	cat >expected <<-\EOF &&
	cluster0
	  node0 rank=0
	    socket0
	      core[0-3]
	      gpu0
	      memory0 size=32GB
	    socket1
	      core[4-7]
	      gpu1
	      memory1 size=32GB
	  node1 rank=1
	    socket0
	      core[0-3]
	      gpu0
	      memory0 size=32GB
	    socket1
	      core[4-7]
	      gpu1
	      memory1 size=32GB
	EOF
	respol graph show --generate=$GEN,memory=64GB >out &&
	test_cmp expected out
'
test_expect_success 'show: options may follow the subcommand or come first' '
	respol graph --generate=$GEN show >out2 &&
	respol graph show --generate=$GEN >out1 &&
	test_cmp out1 out2
'
test_expect_success 'show: R, with host names and properties, from a file and stdin' '
	cat >expected <<-\EOF &&
	cluster0
	  node186 rank=19
	    core[0-47]
	    gpu[0-7]
	  node187 rank=20
	    core[0-47]
	    gpu[0-7]
	  node188 rank=21
	    core[0-47]
	    gpu[0-7]
	  node189 rank=22
	    core[0-47]
	    gpu[0-7]
	EOF
	respol graph show -R R.json >out &&
	test_cmp expected out &&
	respol graph show --R=- <R.json >out &&
	test_cmp expected out &&
	respol graph show -R "$D"/R4.json >out &&
	grep "^  node2 rank=2 properties=ssd$" out &&
	grep "^  node1 rank=1$" out
'
test_expect_success 'show: hwloc XML, named by --hostname' '
	cat >expected <<-\EOF &&
	cluster0
	  lassen7 rank=0
	    socket0
	      core[0-19]
	      gpu[0-1]
	      memory0 size=137GB
	    socket1
	      core[20-39]
	      gpu[2-3]
	      memory1 size=137GB
	EOF
	respol graph show --xml=lassen.xml --hostname=lassen7 >out &&
	test_cmp expected out
'
test_expect_success 'show: states, properties and tags; a run stops at a vertex that says more' '
	cat >expected <<-\EOF &&
	cluster0
	  node0 rank=0
	    socket0
	      core0
	      core1 state=drained
	      core[2-3]
	      gpu0
	      memory0 size=16GB
	  node1 rank=1 state=down
	    socket0
	      core[0-3]
	      gpu0
	      memory0 size=16GB
	  node2 rank=2 properties=arch=x86,ssd tags=maint=2026
	    socket0
	      core[0-3]
	      gpu0
	      memory0 size=16GB
	EOF
	respol graph show --graph=states.json >out &&
	test_cmp expected out
'
test_expect_success 'show: racks and a host name prefix' '
	cat >expected <<-\EOF &&
	cluster0
	  rack0
	    tiny0 rank=0
	      socket0
	        core0
	    tiny1 rank=1
	      socket0
	        core0
	  rack1
	    tiny2 rank=2
	      socket0
	        core0
	    tiny3 rank=3
	      socket0
	        core0
	EOF
	respol graph show --generate=nodes=4,racks=2,prefix=tiny >out &&
	test_cmp expected out
'
test_expect_success 'show: indentation stops growing at 32 levels' '
	awk "BEGIN { printf \"{\\\"respol-graph\\\":1,\\\"vertices\\\":[\";
		for (i = 0; i < 35; i++) printf \"%s{\\\"type\\\":\\\"x\\\",\\\"id\\\":%d}\", i ? \",\" : \"\", i;
		printf \"],\\\"edges\\\":[\";
		for (i = 0; i < 34; i++) printf \"%s[%d,%d]\", i ? \",\" : \"\", i, i + 1;
		print \"]}\" }" >chain.json &&
	respol graph show --graph=chain.json >out &&
	test $(wc -l <out) = 35 &&
	sed -n "33p" out >line32 &&
	printf "%64sx32\n" "" >expected &&
	test_cmp expected line32 &&
	tail -n 2 out >deeper &&
	printf "%64s+33 x33\n%64s+34 x34\n" "" "" >expected &&
	test_cmp expected deeper
'

# bounds: the memory limit (--max-memory, RESPOL_MAX_MEMORY)

test_expect_success 'setup: R of 2^20 ranks of 16 cores, in 147 bytes' '
	printf "%s" "{\"version\":1,\"execution\":{\"R_lite\":[{\"rank\":\"0-1048575\",\"children\":{\"core\":\"0-15\"}}],\"nodelist\":[\"n[0-1048575]\"],\"starttime\":0.0,\"expiration\":0.0}}" >hostile.json &&
	test $(wc -c <hostile.json) = 147
'
test_expect_success '-R: 17 million vertices in 147 bytes are refused at once' '
	bounded test_error 1 "respol: graph: hostile.json: R: 17825793 vertices need about 2037 MiB, more than the memory limit of 1536 MiB" \
		respol graph show -R hostile.json &&
	bounded test_error 1 "respol: graph: stdin: R: 17825793 vertices need about 2037 MiB, more than the memory limit of 1536 MiB" \
		respol graph export -R - <hostile.json
'
test_expect_success '--generate: a spec past the limit is refused at once' '
	bounded test_error 1 "respol: graph: --generate: spec makes 35000001 vertices, which need about 3425 MiB, more than the memory limit of 1536 MiB" \
		respol graph show --generate=nodes=1000000,sockets=2,cores=16 &&
	bounded test_error 1 "respol: graph: --generate: spec makes 64000001 vertices, which need about 10515 MiB, more than the memory limit of 1536 MiB" \
		respol graph show --generate=nodes=16000000,cores=2
'
test_expect_success '--max-memory and RESPOL_MAX_MEMORY set the limit; the option wins' '
	test_error 1 "respol: graph: --generate: spec makes 30001 vertices, which need about 6 MiB, more than the memory limit of 4 MiB" \
		respol graph show --generate=nodes=10000 --max-memory=4MB &&
	RESPOL_MAX_MEMORY=4194304 test_error 1 "respol: graph: --generate: spec makes 30001 vertices, which need about 6 MiB, more than the memory limit of 4 MiB" \
		respol graph show --generate=nodes=10000 &&
	RESPOL_MAX_MEMORY=4MB respol graph show --generate=nodes=10000 \
		--max-memory=8MB >out &&
	test $(wc -l <out) = 30001
'
test_expect_success 'a bad --max-memory is a usage error, a bad RESPOL_MAX_MEMORY bad input' '
	test_error 2 "respol: graph: --max-memory: memory limit \"4X\": a whole number of bytes, or with a unit: KB, MB, GB, TB
Try '\''respol graph --help'\'' for more information." \
		respol graph show --generate=nodes=1 --max-memory=4X &&
	test_error 2 "respol: graph: --max-memory: memory limit \"1000\": less than 1MB
Try '\''respol graph --help'\'' for more information." \
		respol graph show --generate=nodes=1 --max-memory=1000 &&
	RESPOL_MAX_MEMORY=lots test_error 1 "respol: graph: RESPOL_MAX_MEMORY: memory limit \"lots\": a whole number of bytes, or with a unit: KB, MB, GB, TB" \
		respol graph show --generate=nodes=1
'
test_expect_success '-R: more R text than the limit reads is refused before reading' '
	{ cat R.json && printf "%30000s\n" ""; } >padded.json &&
	test_error 1 "respol: graph: padded.json: more than 21845 bytes of R, the most that the memory limit of 1 MiB allows" \
		respol graph show -R padded.json --max-memory=1MB &&
	test_error 1 "respol: graph: stdin: more than 21845 bytes of R, the most that the memory limit of 1 MiB allows" \
		respol graph show -R - --max-memory=1MB <padded.json &&
	cat padded.json | test_error 1 "respol: graph: stdin: more than 21845 bytes of R, the most that the memory limit of 1 MiB allows" \
		respol graph show -R - --max-memory=1MB &&
	respol graph show -R padded.json >out &&
	respol graph show -R R.json >expected &&
	test_cmp expected out
'
test_expect_success '--graph: a JGF file larger than 16 MiB loads' '
	spec=nodes=1700,sockets=2,cores=16,gpus=2 &&
	respol graph export --format=jgf --generate=$spec >big.jgf &&
	test $(wc -c <big.jgf) -gt 16777216 &&
	respol graph show --generate=$spec >expected &&
	respol graph show --graph=big.jgf >out &&
	test_cmp expected out
'
test_expect_success '--graph: past the limit, before reading or parsing it' '
	test_error 1 "respol: graph: big.jgf: document needs about 676 MiB to read, more than the memory limit of 512 MiB" \
		respol graph show --graph=big.jgf --max-memory=512MB &&
	test_error 1 "respol: graph: big.jgf: document is larger than 4194304 bytes, the most that the memory limit of 16 MiB allows" \
		respol graph show --graph=big.jgf --max-memory=16MB &&
	test_error 1 "respol: graph: stdin: document is larger than 4194304 bytes, the most that the memory limit of 16 MiB allows" \
		respol graph show --graph=- --max-memory=16MB <big.jgf &&
	cat big.jgf | test_error 1 "respol: graph: stdin: document is larger than 4194304 bytes, the most that the memory limit of 16 MiB allows" \
		respol graph show --graph=- --max-memory=16MB
'
test_expect_success '--graph: a file of 64 GiB is refused without reading it' '
	truncate -s 64G huge.json &&
	bounded test_error 1 "respol: graph: huge.json: document is larger than 402653184 bytes, the most that the memory limit of 1536 MiB allows" \
		respol graph show --graph=huge.json &&
	rm -f huge.json
'
test_expect_success '--graph: 600 KB of vertices of distinct types are refused at once' '
	awk "BEGIN { printf \"{\\\"respol-graph\\\":1,\\\"vertices\\\":[\";
		for (i = 0; i < 20000; i++) printf \"%s{\\\"type\\\":\\\"t%d\\\"}\", i ? \",\" : \"\", i;
		printf \"],\\\"edges\\\":[\";
		for (i = 0; i < 19999; i++) printf \"%s[%d,%d]\", i ? \",\" : \"\", i, i + 1;
		print \"]}\" }" >types.json &&
	bounded test_error 1 "respol: graph: types.json:1:1: 20000 vertices of 20000 types need about 9599 MiB, more than the memory limit of 1536 MiB" \
		respol graph show --graph=types.json
'
test_expect_success 'export: a document past the limit is refused before it is written' '
	test_error 1 "respol: graph: export: writing 3001 vertices as JGF needs about 14 MiB, more than the memory limit of 4 MiB" \
		respol graph export --format=jgf --generate=nodes=1000 --max-memory=4MB &&
	respol graph export --format=dot --generate=nodes=1000 --max-memory=4MB >out &&
	test $(grep -c " -> " out) = 3000
'

# export

test_expect_success 'export: respol JSON is the default, on one line' '
	cat >expected <<-\EOF &&
	{"edges":[[0,1],[1,2],[2,3],[2,4]],"respol-graph":1,"vertices":[{"id":0,"type":"cluster"},{"id":0,"rank":0,"type":"node"},{"id":0,"type":"socket"},{"id":0,"type":"core"},{"id":1,"type":"core"}]}
	EOF
	respol graph export --generate=nodes=1,cores=2 >out &&
	test_cmp expected out &&
	respol graph export --format=json --generate=nodes=1,cores=2 >out &&
	test_cmp expected out
'
test_expect_success 'export: json, jgf and dot of a graph with states, properties and tags' '
	respol graph export --graph=states.json >out &&
	test_cmp "$D"/states.json.expected out &&
	respol graph export --format=jgf --graph=states.json >out &&
	test_cmp "$D"/states.jgf.expected out &&
	respol graph export --format=dot --graph=states.json >out &&
	test_cmp "$D"/states.dot.expected out
'
test_expect_success 'export: json and jgf read back into the same graph' '
	respol graph export --format=json --generate=$GEN,memory=64GB,racks=2 >g.json &&
	respol graph export --format=jgf --generate=$GEN,memory=64GB,racks=2 >g.jgf &&
	respol graph export --format=json --graph=g.jgf >g2.json &&
	test_cmp g.json g2.json &&
	respol graph export --format=jgf --graph=g.json >g2.jgf &&
	test_cmp g.jgf g2.jgf &&
	respol graph export --format=jgf --graph=states.json |
		respol graph export --graph=- >out &&
	test_cmp "$D"/states.json.expected out
'

test_done
