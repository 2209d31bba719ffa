// SPDX-License-Identifier: GPL-2.0
/*
 * linkpass check: is the table in an image exactly the set of call
 * sites the image's own relocations give, sorted, without duplicates?
 * Both the stability test of the relink loop and an audit of tables
 * made by per-object tools.  A relocatable object's (a .ko) entries
 * are relocations, so each names a place (section, offset); the module
 * loader sorts them anyway, but order faults are reported as for an
 * image.  --byte-audit (audit.c) takes the sites from function entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "findings.h"
#include "hooks.h"
#include "mcount-table.h"
#include "scan.h"
#include "table_read.h"
#include "util.h"

#define ZEROED_LINE \
	"zeroed %zu entries hold 0 (dead entries zeroed after the link; ftrace skips them)%s\n"

/* The kept sites of @r as places, in place order. */
static struct place *site_places(const struct scan_result *r, bool object)
{
	struct place *s = xcalloc(r->nkept ? r->nkept : 1, sizeof(*s));
	size_t i;

	for (i = 0; i < r->nkept; i++) {
		s[i].shndx = object ? r->kept[i].shndx : 0;
		s[i].off = r->kept[i].addr;
		s[i].form = r->kept[i].form;
	}
	if (object)
		qsort(s, r->nkept, sizeof(*s), cmp_place);
	return s;
}

/*
 * A finding's place: the address, or section + offset; the full tool
 * adds its function and bytes (describe.c).
 */
struct namer {
	struct image *im;
	struct scan_result *r;
};

static void name_place(void *ctx, enum finding f, const struct place *p,
		       char *buf, size_t len)
{
	const struct namer *n = ctx;
	struct image *im = n->im;

	if (extras()->describe_finding)
		extras()->describe_finding(im, n->r, f, p, buf, len);
	else if (im->ehdr.e_type == ET_REL)
		snprintf(buf, len, "%s+0x%llx", im->secs[p->shndx].name,
			 (unsigned long long)p->off);
	else
		snprintf(buf, len, "0x%016llx", (unsigned long long)p->off);
}

static int check_object(struct options *o, struct image *im,
			struct findings *fd)
{
	struct section *sec = image_find_section(im, MCOUNT_SECTION);
	struct place *t = NULL, *sorted = NULL, *s = NULL;
	struct scan_result r;
	struct namer on = { im, &r };
	const struct place_namer nm = { name_place, &on };
	size_t n = 0, i;
	int ret = EXIT_ERROR;

	/* with functions and drop reasons, as obj scans */
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
	if (!sec)
		printf("check: %s: no ftrace table (no %s section)\n", o->image,
		       MCOUNT_SECTION);
	for (i = 1; i < n; i++)
		if (cmp_place(&t[i], &t[i - 1]) < 0 &&
		    check_listing(o, ++fd->unordered))
			printf("unordered entry %zu before entry %zu\n", i, i - 1);
	check_more(o, "unordered", fd->unordered);
	sorted = xcalloc(n ? n : 1, sizeof(*sorted));
	if (n)
		memcpy(sorted, t, n * sizeof(*t));
	qsort(sorted, n, sizeof(*sorted), cmp_place);
	s = site_places(&r, true);
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

static void order_faults(const struct options *o, const struct table *t,
			 struct findings *fd)
{
	size_t i;

	for (i = 1; i < t->n; i++) {
		if (t->v[i] >= t->v[i - 1] || !t->v[i])
			continue;
		if (check_listing(o, ++fd->unordered))
			printf("unordered 0x%016llx (entry %zu) after 0x%016llx (entry %zu)\n",
			       (unsigned long long)t->v[i], i,
			       (unsigned long long)t->v[i - 1], i - 1);
	}
	check_more(o, "unordered", fd->unordered);
}

/*
 * The table's non-zero entries as places, in address order, *@n of
 * them; the zero ones (dead entries a post-link tool zeroed; ftrace
 * skips them) are counted apart from stale ones.
 */
static struct place *live_entries(const struct table *t, size_t *n,
				  struct findings *fd)
{
	struct place *v = xcalloc(t->n ? t->n : 1, sizeof(*v));
	bool sorted = true;
	size_t i, k = 0;

	for (i = 0; i < t->n; i++) {
		if (!t->v[i])
			continue;
		sorted &= !k || t->v[i] >= v[k - 1].off;
		v[k++].off = t->v[i];
	}
	if (!sorted)
		qsort(v, k, sizeof(*v), cmp_place);
	fd->zeroed = t->n - k;
	*n = k;
	return v;
}

/* The common case: the table is exactly the sites, nothing to list. */
static bool agree(const struct scan_result *r, const struct place *v,
		  size_t n)
{
	size_t i;

	if (n != r->nkept)
		return false;
	for (i = 0; i < n && v[i].off == r->kept[i].addr; i++)
		;
	return i == n;
}

/* The table is exactly the sites: does each hold what --sites wants? */
static void check_states(const struct options *o, struct image *im,
			 struct scan_result *r, const struct place_namer *nm,
			 struct findings *fd)
{
	bool want_nop = o->sites == SITES_NOP;
	struct place p = { 0 };
	size_t i;

	for (i = 0; i < r->nkept; i++) {
		p.off = r->kept[i].addr;
		p.form = r->kept[i].form;
		/* the first finding: the full tool's lines name functions */
		if (extras()->describe_finding && !r->funcs.v &&
		    (p.form == CALL_NOPPED) != want_nop &&
		    image_symbols(im) == 0)
			funcs_build(im, &r->funcs);
		check_site_state(o, &p, nm, fd);
	}
	check_more(o, want_nop ? "call" : "nop", fd->wrong);
}

static int check_linked(struct options *o, struct image *im,
			struct findings *fd)
{
	struct scan_want want = { .stripped_later = true };
	struct table_bounds bounds;
	struct scan_result r;
	struct namer ln = { im, &r };
	const struct place_namer nm = { name_place, &ln };
	struct table t;
	struct place *v = NULL, *s;
	int ret = EXIT_ERROR;
	bool same;
	size_t n;

	/* the kernel's set: the scan's error for an image without -q */
	if (!o->byte_audit && extras()->code_relocs &&
	    extras()->code_relocs(im, o) < 0)
		return EXIT_ERROR;
	/* the scan's pass over the symbols also finds the table's bounds */
	table_bounds_init(&bounds, o->start_sym, o->stop_sym);
	want.bounds = &bounds;
	if ((o->byte_audit ? extras()->audit_sites(o, im, &r) :
	     find_sites(im, &o->scan, &want, &r)) < 0)
		return EXIT_ERROR;
	/* a refused image gets the stripped-objects check's one error */
	if (scan_finish(&r) < 0 || table_read_bounds(im, &bounds, &t) < 0)
		goto out_free_scan;
	if (!t.found)
		printf("check: %s: no ftrace table (no "
		       MCOUNT_KERNEL_START "/" MCOUNT_KERNEL_STOP " or "
		       MCOUNT_LINKER_START "/" MCOUNT_LINKER_STOP
		       " symbols, no " MCOUNT_SECTION " section)\n",
		       o->image);
	v = live_entries(&t, &n, fd);
	if (fd->zeroed)
		printf(ZEROED_LINE, fd->zeroed,
		       o->allow_zeroed || !extras()->zeroed_note ? "" :
		       extras()->zeroed_note);
	same = agree(&r, v, n);
	if (!o->byte_audit && !same && extras()->describe_finding) {
		/* findings to explain: scan again with the drop reasons */
		scan_result_free(&r);
		if (find_sites(im, &o->scan, &scan_explained, &r) < 0)
			goto out_free;
	}
	order_faults(o, &t, fd);
	if (!same) {
		s = site_places(&r, false);
		check_merge(o, v, n, s, r.nkept, &nm, fd);
		free(s);
	} else if (o->sites != SITES_ANY) {
		check_states(o, im, &r, &nm, fd);
	}
	ret = check_verdict(o, t.found, t.n, r.nkept, t.how, fd);
out_free:
	free(v);
	table_free(&t);
out_free_scan:
	scan_result_free(&r);
	return ret;
}

int cmd_check(struct options *o)
{
	struct findings fd = { 0 };
	struct image im;
	int ret = EXIT_ERROR;

	/* the full tool's scan of an image reads the symbols in place */
	if (image_open_lazy(&im, o->image, IMAGE_ANY) < 0)
		goto out_close;
	if ((o->byte_audit || im.ehdr.e_type == ET_REL) &&
	    image_symbols(&im) < 0)
		goto out_close;
	if (im.ehdr.e_type != ET_REL)
		ret = check_linked(o, &im, &fd);
	else if (o->byte_audit)
		lp_error(o->image, "ELF header",
			 "--byte-audit is for linked images; a relocatable object keeps all its relocations");
	else
		ret = check_object(o, &im, &fd);
out_close:
	image_close(&im);
	return ret;
}
