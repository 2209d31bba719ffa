#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/test-kernel.sh: `make test-kernel`.
#
# For each kernel version, architecture and toolchain, builds Linux from
# Debian's linux-source-<version> twice: stock (the mcount table its
# config picks: gcc -mrecord-mcount and clang objtool --mcount on x86,
# the compiler's -fpatchable-function-entry lists on arm64 and riscv;
# 6.12 then zeroes dead entries after the link with nm -S + sorttable
# -s) and with the series of kernel/series/<version>/ applied by git am
# (FTRACE_MCOUNT_USE_LINKPASS: one table per image and per module, made
# at final link by the in-tree scripts/linkpass).
# Boots both in QEMU (kernel/boot.sh) and asserts (kernel/checks.sh)
# that ours allocates exactly its table, lists every valid function
# stock lists and no invalid or zeroed one, traces with the function
# and function_graph tracers, passes linkpass check (vmlinux and every
# .ko), that the byte-level audit agrees, and for 6.12 that the modules
# load signed, appear with [module], trace and unload cleanly.  Prints
# full and incremental build times (median of interleaved rounds),
# links, and the post-link cost of stock's step against ours, side by
# side.
#
# Each version, architecture and toolchain ends with one line:
#
#   kernel: version=<v> arch=<arch> toolchain=<tc> entries=N zeroed=Z
#     invalid=I stock_invalid=M stock_zeroed=S modules=K
#     module_entries=E built_modules=B all_module_entries=A
#     trace_lines=T graph_lines=G module_trace_lines=U boot_converted=C
#     boot_update_us=F stock_boot_converted=C stock_boot_update_us=F
#     check=ok|fail
#
# (check=ok when every assertion of that pair held), or with
# LINKPASS_KERNEL_KINDS=stock, where only stock is built:
#
#   kernel-stock: version=<v> arch=<arch> toolchain=<tc> entries=N
#     zeroed=Z invalid=I trace_lines=T graph_lines=G modules=K
#     pads=N,M|none sorttable_fix_kept=F check=ok|fail
#
# Exits non-zero on any failed assertion.
#
# Toolchains (lib.sh, toolchain_table): gcc and clang are the machine's
# (bookworm: gcc 12 with GNU ld 2.40; clang 14, which only 6.x takes);
# gcc14 (gcc 14.2, GNU ld 2.44; x86_64, arm64, riscv64 with RVC),
# clang19 (LLVM=1: clang, ld.lld and the llvm binutils 19; x86_64,
# arm64) and clang19-lto (clang19 with CONFIG_LTO_CLANG_THIN) build
# inside the Debian trixie root of kernel/buildroot.sh, made once in the
# cache (`buildroot.sh ensure`, run once per run that names one): the
# configuration, the builds, modules_install and the sorttable fix's
# compile run there, through a ccache of the root's own.  The builds'
# host programs load the root's libraries by their path in the cache
# (margs_of: HOSTLDFLAGS), so that the checks run scripts/sorttable and
# the in-tree linkpass here too; the checks run the root's binutils
# without chroot (tool_of); the boots, the initramfs and the checks' own
# linkpass stay on this machine.
#
# Environment:
#   KERNELS                     what to test, entries VERSION[:ARCH][:TC]
#                               (ARCH x86_64, arm64, riscv64; default
#                               x86_64; TC gcc, clang, gcc14, clang19,
#                               clang19-lto, or without TC every one of
#                               LINKPASS_KERNEL_TOOLCHAINS that builds
#                               ARCH: gcc and gcc14 build riscv64 too).
#                               Default: what `make test` runs
#                               (mk/kernel.mk)
#   KERNELS_SORTTABLE_FIX       entries VERSION:ARCH:TC built stock only,
#                               to reproduce the bug kernel/sorttable-fix
#                               fixes (stock, then relinked with the fix,
#                               booted; the bug must show), when not
#                               also a pair (a pair runs the same check).
#                               Each ends with a line "sorttable-fix:
#                               version=.. arch=.. toolchain=.. kept=N
#                               function=F trace_lines=T check=ok|fail".
#                               `make test`: 7.3:x86_64:clang19
#   KERNELS_APPLY_ONLY          versions whose series is only applied
#                               with git am and verified to carry this
#                               linkpass, without building
#   LINKPASS_KERNEL_TOOLCHAINS  the toolchains of an entry that names
#                               none: "gcc clang" (default), or any of
#                               gcc clang gcc14 clang19 clang19-lto;
#                               each only on the arches it builds
#   LINKPASS_KERNEL_KINDS       "stock lp" (default): the pairs; "stock":
#                               stock builds only, booted and checked on
#                               their own (no series applied, no tree of
#                               ours: the series may be in the works),
#                               each ending with a "kernel-stock:" line
#   LINKPASS_KERNEL_CACHE       work dir outside the repo (/var/tmp/linkpass-kernel)
#   LINKPASS_KERNEL_JOBS        make -j (default: nproc)
#   LINKPASS_KERNEL_ROUNDS      incremental rounds per build (default 3)
#   LINKPASS_KERNEL_REUSE=1     keep existing build dirs (no full-build timing)
#   LINKPASS_KERNEL_PROFILE     distro (default), debug or big:
#                               kernel/config.sh's profile of every pair
#                               (make test-kernel-debug, test-kernel-big)
#   LINKPASS_KERNEL_CCACHE      1 (default): compile through ccache, kept in
#                               the cache dir across runs (full build times
#                               then count cached compiles: the facts and
#                               report.py say how many); 0: without
#   LINKPASS                    the linkpass binary of the test's own checks
#                               (default: the repo's; the builds use the
#                               kernel tree's scripts/linkpass)
set -euo pipefail
# shellcheck disable=SC2034,SC2154  # globals shared with lib.sh and checks.sh

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${LINKPASS_KERNEL_CACHE:-/var/tmp/linkpass-kernel}
kernels=${KERNELS-7.3:gcc 7.3:arm64:gcc}
apply_only=${KERNELS_APPLY_ONLY:-}
fix_only=${KERNELS_SORTTABLE_FIX:-}
toolchains=${LINKPASS_KERNEL_TOOLCHAINS:-gcc clang}
kinds=${LINKPASS_KERNEL_KINDS:-stock lp}
case $kinds in
"stock lp" | "lp stock" | stock) ;;
*) echo "test-kernel.sh: LINKPASS_KERNEL_KINDS=$kinds: expected \"stock lp\" or stock" >&2; exit 2 ;;
esac
jobs=${LINKPASS_KERNEL_JOBS:-$(nproc)}
rounds=${LINKPASS_KERNEL_ROUNDS:-3}
reuse=${LINKPASS_KERNEL_REUSE:-0}
ccache=${LINKPASS_KERNEL_CCACHE:-1}
profile=${LINKPASS_KERNEL_PROFILE:-distro}
case $profile in
distro | debug) ;;
big) export LINKPASS_BOOT_MEM=${LINKPASS_BOOT_MEM:-1G} ;;
*) echo "test-kernel.sh: LINKPASS_KERNEL_PROFILE=$profile: expected distro, debug or big" >&2; exit 2 ;;
esac

# Run from `make test-kernel`, the repo's make flags (variables such as
# CC=, jobserver) must not leak into the kernel's make.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

# shellcheck source=kernel/lib.sh
. "$here/lib.sh"
# shellcheck source=kernel/checks.sh
. "$here/checks.sh"
# shellcheck source=kernel/modcost.sh
. "$here/modcost.sh"

# The (version, architecture, toolchain) triples, in order (triples_of);
# the sorttable fix's stock-only runs are those not also a pair.
t=$(triples_of KERNELS "$kernels")
pairs=()
for k in $t; do
	pairs+=("$k")
done
t=$(triples_of KERNELS_SORTTABLE_FIX "$fix_only" full)
fixes=()
for k in $t; do
	case " ${pairs[*]} " in *" $k "*) continue ;; esac
	fixes+=("$k")
done
runs=("${pairs[@]}" "${fixes[@]}")
versions=$(printf '%s\n' "${runs[@]}" | cut -d: -f1 | awk '!s[$0]++' | tr '\n' ' ')
all_archs=$(printf '%s\n' "${runs[@]}" | cut -d: -f2 | sort -u | tr '\n' ' ')
all_tcs=$(printf '%s\n' "${runs[@]}" | cut -d: -f3 | sort -u | tr '\n' ' ')

# --- set-up ------------------------------------------------------------------

install_packages "$versions $apply_only" "$all_archs" "$all_tcs"
for t in $all_tcs; do
	if tc_in_root "$t"; then
		setup_root
		break
	fi
done
# shellcheck disable=SC2086  # one argument per toolchain
setup_ccache $all_tcs
# A private copy of linkpass, so a rebuild of the repo's tool during the
# run cannot change the binary between the links of one build.
mkdir -p "$cache/bin" "$cache/results"
if [ -n "${LINKPASS:-}" ]; then
	cp "$LINKPASS" "$cache/bin/linkpass"
else
	make -s -C "$repo" linkpass/linkpass
	cp "$repo/linkpass/linkpass" "$cache/bin/linkpass"
fi
lp=$cache/bin/linkpass
# the least-work yardstick of the post-link comparison (bench/leastwork.c)
make -s -C "$repo" build/bench/leastwork
cp "$repo/build/bench/leastwork" "$cache/bin/leastwork"
leastwork=$cache/bin/leastwork
res=$cache/results
# ours only where a pair builds it: the sorttable fix's runs are stock's
for v in $versions; do
	if [ "$kinds" != stock ] && printf '%s\n' "${pairs[@]}" | grep -q "^$v:"; then
		unpack_trees "$v"
	else
		unpack_stock "$v"
	fi
done
for v in $apply_only; do
	case " $versions " in *" $v "*) continue ;; esac
	patched_tree "$v"
	say "the series of Linux $v applies to Debian's linux-source-$v (git am) and carries this repository's linkpass; its kernels are not built in this run"
done

summaries=()
total_failures=0
run_start=$(date -u +%Y-%m-%dT%H:%MZ)

# write_facts: what report.py tabulates for this pair, one "name=value"
# a line, into $res/PAIR.facts (the boots' own facts are in LOG.facts).
write_facts() {
	local k
	{
		echo "run_start=$run_start"
		echo "profile=$(profile_of)"
		echo "version=$v"
		echo "arch=$arch"
		echo "toolchain=$tc"
		toolchain_facts "$(bdir_of stock)"
		echo "check=$1"
		echo "entries=$n_lp"
		echo "zeroed=$zeroed_lp"
		echo "invalid=$i"
		echo "stock_entries=$t_stock"
		echo "stock_zeroed=$s_zeroed"
		echo "stock_stale=${stock_stale:-}"
		echo "stock_invalid=$m"
		echo "stock_misnamed=$misnamed"
		echo "only_ours=$only_lp"
		echo "modules=$mods"
		echo "built_modules=$built_modules"
		echo "ko_files=$ko_files"
		echo "all_module_entries=$all_module_entries"
		echo "stock_all_module_entries=$stock_all_module_entries"
		echo "ko_count=$ko_count"
		echo "ko_ld_ms=$ko_ld_ms"
		echo "ko_lp_ms=$ko_lp_ms"
		echo "module_entries=$module_entries"
		echo "stock_module_entries=${stock_module_entries:-0}"
		echo "links_stock=${links[stock]}"
		echo "links_lp=${links[lp]}"
		# a build in a kept build dir (LINKPASS_KERNEL_REUSE) is no
		# full build: not measured
		if [ "$reuse" = 1 ]; then
			echo "full_stock="
			echo "full_lp="
			echo "full_reused=1"
		else
			echo "full_stock=${full[stock]}"
			echo "full_lp=${full[lp]}"
		fi
		# compiles of the full builds that came from ccache (H/N)
		echo "ccache_stock=$(ccache_hits "$res/$(pair_id)-stock.full.log")"
		echo "ccache_lp=$(ccache_hits "$res/$(pair_id)-lp.full.log")"
		echo "incr_stock=$incr_stock"
		echo "incr_lp=$incr_lp"
		postlink_facts
		# the linked image the checks read (vmlinux.unstripped on 7.x)
		# and the stripped vmlinux, in bytes
		echo "image_stock=$(stat -c %s "$sv")"
		echo "image_lp=$(stat -c %s "$ov")"
		echo "vmlinux_stock=$(stat -c %s "$(bdir_of stock)/vmlinux")"
		echo "vmlinux_lp=$(stat -c %s "$(bdir_of lp)/vmlinux")"
		# the .ko files the builds made (modules.order), summed
		echo "ko_bytes_stock=$(ko_bytes "$(bdir_of stock)")"
		echo "ko_bytes_lp=$(ko_bytes "$(bdir_of lp)")"
		# a fact whose feature the config lacks stays empty
		for k in boot_converted: boot_update_us: mod_converted: \
			 graph_func: kprobe_lines:KPROBE_EVENTS kprobe_refused:KPROBE_EVENTS \
			 fprobe_lines:FPROBE_EVENTS profile_hits:FUNCTION_PROFILER \
			 stack_lines:STACK_TRACER sys_lines:FTRACE_SYSCALLS \
			 direct_lines:SAMPLE_FTRACE_DIRECT; do
			if [ -n "${k#*:}" ] &&
			   ! grep -q "^CONFIG_${k#*:}=[ym]" "$(bdir_of lp)/.config"; then
				echo "${k%%:*}="
				echo "stock_${k%%:*}="
				continue
			fi
			echo "${k%%:*}=$(val "$ol" "${k%%:*}")"
			echo "stock_${k%%:*}=$(val "$sl" "${k%%:*}")"
		done
	} >"$res/$(pair_id).facts"
}

# --- one version, architecture and toolchain --------------------------------

# boot_kind KIND MODDIR: boot one build (with MODDIR's modules in its
# initramfs, if any); prints the entries ftrace allocated and writes the
# boot's facts (kernel/bootfacts.sh) next to its log.
boot_kind() {
	local kind=$1 moddir=$2 initrd log
	initrd=$res/$(pair_id)-$kind.initramfs.cpio
	log=$res/$(pair_id)-$kind.boot.log
	"$here/initramfs.sh" "$initrd" "$(karch_of "$arch")" "$(bdir_of "$kind")/.config" \
		vfs_read $moddir
	"$here/boot.sh" "$(karch_of "$arch")" "$(bdir_of "$kind")/$(image_of "$arch")" \
		"$initrd" "$log" | sed -n 's/^entries=//p'
	"$here/bootfacts.sh" "$log" vfs_read >"$log.facts"
}

run_pair() {
	local kind
	local -A full=() links=() scans=()
	failures=0
	say "===== Linux $v, $arch, $tc ($(profile_of "$v") config) ====="
	for kind in stock lp; do
		full[$kind]=$(fresh_build "$kind")
		links[$kind]=$(nlinks "$res/$(pair_id)-$kind.full.log")
		scans[$kind]=$(nscans "$res/$(pair_id)-$kind.full.log")
	done
	incremental "$rounds"

	sv=$(vmlinux_of "$(bdir_of stock)")
	ov=$(vmlinux_of "$(bdir_of lp)")
	sl=$res/$(pair_id)-stock.boot.log
	ol=$res/$(pair_id)-lp.boot.log
	pad=$(pad_opt_of "$(bdir_of lp)")
	sites=
	! has_link_nops "$(bdir_of lp)" || sites=--sites=nop
	smods=$(stage_modules stock)
	lmods=$(stage_modules lp)

	# Boot both, each with its own modules.
	n_stock=$(boot_kind stock "$smods") || n_stock=
	n_lp=$(boot_kind lp "$lmods") || n_lp=

	check_build_warnings
	check_pad_geometry stock
	check_pad_geometry lp
	check_default_flow
	check_boots
	check_filter_functions
	check_tracer
	check_our_table
	check_stock_table
	check_byte_audit
	mods=0 module_entries=0 u=0
	[ -z "$lmods" ] || check_modules
	check_built_modules
	check_boot_conversion
	check_consumers
	check_sorttable_fix

	postlink_cost 5
	# the saved .ko commands name the toolchain's linker: a root one's
	# is the root's (tool_of's programs, run from here)
	if tc_in_root "$tc"; then
		PATH=$cache/bin/root:$PATH ko_step_cost 3
	else
		ko_step_cost 3
	fi
	local p="[$v $arch $tc]"
	say "$p full build:        stock ${full[stock]} s, ours ${full[lp]} s (ours/stock $(ratio "${full[lp]}" "${full[stock]}"))"
	say "$p incremental build: stock $incr_stock s, ours $incr_lp s (ours/stock $(ratio "$incr_lp" "$incr_stock")), median of $rounds interleaved rounds ($incr_all) after touching $touch_file"
	say "$p module links: $ko_count modules, ld -r $ko_ld_ms ms in all; our mcount step (the linkpass part of each saved .ko rule) $ko_lp_ms ms in all ($(ratio "$ko_lp_ms" "$ko_ld_ms") of the links), median of 3 replays of the saved commands"
	say "$p vmlinux links: stock ${links[stock]} (incremental $ilinks_stock), ours ${links[lp]} (incremental $ilinks_lp); linkpass scans in ours: ${scans[lp]} (incremental $iscans_lp)"
	postlink_say "$p"
	[ "$reuse" != 1 ] || say "$p (LINKPASS_KERNEL_REUSE: 'full' times are of existing build dirs)"

	local result=ok
	[ "$failures" = 0 ] || result=fail
	write_facts "$result"
	summaries+=("kernel: version=$v arch=$arch toolchain=$tc entries=$n_lp zeroed=$zeroed_lp invalid=$i stock_invalid=$m stock_zeroed=$s_zeroed modules=$mods module_entries=$module_entries built_modules=$built_modules all_module_entries=$all_module_entries trace_lines=$k graph_lines=$g module_trace_lines=${u:-0} boot_converted=$(val "$ol" boot_converted) boot_update_us=$(val "$ol" boot_update_us) stock_boot_converted=$(val "$sl" boot_converted) stock_boot_update_us=$(val "$sl" boot_update_us) check=$result")
	say "$p ${summaries[-1]}"
	total_failures=$((total_failures + failures))
}

# run_stock: the stock build alone (LINKPASS_KERNEL_KINDS=stock), booted
# with its modules and checked on its own: it boots without warnings,
# allocates its table less its zeroed entries, lists its functions,
# traces with the function and function_graph tracers, loads and unloads
# its modules; its pads are the ones its config implies; and the
# sorttable fix is tried as run_pair tries it.
run_stock() {
	local full m z b inv
	failures=0
	say "===== Linux $v, $arch, $tc ($(profile_of "$v") config), stock only ====="
	full=$(fresh_build stock)
	sv=$(vmlinux_of "$(bdir_of stock)")
	sl=$res/$(pair_id)-stock.boot.log
	pad=$(pad_opt_of "$(bdir_of stock)")
	smods=$(stage_modules stock)
	n_stock=$(boot_kind stock "$smods") || n_stock=
	b=$sl
	check "stock kernel boots (ftrace: allocating ${n_stock:-?} entries)" "$(is -n "$n_stock")"
	check "no ftrace failure or kernel warning in the boot (_stext at $(val "$b" stext))" \
		"$(! grep -qE 'ftrace (failed|faulted|bug)|Failed on|WARNING:|BUG:|Oops' "$b"; echo $?)"
	"$lp" dump "$sv" >"$res/$(pair_id)-stock.dump"
	t_stock=$(wc -l <"$res/$(pair_id)-stock.dump")
	z=$(grep -c '^0x0000000000000000 ' "$res/$(pair_id)-stock.dump" || true)
	check "the boot allocates the table less its $z zero entries ($n_stock == $t_stock - $z)" \
		"$(is "$n_stock" = $((t_stock - z)))"
	inv=$(grep -c '^LPK-AFF __ftrace_invalid_address' "$b" || true)
	check "the boot printed available_filter_functions ($(val "$b" available) lines, $inv invalid)" \
		"$(is "$(val "$b" available)" -gt 0)"
	# the tracer checks read ol, our boot's log elsewhere: here stock's
	ol=$b check_tracer
	check_pad_geometry stock
	for m in $(modules_of stock); do
		check "insmod and rmmod $m" \
			"$(grep -q "^LPK insmod $m ok" "$b" && grep -q "^LPK rmmod ${m//-/_} ok" "$b"; echo $?)"
	done
	check "test_module's init ran (hello=$(val "$b" hello))" "$(is "$(val "$b" hello)" = 1)"
	check_sorttable_fix
	say "[$v $arch $tc] full build: stock $full s ($(ccache_hits "$res/$(pair_id)-stock.full.log") compiles from ccache)"
	local result=ok
	[ "$failures" = 0 ] || result=fail
	summaries+=("kernel-stock: version=$v arch=$arch toolchain=$tc entries=$n_stock zeroed=$z invalid=$inv trace_lines=$(val "$b" trace_lines) graph_lines=$(val "$b" graph_lines) modules=$(modules_of stock | wc -w) pads=$([ -n "$pad" ] && echo "${pad#*=}" || echo none) sorttable_fix_kept=$fix_kept check=$result")
	say "[$v $arch $tc] ${summaries[-1]}"
	total_failures=$((total_failures + failures))
}

# run_sorttable_fix: the stock build alone, booted, then relinked with
# kernel/sorttable-fix and booted again (check_sorttable_fix).  Here the
# bug must reproduce: stock's sorttable zeroes a live function the fix
# keeps, which stock does not list and the fixed build lists, enables
# and traces.  The build is the distro config without x86's call-depth
# tracking, whose call padding hides the bug (sorttable_fix_off).
run_sorttable_fix() {
	local kconfig_off t0 t1
	failures=0
	stamp t0
	kconfig_off=$(sorttable_fix_off)
	say "===== Linux $v, $arch, $tc: stock and stock with kernel/sorttable-fix ($(profile_of "$v") config${kconfig_off:+ without $kconfig_off}) ====="
	has_sorttable_fix || die "$(pair_id): no sorttable fix to reproduce (sorttable_fix_patch: kernel/fixes/$v or kernel/sorttable-fix/$v; a kernel that zeroes with nm -S + sorttable -s; x86_64)"
	fresh_build stock >/dev/null
	note "call padding: $(grep -q '^CONFIG_CALL_PADDING=y' "$(bdir_of stock)/.config" && echo "CONFIG_CALL_PADDING=y" || echo none)"
	sl=$res/$(pair_id)-stock.boot.log
	n_stock=$(boot_kind stock "") || n_stock=
	check "stock kernel boots (ftrace: allocating ${n_stock:-?} entries)" "$(is -n "$n_stock")"
	"$lp" dump "$(bdir_of stock)/vmlinux" >"$res/$(pair_id)-stock.dump"
	fix_must_trace=1 check_sorttable_fix
	check "the bug reproduces: stock's sorttable zeroes $fix_kept live function entries the fix keeps" \
		"$(is "$fix_kept" -gt 0)"
	local result=ok
	[ "$failures" = 0 ] || result=fail
	summaries+=("sorttable-fix: version=$v arch=$arch toolchain=$tc kept=$fix_kept function=${fix_name:-none} trace_lines=${fix_traced:-0} check=$result")
	stamp t1
	say "[$v $arch $tc] the reproducer took $(secs "$t0" "$t1") s (build, boots, relink)"
	say "[$v $arch $tc] ${summaries[-1]}"
	total_failures=$((total_failures + failures))
}

for p in "${pairs[@]}"; do
	IFS=: read -r v arch tc <<<"$p"
	if [ "$kinds" = stock ]; then
		run_stock
	else
		run_pair
	fi
done
for p in "${fixes[@]}"; do
	IFS=: read -r v arch tc <<<"$p"
	run_sorttable_fix
done

[ "$total_failures" = 0 ] || say "$total_failures assertion(s) failed; logs in $res"
printf '%s\n' "${summaries[@]}"
[ "$total_failures" = 0 ]
