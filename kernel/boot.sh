#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel/boot.sh BZIMAGE INITRD LOG [EXTRA-APPEND]
#
# Boots BZIMAGE with INITRD in QEMU on the serial console, writes the
# console output to LOG and prints "entries=N", N from the kernel's
# "ftrace: allocating N entries in M pages" line.  Exits non-zero when
# QEMU fails, times out (LINKPASS_BOOT_TIMEOUT seconds, default 300) or
# the /init of kernel/initramfs.sh did not reach "LPK done".
#
# -no-reboot turns the "reboot -f" of /init into QEMU's exit (without
# ACPI, "poweroff -f" would only halt).  TCG by default: on this
# machine kind (nested virtualisation) KVM guests hang before the first
# kernel message; LINKPASS_QEMU_ACCEL=kvm where KVM works.
set -eu

kernel=$1
initrd=$2
log=$3
extra=${4:-}

rc=0
timeout "${LINKPASS_BOOT_TIMEOUT:-300}" \
	qemu-system-x86_64 -machine accel="${LINKPASS_QEMU_ACCEL:-tcg}" -m 256M -smp 1 \
		-nographic -no-reboot -kernel "$kernel" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 $extra" \
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
