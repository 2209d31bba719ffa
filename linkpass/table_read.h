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

#include <string.h>

#include "image.h"
#include "site.h"

struct table {
	bool found;
	char how[160];		/* where the table was found, for messages */
	const struct section *sec;
	uint64_t start;		/* address of the first entry */
	uint64_t *v;		/* entries, in table order */
	size_t n;
};

/*
 * The symbols that may bound the table: --start-sym/--stop-sym, or the
 * two pairs of mcount-table.h.  A pass over the symbols that runs
 * anyway (the scan's) can look them up (table_bounds_match()), which
 * saves table_read_bounds() its own pass.
 */
#define TABLE_BOUND_NAMES 4
struct table_bounds {
	const char *names[TABLE_BOUND_NAMES];
	size_t n;
	bool given;		/* from --start-sym/--stop-sym */
	bool looked;		/* syms/found are filled in */
	struct symbol syms[TABLE_BOUND_NAMES];
	bool found[TABLE_BOUND_NAMES];
};

void table_bounds_init(struct table_bounds *b, const char *start_sym,
		       const char *stop_sym);

/* Note defined symbol @s if it is the first one of a bound's name. */
static inline void table_bounds_match(struct table_bounds *b,
				      const struct symbol *s)
{
	size_t j;

	for (j = 0; j < b->n; j++) {
		if (b->found[j] || strcmp(s->name, b->names[j]))
			continue;
		b->syms[j] = *s;
		b->found[j] = true;
	}
}

/*
 * @start_sym/@stop_sym: names to use, or NULL to try __start_mcount_loc
 * and __start___mcount_loc, then the section.  Not finding a table is
 * not an error (t->found is false); a malformed one is.
 */
int table_read(struct image *im, const char *start_sym, const char *stop_sym,
	       struct table *t);
/* The same, and an error (-1) when the image has no table. */
int table_read_found(struct image *im, const char *start_sym,
		     const char *stop_sym, struct table *t);
/* The same, with bounds made by table_bounds_init() (looked up or not). */
int table_read_bounds(struct image *im, struct table_bounds *b,
		      struct table *t);
void table_free(struct table *t);

/*
 * The table of a relocatable object (a module's .ko): each entry of its
 * table section @sec read through its relocation, symbol + addend, as
 * a place (section, offset), in table order; *@v (NULL for no entries)
 * is the caller's to free.
 */
int table_read_object(struct image *im, struct section *sec,
		      struct place **v, size_t *n);

#endif
