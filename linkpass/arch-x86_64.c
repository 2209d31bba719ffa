// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64.  A traced function starts, after an optional endbr64, with
 * "call __fentry__": e8 rel32 with R_X86_64_PLT32, or R_X86_64_PC32
 * from binutils before 2.31.  A PIE calls it through the GOT, "ff 15
 * disp32" with R_X86_64_GOTPCRELX (or GOTPCREL), which the linker may
 * relax into "addr32 call" (67 e8 rel32), under -q with R_X86_64_PC32
 * (GNU ld) or R_X86_64_GOTPCRELX (lld).  objtool --mnop and linkpass
 * nop leave the NOP of the call's length (6 bytes over a PIE's)
 * with R_X86_64_NONE.
 */
#include <elf.h>
#include <stdbool.h>
#include <string.h>

#include "arch-x86.h"
#include "x86-insn.h"

static const uint8_t nop5[] = X86_NOP5_BYTES;
static const uint8_t nop6[] = X86_NOP6_BYTES;

/* *@start = @at, and @f. */
static inline enum call_form call_from(uint64_t *start, uint64_t at,
				       enum call_form f)
{
	*start = at;
	return f;
}

/* A call that the linker may have relaxed: PC32 or a GOT relocation. */
static enum call_form got_call_at(const uint8_t *p, uint64_t off,
				  uint32_t type, uint64_t *start)
{
	if (off >= 2 && p[-2] == X86_OP_ADDR32 && p[-1] == X86_OP_CALL)
		return call_from(start, off - 2, CALL_ADDR32);
	if (type != R_X86_64_PC32 && off >= 2 && p[-2] == X86_OP_GRP5 &&
	    p[-1] == X86_MODRM_CALL_RIP)
		return call_from(start, off - 2, CALL_GOT);
	/* a GOT relocation on e8 is a direct call */
	return p[-1] == X86_OP_CALL ? call_from(start, off - 1, CALL_REL32) :
	       CALL_NONE;
}

/* One switch: the common case, PLT32 on e8, takes the first branch. */
static enum call_form x86_64_call_at(const uint8_t *code, uint64_t size,
				     uint64_t off, uint32_t type,
				     uint64_t *start)
{
	const uint8_t *p = code + off;

	if (off < 1 || off + 4 > size)
		return CALL_NONE;
	switch (type) {
	case R_X86_64_PLT32:
		/* a direct call: the linker never relaxes these */
		return p[-1] == X86_OP_CALL ?
		       call_from(start, off - 1, CALL_REL32) : CALL_NONE;
	case R_X86_64_PC32:
	case R_X86_64_GOTPCRELX:
	case R_X86_64_GOTPCREL:
		return got_call_at(p, off, type, start);
	case R_X86_64_NONE:
		/* the 6-byte NOP ends in the 5-byte one: tried first */
		if (off >= 2 && !memcmp(p - 2, nop6, sizeof(nop6)))
			return call_from(start, off - 2, CALL_NOPPED);
		if (!memcmp(p - 1, nop5, sizeof(nop5)))
			return call_from(start, off - 1, CALL_NOPPED);
		return CALL_NONE;
	default:
		return CALL_NONE;
	}
}

/* One 6-byte NOP over a PIE's addr32 call: never two instructions. */
static const uint8_t *x86_64_site_nop(unsigned int len)
{
	return len == sizeof(nop6) ? nop6 : x86_site_nop(len);
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
	.site_nop = x86_64_site_nop,
	.none_reloc = R_X86_64_NONE,
};
