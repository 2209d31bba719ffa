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
	/* --anchor SYM */
	if (forced && strcmp(forced, "auto")) {
		if (forced_anchor(im, forced, nsites, a) < 0)
			goto out;
		return 0;
	}
	if (im->interposable && ehdr_anchor(im, a) < 0)
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
			lp_error(im->path, im->secs[i].name, "%s",
				 im->interposable ? NO_SAFE_ANCHOR : NO_ANCHOR);
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
