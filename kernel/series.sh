#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/series.sh: the kernel patch series of Linux VERSION, applied,
# verified against this repository and kept up to date.
#
# A series is kernel/series/VERSION/*.patch, in order, and
# kernel/series/VERSION/cover.txt, the cover letter's subject (first
# line) and text.  One of the patches adds scripts/linkpass/, the
# in-tree tool, whose source of truth is this repository's
# kernel/linkpass/: "verify" holds the two together byte for byte, and
# "refresh" writes the patches back from a kernel tree where the tool
# was copied from kernel/linkpass/ and committed.  A patch with a Fixes:
# tag fixes upstream code and goes first, so that it can be taken on
# its own (the 7.x fixes are apart, in kernel/fixes/).
#
#   series.sh pristine VERSION DIR   a git repository of Debian's clean
#                                    linux-source-VERSION at DIR (one
#                                    commit, made the same way each time;
#                                    the tarball is $LINKPASS_TARBALL,
#                                    else /usr/src's)
#   series.sh generate VERSION OUT   the series as git format-patch files
#                                    with a cover letter, into the folder
#                                    OUT, after applying it with git am to
#                                    a clone of the pristine tree ($cache/git)
#                                    (`make series` runs it)
#   series.sh apply VERSION TREE     git am the series onto TREE, a work
#                                    tree of the pristine commit, then verify
#   series.sh verify VERSION TREE    TREE's scripts/linkpass/ holds exactly
#                                    kernel/linkpass/, byte for byte
#   series.sh refresh VERSION DEV    rewrite kernel/series/VERSION/*.patch
#                                    from DEV, a git tree whose checked-out
#                                    branch is the pristine commit and then
#                                    one commit per patch (the cover text
#                                    is kept)
#
# Exits 2 with one line on any failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${LINKPASS_KERNEL_CACHE:-/var/tmp/linkpass-kernel}
tool=$here/linkpass

die() { printf 'series.sh: %s\n' "$*" >&2; exit 2; }

# Who the series is from; fixed dates make the output reproducible.
ident() {
	local name email
	name=${LINKPASS_SERIES_NAME:-$(git -C "$repo" config user.name || true)}
	email=${LINKPASS_SERIES_EMAIL:-$(git -C "$repo" config user.email || true)}
	export GIT_AUTHOR_NAME=${name:-linkpass} GIT_AUTHOR_EMAIL=${email:-linkpass@localhost}
	export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	export GIT_AUTHOR_DATE=${1:-2026-12-05T00:00:00Z} GIT_COMMITTER_DATE=${1:-2026-12-05T00:00:00Z}
}

series_dir() {
	local d=$here/series/$1
	[ -e "$d/cover.txt" ] || die "no series for Linux $1 (no $d/cover.txt)"
	echo "$d"
}

# The patches of a series, in order.
hand_patches() { find "$(series_dir "$1")" -maxdepth 1 -name '[0-9]*.patch' | LC_ALL=C sort; }

cmd_pristine() {
	local v=$1 dir=$2 tarball=${LINKPASS_TARBALL:-/usr/src/linux-source-$1.tar.xz} tmp
	[ -e "$tarball" ] || die "$tarball: missing (apt-get install linux-source-$v, or kernel/fetch-source.sh for a newer suite's)"
	rm -rf "$dir"
	tmp=$dir.tmp
	rm -rf "$tmp"
	mkdir -p "$tmp"
	tar -C "$tmp" -xf "$tarball"
	mv "$tmp/linux-source-$v" "$dir"
	rmdir "$tmp"
	ident 2000-01-01T00:00:00Z
	# Debian's .gitignore ignores the whole top level: add by force
	git -C "$dir" init -q
	git -C "$dir" add -A -f .
	git -C "$dir" commit -q -m "Linux $v (Debian linux-source-$v)"
}

# The pristine repository of V, made once.
pristine_of() {
	local v=$1 git=$cache/git/linux-$1
	local tarball=/usr/src/linux-source-$1.tar.xz
	if [ ! -e "$git/.lpk-pristine" ]; then
		# a version of a newer suite than the machine's: fetched
		if [ ! -e "$tarball" ]; then
			tarball=$cache/tarballs/linux-source-$v.tar.xz
			mkdir -p "$cache/tarballs"
			"$here/fetch-source.sh" "$v" "$tarball" >&2 ||
				die "linux-source-$v: neither in /usr/src nor fetched"
		fi
		echo "series.sh: making the pristine git tree $git" >&2
		LINKPASS_TARBALL=$tarball cmd_pristine "$v" "$git" >&2
		touch "$git/.lpk-pristine"
	fi
	echo "$git"
}

cmd_generate() {
	local v=$1 out dir git tree subject body
	out=$(realpath -m "$2")
	dir=$(series_dir "$v")
	git=$(pristine_of "$v")
	tree=$(mktemp -d "${TMPDIR:-/tmp}/lp-series.XXXXXX")
	git clone -q --shared "$git" "$tree/linux"
	ident
	# shellcheck disable=SC2046  # one argument per patch
	git -C "$tree/linux" am -q $(hand_patches "$v") ||
		die "kernel/series/$v: a patch does not apply to Linux $v (see $tree/linux)"
	cmd_verify "$v" "$tree/linux"
	rm -rf "$out"
	mkdir -p "$out"
	git -C "$tree/linux" format-patch -q --zero-commit --no-signature --cover-letter \
		--base="$(git -C "$git" rev-parse HEAD)" -o "$out" HEAD~"$(hand_patches "$v" | wc -l)"
	subject=$(sed -n 1p "$dir/cover.txt")
	body=$(sed 1,2d "$dir/cover.txt")
	SUBJECT=$subject BODY=$body awk '
		/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, ENVIRON["SUBJECT"]) }
		/^\*\*\* BLURB HERE \*\*\*$/ { print ENVIRON["BODY"]; next }
		{ print }' "$out/0000-cover-letter.patch" >"$out/0000-cover-letter.patch.tmp"
	mv "$out/0000-cover-letter.patch.tmp" "$out/0000-cover-letter.patch"
	rm -rf "$tree"
	echo "series.sh: $out: $(find "$out" -name '0*.patch' ! -name '0000-*' | wc -l) patches and a cover letter for Linux $v"
}

# The files of the in-tree tool, as names in scripts/linkpass/.
tool_files() { git -C "$tool" ls-files . | LC_ALL=C sort; }

cmd_verify() {
	local tree=$2 f bad=0
	[ -d "$tree/scripts/linkpass" ] || die "$tree: no scripts/linkpass/"
	for f in $(tool_files); do
		if ! cmp -s "$tool/$f" "$tree/scripts/linkpass/$f"; then
			echo "series.sh: $tree/scripts/linkpass/$f: differs from kernel/linkpass/$f" >&2
			bad=1
		fi
	done
	for f in $(cd "$tree/scripts/linkpass" && git -C . ls-files 2>/dev/null || ls -A); do
		[ -e "$tool/$f" ] || {
			echo "series.sh: $tree/scripts/linkpass/$f: not in kernel/linkpass/" >&2
			bad=1
		}
	done
	[ $bad = 0 ] || die "the series of Linux $1 applied to $tree carries another linkpass than kernel/linkpass/"
}

cmd_apply() {
	local v=$1 tree=$2 out
	out=$(mktemp -d "${TMPDIR:-/tmp}/lp-series-out.XXXXXX")
	cmd_generate "$v" "$out/series" >/dev/null
	ident
	# shellcheck disable=SC2046  # one argument per patch
	git -C "$tree" am -q $(find "$out/series" -name '0*.patch' ! -name '0000-*' | LC_ALL=C sort) ||
		die "$tree: git am of the series of Linux $v failed (git -C $tree am --abort to undo)"
	rm -rf "$out"
	cmd_verify "$v" "$tree"
}

cmd_refresh() {
	local v=$1 dev=$2 dir base n
	dir=$(series_dir "$v")
	git -C "$dev" diff --quiet HEAD || die "$dev: uncommitted changes"
	base=$(git -C "$dev" rev-list --max-parents=0 HEAD)
	n=$(git -C "$dev" rev-list --count "$base..HEAD")
	[ "$n" -gt 0 ] || die "$dev: no commit on top of the pristine one"
	cmd_verify "$v" "$dev"
	ident
	find "$dir" -maxdepth 1 -name '[0-9]*.patch' -delete
	git -C "$dev" format-patch -q --zero-commit --no-signature --no-numbered \
		-o "$dir" "$base..HEAD"
	echo "series.sh: kernel/series/$v: $n patches from $dev"
}

[ $# -ge 1 ] || die "usage: series.sh pristine|generate|apply|verify|refresh VERSION DIR"
cmd=$1
shift
[ $# -eq 2 ] || die "usage: series.sh $cmd VERSION DIR"
case $cmd in
pristine | generate | apply | verify | refresh) "cmd_$cmd" "$@" ;;
*) die "unknown command '$cmd'" ;;
esac
