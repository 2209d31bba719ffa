#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/buildroot.sh ensure
# kernel/buildroot.sh run [-C DIR] [NAME=VALUE...] COMMAND [ARG...]
# kernel/buildroot.sh tools DIR NAME...
# kernel/buildroot.sh path
#
# The build root of the newer toolchains: a Debian trixie system made by
# debootstrap inside the kernel cache ($cache/roots/trixie), with gcc 14,
# clang 19, ld.lld 19, the llvm binutils and the aarch64 and riscv64 cross
# gcc 14 installed inside it by its own apt-get.  Linux 7.3 needs clang 17
# or later, and its users build with gcc 14; bookworm has gcc 12 and
# clang 14 to 16.
#
# Nothing of trixie is installed on the machine itself: an "apt-get
# install" of newer packages on bookworm upgrades its libc and perl in
# place.  The root's sources name the archive URI of the machine's own
# Debian source entry (scripts/apt-private.sh reads it), so no host is
# named here.
#
#   ensure  makes the root if it is missing or broken (its compilers do
#           not run, or its package list changed), else does nothing;
#           one line says why it cannot be made.
#   run     runs COMMAND inside the root (chroot) in a mount namespace of
#           its own, with /dev, /proc and the kernel cache bound in at
#           the same paths, so source and build dirs keep their names;
#           the binds end with the command.  -C DIR: start in DIR (by
#           default the current one if it is under the cache, else /).
#           The command gets the root's own environment (PATH with
#           /usr/lib/llvm-19/bin first, HOME, LANG, TERM) and nothing of
#           the caller's but the NAME=VALUE given, which override it.
#   tools   writes DIR/NAME for each NAME, a script that runs the root's
#           program NAME (as its PATH finds it) on this machine, without
#           chroot: through the root's own dynamic loader and libraries.
#           It starts as fast as the machine's own tools (the kernel
#           test times nm beside sorttable) and sees every path its
#           caller sees.
#   path    prints the root's directory.
#
# Environment: LINKPASS_KERNEL_CACHE (/var/tmp/linkpass-kernel),
# LINKPASS_ROOT_SUITE (trixie).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${LINKPASS_KERNEL_CACHE:-/var/tmp/linkpass-kernel}
suite=${LINKPASS_ROOT_SUITE:-trixie}
root=$cache/roots/$suite

die() { printf 'buildroot.sh: %s\n' "$*" >&2; exit 2; }

# What the kernel builds need inside the root: the compilers, Kbuild's
# host tools, and pahole for BTF.
packages="gcc make bc bison flex cpio kmod xz-utils python3 perl openssl
libelf-dev libssl-dev ccache dwarves file
clang-19 lld-19 llvm-19
gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu"

# The commands that must run inside a working root, and the names the
# kernel's LLVM=1 looks for (clang, ld.lld, llvm-nm...) as links to the
# -19 ones.
probe="gcc --version && clang --version && ld.lld --version && \
aarch64-linux-gnu-gcc --version && riscv64-linux-gnu-gcc --version"

# The archive URI of the machine's Debian source entry (apt-private.sh
# has the one reader of it).
archive_uri() { "$here/../scripts/apt-private.sh" --uri; }

stamp() { printf '%s\n' "$suite" $packages | sha1sum | cut -d' ' -f1; }

# in_root [NAME=VALUE...] COMMAND [ARG...]: COMMAND inside the root, in
# its / (chroot's), with the root's environment and the NAME=VALUE.
in_root() {
	# unshare: the binds vanish with the command, none is left behind
	# for an "rm -rf" of the cache to walk into.  env sets the caller's
	# NAME=VALUE after the root's own, so that a PATH= given wins.
	unshare --mount --propagation private /bin/sh -euc '
		root=$1 cache=$2
		shift 2
		mkdir -p "$root/dev" "$root/proc" "$root$cache"
		mount --rbind /dev "$root/dev"
		mount -t proc proc "$root/proc"
		mount --bind "$cache" "$root$cache"
		cd "$root" && exec chroot "$root" /usr/bin/env -i \
			PATH=/usr/lib/llvm-19/bin:/usr/local/bin:/usr/bin:/bin \
			HOME=/root LANG=C.UTF-8 TERM=dumb "$@"
	' sh "$root" "$cache" "$@"
}

healthy() {
	[ "$(cat "$root/.lpk-root" 2>/dev/null)" = "$(stamp)" ] &&
		in_root /bin/sh -c "$probe" >/dev/null 2>&1
}

make_root() {
	local uri log=$cache/roots/$suite.log t0
	command -v debootstrap >/dev/null ||
		die "debootstrap is not installed (apt-get install debootstrap)"
	[ "$(id -u)" = 0 ] || die "making $root needs root (debootstrap, chroot)"
	uri=$(archive_uri) || die "no Debian archive URI in the machine's apt sources"
	mkdir -p "$cache/roots"
	# an old root may hold mount points: remove it on this file system only
	rm -rf --one-file-system "$root"
	t0=$SECONDS
	echo "buildroot.sh: debootstrap $suite into $root (log $log)"
	debootstrap --variant=minbase "$suite" "$root" "$uri" >"$log" 2>&1 ||
		die "debootstrap $suite from $uri failed; see $log"
	echo "buildroot.sh: apt-get install inside $root"
	in_root /bin/sh -c "apt-get update -q && DEBIAN_FRONTEND=noninteractive \
		apt-get install -y -q --no-install-recommends $(echo $packages)" >>"$log" 2>&1 ||
		die "apt-get install inside $root failed; see $log"
	in_root /bin/sh -c "$probe" >>"$log" 2>&1 ||
		die "$root: the compilers do not run; see $log"
	stamp >"$root/.lpk-root"
	echo "buildroot.sh: $root ready in $((SECONDS - t0)) s, $(du -sh --one-file-system "$root" | cut -f1)"
}

# write_tools DIR NAME...: the wrappers of "tools".  Each program is
# resolved inside the root (its PATH, then its symbolic links), once.
# The loader's --library-path puts the root's libraries before the
# machine's; a program's own RUNPATH ($ORIGIN/..., llvm's) is read from
# where it lies, in the root; --argv0 keeps the name it was asked by,
# which llvm's multi-call tools go by (llvm-readelf is llvm-readobj).
write_tools() {
	local dir=$1 name real ld=$root/lib64/ld-linux-x86-64.so.2
	local libs=$root/usr/lib/x86_64-linux-gnu:$root/lib/x86_64-linux-gnu
	shift
	[ -e "$ld" ] || die "$ld: no dynamic loader in the root"
	mkdir -p "$dir"
	in_root /bin/sh -c 'for n; do p=$(command -v "$n") && readlink -f "$p" || echo "-"; done' sh "$@" |
	while read -r real; do
		name=$1
		shift
		[ "$real" != - ] || die "$name: not found in $root"
		printf '#!/bin/sh\n# %s of %s (kernel/buildroot.sh tools)\nexec %s --library-path %s --argv0 %s %s "$@"\n' \
			"$name" "$root" "$ld" "$libs" "$name" "$root$real" >"$dir/$name.tmp"
		chmod +x "$dir/$name.tmp"
		mv "$dir/$name.tmp" "$dir/$name"
	done
}

case ${1-} in
ensure)
	healthy || make_root
	;;
run)
	shift
	# the current directory where the root sees it (under the cache)
	case $PWD/ in "$cache"/*) dir=$PWD ;; *) dir=/ ;; esac
	if [ "${1-}" = -C ]; then
		dir=$2
		shift 2
	fi
	assign=()
	while [ $# -gt 0 ] && [[ $1 == [A-Za-z_]*=* ]]; do
		assign+=("$1")
		shift
	done
	[ $# -gt 0 ] || die "usage: buildroot.sh run [-C DIR] [NAME=VALUE...] COMMAND [ARG...]"
	[ -e "$root/.lpk-root" ] || die "$root: no build root (buildroot.sh ensure makes it)"
	in_root "${assign[@]}" /bin/sh -c 'cd "$0" && exec "$@"' "$dir" "$@"
	;;
tools)
	shift
	[ $# -ge 2 ] || die "usage: buildroot.sh tools DIR NAME..."
	dir=$1
	shift
	healthy || die "$root: no working build root (buildroot.sh ensure makes it)"
	write_tools "$dir" "$@"
	;;
path)
	echo "$root"
	;;
*)
	die "usage: buildroot.sh ensure | run [-C DIR] [NAME=VALUE...] COMMAND [ARG...] | tools DIR NAME... | path"
	;;
esac
