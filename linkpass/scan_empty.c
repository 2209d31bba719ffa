// SPDX-License-Identifier: GPL-2.0
/*
 * scan's refusal of a silent empty table.  An image that names an
 * mcount symbol but has no site was almost always linked wrong: gcc
 * -flto without -pg on the link line, or __fentry__ left to glibc
 * through the GOT.
 */
#include <string.h>

#include "image.h"
#include "options.h"
#include "scan.h"
#include "util.h"

/*
 * The first mcount symbol of @syms that @im names, a definition before
 * a reference, or NULL.  A name may carry a version (glibc's __fentry__
 * is __fentry__@GLIBC_2.13 in .symtab): what precedes the '@' counts.
 */
static const struct symbol *named_mcount(struct image *im,
					 const char *const *syms)
{
	const struct symbol *undef = NULL;
	size_t i, j, len;

	for (j = 0; syms[j]; j++) {
		len = strlen(syms[j]);
		for (i = 1; i < im->nsyms; i++) {
			const struct symbol *s = &im->syms[i];

			if (strncmp(s->name, syms[j], len) ||
			    (s->name[len] && s->name[len] != '@'))
				continue;
			if (s->shndx != SHN_UNDEF)
				return s;
			if (!undef)
				undef = s;
		}
	}
	return undef;
}

int scan_empty_table(struct image *im, const struct options *o,
		     const struct scan_result *r)
{
	const struct symbol *s;
	int len;

	if (r->nkept || o->allow_empty || o->scan.patchable)
		return 0;
	if (image_symbols(im) < 0)
		return -1;
	s = named_mcount(im, o->scan.mcount_syms);
	if (!s)
		return 0;
	len = (int)strcspn(s->name, "@");
	if (s->shndx == SHN_UNDEF)
		return lp_error(im->path, s->name,
				"no call site: %.*s is not defined in the image, so the code calls a shared library's through the GOT or PLT; link a definition (runtime/liblptrace.a; with gcc -flto also -Wl,-u,%.*s), or give --allow-empty for an empty table",
				len, s->name, len, s->name);
	if (!r->stats.calls)
		return lp_error(im->path, s->name,
				"no call site: no code calls %.*s; with gcc -flto, -pg (and -mfentry) must be on the link line too, or give --allow-empty for an empty table",
				len, s->name);
	return lp_error(im->path, s->name,
			"no call site: none of the %zu calls to an mcount symbol opens a traced function (see 'linkpass sites --dropped'); give --allow-empty for an empty table",
			r->stats.calls);
}
