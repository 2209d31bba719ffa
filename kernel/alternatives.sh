#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/alternatives.sh [STEP...]: issue 48, item 4, "the alternatives,
# measured, not argued".  Linux 7.3, the distro config of kernel/config.sh,
# gcc 12 ("gcc" toolchain), on x86_64 and arm64, vmlinux's mcount table
# made each of these ways, side by side:
#
#   stock    the per-object tables (x86: gcc -mrecord-mcount; arm64: the
#            compiler's -fpatchable-function-entry lists), then nm -S +
#            sorttable -s zeroing the dead entries
#   lp       the series (kernel/series/7.3): the table made from each
#            kallsyms link, checked after the final link, with the
#            link-time states written
#   obj      a vmlinux.o-stage table: the user-space "linkpass obj --check"
#            (--nop on x86, the pads' geometry on arm64) run on vmlinux.o,
#            vmlinux then linked from vmlinux.o, sorttable sorting it
#   objtool  (x86) objtool --mcount --mnop on vmlinux.o, as stock 7.3 does
#            for clang with IBT or LTO, forced with gcc
#
# obj and objtool are built from a tree of our own: the stock tree (Debian's
# linux-source-7.3, kernel/instrument/7.x, the upstream fixes stock gets)
# with the test-only patches of kernel/alternatives/7.3/, which choose the
# way with make variables (LPALT_MCOUNT), so that x86's objtool and obj
# builds share one configuration and one compile (obj is a copy of
# objtool's build directory, relinked).  stock and lp are the build
# directories of a finished kernel/test-kernel.sh run (copied from
# LINKPASS_ALT_PAIRS, with that run's boot logs), or built here when that
# run has none.
#
# Steps (default: all of them, in this order):
#   tree      the alternatives' source tree
#   pairs     stock and lp: copied from the test-kernel run, else built
#             and booted here
#   build     obj (and objtool on x86): configured, built, booted with
#             the same modules as the pairs (kernel/lib.sh modules_of)
#   measure   for each way: table entries, dead entries (linkpass dump and
#             check, the boot's __ftrace_invalid_address lines), boot
#             conversion (lpk-ftrace-update), the post-link steps timed on
#             the images the builds left, the vmlinux link step timed,
#             links, sizes; and sorttable reading .symtab (the prototype of
#             kernel/alternatives/7.3/0002) on stock's image
#   gc        LD_DEAD_CODE_DATA_ELIMINATION: riscv64 (x86 and arm64 7.3 do
#             not offer it), built the stock way and relinked the obj way
#   report    the tables (kernel/altreport.py) into RESULTS/alternatives.md
#
# Every figure goes into $cache/results/alternatives/ARCH.facts (name=value
# lines); logs beside it.
#
# Environment:
#   LINKPASS_ALT_CACHE   work dir (/var/tmp/linkpass-alt): trees, builds,
#                        ccache, results
#   LINKPASS_ALT_PAIRS   the cache of the test-kernel run whose stock and lp
#                        build dirs and boot logs are taken
#                        (/var/tmp/linkpass-kernel); "" builds them here
#   LINKPASS_ALT_ARCHS   "x86_64 arm64"
#   LINKPASS_ALT_REUSE=1 keep build dirs that hold a vmlinux (no rebuild)
#   LINKPASS_ALT_REPS    rounds of each timing, interleaved (5)
#   LINKPASS_KERNEL_JOBS make -j (nproc)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${LINKPASS_ALT_CACHE:-/var/tmp/linkpass-alt}
pairs_from=${LINKPASS_ALT_PAIRS-/var/tmp/linkpass-kernel}
archs=${LINKPASS_ALT_ARCHS:-x86_64 arm64}
reuse=${LINKPASS_ALT_REUSE:-0}
reps=${LINKPASS_ALT_REPS:-5}
jobs=${LINKPASS_KERNEL_JOBS:-$(nproc)}
ccache=1
profile=distro
toolchains=gcc
v=7.3
tc=gcc
unset MAKEFLAGS MFLAGS MAKEOVERRIDES MAKELEVEL

# shellcheck source=kernel/lib.sh
. "$here/lib.sh"

say() { printf 'alternatives: %s\n' "$*"; }
die() { printf 'alternatives: error: %s\n' "$*" >&2; exit 2; }

res=$cache/results/alternatives
lp=$cache/bin/linkpass
alt_patches=$(find "$here/alternatives/$v" -name '0*.patch' | LC_ALL=C sort)

# The trees: lib.sh's for stock and lp, ours for the alternatives.
src_of() {
	case $1 in
	stock) echo "$cache/src/linux-source-$v" ;;
	lp) echo "$cache/src/linux-linkpass-$v" ;;
	*) echo "$cache/src/linux-alt-$v" ;;
	esac
}
# The make variables that choose a build's way (cur_kind: the build that
# margs is asked for), on top of lib.sh's.
cur_kind=
margs() {
	margs_of "$arch" "$tc" "$v"
	case $cur_kind in
	obj) echo LPALT_MCOUNT=linkpass "LPALT_LINKPASS=$lp" ;;
	objtool) echo LPALT_MCOUNT=objtool ;;
	esac
}
kinds_of() {
	case $1 in
	x86_64) echo stock lp obj objtool ;;
	*) echo stock lp obj ;;
	esac
}
facts=
fact() { echo "$1=$2" >>"$facts"; }

# --- the alternatives' tree -------------------------------------------------

# The pristine git tree of Debian's linux-source-7.3: a clone of the
# test-kernel cache's (read only), else made from the tarball.
pristine() {
	local git=$cache/git/linux-$v
	[ ! -e "$git/.lpk-pristine" ] || return 0
	rm -rf "$git"
	mkdir -p "$cache/git" "$cache/tarballs"
	if [ -n "$pairs_from" ] && [ -e "$pairs_from/git/linux-$v/.lpk-pristine" ]; then
		git clone -q "$pairs_from/git/linux-$v" "$git"
	else
		[ -e "$(tarball_of "$v")" ] || "$here/fetch-source.sh" "$v" "$(tarball_of "$v")" ||
			die "linux-source-$v: cannot fetch it"
		LINKPASS_TARBALL=$(tarball_of "$v") "$here/series.sh" pristine "$v" "$git"
	fi
	touch "$git/.lpk-pristine"
}

# src/linux-alt-7.3: the pristine tree with what stock's tree gets
# (kernel/instrument/7.x, the upstream fixes) and kernel/alternatives/7.3
# (lib.sh's instrument() reapplies them when they change).
step_tree() {
	local t
	t=$(src_of obj)
	pristine
	if [ ! -d "$t/.git" ]; then
		rm -rf "$t"
		mkdir -p "$cache/src"
		git clone -q --shared "$cache/git/linux-$v" "$t"
	fi
	# shellcheck disable=SC2046,SC2086  # one argument per patch
	instrument "$t" $(upstream_fixes "$v") $alt_patches
	say "tree: $t (kernel/instrument/7.x, $(upstream_fixes "$v" | wc -l) upstream fixes, $(wc -w <<<"$alt_patches") test-only patches)"
}

# --- builds -----------------------------------------------------------------

# alt_configure KIND: the distro profile; on x86 without -mrecord-mcount,
# so that objtool makes the table (FTRACE_MCOUNT_USE_OBJTOOL: both x86
# ways compile the same, and objtool --mnop writes the NOPs of modules).
alt_configure() {
	local extra=
	[ "$arch" != x86_64 ] || extra="LPALT_NO_CC_MCOUNT FTRACE_MCOUNT_USE_OBJTOOL"
	cur_kind=$1
	# shellcheck disable=SC2046  # margs: one word per argument
	LINKPASS_KCONFIG_PROFILE=distro LINKPASS_KCONFIG_EXTRA=$extra \
		"$here/config.sh" "$(src_of "$1")" "$(bdir_of "$1")" $(margs)
}

# alt_build KIND [FROM]: KIND's build directory, configured and built
# (LINKPASS_ALT_REUSE=1 keeps one with a vmlinux), or a copy of FROM's
# relinked KIND's way; logs to $res/PAIR-KIND.full.log.
alt_build() {
	local kind=$1 from=${2:-} b t
	b=$(bdir_of "$kind")
	if [ "$reuse" = 1 ] && [ -e "$b/vmlinux" ]; then
		say "$(pair_id)-$kind: kept $b (LINKPASS_ALT_REUSE=1)"
		cur_kind=$kind
		t=$(build "$kind" relink)
		return
	fi
	rm -rf "$b"
	if [ -n "$from" ]; then
		cp -a "$(bdir_of "$from")" "$b"
		rm -f "$b"/vmlinux.o* "$b/vmlinux" "$b/vmlinux.unstripped"
	else
		alt_configure "$kind" >"$res/$(pair_id)-$kind.config.log" 2>&1 ||
			{ cat "$res/$(pair_id)-$kind.config.log" >&2; die "$(pair_id)-$kind: the configuration failed"; }
	fi
	cur_kind=$kind
	t=$(build "$kind" full)
	say "$(pair_id)-$kind: built in $t s$([ -z "$from" ] || echo " (a copy of $from's build, relinked)"): $(ccache_hits "$res/$(pair_id)-$kind.full.log") compiles from ccache"
}

# boot_kind KIND: modules staged (signed), the initramfs of the pairs'
# test, one boot, its facts.
boot_kind() {
	local kind=$1 moddir initrd log
	cur_kind=$kind
	moddir=$(stage_modules "$kind")
	initrd=$res/$(pair_id)-$kind.initramfs.cpio
	log=$res/$(pair_id)-$kind.boot.log
	"$here/initramfs.sh" "$initrd" "$(karch_of "$arch")" "$(bdir_of "$kind")/.config" \
		vfs_read "$moddir"
	"$here/boot.sh" "$(karch_of "$arch")" "$(bdir_of "$kind")/$(image_of "$arch")" \
		"$initrd" "$log" >/dev/null || say "$(pair_id)-$kind: the boot failed: see $log"
	"$here/bootfacts.sh" "$log" vfs_read >"$log.facts"
	rm -f "$initrd"
}

step_build() {
	if [ "$arch" = x86_64 ]; then
		alt_build objtool
		alt_build obj objtool
		boot_kind objtool
	else
		alt_build obj
	fi
	boot_kind obj
}

# The pairs: the test-kernel run's build dirs and boot logs, copied (a
# later run of it rebuilds them), else built and booted here.
step_pairs() {
	local kind src
	for kind in stock lp; do
		src=$pairs_from/build/$(pair_id)-$kind
		if [ -n "$pairs_from" ] && [ -e "$src/vmlinux" ] &&
		   [ -e "$pairs_from/results/$(pair_id)-$kind.boot.log.facts" ]; then
			rm -rf "$(bdir_of "$kind")"
			cp -a "$src" "$(bdir_of "$kind")"
			cp "$pairs_from/results/$(pair_id)-$kind".{boot.log,boot.log.facts,full.log} "$res/"
			echo "$src" >"$res/$(pair_id)-$kind.from"
			say "$(pair_id)-$kind: copied from $src"
			continue
		fi
		[ "$reuse" = 1 ] && [ -e "$(bdir_of "$kind")/vmlinux" ] && continue
		say "$(pair_id)-$kind: no finished test-kernel build in ${pairs_from:-(none)}: building it"
		if [ "$kind" = stock ]; then unpack_trees "$v"; fi
		cur_kind=$kind
		fresh_build "$kind" >/dev/null
		boot_kind "$kind"
		echo built >"$res/$(pair_id)-$kind.from"
	done
}

# --- measurements -------------------------------------------------------------

# timed ARRAY COMMAND...: run COMMAND (its output to /dev/null), append its
# milliseconds to ARRAY.
timed() {
	local -n acc=$1
	local t0 t1
	shift
	stamp t0
	"$@" >/dev/null
	stamp t1
	acc+=("$(ms "$t0" "$t1")")
}

# The pads' geometry of build B as the user-space tool takes it
# (--patchable-entries=N,M; empty for mcount calls).
upad() { pad_opt_of "$1"; }

# table_facts KIND: the table of KIND's linked image: entries (linkpass
# dump), zero words, entries in no function; linkpass check against the
# image's sites (relocations where the image kept them for code, else the
# byte-level audit): missing, stale, zeroed.
table_facts() {
	local kind=$1 b img dump chk p mode=relocs c=0
	b=$(bdir_of "$kind")
	img=$(vmlinux_of "$b")
	p=$(upad "$b")
	dump=$res/$(pair_id)-$kind.dump
	chk=$res/$(pair_id)-$kind.check
	"$lp" dump "$img" >"$dump"
	# the series' image holds the link-time states (arm64's mov x9, x30),
	# which the audit does not take for pads: it audits the final link as
	# it was before they were written (kernel/prewrite.sh), same table
	if [ "$kind" = lp ] && [ -n "$p" ]; then
		"$here/prewrite.sh" "$b" "$res/$(pair_id)-lp.prewrite"
		img=$res/$(pair_id)-lp.prewrite
	fi
	fact "${kind}_entries" "$(wc -l <"$dump")"
	fact "${kind}_zero" "$(grep -c '^0x0000000000000000 ' "$dump" || true)"
	fact "${kind}_none" "$(grep -v '^0x0000000000000000 ' "$dump" | grep -c ' <none> ' || true)"
	# arm64's stock and obj images keep no relocations of code
	if [ -n "$p" ] && ! "$(tool_of "$arch" "$tc" readelf)" -SW "$img" | grep -q ' \.rela\.text '; then
		mode=byte-audit
	fi
	# shellcheck disable=SC2046  # the audit's flag: a word or none
	"$lp" check $([ "$mode" = relocs ] || echo --byte-audit) $p --allow-unsorted \
		--allow-zeroed --max-list=0 "$img" >"$chk" 2>&1 || c=$?
	fact "${kind}_check_mode" "$mode"
	fact "${kind}_check_exit" "$c"
	fact "${kind}_check" "$(tail -n 1 "$chk" | sed "s|$img|IMAGE|")"
	fact "${kind}_missing" "$(grep -c '^missing ' "$chk" || true)"
	fact "${kind}_stale" "$(grep -c '^stale ' "$chk" || true)"
	fact "${kind}_stale_init" "$(grep '^stale ' "$chk" | grep -c '\.init\.text' || true)"
	fact "${kind}_zeroed" "$(zeroed_in "$chk")"
	rm -f "$res/$(pair_id)-lp.prewrite"
}

# would_zero KIND: what stock's step (nm -S + sorttable -s, by KIND's own
# sorttable) zeroes in a copy of KIND's linked image: the dead entries of
# a table nothing zeroed.
would_zero() {
	local kind=$1 b t
	b=$(bdir_of "$kind")
	t=$(mktemp -d)
	cp "$(vmlinux_of "$b")" "$t/v"
	"$(tool_of "$arch" "$tc" nm)" -S "$t/v" >"$t/nm"
	"$b/scripts/sorttable" -s "$t/nm" "$t/v"
	fact "${kind}_would_zero" "$("$lp" dump "$t/v" | grep -c '^0x0000000000000000 ' || true)"
	rm -rf "$t"
}

# boot_facts KIND: the boot of KIND (its log's facts: kernel/bootfacts.sh).
boot_facts() {
	local kind=$1 log k
	log=$res/$(pair_id)-$kind.boot.log
	if [ ! -e "$log.facts" ]; then
		fact "${kind}_boot" none
		return
	fi
	fact "${kind}_boot" "$(grep -q '^LPK done' "$log" && echo ok || echo failed)"
	fact "${kind}_allocated" "$(sed -n 's/.*ftrace: allocating \([0-9]*\) entries.*/\1/p' "$log" | sed -n 1p)"
	for k in available invalid errors boot_records boot_converted boot_update_us mod_converted \
		 trace_lines graph_lines mod_trace_lines; do
		fact "${kind}_$k" "$(val "$log" "$k")"
	done
	fact "${kind}_warnings" "$(grep -cE 'ftrace (failed|faulted|bug)|Failed on|WARNING:|BUG:|Oops' "$log" || true)"
}

# build_facts KIND: links, sizes, modules.
build_facts() {
	local kind=$1 b p ko n=0 sz=0 e=0
	b=$(bdir_of "$kind")
	p=$(upad "$b")
	fact "${kind}_links" "$(nlinks "$res/$(pair_id)-$kind.full.log")"
	fact "${kind}_from" "$(cat "$res/$(pair_id)-$kind.from" 2>/dev/null || echo built)"
	fact "${kind}_link_input" "$(link_input "$kind")"
	fact "${kind}_size_unstripped" "$(stat -c %s "$b/vmlinux.unstripped")"
	fact "${kind}_size_vmlinux" "$(stat -c %s "$b/vmlinux")"
	fact "${kind}_size_vmlinux_o" "$(stat -c %s "$b/vmlinux.o")"
	fact "${kind}_size_image" "$(stat -c %s "$b/$(image_of "$arch")")"
	while IFS= read -r ko; do
		n=$((n + 1))
		sz=$((sz + $(stat -c %s "$b/$ko")))
		e=$((e + $(ko_entries "$b/$ko" "$p")))
	done < <(built_kos "$b")
	fact "${kind}_kos" "$n"
	fact "${kind}_size_kos" "$sz"
	fact "${kind}_ko_entries" "$e"
}

# link_input KIND: what KIND's vmlinux links read: vmlinux.o (x86 with
# IBT, and the vmlinux.o-stage ways), else vmlinux.a and the libraries.
link_input() {
	if [ "$arch" = x86_64 ] || [ "$1" = obj ] || [ "$1" = objtool ]; then
		echo vmlinux.o
	else
		echo vmlinux.a
	fi
}

# link_cmd KIND OUT: the command of one vmlinux link of KIND's build (the
# final one, as link-vmlinux.sh's vmlinux_link makes it: the linker and
# flags of the build's saved command, its linker script, the objects it
# links, the last kallsyms object), writing OUT; run in the build dir.
# The series' table object is left out (the series deletes it): a few
# kilobytes of input.
link_cmd() {
	local kind=$1 out=$2 b cmd ld ldflags ldvm libs objs ks
	b=$(bdir_of "$kind")
	cmd=$(sed -n 's/^savedcmd_vmlinux.unstripped := //p' "$b/.vmlinux.unstripped.cmd")
	ld=$(sed 's/^[^"]*"\([^"]*\)".*/\1/' <<<"$cmd")
	ldflags=$(sed 's/^[^"]*"[^"]*" "\([^"]*\)".*/\1/' <<<"$cmd")
	ldvm=$(sed 's/^[^"]*"[^"]*" "[^"]*" "\([^"]*\)".*/\1/' <<<"$cmd")
	libs=$(sed -n 's/^savedcmd_vmlinux.o := .*--start-group \(.*\) --end-group.*/\1/p' "$b/.vmlinux.o.cmd")
	ks=$(cd "$b" && find . -maxdepth 1 -name '.tmp_vmlinux[0-9].kallsyms.o' | sort | tail -n 1)
	if [ "$(link_input "$kind")" = vmlinux.o ]; then
		objs=vmlinux.o
		libs=
	else
		objs=vmlinux.a
	fi
	[ ! -e "$b/.builtin-dtbs.o" ] || objs="$objs .builtin-dtbs.o"
	echo "$ld $ldflags $ldvm --script=arch/$(karch_of "$arch")/kernel/vmlinux.lds -o $out" \
		"--whole-archive $objs .vmlinux.export.o init/version-timestamp.o --no-whole-archive" \
		"--start-group $libs --end-group $ks"
}

# objtool_args KIND: the objtool command of KIND's vmlinux.o (x86).
objtool_args() {
	sed -n 's/^savedcmd_vmlinux.o := .*; *\(\.\/tools\/objtool\/objtool [^;]*\) vmlinux\.o.*/\1/p' \
		"$(bdir_of "$1")/.vmlinux.o.cmd"
}

# The post-link steps of each way, timed on the images the builds left,
# REPS rounds interleaved, medians (ms):
#   stock     nm -S + sorttable -s (kernel/postlink-time.sh stock)
#   lp        the scans of the kallsyms links, their assembly, the check
#             with the link-time states written (postlink-time.sh lp)
#   obj       linkpass obj on vmlinux.o as it was before it, and
#             sorttable (with the mcount sort) on the linked image
#   objtool   objtool on vmlinux.o as linked, with and without --mcount
#             --mnop (the difference is the table's part), and
#             nm -S + sorttable -s
#   sorttable reading .symtab (kernel/alternatives/7.3/0002), on a copy
#             of stock's last kallsyms link (before any sorttable), against
#             nm -S + sorttable -s on the same copy, and against the
#             series' sorttable, which does no mcount work
# and one vmlinux link of each way (link_cmd), on the same rounds.
postlink_times() {
	local sb lb ob tb nm cc pad kp lists= r t out k last objflags ota otn
	local -a st_nm=() st_sort=() lp_scan=() lp_as=() lp_check=() lp_sort=() ob_obj=() ob_sort=()
	local -a ot_full=() ot_nomc=() ot_nm=() ot_sort=() sy_nm=() sy_s=() sy_y=() sy_base=()
	local -A lk=()
	sb=$(bdir_of stock)
	lb=$(bdir_of lp)
	ob=$(bdir_of obj)
	tb=$(bdir_of objtool)
	nm=$(tool_of "$arch" "$tc" nm)
	cc=$(asm_cmd_of "$lb")
	pad=$(upad "$ob")
	kp=$(kpad "$lb")
	[ -z "$kp" ] || lists=--lists=vmlinux.o
	objflags="--check ${pad}"
	[ "$arch" != x86_64 ] || objflags="--check --nop"
	# stock's last kallsyms link: vmlinux's layout and table before
	# sorttable (stock's table does not move between the links)
	last=$(find "$sb" -maxdepth 1 -name '.tmp_vmlinux[0-9]' | sort | tail -n 1)
	if [ "$arch" = x86_64 ]; then
		ota=$(objtool_args objtool)
		otn=$(sed 's/ --mcount//; s/ --mnop//' <<<"$ota")
	fi
	t=$(mktemp -d)
	cp "$here/postlink-time.sh" "$here/prewrite.sh" "$cache/bin/"
	for r in $(seq "$reps"); do
		out=$("$cache/bin/postlink-time.sh" stock "$sb" 1 "$cc" "$nm")
		st_nm+=("$(sed -n 's/^nm=//p' <<<"$out")")
		st_sort+=("$(sed -n 's/^sort=//p' <<<"$out")")
		# shellcheck disable=SC2086  # no pads: no flag
		out=$("$cache/bin/postlink-time.sh" lp "$lb" 1 "$cc" "$nm" $kp $lists)
		lp_scan+=("$(sed -n 's/^scan=//p' <<<"$out")")
		lp_as+=("$(sed -n 's/^as=//p' <<<"$out")")
		lp_sort+=("$(sed -n 's/^sort=//p' <<<"$out")")
		lp_check+=("$(sed -n 's/^check=//p' <<<"$out")")
		# obj: vmlinux.o as it was before the table (x86: after objtool)
		if [ -e "$ob/vmlinux.o.lpalt-pre" ]; then
			cp "$ob/vmlinux.o.lpalt-pre" "$t/vo"
		else
			cp "$ob/vmlinux.o.lpalt-ld" "$t/vo"
		fi
		# shellcheck disable=SC2086  # flags: words
		timed ob_obj "$lp" obj $objflags "$t/vo"
		cp "$(vmlinux_of "$ob")" "$t/v"
		timed ob_sort "$ob/scripts/sorttable" "$t/v"
		if [ "$arch" = x86_64 ]; then
			cp "$tb/vmlinux.o.lpalt-ld" "$t/vo"
			# shellcheck disable=SC2086  # the saved command: words
			timed ot_full sh -c "cd '$tb' && $ota '$t/vo'"
			cp "$tb/vmlinux.o.lpalt-ld" "$t/vo"
			timed ot_nomc sh -c "cd '$tb' && $otn '$t/vo'"
			cp "$(vmlinux_of "$tb")" "$t/v"
			timed ot_nm sh -c "'$nm' -S '$t/v' >'$t/nm'"
			timed ot_sort "$tb/scripts/sorttable" -s "$t/nm" "$t/v"
		fi
		# sorttable with nm -S, with .symtab, and without mcount work,
		# each on a fresh copy of stock's last kallsyms link
		cp "$last" "$t/k"
		timed sy_nm sh -c "'$nm' -S '$t/k' >'$t/nm'"
		timed sy_s "$sb/scripts/sorttable" -s "$t/nm" "$t/k"
		[ "$r" != 1 ] || cp "$t/k" "$t/k.s"
		cp "$last" "$t/k"
		# shellcheck disable=SC2046  # the pad bytes: a word or none
		timed sy_y "$ob/scripts/sorttable" -y $([ -z "$pad" ] || echo -b "$(pad_before "$pad")") "$t/k"
		[ "$r" != 1 ] || cp "$t/k" "$t/k.y"
		cp "$last" "$t/k"
		timed sy_base "$lb/scripts/sorttable" "$t/k"
		# one vmlinux link of each way
		for k in $(kinds_of "$arch"); do
			# shellcheck disable=SC2046  # the command: words
			lk[$k]="${lk[$k]:-} $( { cd "$(bdir_of "$k")" && stamp t0 && eval "$(link_cmd "$k" "$t/link")" >/dev/null 2>&1 && stamp t1 && ms "$t0" "$t1"; } || echo fail)"
		done
	done
	fact stock_pl_nm "$(median "${st_nm[@]}")"
	fact stock_pl_sort "$(median "${st_sort[@]}")"
	fact lp_pl_scan "$(median "${lp_scan[@]}")"
	fact lp_pl_as "$(median "${lp_as[@]}")"
	fact lp_pl_sort "$(median "${lp_sort[@]}")"
	fact lp_pl_check "$(median "${lp_check[@]}")"
	fact obj_pl_obj "$(median "${ob_obj[@]}")"
	fact obj_pl_sort "$(median "${ob_sort[@]}")"
	if [ "$arch" = x86_64 ]; then
		fact objtool_pl_full "$(median "${ot_full[@]}")"
		fact objtool_pl_nomcount "$(median "${ot_nomc[@]}")"
		fact objtool_pl_nm "$(median "${ot_nm[@]}")"
		fact objtool_pl_sort "$(median "${ot_sort[@]}")"
		fact objtool_args "$ota"
	fi
	fact symtab_nm "$(median "${sy_nm[@]}")"
	fact symtab_sort_s "$(median "${sy_s[@]}")"
	fact symtab_sort_y "$(median "${sy_y[@]}")"
	fact symtab_sort_base "$(median "${sy_base[@]}")"
	fact symtab_image "${last#"$sb"/}"
	# what each zeroed in the same image, and whether the tables agree
	"$lp" dump "$t/k.s" >"$t/ds"
	"$lp" dump "$t/k.y" >"$t/dy"
	fact symtab_zero_s "$(grep -c '^0x0000000000000000 ' "$t/ds" || true)"
	fact symtab_zero_y "$(grep -c '^0x0000000000000000 ' "$t/dy" || true)"
	fact symtab_differ "$(diff "$t/ds" "$t/dy" | grep -c '^[<>]' || true)"
	for k in $(kinds_of "$arch"); do
		# shellcheck disable=SC2086  # the rounds: words
		if [[ "${lk[$k]}" == *fail* ]]; then
			fact "${k}_link_ms" fail
		else
			fact "${k}_link_ms" "$(median ${lk[$k]})"
		fi
	done
	rm -rf "$t"
}

# pad_before N,M: the bytes of pad before a function's entry (nops of 4
# bytes: arm64, and riscv without RVC).
pad_before() {
	local n=${1#--patchable-entries=} m
	m=${n#*,}
	n=${n%,*}
	[ "$m" != "$n" ] || m=0
	echo $(((n - m) * 4))
}

step_measure() {
	local k
	: >"$facts"
	fact version "$v"
	fact arch "$arch"
	fact toolchain "$tc"
	fact date "$(date -u +%Y-%m-%dT%H:%MZ)"
	fact commit "$(git -C "$repo" rev-parse --short HEAD)"
	fact pad "$(upad "$(bdir_of obj)")"
	fact cc "$(toolchain_facts "$(bdir_of obj)" | sed -n 's/^cc=//p')"
	fact ld "$(toolchain_facts "$(bdir_of obj)" | sed -n 's/^ld=//p')"
	for k in $(kinds_of "$arch"); do
		[ -e "$(bdir_of "$k")/vmlinux" ] || die "$(pair_id)-$k: no build (run the pairs and build steps first)"
		table_facts "$k"
		boot_facts "$k"
		build_facts "$k"
	done
	would_zero obj
	postlink_times
	say "$(pair_id): facts in $facts"
}

# --- focused experiments: --gc-sections and LTO ------------------------------

# A program of two files: a live function, a static one, a weak one that
# b.c overrides, two functions nothing calls, and _start.
gc_sources() {
	cat >"$1/a.c" <<'EOC'
__attribute__((weak)) int wf(int x) { return x + 1; }
static __attribute__((noinline)) int sf(int x) { return x * 3; }
__attribute__((noinline)) int used(int x) { return wf(x) * 2 + sf(x); }
int unused1(int x) { return x - 7; }
int unused2(int x) { return unused1(x) + 1; }
void _start(void) { used(1); for (;;); }
__attribute__((no_instrument_function, patchable_function_entry(0, 0))) void __fentry__(void) { }
EOC
	echo 'int wf(int x) { return x + 10; }' >"$1/b.c"
	# the kernel's MCOUNT_REC(): the tables, kept; KEEPLISTS: stock's
	# KEEP_PATCHABLE, or the lists dropped
	cat >"$1/gc.lds.in" <<'EOC'
ENTRY(_start)
SECTIONS {
  . = 0x400000;
  _text = .;
  .text : { *(.text .text.*) }
  . = ALIGN(8);
  .init.data : { __start_mcount_loc = .; KEEP(*(__mcount_loc)) KEEPLISTS __stop_mcount_loc = .; }
  .data : { *(.data .data.*) }
  /DISCARD/ : { *(.note.GNU-stack) DROPLISTS }
}
EOC
	sed 's/KEEPLISTS/KEEP(*(__patchable_function_entries))/; s/DROPLISTS//' \
		"$1/gc.lds.in" >"$1/keep.lds"
	sed 's/KEEPLISTS//; s/DROPLISTS/*(__patchable_function_entries)/' \
		"$1/gc.lds.in" >"$1/drop.lds"
}

# gc_case DIR NAME "CC FLAGS" LD PREFIX PAD: the four ways linked with
# --gc-sections; one line each: the functions the link kept, the
# table's entries, and linkpass check of the result.
gc_case() {
	local d=$1/$2 cc=$3 ld=$4 pfx=$5 pad=$6 way nm funcs n klpad= lppad=
	mkdir -p "$d"
	nm=${pfx}nm
	[ -z "$pad" ] || { klpad=--patchable=$pad; lppad=--patchable-entries=$pad; }
	gcfuncs() { "$nm" "$1" | awk 'tolower($2) == "t" && $3 !~ /^(_text|__start_|__stop_|__fentry__)/ { print $3 }' | sort | xargs; }
	entries() { local h; h=$("${pfx}readelf" -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' | awk '$1 == ".init.data" { print $5 }'); echo $((0x${h:-0} / 8)); }
	for way in none stock obj lp; do
		mkdir -p "$d/$way"
		# the compile: no ftrace flags (none); per-object tables (stock:
		# -mrecord-mcount on x86, the lists with pads); the sites only
		# (obj, lp)
		local flags="-O2 -ffunction-sections -fdata-sections -fno-pie"
		case $way in
		none) ;;
		stock) if [ -n "$pad" ]; then flags+=" -fpatchable-function-entry=$pad"; else flags+=" -pg -mfentry -mrecord-mcount"; fi ;;
		*) if [ -n "$pad" ]; then flags+=" -fpatchable-function-entry=$pad"; else flags+=" -pg -mfentry"; fi ;;
		esac
		# shellcheck disable=SC2086  # CC and flags: words
		(cd "$d/$way" && $cc $flags -c ../../a.c ../../b.c) || return 1
		case $way in
		none | stock)
			$ld --gc-sections -T "$1/keep.lds" -o "$d/$way/img" "$d/$way/a.o" "$d/$way/b.o" ;;
		obj)
			$ld -r -o "$d/$way/v.o" "$d/$way/a.o" "$d/$way/b.o"
			"$lp" obj --check $lppad "$d/$way/v.o" >"$d/$way/obj.log" 2>&1
			$ld --gc-sections -T "$1/drop.lds" -o "$d/$way/img" "$d/$way/v.o" ;;
		lp)
			# the series' loop: link, the in-tree tool's table, link again,
			# check (the lists read from the objects linked -r)
			$ld -r -o "$d/$way/lists.o" "$d/$way/a.o" "$d/$way/b.o"
			$ld --gc-sections -q -T "$1/drop.lds" -o "$d/$way/l1" "$d/$way/a.o" "$d/$way/b.o"
			"$1/klp" $klpad ${pad:+--lists=$d/$way/lists.o} "$d/$way/l1" >"$d/$way/t.S"
			$cc -c -Wa,--noexecstack -o "$d/$way/t.o" "$d/$way/t.S"
			$ld --gc-sections -q -T "$1/drop.lds" -o "$d/$way/img" "$d/$way/a.o" "$d/$way/b.o" "$d/$way/t.o"
			"$1/klp" $klpad --check "$d/$way/img" >"$d/$way/obj.log" 2>&1 ;;
		esac
		funcs=$(gcfuncs "$d/$way/img")
		n=$(entries "$d/$way/img")
		printf '%s %s: functions kept: %s; table entries: %s%s\n' "$2" "$way" "$funcs" "${n:-0}" \
			"$([ "$way" = none ] || printf '; dead (in no live function): %s' \
				"$(dead_entries "$d/$way/img" "$pfx" "$pad")")"
	done
}

# dead_entries IMAGE PREFIX PAD: entries of the table that are not a
# live function's site (linkpass check --byte-audit's stale count; the
# images keep no relocations of their tables' words)
dead_entries() {
	local out
	out=$({ "$lp" check --byte-audit ${3:+--patchable-entries=$3} --allow-unsorted \
		--allow-zeroed --start-sym=__start_mcount_loc --stop-sym=__stop_mcount_loc \
		--max-list=0 "$1" 2>&1 || true; } | tail -n 1)
	case $out in
	*" ok: "*) echo 0 ;;
	*) sed -n 's/.* \([0-9]*\) stale.*/\1/p' <<<"$out" | grep . || echo "? ($out)" ;;
	esac
}

# The --gc-sections experiment, with GNU ld 2.40: gcc 12 on x86_64
# (mcount calls; stock's per-object table is -mrecord-mcount's), gcc 12
# and clang 14 on aarch64 (-fpatchable-function-entry=4,2; stock's
# per-object table is the compiler's lists).
gc_focused() {
	local d=$res/gc-focused
	rm -rf "$d"
	mkdir -p "$d"
	gc_sources "$d"
	gcc -O2 -o "$d/klp" "$here"/linkpass/*.c
	{
		echo "# kernel/alternatives.sh gc: --gc-sections with a table per object (stock), a"
		echo "# vmlinux.o-stage one (obj: ld -r, linkpass obj, one __mcount_loc kept as the"
		echo "# kernel keeps it), and the series' (lp); none: compiled without ftrace."
		echo "# a.c: used, static sf, weak wf (b.c overrides it), unused1, unused2, _start"
		gc_case "$d" x86_64-gcc12 gcc ld "" ""
		gc_case "$d" aarch64-gcc12 aarch64-linux-gnu-gcc "aarch64-linux-gnu-ld --no-warn-rwx-segments" aarch64-linux-gnu- 4,2
		gc_case "$d" aarch64-clang14 "clang --target=aarch64-linux-gnu" "aarch64-linux-gnu-ld --no-warn-rwx-segments" aarch64-linux-gnu- 4,2
		echo "# how each compiler places its lists (-ffunction-sections): the section"
		echo "# directive of each function's entry (link order to one symbol: one list"
		echo "# section per object, which keeps every listed function if one is kept)"
		for c in aarch64-linux-gnu-gcc "clang --target=aarch64-linux-gnu"; do
			# shellcheck disable=SC2086
			printf '%s: %s\n' "${c%% *}" "$($c -O2 -ffunction-sections -fpatchable-function-entry=4,2 \
				-S -o - "$d/a.c" | grep '__patchable_function_entries' | sort -u | xargs)"
		done
	} >"$d.txt" 2>&1
	cat "$d.txt"
}

# The LTO experiment: clang 14 -flto=thin with ld.lld 14 on x86_64.  The
# objects are LLVM bitcode, so no per-object pass can read them; "ld.lld
# -r" does the LTO code generation, as the kernel's vmlinux.o link does
# with CONFIG_LTO_CLANG (scripts/Makefile.vmlinux_o), and linkpass obj
# reads its output; the final link keeps the table exact.
lto_focused() {
	local d=$res/lto-focused
	rm -rf "$d"
	mkdir -p "$d"
	gc_sources "$d"
	{
		echo "# kernel/alternatives.sh lto: clang 14 -flto=thin -pg -mfentry, ld.lld 14"
		(cd "$d" && clang -O2 -flto=thin -fno-pie -pg -mfentry -ffunction-sections -c a.c b.c)
		echo "a.o: $(file -b "$d/a.o")"
		echo "linkpass obj --check a.o: $("$lp" obj --check "$d/a.o" 2>&1; echo "exit $?")"
		ld.lld -r -o "$d/v.o" "$d/a.o" "$d/b.o"
		echo "ld.lld -r -o v.o a.o b.o: $(file -b "$d/v.o")"
		echo "linkpass obj --check v.o: $("$lp" obj --check --stats "$d/v.o" 2>&1 | xargs; echo "exit $?")"
		ld.lld -q -e _start -o "$d/img" "$d/v.o"
		echo "ld.lld -q -e _start -o img v.o; linkpass check img: $("$lp" check "$d/img" 2>&1; echo "exit $?")"
		echo "functions of v.o: $(nm "$d/v.o" | awk 'tolower($2) == "t" { print $3 }' | sort | xargs)"
	} >"$d.txt" 2>&1
	cat "$d.txt"
}

step_report() {
	"$here/altreport.py" "$res" -o "$res/alternatives.md"
}

step_gc() {
	gc_focused
}
step_lto() {
	lto_focused
}

# --- main -------------------------------------------------------------------

steps=${*:-tree pairs build measure gc lto report}
mkdir -p "$res" "$cache/bin"
install_packages "$v" "$archs riscv64" gcc
setup_ccache gcc
# A private copy of the user-space linkpass: obj runs it in the builds,
# measure in the checks.
make -s -C "$repo" linkpass/linkpass
cp "$repo/linkpass/linkpass" "$lp.new" && mv "$lp.new" "$lp"
for step in $steps; do
	case $step in
	tree) step_tree ;;
	pairs | build | measure)
		for arch in $archs; do
			facts=$res/$arch.facts
			"step_$step"
		done
		;;
	gc) step_gc ;;
	lto) step_lto ;;
	report) step_report ;;
	*) die "unknown step $step (tree pairs build measure gc lto report)" ;;
	esac
done
