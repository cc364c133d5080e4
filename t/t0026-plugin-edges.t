#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='plugin ABI edges: a C++ plugin, and rp_validation_amend
refusing a path that is not UTF-8

Both plugins are built here, with the compilers a site would use, against
the headers in the source tree.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

CFLAGS="-shared -fPIC -I$RESPOL_SRCDIR/api $(pkg-config --cflags jansson)"

command -v c++ >/dev/null 2>&1 && test_set_prereq CXX

test_expect_success CXX 'a C++ plugin exports its descriptor with RP_PLUGIN_EXPORT' '
	cat >cxx.cc <<-\EOF &&
	#include <respol/plugin.h>
	static int validate (struct rp_plugin *, const struct rp_jobspec *,
	                     struct rp_validation *)
	{
	    return RP_ACCEPT;
	}
	static const struct rp_validate_ops ops = { sizeof (ops), validate };
	RP_PLUGIN_EXPORT const struct rp_plugin_desc respol_plugin = {
	    RP_PLUGIN_ABI_VERSION, sizeof (struct rp_plugin_desc),
	    RP_PLUGIN_VALIDATE, "cxx", "a validator written in C++", "1.0",
	    nullptr, nullptr, &ops,
	};
	EOF
	c++ $CFLAGS -o cxx.so cxx.cc &&
	nm -D --defined-only cxx.so | grep " respol_plugin$" &&
	respol plugin info "$PWD/cxx.so" >out &&
	grep "^name: *cxx$" out
'

test_expect_success 'rp_validation_amend refuses a path that is not UTF-8 (EINVAL)' '
	cat >badpath.c <<-\EOF &&
	#include <errno.h>
	#include <string.h>
	#include <respol/plugin.h>
	static int validate (struct rp_plugin *p, const struct rp_jobspec *js,
	                     struct rp_validation *v)
	{
	    int rc = rp_validation_amend (v, "system.q\xff", json_string ("x"));
	    return rp_validation_reject (v, "amend returned %d: %s", rc,
	                                 strerror (errno));
	}
	static const struct rp_validate_ops ops = { sizeof (ops), validate };
	__attribute__ ((visibility ("default")))
	const struct rp_plugin_desc respol_plugin = {
	    .abi_version = RP_PLUGIN_ABI_VERSION,
	    .size = sizeof (struct rp_plugin_desc),
	    .kind = RP_PLUGIN_VALIDATE,
	    .name = "badpath",
	    .description = "amends a path that is not UTF-8",
	    .version = "1.0",
	    .ops = &ops,
	};
	EOF
	cc $CFLAGS -o badpath.so badpath.c &&
	cat >badpath.yaml <<-EOF &&
	validate:
	  - plugin: $PWD/badpath.so
	EOF
	test_expect_code 1 respol jobspec validate --config=badpath.yaml \
		"$RESPOL_DATA/jobspec/v1.yaml" 2>err &&
	grep "badpath: amend returned -1: Invalid argument" err
'
test_done
