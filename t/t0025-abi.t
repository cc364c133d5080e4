#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='librespol ABI: exported symbols are rp_* only, versioned,
and compatible with the committed baseline abi/librespol.abi

abidiff sets bit 8 of its exit status for an incompatible change (a
removed function, a changed signature or struct layout) and bit 4 for a
compatible one (an addition).  An incompatible change fails; an addition
passes with a note to run "make abi-update".'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

LIB="$RESPOL_BUILDDIR/core/.libs/librespol.so"
BASELINE="$RESPOL_SRCDIR/abi/librespol.abi"

test -r "$LIB" || { skip_all="librespol.so not built"; test_done; }

test_expect_success 'librespol exports only rp_* symbols' '
	nm -D --defined-only "$LIB" | awk "\$2 ~ /^[TDRBV]\$/ {print \$3}" \
		| sed "s/@.*//" | grep -v "^rp_" | grep -v "^RESPOL_" >others || true &&
	test_must_be_empty others
'
test_expect_success 'every exported function carries the RESPOL_0.1 version' '
	nm -D --defined-only "$LIB" | grep " T rp_" >syms &&
	test -s syms &&
	! grep -v "@@RESPOL_0.1$" syms
'

if ! command -v abidiff >/dev/null 2>&1; then
	skip_all="abidiff not found (apt-get install abigail-tools)"
	test_done
fi
if ! readelf -S "$LIB" | grep -q debug_info; then
	skip_all="librespol.so has no debug info (configure without -g?)"
	test_done
fi

test_expect_success 'no incompatible change against abi/librespol.abi' '
	rc=0 &&
	abidiff --headers-dir2 "$RESPOL_SRCDIR/api/respol" --drop-private-types \
		"$BASELINE" "$LIB" >report || rc=$? &&
	cat report &&
	test $((rc & 8)) -eq 0 &&
	test $((rc & 3)) -eq 0 &&
	if test $((rc & 4)) -ne 0; then
		echo "compatible additions: run make abi-update and commit abi/librespol.abi"
	fi
'
test_done
