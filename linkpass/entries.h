/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entries of the live functions of an image, as one bitmap per code
 * section: bit o of section s is set when a defined STT_FUNC (or IFUNC)
 * starts at byte o of s, and a second bit says the widest function
 * starting there is longer than any entry prefix.  A site is kept when
 * its call lies at such an entry (funcs.h gives the same answer through
 * a sorted index).  Setting and testing a bit is a shift and a load: no
 * sort, no hashing, and a lookup needs no probe loop.  A section of
 * S bytes costs S/4 bytes of bitmap, and only sections with call sites
 * get one.
 */
#ifndef LINKPASS_ENTRIES_H
#define LINKPASS_ENTRIES_H

#include "compiler.h"
#include "image.h"
#include "site.h"

/*
 * The two bitmaps of a section are interleaved word by word: bits[2k]
 * says a function starts at byte 64k + b, bits[2k + 1] that the widest
 * one starting there is longer than ARCH_ENTRY_PREFIX_MAX.  The symbols
 * come in no useful address order (globals after all locals), so each
 * setting is a cache miss; interleaved, both bits share one.
 */
struct entry_map {
	uint64_t *bits;		/* NULL: no map */
	/*
	 * With entry_set.covers: bit o set when a function of nonzero
	 * size covers byte o (one bit a byte, a word per 64 bytes)
	 */
	uint64_t *cover;
	uint64_t base;		/* address of the section's byte 0 */
	uint64_t size;		/* sh_size; 0 when there is no map */
};

struct entry_set {
	struct entry_map *map;	/* one per section; bits == NULL: no map */
	size_t nsecs;
	/* the maps outgrow a core's cache: worth prefetching into */
	bool big;
	/* the bytes each function covers are marked too (map.cover) */
	bool covers;
	/* a function of a mapped section starts outside its bytes */
	bool outside;
};

/*
 * Maps for the sections @want marks (indexed by section), all empty;
 * with @covers, the covered bytes are marked too (--patchable-entries:
 * a listed address before an entry must lie in no function).
 */
void entries_init(struct entry_set *e, const struct image *im,
		  const uint8_t *want, bool covers);
/*
 * An empty set with @e's maps, for a second thread of the symbol pass
 * to fill on its own: two threads setting bits in one set need atomic
 * ORs and pass its cache lines back and forth (docs/benchmarks.md,
 * section 5.4h).  entries_merge() then ORs it into @e.
 */
void entries_twin(struct entry_set *twin, const struct entry_set *e);
void entries_merge(struct entry_set *into, const struct entry_set *from);
/* Empty every map again. */
void entries_clear(struct entry_set *e);
void entries_free(struct entry_set *e);

/*
 * The pair of words (any, wide) that holds the bits of (@shndx, @addr),
 * and the bit in *@bit; NULL when no map covers the address.  A symbol
 * outside its section's bytes (below base the difference wraps around)
 * is never a site's entry; a section without a map has size 0.
 */
static __always_inline uint64_t *
entries_word(const struct entry_set *e, uint32_t shndx, uint64_t addr,
	     uint64_t *bit)
{
	const struct entry_map *m;
	uint64_t off;

	if (shndx >= e->nsecs)
		return NULL;
	m = &e->map[shndx];
	off = addr - m->base;
	if (off >= m->size)
		return NULL;
	*bit = 1ull << (off % 64);
	return &m->bits[off / 64 * 2];
}

/* Mark bytes [@off, @off + @size) of @m covered, up to its end. */
void entries_cover(struct entry_map *m, uint64_t off, uint64_t size);

/* Note a live function at (@shndx, @addr) of @size bytes. */
static __always_inline void
entries_add(struct entry_set *e, uint32_t shndx, uint64_t addr,
	    uint64_t size)
{
	uint64_t bit, *w = entries_word(e, shndx, addr, &bit);

	if (!w) {
		e->outside |= shndx < e->nsecs && e->map[shndx].bits;
		return;
	}
	w[0] |= bit;
	if (size > ARCH_ENTRY_PREFIX_MAX)
		w[1] |= bit;
	if (e->covers && size)
		entries_cover(&e->map[shndx], addr - e->map[shndx].base, size);
}

/*
 * Does a function of nonzero size cover (@shndx, @addr)?  Only with
 * e->covers; @shndx must have a map and @addr lie inside its section.
 */
static inline bool entries_covered(const struct entry_set *e, uint32_t shndx,
				   uint64_t addr)
{
	const struct entry_map *m = &e->map[shndx];
	uint64_t off = addr - m->base;

	return m->cover[off / 64] >> (off % 64) & 1;
}

/*
 * Start loading the word entries_add() will set for (@shndx, @addr):
 * called a few symbols ahead, it hides the miss the setting would take.
 */
static __always_inline void
entries_prefetch(const struct entry_set *e, uint32_t shndx, uint64_t addr)
{
	uint64_t bit, *w = entries_word(e, shndx, addr, &bit);

	if (w)
		__builtin_prefetch(w, 1);
}

/*
 * Does a function start at (@shndx, @addr)?  @shndx must have a map and
 * @addr lie inside its section.  *@wide tells whether the widest one
 * is longer than ARCH_ENTRY_PREFIX_MAX.
 */
static inline bool entries_has(const struct entry_set *e, uint32_t shndx,
			       uint64_t addr, bool *wide)
{
	const struct entry_map *m = &e->map[shndx];
	uint64_t off = addr - m->base, bit = 1ull << (off % 64);

	if (!(m->bits[off / 64 * 2] & bit))
		return false;
	*wide = m->bits[off / 64 * 2 + 1] & bit;
	return true;
}

enum fast_verdict {
	FAST_KEEP,
	FAST_DROP,	/* inside a function, not at its entry */
	FAST_NO_START,	/* no function starts there or a prefix before */
	FAST_UNSURE,
};

/*
 * Is the entry-style call @s at a live function's entry, possibly after
 * an entry prefix (endbr64)?  The answer judge() would give, from the
 * entry set alone; FAST_UNSURE where only the sorted index can tell (a
 * function starting inside the prefix that does not cover the call).
 * *@start: where the function starts, when kept.  Here, not in
 * the fast filter, so that the filter's loop over every candidate inlines it
 *.
 */
static __always_inline enum fast_verdict
at_entry(const struct image *im, const struct entry_set *e,
	 const struct site *s, uint64_t *start)
{
	const struct section *sec = &im->secs[s->shndx];
	uint64_t base = e->map[s->shndx].base;
	unsigned int k;
	bool wide;

	*start = s->addr;
	if (entries_has(e, s->shndx, s->addr, &wide))
		return FAST_KEEP;
	/* the nearest start within a prefix's length before the call */
	for (k = 1; k <= ARCH_ENTRY_PREFIX_MAX && k <= s->addr; k++) {
		/* a start before the section: only the index can tell */
		if (s->addr - k < base)
			return e->outside ? FAST_UNSURE : FAST_NO_START;
		if (!entries_has(e, s->shndx, s->addr - k, &wide))
			continue;
		/* a function that may end inside the prefix: likewise */
		if (!wide)
			return FAST_UNSURE;
		*start = s->addr - k;
		return im->arch->entry_prefix(sec->bytes + (s->addr - k - base),
					      k) == k ? FAST_KEEP : FAST_DROP;
	}
	return FAST_NO_START;
}

#endif
