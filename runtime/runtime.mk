# runtime.mk - liblptrace.a, the run-time patcher and tracer (the library
# only: the lptrace command is lptrace/lptrace.mk, nopbench is bench's).
#
# Included by the top-level Makefile, after its `all:` rule so that the
# default goal stays there:
#	include runtime/runtime.mk
# or used alone from the top of the tree:
#	make -f runtime/runtime.mk
#
# The library is never built with -pg: its code must not call __fentry__
# (the recorder would trace itself).  record.c, the hot path, is built
# with -mgeneral-regs-only because the trampoline saves no vector
# registers.

CC	?= gcc
CFLAGS	?= -O2 -g
WFLAGS	?= -Wall -Wextra -Werror
AR	?= ar

RT_NOTRACE_FLAGS := -pg -mfentry -mrecord-mcount -mnop-mcount -finstrument-functions
RT_CFLAGS := $(filter-out $(RT_NOTRACE_FLAGS),$(CFLAGS)) $(WFLAGS) \
	     -std=gnu11 -D_GNU_SOURCE -fPIC -Iinclude

RT_LIB_SRCS := $(wildcard runtime/*.c)
RT_HDRS := $(wildcard runtime/*.h include/*.h)
RT_OBJS := $(patsubst runtime/%.c,build/runtime/%.o,$(RT_LIB_SRCS)) \
	   build/runtime/entry.o

.PHONY: runtime runtime-clean

runtime: runtime/liblptrace.a runtime/lptrace-dso.o

build/runtime/%.o: runtime/%.c $(RT_HDRS) runtime/runtime.mk
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c $< -o $@

build/runtime/record.o build/runtime/graph.o: RT_CFLAGS += -mgeneral-regs-only

build/runtime/entry.o: runtime/entry.S runtime/hotpath.h runtime/runtime.mk
	@mkdir -p $(dir $@)
	$(CC) $(RT_CFLAGS) -c $< -o $@

runtime/liblptrace.a: $(RT_OBJS)
	rm -f $@
	$(AR) rcs $@ $(RT_OBJS)

# Linked into each traced shared library: its own hidden __fentry__.
runtime/lptrace-dso.o: runtime/dso-fentry.S runtime/runtime.mk
	$(CC) $(RT_CFLAGS) -c $< -o $@

runtime-clean:
	rm -rf build/runtime runtime/liblptrace.a runtime/lptrace-dso.o
