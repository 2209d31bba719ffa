// SPDX-License-Identifier: GPL-2.0
/*
 * aarch64: the kernel's entries are -fpatchable-function-entry nops
 * after an optional "bti c" landing pad; gcc -pg's "bl _mcount" after
 * the prologue is judged by prologue.c.  Instructions are 4
 * bytes, little-endian.
 */
#include <elf.h>
#include <string.h>

#include "arch.h"

#define A64_INSN_LEN	4
#define A64_NOP		0xd503201fu
#define A64_BTI_C	0xd503245fu
#define A64_BTI_JC	0xd50324dfu
#define A64_PACIASP	0xd503233fu
#define A64_BL_MASK	0xfc000000u
#define A64_BL_BITS	0x94000000u

static uint32_t a64_insn(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static enum call_form a64_call_at(const uint8_t *code, uint64_t size,
				  uint64_t off, uint32_t type, uint64_t *start)
{
	if (off % A64_INSN_LEN || size < A64_INSN_LEN ||
	    off > size - A64_INSN_LEN)
		return CALL_NONE;
	/* a "b _mcount" (JUMP26) is a tail call, not a traced entry */
	if (type != R_AARCH64_CALL26)
		return CALL_NONE;
	if ((a64_insn(code + off) & A64_BL_MASK) != A64_BL_BITS)
		return CALL_BAD;
	*start = off;
	return CALL_BL;
}

static unsigned int a64_call_len(enum call_form f)
{
	return f == CALL_BL ? A64_INSN_LEN : 0;
}

/* The landing pads that open a function under -mbranch-protection. */
static unsigned int a64_entry_prefix(const uint8_t *p, uint64_t avail)
{
	uint32_t insn;

	if (avail < A64_INSN_LEN)
		return 0;
	insn = a64_insn(p);
	return insn == A64_BTI_C || insn == A64_BTI_JC ||
	       insn == A64_PACIASP ? A64_INSN_LEN : 0;
}

/* Linkers pad aarch64 code with nops, or zeros at section ends. */
static unsigned int a64_padding_len(const uint8_t *p, uint64_t avail)
{
	uint32_t insn;

	if (avail < A64_INSN_LEN)
		return 0;
	insn = a64_insn(p);
	return insn == A64_NOP || insn == 0 ? A64_INSN_LEN : 0;
}

/* The nop of a patchable pad: "nop" only. */
static unsigned int a64_pad_nop_len(const uint8_t *p, uint64_t avail)
{
	return avail >= A64_INSN_LEN && a64_insn(p) == A64_NOP ?
	       A64_INSN_LEN : 0;
}

const struct arch arch_aarch64 = {
	.name = "aarch64",
	.machine = EM_AARCH64,
	.elfclass = ELFCLASS64,
	.rela = true,
	.addr_size = 8,
	.abs_reloc = R_AARCH64_ABS64,
	.relative_reloc = R_AARCH64_RELATIVE,
	.call_at = a64_call_at,
	.call_len = a64_call_len,
	.entry_prefix = a64_entry_prefix,
	.padding_len = a64_padding_len,
	.pad_nop_len = a64_pad_nop_len,
	.call_insn = "bl",
};
