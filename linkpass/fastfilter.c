// SPDX-License-Identifier: GPL-2.0
/*
 * The quick scan's filter, without drop reasons (fastscan.c): the live
 * function entries as bitmaps (entries.h), which decide most sites
 * with no sorted function index; a big list is filtered on two
 * threads.  Whatever they cannot tell, filter.c judges.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "entries.h"
#include "filter.h"
#include "heap.h"
#include "jobs.h"
#include "scan.h"
#include "util.h"

/*
 * Entry maps for the traced sections that code relocations apply to,
 * from the section headers alone (relocscan.c checks the rest); with
 * @pads (the patchable list's sites) for every traced code section,
 * the bytes each function covers marked too.
 */
struct entry_set *fast_entry_set(const struct image *im, const uint8_t *traced,
				 bool pads)
{
	struct entry_set *e = xmalloc(sizeof(*e));
	uint8_t *want = xcalloc(im->nsecs ? im->nsecs : 1, 1);
	const struct section *t;
	size_t i;

	for (i = 1; i < im->nsecs; i++) {
		if (pads)
			t = &im->secs[i];
		else if (image_is_code_relocs(im, &im->secs[i]))
			t = &im->secs[im->secs[i].sh.sh_info];
		else
			continue;
		/* sh_size of anything but NOBITS lies inside the file */
		want[t->idx] = traced[t->idx] && t->sh.sh_type != SHT_NOBITS &&
			       (t->sh.sh_flags & SHF_EXECINSTR);
	}
	entries_init(e, im, want, pads);
	free(want);
	return e;
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
int fast_filter(struct image *im, const uint8_t *traced,
		const struct entry_set *e, struct site *cand, size_t n,
		int threads, struct scan_result *r, bool *kept_unsorted)
{
	struct site *kept = xmalloc((n ? n : 1) * sizeof(*kept));
	size_t cut = filter_split(cand, n, threads), nkept = 0, i;
	struct filter_half h[2];
	int k, nh = cut ? 2 : 1, ret = 0;

	huge_hint(kept, (n ? n : 1) * sizeof(*kept));
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
bool sort_by_runs(struct site *v, size_t n)
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

void fast_entry_set_free(struct entry_set *e)
{
	entries_free(e);
	free(e);
}
