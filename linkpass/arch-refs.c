// SPDX-License-Identifier: GPL-2.0
/* The stripped-objects check's per-architecture facts (x86_64, i386). */
#include "arch-refs.h"

#include <elf.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "compiler.h"
#include "x86-insn.h"

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

static const struct arch_refs refs[] = {
	{ EM_X86_64, x86_64_reloc_ref, x86_next_branch },
	{ EM_386, i386_reloc_ref, x86_next_branch },
};

const struct arch_refs *arch_refs_find(uint16_t machine)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(refs); i++)
		if (refs[i].machine == machine)
			return &refs[i];
	return NULL;
}
