// SPDX-License-Identifier: GPL-2.0
/*
 * The exact whole-image scan, as its passes in order: every symbol
 * decoded, the candidate sites (mcount calls or the patchable list),
 * each judged with its reason, and the stripped-objects check.
 * find_sites() (find.c) runs it where the quick scan cannot tell.
 */
#include "scan.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "anchor.h"
#include "filter.h"
#include "patchable.h"
#include "relocscan.h"
#include "stripped.h"
#include "symbols.h"
#include "table_read.h"
#include "util.h"

const struct scan_want scan_explained = { .reasons = true };

/* What one scan holds while it runs (scan_run_free()). */
struct scan_run {
	struct image *im;
	const struct scan_opts *o;
	struct scan_result *r;
	uint8_t *traced;	/* by section: does the policy trace it? */
	uint8_t *is_mcount;	/* by symbol: enum mcount_kind */
};

static void scan_run_free(struct scan_run *s)
{
	free(s->is_mcount);
	free(s->traced);
}

/*
 * An empty result, then every symbol decoded: the mcount symbols, and
 * in the same pass the anchors' fallback names and the table's bounds;
 * then the sorted index of the functions.
 */
static int symbols_phase(struct scan_run *s, const struct scan_want *want)
{
	struct image *im = s->im;
	struct scan_result *r = s->r;
	struct sym_pass p = { 0 };
	uint64_t t0 = now_ns();

	memset(r, 0, sizeof(*r));
	if (!im->symtab)
		return lp_error(im->path, ".symtab",
				"no symbol table: the image is stripped; scan the unstripped link output");
	if (image_symbols(im) < 0)
		return -1;
	s->traced = traced_sections(im, s->o);
	if (want->anchors) {
		r->anchors = xcalloc(1, sizeof(*r->anchors));
		p.anchors = r->anchors;
	}
	s->is_mcount = xcalloc(im->nsyms ? im->nsyms : 1, 1);
	p.is_mcount = s->is_mcount;
	p.bounds = want->bounds;
	run_symbol_pass(im, s->o, &p);
	if (want->bounds)
		want->bounds->looked = true;
	funcs_build(im, &r->funcs);
	r->stats.ns_symbols = now_ns() - t0;
	return 0;
}

/* The calls to the mcount symbols, each judged with its reason. */
static int scan_calls(struct scan_run *s, const struct scan_want *want)
{
	struct scan_result *r = s->r;
	struct site *cand;
	size_t ncand;
	bool sorted;

	if (relocscan_sites(s->im, s->is_mcount, &r->stats, &cand, &ncand,
			    &sorted) < 0)
		return -1;
	r->stats.ns_filter = now_ns();
	filter_sites(s->im, s->traced, cand, ncand, sorted, r);
	r->stats.ns_filter = now_ns() - r->stats.ns_filter;
	/*
	 * Never drop a live site silently: without local symbols a static
	 * function looks like dead code.  The kernel keeps them all.
	 */
	if (stripped_begin(s->im, r, want->stripped_later ? s->o->threads : 1,
			   &r->stripped) < 0)
		return -1;
	return want->stripped_later ? 0 : scan_finish(r);
}

/* --patchable-entries: the listed entries, each judged with its reason */
static int scan_pads(struct scan_run *s)
{
	struct image *im = s->im;
	const struct scan_opts *o = s->o;
	struct scan_result *r = s->r;
	const struct func *fn;
	const struct site *st;
	struct site *cand;
	uint64_t t0 = now_ns();
	long hint = -1;		/* the kept sites come in address order */
	size_t n, i;
	int ret;

	ret = patchable_read(im, &cand, &n);
	if (ret)
		return ret > 0 ? 0 : -1;
	patchable_stats(&r->stats, n);
	r->stats.ns_relocs = now_ns() - t0;
	t0 = now_ns();
	filter_sites(im, s->traced, cand, n, false, r);
	r->stats.ns_filter = now_ns() - t0;
	for (i = 0; o->pad_n && i < r->nkept; i++) {
		st = &r->kept[i];
		fn = funcs_lookup(&r->funcs, st->shndx, st->addr, &hint);
		if (!fn)
			fn = pad_before_entry(im, &r->funcs,
					      &im->secs[st->shndx], st->addr,
					      &hint);
		if (!pad_fits(im, o, &im->secs[st->shndx], fn, st->addr))
			return lp_error(im->path, im->secs[st->shndx].name,
					"entry 0x%llx of %s does not start a pad of %u nops with %u before the entry (--patchable-entries=%u,%u): the code was compiled with another -fpatchable-function-entry",
					(unsigned long long)st->addr,
					fn->sym->name, o->pad_n, o->pad_m,
					o->pad_n, o->pad_m);
	}
	if (!im->nlocal_funcs && r->stats.verdicts[DROP_NO_FUNC])
		return lp_error(im->path, im->symtab->name,
				"no local function symbols (discarded by ld -x/--discard-all or strip -x?), so %zu patchable entries lie in no function symbol and static functions cannot be told from dead code; link keeping local symbols",
				r->stats.verdicts[DROP_NO_FUNC]);
	return 0;
}

int exact_scan(struct image *im, const struct scan_opts *o,
	       const struct scan_want *want, struct scan_result *r)
{
	struct scan_run s = { .im = im, .o = o, .r = r };
	int ret;

	ret = symbols_phase(&s, want);
	if (!ret)
		ret = o->patchable ? scan_pads(&s) : scan_calls(&s, want);
	/* the anchors' candidates, once the sites are known */
	if (!ret && want->anchors)
		anchor_cands_gather(im, r->kept, r->nkept, r->anchors);
	scan_run_free(&s);
	if (ret)
		scan_result_free(r);	/* callers free only a result */
	return ret;
}

int scan_finish(struct scan_result *r)
{
	int ret = 0;

	if (r->stripped)
		ret = stripped_finish(r->stripped, &r->stats);
	r->stripped = NULL;
	return ret;
}

void scan_result_free(struct scan_result *r)
{
	/* its thread may still be running */
	if (r->stripped)
		stripped_cancel(r->stripped);
	free(r->kept);
	free(r->dropped);
	free(r->unentered);
	if (r->anchors)
		anchor_cands_free(r->anchors);
	free(r->anchors);
	funcs_free(&r->funcs);
	memset(r, 0, sizeof(*r));
}
