// SPDX-License-Identifier: GPL-2.0
/* The relocation scan: the mcount references in the code relocations. */
#include "relocscan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler.h"
#include "mcount.h"
#include "util.h"

enum { BAD_OFFSET = 1, BAD_SYMBOL = 2, BAD_CALL = 3 };

/*
 * Each relocation gives at most one site: the worker's array is sized
 * once from its relocations, so that no site is ever copied by a
 * realloc (two workers growing theirs side by side in one heap cost a
 * copy of each, or none, from run to run).  Only the pages written are
 * touched.
 */
static void reserve_sites(struct reloc_worker *w)
{
	size_t n = 0, i;

	for (i = 0; i < w->nchunks; i++)
		n += w->chunks[i].to - w->chunks[i].from;
	if (n > w->cap) {
		w->cap = n;
		w->out = xrealloc(w->out, w->cap * sizeof(*w->out));
	}
}

static inline struct site *push_site(struct reloc_worker *w)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 1024;
		w->out = xrealloc(w->out, w->cap * sizeof(*w->out));
	}
	return &w->out[w->n++];
}

/* Out of the hot loop: a bad relocation is rare, and ends the scan. */
static noinline __cold void
note_bad(enum reloc_layout l, struct reloc_worker *w,
	 const struct reloc_chunk *c, size_t i, int what)
{
	if (!w->nbad++) {
		w->bad_chunk = c;
		w->bad_index = i;
		reloc_get(l, c->rel->base, i, &w->bad);
		w->bad_what = what;
	}
}

/* The hot loop, one copy per relocation layout (RELOC_DISPATCH). */
static __always_inline void
scan_chunk(enum reloc_layout l, struct reloc_worker *w, const struct reloc_chunk *c)
{
	const struct arch *arch = w->im->arch;
	const uint8_t *is_mcount = w->is_mcount;
	size_t nsyms = w->im->nsyms, i, to = c->to;
	size_t mc_lo = w->mc_lo, mc_span = w->mc_hi - w->mc_lo;
	uint32_t shndx = (uint32_t)c->rel->target->idx;
	const void *base = c->rel->base;
	/* in locals: the sites written below might alias the chunk */
	const uint8_t *code = c->code;
	uint64_t code_size = c->code_size, sec_base = c->base;
	/* the order check against the site pushed before this chunk */
	uint64_t last = 0;
	bool any = false;

	if (w->n && w->out[w->n - 1].shndx > shndx)
		w->unsorted = true;
	else if (w->n && w->out[w->n - 1].shndx == shndx)
		last = w->out[w->n - 1].addr, any = true;
	for (i = c->from; i < to; i++) {
		uint64_t off = reloc_offset(l, base, i) - sec_base;
		uint64_t sym = reloc_sym(l, base, i);
		uint64_t start = 0;
		enum call_form form;
		struct site *s;

		if (off >= code_size || sym >= nsyms) {
			note_bad(l, w, c, i, off >= code_size ? BAD_OFFSET :
				 BAD_SYMBOL);
			continue;
		}
		/* a range test first spares most loads from is_mcount */
		if (sym - mc_lo > mc_span || !is_mcount[sym])
			continue;
		w->refs++;
		form = arch->call_at(code, code_size, off,
				     reloc_type(l, base, i), &start);
		if (form == CALL_BAD) {
			note_bad(l, w, c, i, BAD_CALL);
			continue;
		}
		s = push_site(w);
		s->shndx = shndx;
		s->form = (uint8_t)form;
		s->entry_style = is_mcount[sym] == MCOUNT_ENTRY;
		s->pad = 0;
		if (form == CALL_NONE) {
			s->addr = sec_base + off;
			s->verdict = DROP_NOT_CALL;
		} else {
			s->addr = sec_base + start;
			s->verdict = SITE_KEPT;
			w->calls++;
		}
		if (any && s->addr < last)
			w->unsorted = true;
		last = s->addr;
		any = true;
	}
}

void *reloc_worker_run(void *arg)
{
	struct reloc_worker *w = arg;
	size_t i;

	/* no locking: the mapped file is read only, the array is ours */
	reserve_sites(w);
	for (i = 0; i < w->nchunks; i++)
		RELOC_DISPATCH(w->chunks[i].rel->layout, scan_chunk, w,
			       &w->chunks[i]);
	return NULL;
}

/* Is any of the 8 bytes at @p non-zero? */
static inline bool any8(const uint8_t *p)
{
	uint64_t w;

	memcpy(&w, p, sizeof(w));
	return w != 0;
}

void reloc_workers_init(struct reloc_worker *w, int nw,
			const struct image *im, const uint8_t *is_mcount)
{
	size_t lo = 0, hi = im->nsyms;
	int i;

	/*
	 * The span of the marked symbols, 8 bytes at a time from each end
	 * (a few among 100,000); lo > hi when there is none.
	 */
	while (lo + 8 <= hi && !any8(is_mcount + lo))
		lo += 8;
	while (lo < im->nsyms && !is_mcount[lo])
		lo++;
	while (hi >= lo + 8 && !any8(is_mcount + hi - 8))
		hi -= 8;
	while (hi > lo && !is_mcount[hi - 1])
		hi--;
	for (i = 0; i < nw; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].im = im;
		w[i].is_mcount = is_mcount;
		w[i].mc_lo = lo < hi ? lo : SIZE_MAX;
		w[i].mc_hi = lo < hi ? hi - 1 : SIZE_MAX;
	}
}

void reloc_chunk_init(struct reloc_chunk *c, const struct image *im,
		      const struct relocs *r, size_t from, size_t to)
{
	c->rel = r;
	c->code = r->target->bytes;
	c->code_size = r->target->sh.sh_size;
	c->base = im->ehdr.e_type == ET_REL ? 0 : r->target->sh.sh_addr;
	c->from = from;
	c->to = to;
}

int collect_relocs(struct image *im, struct relocs **rels, size_t *n,
		   size_t *total)
{
	struct section *first_code = NULL;
	size_t i;

	*rels = xcalloc(im->nsecs, sizeof(**rels));
	*n = 0;
	*total = 0;
	for (i = 1; i < im->nsecs; i++) {
		struct section *s = &im->secs[i];
		struct relocs *r = &(*rels)[*n];

		/* name .text in the error below when there is one */
		if ((!first_code || !strcmp(s->name, ".text")) &&
		    (s->sh.sh_flags & SHF_EXECINSTR) &&
		    (s->sh.sh_flags & SHF_ALLOC) && s->sh.sh_size)
			first_code = s;
		/* never skip, unread, relocations whose target is unknown */
		if ((s->sh.sh_type == SHT_RELA || s->sh.sh_type == SHT_REL) &&
		    !(s->sh.sh_flags & SHF_ALLOC) && s->sh.sh_info >= im->nsecs)
			return lp_error(im->path, s->name,
					"sh_info %u out of range (%zu sections)",
					s->sh.sh_info, im->nsecs);
		if (!image_is_code_relocs(im, s))
			continue;
		if (image_relocs(im, s, r) < 0)
			return -1;
		if (!r->count)
			continue;
		if (r->target->sh.sh_type == SHT_NOBITS ||
		    !r->target->sh.sh_size)
			return lp_error(im->path, s->name,
					"relocates %s, which has no bytes (%s)",
					r->target->name,
					r->target->sh.sh_size ? "SHT_NOBITS" :
					"size 0");
		if (!image_section_bytes(im, r->target))
			return -1;
		*total += r->count;
		(*n)++;
	}
	/* an object keeps every relocation: none means no call at all */
	if (!*n && first_code && im->ehdr.e_type != ET_REL)
		return lp_error(im->path, first_code->name,
				"no relocations kept for code; link the image with -q (--emit-relocs)");
	return 0;
}

int reloc_report_bad(struct image *im, const struct reloc_worker *w, int nw)
{
	const struct reloc_worker *b = NULL;
	const struct reloc_chunk *c;
	const char *more;
	size_t total = 0;
	char place[160];
	int i;

	for (i = nw - 1; i >= 0; i--) {
		total += w[i].nbad;
		if (w[i].nbad)
			b = &w[i];
	}
	if (!b)
		return 0;
	c = b->bad_chunk;
	more = total > 1 ? " (and more bad relocations)" : "";
	snprintf(place, sizeof(place), "%s entry %zu", c->rel->rsec->name,
		 b->bad_index);
	/* the message names the symbol, which the scan may not have decoded */
	if (b->bad_what == BAD_CALL && image_symbols(im) < 0)
		return -1;
	if (b->bad_what == BAD_CALL)
		return lp_error(im->path, place,
				"%s: call relocation (type %u) against %s at %s+0x%llx is not on a %s instruction%s",
				im->arch->name, b->bad.type,
				im->syms[b->bad.sym].name, c->rel->target->name,
				(unsigned long long)(b->bad.offset - c->base),
				im->arch->call_insn, more);
	if (b->bad_what == BAD_OFFSET)
		return lp_error(im->path, place,
				"relocation offset 0x%llx is outside %s (0x%llx..0x%llx)%s",
				(unsigned long long)b->bad.offset,
				c->rel->target->name,
				(unsigned long long)c->base,
				(unsigned long long)(c->base + c->code_size),
				more);
	return lp_error(im->path, place,
			"symbol index %llu out of range (%zu symbols)%s",
			(unsigned long long)b->bad.sym, im->nsyms, more);
}

int relocscan_sites(struct image *im, const uint8_t *is_mcount,
		    struct scan_stats *st, struct site **cand, size_t *n,
		    bool *sorted)
{
	struct reloc_chunk *chunks;
	struct reloc_worker w;
	struct relocs *rels = NULL;
	size_t nrels, total, i;
	uint64_t t0 = now_ns();
	int ret = -1;

	if (collect_relocs(im, &rels, &nrels, &total) < 0)
		goto out_free_rels;
	st->relsecs = nrels;
	st->relocs = total;
	/* one worker, a chunk per section */
	chunks = xcalloc(nrels ? nrels : 1, sizeof(*chunks));
	for (i = 0; i < nrels; i++)
		reloc_chunk_init(&chunks[i], im, &rels[i], 0, rels[i].count);
	reloc_workers_init(&w, 1, im, is_mcount);
	w.chunks = chunks;
	w.nchunks = nrels;
	reloc_worker_run(&w);
	st->threads = 1;
	st->refs = w.refs;
	st->calls = w.calls;
	ret = reloc_report_bad(im, &w, 1);
	if (!ret) {
		*cand = w.out ? w.out : xmalloc(sizeof(**cand));
		*n = w.n;
		*sorted = !w.unsorted;
	} else {
		free(w.out);
	}
	free(chunks);
	st->ns_relocs = now_ns() - t0;
out_free_rels:
	free(rels);
	return ret;
}
