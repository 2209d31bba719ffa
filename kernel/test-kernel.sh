#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/test-kernel.sh: `make test-kernel`.
#
# Builds Linux 6.1 (Debian's linux-source-6.1) twice per toolchain: stock
# (the per-object mcount table the config picks: gcc -mrecord-mcount,
# clang objtool --mcount) and with kernel/linkpass-6.1.patch
# (FTRACE_MCOUNT_USE_LINKPASS: one table made at final link).  Boots both
# in QEMU with the initramfs of kernel/initramfs.sh and asserts:
#
#   - ours boots; "ftrace: allocating N entries" equals our table size
#     (linkpass dump vmlinux | wc -l) and stock's equals stock's;
#   - our available_filter_functions is stock's minus its
#     __ftrace_invalid_address___* entries, and has none of those;
#   - the function tracer records calls; a one-function filter works;
#     tracing every function works;
#   - linkpass check passes on our vmlinux;
#   - stock's table has, outside any function of vmlinux's symbol table,
#     exactly the invalid entries of the stock boot plus the overridden
#     weak functions of .init.text, every other entry at a function entry,
#     and without those it is our table; linkpass check on stock's vmlinux
#     reports exactly those as stale and nothing missing (gcc; with clang
#     objtool has NOPed the calls and linkpass cannot see them, so only
#     the first part applies);
#
# and prints full and incremental (touch one .c) build times side by side
# with the number of vmlinux links of each.  Last line:
#
#   kernel: entries=N invalid=I stock_invalid=M trace_lines=K check=ok|fail
#
# (numbers of the first toolchain, check=ok only when every assertion of
# every toolchain held).  Exits non-zero on any failed assertion.
#
# Environment:
#   LINKPASS_KERNEL_CACHE       work dir outside the repo (/var/tmp/linkpass-kernel)
#   LINKPASS_KERNEL_TOOLCHAINS  "gcc clang" (default) or a subset
#   LINKPASS_KERNEL_JOBS        make -j (default: nproc)
#   LINKPASS_KERNEL_REUSE=1     keep existing build dirs (no full-build timing);
#                               or a list of toolchains, e.g. "clang"
#   LINKPASS                    the linkpass binary (default: the repo's)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${LINKPASS_KERNEL_CACHE:-/var/tmp/linkpass-kernel}
toolchains=${LINKPASS_KERNEL_TOOLCHAINS:-gcc clang}
jobs=${LINKPASS_KERNEL_JOBS:-$(nproc)}
reuse=${LINKPASS_KERNEL_REUSE:-0}
tarball=/usr/src/linux-source-6.1.tar.xz
touch_file=fs/read_write.c

# Run from `make test-kernel`, the repo's make flags (variables such as
# CC=, jobserver) must not leak into the kernel's make.
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

say() { printf 'test-kernel: %s\n' "$*"; }
die() { printf 'test-kernel: error: %s\n' "$*" >&2; exit 2; }

failures=0
# assert NAME COND-EXIT-STATUS MESSAGE: count, never stop at, a failure.
check() {
	local tc=$1 what=$2 ok=$3
	if [ "$ok" = 0 ]; then
		say "[$tc] ok: $what"
	else
		say "[$tc] FAIL: $what"
		failures=$((failures + 1))
	fi
}

# --- 1. tools -------------------------------------------------------------

need_pkgs=()
want() { command -v "$1" >/dev/null 2>&1 || need_pkgs+=("$2"); }
want qemu-system-x86_64 qemu-system-x86
want cpio cpio
want bc bc
want flex flex
want bison bison
want timeout coreutils
want xz xz-utils
want make make
want gcc gcc
[ -e "$tarball" ] || need_pkgs+=(linux-source-6.1)
[ -x /bin/busybox ] || need_pkgs+=(busybox-static)
[ -e /usr/include/libelf.h ] || need_pkgs+=(libelf-dev)
[ -e /usr/include/openssl/ssl.h ] || need_pkgs+=(libssl-dev)
case " $toolchains " in
*" clang "*)
	want clang clang
	want ld.lld lld
	want llvm-ar llvm
	want llvm-objcopy llvm
	;;
esac
if [ ${#need_pkgs[@]} -gt 0 ]; then
	say "installing ${need_pkgs[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q "${need_pkgs[@]}" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null && apt-get install -y -q "${need_pkgs[@]}" >/dev/null; } ||
		die "apt-get install ${need_pkgs[*]} failed"
fi

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
res=$cache/results

# --- 2. source trees ------------------------------------------------------

stock_src=$cache/src/linux-source-6.1
lp_src=$cache/src/linux-linkpass
if [ ! -e "$stock_src/.lpk-unpacked" ]; then
	say "unpacking $tarball into $cache/src"
	rm -rf "$stock_src"
	mkdir -p "$cache/src"
	tar -C "$cache/src" -xf "$tarball"
	touch "$stock_src/.lpk-unpacked"
fi
# The patched tree shares the pristine files by hard link; apply.sh
# unshares the few files the patch changes.  Remade when the patch changes.
patch_sum=$(sha1sum "$here/linkpass-6.1.patch" | cut -d' ' -f1)
if [ "$(cat "$lp_src/.lpk-patch" 2>/dev/null)" != "$patch_sum" ]; then
	rm -rf "$lp_src"
	cp -al "$stock_src" "$lp_src"
	rm -f "$lp_src/.lpk-unpacked"
	"$here/apply.sh" "$lp_src"
	echo "$patch_sum" >"$lp_src/.lpk-patch"
fi

# --- 3. initramfs ---------------------------------------------------------

initrd=$res/initramfs.cpio
"$here/initramfs.sh" "$initrd" vfs_read

# --- helpers --------------------------------------------------------------

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
# vmlinux links (kallsyms links and the final one) in a build log.
nlinks() { grep -cE '^  LD +(\.tmp_vmlinux[^ ]*|vmlinux)$' "$1" || true; }
# linkpass scans in a build log.
nscans() { grep -cE '^  MCOUNT ' "$1" || true; }

# build TC KIND LOGNAME: make bzImage, log to $res, echo elapsed seconds.
build() {
	local tc=$1 kind=$2 log=$res/$tc-$kind.$3.log src t0 t1
	local -a margs=()
	[ "$tc" = clang ] && margs+=(LLVM=1)
	src=$stock_src
	[ "$kind" = lp ] && src=$lp_src
	t0=$(now)
	if ! make -C "$src" O="$cache/build/$tc-$kind" -j"$jobs" "${margs[@]}" \
		LINKPASS="$lp" bzImage >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "$tc-$kind: build failed; see $log"
	fi
	t1=$(now)
	secs "$t0" "$t1"
}

configure() {
	local tc=$1 kind=$2 extra=
	local -a margs=()
	[ "$tc" = clang ] && margs+=(LLVM=1)
	[ "$kind" = lp ] && extra=FTRACE_MCOUNT_USE_LINKPASS
	if [ "$kind" = lp ]; then
		LINKPASS_KCONFIG_EXTRA=$extra "$here/config.sh" "$lp_src" \
			"$cache/build/$tc-$kind" "${margs[@]}"
	else
		"$here/config.sh" "$stock_src" "$cache/build/$tc-$kind" "${margs[@]}"
	fi
}

val() { sed -n "s/^LPK $2=//p" "$1" | head -n 1; }

summary_first=

# --- 4. per toolchain -----------------------------------------------------

for tc in $toolchains; do
	say "===== $tc ====="
	declare -A full=() incr=() links=() ilinks=() scans=() iscans=()
	for kind in stock lp; do
		b=$cache/build/$tc-$kind
		if { [ "$reuse" != 1 ] && [[ " $reuse " != *" $tc "* ]]; } || [ ! -e "$b/vmlinux" ]; then
			rm -rf "$b"
		fi
		configure "$tc" "$kind"
		full[$kind]=$(build "$tc" "$kind" full)
		links[$kind]=$(nlinks "$res/$tc-$kind.full.log")
		scans[$kind]=$(nscans "$res/$tc-$kind.full.log")
	done
	# Incremental: one .c changes (shared by both trees: same inode).
	touch "$stock_src/$touch_file"
	for kind in stock lp; do
		incr[$kind]=$(build "$tc" "$kind" incr)
		ilinks[$kind]=$(nlinks "$res/$tc-$kind.incr.log")
		iscans[$kind]=$(nscans "$res/$tc-$kind.incr.log")
	done

	sv=$cache/build/$tc-stock/vmlinux
	ov=$cache/build/$tc-lp/vmlinux

	# Boot both.
	n_stock=$("$here/boot.sh" "$cache/build/$tc-stock/arch/x86/boot/bzImage" \
		"$initrd" "$res/$tc-stock.boot.log" | sed -n 's/^entries=//p') || n_stock=
	check "$tc" "stock kernel boots (ftrace: allocating ${n_stock:-?} entries)" \
		"$([ -n "$n_stock" ]; echo $?)"
	n_lp=$("$here/boot.sh" "$cache/build/$tc-lp/arch/x86/boot/bzImage" \
		"$initrd" "$res/$tc-lp.boot.log" | sed -n 's/^entries=//p') || n_lp=
	check "$tc" "our kernel boots (ftrace: allocating ${n_lp:-?} entries)" \
		"$([ -n "$n_lp" ]; echo $?)"
	sl=$res/$tc-stock.boot.log
	ol=$res/$tc-lp.boot.log
	check "$tc" "no ftrace failure or kernel warning in our boot (_stext at $(val "$ol" stext))" \
		"$(! grep -qE 'ftrace (failed|faulted|bug)|Failed on|WARNING:|BUG:|Oops' "$ol"; echo $?)"

	# Table sizes against the boot.
	t_lp=$("$lp" dump "$ov" | wc -l)
	t_stock=$("$lp" dump "$sv" | wc -l)
	check "$tc" "our boot allocates our table size ($n_lp == $t_lp)" \
		"$([ "$n_lp" = "$t_lp" ]; echo $?)"
	check "$tc" "stock boot allocates stock table size ($n_stock == $t_stock)" \
		"$([ "$n_stock" = "$t_stock" ]; echo $?)"

	# available_filter_functions.
	sed -n 's/^LPK-AFF //p' "$sl" | LC_ALL=C sort >"$res/$tc-stock.aff"
	sed -n 's/^LPK-AFF //p' "$ol" | LC_ALL=C sort >"$res/$tc-lp.aff"
	grep -v '^__ftrace_invalid_address' "$res/$tc-stock.aff" >"$res/$tc-stock.valid.aff" || true
	m=$(grep -c '^__ftrace_invalid_address' "$res/$tc-stock.aff" || true)
	i=$(grep -c '^__ftrace_invalid_address' "$res/$tc-lp.aff" || true)
	only_stock=$(LC_ALL=C comm -23 "$res/$tc-stock.valid.aff" "$res/$tc-lp.aff" | wc -l)
	only_lp=$(LC_ALL=C comm -13 "$res/$tc-stock.valid.aff" "$res/$tc-lp.aff" | wc -l)
	say "[$tc] available_filter_functions: stock $(wc -l <"$res/$tc-stock.aff") ($m invalid), ours $(wc -l <"$res/$tc-lp.aff") ($i invalid); only in stock's valid: $only_stock, only in ours: $only_lp"
	check "$tc" "boot printed the list ($(val "$ol" available) lines)" \
		"$([ "$(val "$ol" available)" = "$(wc -l <"$res/$tc-lp.aff")" ] && [ -s "$res/$tc-lp.aff" ]; echo $?)"
	check "$tc" "ours lists every valid function of stock's" "$([ "$only_stock" = 0 ]; echo $?)"
	check "$tc" "ours has no __ftrace_invalid_address entry" "$([ "$i" = 0 ]; echo $?)"
	if [ "$only_stock" != 0 ] || [ "$only_lp" != 0 ]; then
		LC_ALL=C comm -3 "$res/$tc-stock.valid.aff" "$res/$tc-lp.aff" | head -n 20 | sed 's/^/    /'
	fi

	# Tracer.
	k=$(val "$ol" trace_lines)
	check "$tc" "function tracer with filter vfs_read recorded $k calls, $(val "$ol" trace_other) of others" \
		"$([ "${k:-0}" -gt 0 ] && [ "$(val "$ol" trace_other)" = 0 ]; echo $?)"
	check "$tc" "enabled_functions lists only vfs_read" \
		"$([ "$(grep -c '^LPK-ENABLED ' "$ol")" = 1 ] && grep -q '^LPK-ENABLED vfs_read ' "$ol"; echo $?)"
	check "$tc" "tracing every function: $(val "$ol" all_lines) records of $(val "$ol" all_funcs) functions" \
		"$([ "$(val "$ol" all_lines)" -gt 0 ] 2>/dev/null; echo $?)"
	grep '^LPK-TRACE ' "$ol" | head -n 3 | sed 's/^/    /'

	# linkpass check: ours exact.
	"$lp" check "$ov" >"$res/$tc-lp.check" 2>&1 && c_lp=0 || c_lp=$?
	check "$tc" "linkpass check on our vmlinux: $(tail -n 1 "$res/$tc-lp.check")" "$c_lp"

	# Stock's table against the final symbol table: an entry in no
	# function ("<none>": an overridden weak body) is what the stock boot
	# shows as __ftrace_invalid_address (or, in .init.text, frees unseen).
	"$lp" dump "$sv" >"$res/$tc-stock.dump"
	dead=$(grep -c ' <none> ' "$res/$tc-stock.dump" || true)
	dead_init=$(grep -c ' <none> \.init\.text$' "$res/$tc-stock.dump" || true)
	inside=$(grep -v ' <none> ' "$res/$tc-stock.dump" | grep -vc '+0x0 ' || true)
	check "$tc" "stock table: $dead entries in no function = $m invalid at boot + $dead_init in .init.text; $inside not at a function entry" \
		"$([ "$dead" = $((m + dead_init)) ] && [ "$inside" = 0 ]; echo $?)"
	# Ours may also have functions stock missed: with clang, objects that
	# objtool skips (OBJECT_FILES_NON_STANDARD) keep a live
	# "call __fentry__" but get no table entry.
	check "$tc" "stock table - those + functions only ours lists = our table ($t_stock - $dead + $only_lp == $t_lp)" \
		"$([ $((t_stock - dead + only_lp)) = "$t_lp" ]; echo $?)"

	# linkpass check on stock: the same entries must come out stale.  It
	# needs the calls' relocations: the kernel keeps them itself
	# (RANDOMIZE_BASE links with --emit-relocs).  objtool --mcount (clang)
	# leaves each call as a 5-byte NOP with an R_X86_64_NONE relocation,
	# which linkpass counts as a site too.  Missing from stock's table:
	# exactly the functions only ours lists (objects objtool skips).
	c_stock=0
	"$lp" check --allow-unsorted --max-list=0 "$sv" >"$res/$tc-stock.check" 2>&1 || c_stock=$?
	say "[$tc] linkpass check on stock vmlinux (exit $c_stock): $(tail -n 1 "$res/$tc-stock.check")"
	stale=$(grep -c '^stale ' "$res/$tc-stock.check" || true)
	stale_init=$(grep '^stale ' "$res/$tc-stock.check" | grep -c ' \.init\.text' || true)
	stale_named=$(grep '^stale ' "$res/$tc-stock.check" | grep -vc ' <none>' || true)
	missing=$(grep -c '^missing ' "$res/$tc-stock.check" || true)
	check "$tc" "linkpass check on stock: $stale stale = $m invalid at boot + $stale_init in .init.text; $missing missing = $only_lp only ours lists; $stale_named inside a live function" \
		"$([ "$c_stock" = 1 ] && [ "$stale" = $((m + stale_init)) ] && [ "$missing" = "$only_lp" ] && [ "$stale_named" = 0 ]; echo $?)"

	# Build cost, side by side.
	say "[$tc] full build:        stock ${full[stock]} s, ours ${full[lp]} s (ours/stock $(ratio "${full[lp]}" "${full[stock]}"))"
	say "[$tc] incremental build: stock ${incr[stock]} s, ours ${incr[lp]} s (ours/stock $(ratio "${incr[lp]}" "${incr[stock]}")) after touching $touch_file"
	say "[$tc] vmlinux links: stock ${links[stock]} (incremental ${ilinks[stock]}), ours ${links[lp]} (incremental ${ilinks[lp]}); linkpass scans in ours: ${scans[lp]} (incremental ${iscans[lp]})"
	if [ "$reuse" = 1 ] || [[ " $reuse " == *" $tc "* ]]; then
		say "[$tc] (LINKPASS_KERNEL_REUSE: 'full' times are of existing build dirs)"
	fi

	line="entries=$n_lp invalid=$i stock_invalid=$m trace_lines=$k"
	say "[$tc] kernel[$tc]: $line"
	[ -n "$summary_first" ] || summary_first=$line
	unset full incr links ilinks scans iscans
done

if [ "$failures" = 0 ]; then
	result=ok
else
	result=fail
	say "$failures assertion(s) failed; logs in $res"
fi
echo "kernel: $summary_first check=$result"
[ "$failures" = 0 ]
