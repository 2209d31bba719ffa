// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 (i386, the full tool's, shares these rules: arch-i386.c).
 * A traced function starts (after an optional
 * endbr64/endbr32) with "call __fentry__", or calls mcount after its
 * prologue.  The call is e8 rel32; in a PIE the compiler calls through
 * the GOT (ff 15), which the linker relaxes into "addr32 call" (67 e8).
 * Under -q GNU ld then keeps R_X86_64_PC32 for the relaxed call while
 * lld keeps the original R_X86_64_GOTPCRELX, so both are accepted.
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
		 * objtool --mcount --mnop and linkpass nop rewrite "call
		 * __fentry__" into the NOP of its length and keep the
		 * relocation as R_X86_64_NONE, so images built that way
		 * can be checked too.  The 6-byte NOP (over a PIE's 67 e8
		 * call) ends in the 5-byte one, so it is tried first.
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

/*
 * One padding instruction as assemblers and linkers emit between
 * functions: int3, nop, or a "0f 1f /0" long nop with any number of
 * 66/2e prefixes.  Used to tell a dead function body (an overridden
 * weak function, which follows padding) from stray code.
 */
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
 * The NOP over a site: Linux's x86_nops[5] (what ftrace_nop_replace()
 * returns), and for a PIE's 6-byte addr32 call the runtime's one
 * 6-byte NOP, so that a thread stops before or after it, never inside.
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
