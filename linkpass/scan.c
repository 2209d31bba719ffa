// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-image scan.  After the symbol pass (symbols.c), phase 1 reads
 * the kept relocation sections of code in place, in parallel, and
 * collects every reference to an mcount symbol.  Phase 2 sorts the
 * candidates and filters them against the section policy and the live
 * function symbols.
 */
#include "scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "anchor.h"
#include "compiler.h"
#include "entries.h"
#include "hooks.h"
#include "mcount.h"
#include "order.h"
#include "patchable.h"
#include "symbols.h"
#include "relocs.h"
#include "table_read.h"
#include "util.h"

const struct scan_want scan_explained = { .reasons = true };

/* Below this many relocations one thread is faster than starting more. */
#define PARALLEL_MIN_RELOCS 200000
#define MAX_THREADS 8
/* How far back from a site to look for padding before a dead body. */
#define DEAD_BODY_WINDOW 256
/* Function alignment of gcc and clang at -O2 on x86. */
#define FUNC_ALIGN 16

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

static bool before_sec(const struct site *x, const struct site *y)
{
	return x->shndx != y->shndx ? x->shndx < y->shndx : x->addr < y->addr;
}

static bool before_addr(const struct site *x, const struct site *y)
{
	return x->addr != y->addr ? x->addr < y->addr : x->shndx < y->shndx;
}

/*
 * For the scan without reasons: note the entry-style call @s, dropped
 * for lying at no function entry (r->unentered).
 */
static void note_unentered(struct scan_result *r, const struct site *s)
{
	if (r->nunentered == r->capunentered) {
		r->capunentered = r->capunentered ? 2 * r->capunentered : 16;
		r->unentered = xrealloc(r->unentered, r->capunentered *
					sizeof(*r->unentered));
	}
	r->unentered[r->nunentered++] = *s;
}

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

/*
 * Sort @v by (section, address), or by address alone when @by_addr.
 * Relocations come in offset order, so the sites usually arrive sorted:
 * that is checked first, and only a real disorder pays for the sort.
 */
/* How many sorted runs sort_by_runs() handles before giving up. */
#define MAX_RUNS 64

struct run {
	size_t from, to;
};

static int cmp_run(const void *a, const void *b, void *arg)
{
	const struct site *v = arg;
	const struct run *x = a, *y = b;

	return before_addr(&v[x->from], &v[y->from]) ? -1 : 1;
}

/*
 * Sites sorted by (section, address) are, in a linked image, a few runs
 * (one per section) each sorted by address; when the runs' address
 * ranges do not overlap, putting the runs in order is the whole sort:
 * one copy instead of a radix sort.  Returns false, having changed
 * nothing, when that is not the case.
 */
static bool sort_by_runs(struct site *v, size_t n)
{
	struct run runs[MAX_RUNS];
	struct site *copy;
	size_t i, nruns = 0, at = 0;

	for (i = 1; i <= n; i++) {
		if (i < n && !before_addr(&v[i], &v[i - 1]))
			continue;
		if (nruns == MAX_RUNS)
			return false;
		runs[nruns].from = nruns ? runs[nruns - 1].to : 0;
		runs[nruns++].to = i;
	}
	qsort_r(runs, nruns, sizeof(*runs), cmp_run, v);
	for (i = 1; i < nruns; i++)
		if (!before_addr(&v[runs[i - 1].to - 1], &v[runs[i].from]))
			return false;
	copy = xmalloc(n * sizeof(*copy));
	for (i = 0; i < nruns; i++) {
		memcpy(copy + at, v + runs[i].from,
		       (runs[i].to - runs[i].from) * sizeof(*v));
		at += runs[i].to - runs[i].from;
	}
	memcpy(v, copy, n * sizeof(*v));
	free(copy);
	return true;
}

static void sort_sites(struct site *v, size_t n, size_t nsecs, bool by_addr,
		       bool sorted)
{
	uint32_t *sec, *order;
	uint64_t *addr;
	struct site *copy;
	size_t i;

	/* @sorted: the caller saw them in order as it made them */
	for (i = 1; !sorted && i < n; i++)
		if (by_addr ? before_addr(&v[i], &v[i - 1]) :
			      before_sec(&v[i], &v[i - 1]))
			break;
	if (sorted || i >= n || (by_addr && sort_by_runs(v, n)))
		return;
	sec = xmalloc(n * sizeof(*sec));
	addr = xmalloc(n * sizeof(*addr));
	for (i = 0; i < n; i++) {
		sec[i] = v[i].shndx;
		addr[i] = v[i].addr;
	}
	/* by address: sections only break ties, so sort by (addr, sec) as
	 * a section sort of the address order
	 */
	if (by_addr)
		order = order_by_section_addr(NULL, addr, n, 1);
	else
		order = order_by_section_addr(sec, addr, n, nsecs);
	copy = xmalloc(n * sizeof(*copy));
	memcpy(copy, v, n * sizeof(*copy));
	for (i = 0; i < n; i++)
		v[i] = copy[order[i]];
	free(copy);
	free(order);
	free(addr);
	free(sec);
}

/*
 * Does the call at @s start a function body that has no symbol?  That
 * is how an overridden weak function looks in the final image: its
 * code stays, right after the function before it and its padding.
 * When the function before has no size (hand-written asm), the best
 * sign left is an entry aligned the way compilers align functions.
 */
static bool dead_body(struct image *im, const struct funcs *f,
		      const struct site *s)
{
	const struct section *sec = &im->secs[s->shndx];
	uint64_t base = im->ehdr.e_type == ET_REL ? 0 : sec->sh.sh_addr;
	const struct func *prev = funcs_prev(f, s->shndx, s->addr);
	const uint8_t *b = sec->bytes;
	uint64_t pos = prev ? prev->end : base;
	unsigned int n;

	if (!s->entry_style)
		return false;
	/* a symbol's range may start before its section (bad input) */
	if (pos < base)
		pos = base;
	if (prev && prev->end == prev->start) {
		pos = s->addr;
		if (s->addr - base >= 4 &&
		    im->arch->entry_prefix(b + (s->addr - base - 4), 4))
			pos -= 4;
		return pos % FUNC_ALIGN == 0;
	}
	if (pos > s->addr || s->addr - pos > DEAD_BODY_WINDOW)
		return false;
	while (pos < s->addr) {
		n = im->arch->padding_len(b + (pos - base), s->addr - pos);
		if (!n)
			break;
		pos += n;
	}
	if (pos < s->addr)
		pos += im->arch->entry_prefix(b + (pos - base), s->addr - pos);
	return pos == s->addr;
}

static enum site_verdict judge(struct image *im, const uint8_t *traced,
			       const struct funcs *f, const struct site *s,
			       const struct site *prev,
			       const struct func **last_func, long *hint)
{
	const struct section *sec = &im->secs[s->shndx];
	const struct func *fn;

	if (s->verdict != SITE_KEPT)
		return (enum site_verdict)s->verdict;
	if (prev && prev->shndx == s->shndx && prev->addr == s->addr)
		return DROP_DUPLICATE;
	if (!traced[s->shndx])
		return DROP_UNTRACED;
	fn = funcs_lookup(f, s->shndx, s->addr, hint);
	if (!fn)
		return dead_body(im, f, s) ? DROP_DEAD_BODY : DROP_NO_FUNC;
	if (s->entry_style && s->addr != funcs_entry(im, sec, fn, s->addr))
		return DROP_NOT_ENTRY;
	/* -pg without -mfentry: the full tool's rule, or none */
	if (!s->entry_style && !extras()->mcount_verdict)
		return DROP_NOT_ENTRY;
	if (!s->entry_style &&
	    extras()->mcount_verdict(im, sec, fn, s, *last_func) != SITE_KEPT)
		return DROP_NOT_ENTRY;
	*last_func = fn;
	return SITE_KEPT;
}

static uint8_t *traced_sections(const struct image *im,
				const struct scan_opts *o)
{
	uint8_t *traced = xcalloc(im->nsecs, 1);
	size_t i;

	for (i = 1; i < im->nsecs; i++)
		traced[i] = policy_traced(&o->policy, im->secs[i].name);
	return traced;
}

/* Judge every candidate, with its reason; @cand becomes r->kept. */
static void filter_explained(struct image *im, const uint8_t *traced,
			     struct site *cand, size_t n,
			     struct scan_result *r)
{
	const struct func *last_func = NULL;
	const struct site *prev = NULL;
	long hint = -1;
	size_t i;

	r->explained = true;
	r->dropped = xmalloc((n ? n : 1) * sizeof(*r->dropped));
	r->kept = cand;	/* kept sites are compacted in place */
	for (i = 0; i < n; i++) {
		struct site s = cand[i];

		s.verdict = (uint8_t)judge(im, traced, &r->funcs, &s, prev,
					   &last_func, &hint);
		r->stats.verdicts[s.verdict]++;
		if (s.verdict == SITE_KEPT) {
			r->kept[r->nkept++] = s;
			prev = &r->kept[r->nkept - 1];
		} else {
			r->dropped[r->ndropped++] = s;
		}
	}
}

enum fast_verdict {
	FAST_KEEP,
	FAST_DROP,	/* inside a function, not at its entry */
	FAST_NO_START,	/* no function starts there or a prefix before */
	FAST_UNSURE,
};

/*
 * Is the entry-style call @s at a live function's entry, possibly after
 * an entry prefix (endbr64)?  The answer judge() would give, from the
 * entry set alone; FAST_UNSURE where only the sorted index can tell (a
 * function starting inside the prefix that does not cover the call).
 * *@start: where the function starts, when kept.
 */
static __always_inline enum fast_verdict
at_entry(const struct image *im, const struct entry_set *e,
	 const struct site *s, uint64_t *start)
{
	const struct section *sec = &im->secs[s->shndx];
	uint64_t base = e->map[s->shndx].base;
	unsigned int k;
	bool wide;

	*start = s->addr;
	if (entries_has(e, s->shndx, s->addr, &wide))
		return FAST_KEEP;
	/* the nearest start within a prefix's length before the call */
	for (k = 1; k <= ARCH_ENTRY_PREFIX_MAX && k <= s->addr; k++) {
		/* a start before the section: only the index can tell */
		if (s->addr - k < base)
			return e->outside ? FAST_UNSURE : FAST_NO_START;
		if (!entries_has(e, s->shndx, s->addr - k, &wide))
			continue;
		/* a function that may end inside the prefix: likewise */
		if (!wide)
			return FAST_UNSURE;
		*start = s->addr - k;
		return im->arch->entry_prefix(sec->bytes + (s->addr - k - base),
					      k) == k ? FAST_KEEP : FAST_DROP;
	}
	return FAST_NO_START;
}

/*
 * --patchable-entries: the verdict patchable.c's judge_entry() gives
 * the listed address @s, from the entry set and its covered bytes: a
 * live function's entry (at_entry()), or the start of a run of nops in
 * no function that ends at one (before_entry(): M nops before the
 * function).  FAST_NO_START: dropped, in no function.  FAST_UNSURE
 * where a function covers a byte of the run without starting there:
 * then only the sorted index can tell, as it looks a few starts back.
 * *@start as at_entry(); *@nops: the nops from @s to it (0 at an entry).
 */
static enum fast_verdict pad_at(const struct image *im,
				const struct entry_set *e,
				const struct site *s, uint64_t *start,
				unsigned int *nops)
{
	const struct section *sec = &im->secs[s->shndx];
	uint64_t base = e->map[s->shndx].base, end = base + sec->sh.sh_size;
	enum fast_verdict v = at_entry(im, e, s, start);
	uint64_t pos;
	unsigned int n;
	bool wide;

	*nops = 0;
	if (v != FAST_NO_START)
		return v;
	if (entries_covered(e, s->shndx, s->addr))
		return FAST_UNSURE;
	for (pos = s->addr; pos < end && pos - s->addr <= PAD_PRE_ENTRY_MAX;
	     pos += n, ++*nops) {
		if (pos != s->addr &&
		    entries_has(e, s->shndx, pos, &wide)) {
			*start = pos;
			return FAST_KEEP;
		}
		if (pos != s->addr && entries_covered(e, s->shndx, pos))
			return FAST_UNSURE;
		n = im->arch->pad_nop_len(sec->bytes + (pos - base), end - pos);
		if (!n)
			break;
	}
	return FAST_NO_START;
}

/*
 * filter_fast() over candidates [@from, @to): the kept ones into @kept
 * (*@nkept of them), the entry-style calls at no function entry noted
 * in @notes (note_unentered()).  Returns -1 at a site that needs judge().
 */
static int filter_range(const struct image *im, const uint8_t *traced,
			const struct entry_set *e, const struct site *cand,
			size_t from, size_t to, struct site *kept,
			size_t *nkept, struct scan_result *notes,
			bool *kept_unsorted)
{
	const struct site *prev = NULL;
	enum fast_verdict v;
	uint64_t start;
	size_t i;

	*nkept = 0;
	for (i = from; i < to; i++) {
		const struct site *s = &cand[i];

		if (s->verdict != SITE_KEPT || !traced[s->shndx] ||
		    (prev && prev->shndx == s->shndx && prev->addr == s->addr))
			continue;
		v = s->entry_style ? at_entry(im, e, s, &start) : FAST_UNSURE;
		if (v == FAST_UNSURE)
			return -1;
		if (v == FAST_KEEP) {
			if (prev && before_addr(s, prev))
				*kept_unsorted = true;
			kept[(*nkept)++] = *s;
			prev = &kept[*nkept - 1];
		} else if (s->entry_style) {
			note_unentered(notes, s);	/* stripped.c decides */
		}
	}
	return 0;
}

/* One half of a parallel filter_fast(). */
struct filter_half {
	const struct image *im;
	const uint8_t *traced;
	const struct entry_set *e;
	const struct site *cand;
	size_t from, to;
	struct site *kept;
	size_t nkept;
	struct scan_result notes;	/* only its unentered list */
	bool kept_unsorted;
	int ret;
};

static void *filter_half_run(void *arg)
{
	struct filter_half *h = arg;

	h->ret = filter_range(h->im, h->traced, h->e, h->cand, h->from, h->to,
			      h->kept, &h->nkept, &h->notes, &h->kept_unsorted);
	return NULL;
}

/*
 * Below this many candidates one thread filters faster than two (the
 * filter reads the entry maps at each site: about 15 ns a site).
 */
#define PARALLEL_MIN_SITES 50000

/*
 * Where to cut @cand (sorted, @n of them) in two: near the middle, and
 * never between two records of one site, so that each half drops its
 * duplicates as one pass would.  0: do not cut.
 */
static size_t filter_split(const struct site *cand, size_t n, int threads)
{
	size_t m;

	if (threads == 1 || n < 2)
		return 0;
	if (threads == 0 &&
	    (n < PARALLEL_MIN_SITES || sysconf(_SC_NPROCESSORS_ONLN) < 2))
		return 0;
	for (m = n / 2; m < n; m++)
		if (cand[m].shndx != cand[m - 1].shndx ||
		    cand[m].addr != cand[m - 1].addr)
			return m;
	return 0;
}

/*
 * The kept sites only, by the entry set: no sorted function index.
 * Returns -1, having changed nothing, when a site needs judge() (a
 * prologue-style mcount call, or FAST_UNSURE); @cand is then intact.
 * A big list is filtered in two halves on two threads (@threads as in
 * scan_opts): each writes its own part of the kept array and keeps its
 * own notes, joined in order below.
 */
static int filter_fast(struct image *im, const uint8_t *traced,
		       const struct entry_set *e, struct site *cand, size_t n,
		       int threads, struct scan_result *r,
		       bool *kept_unsorted)
{
	struct site *kept = xmalloc((n ? n : 1) * sizeof(*kept));
	size_t cut = filter_split(cand, n, threads), nkept = 0, i;
	struct filter_half h[2];
	int k, nh = cut ? 2 : 1, ret = 0;

	for (k = 0; k < 2; k++)
		h[k] = (struct filter_half){ .im = im, .traced = traced,
					     .e = e, .cand = cand };
	h[0].to = cut ? cut : n;
	h[0].kept = kept;
	h[1].from = cut;
	h[1].to = n;
	h[1].kept = kept + cut;
	run_jobs(h, (size_t)nh, sizeof(h[0]), filter_half_run);
	/* the halves joined in order: kept sites, order, notes */
	for (k = 0; k < nh; k++) {
		if (h[k].ret < 0)
			ret = -1;
		if (!ret && nkept && h[k].nkept &&
		    before_addr(&h[k].kept[0], &kept[nkept - 1]))
			*kept_unsorted = true;
		*kept_unsorted |= h[k].kept_unsorted;
		memmove(kept + nkept, h[k].kept, h[k].nkept * sizeof(*kept));
		nkept += h[k].nkept;
		for (i = 0; !ret && i < h[k].notes.nunentered; i++)
			note_unentered(r, &h[k].notes.unentered[i]);
		free(h[k].notes.unentered);
	}
	if (ret < 0) {
		free(kept);
		free(r->unentered);	/* filter_explained() judges them all */
		r->unentered = NULL;
		r->nunentered = 0;
		r->capunentered = 0;
		return -1;
	}
	free(cand);
	r->kept = kept;
	r->nkept = nkept;
	r->stats.verdicts[SITE_KEPT] = nkept;
	return 0;
}

/*
 * Takes @cand: it becomes r->kept or is freed.  @e: the entry set, or
 * NULL when the scan explains every drop.  Fails only when the image's
 * symbols cannot be decoded.
 */
static int filter(struct image *im, const uint8_t *traced,
		  const struct entry_set *e, struct site *cand, size_t n,
		  bool cand_sorted, int threads, struct scan_result *r)
{
	bool kept_unsorted = false, fast;

	sort_sites(cand, n, im->nsecs, false, cand_sorted);
	fast = e && filter_fast(im, traced, e, cand, n, threads, r,
				&kept_unsorted) == 0;
	if (!fast) {
		/* the index needs the decoded symbols */
		if (image_symbols(im) < 0) {
			free(cand);
			return -1;
		}
		if (!r->funcs.v)
			funcs_build(im, &r->funcs);
		filter_explained(im, traced, cand, n, r);
	}
	if (im->ehdr.e_type != ET_REL) {
		sort_sites(r->kept, r->nkept, im->nsecs, true,
			   fast && !kept_unsorted);
		sort_sites(r->dropped, r->ndropped, im->nsecs, true, false);
	}
	return 0;
}

/*
 * Entry maps for the traced sections that code relocations apply to,
 * from the section headers alone (collect_relocs() checks the rest);
 * with --patchable-entries for every traced code section, the bytes
 * each function covers marked too.
 */
static void init_entry_set(const struct image *im, const struct scan_opts *o,
			   const uint8_t *traced, struct entry_set *e)
{
	uint8_t *want = xcalloc(im->nsecs ? im->nsecs : 1, 1);
	const struct section *t;
	size_t i;

	for (i = 1; i < im->nsecs; i++) {
		if (o->patchable)
			t = &im->secs[i];
		else if (image_is_code_relocs(im, &im->secs[i]))
			t = &im->secs[im->secs[i].sh.sh_info];
		else
			continue;
		/* sh_size of anything but NOBITS lies inside the file */
		want[t->idx] = traced[t->idx] && t->sh.sh_type != SHT_NOBITS &&
			       (t->sh.sh_flags & SHF_EXECINSTR);
	}
	entries_init(e, im, want, o->patchable);
	free(want);
}

/*
 * --patchable-entries on a linked image, without drop reasons: the
 * listed addresses (patchable_candidates()) judged by the entry set
 * (pad_at()), as patchable_scan() judges them with the sorted index.
 * Returns 1, with nothing reported, where that takes the index (see
 * pad_at()), or a kept entry starts no pad of the given geometry, or
 * entries lie in no function of an image without local function
 * symbols: patchable_scan() then decides, and says why.
 */
static int pad_sites(struct image *im, const struct scan_opts *o,
		     const uint8_t *traced, const struct entry_set *e,
		     struct scan_result *r)
{
	const struct site *prev = NULL;
	size_t n, i, nkept = 0, nofunc = 0;
	enum fast_verdict v;
	struct site *cand, s;
	unsigned int nops;
	struct func fn = { 0 };
	uint64_t t0 = now_ns();
	int ret;

	ret = patchable_candidates(im, &cand, &n, &r->stats);
	if (ret)
		return ret;
	r->stats.ns_relocs = now_ns() - t0;
	t0 = now_ns();
	sort_sites(cand, n, im->nsecs, true, false);
	/* kept sites are compacted in place */
	for (i = 0; i < n; i++) {
		s = cand[i];
		if ((prev && prev->addr == s.addr && prev->shndx == s.shndx) ||
		    !traced[s.shndx])
			continue;
		fn.shndx = s.shndx;
		v = pad_at(im, e, &s, &fn.start, &nops);
		if (v == FAST_KEEP && o->pad_n &&
		    !pad_fits_after(im, o, &im->secs[s.shndx], &fn, s.addr,
				    nops))
			v = FAST_UNSURE;
		if (v == FAST_UNSURE)
			goto out_unsure;
		nofunc += v == FAST_NO_START;
		if (v == FAST_KEEP) {
			cand[nkept++] = s;
			prev = &cand[nkept - 1];
		}
	}
	if (!im->nlocal_funcs && nofunc)
		goto out_unsure;
	r->kept = cand;
	r->nkept = nkept;
	r->stats.verdicts[SITE_KEPT] = nkept;
	r->stats.ns_filter = now_ns() - t0;
	return 0;
out_unsure:
	free(cand);
	return 1;
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
		if (w[i].unsorted || (last && before_sec(&w[i].out[0], last)))
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

/* What one scan_image() holds while it runs (scan_run_free()). */
struct scan_run {
	struct image *im;
	const struct scan_opts *o;
	struct scan_result *r;
	uint8_t *traced;	/* by section: does the policy trace it? */
	uint8_t *is_mcount;	/* by symbol: enum mcount_kind */
	bool fast;		/* no reasons wanted: the entry set, not funcs */
	struct entry_set e;
	struct site *cand;	/* the relocations' candidate sites */
	size_t ncand;
	bool cand_sorted;
};

/*
 * The mcount symbols, and in the same pass the entry set (unless every
 * drop is to be explained: then the sorted function index), the anchor
 * candidates and the table's bounds.
 */
static int symbols_phase(struct scan_run *s, const struct scan_want *want)
{
	struct image *im = s->im;
	struct scan_result *r = s->r;
	struct sym_pass p = { 0 };
	uint64_t t0 = now_ns();

	if (want->reasons && image_symbols(im) < 0)
		return -1;
	s->traced = traced_sections(im, s->o);
	s->fast = !want->reasons;
	if (s->fast) {
		init_entry_set(im, s->o, s->traced, &s->e);
		p.e = &s->e;
	}
	if (want->anchors) {
		r->anchors = xmalloc(sizeof(*r->anchors));
		anchor_cands_init(r->anchors, im);
		p.anchors = r->anchors;
	}
	s->is_mcount = xcalloc(im->nsyms ? im->nsyms : 1, 1);
	p.is_mcount = s->is_mcount;
	p.bounds = want->bounds;
	if (run_symbol_pass(im, s->o, &p) < 0)
		return -1;
	if (want->bounds)
		want->bounds->looked = true;
	/* with reasons: the sorted index of functions, for judge() */
	if (!s->fast) {
		if (image_symbols(im) < 0)
			return -1;
		funcs_build(im, &r->funcs);
	}
	r->stats.ns_symbols = now_ns() - t0;
	/* peak memory: the symbols are read; keep only what is needed */
	if (p.anchors)
		anchor_cands_hold(p.anchors, im);
	image_release_globals(im);
	return 0;
}

/*
 * Every reference to an mcount symbol in the code relocations, read in
 * parallel (the workers), into s->cand.
 */
static int relocs_phase(struct scan_run *s)
{
	struct scan_result *r = s->r;
	struct relocs *rels = NULL;
	struct chunk *chunks;
	struct worker *w;
	size_t nrels, total, i;
	uint64_t t0 = now_ns();
	int nw, ret = -1;

	/* the code relocation sections, checked */
	if (collect_relocs(s->im, &rels, &nrels, &total) < 0)
		goto out_free_rels;
	nw = thread_count(s->o, total);
	w = make_workers(s->im, s->is_mcount, nw);
	chunks = make_chunks(s->im, rels, nrels, total, w, nw);
	run_jobs(w, (size_t)nw, sizeof(*w), worker_run);
	r->stats.ns_relocs = now_ns() - t0;
	r->stats.relsecs = nrels;
	r->stats.relocs = total;
	r->stats.threads = nw;
	ret = report_bad(s->im, w, nw);
	if (!ret)
		s->cand = gather(w, nw, &r->stats, &s->ncand, &s->cand_sorted);
	for (i = 0; i < (size_t)nw; i++)
		free(w[i].out);
	free(w);
	free(chunks);
out_free_rels:
	free(rels);
	return ret;
}

static void scan_run_free(struct scan_run *s)
{
	free(s->is_mcount);
	free(s->traced);
	if (s->fast)
		entries_free(&s->e);
}

/*
 * The scan's passes, in order.  Returns 0, -1 after an error line, or
 * 1 (nothing reported) when patchable_scan() must decide (find.c).
 */
int scan_image(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r)
{
	struct scan_run s = { .im = im, .o = o, .r = r };
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!im->symtab)
		return lp_error(im->path, ".symtab",
				"no symbol table: the image is stripped; scan the unstripped link output");
	/* --patchable-entries: only a list patchable_scan() would read */
	if (o->patchable && (want->reasons || im->ehdr.e_type == ET_REL ||
			     !patchable_candidates_ok(im)))
		return 1;
	/* the symbol pass: mcount symbols, entry set, anchors, bounds */
	if (symbols_phase(&s, want) < 0)
		goto out_free;
	/* the sites: the compiler's patchable list, or the relocations */
	if (o->patchable) {
		ret = pad_sites(im, o, s.traced, &s.e, r);
		goto out_free;
	}
	if (relocs_phase(&s) < 0)
		goto out_free;
	/* filter and sort: calls at live functions' entries, traced sections */
	r->stats.ns_filter = now_ns();
	if (filter(im, s.traced, s.fast ? &s.e : NULL, s.cand, s.ncand,
		   s.cand_sorted, o->threads, r) < 0)
		goto out_free;
	r->stats.ns_filter = now_ns() - r->stats.ns_filter;
	/*
	 * Never drop a live site silently: with local symbols discarded
	 * from the image, or from objects before the link, a static
	 * function looks like dead code.  The full tool's (stripped.c):
	 * the kernel keeps every local symbol, for kallsyms.
	 */
	if (extras()->stripped_start &&
	    extras()->stripped_start(im, r, want->stripped_later ?
				     o->threads : 1, &r->stripped) < 0)
		goto out_free;
	ret = want->stripped_later ? 0 : scan_finish(r);
out_free:
	scan_run_free(&s);
	if (ret)
		scan_result_free(r);	/* callers free only a result */
	return ret;
}

int scan_finish(struct scan_result *r)
{
	int ret = 0;

	if (r->stripped)
		ret = extras()->stripped_finish(r->stripped, &r->stats);
	r->stripped = NULL;
	return ret;
}

void scan_result_free(struct scan_result *r)
{
	/* its thread may still be running */
	if (r->stripped)
		extras()->stripped_cancel(r->stripped);
	free(r->kept);
	free(r->dropped);
	free(r->unentered);
	if (r->anchors)
		anchor_cands_free(r->anchors);
	free(r->anchors);
	funcs_free(&r->funcs);
	memset(r, 0, sizeof(*r));
}
