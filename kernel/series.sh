#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/series.sh: the kernel patch series of Linux VERSION, made from
# what this repository tracks, applied, and kept up to date.
#
# A series is two kinds of patch.  The tool's patches are never tracked:
# they are made from linkpass/ (the files kernel/export.sh copies into
# scripts/linkpass/), one commit per part of kernel/series/tool/.  The
# hand-written ones are: kernel/series/VERSION/*.patch, in order, and
# kernel/series/VERSION/cover.txt, the cover letter's subject (first
# line) and text.  A hand-written patch with a Fixes: tag fixes upstream
# code and goes first, before the tool's parts, so that it can be taken
# (and backported) on its own; the others follow the tool's parts.
#
#   series.sh pristine VERSION DIR   a git repository of Debian's clean
#                                    linux-source-VERSION at DIR (one
#                                    commit, made the same way each time;
#                                    the tarball is $LINKPASS_TARBALL,
#                                    else /usr/src's)
#   series.sh generate VERSION OUT   the whole series, as git
#                                    format-patch files with a cover
#                                    letter, into the folder OUT: the
#                                    tool's parts committed on a clone of
#                                    the pristine tree ($cache/git), the
#                                    hand-written patches applied with
#                                    git am (`make series` runs it)
#   series.sh apply VERSION TREE     generate, then git am the series
#                                    onto TREE, a work tree of the
#                                    pristine commit, then verify
#   series.sh verify VERSION TREE    TREE's scripts/linkpass/ holds this
#                                    repository's kernel set of linkpass,
#                                    byte for byte, and nothing else
#   series.sh refresh VERSION DEV    rewrite kernel/series/VERSION from
#                                    DEV, a git tree whose checked-out
#                                    branch is the pristine commit, the
#                                    fixes, one commit per tool part,
#                                    then the other hand-written commits:
#                                    the fixes and those are written back
#                                    as patches (the cover text is kept;
#                                    as many fixes as the folder has)
#
# Exits 2 with one line on any failure.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
cache=${LINKPASS_KERNEL_CACHE:-/var/tmp/linkpass-kernel}
parts_dir=$here/series/tool
# A tool part may not add more lines than this: a reviewer reads each
# patch in one sitting.
part_max=${LINKPASS_PART_MAX:-1500}

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

# The hand-written patches of a series, in order; the fixes among them
# (a Fixes: tag), which come first; and the others.
hand_patches() { find "$(series_dir "$1")" -maxdepth 1 -name '[0-9]*.patch' | LC_ALL=C sort; }
hand_fixes() { hand_patches "$1" | while read -r p; do ! grep -q '^Fixes: ' "$p" || echo "$p"; done; }
hand_rest() { hand_patches "$1" | while read -r p; do grep -q '^Fixes: ' "$p" || echo "$p"; done; }

# The tool's parts, in order: kernel/series/tool/NN-NAME.msg, each a
# commit message whose last line is "Files: f1 f2 ..." (names in
# scripts/linkpass/; the trailer is not part of the message).
tool_parts() { find "$parts_dir" -name '[0-9]*.msg' | LC_ALL=C sort; }
part_files() { sed -n 's/^Files: //p' "$1" | tr ' ' '\n' | grep .; }
part_msg() { grep -v '^Files: ' "$1"; }

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

# maint_list_files MAINTAINERS LIST: MAINTAINERS with the linkpass
# entry's folder line replaced by one F: line for each file LIST names
# (one a line), sorted as checkpatch wants an entry's patterns.
maint_list_files() {
	LIST=$2 awk '
		$0 == "F:\tscripts/linkpass/" {
			cmd = "LC_ALL=C sort " ENVIRON["LIST"]
			while ((cmd | getline f) > 0)
				print "F:\tscripts/linkpass/" f
			close(cmd)
			next
		}
		{ print }' "$1"
}

# commit_tool_parts TREE: export the kernel set into TREE and commit it,
# one part at a time; every file of the set must be in exactly one
# part, and no part over $part_max added lines.
commit_tool_parts() {
	local tree=$1 p f n last seen maint
	"$here/export.sh" "$tree" >/dev/null
	maint=$(mktemp)
	cp "$tree/MAINTAINERS" "$maint"
	mapfile -t parts < <(tool_parts)
	[ ${#parts[@]} -ge 1 ] || die "$parts_dir: no NN-NAME.msg part"
	last=${parts[-1]}
	seen=$(mktemp)
	for p in "${parts[@]}"; do
		for f in $(part_files "$p"); do
			[ -e "$tree/scripts/linkpass/$f" ] ||
				die "${p#"$repo"/}: $f is not in the kernel set (kernel/export.sh --list)"
			! grep -qxF "$f" "$seen" || die "${p#"$repo"/}: $f is in two parts"
			echo "$f" >>"$seen"
			git -C "$tree" add -f "scripts/linkpass/$f"
		done
		# MAINTAINERS: each part but the last lists the files so far
		# in the entry (checkpatch asks of every patch that adds files
		# that it update MAINTAINERS); the last one, complete, gives
		# the folder instead, and hooks the folder into Kbuild
		if [ "$p" = "$last" ]; then
			cp "$maint" "$tree/MAINTAINERS"
			git -C "$tree" add -A -f scripts/linkpass scripts/Makefile
		else
			maint_list_files "$maint" "$seen" >"$tree/MAINTAINERS"
		fi
		git -C "$tree" add -f MAINTAINERS
		git -C "$tree" commit -q -F <(part_msg "$p")
		n=$(git -C "$tree" show --numstat --format= HEAD | awk '{ s += $1 } END { print s + 0 }')
		[ "$n" -le "$part_max" ] ||
			die "${p#"$repo"/}: adds $n lines, more than $part_max: split it"
	done
	for f in $(cd "$tree/scripts/linkpass" && ls -- *.[ch]); do
		grep -qxF "$f" "$seen" || die "scripts/linkpass/$f: in no part of kernel/series/tool/"
	done
	rm -f "$seen" "$maint"
	git -C "$tree" diff --quiet HEAD || die "$tree: export left changes no part took"
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
	[ -z "$(hand_fixes "$v")" ] || git -C "$tree/linux" am -q $(hand_fixes "$v") ||
		die "kernel/series/$v: a fix (a patch with a Fixes: tag) does not apply to Linux $v (see $tree/linux)"
	commit_tool_parts "$tree/linux"
	# shellcheck disable=SC2046  # one argument per patch
	git -C "$tree/linux" am -q $(hand_rest "$v") ||
		die "kernel/series/$v: a hand-written patch does not apply after the tool's parts (see $tree/linux)"
	rm -rf "$out"
	mkdir -p "$out"
	git -C "$tree/linux" format-patch -q --zero-commit --no-signature --cover-letter \
		--base="$(git -C "$git" rev-parse HEAD)" -o "$out" HEAD~"$(( $(tool_parts | wc -l) + $(hand_patches "$v" | wc -l) ))"
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

cmd_verify() {
	local tree=$2 f bad=0 rel
	while read -r rel; do
		f=$repo/$rel
		if ! cmp -s "$f" "$tree/scripts/linkpass/$(basename "$f")"; then
			echo "series.sh: $tree/scripts/linkpass/$(basename "$f"): differs from $rel" >&2
			bad=1
		fi
	done < <("$here/export.sh" --list)
	for f in "$tree"/scripts/linkpass/*.[ch]; do
		"$here/export.sh" --list | grep -q "/$(basename "$f")\$" || {
			echo "series.sh: $f: not in linkpass/kernel-files, the kernel set" >&2
			bad=1
		}
	done
	[ $bad = 0 ] || die "the series of Linux $1 applied to $tree carries another linkpass than this repository's"
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
	local v=$1 dev=$2 dir base nt nf c i=0
	dir=$(series_dir "$v")
	git -C "$dev" diff --quiet HEAD || die "$dev: uncommitted changes"
	base=$(git -C "$dev" rev-list --max-parents=0 HEAD)
	nt=$(tool_parts | wc -l)
	nf=$(hand_fixes "$v" | wc -l)
	[ "$(git -C "$dev" rev-list --count "$base..HEAD")" -gt "$((nf + nt))" ] ||
		die "$dev: expected the $nf fixes, the $nt tool parts and then the hand-written commits on top of the pristine one"
	ident
	find "$dir" -maxdepth 1 -name '[0-9]*.patch' -delete
	# the hand-written commits: the fixes, then those after the tool's
	# parts, numbered on in that order
	for c in $(git -C "$dev" rev-list --reverse "$base..HEAD" |
		awk -v nf="$nf" -v nt="$nt" 'NR <= nf || NR > nf + nt'); do
		i=$((i + 1))
		git -C "$dev" format-patch -q --zero-commit --no-signature --no-numbered \
			--start-number="$i" -o "$dir" -1 "$c"
	done
	echo "series.sh: kernel/series/$v: $(hand_patches "$v" | wc -l) hand-written patches from $dev"
}

# export.sh --list is the kernel set; the rest needs VERSION and a path.
[ $# -ge 1 ] || die "usage: series.sh pristine|generate|apply|verify|refresh VERSION DIR"
cmd=$1
shift
[ $# -eq 2 ] || die "usage: series.sh $cmd VERSION DIR"
case $cmd in
pristine | generate | apply | verify | refresh) "cmd_$cmd" "$@" ;;
*) die "unknown command '$cmd'" ;;
esac
