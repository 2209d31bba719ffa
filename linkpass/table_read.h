/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading back the table linked into an image (between a start/stop
 * pair, else __mcount_loc), its bytes corrected by the dynamic
 * relocations (arm64's relocatable vmlinux); and an object's table.
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

/* The names that may bound the table, found by the symbol pass. */
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

/* No table is not an error (t->found is false), a malformed one is. */
int table_read(struct image *im, const char *start_sym, const char *stop_sym,
	       struct table *t);
/* The same, and an error (-1) when the image has no table. */
int table_read_found(struct image *im, const char *start_sym,
		     const char *stop_sym, struct table *t);
int table_read_bounds(struct image *im, struct table_bounds *b,
		      struct table *t);
void table_free(struct table *t);

/* An object's table @sec: each entry as a place, in table order. */
int table_read_object(struct image *im, struct section *sec,
		      struct place **v, size_t *n);

#endif
