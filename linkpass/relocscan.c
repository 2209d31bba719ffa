// SPDX-License-Identifier: GPL-2.0
/* The relocation workers: the mcount references in the code relocations. */
#include "relocscan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compiler.h"
#include "mcount.h"
#include "relocs.h"
#include "util.h"

/* Below this many relocations one thread is faster than starting more. */
#define PARALLEL_MIN_RELOCS 200000
#define MAX_THREADS 8

/* A contiguous run of one relocation section, handled by one worker. */
struct chunk {
	const struct relocs *rel;
	enum reloc_layout layout;
	const uint8_t *code;	/* bytes of the section relocated */
	uint64_t code_size;
	uint64_t base;		/* address of the section's first byte */
	size_t from, to;
};

struct bad_reloc {
	const struct chunk *chunk;
	size_t index;
	struct reloc r;
	int what;		/* BAD_OFFSET, BAD_SYMBOL, BAD_CALL */
};

enum { BAD_OFFSET = 1, BAD_SYMBOL = 2, BAD_CALL = 3 };

struct worker {
	const struct image *im;
	const uint8_t *is_mcount;
	/* is_mcount is 0 outside [mc_lo, mc_hi]: tested without a load */
	size_t mc_lo, mc_hi;
	const struct chunk *chunks;
	size_t nchunks;
	struct site *out;
	size_t n, cap;
	size_t refs, calls;
	bool unsorted;		/* out is not in (section, address) order */
	size_t nbad;
	struct bad_reloc bad;	/* the first one */
};

/* A new site at the end of the worker's array. */
static inline struct site *push_site(struct worker *w)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 1024;
		w->out = xrealloc(w->out, w->cap * sizeof(*w->out));
	}
	return &w->out[w->n++];
}

static void note_bad(struct worker *w, const struct chunk *c, size_t i,
		     const struct reloc *r, int what)
{
	if (!w->nbad++) {
		w->bad.chunk = c;
		w->bad.index = i;
		w->bad.r = *r;
		w->bad.what = what;
	}
}

/*
 * The hot loop, one copy per relocation layout (the layout is a
 * compile-time constant in each caller).  Most relocations fail the
 * is_mcount test; only those are looked at further.
 */
static __always_inline void
scan_chunk(enum reloc_layout l, struct worker *w, const struct chunk *c)
{
	const struct arch *arch = w->im->arch;
	const uint8_t *is_mcount = w->is_mcount;
	size_t nsyms = w->im->nsyms, i;
	size_t mc_lo = w->mc_lo, mc_span = w->mc_hi - w->mc_lo;
	uint32_t shndx = (uint32_t)c->rel->target->idx;
	const void *base = c->rel->base;
	/* the order check against the site pushed before this chunk */
	uint64_t last = 0;
	bool any = false;
	struct reloc r;

	if (w->n && w->out[w->n - 1].shndx > shndx)
		w->unsorted = true;
	else if (w->n && w->out[w->n - 1].shndx == shndx)
		last = w->out[w->n - 1].addr, any = true;
	for (i = c->from; i < c->to; i++) {
		/* the two fields every entry needs, in registers */
		uint64_t off = reloc_offset(l, base, i) - c->base;
		uint64_t sym = reloc_sym(l, base, i);
		uint64_t start = 0;
		enum call_form form;
		struct site *s;

		if (off >= c->code_size || sym >= nsyms) {
			reloc_get(l, base, i, &r);
			note_bad(w, c, i, &r, off >= c->code_size ? BAD_OFFSET :
				 BAD_SYMBOL);
			continue;
		}
		/*
		 * Most relocations name no mcount symbol, and those are
		 * usually one or two indices: a range test first spares
		 * the load from a by-symbol array, a cache miss as often
		 * as not on a big image.
		 */
		if (sym - mc_lo > mc_span || !is_mcount[sym])
			continue;
		/* a reference to mcount: is it a call, and where? */
		w->refs++;
		form = arch->call_at(c->code, c->code_size, off,
				     reloc_type(l, base, i), &start);
		if (form == CALL_BAD) {
			reloc_get(l, base, i, &r);
			note_bad(w, c, i, &r, BAD_CALL);
			continue;
		}
		s = push_site(w);
		s->shndx = shndx;
		s->form = (uint8_t)form;
		s->entry_style = is_mcount[sym] == MCOUNT_ENTRY;
		s->pad = 0;
		if (form == CALL_NONE) {
			s->addr = c->base + off;
			s->verdict = DROP_NOT_CALL;
		} else {
			s->addr = c->base + start;
			s->verdict = SITE_KEPT;
			w->calls++;
		}
		/* one compare here saves a pass over all to check order */
		if (any && s->addr < last)
			w->unsorted = true;
		last = s->addr;
		any = true;
	}
}

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	size_t i;

	/*
	 * No locking: each worker reads its own chunks of the mapped file,
	 * which nobody writes, and appends only to its own array.
	 */
	for (i = 0; i < w->nchunks; i++)
		RELOC_DISPATCH(w->chunks[i].layout, scan_chunk, w,
			       &w->chunks[i]);
	return NULL;
}

static int thread_count(const struct scan_opts *o, size_t nrelocs)
{
	long cpus;

	if (o->threads > 0)
		return o->threads > MAX_THREADS ? MAX_THREADS : o->threads;
	if (nrelocs < PARALLEL_MIN_RELOCS)
		return 1;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (cpus < 1)
		return 1;
	return cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
}

/* Load and check every code relocation section; fill @rels. */
static int collect_relocs(struct image *im, struct relocs **rels, size_t *n,
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

/* Split the relocations into @nw nearly equal runs of chunks. */
static struct chunk *make_chunks(const struct image *im,
				 const struct relocs *rels, size_t nrels,
				 size_t total, struct worker *w, int nw)
{
	struct chunk *c = xcalloc(nrels + (size_t)nw, sizeof(*c));
	size_t per = (total + (size_t)nw - 1) / (size_t)nw, nc = 0, i;
	size_t budget = per;
	int cur = 0;

	w[0].chunks = c;
	for (i = 0; i < nrels; i++) {
		const struct relocs *r = &rels[i];
		size_t from = 0;

		while (from < r->count) {
			size_t take = r->count - from;

			if (take > budget)
				take = budget;
			c[nc].rel = r;
			c[nc].layout = r->layout;
			c[nc].code = r->target->bytes;
			c[nc].code_size = r->target->sh.sh_size;
			c[nc].base = im->ehdr.e_type == ET_REL ?
				     0 : r->target->sh.sh_addr;
			c[nc].from = from;
			c[nc].to = from + take;
			nc++;
			w[cur].nchunks++;
			from += take;
			budget -= take;
			if (!budget && cur + 1 < nw) {
				cur++;
				w[cur].chunks = &c[nc];
				budget = per;
			} else if (!budget) {
				budget = SIZE_MAX;	/* the last worker takes the rest */
			}
		}
	}
	return c;
}

static int report_bad(struct image *im, struct worker *w, int nw)
{
	size_t total = 0;
	int i, first = -1;
	char place[160];

	for (i = 0; i < nw; i++) {
		total += w[i].nbad;
		if (w[i].nbad && first < 0)
			first = i;
	}
	if (first < 0)
		return 0;
	{
		const struct bad_reloc *b = &w[first].bad;
		const struct relocs *rel = b->chunk->rel;

		snprintf(place, sizeof(place), "%s entry %zu", rel->rsec->name,
			 b->index);
		/* the message names the symbol: the scan may have read the
		 * symbols in place (a bad one is reported by image_symbols)
		 */
		if (b->what == BAD_CALL && image_symbols(im) < 0)
			return -1;
		if (b->what == BAD_CALL)
			lp_error(im->path, place,
				 "%s: call relocation (type %u) against %s at %s+0x%llx is not on a %s instruction%s",
				 im->arch->name, b->r.type,
				 im->syms[b->r.sym].name, rel->target->name,
				 (unsigned long long)(b->r.offset - b->chunk->base),
				 im->arch->call_insn,
				 total > 1 ? " (and more bad relocations)" : "");
		else if (b->what == BAD_OFFSET)
			lp_error(im->path, place,
				 "relocation offset 0x%llx is outside %s (0x%llx..0x%llx)%s",
				 (unsigned long long)b->r.offset,
				 rel->target->name,
				 (unsigned long long)b->chunk->base,
				 (unsigned long long)(b->chunk->base +
						      b->chunk->code_size),
				 total > 1 ? " (and more bad relocations)" : "");
		else
			lp_error(im->path, place,
				 "symbol index %llu out of range (%zu symbols)%s",
				 (unsigned long long)b->r.sym, im->nsyms,
				 total > 1 ? " (and more bad relocations)" : "");
	}
	return -1;
}

/* Gather the workers' candidates into one array. */
static struct site *gather(struct worker *w, int nw, struct scan_stats *st,
			   size_t *n, bool *sorted)
{
	const struct site *last = NULL;
	struct site *cand;
	size_t total = 0;
	int i;

	*sorted = true;
	for (i = 0; i < nw; i++) {
		total += w[i].n;
		st->refs += w[i].refs;
		st->calls += w[i].calls;
		if (!w[i].n)
			continue;
		if (w[i].unsorted ||
		    (last && site_before_sec(&w[i].out[0], last)))
			*sorted = false;
		last = &w[i].out[w[i].n - 1];
	}
	if (nw == 1 && w[0].out) {
		/* one worker: its array is the result, no copy */
		*n = w[0].n;
		cand = w[0].out;
		w[0].out = NULL;
		return cand;
	}
	/*
	 * The first worker's array, grown (a big one is moved by mremap,
	 * not copied), takes the others' sites after its own.
	 */
	cand = xrealloc(w[0].out, (total ? total : 1) * sizeof(*cand));
	w[0].out = NULL;
	*n = w[0].n;
	for (i = 1; i < nw; i++) {
		if (!w[i].n)
			continue;	/* w[i].out is NULL */
		memcpy(cand + *n, w[i].out, w[i].n * sizeof(*cand));
		*n += w[i].n;
	}
	return cand;
}

static struct worker *make_workers(struct image *im, const uint8_t *is_mcount,
				   int nw)
{
	struct worker *w = xcalloc((size_t)nw, sizeof(*w));
	size_t lo = 0, hi = im->nsyms;
	int i;

	/* the span of the marked symbols; lo > hi when there is none */
	while (lo < im->nsyms && !is_mcount[lo])
		lo++;
	while (hi > lo && !is_mcount[hi - 1])
		hi--;
	for (i = 0; i < nw; i++) {
		w[i].im = im;
		w[i].is_mcount = is_mcount;
		w[i].mc_lo = lo < hi ? lo : SIZE_MAX;
		w[i].mc_hi = lo < hi ? hi - 1 : SIZE_MAX;
	}
	return w;
}

int relocscan_sites(struct image *im, const struct scan_opts *o,
		    const uint8_t *is_mcount, struct scan_stats *st,
		    struct site **cand, size_t *n, bool *sorted)
{
	struct relocs *rels = NULL;
	struct chunk *chunks;
	struct worker *w;
	size_t nrels, total, i;
	uint64_t t0 = now_ns();
	int nw, ret = -1;

	/* the code relocation sections, checked */
	if (collect_relocs(im, &rels, &nrels, &total) < 0)
		goto out_free_rels;
	nw = thread_count(o, total);
	w = make_workers(im, is_mcount, nw);
	chunks = make_chunks(im, rels, nrels, total, w, nw);
	run_jobs(w, (size_t)nw, sizeof(*w), worker_run);
	st->ns_relocs = now_ns() - t0;
	st->relsecs = nrels;
	st->relocs = total;
	st->threads = nw;
	ret = report_bad(im, w, nw);
	if (!ret)
		*cand = gather(w, nw, st, n, sorted);
	for (i = 0; i < (size_t)nw; i++)
		free(w[i].out);
	free(w);
	free(chunks);
out_free_rels:
	free(rels);
	return ret;
}
