# SPDX-License-Identifier: LGPL-3.0-or-later
# Sourced by the Flux tests (t006*-flux-*.t) before lib-respol.sh:
#   . "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-flux.sh"
#   . "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"
#   test_under_flux N [XML]
#
# test_under_flux skips the whole test, with the reason, unless configure
# found flux-core (--with-flux) ($RESPOL_FLUX_SKIP, when set, says why it
# did not: CI sets it); otherwise it runs the script again inside
# a Flux instance of N brokers on this machine (flux start --test-size=N),
# which stops when the script ends, whatever its outcome.  With XML (an
# hwloc topology), every broker sees that machine: FLUX_HWLOC_XMLFILE,
# flux-core's own test-only override, which the respol shell plugin follows
# too (it reads the shell's copy of its broker's topology).  The instance
# loads the build tree's librespol (LD_LIBRARY_PATH), and its commands
# time out: a test never hangs on a stuck instance.

respol_flux_script=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")

test_under_flux() {
	if test -z "${RESPOL_FLUX:-}"; then
		skip_all=${RESPOL_FLUX_SKIP:-'the Flux adapters are not built: configure --with-flux=PREFIX (scripts/build-flux builds flux-core)'}
		test_done
	fi
	if test -n "${RESPOL_UNDER_FLUX:-}"; then
		PATH=$(dirname "$RESPOL_FLUX"):$PATH
		export PATH
		return 0
	fi
	RESPOL_UNDER_FLUX=$1
	export RESPOL_UNDER_FLUX
	if test -n "${2:-}"; then
		FLUX_HWLOC_XMLFILE=$2
		FLUX_HWLOC_XMLFILE_NOT_THISSYSTEM=1
		export FLUX_HWLOC_XMLFILE FLUX_HWLOC_XMLFILE_NOT_THISSYSTEM
	fi
	LD_LIBRARY_PATH=$RESPOL_BUILDDIR/core/.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
	export LD_LIBRARY_PATH
	# Out of the trash directory, which the second run makes anew.
	cd "$SHARNESS_TEST_DIRECTORY" || exit 1
	exec timeout --kill-after=10 "${RESPOL_FLUX_TIMEOUT:-300}" \
		"$RESPOL_FLUX" start --test-size="$1" \
		/bin/sh "$respol_flux_script" ${verbose:+-v} ${immediate:+-i}
}

# flux_rc FILE: a shell initrc that loads the build tree's respol shell
# plugin (for -o userrc=FILE), with conf when $2 is given (a Lua table
# body, e.g. 'config = "/a/b.yaml"').
flux_rc() {
	cat >"$1" <<-EOF
	plugin.load { file = "$RESPOL_BUILDDIR/shell/flux/.libs/respol-shell.so",
	              conf = { ${2:-} } }
	EOF
}

# flux_shell_rc NAME PLUGIN: NAME.yaml, a configuration whose shell stack
# is PLUGIN, and NAME.lua, an initrc that loads the plugin with it.
flux_shell_rc() {
	cat >"$1.yaml" <<-EOF &&
	shell:
	  - plugin: $2
	EOF
	flux_rc "$1.lua" "config = \"$PWD/$1.yaml\""
}
