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

if ! test -r "$SHARNESS"; then
	echo "1..0 # SKIP sharness.sh not found (apt-get install sharness)"
	exit 0
fi
. "$SHARNESS"

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
