// SPDX-License-Identifier: GPL-2.0
/*
 * i386.  A call is e8 rel32 with R_386_PC32 or R_386_PLT32; the rest
 * is x86_64's (arch-x86.c).
 */
#include <elf.h>
#include <string.h>

#include "arch-x86.h"
#include "compiler.h"
#include "x86-insn.h"

static enum call_form i386_call_at(const uint8_t *code, uint64_t size,
				   uint64_t off, uint32_t type,
				   uint64_t *start)
{
	if (off < 1 || off + 4 > size)
		return CALL_NONE;
	if (type != R_386_PC32 && type != R_386_PLT32)
		return CALL_NONE;
	if (code[off - 1] != X86_OP_CALL)
		return CALL_NONE;
	*start = off - 1;
	return CALL_REL32;
}

/*
 * 32-bit assemblers also pad with "lea 0(%esi),%esi"-style no-ops and
 * "mov %esi,%esi".
 */
static const uint8_t *const i386_nops[] = {
	(const uint8_t *)"\x89\xf6",
	(const uint8_t *)"\x8d\x76\x00",
	(const uint8_t *)"\x8d\x74\x26\x00",
	(const uint8_t *)"\x8d\xb6\x00\x00\x00\x00",
	(const uint8_t *)"\x8d\xb4\x26\x00\x00\x00\x00",
	(const uint8_t *)"\x8d\xbc\x27\x00\x00\x00\x00",
};

static const unsigned int i386_nop_len[] = { 2, 3, 4, 6, 7, 7 };

static unsigned int i386_padding_len(const uint8_t *p, uint64_t avail)
{
	unsigned int n = x86_padding_len(p, avail);
	size_t i;

	for (i = 0; !n && i < ARRAY_SIZE(i386_nop_len); i++)
		if (avail >= i386_nop_len[i] &&
		    !memcmp(p, i386_nops[i], i386_nop_len[i]))
			n = i386_nop_len[i];
	return n;
}

const struct arch arch_i386 = {
	.name = "i386",
	.machine = EM_386,
	.elfclass = ELFCLASS32,
	.rela = false,
	.addr_size = 4,
	.abs_reloc = R_386_32,
	.relative_reloc = R_386_RELATIVE,
	.call_at = i386_call_at,
	.call_len = x86_call_len,
	.entry_prefix = x86_entry_prefix,
	.padding_len = i386_padding_len,
	.pad_nop_len = x86_pad_nop_len,
	.direct_call = x86_direct_call,
};
