// SPDX-License-Identifier: GPL-2.0
/* Listing and counting what check finds; the one table-sites merge. */
#include "findings.h"

#include <stdio.h>
#include <string.h>

#include "arch.h"
#include "hooks.h"
#include "util.h"

#define CHECK_FAILED \
	"check: %s: table %s: %zu entries, %zu call sites: %zu missing, %zu stale, %zu duplicate, %zu out of order%s\n"

static const char *const finding_name[] = {
	[FOUND_MISSING] = "missing",
	[FOUND_STALE] = "stale",
	[FOUND_DUPLICATE] = "duplicate",
	[FOUND_CALL] = "call",
	[FOUND_NOP] = "nop",
};

bool check_listing(const struct options *o, size_t count)
{
	return o->max_list <= 0 || count <= (size_t)o->max_list;
}

void check_more(const struct options *o, const char *what, size_t count)
{
	if (o->max_list > 0 && count > (size_t)o->max_list)
		printf("%s: ... and %zu more%s\n", what,
		       count - (size_t)o->max_list,
		       extras()->more_note ? extras()->more_note : "");
}

/* Count a finding @f at @p, and list it while its kind has room. */
static void found(const struct options *o, const struct place_namer *nm,
		  enum finding f, const struct place *p, size_t *count)
{
	char buf[600];

	if (!check_listing(o, ++*count))
		return;
	nm->describe(nm->ctx, f, p, buf, sizeof(buf));
	printf("%s %s%s\n", finding_name[f], buf,
	       f == FOUND_CALL ? " (--sites=nop wants the NOP)" :
	       f == FOUND_NOP ? " (--sites=call wants the call)" : "");
}

void check_site_state(const struct options *o, const struct place *s,
		      const struct place_namer *nm, struct findings *fd)
{
	bool nop = s->form == CALL_NOPPED;

	if (o->sites == SITES_NOP && !nop)
		found(o, nm, FOUND_CALL, s, &fd->wrong);
	else if (o->sites == SITES_CALL && nop)
		found(o, nm, FOUND_NOP, s, &fd->wrong);
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
			check_site_state(o, &s[j++], nm, fd), i++;
	}
	check_more(o, "stale", fd->stale);
	check_more(o, "missing", fd->missing);
	check_more(o, o->sites == SITES_NOP ? "call" : "nop", fd->wrong);
}

int check_verdict(const struct options *o, bool found, size_t n,
		  size_t nsites, const char *how, const struct findings *fd)
{
	bool ok = found && !fd->missing && !fd->stale && !fd->dups &&
		  !fd->wrong && (!fd->unordered || o->allow_unsorted) &&
		  (!fd->zeroed || o->allow_zeroed);
	static const char *const state[] = {
		[SITES_ANY] = "", [SITES_CALL] = " (each the call)",
		[SITES_NOP] = " (each the NOP)",
	};
	const char *note = NULL;
	char more[320] = "";

	if (fd->zeroed)
		snprintf(more, sizeof(more), "; %zu zeroed", fd->zeroed);
	if (fd->wrong)
		snprintf(more + strlen(more), sizeof(more) - strlen(more),
			 "; %zu not %s", fd->wrong,
			 o->sites == SITES_NOP ? "the NOP" : "the call");
	if (!ok && extras()->verdict_note)
		note = extras()->verdict_note(o, n - fd->zeroed, fd);
	if (note)
		snprintf(more + strlen(more), sizeof(more) - strlen(more),
			 "%s", note);
	if (ok)
		printf("check: %s: ok: %zu table entries (%s) match the %zu call sites%s%s%s\n",
		       o->image, n - fd->zeroed, how, nsites,
		       fd->unordered ? " (unsorted)" : "",
		       fd->zeroed ? " (zeroed entries allowed)" : "",
		       state[o->sites]);
	else
		printf(CHECK_FAILED, o->image, found ? how : "absent", n, nsites,
		       fd->missing, fd->stale, fd->dups, fd->unordered, more);
	return ok ? EXIT_OK : EXIT_DIFF;
}
