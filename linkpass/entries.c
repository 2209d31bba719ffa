// SPDX-License-Identifier: GPL-2.0
/* The bitmaps of live function entries. */
#include "entries.h"

#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "util.h"

/* about a core's L2: smaller maps stay in cache without prefetching */
#define ENTRIES_CACHE_BYTES (512u << 10)

/* The words of a map of @size bytes of section: two per 64 bytes. */
static size_t map_words(uint64_t size)
{
	return 2 * ((size_t)(size / 64) + 1);
}

/* The words of a cover map of @size bytes: one per 64 bytes. */
static size_t cover_words(uint64_t size)
{
	return (size_t)(size / 64) + 1;
}

void entries_cover(struct entry_map *m, uint64_t off, uint64_t size)
{
	uint64_t end = size > m->size - off ? m->size : off + size;
	uint64_t *c = m->cover;
	size_t a = off / 64, b = (end - 1) / 64, k;

	/* the first word from bit off % 64, the last to bit (end-1) % 64 */
	if (a == b) {
		c[a] |= (~0ULL >> (63 - (end - 1) % 64)) & (~0ULL << off % 64);
		return;
	}
	c[a] |= ~0ULL << off % 64;
	for (k = a + 1; k < b; k++)
		c[k] = ~0ULL;
	c[b] |= ~0ULL >> (63 - (end - 1) % 64);
}

void entries_init(struct entry_set *e, const struct image *im,
		  const uint8_t *want, bool covers)
{
	size_t i, bytes = 0;

	e->nsecs = im->nsecs;
	e->covers = covers;
	e->outside = false;
	e->map = xcalloc(im->nsecs ? im->nsecs : 1, sizeof(*e->map));
	for (i = 1; i < im->nsecs; i++) {
		const struct section *s = &im->secs[i];
		struct entry_map *m = &e->map[i];
		size_t words;

		if (!want[i] || !s->sh.sh_size)
			continue;
		/*
		 * sh_size is bounded by the file size: only sections whose
		 * bytes were read (code relocation targets) are wanted.
		 */
		words = map_words(s->sh.sh_size);
		m->bits = xcalloc(words, sizeof(*m->bits));
		huge_hint(m->bits, words * sizeof(*m->bits));
		bytes += words * sizeof(*m->bits);
		m->base = im->ehdr.e_type == ET_REL ? 0 : s->sh.sh_addr;
		m->size = s->sh.sh_size;
		if (covers) {
			m->cover = xcalloc(cover_words(m->size),
					   sizeof(*m->cover));
			huge_hint(m->cover, cover_words(m->size) *
				  sizeof(*m->cover));
		}
	}
	e->big = bytes > ENTRIES_CACHE_BYTES;
}

void entries_twin(struct entry_set *twin, const struct entry_set *e)
{
	size_t i;

	twin->nsecs = e->nsecs;
	twin->big = e->big;
	twin->covers = e->covers;
	twin->outside = false;
	twin->map = xcalloc(e->nsecs ? e->nsecs : 1, sizeof(*twin->map));
	for (i = 0; i < e->nsecs; i++) {
		if (!e->map[i].bits)
			continue;
		twin->map[i] = e->map[i];
		twin->map[i].bits = xcalloc(map_words(e->map[i].size),
					    sizeof(uint64_t));
		if (e->covers)
			twin->map[i].cover = xcalloc(cover_words(e->map[i].size),
						     sizeof(uint64_t));
	}
}

void entries_merge(struct entry_set *into, const struct entry_set *from)
{
	size_t i, k, n;

	into->outside |= from->outside;
	for (i = 0; i < into->nsecs; i++) {
		uint64_t *a = into->map[i].bits;
		const uint64_t *b = from->map[i].bits;

		if (!a)
			continue;
		n = map_words(into->map[i].size);
		for (k = 0; k < n; k++)
			a[k] |= b[k];
		if (!into->covers)
			continue;
		a = into->map[i].cover;
		b = from->map[i].cover;
		n = cover_words(into->map[i].size);
		for (k = 0; k < n; k++)
			a[k] |= b[k];
	}
}

void entries_clear(struct entry_set *e)
{
	size_t i;

	e->outside = false;
	for (i = 0; i < e->nsecs; i++)
		if (e->map[i].bits) {
			memset(e->map[i].bits, 0, map_words(e->map[i].size) *
			       sizeof(*e->map[i].bits));
			if (e->covers)
				memset(e->map[i].cover, 0,
				       cover_words(e->map[i].size) *
				       sizeof(*e->map[i].cover));
		}
}

void entries_free(struct entry_set *e)
{
	size_t i;

	for (i = 0; i < e->nsecs; i++) {
		free(e->map[i].bits);
		free(e->map[i].cover);
	}
	free(e->map);
	e->map = NULL;
	e->nsecs = 0;
}
