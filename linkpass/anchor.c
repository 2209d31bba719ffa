// SPDX-License-Identifier: GPL-2.0
/*
 * Choosing the anchor symbols of the table's relocations: each
 * section's, a shared library's __ehdr_start, or the one --anchor names.
 */
#include "anchor.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *const anchor_fallback_names[ANCHOR_NFALLBACK] = {
	"_text", "_stext", "__executable_start", "_start", "main",
};

/* Symbol @idx as an anchor of @a: decoded once, kept in @a. */
static const struct symbol *pick(const struct image *im, struct anchors *a,
				 uint32_t idx)
{
	size_t i;

	for (i = 0; i < a->npicked; i++)
		if (a->picked_idx[i] == idx)
			return &a->picked[i];
	a->picked_idx[a->npicked] = idx;
	anchor_sym(im, idx, &a->picked[a->npicked]);
	return &a->picked[a->npicked++];
}

/*
 * For a section without a global of its own: a shared library's
 * __ehdr_start, else a well-known start symbol, else the first
 * eligible symbol.
 */
static const struct symbol *image_anchor(const struct image *im,
					 const struct anchor_cands *c,
					 struct anchors *a)
{
	struct symbol s;
	size_t j;

	if (a->ehdr.name)
		return &a->ehdr;
	/* a symbol named like a fallback is a candidate only when eligible */
	for (j = 0; j < ANCHOR_NFALLBACK; j++) {
		if (!c->named[j])
			continue;
		anchor_sym(im, c->named[j], &s);
		if (anchor_eligible(im, &s))
			return pick(im, a, c->named[j]);
	}
	return c->first ? pick(im, a, c->first) : NULL;
}

static void add_distinct(struct anchors *a, const struct symbol *s)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (a->list[i] == s)
			return;
	a->list[a->n++] = s;
}

/* Why no anchor could be chosen. */
#define NO_SAFE_ANCHOR \
	"no anchor that another object cannot preempt: no segment loads the ELF header, so there is no __ehdr_start, and the library's globals are exported; link with -Bsymbolic, or load the headers (PHDRS, FILEHDR)"
#define NO_ANCHOR \
	"no global symbol to anchor the table entries to; name one with --anchor"

/* a shared library's anchor: the linkers define it, ld.so cannot move it */
#define EHDR_START "__ehdr_start"
#define ANCHOR_PREEMPTIBLE \
	"anchor symbol is exported from a shared library, so the dynamic linker may bind it in another object; leave out --anchor (the entries are then relative to __ehdr_start)"
#define ANCHOR_UNREACHABLE \
	"anchor symbol is local, hidden, an IFUNC or not in an allocated section, so the table object cannot refer to it; choose another with --anchor"

/*
 * The address of the ELF header in memory, as the linkers define
 * __ehdr_start: the start of the PT_LOAD segment at file offset 0, when
 * it holds the whole header.  1 and *@addr set, 0 when no segment loads
 * the header, -1 (reported) when the program headers cannot be read.
 */
static int image_ehdr_addr(struct image *im, uint64_t *addr)
{
	GElf_Phdr ph;
	size_t i, n;

	if (elf_getphdrnum(im->elf, &n) < 0)
		return lp_elf_error(im->path, "program headers", "cannot read");
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(im->elf, (int)i, &ph))
			return lp_elf_error(im->path, "program headers",
					    "cannot read");
		if (ph.p_type == PT_LOAD && ph.p_offset == 0 &&
		    ph.p_filesz >= im->ehdr.e_ehsize) {
			*addr = ph.p_vaddr;
			return 1;
		}
	}
	return 0;
}

/*
 * A shared library's image-wide anchor into a->ehdr, when a segment
 * loads the ELF header.  Once the table refers to it, the image defines
 * __ehdr_start itself; then both values must agree.
 */
static int ehdr_anchor(struct image *im, struct anchors *a)
{
	static const char *const name[] = { EHDR_START };
	struct symbol def;
	uint64_t addr = 0;
	bool found;
	int ret;

	ret = image_ehdr_addr(im, &addr);
	if (ret <= 0)
		return ret;
	if (fast_find_symbols(im, name, 1, &def, &found) < 0)
		return -1;
	if (found && def.value != addr)
		return lp_error(im->path, EHDR_START,
				"value 0x%llx is not the address of the ELF header (0x%llx, from the PT_LOAD at file offset 0)",
				(unsigned long long)def.value,
				(unsigned long long)addr);
	a->ehdr = (struct symbol){
		.name = EHDR_START, .value = addr, .shndx = SHN_ABS,
		.type = STT_NOTYPE, .bind = STB_LOCAL, .vis = STV_HIDDEN,
	};
	return 0;
}

/* --anchor SYM: every entry relative to that symbol. */
static int forced_anchor(struct image *im, const char *forced, size_t nsites,
			 struct anchors *a)
{
	const struct symbol *s;
	size_t i;

	if (image_symbols(im) < 0)
		return -1;
	s = image_find_symbol(im, forced);
	if (!s)
		return lp_error(im->path, forced,
				"anchor symbol is not defined in the image; choose another with --anchor");
	if (!anchor_eligible(im, s))
		return lp_error(im->path, forced, "%s",
				im->interposable && anchor_exported(s) ?
				ANCHOR_PREEMPTIBLE : ANCHOR_UNREACHABLE);
	for (i = 0; i < im->nsecs; i++)
		a->by_shndx[i] = s;
	if (nsites)
		a->list[a->n++] = s;
	return 0;
}

int anchors_choose(struct image *im, const char *forced, size_t nsites,
		   const struct anchor_cands *cands, struct anchors *a)
{
	const struct anchor_global *g;
	size_t i;

	memset(a, 0, sizeof(*a));
	a->by_shndx = xcalloc(im->nsecs, sizeof(*a->by_shndx));
	a->list = xcalloc(im->nsecs + 1, sizeof(*a->list));
	/* at most one pick a section, and one image-wide */
	a->picked = xcalloc(im->nsecs + 1, sizeof(*a->picked));
	a->picked_idx = xcalloc(im->nsecs + 1, sizeof(*a->picked_idx));
	/* --anchor SYM */
	if (forced && strcmp(forced, "auto")) {
		if (forced_anchor(im, forced, nsites, a) < 0)
			goto out_free;
		return 0;
	}
	if (im->interposable && ehdr_anchor(im, a) < 0)
		goto out_free;
	/* the sections with a site, in section order */
	for (i = 0; i < im->nsecs; i++) {
		if (cands->first_site[i] == NO_SITE)
			continue;
		/* the nearest at or below the first site, else the lowest */
		g = cands->near[i].idx ? &cands->near[i] : &cands->low[i];
		a->by_shndx[i] = g->idx ? pick(im, a, g->idx) :
				 image_anchor(im, cands, a);
		if (!a->by_shndx[i]) {
			lp_error(im->path, im->secs[i].name, "%s",
				 im->interposable ? NO_SAFE_ANCHOR : NO_ANCHOR);
			goto out_free;
		}
		add_distinct(a, a->by_shndx[i]);
	}
	return 0;
out_free:
	anchors_free(a);
	return -1;
}

void anchors_free(struct anchors *a)
{
	free(a->by_shndx);
	free(a->list);
	free(a->picked);
	free(a->picked_idx);
	memset(a, 0, sizeof(*a));
}
