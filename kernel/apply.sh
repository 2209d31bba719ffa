#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# kernel/apply.sh [--undo] TREE
#
# Applies kernel/linkpass-<VERSION>.<PATCHLEVEL>.patch (the version read
# from TREE's Makefile: 6.1 or 6.12) to the Linux source tree TREE, or
# removes it with --undo.  Idempotent: applying twice or undoing an
# unpatched tree is a no-op.  The files the patch touches are first
# copied in place, so a tree made with "cp -al" from a pristine one never
# changes the pristine files through a shared hard link.
set -eu

undo=0
if [ "${1:-}" = "--undo" ]; then
	undo=1
	shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--undo] TREE" >&2; exit 2; }
tree=$1
here=$(cd "$(dirname "$0")" && pwd)
cd "$tree"
ver=$(sed -n 's/^VERSION = //p' Makefile).$(sed -n 's/^PATCHLEVEL = //p' Makefile)
patchfile=$here/linkpass-$ver.patch
[ -e "$patchfile" ] || { echo "apply.sh: $tree: Linux $ver: no $patchfile (have: 6.1, 6.12)" >&2; exit 2; }
# Break hard links of the files the patch names.
for f in $(sed -n 's|^+++ b/||p' "$patchfile"); do
	cp -p "$f" "$f.lp-unshare"
	mv "$f.lp-unshare" "$f"
done

if patch -p1 -R -s -f --dry-run <"$patchfile" >/dev/null 2>&1; then
	applied=1
else
	applied=0
fi

if [ $undo -eq 1 ]; then
	if [ $applied -eq 1 ]; then
		patch -p1 -R -s <"$patchfile"
		echo "apply.sh: $tree: patch removed"
	else
		echo "apply.sh: $tree: patch not applied, nothing to undo"
	fi
elif [ $applied -eq 1 ]; then
	echo "apply.sh: $tree: patch already applied"
else
	patch -p1 -s -N <"$patchfile"
	echo "apply.sh: $tree: patch applied"
fi
