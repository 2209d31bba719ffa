# demo.mk: compile a generated sample kernel and link it with demo.c and
# the runtime through scripts/link-vmlinux.sh.  Driven by demo/run.sh.
#   make -f demo/demo.mk TOP=<repo> OUT=<dir> [CC=gcc] [LD=bfd] objects|link

CC  ?= gcc
LD  ?= bfd
SRC := $(OUT)/src
OBJ := $(OUT)/obj

# The sample's flags (tests/samples/Makefile): traced, kernel-like
# integer-only code, non-PIE like a kernel.
CFLAGS_SAMPLE := -O2 -pg -mfentry -mgeneral-regs-only -fno-pie \
		 -fcf-protection=none -I$(SRC)

include $(SRC)/sources.mk

OBJS := $(patsubst %,$(OBJ)/%.o,$(SAMPLE_UNITS)) $(OBJ)/main.o \
	$(OBJ)/asm_fentry.o $(OBJ)/demo.o

.PHONY: objects link
objects: $(OBJS)

$(OBJ)/%.o: $(SRC)/%.c
	$(CC) $(CFLAGS_SAMPLE) -c $< -o $@

# The sample's main() becomes sample_main: demo.c has the real one.
$(OBJ)/main.o: $(SRC)/main.c
	$(CC) $(CFLAGS_SAMPLE) -Dmain=sample_main -c $< -o $@

$(OBJ)/asm_fentry.o: $(SRC)/asm_fentry.S
	$(CC) -fno-pie -c $< -o $@

$(OBJ)/demo.o: $(TOP)/demo/demo.c $(TOP)/runtime/lptrace.h
	$(CC) -O2 -Wall -Wextra -fno-pie -I$(TOP)/runtime -c $< -o $@

link: $(OBJS)
	LINKPASS=$(TOP)/linkpass/linkpass $(TOP)/scripts/link-vmlinux.sh \
		$(OUT)/demo -- $(CC) -fuse-ld=$(LD) -no-pie $(OBJS) \
		$(TOP)/runtime/liblptrace.a -lpthread
