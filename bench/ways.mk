# One build tree of a generated sample kernel, built one of six ways.
# bench/run.py drives it; it also works by hand:
#
#   make -f bench/ways.mk -C TREE SRC=DIR WAY=way [-j2] [target]
#
# WAY (how the __mcount_loc table is made):
#   floor   no table: compile with -pg -mfentry, link normally
#   whole   whole-image: link through scripts/link-vmlinux.sh
#   whole-keep  the same with --keep-relocs: the output keeps its static
#           relocations (as an x86 vmlinux linked with --emit-relocs does),
#           so the driver skips objcopy and its before/after table dumps
#   obj     per-object: `linkpass obj` on each object right after its
#           compile, one process per object (what Kbuild does)
#   rmc     per-object: the kernel's scripts/recordmcount.c, same place
#   rec     gcc -mrecord-mcount: the compiler writes the table
#
# Targets:
#   image (default)  TREE/image.out, from the objects in TREE/obj
#   compile          only the objects (with the per-object pass for obj/rmc)
#   post             what a way does after a plain compile: the per-object
#                    pass over every C object (obj, rmc), then the image.
#                    bench/run.py runs it on fresh copies of the objects
#                    compiled once, so the compile is not repeated per way.
#   image.q          the floor image linked with -q (for scan timings)
#
# Variables: OPT (-O1), CC (gcc), LINKPASS, LINK_VMLINUX, RECORDMCOUNT,
# LINK_CC (the link driver, default CC) and PASS_WRAP (a command prefix for
# the per-object pass); bench/run.py sets both to record peak memory.

TOP          := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
WAY          ?= floor
OPT          ?= -O1
LINKPASS     ?= $(TOP)/linkpass/linkpass
LINK_VMLINUX ?= $(TOP)/scripts/link-vmlinux.sh
RECORDMCOUNT ?= $(TOP)/build/bench/recordmcount
PASS_WRAP    ?=
LVFLAGS      ?=

ifeq ($(origin CC),default)
CC := gcc
endif
LINK_CC ?= $(CC)

ifndef SRC
$(error SRC= the folder written by tests/samples/gen.py)
endif
ifeq ($(filter floor whole whole-keep obj rmc rec,$(WAY)),)
$(error WAY=$(WAY): use floor, whole, whole-keep, obj, rmc or rec)
endif

# The flags of tests/samples/Makefile's default variant (gcc, GNU ld, no
# PIE, no IBT), except the optimisation level (see docs/benchmarks.md).
CFLAGS  := $(OPT) -pg -mfentry -fno-pie -fcf-protection=none -Wall -I$(SRC)
LDFLAGS := $(OPT) -fuse-ld=bfd -no-pie
ifeq ($(WAY),rec)
CFLAGS  += -mrecord-mcount
endif
ifeq ($(WAY),whole-keep)
LVFLAGS += --keep-relocs
endif

ifeq ($(WAY),obj)
PASS := $(LINKPASS) obj
else ifeq ($(WAY),rmc)
PASS := $(RECORDMCOUNT)
else
PASS :=
endif

include $(SRC)/sources.mk

COBJS := $(patsubst %,obj/%.o,$(SAMPLE_UNITS) main)
OBJS  := $(COBJS) obj/asm_fentry.o obj/fentry_stub.o

.PHONY: image compile post pass-all
image: image.out

compile: $(OBJS)

# Kbuild's rule_cc_o_c: compile, then the table pass on the same object.
obj/%.o: $(SRC)/%.c
	@mkdir -p obj
	$(CC) $(CFLAGS) -c $< -o $@
ifneq ($(PASS),)
	$(PASS_WRAP) $(PASS) $@
endif

# The assembler files have no -pg sites of their own; no pass runs on them.
obj/%.o: $(SRC)/%.S
	@mkdir -p obj
	$(CC) -fno-pie -c $< -o $@

LINK_CMD = $(LINK_CC) $(LDFLAGS) $(OBJS)

image.out: $(OBJS)
ifneq ($(filter whole whole-keep,$(WAY)),)
	LINKPASS=$(LINKPASS) $(LINK_VMLINUX) $(LVFLAGS) $@ -- $(LINK_CMD)
else
	$(LINK_CMD) -o $@
endif

image.q: $(OBJS)
	$(LINK_CMD) -Wl,-q -o $@

PASSES := $(COBJS:%=%.pass)
.PHONY: $(PASSES)
pass-all: $(PASSES)
$(PASSES): %.pass:
ifneq ($(PASS),)
	$(PASS_WRAP) $(PASS) $*
endif

post: pass-all
	@$(MAKE) --no-print-directory -f $(TOP)/bench/ways.mk SRC=$(SRC) \
		WAY=$(WAY) image
