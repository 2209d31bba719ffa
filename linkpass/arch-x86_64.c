// SPDX-License-Identifier: GPL-2.0
/*
 * The full tool's x86_64, which replaces the kernel's (arch-x86.c, the
 * rules of a kernel's direct calls) and adds a PIE's: a PIE calls
 * __fentry__ through the GOT, "ff 15 disp32" with R_X86_64_GOTPCRELX
 * (or GOTPCREL), which the linker may relax into "addr32 call" (67 e8
 * rel32), under -q with R_X86_64_PC32 (GNU ld) or R_X86_64_GOTPCRELX
 * (lld); nop puts one 6-byte NOP over such a call.
 */
#include <elf.h>
#include <stdbool.h>
#include <string.h>

#include "arch-x86.h"
#include "extras.h"
#include "x86-insn.h"

static const uint8_t nop6[] = X86_NOP6_BYTES;

/* *@start = @at, and @f. */
static enum call_form call_from(uint64_t *start, uint64_t at,
				enum call_form f)
{
	*start = at;
	return f;
}

static enum call_form pie_call_at(const uint8_t *code, uint64_t size,
				  uint64_t off, uint32_t type, uint64_t *start)
{
	bool got = type == R_X86_64_GOTPCRELX || type == R_X86_64_GOTPCREL;
	const uint8_t *p = code + off;

	if (off >= 2 && off + 4 <= size) {
		/* the 6-byte NOP ends in the 5-byte one: tried first */
		if (type == R_X86_64_NONE && !memcmp(p - 2, nop6, sizeof(nop6)))
			return call_from(start, off - 2, CALL_NOPPED);
		if ((got || type == R_X86_64_PC32) &&
		    p[-2] == X86_OP_ADDR32 && p[-1] == X86_OP_CALL)
			return call_from(start, off - 2, CALL_ADDR32);
		if (got && p[-2] == X86_OP_GRP5 && p[-1] == X86_MODRM_CALL_RIP)
			return call_from(start, off - 2, CALL_GOT);
	}
	/* else the kernel's rules; a GOT relocation on e8 is a direct call */
	return x86_64_call_at(code, size, off, got ? R_X86_64_PC32 : type,
			      start);
}

unsigned int x86_pie_call_len(enum call_form f)
{
	if (f == CALL_ADDR32 || f == CALL_GOT)
		return X86_CALL_ADDR32_LEN;
	return x86_call_len(f);
}

/* e8 rel32, or the relaxed GOT call 67 e8 rel32. */
unsigned int x86_pie_direct_call(const uint8_t *p, uint64_t avail,
				 uint64_t addr, uint64_t *target)
{
	unsigned int n;

	if (!avail || p[0] != X86_OP_ADDR32)
		return x86_direct_call(p, avail, addr, target);
	n = x86_direct_call(p + 1, avail - 1, addr + 1, target);
	return n ? n + 1 : 0;
}

/* One 6-byte NOP over a PIE's addr32 call: never two instructions. */
static const uint8_t *pie_site_nop(unsigned int len)
{
	return len == sizeof(nop6) ? nop6 : x86_site_nop(len);
}

const struct arch arch_x86_64_pie = {
	.name = "x86_64",
	.machine = EM_X86_64,
	.elfclass = ELFCLASS64,
	.rela = true,
	.addr_size = 8,
	.abs_reloc = R_X86_64_64,
	.relative_reloc = R_X86_64_RELATIVE,
	.call_at = pie_call_at,
	.call_len = x86_pie_call_len,
	.entry_prefix = x86_entry_prefix,
	.padding_len = x86_padding_len,
	.pad_nop_len = x86_pad_nop_len,
	.direct_call = x86_pie_direct_call,
	.site_nop = pie_site_nop,
	.none_reloc = R_X86_64_NONE,
};
