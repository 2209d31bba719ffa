// SPDX-License-Identifier: GPL-2.0
/*
 * Code the kernel patches for reasons of its own: static keys (the
 * records of __jump_table) and alternatives (.altinstructions on arm64
 * and x86, .alternative on riscv).  A notrace function may open with
 * such nops; they are no ftrace pad, however many there are, so the
 * byte audit asks here before it counts nops as one.
 *
 * Each record names its code by a signed 32-bit offset from the
 * record's own first field (the kernel's relative format: Linux 7.x
 * on arm64, riscv and x86), so the linked bytes say where the code is
 * and an image without relocations is read as well as one with them.
 * The kernel's vmlinux.lds puts the alternatives in a section of their
 * own and the jump table in .data between __start___jump_table and
 * __stop___jump_table; either way is read.
 */
#include "audit_patched.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct record_format {
	uint16_t machine;	/* 0: every machine */
	const char *what;	/* for messages */
	const char *section, *start_sym, *stop_sym;
	unsigned int size;	/* 0: struct jump_entry, 8 + an address */
	/* the patched length: a field of @len_size bytes, or one byte */
	unsigned int len_off, len_size;
};

static const struct record_format formats[] = {
	/*
	 * struct jump_entry { s32 code; s32 target; long key; }: the
	 * patched instruction starts at code (one byte is enough to say
	 * that a nop starting there is the static key's)
	 */
	{ 0, "jump label", "__jump_table", "__start___jump_table",
	  "__stop___jump_table", 0, 0, 0 },
	/* arm64: { s32 orig; s32 alt; u16 cpucap; u8 orig_len; u8 alt_len; } */
	{ EM_AARCH64, "alternative", ".altinstructions", "__alt_instructions",
	  "__alt_instructions_end", 12, 10, 1 },
	/* x86 (packed): { s32 instr; s32 repl; u32 flags; u8 instrlen; ... } */
	{ EM_X86_64, "alternative", ".altinstructions", "__alt_instructions",
	  "__alt_instructions_end", 14, 12, 1 },
	{ EM_386, "alternative", ".altinstructions", "__alt_instructions",
	  "__alt_instructions_end", 14, 12, 1 },
	/*
	 * riscv: { s32 old; s32 alt; u16 vendor_id; u16 alt_len; u32 id; },
	 * the old code as long as the new (ALTERNATIVE pads it so)
	 */
	{ EM_RISCV, "alternative", ".alternative", "__alt_start", "__alt_end",
	  16, 10, 2 },
};

static uint64_t le_bytes(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | p[n];
	return v;
}

/*
 * Where format @f's records are: *@size bytes at *@addr, in *@b; 0
 * bytes when the image has none.
 */
static int record_bytes(struct image *im, const struct record_format *f,
			uint64_t *addr, const uint8_t **b, uint64_t *size)
{
	struct section *sec = image_find_section(im, f->section);
	struct symbol *start, *stop;

	*size = 0;
	if (sec && (sec->sh.sh_flags & SHF_ALLOC) &&
	    sec->sh.sh_type == SHT_PROGBITS) {
		*addr = sec->sh.sh_addr;
		*size = sec->sh.sh_size;
	} else {
		start = image_find_symbol(im, f->start_sym);
		stop = image_find_symbol(im, f->stop_sym);
		if (!start || !stop || stop->value <= start->value)
			return 0;
		sec = image_section_at(im, start->value);
		if (!sec || sec->sh.sh_type != SHT_PROGBITS ||
		    stop->value - sec->sh.sh_addr > sec->sh.sh_size)
			return lp_error(im->path, f->start_sym,
					"the %s records up to %s are not in one section with contents",
					f->what, f->stop_sym);
		*addr = start->value;
		*size = stop->value - start->value;
	}
	*b = image_section_bytes(im, sec);
	if (!*b)
		return -1;
	*b += *addr - sec->sh.sh_addr;
	return 0;
}

static int read_format(struct image *im, const struct record_format *f,
		       struct patched *p, size_t *cap)
{
	unsigned int size = f->size ? f->size : 8 + im->arch->addr_size;
	uint64_t addr, n, i, len;
	const uint8_t *b, *r;
	int32_t off;

	if (record_bytes(im, f, &addr, &b, &n) < 0)
		return -1;
	if (n % size)
		return lp_error(im->path, f->section,
				"%llu bytes of %s records, not a whole number of %u-byte records",
				(unsigned long long)n, f->what, size);
	for (i = 0; i < n; i += size) {
		r = b + i;
		off = (int32_t)(uint32_t)le_bytes(r, 4);
		len = f->len_size ? le_bytes(r + f->len_off, f->len_size) : 1;
		if (!len)
			continue;
		if (p->n == *cap) {
			*cap = *cap ? *cap * 2 : 256;
			p->v = xrealloc(p->v, *cap * sizeof(*p->v));
		}
		p->v[p->n].start = addr + i + (uint64_t)(int64_t)off;
		p->v[p->n++].end = addr + i + (uint64_t)(int64_t)off + len;
		if (f->len_size)
			p->alts++;
		else
			p->jumps++;
	}
	return 0;
}

static int cmp_range(const void *a, const void *b)
{
	const struct patched_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

int patched_read(struct image *im, struct patched *p)
{
	size_t cap = 0, i, k = 0;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < ARRAY_SIZE(formats); i++)
		if ((!formats[i].machine ||
		     formats[i].machine == im->ehdr.e_machine) &&
		    read_format(im, &formats[i], p, &cap) < 0) {
			patched_free(p);
			return -1;
		}
	/* merged into disjoint ranges, for one binary search a question */
	if (p->n)
		qsort(p->v, p->n, sizeof(*p->v), cmp_range);
	for (i = 0; i < p->n; i++) {
		if (k && p->v[i].start <= p->v[k - 1].end) {
			if (p->v[i].end > p->v[k - 1].end)
				p->v[k - 1].end = p->v[i].end;
			continue;
		}
		p->v[k++] = p->v[i];
	}
	p->n = k;
	return 0;
}

bool patched_covers(const struct patched *p, uint64_t addr, uint64_t len)
{
	size_t lo = 0, hi = p->n, mid;

	/* the first range that ends after @addr */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (p->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < p->n && p->v[lo].start < addr + len;
}

void patched_free(struct patched *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}
