// SPDX-License-Identifier: GPL-2.0
/* Filter and sort: which candidates are sites, and in what order. */
#include "filter.h"

#include <stdlib.h>
#include <string.h>

#include "funcs.h"
#include "order.h"
#include "patchable.h"
#include "prologue.h"
#include "util.h"

void sort_sites(struct site *v, size_t n, size_t nsecs, bool by_addr,
		bool sorted)
{
	uint32_t *sec, *order;
	uint64_t *addr;
	struct site *copy;
	size_t i;

	for (i = 1; !sorted && i < n; i++)
		if (by_addr ? site_before_addr(&v[i], &v[i - 1]) :
			      site_before_sec(&v[i], &v[i - 1]))
			break;
	if (sorted || i >= n)
		return;
	sec = xmalloc(n * sizeof(*sec));
	addr = xmalloc(n * sizeof(*addr));
	for (i = 0; i < n; i++) {
		sec[i] = v[i].shndx;
		addr[i] = v[i].addr;
	}
	if (by_addr)
		order = order_by_section_addr(NULL, addr, n, 1);
	else
		order = order_by_section_addr(sec, addr, n, nsecs);
	copy = xmalloc(n * sizeof(*copy));
	memcpy(copy, v, n * sizeof(*copy));
	for (i = 0; i < n; i++)
		v[i] = copy[order[i]];
	free(copy);
	free(order);
	free(addr);
	free(sec);
}

static enum site_verdict judge(struct image *im, const uint8_t *traced,
			       const struct funcs *f, const struct site *s,
			       const struct site *prev,
			       const struct func **last_func, long *hint)
{
	const struct section *sec = &im->secs[s->shndx];
	const struct func *fn;

	if (s->verdict != SITE_KEPT)
		return (enum site_verdict)s->verdict;
	if (prev && prev->shndx == s->shndx && prev->addr == s->addr)
		return DROP_DUPLICATE;
	if (!traced[s->shndx])
		return DROP_UNTRACED;
	fn = funcs_lookup(f, s->shndx, s->addr, hint);
	/* a listed pad (patchable.c: no call) may start before the entry */
	if (!fn && s->form == CALL_NONE)
		return pad_before_entry(im, f, sec, s->addr, hint) ?
		       SITE_KEPT : DROP_NO_FUNC;
	if (!fn)
		return dead_body(im, f, s) ? DROP_DEAD_BODY : DROP_NO_FUNC;
	if (s->entry_style && s->addr != funcs_entry(im, sec, fn, s->addr))
		return DROP_NOT_ENTRY;
	/* -pg without -mfentry: a call after the prologue (prologue.c) */
	if (!s->entry_style &&
	    mcount_verdict(im, sec, fn, s, *last_func) != SITE_KEPT)
		return DROP_NOT_ENTRY;
	*last_func = fn;
	return SITE_KEPT;
}

uint8_t *traced_sections(const struct image *im, const struct scan_opts *o)
{
	uint8_t *traced = xcalloc(im->nsecs, 1);
	size_t i;

	for (i = 1; i < im->nsecs; i++)
		traced[i] = policy_traced(&o->policy, im->secs[i].name);
	return traced;
}

/* Judge every candidate, with its reason; @cand becomes r->kept. */
static void filter_explained(struct image *im, const uint8_t *traced,
			     struct site *cand, size_t n,
			     struct scan_result *r)
{
	const struct func *last_func = NULL;
	const struct site *prev = NULL;
	long hint = -1;
	size_t i;

	r->explained = true;
	r->dropped = xmalloc((n ? n : 1) * sizeof(*r->dropped));
	r->kept = cand;	/* kept sites are compacted in place */
	for (i = 0; i < n; i++) {
		struct site s = cand[i];

		s.verdict = (uint8_t)judge(im, traced, &r->funcs, &s, prev,
					   &last_func, &hint);
		r->stats.verdicts[s.verdict]++;
		if (s.verdict == SITE_KEPT) {
			r->kept[r->nkept++] = s;
			prev = &r->kept[r->nkept - 1];
		} else {
			r->dropped[r->ndropped++] = s;
		}
	}
}

void filter_sites(struct image *im, const uint8_t *traced,
		  struct site *cand, size_t n, bool cand_sorted,
		  struct scan_result *r)
{
	sort_sites(cand, n, im->nsecs, false, cand_sorted);
	filter_explained(im, traced, cand, n, r);
	if (im->ehdr.e_type != ET_REL) {
		sort_sites(r->kept, r->nkept, im->nsecs, true, false);
		sort_sites(r->dropped, r->ndropped, im->nsecs, true, false);
	}
}
