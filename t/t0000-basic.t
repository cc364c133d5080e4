#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol: the command dispatches, helps and refuses bad usage'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

test_expect_success 'respol --help lists the subcommands' '
	respol --help >out &&
	grep "^Usage: respol" out &&
	grep "^  idset " out &&
	grep "^  hostlist " out &&
	grep "^  R " out
'
test_expect_success 'respol --version prints the version and the plugin ABI' '
	abi=$(sed -n "s/^#define RP_PLUGIN_ABI_VERSION \([0-9]*\)$/\1/p" \
		"$RESPOL_SRCDIR/api/respol/plugin.h") &&
	test -n "$abi" &&
	respol --version >out &&
	grep -x "respol [0-9][0-9.]* (plugin ABI $abi)" out
'
test_expect_success 'respol with no arguments is a usage error (exit 2)' '
	test_expect_code 2 respol 2>err &&
	grep "^Usage: respol" err
'
test_expect_success 'an unknown subcommand is a usage error (exit 2)' '
	test_expect_code 2 respol frobnicate 2>err &&
	grep "^respol: unknown subcommand .frobnicate.$" err
'
# Every subcommand reports an option that getopt_long rejects in the same
# words (core/cmd/util.c, cmd_option_error), after its own prefix, and
# exits 2 with the hint to try its --help.
SQ="'"
# option_error SUB LINE command...: exit 2, stderr LINE then the hint for
# `respol SUB --help`.
option_error() {
	_sub=$1 _line=$2
	shift 2
	test_error 2 "$_line
Try ${SQ}respol $_sub --help${SQ} for more information." "$@"
}

test_expect_success 'an unknown short option is named' '
	option_error idset "respol: idset: unknown option ${SQ}-x${SQ}" \
		respol idset -x &&
	option_error hostlist "respol: hostlist: unknown option ${SQ}-z${SQ}" \
		respol hostlist -ez &&
	option_error R "respol: R: filter: unknown option ${SQ}-s${SQ}" \
		respol R filter -s &&
	option_error jobspec \
		"respol: jobspec: create: unknown option ${SQ}-z${SQ}" \
		respol jobspec create -z true &&
	option_error hostlist "respol: hostlist: unknown option ${SQ}-\xc3${SQ}" \
		respol hostlist "$(printf "%s\303" -)"
'
test_expect_success 'a short option in a cluster after a value that looks like a long option' '
	option_error hostlist "respol: hostlist: unknown option ${SQ}-z${SQ}" \
		respol hostlist -x --count=1 -zq &&
	option_error hostlist "respol: hostlist: unknown option ${SQ}-z${SQ}" \
		respol hostlist -x --nth -zq
'
test_expect_success 'an unknown long option is named up to =' '
	option_error config \
		"respol: config: check: unknown option ${SQ}--frob${SQ}" \
		respol config check --frob=1 &&
	option_error idset "respol: idset: unknown option ${SQ}--frob${SQ}" \
		respol idset --frob=1 &&
	option_error plugin \
		"respol: plugin: list: unknown option ${SQ}--yaml${SQ}" \
		respol plugin list --yaml=1 &&
	option_error R "respol: R: decode: unknown option ${SQ}--frob${SQ}" \
		respol R decode --frob
'
test_expect_success 'an absurdly long option name is cut, keeping the quote' '
	long=$(printf "%0300d" 0 | tr 0 a) &&
	cut=$(printf "%0233d" 0 | tr 0 a) &&
	option_error hostlist \
		"respol: hostlist: unknown option ${SQ}--$cut...${SQ}" \
		respol hostlist --$long=1
'
test_expect_success 'an ambiguous abbreviation is unknown, named as typed' '
	option_error hostlist "respol: hostlist: unknown option ${SQ}--e${SQ}" \
		respol hostlist --e=x &&
	option_error jobspec \
		"respol: jobspec: validate: unknown option ${SQ}--pr${SQ}" \
		respol jobspec validate --pr &&
	option_error R "respol: R: encode: unknown option ${SQ}--h${SQ}" \
		respol R encode --h
'
test_expect_success 'a value for a long option that takes none' '
	option_error jobspec \
		"respol: jobspec: create: option ${SQ}--exclusive${SQ} takes no argument" \
		respol jobspec create --excl=1 true &&
	option_error idset \
		"respol: idset: encode: option ${SQ}--brackets${SQ} takes no argument" \
		respol idset encode --brackets=yes 1 &&
	option_error R \
		"respol: R: union: option ${SQ}--help${SQ} takes no argument" \
		respol R union --help=x &&
	option_error config \
		"respol: config: check: option ${SQ}--verbose${SQ} takes no argument" \
		respol config check --ver=1
'
test_expect_success 'a missing argument, with an optstring that starts with :' '
	option_error R "respol: R: encode: option ${SQ}-r${SQ} requires an argument" \
		respol R encode -r &&
	option_error R \
		"respol: R: decode: option ${SQ}--count${SQ} requires an argument" \
		respol R decode --c &&
	option_error jobspec \
		"respol: jobspec: create: option ${SQ}--nodes${SQ} requires an argument" \
		respol jobspec create --no
'
test_expect_success 'a missing argument, with an optstring that does not start with :' '
	option_error hostlist \
		"respol: hostlist: option ${SQ}-n${SQ} requires an argument" \
		respol hostlist -en &&
	option_error hostlist \
		"respol: hostlist: option ${SQ}--delimiter${SQ} requires an argument" \
		respol hostlist --delim &&
	option_error jobspec \
		"respol: jobspec: validate: option ${SQ}--profile${SQ} requires an argument" \
		respol jobspec validate --profile &&
	option_error plugin \
		"respol: plugin: list: option ${SQ}--config${SQ} requires an argument" \
		respol plugin list --config
'
test_expect_success 'a jobspec option the subcommand does not take is unknown, whatever its value' '
	option_error jobspec \
		"respol: jobspec: convert: unknown option ${SQ}--config${SQ}" \
		respol jobspec convert --config &&
	option_error jobspec \
		"respol: jobspec: summary: unknown option ${SQ}--print${SQ}" \
		respol jobspec summary --print=1
'
test_done
