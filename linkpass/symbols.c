// SPDX-License-Identifier: GPL-2.0
/* The scan's symbol pass over the decoded symbols. */
#include "symbols.h"

#include "hooks.h"

void sym_pass_names(const struct image *im, const struct scan_opts *o,
		    const struct sym_pass *p, struct namefilter *nf)
{
	size_t j;

	namefilter_init(nf, im->symin.strs, im->symin.nstrs);
	for (j = 0; o->mcount_syms[j]; j++)
		namefilter_add(nf, o->mcount_syms[j], 1);
	for (j = 0; p->anchors && j < ANCHOR_NFALLBACK; j++)
		namefilter_add(nf, anchor_fallback_names[j], 2);
	for (j = 0; p->bounds && j < p->bounds->n; j++)
		namefilter_add(nf, p->bounds->names[j], 4);
}

int run_symbol_pass(struct image *im, const struct scan_opts *o,
		    struct sym_pass *p)
{
	struct namefilter nf;
	size_t i;

	if (extras()->symbol_pass)
		return extras()->symbol_pass(im, o, p);
	if (image_symbols(im) < 0)
		return -1;
	sym_pass_names(im, o, p, &nf);
	for (i = 1; i < im->nsyms; i++)
		sym_pass_one(im, o, p, &nf, &im->syms[i], i);
	return 0;
}
