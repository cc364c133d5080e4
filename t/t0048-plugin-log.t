#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='plugin logs: -v, RESPOL_LOG, the log block of respol.yaml

Plugin messages are printed as "respol: SUB: INSTANCE: LEVEL: message",
from every operation, up to the level: warning by default, the
configuration file'"'"'s log.level, RESPOL_LOG over the file, -v (info) and
-vv (debug) over both.  The fixtures crash and crash-match log "OP at
LEVEL" at every level from every operation when their block says log:
true.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

FIX="$RESPOL_FIXTURE_PLUGINDIR"
Q="'"

# logging FILE STACK PLUGIN [LOG-BLOCK]
logging() {
	printf "plugin-path: [%s]\n%s:\n  - plugin: %s\n    config: {log: true}\n" \
		"$FIX" "$2" "$3" >"$1" &&
	if test -n "$4"; then echo "log: $4" >>"$1"; fi
}

# levels SUB INSTANCE OP LEVEL...: the lines OP logs at those levels
levels() {
	_sub=$1 _inst=$2 _op=$3
	shift 3
	for _l in "$@"; do
		case $_l in err) _name=error ;; *) _name=$_l ;; esac
		echo "respol: $_sub: $_inst: $_name: $_op at $_l"
	done
}

test_expect_success 'setup' '
	respol jobspec create -n1 hostname >job.yaml &&
	logging v.yaml validate crash &&
	logging m.yaml match crash-match
'

test_expect_success 'by default, warning and worse, from init, validate and fini' '
	respol jobspec validate --config=v.yaml job.yaml 2>err &&
	{ levels jobspec crash init err warning &&
	  levels jobspec crash validate err warning &&
	  levels jobspec crash fini err warning; } >expected &&
	test_cmp expected err
'
test_expect_success '-v: up to info' '
	respol jobspec validate -v --config=v.yaml job.yaml 2>err &&
	levels jobspec crash validate err warning notice info >expected &&
	grep " validate at " err >got &&
	test_cmp expected got
'
test_expect_success '-vv, -v -v, --verbose --verbose: up to debug' '
	levels jobspec crash validate err warning notice info debug >expected &&
	for opts in -vv "-v -v" "--verbose --verbose"; do
		respol jobspec validate $opts --config=v.yaml job.yaml 2>err &&
		grep " validate at " err >got &&
		test_cmp expected got || return 1
	done
'
test_expect_success '-v before the subcommand, for every subcommand' '
	respol -v jobspec validate --config=v.yaml job.yaml 2>err &&
	levels jobspec crash validate err warning notice info >expected &&
	grep " validate at " err >got &&
	test_cmp expected got &&
	respol -vv --verbose idset encode 1,2 >out &&
	echo 1-2 >expected &&
	test_cmp expected out
'
test_expect_success 'every operation of a match policy logs: init, score, prune, order_candidates, fini' '
	respol match allocate --config=m.yaml --generate=nodes=2,cores=2 job.yaml >/dev/null 2>err &&
	for op in init score prune order_candidates fini; do
		levels match crash-match $op err warning >expected &&
		grep " $op at " err | sort -u >got &&
		test_cmp expected got || return 1
	done
'
test_expect_success 'respol query -v and respol match -vv' '
	echo "match allocate job.yaml" >cmds &&
	respol query -v --config=m.yaml --generate=nodes=2 -f cmds >/dev/null 2>err &&
	levels query crash-match score err warning notice info >expected &&
	grep " score at " err | sort -u | sort -t: -k4 >got &&
	sort -t: -k4 expected >want &&
	test_cmp want got &&
	respol match allocate -vv --config=m.yaml --generate=nodes=2 job.yaml >/dev/null 2>err &&
	grep -q "^respol: match: crash-match: debug: prune at debug$" err
'
test_expect_success 'config check -v and plugin list -v show init at info' '
	respol config check -v v.yaml >/dev/null 2>err &&
	grep -q "^respol: config: crash: info: init at info$" err &&
	! grep -q "debug" err &&
	respol plugin list -v --config=v.yaml >/dev/null 2>err &&
	grep -q "^respol: plugin: crash: info: init at info$" err
'
test_expect_success 'RESPOL_LOG: a name or a number' '
	RESPOL_LOG=notice respol jobspec validate --config=v.yaml job.yaml 2>err &&
	levels jobspec crash validate err warning notice >expected &&
	grep " validate at " err >got &&
	test_cmp expected got &&
	RESPOL_LOG=3 respol jobspec validate --config=v.yaml job.yaml 2>err &&
	levels jobspec crash validate err >expected &&
	grep " validate at " err >got &&
	test_cmp expected got &&
	RESPOL_LOG=error respol jobspec validate --config=v.yaml job.yaml 2>err &&
	grep " validate at " err >got &&
	test_cmp expected got
'
test_expect_success 'RESPOL_LOG with an unknown level: a warning, then the default' '
	RESPOL_LOG=loud respol jobspec validate --config=v.yaml job.yaml 2>err &&
	head -n 1 err >first &&
	echo "respol: jobspec: warning: RESPOL_LOG: unknown level ${Q}loud${Q} (err, warning, notice, info, debug, or 3 to 7); ignored" >expected &&
	test_cmp expected first &&
	test $(grep -c "RESPOL_LOG" err) = 1 &&
	levels jobspec crash validate err warning >expected &&
	grep " validate at " err >got &&
	test_cmp expected got
'
test_expect_success 'the command line wins over RESPOL_LOG' '
	RESPOL_LOG=debug respol jobspec validate -v --config=v.yaml job.yaml 2>err &&
	! grep -q ": debug: " err
'
test_expect_success 'the file'"'"'s log.level; RESPOL_LOG and -v win over it' '
	logging lv.yaml validate crash "{level: info}" &&
	respol jobspec validate --config=lv.yaml job.yaml 2>err &&
	levels jobspec crash validate err warning notice info >expected &&
	grep " validate at " err >got &&
	test_cmp expected got &&
	RESPOL_LOG=err respol jobspec validate --config=lv.yaml job.yaml 2>err &&
	levels jobspec crash validate err >expected &&
	grep " validate at " err >got &&
	test_cmp expected got &&
	respol jobspec validate -vv --config=lv.yaml job.yaml 2>err &&
	grep -q ": debug: validate at debug$" err
'
test_expect_success 'to: a file: lines with time, program, pid, instance, level' '
	logging lf.yaml validate crash "{to: $PWD/plugins.log, level: notice}" &&
	respol jobspec validate --config=lf.yaml job.yaml 2>err &&
	test_must_be_empty err &&
	test $(wc -l <plugins.log) = 9 &&
	grep -E "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z [a-z-]*respol\[[0-9]+\]: crash: notice: validate at notice$" plugins.log &&
	test "$(stat -c %a plugins.log)" = 600
'
test_expect_success 'to: a file, -v: the command line sets the level, the file stays the destination' '
	rm -f plugins.log &&
	respol jobspec validate -vv --config=lf.yaml job.yaml 2>err &&
	test_must_be_empty err &&
	test $(wc -l <plugins.log) = 15
'
test_expect_success 'to: a file in a directory others can write: a warning, and stderr' '
	mkdir -m 0777 shared && chmod 0777 shared &&
	logging ls.yaml validate crash "{to: $PWD/shared/p.log}" &&
	respol jobspec validate --config=ls.yaml job.yaml 2>err &&
	echo "respol: jobspec: warning: ls.yaml:5:11: log: ${Q}to${Q}: $PWD/shared/p.log: refusing to write: its directory is writable by group or others (mode 0777): chmod go-w, or chmod +t if shared; plugin messages go to stderr" >expected &&
	grep "warning: ls.yaml" err >got &&
	test_cmp expected got &&
	grep -q "^respol: jobspec: crash: error: validate at err$" err &&
	! test -e shared/p.log
'
test_expect_success 'config check: a bad log block is an error at its line and column' '
	printf "log:\n  level: loud\n" >bad.yaml &&
	test_error 1 "respol: config: bad.yaml:2:10: log: ${Q}level${Q} must be err, warning, notice, info, debug, or 3 to 7" \
		respol config check bad.yaml &&
	printf "log:\n  to: syslog\n  colour: red\n" >bad.yaml &&
	test_error 1 "respol: config: bad.yaml:3:3: log: unknown key ${Q}colour${Q}" \
		respol config check bad.yaml
'
test_expect_success '-v where no plugin runs is refused after the subcommand' '
	test_error 2 "respol: jobspec: convert: unknown option ${Q}-v${Q}
Try ${Q}respol jobspec --help${Q} for more information." \
		respol jobspec convert -v job.yaml &&
	test_expect_code 2 respol jobspec summary --verbose job.yaml 2>err &&
	grep -q "summary: unknown option ${Q}--verbose${Q}" err
'

test_done
