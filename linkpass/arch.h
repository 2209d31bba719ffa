/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-architecture facts, one table per architecture (arch-*.c): call
 * forms, entry prefixes, padding, relocation types.  Nothing else in
 * linkpass tests e_machine.
 */
#ifndef LINKPASS_ARCH_H
#define LINKPASS_ARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How a relocation against the mcount symbol was used by the code. */
enum call_form {
	CALL_NONE = 0,	/* not a call: a data or address reference */
	CALL_REL32,	/* e8 rel32: 5 bytes */
	CALL_ADDR32,	/* 67 e8 rel32: GOT call relaxed by the linker, 6 bytes */
	CALL_GOT,	/* ff 15 disp32: call through the GOT, 6 bytes */
	CALL_NOPPED,	/* a call made a NOP, its relocation R_*_NONE */
	CALL_BL,	/* aarch64 bl imm26: 4 bytes */
	CALL_AUIPC_JALR, /* riscv auipc ra + jalr ra: 8 bytes */
	CALL_JAL,	/* riscv jal ra: the pair relaxed by the linker, 4 bytes */
	CALL_BAD,	/* a call relocation not on its call: an error */
};

/* The longest entry prefix of any architecture (endbr64: 4 bytes). */
#define ARCH_ENTRY_PREFIX_MAX 4

struct arch {
	const char *name;
	uint16_t machine;	/* EM_* */
	uint8_t elfclass;	/* ELFCLASS32 / ELFCLASS64 */
	bool rela;		/* code relocations are SHT_RELA (else SHT_REL) */
	unsigned int addr_size;	/* table entry size in bytes */
	uint32_t abs_reloc;	/* relocation type for a table entry */
	uint32_t relative_reloc; /* dynamic RELATIVE type, read back from PIEs */
	/*
	 * The call (if any) whose relocated field of type @type is at
	 * @off of @code (@size bytes), its start in *@start; CALL_BAD for
	 * a call relocation on bytes that are not that call.
	 */
	enum call_form (*call_at)(const uint8_t *code, uint64_t size,
				  uint64_t off, uint32_t type, uint64_t *start);
	unsigned int (*call_len)(enum call_form f);
	/* The landing pad at an entry (endbr64, bti c) at @p: its length. */
	unsigned int (*entry_prefix)(const uint8_t *p, uint64_t avail);
	/* One padding instruction between functions (nops, int3) at @p. */
	unsigned int (*padding_len)(const uint8_t *p, uint64_t avail);
	/* One nop of a -fpatchable-function-entry pad at @p (a real nop). */
	unsigned int (*pad_nop_len)(const uint8_t *p, uint64_t avail);
	/*
	 * A direct call at @p (at @addr): its length, its target in
	 * *@target.  x86's, for nop; the byte audit's others are in
	 * arch-audit.c.
	 */
	unsigned int (*direct_call)(const uint8_t *p, uint64_t avail,
				    uint64_t addr, uint64_t *target);
	/* The call instruction(s) a CALL_BAD relocation should be on. */
	const char *call_insn;
	/* nop: the NOP over a call of @len bytes; NULL hook: no NOPs here */
	const uint8_t *(*site_nop)(unsigned int len);
	uint32_t none_reloc;	/* R_*_NONE */
};

extern const struct arch arch_x86_64, arch_aarch64, arch_riscv64, arch_i386;

/* The architecture table entry for an ELF machine/class, or NULL. */
const struct arch *arch_find(uint16_t machine, uint8_t elfclass);
/* "x86_64, aarch64, ...", for messages. */
const char *arch_names(char *buf, size_t len);

#endif
