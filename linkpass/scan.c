// SPDX-License-Identifier: GPL-2.0
/*
 * Whole-image scans, each as its passes in order: symbols, candidate
 * sites, filter and sort, and the full tool's stripped-objects check.
 */
#include "scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anchor.h"
#include "filter.h"
#include "hooks.h"
#include "patchable.h"
#include "relocscan.h"
#include "symbols.h"
#include "table_read.h"
#include "util.h"

const struct scan_want scan_explained = { .reasons = true };

/* What one scan holds while it runs (scan_run_free()). */
struct scan_run {
	struct image *im;
	const struct scan_opts *o;
	struct scan_result *r;
	bool pads;		/* the sites are the patchable list's */
	uint8_t *traced;	/* by section: does the policy trace it? */
	uint8_t *is_mcount;	/* by symbol: enum mcount_kind */
	struct entry_set *e;	/* the full tool's (hooks.h), or NULL */
};

/*
 * The mcount symbols, and in the same pass the anchor candidates, the
 * table's bounds and the entry set; without one, the sorted index.
 */
static int symbols_phase(struct scan_run *s, const struct scan_want *want)
{
	struct image *im = s->im;
	struct scan_result *r = s->r;
	struct sym_pass p = { 0 };
	uint64_t t0 = now_ns();

	if (want->reasons && image_symbols(im) < 0)
		return -1;
	s->traced = traced_sections(im, s->o);
	if (!want->reasons && extras()->entry_set)
		s->e = extras()->entry_set(im, s->traced, s->pads);
	p.e = s->e;
	if (want->anchors) {
		r->anchors = xcalloc(1, sizeof(*r->anchors));
		p.anchors = r->anchors;
	}
	s->is_mcount = xcalloc(im->nsyms ? im->nsyms : 1, 1);
	p.is_mcount = s->is_mcount;
	p.bounds = want->bounds;
	if (run_symbol_pass(im, s->o, &p) < 0)
		return -1;
	if (want->bounds)
		want->bounds->looked = true;
	if (!s->e) {
		if (image_symbols(im) < 0)
			return -1;
		funcs_build(im, &r->funcs);
	}
	r->stats.ns_symbols = now_ns() - t0;
	image_release_globals(im);
	return 0;
}

static void scan_run_free(struct scan_run *s)
{
	free(s->is_mcount);
	free(s->traced);
	if (s->e)
		extras()->entry_set_free(s->e);
}

/* An empty result, for an image that has symbols to scan. */
static int scan_open(const struct image *im, struct scan_result *r)
{
	memset(r, 0, sizeof(*r));
	if (!im->symtab)
		return lp_error(im->path, ".symtab",
				"no symbol table: the image is stripped; scan the unstripped link output");
	return 0;
}

int scan_image(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r)
{
	struct scan_run s = { .im = im, .o = o, .r = r };
	struct site *cand;
	size_t ncand;
	bool sorted;
	int ret = -1;

	if (scan_open(im, r) < 0)
		return -1;
	if (symbols_phase(&s, want) < 0)
		goto out_free;
	if (relocscan_sites(im, o, s.is_mcount, &r->stats, &cand, &ncand,
			    &sorted) < 0)
		goto out_free;
	r->stats.ns_filter = now_ns();
	if (filter_sites(im, s.traced, s.e, cand, ncand, sorted, o->threads,
			 r) < 0)
		goto out_free;
	r->stats.ns_filter = now_ns() - r->stats.ns_filter;
	/*
	 * Never drop a live site silently: without local symbols a static
	 * function looks like dead code.  The kernel keeps them all.
	 */
	if (extras()->stripped_start &&
	    extras()->stripped_start(im, r, want->stripped_later ?
				     o->threads : 1, &r->stripped) < 0)
		goto out_free;
	ret = want->stripped_later ? 0 : scan_finish(r);
out_free:
	scan_run_free(&s);
	if (ret)
		scan_result_free(r);	/* callers free only a result */
	return ret;
}

/* --patchable-entries, every entry judged with its reason */
static int scan_list(struct image *im, const struct scan_opts *o,
		     struct scan_result *r)
{
	const struct func *fn;
	const struct site *s;
	uint8_t *traced;
	struct site *cand;
	uint64_t t0 = now_ns();
	size_t n, i;
	int ret;

	if (scan_open(im, r) < 0)
		return -1;
	ret = patchable_read(im, &cand, &n);
	if (ret)
		return ret > 0 ? 0 : -1;
	patchable_stats(&r->stats, n);
	r->stats.ns_relocs = now_ns() - t0;
	t0 = now_ns();
	traced = traced_sections(im, o);
	ret = filter_sites(im, traced, NULL, cand, n, false, 1, r);
	free(traced);
	if (ret < 0)
		goto out_free;
	r->stats.ns_filter = now_ns() - t0;
	for (i = 0; o->pad_n && i < r->nkept; i++) {
		s = &r->kept[i];
		fn = funcs_lookup(&r->funcs, s->shndx, s->addr, NULL);
		if (!fn)
			fn = pad_before_entry(im, &r->funcs, &im->secs[s->shndx],
					      s->addr, NULL);
		if (!pad_fits(im, o, &im->secs[s->shndx], fn, s->addr)) {
			lp_error(im->path, im->secs[s->shndx].name,
				 "entry 0x%llx of %s does not start a pad of %u nops with %u before the entry (--patchable-entries=%u,%u): the code was compiled with another -fpatchable-function-entry",
				 (unsigned long long)s->addr, fn->sym->name,
				 o->pad_n, o->pad_m, o->pad_n, o->pad_m);
			goto out_free;
		}
	}
	if (!im->nlocal_funcs && r->stats.verdicts[DROP_NO_FUNC]) {
		lp_error(im->path, im->symtab->name,
			 "no local function symbols (discarded by ld -x/--discard-all or strip -x?), so %zu patchable entries lie in no function symbol and static functions cannot be told from dead code; link keeping local symbols",
			 r->stats.verdicts[DROP_NO_FUNC]);
		goto out_free;
	}
	return 0;
out_free:
	scan_result_free(r);
	return -1;
}

int scan_pads(struct image *im, const struct scan_opts *o,
	      const struct scan_want *want, struct scan_result *r)
{
	struct scan_run s = { .im = im, .o = o, .r = r, .pads = true };
	int ret = -1;

	if (scan_open(im, r) < 0)
		return -1;
	/* patchable.c judges every entry, with its reason */
	if (want->reasons || im->ehdr.e_type == ET_REL ||
	    !extras()->pad_sites)
		return scan_list(im, o, r);
	/* the full tool's entry set, and patchable.c for what it cannot tell */
	if (symbols_phase(&s, want) == 0)
		ret = extras()->pad_sites(im, o, s.traced, s.e, r);
	scan_run_free(&s);
	if (ret)
		scan_result_free(r);
	return ret > 0 ? scan_list(im, o, r) : ret;
}

int find_sites(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r)
{
	if (o->patchable)
		return scan_pads(im, o, want, r);
	return scan_image(im, o, want, r);
}

int scan_finish(struct scan_result *r)
{
	int ret = 0;

	if (r->stripped)
		ret = extras()->stripped_finish(r->stripped, &r->stats);
	r->stripped = NULL;
	return ret;
}

void scan_result_free(struct scan_result *r)
{
	/* its thread may still be running */
	if (r->stripped)
		extras()->stripped_cancel(r->stripped);
	free(r->kept);
	free(r->dropped);
	free(r->unentered);
	if (r->anchors)
		anchor_cands_free(r->anchors);
	free(r->anchors);
	funcs_free(&r->funcs);
	memset(r, 0, sizeof(*r));
}
