/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filter and sort: of the candidate sites, keep the calls at a live
 * function's entry in a traced section, and sort them.
 */
#ifndef LINKPASS_FILTER_H
#define LINKPASS_FILTER_H

#include "site.h"

struct entry_set;

/*
 * Sort @v by (section, address), or by address when @by_addr; sites
 * usually come sorted (@sorted: the caller knows), which is checked.
 */
void sort_sites(struct site *v, size_t n, size_t nsecs, bool by_addr,
		bool sorted);

/* By section: does the policy of @o trace it?  The caller frees it. */
uint8_t *traced_sections(const struct image *im, const struct scan_opts *o);

/*
 * The candidates' verdicts: r->kept and r->dropped, sorted by address
 * in a linked image.  @cand (@n, @cand_sorted by (section, address))
 * becomes r->kept or is freed.  @e: the full tool's entry set, or NULL
 * to judge each site with its reason.  -1 when the symbols cannot be
 * decoded.
 */
int filter_sites(struct image *im, const uint8_t *traced,
		 const struct entry_set *e, struct site *cand, size_t n,
		 bool cand_sorted, int threads, struct scan_result *r);

#endif
