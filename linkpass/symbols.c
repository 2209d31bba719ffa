// SPDX-License-Identifier: GPL-2.0
/* The scan's symbol pass over the decoded symbols. */
#include "symbols.h"

/*
 * The first bytes of the names the pass looks for.  A symbol whose name
 * starts with another byte is compared with none of them: most of a
 * kernel's (riscv64's .L labels: 7 in 10 of its symbols), which spares
 * the strcmp() calls that were a third of the pass (callgrind).
 */
static void wanted_first_bytes(const struct scan_opts *o,
			       const struct sym_pass *p, bool *first)
{
	size_t j;

	for (j = 0; o->mcount_syms[j]; j++)
		first[(uint8_t)o->mcount_syms[j][0]] = true;
	for (j = 0; p->anchors && j < ANCHOR_NFALLBACK; j++)
		first[(uint8_t)anchor_fallback_names[j][0]] = true;
	for (j = 0; p->bounds && j < p->bounds->n; j++)
		first[(uint8_t)p->bounds->names[j][0]] = true;
}

void run_symbol_pass(struct image *im, const struct scan_opts *o,
		     struct sym_pass *p)
{
	bool first[256] = { false };
	size_t i;

	wanted_first_bytes(o, p, first);
	for (i = 1; i < im->nsyms; i++)
		sym_pass_one(o, p, &im->syms[i], i,
			     first[(uint8_t)im->syms[i].name[0]]);
}
