#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/postlink-time.sh stock|lp BUILD_DIR REPS "CC [FLAGS]" NM [LINKPASS_FLAGS...]
#
# Times, REPS times, the steps a build of kind stock or lp (the series)
# runs for the mcount table after its links, on the images BUILD_DIR
# holds, and prints the medians in milliseconds as name=value lines:
#
#   stock  nm=  "nm -S" of vmlinux.unstripped (where the build zeroes
#               dead entries: stock 7.x), sort= "sorttable -s" (or plain
#               sorttable) on a fresh copy
#   lp     scan= scripts/linkpass on each kallsyms link the build made
#               (.tmp_vmlinuxN), as.s= the table assembled with CC each
#               time, sort= plain sorttable, check= "linkpass --check"
#               with "--nop" where the build writes the sites' state at
#               link time, on a fresh copy of vmlinux as its final link
#               made it (kernel/prewrite.sh, beside this script): the
#               real, in-place write, not a re-check of a written image;
#               the result must be the build's vmlinux, byte for byte
#
# The copies are made before each timed step, never timed.  Runs in the
# build's own environment (kernel/lib.sh runs it inside the build root
# for its toolchains): CC and NM are the build's.  Exits 2 with one line
# on failure.
set -euo pipefail

die() { printf 'postlink-time.sh: %s\n' "$*" >&2; exit 2; }
[ $# -ge 5 ] || die "usage: postlink-time.sh stock|lp BUILD_DIR REPS CC NM [LINKPASS_FLAGS...]"
kind=$1 b=$2 reps=$3 nm=$5
read -ra cc <<<"$4"
shift 5
[ -e "$b/vmlinux.unstripped" ] || die "$b: no vmlinux.unstripped"

now() { printf '%s' "${EPOCHREALTIME/,/.}"; }
ms() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b - a) * 1000 }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/postlink.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$b"
declare -a t_nm=() t_sort=() t_scan=() t_as=() t_check=()

if [ "$kind" = stock ]; then
	zeroing=0
	grep -q 'sorttable -s' "$(readlink -f source 2>/dev/null || echo .)/scripts/link-vmlinux.sh" 2>/dev/null && zeroing=1
	for _ in $(seq "$reps"); do
		cp vmlinux.unstripped "$tmp/v"
		t0=$(now)
		[ "$zeroing" = 0 ] || "$nm" -S "$tmp/v" >"$tmp/nm"
		t1=$(now)
		if [ "$zeroing" = 1 ]; then
			scripts/sorttable -s "$tmp/nm" "$tmp/v"
		else
			scripts/sorttable "$tmp/v"
		fi
		t2=$(now)
		t_nm+=("$(ms "$t0" "$t1")")
		t_sort+=("$(ms "$t1" "$t2")")
	done
	echo "zeroing=$zeroing"
	echo "nm=$(median "${t_nm[@]}")"
	echo "sort=$(median "${t_sort[@]}")"
	exit 0
fi

[ "$kind" = lp ] || die "$kind: expected stock or lp"
lp=scripts/linkpass/linkpass
[ -x "$lp" ] || die "$b: no $lp"
mapfile -t links < <(ls .tmp_vmlinux[0-9] 2>/dev/null | sort)
[ ${#links[@]} -gt 0 ] || die "$b: no kallsyms link (.tmp_vmlinuxN) left by the build"
nop=
grep -qE '^CONFIG_HAVE_FTRACE_MCOUNT_LINKPASS_(NOP|INIT)=y' .config && nop=--nop
# the check takes the pads' geometry, not the lists
declare -a check_flags=()
for f in "$@"; do
	case $f in --lists=*) ;; *) check_flags+=("$f") ;; esac
done
"$(dirname "$0")/prewrite.sh" . "$tmp/pre"
for _ in $(seq "$reps"); do
	t0=$(now)
	for img in "${links[@]}"; do
		"$lp" "$@" "$img" >"$tmp/t.S"
	done
	t1=$(now)
	for img in "${links[@]}"; do
		"${cc[@]}" -c -o "$tmp/t.o" "$tmp/t.S"
	done
	t2=$(now)
	cp vmlinux.unstripped "$tmp/v"
	t3=$(now)
	scripts/sorttable "$tmp/v"
	t4=$(now)
	cp "$tmp/pre" "$tmp/last"
	t5=$(now)
	"$lp" --check $nop "${check_flags[@]}" "$tmp/last"
	t6=$(now)
	cmp -s "$tmp/last" vmlinux.unstripped ||
		die "$b: the check${nop:+ and its writes} on the final link did not give the build's vmlinux.unstripped"
	t_scan+=("$(ms "$t0" "$t1")")
	t_as+=("$(ms "$t1" "$t2")")
	t_sort+=("$(ms "$t3" "$t4")")
	t_check+=("$(ms "$t5" "$t6")")
done
echo "scans=${#links[@]}"
echo "scan=$(median "${t_scan[@]}")"
echo "as=$(median "${t_as[@]}")"
echo "sort=$(median "${t_sort[@]}")"
echo "check=$(median "${t_check[@]}")"
echo "nop=${nop:+yes}"
