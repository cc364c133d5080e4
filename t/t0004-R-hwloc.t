#!/bin/sh
# SPDX-License-Identifier: LGPL-3.0-or-later

test_description='respol R encode --xml and --local: R from hwloc topologies
(cores are hwloc logical cores, GPUs one per physical device)'

. "${SHARNESS_TEST_SRCDIR:-$(dirname "$0")}/lib-respol.sh"

D="$RESPOL_DATA/R"
T="$RESPOL_DATA/topologies"

# coral-lassen: 40 cores, 4 GPUs seen by both CUDA and NVML (counted once);
# eas-tioga: 64 cores, 8 RSMI GPUs; epyc-corona: 48 cores, 4 OpenCL GPUs;
# cts1-quartz-smt1: 36 cores, no GPU; h200-vm and h100-vm: 16 cores, 1 GPU
# (an H200, an H100) found by its PCI class (Debian's hwloc has no CUDA or
# NVML component).
for topo in coral-lassen eas-tioga epyc-corona cts1-quartz-smt1 h200-vm h100-vm; do
	test_expect_success "encode --xml $topo.xml" "
		respol R encode --xml=$T/$topo.xml >out &&
		test_cmp $D/hwloc-$topo.expected out
	"
done

# The same topologies without their compute OS devices (CUDA, NVML, RSMI,
# OpenCL: what Debian's hwloc lacks): the GPUs are found by PCI class and
# vendor, numbered and placed as their OS devices numbered and placed them.
strip_gpu_osdevs() {
	awk '
		skip { if (/<\/object>/) skip = 0; next }
		/<object type="OSDev"/ && /osdev_type="[15]"/ {
			if (!/\/>[[:space:]]*$/) skip = 1
			next
		}
		{ print }
	' "$1"
}
for topo in coral-lassen eas-tioga epyc-corona; do
	test_expect_success "$topo.xml without compute OS devices: the same GPUs by PCI class" "
		strip_gpu_osdevs $T/$topo.xml >stripped.xml &&
		! grep 'osdev_type=\"[15]\"' stripped.xml &&
		respol R encode --xml=stripped.xml >out &&
		test_cmp $D/hwloc-$topo.expected out &&
		respol graph show --xml=$T/$topo.xml >expected &&
		respol graph show --xml=stripped.xml >out &&
		test_cmp expected out
	"
done

test_expect_success 'encode -f is --xml' '
	respol R encode -f "$T/coral-lassen.xml" >out &&
	test_cmp "$D/hwloc-coral-lassen.expected" out
'
test_expect_success 'encode --xml: short form and counts' '
	respol R encode -f "$T/eas-tioga.xml" >R &&
	echo "rank0/core[0-63],gpu[0-7]" >expected &&
	respol R decode --short <R >out &&
	test_cmp expected out &&
	printf "64\n8\n" >expected &&
	respol R decode -c core <R >out &&
	respol R decode -c gpu <R >>out &&
	test_cmp expected out
'
test_expect_success 'encode --xml: several ranks each get the topology' '
	respol R encode -f "$T/coral-lassen.xml" -r 4-6 -H "lassen[4-6]" \
		-p gpu >out &&
	test_cmp "$D/hwloc-lassen-ranks.expected" out
'
test_expect_success 'encode --xml: without --hosts every rank has HostName' '
	echo "lassen[28,28]" >expected &&
	respol R encode -f "$T/coral-lassen.xml" -r 0-1 |
		respol R decode -n >out &&
	test_cmp expected out
'
test_expect_success 'encode --xml: --hosts count must match --ranks' '
	test_error 1 "respol: R: encode: --hosts: 1 hosts for 2 ranks" \
		respol R encode -f "$T/coral-lassen.xml" -r 0-1 -H x
'
test_expect_success 'encode --xml: a missing file' '
	test_error 1 "respol: R: encode: hwloc: nosuch.xml: cannot load topology: No such file or directory" \
		respol R encode --xml=nosuch.xml
'
test_expect_success 'encode --xml: a file that is not XML' '
	echo "hello" >bad.xml &&
	test_error 1 "respol: R: encode: hwloc: bad.xml: cannot load topology: not a valid hwloc XML topology" \
		respol R encode --xml=bad.xml
'
test_expect_success 'encode --xml: XML that is not a topology' '
	echo "<?xml version=\"1.0\"?><foo/>" >foo.xml &&
	test_error 1 "respol: R: encode: hwloc: foo.xml: cannot load topology: not a valid hwloc XML topology" \
		respol R encode -f foo.xml
'
test_expect_success 'encode --xml: XML on which hwloc itself crashes is an error, not a crash' '
	test_error 1 "respol: R: encode: hwloc: $RESPOL_DATA/hwloc-bad/no-complete-nodeset.xml: cannot load topology: not a valid hwloc XML topology (hwloc died reading it: Segmentation fault)" \
		respol R encode --xml="$RESPOL_DATA/hwloc-bad/no-complete-nodeset.xml"
'
test_expect_success 'encode --xml: a directory' '
	test_error 1 "respol: R: encode: hwloc: .: cannot load topology: Is a directory" \
		respol R encode -f .
'

test_expect_success 'encode --xml: a FIFO is refused at once, not waited on' '
	mkfifo topo.fifo &&
	test_error 1 "respol: R: encode: hwloc: topo.fifo: cannot load topology: not a regular file" \
		timeout 10 respol R encode --xml=topo.fifo
'
test_expect_success 'encode --xml: a character device' '
	test_error 1 "respol: R: encode: hwloc: /dev/zero: cannot load topology: not a regular file" \
		respol R encode --xml=/dev/zero
'

# This machine: whatever it has, at least one core.
test_expect_success 'encode --local: valid R with at least one core' '
	respol R encode --local >R &&
	respol R decode <R >R2 &&
	test_cmp R R2 &&
	test "$(respol R decode -c node <R)" = 1 &&
	test "$(respol R decode -c core <R)" -ge 1 &&
	respol R decode -r <R >ranks &&
	echo 0 >expected &&
	test_cmp expected ranks
'
test_expect_success 'encode --local: host name is this machine by default' '
	respol R encode -l >R &&
	respol R decode -n <R >out &&
	hostname >expected &&
	test_cmp expected out
'
test_expect_success 'encode --local: -r and -H set rank and host' '
	respol R encode -l -r 3 -H here | respol R decode -s -n >out &&
	sed -n 1p out | grep "^rank3/core" &&
	sed -n 2p out >host &&
	echo here >expected &&
	test_cmp expected host
'

test_done
