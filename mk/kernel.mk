# Real kernels: Linux built stock and with the mcount tables made at
# final link by linkpass, booted in QEMU and compared.  See
# kernel/test-kernel.sh for the knobs and docs/kernel.md for results.
#
#   make test-kernel       KERNELS (entries VERSION[:ARCH][:TOOLCHAIN];
#                          default: 7.3 x86_64 with gcc 14 and arm64
#                          with clang 19, built in the trixie root of
#                          kernel/buildroot.sh), one incremental round
#                          (unless LINKPASS_KERNEL_ROUNDS), and the
#                          sorttable fix reproduced on a stock-only
#                          7.3 x86_64 clang 19 build.  `make test` runs
#                          it (SKIP_KERNEL=1 leaves it out)
#   make test-kernel-all   7.3 with every toolchain: gcc 12 (x86_64,
#                          arm64, riscv64), gcc 14 (the same, riscv64
#                          with RVC), clang 19 and clang 19 ThinLTO
#                          (x86_64, arm64); the backports 6.12 (x86_64,
#                          arm64, riscv64) and 6.1 (x86_64) with gcc 12;
#                          3 incremental rounds
#   make test-kernel-debug kernel/config.sh's debug profile (distro
#                          with DWARF and BTF): 7.3 arm64 with gcc 14,
#                          one incremental round
#   make test-kernel-big   kernel/config.sh's big profile (defconfig,
#                          debug info and BTF, about 300 modules): 7.3
#                          x86_64 with gcc 12 and arm64 with gcc 14,
#                          one incremental round
#   make test-ftracetest   the kernel's own ftracetest on the 7.3 x86_64
#                          gcc pair, stock and ours, verdicts compared
#                          case by case (kernel/test-ftracetest.sh;
#                          two boots of 15-20 minutes each under TCG,
#                          plus the builds; not part of make test)
#
# make test's kernels are cut to fit its hour on this 2-core machine
# (docs/kernel.md says what each part costs; KERNELS_APPLY_ONLY=6.12
# adds a git am check of a backport to test-kernel).

KERNELS ?= 7.3:gcc14 7.3:arm64:clang19
KERNELS_SORTTABLE_FIX ?= 7.3:x86_64:clang19
KERNELS_APPLY_ONLY ?=
KERNELS_ALL := 7.3:gcc 7.3:arm64:gcc 7.3:riscv64:gcc \
	7.3:gcc14 7.3:arm64:gcc14 7.3:riscv64:gcc14 \
	7.3:clang19 7.3:arm64:clang19 7.3:clang19-lto 7.3:arm64:clang19-lto \
	6.12 6.12:arm64 6.12:riscv64 6.1

.PHONY: test-kernel test-kernel-all test-kernel-debug test-kernel-big test-ftracetest series kernel-alternatives

# The kernel patch series, written into build/series/VERSION/: the
# tracked patches of kernel/series/VERSION/ with their cover letter
# (kernel/series.sh).
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

KERNELS_DEBUG ?= 7.3:arm64:gcc14
test-kernel-debug: linkpass/linkpass
	KERNELS="$(KERNELS_DEBUG)" KERNELS_SORTTABLE_FIX= LINKPASS_KERNEL_PROFILE=debug \
		LINKPASS_KERNEL_ROUNDS=$(or $(LINKPASS_KERNEL_ROUNDS),1) kernel/test-kernel.sh

KERNELS_BIG ?= 7.3:gcc 7.3:arm64:gcc14
test-kernel-big: linkpass/linkpass
	KERNELS="$(KERNELS_BIG)" KERNELS_SORTTABLE_FIX= LINKPASS_KERNEL_PROFILE=big \
		LINKPASS_KERNEL_ROUNDS=$(or $(LINKPASS_KERNEL_ROUNDS),1) kernel/test-kernel.sh

test-ftracetest:
	kernel/test-ftracetest.sh

# The ways of making vmlinux's table measured side by side on 7.3 x86_64
# and arm64 (kernel/alternatives.sh; after a make test-kernel-all or a
# test-kernel run with 7.3:gcc and 7.3:arm64:gcc, whose pairs it takes;
# not part of make test)
kernel-alternatives: linkpass/linkpass
	kernel/alternatives.sh

ifneq ($(SKIP_KERNEL),1)
test: test-kernel
endif
