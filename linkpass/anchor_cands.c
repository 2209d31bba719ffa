// SPDX-License-Identifier: GPL-2.0
/*
 * The anchors' candidates (anchor.h): once the sites are known, one
 * pass over the global symbols keeps, for each section with a site, the
 * eligible global nearest at or below its first site and the lowest.
 * Most globals are ruled out by their section and value alone, read in
 * place, before their name is.
 */
#include "anchor.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void anchor_cands_free(struct anchor_cands *c)
{
	free(c->first_site);
	free(c->near);
	free(c->low);
	memset(c, 0, sizeof(*c));
}

/* The first of @sites [@from, @n) at or above @addr (by address). */
static size_t site_at_or_above(const struct site *sites, size_t from,
			       size_t n, uint64_t addr)
{
	size_t mid;

	while (from < n) {
		mid = from + (n - from) / 2;
		if (sites[mid].addr < addr)
			from = mid + 1;
		else
			n = mid;
	}
	return from;
}

/*
 * By section: the address of its first site, or NO_SITE.  @sites are
 * in address order, as the table is written (filter.c sorts a linked
 * image's kept sites), so a section's sites are one run: its first,
 * then a search for the first past the section's end.
 */
static uint64_t *first_sites(const struct image *im, const struct site *sites,
			     size_t nsites)
{
	uint64_t *first = xmalloc(im->nsecs * sizeof(*first));
	const struct section *sec;
	size_t i, k, next;

	for (k = 0; k < im->nsecs; k++)
		first[k] = NO_SITE;
	for (i = 0; i < nsites; i = next) {
		k = sites[i].shndx;
		sec = &im->secs[k];
		if (sites[i].addr < first[k])
			first[k] = sites[i].addr;
		next = site_at_or_above(sites, i + 1, nsites,
					sec->sh.sh_addr + sec->sh.sh_size);
	}
	return first;
}

/*
 * Is @s (number @idx) a better pick than @cur (idx 0: none), at a lower
 * address, or @higher?  Of two at one address (aliases), by kind and
 * name; of equals the one first in table order stays.
 */
static bool pick_better(const struct image *im, const struct symbol *s,
			const struct anchor_global *cur, bool higher)
{
	struct symbol c;

	if (!cur->idx || s->value != cur->value)
		return !cur->idx || (higher ? s->value > cur->value :
				     s->value < cur->value);
	anchor_sym(im, cur->idx, &c);
	return anchor_better(s, &c);
}

static void set_pick(struct anchor_global *g, const struct symbol *s,
		     uint32_t idx)
{
	g->value = s->value;
	g->shndx = s->shndx;
	g->idx = idx;
}

/* What the gather looks at first: a global's section and value. */
struct brief {
	uint64_t value;
	uint32_t shndx;
};

/*
 * Symbol @i's section and value, unless it is local: read in place for
 * most images, its bind first (the locals come first, and are many).
 */
static inline bool brief_at(const struct image *im, size_t i, struct brief *b)
{
	const uint8_t *e = im->symin.syms + i * sizeof(Elf64_Sym);
	struct symbol s;
	uint16_t shndx;

	if (!im->syms_decoded && im->symin.is64) {
		if (ELF64_ST_BIND(e[offsetof(Elf64_Sym, st_info)]) ==
		    STB_LOCAL)
			return false;
		memcpy(&shndx, e + offsetof(Elf64_Sym, st_shndx),
		       sizeof(shndx));
		memcpy(&b->value, e + offsetof(Elf64_Sym, st_value),
		       sizeof(b->value));
		b->shndx = shndx;
		return true;
	}
	if (im->syms_decoded)
		s = im->syms[i];
	else
		sym_decode_raw(false, im->symin.syms, i, &s);
	b->shndx = s.shndx;
	b->value = s.value;
	return s.bind != STB_LOCAL;
}

/*
 * Could a global at @b be its section's lowest eligible one, or the
 * nearest at or below its first site, of those seen so far?  Most are
 * neither: they need no more reading.
 */
static inline bool may_pick(const struct anchor_cands *c, size_t nsecs,
			    const struct brief *b)
{
	const struct anchor_global *low, *near;
	uint64_t first;

	if (b->shndx >= nsecs)
		return false;
	first = c->first_site[b->shndx];
	low = &c->low[b->shndx];
	near = &c->near[b->shndx];
	return first != NO_SITE &&
	       (!low->idx || b->value <= low->value ||
		(b->value <= first &&
		 (!near->idx || b->value >= near->value)));
}

/* Symbol @s, number @idx, in a section with a site: a better pick? */
static void gather_one(const struct image *im, struct anchor_cands *c,
		       const struct symbol *s, uint32_t idx)
{
	struct anchor_global *low = &c->low[s->shndx];
	struct anchor_global *near = &c->near[s->shndx];

	if (!anchor_eligible(im, s))
		return;
	if (pick_better(im, s, low, false))
		set_pick(low, s, idx);
	if (s->value <= c->first_site[s->shndx] &&
	    pick_better(im, s, near, true))
		set_pick(near, s, idx);
}

void anchor_cands_gather(const struct image *im, const struct site *sites,
			 size_t nsites, struct anchor_cands *c)
{
	struct symbol s;
	struct brief b;
	size_t i;
	/* every local symbol comes before .symtab's sh_info (the gABI) */
	size_t globals = im->symtab && im->symtab->sh.sh_info < im->nsyms ?
			 im->symtab->sh.sh_info : im->nsyms;

	c->first_site = first_sites(im, sites, nsites);
	c->near = xcalloc(im->nsecs, sizeof(*c->near));
	c->low = xcalloc(im->nsecs, sizeof(*c->low));
	c->first = 0;
	for (i = globals ? globals : 1; i < im->nsyms; i++) {
		if (!brief_at(im, i, &b) ||
		    (c->first && !may_pick(c, im->nsecs, &b)))
			continue;
		anchor_sym(im, (uint32_t)i, &s);
		if (!c->first && anchor_eligible(im, &s))
			c->first = (uint32_t)i;
		if (may_pick(c, im->nsecs, &b))
			gather_one(im, c, &s, (uint32_t)i);
	}
}
