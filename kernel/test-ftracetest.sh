#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/test-ftracetest.sh: `make test-ftracetest`.
#
# Runs the kernel's own ftrace selftests (tools/testing/selftests/ftrace,
# "ftracetest") on the Linux 7.3 x86_64 gcc pair of `make test-kernel`,
# stock and ours (the same distro config, kernel/config.sh), one boot
# after the other in QEMU, and compares the verdicts case by case
# (kernel/ftverdicts.py).  The guest is busybox and the selftest folder
# of the tree the kernel was built from (kernel/ftracetest-initramfs.sh);
# each case has a time limit, and one that outlives it is a HANG.  A
# case that fails or hangs on stock too is reported as stock's.
#
# Ends with one line:
#
#   ftracetest: version=7.3 arch=x86_64 cases=N same=S differ=D stock_fail=F
#
# and exits non-zero when a verdict differs (D > 0) or a boot ran no case.
#
# Environment (and those of kernel/test-kernel.sh it shares: cache,
# jobs, ccache, LINKPASS_KERNEL_REUSE=1 to keep existing build dirs):
#   LINKPASS_FTRACETEST_CASE_TIMEOUT  seconds per case (default 300)
#   LINKPASS_FTRACETEST_BOOT_TIMEOUT  seconds per boot (default 5400)
#   LINKPASS_FTRACETEST_ONLY          cases, paths under test.d (default all)
# shellcheck disable=SC2034,SC2154  # globals lib.sh reads and sets
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${LINKPASS_KERNEL_CACHE:-/var/tmp/linkpass-kernel}
jobs=${LINKPASS_KERNEL_JOBS:-$(nproc)}
reuse=${LINKPASS_KERNEL_REUSE:-0}
ccache=${LINKPASS_KERNEL_CCACHE:-1}
profile=distro
v=7.3 arch=x86_64 tc=gcc

unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

# shellcheck source=kernel/lib.sh
. "$here/lib.sh"
say() { printf 'test-ftracetest: %s\n' "$*"; }

install_packages "$v" "$arch" "$tc"
# (busybox-static replaces Debian's dynamically linked busybox)
dpkg -s busybox-static >/dev/null 2>&1 || {
	say "installing busybox-static"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q busybox-static >/dev/null ||
		die "apt-get install busybox-static failed"
}
setup_ccache
res=$cache/results
mkdir -p "$res"
unpack_trees "$v"

# build, stage the modules, boot: one kind, then the other (two cores)
declare -A wall
for kind in stock lp; do
	say "$(pair_id)-$kind: build ($( [ "$reuse" = 1 ] && echo "keeping an existing build dir" || echo "from an empty build dir"))"
	secs=$(fresh_build "$kind")
	say "$(pair_id)-$kind: built in $secs s"
	stage_modules "$kind" >/dev/null
	initrd=$res/$(pair_id)-$kind.ftracetest.cpio
	log=$res/$(pair_id)-$kind.ftracetest.log
	"$here/ftracetest-initramfs.sh" "$initrd" \
		"$(src_of "$kind")/tools/testing/selftests/ftrace" \
		"$(echo "$(bdir_of "$kind")"/lpk-staging/lib/modules/*)"
	say "$(pair_id)-$kind: booting with ftracetest (log: $log)"
	stamp t0
	LINKPASS_BOOT_MEM=${LINKPASS_BOOT_MEM:-512M} \
	LINKPASS_BOOT_TIMEOUT=${LINKPASS_FTRACETEST_BOOT_TIMEOUT:-5400} \
		"$here/boot.sh" x86 "$(bdir_of "$kind")/$(image_of "$arch")" "$initrd" "$log" >/dev/null ||
		say "$(pair_id)-$kind: the run did not finish (boot.sh above); what it did is compared"
	stamp t1
	wall[$kind]=$(secs "$t0" "$t1")
	say "$(pair_id)-$kind: ftracetest boot took ${wall[$kind]} s ($(grep -c '^LPFT-END ' "$log" || true) case files run)"
done

say "wall time of the boots: stock ${wall[stock]} s, ours ${wall[lp]} s"
python3 "$here/ftverdicts.py" "$res/$(pair_id)-stock.ftracetest.log" \
	"$res/$(pair_id)-lp.ftracetest.log" "$v" "$arch"
