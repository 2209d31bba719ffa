/* SPDX-License-Identifier: GPL-2.0 */
/* Filter and sort: the candidates at live, traced entries, in order. */
#ifndef LINKPASS_FILTER_H
#define LINKPASS_FILTER_H

#include "site.h"

/* Sort @v by (section, address), or by address; @sorted: known sorted. */
void sort_sites(struct site *v, size_t n, size_t nsecs, bool by_addr,
		bool sorted);

/* By section: does the policy of @o trace it?  The caller frees it. */
uint8_t *traced_sections(const struct image *im, const struct scan_opts *o);

/*
 * The candidates' verdicts, each with its reason, by r->funcs (built):
 * r->kept and r->dropped.  @cand becomes r->kept.
 */
void filter_sites(struct image *im, const uint8_t *traced,
		  struct site *cand, size_t n, bool cand_sorted,
		  struct scan_result *r);

/*
 * fastfilter.c: the entry set of the traced code sections (of every
 * one with @pads), and the kept sites by it: -1, with nothing changed,
 * where a site needs filter_sites()'s judgement
 */
struct entry_set;
struct entry_set *fast_entry_set(const struct image *im, const uint8_t *traced,
				 bool pads);
void fast_entry_set_free(struct entry_set *e);
int fast_filter(struct image *im, const uint8_t *traced,
		const struct entry_set *e, struct site *cand, size_t n,
		int threads, struct scan_result *r, bool *kept_unsorted);
/* @v (by section and address) by address, if its runs do not overlap */
bool sort_by_runs(struct site *v, size_t n);

#endif
