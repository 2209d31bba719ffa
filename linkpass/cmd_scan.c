// SPDX-License-Identifier: GPL-2.0
/* linkpass scan: image in, sorted table object out. */
#include <stdio.h>
#include <string.h>

#include "anchor.h"
#include "commands.h"
#include "find.h"
#include "table_write.h"
#include "util.h"

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static void print_stats(const struct options *o, const struct scan_result *r,
			const struct anchors *a, uint64_t ns_open,
			uint64_t ns_write, uint64_t ns_total)
{
	const struct scan_stats *s = &r->stats;
	int v;
	size_t i;

	printf("linkpass scan %s -> %s\n", o->image, o->output);
	printf("  %-40s %zu\n", "relocation sections read", s->relsecs);
	printf("  %-40s %zu\n", "relocations seen", s->relocs);
	printf("  %-40s %zu\n", "references to the mcount symbol", s->refs);
	printf("  %-40s %zu\n", "call sites found", s->calls);
	for (v = DROP_NOT_CALL; v < NR_VERDICTS; v++) {
		char label[96];

		snprintf(label, sizeof(label), "dropped: %s", verdict_short[v]);
		printf("  %-40s %zu\n", label, s->verdicts[v]);
	}
	printf("  %-40s %zu\n", "table entries", r->nkept);
	printf("  %-40s %zu", "anchor symbols", a->n);
	for (i = 0; i < a->n && i < 4; i++)
		printf("%s%s", i ? ", " : " (", a->list[i]->name);
	printf("%s\n", a->n > 4 ? ", ...)" : a->n ? ")" : "");
	printf("  %-40s %d\n", "threads", s->threads);
	printf("  %-40s %.3f ms\n", "time: open image", ms(ns_open));
	printf("  %-40s %.3f ms\n", "time: function index", ms(s->ns_symbols));
	printf("  %-40s %.3f ms\n", "time: relocation scan", ms(s->ns_relocs));
	printf("  %-40s %.3f ms\n", "time: filter and sort", ms(s->ns_filter));
	printf("  %-40s %.3f ms%s\n", "time: stripped-objects check",
	       ms(s->ns_stripped), s->stripped_threaded ?
	       " (on its own thread, while the table is written)" : "");
	printf("  %-40s %.3f ms\n", "time: write table", ms(ns_write));
	printf("  %-40s %.3f ms\n", "time: total", ms(ns_total));
}

/*
 * The drop counts of --stats, by a second scan with the reasons on,
 * after the table is written: the timed run is the one without
 * --stats, so --stats does not change what it measures.
 */
static void count_reasons(struct image *im, const struct options *o,
			  struct scan_result *r)
{
	struct scan_result full;

	if (find_sites(im, &o->scan, &scan_explained, &full) < 0)
		return;		/* not reached: the same scan succeeded */
	memcpy(r->stats.verdicts, full.stats.verdicts,
	       sizeof(r->stats.verdicts));
	scan_result_free(&full);
}

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

/*
 * No silent empty table: an image that names an mcount symbol but has
 * no site was almost always linked wrong (gcc -flto without -pg on the
 * link line, or __fentry__ left to glibc through the GOT).  0 when the
 * table may be written, or -1 after one line saying why and what to do.
 * An image that names no mcount symbol gets its empty table.
 */
static int empty_table_ok(struct image *im, const struct options *o,
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

/* The table's gate: the scan's stripped-objects check must pass. */
static int stripped_passed(void *arg)
{
	return scan_finish(arg);
}

int cmd_scan(struct options *o)
{
	uint64_t t_start = now_ns(), ns_open, ns_write, t0, t_end;
	struct scan_result r;
	struct out_gate gate = { stripped_passed, &r };
	/* the kept sites and the anchors; the drop reasons only for --stats */
	const struct scan_want want = { .anchors = true, .stripped_later = true };
	struct anchors a;
	struct image im;
	int ret = EXIT_ERROR;

	/* the scan reads each symbol in place; none is decoded for it */
	if (image_open_lazy(&im, o->image, IMAGE_LINKED) < 0)
		goto out_close;
	/* a shared library's exported symbols are no anchors */
	if (image_read_dynamic(&im) < 0)
		goto out_close;
	ns_open = now_ns() - t_start;
	/* the check goes on while the table is written; the gate waits */
	if (find_sites(&im, &o->scan, &want, &r) < 0)
		goto out_close;
	/* an empty table only where the image names no mcount symbol */
	if (!r.nkept && (scan_finish(&r) < 0 || empty_table_ok(&im, o, &r) < 0))
		goto out_free_scan;
	if (anchors_choose(&im, o->anchor, r.kept, r.nkept, r.anchors, &a) < 0)
		goto out_free_scan;
	t0 = now_ns();
	if (o->format == FORMAT_ASM ?
	    table_write_asm(&im, r.kept, r.nkept, &a, o->output, &gate) :
	    table_write_elf(&im, r.kept, r.nkept, &a, o->output, &gate))
		goto out_free_anchors;
	ret = EXIT_OK;
	if (!o->stats)
		goto out_free_anchors;
	t_end = now_ns();
	ns_write = t_end - t0;
	count_reasons(&im, o, &r);
	print_stats(o, &r, &a, ns_open, ns_write, t_end - t_start);
out_free_anchors:
	anchors_free(&a);
out_free_scan:
	scan_result_free(&r);
out_close:
	image_close(&im);
	return ret;
}
