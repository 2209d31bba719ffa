/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Anchors: the symbols table entries are relative to.  Each entry is
 * "anchor + offset" with a relocation, so the linker computes the final
 * address and relocatable (KASLR) kernels keep working.  By default
 * each section's sites use the global symbol of that section nearest
 * at or below its first site (else its lowest global): the offsets
 * then stay valid when the table object shifts whole output sections,
 * or grows what the section holds before its code (arm64's kernel
 * puts page tables ahead of .init.text in one output section), and the
 * build converges in fewer links.
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
	/*
	 * A shared library's one anchor, __ehdr_start (name NULL when
	 * there is none): linker-defined and hidden, so nothing preempts
	 * it, and its value comes from the program headers, so it is
	 * known before the image refers to it.
	 */
	struct symbol ehdr;
};

/*
 * The name of a shared library's image-wide anchor.  Both GNU ld and lld
 * define it, hidden, when a reference asks for it and a segment loads
 * the ELF header.
 */
#define ANCHOR_EHDR "__ehdr_start"

/*
 * A global of default or protected visibility (hidden symbols were made
 * local by the link): one that another object can refer to by name.
 */
static inline bool anchor_exported(const struct symbol *s)
{
	return (s->bind == STB_GLOBAL || s->bind == STB_WEAK) &&
	       (s->vis == STV_DEFAULT || s->vis == STV_PROTECTED);
}

/*
 * A symbol another object can refer to and get this very address:
 * exported, not from a shared library, defined in an allocated section,
 * not an IFUNC (a reference would resolve to the chosen implementation),
 * and not a __start_/__stop_ symbol (those may follow our own table).
 *
 * ld.so may bind a reference to a shared library's global in the first
 * loaded object that defines the name: another library, or another copy
 * of this one.  Protected visibility is no remedy: GNU ld 2.40 still
 * writes R_X86_64_64 against a protected function (for function pointer
 * equality), and what ld.so makes of it depends on the C library.  A
 * shared library's entries are relative to __ehdr_start instead.
 */
static inline bool anchor_eligible(const struct image *im,
				   const struct symbol *s)
{
	if (!anchor_exported(s) || im->interposable)
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

/*
 * What anchors_choose() needs from the symbols, gathered in one pass,
 * as symbol indices (0: none), so that the pass may read each symbol in
 * place and keep none of them.
 */
/* An eligible global: where it is, and its number. */
struct anchor_global {
	uint64_t value;
	uint32_t idx;
	uint32_t shndx;
};

struct anchor_cands {
	/* every eligible global, in table order: each section's anchor
	 * is chosen from them once its sites are known (anchors_choose())
	 */
	struct anchor_global *globals;
	size_t nglobals, capglobals;
	/* the first defined symbol of each fallback name (as
	 * image_find_symbol() finds it), and the first eligible symbol
	 */
	uint32_t named[ANCHOR_NFALLBACK];
	uint32_t first;
	/* the chosen ones (or all, anchor_cands_hold()), decoded when
	 * the image's symbols are not, their names copied
	 */
	struct symbol *store;
	uint32_t *store_idx;
	size_t nstore, cap;
};

void anchor_cands_init(struct anchor_cands *c, const struct image *im);
void anchor_cands_free(struct anchor_cands *c);
/*
 * Decode the named candidates and the first eligible now, names copied,
 * while the symbol table is still in memory: the scan then hands its
 * pages back (image_release_globals()).  The anchor chosen for a
 * section is decoded when chosen; its page comes back from the file.
 */
void anchor_cands_hold(struct anchor_cands *c, const struct image *im);

/* Symbol @idx, which a pass already read in place once. */
static inline void anchor_cand_sym(const struct image *im, uint32_t idx,
				   struct symbol *out)
{
	if (im->syms_decoded)
		*out = im->syms[idx];
	else
		image_sym_get(im, idx, out);
}

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
/* @hi's eligible globals after @lo's (two halves of one pass). */
void anchor_globals_append(struct anchor_cands *lo,
			   const struct anchor_cands *hi);

static __always_inline void anchor_global_add(struct anchor_cands *c,
					      const struct symbol *s,
					      uint32_t idx)
{
	struct anchor_global *g;

	if (c->nglobals == c->capglobals)
		anchor_globals_grow(c);
	g = &c->globals[c->nglobals++];
	g->value = s->value;
	g->idx = idx;
	g->shndx = s->shndx;
}

/* A symbol @s, number @idx, defined in section 0 < s->shndx < nsecs. */
static __always_inline void
anchor_cands_consider(struct anchor_cands *c, const struct image *im,
		      const struct symbol *s, uint32_t idx)
{
	/* a local symbol is never eligible: one compare for most */
	if (s->bind == STB_LOCAL || !anchor_eligible(im, s))
		return;
	if (!c->first)
		c->first = idx;
	anchor_global_add(c, s, idx);
}

/*
 * Take symbol @s, number @idx, into account.  Called for the symbols in
 * table order, so of equals the first one stays.
 */
static inline void anchor_cands_add(struct anchor_cands *c,
				    const struct image *im,
				    const struct symbol *s, uint32_t idx)
{
	if (s->shndx == SHN_UNDEF)
		return;
	if (s->name[0] == '_' || s->name[0] == 'm')
		anchor_cands_named(c, s, idx);
	if (s->shndx < im->nsecs)
		anchor_cands_consider(c, im, s, idx);
}

/*
 * @forced: one symbol for every entry, or NULL / "auto".  @cands: the
 * candidates, gathered by anchor_cands_add() in a pass the caller made
 * anyway, or NULL to gather them here.
 */
int anchors_choose(struct image *im, const char *forced,
		   const struct site *sites, size_t nsites,
		   struct anchor_cands *cands, struct anchors *a);
void anchors_free(struct anchors *a);

#endif
