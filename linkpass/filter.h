/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filter and sort (filter.c): of the candidate sites, keep the calls
 * at a live function's entry in a traced section, by the entry set
 * where it can tell or else by judging each with its reason (the
 * sorted function index), and sort what is kept and dropped.
 */
#ifndef LINKPASS_FILTER_H
#define LINKPASS_FILTER_H

#include "site.h"

struct entry_set;

/*
 * Sort @v by (section, address), or by address alone when @by_addr.
 * Relocations come in offset order, so the sites usually arrive sorted:
 * that is checked first, and only a real disorder pays for the sort.
 */
void sort_sites(struct site *v, size_t n, size_t nsecs, bool by_addr,
		bool sorted);

/* By section: does the policy of @o trace it?  The caller frees it. */
uint8_t *traced_sections(const struct image *im, const struct scan_opts *o);

/*
 * The candidates' verdicts, into @r: r->kept and (with reasons)
 * r->dropped, sorted by address in a linked image.  Takes @cand (@n
 * of them, @cand_sorted when already in (section, address) order): it
 * becomes r->kept or is freed.  @traced as traced_sections() gives.
 * @e: the entry set, or NULL when the scan explains every drop.
 * @threads as in scan_opts.  Fails only when the image's symbols
 * cannot be decoded.
 */
int filter_sites(struct image *im, const uint8_t *traced,
		 const struct entry_set *e, struct site *cand, size_t n,
		 bool cand_sorted, int threads, struct scan_result *r);

#endif
