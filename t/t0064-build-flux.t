#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='scripts/build-flux: what it refuses before it builds

The arguments, and the archives it is given or finds in $RESPOL_PEERS,
are checked before any package is installed or anything built: each
refusal is one line naming what is wrong.  Runs without flux-core.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

build_flux=$RESPOL_SRCDIR/scripts/build-flux

# refuses RC MESSAGE ARG...: build-flux ARG... exits RC with MESSAGE
# alone on stderr and nothing on stdout.
refuses() {
	rc=$1 msg=$2
	shift 2
	test_expect_code "$rc" "$build_flux" "$@" >out 2>err &&
	test_must_be_empty out &&
	echo "build-flux: $msg" >expected &&
	test_cmp expected err
}

test_expect_success '--help says what it builds and where' '
	"$build_flux" --help >out &&
	grep "^  scripts/build-flux \[--sched\] \[--cache=DIR\] \[--jobs=N\] \[CORE.tar.xz \[SCHED.tar.xz\]\]$" out &&
	grep "^Cache: --cache, else \$RESPOL_PEERS_CACHE, else /var/cache/respol-peers$" out
'
test_expect_success 'an unknown option' '
	refuses 2 "unknown option '"'"'--bogus'"'"'" --bogus
'
test_expect_success '--jobs takes a number' '
	refuses 2 "--jobs: not a number: '"'"'two'"'"'" --jobs=two &&
	refuses 2 "--jobs: not a number: '"'"''"'"'" --jobs=
'
test_expect_success 'two archives at most' '
	refuses 2 "too many arguments" a.tar.xz b.tar.xz c.tar.xz
'
test_expect_success 'no archive given, none in $RESPOL_PEERS' '
	mkdir empty &&
	RESPOL_PEERS=$PWD/empty &&
	export RESPOL_PEERS &&
	refuses 1 "no flux-core archive: name one, or set RESPOL_PEERS to the folder holding flux-core-VERSION.tar.xz"
'
test_expect_success 'an archive that is not there' '
	refuses 1 "$PWD/no/flux-core-0.88.0.tar.xz: no such file" \
		"$PWD/no/flux-core-0.88.0.tar.xz"
'
test_expect_success 'an archive not named NAME-VERSION.tar.xz' '
	: >flux-core.tar.xz &&
	: >flux-core-0.88-rc1.tar.xz &&
	refuses 1 "$PWD/flux-core.tar.xz: not named flux-core-VERSION.tar.xz" \
		flux-core.tar.xz &&
	refuses 1 "$PWD/flux-core-0.88-rc1.tar.xz: not named flux-core-VERSION.tar.xz" \
		flux-core-0.88-rc1.tar.xz
'
test_expect_success '--sched with no Fluxion archive in $RESPOL_PEERS' '
	mkdir peers &&
	: >peers/flux-core-0.88.0.tar.xz &&
	RESPOL_PEERS=$PWD/peers &&
	export RESPOL_PEERS &&
	refuses 1 "no flux-sched archive: name one, or set RESPOL_PEERS to the folder holding flux-sched-VERSION.tar.xz" --sched
'
test_expect_success 'two flux-core archives in $RESPOL_PEERS: neither is guessed' '
	: >peers/flux-core-0.89.0.tar.xz &&
	RESPOL_PEERS=$PWD/peers &&
	export RESPOL_PEERS &&
	refuses 1 "$PWD/peers: 2 archives named flux-core-VERSION.tar.xz: name one"
'
test_done
