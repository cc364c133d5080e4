#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='who submits and what is running: the submission context
(--user, --account, --queue) seen by validators and match policies, job
events, holds, and the user-limits validator in respol query scripts with
several users'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

FIX="$RESPOL_FIXTURE_PLUGINDIR"
GEN=nodes=4,cores=4
Q="'"

test_expect_success 'setup: jobs, configurations' '
	respol jobspec create -N1 -n1 -c2 -t 1h -- app >job.yaml &&
	respol jobspec create -N2 -n2 -c4 -t 1h -- app >big.yaml &&
	respol jobspec create -N1 -n1 -c1 -t 1h -S bank=physics -q debug -- app >bank.yaml &&
	cat >who.yaml <<-EOF &&
	validate: [{plugin: $FIX/whoami.so}]
	match: [{plugin: $FIX/who-policy.so}]
	EOF
	cat >hold.yaml <<-EOF &&
	validate: [{plugin: $FIX/hold-all.so}]
	EOF
	cat >limits.yaml <<-EOF
	validate:
	  - plugin: user-limits
	    config:
	      user: {max-running-jobs: 1, max-pending-jobs: 2, max-cores: 8}
	      users: {daemon: {max-running-jobs: 2}, "3999999": {max-cores: 2}}
	      account: {max-nodes: 3}
	EOF
'

# The context a validator sees

test_expect_success 'jobspec validate: the caller, and the jobspec bank and queue, by default' '
	respol jobspec validate --config=who.yaml bank.yaml 2>err &&
	echo "respol: jobspec: warning: bank.yaml: whoami: user=$(id -un) uid=$(id -u) groups=$(id -G | wc -w) account=physics queue=debug jobid=- origin=command instance=no" >expected &&
	test_cmp expected err
'
test_expect_success 'jobspec validate --user --account --queue set it' '
	respol jobspec validate --config=who.yaml --user=daemon \
		--account=chem --queue=batch bank.yaml 2>err &&
	echo "respol: jobspec: warning: bank.yaml: whoami: user=daemon uid=1 groups=$(id -G daemon | wc -w) account=chem queue=batch jobid=- origin=command instance=no" >expected &&
	test_cmp expected err
'
test_expect_success 'a uid the password database does not know is a user without a name' '
	respol jobspec validate --config=who.yaml --user=3999999 job.yaml 2>err &&
	grep "whoami: user=- uid=3999999 groups=0 " err
'
test_expect_success 'an unknown user name is an error' '
	test_error 1 "respol: jobspec: unknown user ${Q}no-such-user-here$Q" \
		respol jobspec validate --config=who.yaml --user=no-such-user-here job.yaml
'
test_expect_success 'a negative uid is an error' '
	test_error 1 "respol: jobspec: user ${Q}-5$Q: not a name or a uid" \
		respol jobspec validate --config=who.yaml --user=-5 job.yaml
'
test_expect_success 'an empty account is an error' '
	test_error 1 "respol: jobspec: account ${Q}$Q: empty or longer than 255 bytes" \
		respol jobspec validate --config=who.yaml --account= job.yaml
'
test_expect_success 'the options are validate options only' '
	test_expect_code 2 respol jobspec summary --user=root job.yaml 2>err &&
	grep "unknown option ${Q}--user$Q" err
'

# A hold without an instance

test_expect_success 'jobspec validate: a held job is valid, the hold is reported' '
	respol jobspec validate --config=hold.yaml job.yaml 2>err &&
	echo "respol: jobspec: job.yaml: held: hold-all: held by hold-all (queue -)" >expected &&
	test_cmp expected err
'

# The context a match policy sees

test_expect_success 'match --user: the policy reads who submits' '
	respol match allocate --config=who.yaml --generate=$GEN --user=root \
		job.yaml 2>err >R1 &&
	respol R decode --short <R1 >out &&
	echo "rank0/core[0-1]" >expected &&
	test_cmp expected out &&
	respol match allocate --config=who.yaml --generate=$GEN --user=daemon \
		--account=chem job.yaml 2>err >R2 &&
	respol R decode --short <R2 >out &&
	echo "rank1/core[0-1]" >expected &&
	test_cmp expected out &&
	grep "who-policy: warning: match for user=daemon account=chem instance=no" err
'

# query: an instance, events, holds

test_expect_success 'query: job events reach validators and policies, in order' '
	cat >script <<-\EOF &&
	match allocate --user=daemon job.yaml
	free 1
	EOF
	respol query -F short --config=who.yaml --generate=$GEN -f script \
		>out 2>err &&
	echo "1: node1: core[0-1]" >expected &&
	test_cmp expected out &&
	cat >expected <<-EOF &&
	respol: query: line 1: warning: whoami: user=daemon uid=1 groups=$(id -G daemon | wc -w) account=- queue=- jobid=1 origin=command instance=yes
	respol: query: who-policy: warning: match for user=daemon account=- instance=yes
	respol: query: whoami: warning: event accepted: job 1 pending
	respol: query: who-policy: warning: event accepted: job 1
	respol: query: whoami: warning: event started: job 1 running
	respol: query: who-policy: warning: event started: job 1
	respol: query: whoami: warning: event finished: job 1 running
	respol: query: who-policy: warning: event finished: job 1
	EOF
	test_cmp expected err
'
test_expect_success 'query: each job its own context, made again when its WHO or jobspec differ' '
	cat >script <<-\EOF &&
	match allocate job.yaml
	match allocate bank.yaml
	match allocate --account=chem bank.yaml
	match allocate --account=chem bank.yaml
	match allocate --queue=batch bank.yaml
	match allocate bank.yaml
	match allocate --user=daemon bank.yaml
	match allocate bank.yaml
	match allocate job.yaml
	EOF
	respol query -F short --config=who.yaml --generate=nodes=4,cores=16 \
		-f script >out 2>err &&
	sed -n "s/.*warning: whoami: user=\([^ ]*\) .* \(account=.*\) origin=.*/\1 \2/p" \
		err >got &&
	me=$(id -un) &&
	cat >expected <<-EOF &&
	$me account=- queue=- jobid=1
	$me account=physics queue=debug jobid=2
	$me account=chem queue=debug jobid=3
	$me account=chem queue=debug jobid=4
	$me account=physics queue=batch jobid=5
	$me account=physics queue=debug jobid=6
	daemon account=physics queue=debug jobid=7
	$me account=physics queue=debug jobid=8
	$me account=- queue=- jobid=9
	EOF
	test_cmp expected got
'
test_expect_success 'query: a held job keeps its id, shows its reason, and starts after schedule' '
	cat >script <<-\EOF &&
	match allocate job.yaml
	info 1
	jobs
	EOF
	respol query -F short --config=hold.yaml --generate=$GEN -f script \
		>out &&
	cat >expected <<-EOF &&
	1: held: hold-all: held by hold-all (queue -)
	1: held: hold-all: held by hold-all (queue -)
	1: held user=$(id -un) account=- queue=-: hold-all: held by hold-all (queue -)
	EOF
	test_cmp expected out
'
test_expect_success 'query: -F json prints the id line, then the state' '
	echo "submit job.yaml" | respol query --config=hold.yaml \
		--generate=$GEN >out &&
	printf "jobid=1\nheld: hold-all: held by hold-all (queue -)\n" >expected &&
	test_cmp expected out
'
test_expect_success 'query: jobs in JSON, one object per line' '
	printf "submit --user=daemon --account=chem --queue=batch job.yaml\njobs\n" |
		respol query --generate=$GEN >out &&
	printf "jobid=1\npending\n{\"account\":\"chem\",\"id\":1,\"queue\":\"batch\",\"state\":\"pending\",\"uid\":1,\"user\":\"daemon\"}\n" >expected &&
	test_cmp expected out
'

# user-limits: several users

test_expect_success 'user-limits: a second job of a user is held, another user runs' '
	cat >script <<-\EOF &&
	match allocate --user=root job.yaml
	match allocate --user=root job.yaml
	match allocate --user=daemon job.yaml
	match allocate --user=daemon job.yaml
	match allocate --user=daemon job.yaml
	usage user root
	usage user daemon
	jobs
	EOF
	respol query -F short --config=limits.yaml --generate=$GEN -f script >out &&
	cat >expected <<-\EOF &&
	1: node0: core[0-1]
	2: held: user-limits: user root runs 1 job, limit is 1
	3: node0: core[2-3]
	4: node1: core[0-1]
	5: held: user-limits: user daemon runs 2 jobs, limit is 2
	{"cores":2,"gpus":0,"nodes":1,"pending_jobs":1,"running_jobs":1}
	{"cores":4,"gpus":0,"nodes":2,"pending_jobs":1,"running_jobs":2}
	1: running user=root account=- queue=-
	2: held user=root account=- queue=-: user-limits: user root runs 1 job, limit is 1
	3: running user=daemon account=- queue=-
	4: running user=daemon account=- queue=-
	5: held user=daemon account=- queue=-: user-limits: user daemon runs 2 jobs, limit is 2
	EOF
	test_cmp expected out
'
test_expect_success 'user-limits: held jobs start in order once the others end' '
	cat >script <<-\EOF &&
	match allocate --user=root job.yaml
	match allocate --user=root job.yaml
	schedule
	free 1
	schedule
	info 2
	EOF
	respol query -F short --config=limits.yaml --generate=$GEN -f script >out &&
	cat >expected <<-\EOF &&
	1: node0: core[0-1]
	2: held: user-limits: user root runs 1 job, limit is 1
	2: node0: core[0-1]
	2: node0: core[0-1]
	EOF
	test_cmp expected out
'
test_expect_success 'user-limits: too many pending jobs is a rejection, the script goes on' '
	cat >script <<-\EOF &&
	match allocate --user=root job.yaml
	submit --user=root job.yaml
	submit --user=root job.yaml
	submit --user=root job.yaml
	jobs
	EOF
	test_expect_code 1 respol query -F short --config=limits.yaml \
		--generate=$GEN -f script >out 2>err &&
	echo "respol: query: line 4: submit --user=root job.yaml: rejected: user-limits: user root has 2 pending jobs, limit is 2" >expected &&
	test_cmp expected err &&
	cat >expected <<-\EOF &&
	1: node0: core[0-1]
	2: held: user-limits: user root runs 1 job, limit is 1
	3: held: user-limits: user root runs 1 job, limit is 1
	1: running user=root account=- queue=-
	2: held user=root account=- queue=-: user-limits: user root runs 1 job, limit is 1
	3: held user=root account=- queue=-: user-limits: user root runs 1 job, limit is 1
	EOF
	test_cmp expected out
'
test_expect_success 'user-limits: a job alone above a user limit is rejected, per user' '
	cat >script <<-\EOF &&
	match allocate --user=3999999 job.yaml
	match allocate --user=3999999 big.yaml
	match allocate --user=root big.yaml
	EOF
	test_expect_code 1 respol query -F short --config=limits.yaml \
		--generate=$GEN -f script >out 2>err &&
	echo "respol: query: line 2: match allocate --user=3999999 big.yaml: rejected: user-limits: requests 8 cores, user 3999999 may hold 2" >expected &&
	test_cmp expected err &&
	cat >expected <<-\EOF &&
	1: node0: core[0-1]
	2: node1: core[0-3]; node2: core[0-3]
	EOF
	test_cmp expected out
'
test_expect_success 'user-limits: an account limit counts its users together' '
	cat >script <<-\EOF &&
	match allocate --user=root --account=chem big.yaml
	match allocate --user=daemon --account=chem big.yaml
	usage account chem
	EOF
	respol query -F short --config=limits.yaml --generate=$GEN -f script >out &&
	cat >expected <<-\EOF &&
	1: node0: core[0-3]; node1: core[0-3]
	2: held: user-limits: account chem holds 2 of 3 nodes, this job needs 2
	{"cores":8,"gpus":0,"nodes":2,"pending_jobs":1,"running_jobs":1}
	EOF
	test_cmp expected out
'
test_expect_success 'user-limits: jobspec validate checks what it can without an instance' '
	respol jobspec validate --config=limits.yaml job.yaml 2>err &&
	test_must_be_empty err &&
	test_expect_code 1 respol jobspec validate --config=limits.yaml \
		--user=3999999 big.yaml 2>err &&
	echo "respol: jobspec: big.yaml: user-limits: requests 8 cores, user 3999999 may hold 2" >expected &&
	test_cmp expected err
'
test_expect_success 'user-limits: a rejected submission uses no job id' '
	cat >script <<-\EOF &&
	match allocate --user=3999999 big.yaml
	match allocate --user=root job.yaml
	EOF
	test_expect_code 1 respol query -F short --config=limits.yaml \
		--generate=$GEN -f script >out 2>/dev/null &&
	echo "1: node0: core[0-1]" >expected &&
	test_cmp expected out
'

# user-limits: its configuration

while IFS='	' read -r block message; do
	test_expect_success "user-limits configuration: $message" "
		printf 'validate:\n  - plugin: user-limits\n    config: %s\n' '$block' >bad.yaml &&
		test_expect_code 1 respol config check bad.yaml 2>err &&
		grep -F \"user-limits${Q}: init failed: $message\" err
	"
done <<-EOF
{}	no limit is configured (user, users, account, accounts: max-running-jobs, max-pending-jobs, max-nodes, max-cores, max-gpus)
{users: {alice: {}}}	no limit is configured (user, users, account, accounts: max-running-jobs, max-pending-jobs, max-nodes, max-cores, max-gpus)
{user: {max-jobs: 1}}	user: unknown key ${Q}max-jobs$Q
{user: {max-nodes: -1}}	user.max-nodes: must be an integer >= 0
{users: {alice: {max-gpus: x}}}	users.alice.max-gpus: must be an integer >= 0
{users: []}	users: must be a mapping
{account: 5}	account: must be a mapping
EOF

test_expect_success 'user-limits configuration: an unknown top-level key, at the key, with a suggestion' '
	printf "validate:\n  - plugin: user-limits\n    config: {acount: {}}\n" >bad.yaml &&
	test_expect_code 1 respol config check bad.yaml 2>err &&
	grep -F "bad.yaml:3:14: validate[0] ${Q}user-limits$Q: unknown key ${Q}acount$Q" err &&
	grep -F "did you mean ${Q}account$Q?" err
'

test_done
