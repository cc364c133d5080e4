#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol config check: a configuration with its plugins
and their blocks; every error with file:line:col; all-or-nothing loading;
the search path; bad usage'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

FIX="$RESPOL_FIXTURE_PLUGINDIR"
PLUGINDIR=$(respol plugin --help |
	sed -n "s/.*RESPOL_PLUGIN_PATH, then \(.*\)\.$/\1/p")
DEFAULT=$(respol config --help | sed -n "s/^ *\(\/.*respol.yaml\))$/\1/p")

# Usage

test_expect_success 'the installed directories are known to the tests' '
	test -n "$PLUGINDIR" &&
	test -n "$DEFAULT"
'
test_expect_success 'config --help prints the usage on stdout' '
	respol config --help >out &&
	grep "^Usage: respol config check \[-v|--verbose\]... \[FILE\]$" out &&
	grep "^  check " out &&
	respol config check -h >out2 &&
	test_cmp out out2
'
test_expect_success 'respol --help lists config' '
	respol --help >out &&
	grep "^  config " out
'
test_expect_success 'config without a subcommand is a usage error' '
	test_error 2 "respol: config: missing subcommand
Try '"'"'respol config --help'"'"' for more information." respol config
'
test_expect_success 'an unknown subcommand is a usage error' '
	test_error 2 "respol: config: unknown subcommand '"'"'lint'"'"'
Try '"'"'respol config --help'"'"' for more information." respol config lint
'
test_expect_success 'check takes at most one FILE' '
	test_error 2 "respol: config: check: unexpected argument '"'"'b.yaml'"'"'
Try '"'"'respol config --help'"'"' for more information." \
		respol config check a.yaml b.yaml
'
test_expect_success 'an unknown option is a usage error' '
	test_error 2 "respol: config: check: unknown option '"'"'-x'"'"'
Try '"'"'respol config --help'"'"' for more information." \
		respol config check -x a.yaml
'

# Success

test_expect_success 'a configuration that loads: ok, with its instances' '
	cat >respol.yaml <<-EOF &&
	# a site configuration
	plugin-path: ["$FIX"]
	validate:
	  - plugin: good
	  - plugin: good
	  - plugin: strict-config
	    name: limit-8
	    config:
	      limit: 8
	EOF
	respol config check respol.yaml >out 2>err &&
	echo "respol.yaml: ok: 3 plugins loaded, checked and initialised with their configuration blocks (validate: good, good#2, limit-8); no jobspec was run through them" >expected &&
	test_cmp expected out &&
	test_must_be_empty err
'
test_expect_success 'one plugin is singular' '
	cat >one.yaml <<-EOF &&
	validate: [{plugin: "$FIX/warn-all.so"}]
	EOF
	respol config check one.yaml >out &&
	echo "one.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (validate: warn-all); no jobspec was run through it" >expected &&
	test_cmp expected out
'
test_expect_success 'an empty or comment-only file is the empty configuration' '
	: >empty.yaml &&
	printf "# nothing configured yet\n\n" >comments.yaml &&
	respol config check empty.yaml >out &&
	respol config check comments.yaml >>out &&
	printf "%s\n" "empty.yaml: ok: no plugins configured" "comments.yaml: ok: no plugins configured" >expected &&
	test_cmp expected out
'
test_expect_success 'without FILE, $RESPOL_CONFIG is checked' '
	RESPOL_CONFIG=one.yaml respol config check >out &&
	echo "one.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (validate: warn-all); no jobspec was run through it" >expected &&
	test_cmp expected out
'
# The build tree's own command reads the source tree's configuration and
# finds the build tree's shipped plugins, as it would once installed; the
# installed command never looks there (t0024).
test_expect_success 'run from the build tree, the default is the source tree conf/respol.yaml' '
	test "$DEFAULT" = "$RESPOL_SRCDIR/conf/respol.yaml" &&
	env -u RESPOL_CONFIG respol config check >out &&
	echo "$RESPOL_SRCDIR/conf/respol.yaml: ok: 3 plugins loaded, checked and initialised with their configuration blocks (shell: cpu-affinity, gpu-affinity, openmp); no jobspec was run through them" >expected &&
	test_cmp expected out
'
test_expect_success 'run from the build tree, the shipped plugins are searched in the build tree' '
	echo "$RESPOL_BUILDDIR/plugins/built" >expected &&
	echo "$PLUGINDIR" >actual &&
	test_cmp expected actual &&
	cat >shipped.yaml <<-\EOF &&
	validate: [{plugin: require-duration}]
	match: [{plugin: locality}]
	EOF
	env -u RESPOL_PLUGIN_PATH respol config check shipped.yaml >out &&
	echo "shipped.yaml: ok: 2 plugins loaded, checked and initialised with their configuration blocks (validate: require-duration; match: locality); no jobspec was run through them" >expected &&
	test_cmp expected out
'
test_expect_success 'a directory is not an empty configuration' '
	mkdir confdir &&
	test_error 1 "respol: config: configuration confdir: not a regular file (a directory)" \
		respol config check confdir
'

# Only a regular file is read, opened once: anything else is refused
# before it is opened.  Under timeout, so that a FIFO whose open waits for
# a writer fails the test rather than hanging it.
test_expect_success 'a FIFO is refused at once, not opened' '
	mkfifo c.fifo &&
	test_error 1 "respol: config: configuration c.fifo: not a regular file (a FIFO)" \
		timeout 10 respol config check c.fifo
'
test_expect_success 'a FIFO in $RESPOL_CONFIG too (jobspec validate, match)' '
	RESPOL_CONFIG=c.fifo test_error 1 "respol: jobspec: configuration c.fifo: not a regular file (a FIFO)" \
		timeout 10 respol jobspec validate "$RESPOL_DATA/jobspec/v1.yaml" &&
	RESPOL_CONFIG=c.fifo test_error 1 "respol: match: configuration c.fifo: not a regular file (a FIFO)" \
		timeout 10 respol match allocate --generate=nodes=1 "$RESPOL_DATA/jobspec/v1.yaml"
'
test_expect_success 'a character device (/dev/zero) is refused, not read' '
	test_error 1 "respol: config: configuration /dev/zero: not a regular file (a character device)" \
		timeout 10 respol config check /dev/zero
'
test_expect_success '/dev/null is the empty configuration, by that name only' '
	respol config check /dev/null >out &&
	echo "/dev/null: ok: no plugins configured" >expected &&
	test_cmp expected out &&
	ln -s /dev/null null.yaml &&
	test_error 1 "respol: config: configuration null.yaml: not a regular file (a character device)" \
		respol config check null.yaml
'
command -v python3 >/dev/null 2>&1 && test_set_prereq PYTHON
test_expect_success PYTHON 'a socket is refused' '
	python3 -c "import socket; socket.socket(socket.AF_UNIX).bind(\"c.sock\")" &&
	test_error 1 "respol: config: configuration c.sock: not a regular file (a socket)" \
		timeout 10 respol config check c.sock
'
test_expect_success '--verbose prints what plugins log (good logs its block)' '
	cat >block.yaml <<-EOF &&
	validate:
	  - plugin: "$FIX/good.so"
	    config: {b: [1, 2], a: x}
	EOF
	respol config check --verbose block.yaml >out 2>err &&
	echo "respol: config: good: info: config {\"a\":\"x\",\"b\":[1,2]}" >expected &&
	test_cmp expected err &&
	respol config check block.yaml >out 2>err &&
	test_must_be_empty err
'

# Errors

test_expect_success 'a misspelt top-level key is named with its position' '
	printf "plugin-path: []\nvaldiate:\n  - plugin: good\n" >typo.yaml &&
	test_error 1 "respol: config: typo.yaml:2:1: unknown key '"'"'valdiate'"'"'; did you mean '"'"'validate'"'"'?" \
		respol config check typo.yaml
'
test_expect_success 'a missing file' '
	test_error 1 "respol: config: configuration none.yaml: No such file or directory" \
		respol config check none.yaml
'
test_expect_success 'a YAML error' '
	printf "validate: [\n" >broken.yaml &&
	test_expect_code 1 respol config check broken.yaml 2>err &&
	grep "^respol: config: broken.yaml:" err
'
test_expect_success 'every error of the file, in order, and nothing is loaded' '
	cat >many.yaml <<-EOF &&
	plugin-path: relative
	allow-insecure-path: maybe
	validate:
	  - plugin: lib/x.so
	    confg: {}
	  - plugin: good
	    name: "not valid"
	  - plugin: "$FIX/good.so"
	    config: [1]
	property:
	  - plugin: best-fit
	    nme: x
	EOF
	cat >expected <<-EOF &&
	respol: config: many.yaml:1:14: plugin-path must be a list of absolute directories
	respol: config: many.yaml:2:22: allow-insecure-path must be true or false
	respol: config: many.yaml:4:13: validate[0]: plugin path '"'"'lib/x.so'"'"' is relative (use a name or an absolute path)
	respol: config: many.yaml:5:5: validate[0]: unknown key '"'"'confg'"'"'; did you mean '"'"'config'"'"'?
	respol: config: many.yaml:7:11: validate[1]: invalid instance name '"'"'not valid'"'"' (letters, digits, '"'"'-'"'"' and '"'"'_'"'"', 1-64 bytes)
	respol: config: many.yaml:9:13: validate[2]: '"'"'config'"'"' must be a mapping
	respol: config: many.yaml:12:5: property[0]: unknown key '"'"'nme'"'"'; did you mean '"'"'name'"'"'?
	EOF
	test_expect_code 1 respol config check many.yaml >out 2>err &&
	test_must_be_empty out &&
	test_cmp expected err
'
test_expect_success 'every failing plugin is reported, one message each' '
	cat >plugins.yaml <<-EOF &&
	plugin-path: ["$FIX"]
	validate:
	  - plugin: wrong-abi
	  - plugin: wrong-kind
	  - plugin: property-fixture
	  - plugin: no-ops
	  - plugin: no-descriptor
	  - plugin: undefined-symbol
	  - plugin: init-fails
	  - plugin: missing
	  - plugin: good
	EOF
	cat >expected <<-EOF &&
	respol: config: plugins.yaml:3:13: validate[0]: $FIX/wrong-abi.so: plugin '"'"'wrong-abi'"'"' was built for ABI version 7, this respol has ABI version 1
	respol: config: plugins.yaml:4:13: validate[1]: $FIX/wrong-kind.so: plugin '"'"'wrong-kind'"'"' has unknown kind 99
	respol: config: plugins.yaml:5:13: validate[2]: $FIX/property-fixture.so: plugin '"'"'property-fixture'"'"' is a property plugin, configured in the validate stack
	respol: config: plugins.yaml:6:13: validate[3]: $FIX/no-ops.so: plugin '"'"'no-ops'"'"' has no operations
	respol: config: plugins.yaml:7:13: validate[4]: $FIX/no-descriptor.so: no descriptor symbol '"'"'respol_plugin'"'"'
	respol: config: plugins.yaml:8:13: validate[5]: $FIX/undefined-symbol.so: undefined symbol: rp_no_such_function
	respol: config: plugins.yaml:9:5: validate[6] '"'"'init-fails'"'"': init failed: init failed on purpose
	respol: config: plugins.yaml:10:13: validate[7]: plugin '"'"'missing'"'"' not found in $FIX:$PLUGINDIR
	EOF
	test_expect_code 1 respol config check plugins.yaml >out 2>err &&
	test_must_be_empty out &&
	test_cmp expected err
'
test_expect_success 'a bad configuration block: the plugin'"'"'s message at the block' '
	cat >block.yaml <<-EOF &&
	plugin-path: ["$FIX"]
	validate:
	  - plugin: strict-config
	    config: {limit: 4}
	  - plugin: strict-config
	    config:
	      limit: 4
	      limt: 5
	  - plugin: strict-config
	    name: zero
	    config: {limit: 0}
	  - plugin: reject-all
	    config: {strict: true}
	EOF
	cat >expected <<-EOF &&
	respol: config: block.yaml:7:7: validate[1] '"'"'strict-config#2'"'"': init failed: unknown key '"'"'limt'"'"'
	respol: config: block.yaml:11:13: validate[2] '"'"'zero'"'"': init failed: '"'"'limit'"'"' must be an integer > 0
	respol: config: block.yaml:13:13: validate[3] '"'"'reject-all'"'"': takes no configuration (the plugin has no init)
	EOF
	test_expect_code 1 respol config check block.yaml 2>err &&
	test_cmp expected err
'
test_expect_success 'all or nothing: the instances loaded before a failure are finalised' '
	cat >aon.yaml <<-EOF &&
	plugin-path: ["$FIX"]
	validate:
	  - plugin: good
	    config: {log: log}
	  - plugin: good
	    name: other
	    config: {log: log}
	  - plugin: init-fails
	EOF
	test_expect_code 1 respol config check aon.yaml 2>err &&
	printf "%s\n" "init good" "init other" "fini other" "fini good" >expected &&
	test_cmp expected log
'
test_expect_success 'a successful check also finalises everything' '
	rm -f log &&
	head -7 aon.yaml >ok.yaml &&
	respol config check ok.yaml &&
	printf "%s\n" "init good" "init other" "fini other" "fini good" >expected &&
	test_cmp expected log
'

# The search path, and security: the messages name absolute paths (plugin
# files, search directories, directories above them), and an error text
# holds 255 bytes, so these tests run in a short directory of their own
# (below /tmp, which the loader accepts), whatever the length of the build
# tree's path.
SHORT=$(mktemp -d /tmp/rp.XXXXXX) || error "mktemp failed"
cd "$SHORT" || error "cd $SHORT failed"

# The search path

test_expect_success 'search: plugin-path, then $RESPOL_PLUGIN_PATH, then installed' '
	mkdir -p first second &&
	cp "$FIX/good.so" first/ &&
	cp "$FIX/good.so" second/ &&
	cat >search.yaml <<-EOF &&
	plugin-path: ["$(pwd -P)/first"]
	validate: [{plugin: good}, {plugin: nowhere}]
	EOF
	cat >expected <<-EOF &&
	respol: config: search.yaml:2:37: validate[1]: plugin '"'"'nowhere'"'"' not found in $(pwd -P)/first:$(pwd -P)/second:$PLUGINDIR
	EOF
	RESPOL_PLUGIN_PATH="$(pwd -P)/second" \
		test_expect_code 1 respol config check search.yaml 2>err &&
	test_cmp expected err
'
test_expect_success 'search: the first directory that has the plugin wins' '
	head -1 search.yaml >first.yaml &&
	echo "validate: [{plugin: good}]" >>first.yaml &&
	RESPOL_PLUGIN_PATH="$(pwd -P)/second" \
		respol plugin list --config=first.yaml >out &&
	grep " $(pwd -P)/first/good.so " out
'
test_expect_success 'search: the current directory is never searched' '
	cp "$FIX/good.so" ./good.so &&
	echo "validate: [{plugin: good}]" >cwd.yaml &&
	test_error 1 "respol: config: cwd.yaml:1:21: validate[0]: plugin '"'"'good'"'"' not found in $PLUGINDIR" \
		respol config check cwd.yaml
'
test_expect_success 'search: empty and relative $RESPOL_PLUGIN_PATH entries are ignored, with a warning' '
	cat >expected <<-EOF &&
	respol: config: warning: RESPOL_PLUGIN_PATH: ignoring an empty entry
	respol: config: warning: RESPOL_PLUGIN_PATH: ignoring relative directory '"'"'.'"'"'
	respol: config: cwd.yaml:1:21: validate[0]: plugin '"'"'good'"'"' not found in $PLUGINDIR
	EOF
	RESPOL_PLUGIN_PATH=":." test_expect_code 1 respol config check cwd.yaml 2>err &&
	test_cmp expected err
'
test_expect_success 'search: a directory named NAME.so stops the search (not a regular file)' '
	mkdir -p shadow/good.so &&
	cat >shadow.yaml <<-EOF &&
	plugin-path: ["$(pwd -P)/shadow", "$(pwd -P)/first"]
	validate: [{plugin: good}]
	EOF
	test_error 1 "respol: config: shadow.yaml:2:21: validate[0]: $(pwd -P)/shadow/good.so: not a regular file (a directory)" \
		respol config check shadow.yaml
'
test_expect_success 'search: so does a dangling symlink NAME.so (one rule)' '
	rmdir shadow/good.so &&
	ln -s "$(pwd -P)/nowhere.so" shadow/good.so &&
	test_error 1 "respol: config: shadow.yaml:2:21: validate[0]: $(pwd -P)/shadow/good.so: No such file or directory" \
		respol config check shadow.yaml
'

# Security

test_expect_success 'a plugin writable by others is refused' '
	chmod o+w second/good.so &&
	cat >insecure.yaml <<-EOF &&
	validate:
	  - plugin: "$(pwd -P)/second/good.so"
	EOF
	test_error 1 "respol: config: insecure.yaml:2:13: validate[0]: $(pwd -P)/second/good.so: refusing to load: the file is writable by group or others (mode 0757): chmod go-w" \
		respol config check insecure.yaml
'
test_expect_success 'unless the configuration says allow-insecure-path: true' '
	echo "allow-insecure-path: true" >>insecure.yaml &&
	respol config check insecure.yaml >out &&
	echo "insecure.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (validate: good); no jobspec was run through it" >expected &&
	test_cmp expected out &&
	chmod o-w second/good.so
'
test_expect_success 'a plugin in a directory writable by others is refused' '
	chmod o+w second &&
	test_when_finished "chmod o-w second" &&
	sed "/allow-insecure-path/d" insecure.yaml >insecure2.yaml &&
	test_error 1 "respol: config: insecure2.yaml:2:13: validate[0]: $(pwd -P)/second/good.so: refusing to load: its directory is writable by group or others (mode 0757): chmod go-w, or chmod +t if shared" \
		respol config check insecure2.yaml
'
test_expect_success 'a configuration writable by others is refused, allow-insecure-path or not' '
	chmod o+w insecure.yaml &&
	test_when_finished "chmod o-w insecure.yaml" &&
	test_error 1 "respol: config: configuration insecure.yaml: refusing to read: the file is writable by group or others (mode 0646): chmod go-w" \
		respol config check insecure.yaml
'
test_expect_success 'a group-writable configuration is refused, also from $RESPOL_CONFIG' '
	chmod g+w insecure2.yaml &&
	test_when_finished "chmod g-w insecure2.yaml" &&
	RESPOL_CONFIG=insecure2.yaml test_error 1 "respol: plugin: configuration insecure2.yaml: refusing to read: the file is writable by group or others (mode 0664): chmod go-w" \
		respol plugin list
'
test_expect_success 'a configuration below a directory writable by others is refused' '
	mkdir -p cfgdir &&
	cp insecure2.yaml cfgdir/c.yaml &&
	chmod 0777 cfgdir &&
	test_when_finished "chmod 0755 cfgdir" &&
	test_error 1 "respol: config: configuration cfgdir/c.yaml: refusing to read: directory $(pwd -P)/cfgdir is writable by group or others (mode 0777): chmod go-w, or chmod +t if shared" \
		respol config check cfgdir/c.yaml
'
if test "$(id -u)" = 0 && id nobody >/dev/null 2>&1; then
	test_set_prereq ROOT
fi
test_expect_success ROOT 'a plugin owned by another user is refused' '
	chown nobody second/good.so &&
	test_when_finished "chown 0 second/good.so" &&
	test_error 1 "respol: config: insecure2.yaml:2:13: validate[0]: $(pwd -P)/second/good.so: refusing to load: the file is owned by uid $(id -u nobody), neither root nor the current user" \
		respol config check insecure2.yaml
'
test_expect_success 'a configuration below a sticky directory writable by others loads (as under /tmp)' '
	mkdir -p sticky/etc &&
	cp insecure2.yaml sticky/etc/c.yaml &&
	chmod 1777 sticky &&
	respol config check sticky/etc/c.yaml >out &&
	echo "sticky/etc/c.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (validate: good); no jobspec was run through it" >expected &&
	test_cmp expected out
'
test_expect_success ROOT 'a configuration of another user in a sticky directory is refused' '
	cp insecure2.yaml sticky/theirs.yaml &&
	chown nobody sticky/theirs.yaml &&
	test_error 1 "respol: config: configuration sticky/theirs.yaml: refusing to read: theirs.yaml in sticky directory $(pwd -P)/sticky (mode 1777) is owned by uid $(id -u nobody), neither root nor the current user" \
		respol config check sticky/theirs.yaml
'

cd "$SHARNESS_TRASH_DIRECTORY" && rm -rf "$SHORT"
test_done
