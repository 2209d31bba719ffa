// SPDX-License-Identifier: GPL-2.0
/* Choosing the anchor symbols of the table's relocations. */
#include "anchor.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Tried in order when a section has no global symbol of its own. */
static const char *const fallback_anchors[] = {
	"_text", "_stext", "__executable_start", "_start", "main",
};
#define NFALLBACK (sizeof(fallback_anchors) / sizeof(fallback_anchors[0]))

/*
 * A symbol another object can refer to and get this very address:
 * global or weak, default or protected visibility (hidden symbols were
 * made local by the link), defined in an allocated section, not an
 * IFUNC (a reference would resolve to the chosen implementation), and
 * not a __start_/__stop_ symbol (those may follow our own table).
 */
static inline bool eligible(const struct image *im, const struct symbol *s)
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
static bool better(const struct symbol *a, const struct symbol *b)
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

/*
 * The image-wide anchor, for a section without a global symbol of its
 * own: a well-known start symbol, else the first eligible symbol.
 */
static const struct symbol *image_anchor(struct image *im)
{
	const struct symbol *found[NFALLBACK] = { NULL }, *first = NULL;
	size_t i, j;

	/*
	 * One pass: for each well-known name its first defined symbol (as
	 * image_find_symbol() would find it), and the first eligible one.
	 */
	for (i = 1; i < im->nsyms; i++) {
		const struct symbol *s = &im->syms[i];

		if (s->shndx == SHN_UNDEF)
			continue;
		if (!first && eligible(im, s))
			first = s;
		if (s->name[0] != '_' && s->name[0] != 'm')
			continue;
		for (j = 0; j < NFALLBACK; j++)
			if (!found[j] && !strcmp(s->name, fallback_anchors[j]))
				found[j] = s;
	}
	for (j = 0; j < NFALLBACK; j++)
		if (found[j] && eligible(im, found[j]))
			return found[j];
	return first;
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
		   const struct site *sites, size_t nsites, struct anchors *a)
{
	const struct symbol *fallback = NULL, *s;
	bool *used;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->by_shndx = xcalloc(im->nsecs, sizeof(*a->by_shndx));
	a->list = xcalloc(im->nsecs + 1, sizeof(*a->list));

	if (forced && strcmp(forced, "auto")) {
		s = image_find_symbol(im, forced);
		if (!s) {
			lp_error(im->path, forced,
				 "anchor symbol is not defined in the image; choose another with --anchor");
			goto out_free_anchors;
		}
		if (!eligible(im, s)) {
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

	used = xcalloc(im->nsecs, sizeof(*used));
	for (i = 0; i < nsites; i++)
		used[sites[i].shndx] = true;
	for (i = 1; i < im->nsyms; i++) {
		s = &im->syms[i];
		/* most symbols are in no section with sites: test that first */
		if (s->shndx >= im->nsecs || !used[s->shndx])
			continue;
		/* above the best so far: never better (one compare) */
		if (a->by_shndx[s->shndx] &&
		    s->value > a->by_shndx[s->shndx]->value)
			continue;
		if (!eligible(im, s))
			continue;
		if (better(s, a->by_shndx[s->shndx]))
			a->by_shndx[s->shndx] = s;
	}
	for (i = 0; i < im->nsecs; i++) {
		if (!used[i])
			continue;
		if (!a->by_shndx[i] && !fallback)
			fallback = image_anchor(im);
		if (!a->by_shndx[i])
			a->by_shndx[i] = fallback;
		if (!a->by_shndx[i]) {
			free(used);
			lp_error(im->path, im->secs[i].name,
				 "no global symbol to anchor the table entries to; name one with --anchor");
			goto out_free_anchors;
		}
		add_distinct(a, a->by_shndx[i]);
	}
	free(used);
	return 0;

out_free_anchors:
	anchors_free(a);
	return -1;
}

void anchors_free(struct anchors *a)
{
	free(a->by_shndx);
	free(a->list);
	memset(a, 0, sizeof(*a));
}
