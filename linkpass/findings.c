// SPDX-License-Identifier: GPL-2.0
/* Listing and counting what check finds; the one table-sites merge. */
#include "findings.h"

#include <stdio.h>

#include "util.h"

static const char *const finding_name[] = {
	[FOUND_MISSING] = "missing",
	[FOUND_STALE] = "stale",
	[FOUND_DUPLICATE] = "duplicate",
};

bool check_listing(const struct options *o, size_t count)
{
	return o->max_list <= 0 || count <= (size_t)o->max_list;
}

void check_more(const struct options *o, const char *what, size_t count)
{
	if (o->max_list > 0 && count > (size_t)o->max_list)
		printf("%s: ... and %zu more (--max-list=0 lists all)\n", what,
		       count - (size_t)o->max_list);
}

int cmp_place(const void *a, const void *b)
{
	const struct place *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Count a finding @f at @p, and list it while its kind has room. */
static void found(const struct options *o, const struct place_namer *nm,
		  enum finding f, const struct place *p, size_t *count)
{
	char buf[600];

	if (!check_listing(o, ++*count))
		return;
	nm->describe(nm->ctx, f, p, buf, sizeof(buf));
	printf("%s %s\n", finding_name[f], buf);
}

void check_merge(const struct options *o, const struct place *t, size_t nt,
		 const struct place *s, size_t ns,
		 const struct place_namer *nm, struct findings *fd)
{
	size_t i, j = 0;
	int c;

	for (i = 1; i < nt; i++)
		if (!cmp_place(&t[i], &t[i - 1]))
			found(o, nm, FOUND_DUPLICATE, &t[i], &fd->dups);
	check_more(o, "duplicate", fd->dups);

	/* each distinct entry against each site, both in place order */
	i = 0;
	while (i < nt || j < ns) {
		if (i > 0 && i < nt && !cmp_place(&t[i], &t[i - 1])) {
			i++;	/* a duplicate, listed above */
			continue;
		}
		c = i >= nt ? 1 : j >= ns ? -1 : cmp_place(&t[i], &s[j]);
		if (c < 0)
			found(o, nm, FOUND_STALE, &t[i++], &fd->stale);
		else if (c > 0)
			found(o, nm, FOUND_MISSING, &s[j++], &fd->missing);
		else
			i++, j++;
	}
	check_more(o, "stale", fd->stale);
	check_more(o, "missing", fd->missing);
}

int check_verdict(const struct options *o, bool found, size_t n,
		  size_t nsites, const char *how, const struct findings *fd)
{
	bool ok = found && !fd->missing && !fd->stale && !fd->dups &&
		  (!fd->unordered || o->allow_unsorted) &&
		  (!fd->zeroed || o->allow_zeroed);
	char zeroed[64] = "";

	if (fd->zeroed)
		snprintf(zeroed, sizeof(zeroed), "; %zu zeroed", fd->zeroed);
	if (ok)
		printf("check: %s: ok: %zu table entries (%s) match the %zu call sites%s%s\n",
		       o->image, n - fd->zeroed, how, nsites,
		       fd->unordered ? " (unsorted)" : "",
		       fd->zeroed ? " (zeroed entries allowed)" : "");
	else
		printf("check: %s: table %s: %zu entries, %zu call sites: %zu missing, %zu stale, %zu duplicate, %zu out of order%s\n",
		       o->image, found ? how : "absent", n, nsites,
		       fd->missing, fd->stale, fd->dups, fd->unordered, zeroed);
	return ok ? EXIT_OK : EXIT_DIFF;
}
