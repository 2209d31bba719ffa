// SPDX-License-Identifier: GPL-2.0
/*
 * The -pg rule of the full tool: a call to mcount or _mcount after the
 * prologue (aarch64, riscv64, x86 without -mfentry), as user-space
 * programs have them.  The kernel calls __fentry__ at the entry or
 * has patchable entries, so its set of files has no such rule.
 */
#include "prologue.h"

#include <elf.h>

#include "compiler.h"
#include "funcs.h"
#include "image.h"
#include "site.h"

/* aarch64: b / bl imm26 (bit 31 tells them apart) */
#define A64_B_MASK	0x7c000000u
#define A64_B_BITS	0x14000000u
/* aarch64: unconditional branch (register): br, blr, ret, eret, PAC forms */
#define A64_BR_MASK	0xfe000000u
#define A64_BR_BITS	0xd6000000u
/* riscv64: jal, jalr; c.j, and c.jr / c.jalr (rs1 != 0, rs2 == 0) */
#define RV_OP_MASK	0x7fu
#define RV_OP_JAL	0x6fu
#define RV_OP_JALR	0x67u
#define RV_C_J_MASK	0xe003u
#define RV_C_J_BITS	0xa001u
#define RV_C_JR_MASK	0xe07fu
#define RV_C_JR_BITS	0x8002u

/* A little-endian instruction word of @n bytes (2 or 4) at @p. */
static uint32_t insn_le(const uint8_t *p, unsigned int n)
{
	return n == 2 ? (uint32_t)(p[0] | p[1] << 8) :
	       (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/*
 * May the bytes [@from, @to) of @code, from a function's entry to its
 * first mcount call, precede that call?  False when they hold a call
 * or a return, so the call is not the one the compiler put in the
 * prologue.  aarch64: 4-byte instructions.
 */
static bool a64_prologue_ok(const uint8_t *code, uint64_t from, uint64_t to)
{
	uint64_t pc;
	uint32_t insn;

	for (pc = from; pc + 4 <= to; pc += 4) {
		insn = insn_le(code + pc, 4);
		if ((insn & A64_B_MASK) == A64_B_BITS ||
		    (insn & A64_BR_MASK) == A64_BR_BITS)
			return false;
	}
	return true;
}

/* riscv64: 4-byte instructions, or 2 with the C extension (low bits). */
static bool rv_prologue_ok(const uint8_t *code, uint64_t from, uint64_t to)
{
	uint64_t pc = from;

	while (pc + 2 <= to) {
		uint16_t h = (uint16_t)insn_le(code + pc, 2);

		if ((h & 3) != 3) {
			if ((h & RV_C_J_MASK) == RV_C_J_BITS ||
			    ((h & RV_C_JR_MASK) == RV_C_JR_BITS &&
			     ((h >> 7) & 31)))
				return false;
			pc += 2;
			continue;
		}
		if (pc + 4 > to)
			break;
		switch (insn_le(code + pc, 4) & RV_OP_MASK) {
		case RV_OP_JAL:
		case RV_OP_JALR:
			return false;
		}
		pc += 4;
	}
	return true;
}

/* The architectures whose mcount call follows the prologue. */
static const struct {
	uint16_t machine;
	bool (*ok)(const uint8_t *code, uint64_t from, uint64_t to);
} rules[] = {
	{ EM_AARCH64, a64_prologue_ok },
	{ EM_RISCV, rv_prologue_ok },
};

prologue_rule_fn prologue_rule(uint16_t machine)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rules); i++)
		if (rules[i].machine == machine)
			return rules[i].ok;
	return NULL;
}

/*
 * Where the mcount call follows the prologue (aarch64, riscv64): only
 * prologue code, no call or return, may lie between the function's
 * entry and its first mcount call (prologue_rule()).
 */
static bool prologue_before(const struct image *im, const struct section *sec,
			    const struct func *fn, const struct site *s)
{
	uint64_t base = im->ehdr.e_type == ET_REL ? 0 : sec->sh.sh_addr;
	prologue_rule_fn ok = prologue_rule(im->ehdr.e_machine);

	if (!ok)
		return true;
	if (fn->start < base || s->addr < fn->start ||
	    s->addr - base > sec->sh.sh_size)
		return false;
	return ok(sec->bytes, fn->start - base, s->addr - base);
}

int mcount_verdict(const struct image *im, const struct section *sec,
		   const struct func *fn, const struct site *s,
		   const struct func *last)
{
	/* mcount is called once, after the prologue */
	if (last == fn || !prologue_before(im, sec, fn, s))
		return DROP_NOT_ENTRY;
	return SITE_KEPT;
}
