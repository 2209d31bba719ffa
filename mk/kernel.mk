# Real kernels: Linux built stock and with the mcount tables made at
# final link by linkpass, booted in QEMU and compared.  See
# kernel/test-kernel.sh for the knobs and docs/kernel.md for results.
#
#   make test-kernel       KERNELS (entries VERSION[:ARCH][:TOOLCHAIN];
#                          default: x86_64 6.12 with gcc and clang,
#                          arm64 6.12 with gcc), one incremental round
#                          (unless LINKPASS_KERNEL_ROUNDS); the 6.1 series is applied
#                          with git am and verified, not built;
#                          `make test` runs it (SKIP_KERNEL=1 leaves it
#                          out)
#   make test-kernel-all   adds arm64 6.12 with clang, riscv64 6.12
#                          (gcc) and x86_64 6.1 with gcc and clang, with
#                          3 incremental rounds: the run docs/kernel.md
#                          reports
#
# 6.1 left make test for time: on this 2-core machine the four pairs
# with 6.1:gcc took 59 minutes of a 77-minute CI run (docs/kernel.md).

KERNELS ?= 6.12 6.12:arm64:gcc
KERNELS_ALL := 6.12 6.12:arm64 6.12:riscv64 6.1

.PHONY: test-kernel test-kernel-all

test-kernel: linkpass/linkpass
	KERNELS="$(KERNELS)" KERNELS_APPLY_ONLY=6.1 \
		LINKPASS_KERNEL_ROUNDS=$(or $(LINKPASS_KERNEL_ROUNDS),1) kernel/test-kernel.sh

test-kernel-all: linkpass/linkpass
	KERNELS="$(KERNELS_ALL)" kernel/test-kernel.sh

ifneq ($(SKIP_KERNEL),1)
test: test-kernel
endif
