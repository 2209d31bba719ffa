#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel/config.sh SRC OBJ [MAKE-ARGS...]
#
# Writes OBJ/.config for the real-kernel sample: tinyconfig plus what it
# takes to boot on QEMU's serial console from an initramfs and to run the
# function tracer (dynamic ftrace, tracefs, kallsyms).  MAKE-ARGS are
# passed to every make call (LLVM=1 for clang/lld).  Extra symbols to
# enable may be given in LINKPASS_KCONFIG_EXTRA (e.g.
# "FTRACE_MCOUNT_USE_LINKPASS" for the patched build).
#
# Prints which per-object mcount method the config selected
# (CONFIG_FTRACE_MCOUNT_USE_*), so the log says what the stock build does.
set -eu

src=$1
obj=$2
shift 2

# Wanted symbols.  RELOCATABLE + RANDOMIZE_BASE (KASLR) make the x86
# "relocs" tool process vmlinux's relocations, the table's included.  Each is checked after olddefconfig: a symbol whose
# dependencies are not met would otherwise be dropped silently.
want="64BIT PRINTK TTY SERIAL_8250 SERIAL_8250_CONSOLE BLK_DEV_INITRD
BINFMT_ELF BINFMT_SCRIPT PROC_FS SYSFS DEVTMPFS FTRACE FUNCTION_TRACER
DYNAMIC_FTRACE KALLSYMS TRACING RELOCATABLE RANDOMIZE_BASE
${LINKPASS_KCONFIG_EXTRA:-}"

mkdir -p "$obj"
make -s -C "$src" O="$obj" "$@" tinyconfig >/dev/null

args=
for s in $want; do
	args="$args --enable $s"
done
"$src/scripts/config" --file "$obj/.config" $args
make -s -C "$src" O="$obj" "$@" olddefconfig >/dev/null

fail=0
for s in $want; do
	if ! grep -q "^CONFIG_$s=y" "$obj/.config"; then
		echo "config.sh: $obj/.config: CONFIG_$s is not set (unmet dependency?)" >&2
		fail=1
	fi
done
[ $fail -eq 0 ] || exit 1

echo "config.sh: $obj: mcount method:" \
	$(grep '^CONFIG_FTRACE_MCOUNT_USE_[A-Z_]*=y' "$obj/.config" | sed 's/^CONFIG_//; s/=y$//') \
	$(grep -q '^CONFIG_BUILDTIME_MCOUNT_SORT=y' "$obj/.config" && echo '(+BUILDTIME_MCOUNT_SORT)') \
	$(grep -q '^CONFIG_RELOCATABLE=y' "$obj/.config" && echo '(RELOCATABLE)')
