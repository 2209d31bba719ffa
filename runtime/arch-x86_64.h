/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arch-x86_64.h - the x86-64 instruction bytes the patcher reads and
 * writes.  Every byte pattern lives here, nowhere else.
 */
#ifndef LP_ARCH_X86_64_H
#define LP_ARCH_X86_64_H

#include <stdint.h>
#include <string.h>

/* `call rel32`: opcode then a displacement from the next instruction. */
#define LP_OP_CALL		0xe8
/*
 * `addr32` prefix.  Debian's gcc calls __fentry__ through the GOT in a
 * PIE (`ff 15 rel32`, 6 bytes); the linker relaxes that to the direct
 * `67 e8 rel32`, so 6-byte sites start with this prefix.
 */
#define LP_OP_ADDR32		0x67
/* Breakpoint; the first byte of a site while it is being rewritten. */
#define LP_OP_INT3		0xcc

#define LP_SITE_MIN		5
#define LP_SITE_MAX		6

/*
 * One NOP instruction per site length.  A single instruction matters:
 * a thread can only ever stop before or after it, never inside, so the
 * tail bytes are never the next thing any thread executes.
 */
static const uint8_t lp_nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const uint8_t lp_nop6[6] = { 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 };

static inline const uint8_t *lp_nop_bytes(unsigned int len)
{
	return len == 6 ? lp_nop6 : lp_nop5;
}

/*
 * Fill @buf with a call of @len bytes at @site to @target: `e8 rel32`
 * or `67 e8 rel32`.  Returns -1 if @target is out of rel32 reach.
 */
static inline int lp_make_call(uint8_t *buf, unsigned int len,
			       uintptr_t site, uintptr_t target)
{
	int64_t rel = (int64_t)(target - (site + len));
	int32_t rel32 = (int32_t)rel;
	unsigned int i = 0;

	if (rel != rel32)
		return -1;
	if (len == 6)
		buf[i++] = LP_OP_ADDR32;
	buf[i++] = LP_OP_CALL;
	memcpy(buf + i, &rel32, sizeof(rel32));
	return 0;
}

/*
 * Length of the call to @target found in @bytes (LP_SITE_MAX bytes
 * readable), or 0 when they hold something else.
 */
static inline unsigned int lp_match_call(const uint8_t *bytes,
					 uintptr_t site, uintptr_t target)
{
	uint8_t want[LP_SITE_MAX];
	unsigned int len;

	if (bytes[0] == LP_OP_CALL)
		len = 5;
	else if (bytes[0] == LP_OP_ADDR32 && bytes[1] == LP_OP_CALL)
		len = 6;
	else
		return 0;
	if (lp_make_call(want, len, site, target) || memcmp(want, bytes, len))
		return 0;
	return len;
}

/* Length of our own NOP found in @bytes, or 0. */
static inline unsigned int lp_match_nop(const uint8_t *bytes)
{
	if (!memcmp(bytes, lp_nop5, sizeof(lp_nop5)))
		return 5;
	if (!memcmp(bytes, lp_nop6, sizeof(lp_nop6)))
		return 6;
	return 0;
}

#endif /* LP_ARCH_X86_64_H */
