// SPDX-License-Identifier: GPL-2.0
/* The mcount symbols: names, kinds, addresses. */
#include "mcount.h"

#include <string.h>

#include "util.h"

const char *const default_mcount_syms[] = {
	"__fentry__", "mcount", "_mcount", NULL,
};

uint8_t mcount_kind(const char *const *syms, const char *name)
{
	uint8_t kind = MCOUNT_NO;
	size_t j;

	for (j = 0; syms[j]; j++) {
		if (strcmp(name, syms[j]))
			continue;
		/* __fentry__ is called first thing; mcount after the
		 * prologue
		 */
		kind = strncmp(syms[j], "__fentry", 8) ?
		       MCOUNT_PROLOGUE : MCOUNT_ENTRY;
	}
	return kind;
}

int mcount_targets(struct image *im, const char *const *syms,
		   const char *what, uint64_t *t, size_t max, size_t *n)
{
	size_t i;

	*n = 0;
	for (i = 0; syms[i] && *n < max; i++) {
		const struct symbol *s = image_find_symbol(im, syms[i]);

		if (s && s->shndx != SHN_UNDEF)
			t[(*n)++] = s->value;
	}
	if (*n)
		return 0;
	return lp_error(im->path, ".symtab",
			"%s: no mcount symbol (%s...) is defined in the image",
			what, syms[0]);
}

bool mcount_is_target(const uint64_t *t, size_t n, uint64_t addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i] == addr)
			return true;
	return false;
}
