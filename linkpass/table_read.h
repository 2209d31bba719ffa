/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading back the table linked into an image: between a start/stop
 * symbol pair when the image has one, else the whole __mcount_loc
 * output section.  Entries come from the section bytes, corrected by
 * the image's RELATIVE dynamic relocations (lld leaves zeros in a PIE's
 * bytes and puts the value only in the relocation).
 */
#ifndef LINKPASS_TABLE_READ_H
#define LINKPASS_TABLE_READ_H

#include "image.h"

struct table {
	bool found;
	char how[160];		/* where the table was found, for messages */
	const struct section *sec;
	uint64_t start;		/* address of the first entry */
	uint64_t *v;		/* entries, in table order */
	size_t n;
};

/*
 * @start_sym/@stop_sym: names to use, or NULL to try __start_mcount_loc
 * and __start___mcount_loc, then the section.  Not finding a table is
 * not an error (t->found is false); a malformed one is.
 */
int table_read(struct image *im, const char *start_sym, const char *stop_sym,
	       struct table *t);
void table_free(struct table *t);

#endif
