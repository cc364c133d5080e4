#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='a plugin that crashes is named before the process dies

The fixture plugins crash (a validator) and crash-match (a match policy)
die of the signal their block asks for, in the operation it names.  The
library names the plugin, its file and the operation on stderr, then the
signal takes its course: the command dies of it, exit status 128 + the
signal.  In a build with AddressSanitizer, whose handler was there first,
the library chains to it: the plugin is named, then the sanitizer reports
(and exits 1) for the signals it handles (SIGSEGV, SIGBUS, SIGFPE).'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

ulimit -c 0
FIX="$RESPOL_FIXTURE_PLUGINDIR"
if ldd "$RESPOL_BUILDDIR/core/.libs/librespol.so" 2>/dev/null | grep -q libasan; then
	test_set_prereq ASAN
fi

# crash_config FILE STACK PLUGIN OP SIGNAL
crash_config() {
	printf "plugin-path: [%s]\n%s:\n  - plugin: %s\n    config: {in: %s, signal: %s}\n" \
		"$FIX" "$2" "$3" "$4" "$5" >"$1"
}

# expect_crash STATUS WORDS PLUGIN OP command...: the first line of stderr
# names the plugin (its file: $_file.so, else PLUGIN.so), the operation
# and the signal (WORDS), and the command
# died of the signal (STATUS); under AddressSanitizer, for the signals it
# handles, its report follows and the status is 1.
expect_crash() {
	_status=$1 _words=$2 _plugin=$3 _op=$4
	shift 4
	"$@" >out 2>err
	_rc=$?
	echo "respol: plugin '$_plugin' ($FIX/${_file:-$_plugin}.so) crashed in $_op: $_words" >expected &&
	head -n 1 err >first &&
	test_cmp expected first || return 1
	if test_have_prereq ASAN && test "$_status" -ne 132 && test "$_status" -ne 134; then
		grep -q "AddressSanitizer" err && test "$_rc" = 1
	else
		test "$_rc" = "$_status" || { echo "exit status $_rc, expected $_status"; cat err; return 1; }
	fi
}

test_expect_success 'setup' '
	respol jobspec create -n1 hostname >job.yaml
'

# signal name, exit status, the words after "crashed in OP: "
while read sig status words; do
	test_expect_success "$sig in validate: named, then the process dies of it ($status)" '
		crash_config c.yaml validate crash validate $sig &&
		expect_crash $status "$words" crash validate \
			respol jobspec validate --config=c.yaml job.yaml
	'
	test_expect_success "$sig in score: named, then the process dies of it ($status)" '
		crash_config m.yaml match crash-match score $sig &&
		expect_crash $status "$words" crash-match score \
			respol match allocate --config=m.yaml --generate=nodes=2,cores=2 job.yaml
	'
	test_expect_success "$sig in init: named, then the process dies of it ($status)" '
		crash_config i.yaml validate crash init $sig &&
		expect_crash $status "$words" crash init respol config check i.yaml
	'
done <<-\EOF
segv 139 Segmentation fault
bus 135 Bus error
fpe 136 Floating point exception
ill 132 Illegal instruction
abort 134 Aborted
stack 139 Segmentation fault
EOF

test_expect_success 'a crash in prune, order_candidates or fini is named too' '
	for op in prune order_candidates fini; do
		crash_config m.yaml match crash-match $op segv &&
		expect_crash 139 "Segmentation fault" crash-match $op \
			respol match allocate --config=m.yaml --generate=nodes=2,cores=2 job.yaml ||
		return 1
	done &&
	crash_config c.yaml validate crash fini abort &&
	expect_crash 134 Aborted crash fini \
		respol jobspec validate --config=c.yaml job.yaml
'
test_expect_success 'respol query and respol plugin list name a crash too' '
	crash_config m.yaml match crash-match score abort &&
	echo "match allocate job.yaml" >cmds &&
	expect_crash 134 Aborted crash-match score \
		respol query --config=m.yaml --generate=nodes=2,cores=2 -f cmds &&
	crash_config i.yaml validate crash init abort &&
	expect_crash 134 Aborted crash init respol plugin list --config=i.yaml
'
test_expect_success 'the instance name is the one named' '
	printf "plugin-path: [%s]\nvalidate:\n  - plugin: crash\n    name: site\n    config: {in: validate, signal: abort}\n" \
		"$FIX" >named.yaml &&
	_file=crash expect_crash 134 Aborted site validate \
		respol jobspec validate --config=named.yaml job.yaml
'
test_expect_success 'config check runs no jobspec: a plugin that crashes in validate passes, and the line says so' '
	crash_config c.yaml validate crash validate segv &&
	respol config check c.yaml >out &&
	echo "c.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (validate: crash); no jobspec was run through it" >expected &&
	test_cmp expected out
'
test_expect_success 'a plugin that does not crash is not named' '
	crash_config c.yaml validate crash init none &&
	respol jobspec validate --config=c.yaml job.yaml 2>err &&
	test_must_be_empty err
'

test_done
