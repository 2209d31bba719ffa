# Build-time comparison (issue 4): see docs/benchmarks.md.
#
#   make bench          five sample sizes, 5 repetitions: CSV and SVG in
#                       $(BENCH_OUT) (build/bench/results, not tracked);
#                       takes about an hour
#   make bench-quick    two tiny sizes, one repetition, into $(BENCH_QUICK_OUT)
#                       (build/bench/results-quick; tests/test_bench.py)
#   BENCH_QUICK=1 make bench   the same as bench-quick
#   make bench-tracer   the tracer on SQLite and Lua (Debian's sources,
#                       apt-get source) against uftrace: docs/tracing.md;
#                       TRACER_ARGS (e.g. --reps 3 --programs sqlite),
#                       work in /var/tmp/lp-tracer; about 20 minutes
#
# Variables: BENCH_OUT, BENCH_WORK (generated samples and build trees,
# /var/tmp/lp-bench/work), BENCH_ARGS (more options for bench/run.py, e.g.
# --sizes=50,400 --reps=5 --opt=-O2), BENCH_DOC (the page whose tables a
# full run rewrites, docs/benchmarks.md; empty: none).

BENCH_OUT   ?= build/bench/results
BENCH_WORK  ?= /var/tmp/lp-bench/work
BENCH_ARGS  ?=
BENCH_QUICK ?= 0
BENCH_DOC   ?= docs/benchmarks.md
BENCH_QUICK_OUT ?= build/bench/results-quick
KSRC_TAR    ?= /usr/src/linux-source-6.1.tar.xz

BENCH_TOOLS := linkpass/linkpass build/bench/readrel build/bench/recordmcount \
	       build/bench/leastwork

.PHONY: bench bench-quick bench-deps bench-report bench-tracer \
	bench-scan-baseline

TRACER_ARGS ?=

# linkpass scan against the tool of a baseline commit, on a 100,000-function
# image: interleaved pairs and callgrind (bench/scanbase.py; docs/benchmarks.md,
# section 5).  SCAN_BASE: the commit; SCAN_BASE_ARGS: e.g. --pairs 15.
SCAN_BASE      ?= 70499bd
SCAN_BASE_ARGS ?=

bench-scan-baseline: linkpass/linkpass
	$(PYTHON) bench/scanbase.py --base $(SCAN_BASE) \
		--work $(BENCH_WORK)/scanbase $(SCAN_BASE_ARGS)

bench-tracer: bench-deps all
	@mkdir -p build/bench
	$(PYTHON) bench/tracer.py --markdown build/bench/tracer.md $(TRACER_ARGS)

ifeq ($(BENCH_QUICK),1)
bench: bench-quick
else
bench: bench-deps $(BENCH_TOOLS)
	$(PYTHON) bench/run.py --out $(BENCH_OUT) --work $(BENCH_WORK) $(BENCH_ARGS)
	$(PYTHON) bench/report.py $(BENCH_OUT) $(if $(BENCH_DOC),--doc $(BENCH_DOC))
endif

bench-quick: bench-deps $(BENCH_TOOLS)
	$(PYTHON) bench/run.py --quick --out $(BENCH_QUICK_OUT) \
		--work $(BENCH_WORK)-quick $(BENCH_ARGS)
	$(PYTHON) bench/report.py $(BENCH_QUICK_OUT)

# Only redraws the tables and plots from existing CSV.
bench-report:
	$(PYTHON) bench/report.py $(BENCH_OUT) $(if $(BENCH_DOC),--doc $(BENCH_DOC))

bench-deps:
	scripts/install-deps.sh base bench

build/bench/readrel: bench/readrel.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WFLAGS) -o $@ $<

# The cost of each 5-byte entry sequence on this CPU (docs/runtime.md).
build/bench/nopbench: bench/nopbench.c include/x86-insn.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(WFLAGS) -std=gnu11 -D_GNU_SOURCE -Iinclude -o $@ $<

build/bench/leastwork: bench/leastwork.c
	@mkdir -p $(dir $@)
	$(CC) -O2 $(WFLAGS) -pthread -o $@ $<

# The kernel's own recordmcount, from Debian's linux-source-6.1: only the
# two files it needs are extracted (--occurrence stops tar at the last one).
build/bench/recordmcount.c: | $(KSRC_TAR)
	@mkdir -p build/bench/ksrc
	tar -C build/bench/ksrc -xJf $(KSRC_TAR) --occurrence=1 \
		linux-source-6.1/scripts/recordmcount.c \
		linux-source-6.1/scripts/recordmcount.h
	cp build/bench/ksrc/linux-source-6.1/scripts/recordmcount.[ch] build/bench/
	rm -rf build/bench/ksrc

build/bench/recordmcount: build/bench/recordmcount.c
	$(CC) -O2 -o $@ $<

$(KSRC_TAR):
	scripts/install-deps.sh bench
