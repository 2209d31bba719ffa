// SPDX-License-Identifier: GPL-2.0
/*
 * Finding a few symbols by name among the symbols read in place
 * (image_open_lazy()), without decoding the others: image_find_symbols()
 * for an image whose symbols may not be decoded.
 */
#include <string.h>

#include "image.h"
#include "inplace.h"

/*
 * Can symbol @i, in place, have a name starting with a byte in @first?
 * (st_name opens both Elf32_Sym and Elf64_Sym; out of range: maybe.)
 */
static inline bool sym_name_may_be(const struct sym_input *in, size_t i,
				   const bool *first)
{
	uint32_t name;

	memcpy(&name, in->syms + i * (in->is64 ? sizeof(Elf64_Sym) :
				      sizeof(Elf32_Sym)), sizeof(name));
	return name >= in->nstrs || first[(uint8_t)in->strs[name]];
}

int fast_find_symbols(struct image *im, const char *const *names, size_t n,
		      struct symbol *out, bool *found)
{
	bool first[256] = { false };
	struct symbol s;
	size_t i, j, left = n;

	if (im->syms_decoded)
		return image_find_symbols(im, names, n, out, found);
	memset(found, 0, n * sizeof(*found));
	for (j = 0; j < n; j++)
		first[(uint8_t)names[j][0]] = true;
	for (i = 1; i < im->nsyms && left; i++) {
		if (!sym_name_may_be(&im->symin, i, first))
			continue;
		if (!image_sym_get(im, i, &s)) {
			/* an unusual symbol: decode them all, and again */
			if (image_symbols(im) < 0)
				return -1;
			return image_find_symbols(im, names, n, out, found);
		}
		/* the first byte rules out almost every name with one load */
		if (!first[(uint8_t)s.name[0]] || s.shndx == SHN_UNDEF)
			continue;
		for (j = 0; j < n; j++) {
			if (found[j] || s.name[0] != names[j][0] ||
			    strcmp(s.name, names[j]))
				continue;
			out[j] = s;
			found[j] = true;
			left--;
		}
	}
	return 0;
}
