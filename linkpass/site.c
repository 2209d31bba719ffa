// SPDX-License-Identifier: GPL-2.0
/* Sites: the options' defaults, the order of places. */
#include "site.h"

#include <stdlib.h>
#include <string.h>

#include "mcount.h"

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
