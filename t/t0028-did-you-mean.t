#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='"did you mean ...?": an unknown long option of every
kind of subcommand, a configuration key (top level and entry), a plugin
name (the NAME.so files of the search path) and a policy name (instances
of the match stack first, then the plugins) get the closest name when one
is close, and only then'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

Q="'"
FIX="$RESPOL_FIXTURE_PLUGINDIR"
PLUGINDIR=$(respol plugin --help |
	sed -n "s/.*RESPOL_PLUGIN_PATH, then \(.*\)\.$/\1/p")

test_expect_success 'setup' '
	test -n "$PLUGINDIR" &&
	respol jobspec create -N1 -n1 -- app >job.yaml
'

# Options

test_expect_success 'an option of config check' '
	test_error 2 "respol: config: check: unknown option ${Q}--verbse${Q}; did you mean ${Q}--verbose${Q}?
Try ${Q}respol config --help${Q} for more information." \
		respol config check --verbse
'
test_expect_success 'an option of plugin list, with a value' '
	test_error 2 "respol: plugin: list: unknown option ${Q}--confg${Q}; did you mean ${Q}--config${Q}?
Try ${Q}respol plugin --help${Q} for more information." \
		respol plugin list --confg=x.yaml
'
test_expect_success 'an option of jobspec create' '
	test_error 2 "respol: jobspec: create: unknown option ${Q}--tim-limit${Q}; did you mean ${Q}--time-limit${Q}?
Try ${Q}respol jobspec --help${Q} for more information." \
		respol jobspec create --tim-limit=1h -- app
'
test_expect_success 'an option of R filter' '
	test_error 2 "respol: R: filter: unknown option ${Q}--hlep${Q}; did you mean ${Q}--help${Q}?
Try ${Q}respol R --help${Q} for more information." \
		respol R filter --hlep x
'
test_expect_success 'a resource option of match' '
	test_error 2 "respol: match: unknown option ${Q}--genrate${Q}; did you mean ${Q}--generate${Q}?
Try ${Q}respol match --help${Q} for more information." \
		respol match allocate --genrate=nodes=1 job.yaml
'
test_expect_success 'an option of hostlist' '
	test_error 2 "respol: hostlist: unknown option ${Q}--expnad${Q}; did you mean ${Q}--expand${Q}?
Try ${Q}respol hostlist --help${Q} for more information." \
		respol hostlist --expnad "n[1-2]"
'
test_expect_success 'an option close to none gets no suggestion' '
	test_error 2 "respol: config: check: unknown option ${Q}--quiet${Q}
Try ${Q}respol config --help${Q} for more information." \
		respol config check --quiet
'

# Configuration keys

test_expect_success 'a top-level key' '
	printf "plugin-paths: [/x]\n" >top.yaml &&
	test_error 1 "respol: config: top.yaml:1:1: unknown key ${Q}plugin-paths${Q}; did you mean ${Q}plugin-path${Q}?" \
		respol config check top.yaml
'
test_expect_success 'a top-level key close to none' '
	printf "verbose: true\n" >far.yaml &&
	test_error 1 "respol: config: far.yaml:1:1: unknown key ${Q}verbose${Q}" \
		respol config check far.yaml
'
test_expect_success 'an entry key' '
	printf "match:\n  - plugn: first\n    nmae: f\n" >entry.yaml &&
	test_error 1 "respol: config: entry.yaml:2:5: match[0]: unknown key ${Q}plugn${Q}; did you mean ${Q}plugin${Q}?
respol: config: entry.yaml:3:5: match[0]: unknown key ${Q}nmae${Q}; did you mean ${Q}name${Q}?
respol: config: entry.yaml:2:5: match[0]: missing key ${Q}plugin${Q}" \
		respol config check entry.yaml
'

# Plugin names

test_expect_success 'a plugin name: the closest NAME.so of the search path' '
	cat >names.yaml <<-EOF &&
	plugin-path: ["$FIX"]
	validate:
	  - plugin: god
	  - plugin: limts
	  - plugin: nowhere
	EOF
	test_error 1 "respol: config: names.yaml:3:13: validate[0]: plugin ${Q}god${Q} not found in $FIX:$PLUGINDIR; did you mean ${Q}good${Q}?
respol: config: names.yaml:4:13: validate[1]: plugin ${Q}limts${Q} not found in $FIX:$PLUGINDIR; did you mean ${Q}limits${Q}?
respol: config: names.yaml:5:13: validate[2]: plugin ${Q}nowhere${Q} not found in $FIX:$PLUGINDIR" \
		respol config check names.yaml
'
test_expect_success 'an earlier directory wins a tie; only NAME.so counts' '
	mkdir -m 0755 one two &&
	: >one/pick.so && : >two/pack.so && : >one/pxk.txt &&
	: >"two/not valid.so" && : >one/.so &&
	printf "plugin-path: [\"%s\", \"%s\"]\nvalidate: [{plugin: pxck}]\n" \
		"$(pwd -P)/one" "$(pwd -P)/two" >tie.yaml &&
	test_expect_code 1 respol config check tie.yaml 2>err &&
	grep "; did you mean ${Q}pick${Q}?$" err &&
	printf "plugin-path: [\"%s\", \"%s\"]\nvalidate: [{plugin: pxck}]\n" \
		"$(pwd -P)/two" "$(pwd -P)/one" >tie2.yaml &&
	test_expect_code 1 respol config check tie2.yaml 2>err &&
	grep "; did you mean ${Q}pack${Q}?$" err
'
# Below /tmp, whatever the length of the build tree's path: the message
# must have room for the first directory whole.
test_expect_success 'a long search path is cut, the suggestion kept whole' '
	short=$(mktemp -d /tmp/rp.XXXXXX) &&
	test_when_finished "rm -rf $short" &&
	long=$short/$(printf "d%.0s" $(test_seq 1 120)) &&
	mkdir -p -m 0755 "$long" &&
	printf "plugin-path: [\"%s\", \"%s\", \"%s\"]\nvalidate: [{plugin: god}]\n" \
		"$long" "$long" "$FIX" >long.yaml &&
	test_expect_code 1 respol config check long.yaml 2>err &&
	grep "^respol: config: long.yaml:2:21: validate\[0\]: plugin ${Q}god${Q} not found in $long:.*; did you mean ${Q}good${Q}?$" err
'

# Policy names

test_expect_success 'a policy name: a shipped policy' '
	test_error 1 "respol: match: plugin ${Q}sprad${Q} not found in $PLUGINDIR; did you mean ${Q}spread${Q}?" \
		respol match allocate --policy=sprad --generate=nodes=2 job.yaml
'
test_expect_success 'a policy name: an instance of the match stack first' '
	cat >stack.yaml <<-EOF &&
	match:
	  - {plugin: pack, name: packer}
	EOF
	test_error 1 "respol: match: plugin ${Q}packr${Q} not found in $PLUGINDIR; did you mean ${Q}packer${Q}?" \
		respol match allocate --config=stack.yaml --policy=packr \
			--generate=nodes=2 job.yaml &&
	test_error 1 "respol: query: plugin ${Q}packr${Q} not found in $PLUGINDIR; did you mean ${Q}packer${Q}?" \
		respol query --config=stack.yaml -P packr --generate=nodes=2 </dev/null
'
test_expect_success 'a policy name close to none' '
	test_error 1 "respol: match: plugin ${Q}best-fit${Q} not found in $PLUGINDIR" \
		respol match allocate --policy=best-fit --generate=nodes=2 job.yaml
'

test_done
