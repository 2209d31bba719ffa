#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel/prewrite.sh BUILD_DIR OUT
#
# Writes OUT: the series' vmlinux as its final link made it, before
# "linkpass --check --nop" wrote the sites' link-time states (x86's
# NOPs, arm64's and riscv's boot states) into it.  That image is gone
# after the build; it is rebuilt here from two files the build leaves:
#
#   vmlinux.unstripped   the final link, its table exact, its sites written
#   .tmp_vmlinuxN        the last kallsyms link: the same layout (kallsyms'
#                        own invariant), the sites as compiled, but the
#                        table of the link before it, which is stale where
#                        code moved (arm64's .init.text after .rodata)
#
# OUT is a copy of vmlinux.unstripped whose code sections' bytes, and
# their static relocations where the link kept them (x86's
# --emit-relocs, whose __fentry__ calls --nop turns to R_X86_64_NONE),
# are the last kallsyms link's.  Every allocated section, and each such
# relocation section, must have the same address, file offset and size
# in both, or it fails (exit 2, one line): then the two are not one
# layout and no such image can be made.
set -euo pipefail

die() { printf 'prewrite.sh: %s\n' "$*" >&2; exit 2; }
[ $# = 2 ] || die "usage: prewrite.sh BUILD_DIR OUT"
b=$1 out=$2
final=$b/vmlinux.unstripped
last=$(find "$b" -maxdepth 1 -name '.tmp_vmlinux[0-9]' | sort | tail -n 1)
[ -e "$final" ] || die "$b: no vmlinux.unstripped"
[ -n "$last" ] || die "$b: no kallsyms link (.tmp_vmlinuxN)"

# name addr offset size flags of each allocated section with file bytes
# and of each code section's relocations (flags "R")
sections() {
	readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] //p' | awk '
		$2 != "NOBITS" && $2 != "NULL" && $7 ~ /A/ {
			print $1, $3, $4, $5, $7
			if ($7 ~ /X/)
				code[$1] = 1
		}
		$2 == "RELA" || $2 == "REL" { rel[$1] = $1 " " $3 " " $4 " " $5 " R" }
		END {
			for (r in rel) {
				t = r
				sub(/^\.rela?/, "", t)
				if (t in code)
					print rel[r]
			}
		}' | LC_ALL=C sort
}
fs=$(sections "$final") || die "$final: readelf failed"
ls_=$(sections "$last") || die "$last: readelf failed"
[ "$fs" = "$ls_" ] ||
	die "$last and $final: the allocated sections differ (not one layout)"

tmp=$out.tmp.$$
trap 'rm -f "$tmp"' EXIT
cp "$final" "$tmp"
n=0
while read -r name _ off size flags; do
	case $flags in *X* | R) ;; *) continue ;; esac
	# offsets and sizes are hex; dd counts in bytes
	dd if="$last" of="$tmp" bs=64K iflag=skip_bytes,count_bytes \
		oflag=seek_bytes conv=notrunc status=none \
		skip=$((16#$off)) seek=$((16#$off)) count=$((16#$size)) ||
		die "$name: copying its bytes failed"
	n=$((n + 1))
done <<<"$fs"
[ "$n" -gt 0 ] || die "$final: no code section"
mv "$tmp" "$out"
trap - EXIT
