#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol hostlist: combine, transform and print RFC 29
hostlists with the options of flux hostlist, and refuse bad input and bad
usage'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

# --help

test_expect_success 'hostlist --help prints usage on stdout and exits 0' '
	respol hostlist --help >out &&
	grep "^Usage: respol hostlist \[OPTIONS\] \[HOSTLIST\.\.\.\]$" out &&
	for opt in expand delimiter count nth find limit sort union exclude \
		intersect minus xor quiet help; do
		grep -- "--$opt" out || return 1
	done
'
test_expect_success 'hostlist -h is --help' '
	respol hostlist --help >expected &&
	respol hostlist -h >out &&
	test_cmp expected out
'
test_expect_success '--help wins over bad input' '
	respol hostlist --help "n[" >out &&
	grep "^Usage: respol hostlist" out
'

# no option: concatenate and compress

test_expect_success 'RFC 29 test vectors compress back' '
	cat >expected <<-\EOF &&

	foox,fooy,fooz
	[1-3,5-6]
	foo[1-5]
	foo[0-4]-eth2
	foo[1,1,1]
	[00-02]
	[00-02]
	foo[1,1-2,1]
	EOF
	for hl in "" foox,fooy,fooz "[1-3,5-6]" "foo[1-5]" "foo[0-4]-eth2" \
		foo1,foo1,foo1 "[00-02]" "[00-2]" "foo[1,1,2,1]"; do
		respol hostlist "$hl" || return 1
	done >out &&
	test_cmp expected out
'
test_expect_success 'RFC 29 test vectors expand' '
	cat >expected <<-\EOF &&

	foox fooy fooz
	1 2 3 5 6
	foo1 foo2 foo3 foo4 foo5
	foo0-eth2 foo1-eth2 foo2-eth2 foo3-eth2 foo4-eth2
	foo1 foo1 foo1
	00 01 02
	00 01 02
	foo1 foo1 foo2 foo1
	EOF
	for hl in "" foox,fooy,fooz "[1-3,5-6]" "foo[1-5]" "foo[0-4]-eth2" \
		foo1,foo1,foo1 "[00-02]" "[00-2]" "foo[1,1,2,1]"; do
		respol hostlist -e "$hl" || return 1
	done >out &&
	test_cmp expected out
'
test_expect_success 'arguments are concatenated in order and compressed' '
	echo "n[1-3],m1,n4" >expected &&
	respol hostlist n1,n2 n3 m1 n4 >out &&
	test_cmp expected out
'
test_expect_success 'concatenation keeps duplicates' '
	echo "n[1-2,1-2]" >expected &&
	respol hostlist "n[1-2]" "n[1-2]" >out &&
	test_cmp expected out
'
test_expect_success 'an empty result prints an empty line' '
	echo >expected &&
	respol hostlist "" >out &&
	test_cmp expected out
'

# stdin

test_expect_success 'with no argument hostlists come from stdin' '
	echo "n[1-4],m1" >expected &&
	printf "n1 n2\n\tn[3-4]\r\n  m1\n" | respol hostlist >out &&
	test_cmp expected out
'
test_expect_success 'the argument - reads stdin as one hostlist' '
	echo "n[0-3,7]" >expected &&
	echo "n1 n2" | respol hostlist n0 - n3 n7 >out &&
	test_cmp expected out
'
test_expect_success 'stdin counts as one argument for -i' '
	echo "n2" >expected &&
	echo "n1 n2" | respol hostlist -i - "n[2-3]" >out &&
	test_cmp expected out
'
test_expect_success 'empty stdin is the empty list' '
	echo >expected &&
	respol hostlist </dev/null >out &&
	test_cmp expected out
'
test_expect_success 'a bad hostlist on stdin is an input error' '
	echo "n1 n[2" >in &&
	test_error 1 "respol: hostlist: \"n[2\": missing '\'']'\'' at offset 3" \
		respol hostlist <in
'
test_expect_success 'a NUL byte on stdin is an input error' '
	printf "n1\000n2" >in &&
	test_error 1 "respol: hostlist: stdin: unexpected NUL byte" \
		respol hostlist <in
'

# -e, -d

test_expect_success '-e expands with spaces' '
	echo "n9 n10 n11 x 098 099 100" >expected &&
	respol hostlist -e "n[9-11],x,[098-100]" >out &&
	test_cmp expected out
'
test_expect_success '-e -d sets the delimiter' '
	echo "n1,n2,n3" >expected &&
	respol hostlist -e -d, "n[1-3]" >out &&
	test_cmp expected out &&
	respol hostlist --expand --delimiter=, "n[1-3]" >out &&
	test_cmp expected out
'
test_expect_success '-d implies -e' '
	echo "n1::n2" >expected &&
	respol hostlist -d :: "n[1-2]" >out &&
	test_cmp expected out
'
test_expect_success '-d with a newline and with nothing' '
	printf "n1\nn2\n" >expected &&
	respol hostlist -d "
" "n[1-2]" >out &&
	test_cmp expected out &&
	echo "n1n2" >expected &&
	respol hostlist -d "" "n[1-2]" >out &&
	test_cmp expected out
'

# -c

test_expect_success '-c counts hosts, duplicates included' '
	echo 6 >expected &&
	respol hostlist -c "n[1-3]" n2 "" "m[1-2]" >out &&
	test_cmp expected out &&
	echo 0 >expected &&
	respol hostlist --count "" >out &&
	test_cmp expected out
'
test_expect_success '-c counts a list of 2^24 hosts without expanding it' '
	echo 16777216 >expected &&
	respol hostlist -c "n[0-16777215]" >out &&
	test_cmp expected out
'

# -n

test_expect_success '-n keeps the hosts at the given indices' '
	echo "n[0,2-3]" >expected &&
	respol hostlist -n 0,2-3 "n[0-5]" >out &&
	test_cmp expected out
'
test_expect_success '-n keeps the spelling of the list' '
	echo "foo[1-2]-eth2" >expected &&
	respol hostlist --nth=1-2 "foo[0-4]-eth2" >out &&
	test_cmp expected out
'
test_expect_success '-n takes indices in ascending order' '
	echo "c,a" >expected &&
	respol hostlist -n "[0,2]" c,b,a >out &&
	test_cmp expected out
'
test_expect_success '-n with an empty idset gives the empty list' '
	echo >expected &&
	respol hostlist -n "" "n[1-3]" >out &&
	test_cmp expected out
'
test_expect_success '-n index out of range is an error' '
	test_error 1 "respol: hostlist: --nth: index 3 is out of range (3 hosts)" \
		respol hostlist -n 1,3-5 "n[1-3]" &&
	test_error 1 "respol: hostlist: --nth: index 0 is out of range (0 hosts)" \
		respol hostlist -n 0 "" &&
	test_error 1 "respol: hostlist: --nth: index 1 is out of range (1 host)" \
		respol hostlist -n 1 n1
'
test_expect_success '-n with a bad idset is an error' '
	test_error 1 "respol: hostlist: --nth: idset: \"3,1\": ids not ascending at offset 2" \
		respol hostlist -n 3,1 "n[1-5]"
'

# -F

test_expect_success '-F prints the index of each host, one a line' '
	printf "2\n0\n4\n" >expected &&
	respol hostlist -F n3,n1,m1 "n[1-3],n1,m1" >out &&
	test_cmp expected out
'
test_expect_success '-F finds the first occurrence' '
	echo 1 >expected &&
	respol hostlist --find=n2 "n[1-3],n2" >out &&
	test_cmp expected out
'
test_expect_success '-F finds a host however the list spells it' '
	printf "1\n3\n" >expected &&
	respol hostlist -F "foo1-eth2,n12" "foo[0-1]-eth2,x,n1[2]" >out &&
	test_cmp expected out
'
test_expect_success '-F finds in a list of 2^24 hosts' '
	echo 16777215 >expected &&
	respol hostlist -F n16777215 "n[0-16777215]" >out &&
	test_cmp expected out
'
test_expect_success '-F of a host not in the list is an error' '
	test_error 1 "respol: hostlist: --find: host n7 is not in the hostlist" \
		respol hostlist -F n1,n7 "n[1-3]"
'
test_expect_success '-F with a bad hostlist is an error' '
	test_error 1 "respol: hostlist: --find: \"n[\": missing '\'']'\'' at offset 2" \
		respol hostlist -F "n[" "n[1-3]"
'

# -L

test_expect_success '-L keeps the first N hosts' '
	echo "n[1-2]" >expected &&
	respol hostlist -L 2 "n[1-5]" >out &&
	test_cmp expected out
'
test_expect_success '-L -N keeps the last N hosts' '
	echo "n[4-5]" >expected &&
	respol hostlist -L -2 "n[1-5]" >out &&
	test_cmp expected out &&
	respol hostlist --limit=-2 "n[1-5]" >out &&
	test_cmp expected out
'
test_expect_success '-L past the end keeps everything, -L 0 nothing' '
	echo "n[1-5]" >expected &&
	respol hostlist -L 99999999999999999999 "n[1-5]" >out &&
	test_cmp expected out &&
	respol hostlist -L -9 "n[1-5]" >out &&
	test_cmp expected out &&
	echo >expected &&
	respol hostlist -L 0 "n[1-5]" >out &&
	test_cmp expected out
'
test_expect_success '-L with a bad number is a usage error' '
	test_error 2 "respol: hostlist: invalid --limit '\''abc'\''
Try '\''respol hostlist --help'\'' for more information." \
		respol hostlist -L abc "n[1-5]" &&
	test_error 2 "respol: hostlist: invalid --limit '\''-'\''
Try '\''respol hostlist --help'\'' for more information." \
		respol hostlist -L - "n[1-5]" &&
	test_error 2 "respol: hostlist: invalid --limit '\'''\''
Try '\''respol hostlist --help'\'' for more information." \
		respol hostlist -L "" "n[1-5]"
'
test_expect_success '-L is checked before stdin is read' '
	test_error 2 "respol: hostlist: invalid --limit '\''2x'\''
Try '\''respol hostlist --help'\'' for more information." \
		respol hostlist -L 2x </dev/null
'

# -S

test_expect_success '-S sorts by prefix, suffix, then number' '
	echo "a1,b[1-2,9-10],b[1-2]x" >expected &&
	respol hostlist -S "b10,b[2]x,b9,a1,b[1]x,b2,b1" >out &&
	test_cmp expected out
'
test_expect_success '-S sorts a plain name by its digits at the end only' '
	echo "b[1-2],b1x,b2x" >expected &&
	respol hostlist -S b2x,b2,b1x,b1 >out &&
	test_cmp expected out
'
test_expect_success '-S keeps duplicates' '
	echo "n[1,1-2,2]" >expected &&
	respol hostlist --sort n2,n1,n2,n1 >out &&
	test_cmp expected out
'
test_expect_success '-S puts a number before the same number padded' '
	echo "n1,n01,n2,n02" >expected &&
	respol hostlist -S n02,n2,n01,n1 >out &&
	test_cmp expected out
'

# -u, -i, -m, -X

test_expect_success '-u gives the union, sorted and unique' '
	echo "m1,n[1-6]" >expected &&
	respol hostlist -u "n[5-6]" "n[3-5],m1" "n[1-4]" >out &&
	test_cmp expected out
'
test_expect_success '-u with one argument sorts and removes duplicates' '
	echo "a,b,n[1-3]" >expected &&
	respol hostlist --union "n[3,1,2,1],b,a,b" >out &&
	test_cmp expected out
'
test_expect_success '-u treats spellings of one host as one host' '
	echo "foo[1-2]-eth2" >expected &&
	respol hostlist -u foo1-eth2 "foo[1-2]-eth2" >out &&
	test_cmp expected out
'
test_expect_success '-i gives the hosts in every argument' '
	echo "n[4-5]" >expected &&
	respol hostlist -i "n[1-5]" "n[3-8]" "n[9,5,4]" >out &&
	test_cmp expected out
'
test_expect_success '-i with nothing in common gives the empty list' '
	echo >expected &&
	respol hostlist --intersect "n[1-2]" "n[3-4]" >out &&
	test_cmp expected out
'
test_expect_success '-i with one argument sorts and removes duplicates' '
	echo "n[1-2]" >expected &&
	respol hostlist -i n2,n1,n2 >out &&
	test_cmp expected out
'
test_expect_success '-m subtracts the others from the first, keeping order' '
	echo "n[9,1-2,4,7-8,1]" >expected &&
	respol hostlist -m "n[9,1-8],n1" n3 "n[5-6]" >out &&
	test_cmp expected out
'
test_expect_success '-m with one argument keeps it as it is' '
	echo "n[3,1,1]" >expected &&
	respol hostlist --minus "n[3,1,1]" >out &&
	test_cmp expected out
'
test_expect_success '-X gives the hosts in an odd number of arguments' '
	echo "n[1,3,5]" >expected &&
	respol hostlist -X "n[1-3]" "n[2-4]" "n[3-5]" >out &&
	test_cmp expected out &&
	echo "n[1,4]" >expected &&
	respol hostlist --xor "n[1-3]" "n[2-4]" >out &&
	test_cmp expected out
'
test_expect_success '-u, -i, -m and -X exclude each other' '
	msg="respol: hostlist: only one of --union, --intersect, --minus and --xor may be given
Try '\''respol hostlist --help'\'' for more information." &&
	test_error 2 "$msg" respol hostlist -u -i a b &&
	test_error 2 "$msg" respol hostlist -m -X a b &&
	test_error 2 "$msg" respol hostlist --union --minus a b
'
test_expect_success 'repeating one of -u, -i, -m, -X is fine' '
	echo "a,b" >expected &&
	respol hostlist -u -u b a >out &&
	test_cmp expected out
'
test_expect_success 'a union of more than 2^24 hosts is an input error' '
	test_error 1 "respol: hostlist: result has more than 16777216 hosts" \
		respol hostlist -u "n[0-16777215]" "m[0-16777215]"
'
test_expect_success 'a concatenation of more than 2^24 hosts is an input error' '
	test_error 1 "respol: hostlist: result has more than 16777216 hosts" \
		respol hostlist "n[0-16777215]" m
'

# -x

test_expect_success '-x drops every occurrence of the given hosts' '
	echo "n[1,4-5,1]" >expected &&
	respol hostlist -x "n[2-3]" "n[1-5],n1,n3" >out &&
	test_cmp expected out
'
test_expect_success '-x with an idset drops the hosts at those indices' '
	echo "n[1,4-5]" >expected &&
	respol hostlist -x 1-2 "n[1-5]" >out &&
	test_cmp expected out &&
	respol hostlist --exclude="[1-2]" "n[1-5]" >out &&
	test_cmp expected out
'
test_expect_success '-x with a host that is not there changes nothing' '
	echo "n[1-5]" >expected &&
	respol hostlist -x m1 "n[1-5]" >out &&
	test_cmp expected out
'
test_expect_success '-x index out of range is an error' '
	test_error 1 "respol: hostlist: --exclude: index 5 is out of range (5 hosts)" \
		respol hostlist -x 0,5 "n[1-5]"
'
test_expect_success '-x with a bad hostlist is an error' '
	test_error 1 "respol: hostlist: --exclude: \"n[1-\": missing '\'']'\'' at offset 4" \
		respol hostlist -x "n[1-" "n[1-5]"
'

# order of the steps

test_expect_success 'combine, then -x, then -S, then -n, then -L' '
	echo "n[2,4]" >expected &&
	respol hostlist -u -x n3 -S -n 1-3 -L 2 "n[5,1-3]" "n4" >out &&
	test_cmp expected out
'
test_expect_success '-x indices apply to the combined list, before -S' '
	echo "n[1-2]" >expected &&
	respol hostlist -x 0 -S n3 n2,n1 >out &&
	test_cmp expected out
'
test_expect_success '-n indices apply after -S' '
	echo "n1" >expected &&
	respol hostlist -S -n 0 n3,n1,n2 >out &&
	test_cmp expected out
'
test_expect_success '-L applies after -n' '
	echo "n3" >expected &&
	respol hostlist -n 3-5 -L 1 "n[0-9]" >out &&
	test_cmp expected out
'
test_expect_success '-e applies to the result' '
	echo "n2 n3" >expected &&
	respol hostlist -e -m "n[1-3]" n1 >out &&
	test_cmp expected out
'
test_expect_success '-c applies to the result' '
	echo 2 >expected &&
	respol hostlist -c -u n1,n1,n2 >out &&
	test_cmp expected out
'
test_expect_success '-F looks up in the result' '
	echo 0 >expected &&
	respol hostlist -F n2 -x n1 "n[1-3]" >out &&
	test_cmp expected out
'

# -q and the order of output options

test_expect_success '-q exits 0 for a non-empty result and prints nothing' '
	respol hostlist -q "n[1-3]" >out &&
	test_must_be_empty out
'
test_expect_success '-q exits 1 for an empty result and prints nothing' '
	test_expect_code 1 respol hostlist -q -i n1 n2 >out &&
	test_must_be_empty out &&
	test_expect_code 1 respol hostlist --quiet "" >out &&
	test_must_be_empty out
'
test_expect_success '-q wins over -c, -c over -F, -F over -e' '
	respol hostlist -q -c "n[1-3]" >out &&
	test_must_be_empty out &&
	echo 3 >expected &&
	respol hostlist -c -F n1 -e "n[1-3]" >out &&
	test_cmp expected out &&
	echo 1 >expected &&
	respol hostlist -F n2 -e "n[1-3]" >out &&
	test_cmp expected out
'

# bad input and bad usage

test_expect_success 'a bad hostlist argument is an input error' '
	test_error 1 "respol: hostlist: \"foo[1-\": missing '\'']'\'' at offset 6" \
		respol hostlist "n1" "foo[1-" &&
	test_error 1 "respol: hostlist: \"a b\": invalid character '\'' '\'' at offset 1" \
		respol hostlist "a b" &&
	test_error 1 "respol: hostlist: \"n[5-3]\": range not ascending at offset 4" \
		respol hostlist "n[5-3]" &&
	test_error 1 "respol: hostlist: \"foo[]\": empty idlist at offset 3" \
		respol hostlist "foo[]" &&
	test_error 1 "respol: hostlist: \"a]\": unexpected '\'']'\'' at offset 1" \
		respol hostlist "a]"
'
test_expect_success 'a range past 2^24 hosts fails fast' '
	test_error 1 "respol: hostlist: \"n[0-4294967295]\": expands past 16777216 hosts at offset 2" \
		respol hostlist "n[0-4294967295]"
'
test_expect_success 'an unknown option is a usage error' '
	test_error 2 "respol: hostlist: unknown option '\''-z'\''
Try '\''respol hostlist --help'\'' for more information." \
		respol hostlist -z n1 &&
	test_error 2 "respol: hostlist: unknown option '\''--bogus'\''
Try '\''respol hostlist --help'\'' for more information." \
		respol hostlist --bogus=1 n1
'
test_expect_success 'a missing option argument is a usage error' '
	test_error 2 "respol: hostlist: option '\''-n'\'' requires an argument
Try '\''respol hostlist --help'\'' for more information." \
		respol hostlist -n &&
	test_error 2 "respol: hostlist: option '\''--find'\'' requires an argument
Try '\''respol hostlist --help'\'' for more information." \
		respol hostlist --find
'
test_expect_success 'an argument to a flag is a usage error' '
	test_error 2 "respol: hostlist: option '\''--count'\'' takes no argument
Try '\''respol hostlist --help'\'' for more information." \
		respol hostlist --count=3 n1
'
test_expect_success 'options may follow the hostlists (as in flux hostlist)' '
	echo 3 >expected &&
	respol hostlist "node[1-3]" -c >out &&
	test_cmp expected out &&
	echo "node[1,3]" >expected &&
	respol hostlist "node[1-3]" -x node2 >out &&
	test_cmp expected out
'
test_expect_success '-- ends the options' '
	echo "-e" >expected &&
	respol hostlist -- -e >out &&
	test_cmp expected out
'

test_done
