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
	memset(c, 0, sizeof(*c));
}

void anchor_globals_grow(struct anchor_cands *c)
{
	c->capglobals = c->capglobals ? 2 * c->capglobals : 1024;
	c->globals = xrealloc(c->globals,
			      c->capglobals * sizeof(*c->globals));
}

/*
 * Symbol @idx among the eligible globals (in table order), or NULL: a
 * symbol named like a fallback is a candidate only when eligible.
 */
static const struct symbol *eligible_global(const struct anchor_cands *c,
					    uint32_t idx)
{
	size_t lo = 0, hi = c->nglobals, mid;

	while (idx && lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (c->globals[mid].idx == idx)
			return &c->globals[mid].sym;
		if (c->globals[mid].idx < idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * For a section without a global of its own: a shared library's
 * __ehdr_start, else a well-known start symbol, else the first
 * eligible symbol.
 */
static const struct symbol *image_anchor(const struct anchor_cands *c,
					 const struct anchors *a)
{
	const struct symbol *s;
	size_t j;

	if (a->ehdr.name)
		return &a->ehdr;
	for (j = 0; j < ANCHOR_NFALLBACK; j++) {
		s = eligible_global(c, c->named[j]);
		if (s)
			return s;
	}
	return c->nglobals ? &c->globals[0].sym : NULL;
}

/* Is @g a better pick than @cur (or NULL), at a lower address, or @higher? */
static bool pick_better(const struct anchor_global *g,
			const struct anchor_global *cur, bool higher)
{
	if (!cur || g->sym.value != cur->sym.value)
		return !cur || (higher ? g->sym.value > cur->sym.value :
				g->sym.value < cur->sym.value);
	return anchor_better(&g->sym, &cur->sym);
}

/*
 * Each used section's anchor (NULL: none): of its eligible globals the
 * nearest at or below its first site, else the lowest; of equals the
 * first in table order.
 */
static const struct anchor_global **
section_anchors(const struct image *im, const struct anchor_cands *c,
		const struct site *sites, size_t nsites, const bool *used)
{
	const struct anchor_global **near = xcalloc(im->nsecs, sizeof(*near));
	const struct anchor_global **low = xcalloc(im->nsecs, sizeof(*low));
	uint64_t *first = xcalloc(im->nsecs, sizeof(*first));
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
		k = g->sym.shndx;
		if (!used[k])
			continue;
		if (pick_better(g, low[k], false))
			low[k] = g;
		if (g->sym.value <= first[k] && pick_better(g, near[k], true))
			near[k] = g;
	}
	for (k = 0; k < im->nsecs; k++)
		if (!near[k])
			near[k] = low[k];
	free(first);
	free(low);
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
	const struct anchor_global **near = NULL;
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
	if (im->interposable && extras()->ehdr_anchor(im, a) < 0)
		goto out;
	used = xcalloc(im->nsecs, sizeof(*used));
	for (i = 0; i < nsites; i++)
		used[sites[i].shndx] = true;
	near = section_anchors(im, cands, sites, nsites, used);
	for (i = 0; i < im->nsecs; i++) {
		if (!used[i])
			continue;
		a->by_shndx[i] = near[i] ? &near[i]->sym :
				 image_anchor(cands, a);
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
