# lptrace.mk - lptrace, the command that records and reads the trace
# files of programs linked with liblptrace.a (one file per command,
# cmd_*.c).  It reads the files with tracefile.c and writes their text
# and JSON through the runtime's own render.c, so the formats have one
# writer; libstdc++ gives it the toolchain's own C++ demangler
# (__cxa_demangle).
#
# Included by the top-level Makefile, or used alone from the top of the
# tree: make -f lptrace/lptrace.mk

CC	?= gcc
CFLAGS	?= -O2 -g
WFLAGS	?= -Wall -Wextra -Werror

LPT_CFLAGS := $(filter-out -pg -mfentry -mrecord-mcount -mnop-mcount \
		-finstrument-functions,$(CFLAGS)) $(WFLAGS) -std=gnu11 \
		-D_GNU_SOURCE -Iinclude -Iruntime
LPT_SRCS := $(wildcard lptrace/*.c) runtime/render.c
LPT_HDRS := $(wildcard lptrace/*.h) runtime/render.h runtime/lptrace-data.h

.PHONY: lptrace lptrace-clean

lptrace: lptrace/lptrace

lptrace/lptrace: $(LPT_SRCS) $(LPT_HDRS) lptrace/lptrace.mk
	$(CC) $(LPT_CFLAGS) -o $@ $(LPT_SRCS) -lstdc++

lptrace-clean:
	rm -f lptrace/lptrace
