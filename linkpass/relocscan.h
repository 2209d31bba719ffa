/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The relocation scan: every reference to an mcount symbol in the kept
 * relocation sections of code, read in place, by one worker, or by
 * several (relocscan_mt.c).
 */
#ifndef LINKPASS_RELOCSCAN_H
#define LINKPASS_RELOCSCAN_H

#include "relocs.h"
#include "site.h"

/* A contiguous run of one relocation section, handled by one worker. */
struct reloc_chunk {
	const struct relocs *rel;
	const uint8_t *code;	/* bytes of the section relocated */
	uint64_t code_size;
	uint64_t base;		/* address of the section's first byte */
	size_t from, to;
};

struct reloc_worker {
	const struct image *im;
	const uint8_t *is_mcount;
	size_t mc_lo, mc_hi;	/* is_mcount is 0 outside */
	const struct reloc_chunk *chunks;
	size_t nchunks;
	struct site *out;
	size_t n, cap;
	size_t refs, calls;
	bool unsorted;		/* out is not in (section, address) order */
	size_t nbad;
	/* the first bad relocation, and why (relocscan.c) */
	const struct reloc_chunk *bad_chunk;
	size_t bad_index;
	struct reloc bad;
	int bad_what;
};

/* Load and check every code relocation section into @rels (*@n). */
int collect_relocs(struct image *im, struct relocs **rels, size_t *n,
		   size_t *total);
/* Workers @w[0..@nw) with no chunks, for @is_mcount (by symbol index). */
void reloc_workers_init(struct reloc_worker *w, int nw,
			const struct image *im, const uint8_t *is_mcount);
/* Relocations [@from, @to) of @r as chunk @c. */
void reloc_chunk_init(struct reloc_chunk *c, const struct image *im,
		      const struct relocs *r, size_t from, size_t to);
/* A worker's scan of its chunks (run_jobs()). */
void *reloc_worker_run(void *arg);
/* The error for the first bad relocation of workers @w, or 0. */
int reloc_report_bad(struct image *im, const struct reloc_worker *w, int nw);

/*
 * Each reference to a symbol @is_mcount marks, SITE_KEPT for a call
 * and DROP_NOT_CALL for any other, into *@cand (*@n; *@sorted when in
 * (section, address) order), counted in @st.  -1 after an error line.
 */
int relocscan_sites(struct image *im, const uint8_t *is_mcount,
		    struct scan_stats *st, struct site **cand, size_t *n,
		    bool *sorted);

/* relocscan_mt.c: relocscan_sites() on several threads (the quick scan) */
int relocscan_threads(struct image *im, const struct scan_opts *o,
		      const uint8_t *is_mcount, struct scan_stats *st,
		      struct site **cand, size_t *n, bool *sorted);

#endif
