// SPDX-License-Identifier: GPL-2.0
/*
 * linkpass check: is the table linked into an image exactly the set of
 * call sites the image's own relocations give, sorted, without
 * duplicates?  This is both the stability test of the relink loop and
 * an audit for tables made by per-object tools.  --byte-audit derives
 * the sites from function entries instead, for images without
 * relocations; a relocatable object (a .ko) goes to check_obj.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_obj.h"
#include "commands.h"
#include "describe.h"
#include "find.h"
#include "findings.h"
#include "hooks.h"
#include "mcount-table.h"
#include "table_read.h"
#include "util.h"

/* Entries that hold 0, reported apart from stale ones. */
#define ZEROED_LINE \
	"zeroed %zu entries hold 0 (dead entries zeroed after the link; ftrace skips them)%s\n"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
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

/* The table's entries in address order (usually they already are). */
static uint64_t *sorted_copy(const struct table *t)
{
	uint64_t *v = xmalloc((t->n ? t->n : 1) * sizeof(*v));
	size_t i;

	if (t->n)
		memcpy(v, t->v, t->n * sizeof(*v));
	for (i = 1; i < t->n; i++)
		if (v[i] < v[i - 1])
			break;
	if (i < t->n)
		qsort(v, t->n, sizeof(*v), cmp_u64);
	return v;
}

/* The common case: the table is exactly the sites, nothing to list. */
static bool agree(const struct scan_result *r, const uint64_t *sorted,
		  size_t n)
{
	size_t i;

	if (n != r->nkept)
		return false;
	for (i = 0; i < n; i++)
		if (sorted[i] != r->kept[i].addr)
			return false;
	return true;
}

/* Names an address of a linked image in check's findings. */
struct linked_namer {
	struct image *im;
	const struct scan_result *r;
};

static void describe_linked(void *ctx, enum finding f, const struct place *p,
			    char *buf, size_t len)
{
	const struct linked_namer *ln = ctx;
	const struct site *d;
	char where[512], bytes[64];

	describe_addr(ln->im, &ln->r->funcs, p->off, where, sizeof(where));
	if (f == FOUND_MISSING || f == FOUND_DUPLICATE) {
		snprintf(buf, len, "0x%016llx %s", (unsigned long long)p->off,
			 where);
		return;
	}
	d = f == FOUND_STALE ? scan_find_dropped(ln->r, p->off) : NULL;
	snprintf(buf, len, "0x%016llx %s: bytes %s%s%s",
		 (unsigned long long)p->off, where,
		 describe_bytes(ln->im, p->off, bytes, sizeof(bytes)),
		 d ? "; call " : "", d ? verdict_name[d->verdict] : "");
}

/* The table is exactly the sites: does each hold what --sites wants? */
static void check_states(const struct options *o, struct image *im,
			 struct scan_result *r, struct findings *fd)
{
	struct linked_namer ln = { im, r };
	const struct place_namer nm = { describe_linked, &ln };
	bool want_nop = o->sites == SITES_NOP, nop;
	struct place p = { 0 };
	size_t i;

	for (i = 0; i < r->nkept; i++) {
		p.off = r->kept[i].addr;
		p.form = r->kept[i].form;
		nop = p.form == CALL_NOPPED;
		/* the first finding: its lines name functions */
		if (!r->funcs.v && nop != want_nop && image_symbols(im) == 0)
			funcs_build(im, &r->funcs);
		check_site_state(o, &p, &nm, fd);
	}
	check_more(o, o->sites == SITES_NOP ? "call" : "nop", fd->wrong);
}

/* The merge of check_merge(), on addresses: shndx 0 on both sides. */
static void compare(const struct options *o, struct image *im,
		    const struct scan_result *r, const uint64_t *sorted,
		    size_t n, struct findings *fd)
{
	struct linked_namer ln = { im, r };
	const struct place_namer nm = { describe_linked, &ln };
	struct place *t = xcalloc(n ? n : 1, sizeof(*t));
	struct place *s = xcalloc(r->nkept ? r->nkept : 1, sizeof(*s));
	size_t i;

	for (i = 0; i < n; i++)
		t[i].off = sorted[i];
	for (i = 0; i < r->nkept; i++) {
		s[i].off = r->kept[i].addr;
		s[i].form = r->kept[i].form;
	}
	check_merge(o, t, n, s, r->nkept, &nm, fd);
	free(s);
	free(t);
}

/*
 * Take the zero entries out of @v (a post-link tool zeroed them; ftrace
 * skips them at boot) and count them: they are reported apart from
 * stale entries, which still name an address.
 */
static size_t drop_zeroed(uint64_t *v, size_t n, struct findings *fd)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++)
		if (v[i])
			v[k++] = v[i];
	fd->zeroed = n - k;
	return k;
}

/*
 * The sites to compare with: from relocations, or with --byte-audit
 * (the full tool's, audit.c) from function entries.
 */
static int sites_to_check(const struct options *o, struct image *im,
			  const struct scan_want *want, struct scan_result *r)
{
	if (o->byte_audit)
		return extras()->audit_sites(o, im, r);
	return find_sites(im, &o->scan, want, r);
}

/*
 * The comparison needs the relocations of the code (-q).  An image that
 * kept none (a stripped vmlinux, a shipped image) gets one line that
 * says what checks it: a link that keeps them, or in the full tool the
 * byte audit (audit.c).  0 when the image has them, or has no code (or
 * no symbols) to check.
 */
static int code_relocs_kept(struct image *im, const struct options *o)
{
	struct section *code = NULL;
	size_t i;

	for (i = 1; i < im->nsecs; i++) {
		struct section *s = &im->secs[i];

		if (image_is_code_relocs(im, s) && s->sh.sh_size)
			return 0;
		/* name .text when there is one */
		if ((!code || !strcmp(s->name, ".text")) &&
		    (s->sh.sh_flags & SHF_EXECINSTR) &&
		    (s->sh.sh_flags & SHF_ALLOC) && s->sh.sh_size)
			code = s;
	}
	/* without .symtab the scan's own error comes first */
	if (!code || !im->symtab)
		return 0;
	if (extras()->no_code_relocs)
		return extras()->no_code_relocs(im, o, code);
	return lp_error(im->path, code->name,
			"no relocations kept for code, which check compares the table with: check the image as linked with -q (--emit-relocs), before its relocations are stripped");
}

static int check_linked(struct options *o, struct image *im,
			struct findings *fd)
{
	struct scan_want want = { .stripped_later = true };
	struct table_bounds bounds;
	struct scan_result r;
	struct table t;
	uint64_t *sorted = NULL;
	int ret = EXIT_ERROR;
	bool same;
	size_t n;

	/*
	 * The sites alone first: explaining findings needs more.  The
	 * scan's pass over the symbols also finds the table's bounds.
	 */
	table_bounds_init(&bounds, o->start_sym, o->stop_sym);
	/*
	 * The stripped-objects check searches on two threads: its own and
	 * this one, in scan_finish().  Its verdict comes before reading the
	 * table, so that a refused image gets that one error line.
	 */
	want.bounds = &bounds;
	if (!o->byte_audit && !o->scan.patchable &&
	    code_relocs_kept(im, o) < 0)
		return EXIT_ERROR;
	ret = sites_to_check(o, im, &want, &r);
	if (ret < 0)
		return EXIT_ERROR;
	ret = EXIT_ERROR;
	if (scan_finish(&r) < 0)
		goto out_free_scan;
	if (table_read_bounds(im, &bounds, &t) < 0)
		goto out_free_scan;
	sorted = sorted_copy(&t);
	if (!t.found)
		printf("check: %s: no ftrace table (no "
		       MCOUNT_KERNEL_START "/" MCOUNT_KERNEL_STOP " or "
		       MCOUNT_LINKER_START "/" MCOUNT_LINKER_STOP
		       " symbols, no " MCOUNT_SECTION " section)\n",
		       o->image);
	n = drop_zeroed(sorted, t.n, fd);
	if (fd->zeroed)
		printf(ZEROED_LINE, fd->zeroed,
		       o->allow_zeroed ? "" : " (--allow-zeroed accepts them)");
	same = agree(&r, sorted, n);
	if (!o->byte_audit && !same) {
		/* findings to explain: scan again with the drop reasons */
		scan_result_free(&r);
		if (find_sites(im, &o->scan, &scan_explained, &r) < 0)
			goto out_free_sorted;
	}
	order_faults(o, &t, fd);
	if (!same)
		compare(o, im, &r, sorted, n, fd);
	else if (o->sites != SITES_ANY)
		check_states(o, im, &r, fd);
	ret = check_verdict(o, t.found, t.n, r.nkept, t.how, fd);
out_free_sorted:
	free(sorted);
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

	/*
	 * The scan of a linked image reads each symbol in place; the
	 * byte-level audit and the object check use the decoded ones.
	 */
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
