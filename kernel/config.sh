#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel/config.sh SRC OBJ [MAKE-ARGS...]
#
# Writes OBJ/.config for the real-kernel sample and checks that every
# wanted symbol stuck.  MAKE-ARGS are passed to every make call (LLVM=1
# for clang/lld).  Two profiles (LINKPASS_KCONFIG_PROFILE):
#
#   tiny    tinyconfig plus what it takes to boot on QEMU's serial console
#           from an initramfs and to run the function tracer (dynamic
#           ftrace, tracefs, kallsyms), with KASLR.  No modules.
#   distro  tiny plus what distributions ship and the stock build has to
#           cope with: loadable modules (unload, signed at install and
#           required to be: MODULE_SIG_FORCE), indirect branch tracking
#           (X86_KERNEL_IBT: "endbr64" opens every function, so sites
#           sit at function+4), the retpoline and return-thunk
#           mitigations with the defaults 6.12 gives them, and three
#           modules built =m (MODULES_WANTED below).
#
# Extra symbols to enable may be given in LINKPASS_KCONFIG_EXTRA (e.g.
# "FTRACE_MCOUNT_USE_LINKPASS" for the patched build).  Prints which
# per-object mcount method the config selected (CONFIG_FTRACE_MCOUNT_USE_*),
# so the log says what the stock build does.
set -eu

# Absolute: make -C SRC would take a relative O= from inside SRC.
src=$(cd "$1" && pwd)
mkdir -p "$2"
obj=$(cd "$2" && pwd)
shift 2
profile=${LINKPASS_KCONFIG_PROFILE:-tiny}

# RELOCATABLE + RANDOMIZE_BASE (KASLR) make the x86 "relocs" tool process
# vmlinux's relocations, the table's included.
want="64BIT PRINTK TTY SERIAL_8250 SERIAL_8250_CONSOLE BLK_DEV_INITRD
BINFMT_ELF BINFMT_SCRIPT PROC_FS SYSFS DEVTMPFS FTRACE FUNCTION_TRACER
DYNAMIC_FTRACE KALLSYMS TRACING RELOCATABLE RANDOMIZE_BASE"
mods=
optional=
case $profile in
tiny) ;;
distro)
	want="$want MODULES MODULE_UNLOAD MODULE_SIG MODULE_SIG_ALL
MODULE_SIG_FORCE MODULE_SIG_SHA256 X86_KERNEL_IBT CPU_MITIGATIONS
MITIGATION_RETPOLINE MITIGATION_RETHUNK RUNTIME_TESTING_MENU"
	# Wanted where the compiler can: return thunks need
	# -mfunction-return=thunk-extern (gcc 8+, clang 15+; not clang 14).
	optional="MITIGATION_RETHUNK:CC_HAS_RETURN_THUNK"
	# binfmt_misc: runs code of its own whenever its filesystem is
	# used; test_module: prints from its init function; configfs: a
	# filesystem with module-private weak-free code.
	mods="BINFMT_MISC TEST_LKM CONFIGFS_FS"
	;;
*)
	echo "config.sh: LINKPASS_KCONFIG_PROFILE=$profile: expected tiny or distro" >&2
	exit 2
	;;
esac
want="$want ${LINKPASS_KCONFIG_EXTRA:-}"

mkdir -p "$obj"
make -s -C "$src" O="$obj" "$@" tinyconfig >/dev/null

args=
for s in $want; do
	args="$args --enable $s"
done
for s in $mods; do
	args="$args --module $s"
done
"$src/scripts/config" --file "$obj/.config" $args
# Twice: a symbol enabled above may open the menu of another one.
make -s -C "$src" O="$obj" "$@" olddefconfig >/dev/null
"$src/scripts/config" --file "$obj/.config" $args
make -s -C "$src" O="$obj" "$@" olddefconfig >/dev/null

# An optional symbol whose prerequisite the toolchain lacks is not
# wanted: say so, so the log shows what the build is without.
for o in $optional; do
	s=${o%%:*}
	if ! grep -q "^CONFIG_${o#*:}=y" "$obj/.config"; then
		echo "config.sh: $obj: CONFIG_$s left out: this toolchain has no CONFIG_${o#*:}" >&2
		want=$(echo "$want" | tr ' \n' '\n\n' | grep -vx "$s" | tr '\n' ' ')
	fi
done

fail=0
for s in $want; do
	if ! grep -q "^CONFIG_$s=y" "$obj/.config"; then
		echo "config.sh: $obj/.config: CONFIG_$s is not set (unmet dependency?)" >&2
		fail=1
	fi
done
for s in $mods; do
	if ! grep -q "^CONFIG_$s=m" "$obj/.config"; then
		echo "config.sh: $obj/.config: CONFIG_$s is not a module (unmet dependency?)" >&2
		fail=1
	fi
done
[ $fail -eq 0 ] || exit 1

echo "config.sh: $obj: mcount method:" \
	$(grep '^CONFIG_FTRACE_MCOUNT_USE_[A-Z_]*=y' "$obj/.config" | sed 's/^CONFIG_//; s/=y$//') \
	$(grep -q '^CONFIG_BUILDTIME_MCOUNT_SORT=y' "$obj/.config" && echo '(+BUILDTIME_MCOUNT_SORT)') \
	$(grep -q '^CONFIG_RELOCATABLE=y' "$obj/.config" && echo '(RELOCATABLE)') \
	$(grep -q '^CONFIG_X86_KERNEL_IBT=y' "$obj/.config" && echo '(IBT)') \
	$(grep -q '^CONFIG_MODULES=y' "$obj/.config" && echo "(modules: $(grep -c '=m$' "$obj/.config"))")
