/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What linkpass check finds, for both kinds of input: a linked image
 * (cmd_check.c: entries are addresses) and a relocatable object such as
 * a module's .ko (check_obj.c: entries are section + offset).  Both
 * reduce their table and their sites to sorted places and compare them
 * with check_merge(); each names a place its own way.
 */
#ifndef LINKPASS_FINDINGS_H
#define LINKPASS_FINDINGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "options.h"

/* What a check found, by kind; each kind is listed and counted. */
struct findings {
	size_t missing, stale, dups, unordered;
	size_t zeroed;		/* entries holding 0: dead entries a
				 * post-link tool (sorttable -s) zeroed
				 */
	size_t wrong;		/* sites not holding what --sites wants */
};

enum finding {
	FOUND_MISSING,		/* a site the table lacks */
	FOUND_STALE,		/* an entry that is no site */
	FOUND_DUPLICATE,	/* an entry listed again */
	FOUND_CALL,		/* a site holding the call, --sites=nop */
	FOUND_NOP,		/* a site holding the NOP, --sites=call */
};

/*
 * How one kind of input names a place in a finding's line: @describe
 * writes what follows "<kind> " for a finding @f at @p into @buf.
 */
struct place_namer {
	void (*describe)(void *ctx, enum finding f, const struct place *p,
			 char *buf, size_t len);
	void *ctx;
};

/* Print one more finding of a kind that has @count so far? */
bool check_listing(const struct options *o, size_t count);
/* "... and N more" once a kind passed --max-list. */
void check_more(const struct options *o, const char *what, size_t count);

/*
 * Does the table's site @s (its form set) hold what --sites wants?  If
 * not, it is listed and counted.
 */
void check_site_state(const struct options *o, const struct place *s,
		      const struct place_namer *nm, struct findings *fd);
/*
 * Compare the table @t (@nt entries, sorted, repeats allowed) with the
 * sites @s (@ns, sorted, distinct): list the duplicate entries, then
 * the stale entries, the missing sites and the sites that do not hold
 * what --sites wants, in place order.
 */
void check_merge(const struct options *o, const struct place *t, size_t nt,
		 const struct place *s, size_t ns,
		 const struct place_namer *nm, struct findings *fd);
/*
 * Print the summary line of a check of @o->image and return its exit
 * status: @found says a table was found (@how names it), @n entries
 * against @nsites call sites.
 */
int check_verdict(const struct options *o, bool found, size_t n,
		  size_t nsites, const char *how, const struct findings *fd);

#endif
