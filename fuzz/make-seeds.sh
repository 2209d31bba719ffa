#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make-seeds.sh OUTDIR: the fuzz seed corpus, made fresh from small real
# images (nothing here is committed but this script):
#   - the malformed-input corpus of tests/hardening/malform.py, which
#     includes the valid images it starts from (x86_64 PIE with a table,
#     with -g, without -q, stripped, compressed debug sections);
#   - a non-PIE image and an i386 image (Rel relocations, 4-byte
#     entries), each with its table linked in, when the toolchain can,
#     and their objects before and after linkpass obj;
#   - aarch64 and riscv64 -pg images, and aarch64 and x86_64
#     -fpatchable-function-entry images, before and after their table;
#   - the non-PIE image linked from a strip -x'd object (refused).
set -euo pipefail

out=${1:?usage: make-seeds.sh OUTDIR}
here=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
repo=$(dirname -- "$here")
linkpass=${LINKPASS_BIN:-$repo/linkpass/linkpass}
work=$(mktemp -d)
trap 'rm -rf -- "$work"' EXIT

rm -rf -- "$out"
mkdir -p -- "$out"

/usr/bin/python3 "$repo/tests/hardening/malform.py" "$work/corpus" "$linkpass" >/dev/null
for f in "$work"/corpus/cases/*; do
	[[ -f $f ]] && cp -- "$f" "$out/malformed-$(basename -- "$f")"
done

# The one stub of the mcount entry points (each just returns).
stub=$(cat "$repo/tests/mcount-stubs.S")
cat >"$work/s.c" <<'C'
extern char __start___mcount_loc[] __attribute__((weak));
extern char __stop___mcount_loc[] __attribute__((weak));
__attribute__((weak)) int weak_fn(int x) { return x - 1; }
static __attribute__((noinline)) int helper(int x) { return weak_fn(x) * 5; }
__attribute__((noinline)) int entry(int x) { return helper(x) + 1; }
int main(void) { return entry(3) + (int)(__stop___mcount_loc - __start___mcount_loc); }
C
cat >"$work/w.c" <<'C'
int weak_fn(int x) { return x + 1; }
C

# build NAME "CFLAGS" -- LINK...: compile s.c, w.c and the stub, link
# with -q, scan, link again with the table; keep both links as seeds.
build() {
	local name=$1 cflags asflags
	read -r -a cflags <<<"$2"
	read -r -a asflags <<<"${2/-pg -mfentry/}"
	shift 3
	gcc "${cflags[@]}" -c "$work/s.c" -o "$work/$name-s.o" &&
	gcc "${cflags[@]}" -c "$work/w.c" -o "$work/$name-w.o" &&
	printf '%s\n' "$stub" | gcc "${asflags[@]}" -x assembler -c - \
		-o "$work/$name-stub.o" &&
	"$@" "$work/$name-s.o" "$work/$name-w.o" "$work/$name-stub.o" \
		-o "$out/$name-pass1" &&
	"$linkpass" scan "$out/$name-pass1" -o "$work/$name-t.o" &&
	"$@" "$work/$name-s.o" "$work/$name-w.o" "$work/$name-stub.o" \
		"$work/$name-t.o" -o "$out/$name-table" &&
	# objects for the per-object harness: as compiled, and with the
	# table linkpass obj adds
	cp -- "$work/$name-s.o" "$out/obj-$name-s.o" &&
	cp -- "$work/$name-w.o" "$out/obj-$name-w.o" &&
	"$linkpass" obj "$work/$name-s.o" &&
	cp -- "$work/$name-s.o" "$out/obj-$name-s-table.o"
}

build nopie "-pg -mfentry -O2 -fno-pie" -- gcc -no-pie -Wl,-q ||
	echo "make-seeds.sh: no non-PIE seed" >&2
# s.o stripped with strip -x before the link: its static helper() has no
# symbol and is called, so scan refuses the image (linkpass/stripped.c)
strip -x -o "$work/nopie-s-x.o" "$out/obj-nopie-s.o" &&
	gcc -no-pie -Wl,-q "$work/nopie-s-x.o" "$work/nopie-w.o" \
		"$work/nopie-stub.o" -o "$out/nopie-stripped-objects" ||
	echo "make-seeds.sh: no stripped-objects seed" >&2
build i386 "-m32 -ffreestanding -fno-pie -pg -mfentry -O2" -- \
	ld -m elf_i386 -q -e main 2>/dev/null ||
	echo "make-seeds.sh: no i386 seed (no 32-bit toolchain)" >&2

# cross NAME TRIPLET "CFLAGS": an aarch64 or riscv64 image (its _mcount
# call after the prologue, or -fpatchable-function-entry lists), before
# and after its table.
cross() {
	local name=$1 cc=$2-gcc scan_opt=()
	local cflags
	read -r -a cflags <<<"$3"
	[[ $3 == *patchable* ]] && scan_opt=(--patchable-entries)
	command -v "$cc" >/dev/null 2>&1 || return 1
	printf '\t.globl _mcount\n_mcount:\n\tret\n\t.section .note.GNU-stack,"",@progbits\n' |
		"$cc" -x assembler -c - -o "$work/$name-stub.o" &&
	"$cc" "${cflags[@]}" -c "$work/s.c" -o "$work/$name-s.o" &&
	"$cc" "${cflags[@]}" -c "$work/w.c" -o "$work/$name-w.o" &&
	"$cc" -Wl,-q "$work/$name-s.o" "$work/$name-w.o" "$work/$name-stub.o" \
		-o "$out/$name-pass1" &&
	"$linkpass" scan "${scan_opt[@]}" "$out/$name-pass1" -o "$work/$name-t.o" &&
	"$cc" -Wl,-q "$work/$name-s.o" "$work/$name-w.o" "$work/$name-stub.o" \
		"$work/$name-t.o" -o "$out/$name-table"
}

cross aarch64 aarch64-linux-gnu "-pg -O2" &&
cross aarch64-pfe aarch64-linux-gnu "-fpatchable-function-entry=4,2 -O2" &&
cross riscv64 riscv64-linux-gnu "-pg -O2" ||
	echo "make-seeds.sh: no aarch64/riscv64 seeds (no cross compilers)" >&2
cross x86_64-pfe x86_64-linux-gnu "-fpatchable-function-entry=5 -O2" ||
	echo "make-seeds.sh: no x86_64 patchable-entry seed" >&2

echo "make-seeds.sh: $(find "$out" -type f | wc -l) seeds, $(du -sk -- "$out" | cut -f1) KB in $out"
