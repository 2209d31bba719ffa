#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# install-deps.sh [GROUP...]: install the Debian packages a part of
# linkpass needs, only those missing.  Called by `make test`, `make demo`
# and .ci/run, so a fresh Debian 12 machine needs nothing done by hand.
# Groups: base (default: build + tests), kernel (the Linux 6.1 sample),
# bench (build-time comparison).  Needs root to install anything.
set -euo pipefail

# base is everything `make test` needs apart from the kernel: under
# CI=true a test that would skip for a missing tool fails instead
# (tests/conftest.py), so each tool a test requires is listed here:
# the shellcheck tool (test_driver.py), linux-source-6.1 (test_bench.py builds
# the kernel's recordmcount from it), linux-source-6.12 (make checkpatch
# takes scripts/checkpatch.pl from it), the aarch64 and riscv64 cross
# compilers, libcs and qemu-user (test_arch.py).  The kernel test
# (kernel/test-kernel.sh) installs what it needs itself.
declare -A groups=(
	[base]="gcc make binutils libelf-dev zlib1g-dev clang lld llvm python3-pytest valgrind libclang-rt-14-dev shellcheck musl-tools linux-source-6.1 linux-source-6.12 gcc-aarch64-linux-gnu gcc-riscv64-linux-gnu libc6-dev-arm64-cross libc6-dev-riscv64-cross qemu-user"
	[kernel]="linux-source-6.1 linux-source-6.12 qemu-system-x86 qemu-system-arm qemu-system-misc opensbi cpio bc flex bison libssl-dev xz-utils ccache libc6-dev-arm64-cross libc6-dev-riscv64-cross"
	[bench]="time valgrind linux-source-6.1 uftrace dpkg-dev tcl"
)

want=()
for g in "${@:-base}"; do
	[[ -n ${groups[$g]+x} ]] || { echo "install-deps.sh: unknown group '$g'" >&2; exit 2; }
	read -r -a pkgs <<<"${groups[$g]}"
	want+=("${pkgs[@]}")
done

missing=()
for pkg in "${want[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[[ $status == "install ok installed" ]] || missing+=("$pkg")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps.sh: installing ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
	echo "install-deps.sh: not root: install these packages first: ${missing[*]}" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
