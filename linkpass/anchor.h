/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Anchors: the symbols table entries are relative to, so that the
 * linker computes each final address (KASLR).  A section's sites use
 * its eligible global nearest at or below its first site (else its
 * lowest): the offsets then survive the table shifting sections.
 */
#ifndef LINKPASS_ANCHOR_H
#define LINKPASS_ANCHOR_H

#include <string.h>

#include "compiler.h"
#include "image.h"
#include "site.h"

struct anchors {
	const struct symbol **by_shndx;	/* anchor for each section */
	const struct symbol **list;	/* the distinct anchors used */
	size_t n;
	struct symbol ehdr;	/* a shared library's __ehdr_start */
};

/* A global another object can refer to by name. */
static inline bool anchor_exported(const struct symbol *s)
{
	return (s->bind == STB_GLOBAL || s->bind == STB_WEAK) &&
	       (s->vis == STV_DEFAULT || s->vis == STV_PROTECTED);
}

/*
 * A symbol a reference resolves to this very address: exported, not
 * interposable, allocated, no IFUNC, no __start_/__stop_ (which may
 * follow our own table).
 */
static inline bool anchor_eligible(const struct image *im,
				   const struct symbol *s)
{
	if (!anchor_exported(s) || im->interposable ||
	    s->shndx == SHN_UNDEF || s->shndx >= im->nsecs ||
	    !(im->secs[s->shndx].sh.sh_flags & SHF_ALLOC))
		return false;
	if (s->type != STT_FUNC && s->type != STT_NOTYPE &&
	    s->type != STT_OBJECT)
		return false;
	return s->name[0] && strncmp(s->name, "__start_", 8) &&
	       strncmp(s->name, "__stop_", 7);
}

/* Of two at one address: a function, a global, then by name. */
static inline bool anchor_better(const struct symbol *a,
				 const struct symbol *b)
{
	if (a->type != b->type &&
	    (a->type == STT_FUNC || b->type == STT_FUNC))
		return a->type == STT_FUNC;
	if (a->bind != b->bind)
		return a->bind == STB_GLOBAL;
	return strcmp(a->name, b->name) < 0;
}

/* Tried in order when a section has no global symbol of its own. */
#define ANCHOR_NFALLBACK 5
extern const char *const anchor_fallback_names[ANCHOR_NFALLBACK];

/* An eligible global, and its number. */
struct anchor_global {
	struct symbol sym;	/* its name in the image's string table */
	uint32_t idx;
};

/* What anchors_choose() needs, gathered by the symbol pass (0: none). */
struct anchor_cands {
	/* in table order: the first is the first eligible symbol */
	struct anchor_global *globals;
	size_t nglobals, capglobals;
	uint32_t named[ANCHOR_NFALLBACK];	/* first of each name */
};

void anchor_cands_free(struct anchor_cands *c);

/* A defined symbol @s, number @idx, whose name may be a fallback name. */
static __always_inline void
anchor_cands_named(struct anchor_cands *c, const struct symbol *s,
		   uint32_t idx)
{
	size_t j;

	for (j = 0; j < ANCHOR_NFALLBACK; j++)
		if (!c->named[j] && !strcmp(s->name, anchor_fallback_names[j]))
			c->named[j] = idx;
}

void anchor_globals_grow(struct anchor_cands *c);

/* A symbol @s, number @idx, defined in section 0 < s->shndx < nsecs. */
static __always_inline void
anchor_cands_consider(struct anchor_cands *c, const struct image *im,
		      const struct symbol *s, uint32_t idx)
{
	struct anchor_global *g;

	/* a local symbol is never eligible: one compare for most */
	if (s->bind == STB_LOCAL || !anchor_eligible(im, s))
		return;
	if (c->nglobals == c->capglobals)
		anchor_globals_grow(c);
	g = &c->globals[c->nglobals++];
	g->sym = *s;
	g->idx = idx;
}

/*
 * @forced: --anchor, or NULL; @cands: the symbol pass's, which the
 * anchors point into (free them after @a).
 */
int anchors_choose(struct image *im, const char *forced,
		   const struct site *sites, size_t nsites,
		   struct anchor_cands *cands, struct anchors *a);
void anchors_free(struct anchors *a);


#endif
