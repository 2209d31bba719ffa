# Real kernels: Linux built stock and with the mcount tables made at
# final link by linkpass, booted in QEMU and compared.  See
# kernel/test-kernel.sh for the knobs and docs/kernel.md for results.
#
#   make test-kernel       KERNELS (entries VERSION[:ARCH][:TOOLCHAIN];
#                          default: 7.3 x86_64 and arm64 with gcc), one
#                          incremental round (unless
#                          LINKPASS_KERNEL_ROUNDS), and the sorttable
#                          fix reproduced on a stock-only x86_64 6.12
#                          clang build (7.3 needs clang >= 17; bookworm
#                          has 14).  `make test` runs it (SKIP_KERNEL=1
#                          leaves it out)
#   make test-kernel-all   7.3 (x86_64, arm64, riscv64; gcc), and the
#                          backports: 6.12 (x86_64 and arm64 with gcc
#                          and clang, riscv64 gcc) and x86_64 6.1 (gcc
#                          and clang), with 3 incremental rounds: the
#                          run docs/kernel.md reports
#   make test-kernel-big   7.3 x86_64 gcc with kernel/config.sh's big
#                          profile (defconfig, debug info and BTF,
#                          about 300 modules), one incremental round
#   make test-ftracetest   the kernel's own ftracetest on the 7.3 x86_64
#                          gcc pair, stock and ours, verdicts compared
#                          case by case (kernel/test-ftracetest.sh;
#                          two boots of 15-20 minutes each under TCG,
#                          plus the builds; not part of make test)
#
# make test's kernels are cut to fit its hour on this 2-core machine:
# the backports run in test-kernel-all only (KERNELS_APPLY_ONLY=6.12
# adds a git am check of a backport to test-kernel; docs/kernel.md says
# what each part costs).

KERNELS ?= 7.3:gcc 7.3:arm64:gcc
KERNELS_SORTTABLE_FIX ?= 6.12:x86_64:clang
KERNELS_APPLY_ONLY ?=
KERNELS_ALL := 7.3:gcc 7.3:arm64:gcc 7.3:riscv64:gcc 6.12 6.12:arm64 6.12:riscv64 6.1

.PHONY: test-kernel test-kernel-all test-kernel-big test-ftracetest series

# The kernel patch series, written into build/series/VERSION/: the
# tool's patches made from linkpass/ (kernel/series/tool/), then the
# hand-written ones of kernel/series/VERSION/ (kernel/series.sh).
SERIES_VERSIONS := $(notdir $(patsubst %/cover.txt,%,$(wildcard kernel/series/*/cover.txt)))
series:
	@for v in $(SERIES_VERSIONS); do \
		kernel/series.sh generate $$v build/series/$$v || exit; \
	done

test-kernel: linkpass/linkpass
	KERNELS="$(KERNELS)" KERNELS_APPLY_ONLY="$(KERNELS_APPLY_ONLY)" \
		KERNELS_SORTTABLE_FIX="$(KERNELS_SORTTABLE_FIX)" \
		LINKPASS_KERNEL_ROUNDS=$(or $(LINKPASS_KERNEL_ROUNDS),1) kernel/test-kernel.sh

test-kernel-all: linkpass/linkpass
	KERNELS="$(KERNELS_ALL)" kernel/test-kernel.sh

KERNELS_BIG ?= 7.3:gcc
test-kernel-big: linkpass/linkpass
	KERNELS="$(KERNELS_BIG)" KERNELS_SORTTABLE_FIX= LINKPASS_KERNEL_PROFILE=big \
		LINKPASS_KERNEL_ROUNDS=$(or $(LINKPASS_KERNEL_ROUNDS),1) kernel/test-kernel.sh

test-ftracetest:
	kernel/test-ftracetest.sh

ifneq ($(SKIP_KERNEL),1)
test: test-kernel
endif
