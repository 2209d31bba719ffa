#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/test-kernel.sh: `make test-kernel`.
#
# For each kernel version and toolchain, builds Linux from Debian's
# linux-source-<version> twice: stock (the per-object mcount table its
# config picks: gcc -mrecord-mcount, clang objtool --mcount; 6.12 then
# zeroes dead entries after the link with nm -S + sorttable -s) and with
# kernel/linkpass-<version>.patch (FTRACE_MCOUNT_USE_LINKPASS: one table
# per image, made at final link; for 6.12 also per module).  Boots both
# in QEMU and asserts (kernel/checks.sh) that ours allocates exactly its
# table, lists every valid function stock lists and no invalid or zeroed
# one, traces, passes linkpass check (vmlinux and every .ko), that the
# byte-level audit agrees, and for 6.12 that the modules load signed,
# appear with [module], trace and unload cleanly.  Prints full and
# incremental build times (median of interleaved rounds), links, and
# the post-link cost of stock's step against ours, side by side.
#
# Each version and toolchain ends with one line:
#
#   kernel: version=<v> toolchain=<tc> entries=N zeroed=Z invalid=I
#     stock_invalid=M stock_zeroed=S modules=K module_entries=E
#     trace_lines=T module_trace_lines=U check=ok|fail
#
# (check=ok when every assertion of that pair held).  Exits non-zero on
# any failed assertion.
#
# Environment:
#   KERNELS                     versions to test: "6.12 6.1:gcc" (default),
#                               "6.12 6.1" for both toolchains on both
#   LINKPASS_KERNEL_TOOLCHAINS  "gcc clang" (default) or a subset; an
#                               entry of KERNELS may be V:TC for one pair
#   LINKPASS_KERNEL_CACHE       work dir outside the repo (/var/tmp/linkpass-kernel)
#   LINKPASS_KERNEL_JOBS        make -j (default: nproc)
#   LINKPASS_KERNEL_ROUNDS      incremental rounds per build (default 3)
#   LINKPASS_KERNEL_REUSE=1     keep existing build dirs (no full-build timing)
#   LINKPASS                    the linkpass binary (default: the repo's)
set -euo pipefail
# shellcheck disable=SC2034,SC2154  # globals shared with lib.sh and checks.sh

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${LINKPASS_KERNEL_CACHE:-/var/tmp/linkpass-kernel}
kernels=${KERNELS:-6.12 6.1:gcc}
toolchains=${LINKPASS_KERNEL_TOOLCHAINS:-gcc clang}
jobs=${LINKPASS_KERNEL_JOBS:-$(nproc)}
rounds=${LINKPASS_KERNEL_ROUNDS:-3}
reuse=${LINKPASS_KERNEL_REUSE:-0}

# Run from `make test-kernel`, the repo's make flags (variables such as
# CC=, jobserver) must not leak into the kernel's make.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

# shellcheck source=kernel/lib.sh
. "$here/lib.sh"
# shellcheck source=kernel/checks.sh
. "$here/checks.sh"

# The (version, toolchain) pairs, in order.
pairs=()
for k in $kernels; do
	case $k in
	*:*) pairs+=("$k") ;;
	*) for tc in $toolchains; do pairs+=("$k:$tc"); done ;;
	esac
done
versions=$(printf '%s\n' "${pairs[@]}" | cut -d: -f1 | awk '!s[$0]++' | tr '\n' ' ')
all_tcs=$(printf '%s\n' "${pairs[@]}" | cut -d: -f2 | sort -u | tr '\n' ' ')

# --- set-up ------------------------------------------------------------------

install_packages "$versions" "$all_tcs"
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
for v in $versions; do
	unpack_trees "$v"
done
"$here/initramfs.sh" "$res/initramfs.cpio" vfs_read

summaries=()
total_failures=0

# --- one version and toolchain -------------------------------------------------

# boot_kind V TC KIND MODDIR: boot one build (with MODDIR's modules in
# its initramfs, if any); prints the entries ftrace allocated.
boot_kind() {
	local v=$1 tc=$2 kind=$3 moddir=$4 initrd=$res/initramfs.cpio
	if [ -n "$moddir" ]; then
		initrd=$res/$v-$tc-$kind.initramfs.cpio
		"$here/initramfs.sh" "$initrd" vfs_read "$moddir"
	fi
	"$here/boot.sh" "$(bdir_of "$v" "$tc" "$kind")/arch/x86/boot/bzImage" \
		"$initrd" "$res/$v-$tc-$kind.boot.log" | sed -n 's/^entries=//p'
}

run_pair() {
	local v=$1 tc=$2 kind b
	local -A full=() links=() scans=()
	failures=0
	say "===== Linux $v, $tc ($(profile_of "$v") config) ====="
	for kind in stock lp; do
		b=$(bdir_of "$v" "$tc" "$kind")
		if [ "$reuse" != 1 ] || [ ! -e "$b/vmlinux" ]; then
			rm -rf "$b"
		fi
		configure "$v" "$tc" "$kind"
		full[$kind]=$(build "$v" "$tc" "$kind" full)
		links[$kind]=$(nlinks "$res/$v-$tc-$kind.full.log")
		scans[$kind]=$(nscans "$res/$v-$tc-$kind.full.log")
	done
	incremental "$v" "$tc" "$rounds"

	sv=$(bdir_of "$v" "$tc" stock)/vmlinux
	ov=$(bdir_of "$v" "$tc" lp)/vmlinux
	sl=$res/$v-$tc-stock.boot.log
	ol=$res/$v-$tc-lp.boot.log
	smods=
	lmods=
	if [ "$(profile_of "$v")" = distro ]; then
		smods=$(stage_modules "$v" "$tc" stock)
		lmods=$(stage_modules "$v" "$tc" lp)
	fi

	# Boot both, each with its own modules.
	n_stock=$(boot_kind "$v" "$tc" stock "$smods") || n_stock=
	n_lp=$(boot_kind "$v" "$tc" lp "$lmods") || n_lp=

	check_boots
	check_filter_functions
	check_tracer
	check_our_table
	check_stock_table
	check_byte_audit
	mods=0 module_entries=0 u=0
	[ -z "$lmods" ] || check_modules

	postlink_cost "$v" "$tc" 5
	say "[$v $tc] full build:        stock ${full[stock]} s, ours ${full[lp]} s (ours/stock $(ratio "${full[lp]}" "${full[stock]}"))"
	say "[$v $tc] incremental build: stock $incr_stock s, ours $incr_lp s (ours/stock $(ratio "$incr_lp" "$incr_stock")), median of $rounds interleaved rounds ($incr_all) after touching $touch_file"
	say "[$v $tc] vmlinux links: stock ${links[stock]} (incremental $ilinks_stock), ours ${links[lp]} (incremental $ilinks_lp); linkpass scans in ours: ${scans[lp]} (incremental $iscans_lp)"
	say "[$v $tc] post-link mcount step, median of 5: stock $(has_zeroing "$v" && echo "nm -S + sorttable -s" || echo sorttable) $pl_stock_ms ms ($pl_stock_nm + $pl_stock_sort); ours $pl_scans scans + sorttable + check $pl_lp_ms ms ($pl_lp_scans + $pl_lp_sort + $pl_lp_check); ours/stock $(ratio "$pl_lp_ms" "$pl_stock_ms"), scans + check / stock $(ratio "$pl_lp_scans_check" "$pl_stock_ms")"
	say "[$v $tc] least work (bench/leastwork -c), same rounds: $pl_scans scans + check $pl_least_ms ms ($pl_least_scans + $pl_least_check), / stock $(ratio "$pl_least_ms" "$pl_stock_ms"); ours / least work $(ratio "$pl_lp_scans_check" "$pl_least_ms"); entries of our table it does not find: $pl_least_diff"
	[ "$reuse" != 1 ] || say "[$v $tc] (LINKPASS_KERNEL_REUSE: 'full' times are of existing build dirs)"

	local result=ok
	[ "$failures" = 0 ] || result=fail
	summaries+=("kernel: version=$v toolchain=$tc entries=$n_lp zeroed=$zeroed_lp invalid=$i stock_invalid=$m stock_zeroed=$s_zeroed modules=$mods module_entries=$module_entries trace_lines=$k module_trace_lines=${u:-0} check=$result")
	say "[$v $tc] ${summaries[-1]}"
	total_failures=$((total_failures + failures))
}

for p in "${pairs[@]}"; do
	run_pair "${p%%:*}" "${p#*:}"
done

[ "$total_failures" = 0 ] || say "$total_failures assertion(s) failed; logs in $res"
printf '%s\n' "${summaries[@]}"
[ "$total_failures" = 0 ]
