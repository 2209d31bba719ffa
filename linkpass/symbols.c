// SPDX-License-Identifier: GPL-2.0
/* The scan's symbol pass over the decoded symbols. */
#include "symbols.h"

void run_symbol_pass(struct image *im, const struct scan_opts *o,
		     struct sym_pass *p)
{
	size_t i;

	for (i = 1; i < im->nsyms; i++)
		sym_pass_one(im, o, p, &im->syms[i], i, true);
}
