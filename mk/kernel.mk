# Real-kernel sample (issue 5): Linux 6.1 built stock and with the mcount
# table made at final link by linkpass, both booted in QEMU and compared.
# See kernel/test-kernel.sh for the knobs and docs/kernel.md for results.
# `make test` runs it too; SKIP_KERNEL=1 leaves it out.

.PHONY: test-kernel

test-kernel: linkpass/linkpass
	kernel/test-kernel.sh

ifneq ($(SKIP_KERNEL),1)
test: test-kernel
endif
