/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live functions of an image: every defined STT_FUNC symbol, sorted
 * by (section, address) in one array, so a site's covering function is
 * one binary search away.  An overridden weak function has no symbol in
 * the final image, so "no covering function" is how it shows up.
 */
#ifndef LINKPASS_FUNCS_H
#define LINKPASS_FUNCS_H

#include "image.h"

struct func {
	uint32_t shndx;
	uint64_t start;
	uint64_t end;		/* start + size; == start for size 0 */
	/*
	 * The largest end of this function and of those before it that
	 * funcs_lookup() looks at for an address after its start: one
	 * compare rules out an address no function covers.
	 */
	uint64_t reach;
	const struct symbol *sym;
};

struct funcs {
	struct func *v;
	size_t n;
};

void funcs_build(struct image *im, struct funcs *f);
void funcs_free(struct funcs *f);

/*
 * The function covering @addr in section @shndx, or NULL.  @hint may be
 * NULL; callers looking up many addresses in ascending order pass the
 * same long (initially -1) each time, which makes each lookup O(1).
 */
const struct func *funcs_lookup(const struct funcs *f, uint32_t shndx,
				uint64_t addr, long *hint);
/* The last function of section @shndx starting at or before @addr. */
const struct func *funcs_prev(const struct funcs *f, uint32_t shndx,
			      uint64_t addr);
/*
 * Where @fn (in @sec) is entered, for a call at @addr: its start, moved
 * past an entry prefix (endbr64, bti c) that lies before @addr.  A start
 * outside the section's bytes has no prefix to read.  @sec's bytes must
 * be loaded.
 */
uint64_t funcs_entry(const struct image *im, const struct section *sec,
		     const struct func *fn, uint64_t addr);

#endif
