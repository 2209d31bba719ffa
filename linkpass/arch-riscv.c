// SPDX-License-Identifier: GPL-2.0
/*
 * riscv64: the kernel's entries are -fpatchable-function-entry nops.
 * gcc -pg calls _mcount after the prologue with auipc ra + jalr ra,
 * which GNU ld may relax into "jal ra" (R_RISCV_JAL under -q): both
 * are sites.  Instructions are 4 bytes, or 2 with the C extension.
 */
#include <elf.h>
#include <string.h>

#include "arch.h"

#define RV_OP_MASK	0x7fu
#define RV_OP_AUIPC	0x17u
#define RV_OP_JAL	0x6fu
#define RV_OP_JALR	0x67u
#define RV_RD(i)	(((i) >> 7) & 31u)
#define RV_RS1(i)	(((i) >> 15) & 31u)
#define RV_REG_RA	1u
#define RV_NOP		0x00000013u	/* addi x0, x0, 0 */
#define RV_C_NOP	0x0001u

static uint32_t rv_insn(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint16_t rv_half(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static enum call_form rv_call_at(const uint8_t *code, uint64_t size,
				 uint64_t off, uint32_t type, uint64_t *start)
{
	uint32_t insn;

	if (off % 2 || size < 4 || off > size - 4)
		return CALL_NONE;
	insn = rv_insn(code + off);
	switch (type) {
	case R_RISCV_CALL:
	case R_RISCV_CALL_PLT:
		if (size < 8 || off > size - 8 ||
		    (insn & RV_OP_MASK) != RV_OP_AUIPC)
			return CALL_BAD;
		/* "tail _mcount" (auipc t1 + jr t1): a jump, not a site */
		if (RV_RD(insn) != RV_REG_RA)
			return CALL_NONE;
		insn = rv_insn(code + off + 4);
		if ((insn & RV_OP_MASK) != RV_OP_JALR ||
		    RV_RD(insn) != RV_REG_RA || RV_RS1(insn) != RV_REG_RA)
			return CALL_BAD;
		*start = off;
		return CALL_AUIPC_JALR;
	case R_RISCV_JAL:
		if ((insn & RV_OP_MASK) != RV_OP_JAL)
			return CALL_BAD;
		/* "j _mcount" (jal x0): a jump, not a site */
		if (RV_RD(insn) != RV_REG_RA)
			return CALL_NONE;
		*start = off;
		return CALL_JAL;
	default:
		return CALL_NONE;
	}
}

static unsigned int rv_call_len(enum call_form f)
{
	return f == CALL_AUIPC_JALR ? 8 : f == CALL_JAL ? 4 : 0;
}

static unsigned int rv_entry_prefix(const uint8_t *p, uint64_t avail)
{
	(void)p;
	(void)avail;
	return 0;
}

static unsigned int rv_padding_len(const uint8_t *p, uint64_t avail)
{
	if (avail >= 4 && rv_insn(p) == RV_NOP)
		return 4;
	if (avail >= 2 && (rv_half(p) == RV_C_NOP || rv_half(p) == 0))
		return 2;
	return 0;
}

/* The nop of a patchable pad: "nop", or "c.nop" with RVC. */
static unsigned int rv_pad_nop_len(const uint8_t *p, uint64_t avail)
{
	if (avail >= 4 && rv_insn(p) == RV_NOP)
		return 4;
	return avail >= 2 && rv_half(p) == RV_C_NOP ? 2 : 0;
}

const struct arch arch_riscv64 = {
	.name = "riscv64",
	.machine = EM_RISCV,
	.elfclass = ELFCLASS64,
	.rela = true,
	.addr_size = 8,
	.abs_reloc = R_RISCV_64,
	.relative_reloc = R_RISCV_RELATIVE,
	.call_at = rv_call_at,
	.call_len = rv_call_len,
	.entry_prefix = rv_entry_prefix,
	.padding_len = rv_padding_len,
	.pad_nop_len = rv_pad_nop_len,
	.call_insn = "call (auipc ra + jalr ra, or jal ra)",
};
