// SPDX-License-Identifier: GPL-2.0
/*
 * What an ftrace call site looks like on each architecture, and the
 * instruction patterns both the scan and the check test the bytes with.
 *
 * x86_64 calls __fentry__ at the entry of a traced function ("e8 rel32",
 * after endbr64 with IBT).  arm64 and riscv reserve a pad of nops there
 * instead (-fpatchable-function-entry=N,M: M nops before the function, the
 * others at its entry, after a BTI landing pad on arm64); the compiler
 * lists each pad's first nop in __patchable_function_entries.
 */
#include <string.h>

#include "linkpass.h"

#ifndef R_X86_64_PLT32
#define R_X86_64_PLT32		4
#endif
#ifndef EM_RISCV
#define EM_RISCV		243
#endif
#ifndef R_RISCV_64
#define R_RISCV_64		2
#endif
#ifndef R_RISCV_RELATIVE
#define R_RISCV_RELATIVE	3
#endif

#define X86_CALL		0xe8
#define A64_NOP			0xd503201fu
#define A64_BTI_C		0xd503245fu
#define A64_BTI_JC		0xd50324dfu
#define A64_MOV_X9_LR		0xaa1e03e9u	/* mov x9, x30 */
#define RV_NOP			0x00000013u
#define RV_C_NOP		0x0001u
#define RV_AUIPC_T0		0x00000297u	/* auipc t0, 0 */

/* x86_nops[5], the NOP ftrace writes over a site (ftrace_nop_replace()) */
static const uint8_t x86_nop5[] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
static const uint8_t x86_endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };

static uint32_t le32(const uint8_t *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* x86_64: the NOP over the call, as ftrace_make_nop() writes it. */
static unsigned int x86_init_state(const struct image *im, const struct site *s,
				   uint64_t *addr, uint8_t *buf)
{
	memcpy(buf, x86_nop5, sizeof(x86_nop5));
	*addr = s->addr;
	return sizeof(x86_nop5);
}

/*
 * arm64: "mov x9, x30" over the first nop at the entry.  With CALL_OPS,
 * ftrace_init_nop() also points the literal before the function at
 * ftrace_nop_ops; that literal is read only by a "bl" to the ftrace
 * trampoline, and ftrace_make_call() writes it before the "bl".
 */
static unsigned int a64_init_state(const struct image *im, const struct site *s,
				   uint64_t *addr, uint8_t *buf)
{
	put_le32(buf, A64_MOV_X9_LR);
	*addr = func_entry(im, s->fn);
	return 4;
}

/*
 * riscv: "auipc t0, hi(ftrace_caller)" and "nop" over the nops at the
 * entry.  The offset is only known where ftrace_caller is: in vmlinux.
 */
static unsigned int rv_init_state(const struct image *im, const struct site *s,
				  uint64_t *addr, uint8_t *buf)
{
	const struct symbol *caller = im->caller;
	uint32_t off;

	if (!caller)
		return 0;
	*addr = s->fn->start;
	off = caller->value - *addr;
	/* the jalr's 12 bits are signed: round the upper 20 to match */
	put_le32(buf, ((off + 0x800) & 0xfffff000u) | RV_AUIPC_T0);
	put_le32(buf + 4, RV_NOP);
	return 8;
}

static unsigned int x86_landing_pad(const uint8_t *p, uint64_t avail)
{
	return avail >= sizeof(x86_endbr64) &&
	       !memcmp(p, x86_endbr64, sizeof(x86_endbr64)) ?
	       sizeof(x86_endbr64) : 0;
}

static unsigned int a64_landing_pad(const uint8_t *p, uint64_t avail)
{
	return avail >= 4 && (le32(p) == A64_BTI_C || le32(p) == A64_BTI_JC) ?
	       4 : 0;
}

static unsigned int a64_pad_nop(const uint8_t *p, uint64_t avail)
{
	return avail >= 4 && le32(p) == A64_NOP ? 4 : 0;
}

static unsigned int no_landing_pad(const uint8_t *p, uint64_t avail)
{
	return 0;
}

/* "nop", or "c.nop" with compressed instructions */
static unsigned int rv_pad_nop(const uint8_t *p, uint64_t avail)
{
	if (avail >= 4 && le32(p) == RV_NOP)
		return 4;
	return avail >= 2 && (p[0] | p[1] << 8) == RV_C_NOP ? 2 : 0;
}

static const struct arch arches[] = {
	{
		.name = "x86_64",
		.machine = EM_X86_64,
		.r_abs64 = R_X86_64_64,
		.r_relative = R_X86_64_RELATIVE,
		.r_none = R_X86_64_NONE,
		.mcount = "__fentry__",
		/* PC32 from binutils before 2.31 */
		.r_call = { R_X86_64_PLT32, R_X86_64_PC32 },
		.call_len = 5,
		.landing_pad = x86_landing_pad,
		.init_state = x86_init_state,
	}, {
		.name = "arm64",
		.machine = EM_AARCH64,
		.r_abs64 = R_AARCH64_ABS64,
		.r_relative = R_AARCH64_RELATIVE,
		.r_none = R_AARCH64_NONE,
		.landing_pad = a64_landing_pad,
		.pad_nop = a64_pad_nop,
		.init_state = a64_init_state,
		.init_nops = 1,
	}, {
		.name = "riscv64",
		.machine = EM_RISCV,
		.r_abs64 = R_RISCV_64,
		.r_relative = R_RISCV_RELATIVE,
		.r_none = 0,
		.landing_pad = no_landing_pad,
		.pad_nop = rv_pad_nop,
		.init_state = rv_init_state,
	},
};

const struct arch *arch_find(uint16_t machine)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i].machine == machine)
			return &arches[i];
	return NULL;
}

/* A function's entry: its start, after any landing pad. */
uint64_t func_entry(const struct image *im, const struct func *fn)
{
	const struct section *s = &im->secs[fn->shndx];
	uint64_t off = fn->start - s->sh.sh_addr;

	return fn->start + im->arch->landing_pad(s->data + off,
						 s->sh.sh_size - off);
}

/* Does @addr hold a direct call to @target (a linked image's bytes)? */
bool call_bytes(const struct image *im, uint32_t shndx, uint64_t addr,
		uint64_t target)
{
	const uint8_t *p = image_bytes(im, shndx, addr, im->arch->call_len);
	int32_t rel;

	if (!p || p[0] != X86_CALL)
		return false;
	memcpy(&rel, p + 1, sizeof(rel));
	return addr + im->arch->call_len + (int64_t)rel == target;
}

/* Do @count nops start at @addr, ending at *@end? */
static bool nops(const struct image *im, uint32_t shndx, uint64_t addr,
		 unsigned int count, uint64_t *end)
{
	const struct section *s = &im->secs[shndx];
	unsigned int len;

	while (count--) {
		if (addr - s->sh.sh_addr >= s->sh.sh_size)
			return false;
		len = im->arch->pad_nop(s->data + (addr - s->sh.sh_addr),
					s->sh.sh_size - (addr - s->sh.sh_addr));
		if (!len)
			return false;
		addr += len;
	}
	*end = addr;
	return true;
}

/*
 * Does the entry of @fn hold the state init_state() writes (nop.c)?  The
 * number of the pad's nops after the entry it leaves in *@rest.
 */
static bool init_at(const struct image *im, const struct func *fn,
		    uint64_t entry, uint64_t *after, unsigned int *rest)
{
	struct site s = { .shndx = fn->shndx, .fn = fn };
	uint8_t buf[INIT_STATE_MAX];
	const uint8_t *p;
	unsigned int len;
	uint64_t addr;

	len = im->arch->init_state(im, &s, &addr, buf);
	p = len ? image_bytes(im, fn->shndx, addr, len) : NULL;
	if (!p || addr != entry || memcmp(p, buf, len))
		return false;
	*after = entry + len;
	*rest = im->arch->init_nops ? im->pad.n - im->pad.m - im->arch->init_nops : 0;
	return true;
}

/*
 * Does @fn hold the whole pad of -fpatchable-function-entry=N,M (with
 * @init, or its entry in the state nop.c writes)?  Its first nop, which
 * the compiler lists and ftrace's table holds, in *@site.  The nops
 * before a function are all of one size (4, or 2 for c.nop).
 */
bool pad_at(const struct image *im, const struct func *fn, uint64_t *site,
	    bool init)
{
	const struct section *s = &im->secs[fn->shndx];
	unsigned int m = im->pad.m, size, rest = im->pad.n - m;
	uint64_t end, entry = func_entry(im, fn), after = entry;

	if (!nops(im, fn->shndx, entry, rest, &end) &&
	    !(init && init_at(im, fn, entry, &after, &rest) &&
	      nops(im, fn->shndx, after, rest, &end)))
		return false;
	if (!m) {
		*site = entry;
		return true;
	}
	for (size = 2; size <= 4; size += 2) {
		uint64_t first = fn->start - (uint64_t)m * size;

		if (fn->start - s->sh.sh_addr < (uint64_t)m * size)
			continue;
		if (nops(im, fn->shndx, first, m, &end) && end == fn->start) {
			*site = first;
			return true;
		}
	}
	return false;
}
