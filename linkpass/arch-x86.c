// SPDX-License-Identifier: GPL-2.0
/*
 * The x86 rules that x86_64 (arch-x86_64.c) and i386 (arch-i386.c)
 * share: call lengths, entry prefixes, padding, direct calls and the
 * NOP over a 5-byte call.
 */
#include <stdbool.h>
#include <string.h>

#include "arch-x86.h"
#include "compiler.h"
#include "x86-insn.h"

static const uint8_t endbr64[] = X86_ENDBR64_BYTES;
static const uint8_t endbr32[] = X86_ENDBR32_BYTES;
static const uint8_t nop5[] = X86_NOP5_BYTES;

unsigned int x86_call_len(enum call_form f)
{
	if (f == CALL_ADDR32 || f == CALL_GOT)
		return X86_CALL_ADDR32_LEN;
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
static unsigned int call_rel32(const uint8_t *p, uint64_t avail,
			       uint64_t addr, uint64_t *target)
{
	int32_t rel;

	if (avail < X86_CALL_LEN || p[0] != X86_OP_CALL)
		return 0;
	memcpy(&rel, p + 1, sizeof(rel));
	*target = addr + X86_CALL_LEN + (uint64_t)(int64_t)rel;
	return X86_CALL_LEN;
}

/* e8 rel32, or the relaxed GOT call 67 e8 rel32. */
unsigned int x86_direct_call(const uint8_t *p, uint64_t avail,
			     uint64_t addr, uint64_t *target)
{
	unsigned int n;

	if (!avail || p[0] != X86_OP_ADDR32)
		return call_rel32(p, avail, addr, target);
	n = call_rel32(p + 1, avail - 1, addr + 1, target);
	return n ? n + 1 : 0;
}

/* The NOP over a site: Linux's x86_nops[5] (ftrace_nop_replace()). */
const uint8_t *x86_site_nop(unsigned int len)
{
	return len == sizeof(nop5) ? nop5 : NULL;
}
