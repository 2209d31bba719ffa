/* SPDX-License-Identifier: GPL-2.0 */
/* Reading one symbol in place (image_open_lazy()). */
#ifndef LINKPASS_INPLACE_H
#define LINKPASS_INPLACE_H

#include "image.h"

/*
 * Symbol @i (0 < @i < nsyms) read in place into *@s; false for a name
 * or section index out of range or SHN_XINDEX: then image_symbols()
 * decodes them all and reports the bad one.
 */
static inline bool image_sym_get(const struct image *im, size_t i,
				 struct symbol *s)
{
	const struct sym_input *in = &im->symin;
	uint32_t name;

	name = sym_decode_raw(in->is64, in->syms, i, s);
	s->name = in->strs + (name < in->nstrs ? name : 0);
	/* SHN_XINDEX is above nsecs; reserved indices like SHN_ABS are fine */
	return name < in->nstrs &&
	       (s->shndx < im->nsecs ||
		(s->shndx >= SHN_LORESERVE && s->shndx != SHN_XINDEX));
}

#endif
