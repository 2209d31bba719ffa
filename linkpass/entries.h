/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entries of the live functions of an image as a hash set: for each
 * (section, address) where a defined STT_FUNC (or IFUNC) starts, the size
 * of the widest function starting there.  A site is kept when its call
 * lies at such an entry (funcs.h gives the same answer through a sorted
 * index; building this set needs no sort, one insert per function).
 */
#ifndef LINKPASS_ENTRIES_H
#define LINKPASS_ENTRIES_H

#include "image.h"

struct entry {
	uint64_t addr;
	uint32_t shndx;		/* 0: empty slot (no function is in section 0) */
	uint32_t size;		/* of the widest; sizes past 4 GiB are clamped */
};

struct entry_set {
	struct entry *slots;
	size_t mask;		/* slot count - 1, a power of two minus one */
	unsigned int shift;	/* 64 - log2(slot count) */
};

void entries_build(const struct image *im, struct entry_set *e);
void entries_free(struct entry_set *e);

static inline size_t entries_hash(const struct entry_set *e, uint32_t shndx,
				  uint64_t addr)
{
	uint64_t h = (addr ^ ((uint64_t)shndx << 48)) * 0x9e3779b97f4a7c15ull;

	/*
	 * Fibonacci hashing: the top bits of the product.  Function
	 * addresses come in steps of 16 or 64; middle bits of the product
	 * made long probe chains on the 1,000,000-function scale image
	 * (30 probes an insert, callgrind).
	 */
	return (size_t)(h >> e->shift);
}

/* The entry at (@shndx, @addr), or NULL. */
static inline const struct entry *entries_find(const struct entry_set *e,
					       uint32_t shndx, uint64_t addr)
{
	size_t i = entries_hash(e, shndx, addr);

	for (;; i = (i + 1) & e->mask) {
		const struct entry *s = &e->slots[i];

		if (!s->shndx)
			return NULL;
		if (s->addr == addr && s->shndx == shndx)
			return s;
	}
}

#endif
