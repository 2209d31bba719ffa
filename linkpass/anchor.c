// SPDX-License-Identifier: GPL-2.0
/* Choosing the anchor symbols of the table's relocations. */
#include "anchor.h"

#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "util.h"

const char *const anchor_fallback_names[ANCHOR_NFALLBACK] = {
	"_text", "_stext", "__executable_start", "_start", "main",
};

void anchor_cands_free(struct anchor_cands *c)
{
	free(c->globals);
	if (c->store)
		extras()->anchor_store_free(c->store);
	memset(c, 0, sizeof(*c));
}

void anchor_globals_grow(struct anchor_cands *c)
{
	c->capglobals = c->capglobals ? 2 * c->capglobals : 1024;
	c->globals = xrealloc(c->globals,
			      c->capglobals * sizeof(*c->globals));
}

/* Symbol @idx (0: none), valid as long as @c. */
static const struct symbol *cand_ptr(struct anchor_cands *c,
				     const struct image *im, uint32_t idx)
{
	if (!idx)
		return NULL;
	return im->syms_decoded ? &im->syms[idx] :
	       extras()->anchor_sym(c, im, idx);
}

/*
 * For a section without a global of its own: a shared library's
 * __ehdr_start, else a well-known start symbol, else the first
 * eligible symbol.
 */
static const struct symbol *image_anchor(const struct image *im,
					 struct anchor_cands *c,
					 const struct anchors *a)
{
	const struct symbol *s;
	size_t j;

	if (a->ehdr.name)
		return &a->ehdr;
	for (j = 0; j < ANCHOR_NFALLBACK; j++) {
		s = cand_ptr(c, im, c->named[j]);
		if (s && anchor_eligible(im, s))
			return s;
	}
	return cand_ptr(c, im, c->first);
}

/* Is @g a better pick than @cur (0: none), at @at: lower, or @higher? */
static bool pick_better(const struct image *im, struct anchor_cands *c,
			const struct anchor_global *g, uint32_t cur,
			uint64_t at, bool higher)
{
	if (!cur || g->value != at)
		return !cur || (higher ? g->value > at : g->value < at);
	return anchor_better(cand_ptr(c, im, g->idx), cand_ptr(c, im, cur));
}

/*
 * Each used section's anchor, by number (0: none): of its eligible
 * globals the nearest at or below its first site, else the lowest; of
 * equals the first in table order.
 */
static uint32_t *section_anchors(const struct image *im,
				 struct anchor_cands *c,
				 const struct site *sites, size_t nsites,
				 const bool *used)
{
	uint64_t *first = xcalloc(im->nsecs, sizeof(*first));
	uint32_t *near = xcalloc(im->nsecs, sizeof(*near));
	uint32_t *low = xcalloc(im->nsecs, sizeof(*low));
	uint64_t *at_near = xcalloc(im->nsecs, sizeof(*at_near));
	uint64_t *at_low = xcalloc(im->nsecs, sizeof(*at_low));
	const struct anchor_global *g;
	size_t i, k;

	for (k = 0; k < im->nsecs; k++)
		first[k] = UINT64_MAX;
	for (i = 0; i < nsites; i++) {
		k = sites[i].shndx;
		if (sites[i].addr < first[k])
			first[k] = sites[i].addr;
	}
	for (i = 0; i < c->nglobals; i++) {
		g = &c->globals[i];
		k = g->shndx;
		if (!used[k])
			continue;
		if (pick_better(im, c, g, low[k], at_low[k], false)) {
			low[k] = g->idx;
			at_low[k] = g->value;
		}
		if (g->value <= first[k] &&
		    pick_better(im, c, g, near[k], at_near[k], true)) {
			near[k] = g->idx;
			at_near[k] = g->value;
		}
	}
	for (k = 0; k < im->nsecs; k++)
		if (!near[k])
			near[k] = low[k];
	free(first);
	free(low);
	free(at_near);
	free(at_low);
	return near;
}

static void add_distinct(struct anchors *a, const struct symbol *s)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->list[i] == s)
			return;
	a->list[a->n++] = s;
}

/* Why no anchor could be chosen (a shared library's: anchor_dso.c). */
#define NO_SAFE_ANCHOR \
	"no anchor that another object cannot preempt: no segment loads the ELF header, so there is no __ehdr_start, and the library's globals are exported; link with -Bsymbolic, or load the headers (PHDRS, FILEHDR)"
#define NO_ANCHOR \
	"no global symbol to anchor the table entries to"

int anchors_choose(struct image *im, const char *forced,
		   const struct site *sites, size_t nsites,
		   struct anchor_cands *cands, struct anchors *a)
{
	struct anchor_cands own = { 0 };
	uint32_t *near = NULL;
	bool *used = NULL;
	size_t i;
	int ret = -1;

	memset(a, 0, sizeof(*a));
	a->by_shndx = xcalloc(im->nsecs, sizeof(*a->by_shndx));
	a->list = xcalloc(im->nsecs + 1, sizeof(*a->list));
	/* --anchor SYM: the full tool's (anchor_dso.c) */
	if (forced && strcmp(forced, "auto")) {
		if (extras()->forced_anchor(im, forced, nsites, a) < 0)
			goto out;
		return 0;
	}
	if (!cands) {
		if (image_symbols(im) < 0)
			goto out;
		for (i = 1; i < im->nsyms; i++) {
			const struct symbol *s = &im->syms[i];

			if (s->shndx == SHN_UNDEF)
				continue;
			anchor_cands_named(&own, s, (uint32_t)i);
			if (s->shndx < im->nsecs)
				anchor_cands_consider(&own, im, s, (uint32_t)i);
		}
		cands = &own;
	}
	if (im->interposable && extras()->ehdr_anchor(im, a) < 0)
		goto out;
	used = xcalloc(im->nsecs, sizeof(*used));
	for (i = 0; i < nsites; i++)
		used[sites[i].shndx] = true;
	near = section_anchors(im, cands, sites, nsites, used);
	for (i = 0; i < im->nsecs; i++) {
		if (!used[i])
			continue;
		a->by_shndx[i] = cand_ptr(cands, im, near[i]);
		if (!a->by_shndx[i])
			a->by_shndx[i] = image_anchor(im, cands, a);
		if (!a->by_shndx[i]) {
			lp_error(im->path, im->secs[i].name, "%s%s",
				 im->interposable ? NO_SAFE_ANCHOR : NO_ANCHOR,
				 im->interposable || !extras()->anchor_note ?
				 "" : extras()->anchor_note);
			goto out;
		}
		add_distinct(a, a->by_shndx[i]);
	}
	ret = 0;
out:
	free(used);
	free(near);
	anchor_cands_free(&own);
	if (ret)
		anchors_free(a);
	return ret;
}

void anchors_free(struct anchors *a)
{
	free(a->by_shndx);
	free(a->list);
	memset(a, 0, sizeof(*a));
}
