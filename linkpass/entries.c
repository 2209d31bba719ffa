// SPDX-License-Identifier: GPL-2.0
/* The hash set of live function entries. */
#include "entries.h"

#include <stdlib.h>

#include "util.h"

/* Does @s start a live function?  The rule of funcs_build(). */
static bool live_function(const struct image *im, const struct symbol *s)
{
	return (s->type == STT_FUNC || s->type == STT_GNU_IFUNC) &&
	       s->shndx != SHN_UNDEF && s->shndx < im->nsecs && s->name[0];
}

static void insert(struct entry_set *e, uint32_t shndx, uint64_t addr,
		   uint64_t size64)
{
	uint32_t size = size64 > UINT32_MAX ? UINT32_MAX : (uint32_t)size64;
	size_t i = entries_hash(e, shndx, addr);

	for (;; i = (i + 1) & e->mask) {
		struct entry *s = &e->slots[i];

		if (!s->shndx) {
			s->shndx = shndx;
			s->addr = addr;
			s->size = size;
			return;
		}
		if (s->addr == addr && s->shndx == shndx) {
			/* aliases: the widest one decides, as in funcs.c */
			if (size > s->size)
				s->size = size;
			return;
		}
	}
}

void entries_build(const struct image *im, struct entry_set *e)
{
	size_t i, cap = 16;
	unsigned int bits = 4;

	/* at most half full: probes stay short */
	while (cap < 2 * im->nfuncs) {
		cap *= 2;
		bits++;
	}
	e->slots = xcalloc(cap, sizeof(*e->slots));
	e->mask = cap - 1;
	e->shift = 64 - bits;
	for (i = 1; i < im->nsyms; i++) {
		const struct symbol *s = &im->syms[i];

		if (live_function(im, s))
			insert(e, s->shndx, s->value, s->size);
	}
}

void entries_free(struct entry_set *e)
{
	free(e->slots);
	e->slots = NULL;
	e->mask = 0;
}
