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

#endif
