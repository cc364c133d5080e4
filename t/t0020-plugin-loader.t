#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol plugin info and list: the loader on every fixture
plugin (one per failure mode), file checks (sticky directories included),
the configured stacks as a table and as JSON, bad usage, and an
installation below a sticky directory, end to end'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

FIX="$RESPOL_FIXTURE_PLUGINDIR"

test_expect_success 'setup: a configuration with four instances' '
	cat >four.yaml <<-EOF
	plugin-path: ["$FIX"]
	validate:
	  - plugin: good
	  - plugin: good
	    name: second
	    config: {anything: [1, 2]}
	  - plugin: strict-config
	    config: {limit: 8}
	  - plugin: warn-all
	EOF
'

# --help and usage

test_expect_success 'plugin --help prints the usage on stdout' '
	respol plugin --help >out &&
	grep "^Usage: respol plugin list \[--config=FILE\] \[--json\] \[-v\]$" out &&
	grep "^       respol plugin info \[--json\] FILE$" out &&
	grep "^  list " out &&
	grep "^  info " out
'
test_expect_success 'plugin -h is --help, also after a subcommand' '
	respol plugin --help >expected &&
	respol plugin -h >out &&
	test_cmp expected out &&
	respol plugin list -h >out &&
	test_cmp expected out &&
	respol plugin info --help >out &&
	test_cmp expected out
'
test_expect_success 'respol --help lists plugin' '
	respol --help >out &&
	grep "^  plugin " out
'
test_expect_success 'plugin without a subcommand is a usage error' '
	test_error 2 "respol: plugin: missing subcommand
Try '"'"'respol plugin --help'"'"' for more information." respol plugin
'
test_expect_success 'an unknown subcommand is a usage error' '
	test_error 2 "respol: plugin: unknown subcommand '"'"'show'"'"'
Try '"'"'respol plugin --help'"'"' for more information." respol plugin show
'
test_expect_success 'options before the subcommand are a usage error' '
	test_error 2 "respol: plugin: options come after the subcommand
Try '"'"'respol plugin --help'"'"' for more information." \
		respol plugin --json list
'
test_expect_success 'an unknown option is a usage error' '
	test_error 2 "respol: plugin: list: unknown option '"'"'--yaml'"'"'
Try '"'"'respol plugin --help'"'"' for more information." \
		respol plugin list --yaml
'
test_expect_success '--config requires an argument' '
	test_error 2 "respol: plugin: list: option '"'"'--config'"'"' requires an argument
Try '"'"'respol plugin --help'"'"' for more information." \
		respol plugin list --config
'
test_expect_success '--json takes no argument' '
	test_error 2 "respol: plugin: list: option '"'"'--json'"'"' takes no argument
Try '"'"'respol plugin --help'"'"' for more information." \
		respol plugin list --json=yes
'
test_expect_success 'list takes no argument' '
	test_error 2 "respol: plugin: list: unexpected argument '"'"'four.yaml'"'"'
Try '"'"'respol plugin --help'"'"' for more information." \
		respol plugin list four.yaml
'
test_expect_success 'info needs a FILE' '
	test_error 2 "respol: plugin: info: missing FILE argument
Try '"'"'respol plugin --help'"'"' for more information." respol plugin info
'
test_expect_success 'info takes one FILE' '
	test_error 2 "respol: plugin: info: unexpected argument '"'"'b.so'"'"'
Try '"'"'respol plugin --help'"'"' for more information." \
		respol plugin info a.so b.so
'
test_expect_success 'info does not take --config' '
	test_error 2 "respol: plugin: info: unknown option '"'"'--config'"'"'
Try '"'"'respol plugin --help'"'"' for more information." \
		respol plugin info --config=four.yaml "$FIX/good.so"
'

# info

test_expect_success 'info prints the descriptor of a plugin' '
	cat >expected <<-EOF &&
	name: strict-config
	kind: validate
	version: 2.1
	abi: 1
	description: rejects jobs with more than '"'"'limit'"'"' tasks (test fixture)
	file: $FIX/strict-config.so
	EOF
	respol plugin info "$FIX/strict-config.so" >out 2>err &&
	test_cmp expected out &&
	test_must_be_empty err
'
test_expect_success 'info does not run the plugin (init-fails is described)' '
	respol plugin info "$FIX/init-fails.so" >out &&
	grep "^name: init-fails$" out
'
test_expect_success 'info --json prints one object with sorted keys' '
	cat >expected <<-EOF &&
	{"abi":1,"description":"accepts every jobspec (test fixture)","file":"$FIX/good.so","kind":"validate","name":"good","version":"1.0"}
	EOF
	respol plugin info --json "$FIX/good.so" >out &&
	test_cmp expected out
'
test_expect_success 'info of a relative path shows the absolute path' '
	cp "$FIX/good.so" ./copy.so &&
	respol plugin info copy.so >out &&
	grep "^file: $(pwd -P)/copy.so$" out
'

test_plugin_error() {
	test_error 1 "respol: plugin: $FIX/$1.so: $2" \
		respol plugin info "$FIX/$1.so"
}

test_expect_success 'info: a missing file' '
	test_plugin_error none "No such file or directory"
'
test_expect_success 'info: wrong ABI version, with both versions' '
	test_plugin_error wrong-abi "plugin '"'"'wrong-abi'"'"' was built for ABI version 7, this respol has ABI version 1"
'
test_expect_success 'info: an unknown kind' '
	test_plugin_error wrong-kind "plugin '"'"'wrong-kind'"'"' has unknown kind 99"
'
test_expect_success 'info: no operations' '
	test_plugin_error no-ops "plugin '"'"'no-ops'"'"' has no operations"
'
test_expect_success 'info: no descriptor symbol' '
	test_plugin_error no-descriptor "no descriptor symbol '"'"'respol_plugin'"'"'"
'
test_expect_success 'info: an undefined symbol fails at load, not at the call' '
	test_plugin_error undefined-symbol "undefined symbol: rp_no_such_function"
'
test_expect_success 'info: not a shared object' '
	printf "%s\n" "This is a text file that was given a .so name by mistake." \
		"It is long enough to hold an ELF header." >text.so &&
	test_error 1 "respol: plugin: $(pwd -P)/text.so: not a shared object (invalid ELF header)" \
		respol plugin info text.so
'
# The refusals name the file and a directory above it, both absolute; an
# error text holds 255 bytes, so these tests run in a short directory of
# their own (below /tmp, which the loader accepts), whatever the length of
# the build tree's path.
SHORT=$(mktemp -d /tmp/rp.XXXXXX) || error "mktemp failed"
cd "$SHORT" || error "cd $SHORT failed"
test_expect_success 'info: a file writable by others is refused' '
	mkdir -p sec &&
	cp "$FIX/good.so" sec/good.so &&
	chmod o+w sec/good.so &&
	test_error 1 "respol: plugin: $(pwd -P)/sec/good.so: refusing to load: the file is writable by group or others (mode 0757): chmod go-w" \
		respol plugin info sec/good.so
'
test_expect_success 'info: a directory writable by others is refused' '
	chmod o-w sec/good.so &&
	chmod o+w sec &&
	test_error 1 "respol: plugin: $(pwd -P)/sec/good.so: refusing to load: its directory is writable by group or others (mode 0757): chmod go-w, or chmod +t if shared" \
		respol plugin info sec/good.so &&
	chmod o-w sec
'
test_expect_success 'info: a group-writable file is refused (group members are other users)' '
	chmod g+w sec/good.so &&
	test_when_finished "chmod g-w sec/good.so" &&
	test_error 1 "respol: plugin: $(pwd -P)/sec/good.so: refusing to load: the file is writable by group or others (mode 0775): chmod go-w" \
		respol plugin info sec/good.so
'
test_expect_success 'info: an ancestor directory writable by others is refused' '
	mkdir -p top/sub &&
	cp "$FIX/good.so" top/sub/good.so &&
	chmod 0777 top &&
	test_when_finished "chmod 0755 top" &&
	test_error 1 "respol: plugin: $(pwd -P)/top/sub/good.so: refusing to load: directory top above it is writable by group or others (mode 0777): chmod go-w, or chmod +t if shared" \
		respol plugin info top/sub/good.so
'
test_expect_success 'info: a symlink in a directory writable by others is refused' '
	mkdir -p open &&
	ln -s "$FIX/good.so" open/good.so &&
	respol plugin info open/good.so >/dev/null &&
	chmod 0777 open &&
	test_when_finished "chmod 0755 open" &&
	test_error 1 "respol: plugin: $(pwd -P)/open/good.so: refusing to load: its directory is writable by group or others (mode 0777): chmod go-w, or chmod +t if shared" \
		respol plugin info open/good.so
'
# A sticky directory (/tmp) may be writable by others: no one else can
# rename or replace the user's entry in it, so the path is safe when that
# entry is the user's (or root's).
test_expect_success 'info: a plugin below a sticky directory writable by others loads (as below /tmp)' '
	mkdir -p shared/mine &&
	cp "$FIX/good.so" shared/mine/good.so &&
	chmod 1777 shared &&
	respol plugin info shared/mine/good.so >out &&
	grep "^name: *good$" out
'
test_expect_success 'info: so does one in a sticky directory, and below a sticky group-writable one' '
	chmod 1775 shared &&
	respol plugin info shared/mine/good.so >/dev/null &&
	chmod 1777 shared/mine &&
	respol plugin info shared/mine/good.so >/dev/null &&
	chmod 0755 shared/mine
'
test_expect_success 'info: a directory writable by others without the sticky bit is still refused' '
	chmod 0777 shared &&
	test_when_finished "chmod 1777 shared" &&
	test_error 1 "respol: plugin: $(pwd -P)/shared/mine/good.so: refusing to load: directory shared above it is writable by group or others (mode 0777): chmod go-w, or chmod +t if shared" \
		respol plugin info shared/mine/good.so
'
if test "$(id -u)" = 0 && id nobody >/dev/null 2>&1; then
	test_set_prereq ROOT
fi
test_expect_success ROOT 'info: a directory of another user in a sticky directory is refused' '
	mkdir -p shared/theirs &&
	cp "$FIX/good.so" shared/theirs/good.so &&
	chown nobody shared/theirs &&
	test_error 1 "respol: plugin: $(pwd -P)/shared/theirs/good.so: refusing to load: theirs in sticky directory shared above it (mode 1777) is owned by uid $(id -u nobody), neither root nor the current user" \
		respol plugin info shared/theirs/good.so
'
test_expect_success ROOT 'info: a symlink of another user in a sticky directory is refused, though it leads to a safe plugin' '
	ln -s "$FIX/good.so" shared/link.so &&
	chown -h nobody shared/link.so &&
	chmod 1775 shared &&
	test_when_finished "chmod 1777 shared" &&
	test_error 1 "respol: plugin: $(pwd -P)/shared/link.so: refusing to load: link.so in its sticky directory (mode 1775) is owned by uid $(id -u nobody), neither root nor the current user" \
		respol plugin info shared/link.so
'
test_expect_success ROOT 'info: a sticky directory of another user is refused (its owner may rename what is in it)' '
	chown nobody shared &&
	test_when_finished "chown 0 shared" &&
	test_error 1 "respol: plugin: $(pwd -P)/shared/mine/good.so: refusing to load: directory shared above it is owned by uid $(id -u nobody), neither root nor the current user" \
		respol plugin info shared/mine/good.so
'
cd "$SHARNESS_TRASH_DIRECTORY" && rm -rf "$SHORT"
test_expect_success 'info: a constructor calling a missing function does not kill respol' '
	test_error 1 "respol: plugin: $FIX/ctor-undefined.so: undefined symbol: rp_ctor_no_such_function" \
		respol plugin info "$FIX/ctor-undefined.so"
'

# A host that opened librespol with RTLD_LOCAL (Python's ctypes, a
# flux-broker module): plugins still find rp_* and json_* (good.so calls
# rp_jobspec_queue and json_*, bound at load).
# A library built with the address sanitizer needs its runtime loaded
# first: preload it into python, and keep its leak check out of python's.
LIBRESPOL="$RESPOL_BUILDDIR/core/.libs/librespol.so"
ASANLIB=$(ldd "$LIBRESPOL" 2>/dev/null | sed -n "s/^[[:space:]]*libasan[^ ]* => \([^ ]*\).*/\1/p")
pyhost() {
	if test -n "$ASANLIB"; then
		LD_PRELOAD="$ASANLIB" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" python3 "$@"
	else
		python3 "$@"
	fi
}
if command -v python3 >/dev/null 2>&1 && test -r "$LIBRESPOL" &&
	pyhost -c "import ctypes, sys; ctypes.CDLL(sys.argv[1])" "$LIBRESPOL" 2>/dev/null; then
	test_set_prereq PYCTYPES
fi
test_expect_success PYCTYPES 'a host that loaded librespol RTLD_LOCAL loads a plugin' '
	cat >host.py <<-\EOF &&
	import ctypes, os, sys
	lib = ctypes.CDLL(sys.argv[1], mode=os.RTLD_LOCAL)
	lib.rp_plugin_inspect.restype = ctypes.c_void_p
	lib.rp_plugin_name.restype = ctypes.c_char_p
	lib.rp_plugin_name.argtypes = [ctypes.c_void_p]
	lib.rp_plugin_destroy.argtypes = [ctypes.c_void_p]
	error = ctypes.create_string_buffer(65536)
	p = lib.rp_plugin_inspect(sys.argv[2].encode(), error)
	if not p:
	    sys.exit(error.value.decode())
	print(lib.rp_plugin_name(p).decode())
	lib.rp_plugin_destroy(p)
	EOF
	pyhost host.py "$LIBRESPOL" "$FIX/good.so" >out &&
	echo good >expected &&
	test_cmp expected out
'

# list

test_expect_success 'list prints a table of the instances in stack order' '
	cat >expected <<-EOF &&
	KIND NAME VERSION ABI FILE DESCRIPTION
	validate good 1.0 1 $FIX/good.so accepts every jobspec (test fixture)
	validate second 1.0 1 $FIX/good.so accepts every jobspec (test fixture)
	validate strict-config 2.1 1 $FIX/strict-config.so rejects jobs with more than '"'"'limit'"'"' tasks (test fixture)
	validate warn-all 1.0 1 $FIX/warn-all.so warns twice and sets the queue (test fixture)
	EOF
	respol plugin list --config=four.yaml >out 2>err &&
	test_must_be_empty err &&
	sed "s/   */ /g; s/  / /g" out >squeezed &&
	test_cmp expected squeezed
'
test_expect_success 'the columns are aligned' '
	head -1 out | awk "{ print index(\$0, \"FILE\") }" >want &&
	awk "NR > 1 { print index(\$0, \"/\") }" out | sort -u >got &&
	test_cmp want got &&
	head -1 out | awk "{ print index(\$0, \"ABI\") }" >want &&
	awk "NR > 1 { print index(\$0, \" 1 \") + 1 }" out | sort -u >got &&
	test_cmp want got
'
test_expect_success 'list reads $RESPOL_CONFIG without --config' '
	RESPOL_CONFIG=four.yaml respol plugin list >out2 &&
	test_cmp out out2
'
test_expect_success 'list --json prints an array with sorted keys' '
	cat >expected <<-EOF &&
	[{"abi":1,"description":"accepts every jobspec (test fixture)","file":"$FIX/good.so","instance":"good","kind":"validate","name":"good","version":"1.0"},{"abi":1,"description":"accepts every jobspec (test fixture)","file":"$FIX/good.so","instance":"second","kind":"validate","name":"good","version":"1.0"},{"abi":1,"description":"rejects jobs with more than '"'"'limit'"'"' tasks (test fixture)","file":"$FIX/strict-config.so","instance":"strict-config","kind":"validate","name":"strict-config","version":"2.1"},{"abi":1,"description":"warns twice and sets the queue (test fixture)","file":"$FIX/warn-all.so","instance":"warn-all","kind":"validate","name":"warn-all","version":"1.0"}]
	EOF
	respol plugin list --json --config=four.yaml >out &&
	test_cmp expected out
'
test_expect_success 'the same plugin twice without names: good and good#2' '
	cat >twice.yaml <<-EOF &&
	validate:
	  - plugin: "$FIX/good.so"
	  - plugin: "$FIX/good.so"
	EOF
	respol plugin list --config=twice.yaml >out &&
	awk "NR > 1 { print \$2 }" out >names &&
	printf "good\ngood#2\n" >expected &&
	test_cmp expected names
'
test_expect_success 'an empty configuration lists only the header' '
	: >empty.yaml &&
	respol plugin list --config=empty.yaml >out &&
	echo "KIND  NAME  VERSION  ABI  FILE  DESCRIPTION" >expected &&
	test_cmp expected out &&
	respol plugin list --json --config=empty.yaml >out &&
	echo "[]" >expected &&
	test_cmp expected out
'
test_expect_success 'list: a configuration that does not load is an error' '
	cat >bad.yaml <<-EOF &&
	validate:
	  - plugin: "$FIX/wrong-abi.so"
	  - plugin: "$FIX/no-ops.so"
	EOF
	cat >expected <<-EOF &&
	respol: plugin: bad.yaml:2:13: validate[0]: $FIX/wrong-abi.so: plugin '"'"'wrong-abi'"'"' was built for ABI version 7, this respol has ABI version 1
	respol: plugin: bad.yaml:3:13: validate[1]: $FIX/no-ops.so: plugin '"'"'no-ops'"'"' has no operations
	EOF
	test_expect_code 1 respol plugin list --config=bad.yaml >out 2>err &&
	test_must_be_empty out &&
	test_cmp expected err
'
test_expect_success 'list: a missing configuration file is an error' '
	test_error 1 "respol: plugin: configuration none.yaml: No such file or directory" \
		respol plugin list --config=none.yaml
'
test_expect_success 'list: warnings about $RESPOL_PLUGIN_PATH' '
	cat >byname.yaml <<-EOF &&
	validate:
	  - plugin: good
	EOF
	RESPOL_PLUGIN_PATH="rel:$FIX" respol plugin list --config=byname.yaml \
		>out 2>err &&
	echo "respol: plugin: warning: RESPOL_PLUGIN_PATH: ignoring relative directory '"'"'rel'"'"'" >expected &&
	test_cmp expected err &&
	grep "^validate  good " out
'
test_expect_success 'list: what plugins log below warning is not printed' '
	RESPOL_PLUGIN_PATH="$FIX" respol plugin list --config=byname.yaml \
		>out 2>err &&
	test_must_be_empty err
'

# End to end: make install into a directory below a sticky directory that
# others may write, as into one made with mktemp -d under /tmp (the test
# makes its own, so as not to depend on /tmp).  A staged install
# (DESTDIR): overriding prefix on the command line would regenerate the
# build tree's compiled-in paths (core/paths.h) under the other tests.  The
# installed respol was built for the configured prefix, so it is told where
# its library, configuration and plugins are; the file checks are the
# same.  Next to the trash directory, whose name has a space that make
# install cannot take.
test -f "$RESPOL_BUILDDIR/Makefile" && command -v make >/dev/null &&
	test_set_prereq INSTALL
STICKY="$(dirname "$SHARNESS_TRASH_DIRECTORY")/respol-sticky-t0020.$$"
irespol() {
	LD_LIBRARY_PATH="$LIB" RESPOL_CONFIG="$CONF" \
		RESPOL_PLUGIN_PATH="$PLUGINS" "$BIN" "$@"
}
test_expect_success INSTALL 'install: make install below a sticky directory writable by others' '
	mkdir "$STICKY" &&
	chmod 1777 "$STICKY" &&
	mkdir -m 0755 "$STICKY/stage" &&
	(
		unset MAKEFLAGS MFLAGS MAKELEVEL TESTS
		make -C "$RESPOL_BUILDDIR" install DESTDIR="$STICKY/stage"
	) >install.log 2>&1 &&
	BIN=$(find "$STICKY/stage" -path "*/bin/respol") &&
	test -x "$BIN" &&
	LIB=$(dirname "$(find "$STICKY/stage" -name librespol.so)") &&
	PLUGINS=$(dirname "$(find "$STICKY/stage" -path "*/respol/plugins/locality.so")") &&
	CONF=$(find "$STICKY/stage" -path "*/respol/respol.yaml" ! -path "*/examples/*") &&
	test -f "$CONF"
'
test_expect_success INSTALL 'install: respol config check reads the installed configuration' '
	irespol config check >out &&
	echo "$CONF: ok: 3 plugins loaded, checked and initialised with their configuration blocks (shell: cpu-affinity, gpu-affinity, openmp); no jobspec was run through them" >expected &&
	test_cmp expected out
'
test_expect_success INSTALL 'install: respol plugin info reads an installed plugin' '
	irespol plugin info "$PLUGINS/first.so" >out &&
	grep "^name: *first$" out
'
test_expect_success INSTALL 'install: a site configuration there runs an installed validator' '
	cat >"$CONF" <<-EOF &&
	plugin-path: ["$PLUGINS"]
	validate:
	  - plugin: require-duration
	    config: {max: 1h}
	EOF
	irespol jobspec create -N2 -n4 -c2 -t 30m -- app >job.yaml &&
	irespol jobspec validate job.yaml &&
	irespol jobspec create -N2 -n4 -c2 -t 2h -- app >long.yaml &&
	test_expect_code 1 irespol jobspec validate long.yaml 2>err &&
	grep "require-duration" err
'
test_expect_success INSTALL 'install: respol match runs an installed policy' '
	irespol match allocate --policy=locality \
		--generate=nodes=4,sockets=2,cores=8,gpus=2 job.yaml >R.json &&
	irespol R decode --short <R.json >out &&
	echo "rank[0-1]/core[0-3]" >expected &&
	test_cmp expected out
'
rm -rf "$STICKY"

test_done
