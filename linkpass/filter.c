// SPDX-License-Identifier: GPL-2.0
/* Filter and sort: which candidates are sites, and in what order. */
#include "filter.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hooks.h"
#include "order.h"
#include "util.h"

/* How far back from a site to look for padding before a dead body. */
#define DEAD_BODY_WINDOW 256
/* Function alignment of gcc and clang at -O2 on x86. */
#define FUNC_ALIGN 16

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

/* How many sorted runs sort_by_runs() handles before giving up. */
#define MAX_RUNS 64

struct run {
	size_t from, to;
};

static int cmp_run(const void *a, const void *b, void *arg)
{
	const struct site *v = arg;
	const struct run *x = a, *y = b;

	return site_before_addr(&v[x->from], &v[y->from]) ? -1 : 1;
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
		if (i < n && !site_before_addr(&v[i], &v[i - 1]))
			continue;
		if (nruns == MAX_RUNS)
			return false;
		runs[nruns].from = nruns ? runs[nruns - 1].to : 0;
		runs[nruns++].to = i;
	}
	qsort_r(runs, nruns, sizeof(*runs), cmp_run, v);
	for (i = 1; i < nruns; i++)
		if (!site_before_addr(&v[runs[i - 1].to - 1], &v[runs[i].from]))
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

void sort_sites(struct site *v, size_t n, size_t nsecs, bool by_addr,
		bool sorted)
{
	uint32_t *sec, *order;
	uint64_t *addr;
	struct site *copy;
	size_t i;

	/* @sorted: the caller saw them in order as it made them */
	for (i = 1; !sorted && i < n; i++)
		if (by_addr ? site_before_addr(&v[i], &v[i - 1]) :
			      site_before_sec(&v[i], &v[i - 1]))
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

uint8_t *traced_sections(const struct image *im, const struct scan_opts *o)
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
			if (prev && site_before_addr(s, prev))
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
		    site_before_addr(&h[k].kept[0], &kept[nkept - 1]))
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

int filter_sites(struct image *im, const uint8_t *traced,
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
