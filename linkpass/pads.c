// SPDX-License-Identifier: GPL-2.0
/* Patchable pads placed at function entries by the entry set alone. */
#include "pads.h"

#include <stdlib.h>

#include "filter.h"
#include "patchable.h"
#include "util.h"

/*
 * --patchable-entries: the verdict patchable.c's judge_entry() gives
 * the listed address @s, from the entry set and its covered bytes: a
 * live function's entry (at_entry()), or the start of a run of nops in
 * no function that ends at one (before_entry(): M nops before the
 * function).  FAST_NO_START: dropped, in no function.  FAST_UNSURE
 * where a function covers a byte of the run without starting there:
 * then only the sorted index can tell, as it looks a few starts back.
 * *@start as at_entry(); *@nops: the nops from @s to it (0 at an entry).
 */
static enum fast_verdict pad_at(const struct image *im,
				const struct entry_set *e,
				const struct site *s, uint64_t *start,
				unsigned int *nops)
{
	const struct section *sec = &im->secs[s->shndx];
	uint64_t base = e->map[s->shndx].base, end = base + sec->sh.sh_size;
	enum fast_verdict v = at_entry(im, e, s, start);
	uint64_t pos;
	unsigned int n;
	bool wide;

	*nops = 0;
	if (v != FAST_NO_START)
		return v;
	if (entries_covered(e, s->shndx, s->addr))
		return FAST_UNSURE;
	for (pos = s->addr; pos < end && pos - s->addr <= PAD_PRE_ENTRY_MAX;
	     pos += n, ++*nops) {
		if (pos != s->addr &&
		    entries_has(e, s->shndx, pos, &wide)) {
			*start = pos;
			return FAST_KEEP;
		}
		if (pos != s->addr && entries_covered(e, s->shndx, pos))
			return FAST_UNSURE;
		n = im->arch->pad_nop_len(sec->bytes + (pos - base), end - pos);
		if (!n)
			break;
	}
	return FAST_NO_START;
}

int pad_sites(struct image *im, const struct scan_opts *o,
	      const uint8_t *traced, const struct entry_set *e,
	      struct scan_result *r)
{
	const struct site *prev = NULL;
	size_t n, i, nkept = 0, nofunc = 0;
	enum fast_verdict v;
	struct site *cand, s;
	unsigned int nops;
	struct func fn = { 0 };
	uint64_t t0 = now_ns();
	int ret;

	ret = patchable_candidates(im, &cand, &n, &r->stats);
	if (ret)
		return ret;
	r->stats.ns_relocs = now_ns() - t0;
	t0 = now_ns();
	sort_sites(cand, n, im->nsecs, true, false);
	/* kept sites are compacted in place */
	for (i = 0; i < n; i++) {
		s = cand[i];
		if ((prev && prev->addr == s.addr && prev->shndx == s.shndx) ||
		    !traced[s.shndx])
			continue;
		fn.shndx = s.shndx;
		v = pad_at(im, e, &s, &fn.start, &nops);
		if (v == FAST_KEEP && o->pad_n &&
		    !pad_fits_after(im, o, &im->secs[s.shndx], &fn, s.addr,
				    nops))
			v = FAST_UNSURE;
		if (v == FAST_UNSURE)
			goto out_unsure;
		nofunc += v == FAST_NO_START;
		if (v == FAST_KEEP) {
			cand[nkept++] = s;
			prev = &cand[nkept - 1];
		}
	}
	if (!im->nlocal_funcs && nofunc)
		goto out_unsure;
	r->kept = cand;
	r->nkept = nkept;
	r->stats.verdicts[SITE_KEPT] = nkept;
	r->stats.ns_filter = now_ns() - t0;
	return 0;
out_unsure:
	free(cand);
	return 1;
}
