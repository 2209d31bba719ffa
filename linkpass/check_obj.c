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
#include "describe.h"
#include "find.h"
#include "mcount-table.h"
#include "table_read.h"
#include "relocs.h"
#include "util.h"

/* Names a place of an object in check's findings. */
struct object_namer {
	struct image *im;
	const struct funcs *f;
};

static void describe_object(void *ctx, enum finding kind,
			    const struct place *p, char *buf, size_t len)
{
	const struct object_namer *on = ctx;
	size_t at;

	describe_place(on->im, on->f, p, buf, len);
	at = strlen(buf);
	if ((kind == FOUND_CALL || kind == FOUND_NOP) && at + 8 < len) {
		snprintf(buf + at, len - at, ": bytes ");
		describe_section_bytes(on->im, &on->im->secs[p->shndx], p->off,
				       buf + at + 8, len - at - 8);
	}
}

int check_object(struct options *o, struct image *im, struct findings *fd)
{
	struct section *sec = image_find_section(im, MCOUNT_SECTION);
	struct place *t = NULL, *sorted = NULL, *s = NULL;
	struct scan_result r;
	struct object_namer on = { im, &r.funcs };
	const struct place_namer nm = { describe_object, &on };
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
	if (sec && table_read_object(im, sec, &t, &n) < 0)
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
		s[i].form = r.kept[i].form;
	}
	qsort(s, r.nkept, sizeof(*s), cmp_place);
	check_merge(o, sorted, n, s, r.nkept, &nm, fd);
	ret = check_verdict(o, sec, n, r.nkept,
			    "section " MCOUNT_SECTION, fd);
out_free:
	free(s);
	free(sorted);
	free(t);
out_free_scan:
	scan_result_free(&r);
	return ret;
}
