#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel/config.sh SRC OBJ [MAKE-ARGS...]
#
# Writes OBJ/.config for the real-kernel sample and checks that every
# wanted symbol stuck.  MAKE-ARGS are passed to every make call: ARCH=
# and CROSS_COMPILE= pick the architecture (x86 when none), LLVM=1
# clang/lld.  Four profiles (LINKPASS_KCONFIG_PROFILE):
#
#   tiny    tinyconfig plus what it takes to boot on QEMU's serial console
#           from an initramfs and to run the function and function-graph
#           tracers (dynamic ftrace, tracefs, kallsyms), with KASLR.  No
#           modules.
#   distro  tiny plus what distributions ship and the stock build has to
#           cope with: loadable modules (unload, signed at install and
#           required to be: MODULE_SIG_FORCE), three modules built =m
#           (binfmt_misc: runs code of its own whenever its filesystem
#           is used; test_module: prints from its init function;
#           configfs: a filesystem with module-private code), the
#           ftrace users distributions enable (the function profiler,
#           the stack tracer, kprobe events, fprobe events where the
#           kernel and architecture have them, syscall events, and the
#           direct-call sample module samples/ftrace/ftrace-direct.ko
#           where the architecture has direct calls), and per
#           architecture:
#             x86     indirect branch tracking (X86_KERNEL_IBT: "endbr64"
#                     opens every function, so sites sit at function+4),
#                     the retpoline and return-thunk mitigations;
#             arm64   -O2 (gcc allows DYNAMIC_FTRACE_WITH_CALL_OPS only
#                     then: -fpatchable-function-entry=4,2, sites 8 bytes
#                     before the function), BTI landing pads where the
#                     compiler allows them (clang; gcc is excluded by the
#                     kernel for gcc bug 106671);
#             riscv   -O2, compressed instructions (RVC: the 4 entry nops
#                     are 2 bytes each) where the kernel allows them with
#                     dynamic ftrace (7.x with gcc: only gcc 14 and
#                     later, for -fmin-function-alignment).
#
#   debug   distro with big's debug info: DWARF (the toolchain's
#           version) with BTF, on tinyconfig's small kernel: what
#           debug info does to the images and modules, measured without
#           a defconfig build.
#
#   big     a kernel the size distributions ship: the architecture's
#           defconfig instead of tinyconfig, everything of distro, DWARF
#           debug info (the toolchain's version) with BTF (pahole 1.22
#           or later), and every tristate option of netfilter, the
#           packet schedulers, the NLS code pages and the HID drivers
#           that is not built in and whose dependencies hold, as
#           modules: several hundred .ko files.  Fails with fewer than
#           LINKPASS_KCONFIG_MIN_MODULES (200) modules.
#
# Every riscv build also has the FPU (Debian's rv64gc C library, which
# the static /init uses, has FP instructions) and RISCV_ISA_FALLBACK
# (QEMU 7.2's device tree has "riscv,isa" only).
#
# Extra symbols to enable may be given in LINKPASS_KCONFIG_EXTRA (e.g.
# "FTRACE_MCOUNT_USE_LINKPASS" for the patched build, "LTO_CLANG_THIN"
# for a ThinLTO one, which turns LTO_NONE, the other member of its
# choice, off).  LINKPASS_KCONFIG_ROOT=1 runs every make inside
# kernel/buildroot.sh's root, whose compilers MAKE-ARGS then name:
# Kconfig probes the compiler, so it must be the one that builds.
# LINKPASS_KCONFIG_OFF: symbols to turn off, checked as the others
# (kernel/sorttable-fix's reproducer: x86's call-depth tracking).
# Prints which mcount method the config selected
# (CONFIG_FTRACE_MCOUNT_USE_*), so the log says what the stock build
# does.
set -eu

# Absolute: make -C SRC would take a relative O= from inside SRC.
src=$(cd "$1" && pwd)
mkdir -p "$2"
obj=$(cd "$2" && pwd)
shift 2
profile=${LINKPASS_KCONFIG_PROFILE:-tiny}
arch=x86
for a in "$@"; do
	case $a in ARCH=*) arch=${a#ARCH=} ;; esac
done

# make, where the build's compilers are
kmake() {
	if [ "${LINKPASS_KCONFIG_ROOT:-0}" = 1 ]; then
		"$(dirname "$0")/buildroot.sh" run make "$@"
	else
		make "$@"
	fi
}

# The first of the symbol names given that this kernel defines (some
# were renamed between 6.1 and 6.12).
pick() {
	for s in "$@"; do
		if grep -rqx --include='Kconfig*' "config $s" "$src"; then
			echo "$s"
			return
		fi
	done
	echo "$1"
}

# RELOCATABLE + RANDOMIZE_BASE (KASLR): the table's entries go through
# the kernel's own relocation (x86's "relocs" tool, the dynamic
# relocations of arm64 and riscv) like any other address.
want="PRINTK TTY BLK_DEV_INITRD BINFMT_ELF BINFMT_SCRIPT PROC_FS SYSFS
DEVTMPFS FTRACE FUNCTION_TRACER FUNCTION_GRAPH_TRACER DYNAMIC_FTRACE
KALLSYMS TRACING RELOCATABLE RANDOMIZE_BASE"
# unwant: symbols to turn off (the other member of a choice is wanted)
unwant=
mods=
optional=
case $arch in
x86 | x86_64)
	want="$want 64BIT SERIAL_8250 SERIAL_8250_CONSOLE"
	;;
arm64)
	want="$want SERIAL_AMBA_PL011 SERIAL_AMBA_PL011_CONSOLE"
	;;
riscv)
	want="$want 64BIT MMU ARCH_VIRT SERIAL_8250 SERIAL_8250_CONSOLE
SERIAL_OF_PLATFORM RISCV_ISA_FALLBACK FPU"
	;;
*)
	echo "config.sh: ARCH=$arch: expected x86, arm64 or riscv" >&2
	exit 2
	;;
esac
case $profile in
tiny) ;;
distro | debug | big)
	want="$want MODULES MODULE_UNLOAD MODULE_SIG MODULE_SIG_ALL
MODULE_SIG_FORCE MODULE_SIG_SHA256 RUNTIME_TESTING_MENU
FUNCTION_PROFILER STACK_TRACER KPROBES KPROBE_EVENTS DYNAMIC_EVENTS
FTRACE_SYSCALLS SAMPLES FPROBE FPROBE_EVENTS"
	mods="BINFMT_MISC TEST_LKM CONFIGFS_FS SAMPLE_FTRACE_DIRECT"
	# fprobe needs ftrace with registers (not arm64 in 6.12); fprobe
	# events are 6.7 and later; direct calls are per architecture
	optional="FPROBE:DYNAMIC_FTRACE_WITH_REGS FPROBE_EVENTS:FPROBE
SAMPLE_FTRACE_DIRECT:DYNAMIC_FTRACE_WITH_DIRECT_CALLS"
	case $arch in
	x86 | x86_64)
		rethunk=$(pick MITIGATION_RETHUNK RETHUNK)
		want="$want X86_KERNEL_IBT $(pick CPU_MITIGATIONS SPECULATION_MITIGATIONS)
$(pick MITIGATION_RETPOLINE RETPOLINE) $rethunk"
		# Wanted where the compiler can: return thunks need
		# -mfunction-return=thunk-extern (gcc 8+, clang 15+; not
		# clang 14).
		optional="$optional $rethunk:CC_HAS_RETURN_THUNK"
		;;
	arm64)
		want="$want CC_OPTIMIZE_FOR_PERFORMANCE DYNAMIC_FTRACE_WITH_CALL_OPS
ARM64_PTR_AUTH ARM64_PTR_AUTH_KERNEL ARM64_BTI ARM64_BTI_KERNEL"
		unwant=CC_OPTIMIZE_FOR_SIZE
		optional="$optional ARM64_BTI_KERNEL:CC_IS_CLANG"
		;;
	riscv)
		want="$want CC_OPTIMIZE_FOR_PERFORMANCE RISCV_ISA_C"
		unwant=CC_OPTIMIZE_FOR_SIZE
		;;
	esac
	;;
*)
	echo "config.sh: LINKPASS_KCONFIG_PROFILE=$profile: expected tiny, distro, debug or big" >&2
	exit 2
	;;
esac
# the modules checked one by one (big adds hundreds, counted instead)
must_mods=$mods
base=tinyconfig
[ "$profile" != big ] || base=defconfig
case $profile in
debug | big)
	want="$want DEBUG_INFO DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT BPF_SYSCALL DEBUG_INFO_BTF
DEBUG_INFO_BTF_MODULES"
	unwant="$unwant DEBUG_INFO_NONE DEBUG_INFO_REDUCED DEBUG_INFO_SPLIT"
	;;
esac
want="$want ${LINKPASS_KCONFIG_EXTRA:-}"
unwant="$unwant ${LINKPASS_KCONFIG_OFF:-}"
case " $want " in
*" LTO_CLANG_THIN "* | *" LTO_CLANG_FULL "*) unwant="$unwant LTO_NONE" ;;
esac

mkdir -p "$obj"
kmake -s -C "$src" O="$obj" "$@" $base >/dev/null

# big: the tristate options of these directories that the base config
# leaves out, as modules (olddefconfig drops those whose dependencies
# do not hold).
if [ "$profile" = big ]; then
	for s in $(find "$src/net/netfilter" "$src/net/sched" "$src/fs/nls" \
			"$src/drivers/hid" -name 'Kconfig*' -print0 |
		   xargs -0 awk '/^config /{c=$2; next}
			c && /^[ \t]+tristate/{print c; c=""}
			/^[ \t]*$/{c=""}' | sort -u); do
		grep -q "^CONFIG_$s=y" "$obj/.config" || mods="$mods $s"
	done
fi

# riscv 7.x gives gcc dynamic ftrace with RVC only where gcc has
# -fmin-function-alignment (gcc 14; GCC_SUPPORTS_DYNAMIC_FTRACE in
# arch/riscv/Kconfig): with an older gcc the build is without RVC, and
# without EFI, which selects it (and which PORTABLE selects unless
# NONPORTABLE is set; QEMU boots the Image through OpenSBI, no EFI).
if [ "$arch" = riscv ] &&
   grep -q 'CC_HAS_MIN_FUNCTION_ALIGNMENT || !RISCV_ISA_C' "$src/arch/riscv/Kconfig" &&
   grep -q '^CONFIG_CC_IS_GCC=y' "$obj/.config" &&
   ! grep -q '^CONFIG_CC_HAS_MIN_FUNCTION_ALIGNMENT=y' "$obj/.config"; then
	echo "config.sh: $obj: CONFIG_RISCV_ISA_C and CONFIG_EFI left out (CONFIG_NONPORTABLE): this kernel's gcc dynamic ftrace needs -fmin-function-alignment with RVC, which this gcc lacks" >&2
	want=$(echo "$want" | tr ' \n' '\n\n' | grep -vx RISCV_ISA_C | tr '\n' ' ')
	unwant="$unwant RISCV_ISA_C EFI"
	want="$want NONPORTABLE"
fi

args=
for s in $unwant; do
	args="$args --disable $s"
done
for s in $want; do
	args="$args --enable $s"
done
for s in $mods; do
	args="$args --module $s"
done
"$src/scripts/config" --file "$obj/.config" $args
# Twice: a symbol enabled above may open the menu of another one.
kmake -s -C "$src" O="$obj" "$@" olddefconfig >/dev/null
"$src/scripts/config" --file "$obj/.config" $args
kmake -s -C "$src" O="$obj" "$@" olddefconfig >/dev/null

# An optional symbol this kernel lacks, or whose prerequisite the
# kernel, architecture or toolchain lacks, is not wanted: say so, so the
# log shows what the build is without.
for o in $optional; do
	s=${o%%:*}
	why=
	if ! grep -rqx --include='Kconfig*' "config $s" "$src"; then
		why="this kernel has no CONFIG_$s"
	elif ! grep -q "^CONFIG_${o#*:}=y" "$obj/.config"; then
		why="this build has no CONFIG_${o#*:}"
	fi
	[ -n "$why" ] || continue
	echo "config.sh: $obj: CONFIG_$s left out: $why" >&2
	want=$(echo "$want" | tr ' \n' '\n\n' | grep -vx "$s" | tr '\n' ' ')
	must_mods=$(echo "$must_mods" | tr ' \n' '\n\n' | grep -vx "$s" | tr '\n' ' ')
done

fail=0
for s in $want; do
	if ! grep -q "^CONFIG_$s=y" "$obj/.config"; then
		echo "config.sh: $obj/.config: CONFIG_$s is not set (unmet dependency?)" >&2
		fail=1
	fi
done
for s in $unwant; do
	if grep -q "^CONFIG_$s=y" "$obj/.config"; then
		echo "config.sh: $obj/.config: CONFIG_$s is still set" >&2
		fail=1
	fi
done
for s in $must_mods; do
	if ! grep -q "^CONFIG_$s=m" "$obj/.config"; then
		echo "config.sh: $obj/.config: CONFIG_$s is not a module (unmet dependency?)" >&2
		fail=1
	fi
done
min=${LINKPASS_KCONFIG_MIN_MODULES:-200}
if [ "$profile" = big ] && [ "$(grep -c '=m$' "$obj/.config")" -lt "$min" ]; then
	echo "config.sh: $obj/.config: $(grep -c '=m$' "$obj/.config") modules, fewer than the big profile's $min" >&2
	fail=1
fi
[ $fail -eq 0 ] || exit 1

has() { grep -q "^CONFIG_$1=y" "$obj/.config" && echo "($2)"; }
echo "config.sh: $obj: mcount method:" \
	$(grep '^CONFIG_FTRACE_MCOUNT_USE_[A-Z_]*=y' "$obj/.config" | sed 's/^CONFIG_//; s/=y$//') \
	$(has BUILDTIME_MCOUNT_SORT +BUILDTIME_MCOUNT_SORT) \
	$(has DYNAMIC_FTRACE_WITH_CALL_OPS CALL_OPS) \
	$(has RELOCATABLE RELOCATABLE) \
	$(has X86_KERNEL_IBT IBT) \
	$(has ARM64_BTI_KERNEL BTI) \
	$(has RISCV_ISA_C RVC) \
	$(has FTRACE_MCOUNT_LINKPASS_NOP "NOPs at link time") \
	$(grep -q '^CONFIG_FTRACE_MCOUNT_USE_LINKPASS=y' "$obj/.config" && has HAVE_FTRACE_MCOUNT_LINKPASS_NOP "NOPs at link time") \
	$(grep -q '^CONFIG_MODULES=y' "$obj/.config" && echo "(modules: $(grep -c '=m$' "$obj/.config"))")
