// SPDX-License-Identifier: GPL-2.0
/*
 * The quick scan, without drop reasons (find.c), as its passes in
 * order: the symbols read in place into an entry set (fastsyms.c,
 * entries.h) in place of the sorted index; the relocations on threads
 * (relocscan_mt.c) and the calls judged by the set (fastfilter.c), or
 * the patchable list judged by it (pads.c).  What the set cannot tell,
 * scan.c's exact filter or scan judges.
 */
#include <stdlib.h>
#include <string.h>

#include "entries.h"
#include "filter.h"
#include "heap.h"
#include "pads.h"
#include "relocscan.h"
#include "scan.h"
#include "stripped.h"
#include "symbols.h"
#include "util.h"

/* What one scan holds while it runs (fast_run_free()). */
struct fast_run {
	struct image *im;
	const struct scan_opts *o;
	struct scan_result *r;
	uint8_t *traced;	/* by section: does the policy trace it? */
	uint8_t *is_mcount;	/* by symbol: enum mcount_kind */
	struct entry_set *e;
};

static void fast_run_free(struct fast_run *s)
{
	free(s->is_mcount);
	free(s->traced);
	if (s->e)
		fast_entry_set_free(s->e);
}

/*
 * The mcount symbols, and in the same pass the anchors' fallback names,
 * the table's bounds and the entry set.
 */
static int symbols_phase(struct fast_run *s, const struct scan_want *want)
{
	struct image *im = s->im;
	struct scan_result *r = s->r;
	struct sym_pass p = { 0 };
	uint64_t t0 = now_ns();

	s->traced = traced_sections(im, s->o);
	s->e = fast_entry_set(im, s->traced, s->o->patchable);
	if (want->anchors) {
		r->anchors = xcalloc(1, sizeof(*r->anchors));
		p.anchors = r->anchors;
	}
	s->is_mcount = xcalloc(im->nsyms ? im->nsyms : 1, 1);
	p.is_mcount = s->is_mcount;
	p.bounds = want->bounds;
	if (fast_symbol_pass(im, s->o, &p, s->e) < 0)
		return -1;
	if (want->bounds)
		want->bounds->looked = true;
	r->stats.ns_symbols = now_ns() - t0;
	/*
	 * The pages of the names and global symbols go back; the anchors
	 * read the globals again once the sites are known, and a few names.
	 */
	if (want->anchors)
		image_release_names_pages(im);
	else
		image_release_globals_pages(im);
	return 0;
}

/*
 * The kept calls, by the entry set; if a site needs the sorted index
 * (an mcount call after a prologue, or one the set cannot place), all
 * are judged by filter.c with it.
 */
static int filter_phase(struct fast_run *s, struct site *cand, size_t n,
			bool sorted)
{
	struct image *im = s->im;
	struct scan_result *r = s->r;
	bool unsorted = false;

	sort_sites(cand, n, im->nsecs, false, sorted);
	if (fast_filter(im, s->traced, s->e, cand, n, s->o->threads, r,
			&unsorted) == 0) {
		/* a few runs (one a section) put in order, or a full sort */
		if (unsorted && !sort_by_runs(r->kept, r->nkept))
			sort_sites(r->kept, r->nkept, im->nsecs, true, false);
		return 0;
	}
	if (image_symbols(im) < 0) {
		free(cand);
		return -1;
	}
	funcs_build(im, &r->funcs);
	filter_sites(im, s->traced, cand, n, true, r);
	return 0;
}

/* The calls to the mcount symbols, as scan.c's scan_calls() finds them. */
static int scan_calls(struct fast_run *s, const struct scan_want *want)
{
	struct scan_result *r = s->r;
	struct site *cand;
	size_t ncand;
	bool sorted;

	if (relocscan_threads(s->im, s->o, s->is_mcount, &r->stats, &cand,
			      &ncand, &sorted) < 0)
		return -1;
	r->stats.ns_filter = now_ns();
	if (filter_phase(s, cand, ncand, sorted) < 0)
		return -1;
	r->stats.ns_filter = now_ns() - r->stats.ns_filter;
	/* the kernel keeps every local symbol; other images may not */
	if (stripped_begin(s->im, r, want->stripped_later ? s->o->threads : 1,
			   &r->stripped) < 0)
		return -1;
	return want->stripped_later ? 0 : scan_finish(r);
}

int fast_scan(struct image *im, const struct scan_opts *o,
	      const struct scan_want *want, struct scan_result *r)
{
	struct fast_run s = { .im = im, .o = o, .r = r };
	int ret;

	/* an object, or an image without symbols: scan.c's error or scan */
	if (im->ehdr.e_type == ET_REL || !im->symtab)
		return 1;
	memset(r, 0, sizeof(*r));
	heap_for_input(im->file_size);
	ret = symbols_phase(&s, want);
	/* pad_sites() gives 1 for an entry only patchable.c can judge */
	if (!ret)
		ret = o->patchable ? pad_sites(im, o, s.traced, s.e, r) :
		      scan_calls(&s, want);
	/*
	 * The anchors' candidates, now the sites are known; then the
	 * global symbols' pages go back to the kernel.
	 */
	if (want->anchors) {
		if (!ret)
			anchor_cands_gather(im, r->kept, r->nkept, r->anchors);
		image_release_globals_pages(im);
	}
	fast_run_free(&s);
	if (ret)
		scan_result_free(r);
	return ret;
}
