/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linkpass check, shared by its two halves: linked images (cmd_check.c)
 * and relocatable objects such as modules (check_obj.c).
 */
#ifndef LINKPASS_CHECK_H
#define LINKPASS_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "commands.h"
#include "mcount-table.h"

/* What a check found, by kind; each kind is listed and counted. */
struct findings {
	size_t missing, stale, dups, unordered;
	size_t zeroed;		/* entries holding 0: dead entries a
				 * post-link tool (sorttable -s) zeroed */
};

/* Print one more finding of a kind that has @count so far? */
bool check_listing(const struct options *o, size_t count);
/* "... and N more" once a kind passed --max-list. */
void check_more(const struct options *o, const char *what, size_t count);
/*
 * Print the summary line of a check of @o->image and return its exit
 * status: @found says a table was found (@how names it), @n entries
 * against @nsites call sites.
 */
int check_verdict(const struct options *o, bool found, size_t n,
		  size_t nsites, const char *how, const struct findings *fd);
/* The check of a relocatable object; see check_obj.c. */
int check_object(struct options *o, struct image *im, struct findings *fd);

#endif
