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
test_expect_success 'respol --version prints the version' '
	respol --version >out &&
	grep "^respol [0-9]" out
'
test_expect_success 'respol with no arguments is a usage error (exit 2)' '
	test_expect_code 2 respol 2>err &&
	grep "^Usage: respol" err
'
test_expect_success 'an unknown subcommand is a usage error (exit 2)' '
	test_expect_code 2 respol frobnicate 2>err &&
	grep "^respol: unknown subcommand .frobnicate.$" err
'
test_done
