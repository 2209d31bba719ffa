/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What linkpass check finds, for a linked image (entries are
 * addresses) and a relocatable object (section + offset): both reduce
 * their table and sites to sorted places for check_merge().
 */
#ifndef LINKPASS_FINDINGS_H
#define LINKPASS_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

struct findings {
	size_t missing, stale, dups, unordered;
	size_t zeroed;		/* entries holding 0 (sorttable -s) */
	size_t wrong;		/* sites not holding what --sites wants */
};

enum finding {
	FOUND_MISSING,		/* a site the table lacks */
	FOUND_STALE,		/* an entry that is no site */
	FOUND_DUPLICATE,	/* an entry listed again */
	FOUND_CALL,		/* a site holding the call, --sites=nop */
	FOUND_NOP,		/* a site holding the NOP, --sites=call */
};

/* How an input names a finding @f at @p: what follows "<kind> ". */
struct place_namer {
	void (*describe)(void *ctx, enum finding f, const struct place *p,
			 char *buf, size_t len);
	void *ctx;
};

/* List one more finding of a kind that has @count so far? */
bool check_listing(const struct options *o, size_t count);
/* "... and N more" once a kind passed its limit (50, or --max-list). */
void check_more(const struct options *o, const char *what, size_t count);
/* List and count site @s (its form set) if it is not what --sites wants. */
void check_site_state(const struct options *o, const struct place *s,
		      const struct place_namer *nm, struct findings *fd);
/*
 * The table @t (sorted, repeats allowed) against the sites @s (sorted,
 * distinct): duplicates, then stale, missing and wrong, in place order.
 */
void check_merge(const struct options *o, const struct place *t, size_t nt,
		 const struct place *s, size_t ns,
		 const struct place_namer *nm, struct findings *fd);
/*
 * The summary line and the exit status: @found says a table was found
 * (@how names it), @n entries against @nsites call sites.
 */
int check_verdict(const struct options *o, bool found, size_t n,
		  size_t nsites, const char *how, const struct findings *fd);

#endif
