# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154,SC2046
# (SC2034/SC2154: the three test-kernel files share their globals;
# SC2046: margs_of and goals_of return word lists on purpose.)
#
# kernel/lib.sh: the steps of `make test-kernel`, sourced by
# kernel/test-kernel.sh: packages, source trees, configure, build,
# module staging, timing helpers.  Each function does one step; the
# assertions live in kernel/checks.sh.
#
# Globals the caller sets: here (this directory), repo, cache, jobs.

say() { printf 'test-kernel: %s\n' "$*"; }
die() { printf 'test-kernel: error: %s\n' "$*" >&2; exit 2; }

# stamp VAR: the wall clock in seconds into VAR, without starting a
# process: a $(date) at each end of a timed step added its own start-up,
# 1-4 ms on this VM, to post-link steps of a few milliseconds.
stamp() { printf -v "$1" '%s' "${EPOCHREALTIME/,/.}"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) * 1000 }'; }
sum() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a + b }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
# median of the numbers given as arguments
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# vmlinux links (kallsyms links and the final one) in a build log.
nlinks() { grep -cE '^  LD +(\.tmp_vmlinux[^ ]*|vmlinux)$' "$1" || true; }
# linkpass scans of vmlinux in a build log.
nscans() { grep -cE '^  MCOUNT ' "$1" || true; }

# Kernel version facts: the tarball, and the config profile it is
# tested with (kernel/config.sh).
# Bookworm's own versions (6.1, 6.12) come from /usr/src; newer ones are
# fetched into the cache by kernel/fetch-source.sh.
tarball_of() {
	if [ -e "/usr/src/linux-source-$1.tar.xz" ] || in_bookworm "$1"; then
		echo "/usr/src/linux-source-$1.tar.xz"
	else
		echo "$cache/tarballs/linux-source-$1.tar.xz"
	fi
}
in_bookworm() { case $1 in 6.1 | 6.12) return 0 ;; esac; return 1; }
# The config profile of this run (LINKPASS_KERNEL_PROFILE: distro, or
# debug or big for make test-kernel-debug and test-kernel-big); all
# build modules.
profile_of() { echo "${profile:-distro}"; }

# Architecture facts.  A pair names the architecture as the summary
# line does (x86_64, arm64, riscv64); Kbuild's ARCH is karch_of.
karch_of() {
	case $1 in
	x86_64) echo x86 ;;
	riscv64) echo riscv ;;
	*) echo "$1" ;;
	esac
}
# The GNU cross prefix of an architecture ("" for the machine's own).
cross_of() {
	case $1 in
	arm64) echo aarch64-linux-gnu- ;;
	riscv64) echo riscv64-linux-gnu- ;;
	esac
}
# The image QEMU boots, in a build directory.
image_of() {
	case $1 in
	x86_64) echo arch/x86/boot/bzImage ;;
	*) echo "arch/$(karch_of "$1")/boot/Image" ;;
	esac
}
# Toolchain facts, one line per toolchain a pair can name:
#   where   host: the machine's own (bookworm: gcc 12 with GNU ld 2.40,
#           clang 14); root: inside kernel/buildroot.sh's trixie root
#           (gcc 14.2 with GNU ld 2.44; clang, ld.lld and llvm 19)
#   llvm    yes: LLVM=1 (clang, ld.lld, the llvm binutils); no: gcc and
#           GNU binutils (CROSS_COMPILE= on arm64 and riscv64)
#   arches  the architectures it builds in this test
#   config  Kconfig symbols its builds enable (kernel/config.sh checks
#           that they stuck)
toolchain_table='
gcc          host  no   x86_64,arm64,riscv64  -
clang        host  yes  x86_64,arm64          -
gcc14        root  no   x86_64,arm64,riscv64  -
clang19      root  yes  x86_64,arm64          -
clang19-lto  root  yes  x86_64,arm64          LTO_CLANG_THIN
'
# tc_fact TOOLCHAIN FIELD: one field of the table ("" for "-"); fails
# for a toolchain it does not have.
tc_fact() {
	local name where llvm arches config
	while read -r name where llvm arches config; do
		[ "$name" = "$1" ] || continue
		local -A f=([where]=$where [llvm]=$llvm [arches]=${arches//,/ } [config]=${config#-})
		echo "${f[$2]}"
		return 0
	done <<<"$toolchain_table"
	return 1
}
is_toolchain() { tc_fact "$1" where >/dev/null; }
# Does toolchain TC build in the root, use LLVM=1, build ARCH?
tc_in_root() { [ "$(tc_fact "$1" where)" = root ]; }
tc_is_llvm() { [ "$(tc_fact "$1" llvm)" = yes ]; }
tc_builds() { case " $(tc_fact "$1" arches) " in *" $2 "*) return 0 ;; esac; return 1; }

# triples_of VAR ENTRIES [full]: the (version, architecture, toolchain)
# triples of ENTRIES, one VERSION:ARCH:TOOLCHAIN a line, in order.  An
# entry is VERSION[:ARCH][:TOOLCHAIN] (KERNELS; ARCH x86_64 when none;
# without a toolchain, every one of $toolchains that builds ARCH), or
# with "full" VERSION:ARCH:TOOLCHAIN (KERNELS_SORTTABLE_FIX).  Dies,
# naming VAR and the entry, on an unknown architecture or toolchain, or
# a toolchain that does not build the architecture.
is_arch() { case $1 in x86_64 | arm64 | riscv64) return 0 ;; esac; return 1; }
triples_of() {
	local var=$1 entries=$2 full=${3:-} k kv ka kt t tcs
	for k in $entries; do
		IFS=: read -r kv ka kt <<<"$k"
		if [ -n "$full" ] && { ! is_arch "$ka" || [ -z "$kt" ]; }; then
			die "$var: $k: expected VERSION:ARCH:TOOLCHAIN"
		fi
		if [ -n "$ka" ] && ! is_arch "$ka"; then
			kt=$ka
			ka=
		fi
		ka=${ka:-x86_64}
		is_arch "$ka" || die "$var: $k: unknown architecture"
		if [ -n "$kt" ]; then
			tcs=$kt
		else
			tcs=
			for t in $toolchains; do
				! tc_builds "$t" "$ka" || tcs="$tcs $t"
			done
			[ -n "$tcs" ] || die "$var: $k: none of LINKPASS_KERNEL_TOOLCHAINS ($toolchains) builds $ka"
		fi
		for t in $tcs; do
			is_toolchain "$t" ||
				die "$var: $k: unknown toolchain $t (known: $(awk 'NF { printf "%s%s", s, $1; s = " " }' <<<"$toolchain_table"))"
			tc_builds "$t" "$ka" ||
				die "$var: $k: $t builds $(tc_fact "$t" arches) in this test, not $ka"
			echo "$kv:$ka:$t"
		done
	done
}

# toolchain_facts DIR: the compiler and linker build dir DIR's .config
# recorded (Kconfig ran them), as the facts report.py's headings show:
# cc= (CONFIG_CC_VERSION_TEXT), ld= ("GNU ld 2.44", "ld.lld 19.1.7"),
# lto= ("ThinLTO", "full LTO", or empty).
toolchain_facts() {
	awk '
		function ver(n) { return int(n / 10000) "." int(n / 100) % 100 (n % 100 ? "." n % 100 : "") }
		{ k = substr($0, 1, index($0, "=") - 1); v = substr($0, index($0, "=") + 1) }
		k == "CONFIG_CC_VERSION_TEXT" { gsub(/"/, "", v); cc = v }
		k == "CONFIG_LD_IS_BFD" { ld = "GNU ld" }
		k == "CONFIG_LD_IS_LLD" { ld = "ld.lld" }
		k == "CONFIG_LD_VERSION" { bfd = v }
		k == "CONFIG_LLD_VERSION" { lld = v }
		k == "CONFIG_LTO_CLANG_THIN" { lto = "ThinLTO" }
		k == "CONFIG_LTO_CLANG_FULL" { lto = "full LTO" }
		END {
			print "cc=" cc
			print "ld=" ld (ld == "GNU ld" && bfd ? " " ver(bfd) : "") (ld == "ld.lld" && lld ? " " ver(lld) : "")
			print "lto=" lto
		}' "$1/.config"
}

# -fpatchable-function-entry=N[,M] a build compiled its ftrace sites
# with, as linkpass's --patchable-entries=N[,M] (empty for mcount calls):
# read from the saved command line of one object, so it is what the
# build did.  Only where those are ftrace's sites
# (FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY): x86's call padding uses
# the same flag for something else.  riscv's CALL_OPS gives 8,4 with
# RVC and 4,2 without (arch/riscv/Makefile); the 7.3 riscv64 config has
# RISCV_ISA_C only with gcc 14 (gcc14: 8,4; gcc 12: 4,2; config.sh).
pad_opt_of() {
	local f
	grep -q '^CONFIG_FTRACE_MCOUNT_USE_PATCHABLE_FUNCTION_ENTRY=y' "$1/.config" || return 0
	f=$(grep -o -- '-fpatchable-function-entry=[0-9,]*' "$1/init/.main.o.cmd" 2>/dev/null | sed -n 1p)
	[ -z "$f" ] || echo "--patchable-entries=${f#*=}"
}
# Does build directory B write the ftrace NOPs at link time (6.x:
# FTRACE_MCOUNT_LINKPASS_NOP; 7.x: an architecture that selects
# HAVE_FTRACE_MCOUNT_LINKPASS_NOP, with the series on)?
has_link_nops() {
	grep -q '^CONFIG_FTRACE_MCOUNT_LINKPASS_NOP=y' "$1/.config" ||
		{ grep -q '^CONFIG_HAVE_FTRACE_MCOUNT_LINKPASS_NOP=y' "$1/.config" &&
		  grep -q '^CONFIG_FTRACE_MCOUNT_USE_LINKPASS=y' "$1/.config"; }
}
# Does build directory B write at link time the state ftrace_init_nop()
# leaves each site in (7.x arm64 and riscv: HAVE_FTRACE_MCOUNT_LINKPASS_INIT,
# with the series on)?
has_link_init() {
	grep -q '^CONFIG_HAVE_FTRACE_MCOUNT_LINKPASS_INIT=y' "$1/.config" &&
		grep -q '^CONFIG_FTRACE_MCOUNT_USE_LINKPASS=y' "$1/.config"
}
# zeroed_in CHECK: the number in "zeroed N entries" of a linkpass check
# output, else 0.
zeroed_in() { sed -n 's/^zeroed \([0-9]*\) entries.*/\1/p' "$1" | sed -n 1p | grep . || echo 0; }
# val LOG NAME: the value of fact NAME of a boot log (kernel/bootfacts.sh
# wrote LOG.facts).
val() { sed -n "s/^$2=//p" "$1.facts" | sed -n 1p; }
# kpad B: build directory B's pad geometry as the in-tree tool takes it.
kpad() { local p; p=$(pad_opt_of "$1"); echo "${p/--patchable-entries=/--patchable=}"; }
# ktool ARGS: the in-tree tool our build made (scripts/linkpass/linkpass),
# in the pair's toolchain's environment (a root toolchain's runs there).
ktool() { on_tc "$(bdir_of lp)/scripts/linkpass/linkpass" "$@"; }
# Does stock V zero dead mcount entries after the link (nm -S +
# sorttable -s, Linux 6.15, backported to 6.12.y and 6.6.y)?
has_zeroing() { grep -q 'sorttable -s' "$cache/src/linux-source-$1/scripts/link-vmlinux.sh"; }

# The make arguments of an architecture, toolchain and version.  7.x
# builds keep Kbuild's default flow: vmlinux.unstripped holds the static
# relocations (ARCH_VMLINUX_NEEDS_RELOCS, or the series' --emit-relocs)
# and vmlinux is stripped of them, stock and ours alike; the checks read
# vmlinux.unstripped (vmlinux_of).  6.1 and 6.12, the backports, have no
# unstripped copy: x86 (RSTRIP) and riscv (STRIPREL) strip vmlinux in
# place after the link, so there both kinds of build keep the
# relocations in vmlinux instead, for linkpass check to read; the boot
# image is made from a stripped copy (x86) or holds no static
# relocations anyway, so what boots is unchanged.
margs_of() {
	local arch=$1 tc=$2 ver=$3
	[ "$arch" = x86_64 ] || echo "ARCH=$(karch_of "$arch")"
	if tc_is_llvm "$tc"; then
		echo LLVM=1
	elif [ -n "$(cross_of "$arch")" ]; then
		echo "CROSS_COMPILE=$(cross_of "$arch")"
	fi
	# A root build's host programs load the root's dynamic loader and
	# libraries by their path in the cache, which the root sees too:
	# they then run inside the root and here alike (the checks run the
	# build's scripts/sorttable and in-tree linkpass here; linked
	# against the root's glibc 2.41 they would not load with this
	# machine's 2.36).
	if tc_in_root "$tc"; then
		local r
		r=$("$here/buildroot.sh" path)
		echo "HOSTLDFLAGS=-Wl,--dynamic-linker=$r/lib64/ld-linux-x86-64.so.2,--disable-new-dtags,-rpath,$r/usr/lib/x86_64-linux-gnu:$r/lib/x86_64-linux-gnu"
	fi
	case $ver in
	6.*)
		echo 'cmd_strip_relocs=:'
		echo 'cmd_relocs_strip=:'
		;;
	esac
}
# The linked image a build's checks read: vmlinux.unstripped where the
# build makes one (7.x), which keeps what vmlinux is stripped of.
vmlinux_of() {
	if [ -e "$1/vmlinux.unstripped" ]; then
		echo "$1/vmlinux.unstripped"
	else
		echo "$1/vmlinux"
	fi
}
# tool_of ARCH TC TOOL: the binutils tool TOOL (nm, objcopy, readelf)
# the builds of ARCH with toolchain TC use.  A root toolchain's are the
# root's own programs (wrappers that setup_root writes in $cache/bin/root:
# no chroot, so that they start as fast as the machine's; the test
# times nm).
tool_of() {
	local t
	if tc_is_llvm "$2"; then
		t=llvm-$3
	else
		t=$(cross_of "$1")$3
	fi
	if tc_in_root "$2"; then
		echo "$cache/bin/root/$t"
	else
		echo "$t"
	fi
}
# (and the linkers, which the saved .ko commands replayed by ko_step_cost
# name: run_pair puts $cache/bin/root first on its PATH)
root_tools="nm objcopy readelf ld aarch64-linux-gnu-nm aarch64-linux-gnu-objcopy
aarch64-linux-gnu-readelf aarch64-linux-gnu-ld riscv64-linux-gnu-nm
riscv64-linux-gnu-objcopy riscv64-linux-gnu-readelf riscv64-linux-gnu-ld
llvm-nm llvm-objcopy llvm-readelf ld.lld"

# Install the Debian packages missing for VERSIONS, ARCHS (as pairs
# name them) and TOOLCHAINS.
install_packages() {
	local versions=$1 archs=$2 toolchains=$3 v a t
	local -a need=()
	want() { command -v "$1" >/dev/null 2>&1 || need+=("$2"); }
	want cpio cpio
	want bc bc
	want flex flex
	want bison bison
	want timeout coreutils
	want xz xz-utils
	want make make
	want gcc gcc
	want openssl openssl
	[ "$ccache" != 1 ] || want ccache ccache
	# BTF (the debug and big profiles' DEBUG_INFO_BTF)
	[ "$(profile_of)" = distro ] || want pahole dwarves
	for v in $versions; do
		if in_bookworm "$v"; then
			[ -e "$(tarball_of "$v")" ] || need+=("linux-source-$v")
		else
			"$here/fetch-source.sh" "$v" "$(tarball_of "$v")" ||
				die "linux-source-$v: cannot fetch it"
		fi
	done
	[ -e /usr/include/libelf.h ] || need+=(libelf-dev)
	[ -e /usr/include/openssl/ssl.h ] || need+=(libssl-dev)
	# the static /init (kernel/init/lpinit.c) of each architecture
	[ -e /usr/lib/x86_64-linux-gnu/libc.a ] || need+=(libc6-dev)
	for a in $archs; do
		case $a in
		x86_64)
			want qemu-system-x86_64 qemu-system-x86
			;;
		arm64)
			want qemu-system-aarch64 qemu-system-arm
			want aarch64-linux-gnu-gcc gcc-aarch64-linux-gnu
			[ -e /usr/aarch64-linux-gnu/lib/libc.a ] || need+=(libc6-dev-arm64-cross)
			;;
		riscv64)
			want qemu-system-riscv64 qemu-system-misc
			want riscv64-linux-gnu-gcc gcc-riscv64-linux-gnu
			[ -e /usr/riscv64-linux-gnu/lib/libc.a ] || need+=(libc6-dev-riscv64-cross)
			[ -e /usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin ] || need+=(opensbi)
			;;
		esac
	done
	# (the root's toolchains are in the root, which debootstrap makes:
	# kernel/buildroot.sh)
	for t in $toolchains; do
		if tc_in_root "$t"; then
			want debootstrap debootstrap
			break
		fi
	done
	case " $toolchains " in
	*" clang "*)
		want clang clang
		want ld.lld lld
		want llvm-ar llvm
		want llvm-objcopy llvm
		;;
	esac
	[ ${#need[@]} -gt 0 ] || return 0
	say "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q "${need[@]}" >/dev/null 2>&1 ||
		{ apt-get update -q >/dev/null && apt-get install -y -q "${need[@]}" >/dev/null; } ||
		die "apt-get install ${need[*]} failed"
}

# patched_tree V: src/linux-linkpass-V, a git clone of Debian's
# linux-source-V (git/linux-V, made once) with the series of Linux V
# applied by git am: generated by kernel/series.sh from linkpass/ and
# kernel/series/ into $cache/series/V, and remade when the generated
# series changes.  Either way the tool in the patched tree must be this
# repository's kernel set of linkpass (series.sh verify).
patched_tree() {
	local v=$1 lp git sum out
	lp=$(src_of lp)
	git=$cache/git/linux-$v
	out=$cache/series/$v
	if [ ! -e "$git/.lpk-pristine" ]; then
		say "making the pristine git tree $git"
		LINKPASS_TARBALL=$(tarball_of "$v") "$here/series.sh" pristine "$v" "$git"
		touch "$git/.lpk-pristine"
	fi
	"$here/series.sh" generate "$v" "$out" >/dev/null
	sum=$(cat "$out"/*.patch | sha1sum | cut -d' ' -f1)
	if [ "$(cat "$lp/.lpk-series" 2>/dev/null)" != "$sum" ]; then
		say "applying the series of Linux $v ($out) to a clone of $git"
		rm -rf "$lp"
		mkdir -p "$cache/src"
		git clone -q --shared "$git" "$lp"
		# shellcheck disable=SC2046  # one argument per patch
		(cd "$lp" && git -c user.name=linkpass-test -c user.email=linkpass-test@localhost am -q $(find "$out" -name '0*.patch' ! -name '0000-*' | LC_ALL=C sort)) ||
			die "$lp: git am of $out failed"
		"$here/series.sh" verify "$v" "$lp"
		echo "$sum" >"$lp/.lpk-series"
	else
		"$here/series.sh" verify "$v" "$lp"
	fi
}

# unpack_tarball V DIR: Debian's tree of V as shipped, unpacked into
# DIR (src_of stock) once.
unpack_tarball() {
	if [ ! -e "$2/.lpk-unpacked" ]; then
		say "unpacking $(tarball_of "$1") into $cache/src"
		rm -rf "$2"
		mkdir -p "$cache/src"
		tar -C "$cache/src" -xf "$(tarball_of "$1")"
		touch "$2/.lpk-unpacked"
	fi
}

# unpack_trees V: src/linux-source-V, Debian's tree as shipped (the stock
# builds), and patched_tree V (ours); both get kernel/instrument.  (src_of
# reads v, here the local one.)  Both trees get the upstream fixes of
# kernel/fixes/V but the sorttable fix (upstream_fixes; a 6.x series
# carries its own): the comparison is of how the tables are made, and 7.3's x86 ftrace bug (kernel/repro/) would otherwise hang or
# crash stock's boot script, or not, as its layout falls.
unpack_trees() {
	local v=$1 stock lp
	stock=$(src_of stock)
	lp=$(src_of lp)
	unpack_tarball "$v" "$stock"
	patched_tree "$v"
	# shellcheck disable=SC2046  # one argument per patch
	instrument "$stock" $(upstream_fixes "$v")
	# (a 6.x series carries its fixes itself)
	# shellcheck disable=SC2046  # one argument per patch
	instrument "$lp" $([ ! -d "$here/fixes/$v" ] || upstream_fixes "$v")
}

# unpack_stock V: the stock tree of unpack_trees alone, for a run of
# stock builds only (LINKPASS_KERNEL_KINDS=stock): no series generated or
# applied, no tree of ours.  instrument() puts back the package's files
# from the pristine git tree, made here as patched_tree makes it.
unpack_stock() {
	local v=$1 stock git
	stock=$(src_of stock)
	git=$cache/git/linux-$v
	unpack_tarball "$v" "$stock"
	if [ ! -e "$git/.lpk-pristine" ]; then
		say "making the pristine git tree $git"
		LINKPASS_TARBALL=$(tarball_of "$v") "$here/series.sh" pristine "$v" "$git"
		touch "$git/.lpk-pristine"
	fi
	# shellcheck disable=SC2046  # one argument per patch
	instrument "$stock" $(upstream_fixes "$v")
}

# The upstream fixes both trees of V get: kernel/fixes/V's (a 6.x
# series' own patches with a Fixes: tag), but the sorttable fix, whose
# bug the sorttable reproducer must see in stock.
upstream_fixes() {
	local p
	if [ -d "$here/fixes/$1" ]; then
		for p in "$here/fixes/$1"/[0-9]*.patch; do
			[ "$p" = "$(sorttable_fix_patch "$1")" ] || echo "$p"
		done
		return
	fi
	for p in "$here/series/$1"/[0-9]*.patch; do
		[ ! -e "$p" ] || ! grep -q '^Fixes: ' "$p" || echo "$p"
	done
}

# The sorttable fix of V ("Leave symbols without a size out of the
# function list"): kernel/fixes/V's, else kernel/sorttable-fix/V's.
sorttable_fix_patch() {
	local p
	for p in "$here/fixes/$1"/*-sorttable-Leave-symbols-without-a-size-* \
		 "$here/sorttable-fix/$1"/*.patch; do
		[ ! -e "$p" ] || { echo "$p"; return; }
	done
}

# instrument TREE [PATCH...]: kernel/instrument/*.patch, the test's own
# prints, applied to the stock and the patched tree alike, once, and the
# PATCHes after them.  The patches
# applied are kept in the tree; when they differ from the repository's,
# the files they touch are first put back as the package has them (from
# the tree's own git, or the pristine one of $cache/git).
# The instrumentation of version V (6.1 and 6.12 share one; 7.x has its
# own: ftrace_update_code() changed).
instrument_dir() {
	case $1 in
	6.*) echo "$here/instrument/6.x" ;;
	*) echo "$here/instrument/7.x" ;;
	esac
}

instrument() {
	local tree=$1 applied=$1/.lpk-instrument.patch f idir
	shift
	idir=$(instrument_dir "$v")
	# the instrumentation, then the extra patches given (stock: fixes)
	set -- "$idir"/*.patch "$@"
	if cmp -s "$applied" <(cat "$@"); then
		return 0
	fi
	for f in $(cat "$@" "$applied" 2>/dev/null |
		   sed -n 's|^+++ b/||p' | sort -u); do
		if [ -d "$tree/.git" ]; then
			git -C "$tree" checkout -q -- "$f"
		else
			git -C "$cache/git/linux-$v" show "HEAD:$f" >"$tree/$f"
		fi || die "$tree/$f: cannot put back the package's file"
		rm -f "$tree/$f.orig" "$tree/$f.rej"
	done
	rm -f "$applied" "$tree/.lpk-instrument"
	cat "$@" | patch -d "$tree" -p1 -s -N --no-backup-if-mismatch ||
		die "$tree: ${idir#"$repo"/} (or a fix of kernel/series) does not apply"
	cat "$@" >"$applied"
}

# The steps below work on the current pair: globals v (version), arch
# and tc (toolchain), set by kernel/test-kernel.sh; KIND is stock or lp.
# (a big pair's builds and results are apart from the distro pair's)
pair_id() {
	if [ "$(profile_of)" = distro ]; then
		echo "$v-$arch-$tc"
	else
		echo "$v-$arch-$tc-$(profile_of)"
	fi
}
src_of() {
	if [ "$1" = lp ]; then
		echo "$cache/src/linux-linkpass-$v"
	else
		echo "$cache/src/linux-source-$v"
	fi
}
bdir_of() { echo "$cache/build/$(pair_id)-$1"; }
margs() { margs_of "$arch" "$tc" "$v"; }

# configure KIND: with the pair's toolchain (Kconfig probes the
# compiler), inside the root for a root toolchain, and its symbols; the
# symbols in kconfig_off (set by the caller, run_sorttable_fix) off
configure() {
	local kind=$1 extra root=0
	extra=$(tc_fact "$tc" config)
	[ "$kind" = lp ] && extra="$extra FTRACE_MCOUNT_USE_LINKPASS"
	! tc_in_root "$tc" || root=1
	LINKPASS_KCONFIG_PROFILE=$(profile_of "$v") LINKPASS_KCONFIG_EXTRA=$extra \
		LINKPASS_KCONFIG_ROOT=$root LINKPASS_KCONFIG_OFF=${kconfig_off:-} \
		"$here/config.sh" "$(src_of "$kind")" "$(bdir_of "$kind")" $(margs)
}

# The make goals: the boot image, and the modules if any.
goals() {
	basename "$(image_of "$arch")"
	echo modules
}

# build KIND LOGNAME: make the goals, log to $res, print seconds.
# /dev/null must be the device.  When something has replaced it with a
# regular file (a tool renaming its output over "-o /dev/null", as root),
# every "> /dev/null" writes into that file and Kbuild's compiler probes,
# which compile /dev/null, fail at random: each build then picks other
# flags and rebuilds the whole kernel (seen: incremental rounds of 6-10
# minutes instead of 15 s).  Put the device back, and say so.
check_devnull() {
	[ -c /dev/null ] && return
	# stderr: build() prints its seconds on stdout
	say "warning: /dev/null was not a character device (a file renamed over it?); recreating it" >&2
	rm -f /dev/null && mknod -m 666 /dev/null c 1 3 ||
		die "/dev/null is not a device and cannot be recreated"
}

build() {
	local kind=$1 log=$res/$(pair_id)-$1.$2.log t0 t1
	check_devnull
	[ "$ccache" != 1 ] || kccache -z >/dev/null
	stamp t0
	if ! kmake -C "$(src_of "$kind")" O="$(bdir_of "$kind")" \
		-j"$jobs" $(margs) $(goals) >"$log" 2>&1; then
		tail -n 30 "$log" >&2
		die "$(pair_id)-$kind: build failed; see $log"
	fi
	stamp t1
	[ "$ccache" != 1 ] || ccache_line >>"$log"
	secs "$t0" "$t1"
}

# Compiles through ccache (LINKPASS_KERNEL_CCACHE=1, the default): the
# pairs of `make test` rebuild the same trees run after run, and only
# the compiles of files that changed since the last run are done again.
# The links, objtool, the post-link steps and everything the test
# measures after a build still run every time.  The cache lives in the
# kernel cache (ccache/; the root's ccache, a newer one, ccache-root/);
# ccache-bin/ (ccache-root-bin/) holds the compiler names as links to
# ccache, first on make's PATH (ccache's "masquerade" way: it then runs
# the next compiler of that name on PATH).  The host programs go
# through it too.  A build log ends with a "ccache:" line of its hits.
# ccache_dir, ccache_bin: those of the current pair's toolchain (tc).
ccache_dir() { if tc_in_root "$tc"; then echo "$cache/ccache-root"; else echo "$cache/ccache"; fi; }
ccache_bin() { if tc_in_root "$tc"; then echo "$cache/ccache-root-bin"; else echo "$cache/ccache-bin"; fi; }
kccache() { on_tc CCACHE_DIR="$(ccache_dir)" ccache "$@"; }
# setup_ccache [TC...]: the masquerade directory and the cache's size of
# each toolchain's side (host, root) the run builds with (default: the
# host's)
setup_ccache() {
	local c path tc
	[ "$ccache" = 1 ] || return 0
	[ $# -gt 0 ] || set -- gcc
	for tc in "$@"; do
		path=$(on_tc sh -c 'command -v ccache') ||
			die "ccache is not installed$(tc_in_root "$tc" && echo " in the build root") (LINKPASS_KERNEL_CCACHE=0 builds without it)"
		mkdir -p "$(ccache_bin)"
		for c in gcc clang aarch64-linux-gnu-gcc riscv64-linux-gnu-gcc; do
			ln -sfn "$path" "$(ccache_bin)/$c"
		done
		kccache -M 20G >/dev/null
	done
}
# on_tc [NAME=VALUE...] COMMAND [ARG...]: COMMAND with the current
# pair's toolchain: inside the build root for a root toolchain (from the
# current directory, which must be under the cache: builds and results
# are), else here; the NAME=VALUE set for it.
on_tc() {
	if tc_in_root "$tc"; then
		"$here/buildroot.sh" run "$@"
	else
		env "$@"
	fi
}
# The PATH the current pair's toolchain runs with (setup_root reads the
# root's).
tc_path() { if tc_in_root "$tc"; then echo "$root_path"; else echo "$PATH"; fi; }
# kmake ARGS: make ARGS with the current pair's toolchain, through ccache
# when it is on.
kmake() {
	if [ "$ccache" = 1 ]; then
		on_tc CCACHE_DIR="$(ccache_dir)" PATH="$(ccache_bin):$(tc_path)" make "$@"
	else
		on_tc make "$@"
	fi
}
# setup_root: for the toolchains of the build root, the root (made once,
# checked each run: kernel/buildroot.sh ensure), its PATH, and its
# binutils as programs the checks run here (tool_of).
setup_root() {
	"$here/buildroot.sh" ensure || die "no build root for the toolchains that need it"
	root_path=$("$here/buildroot.sh" run printenv PATH)
	# shellcheck disable=SC2086  # one argument per tool
	"$here/buildroot.sh" tools "$cache/bin/root" $root_tools ||
		die "the build root's binutils cannot be run from here"
}
# ccache_line: "ccache: H of N compiles from the cache" since the last -z.
ccache_line() {
	kccache --print-stats | awk -F'\t' '
		$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 }
		$1 == "cache_miss" { m += $2 }
		END { printf "ccache: %d of %d compiles from the cache\n", h, h + m }'
}
# ccache_hits LOG: "H/N" from a build log's ccache line ("" without one).
ccache_hits() { sed -n 's|^ccache: \([0-9]*\) of \([0-9]*\) .*|\1/\2|p' "$1" 2>/dev/null | tail -n 1; }

# fresh_build KIND: configure and build KIND from an empty build dir
# (LINKPASS_KERNEL_REUSE=1 keeps one that holds a vmlinux), log to
# $res/PAIR-KIND.full.log, print seconds.
fresh_build() {
	local b
	b=$(bdir_of "$1")
	if [ "$reuse" != 1 ] || [ ! -e "$b/vmlinux" ]; then
		rm -rf "$b"
	fi
	# (in the $(...) of its callers, where set -e does not reach)
	configure "$1" >&2 || die "$(pair_id)-$1: the configuration failed (config.sh above)"
	build "$1" full
}

# The modules a distro build makes, in the order /init loads them (file
# names): the three of every build, then the direct-call sample where
# the config has it.
modules_of() {
	echo configfs binfmt_misc test_module
	! grep -q '^CONFIG_SAMPLE_FTRACE_DIRECT=m' "$(bdir_of "$1")/.config" ||
		echo ftrace-direct
}

# stage_modules KIND: make modules_install into a staging directory
# (module signing happens here, on the final .ko), then gather the
# installed files and their load order for the initramfs.  Prints the
# directory.
stage_modules() {
	local kind=$1 b stage out m f
	b=$(bdir_of "$kind")
	stage=$b/lpk-staging
	out=$b/lpk-initramfs-modules
	rm -rf "$stage" "$out"
	on_tc make -C "$(src_of "$kind")" O="$b" $(margs) \
		INSTALL_MOD_PATH="$stage" modules_install >"$res/$(pair_id)-$kind.modinst.log" 2>&1 ||
		die "$(pair_id)-$kind: modules_install failed; see $res/$(pair_id)-$kind.modinst.log"
	mkdir -p "$out"
	: >"$out/order"
	for m in $(modules_of "$kind"); do
		f=$(find "$stage/lib/modules" -name "$m.ko" | sed -n 1p)
		[ -n "$f" ] || die "$(pair_id)-$kind: $m.ko not installed under $stage"
		cp "$f" "$out/"
		echo "$m" >>"$out/order"
	done
	echo "$out"
}

# Table entries of module FILE: the size of its __mcount_loc section / 8,
# else, with patchable entries (PAD non-empty), of the compiler's
# allocated __patchable_function_entries (a stock arm64 or riscv
# module's table).
ko_entries() {
	local size
	size=$(readelf -SW "$1" | sed 's/^ *\[ *[0-9]*\] *//' | awk -v pad="$2" '
		$1 == "__mcount_loc" { m = $5 }
		pad != "" && $1 == "__patchable_function_entries" && $7 ~ /A/ { p = $5 }
		END { print (m != "") ? m : p }')
	echo $(( 0x${size:-0} / 8 ))
}

# The .ko files build dir DIR made, relative to it (Kbuild's
# modules.order lists each module's .o).
built_kos() { sed 's/\.o$/.ko/' "$1/modules.order"; }
# The bytes of BUILD_DIR's .ko files, summed.
ko_bytes() { (cd "$1" && built_kos . | xargs -r stat -c %s) | awk '{s += $1} END {print s + 0}'; }

# Does FILE end with the module signature marker?
ko_signed() { tail -c 28 "$1" | grep -q '~Module signature appended~'; }

# incremental ROUNDS: touch one .c file of both trees (a hard-link copy
# shares it) and rebuild stock then ours, ROUNDS times; sets incr_stock
# and incr_lp to the median seconds and ilinks_*/iscans_* from the last
# round.
touch_file=fs/read_write.c
incremental() {
	local rounds=$1 r
	local -a ts=() tl=()
	for r in $(seq "$rounds"); do
		touch "$(src_of stock)/$touch_file" "$(src_of lp)/$touch_file"
		ts+=("$(build stock "incr$r")")
		tl+=("$(build lp "incr$r")")
	done
	incr_stock=$(median "${ts[@]}")
	incr_lp=$(median "${tl[@]}")
	incr_all="stock ${ts[*]} / ours ${tl[*]}"
	ilinks_stock=$(nlinks "$res/$(pair_id)-stock.incr$rounds.log")
	ilinks_lp=$(nlinks "$res/$(pair_id)-lp.incr$rounds.log")
	iscans_lp=$(nscans "$res/$(pair_id)-lp.incr$rounds.log")
}

# The Kconfig symbols the reproducer of the sorttable bug turns off in
# its stock build (run_sorttable_fix): x86's call-depth tracking, whose
# call padding (CALL_PADDING, -fpatchable-function-entry=16,16) puts 16
# bytes and a __pfx_ symbol before every function.  The zero-size
# section markers (__softirqentry_text_start, __lock_text_start...) then
# sit at the padding's address, not at the live function's
# (__do_softirq) that the bug needs: a 7.3 clang 19 build with the
# padding zeroes no live entry, one without zeroes __do_softirq's.
# clang 14 (6.12) makes no call padding at all; gcc builds are not
# reproducers.
sorttable_fix_off() {
	[ "$arch" = x86_64 ] || return 0
	echo MITIGATION_CALL_DEPTH_TRACKING
}

# The current pair has a sorttable fix to try (6.12's zeroing, x86_64).
has_sorttable_fix() {
	has_zeroing "$v" && [ "$arch" = x86_64 ] && [ -n "$(sorttable_fix_patch "$v")" ]
}

# stock_with_sorttable_fix: a copy of the stock build relinked with the
# sorttable of sorttable_fix_patch V (the stock tree's sorttable.c with
# the fix applied, compiled by the stock build's own saved commands, so
# that make takes it as up to date: 6.12 compiles and links in one
# command, 7.x compiles scripts/sorttable.o, then links it with
# elf-parse.o); prints the copy's directory.
stock_with_sorttable_fix() {
	local sb sf fix src cmd t
	sb=$(bdir_of stock)
	sf=$cache/build/$(pair_id)-stockfix
	fix=$res/$(pair_id)-sorttable-fix
	src=$(src_of stock)
	rm -rf "$sf" "$fix"
	cp -a "$sb" "$sf"
	mkdir -p "$fix/scripts"
	# the headers it includes by "" (7.x: elf-parse.h) beside it
	cp "$src/scripts/sorttable.c" "$src"/scripts/*.h "$fix/scripts/"
	patch -d "$fix" -p1 -s <"$(sorttable_fix_patch "$v")" ||
		die "$(sorttable_fix_patch "$v") does not apply to $src/scripts/sorttable.c"
	for t in sorttable.o sorttable; do
		[ -f "$sf/scripts/.$t.cmd" ] || continue
		cmd=$(sed -n "s/^savedcmd_scripts\/$t := //p" "$sf/scripts/.$t.cmd")
		[ -n "$cmd" ] || die "$sf/scripts/.$t.cmd: no saved command"
		# (with the pair's toolchain: a root one's compiler is in the root)
		on_tc sh -c 'cd "$1" && eval "$2"' sh "$sf" \
			"${cmd//$src\/scripts\/sorttable.c/$fix/scripts/sorttable.c}" ||
			die "$(pair_id): the fixed sorttable does not build"
	done
	[ -f "$sf/scripts/.sorttable.cmd" ] || die "$sf/scripts/.sorttable.cmd: no saved command"
	# the fix's own line, to tell the fixed binary from stock's
	grep -q getline "$sf/scripts/sorttable" ||
		die "$(pair_id): $sf/scripts/sorttable was not rebuilt from the fixed source"
	rm -f "$sf/vmlinux" "$sf/vmlinux.unstripped"
	kmake -C "$src" O="$sf" -j"$jobs" $(margs) vmlinux "$(basename "$(image_of "$arch")")" \
		>"$res/$(pair_id)-stockfix.log" 2>&1 ||
		die "$(pair_id): relinking stock with the fixed sorttable failed; see $res/$(pair_id)-stockfix.log"
	echo "$sf"
}

# asm_cmd_of B: the command build directory B assembles a .S with, as
# the series assembles its tables (Kbuild's preprocessor and assembler
# flags, as kallsyms' table gets them): the saved command of the arch's
# head*.S, less its dependency file, its own names and its operands.
asm_cmd_of() {
	local cmd
	cmd=$(grep -h '^savedcmd_.*\.S *$' "$1"/arch/*/kernel/.head*.o.cmd 2>/dev/null | sed -n 1p)
	[ -n "$cmd" ] || die "$1: no saved command of arch/*/kernel/head*.S to take the assembler's flags from"
	sed -e 's/^[^=]*:= //' -e 's/ -Wp,-MMD,[^ ]*//' -e 's/ -D_*KBUILD_[A-Z]*=[^ ]*//g' \
		-e 's/ -c -o [^ ]* [^ ]* *$//' <<<"$cmd"
}

# postlink_cost REPS: the post-link mcount step of stock and ours, timed
# REPS times by kernel/postlink-time.sh in the pair's toolchain's
# environment, on the images the builds left: stock's "nm -S" and
# "sorttable -s"; ours, the build's own scripts/linkpass on each kallsyms
# link, the assembly of each table, sorttable, and "linkpass --check"
# with the link-time states written for real on a fresh copy of the
# final link as it was before the build wrote them (kernel/prewrite.sh).  Sets the pl_* figures (milliseconds, medians), and the
# least work of bench/leastwork (x86: calls) as a yardstick.
postlink_cost() {
	local reps=$1 sb lb nm cc pad lists= r t0 t1 t2 img least_failed=0 out
	local -a lw=() lwc=()
	sb=$(bdir_of stock)
	lb=$(bdir_of lp)
	[ -x "$lb/scripts/linkpass/linkpass" ] ||
		die "$lb: no scripts/linkpass/linkpass: the build did not make the in-tree tool"
	nm=$(tool_of "$arch" "$tc" nm)
	pad=$(pad_opt_of "$lb")
	pad=${pad/--patchable-entries=/--patchable=}
	[ -z "$pad" ] || lists=--lists=vmlinux.o
	# the table's assembler: the build's, with Kbuild's flags
	cc=$(asm_cmd_of "$lb")
	cp "$here/postlink-time.sh" "$here/prewrite.sh" "$cache/bin/"
	out=$(on_tc "$cache/bin/postlink-time.sh" stock "$sb" "$reps" "$cc" "$nm") ||
		die "$(pair_id): timing stock's post-link step failed"
	pl_stock_nm=$(sed -n 's/^nm=//p' <<<"$out")
	pl_stock_sort=$(sed -n 's/^sort=//p' <<<"$out")
	pl_stock_ms=$(sum "$pl_stock_nm" "$pl_stock_sort")
	# shellcheck disable=SC2086  # no pads: no flag
	out=$(on_tc "$cache/bin/postlink-time.sh" lp "$lb" "$reps" "$cc" "$nm" $pad $lists) ||
		die "$(pair_id): timing our post-link step failed"
	pl_scans=$(sed -n 's/^scans=//p' <<<"$out")
	pl_lp_scans=$(sed -n 's/^scan=//p' <<<"$out")
	pl_lp_as=$(sed -n 's/^as=//p' <<<"$out")
	pl_lp_sort=$(sed -n 's/^sort=//p' <<<"$out")
	pl_lp_check=$(sed -n 's/^check=//p' <<<"$out")
	pl_lp_ms=$(sum "$(sum "$pl_lp_scans" "$pl_lp_as")" "$(sum "$pl_lp_sort" "$pl_lp_check")")
	# the totals the two lines compare: our steps but sorttable
	pl_lp_scans_check=$(sum "$(sum "$pl_lp_scans" "$pl_lp_as")" "$pl_lp_check")
	pl_least_ms=
	[ -z "$pad" ] || return 0
	# a yardstick, not an assertion: a failure is reported, not fatal
	for r in $(seq "$reps"); do
		stamp t0
		for img in $(find "$lb" -maxdepth 1 -name '.tmp_vmlinux[0-9]' | sort); do
			"$leastwork" -c "$img" "$res/least.o" >/dev/null || least_failed=1
		done
		stamp t1
		pl_least_diff=$("$leastwork" -c -t "$(vmlinux_of "$lb")" | awk '{ print $3 }') ||
			least_failed=1
		stamp t2
		lw+=("$(ms "$t0" "$t1")")
		lwc+=("$(ms "$t1" "$t2")")
	done
	rm -f "$res/least.o"
	pl_least_scans=$(median "${lw[@]}")
	pl_least_check=$(median "${lwc[@]}")
	pl_least_ms=$(sum "$pl_least_scans" "$pl_least_check")
	[ "$least_failed" = 0 ] || pl_least_diff="unknown (leastwork failed: see the output above)"
}

# postlink_say P: postlink_cost's figures, in the lines the test prints
# (P: the pair's "[V ARCH TC]").
postlink_say() {
	local p=$1
	say "$p post-link mcount step, median of 5: stock $(has_zeroing "$v" && echo "nm -S + sorttable -s" || echo sorttable) $pl_stock_ms ms ($pl_stock_nm + $pl_stock_sort); ours $pl_scans scans + their assembly + sorttable + check and link-time states $pl_lp_ms ms ($pl_lp_scans + $pl_lp_as + $pl_lp_sort + $pl_lp_check); ours/stock $(ratio "$pl_lp_ms" "$pl_stock_ms"), ours but sorttable / stock $(ratio "$pl_lp_scans_check" "$pl_stock_ms")"
	if [ -n "$pl_least_ms" ]; then
		say "$p least work (bench/leastwork -c), same rounds: $pl_scans scans + check $pl_least_ms ms ($pl_least_scans + $pl_least_check), / stock $(ratio "$pl_least_ms" "$pl_stock_ms"); ours / least work $(ratio "$pl_lp_scans_check" "$pl_least_ms"); entries of our table it does not find: $pl_least_diff"
	fi
}

# postlink_facts: postlink_cost's figures as the lines of PAIR.facts
# that report.py reads (our step timed by the build's own
# scripts/linkpass/linkpass: pl_tool=in-tree).
postlink_facts() {
	echo "pl_stock_ms=$pl_stock_ms"
	echo "pl_tool=in-tree"
	echo "pl_lp_as=$pl_lp_as"
	echo "pl_lp_nopwrite=1"
	echo "pl_lp_scans_check=$pl_lp_scans_check"
	echo "pl_least_ms=$pl_least_ms"
}
