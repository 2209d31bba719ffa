// SPDX-License-Identifier: GPL-2.0
/*
 * The quick scan's relocation scan on several threads (fastscan.c): the
 * relocations split into nearly equal runs, one worker of relocscan.c
 * per thread.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jobs.h"
#include "relocscan.h"
#include "util.h"

/* Below this many relocations one thread is faster than starting more. */
#define PARALLEL_MIN_RELOCS 200000
#define MAX_THREADS 8

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

/* Split the relocations into @nw nearly equal runs of chunks. */
static struct reloc_chunk *make_chunks(const struct image *im,
				       const struct relocs *rels, size_t nrels,
				       size_t total, struct reloc_worker *w,
				       int nw)
{
	struct reloc_chunk *c = xcalloc(nrels + (size_t)nw, sizeof(*c));
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
			reloc_chunk_init(&c[nc++], im, r, from, from + take);
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

/* Gather the workers' candidates into one array. */
static struct site *gather(struct reloc_worker *w, int nw, struct scan_stats *st,
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

int relocscan_threads(struct image *im, const struct scan_opts *o,
		      const uint8_t *is_mcount, struct scan_stats *st,
		      struct site **cand, size_t *n, bool *sorted)
{
	struct reloc_worker *w;
	struct reloc_chunk *chunks;
	struct relocs *rels = NULL;
	uint64_t t0 = now_ns();
	size_t nrels;
	int nw, i, ret = -1;

	if (collect_relocs(im, &rels, &nrels, &st->relocs) < 0)
		goto out_free_rels;
	st->relsecs = nrels;
	nw = thread_count(o, st->relocs);
	w = xcalloc((size_t)nw, sizeof(*w));
	reloc_workers_init(w, nw, im, is_mcount);
	chunks = make_chunks(im, rels, nrels, st->relocs, w, nw);
	run_jobs(w, (size_t)nw, sizeof(*w), reloc_worker_run);
	st->threads = nw;
	ret = reloc_report_bad(im, w, nw);
	if (!ret)
		*cand = gather(w, nw, st, n, sorted);
	for (i = 0; i < nw; i++)
		free(w[i].out);
	free(w);
	free(chunks);
	st->ns_relocs = now_ns() - t0;
out_free_rels:
	free(rels);
	return ret;
}
