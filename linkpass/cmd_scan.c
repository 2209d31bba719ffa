// SPDX-License-Identifier: GPL-2.0
/* linkpass scan: image in, sorted table object out. */
#include "anchor.h"
#include "commands.h"
#include "find.h"
#include "hooks.h"
#include "table_write.h"
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
	/* the times of --stats: start, open, write, end */
	uint64_t ns[4] = { now_ns() };
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
	if (extras()->read_dynamic && extras()->read_dynamic(&im) < 0)
		goto out_close;
	ns[1] = now_ns();
	/* the check goes on while the table is written; the gate waits */
	if (find_sites(&im, &o->scan, &want, &r) < 0)
		goto out_close;
	/* an empty table only where the image names no mcount symbol */
	if (!r.nkept && (scan_finish(&r) < 0 || empty_table_ok(&im, o, &r) < 0))
		goto out_free_scan;
	if (anchors_choose(&im, o->anchor, r.kept, r.nkept, r.anchors, &a) < 0)
		goto out_free_scan;
	ns[2] = now_ns();
	/* --format=asm: the full tool's (table_asm.c) */
	if (o->format == FORMAT_ASM ?
	    extras()->table_write_asm(&im, r.kept, r.nkept, &a, o->output,
				      &gate) :
	    table_write_elf(&im, r.kept, r.nkept, &a, o->output, &gate))
		goto out_free_anchors;
	ret = EXIT_OK;
	ns[3] = now_ns();
	/* --stats: the full tool's (scan_stats.c) */
	if (o->stats)
		extras()->scan_stats(&im, o, &r, &a, ns);
out_free_anchors:
	anchors_free(&a);
out_free_scan:
	scan_result_free(&r);
out_close:
	image_close(&im);
	return ret;
}
