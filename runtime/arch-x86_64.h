/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arch-x86_64.h - helpers the patcher builds on the instruction bytes of
 * include/x86-insn.h (the one place those bytes are spelled out): make
 * and recognise a site's call and NOP.
 */
#ifndef LPT_ARCH_X86_64_H
#define LPT_ARCH_X86_64_H

#include <stdint.h>
#include <string.h>

#include "x86-insn.h"

/* The longest site: what is read to classify one. */
#define LPT_SITE_MAX		X86_CALL_ADDR32_LEN

static const uint8_t lpt_nop5[X86_CALL_LEN] = X86_NOP5_BYTES;
static const uint8_t lpt_nop6[X86_CALL_ADDR32_LEN] = X86_NOP6_BYTES;

static inline const uint8_t *lpt_nop_bytes(unsigned int len)
{
	return len == X86_CALL_ADDR32_LEN ? lpt_nop6 : lpt_nop5;
}

/*
 * Fill @buf with a call of @len bytes at @site to @target: `e8 rel32`
 * or `67 e8 rel32`.  Returns -1 if @target is out of rel32 reach.
 */
static inline int lpt_make_call(uint8_t *buf, unsigned int len,
				uintptr_t site, uintptr_t target)
{
	int64_t rel = (int64_t)(target - (site + len));
	int32_t rel32 = (int32_t)rel;
	unsigned int i = 0;

	if (rel != rel32)
		return -1;
	if (len == X86_CALL_ADDR32_LEN)
		buf[i++] = X86_OP_ADDR32;
	buf[i++] = X86_OP_CALL;
	memcpy(buf + i, &rel32, sizeof(rel32));
	return 0;
}

/*
 * Length of the call to @target found in @bytes (LPT_SITE_MAX bytes
 * readable), or 0 when they hold something else.
 */
static inline unsigned int lpt_match_call(const uint8_t *bytes,
					  uintptr_t site, uintptr_t target)
{
	uint8_t want[LPT_SITE_MAX];
	unsigned int len;

	if (bytes[0] == X86_OP_CALL)
		len = X86_CALL_LEN;
	else if (bytes[0] == X86_OP_ADDR32 && bytes[1] == X86_OP_CALL)
		len = X86_CALL_ADDR32_LEN;
	else
		return 0;
	if (lpt_make_call(want, len, site, target) || memcmp(want, bytes, len))
		return 0;
	return len;
}

/* Length of our own NOP found in @bytes, or 0. */
static inline unsigned int lpt_match_nop(const uint8_t *bytes)
{
	if (!memcmp(bytes, lpt_nop5, sizeof(lpt_nop5)))
		return sizeof(lpt_nop5);
	if (!memcmp(bytes, lpt_nop6, sizeof(lpt_nop6)))
		return sizeof(lpt_nop6);
	return 0;
}

/*
 * The common cases of the two above, from the 8 bytes at @site read as
 * one little-endian word: our NOP, or a call to @target.  Returns
 * LPT_WORD_NOP or LPT_WORD_CALL with the site's length in *@len, or 0
 * when the word holds anything else (the byte-wise checks decide).
 */
enum { LPT_WORD_OTHER, LPT_WORD_NOP, LPT_WORD_CALL };

/* Length of our own NOP at the start of the word @w, or 0. */
static inline unsigned int lpt_nop_word_len(uint64_t w)
{
	uint64_t nop5 = 0, nop6 = 0;

	memcpy(&nop5, lpt_nop5, sizeof(lpt_nop5));
	memcpy(&nop6, lpt_nop6, sizeof(lpt_nop6));
	if ((w & 0xffffffffffULL) == nop5)
		return sizeof(lpt_nop5);
	if ((w & 0xffffffffffffULL) == nop6)
		return sizeof(lpt_nop6);
	return 0;
}

static inline int lpt_match_word(uint64_t w, uintptr_t site,
				 uintptr_t target, unsigned int *len)
{
	int64_t rel;

	*len = lpt_nop_word_len(w);
	if (*len)
		return LPT_WORD_NOP;
	if ((uint8_t)w == X86_OP_CALL) {
		*len = X86_CALL_LEN;
		rel = (int64_t)(int32_t)(uint32_t)(w >> 8);
	} else if ((uint16_t)w == (X86_OP_ADDR32 | X86_OP_CALL << 8)) {
		*len = X86_CALL_ADDR32_LEN;
		rel = (int64_t)(int32_t)(uint32_t)(w >> 16);
	} else {
		return LPT_WORD_OTHER;
	}
	return (int64_t)(target - (site + *len)) == rel ? LPT_WORD_CALL :
							  LPT_WORD_OTHER;
}

#endif /* LPT_ARCH_X86_64_H */
