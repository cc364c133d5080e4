# SPDX-License-Identifier: LGPL-3.0-or-later
# Sourced by every sharness test after setting test_description:
#   . "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"
# Finds sharness.sh (configure's choice, else Debian's), puts the built
# respol first in PATH, and exports the source and data directories.

: "${SHARNESS_TEST_SRCDIR:=$(cd "$(dirname "$0")" && pwd)}"
: "${RESPOL_SRCDIR:=$(cd "$SHARNESS_TEST_SRCDIR/.." && pwd)}"
: "${RESPOL_BUILDDIR:=$RESPOL_SRCDIR}"
: "${SHARNESS:=/usr/share/sharness/sharness.sh}"
: "${SHARNESS_BUILD_DIRECTORY:=$RESPOL_BUILDDIR/core}"
export SHARNESS_TEST_SRCDIR RESPOL_SRCDIR RESPOL_BUILDDIR SHARNESS_BUILD_DIRECTORY

# The plugin loader refuses a plugin or configuration below a directory
# that is not owned by root or the user, or is writable by group or others
# without the sticky bit (core/plugin.c; /tmp passes, a 0777 directory does
# not).  When the build tree is below such a directory, the trash
# directories go under $HOME/.respol-test/TREE instead, and the plugins the
# tests load are copied there (after sharness starts).
umask 022
respol_dir_safe() {
	_d=$(cd -P "$1" 2>/dev/null && pwd) || return 1
	while :; do
		_s=$(stat -L -c '%u %a' "$_d") || return 1
		test "${_s% *}" = 0 || test "${_s% *}" = "$(id -u)" || return 1
		test $((0${_s#* } & 022)) = 0 || test $((0${_s#* } & 01000)) != 0 ||
			return 1
		test "$_d" = / && return 0
		_d=$(dirname "$_d")
	done
}
respol_copy_plugins=
if ! respol_dir_safe "${SHARNESS_TEST_DIRECTORY:-.}" &&
	test -n "$HOME" && respol_dir_safe "$HOME"; then
	# One directory per build tree, so that two test suites run at once
	# from different trees do not share trash directories.
	_tree=$(printf '%s' "$(cd "${SHARNESS_TEST_DIRECTORY:-.}" && pwd)" |
		cksum | cut -d' ' -f1)
	mkdir -p -m 0755 "$HOME/.respol-test/$_tree" &&
		root="$HOME/.respol-test/$_tree" && respol_copy_plugins=t
fi

if ! test -r "$SHARNESS"; then
	echo "1..0 # SKIP sharness.sh not found (apt-get install sharness)"
	exit 0
fi
. "$SHARNESS"

if test -n "$respol_copy_plugins"; then
	for _v in RESPOL_FIXTURE_PLUGINDIR RESPOL_BUILD_PLUGINDIR RESPOL_BUILD_MATCHDIR \
		RESPOL_BUILD_SHELLDIR; do
		eval "_from=\${$_v:-}"
		test -d "$_from" || continue
		_to="$SHARNESS_TRASH_DIRECTORY/.plugins/$_v"
		mkdir -p "$_to" && cp "$_from"/*.so "$_to"/ || exit 1
		eval "$_v=\$_to"
		export $_v
	done
fi

RESPOL_DATA="$SHARNESS_TEST_SRCDIR/data"
export RESPOL_DATA

# Keep the user's and the installed configuration out of the tests: every
# command that reads the configuration gets an empty one unless a test says
# otherwise.
RESPOL_CONFIG=/dev/null
export RESPOL_CONFIG
unset RESPOL_PLUGIN_PATH

# test_expect_code N respol ... is the idiom for exit codes; this checks the
# exit code and that stderr holds exactly the expected text.
#   test_error CODE EXPECTED-STDERR command args...
test_error() {
	_code=$1 _want=$2
	shift 2
	"$@" >stdout.err-test 2>stderr.err-test
	_got_code=$?
	if test "$_got_code" != "$_code"; then
		echo "exit code $_got_code, expected $_code"
		cat stderr.err-test
		return 1
	fi
	printf '%s\n' "$_want" >expected.err-test
	test_cmp expected.err-test stderr.err-test
}

# slot_jobspec FILE WITH [SYSTEM]: a jobspec of one slot (label task)
# holding WITH (the body of a flow-style list) and one task per slot;
# SYSTEM is the body of attributes.system (default "duration: 0").
slot_jobspec() {
	cat >"$1" <<-EOF
	version: 1
	resources:
	  - {type: slot, count: 1, label: task, with: [$2]}
	tasks: [{command: [app], slot: task, count: {per_slot: 1}}]
	attributes: {system: {${3:-duration: 0}}}
	EOF
}

# property_config FILE PLUGIN BLOCK: a configuration whose one property
# plugin is PLUGIN (a name or an absolute path), configured with BLOCK
# (flow YAML).
property_config() {
	cat >"$1" <<-EOF
	property:
	  - plugin: $2
	    config: $3
	EOF
}

# match_fixtures NAME...: copy the jobspecs t/data/match/NAME.yaml into the
# trash directory, so that messages name short paths.
match_fixtures() {
	for _f in "$@"; do
		cp "$RESPOL_DATA/match/$_f.yaml" . || return 1
	done
}

# bounded CMD...: run CMD with at most 256 MiB of address space and 10 s
# of CPU, so that a command that would build gigabytes fails instead of
# swapping.  A sanitizer build reserves terabytes of shadow memory at
# start and cannot run under an address-space limit: there only the CPU
# limit applies (what respol refuses, it refuses before allocating, so the
# test still checks the refusal; a regression would take memory, not
# pass).
respol_bounded_memory=
if (ulimit -v 262144 && ulimit -t 10 && respol idset count 1) >/dev/null 2>&1
then
	respol_bounded_memory=t
fi
# bounded [-m KiB] CMD...: another address-space limit.
bounded() {
	_kib=262144
	if test "$1" = -m; then
		_kib=$2
		shift 2
	fi
	if test -n "$respol_bounded_memory"; then
		(ulimit -v "$_kib" && ulimit -t 10 && "$@")
	else
		(ulimit -t 10 && "$@")
	fi
}
