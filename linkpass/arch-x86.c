// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 as the kernel links it (i386, the full tool's, shares these
 * rules; its x86_64 also reads a PIE's GOT calls: arch-x86-pie.c).  A
 * traced function starts, after an optional endbr64, with "call
 * __fentry__": e8 rel32 with R_X86_64_PLT32, or R_X86_64_PC32 from
 * binutils before 2.31.
 */
#include <elf.h>
#include <stdbool.h>
#include <string.h>

#include "arch-x86.h"
#include "compiler.h"
#include "x86-insn.h"

static const uint8_t endbr64[] = X86_ENDBR64_BYTES;
static const uint8_t endbr32[] = X86_ENDBR32_BYTES;
static const uint8_t nop5[] = X86_NOP5_BYTES;

enum call_form x86_64_call_at(const uint8_t *code, uint64_t size,
			      uint64_t off, uint32_t type, uint64_t *start)
{
	if (off < 1 || off + 4 > size)
		return CALL_NONE;
	switch (type) {
	case R_X86_64_NONE:
		/* a call NOP'd by objtool --mnop or linkpass nop */
		if (memcmp(code + off - 1, nop5, sizeof(nop5)))
			return CALL_NONE;
		*start = off - 1;
		return CALL_NOPPED;
	case R_X86_64_PLT32:
	case R_X86_64_PC32:
		break;
	default:
		return CALL_NONE;
	}
	if (code[off - 1] != X86_OP_CALL)
		return CALL_NONE;
	*start = off - 1;
	return CALL_REL32;
}

unsigned int x86_call_len(enum call_form f)
{
	return f == CALL_REL32 || f == CALL_NOPPED ? X86_CALL_LEN : 0;
}

unsigned int x86_entry_prefix(const uint8_t *p, uint64_t avail)
{
	if (avail >= X86_ENDBR_LEN &&
	    (!memcmp(p, endbr64, X86_ENDBR_LEN) ||
	     !memcmp(p, endbr32, X86_ENDBR_LEN)))
		return X86_ENDBR_LEN;
	return 0;
}

/* int3, nop, or a "0f 1f /0" long nop with any 66/2e prefixes. */
unsigned int x86_padding_len(const uint8_t *p, uint64_t avail)
{
	unsigned int n = 0, modrm, mod, rm, len;

	if (avail && (p[0] == X86_OP_INT3 || p[0] == X86_OP_NOP1 || p[0] == 0x00))
		return 1;
	while (n < avail && n < 14 && (p[n] == 0x66 || p[n] == 0x2e))
		n++;
	if (n < avail && p[n] == X86_OP_NOP1 && n > 0)
		return n + 1;
	if (n + 3 > avail || p[n] != 0x0f || p[n + 1] != 0x1f)
		return 0;
	modrm = p[n + 2];
	mod = modrm >> 6;
	rm = modrm & 7;
	if ((modrm & 0x38) != 0 || mod == 3)
		return 0;
	len = n + 3 + (rm == 4);		/* SIB byte */
	len += mod == 1 ? 1 : mod == 2 ? 4 : 0;	/* displacement */
	if (mod == 0 && rm == 5)
		len += 4;
	return len <= avail ? len : 0;
}

/* The nop of a patchable pad: any nop form, not int3 or zeros. */
unsigned int x86_pad_nop_len(const uint8_t *p, uint64_t avail)
{
	if (!avail || p[0] == X86_OP_INT3 || p[0] == 0x00)
		return 0;
	return x86_padding_len(p, avail);
}

/* e8 rel32. */
unsigned int x86_direct_call(const uint8_t *p, uint64_t avail,
			     uint64_t addr, uint64_t *target)
{
	int32_t rel;

	if (avail < X86_CALL_LEN || p[0] != X86_OP_CALL)
		return 0;
	memcpy(&rel, p + 1, sizeof(rel));
	*target = addr + X86_CALL_LEN + (uint64_t)(int64_t)rel;
	return X86_CALL_LEN;
}

/* The NOP over a site: Linux's x86_nops[5] (ftrace_nop_replace()). */
const uint8_t *x86_site_nop(unsigned int len)
{
	return len == sizeof(nop5) ? nop5 : NULL;
}

const struct arch arch_x86_64 = {
	.name = "x86_64",
	.machine = EM_X86_64,
	.elfclass = ELFCLASS64,
	.rela = true,
	.addr_size = 8,
	.abs_reloc = R_X86_64_64,
	.relative_reloc = R_X86_64_RELATIVE,
	.call_at = x86_64_call_at,
	.call_len = x86_call_len,
	.entry_prefix = x86_entry_prefix,
	.padding_len = x86_padding_len,
	.pad_nop_len = x86_pad_nop_len,
	.direct_call = x86_direct_call,
	.site_nop = x86_site_nop,
	.none_reloc = R_X86_64_NONE,
};
