// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 (i386, the full tool's, shares these rules).  A traced
 * function starts, after an optional endbr64, with "call __fentry__":
 * e8 rel32, or in a PIE a GOT call (ff 15) that the linker relaxes into
 * "addr32 call" (67 e8), under -q with R_X86_64_PC32 (GNU ld) or
 * R_X86_64_GOTPCRELX (lld).
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
static const uint8_t nop6[] = X86_NOP6_BYTES;

static enum call_form x86_64_call_at(const uint8_t *code, uint64_t size,
				     uint64_t off, uint32_t type,
				     uint64_t *start)
{
	if (off < 1 || off + 4 > size)
		return CALL_NONE;
	switch (type) {
	case R_X86_64_NONE:
		/*
		 * A call NOP'd by objtool --mnop or linkpass nop.  The
		 * 6-byte NOP ends in the 5-byte one: tried first.
		 */
		if (off >= 2 && !memcmp(code + off - 2, nop6, sizeof(nop6))) {
			*start = off - 2;
			return CALL_NOPPED;
		}
		if (!memcmp(code + off - 1, nop5, sizeof(nop5))) {
			*start = off - 1;
			return CALL_NOPPED;
		}
		return CALL_NONE;
	case R_X86_64_PLT32:
		/* a direct call: the linker never relaxes these */
		break;
	case R_X86_64_PC32:
	case R_X86_64_GOTPCRELX:
	case R_X86_64_GOTPCREL:
		/* possibly a GOT call, relaxed or not */
		if (off >= 2 && code[off - 1] == X86_OP_CALL &&
		    code[off - 2] == X86_OP_ADDR32) {
			*start = off - 2;
			return CALL_ADDR32;
		}
		if (type != R_X86_64_PC32 && off >= 2 &&
		    code[off - 2] == X86_OP_GRP5 && code[off - 1] == X86_MODRM_CALL_RIP) {
			*start = off - 2;
			return CALL_GOT;
		}
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
	switch (f) {
	case CALL_REL32:
	case CALL_NOPPED:
		return X86_CALL_LEN;
	case CALL_ADDR32:
	case CALL_GOT:
		return X86_CALL_ADDR32_LEN;
	default:
		return 0;
	}
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

/* e8 rel32, or the relaxed GOT call 67 e8 rel32. */
unsigned int x86_direct_call(const uint8_t *p, uint64_t avail,
			     uint64_t addr, uint64_t *target)
{
	unsigned int n = 0;
	int32_t rel;

	if (avail >= 1 && p[0] == X86_OP_ADDR32)
		n = 1;
	if (avail < n + 5 || p[n] != X86_OP_CALL)
		return 0;
	memcpy(&rel, p + n + 1, sizeof(rel));
	*target = addr + n + 5 + (uint64_t)(int64_t)rel;
	return n + 5;
}

/*
 * The NOP over a site: Linux's x86_nops[5] (ftrace_nop_replace()), or
 * one 6-byte NOP over a PIE's addr32 call: never two instructions.
 */
static const uint8_t *x86_site_nop(unsigned int len)
{
	if (len == sizeof(nop5))
		return nop5;
	return len == sizeof(nop6) ? nop6 : NULL;
}

const struct arch arch_x86_64 = {
	.name = "x86_64",
	.machine = EM_X86_64,
	.elfclass = ELFCLASS64,
	.rela = true,
	.addr_size = 8,
	.abs_reloc = R_X86_64_64,
	.relative_reloc = R_X86_64_RELATIVE,
	.asm_word = ".quad",
	.call_at = x86_64_call_at,
	.call_len = x86_call_len,
	.entry_prefix = x86_entry_prefix,
	.padding_len = x86_padding_len,
	.pad_nop_len = x86_pad_nop_len,
	.direct_call = x86_direct_call,
	.site_nop = x86_site_nop,
	.none_reloc = R_X86_64_NONE,
};
