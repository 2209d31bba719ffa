// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 and i386.  A traced function starts (after an optional
 * endbr64/endbr32) with "call __fentry__", or calls mcount after its
 * prologue.  The call is e8 rel32; in a PIE the compiler calls through
 * the GOT (ff 15), which the linker relaxes into "addr32 call" (67 e8).
 * Under -q GNU ld then keeps R_X86_64_PC32 for the relaxed call while
 * lld keeps the original R_X86_64_GOTPCRELX, so both are accepted.
 */
#include <elf.h>
#include <stdbool.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "arch.h"
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

static unsigned int x86_call_len(enum call_form f)
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

static unsigned int x86_entry_prefix(const uint8_t *p, uint64_t avail)
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
static unsigned int x86_padding_len(const uint8_t *p, uint64_t avail)
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
static unsigned int x86_pad_nop_len(const uint8_t *p, uint64_t avail)
{
	if (!avail || p[0] == X86_OP_INT3 || p[0] == 0x00)
		return 0;
	return x86_padding_len(p, avail);
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

/* e8 rel32, or the relaxed GOT call 67 e8 rel32. */
static unsigned int x86_direct_call(const uint8_t *p, uint64_t avail,
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

static enum ref_kind x86_64_reloc_ref(uint32_t type)
{
	switch (type) {
	case R_X86_64_64:
	case R_X86_64_32:
	case R_X86_64_32S:
		return REF_ABS;
	case R_X86_64_PC32:
	case R_X86_64_PLT32:
	/* GOT loads the linker relaxed into lea/mov $imm keep these */
	case R_X86_64_GOTPCRELX:
	case R_X86_64_REX_GOTPCRELX:
		return REF_PCREL;
	default:
		return REF_NONE;
	}
}

static enum ref_kind i386_reloc_ref(uint32_t type)
{
	switch (type) {
	case R_386_32:
		return REF_ABS;
	case R_386_PC32:
	case R_386_PLT32:
		return REF_PCREL;
	default:
		return REF_NONE;
	}
}

_Static_assert((X86_OP_CALL | 1) == X86_OP_JMP,
	       "e8 and e9 differ in the low bit only");
_Static_assert(X86_OP2_JCC_FIRST == 0x80 && X86_OP2_JCC_LAST == 0x8f,
	       "jcc rel32 is 0f 80 to 0f 8f");

/*
 * Is there a branch with a 32-bit displacement at @p whose destination
 * @f wants?  Then its destination goes to *@target.  Called for every
 * e8, e9 and 0f byte of the code searched, so it stores only on a hit.
 */
static inline bool x86_wanted_branch_at(const uint8_t *code, uint64_t size,
					uint64_t p, uint64_t addr,
					const struct branch_filter *f,
					uint64_t *target)
{
	unsigned int n = 1;
	uint64_t t;
	int32_t rel;

	if (code[p] == X86_OP_TWOBYTE) {
		if (p + 6 > size || (code[p + 1] & 0xf0) != X86_OP2_JCC_FIRST)
			return false;
		n = 2;
	} else if ((code[p] | 1) != X86_OP_JMP) {
		return false;
	}
	memcpy(&rel, code + p + n, sizeof(rel));
	t = addr + p + n + 4 + (uint64_t)(int64_t)rel;
	if (!branch_wanted(f, t))
		return false;
	*target = t;
	return true;
}

#ifdef __SSE2__
/* Bit k set: byte @b[k] is e8, e9 or 0f (k < 16). */
static inline unsigned int x86_opcode_mask(const uint8_t *b)
{
	const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)b);
	/* e8 and e9 are one compare once the low bit is set */
	__m128i call_jmp = _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(1)),
					  _mm_set1_epi8((char)X86_OP_JMP));
	__m128i twobyte = _mm_cmpeq_epi8(v, _mm_set1_epi8((char)X86_OP_TWOBYTE));

	return (unsigned int)_mm_movemask_epi8(_mm_or_si128(call_jmp, twobyte));
}
#endif

/*
 * The next byte that could start "call rel32", "jmp rel32" or
 * "jcc rel32".  Position by position, not instruction by instruction:
 * a displacement that happens to hit a given address by chance has a
 * probability of 2^-32 per position (see stripped.c).  With SSE2 (every
 * x86_64 host) bytes are compared with e8, e9 and 0f 16 at a time, and
 * four such masks make one 64-bit mask: in a kernel's code about one
 * block of 16 bytes in three holds one of them, so the loop over
 * blocks, not the work per branch, is most of the cost.
 */
static uint64_t x86_next_branch(const uint8_t *code, uint64_t size,
				uint64_t from, uint64_t addr,
				const struct branch_filter *f, uint64_t *target)
{
	uint64_t p = from;
#ifdef __SSE2__
	uint64_t m;
	unsigned int k;

	/* 64 bytes, and the longest branch from the last of them */
	for (; size >= 70 && p <= size - 70; p += 64) {
		m = (uint64_t)x86_opcode_mask(code + p) |
		    (uint64_t)x86_opcode_mask(code + p + 16) << 16 |
		    (uint64_t)x86_opcode_mask(code + p + 32) << 32 |
		    (uint64_t)x86_opcode_mask(code + p + 48) << 48;
		for (; m; m &= m - 1) {
			k = (unsigned int)__builtin_ctzll(m);
			if (x86_wanted_branch_at(code, size, p + k, addr, f,
						 target))
				return p + k;
		}
	}
	/* then 16 at a time */
	for (; size >= 22 && p <= size - 22; p += 16) {
		for (m = x86_opcode_mask(code + p); m; m &= m - 1) {
			k = (unsigned int)__builtin_ctzll(m);
			if (x86_wanted_branch_at(code, size, p + k, addr, f,
						 target))
				return p + k;
		}
	}
#endif
	for (; p + 5 <= size; p++)
		if (x86_wanted_branch_at(code, size, p, addr, f, target))
			return p;
	return size;
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
	.reloc_ref = x86_64_reloc_ref,
	.next_branch = x86_next_branch,
	.site_nop = x86_site_nop,
	.none_reloc = R_X86_64_NONE,
};

const struct arch arch_i386 = {
	.name = "i386",
	.machine = EM_386,
	.elfclass = ELFCLASS32,
	.rela = false,
	.addr_size = 4,
	.abs_reloc = R_386_32,
	.relative_reloc = R_386_RELATIVE,
	.asm_word = ".long",
	.call_at = i386_call_at,
	.call_len = x86_call_len,
	.entry_prefix = x86_entry_prefix,
	.padding_len = i386_padding_len,
	.pad_nop_len = x86_pad_nop_len,
	.direct_call = x86_direct_call,
	.reloc_ref = i386_reloc_ref,
	.next_branch = x86_next_branch,
};
