# Hardening: sanitizer build, fuzzing, scale and crash-safety tests.
# Included by the top-level Makefile; docs/hardening.md explains what each
# target guarantees and the figures measured with them.
#
#   make sanitize        linkpass with ASan+UBSan in build/asan/, and the
#                        malformed-input, crash-safety, thread, scan and
#                        nop tests run against it
#   make tsan            linkpass with TSan in build/tsan/, and the
#                        threaded-scan and stripped-objects tests
#                        run against it
#   make fuzz            every libFuzzer harness for FUZZ_SECONDS (300)
#   make fuzz-smoke      a seeded run of FUZZ_SMOKE_RUNS inputs each
#                        (capped at 120 s; part of test-hardening)
#   make test-hardening  sanitize + tsan + fuzz-smoke (1-2 minutes)
#   make test-scale      the 1,000,000-site image (slow: 1-2 minutes)

SAN_CC       ?= clang
SAN_FLAGS    := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
		-fno-sanitize-recover=all
# Read sections into buffers of their own size, so ASan sees overruns
# (see IMAGE_ELF_CMD in linkpass/image.c).
SAN_DEFS     := -DIMAGE_ELF_CMD=ELF_C_READ
FUZZ_SECONDS ?= 300
FUZZ_SMOKE_SECONDS ?= 120
FUZZ_SMOKE_RUNS ?= 20000
FUZZ_SMOKE_SEED ?= 1

ASAN_OBJS := $(patsubst linkpass/%.c,build/asan/%.o,$(LP_SRCS))
# The fuzz harnesses link everything but main.c.
FUZZ_LP_OBJS := $(patsubst linkpass/%.c,build/fuzz/lp/%.o,\
		$(filter-out linkpass/main.c,$(LP_SRCS)))
FUZZ_HARNESSES := image obj
FUZZ_BINS := $(patsubst %,build/fuzz/fuzz_%,$(FUZZ_HARNESSES))

# Tests run against the sanitizer build: each takes the binary from
# LINKPASS_BIN (hardening tests) or LINKPASS (tests/conftest.py).
SANITIZE_TESTS ?= tests/test_malformed.py tests/test_crash_safety.py \
		  tests/test_threads.py tests/test_scan.py tests/test_nop.py

# Sanitizer reports must fail the run (exit status 99), leaks included.
SAN_RUN_ENV := ASAN_OPTIONS=exitcode=99:detect_leaks=1 \
	       UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=99 \
	       LSAN_OPTIONS=exitcode=99

.PHONY: sanitize tsan fuzz fuzz-smoke fuzz-build fuzz-seeds \
	test-hardening test-scale

build/asan/%.o: linkpass/%.c $(LP_HDRS)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(SAN_FLAGS) $(SAN_DEFS) $(WFLAGS) -std=gnu11 -D_GNU_SOURCE -Iinclude \
		-c $< -o $@

build/asan/linkpass: $(ASAN_OBJS)
	$(SAN_CC) $(SAN_FLAGS) -o $@ $(ASAN_OBJS) -lelf -lz -lpthread

sanitize: build/asan/linkpass
	$(SAN_RUN_ENV) LINKPASS_BIN=$(CURDIR)/build/asan/linkpass \
		LINKPASS=$(CURDIR)/build/asan/linkpass \
		$(PYTHON) -m pytest -q $(SANITIZE_TESTS)

# ThreadSanitizer on the threaded relocation scan and the
# stripped-objects check's thread.
TSAN_OBJS := $(patsubst linkpass/%.c,build/tsan/%.o,$(LP_SRCS))

build/tsan/%.o: linkpass/%.c $(LP_HDRS)
	@mkdir -p $(dir $@)
	$(SAN_CC) -O1 -g -fsanitize=thread $(WFLAGS) -std=gnu11 -D_GNU_SOURCE -Iinclude \
		-c $< -o $@

build/tsan/linkpass: $(TSAN_OBJS)
	$(SAN_CC) -O1 -g -fsanitize=thread -o $@ $(TSAN_OBJS) -lelf -lz -lpthread

tsan: build/tsan/linkpass
	TSAN_OPTIONS=halt_on_error=1:exitcode=99 \
		LINKPASS_BIN=$(CURDIR)/build/tsan/linkpass \
		$(PYTHON) -m pytest -q tests/test_threads.py
	# the stripped-objects check on its own thread (-j2), with and
	# without a refusal
	TSAN_OPTIONS=halt_on_error=1:exitcode=99 \
		LINKPASS=$(CURDIR)/build/tsan/linkpass \
		$(PYTHON) -m pytest -q tests/test_discard_locals.py \
		-k "stripped_static_is_refused or overridden_weak_stays_dropped"

# --- fuzzing (libFuzzer: clang only) ---------------------------------

build/fuzz/lp/%.o: linkpass/%.c $(LP_HDRS)
	@mkdir -p $(dir $@)
	$(SAN_CC) $(SAN_FLAGS) -fsanitize=fuzzer-no-link $(SAN_DEFS) $(WFLAGS) \
		-std=gnu11 -D_GNU_SOURCE -Iinclude -c $< -o $@

# (a static pattern rule, so make keeps the objects between builds)
$(FUZZ_BINS): build/fuzz/fuzz_%: fuzz/fuzz_%.c fuzz/fuzz_common.c \
		fuzz/fuzz_common.h $(FUZZ_LP_OBJS) $(LP_HDRS)
	$(SAN_CC) $(SAN_FLAGS) -fsanitize=fuzzer $(SAN_DEFS) $(WFLAGS) \
		-std=gnu11 -D_GNU_SOURCE -Iinclude -Ilinkpass $< \
		fuzz/fuzz_common.c $(FUZZ_LP_OBJS) \
		-o $@ -lelf -lz -lpthread

fuzz-build: $(FUZZ_BINS)

# Seeds: small real images and the malformed corpus, made fresh, never
# committed (fuzz/run.sh also reads fuzz/seeds/ should one be added).
build/fuzz/seeds/.done: fuzz/make-seeds.sh tests/hardening/malform.py \
		linkpass/linkpass
	fuzz/make-seeds.sh build/fuzz/seeds
	@touch $@

fuzz-seeds: build/fuzz/seeds/.done

# Each harness runs for FUZZ_SECONDS on its own growing corpus in
# build/fuzz/corpus-NAME; a crash leaves build/fuzz/artifacts/NAME-crash-*
# and fails the target.  Every run adds its execution count and time to
# build/fuzz/history.tsv (see docs/hardening.md).  One run at a time.
fuzz: fuzz-build fuzz-seeds
	fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_HARNESSES)

fuzz-smoke: fuzz-build fuzz-seeds
	FUZZ_SEED=$(FUZZ_SMOKE_SEED) FUZZ_RUNS=$(FUZZ_SMOKE_RUNS) \
		fuzz/run.sh $(FUZZ_SMOKE_SECONDS) $(FUZZ_HARNESSES)

test-hardening: sanitize tsan fuzz-smoke

# --- scale ----------------------------------------------------------

test-scale: linkpass/linkpass
	LINKPASS_SCALE=1 $(PYTHON) -m pytest -q -s -m slow tests/hardening/test_scale.py
