#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later
test_description='placeholder'
. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"
test_expect_success 'placeholder' 'true'
test_done
