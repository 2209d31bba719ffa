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
#include "inplace.h"
#include "site.h"

struct anchors {
	const struct symbol **by_shndx;	/* anchor for each section */
	const struct symbol **list;	/* the distinct anchors used */
	size_t n;
	struct symbol ehdr;	/* a shared library's __ehdr_start */
	/* the globals chosen, decoded by number: the lists point here */
	struct symbol *picked;
	uint32_t *picked_idx;
	size_t npicked;
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
	/* one compare rules out nearly every name */
	return s->name[0] && (s->name[0] != '_' || s->name[1] != '_' ||
			      (strncmp(s->name, "__start_", 8) &&
			       strncmp(s->name, "__stop_", 7)));
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

/* An eligible global: where it is, and its number (0: none). */
struct anchor_global {
	uint64_t value;
	uint32_t shndx;
	uint32_t idx;
};

/*
 * What anchors_choose() needs: the fallback names, found by the symbol
 * pass; then, once the sites are known, anchor_cands_gather()'s picks.
 */
struct anchor_cands {
	uint32_t named[ANCHOR_NFALLBACK];	/* first of each name */
	uint64_t *first_site;	/* by section: its first site or NO_SITE */
	/* by section: the eligible global nearest at or below its first site */
	struct anchor_global *near;
	struct anchor_global *low;	/* and the lowest */
	uint32_t first;			/* the first eligible symbol */
};

void anchor_cands_free(struct anchor_cands *c);

/* Symbol @idx, which the symbol pass read: decoded, or read in place. */
static inline void anchor_sym(const struct image *im, uint32_t idx,
			      struct symbol *s)
{
	if (im->syms_decoded)
		*s = im->syms[idx];
	else
		image_sym_get(im, idx, s);
}

/* A section's first site when it has none. */
#define NO_SITE UINT64_MAX

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

/*
 * The candidates of each section with a site of @sites, in one pass over
 * the symbols (decoded, or read in place: before their pages go back).
 */
void anchor_cands_gather(const struct image *im, const struct site *sites,
			 size_t nsites, struct anchor_cands *c);

/*
 * The anchors of @nsites sites: the one --anchor names (@forced, or NULL
 * or "auto"), else each section's by @cands, gathered for those sites.
 */
int anchors_choose(struct image *im, const char *forced, size_t nsites,
		   const struct anchor_cands *cands, struct anchors *a);
void anchors_free(struct anchors *a);

#endif
