#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol idset: encode, expand, count, min, max, union,
intersect and diff RFC 22 idsets, and refuse bad input and bad usage'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

# --help

test_expect_success 'idset --help lists every subcommand on stdout' '
	respol idset --help >out &&
	grep "^Usage: respol idset SUBCOMMAND" out &&
	for sub in encode expand count min max union intersect diff; do
		grep "^  $sub " out || return 1
	done
'
test_expect_success 'idset -h is --help' '
	respol idset --help >expected &&
	respol idset -h >out &&
	test_cmp expected out
'
test_expect_success 'idset encode --help describes its options' '
	respol idset encode --help >out &&
	grep "^Usage: respol idset encode \[--no-ranges\] \[--brackets\] IDSET\.\.\.$" out &&
	grep -- "--no-ranges" out &&
	grep -- "--brackets" out
'
test_expect_success 'every subcommand has --help and -h' '
	for sub in encode expand count min max union intersect diff; do
		respol idset $sub --help >out &&
		grep "^Usage: respol idset $sub " out &&
		respol idset $sub -h >out2 &&
		test_cmp out out2 || return 1
	done
'
test_expect_success 'subcommand --help wins over missing arguments' '
	respol idset union --help >out &&
	grep "^Usage: respol idset union A B$" out
'

# encode

test_expect_success 'encode normalises with ranges, one line per argument' '
	cat >expected <<-\EOF &&
	1-3,5-6,42
	1-3,5-6,42
	0-5
	3
	0,4294967294

	EOF
	respol idset encode 1,2,3,5,6,42 "[1-3,5-6,42]" 0-2,3,4-5 3-3 \
		0,4294967294 "[]" >out &&
	test_cmp expected out
'
test_expect_success 'encode --no-ranges lists every id' '
	cat >expected <<-\EOF &&
	1,2,3,5,6,42
	7
	EOF
	respol idset encode --no-ranges "[1-3,5-6,42]" 7 >out &&
	test_cmp expected out
'
test_expect_success 'encode --brackets adds [] only for more than one id' '
	cat >expected <<-\EOF &&
	[1-3,5-6,42]
	7
	[7-8]

	EOF
	respol idset encode --brackets 1-3,5-6,42 7 7,8 "" >out &&
	test_cmp expected out
'
test_expect_success 'encode --no-ranges --brackets' '
	echo "[1,2,3]" >expected &&
	respol idset encode --no-ranges --brackets 1-3 >out &&
	test_cmp expected out
'
test_expect_success 'encode trims white space around the idset' '
	echo "7,9" >expected &&
	respol idset encode " 7,9 " >out &&
	test_cmp expected out
'
test_expect_success 'encode of a huge range is immediate' '
	echo 0-4294967294 >expected &&
	respol idset encode 0-4294967294 >out &&
	test_cmp expected out
'
test_expect_success 'encode stops at the first bad argument (exit 1)' '
	test_error 1 "respol: idset: \"3,2\": ids not ascending at offset 2" \
		respol idset encode 1 3,2 5 &&
	echo 1 >expected &&
	test_cmp expected stdout.err-test
'
test_expect_success 'an argument starting with - needs --' '
	test_error 2 "respol: idset: encode: unknown option '\''-1'\''
Try '\''respol idset --help'\'' for more information." \
		respol idset encode -1 &&
	test_error 1 "respol: idset: \"-1\": unexpected character '\''-'\'' at offset 0" \
		respol idset encode -- -1
'

# expand, count, min, max

test_expect_success 'expand prints every id on its own line' '
	printf "%s\n" 0 2 3 4 10 >expected &&
	respol idset expand 0,2-4,10 >out &&
	test_cmp expected out
'
test_expect_success 'expand of the empty set prints nothing' '
	respol idset expand "" >out &&
	test_must_be_empty out
'
test_expect_success 'expand near the largest id' '
	printf "%s\n" 4294967293 4294967294 >expected &&
	respol idset expand 4294967293-4294967294 >out &&
	test_cmp expected out
'
test_expect_success 'count prints the number of ids' '
	echo 6 >expected &&
	respol idset count "[1-3,5-6,42]" >out &&
	test_cmp expected out
'
test_expect_success 'count of the empty set is 0' '
	echo 0 >expected &&
	respol idset count "[]" >out &&
	test_cmp expected out
'
test_expect_success 'count of the full set is 2^32-1' '
	echo 4294967295 >expected &&
	respol idset count 0-4294967294 >out &&
	test_cmp expected out
'
test_expect_success 'min and max print the smallest and largest id' '
	echo 5 >expected &&
	respol idset min 5-6,42 >out &&
	test_cmp expected out &&
	echo 42 >expected &&
	respol idset max 5-6,42 >out &&
	test_cmp expected out
'
test_expect_success 'min and max at the edges' '
	echo 0 >expected &&
	respol idset min 0,4294967294 >out &&
	test_cmp expected out &&
	echo 4294967294 >expected &&
	respol idset max 0,4294967294 >out &&
	test_cmp expected out
'
test_expect_success 'min of the empty set is an error (exit 1)' '
	test_error 1 "respol: idset: min: set is empty" respol idset min "" &&
	test_must_be_empty stdout.err-test
'
test_expect_success 'max of the empty set is an error (exit 1)' '
	test_error 1 "respol: idset: max: set is empty" respol idset max "[]"
'

# union, intersect, diff

test_expect_success 'union' '
	echo 1-6,9-10 >expected &&
	respol idset union 1-2,5-6,9-10 2-5,10 >out &&
	test_cmp expected out
'
test_expect_success 'intersect' '
	echo 2,5,10 >expected &&
	respol idset intersect 1-2,5-6,9-10 2-5,10 >out &&
	test_cmp expected out
'
test_expect_success 'diff' '
	echo 1,6,9 >expected &&
	respol idset diff 1-2,5-6,9-10 2-5,10 >out &&
	test_cmp expected out
'
test_expect_success 'an empty result prints an empty line' '
	echo >expected &&
	respol idset intersect 1-3 4-6 >out &&
	test_cmp expected out &&
	respol idset diff 1-3 0-10 >out &&
	test_cmp expected out
'
test_expect_success 'diff splits a huge range without expanding it' '
	echo 0-6,8-4294967294 >expected &&
	respol idset diff 0-4294967294 7 >out &&
	test_cmp expected out
'
test_expect_success 'a bad second argument is reported (exit 1)' '
	test_error 1 "respol: idset: \"5-3\": range not ascending at offset 0" \
		respol idset union 1 5-3
'

# bad idsets: the library message, exit 1

test_expect_success 'bad idsets are input errors with the exact reason' '
	cat >cases <<-\EOF &&
	3,2|ids not ascending at offset 2
	1-3,2|ids not ascending at offset 4
	01|leading zero at offset 0
	4294967295|id too large (max 4294967294) at offset 0
	1,,2|empty element at offset 2
	1,|empty element at offset 2
	5-3|range not ascending at offset 0
	1-|missing id after '\''-'\'' at offset 2
	1x|unexpected character '\''x'\'' at offset 1
	1 2|unexpected character '\'' '\'' at offset 1
	[1-3|missing '\'']'\'' at offset 4
	1]|unexpected '\'']'\'' at offset 1
	EOF
	while IFS="|" read -r input reason; do
		test_error 1 "respol: idset: \"$input\": $reason" \
			respol idset count "$input" || return 1
	done <cases
'
test_expect_success 'a long bad idset is shown truncated to 64 bytes' '
	long=$(printf "%s," $(seq 1 25))x &&
	test_error 1 "respol: idset: \"1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,2...\": unexpected character '\''x'\'' at offset 66" \
		respol idset count "$long"
'
test_expect_success 'non-printable bytes are shown as \xHH' '
	test_error 1 "respol: idset: \"1\\x09x\": unexpected character '\''\\x09'\'' at offset 1" \
		respol idset count "$(printf "1\tx")"
'

# usage errors: exit 2

usage_hint="Try 'respol idset --help' for more information."

test_expect_success 'no subcommand is a usage error' '
	test_error 2 "respol: idset: missing subcommand
$usage_hint" respol idset
'
test_expect_success 'an unknown subcommand is a usage error' '
	test_error 2 "respol: idset: unknown subcommand '\''frob'\''
$usage_hint" respol idset frob 1
'
test_expect_success 'an unknown option before the subcommand is a usage error' '
	test_error 2 "respol: idset: unknown option '\''--frob'\''
$usage_hint" respol idset --frob &&
	test_error 2 "respol: idset: unknown option '\''-x'\''
$usage_hint" respol idset -x
'
test_expect_success 'an unknown option of a subcommand is a usage error' '
	test_error 2 "respol: idset: count: unknown option '\''--no-ranges'\''
$usage_hint" respol idset count --no-ranges 1 &&
	test_error 2 "respol: idset: encode: unknown option '\''-b'\''
$usage_hint" respol idset encode -b 1
'
test_expect_success 'an argument to a flag option is a usage error' '
	test_error 2 "respol: idset: encode: option '\''--brackets'\'' takes no argument
$usage_hint" respol idset encode --brackets=yes 1 &&
	test_error 2 "respol: idset: min: option '\''--help'\'' takes no argument
$usage_hint" respol idset min --help=1 1
'
test_expect_success 'missing arguments are usage errors' '
	for sub in encode expand count min max union intersect diff; do
		test_error 2 "respol: idset: $sub: missing IDSET argument
$usage_hint" respol idset $sub || return 1
	done &&
	for sub in union intersect diff; do
		test_error 2 "respol: idset: $sub: missing IDSET argument
$usage_hint" respol idset $sub 1 || return 1
	done
'
test_expect_success 'extra arguments are usage errors' '
	for sub in expand count min max; do
		test_error 2 "respol: idset: $sub: unexpected argument '\''2'\''
$usage_hint" respol idset $sub 1 2 || return 1
	done &&
	for sub in union intersect diff; do
		test_error 2 "respol: idset: $sub: unexpected argument '\''3'\''
$usage_hint" respol idset $sub 1 2 3 || return 1
	done
'
test_expect_success 'options may follow the arguments' '
	respol idset count 1-3 --help >out &&
	grep "^Usage: respol idset count" out &&
	echo "[1-3,7]" >expected &&
	respol idset encode 1-3,7 --brackets >out &&
	test_cmp expected out
'
test_expect_success 'after --, an argument that looks like an option is an idset' '
	test_error 1 "respol: idset: \"-1\": unexpected character '\''-'\'' at offset 0" \
		respol idset count -- -1
'
test -w /dev/full && test_set_prereq DEVFULL
test_expect_success DEVFULL 'a write error is reported (exit 1)' '
	test_expect_code 1 respol idset expand 0-100000 >/dev/full 2>err &&
	grep "^respol: idset: write error: " err
'
test_done
