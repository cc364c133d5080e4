#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='the SDK: make install puts headers, respol.pc, the shipped
plugins and the example plugins in place (pkg-config --variable=examplesdir
names their folder); each example builds out of tree with exactly cc -shared
-fPIC $(pkg-config --cflags respol), and the installed respol loads it
through a configuration file and runs it: the validator on jobspec, the
match policy on R'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

# How: a staged install, make install DESTDIR=..., read through pkg-config
# with PKG_CONFIG_SYSROOT_DIR (which prefixes every path of respol.pc with
# the staging directory), and the installed respol run with
# LD_LIBRARY_PATH pointing at the staged library.  Not `make install
# prefix=DIR`: respol.pc is written by configure, so it would still name
# the configured prefix, and libtool leaves the installed respol with the
# configured libdir as its run path.  Not a second configure with
# --prefix: automake refuses a VPATH build of a tree configured in place,
# which is how CI builds.  The staging directory is outside the trash
# directory, whose name has a space that libtool's install cannot take.

test -f "$RESPOL_BUILDDIR/Makefile" && command -v make >/dev/null &&
	test_set_prereq INSTALL
command -v cc >/dev/null && command -v pkg-config >/dev/null &&
	test_set_prereq CC
if ! test_have_prereq INSTALL; then
	skip_all='make install is not possible (no make, or no Makefile in $RESPOL_BUILDDIR)'
	rm -rf "$DEST"
test_done
fi
if ! test_have_prereq CC; then
	skip_all='cc and pkg-config are needed to build a plugin'
	rm -rf "$DEST"
test_done
fi

# Not below /tmp: the loader refuses plugins below a directory others may
# write.  Next to the trash directory (whose name has a space, which
# make install cannot take), which lib-respol.sh puts in a safe place.
DEST=$(mktemp -d "$(dirname "$SHARNESS_TRASH_DIRECTORY")/respol-sdk.XXXXXX") &&
	chmod 0755 "$DEST" ||
	error "cannot create a staging directory"

# The staged install, read as a site would read it.
PKG_CONFIG_PATH=
PKG_CONFIG_SYSROOT_DIR="$DEST"
export PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_PATH

# Run the installed respol with the installed library.
irespol() {
	LD_LIBRARY_PATH="$LIBDIR" "$BINDIR/respol" "$@"
}

test_expect_success 'make install DESTDIR=... installs respol' '
	(
		unset MAKEFLAGS MFLAGS MAKELEVEL TESTS
		make -C "$RESPOL_BUILDDIR" install DESTDIR="$DEST"
	) >install.log 2>&1 &&
	PC=$(find "$DEST" -name respol.pc) &&
	test -n "$PC" &&
	PKG_CONFIG_PATH=$(dirname "$PC") &&
	LIBDIR=$(pkg-config --variable=libdir respol) &&
	PLUGINDIR=$(pkg-config --variable=plugindir respol) &&
	PREFIX=$(pkg-config --variable=prefix respol) &&
	BINDIR=$(dirname "$(find "$DEST" -path "*/bin/respol")") &&
	EXAMPLES=$(dirname "$(find "$DEST" -path "*/respol/examples/site-validator.c")") &&
	SYSCONF=$(dirname "$(find "$DEST" -path "*/respol/respol.yaml")") &&
	for d in "$LIBDIR" "$PLUGINDIR" "$PREFIX" "$BINDIR" "$EXAMPLES" "$SYSCONF"; do
		case "$d" in
		"$DEST"/*) test -d "$d" || return 1 ;;
		*) echo "$d is not under $DEST"; return 1 ;;
		esac
	done
'
test_expect_success 'the installed files' '
	pkg-config --cflags respol >cflags &&
	grep -e "-I$PREFIX/include" cflags &&
	test -f "$PREFIX/include/respol/plugin.h" &&
	test -f "$PREFIX/include/respol/jobspec.h" &&
	test -f "$PREFIX/include/respol/config.h" &&
	test -f "$PREFIX/include/respol/property.h" &&
	test -f "$PREFIX/include/respol/queue.h" &&
	test -f "$LIBDIR/librespol.so" &&
	ls "$PLUGINDIR"/*.so | sed "s|^$PLUGINDIR/||" >plugins &&
	printf "%s\n" conservative.so cpu-affinity.so easy.so fcfs.so \
		feasibility.so first.so gpu-affinity.so high.so \
		hostlist-properties.so hwloc-properties.so hybrid.so limits.so \
		locality.so low.so mem-affinity.so openmp.so pack.so priority.so \
		property-compare.so queues.so require-duration.so spread.so \
		user-limits.so >expected &&
	test_cmp expected plugins &&
	ls "$EXAMPLES" >examples &&
	printf "%s\n" README.md respol.yaml site-match-policy.c site-validator.c \
		>expected &&
	test_cmp expected examples &&
	test_cmp "$RESPOL_SRCDIR/conf/respol.yaml" "$SYSCONF/respol.yaml" &&
	test -f "$PREFIX/share/man/man5/respol.yaml.5" &&
	test -f "$PREFIX/share/man/man7/respol-plugin.7"
'
test_expect_success 'pkg-config --variable=examplesdir names the examples' '
	test "$(pkg-config --variable=examplesdir respol)" = "$EXAMPLES"
'
test_expect_success 'the installed respol runs with the installed library' '
	irespol --version >out &&
	grep "^respol [0-9]" out &&
	LD_LIBRARY_PATH="$LIBDIR" ldd "$BINDIR/respol" >ldd &&
	grep "librespol.so.* => $LIBDIR/librespol.so" ldd
'
test_expect_success 'its compiled-in plugin directory is where the plugins went' '
	irespol plugin --help >help &&
	grep "then $(echo "$PLUGINDIR" | sed "s|^$DEST||")\.$" help
'
test_expect_success 'installed, it never looks in the build tree' '
	irespol plugin --help >help &&
	! grep "$RESPOL_BUILDDIR" help &&
	irespol config --help >help &&
	! grep "$RESPOL_BUILDDIR" help &&
	! grep "$RESPOL_SRCDIR/conf" help
'
IDEFAULT=$(irespol config --help 2>/dev/null |
	sed -n "s/^ *\(\/.*respol.yaml\))$/\1/p")
test -n "$IDEFAULT" && ! test -e "$IDEFAULT" && test_set_prereq DEFAULT_MISSING
test_expect_success DEFAULT_MISSING 'without FILE nor $RESPOL_CONFIG, a missing installed default is empty' '
	(unset RESPOL_CONFIG && irespol config check >out) &&
	echo "$IDEFAULT: not found: the configuration is empty" >expected &&
	test_cmp expected out
'
test_expect_success 'the example builds with exactly the documented command' '
	cp "$EXAMPLES/site-validator.c" site.c &&
	cc -shared -fPIC $(pkg-config --cflags respol) -o site.so site.c &&
	chmod go-w . site.so
'
test_expect_success 'the example exports its descriptor and nothing else' '
	nm -D --defined-only site.so | awk "\$2 !~ /^[wU]$/ { print \$3 }" >syms &&
	echo respol_plugin >expected &&
	test_cmp expected syms
'
test_expect_success 'the installed respol reads its descriptor' '
	irespol plugin info site.so >info &&
	cat >expected <<-EOF &&
	name: site-gpus
	kind: validate
	version: 1.0.0
	abi: 1
	description: reject jobs asking for more than N GPUs per node
	file: $(pwd)/site.so
	EOF
	test_cmp expected info
'
test_expect_success 'a configuration loads it, and a shipped plugin, from the install' '
	cat >site.yaml <<-EOF &&
	plugin-path: ["$PLUGINDIR"]
	validate:
	  - plugin: queues
	    config: {default: batch, queues: {batch: {}, gpu: {}}}
	  - plugin: "$(pwd)/site.so"
	    config: {max-gpus-per-node: 4, gpu-queue: gpu}
	EOF
	irespol config check site.yaml >out &&
	echo "site.yaml: ok: 2 plugins loaded, checked and initialised with their configuration blocks (validate: queues, site-gpus); no jobspec was run through them" >expected &&
	test_cmp expected out
'
test_expect_success 'its configuration block is checked: keys by the host' '
	cat >bad.yaml <<-EOF &&
	validate:
	  - plugin: "$(pwd)/site.so"
	    config: {max-gpus-per-node: 4, gpu-queu: gpu}
	EOF
	test_error 1 "respol: config: bad.yaml:3:36: validate[0] '"'"'site-gpus'"'"': unknown key '"'"'gpu-queu'"'"'; did you mean '"'"'gpu-queue'"'"'?" \
		irespol config check bad.yaml &&
	cat >bad.yaml <<-EOF &&
	validate:
	  - plugin: "$(pwd)/site.so"
	EOF
	test_error 1 "respol: config: bad.yaml:2:5: validate[0] '"'"'site-gpus'"'"': init failed: '"'"'max-gpus-per-node'"'"' is required" \
		irespol config check bad.yaml
'

# job FILE NODES SLOTS-PER-NODE GPUS-PER-SLOT [QUEUE]
job() {
	cat >"$1" <<-EOF
	version: 1
	resources:
	  - type: node
	    count: $2
	    with:
	      - type: slot
	        count: $3
	        label: task
	        with:
	          - {type: core, count: 1}
	          - {type: gpu, count: $4}
	tasks:
	  - {command: [app], slot: task, count: {per_slot: 1}}
	attributes:
	  system: {duration: 60${5:+, queue: $5}}
	EOF
}

test_expect_success 'it accepts a job within the limit' '
	job ok.yaml 2 4 1 gpu &&
	irespol jobspec validate --config=site.yaml ok.yaml >out 2>err &&
	test_must_be_empty out &&
	test_must_be_empty err
'
test_expect_success 'it counts the GPUs of a job that names no node per slot' '
	cat >slots.yaml <<-EOF &&
	version: 1
	resources:
	  - type: slot
	    count: 2
	    label: task
	    with: [{type: core, count: 1}, {type: gpu, count: 5}]
	tasks: [{command: [app], slot: task, count: {per_slot: 1}}]
	attributes: {system: {duration: 60, queue: gpu}}
	EOF
	test_error 1 "respol: jobspec: slots.yaml: site-gpus: requests 5 GPUs per slot, limit is 4" \
		irespol jobspec validate --config=site.yaml slots.yaml
'
test_expect_success 'it rejects a job above the limit' '
	job big.yaml 1 4 2 gpu &&
	test_error 1 "respol: jobspec: big.yaml: site-gpus: requests 8 GPUs per node, limit is 4" \
		irespol jobspec validate --config=site.yaml big.yaml
'
test_expect_success 'it warns about a GPU job outside the GPU queue' '
	job batch.yaml 1 2 1 &&
	irespol jobspec validate --config=site.yaml batch.yaml >out 2>err &&
	echo "respol: jobspec: warning: batch.yaml: site-gpus: job uses GPUs outside queue '"'"'gpu'"'"'" >expected &&
	test_cmp expected err &&
	irespol jobspec validate --config=site.yaml --print batch.yaml >printed &&
	grep "^    queue: batch$" printed
'

# The match-policy example, likewise.
test_expect_success 'the match-policy example builds with the documented command' '
	cp "$(pkg-config --variable=examplesdir respol)/site-match-policy.c" . &&
	cc -shared -fPIC $(pkg-config --cflags respol) -o site-policy.so \
		site-match-policy.c &&
	chmod go-w site-policy.so &&
	nm -D --defined-only site-policy.so |
		awk "\$2 !~ /^[wU]$/ { print \$3 }" >syms &&
	echo respol_plugin >expected &&
	test_cmp expected syms
'
test_expect_success 'it places jobs on preferred nodes first, never on avoided ones' '
	cat >policy.yaml <<-EOF &&
	match:
	  - plugin: "$(pwd)/site-policy.so"
	    config: {prefer: fast, avoid: login}
	EOF
	irespol R encode -r 0-3 -c 0-7 -H "node[0-3]" |
		irespol R set-property fast:2-3 login:0 >R.json &&
	irespol jobspec create -N1 -n1 -c8 -- app >node.yaml &&
	printf "match allocate node.yaml\n%.0s" 1 2 3 4 >script &&
	test_expect_code 1 irespol query --config=policy.yaml -F short -R R.json \
		<script >out 2>err &&
	printf "1: node2: core[0-7]\n2: node3: core[0-7]\n3: node1: core[0-7]\n" \
		>expected &&
	test_cmp expected out &&
	grep "^respol: query: line 4: match allocate node.yaml: not satisfiable now" err
'
test_expect_success 'its block is checked: keys by the host, values by init' '
	cat >bad.yaml <<-EOF &&
	match:
	  - plugin: "$(pwd)/site-policy.so"
	    config: {prefr: fast}
	EOF
	test_error 1 "respol: config: bad.yaml:3:14: match[0] '"'"'site-policy'"'"': unknown key '"'"'prefr'"'"'; did you mean '"'"'prefer'"'"'?" \
		irespol config check bad.yaml &&
	cat >bad.yaml <<-EOF &&
	match:
	  - plugin: "$(pwd)/site-policy.so"
	    config: {}
	EOF
	test_error 1 "respol: config: bad.yaml:3:13: match[0] '"'"'site-policy'"'"': init failed: give '"'"'prefer'"'"', '"'"'avoid'"'"' or both" \
		irespol config check bad.yaml
'

# respol plugin new: each skeleton, built with the line it prints against
# the install, loaded with the entry it prints, and run.
# new_plugin KIND NAME: write NAME.c, build it as printed, and leave the
# printed entry in NAME.yaml.
new_plugin() {
	irespol plugin new --kind=$1 $2 >$2.out &&
	line=$(grep "^cc " $2.out) &&
	eval "$line" &&
	chmod go-w $2.so &&
	sed -n "/^# and enable it in respol.yaml with:$/,\$p" $2.out | sed 1d >$2.yaml
}
test_expect_success 'plugin new --kind=validate: built and loaded from the install' '
	new_plugin validate site-max &&
	sed "s/max-nodes: 64/max-nodes: 1/" site-max.yaml >max1.yaml &&
	irespol config check max1.yaml >out &&
	echo "max1.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (validate: site-max); no jobspec was run through it" >expected &&
	test_cmp expected out &&
	job two.yaml 2 1 0 &&
	test_error 1 "respol: jobspec: two.yaml: site-max: requests 2 nodes, limit is 1" \
		irespol jobspec validate --config=max1.yaml two.yaml
'
test_expect_success 'plugin new --kind=match: built and loaded from the install' '
	new_plugin match site-avoid &&
	irespol config check site-avoid.yaml >out &&
	echo "site-avoid.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (match: site-avoid); no jobspec was run through it" >expected &&
	test_cmp expected out &&
	irespol jobspec create -N1 -n1 -- app >one.yaml &&
	irespol match allocate --config=site-avoid.yaml --generate=nodes=2 one.yaml |
		irespol R decode --short >out &&
	echo "rank1/core0" >expected &&
	test_cmp expected out
'
test_expect_success 'plugin new --kind=shell: built and loaded from the install' '
	new_plugin shell site-task &&
	irespol config check site-task.yaml >out &&
	echo "site-task.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (shell: site-task); no jobspec was run through it" >expected &&
	test_cmp expected out &&
	irespol run --config=site-task.yaml -n2 printenv TASK_LOCAL_ID >out &&
	sort out >got &&
	printf "0\n1\n" >expected &&
	test_cmp expected got
'
test_expect_success 'plugin new --kind=property: built and loaded from the install' '
	new_plugin property site-login &&
	irespol R encode -r 0-1 -H login0,node1 >R.json &&
	irespol resource --state=state --config=site-login.yaml -R R.json \
		list -n >out &&
	grep "^ *up login  *1  *1 login0$" out
'

test_expect_success 'make install keeps a site-edited respol.yaml' '
	echo "# site edit" >>"$SYSCONF/respol.yaml" &&
	(
		unset MAKEFLAGS MFLAGS MAKELEVEL TESTS
		make -C "$RESPOL_BUILDDIR" install-data DESTDIR="$DEST"
	) >install2.log 2>&1 &&
	tail -n 1 "$SYSCONF/respol.yaml" >last &&
	echo "# site edit" >expected &&
	test_cmp expected last &&
	grep "^keeping .*/respol/respol.yaml" install2.log &&
	test_cmp "$RESPOL_SRCDIR/conf/respol.yaml" "$EXAMPLES/respol.yaml"
'
test_expect_success 'make uninstall removes respol but keeps a site-edited respol.yaml' '
	(
		unset MAKEFLAGS MFLAGS MAKELEVEL TESTS
		make -C "$RESPOL_BUILDDIR" uninstall DESTDIR="$DEST"
	) >uninstall.log 2>&1 &&
	test -f "$SYSCONF/respol.yaml" &&
	grep "^keeping .*respol.yaml: it was edited" uninstall.log &&
	! test -e "$BINDIR/respol"
'
rm -rf "$DEST"
test_done
