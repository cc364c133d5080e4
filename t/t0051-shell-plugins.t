#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='the shipped shell plugins cpu-affinity, gpu-affinity,
mem-affinity and openmp as a site meets them: their descriptors, the
configuration that loads them, and every bad site default or block key
with its message (their decisions are tested in shell/test/affinity.c)'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

RESPOL_PLUGIN_PATH="$RESPOL_BUILD_SHELLDIR"
export RESPOL_PLUGIN_PATH

Q="'"
SHELL_PLUGINS="cpu-affinity gpu-affinity mem-affinity openmp"

# check_block PLUGIN BLOCK MESSAGE: configuring PLUGIN with the flow-style
# BLOCK fails to load with MESSAGE (at line 3, column 13: the block).
check_block() {
	printf "shell:\n  - plugin: %s\n    config: %s\n" "$1" "$2" >block.yaml &&
	test_error 1 "respol: config: block.yaml:3:13: shell[0] $Q$1$Q: init failed: $3" \
		respol config check block.yaml
}

# good_block PLUGIN BLOCK: configuring PLUGIN with BLOCK loads.
good_block() {
	printf "shell:\n  - plugin: %s\n    config: %s\n" "$1" "$2" >good.yaml &&
	respol config check good.yaml >out &&
	echo "good.yaml: ok: 1 plugin loaded, checked and initialised with its configuration block (shell: $1); no jobspec was run through it" >expected &&
	test_cmp expected out
}

test_expect_success 'the shell plugins describe themselves' '
	for p in $SHELL_PLUGINS; do
		respol plugin info "$RESPOL_BUILD_SHELLDIR/$p.so" || return 1
	done >out &&
	sed "s|^file: $RESPOL_BUILD_SHELLDIR/|file: |" out >info &&
	cat >expected <<-EOF &&
	name: cpu-affinity
	kind: shell
	version: 0.1.0
	abi: 1
	description: bind each task to its own cores (per-task, on, off, map:LIST)
	file: cpu-affinity.so
	name: gpu-affinity
	kind: shell
	version: 0.1.0
	abi: 1
	description: give each task the GPUs nearest its cores and set CUDA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES or ZE_AFFINITY_MASK
	file: gpu-affinity.so
	name: mem-affinity
	kind: shell
	version: 0.1.0
	abi: 1
	description: bind each task${Q}s memory to the NUMA nodes of its cores (local, preferred, off)
	file: mem-affinity.so
	name: openmp
	kind: shell
	version: 0.1.0
	abi: 1
	description: set OMP_NUM_THREADS, OMP_PLACES and OMP_PROC_BIND from each task${Q}s binding
	file: openmp.so
	EOF
	test_cmp expected info
'
test_expect_success 'they export their descriptor and nothing else' '
	for p in $SHELL_PLUGINS; do
		nm -D --defined-only "$RESPOL_BUILD_SHELLDIR/$p.so" |
			awk "\$2 !~ /^[wU]$/ { print \$3 }" || return 1
	done >out &&
	printf "respol_plugin\n%.0s" 1 2 3 4 >expected &&
	test_cmp expected out
'
test_expect_success 'a shell stack of the four loads by name' '
	cat >stack.yaml <<-EOF &&
	shell:
	  - plugin: cpu-affinity
	  - plugin: gpu-affinity
	  - plugin: mem-affinity
	  - plugin: openmp
	EOF
	respol config check stack.yaml >out &&
	echo "stack.yaml: ok: 4 plugins loaded, checked and initialised with their configuration blocks (shell: cpu-affinity, gpu-affinity, mem-affinity, openmp); no jobspec was run through them" >expected &&
	test_cmp expected out
'
test_expect_success 'a site default of every kind loads' '
	good_block cpu-affinity "{default: per-task}" &&
	good_block cpu-affinity "{default: \"verbose,threads,map:0-3;0xf0\"}" &&
	good_block cpu-affinity "{default: on}" &&
	good_block cpu-affinity "{default: false}" &&
	good_block gpu-affinity "{default: \"map:0;1,2\"}" &&
	good_block mem-affinity "{default: preferred}" &&
	good_block openmp "{default: threads}" &&
	good_block openmp "{}"
'
test_expect_success 'a bad default is refused with its position' '
	check_block cpu-affinity "{default: per_task}" \
		"default: unknown mode ${Q}per_task${Q} (per-task, on, off, map:LIST; flags threads, verbose)" &&
	check_block cpu-affinity "{default: \"on,off\"}" \
		"default: two modes, ${Q}on${Q} and ${Q}off${Q}: give one" &&
	check_block cpu-affinity "{default: \"\"}" \
		"default: empty value (per-task, on, off, map:LIST; flags threads, verbose)" &&
	check_block cpu-affinity "{default: 3}" \
		"default: must be a string such as ${Q}per-task${Q} (per-task, on, off, map:LIST; flags threads, verbose)" &&
	check_block cpu-affinity "{default: \"map:0-3;0xzz\"}" \
		"default: map: entry 2 ${Q}0xzz${Q}: not a hexadecimal mask" &&
	check_block gpu-affinity "{default: \"map:0;;1\"}" \
		"default: map: entry 2 is empty" &&
	check_block gpu-affinity "{default: threads}" \
		"default: unknown mode ${Q}threads${Q} (per-task, on, off, map:LIST; flags verbose)" &&
	check_block mem-affinity "{default: bind}" \
		"default: unknown mode ${Q}bind${Q} (local, preferred, off; flags verbose)" &&
	check_block openmp "{default: \"on,,threads\"}" \
		"default: empty item in ${Q}on,,threads${Q}"
'
test_expect_success 'a key other than default is refused by the host, at the key' '
	printf "shell:\n  - plugin: mem-affinity\n    config: {mode: local}\n" >key.yaml &&
	test_error 1 "respol: config: key.yaml:3:14: shell[0] ${Q}mem-affinity${Q}: unknown key ${Q}mode${Q}" \
		respol config check key.yaml
'
test_done
