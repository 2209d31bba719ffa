#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/series.sh: the kernel patch series of kernel/series/<version>/
# (git format-patch files with a cover letter), applied and kept up to
# date.
#
#   series.sh pristine VERSION DIR   a git repository of Debian's clean
#                                    linux-source-VERSION at DIR (one
#                                    commit, made the same way each time)
#   series.sh apply VERSION TREE     git am the series onto TREE, a work
#                                    tree of that commit, then verify
#   series.sh verify VERSION TREE    TREE's scripts/linkpass/ holds the
#                                    files linkpass/kernel-files lists,
#                                    byte for byte, and no other .c or .h
#                                    (else the series is stale)
#   series.sh refresh VERSION DEV    rewrite kernel/series/VERSION from
#                                    DEV, a git tree whose checked-out
#                                    branch is the pristine commit plus
#                                    the series' commits: the first (the
#                                    tool) is made again by
#                                    kernel/export.sh from this
#                                    repository, the others are replayed
#                                    on it (the branch then points at the
#                                    result), and git format-patch writes
#                                    the files; the cover letter keeps
#                                    its subject and text
#
# The patches are the source of truth for the kernel side; the tool's
# own sources live in linkpass/ and reach a series only through
# refresh, so "verify" fails until a changed tool is refreshed.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)

die() { printf 'series.sh: %s\n' "$*" >&2; exit 2; }

# Who the series is from; fixed dates make refresh reproducible.
ident() {
	export GIT_AUTHOR_NAME=${LINKPASS_SERIES_NAME:-$(git -C "$repo" config user.name)}
	export GIT_AUTHOR_EMAIL=${LINKPASS_SERIES_EMAIL:-$(git -C "$repo" config user.email)}
	export GIT_COMMITTER_NAME=$GIT_AUTHOR_NAME GIT_COMMITTER_EMAIL=$GIT_AUTHOR_EMAIL
	export GIT_AUTHOR_DATE=${1:-2026-12-03T00:00:00Z} GIT_COMMITTER_DATE=${1:-2026-12-03T00:00:00Z}
}

series_dir() {
	local d=$here/series/$1
	[ -d "$d" ] || die "no series for Linux $1 in $d"
	echo "$d"
}

# The patches of a series, in order, without the cover letter.
patches() { find "$(series_dir "$1")" -name '0*.patch' ! -name '0000-*' | LC_ALL=C sort; }

cmd_pristine() {
	local v=$1 dir=$2 tarball=/usr/src/linux-source-$1.tar.xz tmp
	[ -e "$tarball" ] || die "$tarball: missing (apt-get install linux-source-$v)"
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

cmd_verify() {
	local tree=$2 f bad=0 files
	files=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$repo/linkpass/kernel-files")
	for f in $files; do
		if ! cmp -s "$repo/$f" "$tree/scripts/linkpass/$(basename "$f")"; then
			echo "series.sh: $tree/scripts/linkpass/$(basename "$f"): differs from $f" >&2
			bad=1
		fi
	done
	for f in "$tree"/scripts/linkpass/*.[ch]; do
		[ -e "$f" ] || continue
		case " $(echo $files) " in
		*"/$(basename "$f") "*) continue ;;
		esac
		echo "series.sh: $f: not in linkpass/kernel-files" >&2
		bad=1
	done
	[ $bad = 0 ] || die "the series of Linux $1 carries another linkpass than this repository's: run kernel/series.sh refresh $1 DEV"
}

cmd_apply() {
	local v=$1 tree=$2
	ident
	git -C "$tree" am -q $(patches "$v") ||
		die "$tree: git am of kernel/series/$v failed (git -C $tree am --abort to undo)"
	cmd_verify "$v" "$tree"
}

# The subject and text of an existing cover letter, to carry over.
cover_part() {
	local f=$1 what=$2
	[ -e "$f" ] || return 0
	case $what in
	subject) sed -n 's/^Subject: \[PATCH[^]]*\] //p' "$f" | sed -n 1p ;;
	# from the blank line after the headers to the shortlog
	body) awk 'h && /^[A-Za-z].* \([0-9]+\):$/ { exit } h { print } /^$/ && !h { h = 1 }' "$f" ;;
	esac
}

cmd_refresh() {
	local v=$1 dev=$2 out base tool rest subject body c n branch
	out=$(series_dir "$v")
	git -C "$dev" diff --quiet HEAD || die "$dev: uncommitted changes"
	branch=$(git -C "$dev" symbolic-ref --short HEAD) || die "$dev: no branch checked out"
	base=$(git -C "$dev" rev-list --max-parents=0 HEAD)
	mapfile -t commits < <(git -C "$dev" rev-list --reverse "$base..HEAD")
	[ ${#commits[@]} -ge 1 ] || die "$dev: no commits on top of the pristine one"
	tool=${commits[0]}
	rest=("${commits[@]:1}")
	subject=$(cover_part "$out/0000-cover-letter.patch" subject)
	body=$(cover_part "$out/0000-cover-letter.patch" body)

	ident
	git -C "$dev" checkout -q --detach "$base"
	"$here/export.sh" "$dev" >/dev/null
	git -C "$dev" add -A -f scripts/linkpass scripts/Makefile MAINTAINERS
	git -C "$dev" commit -q -C "$tool" --reset-author
	for c in "${rest[@]}"; do
		git -C "$dev" cherry-pick "$c" >/dev/null ||
			die "$dev: replaying $(git -C "$dev" log -1 --format=%s "$c") on the new tool commit failed"
		git -C "$dev" commit -q --amend -C HEAD --reset-author
	done
	git -C "$dev" checkout -q -B "$branch"
	find "$out" -name '0*.patch' -delete
	git -C "$dev" format-patch -q --zero-commit --no-signature --cover-letter \
		-o "$out" "$base..HEAD"
	if [ -n "$subject" ]; then
		SUBJECT=$subject BODY=$body awk '
			/\*\*\* SUBJECT HERE \*\*\*/ { sub(/\*\*\* SUBJECT HERE \*\*\*/, ENVIRON["SUBJECT"]) }
			/^\*\*\* BLURB HERE \*\*\*$/ { print ENVIRON["BODY"]; next }
			{ print }' "$out/0000-cover-letter.patch" >"$out/0000-cover-letter.patch.tmp"
		mv "$out/0000-cover-letter.patch.tmp" "$out/0000-cover-letter.patch"
	fi
	n=$(patches "$v" | wc -l)
	echo "series.sh: kernel/series/$v: $n patches and a cover letter, from $dev (branch $branch)"
}

[ $# -ge 1 ] || die "usage: series.sh pristine|apply|verify|refresh VERSION DIR"
cmd=$1
shift
[ $# -eq 2 ] || die "usage: series.sh $cmd VERSION DIR"
case $cmd in
pristine | apply | verify | refresh) "cmd_$cmd" "$@" ;;
*) die "unknown command '$cmd'" ;;
esac
