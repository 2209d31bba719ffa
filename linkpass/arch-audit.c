// SPDX-License-Identifier: GPL-2.0
/*
 * The byte audit's per-architecture facts: the direct calls (x86's are
 * arch->direct_call, which linkpass nop needs too; aarch64's and
 * riscv64's are here) and the width of a patchable pad's nops.
 */
#include <elf.h>

#include "arch-audit.h"

static uint32_t insn32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

/* bl imm26, for the byte-level audit. */
static unsigned int a64_direct_call(const uint8_t *p, uint64_t avail,
				    uint64_t addr, uint64_t *target)
{
	uint32_t insn;
	int64_t imm;

	if (avail < 4)
		return 0;
	insn = insn32(p);
	if ((insn & 0xfc000000u) != 0x94000000u)
		return 0;
	imm = (int64_t)(insn & 0x03ffffffu);
	if (imm & 0x02000000)
		imm -= 0x04000000;
	*target = addr + (uint64_t)(imm * 4);
	return 4;
}

/* jal ra, for the byte-level audit. */
static unsigned int rv_direct_call(const uint8_t *p, uint64_t avail,
				   uint64_t addr, uint64_t *target)
{
	uint32_t insn;
	int64_t imm;

	if (avail < 4)
		return 0;
	insn = insn32(p);
	if ((insn & 0x7fu) != 0x6fu || ((insn >> 7) & 31u) != 1)
		return 0;
	imm = (int64_t)(((insn >> 31) & 1) << 20 | ((insn >> 12) & 0xff) << 12 |
			((insn >> 20) & 1) << 11 | ((insn >> 21) & 0x3ff) << 1);
	if (imm & (1 << 20))
		imm -= 1 << 21;
	*target = addr + (uint64_t)imm;
	return 4;
}

unsigned int arch_direct_call(const struct arch *a, const uint8_t *p,
			      uint64_t avail, uint64_t addr, uint64_t *target)
{
	if (a->direct_call)
		return a->direct_call(p, avail, addr, target);
	if (a->machine == EM_AARCH64)
		return a64_direct_call(p, avail, addr, target);
	if (a->machine == EM_RISCV)
		return rv_direct_call(p, avail, addr, target);
	return 0;
}

unsigned int arch_pad_widths(const struct arch *a, uint32_t e_flags)
{
	/* riscv: nop, or with RVC the c.nop the compiler then writes */
	if (a->machine == EM_RISCV)
		return e_flags & EF_RISCV_RVC ? 2 | 4 : 4;
	if (a->machine == EM_AARCH64)
		return 4;
	return 0;
}
