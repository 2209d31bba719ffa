// SPDX-License-Identifier: GPL-2.0
/*
 * linkpass check on a relocatable object (a .ko, or any FILE.o): the
 * __mcount_loc section's entries are not addresses yet but relocations,
 * "symbol + addend", so each names a place (section, offset).  Those
 * places must be exactly the call sites the object's own relocations
 * give, in (section, offset) order, without duplicates.  The module
 * loader sorts a module's table anyway, so order faults are reported
 * like everywhere else and --allow-unsorted forgives them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_obj.h"
#include "find.h"
#include "mcount-table.h"
#include "relocs.h"
#include "util.h"

/* Names a place of an object in check's findings. */
struct object_namer {
	struct image *im;
	const struct funcs *f;
};

static void describe_place(void *ctx, enum finding kind,
			   const struct place *p, char *buf, size_t len)
{
	const struct object_namer *on = ctx;
	struct image *im = on->im;
	const struct func *fn = funcs_lookup(on->f, p->shndx, p->off, NULL);
	const char *sec = p->shndx < im->nsecs ? im->secs[p->shndx].name :
			  "<none>";

	(void)kind;
	if (fn)
		snprintf(buf, len, "%s+0x%llx (%s+0x%llx)", sec,
			 (unsigned long long)p->off, fn->sym->name,
			 (unsigned long long)(p->off - fn->start));
	else
		snprintf(buf, len, "%s+0x%llx (<none>)", sec,
			 (unsigned long long)p->off);
	one_line(buf);
}

/* The implicit addend of a Rel entry: the entry's own bytes. */
static int64_t rel_addend(const uint8_t *bytes, uint64_t off, unsigned int w)
{
	if (w == 8) {
		int64_t v;

		memcpy(&v, bytes + off, 8);
		return v;
	} else {
		int32_t v;

		memcpy(&v, bytes + off, 4);
		return v;
	}
}

/*
 * Read the table of @sec (@n entries, in table order) into *@tp, which
 * it allocates only once the section's bytes are known to be there: a
 * corrupt size must not size an allocation.  *@tp stays NULL for an
 * empty table and on error before the allocation.
 */
static int read_obj_table(struct image *im, struct section *sec,
			  size_t n, struct place **tp)
{
	struct place *t;
	unsigned int w = im->arch->addr_size;
	struct section *rsec = image_relocs_of(im, sec);
	const uint8_t *bytes;
	struct relocs rel;
	enum reloc_layout l;
	bool *seen;
	size_t j;
	int ret = -1;

	if (!n)
		return 0;	/* an empty table: nothing to read */
	if (sec->sh.sh_type == SHT_NOBITS)
		return lp_error(im->path, sec->name,
				"%zu entries but the section has no bytes (SHT_NOBITS)", n);
	bytes = image_section_bytes(im, sec);
	if (!bytes)
		return -1;
	t = *tp = xcalloc(n, sizeof(*t));
	if (!rsec)
		return n ? lp_error(im->path, sec->name,
				    "%zu entries but no relocation section: entries of an object must be relocated",
				    n) : 0;
	if (image_relocs(im, rsec, &rel) < 0)
		return -1;
	l = rel.layout;
	seen = xcalloc(n ? n : 1, sizeof(*seen));
	for (j = 0; j < rel.count; j++) {
		struct reloc r;
		const struct symbol *s;
		size_t k;

		reloc_get(l, rel.base, j, &r);
		k = r.offset / w;
		if (r.offset % w || k >= n || seen[k] || r.type != im->arch->abs_reloc) {
			lp_error(im->path, rsec->name,
				 "entry %zu (offset 0x%llx, type %u): not one %u-byte absolute relocation per table entry",
				 j, (unsigned long long)r.offset, r.type, w);
			goto out_free_seen;
		}
		if (r.sym >= im->nsyms || im->syms[r.sym].shndx == SHN_UNDEF ||
		    im->syms[r.sym].shndx >= im->nsecs) {
			lp_error(im->path, rsec->name,
				 "entry %zu: symbol %llu is not defined in a section of the object",
				 j, (unsigned long long)r.sym);
			goto out_free_seen;
		}
		s = &im->syms[r.sym];
		seen[k] = true;
		t[k].shndx = s->shndx;
		t[k].off = s->value + (uint64_t)(reloc_has_addend(l) ?
						 r.addend : rel_addend(bytes, r.offset, w));
	}
	for (j = 0; j < n; j++)
		if (!seen[j]) {
			lp_error(im->path, sec->name,
				 "entry %zu (offset 0x%llx) has no relocation: it would hold a meaningless address",
				 j, (unsigned long long)j * w);
			goto out_free_seen;
		}
	ret = 0;
out_free_seen:
	free(seen);
	return ret;
}

int check_object(struct options *o, struct image *im, struct findings *fd)
{
	struct section *sec = image_find_section(im, MCOUNT_SECTION);
	struct place *t = NULL, *sorted = NULL, *s = NULL;
	unsigned int w = im->arch->addr_size;
	struct scan_result r;
	struct object_namer on = { im, &r.funcs };
	const struct place_namer nm = { describe_place, &on };
	size_t n = 0, i;
	int ret = EXIT_ERROR;

	/* findings name functions */
	if (find_sites(im, &o->scan, &scan_explained, &r) < 0)
		return EXIT_ERROR;
	if (!sec && !r.nkept) {
		/* nothing to trace: "linkpass obj" adds no table either */
		printf("check: %s: ok: no call sites and no %s section\n",
		       o->image, MCOUNT_SECTION);
		ret = EXIT_OK;
		goto out_free_scan;
	}
	if (sec && sec->sh.sh_size % w) {
		lp_error(im->path, sec->name, "size 0x%llx is not a multiple of the entry size %u",
			 (unsigned long long)sec->sh.sh_size, w);
		goto out_free_scan;
	}
	n = sec ? sec->sh.sh_size / w : 0;
	if (sec && read_obj_table(im, sec, n, &t) < 0)
		goto out_free;
	if (!t)
		t = xcalloc(1, sizeof(*t));	/* no entries */
	if (!sec)
		printf("check: %s: no ftrace table (no %s section)\n", o->image,
		       MCOUNT_SECTION);
	for (i = 1; i < n; i++)
		if (cmp_place(&t[i], &t[i - 1]) < 0 &&
		    check_listing(o, ++fd->unordered))
			printf("unordered entry %zu before entry %zu\n", i, i - 1);
	check_more(o, "unordered", fd->unordered);

	sorted = xcalloc(n ? n : 1, sizeof(*sorted));
	memcpy(sorted, t, n * sizeof(*t));
	qsort(sorted, n, sizeof(*sorted), cmp_place);
	s = xcalloc(r.nkept ? r.nkept : 1, sizeof(*s));
	for (i = 0; i < r.nkept; i++) {
		s[i].shndx = r.kept[i].shndx;
		s[i].off = r.kept[i].addr;
	}
	qsort(s, r.nkept, sizeof(*s), cmp_place);
	check_merge(o, sorted, n, s, r.nkept, &nm, fd);
	ret = check_verdict(o, sec != NULL, n, r.nkept,
			    "section " MCOUNT_SECTION, fd);
out_free:
	free(s);
	free(sorted);
	free(t);
out_free_scan:
	scan_result_free(&r);
	return ret;
}
