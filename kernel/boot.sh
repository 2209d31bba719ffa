#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel/boot.sh ARCH KERNEL INITRD LOG [EXTRA-APPEND]
#
# Boots KERNEL (x86: bzImage; arm64, riscv: Image) with INITRD in QEMU
# on the serial console, writes the console output to LOG and prints
# "entries=N", N from the kernel's "ftrace: allocating N entries in M
# pages" line.  Exits non-zero when QEMU fails, times out
# (LINKPASS_BOOT_TIMEOUT seconds, default 300) or the /init of
# kernel/initramfs.sh did not reach "LPK done".
#
# The machines: x86 "pc"; arm64 "virt" with -cpu max (BTI, pointer
# authentication; the cheap implementation-defined PAC algorithm under
# TCG); riscv "virt" with OpenSBI (Debian's opensbi package) as the
# firmware.  -no-reboot turns lpinit's reboot into QEMU's exit.  TCG by
# default: on this machine kind (nested virtualisation) KVM guests hang
# before the first kernel message; LINKPASS_QEMU_ACCEL=kvm where KVM
# works (x86 only).
set -eu

arch=$1
kernel=$2
initrd=$3
log=$4
extra=${5:-}
opensbi=${LINKPASS_OPENSBI:-/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin}

case $arch in
x86 | x86_64)
	set -- qemu-system-x86_64 -machine accel="${LINKPASS_QEMU_ACCEL:-tcg}" \
		-m "${LINKPASS_BOOT_MEM:-256M}"
	console=ttyS0
	;;
arm64)
	set -- qemu-system-aarch64 -machine virt -cpu max,pauth-impdef=on -m "${LINKPASS_BOOT_MEM:-512M}"
	console=ttyAMA0
	;;
riscv)
	[ -e "$opensbi" ] || { echo "boot.sh: $opensbi: missing (apt-get install opensbi)" >&2; exit 2; }
	set -- qemu-system-riscv64 -machine virt -m "${LINKPASS_BOOT_MEM:-512M}" -bios "$opensbi"
	console=ttyS0
	;;
*)
	echo "boot.sh: ARCH $arch: expected x86, arm64 or riscv" >&2
	exit 2
	;;
esac

rc=0
timeout "${LINKPASS_BOOT_TIMEOUT:-300}" "$@" -smp 1 -nographic -no-reboot \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=$console panic=-1 $extra" \
	</dev/null >"$log" 2>&1 || rc=$?
# The console uses CRLF.
sed -i 's/\r$//' "$log"

if [ $rc -ne 0 ]; then
	echo "boot.sh: $kernel: qemu exited with status $rc (124: timeout); see $log" >&2
	exit 1
fi
if ! grep -q '^LPK done' "$log"; then
	echo "boot.sh: $kernel: /init did not finish; see $log" >&2
	exit 1
fi
n=$(sed -n 's/.*ftrace: allocating \([0-9]*\) entries.*/\1/p' "$log" | head -n 1)
if [ -z "$n" ]; then
	echo "boot.sh: $log: no 'ftrace: allocating N entries' line" >&2
	exit 1
fi
echo "entries=$n"
