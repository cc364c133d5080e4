#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='the respol shell plugin inside Flux on a test topology

The instance sees the machine of t/data/topologies/coral-lassen.xml (two
packages, 40 cores of four PUs, four NVIDIA GPUs) through
FLUX_HWLOC_XMLFILE, flux-core'"'"'s test-only override; the respol shell
plugin reads the shell'"'"'s copy of its broker'"'"'s topology, so it sees
the same machine, and R'"'"'s ids mean the same to both.  Nothing binds
CPUs here (this machine has none of those PUs): Flux'"'"'s cpu-affinity is
off, and respol'"'"'s stack decides GPUs.  Skipped when respol was
configured without --with-flux.'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-flux.sh"
. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"
test_under_flux 1 "$RESPOL_DATA/topologies/coral-lassen.xml"

run() {
	timeout 60 flux run --label-io -o cpu-affinity=off "$@"
}
gpus='echo CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES'

# The shipped gpu-affinity plugin.
gpu_affinity=$RESPOL_BUILDDIR/plugins/built/gpu-affinity.so

test_expect_success 'setup: configurations, initrcs' '
	flux_shell_rc fixture "$RESPOL_FIXTURE_PLUGINDIR/shell-fixture.so" &&
	flux_shell_rc gpu "$gpu_affinity"
'
test_expect_success 'Flux sees the test machine: 40 cores, 4 GPUs' '
	flux resource list -no "{ncores} {ngpus}" >got &&
	echo "40 4" >expected &&
	test_cmp expected got
'
test_expect_success 'respol sees it too: core 0 is PUs 8-11 there' '
	test_must_fail run -N1 -n1 -c1 -o userrc=fixture.lua \
		-o respol.fixture-cpus=0 true 2>err &&
	grep "FATAL: respol: shell plugin .shell-fixture.: task 0: CPUs 0 are not all the job.s on this target (8-11)" err
'
test_expect_success 'a GPU decision outside the job GPUs is refused' '
	test_must_fail run -N1 -n1 -g1 -o userrc=fixture.lua \
		-o respol.fixture-gpus=1 true 2>err &&
	grep "FATAL: respol: shell plugin .shell-fixture.: task 0: GPUs 1 are not all the job.s on this target (0)" err
'
test_expect_success 'a GPU decision inside the job is accepted' '
	run -N1 -n2 -g1 -o userrc=fixture.lua -o respol.fixture-gpus=1 \
		true
'
test_expect_success 'without respol, Flux gives every task all the job GPUs' '
	run -N1 -n2 -g1 sh -c "$gpus" >out &&
	printf "0: CUDA_VISIBLE_DEVICES=0,1\n1: CUDA_VISIBLE_DEVICES=0,1\n" \
		>expected &&
	sort out >got &&
	test_cmp expected got
'
test_expect_success 'respol gpu-affinity per-task: each task its own GPU' '
	run -N1 -n2 -g1 -o userrc=gpu.lua -o respol.gpu-affinity=per-task \
		sh -c "$gpus" >out &&
	printf "0: CUDA_VISIBLE_DEVICES=0\n1: CUDA_VISIBLE_DEVICES=1\n" \
		>expected &&
	sort out >got &&
	test_cmp expected got
'
test_expect_success '-o respol.gpu-affinity=off: Flux variable stays' '
	run -N1 -n2 -g1 -o userrc=gpu.lua -o respol.gpu-affinity=off \
		sh -c "$gpus" >out &&
	printf "0: CUDA_VISIBLE_DEVICES=0,1\n1: CUDA_VISIBLE_DEVICES=0,1\n" \
		>expected &&
	sort out >got &&
	test_cmp expected got
'
test_done
