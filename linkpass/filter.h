/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Filter and sort (filter.c): of the candidate sites, keep the calls
 * at a live function's entry in a traced section, by the entry set
 * where it can tell or else by judging each with its reason (the
 * sorted function index), and sort what is kept and dropped.
 */
#ifndef LINKPASS_FILTER_H
#define LINKPASS_FILTER_H

#include "compiler.h"
#include "entries.h"
#include "site.h"

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
 * *@start: where the function starts, when kept.  Here, not in
 * filter.c, so that the filter's loop over every candidate inlines it
 * (and pads.c asks it too).
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
