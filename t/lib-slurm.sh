# SPDX-License-Identifier: LGPL-3.0-or-later
# Sourced by the Slurm tests after lib-respol.sh: a one-node Slurm of this
# machine, in a private directory, for the SPANK plugin's tests.
#
#   slurm_start   start munged, slurmctld and slurmd, and wait until the
#                 node is idle; when they cannot run here, skip every test
#                 and say why (never pass silently)
#   slurm_plugstack LINE...   rewrite plugstack.conf (srun and slurmstepd
#                 read it at each step)
#   slurm_wait JOBID          wait until a batch job has ended
#   srun, sbatch, salloc      Slurm's commands, each limited to two
#                             minutes (functions, below)
#
# Every daemon started is stopped by its pid file when the script exits,
# whatever way it does (a failed test, a signal), and the directory is
# removed; when a test failed, the daemons' logs are kept in the trash
# directory (slurm-logs/).  Known to work on Debian 12 (Slurm 22.05) as
# root, without systemd or cgroups:
#  - munged with its socket, key (made by mungekey, mode 600), log, pid
#    and seed files in the directory (the socket's directory mode 755);
#  - slurm.conf with SlurmUser=root, proctrack/linuxproc, task/affinity,
#    select/cons_tres with CR_Core, AuthInfo naming that socket, every
#    state, spool, pid and log file in the directory, two ports nothing
#    listens on, PlugStackConfig, and the node line of slurmd -C (without
#    RealMemory, which the tests need not and the daemons would check);
#  - SLURM_CONF exported, which every daemon and client reads.
# The directory is below /tmp: the munge socket's path must fit a
# sockaddr_un, and Slurm's paths may not hold the space of sharness's
# trash directory.

# Slurm's commands as the tests call them: a step that hangs fails its
# test after two minutes (exit 124) instead of holding the suite.
srun() { timeout -k 5 120 srun "$@"; }
sbatch() { timeout -k 5 120 sbatch "$@"; }
salloc() { timeout -k 5 120 salloc "$@"; }

slurm_skip() {
	skip_all="$*"
	test_done
}

slurm_prereqs() {
	if test "$(id -u)" != 0; then
		slurm_skip "slurmd runs tasks as their users: it needs root"
	fi
	if test -z "${RESPOL_SPANK_PLUGIN:-}" || ! test -f "$RESPOL_SPANK_PLUGIN"; then
		slurm_skip "the SPANK plugin was not built (configure found no slurm/spank.h, or --without-slurm: scripts/install-deps --slurm)"
	fi
	if test -n "${RESPOL_SANITIZERS:-}"; then
		slurm_skip "the SPANK plugin is built with sanitizers: their runtime preloaded into slurmstepd, which forks while its threads allocate, can deadlock the forked task (seen: a task of srun -n2 hung in the runtime's allocator lock); the plugin's per-task logic runs under the sanitizers in shell/slurm/test/test_step.t, and against Slurm in the plain build"
	fi
	for _c in munged mungekey munge slurmctld slurmd srun sbatch sinfo squeue scancel ss; do
		command -v "$_c" >/dev/null 2>&1 ||
			slurm_skip "$_c is not installed (scripts/install-deps --slurm)"
	done
}

# A TCP port nothing listens on, from 20000-59999.
slurm_free_port() {
	for _i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		_p=$(( $(od -An -N2 -tu2 /dev/urandom) % 40000 + 20000 ))
		if test "$_p" != "${_taken:-}" &&
			test -z "$(ss -Hltn "sport = :$_p" 2>/dev/null)"; then
			echo "$_p"
			return 0
		fi
	done
	return 1
}

# The pid in pid file $1 when that process runs program $2.
slurm_pid() {
	test -r "$1" || return 1
	_pid=$(cat "$1" 2>/dev/null) || return 1
	case "$_pid" in '' | *[!0-9]*) return 1 ;; esac
	tr '\0' ' ' <"/proc/$_pid/cmdline" 2>/dev/null | grep -q "$2" || return 1
	echo "$_pid"
}

# Stop the daemon of pid file $1 (program $2): TERM, then KILL after 10 s.
slurm_kill() {
	_pid=$(slurm_pid "$1" "$2") || return 0
	kill -TERM "$_pid" 2>/dev/null
	for _i in $(seq 100); do
		kill -0 "$_pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$_pid" 2>/dev/null
}

slurm_stop() {
	test -n "${SLURM_DIR:-}" && test -d "$SLURM_DIR" || return 0
	if slurm_pid "$SLURM_DIR/slurmctld.pid" slurmctld >/dev/null; then
		timeout 10 scancel --full --quiet --user="$(id -un)" 2>/dev/null
		for _i in $(seq 100); do
			test -z "$(timeout 5 squeue -h -o %i 2>/dev/null)" && break
			sleep 0.1
		done
	fi
	slurm_kill "$SLURM_DIR/slurmd.pid" slurmd
	slurm_kill "$SLURM_DIR/slurmctld.pid" slurmctld
	slurm_kill "$SLURM_DIR/munge/munged.pid" munged
	if test "${test_failure:-0}" != 0 && test -d "${SHARNESS_TRASH_DIRECTORY:-}"; then
		mkdir -p "$SHARNESS_TRASH_DIRECTORY/slurm-logs" &&
			cp "$SLURM_DIR"/log/* "$SLURM_DIR"/munge/*.log \
				"$SHARNESS_TRASH_DIRECTORY/slurm-logs/" 2>/dev/null
	fi
	rm -rf "$SLURM_DIR"
	SLURM_DIR=
}

# sharness's EXIT trap (die) after ours; signals exit, so that it runs.
trap '_slurm_rc=$?; slurm_stop; (exit $_slurm_rc); die' EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM

slurm_start_munge() {
	mkdir -m 0755 "$SLURM_DIR/munge" &&
		mungekey --create --keyfile="$SLURM_DIR/munge/munge.key" &&
		chmod 600 "$SLURM_DIR/munge/munge.key" &&
		munged --socket="$SLURM_DIR/munge/socket" \
			--key-file="$SLURM_DIR/munge/munge.key" \
			--log-file="$SLURM_DIR/munge/munged.log" \
			--pid-file="$SLURM_DIR/munge/munged.pid" \
			--seed-file="$SLURM_DIR/munge/seed" &&
		munge -n -S "$SLURM_DIR/munge/socket" |
		unmunge -S "$SLURM_DIR/munge/socket" >/dev/null
}

slurm_write_conf() {
	_node=$(slurmd -C | sed -n 's/ RealMemory=[0-9]*//; /^NodeName=/p')
	SLURM_NODE=$(echo "$_node" | sed 's/^NodeName=\([^ ]*\).*/\1/')
	_ctld=$(slurm_free_port) && _taken=$_ctld && _slurmd=$(slurm_free_port) ||
		return 1
	mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool" "$SLURM_DIR/log" || return 1
	cat >"$SLURM_DIR/slurm.conf" <<-EOF
	ClusterName=respoltest
	SlurmctldHost=$SLURM_NODE(127.0.0.1)
	SlurmUser=root
	SlurmdUser=root
	SlurmctldPort=$_ctld
	SlurmdPort=$_slurmd
	AuthType=auth/munge
	CredType=cred/munge
	AuthInfo=socket=$SLURM_DIR/munge/socket
	StateSaveLocation=$SLURM_DIR/state
	SlurmdSpoolDir=$SLURM_DIR/spool
	SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
	SlurmdPidFile=$SLURM_DIR/slurmd.pid
	SlurmctldLogFile=$SLURM_DIR/log/slurmctld.log
	SlurmdLogFile=$SLURM_DIR/log/slurmd.log
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/affinity
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core
	SchedulerType=sched/backfill
	JobCompType=jobcomp/none
	AccountingStorageType=accounting_storage/none
	JobAcctGatherType=jobacct_gather/none
	MpiDefault=none
	ReturnToService=2
	PlugStackConfig=$SLURM_DIR/plugstack.conf
	$_node NodeAddr=127.0.0.1 State=UNKNOWN
	PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
	EOF
	: >"$SLURM_DIR/plugstack.conf"
}

# The last line of a log, for a reason to skip.
slurm_last() {
	tail -n 1 "$1" 2>/dev/null | sed 's/^\[[^]]*\] //'
}

slurm_start() {
	slurm_prereqs
	SLURM_DIR=$(mktemp -d /tmp/respol-slurm.XXXXXX) && chmod 755 "$SLURM_DIR" ||
		slurm_skip "cannot make a directory below /tmp"
	SLURM_CONF=$SLURM_DIR/slurm.conf
	export SLURM_CONF
	slurm_start_munge >"$SLURM_DIR/start.log" 2>&1 ||
		slurm_skip "munged did not start: $(slurm_last "$SLURM_DIR/munge/munged.log")"
	slurm_write_conf >>"$SLURM_DIR/start.log" 2>&1 ||
		slurm_skip "cannot write slurm.conf: $(slurm_last "$SLURM_DIR/start.log")"
	slurmctld >>"$SLURM_DIR/start.log" 2>&1 ||
		slurm_skip "slurmctld did not start: $(slurm_last "$SLURM_DIR/log/slurmctld.log")"
	slurmd >>"$SLURM_DIR/start.log" 2>&1 ||
		slurm_skip "slurmd did not start: $(slurm_last "$SLURM_DIR/log/slurmd.log")"
	for _i in $(seq 300); do
		test "$(timeout 5 sinfo -h -n "$SLURM_NODE" -o %T 2>/dev/null)" = idle &&
			return 0
		sleep 0.1
	done
	slurm_skip "node $SLURM_NODE is not idle after 30 s: $(timeout 5 sinfo -h -N -o '%T %E' 2>&1)"
}

slurm_plugstack() {
	printf '%s\n' "$@" >"$SLURM_DIR/plugstack.conf"
}

slurm_wait() {
	for _i in $(seq 300); do
		test -z "$(timeout 5 squeue -h -j "$1" -o %i 2>/dev/null)" && return 0
		sleep 0.1
	done
	echo "job $1 still runs after 30 s"
	return 1
}
