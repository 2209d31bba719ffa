// SPDX-License-Identifier: GPL-2.0
/*
 * linkpass check: is the table in an image exactly the set of call
 * sites the image's own relocations give, sorted, without duplicates?
 * Both the stability test of the relink loop and an audit of tables
 * made by per-object tools.  A relocatable object's (a .ko) entries
 * are relocations, so each names a place (section, offset); the module
 * loader sorts them anyway, but order faults are reported as for an
 * image.  Both inputs reduce their table and sites to sorted places for
 * the one merge, check_merge().  --byte-audit (audit.c) takes the sites
 * from function entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit.h"
#include "commands.h"
#include "describe.h"
#include "findings.h"
#include "mcount-table.h"
#include "scan.h"
#include "table_read.h"
#include "util.h"

#define ZEROED_LINE \
	"zeroed %zu entries hold 0 (dead entries zeroed after the link; ftrace skips them)%s\n"
#define CHECK_FAILED \
	"check: %s: table %s: %zu entries, %zu call sites: %zu missing, %zu stale, %zu duplicate, %zu out of order%s\n"

/* One check: its input, the sites that name its places, its findings. */
struct check {
	const struct options *o;
	struct image *im;
	struct scan_result *r;
	struct findings fd;
};

static const char *const finding_name[] = {
	[FOUND_MISSING] = "missing",
	[FOUND_STALE] = "stale",
	[FOUND_DUPLICATE] = "duplicate",
	[FOUND_CALL] = "call",
	[FOUND_NOP] = "nop",
};

/* List one more finding of a kind that has @count so far? */
static bool check_listing(const struct check *c, size_t count)
{
	return c->o->max_list <= 0 || count <= (size_t)c->o->max_list;
}

/* "... and N more" once a kind passed its limit (50, or --max-list). */
static void check_more(const struct check *c, const char *what, size_t count)
{
	long max = c->o->max_list;

	if (max > 0 && count > (size_t)max)
		printf("%s: ... and %zu more (--max-list=0 lists all)\n", what,
		       count - (size_t)max);
}

/* Count a finding @f at @p, and list it while its kind has room. */
static void found(const struct check *c, enum finding f,
		  const struct place *p, size_t *count)
{
	char buf[600];

	if (!check_listing(c, ++*count))
		return;
	/* the address or section + offset, its function and bytes */
	describe_finding(c->im, c->r, f, p, buf, sizeof(buf));
	printf("%s %s%s\n", finding_name[f], buf,
	       f == FOUND_CALL ? " (--sites=nop wants the NOP)" :
	       f == FOUND_NOP ? " (--sites=call wants the call)" : "");
}

/* List and count site @s (its form set) if it is not what --sites wants. */
static void check_site_state(struct check *c, const struct place *s)
{
	bool nop = s->form == CALL_NOPPED;

	if (c->o->sites == SITES_NOP && !nop)
		found(c, FOUND_CALL, s, &c->fd.wrong);
	else if (c->o->sites == SITES_CALL && nop)
		found(c, FOUND_NOP, s, &c->fd.wrong);
}

/*
 * The table @t (sorted, repeats allowed) against the sites @s (sorted,
 * distinct): duplicates, then stale, missing and wrong, in place order.
 */
static void check_merge(struct check *c, const struct place *t, size_t nt,
			const struct place *s, size_t ns)
{
	struct findings *fd = &c->fd;
	size_t i, j = 0;
	int d;

	for (i = 1; i < nt; i++)
		if (!cmp_place(&t[i], &t[i - 1]))
			found(c, FOUND_DUPLICATE, &t[i], &fd->dups);
	check_more(c, "duplicate", fd->dups);

	/* each distinct entry against each site, both in place order */
	i = 0;
	while (i < nt || j < ns) {
		if (i > 0 && i < nt && !cmp_place(&t[i], &t[i - 1])) {
			i++;	/* a duplicate, listed above */
			continue;
		}
		d = i >= nt ? 1 : j >= ns ? -1 : cmp_place(&t[i], &s[j]);
		if (d < 0)
			found(c, FOUND_STALE, &t[i++], &fd->stale);
		else if (d > 0)
			found(c, FOUND_MISSING, &s[j++], &fd->missing);
		else
			check_site_state(c, &s[j++]), i++;
	}
	check_more(c, "stale", fd->stale);
	check_more(c, "missing", fd->missing);
	check_more(c, c->o->sites == SITES_NOP ? "call" : "nop", fd->wrong);
}

/*
 * The summary line and the exit status: @found says a table was found
 * (@how names it), @n entries against @nsites call sites.
 */
static int check_verdict(const struct check *c, bool found, size_t n,
			 size_t nsites, const char *how)
{
	const struct options *o = c->o;
	const struct findings *fd = &c->fd;
	bool ok = found && !fd->missing && !fd->stale && !fd->dups &&
		  !fd->wrong && (!fd->unordered || o->allow_unsorted) &&
		  (!fd->zeroed || o->allow_zeroed);
	static const char *const state[] = {
		[SITES_ANY] = "", [SITES_CALL] = " (each the call)",
		[SITES_NOP] = " (each the NOP)",
	};
	const char *note = NULL;
	char more[320] = "";

	if (fd->zeroed)
		snprintf(more, sizeof(more), "; %zu zeroed", fd->zeroed);
	if (fd->wrong)
		snprintf(more + strlen(more), sizeof(more) - strlen(more),
			 "; %zu not %s", fd->wrong,
			 o->sites == SITES_NOP ? "the NOP" : "the call");
	if (!ok)
		note = audit_verdict_note(o, n - fd->zeroed, fd);
	if (note)
		snprintf(more + strlen(more), sizeof(more) - strlen(more),
			 "%s", note);
	if (ok)
		printf("check: %s: ok: %zu table entries (%s) match the %zu call sites%s%s%s\n",
		       o->image, n - fd->zeroed, how, nsites,
		       fd->unordered ? " (unsorted)" : "",
		       fd->zeroed ? " (zeroed entries allowed)" : "",
		       state[o->sites]);
	else
		printf(CHECK_FAILED, o->image, found ? how : "absent", n, nsites,
		       fd->missing, fd->stale, fd->dups, fd->unordered, more);
	return ok ? EXIT_OK : EXIT_DIFF;
}

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

static int check_object(struct check *c)
{
	const struct options *o = c->o;
	struct image *im = c->im;
	struct section *sec = image_find_section(im, MCOUNT_SECTION);
	struct place *t = NULL, *s = NULL;
	struct scan_result r;
	size_t n = 0, i;
	int ret = EXIT_ERROR;

	/* with functions and drop reasons, as obj scans */
	if (find_sites(im, &o->scan, &scan_explained, &r) < 0)
		return EXIT_ERROR;
	c->r = &r;
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
		    check_listing(c, ++c->fd.unordered))
			printf("unordered entry %zu before entry %zu\n", i, i - 1);
	check_more(c, "unordered", c->fd.unordered);
	if (n)
		qsort(t, n, sizeof(*t), cmp_place);
	s = site_places(&r, true);
	check_merge(c, t, n, s, r.nkept);
	ret = check_verdict(c, sec, n, r.nkept, "section " MCOUNT_SECTION);
out_free:
	free(s);
	free(t);
out_free_scan:
	scan_result_free(&r);
	return ret;
}

static void order_faults(struct check *c, const struct table *t)
{
	size_t i;

	for (i = 1; i < t->n; i++) {
		if (t->v[i] >= t->v[i - 1] || !t->v[i])
			continue;
		if (check_listing(c, ++c->fd.unordered))
			printf("unordered 0x%016llx (entry %zu) after 0x%016llx (entry %zu)\n",
			       (unsigned long long)t->v[i], i,
			       (unsigned long long)t->v[i - 1], i - 1);
	}
	check_more(c, "unordered", c->fd.unordered);
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

static int check_linked(struct check *c)
{
	const struct options *o = c->o;
	struct image *im = c->im;
	struct scan_want want = { .stripped_later = true };
	struct table_bounds bounds;
	struct scan_result r;
	struct table t;
	struct place *v = NULL, *s;
	int ret = EXIT_ERROR;
	size_t n;

	/* an image without -q: the error names --byte-audit */
	if (!o->byte_audit && audit_code_relocs(im, o) < 0)
		return EXIT_ERROR;
	/* the scan's pass over the symbols also finds the table's bounds */
	table_bounds_init(&bounds, o->start_sym, o->stop_sym);
	want.bounds = &bounds;
	if ((o->byte_audit ? audit_check_sites(o, im, &r) :
	     find_sites(im, &o->scan, &want, &r)) < 0)
		return EXIT_ERROR;
	c->r = &r;
	/* a refused image gets the stripped-objects check's one error */
	if (scan_finish(&r) < 0 || table_read_bounds(im, &bounds, &t) < 0)
		goto out_free_scan;
	if (!t.found)
		printf("check: %s: no ftrace table (no "
		       MCOUNT_KERNEL_START "/" MCOUNT_KERNEL_STOP " or "
		       MCOUNT_LINKER_START "/" MCOUNT_LINKER_STOP
		       " symbols, no " MCOUNT_SECTION " section)\n",
		       o->image);
	v = live_entries(&t, &n, &c->fd);
	if (c->fd.zeroed)
		printf(ZEROED_LINE, c->fd.zeroed,
		       o->allow_zeroed ? "" : " (--allow-zeroed accepts them)");
	if (explain_sites(im, o, &r, v, n) < 0)
		goto out_free;
	order_faults(c, &t);
	/* where the two agree, only --sites can find something */
	s = site_places(&r, false);
	check_merge(c, v, n, s, r.nkept);
	free(s);
	ret = check_verdict(c, t.found, t.n, r.nkept, t.how);
out_free:
	free(v);
	table_free(&t);
out_free_scan:
	scan_result_free(&r);
	return ret;
}

int cmd_check(struct options *o)
{
	struct check c = { .o = o };
	struct image im;
	int ret = EXIT_ERROR;

	c.im = &im;
	/* the scan of an image reads the symbols in place */
	if (image_open_lazy(&im, o->image, IMAGE_ANY) < 0)
		goto out_close;
	if ((o->byte_audit || im.ehdr.e_type == ET_REL) &&
	    image_symbols(&im) < 0)
		goto out_close;
	if (im.ehdr.e_type != ET_REL)
		ret = check_linked(&c);
	else if (o->byte_audit)
		lp_error(o->image, "ELF header",
			 "--byte-audit is for linked images; a relocatable object keeps all its relocations");
	else
		ret = check_object(&c);
out_close:
	image_close(&im);
	return ret;
}
