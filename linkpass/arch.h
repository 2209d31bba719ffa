/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-architecture facts, one table per architecture: which relocation
 * types a call to the mcount symbol can carry, the call opcode, the
 * relocation the table object uses for its entries, and how padding
 * between functions looks.  Nothing else in linkpass tests e_machine.
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
	CALL_NOPPED,	/* a call already made the NOP of its length,
			 * with an R_*_NONE relocation (objtool --mnop,
			 * linkpass nop)
			 */
	CALL_BL,	/* aarch64 bl imm26: 4 bytes */
	CALL_AUIPC_JALR, /* riscv auipc ra + jalr ra: 8 bytes */
	CALL_JAL,	/* riscv jal ra: the pair relaxed by the linker, 4 bytes */
	CALL_BAD,	/* a call relocation on bytes that are not the call
			 * it implies: corrupt input, an error
			 */
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
	const char *asm_word;	/* assembler directive for one entry */

	/*
	 * Decide what kind of call (if any) uses the relocated field at
	 * @off of section bytes @code (size @size), given the relocation
	 * @type.  Returns the form and stores the instruction's start
	 * offset in *@start; CALL_BAD (an error) for a call relocation
	 * whose bytes are not that call.
	 */
	enum call_form (*call_at)(const uint8_t *code, uint64_t size,
				  uint64_t off, uint32_t type, uint64_t *start);
	/* Length in bytes of the instruction of form @f. */
	unsigned int (*call_len)(enum call_form f);
	/*
	 * Bytes that may precede the mcount call at a function's entry
	 * (endbr64/endbr32).  Returns their length at @p, or 0; never more
	 * than ARCH_ENTRY_PREFIX_MAX.
	 */
	unsigned int (*entry_prefix)(const uint8_t *p, uint64_t avail);
	/* Length of one padding instruction (nop forms, int3) at @p, or 0. */
	unsigned int (*padding_len)(const uint8_t *p, uint64_t avail);
	/*
	 * Length of one nop of a -fpatchable-function-entry pad at @p, or
	 * 0: a real nop only (padding_len() also takes zeros and int3).
	 */
	unsigned int (*pad_nop_len)(const uint8_t *p, uint64_t avail);
	/*
	 * A direct call instruction at @p (loaded at @addr, @avail bytes
	 * readable): its length, and its destination in *@target; 0 when
	 * @p holds no direct call.  For the byte-level audit, which has no
	 * relocations to go by.
	 */
	unsigned int (*direct_call)(const uint8_t *p, uint64_t avail,
				    uint64_t addr, uint64_t *target);
	/* The call instruction(s) a CALL_BAD relocation should be on. */
	const char *call_insn;
	/*
	 * linkpass nop: the one NOP instruction that replaces a call of
	 * @len bytes to the mcount symbol, or NULL for no call of that
	 * length.  A NULL hook: this architecture's sites are not NOP'd
	 * at link time.
	 */
	const uint8_t *(*site_nop)(unsigned int len);
	/* The relocation type that relocates nothing (R_*_NONE). */
	uint32_t none_reloc;
};


/*
 * One table per architecture (arch-x86.c, arch-arm64.c, arch-riscv.c;
 * the full tool's arch-i386.c, through hooks.h).
 */
extern const struct arch arch_x86_64, arch_i386, arch_aarch64, arch_riscv64;

/* The architecture table entry for an ELF machine/class, or NULL. */
const struct arch *arch_find(uint16_t machine, uint8_t elfclass);
/* The names of the architectures, "x86_64, aarch64, ...", for messages. */
const char *arch_names(char *buf, size_t len);

#endif
