// SPDX-License-Identifier: GPL-2.0
/* Sites: the verdicts' names, the options' defaults, lookups. */
#include "site.h"

#include <stdlib.h>
#include <string.h>

#include "mcount.h"

const char *const verdict_name[NR_VERDICTS] = {
	[SITE_KEPT] = "kept",
	[DROP_NOT_CALL] = "not a call (data or address reference)",
	[DROP_UNTRACED] = "in an untraced section",
	[DROP_DEAD_BODY] = "in a dead function body (overridden weak function)",
	[DROP_NO_FUNC] = "in code that no live function symbol covers",
	[DROP_NOT_ENTRY] = "not at a function entry",
	[DROP_DUPLICATE] = "duplicate relocation for one site",
};

void scan_opts_init(struct scan_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->mcount_syms = (const char **)default_mcount_syms;
	policy_init(&o->policy);
}

void scan_opts_free(struct scan_opts *o)
{
	if (o->mcount_syms != (const char **)default_mcount_syms)
		free(o->mcount_syms);
	policy_free(&o->policy);
}

int cmp_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

const struct site *scan_find_dropped(const struct scan_result *r,
				     uint64_t addr)
{
	size_t lo = 0, hi = r->ndropped;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (r->dropped[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->ndropped && r->dropped[lo].addr == addr ?
	       &r->dropped[lo] : NULL;
}
