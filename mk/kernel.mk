# Real kernels (issues 5 and 9): Linux built stock and with the mcount
# tables made at final link by linkpass, booted in QEMU and compared.
# See kernel/test-kernel.sh for the knobs and docs/kernel.md for results.
#
#   make test-kernel       KERNELS (default "6.12 6.1:gcc"): 6.12 with
#                          modules for gcc and clang, 6.1 tinyconfig for
#                          gcc; `make test` runs it (SKIP_KERNEL=1 leaves
#                          it out)
#   make test-kernel-all   every version with both toolchains
#                          ("6.12 6.1"; about 15 minutes more)

KERNELS ?= 6.12 6.1:gcc

.PHONY: test-kernel test-kernel-all

test-kernel: linkpass/linkpass
	KERNELS="$(KERNELS)" kernel/test-kernel.sh

test-kernel-all: linkpass/linkpass
	KERNELS="6.12 6.1" kernel/test-kernel.sh

ifneq ($(SKIP_KERNEL),1)
test: test-kernel
endif
