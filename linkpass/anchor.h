/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Anchors: the symbols table entries are relative to.  Each entry is
 * "anchor + offset" with a relocation, so the linker computes the final
 * address and relocatable (KASLR) kernels keep working.  By default
 * each section's sites use the lowest global symbol of that section:
 * the offset then stays valid when the table object shifts whole output
 * sections, and the build converges in fewer links.
 */
#ifndef LINKPASS_ANCHOR_H
#define LINKPASS_ANCHOR_H

#include <string.h>

#include "image.h"
#include "scan.h"

struct anchors {
	const struct symbol **by_shndx;	/* anchor for each section */
	const struct symbol **list;	/* the distinct anchors used */
	size_t n;
};

/*
 * A symbol another object can refer to and get this very address:
 * global or weak, default or protected visibility (hidden symbols were
 * made local by the link), defined in an allocated section, not an
 * IFUNC (a reference would resolve to the chosen implementation), and
 * not a __start_/__stop_ symbol (those may follow our own table).
 */
static inline bool anchor_eligible(const struct image *im,
				   const struct symbol *s)
{
	if (s->bind != STB_GLOBAL && s->bind != STB_WEAK)
		return false;
	if (s->vis != STV_DEFAULT && s->vis != STV_PROTECTED)
		return false;
	if (s->shndx == SHN_UNDEF || s->shndx >= im->nsecs)
		return false;
	if (!(im->secs[s->shndx].sh.sh_flags & SHF_ALLOC))
		return false;
	if (s->type != STT_FUNC && s->type != STT_NOTYPE &&
	    s->type != STT_OBJECT)
		return false;
	if (!s->name[0] || (s->name[0] == '_' &&
			    (!strncmp(s->name, "__start_", 8) ||
			     !strncmp(s->name, "__stop_", 7))))
		return false;
	return true;
}

/* Is @a a better anchor for its section than @b? */
static inline bool anchor_better(const struct symbol *a,
				 const struct symbol *b)
{
	if (!b)
		return true;
	if (a->value != b->value)
		return a->value < b->value;
	if ((a->type == STT_FUNC) != (b->type == STT_FUNC))
		return a->type == STT_FUNC;
	if (a->bind != b->bind)
		return a->bind == STB_GLOBAL;
	return strcmp(a->name, b->name) < 0;
}

/* Tried in order when a section has no global symbol of its own. */
#define ANCHOR_NFALLBACK 5
extern const char *const anchor_fallback_names[ANCHOR_NFALLBACK];

/* What anchors_choose() needs from the symbols, gathered in one pass. */
struct anchor_cands {
	const struct symbol **by_shndx;	/* each section's best anchor */
	/* the first defined symbol of each fallback name (as
	 * image_find_symbol() finds it), and the first eligible symbol */
	const struct symbol *named[ANCHOR_NFALLBACK];
	const struct symbol *first;
};

void anchor_cands_init(struct anchor_cands *c, const struct image *im);
void anchor_cands_free(struct anchor_cands *c);

/*
 * Take symbol @s into account.  Called for the symbols in table order,
 * so of equals the first one stays.
 */
static inline void anchor_cands_add(struct anchor_cands *c,
				    const struct image *im,
				    const struct symbol *s)
{
	const struct symbol *b;
	size_t j;

	if (s->shndx == SHN_UNDEF)
		return;
	if (s->name[0] == '_' || s->name[0] == 'm')
		for (j = 0; j < ANCHOR_NFALLBACK; j++)
			if (!c->named[j] &&
			    !strcmp(s->name, anchor_fallback_names[j]))
				c->named[j] = s;
	if (s->shndx >= im->nsecs)
		return;
	if (!c->first && anchor_eligible(im, s))
		c->first = s;
	/* above the best so far: never better (one compare) */
	b = c->by_shndx[s->shndx];
	if (b && s->value > b->value)
		return;
	if (anchor_eligible(im, s) && anchor_better(s, b))
		c->by_shndx[s->shndx] = s;
}

/*
 * @forced: one symbol for every entry, or NULL / "auto".  @cands: the
 * candidates, gathered by anchor_cands_add() in a pass the caller made
 * anyway, or NULL to gather them here.
 */
int anchors_choose(struct image *im, const char *forced,
		   const struct site *sites, size_t nsites,
		   const struct anchor_cands *cands, struct anchors *a);
void anchors_free(struct anchors *a);

#endif
