# checkpatch: the in-tree tool kernel/linkpass/ (scripts/linkpass/ of the
# series), every patch of the kernel series and of kernel/fixes/, and, as
# the project's house style, linkpass/ and the include/ headers, must pass
# the kernel's scripts/checkpatch.pl --strict --no-tree with no error and
# no warning, as a maintainer runs it on them
# (scripts/checkpatch-linkpass.sh; the CHECKs left and why:
# docs/design.md, "Kernel style").
#
#   make checkpatch   uses CHECKPATCH, else the kernel test's unpacked
#                     linux-source-6.12 (CHECKPATCH_SRC), else the three
#                     files it needs from Debian's /usr/src tarball
#                     (linux-source-6.12, a kernel test dependency:
#                     scripts/install-deps.sh kernel), else skips, saying why

CHECKPATCH_SRC ?= /var/tmp/linkpass-kernel/src/linux-source-6.12
CHECKPATCH_TAR ?= /usr/src/linux-source-6.12.tar.xz
CHECKPATCH_FILES := $(wildcard kernel/linkpass/*.c kernel/linkpass/*.h) \
		    $(wildcard linkpass/*.c linkpass/*.h) \
		    include/x86-insn.h include/mcount-table.h \
		    $(filter-out %/0000-cover-letter.patch,\
			$(wildcard kernel/series/*/0*.patch)) \
		    $(wildcard kernel/fixes/*/*.patch) \
		    $(wildcard kernel/sorttable-fix/*/*.patch)
ifeq ($(wildcard $(CHECKPATCH_SRC)/scripts/checkpatch.pl),)
CHECKPATCH ?= build/checkpatch/linux-source-6.12/scripts/checkpatch.pl
else
CHECKPATCH ?= $(CHECKPATCH_SRC)/scripts/checkpatch.pl
endif

.PHONY: checkpatch

# checkpatch.pl reads spelling.txt and const_structs.checkpatch from its
# own folder; --occurrence stops tar at the last of the three.
build/checkpatch/%/scripts/checkpatch.pl:
	@mkdir -p build/checkpatch
	tar -C build/checkpatch -xJf $(CHECKPATCH_TAR) --occurrence=1 \
		$*/scripts/checkpatch.pl $*/scripts/spelling.txt \
		$*/scripts/const_structs.checkpatch

# The newest series must also apply to its kernel, and carry
# kernel/linkpass/ as it is (kernel/series.sh generate, which needs the
# kernel's source: fetched once into the kernel test's cache).
CHECKPATCH_SERIES ?= 7.3

checkpatch:
	@if [ ! -f $(CHECKPATCH) ] && [ ! -f $(CHECKPATCH_TAR) ]; then \
		echo "checkpatch: skipped: no $(CHECKPATCH) and no $(CHECKPATCH_TAR) (scripts/install-deps.sh kernel installs linux-source-6.12)"; \
		exit 0; \
	fi; \
	$(MAKE) -s $(CHECKPATCH) && \
	kernel/series.sh generate $(CHECKPATCH_SERIES) build/series/$(CHECKPATCH_SERIES) && \
	scripts/checkpatch-linkpass.sh $(abspath $(CHECKPATCH)) $(CHECKPATCH_FILES)

# make test checks the style too (it skips when no source is at hand)
test: checkpatch
