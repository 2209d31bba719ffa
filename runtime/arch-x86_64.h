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

#endif /* LPT_ARCH_X86_64_H */
