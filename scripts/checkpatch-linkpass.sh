#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch-linkpass.sh CHECKPATCH FILE...: run the kernel's
# checkpatch.pl --strict --no-tree on each FILE: a source file (-f:
# linkpass/ and the include/ headers it uses, which are exported into
# kernel trees as a host program), or a patch of kernel/series/ or
# kernel/sorttable-fix/ as a maintainer would run it; print one line per
# file with its counts, and fail when any file has an error or a
# warning.  The CHECKs left are listed by type; docs/design.md says why
# they stay.

set -euo pipefail

checkpatch=$1
shift
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT

known=$(dirname -- "$(realpath -- "$0")")/../kernel/upstream-commits

# checkpatch.pl FILE's findings into $work/N.out.  From a directory
# outside any git tree: checkpatch leaves a .checkpatch-camelcase.git.*
# file behind in a git tree (its stderr: perl notes about the kernel
# tree it does not have).
run_one() {
	local n=$1 f=$2 mode=-f abs
	abs=$(realpath -- "$f")
	[[ $f != *.patch ]] || mode=
	cd "$work" || return
	perl "$checkpatch" --strict --no-tree --terse --show-types $mode \
		"$abs" >"$work/$n.out" 2>/dev/null || true
}

# One checkpatch.pl per CPU at a time (each takes seconds: make test
# runs it on about 140 files); the report below is in FILE order.
ncpu=$(nproc 2>/dev/null || echo 1)
n=0
for f in "$@"; do
	while [[ $(jobs -rp | wc -l) -ge $ncpu ]]; do
		wait -n
	done
	run_one "$n" "$f" &
	n=$((n + 1))
done
wait

status=0
declare -A checks=()
n=0
for f in "$@"; do
	out=$(cat "$work/$n.out")
	n=$((n + 1))
	# --terse prints no total for a file without findings
	total=$(grep '^total:' <<<"$out" || echo "total: 0 errors, 0 warnings, 0 checks")
	bad=$(grep -E ':[0-9]+: (ERROR|WARNING):' <<<"$out" || true)
	# an UNKNOWN_COMMIT_ID whose id is one of kernel/upstream-commits:
	# the id is right, checkpatch only lacks upstream's history here
	bad=$(while IFS= read -r l; do
		id=$(sed -n "s/.*WARNING:UNKNOWN_COMMIT_ID: Unknown commit id '\([0-9a-f]*\)'.*/\1/p" <<<"$l")
		if [[ -n $id ]] && grep -q "^$id" "$known"; then
			continue
		fi
		[[ -z $l ]] || echo "$l"
	done <<<"$bad")
	while read -r type; do
		[[ -n $type ]] && checks[$type]=$((${checks[$type]:-0} + 1))
	done < <(sed -n 's/^[^:]*:[0-9]*: CHECK:\([A-Z_]*\):.*/\1/p' <<<"$out")
	printf '%-28s %s\n' "$f" "${total#total: }"
	if [[ -z $bad ]] && grep -q 'WARNING:UNKNOWN_COMMIT_ID' <<<"$out"; then
		echo "    (its warning: a Fixes: id of kernel/upstream-commits, unknown only to a tree without upstream's history)"
	fi
	if [[ -n $bad ]]; then
		sed 's/^/    /' <<<"$bad"
		status=1
	fi
done
echo "CHECKs by type:"
for t in "${!checks[@]}"; do
	printf '  %-28s %d\n' "$t" "${checks[$t]}"
done | sort
if [[ $status -ne 0 ]]; then
	echo "checkpatch: errors or warnings above" >&2
fi
exit "$status"
