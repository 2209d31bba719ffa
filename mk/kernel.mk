# Real kernels: Linux built stock and with the mcount tables made at
# final link by linkpass, booted in QEMU and compared.  See
# kernel/test-kernel.sh for the knobs and docs/kernel.md for results.
#
#   make test-kernel       KERNELS (entries VERSION[:ARCH][:TOOLCHAIN];
#                          default: x86_64 6.12 with gcc and clang,
#                          arm64 6.12 with gcc, x86_64 6.1 with gcc);
#                          `make test` runs it (SKIP_KERNEL=1 leaves it
#                          out)
#   make test-kernel-all   adds arm64 6.12 with clang, riscv64 6.12
#                          (gcc) and x86_64 6.1 with clang

KERNELS ?= 6.12 6.12:arm64:gcc 6.1:gcc
KERNELS_ALL := 6.12 6.12:arm64 6.12:riscv64 6.1

.PHONY: test-kernel test-kernel-all

test-kernel: linkpass/linkpass
	KERNELS="$(KERNELS)" kernel/test-kernel.sh

test-kernel-all: linkpass/linkpass
	KERNELS="$(KERNELS_ALL)" kernel/test-kernel.sh

ifneq ($(SKIP_KERNEL),1)
test: test-kernel
endif
