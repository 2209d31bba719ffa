# Real kernels: Linux built stock and with the mcount tables made at
# final link by linkpass, booted in QEMU and compared.  See
# kernel/test-kernel.sh for the knobs and docs/kernel.md for results.
#
#   make test-kernel       KERNELS (entries VERSION[:ARCH][:TOOLCHAIN];
#                          default: x86_64 6.12 with gcc, arm64 6.12
#                          with gcc), one incremental round (unless
#                          LINKPASS_KERNEL_ROUNDS); the sorttable fix
#                          reproduced on a stock-only x86_64 6.12 clang
#                          build; the 6.1 series applied with git am
#                          and verified, not built.  `make test` runs
#                          it (SKIP_KERNEL=1 leaves it out)
#   make test-kernel-all   adds x86_64 6.12 with clang (stock and ours,
#                          the sorttable fix among its checks), arm64
#                          6.12 with clang, riscv64 6.12 (gcc) and
#                          x86_64 6.1 with gcc and clang, with 3
#                          incremental rounds: the run docs/kernel.md
#                          reports
#
# make test's kernels are cut to fit its hour on this 2-core machine:
# 6.1 left it after a 77-minute CI run, our x86_64 clang build after a
# 64-minute one; the next two runs took 51 and 55 minutes
# (docs/kernel.md).

KERNELS ?= 6.12:gcc 6.12:arm64:gcc
KERNELS_SORTTABLE_FIX ?= 6.12:x86_64:clang
KERNELS_ALL := 6.12 6.12:arm64 6.12:riscv64 6.1

.PHONY: test-kernel test-kernel-all

test-kernel: linkpass/linkpass
	KERNELS="$(KERNELS)" KERNELS_APPLY_ONLY=6.1 \
		KERNELS_SORTTABLE_FIX="$(KERNELS_SORTTABLE_FIX)" \
		LINKPASS_KERNEL_ROUNDS=$(or $(LINKPASS_KERNEL_ROUNDS),1) kernel/test-kernel.sh

test-kernel-all: linkpass/linkpass
	KERNELS="$(KERNELS_ALL)" kernel/test-kernel.sh

ifneq ($(SKIP_KERNEL),1)
test: test-kernel
endif
