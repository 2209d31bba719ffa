# The mutation run of the in-tree tool (tests/mutation/mutate.py): source
# mutants of kernel/linkpass/*.c, each built and run against
# tests/test_kernel_tool*.py; the score and the survivors in
# build/mutate-kernel-tool/report.txt (docs/kernel.md, "Mutation run of
# the in-tree tool").  Not part of `make test`.
#
#   make mutate-kernel-tool                      every file, 2 jobs
#   MUTATE_ARGS="--only sites.c --jobs 1" make mutate-kernel-tool

MUTATE_ARGS ?=

.PHONY: mutate-kernel-tool
mutate-kernel-tool:
	$(PYTHON) tests/mutation/mutate.py $(MUTATE_ARGS)
