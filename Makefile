# linkpass: top-level build.  `make` builds the tool, `make test` runs the
# whole pytest suite, `make demo` runs the sample-kernel demo.

CC      ?= gcc
CFLAGS  ?= -O2 -g
WFLAGS  := -Wall -Wextra -Werror
# linkpass/ keeps the kernel's host-program warnings too
# (KBUILD_USERHOSTCFLAGS)
LP_WFLAGS := $(WFLAGS) -Wmissing-prototypes -Wstrict-prototypes
PYTHON  ?= /usr/bin/python3

LP_SRCS := $(wildcard linkpass/*.c)
LP_HDRS := $(wildcard linkpass/*.h include/*.h)
LP_OBJS := $(patsubst linkpass/%.c,build/linkpass/%.o,$(LP_SRCS))

.PHONY: all test deps clean

all: linkpass/linkpass runtime lptrace build/bench/nopbench

# Debian packages the build and the tests need (installs only missing ones).
deps:
	scripts/install-deps.sh base

build/linkpass/%.o: linkpass/%.c $(LP_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LP_WFLAGS) -std=gnu11 -D_GNU_SOURCE -Iinclude -c $< -o $@

linkpass/linkpass: $(LP_OBJS)
	$(CC) $(CFLAGS) -o $@ $(LP_OBJS) -lelf -lz -lpthread

# The pytest suite, then the sanitizer builds, fuzz smoke run and
# malformed-input corpus under them (mk/hardening.mk).
test: deps all
	$(PYTHON) -m pytest -q -rs tests
	$(MAKE) test-hardening

clean: runtime-clean lptrace-clean
	rm -rf build linkpass/linkpass

# Parts that bring their own rules: the runtime library, the lptrace
# command, and the hardening, kernel and bench targets in mk/.
include runtime/runtime.mk
include lptrace/lptrace.mk
-include mk/*.mk

# The main job: a sample kernel linked through the driver, NOP'd and traced.
.PHONY: demo
demo:
	demo/run.sh

# Run-time overhead of the NOP'd and traced sample workload (docs/runtime.md).
.PHONY: bench-overhead
bench-overhead: all
	$(PYTHON) bench/overhead.py --markdown build/overhead.md
