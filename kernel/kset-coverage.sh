#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/kset-coverage.sh BUILD_DIR...
#
# How much of the in-tree tool (linkpass/kernel-files) a kernel build
# runs.  The listed files are built alone with gcc --coverage, and that
# binary does what the series' Kbuild rules do, on the files each of our
# build directories left (kernel/test-kernel.sh's BUILD_DIR, e.g.
# $LINKPASS_KERNEL_CACHE/build/7.3-x86_64-gcc-lp):
#   scan      .tmp_vmlinux1 and .tmp_vmlinux2, with the build's pad
#             geometry (--patchable-entries=N,M from its compile flags)
#   check     vmlinux.unstripped (7.x) or vmlinux
#   modules   every module's saved .ko command replayed (its ld -r, then
#             our obj --check and, where the build writes NOPs at link
#             time, --nop: kernel/modcost.sh's ko_scripts), with this
#             binary in place of scripts/linkpass/linkpass
#   nop       where the build writes NOPs: a copy of .tmp_vmlinux2,
#             whose sites still hold their calls (vmlinux's are NOPs)
# Every step must succeed.  Then gcov counts, per file, the lines of C
# and headers (wc -l), the executable lines and how many of them ran.
# The lines that did not run are the error paths of bad input, the
# usage text, and what no build directory given exercised.  With
# KSET_COVERAGE_KEEP=DIR the gcov listings (FILE.gcov, "#####" marking
# a line that did not run) are left in DIR.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
# shellcheck source=kernel/lib.sh
. "$here/lib.sh"
# shellcheck source=kernel/modcost.sh
. "$here/modcost.sh"

[ $# -gt 0 ] || { echo "usage: kernel/kset-coverage.sh BUILD_DIR..." >&2; exit 2; }
for d in "$@"; do
	[ -f "$d/.config" ] || die "$d: not a kernel build directory (no .config)"
done
command -v gcov >/dev/null || die "gcov is not installed (it comes with gcc)"
command -v llvm-objcopy >/dev/null || die "llvm-objcopy is not installed (package llvm)"

work=$(mktemp -d "${TMPDIR:-/tmp}/kset-coverage.XXXXXX")
trap 'rm -rf "$work"' EXIT
keep=${KSET_COVERAGE_KEEP:-}
files=$(sed 's/#.*//' "$top/linkpass/kernel-files" | awk 'NF')
for f in $files; do
	mkdir -p "$work/src/$(dirname "$f")"
	cp "$top/$f" "$work/src/$f"
done
objs=()
for f in $files; do
	case $f in *.c) ;; *) continue ;; esac
	gcc -O0 --coverage -std=gnu11 -D_GNU_SOURCE -I"$work/src/include" \
		-c "$work/src/$f" -o "$work/src/${f%.c}.o"
	objs+=("$work/src/${f%.c}.o")
done
lp=$work/linkpass
gcc --coverage -o "$lp" "${objs[@]}" -lelf -lz -lpthread

# step WHAT CMD...: run one step in $work/run; a failure stops the count.
step() {
	local what=$1
	shift
	(cd "$work/run" && "$@") >"$work/run/out" 2>&1 ||
		die "$what: $* failed: $(head -n 3 "$work/run/out")"
}

for d in "$@"; do
	rm -rf "$work/run"
	mkdir -p "$work/run"
	pad=$(pad_opt_of "$d")
	v=$d/vmlinux.unstripped
	[ -f "$v" ] || v=$d/vmlinux
	# shellcheck disable=SC2086  # $pad: one option or none
	for img in "$d/.tmp_vmlinux1" "$d/.tmp_vmlinux2"; do
		[ ! -f "$img" ] || step "$img" "$lp" scan $pad "$img" -o table.o
	done
	# shellcheck disable=SC2086
	step "$v" "$lp" check $pad "$v"
	nko=$(ko_scripts "$work/run" "$d")
	sed -i "s|[^ ]*scripts/linkpass/linkpass |$lp |g" "$work/run/lp.sh"
	(cd "$d" && sh -e "$work/run/ld.sh" && sh -e "$work/run/lp.sh") ||
		die "$d: a module's replayed command failed"
	nops=
	if has_link_nops "$d"; then
		cp "$d/.tmp_vmlinux2" "$work/run/v"
		step "$d/.tmp_vmlinux2" "$lp" nop v
		nops=", nop; nop of .tmp_vmlinux2"
	fi
	echo "kset-coverage: $d: scans, check, $nko modules (obj, check$nops) ok"
done

# gcov's counts of each file (-l: a header's per .c file that includes
# it, merged here: a line runs if any of them ran it)
(cd "$work/src" && for f in $files; do
	case $f in *.c) gcov -l -o "$(dirname "$f")" "$f" >/dev/null 2>&1 ;; esac
done)
printf '%-28s %6s %6s %6s %6s\n' file lines exec ran "not"
for f in $files; do
	n=$(wc -l <"$top/$f")
	# every .gcov for this source: "count:line:text", count "-" when not
	# executable, "#####" when not run
	cat "$work/src/"*.gcov 2>/dev/null |
		awk -v src="$f" -v n="$n" '
		/^ *-: *0:Source:/ { s = $0; sub(/^.*Source:/, "", s); on = (s == src || s ~ ("(^|/)" src "$")); next }
		on {
			split($0, p, ":"); c = p[1]; gsub(/ /, "", c); l = p[2] + 0
			if (c == "-") next
			x[l] = 1
			if (c != "#####" && c != "=====") r[l] = 1
		}
		END {
			for (l in x) { e++; if (l in r) k++ }
			printf "%-28s %6d %6d %6d %6d\n", src, n, e, k, e - k
		}'
done | tee "$work/table" | LC_ALL=C sort -k5,5nr
awk '{ n += $2; e += $3; k += $4 } END {
	printf "kset-coverage: %d lines of C and headers; %d executable lines, %d of them run (%.0f%%), %d not run\n", n, e, k, e ? 100 * k / e : 0, e - k }' "$work/table"
if [ -n "$keep" ]; then
	mkdir -p "$keep"
	cp "$work/src/"*.gcov "$keep/"
	echo "kset-coverage: the gcov listings are in $keep"
fi
