/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live functions of an image, sorted by (section, address): a
 * site's covering function is one binary search away.  An overridden
 * weak function has no symbol in the final image: it is covered by none.
 */
#ifndef LINKPASS_FUNCS_H
#define LINKPASS_FUNCS_H

#include "image.h"

struct func {
	uint32_t shndx;
	uint64_t start;
	uint64_t end;		/* start + size; == start for size 0 */
	const struct symbol *sym;
};

struct funcs {
	struct func *v;
	size_t n;
};

void funcs_build(struct image *im, struct funcs *f);
void funcs_free(struct funcs *f);

/*
 * The function covering @addr in section @shndx, or NULL.  @hint: NULL,
 * or the same long (first -1) for lookups in ascending order.
 */
const struct func *funcs_lookup(const struct funcs *f, uint32_t shndx,
				uint64_t addr, long *hint);
/* The last function of section @shndx starting at or before @addr. */
const struct func *funcs_prev(const struct funcs *f, uint32_t shndx,
			      uint64_t addr);
/*
 * Where @fn (in @sec, bytes loaded) is entered, for a call at @addr:
 * its start, past an entry prefix (endbr64, bti c) before @addr.
 */
uint64_t funcs_entry(const struct image *im, const struct section *sec,
		     const struct func *fn, uint64_t addr);

/* dead_body.c: does the call @s, in no function, start a dead weak body? */
struct site;
bool dead_body(const struct image *im, const struct funcs *f,
	       const struct site *s);

#endif
