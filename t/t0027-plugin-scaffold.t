#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol plugin new: writes NAME.c for each kind, prints
the build line and the respol.yaml entry; the printed line builds it
against the build tree (with -Wall -Wextra -Werror -std=c11 -pedantic
too), the printed entry loads it, and it runs: the validator on jobspec,
the policy on a generated cluster, the shell plugin in respol run, the
property plugin in respol resource, each with the commands its comment
gives to try it.  NAME is checked with the loader'"'"'s
rule, a file is never overwritten, every usage error has its message.
(t0024 builds the same skeletons against a staged install.)'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

Q="'"

command -v cc >/dev/null && command -v pkg-config >/dev/null &&
	pkg-config --exists jansson && test_set_prereq CC

# The build tree's headers as a site reads the installed ones: an
# uninstalled respol.pc, which pkg-config prefers when it is on the path.
mkdir -p pc &&
cat >pc/respol-uninstalled.pc <<EOF
Name: respol
Description: respol, uninstalled
Version: 0
Cflags: -I$RESPOL_SRCDIR/api $(pkg-config --cflags jansson 2>/dev/null)
EOF
PKG_CONFIG_PATH="$(pwd)/pc"
export PKG_CONFIG_PATH

# build OUT: run the cc line that respol plugin new printed in OUT, as
# printed, with the strict flags added in front.
build() {
	line=$(grep "^cc " "$1") &&
	test -n "$line" &&
	(
		cc() { command cc -std=c11 -pedantic -Wall -Wextra -Werror "$@"; }
		eval "$line"
	)
}

# entry OUT: the respol.yaml entry that respol plugin new printed in OUT.
entry() {
	sed -n "/^# and enable it in respol.yaml with:$/,\$p" "$1" | sed 1d
}

# tries FILE: the commands that FILE's opening comment gives to try it.
tries() {
	sed -n "/^ \* and try it:\$/,/^ \* The contract/p" "$1" |
		sed -n "s/^ \*   //p"
}

# written KIND DIR NAME CONFIG: respol plugin new --kind=KIND --dir=DIR
# NAME, in a new DIR, wrote DIR/NAME.c and printed (in out) the build line
# and the entry, whose block is CONFIG.
written() {
	mkdir -m 0755 "$2" &&
	respol plugin new --kind="$1" --dir="$2" "$3" >out &&
	test -f "$2/$3.c" &&
	cat >expected <<-EOF &&
	# wrote $2/$3.c, a $1 plugin; build it with:
	cc -shared -fPIC \$(pkg-config --cflags respol) -o $2/$3.so $2/$3.c
	# and enable it in respol.yaml with:
	$1:
	  - plugin: "$(pwd -P)/$2/$3.so"
	    config: $4
	EOF
	test_cmp expected out
}

# exports SO: the plugin SO defines one dynamic symbol, the descriptor.
exports() {
	nm -D --defined-only "$1" | awk "\$2 !~ /^[wU]$/ { print \$3 }" >syms &&
	echo respol_plugin >expected &&
	test_cmp expected syms
}

# refused ENTRY SCRIPT MESSAGE: the entry in ENTRY, edited by the sed
# SCRIPT into bad.yaml, is refused with bad.yaml:MESSAGE.
refused() {
	sed "$2" "$1" >bad.yaml &&
	test_error 1 "respol: config: bad.yaml:$3" respol config check bad.yaml
}

# The trash directory'"'"'s name has a space: the entries are quoted.

# loads OUT FILE KIND NAME: the entry printed in OUT, written to FILE,
# loads as one instance NAME of the KIND stack.
loads() {
	entry "$1" >"$2" &&
	respol config check "$2" >check &&
	echo "$2: ok: 1 plugin loaded, checked and initialised with its configuration block ($3: $4); no jobspec was run through it" >expected &&
	test_cmp expected check
}

# Usage and errors

test_expect_success 'plugin --help shows new and its options' '
	respol plugin --help >help &&
	grep "^       respol plugin new --kind=validate|match|shell|property|queue \[--dir=DIR\] NAME$" help &&
	grep "^  new  " help &&
	grep "^      --kind=KIND  " help &&
	grep "^      --dir=DIR  " help &&
	respol plugin new --help >help2 &&
	test_cmp help help2
'
test_expect_success 'new without --kind' '
	test_error 2 "respol: plugin: new: --kind=validate|match|shell|property|queue is required
Try ${Q}respol plugin --help${Q} for more information." respol plugin new x
'
test_expect_success 'an unknown kind, with the closest' '
	test_error 2 "respol: plugin: new: unknown kind ${Q}valdiate${Q} (validate, match, shell, property or queue); did you mean ${Q}validate${Q}?
Try ${Q}respol plugin --help${Q} for more information." \
		respol plugin new --kind=valdiate x &&
	test_error 2 "respol: plugin: new: unknown kind ${Q}propety${Q} (validate, match, shell, property or queue); did you mean ${Q}property${Q}?
Try ${Q}respol plugin --help${Q} for more information." \
		respol plugin new --kind=propety x &&
	test_error 2 "respol: plugin: new: unknown kind ${Q}job-shell${Q} (validate, match, shell, property or queue)
Try ${Q}respol plugin --help${Q} for more information." \
		respol plugin new --kind=job-shell x &&
	! test -e x.c
'
test_expect_success 'NAME is required, and only one' '
	test_error 2 "respol: plugin: new: missing NAME argument
Try ${Q}respol plugin --help${Q} for more information." \
		respol plugin new --kind=match &&
	test_error 2 "respol: plugin: new: unexpected argument ${Q}b${Q}
Try ${Q}respol plugin --help${Q} for more information." \
		respol plugin new --kind=match a b
'
test_expect_success 'an unknown option of new, with the closest' '
	test_error 2 "respol: plugin: new: unknown option ${Q}--dri${Q}; did you mean ${Q}--dir${Q}?
Try ${Q}respol plugin --help${Q} for more information." \
		respol plugin new --kind=match --dri=x a &&
	test_error 2 "respol: plugin: new: --dir must not be empty
Try ${Q}respol plugin --help${Q} for more information." \
		respol plugin new --kind=match --dir= a
'
test_expect_success 'a NAME the loader would refuse, with its message' '
	test_error 1 "respol: plugin: new: invalid plugin name ${Q}my.plugin${Q} (letters, digits, ${Q}-${Q} and ${Q}_${Q}, 1-64 bytes)" \
		respol plugin new --kind=validate my.plugin &&
	test_error 1 "respol: plugin: new: invalid plugin name ${Q}${Q} (letters, digits, ${Q}-${Q} and ${Q}_${Q}, 1-64 bytes)" \
		respol plugin new --kind=match "" &&
	long=$(printf "n%.0s" $(test_seq 1 65)) &&
	test_expect_code 1 respol plugin new --kind=match $long 2>err &&
	grep "invalid plugin name" err &&
	! test -e my.plugin.c && ! test -e .c && ! test -e $long.c
'
test_expect_success 'a missing directory' '
	test_error 1 "respol: plugin: new: nowhere/x.c: No such file or directory" \
		respol plugin new --kind=match --dir=nowhere x
'
test_expect_success 'an existing file is never overwritten, nor a symlink' '
	echo mine >keep.c &&
	test_error 1 "respol: plugin: new: keep.c exists: not overwriting it" \
		respol plugin new --kind=validate keep &&
	echo mine >expected &&
	test_cmp expected keep.c &&
	ln -s nowhere/at/all dangling.c &&
	test_error 1 "respol: plugin: new: dangling.c exists: not overwriting it" \
		respol plugin new --kind=validate dangling &&
	! test -e nowhere
'

# A validator

test_expect_success 'new --kind=validate writes NAME.c and says what next' '
	respol plugin new --kind=validate maxnodes >out &&
	test -f maxnodes.c &&
	cat >expected <<-EOF &&
	# wrote maxnodes.c, a validate plugin; build it with:
	cc -shared -fPIC \$(pkg-config --cflags respol) -o maxnodes.so maxnodes.c
	# and enable it in respol.yaml with:
	validate:
	  - plugin: "$(pwd -P)/maxnodes.so"
	    config: {max-nodes: 64}
	EOF
	test_cmp expected out
'
test_expect_success CC 'the printed line builds it, strictly' '
	build out &&
	exports maxnodes.so
'
test_expect_success CC 'it loads: its descriptor' '
	respol plugin info maxnodes.so >info &&
	cat >expected <<-EOF &&
	name: maxnodes
	kind: validate
	version: 0.1.0
	abi: 1
	description: reject jobs asking for more than max-nodes nodes
	file: $(pwd)/maxnodes.so
	EOF
	test_cmp expected info
'
test_expect_success CC 'the printed entry loads it' '
	loads out respol.yaml validate maxnodes
'
test_expect_success CC 'it runs: a job within max-nodes passes, a larger one is rejected' '
	sed "s/max-nodes: 64/max-nodes: 2/" respol.yaml >two.yaml &&
	respol jobspec create -N2 -n2 -- app >ok.yaml &&
	respol jobspec validate --config=two.yaml ok.yaml &&
	respol jobspec create -N3 -n3 -- app >big.yaml &&
	test_error 1 "respol: jobspec: big.yaml: maxnodes: requests 3 nodes, limit is 2" \
		respol jobspec validate --config=two.yaml big.yaml
'
test_expect_success CC 'its keys are declared, its values checked' '
	sed "s/max-nodes: 64/max-node: 2/" respol.yaml >bad.yaml &&
	test_error 1 "respol: config: bad.yaml:3:14: validate[0] ${Q}maxnodes${Q}: unknown key ${Q}max-node${Q}; did you mean ${Q}max-nodes${Q}?" \
		respol config check bad.yaml &&
	sed "s/max-nodes: 64/max-nodes: -1/" respol.yaml >bad.yaml &&
	test_error 1 "respol: config: bad.yaml:3:13: validate[0] ${Q}maxnodes${Q}: init failed: max-nodes: must be an integer >= 0" \
		respol config check bad.yaml
'

# A match policy, in another directory

test_expect_success 'new --kind=match --dir=DIR writes DIR/NAME.c' '
	mkdir -m 0755 policies &&
	respol plugin new --kind=match --dir=policies/ avoid-ranks >out &&
	test -f policies/avoid-ranks.c &&
	cat >expected <<-EOF &&
	# wrote policies/avoid-ranks.c, a match plugin; build it with:
	cc -shared -fPIC \$(pkg-config --cflags respol) -o policies/avoid-ranks.so policies/avoid-ranks.c
	# and enable it in respol.yaml with:
	match:
	  - plugin: "$(pwd -P)/policies/avoid-ranks.so"
	    config: {avoid-ranks: "0"}
	EOF
	test_cmp expected out
'
test_expect_success CC 'the printed line builds it, strictly, and the entry loads it' '
	build out &&
	loads out policy.yaml match avoid-ranks
'
test_expect_success CC 'it runs: the avoided ranks are taken last' '
	sed "s/\"0\"/\"0-1\"/" policy.yaml >two.yaml &&
	respol jobspec create -N1 -n1 -c2 -- app >node.yaml &&
	printf "match allocate node.yaml\n%.0s" 1 2 3 4 >script &&
	respol query --config=two.yaml -F short --generate=nodes=4,cores=2 \
		<script >alloc &&
	cat >expected <<-EOF &&
	1: node2: core[0-1]
	2: node3: core[0-1]
	3: node0: core[0-1]
	4: node1: core[0-1]
	EOF
	test_cmp expected alloc &&
	respol match allocate --config=two.yaml --generate=nodes=4,cores=2 \
		node.yaml | respol R decode --short >one &&
	echo "rank2/core[0-1]" >expected &&
	test_cmp expected one
'
test_expect_success CC 'its values are checked' '
	sed "s/\"0\"/\"1,0\"/" policy.yaml >bad.yaml &&
	test_error 1 "respol: config: bad.yaml:3:13: match[0] ${Q}avoid-ranks${Q}: init failed: avoid-ranks: idset: \"1,0\": ids not ascending at offset 2" \
		respol config check bad.yaml
'

# A shell plugin, tried in its own directory

test_expect_success 'new --kind=shell writes NAME.c and says what next' '
	written shell shell task-id "{variable: TASK_LOCAL_ID}"
'
test_expect_success CC 'the printed line builds it, strictly, and the entry loads it' '
	build out &&
	exports shell/task-id.so &&
	loads out shell/respol.yaml shell task-id
'
test_expect_success CC 'it runs as its comment says: each task gets its local id' '
	tries shell/task-id.c >try &&
	cat >expected <<-\EOF &&
	respol config check respol.yaml
	respol run --config=respol.yaml -n2 printenv TASK_LOCAL_ID
	EOF
	test_cmp expected try &&
	(cd shell && sh -c "$(sed -n 1p ../try)") >check &&
	grep "^respol.yaml: ok: 1 plugin loaded" check &&
	(cd shell && sh -c "$(sed -n 2p ../try)") >run &&
	sort run >got &&
	printf "0\n1\n" >expected &&
	test_cmp expected got
'
test_expect_success CC 'it logs each task at debug level' '
	respol run --config=shell/respol.yaml -vv -n2 true 2>err &&
	grep "^respol: run: task-id: debug: task 0: TASK_LOCAL_ID=0$" err &&
	grep "^respol: run: task-id: debug: task 1: TASK_LOCAL_ID=1$" err
'
test_expect_success CC 'its key is declared, its value checked' '
	refused shell/respol.yaml "s/variable: TASK_LOCAL_ID/varaible: X/" \
		"3:14: shell[0] ${Q}task-id${Q}: unknown key ${Q}varaible${Q}; did you mean ${Q}variable${Q}?" &&
	refused shell/respol.yaml "s/{variable: TASK_LOCAL_ID}/{}/" \
		"3:13: shell[0] ${Q}task-id${Q}: init failed: ${Q}variable${Q} is required" &&
	refused shell/respol.yaml "s/TASK_LOCAL_ID/\"A=B\"/" \
		"3:13: shell[0] ${Q}task-id${Q}: init failed: variable: must be a variable name, e.g. TASK_LOCAL_ID"
'

# A property plugin, tried in its own directory

test_expect_success 'new --kind=property writes NAME.c and says what next' '
	written property property logins "{prefix: login, property: login}"
'
test_expect_success CC 'the printed line builds it, strictly, and the entry loads it' '
	build out &&
	exports property/logins.so &&
	loads out property/respol.yaml property logins
'
test_expect_success CC 'it runs as its comment says: the login hosts get the property' '
	tries property/logins.c >try &&
	cat >expected <<-\EOF &&
	respol config check respol.yaml
	respol R encode -r 0-3 -H ${Q}login0,node[1-3]${Q} >R.json
	respol resource --state=state --config=respol.yaml -R R.json list
	EOF
	sed "s/\${Q}/$Q/g" expected >expected2 &&
	test_cmp expected2 try &&
	(cd property && sh -e ../try) >run &&
	cat >expected <<-EOF &&
	respol.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (property: logins); no jobspec was run through it
	     STATE PROPERTIES NNODES NCORES NODELIST
	        up login           1      1 login0
	        up                 3      3 node[1-3]
	      down                 0      0
	EOF
	sed "s/ *\$//" run >got &&
	test_cmp expected got &&
	tail -n 1 property/state/eventlog >last &&
	grep "\"name\":\"property-add\",\"context\":{\"properties\":{\"login\":\"0\"},\"plugin\":\"logins\"}}$" last
'
test_expect_success CC 'what it says is its whole say: another prefix moves the property' '
	sed "s/prefix: login/prefix: node/" property/respol.yaml >nodes.yaml &&
	respol resource --state=property/state --config=nodes.yaml \
		-R property/R.json list -n >out &&
	grep "^ *up login  *3  *3 node\[1-3\]$" out &&
	grep "^ *up  *1  *1 login0$" out
'
test_expect_success CC 'its keys are declared, their values checked' '
	refused property/respol.yaml "s/prefix: login/prefx: login/" \
		"3:14: property[0] ${Q}logins${Q}: unknown key ${Q}prefx${Q}; did you mean ${Q}prefix${Q}?" &&
	refused property/respol.yaml "s/prefix: login, //" \
		"3:13: property[0] ${Q}logins${Q}: init failed: prefix: must be the start of host names, e.g. login" &&
	refused property/respol.yaml "s/property: login/property: \"a|b\"/" \
		"3:13: property[0] ${Q}logins${Q}: init failed: property: property name \"a|b\": illegal character ${Q}|${Q} at offset 1"
'

# A queue policy, tried in its own directory

test_expect_success 'new --kind=queue writes NAME.c and says what next' '
	written queue queue shortfirst "{short: 3600}"
'
test_expect_success CC 'the printed line builds it, strictly, and the entry loads it' '
	build out &&
	exports queue/shortfirst.so &&
	loads out queue/respol.yaml queue shortfirst
'
test_expect_success CC 'it runs as its comment says: the short job goes first (a reservation an earlier pass cancelled is no promise)' '
	tries queue/shortfirst.c >try &&
	cat >expected <<-\EOF &&
	respol config check respol.yaml
	printf ${Q}1 0 -1 1000 4 -1 -1 4 1000 -1 1 1 1 -1 -1 -1 -1 -1\n${Q} >w.swf
	printf ${Q}2 1 -1 5000 4 -1 -1 4 5000 -1 1 1 1 -1 -1 -1 -1 -1\n${Q} >>w.swf
	printf ${Q}3 2 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 -1 -1 -1 -1\n${Q} >>w.swf
	respol simulate --config=respol.yaml --queue=shortfirst --jobs=jobs.csv \
	  --generate=nodes=4,cores=1 --unit=node w.swf
	EOF
	sed "s/\${Q}/$Q/g" expected >expected2 &&
	test_cmp expected2 try &&
	(cd queue && sh -e ../try) >run &&
	grep "^queue: shortfirst$" run &&
	cat >expected <<-\EOF &&
	id,submit,start,end,wait,size,where
	1,0,0,1000,0,4,"node[0-3]"
	2,1,1100,6100,1099,4,"node[0-3]"
	3,2,1000,1100,998,1,"node0"
	EOF
	test_cmp expected queue/jobs.csv
'
test_expect_success CC 'without it, under easy in submission order, the short job waits' '
	(cd queue && respol simulate --queue=easy --jobs=easy.csv \
		--generate=nodes=4,cores=1 --unit=node w.swf) >/dev/null &&
	grep "^2,1,1000,6000," queue/easy.csv &&
	grep "^3,2,6000,6100," queue/easy.csv
'
test_expect_success CC 'its keys are declared, their values checked' '
	refused queue/respol.yaml "s/short: 3600/shrt: 3600/" \
		"3:14: queue[0] ${Q}shortfirst${Q}: unknown key ${Q}shrt${Q}; did you mean ${Q}short${Q}?" &&
	refused queue/respol.yaml "s/short: 3600/short: 0/" \
		"3:13: queue[0] ${Q}shortfirst${Q}: init failed: short: must be a number of seconds >= 1"
'

# Names and paths that need care

test_expect_success 'a NAME that starts with - is written ./-NAME' '
	respol plugin new --kind=validate -- -x >out &&
	test -f ./-x.c &&
	grep "^cc .* -o ./-x.so ./-x.c$" out
'
test_expect_success 'a directory that needs quoting, for sh and YAML' '
	mkdir -m 0755 "my plugins" &&
	respol plugin new --kind=match --dir="my plugins" p >out &&
	grep "^cc .* -o ${Q}my plugins/p.so${Q} ${Q}my plugins/p.c${Q}$" out &&
	grep "^  - plugin: \"$(pwd -P)/my plugins/p.so\"$" out
'
test_expect_success CC 'those build and load as printed' '
	build out &&
	loads out quoted.yaml match p
'

test_done
