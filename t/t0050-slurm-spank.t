#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol inside Slurm: the SPANK plugin on a one-node Slurm

Starts munged, slurmctld and slurmd for this machine (t/lib-slurm.sh), then
runs steps with srun, sbatch and salloc: without --respol nothing changes;
with it the shell plugins (the fixture plugin) bind each task within what
Slurm gave the step, and every mistake stops srun or the task with its
message.  Skipped, with the reason, where Slurm cannot run.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"
. "$SHARNESS_TEST_SRCDIR/lib-slurm.sh"

slurm_start

CONF=$SLURM_DIR/respol.yaml
PLUGIN="required $RESPOL_SPANK_PLUGIN config=$CONF"
NODE=$SLURM_NODE
NCORES=$(hwloc-calc -N core all)
cpus='grep Cpus_allowed_list /proc/self/status'
test "$NCORES" -ge 2 && test_set_prereq TWO_CORES
# The shipped cpu-affinity shell plugin, once the build has it.
SHIPPED=$RESPOL_BUILDDIR/plugins/built
test -f "$SHIPPED/cpu-affinity.so" && test_set_prereq CPU_AFFINITY

# The PUs of core $1 (hwloc's logical index, R's id), as the kernel lists
# them in Cpus_allowed_list.
pus_of() {
	respol idset encode "$(hwloc-calc -I pu --po "core:$1")"
}

# write_config PLUGIN [DIR]: a shell stack of PLUGIN, found in DIR
# (default the fixture plugins').
write_config() {
	printf 'plugin-path: [%s]\nshell:\n  - plugin: %s\n' \
		"${2:-$RESPOL_FIXTURE_PLUGINDIR}" "$1" >"$CONF"
}

test_expect_success 'setup: the fixture shell plugin, the SPANK plugin' '
	write_config shell-fixture &&
	slurm_plugstack "$PLUGIN"
'

# --- without --respol ---------------------------------------------------------

test_expect_success 'without the plugin: Slurm binds the tasks' '
	slurm_plugstack "" &&
	srun -n2 -l $cpus | sort >slurm-binding &&
	test $(wc -l <slurm-binding) = 2 &&
	slurm_plugstack "$PLUGIN"
'
test_expect_success 'without --respol the plugin changes no binding' '
	srun -n2 -l $cpus | sort >got &&
	test_cmp slurm-binding got
'
test_expect_success 'without --respol the tasks get no variable of respol' '
	srun -n1 env >env &&
	grep ^SLURM_PROCID= env &&
	! grep -E "^RESPOL_(TASK_RANK|TASK_LOCAL_ID|JOB_SIZE|SHELL_RANK)=" env
'
test_expect_success 'without --respol the configuration is not read' '
	write_config nosuch &&
	srun -n1 true &&
	write_config shell-fixture
'

# --- binding ---------------------------------------------------------------------

test_expect_success TWO_CORES 'Slurm binding off: each task on its share, two cores' '
	srun -n2 -l --cpu-bind=none --respol=fixture-share $cpus | sort >got &&
	printf "0: Cpus_allowed_list:\t%s\n1: Cpus_allowed_list:\t%s\n" \
		"$(pus_of 0)" "$(pus_of 1)" >expected &&
	test_cmp expected got
'
test_expect_success TWO_CORES 'Slurm binding on: the plugin decides over it' '
	srun -n2 -l --respol=fixture-cpus="$(pus_of 1)" $cpus | sort >got &&
	printf "0: Cpus_allowed_list:\t%s\n1: Cpus_allowed_list:\t%s\n" \
		"$(pus_of 1)" "$(pus_of 1)" >expected &&
	test_cmp expected got
'
test_expect_success 'no CPU decision (off): Slurm binding stays' '
	srun -n2 -l --respol=fixture-env=A=1 $cpus | sort >got &&
	test_cmp slurm-binding got
'
test_expect_success TWO_CORES,CPU_AFFINITY 'cpu-affinity=per-task: two tasks on two cores' '
	write_config cpu-affinity "$SHIPPED" &&
	srun -n2 -l --cpu-bind=none --respol=cpu-affinity=per-task $cpus |
		sort >got &&
	write_config shell-fixture &&
	printf "0: Cpus_allowed_list:\t%s\n1: Cpus_allowed_list:\t%s\n" \
		"$(pus_of 0)" "$(pus_of 1)" >expected &&
	test_cmp expected got
'
test_expect_success CPU_AFFINITY 'cpu-affinity=off: Slurm binding stays' '
	write_config cpu-affinity "$SHIPPED" &&
	srun -n2 -l --respol=cpu-affinity=off $cpus | sort >got &&
	write_config shell-fixture &&
	test_cmp slurm-binding got
'
test_expect_success TWO_CORES 'CPUs outside the step: refused, the plugin named, no task runs' '
	last=$(pus_of $((NCORES - 1))) &&
	test_expect_code 1 srun -n1 --cpu-bind=none \
		--respol=fixture-cpus="$last" sh -c "echo ran" >out 2>err &&
	test_must_be_empty out &&
	grep -x "slurmstepd-$NODE: error: respol: shell plugin '\''shell-fixture'\'': task 0: CPUs $last are not all the job'\''s on this target ($(pus_of 0))" err
'
test_expect_success 'a plugin that fails stops the task with its message' '
	test_expect_code 1 srun -n1 --respol=fixture-fail=task_init \
		sh -c "echo ran" >out 2>err &&
	test_must_be_empty out &&
	grep -x "slurmstepd-$NODE: error: respol: shell plugin '\''shell-fixture'\'': task_init: asked to fail in task_init" err
'

# --- environment -------------------------------------------------------------------

test_expect_success 'the tasks get the plugins variables and respol ids' '
	srun -n2 -l --respol=fixture-env=X=y sh -c \
		"echo \$X \$RESPOL_TASK_RANK/\$RESPOL_JOB_SIZE \$RESPOL_TASK_LOCAL_ID \$SLURM_PROCID" |
		sort >got &&
	printf "0: y 0/2 0 0\n1: y 1/2 1 1\n" >expected &&
	test_cmp expected got
'
test_expect_success 'RESPOL_SLURM_OPTIONS, the environment form' '
	RESPOL_SLURM_OPTIONS=fixture-env=X=env srun -n1 sh -c "echo \$X" >got &&
	echo env >expected &&
	test_cmp expected got
'
test_expect_success 'an empty RESPOL_SLURM_OPTIONS is none' '
	RESPOL_SLURM_OPTIONS= srun -n2 -l $cpus | sort >got &&
	test_cmp slurm-binding got &&
	RESPOL_SLURM_OPTIONS= srun -n1 env >env &&
	! grep ^RESPOL_TASK_RANK= env
'
test_expect_success '--respol wins over RESPOL_SLURM_OPTIONS' '
	RESPOL_SLURM_OPTIONS=fixture-env=X=env \
		srun -n1 --respol=fixture-env=X=opt sh -c "echo \$X" >got &&
	echo opt >expected &&
	test_cmp expected got
'

# --- verbose ---------------------------------------------------------------------

test_expect_success TWO_CORES 'verbose: task 0 prints the binding map' '
	srun -n2 -l --cpu-bind=none --respol=fixture-share,verbose true 2>err &&
	cat >expected <<-EOF &&
	0: host $NODE (rank 0): 2 of 2 tasks; the job holds PUs $(respol idset encode "$(pus_of 0),$(pus_of 1)"), cores 0-1, GPUs -
	EOF
	grep "^0: host" err >got &&
	test_cmp expected got &&
	grep -E "^0: TASK +PUS +CORES +NUMA +PACKAGE +GPUS$" err &&
	grep -E "^0: 0 +$(pus_of 0) +0 " err &&
	grep -E "^0: 1 +$(pus_of 1) +1 " err &&
	! grep "^1: host" err
'
test_expect_success 'without verbose no map' '
	srun -n1 --respol=fixture-env=A=1 true 2>err &&
	test_must_be_empty err
'

# --- mistakes, at srun time ------------------------------------------------------

test_expect_success 'a bad --respol stops srun' '
	test_expect_code 255 srun -n1 --respol=a,,b sh -c "echo ran" >out 2>err &&
	test_must_be_empty out &&
	cat >expected <<-\EOF &&
	srun: error: respol: --respol: an empty entry (two commas, or one at either end)
	srun: error: Invalid --respol argument: a,,b
	EOF
	test_cmp expected err
'
test_expect_success 'a bad RESPOL_SLURM_OPTIONS stops srun' '
	(
		RESPOL_SLURM_OPTIONS=1x &&
		export RESPOL_SLURM_OPTIONS &&
		test_expect_code 1 srun -n1 true 2>err
	) &&
	grep -x "srun: error: respol: RESPOL_SLURM_OPTIONS: '\''1x'\'' is not KEY\[=VALUE\] (a key is a letter, then letters, digits, '\''-'\'', '\''_'\'' or '\''.'\'')" err
'
test_expect_success 'a broken configuration stops srun' '
	write_config nosuch &&
	test_expect_code 1 srun -n1 --respol=verbose sh -c "echo ran" >out 2>err &&
	write_config shell-fixture &&
	test_must_be_empty out &&
	grep "^srun: error: respol: $CONF:3:13: shell\[0\]: plugin '\''nosuch'\'' not found in " err
'
test_expect_success 'an unknown argument in plugstack.conf stops srun' '
	slurm_plugstack "$PLUGIN bogus=1" &&
	test_expect_code 1 srun -n1 true 2>err &&
	slurm_plugstack "$PLUGIN" &&
	grep -x "srun: error: respol: plugstack.conf: unknown argument '\''bogus=1'\'' (respol takes config=/absolute/file)" err
'

# --- sbatch and salloc ------------------------------------------------------------

test_expect_success TWO_CORES 'sbatch --respol: the steps of the batch script are bound' '
	job=$(sbatch --parsable -n2 -o "$SLURM_DIR/batch1.out" \
		--respol=fixture-share \
		--wrap "srun -n2 -l --cpu-bind=none $cpus") &&
	slurm_wait "$job" &&
	sort "$SLURM_DIR/batch1.out" >got &&
	printf "0: Cpus_allowed_list:\t%s\n1: Cpus_allowed_list:\t%s\n" \
		"$(pus_of 0)" "$(pus_of 1)" >expected &&
	test_cmp expected got
'
test_expect_success 'sbatch: RESPOL_SLURM_OPTIONS set in the script' '
	cat >"$SLURM_DIR/batch2.sh" <<-\EOF &&
	#!/bin/sh
	export RESPOL_SLURM_OPTIONS=fixture-env=X=script
	srun -n1 sh -c "echo \$X"
	EOF
	job=$(sbatch --parsable -n1 -o "$SLURM_DIR/batch2.out" \
		"$SLURM_DIR/batch2.sh") &&
	slurm_wait "$job" &&
	echo script >expected &&
	test_cmp expected "$SLURM_DIR/batch2.out"
'
test_expect_success 'sbatch --respol wins over RESPOL_SLURM_OPTIONS, srun --respol over both' '
	cat >"$SLURM_DIR/batch3.sh" <<-\EOF &&
	#!/bin/sh
	export RESPOL_SLURM_OPTIONS=fixture-env=X=env
	srun -n1 sh -c "echo \$X"
	srun -n1 --respol=fixture-env=X=step sh -c "echo \$X"
	EOF
	job=$(sbatch --parsable -n1 -o "$SLURM_DIR/batch3.out" \
		--respol=fixture-env=X=batch "$SLURM_DIR/batch3.sh") &&
	slurm_wait "$job" &&
	printf "batch\nstep\n" >expected &&
	test_cmp expected "$SLURM_DIR/batch3.out"
'
test_expect_success 'a bad --respol stops sbatch' '
	test_expect_code 255 sbatch --respol=a,,b --wrap true 2>err &&
	grep -x "sbatch: error: respol: --respol: an empty entry (two commas, or one at either end)" err
'
test_expect_success 'salloc --respol: the steps of the allocation' '
	salloc -n1 --respol=fixture-env=X=salloc srun -n1 sh -c "echo \$X" >got 2>err &&
	echo salloc >expected &&
	test_cmp expected got
'

test_done
