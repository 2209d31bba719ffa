// SPDX-License-Identifier: GPL-2.0
/* Choosing the anchor symbols of the table's relocations. */
#include "anchor.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *const anchor_fallback_names[ANCHOR_NFALLBACK] = {
	"_text", "_stext", "__executable_start", "_start", "main",
};

void anchor_cands_init(struct anchor_cands *c, const struct image *im)
{
	size_t n = im->nsecs ? im->nsecs : 1;

	memset(c, 0, sizeof(*c));
	c->best = xcalloc(n, sizeof(*c->best));
	c->best_value = xcalloc(n, sizeof(*c->best_value));
	/* at most one per section and the image-wide one */
	c->cap = n + 1;
	c->store = xcalloc(c->cap, sizeof(*c->store));
	c->store_idx = xcalloc(c->cap, sizeof(*c->store_idx));
}

void anchor_cands_free(struct anchor_cands *c)
{
	free(c->best);
	free(c->best_value);
	free(c->store);
	free(c->store_idx);
	memset(c, 0, sizeof(*c));
}

/*
 * Symbol @idx as a pointer that stays valid as long as @c: into
 * im->syms, or a copy decoded once (the same symbol, the same pointer).
 */
static const struct symbol *cand_ptr(struct anchor_cands *c,
				     const struct image *im, uint32_t idx)
{
	size_t i;

	if (!idx)
		return NULL;
	if (im->syms_decoded)
		return &im->syms[idx];
	for (i = 0; i < c->nstore; i++)
		if (c->store_idx[i] == idx)
			return &c->store[i];
	if (c->nstore == c->cap)
		return NULL;	/* not reached: one per section at most */
	anchor_cand_sym(im, idx, &c->store[c->nstore]);
	c->store_idx[c->nstore] = idx;
	return &c->store[c->nstore++];
}

/*
 * The image-wide anchor, for a section without a global symbol of its
 * own: a well-known start symbol, else the first eligible symbol.
 */
static const struct symbol *image_anchor(const struct image *im,
					 struct anchor_cands *c)
{
	struct symbol s;
	size_t j;

	for (j = 0; j < ANCHOR_NFALLBACK; j++) {
		if (!c->named[j])
			continue;
		anchor_cand_sym(im, c->named[j], &s);
		if (anchor_eligible(im, &s))
			return cand_ptr(c, im, c->named[j]);
	}
	return cand_ptr(c, im, c->first);
}

static void add_distinct(struct anchors *a, const struct symbol *s)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->list[i] == s)
			return;
	a->list[a->n++] = s;
}

int anchors_choose(struct image *im, const char *forced,
		   const struct site *sites, size_t nsites,
		   struct anchor_cands *cands, struct anchors *a)
{
	struct anchor_cands own = { 0 };
	const struct symbol *s;
	bool *used;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->by_shndx = xcalloc(im->nsecs, sizeof(*a->by_shndx));
	a->list = xcalloc(im->nsecs + 1, sizeof(*a->list));

	if (forced && strcmp(forced, "auto")) {
		if (image_symbols(im) < 0)
			goto out_free_anchors;
		s = image_find_symbol(im, forced);
		if (!s) {
			lp_error(im->path, forced,
				 "anchor symbol is not defined in the image; choose another with --anchor");
			goto out_free_anchors;
		}
		if (!anchor_eligible(im, s)) {
			lp_error(im->path, forced,
				 "anchor symbol is local, hidden, an IFUNC or not in an allocated section, so the table object cannot refer to it; choose another with --anchor");
			goto out_free_anchors;
		}
		for (i = 0; i < im->nsecs; i++)
			a->by_shndx[i] = s;
		if (nsites)
			add_distinct(a, s);
		return 0;
	}

	if (!cands) {
		if (image_symbols(im) < 0)
			goto out_free_anchors;
		anchor_cands_init(&own, im);
		for (i = 1; i < im->nsyms; i++)
			anchor_cands_add(&own, im, &im->syms[i], (uint32_t)i);
		cands = &own;
	}
	used = xcalloc(im->nsecs, sizeof(*used));
	for (i = 0; i < nsites; i++)
		used[sites[i].shndx] = true;
	for (i = 0; i < im->nsecs; i++) {
		if (!used[i])
			continue;
		a->by_shndx[i] = cand_ptr(cands, im, cands->best[i]);
		if (!a->by_shndx[i])
			a->by_shndx[i] = image_anchor(im, cands);
		if (!a->by_shndx[i]) {
			free(used);
			lp_error(im->path, im->secs[i].name,
				 "no global symbol to anchor the table entries to; name one with --anchor");
			goto out_free_anchors;
		}
		add_distinct(a, a->by_shndx[i]);
	}
	free(used);
	anchor_cands_free(&own);
	return 0;

out_free_anchors:
	anchor_cands_free(&own);
	anchors_free(a);
	return -1;
}

void anchors_free(struct anchors *a)
{
	free(a->by_shndx);
	free(a->list);
	memset(a, 0, sizeof(*a));
}
